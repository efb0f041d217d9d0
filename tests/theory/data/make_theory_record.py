"""Write ``theory_record.json``: the public theory values that issue 35 must not move.

A refactor regression record (issue 35, no import circles in ``lamcap.theory``): it
was produced by the code *before* the shared pieces of ``_capacity``,
``_partial_recall``, ``_unit_norm``, ``_cone`` and ``_crofton`` moved down into
lower modules (the commit is stored in the file, and whether the work tree had
uncommitted changes), and ``tests/theory/test_theory_record.py`` checks that the
moved code gives the same numbers.  It is not a reference: the values are checked
against independent methods by the other tests of ``tests/theory``.

The grid: ``d`` in :data:`DIMENSIONS`, embeddings ``"gaussian"`` and ``"sphere"``;
``critical_p`` at accuracy 1 and 0.99 (and rank ratio 0.5 for Gaussian embeddings);
``feasibility_probability``, ``best_accuracy`` and ``statistical_dimension`` at
the integers nearest :data:`LOAD_FACTORS` times ``critical_p(d, embeddings=...)``
(for Gaussian embeddings also ``capacity`` and ``information_per_parameter``, and
the rank ratio 0.5 around ``critical_p(d, kappa=0.5)``).  Values are stored as
``float.hex`` strings (bit for bit).

Run from the repository root to rewrite the record (only when a change of these
values is intended and explained in CHANGELOG.md)::

    python tests/theory/data/make_theory_record.py
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import lamcap

RECORD = Path(__file__).with_name("theory_record.json")

DIMENSIONS = (8, 12, 16, 32, 64, 256)
EMBEDDINGS = ("gaussian", "sphere")
ACCURACIES = (1.0, 0.99)
LOAD_FACTORS = (0.9, 1.0, 1.1, 1.5)
HALF_RANK = 0.5
#: The root searches at their ends (added before the cost models of issue 35 took them
#: over): tiny and huge ``d``, accuracies far below 1, unit-norm ``d`` at its minimum.
EXTREME_DIMENSIONS = (1, 2, 3, 5, 1000, 10**6, 10**20, 10**150)
EXTREME_ACCURACIES = (1.0, 0.99, 0.5, 0.001)
#: Below 1e18 the partial root is computed; beyond, critical_p(accuracy < 1) refuses.
PARTIAL_LIMIT = 10**6
SPHERE_EXTREMES = ((4, (1.0, 0.9, 0.5)), (6, (1.0, 0.9, 0.5)))
EXTREMES = "extremes"


def _hex(values: Any) -> list[str]:
    return [float(v).hex() for v in np.ravel(np.asarray(values, dtype=np.float64))]


def _outputs(critical: float) -> list[int]:
    """The integers nearest ``LOAD_FACTORS`` times the critical p (distinct, at least 2)."""
    return sorted({max(2, round(factor * critical)) for factor in LOAD_FACTORS})


def cases(d: int, embeddings: str) -> dict[str, Callable[[], Any]]:
    """Name -> call of one cell of the grid (``d``, ``embeddings``); names hold the arguments."""
    where = f"d={d},embeddings={embeddings}"
    calls: dict[str, Callable[[], Any]] = {}
    for accuracy in ACCURACIES:
        calls[f"critical_p({where},accuracy={accuracy})"] = lambda a=accuracy: lamcap.critical_p(
            d, accuracy=a, embeddings=embeddings
        )
    outputs = _outputs(float(lamcap.critical_p(d, embeddings=embeddings)))
    calls[f"feasibility_probability({where},p={outputs})"] = lambda: lamcap.feasibility_probability(
        d, outputs, embeddings=embeddings
    )
    calls[f"best_accuracy({where},p={outputs})"] = lambda: lamcap.best_accuracy(
        d, outputs, embeddings=embeddings
    )
    if embeddings == "sphere":
        calls[f"statistical_dimension({where},p={outputs})"] = lambda: lamcap.statistical_dimension(
            outputs, d=d, embeddings="sphere"
        )
        return calls
    calls[f"statistical_dimension(p={outputs})"] = lambda: lamcap.statistical_dimension(outputs)
    calls[f"capacity(p={outputs},d={d})"] = lambda: lamcap.capacity(p=outputs, d=d)
    calls[f"information_per_parameter(d={d},p={outputs})"] = lambda: (
        lamcap.information_per_parameter(d, outputs)
    )
    rank = f"d={d},kappa={HALF_RANK}"
    for accuracy in ACCURACIES:
        calls[f"critical_p({rank},accuracy={accuracy})"] = lambda a=accuracy: lamcap.critical_p(
            d, kappa=HALF_RANK, accuracy=a
        )
    low_rank = _outputs(float(lamcap.critical_p(d, kappa=HALF_RANK)))
    calls[f"feasibility_probability({rank},p={low_rank})"] = lambda: lamcap.feasibility_probability(
        d, low_rank, kappa=HALF_RANK
    )
    calls[f"best_accuracy({rank},p={low_rank})"] = lambda: lamcap.best_accuracy(
        d, low_rank, kappa=HALF_RANK
    )
    calls[f"capacity(kappa={HALF_RANK},p={low_rank},d={d})"] = lambda: lamcap.capacity(
        HALF_RANK, p=low_rank, d=d
    )
    return calls


def extreme_cases() -> dict[str, Callable[[], Any]]:
    """Name -> call of ``critical_p`` at the ends of its root searches (:data:`EXTREME_DIMENSIONS`)."""
    calls: dict[str, Callable[[], Any]] = {}
    for d in EXTREME_DIMENSIONS:
        for accuracy in EXTREME_ACCURACIES if d <= PARTIAL_LIMIT else (1.0,):
            calls[f"critical_p(d={d},accuracy={accuracy})"] = lambda d=d, a=accuracy: (
                lamcap.critical_p(d, accuracy=a)
            )
    for accuracy in (1.0, 0.5):
        calls[f"critical_p(d=1000,kappa={HALF_RANK},accuracy={accuracy})"] = lambda a=accuracy: (
            lamcap.critical_p(1000, kappa=HALF_RANK, accuracy=a)
        )
    for d, accuracies in SPHERE_EXTREMES:
        for accuracy in accuracies:
            calls[f"critical_p(d={d},embeddings=sphere,accuracy={accuracy})"] = (
                lambda d=d, a=accuracy: lamcap.critical_p(d, accuracy=a, embeddings="sphere")
            )
    return calls


def cell_name(d: int, embeddings: str) -> str:
    """Key of one cell of the grid in the record."""
    return f"d={d},embeddings={embeddings}"


def values(dimensions: tuple[int, ...] = DIMENSIONS) -> dict[str, dict[str, list[str]]]:
    """Cell -> case -> values, computed now, as ``float.hex`` strings."""
    cells = {
        cell_name(d, embeddings): {
            name: _hex(call()) for name, call in cases(d, embeddings).items()
        }
        for d in dimensions
        for embeddings in EMBEDDINGS
    }
    cells[EXTREMES] = {name: _hex(call()) for name, call in extreme_cases().items()}
    return cells


def host() -> dict[str, str]:
    """What the last bits may depend on: the CPU numba compiles for and the library versions."""
    import llvmlite.binding
    import numba
    import scipy

    return {
        "cpu": llvmlite.binding.get_host_cpu_name(),
        "machine": platform.machine(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
    }


def main() -> None:
    """Compute the grid and write the record with the commit (and tree state) it came from."""

    def git(*arguments: str) -> str:
        return subprocess.run(
            ["git", *arguments], capture_output=True, text=True, check=True
        ).stdout.strip()

    changed = git("status", "--porcelain", "--", "src/lamcap/theory", "src/lamcap/_validation.py")
    record = {
        "commit": git("rev-parse", "HEAD"),
        "theory_tree_clean": not changed,
        "host": host(),
        "values": values(),
    }
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    count = sum(len(cell) for cell in record["values"].values())
    print(f"{count} cases written to {RECORD}", file=sys.stderr)


if __name__ == "__main__":
    main()
