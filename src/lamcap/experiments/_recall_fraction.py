r"""The partial-recall claim of ``lamcap reproduce``: the best accuracy beyond capacity.

Beyond the capacity no ``W`` recalls every association; the replica-symmetric
(RS) law :func:`lamcap.best_accuracy` predicts the best accuracy one ``W``
recalls (decoupled problem, Gaussian embeddings; docs/theory/partial-recall.md),

.. math::

    f = P(C_p < \tau), \qquad n\,\mathbb{E}[C_p;\ C_p < \tau] = d^2 ,

an *asymptotic* law (:math:`d \to \infty`), argued there to be an estimate from
above.  The measurement cannot give the best accuracy :math:`R^*/n` itself,
only certified bounds on it: ``lamcap.solve(instance, objective="max_recall")``
returns :math:`R_- \le R^* \le R_+` (a verified ``W`` and disjoint sets no
``W`` recalls whole; :mod:`lamcap.solvers._max_recall`).  On :math:`N`
instances ``make_instance(d, p, model="decoupled", seed=s)`` (:math:`n = p`,
seeds derived like the sweeps', :func:`~lamcap.experiments.instance_seed`) the
mean best accuracy therefore lies in the bracket

.. math::

    \mathbb{E}[R_-/n] \;\le\; \mathbb{E}[R^*/n] \;\le\; \mathbb{E}[R_+/n],

estimated by the means :math:`\bar L`, :math:`\bar U` with their standard
errors over the instances.  The claim (:func:`recall_fraction_claim`) is judged
like every other claim of the run (:mod:`lamcap.experiments._verdicts`):

* **test** (:func:`bracket_test`): one-sided t on each bound, :math:`\bar L`
  above :math:`f` (then :math:`\mathbb{E}[R^*/n] > f`: the law is refuted as an
  upper estimate) or :math:`\bar U` below :math:`f` (the best accuracy is below
  the law's value at this size), p-value twice the smaller of the two (a union
  of two tests);
* **verdict**: the familywise interval of the deviation is the hull
  :math:`[\bar L - f - q s_L,\; \bar U - f + q s_U]` (both ends of the bracket
  are estimates), so "consistent" needs the whole bracket, widened by its
  statistics, inside :math:`f \pm 0.01` (quantity ``"accuracy"``); the
  claim's floor is half the width :math:`\bar U - \bar L`
  (``Claim.bracket_width``), which today's certified upper bound (about
  :math:`n - 1`) keeps above the tolerance: such a row says it cannot be
  decided at 0.01, with the width, and what would narrow it.

The solves run through the sweeps' runner and store: :func:`run_recall` hands
the instances to :func:`lamcap.experiments._runner.execute` as one round
(:class:`~lamcap.experiments._runner.OneRound`), which writes each finished
solve from the parent process, in its own transaction, to the ``max_recall``
table of the run's ``results.sqlite`` (:class:`~lamcap.experiments.ResultsStore`,
key ``UNIQUE(d, p, model, embeddings, seed, max_seconds)``, ``INSERT OR
IGNORE``); a rerun skips every stored instance, and ``lamcap results summary``,
``export --table max_recall`` and ``merge`` read them
(:func:`recall_summary`).

Examples
--------
>>> import numpy as np
>>> test = bracket_test(np.array([0.80, 0.84, 0.82]), np.array([0.98, 0.98, 0.96]), 0.9, n=50)
>>> round(test.lower, 3), round(test.upper, 3), test.p_value > 0.05
(0.82, 0.973, True)
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from lamcap import best_accuracy, critical_p
from lamcap._progress import Progress
from lamcap._validation import check_integer, check_real
from lamcap.experiments._report import prediction_text
from lamcap.experiments._runner import OneRound, execute
from lamcap.experiments._store import ResultsStore, recall_key
from lamcap.experiments._sweep import MAX_DIMENSION, Cell, Sweep, Task
from lamcap.experiments._verdicts import Claim
from lamcap.problems import make_instance
from lamcap.solvers import solve

Key = tuple[int, int, str, str, int, float]
"""Key of a max-recall solve in the store: d, p, model, embeddings, seed, time limit."""

SWEEP_NAME: Final[str] = "max_recall"
"""The ``sweep`` column of the max-recall rows (and the name of their recorded sweeps)."""

_RS_NUMERICAL_ERROR: Final[float] = 1e-12
"""Absolute numerical error of ``best_accuracy`` at these sizes (about 1e-13; its docstring)."""

_PLAIN_INTERVAL: Final[float] = 15.0


# -- what is run -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecallDesign:
    r"""Which max-recall solves a reproduction runs for the partial-recall claim.

    Parameters
    ----------
    dims : dimensions ``d`` (integers in [2, 1024]).
    max_seconds : the time limit of one solve at each ``d`` (same length as ``dims``,
        each > 0; wall clock, as ``lamcap.solve(max_seconds=)``: on a busy machine a
        solve may stop earlier in its work, which the claim's note counts).
    critical_fractions : sizes :math:`p = \operatorname{round}(\text{value} \cdot p_c(d))`,
        ``n = p``, each > 0 (``critical_fraction`` of docs/vocabulary.md; not a load).
    seeds : instances per (d, p), an integer in [2, 100000].
    """

    dims: tuple[int, ...]
    max_seconds: tuple[float, ...]
    critical_fractions: tuple[float, ...] = (1.25, 1.5)
    seeds: int = 8

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        dims = tuple(
            check_integer("d", d, minimum=2, maximum=MAX_DIMENSION) for d in tuple(self.dims)
        )
        limits = tuple(
            check_real("max_seconds", s, minimum=0.0, closed="()") for s in tuple(self.max_seconds)
        )
        if not dims or len(limits) != len(dims):
            msg = (
                f"max_seconds must give one time limit per d, got {len(limits)} for "
                f"dims {list(dims)}"
            )
            raise ValueError(msg)
        fractions = tuple(
            check_real("critical_fraction", f, minimum=0.0, closed="()")
            for f in tuple(self.critical_fractions)
        )
        if not fractions:
            msg = "critical_fractions must not be empty"
            raise ValueError(msg)
        set_(self, "dims", dims)
        set_(self, "max_seconds", limits)
        set_(self, "critical_fractions", fractions)
        set_(self, "seeds", check_integer("seeds", self.seeds, minimum=2, maximum=100_000))

    def sizes(self) -> list[tuple[int, float, int, float]]:
        """``(d, critical_fraction, p, max_seconds)`` of every point, in report order."""

        points = []
        for d, seconds in zip(self.dims, self.max_seconds, strict=True):
            pc = float(critical_p(d))
            for fraction in self.critical_fractions:
                points.append((d, fraction, max(2, round(fraction * pc)), seconds))
        return points


def _sweeps(design: RecallDesign, seed: int) -> list[tuple[float, int, Sweep]]:
    """``(critical_fraction, p, sweep)`` of every point of ``design``: the sweep draws its seeds."""
    return [
        (
            fraction,
            p,
            Sweep(
                dims=(d,),
                seeds_per_point=design.seeds,
                seed=seed,
                max_seconds=seconds,
                name=SWEEP_NAME,
            ),
        )
        for d, fraction, p, seconds in design.sizes()
    ]


def recall_tasks(design: RecallDesign, seed: int) -> list[tuple[float, Task]]:
    """Every instance of ``design`` with its critical fraction; seeds from the sweep ``seed``.

    Instance seeds are :func:`~lamcap.experiments.instance_seed` of (``seed``, d,
    κ = 1, ``"decoupled"``, p, replicate), as for the sweeps and the mechanism
    samples of a run.
    """
    return [
        (fraction, task)
        for fraction, p, sweep in _sweeps(design, seed)
        for task in sweep.tasks(Cell(sweep.dims[0], 1.0, "decoupled", "auto"), [p])
    ]


def recall_trial(task: Task) -> dict[str, Any]:
    """Solve ``task`` with ``objective="max_recall"`` (default options); return its bounds.

    Keys: ``n``, ``recall_lower``, ``recall_upper`` (:math:`R_-`, :math:`R_+`),
    ``verdict``, ``upper_exact``, ``stopped`` (``"time"`` when the limit stopped
    the solve), ``start``, ``seconds`` (wall) and ``cpu_seconds`` (this process).
    """

    started, cpu = time.perf_counter(), time.process_time()
    instance = make_instance(
        task.d, task.p, model=task.model, seed=task.seed, embeddings=task.embeddings
    )
    result = solve(
        instance,
        objective="max_recall",
        raw_margin=task.raw_margin,
        max_seconds=task.max_seconds,
        seed=task.seed,
    )
    return {
        "n": int(instance.n),
        "recall_lower": int(result.recall_lower or 0),
        "recall_upper": int(instance.n if result.recall_upper is None else result.recall_upper),
        "verdict": str(result.verdict),
        "upper_exact": bool(result.details.get("upper_exact", False)),
        "stopped": result.details.get("stopped"),
        "start": str(result.details.get("start", "")),
        "seconds": time.perf_counter() - started,
        "cpu_seconds": time.process_time() - cpu,
    }


# -- the measurement ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RecallPoint:
    """The certified bounds of the instances at one (d, p): what the claim judges.

    ``lower`` and ``upper`` hold :math:`R_-` and :math:`R_+` per instance (counts
    of the ``p`` associations, ``n = p``); ``stopped``: solves the time limit
    stopped; ``upper_exact``: solves whose upper-bound certificates were all
    proven exact; ``cpu_seconds``: their summed CPU time.
    """

    d: int
    p: int
    critical_fraction: float
    max_seconds: float
    lower: NDArray[np.int64]
    upper: NDArray[np.int64]
    stopped: int = 0
    upper_exact: int = 0
    cpu_seconds: float = 0.0

    @property
    def count(self) -> int:
        """Number of instances."""
        return int(self.lower.size)


def recall_points(
    design: RecallDesign, seed: int, rows: Mapping[Key, Mapping[str, Any]]
) -> list[RecallPoint]:
    """The stored solves of ``design``'s instances (only those), one point per (d, p).

    ``rows``: stored rows of the ``max_recall`` table by their key
    (:func:`~lamcap.experiments._store.recall_key`), e.g. every row of
    ``store.rows(table="max_recall")``; a solve of another time limit is not
    one of ``design``'s.
    """
    grouped: dict[tuple[int, int], list[Mapping[str, Any]]] = {}
    fractions: dict[tuple[int, int], tuple[float, float]] = {}
    for fraction, task in recall_tasks(design, seed):
        fractions[(task.d, task.p)] = (fraction, float(task.max_seconds or 0.0))
        record = rows.get(recall_key(task))
        grouped.setdefault((task.d, task.p), [])
        if record is not None:
            grouped[(task.d, task.p)].append(record)
    points = []
    for (d, p), records in grouped.items():
        fraction, seconds = fractions[(d, p)]
        points.append(
            RecallPoint(
                d=d,
                p=p,
                critical_fraction=fraction,
                max_seconds=seconds,
                lower=np.array([r["recall_lower"] for r in records], dtype=np.int64),
                upper=np.array([r["recall_upper"] for r in records], dtype=np.int64),
                stopped=sum(r["stopped"] == "time" for r in records),
                upper_exact=sum(bool(r["upper_exact"]) for r in records),
                cpu_seconds=float(sum(r["cpu_seconds"] or 0.0 for r in records)),
            )
        )
    return points


def run_recall(
    executor: Executor,
    design: RecallDesign,
    seed: int,
    path: str | os.PathLike[str],
    *,
    progress: bool = False,
    trial: Any = recall_trial,
) -> list[RecallPoint]:
    """Solve (or resume) every instance of ``design`` on ``executor``, storing each in ``path``.

    ``path`` is a results store (:class:`~lamcap.experiments.ResultsStore`,
    created if missing, e.g. a reproduction's ``results.sqlite``); the solves go
    to its ``max_recall`` table through the runner's loop
    (:func:`lamcap.experiments._runner.execute`, one round), and the sweeps
    that draw their seeds are recorded in it (name ``"max_recall"``), so that
    ``lamcap results merge`` matches two such stores.  Instances already in the
    store are skipped; the others are submitted at once and stored by this
    process as they finish.  On an interruption (``KeyboardInterrupt``, a
    failing solve) what has not started is cancelled, what finished is stored,
    and the exception propagates; a failing solve raises ``RuntimeError``
    naming it (``ValueError`` if it raised one).  ``trial`` replaces
    :func:`recall_trial` (tests).  Returns the points of ``design`` from every
    stored solve of it (:func:`recall_points`).
    """
    planned = [task for _, task in recall_tasks(design, seed)]
    with ResultsStore(path) as store:
        for _, _, sweep in _sweeps(design, seed):
            store.record_sweep(sweep)
        with Progress(
            "max-recall solutions",
            unit="instances",
            note="certified bounds beyond capacity",
            enabled=progress,
            interval=_PLAIN_INTERVAL,
        ) as bar:
            execute(
                [OneRound(planned)],
                store,
                executor,
                trial,
                sweep_name=SWEEP_NAME,
                table="max_recall",
                on_planned=lambda tasks, done: bar.grow(tasks, done=done),
                on_recorded=bar.advance,
            )
        rows = store.keyed_rows(table="max_recall")
    return recall_points(design, seed, rows)


def recall_summary(databases: Sequence[str | os.PathLike[str]]) -> str:
    r"""Markdown table of the max-recall solves stored in ``databases``; ``""`` if there are none.

    One line per (d, p, model, embeddings, time limit), in that order: the
    instances (a solve stored in several databases counts once), the mean
    certified bracket :math:`[\bar L, \bar U]` of the fractions :math:`R_-/n`,
    :math:`R_+/n`, the solves the limit stopped, the upper bounds proven exact,
    and the RS law ``best_accuracy(d, p, embeddings=...)`` of the decoupled
    problem ("–" for another model).  ``databases`` are opened read-only
    (``ValueError`` for a missing or foreign file, as every results command).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from lamcap.experiments._executors import InlineExecutor
    >>> def bounds(task):  # a stand-in for the solver: R- = p - 3, R+ = p - 1
    ...     return {"n": task.p, "recall_lower": task.p - 3, "recall_upper": task.p - 1,
    ...             "verdict": "bounded"}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
    >>> design = RecallDesign(dims=(8,), max_seconds=(5.0,), critical_fractions=(1.5,), seeds=2)
    >>> _ = run_recall(InlineExecutor(), design, 0, path, trial=bounds)
    >>> print(recall_summary([path]).splitlines()[2])
    | 8 | 33 | decoupled | gaussian | 5 | 2 | [0.909, 0.970] | 0 | 0 | 0.844 |
    """
    stored: dict[Key, dict[str, Any]] = {}
    for database in databases:
        with ResultsStore(database, readonly=True) as store:
            stored.update(store.keyed_rows(table="max_recall"))
    groups: dict[tuple[int, int, str, str, float], list[dict[str, Any]]] = {}
    for row in stored.values():
        point = (row["d"], row["p"], row["model"], row["embeddings"], row["max_seconds"])
        groups.setdefault(point, []).append(row)
    if not groups:
        return ""
    lines = [
        (
            "| d | p | model | embeddings | limit (s) | instances | mean bracket of R/n | "
            "stopped | upper exact | RS law f |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (d, p, model, embeddings, limit), rows in sorted(groups.items()):
        lower = float(np.mean([row["recall_lower"] / row["n"] for row in rows]))
        upper = float(np.mean([row["recall_upper"] / row["n"] for row in rows]))
        law = (
            f"{float(best_accuracy(d, p, embeddings=embeddings)):.3f}"
            if model == "decoupled"
            else "–"
        )
        stopped = sum(row["stopped"] == "time" for row in rows)
        exact = sum(bool(row["upper_exact"]) for row in rows)
        lines.append(
            f"| {d} | {p} | {model} | {embeddings} | {limit:g} | {len(rows)} | "
            f"[{lower:.3f}, {upper:.3f}] | {stopped} | {exact} | {law} |"
        )
    return "\n".join(lines)


# -- the claim ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BracketTest:
    """Means, standard errors and the test of a bracket of certified bounds (:func:`bracket_test`)."""

    lower: float
    upper: float
    lower_error: float
    upper_error: float
    t_lower: float
    t_upper: float
    p_lower: float
    p_upper: float
    p_value: float
    z: float
    df: float
    quantile: float

    @property
    def width(self) -> float:
        """Width of the bracket of the means, :math:`\\max(0, \\bar U - \\bar L)`."""
        return max(0.0, self.upper - self.lower)


def bracket_test(
    lower: NDArray[np.float64], upper: NDArray[np.float64], predicted: float, *, n: int
) -> BracketTest:
    r"""Test a prediction against the bracket :math:`[\mathbb{E}L, \mathbb{E}U]` of per-instance bounds.

    .. math::

        t_L = \frac{\bar L - f}{s_L}, \quad p_L = P(T_{N-1} \ge t_L); \qquad
        t_U = \frac{\bar U - f}{s_U}, \quad p_U = P(T_{N-1} \le t_U); \qquad
        p = \min(1, 2\min(p_L, p_U)),

    :math:`s` the standard error of a mean over the :math:`N` instances, never
    below :math:`1/(2n\sqrt N)` (half an association per instance: values on a
    grid of :math:`1/n` that agree on :math:`N` instances do not show a zero
    spread).  :math:`p_L` is small when the lower bounds lie above :math:`f`
    (then so does the quantity), :math:`p_U` when the upper bounds lie below it.
    ``z`` is the distance of :math:`f` outside the bracket in standard errors of
    the nearer bound: :math:`t_L > 0` above it, :math:`t_U < 0` below it, 0 when
    :math:`\bar L \le f \le \bar U`.

    Parameters
    ----------
    lower, upper : per-instance bounds (fractions), the same instances, ``lower <= upper``.
    predicted : the prediction :math:`f`.
    n : associations per instance (the resolution of the fractions).

    Examples
    --------
    >>> import numpy as np
    >>> test = bracket_test(np.array([0.95, 0.96, 0.97]), np.array([0.98, 0.99, 0.99]), 0.9, n=100)
    >>> test.t_lower > 0, test.p_value < 0.05
    (True, True)
    """
    from scipy import stats  # noqa: PLC0415

    count = int(np.asarray(lower).size)
    df = float(count - 1)
    floor = 0.5 / (n * math.sqrt(count))

    def mean_and_error(values: NDArray[np.float64]) -> tuple[float, float]:
        return float(np.mean(values)), max(floor, float(np.std(values, ddof=1)) / math.sqrt(count))

    low, low_error = mean_and_error(np.asarray(lower, dtype=np.float64))
    high, high_error = mean_and_error(np.asarray(upper, dtype=np.float64))
    t_lower = (low - predicted) / low_error
    t_upper = (high - predicted) / high_error
    p_lower = float(stats.t.sf(t_lower, df))
    p_upper = float(stats.t.cdf(t_upper, df))
    return BracketTest(
        lower=low,
        upper=high,
        lower_error=low_error,
        upper_error=high_error,
        t_lower=t_lower,
        t_upper=t_upper,
        p_lower=p_lower,
        p_upper=p_upper,
        p_value=min(1.0, 2.0 * min(p_lower, p_upper)),
        z=t_lower if t_lower > 0 else (t_upper if t_upper < 0 else 0.0),
        df=df,
        quantile=float(stats.t.ppf(0.975, df)),
    )


def recall_fraction_claim(point: RecallPoint, predicted: float | None = None) -> Claim:
    r"""The claim "best accuracy beyond capacity" at one (d, p), before judging.

    ``predicted``: the RS value :math:`f` (default ``best_accuracy(d, p)``).
    The test is :func:`bracket_test` on the fractions :math:`R_-/n` and
    :math:`R_+/n`; the claim's estimates are the two ends of the bracket,
    :math:`\bar L - f` and :math:`\bar U - f`, each with its standard error, so
    that its familywise interval is their hull and its floor half the
    ``bracket_width`` :math:`\bar U - \bar L` (module docstring).
    """
    name = (
        f"best accuracy beyond capacity (DP, Gaussian), d = {point.d}, p = {point.p} "
        f"({point.critical_fraction:g} p_c)"
    )
    if predicted is None:
        predicted = float(best_accuracy(point.d, point.p))
    prediction = prediction_text(
        predicted, _RS_NUMERICAL_ERROR, "best_accuracy: RS, asymptotic, an upper estimate"
    )
    if point.count < 2:
        return Claim(
            name,
            prediction,
            f"{point.count} instance(s)",
            quantity="accuracy",
            untested="fewer than 2 solved instances",
        )
    n = point.p
    test = bracket_test(point.lower / n, point.upper / n, predicted, n=n)

    def interval(mean: float, error: float) -> str:  # a t interval, shown within [0, 1]
        half = test.quantile * error
        return f"{mean:.3f} [{max(0.0, mean - half):.3f}, {min(1.0, mean + half):.3f}]"

    measured = (
        f"bracket [{test.lower:.3f}, {test.upper:.3f}]: mean certified lower bound "
        f"{interval(test.lower, test.lower_error)}, upper bound "
        f"{interval(test.upper, test.upper_error)} ({point.count} instances)"
    )
    stopped = (
        f"{point.stopped} of {point.count} solves stopped at their {point.max_seconds:g} s limit"
    )
    note = (
        f"a narrower bracket needs a tighter lower bound (longer solves, a better start) or a "
        f"tighter certified upper bound (n minus the number of disjoint sets proven "
        f"unrecallable: {n - float(np.mean(point.upper)):.1f} on average here, n = {n}); "
        f"{stopped}; {point.upper_exact} of {point.count} upper bounds proven exact"
    )
    return Claim(
        name,
        prediction,
        measured,
        z=test.z,
        p_value=test.p_value,
        test="bracket: one-sided t on each bound (×2)",
        quantity="accuracy",
        estimates=(test.lower - predicted, test.upper - predicted),
        standard_errors=(test.lower_error, test.upper_error),
        law_error=_RS_NUMERICAL_ERROR,
        df=test.df,
        count=point.count,
        sample="instances",
        bracket_width=test.width,
        note=note,
    )


def recall_fraction_claims(points: Sequence[RecallPoint]) -> list[Claim]:
    """One claim per point (:func:`recall_fraction_claim`), in the order of ``points``."""
    return [recall_fraction_claim(point) for point in points]
