"""The array contract of the theory layer, checked on every public theory function.

The contract (docs/howto/precision.md, "The array contract"): every numeric argument
broadcasts; a scalar in gives a ``numpy.float64`` out and arrays give float64 arrays
equal to a loop of scalar calls; ``dps=k`` gives an ``mpmath.mpf`` (object array of
them for arrays) that agrees with float64 to the precision the docstring claims, or,
for a function without a high-precision route, a ``ValueError`` saying so; bad input
raises ``ValueError`` naming the argument, the value (a plain number, the element for
arrays) and the accepted range.

:data:`CASES` lists every public theory function with valid scalar values of all its
numeric arguments, a few values of each to broadcast, its ``dps=`` behaviour and a bad
input; :func:`test_every_public_theory_function_is_walked` keeps the list complete.
The values of the mpmath routes themselves are checked against independent methods
in the module tests and in tests/theory/test_reference_sweeps.py.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np
import pytest

from lamcap.theory import _asymptotics as asymptotics
from lamcap.theory import _capacity as capacity
from lamcap.theory import _cost_models as cost_models
from lamcap.theory import _crofton as crofton
from lamcap.theory import _hebbian as hebbian
from lamcap.theory import _hinge_sums as hinge_sums
from lamcap.theory import _margin as margin
from lamcap.theory import _partial_recall as partial_recall
from lamcap.theory import _rank as rank
from lamcap.theory import _replica as replica
from lamcap.theory import _spectrum as spectrum
from lamcap.theory import _width as width

NO_ROUTE = "no route"


@dataclass(frozen=True)
class Case:
    """One public theory function and how to exercise its contract."""

    function: Callable[..., Any]
    scalars: dict[str, Any]  # every numeric argument, by keyword, with a valid scalar
    arrays: dict[str, list[Any]]  # values of each numeric argument to broadcast
    options: dict[str, Any] = field(default_factory=dict)  # non-numeric keywords
    rtol: float = 0.0  # broadcast call against the loop of scalar calls (0: identical)
    dps: float | str | None = None  # relative float64-vs-dps tolerance, NO_ROUTE, or no dps
    dps_atol: float = 0.0  # absolute tolerance instead (probabilities)
    bad: tuple[tuple[dict[str, Any], str], ...] = ()  # keyword overrides -> message regex

    def call(self, **arguments: Any) -> Any:
        return self.function(**{**self.scalars, **self.options, **arguments})


CASES: dict[str, Case] = {
    "capacity_series": Case(
        asymptotics.capacity_series,
        {"p": 1000},
        {"p": [10, 1e6, 1e12]},
        bad=(({"p": [10, 1]}, r"p must contain finite values >= 2\.0, got 1\.0 \(element 1\)"),),
    ),
    "gumbel_level": Case(
        asymptotics.gumbel_level,
        {"p": 1000},
        {"p": [10, 1e6]},
        bad=(({"p": 1.5}, r"p must contain finite values >= 2\.0, got 1\.5"),),
    ),
    "statistical_dimension_series": Case(
        asymptotics.statistical_dimension_series,
        {"p": 1000},
        {"p": [10, 1e6]},
        options={"form": "lambert"},
        bad=(({"p": np.nan}, r"p must contain finite values >= 2\.0, got nan"),),
    ),
    "capacity": Case(
        capacity.capacity,
        {"kappa": 0.5},
        {"kappa": [0.1, 0.5, 1.0]},
        dps=5e-16,  # "relative error below 5e-16"
        bad=(
            (
                {"kappa": [0.5, 1.5]},
                (
                    r"kappa must contain finite values in \(0\.0, 1\.0\], "
                    r"got 1\.5 \(element 1\)"
                ),
            ),
        ),
    ),
    "capacity_finite": Case(
        capacity.capacity,
        {"kappa": 0.5, "p": 50, "d": 12},
        {"kappa": [0.5, 1.0], "p": [20, 300], "d": [8, 12]},
        dps=NO_ROUTE,  # kappa < 1 with a finite d: the width is an expansion
        bad=(({"p": 1}, r"p must be an integer >= 2, got 1"),),
    ),
    "capacity_finite_full_rank": Case(
        capacity.capacity,
        {"kappa": 1.0, "p": 50, "d": 12},
        {"p": [20, 300], "d": [8, 12]},
        dps=1e-12,  # "relative error below 1e-12 from E[C_p]"
        bad=(({"d": [8, 0]}, r"d must contain integers >= 1, got 0 \(element 1\)"),),
    ),
    "critical_p": Case(
        capacity.critical_p,
        {"d": 12, "kappa": 1.0},
        {"d": [8, 12], "kappa": [0.5, 1.0]},
        dps=NO_ROUTE,
        bad=(({"d": 2.5}, r"d must be an integer >= 1, got 2\.5"),),
    ),
    "critical_p_accuracy": Case(
        capacity.critical_p,
        {"d": 12, "kappa": 1.0, "accuracy": 0.9},
        {"d": [8, 12], "accuracy": [0.9, 1.0]},
        dps=NO_ROUTE,
        bad=(
            (
                {"accuracy": [0.9, 1.5]},
                r"accuracy must contain finite values in \(0\.0, 1\.0\], got 1\.5 \(element 1\)",
            ),
        ),
    ),
    "best_accuracy": Case(
        partial_recall.best_accuracy,
        {"d": 12, "p": 60, "n": 60, "kappa": 1.0},
        {"d": [8, 12], "p": [40, 60], "n": [30, 60], "kappa": [0.5, 1.0]},
        bad=(({"n": [3, 0]}, r"n must contain integers >= 1, got 0 \(element 1\)"),),
    ),
    "information_per_parameter": Case(
        partial_recall.information_per_parameter,
        {"d": 12, "p": 60, "accuracy": 0.9, "n": 60},
        {"d": [8, 12], "p": [40, 60], "accuracy": [0.5, 0.9], "n": [30, 60]},
        bad=(
            ({"accuracy": 0.0}, r"accuracy must contain finite values in \(0\.0, 1\.0\], got 0\.0"),
        ),
    ),
    "statistical_dimension": Case(
        cost_models.statistical_dimension,
        {"p": 30, "margin": 0.0},
        {"p": [3, 30, 10**20], "margin": [0.0, 0.5]},
        dps=2e-15,  # margin 0: the tabulated interpolant, "below 2e-15 against dps=30"
        bad=(
            (
                {"margin": [0.0, -1.0]},
                (
                    r"margin must contain finite values >= 0\.0, "
                    r"got -1\.0 \(element 1\)"
                ),
            ),
        ),
    ),
    "statistical_dimension_margin": Case(
        cost_models.statistical_dimension,
        {"p": 4, "margin": 0.5},
        {"p": [3, 4]},
        dps=1e-12,  # with a margin, "relative error below 1e-12"
        bad=(({"p": [3, 2.5]}, r"p must contain integers >= 2, got 2\.5 \(element 1\)"),),
    ),
    "statistical_dimension_sphere": Case(
        cost_models.statistical_dimension,
        {"p": 22, "d": 8},
        {"p": [10, 22], "d": [8, 12]},
        options={"embeddings": "sphere"},
        dps=NO_ROUTE,
        bad=(({"d": [8, 3]}, r"d must .*got 3"),),
    ),
    "feasibility_probability": Case(
        crofton.feasibility_probability,
        {"d": 4, "p": 9, "n": 9, "kappa": 1.0},
        {"d": [4, 5], "p": [8, 10], "n": [6, 9], "kappa": [0.5, 1.0]},
        dps=NO_ROUTE,
        bad=(({"n": [3, 0]}, r"n must contain integers >= 1, got 0 \(element 1\)"),),
    ),
    "hebbian_recall": Case(
        hebbian.hebbian_recall,
        {"p": 100, "alpha": 0.1, "n": 100},
        {"p": [10, 1000], "alpha": [0.05, 0.2], "n": [10, 100]},
        options={"all_associations": True},
        dps=1e-11,  # r to 1e-13 relative, so r^n (n = 100) to about 1e-11
        bad=(
            (
                {"alpha": [0.1, 0.0]},
                r"alpha must contain finite values > 0\.0, got 0\.0 \(element 1\)",
            ),
        ),
    ),
    "hebbian_recall_finite": Case(
        hebbian.hebbian_recall_finite,
        {"p": 20, "d": 12, "n": 20},
        {"p": [10, 20], "d": [8, 12], "n": [5, 20]},
        bad=(({"d": 0}, r"d must be an integer >= 1, got 0"),),
    ),
    "hebbian_recall_finite pairs": Case(
        hebbian.hebbian_recall_finite,
        {"p": 20, "d": 12, "n": 20},
        {"p": [10, 20], "d": [8, 12], "n": [5, 20]},
        options={"all_associations": True, "pairs": True},
        bad=(({"n": 0}, r"n must be an integer >= 1, got 0"),),
    ),
    "hebbian_all_recalled_error": Case(
        hebbian.hebbian_all_recalled_error,
        {"d": 16},
        {"d": [8, 16, 64]},
        bad=(({"d": 65}, r"d must be an integer in \[8, 64\], got 65"),),
    ),
    "hebbian_all_recalled_error pairs": Case(
        hebbian.hebbian_all_recalled_error,
        {"d": 16},
        {"d": [8, 16, 128]},
        options={"pairs": True},
        bad=(({"d": 129}, r"d must be an integer in \[8, 128\], got 129"),),
    ),
    "hebbian_error_exponent": Case(
        hebbian.hebbian_error_exponent,
        {"alpha": 0.1},
        {"alpha": [0.05, 0.125, 0.3, 0.7]},
        dps=1e-15,  # closed form
        bad=(({"alpha": -0.1}, r"alpha must contain finite values > 0\.0, got -0\.1"),),
    ),
    "hebbian_critical_load": Case(
        hebbian.hebbian_critical_load,
        {"p": 100, "probability": 0.5, "n": 100},
        {"p": [100, 1000], "probability": [0.3, 0.5], "n": [50, 100]},
        dps=2e-13,  # "alpha to 1e-13"
        bad=(
            (
                {"probability": 1.0},
                r"probability must contain finite values in \(0\.0, 1\.0\), got 1\.0",
            ),
        ),
    ),
    "hinge_sum_cdf": Case(
        hinge_sums.hinge_sum_cdf,
        {"x": 1.0, "threshold": 0.5, "count": 3, "shift": 0.1},
        {"x": [-1.0, 1.0, 3.0], "threshold": [0.0, 0.5], "count": [0, 3, 50], "shift": [0.0, 0.1]},
        rtol=1e-13,  # the inversion shares its frequency grid within a batch
        dps=None,
        dps_atol=1e-15,  # "absolute error about 1e-15 for count <= 10"
        bad=(({"count": -1}, r"count must be an integer >= 0, got -1"),),
    ),
    "target_level_cdf": Case(
        hinge_sums.target_level_cdf,
        {"x": 1.0, "p": 5, "margin": 0.2},
        {"x": [0.0, 1.5], "p": [2, 5], "margin": [0.0, 0.2]},
        rtol=1e-13,
        dps_atol=1e-15,
        bad=(({"p": [5, 1]}, r"p must contain integers >= 2, got 1 \(element 1\)"),),
    ),
    "density_at_margin": Case(
        margin.density_at_margin,
        {"margin": 0.5, "p": 3},
        {"margin": [0.0, 0.5], "p": [2, 3]},
        dps=1e-12,  # "relative error below 1e-12"
        bad=(({"margin": -0.1}, r"margin must contain finite values >= 0\.0, got -0\.1"),),
    ),
    "max_margin": Case(
        margin.max_margin,
        {"density": 1.0, "p": 2},
        {"density": [0.3, 1.0], "p": [2, 3]},
        dps=1e-12,
        bad=(
            (
                {"density": [1.0, 3.0]},
                (
                    r"density must be in \(0, 2\] \(the critical density "
                    r"1/E\[C_p\] at p=2\), got 3\.0 \(element 1\)"
                ),
            ),
        ),
    ),
    "gardner_density": Case(
        margin.gardner_density,
        {"stability": 0.5},
        {"stability": [-1.0, 0.0, 0.5, 2.0]},
        dps=1e-15,  # "closed form, full float64 precision"
        bad=(({"stability": np.inf}, r"stability must contain finite values, got inf"),),
    ),
    "rank_capacity": Case(
        rank.rank_capacity,
        {"kappa": 0.3},
        {"kappa": [1e-6, 0.3, 1.0]},
        dps=5e-16,
        bad=(({"kappa": 0.0}, r"kappa must contain finite values in \(0\.0, 1\.0\], got 0\.0"),),
    ),
    "retained_energy": Case(
        rank.retained_energy,
        {"kappa": 0.3},
        {"kappa": [1e-6, 0.3, 1.0]},
        dps=5e-16,
        bad=(({"kappa": 2}, r"kappa must contain finite values in \(0\.0, 1\.0\], got 2\.0"),),
    ),
    "singular_value_threshold": Case(
        rank.singular_value_threshold,
        {"kappa": 0.3},
        {"kappa": [1e-6, 0.3, 0.9]},
        dps=1e-15,  # "a few ulp"
        bad=(({"kappa": -1}, r"kappa must contain finite values in \(0\.0, 1\.0\], got -1\.0"),),
    ),
    "threshold_angle": Case(
        rank.threshold_angle,
        {"kappa": 0.3},
        {"kappa": [1e-6, 0.3, 0.9]},
        dps=1e-15,
        bad=(({"kappa": np.nan}, r"kappa must contain finite values in \(0\.0, 1\.0\], got nan"),),
    ),
    "critical_density": Case(
        replica.critical_density,
        {"p": 3, "margin": 0.0},
        {"p": [2, 3], "margin": [0.0, 0.3]},
        dps=1e-12,
        bad=(({"p": 1}, r"p must be an integer >= 2, got 1"),),
    ),
    "entropic_term": Case(
        replica.entropic_term,
        {"q": 0.5},
        {"q": [0.0, 0.5, 0.9]},
        dps=1e-15,  # "exact in float64"
        bad=(
            (
                {"q": [0.5, 1.0]},
                (
                    r"q must contain finite values in \[0\.0, 1\.0\), "
                    r"got 1\.0 \(element 1\)"
                ),
            ),
        ),
    ),
    "energetic_term": Case(
        replica.energetic_term,
        {"q": 0.5, "p": 2, "margin": 0.0},
        {"q": [0.1, 0.5], "p": [2, 3], "margin": [0.0, 0.3]},
        options={"samples": 64},
        rtol=1e-15,  # the control-variate mean is one matrix product over all q
        bad=(({"margin": -1}, r"margin must contain finite values in \[0\.0, 1e\+50\], got -1"),),
    ),
    "free_entropy": Case(
        replica.free_entropy,
        {"q": 0.5, "density": 0.5, "p": 2, "margin": 0.0},
        {"q": [0.1, 0.5], "density": [0.2, 0.5], "p": [2, 3], "margin": [0.0, 0.3]},
        options={"samples": 64},
        rtol=1e-15,  # the control-variate mean is one matrix product over all q
        bad=(({"density": -0.5}, r"density must contain finite values >= 0\.0, got -0\.5"),),
    ),
    "solve_saddle_point": Case(
        replica.solve_saddle_point,
        {"density": 0.5, "p": 2, "margin": 0.0},
        {"density": [0.0, 0.4], "p": [2, 3], "margin": [0.0, 0.3]},
        options={"samples": 64},
        bad=(
            (
                {"density": [0.5, 2.5]},
                (
                    r"density must be < a_c = 1/E\[C_p\] = 2 \(p=2, "
                    r"margin=0\.0\), got 2\.5 \(element 1\)"
                ),
            ),
        ),
    ),
    "log_volume": Case(
        replica.log_volume,
        {"density": 0.5, "p": 2, "margin": 0.0},
        {"density": [0.0, 0.4], "p": [2, 3], "margin": [0.0, 0.3]},
        options={"samples": 64},
        rtol=1e-15,  # the control-variate mean is one matrix product over all q
        bad=(({"p": 2.5}, r"p must be an integer >= 2, got 2\.5"),),
    ),
    "gaussian_width_squared": Case(
        width.gaussian_width_squared,
        {"d": 16, "kappa": 0.5},
        {"d": [8, 16], "kappa": [0.25, 0.5, 1.0]},
        bad=(({"kappa": 1.5}, r"kappa must .*\(0\.0, 1\.0\].*got 1\.5"),),
    ),
    "singular_value_density": Case(
        spectrum.singular_value_density,
        {"s": 1.0, "kappa": 0.5},
        {"s": [0.5, 1.0, 1.5], "kappa": [0.5, 1.0]},
        dps=1e-14,  # "a few ulp away from the support edges"
        bad=(
            (
                {"kappa": [0.5, 1.5]},
                r"kappa must contain finite values in \(0\.0, 1\.0\], got 1\.5 \(element 1\)",
            ),
        ),
    ),
    "singular_value_density_finite": Case(
        spectrum.singular_value_density,
        {"s": 1.0, "kappa": 1.0, "d": 32, "p": 170},
        {"s": [0.8, 1.2], "d": [32, 33], "p": [150, 170]},
        dps=NO_ROUTE,  # "float64 only"
        bad=(({"p": 20}, r"p must be an integer in \[91, 182\] .*got 20"),),
    ),
    "singular_value_cdf": Case(
        spectrum.singular_value_cdf,
        {"s": 1.0, "kappa": 0.5},
        {"s": [0.5, 1.0, 1.5], "kappa": [0.5, 1.0]},
        dps_atol=1e-15,  # "~1e-15 absolute"
        bad=(({"s": [1.0, np.nan]}, r"s must not contain NaN, got nan \(element 1\)"),),
    ),
    "singular_value_cdf_finite": Case(
        spectrum.singular_value_cdf,
        {"s": 1.0, "kappa": 1.0, "d": 32, "p": 170},
        {"s": [0.8, 1.2], "d": [32, 33], "p": [150, 170]},
        rtol=1e-12,  # "about 1e-12"; the panels are shared by all points of one call
        bad=(({"d": 4}, r"d must be an integer in \[8, 1024\], got 4"),),
    ),
    "singular_value_quantile": Case(
        spectrum.singular_value_quantile,
        {"probability": 0.3, "kappa": 0.5},
        {"probability": [0.0, 0.3, 0.9], "kappa": [0.5, 1.0]},
        dps=1e-14,  # cdf(quantile(u)) = u to ~1e-15
        bad=(
            (
                {"probability": [0.5, 1.5]},
                (
                    r"probability must contain finite values in \[0\.0, 1\.0\], "
                    r"got 1\.5 \(element 1\)"
                ),
            ),
        ),
    ),
    "singular_value_quantile_finite": Case(
        spectrum.singular_value_quantile,
        {"probability": 0.3, "kappa": 1.0, "d": 32, "p": 170},
        {"probability": [0.3, 0.9], "d": [32, 33], "p": [150, 170]},
        rtol=1e-12,
        bad=(({"kappa": 0.5}, r"kappa must be 1 when d and p are given"),),
    ),
    "singular_value_moment": Case(
        spectrum.singular_value_moment,
        {"order": 4, "kappa": 0.5},
        {"order": [2, 3, 4], "kappa": [0.5, 1.0]},
        bad=(({"order": -1}, r"order must be an integer >= 0, got -1"),),
    ),
    "singular_value_moment_finite": Case(
        spectrum.singular_value_moment,
        {"order": 4, "kappa": 1.0, "d": 32, "p": 170},
        {"order": [2, 4], "d": [32, 33], "p": [150, 170]},
        bad=(({"order": 3}, r"order must be 0, 2 or 4 when d and p are given, got 3"),),
    ),
}

#: Public theory callables outside the elementwise contract, and why.
NOT_ELEMENTWISE = {
    "active_set_law": "returns the law of |A| as a vector over k for one p",
    "sum_law_window": "returns a window of a law for one input law",
    "retained_rank": "an integer: numpy.int64 for scalars (it broadcasts d and kappa)",
    "sample_scores": "random draws of a given size",
    "sample_singular_values": "random draws of a given size",
    "score_law": "constructs a law object (its methods follow the contract)",
    "hebbian_score_law": "constructs a law object (its methods follow the contract)",
    "singular_value_law": "constructs a law object (its methods follow the contract)",
    "singular_value_support": "returns the pair (lower, upper)",
    "cost_model": "returns the cost model named by a string",
    "law_status": "returns the status record of a law for one call",
}


def _public_functions() -> set[str]:
    import lamcap.theory

    return {
        name for name in lamcap.theory.__all__ if inspect.isfunction(getattr(lamcap.theory, name))
    }


def test_every_public_theory_function_is_walked() -> None:
    walked = {case.function.__name__ for case in CASES.values()}
    assert _public_functions() - walked - set(NOT_ELEMENTWISE) == set()
    assert walked & set(NOT_ELEMENTWISE) == set()


_OPTIONS = {"dps", "samples", "seed", "method", "order", "form", "normalization", "family"}
_OPTIONS |= {
    "all_associations",
    "error",
    "return_error",
    "embeddings",
    "pairs",
}  # flags and selectors


def test_every_numeric_argument_is_listed() -> None:
    """Over the cases of one function, every numeric argument is given and broadcast."""
    listed: dict[Callable[..., Any], set[str]] = {}
    for case in CASES.values():
        listed.setdefault(case.function, set()).update(case.arrays)
        assert set(case.arrays) <= set(case.scalars)
    for function, names in listed.items():
        parameters = set(inspect.signature(function).parameters)
        numeric = (parameters - _OPTIONS) | (parameters & names)  # order: a moment's k
        assert numeric == names, function.__name__


@pytest.mark.parametrize("name", CASES)
def test_scalars_give_numpy_float64(name: str) -> None:
    case = CASES[name]
    assert type(case.call()) is np.float64
    zero_d = {key: np.array(value) for key, value in case.scalars.items()}
    assert type(case.call(**zero_d)) is np.float64


def _scalar(value: Any) -> Any:
    """The Python scalar an array element holds (object arrays hold them already)."""
    return value.item() if isinstance(value, np.generic) else value


def _loop(case: Case, grids: dict[str, np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    expected = np.empty(shape)
    for index in np.ndindex(shape):
        arguments = {key: _scalar(grid[index]) for key, grid in grids.items()}
        expected[index] = case.call(**arguments)
    return expected


@pytest.mark.parametrize("name", CASES)
def test_every_numeric_argument_broadcasts_like_a_loop(name: str) -> None:
    case = CASES[name]
    names = list(case.arrays)
    # argument i varies along axis i: the result has every combination
    shaped = {}
    for axis, key in enumerate(names):
        shape = [1] * len(names)
        shape[axis] = len(case.arrays[key])
        shaped[key] = np.array(case.arrays[key], dtype=object if key == "p" else None).reshape(
            shape
        )
    result = case.call(**shaped)
    full = tuple(len(case.arrays[key]) for key in names)
    assert isinstance(result, np.ndarray)
    assert result.dtype == np.float64
    assert result.shape == full
    grids = dict(zip(names, np.broadcast_arrays(*shaped.values()), strict=True))
    expected = _loop(case, grids, full)
    if case.rtol == 0.0:
        np.testing.assert_array_equal(result, expected)
    else:
        np.testing.assert_allclose(result, expected, rtol=case.rtol, atol=case.rtol)


@pytest.mark.parametrize("name", CASES)
def test_empty_arrays_give_empty_arrays(name: str) -> None:
    case = CASES[name]
    key = next(iter(case.arrays))
    result = case.call(**{key: np.zeros(0, dtype=type(case.arrays[key][0]))})
    assert isinstance(result, np.ndarray)
    assert result.shape == (0,)


def _has_dps(case: Case) -> bool:
    return "dps" in inspect.signature(case.function).parameters


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.dps or c.dps_atol])
def test_dps_agrees_with_float64_to_the_stated_precision(name: str) -> None:
    case = CASES[name]
    if case.dps == NO_ROUTE:
        with pytest.raises(ValueError, match="dps"):
            case.call(dps=20)
        return
    exact = case.call(dps=20)
    assert isinstance(exact, mpmath.mpf)
    value = float(case.call())
    if case.dps_atol:
        assert abs(value - float(exact)) <= case.dps_atol
    else:
        assert abs(value / float(exact) - 1.0) <= case.dps


@pytest.mark.parametrize(
    "name", [n for n, c in CASES.items() if (c.dps or c.dps_atol) and c.dps != NO_ROUTE]
)
def test_dps_on_arrays_gives_object_arrays_of_mpf(name: str) -> None:
    case = CASES[name]
    key = next(iter(case.arrays))
    values = case.arrays[key][:2]
    result = case.call(**{key: values}, dps=16)
    assert isinstance(result, np.ndarray)
    assert result.dtype == object
    assert result.shape == (2,)
    assert all(isinstance(v, mpmath.mpf) for v in result)


def test_functions_with_dps_are_in_the_dps_checks() -> None:
    """Every function that takes dps= is checked (agreement or a ValueError saying why)."""
    checked = {c.function.__name__ for c in CASES.values() if c.dps or c.dps_atol}
    with_dps = {c.function.__name__ for c in CASES.values() if _has_dps(c)}
    assert with_dps == checked


@pytest.mark.parametrize(
    ("name", "bad", "match"),
    [(name, bad, match) for name, case in CASES.items() for bad, match in case.bad],
)
def test_bad_input_names_argument_value_and_range(name: str, bad: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match) as raised:
        CASES[name].call(**bad)
    message = str(raised.value)
    assert "np." not in message
    assert re.search(r"\b(must|no dps route)\b", message)
