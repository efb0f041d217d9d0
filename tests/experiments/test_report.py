"""Report: the claims table and the reproduce pipeline on a tiny plan."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lamcap.experiments.analysis import TransitionRow
from lamcap.experiments.report import Claim, claims_table, markdown_table
from lamcap.experiments.reproduce import Plan, _equivalence_claims, _verdict, reproduce
from lamcap.experiments.sweep import Cell, Sweep


def _row(model: str, p_c: float, low: float, high: float, theory: float) -> TransitionRow:
    return TransitionRow(
        cell=Cell(12, 1.0, model, "auto"),
        instances=60,
        undecided=0,
        p_c=p_c,
        low=low,
        high=high,
        bracketed=True,
        theory=theory,
        finite_theory=theory,
    )


def test_claims_table_layout() -> None:
    text = claims_table(
        [Claim("a", "1", "2", True), Claim("b", "1", "3", False, "gap"), Claim("c", "1", "–", None)]
    )
    lines = text.splitlines()
    assert lines[0] == "| claim | theory | measured | agrees? |"
    assert lines[3] == "| b | 1 | 3 | **no** (gap) |"
    assert lines[4].endswith("| n/a |")


def test_verdicts() -> None:
    assert _verdict(_row("decoupled", 40.5, 39, 42, 40.0))[0]  # within 3%
    assert _verdict(_row("decoupled", 44.0, 39, 46, 40.0))[0]  # inside the interval
    assert not _verdict(_row("decoupled", 44.0, 43, 45, 40.0))[0]
    claims = _equivalence_claims(
        [_row("decoupled", 40, 38, 42, 40), _row("original", 41, 39, 43, 40)]
    )
    assert len(claims) == 1
    assert claims[0].agrees


def test_transition_table_markdown() -> None:
    text = markdown_table([_row("decoupled", 40.5, 39, 42, 40.0)])
    assert "| 12 | 1 | decoupled | auto | 60 | 40.50 [39.00, 42.00] |" in text
    assert "+1.2%" in text


@pytest.mark.slow
def test_reproduce_tiny_plan_writes_report_and_figures(tmp_path: Path) -> None:
    plan = Plan(
        name="tiny",
        sweeps=(
            Sweep(
                name="optimal",
                dims=(6,),
                models=("decoupled", "original"),
                seeds_per_point=3,
                rounds=0,
            ),
        ),
        mechanism_d=6,
        mechanism_seeds=2,
        expected="seconds",
    )
    report = reproduce(tmp_path / "out", workers=0, progress=False, plan=plan, with_tables=False)
    text = report.read_text()
    assert "| claim | theory | measured | agrees? |" in text
    assert "DP capacity p_c(d = 6)" in text
    assert "OP = DP at d = 6" in text
    for number in range(1, 6):
        assert list((tmp_path / "out" / "figures").glob(f"fig{number}_*.png"))
    assert (tmp_path / "out" / "results.sqlite").exists()
    samples = np.load(tmp_path / "out" / "figures" / "mechanism_samples.npz")
    assert any(key.endswith("singular_values") for key in samples.files)
