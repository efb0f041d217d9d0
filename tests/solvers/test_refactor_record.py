"""The solvers answer as before the constraint-pass refactor (issue 24).

``data/refactor_record.json`` was written by ``data/make_refactor_record.py``
from the code before :mod:`lamcap.solvers._constraints` existed (its commit is
in the file).  Verdicts, proven flags, iteration counts, stages and Farkas
certificates must be identical; the normalised minimum margin of the weights
is scale-free, so it must agree within twice its proven rounding error
(:func:`~lamcap.solvers._certificates.margin_error`), whatever scale the
``raw_margin`` contract gives the weights.

The last bits depend on the compile and BLAS targets (``maker.PLATFORM``), so
the cases are solved once, in a child process with those targets pinned and a
numba cache of its own; on a host without AVX-512 the kernels cannot be pinned
and the comparison is skipped with that reason.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lamcap.solvers._certificates import margin_error

DATA = Path(__file__).with_name("data")
_SPEC = importlib.util.spec_from_file_location(
    "make_refactor_record", DATA / "make_refactor_record.py"
)
assert _SPEC is not None
assert _SPEC.loader is not None
maker = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(maker)

RECORD = json.loads((DATA / "refactor_record.json").read_text())


def test_record_covers_every_case() -> None:
    assert sorted(RECORD["cases"]) == sorted(case[0] for case in maker.CASES)
    assert len(RECORD["commit"]) == 40


def _has_avx512() -> bool:
    try:
        return "avx512f" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.fixture(scope="module")
def pinned_answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every case solved in a child process with ``maker.PLATFORM`` and a fresh numba cache."""
    if not _has_avx512():
        pytest.skip("the record's OpenBLAS kernels (SkylakeX) need an AVX-512 host")
    environment = {
        **os.environ,
        **maker.PLATFORM,
        "NUMBA_CACHE_DIR": str(tmp_path_factory.mktemp("numba_cache")),
    }
    child = subprocess.run(
        [sys.executable, str(DATA / "make_refactor_record.py"), "--print"],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    answers: dict[str, Any] = json.loads(child.stdout)
    return answers


@pytest.mark.parametrize("case", maker.CASES, ids=[case[0] for case in maker.CASES])
def test_solvers_answer_as_recorded(case: tuple[Any, ...], pinned_answers: dict[str, Any]) -> None:
    name, d = case[0], case[1]
    expected = RECORD["cases"][name]
    found = pinned_answers[name]
    recorded_margin, margin = expected.pop("min_margin", None), found.pop("min_margin", None)
    assert found == expected
    assert (recorded_margin is None) == (margin is None)
    if margin is not None:
        difference = abs(float.fromhex(margin) - float.fromhex(recorded_margin))
        assert difference <= 2 * margin_error(d)
