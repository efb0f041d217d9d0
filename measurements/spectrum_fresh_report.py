r"""The finite-size spectrum law on fresh sizes: d and loads never used in any fit.

Reads ``docs/measurements/spectrum_fresh.csv``, written by
``measurements/spectrum_finite_size.py`` at d = 20, 40 and 56 (no fit of the law used
these sizes; it was built at d = 8-64 on other d) and 0.6, 0.8 and 0.95
``critical_p(d)``, held-out seeds 3000 and up::

    nice -n 5 env NUMBA_NUM_THREADS=1 python measurements/spectrum_finite_size.py \
        --d 20,40,56 --fractions 0.6,0.8,0.95 --seeds 3000-3099 --per-point 16 \
        --tolerance 1e-4 --csv docs/measurements/spectrum_fresh.csv

For each point: the mean of :math:`E[s^4]/E[s^2]^2` over its matrices with its
standard error, the law ``singular_value_moment(4, d=d, p=p, return_error=True)`` and
its stated error ``e``, and whether the point is covered,
:math:`|\bar R - \text{law}| \le \sqrt{e^2 + (t\,\mathrm{se})^2}` (the criterion of
``spectrum_finite_size_report.py``).  The coverage is given with its exact 95%
(Clopper-Pearson) interval.  Writes ``docs/measurements/spectrum_fresh_coverage.csv``
and prints the Markdown table of docs/measurements/spectrum.md ("Fresh sizes")::

    python measurements/spectrum_fresh_report.py
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from scipy import stats
from spectrum_finite_size_report import load_points

ROOT = Path(__file__).resolve().parents[1]
FRESH_CSV = ROOT / "docs/measurements/spectrum_fresh.csv"
COVERAGE_CSV = ROOT / "docs/measurements/spectrum_fresh_coverage.csv"
COLUMNS = ["d", "p", "fraction", "matrices", "mean", "se", "law", "law_error", "covered"]


def coverage_interval(covered: int, total: int) -> tuple[float, float]:
    """Exact 95% (Clopper-Pearson) interval of a coverage ``covered / total``."""
    low = 0.0 if covered == 0 else float(stats.beta.ppf(0.025, covered, total - covered + 1))
    high = 1.0 if covered == total else float(stats.beta.ppf(0.975, covered + 1, total - covered))
    return low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", type=Path, default=FRESH_CSV)
    parser.add_argument("--out", type=Path, default=COVERAGE_CSV)
    arguments = parser.parse_args()
    points = sorted(load_points(arguments.csv), key=lambda point: (point.d, point.p))
    rows = [
        {
            "d": point.d,
            "p": point.p,
            "fraction": f"{point.fraction:.2f}",
            "matrices": point.ratios.size,
            "mean": f"{point.mean:.4f}",
            "se": f"{point.error:.4f}",
            "law": f"{point.predicted:.4f}",
            "law_error": f"{point.law_error:.4f}",
            "covered": int(point.covered),
        }
        for point in points
    ]
    with arguments.out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print("| d | p (/ p_c) | matrices | measured E[s⁴]/E[s²]² | law ± error | covered |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        print(
            f"| {row['d']} | {row['p']} ({row['fraction']}) | {row['matrices']} | "
            f"{row['mean']} ± {row['se']} | {row['law']} ± {row['law_error']} | "
            f"{'yes' if row['covered'] else 'no'} |"
        )
    covered = sum(int(row["covered"]) for row in rows)
    low, high = coverage_interval(covered, len(rows))
    print(f"\ncovered {covered} of {len(rows)}; 95% interval [{low:.2f}, {high:.2f}]")


if __name__ == "__main__":
    main()
