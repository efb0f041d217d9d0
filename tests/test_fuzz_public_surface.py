"""Fuzz the public surface: every call returns, or refuses its input by name.

Each public function of ``lamcap``, ``lamcap.theory``, ``lamcap.symbolic``,
``lamcap.geometry``, ``lamcap.problems``, ``lamcap.solvers`` and
``lamcap.empirical`` is called from a valid baseline with one argument (or,
in the Hypothesis test, two) replaced by an edge value: wrong types, NaN,
infinities, negatives, zero, huge integers (up to ``10**400``), empty and
wrongly shaped arrays.  The only acceptable outcomes are a return, or a
``ValueError``/``TypeError`` whose message names the argument.  A
``MemoryError``, any other exception, a warning (pytest turns them into
errors, and so does the child), more than :data:`MEMORY_LIMIT` bytes of new
address space or more than :data:`SECONDS` seconds fail the case.  Calls
run in new Python processes so that a hang or a crash cannot take the suite
with it.  The experiments layer (databases, executors, claims) is
fuzzed through its commands in ``tests/cli/test_fuzz_commands.py``.

Known defects are listed in :data:`KNOWN_DEFECTS` with what they do; each is
a strict xfail, so fixing one makes its case fail until it leaves the list.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import math
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import lamcap

pytestmark = pytest.mark.slow

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


# --------------------------------------------------------------------------
# running calls in a child process


#: The child: unpickles (module, name, calls) from stdin, limits its address space,
#: turns warnings into errors and prints one JSON line per call.
_CHILD = """
import importlib, json, pickle, resource, sys, warnings
module, name, calls, limit = pickle.load(sys.stdin.buffer)
with open("/proc/self/status", encoding="ascii") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (size + limit, size + limit))
warnings.simplefilter("error")
function = getattr(importlib.import_module(module), name)
for kwargs in calls:
    try:
        result = function(**kwargs)
        outcome = ["returned", "", ""]
    except BaseException as error:
        outcome = ["raised", type(error).__name__, str(error)]
    print(json.dumps(outcome), flush=True)
"""


def outcomes(
    child_lines: Callable[..., Iterator[bytes | None]],
    target: Target,
    calls: list[dict[str, Any]],
) -> Iterator[tuple[str, str, str]]:
    """``(kind, error type, message)`` per call, in order; a hang or a death ends the run."""
    payload = (target.module, target.name, calls, MEMORY_LIMIT)
    for line in child_lines(_CHILD, payload, len(calls), seconds=SECONDS):
        if line is None:
            yield ("timed out or died", "", f"within {SECONDS:g} s")
            return
        kind, error, message = json.loads(line)
        yield (kind, error, message)


def _names(message: str, parameter: str) -> bool:
    return (
        re.search(rf"(?<![A-Za-z0-9_]){re.escape(parameter)}(?![A-Za-z0-9_])", message) is not None
    )


#: Parameters whose documented meaning another name in a message may carry.
ALIASES: dict[str, tuple[str, ...]] = {"result_or_weights": ("W", "result")}


def acceptable(outcome: tuple[str, str, str], parameters: list[str]) -> bool:
    kind, error, message = outcome
    if kind == "returned":
        return True
    names = [alias for name in parameters for alias in (name, *ALIASES.get(name, ()))]
    return (
        kind == "raised"
        and error in ("ValueError", "TypeError")
        and any(_names(message, name) for name in names)
    )


def _failures(
    child_lines: Callable[..., Iterator[bytes | None]],
    target: Target,
    calls: list[dict[str, Any]],
    changed: list[list[str]],
) -> list[str]:
    failures = []
    results = outcomes(child_lines, target, calls)
    for kwargs, names, outcome in zip(calls, changed, results, strict=False):
        if not acceptable(outcome, names):
            shown = {name: _short(kwargs[name]) for name in names}
            failures.append(f"{target.name}({shown}): {outcome[0]} {outcome[1]} {outcome[2][:200]}")
    return failures


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


@pytest.mark.parametrize(("target", "parameter"), _cases())
def test_an_edge_value_is_answered_or_refused_by_name(
    target: Target, parameter: str, child_lines: Callable[..., Iterator[bytes | None]]
) -> None:
    baseline = target.baseline()
    assert baseline is not None
    calls = [baseline] + [{**baseline, parameter: value} for value in EDGE_VALUES]
    results = list(outcomes(child_lines, target, calls))
    assert results[0][0] == "returned", f"the baseline call: {results[0]}"
    failures = [
        f"{target.name}({parameter}={_short(kwargs[parameter])}): {kind} {error} {message[:200]}"
        for kwargs, (kind, error, message) in zip(calls[1:], results[1:], strict=False)
        if not acceptable((kind, error, message), [parameter])
    ]
    assert failures == []
    assert len(results) == len(calls)


_NUMERIC_TARGETS = [
    t
    for t in TARGETS
    if t.module in ("lamcap", "lamcap.theory")
    and t.has_baseline()
    and "instance" not in t.parameters()
    and len(t.parameters()) >= 2
]


@pytest.mark.parametrize("target", [pytest.param(t, id=t.name) for t in _NUMERIC_TARGETS])
@settings(
    max_examples=1,
    deadline=None,
    derandomize=True,
    phases=[Phase.generate],
    # child_lines is a stateless function: sharing it across examples is safe
    suppress_health_check=[HealthCheck.function_scoped_fixture],
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
    pairs = st.lists(st.sampled_from(target.parameters()), min_size=2, max_size=2, unique=True)
    changed = data.draw(st.lists(pairs, min_size=8, max_size=8))
    calls = [{**baseline, **{name: data.draw(values) for name in names}} for names in changed]
    assert _failures(child_lines, target, calls, changed) == []
