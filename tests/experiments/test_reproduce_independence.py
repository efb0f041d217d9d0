"""The measured law a reproduction is judged against: shipped with lamcap, independent instances."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from lamcap import critical_p
from lamcap.experiments._claims import measured_law_text, op_dp_law
from lamcap.experiments._mechanism import solution_tasks
from lamcap.experiments._recall_fraction import recall_tasks
from lamcap.experiments._reproduce import FULL, QUICK, SEED, Plan, _mechanism_runs
from lamcap.experiments._sweep import Sweep

ROOT = Path(__file__).resolve().parents[2]
DOCS_LAW = ROOT / "docs" / "measurements" / "op_vs_dp.csv"
DATABASES = sorted((ROOT / "docs" / "measurements" / "data").glob("opdp_*.sqlite"))


def test_shipped_law_is_the_committed_measurement() -> None:
    # src/lamcap/experiments/data/op_vs_dp.csv must be a copy of the docs CSV
    # (regenerate the docs CSV, then copy it over the package's).
    assert measured_law_text() == DOCS_LAW.read_text(encoding="utf-8")


def test_installed_law_equals_the_law_fitted_to_the_docs_file() -> None:
    shipped, from_docs = op_dp_law(), op_dp_law(DOCS_LAW)
    assert shipped is not None
    assert from_docs is not None
    for d in (8, 16, 64):
        assert shipped(d) == from_docs(d)
    value, error = shipped(16)
    assert 0.0 < value < 0.1  # OP stores a few percent more at d = 16
    assert 0.0 < error < 0.05


def _measured_seeds() -> set[int]:
    seeds: set[int] = set()
    for path in DATABASES:
        uri = f"file:{path}?mode=ro&immutable=1"  # never writes -shm/-wal next to the file
        with sqlite3.connect(uri, uri=True) as connection:
            seeds.update(seed for (seed,) in connection.execute("SELECT seed FROM trials"))
    return seeds


def _reachable_seeds(plan: Plan, sweep_seed: int | None = None) -> Iterator[int]:
    """Every instance seed ``plan`` could draw: any p up to 3 critical_p(d), every replicate."""
    for planned in plan.sweeps:
        seed = planned.seed if sweep_seed is None else sweep_seed
        sweep = Sweep.from_mapping({**planned.to_mapping(), "seed": seed})
        for cell in sweep.cells():
            top = math.ceil(3 * float(critical_p(cell.d, kappa=cell.kappa)))
            for task in sweep.tasks(cell, list(range(2, top + 1))):
                yield task.seed
    for d, kappa, _ in _mechanism_runs(plan):
        p = max(2, int(plan.critical_fraction * float(critical_p(d, kappa=kappa))))
        seed = plan.seed if sweep_seed is None else sweep_seed
        yield from (
            t.seed for t in solution_tasks(d, p, kappa=kappa, seeds=plan.mechanism_seeds, seed=seed)
        )
    if plan.recall is not None:
        seed = plan.seed if sweep_seed is None else sweep_seed
        yield from (task.seed for _, task in recall_tasks(plan.recall, seed))


@pytest.mark.parametrize("plan", [QUICK, FULL], ids=["quick", "full"])
def test_reproduce_never_draws_an_instance_behind_the_measured_law(plan: Plan) -> None:
    measured = _measured_seeds()
    assert len(measured) > 2000  # both committed databases were read
    assert all(sweep.seed == SEED for sweep in plan.sweeps)
    assert plan.seed == SEED
    assert measured.isdisjoint(_reachable_seeds(plan))


def test_the_independence_check_detects_shared_seeds() -> None:
    # With lamcap sweep's default seed 0 (what reproduce used before) the quick
    # plan re-solves hundreds of the measured instances: the check above can fail.
    shared = _measured_seeds().intersection(_reachable_seeds(QUICK, sweep_seed=0))
    assert len(shared) > 100


def test_reproduce_refuses_to_resume_a_run_drawn_with_another_seed(tmp_path: Path) -> None:
    from lamcap.experiments._reproduce import reproduce
    from lamcap.experiments._store import ResultsStore

    out = tmp_path / "old-run"
    out.mkdir()
    with ResultsStore(out / "results.sqlite") as store:
        store.record_sweep(Sweep.from_mapping({**QUICK.sweeps[0].to_mapping(), "seed": 0}), None)
    with pytest.raises(ValueError, match=r"seed\(s\) \[0\].*give a new out"):
        reproduce(out, plan=QUICK, workers=0, progress=False, with_tables=False)
