"""The array contract helpers of the theory layer (lamcap.theory._arrays)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from lamcap.theory._arrays import (
    broadcast,
    elementwise,
    float_result,
    grouped,
    is_scalar,
    mp_result,
)
from lamcap.theory._precision import GUARD_DIGITS


def test_float_result_gives_float64_scalars_for_0d_and_arrays_otherwise() -> None:
    for value in (0.5, 1, np.float32(0.5), np.array(0.5), np.int64(3)):
        result = float_result(value)
        assert type(result) is np.float64
    array = float_result([[1, 2]])
    assert isinstance(array, np.ndarray)
    assert array.dtype == np.float64
    assert array.shape == (1, 2)


def test_mp_result_unwraps_0d_object_arrays() -> None:
    holder = np.empty((), dtype=object)
    holder[()] = mpmath.mpf(2)
    assert isinstance(mp_result(holder), mpmath.mpf)
    assert mp_result(np.array([mpmath.mpf(1)], dtype=object)).shape == (1,)


def test_is_scalar() -> None:
    assert is_scalar(1, 2.5, np.float64(1.0), np.array(3.0), mpmath.mpf(1), 10**100)
    assert not is_scalar(1, [2])
    assert not is_scalar(np.zeros(1))


def test_broadcast_keeps_big_integers_and_names_shapes() -> None:
    p, kappa = broadcast([2, 10**30], 0.5, names=("p", "kappa"))
    assert p.dtype == object
    assert p[1] == 10**30
    assert kappa.shape == (2,)
    with pytest.raises(
        ValueError, match=r"^p \(shape \(2,\)\) and d \(shape \(3,\)\) must broadcast"
    ):
        broadcast([1, 2], [1, 2, 3], names=("p", "d"))
    three = r"^x \(shape \(2,\)\), y \(shape \(\)\) and z \(shape \(3,\)\) must"
    with pytest.raises(ValueError, match=three):
        broadcast([1, 2], 1, [1, 2, 3], names=("x", "y", "z"))
    with pytest.raises(ValueError, match="one name per value: 1 names, 2 values"):
        broadcast([1, 2], [1, 2], names=("p",))


def test_elementwise_equals_a_loop_of_scalar_calls() -> None:
    a = np.array([[1.0], [2.0]])
    b = [3, 4, 5]
    result = elementwise(math.hypot, a, b)
    assert result.shape == (2, 3)
    assert result.dtype == np.float64
    expected = [[math.hypot(x, y) for y in b] for x in a[:, 0]]
    assert result.tolist() == expected
    assert type(elementwise(math.hypot, 3, 4)) is np.float64
    assert elementwise(math.hypot, [], 1.0).shape == (0,)


def test_elementwise_passes_python_scalars() -> None:
    seen: list[type] = []
    elementwise(lambda p, x: seen.extend((type(p), type(x))) or 0.0, np.array([10**20]), 0.5)
    assert seen == [int, float]


def test_elementwise_with_dps_uses_guard_digits_and_rounds() -> None:
    seen: list[int] = []

    def third(x: int) -> mpmath.mpf:
        seen.append(mpmath.mp.dps)
        return mpmath.mpf(x) / 3

    value = elementwise(third, 1, dps=25)
    assert isinstance(value, mpmath.mpf)
    assert seen == [25 + GUARD_DIGITS]
    with mpmath.workdps(60):
        assert abs(value * 3 - 1) < mpmath.mpf(10) ** -24
        assert value != mpmath.mpf(1) / 3
    values = elementwise(third, [[1, 2]], dps=25)
    assert values.dtype == object
    assert values.shape == (1, 2)
    assert all(isinstance(v, mpmath.mpf) for v in values.flat)


def test_grouped_calls_once_per_key_combination_in_original_order() -> None:
    calls: list[tuple[int, list[float]]] = []

    def scaled(n: int, x: np.ndarray) -> np.ndarray:
        calls.append((n, x.tolist()))
        return n * x

    counts, x = broadcast([[1], [2]], [0.5, 1.5, 2.5], names=("count", "x"))
    result = grouped(scaled, [counts], x)
    assert result.tolist() == [[0.5, 1.5, 2.5], [1.0, 3.0, 5.0]]
    assert calls == [(1, [0.5, 1.5, 2.5]), (2, [0.5, 1.5, 2.5])]
    assert grouped(scaled, [np.array(3)], np.array(2.0)).shape == ()
