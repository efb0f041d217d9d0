r"""Where the max-margin W's excess fourth moment comes from: its dual rank-one terms (issue 11).

The max-margin ``W`` of a decoupled instance is :math:`W = \sum_\mu h_\mu e_\mu^\top`
with :math:`h_\mu = \sum_\rho y_{\mu\rho}(u_t - u_\rho)` (KKT; ``y`` the dual weights
of ``lamcap.solve(..., objective="max_margin")``), i.e.
:math:`W = \sum_\mu c_\mu a_\mu b_\mu^\top` with unit :math:`a_\mu, b_\mu` and
:math:`c_\mu = \|h_\mu\|\,\|e_\mu\|`.  The finite-size law
(docs/theory/spectrum-finite-size.md) assumes the directions uniform and
independent of the weights, and treats the reaction of each association on the
others (the part of :math:`h_\mu` along its own field :math:`x_\mu = W e_\mu`) to
first order.  This script measures, for each saved solution, the ratio
:math:`R = d\sum s^4/(\sum s^2)^2` of

* ``actual``: :math:`W_y = \sum_\mu h_\mu e_\mu^\top` (equal to the certified ``W`` to
  the solver's tolerance; ``dual_distance`` is :math:`\|W_y - W\|_F/\|W\|_F`);
* ``permuted``: :math:`\sum_\mu c_{\pi(\mu)} a_\mu b_\mu^\top`, the weights shuffled over
  the associations (mean over ``--draws`` permutations): what is left when the
  weights are made independent of the directions;
* ``random_directions``: :math:`\sum_\mu c_\mu \hat a_\mu \hat b_\mu^\top` with fresh uniform
  directions: the model of section 2 of the theory page with the measured weights
  (its expectation is :math:`2 + 1/d + \lambda[\kappa_c - (2d+1)/d^2]`, printed as
  ``section2``);
* ``random_a``, ``random_b``: only the output directions :math:`a_\mu`, or only the
  input directions :math:`b_\mu`, replaced by fresh uniform ones;
* ``no_reaction``: :math:`\sum_\mu h^\perp_\mu e_\mu^\top`, each :math:`h_\mu` with its
  component along :math:`x_\mu` removed;

and the correlation of :math:`c_\mu^2` with :math:`\|W b_\mu\|^2` (the cavity field
of association :math:`\mu`).  Input: the ``.npz`` files written by
``measure_spectrum_finite_size.py --save FOLDER``::

    python benchmarks/diagnose_spectrum_excess.py FOLDER
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

import lamcap

FloatArray = NDArray[np.float64]
NAME = re.compile(r"d(\d+)_p(\d+)_seed(\d+)_gap([0-9.e+-]+)\.npz")


def ratio(weights: FloatArray) -> float:
    r""":math:`d\sum s^4/(\sum s^2)^2` of a square matrix, from :math:`\|W^\top W\|_F`."""
    gram = weights.T @ weights
    return weights.shape[0] * float(np.sum(gram * gram)) / float(np.trace(gram)) ** 2


def dual_columns(
    instance: lamcap.Instance, mus: FloatArray, rhos: FloatArray, y: FloatArray
) -> FloatArray:
    r"""Rows :math:`h_\mu = \sum_\rho y_{\mu\rho}(u_t - u_\rho)`, shape ``(n, d)``."""
    targets, competitors = instance.constraint_outputs(mus, rhos)
    columns = np.zeros((instance.n, instance.d))
    np.add.at(columns, mus, y[:, None] * (targets - competitors))
    return columns


def _uniform_directions(rng: np.random.Generator, n: int, d: int) -> FloatArray:
    """``n`` independent uniform unit vectors in ``R^d`` (rows)."""
    draws = rng.standard_normal((n, d))
    return draws / np.linalg.norm(draws, axis=1)[:, None]


def diagnose(path: Path, draws: int) -> dict[str, float]:
    """All diagnostics of one saved solution."""
    match = NAME.fullmatch(path.name)
    if match is None:
        msg = f"unexpected file name {path.name!r}"
        raise ValueError(msg)
    d, p, seed = (int(match.group(i)) for i in (1, 2, 3))
    data = np.load(path)
    instance = lamcap.make_instance(d, p, seed=seed)
    weights = data["weights"]
    h = dual_columns(instance, data["associations"], data["competitors"], data["y"])
    e = np.asarray(instance.inputs)
    w_dual = h.T @ e
    rng = np.random.default_rng(seed)
    c = np.linalg.norm(h, axis=1) * np.linalg.norm(e, axis=1)
    a = h / np.maximum(np.linalg.norm(h, axis=1), 1e-300)[:, None]
    b = e / np.linalg.norm(e, axis=1)[:, None]
    used = c > 0
    a, b, c = a[used], b[used], c[used]
    n = c.size
    permuted = np.mean([ratio((a * rng.permutation(c)[:, None]).T @ b) for _ in range(draws)])
    fresh, fresh_a, fresh_b = [], [], []
    for _ in range(draws):
        ra = _uniform_directions(rng, n, d)
        rb = _uniform_directions(rng, n, d)
        fresh.append(ratio((ra * c[:, None]).T @ rb))
        fresh_a.append(ratio((ra * c[:, None]).T @ b))
        fresh_b.append(ratio((a * c[:, None]).T @ rb))
    fields = e @ w_dual.T  # rows x_mu = W e_mu
    unit = fields / np.linalg.norm(fields, axis=1)[:, None]
    h_perp = h - np.sum(h * unit, axis=1)[:, None] * unit
    kappa_c = c.size * float(np.sum(c**4)) / float(np.sum(c**2)) ** 2  # over the n terms
    lam = d / p
    section2 = 2.0 + 1.0 / d + lam * (kappa_c * p / n - (2 * d + 1) / d**2)
    cavity = np.sum((b @ w_dual.T) ** 2, axis=1)
    return {
        "d": d,
        "p": p,
        "seed": seed,
        "certified": ratio(weights),
        "dual_distance": float(np.linalg.norm(w_dual - weights) / np.linalg.norm(weights)),
        "actual": ratio(w_dual),
        "permuted": float(permuted),
        "random_directions": float(np.mean(fresh)),
        "random_a": float(np.mean(fresh_a)),
        "random_b": float(np.mean(fresh_b)),
        "section2": section2,
        "no_reaction": ratio(h_perp.T @ e),
        "kappa_c": kappa_c * p / n,
        "corr_c2_field": float(np.corrcoef(c**2, cavity)[0, 1]),
        "active_terms": n / p,
    }


def main(argv: list[str] | None = None) -> None:
    """Print one line per saved solution and the mean and standard error per ``(d, p)``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--draws", type=int, default=20)
    args = parser.parse_args(argv)
    rows = [diagnose(path, args.draws) for path in sorted(args.folder.glob("*.npz"))]
    keys = [k for k in rows[0] if k not in ("d", "p", "seed")]
    print("d p seed " + " ".join(keys))
    for row in rows:
        print(f"{row['d']} {row['p']} {row['seed']} " + " ".join(f"{row[k]:.4g}" for k in keys))
    for d, p in sorted({(r["d"], r["p"]) for r in rows}):
        chosen = [r for r in rows if (r["d"], r["p"]) == (d, p)]
        print(f"\nd = {d}, p = {p}: {len(chosen)} solutions")
        for key in keys:
            values = np.array([r[key] for r in chosen])
            se = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else math.nan
            print(f"  {key:18s} {values.mean():.4f} ± {se:.4f}")


if __name__ == "__main__":
    main()
