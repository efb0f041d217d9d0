"""A cache folder numba can write, for the kernels' ``cache=True``, chosen before numba decorates them.

numba stores compiled kernels in ``__pycache__`` beside each module, or, when
that folder is not writable (a system or read-only ``site-packages``), in its
user cache directory (``$XDG_CACHE_HOME/numba``, by default ``~/.cache/numba``);
``NUMBA_CACHE_DIR`` takes precedence over both.  When none of them is writable
(a read-only container without a writable home), numba refuses to define any
``cache=True`` function ("cannot cache function ...: no locator available"),
so the first solve or theory call would end in a ``RuntimeError``.  In that
case only, :func:`ensure_numba_cache` points numba at a folder of its own in
the temporary directory (the kernels are then compiled again when that folder
is cleared).  ``import lamcap`` calls it; it does not import numba.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def _writable(folder: Path) -> bool:
    """Whether ``folder`` could be created and written: its nearest existing ancestor is writable."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate.is_dir() and os.access(candidate, os.W_OK | os.X_OK)
    return False


def user_cache_folder(environment: dict[str, str] | None = None) -> Path:
    """numba's user-wide cache folder: ``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``."""
    values = os.environ if environment is None else environment
    base = values.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path("~").expanduser() / ".cache") / "numba"


def fallback_cache_folder(
    package: Path = PACKAGE,
    user: Path | None = None,
    temporary: Path | None = None,
    environment: dict[str, str] | None = None,
) -> Path | None:
    """The folder numba must be given, or None when it finds a writable one itself.

    None when ``NUMBA_CACHE_DIR`` is set, when the package's ``__pycache__``
    folders can be written or when numba's user cache folder can; otherwise
    ``lamcap-numba-<user id>`` in the temporary directory, if that can be
    written (else None: nothing writable is left to choose).

    Examples
    --------
    >>> fallback_cache_folder(environment={"NUMBA_CACHE_DIR": "/somewhere"}) is None
    True
    """
    values = os.environ if environment is None else environment
    if values.get("NUMBA_CACHE_DIR"):
        return None
    user = user_cache_folder(dict(values)) if user is None else user
    if _writable(package / "__pycache__") or _writable(user):
        return None
    base = Path(tempfile.gettempdir()) if temporary is None else temporary
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = base / f"lamcap-numba-{uid}"
    return folder if _writable(folder) else None


def ensure_numba_cache() -> Path | None:
    """Give numba :func:`fallback_cache_folder` when it needs one; return the folder chosen (or None).

    Sets ``NUMBA_CACHE_DIR`` (read when numba is imported, and inherited by
    worker processes) and, when numba is imported already, its configuration.
    """
    folder = fallback_cache_folder()
    if folder is None:
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]
    return folder
