r"""``lamcap reproduce``: theory tables, sweeps, solutions, figures and a judged report.

Two plans (:data:`QUICK`, :data:`FULL`); both write into ``out``:

* ``tables/`` — the derivation tables of :mod:`lamcap.experiments._derivation_tables`
  (``lamcap tables``), built on a worker while the sweeps run;
* ``results.sqlite`` — every solved instance of the sweeps, and in its table
  ``max_recall`` the certified bounds of the max-recall solves behind the
  partial-recall claim (:mod:`lamcap.experiments._recall_fraction`); rerunning
  resumes both (a ``max_recall.sqlite`` left by an earlier lamcap is copied in
  first, :func:`~lamcap.experiments._store.import_recall_store`);
* ``figures/`` — figures 1–5 (PNG + PDF) and ``mechanism_samples.npz``;
* ``report.md`` — every claim with its finite-size prediction, the measurement,
  a test and a verdict (:mod:`lamcap.experiments._claims`, judged with Holm's
  rule over the whole run by :func:`lamcap.experiments.judge`), the
  fitted transitions and the run's provenance (commit, workers, time).

The quick plan runs d = 8, 10, 12, 16 (decoupled and original problems), the
Hebbian rule at d = 16, 24, 32, 48 and 64, κ ∈ {0.25, 0.5, 0.75} at d = 12, the
decoupled problem with unit-norm embeddings at d = 8, 12 and 16
(docs/theory/unit-norm.md), the
mechanism solutions at d = 8, 12, 16 and the max-recall solves of the
partial-recall claim at d = 10 (1.25 and 1.5 × critical_p(d), 8 instances each;
docs/theory/partial-recall.md).  Its measured runtime is stated once, in
docs/howto/reproduce.md ("Runtime"); every report records its own.  After
the planned rounds both plans add instances where claims can still be decided,
within their budget (:data:`QUICK_BUDGET`, :data:`FULL_BUDGET`;
:mod:`lamcap.experiments._allocation`).  The full
plan (d = 16–64, 16 seeds per point; unit-norm embeddings at d = 16, 32, 64
for both problems; the partial-recall claim at d = 16 and 32) takes two to three days on 2 cores; point
it at a Dask cluster with ``--scheduler tcp://host:8786`` (every worker needs
the same lamcap).  Rerun the same command after any interruption: finished
sweep instances and max-recall solves are skipped.

Progress goes to stderr (:mod:`lamcap._progress`): a bar per stage on a
terminal, whole lines in a log; stages that block (theory tables, predictions)
report their elapsed time at least every :data:`PLAIN_INTERVAL` seconds;
nothing with ``progress=False``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import platform
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from lamcap import __version__, critical_p
from lamcap._progress import Progress
from lamcap.experiments._allocation import SWEEP_NAME, TARGET_SHARES, Allocator, CellRecord
from lamcap.experiments._analysis import (
    CellData,
    TransitionRow,
    cell_data_of_rows,
    transition_rows,
)
from lamcap.experiments._claims import build_claims, measured_op_dp_claim, op_dp_law
from lamcap.experiments._executors import default_workers, open_executor
from lamcap.experiments._mechanism import (
    MAX_MARGIN_TOLERANCE,
    SolutionSample,
    pool_sample,
    solution_tasks,
    solution_trial,
)
from lamcap.experiments._recall_fraction import RecallDesign, RecallPoint, run_recall
from lamcap.experiments._report import claims_summary, claims_table, markdown_table
from lamcap.experiments._runner import execute, planned_tasks, run_sweep
from lamcap.experiments._store import (
    RECALL_FILE,
    ResultsStore,
    check_store,
    git_commit,
    import_recall_store,
    row_key,
)
from lamcap.experiments._sweep import Cell, Sweep
from lamcap.experiments._trials import solver_trial
from lamcap.experiments._verdicts import (
    LEVEL,
    Claim,
    chosen_tolerances,
    counts_text,
    judge,
    tolerance_table,
)
from lamcap.theory._cost_models import UnitNormCosts

_T = TypeVar("_T")

PLAIN_INTERVAL = 15.0
"""Seconds between two plain progress lines of one stage when stderr is not a terminal."""

SEED = 260_510_795
"""Sweep seed of every instance ``lamcap reproduce`` solves (sweeps and mechanism solutions).

The measured laws a run is judged against (the OP/DP convergence law of
docs/measurements/op_vs_dp.md, shipped with lamcap) come from sweeps with
``lamcap sweep``'s default seed 0.  Instance seeds derive from the sweep seed
(:func:`lamcap.experiments.instance_seed`), so with its own seed a run
never re-solves an instance behind a law it is compared with: the comparison
is between independent samples.
"""


@dataclass(frozen=True)
class Plan:
    """What a reproduction runs.

    ``mechanism_dims``: sizes at which the max-margin W (κ = 1) is solved at
    ``critical_fraction`` × ``critical_p(d)`` (a fraction of the critical p, not a
    load; ≥ 3 sizes give the quarter-circle trend); at the largest of them the
    first-feasible and Adam/CE matrices of the same instances and the two-layer
    trainer at κ = 0.5 are added as labelled comparisons.  ``seed``: the sweep
    seed of the mechanism and max-recall instances (the sweeps carry their own,
    :data:`SEED` in both plans).  ``recall``: the max-recall solves of the
    partial-recall claim (:class:`~lamcap.experiments._recall_fraction.RecallDesign`;
    ``None``: no such claim).  ``budget``: CPU seconds of instances added after
    the planned rounds to the cells whose claims can still be decided
    (:mod:`lamcap.experiments._allocation`; 0: none).
    """

    name: str
    sweeps: tuple[Sweep, ...]
    mechanism_dims: tuple[int, ...]
    mechanism_seeds: int
    critical_fraction: float = 0.95
    seed: int = SEED
    recall: RecallDesign | None = None
    budget: float = 0.0


QUICK_BUDGET = 900.0
"""CPU seconds the quick plan spends on added instances by default (7.5 minutes on 2 cores)."""

FULL_BUDGET = 8 * 3600.0
"""CPU seconds the full plan spends on added instances by default (8 CPU hours)."""

QUICK = Plan(
    name="quick",
    sweeps=(
        Sweep(
            name="optimal",
            dims=(8, 10, 12, 16),
            models=("decoupled", "original"),
            seeds_per_point=8,
            rounds=2,
            seed=SEED,
        ),
        Sweep(
            name="hebbian",
            dims=(16, 24, 32, 48, 64),
            methods=("hebbian",),
            seeds_per_point=16,
            rounds=2,
            seed=SEED,
        ),
        Sweep(
            name="rank",
            dims=(12,),
            kappas=(0.25, 0.5, 0.75),
            seeds_per_point=6,
            rounds=1,
            seed=SEED,
        ),
        Sweep(
            name="unit_norm",
            dims=(8, 12, 16),
            embeddings=(UnitNormCosts.name,),
            seeds_per_point=8,
            rounds=2,
            seed=SEED,
        ),
    ),
    mechanism_dims=(8, 12, 16),
    mechanism_seeds=8,
    # d = 10: each solve ends by itself in 1-2.5 s of CPU (d = 12 takes 3-4 s); the
    # limit only guards a busy machine
    recall=RecallDesign(dims=(10,), max_seconds=(30.0,), critical_fractions=(1.25, 1.5), seeds=8),
    budget=QUICK_BUDGET,
)

FULL = Plan(
    name="full",
    sweeps=(
        Sweep(
            name="optimal",
            dims=(16, 24, 32, 48, 64),
            models=("decoupled", "original"),
            seeds_per_point=16,
            rounds=3,
            seed=SEED,
        ),
        Sweep(
            name="hebbian",
            dims=(16, 32, 64, 128),
            methods=("hebbian",),
            seeds_per_point=20,
            rounds=3,
            seed=SEED,
        ),
        Sweep(
            name="rank",
            dims=(16, 24),
            kappas=(0.25, 0.5, 0.75),
            seeds_per_point=10,
            rounds=2,
            seed=SEED,
        ),
        Sweep(
            name="unit_norm",
            dims=(16, 32, 64),
            models=("decoupled", "original"),
            embeddings=(UnitNormCosts.name,),
            seeds_per_point=16,
            rounds=3,
            seed=SEED,
        ),
    ),
    mechanism_dims=(16, 24, 32),
    mechanism_seeds=16,
    recall=RecallDesign(
        dims=(16, 32), max_seconds=(60.0, 300.0), critical_fractions=(1.25, 1.5), seeds=16
    ),
    budget=FULL_BUDGET,
)


# -- progress ----------------------------------------------------------------------------------


@contextmanager
def _alive(bar: Progress) -> Iterator[Progress]:
    """Keep ``bar`` talking during a blocking call (:meth:`lamcap._progress.Progress.heartbeat`).

    The bar's elapsed time is refreshed every second on a terminal; in a log a
    line is written every :data:`PLAIN_INTERVAL` seconds, so a long stage is
    never silent.
    """
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(1.0):
            bar.heartbeat()

    thread = threading.Thread(target=run, daemon=True)
    if bar.enabled:
        thread.start()
    try:
        yield bar
    finally:
        stop.set()
        if thread.is_alive():
            thread.join()


def _staged(name: str, what: str, enabled: bool, function: Callable[[], _T]) -> _T:
    """Run ``function`` as a one-step stage that reports its elapsed time while it runs."""
    with (
        Progress(
            name, total=1, unit="steps", note=what, enabled=enabled, interval=PLAIN_INTERVAL
        ) as bar,
        _alive(bar),
    ):
        result = function()
        bar.advance(note="done")
    return result


# -- stages ------------------------------------------------------------------------------------


def build_tables() -> dict[str, str]:
    """The derivation pages of ``lamcap tables`` (sympy; runs on a worker)."""
    from lamcap.experiments import _derivation_tables as tables  # noqa: PLC0415 - sympy: loaded only when the tables are built

    return dict(tables.build_all())


def _write_tables(pages: dict[str, str], directory: Path) -> list[Path]:
    written = []
    for key, text in sorted(pages.items()):
        if key.startswith("@"):  # a generated source block, not a table
            continue
        path = directory / key
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _mechanism_runs(plan: Plan) -> list[tuple[int, float, str]]:
    """(d, κ, solution) of every sample: the max-margin W per size, comparisons at the largest."""
    runs = [(d, 1.0, "max_margin") for d in plan.mechanism_dims]
    largest = max(plan.mechanism_dims)
    runs += [(largest, 1.0, "first_feasible"), (largest, 1.0, "adam_ce")]
    runs.append((largest, 0.5, "two_layer"))
    return runs


def mechanism_samples(executor: Executor, plan: Plan, *, progress: bool) -> list[SolutionSample]:
    """Solve every mechanism instance of ``plan`` on ``executor`` (all submitted at once)."""

    runs = []
    for d, kappa, solution in _mechanism_runs(plan):
        p = max(2, int(plan.critical_fraction * float(critical_p(d, kappa=kappa))))
        tasks = solution_tasks(d, p, kappa=kappa, seeds=plan.mechanism_seeds, seed=plan.seed)
        trial = functools.partial(solution_trial, solution=solution)
        runs.append((d, kappa, p, solution, [executor.submit(trial, t) for t in tasks]))
    pending = {f for *_, batch in runs for f in batch}
    what = "max-margin W and comparisons near capacity"
    with Progress(
        "mechanism solutions",
        total=len(pending),
        unit="instances",
        note=what,
        enabled=progress,
        interval=PLAIN_INTERVAL,
    ) as bar:
        while pending:
            finished, pending = wait(pending, timeout=PLAIN_INTERVAL, return_when=FIRST_COMPLETED)
            bar.advance(len(finished))
    return [
        pool_sample([f.result() for f in batch], d=d, kappa=kappa, p=p, solution=solution)
        for d, kappa, p, solution, batch in runs
    ]


def _figure_samples(samples: list[SolutionSample]) -> list[SolutionSample]:
    """The samples figures 4–5 draw: the judged matrix at the largest d, then κ < 1."""
    largest = max(s.d for s in samples)
    full = [s for s in samples if s.d == largest and s.kappa == 1.0]
    return full[:1] + [s for s in samples if s.kappa < 1.0]


# -- the report --------------------------------------------------------------------------------

_COLUMNS = f"""\
- **claim** — what arXiv:2605.10795 (or a lamcap finite-size law) says, at which size.
  *OP* is the original problem: every association scores the same p outputs.
  *DP* is the decoupled problem: every association has fresh outputs.  n = p.
- **kind** — *finite-size*: a prediction at the size that was run; *asymptotic*: a
  statement about d → ∞, judged by the trend across the run's sizes; *comparison*:
  a measurement or another matrix shown for reference, not judged.
- **finite-size prediction** — the law's value and what the law is (docs/vocabulary.md,
  "law labels": *exact*, *asymptotic*, *model with measured error*, *fitted*).  The
  printed digits are those of the law's evaluation (a ± gives the law's own stated error
  where it is a model with one: the Hebbian P(all) pair law); whether the law is right
  is what the row tests.  The Crofton law and the spectrum's finite-size law are models.
- **measured [95% interval]** — transitions: the 50% point of the finite-size law's
  curve moved along log p to fit the decided instances (maximum likelihood;
  likelihood-ratio interval), with the number of instances and of undecided ones
  (never counted as storable or not); matrices: the mean over the storing W of a
  per-matrix statistic with its t interval; trends: the value extrapolated to d → ∞ in
  x = 1/d and in x = 1/log critical_p(d).
- **test** — the point-null test of exactness.  *LR shift*: likelihood ratio of the law as it is against the law moved
  along log p (χ²₁; below p = 0.05 a parametric bootstrap of 4000 redraws from the
  law); *z shift ± model error*: the fitted shift against the law's stated error added
  in quadrature; *one-sided*: a measured lower bound (the two-layer trainer), which
  contradicts a prediction only from above; *bracket*: the best accuracy lies
  between the mean certified lower and upper bounds of the max-recall solver; one-sided
  t on each (the lower bounds above the prediction, or the upper bounds below it),
  p twice the smaller; both bounds are the claim's estimates, since the optimum may lie
  anywhere inside; *t*: one-sample t over the matrices
  (df = matrices − 1; *± model error* adds the law's error); *WLS trend, IU*: weighted
  least-squares extrapolation in 1/d and in 1/log p, p the larger of the two
  (intersection–union: the claim fails only if both exclude the limit on the same side;
  p = 1 when they fall on either side of it).
- **z**, **p**, **Holm p** — the point-null test of "no deviation" (the law's exactness):
  standardised distance, p-value and its Holm adjustment over the judged claims.
- **deviation: familywise interval (tolerance)** — the interval of (measured − predicted)
  in the claim's units, simultaneous over the run's judged claims (Bonferroni at
  {100 * LEVEL:g}%), widened on both sides by the law's own stated error; the hull of both
  ends for a bracket and of both extrapolations for a trend; next to ±tolerance.
- **floor** — the interval's half-width with unlimited instances: the law's own error plus
  half the spread of the claim's estimates (a bracket's half-width, half the gap between
  two extrapolations); ∞ for a one-sided bound.  A claim whose floor is not below its
  tolerance cannot be decided by more instances, and says so.
- **verdict** — *consistent*: the interval lies inside ±tolerance; *inconsistent*: it lies
  wholly outside; *inconclusive* otherwise, saying what would decide it at the current
  estimate, or why nothing can (its floor), or that the data cannot locate the
  transition (more than 10% undecided instances in its window).
- **exactness** — "bias detected" with the estimate and its familywise interval when the
  Holm-adjusted point-null test rejects; a law can be consistent within its tolerance and
  still detectably biased.
- **instances added** — instances added to the claim's cell after the planned rounds
  (cheapest information first, until the claim's statistical half-width is
  {100 * TARGET_SHARES[0]:g}% of the room the floor leaves, then
  {100 * TARGET_SHARES[1]:.0f}%, ... down to {100 * TARGET_SHARES[-1]:g}% while budget
  remains), and why the adding stopped.
  *not tested* says why; *comparison* rows are not judged."""


def _where(workers: int | None, dask_local: bool, scheduler: str | None, executor: Executor) -> str:
    """Where the run executed and with how many workers (as actually started)."""
    if scheduler or dask_local:
        client = getattr(executor, "_client", None)
        try:
            count = len(client.scheduler_info()["workers"]) if client is not None else None
        except (AttributeError, KeyError, OSError):
            count = None
        what = f"Dask scheduler {scheduler}" if scheduler else "Dask LocalCluster"
        return f"{what}, {'unknown' if count is None else count} workers at start"
    count = default_workers() if workers is None else workers
    if count == 0:
        return "in-process (0 workers)"
    return f"{count} local worker process{'es' if count != 1 else ''}"


def _report(
    plan: Plan,
    rows: list[TransitionRow],
    claims: list[Claim],
    figures: list[Path],
    tables: list[Path],
    out: Path,
    seconds: float,
    where: str,
    *,
    tolerances: Mapping[str, float] | None = None,
    allocation: Allocation | None = None,
) -> str:
    figure_lines = "\n".join(
        f"![{p.stem}](figures/{p.name})" for p in figures if p.suffix == ".png"
    )
    table_lines = "\n".join(
        f"- [{p.relative_to(out)}]({p.relative_to(out)})" for p in tables if p.suffix == ".md"
    )
    verdicts = counts_text(claims)
    family = sum(claim.tested for claim in claims)
    budget_text = "No instances added" if allocation is None else allocation.text()
    _, measured_op_dp = measured_op_dp_claim()
    commit = git_commit()
    provenance = (
        f"lamcap {__version__}, commit {commit}"
        if commit
        else f"lamcap {__version__} (installed from a package: no git commit to record)"
    )
    return f"""# lamcap reproduction ({plan.name})

{provenance}, Python {platform.python_version()}; {where};
{seconds / 60:.1f} minutes.  Reference: arXiv:2605.10795 and the theory pages of the
lamcap documentation.

**{verdicts}.**  {budget_text}.

{claims_summary(claims)}

A claim is *consistent* when the familywise interval of (measured − predicted), widened
by the law's own stated error, lies inside ±tolerance; *inconsistent* when it lies wholly
outside; *inconclusive* otherwise, with what would decide it, or the number that keeps
any sample size from deciding it (its floor).  The {family} judged claims' intervals are
simultaneous (Bonferroni): the chance that any of them misses its truth, and so that this
run makes any false call either way, is at most {100 * LEVEL:g}%.  Whether a law is exact
is answered apart ("exactness": the point-null test, Holm-adjusted).  Mechanism claims
(spectra, scores) are about the max-margin W,
`lamcap.solve(instance, objective="max_margin")` with a certified relative gap
≤ {MAX_MARGIN_TOLERANCE:g}; the first feasible W, the Adam/cross-entropy W and the
two-layer trainer appear as labelled comparisons.

## Claims

{claims_table(claims)}

### Tolerances used

The defaults were fixed per quantity before any data were seen
(`lamcap.experiments._verdicts.TOLERANCES`); `--tolerance QUANTITY=VALUE` sets them:

{tolerance_table(tolerances)}

### Columns

{_COLUMNS}

## OP = DP in lamcap's own measurements

The run's sizes are small; lamcap's certified OP vs DP measurements
(docs/measurements/op_vs_dp.md, shipped with lamcap, independent instances) reach
larger d.  {measured_op_dp}

Measurements at larger sizes: docs/measurements/capacity.md (capacities, OP vs DP,
Hebbian, rank), docs/measurements/spectrum.md (spectra of max-margin, first-feasible and
Adam/CE matrices), docs/measurements/recall-fraction.md (best accuracy beyond
capacity); the claims and tests are described in docs/howto/reproduce.md.

## Fitted transitions

p_c is where half the decided instances are storable: the cell's finite-size law moved
along log p (maximum likelihood, 95% likelihood-ratio interval; docs/measurements/capacity.md
gives its measured coverage); α_c = p_c log p_c / d².  Undecided instances are counted
apart and never enter a fit.  "theory p" is `critical_p(d, κ)` (Hebbian: the d → ∞ law),
"finite-size p" the Crofton median (Hebbian: the finite-d pair law of P(all)); "gap" is
the measured p_c relative to the reference prediction.

{markdown_table(rows)}

## Figures

Figures 4 and 5 show the max-margin W at κ = 1 (largest mechanism d) and the
two-layer trainer at κ = 0.5; the legends name the matrix.  Figure 4 prints the
measured E[s⁴]/E[s²]² next to the finite-size law at the same d and p (the spectrum
claim's prediction) and draws the quarter circle as the d → ∞ asymptote.  Figure 5
draws the score law Π_K_m(g) at the margin of the score claim, m = max_margin(p/d², p),
printed in its legend.

{figure_lines}

## Theory tables

{table_lines}

Rerun the same command to resume; `lamcap results export --csv results.csv
--db {out / "results.sqlite"}` exports every instance.
"""


def _check_seeds(database: Path, plan: Plan) -> None:
    """Refuse to resume a run whose instances were drawn with another sweep seed (:data:`SEED`).

    Earlier versions used seed 0, the seed of the sweeps behind the measured
    OP/DP law; pooling those instances with new ones would make the comparison
    partly a comparison of the law's data with themselves.
    """
    if not database.is_file() or database.stat().st_size == 0:
        return
    with ResultsStore(database, readonly=True) as store:
        seeds = {int(json.loads(text).get("seed", 0)) for text in store.sweeps().values()}
    # the max-recall solves record the sweeps that draw their seeds, with the plan's seed
    foreign = sorted(seeds - {sweep.seed for sweep in plan.sweeps} - {plan.seed})
    if foreign:
        msg = (
            f"out {str(database.parent)!r} holds sweeps with seed(s) {foreign} from an earlier "
            f"lamcap; this version draws its instances with seed {plan.sweeps[0].seed} "
            "(independent of the measured laws), so it cannot resume there: give a new out"
        )
        raise ValueError(msg)


def evaluate(
    cells: dict[Cell, CellData],
    samples: list[SolutionSample],
    recall: list[RecallPoint] | None = None,
    *,
    tolerances: Mapping[str, float] | None = None,
    added: Mapping[Cell, CellRecord] | None = None,
) -> tuple[list[TransitionRow], list[Claim]]:
    """Fitted transitions and judged claims of a run.

    ``recall``: the max-recall points; ``tolerances``: the user's overrides of
    :data:`~lamcap.experiments._verdicts.TOLERANCES`; ``added``: what the
    allocation stage added per cell (copied into each claim's ``added`` and
    ``allocation``).
    """
    rows = transition_rows(cells)
    claims = judge(
        build_claims(cells, rows, samples, law=op_dp_law(), recall=recall or ()),
        tolerances=tolerances,
    )
    records = {cell.label(): record for cell, record in (added or {}).items()}
    return rows, [_with_allocation(claim, records) for claim in claims]


def _with_allocation(claim: Claim, records: Mapping[str, CellRecord]) -> Claim:
    record = records.get(claim.cell)
    if record is None or not record.reason:
        return claim
    return dataclasses.replace(claim, added=record.added, allocation=record.reason)


@dataclass(frozen=True)
class Allocation:
    """What the allocation stage did: per-cell records, CPU seconds spent, the budget."""

    records: dict[Cell, CellRecord]
    spent: float
    budget: float

    def text(self) -> str:
        """One sentence for the report's first lines."""
        added = sum(record.added for record in self.records.values())
        cells = sum(record.added > 0 for record in self.records.values())
        return (
            f"Budget: {self.spent:.0f} of {self.budget:.0f} CPU seconds spent on {added} instances "
            f"added to {cells} cell{'s' if cells != 1 else ''} after the planned rounds"
        )


def add_instances(
    plan: Plan,
    database: Path,
    executor: Executor,
    claims_of: Callable[[dict[Cell, CellData]], list[Claim]],
    *,
    budget: float,
    progress: bool,
) -> tuple[dict[Cell, CellData], Allocation]:
    """Add instances where claims can still be decided (:mod:`lamcap.experiments._allocation`).

    Returns the data of every planned instance (the sweeps' and the added
    ones, never stale rows of rounds not replayed) and what was added.
    """
    with ResultsStore(database) as store:
        verdicts = {row_key(row): row["verdict"] for row in store.rows()}
        planned, sweeps = {}, {}
        for sweep in plan.sweeps:
            for cell, tasks in planned_tasks(sweep, verdicts).items():
                planned[cell], sweeps[cell] = tasks, sweep
        with Progress(
            "added instances",
            unit="instances",
            note=f"budget {budget:.0f} CPU s",
            enabled=progress,
            interval=PLAIN_INTERVAL,
        ) as bar:

            def on_round(_tasks: int, spent: float) -> None:
                bar.note(f"{spent:.0f} of {budget:.0f} CPU s spent")

            allocator = Allocator(planned, sweeps, claims_of, budget, store, on_round=on_round)
            if budget > 0:
                execute(
                    [allocator],
                    store,
                    executor,
                    solver_trial,
                    sweep_name=SWEEP_NAME,
                    on_planned=lambda tasks, done: bar.grow(tasks, done=done),
                    on_recorded=bar.advance,
                )
            cells = cell_data_of_rows(allocator.rows())
    return cells, Allocation(allocator.records, allocator.spent, budget)


def reproduce(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    workers: int | None = None,
    dask_local: bool = False,
    scheduler: str | None = None,
    progress: bool = True,
    plan: Plan | None = None,
    with_tables: bool = True,
    connect_timeout: float = 5.0,
    tolerances: Mapping[str, float] | None = None,
    budget: float | None = None,
) -> Path:
    """Run a reproduction into ``out``; return the path of ``report.md``.

    ``plan`` overrides the quick/full choice; ``with_tables=False`` skips the
    sympy tables (tests).  ``progress`` writes per-stage progress to stderr.
    ``tolerances``: quantity -> tolerance, overriding the defaults
    (:data:`~lamcap.experiments._verdicts.TOLERANCES`); ``budget``: CPU seconds
    of instances added after the planned rounds (default the plan's,
    :data:`QUICK_BUDGET` or :data:`FULL_BUDGET`; 0: none).
    """
    from lamcap.experiments.figures import draw_all, save_samples  # noqa: PLC0415 - matplotlib: loaded only when figures are drawn

    chosen = plan if plan is not None else (QUICK if quick else FULL)
    spend = chosen.budget if budget is None else float(budget)
    if not (math.isfinite(spend) and spend >= 0):
        msg = f"budget must be a finite number of CPU seconds >= 0, got {budget!r}"
        raise ValueError(msg)
    chosen_tolerances(tolerances)  # checks the overrides before any work
    directory = Path(out)
    database = directory / "results.sqlite"
    if directory.exists() and not directory.is_dir():
        msg = f"out must be a directory, got the file {str(directory)!r}"
        raise ValueError(msg)
    if directory.is_dir():
        check_store(database)
        _check_seeds(database, chosen)
    started = time.perf_counter()
    with open_executor(
        workers=workers, dask_local=dask_local, scheduler=scheduler, connect_timeout=connect_timeout
    ) as executor:
        where = _where(workers, dask_local, scheduler, executor)
        directory.mkdir(parents=True, exist_ok=True)
        tables_future = executor.submit(build_tables) if with_tables else None
        for sweep in chosen.sweeps:
            run_sweep(sweep, database, executor=executor, progress=progress)
        samples = mechanism_samples(executor, chosen, progress=progress)
        save_samples(samples, directory / "figures" / "mechanism_samples.npz")
        recall: list[RecallPoint] = []
        if chosen.recall is not None:
            if (directory / RECALL_FILE).is_file():  # the solves of an earlier lamcap's run
                import_recall_store(directory / RECALL_FILE, database)
            recall = run_recall(executor, chosen.recall, chosen.seed, database, progress=progress)
        law = op_dp_law()

        def claims_of(cells: dict[Cell, CellData]) -> list[Claim]:
            built = build_claims(cells, transition_rows(cells), samples, law=law, recall=recall)
            return judge(built, tolerances=tolerances)

        cells, allocation = add_instances(
            chosen,
            database,
            executor,
            claims_of,
            budget=spend,
            progress=progress,
        )
        figures = draw_all(
            database,
            directory / "figures",
            executor=executor,
            solutions=_figure_samples(samples),
            progress=progress,
        )
        tables: list[Path] = []
        if tables_future is not None:
            pages = _staged("theory tables", "sympy, on a worker", progress, tables_future.result)
            tables = _write_tables(pages, directory / "tables")
    rows, claims = _staged(
        "predictions and tests",
        "finite-size laws, fits, familywise intervals",
        progress,
        lambda: evaluate(cells, samples, recall, tolerances=tolerances, added=allocation.records),
    )
    report = directory / "report.md"
    text = _report(
        chosen,
        rows,
        claims,
        figures,
        tables,
        directory,
        time.perf_counter() - started,
        where,
        tolerances=tolerances,
        allocation=allocation,
    )
    report.write_text(text, encoding="utf-8")
    _write_claims(claims, directory / "claims.json", tolerances=tolerances, allocation=allocation)
    return report


def _plain(value: object) -> object:
    """JSON-ready: NaN as null, ±infinity as the strings ``"inf"`` and ``"-inf"``, tuples as lists."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, float) and math.isinf(value):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def _write_claims(
    claims: list[Claim],
    path: Path,
    *,
    tolerances: Mapping[str, float] | None = None,
    allocation: Allocation | None = None,
) -> None:
    """Every judged claim as JSON, with the tolerances used and the budget spent.

    ``{"tolerances": {quantity: value}, "budget": {"cpu_seconds": ..., "spent": ...},
    "claims": [...]}``; NaN is written as null, infinity as ``"inf"`` (:func:`_plain`).
    """
    document = {
        "tolerances": {q: t.value for q, t in chosen_tolerances(tolerances).items()},
        "budget": None
        if allocation is None
        else {"cpu_seconds": allocation.budget, "spent": allocation.spent},
        "claims": [
            {key: _plain(value) for key, value in dataclasses.asdict(claim).items()}
            for claim in claims
        ],
    }
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False)
    path.write_text(text + "\n", encoding="utf-8")


def _number(value: object) -> object:
    """A JSON value read back: null as NaN, ``"inf"`` and ``"-inf"`` as floats."""
    if value is None:
        return math.nan
    if value in ("inf", "-inf"):
        return float(str(value))
    return value


def read_claims(path: str | os.PathLike[str]) -> list[Claim]:
    """The judged claims written by a run (``claims.json``), null read back as NaN.

    Reads the document of :func:`_write_claims` and the bare list of claims
    earlier versions wrote; fields this version does not know are left out.
    """
    document = json.loads(Path(path).read_text(encoding="utf-8"))
    records = document["claims"] if isinstance(document, dict) else document
    known = {f.name for f in dataclasses.fields(Claim)}
    claims = []
    for record in records:
        fields: dict[str, Any] = {k: _number(v) for k, v in record.items() if k in known}
        for name in ("estimates", "standard_errors", "interval"):
            if name in fields:
                fields[name] = tuple(_number(e) for e in fields[name] or ())
        if fields.get("interval") == ():
            del fields["interval"]
        if record.get("df", 0) is None:
            fields["df"] = math.inf
        claims.append(Claim(**fields))
    return claims


def summary(report: str | os.PathLike[str]) -> str:
    """One line counting the verdicts of the run whose ``report.md`` is ``report``."""
    return counts_text(read_claims(Path(report).parent / "claims.json"))
