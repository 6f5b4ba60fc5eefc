"""krmlib's pytest plugin (entry point ``pytest11``, loaded when krmlib is installed).

- ``pytest --update-golden`` rewrites the expected files of golden cases from the actual output
  (the same as ``KRMLIB_UPDATE_GOLDEN=1``); read ``git diff`` before committing them.
- A test made by :func:`krmlib.testing.golden_tests` becomes one test per case folder
  (``test_golden[<case>]``: in-process, byte for byte, and idempotent), plus
  ``test_golden[<case>:kpt]``, the real kpt round trip, skipped with its reason when kpt is not
  on PATH or the case says ``kpt: false``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pytest

UPDATE_OPTION = "--update-golden"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("krmlib").addoption(
        UPDATE_OPTION,
        action="store_true",
        default=False,
        help="krmlib golden cases: rewrite the expected files from the actual output",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption(UPDATE_OPTION):
        from . import testing

        os.environ[testing.UPDATE_ENV] = "1"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    spec = getattr(metafunc.function, "krmlib_golden", None)
    if spec is None:
        return
    from .testing import golden_params

    cases, ids = golden_params(spec)
    metafunc.parametrize("krmlib_golden_case", cases, ids=ids)
