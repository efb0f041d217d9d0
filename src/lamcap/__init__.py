"""lamcap: factual recall in linear associative memories.

Reference implementation of the capacity theory of arXiv:2605.10795: how many
input→output associations a d×d linear map (or a rank-r map W = Q Rᵀ) can store
when every input must score its own target above all other outputs.

The top-level namespace only re-exports; the code lives in the layers

* :mod:`lamcap.theory`  — closed forms and finite-size laws (numpy / mpmath),
* :mod:`lamcap.symbolic` — sympy expressions and series behind the theory,
* :mod:`lamcap.geometry` — the recall cone and its projection (shared primitive),
* :mod:`lamcap.problems`, :mod:`lamcap.solvers` — instances and certified solvers,
* :mod:`lamcap.experiments` — sweeps, results store and figures.

Names are imported lazily on first use so that ``import lamcap`` stays fast.

Examples
--------
>>> import lamcap
>>> float(lamcap.capacity(1.0))
0.5
"""

from __future__ import annotations

import importlib
from typing import Any

from lamcap._numba_cache import ensure_numba_cache

ensure_numba_cache()  # before any kernel is defined: numba needs a writable cache folder

__version__ = "0.1.0"

# Public name -> module that defines it.  Each layer owns its block.
_EXPORTS: dict[str, str] = {
    # --- geometry (shared primitive)
    "project_onto_cone": "lamcap.geometry",
    # --- theory: capacities and cone geometry (issue: theory core)
    "capacity": "lamcap.theory._capacity",
    "critical_p": "lamcap.theory._capacity",
    "CAPACITY": "lamcap.theory._capacity",
    "statistical_dimension": "lamcap.theory._cost_models",
    "active_set_law": "lamcap.theory._cone",
    "feasibility_probability": "lamcap.theory._crofton",
    "gaussian_width_squared": "lamcap.theory._width",
    # --- theory: what kind of number a law returns
    "law_status": "lamcap.theory._status",
    "LawStatus": "lamcap.theory._status",
    "ExtrapolationWarning": "lamcap.theory._status",
    # --- theory: recall below 100% (issue 25)
    "best_accuracy": "lamcap.theory._partial_recall",
    "information_per_parameter": "lamcap.theory._partial_recall",
    # --- theory: mechanism predictions (issue: mechanism)
    "hebbian_recall": "lamcap.theory._hebbian",
    "hebbian_score_law": "lamcap.theory._hebbian",
    "HEBBIAN_CAPACITY": "lamcap.theory._hebbian",
    "singular_value_density": "lamcap.theory._spectrum",
    "singular_value_cdf": "lamcap.theory._spectrum",
    "singular_value_quantile": "lamcap.theory._spectrum",
    "sample_singular_values": "lamcap.theory._spectrum",
    "score_law": "lamcap.theory._scores",
    "sample_scores": "lamcap.theory._scores",
    "max_margin": "lamcap.theory._margin",
    "critical_density": "lamcap.theory._replica",
    "gardner_density": "lamcap.theory._margin",
    "hebbian_recall_finite": "lamcap.theory._hebbian",
    "hebbian_error_exponent": "lamcap.theory._hebbian",
    "hebbian_critical_load": "lamcap.theory._hebbian",
    "singular_value_support": "lamcap.theory._spectrum",
    "singular_value_moment": "lamcap.theory._spectrum",
    "singular_value_law": "lamcap.theory._spectrum",
    "empirical_spectrum": "lamcap.empirical",
    "normalized_scores": "lamcap.empirical",
    # --- symbolic / replica (issue: symbolic layer)
    "free_entropy": "lamcap.theory._replica",
    "solve_saddle_point": "lamcap.theory._replica",
    "log_volume": "lamcap.theory._replica",
    "statistical_dimension_series": "lamcap.theory._asymptotics",
    "capacity_series": "lamcap.theory._asymptotics",
    # --- problems and solvers (issue: solvers)
    "make_instance": "lamcap.problems",
    "Instance": "lamcap.problems",
    "scores": "lamcap.problems",
    "recall_accuracy": "lamcap.problems",
    "hebbian_weights": "lamcap.problems",
    "TransposedWeightsWarning": "lamcap.problems",
    "solve": "lamcap.solvers",
    "verify": "lamcap.solvers",
    "Verification": "lamcap.solvers",
    "SolveResult": "lamcap.solvers",
}

__all__ = ["__version__", *_EXPORTS]  # noqa: PLE0604 (the keys are strings)


#: Top-level names deprecated in this release: name -> (module, replacement).  Served
#: with a ``DeprecationWarning`` on every access for one release, never cached.
_DEPRECATED: dict[str, tuple[str, str]] = {
    "density_at_margin": ("lamcap.theory._margin", "lamcap.critical_density(p, margin)"),
    "rank_capacity": ("lamcap.theory._rank", "lamcap.capacity(kappa)"),
    "recall_fraction": ("lamcap.theory._partial_recall", "lamcap.best_accuracy(d, p, n)"),
}


def __getattr__(name: str) -> Any:
    if name in _DEPRECATED:
        from lamcap._deprecation import warn_deprecated  # noqa: PLC0415 - import stays light

        home, replacement = _DEPRECATED[name]
        warn_deprecated(f"lamcap.{name}", replacement)
        return getattr(importlib.import_module(home), name)
    module_name = _EXPORTS.get(name)
    if module_name is None:
        msg = f"module 'lamcap' has no attribute {name!r}"
        raise AttributeError(msg)
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
