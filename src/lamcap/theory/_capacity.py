r"""Capacities: the asymptotic load, the finite-size load and the critical p.

Full rank, the threshold of the approximate kinematic formula (docs/theory/capacity.md)
is :math:`n\,\mathbb{E}[C_p] = d^2`; with :math:`n = p` and the load
:math:`\alpha = p\log p/d^2` this is :math:`\alpha_c(p) = \log p/\mathbb{E}[C_p]
\to 1/2`.  Rank :math:`r = \kappa d` replaces :math:`d^2` by the squared
Gaussian width :math:`w_r^2` (docs/theory/rank.md), asymptotically :math:`d^2 F(\kappa)`:

.. math::

    \alpha_c(p, \kappa) = \frac{\log p}{\mathbb{E}[C_p]}\,\frac{w_r^2}{d^2},
    \qquad \alpha_c(\kappa) = \lim_{p\to\infty} \alpha_c(p, \kappa) = \frac{F(\kappa)}2 .

:func:`critical_p` solves :math:`p\,\mathbb{E}[C_p] = w_r^2` for a real
:math:`p`.  :math:`\mathbb{E}[C_p]` comes from
:func:`lamcap.statistical_dimension` (exact quadrature, relative error below
1e-12) at integer :math:`p`; between integers it is interpolated, see
:func:`critical_p`.

Reference: arXiv:2605.10795; docs/theory/capacity.md, docs/theory/rank.md.
"""

from __future__ import annotations

import inspect
from typing import Any, Final

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import check_accuracy, check_dps, check_integer_array, check_kappa, plain
from lamcap.theory._arrays import broadcast, elementwise, float_result
from lamcap.theory._cone import gaussian_statistical_dimension, statistical_dimension_float
from lamcap.theory._cost_models import GAUSSIAN, CostModel, cost_model
from lamcap.theory._precision import working_dps
from lamcap.theory._rank import rank_capacity, retained_energy
from lamcap.theory._status import LawStatus, with_status
from lamcap.theory._width import (
    check_square_fits,
    full_rank_width,
    gaussian_width_squared,
    retained_rank,
)

#: Asymptotic capacity :math:`\alpha_c = \lim_{p\to\infty}\log p/\mathbb{E}[C_p] = 1/2`
#: of a full-rank linear associative memory at load :math:`\alpha = p\log p/d^2`
#: (arXiv:2605.10795; docs/theory/cone.md, fact 6).  The approach is logarithmic in p:
#: finite-p values (:func:`capacity` with ``p``) are far above it.
#: Status: asymptotic.  The limit :math:`d, p \to \infty`; the transitions measured at
#: :math:`d \le 96` lie at loads 0.85-1.06 (docs/measurements/capacity.md).
CAPACITY: Final[float] = 0.5

FloatArray = NDArray[np.float64]

# Interpolation grid for E[C_p] at real p: every integer up to 20, then integers
# rounded from 20 * 1.1**j (spacing <= 10 % of p; lamcap.theory._interpolation).
_GRID_RATIO = 1.1


def _capacity_status(
    *,
    kappa: ArrayLike = 1.0,
    p: ArrayLike | None = None,
    d: ArrayLike | None = None,
    embeddings: str = "gaussian",
    **_: Any,
) -> LawStatus:
    """:func:`capacity`'s status: asymptotic without ``p``, else that of :func:`critical_p`."""
    if p is None:
        return LawStatus("asymptotic")
    return cost_model(embeddings).capacity_status(d, kappa)


@with_status(_capacity_status)
def capacity(
    kappa: ArrayLike = 1.0,
    *,
    p: ArrayLike | None = None,
    d: ArrayLike | None = None,
    dps: int | None = None,
    embeddings: str = "gaussian",
) -> Any:
    r"""Capacity :math:`\alpha_c` (load :math:`p\log p/d^2`), asymptotic or at finite p and d.

    .. math::

        \alpha_c(\kappa) = \frac{F(\kappa)}{2} = \frac12 - \frac{\theta}{\pi}
        + \frac{\sin 4\theta}{4\pi}, \quad
        \kappa = 1 - \frac{2\theta + \sin 2\theta}{\pi};
        \qquad
        \alpha_c(p, \kappa) = \frac{\log p}{\mathbb{E}[C_p]}\,\frac{w^2}{d^2},

    where :math:`w^2/d^2 = F(\kappa)` if ``d`` is None and the finite-d width
    :func:`lamcap.gaussian_width_squared` divided by :math:`d^2`
    (:math:`r = \operatorname{round}(\kappa d)`) otherwise.

    Status: asymptotic. Without ``p``, :math:`\alpha_c(\kappa)` is the limit
    :math:`d, p \to \infty` (for :math:`\kappa < 1` the Gordon-type threshold of
    docs/theory/rank.md, an upper bound on the rank-constrained capacity), approached only
    logarithmically in :math:`p`: the transitions measured at :math:`d \le 96` lie far above 1/2
    (docs/measurements/capacity.md). With ``p`` (and ``d``) the value is the finite-size
    threshold of :func:`critical_p` read as a load, a model with measured error (stated there).

    Parameters
    ----------
    kappa : float or array in (0, 1]
        Rank ratio :math:`r/d` (1 = full rank).
    p : int or array of int >= 2, optional
        Number of outputs (= number of associations).  None: the
        :math:`p \to \infty` limit.
    d : int or array of int >= 1, optional
        Dimension; requires ``p``.  None: :math:`d \to \infty` at fixed
        :math:`\kappa`.
    dps : int >= 1, optional
        Return mpmath numbers correct to ``dps`` digits.  Not available with a
        finite ``d`` and :math:`r < d` (that width is an expansion, see
        :func:`lamcap.gaussian_width_squared`).  ``kappa``, ``p`` and ``d``
        broadcast together.
    embeddings : str
        The cost model (:data:`lamcap.theory.COST_MODELS`, default ``'gaussian'``).  With
        ``p`` its mean cost replaces :math:`\mathbb{E}[C_p]` (``'sphere'`` needs ``d``, full
        rank, float64); without ``p`` the limit :math:`d, p \to \infty` is the same for
        every model whose scores become Gaussian as :math:`d` grows (unit-norm rows do), so
        the value is the Gaussian one (full-rank-only models refuse ``kappa < 1``).

    Returns
    -------
    float64 array (numpy scalar for scalar input), or ``mpf`` / object array.

    Notes
    -----
    Asymptotic value: float64 relative error below 5e-16 (see
    :mod:`lamcap.theory._rank`), :math:`> 10^6` values per second.  Finite p:
    relative error below 1e-12 from :math:`\mathbb{E}[C_p]`, plus the error of
    the finite-d width when ``d`` is given and :math:`r < d`.
    Reference: arXiv:2605.10795; docs/theory/capacity.md, docs/theory/rank.md.

    Examples
    --------
    >>> float(capacity())
    0.5
    >>> round(float(capacity(0.5)), 12)
    0.446865396939
    >>> round(float(capacity(p=1000)), 6)
    0.850684
    >>> round(float(capacity(0.5, p=1000, d=64)), 6)
    0.761695
    """
    checked_dps = check_dps(dps)
    model = cost_model(embeddings)
    if p is None:
        if d is not None:
            msg = f"d requires p (the finite-size capacity), got d={d!r} and p=None"
            raise ValueError(msg)
        if model.full_rank_only:
            model.check_dimensions(model.minimum_dimension, kappa, "capacity")
        return rank_capacity(kappa, dps=checked_dps)
    outputs = check_integer_array("p", p, minimum=2)
    if model is not GAUSSIAN:
        return _model_capacity(model, kappa, outputs, d, checked_dps)
    if checked_dps is not None:
        return _capacity_mp(kappa, outputs, d, checked_dps)
    ratio = check_kappa(kappa)
    if d is None:
        width_ratio = retained_energy(ratio)
    else:
        sizes = check_integer_array("d", d, minimum=1)
        dimension = sizes.astype(np.float64)
        check_square_fits(sizes, dimension)
        width_ratio = gaussian_width_squared(sizes, ratio) / dimension**2
    outputs, width_ratio = broadcast(
        outputs, width_ratio, names=("p", "kappa" if d is None else "d and kappa")
    )
    result = np.log(outputs.astype(np.float64)) * width_ratio / statistical_dimension_float(outputs)
    return float_result(result)


def _model_capacity(
    model: CostModel, kappa: ArrayLike, outputs: NDArray[Any], d: Any, dps: int | None
) -> Any:
    """:func:`capacity` at finite ``p`` for a cost model other than the Gaussian one."""
    if dps is not None:
        msg = (
            f"embeddings={model.name!r} has no dps route (its mean cost is float64), got dps={dps}"
        )
        raise ValueError(msg)
    sizes = model.check_dimensions(d, kappa, "capacity")
    width_ratio = gaussian_width_squared(sizes, check_kappa(kappa)) / sizes.astype(np.float64) ** 2
    outputs_b, sizes_b, width_b = broadcast(
        outputs, sizes, width_ratio, names=("p", "d", "d and kappa")
    )
    mean = model.mean_cost(outputs_b, sizes_b)
    return float_result(np.log(outputs_b.astype(np.float64)) * width_b / mean)


def _capacity_mp(
    kappa: ArrayLike, outputs: NDArray[np.int64], d: ArrayLike | None, dps: int
) -> Any:
    """mpmath branch of :func:`capacity` with finite ``p`` (``kappa``, ``p``, ``d`` broadcast)."""
    ratio = check_kappa(kappa)
    dimension: NDArray[Any] = np.zeros((), dtype=np.int64)  # d -> infinity
    if d is not None:
        rank = retained_rank(d, ratio)
        dimension = np.broadcast_to(check_integer_array("d", d, minimum=1), rank.shape)
        if np.any(rank < dimension):
            msg = (
                f"dps is not available with a finite d and rank r = round(kappa*d) < d "
                f"(the finite-d width is an expansion), got kappa={plain(kappa)}, d={plain(d)}"
            )
            raise ValueError(msg)
    work = working_dps(dps)

    def one(k: float, q: int, _dimension: int) -> Any:
        energy = 1 if d is not None else retained_energy(k, dps=work)
        return mpmath.log(q) * energy / gaussian_statistical_dimension(q, dps=work)

    return elementwise(one, ratio, outputs, dimension, dps=dps, names=("kappa", "p", "d"))


# --------------------------------------------------------------------------- critical p


def _critical_p_status(
    *,
    d: ArrayLike | None = None,
    kappa: ArrayLike = 1.0,
    accuracy: ArrayLike = 1.0,
    embeddings: str = "gaussian",
    **_: Any,
) -> LawStatus:
    """:func:`critical_p`'s status for these arguments (:func:`lamcap.theory.law_status`)."""
    return cost_model(embeddings).capacity_status(d, kappa, accuracy)


@with_status(_critical_p_status, warn=True)
def critical_p(
    d: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    accuracy: ArrayLike = 1.0,
    dps: int | None = None,
    embeddings: str = "gaussian",
) -> Any:
    r"""Real number of outputs :math:`p_c(d)` at which :math:`p\,\mathbb{E}[C_p] = w_r^2` (n = p).

    .. math::

        p_c\,\mathbb{E}[C_{p_c}] = w_r^2 = \mathbb{E}\Big[\sum_{i\le r}\sigma_i^2\Big],
        \qquad r = \operatorname{round}(\kappa d),

    the finite-size threshold of docs/theory/capacity.md and docs/theory/rank.md with as
    many associations as outputs; :math:`w_r^2 = d^2` at full rank, the expansion of
    :func:`lamcap.gaussian_width_squared` below.  With ``accuracy`` :math:`f < 1` the left
    side is the partial load :math:`p\,\mathbb{E}[C_p;\ C_p < q_f(p)]`
    (docs/theory/partial-recall.md).  :math:`\mathbb{E}[C_p]` and its law come from the
    cost model named by ``embeddings`` (:func:`lamcap.theory.cost_model`).

    Status: model with measured error, for the *decoupled* problem: the 50% point of the
    Crofton law (:func:`lamcap.feasibility_probability`; Gaussian equivalence assumed, not
    derived).  Measured error: within 1.4% of every certified decoupled transition with
    Gaussian embeddings (d = 8-96, docs/measurements/capacity.md), and of the unit-norm ones
    as stated on docs/theory/unit-norm.md.  The *original* problem stores a few percent more
    at d <= 96 and has no law (docs/measurements/op_vs_dp.md).  For :math:`\kappa < 1` the
    value is the Gordon-type upper bound of docs/theory/rank.md.  With ``accuracy < 1``:
    asymptotic, the replica-symmetric estimate of :func:`lamcap.best_accuracy` (an
    estimate from above; docs/measurements/recall-fraction.md).

    Parameters
    ----------
    d : int or array of int >= 1
        Dimension (vectorised; the cost model may ask for more, ``d >= 4`` for ``'sphere'``).
    kappa : float or array in (0, 1]
        Rank ratio, broadcast against ``d`` (1 only for full-rank-only models).
    accuracy : float or array in (0, 1]
        Fraction of the associations recalled (default 1: all of them).  Broadcast against
        ``d`` and ``kappa``.  For :math:`f < 1` the root is searched up to
        :math:`p \approx 10^{18}`; an accuracy whose critical :math:`p` lies beyond (below
        about ``1e-17``: the chance level :math:`1/p` alone reaches :math:`f` up to
        :math:`p = 1/f`) raises ``ValueError``.
    dps : None
        No high-precision route: :math:`p_c` is a real :math:`p` and :math:`\mathbb{E}[C_p]`
        between integers an interpolant, so a given ``dps`` raises ``ValueError``
        (docs/howto/precision.md).
    embeddings : str
        The cost model (:data:`lamcap.theory.COST_MODELS`): ``'gaussian'`` (default) or
        ``'sphere'`` (unit-norm outputs, full rank, docs/theory/unit-norm.md).

    Returns
    -------
    float64 array (``numpy.float64`` for scalar input); :math:`p_c \ge 2`.

    Notes
    -----
    The root of the increasing load is bracketed between integers and found by bisection
    in real :math:`p` to the last bit (:func:`lamcap.theory._interpolation.increasing_root`).
    The Gaussian :math:`\mathbb{E}[C_p]` at real :math:`p` is the interpolant behind
    :func:`lamcap.statistical_dimension` (relative error 2e-15 for :math:`16 \le p \le
    10^{18}`, cubic in :math:`\log p` elsewhere, 1e-8), so :math:`p_c` is good to about
    1e-14 relative there; the law of :math:`C_p` for ``accuracy < 1`` is interpolated
    with error 1e-7 (:mod:`lamcap.theory._cost_law`), so :math:`p_c(f)` is good to about
    1e-7.  The unit-norm cost is exact to 3e-9 relative and takes a few seconds per ``d``.
    Reference: arXiv:2605.10795; docs/theory/capacity.md (d = 12 gives about 40).

    Examples
    --------
    >>> round(float(critical_p(12)), 3)
    39.997
    >>> [round(float(q), 2) for q in critical_p([8, 16], kappa=0.5)]
    [20.7, 56.93]
    >>> round(float(critical_p(12, embeddings='sphere')), 2)
    42.12
    >>> round(float(critical_p(64, accuracy=0.99)), 1)  # critical_p(64) is 564.4
    581.2
    """
    if check_dps(dps) is not None:
        msg = (
            f"critical_p has no dps route (got dps={plain(dps)}): p_c is a real p and "
            "E[C_p] between integers is an interpolant in log p, exact only at integers"
        )
        raise ValueError(msg)

    model = cost_model(embeddings)
    accuracies = check_accuracy(accuracy)
    sizes = model.check_dimensions(d, kappa, "critical_p")
    widths = full_rank_width(d, kappa)
    if np.ndim(accuracy) == 0:
        fraction = float(accuracies)
        return elementwise(lambda w, size: model.critical_p(w, fraction, int(size)), widths, sizes)
    return elementwise(
        lambda w, f, size: model.critical_p(w, float(f), int(size)),
        widths,
        accuracies,
        sizes,
        names=("d and kappa", "accuracy", "d"),
    )


#: :func:`critical_p` without the :class:`~lamcap.theory.ExtrapolationWarning`, for lamcap's
#: own uses at any d (the spectrum law's load range, the law curves of the figures), where
#: the extrapolation is the caller's to state.
quiet_critical_p = inspect.unwrap(critical_p)
