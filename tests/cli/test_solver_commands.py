"""Tests for ``lamcap solve``."""

from __future__ import annotations

import json

import pytest

from lamcap.cli import main


def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verdict"] == "feasible"
    assert summary["min_margin"] > 0
    assert summary["method"] == "cutting_plane"
    assert {"iterations", "seconds", "certificate_bound"} <= set(summary)


def test_solve_text_reports_certificate(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["solve", "--d", "4", "--p", "40", "--model", "original", "--seed", "1"]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "verdict: infeasible" in out
    assert "certificate:" in out
    assert "min margin:" in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--d", "0", "--p", "5"], "d must be an integer >= 1"),
        (["--d", "4", "--p", "5", "--model", "x"], "model must be one of"),
        (["--d", "4", "--p", "5", "--rank", "9"], "rank must be an integer in"),
    ],
)
def test_solve_bad_input_exits_2(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", *arguments]) == 2
    assert message in capsys.readouterr().err
