"""The sympy free entropy (symbolic.free_entropy) against the numeric replica code."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from lamcap.symbolic import _free_entropy as symbolic
from lamcap.theory import _replica as replica


def test_entropic_term_matches_numeric() -> None:
    function = sp.lambdify(symbolic.Q, symbolic.entropic_term(), "numpy")
    q = np.array([0.0, 0.3, 0.9, 1 - 1e-9])
    np.testing.assert_allclose(replica.entropic_term(q), function(q), rtol=1e-12)


def test_saddle_point_density_is_q_over_displacement() -> None:
    assert sp.simplify(symbolic.saddle_point_density() - symbolic.Q / symbolic.D) == 0


def test_singular_part_gives_inverse_dimension() -> None:
    assert symbolic.critical_density_from_singular_part() == 1 / symbolic.DIMENSION


@pytest.mark.parametrize("stability", [0.0, 0.4, 1.5])
def test_gardner_second_moment_matches_numeric_critical_density(stability: float) -> None:
    moment = float(symbolic.gardner_second_moment().subs(symbolic.STABILITY, stability))
    assert replica.critical_density(2, stability * np.sqrt(2.0)) == pytest.approx(
        1 / moment, rel=1e-13
    )


def test_gardner_integrand_matches_numeric_energetic_term() -> None:
    """E_u log H(.) from the sympy integrand by scipy quadrature vs theory.replica at p = 2."""
    from scipy import integrate

    q, stability = 0.6, 0.3
    integrand = sp.lambdify(
        symbolic.U,
        symbolic.gardner_energetic_integrand().subs({symbolic.Q: q, symbolic.STABILITY: stability})
        * sp.exp(-(symbolic.U**2) / 2)
        / sp.sqrt(2 * sp.pi),
        "math",
    )
    value = integrate.quad(integrand, -12, 12, epsabs=1e-13)[0]
    numeric = float(replica.energetic_term(q, 2, margin=stability * np.sqrt(2.0)))
    assert numeric == pytest.approx(value, abs=1e-10)
