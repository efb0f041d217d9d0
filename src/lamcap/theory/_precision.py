"""The one precision wrapper of the mpmath routes: guard digits and elementwise evaluation.

Every public theory function with ``dps=`` evaluates its mpmath route through
:func:`map_mp`: each element is computed at ``dps +`` :data:`GUARD_DIGITS` working
digits (:func:`guarded`) and the result is rounded to ``dps`` digits.  A scalar
argument gives an ``mpmath.mpf``, an array an object array of them.  Routes that
lose digits to a known cancellation add that loss on top of the guard (and say so).

Examples
--------
>>> import mpmath
>>> print(mpmath.nstr(map_mp(lambda x: mpmath.sqrt(x), 2, 20), 20))
1.4142135623730950488
>>> [mpmath.nstr(v, 8) for v in map_mp(lambda x: mpmath.mpf(x) / 3, [1, 2], 5)]
['0.33333349', '0.66666698']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import mpmath
import numpy as np

#: Decimal digits carried beyond the requested ``dps`` inside every mpmath route.
GUARD_DIGITS = 10


def working_dps(dps: int) -> int:
    """Working precision of a route asked for ``dps`` digits: ``dps +`` :data:`GUARD_DIGITS`."""
    return dps + GUARD_DIGITS


@contextmanager
def guarded(dps: int) -> Iterator[None]:
    """``mpmath.workdps(working_dps(dps))``."""
    with mpmath.workdps(working_dps(dps)):
        yield


#: Most secant steps a root polish may take (from a float64 root they need about 3-5).
SECANT_STEPS = 20


def secant_root(function: Callable[[Any], Any], first: Any, second: Any, dps: int) -> Any:
    """Root of ``function`` by mpmath's secant solver started at ``first`` and ``second``.

    Stops when a step is below :math:`10^{-\\mathrm{dps}}\\max(1, |x|)`; a run that has
    not converged after :data:`SECANT_STEPS` steps, or whose value at the root is not
    small, raises ``RuntimeError``.  Used to polish a float64 root to ``dps`` digits.

    Examples
    --------
    >>> with mpmath.workdps(30):
    ...     print(mpmath.nstr(secant_root(lambda x: x * x - 2, 1.4, 1.5, 30), 25))
    1.414213562373095048801689
    """
    try:
        return mpmath.findroot(
            function,
            (mpmath.mpf(first), mpmath.mpf(second)),
            solver="secant",
            tol=mpmath.mpf(10) ** -dps,
            maxsteps=SECANT_STEPS,
        )
    except (ValueError, ZeroDivisionError) as error:
        msg = f"the secant steps did not converge at dps={dps}: {error}"
        raise RuntimeError(msg) from error


def rounded(value: Any, dps: int) -> Any:
    """``value`` rounded to ``dps`` significant digits (an ``mpf``)."""
    with mpmath.workdps(dps):
        return +mpmath.mpmathify(value)


def precise(function: Callable[..., Any], *arguments: Any, dps: int) -> Any:
    """``function(*arguments)`` evaluated with guard digits and rounded to ``dps`` digits.

    The one place where a high-precision value is computed: :func:`map_mp` and
    :func:`lamcap.theory._arrays.elementwise` call it once per element.
    """
    with guarded(dps):
        exact = function(*arguments)
    return rounded(exact, dps)


def map_mp(function: Callable[[Any], Any], values: Any, dps: int) -> Any:
    """``function`` on every element of ``values`` with guard digits, rounded to ``dps``.

    Scalars (and strings, fractions, 0-d arrays) give one ``mpf``; arrays give an
    object array of the same shape.
    """
    if isinstance(values, np.ndarray) and values.ndim == 0:
        values = values[()]
    if isinstance(values, np.generic):
        values = values.item()
    if not isinstance(values, np.ndarray | list | tuple):
        return precise(function, values, dps=dps)
    array = np.asarray(values, dtype=object)
    result = np.empty(array.shape, dtype=object)
    for index, value in np.ndenumerate(array):
        result[index] = precise(function, value, dps=dps)
    return result
