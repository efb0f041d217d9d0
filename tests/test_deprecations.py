"""Every deprecated name still works for one release, warns and names its replacement.

The renames of issue 24 (docs/changelog.md, docs/vocabulary.md "Renamed in this
release"): an old keyword passes its value on to the new one, an old function calls
its replacement, and plumbing that left a public face is served from its module.
Each use raises one ``DeprecationWarning`` whose message names the replacement.
"""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from lamcap._deprecation import deprecated_attribute, renamed_keywords

#: (public module, name, words the warning must contain): plumbing out of ``__all__``.
MOVED = [
    ("lamcap.theory", "GUMBEL_COEFFICIENTS", "lamcap.theory._asymptotics.GUMBEL_COEFFICIENTS"),
    ("lamcap.theory", "gumbel_level", "lamcap.theory._asymptotics.gumbel_level"),
    ("lamcap.theory", "energetic_term", "lamcap.theory._replica.energetic_term"),
    ("lamcap.theory", "entropic_term", "lamcap.theory._replica.entropic_term"),
    ("lamcap.theory", "sum_law_window", "lamcap.theory._crofton.sum_law_window"),
    ("lamcap.solvers", "build_result", "lamcap.solvers._result.build_result"),
    ("lamcap.solvers", "available_memory", "lamcap._sizes.available_memory"),
    ("lamcap.solvers", "exact_stage_bytes", "lamcap.solvers._memory.exact_stage_bytes"),
    ("lamcap.solvers", "min_margin", "check_margins(instance, W).min_margin"),
    ("lamcap.experiments", "synthetic_trial", "lamcap.experiments._trials.synthetic_trial"),
    ("lamcap.theory", "density_at_margin", "lamcap.theory.critical_density(p, margin)"),
    ("lamcap.theory", "rank_capacity", "lamcap.theory.capacity(kappa)"),
    ("lamcap.theory", "target_level_cdf", "score_law(p, margin=margin).target.cdf(x)"),
]


@pytest.mark.parametrize(("module", "name", "replacement"), MOVED)
def test_plumbing_left_the_public_face_with_a_warning(
    module: str, name: str, replacement: str
) -> None:
    face = importlib.import_module(module)
    assert name not in face.__all__
    with pytest.deprecated_call(match=replacement.replace("(", r"\(").replace(")", r"\)")):
        value = getattr(face, name)
    assert value is not None


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    import lamcap.theory

    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        lamcap.theory.nothing  # noqa: B018 - the attribute access is the test
    hook = deprecated_attribute("m", {})
    with pytest.raises(AttributeError, match="module 'm' has no attribute 'x'"):
        hook("x")


def test_a_renamed_keyword_warns_once_and_passes_the_value_on() -> None:
    @renamed_keywords(old="new")
    def function(*, new: int = 0) -> int:
        return new

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert function(old=3) == 3
    assert len(caught) == 1
    assert caught[0].category is DeprecationWarning
    assert "function(new=...)" in str(caught[0].message)
    with pytest.raises(TypeError, match="got both 'old'"):
        function(old=1, new=2)
    assert function(new=5) == 5  # no warning: filterwarnings = error


def test_check_margins_weights_is_the_deprecated_name_of_w() -> None:
    from lamcap.problems import hebbian_weights, make_instance
    from lamcap.solvers import check_margins

    instance = make_instance(8, 3, seed=0)
    W = hebbian_weights(instance)
    with pytest.deprecated_call(match=r"check_margins\(W=\.\.\.\)"):
        old = check_margins(instance, weights=W)
    assert old == check_margins(instance, W=W)
    assert np.isfinite(old.min_margin)


@pytest.mark.parametrize(
    ("name", "replacement"),
    [("density_at_margin", "critical_density"), ("rank_capacity", "capacity")],
)
def test_second_top_level_names_warn_and_are_not_exported(name: str, replacement: str) -> None:
    import lamcap

    assert name not in lamcap.__all__
    assert replacement in lamcap.__all__
    with pytest.deprecated_call(match=f"lamcap.{replacement}"):
        getattr(lamcap, name)
    with pytest.deprecated_call():  # every access warns: the name is never cached
        getattr(lamcap, name)


def test_second_names_give_the_same_numbers() -> None:
    import lamcap
    import lamcap.theory

    with pytest.deprecated_call():
        density_at_margin = lamcap.density_at_margin
    with pytest.deprecated_call():
        rank_capacity = lamcap.rank_capacity
    with pytest.deprecated_call():
        target_level_cdf = lamcap.theory.target_level_cdf
    assert density_at_margin(0.5, 3) == lamcap.critical_density(3, 0.5)
    assert rank_capacity(0.5) == lamcap.capacity(0.5)
    assert target_level_cdf(0.3, 6, 0.2) == pytest.approx(
        lamcap.score_law(6, margin=0.2).target.cdf(0.3), rel=1e-12
    )
