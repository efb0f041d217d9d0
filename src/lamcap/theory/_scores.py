r"""Law of the normalised scores at the optimum: :math:`\Pi_{K_m}(g)`, :math:`g \sim N(0, I_p)`.

docs/theory/mechanism.md (scores at and below capacity; arXiv:2605.10795).  Per
association the normalised score vector of the max-margin memory is
distributed as the projection of a standard Gaussian vector onto
:math:`K_m = \{\lambda_t \ge \lambda_\rho + m\}` (:math:`m = 0` at capacity,
:math:`m =` :func:`lamcap.theory.max_margin` below).  Write the
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
:func:`lamcap.theory._hinge_sums.target_level_cdf` and
:func:`lamcap.theory.active_set_law`, which use an independent inversion),
for ``p`` up to a few thousand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import mpmath
import numpy as np
from numpy.typing import NDArray
from scipy import special

from lamcap._cone_kernel import (
    default_top_length,
    hinge_moments,
    level_range,
    sample_top_projection,
)
from lamcap._sizes import check_memory, format_integer
from lamcap._validation import check_integer, check_real, check_seed
from lamcap.geometry import project_onto_cone
from lamcap.theory._hinge_sums import target_level_cdf
from lamcap.theory._law import Law

FloatArray = NDArray[np.float64]
ComplexArray = NDArray[np.complex128]

_T_STEP = 0.05
_T_MAX = 12.0
_PANELS = 24
_PANEL_NODES = 16
_DIRECT_PROJECTION_MAX_P = 4096
#: Largest complex array (level nodes x points x t nodes) built at once by the gap law.
_BLOCK_ELEMENTS = 4_000_000
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
    level_array = np.asarray(level, dtype=np.float64)
    a_array = np.asarray(a, dtype=np.float64)
    shape = np.broadcast_shapes(level_array.shape, a_array.shape)
    if level_array.shape != shape or level_array.size * t.size <= _BLOCK_ELEMENTS:
        # chi depends on the level only: computed once per level, shared by every a
        return _joint_density_rows(
            level_array[..., None], a_array[..., None], t, weights, n, margin, derivative
        )
    # one level per entry (the law's own nodes): a block of levels at a time, so that the
    # (levels x t nodes) arrays stay within _BLOCK_ELEMENTS whatever the margin
    out = np.empty(shape)
    flat_level, flat_out = level_array.reshape(-1), out.reshape(-1)
    flat_a = np.broadcast_to(a_array, shape).reshape(-1)
    rows = max(1, _BLOCK_ELEMENTS // t.size)
    for start in range(0, flat_level.size, rows):
        block = slice(start, start + rows)
        flat_out[block] = _joint_density_rows(
            flat_level[block, None], flat_a[block, None], t, weights, n, margin, derivative
        )
    return out


def _joint_density_rows(
    level: FloatArray,
    a: FloatArray,
    t: FloatArray,
    weights: FloatArray,
    n: int,
    margin: float,
    derivative: bool,
) -> FloatArray:
    """:func:`_joint_density` at ``level`` and ``a`` given with a last axis of length 1 (for ``t``)."""
    chi = _chi_conjugate(t, level - margin)
    s = a + chi
    if derivative:  # d/da [S^n + n chi S^(n-1)]
        bracket = n * s ** (n - 1) + (n * (n - 1) * chi * s ** (n - 2) if n >= 2 else 0.0)
    else:
        bracket = s**n + n * chi * s ** (n - 1)
    phase = np.exp(1j * t * level)
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

    Build it with :func:`score_law`.  Its parts are law objects (``pdf``, ``cdf``,
    ``sf``, ``ppf``, ``rvs``, ``support``, ``moment``): :attr:`target` (the target
    score :math:`\ell^*`), :attr:`top_remaining` (the largest remaining competitor
    :math:`Y`) and :attr:`gap` (:math:`\Gamma = \ell^* - Y`);
    :meth:`active_probabilities` is the law of :math:`|A|`.
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

    @property
    def target(self) -> TargetScoreLaw:
        r"""Law of the target score :math:`\ell^*`."""
        return TargetScoreLaw(self)

    @property
    def top_remaining(self) -> TopRemainingLaw:
        r"""Law of the largest remaining competitor :math:`Y` (atom at :math:`-\infty`)."""
        return TopRemainingLaw(self)

    @property
    def gap(self) -> GapLaw:
        r"""Law of the gap :math:`\Gamma = \ell^* - Y` (atom at :math:`+\infty`)."""
        return GapLaw(self)

    def _draw(self, size: tuple[int, ...], rng: np.random.Generator) -> ScoreSample:
        """``prod(size)`` projected score vectors (the samplers of :func:`sample_scores`)."""
        return _sample(rng, self.p, int(np.prod(size, dtype=np.int64)), self.margin)

    def _target_density(self, points: FloatArray) -> FloatArray:
        r"""Density of :math:`\ell^*` at finite points (step refined below the level range)."""
        a = special.ndtr(points - self.margin)
        step = self.step
        if points.size and float(points.min()) < self.level_range[0]:
            step = min(step, _t_step(self.p, self.margin, float(points.min())))
        return _joint_density(points, a, self._n, self.margin, step)

    def _remaining_cdf(self, value: float) -> float:
        r""":math:`P(Y \le y)` at one point (``-inf`` gives the atom :math:`P(|A| = p - 1)`)."""
        shifted = value + self.margin
        below = 0.0
        if shifted > -math.inf:
            below = float(
                target_level_cdf(min(shifted, self.level_range[1] + 10.0), self.p, self.margin)
            )
        low = max(shifted, self.level_range[0])
        if low >= self.level_range[1]:
            return below
        x, w = _gauss_panels(low, self.level_range[1])
        a = np.asarray(special.ndtr(value))
        return below + float(np.sum(w * _joint_density(x, a, self._n, self.margin, self.step)))

    def _remaining_pdf(self, value: float) -> float:
        """Density of :math:`Y` at one point."""
        low = max(value + self.margin, self.level_range[0])
        if low >= self.level_range[1] or not math.isfinite(value):
            return 0.0
        x, w = _gauss_panels(low, self.level_range[1])
        a = np.asarray(special.ndtr(value))
        joint = _joint_density(x, a, self._n, self.margin, self.step, derivative=True)
        return math.exp(-0.5 * value * value) / math.sqrt(2 * math.pi) * float(np.sum(w * joint))

    def _gap_sf(self, gap: FloatArray) -> FloatArray:
        r""":math:`P(\Gamma > \gamma)` (1 up to the margin; ``+inf`` gives the atom)."""
        x = self._nodes[:, None]

        def block(points: FloatArray) -> FloatArray:
            a = special.ndtr(x - points[None, :])
            joint = _joint_density(x, a, self._n, self.margin, self.step)
            return np.asarray(np.sum(self._weights[:, None] * joint, axis=0), dtype=np.float64)

        value = np.clip(self._over_points(block, gap), 0.0, 1.0)
        return np.asarray(np.where(gap <= self.margin, 1.0, value), dtype=np.float64)

    def _gap_pdf(self, gap: FloatArray) -> FloatArray:
        finite = np.where(np.isfinite(gap), gap, self.margin - 1.0)
        x = self._nodes[:, None]

        def block(points: FloatArray) -> FloatArray:
            y = x - points[None, :]
            joint = _joint_density(
                x, special.ndtr(y), self._n, self.margin, self.step, derivative=True
            )
            joint = joint * np.exp(-0.5 * y * y) / math.sqrt(2 * math.pi)
            return np.asarray(np.sum(self._weights[:, None] * joint, axis=0), dtype=np.float64)

        value = self._over_points(block, finite)
        return np.asarray(np.where(finite < self.margin, 0.0, value), dtype=np.float64)

    def _over_points(self, block: Any, points: FloatArray) -> FloatArray:
        """``block`` on chunks of the flattened points: level nodes x points x t nodes stay
        below :data:`_BLOCK_ELEMENTS` complex numbers."""
        flat = points.ravel()
        t_nodes = int(_T_MAX / self.step) + 2
        chunk = max(1, _BLOCK_ELEMENTS // (self._nodes.size * t_nodes))
        parts = [block(flat[i : i + chunk]) for i in range(0, flat.size, chunk)]
        values = np.concatenate(parts) if parts else np.empty(0)
        return values.reshape(points.shape)

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

    Status: exact. The law of :math:`\Pi_{K_m}(g)` for :math:`g \sim N(0, I_p)`, to about
    ``1e-12`` absolute in the probabilities. That the normalised scores of a memory follow it is
    the :math:`d \to \infty` picture of docs/theory/mechanism.md, an asymptotic statement.

    Parameters
    ----------
    p : int
        Number of outputs, ``2 <= p``; practical up to a few thousand.
    margin : float, optional
        :math:`m \ge 0` (0 at capacity; :func:`lamcap.theory.max_margin` below).

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
    >>> round(float(law.target.mean()), 10)  # E max(g_t, (g_t + g_c)/2) = 1/(2 sqrt(pi))
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
    fourier_nodes = _T_MAX / step + 1.0 if step > 0.0 else math.inf
    check_memory(
        f"score_law with p = {format_integer(p_value)}, margin = {margin_value:g} "
        f"({fourier_nodes:.3g} Fourier nodes at each of {nodes.size} levels)",
        int(min(64.0 * nodes.size * fourier_nodes, 2.0**100)),
    )
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


def _sample(rng: np.random.Generator, p: int, size: int, margin: float) -> ScoreSample:
    """Direct projection up to ``p = 4096``, the top-order-statistics sampler beyond."""
    width = p if p <= _DIRECT_PROJECTION_MAX_P else default_top_length(p - 1)
    check_memory(
        f"sample_scores with p = {format_integer(p)}, size = {format_integer(size)} "
        f"({width} numbers per draw, several arrays of them)",
        8 * 4 * size * (width + 4),
    )
    if p <= _DIRECT_PROJECTION_MAX_P:
        return _sample_direct(rng, p, size, margin)
    return _sample_top(rng, p, size, margin)


_SCORE_ROUTES = (
    "Routes: the joint law of the module docstring (Fourier inversion in the hinge "
    "sums, composite Gauss-Legendre over the level), about 1e-12 absolute for "
    "probabilities; ``ppf`` by safeguarded Newton on the cdf; ``rvs`` draws projected "
    "score vectors (:func:`sample_scores`: direct projection up to p = 4096, top order "
    "statistics beyond), a simulation independent of the formulas."
)


class TargetScoreLaw(Law):
    r"""Law of the target score :math:`\ell^*`, the level of the projection onto :math:`K_m`.

    :math:`\ell^* = g_t + \sum_{\rho \ne t}(g_\rho + m - \ell^*)_+`; its cdf is
    :func:`lamcap.theory._hinge_sums.target_level_cdf`.  Built by
    :attr:`ScoreLaw.target`.
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": r"the normalised target score :math:`\ell^*` at the optimum",
        "support": "the real line",
        "routes": _SCORE_ROUTES
        + "  ``moment`` from the quadrature of the law; ``dps=`` on ``cdf`` and ``sf``.",
        "reference": "docs/theory/mechanism.md, arXiv:2605.10795",
        "examples": (
            ">>> law = score_law(2).target\n"
            ">>> round(float(law.mean()), 10)  # E max(g_t, (g_t + g_c)/2) = 1/(2 sqrt(pi))\n"
            "0.2820947918\n"
            ">>> round(float(law.cdf(0.0)), 12)  # P(g <= 0, g + Z <= 0)\n"
            "0.375"
        ),
    }

    _cdf_accuracy: ClassVar[float] = 1e-13

    def __init__(self, law: ScoreLaw) -> None:
        self._law = law

    def __repr__(self) -> str:
        return f"score_law({self._law.p}, margin={self._law.margin!r}).target"

    def _support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def _bracket(self) -> tuple[float, float]:
        low, high = self._law.level_range
        return low - 5.0, high + 5.0

    def _pdf(self, x: FloatArray) -> FloatArray:
        """0 beyond 5 of the level range (where the law has mass below 1e-16 on each side)."""
        low, high = self._bracket()
        inside = (x > low) & (x < high)
        out = np.zeros(x.shape)
        out[inside] = self._law._target_density(x[inside])
        return out

    def _cdf(self, x: FloatArray) -> FloatArray:
        finite = np.isfinite(x)
        out = np.where(x > 0, 1.0, 0.0)
        if np.any(finite):
            out[finite] = target_level_cdf(x[finite], self._law.p, self._law.margin)
        return out

    def _mp_cdf(self, value: Any) -> Any:
        return target_level_cdf(value, self._law.p, self._law.margin, dps=mpmath.mp.dps)

    def _moment(self, order: int) -> float:
        law = self._law
        return float(np.sum(law._weights * law._nodes**order * law._density))

    def _var(self) -> float:
        law = self._law
        centred = law._nodes - self._moment(1)
        return float(np.sum(law._weights * centred**2 * law._density))

    def _rvs(self, size: tuple[int, ...], rng: np.random.Generator) -> FloatArray:
        return self._law._draw(size, rng).target.reshape(size)


class TopRemainingLaw(Law):
    r"""Law of the largest remaining competitor :math:`Y = \max\{g_\rho : g_\rho + m \le \ell^*\}`.

    :math:`Y = -\infty` when every competitor is active, an atom of mass
    :math:`P(|A| = p - 1)` (``cdf(-inf)``; ``ppf`` of smaller probabilities is
    :math:`-\infty` and the moments are infinite).  Built by
    :attr:`ScoreLaw.top_remaining`.
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": r"the largest remaining (inactive) competitor :math:`Y` at the optimum",
        "support": r"the real line, with an atom at :math:`-\infty`",
        "routes": _SCORE_ROUTES + "  About 0.2 s per point of ``pdf`` or ``cdf``.",
        "reference": "docs/theory/mechanism.md, arXiv:2605.10795",
        "examples": (
            ">>> law = score_law(2).top_remaining\n"
            ">>> round(float(law.cdf(0.0)), 12)  # 1/2 (atom) + P(g_c <= min(0, g_t))\n"
            "0.875\n"
            ">>> float(law.ppf(0.25))  # below the atom\n"
            "-inf"
        ),
    }

    _cdf_accuracy: ClassVar[float] = 1e-13

    def __init__(self, law: ScoreLaw) -> None:
        self._law = law

    def __repr__(self) -> str:
        return f"score_law({self._law.p}, margin={self._law.margin!r}).top_remaining"

    def _support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def _bracket(self) -> tuple[float, float]:
        return -40.0, self._law.level_range[1] - self._law.margin

    def _pdf(self, x: FloatArray) -> FloatArray:
        return np.array([self._law._remaining_pdf(float(v)) for v in x.ravel()]).reshape(x.shape)

    def _cdf(self, x: FloatArray) -> FloatArray:
        return np.array([self._law._remaining_cdf(float(v)) for v in x.ravel()]).reshape(x.shape)

    def _moment(self, order: int) -> float:
        return -math.inf if order % 2 else math.inf

    def _rvs(self, size: tuple[int, ...], rng: np.random.Generator) -> FloatArray:
        return self._law._draw(size, rng).competitor.reshape(size)


class GapLaw(Law):
    r"""Law of the gap :math:`\Gamma = \ell^* - Y \ge m` between the target and :math:`Y`.

    :math:`\Gamma = +\infty` when every competitor is active, an atom of mass
    :math:`P(|A| = p - 1)` (``ppf`` of larger probabilities is :math:`+\infty`,
    the moments are infinite).  Built by :attr:`ScoreLaw.gap`.
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": r"the gap :math:`\Gamma = \ell^* - Y` at the optimum",
        "support": r":math:`[m, \infty]`, with an atom at :math:`+\infty`",
        "routes": _SCORE_ROUTES,
        "reference": "docs/theory/mechanism.md, arXiv:2605.10795",
        "examples": (
            ">>> law = score_law(10, margin=0.5).gap\n"
            ">>> float(law.sf(0.4)), float(law.cdf(0.5))  # Gamma >= m\n"
            "(1.0, 0.0)"
        ),
    }

    _cdf_accuracy: ClassVar[float] = 1e-13

    def __init__(self, law: ScoreLaw) -> None:
        self._law = law

    def __repr__(self) -> str:
        return f"score_law({self._law.p}, margin={self._law.margin!r}).gap"

    def _support(self) -> tuple[float, float]:
        return self._law.margin, math.inf

    def _bracket(self) -> tuple[float, float]:
        return self._law.margin, self._law.level_range[1] + 40.0

    def _atom(self) -> float:
        return float(self._law._gap_sf(np.array([math.inf]))[0])

    def _pdf(self, x: FloatArray) -> FloatArray:
        return self._law._gap_pdf(x)

    def _sf(self, x: FloatArray) -> FloatArray:
        return np.where(x == math.inf, 0.0, self._law._gap_sf(x))

    def _cdf(self, x: FloatArray) -> FloatArray:
        return 1.0 - self._sf(x)

    def _ppf(self, q: FloatArray) -> FloatArray:
        finite = super()._ppf(np.minimum(q, 1.0 - self._atom()))
        return np.where(q >= 1.0 - self._atom(), math.inf, finite)

    def _moment(self, order: int) -> float:  # noqa: ARG002  (every order >= 1 is infinite)
        return math.inf

    def _rvs(self, size: tuple[int, ...], rng: np.random.Generator) -> FloatArray:
        return self._law._draw(size, rng).gap.reshape(size)


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

    Status: exact. Independent draws from the law of :func:`score_law` (no approximation beyond
    float64 rounding; the order statistics beyond ``p = 4096`` are drawn exactly).

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
    >>> bool(abs(sample.target.mean() - score_law(100).target.mean()) < 0.05)
    True
    """
    p_value = check_integer("p", p, minimum=2)
    count = check_integer("size", size, minimum=1)
    margin_value = check_real("margin", margin, minimum=0.0)
    return _sample(np.random.default_rng(check_seed(seed)), p_value, count, margin_value)
