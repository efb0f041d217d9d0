"""Rank-kappa width F(kappa) (symbolic.rank) against quadrature and lamcap.capacity."""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy as sp
from scipy import integrate, optimize

from lamcap.symbolic import _rank as rank


def _quarter_circle_capacity(kappa: float) -> float:
    """Independent route: solve int_{s}^2 rho = kappa for s, then F/2 by quadrature."""
    density = lambda s: math.sqrt(max(4 - s * s, 0.0)) / math.pi
    edge = optimize.brentq(lambda s: integrate.quad(density, s, 2)[0] - kappa, 0.0, 2.0, xtol=1e-14)
    return 0.5 * integrate.quad(lambda s: s * s * density(s), edge, 2, epsabs=1e-14)[0]


@pytest.mark.parametrize("kappa", [0.05, 0.25, 0.5, 0.9])
def test_closed_form_matches_quadrature(kappa: float) -> None:
    kappa_fn = sp.lambdify(rank.THETA, rank.kappa_of_angle(), "mpmath")
    capacity_fn = sp.lambdify(rank.THETA, rank.capacity_of_angle(), "mpmath")
    angle = mpmath.findroot(lambda t: kappa_fn(t) - kappa, 0.5)
    assert float(capacity_fn(angle)) == pytest.approx(_quarter_circle_capacity(kappa), abs=1e-10)


def test_limits() -> None:
    assert rank.small_rank_capacity() == 2
    assert sp.simplify(rank.capacity_of_angle().subs(rank.THETA, 0)) == sp.Rational(1, 2)
    assert rank.critical_density_rank() == sp.Symbol("F", positive=True) / sp.Symbol(
        "C", positive=True
    )


def test_engineer_b_capacity_agrees() -> None:
    import lamcap

    kappa_fn = sp.lambdify(rank.THETA, rank.kappa_of_angle(), "mpmath")
    capacity_fn = sp.lambdify(rank.THETA, rank.capacity_of_angle(), "mpmath")
    with mpmath.workdps(40):
        angle = mpmath.findroot(lambda t: kappa_fn(t) - mpmath.mpf(1) / 4, 0.5)
        mine = capacity_fn(angle)
    theirs = lamcap.capacity(0.25, dps=30)
    assert abs(mine - theirs) < mpmath.mpf(10) ** -28
