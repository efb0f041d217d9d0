"""Theory layer: closed forms and finite-size laws of arXiv:2605.10795.

Pure functions of numbers and arrays (numpy float64, or mpmath with ``dps=``).
This layer never imports :mod:`lamcap.solvers` or :mod:`lamcap.experiments`.
"""
