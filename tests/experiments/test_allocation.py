"""The allocation stage: instances added where claims can still be decided, within a budget."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lamcap.experiments._allocation import TARGET_SHARES, Allocator, need
from lamcap.experiments._analysis import CellData, cell_data_of_rows, transition_rows
from lamcap.experiments._claims import transition_claims
from lamcap.experiments._executors import InlineExecutor
from lamcap.experiments._runner import execute, planned_tasks, run_sweep
from lamcap.experiments._shift import cell_law
from lamcap.experiments._store import ResultsStore, row_key
from lamcap.experiments._sweep import Cell, Sweep, Task
from lamcap.experiments._verdicts import Claim, familywise_quantile, judge

COST = {8: 0.01, 10: 0.04}
"""Known CPU seconds per instance of each synthetic cell (what the trial reports)."""

BUDGET = 120.0
"""CPU seconds that bring both cells to their first target, not to their last."""

_SWEEP = Sweep(name="optimal", dims=(8, 10), seeds_per_point=4, rounds=1, seed=5)


def _law_trial(task: Task) -> dict[str, Any]:
    """Storable with the probability of the cell's Crofton law (drawn from the seed); known cost."""
    cell = Cell(task.d, 1.0, task.model, task.method, task.embeddings)
    uniform = float(np.random.default_rng(task.seed).random())
    storable = uniform < cell_law(cell).at_integer(task.p)
    return {"verdict": "feasible" if storable else "infeasible", "seconds": COST[task.d]}


class _Interrupted(Exception):
    pass


def _interrupting_trial(limit: int) -> Any:
    calls = [0]

    def trial(task: Task) -> dict[str, Any]:
        calls[0] += 1
        if calls[0] > limit:
            raise _Interrupted
        return _law_trial(task)

    return trial


def _claims_of(cells: dict[Cell, CellData]) -> list[Claim]:
    return judge(transition_claims(cells, transition_rows(cells)))


def _allocate(database: Path, budget: float, trial: Any = _law_trial) -> Allocator:
    run_sweep(_SWEEP, database, trial=_law_trial, workers=0)
    with ResultsStore(database) as store:
        verdicts = {row_key(row): row["verdict"] for row in store.rows()}
        planned = planned_tasks(_SWEEP, verdicts)
        allocator = Allocator(planned, dict.fromkeys(planned, _SWEEP), _claims_of, budget, store)
        execute([allocator], store, InlineExecutor(), trial, sweep_name="added")
        allocator.final_rows = allocator.rows()  # type: ignore[attr-defined]
    return allocator


def _keys(database: Path) -> list[tuple[Any, ...]]:
    with ResultsStore(database) as store:
        return [row_key(row) for row in store.rows()]


def test_every_cell_reaches_every_target_within_a_large_budget(tmp_path: Path) -> None:
    allocator = _allocate(tmp_path / "results.sqlite", budget=1e6)
    claims = _claims_of(cell_data_of_rows(allocator.final_rows))  # type: ignore[attr-defined]
    family = sum(claim.tested for claim in claims)
    for claim in claims:
        quantile = familywise_quantile(family, df=claim.df)
        room = math.log1p(0.02) - claim.law_error
        reached = quantile * claim.standard_errors[0] / room
        assert reached <= TARGET_SHARES[-1] * 1.0001, claim.claim
    for cell, record in allocator.records.items():
        assert (
            record.reason == "reached precision target 5 of 5 (q·s ≤ 0.125 of the room), the last"
        )
        assert record.reached == len(TARGET_SHARES), cell
        assert record.added > 0
    # the budget counts the known costs of the added instances
    added = sum(record.added * COST[cell.d] for cell, record in allocator.records.items())
    assert allocator.spent == pytest.approx(added)


def test_the_budget_serves_the_cheapest_information_first_and_says_what_the_rest_needs(
    tmp_path: Path,
) -> None:
    # 40 CPU s: the d = 8 cell's first target costs about 16 of them (0.01 s per
    # instance), the d = 10 cell's about 48 (0.04 s): served first, the cheap cell
    # leaves too little for the dear one, which gets nothing and says what it needs
    allocator = _allocate(tmp_path / "results.sqlite", budget=40.0)
    cheap, dear = (allocator.records[Cell(d, 1.0, "decoupled", "auto")] for d in (8, 10))
    assert (dear.reached, dear.added) == (0, 0)
    assert dear.reason.startswith("the next needs about ")
    assert dear.reason.endswith("CPU s of budget left")
    assert cheap.reached >= 1
    assert cheap.added > 0
    assert allocator.spent <= 40.0


def test_an_interrupted_allocation_resumes_to_the_same_instances_stored_once(
    tmp_path: Path,
) -> None:
    whole = tmp_path / "whole.sqlite"
    _allocate(whole, budget=BUDGET)
    broken = tmp_path / "broken.sqlite"
    with pytest.raises(RuntimeError, match="_Interrupted"):
        _allocate(broken, budget=BUDGET, trial=_interrupting_trial(300))
    stored = len(_keys(broken))
    assert 0 < stored < len(_keys(whole))
    _allocate(broken, budget=BUDGET)
    keys = _keys(broken)
    assert len(keys) == len(set(keys))  # nothing stored twice
    assert sorted(keys) == sorted(_keys(whole))  # the same rounds replayed
    again = _allocate(broken, budget=BUDGET)
    assert sorted(_keys(broken)) == sorted(keys)  # a complete run adds nothing
    assert all(record.added > 0 for record in again.records.values())


def _claim(cell: Cell, **fields: Any) -> Claim:
    """A judged-looking transition claim of ``cell`` (estimate 0, 100 instances)."""
    defaults: dict[str, Any] = {
        "z": 0.0,
        "p_value": 1.0,
        "quantity": "transition",
        "estimates": (0.0,),
        "standard_errors": (0.05,),
        "cell": cell.label(),
        "count": 100,
        "tolerance": 0.02,  # as judge() sets it
    }
    return Claim("c", "1", "1", **(defaults | fields))


def test_claims_whose_floor_reaches_the_tolerance_get_no_instances() -> None:
    cell = Cell(16, 1.0, "decoupled", "hebbian")
    claim = _claim(cell, law_error=math.log1p(0.02))
    assert need(claim, cell, 10, 0.01) is None
    assert need(dataclasses.replace(claim, tolerance=0.05), cell, 10, 0.01) is not None
    assert need(_claim(cell, alternative="greater"), cell, 10, 0.01) is None
    assert need(_claim(cell, tolerance=math.nan), cell, 10, 0.01) is None  # not judged


def test_need_estimates_the_instances_from_the_square_root_law() -> None:
    cell = Cell(8, 1.0, "decoupled", "auto")
    found = need(_claim(cell, standard_errors=(0.02,), estimates=(0.01,)), cell, 4, 0.5)
    assert found is not None
    share = TARGET_SHARES[0]
    target = share * math.log1p(0.02) / familywise_quantile(4)
    assert found.target(share) == pytest.approx(target)
    assert found.instances(share) == math.ceil(100 * ((0.02 / target) ** 2 - 1))
    assert found.rate(share) == pytest.approx((0.02 - target) / (found.instances(share) * 0.5))
    assert found.stage() == 0
    assert found.estimate == 0.01  # where the added instances go
