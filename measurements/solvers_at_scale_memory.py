"""Peak memory of the certified solver's exact stage against its estimate (Linux only).

Each instance is solved by ``lamcap.solve`` in a fresh process (spawned).  When the
solver checks the exact stage's memory (``cutting_plane._memory_fits``) the script
records the resident memory (``VmRSS``) and resets the kernel's peak (``VmHWM``,
by writing 5 to ``/proc/self/clear_refs``); from then on every phase of the
exact-stage path (Wolfe's warm start, growth, sort, major cycles, score passes,
certificate, the infeasibility proof, the verification of the result) records
its own peak.  The measured need is the peak after the check minus the memory
resident at the check, the quantity ``exact_stage_bytes`` bounds (the
available memory the solver compares it with already excludes what the process
holds).  Sizes in GB are 10**9 bytes.

Usage::

    python measurements/solvers_at_scale_memory.py --dims 32 48 64 --models decoupled original
    python measurements/solvers_at_scale_memory.py --dims 96 --models decoupled --seeds 0

Prints one row per instance (verdict, working set at the check, corral, CPU
seconds, memory at the check, peak after it, estimate, estimate / need) and the
peak of each phase above the memory at the check.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_KIB = 1024


def _status(field: str) -> int:
    """``field`` of ``/proc/self/status`` in bytes."""
    with Path("/proc/self/status").open(encoding="ascii") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * _KIB
    msg = f"{field} not in /proc/self/status"
    raise RuntimeError(msg)


def _reset_peak() -> None:
    with Path("/proc/self/clear_refs").open("w", encoding="ascii") as handle:
        handle.write("5")


class _Phases:
    """Peak resident memory per phase (phases nest; the innermost one is charged)."""

    def __init__(self) -> None:
        self.stack: list[str] = ["before"]
        self.peaks: dict[str, int] = {}
        self.at_check = 0
        self.working_set = -1
        self.entered: dict[str, int] = {}

    def _charge(self) -> None:
        label = self.stack[-1]
        self.peaks[label] = max(self.peaks.get(label, 0), _status("VmHWM"))
        _reset_peak()

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            self._charge()
            self.entered.setdefault(label, _status("VmRSS"))
            self.stack.append(label)
            try:
                return function(*args, **kwargs)
            finally:
                self._charge()
                self.stack.pop()

        return wrapped

    def check(self, function: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(function)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            answer = function(*args, **kwargs)  # loads the kernels, then measures
            self._charge()
            self.at_check = _status("VmRSS")
            self.working_set = int(args[1].size)
            self.stack = ["after check"]
            return answer

        return wrapped


def _instrument(phases: _Phases) -> None:
    from lamcap.solvers import _cutting_plane as cutting_plane  # noqa: PLC0415
    from lamcap.solvers import _result as result  # noqa: PLC0415
    from lamcap.solvers._min_norm_point import CorralState  # noqa: PLC0415

    cutting_plane._memory_fits = phases.check(cutting_plane._memory_fits)  # type: ignore[attr-defined]
    for name, label in (
        ("score_pass", "score pass"),
        ("_certificate", "certificate"),
        ("build_result", "result (verify W, recheck)"),
    ):
        setattr(cutting_plane, name, phases.wrap(label, getattr(cutting_plane, name)))
    result.prove_infeasible = phases.wrap("proof", result.prove_infeasible)  # type: ignore[attr-defined]
    for name, label in (
        ("from_weights", "warm start"),
        ("grow", "grow"),
        ("sort_by_weight", "sort"),
        ("run", "major cycles"),
    ):
        raw = CorralState.__dict__[name]
        if isinstance(raw, classmethod):
            setattr(CorralState, name, classmethod(phases.wrap(label, raw.__func__)))
        else:
            setattr(CorralState, name, phases.wrap(label, raw))


def _one(d: int, p: int, model: str, seed: int, max_seconds: float) -> dict[str, Any]:
    import lamcap  # noqa: PLC0415
    from lamcap.solvers._infeasibility import (  # noqa: PLC0415
        PERTURBATION_MAX_DIMENSION,
        _verified_inverse_bytes,
    )
    from lamcap.solvers._memory import perturbation_proof_bytes  # noqa: PLC0415

    phases = _Phases()
    _instrument(phases)
    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    cpu = time.process_time()
    solved = lamcap.solve(instance, max_seconds=max_seconds)
    cpu = time.process_time() - cpu
    phases._charge()
    details = solved.details
    corral = int(solved.certificate.alpha.size) if solved.certificate is not None else 0
    return {
        "verdict": solved.verdict,
        "proven": "exact" if solved.certificate is not None and solved.certificate.exact else "-",
        "stopped": details["stopped"],
        "working_set": details["working_set"],
        "support": corral,
        "cpu": cpu,
        "at_check": phases.at_check,
        "peaks": phases.peaks,
        "estimate": int(details.get("exact_memory_bytes", 0)),
        "check_set": phases.working_set,
        "proof_base": phases.entered.get("proof", 0),
        "proof_estimate": (
            perturbation_proof_bytes(corral, d * d)
            if d * d <= PERTURBATION_MAX_DIMENSION
            else _verified_inverse_bytes(corral, d * d)
        ),
    }


def measure(d: int, model: str, factor: float, seed: int, max_seconds: float) -> dict[str, Any]:
    """Solve one instance at ``factor * critical_p(d)`` in a fresh process; its memory profile."""
    import lamcap  # noqa: PLC0415

    p = round(factor * float(lamcap.critical_p(d)))
    context = multiprocessing.get_context("spawn")
    with context.Pool(1, maxtasksperchild=1) as pool:
        row: dict[str, Any] = pool.apply(_one, (d, p, model, seed, max_seconds))
    row.update(d=d, p=p, model=model, seed=seed)
    return row


def _report(row: dict[str, Any]) -> None:
    print(json.dumps(row), flush=True)  # the raw measurement first
    at_check = row["at_check"]
    after = {k: v for k, v in row["peaks"].items() if k not in ("before", "proof")}
    peak = max(after.values(), default=at_check)
    need = peak - at_check
    ratio = row["estimate"] / need if need > 0 else float("nan")
    if "proof" in row["peaks"] and row["support"] > row["d"] ** 2:  # the perturbation proof ran
        proof_need = row["peaks"]["proof"] - row["proof_base"]
        proof_estimate = row["proof_estimate"]
        proof = (
            f"; proof: need {proof_need / 1e9:.3f} GB, estimate {proof_estimate / 1e9:.3f} GB, "
            f"ratio {proof_estimate / proof_need:.2f}"
        )
    else:
        proof = ""
    print(
        f"d={row['d']} {row['model']} p={row['p']} seed={row['seed']}: {row['verdict']} "
        f"({row['proven']}, stopped {row['stopped']}), support {row['support']}, "
        f"working set at check {row['check_set']}, final {row['working_set']}, "
        f"{row['cpu']:.0f} s CPU; before check peak {row['peaks'].get('before', 0) / 1e9:.3f} GB, "
        f"at check {at_check / 1e9:.3f} GB, peak after {peak / 1e9:.3f} GB, "
        f"need {need / 1e9:.3f} GB, estimate {row['estimate'] / 1e9:.3f} GB, "
        f"estimate / need {ratio:.2f}{proof}",
        flush=True,
    )
    for label, value in sorted(row["peaks"].items(), key=lambda item: -item[1]):
        print(f"    {label:>28}: {(value - at_check) / 1e9:+.3f} GB", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[32, 48])
    parser.add_argument("--models", nargs="+", default=["decoupled", "original"])
    parser.add_argument("--factor", type=float, default=1.07)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--max-seconds", type=float, default=3600.0)
    arguments = parser.parse_args(argv)
    for d in arguments.dims:
        for model in arguments.models:
            for seed in arguments.seeds:
                _report(measure(d, model, arguments.factor, seed, arguments.max_seconds))


if __name__ == "__main__":
    main()
