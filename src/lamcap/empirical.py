r"""Put a user's own weights or scores in the units of the theory, to overlay the predictions.

Works on plain numpy arrays from any source (a trained model, the lamcap
solvers, another library); this module does not import :mod:`lamcap.solvers`.

* :func:`empirical_spectrum` — the non-zero singular values of ``W`` (or of
  ``Q Rᵀ`` given the factors), scaled like
  :func:`lamcap.theory.singular_value_density` (mean :math:`s^2 = 1`).
* :func:`normalized_scores` — per association the target score, the largest
  remaining competitor, the gap and the number of competitors tied at the
  top, in units of the competitor spread, like
  :func:`lamcap.theory.score_law` (docs/theory/mechanism.md).

Examples
--------
Overlay the theory on a spectrum in two lines:

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> spectrum = empirical_spectrum(rng.standard_normal((300, 300)))
>>> bool(spectrum.ks_distance(family="gaussian") < 0.02)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from lamcap._deprecation import renamed_keywords
from lamcap._validation import (
    check_choice,
    check_finite_array,
    check_integer,
    check_integer_array,
    check_real,
)
from lamcap.theory._scores import ScoreSample
from lamcap.theory._spectrum import NORMALIZATIONS, singular_value_cdf

__all__ = ["EmpiricalSpectrum", "empirical_spectrum", "normalized_scores"]

FloatArray = NDArray[np.float64]

_MAD_TO_SIGMA = 1.0 / 0.6744897501960817  # 1 / Phi^{-1}(3/4)


@dataclass(frozen=True)
class EmpiricalSpectrum:
    """Normalised non-zero singular values of a weight matrix (descending)."""

    singular_values: FloatArray
    kappa: float
    scale: float
    normalization: str

    def moment_ratio(self) -> float:
        r""":math:`E[s^4]/E[s^2]^2` (quarter circle: 2; ``Q Rᵀ`` at initialisation: :math:`1 + 2\kappa`)."""
        squares = self.singular_values**2
        return float(np.mean(squares**2) / np.mean(squares) ** 2)

    @renamed_keywords(law="family")
    def ks_distance(self, family: str = "optimum") -> float:
        """Kolmogorov–Smirnov distance to the theoretical law of ``family`` at this ``kappa``.

        ``family`` as in :func:`lamcap.singular_value_law` (``law=`` is its deprecated
        name).
        """
        if self.normalization != "frobenius":
            msg = "ks_distance needs normalization='frobenius' (raw units have no scale)"
            raise ValueError(msg)
        result = stats.kstest(
            self.singular_values,
            lambda s: singular_value_cdf(s, self.kappa, family=family),
        )
        return float(result.statistic)


def _singular_values(W: Any) -> tuple[FloatArray, int, int]:
    """Singular values, rank and dimension ``d`` of ``W`` or of ``Q Rᵀ``."""
    if isinstance(W, tuple | list):
        if len(W) != 2:
            msg = f"W must be an array or a pair (Q, R), got {len(W)} items"
            raise ValueError(msg)
        left = check_finite_array("Q", W[0])
        right = check_finite_array("R", W[1])
        if left.ndim != 2 or right.ndim != 2 or left.shape[1] != right.shape[1]:
            msg = f"Q and R must be matrices with equal widths, got {left.shape} and {right.shape}"
            raise ValueError(msg)
        width = left.shape[1]
        dimension = min(left.shape[0], right.shape[0])
        # Q R^T = Q1 (T_Q T_R^T) Q2^T with orthonormal Q1, Q2 (thin QR)
        left_factor = np.asarray(np.linalg.qr(left, mode="r"))
        right_factor = np.asarray(np.linalg.qr(right, mode="r"))
        values = np.linalg.svd(left_factor @ right_factor.T, compute_uv=False)
        return values.astype(np.float64), min(width, dimension), dimension
    matrix = check_finite_array("W", W)
    if matrix.ndim != 2:
        msg = f"W must be a matrix or a pair (Q, R), got shape {matrix.shape}"
        raise ValueError(msg)
    dimension = min(matrix.shape)
    values = np.linalg.svd(matrix, compute_uv=False).astype(np.float64)
    return values, dimension, dimension


@renamed_keywords(weights="W")
def empirical_spectrum(
    W: Any,
    *,
    rank: int | None = None,
    normalization: str = "frobenius",
) -> EmpiricalSpectrum:
    r"""Non-zero singular values of a weight matrix in the units of the theory.

    .. math::

        \hat s_i = s_i \Big/ \sqrt{\tfrac1m \textstyle\sum_{j \le m} s_j^2},
        \qquad \kappa = m / d,

    so that the mean of :math:`\hat s^2` is 1, as in
    ``singular_value_density(s, kappa)`` (docs/theory/mechanism.md).

    Parameters
    ----------
    W : ndarray or (Q, R)
        The matrix ``W`` (``d_out x d_in``; ``d = min`` of the two) or the
        factors of ``W = Q Rᵀ`` (``m`` = their width).  ``weights=`` is the
        deprecated name of this argument.
    rank : int, optional
        Keep the ``rank`` largest singular values (default: all ``d`` for a
        matrix, ``m`` for factors).
    normalization : {"frobenius", "raw"}
        ``"raw"`` returns the singular values unscaled.

    Returns
    -------
    EmpiricalSpectrum
        ``singular_values`` (descending), ``kappa``, ``scale`` applied,
        ``moment_ratio()`` and ``ks_distance(family)``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> q, r = rng.standard_normal((200, 100)), rng.standard_normal((200, 100))
    >>> spectrum = empirical_spectrum((q, r))
    >>> spectrum.kappa, round(float(np.mean(spectrum.singular_values**2)), 12)
    (0.5, 1.0)
    >>> bool(spectrum.ks_distance(family="product") < 0.03)
    True
    """
    normalization = check_choice("normalization", normalization, NORMALIZATIONS)
    values, default_rank, dimension = _singular_values(W)
    keep = (
        default_rank if rank is None else check_integer("rank", rank, minimum=1, maximum=dimension)
    )
    kept = np.sort(values)[::-1][:keep]
    scale = 1.0
    if normalization == "frobenius":
        mean_square = float(np.mean(kept**2))
        if mean_square == 0.0:
            msg = "W must not be zero (no scale to normalise by)"
            raise ValueError(msg)
        scale = 1.0 / math.sqrt(mean_square)
    return EmpiricalSpectrum(kept * scale, keep / dimension, scale, normalization)


def normalized_score_rows(
    score_matrix: ArrayLike, targets: ArrayLike, *, row_spread: ArrayLike | None = None
) -> tuple[FloatArray, FloatArray, float]:
    r"""Target and competitor scores in competitor-spread units.

    Without ``row_spread`` (a bare score matrix): each row is centred at the
    median of its competitor scores and all rows are divided by the pooled
    competitor spread :math:`\hat\sigma` (median absolute deviation / 0.6745), the
    estimator of :func:`normalized_scores`.  Pooling assumes every row has the
    same spread; a memory's rows do not (:math:`\|W e_\mu\|` varies), and then the
    pooled units are off for each row (for the Hebbian memory at d = 16, p = 58
    the mean target comes out 13% high).  With ``row_spread`` (shape ``(n,)``, the
    known spread of each row's competitor scores, e.g. :math:`\|W e_\mu\|/\sqrt d`
    for outputs with covariance :math:`I/d`, Gaussian or unit-norm) each row is
    divided by its own spread and not centred (such competitors have mean 0):
    the exact units of :mod:`lamcap.theory._scores` and
    :mod:`lamcap.theory._hebbian`, which the mechanism samples
    (:mod:`lamcap.experiments._mechanism`) use.

    Returns
    -------
    target : ndarray, shape (n,)
    competitors : ndarray, shape (n, p - 1)
        The row's competitors in output order, its target left out.
    spread : float
        :math:`\hat\sigma` in raw score units.

    Examples
    --------
    >>> target, competitors, spread = normalized_score_rows([[3.0, 0.0, 1.0, -1.0]], 0)
    >>> round(spread, 4)  # median |deviation| 1, divided by 0.6745
    1.4826
    >>> (target * spread).round(12).tolist(), (competitors * spread).round(12).tolist()
    ([3.0], [[0.0, 1.0, -1.0]])
    """
    scores = check_finite_array("score_matrix", score_matrix)
    if scores.ndim != 2 or scores.shape[1] < 2:
        msg = f"score_matrix must have shape (n, p) with p >= 2, got {scores.shape}"
        raise ValueError(msg)
    rows, p = scores.shape
    checked = check_integer_array("targets", targets, minimum=0, maximum=p - 1)
    try:
        target_index = np.broadcast_to(checked, (rows,))
    except ValueError:
        msg = f"targets of shape {checked.shape} does not broadcast to ({rows},)"
        raise ValueError(msg) from None
    mask = np.ones_like(scores, dtype=bool)
    mask[np.arange(rows), target_index] = False
    competitors = scores[mask].reshape(rows, p - 1)
    target = scores[np.arange(rows), target_index]
    if row_spread is not None:
        spreads = check_finite_array("row_spread", row_spread)
        if spreads.shape != (rows,) or not np.all(spreads > 0):
            msg = f"row_spread must be {rows} positive numbers (one per row), got {spreads!r}"
            raise ValueError(msg)
        return target / spreads, competitors / spreads[:, None], float(np.median(spreads))
    centre = np.median(competitors, axis=1)
    deviations = competitors - centre[:, None]
    spread = float(np.median(np.abs(deviations))) * _MAD_TO_SIGMA
    if spread == 0.0:
        msg = "score_matrix competitors have no spread to normalise by"
        raise ValueError(msg)
    competitors_n = deviations / spread
    target_n = (target - centre) / spread
    return target_n, competitors_n, spread


@renamed_keywords(tolerance="tie_width")
def normalized_scores(
    score_matrix: ArrayLike,
    targets: ArrayLike,
    *,
    margin: float | None = None,
    tie_width: float = 1e-6,
) -> ScoreSample:
    r"""Summaries of a score matrix in the units of :func:`lamcap.theory.score_law`.

    Each row is centred at the median of its competitor scores and all rows
    are divided by the pooled competitor spread :math:`\hat\sigma` (median
    absolute deviation / 0.6745; :func:`normalized_score_rows`).  Both statistics
    are unchanged by the projection onto :math:`K_m`, which only moves the top
    competitors, so when every row has the same competitor spread the result is
    distributed as :math:`\Pi_{K_m}(g)` for an optimal memory
    (docs/theory/mechanism.md) up to the estimation error of :math:`\hat\sigma` (a
    downward bias of order :math:`1/p` from centring each row at its own
    median: about 1% at ``p = 100``, 6% at ``p = 30``).  A memory whose rows have
    different spreads (:math:`\|W e_\mu\|` varies) is not in one unit after
    pooling: divide each row by its own known spread instead
    (``normalized_score_rows(..., row_spread=)``; the Hebbian memory's mean target at
    d = 16, p = 58 is 13% high with pooling).

    Parameters
    ----------
    score_matrix : array_like, shape (n, p)
        Score of every output for each of the ``n`` associations.
    targets : int or array_like of int
        Index of the target output of each row.
    margin : float, optional
        The margin :math:`m` in normalised units; default: estimated as the
        median over rows of target minus largest competitor (exact at the
        optimum, where a fraction :math:`1 - 1/p` of rows has :math:`|A| \ge 1`).
    tie_width : float
        Competitors within ``tie_width`` (normalised units) of
        ``target - margin`` count as tied (active).  ``tolerance=`` is the
        deprecated name of this keyword.

    Returns
    -------
    lamcap.theory.ScoreSample
        ``target`` (:math:`\ell^*`), ``competitor`` (largest non-tied one,
        ``-inf`` if none), ``gap`` (target minus it), ``active`` (:math:`|A|`,
        the tied competitors), the margin used and the spread :math:`\hat\sigma`
        (raw units); the type of :func:`lamcap.theory.sample_scores`.

    Examples
    --------
    >>> from lamcap.geometry import project_onto_cone
    >>> from lamcap.theory._scores import score_law
    >>> g = np.random.default_rng(0).standard_normal((4000, 50))
    >>> optimal = 3.0 * project_onto_cone(g)[0] + 1.0  # any scale and offset
    >>> summary = normalized_scores(optimal, targets=0)
    >>> bool(abs(summary.target.mean() - score_law(50).target.mean()) < 0.05)
    True
    """
    target_n, competitors_n, spread = normalized_score_rows(score_matrix, targets)
    tie = check_real("tie_width", tie_width, minimum=0.0)
    if margin is None:
        margin_value = max(float(np.median(target_n - competitors_n.max(axis=1))), 0.0)
    else:
        margin_value = check_real("margin", margin, minimum=0.0)
    tied = competitors_n >= (target_n - margin_value - tie)[:, None]
    remaining = np.where(tied, -np.inf, competitors_n).max(axis=1)
    return ScoreSample(
        target_n,
        remaining,
        target_n - remaining,
        tied.sum(axis=1).astype(np.int64),
        margin_value,
        spread,
    )
