"""Experiments: resumable capacity sweeps, transition analysis, figures, reproduction.

The public names, by topic (the implementation modules ``_sweep``, ``_runner``, ...
are private):

* sweeps: :class:`Sweep`, :class:`Cell`, :class:`Task`, :func:`instance_seed`,
  :func:`run_sweep` (adaptive, resumable, any executor) and its :class:`SweepOutcome`,
  the trial :func:`solver_trial` (a synthetic trial for tests lives in ``_trials``);
* executors: :func:`open_executor` (in-process, process pool, Dask),
  :class:`InlineExecutor`, :func:`default_workers`, :class:`Terminated`;
* the SQLite results store: :class:`ResultsStore`, :func:`merge_stores`,
  :class:`MergeOutcome`, :func:`check_store`, :class:`IncompatibleStoreError`;
* transitions: :func:`fit_transition` (:class:`TransitionFit`),
  :func:`fit_transition_ratio` (:class:`RatioFit`), :func:`fit_trend` (:class:`Trend`),
  :func:`wilson_interval`, :func:`transition_table` (:class:`TransitionRow`), the
  committed tables :func:`capacity_csv` and :func:`op_vs_dp_csv`;
* OP against DP: :func:`model_ratios` (:class:`ModelRatio`), :func:`calibrated_cutoff`;
* mechanism: :func:`collect_solutions` (:class:`SolutionSample`);
* reproduction: :func:`reproduce`, its claims (:class:`Claim`, :func:`judge`,
  :func:`holm_adjusted`);
* figures: :mod:`lamcap.experiments.figures`.

Examples
--------
>>> from lamcap.experiments import Sweep
>>> len(Sweep(dims=(8,), p_grid=(10, 20), seeds_per_point=2).fixed_tasks())
4
"""

from __future__ import annotations

from lamcap._deprecation import deprecated_attribute
from lamcap.experiments._analysis import TransitionRow, transition_table
from lamcap.experiments._executors import InlineExecutor, Terminated, default_workers, open_executor
from lamcap.experiments._fitting import (
    RatioFit,
    TransitionFit,
    Trend,
    fit_transition,
    fit_transition_ratio,
    fit_trend,
    wilson_interval,
)
from lamcap.experiments._mechanism import SolutionSample, collect_solutions
from lamcap.experiments._model_comparison import ModelRatio, calibrated_cutoff, model_ratios
from lamcap.experiments._reproduce import reproduce
from lamcap.experiments._runner import SweepOutcome, run_sweep
from lamcap.experiments._store import (
    IncompatibleStoreError,
    MergeOutcome,
    ResultsStore,
    check_store,
    merge_stores,
)
from lamcap.experiments._sweep import Cell, Sweep, Task, instance_seed
from lamcap.experiments._transitions import capacity_csv, op_vs_dp_csv
from lamcap.experiments._trials import solver_trial
from lamcap.experiments._verdicts import Claim, holm_adjusted, judge

__all__ = [
    "Cell",
    "Claim",
    "IncompatibleStoreError",
    "InlineExecutor",
    "MergeOutcome",
    "ModelRatio",
    "RatioFit",
    "ResultsStore",
    "SolutionSample",
    "Sweep",
    "SweepOutcome",
    "Task",
    "Terminated",
    "TransitionFit",
    "TransitionRow",
    "Trend",
    "calibrated_cutoff",
    "capacity_csv",
    "check_store",
    "collect_solutions",
    "default_workers",
    "fit_transition",
    "fit_transition_ratio",
    "fit_trend",
    "holm_adjusted",
    "instance_seed",
    "judge",
    "merge_stores",
    "model_ratios",
    "op_vs_dp_csv",
    "open_executor",
    "reproduce",
    "run_sweep",
    "solver_trial",
    "transition_table",
    "wilson_interval",
]

#: Plumbing that left the public face in this release (a warning here for one release):
#: the synthetic trial exercises the sweep machinery in tests and doctests.
__getattr__ = deprecated_attribute(
    "lamcap.experiments", {"synthetic_trial": "lamcap.experiments._trials"}
)
