"""``np.linalg.lstsq`` on Tensors: the least-squares solution ``x = pinv(a) b`` as NumPy's
own (LAPACK's ``gelsd``) computes it, with its gradient in ``a`` and ``b``.

``x`` is one primitive, so its value is NumPy's to the last bit; its rules are written with
``pinv`` and ``matmul`` (they differentiate again, to any order): in ``b``, ``pinv(a)^T g``;
in ``a``, ``pinv``'s own rule (``linalg.pinv_vjp``) applied to ``g b^T``, the gradient of
``pinv(a) b`` in ``pinv(a)``. That is the derivative wherever the rank of ``a`` is constant
around it: any full-rank ``a``, tall (``m > n``: the residual's term included) or wide
(``m < n``: the minimum-norm solution). A rank-deficient ``a`` has a solution and a
gradient in ``b``, but its gradient in ``a`` raises (the rank changes under almost every
perturbation, so there is no derivative to give).

The residuals and singular values NumPy returns beside ``x`` are primitives too, NumPy's
values (LAPACK's, which keeps a small residual's digits where ``a x - b`` would cancel them)
with the rules of what they are: the residuals ``r = |a x - b|^2`` per column, at the
minimum over ``x``, so ``dr = 2 e^T da x - 2 e^T db`` (``e = a x - b``: ``x``'s own change
is orthogonal to it); the singular values ``s``, ``ds = u^T da v`` from ``a``'s svd. Both
rules are ops, so they differentiate again. The rank is an integer.
"""

import numpy as np

from .._array_api import numpy_names
from .._backend import xp_of
from ..errors import GradientValueError, NoGradientError
from . import ops
from .context import pass_memo
from .linalg import T, pinv, pinv_vjp, svd
from .primitive import Primitive, apply, defvjp
from .tensor import Tensor, as_tensor, raw


def _lstsq(xp, a, b, rcond, full_rank):
    return xp.linalg.lstsq(a, b, rcond=rcond)[0]


def _lstsq_portable(xp, a, b, rcond, full_rank):  # the array API has no lstsq: pinv's
    return xp.linalg.pinv(a, rtol=rcond) @ b


LSTSQ = Primitive("lstsq", _lstsq, portable=_lstsq_portable)


def _lstsq_vjp_b(g, ans, a, b, rcond, full_rank):
    return ops.matmul(T(pinv(a, rcond=rcond)), g)


def _lstsq_vjp_a(g, ans, a, b, rcond, full_rank):
    if not full_rank:
        raise GradientValueError(
            "np.linalg.lstsq: a is rank-deficient (rank below min(m, n) at rcond's cutoff), so "
            "the solution has no derivative in a (its rank changes under almost every "
            "perturbation); its gradient in b is given. Regularize a (a ridge term: solve "
            "(a.T a + l I) x = a.T b) to differentiate in a")
    p = pinv(a, rcond=rcond)
    g_p = ops.outer(g, b) if len(np.shape(raw(b))) == 1 else ops.matmul(g, T(b))
    return pinv_vjp(g_p, p, a, rcond=rcond)


defvjp(LSTSQ, _lstsq_vjp_a, _lstsq_vjp_b, labels=("pinv's rule of upstream b^T", "pinv(a)^T upstream"))


def _residuals(xp, a, b, rcond):
    return xp.linalg.lstsq(a, b, rcond=rcond)[1]


def _singular_values(xp, a, b, rcond):  # (b sets the dtype: float32 a and float64 b give float64)
    return xp.linalg.lstsq(a, b, rcond=rcond)[3]


def _singular_values_portable(xp, a, b, rcond):
    return xp.linalg.svdvals(a)


RESIDUALS = Primitive("lstsq_residuals", _residuals)  # where a is tall and of full rank
SINGULAR_VALUES = Primitive("lstsq_singular_values", _singular_values, portable=_singular_values_portable)


def _error(a, b, rcond):
    """``(e, x)``: ``e = a x - b`` at the solution, both as columns; found once for the two
    rules of one step (the first leaves it in the pass's memo for the second, as ``solve``'s)."""
    memo = pass_memo()
    held = memo.pop("lstsq_error", None) if memo is not None else None
    if held is not None and held[0] is a and held[1] is b:
        return held[2]
    x = apply(LSTSQ, a, b, rcond=rcond, full_rank=True)
    column = len(np.shape(raw(b))) == 1
    e = ops.matmul(a, x) - b
    found = (ops.reshape(e, (-1, 1)), ops.reshape(x, (-1, 1))) if column else (e, x)
    if memo is not None:
        memo["lstsq_error"] = (a, b, found)
    return found


def _residuals_vjp_a(g, ans, a, b, rcond):
    e, x = _error(a, b, rcond)
    return ops.matmul(2 * e * g, T(x))


def _residuals_vjp_b(g, ans, a, b, rcond):
    e, _ = _error(a, b, rcond)
    return ops.reshape(-2 * e * g, np.shape(raw(b)))


def _singular_values_vjp(g, ans, a, b, rcond):
    u, _, vh = svd(a, full_matrices=False)
    return ops.matmul(u * g, vh)


defvjp(RESIDUALS, _residuals_vjp_a, _residuals_vjp_b,
       labels=("2 (a x - b) upstream x^T", "-2 (a x - b) upstream"))
defvjp(SINGULAR_VALUES, _singular_values_vjp, None, labels=("u diag(upstream) v^T, from a's svd", None))


def lstsq(a, b, rcond=None):
    """``np.linalg.lstsq``: ``(x, residuals, rank, s)``, ``x`` differentiable in ``a`` and
    ``b`` (in ``a`` where it has full rank), the residuals in both, ``s`` in ``a``."""
    values = [raw(v) if hasattr(raw(v), "shape") else np.asarray(v) for v in (a, b)]
    for v in values:
        if np.dtype(str(v.dtype).rpartition(".")[2]).kind == "c":
            raise NoGradientError("np.linalg.lstsq of complex values has no gradient in gradmagic: "
                                  "it differentiates real values only")
    xp = numpy_names(xp_of(next((raw(v) for v in (a, b) if isinstance(v, Tensor)), values[0])))
    va, vb = values
    if len(va.shape) != 2:
        raise np.linalg.LinAlgError(f"{va.ndim}-dimensional array given. Array must be two-dimensional")
    if len(vb.shape) not in (1, 2) or vb.shape[0] != va.shape[0]:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    m, n = va.shape
    if rcond is None:
        dtype = np.result_type(np.dtype(str(va.dtype).rpartition(".")[2]),
                               np.dtype(str(vb.dtype).rpartition(".")[2]), np.float32)
        rcond = float(np.finfo(dtype).eps * max(m, n))
    if not hasattr(xp.linalg, "lstsq"):  # the array API's: no lstsq, its parts from the svd
        s = xp.linalg.svdvals(va)
        rank = int(xp.sum(s > rcond * xp.max(s))) if min(m, n) else 0
        residuals = xp.zeros((0,), dtype=va.dtype)
    else:
        _, residuals, rank, s = xp.linalg.lstsq(va, vb, rcond=rcond)
        rank = int(rank)
    a = a if hasattr(raw(a), "shape") else va
    b = b if hasattr(raw(b), "shape") else vb
    x = apply(LSTSQ, a, b, rcond=rcond, full_rank=rank == min(m, n))
    if residuals.shape[0]:  # NumPy gives them where a is tall and of full rank
        residuals = apply(RESIDUALS, a, b, rcond=rcond)
    if min(m, n):
        s = apply(SINGULAR_VALUES, a, b, rcond=rcond)
    return x, as_tensor(residuals), rank, as_tensor(s)


FUNCTIONS = {np.linalg.lstsq: lstsq}
