"""The W convention (issue 38 item 2): lamcap scores u_rho^T W e_mu, ``convention="logits"``
takes a W that scores e_mu^T W u_rho, and a W that looks transposed warns once, with numbers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lamcap
from lamcap.problems import (
    CONVENTIONS,
    TRANSPOSE_RULE,
    TransposedWeightsWarning,
    hebbian_weights,
    looks_transposed,
    make_instance,
    recall_accuracy,
    scores,
)

# d = 32, p = 40, n = 40, seed 0: the Hebbian W recalls 37 of 40 (92.5%), its transpose 0.
INSTANCE = make_instance(32, 40, n=40, seed=0)
HEBBIAN = hebbian_weights(INSTANCE)


def _recorded(call):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, [w for w in caught if issubclass(w.category, TransposedWeightsWarning)]


def test_the_numbers_of_the_instance() -> None:
    assert recall_accuracy(INSTANCE, HEBBIAN) == 37 / 40
    assert _recorded(lambda: recall_accuracy(INSTANCE, HEBBIAN.T))[0] == 0.0


def test_a_transposed_w_warns_once_with_its_numbers() -> None:
    value, caught = _recorded(lambda: recall_accuracy(INSTANCE, HEBBIAN.T))
    assert value == 0.0
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "W recalls 0.0% of the 40 associations (chance 1/p = 2.5%)" in message
    assert "its transpose recalls 92.5%" in message
    assert "convention='logits'" in message
    assert caught[0].filename == __file__  # points at the caller
    check, caught = _recorded(lambda: lamcap.verify(INSTANCE, HEBBIAN.T))
    assert not check
    assert len(caught) == 1
    assert "its transpose recalls 92.5%" in str(caught[0].message)
    assert caught[0].filename == __file__


def test_the_normal_case_and_the_logits_convention_do_not_warn() -> None:
    for call in (
        lambda: recall_accuracy(INSTANCE, HEBBIAN),
        lambda: recall_accuracy(INSTANCE, HEBBIAN.T, convention="logits"),
        lambda: lamcap.verify(INSTANCE, HEBBIAN.T, convention="logits"),
        lambda: recall_accuracy(INSTANCE, (HEBBIAN.T, np.eye(32)), convention="logits"),
    ):
        value, caught = _recorded(call)
        assert caught == []
        assert value == 37 / 40 if isinstance(value, float) else value.margins is not None
    # in the logits convention, lamcap's own W is the transposed one
    _, caught = _recorded(lambda: recall_accuracy(INSTANCE, HEBBIAN, convention="logits"))
    assert len(caught) == 1
    assert "if your W scores the other way, pass convention='scores'" in str(caught[0].message)


def test_near_chance_both_ways_does_not_warn() -> None:
    W = np.random.default_rng(6).standard_normal((32, 32))  # recalls 1/40, its transpose 2/40
    value, caught = _recorded(lambda: recall_accuracy(INSTANCE, W))
    assert (value, recall_accuracy(INSTANCE, W.T)) == (1 / 40, 2 / 40)
    assert caught == []


def test_the_warning_can_be_filtered() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", lamcap.TransposedWeightsWarning)
        assert recall_accuracy(INSTANCE, HEBBIAN.T) == 0.0


def test_the_rule_at_its_edges() -> None:
    assert TRANSPOSE_RULE == (2.0, 0.5, 10.0, 1e-3)
    p, n = 40, 400
    assert looks_transposed(2 / p, 0.5, p, n)  # twice chance, half, exactly ten times
    assert not looks_transposed(2 / p + 1 / n, 1.0, p, n)  # above twice chance
    assert not looks_transposed(0.0, 0.4975, p, n)  # transpose recalls less than half
    assert not looks_transposed(0.06, 0.595, p, n)  # less than ten times as many
    assert looks_transposed(1 / 170, 1.0, 170, 170)  # the W: 0.6% against 100%
    # chance at p = 3: 2 of 2 has probability 1/9, 6 of 6 1/729, 7 of 7 1/2187
    assert not looks_transposed(0.0, 1.0, 3, 2)
    assert not looks_transposed(0.0, 1.0, 3, 6)  # 1/729 > 1e-3
    assert not looks_transposed(0.0, 6 / 7, 3, 7)  # P(>= 6 of 7) = 15/2187 > 1e-3
    assert looks_transposed(0.0, 1.0, 3, 7)  # 1/2187 < 1e-3


def test_logits_is_the_transpose_everywhere() -> None:
    assert CONVENTIONS == ("scores", "logits")
    W = np.random.default_rng(2).standard_normal((32, 32))
    np.testing.assert_array_equal(scores(INSTANCE, W, convention="logits"), scores(INSTANCE, W.T))
    Q, R = np.random.default_rng(3).standard_normal((2, 32, 5))
    np.testing.assert_allclose(
        scores(INSTANCE, (Q, R), convention="logits"), scores(INSTANCE, R @ Q.T), rtol=1e-12
    )
    with pytest.raises(ValueError, match="convention"):
        scores(INSTANCE, W, convention="xWU")


def test_a_solve_result_is_in_lamcaps_convention() -> None:
    result = lamcap.solve(make_instance(48, 3, n=2, seed=0))
    assert lamcap.verify(make_instance(48, 3, n=2, seed=0), result)
    with pytest.raises(ValueError, match="SolveResult holds lamcap's W"):
        lamcap.verify(make_instance(48, 3, n=2, seed=0), result, convention="logits")


def test_the_check_costs_one_score_pass_and_only_near_chance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lamcap import problems

    calls: list[str] = []
    original = problems.scores

    def counted(instance, W, *, convention="scores"):  # type: ignore[no-untyped-def]
        calls.append(convention)
        return original(instance, W, convention=convention)

    monkeypatch.setattr(problems, "scores", counted)
    recall_accuracy(INSTANCE, HEBBIAN)  # 92.5%: far above chance, no check
    assert calls == ["scores"]
    calls.clear()
    _recorded(lambda: recall_accuracy(INSTANCE, HEBBIAN.T))  # 0%: one more pass, transposed
    assert calls == ["scores", "logits"]
