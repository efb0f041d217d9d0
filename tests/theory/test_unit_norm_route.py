"""The unit-norm law's route (docs/theory/unit-norm.md, "Computing C_p(d)") against
independent ones: the previous grid route (kept below as a private reference), exact
values at p = 2 and 3, mpmath quadrature, finer grids and panels, and the scores'
tail table against scipy's and mpmath's incomplete beta function."""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import special

from lamcap.theory import _unit_norm as un

# --------------------------------------------------------------------------
# the previous route (lamcap before the tail table and the nested grids), verbatim
# but for names: betainc at every point, grids of M and 2M nodes (step ratio
# (2M - 1)/(M - 1), not exactly 2), 20-point Gauss-Legendre panels 0.5 wide


def _ref_constants(d: int) -> tuple[float, float]:
    a = 0.5 * (d - 1)
    log_c = special.gammaln(0.5 * d) - special.gammaln(a) - 0.5 * math.log(math.pi)
    return a, math.exp(log_c)


def _ref_cdf(z: Any, d: int) -> Any:
    a, _ = _ref_constants(d)
    x = np.clip(0.5 * (1.0 + np.asarray(z, dtype=np.float64) / math.sqrt(d)), 0.0, 1.0)
    return special.betainc(a, a, x)


def _ref_first_moment(z: Any, d: int) -> Any:
    _, c = _ref_constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return -c * math.sqrt(d) / (d - 1) * base ** (0.5 * (d - 1))


def _ref_put(c: Any, d: int) -> Any:
    root = math.sqrt(d)
    inside = c * _ref_cdf(c, d) - _ref_first_moment(c, d)
    return np.where(c <= -root, 0.0, np.where(c >= root, c, inside))


def _ref_density(z: Any, d: int) -> Any:
    _, c = _ref_constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return c / math.sqrt(d) * base ** (0.5 * (d - 3))


def _ref_reach(d: int) -> float:
    for b in np.arange(1.0, math.sqrt(d), 0.125):
        point = np.array([-b])
        if max(float(_ref_put(point, d)[0]), float(_ref_cdf(point, d)[0])) < 1e-18:
            return float(b)
    return math.sqrt(d)


def _ref_upper_level(p: int, d: int) -> float:
    a, _ = _ref_constants(d)
    x = float(special.betainccinv(a, a, 1e-18 / p))
    return min(math.sqrt(d), math.sqrt(d) * (2.0 * x - 1.0))


def _ref_hinge_masses(levels: Any, d: int, steps: Any, nodes: int) -> Any:
    y = steps[:, None] * np.arange(nodes + 1)[None, :]
    shifted = levels[:, None] + y
    cdf = _ref_cdf(shifted, d)
    moment = (
        _ref_first_moment(shifted, d)
        - _ref_first_moment(levels, d)[:, None]
        - levels[:, None] * (cdf - cdf[:, :1])
    )
    d_cdf, d_moment = np.diff(cdf, axis=1), np.diff(moment, axis=1)
    rise = (d_moment - y[:, :-1] * d_cdf) / steps[:, None]
    masses = d_cdf - rise
    masses[:, 0] += cdf[:, 0]
    masses[:, 1:] += rise[:, :-1]
    return masses


def _ref_convolution(a: Any, b: Any) -> Any:
    size = a.shape[1]
    length = 1 << math.ceil(math.log2(2 * size))
    product = np.fft.rfft(a, length, axis=1) * np.fft.rfft(b, length, axis=1)
    return np.fft.irfft(product, length, axis=1)[:, :size]


def _ref_power(masses: Any, count: int) -> Any:
    result = np.zeros(masses.shape)
    result[:, 0] = 1.0
    base = masses
    while count:
        if count & 1:
            result = _ref_convolution(result, base)
        count >>= 1
        if count:
            base = _ref_convolution(base, base)
    return result


def _ref_level_integral(d: int, upper: float, count: int, nodes: int, function: Any) -> float:
    reach = _ref_reach(d)
    gauss_nodes, gauss_weights = np.polynomial.legendre.leggauss(20)
    lower = -math.sqrt(d)
    panels = max(2, math.ceil((upper - lower) * 2.0))
    edges = np.linspace(lower, upper, panels + 1)
    total = 0.0
    for a, b in zip(edges[-2::-1], edges[:0:-1], strict=True):
        levels = 0.5 * (a + b) + 0.5 * (b - a) * gauss_nodes
        inner = np.zeros(levels.size)
        used = levels + reach > 0.0
        if np.any(used):
            steps = (levels[used] + reach) / (nodes - 1)
            law = _ref_power(_ref_hinge_masses(levels[used], d, steps, nodes), count)
            grid = levels[used][:, None] - steps[:, None] * np.arange(nodes)[None, :]
            inner[used] = np.sum(law * function(grid, d), axis=1)
        weight = _ref_density(levels, d) if function is _ref_cdf else 1.0
        total += 0.5 * (b - a) * float(np.dot(gauss_weights, weight * inner))
        if float(np.max(inner)) < 1e-18:
            break
    return total


def _previous_distance(p: int, d: int, nodes: int = 1024) -> float:
    """C_p(d) by the previous route: grids of ``nodes`` and ``2 nodes`` nodes, Richardson."""
    upper = _ref_upper_level(p, d)
    values = [
        1.0 + upper * upper - 2.0 * _ref_level_integral(d, upper, p - 1, m, _ref_put)
        for m in (nodes, 2 * nodes)
    ]
    return (4.0 * values[1] - values[0]) / 3.0


def _previous_active_mean(p: int, d: int, nodes: int = 1024) -> float:
    """E|A| by the previous route (same grids)."""
    upper = _ref_upper_level(p, d)
    values = [
        (p - 1) * _ref_level_integral(d, upper, p - 2, m, _ref_cdf) for m in (nodes, 2 * nodes)
    ]
    return (4.0 * values[1] - values[0]) / 3.0


# --------------------------------------------------------------------------
# the tail table


@pytest.mark.parametrize("d", [4, 5, 8, 16, 64, 1024, 4096])
def test_tail_table_against_scipy_betainc(d: int) -> None:
    delta, _ = un._tail_table(d)
    # the interpolation error bound of the table
    assert (0.5 * delta) ** 6 * un._hermite_bound(d) / 720.0 <= un._TABLE_ERROR
    z = np.linspace(-math.sqrt(d) - 0.5, math.sqrt(d) + 0.5, 200_001)
    tail = un._upper_tail(z, d)
    reference = 1.0 - _ref_cdf(np.abs(z), d)  # P(z' > |z|)
    assert np.max(np.abs(tail - reference)) < 1e-13
    assert np.all(tail >= 0.0)
    assert np.all(tail <= 0.5 + 1e-15)


@pytest.mark.parametrize("d", [4, 16, 64])
def test_tail_table_against_mpmath(d: int) -> None:
    mpmath.mp.dps = 30
    a = mpmath.mpf(d - 1) / 2
    for z in np.random.default_rng(d).uniform(0.0, math.sqrt(d), 40):
        x = (1 - mpmath.mpf(float(z)) / mpmath.sqrt(d)) / 2
        exact = mpmath.betainc(a, a, 0, x, regularized=True)
        assert abs(float(un._upper_tail(np.array([z]), d)[0] - exact)) < 1e-13


# --------------------------------------------------------------------------
# exact values


@pytest.mark.parametrize("d", [4, 5, 8, 16, 64, 256, 1024])
def test_exact_values_at_p_2_and_3(d: int) -> None:
    # p = 2: dist^2 = (z_1 - z_t)_+^2 / 2 and E(z_1 - z_t)^2 = 2, so C_2 = 1/2.
    # p = 3: the centred scores x lie in a plane where K is a 120-degree wedge; a
    # symmetric iid law is invariant under its rotations by 60 degrees, and over the six
    # rotations of any direction dist^2/|x|^2 adds up to 0 + sin^2(phi) + sin^2(phi + 60)
    # + 1 + sin^2(phi - 60) + 0 = 5/2 and |A| to 5: C_3 = (5/12) E|x|^2 = 5/6 (E|x|^2 = 2)
    # and E|A| = 5/6, for every d (the Gaussian value too).
    assert un.unit_norm_distance(2, d) == pytest.approx(0.5, rel=3e-9)
    assert un.unit_norm_distance(3, d) == pytest.approx(5.0 / 6.0, rel=3e-9)
    assert un.unit_norm_active_mean(3, d) == pytest.approx(5.0 / 6.0, rel=3e-9)


def test_active_mean_at_p3_d4_against_mpmath() -> None:
    # d = 4: z is semicircular, F_z closed form; E|A| = 2 int f(y) E F(y - (z - y)_+) dy
    mpmath.mp.dps = 20

    def density(z: mpmath.mpf) -> mpmath.mpf:
        return mpmath.sqrt(max(1 - z * z / 4, mpmath.mpf(0))) / mpmath.pi

    def cdf(z: mpmath.mpf) -> mpmath.mpf:
        x = min(max(z / 2, mpmath.mpf(-1)), mpmath.mpf(1))
        return mpmath.mpf(1) / 2 + (x * mpmath.sqrt(1 - x * x) + mpmath.asin(x)) / mpmath.pi

    def inner(y: mpmath.mpf) -> mpmath.mpf:
        top = min(mpmath.mpf(2), 2 * y + 2)
        hinge = mpmath.quad(lambda z: cdf(2 * y - z) * density(z), [y, top]) if top > y else 0
        return cdf(y) ** 2 + hinge

    exact = 2 * mpmath.quad(lambda y: density(y) * inner(y), [-2, -1, 0, 1, 2])
    assert un.unit_norm_active_mean(3, 4) == pytest.approx(float(exact), rel=3e-9)


# --------------------------------------------------------------------------
# against the previous route

_FAST_CASES = [(4, 20), (8, 12)]
_GRID = {
    4: [2, 3, 6, 20, 100],
    8: [2, 3, 12, 23, 90],
    16: [2, 3, 30, 65, 250],
    64: [2, 3, 290, 582, 2300],
    256: [3, 3000, 6079, 24000],
    1024: [3, 20, 70000],
}


def _check_against_previous(d: int, p: int) -> None:
    assert un.unit_norm_distance(p, d) == pytest.approx(_previous_distance(p, d), rel=3e-9)
    if p > 2 and d > 4:
        # the previous E|A| at grids twice as fine: at its own grids its error reaches
        # 3e-9 at d = 1024 (the step ratio 2047/1023 is not 2); at d = 4 it is 1e-5
        # (the density's square root at the top of the support, see the mpmath test)
        reference = _previous_active_mean(p, d, nodes=2048)
        assert un.unit_norm_active_mean(p, d) == pytest.approx(reference, rel=3e-9)


@pytest.mark.parametrize(("d", "p"), _FAST_CASES)
def test_route_agrees_with_previous_route(d: int, p: int) -> None:
    _check_against_previous(d, p)


@pytest.mark.slow
@pytest.mark.parametrize("d", sorted(_GRID))
def test_route_agrees_with_previous_route_over_d_and_p(d: int) -> None:
    for p in _GRID[d]:
        _check_against_previous(d, p)


# --------------------------------------------------------------------------
# against finer grids and finer panels of the same route


@pytest.mark.slow
@pytest.mark.parametrize(
    ("d", "p"),
    # near the transition, and far above it (110 p_c at d = 4, 1500 p_c at d = 16: a
    # sharper bend, narrower panels)
    [(4, 40), (8, 22), (64, 580), (256, 6000), (1024, 40000), (4, 1000), (16, 100_000)],
)
def test_finer_grids_and_panels_agree(d: int, p: int, monkeypatch: pytest.MonkeyPatch) -> None:
    distance, active = un.unit_norm_distance(p, d), un.unit_norm_active_mean(p, d)
    for name in ("_WIDE_PANEL", "_NARROW_PANEL", "_KINK_WIDTHS"):
        monkeypatch.setattr(un, name, getattr(un, name) / 4)
    fine_distance = un._extrapolated(un._distance_on_grids(p, d, 4 * un._GRID))
    fine_active = un._extrapolated(un._active_on_grids(p, d, 4 * un._ACTIVE_GRID))
    assert distance == pytest.approx(fine_distance, rel=1e-9)
    assert active == pytest.approx(fine_active, rel=3e-9)  # measured below 1.5e-9
