"""Theory sub-commands of ``lamcap``: ``capacity``, ``critical-p``, ``feasibility``.

Each prints a header line starting with ``#`` that names the columns, then one
line of whitespace-separated plain numbers per result (the parameters first,
the result last), then ``# status:`` lines that say what kind of number the result
is (:func:`lamcap.law_status`: exact, asymptotic, model with measured error or
fitted, with the measured error, the range of d it was measured on and whether the
result lies outside it).  A model's result is printed to the significant digits its
measured error supports; ``--json`` prints one JSON object instead, each result with
its ``status`` fields and that rounded value.  Bad input raises ``ValueError``, which
the dispatcher turns into a one-line message and exit code 2.

Examples
--------
>>> from lamcap.cli import main
>>> main(["capacity", "--kappa", "1"])
# kappa capacity
1.0 0.5
# status: asymptotic
0
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import warnings
from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np

from lamcap._sizes import check_memory
from lamcap._validation import EMBEDDINGS, check_integer
from lamcap.theory._status import ExtrapolationWarning, LawStatus, law_status


def parse_integer_range(name: str, text: str) -> list[int]:
    """Parse ``start:stop[:step]`` (stop included) or a single integer.

    Examples
    --------
    >>> parse_integer_range("p", "30:40:5")
    [30, 35, 40]
    >>> parse_integer_range("p", "7")
    [7]
    """
    parts = text.split(":")
    if not 1 <= len(parts) <= 3:
        msg = f"{name} must be an integer or a range start:stop[:step], got {text!r}"
        raise ValueError(msg)
    values = [_parse_integer(name, part) for part in parts]
    if len(values) == 1:
        return values
    start, stop = values[0], values[1]
    step = values[2] if len(values) == 3 else 1
    if step < 1 or stop < start:
        msg = f"{name} range must have start <= stop and step >= 1, got {text!r}"
        raise ValueError(msg)
    count = (stop - start) // step + 1
    check_memory(f"{name} range {text!r} ({count} values, one output line each)", 256 * count)
    return list(range(start, stop + 1, step))


def _parse_integer(name: str, text: str, minimum: int | None = None) -> int:
    try:
        value: Any = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            msg = f"{name} must be an integer, got {text!r}"
            raise ValueError(msg) from None
    return check_integer(name, value, minimum=minimum)


def _parse_real(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        msg = f"{name} must be a real number, got {text!r}"
        raise ValueError(msg) from None


def _format(value: Any, dps: int | None = None) -> str:
    if isinstance(value, mpmath.mpf):
        return str(mpmath.nstr(value, dps or mpmath.mp.dps))
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return str(value)


def _rounded(value: Any, status: LawStatus | None) -> Any:
    """``value`` to the significant digits ``status`` supports (unchanged for exact laws)."""
    digits = None if status is None else status.significant_digits()
    if digits is None or not isinstance(value, float | np.floating) or not np.isfinite(value):
        return value
    return float(
        np.format_float_positional(value, precision=digits, unique=False, fractional=False)
    )


def _emit(
    arguments: argparse.Namespace,
    columns: Sequence[str],
    rows: list[list[Any]],
    parameters: dict[str, Any],
    dps: int | None = None,
    statuses: Sequence[LawStatus] | None = None,
) -> int:
    """Print ``rows`` as text or JSON; with ``statuses`` (one per row) the last column is a law's."""
    marks = list(statuses) if statuses is not None else [None] * len(rows)
    rows = [[*row[:-1], _rounded(row[-1], status)] for row, status in zip(rows, marks, strict=True)]
    if arguments.json:
        records = [
            {
                column: (_format(value, dps) if isinstance(value, mpmath.mpf) else value)
                for column, value in zip(columns, row, strict=True)
            }
            | ({} if status is None else {"status": _status_record(status)})
            for row, status in zip(rows, marks, strict=True)
        ]
        print(
            json.dumps(
                {"command": arguments.command, "parameters": parameters, "results": records},
                default=float,
            )
        )
        return 0
    print("# " + " ".join(columns))
    for row in rows:
        print(" ".join(_format(value, dps) for value in row))
    for line in dict.fromkeys(status.describe() for status in marks if status is not None):
        print(f"# status: {line}")
    return 0


def _status_record(status: LawStatus) -> dict[str, Any]:
    """The JSON fields of a result's status, with the digits its value was rounded to."""
    return status.as_dict() | {"significant_digits": status.significant_digits()}


def _quietly(function: Any, *arguments: Any, **keywords: Any) -> Any:
    """``function(...)`` without the extrapolation warning: the status lines state it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtrapolationWarning)
        return function(*arguments, **keywords)


def _capacity(arguments: argparse.Namespace) -> int:
    from lamcap.theory._capacity import capacity  # noqa: PLC0415 - keep CLI start-up light

    dps = None if arguments.dps is None else _parse_integer("dps", arguments.dps, 1)
    p = None if arguments.p is None else _parse_integer("p", arguments.p, 2)
    d = None if arguments.d is None else _parse_integer("d", arguments.d, 1)
    columns = ["kappa"] + (["p"] if p is not None else []) + (["d"] if d is not None else [])
    sizes = [q for q in (p, d) if q is not None]
    rows, statuses = [], []
    kappas = [_parse_real("kappa", text) for text in arguments.kappa]
    embeddings = arguments.embeddings
    for text, number in zip(arguments.kappa, kappas, strict=True):
        # with --dps the text itself goes to mpmath, so "0.1" means exactly 1/10
        value = capacity(
            text if dps is not None else number, p=p, d=d, dps=dps, embeddings=embeddings
        )
        rows.append([number, *sizes, value if dps is not None else float(value)])
        statuses.append(law_status(capacity, number, p=p, d=d, embeddings=embeddings))
    return _emit(
        arguments,
        [*columns, "capacity"],
        rows,
        {"kappa": kappas, "p": p, "d": d, "dps": dps, "embeddings": embeddings},
        dps,
        statuses,
    )


def _critical_p(arguments: argparse.Namespace) -> int:
    from lamcap.theory._capacity import critical_p  # noqa: PLC0415 - keep CLI start-up light

    kappa = _parse_real("kappa", arguments.kappa)
    dimensions = [value for text in arguments.d for value in parse_integer_range("d", text)]
    embeddings = arguments.embeddings
    given = arguments.accuracy is not None
    accuracy = _parse_real("accuracy", arguments.accuracy) if given else 1.0
    values = np.atleast_1d(
        _quietly(critical_p, np.array(dimensions), kappa, accuracy=accuracy, embeddings=embeddings)
    )
    statuses = [
        law_status(critical_p, d, kappa, accuracy=accuracy, embeddings=embeddings)
        for d in dimensions
    ]
    shown = [accuracy] if given else []
    rows = [[d, kappa, *shown, float(value)] for d, value in zip(dimensions, values, strict=True)]
    parameters: dict[str, Any] = {"d": dimensions, "kappa": kappa, "embeddings": embeddings}
    if given:
        parameters["accuracy"] = accuracy
    columns = ["d", "kappa", *(["accuracy"] if given else []), "critical_p"]
    return _emit(arguments, columns, rows, parameters, statuses=statuses)


def _feasibility(arguments: argparse.Namespace) -> int:
    from lamcap.theory._crofton import feasibility_probability  # noqa: PLC0415 - keep CLI start-up light

    d = _parse_integer("d", arguments.d, 1)
    kappa = _parse_real("kappa", arguments.kappa)
    outputs = parse_integer_range("p", arguments.p)
    n = None if arguments.n is None else _parse_integer("n", arguments.n, 1)
    embeddings = arguments.embeddings
    values = np.atleast_1d(
        _quietly(
            feasibility_probability, d, np.array(outputs), n=n, kappa=kappa, embeddings=embeddings
        )
    )
    rows = [
        [d, q, q if n is None else n, kappa, float(value)]
        for q, value in zip(outputs, values, strict=True)
    ]
    # a probability is printed in full: the law's error is in p, not in the probability
    status = law_status(feasibility_probability, d, kappa=kappa, embeddings=embeddings)
    unrounded = dataclasses.replace(status, relative_error=None)
    return _emit(
        arguments,
        ["d", "p", "n", "kappa", "feasibility_probability"],
        rows,
        {"d": d, "p": outputs, "n": n, "kappa": kappa, "embeddings": embeddings},
        statuses=[unrounded] * len(rows),
    )


def register(subparsers: Any) -> None:
    """Add the ``capacity``, ``critical-p`` and ``feasibility`` sub-commands."""
    parser = subparsers.add_parser(
        "capacity",
        help="capacity alpha_c (load p log p / d^2), asymptotic or finite size",
        description="Capacity alpha_c(kappa) = F(kappa)/2, or log(p) w^2 / (d^2 E[C_p]) "
        "with --p (and the finite-d width with --d).",
    )
    parser.add_argument(
        "--kappa",
        nargs="+",
        default=["1.0"],
        metavar="KAPPA",
        help="rank ratio(s) m/d in (0, 1] (default 1)",
    )
    parser.add_argument("--p", help="number of outputs p >= 2 (finite-size capacity)")
    parser.add_argument("--d", help="dimension d >= 1 (finite-d width; needs --p)")
    parser.add_argument("--dps", help="mpmath digits: print the result to this many digits")
    _add_embeddings(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=_capacity)

    parser = subparsers.add_parser(
        "critical-p",
        help="real p_c(d) solving p E[C_p] = w^2 (or at a given accuracy)",
        description="Critical number of outputs p_c(d) (n = p) where p E[C_p] equals the "
        "squared Gaussian width of the rank-round(kappa d) matrices; with --accuracy a < 1, "
        "the largest p at which the best W still recalls a fraction a "
        "(docs/theory/partial-recall.md).",
    )
    parser.add_argument(
        "--d",
        nargs="+",
        required=True,
        metavar="D",
        help="dimension(s): integers or ranges start:stop[:step], stop included",
    )
    parser.add_argument(
        "--accuracy",
        help="fraction of associations recalled, in (0, 1] (default 1: all; adds a column)",
    )
    _add_kappa_and_json(parser)
    parser.set_defaults(handler=_critical_p)

    parser = subparsers.add_parser(
        "feasibility",
        help="Crofton probability that n associations are storable",
        description="Probability that n (default p) associations with p outputs each are "
        "storable in a d x d map (Crofton formula, docs/theory/crofton.md).",
    )
    parser.add_argument("--d", required=True, help="dimension d >= 1")
    parser.add_argument(
        "--p", required=True, help="outputs: integer or range start:stop[:step], stop included"
    )
    parser.add_argument("--n", help="number of associations (default: n = p)")
    _add_kappa_and_json(parser)
    parser.set_defaults(handler=_feasibility)


def _add_kappa_and_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kappa", default="1.0", help="rank ratio in (0, 1] (default 1)")
    _add_embeddings(parser)
    parser.add_argument("--json", action="store_true", help="print JSON")


def _add_embeddings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--embeddings",
        default="gaussian",
        choices=EMBEDDINGS,
        help="gaussian: entries N(0, 1/d); sphere: unit-norm outputs, the law of "
        "docs/theory/unit-norm.md (full rank; default gaussian)",
    )
