"""Tests for lamcap.solve / lamcap.verify: dispatch, registry and bad input."""

from __future__ import annotations

import importlib
import re

import pytest

import lamcap
from lamcap.problems import make_instance
from lamcap.solvers import METHODS, SolveResult, solve, verify


def test_top_level_names_resolve() -> None:
    assert lamcap.solve is solve
    assert lamcap.verify is verify
    assert lamcap.SolveResult is SolveResult


def test_auto_full_rank_uses_the_certified_solver() -> None:
    instance = make_instance(8, 6, n=4, seed=2)
    result = lamcap.solve(instance)
    assert result.method == "cutting_plane"
    assert result.verdict == "feasible"
    assert verify(instance, result)


def test_registry_names_the_agreed_functions() -> None:
    assert METHODS["hebbian"] == "lamcap.solvers._baselines:solve_hebbian"
    assert METHODS["adam_ce"] == "lamcap.solvers._baselines:solve_adam_cross_entropy"
    assert METHODS["two_layer"] == "lamcap.solvers._two_layer:solve_rank_constrained"
    for name in ("cutting_plane", "full_lp"):
        module, function = METHODS[name].split(":")
        assert callable(getattr(importlib.import_module(module), function))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rank": 0}, "rank must be an integer in"),
        ({"rank": 9}, "rank must be an integer in"),
        ({"rank": 2.5}, "rank must be an integer"),
        ({"raw_margin": 0.0}, "raw_margin must be"),
        ({"raw_margin": -1.0}, "raw_margin must be"),
        ({"raw_margin": float("nan")}, "raw_margin must be a finite"),
        ({"method": "simplex"}, "method must be one of"),
        ({"max_seconds": 0.0}, "max_seconds must be"),
        ({"seed": -1}, "seed must be an integer"),
        ({"method": "full_lp", "rank": 4}, "rank must equal d = 8"),
    ],
)
def test_bad_arguments_name_argument_and_accepted_values(
    kwargs: dict[str, object], match: str
) -> None:
    instance = make_instance(8, 4, n=2, seed=0)
    with pytest.raises(ValueError, match=match):
        solve(instance, **kwargs)  # type: ignore[arg-type]


def test_instance_must_be_an_instance() -> None:
    with pytest.raises(ValueError, match="instance must be a lamcap Instance"):
        solve("not an instance")  # type: ignore[arg-type]


def test_solve_that_cannot_fit_one_pass_is_undecided_with_the_estimate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 23: a solve too large for memory ends undecided, as the exact stage does
    from lamcap.solvers import _solve
    from lamcap.solvers._memory import score_pass_bytes

    instance = make_instance(8, 3000, seed=0)
    needed = score_pass_bytes(8, 3000, 3000)
    assert needed >= 8 * 8 * 3000 * 3000  # eight n x p float64 arrays
    monkeypatch.setattr(_solve, "available_memory", lambda: needed - 1)
    result = solve(instance, method="hebbian")
    assert result.verdict == "undecided"
    assert result.weights is None
    assert result.details["stopped"] == "memory"
    assert result.details["memory_bytes"] == needed
    assert result.details["available_memory_bytes"] == needed - 1
    assert "n = 3000 associations with p = 3000 outputs needs 582 MiB" in result.details["reason"]
    monkeypatch.setattr(_solve, "available_memory", lambda: needed)
    assert solve(instance, method="hebbian").details.get("stopped") != "memory"


def test_adam_ce_is_tunable_from_solve() -> None:
    # issue 23: the literature's protocol took its learning rate and steps only privately
    from lamcap.solvers import METHOD_OPTIONS

    assert METHOD_OPTIONS["adam_ce"] == ("learning_rate", "steps", "batch_size", "stop_accuracy")
    instance = make_instance(8, 10, seed=0)
    default = solve(instance, method="adam_ce")
    assert default.verdict == "feasible"
    capped = solve(instance, method="adam_ce", options={"learning_rate": 1e-4, "steps": 3})
    assert capped.verdict == "undecided"  # three tiny steps from 0.01-sized weights
    assert capped.iterations == 3
    again = solve(instance, method="adam_ce", options={"learning_rate": 3.0, "steps": 5000})
    assert (again.iterations, again.verdict) == (default.iterations, default.verdict)


@pytest.mark.parametrize(
    ("method", "options", "message"),
    [
        ("adam_ce", {"lr": 0.1}, "options for method 'adam_ce': takes only ('learning_rate', "),
        ("hebbian", {"steps": 3}, "options for method 'hebbian': takes no options, got 'steps'"),
        ("adam_ce", [("steps", 3)], "options must be a mapping"),
        ("adam_ce", {"learning_rate": -1.0}, "learning_rate must be"),
        ("adam_ce", {"steps": 0}, "steps must be an integer >= 1, got 0"),
    ],
)
def test_bad_options_name_what_is_accepted(method: str, options: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        solve(make_instance(8, 10, seed=0), method=method, options=options)


def test_solve_with_a_matrix_too_large_for_memory_is_undecided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # lamcap solve --d 100000 --p 3: the instance fits, W (80 GB) does not
    from lamcap.solvers import _solve
    from lamcap.solvers._memory import RUNTIME_BYTES, score_pass_bytes

    d = 2000  # W: 32 MB, and as many for its update
    needed = score_pass_bytes(d, 3, 3)
    assert needed >= RUNTIME_BYTES + 16 * d * d
    monkeypatch.setattr(_solve, "available_memory", lambda: RUNTIME_BYTES + 8 * d * d)
    result = solve(make_instance(d, 3, seed=0))
    assert result.verdict == "undecided"
    assert result.details["stopped"] == "memory"
    assert result.details["memory_bytes"] == needed
    assert score_pass_bytes(10**5, 3, 3) > 1.6e11
