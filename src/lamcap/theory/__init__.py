"""Theory layer: closed forms and finite-size laws of arXiv:2605.10795.

Pure functions of numbers and arrays (numpy float64, or mpmath with ``dps=``) under
one array contract (docs/howto/precision.md): every numeric argument broadcasts and
a scalar gives a ``numpy.float64``.  This module is the layer's public face: every
name users call is imported here from the implementation modules (``_capacity``,
``_cone``, ``_spectrum``, ...), whose contents may change without notice.  The
derivations behind each name are on the docs/theory pages.

This layer never imports :mod:`lamcap.solvers` or :mod:`lamcap.experiments`.

Examples
--------
>>> from lamcap.theory import capacity, critical_p
>>> float(capacity(1.0))
0.5
"""

from lamcap._deprecation import deprecated_attribute
from lamcap.theory._asymptotics import capacity_series, statistical_dimension_series
from lamcap.theory._capacity import CAPACITY, capacity, critical_p
from lamcap.theory._cone import MonteCarloEstimate, active_set_law
from lamcap.theory._cost_models import (
    COST_MODELS,
    CostModel,
    GaussianCosts,
    UnitNormCosts,
    cost_model,
    statistical_dimension,
)
from lamcap.theory._crofton import feasibility_probability
from lamcap.theory._hebbian import (
    HEBBIAN_CAPACITY,
    HebbianScoreLaw,
    NormalLaw,
    NormalMaximumLaw,
    hebbian_all_recalled_error,
    hebbian_critical_load,
    hebbian_error_exponent,
    hebbian_recall,
    hebbian_recall_finite,
    hebbian_score_law,
)
from lamcap.theory._hinge_sums import hinge_sum_cdf
from lamcap.theory._law import Law
from lamcap.theory._margin import gardner_density, max_margin
from lamcap.theory._partial_recall import best_accuracy, information_per_parameter
from lamcap.theory._rank import retained_energy, singular_value_threshold, threshold_angle
from lamcap.theory._replica import critical_density, free_entropy, log_volume, solve_saddle_point
from lamcap.theory._scores import (
    GapLaw,
    ScoreLaw,
    ScoreSample,
    TargetScoreLaw,
    TopRemainingLaw,
    sample_scores,
    score_law,
)
from lamcap.theory._spectrum import (
    SingularValueLaw,
    sample_singular_values,
    singular_value_cdf,
    singular_value_density,
    singular_value_law,
    singular_value_moment,
    singular_value_quantile,
    singular_value_support,
)
from lamcap.theory._spectrum_finite_size import FiniteSizeSingularValueLaw
from lamcap.theory._status import ExtrapolationWarning, LawStatus, law_status
from lamcap.theory._width import gaussian_width_squared, retained_rank

__all__ = [
    "CAPACITY",
    "COST_MODELS",
    "HEBBIAN_CAPACITY",
    "CostModel",
    "ExtrapolationWarning",
    "FiniteSizeSingularValueLaw",
    "GapLaw",
    "GaussianCosts",
    "HebbianScoreLaw",
    "Law",
    "LawStatus",
    "MonteCarloEstimate",
    "NormalLaw",
    "NormalMaximumLaw",
    "ScoreLaw",
    "ScoreSample",
    "SingularValueLaw",
    "TargetScoreLaw",
    "TopRemainingLaw",
    "UnitNormCosts",
    "active_set_law",
    "best_accuracy",
    "capacity",
    "capacity_series",
    "cost_model",
    "critical_density",
    "critical_p",
    "feasibility_probability",
    "free_entropy",
    "gardner_density",
    "gaussian_width_squared",
    "hebbian_all_recalled_error",
    "hebbian_critical_load",
    "hebbian_error_exponent",
    "hebbian_recall",
    "hebbian_recall_finite",
    "hebbian_score_law",
    "hinge_sum_cdf",
    "information_per_parameter",
    "law_status",
    "log_volume",
    "max_margin",
    "retained_energy",
    "retained_rank",
    "sample_scores",
    "sample_singular_values",
    "score_law",
    "singular_value_cdf",
    "singular_value_density",
    "singular_value_law",
    "singular_value_moment",
    "singular_value_quantile",
    "singular_value_support",
    "singular_value_threshold",
    "solve_saddle_point",
    "statistical_dimension",
    "statistical_dimension_series",
    "threshold_angle",
]

#: Names that left the public face in this release (served here with a warning for one
#: release): plumbing (the Gumbel level of the series, the two terms of the free entropy,
#: whose sympy forms are in :mod:`lamcap.symbolic`, the window of a sum's law) and second
#: names of one function (docs/vocabulary.md, "Renamed in this release").
__getattr__ = deprecated_attribute(
    "lamcap.theory",
    {
        "GUMBEL_COEFFICIENTS": "lamcap.theory._asymptotics",
        "gumbel_level": "lamcap.theory._asymptotics",
        "energetic_term": "lamcap.theory._replica",
        "entropic_term": "lamcap.theory._replica",
        "sum_law_window": "lamcap.theory._crofton",
        "density_at_margin": (
            "lamcap.theory._margin",
            "lamcap.theory.critical_density(p, margin) (arguments swapped)",
        ),
        "rank_capacity": ("lamcap.theory._rank", "lamcap.theory.capacity(kappa)"),
        "recall_fraction": (
            "lamcap.theory._partial_recall",
            "lamcap.theory.best_accuracy(d, p, n)",
        ),
        "target_level_cdf": (
            "lamcap.theory._hinge_sums",
            "lamcap.theory.score_law(p, margin=margin).target.cdf(x)",
        ),
    },
)
