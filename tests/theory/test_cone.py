"""Tests for lamcap.theory._cone, each against an independent route."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest

from lamcap import project_onto_cone
from lamcap.theory import _cone as cone
from lamcap.theory._cone import MonteCarloEstimate, active_set_law
from lamcap.theory._cost_models import statistical_dimension


def test_p2_is_one_half() -> None:
    assert statistical_dimension(2) == 0.5
    assert statistical_dimension(2, dps=40) == mpmath.mpf(1) / 2


def test_p3_closed_form() -> None:
    # Intrinsic volumes of K° at p = 3: P0 = 1/3, P0 - P1 + P2 = 0, sum = 1 => mean 5/6.
    assert statistical_dimension(3) == pytest.approx(5 / 6, rel=1e-14)


def test_vectorised_over_p() -> None:
    values = statistical_dimension([2, 3, 10])
    assert values.shape == (3,)
    assert values[2] == statistical_dimension(10)


def _dimension_table_script():  # derivations/dimension_table.py, which wrote the table
    path = Path(__file__).resolve().parents[2] / "derivations" / "dimension_table.py"
    spec = importlib.util.spec_from_file_location("dimension_table", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tabulated_nodes_are_the_documented_design() -> None:
    script = _dimension_table_script()
    nodes = script.chebyshev_integers(script.FIRST_NODE, script.LAST_NODE, script.NODE_COUNT)
    assert cone._table_nodes().tolist() == nodes
    assert len(cone._table()[0]) == script.FIRST_NODE - 2  # p = 2 .. 15


def test_tabulated_small_p_against_the_quadrature() -> None:
    # dps=24 values rounded to float64 vs the independent float64 quadrature.
    for p, value in enumerate(cone._table()[0], start=2):
        assert value == pytest.approx(cone._exact_float(p, 0.0), rel=2e-15, abs=2e-15)


def test_interpolated_values_against_the_quadrature() -> None:
    # Integers between the nodes, log-uniform in [16, 1e12] plus both ends of the
    # first and last gaps: the barycentric interpolant vs the float64 quadrature.
    rng = np.random.default_rng(11)
    nodes = cone._table_nodes()
    p = np.unique(
        np.concatenate(
            [
                np.rint(np.exp(rng.uniform(math.log(16), math.log(1e12), 14))),
                [17, nodes[1] + 1, 10**12 + 1],
            ]
        ).astype(np.int64)
    )
    values = statistical_dimension(p)
    for q, value in zip(p, values, strict=True):
        assert value == pytest.approx(cone._exact_float(int(q), 0.0), rel=1e-12)


def test_array_and_scalar_calls_agree_and_nodes_are_exact() -> None:
    nodes = cone._table_nodes()
    p = np.array([2, 15, 16, int(nodes[5]), int(nodes[5]) + 1, 10**17, 10**18 + 7])
    values = statistical_dimension(p)
    assert values.tolist() == [statistical_dimension(int(q)) for q in p]
    assert values[3] == cone._table()[2][5]  # a node returns its tabulated value
    assert statistical_dimension(p.reshape(7, 1)).shape == (7, 1)


def test_beyond_int64_and_integral_floats() -> None:
    # p = 1e100 (a Python int) and 1e30 (a float) take the quadrature; against the
    # large-p series, whose truncation error is below the size of its last term.
    from lamcap.theory._asymptotics import statistical_dimension_series

    for p in (10**100, 10**30):
        value = statistical_dimension(p)
        series = [float(statistical_dimension_series(p, order=k)) for k in (3, 4)]
        assert abs(value - series[1]) < abs(series[1] - series[0])
    assert statistical_dimension(1e30) == statistical_dimension(10**30)
    assert statistical_dimension(1e3) == statistical_dimension(1000)
    mixed = statistical_dimension([1000, 10**100])
    assert mixed.dtype == np.float64
    assert mixed[1] == statistical_dimension(10**100)


@pytest.mark.slow  # 30 s of CPU (53 s at dps=30, which these checks do not need)
def test_mpmath_route_beyond_int64() -> None:
    # statistical_dimension(10**100, dps=20) = 443.38240635834064475...: against the
    # large-p series (error below its last term, ~1e-5 here) and the float64
    # quadrature (3e-12 relative at this p; dps=40 agrees with dps=30 to 30 digits).
    from lamcap.theory._asymptotics import statistical_dimension_series

    value = statistical_dimension(10**100, dps=20)
    assert isinstance(value, mpmath.mpf)
    series = [float(statistical_dimension_series(10**100, order=k)) for k in (3, 4)]
    assert abs(float(value) - series[1]) < abs(series[1] - series[0])
    assert float(value) == pytest.approx(statistical_dimension(10**100), rel=5e-12)


@pytest.mark.parametrize("p", [10, 1000, 10**6, 10**9])
def test_mean_of_law_equals_statistical_dimension(p: int) -> None:
    # Order-statistic route (conditional excesses) vs exchangeability route (hinges).
    law = active_set_law(p)
    mean = float(np.sum(np.arange(law.size) * law))
    assert mean == pytest.approx(statistical_dimension(p), rel=1e-12)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law[0] == pytest.approx(1.0 / p, abs=1e-14)
    assert float(np.sum(law * (-1.0) ** np.arange(law.size))) == pytest.approx(0.0, abs=1e-12)


def _simplex_angle_law(p: int, k: int) -> mpmath.mpf:
    """docs/theory/cone.md, fact 4: C(p-1, k) beta_k gamma_k, by mpmath quadrature."""
    root = mpmath.sqrt(k + 1)

    def phi_imag(x: mpmath.mpf) -> mpmath.mpc:  # Phi(i x)
        return mpmath.mpf(1) / 2 + 1j * mpmath.erfi(x / mpmath.sqrt(2)) / 2

    beta = (
        mpmath.quad(
            lambda u: mpmath.npdf(u) * mpmath.re(phi_imag(u / root) ** k),
            [-mpmath.inf, 0, mpmath.inf],
        )
        if k > 0
        else mpmath.mpf(1)
    )
    gamma = mpmath.quad(
        lambda w: mpmath.npdf(w) * mpmath.ncdf(w / root) ** (p - 1 - k),
        [-mpmath.inf, 0, mpmath.inf],
    )
    return mpmath.binomial(p - 1, k) * beta * gamma


@pytest.mark.parametrize("p", [4, 7])
def test_law_against_simplex_angles(p: int) -> None:
    mpmath.mp.dps = 25
    law = active_set_law(p)
    for k in range(p):
        assert law[k] == pytest.approx(float(_simplex_angle_law(p, k)), abs=1e-13)


def test_simplex_angles_small_cases() -> None:
    mpmath.mp.dps = 25
    # beta_1 = 1/2, beta_2 = 1/6 (orthant probabilities), via p = k + 1 where gamma_k = 1.
    assert abs(_simplex_angle_law(2, 1) - mpmath.mpf(1) / 2) < 1e-20
    assert abs(_simplex_angle_law(3, 2) - mpmath.mpf(1) / 6) < 1e-20


def test_law_against_projection_sampling() -> None:
    rng = np.random.default_rng(5)
    samples, p = 200_000, 12
    _, sizes = project_onto_cone(rng.standard_normal((samples, p)))
    law = active_set_law(p)
    for k in range(6):
        empirical = np.mean(sizes == k)
        sigma = math.sqrt(law[k] * (1 - law[k]) / samples)
        assert abs(empirical - law[k]) < 5 * sigma


def test_kmax_truncates() -> None:
    full = active_set_law(50)
    short = active_set_law(50, kmax=3)
    np.testing.assert_allclose(short, full[:4], atol=1e-15)


def test_kmax_beyond_support_pads_zeros() -> None:
    full = active_set_law(1000)
    long = active_set_law(1000, kmax=999)
    assert long.size == 1000
    np.testing.assert_allclose(long[: full.size], full, atol=1e-16)
    assert np.all(long[full.size :] <= 1e-16)


def test_law_blocks_of_k_grow_until_the_support_is_covered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A first block far too short (1 + 10 values of k) must be extended by doubling.
    full = active_set_law(10**4)
    monkeypatch.setattr(cone, "_LAW_BLOCK_PER_LOG_P", 0.1)
    extended = active_set_law(10**4)
    assert extended.size == full.size
    np.testing.assert_allclose(extended, full, atol=1e-15)


@pytest.mark.parametrize("p", [2, 10, 1000, 10**6])
def test_exact_against_top_order_statistics(p: int) -> None:
    estimate = statistical_dimension(p, method="monte_carlo", samples=20_000, seed=p)
    assert isinstance(estimate, MonteCarloEstimate)
    assert abs(estimate.mean - statistical_dimension(p)) < 5 * estimate.standard_error


@pytest.mark.parametrize("p", [5, 40])
def test_exact_against_brute_force_projection(p: int) -> None:
    rng = np.random.default_rng(p)
    samples = 100_000
    scores = rng.standard_normal((samples, p))
    projected, sizes = project_onto_cone(scores)
    distances = np.sum((scores - projected) ** 2, axis=1)
    exact = statistical_dimension(p)
    for draws in (sizes.astype(float), distances):
        assert abs(draws.mean() - exact) < 5 * draws.std() / math.sqrt(samples)


@pytest.mark.parametrize("margin", [0.3, 1.0, 2.5])
def test_margin_p2_is_gardner(margin: float) -> None:
    mpmath.mp.dps = 30
    stability = mpmath.mpf(margin) / mpmath.sqrt(2)
    gardner = mpmath.quad(lambda z: mpmath.npdf(z) * (z + stability) ** 2, [-stability, mpmath.inf])
    assert statistical_dimension(2, margin=margin) == pytest.approx(float(gardner), rel=1e-13)


@pytest.mark.parametrize(("p", "margin"), [(10, 0.5), (100, 1.0)])
def test_margin_against_projection(p: int, margin: float) -> None:
    rng = np.random.default_rng(17)
    samples = 100_000
    scores = rng.standard_normal((samples, p))
    projected, _ = project_onto_cone(scores, margin=margin)
    distances = np.sum((scores - projected) ** 2, axis=1)
    exact = statistical_dimension(p, margin=margin)
    assert abs(distances.mean() - exact) < 5 * distances.std() / math.sqrt(samples)


def test_margin_against_top_order_statistics_with_extension() -> None:
    # A large margin activates many more competitors than first sampled.
    estimate = statistical_dimension(
        10**4, margin=2.0, method="monte_carlo", samples=10_000, seed=3
    )
    exact = statistical_dimension(10**4, margin=2.0)
    assert abs(estimate.mean - exact) < 5 * estimate.standard_error


def test_monotone_in_p_and_margin() -> None:
    values = statistical_dimension([2, 5, 50, 500, 5000])
    assert np.all(np.diff(values) > 0)
    assert statistical_dimension(50, margin=0.1) > statistical_dimension(50)


@pytest.mark.slow
def test_mpmath_route_closed_forms_to_30_digits() -> None:
    # p = 3: intrinsic volumes of the polar cone give E[C_3] = 5/6 exactly.
    value = statistical_dimension(3, dps=30)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpf(5) / 6) < mpmath.mpf(10) ** -30


@pytest.mark.slow
def test_mpmath_route_margin_is_gardner_to_30_digits() -> None:
    # p = 2, margin m: Gardner's (1 + k^2) Phi(k) + k phi(k) with k = m / sqrt(2).
    value = statistical_dimension(2, margin=1.0, dps=30)
    with mpmath.workdps(40):
        stability = 1 / mpmath.sqrt(2)
        gardner = (1 + stability**2) * mpmath.ncdf(stability) + stability * mpmath.npdf(stability)
        assert abs(value - gardner) < mpmath.mpf(10) ** -30


@pytest.mark.slow
@pytest.mark.parametrize("p", [1000, 10**9])
def test_mpmath_route_against_float_and_higher_precision(p: int) -> None:
    # float64 route (different quadrature, scipy Faddeeva) to 1e-12; dps=30 vs dps=36
    # (different node counts, panel orders and truncation levels) to 30 digits.
    value = statistical_dimension(p, dps=30)
    assert float(value) == pytest.approx(statistical_dimension(p), rel=1e-12)
    finer = statistical_dimension(p, dps=36)
    with mpmath.workdps(45):
        assert abs(value / finer - 1) < mpmath.mpf(10) ** -30


def test_asymptotic_dispatch_is_close_at_large_p() -> None:
    series = float(statistical_dimension(10**9, method="asymptotic"))
    assert series == pytest.approx(statistical_dimension(10**9), rel=0.05)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p": 1}, "p"),
        ({"p": 2.5}, "p must be an integer >= 2, got 2.5"),
        ({"p": [10, 1]}, r"p must contain integers >= 2, got 1 \(element 1\)"),
        ({"p": np.float64(np.inf)}, "p must be an integer >= 2, got inf"),
        ({"p": float("nan")}, "p"),
        ({"p": 10, "dps": 0}, "dps"),
        ({"p": 10, "margin": -0.1}, "margin"),
        ({"p": 10, "method": "bogus"}, "method"),
        ({"p": 10, "method": "monte_carlo", "samples": 1}, "samples"),
    ],
)
def test_bad_input(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        statistical_dimension(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("p", "kmax"), [(1, None), (5, 5), (5, -1)])
def test_law_bad_input(p: int, kmax: int | None) -> None:
    with pytest.raises(ValueError, match=r"p|kmax"):
        active_set_law(p, kmax)


def test_statistical_dimension_beyond_int64_and_beyond_float64() -> None:
    # issue 23: integers beyond int64 work (docs/howto/precision.md), beyond float64 a ValueError
    assert statistical_dimension(10**100) == statistical_dimension(1e100)
    with pytest.raises(ValueError, match=r"p must be an integer in \[2, 1.8e\+308\].*got 1e\+400$"):
        statistical_dimension(10**400)
    with pytest.raises(ValueError, match=r"got 1e\+400 \(element 1\)"):
        statistical_dimension([3, 10**400])


def test_active_set_law_beyond_int64_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"p must be an integer in \[2, 2\*\*63 - 1\].*1e\+100$"):
        active_set_law(10**100)


def test_monte_carlo_at_p_beyond_int64() -> None:
    # the top order statistics need log p only: p = 10**100 draws like 1e100
    estimate = statistical_dimension(10**100, method="monte_carlo", samples=2000, seed=1)
    exact = statistical_dimension(10**100)
    assert abs(estimate.mean - exact) < 5 * estimate.standard_error


def _quadrature(p: int, margin: float) -> float:
    log_tol = math.log(cone.FLOAT_TOLERANCE)
    active = cone._active_mean_float(p, margin, log_tol)
    return active + margin * cone._mean_level_float(p, margin, log_tol - math.log(margin))


@pytest.mark.parametrize(
    ("p", "margin"),
    [
        (2, 40.0),
        (10, 250.0),
        (100, 1246.0),
        # the quadrature's cost grows with the margin: 17 s of CPU here, 110 s at 30000
        pytest.param(1000, 12643.0, marks=pytest.mark.slow),
    ],
)
def test_large_margin_closed_form_equals_the_quadrature(p: int, margin: float) -> None:
    # every competitor active: E dist^2 = (p - 1)(1 + m^2/p), proven to half an ulp; at
    # p = 100 and 1000 the smallest integer margin where the bound allows it (m/p = 12.5)
    closed = cone._all_active(p, margin)
    assert closed == (p - 1) * (1.0 + margin * (margin / p))  # m/p first: no overflow
    assert abs(_quadrature(p, margin) - closed) <= 1e-12 * closed
    assert statistical_dimension(p, margin=margin) == closed


def test_closed_form_is_not_used_where_its_bound_fails() -> None:
    assert cone._all_active(10, 100.0) is None  # m/p = 10: the quadrature decides
    assert statistical_dimension(10, margin=100.0) == pytest.approx(9009.0, rel=1e-12)


def test_huge_margins_answer_or_are_refused_by_name() -> None:
    # issue 23's fuzzing: margin=1e100 asked numpy for 1e100 panels
    assert statistical_dimension(10, margin=1e100) == 9.0 * (1.0 + 1e200 / 10)
    with pytest.raises(ValueError, match=r"^margin must be .* got margin=1e\+308 at p=10$"):
        statistical_dimension(10, margin=1e308)


def test_a_huge_margin_at_a_huge_p_is_refused_by_name() -> None:
    # the level's transition is about 1e-50 wide there: about 1e50 panels, refused by estimate
    with pytest.raises(
        ValueError,
        match=r"^p and margin: the quadrature over the level would need about [0-9.]+e\+49 panels",
    ):
        statistical_dimension(10**100, margin=1e100)
