"""Signals, integrals and differences of NumPy on Tensors: ``interp``, ``convolve``,
``correlate``, ``trapezoid``, ``ediff1d``, ``gradient`` and ``unwrap``.

Each is composed from the op catalogue, so it differentiates in every argument that is a
Tensor, to any order. ``interp`` finds each point's interval with NumPy's ``searchsorted``
(a constant) and is then the line through the interval's ends, so its gradient reaches
``x`` (the slope; on a node, the interval to its right, as NumPy's value is computed
there; the last node's, the interval to its left), ``fp`` and ``xp``. ``correlate`` and
``convolve`` gather the windows of the zero-padded longer signal with one integer index
array and multiply them by the shorter one (``matmul``), in NumPy's alignment for each
mode. ``gradient`` is NumPy's finite differences, a linear map of ``f`` whose weights come
from the spacing (a Tensor spacing gets its gradient too). ``unwrap`` adds multiples of
the period that the values decide, constants: its gradient is the identity.
``FUNCTIONS`` maps NumPy's functions onto their forms here.
"""

import functools

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._array_api import numpy_names
from .._backend import kind, numpy_dtype, xp_of
from ..errors import NoGradientError
from . import ops
from .layout import diff
from .primitive import composite
from .tensor import Tensor, as_array_of, module_of, raw




def _real(*values):
    for v in values:
        if v is not None and kind(getattr(raw(v), "dtype", np.dtype(float))) == "c":
            raise NoGradientError("complex values have no gradient in gradmagic: it "
                                  "differentiates real values only")


def _float64(x):
    return x if numpy_dtype(raw(x).dtype) == np.float64 else ops.astype(x, np.float64)


def _shape(x):
    return tuple(np.shape(raw(x)))


# -- interp ----------------------------------------------------------------------------
def _periodic(x, xp_, fp, period):
    """NumPy's reading of ``interp(period=...)``: everything taken modulo the period, the
    nodes sorted, and one node added at each end from the other end, a period away."""
    if period == 0:
        raise ValueError("period must be a non-zero value")
    period = abs(period)
    x, xp_ = ops.remainder(x, period), ops.remainder(xp_, period)
    order = numpy_names(xp_of(raw(xp_))).argsort(raw(xp_))
    xp_, fp = ops.getitem(xp_, order), ops.getitem(fp, order)
    xp_ = ops.concatenate([ops.getitem(xp_, slice(-1, None)) - period, xp_,
                           ops.getitem(xp_, slice(0, 1)) + period])
    fp = ops.concatenate([ops.getitem(fp, slice(-1, None)), fp, ops.getitem(fp, slice(0, 1))])
    return x, xp_, fp


@composite("slope", "the slopes' change", "the ends' weights")
def interp(x, xp, fp, left=None, right=None, period=None):
    """``np.interp``: the piecewise-linear function through ``(xp, fp)`` at ``x``, in float64;
    ``left``/``right`` (default ``fp[0]``/``fp[-1]``) beyond the ends, NaN at a NaN."""
    mod = module_of(x, xp, fp, left, right)
    x, xp, fp = (_float64(as_array_of(v, mod)) for v in (x, xp, fp))
    _real(x, xp, fp, left, right)
    if len(_shape(xp)) != 1 or len(_shape(fp)) != 1:
        raise ValueError("object too deep for desired array" if len(_shape(xp)) > 1 or len(_shape(fp)) > 1
                         else "object of too small depth for desired array")
    if _shape(xp) != _shape(fp):
        raise ValueError("fp and xp are not of the same length.")
    if _shape(xp)[0] == 0:
        raise ValueError("array of sample points is empty")
    if period is not None:
        x, xp, fp = _periodic(x, xp, fp, period)
        left = right = None
    n = _shape(xp)[0]
    mod = numpy_names(xp_of(raw(x)))
    xv = raw(x)
    j = mod.searchsorted(raw(xp), xv, side="right") - 1  # xp[j] <= x < xp[j + 1]
    below, above = j < 0, (j >= n) | ((j == n - 1) & (xv > raw(xp)[n - 1]))
    node = mod.clip(j, 0, n - 1)  # the node the line is drawn from
    if n > 1:
        seg = mod.clip(j, 0, n - 2)  # its interval (the last node: the one before it)
        lo, hi = mod.astype(seg, mod.int64), mod.astype(seg + 1, mod.int64)
        slope = (ops.getitem(fp, hi) - ops.getitem(fp, lo)) / (ops.getitem(xp, hi) - ops.getitem(xp, lo))
        node = mod.astype(node, mod.int64)
        y = slope * (x - ops.getitem(xp, node)) + ops.getitem(fp, node)
    else:
        y = ops.getitem(fp, mod.zeros(xv.shape, dtype=mod.int64)) + 0 * x
    first, last = ops.getitem(fp, 0), ops.getitem(fp, n - 1)
    y = ops.where(below, first if left is None else left, y)
    y = ops.where(above, last if right is None else right, y)
    return ops.where(mod.isnan(xv), x, y) if bool(mod.any(mod.isnan(xv))) else y


# -- correlate and convolve ------------------------------------------------------------------
def _valid_mode(mode, fn):
    names = {0: "valid", 1: "same", 2: "full", "v": "valid", "s": "same", "f": "full"}
    mode = names.get(mode, mode)
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
    return mode


def _windows(long, short, mode):
    """NumPy's core correlation of a longer 1-D signal with a shorter one, in ``mode``:
    ``out[k] = sum_j long[k - left + j] short[j]``, zero outside ``long``."""
    n1, n2 = _shape(long)[0], _shape(short)[0]
    left = {"valid": 0, "same": n2 // 2, "full": n2 - 1}[mode]
    length = {"valid": n1 - n2 + 1, "same": n1, "full": n1 + n2 - 1}[mode]
    mod = numpy_names(xp_of(raw(long)))
    pad = n2 - 1
    if pad:
        zeros = ops.zeros_like(ops.getitem(long, slice(0, 1)))
        zeros = ops.broadcast_to(zeros, (pad,))
        long = ops.concatenate([zeros, long, zeros])
    start = pad - left
    index = mod.reshape(mod.arange(length) + start, (length, 1)) + mod.reshape(mod.arange(n2), (1, n2))
    return ops.matmul(ops.getitem(long, index), short)


def _signals(a, v, fn):
    mod = module_of(a, v)
    a, v = as_array_of(a, mod), as_array_of(v, mod)
    _real(a, v)
    for name, s in (("a", a), ("v", v)):
        if len(_shape(s)) != 1:
            raise ValueError(f"{fn}: {name} must be 1-D (got {len(_shape(s))}-D)")
    if _shape(a)[0] == 0:
        raise ValueError("a cannot be empty")
    if _shape(v)[0] == 0:
        raise ValueError("v cannot be empty")
    if mod is not np:  # one module for both: a host list meets the device Tensor's module
        a, v = (s if isinstance(s, Tensor) else mod.asarray(s) for s in (a, v))
    return a, v


@composite("windows of {1}", "windows of {0}")
def correlate(a, v, mode="valid"):
    """``np.correlate`` of 1-D signals: ``c[k] = sum_n a[n + k] v[n]`` over the overlap of
    ``mode`` ('valid', 'same' or 'full'), aligned as NumPy aligns it."""
    mode = _valid_mode(mode, "np.correlate")
    a, v = _signals(a, v, "np.correlate")
    if _shape(a)[0] >= _shape(v)[0]:
        return _windows(a, v, mode)
    return ops.flip(_windows(v, a, mode))  # NumPy's: the longer first, the result reversed


@composite("windows of {1} reversed", "windows of {0} reversed")
def convolve(a, v, mode="full"):
    """``np.convolve`` of 1-D signals: the correlation of the longer with the shorter one
    reversed."""
    mode = _valid_mode(mode, "np.convolve")
    a, v = _signals(a, v, "np.convolve")
    if _shape(v)[0] > _shape(a)[0]:
        a, v = v, a
    return _windows(a, ops.flip(v), mode)


# -- integrals and differences -------------------------------------------------------------
@composite("dx / 2 at the ends, the neighbours' dx / 2 inside", "(y_i + y_i+1) / 2 differences")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """``np.trapezoid``: the trapezoidal rule along ``axis``, with sample points ``x`` (1-D
    along the axis, or of ``y``'s shape) or spacing ``dx``; differentiable in all three."""
    mod = module_of(y, x, dx)
    y = as_array_of(y, mod)
    _real(y, x)
    nd = len(_shape(y))
    if x is None:
        d = dx
    else:
        x = as_array_of(x, mod)
        if len(_shape(x)) == 1:
            d = diff(x)
            shape = [1] * nd
            shape[axis] = _shape(d)[0]
            d = ops.reshape(d, tuple(shape))
        else:
            d = diff(x, axis=axis)
    axis = normalize_axis_index(int(axis), nd)
    lead = (slice(None),) * axis
    upper, lower = ops.getitem(y, lead + (slice(1, None),)), ops.getitem(y, lead + (slice(None, -1),))
    return ops.sum(d * (upper + lower) / 2.0, axis=axis)


@composite("difference back", "1", "1")
def ediff1d(ary, to_end=None, to_begin=None):
    """``np.ediff1d``: the differences of the flattened ``ary``, ``to_begin`` before and
    ``to_end`` after (flattened, cast to ``ary``'s dtype, as NumPy)."""
    mod = module_of(ary, to_end, to_begin)
    ary = ops.reshape(as_array_of(ary, mod), (-1,))
    dtype = raw(ary).dtype
    n = _shape(ary)[0]
    parts = [ops.subtract(ops.getitem(ary, slice(1, None)), ops.getitem(ary, slice(0, max(n - 1, 0))))]
    for value, at in ((to_begin, 0), (to_end, 1)):
        if value is None:
            continue
        value = ops.reshape(as_array_of(value, mod), (-1,))
        vtype = raw(value).dtype
        if vtype != dtype:
            if not np.can_cast(numpy_dtype(vtype), numpy_dtype(dtype), casting="same_kind"):
                raise TypeError(f"dtype of `to_{'begin' if at == 0 else 'end'}` must be compatible "
                                "with input `ary` under the `same_kind` rule.")
            value = ops.astype(value, dtype)
        parts.insert(at * len(parts), value)
    if len(parts) == 1:
        return parts[0]
    if not all(isinstance(p, Tensor) for p in parts) and mod is not np:
        parts = [p if isinstance(p, Tensor) else mod.asarray(p) for p in parts]
    return ops.concatenate(parts)


# -- gradient and unwrap -----------------------------------------------------------------
def _along(x, axis, nd, part):
    return ops.getitem(x, (slice(None),) * axis + (part,))


def _on_axis(d, axis, nd):
    """A 1-D array of weights shaped to multiply along ``axis`` of an ``nd``-d array."""
    shape = [1] * nd
    shape[axis] = -1
    return ops.reshape(d, tuple(shape))


def _spacings(f, varargs, axes, mod):
    """Per axis: a number (uniform spacing) or the 1-D differences of its coordinates, read as
    NumPy reads ``varargs``; coordinates that are constants and evenly spaced count as their
    one spacing, as NumPy computes them (a Tensor's stay differences, so each gets its gradient)."""
    n = len(varargs)
    if n == 0:
        return [1.0] * len(axes)
    if n == 1 and not _shape(varargs[0]):
        return [varargs[0]] * len(axes)
    if n != len(axes):
        raise TypeError("invalid number of arguments")
    out = []
    for k, (d, axis) in enumerate(zip(varargs, axes)):
        d = as_array_of(d, mod)
        if not _shape(d):
            out.append(d)
            continue
        if len(_shape(d)) != 1:
            raise ValueError("distances must be either scalars or 1d")
        if _shape(d)[0] != _shape(f)[axis]:
            raise ValueError("when 1d, distances must match the length of the corresponding dimension")
        dx = diff(d)
        if not isinstance(dx, Tensor):
            dx = np.asarray(raw(dx))
            if kind(dx.dtype) in "iu":
                dx = dx.astype(np.float64)
            if (dx == dx[0]).all():
                dx = dx[0]
        elif kind(raw(dx).dtype) in "iu":
            dx = ops.astype(dx, np.float64)
        out.append(dx)
    return out


def _gradient_axis(f, dx, axis, nd, edge_order):
    """NumPy's differences of ``f`` along ``axis``: central inside, one-sided (first or
    second order) at the ends."""
    at = functools.partial(_along, f, axis, nd)
    if not _shape(dx):  # uniform
        inside = (at(slice(2, None)) - at(slice(None, -2))) / (2.0 * dx)
        if edge_order == 1:
            first = (at(slice(1, 2)) - at(slice(0, 1))) / dx
            last = (at(slice(-1, None)) - at(slice(-2, -1))) / dx
        else:
            first = (-1.5 / dx) * at(slice(0, 1)) + (2.0 / dx) * at(slice(1, 2)) + (-0.5 / dx) * at(slice(2, 3))
            last = (0.5 / dx) * at(slice(-3, -2)) + (-2.0 / dx) * at(slice(-2, -1)) + (1.5 / dx) * at(slice(-1, None))
        return ops.concatenate([first, inside, last], axis=axis)
    dx1, dx2 = ops.getitem(dx, slice(0, -1)), ops.getitem(dx, slice(1, None))
    a = _on_axis(-dx2 / (dx1 * (dx1 + dx2)), axis, nd)
    b = _on_axis((dx2 - dx1) / (dx1 * dx2), axis, nd)
    c = _on_axis(dx1 / (dx2 * (dx1 + dx2)), axis, nd)
    inside = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / ops.getitem(dx, slice(0, 1))
        last = (at(slice(-1, None)) - at(slice(-2, -1))) / ops.getitem(dx, slice(-1, None))
        return ops.concatenate([first, inside, last], axis=axis)
    d1, d2 = ops.getitem(dx, 0), ops.getitem(dx, 1)
    first = (-(2.0 * d1 + d2) / (d1 * (d1 + d2)) * at(slice(0, 1)) + (d1 + d2) / (d1 * d2) * at(slice(1, 2))
             - d1 / (d2 * (d1 + d2)) * at(slice(2, 3)))
    d1, d2 = ops.getitem(dx, -2), ops.getitem(dx, -1)
    last = (d2 / (d1 * (d1 + d2)) * at(slice(-3, -2)) - (d2 + d1) / (d1 * d2) * at(slice(-2, -1))
            + (2.0 * d2 + d1) / (d2 * (d1 + d2)) * at(slice(-1, None)))
    return ops.concatenate([first, inside, last], axis=axis)


@composite("central differences' weights", "the differences' change with the spacing")
def gradient(f, *varargs, axis=None, edge_order=1):
    """``np.gradient``: second-order central differences inside, first- or second-order
    one-sided ones at the ends, with unit, scalar or coordinate spacing per axis; one array,
    or a tuple of one per axis."""
    mod = module_of(f, *varargs)
    f = as_array_of(f, mod)
    _real(f, *varargs)
    nd = len(_shape(f))
    if axis is None:
        axes = list(range(nd))
    else:
        axes = [normalize_axis_index(int(a), nd) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    if kind(raw(f).dtype) in "biu":
        f = ops.astype(f, np.float64)
    spacings = _spacings(f, varargs, axes, mod)
    out = []
    for axis, dx in zip(axes, spacings):
        if _shape(f)[axis] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                             "(edge_order + 1) elements are required.")
        out.append(_gradient_axis(f, dx, axis, nd, edge_order))
    return out[0] if len(out) == 1 else tuple(out)


@composite("1")
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """``np.unwrap``: ``p`` with multiples of ``period`` added where a step exceeds
    ``discont`` (NumPy's computation, on the values: a constant per element)."""
    xp = module_of(p)
    p = as_array_of(p, xp)
    _real(p)
    v = raw(p)
    nd = len(_shape(p))
    axis = normalize_axis_index(int(axis), nd)
    dd = numpy_names(xp_of(v)).diff(v, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(numpy_dtype(dd.dtype), period)
    if np.issubdtype(dtype, np.integer):
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    mod = numpy_names(xp_of(v))
    ddmod = mod.remainder(dd - -high, period) + -high
    if ambiguous:
        ddmod = mod.where((ddmod == -high) & (dd > 0), high, ddmod)
    correct = mod.where(mod.abs(dd) < discont, 0, ddmod - dd)
    p = ops.astype(p, dtype) if numpy_dtype(v.dtype) != dtype else p
    rest = _along(p, axis, nd, slice(1, None)) + ops.astype(ops.cumsum(Tensor(correct), axis), dtype)
    return ops.concatenate([_along(p, axis, nd, slice(0, 1)), rest], axis=axis)


FUNCTIONS = {
    np.interp: interp, np.convolve: convolve, np.correlate: correlate, np.trapezoid: trapezoid,
    np.ediff1d: ediff1d, np.gradient: gradient, np.unwrap: unwrap,
}
