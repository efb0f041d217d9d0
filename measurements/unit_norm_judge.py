"""Quick judgement of the unit-norm law: certified feasible fractions near the transition.

``python measurements/unit_norm_judge.py --out FILE.jsonl --dims 8 12 16 --seeds 16``
solves ``make_instance(d, p, model=..., embeddings=..., seed=s)`` with lamcap's
certified solver at ``p = round(critical_p(d) * f)`` for the factors ``--factors``,
Gaussian and unit-norm embeddings alike, and appends one JSON line per instance
(``d, p, model, embeddings, seed, verdict, seconds``).  Resumable: instances already
in the file are skipped.  The summary (``--summary``) prints the feasible fraction
per cell with a 95% Wilson interval; ``--fit CSV`` writes the transition of each
(d, model, embeddings) fitted as the capacities page fits them (the Crofton curve's
shape moved along log p, ``lamcap.experiments._shift.law_transition``, 95%
likelihood-ratio interval).  A unit-norm instance is its Gaussian twin of the same seed
with every row divided by its norm, so the two columns are paired.  Results:
docs/measurements/capacity.md#unit-norm-embeddings.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import lamcap
from lamcap.theory import critical_p


def _wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    centre = (k + z * z / 2) / (n + z * z)
    half = z * math.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
    return centre - half, centre + half


def _fit(done: dict[tuple[int, int, str, str, int], str], path: Path) -> None:
    from lamcap.experiments._shift import finite_size_law, law_transition  # noqa: PLC0415

    cells: dict[tuple[int, str, str], dict[int, list[str]]] = {}
    for (d, p, model, embeddings, _), verdict in done.items():
        cells.setdefault((d, model, embeddings), {}).setdefault(p, []).append(verdict)
    lines = ["d,model,embeddings,p_c,p_c_low,p_c_high,instances"]
    for (d, model, embeddings), by_p in sorted(cells.items()):
        ps = sorted(by_p)
        feasible = [by_p[p].count("feasible") for p in ps]
        decided = [len(by_p[p]) - by_p[p].count("undecided") for p in ps]
        fit = law_transition(ps, feasible, decided, finite_size_law(d))
        if fit is None or not fit.bracketed:
            continue
        instances = sum(decided)
        lines.append(
            f"{d},{model},{embeddings},{fit.p_c:.3f},{fit.low:.3f},{fit.high:.3f},{instances}"
        )
    path.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 12, 16])
    parser.add_argument("--models", nargs="+", default=["decoupled"])
    parser.add_argument("--factors", type=float, nargs="+", default=[1.0, 1.03, 1.06, 1.09, 1.12])
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--fit", type=Path, default=None, help="write fitted transitions here")
    args = parser.parse_args()
    done: dict[tuple[int, int, str, str, int], str] = {}
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            row = json.loads(line)
            key = (row["d"], row["p"], row["model"], row["embeddings"], row["seed"])
            done[key] = row["verdict"]
    if args.fit is not None:
        _fit(done, args.fit)
        return
    if args.summary:
        cells: dict[tuple[int, str, str, int], list[str]] = {}
        for (d, p, model, embeddings, _), verdict in sorted(done.items()):
            cells.setdefault((d, model, embeddings, p), []).append(verdict)
        for (d, model, embeddings, p), verdicts in sorted(cells.items()):
            k, n = verdicts.count("feasible"), len(verdicts)
            low, high = _wilson(k, n)
            undecided = verdicts.count("undecided")
            print(
                f"d={d:3d} {model:9s} {embeddings:8s} p={p:4d} feasible {k:2d}/{n:2d}"
                f" [{low:.2f}, {high:.2f}] undecided {undecided}"
            )
        return
    with args.out.open("a") as handle:
        for d in args.dims:
            centre = float(critical_p(d))
            for model in args.models:
                for factor in args.factors:
                    p = round(centre * factor)
                    for seed in range(args.seeds):
                        for embeddings in ("gaussian", "sphere"):
                            key = (d, p, model, embeddings, seed)
                            if key in done:
                                continue
                            instance = lamcap.make_instance(
                                d, p, model=model, embeddings=embeddings, seed=seed
                            )
                            result = lamcap.solve(instance)
                            row = {
                                "d": d,
                                "p": p,
                                "model": model,
                                "embeddings": embeddings,
                                "seed": seed,
                                "verdict": result.verdict,
                                "seconds": round(result.seconds, 3),
                            }
                            done[key] = result.verdict
                            handle.write(json.dumps(row) + "\n")
                            handle.flush()


if __name__ == "__main__":
    main()
