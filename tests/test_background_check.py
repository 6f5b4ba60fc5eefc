"""The whole-input check run in a forked child (krmlib/_io/background.py) changes nothing but time.

A big input is checked in a child while the function works; the output waits for the verdict.
These tests run the console scripts with the child forced on (``KRMFN_BACKGROUND_CHECK=1``) and
off (``=0``) and require the same bytes on stdout and the same exit code: on every bad input of
the corpus, on a big valid package, and on a big package whose only broken item is one that no
function reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BAD = ROOT / "testdata" / "bad"
BIN = Path(sys.executable).parent
HEAD = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"


def _run(command: str, data: bytes, mode: str) -> tuple[bytes, int]:
    env = {**os.environ, "KRMFN_BACKGROUND_CHECK": mode}
    done = subprocess.run(
        [str(BIN / command)], input=data, capture_output=True, env=env, timeout=120, check=False
    )
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    return done.stdout, done.returncode


def _both(command: str, data: bytes) -> tuple[bytes, int]:
    checked_first = _run(command, data, "0")
    in_child = _run(command, data, "1")
    assert in_child == checked_first
    return in_child


def _bad_cases() -> list[str]:
    return sorted(str(k) for k in yaml.safe_load((BAD / "cases.yaml").read_text()))


@pytest.mark.parametrize("case", _bad_cases())
def test_every_bad_input_gives_the_same_output_with_the_check_in_a_child(case: str) -> None:
    out, code = _both("krmfn-topology-to-pvs", (BAD / case).read_bytes())
    assert code == 1 and b"severity: error" in out


def _big_package(items: int, broken: str = "") -> bytes:
    lines = [HEAD]
    for index in range(items):
        lines.append(
            f"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cm-{index}\n"
            f"    annotations:\n      config.kubernetes.io/index: '0'\n"
            f"      internal.config.kubernetes.io/path: 'cm-{index}.yaml'\n"
            f"  data:\n    key: value-{index}\n"
        )
    lines.append(broken)
    text = "".join(lines)
    assert len(text) > 256 * 1024  # above _background.MIN_SIZE: the child is used by default
    return text.encode()


BROKEN = {
    "duplicate-key": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n"
    "  data:\n    a: b\n    a: c\n",
    "python-tag": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n"
    "  data: !!python/object:os.system {}\n",
    "path-escape": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n"
    '    annotations:\n      internal.config.kubernetes.io/path: "\\x2e\\x2e/x.yaml"\n',
    "name-number": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: 5\n",
    "bad-indentation": "- apiVersion: v1\n  kind: Secret\n  metadata:\n    name: s\n"
    "  data:\n    a: b\n   c: d\n",
}


@pytest.mark.parametrize("command", ["krmfn-applyset-labeler", "krmfn-interface-expander"])
def test_a_big_valid_package_gives_the_same_output(command: str) -> None:
    out, code = _both(command, _big_package(2000))
    assert out.count(b"\n- apiVersion: v1\n") >= 1999 and code in (0, 1)


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_broken_item_no_function_reads_is_refused_with_the_checks_error(broken: str) -> None:
    out, code = _both("krmfn-merger", _big_package(2000, BROKEN[broken]))
    assert code == 1
    document = yaml.safe_load(out)
    assert document["items"] == [] and len(document["results"]) == 1
    message = document["results"][0]["message"]
    assert "items[2000]" in message or "!!python/" in message  # a tag is refused before reading


def _script(body: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(body)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "KRMFN_BACKGROUND_CHECK": "1"},
    )


def test_verify_raises_before_a_side_effect_when_the_check_fails() -> None:
    text = _big_package(2000, BROKEN["duplicate-key"]).decode()
    done = _script(
        """
        import sys
        from krmlib._io.resourcelist import CheckFailed, ResourceList
        rl = ResourceList.parse(sys.stdin.read(), background=True)
        assert rl._pending is not None, "no child"
        try:
            rl.verify()
        except CheckFailed as exc:
            print("refused:", exc.results[0].message)
        else:
            print("passed")
        """,
        text,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: items[2000] (Secret s): duplicate key 'a'")


def test_a_child_that_dies_is_an_internal_error_not_a_pass() -> None:
    done = _script(
        """
        import os, signal
        from krmlib._io import background as _background
        pending = _background.start(lambda: os.kill(os.getpid(), signal.SIGKILL))
        try:
            pending.result()
        except _background.ChildFailed as exc:
            print("failed:", exc)
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("failed: the input check stopped")


def test_no_child_in_a_threaded_process_or_when_turned_off() -> None:
    done = _script(
        """
        import os, threading, time
        from krmlib._io import background as _background
        print(_background.wanted(10**7))
        os.environ[_background.ENV] = "0"
        print(_background.wanted(10**7))
        os.environ[_background.ENV] = ""
        threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
        print(_background.wanted(10**7))
        """
    )
    assert done.stdout.split() == ["True", "False", "False"], done.stderr


def test_the_preparer_runs_no_plugin_on_input_the_check_refuses(tmp_path: Path) -> None:
    marker = tmp_path / "plugin-ran"
    config = textwrap.indent(
        textwrap.dedent(
            f"""\
            apiVersion: krmfn.dev/v1alpha1
            kind: Preparer
            metadata:
              name: preparer
            spec:
              plugins:
              - apiVersion: example.com/v1
                kind: Widget
                exec: sh -c "touch {marker}; cat"
            """
        ),
        "  ",
    )
    widget = "- apiVersion: example.com/v1\n  kind: Widget\n  metadata:\n    name: w\n"
    # A section no function reads: only the check sees its duplicate key.
    for broken in ("", "notes:\n  a: 1\n  a: 2\n"):
        data = _big_package(2000, widget) + b"functionConfig:\n" + config.encode() + broken.encode()
        out, code = _run("krmfn-preparer", data, "1")
        assert marker.exists() == (not broken), out[-400:]
        if broken:
            assert code == 1 and b"notes: duplicate key 'a'" in out
        marker.unlink(missing_ok=True)


def test_the_child_does_not_hold_the_functions_stdout(tmp_path: Path) -> None:
    marker = tmp_path / "child-done"
    body = f"""
        import time
        from pathlib import Path
        from krmlib._io import background as _background
        def work():
            time.sleep(5)
            Path({str(marker)!r}).touch()
        _background.start(work)
        print("parent done")
        """
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(body)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        out = proc.stdout.read()  # EOF when the parent exits, not when the child does
        assert out == "parent done\n" and not marker.exists()


def test_the_child_does_the_whole_input_check_alone_on_a_regular_package(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child's work (``_reader.check_apart``) is the pass and the outline's checks: no
    second split of the items (the parent splits them); the same verdict as a full read on every
    broken package, and on every bad input of the corpus."""
    from krmlib._io import reader as _reader
    from krmlib._yaml import engines as _yaml

    def forked(data: bytes) -> str | None:
        """The text a child is given (None: refused before any child, or not UTF-8)."""
        try:
            text = _reader.without_boms(data.decode("utf-8"))
            _yaml.check_bounds(text)  # in the parent, before the fork
        except Exception:
            return None
        return text

    valid = _big_package(2000).decode()
    cases = {name: forked(_big_package(2000, text)) for name, text in BROKEN.items()}
    cases.update({case: forked((BAD / case).read_bytes()) for case in _bad_cases()})
    texts = {name: text for name, text in cases.items() if text is not None}
    expected = {name: _reader.check_input(text) for name, text in texts.items()}
    assert len(texts) > 20

    def no_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("the child read the items again")

    monkeypatch.setattr(_reader, "_read", no_read)
    assert _reader.check_apart(valid) == []
    monkeypatch.undo()
    for name, text in texts.items():
        # [] from the child: the parent's own read fails and it reads again in full
        assert _reader.check_apart(text) in ([], expected[name]), name
    for name in ("duplicate-key", "path-escape", "name-number", "bad-indentation"):
        assert _reader.check_apart(texts[name]) == expected[name] != [], name


def test_no_child_by_default_with_the_c_check_a_child_with_the_python_one() -> None:
    """With the check on libyaml's C API the check runs in process (cheaper in CPU and in time
    than a child: krmlib/_io/background.py); with the Python check a big input's goes to a
    child, as before."""
    body = """
        from krmlib._io import background as _background
        from krmlib._yaml import syntax
        print(syntax.has_c_check(), _background.wanted(10**7), _background.wanted(10))
        """
    seen = []
    for python_check in ("", "1"):
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(body)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "KRMFN_BACKGROUND_CHECK": "", "KRMLIB_PYTHON_CHECK": python_check},
        )
        assert done.returncode == 0, done.stderr
        seen.append(done.stdout.split())
    assert seen[1] == ["False", "True", "False"]  # the Python check: a child for a big input
    if seen[0][0] == "True":  # the extension is built here
        assert seen[0] == ["True", "False", "False"]
    else:
        assert seen[0] == seen[1]
