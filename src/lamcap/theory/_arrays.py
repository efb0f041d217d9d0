"""The array contract of the theory layer: broadcasting in, ``numpy.float64`` or arrays out.

Every public theory function follows one convention (stated for users in
docs/howto/precision.md, "The array contract"):

* all numeric arguments broadcast together under numpy's rules;
* float64 route: a ``numpy.float64`` when every numeric argument is a scalar
  (Python number, numpy scalar or 0-d array), otherwise a float64 ``ndarray`` of
  the broadcast shape (:func:`float_result`);
* ``dps=`` route: an ``mpmath.mpf`` for scalars, otherwise an object array of
  ``mpf`` of the broadcast shape, every element evaluated with the guard digits of
  :mod:`lamcap.theory._precision` (:func:`elementwise` with ``dps``).

:func:`elementwise` turns a function of scalars into one that follows the
contract; vectorised code only needs :func:`float_result` on its output.

Examples
--------
>>> float_result(np.array(0.5)), float_result([0.5])
(np.float64(0.5), array([0.5]))
>>> elementwise(lambda a, b: a * b, 2, [1.5, 2.5])
array([3., 5.])
>>> type(elementwise(lambda a, b: a * b, 2, 1.5)).__name__
'float64'
>>> import mpmath
>>> print(mpmath.nstr(elementwise(lambda a: mpmath.mpf(a) / 3, 1, dps=20), 20))
0.33333333333333333333
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap.theory._precision import precise

FloatArray = NDArray[np.float64]


def is_scalar(*values: Any) -> bool:
    """True if every value is a scalar: a Python or numpy number, an ``mpf`` or a 0-d array."""
    return all(np.ndim(value) == 0 for value in values)


def float_result(values: ArrayLike) -> Any:
    """``values`` as float64: a ``numpy.float64`` if 0-d, else a float64 ``ndarray``.

    The shape of ``values`` must already be the broadcast shape of the arguments.
    """
    array = np.asarray(values, dtype=np.float64)
    return array[()] if array.ndim == 0 else array


def mp_result(values: ArrayLike) -> Any:
    """An object array of ``mpf``: its element if 0-d, else the array itself."""
    array = np.asarray(values, dtype=object)
    return array[()] if array.ndim == 0 else array


def broadcast(*values: ArrayLike, names: Sequence[str]) -> tuple[NDArray[Any], ...]:
    """The arguments as arrays broadcast to one shape, each keeping its dtype.

    Python integers beyond int64 and ``mpf`` values stay exact (object arrays).
    ``names`` are the caller's argument names, one per value: when the shapes do not
    broadcast, the ``ValueError`` names every argument with its shape.

    >>> broadcast([1, 2, 3], [], names=("x", "threshold"))
    Traceback (most recent call last):
    ...
    ValueError: x (shape (3,)) and threshold (shape (0,)) must broadcast to one shape
    """
    if len(names) != len(values):
        msg = f"names must give one name per value: {len(names)} names, {len(values)} values"
        raise ValueError(msg)
    arrays = [_as_array(value) for value in values]
    try:
        return tuple(np.broadcast_arrays(*arrays))
    except ValueError:
        described = [
            f"{name} (shape {array.shape})" for name, array in zip(names, arrays, strict=True)
        ]
        listed = ", ".join(described[:-1]) + " and " + described[-1]
        msg = f"{listed} must broadcast to one shape"
        raise ValueError(msg) from None


def _as_array(value: ArrayLike) -> NDArray[Any]:
    """``np.asarray``, but an object array where a float64 or int64 one would lose digits."""
    try:
        array = np.asarray(value)
    except OverflowError:  # Python ints beyond int64
        return np.asarray(value, dtype=object)
    if array.dtype.kind in "biuf" or array.dtype == object:
        return array
    return np.asarray(value, dtype=object)


def elementwise(
    function: Callable[..., Any],
    *values: ArrayLike,
    dps: int | None = None,
    names: Sequence[str] | None = None,
) -> Any:
    """``function`` on every element of the broadcast ``values``, under the contract.

    ``function`` receives Python scalars (``int``, ``float``, or ``mpf`` and ``int``
    where the input held them).  Without ``dps`` its results are collected as
    float64 (:func:`float_result`); with ``dps`` every call runs with guard digits
    and is rounded to ``dps`` digits (:mod:`lamcap.theory._precision`), collected
    by :func:`mp_result`.  ``names`` (one per value) name the arguments in the
    refusal of shapes that do not broadcast (:func:`broadcast`); a caller whose
    values are already broadcast, or single, may leave them out.
    """
    labels = names if names is not None else [f"value {k + 1}" for k in range(len(values))]
    arrays = broadcast(*values, names=labels)
    shape = arrays[0].shape if arrays else ()
    flat = [array.ravel() for array in arrays]
    results: list[Any] = []
    for index in range(int(np.prod(shape, dtype=np.int64))):
        arguments = [_python_scalar(column[index]) for column in flat]
        if dps is None:
            results.append(float(function(*arguments)))
        else:
            results.append(precise(function, *arguments, dps=dps))
    if dps is None:
        return float_result(np.array(results, dtype=np.float64).reshape(shape))
    out = np.empty(len(results), dtype=object)
    out[:] = results
    return mp_result(out.reshape(shape))


def grouped(
    function: Callable[..., ArrayLike], keys: Sequence[NDArray[Any]], *values: NDArray[Any]
) -> FloatArray:
    """A vectorised ``function`` run once per distinct combination of scalar ``keys``.

    ``keys`` and ``values`` are broadcast arrays (:func:`broadcast`).  For every
    distinct tuple of key elements, ``function(*key_scalars, *value_vectors)``
    receives the 1-d vectors of the ``values`` at those positions (in their
    original order) and returns one float64 per position.  For code that is
    vectorised over some arguments but takes others (a count, a margin) as
    scalars; with scalar keys it is one call on the whole of each value.
    """
    shape = keys[0].shape if keys else values[0].shape
    result = np.empty(shape, dtype=np.float64)
    flat_result = result.reshape(-1)
    positions: dict[tuple[Any, ...], list[int]] = {}
    for index, key in enumerate(zip(*(k.ravel().tolist() for k in keys), strict=True)):
        positions.setdefault(key, []).append(index)
    if not keys:
        positions = {(): list(range(flat_result.size))}
    flat_values = [value.reshape(-1) for value in values]
    for key, where in positions.items():
        chosen = np.array(where, dtype=np.int64)
        flat_result[chosen] = function(*key, *(value[chosen] for value in flat_values))
    return result


def _python_scalar(value: Any) -> Any:
    """A numpy scalar as the Python scalar it holds; other values unchanged."""
    return value.item() if isinstance(value, np.generic) else value
