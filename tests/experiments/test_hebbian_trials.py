"""Batched Hebbian trials: the records of solver_trial, the same numbers as make_instance.

The reference is :func:`solver_trial` (``make_instance`` + ``lamcap.solve(method="hebbian")``
+ ``recall_accuracy``) on each task alone, and numpy's own generators for the streams.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from typing import Any

import numpy as np
import pytest
from numba.np.random._constants import ziggurat_nor_r

from lamcap.experiments import _hebbian_trials as module
from lamcap.experiments._hebbian_trials import (
    hebbian_instances,
    hebbian_trials,
    margin_tolerance,
    stream_normals,
    stream_state,
    streams_match_numpy,
)
from lamcap.experiments._sweep import Cell, Sweep, Task
from lamcap.experiments._trials import solver_trial
from lamcap.problems import _generator, hebbian_weights, make_instance

# p around the decoupled all-recalled transition, hebbian_transition(d, finite=True):
# 10.1 at d = 16, 28.1 at d = 32, 92.8 at d = 64; both verdicts occur at each d, for both
# models and embeddings (the unit-norm transition is higher: p = 130 at d = 64)
GRIDS = {8: (3, 4, 5, 6), 16: (6, 8, 10, 13), 32: (20, 28, 36), 64: (80, 93, 130)}
SEEDS = {8: 5, 16: 5, 32: 4, 64: 2}
SAME = ("verdict", "infeasible_proof", "accuracy", "iterations", "solver_method")


def _tasks(d: int, model: str, embeddings: str, seeds: int | None = None) -> list[Task]:
    sweep = Sweep(
        dims=(d,),
        methods=("hebbian",),
        models=(model,),
        embeddings=(embeddings,),
        seeds_per_point=SEEDS[d] if seeds is None else seeds,
    )
    return sweep.tasks(Cell(d, 1.0, model, "hebbian", embeddings), list(GRIDS[d]))


def _tolerance(task: Task) -> float:
    """margin_tolerance of the task's instance, its norms computed from make_instance."""
    instance = make_instance(
        task.d, task.p, model=task.model, seed=task.seed, embeddings=task.embeddings
    )
    ratio = np.linalg.norm(instance.target_outputs()) * np.linalg.norm(instance.inputs)
    return margin_tolerance(
        task.d, task.p, float(ratio / np.linalg.norm(hebbian_weights(instance)))
    )


def _assert_same(record: dict[str, Any], reference: dict[str, Any], task: Task) -> None:
    assert record.keys() == reference.keys()
    for key in SAME:
        assert record[key] == reference[key], (key, task)
    difference = abs(record["min_margin"] - reference["min_margin"])
    assert difference <= _tolerance(task), (difference, task)
    assert math.isfinite(record["seconds"])
    assert record["seconds"] >= 0.0


@pytest.mark.parametrize(
    ("model", "embeddings"),
    list(itertools.product(("decoupled", "original"), ("gaussian", "sphere"))),
)
def test_records_equal_solver_trial_near_the_transition(model: str, embeddings: str) -> None:
    for d in GRIDS:
        tasks = _tasks(d, model, embeddings)
        records = hebbian_trials(tasks)
        for task, record in zip(tasks, records, strict=True):
            _assert_same(record, solver_trial(task), task)
        assert {record["verdict"] for record in records} == {"feasible", "infeasible"}, d


def test_min_margins_agree_far_inside_the_stated_tolerance() -> None:
    tasks = _tasks(32, "decoupled", "gaussian", seeds=3)
    differences = [
        abs(record["min_margin"] - solver_trial(task)["min_margin"])
        for task, record in zip(tasks, hebbian_trials(tasks), strict=True)
    ]
    assert max(differences) < 1e-14  # observed ~1e-16; the proven tolerance is ~3e-13 here
    assert max(differences) < min(_tolerance(task) for task in tasks)


def test_a_mixed_batch_keeps_the_order_of_its_tasks() -> None:
    pool = [
        task
        for d, model, embeddings in itertools.product(
            (8, 16, 32), ("decoupled", "original"), ("gaussian", "sphere")
        )
        for task in _tasks(d, model, embeddings, seeds=1)
    ]
    order = np.random.default_rng(4).permutation(len(pool))
    mixed = [pool[i] for i in order]
    records = hebbian_trials(mixed)
    assert len(records) == len(mixed)
    for task, record in zip(mixed, records, strict=True):
        _assert_same(record, solver_trial(task), task)
    alone = {id(task): hebbian_trials([task])[0] for task in mixed[:12]}
    for task, record in zip(mixed[:12], records[:12], strict=True):
        assert {k: alone[id(task)][k] for k in SAME} == {k: record[k] for k in SAME}
        assert alone[id(task)]["min_margin"] == record["min_margin"]


def test_tasks_of_one_shape_share_the_time_equally() -> None:
    tasks = _tasks(16, "decoupled", "gaussian", seeds=3)[:3]  # p = 6, three replicates
    seconds = {record["seconds"] for record in hebbian_trials(tasks)}
    assert len(seconds) == 1


def test_an_empty_batch_has_no_records() -> None:
    assert hebbian_trials([]) == []
    assert hebbian_trials(()) == []


def test_other_methods_are_refused_naming_the_task() -> None:
    tasks = _tasks(8, "decoupled", "gaussian", seeds=1)[:2]
    tasks[1] = dataclasses.replace(tasks[1], method="cutting_plane")
    with pytest.raises(
        ValueError, match=r"tasks\[1\]\.method must be 'hebbian'.*got 'cutting_plane'"
    ):
        hebbian_trials(tasks)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"d": 0}, r"tasks\[0\]\.d must be an integer >= 1, got 0"),
        ({"p": 1}, r"tasks\[0\]\.p must be an integer >= 2, got 1"),
        ({"seed": -3}, r"tasks\[0\]\.seed must be an integer >= 0, got -3"),
        ({"model": "joint"}, r"tasks\[0\]\.model must be one of 'decoupled', 'original'"),
        ({"embeddings": "unit"}, r"tasks\[0\]\.embeddings must be one of 'gaussian', 'sphere'"),
        ({"raw_margin": 0.0}, r"tasks\[0\]\.raw_margin must be in \(0.0, "),
        ({"max_seconds": -1.0}, r"tasks\[0\]\.max_seconds must be > 0.0, got -1.0"),
    ],
)
def test_bad_tasks_are_refused_naming_the_field(change: dict[str, Any], match: str) -> None:
    task = dataclasses.replace(_tasks(8, "decoupled", "gaussian", seeds=1)[0], **change)
    with pytest.raises(ValueError, match=match):
        hebbian_trials([task])


def test_a_batch_of_something_else_is_refused() -> None:
    with pytest.raises(ValueError, match=r"tasks\[0\] must be a lamcap.experiments Task, got dict"):
        hebbian_trials([{"method": "hebbian"}])  # type: ignore[list-item]


def test_low_rank_and_huge_seeds_get_solver_trial_records() -> None:
    low_rank = Sweep(dims=(16,), kappas=(0.5,), methods=("hebbian",), seeds_per_point=2).tasks(
        Cell(16, 0.5, "decoupled", "hebbian"), [8]
    )
    huge = dataclasses.replace(low_rank[0], kappa=1.0, rank=16, seed=2**64 + 11)
    tasks = [*low_rank, huge]
    for task, record in zip(tasks, hebbian_trials(tasks), strict=True):
        reference = solver_trial(task)
        assert {k: v for k, v in record.items() if k != "seconds"} == {
            k: v for k, v in reference.items() if k != "seconds"
        }


def test_instances_near_a_tie_go_to_solver_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Task] = []

    def counted(task: Task) -> dict[str, Any]:
        calls.append(task)
        return solver_trial(task)

    monkeypatch.setattr(module, "solver_trial", counted)
    monkeypatch.setattr(module, "margin_tolerance", lambda *_: math.inf)
    tasks = _tasks(16, "original", "sphere", seeds=1)
    records = hebbian_trials(tasks)
    assert calls == tasks
    for task, record in zip(tasks, records, strict=True):
        assert record["min_margin"] == solver_trial(task)["min_margin"]


def test_other_streams_than_numpy_fall_back_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(module, "streams_match_numpy", lambda: False)
    monkeypatch.setattr(module, "_warmed_kernel", lambda: False)
    tasks = _tasks(8, "decoupled", "sphere", seeds=1)
    with pytest.warns(RuntimeWarning, match="falls back to solver_trial"):
        records = hebbian_trials(tasks)
    for task, record in zip(tasks, records, strict=True):
        assert record["min_margin"] == solver_trial(task)["min_margin"]


# ----------------------------------------------------------------- the kernel's streams
def test_streams_equal_numpy_generators_bit_for_bit() -> None:
    """Seeds of one and two 32-bit words, every kind of spawn key; 2.76 million numbers."""
    rng = np.random.default_rng(11)
    seeds = [0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, *rng.integers(0, 2**63, 40).tolist()]
    keys = [(0,), (1,), (2, 0), (2, 1), (2, 4095), (2, 2**32 - 1)]
    tail = 0
    for seed, key in itertools.product(seeds, keys):
        association = key[1] if len(key) == 2 else 0
        ours = stream_normals(
            np.uint64(seed), np.uint64(key[0]), np.uint64(association), len(key), 10_000
        )
        np.testing.assert_array_equal(ours, _generator(seed, key).standard_normal(10_000))
        tail += int(np.count_nonzero(np.abs(ours) > ziggurat_nor_r))
    assert tail > 400  # the ziggurat's tail branch ran (probability 2.6e-4 per number: ~720)
    assert streams_match_numpy()


def test_stream_state_is_numpys_sfc64_state() -> None:
    for seed, key in [(0, (0,)), (5, (1,)), (2**63 + 9, (2, 17))]:
        association = key[1] if len(key) == 2 else 0
        with np.errstate(over="ignore"):  # interpreted: numpy's uint64 wraps like the compiled code
            state = stream_state(
                np.uint64(seed), np.uint64(key[0]), np.uint64(association), len(key)
            )
        numpy_state = np.random.SFC64(np.random.SeedSequence(seed, spawn_key=key)).state
        assert [int(word) for word in state] == numpy_state["state"]["state"].tolist()


def test_compiled_streams_equal_their_py_func() -> None:
    """The whole chain (seeding, SFC64, ziggurat) interpreted on numpy.uint64 words."""
    for seed, key, association, words in [(2**40 + 1, 0, 0, 1), (7, 2, 3, 2)]:
        arguments = (np.uint64(seed), np.uint64(key), np.uint64(association), words, 3000)
        with np.errstate(over="ignore"):
            interpreted = stream_normals.py_func(*arguments)
        np.testing.assert_array_equal(stream_normals(*arguments), interpreted)


@pytest.mark.parametrize(
    ("original", "sphere"), list(itertools.product((False, True), (False, True)))
)
def test_compiled_kernel_equals_its_py_func(original: bool, sphere: bool) -> None:
    seeds = np.array([3, 2**62 + 5], dtype=np.uint64)
    outputs = []
    for kernel in (hebbian_instances, hebbian_instances.py_func):
        arrays = (np.empty(2, dtype=np.int64), np.empty(2), np.empty(2), np.empty(2))
        with np.errstate(over="ignore"):
            kernel(seeds, 5, 4, original, sphere, *arrays)
        outputs.append(arrays)
    for compiled, interpreted in zip(*outputs, strict=True):
        np.testing.assert_array_equal(compiled, interpreted)


def test_recorded_seconds_leave_out_the_process_warm_up() -> None:
    """The stream check and the compilation are paid once per process, by no instance."""
    module._warmed_kernel()
    tasks = _tasks(16, "decoupled", "gaussian", seeds=64)
    started = time.perf_counter()
    records = hebbian_trials(tasks)
    wall = time.perf_counter() - started
    assert sum(record["seconds"] for record in records) <= wall
