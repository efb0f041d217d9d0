"""Tests for ``lamcap solve``.

Saved files are re-checked independently: W's raw margins by a direct loop over
associations, the dual value of a saved max-margin certificate by dense rows
built here, a saved Farkas certificate by lamcap's certificate check.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from lamcap.cli import build_parser, main
from lamcap.problems import Instance, make_instance
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
)


def _raw_margins(instance: Instance, weights: np.ndarray) -> np.ndarray:
    """min_rho (u_t - u_rho)^T W e_mu per association, by a plain loop."""
    margins = np.empty(instance.n)
    for mu in range(instance.n):
        scores = instance.outputs(mu) @ (weights @ instance.inputs[mu])
        target = instance.targets[mu]
        margins[mu] = scores[target] - np.delete(scores, target).max()
    return margins


def _solve_parser() -> argparse.ArgumentParser:
    parser = build_parser()
    subparsers = next(
        action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
    )
    solve_parser: argparse.ArgumentParser = subparsers.choices["solve"]
    return solve_parser


def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verdict"] == "feasible"
    assert summary["min_margin"] > 0
    assert summary["method"] == "cutting_plane"
    assert summary["objective"] == "feasible"
    assert {"iterations", "seconds", "certificate_bound", "certificate_exact"} <= set(summary)
    assert "relative_gap" not in summary
    assert summary["proven"].startswith("W recalls every association")


def test_solve_text_reports_certificate_and_units(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["solve", "--d", "4", "--p", "40", "--model", "original", "--seed", "1"]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "verdict: infeasible" in out
    assert "proven: no W recalls every association (gamma* <= 0, proven exactly" in out
    assert "certificate:" in out
    assert "no W has a normalised margin above" in out
    assert "min normalised margin:" in out
    assert "(u_t - u_rho)^T W e_mu / (||W||_F ||e_mu|| sqrt(||u_t||^2 + ||u_rho||^2))" in out
    assert "seconds:" in out
    assert "wall clock" in out


def test_max_margin_saves_w_and_a_dual_that_recheck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights_file = tmp_path / "W.npy"
    dual_file = tmp_path / "dual.npz"
    arguments = ["solve", "--d", "8", "--p", "16", "--seed", "2", "--objective", "max-margin"]
    arguments += ["--raw-margin", "2", "--save", str(weights_file)]
    arguments += ["--save-certificate", str(dual_file), "--json"]
    assert main(arguments) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verdict"] == "feasible"
    assert summary["gap_reached"] is True
    assert summary["relative_gap"] <= 1e-4
    assert summary["saved_weights"] == str(weights_file)
    assert summary["saved_certificate"] == str(dual_file)
    instance = make_instance(8, 16, seed=2)
    weights = np.load(weights_file)
    assert weights.shape == (8, 8)
    assert _raw_margins(instance, weights).min() == pytest.approx(2.0, rel=1e-12)
    assert float(np.linalg.norm(weights)) == pytest.approx(summary["frobenius_norm"], rel=1e-15)
    saved = np.load(dual_file)
    assert str(saved["kind"]) == "max_margin_dual"
    # the dual value, recomputed from dense rows: 2 sum y - 1/2 ||sum y_i A_i||^2
    combination = np.zeros((8, 8))
    for mu, rho, y in zip(saved["associations"], saved["competitors"], saved["y"], strict=True):
        outputs = instance.outputs(int(mu))
        combination += y * np.outer(outputs[0] - outputs[rho], instance.inputs[mu])
    dual = 2.0 * saved["y"].sum() - 0.5 * float(np.sum(combination**2))
    assert dual == pytest.approx(float(saved["dual_value"]), rel=1e-12)
    primal = 0.5 * float(np.sum(weights**2))
    assert (primal - dual) / primal == pytest.approx(summary["relative_gap"], abs=1e-11)


def test_max_margin_text_states_the_gap(capsys: pytest.CaptureFixture[str]) -> None:
    arguments = ["solve", "--d", "6", "--p", "8", "--objective", "max-margin"]
    assert main([*arguments, "--tolerance", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert "relative gap:" in out
    assert "(tolerance 1e-06: reached" in out
    assert "smallest raw margin" in out


def test_infeasible_certificate_is_saved_and_rechecks(tmp_path: Path) -> None:
    target = tmp_path / "farkas.npz"
    arguments = ["solve", "--d", "4", "--p", "40", "--seed", "1"]
    assert main([*arguments, "--save-certificate", str(target)]) == 0
    saved = np.load(target)
    assert str(saved["kind"]) == "farkas"
    certificate = FarkasCertificate(
        saved["associations"], saved["competitors"], saved["alpha"], float(saved["bound"])
    )
    assert certificate_bound(make_instance(4, 40, seed=1), certificate) <= FEASIBILITY_TOLERANCE


def test_nothing_to_save_is_said_not_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "none.npz"
    arguments = ["solve", "--d", "8", "--p", "6", "--n", "4", "--save-certificate", str(target)]
    assert main(arguments) == 0
    assert "certificate not saved: verdict feasible has none" in capsys.readouterr().out
    assert not target.exists()


def test_an_infeasible_verdict_saves_no_w(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "W.npy"
    arguments = ["solve", "--d", "4", "--p", "40", "--seed", "1", "--save", str(target)]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "verdict: infeasible" in out
    assert "W not saved: verdict infeasible has no verified W (saved only for feasible" in out
    assert not target.exists()
    assert main([*arguments, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["saved_weights"] is None
    assert not target.exists()


@pytest.mark.parametrize("option", ["--save", "--save-certificate"])
def test_saving_into_a_missing_folder_exits_2_and_writes_nothing(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing" / "out.npy"
    other = tmp_path / "other.npz"
    other_option = "--save-certificate" if option == "--save" else "--save"
    arguments = ["solve", "--d", "4", "--p", "40", option, str(missing), other_option, str(other)]
    assert main(arguments) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert f"{option}: folder " in captured.err
    assert "does not exist (nothing written)" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_every_option_has_help_and_lists_its_choices() -> None:
    parser = _solve_parser()
    text = parser.format_help()
    for action in parser._actions:
        assert action.help, action.dest
        if action.choices is not None:
            assert "{" + ",".join(action.choices) + "}" in text  # type: ignore[arg-type]
    assert {"cutting_plane", "two_layer", "hebbian"} <= set(
        next(a for a in parser._actions if a.dest == "method").choices  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--d", "0", "--p", "5"], "d must be an integer >= 1"),
        (["--d", "4", "--p", "5", "--rank", "9"], "rank must be an integer in"),
        (["--d", "4", "--p", "5", "--tolerance", "0"], "tolerance must be a finite number"),
        (
            ["--d", "4", "--p", "5", "--objective", "max-margin", "--rank", "2"],
            "objective='max_margin' needs full rank",
        ),
    ],
)
def test_solve_bad_input_exits_2(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["solve", *arguments]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--model", "x"], "invalid choice: 'x'"),
        (["--objective", "best"], "invalid choice: 'best'"),
        (["--method", "simplex"], "invalid choice: 'simplex'"),
    ],
)
def test_unknown_choices_exit_2_listing_the_choices(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["solve", "--d", "4", "--p", "5", *arguments])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_solve_too_large_to_draw_exits_2_naming_the_bytes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 23: lamcap solve --d 8 --p 1000000000 (inputs 8 n (d + 1) bytes = 67.1 GiB)
    from lamcap import _sizes

    monkeypatch.setattr(_sizes, "available_memory", lambda: 16 << 30)
    assert main(["solve", "--d", "8", "--p", "1000000000"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "lamcap solve: error: make_instance with d = 8, p = 1000000000, n = 1000000000 "
        "(the inputs, n x d float64 numbers): needs 67.1 GiB of memory, "
        "but 16.0 GiB are available\n"
    )


def test_solve_prints_iterations_only_when_there_were_some(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # issue 23: "iterations: 0" for a run decided before its first round
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4"]) == 0
    out = capsys.readouterr().out
    assert "verdict: feasible" in out
    assert "iterations:" not in out
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4", "--method", "hebbian"]) == 0
    assert "iterations: 1 (as counted by method hebbian)" in capsys.readouterr().out


def test_solve_that_does_not_fit_prints_why(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lamcap.solvers import _solve

    monkeypatch.setattr(_solve, "available_memory", lambda: 1000)
    assert main(["solve", "--d", "8", "--p", "6"]) == 0
    out = capsys.readouterr().out
    assert "verdict: undecided" in out
    assert "stopped: one score pass over n = 6 associations with p = 6 outputs needs" in out
    assert "but 1000 bytes are available" in out


def _limited_run(*arguments: str) -> tuple[int, str, str]:
    """``python -m lamcap ...`` under a 4 GiB address-space limit (as a user's ulimit -v)."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    completed = subprocess.run(
        [sys.executable, "-m", "lamcap", *arguments],
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return completed.returncode, completed.stdout, completed.stderr


def test_the_issue_commands_under_a_memory_limit() -> None:
    # issue 23, as reported: each under 4 GiB; a traceback and exit 1 before
    code, out, err = _limited_run("solve", "--d", "8", "--p", "1000000000")
    assert (code, out) == (2, "")
    assert err.startswith("lamcap solve: error: make_instance with d = 8, p = 1000000000")
    assert "needs 67.1 GiB of memory, but " in err
    assert err.count("\n") == 1
    code, out, err = _limited_run("feasibility", "--d", "12", "--p", "1e15")
    assert (code, err) == (0, "")
    assert out.splitlines()[1].endswith(" 0.0")


def test_adam_ce_settings_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["solve", "--d", "8", "--p", "10", "--method", "adam_ce", "--json"]
    assert main([*base, "--learning-rate", "1e-4", "--steps", "3"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["verdict"], summary["iterations"]) == ("undecided", 3)
    assert main([*base, "--steps", "5000"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "feasible"
    assert main(["solve", "--d", "8", "--p", "10", "--steps", "3"]) == 2
    assert "options for method 'cutting_plane': takes no options, got 'steps'" in (
        capsys.readouterr().err
    )


def test_max_recall_prints_both_bounds_and_the_gap(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "--d", "3", "--p", "8", "--seed", "4", "--objective", "max-recall"]) == 0
    out = capsys.readouterr().out
    assert "verdict: optimal" in out
    assert "recalled: 6 <= best <= 6 of n = 8 associations" in out
    assert "gap 0" in out
    assert "upper bound: n - 2 disjoint subsets each proven jointly infeasible" in out


def test_max_recall_json_and_saved_subsets_recheck(tmp_path: Path) -> None:
    import contextlib
    import io

    target = tmp_path / "subsets.npz"
    arguments = ["solve", "--d", "3", "--p", "8", "--seed", "4", "--objective", "max-recall"]
    stream = io.StringIO()
    with contextlib.redirect_stdout(stream):
        assert main([*arguments, "--json", "--save-certificate", str(target)]) == 0
    summary = json.loads(stream.getvalue())
    assert summary["objective"] == "max-recall"
    assert (
        summary["recall_lower"] <= summary["recall_upper"] == 8 - len(summary["infeasible_subsets"])
    )
    assert summary["recall_gap"] == summary["recall_upper"] - summary["recall_lower"]
    assert len(summary["recalled"]) == summary["recall_lower"]
    instance = make_instance(3, 8, seed=4)
    saved = np.load(target)
    assert str(saved["kind"]) == "max_recall_subsets"
    for k, members in enumerate(summary["infeasible_subsets"]):
        mine = saved["subset"] == k
        certificate = FarkasCertificate(
            saved["associations"][mine], saved["competitors"][mine], saved["alpha"][mine], 0.0
        )
        assert set(certificate.associations.tolist()) <= set(members)
        assert certificate_bound(instance, certificate) <= FEASIBILITY_TOLERANCE


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--rank", "2"], "rank must equal d = 4 (None or 4) for objective='max_recall'"),
        (["--method", "adam_ce"], "method must be one of ('auto', 'cutting_plane', 'full_lp')"),
        (["--max-seconds", "0"], "max_seconds must be"),
    ],
)
def test_max_recall_bad_input_exits_2_with_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["solve", "--d", "4", "--p", "5", "--objective", "max-recall"]
    assert main([*base, *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error
    assert error.count("\n") == 1
