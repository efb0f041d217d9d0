"""Progress of a long stage on stderr: a tqdm bar on a terminal, plain lines in a log.

:class:`Progress` counts finished units against a total that only ever grows
(work is added as it is planned, never estimated and taken back).  On a
terminal it draws a tqdm bar; when the stream is not a terminal (a batch job's
log, a pipe) it writes whole lines, without carriage returns: one each time a
further tenth of the current total is done, when the note changes (e.g.
``round 2 of 4``), at most every ``interval`` seconds otherwise, and a last
line on :meth:`Progress.close`.  Disabled, it does nothing: library calls are
quiet unless asked (``progress=True``).

Examples
--------
>>> import io
>>> log = io.StringIO()
>>> with Progress("demo", total=4, unit="steps", stream=log) as bar:
...     for _ in range(4):
...         bar.advance()
>>> print(log.getvalue().splitlines()[-1].split(",")[0])
demo: 4/4 steps (100%)
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Any, Self, TextIO


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s`` or ``2 h 07 min``."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class Progress:
    """Progress of one stage (see the module docstring).

    Parameters
    ----------
    description : what runs, e.g. the sweep's name.
    total : units known at the start (more can be added with :meth:`grow`).
    unit : name of a unit, plural (``"instances"``).
    note : the first note (what runs first).
    enabled : False for a no-op.
    stream : where to write (default ``sys.stderr``).
    interval : longest silence, in seconds, of the line-based output while units finish.
    """

    def __init__(
        self,
        description: str,
        *,
        total: int = 0,
        unit: str = "steps",
        note: str = "",
        enabled: bool = True,
        stream: TextIO | None = None,
        interval: float = 30.0,
    ) -> None:
        self.description = description
        self.total = total
        self.done = 0
        self.unit = unit
        self.enabled = enabled
        self._note = note
        self._stream = sys.stderr if stream is None else stream
        self._interval = interval
        self._started = self._last_line = time.monotonic()
        self._last_decile = -1
        self._last_state: tuple[int, int, str] | None = None
        self._lock = threading.Lock()
        self._bar: Any = None
        if enabled and self._stream.isatty():
            from tqdm.auto import tqdm  # noqa: PLC0415 - only to draw a bar on a terminal

            self._bar = tqdm(
                total=total or None,
                desc=description,
                unit=unit,
                dynamic_ncols=True,
                file=self._stream,
            )
            if note:
                self._bar.set_postfix_str(note)
        elif total:
            self._maybe_line(force=True)  # the starting line: what is about to run

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(interrupted=kind is not None)

    def grow(self, units: int, *, done: int = 0) -> None:
        """Add ``units`` to the total, ``done`` of which are already finished."""
        with self._lock:
            self.total += units
            self.done += done
            if self._bar is not None:
                self._bar.total = self.total
                self._bar.update(done)
                self._bar.refresh()
            else:
                self._maybe_line(force=False)

    def advance(self, units: int = 1, *, note: str | None = None) -> None:
        """Count ``units`` more as finished (and set the next ``note``: one line, not two)."""
        with self._lock:
            self.done += units
            changed = note is not None and note != self._note
            if note is not None:
                self._note = note
            if self._bar is not None:
                if changed:
                    self._bar.set_postfix_str(self._note, refresh=False)
                self._bar.update(units)
            else:
                self._maybe_line(force=changed)

    def note(self, text: str) -> None:
        """Set the note shown after the counts (e.g. ``round 2 of 4``)."""
        with self._lock:
            if text == self._note:
                return
            self._note = text
            if self._bar is not None:
                self._bar.set_postfix_str(text)
            else:
                self._maybe_line(force=True)

    def heartbeat(self) -> None:
        """During a long wait: refresh the bar, or write the current line once ``interval`` passed."""
        with self._lock:
            if self._bar is not None:
                self._bar.refresh()
            elif self.enabled and time.monotonic() - self._last_line >= self._interval:
                self._last_state = None
                self._maybe_line(force=True)

    def close(self, *, interrupted: bool = False) -> None:
        """Finish the bar, or write the last line (idempotent)."""
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None
            elif self.enabled and not interrupted:
                self._maybe_line(force=True)
            self.enabled = False

    # ---------------------------------------------------------------- lines

    def line(self) -> str:
        """The current state as one line of text."""
        share = f" ({100 * self.done // self.total}%)" if self.total else ""
        parts = [f"{self.description}: {self.done}/{self.total} {self.unit}{share}"]
        if self._note:
            parts.append(self._note)
        parts.append(f"{_duration(time.monotonic() - self._started)} elapsed")
        return ", ".join(parts)

    def _maybe_line(self, *, force: bool) -> None:
        if not self.enabled:
            return
        decile = 10 * self.done // self.total if self.total else 0
        self._last_decile = min(self._last_decile, decile)  # the total grew
        state = (self.done, self.total, self._note)
        now = time.monotonic()
        due = decile > self._last_decile or now - self._last_line >= self._interval
        if state == self._last_state or not (force or due):
            return
        self._last_decile, self._last_line, self._last_state = decile, now, state
        self._stream.write(self.line() + "\n")
        self._stream.flush()
