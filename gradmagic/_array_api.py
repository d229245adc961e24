"""NumPy's names on array-API modules: the engine is written with NumPy's names
(``arccos``, ``concatenate``, ``var(ddof=)``), which CuPy mirrors. Any other module (one
that only speaks the array API standard, such as ``array_api_strict``) is seen through
``numpy_names(xp)``: the same names and signatures, each resolved once per module to the
module's own function, its array-API spelling (``acos``, ``concat``, ``var(correction=)``)
or a portable fallback written with array-API calls, or else to a function that raises a
``BackendError`` naming both. ``spelled_out`` writes NumPy's implicit indexing out as the
array API wants it.
"""

import math

import numpy as np

from ._backend import kind
from .errors import BackendError

_NUMPY_LIKE = ("numpy", "cupy")  # modules that mirror NumPy's names and signatures

# NumPy's name -> the array API's, where only the spelling differs
ALIASES = {
    "absolute": "abs", "arccos": "acos", "arcsin": "asin", "arctan": "atan",
    "arctan2": "atan2", "arccosh": "acosh", "arcsinh": "asinh", "arctanh": "atanh",
    "power": "pow", "amax": "max", "amin": "min", "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "rint": "round", "around": "round", "true_divide": "divide", "conjugate": "conj",
}

def _counts(xp, x):
    """NumPy sums and multiplies booleans as integers; the array API refuses them."""
    return xp.astype(x, xp.int64) if kind(x.dtype) == "b" else x


def _normalize(axes, ndim):
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    return tuple(sorted(a % ndim for a in axes))


def _fallbacks():
    """``name -> make(xp)``: NumPy's function ``name`` built from array-API calls, for
    modules that spell it differently, give it another signature, or lack it."""

    def sum_(xp):
        return lambda x, axis=None, keepdims=False: xp.sum(_counts(xp, x), axis=axis, keepdims=keepdims)

    def prod(xp):
        return lambda x, axis=None, keepdims=False: xp.prod(_counts(xp, x), axis=axis, keepdims=keepdims)

    def var(xp):
        return lambda x, axis=None, ddof=0, keepdims=False: xp.var(
            x, axis=axis, correction=ddof, keepdims=keepdims)

    def std(xp):
        return lambda x, axis=None, ddof=0, keepdims=False: xp.std(
            x, axis=axis, correction=ddof, keepdims=keepdims)

    def cumulative(name):
        def make(xp):
            def scan(x, axis=None):
                x = _counts(xp, x)
                if axis is None:
                    return getattr(xp, name)(xp.reshape(x, (-1,)), axis=0)
                return getattr(xp, name)(x, axis=axis)
            return scan
        return make

    def argsort(xp):  # a stable sort is a valid result of every kind NumPy has
        def argsort(x, axis=-1, kind=None, stable=None):
            return xp.argsort(xp.reshape(x, (-1,)), axis=0) if axis is None else xp.argsort(x, axis=axis)
        return argsort

    def transpose(xp):
        def transpose(x, axes=None):
            return xp.permute_dims(x, tuple(range(x.ndim - 1, -1, -1)) if axes is None else tuple(axes))
        return transpose

    def squeeze(xp):
        def squeeze(x, axis=None):
            if axis is None:
                axis = tuple(i for i, n in enumerate(x.shape) if n == 1)
            return xp.squeeze(x, axis=axis)
        return squeeze

    def expand_dims(xp):
        def expand_dims(x, axis):
            ndim = x.ndim + (1 if isinstance(axis, int) else len(axis))
            new = _normalize(axis, ndim)
            rest = iter(x.shape)
            return xp.reshape(x, tuple(1 if i in new else next(rest) for i in range(ndim)))
        return expand_dims

    def concatenate(xp):
        return lambda arrays, axis=0: xp.concat(list(arrays), axis=axis)

    def outer(xp):
        return lambda a, b: xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1))

    def exp2(xp):
        return lambda x: xp.pow(2.0, x)

    def cbrt(xp):
        return lambda x: xp.sign(x) * xp.abs(x) ** (1 / 3)

    def fmod(xp):  # C's remainder: the sign of the dividend
        def fmod(x, y):
            r = xp.remainder(abs(x), abs(y))  # abs(): Python numbers too
            return xp.copysign(r, x) if kind(r.dtype) in "fc" else xp.where(x < 0, -r, r)
        return fmod

    def logaddexp2(xp):
        return lambda x, y: xp.logaddexp(x * math.log(2), y * math.log(2)) / math.log(2)

    def scale(factor):
        return lambda xp: (lambda x: x * factor)

    def array(xp):  # NumPy's array(): a copy
        return lambda value, dtype=None: xp.asarray(value, dtype=dtype, copy=True)

    return {"logaddexp2": logaddexp2, "deg2rad": scale(math.pi / 180), "radians": scale(math.pi / 180),
            "rad2deg": scale(180 / math.pi), "degrees": scale(180 / math.pi), "array": array,
            "sum": sum_, "prod": prod, "var": var, "std": std, "cumsum": cumulative("cumulative_sum"),
            "cumprod": cumulative("cumulative_prod"), "argsort": argsort, "transpose": transpose, "squeeze": squeeze, "expand_dims": expand_dims,
            "concatenate": concatenate, "outer": outer, "exp2": exp2, "cbrt": cbrt, "fmod": fmod}


FALLBACKS = _fallbacks()
# NumPy's signature differs from the array API's under the same name: always the fallback
_REDEFINED = frozenset({"sum", "prod", "var", "std", "transpose", "squeeze", "expand_dims", "argsort"})


def _missing(xp, name):
    def missing(*args, **kwargs):
        raise BackendError(
            f"np.{name} is not available for {xp.__name__} arrays: {xp.__name__} has neither "
            f"{name} nor an array-API counterpart, and gradmagic has no portable form of it; "
            "write it with other ops, or compute on NumPy or CuPy arrays")
    missing.__name__ = name
    return missing


def resolve(xp, name):
    """``xp``'s function for NumPy's ``name``, with NumPy's signature: its own when it has
    it (and the array API does not give that name another signature), else its array-API
    spelling, else a portable fallback, else a function that raises ``BackendError``."""
    if name not in _REDEFINED:
        f = getattr(xp, name, None)
        if f is None and name in ALIASES:
            f = getattr(xp, ALIASES[name], None)
        if f is not None:
            return f
    make = FALLBACKS.get(name)
    return make(xp) if make is not None else _missing(xp, name)


class NumPyNames:
    """An array-API module seen under NumPy's names; each name is resolved on first use
    and kept as an attribute, so later lookups cost what a module's do."""

    def __init__(self, xp):
        self.__dict__["_xp"] = xp
        self.__dict__["__name__"] = xp.__name__

    def __getattr__(self, name):  # only for names not resolved yet
        if name.startswith("__"):
            raise AttributeError(name)
        f = resolve(self._xp, name)
        self.__dict__[name] = f
        return f

    def __repr__(self):
        return f"<{self.__name__} under NumPy's names>"


_NAMES = {np: np}


def numpy_names(xp):
    """``xp`` itself when it mirrors NumPy (numpy, cupy); else a ``NumPyNames`` view of
    it, made once per module."""
    ns = _NAMES.get(xp)
    if ns is None:
        ns = xp if xp.__name__.partition(".")[0] in _NUMPY_LIKE else NumPyNames(xp)
        _NAMES[xp] = ns
    return ns


def module_dtype(xp, dtype):
    """``dtype`` as ``xp`` names it: a NumPy dtype becomes ``xp.<its name>``."""
    return getattr(xp, dtype.name) if isinstance(dtype, np.dtype) else dtype


def scatter_add(xp, g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index``, repeated positions adding up, in
    array-API calls only (no ``add.at``, no assignment through integer arrays).

    The same ``index`` applied to the flat positions ``arange(size)`` says where each
    element of ``g`` goes; sorted by position (stably), each run of equal positions is
    summed by a segmented scan in log2(len) rounds, and each position takes the total of
    its run (zero where none)."""
    size = math.prod(shape)
    pos = xp.reshape(xp.reshape(xp.arange(size, dtype=xp.int64), shape)[index], (-1,))
    values = xp.reshape(g, (-1,))
    n = values.shape[0]
    if n == 0:
        return xp.zeros(shape, dtype=g.dtype)
    order = xp.argsort(pos, stable=True)
    pos, values = xp.take(pos, order), xp.take(values, order)
    d = 1
    while d < n:  # values[i] becomes the sum of its run up to i
        same = pos[d:] == pos[:-d]
        values = xp.concat([values[:d], xp.where(same, values[d:] + values[:-d], values[d:])])
        d *= 2
    positions = xp.arange(size, dtype=xp.int64)
    last = xp.clip(xp.searchsorted(pos, positions, side="right") - 1, 0, n - 1)  # runs' ends
    hit = xp.take(pos, last) == positions
    out = xp.where(hit, xp.take(values, last), xp.zeros(size, dtype=g.dtype))
    return xp.reshape(out, shape)


def _is_int_array(i):
    return hasattr(i, "dtype") and kind(i.dtype) in "iu"


def spelled_out(index, shape, xp):
    """``index`` as the array API wants what NumPy implies, for modules that are not
    NumPy-like: a trailing ``...`` after ints and slices (``x[1]`` on a matrix), and
    integer arrays next to full slices (``x[idx]``, ``x[:, idx]`` on a matrix) turned
    into integer arrays on every axis, broadcast to NumPy's result shape."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(i is Ellipsis for i in parts) and any(_is_int_array(i) and i.ndim > 0 for i in parts):
        k = next(k for k, i in enumerate(parts) if i is Ellipsis)  # spelled out as full slices
        rest = parts[:k] + parts[k + 1:]
        full = (slice(None),) * (len(shape) - sum(i is not None for i in rest))
        index = parts = parts[:k] + full + parts[k + 1:]
    if all(i is None or isinstance(i, slice) or (isinstance(i, int) and not isinstance(i, bool))
                    for i in parts):
        if sum(i is not None for i in parts) < len(shape):
            return parts + (Ellipsis,)
        return index
    if len(parts) > len(shape) or not any(_is_int_array(i) and i.ndim > 0 for i in parts):
        return index
    advanced = [k for k, i in enumerate(parts)
                if _is_int_array(i) or (isinstance(i, int) and not isinstance(i, bool))]
    first, last = advanced[0], advanced[-1]
    block = parts[first:last + 1]
    full = slice(None)
    if len(advanced) != len(block) or not all(
            isinstance(i, slice) and i == full for i in parts[:first] + parts[last + 1:]):
        return index  # anything else is left to the module
    if len(parts) == len(shape) and first == 0 and last == len(parts) - 1:
        return index  # integer indices on every axis: the array API has them
    lead, trail = first, len(shape) - last - 1
    s = np.broadcast_shapes(*(tuple(i.shape) for i in block if _is_int_array(i)))
    out = []
    for axis in range(lead):
        out.append(xp.reshape(xp.arange(shape[axis], dtype=xp.int64),
                              (1,) * axis + (shape[axis],) + (1,) * (lead - axis - 1 + len(s) + trail)))
    for i in block:
        if _is_int_array(i):
            i = xp.reshape(i, (1,) * (lead + len(s) - i.ndim) + tuple(i.shape) + (1,) * trail)
        out.append(i)
    for k in range(trail):
        axis = last + 1 + k
        out.append(xp.reshape(xp.arange(shape[axis], dtype=xp.int64),
                              (1,) * (lead + len(s) + k) + (shape[axis],) + (1,) * (trail - k - 1)))
    return tuple(out)
