r"""Finite-size law of the recall cone for unit-norm outputs (``embeddings='sphere'``).

With outputs uniform on the unit sphere :math:`S^{d-1}`, the scores of one
association against a direction :math:`h` independent of its outputs are
:math:`u_\rho^\top h = \|h\|\,s_\rho` with :math:`s_\rho` iid coordinates of a
uniform point on :math:`S^{d-1}`: density proportional to
:math:`(1 - s^2)^{(d-3)/2}` on :math:`[-1, 1]`, variance :math:`1/d`.  The model of
docs/theory/unit-norm.md replaces the Gaussian score vector :math:`g` of the
[cone page](docs/theory/cone.md) by :math:`z = \sqrt d\,s` (variance 1, support
:math:`[-\sqrt d, \sqrt d]`) and charges each association

.. math::

    C_p(d) = \mathbb{E}\operatorname{dist}(z, K)^2 ,

the energetic term of Gardner's calculation (a distance: for non-Gaussian scores it is
not :math:`\mathbb{E}|A|`, which this module also computes for comparison).

Route.  Write :math:`T_\ell = z_t + \sum_{\rho \ne t}(z_\rho - \ell)_+` (the level
:math:`\ell^*` of the projection solves :math:`T_\ell = \ell`) and
:math:`F(\ell) = (z_t - \ell)^2 + \sum_\rho (z_\rho - \ell)_+^2` (so
:math:`\operatorname{dist}^2 = \min_\ell F = F(\ell^*)`).  Since
:math:`F'(\ell) = 2(\ell - T_\ell)`, for any level :math:`u`

.. math::

    \operatorname{dist}^2 = F(u) - 2\int_{-\infty}^{u} (\ell - T_\ell)_+\,d\ell
    - 2\int_u^\infty (T_\ell - \ell)_+\,d\ell .

At a level :math:`u` above which :math:`p\,P(z > u) < 10^{-18}` (or :math:`u = \sqrt d`)
the last integral and the competitors' part of :math:`F(u)` vanish to that
accuracy, leaving :math:`C_p(d) = 1 + u^2 - 2\int_{-\sqrt d}^{u}
\mathbb{E}(\ell - T_\ell)_+\,d\ell` (:math:`\mathbb{E}(z_t - u)^2 = 1 + u^2`).  Conditionally on the competitors' hinge sum :math:`R_\ell`,
:math:`\mathbb{E}[(\ell - T_\ell)_+ \mid R_\ell] = G(\ell - R_\ell)` with the closed form
:math:`G(c) = \mathbb{E}(c - z)_+ = cF_z(c) - M_z(c)` (:math:`F_z` a regularised
incomplete beta function, :math:`M_z(c) = -\frac{c_d\sqrt d}{d-1}(1 - c^2/d)^{(d-1)/2}`).
The law of :math:`R_\ell` is needed only below :math:`\ell + b` (beyond, :math:`G`
is below :math:`10^{-18}`), and since its terms are non-negative the :math:`(p-1)`-fold
convolution may be truncated there after every step: hat-function masses of one
hinge on :math:`N` nodes (mass and mean kept), binary powering by zero-padded real
FFTs (each power's transform serves its square and the product).  The error is
:math:`O(h^2)`; two nested grids, :math:`N = 512` and :math:`1023` (half the step: the
coarse nodes are fine nodes, and one evaluation of the scores' law serves both), and
Richardson extrapolation :math:`(4\,\text{fine} - \text{coarse})/3` leave a relative
error below ``3e-10`` near the transition (d = 4-4096, against grids four times finer
and panels four times narrower), below ``1e-9`` up to :math:`p = 1000\,p_c(d)`; far
beyond it grows (``3e-8`` at d = 64, :math:`p = 10^9`).  :math:`\mathbb{E}|A|`, whose
integrand :math:`F_z` is less smooth, uses :math:`N = 1024, 2047`: below ``3e-10``
near the transition, ``1.5e-9`` up to :math:`100\,p_c` (at d = 4, ``4e-9`` at
:math:`1000\,p_c`).  The precision stated is relative error below ``3e-9``, checked
also against the exact values
:math:`C_2 = 1/2` and :math:`C_3 = \mathbb{E}|A|_3 = 5/6` (any symmetric law of
variance one), mpmath and the previous route (tests/theory/test_unit_norm_route.py).

The scores' law on the grids (:math:`F_z`, :math:`G` and the tails
:math:`S = 1 - F_z`, :math:`Q = -M_z`, which keep the upper tail's relative precision)
comes from a table per d: :math:`\Phi(\theta) = P(z > \sqrt d\cos\theta)` on
:math:`[0, \pi/2]`, interpolated by quintic Hermite polynomials in the angle, where it is
entire (values by ``betainc``, derivatives in closed form), with the interpolation
error bounded by :math:`10^{-16}` (:func:`_hermite_bound`).

The outer :math:`\ell` integral uses 20-point Gauss-Legendre panels from the top down,
at most 2 wide above the level where :math:`(p-1)P(z > \ell) = 10^{-3}` and below it,
where the integrand bends, at most 0.5 and at most :math:`6/(1 + m)` wide, :math:`m` the
mean-field number of active competitors (the bend sharpens as it grows: narrower than
0.5 when :math:`m > 11`, far above the transition or near it at d of about 1000 and
more; :func:`_level_panels`); the top panel in
:math:`s` with :math:`\ell = b - (b-a)s^2`, for the end of the support at small d.  It
stops below a panel where the rest is provably below ``1e-18``
(:math:`\mathbb{E}(\ell - T_\ell)_+` decreases as :math:`\ell` decreases).

:math:`\mathbb{E}|A|` under the same scores uses the exchangeability formula of
docs/theory/cone.md (fact 5) with :math:`G` replaced by :math:`F_z`.

References: docs/theory/unit-norm.md; arXiv:2605.10795; Nichani et al.,
arXiv:2412.06538 (the unit-norm protocol).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import fft, special  # type: ignore[import-untyped,unused-ignore]

from lamcap.theory._interpolation import EVERY_INTEGER, interpolate_in_log_p

FloatArray = NDArray[np.float64]

#: Smallest dimension of the unit-norm law (below it the score density is not
#: continuous at the ends of its support and the extrapolated quadrature is not verified).
MIN_DIMENSION = 4
#: Nodes of the coarse hinge grid of the cost; the fine grid has 2 * _GRID - 1 (half the step).
_GRID = 512
#: The same for the mean active set (its integrand F_z is less smooth than G).
_ACTIVE_GRID = 1024
#: Bound on the interpolation error of the scores' tail table (absolute).
_TABLE_ERROR = 1e-16
#: Negligible mass or price (absolute) in the truncations.
_NEGLIGIBLE = 1e-18
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(20)
#: Widest panel of the outer integrals above the kink of the integrand, and within and below it.
_WIDE_PANEL, _NARROW_PANEL = 2.0, 0.5
#: Narrow panels are also at most this many over (1 + the mean-field active count) wide.
_KINK_WIDTHS = 6.0
#: The kink begins where the expected number of competitors above the level reaches this.
_KINK_COMPETITORS = 1e-3


def _constants(d: int) -> tuple[float, float]:
    """Beta parameter :math:`(d-1)/2` and :math:`c_d = \\Gamma(d/2)/(\\sqrt\\pi\\,\\Gamma((d-1)/2))`."""
    a = 0.5 * (d - 1)
    log_c = special.gammaln(0.5 * d) - special.gammaln(a) - 0.5 * math.log(math.pi)
    return a, math.exp(log_c)


def score_cdf(z: Any, d: int) -> FloatArray:
    r"""CDF of :math:`z = \sqrt d\,s`, :math:`s` one coordinate of a uniform point on :math:`S^{d-1}`.

    .. math::

        F_z(z) = I_{(1 + z/\sqrt d)/2}\Big(\frac{d-1}{2}, \frac{d-1}{2}\Big),

    the regularised incomplete beta function (:math:`(1+s)/2` is Beta distributed);
    float64, relative error about ``1e-15`` (scipy's ``betainc``).
    docs/theory/unit-norm.md.

    Examples
    --------
    >>> print(f"{float(score_cdf(0.0, 8)):.3f} {float(score_cdf(3.0, 8)):.3f}")
    0.500 1.000
    """
    a, _ = _constants(d)
    x = np.clip(0.5 * (1.0 + np.asarray(z, dtype=np.float64) / math.sqrt(d)), 0.0, 1.0)
    return np.asarray(special.betainc(a, a, x), dtype=np.float64)


def score_density(z: Any, d: int) -> FloatArray:
    r"""Density :math:`f_z(z) = \frac{c_d}{\sqrt d}(1 - z^2/d)^{(d-3)/2}` on :math:`|z| < \sqrt d`.

    :math:`c_d = \Gamma(d/2)/(\sqrt\pi\,\Gamma((d-1)/2))`; docs/theory/unit-norm.md.

    Examples
    --------
    >>> print(f"{float(score_density(0.0, 3)):.6f}")  # uniform on [-sqrt 3, sqrt 3]
    0.288675
    """
    _, c = _constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return np.asarray(c / math.sqrt(d) * base ** (0.5 * (d - 3)), dtype=np.float64)


def _first_moment(z: Any, d: int) -> FloatArray:
    r""":math:`M_z(z) = \int_{-\sqrt d}^{z} u f_z(u)\,du = -\frac{c_d\sqrt d}{d-1}(1 - z^2/d)_+^{(d-1)/2}`."""
    _, c = _constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return np.asarray(-c * math.sqrt(d) / (d - 1) * base ** (0.5 * (d - 1)), dtype=np.float64)


def _put(c: FloatArray, d: int) -> FloatArray:
    r""":math:`G(c) = \mathbb{E}(c - z)_+ = cF_z(c) - M_z(c)` (0 below the support, c above)."""
    root = math.sqrt(d)
    inside = c * score_cdf(c, d) - _first_moment(c, d)
    return np.where(c <= -root, 0.0, np.where(c >= root, c, inside))


@functools.cache
def _reach(d: int) -> float:
    """Smallest b (on a 1/8 grid) with F_z(-b) and G(-b) below the negligible size, at most sqrt(d)."""
    root = math.sqrt(d)
    for b in np.arange(1.0, root, 0.125):
        point = np.array([-b])
        if max(float(_put(point, d)[0]), float(score_cdf(point, d)[0])) < _NEGLIGIBLE:
            return float(b)
    return root


def _upper_level(p: int, d: int) -> float:
    """A level u with p P(z > u) below the negligible mass (at most sqrt(d))."""
    root = math.sqrt(d)
    a, _ = _constants(d)
    x = float(special.betainccinv(a, a, _NEGLIGIBLE / p))  # P(z > u) = NEGLIGIBLE / p
    return min(root, root * (2.0 * x - 1.0))


# --------------------------------------------------------------------------
# the score tail by a table: quintic Hermite interpolation in the polar angle


def _hermite_bound(d: int) -> float:
    r"""Bound on :math:`|\Phi^{(6)}|`: :math:`c_d\,(15n^3)^{5/6}`, :math:`n = d - 2`.

    :math:`\Phi' = c_d\sin^n\theta` and
    :math:`\sin^n\theta = (2i)^{-n}\sum_k \binom nk (-1)^{n-k} e^{i(2k-n)\theta}`, so
    :math:`|\frac{d^5}{d\theta^5}\sin^n\theta| \le \mathbb{E}|X|^5 \le (\mathbb{E}X^6)^{5/6}`
    with :math:`X` a sum of :math:`n` independent signs,
    :math:`\mathbb{E}X^6 = 15n^3 - 30n^2 + 16n \le 15n^3`.
    """
    _, c = _constants(d)
    return c * float((15.0 * float(d - 2) ** 3) ** (5.0 / 6.0))


@functools.lru_cache(maxsize=64)
def _tail_table(d: int) -> tuple[float, FloatArray]:
    r"""Cell width :math:`\delta` and quintic Hermite coefficients of :math:`\Phi` on :math:`[0, \pi/2]`.

    :math:`\Phi(\theta) = P(z > \sqrt d\cos\theta) = I_{\sin^2(\theta/2)}(\frac{d-1}2, \frac{d-1}2)`,
    :math:`\Phi' = c_d\sin^{d-2}\theta`, :math:`\Phi'' = c_d(d-2)\sin^{d-3}\theta\cos\theta`.
    On a cell of width :math:`\delta` the interpolant matching :math:`\Phi, \Phi', \Phi''` at
    both ends errs by at most :math:`(\delta/2)^6 \max|\Phi^{(6)}| / 6!`
    (:func:`_hermite_bound`); :math:`\delta` makes that at most ``_TABLE_ERROR``.
    Row ``k`` of the ``(6, cells)`` array holds the coefficient of :math:`t^k`,
    :math:`t = \theta/\delta - \text{cell}`.
    """
    a, c = _constants(d)
    half_cell = (720.0 * _TABLE_ERROR / _hermite_bound(d)) ** (1.0 / 6.0)
    cells = math.ceil(0.25 * math.pi / half_cell)
    delta = 0.5 * math.pi / cells
    theta = delta * np.arange(cells + 1)
    sine, cosine = np.sin(theta), np.cos(theta)
    value = special.betainc(a, a, np.sin(0.5 * theta) ** 2)
    slope = delta * c * sine ** (d - 2)
    curve = delta * delta * c * (d - 2) * sine ** (d - 3) * cosine
    y0, y1, v0, v1, w0, w1 = value[:-1], value[1:], slope[:-1], slope[1:], curve[:-1], curve[1:]
    jump = y1 - y0
    coefficients = np.array(
        [
            y0,
            v0,
            0.5 * w0,
            10.0 * jump - 6.0 * v0 - 4.0 * v1 - 0.5 * (3.0 * w0 - w1),
            -15.0 * jump + 8.0 * v0 + 7.0 * v1 + 0.5 * (3.0 * w0 - 2.0 * w1),
            6.0 * jump - 3.0 * v0 - 3.0 * v1 - 0.5 * (w0 - w1),
        ]
    )
    return delta, coefficients


def _upper_tail(z: FloatArray, d: int) -> FloatArray:
    r""":math:`P(z' > |z|) = \Phi(\arccos\min(|z|/\sqrt d, 1))` from the table of :func:`_tail_table`.

    Horner's rule on the cell of :math:`\theta`.  Absolute error about ``1e-15``: the
    interpolation's (below ``_TABLE_ERROR``) and the tabulated ``betainc`` values' own
    (tests/theory/test_unit_norm_route.py: below ``1e-13`` against scipy and mpmath).
    """
    delta, coefficients = _tail_table(d)
    position = np.arccos(np.minimum(np.abs(z) / math.sqrt(d), 1.0)) / delta
    cell = np.minimum(position.astype(np.intp), coefficients.shape[1] - 1)
    t = position - cell
    result: FloatArray = coefficients[5][cell]
    for row in coefficients[4::-1]:
        result *= t
        result += row[cell]
    return result


def _upper_moment(z: FloatArray, d: int) -> FloatArray:
    r""":math:`Q(z) = \int_z^{\sqrt d} u f_z(u)\,du = -M_z(z) = \frac{c_d\sqrt d}{d-1}(1 - z^2/d)_+^{(d-1)/2}`."""
    _, c = _constants(d)
    base = np.clip(1.0 - z * z / d, 0.0, None)
    return np.asarray(c * math.sqrt(d) / (d - 1) * base ** (0.5 * (d - 1)), dtype=np.float64)


# --------------------------------------------------------------------------
# the law of the competitors' hinge sum on nested grids


class _Columns:
    r"""Scores :math:`\ell + jh` of a batch of levels, with :math:`S = P(z' > \cdot)`, :math:`F`, :math:`Q`.

    Columns ``j = -(N - 1), ..., N + 1`` of the fine grid (``N`` nodes, step
    :math:`h = (\ell + b)/(N - 1)`); the coarse grid is every other one.
    """

    def __init__(self, levels: FloatArray, d: int, reach: float, nodes: int) -> None:
        self.nodes = nodes
        self.steps = (levels + reach) / (nodes - 1)
        self.z = levels[:, None] + self.steps[:, None] * np.arange(1 - nodes, nodes + 2)[None, :]
        tail = _upper_tail(self.z, d)
        above = self.z >= 0.0
        self.survival = np.where(above, tail, 1.0 - tail)
        self.cdf = np.where(above, 1.0 - tail, tail)
        self.moment = _upper_moment(self.z, d)

    def up(self, values: FloatArray, stride: int) -> FloatArray:
        """``values`` at :math:`j = 0, s, \\dots, N's` (:math:`N' = (N-1)/s + 1` nodes and one more)."""
        start = self.nodes - 1
        return values[:, start : start + stride * ((self.nodes - 1) // stride + 1) + 1 : stride]

    def down(self, values: FloatArray, stride: int) -> FloatArray:
        """``values`` at :math:`j = 0, -s, -2s, \\dots` (``(N - 1)/s + 1`` columns)."""
        return values[:, self.nodes - 1 :: -stride]


def _hinge_masses(columns: _Columns, stride: int) -> FloatArray:
    r"""Hat-function masses of :math:`(z - \ell)_+` on :math:`0, h', \dots, (N'-1)h'` (:math:`h' = sh`).

    Node :math:`j` receives :math:`\int \Lambda_j(y) f_z(\ell + y)\,dy` (:math:`\Lambda_j`
    the hat of width :math:`2h'` at :math:`jh'`) and node 0 also the atom
    :math:`F_z(\ell)`; mass beyond the last node is dropped.  Cell :math:`j` holds mass
    :math:`S_j - S_{j+1}` and first moment about its left end
    :math:`Q_j - Q_{j+1} - z_j(S_j - S_{j+1})` (:math:`z_j = \ell + jh'`, tails
    :math:`S, Q` for precision in the upper tail), of which the right node receives
    moment / :math:`h'`.  Mass and mean are kept, so smooth expectations err by
    :math:`O(h'^2)`.
    """
    survival = columns.up(columns.survival, stride)
    moment = columns.up(columns.moment, stride)
    z = columns.up(columns.z, stride)
    cell_mass = survival[:, :-1] - survival[:, 1:]
    rise = (moment[:, :-1] - moment[:, 1:] - z[:, :-1] * cell_mass) / (
        stride * columns.steps[:, None]
    )
    masses = cell_mass - rise
    masses[:, 0] += columns.cdf[:, columns.nodes - 1]
    masses[:, 1:] += rise[:, :-1]
    return masses


def _truncated_power(masses: FloatArray, count: int) -> FloatArray:
    """Row-wise law of the sum of ``count`` copies on the same nodes, truncated after every step.

    Binary powering; each power's transform serves both its square and the
    product with the running result (two real FFTs per step).  Exact truncation:
    the values are non-negative, so a partial sum beyond the last node never comes back.
    """
    size = masses.shape[1]
    length = 1 << math.ceil(math.log2(2 * size - 1))  # no wrap-around below ``size``

    def transform(values: FloatArray) -> Any:
        return fft.rfft(values, length, axis=1)

    def back(spectrum: Any) -> FloatArray:
        return np.asarray(fft.irfft(spectrum, length, axis=1)[:, :size], dtype=np.float64)

    power = masses  # masses^(2^k)
    result: FloatArray | None = None  # the powers taken so far; None: the point mass at 0
    while count:
        spectrum = None
        if count & 1:
            if result is None:
                result = power
            else:
                spectrum = transform(power)
                result = back(transform(result) * spectrum)
        count >>= 1
        if count:
            if spectrum is None:
                spectrum = transform(power)
            power = back(spectrum * spectrum)
    if result is None:  # count == 0: the sum is 0
        result = np.zeros(masses.shape)
        result[:, 0] = 1.0
    return result


def _put_values(columns: _Columns) -> FloatArray:
    r""":math:`G(c) = \mathbb{E}(c - z)_+ = cF_z(c) + Q(c)` on the columns (0 below the support, c above)."""
    return columns.z * columns.cdf + columns.moment


def _cdf_values(columns: _Columns) -> FloatArray:
    """:math:`F_z` on the columns."""
    return columns.cdf


def _expected_over_sums(
    levels: FloatArray, d: int, count: int, nodes: int, function: Any, reach: float
) -> FloatArray:
    r""":math:`\mathbb{E}\,\text{function}(\ell - R)`, :math:`R = \sum_{i \le \text{count}}(z_i - \ell)_+`, per level.

    Row 0 on the coarse grid (``nodes`` nodes), row 1 on the fine grid
    (:math:`2\,\text{nodes} - 1`, half the step, the coarse nodes among its own):
    one evaluation of the scores' tail serves both.  :math:`\mathbb{E}\,\text{function}(\ell - R)
    = \sum_j P(R = jh)\,\text{function}(\ell - jh)`, zero where :math:`\ell + b \le 0`
    (there it is below ``function(-b)``, negligible).
    """
    result = np.zeros((2, levels.size))
    used = levels + reach > 0.0
    if not np.any(used):
        return result
    columns = _Columns(levels[used], d, reach, 2 * nodes - 1)
    values = function(columns)
    for row, stride in enumerate((2, 1)):
        law = _truncated_power(_hinge_masses(columns, stride), count)
        result[row, used] = np.sum(law * columns.down(values, stride), axis=1)
    return result


def _kink_level(p: int, d: int) -> float:
    r"""The level :math:`\ell_k` with :math:`(p-1)\,P(z > \ell_k) = 10^{-3}` (``_KINK_COMPETITORS``).

    Above it :math:`R_\ell` is rarely non-zero and the integrand is smooth on the
    scale of a unit; below it lies the kink of :math:`\mathbb{E}(\ell - T_\ell)_+`
    (where :math:`\ell` crosses the concentrated :math:`T_\ell`).
    """
    root = math.sqrt(d)
    a, _ = _constants(d)
    x = float(special.betainccinv(a, a, min(0.5, _KINK_COMPETITORS / max(1, p - 1))))
    return root * (2.0 * x - 1.0)


def _mean_field_active(p: int, d: int) -> float:
    r"""Mean-field active count :math:`m = (p-1)P(z > \hat\ell)`, :math:`\hat\ell = (p-1)\mathbb{E}(z - \hat\ell)_+`.

    :math:`\hat\ell` solves :math:`\ell = \mathbb{E}T_\ell` (bisection on
    :math:`[0, \sqrt d]`; :math:`\mathbb{E}(z - \ell)_+ = G(-\ell)`).  Near
    :math:`\hat\ell` the slope of :math:`\ell - T_\ell` is about :math:`1 + m` and
    :math:`T_\ell` varies by at least 1, so the kink is about :math:`1/(1 + m)` wide.
    """
    low, high = 0.0, math.sqrt(d)
    for _ in range(50):
        middle = 0.5 * (low + high)
        if (p - 1) * float(_put(np.array([-middle]), d)[0]) > middle:
            low = middle
        else:
            high = middle
    return (p - 1) * float(score_cdf(-low, d))


def _level_panels(p: int, d: int, upper: float) -> list[tuple[float, float]]:
    """Panel ends on :math:`[-\\sqrt d, u]`, top panel first.

    At most ``_WIDE_PANEL`` wide above :func:`_kink_level`, below it at most
    ``_NARROW_PANEL`` and at most ``_KINK_WIDTHS`` kink widths
    (:func:`_mean_field_active`; narrower when :math:`m > 11`); the top
    panel at least as wide as a narrow one, so that the panel below it stays clear of
    the end of the support (singular for small d, see :func:`_panel_rule`).
    """
    lower = -math.sqrt(d)
    narrow = min(_NARROW_PANEL, _KINK_WIDTHS / (1.0 + _mean_field_active(p, d)))
    split = max(lower, min(upper - narrow, _kink_level(p, d)))
    edges = [upper]
    for low, high, width in ((split, upper, _WIDE_PANEL), (lower, split, narrow)):
        if high > low:
            count = math.ceil((high - low) / width)
            edges.extend(np.linspace(high, low, count + 1)[1:].tolist())
    return list(zip(edges[1:], edges[:-1], strict=True))


def _panel_rule(a: float, b: float, top: bool) -> tuple[FloatArray, FloatArray]:
    r"""Levels and weights of the 20-point Gauss-Legendre rule on :math:`[a, b]`.

    On the top panel in the variable :math:`s` of :math:`\ell = b - (b - a)s^2`
    (:math:`d\ell = 2(b - a)s\,ds`): the integrand's half-integer powers of
    :math:`\sqrt d - \ell` at the end of the support (small d) become polynomial.
    """
    if not top:
        return 0.5 * (a + b) + 0.5 * (b - a) * _GAUSS_NODES, 0.5 * (b - a) * _GAUSS_WEIGHTS
    s = 0.5 * (1.0 + _GAUSS_NODES[::-1])
    return b - (b - a) * s * s, (b - a) * s * _GAUSS_WEIGHTS[::-1]


def _level_integral(
    p: int, d: int, upper: float, count: int, nodes: int, function: Any, weight: Any
) -> FloatArray:
    r""":math:`\int_{-\sqrt d}^{u} w(\ell)\,\mathbb{E}\,\text{function}(\ell - R_\ell)\,d\ell` on both grids, ``count`` hinges in :math:`R_\ell`.

    Panels of :func:`_level_panels` from the top down.  The expectation only
    decreases further down (more and larger hinges) and :math:`w \le 1`, so below a
    panel :math:`[a, b]` whose lowest level has expectation :math:`E_0` the rest is at
    most :math:`(a + \sqrt d)\,E_0`; the loop stops when that is below the negligible
    size.
    """
    reach = _reach(d)
    root = math.sqrt(d)
    total = np.zeros(2)
    for index, (a, b) in enumerate(_level_panels(p, d, upper)):
        levels, weights = _panel_rule(a, b, top=index == 0)
        inner = _expected_over_sums(levels, d, count, nodes, function, reach)
        total += (inner * weight(levels)) @ weights
        if (a + root) * float(np.max(inner[:, 0])) < _NEGLIGIBLE:
            break
    return total


def _distance_on_grids(p: int, d: int, nodes: int = _GRID) -> FloatArray:
    """:math:`C_p(d)` on the coarse grid (``nodes`` nodes) and the fine one (before extrapolation)."""
    upper = _upper_level(p, d)
    total = _level_integral(p, d, upper, p - 1, nodes, _put_values, np.ones_like)
    # E F(u) = E(z_t - u)^2 = 1 + u^2; the competitors' part of F(u) and the integral
    # above u are below the negligible size (p P(z > u) < 1e-18)
    return np.asarray(1.0 + upper * upper - 2.0 * total, dtype=np.float64)


def _active_on_grids(p: int, d: int, nodes: int = _ACTIVE_GRID) -> FloatArray:
    r""":math:`\mathbb{E}|A| = (p-1)\int f_z(y)\,\mathbb{E}F_z(y - R_y)\,dy` (``p - 2`` hinges), both grids."""

    def density(levels: FloatArray) -> FloatArray:
        return score_density(levels, d)

    total = _level_integral(p, d, _upper_level(p, d), p - 2, nodes, _cdf_values, density)
    return np.asarray((p - 1) * total, dtype=np.float64)


def _extrapolated(values: FloatArray) -> float:
    r"""Richardson: :math:`(4\,\text{fine} - \text{coarse})/3` (the error is :math:`O(h^2)`, h halved)."""
    return float(4.0 * values[1] - values[0]) / 3.0


@functools.cache
def unit_norm_distance(p: int, d: int) -> float:
    r""":math:`C_p(d) = \mathbb{E}\operatorname{dist}(\sqrt d\,s, K)^2` for one integer ``p`` and ``d``.

    Richardson extrapolation of the nested grids with 512 and 1023 nodes (module
    docstring; relative error below ``3e-9``, measured below ``3e-10``).  Cached per
    process.

    Examples
    --------
    >>> print(f"{unit_norm_distance(2, 8):.8f}")  # p = 2: E(z_1 - z_2)_+^2 / 2 = 1/2
    0.50000000
    """
    return _extrapolated(_distance_on_grids(p, d))


@functools.cache
def unit_norm_active_mean(p: int, d: int) -> float:
    r""":math:`\mathbb{E}|A|` of the projection of :math:`\sqrt d\,s` (not the cost; for comparison).

    For Gaussian scores it equals :math:`C_p` (Stein); for sphere coordinates it is
    larger (docs/theory/unit-norm.md).  Same quadrature and precision as
    :func:`unit_norm_distance`, on grids of 1024 and 2047 nodes.

    Examples
    --------
    >>> print(f"{unit_norm_active_mean(2, 8):.10f}")  # P(z_1 > z_2) = 1/2
    0.5000000000
    """
    if p == 2:
        return 0.5
    return _extrapolated(_active_on_grids(p, d))


def sample_unit_norm_scores(rng: np.random.Generator, rows: int, p: int, d: int) -> FloatArray:
    r"""``rows x p`` iid scores :math:`\sqrt d\,s`, :math:`s = 2B - 1`, :math:`B \sim \mathrm{Beta}(\frac{d-1}2, \frac{d-1}2)`.

    The law of one coordinate of a uniform point on :math:`S^{d-1}` (independent of the
    quadrature's incomplete-beta route only through the Beta law itself).

    Examples
    --------
    >>> z = sample_unit_norm_scores(np.random.default_rng(0), 4, 3, 8)
    >>> z.shape, bool(np.all(np.abs(z) <= 8 ** 0.5))
    ((4, 3), True)
    """
    a = 0.5 * (d - 1)
    return math.sqrt(d) * (2.0 * rng.beta(a, a, size=(rows, p)) - 1.0)


# --------------------------------------------------------------------------
# the mean cost at integer and real p, for the unit-norm cost model
# (lamcap.theory._cost_models.UnitNormCosts; this module imports no other theory module
# but the interpolator)


def unit_norm_dimension(p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
    r""":math:`C_p(d)` elementwise over broadcast integer arrays ``p`` and ``d`` (:func:`unit_norm_distance`)."""
    p_b, d_b = np.broadcast_arrays(p, d)
    result = np.empty(p_b.shape)
    for index in np.ndindex(p_b.shape):
        result[index] = unit_norm_distance(int(p_b[index]), int(d_b[index]))
    return result


def unit_norm_dimension_at(p: float, d: int) -> float:
    r""":math:`C_p(d)` at a real ``p >= 2``: cubic in :math:`\log p` through the four nearest integers.

    :func:`lamcap.theory._interpolation.interpolate_in_log_p` on the grid of every integer
    (the two integers below ``p`` and the two above, the lowest at least 2); at an integer
    the computed value itself.
    """
    return interpolate_in_log_p(lambda q: unit_norm_distance(q, d), p, EVERY_INTEGER)
