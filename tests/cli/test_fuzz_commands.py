"""Fuzz every command's options and inputs: exit 0 with a sound answer, or exit 2 with one
line, never a traceback or a hang.

Each command starts from a valid, quick command line; every option in turn gets
each value of :data:`INVALID` (malformed numbers, NaN, infinities, negatives,
numbers beyond any size, ranges, empty strings), and every file a command reads
or writes gets the bad files of :data:`BAD_FILES` (missing, a folder, empty, text,
and the damaged and foreign stores of tests/experiments/test_store_damage.py).  The commands run through
:func:`lamcap.cli.main` in new Python processes (one per command, restarted
after a hang) under a memory limit; an exception escaping ``main`` (a
traceback for the user), an exit code other than 0 or 2, an error message of
more than one line or a call longer than :data:`SECONDS` fails the case, and so
does an exit 0 whose output prints a NaN or an infinity or a value outside its
documented range (:data:`COLUMN_RANGES`).  Planted defects (a NaN capacity, an
unrelated exception) are shown to fail the judge, in this process.  The
long-running commands (``sweep``, ``reproduce``, ``figures``) get only values
that no option of theirs accepts, so each call must end at argument checking.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lamcap.cli import build_parser

SECONDS = 20.0
MEMORY_LIMIT = 4 * 2**30

#: Values no numeric or path option of a long-running command accepts.
INVALID = ("-1", "nan", "inf", "-inf", "abc", "", "1e400", "10**100", "[1]", "2:1")
#: Sizes far beyond the machine, which the quick commands must refuse or answer.
HUGE = ("1e15", "1000000000", "10" + "0" * 100)

#: A valid, quick command line per command; ``{tmp}`` is a fresh folder.
BASE: dict[str, list[str]] = {
    "capacity": ["capacity", "--kappa", "0.5"],
    "critical-p": ["critical-p", "--d", "16"],
    "feasibility": ["feasibility", "--d", "12", "--p", "40"],
    "solve": ["solve", "--d", "8", "--p", "20", "--max-seconds", "10"],
    "sweep": ["sweep", "--d", "8", "--seeds", "1", "--db", "{tmp}/sweep.sqlite", "--quiet"],
    "reproduce": ["reproduce", "--quick", "--out", "{tmp}/reproduce", "--quiet"],
    "figures": ["figures", "--db", "{tmp}/missing.sqlite", "--out", "{tmp}/figures"],
    "results summary": ["results", "summary", "--db", "{tmp}/missing.sqlite"],
    "results export": [
        "results",
        "export",
        "--csv",
        "{tmp}/out.csv",
        "--db",
        "{tmp}/missing.sqlite",
    ],
    "results transitions": ["results", "transitions", "--db", "{tmp}/missing.sqlite"],
    "results merge": ["results", "merge", "{tmp}/merged.sqlite", "{tmp}/missing.sqlite"],
    "tables": ["tables", "--check", "--quiet"],
}
QUICK = frozenset({"capacity", "critical-p", "feasibility", "solve"})
#: Options that take no value or that the fuzz leaves alone (paths a value would create).
SKIPPED = frozenset({"--json", "--quiet", "--quick", "--check", "--dask-local", "--help"})


def _subparser(words: list[str]) -> argparse.ArgumentParser:
    parser = build_parser()
    for word in words:
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = action.choices[word]
    return parser


def _options(command: str) -> list[str]:
    """The options to fuzz; for the long-running commands only the numeric ones.

    A long-running command with a valid value would run for minutes (a path, a
    sweep name, a scheduler address accept almost any string), so it gets only
    the options whose every valid value is a number, which :data:`INVALID` never is.
    """
    parser = _subparser(command.split())
    return [
        action.option_strings[0]
        for action in parser._actions
        if action.option_strings
        and action.option_strings[0] not in SKIPPED
        and action.nargs != 0
        and not isinstance(action, argparse._HelpAction)
        and (command in QUICK or action.type in (int, float) or action.choices is not None)
    ]


def _cases() -> list[Any]:
    return [
        pytest.param(command, option, id=f"{command}{option}")
        for command in sorted(BASE)
        for option in _options(command)
    ]


def _argv(command: str, option: str, value: str, tmp: Path) -> list[str]:
    base = [word.replace("{tmp}", str(tmp)) for word in BASE[command]]
    if option in base:  # replace the base's value
        index = base.index(option)
        return [*base[:index], option, value, *base[index + 2 :]]
    return [*base, option, value]


#: Run in the child and here: ``run(argv)`` is ``[exit code, stderr, escaped traceback,
#: stdout]`` of :func:`lamcap.cli.main`.
RUN_SOURCE = """
import contextlib, io, traceback
from lamcap.cli import main


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code, escaped = main(argv), ""
        except SystemExit as stop:
            code, escaped = stop.code if isinstance(stop.code, int) else 2, ""
        except BaseException as error:
            code, escaped = -1, "".join(traceback.format_exception(error))[-600:]
    return [code, err.getvalue()[-600:], escaped, out.getvalue()[-2000:]]
"""
_RUN_CODE: dict[str, Any] = {}
exec(RUN_SOURCE, _RUN_CODE)  # noqa: S102 - our own source, shared with the child

_CHILD = """
import json, pickle, resource, sys
calls, limit, source = pickle.load(sys.stdin.buffer)
with open("/proc/self/status", encoding="ascii") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize"))
resource.setrlimit(resource.RLIMIT_AS, (size + limit, size + limit))
exec(source)
for argv in calls:
    print(json.dumps(run(argv)), flush=True)
"""


def outcomes(
    child_lines: Callable[..., Iterator[bytes | None]], calls: list[list[str]], folder: Path
) -> Iterator[tuple[int, str, str, str]]:
    """``(exit code, stderr, escaped traceback, stdout)`` per call, run in ``folder`` (what a
    value names as an output file lands there); a hang or a death (code -9) ends the run."""
    for line in child_lines(
        _CHILD, (calls, MEMORY_LIMIT, RUN_SOURCE), len(calls), seconds=SECONDS, folder=folder
    ):
        if line is None:
            yield (-9, "", f"timed out or died within {SECONDS:g} s", "")
            return
        code, error, escaped, out = json.loads(line)
        yield (code, error, escaped, out)


#: Documented ranges of the quick commands' result columns: ``(low, high, low excluded)``.
COLUMN_RANGES: dict[str, tuple[float, float, bool]] = {
    "capacity": (0.0, math.inf, True),
    "critical_p": (2.0, math.inf, False),
    "feasibility_probability": (0.0, 1.0, False),
}
_NOT_FINITE = re.compile(r"(?<![\w.])[-+]?(nan|inf|infinity)(?![\w])", re.IGNORECASE)


def _output_problems(out: str, argv: list[str]) -> list[str]:
    """What is wrong with an exit-0 output: a NaN or infinity, a column out of its range.

    A word of ``argv`` echoed back is not an answer (``solve --save nan`` writes a file
    named ``nan`` and says so).
    """
    problems = [
        f"printed {match.group(0)!r}"
        for match in _NOT_FINITE.finditer(out)
        if not any(match.group(0) in word for word in argv)
    ]
    lines = out.splitlines()
    header = next((line[2:].split() for line in lines if line.startswith("# ")), [])
    for line in lines:
        if line.startswith("#") or len(line.split()) != len(header):
            continue
        for name, text in zip(header, line.split(), strict=True):
            if name not in COLUMN_RANGES:
                continue
            low, high, open_low = COLUMN_RANGES[name]
            try:
                value = float(text)
            except ValueError:
                problems.append(f"{name} printed as {text!r}")
                continue
            if not (math.isfinite(value) and low <= value <= high) or (open_low and value == low):
                problems.append(f"{name} = {text}, documented in [{low:g}, {high:g}]")
    return problems


def _problems(argv: list[str], outcome: tuple[int, str, str, str]) -> str | None:
    code, error, escaped, out = outcome
    if escaped or code not in (0, 2):
        return f"{' '.join(argv)}: exit {code} {escaped or error}"
    if code == 2 and "Traceback" in error:
        return f"{' '.join(argv)}: traceback on stderr {error}"
    lines = [line for line in error.splitlines() if line.startswith("lamcap")]
    if code == 2 and len(lines) > 1:
        return f"{' '.join(argv)}: {len(lines)} error lines {error}"
    if code == 2 and not lines:
        return f"{' '.join(argv)}: exit 2 without a 'lamcap ...' error line {error!r}"
    if code == 0 and (found := _output_problems(out, argv)):
        return f"{' '.join(argv)}: exit 0 but {'; '.join(found)}"
    return None


@pytest.mark.slow  # a new process per case
@pytest.mark.parametrize(("command", "option"), _cases())
def test_every_option_ends_in_exit_0_or_2(
    command: str,
    option: str,
    tmp_path: Path,
    child_lines: Callable[..., Iterator[bytes | None]],
) -> None:
    values = INVALID + (HUGE if command in QUICK else ())
    calls = [_argv(command, option, value, tmp_path) for value in values]
    problems = [
        problem
        for argv, outcome in zip(calls, outcomes(child_lines, calls, tmp_path), strict=False)
        if (problem := _problems(argv, outcome)) is not None
    ]
    assert problems == []


# --------------------------------------------------------------------------
# bad files: missing, a folder, text, empty, truncated, damaged, foreign stores

_DAMAGE_SPEC = importlib.util.spec_from_file_location(
    "lamcap_store_damage", Path(__file__).parents[1] / "experiments" / "test_store_damage.py"
)
assert _DAMAGE_SPEC is not None
assert _DAMAGE_SPEC.loader is not None
damage = importlib.util.module_from_spec(_DAMAGE_SPEC)
_DAMAGE_SPEC.loader.exec_module(damage)
good_store = damage.good_store  # the module fixture: a sweep's store of 160 rows


def _folder(path: Path, _: Path) -> None:
    path.mkdir()


def _text(path: Path, _: Path) -> None:
    path.write_text("not a database\n", encoding="utf-8")


def _damaged(name: str) -> Callable[[Path, Path], None]:
    def make(path: Path, good: Path) -> None:
        shutil.copyfile(good, path)
        damage.DAMAGES[name][0](path)

    return make


#: A bad file of each kind, made at a path from a good store (``missing`` makes nothing).
BAD_FILES: dict[str, Callable[[Path, Path], None]] = {
    "missing": lambda *_: None,
    "folder": _folder,
    "text": _text,
    **{name: _damaged(name) for name in sorted(damage.DAMAGES)},
}

#: Commands reading or writing files, ``{bad}`` where the bad file goes; ``{good}`` is a
#: copy of a good store.  A missing store is valid for ``sweep`` (it creates one) and a
#: missing ``--out`` for ``tables``, so those get only the other kinds.
FILE_COMMANDS: dict[str, list[str]] = {
    "results summary": ["results", "summary", "--db", "{bad}"],
    "results export": ["results", "export", "--csv", "{tmp}/out.csv", "--db", "{bad}"],
    "results export --csv": ["results", "export", "--csv", "{bad}/x.csv", "--db", "{good}"],
    "results transitions": ["results", "transitions", "--db", "{bad}"],
    "results merge (shard)": ["results", "merge", "{tmp}/merged.sqlite", "{bad}"],
    "results merge (output)": ["results", "merge", "{bad}", "{good}"],
    "figures": ["figures", "--db", "{bad}", "--out", "{tmp}/figures", "--quiet"],
    "sweep": ["sweep", "--d", "8", "--p-grid", "10", "--db", "{bad}", "--quiet", *damage.WORKERS],
    "tables --repo": ["tables", "--check", "--repo", "{bad}", "--quiet"],
    "tables --out": ["tables", "--out", "{bad}", "--quiet"],
}
#: Kinds that are valid input for a command (it answers them with exit 0).
VALID_FILES: dict[str, frozenset[str]] = {
    "sweep": frozenset({"missing"}),
    "results merge (output)": frozenset({"missing"}),
    "tables --out": frozenset({"missing", "folder"}),
    "results export --csv": frozenset({"folder"}),
}


def _bad_file_cases() -> list[Any]:
    return [pytest.param(command, id=command.replace(" ", "-")) for command in FILE_COMMANDS]


@pytest.mark.slow  # a new process per case
@pytest.mark.parametrize("command", _bad_file_cases())
def test_every_bad_file_ends_in_exit_2_with_one_line_and_nothing_left_behind(
    command: str,
    good_store: Path,
    tmp_path: Path,
    child_lines: Callable[..., Iterator[bytes | None]],
) -> None:
    good = tmp_path / "good.sqlite"
    shutil.copyfile(good_store, good)
    kinds = [kind for kind in BAD_FILES if kind not in VALID_FILES.get(command, frozenset())]
    calls, folders = [], []
    for kind in kinds:
        folder = tmp_path / kind
        folder.mkdir()
        bad = folder / ("bad" if command.startswith("tables") else "bad.sqlite")
        if command == "results export --csv":
            bad = folder / "out"
        BAD_FILES[kind](bad, good_store)
        words = {"{bad}": str(bad), "{good}": str(good), "{tmp}": str(folder)}
        argv = list(FILE_COMMANDS[command])
        for key, value in words.items():
            argv = [word.replace(key, value) for word in argv]
        calls.append(argv)
        folders.append((folder, sorted(p.name for p in folder.iterdir())))
    results = list(outcomes(child_lines, calls, tmp_path))
    problems = [
        problem
        for argv, outcome in zip(calls, results, strict=False)
        if (problem := _problems(argv, outcome)) is not None
    ]
    problems += [
        f"{' '.join(argv)}: exit {outcome[0]}, not 2"
        for argv, outcome in zip(calls, results, strict=False)
        if outcome[0] != 2
    ]
    problems += [
        f"{folder.name}: left {sorted(set(now) - set(before))}"
        for (folder, before), outcome in zip(folders, results, strict=False)
        if outcome[0] == 2 and (now := [p.name for p in folder.iterdir()]) and sorted(now) != before
    ]
    assert problems == [], "\n".join(problems)
    assert len(results) == len(calls)


# --------------------------------------------------------------------------
# planted defects (in this process): the judge must catch each


def _run_here(argv: list[str]) -> tuple[int, str, str, str]:
    """What the child reports for ``argv`` (:data:`RUN_SOURCE`), run in this process."""
    code, error, escaped, out = _RUN_CODE["run"](argv)
    return code, error, escaped, out


def test_the_real_quick_commands_pass_the_judge() -> None:
    for command in sorted(QUICK - {"solve"}):
        argv = BASE[command]
        assert _problems(argv, _run_here(argv)) is None


@pytest.mark.parametrize(
    ("planted", "caught"),
    [
        (lambda *_, **__: math.nan, "printed 'nan'"),
        (lambda *_, **__: math.inf, "printed 'inf'"),
        (lambda *_, **__: -0.25, "capacity = -0.25, documented in [0, inf]"),
        (lambda *_, **__: 0.0, "capacity = 0.0, documented in [0, inf]"),
        (lambda *_, **__: {}["kappa"], "exit -1 KeyError"),
        (lambda *_, **__: 1 / 0, "exit -1 ZeroDivisionError"),
    ],
    ids=["nan", "inf", "negative", "zero", "key-error", "zero-division"],
)
def test_a_planted_defect_of_the_capacity_command_fails_the_judge(
    monkeypatch: pytest.MonkeyPatch, planted: Callable[..., Any], caught: str
) -> None:
    from lamcap.theory import _capacity

    # the planted law keeps the real one's name, docstring and status rule: only its
    # answers are wrong (the CLI prints the law's status next to them)
    monkeypatch.setattr(_capacity, "capacity", functools.wraps(_capacity.capacity)(planted))
    argv = BASE["capacity"]
    problem = _problems(argv, _run_here(argv))
    assert problem is not None
    assert caught in problem


def test_a_planted_out_of_range_probability_fails_the_judge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lamcap.theory import _crofton

    real = _crofton.feasibility_probability
    monkeypatch.setattr(
        _crofton, "feasibility_probability", functools.wraps(real)(lambda *_, **__: 1.5)
    )
    problem = _problems(BASE["feasibility"], _run_here(BASE["feasibility"]))
    assert problem is not None
    assert "feasibility_probability = 1.5, documented in [0, 1]" in problem
