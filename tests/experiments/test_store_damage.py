"""Damaged, truncated and foreign results stores (issue 37, item 1).

Every ``lamcap results`` sub-command and ``lamcap sweep`` meets each kind of bad
file with exit code 2 and exactly one line on stderr naming the file, without
changing it and without leaving any file behind; ``merge_stores`` replaces its
output only when the whole merge succeeded.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from lamcap.cli import main
from lamcap.experiments._runner import run_sweep
from lamcap.experiments._store import (
    DamagedStoreError,
    IncompatibleStoreError,
    ResultsStore,
    merge_stores,
)
from lamcap.experiments._sweep import Sweep
from lamcap.experiments._trials import synthetic_trial

WORKERS = ["--workers", "0", "--trial", "lamcap.experiments._trials:synthetic_trial"]


@pytest.fixture(scope="module")
def good_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 160 rows: its ``trials`` table spans several pages under an interior root."""
    path = tmp_path_factory.mktemp("good") / "good.sqlite"
    sweep = Sweep(dims=(8,), p_grid=(10, 20, 30, 40), seeds_per_point=40)
    run_sweep(sweep, path, trial=synthetic_trial, workers=0)
    return path


def _page_size(path: Path) -> int:
    with closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("PRAGMA page_size").fetchone()[0])


def _damage_trials_page(path: Path) -> None:
    """Overwrite a leaf page of ``trials`` (the right-most child of its root) with garbage."""
    with closing(sqlite3.connect(path)) as connection:
        (root,) = connection.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'trials'"
        ).fetchone()
    size = _page_size(path)
    data = bytearray(path.read_bytes())
    start = (root - 1) * size
    assert data[start] == 0x05, "the root of trials should be an interior page"
    leaf = int.from_bytes(data[start + 8 : start + 12], "big")
    data[(leaf - 1) * size + 8 : leaf * size] = b"\xa5" * (size - 8)
    path.write_bytes(bytes(data))


def _foreign(path: Path) -> None:
    path.unlink()
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
        connection.execute("INSERT INTO notes VALUES ('not ours')")
        connection.commit()


def _newer(path: Path) -> None:
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        connection.commit()


def _keep(path: Path, count: Callable[[Path], int]) -> None:
    path.write_bytes(path.read_bytes()[: count(path)])


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "empty": (lambda path: _keep(path, lambda _: 0), "is empty (0 bytes)"),
    "partial-header": (lambda path: _keep(path, lambda _: 50), "is truncated (50 bytes"),
    "partial-page": (
        lambda path: _keep(path, lambda p: 2 * _page_size(p) + 1000),
        "not a whole number of",
    ),
    "missing-pages": (
        lambda path: _keep(path, lambda p: 3 * _page_size(p)),
        "where its header counts",
    ),
    "damaged-page": (_damage_trials_page, "is damaged (SQLite"),
    "foreign": (_foreign, "is not a lamcap results database"),
    "newer-schema": (_newer, "schema version 999"),
}


@pytest.fixture(params=sorted(DAMAGES))
def bad_store(request: pytest.FixtureRequest, good_store: Path, tmp_path: Path) -> tuple[Path, str]:
    damage, message = DAMAGES[request.param]
    path = tmp_path / "bad.sqlite"
    shutil.copyfile(good_store, path)
    damage(path)
    return path, message


def _commands(bad: Path) -> dict[str, list[str]]:
    folder = bad.parent
    return {
        "summary": ["results", "summary", "--db", str(bad)],
        "export": ["results", "export", "--csv", str(folder / "out.csv"), "--db", str(bad)],
        "transitions": ["results", "transitions", "--db", str(bad)],
        "merge": ["results", "merge", str(folder / "out.sqlite"), str(bad)],
        "merge-into": ["results", "merge", str(bad), str(folder / "shard.sqlite")],
        "sweep": ["sweep", "--d", "8", "--p-grid", "10", "--db", str(bad), "--quiet", *WORKERS],
    }


@pytest.mark.parametrize(
    "command", ["summary", "export", "transitions", "merge", "merge-into", "sweep"]
)
def test_bad_store_exits_2_in_one_line_changing_nothing(
    bad_store: tuple[Path, str],
    good_store: Path,
    command: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad, message = bad_store
    shutil.copyfile(good_store, bad.parent / "shard.sqlite")
    before = {path.name: path.read_bytes() for path in bad.parent.iterdir()}
    assert main(_commands(bad)[command]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert message in lines[0]
    assert repr(str(bad)) in lines[0]
    assert "Traceback" not in captured.err
    after = {path.name: path.read_bytes() for path in bad.parent.iterdir()}
    assert after == before  # nothing changed, nothing left behind


@pytest.mark.parametrize("readonly", [True, False])
def test_bad_store_raises_the_store_errors(bad_store: tuple[Path, str], readonly: bool) -> None:
    bad, message = bad_store
    before = bad.read_bytes()
    with pytest.raises(IncompatibleStoreError, match=re.escape(message)) as raised:
        ResultsStore(bad, readonly=readonly)
    kind = next(name for name, (_, text) in DAMAGES.items() if text == message)
    assert isinstance(raised.value, DamagedStoreError) == (kind not in {"foreign", "newer-schema"})
    assert bad.read_bytes() == before
    assert sorted(path.name for path in bad.parent.iterdir()) == ["bad.sqlite"]


def test_failed_merge_leaves_the_output_as_it_was_and_nothing_behind(
    good_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shards = [tmp_path / "1.sqlite", tmp_path / "2.sqlite"]
    for shard in shards:
        shutil.copyfile(good_store, shard)
    calls = []

    def fail_second(store: ResultsStore, rows: list[dict[str, object]], **table: str) -> int:
        calls.append(len(rows))
        if len(calls) == 2:
            msg = "disk I/O error"  # as a full disk would stop the merge
            raise sqlite3.OperationalError(msg)
        return original(store, rows, **table)

    original = ResultsStore.add_rows
    monkeypatch.setattr(ResultsStore, "add_rows", fail_second)
    with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
        merge_stores(tmp_path / "new.sqlite", shards)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["1.sqlite", "2.sqlite"]

    shutil.copyfile(good_store, tmp_path / "old.sqlite")
    before = (tmp_path / "old.sqlite").read_bytes()
    calls.clear()
    with pytest.raises(sqlite3.OperationalError):
        merge_stores(tmp_path / "old.sqlite", shards)
    assert (tmp_path / "old.sqlite").read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "1.sqlite",
        "2.sqlite",
        "old.sqlite",
    ]
    monkeypatch.undo()
    outcome = merge_stores(tmp_path / "new.sqlite", shards)
    assert (outcome.added, outcome.present) == (160, 160)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "1.sqlite",
        "2.sqlite",
        "new.sqlite",
        "old.sqlite",
    ]
