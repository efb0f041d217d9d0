"""The precision wrapper of the mpmath routes (lamcap.theory._precision)."""

from __future__ import annotations

import mpmath
import numpy as np

from lamcap.theory._precision import GUARD_DIGITS, map_mp, working_dps
from lamcap.theory._rank import rank_capacity, singular_value_threshold, threshold_angle


def test_scalars_give_mpf_and_arrays_object_arrays() -> None:
    assert isinstance(map_mp(mpmath.sqrt, 2, 30), mpmath.mpf)
    assert isinstance(map_mp(mpmath.sqrt, np.float64(2.0), 30), mpmath.mpf)
    values = map_mp(mpmath.sqrt, [[1, 4], [9, 16]], 30)
    assert values.dtype == object
    assert values.shape == (2, 2)
    assert values[1, 1] == 4


def test_function_runs_with_guard_digits_and_result_is_rounded() -> None:
    seen = []
    value = map_mp(lambda x: seen.append(mpmath.mp.dps) or mpmath.mpf(x) / 3, 1, 25)
    assert seen == [working_dps(25)] == [25 + GUARD_DIGITS]
    with mpmath.workdps(60):
        assert abs(value * 3 - 1) < mpmath.mpf(10) ** -24
        assert value != mpmath.mpf(1) / 3  # rounded to 25 digits


def test_rank_routes_reach_the_requested_digits() -> None:
    # Residual of the defining equation kappa = 1 - (2 theta + sin 2 theta)/pi at 60
    # digits (threshold_angle(dps=30) used to divide by 2 at mpmath's default 15 digits).
    kappa = mpmath.mpf(0.3)
    theta = threshold_angle(0.3, dps=30)
    edge = singular_value_threshold(0.3, dps=30)
    alpha = rank_capacity(0.3, dps=30)
    tolerance = mpmath.mpf(10) ** -29
    with mpmath.workdps(60):
        assert abs(1 - (2 * theta + mpmath.sin(2 * theta)) / mpmath.pi - kappa) < tolerance
        assert abs(edge / (2 * mpmath.sin(theta)) - 1) < tolerance
        exact = mpmath.mpf(1) / 2 - theta / mpmath.pi + mpmath.sin(4 * theta) / (4 * mpmath.pi)
        assert abs(alpha / exact - 1) < tolerance
