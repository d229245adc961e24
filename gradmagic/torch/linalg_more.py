"""``torch.linalg``'s singular values, least squares, triangular solves and matrix
exponential (``svd``, ``svdvals``, ``lstsq``, ``solve_triangular``, ``matrix_exp``) and their
older ``torch.`` forms (``torch.svd``, ``torch.triangular_solve``, ``torch.cholesky_solve``),
each a composition of the engine's ops and rules with PyTorch's checks, results and
``grad_fn`` names (as PyTorch 2.13.0).

Where PyTorch's gradient reads other entries than NumPy's, PyTorch's: a triangular solve's
gradient lies on the triangle read (``tril``/``triu`` before the solve); ``cholesky_solve``'s
on the whole factor (its value from the triangle, its gradient through all of it). The extra
singular vectors of ``svd(full_matrices=True)`` are constants, as PyTorch, which drops their
gradient. ``lstsq``'s solution is NumPy's (``gelsd``): PyTorch's default driver ``gelsy``
gives the same one for an ``A`` of full rank, and ``rank``, ``residuals`` and
``singular_values`` are filled as that driver fills them.

>>> import gradmagic.torch as torch
>>> A = torch.tensor([[0.0, 1.0], [-1.0, 0.0]], dtype=torch.float64)
>>> torch.linalg.matrix_exp(A)  # a rotation by 1 radian
tensor([[ 0.5403,  0.8415],
        [-0.8415,  0.5403]], dtype=torch.float64)
"""

import collections
import math

import numpy as np

from ..core import linalg as core
from ..core import ops
from ..core.contract import tril, triu
from ..core.lstsq import lstsq as core_lstsq
from .graph import as_tensor_of
from .linalg_checks import check_matrices, check_square
from .values import named, type_name

linalg_svd = collections.namedtuple("linalg_svd", ["U", "S", "Vh"])
svd_result = collections.namedtuple("svd", ["U", "S", "V"])
linalg_lstsq = collections.namedtuple("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
triangular_solve_result = collections.namedtuple("triangular_solve", ["solution", "cloned_coefficient"])
DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _constant(array, like):
    return as_tensor_of(np.asarray(array, dtype=like.value.dtype), like)


def _mT(x):  # noqa: N802  (PyTorch's name)
    return ops.swapaxes(x, -1, -2)


# -- singular values ----------------------------------------------------------------------
def svd(A, full_matrices=True, *, driver=None, out=None):
    """``torch.linalg.svd``: ``(U, S, Vh)``; with ``full_matrices`` the extra singular vectors
    of a matrix that is not square are constants, their gradient dropped, as PyTorch drops it."""
    check_matrices("linalg.svd", A)
    m, n = A.value.shape[-2:]
    u, s, vh = core.svd(A, full_matrices=False)
    if full_matrices and m != n:
        full_u, _, full_vh = np.linalg.svd(A.numpy(force=True), full_matrices=True)
        if m > n:
            u = ops.concatenate([u, _constant(full_u[..., n:], A)], axis=-1)
        else:
            vh = ops.concatenate([vh, _constant(full_vh[..., m:, :], A)], axis=-2)
    return linalg_svd(*(named(t, "LinalgSvdBackward0") for t in (u, s, vh)))


def svdvals(A, *, driver=None, out=None):
    """``torch.linalg.svdvals``: the singular values, descending."""
    check_matrices("linalg.svd", A)
    return named(core.svdvals(A), "LinalgSvdBackward0")


def svd_legacy(input, some=True, compute_uv=True, *, out=None):  # noqa: A002  (PyTorch's name)
    """``torch.svd``: ``(U, S, V)``, ``V`` not transposed; without ``compute_uv`` U and V are
    zeros of the full shapes."""
    if input.value.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.value.ndim} dimensions instead")
    if not compute_uv:
        lead, (m, n) = input.value.shape[:-2], input.value.shape[-2:]
        return svd_result(_constant(np.zeros(lead + (m, m)), input), svdvals(input),
                          _constant(np.zeros(lead + (n, n)), input))
    u, s, vh = svd(input, full_matrices=not some)
    return svd_result(u, s, named(_mT(vh), "TransposeBackward0"))


# -- least squares ------------------------------------------------------------------------
def _lstsq_checks(A, B, driver):
    if driver is not None and driver not in DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.value.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A.value.dtype.kind != "f":
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.value.dtype != B.value.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {type_name(A.value.dtype)} and other's dtype {type_name(B.value.dtype)}")
    if not 0 <= A.value.ndim - B.value.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = B.value.ndim == A.value.ndim - 1
    if (B.value.shape[-1] if vector else B.value.shape[-2]) != A.value.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-{1 if vector else 2})")
    return vector


def lstsq(A, B, rcond=None, *, driver=None):
    """``torch.linalg.lstsq``: ``(solution, residuals, rank, singular_values)`` of each matrix
    of the batch; ``rank`` for every driver but ``gels``, ``residuals`` (the squared residual
    of each column, where ``A`` is tall and of full rank) and ``singular_values`` for
    ``gelsd`` and ``gelss``, as PyTorch fills them."""
    vector = _lstsq_checks(A, B, driver)
    b = ops.expand_dims(B, -1) if vector else B
    (m, n), k = A.value.shape[-2:], b.value.shape[-1]
    batch = np.broadcast_shapes(A.value.shape[:-2], b.value.shape[:-2])
    a_flat = ops.reshape(ops.broadcast_to(A, batch + (m, n)), (-1, m, n))
    b_flat = ops.reshape(ops.broadcast_to(b, batch + (m, k)), (-1, m, k))
    if rcond is None:
        rcond = float(np.finfo(A.value.dtype).eps) * max(m, n)
    parts = [core_lstsq(a_flat[i], b_flat[i], rcond) for i in range(a_flat.value.shape[0])]
    x = ops.reshape(ops.stack([p[0] for p in parts]), batch + (n, k))
    rank = np.array([p[2] for p in parts], dtype=np.int64).reshape(batch)
    driver = driver or "gelsy"
    with_svd = driver in ("gelsd", "gelss")
    residuals = _constant(np.zeros((0,)), A)
    if with_svd and m > n and (rank == n).all():
        residuals = ops.sum((ops.matmul(A, x) - b) ** 2, axis=-2)
    values = np.stack([p[3].value for p in parts]).reshape(batch + (min(m, n),)) if with_svd else np.zeros((0,))
    return linalg_lstsq(named(ops.squeeze(x, -1) if vector else x, "LinalgLstsqBackward0"),
                        named(residuals, "LinalgLstsqBackward0"),
                        as_tensor_of(rank if driver != "gels" else np.zeros((0,), np.int64), A),
                        _constant(values, A))


# -- triangular solves --------------------------------------------------------------------
def _triangle(A, upper, unitriangular):
    if unitriangular:
        inside = triu(A, 1) if upper else tril(A, -1)
        return inside + _constant(np.eye(A.value.shape[-1]), A)
    return triu(A) if upper else tril(A)


def _promoted(A, B):
    dtype = np.promote_types(A.value.dtype, B.value.dtype)
    return (A if A.value.dtype == dtype else A.type(dtype)), (B if B.value.dtype == dtype else B.type(dtype))


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """``torch.linalg.solve_triangular``: ``X`` with ``A X = B`` (``X A = B``, ``left=False``),
    ``A`` read from its ``upper`` or lower triangle (a diagonal of ones, ``unitriangular``)."""
    fn = "linalg.solve_triangular"
    for name, t in (("A", A), ("B", B)):
        if t.value.ndim < 2:
            raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")
    check_square(fn, A)
    n = A.value.shape[-1]
    rows, cols = B.value.shape[-2:]
    if (rows if left else cols) != n:
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and {rows}x{cols})")
    A, B = _promoted(A, B)
    a = _triangle(A, upper, unitriangular)
    x = core.solve(a, B) if left else _mT(core.solve(_mT(a), _mT(B)))
    return named(x, "LinalgSolveTriangularBackward0")


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):  # noqa: A002
    """``torch.triangular_solve``: ``(solution, cloned_coefficient)``, the solution of
    ``A X = b`` (``A^T X = b``, ``transpose``) and a copy of ``A``."""
    if b.value.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b.value.ndim} dimensions instead")
    check_square("torch.triangular_solve", A)
    n = A.value.shape[-1]
    if b.value.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but "
                           f"each b matrix is {b.value.shape[-2]} by {b.value.shape[-1]}")
    a = _triangle(A, upper, unitriangular)
    x = core.solve(_mT(a) if transpose else a, b)
    return triangular_solve_result(named(x, "TriangularSolveBackward0"),
                                   named(A * 1, "TriangularSolveBackward0"))


def cholesky_solve(B, L, upper=False, *, out=None):
    """``torch.cholesky_solve``: ``X`` with ``L L^T X = B`` (``U^T U X = B``, ``upper``): its
    value from ``L``'s triangle, its gradient through the whole ``L``, as PyTorch's."""
    if B.value.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.value.ndim} dimensions instead")
    check_square("torch.cholesky_solve", L)
    n = L.value.shape[-1]
    if B.value.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but "
                           f"each b matrix is {B.value.shape[-2]} by {B.value.shape[-1]}")
    off = tril(L, -1) if upper else triu(L, 1)
    factor = L - ops.stop_gradient(off)  # the triangle's value, every entry's gradient
    a = ops.matmul(_mT(factor), factor) if upper else ops.matmul(factor, _mT(factor))
    return named(core.solve(a, B), "CholeskySolveBackward0")


# -- matrix exponential -------------------------------------------------------------------
PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
          129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
          40840800., 960960., 16380., 182., 1.)  # Higham (2005), Table 2.3
THETA13 = 5.371920351148152  # the 1-norm up to which the degree-13 approximant is exact in float64


def matrix_exp(A):
    """``torch.linalg.matrix_exp`` (and ``torch.matrix_exp``): scaling and squaring with the
    degree-13 Padé approximant (Higham 2005), of ops only, so it differentiates to any order.
    The batch is scaled by its largest norm's power of two."""
    check_square("linalg.matrix_exp", A)
    n = A.value.shape[-1]
    norm = float(np.abs(A.numpy(force=True)).sum(-2).max(initial=0.0)) if A.value.size else 0.0
    s = max(0, math.ceil(math.log2(norm / THETA13))) if norm > THETA13 else 0
    a = A / 2.0 ** s if s else A
    ident = _constant(np.eye(n), A)
    a2 = ops.matmul(a, a)
    a4 = ops.matmul(a2, a2)
    a6 = ops.matmul(a4, a2)
    b = PADE13
    u = ops.matmul(a, ops.matmul(a6, b[13] * a6 + b[11] * a4 + b[9] * a2)
                   + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = ops.matmul(a6, b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * ident
    e = core.solve(v - u, u + v)
    for _ in range(s):
        e = ops.matmul(e, e)
    return named(e, "LinalgMatrixExpBackward0")


FUNCTIONS = {"svd": svd_legacy, "triangular_solve": triangular_solve, "cholesky_solve": cholesky_solve,
             "matrix_exp": matrix_exp}  # torch.<name>
METHODS = {"svd": svd_legacy, "triangular_solve": triangular_solve, "cholesky_solve": cholesky_solve,
           "matrix_exp": matrix_exp}  # Tensor.<name>
