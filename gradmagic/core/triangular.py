"""Triangular NumPy matrices by halves. NumPy has no triangular solve or inverse: its LU
of any matrix costs O(n^3). These split a triangular matrix into halves (block
substitution), as LAPACK's triangular routines do: ``solve`` uses them for a Cholesky
factor (or its transpose, in its own rule), and ``cholesky``'s rule for the inverse of its
factor, on NumPy arrays (``linalg.lower_inv`` is the same inverse on Tensors, which are
never written into).
"""

import functools

import numpy as np

LEAF = 64  # the order from which a triangular solve goes by halves
NARROW = 8  # right-hand sides at most: past it, NumPy's LU solves the many columns faster


def triangle_of(a):
    """Whether a NumPy matrix is lower or upper triangular ("lower", "upper"; None: neither):
    a corner first, so a full matrix costs one look, then the other triangle."""
    if a[0, -1] == 0 and not _any_above(a):
        return "lower"
    if a[-1, 0] == 0 and not _any_above(a.T):
        return "upper"
    return None


def _any_above(a):  # read in place through a mask kept for n up to 1024 (1 MB at most)
    n = a.shape[0]
    return np.any(a, where=_above(n)) if n <= 1024 else np.triu(a, 1).any()


@functools.lru_cache(maxsize=8)
def _above(n):
    return np.triu(np.ones((n, n), dtype=bool), 1)


def solve_triangular(a, b, lower):
    """``np.linalg.solve(a, b)`` for a triangular ``a``, by halves: each half's solve, and the
    other half's right-hand side updated with one product (block substitution). NumPy has no
    triangular solve; its LU costs O(n^3) where this costs O(n^2) for a few right-hand sides
    (``NARROW``). A singular ``a`` has a singular diagonal block: NumPy's own LinAlgError."""
    n = a.shape[0]
    if n <= LEAF:
        return np.linalg.solve(a, b)
    k = n // 2
    if lower:
        top = solve_triangular(a[:k, :k], b[:k], True)
        bottom = solve_triangular(a[k:, k:], b[k:] - a[k:, :k] @ top, True)
    else:
        bottom = solve_triangular(a[k:, k:], b[k:], False)
        top = solve_triangular(a[:k, :k], b[:k] - a[:k, k:] @ bottom, False)
    return np.concatenate([top, bottom])


def lower_inverse(L, leaf=32):
    """The inverse of a lower-triangular NumPy matrix (or a stack of them; the strict upper
    triangle read as zeros), by halves: [[A, 0], [B, C]]^-1 = [[A^-1, 0], [-C^-1 B A^-1,
    C^-1]], each block written into one array."""
    n = L.shape[-1]
    if n <= leaf:
        return np.linalg.inv(L)
    k = n // 2
    a, c = lower_inverse(L[..., :k, :k], leaf), lower_inverse(L[..., k:, k:], leaf)
    out = np.zeros_like(L)
    out[..., :k, :k], out[..., k:, k:] = a, c
    out[..., k:, :k] = -(c @ L[..., k:, :k]) @ a
    return out
