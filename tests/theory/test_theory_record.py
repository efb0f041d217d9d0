"""The public theory values are as before the import-circle and cost-model refactors (issue 35).

``data/theory_record.json`` was written by ``data/make_theory_record.py`` from the
code before the shared pieces of ``lamcap.theory._capacity``, ``_partial_recall``,
``_unit_norm``, ``_cone`` and ``_crofton`` moved down into lower modules (its commit
is in the file).  Moving code must not change a value: on the host the record was
written on (same CPU target of numba, same numpy, scipy and numba) every value must
be identical bit for bit.  Elsewhere the last bits may differ (numba compiles for the
host CPU, BLAS and numpy pick kernels by CPU), so there the values must agree to
1e-12 relative, or 1e-15 absolute for the probabilities near 0 (far below the stated
precision of every function, 1e-7 and up).

The grid (module docstring of the maker): ``d`` in 8, 12, 16, 32, 64, 256, Gaussian
and unit-norm embeddings, ``critical_p`` at accuracy 1 and 0.99, and
``feasibility_probability``, ``best_accuracy``, ``statistical_dimension`` (and,
for Gaussian embeddings, ``capacity``, ``information_per_parameter`` and the rank
ratio 0.5) at the integers nearest 0.9, 1, 1.1 and 1.5 times ``critical_p``.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

DATA = Path(__file__).with_name("data")
_SPEC = importlib.util.spec_from_file_location("make_theory_record", DATA / "make_theory_record.py")
assert _SPEC is not None
assert _SPEC.loader is not None
maker = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(maker)

RECORD = json.loads((DATA / "theory_record.json").read_text(encoding="utf-8"))
CELLS = [(d, embeddings) for d in maker.DIMENSIONS for embeddings in maker.EMBEDDINGS]


def test_record_covers_the_grid() -> None:
    assert len(RECORD["commit"]) == 40
    assert RECORD["theory_tree_clean"]
    names = [maker.cell_name(*cell) for cell in CELLS] + [maker.EXTREMES]
    assert sorted(RECORD["values"]) == sorted(names)


def _differences(
    recorded: dict[str, list[str]], computed: dict[str, list[str]], exact: bool
) -> list[str]:
    """The cases whose computed values differ from the recorded ones (bit for bit if exact)."""
    problems = []
    for name, values in recorded.items():
        found = computed[name]
        if exact:
            same = found == values
        else:
            same = len(found) == len(values) and all(
                math.isclose(float.fromhex(a), float.fromhex(b), rel_tol=1e-12, abs_tol=1e-15)
                for a, b in zip(found, values, strict=True)
            )
        if not same:
            shown = [float.fromhex(v) for v in found], [float.fromhex(v) for v in values]
            problems.append(f"{name}: computed {shown[0]}, recorded {shown[1]}")
    return problems


@pytest.mark.parametrize(("d", "embeddings"), CELLS)
def test_theory_values_are_as_recorded(d: int, embeddings: str) -> None:
    """Every value of one cell of the grid, recomputed now, equals the recorded one."""
    recorded = RECORD["values"][maker.cell_name(d, embeddings)]
    calls = maker.cases(d, embeddings)
    # the names hold the p values, which follow from critical_p: equal names, equal p
    assert sorted(calls) == sorted(recorded)
    computed = {name: maker._hex(call()) for name, call in calls.items()}
    exact = maker.host() == RECORD["host"]
    assert not _differences(recorded, computed, exact)


def test_root_searches_at_their_ends_are_as_recorded() -> None:
    """``critical_p`` at tiny and huge ``d`` and far-from-1 accuracies equals the record."""
    recorded = RECORD["values"][maker.EXTREMES]
    calls = maker.extreme_cases()
    assert sorted(calls) == sorted(recorded)
    computed = {name: maker._hex(call()) for name, call in calls.items()}
    assert not _differences(recorded, computed, maker.host() == RECORD["host"])
