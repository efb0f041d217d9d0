"""A theory command at d = 4096 from the shell: the whole process, against plain bisection.

Each row is a new Python process running ``lamcap critical-p --d 4096`` (Gaussian and
unit-norm embeddings): interpreter start, imports and the root search.  The unit-norm
cost takes a quadrature per integer p, so what the search costs is how many integers it
evaluates; the row "bisection" runs the same command with the integer bracket narrowed
by plain bisection (lamcap before the safeguarded false position of
``lamcap.theory._interpolation``), in the same run, so the ratio is measured on one
machine at one load.  Columns: wall clock and CPU time of the process; CPU time is the
number to compare on a shared machine (on an idle one wall and CPU agree within a few
tenths of a second).  The load average before and after is printed with the table.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time

_COMMAND = """
import sys
from lamcap.cli import main
{patch}
sys.exit(main(["critical-p", "--d", "4096", "--embeddings", "{embeddings}"]))
"""

_BISECTION = """
from lamcap.theory import _interpolation

def _halving(excess, low, high, below, above):
    while high - low > 1:
        split = (low + high) // 2
        if excess(split) < 0.0:
            low = split
        else:
            high = split
    return low, high

_interpolation._narrowed = _halving
"""


def _run(embeddings: str, patch: str) -> tuple[float, float, str]:
    code = _COMMAND.format(embeddings=embeddings, patch=patch)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, output.splitlines()[1].split()[-1]


def main() -> None:
    load = os.getloadavg()[0]
    _run("gaussian", "")  # fill the numba cache and the OS file cache once
    print("| embeddings | root search | process wall | process CPU | critical_p(4096) |")
    print("| --- | --- | --- | --- | --- |")
    times = {}
    for embeddings in ("gaussian", "sphere"):
        for name, patch in (("false position (lamcap)", ""), ("bisection", _BISECTION)):
            wall, cpu, value = _run(embeddings, patch)
            times[embeddings, name] = cpu
            print(f"| {embeddings} | {name} | {wall:.2f} s | {cpu:.2f} s | {value} |")
    ratio = times["sphere", "bisection"] / times["sphere", "false position (lamcap)"]
    print(f"\nunit-norm: bisection / false position CPU = {ratio:.1f}x")
    print(f"load average before {load:.1f}, after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
