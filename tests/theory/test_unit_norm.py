"""The unit-norm law (embeddings="sphere", docs/theory/unit-norm.md): quadrature against
independent references (Monte Carlo through lamcap's projection, finer grids, closed
forms, the Gaussian law as d grows) and bad input."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from lamcap.geometry import project_onto_cone
from lamcap.theory import _unit_norm as un
from lamcap.theory import critical_p, feasibility_probability, statistical_dimension


@pytest.mark.parametrize("d", [4, 8, 33])
def test_score_law_against_mpmath_quadrature(d: int) -> None:
    # independent of scipy's betainc: the density integrated by mpmath at 30 digits
    mpmath.mp.dps = 30
    root = mpmath.sqrt(d)
    constant = mpmath.gamma(mpmath.mpf(d) / 2) / (
        mpmath.sqrt(mpmath.pi) * mpmath.gamma(mpmath.mpf(d - 1) / 2) * root
    )

    def density(z: mpmath.mpf) -> mpmath.mpf:
        base = 1 - z**2 / d
        return constant * max(base, mpmath.mpf(0)) ** (mpmath.mpf(d - 3) / 2)

    assert float(mpmath.quad(density, [-root, root])) == pytest.approx(1.0, abs=1e-15)
    assert float(mpmath.quad(lambda z: z * z * density(z), [-root, root])) == pytest.approx(
        1.0, abs=1e-15
    )
    for z in (-1.3, 0.2, 1.7):
        below = float(mpmath.quad(density, [-root, 0, z]))
        assert float(un.score_cdf(z, d)) == pytest.approx(below, abs=2e-15)
        assert float(un.score_density(z, d)) == pytest.approx(float(density(z)), rel=1e-13)


@pytest.mark.parametrize(("p", "d"), [(10, 4), (22, 8), (40, 16)])
def test_cost_and_active_mean_match_monte_carlo(p: int, d: int) -> None:
    rng = np.random.default_rng(2027 + p)
    samples = 200_000
    z = un.sample_unit_norm_scores(rng, samples, p, d)
    projected, active = project_onto_cone(z)
    distance2 = np.sum((z - projected) ** 2, axis=1)
    for draws, value in (
        (distance2, un.unit_norm_distance(p, d)),
        (active.astype(float), un.unit_norm_active_mean(p, d)),
    ):
        error = np.std(draws) / math.sqrt(samples)
        assert abs(np.mean(draws) - value) < 4.0 * error


def test_finer_grids_agree_to_3e_9() -> None:
    for p, d in ((22, 8), (200, 48)):
        # nested grids with four times as many nodes (the step divided by 4)
        reference = un._extrapolated(un._distance_on_grids(p, d, 4 * un._GRID))
        assert un.unit_norm_distance(p, d) == pytest.approx(reference, rel=3e-9)
        active = un._extrapolated(un._active_on_grids(p, d, 4 * un._ACTIVE_GRID))
        assert un.unit_norm_active_mean(p, d) == pytest.approx(active, rel=3e-9)


def test_p2_is_half_for_any_variance_one_law() -> None:
    # dist^2 = (z_2 - z_1)_+^2 / 2 and E(z_2 - z_1)^2 = 2, so E dist^2 = 1/2 for every d
    for d in (4, 9, 64):
        assert un.unit_norm_distance(2, d) == pytest.approx(0.5, rel=3e-9)
        assert un.unit_norm_active_mean(2, d) == 0.5


def test_sphere_cost_is_below_gaussian_and_active_mean_above() -> None:
    for p, d in ((22, 8), (62, 16)):
        gaussian = float(statistical_dimension(p))
        assert un.unit_norm_distance(p, d) < gaussian < un.unit_norm_active_mean(p, d)


def test_large_d_reduces_to_the_gaussian_law_at_rate_one_over_d() -> None:
    p = 20
    gaussian = float(statistical_dimension(p))
    scaled = [d * (gaussian - un.unit_norm_distance(p, d)) for d in (256, 512, 1024)]
    # d (E C_p - C_p(d)) converges: the deviation is O(1/d) at fixed p
    assert scaled[2] == pytest.approx(scaled[1], rel=0.02)
    assert abs(scaled[2] - scaled[1]) < abs(scaled[1] - scaled[0])
    assert un.unit_norm_distance(p, 1024) == pytest.approx(gaussian, rel=2e-3)


def test_public_laws_with_sphere_embeddings() -> None:
    value = statistical_dimension([22, 30], d=8, embeddings="sphere")
    assert value[0] == pytest.approx(un.unit_norm_distance(22, 8), rel=1e-15)
    pc = float(critical_p(12, embeddings="sphere"))
    assert pc > float(critical_p(12))
    # p_c solves p C_p(d) = d^2 on the interpolant
    assert pc * un.unit_norm_dimension_at(pc, 12) == pytest.approx(144.0, rel=1e-10)
    curve = feasibility_probability(12, [38, 42, 46], embeddings="sphere")
    gaussian = feasibility_probability(12, [38, 42, 46])
    assert np.all(np.diff(curve) < 0)
    assert np.all(curve > gaussian)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: statistical_dimension(10, embeddings="unit"), r"embeddings must be one of"),
        (lambda: statistical_dimension(10, embeddings="sphere"), r"d is required"),
        (lambda: statistical_dimension(10, d=3, embeddings="sphere"), r"d must be an integer >= 4"),
        (
            lambda: statistical_dimension(10, d=8, margin=0.5, embeddings="sphere"),
            r"embeddings='sphere' has only margin=0",
        ),
        (lambda: critical_p(12, embeddings="Sphere"), r"embeddings must be one of"),
        (lambda: critical_p(12, kappa=0.5, embeddings="sphere"), r"kappa must be 1"),
        (lambda: feasibility_probability(12, 40, embeddings="gauss"), r"embeddings must be one of"),
        (lambda: feasibility_probability(3, 4, embeddings="sphere"), r"d must be an integer >= 4"),
    ],
)
def test_bad_input_names_argument_value_and_accepted_values(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]
