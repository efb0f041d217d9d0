"""``lamcap solve``: draw an instance and decide it with a certified solver.

Examples (shell)::

    lamcap solve --d 16 --p 40
    lamcap solve --d 16 --p 60 --model original --seed 3 --json
    lamcap solve --d 16 --p 40 --rank 8 --max-seconds 60
    lamcap solve --d 16 --p 40 --objective max-margin --save W.npy --save-certificate dual.npz
    lamcap solve --d 12 --p 60 --objective max-recall --max-seconds 60
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

OBJECTIVES = {"feasible": "feasible", "max-margin": "max_margin", "max-recall": "max_recall"}
"""Command-line objective -> ``lamcap.solve(objective=...)``."""

MARGIN_FORMULA = (
    "min over all n(p-1) constraints of (u_t - u_rho)^T W e_mu / "
    "(||W||_F ||e_mu|| sqrt(||u_t||^2 + ||u_rho||^2))"
)
"""What the printed "normalised" margin is (lamcap.solvers._certificates)."""


def register(subparsers: Any) -> None:
    """Add the ``solve`` sub-command to the ``lamcap`` parser."""
    from lamcap.problems import EMBEDDINGS, MODELS  # noqa: PLC0415 - numpy only, no solver code
    from lamcap.solvers import METHODS  # noqa: PLC0415 - choices of the parser, loaded as it is built

    methods = ("auto", *METHODS)
    parser = subparsers.add_parser(
        "solve",
        help="decide whether W can recall every association of a random instance",
        description=(
            "Draw make_instance(d, p, n=..., model=..., seed=...) and run lamcap.solve. "
            "Prints the verdict (feasible: a W recalling every association, verified on "
            "all n(p-1) constraints; infeasible: a Farkas certificate, re-checked; "
            "undecided), the minimum normalised margin of W (the formula is printed with "
            "it), iterations and seconds. With --objective max-margin the W is the "
            "max-margin one (minimum ||W||_F with every raw margin (u_t - u_rho)^T W e_mu "
            ">= --raw-margin), with its certified relative duality gap; the default objective "
            "returns the first feasible W, which the theory's spectra and score laws do "
            "not describe."
        ),
    )
    parser.add_argument("--d", type=int, required=True, help="dimension d >= 1")
    parser.add_argument("--p", type=int, required=True, help="outputs per association p >= 2")
    parser.add_argument(
        "--n", type=int, default=None, help="associations n >= 1 (default p; n <= p if original)"
    )
    parser.add_argument(
        "--model",
        default="decoupled",
        choices=MODELS,
        help="decoupled: each association has its own p outputs; original: p shared "
        "outputs (default decoupled)",
    )
    parser.add_argument(
        "--embeddings",
        default="gaussian",
        choices=EMBEDDINGS,
        help="gaussian: entries N(0, 1/d); sphere: inputs and outputs uniform on the unit "
        "sphere (default gaussian)",
    )
    parser.add_argument("--seed", type=int, default=0, help="instance seed >= 0 (default 0)")
    parser.add_argument(
        "--rank", type=int, default=None, help="rank of W in [1, d] (default d: full rank)"
    )
    parser.add_argument(
        "--method",
        default="auto",
        choices=methods,
        help="solver (default auto: cutting_plane at full rank, two_layer below)",
    )
    parser.add_argument(
        "--objective",
        default="feasible",
        choices=tuple(OBJECTIVES),
        help="feasible: stop at the first verified W (default); max-margin: the "
        "minimum-norm W with every raw margin >= --raw-margin, certified by a duality gap "
        "(full rank, method auto or cutting_plane); max-recall: the most associations one W "
        "recalls, as certified bounds (a verified W, disjoint subsets proven infeasible) and "
        "their gap (full rank, method auto, cutting_plane or full_lp)",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=1e-4,
        help="max-margin only: stop at certified relative gap (P - D)/P <= T, T in (0, 1) "
        "(default 1e-4; then ||W - W*||_F <= sqrt(T) ||W||_F)",
    )
    parser.add_argument(
        "--raw-margin",
        type=float,
        default=1.0,
        help="right-hand side c of every raw constraint (u_t - u_rho)^T W e_mu >= c, > 0 "
        "(default 1); a scale of W only, not the theory's margin m (docs/vocabulary.md)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="time limit in seconds, > 0 (undecided when reached; max-margin: the best "
        "verified W with the gap reached so far)",
    )
    parser.add_argument(
        "--learning-rate",
        type=float,
        default=None,
        help="method adam_ce only: Adam's learning rate, > 0 (default 3.0 for a full W, "
        "0.3 below full rank: the tuned values)",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help="method adam_ce only: at most this many Adam steps, >= 1 (default 5000)",
    )
    parser.add_argument(
        "--save",
        metavar="W.npy",
        default=None,
        help="write the d x d weight matrix W (float64, numpy .npy; Q R^T at rank < d) "
        "to this file; its folder must exist",
    )
    parser.add_argument(
        "--save-certificate",
        metavar="C.npz",
        default=None,
        help="write the certificate (numpy .npz) to this file; its folder must exist. "
        "infeasible: kind='farkas', associations, competitors, alpha, bound; max-margin: "
        "kind='max_margin_dual', associations, competitors, y, margin, dual_value, "
        "primal_value, relative_gap; max-recall: kind='max_recall_subsets', subset (which "
        "subset each constraint's weight belongs to), associations, competitors, alpha, "
        "bounds, recalled",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run_solve)


def _check_target(option: str, value: str | None) -> Path | None:
    """The path to write ``option``'s file to, or ValueError when its folder is missing."""
    if value is None:
        return None
    path = Path(value)
    if path.is_dir():
        msg = f"{option} must name a file, got the folder {value!r}"
        raise ValueError(msg)
    folder = path.parent
    if not folder.is_dir():
        msg = f"{option}: folder {str(folder)!r} does not exist (nothing written)"
        raise ValueError(msg)
    return path


def _finite(value: Any) -> float | None:
    return None if value is None or not math.isfinite(float(value)) else float(value)


def _summary(result: Any, instance: Any, objective: str) -> dict[str, Any]:
    certificate = result.certificate
    details = result.details
    summary = {
        "d": instance.d,
        "p": instance.p,
        "n": instance.n,
        "model": instance.model,
        "embeddings": instance.embeddings,
        "seed": instance.seed,
        "objective": objective,
        "verdict": result.verdict,
        "min_margin": _finite(result.min_margin),
        "certificate_bound": None if certificate is None else certificate.epsilon,
        "certificate_size": None if certificate is None else int(certificate.alpha.size),
        "certificate_exact": None if certificate is None else bool(certificate.exact),
        "proven": result.proven,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "compile_seconds": result.compile_seconds,
        "method": result.method,
    }
    if objective == "max-margin":
        summary.update(
            relative_gap=_finite(details.get("relative_gap")),
            gap_reached=bool(details.get("gap_reached", False)),
            tolerance=details.get("tolerance"),
            raw_min_margin=_finite(details.get("raw_min_margin")),
            frobenius_norm=_finite(details.get("primal_norm")),
            dual_value=_finite(details.get("dual_value")),
            primal_value=_finite(details.get("primal_value")),
        )
    if objective == "max-recall":
        subsets = result.infeasible_subsets
        summary.update(
            recall_lower=result.recall_lower,
            recall_upper=result.recall_upper,
            recall_gap=result.recall_gap,
            accuracy_lower=result.recall_lower / instance.n,
            accuracy_upper=result.recall_upper / instance.n,
            recalled=None if result.recalled is None else result.recalled.tolist(),
            infeasible_subsets=[subset.associations.tolist() for subset in subsets],
            upper_exact=bool(details.get("upper_exact", False)),
            start=details.get("start"),
            solves=details.get("solves", 0),
        )
    return summary


def _print_recall(instance: Any, summary: dict[str, Any]) -> None:
    """The two bounds of --objective max-recall, their gap and what they rest on."""
    lower, upper, n = summary["recall_lower"], summary["recall_upper"], instance.n
    print(
        f"recalled: {lower} <= best <= {upper} of n = {n} associations "
        f"(fraction {lower / n:.4g} to {upper / n:.4g}; gap {summary['recall_gap']})"
    )
    print(
        f"lower bound: W recalls {lower} associations, each verified (normalised margin above "
        "1e-9 and its rounding error)"
    )
    sizes = [len(subset) for subset in summary["infeasible_subsets"]]
    kind = "exact" if summary["upper_exact"] else "at normalised margin above 1e-9"
    print(
        f"upper bound: n - {len(sizes)} disjoint subsets each proven jointly infeasible "
        f"(Farkas certificates, {kind}; sizes {sizes})"
    )


VERIFIED_VERDICTS = {
    "feasible": ("feasible",),
    "max-margin": ("feasible", "optimal"),
    "max-recall": ("optimal", "bounded"),
}
"""Per ``--objective``, the verdicts whose W was verified (every association recalled; for
max-recall, the certified recalled set of the lower bound): the only W ``--save`` writes."""


def _save_weights(path: Path, result: Any, d: int, objective: str) -> tuple[bool, str]:
    import numpy as np  # noqa: PLC0415 - only when the command runs

    from lamcap.solvers._certificates import weights_matrix  # noqa: PLC0415 - only when the command runs

    if result.weights is None:
        return False, f"W not saved: the solver returned no weights (verdict {result.verdict})"
    if result.verdict not in VERIFIED_VERDICTS[objective]:
        return False, (
            f"W not saved: verdict {result.verdict} has no verified W (saved only for "
            f"{' or '.join(VERIFIED_VERDICTS[objective])} with --objective {objective})"
        )
    matrix = weights_matrix(result.weights, d)
    with path.open("wb") as handle:
        np.save(handle, matrix)
    return True, f"W ({d} x {d} float64) saved to {path}"


def _save_certificate(path: Path, result: Any) -> tuple[bool, str]:
    import numpy as np  # noqa: PLC0415 - only when the command runs

    certificate = result.certificate
    dual = result.details.get("dual")
    subsets = getattr(result, "infeasible_subsets", ())
    if result.recall_lower is not None and subsets:
        arrays: dict[str, Any] = {
            "kind": np.array("max_recall_subsets"),
            "subset": np.concatenate(
                [np.full(s.certificate.alpha.size, k) for k, s in enumerate(subsets)]
            ),
            "associations": np.concatenate([s.certificate.associations for s in subsets]),
            "competitors": np.concatenate([s.certificate.competitors for s in subsets]),
            "alpha": np.concatenate([s.certificate.alpha for s in subsets]),
            "bounds": np.array([s.certificate.epsilon for s in subsets]),
            "recalled": result.recalled,
        }
    elif result.verdict == "infeasible" and certificate is not None:
        arrays = {
            "kind": np.array("farkas"),
            "associations": certificate.associations,
            "competitors": certificate.competitors,
            "alpha": certificate.alpha,
            "bound": np.array(certificate.epsilon),
        }
    elif result.verdict == "feasible" and dual is not None:
        arrays = {
            "kind": np.array("max_margin_dual"),
            "associations": dual.associations,
            "competitors": dual.competitors,
            "y": dual.y,
            "raw_margin": np.array(dual.raw_margin),
            "dual_value": np.array(result.details["dual_value"]),
            "primal_value": np.array(result.details["primal_value"]),
            "relative_gap": np.array(result.details["relative_gap"]),
        }
    else:
        return False, (
            f"certificate not saved: verdict {result.verdict} has none "
            "(a feasible W is its own proof; save it with --save)"
        )
    with path.open("wb") as handle:
        np.savez(handle, **arrays)
    size = arrays["associations"].size
    return True, f"certificate ({arrays['kind']}, {size} constraints) saved to {path}"


def _margin_precision(result: Any, instance: Any) -> float:
    """Proven bound on the rounding error of the printed margin (lamcap.solvers._certificates)."""
    from lamcap.solvers._certificates import margin_error, product_with_error  # noqa: PLC0415 - only when the command runs

    precision = margin_error(instance.d)
    if isinstance(result.weights, tuple):
        precision += product_with_error(*result.weights)[1]
    return precision


def _raw_precision(result: Any, instance: Any) -> float:
    """Relative rounding bound of the smallest raw margin: 2 sqrt(2) (d + 2) 2^-53 / gamma."""
    dimension = int(instance.d)
    return 2.0 * math.sqrt(2.0) * (dimension + 2) * 2.0**-53 / float(result.min_margin)


def _print_text(result: Any, instance: Any, summary: dict[str, Any]) -> None:
    print(
        f"instance: d={instance.d} p={instance.p} n={instance.n} model={instance.model} "
        f"embeddings={instance.embeddings} seed={instance.seed}"
    )
    print(f"verdict: {result.verdict}")
    print(f"proven: {result.proven}")
    if summary["objective"] == "max-recall":
        _print_recall(instance, summary)
    print(
        f"min normalised margin: {result.min_margin:.6g} (dimensionless: {MARGIN_FORMULA}; "
        f"float64, accurate to {_margin_precision(result, instance):.1e})"
    )
    if summary["objective"] == "max-margin" and summary["relative_gap"] is not None:
        reached = "reached" if summary["gap_reached"] else "NOT reached"
        print(
            f"max-margin W: ||W||_F = {summary['frobenius_norm']:.10g}, smallest raw margin "
            f"min (u_t - u_rho)^T W e_mu = {summary['raw_min_margin']:.10g} (the requested "
            f"--raw-margin; float64, relative error <= {_raw_precision(result, instance):.0e})"
        )
        print(
            f"relative gap: {summary['relative_gap']:.3g} = (P - D)/P with P = ||W||_F^2/2 "
            f"and D a dual lower bound on ||W*||_F^2/2 (tolerance {summary['tolerance']:g}: "
            f"{reached}; ||W - W*||_F <= sqrt(gap) ||W||_F)"
        )
    if summary["certificate_bound"] is not None:
        print(
            f"certificate: {summary['certificate_size']} constraints, no W has a normalised "
            f"margin above {summary['certificate_bound']:.3g}"
        )
    if result.details.get("stopped") == "memory" and "reason" in result.details:
        print(f"stopped: {result.details['reason']}")
    if result.iterations > 0:  # none when decided before a first round (or never started)
        print(f"iterations: {result.iterations} (as counted by method {result.method})")
    print(f"seconds: {result.seconds:.3f} (wall clock, {result.method})")
    if result.compile_seconds > 0.0:
        print(
            f"compiling: {result.compile_seconds:.1f} s (numba, first solves after an "
            "install only; cached on disk)"
        )


def run_solve(arguments: argparse.Namespace) -> int:
    """Handler of ``lamcap solve``; returns 0 (any verdict is a successful run)."""
    from lamcap.problems import make_instance  # noqa: PLC0415 - keep the CLI start fast
    from lamcap.solvers import solve  # noqa: PLC0415 - only when the command runs

    weights_path = _check_target("--save", arguments.save)
    certificate_path = _check_target("--save-certificate", arguments.save_certificate)
    instance = make_instance(
        arguments.d,
        arguments.p,
        n=arguments.n,
        model=arguments.model,
        seed=arguments.seed,
        embeddings=arguments.embeddings,
    )
    result = solve(
        instance,
        rank=arguments.rank,
        method=arguments.method,
        raw_margin=arguments.raw_margin,
        max_seconds=arguments.max_seconds,
        objective=OBJECTIVES[arguments.objective],
        tolerance=arguments.tolerance,
        options={
            key: value
            for key, value in (
                ("learning_rate", arguments.learning_rate),
                ("steps", arguments.steps),
            )
            if value is not None
        }
        or None,
    )
    summary = _summary(result, instance, arguments.objective)
    notes = []
    summary["saved_weights"] = summary["saved_certificate"] = None
    if weights_path is not None:
        saved, note = _save_weights(weights_path, result, instance.d, arguments.objective)
        summary["saved_weights"] = str(weights_path) if saved else None
        notes.append(note)
    if certificate_path is not None:
        saved, note = _save_certificate(certificate_path, result)
        summary["saved_certificate"] = str(certificate_path) if saved else None
        notes.append(note)
    if arguments.json:
        print(json.dumps(summary))
        return 0
    _print_text(result, instance, summary)
    for note in notes:
        print(note)
    return 0
