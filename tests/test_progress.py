"""Progress on stderr: tqdm on a terminal, whole lines in logs, nothing when disabled."""

from __future__ import annotations

import io
import re

import pytest

from lamcap._progress import Progress

LINE = re.compile(r"^demo: (\d+)/(\d+) units \((\d+)%\)(, [^,]+)?, \d+ s elapsed$")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lines(text: str) -> list[tuple[int, int]]:
    found = []
    for line in text.splitlines():
        match = LINE.match(line)
        assert match, line
        done, total, share = (int(match.group(i)) for i in (1, 2, 3))
        assert share == 100 * done // total
        found.append((done, total))
    return found


def test_log_output_is_whole_lines_one_per_tenth() -> None:
    log = io.StringIO()
    with Progress("demo", total=100, unit="units", stream=log, interval=1e9) as bar:
        for _ in range(100):
            bar.advance()
    text = log.getvalue()
    assert "\r" not in text
    assert _lines(text) == [(10 * k, 100) for k in range(11)]


def test_growing_total_is_reported_and_never_shrinks() -> None:
    log = io.StringIO()
    with Progress("demo", unit="units", stream=log, interval=1e9) as bar:
        bar.grow(20)
        bar.note("round 1 of 2")
        bar.advance(20)
        bar.grow(10, done=4)
        bar.advance(note="round 2 of 2")
        bar.advance(5)
    lines = _lines(log.getvalue())
    totals = [total for _, total in lines]
    assert totals == sorted(totals)
    assert lines[-1] == (30, 30)
    assert "round 2 of 2" in log.getvalue().splitlines()[-1]


def test_a_note_change_is_one_line() -> None:
    log = io.StringIO()
    with Progress("demo", total=3, unit="units", stream=log, interval=1e9) as bar:
        bar.note("first")
        bar.advance(note="second")
        bar.advance(note="third")
        bar.advance(note="done")
    start, *lines = log.getvalue().splitlines()
    assert _lines(start) == [(0, 3)]
    assert [line.split(", ")[1] for line in lines] == ["first", "second", "third", "done"]


def test_terminal_gets_a_tqdm_bar() -> None:
    terminal = _Terminal()
    with Progress("demo", total=5, unit="units", stream=terminal) as bar:
        bar.advance(5)
    assert "\r" in terminal.getvalue()
    assert "5/5" in terminal.getvalue()


@pytest.mark.parametrize("stream", [io.StringIO, _Terminal])
def test_disabled_writes_nothing(stream: type[io.StringIO]) -> None:
    target = stream()
    with Progress("demo", total=5, enabled=False, stream=target) as bar:
        bar.note("x")
        bar.advance(5)
    assert target.getvalue() == ""


def test_interrupted_stage_writes_no_final_line() -> None:
    log = io.StringIO()
    with pytest.raises(KeyboardInterrupt), Progress("demo", total=100, stream=log, unit="units"):
        raise KeyboardInterrupt
    assert _lines(log.getvalue()) == [(0, 100)]
