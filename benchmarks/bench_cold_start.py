"""The first solves after an install: numba compilation against a warm cache, side by side.

Each row runs in a new Python process.  "cold" starts from an empty numba cache
(``NUMBA_CACHE_DIR`` pointed at a fresh folder, as after ``pip install``); "warm"
reuses the folder the cold run filled (every later process).  Both solve the
same instances in the same order: a feasible one first (the feasibility stage's
kernels), then an infeasible one (the proof stage's kernels).  Columns: wall
clock and CPU time of the whole process (interpreter, imports, instances,
solves), each solve's wall clock and CPU time, and the compilation
``SolveResult.compile_seconds`` reports (wall clock).  CPU time is the number to
compare across machines shared with other work; the ratio cold/warm is what the
cache saves.  The load average before and after is printed with the table.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time

# (d, p) of the first feasible and the first infeasible decoupled instance, seed 0
FEASIBLE = (16, 40)
INFEASIBLE = (16, 75)

_CHILD = """
import json, time
import lamcap
rows = []
for d, p in {instances}:
    instance = lamcap.make_instance(d, p, seed=0)
    start, cpu = time.perf_counter(), time.process_time()
    result = lamcap.solve(instance)
    rows.append(dict(d=d, p=p, verdict=result.verdict, wall=time.perf_counter() - start,
                     cpu=time.process_time() - cpu, solve=result.seconds,
                     compile=result.compile_seconds))
print(json.dumps(rows))
"""


def _run(cache: str) -> tuple[float, float, list[dict[str, float]]]:
    environment = {**os.environ, "NUMBA_CACHE_DIR": cache, "NUMBA_NUM_THREADS": "1"}
    code = _CHILD.format(instances=[FEASIBLE, INFEASIBLE])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    ).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(output.strip().splitlines()[-1])


def main() -> None:
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="lamcap-numba-") as cache:
        cold = _run(cache)
        warm = _run(cache)
    print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(
        f"{'cache':<6}{'process wall s':>16}{'process CPU s':>15}"
        f"{'solve':>22}{'wall s':>9}{'CPU s':>8}{'compile s':>11}"
    )
    for label, (wall, cpu, rows) in (("cold", cold), ("warm", warm)):
        for k, row in enumerate(rows):
            head = f"{label:<6}{wall:>16.1f}{cpu:>15.1f}" if k == 0 else f"{'':<6}{'':>16}{'':>15}"
            what = f"d={row['d']} p={row['p']} {row['verdict']}"
            print(f"{head}{what:>22}{row['wall']:>9.2f}{row['cpu']:>8.2f}{row['compile']:>11.2f}")
    print(f"cold/warm process CPU: {cold[1] / warm[1]:.1f}x")


if __name__ == "__main__":
    main()
