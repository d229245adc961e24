"""``jax.numpy.linalg``: NumPy's linear algebra on Arrays, with JAX's conventions where
they differ from NumPy's.

JAX's ``cholesky``, ``eigh`` and ``eigvalsh`` symmetrize their input first, ``(a + a^T)
/ 2`` (``symmetrize_input=True``), where NumPy's read one triangle. So on a matrix that is
not symmetric they give other values, and on any matrix their gradient is symmetric: an
off-diagonal entry's is spread half and half over both triangles, where NumPy's
convention puts it all in the triangle read. Here they are the engine's factorizations of
the symmetrized input, so the gradient of the symmetrization gives JAX's.

>>> import gradmagic.jax as jax, gradmagic.jax.numpy as jnp
>>> jax.grad(lambda a: jnp.linalg.cholesky(a)[1, 0])(jnp.array([[1., 2.], [2., 5.]]))
Array([[-1. ,  0.5],
       [ 0.5,  0. ]], dtype=float32)
"""

from __future__ import annotations

import functools

import numpy as np

from ...core import linalg as core
from ...core import ops
from ...core.context import followed
from ...core.tensor import Tensor
from ..array import absolute, asarray, wrap


def _symmetrized(a, symmetrize_input):
    a = asarray(a)
    return (a + ops.swapaxes(a, -1, -2)) / 2 if symmetrize_input else a


def cholesky(a, *, upper=False, symmetrize_input=True):
    """The lower Cholesky factor of ``(a + a^T) / 2`` (its transpose where ``upper``)."""
    return wrap(core.cholesky(_symmetrized(a, symmetrize_input), upper=upper))


def eigh(a, UPLO=None, symmetrize_input=True):  # noqa: N803  (JAX's name)
    """``(eigenvalues, eigenvectors)`` of ``(a + a^T) / 2``, the eigenvalues ascending."""
    return wrap(core.eigh(_symmetrized(a, symmetrize_input), "L" if UPLO is None else UPLO))


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):  # noqa: N803  (JAX's name)
    """The eigenvalues of ``(a + a^T) / 2``, ascending."""
    return wrap(core.eigvalsh(_symmetrized(a, symmetrize_input), UPLO))


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (NumPy's names)
    """NumPy's norm; the vector 1-, inf- and -inf-norms and the matrix 1-, -1-, inf- and
    -inf-norms are made of JAX's ``abs``, whose derivative at 0 is 1 (NumPy's rules,
    TensorFlow's, give 0 there)."""
    x = asarray(x)
    if ord in (1, np.inf, -np.inf) and (isinstance(axis, int) or axis is None and x.ndim == 1):
        reduce = {1: ops.sum, np.inf: ops.max, -np.inf: ops.min}[ord]
        return wrap(reduce(absolute(x), axis=axis, keepdims=keepdims))
    pair = _matrix_axes(x.ndim, axis)
    if ord in (1, -1, np.inf, -np.inf) and pair is not None:
        row, col = pair
        summed, reduced = (row, col) if ord in (1, -1) else (col, row)
        reduce = ops.max if ord > 0 else ops.min
        r = reduce(ops.sum(absolute(x), axis=summed, keepdims=True), axis=reduced, keepdims=True)
        return wrap(r if keepdims else ops.squeeze(r, (row, col)))
    return wrap(np.linalg.norm(x, ord, axis, keepdims))


def _plain(a):
    """``a``'s values as a NumPy array where nothing differentiates it (None where a tape or
    an accumulator follows it): NumPy's own factorizations then give JAX's values, including
    those (the extra singular vectors) that have no gradient."""
    if isinstance(a, Tensor):
        return None if followed(a) else np.asarray(a.value)
    return np.asarray(a)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """``jnp.linalg.svd``: JAX's default ``full_matrices=True`` runs on a matrix that is not
    square when nothing differentiates it (its extra singular vectors have no gradient)."""
    if subset_by_index is not None:
        raise NotImplementedError("jnp.linalg.svd(subset_by_index=...) is not supported in "
                                  "gradmagic.jax")
    plain = _plain(a)
    if plain is not None:
        return wrap(np.linalg.svd(asarray(plain).value, full_matrices, compute_uv, hermitian))
    return wrap(core.svd(asarray(a), full_matrices, compute_uv, hermitian))


def qr(a, mode="reduced"):
    """``jnp.linalg.qr``; ``mode="complete"`` runs on a matrix that is not square when nothing
    differentiates it."""
    plain = _plain(a)
    if plain is not None and mode == "complete":
        return wrap(np.linalg.qr(asarray(plain).value, mode))
    return wrap(core.qr(asarray(a), mode))


def slogdet(a, *, method=None):
    """``(sign, log|det a|)``; ``method`` (``"lu"``, the default, or ``"qr"``) picks JAX's
    algorithm, which gives the same values here."""
    if method not in (None, "lu", "qr"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    return wrap(np.linalg.slogdet(asarray(a)))


def pinv(a, rtol=None, hermitian=False, **kwargs):
    """``jnp.linalg.pinv``; with ``hermitian=True`` that of ``(a + a^T) / 2``, as JAX's (its
    ``eigh`` symmetrizes), so its gradient is symmetric."""
    plain = _plain(a)
    if plain is not None:
        return wrap(np.linalg.pinv(asarray(plain).value, rtol=rtol, hermitian=hermitian, **kwargs))
    return wrap(np.linalg.pinv(_symmetrized(a, hermitian), rtol=rtol, **kwargs))


def _matrix_axes(ndim, axis):
    """The two axes of a matrix norm, made non-negative, or None where ``axis`` does not name
    two distinct axes (a vector norm, or NumPy's error to give)."""
    if axis is None:
        axis = (0, 1) if ndim == 2 else None
    if not isinstance(axis, tuple) or len(axis) != 2 or not all(-ndim <= a < ndim for a in axis):
        return None
    row, col = (a % ndim for a in axis)
    return (row, col) if row != col else None


def __getattr__(name):
    f = getattr(np.linalg, name, None)
    if f is None or name.startswith("_") or not callable(f) or isinstance(f, type):
        raise AttributeError(f"gradmagic.jax.numpy.linalg has no {name!r}: it maps NumPy's own "
                             "linear algebra, and numpy.linalg has no function of that name")

    @functools.wraps(f)
    def run(*args, **kwargs):
        return wrap(f(*args, **kwargs))
    globals()[name] = run  # looked up once
    return run
