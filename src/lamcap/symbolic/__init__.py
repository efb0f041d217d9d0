"""Symbolic layer (sympy): the formulas behind :mod:`lamcap.theory`.

* :mod:`lamcap.symbolic.series` — large-p series of E[C_p] and of alpha_c(p),
* :mod:`lamcap.symbolic.free_entropy` — replica-symmetric free entropy, saddle point, q -> 1 limit,
* :mod:`lamcap.symbolic.rank` — rank-kappa entropic term and its q -> 1 limit F(kappa),
* :mod:`lamcap.symbolic.hebbian` — Hebbian recall thresholds 1/8 and 1/2 as limits,
* :mod:`lamcap.symbolic.codegen` — generates the numeric code committed in the theory layer.

Importing :mod:`lamcap` never imports this package (it is the only place sympy is used).
"""
