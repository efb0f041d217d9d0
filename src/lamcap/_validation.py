"""Argument checks shared by every layer of lamcap.

Each check raises :class:`ValueError` whose message names the argument, the
offending value and the accepted range, so that a user never receives a silent
NaN.  Checks return the validated value converted to the type the caller
computes with (``int``, ``float`` or a float64 array).

Examples
--------
>>> check_integer("p", 10, minimum=2)
10
>>> check_integer("p", 1, minimum=2)
Traceback (most recent call last):
    ...
ValueError: p must be an integer >= 2, got 1
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "check_dps",
    "check_finite_array",
    "check_integer",
    "check_integer_array",
    "check_kappa",
    "check_real",
]


def _describe_range(minimum: float | None, maximum: float | None, *, closed: str) -> str:
    """Human description of an interval, e.g. ``in (0, 1]``."""
    if minimum is None and maximum is None:
        return "finite"
    if maximum is None:
        return f">= {minimum}" if closed[0] == "[" else f"> {minimum}"
    if minimum is None:
        return f"<= {maximum}" if closed[1] == "]" else f"< {maximum}"
    return f"in {closed[0]}{minimum}, {maximum}{closed[1]}"


def check_integer(
    name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as ``int`` if it is an integer in ``[minimum, maximum]``.

    Integral floats such as ``1e3`` are accepted; ``bool``, NaN, infinities and
    non-integral values are rejected.
    """
    description = f"an integer {_describe_range(minimum, maximum, closed='[]')}"
    if minimum is None and maximum is None:
        description = "an integer"
    if isinstance(value, bool | np.bool_):
        msg = f"{name} must be {description}, got {value!r}"
        raise ValueError(msg)
    integral = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    )
    if not integral:
        msg = f"{name} must be {description}, got {value!r}"
        raise ValueError(msg)
    result = int(float(value)) if not isinstance(value, numbers.Integral) else int(value)
    if (minimum is not None and result < minimum) or (maximum is not None and result > maximum):
        msg = f"{name} must be {description}, got {value!r}"
        raise ValueError(msg)
    return result


def check_integer_array(
    name: str, value: ArrayLike, *, minimum: int | None = None, maximum: int | None = None
) -> NDArray[np.int64]:
    """Return ``value`` as an int64 array after checking every entry like :func:`check_integer`."""
    array = np.asarray(value)
    description = f"integers {_describe_range(minimum, maximum, closed='[]')}"
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        msg = f"{name} must contain {description}, got {value!r}"
        raise ValueError(msg)
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array) | (array != np.round(array))
        if np.any(bad):
            msg = f"{name} must contain {description}, got {array[bad].flat[0].item()!r}"
            raise ValueError(msg)
    result = array.astype(np.int64)
    if minimum is not None and np.any(result < minimum):
        msg = f"{name} must contain {description}, got {result[result < minimum].flat[0].item()!r}"
        raise ValueError(msg)
    if maximum is not None and np.any(result > maximum):
        msg = f"{name} must contain {description}, got {result[result > maximum].flat[0].item()!r}"
        raise ValueError(msg)
    return result


def check_real(
    name: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    closed: str = "[]",
) -> float:
    """Return ``value`` as a finite ``float`` in the interval given by ``closed``.

    ``closed`` is two characters, each ``[`` / ``]`` (bound included) or
    ``(`` / ``)`` (bound excluded), e.g. ``"(]"`` for ``(0, 1]``.
    """
    description = _describe_range(minimum, maximum, closed=closed)
    try:
        result = float(value)
    except (TypeError, ValueError):
        msg = f"{name} must be a real number {description}, got {value!r}"
        raise ValueError(msg) from None
    if not math.isfinite(result):
        msg = f"{name} must be a finite real number {description}, got {value!r}"
        raise ValueError(msg)
    below = minimum is not None and (result < minimum or (closed[0] == "(" and result == minimum))
    above = maximum is not None and (result > maximum or (closed[1] == ")" and result == maximum))
    if below or above:
        msg = f"{name} must be {description}, got {value!r}"
        raise ValueError(msg)
    return result


def check_finite_array(
    name: str,
    value: ArrayLike,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    closed: str = "[]",
) -> NDArray[np.float64]:
    """Return ``value`` as a float64 array whose entries are finite and in range."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        msg = f"{name} must be real numbers, got {value!r}"
        raise ValueError(msg) from None
    description = _describe_range(minimum, maximum, closed=closed)
    bad = ~np.isfinite(array)
    if minimum is not None:
        bad |= (array < minimum) if closed[0] == "[" else (array <= minimum)
    if maximum is not None:
        bad |= (array > maximum) if closed[1] == "]" else (array >= maximum)
    if np.any(bad):
        wanted = "finite values" if description == "finite" else f"finite values {description}"
        msg = f"{name} must contain {wanted}, got {array[bad].flat[0].item()!r}"
        raise ValueError(msg)
    return array


def check_kappa(kappa: ArrayLike) -> NDArray[np.float64]:
    """Check the rank ratio ``kappa = m / d`` lies in ``(0, 1]``."""
    return check_finite_array("kappa", kappa, minimum=0.0, maximum=1.0, closed="(]")


def check_dps(dps: Any) -> int | None:
    """Check an mpmath working precision (decimal digits): ``None`` or an integer >= 1."""
    if dps is None:
        return None
    return check_integer("dps", dps, minimum=1)
