"""CLI: ``lamcap sweep`` / ``results`` / ``figures`` / ``reproduce``: bad input, kill -9 resume."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import pytest

from lamcap.cli import main
from lamcap.experiments._store import SCHEMA_VERSION, ResultsStore

SYNTHETIC = ["--trial", "lamcap.experiments._trials:synthetic_trial"]


def _count(path: Path) -> int:
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM trials").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--d", "1"], "d must be an integer in"),
        (["--d", "8", "--kappa", "1.5"], "kappa must be"),
        (["--d", "8", "--kappa", "0"], "kappa must be"),
        (["--d", "8", "--seeds", "0"], "seeds_per_point"),
        ([], "give the dimensions"),
        (
            ["--d", "8", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"],
            "cannot reach the Dask scheduler",
        ),
    ],
)
def test_bad_sweep_input_exits_2_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    db = tmp_path / "r.sqlite"
    assert main(["sweep", *arguments, "--db", str(db), "--quiet", *SYNTHETIC]) == 2
    assert message in capsys.readouterr().err
    assert not db.exists()


def test_unknown_config_parameter_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "sweep.json"
    config.write_text(json.dumps({"dims": [8], "temperature": 3}))
    db = tmp_path / "r.sqlite"
    assert main(["sweep", "--config", str(config), "--db", str(db), "--quiet"]) == 2
    assert "unknown sweep parameter(s) ['temperature']" in capsys.readouterr().err
    assert not db.exists()


def test_empty_grid_is_refused_by_the_parser(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["sweep", "--d", "8", "--p-grid", "--db", str(tmp_path / "r.sqlite")])
    assert raised.value.code == 2
    assert not (tmp_path / "r.sqlite").exists()


def test_incompatible_database_exits_2_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    with ResultsStore(db):
        pass
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = '0' WHERE key = 'schema_version'")
    before = db.read_bytes()
    code = main(["sweep", "--d", "8", "--p-grid", "10", "--db", str(db), "--quiet", *SYNTHETIC])
    assert code == 2
    assert "schema version 0" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_sweep_then_export_and_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "r.sqlite"
    arguments = ["sweep", "--d", "8", "--p-grid", "10", "16", "24", "--seeds", "4"]
    assert main([*arguments, "--db", str(db), "--workers", "0", *SYNTHETIC]) == 0
    out = capsys.readouterr().out
    assert "12 instances solved, 0 already stored" in out
    assert main([*arguments, "--db", str(db), "--workers", "0", *SYNTHETIC]) == 0
    assert "0 instances solved, 12 already stored" in capsys.readouterr().out
    assert main(["results", "export", "--csv", str(tmp_path / "r.csv"), "--db", str(db)]) == 0
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 13
    assert main(["results", "summary", "--db", str(db)]) == 0
    assert "| 8 | 1 | decoupled | gaussian | auto | 12 |" in capsys.readouterr().out


def test_export_of_missing_database_exits_2(tmp_path: Path) -> None:
    code = main(
        [
            "results",
            "export",
            "--csv",
            str(tmp_path / "x.csv"),
            "--db",
            str(tmp_path / "none.sqlite"),
        ]
    )
    assert code == 2
    assert not (tmp_path / "x.csv").exists()


@pytest.mark.slow
def test_sigkill_midway_then_resume_stores_each_instance_once(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite"
    command = [
        sys.executable,
        "-m",
        "lamcap",
        "sweep",
        "--d",
        "8",
        "--p-grid",
        "8",
        "12",
        "16",
        "20",
        "24",
        "--seeds",
        "12",
        "--workers",
        "1",
        "--quiet",
        "--db",
        str(db),
        "--trial",
        "lamcap.experiments._trials:slow_synthetic_trial",
    ]
    total = 60
    process = subprocess.Popen(command, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while _count(db) < 10 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert process.poll() is None, "the sweep finished before it could be killed"
        os.killpg(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)
    interrupted = _count(db)
    assert 10 <= interrupted < total
    completed = subprocess.run(command, check=False, timeout=120)
    assert completed.returncode == 0
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == total
        duplicates = connection.execute(
            "SELECT COUNT(*) FROM (SELECT p, seed FROM trials GROUP BY p, seed HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        assert duplicates == 0
        replicates = connection.execute(
            "SELECT p, COUNT(DISTINCT replicate) FROM trials GROUP BY p"
        ).fetchall()
    assert replicates == [(p, 12) for p in (8, 12, 16, 20, 24)]


def test_figures_without_database_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "figures",
            "--db",
            str(tmp_path / "none.sqlite"),
            "--out",
            str(tmp_path / "figs"),
            "--workers",
            "0",
        ]
    )
    assert code == 2
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "figs").exists()


def test_reproduce_into_a_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "occupied"
    target.write_text("not a directory")
    assert main(["reproduce", "--quick", "--out", str(target), "--workers", "0"]) == 2
    assert "out must be a directory" in capsys.readouterr().err
    assert target.read_text() == "not a directory"


def test_reproduce_with_incompatible_database_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.sqlite").write_text("something else entirely " * 20)
    assert main(["reproduce", "--quick", "--out", str(out), "--workers", "0"]) == 2
    assert "not a lamcap results database" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["results.sqlite"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--tolerance", "spectra=0.1"], "tolerance: quantity must be one of .*got 'spectra'"),
        (["--tolerance", "transition=2"], "tolerance transition must be a number > 0 and < 1"),
        (["--tolerance", "score=-1"], "tolerance score must be a number > 0, got '-1'"),
        (["--tolerance", "transition"], "tolerance must be QUANTITY=VALUE"),
        (["--budget", "-5"], "--budget must be a finite number of CPU seconds >= 0, got '-5'"),
        (["--budget", "soon"], "--budget must be a finite number of CPU seconds >= 0"),
    ],
)
def test_reproduce_bad_tolerance_or_budget_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    out = tmp_path / "out"
    assert main(["reproduce", "--quick", "--out", str(out), "--workers", "0", *flags]) == 2
    error = capsys.readouterr().err
    assert len(error.strip().splitlines()) == 1
    assert re.search(message, error)
    assert not out.exists()  # refused before any work


def test_reproduce_help_names_tolerance_and_budget(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = capsys.readouterr().out
    assert "--tolerance QUANTITY=VALUE" in text
    assert "--budget CPU_SECONDS" in text


# ------------------------------------------------------------------ job arrays

GRID = ["sweep", "--d", "8", "10", "--p-grid", "10", "16", "24", "--seeds", "3", "--workers", "0"]


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize("shard", ["0/3", "4/3", "3", "1/0", "x/y", "1/3/3", "-1/3"])
def test_bad_shard_exits_2_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shard: str
) -> None:
    db = tmp_path / "r.sqlite"
    assert main([*GRID, f"--shard={shard}", "--db", str(db), *SYNTHETIC]) == 2
    message = _one_line(capsys.readouterr().err)
    assert f"shard must be I/N with whole numbers 1 <= I <= N, got {shard!r}" in message
    assert list(tmp_path.iterdir()) == []


def test_shard_of_adaptive_sweep_exits_2_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    assert main(["sweep", "--d", "8", "--shard", "1/2", "--db", str(db), *SYNTHETIC]) == 2
    assert "--shard needs a fixed grid" in _one_line(capsys.readouterr().err)
    assert list(tmp_path.iterdir()) == []


def _bounds(task: Any) -> dict[str, Any]:
    """Certified bounds of a max-recall task without the solver: R- = p - 4, R+ = p - 1."""
    return {
        "n": task.p,
        "recall_lower": task.p - 4,
        "recall_upper": task.p - 1,
        "verdict": "bounded",
    }


def test_results_commands_see_the_max_recall_solves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lamcap import best_accuracy
    from lamcap.experiments._executors import InlineExecutor
    from lamcap.experiments._recall_fraction import RecallDesign, run_recall

    design = RecallDesign(dims=(8,), max_seconds=(5.0,), critical_fractions=(1.5,), seeds=3)
    shards = [tmp_path / "shard-1.sqlite", tmp_path / "shard-2.sqlite"]
    for i, shard in enumerate(shards, start=1):
        assert main([*GRID, "--shard", f"{i}/2", "--db", str(shard), "--quiet", *SYNTHETIC]) == 0
        run_recall(InlineExecutor(), design, 0, shard, trial=_bounds)
    capsys.readouterr()
    merged = tmp_path / "merged.sqlite"
    assert main(["results", "merge", str(merged), *map(str, shards)]) == 0
    # 18 sweep instances, the 3 max-recall solves once (both shards hold them)
    assert "21 rows added, 3 already present, from 2 stores" in capsys.readouterr().out

    assert main(["results", "summary", "--db", str(merged)]) == 0
    out = capsys.readouterr().out
    assert "max-recall solves (partial-recall claim):" in out
    law = float(best_accuracy(8, 33))
    assert (
        f"| 8 | 33 | decoupled | gaussian | 5 | 3 | [{29 / 33:.3f}, {32 / 33:.3f}] | 0 | 0 | "
        f"{law:.3f} |"
    ) in out
    assert "holds the mean best accuracy R*/n" in out
    assert main(["results", "summary", "--db", str(shards[0])]) == 0  # one shard holds them all too
    assert "| 8 | 33 | decoupled | gaussian | 5 | 3 |" in capsys.readouterr().out

    recall_csv = tmp_path / "recall.csv"
    export = ["results", "export", "--csv", str(recall_csv), "--db", str(merged)]
    assert main([*export, "--table", "max_recall"]) == 0
    out = capsys.readouterr().out
    assert f"3 rows -> {recall_csv}" in out
    assert "18 rows of table trials not exported (--table trials)" in out
    lines = recall_csv.read_text().splitlines()
    assert lines[0].startswith("d,p,n,model,embeddings,replicate,seed,max_seconds,recall_lower,")
    assert len(lines) == 1 + 3
    assert main(["results", "export", "--csv", str(tmp_path / "t.csv"), "--db", str(merged)]) == 0
    assert "3 rows of table max_recall not exported (--table max_recall)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["results", "export", "--csv", str(recall_csv), "--table", "recall"])


def test_summary_of_a_store_without_max_recall_solves_has_no_such_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "r.sqlite"
    assert main([*GRID, "--db", str(db), "--quiet", *SYNTHETIC]) == 0
    capsys.readouterr()
    assert main(["results", "summary", "--db", str(db)]) == 0
    assert "max-recall" not in capsys.readouterr().out


def _csv_rows(db: Path, csv: Path, *ignored: str) -> list[dict[str, str]]:
    import csv as csv_module

    assert main(["results", "export", "--csv", str(csv), "--db", str(db)]) == 0
    with csv.open(newline="", encoding="utf-8") as handle:
        return [
            {k: v for k, v in row.items() if k not in {"finished_at", *ignored}}
            for row in csv_module.DictReader(handle)
        ]


def test_shards_then_merge_equal_the_whole_sweep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole.sqlite"
    assert main([*GRID, "--db", str(whole), "--quiet", *SYNTHETIC]) == 0
    shards = [tmp_path / f"shard-{i}.sqlite" for i in (1, 2, 3)]
    for i, shard in enumerate(shards, start=1):
        assert main([*GRID, "--shard", f"{i}/3", "--db", str(shard), "--quiet", *SYNTHETIC]) == 0
        assert f"shard {i}/3: 6 instances solved" in capsys.readouterr().out
    merged = tmp_path / "merged.sqlite"
    assert main(["results", "merge", str(merged), *map(str, shards[:2])]) == 0
    out = capsys.readouterr().out
    assert "12 rows added, 0 already present, from 2 stores" in out
    assert "shards 3/3 not merged yet" in out
    assert main(["results", "merge", str(merged), *map(str, shards)]) == 0
    assert "6 rows added, 12 already present, from 3 stores" in capsys.readouterr().out
    assert _csv_rows(merged, tmp_path / "m.csv") == _csv_rows(whole, tmp_path / "w.csv")


def test_merge_of_different_sweeps_exits_2_without_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "out.sqlite"
    assert main([*GRID, "--shard", "1/2", "--db", str(a), "--quiet", *SYNTHETIC]) == 0
    assert (
        main([*GRID, "--seed", "5", "--shard", "2/2", "--db", str(b), "--quiet", *SYNTHETIC]) == 0
    )
    capsys.readouterr()
    assert main(["results", "merge", str(out), str(a), str(b)]) == 2
    message = _one_line(capsys.readouterr().err)
    assert message.startswith("lamcap results: error: cannot merge")
    assert "different sweeps (differs in seed)" in message
    assert not out.exists()


def test_merge_of_another_schema_version_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "out.sqlite"
    assert main([*GRID, "--shard", "1/2", "--db", str(a), "--quiet", *SYNTHETIC]) == 0
    assert main([*GRID, "--shard", "2/2", "--db", str(b), "--quiet", *SYNTHETIC]) == 0
    newer = SCHEMA_VERSION + 1  # written by a future lamcap
    with sqlite3.connect(b) as connection:
        connection.execute(f"UPDATE meta SET value = '{newer}' WHERE key = 'schema_version'")
    capsys.readouterr()
    assert main(["results", "merge", str(out), str(a), str(b)]) == 2
    assert f"schema version {newer}" in _one_line(capsys.readouterr().err)
    assert not out.exists()


@pytest.mark.slow
def test_sharded_solver_sweep_merges_to_the_whole_one(tmp_path: Path) -> None:
    """The real solver (not the test double): shards + merge give the unsharded rows."""
    grid = ["sweep", "--d", "6", "--p-grid", "8", "12", "16", "--seeds", "2", "--workers", "0"]
    whole, merged = tmp_path / "whole.sqlite", tmp_path / "merged.sqlite"
    assert main([*grid, "--db", str(whole), "--quiet"]) == 0
    shards = [tmp_path / f"{i}.sqlite" for i in (1, 2)]
    for i, shard in enumerate(shards, start=1):
        assert main([*grid, "--shard", f"{i}/2", "--db", str(shard), "--quiet"]) == 0
    assert main(["results", "merge", str(merged), *map(str, shards)]) == 0
    rows = _csv_rows(merged, tmp_path / "m.csv", "seconds")
    assert len(rows) == 6
    assert {row["verdict"] for row in rows} <= {"feasible", "infeasible"}
    assert rows == _csv_rows(whole, tmp_path / "w.csv", "seconds")


# ---------------------------------------------------------------------- progress


def test_quiet_hides_progress_but_not_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*GRID, "--db", str(tmp_path / "q.sqlite"), "--quiet", *SYNTHETIC]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert "18 instances solved, 0 already stored" in quiet.out
    assert "d=8 κ=1 decoupled/auto: p_c" in quiet.out
    assert main([*GRID, "--db", str(tmp_path / "v.sqlite"), *SYNTHETIC]) == 0
    verbose = capsys.readouterr()
    assert verbose.out.split("(")[0] == quiet.out.split("(")[0]
    assert "\r" not in verbose.err  # not a terminal: plain lines
    assert verbose.err.splitlines()[-1].startswith("sweep: 18/18 instances (100%)")


# -------------------------------------------------------------------------- help


def test_unknown_model_is_refused_by_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        main(["sweep", "--d", "8", "--model", "sideways", "--db", str(tmp_path / "r.sqlite")])
    assert raised.value.code == 2
    assert "invalid choice: 'sideways' (choose from 'decoupled', 'original')" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "r.sqlite").exists()


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """The parsers of the experiment sub-commands other than reproduce, by name."""
    from lamcap.cli import build_parser

    def children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    top = children(build_parser())
    found = {name: top[name] for name in ("sweep", "figures", "results")}
    found |= {f"results {k}": v for k, v in children(top["results"]).items()}
    return found


@pytest.mark.parametrize(
    "name",
    [
        "sweep",
        "figures",
        "results",
        "results summary",
        "results transitions",
        "results export",
        "results merge",
    ],
)
def test_help_is_plain_text_with_help_for_every_option_and_the_choices(name: str) -> None:
    parser = _parsers()[name]
    text = parser.format_help()
    assert parser.description, name
    for markup in ("``", ":func:", ":mod:", ":math:", ":class:"):
        assert markup not in text
    for action in parser._actions:
        assert action.help, (name, action.option_strings or action.dest)
        for choice in action.choices or ():
            assert str(choice) in text, (name, choice)


def _children(pid: int) -> dict[int, str]:
    """Live child processes of ``pid`` (Linux /proc): pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry.name)] = command
    return found


def _interruptible(command: list[str], stderr: IO[str]) -> subprocess.Popen[bytes]:
    """Start ``command`` with SIGINT at its default disposition in the child.

    A shell starts background jobs with SIGINT ignored, an ignored signal stays
    ignored across exec, and Python then never raises KeyboardInterrupt: without
    this, the SIGINT case would test how the suite was launched instead of the
    sweep.  A handler (unlike SIG_IGN) is reset to the default by exec.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(command, stderr=stderr)
    finally:
        signal.signal(signal.SIGINT, previous)


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize(("stop", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_stopped_sweep_ends_its_workers_and_resumes_to_the_full_rows(
    tmp_path: Path, stop: signal.Signals, code: int
) -> None:
    from lamcap.experiments._runner import run_sweep
    from lamcap.experiments._sweep import Sweep
    from lamcap.experiments._trials import synthetic_trial

    db = tmp_path / "r.sqlite"
    grid = ["--d", "8", "--p-grid", "12", "16", "20", "--seeds", "2", "--name", "stop"]
    command = [sys.executable, "-m", "lamcap", "sweep", *grid, "--workers", "2", "--quiet"]
    command += ["--db", str(db), "--trial", "lamcap.experiments._trials:long_synthetic_trial"]
    log = tmp_path / "stderr.txt"
    workers: dict[int, str] = {}
    with log.open("w") as stderr:
        process = _interruptible(command, stderr)
    try:
        deadline = time.monotonic() + 300
        while _count(db) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        workers = {
            pid: line for pid, line in _children(process.pid).items() if "spawn_main" in line
        }
        assert process.poll() is None, "the sweep finished before it could be stopped"
        assert len(workers) == 2, workers  # both busy with a 3 s instance
        process.send_signal(stop)  # the sweep process only, not its process group
        process.wait(timeout=120)
        survivors = [pid for pid in workers if _alive(pid)]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in workers:  # never leave an orphan behind, even when the test fails
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    err = log.read_text()
    assert survivors == []  # ended before the sweep exited, not orphaned
    assert process.returncode == code, err
    assert "worker processes ended" in err
    assert "Traceback" not in err
    stored = _count(db)
    assert 2 <= stored < 6
    assert main([*["sweep", *grid], "--workers", "0", "--quiet", "--db", str(db), *SYNTHETIC]) == 0
    reference = tmp_path / "ref.sqlite"
    sweep = Sweep(dims=(8,), p_grid=(12, 16, 20), seeds_per_point=2, name="stop")
    run_sweep(sweep, reference, trial=synthetic_trial, workers=0)
    columns = ("d", "rank", "model", "method", "p", "replicate", "seed", "verdict")
    rows = []
    for path in (db, reference):
        with ResultsStore(path, readonly=True) as store:
            rows.append([tuple(row[c] for c in columns) for row in store.rows()])
    assert rows[0] == rows[1]
    assert len(rows[0]) == 6


def test_merge_ignores_sqlite_side_files_of_a_glob(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # issue 23: `lamcap results merge m.sqlite shards/*` with a shard still open elsewhere
    import sqlite3

    shards = [tmp_path / f"shard-{i}.sqlite" for i in (1, 2, 3)]
    for i, shard in enumerate(shards, start=1):
        assert main([*GRID, "--shard", f"{i}/3", "--db", str(shard), "--quiet", *SYNTHETIC]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [s.name for s in shards]
    reader = sqlite3.connect(shards[0])
    reader.execute("PRAGMA journal_mode=WAL")
    reader.execute("SELECT count(*) FROM trials").fetchone()  # makes -wal and -shm
    capsys.readouterr()
    try:
        every = sorted(tmp_path.iterdir())
        assert any(p.name.endswith("-shm") for p in every)
        merged = tmp_path / "merged.sqlite"
        assert main(["results", "merge", str(merged), *map(str, every)]) == 0
    finally:
        reader.close()
    captured = capsys.readouterr()
    assert "18 rows added, 0 already present, from 3 stores" in captured.out
    assert "ignoring" in captured.err
    assert "shard-1.sqlite-shm: SQLite's side file of a database" in captured.err
    assert not any(p.name.endswith(("-wal", "-shm")) for p in tmp_path.iterdir())


def test_summary_explains_its_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 23: "theory p" and "finite-size p" were explained nowhere
    from lamcap.cli import build_parser

    db = tmp_path / "r.sqlite"
    arguments = ["sweep", "--d", "8", "--p-grid", "10", "16", "24", "--seeds", "2", "--quiet"]
    assert main([*arguments, "--db", str(db), "--workers", "0", *SYNTHETIC]) == 0
    capsys.readouterr()
    assert main(["results", "summary", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| d |"))
    assert "| theory p | finite-size p | gap |" in header
    for column in ('"theory p" is the threshold lamcap.critical_p', '"finite-size p" is the 50%'):
        assert column in " ".join(out.split())
    with pytest.raises(SystemExit):
        build_parser().parse_args(["results", "summary", "--help"])
    assert '"gap" is p_c / reference - 1' in " ".join(capsys.readouterr().out.split())


def test_sweep_of_an_instance_too_large_exits_2_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from lamcap import _sizes

    monkeypatch.setattr(_sizes, "available_memory", lambda: 16 << 30)
    arguments = ["sweep", "--d", "8", "--p-grid", "1000000000", "--seeds", "1", "--quiet"]
    code = main([*arguments, "--db", str(tmp_path / "r.sqlite"), "--workers", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("lamcap sweep: error: 1 instance(s) cannot run, first Task(d=8")
    assert err.endswith("needs 67.1 GiB of memory, but 16.0 GiB are available\n")
    assert err.count("\n") == 1


def test_damaged_store_in_a_real_process_exits_2_in_one_line(tmp_path: Path) -> None:
    """Issue 37: a damaged page of ``trials`` used to end ``results merge`` in a traceback."""
    shard = tmp_path / "shard.sqlite"
    command = ["sweep", "--d", "8", "--p-grid", "10", "20", "--seeds", "40", "--quiet"]
    assert main([*command, "--db", str(shard), "--workers", "0", *SYNTHETIC]) == 0
    with sqlite3.connect(shard) as connection:
        (root,) = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = 'trials'")
        size = connection.execute("PRAGMA page_size").fetchone()[0]
    connection.close()
    data = bytearray(shard.read_bytes())
    leaf = int.from_bytes(data[(root[0] - 1) * size + 8 : (root[0] - 1) * size + 12], "big")
    data[(leaf - 1) * size + 8 : leaf * size] = b"\xa5" * (size - 8)
    shard.write_bytes(bytes(data))
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "lamcap",
            "results",
            "merge",
            str(tmp_path / "out.sqlite"),
            str(shard),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 2
    assert len(completed.stderr.splitlines()) == 1, completed.stderr
    assert "is damaged (SQLite" in completed.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["shard.sqlite"]
