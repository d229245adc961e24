"""NumPy's reductions with all their keywords: ``np.sum``, ``np.mean``, ``np.prod``,
``np.max`` and ``np.min`` (and the methods ``t.sum(...)`` ...) with ``where=``, ``initial=``
and ``dtype=``, as NumPy reads them.

Each is the catalogue's reduction of a masked, cast or extended operand: ``where=`` fills
the elements left out with the reduction's identity (0 for a sum, 1 for a product, -inf for
a max; ``initial`` where there is none, as for integers) through ``np.where``, so they get
no gradient; a mean divides by the number of elements the mask keeps; ``initial`` is one
more operand (``sum + initial``, ``maximum(max, initial)``: ties go to the elements, as
``np.maximum``'s to its first argument); ``dtype=`` casts the values first, as NumPy
accumulates in that dtype (a float input's gradient comes back in its own dtype). They
differentiate to any order with no rule of their own. Without these keywords each is the
catalogue's reduction itself (``ops.sum`` ...).
"""

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, xp_of
from . import ops
from .tensor import raw

NOVALUE = np._NoValue


def _given(v):
    return v is not None and v is not NOVALUE


def _mask(where):
    """The ``where=`` mask as an array (None where every element counts)."""
    if not _given(where) or where is True:
        return None
    m = raw(where)
    return m if hasattr(m, "shape") else np.asarray(m, dtype=bool)


def _cast(a, dtype):
    return a if dtype is None else ops.astype(a, dtype)


def _shape(a):
    return tuple(np.shape(raw(a)))


def _empty(a, axis):
    """Whether the reduction over ``axis`` has no element to reduce."""
    shape = _shape(a)
    return any(shape[k] == 0 for k in ops.axes_of(ops.axis_arg(axis), len(shape)))


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=NOVALUE, where=NOVALUE):
    """``np.sum`` with ``where=`` (the elements left out add 0), ``initial=`` (added) and
    ``dtype=`` (the values cast first)."""
    return _folded("np.sum", ops.sum, 0, a, axis, dtype, out, keepdims, initial, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=NOVALUE, where=NOVALUE):
    """``np.prod`` with ``where=`` (the elements left out multiply by 1), ``initial=`` (a
    factor) and ``dtype=``."""
    return _folded("np.prod", ops.prod, 1, a, axis, dtype, out, keepdims, initial, where)


def _folded(name, reduce, neutral, a, axis, dtype, out, keepdims, initial, where):
    """``reduce`` (a sum or a product) with NumPy's keywords: the elements ``where`` leaves
    out replaced by ``neutral``, ``initial`` folded in as one more element."""
    if dtype is None and not _given(initial) and not _given(where):
        return reduce(a, axis, out=out, keepdims=keepdims)
    ops.unsupported(name, out=out)
    a, mask = _cast(a, dtype), _mask(where)
    if mask is not None:
        a = ops.where(mask, a, neutral)
    r = reduce(a, axis, keepdims=keepdims)
    if not _given(initial):
        return r
    return r + initial if neutral == 0 else r * initial


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=NOVALUE):
    """``np.mean`` with ``where=`` (the mean of the elements the mask keeps: their sum over
    their count, NaN where it keeps none) and ``dtype=`` (the values cast first)."""
    mask = _mask(where)
    if mask is None:
        return ops.mean(_cast(a, dtype), axis, out=out, keepdims=keepdims)
    ops.unsupported("np.mean", out=out)
    a = _cast(a, dtype)
    if kind(raw(a).dtype) not in "fc":  # NumPy's mean of integers is a float64
        a = ops.astype(a, np.float64)
    v = raw(a)
    xp = numpy_names(xp_of(v))
    full = xp.broadcast_to(mask if xp_of(mask) is xp_of(v) else xp.asarray(np.asarray(mask)), _shape(a))
    count = xp.sum(xp.where(full, xp.ones_like(v), xp.zeros_like(v)), axis=ops.axis_arg(axis),
                   keepdims=bool(keepdims))  # of the elements kept, in a's dtype
    with np.errstate(invalid="ignore", divide="ignore"):  # none kept: NaN, as NumPy gives
        return ops.sum(ops.where(full, a, 0), axis, keepdims=keepdims) / count


def _extreme(name, reduce, combine, fill):
    def extreme(a, axis=None, out=None, keepdims=False, initial=NOVALUE, where=NOVALUE):
        if not _given(initial) and not _given(where):
            return reduce(a, axis, out=out, keepdims=keepdims)
        ops.unsupported(f"np.{name}", out=out)
        mask = _mask(where)
        if mask is not None and not _given(initial):
            ufunc = "maximum" if name == "max" else "minimum"
            raise ValueError(f"reduction operation '{ufunc}' does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        if _empty(a, axis):  # nothing to reduce: initial itself, of the reduced shape
            return ops.sum(a, axis, keepdims=keepdims) + initial
        if mask is not None:
            a = ops.where(mask, a, fill if kind(raw(a).dtype) == "f" else initial)
        return combine(reduce(a, axis, keepdims=keepdims), initial) if _given(initial) else reduce(
            a, axis, keepdims=keepdims)
    extreme.__name__ = extreme.__qualname__ = name
    extreme.__doc__ = (f"``np.{name}`` with ``where=`` (which needs ``initial``, as NumPy's) and "
                       f"``initial=`` (one more operand, taken by ``np.{combine.__name__}``).")
    return extreme


max = _extreme("max", ops.max, ops.maximum, -np.inf)
min = _extreme("min", ops.min, ops.minimum, np.inf)

FUNCTIONS = {np.sum: sum, np.prod: prod, np.mean: mean, np.max: max, np.min: min,
             np.amax: max, np.amin: min}  # NumPy function -> its form here, with every keyword
