"""NumPy's NaN-ignoring reductions and scans on Tensors: ``nanmax``, ``nanmin``, ``nanprod``,
``nanvar``, ``nanstd``, ``nancumsum``, ``nancumprod``, ``nanmedian``, ``nanpercentile`` and
``nanquantile`` (``nansum`` and ``nanmean`` are ``statistics.py``'s).

Each is composed from the op catalogue: the NaNs are a constant mask, replaced by the
value that leaves the reduction unchanged (``-inf`` for a max, 1 for a product, 0 for a sum)
through ``where``, so a NaN element gets a gradient of 0 and every derivative is the ops'
own, to any order. A slice of NaNs only gives NaN (with NumPy's warning, "All-NaN slice
encountered"); where there is no NaN at all, NumPy's plain function runs, as NumPy's do.
The order statistics follow ``statistics.py``'s (the gradient goes to the elements picked,
linearly interpolated), over each slice's numbers only. ``FUNCTIONS`` maps NumPy's
functions onto their forms here.
"""

import warnings

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, numpy_dtype, xp_of
from ..errors import GradientValueError
from ..tracebacks import user_stacklevel
from . import ops
from .primitive import composite
from .statistics import (axes_last, interpolated, quantile, quantile_levels, quantile_picks, sort,
                         take_along_axis)
from .tensor import raw


def _xp(a):
    return numpy_names(xp_of(raw(a)))


def _inexact(a):
    return kind(raw(a).dtype) in "fc"


def _nan_mask(a):
    """The NaNs of ``a`` (a constant boolean array), or None where there are none."""
    if not _inexact(a):
        return None
    mask = _xp(a).isnan(raw(a))
    return mask if bool(_xp(a).any(mask)) else None


def _keepdims(keepdims):
    return False if keepdims is np._NoValue else bool(keepdims)


def _all_nan(mask, axis, keepdims):
    """Where every element of a slice is NaN (None where no slice is), with NumPy's warning."""
    xp = _xp(mask)
    empty = xp.all(mask, axis=ops.axes_of(axis, mask.ndim), keepdims=keepdims)
    if not bool(xp.any(empty)):
        return None
    warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=user_stacklevel())
    return empty


def _extreme(a, axis, keepdims, reduce, fill, fn):
    mask = _nan_mask(a)
    if mask is None:
        return reduce(a, axis=axis, keepdims=keepdims)
    out = reduce(ops.where(mask, fill, a), axis=axis, keepdims=keepdims)
    empty = _all_nan(mask, axis, keepdims)
    return out if empty is None else ops.where(empty, np.nan, out)


@composite("[x is the largest number] / ties")
def nanmax(a, axis=None, out=None, keepdims=np._NoValue, initial=np._NoValue, where=np._NoValue):
    """``np.nanmax``: the largest number (NaN where a slice has none); ties share the
    gradient as ``max``'s do, and NaNs get none."""
    ops.unsupported("np.nanmax", out=out, initial=initial, where=where)
    return _extreme(a, axis, _keepdims(keepdims), ops.max, -np.inf, "np.nanmax")


@composite("[x is the smallest number] / ties")
def nanmin(a, axis=None, out=None, keepdims=np._NoValue, initial=np._NoValue, where=np._NoValue):
    """``np.nanmin``: the smallest number (NaN where a slice has none)."""
    ops.unsupported("np.nanmin", out=out, initial=initial, where=where)
    return _extreme(a, axis, _keepdims(keepdims), ops.min, np.inf, "np.nanmin")


def _cast(a, dtype):
    return a if dtype is None else ops.astype(a, dtype)


@composite("product of the other numbers")
def nanprod(a, axis=None, dtype=None, out=None, keepdims=np._NoValue, initial=np._NoValue,
            where=np._NoValue):
    """``np.nanprod``: the product of the numbers, NaNs counted as 1 (and given no gradient)."""
    ops.unsupported("np.nanprod", out=out, initial=initial, where=where)
    a = _cast(a, dtype)
    mask = _nan_mask(a)
    return ops.prod(a if mask is None else ops.where(mask, 1, a), axis=axis, keepdims=_keepdims(keepdims))


def _running(name, run, fill, a, axis, dtype, out):
    """``run`` (cumsum, cumprod) along ``axis`` with each NaN as ``fill`` (no gradient there)."""
    ops.unsupported(f"np.{name}", out=out)
    a = _cast(a, dtype)
    mask = _nan_mask(a)
    return run(a if mask is None else ops.where(mask, fill, a), axis=axis)


@composite("[x not NaN]")
def nancumsum(a, axis=None, dtype=None, out=None):
    """``np.nancumsum``: the running sum, NaNs counted as 0 (and given no gradient)."""
    return _running("nancumsum", ops.cumsum, 0, a, axis, dtype, out)


@composite("[x not NaN] running product of the others")
def nancumprod(a, axis=None, dtype=None, out=None):
    """``np.nancumprod``: the running product, NaNs counted as 1 (and given no gradient)."""
    return _running("nancumprod", ops.cumprod, 1, a, axis, dtype, out)


def _ddof(ddof, correction, fn):
    if correction is np._NoValue:
        return ddof
    if ddof != 0:
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _nanvar(a, axis, dtype, ddof, keepdims, mean, fn):
    a = _cast(a, dtype)
    mask = _nan_mask(a)
    if mask is None and mean is np._NoValue:  # no NaN: NumPy's nanvar is np.var
        return ops.var(a, axis=axis, ddof=ddof, keepdims=keepdims)
    xp = _xp(a)
    values = raw(a)
    if not _inexact(a):
        a, values = ops.astype(a, np.float64), xp.astype(values, xp.float64)
    if mask is None:
        mask = xp.zeros(values.shape, dtype=bool)
    kept = ops.where(mask, 0, a)
    count = xp.sum(~mask, axis=ops.axes_of(axis, values.ndim), keepdims=True)
    if mean is np._NoValue:
        mean = ops.sum(kept, axis=axis, keepdims=True) / xp.astype(count, values.dtype)
    d = ops.where(mask, 0, kept - mean)
    total = ops.sum(d * d, axis=axis, keepdims=keepdims)
    dof = (count if keepdims else xp.reshape(count, raw(total).shape)) - ddof
    with np.errstate(divide="ignore", invalid="ignore"):  # NaN where dof <= 0, as below
        var = total / xp.astype(dof, values.dtype)
    bad = dof <= 0
    if bool(xp.any(bad)):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=user_stacklevel())
        var = ops.where(bad, np.nan, var)
    return var


@composite("2 (x - mean) / (count - ddof), 0 at NaN")
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=np._NoValue, *, where=np._NoValue,
           mean=np._NoValue, correction=np._NoValue):
    """``np.nanvar``: the variance of the numbers of each slice (``mean=``: about that mean,
    which may be a Tensor); NaN where ``count - ddof <= 0``, with NumPy's warning."""
    ops.unsupported("np.nanvar", out=out, where=where)
    return _nanvar(a, axis, dtype, _ddof(ddof, correction, "np.nanvar"), _keepdims(keepdims), mean,
                   "np.nanvar")


@composite("(x - mean) / ((count - ddof) std), 0 at NaN")
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=np._NoValue, *, where=np._NoValue,
           mean=np._NoValue, correction=np._NoValue):
    """``np.nanstd``: the square root of ``nanvar``."""
    ops.unsupported("np.nanstd", out=out, where=where)
    ddof = _ddof(ddof, correction, "np.nanstd")
    if _nan_mask(_cast(a, dtype)) is None and mean is np._NoValue:
        return ops.std(_cast(a, dtype), axis=axis, ddof=ddof, keepdims=_keepdims(keepdims))
    return ops.sqrt(_nanvar(a, axis, dtype, ddof, _keepdims(keepdims), mean, "np.nanstd"))


# -- order statistics over the numbers of each slice -------------------------------------
def _nanquantiles(a, q, axis, method, keepdims, fn):
    """Quantiles ``q`` (in [0, 1]) of the numbers of ``a`` over ``axis``, by NumPy's
    ``method`` (linear interpolation by default); NaN where a slice has no number."""
    quantile_picks(np, q, method, fn)  # a method without a gradient is refused first
    if np.any((q < 0) | (q > 1)) or np.any(np.isnan(q)):
        raise GradientValueError(f"{fn}(q=...): expected quantiles in range, got {q.tolist()}")
    if _nan_mask(a) is None:  # no NaN: NumPy's nanquantile is np.quantile
        return quantile(a, q, axis=axis, method=method, keepdims=keepdims)
    merged, kept, keep_shape = axes_last(a, axis, fn)
    xp, values = _xp(a), raw(merged)
    count = xp.sum(~xp.isnan(values), axis=-1, keepdims=True)  # (*kept, 1)
    ordered = sort(merged, axis=-1)  # the NaNs last, so each slice's numbers come first
    dtype = numpy_dtype(values.dtype)
    levels = xp.asarray(q.reshape(-1))
    pos = xp.astype(count - 1, levels.dtype) * levels  # (*kept, q.size), in q's dtype as NumPy
    lo, hi, frac = quantile_picks(xp, pos, method, fn)
    top = xp.maximum(count - 1, 0)
    lo, hi = (xp.minimum(xp.maximum(xp.astype(i, xp.int64), 0), top) for i in (lo, hi))
    if frac is not None:
        frac = xp.astype(frac, values.dtype if kind(dtype) == "f" else xp.float64)
    result = interpolated(take_along_axis(ordered, lo, axis=-1),
                          take_along_axis(ordered, hi, axis=-1), frac)
    if bool(xp.any(count == 0)):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=user_stacklevel())
        result = ops.where(count == 0, np.nan, result)
    result = ops.moveaxis(result, -1, 0)  # q first, as NumPy
    return ops.reshape(result, q.shape + (keep_shape if keepdims else kept))


@composite("onto the numbers picked")
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=np._NoValue, *, weights=None, interpolation=None):
    """``np.nanquantile``: ``np.quantile`` of each slice's numbers (NaN where it has none)."""
    ops.unsupported("np.nanquantile", out=out, weights=weights, interpolation=interpolation)
    return _nanquantiles(a, quantile_levels(q, "np.nanquantile"), axis, method, _keepdims(keepdims),
                         "np.nanquantile")


@composite("onto the numbers picked")
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=np._NoValue, *, weights=None, interpolation=None):
    """``np.nanpercentile``: ``nanquantile`` of ``q / 100``."""
    ops.unsupported("np.nanpercentile", out=out, weights=weights, interpolation=interpolation)
    levels = np.true_divide(quantile_levels(q, "np.nanpercentile"), 100)  # in q's dtype, as NumPy
    return _nanquantiles(a, levels, axis, method, _keepdims(keepdims), "np.nanpercentile")


@composite("onto the middle numbers")
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=np._NoValue):
    """``np.nanmedian``: the middle number of each slice, or the mean of the two middle ones."""
    ops.unsupported("np.nanmedian", out=out)
    return _nanquantiles(a, np.asarray(0.5), axis, "linear", _keepdims(keepdims), "np.nanmedian")


FUNCTIONS = {
    np.nanmax: nanmax, np.nanmin: nanmin, np.nanprod: nanprod, np.nancumsum: nancumsum,
    np.nancumprod: nancumprod, np.nanvar: nanvar, np.nanstd: nanstd, np.nanquantile: nanquantile,
    np.nanpercentile: nanpercentile, np.nanmedian: nanmedian,
}
