"""Where does the original problem's extra capacity come from?  Route 1 of issue 39.

The original problem (OP) has one output matrix ``U`` (p × d) shared by all
``n = p`` associations, association μ targeting output μ; the decoupled problem
(DP) draws fresh outputs for every association.  Per association both have the
same law of scores, so every difference lies in how the associations' recall
cones are arranged jointly.  This script measures the transition of problems
that lie between the two, each built with ``lamcap.Instance.from_arrays`` and
solved by the certified solver (``feasible`` with a verified W, ``infeasible``
with a checked certificate, undecided instances left out of every fit):

``redrawn`` (parameter f)
    OP in which each competitor of each association is replaced, with
    probability f and independently per association, by a fresh output.  f = 0 is
    OP, f = 1 is DP in law.
``random-targets``
    OP whose targets t(μ) are drawn uniformly with replacement: some outputs are
    the target of two associations, others of none.
``shared`` (parameter s)
    a fresh target per association; a fraction s of the p - 1 competitors is one
    matrix common to all associations, the rest fresh.  s = 0 is DP, s = 1 the
    "shared competitors" problem of docs/measurements/op_vs_dp.md.
``rotated-shared``
    s = 1, but association μ sees the shared competitors turned by its own
    Haar rotation R_μ: the same polytope, in an independent orientation.
``rotated-original``
    OP in which association μ sees the whole of U turned by its own R_μ.
``shared-directions``
    OP in which association μ sees every output's direction but a fresh length:
    u_ρ/|u_ρ| times an independent χ_d/√d, drawn per (μ, ρ), the target included.
``shared-lengths``
    OP in which association μ sees its target u_μ and, for every competitor ρ, the
    length |u_ρ| in a fresh uniform direction.
``unused`` (parameter q)
    OP with only n = round((1 - q) p) associations, targeting outputs 0 … n - 1:
    the other q·p outputs are competitors of every association and targets of none.
``unused-decoupled`` (parameter q)
    DP with the same n and p, the reference for ``unused``.
``unit-norm``
    OP with inputs and outputs of norm one (Gaussian rows normalised): the cells of one
    fan, of points on the sphere.
``unit-norm-decoupled``
    DP with rows of norm one, the reference for ``unit-norm``.
``whitened-shared``
    s = 1 with the shared competitors whitened (their sample covariance made
    I/d), which removes the part of the polytope a linear change of W could adapt to.

Seeds: instance ``(variant, parameter, d, p, seed)`` draws from
``numpy.random.default_rng([39, variant index, round(1000·parameter), d, p, seed])``;
Haar rotations by ``scipy.stats.special_ortho_group`` from the same generator.
Verdicts are appended to a CSV (rerunning skips what is done; the last line of an
interrupted run is dropped if incomplete).  Run::

    NUMBA_NUM_THREADS=1 python measurements/original_problem_decomposition.py run \
        --variants rotated-shared shared:0.5 --d 16 24 --seeds 20 \
        --csv docs/measurements/data/original_decomposition.csv
    python measurements/original_problem_decomposition.py report \
        --csv docs/measurements/data/original_decomposition.csv \
        --db docs/measurements/data/opdp_small.sqlite \
        --out docs/measurements/original_decomposition.csv
    python measurements/original_problem_decomposition.py figure \
        --fits docs/measurements/original_decomposition.csv \
        --out docs/measurements/original_decomposition.png

The figure shows each problem's transition over DP's with its joint 95% interval, per d:
against the fraction f of fresh competitors (left), and for the other problems (right).
"""

from __future__ import annotations

import argparse
import csv
import functools
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import matplotlib as mpl
import numpy as np
from scipy.stats import special_ortho_group

mpl.use("Agg")
import matplotlib.pyplot as plt

import lamcap
from lamcap.experiments._analysis import cell_data
from lamcap.experiments._fitting import fit_transition, fit_transition_ratio
from lamcap.theory import cost_model

Builder = Callable[[np.random.Generator, int, int, float], lamcap.Instance]
FIELDS = ("variant", "parameter", "d", "p", "seed", "verdict", "seconds")


def _gaussian(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape) / np.sqrt(shape[-1])


def _decoupled(inputs: np.ndarray, outputs: np.ndarray, targets) -> lamcap.Instance:
    return lamcap.Instance.from_arrays(inputs, outputs, targets, model="decoupled")


def _redrawn(rng: np.random.Generator, d: int, p: int, fraction: float) -> lamcap.Instance:
    shared = _gaussian(rng, p, d)
    outputs = np.broadcast_to(shared, (p, p, d)).copy()
    redraw = rng.random((p, p)) < fraction
    np.fill_diagonal(redraw, False)  # association mu keeps its target u_mu
    outputs[redraw] = _gaussian(rng, int(redraw.sum()), d)
    return _decoupled(_gaussian(rng, p, d), outputs, np.arange(p))


def _random_targets(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    outputs = _gaussian(rng, p, d)
    targets = rng.integers(0, p, size=p)
    return lamcap.Instance.from_arrays(_gaussian(rng, p, d), outputs, targets, model="original")


def _fresh_target_outputs(rng: np.random.Generator, competitors: np.ndarray) -> np.ndarray:
    p, d = competitors.shape[0], competitors.shape[-1]
    targets = _gaussian(rng, p, 1, d)
    return np.concatenate([targets, competitors], axis=1)


def _shared(rng: np.random.Generator, d: int, p: int, fraction: float) -> lamcap.Instance:
    common = round(fraction * (p - 1))
    shared = np.broadcast_to(_gaussian(rng, common, d), (p, common, d))
    fresh = _gaussian(rng, p, p - 1 - common, d)
    outputs = _fresh_target_outputs(rng, np.concatenate([shared, fresh], axis=1))
    return _decoupled(_gaussian(rng, p, d), outputs, 0)


def _rotations(rng: np.random.Generator, d: int, count: int) -> np.ndarray:
    return special_ortho_group.rvs(d, size=count, random_state=rng).reshape(count, d, d)


def _rotated_shared(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    competitors = _gaussian(rng, p - 1, d)
    turned = np.einsum("rd,med->mre", competitors, _rotations(rng, d, p))
    outputs = _fresh_target_outputs(rng, turned)
    return _decoupled(_gaussian(rng, p, d), outputs, 0)


def _rotated_original(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    shared = _gaussian(rng, p, d)
    outputs = np.einsum("rd,med->mre", shared, _rotations(rng, d, p))
    return _decoupled(_gaussian(rng, p, d), outputs, np.arange(p))


def _whitened_shared(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    competitors = _gaussian(rng, p - 1, d)
    covariance = competitors.T @ competitors * d / (p - 1)
    values, vectors = np.linalg.eigh(covariance)
    competitors = competitors @ (vectors * values**-0.5) @ vectors.T
    outputs = _fresh_target_outputs(rng, np.broadcast_to(competitors, (p, p - 1, d)))
    return _decoupled(_gaussian(rng, p, d), outputs, 0)


def _lengths(rng: np.random.Generator, d: int, *shape: int) -> np.ndarray:
    """Independent lengths of standard Gaussian vectors in R^d over √d."""
    return np.sqrt(rng.chisquare(d, size=shape) / d)


def _shared_directions(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    shared = _gaussian(rng, p, d)
    directions = shared / np.linalg.norm(shared, axis=1, keepdims=True)
    outputs = directions[None, :, :] * _lengths(rng, d, p, p)[:, :, None]
    return _decoupled(_gaussian(rng, p, d), outputs, np.arange(p))


def _shared_lengths(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    shared = _gaussian(rng, p, d)
    fresh = rng.standard_normal((p, p, d))
    fresh /= np.linalg.norm(fresh, axis=2, keepdims=True)
    outputs = fresh * np.linalg.norm(shared, axis=1)[None, :, None]
    outputs[np.arange(p), np.arange(p)] = shared  # association mu keeps its target u_mu
    return _decoupled(_gaussian(rng, p, d), outputs, np.arange(p))


def _kept(p: int, fraction: float) -> int:
    return round((1 - fraction) * p)


def _unused(rng: np.random.Generator, d: int, p: int, fraction: float) -> lamcap.Instance:
    n = _kept(p, fraction)
    outputs = _gaussian(rng, p, d)
    return lamcap.Instance.from_arrays(
        _gaussian(rng, n, d), outputs, np.arange(n), model="original"
    )


def _unused_decoupled(rng: np.random.Generator, d: int, p: int, fraction: float) -> lamcap.Instance:
    n = _kept(p, fraction)
    return _decoupled(_gaussian(rng, n, d), _gaussian(rng, n, p, d), 0)


def _unit_rows(rng: np.random.Generator, *shape: int) -> np.ndarray:
    rows = rng.standard_normal(shape)
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


def _unit_norm(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    outputs = _unit_rows(rng, p, d)
    return lamcap.Instance.from_arrays(
        _unit_rows(rng, p, d), outputs, np.arange(p), model="original", embeddings="sphere"
    )


def _unit_norm_decoupled(rng: np.random.Generator, d: int, p: int, _: float) -> lamcap.Instance:
    return lamcap.Instance.from_arrays(
        _unit_rows(rng, p, d), _unit_rows(rng, p, p, d), 0, embeddings="sphere"
    )


VARIANTS: dict[str, Builder] = {
    "redrawn": _redrawn,
    "random-targets": _random_targets,
    "shared": _shared,
    "rotated-shared": _rotated_shared,
    "rotated-original": _rotated_original,
    "whitened-shared": _whitened_shared,
    "unused": _unused,
    "unused-decoupled": _unused_decoupled,
    "shared-directions": _shared_directions,
    "shared-lengths": _shared_lengths,
    "unit-norm": _unit_norm,
    "unit-norm-decoupled": _unit_norm_decoupled,
}
#: problems whose ratio is over their own DP (same n and p, or same embeddings)
OWN_REFERENCE = {"unused": "unused-decoupled", "unit-norm": "unit-norm-decoupled"}
FEWER_ASSOCIATIONS = ("unused", "unused-decoupled")


def build(variant: str, parameter: float, d: int, p: int, seed: int) -> lamcap.Instance:
    """The instance ``(variant, parameter, d, p, seed)`` (module docstring)."""
    index = list(VARIANTS).index(variant)
    rng = np.random.default_rng([39, index, round(1000 * parameter), d, p, seed])
    return VARIANTS[variant](rng, d, p, parameter)


def parse(spec: str) -> tuple[str, float]:
    name, _, value = spec.partition(":")
    if name not in VARIANTS:
        msg = f"variant must be one of {sorted(VARIANTS)} (with ':parameter'), got {spec!r}"
        raise ValueError(msg)
    return name, float(value) if value else 1.0


def _read(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as handle:
        return [row for row in csv.DictReader(handle) if row.get("seconds")]


def _key(row: dict[str, str]) -> tuple[str, float, int, int, int]:
    return (row["variant"], float(row["parameter"]), int(row["d"]), int(row["p"]), int(row["seed"]))


def _unique(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each instance once (an instance solved twice must have had one verdict)."""
    seen: dict[tuple[str, float, int, int, int], dict[str, str]] = {}
    for row in rows:
        first = seen.setdefault(_key(row), row)
        if first["verdict"] != row["verdict"]:
            msg = f"instance {_key(row)} has two verdicts: {first['verdict']}, {row['verdict']}"
            raise ValueError(msg)
    return list(seen.values())


@functools.cache
def grid(d: int, variant: str = "", fraction: float = 0.0) -> tuple[int, ...]:
    """Nine p from 0.9 to 1.15 times the first-order transition, n E[C_p] = d²."""
    embeddings = "sphere" if variant.startswith("unit-norm") else "gaussian"
    critical = float(lamcap.critical_p(d, embeddings=embeddings))
    if variant in FEWER_ASSOCIATIONS:
        costs = cost_model("gaussian")
        ps = np.arange(2, 20 * critical)
        load = np.array([_kept(int(p), fraction) for p in ps]) * costs.mean_cost(ps, d)
        critical = float(ps[np.argmax(load >= d * d)])
    return tuple(sorted({round(critical * f) for f in np.linspace(0.9, 1.15, 9)}))


def run(specs: list[str], dims: list[int], seeds: int, path: Path, seconds: float) -> None:
    """Solve every missing instance, appending one line per verdict to ``path``."""
    done = {_key(row) for row in _read(path)}
    if not path.exists():
        path.write_text(",".join(FIELDS) + "\n")
    text = path.read_bytes()
    if not text.endswith(b"\n"):  # an interrupted last line: drop it
        path.write_bytes(text[: text.rfind(b"\n") + 1])
    with path.open("a", newline="") as handle:
        writer = csv.writer(handle)
        for d in dims:
            for seed in range(seeds):
                for variant, parameter in map(parse, specs):
                    for p in grid(d, variant, parameter):
                        if (variant, parameter, d, p, seed) in done:
                            continue
                        start = time.perf_counter()
                        result = lamcap.solve(
                            build(variant, parameter, d, p, seed), max_seconds=seconds
                        )
                        elapsed = time.perf_counter() - start
                        writer.writerow(
                            [variant, parameter, d, p, seed, result.verdict, f"{elapsed:.2f}"]
                        )
                        handle.flush()


def counts(rows: list[dict[str, str]]) -> tuple[list[int], list[int], list[int]]:
    """``(p, feasible, decided)`` per distinct p, undecided instances left out."""
    decided = [r for r in rows if r["verdict"] != "undecided"]
    ps = sorted({int(r["p"]) for r in decided})
    feasible = [sum(r["verdict"] == "feasible" for r in decided if int(r["p"]) == p) for p in ps]
    total = [sum(int(r["p"]) == p for r in decided) for p in ps]
    return ps, feasible, total


Group = tuple[str, float, int]  # (variant, parameter, d)


def _groups(rows: list[dict[str, str]]) -> dict[Group, list[dict[str, str]]]:
    """The verdicts of each (variant, parameter, d), in sorted order."""
    grouped: defaultdict[Group, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        grouped[row["variant"], float(row["parameter"]), int(row["d"])].append(row)
    return dict(sorted(grouped.items()))


def _references(groups: dict[Group, list[dict[str, str]]], reference, key: Group):
    """What a variant's transition is divided by: DP and OP of the sweep database, or,
    for the variants of ``OWN_REFERENCE``, their own DP (the same n and p, or the same
    embeddings), run alongside."""
    variant, parameter, d = key
    if variant in OWN_REFERENCE:
        own = groups.get((OWN_REFERENCE[variant], parameter, d))
        if own:
            yield OWN_REFERENCE[variant].replace("-", "_"), counts(own)
        return
    if variant in OWN_REFERENCE.values():
        return
    for model in ("decoupled", "original"):
        data = reference.get((model, d))
        if data is not None:
            keep = data.decided > 0
            yield model, (data.p[keep], data.feasible[keep], data.decided[keep])


def report(paths: list[Path], database: Path, out: Path | None) -> None:
    """Fit every (variant, parameter, d) and its ratios to DP and OP of ``database``."""
    rows = _unique([row for path in paths for row in _read(path)])
    reference = {
        (cell.model, cell.d): data
        for cell, data in cell_data(database).items()
        if cell.kappa == 1.0
    }
    lines = []
    groups = _groups(rows)
    for (variant, parameter, d), chosen in groups.items():
        data = counts(chosen)
        fit = fit_transition(*data)
        line = {
            "variant": variant,
            "parameter": parameter,
            "d": d,
            "p_c": fit.p_c,
            "p_c_low": fit.low,
            "p_c_high": fit.high,
            "instances": sum(data[2]),
            "undecided": sum(r["verdict"] == "undecided" for r in chosen),
        }
        for name, denominator in _references(groups, reference, (variant, parameter, d)):
            ratio = fit_transition_ratio(data, denominator)
            line[f"over_{name}"] = ratio.ratio
            line[f"over_{name}_low"] = ratio.low
            line[f"over_{name}_high"] = ratio.high
        lines.append(line)
        print(
            ", ".join(
                f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in line.items()
            )
        )
    if out is not None:
        columns = list(dict.fromkeys(k for line in lines for k in line))
        with out.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, columns, lineterminator="\n")
            writer.writeheader()
            for line in lines:
                writer.writerow(
                    {k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in line.items()}
                )


# the problems of the figure's right panel: (variant, parameter, label, one fan?)
OTHERS = (
    ("unused", 0.1, "unused q = 0.1", "distinct cells of one fan"),
    ("unused", 0.37, "unused q = 0.37", "distinct cells of one fan"),
    ("unit-norm", 1.0, "unit-norm OP", "distinct cells of one fan"),
    ("random-targets", 1.0, "random targets", "cells of one fan, not distinct"),
    ("shared-directions", 1.0, "shared directions", "no fan"),
    ("shared-lengths", 1.0, "shared lengths", "no fan"),
    ("rotated-original", 1.0, "rotated OP", "no fan"),
    ("shared", 1.0, "shared competitors", "no fan"),
    ("shared", 0.5, "shared competitors s = 0.5", "no fan"),
    ("rotated-shared", 1.0, "rotated shared competitors", "no fan"),
    ("whitened-shared", 1.0, "whitened shared competitors", "no fan"),
)
SIZES = {16: ("o", "C0"), 24: ("s", "C1"), 32: ("^", "C2")}


def _ratio(line: dict[str, str]) -> tuple[float, float, float]:
    own = OWN_REFERENCE.get(line["variant"])
    name = "over_decoupled" if own is None else "over_" + own.replace("-", "_")
    return tuple(float(line[name + end]) for end in ("", "_low", "_high"))  # type: ignore[return-value]


def figure(fits_path: Path, out: Path) -> None:
    """Two panels: the redrawn family against f, and the other problems (module docstring)."""
    with fits_path.open() as handle:
        fits = {
            (r["variant"], float(r["parameter"]), int(r["d"])): r for r in csv.DictReader(handle)
        }
    canvas, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), width_ratios=[1, 1.25])
    fractions = (0.0, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0)
    for shift, (d, (marker, colour)) in zip((-0.012, 0, 0.012), SIZES.items(), strict=True):
        points = [
            (f, _ratio(fits["redrawn", f, d])) for f in fractions if ("redrawn", f, d) in fits
        ]
        x = [f + shift for f, _ in points]
        mid = np.array([r[0] for _, r in points])
        low = np.array([r[1] for _, r in points])
        high = np.array([r[2] for _, r in points])
        left.errorbar(
            x,
            mid,
            yerr=[mid - low, high - mid],
            fmt=marker,
            color=colour,
            capsize=2,
            label=f"d = {d}",
        )
        for row, (variant, parameter, _, _) in enumerate(OTHERS):
            if (variant, parameter, d) in fits:
                r = _ratio(fits[variant, parameter, d])
                right.errorbar(
                    [r[0]],
                    [row + shift / 0.012 * 0.2],
                    xerr=[[r[0] - r[1]], [r[2] - r[0]]],
                    fmt=marker,
                    color=colour,
                    capsize=2,
                )
    for axis in (left,):
        axis.axhline(1.0, color="0.5", lw=0.8)
    left.set_xlabel("fraction f of each association's competitors redrawn")
    left.set_ylabel("$p_c$ / $p_c$(DP)")
    left.set_title("OP (f = 0) to DP in law (f = 1)")
    left.legend(fontsize=8)
    right.axvline(1.0, color="0.5", lw=0.8)
    right.set_yticks(
        range(len(OTHERS)),
        labels=[f"{label}  ({kind})" for _, _, label, kind in OTHERS],
        fontsize=8,
    )
    right.invert_yaxis()
    right.set_xlabel("$p_c$ / $p_c$(DP)  (unused, unit-norm: over their own DP)")
    right.set_title("Other problems between OP and DP")
    canvas.tight_layout()
    canvas.savefig(out, dpi=130)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    solve = sub.add_parser("run")
    solve.add_argument("--variants", nargs="+", required=True, help="name[:parameter]")
    solve.add_argument("--d", type=int, nargs="+", required=True)
    solve.add_argument("--seeds", type=int, default=20)
    solve.add_argument("--csv", type=Path, required=True)
    solve.add_argument("--max-seconds", type=float, default=600.0)
    fit = sub.add_parser("report")
    fit.add_argument("--csv", type=Path, nargs="+", required=True)
    fit.add_argument("--db", type=Path, required=True)
    fit.add_argument("--out", type=Path, default=None)
    draw = sub.add_parser("figure")
    draw.add_argument("--fits", type=Path, required=True)
    draw.add_argument("--out", type=Path, required=True)
    arguments = parser.parse_args()
    if arguments.command == "figure":
        figure(arguments.fits, arguments.out)
    elif arguments.command == "run":
        run(arguments.variants, arguments.d, arguments.seeds, arguments.csv, arguments.max_seconds)
    else:
        report(arguments.csv, arguments.db, arguments.out)


if __name__ == "__main__":
    main()
