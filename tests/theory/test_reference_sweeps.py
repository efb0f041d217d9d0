"""Reference sweeps: every theory function with ``dps=``, float64 against ``dps=30``.

In the manner of scipy.special's ``test_mpmath``: log-spaced grids of p (2 ... 1e12)
and of the rank ratio kappa (1e-6 ... 1), each float64 value compared with the
mpmath route of the same function at 30 digits, to the precision its docstring
states.  (The mpmath routes themselves are checked against closed forms and
higher precision in the module tests.)
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from lamcap.theory._capacity import capacity
from lamcap.theory._cost_models import statistical_dimension
from lamcap.theory._hebbian import hebbian_recall
from lamcap.theory._hinge_sums import hinge_sum_cdf, target_level_cdf
from lamcap.theory._rank import (
    rank_capacity,
    retained_energy,
    singular_value_threshold,
    threshold_angle,
)

P_GRID = [2, 3, 7, 30, 200, 2_000, 50_000, 10**6, 10**8, 10**10, 10**12]
KAPPA_GRID = np.geomspace(1e-6, 1.0, 25)


def _relative(values: object, references: object) -> np.ndarray:
    float_values = np.asarray(values, dtype=np.float64)
    exact = np.array([float(v) for v in np.ravel(np.asarray(references, dtype=object))])
    return np.abs(float_values.ravel() / exact - 1.0)


# ----------------------------------------------------------------------- kappa sweeps


@pytest.mark.parametrize(
    ("function", "tolerance"),
    [
        (rank_capacity, 5e-16),  # "relative error <~ 5e-16 on all of (0, 1]"
        (retained_energy, 5e-16),
        (threshold_angle, 1e-15),  # "a few ulp"
        (singular_value_threshold, 1e-15),
    ],
)
def test_rank_functions_over_kappa(function, tolerance: float) -> None:  # type: ignore[no-untyped-def]
    kappa = KAPPA_GRID
    if function in (threshold_angle, singular_value_threshold):
        kappa = kappa[kappa < 1.0]  # both are exactly 0 at kappa = 1
    errors = _relative(function(kappa), function(kappa, dps=30))
    assert float(np.max(errors)) < tolerance


@pytest.mark.slow
def test_finite_p_capacity_over_kappa() -> None:
    kappa = KAPPA_GRID[::4]
    errors = _relative(capacity(kappa, p=1000), capacity(kappa, p=1000, dps=30))
    assert float(np.max(errors)) < 1e-12


# ----------------------------------------------------------------------- p sweeps


@pytest.mark.slow
def test_statistical_dimension_over_p() -> None:
    # float64: tabulated values and their interpolant up to 1e18 (module docstring).
    p = np.array(P_GRID)
    errors = _relative(statistical_dimension(p), statistical_dimension(p, dps=30))
    assert float(np.max(errors)) < 1e-14


@pytest.mark.slow
@pytest.mark.parametrize("margin", [0.5, 2.0])
def test_statistical_dimension_with_margin_over_p(margin: float) -> None:
    # float64 quadrature: relative error below 1e-12 for 2 <= p <= 1e9.
    p = np.array([2, 10, 1_000, 10**6, 10**9])
    values = statistical_dimension(p, margin=margin)
    errors = _relative(values, statistical_dimension(p, margin=margin, dps=30))
    assert float(np.max(errors)) < 1e-12


@pytest.mark.slow
def test_capacity_over_p() -> None:
    p = np.array(P_GRID[1::2])
    errors = _relative(capacity(0.5, p=p), capacity(0.5, p=p, dps=30))
    assert float(np.max(errors)) < 1e-12


def _hinge_sum_tolerance(count: int) -> float:
    """Absolute float64 error stated by hinge_sum_cdf: 1e-15 up to 10 hinges, then
    5e-14, and 2e-13 at worst (count 1e8, lower tail)."""
    if count <= 10:
        return 1e-15
    return 5e-14 if count < 10**7 else 2e-13


@pytest.mark.slow
@pytest.mark.parametrize("count", [1, 10, 30, 2_000, 10**6, 10**8])
def test_hinge_sum_cdf_over_counts(count: int) -> None:
    x = np.linspace(-1.0, 6.0, 6) + np.sqrt(2 * np.log(count + 1))
    threshold = float(x[2])
    values = hinge_sum_cdf(x, threshold, count)
    for value, point in zip(values, x, strict=True):
        reference = hinge_sum_cdf(float(point), threshold, count, dps=30)
        assert abs(value - float(reference)) < _hinge_sum_tolerance(count)


@pytest.mark.slow
@pytest.mark.parametrize("p", [2, 11, 40, 10**4, 10**8])
def test_target_level_cdf_over_p(p: int) -> None:
    level = float(np.sqrt(2 * np.log(p)))
    for x in (level - 1.0, level, level + 0.5):
        reference = target_level_cdf(x, p, 0.3, dps=30)
        error = abs(target_level_cdf(x, p, 0.3) - float(reference))
        assert error < _hinge_sum_tolerance(p - 1)


@pytest.mark.slow
@pytest.mark.parametrize("load", [0.05, 0.125, 0.3])
@pytest.mark.parametrize("error", [False, True])
def test_hebbian_recall_over_p(load: float, error: bool) -> None:
    # "relative error below 1e-13 for both P_1 and 1 - P_1" (1 - P_1 reaches 1e-50)
    p = np.array(P_GRID)
    values = hebbian_recall(p, load, error=error)
    errors = _relative(values, hebbian_recall(p, load, error=error, dps=30))
    assert float(np.max(errors)) < 1e-13


def test_mpmath_values_are_mpf_at_30_digits() -> None:
    value = statistical_dimension(3, dps=30)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpf(5) / 6) < mpmath.mpf(10) ** -29
