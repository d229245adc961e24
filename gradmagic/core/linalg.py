"""``np.linalg`` on Tensors: its primitives, their gradient rules (beside them, in the
rule table's style) and the functions composed from them. ``FUNCTIONS`` maps each NumPy
function onto its form here; ``core/dispatch.py`` routes NumPy's calls on Tensors
through it.

Rules take everything that depends on the input from ``args`` and ``ans`` (Tensors under
an outer tape), never from a raw array kept aside, so every rule differentiates again.
A factorization with several outputs (slogdet, eigh, svd, qr) is one primitive whose
output packs them into one array; the results are slices of it (``getitem``), so the
rule reads every factor from ``ans``. ``eigvalsh`` and the singular values alone are
recorded with the same packed output, so their rules reuse the forward's vectors. NumPy
exposes no LU factors: the rules of ``solve``, ``det`` and ``slogdet`` factor ``a`` again
(``det``, with its gradient at a singular matrix, is ``core/determinant.py``'s).

Matrices NumPy reads only one triangle of (``cholesky``, ``eigh``, ``eigvalsh``) get the
gradient of the function NumPy computes: it lies on that triangle (the strictly other
triangle has none), so finite differences of NumPy's own function agree with it.
"""

import operator

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, xp_of
from ..errors import GradientValueError, NoGradientError
from . import ops
from .ops import (absolute, expand_dims, getitem, matmul, moveaxis, reshape, sqrt,
                  squeeze, swapaxes, unsupported)
from .context import pass_memo
from .primitive import Primitive, apply, composite, defvjp
from .tensor import raw
from .triangular import LEAF, NARROW, lower_inverse, solve_triangular, triangle_of

# NumPy's named-tuple result types (not exported by np.linalg: taken from a result)
SlogdetResult = type(np.linalg.slogdet(np.eye(1)))
EighResult = type(np.linalg.eigh(np.eye(1)))
SVDResult = type(np.linalg.svd(np.eye(1)))
QRResult = type(np.linalg.qr(np.eye(1)))


# -- helpers: raw arrays or Tensors alike ---------------------------------------------
def T(x):
    """The matrix transpose of the last two axes."""
    return swapaxes(x, -1, -2)


def _shape(x):
    return tuple(np.shape(raw(x)))


def _constant(x, array):
    """A constant (no gradient) of ``x``'s module and dtype, from a NumPy ``array``."""
    v = raw(x)
    return numpy_names(xp_of(v)).asarray(array, dtype=v.dtype)


def _eye(x, n):
    return _constant(x, np.eye(n))


def _mask(x, n, k=0, upper=False):
    """Ones on and below (above, ``upper``) diagonal ``k`` of an n x n matrix."""
    m = np.triu(np.ones((n, n)), k) if upper else np.tril(np.ones((n, n)), k)
    return _constant(x, m)


def _diag(v):
    """A batch of vectors as diagonal matrices."""
    return expand_dims(v, -1) * _eye(v, _shape(v)[-1])


def _col(x):  # x[..., :, None]
    return expand_dims(x, -1)


def _row(x):  # x[..., None, :]
    return expand_dims(x, -2)


def _triangle(gh, upper, weight=None):
    """The gradient of a function of a symmetric matrix NumPy builds from one triangle,
    from ``gh``, its gradient as if every entry were free: each off-diagonal entry read
    stands for two, so it gets gh_ij + gh_ji; the unread triangle gets nothing.
    ``weight``: that triangle with its diagonal halved, where the caller has it."""
    if weight is None:
        weight = _half_triangle(gh, _shape(gh)[-1], upper)
    return (gh + T(gh)) * weight


def _half_triangle(x, n, upper=False):
    """Ones below (above, ``upper``) the diagonal of an n x n matrix, halves on it."""
    return _mask(x, n, 0, upper) - 0.5 * _eye(x, n)


def check_square(a):
    """``np.linalg``'s error unless ``a`` is a (stack of) square matrices."""
    shape = _shape(a)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise np.linalg.LinAlgError(
            f"{len(shape)}-dimensional array given. Array must be at least two-dimensional"
            if len(shape) < 2 else "Last 2 dimensions of the array must be square")


def _float(x):
    """``x`` as NumPy's linalg sees it: integers become float64."""
    return x if kind(raw(x).dtype) in "fc" else ops.astype(x, np.float64)


# -- inv, det, slogdet, solve ---------------------------------------------------------
INV = Primitive("inv", lambda xp, a: xp.linalg.inv(a))


def _slogdet(xp, a):
    sign, logabsdet = xp.linalg.slogdet(a)
    return xp.stack([sign, logabsdet], axis=-1)


SLOGDET = Primitive("slogdet", _slogdet)  # packed (..., 2): sign, logabsdet

def _solve(xp, a, b):
    if (xp is np and a.ndim == 2 and (b.ndim == 1 or (b.ndim == 2 and b.shape[1] <= NARROW))
            and a.shape[0] > LEAF and a.shape[0] == a.shape[1]):
        triangle = triangle_of(a)  # a Cholesky factor, or its transpose in solve's rule
        if triangle is not None:
            return solve_triangular(a, b, triangle == "lower")
    if xp is not np and b.ndim > 1 and a.shape[:-2] != b.shape[:-2]:  # CuPy's solve does not broadcast
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a, b = xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:])
    return xp.linalg.solve(a, b)


SOLVE = Primitive("solve", _solve)


def inv(a):
    check_square(a)
    return apply(INV, a)


@composite(SLOGDET)
def slogdet(a):
    check_square(a)
    packed = apply(SLOGDET, a)  # the sign is read from it too: its gradient is 0, not None
    return SlogdetResult(getitem(packed, (Ellipsis, 0)), getitem(packed, (Ellipsis, 1)))


def solve(a, b):
    return apply(SOLVE, a, b)


def solve_vjp_b(g, ans, a, b):  # a.T is factored again: NumPy gives no LU to reuse (JAX does)
    memo = pass_memo()
    held = memo.pop("solve", None) if memo is not None else None
    if held is not None and held[0] is g and held[1] is a and held[2] is b:
        return held[3]  # a's rule, just before, solved it: one solve for both inputs
    if len(_shape(b)) == 1:  # NumPy 2: b is a vector only when it is 1-D
        return squeeze(solve(T(a), _col(g)), -1)
    return solve(T(a), g)


def solve_vjp_a(g, ans, a, b):
    memo = pass_memo()
    if memo is not None:
        memo.pop("solve", None)
    gb = solve_vjp_b(g, ans, a, b)
    if memo is not None:  # for b's rule, which the pass calls next for the same step
        memo["solve"] = (g, a, b, gb)
    if len(_shape(b)) == 1:
        return -_col(gb) * _row(ans)
    return -matmul(gb, T(ans))


def slogdet_vjp(g, ans, a):  # sign has no gradient: its slot of g is ignored
    return _col(_col(getitem(g, (Ellipsis, 1)))) * T(inv(a))


defvjp(INV, lambda g, ans, a: -matmul(matmul(T(ans), g), T(ans)), labels=("-inv.T @ upstream @ inv.T",))
defvjp(SLOGDET, slogdet_vjp, labels=("inv({0}).T (logabsdet only)",))
defvjp(SOLVE, solve_vjp_a, solve_vjp_b, labels=("-solve({0}.T, upstream) @ x.T", "solve({0}.T, upstream)"))


# -- the gradient of a matrix assumed symmetric ------------------------------------------
SYMMETRIC_GRADIENT = Primitive("symmetric_gradient", lambda xp, a: a)
defvjp(SYMMETRIC_GRADIENT, lambda g, ans, a: (g + swapaxes(g, -1, -2)) / 2,
       labels=("1, with the upstream made symmetric",))


def symmetric_gradient(a):
    """``a`` as it is, whose gradient is made symmetric, ``(g + g^T) / 2``: for a dialect
    whose framework's rule for a function of one triangle (TensorFlow's ``cholesky``,
    PyTorch's and JAX's factorizations) assumes a symmetric input, as NumPy's does not."""
    return apply(SYMMETRIC_GRADIENT, a)


# -- cholesky -------------------------------------------------------------------------
def _cholesky(xp, a, upper=False, folded=True):
    if not upper:
        return xp.linalg.cholesky(a)
    try:
        return xp.linalg.cholesky(a, upper=True)
    except TypeError:  # a module without upper= (CuPy): the lower factor of a.T, transposed
        return xp.swapaxes(xp.linalg.cholesky(xp.swapaxes(a, -1, -2)), -1, -2)


CHOLESKY = Primitive("cholesky", _cholesky)


def cholesky(a, /, *, upper=False, folded=True):
    """NumPy's, which reads one triangle of ``a``: its gradient is folded onto it.
    ``folded=False``: JAX's (``jax.scipy.linalg``'s), the formula's full matrix unfolded."""
    check_square(a)
    return apply(CHOLESKY, a, upper=bool(upper), folded=bool(folded))


def lower_inv(L, leaf=32):
    """The inverse of a lower-triangular ``L`` (its strict upper triangle read as zeros), by
    halves: [[A, 0], [B, C]]^-1 = [[A^-1, 0], [-C^-1 B A^-1, C^-1]]. NumPy has no triangular
    inverse, and its ``inv`` (an LU of any matrix) costs about three matmuls at n = 256
    where this costs under one: two small inverses and two matmuls of half the size."""
    n = _shape(L)[-1]
    if n <= leaf:
        return inv(L)
    if type(L) is np.ndarray:  # a plain backward pass: the same blocks, in NumPy (faster)
        return lower_inverse(L, leaf)
    k = n // 2
    head, tail = slice(None, k), slice(k, None)
    a = lower_inv(getitem(L, (Ellipsis, head, head)), leaf)
    c = lower_inv(getitem(L, (Ellipsis, tail, tail)), leaf)
    b = -matmul(matmul(c, getitem(L, (Ellipsis, tail, head))), a)
    top = ops.concatenate([a, ops.zeros_like(getitem(L, (Ellipsis, head, tail)))], axis=-1)
    return ops.concatenate([top, ops.concatenate([b, c], axis=-1)], axis=-2)


def cholesky_vjp(g, ans, a, upper=False, folded=True):
    # Murray (2016): S = L^-T phi(L^T gL) L^-1, phi: lower triangle, diagonal halved
    L, gL = (T(ans), T(g)) if upper else (ans, g)
    weight = _half_triangle(L, _shape(L)[-1])  # phi's, and the triangle read's
    phi = matmul(T(L), gL) * weight
    Linv = lower_inv(L)
    S = matmul(matmul(T(Linv), phi), Linv)
    if not folded:  # of the lower triangle read, a's upper one transposed where upper
        return T(S) if upper else S
    return _triangle(S, upper, T(weight) if upper else weight)


defvjp(CHOLESKY, cholesky_vjp, labels=("L^-T phi(L^T upstream) L^-1, on the triangle read",))


# -- matrix_power, multi_dot (composites) -----------------------------------------------
@composite("sum of (A^k).T @ upstream @ (A^(n-1-k)).T")
def matrix_power(a, n):
    check_square(a)
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError("exponent must be an integer") from None
    if n == 0:  # the identity: a constant
        return ops.zeros_like(a) + _eye(a, _shape(a)[-1])
    if n < 0:
        a, n = inv(a), -n
    z = result = None  # binary powering, as NumPy
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


@composite("upstream times the others' product")
def multi_dot(arrays, *, out=None):
    unsupported("np.linalg.multi_dot", out=out)
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError("Expecting at least two arrays.")
    for k, x in enumerate(arrays):
        nd = len(_shape(x))
        if nd != 2 and not (nd == 1 and k in (0, len(arrays) - 1)):
            raise np.linalg.LinAlgError(f"{nd}-dimensional array given. Array must be two-dimensional")
    result = arrays[0]
    for x in arrays[1:]:  # a 1-D first (last) array is a row (column), as matmul reads it
        result = matmul(result, x)
    return result


# -- eigh, eigvalsh -------------------------------------------------------------------
def _pack_eigh(xp, w, v):
    return xp.concatenate([xp.expand_dims(w, -2), v], axis=-2)


def _eigh(xp, a, UPLO="L"):
    return _pack_eigh(xp, *xp.linalg.eigh(a, UPLO=UPLO))


def _eigh_portable(xp, a, UPLO="L"):  # the array API's eigh has no UPLO: the triangle read, mirrored
    i = xp.arange(a.shape[-1])
    below = xp.reshape(i, (-1, 1)) >= xp.reshape(i, (1, -1))
    keep = below if UPLO == "L" else xp.matrix_transpose(below)
    return _pack_eigh(xp, *xp.linalg.eigh(xp.where(keep, a, xp.matrix_transpose(a))))


# packed (..., n + 1, n): eigenvalues, then eigenvectors; eigvalsh too, so its rule reads V
EIGH = Primitive("eigh", _eigh, portable=_eigh_portable)
EIGVALSH = Primitive("eigvalsh", _eigh, portable=_eigh_portable)


def _uplo(fn, UPLO):
    if UPLO not in ("L", "U"):
        raise GradientValueError(f"np.linalg.{fn}(UPLO=...): expected 'L' or 'U', got {UPLO!r}")
    return UPLO


def _eigh_parts(packed):
    return getitem(packed, (Ellipsis, 0, slice(None))), getitem(packed, (Ellipsis, slice(1, None), slice(None)))


@composite(EIGH)
def eigh(a, UPLO="L"):
    check_square(a)
    w, v = _eigh_parts(apply(EIGH, a, UPLO=_uplo("eigh", UPLO)))
    return EighResult(w, v)


@composite(EIGVALSH)
def eigvalsh(a, UPLO="L"):
    check_square(a)
    return _eigh_parts(apply(EIGVALSH, a, UPLO=_uplo("eigvalsh", UPLO)))[0]


def _gaps(w, x):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (JAX's trick: no 1/0 there)."""
    n = _shape(w)[-1]
    eye = _eye(x, n)
    return 1 / (_row(w) - _col(w) + eye) - eye


def _values_only(values, *vector_grads, zero_too=False):
    """Whether a rule leaves the vectors' terms out: only where they would divide by 0
    (repeated values, sorted as NumPy gives them; with ``zero_too``, a zero one) and the
    vectors' upstream is all 0, as when only the values are used. Those then keep a finite
    gradient, as in JAX (whose upstream is a symbolic zero there); everywhere else the
    terms stay, exact to every order."""
    v = raw(values)
    xp = xp_of(v)
    singular = bool(xp.any(v[..., 1:] == v[..., :-1])) or (zero_too and bool(xp.any(v == 0)))
    return singular and not any(bool(xp.any(raw(g) != 0)) for g in vector_grads)


def eigh_vjp(g, ans, a, UPLO="L"):
    # V (diag(gw) + F * (V^T gV)) V^T; repeated eigenvalues: F is inf, the gradient inf/NaN
    # (as JAX) unless only the eigenvalues are used
    gw, gv = _eigh_parts(g)
    w, v = _eigh_parts(ans)
    inner = _diag(gw)
    if not _values_only(w, gv):
        inner = inner + _gaps(w, v) * matmul(T(v), gv)
    return _triangle(matmul(matmul(v, inner), T(v)), UPLO == "U")


defvjp(EIGH, eigh_vjp, labels=("V (diag(gw) + F * V^T gV) V^T",))
defvjp(EIGVALSH, eigh_vjp, labels=("V diag(upstream) V^T, V from the forward's eigh",))


# -- svd --------------------------------------------------------------------------------
def _svd(xp, a):
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    lead = s.shape[:-1]
    return xp.concatenate([xp.reshape(u, lead + (-1,)), s, xp.reshape(vh, lead + (-1,))], axis=-1)


SVD = Primitive("svd", _svd)  # packed (..., m k + k + k n): U, S, Vh flattened
SVDVALS = Primitive("svdvals", _svd)  # svd's packing too: the rule reads U and Vh from the output


def _svd_parts(packed, m, n):
    k = min(m, n)
    lead = _shape(packed)[:-1]
    u = reshape(getitem(packed, (Ellipsis, slice(0, m * k))), lead + (m, k))
    s = getitem(packed, (Ellipsis, slice(m * k, m * k + k)))
    vh = reshape(getitem(packed, (Ellipsis, slice(m * k + k, None))), lead + (k, n))
    return u, s, vh


@composite(SVD)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    unsupported("np.linalg.svd", hermitian=hermitian or None)
    shape = _shape(a)
    if len(shape) < 2:
        raise np.linalg.LinAlgError(f"{len(shape)}-dimensional array given. Array must be at least two-dimensional")
    m, n = shape[-2:]
    if not compute_uv:
        return _svd_parts(apply(SVDVALS, a), m, n)[1]
    if full_matrices and m != n:
        raise NoGradientError(
            f"np.linalg.svd(full_matrices=True) of a {m}x{n} matrix: the extra singular vectors "
            "are not unique, so they have no gradient; pass full_matrices=False")
    return SVDResult(*_svd_parts(apply(SVD, a), m, n))


def svd_vjp(g, ans, a):
    # Townsend (2016). F_ij = 1 / (s_j^2 - s_i^2): repeated singular values give an
    # inf/NaN gradient (as JAX), and so does a zero one of a non-square matrix (the S^-1
    # terms), unless only S is used: U diag(gS) Vh then
    m, n = _shape(a)[-2:]
    k = min(m, n)
    gu, gs, gvh = _svd_parts(g, m, n)
    u, s, vh = _svd_parts(ans, m, n)
    if _values_only(s, gu, gvh, zero_too=m != n):
        return matmul(u * _row(gs), vh)
    f = _gaps(s * s, u)
    j = f * (matmul(T(u), gu) - matmul(T(gu), u))
    kk = f * (matmul(vh, T(gvh)) - matmul(gvh, T(vh)))
    ga = matmul(matmul(u, j * _row(s) + _diag(gs) + _col(s) * kk), vh)
    if m > k:  # (I - U U^T) gU S^-1 Vh (zero when U is square)
        ga = ga + matmul((gu - matmul(u, matmul(T(u), gu))) / _row(s), vh)
    if n > k:  # U S^-1 gVh (I - V V^T) (zero when V is square)
        ga = ga + matmul(u, (gvh - matmul(matmul(gvh, T(vh)), vh)) / _col(s))
    return ga


@composite(SVDVALS)
def svdvals(x, /):
    """``np.linalg.svdvals``: ``svd(x, compute_uv=False)``, recorded through the full svd,
    whose U and Vh the rule reuses."""
    return svd(x, compute_uv=False)


defvjp(SVD, svd_vjp,  # repeated singular values: inf/NaN, as JAX
       labels=("U (F*(U^T gU - gU^T U) S + diag(gS) + S F*(..)) Vh + ...",))
defvjp(SVDVALS, svd_vjp, labels=("U diag(upstream) Vh, U and Vh from the forward's svd",))


# -- qr -----------------------------------------------------------------------------------
def _qr(xp, a):
    q, r = xp.linalg.qr(a)
    return xp.concatenate([q, r], axis=-2)


QR = Primitive("qr", _qr)  # packed (..., m + n, n): Q over R (m >= n)


@composite(QR)
def qr(a, mode="reduced"):
    shape = _shape(a)
    if len(shape) < 2:
        raise np.linalg.LinAlgError(f"{len(shape)}-dimensional array given. Array must be at least two-dimensional")
    m, n = shape[-2:]
    if mode not in ("reduced", "complete", "r") or (mode == "complete" and m != n):
        raise NoGradientError(
            f"np.linalg.qr(mode={mode!r}) of a {m}x{n} matrix has no gradient rule in gradmagic; "
            "use mode='reduced' (or 'r')")
    if m < n:
        raise NoGradientError(
            f"np.linalg.qr of a wide {m}x{n} matrix has no gradient rule in gradmagic (as in "
            "JAX); take the QR of its transpose, or of a matrix with at least as many rows as columns")
    packed = apply(QR, a)
    q, r = getitem(packed, (Ellipsis, slice(0, m), slice(None))), getitem(packed, (Ellipsis, slice(m, None), slice(None)))
    return r if mode == "r" else QRResult(q, r)


def qr_vjp(g, ans, a):
    # (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q, copyltu: the lower triangle mirrored
    m, n = _shape(a)[-2:]
    gq, gr = getitem(g, (Ellipsis, slice(0, m), slice(None))), getitem(g, (Ellipsis, slice(m, None), slice(None)))
    q, r = getitem(ans, (Ellipsis, slice(0, m), slice(None))), getitem(ans, (Ellipsis, slice(m, None), slice(None)))
    big = matmul(r, T(gr)) - matmul(T(gq), q)
    copyltu = big * _mask(big, n) + T(big * _mask(big, n, -1))
    b = gq + matmul(q, copyltu)
    return T(solve(r, T(b)))


defvjp(QR, qr_vjp, labels=("(gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T",))


# -- pinv -------------------------------------------------------------------------------
def _pinv_portable(xp, a, **cut):  # the array API's has rtol only (None: its default, and NumPy's)
    return xp.linalg.pinv(a, rtol=cut.get("rcond", cut.get("rtol", 1e-15)))


PINV = Primitive("pinv", lambda xp, a, **cut: xp.linalg.pinv(a, **cut), portable=_pinv_portable)


def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    unsupported("np.linalg.pinv", hermitian=hermitian or None)
    cut = {} if rcond is None else {"rcond": rcond}
    if rtol is not np._NoValue:
        cut["rtol"] = rtol
    return apply(PINV, a, **cut)


def pinv_vjp(g, ans, a, **cut):
    # JAX's pinv rule: right where the rank is constant around a (no svd gauge, no F),
    # -P^T g P^T + P^T P g^T (I - P A) + (I - A P) g^T P P^T
    m, n = _shape(a)[-2:]
    p, pt, gt = ans, T(ans), T(g)
    ga = -matmul(matmul(pt, g), pt)
    ga = ga + matmul(matmul(matmul(pt, p), gt), -matmul(p, a) + _eye(a, n))  # a Tensor first: array
    return ga + matmul(matmul(-matmul(a, p) + _eye(a, m), gt), matmul(p, pt))  # API arrays refuse it


defvjp(PINV, pinv_vjp, labels=("-P^T g P^T + P^T P g^T (I - P A) + (I - A P) g^T P P^T",))


# -- norm (a composite) ----------------------------------------------------------------
def _vector_norm(x, ord, axis, keepdims):
    inf = float("inf")
    if ord is None or (not isinstance(ord, str) and ord == 2):
        return sqrt(ops.sum(x * x, axis=axis, keepdims=keepdims))  # at x = 0: NaN (0 * inf), as JAX
    if isinstance(ord, str):
        raise GradientValueError(f"np.linalg.norm(ord=...): expected None, a number, inf or -inf "
                                 f"for a vector norm, got {ord!r}")
    if ord == inf:  # ties share the gradient equally (max's rule), as JAX
        return ops.max(absolute(x), axis=axis, keepdims=keepdims)  # abs'(0) = 0, as JAX
    if ord == -inf:  # ties share the gradient equally (min's rule), as JAX
        return ops.min(absolute(x), axis=axis, keepdims=keepdims)
    if ord == 0:  # a count: piecewise constant, no gradient
        return ops.sum(ops.astype(ops.not_equal(x, 0), raw(x).dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return ops.sum(absolute(x), axis=axis, keepdims=keepdims)  # abs'(0) = 0, as JAX
    p = float(ord)  # at x = 0: NaN for p > 1 (0 * inf), as JAX
    return ops.sum(absolute(x) ** p, axis=axis, keepdims=keepdims) ** (1.0 / p)


def _matrix_norm(x, ord, row, col):
    inf = float("inf")
    if ord is None or ord in ("fro", "f"):
        return sqrt(ops.sum(x * x, axis=(row, col)))  # at x = 0: NaN (0 * inf), as JAX
    if ord in (2, -2, "nuc"):
        s = svd(moveaxis(x, (row, col), (-2, -1)), compute_uv=False)
        if ord == "nuc":  # repeated singular values are fine; a zero one has no gradient
            return ops.sum(s, axis=-1)
        # ties in the largest (smallest) singular value share the gradient, as JAX's max
        return ops.max(s, axis=-1) if ord == 2 else ops.min(s, axis=-1)
    if ord in (1, -1):
        reduce = ops.max if ord == 1 else ops.min  # ties share the gradient equally, as JAX
        return reduce(ops.sum(absolute(x), axis=row), axis=col - 1 if col > row else col)
    if ord in (inf, -inf):
        reduce = ops.max if ord == inf else ops.min  # ties share the gradient equally, as JAX
        return reduce(ops.sum(absolute(x), axis=col), axis=row - 1 if row > col else row)
    raise GradientValueError(f"np.linalg.norm(ord=...): expected None, 'fro', 'nuc', 1, -1, 2, "
                             f"-2, inf or -inf for a matrix norm, got {ord!r}")


@composite("d norm / dx")
def norm(x, ord=None, axis=None, keepdims=False):
    x = _float(x)
    nd = len(_shape(x))
    if axis is None:
        if ord is None:  # the 2-norm of every element, any ndim
            r = sqrt(ops.sum(x * x))  # at x = 0: NaN (0 * inf), as JAX
            return reshape(r, (1,) * nd) if keepdims else r
        if nd not in (1, 2):
            raise GradientValueError(f"np.linalg.norm(axis=None, ord={ord!r}): expected a 1-D or "
                                     f"2-D array, got {nd}-D (Improper number of dimensions to norm)")
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError:
            axis = tuple(axis)
    axis = tuple(operator.index(a) % nd if -nd <= a < nd else a for a in axis)
    if any(not 0 <= a < nd for a in axis):
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for array of dimension {nd}")
    if len(axis) == 1:
        return _vector_norm(x, ord, axis[0], bool(keepdims))
    if len(axis) != 2:
        raise GradientValueError(f"np.linalg.norm(axis=...): expected an int or a pair, got {axis!r}")
    row, col = axis
    if row == col:
        raise GradientValueError(f"np.linalg.norm(axis=...): duplicate axes given: {axis!r}")
    r = _matrix_norm(x, ord, row, col)
    if keepdims:
        shape = list(_shape(x))
        shape[row] = shape[col] = 1
        r = reshape(r, tuple(shape))
    return r


FUNCTIONS = {  # numpy function -> its differentiable form
    np.linalg.inv: inv, np.linalg.slogdet: slogdet, np.linalg.solve: solve,
    np.linalg.cholesky: cholesky, np.linalg.matrix_power: matrix_power,
    np.linalg.multi_dot: multi_dot, np.linalg.norm: norm, np.linalg.eigh: eigh,
    np.linalg.eigvalsh: eigvalsh, np.linalg.svd: svd, np.linalg.svdvals: svdvals, np.linalg.qr: qr,
    np.linalg.pinv: pinv,
}
