"""How often the certified solver leaves an instance undecided near the transition.

For each d, decoupled instances at p = f * critical_p(d) for f in 0.9 ... 1.1 and
several seeds are solved with ``lamcap.solve(instance, max_seconds=S)``; the script
prints, per d, the verdict counts, the undecided fraction and the median time, and
checks every decided verdict with ``lamcap.verify``.

Usage: ``python measurements/benchmarks_undecided.py --dims 16 24 32 --seeds 4``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

import lamcap

FRACTIONS = (0.9, 0.95, 1.0, 1.05, 1.1)


def measure(d: int, seeds: int, max_seconds: float) -> None:
    p_c = float(lamcap.critical_p(d))
    verdicts: Counter[str] = Counter()
    seconds: list[float] = []
    for fraction in FRACTIONS:
        p = round(fraction * p_c)
        for seed in range(seeds):
            instance = lamcap.make_instance(d, p, seed=1000 * d + seed)
            start = time.perf_counter()
            result = lamcap.solve(instance, max_seconds=max_seconds)
            seconds.append(time.perf_counter() - start)
            if result.verdict != "undecided" and not lamcap.verify(instance, result):
                msg = f"verification failed at d={d}, p={p}, seed={seed}"
                raise AssertionError(msg)
            verdicts[result.verdict] += 1
            print(
                f"  d={d} p={p} ({fraction:.2f} p_c) seed={seed}: {result.verdict} "
                f"in {seconds[-1]:.1f} s",
                flush=True,
            )
    total = sum(verdicts.values())
    print(
        f"d={d}: p_c={p_c:.1f}, {total} instances, feasible {verdicts['feasible']}, "
        f"infeasible {verdicts['infeasible']}, undecided {verdicts['undecided']} "
        f"({verdicts['undecided'] / total:.0%}), median {statistics.median(seconds):.1f} s, "
        f"max {max(seconds):.1f} s",
        flush=True,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[16, 24])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--max-seconds", type=float, default=120.0)
    arguments = parser.parse_args(argv)
    for d in arguments.dims:
        measure(d, arguments.seeds, arguments.max_seconds)


if __name__ == "__main__":
    main()
