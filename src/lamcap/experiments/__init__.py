"""Experiments: resumable capacity sweeps, transition analysis, figures, reproduction.

* :mod:`~lamcap.experiments.sweep` — the :class:`Sweep` description and instance seeds,
* :mod:`~lamcap.experiments.runner` — adaptive, resumable execution on any executor,
* :mod:`~lamcap.experiments.executors` — in-process, process pool, Dask,
* :mod:`~lamcap.experiments.store` — the SQLite results store, merging of shards,
* :mod:`~lamcap.experiments.fitting`, :mod:`~lamcap.experiments.analysis` — transitions,
* :mod:`~lamcap.experiments.transitions` — the committed transition tables (CSV),
* :mod:`~lamcap.experiments.figures` — one module per figure,
* :mod:`~lamcap.experiments.reproduce` — ``lamcap reproduce``.

Submodules are imported on first use, so ``import lamcap.experiments`` is cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Sweep": "lamcap.experiments.sweep",
    "run_sweep": "lamcap.experiments.runner",
    "ResultsStore": "lamcap.experiments.store",
    "merge_stores": "lamcap.experiments.store",
    "open_executor": "lamcap.experiments.executors",
    "fit_transition": "lamcap.experiments.fitting",
    "transition_table": "lamcap.experiments.analysis",
    "reproduce": "lamcap.experiments.reproduce",
}

__all__ = [
    "ResultsStore",
    "Sweep",
    "fit_transition",
    "merge_stores",
    "open_executor",
    "reproduce",
    "run_sweep",
    "transition_table",
]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        msg = f"module 'lamcap.experiments' has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(importlib.import_module(module_name), name)


def __dir__() -> list[str]:
    return __all__
