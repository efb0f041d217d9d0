r"""Rank-:math:`\kappa` capacity: quarter-circle width :math:`F(\kappa)` and its entropic term (sympy).

docs/theory/rank.md.  The squared Gaussian width of the unit-Frobenius matrices of rank
:math:`\le r = \kappa d` is :math:`d^2 F(\kappa)` with the quarter-circle law
:math:`\rho(s) = \sqrt{4 - s^2}/\pi` on :math:`[0, 2]`:

.. math::

    F(\kappa) = \int_{s_\kappa}^2 s^2\rho(s)\,ds, \qquad \int_{s_\kappa}^2\rho = \kappa .

With :math:`s = 2\sin\theta` both integrals are elementary (:func:`kappa_of_angle`,
:func:`width_of_angle`), and :math:`\alpha_c(\kappa) = F(\kappa)/2`.

Entropic term (an ansatz, docs/derivations/rank.md).  In the full-rank model
the singular part of :math:`\tfrac12[\log(1-q) + q/(1-q)]` as :math:`q \to 1` is
:math:`w^2/(2N(1-q))` with :math:`w^2/N = 1` the squared Gaussian width of the
sphere per weight.  Replacing it by the width of the rank-:math:`r` set,

.. math::

    S_\kappa(q) = \tfrac12\Big[\log(1 - q) + F(\kappa)\,\frac{q}{1 - q}\Big],

gives the threshold :math:`a_c = F(\kappa)/\mathbb{E}[C_p]` by the same
:math:`q \to 1` balance, i.e. Gordon's comparison bound.  This is an assumption
(Gaussian width replaces the RS entropy of the non-convex set), not a replica
computation over the factors :math:`Q, R`; whether it is sharp is what the
rank-constrained solver experiments test.

Examples
--------
>>> sp.simplify(width_of_angle().subs(THETA, 0))
1
"""

from __future__ import annotations

import sympy as sp

from lamcap.symbolic._free_entropy import DENSITY, DIMENSION, Q

THETA = sp.Symbol("theta", nonnegative=True)
RANK_RATIO = sp.Symbol("kappa", positive=True)
_S = sp.Symbol("s", nonnegative=True)
_DELTA = sp.Symbol("delta", positive=True)
_QUARTER_CIRCLE = sp.sqrt(4 - _S**2) / sp.pi


def _from_angle(weight: sp.Expr) -> sp.Expr:
    """int_{2 sin theta}^2 weight(s) rho(s) ds by the substitution s = 2 sin(phi)."""
    phi = sp.Symbol("phi", nonnegative=True)
    integrand = (weight * _QUARTER_CIRCLE).subs(_S, 2 * sp.sin(phi)) * 2 * sp.cos(phi)
    integrand = sp.simplify(integrand.subs(sp.sqrt(4 - 4 * sp.sin(phi) ** 2), 2 * sp.cos(phi)))
    return sp.simplify(sp.integrate(integrand, (phi, THETA, sp.pi / 2)))


def kappa_of_angle() -> sp.Expr:
    r""":math:`\kappa(\theta) = \int_{2\sin\theta}^2 \rho = 1 - (2\theta + \sin 2\theta)/\pi`.

    Examples
    --------
    >>> sp.simplify(kappa_of_angle() - (1 - (2 * THETA + sp.sin(2 * THETA)) / sp.pi))
    0
    """
    return _from_angle(sp.Integer(1))


def width_of_angle() -> sp.Expr:
    r""":math:`F(\kappa(\theta)) = \int_{2\sin\theta}^2 s^2\rho(s)\,ds`."""
    return _from_angle(_S**2)


def capacity_of_angle() -> sp.Expr:
    r""":math:`\alpha_c = F/2 = 1/2 - \theta/\pi + \sin 4\theta/(4\pi)` (docs/theory/rank.md).

    Examples
    --------
    >>> claimed = sp.Rational(1, 2) - THETA / sp.pi + sp.sin(4 * THETA) / (4 * sp.pi)
    >>> sp.simplify(sp.expand_trig(capacity_of_angle() - claimed))
    0
    """
    return sp.simplify(width_of_angle() / 2)


def small_rank_capacity() -> sp.Expr:
    r"""Leading behaviour of :math:`\alpha_c` as :math:`\kappa \to 0`: ratio :math:`\alpha_c/\kappa \to 2`.

    Examples
    --------
    >>> small_rank_capacity()
    2
    """
    epsilon = sp.Symbol("epsilon", positive=True)
    ratio = (capacity_of_angle() / kappa_of_angle()).subs(THETA, sp.pi / 2 - epsilon)
    return sp.limit(ratio, epsilon, 0)


def entropic_term_rank() -> sp.Expr:
    r"""Ansatz :math:`S_\kappa(q) = \tfrac12[\log(1-q) + F\,q/(1-q)]` with ``F`` the width symbol."""
    width = sp.Symbol("F", positive=True)
    return sp.log(1 - Q) / 2 + width * Q / (2 * (1 - Q))


def critical_density_rank() -> sp.Expr:
    r"""Association density at which the :math:`1/(1-q)` part of :math:`S_\kappa + a G` vanishes: :math:`F/\mathbb{E}[C_p]`.

    Examples
    --------
    >>> critical_density_rank()
    F/C
    """
    phi = entropic_term_rank().subs(Q, 1 - _DELTA) - DENSITY * DIMENSION / (2 * _DELTA)
    singular = sp.limit(phi * _DELTA, _DELTA, 0)
    (solution,) = sp.solve(sp.Eq(singular, 0), DENSITY)
    return solution
