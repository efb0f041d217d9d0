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
    ("lamcap.theory", "recall_fraction", "lamcap.theory.best_accuracy(d, p, n)"),
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
    [
        ("density_at_margin", "critical_density"),
        ("rank_capacity", "capacity"),
        ("recall_fraction", "best_accuracy"),
    ],
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
    with pytest.deprecated_call():
        recall_fraction = lamcap.recall_fraction
    assert recall_fraction(64, 1129) == lamcap.best_accuracy(64, 1129)
    assert density_at_margin(0.5, 3) == lamcap.critical_density(3, 0.5)
    assert rank_capacity(0.5) == lamcap.capacity(0.5)
    assert target_level_cdf(0.3, 6, 0.2) == pytest.approx(
        lamcap.score_law(6, margin=0.2).target.cdf(0.3), rel=1e-12
    )


@pytest.mark.parametrize(
    "name",
    [
        "singular_value_law",
        "singular_value_density",
        "singular_value_cdf",
        "singular_value_quantile",
        "singular_value_support",
        "singular_value_moment",
        "sample_singular_values",
    ],
)
def test_law_is_the_deprecated_name_of_family(name: str) -> None:
    import lamcap

    function = getattr(lamcap, name)
    first = {
        "singular_value_law": (),
        "singular_value_density": (1.0,),
        "singular_value_cdf": (1.0,),
        "singular_value_quantile": (0.3,),
        "singular_value_support": (),
        "singular_value_moment": (2,),
        "sample_singular_values": (5,),
    }[name]
    options = {"seed": 1} if name == "sample_singular_values" else {}
    with pytest.deprecated_call(match=rf"{name}\(family=\.\.\.\)"):
        old = function(*first, 1.0, law="gaussian", **options)
    new = function(*first, 1.0, family="gaussian", **options)
    if name == "singular_value_law":
        assert old.family == new.family == "gaussian"
    else:
        np.testing.assert_array_equal(old, new)


def test_empirical_spectrum_keywords_are_renamed() -> None:
    from lamcap import empirical_spectrum

    W = np.random.default_rng(0).standard_normal((40, 40))
    with pytest.deprecated_call(match=r"empirical_spectrum\(W=\.\.\.\)"):
        old = empirical_spectrum(weights=W)
    spectrum = empirical_spectrum(W=W)
    np.testing.assert_array_equal(old.singular_values, spectrum.singular_values)
    with pytest.deprecated_call(match=r"ks_distance\(family=\.\.\.\)"):
        distance = spectrum.ks_distance(law="gaussian")
    assert distance == spectrum.ks_distance(family="gaussian")


def test_normalized_scores_tolerance_is_the_deprecated_name_of_tie_width() -> None:
    from lamcap import normalized_scores

    scores = np.random.default_rng(3).standard_normal((200, 12))
    with pytest.deprecated_call(match=r"normalized_scores\(tie_width=\.\.\.\)"):
        old = normalized_scores(scores, 0, tolerance=0.1)
    new = normalized_scores(scores, 0, tie_width=0.1)
    np.testing.assert_array_equal(old.active, new.active)


def test_law_ppf_q_is_the_deprecated_name_of_probability() -> None:
    from lamcap import score_law

    law = score_law(5).target
    with pytest.deprecated_call(match=r"ppf\(probability=\.\.\.\)"):
        old = law.ppf(q=0.3)
    assert old == law.ppf(probability=0.3)


def test_figure_samples_is_the_deprecated_name_of_solutions(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from lamcap.experiments.figures import save_samples

    with pytest.deprecated_call(match=r"save_samples\(solutions=\.\.\.\)"):
        save_samples(samples=[], path=tmp_path / "old.npz")
    save_samples(solutions=[], path=tmp_path / "new.npz")
    assert (tmp_path / "old.npz").is_file()
    assert (tmp_path / "new.npz").is_file()
