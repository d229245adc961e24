"""Contractions and diagonals of NumPy (tensordot, einsum, inner, kron, trace, diag,
tril ...), built on the op catalogue's primitives. ``FUNCTIONS`` maps each NumPy function
onto its form here; ``core/dispatch.py`` routes NumPy's calls on Tensors through it.

All but ``einsum`` are compositions of existing ops (``matmul``, ``transpose``,
``reshape``, ``getitem`` with integer index arrays, ``where`` with a constant mask,
``multiply``, ``stack``), so they need no rule of their own and differentiate to any
order. ``einsum`` is one primitive over a canonical form of its subscripts (explicit
output, no ``...``, no index repeated within an operand, no size-1 broadcasting): the
function below writes any subscripts that way first, with ``broadcast_to`` and
``diagonal``. Its rule is itself an einsum, so its second derivative works too.

Where a call is malformed, NumPy's own function is run on stand-ins of the arguments'
shapes, so that NumPy's own error comes through unchanged.
"""

import math
import string

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._array_api import numpy_names
from .._backend import kind, xp_of
from ..errors import GradientValueError, NoGradientError
from . import ops
from .ops import getitem, matmul, moveaxis, multiply, reshape, transpose, unsupported, where
from .primitive import Primitive, apply, composite, defvjp, variadic
from .tensor import Tensor, raw


# -- helpers ----------------------------------------------------------------------------
def _array(x):
    """A Tensor or an array as it is; anything else (a list, a Python number) as NumPy's."""
    if isinstance(x, Tensor) or (hasattr(x, "shape") and hasattr(x, "dtype")):
        return x
    return np.asarray(x)


def _xp(x):
    """NumPy's names on the array module of ``x``'s value."""
    return numpy_names(xp_of(raw(x)))


def _stand_in(a):
    if isinstance(a, (list, tuple)) and not isinstance(a, str):
        return type(a)(_stand_in(b) for b in a)
    a = raw(a)
    if hasattr(a, "shape") and hasattr(a, "dtype"):
        return np.broadcast_to(np.zeros((), dtype=np.float64), tuple(a.shape))
    return a


def _numpy_error(func, name, *args, **kwargs):
    """Raise the error NumPy's own ``func`` raises on these arguments (run on zero-strided
    stand-ins of their shapes), or else a ``GradientValueError`` naming ``name``."""
    func(*[_stand_in(a) for a in args], **{k: _stand_in(v) for k, v in kwargs.items()})
    raise GradientValueError(f"{name}: arguments of shapes "
                             f"{[tuple(getattr(raw(a), 'shape', ())) for a in args]} are "
                             "not supported on Tensors")


def _transpose(x, perm):
    perm = [int(p) for p in perm]
    return x if perm == list(range(len(perm))) else transpose(x, perm)


def _reshape(x, shape):
    return x if tuple(x.shape) == tuple(shape) else reshape(x, shape)


def _grid(x, rows, cols):
    """Row and column numbers of a ``rows x cols`` matrix, as ``(rows, 1)`` and ``(1, cols)``
    arrays of the module of ``x``."""
    xp = _xp(x)
    return xp.reshape(xp.arange(rows), (rows, 1)), xp.reshape(xp.arange(cols), (1, cols))


# -- contractions -----------------------------------------------------------------------
@composite("upstream · {1}", "{0} · upstream")
def tensordot(a, b, axes=2):
    """``np.tensordot``: the contracted axes moved together, then one ``matmul``."""
    a, b = _array(a), _array(b)
    sa, sb = tuple(a.shape), tuple(b.shape)
    try:
        if isinstance(axes, (int, np.integer)):
            n = int(axes)
            ax_a, ax_b = list(range(-n, 0)), list(range(0, n))
        else:
            ax_a, ax_b = axes
            ax_a = [ax_a] if isinstance(ax_a, (int, np.integer)) else list(ax_a)
            ax_b = [ax_b] if isinstance(ax_b, (int, np.integer)) else list(ax_b)
        ax_a = [normalize_axis_index(int(i), len(sa)) for i in ax_a]
        ax_b = [normalize_axis_index(int(i), len(sb)) for i in ax_b]
        ok = (len(ax_a) == len(ax_b) and len(set(ax_a)) == len(ax_a) and len(set(ax_b)) == len(ax_b)
              and all(sa[i] == sb[j] for i, j in zip(ax_a, ax_b)))
    except (ValueError, TypeError, IndexError):
        ok = False
    if not ok:
        _numpy_error(np.tensordot, "np.tensordot", a, b, axes)
    free_a = [i for i in range(len(sa)) if i not in ax_a]
    free_b = [j for j in range(len(sb)) if j not in ax_b]
    k = math.prod(sa[i] for i in ax_a)
    out_shape = tuple(sa[i] for i in free_a) + tuple(sb[j] for j in free_b)
    a2 = _reshape(_transpose(a, free_a + ax_a), (math.prod(sa[i] for i in free_a), k))
    b2 = _reshape(_transpose(b, ax_b + free_b), (k, math.prod(sb[j] for j in free_b)))
    return reshape(matmul(a2, b2), out_shape)


@composite("upstream · {1}", "{0} · upstream")
def inner(a, b):
    """``np.inner``: the sum over the last axes of both (a product, for a scalar)."""
    a, b = _array(a), _array(b)
    if len(a.shape) == 0 or len(b.shape) == 0:
        return multiply(a, b)
    if a.shape[-1] != b.shape[-1]:
        _numpy_error(np.inner, "np.inner", a, b)
    return tensordot(a, b, ([-1], [-1]))


@composite("upstream @ {1}.T", "{0}.T @ upstream")
def dot(a, b, out=None):
    """``np.dot``: a product with a scalar, ``matmul`` up to 2-D, and beyond it a sum over the
    last axis of ``a`` and the second-to-last of ``b`` (``tensordot``)."""
    unsupported("np.dot", out=out)
    na, nb = len(np.shape(raw(a))), len(np.shape(raw(b)))
    if na == 0 or nb == 0:
        return multiply(a, b)
    if na <= 2 and nb <= 2:
        return matmul(a, b)
    return tensordot(a, b, ([-1], [-2 if nb >= 2 else -1]))


@composite("upstream * {1}", "{0} * upstream")
def vdot(a, b):
    """``np.vdot``: the dot product of both, flattened (real arrays)."""
    a, b = _array(a), _array(b)
    if any(kind(x.dtype) == "c" for x in (a, b)):
        raise NoGradientError("np.vdot of complex arrays has no gradient rule in gradmagic "
                              "(it conjugates its first argument); use real arrays")
    if math.prod(a.shape) != math.prod(b.shape):
        _numpy_error(np.vdot, "np.vdot", a, b)
    return matmul(reshape(a, (-1,)), reshape(b, (-1,)))


@composite("blocks of upstream · {1}", "{0} · blocks of upstream")
def kron(a, b):
    """``np.kron``: ``a``'s axes interleaved with ``b``'s, multiplied, then merged."""
    a, b = _array(a), _array(b)
    nd = max(len(a.shape), len(b.shape))
    if nd == 0:
        return multiply(a, b)
    sa = (1,) * (nd - len(a.shape)) + tuple(a.shape)
    sb = (1,) * (nd - len(b.shape)) + tuple(b.shape)
    a2 = reshape(a, tuple(n for m in sa for n in (m, 1)))
    b2 = reshape(b, tuple(n for m in sb for n in (1, m)))
    return reshape(multiply(a2, b2), tuple(m * n for m, n in zip(sa, sb)))


def _times(x, y):
    return None if x is None or y is None else x * y


def _minus(x, y):
    return x if y is None else -y if x is None else x - y


@composite("{1} × upstream", "upstream × {0}")
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``np.cross`` of 3-vectors (and of 2-vectors, deprecated as in NumPy), from the
    components: getitem, multiply, subtract and stack."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _array(a), _array(b)
    try:
        axa = normalize_axis_index(int(axisa), len(a.shape), "axisa")
        axb = normalize_axis_index(int(axisb), len(b.shape), "axisb")
        na, nb = a.shape[axa], b.shape[axb]
        lead = np.broadcast_shapes(tuple(a.shape[:axa] + a.shape[axa + 1:]),
                                   tuple(b.shape[:axb] + b.shape[axb + 1:]))
        ok = na in (2, 3) and nb in (2, 3)
        axc = normalize_axis_index(int(axisc), len(lead) + 1, "axisc") if 3 in (na, nb) else None
    except (ValueError, TypeError, IndexError):
        ok = False
    if not ok:
        _numpy_error(np.cross, "np.cross", a, b, axisa, axisb, axisc)
    if 2 in (na, nb):  # deprecated in NumPy 2.0, refused by later ones: as this NumPy does
        np.cross(_stand_in(a), _stand_in(b), axisa, axisb, axisc)
    a, b = moveaxis(a, axa, -1), moveaxis(b, axb, -1)
    a0, a1, a2 = [getitem(a, (Ellipsis, i)) if i < na else None for i in range(3)]
    b0, b1, b2 = [getitem(b, (Ellipsis, i)) if i < nb else None for i in range(3)]
    c2 = a0 * b1 - a1 * b0
    if na == nb == 2:
        return c2
    c0 = _minus(_times(a1, b2), _times(a2, b1))
    c1 = _minus(_times(a2, b0), _times(a0, b2))
    out = ops.stack([c0, c1, c2], axis=-1)
    return out if axc == len(out.shape) - 1 else moveaxis(out, -1, axc)


# -- diagonals --------------------------------------------------------------------------
@composite("onto the diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """``np.diagonal``: the two axes merged, then indexed by one integer array."""
    a = _array(a)
    shape, nd = tuple(a.shape), len(a.shape)
    try:
        ax1 = normalize_axis_index(int(axis1), nd, "axis1")
        ax2 = normalize_axis_index(int(axis2), nd, "axis2")
        ok = nd >= 2 and ax1 != ax2
    except (ValueError, TypeError, IndexError):
        ok = False
    if not ok:
        _numpy_error(np.diagonal, "np.diagonal", a, offset, axis1, axis2)
    offset = int(offset)
    rows, cols = shape[ax1], shape[ax2]
    n = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    # the two axes first and merged, so that one integer array picks the diagonal (an index
    # every array module takes), then the diagonal's axis moved last, as NumPy has it
    rest = [i for i in range(nd) if i not in (ax1, ax2)]
    flat = _reshape(_transpose(a, [ax1, ax2] + rest), (rows * cols,) + tuple(shape[i] for i in rest))
    xp = _xp(a)
    picked = getitem(flat, (xp.arange(n) + max(-offset, 0)) * cols + xp.arange(n) + max(offset, 0))
    return _transpose(picked, list(range(1, nd - 1)) + [0])


@composite("identity")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """``np.trace``: the sum of the diagonal."""
    unsupported("np.trace", dtype=dtype, out=out)
    return ops.sum(diagonal(a, offset, axis1, axis2), axis=-1)


def _diag_matrix(v, k):
    """The square matrix with ``v`` on its ``k``-th diagonal and zeros elsewhere:
    ``v`` gathered at ``min(row, col)``, kept where ``col - row == k``."""
    n = v.shape[0]
    m = n + abs(k)
    r, c = _grid(v, m, m)
    xp = _xp(v)
    on = (c - r) == k
    if n == 0:
        return where(on, ops.broadcast_to(ops.sum(v), (m, m)), xp.zeros((), dtype=raw(v).dtype))
    index = xp.minimum(xp.minimum(r, c), n - 1)
    return where(on, getitem(v, index), xp.zeros((), dtype=raw(v).dtype))


@composite("diag back")
def diag(v, k=0):
    """``np.diag``: a 1-D ``v`` as a matrix with it on the ``k``-th diagonal; a 2-D one's
    ``k``-th diagonal."""
    v = _array(v)
    if len(v.shape) == 1:
        return _diag_matrix(v, int(k))
    if len(v.shape) == 2:
        return diagonal(v, k)
    _numpy_error(np.diag, "np.diag", v, k)


@composite("diagonal taken back")
def diagflat(v, k=0):
    """``np.diagflat``: ``v`` flattened, on the ``k``-th diagonal of a matrix."""
    return _diag_matrix(reshape(_array(v), (-1,)), int(k))


def _triangle(m, k, name, lower):
    m = _array(m)
    shape = tuple(m.shape)
    if len(shape) == 0:
        _numpy_error(getattr(np, name), f"np.{name}", m, k)
    rows, cols = (shape[-1], shape[-1]) if len(shape) == 1 else shape[-2:]
    r, c = _grid(m, rows, cols)
    keep = (c - r) <= int(k) if lower else (c - r) >= int(k)
    return where(keep, m, _xp(m).zeros((), dtype=raw(m).dtype))


@composite("[lower triangle]")
def tril(m, k=0):
    """``np.tril``: zeros above the ``k``-th diagonal (``where`` with a constant mask)."""
    return _triangle(m, k, "tril", True)


@composite("[upper triangle]")
def triu(m, k=0):
    """``np.triu``: zeros below the ``k``-th diagonal (``where`` with a constant mask)."""
    return _triangle(m, k, "triu", False)


# -- einsum -----------------------------------------------------------------------------
def _einsum(xp, *operands, subscripts, optimize=False):
    if xp is not np and not isinstance(optimize, (bool, str)):
        optimize = True  # an explicit contraction path is NumPy's form; others choose their own
    return xp.einsum(subscripts, *operands, optimize=optimize)


EINSUM = Primitive("einsum", _einsum)
LETTERS = string.ascii_uppercase + string.ascii_lowercase  # NumPy's sublist labels 0..51


class _Invalid(Exception):
    """Subscripts that NumPy would refuse."""


def _sublist(sub):
    try:
        return "".join("..." if s is Ellipsis else LETTERS[int(s)] for s in sub)
    except (TypeError, ValueError, IndexError):
        raise _Invalid from None


def _letters_of(sub, ndim, ell):
    """An operand's subscripts with its ``...`` written as the last of the letters ``ell``."""
    if "..." in sub:
        rest = sub.replace("...", "", 1)
        e = ndim - len(rest)
        if "." in rest or e < 0:
            raise _Invalid
        return sub.replace("...", ell[len(ell) - e:] if e else "", 1)
    if "." in sub or len(sub) != ndim:
        raise _Invalid
    return sub


def _canonical(subscripts, shapes):
    """``(input subscripts, output subscripts, letter sizes)`` with the ``...`` written
    as letters and the output written out, or ``_Invalid``."""
    s = subscripts.replace(" ", "")
    if s.count("->") > 1 or any(not (c.isalpha() and c in LETTERS) and c not in ".,->" for c in s):
        raise _Invalid
    lhs, arrow, rhs = s.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes) or ("-" in lhs + rhs or ">" in lhs + rhs):
        raise _Invalid
    spare = [c for c in LETTERS if c not in s]
    n_ell = max([len(sh) - len(sub.replace("...", "")) for sub, sh in zip(ins, shapes)
                          if "..." in sub] + [0])
    if n_ell > len(spare):
        raise _Invalid
    ell = "".join(spare[:n_ell])
    subs = [_letters_of(sub, len(sh), ell) for sub, sh in zip(ins, shapes)]
    if not arrow:
        letters = lhs.replace(".", "").replace(",", "")
        out = ell + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    elif "..." in rhs:
        if rhs.count("...") > 1:
            raise _Invalid
        out = rhs.replace("...", ell)
    elif n_ell:
        raise _Invalid  # NumPy: the output has no '...' for the broadcast axes
    else:
        out = rhs
    if "." in out or len(set(out)) != len(out) or any(c not in "".join(subs) for c in out):
        raise _Invalid
    sizes = {}
    for sub, sh in zip(subs, shapes):
        mine = {}
        for c, n in zip(sub, sh):
            if mine.setdefault(c, n) != n:
                raise _Invalid  # a repeated index of two lengths in one operand
            m = sizes.get(c, 1)
            if n != 1 and m != 1 and n != m:
                raise _Invalid
            sizes[c] = n if m == 1 else m
    return subs, out, sizes


def _distinct(x, sub):
    """``x`` with each index its subscripts repeat taken once (as diagonals, moved last)."""
    while True:
        dup = next((c for c in sub if sub.count(c) > 1), None)
        if dup is None:
            return x, sub
        p1 = sub.index(dup)
        p2 = sub.index(dup, p1 + 1)
        x = diagonal(x, 0, p1, p2)
        sub = "".join(ch for i, ch in enumerate(sub) if i not in (p1, p2)) + dup


def einsum(*operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    """``np.einsum``, explicit or implicit, with ``...``, any number of operands, repeated
    indices (diagonals, traces) and the interleaved ``(a, [0, 1], b, [1, 2])`` form."""
    unsupported("np.einsum", out=out, dtype=dtype)
    original = operands
    try:
        if operands and isinstance(operands[0], str):
            subscripts, arrays = operands[0], list(operands[1:])
        else:
            pairs = operands[:-1] if len(operands) % 2 else operands
            arrays = list(pairs[0::2])
            subscripts = ",".join(_sublist(s) for s in pairs[1::2])
            if len(operands) % 2:
                subscripts += "->" + _sublist(operands[-1])
        arrays = [_array(a) for a in arrays]
        subs, output, sizes = _canonical(subscripts, [tuple(a.shape) for a in arrays])
    except _Invalid:
        _numpy_error(np.einsum, "np.einsum", *original)
    xs = []
    for k, (x, sub) in enumerate(zip(arrays, subs)):
        full = tuple(sizes[c] for c in sub)
        if tuple(x.shape) != full:
            x = ops.broadcast_to(x, full)
        x, subs[k] = _distinct(x, sub)
        xs.append(x)
    if optimize is not False:  # NumPy's contraction order (a path is for these operands only)
        optimize = optimize if isinstance(optimize, (bool, str)) else list(optimize)
        return apply(EINSUM, *xs, subscripts=",".join(subs) + "->" + output, optimize=optimize)
    return apply(EINSUM, *xs, subscripts=",".join(subs) + "->" + output)


def einsum_vjp(i, g, ans, *operands, subscripts, optimize=False):
    inputs, output = subscripts.split("->")
    inputs = inputs.split(",")
    mine = inputs[i]
    others = [s for k, s in enumerate(inputs) if k != i]
    have = set(output).union(*others)
    kept = "".join(c for c in mine if c in have)
    spec = ",".join([output] + others) + "->" + kept
    others = [o for k, o in enumerate(operands) if k != i]
    if optimize is not False:  # the forward's choice; a path of its own is no path here
        grad = apply(EINSUM, g, *others, subscripts=spec,
                     optimize=optimize if isinstance(optimize, (bool, str)) else "greedy")
    else:
        grad = apply(EINSUM, g, *others, subscripts=spec)
    if kept != mine:  # letters only this operand has: summed in the forward, broadcast back
        shape = tuple(operands[i].shape[k] if c in have else 1 for k, c in enumerate(mine))
        grad = ops.broadcast_to(reshape(grad, shape), operands[i].shape)
    return grad


defvjp(EINSUM, variadic(einsum_vjp), labels=("einsum of upstream with the others",))


FUNCTIONS = {  # numpy function -> its differentiable form
    np.dot: dot, np.tensordot: tensordot, np.einsum: einsum, np.inner: inner, np.vdot: vdot, np.kron: kron,
    np.cross: cross, np.trace: trace, np.diagonal: diagonal, np.diag: diag,
    np.diagflat: diagflat, np.tril: tril, np.triu: triu,
}
