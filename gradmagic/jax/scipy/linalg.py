"""``jax.scipy.linalg``: SciPy's names and conventions (``cholesky`` upper by default,
``lower=`` flags, ``cho_factor``/``cho_solve``, ``solve_triangular`` with ``trans`` and
``unit_diagonal``) on the engine's factorizations and triangular solves."""

from __future__ import annotations

import numpy as np

from ...core import contract
from ...core import linalg as core
from ...core.determinant import det as core_det
from ..array import asarray, wrap
from ..numpy import linalg as numpy_linalg


def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of ``a``, from the triangle it is (upper, ``U^T U = a``, unless
    ``lower``); unlike ``jnp.linalg.cholesky`` it does not symmetrize ``a``, and its gradient
    is JAX's: the factorization's formula as if every entry were free."""
    return wrap(core.cholesky(asarray(a), upper=not lower, folded=False))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """``(factor, lower)``, for ``cho_solve``."""
    return cholesky(a, lower), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """``a^-1 b`` from ``cho_factor``'s ``(factor, lower)``: two triangular solves."""
    c, lower = c_and_lower
    L = asarray(c) if lower else core.T(asarray(c))
    return solve_triangular(L, solve_triangular(L, b, lower=True), trans=1, lower=True)


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     debug=None, check_finite=True):
    """``x`` with ``op(a) x = b``, ``op`` the identity, the transpose (``trans`` 1 or
    ``"T"``) or the conjugate transpose (2 or ``"C"``: the transpose, for real ``a``),
    reading only ``a``'s ``lower`` (or upper) triangle, its diagonal ones where
    ``unit_diagonal``."""
    a, b = asarray(a), asarray(b)
    if trans not in (0, 1, 2, "N", "T", "C"):
        raise ValueError(f"Invalid 'trans' value {trans!r}")
    if unit_diagonal:  # the strict triangle, ones on the diagonal
        a = (contract.tril(a, -1) if lower else contract.triu(a, 1)) + np.eye(a.shape[-1], dtype=a.dtype)
    else:
        a = contract.tril(a) if lower else contract.triu(a)
    if trans not in (0, "N"):
        a = core.T(a)
    return wrap(core.solve(a, b))  # NumPy's: a vector b too


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
          assume_a="gen"):
    return wrap(core.solve(asarray(a), asarray(b)))


def inv(a, overwrite_a=False, check_finite=True):
    return wrap(core.inv(asarray(a)))


def det(a, overwrite_a=False, check_finite=True):
    return wrap(core_det(asarray(a)))


def eigh(a, b=None, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False,
         type=1, check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """``(w, v)`` of ``(a + a^T) / 2``, as JAX's (which symmetrizes, so ``lower`` does not
    matter)."""
    if b is not None:
        raise NotImplementedError("jax.scipy.linalg.eigh(b=...) (the generalized problem) is "
                                  "not supported in gradmagic.jax")
    w, v = numpy_linalg.eigh(a)
    return w if eigvals_only else (w, v)


__all__ = ["cholesky", "cho_factor", "cho_solve", "solve_triangular", "solve", "inv", "det", "eigh"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.scipy.linalg.{name} does not exist: it maps {', '.join(__all__)}")
