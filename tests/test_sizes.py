"""The memory guard shared by every allocating function (lamcap._sizes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lamcap import _sizes
from lamcap._sizes import check_memory, format_bytes, format_integer
from lamcap._validation import check_float_range, check_integer_array
from lamcap.solvers import _memory


def test_format_bytes_uses_binary_units() -> None:
    assert format_bytes(0) == "0 bytes"
    assert format_bytes(1023) == "1023 bytes"
    assert format_bytes(1024) == "1.00 KiB"
    assert format_bytes(8 * 10**9 * 8) == "59.6 GiB"  # make_instance(8, 10**9)'s inputs
    assert format_bytes(8 * 10**12) == "7.28 TiB"  # make_instance(10**6, 10**6)'s inputs
    assert format_bytes(10**400).endswith("e+400 bytes")


def test_format_integer_is_exact_when_short_and_scientific_beyond() -> None:
    assert format_integer(123456789012345) == "123456789012345"
    assert format_integer(10**15) == "1e+15"
    assert format_integer(12345 * 10**100) == "1.234e+104"
    assert format_integer(10**400) == "1e+400"


def test_check_memory_names_the_work_and_both_sizes() -> None:
    check_memory("small", 100, available=100)
    with pytest.raises(ValueError, match=r"^big: needs 1.00 GiB of memory, but 1.00 MiB are"):
        check_memory("big", 2**30, available=2**20)


def test_check_memory_reads_available_memory_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_sizes, "available_memory", lambda: 10)
    with pytest.raises(ValueError, match="needs 11 bytes of memory, but 10 bytes"):
        check_memory("work", 11)


def test_solvers_memory_reexports_the_one_available_memory() -> None:
    assert _memory.available_memory is _sizes.available_memory
    assert 0 < _sizes.available_memory() < 1 << 50


def test_check_float_range_refuses_integers_beyond_float64() -> None:
    check_float_range("p", check_integer_array("p", [2, 10**300]), "why")
    huge = np.array(10**400, dtype=object)
    with pytest.raises(
        ValueError, match=r"p must be an integer in \[2, 1.8e\+308\] \(why\), got 1e\+400$"
    ):
        check_float_range("p", huge, "why")
    # every integer array check refuses them, naming the argument
    with pytest.raises(
        ValueError, match=r"^n must contain integers <= 1.8e\+308 .*1e\+400 \(element 1\)$"
    ):
        check_integer_array("n", [1, 10**400])
    with pytest.raises(ValueError, match=r"^p must be an integer in \[2, 1.8e\+308\]"):
        check_integer_array("p", 10**400, minimum=2)


def test_available_memory_respects_an_address_space_limit() -> None:
    # `ulimit -v` / `prlimit --as`: allocations fail at the limit, whatever the machine has
    import resource
    import subprocess
    import sys

    limit = 3 << 30

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    script = "from lamcap import _sizes; print(_sizes.available_memory())"
    completed = subprocess.run(
        [sys.executable, "-c", script],
        preexec_fn=limited,
        capture_output=True,
        text=True,
        check=True,
    )
    assert 0 < int(completed.stdout) < limit


def test_cgroup_limit_counts(tmp_path: Path) -> None:
    (tmp_path / "memory.max").write_text("1000000\n")
    (tmp_path / "memory.current").write_text("400000\n")
    assert _sizes._cgroup_left(tmp_path) == 600000
    (tmp_path / "memory.max").write_text("max\n")
    assert _sizes._cgroup_left(tmp_path) >= 1 << 62
    assert _sizes._cgroup_left(tmp_path / "absent") >= 1 << 62


def test_scalar_integer_checks_refuse_integers_beyond_float64() -> None:
    from lamcap._validation import check_integer

    assert check_integer("p", 10**300, minimum=2) == 10**300
    with pytest.raises(ValueError, match=r"^p must be an integer in \[2, 1.8e\+308\] .*1e\+400$"):
        check_integer("p", 10**400, minimum=2)
