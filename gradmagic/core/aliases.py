"""NumPy 2's array-API spellings on Tensors: ``cumulative_sum`` and ``cumulative_prod``,
the products ``vecdot``, ``matvec`` and ``vecmat`` (generalized ufuncs, with their ``axes``,
``axis`` and ``keepdims``), ``np.fix``, and the ``np.linalg`` namesakes of functions NumPy
has elsewhere (``matrix_norm``, ``vector_norm``, ``cross``, ``outer``, ``diagonal``,
``trace``, ``matmul``, ``tensordot``, ``vecdot``), each with the array API's stricter
checks, which raise NumPy's own errors.

Each is the existing op or composite under another signature (``cumsum``, ``sum`` of a
product, ``matmul``, ``linalg.norm``, ``contract.cross`` ...), so it differentiates as
that does, to any order. ``FUNCTIONS`` maps NumPy's functions onto their forms here;
``UFUNC_FUNCTIONS`` the generalized ufuncs, which NumPy calls with keyword arguments.
"""

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._array_api import numpy_names
from .._backend import xp_of
from . import contract, linalg, ops, special
from .primitive import composite
from .tensor import raw


def _shape(x):
    return tuple(np.shape(raw(x)))


def _array(x, *others):
    """``x`` as an array of the module of the first Tensor among ``others`` when it is a list
    or a number (a Tensor or an array as it is)."""
    if hasattr(raw(x), "shape"):
        return x
    for o in others:
        if hasattr(raw(o), "shape"):
            return numpy_names(xp_of(raw(o))).asarray(np.asarray(x))
    return np.asarray(x)


# -- cumulative_sum, cumulative_prod -------------------------------------------------------
def _cumulative(scan, start, name):
    def cumulative(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        ops.unsupported(f"np.{name}", out=out)
        x = _array(x)
        nd = len(_shape(x))
        if axis is None:
            if nd > 1:
                raise ValueError("For arrays which have more than one dimension ``axis`` argument is required.")
            axis = 0
        axis = normalize_axis_index(int(axis), max(nd, 1))
        y = scan(x, axis=axis, dtype=dtype)
        if not include_initial:
            return y
        first = ops.getitem(ops.zeros_like(y), (slice(None),) * axis + (slice(0, 1),))
        return ops.concatenate([first + start, y], axis=axis)
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = (f"``np.{name}``: ``np.{scan.__name__}`` along ``axis`` (needed beyond 1-D), "
                          f"``include_initial`` putting the empty {'sum' if start == 0 else 'product'} "
                          f"({start}) first.")
    return composite("running " + ("sum" if start == 0 else "product") + " back")(cumulative)


cumulative_sum = _cumulative(ops.cumsum, 0, "cumulative_sum")
cumulative_prod = _cumulative(ops.cumprod, 1, "cumulative_prod")


# -- the generalized ufuncs: vecdot, matvec, vecmat --------------------------------------------
def _core_axes(name, axes, axis, keepdims, cores):
    """The core axes of each operand and of the output, as NumPy reads ``axes`` and ``axis``:
    ``cores`` is the number of core dimensions of each (input, input, output)."""
    if axes is not None and axis is not None:
        raise TypeError("cannot specify both 'axis' and 'axes'")
    if axis is not None:
        if cores != (1, 1, 0):
            raise TypeError(f"{name}: axis can only be used with a single shared core dimension, "
                            "not with the signature of this gufunc")
        axes = [(axis,), (axis,)] + ([(axis,)] if keepdims else [])
    if axes is None:
        axes = [tuple(range(-c, 0)) for c in cores if c] + ([(-1,)] if keepdims else [])
    if keepdims and cores[:2] != (1, 1):
        raise TypeError(f"{name} does not support keepdims")
    axes = [tuple(a) if isinstance(a, (tuple, list)) else (a,) for a in axes]
    return [tuple(operator.index(i) for i in a) for a in axes]


def _moved(x, axes):
    nd = len(_shape(x))
    src = [normalize_axis_index(a, nd) for a in axes]
    return ops.moveaxis(x, src, list(range(-len(src), 0))) if src != list(range(nd - len(src), nd)) else x


def _check_core(name, signature, k, dim, got, want):
    if got != want:
        raise ValueError(f"{name}: Input operand {k} has a mismatch in its core dimension {dim}, with "
                         f"gufunc signature {signature} (size {got} is different from {want})")


def _gufunc_args(name, x1, x2, kwargs):
    dtype = kwargs.pop("dtype", None)
    ops.unsupported(f"np.{name}", **{k: v for k, v in kwargs.items() if k not in ("axis", "axes", "keepdims")})
    x1, x2 = _array(x1, x2), _array(x2, x1)
    if dtype is not None:
        x1, x2 = ops.astype(x1, dtype), ops.astype(x2, dtype)
    return x1, x2


def _place_out(y, axes, out_core, keepdims):
    """The output's core axes (or ``keepdims``' ones) moved to where ``axes`` puts them."""
    if len(axes) < 3 or not (out_core or keepdims):
        return y
    nd = len(_shape(y))
    count = max(out_core, 1)
    dst = [normalize_axis_index(a, nd) for a in axes[2]]
    return ops.moveaxis(y, list(range(nd - count, nd)), dst)


@composite("upstream * {1}", "upstream * {0}")
def vecdot(x1, x2, /, **kwargs):
    """``np.vecdot``: the dot products of the vectors along the core axis (``axis``, last by
    default), the other axes broadcast; ``keepdims`` keeps it, of size 1."""
    x1, x2 = _gufunc_args("vecdot", x1, x2, kwargs)
    keepdims = bool(kwargs.get("keepdims", False))
    axes = _core_axes("vecdot", kwargs.get("axes"), kwargs.get("axis"), keepdims, (1, 1, 0))
    a, b = _moved(x1, axes[0]), _moved(x2, axes[1])
    _check_core("vecdot", "(n),(n)->()", 1, 0, _shape(b)[-1], _shape(a)[-1])
    return _place_out(ops.sum(a * b, axis=-1, keepdims=keepdims), axes, 0, keepdims)


@composite("upstream * {1}", "{0}.T @ upstream")
def matvec(x1, x2, /, **kwargs):
    """``np.matvec``: each matrix of ``x1`` times the vector of ``x2`` (``axes`` as NumPy's)."""
    x1, x2 = _gufunc_args("matvec", x1, x2, kwargs)
    axes = _core_axes("matvec", kwargs.get("axes"), kwargs.get("axis"), bool(kwargs.get("keepdims")), (2, 1, 1))
    a, v = _moved(x1, axes[0]), _moved(x2, axes[1])
    _check_core("matvec", "(m,n),(n)->(m)", 1, 0, _shape(v)[-1], _shape(a)[-1])
    y = ops.getitem(ops.matmul(a, ops.expand_dims(v, -1)), (Ellipsis, 0))
    return _place_out(y, axes, 1, False)


@composite("upstream @ {1}.T", "upstream * {0}")
def vecmat(x1, x2, /, **kwargs):
    """``np.vecmat``: the vector of ``x1`` times each matrix of ``x2``."""
    x1, x2 = _gufunc_args("vecmat", x1, x2, kwargs)
    axes = _core_axes("vecmat", kwargs.get("axes"), kwargs.get("axis"), bool(kwargs.get("keepdims")), (1, 2, 1))
    v, a = _moved(x1, axes[0]), _moved(x2, axes[1])
    _check_core("vecmat", "(n),(n,m)->(m)", 1, 0, _shape(a)[-2], _shape(v)[-1])
    y = ops.getitem(ops.matmul(ops.expand_dims(v, -2), a), (Ellipsis, 0, slice(None)))
    return _place_out(y, axes, 1, False)


# -- np.linalg's namesakes -------------------------------------------------------------------
def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """``np.linalg.matrix_norm``: ``norm`` over the last two axes."""
    return linalg.norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


@composite("d norm / dx")
def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """``np.linalg.vector_norm``: ``norm`` of the vectors along ``axis`` (None: of all the
    elements; a tuple: of those axes together), as NumPy computes it."""
    x = _array(x)
    shape = list(_shape(x))
    nd = len(shape)
    if axis is None:
        x, along = ops.reshape(x, (-1,)), 0
    elif isinstance(axis, tuple):
        axes = [normalize_axis_index(operator.index(a), nd) for a in axis]
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        rest = [i for i in range(nd) if i not in axes]
        size = int(np.prod([shape[i] for i in axes], dtype=int))
        x = ops.reshape(ops.transpose(x, list(axis) + rest), (size, *[shape[i] for i in rest]))
        along = 0
    else:
        along = axis
    y = linalg.norm(x, ord=ord, axis=along)
    if keepdims:
        kept = set(range(nd)) if axis is None else {normalize_axis_index(operator.index(a), nd) for a in (
            axis if isinstance(axis, tuple) else (axis,))}
        y = ops.reshape(y, tuple(1 if i in kept else n for i, n in enumerate(shape)))
    return y


def cross(x1, x2, /, *, axis=-1):
    """``np.linalg.cross``: ``np.cross`` of 3-vectors only."""
    x1, x2 = _array(x1, x2), _array(x2, x1)
    n1, n2 = _shape(x1)[axis], _shape(x2)[axis]
    if n1 != 3 or n2 != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they are "
                         f"{n1} and {n2} dimensional instead.")
    return contract.cross(x1, x2, axis=axis)


def outer(x1, x2, /):
    """``np.linalg.outer``: ``np.outer`` of 1-D arrays only."""
    x1, x2 = _array(x1, x2), _array(x2, x1)
    if len(_shape(x1)) != 1 or len(_shape(x2)) != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={len(_shape(x1))} and x2.ndim={len(_shape(x2))}.")
    return ops.outer(x1, x2)


def diagonal(x, /, *, offset=0):
    """``np.linalg.diagonal``: the diagonals of the last two axes."""
    return contract.diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """``np.linalg.trace``: the traces of the last two axes."""
    x = x if dtype is None else ops.astype(_array(x), dtype)
    return contract.trace(x, offset, axis1=-2, axis2=-1)


def matmul(x1, x2, /):
    """``np.linalg.matmul``: ``np.matmul``."""
    return ops.matmul(_array(x1, x2), _array(x2, x1))


def tensordot(x1, x2, /, *, axes=2):
    """``np.linalg.tensordot``: ``np.tensordot``."""
    return contract.tensordot(x1, x2, axes=axes)


def linalg_vecdot(x1, x2, /, *, axis=-1):
    """``np.linalg.vecdot``: ``np.vecdot`` along ``axis``."""
    return vecdot(x1, x2, axis=axis)


FUNCTIONS = {
    np.cumulative_sum: cumulative_sum, np.cumulative_prod: cumulative_prod, np.fix: special.fix,
    np.linalg.matrix_norm: matrix_norm, np.linalg.vector_norm: vector_norm, np.linalg.cross: cross,
    np.linalg.outer: outer, np.linalg.diagonal: diagonal, np.linalg.trace: trace,
    np.linalg.matmul: matmul, np.linalg.tensordot: tensordot, np.linalg.vecdot: linalg_vecdot,
}
UFUNC_FUNCTIONS = {np.vecdot: vecdot, np.matvec: matvec, np.vecmat: vecmat}  # ufunc -> its form here
