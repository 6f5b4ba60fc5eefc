"""Work done in a forked child while the function goes on: the whole-input check of a big input.

The check reads every byte of the input (``_syntax``) and costs as much as a function's own work
on a big package. It has no effect on the output unless it fails, so the runner runs it in a
forked copy of the process while the function processes the items, and waits for its verdict
before anything is written: the output is the same as with the check first, only sooner on a
machine with a second core.

A child is used only when it is safe and worth it: ``os.fork`` exists, the process has one thread
(forking a threaded process can deadlock the child), the input is big (:data:`MIN_SIZE`), and
the check is the Python one. With the check on libyaml's C API (``krmlib._yaml.ccheck``) the
check in process costs less than the child does, in CPU and in time alike: the pass is cheap
(0.08 s for 6.1 MB) and its outline spares the read a split of its own (0.04 s instead of
0.14 s), while with a child the function splits the text itself and pays the fork's copied pages
(interface-expander at 10k: 0.74 s of CPU in process, 0.86 s with the child).
``KRMFN_BACKGROUND_CHECK=0`` turns the child off, ``=1`` uses it for any size and either check.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

MIN_SIZE = 256 * 1024  # below this the check takes a few milliseconds: not worth a fork
ENV = "KRMFN_BACKGROUND_CHECK"


def fork_safe() -> bool:
    """A child can be forked here: POSIX ``fork`` exists and this process runs one thread (a
    fork copies only the calling thread; a lock another thread held would stay locked). Threads
    are counted as the kernel counts them (``/proc/self/stat``, as Python 3.12's fork warning
    does): a thread started outside ``threading`` (pytest-xdist's, a C library's) counts too."""
    if not hasattr(os, "fork"):
        return False
    try:
        with open("/proc/self/stat", "rb") as handle:
            return handle.read().rpartition(b")")[2].split()[17] == b"1"
    except (OSError, IndexError):
        pass
    threading = sys.modules.get("threading")  # not imported: no thread was started with it
    return threading is None or threading.active_count() == 1


def wanted(size: int) -> bool:
    """Whether work on an input of ``size`` characters should go to a child."""
    setting = os.environ.get(ENV, "")
    if setting == "0" or not fork_safe():
        return False
    return setting == "1" or (size >= MIN_SIZE and not c_check())


def c_check() -> bool:
    """Whether the whole-input check runs on libyaml's C API (then it runs in process: see the
    module's documentation)."""
    from krmlib._yaml import syntax as _syntax

    return _syntax.has_c_check()


class Pending:
    """The verdict of work running in a child process."""

    def __init__(self, pid: int, fd: int) -> None:
        self._pid = pid
        self._fd = fd
        self._value: Any = None
        self._done = False

    def result(self) -> Any:
        """Wait for the child and return what its work returned (once read, kept)."""
        if not self._done:
            chunks = []
            while chunk := os.read(self._fd, 1 << 16):
                chunks.append(chunk)
            os.close(self._fd)
            _, status = os.waitpid(self._pid, 0)
            self._done = True
            data = b"".join(chunks)
            if os.waitstatus_to_exitcode(status) != 0 or not data:
                raise ChildFailed(f"the input check stopped (status {status})")
            import pickle  # imported by start() already

            self._value = pickle.loads(data)
        return self._value


class ChildFailed(RuntimeError):
    """The child ended without a verdict (killed, out of memory)."""


def start(work: Callable[[], Any]) -> Pending:
    """Run ``work()`` in a forked child; its (picklable) return value comes back via a pipe."""
    import pickle  # only for a big input: not a start-up cost

    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: do the work, send the answer, leave without cleanup
        code = 0
        try:
            os.close(read_fd)
            # Not the function's stdin/stdout: whoever reads the output (kpt) waits for the
            # function alone, whatever becomes of the child.
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 1)
            data = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_fd, view) :]
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    return Pending(pid, read_fd)
