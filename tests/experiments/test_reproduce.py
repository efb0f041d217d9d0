"""``reproduce``: stage progress, the pipeline on a tiny plan, the CLI's quiet mode."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lamcap.experiments import _reproduce as reproduce_module
from lamcap.experiments._recall_fraction import RecallDesign, recall_tasks
from lamcap.experiments._reproduce import Plan, reproduce, summary
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Sweep


def test_blocking_stage_reports_while_it_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(reproduce_module, "PLAIN_INTERVAL", 0.05)
    result = reproduce_module._staged("theory tables", "sympy", True, lambda: time.sleep(1.3) or 7)
    assert result == 7
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("theory tables: 0/1 steps (0%), sympy, 0 s elapsed")
    assert len([line for line in lines if line.startswith("theory tables: 0/1")]) >= 2
    assert lines[-1].startswith("theory tables: 1/1 steps (100%), done, ")
    assert not any("\r" in line for line in lines)


def test_heartbeat_writes_the_line_once_the_interval_passed() -> None:
    import io

    from lamcap._progress import Progress

    log = io.StringIO()
    bar = Progress("tables", total=1, note="sympy", stream=log, interval=0.0)
    bar.heartbeat()
    bar.heartbeat()
    quiet = Progress("tables", total=1, stream=log, interval=3600.0)
    quiet.heartbeat()
    lines = log.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == ["tables: 0/1 steps (0%)"] * 4
    assert len([line for line in lines if "sympy" in line]) == 3


def test_quiet_stage_writes_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert reproduce_module._staged("figures", "drawing", False, lambda: 3) == 3
    assert capsys.readouterr().err == ""


_TINY = Plan(
    name="tiny",
    sweeps=(
        Sweep(
            name="optimal",
            dims=(6, 8, 10),
            models=("decoupled", "original"),
            seeds_per_point=3,
            rounds=0,
        ),
    ),
    mechanism_dims=(6, 8),
    mechanism_seeds=3,
    recall=RecallDesign(dims=(6,), max_seconds=(10.0,), critical_fractions=(1.5,), seeds=2),
    budget=3.0,
)


@pytest.mark.slow
def test_reproduce_tiny_plan_writes_report_claims_and_figures(
    tmp_path: Path, legacy_recall_store: Callable[[Path, list[dict[str, Any]]], None]
) -> None:
    # the directory of an interrupted run of an earlier lamcap: one max-recall solve, in a
    # file of its own
    assert _TINY.recall is not None
    (_, first), *_ = recall_tasks(_TINY.recall, _TINY.seed)
    earlier = {name: getattr(first, name) for name in ("d", "p", "model", "embeddings", "seed")}
    earlier |= {"replicate": first.replicate, "max_seconds": first.max_seconds, "n": first.p}
    earlier |= {"recall_lower": first.p - 3, "recall_upper": first.p - 1, "verdict": "bounded"}
    earlier |= {"upper_exact": 0, "stopped": None, "start": "earlier", "seconds": 1.0}
    (tmp_path / "out").mkdir()
    legacy_recall_store(tmp_path / "out" / "max_recall.sqlite", [earlier])
    report = reproduce(tmp_path / "out", workers=0, progress=False, plan=_TINY, with_tables=False)
    text = report.read_text()
    assert "| claim | kind | finite-size prediction | measured [95% interval] |" in text
    assert "DP capacity: transition p, d = 6" in text
    assert "OP = DP as d → ∞" in text
    assert "in-process (0 workers)" in text
    assert "*OP* is the original problem" in text
    assert "docs/measurements/capacity.md" in text
    assert "**no**" not in text
    for number in range(1, 6):
        assert list((tmp_path / "out" / "figures").glob(f"fig{number}_*.png"))
    document = json.loads((tmp_path / "out" / "claims.json").read_text())
    assert document["tolerances"]["transition"] == 0.02
    assert document["budget"]["cpu_seconds"] == 3.0
    claims = document["claims"]
    assert {c["verdict"].split(":")[0].split(" (")[0] for c in claims} <= {
        "consistent",
        "inconsistent",
        "inconclusive",
        "not tested",
        "comparison",
    }
    # the summary counts all three verdicts, and reads back what the run wrote
    line = summary(report)
    for word in ("consistent", "inconsistent", "inconclusive"):
        assert f" {word}" in f" {line}"
    assert "| deviation: familywise interval (tolerance) | floor | verdict |" in text
    assert "### Tolerances used" in text
    assert "Budget: " in text.splitlines()[6]
    assert "## OP = DP in lamcap's own measurements" in text
    judged = [c for c in claims if c["verdict"] in ("consistent", "inconsistent", "inconclusive")]
    assert all(c["floor"] is not None for c in judged if c["interval"][0] is not None)
    # instances were added to the decoupled cells, and each says why the adding stopped
    transitions = [c for c in claims if c["claim"].startswith("DP capacity")]
    assert all(c["allocation"] for c in transitions)
    again = reproduce(tmp_path / "out", workers=0, progress=False, plan=_TINY, with_tables=False)
    assert json.loads((tmp_path / "out" / "claims.json").read_text())["claims"] == claims
    assert again == report
    samples = np.load(tmp_path / "out" / "figures" / "mechanism_samples.npz")
    assert any(key.endswith("singular_values") for key in samples.files)
    # the partial-recall claim: judged in the family, its solves stored once, resumed
    recall = [c for c in claims if c["claim"].startswith("best accuracy beyond capacity")]
    assert len(recall) == 1
    assert recall[0]["test"].startswith("bracket")
    with ResultsStore(tmp_path / "out" / "results.sqlite", readonly=True) as store:
        solves = store.rows(table="max_recall")
    assert len(solves) == 2
    # the earlier run's solve was copied in, not solved again
    assert [row["start"] == "earlier" for row in solves] == [True, False]
    assert solves[0]["recall_lower"] == first.p - 3


@pytest.mark.slow
@pytest.mark.slow
def test_tolerances_reach_the_report_and_the_claims(tmp_path: Path) -> None:
    plan = dataclasses.replace(_TINY, recall=None, budget=0.0)
    report = reproduce(
        tmp_path / "out",
        workers=0,
        progress=False,
        plan=plan,
        with_tables=False,
        tolerances={"transition": 0.5},
    )
    assert "| transition | 50% | 2% |" in report.read_text()
    document = json.loads((tmp_path / "out" / "claims.json").read_text())
    assert document["tolerances"]["transition"] == 0.5
    decided = [c for c in document["claims"] if c["claim"].startswith("DP capacity")]
    assert all(c["tolerance"] == 0.5 for c in decided)
    assert all(c["allocation"] == "" for c in decided)  # budget 0: nothing added


def test_cli_quiet_hides_progress_but_not_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lamcap.cli import main

    monkeypatch.setattr(reproduce_module, "QUICK", _TINY)
    monkeypatch.setattr(reproduce_module, "build_tables", dict)
    out = tmp_path / "out"
    assert main(["reproduce", "--quick", "--quiet", "--workers", "0", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines()[0].startswith("claims: ")
    assert captured.out.splitlines()[1] == f"report -> {out / 'report.md'}"


def test_a_run_resumes_with_its_own_max_recall_sweeps_but_not_with_another_seed(
    tmp_path: Path,
) -> None:
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._recall_fraction import run_recall

    def bounds(task: Any) -> dict[str, Any]:
        return {"n": task.p, "recall_lower": 1, "recall_upper": task.p, "verdict": "bounded"}

    # the tiny plan's sweeps draw with seed 0, its max-recall solves with the plan's seed
    assert {sweep.seed for sweep in _TINY.sweeps} == {0} != {_TINY.seed}
    assert _TINY.recall is not None
    database = tmp_path / "results.sqlite"
    run_recall(InlineExecutor(), _TINY.recall, _TINY.seed, database, trial=bounds)
    reproduce_module._check_seeds(database, _TINY)  # its own recorded sweeps: it resumes
    run_recall(InlineExecutor(), _TINY.recall, _TINY.seed + 1, database, trial=bounds)
    with pytest.raises(ValueError, match=rf"holds sweeps with seed\(s\) \[{_TINY.seed + 1}\]"):
        reproduce_module._check_seeds(database, _TINY)
