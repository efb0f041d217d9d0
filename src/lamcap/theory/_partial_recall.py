r"""Recall below 100%: the best accuracy beyond capacity and the bits it stores.

docs/theory/partial-recall.md.  For one association, :math:`C_p = \operatorname{dist}(g, K)^2`
(:math:`g \sim N(0, I_p)`, :math:`K` the recall cone, docs/theory/cone.md) is the squared
norm of the projection of :math:`g` onto the polyhedral polar cone, so given the
dimension :math:`|A| = k` of the face it lands in it is a :math:`\chi^2_k`
variable and

.. math::

    P(C_p \le x) = \sum_{k \ge 0} P(|A| = k)\, P(\chi^2_k \le x)
    \qquad (\chi^2_0 = 0),

the chi-bar-squared law over the active-set law of :func:`lamcap.active_set_law`.
The replica-symmetric ground state of "number of associations not recalled" (in the
manner of Gardner and Derrida's minimal error fraction of the perceptron) gives up
every association whose cost exceeds a threshold :math:`\tau`, fixed by the budget
of :math:`w^2` dimensions (:math:`w^2 = d^2` at full rank):

.. math::

    n\,\mathbb{E}[C_p;\ C_p < \tau] = w^2, \qquad f = P(C_p < \tau),

and :math:`f = 1` when :math:`n\,\mathbb{E}[C_p] \le w^2` (the capacity threshold).

Numerics.  With :math:`w_k = P(|A| = k)` and
:math:`\mathbb{E}[\chi^2_k;\ \chi^2_k < x] = k\,P(\chi^2_{k+2} < x)`, both sides are
finite sums of regularised incomplete gamma functions (``scipy.special.gammainc``,
relative error about 1e-15); :math:`\tau` is found by bisection in :math:`\log\tau`
to the last bit.  At integer ``p`` the weights are the exact law (absolute error about
1e-15 per entry, :func:`lamcap.active_set_law`); at a real ``p`` (the root of
:func:`critical_p` with ``accuracy < 1``) they are the cubic interpolation in
:math:`\log p` of the exact laws on the grid of :mod:`lamcap.theory._cost_law`
(integers up to 20, then :math:`20\cdot 1.05^j`; law error 1e-7 at p = 25, 4e-10 at
p = 6000).
"""

from __future__ import annotations

import math
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap._sizes import format_integer
from lamcap._validation import check_accuracy, check_integer_array
from lamcap.theory._arrays import broadcast, float_result
from lamcap.theory._cone import statistical_dimension_float
from lamcap.theory._cost_law import (
    LOG_TAU_FLOOR,
    chi_bar_cdf,
    chi_bar_partial_mean,
    exact_active_set_law,
    law_mean,
    log_bisect,
    upper_point,
)
from lamcap.theory._cost_models import cost_model
from lamcap.theory._status import REPLICA_SYMMETRIC, LawStatus, with_status
from lamcap.theory._width import full_rank_width

FloatArray = NDArray[np.float64]

#: The laws of |A| are computed for p below this (int64 tables of active_set_law).
_LAW_LIMIT: Final[int] = 2**63
#: Relative slack on E[C_p] when f = 1 is decided without the law.
_MEAN_SLACK: Final[float] = 1e-12
_LN2: Final[float] = math.log(2.0)


# --------------------------------------------------------------------------- best_accuracy


def _fraction_from_law(law: FloatArray, budget: FloatArray) -> FloatArray:
    r"""RS accuracy for each per-association budget :math:`w^2/n` (one law)."""
    mean = law_mean(law)
    result = np.ones(budget.shape)
    open_ = budget < mean
    if not np.any(open_):
        return result
    target = budget[open_]

    def partial(x: FloatArray) -> FloatArray:
        return chi_bar_partial_mean(law, x)

    high = upper_point(partial, target, mean)
    tau = log_bisect(partial, target, LOG_TAU_FLOOR, high)
    result[open_] = np.clip(chi_bar_cdf(law, tau), 0.0, 1.0)
    return result


def _recall_fraction_status(**_: Any) -> LawStatus:
    """:func:`best_accuracy`'s status: the replica-symmetric estimate at every argument."""
    return REPLICA_SYMMETRIC


@with_status(_recall_fraction_status)
def best_accuracy(
    d: ArrayLike,
    p: ArrayLike,
    n: ArrayLike | None = None,
    *,
    kappa: ArrayLike = 1.0,
    embeddings: str = "gaussian",
) -> Any:
    r"""Largest fraction of ``n`` associations that the best :math:`W` recalls (decoupled, Gaussian).

    .. math::

        f = P(C_p < \tau), \qquad n\,\mathbb{E}[C_p;\ C_p < \tau] = w_r^2,
        \qquad f = 1 \text{ if } n\,\mathbb{E}[C_p] \le w_r^2,

    with :math:`C_p = \operatorname{dist}(g, K)^2` the cost of one association (its law
    is the chi-bar-squared mixture :math:`\sum_k P(|A| = k)\,\chi^2_k` of the active-set
    law, docs/theory/cone.md) and :math:`w_r^2 = d^2` at full rank.  The best
    :math:`W` gives up the associations whose cost exceeds :math:`\tau` and spends the
    :math:`w_r^2` dimensions on the rest (docs/theory/partial-recall.md).  At
    :math:`f = 1` the condition is the capacity threshold of :func:`lamcap.critical_p`;
    with :math:`n = p` and :math:`p \to \infty` at fixed load :math:`\alpha = p\log p/d^2`,
    :math:`f \to \min(1, 1/(2\alpha))`.

    Status: asymptotic. The zero-temperature replica-symmetric limit :math:`d \to \infty` at
    fixed :math:`n/d^2` and :math:`p` of the Gaussian model of the decoupled problem (Gaussian
    equivalence assumed, as for :func:`lamcap.feasibility_probability`); replica symmetry is
    not expected to hold beyond capacity, and a Gordon comparison argument makes :math:`f` an
    upper bound on the best accuracy.  Measured error: a few points above the certified best
    fractions at d = 8-64 (never contradicted, not pinned), more at d = 6
    (docs/measurements/recall-fraction.md).  Numerically: absolute error below 1e-13 for p
    up to 1e3, about 1e-11 at p = 1e9 (set by the law of :math:`|A|`).

    Parameters
    ----------
    d : int or array of int >= 1
        Dimension.
    p : int or array of int >= 2
        Outputs per association (below :math:`2^{63}` unless :math:`f = 1`).
    n : int or array of int >= 1, optional
        Number of associations; default ``n = p``.
    kappa : float or array in (0, 1]
        Rank ratio: the budget is :math:`w_r^2` (:func:`lamcap.gaussian_width_squared`)
        instead of :math:`d^2`, the Gordon-type replacement of docs/theory/rank.md.
        ``d``, ``p``, ``n`` and ``kappa`` broadcast together.
    embeddings : str
        The cost model (:data:`lamcap.theory.COST_MODELS`, default ``'gaussian'``).  Another
        model enters through its law of :math:`C_p`, the Gaussian one scaled to its mean,
        i.e. the budget :math:`w_r^2\,\mathbb{E}_{\mathrm{Gauss}}[C_p]/\mathbb{E}[C_p]` in the
        equations above (``CostModel.budget_scale``).  ``'sphere'``: unit-norm embeddings
        (``d >= 4``, full rank); asymptotic like the Gaussian value, its scaling checked
        against Monte Carlo costs (docs/theory/partial-recall.md, "Unit-norm embeddings").

    Returns
    -------
    float64 array (``numpy.float64`` for scalar input), values in :math:`[1/p, 1]`.

    Notes
    -----
    :math:`\tau` solves the budget equation by bisection in :math:`\log\tau`; both sides are
    sums of regularised incomplete gamma functions over the active-set law (module
    docstring).  Where :math:`n\,\mathbb{E}[C_p] \le w_r^2` the result is 1 without the
    law, for any ``p``; otherwise ``p`` must be below :math:`2^{63}` (else ``ValueError``).
    About 0.1 s per distinct ``p`` (one :func:`lamcap.active_set_law`, cached).
    The fraction alone is returned, no interval: the finite-:math:`n` order-statistics
    version of the same picture has a spread, but at full recall it is wider than the
    Crofton law (an identity for the Gaussian model), so it is not a finite-:math:`d` law
    (docs/theory/partial-recall.md, "Finite n").
    Reference: arXiv:2605.10795 (the cone picture); docs/theory/partial-recall.md.

    Examples
    --------
    >>> float(best_accuracy(64, 500))  # below critical_p(64), about 564
    1.0
    >>> round(float(best_accuracy(64, 1129)), 4)  # twice critical_p(64)
    0.6743
    >>> round(float(best_accuracy(2, 2, n=16)), 4)  # Gardner-Derrida RS at a = n/d^2 = 4
    0.938
    """
    outputs = check_integer_array("p", p, minimum=2)
    associations = outputs if n is None else check_integer_array("n", n, minimum=1)
    model = cost_model(embeddings)
    sizes = model.check_dimensions(d, kappa, "best_accuracy")
    width = full_rank_width(d, kappa)
    outputs_b, associations_b, width_b, sizes_b = broadcast(
        outputs, associations, width, sizes, names=("p", "n", "d and kappa", "d")
    )
    budget = np.asarray(width_b, dtype=np.float64) / np.asarray(associations_b, dtype=np.float64)
    budget = budget * model.budget_scale(outputs_b, sizes_b)
    result = np.empty(outputs_b.shape)
    flat_outputs, flat_budget, flat_result = outputs_b.ravel(), budget.ravel(), result.reshape(-1)
    distinct = list(dict.fromkeys(flat_outputs.tolist()))
    big = any(q >= _LAW_LIMIT for q in distinct)
    means = statistical_dimension_float(np.array(distinct, dtype=object if big else np.int64))
    for q, mean in zip(distinct, means.tolist(), strict=True):
        rows = np.flatnonzero(flat_outputs == q)
        decided = flat_budget[rows] >= mean * (1.0 + _MEAN_SLACK)
        flat_result[rows[decided]] = 1.0
        rows = rows[~decided]
        if rows.size == 0:
            continue
        if q >= _LAW_LIMIT:
            msg = (
                f"p must be an integer in [2, 2**63 - 1] for best_accuracy below full recall "
                f"(the law of |A| is computed in int64), got p = {format_integer(int(q))} with "
                f"n E[C_p] above the budget d^2"
            )
            raise ValueError(msg)
        flat_result[rows] = _fraction_from_law(exact_active_set_law(int(q)), flat_budget[rows])
    return float_result(result)


#: The name :func:`best_accuracy` had before this release, served with a
#: ``DeprecationWarning`` by :mod:`lamcap` and :mod:`lamcap.theory` (docs/vocabulary.md).
recall_fraction = best_accuracy


# --------------------------------------------------------------------------- information


def symmetric_channel_bits(p: ArrayLike, accuracy: ArrayLike) -> FloatArray:
    r"""Mutual information (bits) of a p-ary symmetric channel with success probability ``f``.

    .. math::

        I = \log_2 p - h_2(f) - (1 - f)\log_2(p - 1)
          = \frac{f\log(pf) + (1-f)\log\big((1-f)\tfrac{p}{p-1}\big)}{\log 2},

    the second form free of cancellation for large ``p``.

    Examples
    --------
    >>> float(symmetric_channel_bits(2, 1.0)), float(symmetric_channel_bits(4, 0.25))
    (1.0, 0.0)
    """
    q = np.asarray(p, dtype=np.float64)
    a = np.asarray(accuracy, dtype=np.float64)
    wrong = 1.0 - a
    nats = (
        special.xlogy(a, a)
        + a * np.log(q)
        + special.xlogy(wrong, wrong)
        - wrong * np.log1p(-1.0 / q)
    )
    return np.maximum(nats, 0.0) / _LN2  # type: ignore[no-any-return,unused-ignore]


def information_per_parameter(
    d: ArrayLike,
    p: ArrayLike,
    accuracy: ArrayLike | None = None,
    n: ArrayLike | None = None,
    *,
    embeddings: str = "gaussian",
) -> Any:
    r"""Bits stored per weight by a memory that recalls a fraction ``accuracy`` of ``n`` associations.

    .. math::

        \frac{n}{d^2}\Big[\log_2 p - h_2(f) - (1 - f)\log_2(p - 1)\Big],
        \qquad h_2(f) = -f\log_2 f - (1-f)\log_2(1-f),

    the mutual information between a uniform target and the recalled output when the
    recalled output is the target with probability :math:`f` and otherwise one of the
    :math:`p - 1` others at random (a memoryless p-ary symmetric channel), times ``n``
    associations, per weight of a full-rank :math:`d\times d` matrix.  At :math:`f = 1`
    and :math:`n = p = p_c` it is :math:`p_c\log_2 p_c/d^2 = \alpha_c(p)/\log 2`, which
    tends to :math:`1/(2\log 2) \approx 0.7213` bits per weight
    (docs/theory/partial-recall.md).

    Status: asymptotic. With ``accuracy=None`` the fraction is :func:`best_accuracy`, the
    replica-symmetric :math:`d \to \infty` estimate of the best :math:`W` (an estimate from
    above, measured as a bracket; docs/measurements/recall-fraction.md). With a given ``accuracy`` the value is
    an exact count under the symmetric-channel assumption (errors spread evenly over the
    wrong outputs, independently across associations); it does not check that the accuracy
    is reachable.

    Parameters
    ----------
    d : int or array of int >= 1
        Dimension; the parameter count is :math:`d^2` (full rank only).
    p : int or array of int >= 2
        Outputs per association.
    accuracy : float or array in (0, 1], optional
        Fraction of associations recalled; default the predicted best,
        ``best_accuracy(d, p, n)``.
    n : int or array of int >= 1, optional
        Number of associations; default ``n = p``.  ``d``, ``p``, ``accuracy`` and ``n``
        broadcast together.
    embeddings : str
        The cost model of the default accuracy (:data:`lamcap.theory.COST_MODELS`, default
        ``'gaussian'``): ``best_accuracy(d, p, n, embeddings=embeddings)``.  A given
        ``accuracy`` is counted the same way for every kind of embeddings (its ``d`` is
        still checked by the model).

    Returns
    -------
    float64 array (``numpy.float64`` for scalar input): bits per weight.

    Notes
    -----
    The formula is evaluated in the cancellation-free second form of
    :func:`symmetric_channel_bits` (relative error a few ulp).  Reference: arXiv:2605.10795;
    docs/theory/partial-recall.md.

    Examples
    --------
    >>> round(float(information_per_parameter(64, 564)), 4)  # at capacity: p log2 p / d^2
    1.2585
    >>> round(float(information_per_parameter(64, 1129)), 4)  # twice p_c, best accuracy 0.674
    1.634
    >>> round(float(information_per_parameter(64, 1129, accuracy=0.5)), 4)
    1.1221
    >>> round(float(information_per_parameter(12, 60, embeddings='sphere')), 4)  # Gaussian: 1.7824
    1.8809
    """
    outputs = check_integer_array("p", p, minimum=2)
    associations = outputs if n is None else check_integer_array("n", n, minimum=1)
    sizes = cost_model(embeddings).check_dimensions(d, 1.0, "information_per_parameter")
    if accuracy is None:
        fraction = np.asarray(best_accuracy(d, p, n, embeddings=embeddings), dtype=np.float64)
    else:
        fraction = check_accuracy(accuracy)
    outputs_b, associations_b, sizes_b, fraction_b = broadcast(
        outputs, associations, sizes, fraction, names=("p", "n", "d", "accuracy")
    )
    dimension = np.asarray(sizes_b, dtype=np.float64)
    density = np.asarray(associations_b, dtype=np.float64) / dimension / dimension
    bits = symmetric_channel_bits(np.asarray(outputs_b, dtype=np.float64), fraction_b)
    with np.errstate(over="ignore"):  # beyond the float64 range the count is inf
        return float_result(density * bits)
