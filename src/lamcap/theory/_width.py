r"""Finite-d Gaussian width of the rank-r matrices (docs/theory/rank.md).

The squared Gaussian width of the unit-Frobenius matrices of rank at most
:math:`r` in :math:`\mathbb{R}^{d\times d}` is

.. math::

    w_r^2 = \mathbb{E}\Big[\sum_{i \le r} \sigma_i^2(G)\Big],
    \qquad G_{ij} \sim N(0, 1) \text{ iid},

the expected sum of the :math:`r` largest eigenvalues of the real Wishart
matrix :math:`G^\top G`.  It replaces :math:`d^2` in the finite-size threshold
:math:`n\,\mathbb{E}[C_p] = w_r^2`.  :math:`w_d^2 = d^2` exactly.

Expansion in 1/d
----------------
Write :math:`x = \lambda/d` for the eigenvalues.  The loop (Schwinger–Dyson)
equation of the real Wishart ensemble :math:`(\beta = 1,\ n = d)` for the
mean resolvent :math:`g(z) = \mathbb{E}\,\frac1d \operatorname{tr}(z - G^\top G/d)^{-1}`
reads, up to :math:`O(d^{-2})`,

.. math::

    z g^2 - z g + 1 + \frac{1 - 2/\beta}{d}\,(z g)' = 0,

whose solution gives the mean density
:math:`\rho_d = \rho_{MP} + \rho_1/d + O(d^{-2})` with
:math:`\rho_{MP}(x) = \sqrt{(4-x)/x}/(2\pi)` and, for :math:`\beta = 1`,

.. math::

    \rho_1(x) = \tfrac14\big[\delta(x) + \delta(x - 4)\big]
              - \frac{1}{2\pi\sqrt{x(4-x)}} .

(Its moments 0, 0, 1, 6 reproduce the exact :math:`\mathbb{E}\operatorname{tr}(G^\top G)^k
= d^2,\ d^3 \cdot 2 + d^2,\ 5d^4 + 6d^3 + 4d^2` at orders :math:`k = 1, 2, 3`.)
Integrating :math:`x` over the top :math:`r/d` of :math:`\rho_d` gives

.. math::

    w_r^2 = d^2 F(\kappa_r) + d\, G(\kappa_r) + O(\log d), \qquad \kappa_r = r/d,

    G = \sin^2\tfrac{x}{2} - \frac{\sin x - x\cos x}{\pi}
      = \sin^2\tfrac{y}{2} - \frac{\sin y - y\cos y}{\pi},

with :math:`x = \pi - 2\theta`, :math:`y = 2\theta` the angles of
:mod:`lamcap.theory._rank` and :math:`F` its retained energy.  The remainder
contains the fluctuation of the number of eigenvalues above the cut (a
Jensen gap, :math:`O(\log d)` in absolute terms, which makes the exact value
slightly smaller) and :math:`O(1)` terms; near :math:`r = 1` the expansion is
not uniform (Tracy–Widom edge).

Measured precision (Monte Carlo, 40 000 matrices for d <= 16, 8 000 at d = 32,
2 000 at d = 64): the exact value lies below the expansion by an amount growing
slowly with d and with 1/kappa, e.g. 0.48 / 0.62 / 0.79 at r = d/2 and
0.76 / 0.97 / 1.3 at r = d/4 for d = 8 / 16 / 32, and 0.9 / 1.3 / 1.8 / 2.1 at
r = 1 for d = 8 / 16 / 32 / 64.  Absolute error below 1.4 for ``r >= d/4`` and
d <= 64, below 2.1 at r = 1; relative error for ``r >= d/4`` below 2 % at
d = 8, 0.6 % at d = 16, 0.2 % at d >= 32, and at r = 1 below 4 % (d = 8) and
1 % (d = 64).  The leading term :math:`d^2 F` alone is off by
:math:`d\,G(\kappa) + O(\log d)`; since :math:`G` is small for
:math:`\kappa \ge 3/4`, there (and at d = 8) both are about equally accurate,
while for :math:`\kappa \le 1/2`, d >= 16 the 1/d term halves the error or better.

Reference: arXiv:2605.10795 (rank-constrained capacity); docs/theory/rank.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._sizes import format_integer
from lamcap._validation import check_integer_array, check_kappa
from lamcap.theory._arrays import broadcast
from lamcap.theory._rank import _angles_and_energy


def retained_rank(d: ArrayLike, kappa: ArrayLike = 1.0) -> NDArray[np.int64]:
    r"""Rank :math:`r = \operatorname{round}(\kappa d)` used for a rank ratio ``kappa``.

    Rounding is half-to-even (:func:`numpy.rint`).  Raises ``ValueError`` if
    :math:`r = 0`, if ``d`` is not an integer >= 1 or ``kappa`` not in (0, 1].

    Embeddings: any kind; the rank belongs to the matrices, not to the embeddings.

    Examples
    --------
    >>> retained_rank(12, 0.5).tolist()
    6
    >>> retained_rank([8, 16, 64], 0.25).tolist()
    [2, 4, 16]
    """
    dimension, ratio = broadcast(
        check_integer_array("d", d, minimum=1), check_kappa(kappa), names=("d", "kappa")
    )
    rank: NDArray[Any] = np.rint(ratio * dimension.astype(np.float64))
    if dimension.dtype == object:  # d beyond int64: Python ints, exactly d at kappa = 1
        entries = [
            int(size) if r == 1.0 else int(value)
            for size, r, value in zip(dimension.flat, ratio.flat, rank.flat, strict=True)
        ]
        rank = np.array(entries, dtype=object).reshape(rank.shape)
    else:
        rank = rank.astype(np.int64)
    if np.any(rank == 0):
        index = np.flatnonzero(rank == 0)[0]
        bad_d = int(dimension.flat[index])  # broadcast with kappa above
        bad_kappa = float(ratio.flat[index])
        msg = (
            f"kappa * d must round to a rank r >= 1, got kappa={bad_kappa!r}, d={bad_d!r} "
            f"(r = round(kappa * d) = 0); use kappa >= 1/(2d)"
        )
        raise ValueError(msg)
    return rank


def _first_order_coefficient(kappa: NDArray[np.float64]) -> NDArray[np.float64]:
    """Coefficient :math:`G(\\kappa)` of the :math:`d` term of :math:`w_r^2`."""
    x, y, _ = _angles_and_energy(kappa)
    u = np.minimum(x, y)  # G is the same function of x and of y = pi - x
    return np.asarray(np.sin(0.5 * u) ** 2 - (np.sin(u) - u * np.cos(u)) / np.pi)


_MAX_DIMENSION = 10**154


def gaussian_width_squared(d: ArrayLike, kappa: ArrayLike = 1.0) -> Any:
    r"""Squared Gaussian width :math:`w_r^2 = \mathbb{E}\sum_{i\le r}\sigma_i^2` of rank-r matrices.

    .. math::

        w_r^2 = \mathbb{E}\Big[\sum_{i \le r} \sigma_i^2(G)\Big]
              \approx d^2 F(r/d) + d\,G(r/d), \qquad r = \operatorname{round}(\kappa d),

    for a :math:`d\times d` matrix :math:`G` of iid :math:`N(0, 1)` entries
    (module notes give :math:`G` and the derivation).  Exact (:math:`d^2`)
    when :math:`r = d`.

    Status: model with measured error. Exact (:math:`d^2`) at :math:`r = d`; for :math:`r < d`
    an expansion whose absolute error, measured against Monte Carlo averages of Gaussian
    matrices (module notes), is below 1.4 for :math:`r \ge d/4`, :math:`d \le 64`, and below 2.1
    at :math:`r = 1`.

    Embeddings: any kind; the width belongs to the rank-r matrices, not to the embeddings.

    Parameters
    ----------
    d : int or array of int >= 1
        Matrix size.
    kappa : float or array in (0, 1]
        Rank ratio; broadcasts against ``d``.  :math:`r = \operatorname{round}(\kappa d)`
        (half to even) must be >= 1.

    Returns
    -------
    float64 array (numpy scalar for scalar input).

    Notes
    -----
    Precision (see the module notes): exact for :math:`r = d`; otherwise an
    expansion to order :math:`d` whose absolute error is :math:`O(\log d)`,
    measured below 1.4 for :math:`r \ge d/4`, :math:`d \le 64` (relative
    < 2 % at d = 8, < 0.2 % for d >= 32) and below 2.1 at :math:`r = 1`; the
    exact value is the smaller one.
    Reference: docs/theory/rank.md; arXiv:2605.10795.

    Examples
    --------
    >>> float(gaussian_width_squared(12))
    144.0
    >>> round(float(gaussian_width_squared(64, 0.5)), 3)
    3667.523
    >>> [round(float(w), 2) for w in gaussian_width_squared([8, 16], 0.5)]
    [58.05, 230.5]
    """
    rank = retained_rank(d, kappa)
    dimension = np.broadcast_to(check_integer_array("d", d, minimum=1), rank.shape)
    if np.any(dimension > _MAX_DIMENSION):
        msg = f"d must be at most 1e154 (d^2 is a float64), got {format_integer(int(np.max(dimension)))}"
        raise ValueError(msg)
    ratio = rank / dimension.astype(np.float64)
    _, _, energy = _angles_and_energy(ratio)
    size = dimension.astype(np.float64)
    width = size**2 * energy + size * _first_order_coefficient(ratio)
    width = np.where(rank == dimension, size**2, width)
    return width[()] if width.ndim == 0 else width


def full_rank_width(d: ArrayLike, kappa: ArrayLike = 1.0) -> NDArray[np.float64]:
    """:func:`gaussian_width_squared` as a float64 array, d^2 where r = d.

    Equal to it everywhere (it returns d^2 exactly at full rank), but its
    expansion (numba; about 1 s to load in a fresh process) only runs for r < d.

    Examples
    --------
    >>> full_rank_width([8, 12]).tolist(), round(float(full_rank_width(64, 0.5)), 3)
    ([64.0, 144.0], 3667.523)
    """
    rank = retained_rank(d, kappa)  # checks d, kappa and r >= 1
    dimension = np.broadcast_to(check_integer_array("d", d, minimum=1), rank.shape)
    width = np.array(dimension, dtype=np.float64)
    with np.errstate(over="ignore"):  # d^2 beyond float64 is inf: every V lies below it
        width *= width  # in place: stays an array for 0-d input
    partial = rank != dimension
    if np.any(partial):
        ratio = np.broadcast_to(np.asarray(check_kappa(kappa), dtype=np.float64), rank.shape)
        width[partial] = gaussian_width_squared(dimension[partial], ratio[partial])
    return width


_SQUARE_LIMIT = math.sqrt(np.finfo(np.float64).max)  # about 1.34e154


def check_square_fits(sizes: NDArray[Any], dimension: NDArray[np.float64]) -> None:
    """ValueError naming ``d`` when :math:`d^2` is beyond the float64 range.

    Examples
    --------
    >>> check_square_fits(np.array([8, 10**160], dtype=object), np.array([8.0, 1e160]))
    Traceback (most recent call last):
        ...
    ValueError: d must be an integer in [1, 1.34e+154] (d^2 is computed in float64), got 1e+160 (element 1)
    """
    bad = ~(dimension <= _SQUARE_LIMIT)
    if np.any(bad):
        position = tuple(int(i) for i in np.argwhere(bad)[0])
        where = (
            "" if sizes.ndim == 0 else f" (element {position[0] if sizes.ndim == 1 else position})"
        )
        msg = (
            f"d must be an integer in [1, 1.34e+154] (d^2 is computed in float64), "
            f"got {format_integer(int(sizes[position]))}{where}"
        )
        raise ValueError(msg)
