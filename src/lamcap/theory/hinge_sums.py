r"""Laws of Gaussian-plus-hinge sums: the primitive behind the cone geometry.

Every finite-size law of the recall cone (THEORY.md §2; arXiv:2605.10795)
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
``1e-15`` (measured against the mpmath twin at 30 digits).  With ``dps`` the
same sum is evaluated in mpmath with tolerance :math:`10^{-(dps+5)}`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap._validation import check_dps, check_finite_array, check_integer, check_real

__all__ = ["hinge_sum_cdf", "target_level_cdf"]

FloatArray = NDArray[np.float64]
ComplexArray = NDArray[np.complex128]

#: Error budget of each truncation in the float64 routines (aliasing, cut-off).
FLOAT_TOLERANCE = 1e-17
#: Exponents over which the Chernoff bounds are minimised (any grid is rigorous).
_CHERNOFF_EXPONENTS = np.geomspace(1e-2, 60.0, 80)
#: Largest number of (point, frequency) pairs evaluated at once.
_CHUNK = 1 << 21
#: Below this threshold the excess (Z - y)_+ equals Z - y except with probability < 1e-88.
_DEEP_THRESHOLD = -20.0

# --------------------------------------------------------------------------
# log moment generating functions (for the rigorous tail bounds)


def log_mgf_hinge(lam: FloatArray, y: FloatArray) -> FloatArray:
    r""":math:`\log \mathbb{E}\, e^{\lambda (Z - y)_+}` for real :math:`\lambda` (either sign)."""
    inside = -lam * y + 0.5 * lam**2 + special.log_ndtr(lam - y)
    return np.logaddexp(special.log_ndtr(y), inside)  # type: ignore[no-any-return,unused-ignore]


def log_mgf_excess(lam: FloatArray, y: FloatArray) -> FloatArray:
    r""":math:`\log \mathbb{E}[e^{\lambda (Z - y)} \mid Z > y]` for real :math:`\lambda`."""
    log_tail_ratio = special.log_ndtr(lam - y) - special.log_ndtr(-y)
    return -lam * y + 0.5 * lam**2 + log_tail_ratio  # type: ignore[no-any-return,unused-ignore]


LogMgf = Callable[[FloatArray, FloatArray], FloatArray]


def _min_over_exponents(values: FloatArray) -> FloatArray:
    return np.min(values, axis=0)  # type: ignore[no-any-return,unused-ignore]


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
    lam = _CHERNOFF_EXPONENTS[:, None]
    base = 0.5 * lam**2 - log_tol
    up_exponent, down_exponent = base, base
    if count > 0:
        up_exponent = base + count * log_mgf(lam, y[None, :])
        down_exponent = base + count * log_mgf(-lam, y[None, :])
    upper = _min_over_exponents(up_exponent / lam) - x
    lower = x + _min_over_exponents(down_exponent / lam)
    return np.maximum(np.maximum(lower, upper), 1.0)  # type: ignore[no-any-return,unused-ignore]


def log_tail_bounds(
    x: FloatArray, y: FloatArray, count: int, log_mgf: LogMgf = log_mgf_hinge
) -> tuple[FloatArray, FloatArray]:
    r"""Chernoff bounds on :math:`\log P(V \le x)` and :math:`\log P(V \ge x)` (each <= 0)."""
    lam = _CHERNOFF_EXPONENTS[:, None]
    below = lam * x[None, :] + 0.5 * lam**2
    above = -lam * x[None, :] + 0.5 * lam**2
    if count > 0:
        below = below + count * log_mgf(-lam, y[None, :])
        above = above + count * log_mgf(lam, y[None, :])
    return (
        np.minimum(_min_over_exponents(below), 0.0),
        np.minimum(_min_over_exponents(above), 0.0),
    )


def cutoff_frequency(log_tol: float) -> float:
    r"""Frequency :math:`T` beyond which the Gaussian factor makes the sum negligible."""
    return math.sqrt(-2.0 * log_tol) + 0.5


# --------------------------------------------------------------------------
# characteristic functions (float64)


def complex_log1p(z: ComplexArray) -> ComplexArray:
    r""":math:`\log(1 + z)` accurate for small complex :math:`z` (numpy's ``log1p`` is not)."""
    a, b = z.real, z.imag
    small = np.abs(z) < 0.5
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
    log_cf, log_mgf = (
        (log_cf_hinge, log_mgf_hinge) if kind == "hinge" else (log_cf_excess, log_mgf_excess)
    )
    # Where a rigorous bound already decides the value to within the tolerance,
    # skip the inversion (this also avoids huge node counts far in the tails).
    log_below, log_above = log_tail_bounds(x, y, count, log_mgf)
    result = np.where(log_below < log_tol, 0.0, 1.0)
    pending = np.flatnonzero((log_below >= log_tol) & (log_above >= log_tol))
    step = 2.0 * math.pi / aliasing_period(x[pending], y[pending], count, log_tol, log_mgf)
    cutoff = cutoff_frequency(log_tol)
    order = np.argsort(step)  # group similar node counts together
    start = 0
    while start < pending.size:
        nodes = math.ceil(cutoff / step[order[start]])
        stop = min(pending.size, start + max(1, _CHUNK // nodes))
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
# mpmath twin


def _mp_cf_hinge(t: Any, y: Any) -> Any:
    tail = mpmath.exp(-1j * t * y - t * t / 2) * mpmath.erfc((y - 1j * t) / mpmath.sqrt(2)) / 2
    return mpmath.ncdf(y) + tail


def _mp_cf_excess(t: Any, y: Any) -> Any:
    numerator = mpmath.exp(-1j * t * y - t * t / 2) * mpmath.erfc((y - 1j * t) / mpmath.sqrt(2))
    return numerator / mpmath.erfc(y / mpmath.sqrt(2))


def sum_cdf_mp(x: Any, y: Any, count: int, *, kind: str = "hinge", dps: int = 30) -> Any:
    r"""mpmath twin of :func:`sum_cdf` for scalars, accurate to about ``dps`` digits (absolute)."""
    guard = dps + 10 + int(math.log10(count + 1))
    with mpmath.workdps(guard):
        x, y = mpmath.mpf(x), mpmath.mpf(y)
        if count == 0:
            return mpmath.ncdf(x)
        log_tol = -(dps + 5) * math.log(10.0)
        log_mgf = log_mgf_hinge if kind == "hinge" else log_mgf_excess
        half_period = aliasing_period(
            np.array([float(x)]), np.array([float(y)]), count, log_tol, log_mgf
        )[0]
        step = 2 * mpmath.pi / mpmath.mpf(float(half_period))
        nodes = math.ceil(cutoff_frequency(log_tol) / float(step))
        cf = _mp_cf_hinge if kind == "hinge" else _mp_cf_excess
        total = mpmath.mpf(0)
        for k in range(nodes):
            t = (k + mpmath.mpf(0.5)) * step
            value = mpmath.exp(-1j * t * x - t * t / 2) * cf(t, y) ** count
            total += mpmath.im(value) / (k + mpmath.mpf(0.5))
        return mpmath.mpf(0.5) - total / mpmath.pi


# --------------------------------------------------------------------------
# public API


def hinge_sum_cdf(
    x: ArrayLike, threshold: ArrayLike, count: int, *, shift: float = 0.0, dps: int | None = None
) -> Any:
    r"""Distribution function of a Gaussian plus a sum of hinges.

    .. math::

        F(x) = P\Big(g + \sum_{i=1}^{n} (Z_i + s - \theta)_+ \le x\Big),
        \qquad g, Z_1, \dots, Z_n \ \text{iid}\ N(0, 1),

    with threshold :math:`\theta`, count :math:`n` and shift :math:`s`
    (the margin of THEORY.md §4, so that the hinge is at :math:`y = \theta - s`).
    Computed by midpoint Gil-Pelaez inversion of the characteristic function
    :math:`e^{-t^2/2}(1 + \psi_y(t))^n` (module docstring; arXiv:2605.10795,
    THEORY.md §2 fact 8).

    Parameters
    ----------
    x, threshold : array_like
        Broadcast against each other (float64).
    count : int
        :math:`n \ge 0` (``0`` gives :math:`\Phi(x)`).
    shift : float, optional
        :math:`s`, any finite real.
    dps : int, optional
        If given, ``x`` and ``threshold`` must be scalars and an mpmath number
        accurate to about ``dps`` digits (absolute) is returned.

    Returns
    -------
    float or ndarray or mpmath.mpf
        Absolute error below about ``1e-15`` in float64 (truncation errors are
        bounded by ``1e-17`` rigorously, the rest is rounding; measured against
        ``dps=30``).  Tiny probabilities are therefore only good in absolute terms.

    Examples
    --------
    >>> print(f"{hinge_sum_cdf(0.0, 1.0, 0):.6f}")  # Phi(0)
    0.500000
    >>> print(f"{hinge_sum_cdf(1.0, 0.0, 3):.6f}")
    0.468054
    >>> print(mpmath.nstr(hinge_sum_cdf(1.0, 0.0, 3, dps=20), 12))
    0.468054322486
    """
    count = check_integer("count", count, minimum=0)
    shift = check_real("shift", shift)
    digits = check_dps(dps)
    if digits is not None:
        x_value = check_real("x", x)
        threshold_value = check_real("threshold", threshold)
        with mpmath.workdps(digits):
            value = sum_cdf_mp(
                x_value, mpmath.mpf(threshold_value) - mpmath.mpf(shift), count, dps=digits
            )
            return +value
    x_array = check_finite_array("x", x)
    threshold_array = check_finite_array("threshold", threshold)
    x_b, threshold_b = np.broadcast_arrays(x_array, threshold_array)
    result = sum_cdf(x_b.ravel(), threshold_b.ravel() - shift, count).reshape(x_b.shape)
    return float(result) if result.ndim == 0 else result


def target_level_cdf(x: ArrayLike, p: int, margin: float = 0.0, *, dps: int | None = None) -> Any:
    r"""Law of the projected target score :math:`\ell^*` (the common level of the projection).

    For :math:`G \sim N(0, I_p)` projected onto :math:`K_m = \{\lambda_t \ge
    \lambda_\rho + m\}` the target and the active competitors move to the level
    :math:`\ell^*` solving :math:`\ell - g_t = \sum_\rho (g_\rho + m - \ell)_+`
    (its left side increases and its right side decreases in :math:`\ell`), hence

    .. math::

        P(\ell^* \le x) = P\Big(g_t + \sum_{\rho \ne t} (g_\rho + m - x)_+ \le x\Big)
        = \texttt{hinge\_sum\_cdf}(x, x, p - 1, \text{shift}=m).

    In these coordinates the projected competitors sit at or below
    :math:`\ell^* - m` (THEORY.md §4, scores at capacity; arXiv:2605.10795).

    Parameters
    ----------
    x : array_like
        Points at which the distribution function is evaluated.
    p : int
        Number of outputs, ``p >= 2``.
    margin : float, optional
        :math:`m \ge 0`.
    dps : int, optional
        mpmath precision (scalar ``x`` only).

    Returns
    -------
    float or ndarray or mpmath.mpf
        Same precision as :func:`hinge_sum_cdf`.

    Examples
    --------
    >>> print(f"{target_level_cdf(0.0, 2):.6f}")  # P(g + (Z)_+ <= 0) = P(g <= 0, g + Z <= 0)
    0.375000
    """
    p = check_integer("p", p, minimum=2)
    margin = check_real("margin", margin, minimum=0.0)
    return hinge_sum_cdf(x, x, p - 1, shift=margin, dps=dps)
