"""Symbolic layer (sympy): the formulas behind :mod:`lamcap.theory`.

* large-p series of E[C_p] and of alpha_c(p) (``capacity_series_terms``,
  ``statistical_dimension_series_terms``, ``gumbel_coefficients``),
* the replica-symmetric free entropy, its saddle point and q -> 1 limit
  (``entropic_term``, ``free_entropy_near_one``, ``saddle_point_density``),
* the rank-kappa entropic term and its q -> 1 limit F(kappa) (``entropic_term_rank``,
  ``capacity_of_angle``, ...),
* the Hebbian recall thresholds 1/8 and 1/2 as limits (``thresholds``).

The implementation modules (``_series``, ``_free_entropy``, ``_rank``, ``_hebbian``,
and ``_codegen``, which writes the numeric code committed in the theory layer) are
private.  Importing :mod:`lamcap` never imports this package (it is the only place
sympy is used).
"""

from lamcap.symbolic._free_entropy import (
    DENSITY,
    DIMENSION,
    STABILITY,
    D,
    Q,
    critical_density_from_singular_part,
    entropic_term,
    free_entropy_near_one,
    gardner_energetic_integrand,
    gardner_second_moment,
    saddle_point_density,
)
from lamcap.symbolic._hebbian import ALPHA, error_exponent, thresholds
from lamcap.symbolic._rank import (
    RANK_RATIO,
    THETA,
    capacity_of_angle,
    critical_density_rank,
    entropic_term_rank,
    kappa_of_angle,
    small_rank_capacity,
    width_of_angle,
)
from lamcap.symbolic._series import (
    LOG_2L,
    L,
    capacity_series_terms,
    gumbel_coefficients,
    level_equation,
    statistical_dimension_series_terms,
)

__all__ = [
    "ALPHA",
    "DENSITY",
    "DIMENSION",
    "LOG_2L",
    "RANK_RATIO",
    "STABILITY",
    "THETA",
    "D",
    "L",
    "Q",
    "capacity_of_angle",
    "capacity_series_terms",
    "critical_density_from_singular_part",
    "critical_density_rank",
    "entropic_term",
    "entropic_term_rank",
    "error_exponent",
    "free_entropy_near_one",
    "gardner_energetic_integrand",
    "gardner_second_moment",
    "gumbel_coefficients",
    "kappa_of_angle",
    "level_equation",
    "saddle_point_density",
    "small_rank_capacity",
    "statistical_dimension_series_terms",
    "thresholds",
    "width_of_angle",
]
