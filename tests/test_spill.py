"""New texts held out of memory until the gate passed (krmlib._base.spill; issue 37, peak RSS).

Holding is a speed trick of memory, so it is held to the output without it: every golden case
with every new text held gives the golden output; a console run that holds gives the bytes of
an in-process run that does not; a file that cannot be made or fills up (a real read-only or
full tmpfs) changes nothing but the memory. The unit tests read texts back in every order,
through the file, its read window and the unwritten tail.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from krmfn.registry import BY_NAME, FUNCTIONS
from krmlib import Condition, Conditions, KubeObject, ResourceList
from krmlib._base import spill
from krmlib._io.resourcelist import piece_text
from krmlib._io.runner import run_text
from krmlib._model import storage as _storage
from krmlib.testing import GoldenCase, check_golden, golden_cases

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"
CASES = [case for function in FUNCTIONS for case in golden_cases(TESTDATA, function.name)]
IN_PACKAGE_FOLDER = {"merger"}  # as tests/test_golden.py


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every new text held from the first (a fresh file, small writes and reads)."""
    monkeypatch.setattr(spill, "_SPILL", spill._Spill())
    monkeypatch.setattr(spill, "HOLD_FROM", 0)
    monkeypatch.setattr(spill, "BATCH", 1)  # each text held as soon as it is made
    monkeypatch.setattr(spill, "_FLUSH", 64)
    monkeypatch.setattr(spill, "_WINDOW", 128)
    spill.start()
    yield
    spill.stop()
    if spill._SPILL.fd >= 0:
        os.close(spill._SPILL.fd)


def _texts(rng: random.Random, count: int) -> list[str]:
    return [
        "".join(rng.choice("ab- :\n") for _ in range(rng.randrange(0, 300))) for _ in range(count)
    ]


@pytest.mark.usefixtures("held")
def test_held_texts_read_back_in_any_order() -> None:
    rng = random.Random(37)
    texts = _texts(rng, 400)
    places = [place for place in map(spill.hold, texts) if type(place) is int]
    assert len(places) == len(texts)  # every one held
    assert spill._SPILL.written > 0  # through the file, not only the tail
    order = list(range(len(texts)))
    for shuffle in (False, True):
        if shuffle:
            rng.shuffle(order)
        for index in order:
            assert spill.text_of(places[index]) == texts[index]
            assert spill.data_of(places[index]) == texts[index].encode("ascii")


@pytest.mark.usefixtures("held")
def test_only_text_the_gate_would_pass_at_a_glance_is_held() -> None:
    for text in ("caf\u00e9\n", "a\x00b\n", "bell\x07\n", 'x: "\\0"\n', "x: \x7f\n"):
        assert spill.hold(text) is text  # kept: the gate checks it as before
    assert type(spill.hold("plain: text\n")) is int


def test_off_outside_a_console_run() -> None:
    assert not spill._SPILL.on
    text = "a: b\n" * 100_000
    assert spill.hold(text) is text


@pytest.mark.usefixtures("held")
def test_a_file_that_fills_up_keeps_the_rest_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(random.Random(5), 50)
    first = [spill.hold(text) for text in texts[:25]]
    calls = {"n": 0}
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        calls["n"] += 1
        if calls["n"] == 1:  # part of it goes, then the disk is full
            return real_write(fd, bytes(data[:10]))
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    second = [spill.hold(text) for text in texts[25:]]
    assert not spill._SPILL.on
    assert any(type(place) is str for place in second)  # no longer held
    for place, text in zip(first + second, texts, strict=True):
        assert spill.text_of(place) == text


@pytest.mark.usefixtures("held")
def test_no_folder_takes_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refuse)
    assert spill.hold("a: b\n") == "a: b\n"
    assert not spill._SPILL.on


@pytest.mark.usefixtures("held")
def test_held_together_and_merged_where_they_follow_one_another() -> None:
    texts = ["a: 1\n", "b: 2\n", "c: 3\n"]
    places = spill.hold_all(texts)
    assert [spill.text_of(place) for place in places] == texts
    [one] = spill.merged(places)
    assert spill.text_of(one) == "".join(texts)
    split = spill.merged([places[0], "x\n", places[1], places[2]])
    assert [spill.text_of(piece) for piece in split] == ["a: 1\n", "x\n", "b: 2\nc: 3\n"]
    assert spill.merged([places[1], places[0]]) == [places[1], places[0]]  # not in file order
    mixed = spill.hold_all(["ok\n", "bad\x01\n", "fine\n"])  # doubted together: one by one
    assert [type(piece) for piece in mixed] == [int, str, int]
    assert spill.text_of(spill.hold_joined(texts)) == "".join(texts)


@pytest.mark.usefixtures("held")
def test_holders_wait_for_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    class Holder:
        def __init__(self, text: str) -> None:
            self.text: str | int = text

    monkeypatch.setattr(spill, "BATCH", 40)
    first, second = Holder("0123456789\n"), Holder("abcdefghij\n")
    spill.hold_soon(first)
    spill.hold_soon(second)
    assert first.text == "0123456789\n"  # 22 characters wait
    second.text = "changed meanwhile\n"
    entries: list[object] = ["k: v\n", {"not": "a text"}]
    spill.hold_soon(entries, 0)
    spill.hold_soon(entries, 0)  # the same place twice: held once
    spill.hold_soon(entries, 1)  # no longer a text by then: left as it is
    entries[1] = {"not": "a text"}
    assert [type(entry) for entry in entries] == [str, dict]  # 33 characters wait
    third = Holder("0123456789\n")
    spill.hold_soon(third)  # 44: the batch is held
    assert all(type(holder.text) is int for holder in (first, second, third))
    assert spill.text_of(second.text) == "changed meanwhile\n"
    assert type(entries[0]) is int and spill.text_of(entries[0]) == "k: v\n"
    assert entries[1] == {"not": "a text"}
    assert spill._SPILL.soon == []


@pytest.mark.usefixtures("held")
def test_a_forked_child_reads_but_holds_no_more() -> None:
    place = spill.hold("parent: text\n")
    assert type(place) is int
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns to pytest
        code = 1
        try:
            spill.start()  # a run in the child: its parent's file is not its to append to
            kept = spill.hold("child: text\n")
            ok = spill.text_of(place) == "parent: text\n" and kept == "child: text\n"
            code = 0 if ok else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    assert answer == bytes([0])
    assert type(spill.hold("parent: more\n")) is int  # the parent still holds


@pytest.mark.usefixtures("held")
def test_a_held_child_read_again_comes_back() -> None:
    obj = KubeObject.from_item("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n")
    store = _storage.of(obj)
    assert type(store.text) is int
    assert store.held_item() == store.text
    assert obj.name == "c" and obj.get("kind") == "ConfigMap"
    obj.set("data.k", "v")  # edited: written from the edit, no longer as held
    assert store.held_item() is None
    assert "k: v" in obj.to_item()


KPTFILE = (
    "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
    "- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n    name: p\n"
)
LISTS = {  # kpt's compact list (a splice of the text), an indented one (the round-trip tree)
    "compact": "  status:\n    conditions:\n    - type: old\n      status: 'True'\n",
    "indented": "  status:\n    conditions:\n      - type: old\n        status: 'True'\n",
}


@pytest.mark.usefixtures("held")
@pytest.mark.parametrize("layout", LISTS)
def test_held_conditions_read_set_again_and_written(layout: str) -> None:
    rl = ResourceList.parse(KPTFILE + LISTS[layout])
    kptfile = rl.items[0]
    conditions = Conditions(kptfile)
    for index in range(50):
        conditions.set(Condition(f"t{index}", "False", "Pending", f"message {index}"))
    conditions.set(Condition("t7", "True", "Ready", "done"))  # a held entry replaced
    assert conditions.get("t3") == Condition("t3", "False", "Pending", "message 3")
    conditions.flush()
    pieces = list(rl.pieces())
    assert any(type(piece) is int for piece in pieces) == (layout == "compact")
    read = Conditions(kptfile)
    assert read.types() == ["old", *(f"t{index}" for index in range(50))]
    assert read.get("t7") == Condition("t7", "True", "Ready", "done")
    spill.stop()
    assert "".join(map(piece_text, pieces)) == rl.to_yaml()


def test_a_refused_item_is_found_among_held_texts(held: None) -> None:
    """The gate's search for the item a refused character is in reads held pieces back."""
    from krmlib._io.gate import check_text

    rl = ResourceList.parse(KPTFILE + LISTS["compact"])
    conditions = Conditions(rl.items[0])
    for index in range(20):
        conditions.set(Condition(f"t{index}", "True", "Ready", "fine"))
    conditions.flush()
    rl.items.append(
        KubeObject.from_item("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n")
    )
    bad = "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: d\n  data:\n    k: a\x01b\n"
    rl.items.append(KubeObject.from_item(bad))
    pieces = list(rl.pieces())
    # the 20 conditions (one run in the file) and the good child; not the bad item's text
    assert sum(type(piece) is int for piece in pieces) == 2
    [result] = check_text(pieces, rl)
    assert "ConfigMap d" in result.message and "\\x01" in result.message


@pytest.mark.usefixtures("held")
@pytest.mark.parametrize("batch", [1, 300], ids=["each", "batches"])
@pytest.mark.parametrize("case", CASES, ids=str)
def test_golden_with_every_new_text_held(
    case: GoldenCase, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every new text held as it is made, or a few at a time (some wait, some are never held)."""
    monkeypatch.setattr(spill, "BATCH", batch)
    if case.function in IN_PACKAGE_FOLDER:
        monkeypatch.chdir(case.package)
    process, config = BY_NAME[case.function].load()
    check_golden(case, process, config)


# --- console runs: the real script, the real file ------------------------------------------


def _big_input(tmp_path: Path) -> Path:
    """interface-expander's bench shape at 1,000 resources (about 0.5 MB of new text)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench import generate

    generate.write_package(1000, tmp_path / "pkg")
    generate.write_resource_list(tmp_path / "pkg", tmp_path / "rl.yaml")
    return tmp_path / "rl.yaml"


def _script() -> str:
    found = shutil.which("krmfn-interface-expander", path=str(Path(sys.executable).parent))
    assert found is not None
    return found


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """The input, and the output of an in-process run (nothing held)."""
    rl = _big_input(tmp_path_factory.mktemp("spill"))
    process, config = BY_NAME["interface-expander"].load()
    output, code = run_text(process, config, rl.read_text())
    assert code == 0
    return rl, output.encode()


@pytest.mark.kpt
@pytest.mark.skipif(shutil.which("strace") is None, reason="strace: make strace")
def test_a_console_run_holds_and_writes_the_same_bytes(
    big: tuple[Path, bytes], tmp_path: Path
) -> None:
    rl, expected = big
    trace = tmp_path / "trace"
    with rl.open("rb") as stdin:
        done = subprocess.run(
            ["strace", "-f", "-o", str(trace), "-e", "trace=openat,pread64", _script()],
            stdin=stdin,
            capture_output=True,
            check=False,
        )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == expected
    calls = trace.read_text()
    assert "O_TMPFILE" in calls and "pread64(" in calls  # held in the file, read back


def _no_room(options: str, keep: Path) -> str:
    """Shell commands (in a mount namespace of their own) that make /tmp and /var/tmp a tmpfs
    mounted with ``options``; ``keep`` (the checkout: CI clones it under /tmp) is bound back
    where it was, through the old folders seen again under /mnt."""
    steps = ["mount -t tmpfs tmpfs /mnt"]
    for at, folder in enumerate(("/tmp", "/var/tmp")):
        real = Path(folder).resolve()
        steps += [f"mkdir /mnt/{at}", f"mount --bind {folder} /mnt/{at}"]
        steps.append(f"mount -t tmpfs -o size=16k tmpfs {folder}")
        if keep.resolve().is_relative_to(real):
            inner = keep.resolve().relative_to(real)
            steps += [
                f"mkdir -p {folder}/{inner}",
                f"mount --bind /mnt/{at}/{inner} {folder}/{inner}",
            ]
        if options == "ro":
            steps.append(f"mount -o remount,ro {folder}")
    return " && ".join(steps)


def _mounts_allowed() -> bool:
    """Whether this machine lets a process mount a tmpfs in a mount namespace of its own."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--mount", "sh", "-c", _no_room("ro", ROOT)]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


@pytest.mark.kpt
@pytest.mark.skipif(not _mounts_allowed(), reason="no tmpfs mount in a mount namespace here")
@pytest.mark.parametrize("mount", ["ro", "size=16k"], ids=["read-only", "full"])
def test_a_console_run_without_room_for_the_file(big: tuple[Path, bytes], mount: str) -> None:
    """TMPDIR, /tmp and /var/tmp a read-only tmpfs (no file can be made), or a 16 KiB one (the
    disk fills up mid-run): the same output, exit 0, nothing on stderr."""
    rl, expected = big
    with rl.open("rb") as stdin:
        done = subprocess.run(
            ["unshare", "--mount", "sh", "-c", _no_room(mount, ROOT) + ' && exec "$0"', _script()],
            stdin=stdin,
            capture_output=True,
            check=False,
            env={**os.environ, "TMPDIR": "/tmp"},
        )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    assert done.stdout == expected
