"""The session checks of tests/conftest.py: skips in CI and the fast tier's time limit.

Each check runs on a small inner session (pytester) with its own instance of
:class:`SessionChecks`, so what it prints and the exit status it sets are seen from
outside.  No timing is asserted: a limit of 0 s makes every passed fast test too slow.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

pytest_plugins = ("pytester",)

INNER = """
import pytest

def test_fast():
    pass

@pytest.mark.slow
def test_slow():
    pass

def test_allowed_skip():
    pytest.skip("an allowed reason")

def test_other_skip():
    pytest.skip("something is missing")

@pytest.mark.xfail(reason="a known defect", strict=True)
def test_known_defect():
    assert False
"""


def _conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "lamcap_tests_conftest_copy", Path(__file__).with_name("conftest.py")
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(pytester: pytest.Pytester, *, ci: bool, limit: float | None) -> pytest.RunResult:
    conftest = _conftest()
    checks = conftest.SessionChecks(
        ci=ci, limit=limit, allowed={"an allowed reason": "a test of the check"}
    )
    pytester.makeini("[pytest]\nmarkers =\n    slow: heavy\n")
    pytester.makepyfile(INNER)
    return pytester.runpytest_inprocess(
        "-p", "no:cacheprovider", "-p", "no:xdist", plugins=[checks]
    )


def test_outside_ci_skips_pass_and_no_time_is_checked(pytester: pytest.Pytester) -> None:
    result = _run(pytester, ci=False, limit=None)
    result.assert_outcomes(passed=2, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.OK
    assert "skips not allowed" not in result.stdout.str()
    assert "slowest fast-tier" not in result.stdout.str()


def test_in_ci_an_unlisted_skip_fails_the_run(pytester: pytest.Pytester) -> None:
    result = _run(pytester, ci=True, limit=None)
    result.assert_outcomes(passed=2, skipped=2, xfailed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*skips not allowed in CI*", "*test_other_skip: something is missing"]
    )
    assert "test_allowed_skip:" not in result.stdout.str()  # listed, so allowed
    assert "test_known_defect:" not in result.stdout.str()  # an xfail is not a skip


def test_in_ci_listed_skips_pass(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    slow: heavy\n")
    pytester.makepyfile("import pytest\n\ndef test_a():\n    pytest.skip('an allowed reason')\n")
    checks = _conftest().SessionChecks(ci=True, limit=None, allowed={"an allowed reason": ""})
    result = pytester.runpytest_inprocess("-p", "no:xdist", plugins=[checks])
    result.assert_outcomes(skipped=1)
    assert result.ret == pytest.ExitCode.OK


def test_a_fast_test_over_the_limit_fails_the_run_and_slow_ones_are_left_out(
    pytester: pytest.Pytester,
) -> None:
    result = _run(pytester, ci=False, limit=0.0)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*slowest fast-tier tests (limit 0 s)*", "* s  *::test_fast  OVER THE LIMIT"]
    )
    assert "::test_slow" not in result.stdout.str()


def test_a_generous_limit_prints_the_slowest_and_passes(pytester: pytest.Pytester) -> None:
    result = _run(pytester, ci=False, limit=1e9)
    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines(["*slowest fast-tier tests (limit 1e+09 s)*", "* s  *::test_fast"])
    assert "OVER THE LIMIT" not in result.stdout.str()


def test_every_allowed_skip_is_a_reason_a_test_gives() -> None:
    # the Firefox skip of tests/test_docs.py, word for word: a stale entry allows nothing
    allowed = _conftest().SKIPS_ALLOWED_IN_CI
    assert list(allowed) == [
        "Firefox (firefox-esr) and a geckodriver on the PATH are not installed"
    ]
    here = Path(__file__)
    sources = "".join(p.read_text() for p in here.parent.rglob("test_*.py") if p != here)
    assert all(f'"{reason}"' in sources for reason in allowed)
