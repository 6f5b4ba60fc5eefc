"""Kubernetes quantities (``10G``, ``1000M``, ``512Mi``) as ``resource.Quantity`` prints them.

nfdeploy-fn copies the Capacity's throughputs into the NFDeployment through Go's
``resource.Quantity``: the value is written in its canonical form (k8s.io/apimachinery
``pkg/api/resource/quantity.go``, ``CanonicalizeBytes``): ``1000M`` is ``1G``, ``0`` is ``"0"``,
``1.5G`` is ``1500M``, ``2048Ki`` is ``2Mi``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: fractions pulls decimal, numbers (a Capacity only)
    from fractions import Fraction

_DECIMAL = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_BINARY_SUFFIX = {exponent: suffix for suffix, exponent in _BINARY.items()}
_QUANTITY = re.compile(
    r"^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?\Z"
)


class QuantityError(ValueError):
    """Not a quantity (Go's message: ``quantities must match the regular expression ...``)."""


def canonical(value: object) -> str:
    """The canonical text of a quantity given as text or a number; QuantityError otherwise."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise QuantityError(f"{value!r} is not a quantity")
    text = str(value).strip() if isinstance(value, str) else repr(value)
    match = _QUANTITY.match(text)
    if match is None:
        raise QuantityError(
            f"quantities must match the regular expression "
            f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {text!r}"
        )
    from fractions import Fraction

    number, suffix, exponent = match.groups()
    amount = Fraction(number)
    if suffix in _BINARY:
        amount *= 2 ** _BINARY[suffix]
        return _binary(amount) or _decimal(amount, "")
    if exponent is not None:
        return _decimal(amount * Fraction(10) ** int(exponent), "e")
    return _decimal(amount * Fraction(10) ** _DECIMAL[suffix or ""], "")


def _binary(amount: Fraction) -> str | None:
    """``<n><Ki|Mi|...>`` with the largest power of 1024 that divides it; None when the value
    is below 1024 or not a whole number (Go then writes it in decimal SI)."""
    if amount.denominator != 1 or -1024 < amount < 1024:
        return None
    whole = amount.numerator
    exponent = 0
    while exponent < 60 and whole % 1024 == 0:
        whole //= 1024
        exponent += 10
    return f"{whole}{_BINARY_SUFFIX.get(exponent, '')}"


def _decimal(amount: Fraction, style: str) -> str:
    """The largest exponent (a multiple of 3, from -9 to 18) that keeps the number whole;
    a value finer than nano is rounded up to it, as Go does."""
    if amount == 0:
        return "0"
    exponent = -9
    scaled = amount * 10**9
    if scaled.denominator != 1:
        from fractions import Fraction

        scaled = Fraction(-((-scaled.numerator) // scaled.denominator))  # ceiling
    whole = scaled.numerator
    while exponent < 18 and whole % 1000 == 0:
        whole //= 1000
        exponent += 3
    if style == "e":
        return f"{whole}e{exponent}" if exponent else str(whole)
    return f"{whole}{_DECIMAL_SUFFIX[exponent]}"
