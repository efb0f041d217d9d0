"""P(all recalled) of the Hebbian rule by Monte Carlo, against the exact finite-d law.

The instances are those of ``lamcap sweep --method hebbian`` (decoupled problem,
``n = p`` associations, every entry N(0, 1/d), W = sum_mu u_mu e_mu^T, recall iff the
target scores strictly above all p - 1 competitors).  Two estimators:

* ``conditional`` (Rao-Blackwellised): given the inputs and the targets, the
  competitor scores of association mu are exactly N(0, |h_mu|^2/d), h_mu = W e_mu,
  independent across associations (each has its own competitors), so

      P(all | W) = prod_mu Phi(X_mu)^(p - 1),   X_mu = sqrt(d) u_mu^T h_mu / |h_mu|,

  and its mean over independently drawn (E, U) is P(all) with no approximation.  This
  keeps the dependence of the n recall events through the shared W, which the law
  ``hebbian_recall_finite(p, d, all_associations=True)`` = P_1^n leaves out.
* ``sweep``: the sweep's own code path, ``lamcap.experiments.solver_trial`` on
  the sweep's tasks (``make_instance``, ``solve(method="hebbian")``,
  ``recall_accuracy``, "feasible" iff every association is recalled), paired with the
  conditional probability of the same instance: the mean difference checks that the
  conditional estimator describes the instances the sweep draws.

It prints, per d: P(all) at every p of the grid with its standard error next to the
law, the p where each curve crosses 1/2 (linear interpolation between integers, as
``hebbian_transition`` of ``lamcap.experiments._analysis`` does for the law; the Monte Carlo
error through the slope), the Monte Carlo P(all) at the law's crossing, and the
sweep-path check.  ``--csv`` keeps the curve (``d,p,instances,p_all,se,law``),
``--summary`` the crossings (``d,p_c,p_c_se,law_p_c,p_all_at_law,p_all_at_law_se``)::

    python measurements/hebbian_mc.py --instances 40000 \\
        --sweep-instances 4000 --csv docs/measurements/hebbian_mc.csv \\
        --summary docs/measurements/hebbian_mc_transition.csv

With ``--fit-draws B`` it then studies the transition fit at the design of the
committed sweep (docs/measurements/data/hebbian.sqlite: its p points and instances per
point), taking the Monte Carlo curve as the truth: the fit of the expected counts (what
the fit tends to with many sweeps of that design), and B redraws of binomial counts
(median relative error of p_c, its spread, and how often the 95% interval covers the
true crossing), for the logistic and the complementary log-log link of
``lamcap.experiments.fit_transition``; and both fits of the committed data.
``--curve`` reads a curve written by ``--csv`` instead of simulating it again::

    python measurements/hebbian_mc.py \\
        --curve docs/measurements/hebbian_mc.csv --fit-draws 1000

``--adaptive-sweeps S`` repeats the whole adaptive sweep of the committed database
(``seeds_per_point=20``, ``rounds=3``, the runner's bracket and refinement) S times with
sweep seeds 1..S, each instance recalled with the probability of the exact law
``hebbian_recall_finite(p, d, all_associations=True)``, once refining at the quantiles
of the logistic fit (as the committed sweep did) and once at those of the complementary
log-log fit (the runner now), and prints how each pipeline's final fit misses the law's
crossing: the design's dependence on the outcomes is included.

One process; run it with ``OMP_NUM_THREADS=1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import special

from lamcap.experiments import Cell, Sweep, Task, fit_transition, run_sweep
from lamcap.experiments._analysis import CellData, cell_data, hebbian_transition
from lamcap.experiments._fitting import LINKS
from lamcap.theory import hebbian_recall_finite

DATABASE = Path(__file__).resolve().parent.parent / "docs/measurements/data/hebbian.sqlite"
FloatArray = NDArray[np.float64]


def conditional_log_all(inputs: FloatArray, targets: FloatArray, p: int) -> FloatArray:
    """log P(all recalled | E, U) for a batch: ``inputs``, ``targets`` of shape (b, n, d)."""
    d = inputs.shape[-1]
    gram = inputs @ inputs.transpose(0, 2, 1)  # e_mu . e_nu
    hidden = gram @ targets  # h_mu = W e_mu = sum_nu (e_nu . e_mu) u_nu
    target = np.einsum("bnd,bnd->bn", targets, hidden)
    norm = np.sqrt(np.einsum("bnd,bnd->bn", hidden, hidden))
    return np.asarray((p - 1) * special.log_ndtr(math.sqrt(d) * target / norm).sum(axis=1))


def conditional_curve(
    d: int, ps: Sequence[int], instances: int, seed: int, batch: int = 500
) -> list[tuple[float, float]]:
    """(mean, standard error) of P(all | W) over ``instances`` fresh memories at each p."""
    results = []
    for p in ps:
        rng = np.random.default_rng([seed, d, p])
        values = []
        for start in range(0, instances, batch):
            size = min(batch, instances - start)
            inputs = rng.standard_normal((size, p, d)) / math.sqrt(d)
            targets = rng.standard_normal((size, p, d)) / math.sqrt(d)
            values.append(np.exp(conditional_log_all(inputs, targets, p)))
        sample = np.concatenate(values)
        results.append((float(sample.mean()), float(sample.std(ddof=1) / math.sqrt(sample.size))))
    return results


def sweep_path(d: int, p: int, instances: int, seed: int) -> tuple[float, float, float, float]:
    """The sweep's trial on ``instances`` tasks: (fraction all recalled, its se, mean diff, se)."""
    from lamcap.experiments._trials import solve_task, solver_trial  # noqa: PLC0415

    sweep = Sweep(dims=(d,), methods=("hebbian",), seeds_per_point=instances, seed=seed)
    cell = Cell(d, 1.0, "decoupled", "hebbian")
    recalled, differences = [], []
    for task in sweep.tasks(cell, [p]):
        outcome = solver_trial(task)["verdict"] == "feasible"
        instance, _, _ = solve_task(task)
        inputs = np.asarray(instance.inputs)[None]
        targets = np.asarray(instance.target_outputs())[None]
        conditional = float(np.exp(conditional_log_all(inputs, targets, p))[0])
        recalled.append(float(outcome))
        differences.append(float(outcome) - conditional)
    hits, diffs = np.array(recalled), np.array(differences)
    root = math.sqrt(instances)
    return hits.mean(), hits.std(ddof=1) / root, diffs.mean(), diffs.std(ddof=1) / root


def crossing(
    ps: Sequence[int], values: Sequence[float], errors: Sequence[float]
) -> tuple[float, float]:
    """p where the curve crosses 1/2 between consecutive integers, and its standard error."""
    for i in range(len(ps) - 1):
        upper, lower = values[i], values[i + 1]
        if ps[i + 1] == ps[i] + 1 and upper >= 0.5 > lower:
            slope = upper - lower
            fraction = (upper - 0.5) / slope
            error = math.hypot((1 - fraction) * errors[i], fraction * errors[i + 1]) / slope
            return ps[i] + fraction, error
    return math.nan, math.nan


def value_at(
    ps: Sequence[int], values: Sequence[float], errors: Sequence[float], where: float
) -> tuple[float, float]:
    """Curve linearly interpolated at real ``where`` between its integer neighbours, with se."""
    below = math.floor(where)
    i = list(ps).index(below)
    fraction = where - below
    value = (1 - fraction) * values[i] + fraction * values[i + 1]
    return value, math.hypot((1 - fraction) * errors[i], fraction * errors[i + 1])


def grid(design: Sequence[int], law_crossing: float, width: float) -> list[int]:
    """The sweep's design points and every integer within ``width`` (relative) of the law's crossing."""
    near = range(math.floor(law_crossing * (1 - width)), math.ceil(law_crossing * (1 + width)) + 1)
    return sorted(set(design) | set(near))


Curve = dict[int, tuple[list[int], list[float], list[float]]]


def read_curve(path: Path) -> Curve:
    """``d -> (p, P(all), se)`` from a CSV written by ``--csv``."""
    curve: Curve = {}
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            ps, values, errors = curve.setdefault(int(row["d"]), ([], [], []))
            ps.append(int(row["p"]))
            values.append(float(row["p_all"]))
            errors.append(float(row["se"]))
    return curve


def fit_study(
    data: CellData, truth: dict[int, float], crossing_p: float, draws: int, seed: int
) -> None:
    """Fits of the design of ``data`` under the true curve ``truth`` (p -> P(all)); prints a summary."""
    p, _, total = data.counts()
    probability = np.array([truth[int(q)] for q in p])
    rng = np.random.default_rng([seed, data.cell.d])
    counts = rng.binomial(total, probability, size=(draws, p.size))
    observed = {link: fit_transition(*data.counts(), link=link) for link in LINKS}
    for link in LINKS:
        limit = fit_transition(p, total * probability, total, link=link).p_c
        errors, covered = [], 0
        for row in counts:
            fit = fit_transition(p, row, total, link=link)
            errors.append(fit.p_c / crossing_p - 1)
            covered += fit.low <= crossing_p <= fit.high
        errors_array = 100 * np.array(errors)
        fit = observed[link]
        below = float(np.mean(errors_array <= 100 * (fit.p_c / crossing_p - 1)))
        print(
            f"  {link:8s} fit: committed data {fit.p_c:.2f} [{fit.low:.2f}, {fit.high:.2f}] "
            f"({100 * (fit.p_c / crossing_p - 1):+.1f}%, {100 * below:.0f}% of redraws as low); "
            f"expected counts {limit:.3f} ({100 * (limit / crossing_p - 1):+.2f}%); "
            f"{draws} redraws: median {np.median(errors_array):+.2f}%, "
            f"central 95% [{np.quantile(errors_array, 0.025):+.1f}, {np.quantile(errors_array, 0.975):+.1f}]%, "
            f"interval covers the truth {100 * covered / draws:.1f}%"
        )


@functools.cache
def law_probability(d: int, p: int) -> float:
    """The exact finite-d law P_1^n at (d, p), cached."""
    return float(hebbian_recall_finite(p, d, all_associations=True))


def law_trial(task: Task) -> dict[str, object]:
    """A sweep trial recalled with the law's probability, decided by the instance seed."""
    recalled = bool(np.random.default_rng(task.seed).random() < law_probability(task.d, task.p))
    return {
        "verdict": "feasible" if recalled else "infeasible",
        "infeasible_proof": None,
        "min_margin": math.nan,
        "accuracy": math.nan,
        "seconds": 0.0,
        "iterations": 0,
        "solver_method": "law",
    }


def adaptive_study(d: int, sweeps: int, folder: Path) -> None:
    """Final fits of ``sweeps`` simulated adaptive sweeps, refined by each link; prints a summary."""
    truth = hebbian_transition(d, finite=True)
    original = Cell.link
    try:
        for refine in LINKS:
            Cell.link = property(lambda _cell, name=refine: name)  # type: ignore[method-assign,assignment]
            errors: dict[str, list[float]] = {link: [] for link in LINKS}
            covered = dict.fromkeys(LINKS, 0)
            for seed in range(1, sweeps + 1):
                sweep = Sweep(
                    dims=(d,), methods=("hebbian",), seeds_per_point=20, rounds=3, seed=seed
                )
                path = folder / f"d{d}-{refine}-{seed}.sqlite"
                run_sweep(sweep, path, workers=0, trial=law_trial)
                (data,) = cell_data(path).values()
                for link in LINKS:
                    fit = fit_transition(*data.counts(), link=link)
                    errors[link].append(100 * (fit.p_c / truth - 1))
                    covered[link] += fit.low <= truth <= fit.high
                path.unlink()
            for link in LINKS:
                values = np.array(errors[link])
                print(
                    f"  {sweeps} adaptive sweeps refined at {refine} quantiles, {link} fit: "
                    f"median {np.median(values):+.2f}%, mean {values.mean():+.2f}% "
                    f"(+- {values.std(ddof=1) / math.sqrt(values.size):.2f}), central 95% "
                    f"[{np.quantile(values, 0.025):+.1f}, {np.quantile(values, 0.975):+.1f}]%, "
                    f"interval covers the law's crossing {100 * covered[link] / sweeps:.1f}%"
                )
    finally:
        Cell.link = original  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--instances", type=int, default=40000)
    parser.add_argument("--sweep-instances", type=int, default=2000)
    parser.add_argument("--width", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--csv", type=Path)
    parser.add_argument("--summary", type=Path)
    parser.add_argument("--curve", type=Path)
    parser.add_argument("--fit-draws", type=int, default=0)
    parser.add_argument("--adaptive-sweeps", type=int, default=0)
    arguments = parser.parse_args()
    committed = {cell.d: data for cell, data in cell_data(DATABASE).items()}
    stored = read_curve(arguments.curve) if arguments.curve is not None else {}
    rows, summary = [], []
    for d in arguments.dims:
        law_crossing = hebbian_transition(d, finite=True)
        if d in stored:
            ps, values, errors = stored[d]
            law = [float(hebbian_recall_finite(p, d, all_associations=True)) for p in ps]
        else:
            design = [int(p) for p in committed[d].p] if d in committed else []
            ps = grid(design, law_crossing, arguments.width)
            curve = conditional_curve(d, ps, arguments.instances, arguments.seed)
            law = [float(hebbian_recall_finite(p, d, all_associations=True)) for p in ps]
            values, errors = [v for v, _ in curve], [e for _, e in curve]
        print(f"d = {d}: p, P(all) Monte Carlo (se), law P_1^n, difference")
        for p, value, error, predicted in zip(ps, values, errors, law, strict=True):
            print(f"  {p:4d}  {value:.4f} ({error:.4f})  {predicted:.4f}  {value - predicted:+.4f}")
            rows.append(
                [d, p, arguments.instances, f"{value:.5f}", f"{error:.5f}", f"{predicted:.5f}"]
            )
        mc_crossing, mc_error = crossing(ps, values, errors)
        at_law, at_law_error = value_at(ps, values, errors, law_crossing)
        print(
            f"  crossing of 1/2: Monte Carlo {mc_crossing:.3f} +- {mc_error:.3f} "
            f"(95%: [{mc_crossing - 1.96 * mc_error:.3f}, {mc_crossing + 1.96 * mc_error:.3f}]), "
            f"law {law_crossing:.3f} ({100 * (mc_crossing / law_crossing - 1):+.2f}%); "
            f"Monte Carlo P(all) at the law's crossing {at_law:.4f} +- {at_law_error:.4f}"
        )
        summary.append(
            [
                d,
                *(
                    f"{value:.4f}"
                    for value in (mc_crossing, mc_error, law_crossing, at_law, at_law_error)
                ),
            ]
        )
        if arguments.fit_draws > 0 and d in committed:
            truth = dict(zip(ps, values, strict=True))
            fit_study(committed[d], truth, mc_crossing, arguments.fit_draws, arguments.seed)
        if arguments.adaptive_sweeps > 0:
            with tempfile.TemporaryDirectory() as folder:
                adaptive_study(d, arguments.adaptive_sweeps, Path(folder))
        if arguments.sweep_instances > 0 and d not in stored:
            p_check = round(law_crossing)
            fraction, fraction_error, difference, difference_error = sweep_path(
                d, p_check, arguments.sweep_instances, arguments.seed
            )
            conditional = values[ps.index(p_check)]
            print(
                f"  sweep path at p = {p_check}, {arguments.sweep_instances} instances: all recalled "
                f"{fraction:.4f} +- {fraction_error:.4f} (conditional estimator {conditional:.4f}); "
                f"paired mean of (outcome - P(all | W)) {difference:+.4f} +- {difference_error:.4f}"
            )
    if arguments.csv is not None and not stored:
        write_csv(arguments.csv, ["d", "p", "instances", "p_all", "se", "law"], rows)
    if arguments.summary is not None:
        header = ["d", "p_c", "p_c_se", "law_p_c", "p_all_at_law", "p_all_at_law_se"]
        write_csv(arguments.summary, header, summary)


def write_csv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    """``rows`` under ``header``, comma-separated, Unix line ends."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
