"""Cost models (lamcap.theory._cost_models): one object per kind of embeddings.

The public laws ask the model named by ``embeddings`` and never test that name, so a new
kind of embeddings is one new class registered in ``COST_MODELS``.  The check here is
that extension itself: a model whose every cost is a quarter of the Gaussian one must
give, through the unchanged public functions, exactly the Gaussian laws of a map of
twice the dimension (``4 d^2`` dimensions for the same costs), an independent
prediction that holds bit for bit because a factor 4 is exact in floating point.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

import lamcap
import lamcap.theory
from lamcap._validation import EMBEDDINGS
from lamcap.theory import _cost_models
from lamcap.theory._cost_models import (
    COST_MODELS,
    GAUSSIAN,
    CostModel,
    GaussianCosts,
    UnitNormCosts,
    cost_model,
    gaussian_mean_at,
)


class QuarterCosts(CostModel):
    """Every association costs a quarter of its Gaussian cost (a test model)."""

    name = "quarter"
    description = "quarter-cost embeddings"
    status = "exact"
    error_page = "tests/theory/test_cost_models.py"

    def mean_cost(self, p: NDArray[Any], d: NDArray[Any]) -> NDArray[np.float64]:
        return 0.25 * GAUSSIAN.mean_cost(p, d)

    def mean_cost_at(self, p: float, d: int) -> float:  # noqa: ARG002 - no d dependence
        return 0.25 * gaussian_mean_at(p)


@pytest.fixture
def quarter(monkeypatch: pytest.MonkeyPatch) -> CostModel:
    """The quarter-cost model registered beside the shipped ones for one test."""
    model = QuarterCosts()
    monkeypatch.setitem(_cost_models.COST_MODELS, model.name, model)
    return model


def test_registry_holds_the_embeddings_that_instances_are_drawn_with() -> None:
    assert tuple(COST_MODELS) == EMBEDDINGS
    assert isinstance(cost_model("gaussian"), GaussianCosts)
    assert isinstance(cost_model("sphere"), UnitNormCosts)
    assert all(model.name == name for name, model in COST_MODELS.items())
    assert {model.status for model in COST_MODELS.values()} <= {
        "exact",
        "asymptotic",
        "model with measured error",
        "fitted",
    }
    measured = [m for m in COST_MODELS.values() if m.status == "model with measured error"]
    assert all(m.measured_error is not None and m.measured_d is not None for m in measured)


def test_unknown_embeddings_are_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match=r"embeddings must be one of 'gaussian', 'sphere'"):
        cost_model("unit")


@pytest.mark.parametrize("d", [3, 8, 12])
def test_a_new_model_needs_no_edit_of_critical_p(quarter: CostModel, d: int) -> None:
    assert lamcap.critical_p(d, embeddings=quarter.name) == lamcap.critical_p(2 * d)


def test_a_new_model_needs_no_edit_of_the_crofton_law(quarter: CostModel) -> None:
    p = [150, 160, 170]
    curve = lamcap.feasibility_probability(8, p, embeddings=quarter.name)
    assert np.array_equal(curve, lamcap.feasibility_probability(16, p))


def test_a_new_model_needs_no_edit_of_the_recalled_fraction(quarter: CostModel) -> None:
    p = [150, 200, 400]
    fraction = lamcap.best_accuracy(8, p, embeddings=quarter.name)
    assert np.array_equal(fraction, lamcap.best_accuracy(16, p))


def test_a_new_model_needs_no_edit_of_the_statistical_dimension(quarter: CostModel) -> None:
    value = lamcap.statistical_dimension([5, 50], d=8, embeddings=quarter.name)
    assert np.array_equal(value, 0.25 * np.asarray(lamcap.statistical_dimension([5, 50])))


def test_a_new_model_below_full_recall_uses_the_scaled_gaussian_law(quarter: CostModel) -> None:
    # the default partial load scales the Gaussian law to the model's mean: the mean at a
    # real p (table interpolant) and the interpolated law's mean differ by about 1e-8
    scaled = float(lamcap.critical_p(8, accuracy=0.9, embeddings=quarter.name))
    assert scaled == pytest.approx(float(lamcap.critical_p(16, accuracy=0.9)), rel=1e-6)


def test_arguments_are_checked_by_the_model() -> None:
    with pytest.raises(ValueError, match=r"d is required by statistical_dimension"):
        lamcap.statistical_dimension(10, embeddings="sphere")
    with pytest.raises(ValueError, match=r"kappa must be 1 with embeddings='sphere'"):
        lamcap.critical_p(8, kappa=0.5, embeddings="sphere")
    with pytest.raises(ValueError, match=r"d must be .*>= 4"):
        lamcap.best_accuracy(3, 10, embeddings="sphere")
    with pytest.raises(ValueError, match=r"embeddings='sphere' has only margin=0"):
        lamcap.statistical_dimension(10, d=8, margin=0.5, embeddings="sphere")


def test_gaussian_budget_scale_is_one_and_unit_norm_scale_is_the_mean_ratio() -> None:
    p, d = np.array([10, 40]), np.array([8, 12])
    assert np.array_equal(GAUSSIAN.budget_scale(p, d), np.ones(2))
    sphere = cost_model("sphere")
    expected = np.asarray(lamcap.statistical_dimension(p)) / np.asarray(
        lamcap.statistical_dimension(p, d=d, embeddings="sphere")
    )
    assert np.array_equal(sphere.budget_scale(p, d), expected)


def test_capabilities_that_experiments_ask_for() -> None:
    assert GAUSSIAN.hebbian_law
    assert GAUSSIAN.asymptotic_claims
    assert not GAUSSIAN.full_rank_only
    sphere = cost_model("sphere")
    assert sphere.full_rank_only
    assert not sphere.hebbian_law
    assert not sphere.asymptotic_claims


def _laws_taking_d() -> list[str]:
    names = []
    for name in lamcap.theory.__all__:
        value = getattr(lamcap.theory, name)
        is_law = callable(value) and not isinstance(value, type)
        if is_law and "d" in inspect.signature(value).parameters:
            names.append(name)
    return names


@pytest.mark.parametrize("name", _laws_taking_d())
def test_every_law_taking_d_takes_embeddings_or_says_why_not(name: str) -> None:
    law = getattr(lamcap.theory, name)
    if "embeddings" in inspect.signature(law).parameters:
        return
    doc = inspect.getdoc(law) or ""
    assert any(line.startswith("Embeddings: ") for line in doc.splitlines()), name
