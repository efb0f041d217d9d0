r"""Laws of Gaussian-plus-hinge sums: the primitive behind the cone geometry.

Every finite-size law of the recall cone (docs/theory/cone.md; arXiv:2605.10795)
reduces to the distribution function of

.. math::

    V = g + \sum_{i=1}^{n} (Z_i - y)_+, \qquad g, Z_i \ \text{iid}\ N(0, 1),

(or of the same sum with the excesses :math:`Z_i - y` conditioned on
:math:`Z_i > y`).  A single excess :math:`X = (Z - y)_+` has the stable
characteristic function

.. math::

    \mathbb{E}\, e^{itX} = 1 + \psi_y(t), \qquad
    \psi_y(t) = \varphi(y)\sqrt{\pi/2}\; w\!\Big(\frac{t + iy}{\sqrt 2}\Big) - Q(y),

with :math:`w` the Faddeeva function and :math:`Q = 1 - \Phi`; the conditional
excess :math:`(Z - y \mid Z > y)` has characteristic function
:math:`w((t+iy)/\sqrt2)/w(iy/\sqrt2)`.  :math:`P(V \le x)` follows from the
Gil-Pelaez inversion formula evaluated with the midpoint rule

.. math::

    P(V \le x) \approx \frac12 - \frac1\pi \sum_{k \ge 0}
    \frac{\operatorname{Im}\big[e^{-it_k x}\,\mathbb{E} e^{it_k V}\big]}{k + 1/2},
    \qquad t_k = (k + \tfrac12)\,h .

Summing the Fourier series of a square wave shows that the *infinite* midpoint
sum equals exactly :math:`P(V - x \in (-L, 0) \bmod 2L)` with :math:`L = 2\pi/h`,
so its error is at most :math:`P(|V - x| \ge L)`.  We choose :math:`L` from
rigorous Chernoff bounds on both tails (minimised over a grid of exponents;
the same bounds return 0 or 1 directly where they decide the value) and cut the sum at :math:`t \ge T` with
:math:`e^{-T^2/2} \le` tolerance, the Gaussian factor :math:`e^{-t^2/2}` of
:math:`g` bounding the tail.  Both errors are below ``1e-17`` in float64, so
the float64 result is limited by rounding only: absolute error about
``1e-15`` for :math:`n \le 10`, growing with the number of hinges (the
characteristic function is raised to the power :math:`n`): up to about ``5e-14``
for :math:`n = 10^2 \dots 10^9` and ``2e-13`` at worst seen (:math:`n = 10^8`,
lower tail), measured against the mpmath twin at 25-30 digits
(``tests/theory/test_reference_sweeps.py``).  With ``dps`` the
same sum is evaluated in mpmath with tolerance :math:`10^{-(dps+5)}`; there the
characteristic function is not taken from mpmath's (slow) complex ``erfc``
but from a linear recursion over the frequency grid (section "mpmath twin"
below), run in fixed-point integers.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap._cone_kernel import (
    CHERNOFF_EXPONENTS,
    LogMgf,
    bounds_from_tables,
    log_mgf_hinge,
    log_tail_bounds,
    mgf_tables,
)
from lamcap._validation import check_dps, check_finite_array, check_integer_array, plain
from lamcap.theory._arrays import broadcast, elementwise, float_result, grouped
from lamcap.theory._precision import working_dps

FloatArray = NDArray[np.float64]
ComplexArray = NDArray[np.complex128]

#: Error budget of each truncation in the float64 routines (aliasing, cut-off).
FLOAT_TOLERANCE = 1e-17
#: Largest number of (point, frequency) pairs evaluated at once.
_CHUNK = 1 << 21
#: Points share a chunk's frequency count if they need at least this fraction of it.
_CHUNK_NODE_RATIO = 0.75
#: Below this threshold the excess (Z - y)_+ equals Z - y except with probability < 1e-88.
_DEEP_THRESHOLD = -20.0

# --------------------------------------------------------------------------
# log moment generating functions (for the rigorous tail bounds)


def log_mgf_excess(lam: FloatArray, y: FloatArray) -> FloatArray:
    r""":math:`\log \mathbb{E}[e^{\lambda (Z - y)} \mid Z > y]` for real :math:`\lambda`."""
    log_tail_ratio = special.log_ndtr(lam - y) - special.log_ndtr(-y)
    return -lam * y + 0.5 * lam**2 + log_tail_ratio  # type: ignore[no-any-return,unused-ignore]


def _period_from_tables(
    x: FloatArray, up: FloatArray, down: FloatArray, log_tol: float
) -> FloatArray:
    lam = CHERNOFF_EXPONENTS[:, None]
    base = 0.5 * lam**2 - log_tol
    upper = np.min((base + up) / lam, axis=0) - x
    lower = x + np.min((base + down) / lam, axis=0)
    return np.maximum(np.maximum(lower, upper), 1.0)  # type: ignore[no-any-return,unused-ignore]


def aliasing_period(
    x: FloatArray, y: FloatArray, count: int, log_tol: float, log_mgf: LogMgf = log_mgf_hinge
) -> FloatArray:
    r"""Half-period :math:`L` with :math:`P(|V - x| \ge L) \le 2\,e^{\text{log\_tol}}`.

    Chernoff bounds on both tails, for every :math:`\lambda > 0`:
    :math:`P(V \ge x + L) \le \exp(-\lambda(x + L) + \lambda^2/2 + n \log M(\lambda))`
    and :math:`P(V \le x - L) \le \exp(\lambda(x - L) + \lambda^2/2 + n \log M(-\lambda))`,
    :math:`M` the moment generating function of one summand; each is minimised
    over a grid of :math:`\lambda` (any grid keeps the bound rigorous).
    """
    return _period_from_tables(x, *mgf_tables(y, count, log_mgf), log_tol)


def cutoff_frequency(log_tol: float) -> float:
    r"""Frequency :math:`T` beyond which the Gaussian factor makes the sum negligible."""
    return math.sqrt(-2.0 * log_tol) + 0.5


# --------------------------------------------------------------------------
# characteristic functions (float64)


def complex_log1p(z: ComplexArray) -> ComplexArray:
    r""":math:`\log(1 + z)` accurate for small complex :math:`z` (numpy's ``log1p`` is not)."""
    a, b = z.real, z.imag
    small = np.abs(z) < 0.5
    if np.all(small):  # the common case: one branch only
        return 0.5 * np.log1p(a * (2.0 + a) + b * b) + 1j * np.arctan2(b, 1.0 + a)  # type: ignore[no-any-return,unused-ignore]
    near = np.where(small, a * (2.0 + a) + b * b, 0.0)
    with np.errstate(divide="ignore"):
        log_modulus = np.where(small, 0.5 * np.log1p(near), np.log(np.hypot(1.0 + a, b)))
    return log_modulus + 1j * np.arctan2(b, 1.0 + a)  # type: ignore[no-any-return,unused-ignore]


def log_cf_hinge(t: FloatArray, y: FloatArray) -> ComplexArray:
    r""":math:`\log \mathbb{E}\, e^{it(Z - y)_+}` (principal branch), float64.

    Uses :math:`\log(1 + \psi_y(t))` with ``log1p`` for :math:`y \ge 0` (where
    :math:`\psi_y` is small), the full characteristic function for
    :math:`-20 \le y < 0`, and :math:`-ity - t^2/2` below (exact to 1e-88).
    """
    y_safe = np.maximum(y, _DEEP_THRESHOLD)
    tail = (np.exp(-0.5 * y_safe**2) * 0.5) * special.wofz((t + 1j * y_safe) / math.sqrt(2.0))
    if np.all(y >= 0.0):  # the common case: skip the branches that are not used
        return complex_log1p(tail - special.ndtr(-y_safe))
    psi = tail - special.ndtr(-y_safe)
    with np.errstate(divide="ignore", invalid="ignore"):
        shallow = np.where(y_safe >= 0.0, complex_log1p(psi), np.log(special.ndtr(y_safe) + tail))
    deep = -1j * t * y - 0.5 * t**2
    return np.where(y < _DEEP_THRESHOLD, deep, shallow)  # type: ignore[no-any-return,unused-ignore]


def log_cf_excess(t: FloatArray, y: FloatArray) -> ComplexArray:
    r""":math:`\log \mathbb{E}[e^{it(Z - y)} \mid Z > y] = \log w(\frac{t+iy}{\sqrt2}) - \log w(\frac{iy}{\sqrt2})`."""
    y_safe = np.maximum(y, _DEEP_THRESHOLD)
    ratio = special.wofz((t + 1j * y_safe) / math.sqrt(2.0)) / special.wofz(
        1j * y_safe / math.sqrt(2.0)
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        shallow = complex_log1p(ratio - 1.0)
    deep = -1j * t * y - 0.5 * t**2
    return np.where(y < _DEEP_THRESHOLD, deep, shallow)  # type: ignore[no-any-return,unused-ignore]


LogCf = Callable[[FloatArray, FloatArray], ComplexArray]


def vanishing_hinges(y: FloatArray, count: int, log_tol: float) -> NDArray[np.bool_]:
    r"""Where :math:`n\,Q(y) \le e^{\text{log\_tol}}`: there :math:`P(V \le x) = \Phi(x)` to that relative error.

    With :math:`S = \sum_{i \le n} (Z_i - y)_+ \ge 0` independent of :math:`g`,
    :math:`\Phi(x)\,P(S = 0) \le P(g + S \le x) \le \Phi(x)` and
    :math:`P(S > 0) \le n\,Q(y)` (union bound), so the relative error of
    :math:`\Phi(x)` is at most :math:`n\,Q(y)`.  This decides every threshold
    far above the Gaussians (:math:`y \gtrsim 40` for any float64 count, up to
    :math:`y = +\infty`) without evaluating :math:`y^2` or :math:`\lambda y`,
    which overflow from :math:`y \approx 10^{154}`.  ``count >= 1``.
    """
    return np.asarray(special.log_ndtr(-y) + math.log(count) <= log_tol, dtype=bool)


def sum_cdf(
    x: FloatArray,
    y: FloatArray,
    count: int,
    *,
    kind: str = "hinge",
    log_tol: float = math.log(FLOAT_TOLERANCE),
) -> FloatArray:
    r""":math:`P(g + \sum_{i \le n} X_i \le x)` for 1-D arrays ``x``, ``y`` (float64).

    ``kind="hinge"``: :math:`X_i = (Z_i - y)_+`; ``kind="excess"``:
    :math:`X_i = (Z_i - y \mid Z_i > y)`.  No argument checks (internal).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if count == 0:
        return special.ndtr(x)  # type: ignore[no-any-return,unused-ignore]
    if kind == "hinge":  # hinges that vanish to the tolerance: Phi(x) (vanishing_hinges)
        vanish = vanishing_hinges(y, count, log_tol)
        if np.any(vanish):
            result = np.asarray(special.ndtr(x), dtype=np.float64)
            rest = np.flatnonzero(~vanish)
            if rest.size:
                result[rest] = sum_cdf(x[rest], y[rest], count, kind=kind, log_tol=log_tol)
            return result
    log_cf, log_mgf = (
        (log_cf_hinge, log_mgf_hinge) if kind == "hinge" else (log_cf_excess, log_mgf_excess)
    )
    # Where a rigorous bound already decides the value to within the tolerance,
    # skip the inversion (this also avoids huge node counts far in the tails).
    up, down = mgf_tables(y, count, log_mgf)  # shared by both kinds of bound
    log_below, log_above = bounds_from_tables(x, up, down)
    result = np.where(log_below < log_tol, 0.0, 1.0)
    pending = np.flatnonzero((log_below >= log_tol) & (log_above >= log_tol))
    step = (
        2.0 * math.pi / _period_from_tables(x[pending], up[:, pending], down[:, pending], log_tol)
    )
    cutoff = cutoff_frequency(log_tol)
    order = np.argsort(step)  # group similar node counts together
    needed = np.ceil(cutoff / step[order])  # non-increasing
    start = 0
    while start < pending.size:
        nodes = int(needed[start])
        # rows needing at least 3/4 of this chunk's node count share it
        similar = int(np.searchsorted(-needed, -_CHUNK_NODE_RATIO * nodes, side="right"))
        stop = min(pending.size, start + max(1, _CHUNK // nodes), max(similar, start + 1))
        chunk = order[start:stop]
        rows = pending[chunk]
        result[rows] = _midpoint_gil_pelaez(x[rows], y[rows], step[chunk], nodes, count, log_cf)
        start = stop
    return np.clip(result, 0.0, 1.0)


def _midpoint_gil_pelaez(
    x: FloatArray, y: FloatArray, step: FloatArray, nodes: int, count: int, log_cf: LogCf
) -> FloatArray:
    half_integers = np.arange(nodes) + 0.5
    t = step[:, None] * half_integers[None, :]
    log_phi = count * log_cf(t, y[:, None]) - 0.5 * t**2 - 1j * t * x[:, None]
    terms = np.exp(log_phi.real) * np.sin(log_phi.imag) / half_integers
    return 0.5 - np.sum(terms, axis=1) / math.pi  # type: ignore[no-any-return,unused-ignore]


# --------------------------------------------------------------------------
# mpmath twin: fixed-point recursion for the characteristic function
#
# G_y(t) = E[e^{it(Z - y)}; Z > y] solves G' = i phi(y) - (t + iy) G, so that
#     G(s + d) = e^{-(2sd + d^2)/2 - iyd} G(s) + i phi(y) int_0^d e^{-(s+d+iy)v + v^2/2} dv,
# and the last integral (an entire integrand on a short interval) is a
# Gauss-Legendre sum whose nodes are shared by every frequency.  On the grid
# t_k = (k + 1/2)h the factors are geometric in k, so one complex exponential
# per node and point suffices; the recursion runs in fixed-point integers
# (absolute error ~ k 2^-bits, the map is a contraction).  Then
# E e^{itX} = Phi(y) + G(t) (hinge) or G(t)/Q(y) (conditional excess).

_Fixed = tuple[int, int]


@functools.lru_cache(maxsize=64)
def legendre_unit_rule(order: int, bits: int) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Gauss-Legendre nodes and weights on [0, 1] to ``bits`` bits (Newton from float64)."""
    start, _ = np.polynomial.legendre.leggauss(order)
    nodes, weights = [], []
    with mpmath.workprec(bits + 20):
        for guess in start:
            x = mpmath.mpf(float(guess))
            for _ in range(60):
                value, slope = _legendre_and_slope(order, x)
                step = value / slope
                x -= step
                if abs(step) < mpmath.ldexp(1, -bits - 10):
                    break
            _, slope = _legendre_and_slope(order, x)
            nodes.append((1 + x) / 2)
            weights.append(1 / ((1 - x * x) * slope * slope))
    return tuple(nodes), tuple(weights)


def _legendre_and_slope(order: int, x: Any) -> tuple[Any, Any]:
    previous, current = mpmath.mpf(1), x
    for k in range(2, order + 1):
        previous, current = current, ((2 * k - 1) * x * current - (k - 1) * previous) / k
    return current, order * (x * current - previous) / (x * x - 1)


def _step_order(frequency: float, step: float, digits: int) -> int:
    """Gauss-Legendre order for int_0^d e^{-cv + v^2/2} dv, |c| <= ``frequency``, to 10^-digits.

    Standard remainder :math:`d^{2N+1}(N!)^4 / ((2N+1)((2N)!)^3)\\,\\max|f^{(2N)}|` with
    :math:`|f^{(2N)}| \\le (|c| + d + 1)^{2N} e^{d^2/2}` on the interval (plus 3 guard digits).
    """
    scale = frequency + step + 1.0
    for order in range(4, 400):
        log_error = (
            (2 * order + 1) * math.log(step)
            + 4 * math.lgamma(order + 1)
            - math.log(2 * order + 1)
            - 3 * math.lgamma(2 * order + 1)
            + 2 * order * math.log(scale)
            + 0.5 * step * step
        )
        if log_error < -(digits + 3) * math.log(10.0):
            return order
    return 400


def _to_fixed(value: Any, bits: int) -> int:
    return int(mpmath.libmp.to_fixed(mpmath.mpf(value)._mpf_, bits))


def _fixed_mul(a: _Fixed, b: _Fixed, bits: int) -> _Fixed:
    return ((a[0] * b[0] - a[1] * b[1]) >> bits, (a[0] * b[1] + a[1] * b[0]) >> bits)


class _FrequencyGrid(NamedTuple):
    """Data shared by all points with the same frequency step ``h`` (fixed point)."""

    step: Any
    terms: int
    nodes: tuple[Any, ...]  # v_j = h xi_j (mpf)
    half_nodes: tuple[Any, ...]  # h xi_j / 2
    kernel: list[list[int]]  # h w_j e^{v_j^2/2 - t_{k+1} v_j}, k < terms - 1
    half_kernel: list[int]  # (h/2) w_j e^{v_j^2/8 - h v_j/4}
    decay: list[int]  # e^{-h^2 (k + 1)}, the factor carrying G(t_k) to G(t_{k+1})
    half_decay: int  # e^{-h^2/8}


def _frequency_grid(step: Any, terms: int, order: int, bits: int) -> _FrequencyGrid:
    xi, w = legendre_unit_rule(order, bits)
    nodes = tuple(step * x for x in xi)
    half_nodes = tuple(v / 2 for v in nodes)
    kernel = []
    for k in range(terms - 1):
        t_next = (k + mpmath.mpf(1.5)) * step
        kernel.append(
            [
                _to_fixed(step * wj * mpmath.exp(v * v / 2 - t_next * v), bits)
                for v, wj in zip(nodes, w, strict=True)
            ]
        )
    half_kernel = [
        _to_fixed(step / 2 * wj * mpmath.exp(v * v / 2 - step * v / 2), bits)
        for v, wj in zip(half_nodes, w, strict=True)
    ]
    decay = [_to_fixed(mpmath.exp(-step * step * (k + 1)), bits) for k in range(terms - 1)]
    return _FrequencyGrid(
        step,
        terms,
        nodes,
        half_nodes,
        kernel,
        half_kernel,
        decay,
        _to_fixed(mpmath.exp(-step * step / 8), bits),
    )


def _rotation(angle: Any, bits: int) -> _Fixed:
    """:math:`e^{-i\\,\\text{angle}}` in fixed point."""
    cos, sin = mpmath.cos_sin(angle)
    return _to_fixed(cos, bits), -_to_fixed(sin, bits)


def _tail_cf_fixed(y: Any, grid: _FrequencyGrid, bits: int) -> list[_Fixed]:
    """:math:`G_y(t_k) = \\int_y^\\infty \\varphi(z) e^{it_k(z - y)}dz`, ``k < terms``, fixed point."""
    density = _to_fixed(mpmath.npdf(y), bits)
    half_rotations = [_rotation(y * v, bits) for v in grid.half_nodes]
    rotations = [_fixed_mul(r, r, bits) for r in half_rotations]

    def integral(weights: list[int], phases: list[_Fixed]) -> _Fixed:
        real = sum(wj * r[0] for wj, r in zip(weights, phases, strict=True)) >> bits
        imag = sum(wj * r[1] for wj, r in zip(weights, phases, strict=True)) >> bits
        return (-imag * density) >> bits, (real * density) >> bits  # times i phi(y)

    half_turn = _rotation(y * grid.step / 2, bits)
    full_turn = _fixed_mul(half_turn, half_turn, bits)
    start = _to_fixed(mpmath.ncdf(-y), bits)
    shrink = (start * grid.half_decay) >> bits
    carried = ((shrink * half_turn[0]) >> bits, (shrink * half_turn[1]) >> bits)
    source = integral(grid.half_kernel, half_rotations)
    values = [(carried[0] + source[0], carried[1] + source[1])]
    for k in range(grid.terms - 1):
        turned = _fixed_mul(values[-1], full_turn, bits)
        source = integral(grid.kernel[k], rotations)
        values.append(
            (
                ((turned[0] * grid.decay[k]) >> bits) + source[0],
                ((turned[1] * grid.decay[k]) >> bits) + source[1],
            )
        )
    return values


def _gil_pelaez_mp(
    x: Any, y: Any, count: int, kind: str, grid: _FrequencyGrid, bits: int, log_tol: float
) -> Any:
    r"""Midpoint Gil-Pelaez sum for :math:`P(g + \sum_{i \le n} X_i \le x)` (mpmath).

    Works on raw mpmath tuples (``mpmath.libmp``) to avoid object overhead;
    terms whose modulus :math:`|\phi(t_k)|` is below ``e^log_tol`` are skipped
    (the decision uses a float64 estimate of the modulus).
    """
    libmp = mpmath.libmp
    rounding = libmp.round_nearest
    prec = mpmath.mp.prec
    if kind == "hinge":
        offset, log_divisor = _to_fixed(mpmath.ncdf(y), bits), libmp.fzero
    else:  # the conditional excess divides by Q(y)
        offset, log_divisor = 0, mpmath.log(mpmath.ncdf(-y))._mpf_
    log_divisor_float = libmp.to_float(log_divisor)
    half = libmp.from_rational(1, 2, prec, rounding)
    total = libmp.fzero
    scale_log = 2 * bits * math.log(2.0)
    for k, (tail_real, imag) in enumerate(_tail_cf_fixed(y, grid, bits)):
        real = tail_real + offset
        squared = real * real + imag * imag
        t_float = (k + 0.5) * float(grid.step)
        if squared == 0 or (
            count * (0.5 * (math.log(squared) - scale_log) - log_divisor_float)
            - 0.5 * t_float * t_float
            < log_tol
        ):
            continue
        index = libmp.from_rational(2 * k + 1, 2, prec, rounding)
        t = libmp.mpf_mul(index, grid.step._mpf_, prec)
        log_modulus = libmp.mpf_sub(
            libmp.mpf_mul(
                libmp.mpf_log(libmp.from_man_exp(squared, -2 * bits), prec, rounding), half, prec
            ),
            log_divisor,
            prec,
        )
        angle = libmp.mpf_atan2(
            libmp.from_man_exp(imag, -bits), libmp.from_man_exp(real, -bits), prec, rounding
        )
        exponent = libmp.mpf_sub(
            libmp.mpf_mul_int(log_modulus, count, prec),
            libmp.mpf_mul(libmp.mpf_mul(t, t, prec), half, prec),
            prec,
        )
        phase = libmp.mpf_sub(
            libmp.mpf_mul_int(angle, count, prec), libmp.mpf_mul(t, x._mpf_, prec), prec
        )
        term = libmp.mpf_mul(libmp.mpf_exp(exponent, prec), libmp.mpf_sin(phase, prec), prec)
        total = libmp.mpf_add(total, libmp.mpf_div(term, index, prec), prec)
    return mpmath.mpf(0.5) - mpmath.mpf(total) / mpmath.pi


def sum_cdf_mp_many(
    x: Sequence[Any], y: Sequence[Any], count: int, *, kind: str = "hinge", dps: int = 30
) -> list[Any]:
    r"""mpmath twin of :func:`sum_cdf`: values good to about ``dps`` digits (absolute).

    The points share one frequency step (the smallest any of them needs), so
    pass points with similar aliasing periods together (e.g. one quadrature panel).
    Truncations: aliasing and cut-off errors below :math:`10^{-(dps+5)}` each
    (Chernoff bounds, as in float64), the characteristic function to
    :math:`10^{-(dps+8)}` (Gauss-Legendre remainder bound) in fixed point with
    :data:`~lamcap.theory._precision.GUARD_DIGITS` + ``log10(count)`` guard digits.
    """
    digits = working_dps(dps) + int(math.log10(count + 1))
    bits = int(digits * 3.33) + 20
    with mpmath.workdps(digits):
        xs = [mpmath.mpf(v) for v in x]
        ys = [mpmath.mpf(v) for v in y]
        if count == 0:
            return [mpmath.ncdf(v) for v in xs]
        log_tol = -(dps + 5) * math.log(10.0)
        log_mgf = log_mgf_hinge if kind == "hinge" else log_mgf_excess
        x_float = np.array([float(v) for v in xs])
        y_float = np.array([float(v) for v in ys])
        if kind == "hinge":
            decided = vanishing_hinges(y_float, count, log_tol)
        else:
            decided = np.zeros(len(xs), dtype=bool)
        rest = np.flatnonzero(~decided)
        log_below = np.zeros(len(xs))
        log_above = np.zeros(len(xs))
        if rest.size:
            log_below[rest], log_above[rest] = log_tail_bounds(
                x_float[rest], y_float[rest], count, log_mgf
            )
        results = [
            mpmath.ncdf(xs[i])  # the hinges vanish (vanishing_hinges)
            if decided[i]
            else mpmath.mpf(0 if log_below[i] < log_tol else 1)
            for i in range(len(xs))
        ]
        pending = rest[(log_below[rest] >= log_tol) & (log_above[rest] >= log_tol)]
        if pending.size == 0:
            return results
        half_period = float(
            np.max(aliasing_period(x_float[pending], y_float[pending], count, log_tol, log_mgf))
        )
        step = 2 * mpmath.pi / mpmath.mpf(half_period)
        cutoff = cutoff_frequency(log_tol)
        terms = math.ceil(cutoff / float(step))
        frequency = math.hypot(cutoff + float(step), float(np.max(np.abs(y_float[pending]))))
        order = _step_order(frequency, float(step), digits - 2)
        grid = _frequency_grid(step, terms, order, bits)
        for i in pending:
            results[i] = _gil_pelaez_mp(xs[i], ys[i], count, kind, grid, bits, log_tol - 5.0)
        return results


def sum_cdf_mp(x: Any, y: Any, count: int, *, kind: str = "hinge", dps: int = 30) -> Any:
    r"""mpmath twin of :func:`sum_cdf` for scalars, accurate to about ``dps`` digits (absolute)."""
    return sum_cdf_mp_many([x], [y], count, kind=kind, dps=dps)[0]


# --------------------------------------------------------------------------
# public API


def hinge_sum_cdf(
    x: ArrayLike,
    threshold: ArrayLike,
    count: ArrayLike,
    *,
    shift: ArrayLike = 0.0,
    dps: int | None = None,
) -> Any:
    r"""Distribution function of a Gaussian plus a sum of hinges.

    .. math::

        F(x) = P\Big(g + \sum_{i=1}^{n} (Z_i + s - \theta)_+ \le x\Big),
        \qquad g, Z_1, \dots, Z_n \ \text{iid}\ N(0, 1),

    with threshold :math:`\theta`, count :math:`n` and shift :math:`s`
    (the margin of docs/theory/mechanism.md, so that the hinge is at :math:`y = \theta - s`).
    Computed by midpoint Gil-Pelaez inversion of the characteristic function
    :math:`e^{-t^2/2}(1 + \psi_y(t))^n` (module docstring; arXiv:2605.10795,
    docs/theory/cone.md, fact 5).

    Parameters
    ----------
    x, threshold : array_like
        Finite reals.  Far above the Gaussians (where :math:`n\,Q(\theta - s)` is
        below ``1e-17``, or ``10**-(dps + 5)`` with ``dps``: :math:`\theta - s \gtrsim 40`)
        the hinges vanish and the value is :math:`\Phi(x)` to that relative error,
        up to ``threshold=1e308``.
    count : int or array_like of int
        :math:`n \ge 0` (``0`` gives :math:`\Phi(x)`).
    shift : float or array_like, optional
        :math:`s`, any finite real; with ``count >= 1``, ``threshold - shift`` must be
        at least ``-1.8e308`` (the float64 range; ``ValueError`` otherwise).  All four
        arguments broadcast together.
    dps : int, optional
        Return mpmath numbers accurate to about ``dps`` digits (absolute).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        Broadcast shape of the arguments (array contract: docs/howto/precision.md).
        Absolute error in float64 about ``1e-15`` for ``count <= 10``, up to about
        ``5e-14`` for larger counts and ``2e-13`` at worst seen (``count = 1e8``);
        truncation errors are bounded by ``1e-17`` rigorously, the rest is
        rounding in the characteristic function raised to the power ``count``
        (measured against ``dps=30``; module docstring).  Tiny probabilities are
        therefore only good in absolute terms.

    Examples
    --------
    >>> print(f"{hinge_sum_cdf(0.0, 1.0, 0):.6f}")  # Phi(0)
    0.500000
    >>> print(f"{hinge_sum_cdf(1.0, 0.0, 3):.6f}")
    0.468054
    >>> print(mpmath.nstr(hinge_sum_cdf(1.0, 0.0, 3, dps=20), 12))
    0.468054322486
    """
    x_array, threshold_array, counts, shifts = broadcast(
        check_finite_array("x", x),
        check_finite_array("threshold", threshold),
        check_integer_array("count", count, minimum=0),
        check_finite_array("shift", shift),
        names=("x", "threshold", "count", "shift"),
    )
    with np.errstate(over="ignore"):  # +inf: the hinges vanish, Phi(x) exactly (sum_cdf)
        hinges = threshold_array - shifts
    deep = (hinges == -np.inf) & (counts > 0)
    if np.any(deep):
        where = tuple(int(i) for i in np.argwhere(deep)[0])
        msg = (
            "threshold - shift must be >= -1.8e+308 (the hinge position is a float64), got "
            f"threshold={plain(threshold_array[where])}, shift={plain(shifts[where])}"
        )
        raise ValueError(msg)
    digits = check_dps(dps)
    if digits is not None:

        def one(x_value: float, threshold_value: float, n: int, s: float) -> Any:
            return sum_cdf_mp(x_value, mpmath.mpf(threshold_value) - mpmath.mpf(s), n, dps=digits)

        return elementwise(one, x_array, threshold_array, counts, shifts, dps=digits)
    # one inversion per distinct count:
    return float_result(grouped(lambda n, u, y: sum_cdf(u, y, n), [counts], x_array, hinges))


def target_level_cdf(
    x: ArrayLike, p: ArrayLike, margin: ArrayLike = 0.0, *, dps: int | None = None
) -> Any:
    r"""Law of the projected target score :math:`\ell^*` (the common level of the projection).

    For :math:`G \sim N(0, I_p)` projected onto :math:`K_m = \{\lambda_t \ge
    \lambda_\rho + m\}` the target and the active competitors move to the level
    :math:`\ell^*` solving :math:`\ell - g_t = \sum_\rho (g_\rho + m - \ell)_+`
    (its left side increases and its right side decreases in :math:`\ell`), hence

    .. math::

        P(\ell^* \le x) = P\Big(g_t + \sum_{\rho \ne t} (g_\rho + m - x)_+ \le x\Big)
        = \texttt{hinge\_sum\_cdf}(x, x, p - 1, \text{shift}=m).

    In these coordinates the projected competitors sit at or below
    :math:`\ell^* - m` (docs/theory/mechanism.md, scores at capacity; arXiv:2605.10795).

    Parameters
    ----------
    x : array_like
        Points at which the distribution function is evaluated.
    p : int or array_like of int
        Number of outputs, ``p >= 2``.
    margin : float or array_like, optional
        :math:`m \ge 0`.  ``x``, ``p`` and ``margin`` broadcast together.
    dps : int, optional
        Return mpmath numbers accurate to about ``dps`` digits (absolute).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        Same precision as :func:`hinge_sum_cdf`; broadcast shape of the arguments.

    Examples
    --------
    >>> print(f"{target_level_cdf(0.0, 2):.6f}")  # P(g + (Z)_+ <= 0) = P(g <= 0, g + Z <= 0)
    0.375000
    """
    outputs = check_integer_array("p", p, minimum=2)
    margins = check_finite_array("margin", margin, minimum=0.0)
    return hinge_sum_cdf(x, x, outputs - 1, shift=margins, dps=dps)
