"""Theory layer: closed forms and finite-size laws of arXiv:2605.10795.

Pure functions of numbers and arrays (numpy float64, or mpmath with ``dps=``) under
one array contract (docs/howto/precision.md): every numeric argument broadcasts and
a scalar gives a ``numpy.float64``.
This layer never imports :mod:`lamcap.solvers` or :mod:`lamcap.experiments`.
"""
