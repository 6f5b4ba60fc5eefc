# The C extension built from sdk/src/_ccheck.c (see krmlib/_yaml/syntax.py, fast_outline).
from typing import Any

def outline(
    text: str,
    path_keys: tuple[str, ...],
    max_digits: int,
    max_depth: int,
    max_key: int,
    strings: dict[str, str],
) -> tuple[Any, ...] | None: ...
