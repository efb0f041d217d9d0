"""Shared fixtures: numba kernels warmed once per session; mpmath's default precision per test.

Two session checks live here too (:class:`SessionChecks`): in a CI run (the ``CI``
environment variable set, as GitHub Actions and ``.ci/run`` do) every skip must be
on :data:`SKIPS_ALLOWED_IN_CI`, and with ``--fast-tier-limit SECONDS`` (or
``LAMCAP_FAST_TIER_LIMIT``) the slowest fast-tier tests are printed and one above the
limit fails the run (CONTRIBUTING.md, "The fast tier is fast").
"""

from __future__ import annotations

import math
import os
import pickle
import select
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

#: Hypothesis keeps the examples that failed (shrunk) in ``.hypothesis/examples`` at the
#: repository root, wherever pytest runs from, and tries them first on the next run.  The
#: folder is git-ignored: its entries are opaque and keyed by the test's source, so they
#: would churn in every diff; a failure worth keeping becomes a row of a committed edge
#: table (``EDGE_VALUES`` of tests/test_fuzz_public_surface.py, or an ``@example``).
#: ``print_blob`` prints how to replay a failure seen in CI, whose database is fresh.
HYPOTHESIS_DATABASE = Path(__file__).resolve().parent.parent / ".hypothesis" / "examples"
#: Under CI (the ``CI`` variable set) the examples are derandomized: a CI run draws the same
#: examples every time, so it passes or fails on the code alone, never on a new random draw
#: (a slow valid call can outlast a per-call limit on a loaded machine); new examples are
#: explored on developers' machines, whose database keeps what failed.
_UNDER_CI = bool(os.environ.get("CI"))
settings.register_profile(
    "lamcap",
    database=None if _UNDER_CI else DirectoryBasedExampleDatabase(HYPOTHESIS_DATABASE),
    print_blob=True,
    derandomize=_UNDER_CI,
)
settings.load_profile("lamcap")

#: Heavy cases of parametrized tests that the fast tier (``-m "not slow"``) leaves out;
#: the other cases of each test stay in it, and so do the cheaper checks named here.
#: A case listed here that its module no longer collects is an error (no stale entries).
_LAW, _CONTRACT = "tests/theory/test_law.py::", "tests/theory/test_array_contract.py::"
SLOW_CASES: dict[str, str] = {
    # 14-40 s each; test_rvs_of_costly_laws_follow_cdf_in_few_draws keeps fewer draws
    _LAW + "test_rvs_follow_cdf[score-gap-10]": "2000 draws",
    _LAW + "test_rvs_follow_cdf[score-top-remaining-10]": "300 draws",
    _LAW + "test_rvs_follow_cdf[finite-32-173]": "300 draws",
    # 15-20 s; their ppf also runs in the few-draws test (inverse-cdf sampling)
    _LAW + "test_ppf_inverts_cdf[score-gap-10]": "15 quantiles",
    _LAW + "test_ppf_inverts_cdf[score-top-remaining-10]": "6 quantiles",
    # 39 s at p = 1000; its dps route stays in test_dps_agrees_with_float64_...
    _CONTRACT + "test_dps_on_arrays_gives_object_arrays_of_mpf[hebbian_critical_load]": "mpf",
    # 24 s; the finite-size density and cdf broadcast in the fast tier
    _CONTRACT
    + "test_every_numeric_argument_broadcasts_like_a_loop[singular_value_quantile_finite]": "",
    # 14 s; the other (kappa, ratio) cases stay
    "tests/theory/test_spectrum.py::test_free_law_matches_the_modelled_random_matrix[0.75-0.5]": "",
}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the cases of :data:`SLOW_CASES` slow before ``-m`` selects (first hook to run)."""
    collected = {item.nodeid for item in items}
    modules = {nodeid.split("::")[0] for nodeid in collected}
    for item in items:
        if item.nodeid in SLOW_CASES:
            item.add_marker(pytest.mark.slow)
    stale = [n for n in SLOW_CASES if n.split("::")[0] in modules and n not in collected]
    whole_modules = not any("::" in argument for argument in config.args)
    if stale and whole_modules and not config.getoption("keyword"):
        msg = f"tests/conftest.py SLOW_CASES names cases that are not collected: {stale}"
        raise pytest.UsageError(msg)


#: Skip reasons a CI run may show, each with why it is allowed.  Any other skip fails a
#: run with ``CI`` set (:class:`SessionChecks`), so that CI cannot go green without a check.
SKIPS_ALLOWED_IN_CI: dict[str, str] = {
    "Firefox (firefox-esr) and a geckodriver on the PATH are not installed": (
        "the second browser of tests/test_docs.py is optional; .ci/run installs Chromium, "
        "whose absence fails a CI run"
    ),
}

#: How many of the slowest fast-tier tests the duration check prints.
SLOWEST_SHOWN = 15


def in_ci() -> bool:
    """Whether this is a CI run: ``CI`` set to anything but empty, ``0``, ``false`` or ``no``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SessionChecks:
    """The two session-wide checks, read from the reports (on the controller under xdist).

    * ``CI`` set: a skip whose reason is not a key of :data:`SKIPS_ALLOWED_IN_CI` fails
      the run (exit status 1), with each such test and its reason printed.
    * ``limit`` set (seconds): the call durations of the tests not marked slow are kept;
      the :data:`SLOWEST_SHOWN` slowest are printed, and any above ``limit`` fails the
      run.  Only the call phase counts: one-time costs belong in fixtures.  Off by
      default, so that a busy shared machine cannot fail an ordinary run on time.
    """

    def __init__(self, *, ci: bool, limit: float | None, allowed: dict[str, str]) -> None:
        self.ci, self.limit, self.allowed = ci, limit, allowed
        self.unlisted_skips: list[tuple[str, str]] = []
        self.durations: list[tuple[float, str]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = _skip_reason(report)
            if self.ci and reason not in self.allowed:
                self.unlisted_skips.append((report.nodeid, reason))
        if (
            self.limit is not None
            and report.when == "call"
            and report.passed
            and "slow" not in report.keywords
        ):
            self.durations.append((report.duration, report.nodeid))

    def too_slow(self) -> list[tuple[float, str]]:
        """The fast-tier tests whose call took longer than the limit, slowest first."""
        if self.limit is None:
            return []
        return sorted((d for d in self.durations if d[0] > self.limit), reverse=True)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        if self.limit is not None and self.durations:
            terminalreporter.section(f"slowest fast-tier tests (limit {self.limit:g} s)")
            for duration, nodeid in sorted(self.durations, reverse=True)[:SLOWEST_SHOWN]:
                flag = "  OVER THE LIMIT" if duration > self.limit else ""
                write(f"{duration:8.2f} s  {nodeid}{flag}")
        if self.unlisted_skips:
            terminalreporter.section("skips not allowed in CI (tests/conftest.py)")
            for nodeid, reason in self.unlisted_skips:
                write(f"{nodeid}: {reason}")

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.unlisted_skips or self.too_slow():
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast-tier-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="print the slowest tests not marked slow and fail the run if one's call took "
        "longer than SECONDS (default: the LAMCAP_FAST_TIER_LIMIT variable, else off)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller sees every report
        return
    limit = config.getoption("--fast-tier-limit")
    if limit is None and os.environ.get("LAMCAP_FAST_TIER_LIMIT"):
        limit = float(os.environ["LAMCAP_FAST_TIER_LIMIT"])
    checks = SessionChecks(ci=in_ci(), limit=limit, allowed=SKIPS_ALLOWED_IN_CI)
    config.pluginmanager.register(checks, "lamcap-session-checks")


@pytest.fixture(scope="session", autouse=True)
def _warm_numba_kernels() -> None:
    """Compile (or load from numba's cache) the kernels once, before the first test runs.

    Otherwise whichever test comes first pays for them (about 90 s from a cold cache,
    a few seconds from a warm one) inside its own duration and timeout.  Session scope
    means once per process: once in a serial run, once per worker under pytest-xdist.
    The calls touch every compiled path a short solve takes (feasibility stage,
    constraint pass, dual ascent, Wolfe's exact stage, the max-margin loop), the
    instance streams, the cone projection and the theory's compiled laws.
    """
    import numpy as np

    import lamcap
    from lamcap.solvers._min_norm_point import load_kernels

    load_kernels()
    feasible = lamcap.make_instance(6, 8, seed=0)
    lamcap.solve(feasible)
    lamcap.solve(feasible, objective="max_margin")
    lamcap.solve(lamcap.make_instance(4, 40, seed=0))  # infeasible: ascent and exact stage
    lamcap.solve(lamcap.make_instance(4, 40, model="original", seed=0))
    lamcap.project_onto_cone(np.zeros((2, 5)))
    lamcap.capacity(0.5)
    lamcap.singular_value_density(np.array([0.5, 1.0]), 0.5)


def _sampled_active_set(p: int, samples: int, seed: int) -> tuple[float, float]:
    """E|A| = E[C_p] by brute force, with its standard error (docs/theory/cone.md).

    Every one of the p - 1 competitors is drawn and the sorted ones y_1 >= y_2 >= ...
    are active on the prefix where k y_k > g + y_1 + ... + y_(k-1), g the target's
    score: independent of lamcap's quadrature and of its top-order-statistics sampler.
    """
    rng = np.random.default_rng(seed)
    sizes = np.empty(samples)
    for start in range(0, samples, 10_000):
        count = min(10_000, samples - start)
        target = rng.standard_normal(count)
        competitors = -np.sort(-rng.standard_normal((count, p - 1)), axis=1)
        before = np.cumsum(competitors, axis=1) - competitors
        rule = np.arange(1, p) * competitors > target[:, None] + before
        sizes[start : start + count] = np.cumprod(rule, axis=1).sum(axis=1)
    return float(sizes.mean()), float(sizes.std(ddof=1) / math.sqrt(samples))


@pytest.fixture
def sampled_active_set() -> Callable[[int, int, int], tuple[float, float]]:
    """The brute-force Monte Carlo of E[C_p]: ``(mean, standard error) = f(p, samples, seed)``."""
    return _sampled_active_set


@pytest.fixture(autouse=True)
def _restore_mpmath_precision() -> Iterator[None]:
    saved = mpmath.mp.dps
    yield
    mpmath.mp.dps = saved


def _child_lines(
    code: str, payload: Any, count: int, *, seconds: float, folder: Path | None = None
) -> Iterator[bytes | None]:
    """Run ``code`` in a new Python process that reads ``payload`` pickled from stdin.

    Yields the child's stdout line by line, ``count`` at most; ``None`` for a line that
    did not come within ``seconds`` (the first one also waits for the imports, 30 s
    more) or a child that died, after which the child is killed and nothing more comes.
    A new process, not a fork of the test process (whose thread pools a fork would
    copy half-held), so that a hang is the call's own.
    """
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    pickle.dump(payload, child.stdin)
    child.stdin.close()
    try:
        for index in range(count):
            wait = seconds + (30.0 if index == 0 else 0.0)
            ready, _, _ = select.select([child.stdout], [], [], wait)
            line = child.stdout.readline() if ready else b""
            if not line:
                yield None
                return
            yield line
    finally:
        child.kill()
        child.wait()
        child.stdout.close()


@pytest.fixture
def child_lines() -> Callable[..., Iterator[bytes | None]]:
    """:func:`_child_lines`: lines from code run in a new process (the fuzz tests)."""
    return _child_lines
