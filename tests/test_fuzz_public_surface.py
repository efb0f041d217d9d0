"""Fuzz the public surface: every call returns, or refuses its input by name.

Each public function of ``lamcap``, ``lamcap.theory``, ``lamcap.symbolic``,
``lamcap.geometry``, ``lamcap.problems``, ``lamcap.solvers`` and
``lamcap.empirical`` is called from a valid baseline with one argument (or,
in the Hypothesis test, two) replaced by an edge value: wrong types, NaN,
infinities, negatives, zero, huge integers (up to ``10**400``), empty and
wrongly shaped arrays.  The only acceptable outcomes are a return whose answer keeps
the function's documented contract (:data:`ANSWERS`: its type, finite, inside its
documented range), or a ``ValueError``/``TypeError`` whose message names the argument
as a word and says what is wrong with it (:func:`refuses_by_name`).  A
``MemoryError``, any other exception, a warning (pytest turns them into
errors, and so does the child), more than :data:`MEMORY_LIMIT` bytes of new
address space or more than :data:`SECONDS` seconds fail the case.  Calls
run in new Python processes so that a hang or a crash cannot take the suite
with it.  The experiments layer (databases, executors, claims) is
fuzzed through its commands in ``tests/cli/test_fuzz_commands.py``.

The answers are summarised in the child (:data:`ANSWER_SOURCE`: kind, dtype,
finiteness, smallest and largest value) and judged here; the same code runs in this
process for the planted defects below (monkeypatched, never in the code), which show
that a NaN, a wrong type, a value out of range or an unrelated error each fail a case.
The baseline answers are compared with independent values (closed forms, scipy
quadrature, Monte Carlo, inverse relations), and the numeric laws get Hypothesis
examples over their valid domain, with the example database of ``tests/conftest.py``.
The calls in new processes are the slow tier; the rest is fast.

Known defects are listed in :data:`KNOWN_DEFECTS` with what they do; each is
a strict xfail, so fixing one makes its case fail until it leaves the list.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import json
import math
import os
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from scipy import integrate, optimize, stats

import lamcap

MODULES = (
    "lamcap",
    "lamcap.theory",
    "lamcap.symbolic",
    "lamcap.geometry",
    "lamcap.problems",
    "lamcap.solvers",
    "lamcap.empirical",
)
SECONDS = 20.0
MEMORY_LIMIT = 4 * 2**30

#: Edge values every argument meets once (``10**6`` is left out: it is a valid,
#: merely slow size for several laws).
EDGE_VALUES: tuple[Any, ...] = (
    -1,
    0,
    1,
    2,
    10**12,
    10**100,
    10**400,
    math.nan,
    math.inf,
    -math.inf,
    -0.5,
    0.5,
    1e-300,
    1e308,
    True,
    None,
    "x",
    [1, 2, 3],
    np.array([]),
    np.ones((2, 2, 2)),
    1j,
)


def _instance() -> Any:
    return lamcap.make_instance(8, 20, seed=0)


@functools.cache
def _max_margin() -> tuple[Any, Any]:
    instance = lamcap.make_instance(4, 6, seed=0)
    return instance, lamcap.solve(instance, objective="max_margin")


@functools.cache
def _infeasible() -> tuple[Any, Any]:
    instance = lamcap.make_instance(2, 8, seed=0)
    result = lamcap.solve(instance)
    assert result.verdict == "infeasible"
    return instance, result


#: Whole baselines of the functions that need objects only lamcap builds.
SPECIAL_BASELINES: dict[str, Callable[[], dict[str, Any]]] = {
    "optimality_gap": lambda: {
        "instance": _max_margin()[0],
        "W": _max_margin()[1].weights,
        "dual": _max_margin()[1].details["dual"],
    },
    "prove_infeasible": lambda: {
        "instance": _infeasible()[0],
        "certificate": _infeasible()[1].certificate,
    },
}


#: A valid value for every required parameter name of the fuzzed functions.
BASELINE: dict[str, Callable[[], Any]] = {
    "p": lambda: 50,
    "d": lambda: 8,
    "function": lambda: lamcap.critical_p,
    "embeddings": lambda: "sphere",
    "n": lambda: 10,
    "kappa": lambda: 0.5,
    "alpha": lambda: 0.1,
    "density": lambda: 0.1,
    "margin": lambda: 0.1,
    "s": lambda: 0.5,
    "probability": lambda: 0.5,
    "q": lambda: 0.5,
    "size": lambda: 10,
    "order": lambda: 2,
    "stability": lambda: 0.5,
    "seed": lambda: 0,
    "rank": lambda: 8,
    "raw_margin": lambda: 1.0,
    "max_seconds": lambda: 5.0,
    "instance": _instance,
    "W": lambda: np.eye(8),
    "result_or_weights": lambda: np.eye(8),
    "score_matrix": lambda: np.random.default_rng(0).normal(size=(20, 20)),
    "targets": lambda: np.arange(20),
    "scores": lambda: np.array([0.3, -0.1, 0.2]),
    "x": lambda: 0.5,
    "threshold": lambda: 0.0,
    "count": lambda: 10,
}

#: Parameters left alone: objects only lamcap builds (options, certificates, duals)
#: and progress callbacks.
UNFUZZED = frozenset({"options", "certificate", "dual", "progress", "executor"})


@dataclass(frozen=True)
class Target:
    """One public function: where it lives and the baseline it is called with."""

    module: str
    name: str

    @property
    def function(self) -> Callable[..., Any]:
        return getattr(importlib.import_module(self.module), self.name)  # type: ignore[no-any-return]

    def baseline(self) -> dict[str, Any] | None:
        if self.name in SPECIAL_BASELINES:
            return SPECIAL_BASELINES[self.name]()
        values = {}
        for parameter in inspect.signature(self.function).parameters.values():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            if parameter.default is inspect.Parameter.empty:
                if parameter.name not in BASELINE:
                    return None
                values[parameter.name] = BASELINE[parameter.name]()
        if "max_seconds" in inspect.signature(self.function).parameters:
            values.setdefault("max_seconds", 5.0)
        return values

    def has_baseline(self) -> bool:
        """Whether :meth:`baseline` can build the call (read from names only, nothing run)."""
        return self.name in SPECIAL_BASELINES or all(
            parameter.name in BASELINE
            for parameter in inspect.signature(self.function).parameters.values()
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            and parameter.default is inspect.Parameter.empty
        )

    def parameters(self) -> list[str]:
        return [
            parameter.name
            for parameter in inspect.signature(self.function).parameters.values()
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
            and parameter.name not in UNFUZZED
        ]


def _targets() -> list[Target]:
    seen: set[int] = set()
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for module in MODULES:
            namespace = importlib.import_module(module)
            for name in namespace.__all__:
                value = getattr(namespace, name)
                if inspect.isclass(value) or not callable(value) or id(value) in seen:
                    continue
                seen.add(id(value))
                found.append(Target(module, name))
    return found


TARGETS = _targets()

#: (function, parameter): what it does today.  Strict xfails: a fix must remove its entry.
KNOWN_DEFECTS: dict[tuple[str, str], str] = {}

#: Refusals that name no argument, found by the two-argument fuzz, with what they do today.
#: The two-argument test lets them pass; add a strict xfail beside each entry.  (Empty since
#: ``lamcap.theory._arrays.broadcast`` names every argument: it was the one entry.)
KNOWN_UNNAMED_REFUSALS: dict[str, str] = {}


# --------------------------------------------------------------------------
# the documented answers

#: Run in the child and here: ``call(function, kwargs)`` is ``[kind, error type, message,
#: summary]``; ``summary(value)`` keeps what a contract is judged on (JSON-ready).
ANSWER_SOURCE = """
import math
import numpy as np
import mpmath


def _range(out, values):
    values = np.asarray(values, dtype=float).ravel()
    out["finite"] = bool(np.all(np.isfinite(values)))
    shown = values[~np.isnan(values)]
    if shown.size:
        out["min"], out["max"] = float(shown.min()), float(shown.max())
    return out


def summary(value, depth=0):
    if isinstance(value, (bool, np.bool_)):
        return {"kind": "bool"}
    if isinstance(value, mpmath.mpf):
        return _range({"kind": "mpf"}, [float(value)])
    if isinstance(value, np.ndarray):
        out = {"kind": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape)}
        if value.dtype == object:
            try:
                return _range(out, [float(item) for item in value.ravel()])
            except (TypeError, ValueError, OverflowError):
                return out
        return _range(out, value) if value.dtype.kind in "iuf" else out
    if isinstance(value, np.floating):
        return _range({"kind": "float64" if value.dtype == np.float64 else "floating"}, [value])
    if isinstance(value, float):
        return _range({"kind": "float"}, [value])
    if isinstance(value, (int, np.integer)):
        try:
            return _range({"kind": "int"}, [float(value)])
        except OverflowError:
            return {"kind": "int", "finite": True}
    if isinstance(value, (tuple, list)) and depth < 2:
        items = [summary(item, depth + 1) for item in value[:20]]
        return {"kind": type(value).__name__, "items": items}
    if type(value).__module__.split(".")[0] == "sympy":
        return {"kind": "sympy"}
    out = {"kind": "object", "class": type(value).__name__}
    verdict = getattr(value, "verdict", None)
    if isinstance(verdict, str):
        out["verdict"] = verdict
    return out


def call(function, kwargs):
    try:
        value = function(**kwargs)
    except BaseException as error:
        return ["raised", type(error).__name__, str(error), None]
    return ["returned", "", "", summary(value)]
"""

_ANSWER_CODE: dict[str, Any] = {}
exec(ANSWER_SOURCE, _ANSWER_CODE)  # noqa: S102 - our own source, shared with the child
summary: Callable[[Any], dict[str, Any]] = _ANSWER_CODE["summary"]

#: Kinds of a documented "float64 array (numpy.float64 for scalar input), or mpf".
NUMBER = frozenset({"float64", "ndarray", "mpf"})


@dataclass(frozen=True)
class Answer:
    """A documented answer: its kinds, finite or not, its range; classes and verdicts of objects."""

    kinds: frozenset[str] = NUMBER
    low: float = -math.inf
    high: float = math.inf
    positive: bool = False
    finite: bool = True
    classes: frozenset[str] = frozenset()
    verdicts: frozenset[str] = frozenset()

    def problems(self, found: dict[str, Any]) -> list[str]:
        """What in ``found`` (a :func:`summary`) breaks this contract; empty when nothing."""
        kind = found["kind"]
        if kind not in self.kinds:
            return [f"returned a {kind} {found.get('class', '')}, documented {sorted(self.kinds)}"]
        if kind in ("tuple", "list"):
            items = (
                Answer(frozenset({"sympy"}))
                if "sympy" in self.kinds
                else Answer(NUMBER | {"float", "int"}, self.low, self.high, self.positive)
            )
            return [problem for item in found["items"] for problem in items.problems(item)]
        if kind == "object":
            problems = []
            if found["class"] not in self.classes:
                problems.append(f"returned a {found['class']}, documented {sorted(self.classes)}")
            if self.verdicts and found.get("verdict") not in self.verdicts:
                problems.append(
                    f"verdict {found.get('verdict')!r}, documented {sorted(self.verdicts)}"
                )
            return problems
        if kind == "ndarray" and found["dtype"] not in ("float64", "object", "int64"):
            return [f"returned an array of {found['dtype']}"]
        if "finite" not in found:
            return []
        problems = []
        if self.finite and not found["finite"]:
            problems.append("returned a value that is not finite (NaN or infinite)")
        if "min" in found:
            low, high = found["min"], found["max"]
            if low < self.low or high > self.high or (self.positive and low <= 0):
                bound = "(0" if self.positive else f"[{self.low:g}"
                problems.append(
                    f"returned values in [{low:g}, {high:g}], documented in {bound}, {self.high:g}]"
                )
        return problems


PROBABILITY = Answer(low=0.0, high=1.0)
NON_NEGATIVE = Answer(low=0.0)
POSITIVE = Answer(low=0.0, positive=True)
FINITE = Answer()
SYMPY = Answer(kinds=frozenset({"sympy", "tuple"}))


def _objects(*classes: str, verdicts: tuple[str, ...] = ()) -> Answer:
    return Answer(
        kinds=frozenset({"object"}), classes=frozenset(classes), verdicts=frozenset(verdicts)
    )


SOLVED = _objects("SolveResult", verdicts=("feasible", "infeasible", "undecided"))

#: Each public function's documented answer (from its docstring's Returns section).
ANSWERS: dict[str, Answer] = {
    "project_onto_cone": Answer(kinds=frozenset({"tuple"})),
    "capacity": POSITIVE,
    "critical_p": Answer(low=2.0),
    "statistical_dimension": Answer(
        kinds=NUMBER | {"object"}, low=0.0, classes=frozenset({"MonteCarloEstimate"})
    ),
    "active_set_law": PROBABILITY,
    "feasibility_probability": PROBABILITY,
    "gaussian_width_squared": NON_NEGATIVE,
    "best_accuracy": PROBABILITY,
    "information_per_parameter": NON_NEGATIVE,
    "law_status": _objects("LawStatus"),
    "cost_model": _objects("GaussianCosts", "UnitNormCosts"),
    "hebbian_recall": PROBABILITY,
    "hebbian_score_law": _objects("HebbianScoreLaw"),
    "singular_value_density": NON_NEGATIVE,
    "singular_value_cdf": PROBABILITY,
    "singular_value_quantile": NON_NEGATIVE,
    "sample_singular_values": NON_NEGATIVE,
    "score_law": _objects("ScoreLaw"),
    "sample_scores": _objects("ScoreSample"),
    "max_margin": NON_NEGATIVE,
    "critical_density": NON_NEGATIVE,
    # a_c ~ 1/stability^2 is below the smallest float beyond stability ~ 1e154: 0.0
    "gardner_density": NON_NEGATIVE,
    "hebbian_recall_finite": PROBABILITY,
    "hebbian_error_exponent": FINITE,
    "hebbian_critical_load": POSITIVE,
    "singular_value_support": Answer(kinds=frozenset({"tuple"}), low=0.0),
    "singular_value_moment": Answer(kinds=NUMBER | {"tuple"}, low=0.0),
    "singular_value_law": _objects("SingularValueLaw", "FiniteSizeSingularValueLaw"),
    "empirical_spectrum": _objects("EmpiricalSpectrum"),
    "normalized_scores": _objects("ScoreSample"),
    "free_entropy": FINITE,
    "solve_saddle_point": PROBABILITY,
    "log_volume": FINITE,
    "statistical_dimension_series": FINITE,
    "capacity_series": FINITE,
    "make_instance": _objects("Instance"),
    "scores": Answer(kinds=frozenset({"ndarray"})),
    "recall_accuracy": Answer(kinds=frozenset({"float", "float64"}), low=0.0, high=1.0),
    "hebbian_weights": Answer(kinds=frozenset({"ndarray"})),
    "solve": SOLVED,
    "verify": _objects("Verification", verdicts=("feasible", "infeasible", "undecided")),
    "hebbian_all_recalled_error": NON_NEGATIVE,
    "hinge_sum_cdf": PROBABILITY,
    "retained_energy": PROBABILITY,
    "retained_rank": Answer(kinds=NUMBER | {"int"}, low=0.0),
    "singular_value_threshold": Answer(low=0.0, high=2.0),
    "threshold_angle": Answer(low=0.0, high=math.pi / 2),
    "check_margins": _objects("MarginCheck"),
    "constraint_margins": Answer(kinds=frozenset({"ndarray"}), finite=False),
    "optimality_gap": _objects("OptimalityGap"),
    "prove_infeasible": _objects("InfeasibilityProof"),
    "solve_adam_cross_entropy": SOLVED,
    "solve_cutting_plane": SOLVED,
    "solve_full_lp": SOLVED,
    "solve_hebbian": SOLVED,
    "solve_rank_constrained": SOLVED,
}


def answer_of(target: Target) -> Answer:
    """The contract of ``target``: :data:`ANSWERS`, sympy objects for ``lamcap.symbolic``."""
    return SYMPY if target.module == "lamcap.symbolic" else ANSWERS[target.name]


#: Words of a message that says what is wrong with a value.
_WHAT_IS_WRONG = re.compile(
    r"\b(must|got|expected|cannot|invalid|not|only|requires?|needs?|outside|at (least|most)"
    r"|too|exceeds?|unknown|beyond|above|below|between|neither|nor|positive|negative)\b",
    re.IGNORECASE,
)


def _names(message: str, parameter: str) -> bool:
    """``parameter`` as a word of ``message``: not the ``(s)`` of ``type(s)``, a quoted value
    (``'x'``), an attribute (``instance.d``), a call or part of a longer name."""
    word = rf"(?<![\w.'\"\[]){re.escape(parameter)}(?![\w'\"\](])"
    return any(
        message[m.start() - 1 : m.start()] != "(" or message[m.end() : m.end() + 1] != ")"
        for m in re.finditer(word, message)
    )


#: Parameters whose documented meaning another name in a message may carry.
ALIASES: dict[str, tuple[str, ...]] = {"result_or_weights": ("W", "result")}


def refuses_by_name(error: str, message: str, parameters: list[str]) -> bool:
    """A ``ValueError``/``TypeError`` naming one of ``parameters`` and saying what is wrong."""
    names = [alias for name in parameters for alias in (name, *ALIASES.get(name, ()))]
    return (
        error in ("ValueError", "TypeError")
        and any(_names(message, name) for name in names)
        and _WHAT_IS_WRONG.search(message) is not None
    )


def problems_of(target: Target, outcome: list[Any], parameters: list[str]) -> list[str]:
    """What is wrong with one outcome (``[kind, error, message, summary]``); empty if nothing."""
    kind, error, message, found = outcome
    if kind == "returned":
        return answer_of(target).problems(found)
    if kind == "raised" and refuses_by_name(error, message, parameters):
        return []
    return [f"{kind} {error} {message[:200]}"]


# --------------------------------------------------------------------------
# running calls in a child process, or here


#: The child: unpickles (module, name, calls) from stdin, limits its address space,
#: turns warnings into errors (but the documented extrapolation warning of a law used
#: beyond its measured range) and prints one JSON line per call (:data:`ANSWER_SOURCE`).
_CHILD = """
import importlib, json, pickle, resource, sys, warnings
from lamcap.theory import ExtrapolationWarning
module, name, calls, limit, source = pickle.load(sys.stdin.buffer)
with open("/proc/self/status", encoding="ascii") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (size + limit, size + limit))
warnings.simplefilter("error")
warnings.simplefilter("ignore", ExtrapolationWarning)
exec(source)
function = getattr(importlib.import_module(module), name)
for kwargs in calls:
    print(json.dumps(call(function, kwargs)), flush=True)
"""


def outcomes(
    child_lines: Callable[..., Iterator[bytes | None]],
    target: Target,
    calls: list[dict[str, Any]],
) -> Iterator[list[Any]]:
    """``[kind, error type, message, summary]`` per call, in order; a hang or a death ends it."""
    payload = (target.module, target.name, calls, MEMORY_LIMIT, ANSWER_SOURCE)
    for line in child_lines(_CHILD, payload, len(calls), seconds=SECONDS):
        if line is None:
            yield ["timed out or died", "", f"within {SECONDS:g} s", None]
            return
        yield json.loads(line)


def outcomes_here(target: Target, calls: list[dict[str, Any]]) -> list[list[Any]]:
    """The same outcomes from calls in this process, warnings as errors (planted defects)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", lamcap.theory.ExtrapolationWarning)
        found = [_ANSWER_CODE["call"](target.function, kwargs) for kwargs in calls]
    return json.loads(json.dumps(found))  # what the child's JSON line would carry


def edge_failures(
    target: Target, parameter: str, calls: list[dict[str, Any]], results: list[list[Any]]
) -> list[str]:
    """The baseline must return its documented answer; each edge call answer or refuse by name."""
    failures = [f"baseline: {problem}" for problem in problems_of(target, results[0], [])]
    failures += [
        f"{target.name}({parameter}={_short(kwargs[parameter])}): {problem}"
        for kwargs, outcome in zip(calls[1:], results[1:], strict=False)
        for problem in problems_of(target, outcome, [parameter])
    ]
    if len(results) < len(calls):
        failures.append(f"{len(calls) - len(results)} calls never answered")
    return failures


def _failures(
    child_lines: Callable[..., Iterator[bytes | None]],
    target: Target,
    calls: list[dict[str, Any]],
    changed: list[list[str]],
) -> list[str]:
    failures = []
    results = outcomes(child_lines, target, calls)
    for kwargs, names, outcome in zip(calls, changed, results, strict=False):
        if outcome[0] == "raised" and any(known in outcome[2] for known in KNOWN_UNNAMED_REFUSALS):
            continue
        for problem in problems_of(target, outcome, names):
            shown = {name: _short(kwargs[name]) for name in names}
            failures.append(f"{target.name}({shown}): {problem}")
    return failures


def _mismatched_calls(target: Target) -> tuple[list[dict[str, Any]], list[list[str]]]:
    """Every pair of numeric arguments given as arrays of lengths 2 and 3 (valid values)."""
    baseline = target.baseline()
    assert baseline is not None
    signature = inspect.signature(target.function).parameters
    values = {
        name: baseline.get(name, signature[name].default)
        for name in target.parameters()
        if name != "dps"
    }
    numeric = [
        name
        for name, value in values.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]
    changed = [list(pair) for pair in itertools.combinations(numeric, 2)]
    calls = [{**baseline, a: [values[a]] * 2, b: [values[b]] * 3} for a, b in changed]
    return calls, changed


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --------------------------------------------------------------------------
# tests


def _cases() -> list[Any]:
    cases = []
    for target in TARGETS:
        if not target.has_baseline():
            continue
        for parameter in target.parameters():
            defect = KNOWN_DEFECTS.get((target.name, parameter))
            marks = [pytest.mark.xfail(reason=defect, strict=True)] if defect else []
            cases.append(
                pytest.param(target, parameter, id=f"{target.name}-{parameter}", marks=marks)
            )
    return cases


def test_every_public_function_has_a_baseline() -> None:
    missing = [f"{t.module}.{t.name}" for t in TARGETS if not t.has_baseline()]
    assert missing == []


def test_every_public_function_has_a_documented_answer() -> None:
    assert sorted(t.name for t in TARGETS if t.module != "lamcap.symbolic") == sorted(ANSWERS)


@pytest.mark.slow  # a new process per case
@pytest.mark.parametrize(("target", "parameter"), _cases())
def test_an_edge_value_is_answered_or_refused_by_name(
    target: Target, parameter: str, child_lines: Callable[..., Iterator[bytes | None]]
) -> None:
    baseline = target.baseline()
    assert baseline is not None
    calls = [baseline] + [{**baseline, parameter: value} for value in EDGE_VALUES]
    results = list(outcomes(child_lines, target, calls))
    assert edge_failures(target, parameter, calls, results) == []


_NUMERIC_TARGETS = [
    t
    for t in TARGETS
    if t.module in ("lamcap", "lamcap.theory")
    and t.has_baseline()
    and "instance" not in t.parameters()
    and len([name for name in t.parameters() if name != "dps"]) >= 2
]

#: Calls per Hypothesis example of the two-argument test (one new process per example).
_CALLS_PER_EXAMPLE = 8


@pytest.mark.slow  # a new process per example
# each example may take 30 + 8 x 20 s (imports, then every call at its limit): more than
# the suite's 300 s timeout over 3 examples
@pytest.mark.timeout(3 * (30 + _CALLS_PER_EXAMPLE * SECONDS) + 60)
@pytest.mark.parametrize("target", [pytest.param(t, id=t.name) for t in _NUMERIC_TARGETS])
@settings(
    max_examples=3,
    deadline=None,
    # child_lines is a stateless function: sharing it across examples is safe
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_two_arguments_at_once_are_answered_or_refused_by_name(
    target: Target, data: Any, child_lines: Callable[..., Iterator[bytes | None]]
) -> None:
    baseline = target.baseline()
    assert baseline is not None
    values = st.one_of(
        st.sampled_from(EDGE_VALUES),
        st.integers(min_value=-5, max_value=10**4),
        st.floats(allow_nan=True, allow_infinity=True),
    )
    # dps stays out of the pairs (it has its own edge cases): with a large p, a valid dps
    # is a slow mpmath route, not a defect (statistical_dimension(p=9928, dps=133) > 20 s)
    names = [name for name in target.parameters() if name != "dps"]
    pairs = st.lists(st.sampled_from(names), min_size=2, max_size=2, unique=True)
    changed = data.draw(st.lists(pairs, min_size=_CALLS_PER_EXAMPLE, max_size=_CALLS_PER_EXAMPLE))
    calls = [{**baseline, **{name: data.draw(values) for name in names}} for names in changed]
    assert _failures(child_lines, target, calls, changed) == []


@pytest.mark.slow  # one process per function
@pytest.mark.timeout(20 * (30 + 8 * SECONDS) + 60)
@pytest.mark.parametrize(
    "target",
    [pytest.param(t, id=t.name) for t in _NUMERIC_TARGETS if _mismatched_calls(t)[0]],
)
def test_arrays_of_shapes_that_do_not_broadcast_are_refused_by_name(
    target: Target, child_lines: Callable[..., Iterator[bytes | None]]
) -> None:
    calls, changed = _mismatched_calls(target)
    assert _failures(child_lines, target, calls, changed) == []


# --------------------------------------------------------------------------
# the judge itself (fast tier): messages, and planted defects it must catch


@pytest.mark.parametrize(
    ("message", "parameter", "named"),
    [
        ("unsupported operand type(s) for *: 'float' and 'NoneType'", "s", False),
        ("could not convert string to float: 'x'", "x", False),
        ("kappa must contain finite values in (0.0, 1.0], got nan", "kappa", True),
        ("`order` must be an integer in [1, 6], got 7", "order", True),
        ("d", "d", False),  # names it, says nothing about what is wrong
        ("instance.d must be at least 1, got 0", "d", False),  # an attribute, not the argument
        ("dps must be at most 10000, got 10**400", "dps", True),
        ("density must be < a_c (p=10, margin=0.0), got 0.1", "p", True),
        ("size(d) must be positive", "d", False),
        ("W must have the shape (d, d), got (2, 3)", "d", True),
    ],
)
def test_a_refusal_names_the_argument_as_a_word_and_says_what_is_wrong(
    message: str, parameter: str, named: bool
) -> None:
    assert refuses_by_name("ValueError", message, [parameter]) is named
    assert refuses_by_name("KeyError", message, [parameter]) is False


def _target(name: str) -> Target:
    return next(t for t in TARGETS if t.name == name)


def _edge_calls(target: Target, parameter: str) -> list[dict[str, Any]]:
    baseline = target.baseline()
    assert baseline is not None
    return [baseline] + [{**baseline, parameter: value} for value in EDGE_VALUES]


def _planted(monkeypatch: pytest.MonkeyPatch, name: str, planted: Callable[..., Any]) -> Target:
    """Replace ``lamcap.<name>`` for this test only: the fuzz looks functions up by name."""
    target = _target(name)
    monkeypatch.setattr(importlib.import_module(target.module), name, planted)
    return target


def test_the_real_capacity_passes_its_edge_table_here() -> None:
    # the control for the planted defects below: the same judge, the same calls
    target = _target("capacity")
    calls = _edge_calls(target, "kappa")
    assert edge_failures(target, "kappa", calls, outcomes_here(target, calls)) == []


@pytest.mark.parametrize(
    ("name", "parameter", "planted", "caught"),
    [
        ("capacity", "kappa", lambda **_: np.float64("nan"), "not finite"),
        ("capacity", "kappa", lambda **_: "0.25", "returned a object str"),
        ("capacity", "kappa", lambda **_: [0.25], "returned a list"),
        ("capacity", "kappa", lambda **_: np.float64(-0.25), "documented in (0, inf]"),
        ("feasibility_probability", "p", lambda **_: np.float64(1.5), "documented in [0, 1]"),
        ("singular_value_cdf", "s", lambda **_: np.array([0.5, np.inf]), "not finite"),
        ("solve", "rank", lambda **_: 0.5, "returned a float ,"),
    ],
    ids=["nan", "string", "list", "negative-capacity", "probability-1.5", "inf-in-array", "type"],
)
def test_a_planted_wrong_answer_fails_the_fuzz(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    parameter: str,
    planted: Callable[..., Any],
    caught: str,
) -> None:
    target = _target(name)
    calls = _edge_calls(target, parameter)
    target = _planted(monkeypatch, name, planted)
    failures = edge_failures(target, parameter, calls, outcomes_here(target, calls))
    assert failures
    assert failures[0].startswith("baseline: ")  # the baseline itself is judged
    # every call caught, the baseline included, for what was planted
    assert sum(caught in failure for failure in failures) == len(calls), failures[:3]


@pytest.mark.parametrize(
    ("name", "parameter", "error"),
    [
        ("singular_value_density", "s", TypeError("unsupported operand type(s) for *: 'float'")),
        ("hinge_sum_cdf", "x", ValueError("could not convert string to float: 'x'")),
        ("capacity", "kappa", KeyError("kappa must be in (0, 1]")),
        ("capacity", "kappa", ZeroDivisionError("float division by zero")),
        ("capacity", "kappa", ValueError("math domain error")),
    ],
    ids=["type(s)", "quoted-value", "key-error", "zero-division", "unnamed"],
)
def test_a_planted_unrelated_error_fails_the_fuzz(
    monkeypatch: pytest.MonkeyPatch, name: str, parameter: str, error: Exception
) -> None:
    target = _target(name)
    calls = _edge_calls(target, parameter)

    answered: list[int] = []

    def planted(**_: Any) -> Any:  # answers the baseline (the first call), then fails
        if answered:
            raise error
        answered.append(1)
        return np.float64(0.25)

    target = _planted(monkeypatch, name, planted)
    failures = edge_failures(target, parameter, calls, outcomes_here(target, calls))
    assert len(failures) == len(EDGE_VALUES)  # every edge call, not the baseline
    assert all(f"raised {type(error).__name__}" in failure for failure in failures)


# --------------------------------------------------------------------------
# baseline answers against independent values (fast tier)


def _quarter_circle(kappa: float) -> tuple[float, float]:
    """``(s_kappa, F(kappa))`` by scipy quadrature of the quarter-circle law on [0, 2]."""
    density = lambda s: math.sqrt(max(4.0 - s * s, 0.0)) / math.pi
    mass_above = lambda edge: integrate.quad(density, edge, 2.0, epsabs=1e-14)[0]
    edge = optimize.brentq(lambda s: mass_above(s) - kappa, 0.0, 2.0, xtol=1e-15)
    energy = integrate.quad(lambda s: s * s * density(s), edge, 2.0, epsabs=1e-14)[0]
    return edge, energy


def _gaussian_second_moment_above(stability: float) -> float:
    """``E[(z + k)_+^2]`` for ``z ~ N(0, 1)``, by quadrature (Gardner's integral)."""
    return integrate.quad(
        lambda z: (z + stability) ** 2 * stats.norm.pdf(z), -stability, np.inf, epsabs=1e-14
    )[0]


def _hinge_sum_sampled(x: float, threshold: float, count: int) -> tuple[float, float]:
    """``P(g + sum_i (Z_i - threshold)_+ <= x)`` by Monte Carlo, with its standard error."""
    draws = np.random.default_rng(7).standard_normal((200_000, count + 1))
    total = draws[:, 0] + np.clip(draws[:, 1:] - threshold, 0.0, None).sum(axis=1)
    share = float(np.mean(total <= x))
    return share, math.sqrt(share * (1 - share) / draws.shape[0])


def _reference_checks(sampled_active_set: Callable[..., tuple[float, float]]) -> dict[str, Any]:
    """Per function: ``(lamcap's answer, the independent value, absolute tolerance)``."""
    from lamcap import theory

    edge, energy = _quarter_circle(0.5)
    mean, error = sampled_active_set(50, 40_000, 3)
    hinge, hinge_error = _hinge_sum_sampled(0.5, 0.0, 10)
    load = lamcap.hebbian_critical_load(50)
    margin = lamcap.max_margin(0.1, 50)
    low, high = lamcap.singular_value_support(0.5)
    middle = 0.5 * (low + high)
    moment = integrate.quad(lambda s: s * s * lamcap.singular_value_density(s, 0.5), low, high)
    cdf_middle = integrate.quad(lambda s: lamcap.singular_value_density(s, 0.5), low, middle)
    instance = _instance()
    weights = np.random.default_rng(1).normal(size=(8, 8))
    scores = lamcap.scores(instance, weights)
    competitors = np.where(np.eye(instance.p, dtype=bool)[instance.targets], -np.inf, scores)
    target_scores = scores[np.arange(instance.n), instance.targets]
    fraction = float(lamcap.best_accuracy(8, 50))
    channel = (
        math.log2(50)
        + fraction * math.log2(fraction)
        + (1 - fraction) * math.log2((1 - fraction) / 49)
    )
    saddle = lamcap.solve_saddle_point(0.1, 50)
    return {
        # closed forms and quadrature of the quarter-circle law (docs/theory/rank.md)
        "capacity": (lamcap.capacity(0.5), energy / 2, 1e-12),
        "retained_energy": (theory.retained_energy(0.5), energy, 1e-12),
        "singular_value_threshold": (theory.singular_value_threshold(0.5), edge, 1e-12),
        "threshold_angle": (theory.threshold_angle(0.5), math.asin(edge / 2), 1e-12),
        # Gardner's integral by quadrature
        "gardner_density": (
            lamcap.gardner_density(0.5),
            1 / _gaussian_second_moment_above(0.5),
            1e-10,
        ),
        # brute-force Monte Carlo (tests/conftest.py), 5 standard errors
        "statistical_dimension": (lamcap.statistical_dimension(50), mean, 5 * error),
        "hinge_sum_cdf": (theory.hinge_sum_cdf(0.5, 0.0, 10), hinge, 5 * hinge_error),
        # inverse relations: another function undoes the answer
        "hebbian_critical_load": (
            lamcap.hebbian_recall(50, load, all_associations=True),
            0.5,
            1e-10,
        ),
        "max_margin": (lamcap.critical_density(50, margin), 0.1, 1e-10),
        "singular_value_quantile": (
            lamcap.singular_value_cdf(lamcap.singular_value_quantile(0.5, 0.5), 0.5),
            0.5,
            1e-9,
        ),
        "log_volume": (lamcap.log_volume(0.1, 50), lamcap.free_entropy(saddle, 0.1, 50), 1e-10),
        # the density integrated against the cdf and the moment (scipy quadrature)
        "singular_value_cdf": (lamcap.singular_value_cdf(middle, 0.5), cdf_middle[0], 1e-8),
        "singular_value_moment": (lamcap.singular_value_moment(2, 0.5), moment[0], 1e-8),
        # the count done again from the scores; the channel formula written out
        "recall_accuracy": (
            lamcap.recall_accuracy(instance, weights),
            float(np.mean(target_scores > competitors.max(axis=1))),
            0.0,
        ),
        "information_per_parameter": (
            lamcap.information_per_parameter(8, 50),
            50 / 64 * channel,
            1e-12,
        ),
    }


def test_baseline_answers_agree_with_independent_values(
    sampled_active_set: Callable[..., tuple[float, float]],
) -> None:
    checks = _reference_checks(sampled_active_set)
    assert set(checks) <= set(ANSWERS)
    off = {
        name: (float(found), float(expected), tolerance)
        for name, (found, expected, tolerance) in checks.items()
        if not abs(float(found) - float(expected)) <= tolerance
    }
    assert off == {}


# --------------------------------------------------------------------------
# the numeric laws over their valid domain (Hypothesis; fast tier and a slow, longer run)

_KAPPA = st.floats(min_value=0.01, max_value=1.0)
_SIZE = st.integers(min_value=2, max_value=5_000)

#: Valid arguments of the numeric laws: every answer keeps its contract (:data:`ANSWERS`),
#: or is refused by name (say, a density beyond capacity).
LAWS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "capacity": {"kappa": _KAPPA, "p": st.none() | _SIZE, "d": st.none() | _SIZE},
    "critical_p": {"d": st.integers(1, 256), "kappa": _KAPPA},
    "statistical_dimension": {"p": st.integers(2, 10**6), "margin": st.floats(0.0, 5.0)},
    "feasibility_probability": {"d": st.integers(1, 64), "p": _SIZE, "kappa": _KAPPA},
    "best_accuracy": {"d": st.integers(1, 64), "p": _SIZE},
    "information_per_parameter": {"d": st.integers(1, 64), "p": _SIZE},
    "hebbian_recall": {"p": st.integers(2, 10**6), "alpha": st.floats(1e-3, 1.0)},
    "singular_value_density": {"s": st.floats(0.0, 3.0), "kappa": _KAPPA},
    "singular_value_cdf": {"s": st.floats(0.0, 3.0), "kappa": _KAPPA},
    "singular_value_quantile": {"probability": st.floats(0.0, 1.0), "kappa": _KAPPA},
    "max_margin": {"density": st.floats(1e-3, 2.0), "p": _SIZE},
    "critical_density": {"p": _SIZE, "margin": st.floats(0.0, 5.0)},
    "gardner_density": {"stability": st.floats(-5.0, 5.0)},
    "hebbian_critical_load": {"p": st.integers(2, 10**6), "probability": st.floats(0.01, 0.99)},
    "hinge_sum_cdf": {
        "x": st.floats(-10.0, 30.0),
        "threshold": st.floats(-3.0, 3.0),
        "count": st.integers(0, 10),
    },
    "retained_energy": {"kappa": _KAPPA},
    "threshold_angle": {"kappa": _KAPPA},
}


def _law_holds(name: str, data: Any) -> None:
    target = _target(name)
    kwargs = {key: data.draw(strategy, label=key) for key, strategy in LAWS[name].items()}
    kwargs = {key: value for key, value in kwargs.items() if value is not None}
    (outcome,) = outcomes_here(target, [kwargs])
    assert problems_of(target, outcome, list(kwargs)) == []


@pytest.mark.parametrize("name", sorted(LAWS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_numeric_laws_keep_their_contract_on_valid_input(name: str, data: Any) -> None:
    _law_holds(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(LAWS))
@settings(max_examples=500, deadline=None)
@given(data=st.data())
def test_numeric_laws_keep_their_contract_on_many_valid_inputs(name: str, data: Any) -> None:
    _law_holds(name, data)


@settings(max_examples=30, deadline=None)
@given(low=st.floats(0.0, 3.0), high=st.floats(0.0, 3.0), kappa=_KAPPA, x=st.floats(-10.0, 30.0))
def test_distribution_functions_do_not_decrease(
    low: float, high: float, kappa: float, x: float
) -> None:
    low, high = min(low, high), max(low, high)
    assert lamcap.singular_value_cdf(low, kappa) <= lamcap.singular_value_cdf(high, kappa) + 1e-12
    from lamcap.theory import hinge_sum_cdf

    assert hinge_sum_cdf(x, 0.0, 5) <= hinge_sum_cdf(x + high - low, 0.0, 5) + 1e-12


def test_arguments_that_do_not_broadcast_are_refused_by_name() -> None:
    from lamcap.theory import hinge_sum_cdf

    with pytest.raises(ValueError) as raised:  # noqa: PT011 - any message: judged below
        hinge_sum_cdf([1.0, 2.0, 3.0], np.array([]), 10)
    assert refuses_by_name("ValueError", str(raised.value), ["x", "threshold"])


def test_hypothesis_keeps_its_examples_at_the_repository_root() -> None:
    # the profile of tests/conftest.py: the same folder wherever pytest runs from; under CI
    # the examples are derandomized instead (a fixed draw, no database)
    root = Path(__file__).resolve().parent.parent
    database = settings.default.database
    if os.environ.get("CI"):
        assert database is None
        assert settings.default.derandomize
        return
    assert isinstance(database, DirectoryBasedExampleDatabase)
    assert Path(database.path) == root / ".hypothesis" / "examples"
    assert ".hypothesis/" in (root / ".gitignore").read_text(encoding="utf-8").splitlines()
