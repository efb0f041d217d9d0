"""Experiment sub-commands: ``sweep``, ``results``, ``figures``, ``reproduce``.

Examples (shell)::

    lamcap sweep --d 8 12 16 --model decoupled original --seeds 8 --workers 2
    lamcap sweep --config sweep.json --scheduler tcp://10.0.0.5:8786
    lamcap sweep --d 32 --loads 0.8 1 1.2 --shard 2/10 --db shard-2.sqlite
    lamcap results merge results.sqlite shard-*.sqlite
    lamcap results summary --db a.sqlite b.sqlite --proven-only
    lamcap results export --csv results.csv
    lamcap results export --csv max_recall.csv --table max_recall --db out/results.sqlite
    lamcap results transitions --db docs/measurements/data/*.sqlite \
        --out docs/measurements/capacity.csv \
        --op-vs-dp docs/measurements/op_vs_dp.csv src/lamcap/experiments/data/op_vs_dp.csv
    lamcap figures --out figures/
    lamcap reproduce --quick --out lamcap-reproduce

Bad input (unknown sweep parameters, empty grids, d or κ out of range, an
unreachable scheduler, a database of an incompatible version) ends with a
one-line message and exit code 2 before anything is written.  Ctrl-C (SIGINT)
stops a sweep with exit code 130 and SIGTERM with 143, after ending its worker
processes; rerunning the same command resumes it.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_DB_HELP = "results database (default results.sqlite)"

_SWEEP_FLAGS = {
    "d": "dims",
    "kappa": "kappas",
    "model": "models",
    "embeddings": "embeddings",
    "method": "methods",
    "p_grid": "p_grid",
    "loads": "loads",
    "seeds": "seeds_per_point",
    "seed": "seed",
    "raw_margin": "raw_margin",
    "max_seconds": "max_seconds",
    "rounds": "rounds",
    "name": "name",
}


def _add_execution_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("execution")
    group.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes (default: all usable CPUs; 0: in-process)",
    )
    where = group.add_mutually_exclusive_group()
    where.add_argument(
        "--dask-local",
        action="store_true",
        help="run on a Dask LocalCluster of --workers process workers",
    )
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run on an existing Dask cluster (workers must have lamcap)",
    )
    group.add_argument(
        "--connect-timeout",
        type=_positive_seconds,
        default=5.0,
        metavar="SECONDS",
        help="how long to wait for the --scheduler (default 5)",
    )
    group.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr (the final summary is still printed)",
    )


def _positive_seconds(text: str) -> float:
    """A finite number of seconds > 0 (checked when parsed, whatever else the command does)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0.0):
        msg = f"must be a finite number of seconds > 0, got {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _executor(arguments: argparse.Namespace) -> Any:
    """The executor the execution flags ask for (a context manager)."""
    from lamcap.experiments._executors import open_executor  # noqa: PLC0415 - only when the command runs

    return open_executor(
        workers=arguments.workers,
        dask_local=arguments.dask_local,
        scheduler=arguments.scheduler,
        connect_timeout=arguments.connect_timeout,
    )


def _store_errors(
    handler: Callable[[argparse.Namespace], int],
) -> Callable[[argparse.Namespace], int]:
    """A backstop for the handlers reading or writing results databases: a SQLite error the
    store did not turn into a ``ValueError`` naming its file still ends in one line, exit 2."""

    @functools.wraps(handler)
    def guarded(arguments: argparse.Namespace) -> int:
        import sqlite3  # noqa: PLC0415 - only when the command runs

        try:
            return handler(arguments)
        except sqlite3.DatabaseError as error:
            msg = (
                f"a results database cannot be read (SQLite: {error}); check it with "
                "`sqlite3 FILE 'PRAGMA integrity_check'`, restore it from a copy or rerun the sweep"
            )
            raise ValueError(msg) from error

    return guarded


def _register_sweep(subparsers: Any) -> None:
    from lamcap.experiments._sweep import METHODS, MODELS  # noqa: PLC0415 - choices of the parser, loaded as it is built
    from lamcap.problems import EMBEDDINGS  # noqa: PLC0415 - choices of the parser, loaded as it is built

    parser = subparsers.add_parser(
        "sweep",
        help="empirical capacity sweep (resumable, local processes or Dask)",
        description="Solve random instances around the capacity transition and store every "
        "result in a resumable SQLite database.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=None,
        help="JSON file with sweep parameters (the Sweep fields; flags override it)",
    )
    parser.add_argument(
        "--d", type=int, nargs="+", default=None, help="dimensions d (whole numbers 2..1024)"
    )
    parser.add_argument(
        "--kappa", type=float, nargs="+", default=None, help="rank ratios κ in (0, 1] (default 1)"
    )
    parser.add_argument(
        "--model",
        nargs="+",
        choices=MODELS,
        default=None,
        metavar="MODEL",
        help=f"problem models, one or more of {', '.join(MODELS)} (default decoupled)",
    )
    parser.add_argument(
        "--embeddings",
        nargs="+",
        choices=EMBEDDINGS,
        default=None,
        metavar="EMBEDDINGS",
        help="how inputs and outputs are drawn, one or more of gaussian (entries N(0, 1/d)), "
        "sphere (uniform on the unit sphere); stored per row (default gaussian)",
    )
    parser.add_argument(
        "--method",
        nargs="+",
        choices=METHODS,
        default=None,
        metavar="METHOD",
        help=f"solver methods, one or more of {', '.join(METHODS)}; hebbian measures the "
        "Hebbian rule's perfect recall (default auto)",
    )
    grid = parser.add_mutually_exclusive_group()
    grid.add_argument(
        "--p-grid",
        type=int,
        nargs="+",
        default=None,
        help="fixed values of p, outputs per association and number of associations (n = p) "
        "(default: adaptive refinement)",
    )
    grid.add_argument(
        "--loads",
        type=float,
        nargs="+",
        default=None,
        help="fixed loads α = p log p / d², converted to the nearest p at each d",
    )
    parser.add_argument(
        "--seeds", type=int, default=None, help="random instances per (cell, p) (default 8)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="sweep seed from which every instance seed derives (default 0)",
    )
    parser.add_argument(
        "--raw-margin",
        type=float,
        default=None,
        help="right-hand side c > 0 of the raw recall constraints (target score minus any "
        "other score >= c, raw score units); a scale of W only, the verdict does not depend "
        "on it (default 1; stored in the database column 'margin'; not the theory's margin "
        "m, docs/vocabulary.md)",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="time limit per instance in seconds; a solve that hits it is stored as "
        "undecided (default: none)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        help="adaptive refinement rounds after the bracket (default 3)",
    )
    parser.add_argument(
        "--name", default=None, help="label stored with the results (default sweep)"
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=Path("results.sqlite"),
        help=_DB_HELP,
    )
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N disjoint slices of a fixed-grid sweep (--p-grid or "
        "--loads), e.g. for job arrays; merge the stores with `lamcap results merge`",
    )
    parser.add_argument("--trial", default=None, help=argparse.SUPPRESS)
    _add_execution_flags(parser)
    parser.set_defaults(handler=_sweep)


def _load_trial(spec: str | None) -> Callable[..., Any]:
    from lamcap.experiments._trials import solver_trial  # noqa: PLC0415 - only when the command runs

    if spec is None:
        return solver_trial
    module_name, _, name = spec.partition(":")
    try:
        return getattr(importlib.import_module(module_name), name)  # type: ignore[no-any-return]
    except (ImportError, AttributeError):
        msg = f"trial must be module:function, got {spec!r}"
        raise ValueError(msg) from None


def _build_sweep(arguments: argparse.Namespace) -> Any:
    from lamcap.experiments._sweep import Sweep  # noqa: PLC0415 - only when the command runs

    mapping: Any = {}
    if arguments.config is not None:
        try:
            mapping = json.loads(arguments.config.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as error:
            msg = f"cannot read sweep config {str(arguments.config)!r}: {error}"
            raise ValueError(msg) from None
        if not isinstance(mapping, dict):
            msg = f"sweep config must be a JSON object, got {type(mapping).__name__}"
            raise ValueError(msg)
    for flag, name in _SWEEP_FLAGS.items():
        value = getattr(arguments, flag)
        if value is not None:
            mapping[name] = value
    if "dims" not in mapping:
        msg = "give the dimensions with --d (or 'dims' in --config)"
        raise ValueError(msg)
    return Sweep.from_mapping(mapping)


@_store_errors
def _sweep(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._analysis import format_fits  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._runner import run_sweep  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._store import check_store  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._sweep import parse_shard  # noqa: PLC0415 - only when the command runs

    sweep = _build_sweep(arguments)
    shard = None if arguments.shard is None else parse_shard(arguments.shard)
    if shard is not None and sweep.adaptive:
        msg = (
            "--shard needs a fixed grid (--p-grid or --loads): an adaptive sweep plans each "
            "round from the previous one; run it on one machine or a Dask cluster"
        )
        raise ValueError(msg)
    trial = _load_trial(arguments.trial)
    check_store(arguments.db)
    try:
        with _executor(arguments) as executor:
            outcome = run_sweep(
                sweep,
                arguments.db,
                executor=executor,
                trial=trial,
                progress=not arguments.quiet,
                shard=shard,
            )
    except KeyboardInterrupt as stop:
        return _stopped(stop)
    label = "" if shard is None else f"shard {shard[0]}/{shard[1]}: "
    print(
        f"{label}{outcome.ran} instances solved, {outcome.skipped} already stored "
        f"({outcome.seconds:.1f} s) -> {arguments.db}"
    )
    if shard is not None:
        print("fits of this shard's instances only; merge the shards with `lamcap results merge`")
    print(format_fits(outcome.fits))
    return 0


def _stopped(stop: KeyboardInterrupt) -> int:
    """Message and exit code of a sweep stopped by SIGTERM (143) or Ctrl-C / SIGINT (130)."""
    from lamcap.experiments._executors import Terminated  # noqa: PLC0415 - only when the command runs

    how, code = (
        ("terminated (SIGTERM)", 143) if isinstance(stop, Terminated) else ("interrupted", 130)
    )
    print(
        f"lamcap sweep: {how}; worker processes ended, finished instances are stored; "
        "rerun the same command to resume",
        file=sys.stderr,
    )
    return code


def _register_results(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "results",
        help="summarise, export or merge results databases",
        description="Summarise, export or merge the SQLite results databases of `lamcap sweep`.",
    )
    actions = parser.add_subparsers(
        dest="action",
        metavar="{summary,transitions,export,merge}",
        required=True,
        help="what to do",
    )
    export = actions.add_parser(
        "export",
        help="write every stored instance to CSV or Parquet",
        description="Write every stored instance (one row per instance) of one table to CSV or "
        "Parquet: the sweeps' feasibility solves (--table trials, the default) or the max-recall "
        "solves of the partial-recall claim (--table max_recall).",
    )
    target = export.add_mutually_exclusive_group(required=True)
    target.add_argument("--csv", type=Path, default=None, help="CSV file to write")
    target.add_argument(
        "--parquet", type=Path, default=None, help="Parquet file to write (needs pyarrow)"
    )
    export.add_argument("--db", type=Path, default=Path("results.sqlite"), help=_DB_HELP)
    export.add_argument(
        "--table",
        choices=("trials", "max_recall"),
        default="trials",
        help="which solves: the sweeps' instances (trials, default) or the max-recall solves "
        "(max_recall: certified bounds recall_lower <= R* <= recall_upper per instance)",
    )
    export.set_defaults(handler=_export)
    summary = actions.add_parser(
        "summary",
        help="fitted transitions next to the theory",
        description="Print a Markdown table of the fitted transitions (p_c with 95% intervals) "
        "next to the finite-size theory, how many infeasible verdicts are proven exactly "
        "(gamma* <= 0) or only qualified (gamma* <= epsilon), and the max-recall solves "
        "(mean certified bracket of the accuracy next to the RS law).\n\n" + SUMMARY_COLUMNS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_databases(summary)
    summary.set_defaults(handler=_summary)
    _register_transitions(actions)
    merge = actions.add_parser(
        "merge",
        help="merge the stores of the shards of one sweep into one",
        description="Merge results databases of one sweep (the shards of a job array) into OUT. "
        "Idempotent: instances already in OUT are skipped. Stores of different sweeps or "
        "schema versions are refused before anything is written.",
    )
    merge.add_argument("out", type=Path, metavar="OUT", help="merged database (created if missing)")
    merge.add_argument(
        "sources",
        type=Path,
        nargs="+",
        metavar="SHARD",
        help="databases to merge into OUT (SQLite's -wal/-shm/-journal side files are ignored)",
    )
    merge.set_defaults(handler=_merge)


@_store_errors
def _merge(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._store import SIDE_FILE_SUFFIXES, merge_stores  # noqa: PLC0415 - only when the command runs

    sources = [path for path in arguments.sources if not path.name.endswith(SIDE_FILE_SUFFIXES)]
    for path in arguments.sources:
        if path not in sources:  # shards/* also matches SQLite's side files of the shards
            print(
                f"ignoring {path}: SQLite's side file of a database, read with it", file=sys.stderr
            )
    if not sources:
        msg = f"no results database among the SHARD files {[str(p) for p in arguments.sources]}"
        raise ValueError(msg)
    outcome = merge_stores(arguments.out, sources)
    print(
        f"{outcome.added} rows added, {outcome.present} already present, from "
        f"{len(sources)} stores -> {arguments.out}"
    )
    for name, absent in outcome.missing_shards.items():
        print(f"sweep {name!r}: shards {', '.join(absent)} not merged yet")
    return 0


@_store_errors
def _export(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._store import ResultsStore  # noqa: PLC0415 - only when the command runs

    table = arguments.table
    with ResultsStore(arguments.db, readonly=True) as store:
        if arguments.csv is not None:
            count, path = store.export_csv(arguments.csv, table=table), arguments.csv
        else:
            count, path = store.export_parquet(arguments.parquet, table=table), arguments.parquet
        others = {name: store.count(table=name) for name in ("trials", "max_recall")}
    print(f"{count} rows -> {path}")
    for name, left in others.items():
        if name != table and left:
            print(f"{left} rows of table {name} not exported (--table {name})")
    return 0


_PROVEN_HELP = (
    "count an infeasible verdict only when its certificate proves gamma* <= 0 exactly; "
    "qualified ones (only gamma* <= epsilon) and those of databases written before lamcap "
    "stored the proof (unknown) are left out of the fits"
)


def _add_databases(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        type=Path,
        nargs="+",
        default=[Path("results.sqlite")],
        metavar="DB",
        help="results databases, read-only; an instance stored in several counts once "
        "(default results.sqlite)",
    )
    parser.add_argument("--proven-only", action="store_true", help=_PROVEN_HELP)


def _proof_table(databases: list[Path]) -> str:
    from lamcap.experiments._analysis import infeasible_proofs  # noqa: PLC0415 - only when the command runs

    counts = infeasible_proofs(databases)
    if not counts:
        return ""
    lines = [
        "| d | κ | model | method | infeasible: proven γ* ≤ 0 | only γ* ≤ ε | unknown |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for cell, count in counts.items():
        lines.append(
            f"| {cell.d} | {cell.kappa:g} | {cell.model} | {cell.method} | {count.exact} | "
            f"{count.bounded} | {count.unknown} |"
        )
    note = (
        "unknown: stored before lamcap recorded the proof (schema version 1); Hebbian cells "
        "are not listed (their failures carry no certificate)"
    )
    return "\n".join(lines) + "\n\n" + note


@_store_errors
def _summary(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._analysis import transition_table  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._recall_fraction import recall_summary  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._report import markdown_table  # noqa: PLC0415 - only when the command runs

    rows = transition_table(arguments.db, proven_only=arguments.proven_only)
    print(markdown_table(rows))
    print()
    print(SUMMARY_COLUMNS)
    proofs = _proof_table(arguments.db)
    if proofs:
        print()
        print(proofs)
    if arguments.proven_only:
        print("\nfits count only infeasible verdicts proven exactly (--proven-only)")
    recall = recall_summary(arguments.db)
    if recall:
        print("\nmax-recall solves (partial-recall claim):\n")
        print(recall)
        print()
        print(RECALL_COLUMNS)
    return 0


RECALL_COLUMNS = """\
columns: per (d, p, model, embeddings, time limit), the instances and the mean certified
bracket [mean R_-/n, mean R_+/n] of lamcap.solve(instance, objective="max_recall"), which
holds the mean best accuracy R*/n; "stopped": solves the time limit stopped;
"upper exact": upper bounds whose certificates were all proven exact; "RS law f" is
lamcap.best_accuracy(d, p), the replica-symmetric law (asymptotic, an upper estimate)."""

SUMMARY_COLUMNS = """\
columns: p_c [95% CI] is the measured transition (the fitted 50% point in p, with its
profile-likelihood interval) and alpha_c = p_c log p_c / d^2 the load there;
"theory p" is the threshold lamcap.critical_p(d, kappa), where p E[C_p] equals the
squared width (Hebbian rule: its d -> infinity law); "finite-size p" is the 50% point
of the finite-size law at this d (the Crofton curve lamcap.feasibility_probability;
Hebbian rule: the finite-d law P_1^n); "gap" is p_c / reference - 1, the reference
being "theory p" (Hebbian rule: "finite-size p")."""


_TRANSITIONS_DESCRIPTION = """\
Fit every cell (d, κ, model, method) of the results databases with its finite-size law
moved along log p (Crofton curve, P₁ⁿ for the Hebbian rule; steepness within ±20%; p_c
with its 95% profile-likelihood interval, coverage measured in
docs/measurements/capacity.md) and write the transition tables:

  --out       d,kappa,model,method,p_c,p_c_low,p_c_high,instances,embeddings  (every cell)
  --op-vs-dp  d,model,p_c,p_c_low,p_c_high,instances,undecided  (κ = 1, method auto,
              d with both models; instances = decided ones)

Rows are sorted by d, κ, model, method; p_c and its bounds have three decimals. Cells
whose data do not straddle one half are left out (listed on stderr). Without --out and
--op-vs-dp the capacity table goes to stdout. --check writes nothing and exits 1 when a
file differs from what the databases give.
"""


def _register_transitions(actions: Any) -> None:
    parser = actions.add_parser(
        "transitions",
        help="write (or --check) the CSV tables of fitted transitions",
        description=_TRANSITIONS_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_databases(parser)
    parser.add_argument(
        "--out", type=Path, default=None, metavar="CSV", help="capacity table to write"
    )
    parser.add_argument(
        "--op-vs-dp",
        type=Path,
        nargs="+",
        default=[],
        metavar="CSV",
        help="OP vs DP table to write (several paths: the same table into each, e.g. the "
        "docs copy and the package-data copy that lamcap reproduce reads)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file differs from what the databases give",
    )
    parser.set_defaults(handler=_transitions)


@_store_errors
def _transitions(arguments: argparse.Namespace) -> int:
    from lamcap.experiments import _transitions as transitions  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._analysis import cell_data  # noqa: PLC0415 - only when the command runs

    cells = cell_data(arguments.db, proven_only=arguments.proven_only)
    _, unbracketed = transitions.fitted_cells(cells)
    for cell in unbracketed:
        print(f"left out, transition not bracketed: {cell.label()}", file=sys.stderr)
    outputs = [] if arguments.out is None else [(arguments.out, transitions.capacity_csv(cells))]
    if arguments.op_vs_dp:
        pairs = transitions.op_vs_dp_csv(cells)
        outputs += [(path, pairs) for path in arguments.op_vs_dp]
    if not outputs:
        if arguments.check:
            msg = "--check needs the files to compare: give --out and/or --op-vs-dp"
            raise ValueError(msg)
        sys.stdout.write(transitions.capacity_csv(cells))
        return 0
    if arguments.check:
        return _check_tables(outputs)
    for path, _ in outputs:
        if not path.resolve().parent.is_dir():
            msg = f"folder of --out/--op-vs-dp {str(path)!r} does not exist"
            raise ValueError(msg)
    for path, text in outputs:
        path.write_text(text, encoding="utf-8")
        print(f"{text.count(chr(10)) - 1} transitions -> {path}")
    return 0


def _check_tables(outputs: list[tuple[Path, str]]) -> int:
    from lamcap.experiments._transitions import compare_file  # noqa: PLC0415 - only when the command runs

    stale = 0
    for path, text in outputs:
        difference = compare_file(path, text)
        if difference:
            stale += 1
            print(f"{path}: differs from the databases", file=sys.stderr)
            print("\n".join(difference[:40]), file=sys.stderr)
        else:
            print(f"{path}: up to date")
    return 1 if stale else 0


_FIGURES_DESCRIPTION = """\
Draw the five figures (PNG and PDF) from a results database of `lamcap sweep`:

  1  fraction of storable instances against the load, with the finite-size laws
  2  critical load against the rank ratio κ
  3  critical load against the dimension d, with the finite-size prediction and 1/2
  4  singular values of solutions near capacity against the theoretical densities
  5  normalised scores at capacity, optimal W against the Hebbian rule

Figures 1-3 use the stored sweep; figures 4-5 solve fresh instances near capacity
(16 per κ at d = 32, or 6 at d = 12 with --quick) on the chosen executor.
"""


def _register_figures(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "figures",
        help="draw the figures from a results database",
        description=_FIGURES_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--db", type=Path, default=Path("results.sqlite"), help=_DB_HELP)
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("figures"),
        metavar="DIR",
        help="folder for the PNG and PDF files (default figures)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small solution samples for figures 4-5 (d = 12, 6 instances per κ)",
    )
    _add_execution_flags(parser)
    parser.set_defaults(handler=_figures)


def _figures(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._store import check_store  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments.figures import draw_all  # noqa: PLC0415 - only when the command runs

    check_store(arguments.db, must_exist=True)
    with _executor(arguments) as executor:
        paths = draw_all(
            arguments.db,
            arguments.out,
            executor=executor,
            quick=arguments.quick,
            progress=not arguments.quiet,
        )
    for path in paths:
        print(path)
    return 0


def _register_reproduce(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "reproduce",
        help="theory tables, sweeps, figures and a report judging every claim",
        description="Reproduce the claims of arXiv:2605.10795: theory tables, adaptive "
        "sweeps, solutions near capacity, the figures and report.md, where every claim has a "
        "finite-size prediction, a measurement and a verdict: consistent when the familywise "
        "interval of (measured - predicted), widened by the law's own error, lies inside "
        "+-tolerance, inconsistent when it lies wholly outside, inconclusive otherwise (the "
        "chance of any false call in a run is at most 5%).  After the planned rounds, "
        "instances are added where claims can still be decided, within --budget.  Progress "
        "goes to stderr (a bar per stage on a terminal, plain lines otherwise); --quiet "
        "hides it, never the result.",
        epilog="Runtime of --quick: measured and stated in docs/howto/reproduce.md "
        "(section 'Runtime'); each report records its own.",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes (d <= 16, Hebbian d <= 64); see 'Runtime' below",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("lamcap-reproduce"),
        help="output directory (default lamcap-reproduce)",
    )
    parser.add_argument(
        "--tolerance",
        action="append",
        default=[],
        metavar="QUANTITY=VALUE",
        help="tolerance of one quantity, repeatable (defaults: transition=0.02, ratio=0.02, "
        "spectrum=0.05, score=0.05, recall=0.01, accuracy=0.01; relative ones are "
        "fractions); the report and claims.json list the tolerances used",
    )
    parser.add_argument(
        "--budget",
        default=None,
        metavar="CPU_SECONDS",
        help="CPU seconds (summed over workers, as each instance measured them) spent on "
        "instances added after the planned rounds to cells whose claims can still be decided; "
        "0: none (default 900 with --quick, 28800 without)",
    )
    _add_execution_flags(parser)
    parser.set_defaults(handler=_reproduce)


def _budget(text: str | None) -> float | None:
    """The ``--budget`` in CPU seconds (None: the plan's default); ValueError names it."""
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 0.0):
        msg = f"--budget must be a finite number of CPU seconds >= 0, got {text!r}"
        raise ValueError(msg)
    return value


def _reproduce(arguments: argparse.Namespace) -> int:
    from lamcap.experiments._reproduce import reproduce, summary  # noqa: PLC0415 - only when the command runs
    from lamcap.experiments._verdicts import parse_tolerance  # noqa: PLC0415 - only when the command runs

    tolerances = dict(parse_tolerance(text) for text in arguments.tolerance)
    budget = _budget(arguments.budget)
    try:
        report = reproduce(
            arguments.out,
            quick=arguments.quick,
            workers=arguments.workers,
            dask_local=arguments.dask_local,
            scheduler=arguments.scheduler,
            progress=not arguments.quiet,
            connect_timeout=arguments.connect_timeout,
            tolerances=tolerances,
            budget=budget,
        )
    except KeyboardInterrupt:
        print("lamcap reproduce: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    print(f"claims: {summary(report)}")
    print(f"report -> {report}")
    return 0


def register(subparsers: Any) -> None:
    """Add the experiment sub-commands to the ``lamcap`` parser."""
    _register_sweep(subparsers)
    _register_results(subparsers)
    _register_figures(subparsers)
    _register_reproduce(subparsers)
