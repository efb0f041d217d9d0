r"""One small base for lamcap's one-dimensional laws, in the manner of scipy.stats.

Every law object of the theory layer (the singular-value laws of
:mod:`lamcap.theory._spectrum`, the score laws of :mod:`lamcap.theory._scores` and
:mod:`lamcap.theory._hebbian`) answers the same questions with the same names:
``pdf``, ``cdf``, ``sf``, ``ppf``, ``rvs``, ``support``, ``moment``, ``mean`` and
``var``.  A law implements ``_support`` and ``_pdf``/``_cdf`` (float64 arrays in
and out) from its closed forms; ``_sf``, ``_ppf``, ``_moment`` and ``_rvs`` have
generic defaults (``1 - cdf``, safeguarded Newton on the cdf, a quadrature of
the density, inverse-cdf sampling) that a law replaces wherever it has a better
route, and ``_mp_pdf``/``_mp_cdf``/``_mp_ppf`` (one ``mpf`` in, one out) give the
``dps=`` route.  Results follow the array contract of
:mod:`lamcap.theory._arrays` (scalar in, ``numpy.float64`` out; arrays keep
their shape; ``dps=`` gives ``mpf`` values through the guard digits of
:mod:`lamcap.theory._precision`).  The class docstring of every law is one
template (:data:`CLASS_TEMPLATE`) filled with the law's own fields.

Why not ``scipy.stats.rv_continuous``.  Its generic ``ppf`` (Brent's method per
point on our cdf), ``moment`` (adaptive quadrature) and ``rvs`` are orders of
magnitude slower than the closed-form quantile, the Gauss-Legendre moments and
inverse-cdf sampling, and no more accurate, and building an instance is slower too
(scipy assembles docstrings and signatures per instance); the measured ratios are
in docs/benchmarks.md (``benchmarks/bench_laws.py``).  A subclass would
override exactly those methods and gain nothing, while it would cost what lamcap
needs: no ``dps=`` route, no validated law object (shape parameters on every call),
and no room for the defective laws of the scores (the largest remaining competitor
is :math:`-\infty`, and the gap :math:`+\infty`, with probability
:math:`P(|A| = p - 1) > 0`, which breaks its normalisation and bracketing).
So the base is lamcap's own and delegates to the closed forms.

Examples
--------
>>> from lamcap.theory._spectrum import singular_value_law
>>> law = singular_value_law(1.0, normalization="raw")
>>> law.cdf(2.0), law.support()
(np.float64(1.0), (np.float64(0.0), np.float64(2.0)))
>>> round(float(law.ppf(law.cdf(1.3))), 12)
1.3
"""

from __future__ import annotations

import inspect
import math
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import integrate

from lamcap._deprecation import renamed_keywords
from lamcap._sizes import check_memory, format_integer
from lamcap._validation import check_dps, check_finite_array, check_integer, check_seed, plain
from lamcap.theory._arrays import elementwise, float_result
from lamcap.theory._precision import map_mp

FloatArray = NDArray[np.float64]

#: The docstring of every law class, filled with the law's ``_doc_fields``:
#: ``summary`` (the class's own first lines), ``variable``, ``support``,
#: ``routes`` (how its methods are computed and to which precision),
#: ``reference`` and ``examples``.
CLASS_TEMPLATE = """{summary}

The law of {variable}, on {support}.  Methods (scipy.stats names, shared with
every law of lamcap): ``pdf(x)``, ``cdf(x)``, ``sf(x)`` (``1 - cdf``),
``ppf(q)`` (the quantile), ``rvs(size, seed)``, ``support()``,
``moment(order)``, ``mean()``, ``var()`` and ``std()``.  Scalars in give ``numpy.float64``
out, arrays keep their shape; ``dps=`` (where available) gives mpmath numbers
good to that many digits.

{routes}

Reference: {reference}.

Examples
--------
{examples}
"""

#: Newton iterations of the generic quantile before it gives up (bisection safeguards
#: each step, so 200 is never reached for a continuous cdf).
_PPF_ITERATIONS = 200


class Law:
    """A one-dimensional law: ``pdf``, ``cdf``, ``sf``, ``ppf``, ``rvs``, ``support``, ``moment``.

    Subclasses implement ``_support`` and ``_pdf``/``_cdf`` and fill
    ``_doc_fields``; see the module docstring.
    """

    _doc_fields: ClassVar[dict[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        fields = dict(cls.__dict__.get("_doc_fields", {}))
        if fields:
            summary = inspect.cleandoc(cls.__doc__ or "")
            cls.__doc__ = CLASS_TEMPLATE.format(summary=summary, **fields)

    # -- what a law implements ------------------------------------------------

    def _support(self) -> tuple[float, float]:
        raise NotImplementedError

    def _pdf(self, x: FloatArray) -> FloatArray:
        raise NotImplementedError

    def _cdf(self, x: FloatArray) -> FloatArray:
        raise NotImplementedError

    def _sf(self, x: FloatArray) -> FloatArray:
        return 1.0 - self._cdf(x)

    def _bracket(self) -> tuple[float, float]:
        """Finite interval holding every finite quantile (the support unless infinite)."""
        return self._support()

    #: Absolute accuracy of ``_cdf``: the generic quantile stops once ``|cdf(x) - q|``
    #: is below it (closed forms: rounding; quadratures set their own).
    _cdf_accuracy: ClassVar[float] = 4.0 * float(np.finfo(np.float64).eps)

    def _ppf_start(self, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Start and bracket ``(x, low, high)`` of the generic quantile: all of :meth:`_bracket`."""
        low_end, high_end = self._bracket()
        low = np.full(q.shape, low_end)
        high = np.full(q.shape, high_end)
        return 0.5 * (low + high), low, high

    def _ppf(self, q: FloatArray) -> FloatArray:
        r"""Safeguarded Newton on the cdf from :meth:`_ppf_start` (vectorised).

        Each step keeps a bracket ``[low, high]`` of the root; a Newton step that
        leaves it is replaced by bisection.  Stops when the step is below 4 ulp or
        ``|cdf(x) - q|`` below :attr:`_cdf_accuracy` (one more Newton step is taken).
        Values of ``q`` at or below ``cdf(lower)`` give the lower end of the
        support, at or above ``cdf(upper)`` the upper end (``_cdf`` must accept
        the ends of the support, infinite ones included: an atom at
        :math:`-\infty` is ``cdf(-inf) > 0``).
        """
        lower, upper = self._support()
        flat = q.ravel()
        floor, ceiling = self._cdf(np.array([lower, upper]))
        below, above = flat <= floor, flat >= ceiling
        x, low, high = self._ppf_start(flat)
        active = ~(below | above)
        for _ in range(_PPF_ITERATIONS):
            if not np.any(active):
                break
            point = x[active]
            excess = self._cdf(point) - flat[active]
            low[active] = np.where(excess < 0.0, point, low[active])
            high[active] = np.where(excess > 0.0, point, high[active])
            slope = self._pdf(point)
            with np.errstate(divide="ignore", invalid="ignore"):
                newton = point - excess / slope
            inside = np.isfinite(newton) & (newton > low[active]) & (newton < high[active])
            step = np.where(inside, newton, 0.5 * (low[active] + high[active]))
            scale = 4.0 * np.finfo(np.float64).eps * np.maximum(np.abs(step), 1e-300)
            settled = (np.abs(step - point) <= scale) | (excess == 0.0)
            settled |= (np.abs(excess) <= self._cdf_accuracy) & inside
            settled |= high[active] - low[active] <= scale
            x[active] = np.where(excess == 0.0, point, step)
            active[np.flatnonzero(active)[settled]] = False
        x = np.where(below, lower, np.where(above, upper, x))
        return x.reshape(q.shape)

    def _moment(self, order: int) -> float:
        """:math:`\\int x^k f(x)\\,dx` by adaptive quadrature over the support."""
        lower, upper = self._support()
        value, _ = integrate.quad(
            lambda x: x**order * float(self._pdf(np.array([x]))[0]),
            lower,
            upper,
            epsabs=0.0,
            epsrel=1e-13,
            limit=400,
        )
        return float(value)

    def _var(self) -> float:
        """:math:`E[X^2] - E[X]^2` (a law with a direct route avoids the cancellation)."""
        mean = self._moment(1)
        return self._moment(2) - mean * mean

    def _rvs(self, size: tuple[int, ...], rng: np.random.Generator) -> FloatArray:
        return self._ppf(rng.random(size))

    _mp_pdf: Any = None
    _mp_cdf: Any = None
    _mp_ppf: Any = None

    # -- the public methods (the same for every law) ---------------------------

    def support(self) -> tuple[np.float64, np.float64]:
        """The interval ``(lower, upper)`` outside which the density vanishes."""
        lower, upper = self._support()
        return np.float64(lower), np.float64(upper)

    def pdf(self, x: ArrayLike, *, dps: int | None = None) -> Any:
        """Density at ``x`` (array_like; 0 outside the support, NaN raises)."""
        return self._evaluate("x", x, self._pdf, self._mp_pdf, dps)

    def cdf(self, x: ArrayLike, *, dps: int | None = None) -> Any:
        """Distribution function :math:`P(X \\le x)` (array_like; NaN raises)."""
        return self._evaluate("x", x, self._cdf, self._mp_cdf, dps)

    def sf(self, x: ArrayLike, *, dps: int | None = None) -> Any:
        """Survival function :math:`P(X > x)` (array_like; NaN raises)."""
        mp_sf = None if self._mp_cdf is None else (lambda v: 1 - self._mp_cdf(v))
        return self._evaluate("x", x, self._sf, mp_sf, dps)

    @renamed_keywords(q="probability")
    def ppf(self, probability: ArrayLike, *, dps: int | None = None) -> Any:
        """Quantile: the smallest ``x`` with ``cdf(x) >= probability``, in [0, 1].

        ``q=`` is the deprecated name of ``probability`` (``q`` is the overlap of
        the replica functions).
        """
        probabilities = check_finite_array("probability", probability, minimum=0.0, maximum=1.0)
        digits = check_dps(dps)
        if digits is not None:
            return map_mp(self._mp_route(self._mp_ppf, digits), _exact(probability), digits)
        return float_result(self._ppf(probabilities))

    def rvs(self, size: int | tuple[int, ...] = 1, seed: Any = None) -> FloatArray:
        """``size`` independent draws (an int or a shape); ``seed`` an int or a Generator."""
        shape = (size,) if isinstance(size, int | np.integer) else tuple(size)
        counts = tuple(check_integer("size", count, minimum=0) for count in shape)
        generator = np.random.default_rng(check_seed(seed))
        total = math.prod(counts)
        check_memory(f"rvs with size = {format_integer(total)} (draws: 8 size bytes)", 8 * total)
        return np.asarray(self._rvs(counts, generator), dtype=np.float64)

    def moment(self, order: ArrayLike) -> Any:
        """Raw moment :math:`E[X^k]` of integer order ``k >= 0`` (array_like)."""
        orders = np.asarray(order)
        for value in orders.ravel():
            check_integer("order", value, minimum=0)
        return elementwise(lambda k: 1.0 if int(k) == 0 else self._moment(int(k)), order)

    def mean(self) -> np.float64:
        """:math:`E[X]`."""
        return np.float64(self._moment(1))

    def var(self) -> np.float64:
        """Variance :math:`E[(X - EX)^2]`."""
        return np.float64(self._var())

    def std(self) -> np.float64:
        """Standard deviation, the square root of :meth:`var`."""
        return np.float64(math.sqrt(self.var()))

    # -- helpers ----------------------------------------------------------------

    def _evaluate(self, name: str, x: ArrayLike, route: Any, mp_route: Any, dps: Any) -> Any:
        points = check_points(name, x)
        digits = check_dps(dps)
        if digits is not None:  # the points as given (mpf values keep their digits)
            return map_mp(self._mp_route(mp_route, digits), _exact(x), digits)
        return float_result(route(points))

    def _mp_route(self, route: Any, dps: int) -> Any:
        if route is None:
            msg = f"dps must be None for {type(self).__name__} (float64 only), got {dps}"
            raise ValueError(msg)
        return route


def _exact(value: Any) -> Any:
    """``value`` for the mpmath route: scalars as given, arrays as object arrays."""
    if isinstance(value, list | tuple | np.ndarray):
        return np.asarray(value, dtype=object)
    return value


def check_points(name: str, value: ArrayLike) -> FloatArray:
    """Float64 array; NaN raises, infinities are allowed (outside every support)."""
    try:
        array = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        msg = f"{name} must be real numbers, got {plain(value)}"
        raise ValueError(msg) from None
    if np.any(np.isnan(array)):
        position = np.argwhere(np.isnan(array))[0]
        index = int(position[0]) if array.ndim == 1 else tuple(int(i) for i in position)
        where = "" if array.ndim == 0 else f" (element {index})"
        msg = f"{name} must not contain NaN, got nan{where}"
        raise ValueError(msg)
    return array


def quadrature_moment(density: Any, lower: float, upper: float, order: int) -> float:
    """:math:`\\int_{lower}^{upper} x^k f(x)\\,dx` in the angle ``x = c + h sin t``.

    The substitution removes square-root edges (the integrand becomes smooth), so
    Gauss-Legendre with 8 panels of 20 nodes reaches machine precision on the
    bounded laws of the spectrum.
    """
    centre, half = 0.5 * (lower + upper), 0.5 * (upper - lower)
    nodes, weights = np.polynomial.legendre.leggauss(20)
    edges = np.linspace(-0.5 * math.pi, 0.5 * math.pi, 9)
    width = 0.5 * np.diff(edges)
    angles = (edges[:-1, None] + width[:, None] * (nodes[None, :] + 1.0)).ravel()
    factor = (width[:, None] * weights[None, :]).ravel()
    x = centre + half * np.sin(angles)
    values = np.asarray(density(x), dtype=np.float64)
    return float(np.sum(factor * half * np.cos(angles) * x**order * values))
