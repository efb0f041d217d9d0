"""Report: the claims table and the fitted-transitions table."""

from __future__ import annotations

from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments._report import claims_summary, claims_table, markdown_table
from lamcap.experiments._sweep import Cell
from lamcap.experiments._verdicts import Claim, judge


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
    claims = judge(
        [
            Claim(
                "b",
                "1.000 (law)",
                "3 [2, 4]",
                z=2.5,
                p_value=0.0004,
                test="t",
                note="n",
                quantity="spectrum",
                estimates=(2.0,),
                standard_errors=(0.5,),
            )
        ]
    )
    lines = claims_table(claims).splitlines()
    assert lines[0].startswith("| claim | kind | finite-size prediction | measured [95% interval]")
    assert (
        "| deviation: familywise interval (tolerance) | floor | verdict | exactness "
        "| instances added |"
    ) in lines[0]
    # 2 ± 1.96 × 0.5 (one claim, normal): [1.020, 2.980], wholly above +0.05
    assert lines[2] == (
        "| b | finite-size | 1.000 (law) | 3 [2, 4] | t | 2.50 | <0.001 | <0.001 | "
        "[+1.020, +2.980] (±0.05) | 0.000 | **inconsistent** — n | "
        "the law's bias is detected: +2.000 [+1.020, +2.980] (Holm p = 0.0004) | – |"
    )


def test_claims_table_shows_no_interval_for_comparisons() -> None:
    claims = judge(
        [
            Claim(
                "c",
                "2",
                "2.3 [2.0, 2.6]",
                z=3.0,
                p_value=0.01,
                test="t, not judged",
                kind="comparison",
                quantity="spectrum",
            )
        ]
    )
    assert claims_table(claims).splitlines()[2].split(" | ")[8] == "–"


def test_transition_table_markdown() -> None:
    text = markdown_table([_row("decoupled", 40.5, 39, 42, 40.0)])
    assert "| 12 | 1 | decoupled | gaussian | auto | 60 | 0 | 40.50 [39.00, 42.00] |" in text
    assert "+1.2%" in text


def test_claims_summary_gives_each_claim_its_verdict_and_reason() -> None:
    claims = judge(
        [
            Claim(
                "spectrum at d = 16",
                "2.000 (law)",
                "2.010",
                z=0.5,
                p_value=0.6,
                test="t",
                quantity="spectrum",
                estimates=(0.01,),
                standard_errors=(0.005,),
            ),
            Claim("OP/DP at d = 16", "–", "1.03", kind="comparison", quantity="ratio"),
        ]
    )
    lines = claims_summary(claims).splitlines()
    # 0.01 ± 1.96 × 0.005 (one judged claim): [+0.000, +0.020], inside ±0.05
    assert lines == [
        "- **consistent**: spectrum at d = 16; interval [+0.000, +0.020] (±0.05)",
        "- and 1 measurements shown for comparison, not judged",
    ]
