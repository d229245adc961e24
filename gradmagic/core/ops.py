"""The op catalogue: the explicit list of ops gradmagic can differentiate.

Every op is a ``Primitive`` run through ``primitive.apply``: raw arrays in give a raw
array out (that is how rules run at NumPy speed), a Tensor in gives a recorded Tensor
out. Gradient rules are in ``vjps.py``. ``UFUNCS`` and ``FUNCTIONS`` map NumPy's ufuncs
and functions onto these ops; ``NONDIFF_FUNCTIONS`` are the NumPy functions that run on
Tensors but carry no gradient (shape queries, comparisons, ``argmax``...). NumPy's
dispatch into these tables, and Tensor's operators, are in ``dispatch.py``.
"""

from __future__ import annotations

import builtins
import operator

import numpy as np

from .._array_api import module_dtype, numpy_names, spelled_out
from .._array_api import scatter_add as array_api_scatter_add
from .._backend import kind, xp_of
from ..errors import GradientValueError, NoGradientError
from .primitive import Primitive, apply, binary, composite, result_class, unary
from .repeats import last_writes
from .tensor import Tensor, constant

UFUNCS = {}  # numpy ufunc -> Primitive


# Python's operators are several times faster than ufunc calls on NumPy scalars, and
# work on every array module.
def _pow(x, y):
    """``x ** y``; small whole exponents by multiplying, which NumPy's pow does 100x slower."""
    if type(y) is int and 2 < y < 5:
        return x * x * x if y == 3 else (x * x) * (x * x)
    return x ** y


_OPERATORS = {"add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
              "divide": operator.truediv, "power": _pow, "negative": operator.neg}


def _elementwise(name, nargs, differentiable=True, ufunc=None):
    prim = Primitive(name, differentiable=differentiable, op=_OPERATORS.get(name), elementwise=True)
    UFUNCS[ufunc or getattr(np, name)] = prim
    if nargs == 1:
        def op(x):
            return unary(prim, x)
    else:
        def op(x, y):
            return binary(prim, x, y)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}``, as ``np.{name}``{'' if differentiable else ' (no gradient)'}."
    op.prim = prim
    return op


# -- elementwise, one argument ------------------------------------------------------
negative = _elementwise("negative", 1)
positive = _elementwise("positive", 1)
absolute = _elementwise("absolute", 1)
sign = _elementwise("sign", 1)
exp = _elementwise("exp", 1)
exp2 = _elementwise("exp2", 1)
expm1 = _elementwise("expm1", 1)
log = _elementwise("log", 1)
log1p = _elementwise("log1p", 1)
log2 = _elementwise("log2", 1)
log10 = _elementwise("log10", 1)
sqrt = _elementwise("sqrt", 1)
cbrt = _elementwise("cbrt", 1)
square = _elementwise("square", 1)
reciprocal = _elementwise("reciprocal", 1)
sin = _elementwise("sin", 1)
cos = _elementwise("cos", 1)
tan = _elementwise("tan", 1)
arcsin = _elementwise("arcsin", 1)
arccos = _elementwise("arccos", 1)
arctan = _elementwise("arctan", 1)
sinh = _elementwise("sinh", 1)
cosh = _elementwise("cosh", 1)
tanh = _elementwise("tanh", 1)
arcsinh = _elementwise("arcsinh", 1)
arccosh = _elementwise("arccosh", 1)
arctanh = _elementwise("arctanh", 1)
deg2rad = _elementwise("deg2rad", 1)
radians = _elementwise("radians", 1)
rad2deg = _elementwise("rad2deg", 1)
degrees = _elementwise("degrees", 1)
conjugate = _elementwise("conjugate", 1)  # of real values: the values (gradmagic is real-only)

# -- elementwise, two arguments -----------------------------------------------------
add = _elementwise("add", 2)
subtract = _elementwise("subtract", 2)
multiply = _elementwise("multiply", 2)
divide = _elementwise("divide", 2)
power = _elementwise("power", 2)
arctan2 = _elementwise("arctan2", 2)
hypot = _elementwise("hypot", 2)
maximum = _elementwise("maximum", 2)
minimum = _elementwise("minimum", 2)
logaddexp = _elementwise("logaddexp", 2)
logaddexp2 = _elementwise("logaddexp2", 2)
remainder = _elementwise("remainder", 2)  # also np.mod and %
fmod = _elementwise("fmod", 2)

# -- elementwise, no gradient (the result is not connected to the tape) --------------
equal = _elementwise("equal", 2, False)
not_equal = _elementwise("not_equal", 2, False)
less = _elementwise("less", 2, False)
less_equal = _elementwise("less_equal", 2, False)
greater = _elementwise("greater", 2, False)
greater_equal = _elementwise("greater_equal", 2, False)
logical_and = _elementwise("logical_and", 2, False)
logical_or = _elementwise("logical_or", 2, False)
logical_xor = _elementwise("logical_xor", 2, False)
logical_not = _elementwise("logical_not", 1, False)
floor_divide = _elementwise("floor_divide", 2, False)
isnan = _elementwise("isnan", 1, False)
isinf = _elementwise("isinf", 1, False)
isfinite = _elementwise("isfinite", 1, False)
signbit = _elementwise("signbit", 1, False)
floor = _elementwise("floor", 1, False)
ceil = _elementwise("ceil", 1, False)
trunc = _elementwise("trunc", 1, False)
rint = _elementwise("rint", 1, False)
bitwise_and = _elementwise("bitwise_and", 2, False)
bitwise_or = _elementwise("bitwise_or", 2, False)
bitwise_xor = _elementwise("bitwise_xor", 2, False)
invert = _elementwise("invert", 1, False)


# -- stable helpers -------------------------------------------------------------------
def _sigmoid(xp, x):
    e = xp.exp(-xp.abs(x))
    return xp.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(xp, x):
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


def _logsumexp(xp, x, axis=None, keepdims=False):
    m = xp.max(x, axis=axis, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    out = xp.log(xp.sum(xp.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else xp.reshape(out, reduced_shape(x.shape, axis, False))


SIGMOID = Primitive("sigmoid", _sigmoid, elementwise=True)
SOFTPLUS = Primitive("softplus", _softplus, elementwise=True)
LOGSUMEXP = Primitive("logsumexp", _logsumexp)


def sigmoid(x) -> Tensor:
    """``1 / (1 + exp(-x))``, computed without overflow for any ``x``.

    >>> float(gm.sigmoid(gm.constant(0.0)))
    0.5
    """
    return apply(SIGMOID, x)


def softplus(x) -> Tensor:
    """``log(1 + exp(x))`` without overflow: ``softplus(100.0)`` is 100, its gradient 1.

    >>> float(gm.softplus(gm.constant(100.0)))
    100.0
    """
    return apply(SOFTPLUS, x)


def logsumexp(x, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
    """``log(sum(exp(x), axis))`` without overflow.

    >>> round(float(gm.logsumexp(gm.constant([1000.0, 1000.0]))), 3)
    1000.693
    """
    return apply(LOGSUMEXP, x, axis=axis_arg(axis), keepdims=bool(keepdims))


# -- reductions -----------------------------------------------------------------------
def axis_arg(axis):
    if axis is None or isinstance(axis, int):
        return axis
    if isinstance(axis, Tensor):
        axis = axis.value.tolist()
    return tuple(int(a) for a in axis) if isinstance(axis, (tuple, list)) else int(axis)


def axes_of(axis, ndim):
    """``axis`` (None, int or tuple, negatives allowed) as a sorted tuple of axes."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else axis
    return tuple(sorted(a % ndim if ndim else 0 for a in axes))


def reduced_shape(shape, axis, keepdims):
    axes = axes_of(axis, len(shape))
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _sum(xp, x, axis=None, keepdims=False):
    if type(x) is np.ndarray and x.dtype.kind == "f":  # np.sum's own reduction, less its Python
        return np.add.reduce(x, axis, None, None, keepdims)
    return xp.sum(x, axis=axis, keepdims=keepdims)


SUM = Primitive("sum", _sum)
MEAN = Primitive("mean", lambda xp, x, axis=None, keepdims=False: xp.mean(x, axis=axis, keepdims=keepdims))
PROD = Primitive("prod", lambda xp, x, axis=None, keepdims=False: xp.prod(x, axis=axis, keepdims=keepdims))
MAX = Primitive("max", lambda xp, x, axis=None, keepdims=False: xp.max(x, axis=axis, keepdims=keepdims))
MIN = Primitive("min", lambda xp, x, axis=None, keepdims=False: xp.min(x, axis=axis, keepdims=keepdims))
VAR = Primitive("var", lambda xp, x, axis=None, ddof=0, keepdims=False:
                xp.var(x, axis=axis, ddof=ddof, keepdims=keepdims))
STD = Primitive("std", lambda xp, x, axis=None, ddof=0, keepdims=False:
                xp.std(x, axis=axis, ddof=ddof, keepdims=keepdims))
# NumPy scans a 0-d x as a 1-d one, with any axis (CuPy refuses an axis there): so do these
CUMSUM = Primitive("cumsum", lambda xp, x, axis=None: xp.cumsum(x, axis=axis if x.ndim else None))
CUMPROD = Primitive("cumprod", lambda xp, x, axis=None: xp.cumprod(x, axis=axis if x.ndim else None))


def unsupported(fn, **given):
    """Refuse NumPy keyword arguments that have no meaning on Tensors (``out=``, ``dtype=``),
    saying what to do instead."""
    for name, value in given.items():
        if value is not None and value is not np._NoValue:
            raise NoGradientError(
                f"{fn}({name}=...): gradmagic does not support {name}= on Tensors "
                f"(got {value!r:.40}); leave it out{_FIX.get(name, '')}")


_FIX = {"out": " and use the returned Tensor (Tensors are immutable)",
        "dtype": " and cast with x.astype(dtype)",
        "where": "; mask with np.where(mask, x, 0) first",
        "initial": "; combine with np.maximum/np.minimum instead"}


def _reduction(prim, fn_name):
    def reduce(x, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
        unsupported(f"np.{fn_name}", dtype=dtype, out=out, initial=initial, where=where)
        return apply(prim, x, axis=axis_arg(axis), keepdims=bool(keepdims))
    reduce.__name__ = reduce.__qualname__ = fn_name
    reduce.__doc__ = f"``np.{fn_name}(x, axis=None, keepdims=False)``, recorded."
    return reduce


sum = _reduction(SUM, "sum")
mean = _reduction(MEAN, "mean")
prod = _reduction(PROD, "prod")
max = _reduction(MAX, "max")
min = _reduction(MIN, "min")


def var(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    unsupported("np.var", dtype=dtype, out=out, where=where, mean=mean, correction=correction)
    return apply(VAR, x, axis=axis_arg(axis), ddof=ddof, keepdims=bool(keepdims))


def std(x, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None,
        correction=None):
    unsupported("np.std", dtype=dtype, out=out, where=where, mean=mean, correction=correction)
    return apply(STD, x, axis=axis_arg(axis), ddof=ddof, keepdims=bool(keepdims))


def _scan(prim, fn_name):
    def scan(x, axis=None, dtype=None, out=None):
        unsupported(f"np.{fn_name}", out=out)  # dtype=: the values cast first, as NumPy does
        return apply(prim, x if dtype is None else astype(x, dtype), axis=axis_arg(axis))
    scan.__name__ = scan.__qualname__ = fn_name
    scan.__doc__ = f"``np.{fn_name}(x, axis=None, dtype=None)``, recorded; no axis: of the flattened values."
    return scan


cumsum = _scan(CUMSUM, "cumsum")
cumprod = _scan(CUMPROD, "cumprod")


# -- shape --------------------------------------------------------------------------
RESHAPE = Primitive("reshape", lambda xp, x, shape: xp.reshape(x, shape))
TRANSPOSE = Primitive("transpose", lambda xp, x, axes=None: xp.transpose(x, axes))
SQUEEZE = Primitive("squeeze", lambda xp, x, axis=None: xp.squeeze(x, axis=axis))
EXPAND_DIMS = Primitive("expand_dims", lambda xp, x, axis: xp.expand_dims(x, axis))
BROADCAST_TO = Primitive("broadcast_to", lambda xp, x, shape: xp.broadcast_to(x, shape))
FLIP = Primitive("flip", lambda xp, x, axis=None: xp.flip(x, axis=axis))
CONCATENATE = Primitive("concatenate", lambda xp, *xs, axis=0: xp.concatenate(xs, axis=axis))
STACK = Primitive("stack", lambda xp, *xs, axis=0: xp.stack(xs, axis=axis))


def _astype(xp, x, dtype):
    return x.astype(dtype)


def _astype_portable(xp, x, dtype):  # the array API has xp.astype and no method
    return xp.astype(x, module_dtype(xp, dtype))


ASTYPE = Primitive("astype", _astype, elementwise=True, portable=_astype_portable)
CAST = Primitive("cast", _astype, differentiable=False, portable=_astype_portable)
IDENTITY = Primitive("identity", lambda xp, x: x, elementwise=True)


def shape_arg(shape):
    if isinstance(shape, Tensor):
        shape = shape.value.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


def reshape(x, shape=None, order="C", newshape=None, copy=None):
    if order != "C":
        raise NoGradientError(f"np.reshape(order={order!r}): only order='C' is supported on Tensors")
    return apply(RESHAPE, x, shape=shape_arg(newshape if shape is None else shape))


def transpose(x, axes=None):
    return apply(TRANSPOSE, x, axes=None if axes is None else tuple(int(a) for a in axes))


def swapaxes(x, axis1, axis2):
    if not isinstance(x, Tensor) and len(_shape(x)) == 2 and (axis1 - axis2) % 2:
        return x.T  # a raw matrix's two axes (a matmul rule's): .T, a view at C speed
    perm = list(range(_ndim(x)))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return transpose(x, perm)


def moveaxis(x, source, destination):
    n = _ndim(x)
    src = [s % n for s in ((source,) if isinstance(source, int) else source)]
    dst = [d % n for d in ((destination,) if isinstance(destination, int) else destination)]
    perm = [a for a in range(n) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return transpose(x, perm)


def squeeze(x, axis=None):
    return apply(SQUEEZE, x, axis=axis_arg(axis))


def expand_dims(x, axis):
    return apply(EXPAND_DIMS, x, axis=axis_arg(axis))


def broadcast_to(x, shape, subok=False):
    return apply(BROADCAST_TO, x, shape=shape_arg(shape))


def ravel(x, order="C"):
    return reshape(x, (-1,), order=order)


def flip(x, axis=None):
    return apply(FLIP, x, axis=axis_arg(axis))


def concatenate(arrays, axis=0, out=None, dtype=None, casting=None):
    unsupported("np.concatenate", out=out, dtype=dtype, casting=casting)
    arrays = list(arrays)
    if axis is None:
        arrays, axis = [reshape(a, (-1,)) for a in arrays], 0
    return apply(CONCATENATE, *arrays, axis=int(axis))


def stack(arrays, axis=0, out=None, dtype=None, casting=None):
    unsupported("np.stack", out=out, dtype=dtype, casting=casting)
    return apply(STACK, *arrays, axis=int(axis))


@composite("concatenate")
def split(x, indices_or_sections, axis=0):
    n = _shape(x)[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        k = int(indices_or_sections)
        if k <= 0 or n % k:
            raise GradientValueError(f"np.split: an axis of length {n} does not split into {k} equal parts")
        bounds = [i * (n // k) for i in range(k + 1)]
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    lead = (slice(None),) * (axis % _ndim(x))
    return [getitem(x, lead + (slice(a, b), ...)) for a, b in zip(bounds[:-1], bounds[1:])]


def astype(x, dtype):
    """``x.astype(dtype)``; a cast to a non-floating dtype carries no gradient. ``dtype``
    is anything NumPy reads as one, or a dtype of the value's own module."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:  # an array-API module's own dtype (array_api_strict.float32)
        pass
    return apply(ASTYPE if kind(dtype) in "fc" else CAST, x, dtype=dtype)


def identity(x):
    return apply(IDENTITY, x)


def _shape(x):
    return tuple(x.shape) if hasattr(x, "shape") else ()


def _ndim(x):
    return len(_shape(x))


# -- indexing ---------------------------------------------------------------------------
GETITEM = Primitive("getitem", lambda xp, x, index: x[index])


def _scatter_add(xp, g, shape, index, accumulate):
    out = xp.zeros(shape, dtype=g.dtype)
    if accumulate:
        xp.add.at(out, index, g)
    else:
        out[index] = g
    return out


def _scatter_add_portable(xp, g, shape, index, accumulate):
    """The same for modules without ``add.at`` or assignment through every index."""
    at = getattr(getattr(xp, "add", None), "at", None)
    if not accumulate or at is not None:
        out = xp.zeros(shape, dtype=g.dtype)
        try:
            if accumulate:
                at(out, index, g)
            else:
                out[index] = g
            return out
        except (IndexError, TypeError):  # array_api_strict: no None in an assigned index
            pass
    return array_api_scatter_add(xp, g, shape, index)


SCATTER_ADD = Primitive("scatter_add", _scatter_add, portable=_scatter_add_portable)


def _index_part(i, xp):
    if isinstance(i, Tensor):
        return i.value
    if isinstance(i, list):
        return xp.asarray(i)
    return i


def getitem(x, index):
    """``x[index]`` with slices, ints, None, Ellipsis, integer arrays and boolean masks."""
    value = getattr(x, "value", x)
    xp = xp_of(value)
    index = (tuple(_index_part(i, xp) for i in index) if isinstance(index, tuple)
             else _index_part(index, xp))
    if numpy_names(xp) is not xp:
        index = spelled_out(index, _shape(value), numpy_names(xp))
    return apply(GETITEM, x, index=index)


def scatter_add(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index`` (repeated indices add up): the
    gradient of ``x[index]``."""
    parts = index if isinstance(index, tuple) else (index,)
    accumulate = builtins.any(getattr(i, "dtype", None) is not None and kind(i.dtype) in "iu"
                              and i.ndim > 0 for i in parts)
    return apply(SCATTER_ADD, g, shape=shape, index=index, accumulate=accumulate)


def _placed(x, index, values):
    """``values`` broadcast to the shape of ``x[index]``, in ``x``'s array module."""
    xp = xp_of(getattr(x, "value", x))
    spot = xp.zeros(_shape(x), dtype=bool)
    spot[index] = True
    if not isinstance(values, Tensor):
        values = xp.asarray(values, dtype=getattr(x, "dtype", None))
    return spot, broadcast_to(values, spot[index].shape)


def index_set(x, index, values):
    """``x`` with ``x[index] = values`` (broadcast), as a new value differentiable in both:
    what PyTorch's indexed assignment and JAX's ``x.at[index].set`` compute."""
    spot, part = _placed(x, index, values)
    keep = last_writes(_shape(x), index)  # an element named twice holds its last value only
    if keep is not None:
        part = where(xp_of(spot).asarray(keep), part, 0)
    return where(spot, scatter_add(part, _shape(x), index), x)


def index_add(x, index, values):
    """``x`` with ``values`` added at ``index``, repeated indices adding up (PyTorch's
    ``index_add_``, JAX's ``x.at[index].add``)."""
    return x + scatter_add(_placed(x, index, values)[1], _shape(x), index)


# -- selection ------------------------------------------------------------------------
WHERE = Primitive("where", lambda xp, c, x, y: xp.where(c, x, y), elementwise=True)
CLIP = Primitive("clip", lambda xp, x, lo, hi: xp.clip(x, lo, hi), elementwise=True)


def where(condition, x=None, y=None):
    """``np.where(condition, x, y)``: gradients flow to ``x`` where ``condition`` holds and
    to ``y`` elsewhere. With one argument, the indices where it holds (no gradient)."""
    if x is None and y is None:
        return nondiff(np.nonzero, (condition,), {})
    return apply(WHERE, condition, x, y)


def clip(x, a_min=None, a_max=None, out=None, min=None, max=None, **kwargs):
    unsupported("np.clip", out=out)
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    return apply(CLIP, x, lo, hi)


# -- linear algebra -------------------------------------------------------------------
MATMUL = Primitive("matmul", op=operator.matmul)
UFUNCS[np.matmul] = MATMUL
OUTER = Primitive("outer", lambda xp, a, b: xp.outer(a, b))


def matmul(a, b):
    return binary(MATMUL, a, b)


def outer(a, b, out=None):
    unsupported("np.outer", out=out)
    return apply(OUTER, a, b)


# -- values that carry no gradient ----------------------------------------------------
def zeros_like(x):
    """Zeros of ``x``'s shape and dtype: a constant, never connected to a tape."""
    if isinstance(x, Tensor):
        return Tensor(xp_of(x.value).zeros(x.value.shape, dtype=x.value.dtype))
    return xp_of(x).zeros(_shape(x), dtype=x.dtype)


def ones_like(x):
    if isinstance(x, Tensor):
        return Tensor(xp_of(x.value).ones(x.value.shape, dtype=x.value.dtype))
    return xp_of(x).ones(_shape(x), dtype=x.dtype)


def stop_gradient(x) -> Tensor:
    """The value of ``x`` as a new Tensor that no tape follows back: gradients stop here.

    >>> x = gm.constant(3.0)
    >>> with gm.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * gm.stop_gradient(x)
    >>> float(tape.gradient(y, x))
    3.0
    """
    return Tensor(x.value) if isinstance(x, Tensor) else constant(x)


def nondiff(func, args, kwargs):
    """Run a NumPy function on the values; array results come back as unconnected Tensors."""
    def raw(a):
        if isinstance(a, (list, tuple)):
            return type(a)(raw(b) for b in a)
        return a.value if isinstance(a, Tensor) else a
    cls = result_class([b for a in args for b in (a if isinstance(a, (list, tuple)) else (a,))])
    args = [raw(a) for a in args]
    kwargs = {k: raw(v) for k, v in kwargs.items()}
    first = next((a for a in args if hasattr(a, "shape")), None)
    xp = numpy_names(xp_of(first))
    sub = func.__module__.rpartition(".")[2]  # another module's function of that name and place
    f = func if xp is np else getattr(getattr(xp, sub) if sub in ("linalg", "fft") else xp, func.__name__)
    return _wrap_nondiff(f(*args, **kwargs), cls)


def _wrap_nondiff(r, cls):
    if isinstance(r, tuple):
        return tuple(_wrap_nondiff(a, cls) for a in r)
    if hasattr(r, "shape") and hasattr(r, "dtype") and not isinstance(r, np.generic):
        t = cls.__new__(cls)  # of the inputs' class (a dialect's tensors stay its own)
        t.value = r
        return t
    return r


FUNCTIONS = {
    np.sum: sum, np.mean: mean, np.prod: prod, np.max: max, np.min: min, np.amax: max,
    np.amin: min, np.var: var, np.std: std, np.cumsum: cumsum, np.cumprod: cumprod,
    np.reshape: reshape, np.transpose: transpose, np.swapaxes: swapaxes, np.moveaxis: moveaxis,
    np.squeeze: squeeze, np.expand_dims: expand_dims, np.broadcast_to: broadcast_to,
    np.ravel: ravel, np.flip: flip, np.concatenate: concatenate, np.stack: stack, np.split: split,
    np.where: where, np.clip: clip, np.outer: outer,
}

NONDIFF_FUNCTIONS = {
    np.shape, np.ndim, np.size, np.argmax, np.argmin, np.argsort, np.argwhere, np.nonzero,
    np.flatnonzero, np.zeros_like, np.ones_like, np.full_like, np.empty_like, np.allclose,
    np.isclose, np.array_equal, np.count_nonzero, np.any, np.all, np.round, np.around,
    np.result_type, np.iscomplexobj, np.isrealobj, np.isscalar, np.searchsorted,
}
