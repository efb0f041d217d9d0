"""Run every lamcap benchmark: ``python benchmarks/run.py [NAME ...]``.

Each ``benchmarks/bench_<topic>.py`` is a standalone script whose ``main()``
prints a table comparing lamcap with the real alternative, side by side in one
run, as ratios.  With names given (e.g. ``cone theory``) only those run.
Timings are wall-clock on the current machine; numba kernels are compiled and
warmed before anything is timed.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(path: Path):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        msg = f"cannot load benchmark {path}"
        raise ImportError(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(names: list[str]) -> int:
    paths = sorted(HERE.glob("bench_*.py"))
    if names:
        paths = [path for path in paths if path.stem.removeprefix("bench_") in names]
    for path in paths:
        print(f"\n=== {path.stem} ===", flush=True)
        start = time.perf_counter()
        _load(path).main()
        print(f"({path.stem} took {time.perf_counter() - start:.1f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
