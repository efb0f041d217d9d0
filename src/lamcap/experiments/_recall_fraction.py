r"""The partial-recall claim of ``lamcap reproduce``: the best recall fraction beyond capacity.

Beyond the capacity no ``W`` recalls every association; the replica-symmetric
(RS) law :func:`lamcap.recall_fraction` predicts the best fraction one ``W``
recalls (decoupled problem, Gaussian embeddings; docs/theory/partial-recall.md),

.. math::

    f = P(C_p < \tau), \qquad n\,\mathbb{E}[C_p;\ C_p < \tau] = d^2 ,

an *asymptotic* law (:math:`d \to \infty`), argued there to be an estimate from
above.  The measurement cannot give the best fraction :math:`R^*/n` itself,
only certified bounds on it: ``lamcap.solve(instance, objective="max_recall")``
returns :math:`R_- \le R^* \le R_+` (a verified ``W`` and disjoint sets no
``W`` recalls whole; :mod:`lamcap.solvers._max_recall`).  On :math:`N`
instances ``make_instance(d, p, model="decoupled", seed=s)`` (:math:`n = p`,
seeds derived like the sweeps', :func:`~lamcap.experiments.instance_seed`) the
mean best fraction therefore lies in the bracket

.. math::

    \mathbb{E}[R_-/n] \;\le\; \mathbb{E}[R^*/n] \;\le\; \mathbb{E}[R_+/n],

estimated by the means :math:`\bar L`, :math:`\bar U` with their standard
errors over the instances.  The claim (:func:`recall_fraction_claim`) is judged
like every other claim of the run (:mod:`lamcap.experiments._verdicts`):

* **test** (:func:`bracket_test`): one-sided t on each bound, :math:`\bar L`
  above :math:`f` (then :math:`\mathbb{E}[R^*/n] > f`: the law is refuted as an
  upper estimate) or :math:`\bar U` below :math:`f` (the best fraction is below
  the law's value at this size), p-value twice the smaller of the two (a union
  of two tests);
* **verdict**: the familywise interval of the deviation is the hull
  :math:`[\bar L - f - q s_L,\; \bar U - f + q s_U]` (both ends of the bracket
  are estimates), so "consistent" needs the whole bracket, widened by its
  statistics, inside :math:`f \pm 0.01` (quantity ``"recall_fraction"``); the
  claim's floor is half the width :math:`\bar U - \bar L`
  (``Claim.bracket_width``), which today's certified upper bound (about
  :math:`n - 1`) keeps above the tolerance: such a row says it cannot be
  decided at 0.01, with the width, and what would narrow it.

The solves are resumable: each finished instance is written by the parent
process, in its own transaction, to ``max_recall.sqlite`` in the run's
directory (:class:`RecallStore`, ``UNIQUE`` key, ``INSERT OR IGNORE``), and a
rerun skips every stored instance, as the sweeps' store does
(:mod:`lamcap.experiments._store`).

Examples
--------
>>> import numpy as np
>>> test = bracket_test(np.array([0.80, 0.84, 0.82]), np.array([0.98, 0.98, 0.96]), 0.9, n=50)
>>> round(test.lower, 3), round(test.upper, 3), test.p_value > 0.05
(0.82, 0.973, True)
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

import numpy as np
from numpy.typing import NDArray

from lamcap import __version__, critical_p, recall_fraction
from lamcap._progress import Progress
from lamcap._validation import check_integer, check_real
from lamcap.experiments._report import prediction_text
from lamcap.experiments._store import git_commit
from lamcap.experiments._sweep import MAX_DIMENSION, Cell, Sweep, Task
from lamcap.experiments._verdicts import Claim
from lamcap.problems import make_instance
from lamcap.solvers import solve

RECALL_FILE: Final[str] = "max_recall.sqlite"
"""Store of the max-recall solves in a reproduction's directory (:class:`RecallStore`)."""

LAYOUT_VERSION: Final[int] = 1
"""Version of the table layout of :class:`RecallStore`; a store of another version is refused."""

_RS_NUMERICAL_ERROR: Final[float] = 1e-12
"""Absolute numerical error of ``recall_fraction`` at these sizes (about 1e-13; its docstring)."""

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


def recall_tasks(design: RecallDesign, seed: int) -> list[tuple[float, Task]]:
    """Every instance of ``design`` with its critical fraction; seeds from the sweep ``seed``.

    Instance seeds are :func:`~lamcap.experiments.instance_seed` of (``seed``, d,
    κ = 1, ``"decoupled"``, p, replicate), as for the sweeps and the mechanism
    samples of a run.
    """
    tasks = []
    for d, fraction, p, seconds in design.sizes():
        sweep = Sweep(
            dims=(d,),
            seeds_per_point=design.seeds,
            seed=seed,
            max_seconds=seconds,
            name="max_recall",
        )
        tasks += [(fraction, task) for task in sweep.tasks(Cell(d, 1.0, "decoupled", "auto"), [p])]
    return tasks


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


# -- the store ---------------------------------------------------------------------------------

_TABLE = """
CREATE TABLE IF NOT EXISTS max_recall (
    d INTEGER NOT NULL, p INTEGER NOT NULL, n INTEGER NOT NULL,
    model TEXT NOT NULL, embeddings TEXT NOT NULL,
    replicate INTEGER NOT NULL, seed INTEGER NOT NULL, max_seconds REAL NOT NULL,
    recall_lower INTEGER NOT NULL, recall_upper INTEGER NOT NULL,
    verdict TEXT NOT NULL, upper_exact INTEGER, stopped TEXT, start TEXT,
    seconds REAL, cpu_seconds REAL, lamcap_version TEXT, git_commit TEXT, finished_at TEXT,
    UNIQUE (d, p, model, embeddings, seed, max_seconds)
)"""

Key = tuple[int, int, str, str, int, float]


def _key(task: Task) -> Key:
    return (task.d, task.p, task.model, task.embeddings, task.seed, float(task.max_seconds or 0.0))


class RecallStore:
    """SQLite store of finished max-recall solves (:data:`RECALL_FILE`); a context manager.

    One row per instance, ``UNIQUE(d, p, model, embeddings, seed, max_seconds)``,
    each written in its own transaction (``INSERT OR IGNORE``), so a rerun after
    an interruption neither loses a stored solve nor stores one twice.  A file
    with another layout version raises ``ValueError`` naming it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._connection = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self._connection.row_factory = sqlite3.Row
        try:
            self._connection.execute(
                "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )
            self._connection.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('layout_version', ?)",
                (str(LAYOUT_VERSION),),
            )
            row = self._connection.execute(
                "SELECT value FROM meta WHERE key = 'layout_version'"
            ).fetchone()
            version = str(row[0])
            self._connection.execute(_TABLE)
        except sqlite3.DatabaseError as error:
            self._connection.close()
            msg = f"path {str(self.path)!r} is not a max-recall store of lamcap: {error}"
            raise ValueError(msg) from None
        if version != str(LAYOUT_VERSION):
            self._connection.close()
            msg = (
                f"path {str(self.path)!r} holds a max-recall store of layout version {version}; "
                f"this lamcap reads version {LAYOUT_VERSION}: give a new out"
            )
            raise ValueError(msg)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._connection.close()

    def add(self, task: Task, record: dict[str, Any]) -> bool:
        """Store one finished solve (its own transaction); False if it was already stored."""
        row = {
            "d": task.d,
            "p": task.p,
            "n": int(record["n"]),
            "model": task.model,
            "embeddings": task.embeddings,
            "replicate": task.replicate,
            "seed": task.seed,
            "max_seconds": float(task.max_seconds or 0.0),
            "recall_lower": int(record["recall_lower"]),
            "recall_upper": int(record["recall_upper"]),
            "verdict": str(record["verdict"]),
            "upper_exact": int(bool(record.get("upper_exact"))),
            "stopped": record.get("stopped"),
            "start": record.get("start"),
            "seconds": record.get("seconds"),
            "cpu_seconds": record.get("cpu_seconds"),
            "lamcap_version": __version__,
            "git_commit": git_commit(),
            "finished_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        names = ", ".join(row)
        marks = ", ".join(f":{name}" for name in row)
        cursor = self._connection.execute(
            f"INSERT OR IGNORE INTO max_recall ({names}) VALUES ({marks})", row
        )
        return cursor.rowcount == 1

    def rows(self) -> dict[Key, dict[str, Any]]:
        """Every stored solve, by its key."""
        found = {}
        for row in self._connection.execute("SELECT * FROM max_recall ORDER BY d, p, replicate"):
            record = dict(row)
            key = (
                int(record["d"]),
                int(record["p"]),
                str(record["model"]),
                str(record["embeddings"]),
                int(record["seed"]),
                float(record["max_seconds"]),
            )
            found[key] = record
        return found

    def count(self) -> int:
        """Number of stored solves."""
        return int(self._connection.execute("SELECT COUNT(*) FROM max_recall").fetchone()[0])


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
    design: RecallDesign, seed: int, rows: dict[Key, dict[str, Any]]
) -> list[RecallPoint]:
    """The stored solves of ``design``'s instances (only those), one point per (d, p)."""
    grouped: dict[tuple[int, int], list[dict[str, Any]]] = {}
    fractions: dict[tuple[int, int], tuple[float, float]] = {}
    for fraction, task in recall_tasks(design, seed):
        fractions[(task.d, task.p)] = (fraction, float(task.max_seconds or 0.0))
        record = rows.get(_key(task))
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
    path: str | Path,
    *,
    progress: bool = False,
    trial: Any = recall_trial,
) -> list[RecallPoint]:
    """Solve (or resume) every instance of ``design`` on ``executor``, storing each in ``path``.

    Instances already in the store are skipped; the others are submitted at
    once and stored by this process as they finish.  On an interruption
    (``KeyboardInterrupt``, a failing solve) what has not started is cancelled,
    what finished is stored, and the exception propagates; a failing solve
    raises ``RuntimeError`` naming it (``ValueError`` if it raised one).
    ``trial`` replaces :func:`recall_trial` (tests).
    """
    planned = recall_tasks(design, seed)
    with RecallStore(path) as store:
        done = set(store.rows())
        todo = [task for _, task in planned if _key(task) not in done]
        pending: dict[Future[dict[str, Any]], Task] = {}
        with Progress(
            "max-recall solutions",
            total=len(planned),
            unit="instances",
            note="certified bounds beyond capacity",
            enabled=progress,
            interval=_PLAIN_INTERVAL,
        ) as bar:
            bar.advance(len(planned) - len(todo))

            def record(future: Future[dict[str, Any]]) -> tuple[Task, BaseException] | None:
                task = pending.pop(future)
                error = future.exception()
                if error is not None:
                    return task, error
                store.add(task, future.result())
                bar.advance()
                return None

            try:
                for task in todo:
                    pending[executor.submit(trial, task)] = task
                while pending:
                    finished, _ = wait(
                        pending, timeout=_PLAIN_INTERVAL, return_when=FIRST_COMPLETED
                    )
                    failures = [failure for f in finished if (failure := record(f)) is not None]
                    if failures:
                        task, error = failures[0]
                        if isinstance(error, ValueError):
                            msg = f"a max-recall solve cannot run, {task}: {error}"
                            raise ValueError(msg) from error
                        msg = f"a max-recall solve failed, {task}: {type(error).__name__}: {error}"
                        raise RuntimeError(msg) from error
            except BaseException:
                for future in list(pending):
                    if not future.cancel() and future.done() and future in pending:
                        with contextlib.suppress(BaseException):
                            record(future)
                bar.close(interrupted=True)
                raise
        return recall_points(design, seed, store.rows())


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
    r"""The claim "best recall fraction beyond capacity" at one (d, p), before judging.

    ``predicted``: the RS value :math:`f` (default ``recall_fraction(d, p)``).
    The test is :func:`bracket_test` on the fractions :math:`R_-/n` and
    :math:`R_+/n`; the claim's estimates are the two ends of the bracket,
    :math:`\bar L - f` and :math:`\bar U - f`, each with its standard error, so
    that its familywise interval is their hull and its floor half the
    ``bracket_width`` :math:`\bar U - \bar L` (module docstring).
    """
    name = (
        f"best recall fraction beyond capacity (DP, Gaussian), d = {point.d}, p = {point.p} "
        f"({point.critical_fraction:g} p_c)"
    )
    if predicted is None:
        predicted = float(recall_fraction(point.d, point.p))
    prediction = prediction_text(
        predicted, _RS_NUMERICAL_ERROR, "recall_fraction: RS, asymptotic, an upper estimate"
    )
    if point.count < 2:
        return Claim(
            name,
            prediction,
            f"{point.count} instance(s)",
            quantity="recall_fraction",
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
        quantity="recall_fraction",
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
