"""Sorting, order statistics and NaN-aware reductions of NumPy (``sort``, ``partition``,
``take_along_axis``, ``median``, ``percentile``, ``quantile``, ``ptp``, ``average``,
``nansum``, ``nanmean``, ``nan_to_num``, ``select``, ``piecewise``, ``real``, ``imag``),
and ``cov`` and ``corrcoef`` (``COVARIANCE``).

Each is composed from the op catalogue's primitives: a sort is the permutation NumPy's
``argsort`` finds (no gradient of its own) applied by indexing, so the gradient of each
output goes to the input it came from (at ties, to the one ``argsort`` placed there, as
in JAX); masks of NaNs and infinities are constants. They differentiate to any order
with no rule of their own. ``FUNCTIONS`` maps each NumPy function onto its form here.
"""

import warnings

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, numpy_dtype, xp_of
from ..errors import GradientValueError, NoGradientError
from ..tracebacks import user_stacklevel
from . import ops
from .context import differentiated
from .primitive import composite
from .tensor import Tensor, raw


def _xp(a):
    return xp_of(raw(a))


def _axis_of(axis, ndim, fn):
    if not -ndim <= axis < max(ndim, 1):
        raise GradientValueError(f"{fn}(axis={axis}): the array has {ndim} dimension(s)")
    return axis % ndim if ndim else 0


def take_along_axis(arr, indices, axis=-1):
    """``np.take_along_axis``: the elements of ``arr`` at ``indices`` along ``axis``."""
    indices = raw(indices)
    if axis is None:
        return ops.getitem(ops.reshape(arr, (-1,)), indices)
    shape = tuple(np.shape(raw(arr)))
    axis = _axis_of(axis, len(shape), "np.take_along_axis")
    if np.ndim(indices) != len(shape):
        raise GradientValueError(
            f"np.take_along_axis(indices=...): expected indices with {len(shape)} dimension(s), "
            f"as arr, got {np.ndim(indices)}")
    xp = _xp(arr)
    index = tuple(indices if k == axis else xp.reshape(xp.arange(n), (1,) * k + (n,) + (1,) * (len(shape) - k - 1))
                  for k, n in enumerate(shape))
    return ops.getitem(arr, index)


@composite("back to unsorted order")
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    """``np.sort``: ``a`` permuted by NumPy's own ``argsort`` (same ``kind`` and ``stable``)."""
    if order is not None:
        raise NoGradientError("np.sort(order=...): structured arrays have no gradient in gradmagic")
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), -1
    options = {} if stable is None else {"stable": stable}
    return take_along_axis(a, numpy_names(_xp(a)).argsort(raw(a), axis=axis, kind=kind, **options), axis)


@composite("back to unpartitioned order")
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """``np.partition``: ``a`` permuted by NumPy's own ``argpartition``."""
    if order is not None:
        raise NoGradientError("np.partition(order=...): structured arrays have no gradient in gradmagic")
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), -1
    options = {} if kind == "introselect" else {"kind": kind}  # CuPy's argpartition takes no kind
    return take_along_axis(a, numpy_names(_xp(a)).argpartition(raw(a), kth, axis=axis, **options), axis)


def _to_last(a, axis, fn):
    """``a`` with the axes in ``axis`` (None: all) moved to the end and merged into one;
    the shape the reduction keeps, and where ``keepdims`` puts its ones back."""
    shape = tuple(np.shape(raw(a)))
    ndim = len(shape)
    axes = tuple(range(ndim)) if axis is None else tuple(
        _axis_of(k, ndim, fn) for k in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
    if len(set(axes)) != len(axes):
        raise GradientValueError(f"{fn}(axis={axis!r}): an axis is repeated")
    kept = tuple(k for k in range(ndim) if k not in axes)
    moved = ops.transpose(a, kept + axes) if kept + axes != tuple(range(ndim)) else a
    merged = ops.reshape(moved, tuple(shape[k] for k in kept) + (-1,))
    keep_shape = tuple(1 if k in axes else n for k, n in enumerate(shape))
    return merged, tuple(shape[k] for k in kept), keep_shape


def axes_last(a, axis, fn):
    """``a`` with the axes in ``axis`` (None: all) moved to the end and merged into one; the
    shape the reduction keeps; and the shape ``keepdims`` gives (ones where ``axis`` was)."""
    return _to_last(a, axis, fn)


def _nan_where_nan(result, merged):
    """NaN wherever the reduced slice (the last axis of ``merged``) held a NaN, as NumPy's
    median and percentile give; a sort alone would put the NaNs last and pick a number."""
    values = raw(merged)
    if kind(values.dtype) not in "fc":
        return result
    xp = _xp(merged)
    has_nan = xp.any(xp.isnan(values), axis=-1, keepdims=True)
    return ops.where(has_nan, xp.nan, result) if bool(xp.any(has_nan)) else result


QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")  # those with a gradient


def quantile_levels(q, fn):
    """``q`` as a NumPy array of floats, in its own float dtype (float64 for numbers, lists
    and integers), where NumPy computes the positions: a Tensor that no tape follows (nor a
    dialect's ``requires_grad``) is a constant like any array; one a gradient could flow to
    is refused, since gradmagic differentiates with respect to ``a`` only."""
    if isinstance(q, Tensor):
        if differentiated(q):
            raise NoGradientError(f"{fn}(q=...): gradmagic differentiates with respect to a "
                                  "only, and a gradient is being taken with respect to this q; "
                                  "give q as a constant (a number, a NumPy array, or "
                                  "stop_gradient(q))")
        q = q.numpy()
    q = np.asarray(q)
    return q if q.dtype.kind == "f" else q.astype(np.float64)


def quantile_picks(xp, pos, method, fn):
    """For NumPy's quantile ``method``, at virtual positions ``pos`` (``q (n - 1)``) in each
    sorted slice: the positions of the lower and upper elements it takes (floats, not yet
    clipped to the slice) and the weight of the upper (None where it takes one element)."""
    if method not in QUANTILE_METHODS:
        raise NoGradientError(f"{fn}(method={method!r}): gradmagic has gradients for the "
                              f"methods {', '.join(map(repr, QUANTILE_METHODS))} only")
    lo, hi = xp.floor(pos), xp.ceil(pos)
    if method == "linear":
        return lo, lo + 1, pos - lo
    if method == "midpoint":
        return lo, hi, (hi - lo) * 0.5
    pick = {"lower": lo, "higher": hi, "nearest": xp.round(pos)}[method]  # round: half to even
    return pick, pick, None


def interpolated(below, above, frac):
    """``below`` where ``frac`` is None, else NumPy's ``_lerp``: ``below + (above - below)
    frac``, computed from ``above`` where ``frac >= 0.5`` (as NumPy, to its last bit)."""
    if frac is None:
        return below
    diff = above - below
    return ops.where(frac >= 0.5, above - diff * (1 - frac), below + diff * frac)


def _quantiles(a, q, axis, method, keepdims, fn):
    """Quantiles ``q`` (in [0, 1]) of ``a`` over ``axis``, by NumPy's ``method`` (linear
    interpolation by default): the result has ``q``'s shape first."""
    q = quantile_levels(q, fn)
    if np.any((q < 0) | (q > 1)) or np.any(np.isnan(q)):
        raise GradientValueError(f"{fn}(q=...): expected quantiles in range, got {q.tolist()}")
    merged, kept, keep_shape = _to_last(a, axis, fn)
    n = np.shape(raw(merged))[-1]
    if n == 0:
        raise GradientValueError(f"{fn}: the slice to reduce is empty")
    ordered = sort(merged, axis=-1)
    lo, hi, frac = quantile_picks(np, q * (n - 1), method, fn)
    lo, hi = (np.clip(i, 0, n - 1).astype(np.intp) for i in (lo, hi))
    xp = _xp(merged)
    below = ops.getitem(ordered, (Ellipsis, xp.asarray(lo.reshape(-1))))
    above = ops.getitem(ordered, (Ellipsis, xp.asarray(hi.reshape(-1))))
    if frac is not None:
        dtype = numpy_dtype(raw(merged).dtype) if kind(raw(merged).dtype) == "f" else np.float64
        frac = xp.asarray(frac.astype(dtype).reshape(-1))
    result = interpolated(below, above, frac)  # (*kept, q.size)
    result = _nan_where_nan(result, merged)
    result = ops.moveaxis(result, -1, 0)  # q first, as NumPy
    result = ops.reshape(result, q.shape + kept)
    if keepdims:
        result = ops.reshape(result, q.shape + keep_shape)
    return result


@composite("onto the elements picked")
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None):
    ops.unsupported("np.quantile", out=out, weights=weights, interpolation=interpolation)
    return _quantiles(a, q, axis, method, keepdims, "np.quantile")


@composite("onto the elements picked")
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None):
    ops.unsupported("np.percentile", out=out, weights=weights, interpolation=interpolation)
    levels = np.true_divide(quantile_levels(q, "np.percentile"), 100)  # in q's dtype, as NumPy
    return _quantiles(a, levels, axis, method, keepdims, "np.percentile")


@composite("onto the elements picked")
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """``np.median``: the middle element, or the mean of the two middle ones."""
    ops.unsupported("np.median", out=out)
    return _quantiles(a, 0.5, axis, "linear", keepdims, "np.median")


@composite("[x == max] - [x == min]")
def ptp(a, axis=None, out=None, keepdims=False):
    ops.unsupported("np.ptp", out=out)
    return ops.max(a, axis=axis, keepdims=keepdims) - ops.min(a, axis=axis, keepdims=keepdims)


@composite("w / sum(w)", "(x - average) / sum(w)")
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """``np.average``: ``sum(a * w) / sum(w)`` over ``axis``; the weights may be Tensors too."""
    if weights is None:
        avg = ops.mean(a, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        count = np.size(raw(a)) // max(np.size(raw(avg)), 1)
        return avg, ops.zeros_like(avg) + count
    a_shape, w_shape = np.shape(raw(a)), np.shape(raw(weights))
    if w_shape != a_shape:
        if axis is None or not isinstance(axis, (int, np.integer)) or len(w_shape) != 1 or (
                w_shape[0] != a_shape[axis]):
            raise GradientValueError(
                f"np.average(weights=...): expected weights of shape {a_shape}, or 1-D weights "
                f"as long as the axis given, got shape {w_shape} with axis={axis!r}")
        axis = _axis_of(axis, len(a_shape), "np.average")
        weights = ops.reshape(weights, (1,) * axis + w_shape + (1,) * (len(a_shape) - axis - 1))
    total = ops.sum(ops.broadcast_to(weights, a_shape), axis=axis, keepdims=keepdims)
    avg = ops.sum(ops.multiply(a, weights), axis=axis, keepdims=keepdims) / total
    return (avg, total) if returned else avg


@composite("[x not NaN]")
def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """``np.nansum``: NaNs count as zero, and get no gradient."""
    ops.unsupported("np.nansum", dtype=dtype, out=out, initial=initial, where=where)
    return ops.sum(ops.where(_xp(a).isnan(raw(a)), 0, a), axis=axis, keepdims=keepdims)


@composite("[x not NaN] / count")
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """``np.nanmean``: the mean of the values that are not NaN (NaN where all are)."""
    ops.unsupported("np.nanmean", dtype=dtype, out=out, where=where)
    xp = _xp(a)
    counted = ops.sum(ops.astype(Tensor(~xp.isnan(raw(a))), raw(a).dtype), axis=axis, keepdims=keepdims)
    return nansum(a, axis=axis, keepdims=keepdims) / counted


@composite("[x finite]")
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """``np.nan_to_num``: NaN and infinities replaced by numbers; the gradient is 1 where
    ``x`` was finite and 0 where it was replaced."""
    values = raw(x)
    if kind(values.dtype) not in "fc":
        return x
    if kind(values.dtype) == "c":
        raise NoGradientError("np.nan_to_num of complex values has no gradient in gradmagic")
    xp = _xp(x)
    big = float(np.finfo(numpy_dtype(values.dtype)).max)  # a number: it goes with every module
    out = ops.where(xp.isnan(values), nan, x)
    out = ops.where(xp.isinf(values) & (values > 0), big if posinf is None else posinf, out)
    return ops.where(xp.isinf(values) & (values < 0), -big if neginf is None else neginf, out)


@composite("[chosen]")
def select(condlist, choicelist, default=0):
    """``np.select``: the choice of the first condition that holds, else ``default``."""
    if len(condlist) != len(choicelist):
        raise GradientValueError(f"np.select: expected as many choices as conditions, got "
                                 f"{len(choicelist)} choices for {len(condlist)} conditions")
    out = default
    for cond, choice in zip(reversed(condlist), reversed(choicelist)):
        out = ops.where(raw(cond), choice, out)
    return out


def _conditions(x, condlist):
    """NumPy's reading of ``condlist`` (a single condition becomes a list of one), each
    condition a boolean array of ``x``'s shape and module."""
    def is_array(c):
        return isinstance(c, list) or np.ndim(raw(c)) > 0
    condlist = raw(condlist)
    if np.isscalar(condlist) or (np.ndim(raw(x)) != 0 and not is_array(condlist[0])):
        condlist = [condlist]
    shape, conds = np.shape(raw(x)), []
    for c in map(raw, condlist):
        c = numpy_names(_xp(x)).asarray(np.asarray(c, dtype=bool)) if not hasattr(c, "dtype") else (
            c if kind(c.dtype) == "b" else c != 0)
        if tuple(c.shape) != shape:
            raise GradientValueError(f"np.piecewise(condlist=...): expected conditions of x's shape "
                                     f"{shape}, got one of shape {tuple(c.shape)}")
        conds.append(c)
    return conds


@composite("each piece's rule")
def piecewise(x, condlist, funclist, *args, **kw):
    """``np.piecewise``: where ``condlist[k]`` holds, ``funclist[k]`` of those elements of
    ``x`` (called on them alone, as NumPy does, so a piece never sees, nor sends a NaN
    gradient to, the others), or that constant; a later condition wins; one function more
    than conditions is the otherwise; 0 where none holds. Differentiable in ``x``, and in
    constants that are Tensors, through masks, ``scatter_add`` and ``where``."""
    x = x if isinstance(x, Tensor) or hasattr(x, "shape") else np.asarray(x)
    conds, funcs = _conditions(x, condlist), list(funclist)
    if len(funcs) == len(conds) + 1:
        otherwise = ~conds[0]
        for c in conds[1:]:
            otherwise = otherwise & ~c
        conds.append(otherwise)
    elif len(funcs) != len(conds):
        raise GradientValueError(f"np.piecewise(funclist=...): with {len(conds)} condition(s), "
                                 f"expected {len(conds)} or {len(conds) + 1} functions, got {len(funcs)}")
    y = ops.zeros_like(x)
    for k, (cond, func) in enumerate(zip(conds, funcs)):
        vals = ops.getitem(x, cond)
        count = np.shape(raw(vals))[0]
        if count == 0:  # NumPy calls no function on no elements
            continue
        piece = func(vals, *args, **kw) if callable(func) else func
        if isinstance(piece, (str, bytes, type(None))) or np.shape(raw(piece)) not in ((), (1,), (count,)):
            raise GradientValueError(
                f"np.piecewise(funclist[{k}]=...): expected a number, or one per element selected "
                f"({count}), got {piece!r:.60}")
        piece = ops.zeros_like(vals) + piece  # x's module and shape
        if raw(piece).dtype != raw(y).dtype:  # NumPy assigns into an array of x's dtype
            piece = ops.astype(piece, raw(y).dtype)
        y = ops.where(cond, ops.scatter_add(piece, np.shape(raw(x)), cond), y)
    return y


@composite("1")
def real(val):
    """``np.real`` of real values: the values themselves (gradmagic is real-only)."""
    if kind(raw(val).dtype) == "c":
        raise NoGradientError("np.real of complex values has no gradient in gradmagic: it "
                              "differentiates real values only")
    return val


@composite("0")
def imag(val):
    """``np.imag`` of real values: zeros, whose gradient is zero (not None)."""
    if kind(raw(val).dtype) == "c":
        raise NoGradientError("np.imag of complex values has no gradient in gradmagic: it "
                              "differentiates real values only")
    return ops.multiply(val, 0)


def _cov_weights(weights, n, name, integral):
    """NumPy's checks of cov's ``fweights``/``aweights``, which are constants here."""
    if isinstance(weights, Tensor):
        raise NoGradientError(f"np.cov({name}=...): the weights are constants in gradmagic; give "
                              "them as a NumPy array (np.asarray(w.numpy()))")
    w = np.asarray(weights, dtype=float)
    if integral and not np.all(w == np.around(w)):
        raise TypeError("fweights must be integer")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name}")
    if w.shape[0] != n:
        raise RuntimeError(f"incompatible numbers of samples and {name}")
    if np.any(w < 0):
        raise ValueError(f"{name} cannot be negative")
    return w


def _rows(m, dtype, rowvar, fn):
    """``m`` as NumPy's cov reads it: cast to ``dtype``, at least 2-D, variables in rows."""
    values = raw(m)
    if not hasattr(values, "dtype"):
        m = values = np.asarray(values)
    if values.ndim > 2:
        raise ValueError(f"{fn} has more than 2 dimensions")
    if kind(values.dtype) == "c":
        raise NoGradientError("np.cov of complex values has no gradient in gradmagic: it "
                              "differentiates real values only")
    x = m if numpy_dtype(values.dtype) == dtype else ops.astype(m, dtype)
    if values.ndim < 2:
        x = ops.reshape(x, (1, -1))
    # NumPy's rule: m is transposed unless 1-D, y unless it has a single row
    flip = values.ndim != 1 if fn == "m" else np.shape(raw(x))[0] != 1
    return ops.transpose(x) if not rowvar and flip else x


@composite("(x - mean) weighted / fact")
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *, dtype=None):
    """``np.cov``: each pair of rows' (``rowvar=False``: columns') covariance, the samples
    weighted by ``fweights * aweights``; in float64 unless ``dtype`` says (as NumPy). The
    weights are constants."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if dtype is None:
        dtype = np.result_type(*(numpy_dtype(getattr(raw(v), "dtype", np.asarray(raw(v)).dtype))
                                 for v in (m, y) if v is not None), np.float64)
    dtype = np.dtype(dtype)
    x = _rows(m, dtype, rowvar, "m")
    if np.shape(raw(x))[0] == 0:
        return Tensor(_xp(x).reshape(_xp(x).asarray([], dtype=raw(x).dtype), (0, 0)))
    if y is not None:
        x = ops.concatenate([x, _rows(y, dtype, rowvar, "y")], axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    n = np.shape(raw(x))[1]
    w = None
    if fweights is not None:
        w = _cov_weights(fweights, n, "fweights", True)
    if aweights is not None:
        aw = _cov_weights(aweights, n, "aweights", False)
        w = aw if w is None else w * aw
    if w is None:
        avg, fact = ops.mean(x, axis=1), n - ddof
    else:
        w_sum = float(np.sum(w))
        avg = ops.sum(x * _xp(x).asarray(w.astype(dtype)), axis=1) / w_sum
        fact = w_sum if ddof == 0 else w_sum - ddof if aweights is None else (
            w_sum - ddof * float(np.sum(w * aw)) / w_sum)
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=user_stacklevel())
        fact = 0.0
    x = x - ops.expand_dims(avg, 1)
    x_t = ops.transpose(x if w is None else x * _xp(x).asarray(w.astype(dtype)))
    with np.errstate(divide="ignore"):
        scale = np.true_divide(1, fact)
    return ops.squeeze(ops.matmul(x, x_t) * dtype.type(scale))


@composite("cov's, scaled by the standard deviations")
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """``np.corrcoef``: ``cov`` over the outer product of the standard deviations, clipped to
    [-1, 1] as NumPy (so an entry clipped there has no gradient)."""
    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(raw(c)) != 2:  # a single variable: nan where its variance is nan, inf or 0, else 1
        return c / c
    d = ops.sqrt(ops.getitem(c, (_xp(c).arange(np.shape(raw(c))[0]),) * 2))
    c = c / ops.expand_dims(d, 1)
    c = c / ops.expand_dims(d, 0)
    return ops.clip(c, -1, 1)


COVARIANCE = {np.cov: cov, np.corrcoef: corrcoef}  # kept apart: FUNCTIONS's entries each have their case

FUNCTIONS = {
    np.sort: sort, np.partition: partition, np.take_along_axis: take_along_axis,
    np.median: median, np.percentile: percentile, np.quantile: quantile, np.ptp: ptp,
    np.average: average, np.nansum: nansum, np.nanmean: nanmean, np.nan_to_num: nan_to_num,
    np.select: select, np.piecewise: piecewise, np.real: real, np.imag: imag,
}
