"""The theory sub-commands: output format, JSON, and exit codes on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import lamcap
from lamcap.cli import main
from lamcap.cli._theory_commands import parse_integer_range


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_capacity_prints_header_and_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "capacity", "--kappa", "1", "0.5")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "# kappa capacity"
    assert lines[1] == "1.0 0.5"
    kappa, value = map(float, lines[2].split())
    assert kappa == 0.5
    assert value == pytest.approx(0.4468653969390270, rel=1e-15)  # quadrature value, test_rank


def test_capacity_with_digits_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "capacity", "--kappa", "1", "--dps", "30", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["command"] == "capacity"
    assert record["results"][0]["capacity"] == "0.5"
    code, out, _ = _run(capsys, "capacity", "--kappa", "0.5", "--dps", "25")
    assert out.splitlines()[1] == "0.5 0.4468653969390270090567449"


def test_capacity_finite_size_columns(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "capacity", "--kappa", "0.5", "--p", "1000", "--d", "64")
    assert code == 0
    header, row, status = out.splitlines()
    assert header == "# kappa p d capacity"
    kappa, p, d, value = row.split()
    assert (kappa, p, d) == ("0.5", "1000", "64")
    assert 0.5 < float(value) < 1.0
    assert status.startswith("# status: asymptotic; the Gordon-type upper bound")


def test_critical_p_ranges_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "critical-p", "--d", "12", "16:20:4", "--json")
    assert code == 0
    results = json.loads(out)["results"]
    assert [r["d"] for r in results] == [12, 16, 20]
    assert results[0]["critical_p"] == pytest.approx(40.0, abs=0.5)


def test_critical_p_at_an_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "critical-p", "--d", "64", "--accuracy", "0.99")
    assert code == 0
    header, row, status = out.splitlines()
    assert header == "# d kappa accuracy critical_p"
    d, kappa, accuracy, value = row.split()
    assert (d, kappa, accuracy) == ("64", "1.0", "0.99")
    # an asymptotic value is printed in full; its status says what it is
    assert float(value) == float(lamcap.critical_p(64, accuracy=0.99))
    assert status.startswith("# status: asymptotic; the replica-symmetric estimate")
    code, out, _ = _run(capsys, "critical-p", "--d", "12", "--accuracy", "1", "--json")
    result = json.loads(out)["results"][0]
    # a model's value to the digits its measured error (1.4%) supports: 4
    assert result["status"]["label"] == "model with measured error"
    assert result["status"]["significant_digits"] == 4
    assert result["critical_p"] == float(f"{float(lamcap.critical_p(12)):.4g}")
    assert result["accuracy"] == 1.0


def test_unit_norm_laws_from_the_shell(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "critical-p", "--d", "8", "64", "--embeddings", "sphere", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["parameters"]["embeddings"] == "sphere"
    values = [r["critical_p"] for r in record["results"]]
    assert values == [
        float(f"{float(lamcap.critical_p(d, embeddings='sphere')):.4g}") for d in (8, 64)
    ]
    assert [r["status"]["measured_d"] for r in record["results"]] == [[8, 64], [8, 64]]
    code, out, _ = _run(capsys, "feasibility", "--d", "12", "--p", "42", "--embeddings", "sphere")
    assert code == 0
    value = float(out.splitlines()[1].split()[-1])
    assert value == float(lamcap.feasibility_probability(12, 42, embeddings="sphere"))
    # recall below 100% with unit norm: the unit-norm model, the same number as the library
    code, out, _ = _run(
        capsys, "critical-p", "--d", "8", "--embeddings", "sphere", "--accuracy", "0.99"
    )
    assert code == 0
    value = float(out.splitlines()[1].split()[-1])
    assert value == float(lamcap.critical_p(8, accuracy=0.99, embeddings="sphere"))
    assert value > float(lamcap.critical_p(8, embeddings="sphere"))
    # ... and a rank below full is refused in one line, not answered wrongly
    code, _, err = _run(
        capsys,
        "critical-p",
        "--d",
        "8",
        "--kappa",
        "0.5",
        "--embeddings",
        "sphere",
        "--accuracy",
        "0.99",
    )
    assert code == 2
    assert "kappa must be 1 with embeddings='sphere'" in err


def test_feasibility_curve(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "feasibility", "--d", "3", "--p", "2", "--n", "18")
    assert code == 0
    header, row, status = out.splitlines()
    assert header == "# d p n kappa feasibility_probability"
    assert status.startswith("# status: model with measured error")
    assert row.split()[:4] == ["3", "2", "18", "1.0"]
    assert float(row.split()[4]) == pytest.approx(0.5, abs=1e-13)  # Cover: n = 2N gives 1/2


@pytest.mark.parametrize(
    "arguments",
    [
        ["capacity", "--kappa", "1.5"],
        ["capacity", "--kappa", "nan"],
        ["capacity", "--kappa", "x"],
        ["capacity", "--p", "1"],
        ["capacity", "--p", "2.5"],
        ["capacity", "--dps", "0"],
        ["capacity", "--d", "8"],
        ["critical-p", "--d", "0"],
        ["critical-p", "--d", "5:3"],
        ["critical-p", "--d", "8", "--kappa", "0.01"],
        ["critical-p", "--d", "64", "--accuracy", "0"],
        ["critical-p", "--d", "64", "--accuracy", "1.5"],
        ["critical-p", "--d", "64", "--accuracy", "nan"],
        ["critical-p", "--d", "64", "--accuracy", "x"],
        ["critical-p", "--d", "8", "--accuracy", "1e-30"],
        ["feasibility", "--d", "12", "--p", "1:3"],
        ["feasibility", "--d", "12", "--p", "a:b"],
        ["feasibility", "--d", "12", "--p", "30", "--n", "0"],
    ],
)
def test_bad_input_gives_one_line_and_exit_code_2(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> None:
    code, out, err = _run(capsys, *arguments)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"lamcap {arguments[0]}: error: ")


def test_argparse_errors_exit_2() -> None:
    with pytest.raises(SystemExit) as raised:
        main(["feasibility", "--p", "30"])  # --d missing
    assert raised.value.code == 2


def test_parse_integer_range() -> None:
    assert parse_integer_range("p", "30:34") == [30, 31, 32, 33, 34]
    assert parse_integer_range("p", "30:40:5") == [30, 35, 40]
    assert parse_integer_range("p", "1e3") == [1000]
    with pytest.raises(ValueError, match="start <= stop and step >= 1"):
        parse_integer_range("p", "3:1")
    with pytest.raises(ValueError, match="p must be an integer"):
        parse_integer_range("p", "1:2:3:4")


def test_console_entry_point_in_a_subprocess() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "lamcap", "capacity", "--kappa", "1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 0
    assert completed.stdout.splitlines()[-2:] == ["1.0 0.5", "# status: asymptotic"]


# --- edges (issue 23) ------------------------------------------------------------------------


def test_feasibility_at_p_1e15_answers_zero_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = _run(capsys, "feasibility", "--d", "12", "--p", "1e15")
    assert (code, err) == (0, "")
    assert out.splitlines()[1].split() == ["12", str(10**15), str(10**15), "1.0", "0.0"]


def test_a_closed_pipe_ends_quietly() -> None:
    # lamcap feasibility --d 12 --p 2:3000 | head -2
    process = subprocess.Popen(
        [sys.executable, "-m", "lamcap", "feasibility", "--d", "12", "--p", "2:3000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    first = [process.stdout.readline() for _ in range(2)]
    process.stdout.close()  # what head does after two lines
    err = process.stderr.read().decode()
    process.stderr.close()
    assert first[0].startswith(b"# d p n kappa")
    assert process.wait() == 141  # 128 + SIGPIPE, as a shell reports a tool ended by SIGPIPE
    assert err == ""


def test_out_of_memory_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lamcap.cli import _theory_commands

    def exhausted(_: object) -> int:
        raise MemoryError

    monkeypatch.setattr(_theory_commands, "_capacity", exhausted)  # read when main builds
    code, _, err = _run(capsys, "capacity")
    assert (code, err) == (2, "lamcap capacity: error: out of memory\n")


def test_capacity_json_echoes_parameters_as_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "capacity", "--kappa", "1", "0.5", "--p", "100", "--json")
    assert code == 0
    parameters = json.loads(out)["parameters"]
    assert parameters == {
        "kappa": [1.0, 0.5],
        "p": 100,
        "d": None,
        "dps": None,
        "embeddings": "gaussian",
    }


def test_critical_p_of_a_huge_d_exits_2_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "critical-p", "--d", "1e200")
    assert (code, out) == (2, "")
    assert err.startswith("lamcap critical-p: error: d must be an integer in [1, 1.34e+154]")
    assert err.count("\n") == 1


def test_a_range_too_long_for_memory_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # lamcap feasibility --d 12 --p 2:1e9 built a list of a billion integers first
    from lamcap import _sizes

    monkeypatch.setattr(_sizes, "available_memory", lambda: 16 << 30)
    code, out, err = _run(capsys, "feasibility", "--d", "12", "--p", "2:1e9")
    assert (code, out) == (2, "")
    assert err == (
        "lamcap feasibility: error: p range '2:1e9' (999999999 values, one output line each): "
        "needs 238 GiB of memory, but 16.0 GiB are available\n"
    )
    assert parse_integer_range("p", "2:5") == [2, 3, 4, 5]


def test_a_model_beyond_its_measured_range_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """critical-p at d = 4096 with unit-norm embeddings: status, measured range, extrapolation."""
    code, out, err = _run(capsys, "critical-p", "--d", "12", "4096", "--embeddings", "sphere")
    assert (code, err) == (0, "")  # no Python warning on stderr: the status lines say it
    lines = out.splitlines()
    at_12 = float(f"{float(lamcap.critical_p(12, embeddings='sphere')):.4g}")
    assert lines[1:3] == [f"12 1.0 {at_12!r}", "4096 1.0 868700.0"]
    assert lines[3] == (
        "# status: model with measured error; measured transitions within 2.7% of it at "
        "d = 8-64 (docs/theory/unit-norm.md)"
    )
    assert lines[4].endswith("; extrapolated outside the measured d = 8-64")
    code, out, _ = _run(capsys, "critical-p", "--d", "4096", "--embeddings", "sphere", "--json")
    status = json.loads(out)["results"][0]["status"]
    assert status["extrapolated"] is True
    assert status["measured_d"] == [8, 64]
    assert status["relative_error"] == 0.027


def test_capacity_with_unit_norm_embeddings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "capacity", "--p", "42", "--d", "12", "--embeddings", "sphere")
    assert code == 0
    value = float(out.splitlines()[1].split()[-1])
    assert value == float(f"{float(lamcap.capacity(p=42, d=12, embeddings='sphere')):.4g}")
    code, _, err = _run(capsys, "capacity", "--kappa", "0.5", "--embeddings", "sphere")
    assert code == 2
    assert "kappa must be 1 with embeddings='sphere'" in err
