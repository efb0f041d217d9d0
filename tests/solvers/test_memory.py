"""Memory estimates of the exact stage against measured allocations, and the checks in the solver."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import lamcap
from lamcap.problems import make_instance
from lamcap.solvers import _cutting_plane as cutting_plane
from lamcap.solvers import _infeasibility as infeasibility
from lamcap.solvers import verify
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._memory import (
    RUNTIME_BYTES,
    available_memory,
    dense_repair_bytes,
    exact_stage_bytes,
    perturbation_proof_bytes,
)
from lamcap.solvers._min_norm_point import CorralState, load_kernels
from lamcap.solvers._result import build_result


def _peak_bytes_of_wolfe(d: int, count: int, seed: int) -> tuple[int, int]:
    """Peak traced bytes of a warm-started Wolfe run grown to its largest corral, then sorted."""
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((count, d))
    owners = rng.integers(0, 3 * d, size=count).astype(np.int64)
    inputs = rng.standard_normal((3 * d, d))
    inputs /= np.linalg.norm(inputs, axis=1)[:, None]
    weights = rng.random(count)
    load_kernels()
    tracemalloc.start()
    capacity = min(d * d + 2, max(count + 1, 64))  # as the solver starts it
    state = CorralState.from_weights(directions, owners, inputs, weights, capacity)
    status = "capacity"
    while status == "capacity":
        status = state.run(directions, owners, inputs, max_iterations=100_000, batch=4)
        if status == "capacity":
            state.grow(min(d * d + 2, 2 * state.factor.shape[0]))
    state.sort_by_weight(directions, owners, inputs)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, state.size


@pytest.mark.parametrize(("d", "count"), [(6, 400), (9, 300), (10, 2000), (10, 80), (12, 110)])
def test_wolfe_estimate_bounds_the_traced_peak(d: int, count: int) -> None:
    # Random points around the origin: the min-norm point is 0 and the corral
    # reaches about d^2 + 1 points, so the factor grows to its largest size.
    peak, size = _peak_bytes_of_wolfe(d, count, seed=d)
    assert size > d * d // 2  # the factor really grew
    arrays = 8 * (2 * d + 12) * 4 * count  # the working set it may grow to
    estimate = exact_stage_bytes(d, count, "wolfe", batch=4) - RUNTIME_BYTES
    assert peak <= estimate
    assert estimate <= 4 * peak + arrays  # an upper estimate, not a wild one


def test_dense_estimates_cover_the_rows() -> None:
    assert exact_stage_bytes(20, 100, "nnls") >= 3 * 8 * 401 * 20**2  # D + 1 rows after pruning
    assert exact_stage_bytes(20, 100, "highs") == exact_stage_bytes(20, 100, "nnls")
    assert dense_repair_bytes(10, 400, highs=False) == 3 * 8 * 10 * 400
    assert dense_repair_bytes(10, 400, highs=True) > dense_repair_bytes(10, 400, highs=False)


def test_available_memory_is_positive_and_plausible() -> None:
    assert 0 < available_memory() < 1 << 50


_MEASURE = """
import json, sys
from pathlib import Path
import lamcap
from lamcap.solvers import _cutting_plane as cutting_plane, _result as result

def status(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024

def reset():
    Path("/proc/self/clear_refs").write_text("5")

record = {"exact_peak": 0, "proof_base": 0, "proof_peak": 0}
fits, prove = cutting_plane._memory_fits, result.prove_infeasible

def checked(instance, working, exact, progress):
    answer = fits(instance, working, exact, progress)
    record["at_check"] = status("VmRSS")
    reset()
    return answer

def proved(instance, certificate):
    record["exact_peak"] = status("VmHWM")
    record["proof_base"] = status("VmRSS")
    reset()
    proof = prove(instance, certificate)
    record["proof_peak"] = status("VmHWM")
    reset()
    return proof

cutting_plane._memory_fits, result.prove_infeasible = checked, proved
d, p, model = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
instance = lamcap.make_instance(d, p, model=model, seed=0)
solved = lamcap.solve(instance)
record["final_peak"] = status("VmHWM")
record["verdict"] = solved.verdict
record["support"] = int(solved.certificate.alpha.size) if solved.certificate else 0
record["estimate"] = solved.details["exact_memory_bytes"]
print(json.dumps(record))
"""


def _resident_profile(d: int, p: int, model: str) -> dict[str, int]:
    """Resident memory at the exact stage's check and the peaks after it (a fresh process)."""
    output = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(d), str(p), model],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout
    profile: dict[str, int] = json.loads(output.splitlines()[-1])
    return profile


@pytest.mark.slow  # a fresh process: 8 s each, more where numba compiles its kernels
@pytest.mark.skipif(
    not Path("/proc/self/clear_refs").exists(), reason="needs Linux's resettable peak memory"
)
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_estimates_bound_the_resident_peak_of_a_solve(model: str) -> None:
    # d = 24 at 1.07 p_c: infeasible, the exact stage fills a corral of
    # d^2 + 1 points and the perturbation proof runs on them.
    profile = _resident_profile(24, 124, model)
    assert profile["verdict"] == "infeasible"
    assert profile["support"] == 24**2 + 1
    need = max(profile["exact_peak"], profile["final_peak"]) - profile["at_check"]
    assert 0 < need <= profile["estimate"]
    proof_need = profile["proof_peak"] - profile["proof_base"]
    assert 0 < proof_need <= perturbation_proof_bytes(profile["support"], 24**2)


def test_exact_stage_without_memory_ends_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = make_instance(4, 40, seed=1)  # infeasible: only the exact stage decides it
    options = CuttingPlaneOptions(first_order_rounds=1)
    decided = solve_cutting_plane(
        instance, rank=4, raw_margin=1.0, max_seconds=None, seed=0, options=options
    )
    assert decided.verdict == "infeasible"
    assert decided.details["exact_memory_bytes"] <= decided.details["available_memory_bytes"]
    monkeypatch.setattr(cutting_plane, "available_memory", lambda: 1000)
    result = solve_cutting_plane(
        instance, rank=4, raw_margin=1.0, max_seconds=None, seed=0, options=options
    )
    assert result.verdict == "undecided"
    assert result.details["stopped"] == "memory"
    assert result.details["stage"] == "wolfe"
    assert result.details["available_memory_bytes"] == 1000
    # the run stopped at the check: its working set is the one the estimate was made for
    working_set = result.details["working_set"]
    estimate = exact_stage_bytes(4, working_set, "wolfe", 40, 40, batch=1, sort=False)
    assert result.details["exact_memory_bytes"] == estimate > 1000
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_proof_without_memory_is_not_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    # infeasible, a support of 65 spanning R^64: too many for exact arithmetic
    instance = make_instance(8, 30, seed=0)
    certificate = lamcap.solve(instance).certificate
    assert certificate is not None
    assert certificate.alpha.size == 65
    needed = perturbation_proof_bytes(65, 64)
    monkeypatch.setattr(infeasibility, "available_memory", lambda: needed)
    assert infeasibility.prove_infeasible(instance, certificate).method == "perturbation"
    monkeypatch.setattr(infeasibility, "available_memory", lambda: needed - 1)
    # the perturbation proof is skipped; the verified inverse needs less and proves it
    assert infeasibility.prove_infeasible(instance, certificate).method == "verified_inverse"
    monkeypatch.setattr(infeasibility, "available_memory", lambda: 0)
    proof = infeasibility.prove_infeasible(instance, certificate)
    assert not proof.proven
    assert f"the perturbation proof needs {needed / 1e9:.2f} GB of memory" in proof.detail
    assert proof.detail.count("GB available: not tried") == 2
    result = build_result(instance, None, certificate=certificate, method="x")
    assert result.verdict == "infeasible"  # gamma* <= eps still holds
    assert result.certificate is not None
    assert not result.certificate.exact
    assert "not tried" in result.details["proof"]
    assert verify(instance, result)


@pytest.mark.parametrize(("available", "tried"), [(0, 1), (10**12, 3)])
def test_farkas_repairs_run_only_when_their_memory_is_available(
    monkeypatch: pytest.MonkeyPatch, available: int, tried: int
) -> None:
    instance = make_instance(4, 12, n=6, seed=2)
    unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
    working = cutting_plane.WorkingSet(instance.n, instance.d)
    mus = np.repeat(np.arange(6, dtype=np.int64), 3)
    rhos = np.tile(np.arange(1, 4, dtype=np.int64), 6)
    targets, competitors = instance.constraint_outputs(mus, rhos)
    working.add(mus, rhos, targets - competitors)
    duals = np.full(working.size, 1.0 / working.size)
    monkeypatch.setattr(cutting_plane, "available_memory", lambda: available)
    candidates = list(cutting_plane._candidates(working, unit_inputs, duals, max_seconds=5.0))
    assert len(candidates) == tried
    assert np.array_equal(candidates[0], duals)  # the weights themselves are always tried
