"""PyTorch's checks of ``torch.linalg``'s inputs and its ``LinAlgError``, in its words: a
tensor of matrices, of floats, square; a singular matrix named by its batch element and the
pivot LAPACK finds zero (``linalg.py`` and ``linalg_more.py`` share them)."""

import numpy as np

from ..errors import GradmagicError
from .values import type_name


class LinAlgError(GradmagicError, RuntimeError):
    """``torch.linalg.LinAlgError``: the input is singular or not positive-definite."""


# -- PyTorch's checks -----------------------------------------------------------------------
def check_float(fn, A):
    if A.value.dtype.kind not in "fc":
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {type_name(A.value.dtype)}")


def check_matrices(fn, A):
    if A.value.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    check_float(fn, A)


def check_square(fn, A):
    check_matrices(fn, A)
    m, n = A.value.shape[-2:]
    if m != n:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {m} by {n} matrices")


def batch_error(fn, index, shape, sentence):
    """PyTorch's ``(Batch element k): `` before ``sentence`` for a batch of matrices."""
    where = f"(Batch element {int(np.ravel_multi_index(index, shape))}): " if shape else ""
    return LinAlgError(f"{fn}: {where}{sentence}")


def zero_pivot(a):
    """The 1-based column of the first exactly zero pivot of the LU factorization of ``a``
    with partial pivoting (LAPACK getrf's ``info``), or 0 when there is none."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[-1]
    for j in range(n):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        if a[p, j] == 0:
            return j + 1
        a[[j, p]] = a[[p, j]]
        a[j + 1:, j:] -= np.outer(a[j + 1:, j] / a[j, j], a[j, j:])
    return 0


def singular_error(fn, A, sentence):
    """The error for the first matrix of the batch ``A`` that is singular."""
    a = np.asarray(A.numpy(force=True))
    for index in np.ndindex(a.shape[:-2]):
        k = zero_pivot(a[index])
        if k:
            return batch_error(fn, index, a.shape[:-2], sentence.format(k))
    return batch_error(fn, (), (), sentence.format(1))
