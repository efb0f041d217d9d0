"""RS free entropy and saddle point (theory.replica) against Gardner, quadrature and Monte Carlo."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, optimize, special

from lamcap.theory import _replica as replica
from lamcap.theory._replica import (
    critical_density,
    energetic_term,
    free_entropy,
    log_volume,
    solve_saddle_point,
)


def _gardner_free_entropy(q: float, density: float, stability: float) -> float:
    """Gardner 1988, written independently: 1/2 log(1-q) + q/(2(1-q)) + density E log H(.)."""

    def integrand(u: float) -> float:
        argument = (stability - math.sqrt(q) * u) / math.sqrt(1.0 - q)
        return float(special.log_ndtr(-argument)) * math.exp(-0.5 * u * u) / math.sqrt(2 * math.pi)

    energetic = integrate.quad(integrand, -12.0, 12.0, epsabs=1e-13, epsrel=1e-12, limit=400)[0]
    return 0.5 * math.log(1.0 - q) + q / (2.0 * (1.0 - q)) + density * energetic


def _gardner_overlap(density: float, stability: float) -> float:
    step = 1e-5

    def derivative(q: float) -> float:
        return (
            _gardner_free_entropy(q + step, density, stability)
            - _gardner_free_entropy(q - step, density, stability)
        ) / (2 * step)

    return float(optimize.brentq(derivative, 1e-3, 0.99, xtol=1e-12))


@pytest.mark.parametrize("stability", [0.0, 0.5])
def test_p2_reproduces_gardner_saddle_point(stability: float) -> None:
    densities = critical_density(2, stability * math.sqrt(2.0)) * np.array([0.15, 0.4, 0.6])
    overlap = solve_saddle_point(densities, 2, margin=stability * math.sqrt(2.0))
    expected = [_gardner_overlap(a, stability) for a in densities]
    np.testing.assert_allclose(overlap, expected, atol=2e-6)
    value = free_entropy(overlap[1], densities[1], 2, margin=stability * math.sqrt(2.0))
    assert float(value) == pytest.approx(
        _gardner_free_entropy(overlap[1], densities[1], stability), abs=1e-9
    )


@pytest.mark.parametrize("stability", [0.0, 0.3, 1.0])
def test_p2_capacity_is_gardner_margin_capacity(stability: float) -> None:
    moment = integrate.quad(
        lambda z: (z + stability) ** 2 * math.exp(-z * z / 2) / math.sqrt(2 * math.pi),
        -stability,
        np.inf,
    )[0]
    limit = critical_density(2, stability * math.sqrt(2.0))
    assert limit == pytest.approx(1.0 / moment, rel=1e-12)
    overlap = solve_saddle_point(
        limit * (1.0 - np.array([1e-2, 1e-4, 1e-6])), 2, margin=stability * math.sqrt(2.0)
    )
    assert np.all(np.diff(overlap) > 0)
    assert overlap[-1] > 1.0 - 1e-4


def test_overlap_increases_to_one_at_the_critical_density() -> None:
    limit = critical_density(6)
    densities = limit * np.concatenate([np.linspace(0.0, 0.9, 10), 1.0 - np.logspace(-2, -7, 6)])
    overlap = solve_saddle_point(densities, 6, samples=128)
    assert overlap[0] == 0.0
    assert np.all(np.diff(overlap) > 0)
    gaps = 1.0 - overlap[-6:]
    assert gaps[-1] < 1e-5
    # the gap closes linearly: (1 - q*) / (1 - a/a_c) roughly constant near a_c
    ratios = gaps / np.logspace(-2, -7, 6)
    assert ratios.max() / ratios.min() < 3.0


def test_energetic_term_matches_direct_monte_carlo() -> None:
    """G(q) at q = 0.3, p = 3 vs sampling xi directly (no 1-D quadrature), 5 sigma."""
    p, q = 3, 0.3
    rng = np.random.default_rng(2024)
    draws, inner = 800, 20000
    logs = np.empty(draws)
    for i in range(draws):
        z = rng.standard_normal(p)
        scores = math.sqrt(q) * z + math.sqrt(1 - q) * rng.standard_normal((inner, p))
        hits = np.mean(scores[:, 0] >= scores[:, 1:].max(axis=1))
        logs[i] = math.log(hits) + (1 - hits) / (2 * inner * hits)  # delta-method bias fix
    direct, direct_error = logs.mean(), logs.std(ddof=1) / math.sqrt(draws)
    value = float(energetic_term(q, p, samples=2048, seed=5))
    assert abs(value - direct) < 5 * math.hypot(direct_error, 0.01), (value, direct, direct_error)


def test_monte_carlo_kernel_at_p2_matches_quadrature() -> None:
    """The general-p kernel (quenched draws + Gauss-Hermite) against the exact p = 2 route."""
    deltas = np.array([0.7, 0.2, 1e-3])
    rng = np.random.default_rng(11)
    draws = rng.standard_normal((4000, 2))
    log_p, displacement = replica._energetic_samples(
        draws[:, 0].copy(),
        draws[:, 1:].copy(),
        deltas,
        0.0,
        replica._HERMITE_NODES,
        replica._HERMITE_WEIGHTS,
    )
    exact_g, exact_d = replica._perceptron_expectations(deltas, 0.0)
    for values, exact in ((log_p, exact_g), (displacement, exact_d)):
        error = values.std(axis=0, ddof=1) / math.sqrt(len(values))
        assert np.all(np.abs(values.mean(axis=0) - exact) < 5 * error)


def test_q_to_one_limit_is_the_statistical_dimension() -> None:
    """G(q) ~ -E[C_p] / (2(1 - q)) and the saddle density q/D(q) -> 1/E[C_p]."""
    from lamcap.theory._cost_models import statistical_dimension

    dimension = float(statistical_dimension(5))
    gap = 1e-9
    value = float(energetic_term(1.0 - gap, 5, samples=128))
    assert -2.0 * gap * value == pytest.approx(dimension, rel=1e-6)
    assert critical_density(5) == pytest.approx(1.0 / dimension, rel=1e-12)


def test_log_volume_decreases_from_zero() -> None:
    densities = np.array([0.0, 0.5, 1.0, 1.5, 1.9])
    volume = log_volume(densities, 2)
    assert volume[0] == 0.0
    assert np.all(np.diff(volume) < 0)


def test_free_entropy_broadcasts_over_density() -> None:
    values = free_entropy(0.4, np.array([0.0, 1.0, 2.0]), 3, samples=64)
    assert values.shape == (3,)
    assert values[0] == pytest.approx(float(replica.entropic_term(0.4)))


def test_bad_input() -> None:
    limit = critical_density(3)
    with pytest.raises(ValueError, match=r"exceeds a_c") as info:
        solve_saddle_point([0.1, limit], 3, samples=64)
    assert f"{limit:.6g}"[:6] in str(info.value)
    with pytest.raises(
        ValueError, match=r"q must contain finite values in \[0.0, 1.0\), got .*1.0"
    ):
        free_entropy(1.0, 0.5, 3)
    with pytest.raises(
        ValueError, match=r"q must contain finite values in \[0.0, 1.0\), got .*-0.1"
    ):
        free_entropy(-0.1, 0.5, 3)
    with pytest.raises(ValueError, match="p must be an integer >= 2, got 1"):
        solve_saddle_point(0.1, 1)
    with pytest.raises(ValueError, match=r"density must contain finite values >= 0.0"):
        solve_saddle_point(-0.1, 3)


# --------------------------------------------------------------------------
# huge margins and densities (issue 23: margin=1e100 and density=1e308 overflowed)


@pytest.mark.parametrize("margin", [30.0, 50.0, 1000.0])
@pytest.mark.parametrize("q", [0.3, 0.5, 0.999])
def test_perceptron_free_entropy_at_large_margins_matches_gardner(margin: float, q: float) -> None:
    # the kink far outside [-14, 14] once left one 28-wide panel: 3% low at margin 1000
    stability = margin / math.sqrt(2.0)
    reference = _gardner_free_entropy(q, 1.0, stability)
    assert float(free_entropy(q, 1.0, 2, margin=margin)) == pytest.approx(reference, rel=1e-10)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("p", [2, 50])
@pytest.mark.parametrize("q", [0.0, 0.5, 1.0 - 2.0**-53])
def test_free_entropy_up_to_the_largest_margin_is_the_quadratic_limit(p: int, q: float) -> None:
    # all competitors active: E dist(sqrt(q) z - m e_t, K_0)^2 = (p-1)/p m^2 + q (p-1) and
    # log P = -dist^2/(2(1-q)) + O(p log m): the closed form to 1e-90 relative at m = 1e50
    margin, density = replica.MAX_MARGIN, 0.1
    delta = 1.0 - q
    entropic = 0.5 * (math.log(delta) + q / delta)
    limit = entropic - density * (p - 1) / p * margin**2 / (2.0 * delta)
    assert float(free_entropy(q, density, p, margin=margin)) == pytest.approx(limit, rel=1e-12)


@pytest.mark.filterwarnings("error")
def test_margin_beyond_the_largest_is_refused_by_name() -> None:
    for margin in (1e51, 1e100, 1e308):
        with pytest.raises(
            ValueError, match=r"margin must contain finite values in \[0\.0, 1e\+50\]"
        ):
            free_entropy(0.5, 0.1, 50, margin=margin)
        with pytest.raises(ValueError, match=r"margin .*1e\+50"):
            energetic_term(0.5, 2, margin=margin)
        for function in (log_volume, solve_saddle_point):
            with pytest.raises(
                ValueError, match=r"^margin must contain finite values in \[0\.0, 1e\+50\], got "
            ):
                function(0.0, 3, margin=margin)


@pytest.mark.filterwarnings("error")
def test_density_whose_free_entropy_leaves_float64_is_refused_with_the_bound() -> None:
    q = 0.9
    energetic = float(energetic_term(q, 2))  # Gardner, exact: about -3.2
    entropic = 0.5 * (math.log(1.0 - q) + q / (1.0 - q))
    bound = (np.finfo(np.float64).max - abs(entropic)) / abs(energetic)
    assert float(free_entropy(q, 0.999 * bound, 2)) == pytest.approx(
        entropic + 0.999 * bound * energetic, rel=1e-14
    )
    with pytest.raises(ValueError, match=r"density must be <= .* got 1e\+308"):
        free_entropy(q, 1e308, 2)
    with pytest.raises(ValueError, match=r"density must be <= .*p=50.* got 1e\+308"):
        free_entropy(0.5, [0.1, 1e308], 50)
