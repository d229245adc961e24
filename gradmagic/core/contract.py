"""Contractions and diagonals of NumPy (tensordot, einsum, inner, kron, trace, diag,
tril ...), built on the op catalogue's primitives. ``FUNCTIONS`` maps each NumPy function
onto its form here; ``core/dispatch.py`` routes NumPy's calls on Tensors through it.
"""

FUNCTIONS = {}  # numpy function -> its differentiable form
