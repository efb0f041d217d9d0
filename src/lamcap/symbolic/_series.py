r"""Large-:math:`p` series of the statistical dimension :math:`\mathbb{E}[C_p]` (sympy).

Derivation (docs/derivations/series.md has every step; docs/theory/cone.md, fact 6).
Poissonise the :math:`p - 1` competitors into a Poisson process of intensity
:math:`\lambda\varphi(y)`, :math:`\lambda = p - 1` (the error is
:math:`O(\log p / p)`).  A competitor at :math:`y` is active iff
:math:`g + S_y < y` with :math:`S_y = \sum_{z > y}(z - y)`, so by Mecke's formula

.. math::

    \mathbb{E}|A| = \int \lambda\varphi(y)\, P(g + S_y < y)\,dy
    = \frac{1}{2\pi i}\int_{\gamma - i\infty}^{\gamma + i\infty}\frac{ds}{s}
      e^{s^2/2}\int_0^\infty \frac{dv}{y(v)}\, e^{s\,y(v) - v K(s, y(v))},

where :math:`v = \lambda\varphi(y)` is the Gumbel-scale intensity,
:math:`y(v) = \sqrt{\ell - 2\log v}`, :math:`\ell = 2\log\lambda - \log 2\pi`, and
:math:`K(s, y) = \int_0^\infty (1 - e^{-st}) e^{-yt - t^2/2}\,dt` is the Laplace
exponent of :math:`S_y` per unit intensity.  Put the reference level :math:`Y`
where :math:`\lambda\varphi(Y) = Y^3` (about :math:`Y^2` points lie above it),
i.e. :math:`Y^2 + 3\log Y^2 = \ell`, and rescale :math:`s = \sigma / Y`,
:math:`v = Y^3 e^{r}`.  Every factor then expands in :math:`\varepsilon = Y^{-2}`
as a polynomial in :math:`\sigma, r, e^{r}` times :math:`e^{\sigma} e^{r}
e^{-\sigma e^{r}}/\sigma`, and the two integrals are done term by term:

.. math::

    \frac{1}{2\pi i}\int d\sigma\, e^{\sigma}\sigma^{a - 1}\!\int dr\,
    r^b e^{(1 + m) r} e^{-\sigma e^{r}}
    = b!\,[\tau^b]\,\frac{\Gamma(1 + m + \tau)}{\Gamma(2 + m - a + \tau)},

(Hankel's integral for :math:`1/\Gamma`), a rational function of :math:`\tau`, so
all coefficients are rational:

.. math::

    \mathbb{E}[C_p] = Y^2 + 3 - \frac{15}{Y^2} + \frac{191}{2Y^4} - \dots

The series is asymptotic (the coefficients grow factorially).  Inverting the
level equation in :math:`L = \log p` gives the series in :math:`L` and
:math:`\log L` used by :func:`lamcap.theory.statistical_dimension_series`:

.. math::

    \mathbb{E}[C_p] = 2L - 3\log 2L + 3 - \log 2\pi
      + \frac{9\log 2L + 3\log 2\pi - 15}{2L} + O\Big(\frac{\log^2 L}{L^2}\Big).

Sympy is imported only by this module; the numeric layer reads the generated
coefficients committed in :mod:`lamcap.theory._asymptotics`.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

#: :math:`L = \log p` and :math:`\Lambda = \log 2L` (kept as an independent symbol).
L = sp.Symbol("L", positive=True)
LOG_2L = sp.Symbol("Lambda", positive=True)

_SIGMA, _R, _E, _EPS, _TAU = sp.symbols("sigma r E epsilon tau")


_MAX_ORDER = 6


def _checked_order(order: object, minimum: int, maximum: int = _MAX_ORDER) -> int:
    """``order`` as an ``int`` in [``minimum``, ``maximum``]; a ValueError naming it otherwise.

    Written here rather than with ``lamcap._validation`` so that this package imports
    only sympy (docs/architecture.md).
    """
    accepted = (
        f"an integer in [{minimum}, {maximum}] (sympy's expansion grows fast: the "
        "capacity series at order 6 takes about 10 s)"
    )
    if isinstance(order, bool) or not isinstance(order, int | sp.Integer):
        msg = f"order must be {accepted}, got {order!r}"
        raise ValueError(msg)
    if not minimum <= int(order) <= maximum:
        msg = f"order must be {accepted}, got {int(order)}"
        raise ValueError(msg)
    return int(order)


def level_equation() -> sp.Eq:
    r"""The level equation :math:`Y^2 + 3\log Y^2 = \ell` in the unknown ``X`` = :math:`Y^2`.

    Examples
    --------
    >>> level_equation()
    Eq(X + 3*log(X), ell)
    """
    x, ell = sp.symbols("X ell", positive=True)
    return sp.Eq(x + 3 * sp.log(x), ell)


Series = list[sp.Expr]  # truncated power series: coefficients of epsilon^0, epsilon^1, ...


def _multiply(left: Series, right: Series) -> Series:
    """Product of two truncated series (same length)."""
    order = len(left)
    return [
        sp.expand(sum((left[i] * right[n - i] for i in range(n + 1)), sp.Integer(0)))
        for n in range(order)
    ]


def _exp_series(argument: Series) -> Series:
    """exp of a truncated series whose constant term is zero."""
    order = len(argument)
    result: Series = [sp.Integer(1)] + [sp.Integer(0)] * (order - 1)
    power = result
    for k in range(1, order):
        power = _multiply(power, argument)
        result = [sp.expand(r + c / sp.factorial(k)) for r, c in zip(result, power, strict=True)]
    return result


def _binomial_series(exponent: sp.Expr, order: int) -> Series:
    r"""Series of :math:`(1 - 2r\varepsilon)^{exponent}`."""
    return [sp.expand(sp.binomial(exponent, n) * (-2 * _R) ** n) for n in range(order)]


def _scaled_laplace_exponent(order: int) -> Series:
    r"""Series of :math:`Y^3 K(\sigma/Y, Y\rho) - \sigma`, :math:`\rho = \sqrt{1 - 2r\varepsilon}`.

    From :math:`K(s, y) = \sum_{k \ge 1, j \ge 0} (-1)^{k+1}(-1/2)^j
    \frac{(k + 2j)!}{k!\,j!} s^k y^{-(k + 2j + 1)}`; the term :math:`(k, j)` carries
    :math:`\varepsilon^{k + j - 1}`.
    """
    total: Series = [sp.Integer(0)] * order
    for k in range(1, order + 1):
        for j in range(order + 1 - k):
            coefficient = (
                (-1) ** (k + 1)
                * sp.Rational(-1, 2) ** j
                * sp.factorial(k + 2 * j)
                / (sp.factorial(k) * sp.factorial(j))
            )
            shift = k + j - 1
            rho_power = _binomial_series(sp.Rational(-(k + 2 * j + 1), 2), order - shift)
            for n, c in enumerate(rho_power):
                total[n + shift] += coefficient * _SIGMA**k * c
    total[0] -= _SIGMA
    return [sp.expand(c) for c in total]


@cache
def _hankel_moment(a: int, b: int, m: int) -> sp.Rational:
    r"""Double integral of :math:`\sigma^a r^b e^{m r}` against the leading kernel (see module doc).

    :math:`\Gamma(x)/\Gamma(x + k)` with :math:`x = 1 + m + \tau`, :math:`k = 1 - a` is a
    rational function of :math:`\tau`; its :math:`b`-th Taylor coefficient times :math:`b!`.
    """
    x = 1 + m + _TAU
    shift = 1 - a
    if shift >= 0:
        ratio = 1 / sp.prod([x + j for j in range(shift)])
    else:
        ratio = sp.prod([x - j for j in range(1, -shift + 1)])
    taylor = sp.series(ratio, _TAU, 0, b + 1).removeO()
    return sp.Rational(sp.factorial(b) * taylor.coeff(_TAU, b))


def gumbel_coefficients(order: int = 4) -> tuple[sp.Rational, ...]:
    r"""Coefficients :math:`c_n` of :math:`\mathbb{E}[C_p] = \sum_{n} c_n Y^{2 - 2n}`, :math:`n \le` ``order``.

    :math:`Y` solves :math:`Y^2 + 3\log Y^2 = 2\log(p - 1) - \log 2\pi`
    (:func:`level_equation`).  Exact rationals from the Hankel-contour expansion
    described in the module docstring (arXiv:2605.10795; docs/theory/cone.md, fact 6).

    Examples
    --------
    >>> gumbel_coefficients(3)
    (1, 3, -15, 191/2)
    """
    return _gumbel_coefficients(_checked_order(order, 1))


@cache
def _gumbel_coefficients(order: int) -> tuple[sp.Rational, ...]:
    size = order + 1
    rho_minus_one = _binomial_series(sp.Rational(1, 2), size)
    rho_minus_one[0] = sp.Integer(0)
    factors = [
        _exp_series([sp.Integer(0), _SIGMA**2 / 2] + [sp.Integer(0)] * (size - 2)),
        _binomial_series(sp.Rational(-1, 2), size),
        _exp_series([sp.expand(_SIGMA * c) for c in rho_minus_one]),
        _exp_series([sp.expand(-_E * c) for c in _scaled_laplace_exponent(size)]),
    ]
    expansion = factors[0]
    for factor in factors[1:]:
        expansion = _multiply(expansion, factor)
    coefficients = []
    for n in range(size):
        polynomial = sp.Poly(expansion[n], _SIGMA, _R, _E)
        value = sum(
            (coef * _hankel_moment(a, b, m) for (a, b, m), coef in polynomial.terms()),
            sp.Integer(0),
        )
        coefficients.append(sp.nsimplify(value))
    return tuple(coefficients)


_ETA = sp.Symbol("eta", positive=True)  # 1/L
_LOG_2PI = sp.Symbol("log2pi", positive=True)  # log(2 pi), kept unexpanded


def _truncate(expression: sp.Expr, order: int) -> sp.Expr:
    """Drop the powers of eta above ``order`` from an expanded Laurent polynomial."""
    expanded = sp.expand(expression)
    return sum(
        (t for t in sp.Add.make_args(expanded) if t.as_coeff_exponent(_ETA)[1] <= order),
        sp.Integer(0),
    )


def _power_sum(delta: Series, weights: list[sp.Expr]) -> Series:
    """``sum_k weights[k] * delta**k`` as a series truncated at ``len(delta)`` terms.

    ``delta`` has no constant term, so ``k < len(delta)`` suffices; each power is
    truncated as it is formed (expanding whole powers first takes minutes of sympy).
    """
    size = len(delta)
    result: Series = [sp.expand(weights[0])] + [sp.Integer(0)] * (size - 1)
    power: Series = [sp.Integer(1)] + [sp.Integer(0)] * (size - 1)
    for k in range(1, size):
        power = _multiply(power, delta)
        result = [sp.expand(r + weights[k] * c) for r, c in zip(result, power, strict=True)]
    return result


@cache
def _relative_level(order: int) -> tuple[sp.Expr, ...]:
    r""":math:`\delta` in :math:`Y^2 = 2L(1 + \delta)`: its coefficients of :math:`\eta^0, \dots,
    \eta^{order}` (:math:`\eta = 1/L`; the first is 0).

    Fixed-point iteration of :math:`Y^2 = 2L - \log 2\pi - 3\log Y^2` with
    :math:`\log Y^2 = \Lambda + \log(1 + \delta)`, :math:`\Lambda = \log 2L`; each pass
    fixes one more power of :math:`\eta`.
    """
    size = order + 1
    log_weights = [sp.Integer(0)] + [sp.Rational((-1) ** (k + 1), k) for k in range(1, size)]
    delta: Series = [sp.Integer(0)] * size
    for _ in range(order + 1):
        log_part = _power_sum(delta, log_weights)
        inner = [_LOG_2PI + 3 * LOG_2L + 3 * log_part[0], *(3 * c for c in log_part[1:])]
        delta = [sp.Integer(0)] + [sp.expand(-c / 2) for c in inner[: size - 1]]
    return tuple(delta)


def _power_of_level(exponent: int, order: int) -> sp.Expr:
    """(1 + delta)**exponent truncated at eta**order."""
    delta = list(_relative_level(order))
    weights = [sp.binomial(exponent, k) for k in range(order + 1)]
    return sum((c * _ETA**k for k, c in enumerate(_power_sum(delta, weights))), sp.Integer(0))


def _publish(expression: sp.Expr) -> sp.Expr:
    """Tidy a coefficient and restore log(2 pi)."""
    return sp.factor_terms(sp.expand(expression)).subs(_LOG_2PI, sp.log(2 * sp.pi))


def statistical_dimension_series_terms(order: int = 4) -> tuple[sp.Expr, ...]:
    r"""Terms of the series of :math:`\mathbb{E}[C_p]` in :math:`L = \log p`, by decreasing size.

    Term 0 is :math:`2L`, term 1 the :math:`\log L` term :math:`-3\log 2L`, term 2 the
    constant :math:`3 - \log 2\pi`, term :math:`k \ge 3` the group of order
    :math:`L^{2-k}` (with powers of ``Lambda`` :math:`= \log 2L`).  Obtained by putting
    :math:`Y^2 = 2L(1 + \delta)` into :math:`\sum_n c_n Y^{2 - 2n}`
    (:func:`gumbel_coefficients`).  The :math:`O(1/p)` difference between
    :math:`\log p` and :math:`\log(p - 1)` is dropped.

    Examples
    --------
    >>> terms = statistical_dimension_series_terms(3)
    >>> terms[:3]
    (2*L, -3*Lambda, 3 - log(2*pi))
    >>> sp.expand(terms[3] * 2 * L, log=False)
    9*Lambda - 15 + 3*log(2*pi)
    """
    return _statistical_dimension_series_terms(_checked_order(order, 0))


@cache
def _statistical_dimension_series_terms(order: int) -> tuple[sp.Expr, ...]:
    depth = max(order - 2, 0)  # powers of eta needed beyond the constant
    coefficients = gumbel_coefficients(depth + 1)
    total = sum(
        (
            c * (_ETA / 2) ** (n - 1) * _power_of_level(1 - n, depth + 1 - n)
            for n, c in enumerate(coefficients)
        ),
        sp.Integer(0),
    )
    total = _truncate(total, depth)
    constant_part = sp.expand(total.coeff(_ETA, 0))
    log_term = constant_part.coeff(LOG_2L, 1) * LOG_2L
    terms: list[sp.Expr] = [
        sp.expand(total.coeff(_ETA, -1)) * L,
        log_term,
        _publish(constant_part - log_term),
    ]
    terms.extend(_publish(total.coeff(_ETA, k)) * L ** (-k) for k in range(1, depth + 1))
    return tuple(terms[: order + 1])


def capacity_series_terms(order: int = 3) -> tuple[sp.Expr, ...]:
    r"""Terms of :math:`\alpha_c(p) = \log p / \mathbb{E}[C_p]` in powers of :math:`1/L`.

    Term 0 is the limit :math:`1/2`; term :math:`k` is of order :math:`L^{-k}` (with
    powers of ``Lambda`` :math:`= \log 2L`): the approach to 1/2 is logarithmic.
    ``order`` terms (1 to 6) take ``order + 1`` terms of :math:`\mathbb{E}[C_p]`
    (:func:`statistical_dimension_series_terms`, whose internal series goes one order
    further for this), inverted as a power series truncated at every product.

    Examples
    --------
    >>> terms = capacity_series_terms(2)
    >>> terms[0]
    1/2
    >>> sp.expand(terms[1] * L, log=False)
    3*Lambda/4 - 3/4 + log(2*pi)/4
    """
    return _capacity_series_terms(_checked_order(order, 1))


@cache
def _capacity_series_terms(order: int) -> tuple[sp.Expr, ...]:
    dimension = sum(_statistical_dimension_series_terms(order + 1), sp.Integer(0))
    dimension = sp.expand(dimension.subs(sp.log(2 * sp.pi), _LOG_2PI).subs(L, 1 / _ETA))
    ratio = sp.expand(dimension * _ETA / 2 - 1)  # E/(2L) - 1 = r_1 eta + r_2 eta^2 + ...
    minus_ratio = [sp.expand(-ratio.coeff(_ETA, k)) for k in range(order)]
    if minus_ratio[0] != 0:  # pragma: no cover - the leading term of E[C_p] is 2L
        msg = f"E[C_p]/(2L) - 1 has a constant term {-minus_ratio[0]}"
        raise ArithmeticError(msg)
    # 2 alpha_c = 1/(1 + ratio) = sum_k (-ratio)^k, each power truncated at eta^(order - 1)
    # (expanding the whole powers first takes gigabytes of sympy at order 6)
    inverse: Series = [sp.Integer(1)] + [sp.Integer(0)] * (order - 1)
    power = list(inverse)
    for _ in range(1, order):
        power = _multiply(power, minus_ratio)
        inverse = [sp.expand(a + b) for a, b in zip(inverse, power, strict=True)]
    return tuple(_publish(inverse[k] / 2) * L ** (-k) for k in range(order))
