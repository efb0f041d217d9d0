"""Numbers quoted by the how-to and measurement pages, against what produces them.

Each how-to and measurement page opens with a three-line "What this page found" box
(issue 38 item 5); a box line that quotes a number a CSV holds is checked against the
CSV here, as are the corrections of issue 36 item 4.
"""

from __future__ import annotations

import csv
import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

import lamcap

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _table(text: str, header_start: str) -> list[list[str]]:
    """The rows (cells stripped) of the Markdown table whose header starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_nichani_prediction_table_is_the_theory() -> None:
    rows = _table(_page("howto/nichani-protocol.md"), "| $d$ | unit-norm law |")
    assert [int(row[0]) for row in rows] == [8, 11, 16, 22, 32, 45, 64, 90, 128, 181, 256]
    for row in rows:
        d = int(row[0])
        unit = float(lamcap.critical_p(d, embeddings="sphere"))
        fit = brentq(lambda n, d=d: n * math.log(n) - d * d / 1.3, 2.0, 1e6)
        assert row[1:] == [
            f"{unit:.1f}",
            f"{unit * math.log(unit) / d**2:.3f}",
            f"{float(lamcap.critical_p(d)):.1f}",
            f"{float(lamcap.critical_p(d, accuracy=0.99)):.1f}",
            f"{float(lamcap.critical_p(d, accuracy=0.99, embeddings='sphere')):.1f}",
            f"{fit:.1f}",
        ], d


def test_nichani_page_says_what_the_transpose_changes() -> None:
    text = _page("howto/nichani-protocol.md")
    assert "the transpose changes nothing" not in text
    assert "no unit-norm version" not in text
    assert 'convention="logits"' in text


def test_getting_started_says_when_lamcap_solve_prints_the_compile_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import dataclasses
    import json

    from lamcap.cli import main
    from lamcap.cli._solver_commands import _print_text

    text = _page("getting-started.md")
    assert "`lamcap solve` prints both" not in text
    assert "adds a `compiling:` line only when the call compiled something" in text
    assert main(["solve", "--d", "8", "--p", "6", "--n", "4", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {"seconds", "compile_seconds"} <= set(summary)
    instance = lamcap.make_instance(8, 6, n=4, seed=0)
    result = lamcap.solve(instance)
    summary = {"objective": "feasible", "certificate_bound": None}
    for compile_seconds, shown in ((0.0, False), (10.6, True)):
        _print_text(dataclasses.replace(result, compile_seconds=compile_seconds), instance, summary)
        out = capsys.readouterr().out
        assert re.search(r"^seconds: \d+\.\d{3} \(wall clock, cutting_plane\)$", out, re.MULTILINE)
        line = "compiling: 10.6 s (numba, first solves after an install only; cached on disk)"
        assert (line in out) is shown
        assert f"`{line}`" in text


# ------------------------------------------------------------- the boxes on top

BOX_TITLES = {"found": "What this page found", "do": "What this page lets you do"}
BOX_PAGES = sorted(
    path.relative_to(DOCS).as_posix()
    for folder in ("howto", "measurements")
    for path in (DOCS / folder).glob("*.md")
)


def _box(name: str) -> tuple[str, list[str]]:
    """The title and the three lines of the box that opens page ``name``."""
    lines = _page(name).splitlines()
    assert lines[0].startswith("# "), name
    rest = list(lines[1:])
    while rest and not rest[0].strip():
        rest.pop(0)
    match = re.fullmatch(r'!!! abstract "(?P<title>[^"]+)"', rest[0])
    assert match, f"{name}: the first block after the title is not the box: {rest[0]!r}"
    items = []
    for line in rest[1:]:
        if not line.strip():
            break
        assert line.startswith("    - "), f"{name}: a box line is not one bullet: {line!r}"
        items.append(line[len("    - ") :])
    return match["title"], items


def _line(name: str, index: int) -> str:
    return _box(name)[1][index]


@pytest.mark.parametrize("name", BOX_PAGES)
def test_every_howto_and_measurement_page_opens_with_three_findings(name: str) -> None:
    title, items = _box(name)
    assert title in BOX_TITLES.values(), name
    if name.startswith("measurements/"):
        assert title == BOX_TITLES["found"], name
    assert len(items) == 3, name
    numbered = [item for item in items if re.search(r"\d", item)]
    if title == BOX_TITLES["found"]:  # every finding with its number
        assert numbered == items, f"{name}: a finding without its number"
    else:  # a procedure: what it lets you do, and the one number that matters
        assert numbered, f"{name}: no number in the box"


def test_the_box_check_catches_a_page_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "howto").mkdir()
    (tmp_path / "howto" / "x.md").write_text(
        '# X\n\nText first.\n\n!!! abstract "What this page found"\n', encoding="utf-8"
    )
    monkeypatch.setattr(sys.modules[__name__], "DOCS", tmp_path)
    with pytest.raises(AssertionError, match="not the box"):
        _box("howto/x.md")
    (tmp_path / "howto" / "x.md").write_text(
        '# X\n\n!!! abstract "What this page found"\n    - 1\n    - 2\n', encoding="utf-8"
    )
    assert len(_box("howto/x.md")[1]) == 2


def _csv(name: str) -> list[dict[str, str]]:
    with (DOCS / "measurements" / name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _points(value: float) -> str:
    return f"{100 * value:.1f}"


def _percent_range(values: list[float]) -> str:
    return f"{round(100 * min(values))}–{round(100 * max(values))}%"


def test_recall_fraction_box_is_the_csv() -> None:
    rows = _csv("recall_fraction.csv")

    def gap(d: int, load: float, model: str = "decoupled") -> str:
        (row,) = [
            r for r in rows
            if (int(r["d"]), r["model"], r["embeddings"]) == (d, model, "gaussian")
            and abs(float(r["load"]) - load) < 0.02
        ]  # fmt: skip
        return _points(float(row["rs_accuracy"]) - float(row["accuracy_lower"]))

    assert _line("measurements/recall-fraction.md", 0) == (
        "Beyond capacity the RS law lies inside every certified bracket: at 1.25 $p_c$ it is "
        f"{gap(16, 1.25)}, {gap(32, 1.25)} and {gap(64, 1.25)} points above the mean certified "
        "lower bound at $d = 16$, 32 and 64 (decoupled), at 2 $p_c$ "
        f"{gap(16, 2.0)} and {gap(32, 2.0)} points ($d = 16$, 32)."
    )
    beyond = [r for r in rows if float(r["load"]) > 1.02]
    assert all(
        float(r["accuracy_lower"]) < float(r["rs_accuracy"]) < float(r["accuracy_upper"])
        for r in beyond
    )
    exact = [
        r for r in _csv("recall_fraction_exact.csv") if (r["d"], r["model"]) == ("8", "decoupled")
    ]
    quoted = []
    for load in ("1.1", "1.25"):
        found = np.array([int(r["mip_recalled"]) for r in exact if r["load"] == load])
        assert all(r["mip_status"] == "0" for r in exact if r["load"] == load)  # proven optimal
        (n,) = {int(r["p"]) for r in exact if r["load"] == load}
        (rs,) = {float(r["rs_recalled"]) for r in exact if r["load"] == load}
        below = 100 * (rs - found.mean()) / n
        error = 100 * found.std(ddof=1) / math.sqrt(found.size) / n
        quoted.append(f"${below:.1f} \\pm {error:.1f}\\%$")
        body = " ".join(_page("measurements/recall-fraction.md").split())
        mean_line = (
            f"${found.mean():.2f} \\pm {found.std(ddof=1) / math.sqrt(found.size):.2f}$ of {n}"
        )
        assert mean_line in body
        assert f"($-{below:.1f} \\pm {error:.1f}\\%" in body
        assert f"${below:.1f} \\pm {error:.1f}\\%$" in _page("theory/index.md")
    assert _line("measurements/recall-fraction.md", 1) == (
        f"At $d = 8$ the proven optimum (mixed-integer program) lies {quoted[0]} and "
        f"{quoted[1]} of $n$ below the law at 1.1 and 1.25 $p_c$."
    )
    gaussian = [r for r in rows if r["embeddings"] == "gaussian"]

    def at(load: float, column: str) -> list[float]:
        values = [float(r[column]) for r in gaussian if abs(float(r["load"]) - load) < 0.02]
        return [v for v in values if not math.isnan(v)]

    assert _line("measurements/recall-fraction.md", 2) == (
        f"Adam on the cross-entropy recalls {_percent_range(at(1.25, 'adam_accuracy'))} at 1.25 "
        f"$p_c$ and {_percent_range(at(2.0, 'adam_accuracy'))} at 2 $p_c$, where the best "
        f"certified $W$ recalls {_percent_range(at(1.25, 'accuracy_lower'))[:-1]}% and "
        f"{_percent_range(at(2.0, 'accuracy_lower'))}."
    )


def test_recall_fraction_unit_norm_paragraph_is_the_csv() -> None:
    rows = _csv("recall_fraction.csv")

    def gap(embeddings: str, model: str, load: float) -> str:
        (row,) = [
            r for r in rows
            if (int(r["d"]), r["model"], r["embeddings"]) == (16, model, embeddings)
            and abs(float(r["load"]) - load) < 0.02
        ]  # fmt: skip
        return _points(float(row["rs_accuracy"]) - float(row["accuracy_lower"]))

    text = " ".join(_page("measurements/recall-fraction.md").split())
    assert (
        f"by {gap('sphere', 'decoupled', 1.25)} (decoupled) and "
        f"{gap('sphere', 'original', 1.25)} (original) points at 1.25 $p_c$ and "
        f"{gap('sphere', 'decoupled', 2.0)} and {gap('sphere', 'original', 2.0)} at 2 $p_c$"
    ) in text
    assert (
        f"Gaussian lower bounds at the same $d$ and load ({gap('gaussian', 'decoupled', 1.25)} "
        f"and {gap('gaussian', 'decoupled', 2.0)} points, decoupled)"
    ) in text
    assert "8.4 points" not in text


def test_milp_statement_says_what_inclusion_needs() -> None:
    text = " ".join(_page("measurements/recall-fraction.md").split())
    assert "exclude only recall at normalised margins below" not in text
    assert "at margins of at least $10^{-3}$ is always counted" in text
    from lamcap.solvers._max_recall import _MILP_MARGIN, milp_recall

    assert _MILP_MARGIN == 1e-3
    assert "exclude only recall" not in (milp_recall.__doc__ or "")


def _capacity_gaps(model: str, embeddings: str) -> dict[int, tuple[float, bool]]:
    gaps = {}
    for row in _csv("capacity.csv"):
        if (row["kappa"], row["model"], row["method"], row["embeddings"]) != (
            "1",
            model,
            "auto",
            embeddings,
        ):
            continue
        d = int(row["d"])
        law = float(lamcap.critical_p(d, embeddings=embeddings))
        inside = float(row["p_c_low"]) <= law <= float(row["p_c_high"])
        gaps[d] = (100 * (float(row["p_c"]) / law - 1), inside)
    return gaps


def test_capacity_box_is_the_csv() -> None:
    decoupled = _capacity_gaps("decoupled", "gaussian")
    low, high = min(g for g, _ in decoupled.values()), max(g for g, _ in decoupled.values())
    assert sorted(decoupled) == [8, 12, 16, 24, 32, 48, 64, 96]
    assert all(inside for _, inside in decoupled.values())
    assert _line("measurements/capacity.md", 0) == (
        f"Decoupled problem, Gaussian embeddings: the certified transitions lie {low:+.1f}% "
        f"to {high:+.1f}% from `critical_p(d)` at $d = 8$–96, the law inside all "
        f"{len(decoupled)} of their 95% intervals."
    ).replace("-", "−", 1)
    original = [g for g, _ in _capacity_gaps("original", "gaussian").values()]
    assert _line("measurements/capacity.md", 1) == (
        f"Original problem (one shared output matrix): {min(original):+.1f}% to "
        f"{max(original):+.1f}% above `critical_p(d)` at $d = 8$–96."
    )
    sphere = _capacity_gaps("decoupled", "sphere")
    rest = {d: v for d, v in sphere.items() if d >= 12}
    assert sorted(rest) == [12, 16, 24, 32, 48, 64]
    assert all(inside for _, inside in rest.values())
    assert not sphere[8][1]
    gaps = [g for g, _ in rest.values()]
    assert _line("measurements/capacity.md", 2) == (
        f"Unit-norm embeddings, decoupled: {min(gaps):.1f}% to {max(gaps):.1f}% above "
        f'`critical_p(d, embeddings="sphere")` at $d = 12$–64 (the law inside all '
        f"{len(rest)} intervals), {sphere[8][0]:.1f}% above it at $d = 8$."
    )


def test_op_vs_dp_box_is_the_csv() -> None:
    rows = {int(r["d"]): r for r in _csv("op_vs_dp_ratio.csv")}
    ratios = [float(r["ratio"]) for r in rows.values()]

    def interval(d: int) -> str:
        r = rows[d]
        return (
            f"{float(r['ratio']):.3f} [{float(r['ratio_low']):.3f}, {float(r['ratio_high']):.3f}]"
        )

    assert all(float(r["ratio"]) > 1 for r in rows.values())
    assert _line("measurements/op_vs_dp.md", 0) == (
        "The original problem stores more than the decoupled one at every $d = 8$–96: OP/DP "
        f"from {min(ratios):.3f} to {max(ratios):.3f}, {interval(64)} at $d = 64$."
    )
    width = {d: float(rows[d]["ratio_high"]) - float(rows[d]["ratio_low"]) for d in rows}
    assert round(width[96] / width[64]) == 3
    contains = [d for d in sorted(rows) if float(rows[d]["ratio_low"]) <= 1.0]
    assert contains == [12, 96]
    assert _line("measurements/op_vs_dp.md", 1) == (
        f"At $d = 96$ the ratio, {interval(96)}, is the first interval since $d = 12$ to "
        "contain 1, and three times as wide as at $d = 64$."
    )
    assert "3.5 times as wide" not in _page("measurements/op_vs_dp.md")


def test_spectrum_box_is_the_csv() -> None:
    from scipy import stats

    from lamcap.theory._spectrum import singular_value_moment

    best: dict[tuple[int, int], dict[int, tuple[float, float]]] = {}
    for row in _csv("spectrum_finite_size.csv"):
        if row["verdict"] != "feasible" or int(row["seed"]) < 1000:
            continue
        seeds = best.setdefault((int(row["d"]), int(row["p"])), {})
        seed, distance = int(row["seed"]), float(row["distance_bound"])
        if seed not in seeds or distance < seeds[seed][0]:
            seeds[seed] = (distance, float(row["ratio"]))
    covered, missed = 0, []
    loads = []
    for (d, p), seeds in sorted(best.items()):
        ratios = np.array([ratio for _, ratio in seeds.values()])
        law, error = (float(v) for v in singular_value_moment(4, d=d, p=p, return_error=True))
        se = ratios.std(ddof=1) / math.sqrt(ratios.size)
        allowance = math.hypot(error, stats.t.ppf(0.975, ratios.size - 1) * se)
        loads.append(p / float(lamcap.critical_p(d)))
        if abs(ratios.mean() - law) <= allowance:
            covered += 1
        else:
            missed.append((d, p, ratios.mean(), se, law, error))
    assert {d for d, _ in best} == {16, 24, 32, 48, 64}
    assert f"{min(loads):.1f}–{max(loads):.2f}" == "0.5–0.96"
    fresh = _fresh_spectrum_points()
    fresh_covered = sum(point[-1] for point in fresh)
    low, high = _clopper_pearson(fresh_covered, len(fresh))
    assert _line("measurements/spectrum.md", 0) == (
        "The fitted law `singular_value_moment(4, d=d, p=p)` (one amplitude, $c = 1.307$) "
        f"covers {fresh_covered} of {len(fresh)} fresh $(d, p)$ points (d = 20, 28, 40, 56 "
        "at 0.6–0.95 `critical_p(d)`, never in any fit; 95% interval "
        f"{round(100 * low)}–{round(100 * high)}%) and {covered} of {len(best)} held-out "
        "seeds of its build points."
    )
    ((d, p, mean, se, law, error),) = missed
    ((fd, fp, fmean, fse, flaw, ferror, _),) = [point for point in fresh if not point[-1]]
    assert _line("measurements/spectrum.md", 1) == (
        "Its misses are near capacity at small d, where it runs low: "
        f"$d = {fd}$ at {FRESH_LOADS[fd, fp]} $p_c$ (fresh, "
        f"${fmean:.3f} \\pm {fse:.3f}$ against ${flaw:.3f} \\pm {ferror:.3f}$) and "
        f"$d = {d}$ at {p / float(lamcap.critical_p(d)):.2f} $p_c$ (held-out, "
        f"${mean:.3f} \\pm {se:.3f}$ against ${law:.3f} \\pm {error:.3f}$)."
    )


def _clopper_pearson(covered: int, total: int) -> tuple[float, float]:
    from scipy import stats

    low = 0.0 if covered == 0 else float(stats.beta.ppf(0.025, covered, total - covered + 1))
    high = 1.0 if covered == total else float(stats.beta.ppf(0.975, covered + 1, total - covered))
    return low, high


#: The load each fresh point was asked at (the solves' ``fraction`` column), by (d, p).
FRESH_LOADS: dict[tuple[int, int], str] = {}


def _fresh_spectrum_points() -> list[tuple[int, int, float, float, float, float, bool]]:
    """(d, p, mean, se, law, error, covered) of spectrum_fresh.csv, recomputed from the rows."""
    from scipy import stats

    from lamcap.theory._spectrum import singular_value_moment

    ratios: dict[tuple[int, int], list[float]] = {}
    for row in _csv("spectrum_fresh.csv"):
        if row["verdict"] == "feasible":
            ratios.setdefault((int(row["d"]), int(row["p"])), []).append(float(row["ratio"]))
            FRESH_LOADS[int(row["d"]), int(row["p"])] = f"{float(row['fraction']):.2f}"
    points = []
    for (d, p), values in sorted(ratios.items()):
        array = np.array(values)
        mean, se = float(array.mean()), float(array.std(ddof=1) / math.sqrt(array.size))
        law, error = (float(v) for v in singular_value_moment(4, d=d, p=p, return_error=True))
        allowance = math.hypot(error, stats.t.ppf(0.975, array.size - 1) * se)
        points.append((d, p, mean, se, law, error, abs(mean - law) <= allowance))
    return points


def test_spectrum_fresh_table_is_the_csv() -> None:
    """The fresh-size table of spectrum.md and its CSV, both recomputed from the solves."""
    points = _fresh_spectrum_points()
    coverage = _csv("spectrum_fresh_coverage.csv")
    assert [(int(row["d"]), int(row["p"])) for row in coverage] == [(d, p) for d, p, *_ in points]
    expected = []
    for row, (d, p, mean, se, law, error, covered) in zip(coverage, points, strict=True):
        assert (row["mean"], row["se"]) == (f"{mean:.4f}", f"{se:.4f}")
        assert (row["law"], row["law_error"], row["covered"]) == (
            f"{law:.4f}",
            f"{error:.4f}",
            str(int(covered)),
        )
        fraction = FRESH_LOADS[d, p]
        expected.append(
            [
                str(d),
                f"{p} ({fraction})",
                row["matrices"],
                f"{mean:.4f} ± {se:.4f}",
                f"{law:.4f} ± {error:.4f}",
                "yes" if covered else "no",
            ]
        )
    page = _page("measurements/spectrum.md")
    assert _table(page, "| d | p (/ p_c) | matrices | measured E[s⁴]/E[s²]²") == expected
    low, high = _clopper_pearson(sum(point[-1] for point in points), len(points))
    assert f"exact 95% interval [{low:.2f}, {high:.2f}]" in page


def test_nichani_box_is_the_csv() -> None:
    def means(name: str) -> dict[int, float]:
        values: dict[int, list[int]] = {}
        for row in _csv(name):
            if int(row["n_99"]) > 0:  # -1: a bisection that did not finish
                values.setdefault(int(row["d"]), []).append(int(row["n_99"]))
        return {d: float(np.mean(v)) for d, v in values.items()}

    protocol = means("nichani_protocol.csv")
    law = {d: float(lamcap.critical_p(d, embeddings="sphere")) for d in protocol}
    small = [protocol[d] / law[d] for d in protocol if d <= 22]
    assert _line("howto/nichani-protocol.md", 0) == (
        f"The protocol's 99% answer is {min(small):.3f}–{max(small):.3f} of the unit-norm law "
        f"at $d \\le 22$ and {protocol[64] / law[64]:.3f} at $d = 64$ ({protocol[64]:.1f} "
        f"against {law[64]:.1f})."
    )
    solver = means("nichani_protocol_solver.csv")
    large = [d for d in sorted(solver) if d >= 22]
    assert large == [22, 32, 45, 64]
    theory = {d: float(lamcap.critical_p(d, accuracy=0.99, embeddings="sphere")) for d in large}
    assert all(abs(solver[d] / theory[d] - 1) < 0.01 for d in large)
    assert _line("howto/nichani-protocol.md", 2) == (
        "lamcap's max-recall solver on the same instances reaches 99% at "
        + ", ".join(f"{solver[d]:.1f}" for d in large[:-1])
        + f" and {solver[64]:.1f} ($d = 22$–64), within 1% of "
        '`critical_p(d, accuracy=0.99, embeddings="sphere")`.'
    )


def test_reproduce_box_and_simulation_sizes_are_the_csv() -> None:
    rows = _csv("verdict_rates.csv")
    assert {int(r["runs"]) for r in rows} == {1000}
    assert {int(r["claims"]) for r in rows} == {15000}
    exact = [r for r in rows if r["family"].startswith("exact law")]
    false_calls = [
        int(r["runs_any_inconsistent"])
        if float(r["multiple"]) <= 1
        else int(r["runs_any_consistent"])
        for r in exact
    ]
    covered = [int(r["runs_covered"]) / 10 for r in exact]
    assert _line("howto/reproduce.md", 2) == (
        "The interval rule, simulated over 1000 runs of 15 claims: at most "
        f"{max(false_calls) / 10:.1f}% of the runs make a false call, and all of a run's "
        f"intervals cover their truth in {min(covered):.1f}–{max(covered):.1f}% of the runs."
    )
    assert "(1000 runs × 15 claims)" in _page("howto/reproduce.md")


def test_procedure_boxes_quote_the_pages_own_numbers() -> None:
    assert f"{24 * math.log(24) / 16**2:.2f}" == "0.30"
    assert "load 0.30" in _line("howto/own-embeddings.md", 1)
    assert "print(outcome.added, outcome.missing_shards)  # 12 {}" in _page("howto/job-arrays.md")
    assert "one instance\nalone 514 s, two at once 964 s" in _page("howto/dask-sweep.md")
    assert "fourth-moment ratio is 2.50" in _page("howto/own-weights.md")


def test_partial_recall_unit_norm_agreement_is_the_csv() -> None:
    rows = {(int(r["d"]), float(r["load"])): r for r in _csv("unit_norm_recall_model.csv")}
    text = " ".join(_page("theory/partial-recall.md").split())
    assert "exact to Monte Carlo precision" not in text
    standard_errors = {
        d: float(rows[d, 1.25]["model_minus_exact"]) / float(rows[d, 1.25]["exact_law_se"])
        for d in (16, 32, 64)
    }
    assert abs(standard_errors[16]) < 0.2
    assert abs(standard_errors[64]) < 0.2
    miss = rows[32, 1.25]
    assert (
        f"but {-float(miss['model_minus_exact']):.4f} below it at $d = 32$ "
        f"({float(miss['model_minus_exact']):.4f} ± {float(miss['exact_law_se']):.4f}, "
        f"{abs(standard_errors[32]):.1f} standard errors)"
    ).replace("(-", "(−") in text
    assert 'Status: asymptotic"\n    `best_accuracy(..., embeddings="sphere")`' in _page(
        "theory/partial-recall.md"
    )
    index = _page("theory/index.md")
    (row,) = [
        line
        for line in index.splitlines()
        if 'with `embeddings="sphere"` | ' in line and "best_accuracy" in line
    ]
    assert row.split(" | ")[1] == "asymptotic"


def test_unit_norm_paired_remeasurement_table_is_the_csv() -> None:
    """docs/measurements/capacity.md's paired re-measurement at d = 8 and 12, row by row."""
    fits = {(int(row["d"]), row["embeddings"]): row for row in _csv("unit_norm_paired.csv")}
    expected = []
    for d in sorted({d for d, _ in fits}):
        gaussian, sphere = fits[d, "gaussian"], fits[d, "sphere"]
        assert gaussian["instances"] == sphere["instances"]  # the same seeds, paired
        laws = [float(lamcap.critical_p(d)), float(lamcap.critical_p(d, embeddings="sphere"))]
        cells = [str(d), gaussian["instances"]]
        for row, law in zip((gaussian, sphere), laws, strict=True):
            p_c = float(row["p_c"])
            interval = f"[{float(row['p_c_low']):.2f}, {float(row['p_c_high']):.2f}]"
            cells += [f"{p_c:.2f} {interval}", f"{law:.2f}", f"{100 * (p_c / law - 1):+.1f}%"]
        ratio = float(sphere["p_c"]) / float(gaussian["p_c"])
        cells += [f"{ratio:.3f}", f"{laws[1] / laws[0]:.3f}"]
        expected.append(cells)
    rows = _table(_page("measurements/capacity.md"), "| d | instances per embeddings |")
    assert rows == expected


# docs/theory/original-problem.md: the problems between OP and DP, in the page's order
_BETWEEN = [
    ("OP itself (redrawn $f = 0$)", "redrawn", 0.0),
    ("redrawn $f = 0.05$", "redrawn", 0.05),
    ("redrawn $f = 0.1$", "redrawn", 0.1),
    ("redrawn $f = 0.25$", "redrawn", 0.25),
    ("redrawn $f = 0.5$", "redrawn", 0.5),
    ("redrawn $f = 0.75$", "redrawn", 0.75),
    ("DP in law (redrawn $f = 1$)", "redrawn", 1.0),
    ("random targets", "random-targets", 1.0),
    ("unused $q = 0.1$ (over DP with the same $n$, $p$)", "unused", 0.1),
    ("unused $q = 0.37$ (over DP with the same $n$, $p$)", "unused", 0.37),
    ("unit-norm OP (over unit-norm DP)", "unit-norm", 1.0),
    ("shared directions", "shared-directions", 1.0),
    ("shared lengths", "shared-lengths", 1.0),
    ("rotated OP", "rotated-original", 1.0),
    ("shared competitors $s = 1$", "shared", 1.0),
    ("shared competitors $s = 0.5$", "shared", 0.5),
    ("rotated shared competitors", "rotated-shared", 1.0),
    ("whitened shared competitors", "whitened-shared", 1.0),
]
_DECOMPOSITION_DIMS = (16, 24, 32)


def _pooled_ratio(fits: dict, variant: str, parameter: float, reference: str) -> str:
    """The ratios at every d combined: inverse-variance mean of log ratio, each standard
    error taken as the 95% interval's half-width in log ratio over 1.96."""
    logs, weights = [], []
    for d in _DECOMPOSITION_DIMS:
        fit = fits.get((variant, parameter, d))
        if fit is None:
            continue
        low, high = (math.log(float(fit[f"over_{reference}{end}"])) for end in ("_low", "_high"))
        logs.append(math.log(float(fit[f"over_{reference}"])))
        weights.append((2 * 1.96 / (high - low)) ** 2)
    centre = sum(w * x for w, x in zip(weights, logs, strict=True)) / sum(weights)
    half = 1.96 / math.sqrt(sum(weights))
    return f"{math.exp(centre):.3f} [{math.exp(centre - half):.3f}, {math.exp(centre + half):.3f}]"


def _decomposition_rows() -> list[list[str]]:
    """The page's table, rebuilt from original_decomposition.csv and original_overlap.csv."""
    fits = {
        (r["variant"], float(r["parameter"]), int(r["d"])): r
        for r in _csv("original_decomposition.csv")
    }
    overlaps = {
        (r["variant"], float(r["parameter"]), int(r["d"])): r for r in _csv("original_overlap.csv")
    }
    rows = []
    for label, variant, parameter in _BETWEEN:
        reference = {"unused": "unused_decoupled", "unit-norm": "unit_norm_decoupled"}.get(
            variant, "decoupled"
        )
        cells, instances = [label], 0
        for d in _DECOMPOSITION_DIMS:
            fit = fits.get((variant, parameter, d))
            if fit is None:
                cells.append("")
                continue
            instances += int(fit["instances"])
            if reference != "decoupled":  # and the instances of its own reference
                own = reference.replace("_", "-")
                instances += int(fits[own, parameter, d]["instances"])
            cells.append(
                f"{float(fit[f'over_{reference}']):.3f} [{float(fit[f'over_{reference}_low']):.3f},"
                f" {float(fit[f'over_{reference}_high']):.3f}]"
            )
        cells.append(_pooled_ratio(fits, variant, parameter, reference))
        cells.append(str(instances))
        overlap = overlaps[variant, parameter, 24]
        cells.append(
            f"{float(overlap['pair_overlap']):.2f} ± {float(overlap['pair_overlap_se']):.2f}"
        )
        rows.append(cells)
    return rows


def test_original_problem_decomposition_table_is_the_csv() -> None:
    rows = _table(_page("theory/original-problem.md"), "| problem | ratio over DP, $d = 16$")
    assert rows == _decomposition_rows()


_METRIC_PROBLEMS = {
    "shared": "shared competitors, fresh target",
    "original": "OP",
    "decoupled": "DP, metric of an unrelated cloud",
}


_METRIC_GAMMAS = (0.5, 1.0, 2.0, 5.0)  # the page's columns (the CSV also has 3)


def _metric_rows() -> list[list[str]]:
    cells: dict[tuple[str, int], list[str]] = {}
    for row in _csv("original_metric_count.csv"):
        key = (row["problem"], int(row["d"]))
        if float(row["gamma"]) == 0:
            cells[key] = [_METRIC_PROBLEMS[row["problem"]], row["d"]]
        elif float(row["gamma"]) in _METRIC_GAMMAS:
            cells[key].append(f"{float(row['ratio']):.3f} ± {float(row['ratio_se']):.3f}")
    return list(cells.values())


def test_original_problem_metric_table_is_the_csv() -> None:
    rows = _table(_page("theory/original-problem.md"), "| problem | $d$ | $\\gamma = 0.5$")
    assert rows == _metric_rows()


def _reciprocity_sentence() -> str:
    rows = _csv("original_reciprocity.csv")
    parts = {}
    for d in sorted({int(r["d"]) for r in rows}):
        chosen = [r for r in rows if int(r["d"]) == d]
        parts[d] = [
            np.mean([float(r[k]) for r in chosen]) for k in ("active", "reciprocal", "chance")
        ]
    (a, b), counts = sorted(parts), {d: sum(int(r["d"]) == d for r in rows) for d in parts}
    return (
        f"an association has {parts[a][0]:.2f} ($d = {a}$) and {parts[b][0]:.2f} ($d = {b}$) "
        f"active competitors on average ({counts[a]} and {counts[b]} instances). Of the active "
        f"pairs $(\\mu, \\rho)$, {100 * parts[a][1]:.1f}% and {100 * parts[b][1]:.1f}% have their "
        f"mirror $(\\rho, \\mu)$ active too, against {100 * parts[a][2]:.1f}% and "
        f"{100 * parts[b][2]:.1f}% if the active sets were drawn at random: "
        f"{parts[a][1] / parts[a][2]:.1f} and {parts[b][1] / parts[b][2]:.1f} times chance."
    )


def test_original_problem_reciprocity_is_the_csv() -> None:
    text = " ".join(_page("theory/original-problem.md").split())
    assert _reciprocity_sentence() in text


def test_original_problem_quotes_the_measured_excess() -> None:
    ratios = [float(r["ratio"]) for r in _csv("op_vs_dp_ratio.csv")]
    span = f"{100 * (min(ratios) - 1):.1f}–{100 * (max(ratios) - 1):.1f}%"
    assert f"stores {span} more" in " ".join(_page("theory/original-problem.md").split())
    assert f"stores {span} more" in _page("theory/index.md")
    assert f"measured correction ({min(ratios):.3f}–{max(ratios):.3f}" in _page(
        "theory/original-problem.md"
    )


FAN_CELLS = {("redrawn", "0.0"), ("unused", "0.1"), ("unused", "0.37")}


def test_original_problem_text_quotes_the_table() -> None:
    """Every 'r [low, high]' of the text is a cell of the decomposition table, and the
    percentages of the findings are the table's ratios."""
    page = _page("theory/original-problem.md")
    prose = " ".join(
        " ".join(line for line in page.splitlines() if not line.startswith("|")).split()
    )
    rows = _decomposition_rows()
    cells = {cell for row in rows for cell in row[1:5]}
    quoted = re.findall(r"\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]", prose)
    assert len(quoted) >= 10
    assert set(quoted) <= cells, set(quoted) - cells
    fits = {
        (r["variant"], float(r["parameter"]), int(r["d"])): float(r["over_decoupled"])
        for r in _csv("original_decomposition.csv")
        if r.get("over_decoupled")
    }
    excess = [100 * (fits["redrawn", 0.0, d] - 1) for d in _DECOMPOSITION_DIMS]
    assert f"({min(excess):.1f}–{max(excess):.1f}% at each $d$" in prose
    shared = [f"{100 * (fits['shared', 1.0, d] - 1):.1f}%" for d in _DECOMPOSITION_DIMS]
    assert f"({shared[0]}, {shared[1]} and {shared[2]} at $d = 16$, 24, 32)" in prose
    low, high = sorted(100 * (fits["shared", 1.0, d] - 1) for d in _DECOMPOSITION_DIMS)[::2]
    assert f"{round(low)}–{round(high)}% more than DP" in prose
    overlaps = {
        (r["variant"], float(r["parameter"])): r["pair_overlap"]
        for r in _csv("original_overlap.csv")
        if r["d"] == "24"
    }
    steps = ", ".join(f"{float(overlaps['redrawn', f]):.2f}" for f in (0.05, 0.1, 0.25))
    every = _csv("original_overlap.csv")
    fans = [r for r in every if (r["variant"], r["parameter"]) in FAN_CELLS]
    assert len(fans) == 2 * len(FAN_CELLS)
    assert all(float(r["pair_overlap"]) == 0 for r in fans)  # distinct cells of one fan
    by_size: dict[tuple[str, str], dict[str, float]] = {}
    for r in every:
        by_size.setdefault((r["variant"], r["parameter"]), {})[r["d"]] = float(r["pair_overlap"])
    spread = max(abs(sizes["16"] - sizes["24"]) for sizes in by_size.values())
    assert f"$d = 16$ gives the same to {spread:.2f};" in prose
    assert f"$\\omega$ grows ({steps} at 5, 10, 25%)" in prose


def test_original_problem_reproduce_section_is_the_verdicts() -> None:
    with (DOCS / "measurements" / "data" / "original_decomposition.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    seconds = [float(r["seconds"]) for r in rows]
    text = " ".join(_page("theory/original-problem.md").split())
    assert all(r["verdict"] != "undecided" for r in rows)
    count = f"{len(rows):,}".replace(",", " ")
    assert (
        f"The {count} certified instances took {round(sum(seconds) / 60)} minutes of one core "
        f"in all (none above {max(seconds):.1f} s, none undecided;"
    ) in text


def test_op_vs_dp_counts_the_problems_of_the_decomposition() -> None:
    text = " ".join(_page("measurements/op_vs_dp.md").split())
    assert f"what {len(_BETWEEN)} problems between OP and DP rule out" in text


def test_original_problem_unit_norm_excess_is_the_csvs() -> None:
    """The unit-norm excess quoted twice: fresh (pooled) and the capacity page's sweeps."""
    text = " ".join(_page("theory/original-problem.md").split())
    pooled = next(r for r in _decomposition_rows() if r[0].startswith("unit-norm OP"))[4]
    op = next(r for r in _decomposition_rows() if r[0].startswith("OP itself"))[4]
    fresh = f"{100 * (float(pooled.split()[0]) - 1):.1f}%"
    table = _table(_page("measurements/capacity.md"), "| d | model | unit-norm p_c")
    sweeps = [
        float(row[8].split("(")[0])
        for row in table
        if row[1] == "original" and row[0] in {"16", "24", "32"}
    ]
    span = f"{100 * (min(sweeps) - 1):.1f}–{100 * (max(sweeps) - 1):.1f}%"
    assert f"smaller: {fresh} here, {span} in the capacity page's sweeps, against " in text
    assert f"against {100 * (float(op.split()[0]) - 1):.1f}%" in text
    assert f"smaller ({fresh} here, {span} in the capacity page's sweeps)" in text


def test_original_problem_cell_sizes_are_the_csv() -> None:
    rows = _csv("original_cell_sizes.csv")

    def three(column: str) -> str:
        values = [f"{float(row[column]):.2f}" for row in rows]
        return f"{values[0]}, {values[1]} and {values[2]}"

    text = " ".join(_page("theory/original-problem.md").split())
    assert [row["d"] for row in rows] == ["16", "24", "32"]
    assert (
        f"solid angle correlate at {three('length_correlation')} ($d = 16$, 24, 32), and the "
        f"solid angles vary with a coefficient of variation of {three('spread_gaussian')}, "
        f"against {three('spread_unit')} for outputs of norm one"
    ) in text
