"""``lamcap solve``: draw an instance and decide it with a certified solver.

Examples (shell)::

    lamcap solve --d 16 --p 40
    lamcap solve --d 16 --p 60 --model original --seed 3 --json
    lamcap solve --d 16 --p 40 --rank 8 --max-seconds 60
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

__all__ = ["register", "run_solve"]


def register(subparsers: Any) -> None:
    """Add the ``solve`` sub-command to the ``lamcap`` parser."""
    parser = subparsers.add_parser(
        "solve",
        help="decide whether W can recall every association of a random instance",
        description=(
            "Draw make_instance(d, p, n=..., model=..., seed=...) and run lamcap.solve; "
            "print the verdict (feasible / infeasible / undecided), the recomputed minimum "
            "normalised margin, iterations and seconds."
        ),
    )
    parser.add_argument("--d", type=int, required=True, help="dimension d >= 1")
    parser.add_argument("--p", type=int, required=True, help="outputs per association p >= 2")
    parser.add_argument("--n", type=int, default=None, help="associations (default p)")
    parser.add_argument("--model", default="decoupled", help="decoupled (default) or original")
    parser.add_argument("--seed", type=int, default=0, help="instance seed (default 0)")
    parser.add_argument("--rank", type=int, default=None, help="rank of W in [1, d] (default d)")
    parser.add_argument("--method", default="auto", help="solver method (default auto)")
    parser.add_argument(
        "--max-seconds", type=float, default=None, help="time limit (undecided when reached)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run_solve)


def _summary(result: Any, instance: Any) -> dict[str, Any]:
    certificate = result.certificate
    return {
        "d": instance.d,
        "p": instance.p,
        "n": instance.n,
        "model": instance.model,
        "seed": instance.seed,
        "verdict": result.verdict,
        "min_margin": None if math.isnan(result.min_margin) else result.min_margin,
        "certificate_bound": None if certificate is None else certificate.epsilon,
        "certificate_size": None if certificate is None else int(certificate.alpha.size),
        "iterations": result.iterations,
        "seconds": result.seconds,
        "method": result.method,
    }


def run_solve(arguments: argparse.Namespace) -> int:
    """Handler of ``lamcap solve``; returns 0 (any verdict is a successful run)."""
    from lamcap.problems import make_instance  # noqa: PLC0415 - keep the CLI start fast
    from lamcap.solvers import solve  # noqa: PLC0415

    instance = make_instance(
        arguments.d, arguments.p, n=arguments.n, model=arguments.model, seed=arguments.seed
    )
    result = solve(
        instance, rank=arguments.rank, method=arguments.method, max_seconds=arguments.max_seconds
    )
    summary = _summary(result, instance)
    if arguments.json:
        print(json.dumps(summary))
        return 0
    print(
        f"instance: d={instance.d} p={instance.p} n={instance.n} model={instance.model} "
        f"seed={instance.seed}"
    )
    print(f"verdict: {result.verdict}")
    print(f"min margin: {result.min_margin:.6g}")
    if summary["certificate_bound"] is not None:
        print(
            f"certificate: {summary['certificate_size']} constraints, "
            f"margin bound {summary['certificate_bound']:.3g}"
        )
    print(f"iterations: {result.iterations}")
    print(f"seconds: {result.seconds:.3f} ({result.method})")
    return 0
