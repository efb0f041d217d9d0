r"""What kind of number a law returns: its status label, measured error and validated range.

Every law of :mod:`lamcap.theory` is one of four kinds (docs/vocabulary.md, "Law labels"):
*exact* (to the numerical precision stated), *asymptotic* (a limit, e.g. :math:`d \to
\infty`), *model with measured error* (a law whose miss is measured against certified
data over a range of :math:`d`) or *fitted* (constants fitted on data, the error checked
on points not used to fit).  A :class:`LawStatus` says which, with the measured error and
the range of :math:`d` it was measured on; :func:`law_status` gives it for a call, and a
law evaluated outside its measured range warns with :class:`ExtrapolationWarning`, which
users filter like any warning::

    import warnings
    warnings.simplefilter("ignore", lamcap.theory.ExtrapolationWarning)

The numbers come from the laws' own metadata (the cost models of
:mod:`lamcap.theory._cost_models` for the capacity laws); the measurements behind them
are on the docs pages each status names.  Reference: arXiv:2605.10795.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import re
import warnings
from collections.abc import Callable
from typing import Any, Final

from lamcap._validation import plain

LABELS: Final[tuple[str, ...]] = ("exact", "asymptotic", "model with measured error", "fitted")

#: Attribute under which a law keeps the function that gives its status for a call.
_RULE = "_law_status_rule"


class ExtrapolationWarning(UserWarning):
    r"""A law was evaluated outside the range of d where its error was measured.

    Status: exact. A statement about the call, not a law.

    Attributes
    ----------
    args : tuple of str
        The message: the law, its label, the measured range and the page of the
        measurement, e.g. for ``critical_p(4096, embeddings='sphere')`` "extrapolated
        outside the measured d = 8-64" (arXiv:2605.10795 claims the limit
        :math:`d \to \infty` only).
    """


@dataclasses.dataclass(frozen=True)
class LawStatus:
    r"""The kind of number a law returned, and how far to trust it.

    Status: exact. A record of the laws' metadata; its numbers are measured on the page
    it names, e.g. the miss :math:`|p_c^{\mathrm{measured}}/p_c - 1|` of docs/measurements/capacity.md.

    Attributes
    ----------
    label : str
        One of :data:`LABELS`.
    error : str or None
        The measured error in words ("within 1.4% of every certified decoupled
        transition"), None for exact laws.
    relative_error : float or None
        That error as a relative size (0.014), when it is one.
    measured_d : tuple of int or None
        Smallest and largest d of the measurement.
    page : str or None
        The docs page that holds the measurement.
    extrapolated : bool
        True when the call asked for a d outside ``measured_d``.
    """

    label: str
    error: str | None = None
    relative_error: float | None = None
    measured_d: tuple[int, int] | None = None
    page: str | None = None
    extrapolated: bool = False

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            msg = f"label must be one of {LABELS}, got {self.label!r}"
            raise ValueError(msg)

    def at(self, d: Any) -> LawStatus:
        """This status for a call at dimension(s) ``d`` (``extrapolated`` set from the range).

        Examples
        --------
        >>> LawStatus("model with measured error", measured_d=(8, 64)).at([16, 128]).extrapolated
        True
        """
        if self.measured_d is None or d is None:
            return self
        sizes = [float(size) for size in _flat(d)]
        outside = any(size < self.measured_d[0] or size > self.measured_d[1] for size in sizes)
        return dataclasses.replace(self, extrapolated=outside)

    def significant_digits(self) -> int | None:
        """Digits a value of this law deserves: one beyond its relative error (None: all).

        Examples
        --------
        >>> LawStatus("model with measured error", relative_error=0.027).significant_digits()
        4
        """
        if self.relative_error is None or self.relative_error <= 0.0:
            return None
        return max(2, math.ceil(-math.log10(self.relative_error)) + 2)

    def extrapolation(self) -> str | None:
        """``"extrapolated beyond d = 64"`` (or below) when :attr:`extrapolated`, else None."""
        if not self.extrapolated or self.measured_d is None:
            return None
        low, high = self.measured_d
        return f"extrapolated outside the measured d = {low}-{high}"

    def describe(self) -> str:
        """One line: the label, the measured error with its range and page, any extrapolation.

        Examples
        --------
        >>> LawStatus("exact").describe()
        'exact'
        """
        parts = [self.label]
        if self.error is not None:
            where = (
                ""
                if self.measured_d is None
                else f" at d = {self.measured_d[0]}-{self.measured_d[1]}"
            )
            page = "" if self.page is None else f" ({self.page})"
            parts.append(f"{self.error}{where}{page}")
        extrapolation = self.extrapolation()
        if extrapolation is not None:
            parts.append(extrapolation)
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """The fields as JSON-ready values (``measured_d`` a list)."""
        record = dataclasses.asdict(self)
        record["measured_d"] = None if self.measured_d is None else list(self.measured_d)
        return record

    def warn(self, where: str) -> None:
        """Emit :class:`ExtrapolationWarning` naming ``where`` when :attr:`extrapolated`.

        The warning points at the caller of the law that calls this method.
        """
        extrapolation = self.extrapolation()
        if extrapolation is not None:
            warnings.warn(
                f"{where}: {self.label}, {extrapolation} ({self.error}; {self.page})",
                ExtrapolationWarning,
                stacklevel=3,
            )


#: The status of every partial-recall value: the replica-symmetric estimate.
REPLICA_SYMMETRIC: Final[LawStatus] = LawStatus(
    "asymptotic",
    error="the replica-symmetric estimate, from above: certified best accuracies lie a few "
    "points below it",
    page="docs/measurements/recall-fraction.md",
)


def _flat(values: Any) -> list[Any]:
    """Every element of a scalar or a nested sequence or array."""
    if hasattr(values, "ravel"):
        return list(values.ravel().tolist())
    if isinstance(values, list | tuple):
        return [item for value in values for item in _flat(value)]
    return [values]


def with_status(
    rule: Callable[..., LawStatus], *, warn: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: give a law the rule of its status, and (``warn``) its extrapolation warning.

    ``rule`` takes the law's arguments by name (all of them, defaults applied) and returns
    a :class:`LawStatus`.  With ``warn`` the law warns with :class:`ExtrapolationWarning`
    after each call outside the measured range; the law without the warning stays
    reachable as ``law.__wrapped__``.
    """

    def attach(function: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(function)

        def status(*arguments: Any, **keywords: Any) -> LawStatus:
            bound = signature.bind_partial(*arguments, **keywords)
            bound.apply_defaults()
            return rule(**bound.arguments)

        if not warn:
            setattr(function, _RULE, status)
            return function

        @functools.wraps(function)
        def warning(*arguments: Any, **keywords: Any) -> Any:
            result = function(*arguments, **keywords)
            status(*arguments, **keywords).warn(function.__name__)
            return result

        setattr(warning, _RULE, status)
        return warning

    return attach


def docstring_label(function: Callable[..., Any]) -> str:
    """The label of the ``Status: <label>.`` line of ``function``'s docstring."""
    text = " ".join((inspect.getdoc(function) or "").split())
    found = [label for label in LABELS if re.search(rf"Status: {label}\b", text)]
    if len(found) != 1:
        name = getattr(function, "__name__", repr(function))
        msg = (
            f"function must be a law with one 'Status: <label>.' line in its docstring "
            f"(docs/vocabulary.md, law labels), got {name}"
        )
        raise ValueError(msg)
    return found[0]


def law_status(function: Any, *arguments: Any, **keywords: Any) -> LawStatus:
    r"""The :class:`LawStatus` of ``function`` called with these arguments.

    Laws whose status depends on their arguments (the capacity laws: the kind of
    embeddings, full or partial recall, full or reduced rank, and whether ``d`` lies in
    the measured range) carry a rule; for the others the status is the label of their
    docstring's ``Status:`` line.  For a model the measured error is the largest miss
    :math:`|p_c^{\mathrm{measured}}/p_c - 1|` over the range it names.

    Status: exact. A lookup of the laws' own metadata.

    Parameters
    ----------
    function : callable
        A public law of lamcap (``lamcap.critical_p``, ``lamcap.best_accuracy``, ...).
    *arguments, **keywords
        The arguments the law is (or would be) called with; only those its status
        depends on are read.

    Returns
    -------
    LawStatus
        Label, measured error, measured range of d, page, and whether the call
        extrapolates (reference: arXiv:2605.10795 for the laws; docs/vocabulary.md for the labels).

    Examples
    --------
    >>> import lamcap
    >>> status = law_status(lamcap.critical_p, 4096, embeddings="sphere")
    >>> status.label, status.extrapolated
    ('model with measured error', True)
    >>> law_status(lamcap.capacity).label
    'asymptotic'
    """
    if not callable(function):
        msg = f"function must be a public law of lamcap (a callable), got {plain(function)}"
        raise ValueError(msg)
    rule = getattr(function, _RULE, None)
    if rule is not None:
        return rule(*arguments, **keywords)  # type: ignore[no-any-return]
    return LawStatus(docstring_label(function))
