"""Deprecated names: one warning per use that names the replacement.

A name renamed in a release keeps working for one more release (docs/changelog.md
lists every rename).  Three shapes:

* :func:`renamed_keywords` — a function whose keyword was renamed accepts the old
  keyword, warns and passes the value on under the new one;
* :func:`deprecated_function` — an old function name that calls its replacement;
* :func:`deprecated_attribute` — a module ``__getattr__`` for names that left a
  module's public face (plumbing moved out of ``__all__``).

Every use warns with a :class:`DeprecationWarning` whose message says what replaces
the name.  Python's default warning filter shows it once per calling line.

Examples
--------
>>> import warnings
>>> @renamed_keywords(level="significance")
... def judge(*, significance: float = 0.05) -> float:
...     return significance
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     judge(level=0.01)
0.01
>>> print(caught[0].message)
judge(level=...) is deprecated and will be removed in the next release; use judge(significance=...)
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")

_REMOVAL = "is deprecated and will be removed in the next release"


def warn_deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (a ``DeprecationWarning``)."""
    warnings.warn(f"{old} {_REMOVAL}; use {new}", DeprecationWarning, stacklevel=stacklevel)


def renamed_keywords(**renames: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorator: accept each old keyword of ``renames`` (old -> new) with a warning.

    Passing both the old and the new keyword is a ``TypeError``, as for any
    argument given twice.  The signature shown by :func:`inspect.signature` is the
    new one.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        name = function.__name__

        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        msg = f"{name}() got both {old!r} (deprecated) and {new!r}; pass {new!r}"
                        raise TypeError(msg)
                    warn_deprecated(f"{name}({old}=...)", f"{name}({new}=...)")
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return wrapper

    return decorate


def deprecated_function(
    old: str, replacement: Callable[_P, _R], *, new: str | None = None
) -> Callable[_P, _R]:
    """A function ``old`` that warns and calls ``replacement`` with the same arguments.

    ``new`` is how the warning writes the replacement (default: its name).
    """
    shown = new if new is not None else f"{replacement.__name__}(...)"

    @functools.wraps(replacement)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warn_deprecated(f"{old}(...)", shown)
        return replacement(*args, **kwargs)

    wrapper.__name__ = wrapper.__qualname__ = old
    wrapper.__doc__ = f"Deprecated: use {shown} (same arguments, same result)."
    return wrapper


def deprecated_attribute(
    module: str, moved: Mapping[str, str | tuple[str, str]]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` serving the names of ``moved`` with a warning.

    ``moved`` maps a name to the module that now holds it, or to ``(module,
    replacement)`` when the warning should name a public replacement instead.
    """

    def __getattr__(name: str) -> Any:
        target = moved.get(name)
        if target is None:
            msg = f"module {module!r} has no attribute {name!r}"
            raise AttributeError(msg)
        if isinstance(target, tuple):
            home, replacement = target
        else:
            home = target
            replacement = f"{home}.{name} (internal; it left the public face of {module})"
        warn_deprecated(f"{module}.{name}", replacement)
        return getattr(importlib.import_module(home), name)

    return __getattr__
