"""Figure of docs/measurements/capacity.md: unit-norm / Gaussian capacity ratio against d.

``python measurements/unit_norm_figure.py`` reads ``docs/measurements/unit_norm_theory.csv``
(the law, ``measurements/unit_norm_theory.py``), ``docs/measurements/unit_norm_judge.csv``
(paired certified transitions, ``measurements/unit_norm_judge.py``) and the unit-norm and
Gaussian rows of ``docs/measurements/capacity.csv`` (sweeps), and writes
``docs/measurements/unit_norm_ratio.png``.  Measured ratios divide two independently
fitted p_c; the bars join the ratios of the interval ends (low/high, high/low), wider
than a joint 95% interval.
"""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt

OUT = Path(__file__).resolve().parent.parent / "docs" / "measurements"


def _read(name: str) -> list[dict[str, str]]:
    with (OUT / name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _ratios(
    rows: list[dict[str, str]], model: str
) -> tuple[list[int], list[float], list[float], list[float]]:
    cells = {(int(r["d"]), r.get("embeddings", "gaussian")): r for r in rows if r["model"] == model}
    ds, mid, low, high = [], [], [], []
    for (d, embeddings), row in sorted(cells.items()):
        other = cells.get((d, "gaussian"))
        if embeddings != "sphere" or other is None:
            continue
        ds.append(d)
        mid.append(float(row["p_c"]) / float(other["p_c"]))
        low.append(float(row["p_c_low"]) / float(other["p_c_high"]))
        high.append(float(row["p_c_high"]) / float(other["p_c_low"]))
    return ds, mid, low, high


def main() -> None:
    theory = _read("unit_norm_theory.csv")
    figure, axis = plt.subplots(figsize=(6.0, 4.0))
    d = [int(r["d"]) for r in theory]
    axis.plot(d, [float(r["ratio"]) for r in theory], "k-", label="law: $p\\,C_p(d) = d^2$")
    active = [
        (int(r["d"]), float(r["p_c_sphere_active_mean"]) / float(r["p_c_gaussian"]))
        for r in theory
        if r["p_c_sphere_active_mean"]
    ]
    axis.plot(*zip(*active, strict=True), "k:", label="rejected: $p\\,E|A|_z = d^2$")
    capacity = [r for r in _read("capacity.csv") if r["kappa"] == "1" and r["method"] == "auto"]
    series = [
        ("unit_norm_judge.csv", "decoupled", "o", "C0", 0.94, "decoupled, paired seeds"),
        ("unit_norm_judge.csv", "original", "s", "C1", 0.98, "original, paired seeds"),
        ("capacity.csv", "decoupled", "^", "C2", 1.02, "decoupled, sweeps"),
        ("capacity.csv", "original", "v", "C3", 1.06, "original, sweeps"),
    ]
    for source, model, marker, colour, shift, label in series:
        rows = capacity if source == "capacity.csv" else _read(source)
        ds, mid, low, high = _ratios(rows, model)
        if not ds:
            continue
        errors = [
            [m - lo for m, lo in zip(mid, low, strict=True)],
            [hi - m for m, hi in zip(mid, high, strict=True)],
        ]
        axis.errorbar(
            [x * shift for x in ds],
            mid,
            yerr=errors,
            fmt=marker,
            color=colour,
            capsize=3,
            label=label,
        )
    axis.axhline(1.0, color="0.6", lw=0.8)
    axis.set_xscale("log", base=2)
    axis.set_xticks([8, 16, 32, 64, 128, 256], labels=["8", "16", "32", "64", "128", "256"])
    axis.set_xlabel("d")
    axis.set_ylabel("$p_c$(unit norm) / $p_c$(Gaussian)")
    axis.set_title("Unit-norm vs Gaussian embeddings, full rank, n = p")
    axis.legend(fontsize=8, loc="upper right")
    figure.tight_layout()
    figure.savefig(OUT / "unit_norm_ratio.png", dpi=130)


if __name__ == "__main__":
    main()
