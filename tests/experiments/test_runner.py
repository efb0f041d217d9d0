"""Runner: adaptive refinement finds a known transition; resume replays exactly."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from lamcap.experiments._runner import run_sweep
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Sweep, Task
from lamcap.experiments._trials import synthetic_transition, synthetic_trial


def _guess(cell: Any) -> float:
    return 1.7 * synthetic_transition(cell.d, cell.rank / cell.d)  # deliberately off


def _rows(path: Path) -> list[tuple[Any, ...]]:
    with ResultsStore(path, readonly=True) as store:
        return [
            (
                r["d"],
                r["rank"],
                r["model"],
                r["method"],
                r["p"],
                r["replicate"],
                r["seed"],
                r["verdict"],
            )
            for r in store.rows()
        ]


def test_adaptive_sweep_finds_the_known_transition(tmp_path: Path) -> None:
    sweep = Sweep(dims=(8, 12, 16), kappas=(0.5, 1.0), seeds_per_point=10, rounds=3)
    outcome = run_sweep(
        sweep, tmp_path / "r.sqlite", trial=synthetic_trial, workers=0, progress=False, guess=_guess
    )
    misses = 0
    for cell, fit in outcome.fits.items():
        assert fit is not None
        assert fit.bracketed
        truth = synthetic_transition(cell.d, cell.rank / cell.d)
        misses += not fit.low <= truth <= fit.high
        assert fit.p_c == pytest.approx(truth, rel=0.15)
    # 6 intervals at 95%: P(>= 3 misses) < 0.3%
    assert misses <= 2


class _FailAfter:
    """Trial that crashes after a number of calls (simulates an interruption)."""

    def __init__(self, calls: int) -> None:
        self.counter = itertools.count()
        self.calls = calls

    def __call__(self, task: Task) -> dict[str, Any]:
        if next(self.counter) >= self.calls:
            msg = "simulated crash"
            raise OSError(msg)
        return synthetic_trial(task)


def test_interrupted_run_resumes_to_identical_rows(tmp_path: Path) -> None:
    sweep = Sweep(dims=(8, 12), models=("decoupled", "original"), seeds_per_point=4, rounds=2)
    reference = run_sweep(
        sweep,
        tmp_path / "ref.sqlite",
        trial=synthetic_trial,
        workers=0,
        progress=False,
        guess=_guess,
    )
    path = tmp_path / "r.sqlite"
    for calls in (7, 50):
        with pytest.raises(RuntimeError, match="simulated crash"):
            run_sweep(sweep, path, trial=_FailAfter(calls), workers=0, progress=False, guess=_guess)
    resumed = run_sweep(sweep, path, trial=synthetic_trial, workers=0, progress=False, guess=_guess)
    assert resumed.skipped > 0
    assert resumed.ran + resumed.skipped == reference.ran
    assert _rows(path) == _rows(tmp_path / "ref.sqlite")
    again = run_sweep(sweep, path, trial=synthetic_trial, workers=0, progress=False, guess=_guess)
    assert again.ran == 0


def test_fixed_grid_runs_exactly_the_grid(tmp_path: Path) -> None:
    sweep = Sweep(dims=(8,), p_grid=(10, 16, 30), seeds_per_point=3)
    outcome = run_sweep(
        sweep, tmp_path / "r.sqlite", trial=synthetic_trial, workers=0, progress=False
    )
    assert outcome.ran == 9
    assert sorted({row[4] for row in _rows(tmp_path / "r.sqlite")}) == [10, 16, 30]


def test_process_pool_gives_the_inline_rows(tmp_path: Path) -> None:
    sweep = Sweep(dims=(8,), seeds_per_point=3, rounds=1)
    run_sweep(
        sweep, tmp_path / "a.sqlite", trial=synthetic_trial, workers=0, progress=False, guess=_guess
    )
    run_sweep(
        sweep, tmp_path / "b.sqlite", trial=synthetic_trial, workers=2, progress=False, guess=_guess
    )
    assert _rows(tmp_path / "a.sqlite") == _rows(tmp_path / "b.sqlite")


def _all_columns(path: Path) -> list[dict[str, Any]]:
    with ResultsStore(path, readonly=True) as store:
        return [{k: v for k, v in row.items() if k != "finished_at"} for row in store.rows()]


@pytest.mark.parametrize("count", [1, 3, 5])
def test_merged_shards_equal_the_unsharded_run_row_for_row(tmp_path: Path, count: int) -> None:
    from lamcap.experiments._store import merge_stores

    sweep = Sweep(
        dims=(8, 12), models=("decoupled", "original"), loads=(0.8, 1.0, 1.3), seeds_per_point=4
    )
    whole = run_sweep(sweep, tmp_path / "whole.sqlite", trial=synthetic_trial, workers=0)
    shards = []
    for i in range(1, count + 1):
        shards.append(tmp_path / f"shard-{i}.sqlite")
        outcome = run_sweep(sweep, shards[-1], trial=synthetic_trial, workers=0, shard=(i, count))
        assert outcome.ran == len(sweep.shard_keys(i, count))
    merge_stores(tmp_path / "merged.sqlite", shards)
    rows = _all_columns(tmp_path / "merged.sqlite")
    assert len(rows) == whole.ran == 2 * 2 * 3 * 4
    assert rows == _all_columns(tmp_path / "whole.sqlite")


def test_shard_of_an_adaptive_sweep_is_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="adaptive sweep"):
        run_sweep(Sweep(dims=(8,)), tmp_path / "r.sqlite", trial=synthetic_trial, shard=(1, 2))
    assert not (tmp_path / "r.sqlite").exists()


# ---------------------------------------------------------------------- progress


def test_library_call_is_quiet_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = Sweep(dims=(8,), p_grid=(10, 16), seeds_per_point=2)
    run_sweep(sweep, tmp_path / "r.sqlite", trial=synthetic_trial, workers=0)
    assert capsys.readouterr() == ("", "")


def test_adaptive_progress_counts_rounds_and_never_shrinks_the_total(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import re

    sweep = Sweep(dims=(8, 12), seeds_per_point=4, rounds=2, name="demo")
    outcome = run_sweep(
        sweep, tmp_path / "r.sqlite", trial=synthetic_trial, workers=0, guess=_guess, progress=True
    )
    err = capsys.readouterr().err
    assert "\r" not in err  # stderr is not a terminal here: plain lines
    lines = err.splitlines()
    totals = [int(re.match(r"demo: \d+/(\d+) instances", line).group(1)) for line in lines]
    assert totals == sorted(totals)
    assert totals[-1] == outcome.ran
    rounds = [int(m.group(1)) for line in lines if (m := re.search(r"round (\d+) of 3", line))]
    assert rounds == sorted(rounds)
    assert rounds[0] == 1
    assert re.search(r"demo: (\d+)/\1 instances \(100%\), done after [\d-]+ rounds", lines[-1])


def test_fixed_grid_progress_shows_the_whole_total_from_the_first_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 23: the first line said "0/5 instances" (the first cell), the next "1/9"
    import re

    sweep = Sweep(dims=(8, 10), p_grid=(12, 16, 20), seeds_per_point=2, name="grid")
    outcome = run_sweep(
        sweep, tmp_path / "r.sqlite", trial=synthetic_trial, workers=0, progress=True
    )
    lines = capsys.readouterr().err.splitlines()
    totals = {int(re.match(r"grid: \d+/(\d+) instances", line).group(1)) for line in lines}
    assert outcome.ran == 12
    assert totals == {12}
    assert lines[0].startswith("grid: 0/12 instances (0%)")


def test_an_instance_that_cannot_run_is_a_value_error_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    # issue 23: a p-grid point too large for memory ended in a RuntimeError traceback
    def trial(task: Task) -> dict[str, Any]:
        if task.p == 30:
            msg = f"make_instance with d = 8, p = {task.p}: needs 1 TiB of memory"
            raise ValueError(msg)
        return synthetic_trial(task)

    sweep = Sweep(dims=(8,), p_grid=(10, 16, 30), seeds_per_point=2)
    path = tmp_path / "r.sqlite"
    with pytest.raises(
        ValueError, match=r"^2 instance\(s\) cannot run, first Task\(d=8.*p=30"
    ) as info:
        run_sweep(sweep, path, trial=trial, workers=0)
    assert str(info.value).endswith("needs 1 TiB of memory")
    with ResultsStore(path, readonly=True) as store:
        assert sorted(row["p"] for row in store.rows()) == [10, 10, 16, 16]


def _bounds(task: Task) -> dict[str, Any]:
    return {"n": task.p, "recall_lower": 1, "recall_upper": task.p - 1, "verdict": "bounded"}


def test_one_round_runs_a_fixed_list_into_either_table_resumably(tmp_path: Path) -> None:
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._runner import OneRound, execute
    from lamcap.experiments._store import recall_key
    from lamcap.experiments._sweep import Cell

    sweep = Sweep(dims=(8,), seeds_per_point=3, max_seconds=5.0)
    tasks = sweep.tasks(Cell(8, 1.0, "decoupled", "auto"), [20, 30])
    path = tmp_path / "r.sqlite"
    with ResultsStore(path) as store:
        ran, skipped, verdicts = execute(
            [OneRound(tasks)], store, InlineExecutor(), _bounds, sweep_name="m", table="max_recall"
        )
        assert (ran, skipped) == (6, 0)
        assert verdicts == {recall_key(task): "bounded" for task in tasks}
        assert store.count() == 0  # nothing in the sweeps' table
        # the same instances with another time limit are other solves
        longer = [Task(**{**task.__dict__, "max_seconds": 9.0}) for task in tasks[:2]]
        ran, skipped, _ = execute(
            [OneRound(tasks + longer)],
            store,
            InlineExecutor(),
            _bounds,
            sweep_name="m",
            table="max_recall",
        )
        assert (ran, skipped) == (2, 6)
        assert store.count(table="max_recall") == 8
        # the sweeps' table is keyed by Task.key(): the same instances are new there
        ran, skipped, verdicts = execute(
            [OneRound(tasks)], store, InlineExecutor(), synthetic_trial, sweep_name="s"
        )
        assert (ran, skipped) == (6, 0)
        assert set(verdicts) == {task.key() for task in tasks}
        with pytest.raises(ValueError, match=r"table must be one of .*got 'recall'"):
            execute(
                [OneRound(tasks)], store, InlineExecutor(), _bounds, sweep_name="m", table="recall"
            )
