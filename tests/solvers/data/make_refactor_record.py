"""Write ``refactor_record.json``: the solvers' answers on a fixed instance set.

A refactor regression record (issue 24, one constraint pass in the solvers):
it was produced by the code *before* ``lamcap.solvers._constraints`` took over
the score pass, the working set, the constraint normaliser and
``raw_min_margin`` (the commit is stored in the file), and
``tests/solvers/test_refactor_record.py`` checks that the refactored solvers
give the same verdicts, proven flags, iteration counts, stages and Farkas
certificates (indices exactly, multipliers bit for bit) and the same
normalised minimum margins.  Weights are compared through their normalised
margin only: the ``raw_margin`` contract (``lamcap.solve``'s docstring) may
rescale them.

Run from the repository root to rewrite the record (only when a change of the
solvers' answers is intended and explained in CHANGELOG.md), with the settings
of ``PLATFORM``::

    NUMBA_CPU_NAME=haswell OPENBLAS_CORETYPE=SkylakeX \\
        python tests/solvers/data/make_refactor_record.py
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from lamcap.problems import make_instance
from lamcap.solvers import (
    CuttingPlaneOptions,
    check_margins,
    prove_infeasible,
    solve,
    solve_cutting_plane,
)

RECORD = Path(__file__).with_name("refactor_record.json")

# (name, d, p, model, seed, method, keyword arguments of solve)
CASES: list[tuple[str, int, int, str, int, str, dict[str, Any]]] = [
    ("cp-easy-decoupled", 8, 12, "decoupled", 0, "cutting_plane", {}),
    ("cp-0.9pc-decoupled", 8, 20, "decoupled", 1, "cutting_plane", {}),
    ("cp-pc-decoupled", 8, 22, "decoupled", 2, "cutting_plane", {}),
    ("cp-1.1pc-decoupled", 8, 25, "decoupled", 3, "cutting_plane", {}),
    ("cp-1.3pc-decoupled", 8, 29, "decoupled", 4, "cutting_plane", {}),
    ("cp-0.9pc-original", 8, 20, "original", 0, "cutting_plane", {}),
    ("cp-1.1pc-original", 8, 25, "original", 1, "cutting_plane", {}),
    ("cp-pc-d10-decoupled", 10, 31, "decoupled", 5, "cutting_plane", {}),
    ("cp-pc-d10-original", 10, 31, "original", 6, "cutting_plane", {}),
    ("cp-no-stage-pc", 8, 22, "decoupled", 7, "cutting_plane-no-stage", {}),
    ("cp-no-stage-1.2pc-original", 8, 27, "original", 8, "cutting_plane-no-stage", {}),
    ("cp-rounds-feasible-original", 8, 22, "original", 30, "cutting_plane", {}),
    ("cp-rounds-infeasible-original", 8, 23, "original", 30, "cutting_plane", {}),
    ("cp-no-stage-wolfe-feasible", 8, 22, "decoupled", 37, "cutting_plane-no-stage", {}),
    ("cp-no-stage-first-order", 8, 22, "decoupled", 34, "cutting_plane-no-stage", {}),
    ("cp-no-stage-first-order-original", 8, 21, "original", 32, "cutting_plane-no-stage", {}),
    ("cp-no-stage-wolfe-original", 8, 23, "original", 31, "cutting_plane-no-stage", {}),
    ("cp-nnls-1.2pc", 6, 18, "decoupled", 9, "cutting_plane-nnls", {}),
    ("cp-highs-1.2pc", 6, 18, "original", 10, "cutting_plane-highs", {}),
    ("mm-0.8pc-decoupled", 8, 18, "decoupled", 11, "cutting_plane", {"objective": "max_margin"}),
    ("mm-0.95pc-original", 8, 21, "original", 12, "cutting_plane", {"objective": "max_margin"}),
    ("mm-1.2pc-decoupled", 6, 18, "decoupled", 13, "cutting_plane", {"objective": "max_margin"}),
    ("lp-0.8pc-decoupled", 6, 12, "decoupled", 14, "full_lp", {}),
    ("lp-1.3pc-original", 6, 19, "original", 15, "full_lp", {}),
    ("hebbian-easy", 32, 4, "decoupled", 16, "hebbian", {}),
    ("hebbian-miss", 8, 20, "original", 17, "hebbian", {}),
    ("hebbian-rank", 32, 4, "original", 18, "hebbian", {"rank": 16}),
    ("adam-easy", 8, 10, "decoupled", 19, "adam_ce", {"options": {"steps": 400}}),
    ("adam-rank", 8, 8, "original", 20, "adam_ce", {"rank": 4, "options": {"steps": 400}}),
    ("two-layer-easy", 8, 8, "decoupled", 21, "two_layer", {"rank": 4}),
    ("two-layer-1.3pc", 6, 19, "decoupled", 22, "two_layer", {"rank": 3}),
]


def _hex(value: float) -> str:
    return float(value).hex()


def _run(d: int, p: int, model: str, seed: int, method: str, kwargs: dict[str, Any]) -> Any:
    instance = make_instance(d, p, model=model, seed=seed)
    if method.startswith("cutting_plane-"):
        variant = method.split("-", 1)[1]
        options = (
            CuttingPlaneOptions(feasibility_first=False)
            if variant == "no-stage"
            else CuttingPlaneOptions(exact=variant)
        )
        return instance, solve_cutting_plane(
            instance, rank=d, raw_margin=1.0, max_seconds=None, seed=0, options=options
        )
    return instance, solve(instance, method=method, seed=seed, **kwargs)


_DETAILS = (
    "stage",
    "stopped",
    "working_set",
    "feasibility_stopped",
    "feasibility_passes",
    "feasibility_evaluations",
    "feasibility_working_set",
    "restarts",
    "full_rank_verdict",
    "gap_reached",
)


def record_case(
    d: int,
    p: int,
    model: str,
    seed: int,
    method: str,
    kwargs: dict[str, Any],
    *,
    check_certificate: bool = False,
) -> dict[str, Any]:
    """What the record keeps of one solve (with ``check_certificate``, also whether
    :func:`~lamcap.solvers.prove_infeasible` proves its certificate: ``certificate_valid``)."""
    instance, result = _run(d, p, model, seed, method, kwargs)
    entry: dict[str, Any] = {
        "verdict": result.verdict,
        "proven": result.proven,
        "iterations": int(result.iterations),
        "details": {key: result.details[key] for key in _DETAILS if key in result.details},
    }
    if result.weights is not None:
        margin = check_margins(instance, result.weights).min_margin
        entry["min_margin"] = None if math.isnan(margin) else _hex(margin)
    if "relative_gap" in result.details:
        entry["relative_gap"] = _hex(result.details["relative_gap"])
    certificate = result.certificate
    if certificate is not None:
        entry["certificate"] = {
            "associations": np.asarray(certificate.associations).tolist(),
            "competitors": np.asarray(certificate.competitors).tolist(),
            "alpha": [_hex(a) for a in np.asarray(certificate.alpha)],
            "epsilon": _hex(certificate.epsilon),
            "exact": bool(certificate.exact),
        }
        if check_certificate:
            entry["certificate_valid"] = bool(prove_infeasible(instance, certificate).proven)
    return entry


PLATFORM = {"NUMBA_CPU_NAME": "haswell", "OPENBLAS_CORETYPE": "SkylakeX"}
"""Compile and BLAS targets the record was checked on: its last bits depend on them.

numba compiles for the host CPU and OpenBLAS picks kernels by CPU, and both change
the rounding of sums (measured: on a host numba calls ``rocketlake``, 2 of the 31
cases take 3 more feasibility evaluations; with OpenBLAS's Haswell kernels, 14
differ).  The record matches numba's ``haswell`` target with OpenBLAS's
``SkylakeX`` kernels, so the test solves the cases in a child process with these
settings (an AVX-512 host is needed for the kernels).
"""


def print_cases(*, check_certificate: bool = False) -> None:
    """Every case's entry as one JSON object on stdout (run in a child process)."""
    cases = {name: record_case(*case, check_certificate=check_certificate) for name, *case in CASES}
    print(json.dumps(cases, sort_keys=True))


def main() -> None:
    """Solve every case and write the record with the commit it came from."""
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    cases = {}
    for name, d, p, model, seed, method, kwargs in CASES:
        cases[name] = record_case(d, p, model, seed, method, kwargs)
        print(name, cases[name]["verdict"], cases[name]["iterations"], file=sys.stderr)
    record = {"commit": commit, "cases": cases}
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--print"]:
        print_cases()
    elif sys.argv[1:] == ["--print-checked"]:
        print_cases(check_certificate=True)
    else:
        main()
