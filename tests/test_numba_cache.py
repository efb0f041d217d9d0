"""The numba cache folder chosen at import (lamcap._numba_cache).

Folders are made unwritable by patching ``os.access`` (the tests may run as
root, for whom permission bits do not stop a write); the effect on numba is
checked in a new process whose package and user cache folders are unwritable
that way.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lamcap import _numba_cache
from lamcap._numba_cache import ensure_numba_cache, fallback_cache_folder, user_cache_folder


def _unwritable(*folders: Path):  # type: ignore[no-untyped-def]
    """An ``os.access`` that refuses writing inside ``folders``."""
    real = os.access

    def access(path, mode, **kwargs):  # type: ignore[no-untyped-def]
        inside = any(Path(path) == folder or folder in Path(path).parents for folder in folders)
        if inside and mode & os.W_OK:
            return False
        return real(path, mode, **kwargs)

    return access


def test_no_folder_is_chosen_when_numba_finds_a_writable_one(tmp_path: Path) -> None:
    package, user = tmp_path / "package", tmp_path / "home" / ".cache" / "numba"
    package.mkdir()
    assert fallback_cache_folder(package, user, tmp_path, environment={}) is None


def test_no_folder_is_chosen_when_numba_cache_dir_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "access", _unwritable(tmp_path))
    environment = {"NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    assert fallback_cache_folder(tmp_path, tmp_path, tmp_path, environment=environment) is None


def test_a_read_only_package_alone_leaves_numba_its_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, home = tmp_path / "site-packages" / "lamcap", tmp_path / "home"
    package.mkdir(parents=True)
    home.mkdir()
    monkeypatch.setattr(os, "access", _unwritable(package))
    user = user_cache_folder({"XDG_CACHE_HOME": str(home / ".cache")})
    assert user == home / ".cache" / "numba"
    assert fallback_cache_folder(package, user, tmp_path, environment={}) is None


def test_the_temporary_folder_when_neither_package_nor_home_is_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package, home, temporary = tmp_path / "lamcap", tmp_path / "home", tmp_path / "tmp"
    for folder in (package, home, temporary):
        folder.mkdir()
    monkeypatch.setattr(os, "access", _unwritable(package, home))
    chosen = fallback_cache_folder(package, home / ".cache" / "numba", temporary, environment={})
    assert chosen is not None
    assert chosen.parent == temporary
    assert chosen.name.startswith("lamcap-numba-")
    monkeypatch.setattr(os, "access", _unwritable(package, home, temporary))
    assert fallback_cache_folder(package, home, temporary, environment={}) is None


def test_ensure_sets_numba_cache_dir_only_when_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(_numba_cache, "fallback_cache_folder", lambda: None)
    assert ensure_numba_cache() is None
    assert "NUMBA_CACHE_DIR" not in os.environ
    folder = Path("/elsewhere/lamcap-numba-0")
    monkeypatch.setattr(_numba_cache, "fallback_cache_folder", lambda: folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:
        monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)
    assert ensure_numba_cache() == folder
    assert os.environ["NUMBA_CACHE_DIR"] == str(folder)
    if config is not None:
        assert str(folder) == config.CACHE_DIR


_NOTHING_WRITABLE = """
import os
from pathlib import Path

real = os.access
blocked = (Path(os.environ["PACKAGE"]), Path(os.environ["HOME"]))

def access(path, mode, **kwargs):
    inside = any(Path(path) == folder or folder in Path(path).parents for folder in blocked)
    return False if inside and mode & os.W_OK else real(path, mode, **kwargs)

os.access = access
import lamcap  # chooses the folder
import numba

@numba.njit(cache=True)
def twice(x):
    return 2 * x

print(os.environ["NUMBA_CACHE_DIR"], twice(21))
"""


def test_a_new_process_without_writable_folders_still_defines_cached_kernels(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    environment = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    environment.update(
        PACKAGE=str(Path(_numba_cache.__file__).parent),
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        TMPDIR=str(tmp_path),
    )
    script = tmp_path / "script.py"  # numba caches functions of real files only
    script.write_text(_NOTHING_WRITABLE)
    output = subprocess.run(
        [sys.executable, str(script)], env=environment, capture_output=True, text=True, check=True
    ).stdout.split()
    assert Path(output[0]).parent == tmp_path
    assert output[1] == "42"
