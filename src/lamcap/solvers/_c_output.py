"""Silencing C-level output: HiGHS prints from C++ to file descriptor 1.

Used by :mod:`lamcap.solvers._full_lp` (highspy's banner) and
:mod:`lamcap.solvers._max_recall` (the MIP solver's debugging lines under time
limits).  Imports nothing of lamcap, so any solver module may use it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator


def _flush_c_stdio() -> None:
    """Flush the C library's stdio buffers (no-op where libc is not reachable)."""
    with contextlib.suppress(OSError, AttributeError, TypeError):
        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def stdout_descriptor_to_devnull() -> Iterator[None]:
    """Point file descriptor 1 at the null device for the duration (C-level prints)."""
    if sys.stdout is not None:
        sys.stdout.flush()
    _flush_c_stdio()
    try:
        saved = os.dup(1)
    except OSError:  # no descriptor 1: nothing to protect
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
