r"""The kernel of the recall cone: active-set rule, projection, top order statistics, level range.

Every layer that works with the cone :math:`K_m = \{\lambda : \lambda_t \ge
\lambda_\rho + m\ \forall \rho \ne t\}` takes these four pieces from here
(:mod:`lamcap.geometry`, :mod:`lamcap.theory` and :mod:`lamcap.experiments._derivation_tables`);
nothing else writes them out again.  See docs/theory/cone.md and arXiv:2605.10795.

* **Active-set rule.**  With the shifted competitors :math:`y_\rho = g_\rho + m`
  sorted in decreasing order, the :math:`k`-th joins the active set iff
  :math:`k\,y_k > g_t + \sum_{j<k} y_j`, i.e. iff it lies above the common level
  of the target and the :math:`k - 1` competitors above it
  (:func:`joins_active_set`); the active set :math:`A` is a prefix and the
  projection moves the target and :math:`A` to the level
  :math:`\ell^* = (g_t + \sum_A y)/(1 + |A|)` (:func:`project_sorted` for sorted
  rows, :func:`project_row_inplace` for one unsorted row in numba).
* **Top order statistics.**  The active set lives among the largest
  :math:`O(\log p)` of the :math:`p - 1` competitors; :func:`draw_top` draws
  exactly those (exponential spacings) and :func:`extend_top` draws the next
  ones conditionally on the first, so no row is ever truncated.
* **Level range.**  :func:`level_range` cuts the law of :math:`\ell^*` where its
  tails fall below a tolerance, by rigorous Chernoff bounds
  (:func:`log_tail_bounds`) on :math:`P(g_t + \sum_\rho (g_\rho + m - x)_+ \le x)`;
  their exponent :func:`chernoff_exponent` is the one the theory layer evaluates
  for every such bound (integration ranges of :mod:`lamcap.theory._cone`, the law
  of :math:`|A|`, the tail cuts of :mod:`lamcap.theory._hinge_sums`); the two
  aliasing half-periods solve the same inequality for :math:`x` instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

# --------------------------------------------------------------------------
# the active-set rule


def joins_active_set(y: Any, level_sum: Any, count: Any) -> Any:
    r"""Whether a competitor ``y`` joins an active set of ``count`` members.

    ``level_sum`` is :math:`g_t + \sum` of the ``count`` (shifted) competitors
    already active; ``y`` joins iff it lies above their common level,
    :math:`(\text{count} + 1)\,y > \text{level\_sum}` (for the ``k``-th largest:
    :math:`k\,y_k > g_t + \sum_{j<k} y_j`).  Works elementwise on arrays; the
    compiled twin is used inside :func:`project_row_inplace`.

    Examples
    --------
    >>> bool(joins_active_set(1.0, 0.0, 0)), bool(joins_active_set(0.4, 1.0, 1))
    (True, False)
    """
    return (count + 1) * y > level_sum


_joins = numba.njit(cache=True, nogil=True)(joins_active_set)


def active_prefix(target: FloatArray, shifted: FloatArray) -> IntArray:
    r""":math:`|A|` for rows of decreasing shifted competitors ``shifted`` (shape ``(rows, k)``).

    The length of the prefix on which :func:`joins_active_set` holds (the rule
    is monotone in :math:`k`, so :math:`A` is that prefix); ``k`` if every
    sampled competitor is active.
    """
    ranks = np.arange(shifted.shape[1])
    flags = joins_active_set(shifted, target[:, None] + np.cumsum(shifted, axis=1) - shifted, ranks)
    return np.where(flags.all(axis=1), shifted.shape[1], np.argmin(flags, axis=1))  # type: ignore[no-any-return,unused-ignore]


def project_sorted(
    target: FloatArray, values: FloatArray, margin: float
) -> tuple[IntArray, FloatArray]:
    r"""Active count :math:`|A|` and level :math:`\ell^*` for decreasing competitors ``values``.

    The projection of :math:`(g_t, \text{values})` onto :math:`K_m` moves the
    target to :math:`\ell^* = (g_t + \sum_{k \le |A|}(y_k + m))/(1 + |A|)` and the
    active competitors to :math:`\ell^* - m`.
    """
    shifted = values + margin
    active = active_prefix(target, shifted)
    included = np.arange(1, values.shape[1] + 1)[None, :] <= active[:, None]
    level = (target + np.sum(np.where(included, shifted, 0.0), axis=1)) / (1 + active)
    return active, level


@numba.njit(cache=True, nogil=True)
def project_row_inplace(
    row: NDArray[np.float64], target: int, margin: float, work: NDArray[np.float64]
) -> int:
    r"""Project one score vector onto :math:`K_m` in place; return :math:`|A|`.

    Parameters
    ----------
    row : float64 array of length p, overwritten by its projection.
    target : index of the target score.
    margin : the margin :math:`m \ge 0`.
    work : float64 scratch array of length at least p - 1.

    Notes
    -----
    The common level is the largest average of the target with any set of
    (shifted) competitors, :math:`\ell^* = \max_S (g_t + \sum_S y)/(1+|S|)`,
    attained at :math:`S = A = \{y > \ell^*\}`.  One pass keeps a running
    average and the competitors above it (a superset of :math:`A`, since the
    running average never exceeds :math:`\ell^*`); a few filtering passes on
    that short list (Michelot's fixed point) then find :math:`A`.  Every
    comparison is the active-set rule :func:`joins_active_set`.  The cost is
    :math:`O(p)` plus a few passes over about :math:`2\log p` candidates,
    instead of a sort.
    """
    p = row.shape[0]
    level_sum = row[target]
    count = 0
    for rho in range(p):
        if rho == target:
            continue
        y = row[rho] + margin
        if _joins(y, level_sum, count):
            work[count] = y
            count += 1
            level_sum += y
    while True:  # drop candidates at or below the level until none is dropped
        kept = 0
        kept_sum = row[target]
        for i in range(count):
            if _joins(work[i], level_sum, count):
                work[kept] = work[i]
                kept += 1
                kept_sum += work[i]
        dropped = count - kept
        count = kept
        level_sum = kept_sum
        if dropped == 0:
            break
    if count == 0:
        return 0
    level = level_sum / (count + 1)
    moved = 0
    for rho in range(p):
        if rho != target and _joins(row[rho] + margin, level_sum, count):
            row[rho] = level - margin
            moved += 1
    row[target] = level
    return moved


@numba.njit(cache=True, nogil=True)
def project_rows(
    rows: NDArray[np.float64], targets: NDArray[np.int64], margin: float
) -> NDArray[np.int64]:
    """:func:`project_row_inplace` on every row of ``rows``; return the active-set sizes."""
    sizes = np.empty(rows.shape[0], dtype=np.int64)
    work = np.empty(rows.shape[1], dtype=np.float64)
    for i in range(rows.shape[0]):
        sizes[i] = project_row_inplace(rows[i], targets[i], margin, work)
    return sizes


# --------------------------------------------------------------------------
# top order statistics of the competitors


class TopOrderStatistics(NamedTuple):
    """The largest ``values.shape[1]`` of ``count`` iid N(0, 1) per row, in decreasing order.

    ``arrivals`` are the partial sums :math:`\\Gamma_1 < \\dots < \\Gamma_k` of
    standard exponentials, ``rest`` is :math:`\\Gamma_{n+1} - \\Gamma_k` and
    ``total`` :math:`\\Gamma_{n+1}`, :math:`n` = ``competitors`` (kept for
    :func:`extend_top`).
    """

    values: FloatArray
    arrivals: FloatArray
    rest: FloatArray
    total: FloatArray
    competitors: int


def default_top_length(count: int) -> int:
    """Competitors drawn at first: :math:`\\min(n, \\lfloor 8\\log(n + 1)\\rfloor + 60)`.

    About four times :math:`\\mathbb{E}|A| \\approx 2\\log p` (docs/theory/cone.md) plus
    slack; :func:`extend_top` adds more for the rare rows that need them.

    Examples
    --------
    >>> default_top_length(1), default_top_length(999)
    (1, 115)
    """
    return int(min(count, int(8.0 * math.log(count + 1)) + 60))  # math: also beyond int64


def draw_top(rng: np.random.Generator, count: int, rows: int, length: int) -> TopOrderStatistics:
    r"""The ``length`` largest of ``count`` iid :math:`N(0, 1)`, for each of ``rows`` rows.

    Exponential spacings: the :math:`k` smallest of :math:`n` uniforms are
    :math:`\Gamma_k/\Gamma_{n+1}`, :math:`\Gamma_k` the partial sums of standard
    exponentials, so the competitors are :math:`y_{(k)} = -\Phi^{-1}(\Gamma_k/\Gamma_{n+1})`.
    Draws ``standard_exponential((rows, length))``, then
    ``standard_gamma(count + 1 - length, rows)``.
    """
    arrivals = np.cumsum(rng.standard_exponential((rows, length)), axis=1)
    rest = rng.standard_gamma(count + 1 - length, rows)
    total = arrivals[:, -1] + rest
    values = -special.ndtri(arrivals / total[:, None])
    return TopOrderStatistics(values, arrivals, rest, total, count)


def extend_top(rng: np.random.Generator, top: TopOrderStatistics, extra: int) -> TopOrderStatistics:
    r"""Append the next ``extra`` order statistics to every row of ``top``, exactly.

    Given the first :math:`k` arrivals, :math:`\Gamma_{n+1} - \Gamma_k` is
    :math:`\text{Gamma}(n + 1 - k)`, independent of them; it splits into
    ``extra`` exponential spacings and a :math:`\text{Gamma}(n + 1 - k -
    \text{extra})` remainder in Dirichlet proportions (independent of the sum),
    which are drawn fresh and scaled by the remainder already drawn.
    """
    rows, length = top.values.shape
    spacings = np.cumsum(rng.standard_exponential((rows, extra)), axis=1)
    remainder = rng.standard_gamma(top.competitors + 1 - length - extra, rows)
    scale = top.rest / (spacings[:, -1] + remainder)
    arrivals = top.arrivals[:, -1:] + spacings * scale[:, None]
    values = -special.ndtri(np.minimum(arrivals / top.total[:, None], 1.0))
    return TopOrderStatistics(
        np.concatenate([top.values, values], axis=1),
        np.concatenate([top.arrivals, arrivals], axis=1),
        remainder * scale,
        top.total,
        top.competitors,
    )


def sample_top_projection(
    rng: np.random.Generator, count: int, rows: int, margin: float
) -> tuple[TopOrderStatistics, FloatArray, IntArray, FloatArray]:
    r"""Projection of ``rows`` Gaussian score vectors with ``count`` competitors onto :math:`K_m`.

    Draws the top order statistics (:func:`draw_top`, :func:`default_top_length`),
    then the target :math:`g_t` (``standard_normal(rows)``), and extends the
    competitors (:func:`extend_top`, doubling) until every row has an inactive
    competitor left or all ``count`` are drawn.  Returns the competitors, the
    targets, :math:`|A|` and :math:`\ell^*` (:func:`project_sorted`).
    """
    top = draw_top(rng, count, rows, default_top_length(count))
    target = rng.standard_normal(rows)
    active, level = project_sorted(target, top.values, margin)
    while top.values.shape[1] < count and np.any(active >= top.values.shape[1]):
        extra = min(count - top.values.shape[1], top.values.shape[1])
        top = extend_top(rng, top, extra)
        active, level = project_sorted(target, top.values, margin)
    return top, target, active, level


# --------------------------------------------------------------------------
# Chernoff bounds and the range of the level


#: Exponents over which the Chernoff bounds are minimised (any grid is rigorous).
CHERNOFF_EXPONENTS = np.geomspace(1e-2, 60.0, 80)

LogMgf = Callable[[FloatArray, FloatArray], FloatArray]


def log_mgf_hinge(lam: FloatArray, y: FloatArray) -> FloatArray:
    r""":math:`\log \mathbb{E}\, e^{\lambda (Z - y)_+}` for real :math:`\lambda` (either sign)."""
    inside = -lam * y + 0.5 * lam**2 + special.log_ndtr(lam - y)
    return np.logaddexp(special.log_ndtr(y), inside)  # type: ignore[no-any-return,unused-ignore]


def hinge_moments(y: float) -> tuple[float, float, float]:
    r""":math:`Q(y)`, :math:`\mathbb{E}(Z - y)_+ = \varphi(y) - yQ(y)` and
    :math:`\mathbb{E}(Z - y)_+^2 = (1 + y^2)Q(y) - y\varphi(y)` for :math:`Z \sim N(0, 1)`.

    Examples
    --------
    >>> [round(v, 6) for v in hinge_moments(0.0)]  # 1/2, 1/sqrt(2 pi), 1/2
    [0.5, 0.398942, 0.5]
    """
    tail = float(special.ndtr(-y))
    density = math.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)
    return tail, density - y * tail, (1.0 + y * y) * tail - y * density


def mgf_tables(
    y: FloatArray, count: int, log_mgf: LogMgf, exponents: FloatArray = CHERNOFF_EXPONENTS
) -> tuple[FloatArray, FloatArray]:
    r""":math:`n \log M(\lambda)` and :math:`n \log M(-\lambda)` on the exponent grid (rows) x ``y``."""
    if count == 0:
        return np.zeros((1, y.size)), np.zeros((1, y.size))
    lam = exponents[:, None]
    # Near the float64 limit (count about 1e308) a product overflows to +-inf: -inf
    # is a true bound below every float, +inf says nothing (bounds_from_tables)
    with np.errstate(over="ignore"):
        return count * log_mgf(lam, y[None, :]), count * log_mgf(-lam, y[None, :])


def chernoff_exponent(lam: Any, x: Any, scaled_log_mgf: Any) -> Any:
    r"""Exponent of the Chernoff bound :math:`\lambda x + \lambda^2/2 + n\log M(-\lambda)`.

    For :math:`V = g + \sum_{i \le n} X_i` with :math:`g \sim N(0, 1)` and
    ``scaled_log_mgf`` :math:`= n \log \mathbb{E} e^{-\lambda X}`,
    :math:`\log P(V \le x)` is at most this for every :math:`\lambda > 0`; with
    :math:`-\lambda` and :math:`n\log M(\lambda)` it bounds :math:`\log P(V \ge x)`.
    Elementwise (numpy broadcasting); every Chernoff bound of lamcap is this one.
    """
    return lam * x + 0.5 * lam**2 + scaled_log_mgf


def bounds_from_tables(
    x: FloatArray, up: FloatArray, down: FloatArray, exponents: FloatArray = CHERNOFF_EXPONENTS
) -> tuple[FloatArray, FloatArray]:
    r"""Chernoff bounds on :math:`\log P(V \le x)` and :math:`\log P(V \ge x)` from :func:`mgf_tables`."""
    lam = exponents[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        below = chernoff_exponent(lam, x[None, :], down)
        above = chernoff_exponent(-lam, x[None, :], up)
    # Each exponent gives a bound of its own; one that overflowed to nan (inf - inf, at
    # sizes or margins near the float64 limit) gives none, so it is left out (+inf).
    return (
        np.minimum(np.min(np.where(np.isnan(below), np.inf, below), axis=0), 0.0),
        np.minimum(np.min(np.where(np.isnan(above), np.inf, above), axis=0), 0.0),
    )


def log_tail_bounds(
    x: FloatArray,
    y: FloatArray,
    count: int,
    log_mgf: LogMgf = log_mgf_hinge,
    exponents: FloatArray = CHERNOFF_EXPONENTS,
) -> tuple[FloatArray, FloatArray]:
    r"""Chernoff bounds on :math:`\log P(V \le x)` and :math:`\log P(V \ge x)` (each <= 0).

    :math:`V = g + \sum_{i \le n} X_i`, :math:`X_i` iid with log moment generating
    function ``log_mgf`` at ``y``: for every :math:`\lambda > 0`,
    :math:`P(V \le x) \le \exp(\lambda x + \lambda^2/2 + n\log M(-\lambda))` and
    :math:`P(V \ge x) \le \exp(-\lambda x + \lambda^2/2 + n\log M(\lambda))`,
    minimised over ``exponents`` (default :data:`CHERNOFF_EXPONENTS`; any grid is rigorous).
    """
    return bounds_from_tables(x, *mgf_tables(y, count, log_mgf, exponents), exponents)


def level_range(p: int, margin: float, log_tol: float) -> tuple[float, float]:
    r"""Interval outside which :math:`P(\ell^* \le x)` (below) and :math:`P(\ell^* > x)` (above) are :math:`< e^{\text{log\_tol}}`.

    :math:`P(\ell^* \le x) = P(g_t + \sum_\rho (g_\rho + m - x)_+ \le x)`.  Starts
    from Gaussian bounds (:math:`\ell^* \ge g_t`, and :math:`\ell^* \le
    \max(g_t, \max_\rho g_\rho + m)`) and trims them on a 400-point grid with
    :func:`log_tail_bounds` (the law is monotone, so the bound at the cut also
    holds beyond it).
    """
    lower = -math.sqrt(-2.0 * log_tol)
    upper = margin + math.sqrt(-2.0 * (log_tol - math.log(p)))
    grid = np.linspace(lower, upper, 400)
    log_below, log_above = log_tail_bounds(grid, grid - margin, p - 1, log_mgf_hinge)
    small_below = np.flatnonzero(log_below < log_tol)
    small_above = np.flatnonzero(log_above < log_tol)
    if small_below.size and small_below[-1] < grid.size - 1:
        lower = float(grid[small_below[-1]])
    if small_above.size and small_above[0] > 0:
        upper = float(grid[small_above[0]])
    return lower, upper
