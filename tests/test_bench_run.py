"""The benchmark runner's parts that do not need kpt: measuring, parsing, the report."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import run  # noqa: E402


def test_measure_exit_code_time_and_memory(tmp_path: Path) -> None:
    script = "import sys; b = bytearray(50_000_000); sys.exit(3)"
    sample = run.measure([sys.executable, "-c", script], timeout=60)
    assert sample.returncode == 3
    assert sample.seconds > 0
    assert 50e6 < sample.peak_bytes < 500e6


def test_measure_feeds_stdin(tmp_path: Path) -> None:
    data = tmp_path / "in.txt"
    data.write_text("x" * 10)
    script = "import sys; sys.exit(len(sys.stdin.read()))"
    assert run.measure([sys.executable, "-c", script], data, timeout=60).returncode == 10


def test_measure_timeout() -> None:
    sample = run.measure([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert sample.returncode != 0
    assert sample.seconds < 10
    assert "timed out" in sample.stderr


def test_not_built(tmp_path: Path) -> None:
    stub = tmp_path / "stub"
    stub.write_text("#!/bin/sh\necho 'krmfn-x: not built yet' >&2\nexit 1\n")
    stub.chmod(0o755)
    assert run.is_built([str(stub)]) == (False, "krmfn-x: not built yet")
    assert run.is_built([str(tmp_path / "missing")])[0] is False
    assert run.is_built(["true"]) == (True, "")


def test_with_config_appends_function_config(tmp_path: Path) -> None:
    rl = tmp_path / "rl.yaml"
    rl.write_text(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n"
    )
    for config in sorted(run.CONFIGS.glob("*.yaml")):
        out = run.with_config(rl, config, tmp_path / f"rl-{config.stem}.yaml")
        parsed = yaml.safe_load(out.read_text())
        assert parsed["items"][0]["metadata"]["name"] == "a"
        assert parsed["functionConfig"] == yaml.safe_load(config.read_text())
    assert run.with_config(rl, None, tmp_path / "unused.yaml") == rl


def test_parse_importtime() -> None:
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       100 |        100 |   _io\n"
        "import time:      2000 |       2100 | site\n"
        "import time:      3000 |       3000 |     yaml.error\n"
        "import time:      1000 |       4000 |   yaml\n"
        "import time:      6000 |       6000 |   pydantic\n"
        "import time:      1000 |      11000 | krmlib\n"
        "import time:       500 |        500 | krmlib._model.object\n"
        "some other line\n"
    )
    total, top = run.parse_importtime(stderr)
    assert total == pytest.approx(13.6)
    assert top == [("pydantic", 6.0), ("yaml", 4.0), ("site", 2.0), ("krmlib", 1.5), ("_io", 0.1)]


def test_render_reports_targets() -> None:
    args = run.parse_args(["--quick", "--output", "-"])
    assert args.sizes == [1000, 10000]
    report = run.Report(sizes=[10000, 50000], reps=1)
    report.rl_bytes = {10000: 5_000_000, 50000: 25_000_000}
    fn = run.Function("merger", ["krmfn-merger"], None)
    report.functions = [fn]
    report.not_built = ["preparer"]
    for size, base, took, peak in ((10000, 3.0, 2.0, 40e6), (50000, 15.0, 12.0, 300e6)):
        # wall time twice the CPU: the verdict is on CPU, wall is only shown
        kpt = run.Sample(base * 2, 100_000_000, 0, "", base)
        report.rows.append(run.Row(size, "kpt fn source", [kpt]))
        report.rows.append(run.Row(size, "merger", [run.Sample(took * 2, int(peak), 0, "", took)]))
    startup = run.Startup("merger", 0.3, 150.0, 90.0)
    startup.cpu_over_python_ms = 45.0
    startup.over_cat_cpu_ms, startup.over_cat_quiet_ms = 50.0, 140.0
    report.startups = [startup]
    hung = run.Sample(900.0, 0, run.TIMED_OUT, "timed out", 900.0)
    report.rows.append(run.Row(10000, "hung", [hung]))
    text = run.render(report, args)
    assert "| 10,000 | merger | 2.000 | 2.000 | 0.67x | 0.67x | 40 | 8.00x | 4.000 |" in text
    assert "CPU at 10k ≤ 0.25x kpt fn source (GOMAXPROCS=1): FAIL (0.67x, median 0.67x)" in text
    assert "peak RSS ≤ 5x RL size at 10k: FAIL (8.00x); lower at 50k: FAIL (12.00x)" in text
    # judged in CPU (issue 37): 50 ms; the wall over cat (150 ms) is shown, not judged
    assert (
        "start-up ≤ 60 ms CPU over cat under kpt (no config): PASS (50 ms; wall 140 ms on the "
        "quietest rounds, not judged)"
    ) in text
    assert "| merger | 300 | 50 | 140 | 150 | 45 |" in text
    assert "start-up ≤ 30 ms CPU over python: FAIL (45 ms)" in text
    assert "CPU(50k)/CPU(10k) ≤ 5.5: FAIL (6.00)" in text
    assert "**preparer**: not built" in text
    assert "| 10,000 | hung | > 900 | | > 300.00x |" in text


def test_paired_ratios_win_over_the_median_baseline() -> None:
    args = run.parse_args(["--quick", "--output", "-"])
    report = run.Report(sizes=[10000], reps=2)
    report.rl_bytes = {10000: 5_000_000}
    report.functions = [run.Function("merger", ["krmfn-merger"], None)]
    report.rows.append(run.Row(10000, "kpt fn source", [run.Sample(3.0, 1, 0, "", 3.0)]))
    samples = [run.Sample(2.0, 20_000_000, 0, "", 2.0)]
    row = run.Row(10000, "merger", samples, paired=[0.3, 0.2, 0.5])
    report.rows.append(row)
    text = run.render(report, args)
    # the minimum of the paired CPU ratios is the verdict, their median beside it
    assert "| 10,000 | merger | 2.000 | 2.000 | 0.20x | 0.30x | 20 | 4.00x | 2.000 |" in text
    assert "CPU at 10k ≤ 0.25x kpt fn source (GOMAXPROCS=1): PASS (0.20x, median 0.30x)" in text
    assert "peak RSS ≤ 5x RL size at 10k: PASS (4.00x)" in text


def test_measure_counts_the_cpu_of_a_waited_for_child() -> None:
    # the whole-input check runs in a forked child the function waits for: its CPU counts
    script = (
        "import os\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    x = 0\n"
        "    for i in range(5_000_000): x += i\n"
        "    os._exit(0)\n"
        "os.waitpid(pid, 0)\n"
    )
    alone = run.measure([sys.executable, "-c", "pass"], timeout=60)
    sample = run.measure([sys.executable, "-c", script], timeout=60)
    assert sample.returncode == 0
    assert sample.cpu_seconds > alone.cpu_seconds + 0.05


def test_kpt_runs_on_one_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stub = tmp_path / "kpt"
    stub.write_text('#!/bin/sh\nexit "${GOMAXPROCS:-99}"\n')
    stub.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    assert run.measure(["kpt", "fn", "source", "."], timeout=60).returncode == 1
    assert run.measure([str(stub)], timeout=60).returncode == 99


def test_skip_predicted_too_slow() -> None:
    report = run.Report(sizes=[1000, 10000, 50000], reps=1)
    report.rows.append(run.Row(1000, "slow", [run.Sample(100.0, 1, 0)]))
    report.rows.append(run.Row(1000, "fast", [run.Sample(1.0, 1, 0)]))
    report.rows.append(run.Row(10000, "hung", [run.Sample(900.0, 1, -9, "timed out")]))
    assert "predicts 1000 s" in run.predicted_too_slow(report, 10000, "slow", 900)
    assert run.predicted_too_slow(report, 10000, "fast", 900) == ""
    assert run.predicted_too_slow(report, 50000, "hung", 900) == "skipped: timed out at 10,000"
    assert run.predicted_too_slow(report, 1000, "new", 900) == ""
    expected = "skipped: the function alone timed out"
    assert run.predicted_too_slow(report, 10000, "hung (kpt fn eval)", 900) == expected


def test_images_are_reported_against_their_target() -> None:
    args = run.parse_args(["--quick", "--output", "-"])
    report = run.Report(sizes=[10000], reps=1)
    report.rl_bytes = {10000: 5_000_000}
    report.images = {"merger": 49.3, "preparer": 81.0, "topology-to-pvs": None}
    text = run.render(report, args)
    assert "| merger | 49.3 | ≤ 80 | PASS |" in text
    assert "| preparer | 81.0 | ≤ 80 | FAIL |" in text
    assert "| topology-to-pvs | | ≤ 80 | not built (`make images`) |" in text


def test_rewriting_results_keeps_the_prepare_all_block(tmp_path: Path) -> None:
    block = (
        "<!-- prepare-all: begin (bench/prepare_all.py) -->\nfigures\n<!-- prepare-all: end -->\n"
    )
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + block)
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n\n" + block
    results.write_text("# no block\n")
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n"


def test_rewriting_results_keeps_the_instruction_counts_too(tmp_path: Path) -> None:
    counts = "<!-- instructions: begin (bench/instructions.py) -->\nG\n<!-- instructions: end -->\n"
    prepare = "<!-- prepare-all: begin (bench/prepare_all.py) -->\nN\n<!-- prepare-all: end -->\n"
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + prepare + "\n" + counts)
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n\n" + prepare + "\n" + counts  # their order


def test_rewriting_results_keeps_the_start_up_analysis(tmp_path: Path) -> None:
    startup = "<!-- startup: begin (issue 37) -->\nbefore/after\n<!-- startup: end -->\n"
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + startup)
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n\n" + startup


def test_start_up_only_functions_need_no_sizes() -> None:
    args = run.parse_args(["--sizes", "", "--functions", "merger,nfdeploy", "--output", "-"])
    assert args.sizes == [] and args.functions == ["merger", "nfdeploy"]
    with pytest.raises(SystemExit):
        run.parse_args(["--functions", "nfdeploy", "--output", "-"])


def test_rewriting_results_keeps_the_gate_row(tmp_path: Path) -> None:
    gate = "<!-- gate: begin (bench/GATE.md) -->\n| gate | +2.9% |\n<!-- gate: end -->\n"
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + gate)
    run.write_report(results, "# new report\n")
    assert results.read_text() == "# new report\n\n" + gate


def test_rewriting_results_keeps_the_figures_written_by_hand(tmp_path: Path) -> None:
    """Each round's and branch's figures (the ``rounds`` section) stay under the report's head,
    and a marked note of any name is kept: a bench run never drops figures (round five)."""
    rounds = "<!-- rounds: begin (by hand) -->\n## Round five\n0.24x\n<!-- rounds: end -->\n"
    note = "<!-- instruction-notes: begin -->\nwhy\n<!-- instruction-notes: end -->\n"
    results = tmp_path / "RESULTS.md"
    results.write_text("# old report\n\n" + rounds + "\n## Times\nold\n\n" + note)
    run.write_report(results, "# new report\n- machine\n\n## Times\nnew\n")
    assert results.read_text() == (
        "# new report\n- machine\n\n" + rounds + "\n## Times\nnew\n" + "\n" + note
    )
