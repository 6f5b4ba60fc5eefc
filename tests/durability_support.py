"""Shared by tests/test_durability*.py: trees, snapshots, the old-or-new check, strace."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from krmlib._io.atomic import PENDING_MARK, is_leftover

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "oran-cu"
BIN = Path(sys.executable).parent
STRACE = shutil.which("strace")
FULL = os.environ.get("KRMFN_FAULTS") == "full"
Snapshot = dict[str, bytes]


def env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def krmfn(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "krmfn"), *map(str, args)],
        capture_output=True,
        text=True,
        env=env(),
        timeout=timeout,
        check=False,
    )


def traced(
    inject: str, *args: str | Path, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``krmfn ARGS`` under ``strace -f -e inject=INJECT`` (strace's own output discarded)."""
    assert STRACE is not None
    command = [STRACE, "-f", "-qq", "-o", "/dev/null", "-e", f"inject={inject}"]
    return subprocess.run(
        [*command, str(BIN / "krmfn"), *map(str, args)],
        capture_output=True,
        text=True,
        env=env(),
        timeout=timeout,
        check=False,
    )


def count_calls(syscalls: str, *args: str | Path) -> int:
    """How many times a clean ``krmfn ARGS`` makes the syscalls (all processes), and the tree
    it leaves is the caller's to throw away."""
    assert STRACE is not None
    done = subprocess.run(
        [
            STRACE,
            "-f",
            "-qq",
            "-e",
            f"trace={syscalls}",
            "-o",
            "/dev/stdout",
            "-e",
            "signal=none",
            str(BIN / "krmfn"),
            *map(str, args),
        ],
        capture_output=True,
        text=True,
        env=env(),
        timeout=300,
        check=False,
    )
    return sum(1 for line in done.stdout.splitlines() if "(" in line and "resumed" not in line)


def copy_tree(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, symlinks=True)
    return target


def snapshot(root: Path) -> Snapshot:
    """Every regular file under ``root`` by relative path (leftovers included)."""
    out: Snapshot = {}
    for current, _dirs, files in os.walk(root):
        for name in files:
            path = Path(current, name)
            out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def is_temporary(rel: str) -> bool:
    """A crash leftover of the writer (never read by kpt): temp file, holder, pending file."""
    parts = rel.split("/")
    return any(is_leftover(p) for p in parts) or parts[-1].endswith(PENDING_MARK)


def old_or_new(after: Snapshot, old: Snapshot, new: Snapshot) -> list[str]:
    """The files of ``after`` that are neither their old nor their new content (absent counts
    as a content), leftovers of the writer aside. A file the run creates may also hold what an
    earlier pass of the run wrote (a child package as created, before it is prepared in the
    next pass): then it must be whole, every document a KRM object."""
    bad = []
    for rel in sorted(set(after) | set(old) | set(new)):
        if is_temporary(rel):
            continue
        now = after.get(rel)
        if now in (old.get(rel), new.get(rel)):
            continue
        if rel not in old and now is not None and _whole(rel, now):
            continue
        state = "absent" if now is None else f"{len(now)} bytes"
        bad.append(f"{rel} ({state})")
    return bad


def _whole(rel: str, data: bytes) -> bool:
    from krmlib import KrmError
    from krmlib.packages import read_documents

    if not (rel.endswith((".yaml", ".yml")) or rel.endswith("Kptfile")):
        return False
    try:
        return bool(read_documents(data.decode("utf-8"), rel))
    except (KrmError, UnicodeDecodeError):
        return False


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "<KubeObject" not in text, text


def sample(total: int, count: int) -> list[int]:
    """``count`` kill points spread over 1..total (every one when ``count`` >= total)."""
    if total <= count:
        return list(range(1, total + 1))
    return sorted({1 + round(i * (total - 1) / (count - 1)) for i in range(count)})


def differences(a: Mapping[str, bytes], b: Mapping[str, bytes]) -> Sequence[str]:
    return sorted(rel for rel in set(a) | set(b) if a.get(rel) != b.get(rel))
