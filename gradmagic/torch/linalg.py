"""``torch.linalg``: norms, determinants, inverses, solves and factorizations, each the
engine's ``core.linalg`` function with PyTorch's checks, result types, error words and
``grad_fn`` names (as PyTorch 2.13.0).

Where PyTorch's gradient differs from NumPy's function, PyTorch's: ``cholesky``, ``eigh``
and ``eigvalsh`` read one triangle of ``A`` and assume ``A`` symmetric, so the gradient of
an off-diagonal entry is spread half and half over both triangles (``symmetric_gradient``),
where NumPy's lies on the triangle read; ``vector_norm`` has gradient 0 where it is 0
(``subgradients``). A singular or not positive-definite input raises ``LinAlgError`` in
PyTorch's words, naming the pivot or the leading minor as LAPACK finds it.

>>> import gradmagic.torch as torch
>>> A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
>>> torch.linalg.cholesky(A).sum().backward()
>>> A.grad  # symmetric, as PyTorch's
tensor([[0.2558, 0.1954],
        [0.1954, 0.3162]], dtype=torch.float64)
"""

from __future__ import annotations

import collections
import math

import numpy as np

from ..core import linalg as core
from ..core import ops
from ..core.determinant import det as core_det
from .graph import as_tensor_of
from .subgradients import vector_norm as norm_of_vector
from .functions import cross as cross_product
from .linalg_checks import (LinAlgError, batch_error, check_float, check_matrices, check_square,
                            singular_error)
from .linalg_more import lstsq, matrix_exp, solve_triangular, svd, svdvals
from .values import named, type_name


linalg_slogdet = collections.namedtuple("linalg_slogdet", ["sign", "logabsdet"])
linalg_eigh = collections.namedtuple("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_qr = collections.namedtuple("linalg_qr", ["Q", "R"])


# -- norms ------------------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """``torch.linalg.vector_norm``: the ``ord``-norm of the elements over ``dim`` (all when
    None); gradient 0 where it is 0, as PyTorch's."""
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    if dtype is not None:
        x = x.type(dtype)
    check_float("linalg.vector_norm", x)
    return named(norm_of_vector(x, ord, dim, keepdim), "LinalgVectorNormBackward0")


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """``torch.linalg.matrix_norm``: ``'fro'`` (a vector norm: gradient 0 at 0), ``'nuc'``,
    1, -1, 2, -2, inf or -inf over the two axes ``dim``."""
    if dtype is not None:
        A = A.type(dtype)
    check_matrices("linalg.matrix_norm", A)
    if ord not in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord == "fro":
        return vector_norm(A, 2, tuple(dim), keepdim)
    return named(core.norm(A, ord, axis=tuple(dim), keepdims=keepdim),
                 "SumBackward1" if ord == "nuc" else "LinalgMatrixNormBackward0")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    """``torch.linalg.norm``: a vector norm over one ``dim`` (or of all elements when ``ord``
    and ``dim`` are None), a matrix norm over two, or by ``A``'s ndim when only ``ord`` is given."""
    if dim is None and ord is not None:
        if A.value.ndim not in (1, 2):
            raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be "
                               f"1D or 2D. Got {A.value.ndim}D.")
        dim = tuple(range(A.value.ndim))
    if dim is not None and not isinstance(dim, int) and len(dim) == 2:
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


# -- determinants, inverses, solves -----------------------------------------------------------
def det(A, *, out=None):
    """``torch.linalg.det`` (and ``Tensor.det``)."""
    check_square("linalg.det", A)
    return named(core_det(A), "LinalgDetBackward0")


def slogdet(A, *, out=None):
    """``torch.linalg.slogdet``: ``(sign, logabsdet)``, the gradient through ``logabsdet``."""
    check_square("linalg.slogdet", A)
    sign, logabsdet = core.slogdet(A)
    return linalg_slogdet(as_tensor_of(getattr(sign, "value", sign), A),
                          named(logabsdet, "LinalgSlogdetBackward0"))


SINGULAR = ("The diagonal element {} is zero, the inversion could not be completed because the "
            "input matrix is singular.")


def inv(A, *, out=None):
    """``torch.linalg.inv`` (and ``Tensor.inverse``)."""
    check_square("linalg.inv", A)
    try:
        return named(core.inv(A), "LinalgInvExBackward0")
    except np.linalg.LinAlgError:
        raise singular_error("linalg.inv", A, SINGULAR) from None


def solve(A, B, *, left=True, out=None):
    """``torch.linalg.solve``: ``X`` with ``A X = B`` (``X A = B`` when ``left=False``); ``B``
    is a batch of vectors when it is 1-D or has ``A``'s shape less its last axis."""
    check_square("linalg.solve", A)
    n = A.value.shape[-1]
    vector = B.value.ndim == 1 or (B.value.ndim == A.value.ndim - 1 and B.value.shape == A.value.shape[:-1])
    rows = B.value.shape[-1] if vector or not left else B.value.shape[-2]
    if rows != n:
        shape = (B.value.shape[-1], 1) if vector else B.value.shape[-2:]
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and {shape[0]}x{shape[1]})")
    a = A if left else ops.swapaxes(A, -1, -2)
    try:
        if vector:
            x = ops.squeeze(core.solve(a, ops.expand_dims(B, -1)), -1)
        else:
            x = core.solve(a, B if left else ops.swapaxes(B, -1, -2))
            x = x if left else ops.swapaxes(x, -1, -2)
    except np.linalg.LinAlgError:
        raise singular_error("torch.linalg.solve", A, "The solver failed because the input matrix is "
                        "singular.") from None
    return named(x, "LinalgSolveExBackward0")


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """``torch.linalg.pinv``: singular values below ``rtol`` times the largest count as zero
    (PyTorch's default ``rtol``: the dtype's eps times the larger side)."""
    if A.value.ndim < 2 or A.value.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.pinv({type_name(A.value.dtype)}{{{list(A.value.shape)}}}): expected "
                           "a tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    if atol is not None or hermitian:
        raise NotImplementedError(
            f"linalg.pinv({'atol' if atol is not None else 'hermitian=True'}): not supported in "
            "gradmagic.torch (NumPy's pinv takes a relative cut only); use rtol=")
    if rtol is None:
        rtol = max(A.value.shape[-2:]) * float(np.finfo(A.value.dtype).eps)
    return named(core.pinv(A, rcond=rtol), "LinalgPinvBackward0")


# -- factorizations ---------------------------------------------------------------------------
def _leading_minor(a):
    """The order of the first leading minor of ``a`` (its lower triangle) that is not positive-definite."""
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return a.shape[-1]


def cholesky(A, *, upper=False, out=None):
    """``torch.linalg.cholesky``: ``L`` with ``A = L L^T`` (``U^T U``, ``upper``); the gradient
    symmetric, as PyTorch's."""
    check_square("linalg.cholesky", A)
    try:
        return named(core.cholesky(core.symmetric_gradient(A), upper=upper), "LinalgCholeskyExBackward0")
    except np.linalg.LinAlgError:
        pass
    a = np.asarray(A.numpy(force=True))
    for index in np.ndindex(a.shape[:-2]):
        try:
            np.linalg.cholesky(a[index])
        except np.linalg.LinAlgError:
            raise batch_error("linalg.cholesky", index, a.shape[:-2],
                         "The factorization could not be completed because the input is not "
                         f"positive-definite (the leading minor of order {_leading_minor(a[index])} "
                         "is not positive-definite).") from None
    raise AssertionError("unreachable")  # pragma: no cover


def _uplo(fn, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"{fn}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


def eigh(A, UPLO="L", *, out=None):  # noqa: N803  (PyTorch's name)
    """``torch.linalg.eigh``: ``(eigenvalues, eigenvectors)`` of the symmetric matrix whose
    ``UPLO`` triangle ``A`` holds, ascending; the gradient symmetric, as PyTorch's."""
    check_square("linalg.eigh", A)
    w, v = core.eigh(core.symmetric_gradient(A), _uplo("linalg.eigh", UPLO))
    return linalg_eigh(named(w, "LinalgEighBackward0"), named(v, "LinalgEighBackward0"))


def eigvalsh(A, UPLO="L", *, out=None):  # noqa: N803
    """``torch.linalg.eigvalsh``: the eigenvalues alone, ascending."""
    check_square("linalg.eigh", A)
    return named(core.eigvalsh(core.symmetric_gradient(A), _uplo("linalg.eigh", UPLO)),
                 "LinalgEighBackward0")


def qr(A, mode="reduced", *, out=None):
    """``torch.linalg.qr``: ``(Q, R)`` of ``A`` (m x n, m >= n; ``mode='complete'`` of a
    square one is the same)."""
    check_matrices("linalg.qr", A)
    m, n = A.value.shape[-2:]
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if m < n or mode == "r" or (mode == "complete" and m != n):
        raise NotImplementedError(
            f"linalg.qr(A, mode={mode!r}) of a {m}x{n} A: not supported in gradmagic.torch, which "
            "takes the reduced QR of a matrix with at least as many rows as columns")
    q, r = core.qr(A)
    return linalg_qr(named(q, "LinalgQrBackward0"), named(r, "LinalgQrBackward0"))


def cross(input, other, *, dim=-1, out=None):  # noqa: A002  (PyTorch's name)
    """``torch.linalg.cross``: ``torch.cross`` with ``dim=-1`` by default."""
    return named(cross_product(input, other, dim), "LinalgCrossBackward0")


def multi_dot(tensors, *, out=None):
    """``torch.linalg.multi_dot``: the matrix product of ``tensors`` (the first may be a row
    vector, the last a column vector, given 1-D), with PyTorch's checks."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    for k, t in enumerate(tensors):
        which = "the first tensor" if k == 0 else "the last tensor" if k == n - 1 else f"tensor {k}"
        if not (t.ndim == 2 or t.ndim == 1 and k in (0, n - 1)):
            raise RuntimeError(f"multi_dot(): {which} must be {'1D or 2D' if k in (0, n - 1) else '2D'} "
                               f"but got {t.ndim}D")
    mats = [ops.reshape(t, (1, -1) if k == 0 else (-1, 1)) if t.ndim == 1 else t
            for k, t in enumerate(tensors)]
    for k in range(n - 1):
        if mats[k].shape[1] != mats[k + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {k} and {k + 1} with shapes {list(tensors[k].shape)} "
                               f"and {list(tensors[k + 1].shape)} cannot be multiplied")
    product = mats[0]
    for m in mats[1:]:
        product = product @ m
    rows = (tensors[0].shape[0],) if tensors[0].ndim == 2 else ()
    cols = (tensors[-1].shape[1],) if tensors[-1].ndim == 2 else ()
    return named(ops.reshape(product, rows + cols), "ViewBackward0")


# matrix_power: products.py's, set by the package (products.py imports inv from here)
__all__ = ["vector_norm", "matrix_norm", "norm", "det", "slogdet", "inv", "solve", "pinv",
           "cholesky", "eigh", "eigvalsh", "svd", "svdvals", "qr", "lstsq", "solve_triangular",
           "matrix_exp", "cross", "matrix_power", "multi_dot", "LinAlgError"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.torch.linalg.{name} does not exist: gradmagic.torch.linalg "
                         f"maps {', '.join(__all__)}")
