r"""Cost models: one object per kind of embeddings, the ground floor of the capacity laws.

Every finite-size law of lamcap charges each association a random cost :math:`C_p`, the
squared distance of its score vector to the recall cone (docs/theory/cone.md), and
compares the total with the :math:`w^2` dimensions of the map (:math:`w^2 = d^2` at
full rank, docs/theory/capacity.md): the capacity is the real :math:`p` with

.. math::

    p\,\mathbb{E}[C_p] = w^2 \quad\text{(all recalled)}, \qquad
    p\,\mathbb{E}[C_p;\ C_p < q_f(p)] = w^2 \quad\text{(a fraction } f\text{ recalled)},

:math:`q_f` the :math:`f`-quantile of :math:`C_p` (docs/theory/partial-recall.md), and
the Crofton curve and the accuracy follow from the same law.  What changes
from one kind of embeddings to another is only that law.  A :class:`CostModel` holds
it, with what goes with it: the argument checks, the mean :math:`\mathbb{E}[C_p]` at
integer and real p, the partial-recall load, the factor on the budget that maps its
law onto the Gaussian shape, and the one root search that turns a load into a
critical p.  :func:`lamcap.critical_p`, :func:`lamcap.feasibility_probability`,
:func:`lamcap.best_accuracy` and :func:`lamcap.statistical_dimension` ask
:func:`cost_model` for the model named by their ``embeddings`` argument and never test
that name themselves.

Models (:data:`COST_MODELS`):

* :class:`GaussianCosts` (``"gaussian"``): scores :math:`g \sim N(0, I_p)`,
  :math:`\mathbb{E}[C_p]` the exact statistical dimension (docs/theory/cone.md).
* :class:`UnitNormCosts` (``"sphere"``): outputs uniform on the unit sphere, the cost
  :math:`C_p(d)` of docs/theory/unit-norm.md, its law the Gaussian one scaled to that
  mean.

A new kind of embeddings is one new subclass (its mean cost at integer and real p,
its checks and its status) registered in :data:`COST_MODELS`; the sketch is on
docs/architecture.md ("Adding a kind of embeddings").
"""

from __future__ import annotations

import functools
import math
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import (
    check_choice,
    check_dps,
    check_finite_array,
    check_integer_array,
    check_kappa,
    plain,
)
from lamcap.theory._arrays import broadcast, float_result
from lamcap.theory._cone import (
    _interpolate,
    _table_nodes,
    gaussian_statistical_dimension,
    statistical_dimension_float,
)
from lamcap.theory._cost_law import P_LIMIT, active_set_law_at, gaussian_partial_load, law_mean
from lamcap.theory._interpolation import increasing_root, interpolate_in_log_p
from lamcap.theory._status import REPLICA_SYMMETRIC, LawStatus
from lamcap.theory._unit_norm import MIN_DIMENSION, unit_norm_dimension, unit_norm_dimension_at
from lamcap.theory._width import check_square_fits

FloatArray = NDArray[np.float64]

#: Interpolation grid of the Gaussian mean cost at real p outside its table: every integer
#: up to 20, then integers rounded from 20 * 1.1**j (spacing <= 10 % of p).
_MEAN_GRID_RATIO: Final[float] = 1.1


@functools.lru_cache(maxsize=4096)
def _gaussian_mean_at_node(p: int) -> float:
    """Cached float64 :math:`\\mathbb{E}[C_p]` at an integer ``p`` (exact quadrature)."""
    return float(gaussian_statistical_dimension(p))


def interpolated_gaussian_mean(p: float) -> float:
    """Cubic interpolation of :math:`\\mathbb{E}[C_p]` in log p through the 4 nearest grid nodes (ratio 1.1)."""
    return interpolate_in_log_p(_gaussian_mean_at_node, p, _MEAN_GRID_RATIO)


def gaussian_mean_at(p: float) -> float:
    r""":math:`\mathbb{E}[C_p]` at a real ``p >= 2``.

    For :math:`16 \le p \le 10^{18}` the interpolant in :math:`\log p` behind
    :func:`lamcap.statistical_dimension` (relative error 2e-15; it equals the integer
    values there); elsewhere :func:`interpolated_gaussian_mean` (cubic, 1e-8).
    """
    nodes = _table_nodes()
    if nodes[0] <= p <= nodes[-1]:
        return float(_interpolate(np.array([p], dtype=np.float64))[0])
    return interpolated_gaussian_mean(p)


class CostModel(ABC):
    r"""The law of the cost :math:`C_p` of one association for one kind of embeddings.

    Subclasses set the class attributes and implement :meth:`mean_cost` and
    :meth:`mean_cost_at`; everything else has a default built from those two and the
    Gaussian law: the law of :math:`C_p` is taken to be the Gaussian chi-bar-squared
    law scaled to the model's mean, which is the unit-norm model of
    docs/theory/partial-recall.md ("Unit-norm embeddings").

    Attributes
    ----------
    name : str
        The value of the ``embeddings`` argument that selects the model.
    description : str
        Words for reports and errors ("unit-norm embeddings").
    minimum_dimension : int
        Smallest ``d`` the model's law is computed for.
    full_rank_only : bool
        True when only ``kappa = 1`` has a law.
    status : str
        Status label of the capacity law built on the model: "exact", "asymptotic",
        "model with measured error" or "fitted".
    error_page : str
        The docs page where the law's error is measured (the numbers live there).
    measured_error : float or None
        Largest relative miss of the critical p against the certified decoupled
        transitions of docs/measurements/capacity.csv (a test recomputes it from there);
        None for an exact model.
    measured_d : tuple of int or None
        Smallest and largest d of those transitions.
    hebbian_law : bool
        True when lamcap has a finite-d law of the Hebbian rule for these embeddings.
    asymptotic_claims : bool
        True when arXiv:2605.10795's d → ∞ claims (α_c → 1/2, OP = DP) are made for these
        embeddings, so that experiments judge them on its cells.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    minimum_dimension: ClassVar[int] = 1
    full_rank_only: ClassVar[bool] = False
    status: ClassVar[str]
    error_page: ClassVar[str]
    measured_error: ClassVar[float | None] = None
    measured_d: ClassVar[tuple[int, int] | None] = None
    hebbian_law: ClassVar[bool] = False
    asymptotic_claims: ClassVar[bool] = False
    #: Largest p searched for a critical p below full recall (beyond: ValueError).
    partial_limit: ClassVar[float] = math.inf

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # ------------------------------------------------------------------ the law

    @abstractmethod
    def mean_cost(self, p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
        r""":math:`\mathbb{E}[C_p]` elementwise over broadcast integer arrays ``p`` and ``d``."""

    @abstractmethod
    def mean_cost_at(self, p: float, d: int) -> float:
        r""":math:`\mathbb{E}[C_p]` at a real ``p >= 2`` (interpolated in :math:`\log p`)."""

    def budget_scale(self, p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
        r"""The factor on :math:`w^2` that maps this model onto the Gaussian law.

        :math:`\mathbb{E}_{\mathrm{Gauss}}[C_p]/\mathbb{E}[C_p]` elementwise: the Crofton
        curve and the accuracy of the model are the Gaussian ones at the budget
        :math:`w^2` times this factor.
        """
        p_b, d_b = np.broadcast_arrays(p, d)
        gaussian = np.asarray(statistical_dimension_float(np.asarray(p_b)), dtype=np.float64)
        return np.asarray(gaussian / self.mean_cost(p_b, d_b), dtype=np.float64)

    def partial_load(self, p: float, accuracy: float, d: int) -> float:
        r""":math:`p\,\mathbb{E}[C_p;\ C_p < q_f]` at a real ``p``: the Gaussian one scaled to the mean.

        The Gaussian partial load times :math:`\mathbb{E}[C_p]/\mathbb{E}_{\mathrm{Gauss}}[C_p]`
        (the law of the cost interpolated in :math:`\log p` between integers).
        """
        law = active_set_law_at(p)
        return gaussian_partial_load(p, accuracy) * self.mean_cost_at(p, d) / law_mean(law)

    def load(self, p: float, accuracy: float, d: int) -> float:
        r"""Dimensions spent on ``p`` associations recalled at ``accuracy``: :math:`p\,\mathbb{E}[C_p]` at 1."""
        if accuracy == 1.0:
            return p * self.mean_cost_at(p, d)
        return self.partial_load(p, accuracy, d)

    # ------------------------------------------------------------------ the root

    def root_start(self, width_squared: float, accuracy: float, d: int) -> float:
        """Where the root search starts: the Gaussian critical p (any start is correct)."""
        return GAUSSIAN.critical_p(width_squared, accuracy, d)

    def critical_p(self, width_squared: float, accuracy: float, d: int) -> float:
        r"""The real :math:`p \ge 2` where :meth:`load` reaches ``width_squared``.

        The load increases in p; :func:`lamcap.theory._interpolation.increasing_root`
        brackets it between integers from :meth:`root_start` and bisects in real p to
        the last bit.  Below full recall the root must lie below :attr:`partial_limit`.
        """

        def excess(q: float) -> float:
            return self.load(float(q), accuracy, d) - width_squared

        limit = math.inf if accuracy == 1.0 else self.partial_limit
        if limit < math.inf and excess(limit) < 0.0:
            msg = (
                f"accuracy={plain(accuracy)} is still reached at p = {limit:.3g} at d={plain(d)}: "
                "the critical p lies beyond it, where lamcap does not compute the law "
                f"of C_p (the fraction never falls below the chance level 1/p, so an accuracy f "
                f"needs p above 1/f)"
            )
            raise ValueError(msg)
        return increasing_root(excess, self.root_start(width_squared, accuracy, d), limit)

    # ------------------------------------------------------------------ status

    def capacity_status(self, d: Any, kappa: Any = 1.0, accuracy: Any = 1.0) -> LawStatus:
        """The status of the capacity laws built on this model at ``d``, ``kappa``, ``accuracy``.

        Full rank and full recall: :attr:`status` with the measured error and range (and
        ``extrapolated`` when ``d`` lies outside); a rank ratio below 1 gives the
        Gordon-type upper bound of docs/theory/rank.md, an accuracy below 1 the
        replica-symmetric estimate of docs/theory/partial-recall.md: both asymptotic.
        """
        if np.any(np.asarray(accuracy, dtype=float) < 1.0):
            return REPLICA_SYMMETRIC
        if np.any(np.asarray(kappa, dtype=float) < 1.0):
            return LawStatus(
                "asymptotic",
                error="the Gordon-type upper bound: the rank-constrained trainer's transitions "
                "lie below it",
                page="docs/measurements/capacity.md",
            )
        if self.measured_error is None:
            return LawStatus(self.status, page=self.error_page)
        return LawStatus(
            self.status,
            error=f"measured transitions within {100 * self.measured_error:.1f}% of it",
            relative_error=self.measured_error,
            measured_d=self.measured_d,
            page=self.error_page,
        ).at(d)

    # ------------------------------------------------------------------ arguments

    def check_dimensions(self, d: Any, kappa: Any, where: str) -> NDArray[Any]:
        """``d`` as an integer array the model has a law for, ``kappa`` allowed, else ValueError."""
        if d is None:
            msg = (
                f"d is required by {where} with embeddings={self.name!r} (the cost of "
                f"{self.description} depends on the dimension), got d=None; pass an integer "
                f"d >= {self.minimum_dimension}"
            )
            raise ValueError(msg)
        sizes = check_integer_array("d", d, minimum=self.minimum_dimension)
        if self.full_rank_only and np.any(np.asarray(check_kappa(kappa)) != 1.0):
            msg = (
                f"kappa must be 1 with embeddings={self.name!r} (full rank only), "
                f"got {plain(kappa)}"
            )
            raise ValueError(msg)
        check_square_fits(sizes, sizes.astype(np.float64))
        return sizes

    def statistical_dimension(self, p: ArrayLike, *, d: ArrayLike | None, **options: Any) -> Any:
        """:func:`statistical_dimension` for this model: margin 0, exact, float64 only.

        ``options`` are those of :func:`statistical_dimension` (``margin``, ``dps``,
        ``method``, ``samples``, ``seed``).
        """
        dimensions = self.check_dimensions(d, 1.0, "statistical_dimension")
        margin, dps, method = options["margin"], options["dps"], options["method"]
        margins = check_finite_array("margin", margin, minimum=0.0)
        if np.any(margins != 0.0) or check_dps(dps) is not None or method != "exact":
            msg = (
                f"embeddings={self.name!r} has only margin=0, dps=None and method='exact', "
                f"got margin={plain(margin)}, dps={plain(dps)}, method={method!r}"
            )
            raise ValueError(msg)
        p_array, d_array = broadcast(
            check_integer_array("p", p, minimum=2), dimensions, names=("p", "d")
        )
        return float_result(self.mean_cost(p_array, d_array))


class GaussianCosts(CostModel):
    r"""Gaussian embeddings: scores :math:`g \sim N(0, I_p)`, the exact chi-bar-squared law.

    :math:`\mathbb{E}[C_p]` is the statistical dimension of the recall cone
    (docs/theory/cone.md; float64 relative error 2e-15 for :math:`p \le 10^{18}`) and
    the law of :math:`C_p` the chi-bar-squared mixture over the active-set law
    (:mod:`lamcap.theory._cost_law`).  The cost does not depend on ``d``.  Status of
    the capacity law built on it (decoupled problem): model with measured error
    (docs/measurements/capacity.md).

    Examples
    --------
    >>> model = cost_model("gaussian")
    >>> round(model.mean_cost_at(1000.0, 12), 10)
    8.1202378064
    """

    name = "gaussian"
    description = "Gaussian embeddings"
    status = "model with measured error"
    error_page = "docs/measurements/capacity.md"
    measured_error = 0.014
    measured_d = (8, 96)
    hebbian_law = True
    asymptotic_claims = True
    partial_limit = P_LIMIT

    def mean_cost(self, p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
        p_b, _ = np.broadcast_arrays(p, d)
        return statistical_dimension_float(np.asarray(p_b))

    def mean_cost_at(self, p: float, d: int) -> float:  # noqa: ARG002 - no d dependence
        return gaussian_mean_at(p)

    def budget_scale(self, p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
        return np.ones(np.broadcast_shapes(np.shape(p), np.shape(d)))

    def partial_load(self, p: float, accuracy: float, d: int) -> float:  # noqa: ARG002 - no d
        return gaussian_partial_load(p, accuracy)

    def root_start(self, width_squared: float, accuracy: float, d: int) -> float:
        """Full recall: a fixed point of :math:`p = w^2/(1.2\\log p)`; below it, the full root."""
        if accuracy < 1.0:
            return self.critical_p(width_squared, 1.0, d)
        guess = max(2.0, width_squared / 2.0)
        for _ in range(8):
            guess = max(2.0, width_squared / (1.2 * math.log(max(guess, 3.0))))
        return guess

    def check_dimensions(self, d: Any, kappa: Any, where: str) -> NDArray[Any]:
        del kappa, where  # every rank has a law (kappa is checked with the width)
        sizes = check_integer_array("d", d, minimum=1)
        check_square_fits(sizes, sizes.astype(np.float64))
        return sizes

    def statistical_dimension(self, p: ArrayLike, *, d: ArrayLike | None, **options: Any) -> Any:
        del d  # the Gaussian cost does not depend on the dimension
        return gaussian_statistical_dimension(p, **options)


class UnitNormCosts(CostModel):
    r"""Unit-norm embeddings: outputs uniform on :math:`S^{d-1}`, the cost :math:`C_p(d)`.

    :math:`C_p(d) = \mathbb{E}\operatorname{dist}(\sqrt d\,s, K)^2` with :math:`s` iid
    coordinates of a uniform point on the sphere (docs/theory/unit-norm.md; quadrature
    exact to 3e-9 relative), interpolated in :math:`\log p` between integers; its law
    the Gaussian one scaled to that mean.  Full rank, ``d >= 4``.  Status of the
    capacity law built on it: model with measured error (docs/theory/unit-norm.md).

    Examples
    --------
    >>> model = cost_model("sphere")
    >>> round(model.mean_cost_at(22.0, 8), 8)
    2.68885723
    """

    name = "sphere"
    description = "unit-norm embeddings"
    minimum_dimension = MIN_DIMENSION
    full_rank_only = True
    status = "model with measured error"
    error_page = "docs/theory/unit-norm.md"
    measured_error = 0.027
    measured_d = (8, 64)

    def mean_cost(self, p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
        return unit_norm_dimension(p, d)

    def mean_cost_at(self, p: float, d: int) -> float:
        return unit_norm_dimension_at(p, d)


#: The Gaussian model, also the start of every other model's root search.
GAUSSIAN: Final[CostModel] = GaussianCosts()

#: Every cost model by the ``embeddings`` value that selects it.
COST_MODELS: Final[dict[str, CostModel]] = {
    model.name: model for model in (GAUSSIAN, UnitNormCosts())
}


def cost_model(embeddings: str) -> CostModel:
    """The :class:`CostModel` named by ``embeddings``, else ``ValueError`` naming the choices.

    Examples
    --------
    >>> cost_model("sphere").description
    'unit-norm embeddings'
    """
    return COST_MODELS[check_choice("embeddings", embeddings, tuple(COST_MODELS))]


def statistical_dimension(
    p: ArrayLike,
    *,
    margin: float = 0.0,
    dps: int | None = None,
    method: str = "exact",
    samples: int | None = None,
    seed: int | None = None,
    d: ArrayLike | None = None,
    embeddings: str = "gaussian",
) -> Any:
    r"""Statistical dimension :math:`\mathbb{E}[C_p] = \mathbb{E}\operatorname{dist}(g, K_m)^2`.

    .. math::

        \mathbb{E}[C_p] = \mathbb{E}|A| = (p - 1)\int \varphi(y)\,
        P\Big(g + \sum_{i=1}^{p-2}(Z_i - y)_+ < y\Big)\,dy \qquad (m = 0).

    With margin :math:`m > 0` (the cone :math:`K_m = \{\lambda_t \ge \lambda_\rho + m\}`,
    i.e. competitors must sit ``m`` below the target, in units of the score
    spread), Stein's identity for the projection onto the convex set
    :math:`K_m` gives

    .. math::

        \mathbb{E}\operatorname{dist}(g, K_m)^2 = \mathbb{E}|A|_m + m\,\mathbb{E}[\ell^* - g_t],

    where :math:`|A|_m` counts the competitors pulled down and :math:`\ell^*` is
    the projected target score (law: :func:`~lamcap.theory._hinge_sums.target_level_cdf`, public as ``score_law(p).target``).
    At :math:`p = 2` this is Gardner's :math:`\int_{-\kappa_G}^\infty Dz\,(z + \kappa_G)^2`
    with the stability :math:`\kappa_G = m/\sqrt2`.

    Status: exact. :math:`\mathbb{E}\operatorname{dist}(g, K_m)^2` of the recall cone for a
    standard Gaussian :math:`g`, to the precision stated under ``method`` (float64 relative
    error below ``2e-15`` at margin 0 for :math:`p \le 10^{18}`). ``method="monte_carlo"``
    returns an estimate with its standard error instead, and ``method="asymptotic"`` the
    asymptotic series of :func:`lamcap.statistical_dimension_series`.

    Parameters
    ----------
    p : int or array_like of int
        Number of outputs, ``p >= 2`` (vectorised): any integer up to the float64
        range (about ``1.8e308``), also beyond int64 (``10**100``), or an
        integral float (``1e300``); beyond it ``ValueError``.
    margin : float or array_like, optional
        :math:`m \ge 0`; broadcasts with ``p``.
    dps : int, optional
        ``method="exact"`` only: return mpmath numbers good to ``dps``
        significant digits (verified at ``dps=30`` against closed forms and
        ``dps=40``; about 2-5 s per value at ``dps=30`` for any ``p`` up to
        ``1e9``, with ``margin > 0`` about twice that).
    method : {"exact", "monte_carlo", "asymptotic"}
        ``"exact"``: deterministic.  In float64 with margin 0, tabulated values
        and their interpolant in :math:`\log p` for ``p <= 1e18`` (relative error
        below ``2e-15`` against ``dps=30``, module docstring), the quadrature beyond
        (``3e-12`` relative at ``p = 1e100``); with a margin, the quadrature
        (relative error below ``1e-12`` for ``2 <= p <= 1e9``).
        ``"monte_carlo"``: sampling only the top order statistics of the
        ``p - 1`` competitors; returns :class:`MonteCarloEstimate`.
        ``"asymptotic"``: the large-``p`` series of
        :func:`lamcap.theory.statistical_dimension_series` (``margin=0``).
    samples, seed : int, optional
        Monte Carlo sample count (default 100 000, at most 10**8) and seed.
    d : int or array_like of int, optional
        Dimension; required (``>= 4``) by ``embeddings='sphere'``, broadcast with ``p``.
    embeddings : str
        The cost model (:data:`COST_MODELS`, default ``'gaussian'``).  ``'sphere'``: the
        cost for unit-norm outputs, :math:`C_p(d) = \mathbb{E}\operatorname{dist}(\sqrt d\,s, K)^2`
        with :math:`s` iid coordinates of a uniform point on :math:`S^{d-1}`
        (docs/theory/unit-norm.md: the quadrature is exact to ``3e-9`` relative; its use as
        the cost of an association is a model with measured error).  Margin 0,
        ``method="exact"`` and float64 only; about 1-3 s per value, cached.

    Returns
    -------
    numpy.float64, ndarray, mpmath.mpf (object array) or MonteCarloEstimate
        Shaped like ``p`` and ``margin`` broadcast together, ``numpy.float64``
        (``mpf``) when both are scalars (array contract: docs/howto/precision.md);
        a :class:`MonteCarloEstimate` holds its means and standard errors that way.

    References
    ----------
    arXiv:2605.10795; docs/theory/cone.md, facts 1 and 5; docs/theory/mechanism.md
    (margin); Amelunxen, Lotz, McCoy, Tropp (2014), *Living on the edge*.

    Examples
    --------
    >>> print(f"{statistical_dimension(2):.12f}")
    0.500000000000
    >>> print(f"{statistical_dimension(1000):.10f}")
    8.1202378064
    >>> print(f"{statistical_dimension(22, d=8, embeddings='sphere'):.8f}")
    2.68885723
    """
    return cost_model(embeddings).statistical_dimension(
        p, d=d, margin=margin, dps=dps, method=method, samples=samples, seed=seed
    )
