"""NumPy's polynomial functions on Tensors: ``polyval``, ``vander``, ``polyadd``, ``polysub``,
``polymul``, ``polydiv``, ``polyder``, ``polyint``, ``poly`` and ``polyfit``.

Each is composed from the op catalogue in NumPy's own order of operations, so its values
are NumPy's to the last bit and it differentiates in every argument that is a Tensor, to any
order: ``polyfit`` is ``linalg.lstsq`` of the scaled Vandermonde matrix, as NumPy computes
it, so the fit's coefficients have a gradient in ``y``, in ``x`` and in the weights.
Coefficient arrays are highest power first, as NumPy's; a ``np.poly1d`` is refused with the
way out (its ``coeffs``).
"""

import warnings

import numpy as np

from .._backend import kind, numpy_dtype, xp_of
from ..errors import NoGradientError
from ..tracebacks import user_stacklevel
from . import ops
from .linalg import inv
from .lstsq import lstsq
from .primitive import composite
from .signal import convolve
from .tensor import Tensor, as_tensor, module_of, raw


def _no_poly1d(fn, *values):
    if any(isinstance(v, np.poly1d) for v in values):
        raise NoGradientError(f"np.{fn} of a np.poly1d has no gradient rule in gradmagic: pass "
                              "its coefficients (p.coeffs) as an array or a list")



def _vector(v, mod):
    """``v`` as a 1-D array or Tensor (``np.atleast_1d``)."""
    if not isinstance(v, Tensor):
        v = mod.asarray(np.asarray(v)) if mod is not np else np.asarray(v)
    return ops.reshape(v, (1,)) if not np.shape(raw(v)) else v


def _len(v):
    return np.shape(raw(v))[0]


def _float(v):
    """``v + 0.0``, as NumPy makes coefficients floating."""
    return ops.astype(v, np.float64) if kind(raw(v).dtype) in "biu" else v


def polyval(p, x):
    """``np.polyval``: Horner's rule from NumPy's own start, ``y = 0`` of ``x``'s shape and
    dtype, then ``y = y * x + c`` for each coefficient, highest first; the coefficients and
    ``x`` both get gradients, to any order."""
    _no_poly1d("polyval", p, x)
    coeffs = p if isinstance(p, (list, tuple)) else [p[k] for k in range(len(p))]
    value = raw(x) if isinstance(x, Tensor) else np.asarray(x)
    y = Tensor(xp_of(value).zeros_like(value))  # a Tensor: an array-API array refuses one's product
    for c in coeffs:
        y = y * x + c
    return y


@composite("the lower column times x")
def vander(x, N=None, increasing=False):
    """``np.vander``: the columns ``x ** k`` made as NumPy makes them, each the one before
    times ``x`` (so its rounding is NumPy's)."""
    x = x if isinstance(x, Tensor) else np.asarray(x)
    if len(np.shape(raw(x))) != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    n = _len(x) if N is None else int(N)
    dtype = np.result_type(numpy_dtype(raw(x).dtype), int)
    one = ops.astype(ops.multiply(x, 0) + 1, dtype)
    columns = [one] if n else []
    for _ in range(1, n):
        columns.append(columns[-1] * x)
    if not columns:
        return ops.astype(ops.reshape(ops.multiply(x, 0), (-1, 1))[:, :0], dtype)
    if not increasing:
        columns.reverse()
    return ops.stack(columns, axis=1)


def _counts(mod, n, like):
    """``n, n - 1, ..., 1`` (NumPy's int64, which NumPy's own promotion takes; on another
    array module, of ``like``'s dtype, which that module's strict promotion requires)."""
    counts = mod.arange(n, 0, -1)
    return counts if mod is np else mod.astype(counts, raw(like).dtype)


def _padded(a, n):
    """The 1-D ``a`` with zeros before it, to length ``n``."""
    m = _len(a)
    if m == n:
        return a
    zeros = ops.multiply(ops.getitem(a, slice(0, 1)), 0)
    return ops.concatenate([ops.broadcast_to(zeros, (n - m,)), a])


def _aligned(fn, a1, a2):
    """``a1`` and ``a2`` as 1-D coefficients of one length, the shorter padded before."""
    _no_poly1d(fn, a1, a2)
    mod = module_of(a1, a2)
    a1, a2 = _vector(a1, mod), _vector(a2, mod)
    n = max(_len(a1), _len(a2))
    return _padded(a1, n), _padded(a2, n)


@composite("1", "1")
def polyadd(a1, a2):
    """``np.polyadd``: the shorter padded with leading zeros, then the sum."""
    return ops.add(*_aligned("polyadd", a1, a2))


@composite("1", "-1")
def polysub(a1, a2):
    """``np.polysub``: the shorter padded with leading zeros, then the difference."""
    return ops.subtract(*_aligned("polysub", a1, a2))


@composite("the other's coefficients, shifted", "the other's coefficients, shifted")
def polymul(a1, a2):
    """``np.polymul``: the convolution of the coefficients."""
    _no_poly1d("polymul", a1, a2)
    mod = module_of(a1, a2)
    return convolve(_vector(a1, mod), _vector(a2, mod))


@composite("the quotient's and remainder's change", "the quotient's and remainder's change")
def polydiv(u, v):
    """``np.polydiv``: NumPy's long division, step by step (``(quotient, remainder)``); the
    leading remainder terms NumPy drops as zero are chosen by their values."""
    _no_poly1d("polydiv", u, v)
    mod = module_of(u, v)
    u, v = _float(_vector(u, mod)), _float(_vector(v, mod))
    m, n = _len(u) - 1, _len(v) - 1
    dtype = np.result_type(raw(u).dtype, raw(v).dtype)
    u = ops.astype(u, dtype) if raw(u).dtype != dtype else u
    scale = 1.0 / ops.getitem(v, 0)
    r = [ops.getitem(u, k) for k in range(m + 1)]
    vs = [ops.getitem(v, j) for j in range(n + 1)]
    q = []
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q.append(d)
        for j in range(n + 1):
            r[k + j] = r[k + j] - d * vs[j]
    quotient = ops.astype(ops.stack(q), dtype) if q else mod.zeros((1,), dtype)
    while len(r) > 1 and np.allclose(np.asarray(raw(r[0]).tolist() if mod is not np else raw(r[0])), 0,
                                     rtol=1e-14):
        r = r[1:]
    return quotient, ops.astype(ops.stack(r), dtype)


@composite("k, k - 1, ... down to 1")
def polyder(p, m=1):
    """``np.polyder``: ``m`` derivatives, each ``p[:-1] * (n, n - 1, ..., 1)``."""
    _no_poly1d("polyder", p)
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    mod = module_of(p)
    p = p if isinstance(p, Tensor) else mod.asarray(np.asarray(p)) if mod is not np else np.asarray(p)
    for _ in range(m):
        n = _len(p) - 1
        p = ops.getitem(p, slice(None, -1)) * _counts(mod, n, p)
    return p


@composite("1 / (k + 1), 1 / k, ...", "1")
def polyint(p, m=1, k=None):
    """``np.polyint``: ``m`` antiderivatives, each ``p / (n, ..., 1)`` followed by its constant
    from ``k`` (zeros by default)."""
    _no_poly1d("polyint", p)
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    mod = module_of(p, k)
    if k is None:
        k = mod.zeros(m, float)
    k = _vector(k, mod)
    if _len(k) == 1 and m > 1:
        k = ops.getitem(k, 0) * mod.ones(m, float)
    if _len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = p if isinstance(p, Tensor) else mod.asarray(np.asarray(p)) if mod is not np else np.asarray(p)
    for i in range(m):
        p = ops.concatenate([p / _counts(mod, _len(p), p), ops.reshape(ops.getitem(k, i), (1,))])
    return p


@composite("the other roots' polynomial, negated")
def poly(seq_of_zeros):
    """``np.poly``: the coefficients of the monic polynomial with these real roots, one
    convolution with ``(1, -zero)`` per root. A square matrix (its eigenvalues, complex in
    general) is refused."""
    mod = module_of(seq_of_zeros)
    z = _vector(seq_of_zeros, mod)
    shape = np.shape(raw(z))
    if len(shape) == 2 and shape[0] == shape[1] and shape[0]:
        raise NoGradientError("np.poly of a matrix (the polynomial of its eigenvalues, complex in "
                              "general) has no gradient rule in gradmagic: pass its roots")
    if len(shape) != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if not shape[0]:
        return 1.0
    z = _float(z) if numpy_dtype(raw(z).dtype).char not in "fd" else z
    dtype = raw(z).dtype
    a = mod.ones((1,), dtype=dtype)
    for j in range(shape[0]):
        a = convolve(a, ops.stack([ops.astype(mod.ones((), dtype=dtype), dtype), -ops.getitem(z, j)]),
                     mode="full")
    return a


@composite("the fit's change with y", "the fit's change with x", "the fit's change with w")
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """``np.polyfit``: least squares on the Vandermonde matrix, its columns scaled to unit
    norm, as NumPy solves it (``linalg.lstsq``); with ``full``, NumPy's residuals, rank,
    singular values and ``rcond`` beside the coefficients; with ``cov``, the coefficients'
    covariance, scaled by the residuals unless ``cov="unscaled"``."""
    order = int(deg) + 1
    mod = module_of(x, y, w)
    x, y = (_float(v if isinstance(v, Tensor) else mod.asarray(np.asarray(v, dtype=float))) for v in (x, y))
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if len(np.shape(raw(x))) != 1:
        raise TypeError("expected 1D vector for x")
    if not _len(x):
        raise TypeError("expected non-empty vector for x")
    if len(np.shape(raw(y))) not in (1, 2):
        raise TypeError("expected 1D or 2D array for y")
    if _len(x) != _len(y):
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = _len(x) * np.finfo(raw(x).dtype).eps
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _float(w if isinstance(w, Tensor) else mod.asarray(np.asarray(w, dtype=float)))
        if len(np.shape(raw(w))) != 1:
            raise TypeError("expected a 1-d array for weights")
        if _len(w) != _len(y):
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * ops.reshape(w, (-1, 1))
        rhs = rhs * (ops.reshape(w, (-1, 1)) if len(np.shape(raw(rhs))) == 2 else w)
    scale = ops.sqrt(ops.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = ops.transpose(ops.transpose(c) / scale)
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning, stacklevel=user_stacklevel())
    if full or not cov:
        return (c, resids, rank, s, rcond) if full else c
    base = inv(ops.matmul(ops.transpose(lhs), lhs)) / ops.outer(scale, scale)
    fac = 1
    if cov != "unscaled":
        if _len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the covariance matrix")
        fac = resids / (_len(x) - order)
    return c, as_tensor(base * fac if len(np.shape(raw(y))) == 1 else ops.expand_dims(base, -1) * fac)


FUNCTIONS = {
    np.polyval: polyval, np.vander: vander, np.polyadd: polyadd, np.polysub: polysub,
    np.polymul: polymul, np.polydiv: polydiv, np.polyder: polyder, np.polyint: polyint,
    np.poly: poly, np.polyfit: polyfit,
}
