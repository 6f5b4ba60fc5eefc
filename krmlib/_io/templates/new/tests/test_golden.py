"""One test per case folder under testdata/ (krmlib's pytest plugin): in-process, byte for byte
and idempotent, then through kpt when kpt is on PATH. `pytest --update-golden` rewrites the
expected files; review the diff."""

from krmlib.testing import golden_tests

from __MODULE__ import Config, process

test_golden = golden_tests("testdata", process, Config, script="__NAME__")
