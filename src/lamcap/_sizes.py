r"""Whether a computation fits this machine, checked before it allocates.

Every public function and command that allocates memory growing with a
size argument (``p``, ``n``, ``d``) estimates the bytes first and calls
:func:`check_memory`, which compares them with :func:`available_memory` (as
the exact stage of the solver does, :func:`lamcap.solvers._memory.exact_stage_bytes`)
and raises a :class:`ValueError` naming the sizes and the memory they would
need instead of starting an allocation that ends in a ``MemoryError`` (or in
the kernel's out-of-memory killer).  :func:`lamcap.solve` does not raise:
it returns ``"undecided"`` with the estimate in ``details``.

Estimates count float64 numbers (8 bytes) of the arrays alive at once; they
are upper estimates of the arrays themselves and leave out the interpreter and
the libraries already loaded (which :func:`available_memory` has taken off).

Examples
--------
>>> format_bytes(64_000_000_000)
'59.6 GiB'
>>> check_memory("inputs of d = 8, n = 10", 640)  # fits: no error
>>> check_memory("inputs of d = 8, n = 1e18", 2**70, available=2**34)
Traceback (most recent call last):
    ...
ValueError: inputs of d = 8, n = 1e18: needs 1.00 ZiB of memory, but 16.0 GiB are available
"""

from __future__ import annotations

import os
from pathlib import Path

_UNLIMITED = 1 << 62  # "no limit" in the minimum of available_memory
_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")


def available_memory() -> int:
    """Bytes of memory available to new allocations without swapping or hitting a limit.

    The least of: the memory the system has available
    (``psutil.virtual_memory().available``, which counts reclaimable page
    cache; without psutil the free pages reported by ``os.sysconf``, a lower
    bound), the address space left under this process's ``RLIMIT_AS``
    (``ulimit -v``, ``prlimit --as``) and the memory left under its cgroup's
    limit (``memory.max``, a container's or a batch job's).

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        import psutil  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415
    except ImportError:  # pragma: no cover - psutil comes with dask[distributed]
        system = int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    else:
        system = int(psutil.virtual_memory().available)
    return max(0, min(system, _address_space_left(), _cgroup_left()))


def _address_space_left() -> int:
    """Bytes of address space left under ``RLIMIT_AS`` (a very large number without a limit)."""
    try:
        import resource  # noqa: PLC0415 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        return _UNLIMITED
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return _UNLIMITED
    return int(limit) - _virtual_size()


def _virtual_size() -> int:
    """Bytes of address space this process uses now (``/proc/self/statm``, else psutil)."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        import psutil  # noqa: PLC0415

        return int(psutil.Process().memory_info().vms)


def _cgroup_left(root: Path = Path("/sys/fs/cgroup")) -> int:
    """Bytes left under this process's cgroup v2 memory limit (a very large number without one)."""
    try:
        limit = (root / "memory.max").read_text(encoding="ascii").strip()
        if limit == "max":
            return _UNLIMITED
        current = int((root / "memory.current").read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return _UNLIMITED
    return int(limit) - current


def format_bytes(count: float) -> str:
    """A byte count as a person reads it: ``'512 bytes'``, ``'59.6 GiB'``, ``'7.28 TiB'``.

    Three significant digits in binary units; beyond yobibytes in powers of ten.

    Examples
    --------
    >>> format_bytes(512), format_bytes(8 * 10**12 * 10**6 // 10**6)
    ('512 bytes', '7.28 TiB')
    """
    if count < 1024:
        return f"{int(count)} bytes"
    if count >= 1024 ** len(_UNITS):
        return f"{format_integer(int(count))} bytes"
    value, power = float(count), 0
    while value >= 1024.0:
        value /= 1024.0
        power += 1
    unit = _UNITS[power]
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {unit}"


def format_integer(value: int) -> str:
    """An integer short enough to read: exact up to 15 digits, else ``'1e+400'`` style.

    Unlike ``f"{value:e}"`` this works for integers beyond the float64 range.

    Examples
    --------
    >>> format_integer(1000000000), format_integer(10**400), format_integer(-(3 * 10**20))
    ('1000000000', '1e+400', '-3e+20')
    """
    text = str(abs(value))
    sign = "-" if value < 0 else ""
    if len(text) <= 15:
        return sign + text
    mantissa = text[0] + ("." + text[1:4].rstrip("0") if text[1:4].strip("0") else "")
    return f"{sign}{mantissa}e+{len(text) - 1}"


def check_memory(what: str, needed: int, *, available: int | None = None) -> None:
    """Raise ``ValueError`` if ``needed`` bytes exceed the memory available now.

    Parameters
    ----------
    what : str
        The work and the sizes that set it, e.g. ``"make_instance with d = 8,
        n = 1000000000 (inputs: 8 n d bytes)"``; the message starts with it.
    needed : int
        Upper estimate of the bytes the work allocates.
    available : int, optional
        Bytes available (default :func:`available_memory`, read now).

    Raises
    ------
    ValueError
        ``"<what>: needs 59.6 GiB of memory, but 21.0 GiB are available"``.
    """
    have = available_memory() if available is None else available
    if needed > have:
        msg = f"{what}: needs {format_bytes(needed)} of memory, but {format_bytes(have)} are available"
        raise ValueError(msg)
