"""Where Wolfe's exact stage spends its time: one solve with the major cycles timed kernel by kernel.

numba kernels cannot time themselves, so this script replaces the compiled
driver of Wolfe's major and minor cycles (``_wolfe``, ``_minor_cycles`` in
``lamcap.solvers._min_norm_point``) by a Python loop that calls the same
compiled kernels (affine minimiser, deletion, block append, levels, candidate
selection) in the same order and times each call; each minor cycle's step runs
as the Python function of ``_step_and_drop``, so that its deletions are timed.  The trajectory is that of
the compiled driver for the batched path (``batch > 1``, which the solver uses
from ``CuttingPlaneOptions.large_dimension`` on): the same major cycles,
additions and deletions, the same certificate.  The Python loop adds a little
overhead per call (microseconds against milliseconds here).  Below ``large_dimension``
the solver adds one point per major cycle; this script then appends it through the
block append as well (the same arithmetic, not the same kernel).

Prints the verdict, CPU and wall seconds, seconds and calls per kernel, how many
points were added and deleted, and where in the corral the deleted members sat
(position / size quantiles: the cost of a deletion grows with the rows after it).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/profile_exact_stage.py --d 96 --factor 1.07

(measured on 2026-12-01: docs/solvers-at-scale.md, "Where the exact stage's time goes").
"""

from __future__ import annotations

import argparse
import collections
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import lamcap
from lamcap.solvers import _min_norm_point as kernels

SECONDS: collections.defaultdict[str, float] = collections.defaultdict(float)
CALLS: collections.Counter[str] = collections.Counter()
DELETED_AT: list[tuple[int, int]] = []  # (position, corral size) of every deletion


def _timed(name: str, function: Callable[..., Any], *arguments: Any) -> Any:
    start = time.perf_counter()
    result = function(*arguments)
    SECONDS[name] += time.perf_counter() - start
    CALLS[name] += 1
    return result


_COMPILED_DELETE = kernels._delete


def _delete(factor, rows, solved, k, position, corral, weights):  # type: ignore[no-untyped-def]
    DELETED_AT.append((position, k))
    _timed("deletion", _COMPILED_DELETE, factor, rows, solved, k, position, corral, weights)


def _minor_cycles(factor, rows, solved, k, corral, weights, affine, newest):  # type: ignore[no-untyped-def]
    """The minor cycles of ``kernels._minor_cycles``, with the kernels timed."""
    while True:
        _timed("affine minimiser", kernels._affine_minimiser, factor, rows, solved, k, affine)
        negative = np.nonzero(affine[:k] <= 0.0)[0]
        ratios = weights[negative] / (weights[negative] - affine[negative])
        if negative.size == 0 or ratios.min() >= 1.0:
            weights[:k] = affine[:k]
            return k, False
        blocking = int(negative[np.argmin(ratios)])
        step = float(ratios.min())
        if step == 0.0 and corral[blocking] == newest:
            return k, True
        k = kernels._step_and_drop.py_func(  # its calls of _delete are the timed ones
            factor, rows, solved, k, corral, weights, affine, step, blocking
        )


def _wolfe(  # type: ignore[no-untyped-def]
    directions, owners, inputs, corral, weights, factor, rows, solved, k,
    max_iterations, levels, settle, batch, zero_tolerance, optimality_tolerance,
):  # fmt: skip
    """The batched path of ``kernels._wolfe``, with the kernels timed."""
    norms2 = np.einsum("ij,ij->i", directions, directions) * np.einsum(
        "ij,ij->i", inputs[owners], inputs[owners]
    )
    scale = float(norms2.max())
    capacity = factor.shape[0]
    affine = np.empty(capacity)
    if settle and k > 1:
        k, _ = _minor_cycles(factor, rows, solved, k, corral, weights, affine, -1)
        kernels._forward_rows(factor, rows, solved, 0, k)
    member = np.zeros(directions.shape[0], dtype=bool)
    member[corral[:k]] = True
    squared = 0.0
    for iteration in range(max_iterations):
        point = _timed("point", kernels._point, directions, owners, inputs, corral, weights, k)
        squared = float(np.sum(point * point))
        _timed("levels", kernels.constraint_levels, directions, owners, inputs, point, levels)
        best = int(np.argmin(levels))
        if squared <= zero_tolerance * scale:
            return kernels._ZERO, k, iteration, squared
        if squared - levels[best] <= optimality_tolerance * scale:
            return kernels._OPTIMAL, k, iteration, squared
        if member[best]:
            return kernels._STALLED, k, iteration, squared
        if k == capacity:
            return kernels._CAPACITY, k, iteration, squared
        below = squared - optimality_tolerance * scale
        limit = min(batch, capacity - k)
        chosen = _timed("candidates", kernels._candidates, levels, member, below, best, limit)
        cross, among = _timed(
            "candidate entries",
            kernels._candidate_entries,
            directions,
            owners,
            inputs,
            chosen,
            corral,
            k,
        )
        accepted = np.empty(chosen.shape[0], dtype=np.int64)
        kept = _timed(
            "block append", kernels._append_many, factor, rows, solved, k, cross, among, accepted
        )
        if kept == 0 or accepted[0] != 0:
            return kernels._STALLED, k, iteration, squared
        corral[k : k + kept] = chosen[accepted[:kept]]
        weights[k : k + kept] = 0.0
        member[chosen[accepted[:kept]]] = True
        CALLS["points added"] += kept
        k += kept
        size, stalled = _minor_cycles(factor, rows, solved, k, corral, weights, affine, best)
        if stalled:
            for position in range(size - 1, -1, -1):
                if weights[position] == 0.0 and corral[position] != best:
                    _delete(factor, rows, solved, size, position, corral, weights)
                    size -= 1
            size, stalled = _minor_cycles(factor, rows, solved, size, corral, weights, affine, best)
        if size < k:
            _timed("re-substitution", kernels._forward_rows, factor, rows, solved, 0, size)
        if stalled:
            return kernels._STALLED, size, iteration, squared
        member[:] = False
        member[corral[:size]] = True
        k = size
        CALLS["major cycles"] += 1
    return kernels._ITERATIONS, k, max_iterations, squared


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=96)
    parser.add_argument("--factor", type=float, default=1.07, help="p / critical_p(d)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="decoupled")
    arguments = parser.parse_args()
    kernels._wolfe = _wolfe  # CorralState.run calls the module's driver
    kernels._delete = _delete  # looked up by _step_and_drop.py_func
    sort = kernels.CorralState.sort_by_weight
    kernels.CorralState.sort_by_weight = lambda state, *a: _timed("sorting", sort, state, *a)  # type: ignore[method-assign]
    p = round(arguments.factor * float(lamcap.critical_p(arguments.d)))
    instance = lamcap.make_instance(arguments.d, p, model=arguments.model, seed=arguments.seed)
    cpu, wall = time.process_time(), time.perf_counter()
    result = lamcap.solve(instance, method="cutting_plane")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"d={arguments.d} p={p} {arguments.model} seed={arguments.seed}: {result.verdict}")
    print(f"  {result.proven}\n  {cpu:.0f} s CPU, {wall:.0f} s wall")
    for name in sorted(SECONDS, key=SECONDS.__getitem__, reverse=True):
        print(f"  {name:18s} {SECONDS[name]:8.1f} s  {CALLS[name]:7d} calls")
    print(f"  {CALLS['major cycles']} major cycles, {CALLS['points added']} points added, "
          f"{len(DELETED_AT)} deleted")  # fmt: skip
    if DELETED_AT:
        relative = np.array([position / size for position, size in DELETED_AT])
        quantiles = np.quantile(relative, [0.1, 0.25, 0.5, 0.75, 0.9])
        print("  deleted at position / size, quantiles 10-25-50-75-90%:", quantiles.round(2))


if __name__ == "__main__":
    main()
