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

from lamcap._sizes import format_integer


def _describe_range(minimum: float | None, maximum: float | None, *, closed: str) -> str:
    """Human description of an interval, e.g. ``in (0, 1]`` (empty without bounds)."""
    if minimum is None and maximum is None:
        return ""
    if maximum is None:
        return f">= {minimum}" if closed[0] == "[" else f"> {minimum}"
    if minimum is None:
        return f"<= {maximum}" if closed[1] == "]" else f"< {maximum}"
    return f"in {closed[0]}{minimum}, {maximum}{closed[1]}"


def _phrase(*words: str) -> str:
    """Words joined by single spaces, empty ones dropped."""
    return " ".join(word for word in words if word)


def plain(value: Any) -> str:
    """A value as a user reads it: ``1.5``, ``1e+300``, ``10``, not ``np.float64(1.5)``.

    Examples
    --------
    >>> plain(np.float64(1.5)), plain(np.int64(-3)), plain(np.array(2.0)), plain("a")
    ('1.5', '-3', '2.0', "'a'")
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=", ", threshold=8)
    return repr(value)


def _offending(array: NDArray[Any], bad: NDArray[np.bool_]) -> str:
    """``1.5`` for a 0-d array, ``1.5 (element 3)`` or ``1.5 (element (0, 2))`` otherwise."""
    position = np.argwhere(bad)[0]
    value = plain(array[tuple(position)])
    if array.ndim == 0:
        return value
    index = int(position[0]) if array.ndim == 1 else tuple(int(i) for i in position)
    return f"{value} (element {index})"


def check_integer(
    name: str, value: Any, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` as ``int`` if it is an integer in ``[minimum, maximum]``.

    Integral floats such as ``1e3`` are accepted (also beyond int64, e.g. ``1e300``);
    ``bool``, NaN, infinities, non-integral values and integers beyond the
    float64 range (:func:`check_float_range`) are rejected.
    """
    description = _phrase("an integer", _describe_range(minimum, maximum, closed="[]"))
    message = f"{name} must be {description}, got {plain(value)}"
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool | np.bool_):
        raise ValueError(message)
    integral = isinstance(value, numbers.Integral) or (
        isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer()
    )
    if not integral:
        raise ValueError(message)
    result = int(value)
    if (minimum is not None and result < minimum) or (maximum is not None and result > maximum):
        raise ValueError(message)
    check_float_range(
        name, np.array(result, dtype=object), "lamcap computes in float64", minimum=minimum
    )
    return result


_INT64_LIMIT = 2**63


def _integer_or_none(value: Any) -> int | None:
    """``int(value)`` if ``value`` is an integer or an integral finite real, else None."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real) and math.isfinite(value) and float(value).is_integer():
        return int(float(value))
    return None


def check_integer_array(
    name: str, value: ArrayLike, *, minimum: int | None = None, maximum: int | None = None
) -> NDArray[Any]:
    """Return ``value`` as an integer array after checking every entry like :func:`check_integer`.

    The result is int64 when every entry fits, otherwise an object array of
    Python ints (e.g. ``10**100`` or ``1e300``, which are integers too); beyond
    the float64 range (about ``1.8e308``, :func:`check_float_range`) entries
    are refused, since lamcap computes with sizes in float64.
    Messages name the first offending element.

    Examples
    --------
    >>> check_integer_array("p", [2, 1e3]).tolist()
    [2, 1000]
    >>> check_integer_array("p", [10**30]).dtype
    dtype('O')
    >>> check_integer_array("p", [3, 2.5], minimum=2)
    Traceback (most recent call last):
        ...
    ValueError: p must contain integers >= 2, got 2.5 (element 1)
    """
    array = np.asarray(value)
    noun = "be an integer" if array.ndim == 0 else "contain integers"
    description = _phrase(noun, _describe_range(minimum, maximum, closed="[]"))
    if array.dtype == np.bool_ or not (
        array.dtype == object
        or np.issubdtype(array.dtype, np.integer)
        or np.issubdtype(array.dtype, np.floating)
    ):
        msg = f"{name} must {description}, got {plain(array)}"
        raise ValueError(msg)
    if not np.issubdtype(array.dtype, np.signedinteger):  # floats, Python ints, unsigned
        entries = [_integer_or_none(v) for v in array.flat]
        bad = np.array([e is None for e in entries], dtype=bool).reshape(array.shape)
        if np.any(bad):
            msg = f"{name} must {description}, got {_offending(array, bad)}"
            raise ValueError(msg)
        integers = [e for e in entries if e is not None]
        fits = all(-_INT64_LIMIT <= e < _INT64_LIMIT for e in integers)
        result = np.array(integers, dtype=np.int64 if fits else object).reshape(array.shape)
    else:
        result = array.astype(np.int64)
    for limit, outside in ((minimum, np.less), (maximum, np.greater)):
        if limit is not None:
            bad = np.asarray(outside(result, limit), dtype=bool)
            if np.any(bad):
                msg = f"{name} must {description}, got {_offending(result, bad)}"
                raise ValueError(msg)
    check_float_range(name, result, "lamcap computes in float64", minimum=minimum)
    return result


_FLOAT_MAX = int(np.finfo(np.float64).max)


def check_float_range(
    name: str, value: NDArray[Any], reason: str, *, minimum: int | None = 2
) -> None:
    """Raise ``ValueError`` if an integer array from :func:`check_integer_array` exceeds float64.

    :func:`check_integer_array` calls it on every result holding integers
    beyond int64, so that those beyond the float64 range (about ``1.8e308``)
    are refused by name, ``reason`` saying why.

    Examples
    --------
    >>> check_float_range("p", np.array([10**300], dtype=object), "p is a float64")
    >>> check_float_range("p", np.array([3, 10**400], dtype=object), "p is a float64")
    Traceback (most recent call last):
        ...
    ValueError: p must contain integers in [2, 1.8e+308] (p is a float64), got 1e+400 (element 1)
    """
    if value.dtype != object:
        return
    bad = np.array([abs(v) > _FLOAT_MAX for v in value.flat], dtype=bool).reshape(value.shape)
    if np.any(bad):
        position = tuple(int(i) for i in np.argwhere(bad)[0])
        shown = format_integer(int(value[position]))
        where = (
            "" if value.ndim == 0 else f" (element {position[0] if value.ndim == 1 else position})"
        )
        noun = "be an integer" if value.ndim == 0 else "contain integers"
        interval = "<= 1.8e+308" if minimum is None else f"in [{minimum}, 1.8e+308]"
        msg = f"{name} must {noun} {interval} ({reason}), got {shown}{where}"
        raise ValueError(msg)


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
    except (TypeError, ValueError, OverflowError):
        msg = f"{name} must be {_phrase('a real number', description)}, got {plain(value)}"
        raise ValueError(msg) from None
    if not math.isfinite(result):
        msg = f"{name} must be {_phrase('a finite real number', description)}, got {plain(value)}"
        raise ValueError(msg)
    below = minimum is not None and (result < minimum or (closed[0] == "(" and result == minimum))
    above = maximum is not None and (result > maximum or (closed[1] == ")" and result == maximum))
    if below or above:
        msg = f"{name} must be {description}, got {plain(value)}"
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
    """Return ``value`` as a float64 array whose entries are finite and in range.

    Examples
    --------
    >>> check_finite_array("x", [0.5, np.inf])
    Traceback (most recent call last):
        ...
    ValueError: x must contain finite values, got inf (element 1)
    """
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        msg = f"{name} must be real numbers, got {plain(value)}"
        raise ValueError(msg) from None
    description = _describe_range(minimum, maximum, closed=closed)
    bad = ~np.isfinite(array)
    if minimum is not None:
        bad |= (array < minimum) if closed[0] == "[" else (array <= minimum)
    if maximum is not None:
        bad |= (array > maximum) if closed[1] == "]" else (array >= maximum)
    if np.any(bad):
        msg = (
            f"{name} must contain {_phrase('finite values', description)}, "
            f"got {_offending(array, bad)}"
        )
        raise ValueError(msg)
    return array


def check_kappa(kappa: ArrayLike) -> NDArray[np.float64]:
    """Check the rank ratio ``kappa = m / d`` lies in ``(0, 1]``."""
    return check_finite_array("kappa", kappa, minimum=0.0, maximum=1.0, closed="(]")


MAX_DPS = 1000
"""Largest mpmath working precision (decimal digits) lamcap accepts.

Work grows faster than the square of the digits (a quadrature at ``dps=100``
already takes minutes for some laws), so a larger value would not end in a
session; see docs/howto/precision.md.
"""


def check_dps(dps: Any) -> int | None:
    """Check an mpmath working precision (decimal digits): ``None`` or an integer in [1, 1000].

    Examples
    --------
    >>> check_dps(30)
    30
    >>> check_dps(10**6)
    Traceback (most recent call last):
        ...
    ValueError: dps must be an integer in [1, 1000], got 1000000
    """
    if dps is None:
        return None
    return check_integer("dps", dps, minimum=1, maximum=MAX_DPS)


def check_flag(name: str, value: Any) -> bool:
    """Return ``value`` as ``bool`` if it is ``True`` or ``False`` (Python or numpy).

    Examples
    --------
    >>> check_flag("error", np.True_)
    True
    >>> check_flag("error", [1])
    Traceback (most recent call last):
        ...
    ValueError: error must be True or False, got [1]
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    msg = f"{name} must be True or False, got {plain(value)}"
    raise ValueError(msg)


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of the strings ``choices``.

    Examples
    --------
    >>> check_choice("law", "optimum", ("optimum", "hebbian"))
    'optimum'
    >>> check_choice("law", ["optimum"], ("optimum", "hebbian"))
    Traceback (most recent call last):
        ...
    ValueError: law must be one of 'optimum', 'hebbian', got ['optimum']
    """
    if isinstance(value, str) and value in choices:
        return value
    accepted = ", ".join(repr(choice) for choice in choices)
    msg = f"{name} must be one of {accepted}, got {plain(value)}"
    raise ValueError(msg)


def check_seed(seed: Any, name: str = "seed") -> Any:
    """Check a seed for ``numpy.random.default_rng``: ``None``, an integer >= 0 or a Generator.

    Examples
    --------
    >>> check_seed(7)
    7
    >>> check_seed(-1)
    Traceback (most recent call last):
        ...
    ValueError: seed must be None, a numpy Generator or an integer >= 0, got -1
    """
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    value = _integer_or_none(seed)
    if value is None or value < 0 or isinstance(seed, float):
        msg = f"{name} must be None, a numpy Generator or an integer >= 0, got {plain(seed)}"
        raise ValueError(msg)
    return value


EMBEDDINGS = ("gaussian", "sphere")
"""Accepted ``embeddings=``: N(0, 1/d) entries, or uniform on the unit sphere.

Shared by :func:`lamcap.problems.make_instance` and the laws that describe its
instances (docs/theory/unit-norm.md).
"""


#: The range of a fraction of the associations: above 0, at most 1.
_FRACTION = "(]"


def check_fraction(name: str, value: ArrayLike) -> NDArray[np.float64]:
    """A fraction of the associations, e.g. the accuracy: float64 values in (0, 1].

    The one range of such a fraction (``accuracy`` of the theory; a scalar one, such as
    a trainer's ``stop_accuracy``, goes through :func:`check_fraction_scalar`), else
    ``ValueError`` naming ``name``, the value and the range.

    Examples
    --------
    >>> check_fraction("accuracy", [0.5, 1.0]).tolist()
    [0.5, 1.0]
    >>> check_fraction("accuracy", 0.0)
    Traceback (most recent call last):
        ...
    ValueError: accuracy must contain finite values in (0.0, 1.0], got 0.0
    """
    return check_finite_array(name, value, minimum=0.0, maximum=1.0, closed=_FRACTION)


def check_fraction_scalar(name: str, value: Any) -> float:
    """One fraction of the associations as a float in (0, 1] (:func:`check_fraction`'s range).

    Examples
    --------
    >>> check_fraction_scalar("stop_accuracy", 1)
    1.0
    """
    return check_real(name, value, minimum=0.0, maximum=1.0, closed=_FRACTION)


def check_accuracy(accuracy: ArrayLike) -> NDArray[np.float64]:
    """``accuracy`` (the fraction of associations recalled) by :func:`check_fraction`."""
    return check_fraction("accuracy", accuracy)


def check_embeddings(embeddings: Any, name: str = "embeddings") -> str:
    """Return ``embeddings`` if it is one of :data:`EMBEDDINGS`, else raise ``ValueError``.

    Examples
    --------
    >>> check_embeddings("sphere")
    'sphere'
    >>> check_embeddings("unit")
    Traceback (most recent call last):
        ...
    ValueError: embeddings must be one of 'gaussian', 'sphere', got 'unit'
    """
    return check_choice(name, embeddings, EMBEDDINGS)
