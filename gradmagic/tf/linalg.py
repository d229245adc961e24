"""``tf.linalg`` (and ``tf.matmul``, ``tf.norm``, ``tf.einsum``, ``tf.tensordot``) on the
engine's linear-algebra rules, with TensorFlow's conventions: matrices in the last two axes,
``svd`` returning ``(s, u, v)`` with ``v`` not transposed and reduced by default, ``solve``
taking a matrix of right-hand sides, ``norm`` of every element when no axis is given.

Functions that read one triangle of their matrix have TensorFlow's gradients: ``eigh`` and
``eigvalsh`` that of the function computed, on the lower triangle, as NumPy's; ``cholesky``
(and ``logdet``, made from it) the symmetric one, each off-diagonal entry spread half and
half over both triangles, as TensorFlow's rule assumes a symmetric input. The two agree for
every symmetric change of the matrix, so gradients through a matrix built symmetric
(``b @ b.T``) are the same; a step along TensorFlow's keeps a symmetric matrix symmetric.
"""

import builtins
import collections

import numpy as np

from .._backend import broadcastable
from ..core import contract, ops
from ..core.determinant import det as core_det
from ..core import linalg as core
from ..core.primitive import composite
from ..errors import GradientValueError
from .arrays import global_norm
from .errors import InvalidArgumentError
from .math import dims, l2_normalize
from .tensors import as_tensor, eye, missing, not_supported


def matrix_transpose(a, name=None, conjugate=False):
    """``tf.linalg.matrix_transpose``: the last two axes swapped."""
    return ops.swapaxes(as_tensor(a), -1, -2)


adjoint = matrix_transpose  # of real matrices


@composite("upstream @ b.T (transposed as a was)", "a.T @ upstream (transposed as b was)")
def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, output_type=None, name=None, **kwargs):
    """``tf.matmul``: ``a @ b``, each transposed (or adjoint: the same, for real values) first
    when asked."""
    a, b = as_tensor(a), as_tensor(b)
    if transpose_a or adjoint_a:
        a = matrix_transpose(a)
    if transpose_b or adjoint_b:
        b = matrix_transpose(b)
    sa, sb = tuple(a.shape), tuple(b.shape)
    if len(sa) >= 2 and len(sb) >= 2:  # shapes that do not fit: TensorFlow's error
        op = "MatMul" if len(sa) == len(sb) == 2 else "BatchMatMulV2"
        if not broadcastable(sa[:-2], sb[:-2]):
            raise InvalidArgumentError(f"In[0] and In[1] must have compatible batch dimensions: "
                                       f"{dims(sa)} vs. {dims(sb)} [Op:{op}]")
        if sa[-1] != sb[-2]:
            raise InvalidArgumentError(f"Matrix size-incompatible: In[0]: {dims(sa)}, In[1]: "
                                       f"{dims(sb)} [Op:{op}]")
    return ops.matmul(a, b)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """``tf.linalg.matvec``: the matrices of ``a`` times the vectors of ``b``."""
    a, b = as_tensor(a), as_tensor(b)
    return ops.squeeze(matmul(a, ops.expand_dims(b, -1), transpose_a, adjoint_a=adjoint_a), -1)


def square(fn, a):
    a = as_tensor(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise GradientValueError(f"{fn}(input): Input matrix must be square, got shape {a.shape}")
    return a


def inv(input, adjoint=False, name=None):  # noqa: A002  (TensorFlow's parameter name)
    a = square("tf.linalg.inv", input)
    return core.inv(matrix_transpose(a) if adjoint else a)


def det(input, name=None):  # noqa: A002
    return core_det(square("tf.linalg.det", input))


LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant", ["sign", "log_abs_determinant"])


def slogdet(input, name=None):  # noqa: A002
    """``tf.linalg.slogdet``: ``(sign, log_abs_determinant)``; the sign's gradient is 0."""
    return LogMatrixDeterminant(*core.slogdet(square("tf.linalg.slogdet", input)))


@composite("L^-T phi(L^T upstream) L^-1, made symmetric", name="cholesky")
def cholesky(input, name=None):  # noqa: A002
    """``tf.linalg.cholesky``: the lower factor ``L`` of ``input = L @ L.T``, from the lower
    triangle, with TensorFlow's symmetric gradient (see the module's note)."""
    return core.cholesky(core.symmetric_gradient(square("tf.linalg.cholesky", input)))


def logdet(matrix, name=None):
    """``tf.linalg.logdet`` of a symmetric positive definite matrix: twice the sum of the
    logarithms of its Cholesky factor's diagonal (the lower triangle is read)."""
    diag = contract.diagonal(cholesky(matrix), 0, -2, -1)
    return 2.0 * ops.sum(ops.log(diag), axis=-1)


def same_rank(fn, matrix, rhs):
    m, r = as_tensor(matrix), as_tensor(rhs)
    if r.ndim != m.ndim:
        raise GradientValueError(
            f"{fn}(matrix, rhs): All input tensors must have the same rank: rhs is a matrix of "
            f"right-hand sides (shape [..., M, K]), got shapes {m.shape} and {r.shape}; for one "
            "vector b, pass b[:, None]")
    return m, r


def solve(matrix, rhs, adjoint=False, name=None):
    """``tf.linalg.solve``: ``x`` with ``matrix @ x = rhs``; ``rhs`` has shape ``[..., M, K]``."""
    m, r = same_rank("tf.linalg.solve", square("tf.linalg.solve", matrix), rhs)
    return core.solve(matrix_transpose(m) if adjoint else m, r)


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """``tf.linalg.band_part``: ``num_lower`` diagonals below the main one and ``num_upper``
    above kept (negative: all of them), the rest zero; the gradient is masked alike."""
    a = as_tensor(input)
    rows, cols = a.shape[-2:]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    lo, up = int(num_lower), int(num_upper)
    keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
    return ops.where(keep, a, 0)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``tf.linalg.triangular_solve``: ``solve`` with the lower (or upper) triangle of
    ``matrix`` only; the other triangle is not read and gets no gradient. The batch axes of
    ``matrix`` and ``rhs`` broadcast."""
    m, r = square("tf.linalg.triangular_solve", matrix), as_tensor(rhs)
    if r.ndim < 2:  # a matrix of right-hand sides; their batch axes broadcast, as TensorFlow's
        same_rank("tf.linalg.triangular_solve", m, r)
    t = band_part(m, -1, 0) if lower else band_part(m, 0, -1)
    return core.solve(matrix_transpose(t) if adjoint else t, r)


def cholesky_solve(chol, rhs, name=None):
    """``tf.linalg.cholesky_solve``: ``x`` with ``L @ L.T @ x = rhs``, for ``L = chol`` (its
    lower triangle)."""
    y = triangular_solve(chol, rhs, lower=True)
    return triangular_solve(chol, y, lower=True, adjoint=True)


def eigh(tensor, name=None):
    """``tf.linalg.eigh``: ``(e, v)``, eigenvalues ascending, from the lower triangle."""
    w, v = core.eigh(square("tf.linalg.eigh", tensor))
    return w, v


def eigvalsh(tensor, name=None):
    return core.eigvalsh(square("tf.linalg.eigvalsh", tensor))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``tf.linalg.svd``: ``(s, u, v)`` with ``tensor = u @ diag(s) @ v.T`` (``v``, not its
    transpose), or ``s`` alone. Singular vectors are defined up to a sign: NumPy's may have
    the other sign than TensorFlow's, and both are right."""
    a = as_tensor(tensor)
    m, n = a.shape[-2:] if a.ndim >= 2 else (0, 0)
    if a.ndim < 2:
        raise GradientValueError(f"tf.linalg.svd(tensor): expected a matrix (rank >= 2), got shape {a.shape}")
    if not compute_uv:
        return core.svd(a, compute_uv=False)
    if full_matrices and m != n:
        raise not_supported(f"tf.linalg.svd(full_matrices=True) of a {m}x{n} matrix",
                            "the extra singular vectors", "they are not unique, so they have no "
                            "gradient: use full_matrices=False")
    u, s, vh = core.svd(a, full_matrices=False)
    return s, u, matrix_transpose(vh)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """``tf.linalg.qr``: ``(q, r)``, reduced, of a matrix with at least as many rows as columns."""
    a = as_tensor(input)
    if a.ndim < 2:
        raise GradientValueError(f"tf.linalg.qr(input): expected a matrix (rank >= 2), got shape {a.shape}")
    m, n = a.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise not_supported(f"tf.linalg.qr(full_matrices={full_matrices}) of a {m}x{n} matrix",
                            "a wide matrix, or the complete factors of a tall one",
                            "their gradient is not unique (as in JAX): take the QR of the "
                            "transpose, or full_matrices=False")
    return core.qr(a)


def pinv(a, rcond=None, validate_args=False, name=None):
    """``tf.linalg.pinv``: singular values below ``rcond`` times the largest are dropped;
    ``rcond`` defaults to TensorFlow's ``10 * max(rows, cols) * eps``."""
    a = as_tensor(a)
    if rcond is None:
        rcond = 10.0 * builtins.max(a.shape[-2:]) * np.finfo(a.dtype).eps
    return core.pinv(a, rcond=float(rcond))


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """``tf.linalg.lstsq``, TensorFlow's fast path: the regularized normal equations,
    ``solve(A.T A + l2 I, A.T rhs)`` (or ``A.T solve(A A.T + l2 I, rhs)`` when ``A`` is wide)."""
    if not fast:
        raise not_supported("tf.linalg.lstsq(fast=False)", "the complete orthogonal "
                            "decomposition", "use fast=True (the normal equations)")
    a, b = same_rank("tf.linalg.lstsq", matrix, rhs)
    m, n = a.shape[-2:]
    at = matrix_transpose(a)
    if m >= n:
        gram = ops.matmul(at, a) + l2_regularizer * eye(n, dtype=a.dtype)
        return core.solve(gram, ops.matmul(at, b))
    gram = ops.matmul(a, at) + l2_regularizer * eye(m, dtype=a.dtype)
    return ops.matmul(at, core.solve(gram, b))


def trace(x, name=None):
    """``tf.linalg.trace``: the sum of the diagonal of each matrix (the last two axes)."""
    return contract.trace(as_tensor(x), 0, -2, -1)


def diag_part(input, name=None, k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """``tf.linalg.diag_part``: the ``k``-th diagonal of each matrix (the last two axes)."""
    if not isinstance(k, (int, np.integer)):
        raise not_supported(f"tf.linalg.diag_part(k={k!r})", "a band of diagonals", "take one "
                            "diagonal at a time (k an int)")
    return contract.diagonal(as_tensor(input), int(k), -2, -1)


def diag(diagonal, name=None, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``tf.linalg.diag``: each vector of ``diagonal`` (the last axis) as a square matrix with
    it on the main diagonal (a 1-D one on the ``k``-th)."""
    v = as_tensor(diagonal)
    if (num_rows, num_cols, padding_value) != (-1, -1, 0):
        raise not_supported("tf.linalg.diag(num_rows=, num_cols=, padding_value=)",
                            "a matrix of another size or padding", "pad the result with tf.pad")
    if int(k) == 0:
        return ops.expand_dims(v, -1) * eye(v.shape[-1], dtype=v.dtype)
    if v.ndim != 1:
        raise not_supported(f"tf.linalg.diag(k={k}) of a batch", "an off-diagonal of a batch",
                            "build one matrix at a time")
    return contract.diag(v, int(k))


VECTOR_ORDS = "'euclidean' or a number > 0 (1, 2, np.inf ...)"
MATRIX_ORDS = ("euclidean", "fro", 1, 2, np.inf)


@composite("d norm / dx")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002
    """``tf.norm``: of every element (as one vector) when ``axis`` is None, of vectors along
    an int ``axis``, of matrices along a pair of axes (``'fro'``/``'euclidean'``, 1, 2,
    ``np.inf``). Its gradient at 0 is NaN, as TensorFlow's."""
    x = as_tensor(tensor)
    keep = bool(keepdims)
    pair = isinstance(axis, (list, tuple)) and len(axis) == 2
    if pair:
        if ord not in MATRIX_ORDS:
            raise GradientValueError(f"tf.norm(ord={ord!r}): 'ord' must be a supported matrix norm "
                                     f"in ['euclidean', 'fro', 1, 2, inf], got {ord}")
        return core.norm(x, "fro" if ord == "euclidean" else ord,
                           tuple(int(a) for a in axis), keep)
    if ord != "euclidean" and (not isinstance(ord, (int, float, np.number)) or not ord > 0):
        raise GradientValueError(f"tf.norm(ord={ord!r}): 'ord' must be a supported vector norm, "
                                 f"got {ord} (expected {VECTOR_ORDS})")
    p = 2 if ord == "euclidean" else ord
    if axis is None:
        r = core.norm(ops.reshape(x, (-1,)), p, 0, False)
        return ops.reshape(r, (1,) * x.ndim) if keep else r
    if isinstance(axis, (list, tuple)):
        raise GradientValueError(f"tf.norm(axis={axis!r}): 'axis' must be None, an integer, or a "
                                 f"tuple of 2 unique integers, got {axis}")
    return core.norm(x, p, int(axis), keep)


@composite("through tensor / norm, and the norm's")
def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``tf.linalg.normalize``: ``(tensor / norm, norm)``, the norm with its axes kept."""
    n = norm(tensor, ord, axis, keepdims=True)
    return as_tensor(tensor) / n, n


def einsum(equation, *inputs, **kwargs):
    """``tf.einsum``: NumPy's einsum, differentiable in each operand."""
    return contract.einsum(equation, *[as_tensor(t) for t in inputs])


def tensordot(a, b, axes, name=None):
    return contract.tensordot(as_tensor(a), as_tensor(b), axes)


def cross(a, b, name=None):
    return contract.cross(as_tensor(a), as_tensor(b))


NO_RULE = {name: "the engine has no gradient rule for it" for name in
           ("expm", "logm", "sqrtm", "eig", "eigvals", "matrix_rank", "tridiagonal_solve",
            "banded_triangular_solve", "lu", "lu_solve", "lu_matrix_inverse", "set_diag")}

__all__ = ["matmul", "matvec", "matrix_transpose", "adjoint", "inv", "det", "slogdet", "logdet",
           "cholesky", "cholesky_solve", "solve", "triangular_solve", "band_part", "eigh",
           "eigvalsh", "svd", "qr", "pinv", "lstsq", "trace", "diag_part", "diag", "norm",
           "normalize", "einsum", "tensordot", "cross", "eye", "global_norm", "l2_normalize"]


def __dir__():
    return __all__


def __getattr__(name):
    reason = f" ({NO_RULE[name]})" if name in NO_RULE else ""
    raise AttributeError(missing(f"tf.linalg.{name}") + reason)
