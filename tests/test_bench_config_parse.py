"""bench/config_parse.py: each function's README typed config parses, and the figures are what
they claim (a first parse reads the config classes anew; the ratio run compares two trees)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import config_parse  # noqa: E402
from krmfn.registry import FUNCTIONS  # noqa: E402
from krmlib import KubeObject, Record, parse_config  # noqa: E402


def test_every_typed_config_in_a_readme_parses_and_is_measured() -> None:
    typed = [fn.name for fn in FUNCTIONS if fn.load()[1].KIND]
    assert len(typed) == len(FUNCTIONS)  # every function documents a typed form
    figures = config_parse.measure(2)
    assert sorted(figures) == sorted(typed)
    assert all(cold > 0 and warm > 0 for cold, warm in figures.values())
    for fn in FUNCTIONS:  # the typed form, accepted (parse_config raises ConfigError otherwise)
        model = fn.load()[1]
        example = KubeObject.from_yaml(config_parse._example(fn.name, model.KIND))
        assert parse_config(model, example).form == "spec"


def test_a_cold_parse_reads_the_classes_anew() -> None:
    model = FUNCTIONS[0].load()[1]
    model.model_validate({})
    assert "__krm_schema__" in model.__dict__
    config_parse._forget(Record)
    assert "__krm_schema__" not in model.__dict__
    model.model_validate({})
    assert "__krm_schema__" in model.__dict__


def test_the_ratio_run_compares_with_a_revision() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "bench/config_parse.py",
            "--against",
            "HEAD",
            "--rounds",
            "1",
            "--repeat",
            "2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "this tree / HEAD: median of 1 rounds (us: new/old)"
    assert [line.split()[0] for line in lines[1:]] == [fn.name for fn in FUNCTIONS]
