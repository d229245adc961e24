"""The methods of NumPy's ufuncs on Tensors: ``np.add.reduce``, ``np.maximum.accumulate``,
``np.multiply.outer`` ... (``ufunc_method``, which ``Tensor.__array_ufunc__`` calls for
every method but ``__call__``).

``reduce`` is the reduction of the same name (``np.add.reduce`` is ``np.sum`` with NumPy's
default ``axis=0``, ``multiply`` ``np.prod``, ``maximum``/``minimum`` ``np.max``/``np.min``,
``logaddexp``/``logaddexp2`` a ``logsumexp``); ``accumulate`` the scan (``add``: ``np.cumsum``,
``multiply``: ``np.cumprod``, ``maximum``/``minimum``: a running extreme whose gradient goes
to the element that holds it, as JAX's, the first of equal ones, as ``np.maximum`` gives a
tie to its first argument); ``outer`` the ufunc itself on ``A`` reshaped to broadcast against
``B``. A ufunc without a gradient rule (``np.logical_and.reduce``) runs as NumPy's own where
its result carries no gradient; ``at`` and ``reduceat``, and the methods of other ufuncs on a
Tensor a tape follows, raise ``NoGradientError`` saying what to write instead.
"""

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._array_api import numpy_names
from .._backend import to_host, xp_of
from ..errors import NoGradientError
from . import ops, reductions, statistics
from .context import differentiated
from .primitive import composite, result_class
from .tensor import Tensor, raw

NOVALUE = np._NoValue


def _logsumexp(base):
    """``logaddexp.reduce`` (``base`` e) or ``logaddexp2.reduce`` (``base`` 2)."""
    scale = math.log(base)

    def reduce(a, axis=0, dtype=None, out=None, keepdims=False, initial=NOVALUE, where=NOVALUE):
        ops.unsupported(f"np.logaddexp{'' if base == math.e else '2'}.reduce", out=out)
        a = a if dtype is None else ops.astype(a, dtype)
        mask = None if where is NOVALUE or where is True else raw(where)
        if mask is not None:
            a = ops.where(mask, a, -np.inf)
        x = a if base == math.e else a * scale
        r = ops.logsumexp(x, axis=axis, keepdims=keepdims)
        if initial is not NOVALUE and initial is not None:
            r = ops.logaddexp(r, initial * scale)
        return r if base == math.e else r / scale
    return reduce


def _extreme(reduce):
    def extreme(a, axis=0, dtype=None, out=None, keepdims=False, initial=NOVALUE, where=NOVALUE):
        return reduce(a if dtype is None else ops.astype(a, dtype), axis, out=out, keepdims=keepdims,
                      initial=initial, where=where)
    return extreme


REDUCE = {np.add: reductions.sum, np.multiply: reductions.prod,
          np.maximum: _extreme(reductions.max), np.minimum: _extreme(reductions.min),
          np.logaddexp: _logsumexp(math.e), np.logaddexp2: _logsumexp(2.0)}


def _flat_axis(a, axis):
    """``a`` and ``axis`` as a scan sees them (None: the flattened values)."""
    if axis is None:
        return ops.reshape(a, (-1,)), 0
    nd = len(np.shape(raw(a)))
    return a, normalize_axis_index(int(axis), max(nd, 1))


def running_extreme(a, axis, upward):
    """``np.maximum.accumulate`` (``upward``) or ``np.minimum.accumulate`` of ``a`` along
    ``axis``: ``a`` gathered where each running extreme was reached first (NumPy's values;
    a NaN holds from where it comes)."""
    values = to_host(raw(a))  # the indices are found on the host: every module has NumPy's gather
    ans = (np.maximum if upward else np.minimum).accumulate(values, axis=axis)
    n = values.shape[axis]
    before = np.take(ans, np.arange(-1, n - 1) % max(n, 1), axis=axis)  # ans[k - 1]
    place = np.arange(n).reshape((n,) + (1,) * (values.ndim - axis - 1))
    same = (ans == before) | np.isnan(before) if values.dtype.kind in "fc" else ans == before
    holder = np.maximum.accumulate(np.where((place == 0) | ~same, place, 0), axis=axis)
    if xp_of(raw(a)) is not np:
        holder = numpy_names(xp_of(raw(a))).asarray(holder)
    return statistics.take_along_axis(a, holder, axis)


def _scan(kind):
    def accumulate(a, axis=0, dtype=None, out=None):
        ops.unsupported(f"np.{kind}.accumulate", out=out)
        a = a if dtype is None else ops.astype(a, dtype)
        if kind == "add":
            return ops.cumsum(a, axis)
        if kind == "multiply":
            return ops.cumprod(a, axis)
        a, axis = _flat_axis(a, axis)
        return running(a, axis, kind == "maximum")
    running = composite("[x holds the running extreme]", name=f"{kind}.accumulate")(running_extreme)
    return accumulate


ACCUMULATE = {np.add: _scan("add"), np.multiply: _scan("multiply"), np.maximum: _scan("maximum"),
              np.minimum: _scan("minimum")}


def outer(ufunc, a, b, **kwargs):
    """``ufunc.outer(a, b)``: ``ufunc(a[..., None, ...], b)``, ``a`` reshaped to broadcast."""
    if ufunc.nin != 2:
        raise ValueError("method outer is only supported for binary functions")
    a_shape, b_shape = np.shape(raw(a)), np.shape(raw(b))
    wide = a_shape + (1,) * len(b_shape)
    a = ops.reshape(a, wide) if isinstance(a, Tensor) else np.reshape(np.asarray(a), wide)
    b = b if isinstance(b, Tensor) or hasattr(b, "shape") else np.asarray(b)
    return ufunc(a, b, **kwargs)


_INSTEAD = {
    "at": "it writes into its first argument in place, which a Tensor (immutable, so that the "
          "tape can follow it) cannot be and a NumPy array cannot hold; build the result as a "
          "new value: a sum over repeated indices is a one-hot product, e.g. "
          "a + (np.arange(len(a))[:, None] == indices) @ b, and a write np.where(mask, b, a)",
    "reduceat": "reduce each slice with np.add.reduce / np.sum of a[i:j] and np.stack the "
                "results, or take differences of np.cumsum at the boundaries",
}


def _followed(args, kwargs):
    for x in list(args) + list(kwargs.values()):
        for t in x if isinstance(x, (list, tuple)) else (x,):
            if isinstance(t, Tensor) and differentiated(t):
                return True
    return False


def _own(ufunc, method, inputs, kwargs):
    """NumPy's own method on the values: a result that carries no gradient."""
    cls = result_class([a for a in inputs if isinstance(a, Tensor)])
    vals = [raw(a) for a in inputs]
    kwargs = {k: raw(v) for k, v in kwargs.items()}
    first = next((v for v in vals if hasattr(v, "shape")), None)
    f = getattr(getattr(numpy_names(xp_of(first)), ufunc.__name__), method)
    r = f(*vals, **kwargs)
    if r is None or not hasattr(r, "shape") or isinstance(r, np.generic):
        return r
    t = cls.__new__(cls)
    t.value = r
    return t


def ufunc_method(ufunc, method, inputs, kwargs, differentiable):
    """``ufunc.method(*inputs, **kwargs)`` on Tensors (``method`` other than ``__call__``);
    ``differentiable``: whether ``ufunc`` has a gradient rule."""
    name = f"np.{ufunc.__name__}.{method}"
    table = {"reduce": REDUCE, "accumulate": ACCUMULATE}.get(method, {})
    if method == "outer" and differentiable:
        return outer(ufunc, *inputs, **kwargs)
    if ufunc in table:
        return table[ufunc](*inputs, **kwargs)
    if not differentiable or not _followed(inputs, kwargs):
        if method == "at" and isinstance(inputs[0], Tensor):
            raise NoGradientError(f"{name}(a, ...) with a Tensor a: {_INSTEAD['at']}")
        return _own(ufunc, method, inputs, kwargs)  # no gradient to lose
    instead = _INSTEAD.get(method) or (
        f"of {method}, gradmagic differentiates np.add, np.multiply, np.maximum, np.minimum"
        + (", np.logaddexp and np.logaddexp2" if method == "reduce" else "")
        + "; write it with the functions that have a rule (np.sum, np.cumsum, np.max ...)")
    raise NoGradientError(
        f"{name} has no gradient rule in gradmagic, so it cannot run on a Tensor a tape "
        f"follows: {instead}; or give it a gradient with @gm.custom_gradient")
