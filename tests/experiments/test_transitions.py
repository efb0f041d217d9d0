"""Transition tables: one fit per cell, each instance once, the committed CSVs up to date."""

from __future__ import annotations

import csv
import io
import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from lamcap.cli import main
from lamcap.experiments._analysis import cell_data, infeasible_proofs, stored_rows
from lamcap.experiments._runner import run_sweep
from lamcap.experiments._shift import finite_size_law, law_transition
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Sweep
from lamcap.experiments._transitions import (
    CAPACITY_COLUMNS,
    OP_VS_DP_COLUMNS,
    capacity_csv,
    op_vs_dp_csv,
)
from lamcap.experiments._trials import synthetic_trial

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "docs" / "measurements"

# synthetic transitions at p* = κ d²/4: 16 (d = 8), 36 (d = 12), 32 (d = 16, κ = 0.5)
_BOTH = Sweep(
    dims=(8, 12),
    models=("decoupled", "original"),
    p_grid=(12, 16, 20, 30, 36, 42),
    seeds_per_point=8,
)
_ONE = Sweep(
    dims=(16,), kappas=(0.5,), methods=("two_layer",), p_grid=(24, 32, 40), seeds_per_point=8
)
_OUT_OF_RANGE = Sweep(dims=(16,), p_grid=(8, 10), seeds_per_point=3)  # all storable


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("transitions")
    paths = [folder / f"{name}.sqlite" for name in ("both", "one", "edge")]
    for sweep, path in zip((_BOTH, _ONE, _OUT_OF_RANGE), paths, strict=True):
        run_sweep(sweep, path, trial=synthetic_trial, workers=0)
    return paths


def _by_hand(paths: list[Path]) -> dict[tuple[int, float, str, str], dict[int, list[str]]]:
    """Verdicts by cell and p, straight from the tables (no lamcap aggregation)."""
    grouped: dict[tuple[int, float, str, str], dict[int, list[str]]] = {}
    for path in paths:
        with sqlite3.connect(path) as connection:
            rows = connection.execute("SELECT d, rank, model, method, p, verdict FROM trials")
            for d, rank, model, method, p, verdict in rows:
                cell = (d, rank / d, model, method)
                grouped.setdefault(cell, {}).setdefault(p, []).append(verdict)
        connection.close()
    return grouped


def _parse(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_capacity_rows_are_the_fits_of_every_bracketed_cell(databases: list[Path]) -> None:
    text = capacity_csv(cell_data(databases))
    assert text.splitlines()[0] == ",".join(CAPACITY_COLUMNS)
    rows = _parse(text)
    expected = []
    for (d, kappa, model, method), by_p in sorted(_by_hand(databases).items()):
        ps = sorted(by_p)
        feasible = [by_p[p].count("feasible") for p in ps]
        law = finite_size_law(d, kappa, hebbian=method == "hebbian")
        fit = law_transition(ps, feasible, [len(by_p[p]) for p in ps], law)
        if fit is None or not fit.bracketed:  # None: all storable far below the law's p_c
            continue
        instances = sum(len(v) for v in by_p.values())
        bounds = [f"{fit.p_c:.3f}", f"{fit.low:.3f}", f"{fit.high:.3f}"]
        expected.append([str(d), f"{kappa:g}", model, method, *bounds, str(instances), "gaussian"])
    assert [list(row.values()) for row in rows] == expected
    assert [(r["d"], r["kappa"], r["model"]) for r in rows] == [
        ("8", "1", "decoupled"),
        ("8", "1", "original"),
        ("12", "1", "decoupled"),
        ("12", "1", "original"),
        ("16", "0.5", "decoupled"),
    ]  # d = 16, κ = 1 is all storable: no transition, left out
    for row in rows:  # the known synthetic transitions p* = κ d²/4 are found
        truth = float(row["kappa"]) * int(row["d"]) ** 2 / 4
        assert float(row["p_c_low"]) < truth < float(row["p_c_high"])


def test_op_vs_dp_keeps_full_rank_auto_cells_measured_with_both_models(
    databases: list[Path],
) -> None:
    cells = cell_data(databases)
    text = op_vs_dp_csv(cells)
    assert text.splitlines()[0] == ",".join(OP_VS_DP_COLUMNS)
    rows = _parse(text)
    assert [(r["d"], r["model"]) for r in rows] == [
        ("8", "decoupled"),
        ("8", "original"),
        ("12", "decoupled"),
        ("12", "original"),
    ]
    capacity = {(r["d"], r["model"]): r for r in _parse(capacity_csv(cells)) if r["kappa"] == "1"}
    for row in rows:  # the same numbers as the capacity table: one code path
        same = capacity[row["d"], row["model"]]
        shared = ("d", "model", "p_c", "p_c_low", "p_c_high")
        assert [row[k] for k in shared] == [same[k] for k in shared]
        # decided instances and undecided ones: together every stored instance
        assert int(row["instances"]) + int(row["undecided"]) == int(same["instances"])


def test_op_vs_dp_counts_decided_instances_and_reports_undecided_ones(tmp_path: Path) -> None:
    sweep = Sweep(
        dims=(8,), models=("decoupled", "original"), p_grid=(14, 18, 22, 26, 30), seeds_per_point=4
    )
    path = tmp_path / "undecided.sqlite"
    run_sweep(sweep, path, trial=synthetic_trial, workers=0)
    with sqlite3.connect(path) as connection:  # three original instances at p = 22 undecided
        connection.execute(
            "UPDATE trials SET verdict = 'undecided' WHERE id IN (SELECT id FROM trials "
            "WHERE model = 'original' AND p = 22 ORDER BY id LIMIT 3)"
        )
    connection.close()
    rows = {r["model"]: r for r in _parse(op_vs_dp_csv(cell_data(path)))}
    assert (rows["original"]["instances"], rows["original"]["undecided"]) == ("17", "3")
    assert (rows["decoupled"]["instances"], rows["decoupled"]["undecided"]) == ("20", "0")


def test_an_instance_in_two_databases_counts_once(databases: list[Path], tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite"
    shutil.copy(databases[0], copy)
    assert capacity_csv(cell_data([*databases, copy])) == capacity_csv(cell_data(databases))
    with sqlite3.connect(copy) as connection:
        connection.execute(
            "UPDATE trials SET verdict = 'undecided' WHERE id = (SELECT MIN(id) FROM trials)"
        )
    connection.close()
    with pytest.raises(ValueError, match=r"is '.*' in .* but 'undecided' in"):
        stored_rows([databases[0], copy])


def test_proven_only_leaves_out_infeasible_verdicts_not_proven_exactly(
    databases: list[Path],
) -> None:
    hand: Counter[tuple[int, str]] = Counter()
    with ResultsStore(databases[0], readonly=True) as store:
        for row in store.rows(d=8, model="decoupled"):
            hand[row["p"], row["verdict"], row["infeasible_proof"]] += 1
    assert hand.total() == 48
    assert any(proof == "bounded" for _, _, proof in hand)
    (cell, data), *_ = cell_data(databases[0], proven_only=True).items()
    assert (cell.d, cell.model) == (8, "decoupled")
    for p, feasible, decided in zip(data.p, data.feasible, data.decided, strict=True):
        assert feasible == hand[p, "feasible", None]
        assert decided == hand[p, "feasible", None] + hand[p, "infeasible", "exact"]
    counts = infeasible_proofs(databases[0])[cell]
    assert counts.exact == sum(v for (_, _, proof), v in hand.items() if proof == "exact")
    assert counts.bounded == sum(v for (_, _, proof), v in hand.items() if proof == "bounded")
    assert counts.unknown == 0


@pytest.mark.slow
def test_cli_writes_checks_and_reports_stale_files(
    databases: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, pairs, copy = (tmp_path / name for name in ("capacity.csv", "op_vs_dp.csv", "copy.csv"))
    given = ["--db", *map(str, databases), "--out", str(out), "--op-vs-dp", str(pairs), str(copy)]
    assert main(["results", "transitions", *given, "--check"]) == 1  # nothing written yet
    assert not out.exists()
    assert main(["results", "transitions", *given]) == 0
    assert "left out, transition not bracketed: d=16 κ=1" in capsys.readouterr().err
    assert out.read_text() == capacity_csv(cell_data(databases))
    assert pairs.read_text() == copy.read_text() == op_vs_dp_csv(cell_data(databases))
    assert main(["results", "transitions", *given, "--check"]) == 0
    out.write_text(out.read_text().replace("\n8,1,", "\n8,2,", 1))
    assert main(["results", "transitions", *given, "--check"]) == 1
    assert "differs from the databases" in capsys.readouterr().err
    assert main(["results", "transitions", "--db", str(databases[0]), "--check"]) == 2


def test_summary_counts_proofs_and_fits_proven_only(
    databases: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["results", "summary", "--db", str(databases[0]), "--proven-only"]) == 0
    out = capsys.readouterr().out
    counts = infeasible_proofs(databases[0])
    for cell, count in counts.items():
        line = f"| {cell.d} | 1 | {cell.model} | auto | {count.exact} | {count.bounded} | 0 |"
        assert line in out
    assert "fits count only infeasible verdicts proven exactly" in out


@pytest.mark.slow  # refits every committed cell: about 30 s of CPU; the fits are tested above
def test_committed_tables_are_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    databases = sorted((MEASUREMENTS / "data").glob("*.sqlite"))
    if not databases:
        pytest.skip("no committed databases (not a checkout)")
    code = main(
        [
            "results",
            "transitions",
            "--db",
            *map(str, databases),
            "--out",
            str(MEASUREMENTS / "capacity.csv"),
            "--op-vs-dp",
            str(MEASUREMENTS / "op_vs_dp.csv"),
            str(ROOT / "src" / "lamcap" / "experiments" / "data" / "op_vs_dp.csv"),
            "--check",
        ]
    )
    assert code == 0, capsys.readouterr().err
