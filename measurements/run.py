"""Regenerate the data of one documentation page: ``python measurements/run.py PAGE``.

Each script in ``measurements/`` produces the data of one page of the documentation
(a CSV, a figure or a table under ``docs/``) and is named for it:
``op_vs_dp_solutions.py`` writes ``docs/measurements/op_vs_dp_solutions.csv``,
``solvers_at_scale_memory.py`` measures the memory table of
``docs/solvers-at-scale.md``.  This runner holds, per page, the commands that
produced the committed data, in order, with the arguments the page states::

    python measurements/run.py                    # list the pages and their commands
    python measurements/run.py capacity --dry-run # print one page's commands
    python measurements/run.py capacity           # run them (hours: see the page)
    python measurements/run.py op_vs_dp --step 1  # run only the first command

Inputs are the results databases committed under ``docs/measurements/data/``
(``lamcap sweep`` writes them; each page gives its sweep commands); files that
are not committed (simulated cells, saved certificates) go to ``--work``.  The
scripts that append to a CSV resume where they stopped: delete the CSV to measure
it anew.  Performance comparisons are not here but in ``benchmarks/``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = "docs/measurements/data"
OUT = "docs/measurements"

# the problems between the original and the decoupled one (docs/theory/original-problem.md)
_BETWEEN_OP_AND_DP = (
    "redrawn:0 redrawn:0.05 redrawn:0.1 redrawn:0.25 redrawn:0.5 redrawn:0.75 redrawn:1"
    " random-targets unused:0.1 unused-decoupled:0.1 unused:0.37 unused-decoupled:0.37"
    " shared-directions shared-lengths rotated-original shared:1 shared:0.5 rotated-shared"
    " whitened-shared unit-norm unit-norm-decoupled"
)
_BETWEEN_OP_AND_DP_AT_32 = (
    "redrawn:0 redrawn:0.05 redrawn:0.1 redrawn:0.25 redrawn:1 random-targets unused:0.37"
    " unused-decoupled:0.37 shared-directions shared-lengths rotated-original shared:1"
    " whitened-shared unit-norm unit-norm-decoupled"
)

# page name -> (the page, its commands); "{work}" is the folder for uncommitted files,
# "lamcap" runs the installed command line, a leading "*.py" a script of this folder.
PAGES: dict[str, tuple[str, list[str]]] = {
    "capacity": (
        "docs/measurements/capacity.md",
        [
            (
                f"lamcap results transitions --db {DATA}/*.sqlite --out {OUT}/capacity.csv"
                f" --op-vs-dp {OUT}/op_vs_dp.csv src/lamcap/experiments/data/op_vs_dp.csv"
            ),
            "pc_coverage.py --d 16 --cells 1000 --csv {work}/cells_16.csv --max-seconds 1e9",
            "pc_coverage.py --d 64 --cells 1000 --csv {work}/cells_64.csv --max-seconds 1e9",
            (
                "pc_coverage.py --csv {work}/cells_16.csv {work}/cells_64.csv"
                f" --summary {OUT}/pc_coverage.csv"
            ),
            (
                f"hebbian_mc.py --instances 40000 --sweep-instances 4000 --csv {OUT}/hebbian_mc.csv"
                f" --summary {OUT}/hebbian_mc_transition.csv"
            ),
        ],
    ),
    "nichani_protocol": (
        "docs/howto/nichani-protocol.md",
        [
            "nichani_protocol.py --dims 8 11 16 22 32 45 64 --seeds 5",
            "nichani_protocol.py --budget-check 4",
            f"nichani_protocol.py --summary {OUT}/nichani_protocol.csv",
            f"nichani_protocol.py --plot {OUT}/nichani_protocol.png",
            "nichani_protocol.py --solver 10 --dims 8 11 16 --seeds 5",
            "nichani_protocol.py --solver 40 --dims 22 32 --seeds 5",
            "nichani_protocol.py --solver 90 --dims 45 64 --seeds 3",
            f"nichani_protocol.py --solver 10 --summary {OUT}/nichani_protocol_solver.csv",
        ],
    ),
    "partial_recall": (
        "docs/theory/partial-recall.md",
        ["unit_norm_recall_model.py"],
    ),
    "best_accuracy": (
        "docs/measurements/recall-fraction.md",
        [
            "recall_fraction.py --dims 16 --start hinge --max-seconds 15",
            "recall_fraction.py --dims 32 --loads 1.0 1.25 1.5 2.0 --start hinge --max-seconds 40",
            "recall_fraction.py --dims 16 --no-adam --max-seconds 15",
            "recall_fraction.py --dims 32 --loads 1.25 1.5 2.0 --no-adam --max-seconds 30",
            (
                "recall_fraction.py --dims 64 --loads 1.0 1.25 --max-seconds 100"
                " --adam-max-seconds 50"
            ),
            (
                "recall_fraction.py --dims 64 --loads 1.5 2.0 --models original"
                " --max-seconds 100 --adam-max-seconds 50"
            ),
            (
                "recall_fraction.py --dims 64 --loads 1.5 --models decoupled --no-adam"
                " --max-seconds 160"
            ),
            "recall_fraction.py --dims 16 --embeddings sphere --loads 1.25 2.0 --max-seconds 15",
            "recall_fraction.py --summary",
            "recall_fraction_exact.py --loads 1.25 1.5 --seeds 6 --time-limit 120",
        ],
    ),
    "unit_norm": (
        "docs/theory/unit-norm.md",
        [
            (
                f"unit_norm_judge.py --out {DATA}/unit_norm_judge.jsonl --dims 8 12 16"
                " --factors 0.97 1.0 1.03 1.06 1.09 1.12 --seeds 16"
            ),
            (
                f"unit_norm_judge.py --out {DATA}/unit_norm_judge.jsonl --dims 8 12 16"
                " --models original --factors 1.0 1.03 1.06 1.09 1.12 1.15 --seeds 16"
            ),
            (
                f"unit_norm_judge.py --out {DATA}/unit_norm_judge.jsonl --dims 24 32"
                " --factors 1.0 1.04 1.08 --seeds 12"
            ),
            (
                f"unit_norm_judge.py --out {DATA}/unit_norm_judge.jsonl"
                f" --fit {OUT}/unit_norm_judge.csv"
            ),
            "unit_norm_theory.py",
            "unit_norm_figure.py",
        ],
    ),
    "hebbian": (
        "docs/theory/hebbian.md",
        [
            "hebbian_all_error.py --dims 8 12 16 24 32 48 64 --instances 100000 --points 20",
            "hebbian_all_error.py --summary",
            "hebbian_all_pairs.py --instances 30000",
            "hebbian_all_pairs.py --summary",
        ],
    ),
    "op_vs_dp": (
        "docs/measurements/op_vs_dp.md",
        [
            f"op_vs_dp.py {DATA}/*.sqlite --draws 300 --seed 1",
            (
                f"op_vs_dp_ratio_coverage.py {DATA}/*.sqlite --draws 300 --seed 1"
                f" --cutoffs {OUT}/op_vs_dp_ratio.csv"
            ),
            f"op_vs_dp_solutions.py --d 16 24 32 --seeds 10 --csv {OUT}/op_vs_dp_solutions.csv",
            f"op_vs_dp_solutions.py --d 48 --seeds 8 --csv {OUT}/op_vs_dp_solutions.csv",
            (
                "op_vs_dp_mechanism.py --variant whitened --d 16 24 --seeds 20"
                f" --csv {DATA}/whitened.csv --db {DATA}/opdp_small.sqlite"
            ),
            (
                "op_vs_dp_mechanism.py --variant shared-competitors --d 16 --seeds 20"
                f" --csv {DATA}/shared.csv --db {DATA}/opdp_small.sqlite"
            ),
            (
                "op_vs_dp_mechanism.py --variant shared-competitors --d 32 --seeds 12"
                f" --csv {DATA}/shared.csv --db {DATA}/opdp_small.sqlite"
            ),
        ],
    ),
    "original_problem": (
        "docs/theory/original-problem.md",
        [
            (
                "original_problem_decomposition.py run --d 16 24 --seeds 20 --variants"
                f" {_BETWEEN_OP_AND_DP} --csv {DATA}/original_decomposition.csv"
            ),
            (
                "original_problem_decomposition.py run --d 32 --seeds 20 --variants"
                f" {_BETWEEN_OP_AND_DP_AT_32} --csv {DATA}/original_decomposition.csv"
            ),
            (
                f"original_problem_decomposition.py report --csv {DATA}/original_decomposition.csv"
                f" --db {DATA}/opdp_small.sqlite --out {OUT}/original_decomposition.csv"
            ),
            (
                f"original_problem_decomposition.py figure --fits {OUT}/original_decomposition.csv"
                f" --out {OUT}/original_decomposition.png"
            ),
            (
                "original_problem_probes.py metric-count --d 16 24 --instances 400"
                f" --per-instance 20 --csv {OUT}/original_metric_count.csv"
            ),
            (
                f"original_problem_probes.py overlap --d 16 24 --instances 20 --variants"
                f" {_BETWEEN_OP_AND_DP} --csv {OUT}/original_overlap.csv"
            ),
            (
                "original_problem_probes.py reciprocity --d 16 24 --seeds 8"
                f" --csv {OUT}/original_reciprocity.csv"
            ),
            (
                "original_problem_probes.py cell-sizes --d 16 24 32 --clouds 20"
                f" --csv {OUT}/original_cell_sizes.csv"
            ),
        ],
    ),
    "spectrum": (
        "docs/measurements/spectrum.md",
        [
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 48,64 --fractions 0.95 --seeds 0-40"
                " --per-point 16 --save {work}/W"
            ),
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 64 --fractions 0.95 --seeds 16-40"
                " --per-point 24 --save {work}/W"
            ),
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 48 --fractions 0.95 --seeds 16-40"
                " --per-point 32 --save {work}/W"
            ),
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 32 --fractions 0.95 --seeds 0-40"
                " --per-point 16 --save {work}/W"
            ),
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 8,12,16,24 --fractions 0.95"
                " --seeds 0-40 --per-point 8 --save {work}/W"
            ),
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 16,24 --fractions 0.5,0.8,0.9"
                " --seeds 0-40 --per-point 8"
            ),
            "spectrum_finite_size_report.py --fit",
            (
                "spectrum_finite_size.py --tolerance 1e-4 --d 20,28,40,56"
                " --fractions 0.6,0.7,0.8,0.85,0.95 --seeds 3000-3099 --per-point 16"
                " --csv docs/measurements/spectrum_fresh.csv"
            ),
            "spectrum_fresh_report.py",
        ],
    ),
    "reproduce": (
        "docs/howto/reproduce.md",
        [
            f"verdict_rates.py --runs 1000 --out {OUT}/verdict_rates.csv",
            (
                f"verdict_rates.py --plot --out {OUT}/verdict_rates.csv"
                f" --figure {OUT}/verdict_rates.png"
            ),
            "reproduce_false_alarms.py --runs 300 --first-seed 5001",
        ],
    ),
    "solvers-at-scale": (
        "docs/solvers-at-scale.md",
        [
            "solvers_at_scale_memory.py --dims 32 48 64 --models decoupled original",
            "solvers_at_scale_memory.py --dims 96 --models decoupled --seeds 0",
            "solvers_at_scale_proof.py solve --d 96 --factor 1.07 --seed 0 --out {work}/d96.npz",
            "solvers_at_scale_proof.py prove {work}/d96.npz",
            (
                "solvers_at_scale_recall.py --dims 12 16 --loads 1.2 1.5 --seeds 4 --starts l1"
                f" --max-seconds 120 --csv {OUT}/solvers_at_scale_recall.csv"
            ),
            f"solvers_at_scale_recall.py --summary {OUT}/solvers_at_scale_recall.csv",
            (
                "solvers_at_scale_recall.py --dims 12 16 --loads 1.2 1.5 --seeds 1"
                " --starts farkas adam l1 --max-seconds 120"
                f" --csv {OUT}/solvers_at_scale_recall_strategies.csv"
            ),
        ],
    ),
    "unit-norm": (
        "docs/theory/unit-norm.md",
        [
            "unit_norm_judge.py --out {work}/unit_norm.jsonl --dims 8 12 16 --seeds 16",
            "unit_norm_judge.py --out {work}/unit_norm.jsonl --summary",
        ],
    ),
    "benchmarks": (
        "docs/benchmarks.md",
        ["benchmarks_undecided.py --dims 16 24 32 --seeds 4"],
    ),
}


def command_line(command: str, work: Path) -> list[str]:
    """The argument list of one command: globs expanded (sorted), ``{work}`` filled in."""
    words: list[str] = []
    for word in command.replace("{work}", str(work)).split():
        matches = (
            sorted(str(path.relative_to(ROOT)) for path in ROOT.glob(word)) if "*" in word else []
        )
        words += matches or [word]
    if words[0] == "lamcap":
        return [sys.executable, "-m", "lamcap", *words[1:]]
    return [sys.executable, str(Path("measurements") / words[0]), *words[1:]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", nargs="?", choices=sorted(PAGES), help="page to regenerate")
    parser.add_argument("--dry-run", action="store_true", help="print the commands only")
    parser.add_argument("--step", type=int, nargs="+", help="run only these commands (1-based)")
    parser.add_argument("--work", type=Path, default=Path("measurements-work"))
    arguments = parser.parse_args(argv)
    work = arguments.work.resolve()
    pages = [arguments.page] if arguments.page else sorted(PAGES)
    for page in pages:
        document, commands = PAGES[page]
        print(f"{page} ({document}):")
        for number, command in enumerate(commands, 1):
            words = command_line(command, work)
            print(f"  {number}. python {' '.join(words[1:])}", flush=True)
            if arguments.page is None or arguments.dry_run:
                continue
            if arguments.step and number not in arguments.step:
                continue
            work.mkdir(parents=True, exist_ok=True)
            subprocess.run(words, cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
