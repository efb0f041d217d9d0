r"""Law of the normalised scores at the optimum: :math:`\Pi_{K_m}(g)`, :math:`g \sim N(0, I_p)`.

docs/theory/mechanism.md (scores at and below capacity; arXiv:2605.10795).  Per
association the normalised score vector of the max-margin memory is
distributed as the projection of a standard Gaussian vector onto
:math:`K_m = \{\lambda_t \ge \lambda_\rho + m\}` (:math:`m = 0` at capacity,
:math:`m =` :func:`lamcap.theory.margin.max_margin` below).  Write the
shifted competitors :math:`c_\rho = g_\rho + m` and :math:`n = p - 1`.  The
projection moves the target to the level :math:`\ell^*` solving
:math:`\ell = g_t + \sum_\rho (c_\rho - \ell)_+`, pulls the active
competitors (:math:`c_\rho > \ell^*`) to :math:`\ell^* - m` and leaves the
others.  Reported quantities, in units of the competitor spread:

* ``target`` — the target score :math:`\ell^*`;
* ``competitor`` — the largest *remaining* (inactive) competitor
  :math:`Y = \max\{g_\rho : c_\rho \le \ell^*\}`, :math:`-\infty` if all are
  active (an atom of mass :math:`P(|A| = n)`);
* ``gap`` — :math:`\Gamma = \ell^* - Y \ge m` (:math:`+\infty` with the same atom);
* ``active`` — :math:`|A|`, the number of competitors tied with the target.

*Exact joint law.*  Conditionally on :math:`(\ell^*, |A|) = (\ell, k)` the
:math:`n - k` inactive competitors are i.i.d. :math:`N(m, 1)` truncated to
:math:`(-\infty, \ell]` (their only constraint), and the active block has
density :math:`q_k(\ell) = (1+k)\,E[\varphi(\ell - \sum_{i\le k} e_i)]`,
:math:`e_i = c_i - \ell > 0`.  Fourier inversion in the :math:`e`-sum and the
binomial theorem over :math:`k` give, for :math:`a = \Phi(y)`,
:math:`y \le \ell - m`,

.. math::

    \frac{\partial}{\partial \ell} P(\ell^* \le \ell,\ Y \le y) =
    \frac{1}{2\pi}\int e^{-t^2/2 + it\ell}
    \big[S^n + n\,\bar\chi\,S^{n-1}\big]\,dt, \qquad S = a + \bar\chi(t),

with :math:`\chi(t) = \int_0^\infty \varphi(\ell - m + e)e^{ite}de =
\varphi(b)\sqrt{\pi/2}\,w\big((t + ib)/\sqrt2\big)`, :math:`b = \ell - m`,
:math:`w` the Faddeeva function.  :math:`a = \Phi(\ell - m)` gives the
density of :math:`\ell^*`; the joint law gives the laws of :math:`Y` and of
:math:`\Gamma` by one more integral over :math:`\ell`, and
:math:`P(|A| = k) = \int \binom nk \Phi(\ell-m)^{n-k} q_k(\ell)\,d\ell`.

*Quadrature.*  The :math:`t`-integral by the trapezoid rule on
:math:`|t| \le 12` (truncation :math:`e^{-72}`), with a step (at most 0.05)
whose aliasing period exceeds the spread of the hinge sums at the lowest level
considered, the :math:`\ell`-integral by
composite Gauss–Legendre (24 panels of 16 nodes) over the range outside
which :math:`\ell^*` has mass below ``1e-16`` on either side (rigorous bounds).  Absolute
accuracy about ``1e-12`` for probabilities (checked against
:func:`lamcap.theory.hinge_sums.target_level_cdf` and
:func:`lamcap.theory.cone.active_set_law`, which use an independent inversion),
for ``p`` up to a few thousand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from lamcap._cone_kernel import hinge_moments, level_range, sample_top_projection
from lamcap._validation import check_finite_array, check_integer, check_real
from lamcap.geometry import project_onto_cone
from lamcap.theory.hinge_sums import target_level_cdf

__all__ = ["ScoreLaw", "ScoreSample", "sample_scores", "score_law"]

FloatArray = NDArray[np.float64]
ComplexArray = NDArray[np.complex128]

_T_STEP = 0.05
_T_MAX = 12.0
_PANELS = 24
_PANEL_NODES = 16
_DIRECT_PROJECTION_MAX_P = 4096
#: Mass of the law of the level left outside its quadrature range, on each side.
_LOG_LEVEL_TAIL = math.log(1e-16)


def _t_rule(step: float) -> tuple[FloatArray, FloatArray]:
    """Trapezoid nodes on [0, 12] with weights for 2 Re of the half-line integral / (2 pi)."""
    t = np.arange(0.0, _T_MAX + step / 2, step)
    weights = np.full(t.size, step / math.pi)
    weights[0] *= 0.5
    return t, weights * np.exp(-0.5 * t * t)


def _chi_conjugate(t: FloatArray, b: FloatArray) -> ComplexArray:
    r"""Conjugate of :math:`\chi(t) = \int_0^\infty \varphi(b + e) e^{ite} de` (shape of broadcast)."""
    phi = np.exp(-0.5 * b * b) / math.sqrt(2.0 * math.pi)
    value = phi * math.sqrt(math.pi / 2.0) * special.wofz((t + 1j * b) / math.sqrt(2.0))
    return np.asarray(np.conj(value), dtype=np.complex128)


def _joint_density(
    level: FloatArray, a: FloatArray, n: int, margin: float, step: float, derivative: bool = False
) -> FloatArray:
    r""":math:`\partial_\ell P(\ell^* \le \ell, Y \le y)` at ``a = Phi(y)`` (or its ``a``-derivative).

    ``level`` and ``a`` broadcast; the ``t`` nodes are appended as last axis.
    """
    t, weights = _t_rule(step)
    level_b = np.asarray(level, dtype=np.float64)[..., None]
    a_b = np.asarray(a, dtype=np.float64)[..., None]
    chi = _chi_conjugate(t, level_b - margin)
    s = a_b + chi
    if derivative:  # d/da [S^n + n chi S^(n-1)]
        bracket = n * s ** (n - 1) + (n * (n - 1) * chi * s ** (n - 2) if n >= 2 else 0.0)
    else:
        bracket = s**n + n * chi * s ** (n - 1)
    phase = np.exp(1j * t * level_b)
    return np.asarray(np.sum(weights * np.real(phase * bracket), axis=-1))


def _t_step(p: int, margin: float, low: float) -> float:
    """Trapezoid step whose aliasing period ``2 pi / step`` exceeds the spread of the sums.

    At level ``l >= low`` the sum ``g_t + sum (c - l)_+`` has mean
    ``n E(Z + m - l)_+`` and variance at most ``1 + n E(Z + m - l)_+^2``;
    the period is twice its mean plus 12 standard deviations plus ``|l|``.
    """
    n = p - 1
    _, mean_one, second_one = hinge_moments(low - margin)
    mean, second = n * mean_one, n * second_one
    period = 2.0 * (mean + 12.0 * math.sqrt(1.0 + second) + abs(low) + 10.0)
    return min(_T_STEP, 2.0 * math.pi / period)


def _gauss_panels(low: float, high: float) -> tuple[FloatArray, FloatArray]:
    nodes, weights = np.polynomial.legendre.leggauss(_PANEL_NODES)
    edges = np.linspace(low, high, _PANELS + 1)
    half = 0.5 * np.diff(edges)
    x = (edges[:-1, None] + half[:, None] * (nodes[None, :] + 1.0)).ravel()
    w = (half[:, None] * weights[None, :]).ravel()
    return x, w


@dataclass(frozen=True)
class ScoreLaw:
    r"""Exact finite-``p`` law of the projected normalised scores :math:`\Pi_{K_m}(g)`.

    Build it with :func:`score_law`.  All methods take array_like arguments.
    """

    p: int
    margin: float
    level_range: tuple[float, float]
    step: float
    _nodes: FloatArray = field(repr=False)
    _weights: FloatArray = field(repr=False)
    _density: FloatArray = field(repr=False)

    @property
    def _n(self) -> int:
        return self.p - 1

    def target_pdf(self, x: ArrayLike) -> Any:
        r"""Density of the target score :math:`\ell^*`.

        Below :attr:`level_range` the trapezoid step is refined for the lowest
        point (its aliasing period must cover the hinge sums there).
        """
        points = check_finite_array("x", x)
        a = special.ndtr(points - self.margin)
        step = self.step
        if points.size and float(points.min()) < self.level_range[0]:
            step = min(step, _t_step(self.p, self.margin, float(points.min())))
        return _joint_density(points, a, self._n, self.margin, step)

    def target_cdf(self, x: ArrayLike) -> Any:
        r""":math:`P(\ell^* \le x)` (:func:`lamcap.theory.hinge_sums.target_level_cdf`)."""
        return target_level_cdf(x, self.p, self.margin)

    def target_mean(self) -> float:
        r""":math:`E[\ell^*]`."""
        return float(np.sum(self._weights * self._nodes * self._density))

    def target_quantile(self, probability: ArrayLike) -> Any:
        r"""Quantile of :math:`\ell^*` by bisection on :meth:`target_cdf` (to ``1e-12``)."""
        u = check_finite_array("probability", probability, minimum=0.0, maximum=1.0, closed="()")
        low = np.full(u.shape, self.level_range[0] - 5.0)
        high = np.full(u.shape, self.level_range[1] + 5.0)
        while np.max(high - low) > 1e-12:
            middle = 0.5 * (low + high)
            below = np.asarray(self.target_cdf(middle)) < u
            low = np.where(below, middle, low)
            high = np.where(below, high, middle)
        return 0.5 * (low + high)

    def competitor_cdf(self, y: ArrayLike) -> Any:
        r""":math:`P(Y \le y)` for the largest remaining competitor (atom :math:`P(|A| = p-1)` at :math:`-\infty`)."""
        points = check_finite_array("y", y)
        out = np.empty(points.shape)
        for index, value in np.ndenumerate(points):
            shifted = value + self.margin
            below = float(self.target_cdf(min(shifted, self.level_range[1] + 10.0)))
            low = max(shifted, self.level_range[0])
            if low >= self.level_range[1]:
                out[index] = below
                continue
            x, w = _gauss_panels(low, self.level_range[1])
            joint = _joint_density(
                x, np.asarray(special.ndtr(float(value))), self._n, self.margin, self.step
            )
            out[index] = below + float(np.sum(w * joint))
        return out if points.ndim else float(out)

    def competitor_pdf(self, y: ArrayLike) -> Any:
        r"""Density of the largest remaining competitor :math:`Y`."""
        points = check_finite_array("y", y)
        out = np.empty(points.shape)
        for index, value in np.ndenumerate(points):
            low = max(value + self.margin, self.level_range[0])
            if low >= self.level_range[1]:
                out[index] = 0.0
                continue
            x, w = _gauss_panels(low, self.level_range[1])
            joint = _joint_density(
                x,
                np.asarray(special.ndtr(float(value))),
                self._n,
                self.margin,
                self.step,
                derivative=True,
            )
            density = math.exp(-0.5 * value * value) / math.sqrt(2 * math.pi)
            out[index] = density * float(np.sum(w * joint))
        return out if points.ndim else float(out)

    def gap_survival(self, gap: ArrayLike) -> Any:
        r""":math:`P(\Gamma > \gamma)`, :math:`\Gamma = \ell^* - Y` (1 below the margin; atom at :math:`+\infty`)."""
        points = check_finite_array("gap", gap)
        x = self._nodes[:, None]
        joint = _joint_density(
            x, special.ndtr(x - points.ravel()[None, :]), self._n, self.margin, self.step
        )
        value = np.sum(self._weights[:, None] * joint, axis=0).reshape(points.shape)
        value = np.where(points < self.margin, 1.0, value)
        return value if points.ndim else float(value)

    def gap_pdf(self, gap: ArrayLike) -> Any:
        r"""Density of the gap :math:`\Gamma` (for :math:`\gamma > m`)."""
        points = check_finite_array("gap", gap)
        x = self._nodes[:, None]
        y = x - points.ravel()[None, :]
        joint = _joint_density(x, special.ndtr(y), self._n, self.margin, self.step, derivative=True)
        joint = joint * np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
        value = np.sum(self._weights[:, None] * joint, axis=0).reshape(points.shape)
        value = np.where(points < self.margin, 0.0, value)
        return value if points.ndim else float(value)

    def active_probabilities(self, kmax: int | None = None) -> FloatArray:
        r""":math:`P(|A| = k)` for ``k = 0..kmax`` (default: until the terms fall below ``1e-16``).

        .. math::

            P(|A| = k) = \int \binom nk \Phi(\ell - m)^{n-k}\,(1 + k)\,
            \frac{1}{2\pi}\int e^{-t^2/2 + it\ell}\,\bar\chi(t)^k\,dt\,d\ell ,

        with the binomial factor, :math:`\Phi^{n-k}` and :math:`\bar\chi^k` combined
        in one complex exponent (each alone over- or underflows beyond
        :math:`p \approx 8 \cdot 10^5`; their product is a probability) and
        :math:`\log\binom nk` accumulated term by term (through
        :math:`\log\Gamma(n + 1)` it would carry an absolute error of
        :math:`n\epsilon`, 1e-10 at :math:`p = 10^6`).
        """
        n = self._n
        last = n if kmax is None else check_integer("kmax", kmax, minimum=0, maximum=n)
        t, weights = _t_rule(self.step)
        level = self._nodes[:, None]
        chi = _chi_conjugate(t, level - self.margin)
        with np.errstate(divide="ignore"):
            log_chi = np.log(chi)
        phase = np.exp(1j * t * level)
        log_phi = special.log_ndtr(self._nodes - self.margin)[:, None]
        result: list[float] = []
        log_binomial = 0.0  # log C(n, k), accumulated (gammaln(n + 1) would lose n eps)
        for k in range(last + 1):
            if k:
                log_binomial += math.log((n - k + 1) / k)
            exponent = log_binomial + (n - k) * log_phi + (k * log_chi if k else 0.0)
            with np.errstate(under="ignore"):
                terms = np.real(phase * np.exp(exponent))
            block = (1 + k) * np.sum(weights * terms, axis=-1)
            value = float(np.sum(self._weights * block))
            result.append(max(value, 0.0))
            if kmax is None and k > 2 and value < 1e-16 and value < result[-2]:
                break
        return np.array(result)


def score_law(p: int, *, margin: float = 0.0) -> ScoreLaw:
    r"""Exact law of the normalised score vector :math:`\Pi_{K_m}(g)`, :math:`g \sim N(0, I_p)`.

    .. math::

        \ell^* = g_t + \sum_{\rho \ne t}(g_\rho + m - \ell^*)_+, \qquad
        Y = \max_{g_\rho + m \le \ell^*} g_\rho, \qquad \Gamma = \ell^* - Y,

    with the joint law of the module docstring: densities and cdfs of the
    target score, of the largest remaining competitor and of the gap, and
    the law of :math:`|A|`.

    Parameters
    ----------
    p : int
        Number of outputs, ``2 <= p``; practical up to a few thousand.
    margin : float, optional
        :math:`m \ge 0` (0 at capacity; :func:`lamcap.theory.margin.max_margin` below).

    Returns
    -------
    ScoreLaw

    Notes
    -----
    Reference: docs/theory/mechanism.md; arXiv:2605.10795.  Precision about ``1e-12``
    absolute for probabilities (module docstring).  At large ``p`` the mean
    target level :math:`E\ell^*` approaches :math:`\sqrt{2\log p}` from below,
    slowly (lower-order terms in :math:`\log\log p`).

    Examples
    --------
    >>> law = score_law(2)
    >>> round(law.target_mean(), 10)  # E max(g_t, (g_t + g_c)/2) = 1/(2 sqrt(pi))
    0.2820947918
    >>> [round(float(v), 10) for v in law.active_probabilities()]
    [0.5, 0.5]
    """
    p_value = check_integer("p", p, minimum=2)
    margin_value = check_real("margin", margin, minimum=0.0)
    n = p_value - 1
    low, high = level_range(p_value, margin_value, _LOG_LEVEL_TAIL)
    step = _t_step(p_value, margin_value, low)
    nodes, weights = _gauss_panels(low, high)
    values = _joint_density(nodes, special.ndtr(nodes - margin_value), n, margin_value, step)
    return ScoreLaw(p_value, margin_value, (low, high), step, nodes, weights, values)


@dataclass(frozen=True)
class ScoreSample:
    r"""Per-row summaries of normalised score vectors, in units of the competitor spread.

    The one type for both sources: draws of :math:`\Pi_{K_m}(g)`
    (:func:`sample_scores`) and a user's own scores put in the theory's units
    (:func:`lamcap.empirical.normalized_scores`).

    Attributes
    ----------
    target : :math:`\ell^*`, the (normalised) target score.
    competitor : the largest remaining (inactive) competitor, ``-inf`` if none.
    gap : ``target - competitor``.
    active : :math:`|A|`, the number of competitors tied with the target (at ``margin``).
    margin : the margin :math:`m` of the cone, normalised.
    spread : the competitor spread the scores were divided by (1 for theory draws).
    """

    target: FloatArray
    competitor: FloatArray
    gap: FloatArray
    active: NDArray[np.int64]
    margin: float = 0.0
    spread: float = 1.0


def _sample_direct(rng: np.random.Generator, p: int, size: int, margin: float) -> ScoreSample:
    g = rng.standard_normal((size, p))
    projected, active = project_onto_cone(g, margin=margin)
    target = projected[:, 0]
    competitors = g[:, 1:]
    inactive = competitors + margin <= target[:, None]
    remaining = np.where(inactive, competitors, -np.inf).max(axis=1)
    return ScoreSample(target, remaining, target - remaining, active, margin)


def _sample_top(rng: np.random.Generator, p: int, size: int, margin: float) -> ScoreSample:
    """Top-order-statistics sampler: only the largest of the ``p - 1`` competitors are drawn.

    :func:`lamcap._cone_kernel.sample_top_projection` (exact: the block of
    competitors is extended until every row has an inactive one).
    """
    top, _, active, level = sample_top_projection(rng, p - 1, size, margin)
    remaining = top.values[np.arange(size), active]
    return ScoreSample(level, remaining, level - remaining, active.astype(np.int64), margin)


def sample_scores(
    p: int, size: int, seed: int | np.random.Generator | None = None, *, margin: float = 0.0
) -> ScoreSample:
    r"""Draw ``size`` projected score vectors :math:`\Pi_{K_m}(g)` and summarise each.

    For ``p <= 4096`` the full vector is projected with
    :func:`lamcap.geometry.project_onto_cone`; for larger ``p`` only the top
    order statistics of the ``p - 1`` competitors are drawn (exactly, by
    exponential spacings), enough to contain the active set (rows whose active
    set reaches the block get the next order statistics, drawn conditionally).
    Reference: docs/theory/mechanism.md.

    .. math::

        \Pi_{K_m}(g), \qquad g \sim N(0, I_p).

    Parameters
    ----------
    p : int
        Number of outputs, ``p >= 2``.
    size : int
        Number of draws.
    seed : int or Generator, optional
        Random seed.
    margin : float, optional
        :math:`m \ge 0`.

    Returns
    -------
    ScoreSample
        ``target`` (:math:`\ell^*`), ``competitor`` (largest remaining, ``-inf`` if
        none), ``gap``, ``active`` (:math:`|A|`).

    Examples
    --------
    >>> sample = sample_scores(100, 2000, seed=1)
    >>> bool(abs(sample.target.mean() - score_law(100).target_mean()) < 0.05)
    True
    """
    p_value = check_integer("p", p, minimum=2)
    count = check_integer("size", size, minimum=1)
    margin_value = check_real("margin", margin, minimum=0.0)
    rng = np.random.default_rng(seed)
    if p_value <= _DIRECT_PROJECTION_MAX_P:
        return _sample_direct(rng, p_value, count, margin_value)
    return _sample_top(rng, p_value, count, margin_value)
