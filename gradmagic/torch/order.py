"""PyTorch's order statistics and counts on gradmagic.torch: ``kthvalue``, ``mode``,
``cummax``/``cummin``, ``logcumsumexp``, ``msort``, ``aminmax``, ``nanmedian``,
``quantile``/``nanquantile``, ``histc``, ``bincount``, ``unique``, ``unique_consecutive``.

The indices are constants computed from the values, as PyTorch's are; the values are then
picked out of the tensor with the engine's gather, so the gradient goes to the element each
index names (repeated indices adding up: ``cummax``). Which of equal elements an index
names is PyTorch's: ``kthvalue`` runs its quickselect where the k-th value repeats,
``cummax`` takes the latest of equal maxima, ``mode`` the last occurrence (PyTorch's for
slices of up to 16 elements: past that its unstable sort may name another).
``logcumsumexp`` is an op of its own (``LOGCUMSUMEXP``), its rule PyTorch's formula in the
engine's ops, so it differentiates to any order. ``histc``, ``bincount`` and ``unique``
count: no gradient; where PyTorch records one that raises (``bincount``'s weights,
``unique`` of a float tensor that requires grad), ``refusing`` does the same.
``elementwise.METHODS`` includes these, so they are wired in with its.

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

import collections
import functools
import math

import numpy as np

from ..core import ops, statistics
from ..core.primitive import Primitive, apply, defvjp, variadic
from ..core.tensor import Tensor as CoreTensor
from .graph import as_tensor_of
from .values import axis_of, named, type_name

RETURN_TYPES = {n: collections.namedtuple(n, fields) for n, fields in (
    ("kthvalue", ["values", "indices"]), ("mode", ["values", "indices"]), ("cummax", ["values", "indices"]),
    ("cummin", ["values", "indices"]), ("nanmedian", ["values", "indices"]), ("aminmax", ["min", "max"]))}
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def nan_mask(v):
    return np.isnan(v) if v.dtype.kind in "fc" else np.zeros(v.shape, bool)


def picked(self, index, d, keepdim, label, kind):
    """``(values, indices)``: the elements at ``index`` (keepdims, along ``d``) of ``self``
    (of at least one dimension), the gradient to each."""
    x = self if self.value.ndim else ops.reshape(self, (1,))
    values = statistics.take_along_axis(x, index, axis=d)
    if not keepdim or not self.value.ndim:
        values, index = ops.squeeze(values, d), np.squeeze(index, d)
    return RETURN_TYPES[kind](named(values, label), as_tensor_of(np.asarray(index, np.int64), self))


def rows(v, d):
    """``v`` (at least 1-d) with axis ``d`` last, as a 2-d array of its slices."""
    moved = np.moveaxis(v, d, -1)
    return moved.reshape(-1, moved.shape[-1]), moved.shape


def back(flat, shape, d):
    """Per-slice results (one column each) in ``shape`` (``d`` last), axis ``d`` put back."""
    return np.moveaxis(flat.reshape(shape[:-1] + (flat.shape[-1],)), -1, d)


def implemented_for_floats(fn, t):
    if t.dtype.kind != "f":
        raise NotImplementedError(f'"{fn}" not implemented for \'{type_name(t.dtype)}\'')


# -- an op PyTorch records but does not differentiate ---------------------------------
def _given(xp, *args, value=None, error=None):
    return value


def _refuse(i, g, ans, *args, value=None, error=None):
    cls, message = error
    raise cls(message)


REFUSING = Primitive("not_implemented", _given)
defvjp(REFUSING, variadic(_refuse))


def refusing(value, inputs, error, label="NotImplemented"):
    """``value`` (an array) as the result of an op on ``inputs``: it requires grad where one
    of them does, as PyTorch's, and its gradient raises ``error`` (class, message)."""
    inputs = [t for t in inputs if isinstance(t, CoreTensor)]
    if not any(getattr(t, "requires_grad", False) for t in inputs) or value.dtype.kind not in "fc":
        return as_tensor_of(value, inputs[0])
    return named(apply(REFUSING, *inputs, value=value, error=error), label)


# -- kthvalue: PyTorch's quickselect where the k-th value repeats --------------------------
def _above(x, y):
    return (math.isnan(x) and not math.isnan(y)) or x > y


def quickselect(values, k):
    """The position PyTorch's ``kthvalue`` picks: its quickselect (median of three), ported."""
    arr, idx = list(values), list(range(len(values)))

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]
    lo, hi = 0, len(arr) - 1
    while hi > lo:
        if hi == lo + 1:
            if _above(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        swap(lo + (hi - lo) // 2, lo + 1)
        for i, j in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            if _above(arr[i], arr[j]):
                swap(i, j)
        i, j, pivot = lo + 1, hi, arr[lo]
        while True:
            i += 1
            while _above(pivot, arr[i]):
                i += 1
            j -= 1
            while _above(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def kthvalue(self, k, dim=-1, keepdim=False):
    """The ``k``-th smallest element along ``dim`` (NaN the largest) and its index."""
    v = self.value
    d = axis_of(dim, v.ndim)
    w = v.reshape(1) if not v.ndim else v
    if not 1 <= k <= w.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    flat, shape = rows(w, d)
    index = np.argsort(flat, axis=-1, kind="stable")[:, k - 1]
    chosen = flat[np.arange(len(flat)), index]
    same = (flat == chosen[:, None]) | (nan_mask(flat) & nan_mask(chosen)[:, None])
    for r in np.nonzero(same.sum(axis=-1) > 1)[0]:  # which of equal values: PyTorch's choice
        index[r] = quickselect(flat[r].tolist(), k - 1)
    return picked(self, back(index[:, None], shape, d), d, keepdim, "KthvalueBackward0", "kthvalue")


def mode(self, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest of equally frequent ones; NaNs
    each count once) and the index of its last occurrence."""
    v = self.value
    d = axis_of(dim, v.ndim)
    flat, shape = rows(v.reshape(1) if not v.ndim else v, d)
    index = np.zeros(len(flat), np.int64)
    for r, row in enumerate(flat):
        order = np.argsort(row, kind="stable")
        s = row[order]
        ends = np.nonzero(np.append(s[1:] != s[:-1], True))[0]  # each run's last position
        counts = np.diff(np.append(-1, ends))
        index[r] = order[ends[np.argmax(counts)]]
    return picked(self, back(index[:, None], shape, d), d, keepdim, "ModeBackward0", "mode")


def _cumulative(name, self, dim, better):
    if dim is None:
        raise TypeError(f'{name}() missing 1 required positional arguments: "dim"')
    v = self.value
    d = axis_of(dim, v.ndim)
    flat, shape = rows(v.reshape(1) if not v.ndim else v, d)
    nan = nan_mask(flat)
    index = np.zeros(flat.shape, np.int64)
    best, at = flat[:, 0], np.zeros(len(flat), np.int64)
    for i in range(1, flat.shape[1]):  # a NaN, then each later NaN, is taken; ties: the latest
        x = flat[:, i]
        take = nan[:, i] | (~np.isnan(best.astype(float)) & better(x, best))
        best, at = np.where(take, x, best), np.where(take, i, at)
        index[:, i] = at
    index = back(index, shape, d)
    x = self if v.ndim else ops.reshape(self, (1,))
    values = statistics.take_along_axis(x, index, axis=d)
    if not v.ndim:
        values, index = ops.reshape(values, ()), index.reshape(())
    return RETURN_TYPES[name](named(values, name.capitalize() + "Backward0"), as_tensor_of(index, self))


def cummax(self, dim=None):
    """The running maximum along ``dim`` and where it was reached (NaN propagates)."""
    return _cumulative("cummax", self, dim, lambda x, best: x >= best)


def cummin(self, dim=None):
    return _cumulative("cummin", self, dim, lambda x, best: x <= best)


# -- logcumsumexp: an op of its own -------------------------------------------------------
def _logcumsumexp(xp, x, axis=0):
    if not x.ndim:
        return x
    return np.logaddexp.accumulate(x, axis=axis)


def _logcumsumexp_vjp(g, ans, x, axis=0):
    """PyTorch's rule (TensorFlow's): the positive and negative parts of ``g`` each summed
    in log space from the end."""
    lowest = np.finfo(g.dtype).min
    log_g = ops.log(ops.absolute(g))

    def from_the_end(t):
        return t if not np.ndim(t) else ops.flip(apply(LOGCUMSUMEXP, ops.flip(t, axis), axis=axis), axis)
    positive = ops.exp(from_the_end(ops.where(g > 0, log_g, lowest) - ans) + x)
    negative = ops.exp(from_the_end(ops.where(g < 0, log_g, lowest) - ans) + x)
    return positive - negative


LOGCUMSUMEXP = Primitive("logcumsumexp", _logcumsumexp)
defvjp(LOGCUMSUMEXP, _logcumsumexp_vjp, labels=("exp(x - out), summed from the end",))


def logcumsumexp(self, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, each step a ``logaddexp``."""
    implemented_for_floats("logcumsumexp_out_cpu", self)
    return apply(LOGCUMSUMEXP, self, axis=axis_of(dim, self.value.ndim))


def msort(self):
    """The values sorted along the first dimension."""
    return named(self.sort(dim=0).values, "SortBackward0")


def aminmax(self, *, dim=None, keepdim=False):
    """``(min, max)``: ``amin`` and ``amax`` (NaN propagates; equal extremes share the gradient)."""
    v = self.value
    axis = None if dim is None or not v.ndim else axis_of(dim, v.ndim)
    if v.size == 0 if axis is None else v.shape[axis] == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation "
                           "has no identity.")
    low, high = ops.min(self, axis=axis, keepdims=keepdim), ops.max(self, axis=axis, keepdims=keepdim)
    return RETURN_TYPES["aminmax"](named(low, "AminmaxBackward0"), named(high, "AminmaxBackward0"))


# -- nanmedian -------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def all_equivalent_pick(n):
    """The position libstdc++'s ``nth_element`` leaves first among ``n`` elements none of
    which orders before another (PyTorch's ``nanmedian`` of an all-NaN slice)."""
    idx = list(range(n))
    first, last = 0, n
    while last - first > 3:
        mid = first + (last - first) // 2
        idx[first], idx[mid] = idx[mid], idx[first]  # the median of three, when none is less
        lo, hi = first + 1, last
        while True:  # the unguarded partition: nothing compares less
            hi -= 1
            if not lo < hi:
                break
            idx[lo], idx[hi] = idx[hi], idx[lo]
            lo += 1
        if lo <= 0:
            first = lo
        else:
            last = lo
    return idx[0]


def nanmedian(self, dim=None, keepdim=False):
    """``median`` of the values that are not NaN (NaN where all are): without ``dim`` its
    gradient spread evenly over the elements equal to it; with ``dim`` ``(values, indices)``."""
    v = self.value
    if dim is None:
        flat = ops.reshape(self, (-1,))
        if v.size == 0:
            return as_tensor_of(np.asarray(np.nan, dtype=v.dtype), self)
        nan = nan_mask(v).reshape(-1)
        if nan.all():
            return named(ops.mean(flat), "NanmedianBackward0")
        keep = np.sort(v.reshape(-1)[~nan])
        mask = v.reshape(-1) == keep[(keep.size - 1) // 2]
        return named(ops.max(ops.getitem(flat, np.nonzero(mask)[0])), "NanmedianBackward0")
    d = axis_of(dim, v.ndim)
    flat, shape = rows(v.reshape(1) if not v.ndim else v, d)
    order = np.argsort(flat, axis=-1, kind="stable")  # NaN last, ties by position
    n, nans = flat.shape[1], nan_mask(flat).sum(axis=-1)
    index = order[np.arange(len(flat)), np.maximum((n - nans - 1) // 2, 0)]
    index = np.where(nans == n, all_equivalent_pick(n), index)
    return picked(self, back(index[:, None], shape, d), d, keepdim, "NanmedianBackward1", "nanmedian")


# -- quantile -------------------------------------------------------------------------------
def _quantile(fn, self, q, dim, keepdim, interpolation, ignore_nan):
    if not isinstance(q, CoreTensor) and not 0 <= q <= 1:
        raise RuntimeError(f"{fn}() q must be in the range [0, 1] but got {q:g}")
    if interpolation not in INTERPOLATIONS:
        raise RuntimeError(f"{fn}() interpolation must be one of linear, lower, higher, midpoint or "
                           f"nearest, but got {interpolation}")
    v = self.value
    qs = q.value if isinstance(q, CoreTensor) else np.asarray(q, v.dtype)
    if v.size == 0:
        raise RuntimeError(f"{fn}() input tensor must be non-empty")
    if qs.ndim > 1:
        raise RuntimeError(f"{fn}() q must be a scalar or 1D tensor")
    if v.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{fn}() input tensor must be either float or double dtype")
    if qs.dtype != v.dtype:
        raise RuntimeError(f"{fn}() q tensor must be same dtype as the input tensor")
    if not bool(((qs >= 0) & (qs <= 1)).all()):
        raise RuntimeError(f"{fn}() q values must be in the range [0, 1]")
    if dim is None:
        x, out_shape = ops.reshape(self, (-1,)), (1,) * v.ndim if keepdim else ()
    else:
        d = axis_of(dim, v.ndim)
        x = ops.moveaxis(self, d, -1) if v.ndim else ops.reshape(self, (1,))
        out_shape = tuple(1 if k == d else s for k, s in enumerate(v.shape)) if keepdim else \
            tuple(s for k, s in enumerate(v.shape) if k != d)
    order = np.argsort(x.value, axis=-1, kind="stable")
    ordered = statistics.take_along_axis(x, order, axis=-1)  # NaN last
    s = ordered.value
    n, nan = s.shape[-1], np.isnan(s)
    lead = qs.reshape(qs.shape + (1,) * s.ndim)  # q's dimension first
    if ignore_nan:
        ranks = lead * (np.sum(~nan, axis=-1, keepdims=True) - 1).astype(v.dtype)
        ranks = np.where(ranks < 0, 0, ranks).astype(v.dtype)
    else:
        ranks = np.where(nan.any(axis=-1, keepdims=True), n - 1, lead * v.dtype.type(n - 1)).astype(v.dtype)
    ranks = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}.get(interpolation, lambda r: r)(ranks)
    full = ops.broadcast_to(ordered, ranks.shape[:-1] + (n,))
    below = statistics.take_along_axis(full, ranks.astype(np.int64), axis=-1)
    if interpolation in ("linear", "midpoint"):
        w = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - np.floor(ranks)
        above = statistics.take_along_axis(full, np.ceil(ranks).astype(np.int64), axis=-1)
        below = ops.where(w < 0.5, below + w * (above - below), above - (above - below) * (1 - w))
    return named(ops.reshape(below, qs.shape + out_shape), "SqueezeBackward4")  # (PyTorch's last step)


def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (a number, or a 0-d or 1-d tensor of them: its dimension comes
    first) along ``dim`` (of all elements without), interpolated as NumPy's methods of the
    same names; NaN where a slice holds one. The gradient goes to the elements interpolated."""
    return _quantile("quantile", self, q, dim, keepdim, interpolation, False)


def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
    """``quantile`` of the values that are not NaN (NaN where all are)."""
    return _quantile("nanquantile", self, q, dim, keepdim, interpolation, True)


# -- counts ---------------------------------------------------------------------------------
def _edge(e):
    return "-nan" if np.isnan(e) else f"{e:g}"  # as PyTorch's message writes them


def histc(self, bins=100, min=0, max=0):  # noqa: A002  (PyTorch's names)
    """The counts of ``bins`` equal bins over ``[min, max]`` (the data's extremes where
    they are equal), in the input's dtype; elements outside are left out; no gradient."""
    implemented_for_floats("histogram_cpu", self)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    v = self.value.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and v.size:
        lo, hi = float(np.min(v)), float(np.max(v))
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_edge(lo)}, {_edge(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    left, right = v.dtype.type(lo), v.dtype.type(hi)
    with np.errstate(invalid="ignore"):
        inside = v[(v >= left) & (v <= right)]
    position = ((inside - left) * v.dtype.type(bins) / (right - left)).astype(np.int64)
    counts = np.bincount(np.minimum(position, bins - 1), minlength=bins)
    return as_tensor_of(counts.astype(v.dtype), self)


def bincount(self, weights=None, minlength=0):
    """The count (or the sum of ``weights``) of each non-negative integer in a 1-d tensor:
    int64, or ``weights``' float32 (float64 for any other weights)."""
    if self.dtype.kind not in "iu":
        raise NotImplementedError(f'"bincount_cpu" not implemented for \'{type_name(self.dtype)}\'')
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    v = self.value
    if v.ndim == 1 and v.size == 0:
        return as_tensor_of(np.zeros(minlength, np.int64), self)
    if v.ndim != 1 or v.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return as_tensor_of(np.bincount(v, minlength=minlength).astype(np.int64), self)
    w = weights.value
    if w.ndim != 1 or w.shape[0] != v.shape[0]:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = np.float32 if w.dtype == np.float32 else np.float64
    value = np.bincount(v, w.astype(np.float64), minlength).astype(dtype)
    return refusing(value, [weights], (RuntimeError, "derivative for aten::bincount is not implemented"))


def _uniques(v, d, find):
    """``(values, inverse, counts)``: what ``find`` finds of the elements of ``v`` (of its
    slices along ``d``)."""
    if d is None:
        values, inverse, counts = find(v.reshape(-1))
        inverse = inverse.reshape(v.shape)
    else:
        moved = np.moveaxis(v, d, 0)
        keys = moved.reshape(moved.shape[0], -1)
        values, inverse, counts = find(keys)
        values = np.moveaxis(values.reshape((-1,) + moved.shape[1:]), 0, d)
    return values, inverse.astype(np.int64), counts.astype(np.int64)


def _result(self, found, return_inverse, return_counts, error, label):
    values, inverse, counts = found
    out = (refusing(np.asarray(values), [self], error, label),)
    out += (as_tensor_of(inverse, self),) if return_inverse else ()
    out += (as_tensor_of(counts, self),) if return_counts else ()
    return out[0] if len(out) == 1 else out


def _sorted_unique(keys):
    if keys.ndim == 1:
        values, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True, equal_nan=False)
    else:
        values, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True, axis=0)
    return values, inverse.reshape(-1), counts


def _consecutive(keys):
    if not len(keys):
        return keys, np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = keys[1:] != keys[:-1]
    change = change.any(axis=tuple(range(1, change.ndim))) if change.ndim > 1 else change
    starts = np.nonzero(np.append(True, change))[0]
    return keys[starts], np.cumsum(np.append(False, change)), np.diff(np.append(starts, len(keys)))


def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The distinct values (slices along ``dim``), sorted, each NaN distinct; with the index
    of each element's value (``return_inverse``) and each value's count. No gradient."""
    d = None if dim is None else axis_of(dim, self.value.ndim)
    found = _uniques(self.value, d, _sorted_unique)
    if dim is None:
        error, label = (NotImplementedError, "the derivative for '_unique2' is not implemented."), "Unique2Backward0"
    else:
        error, label = (NotImplementedError, "the derivative for 'unique_dim' is not implemented."), "UniqueDimBackward0"
    return _result(self, found, return_inverse, return_counts, error, label)


def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
    """The first of each run of equal consecutive values (slices along ``dim``)."""
    v = self.value
    d = None if dim is None else axis_of(dim, v.ndim)
    found = _uniques(v.reshape(1) if not v.ndim else v, d, _consecutive)
    if not v.ndim:
        found = (found[0], found[1].reshape(()), found[2])
    error = (NotImplementedError, "the derivative for 'unique_consecutive' is not implemented.")
    return _result(self, found, return_inverse, return_counts, error, "UniqueConsecutiveBackward0")


# -- searchsorted, bucketize: where values would go among sorted ones ------------------------
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None,  # noqa: A002
                 out=None):
    """The index in each row of ``sorted_sequence`` (1-D, or one row per row of ``input``)
    before which each of ``input`` would go: after equal ones with ``right``/``side="right"``."""
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
    if side is not None and (side == "right") != right and right:
        raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                           "left while right was True")
    bounds = sorted_sequence.value
    values = getattr(input, "value", np.asarray(input))
    if bounds.ndim > 1 and bounds.shape[:-1] != values.shape[:-1]:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                           "dimensions of boundaries tensor and input value tensor must match, but we got "
                           f"boundaries tensor {list(bounds.shape)} and input value tensor {list(values.shape)}")
    how = "right" if right or side == "right" else "left"
    order = getattr(sorter, "value", sorter)
    if bounds.ndim == 1:
        found = np.searchsorted(bounds, values, side=how, sorter=order)
    else:
        rows = zip(bounds.reshape(-1, bounds.shape[-1]), values.reshape(-1, values.shape[-1]),
                   order.reshape(-1, bounds.shape[-1]) if order is not None else iter(lambda: None, 0))
        found = np.stack([np.searchsorted(b, v, side=how, sorter=o) for b, v, o in rows]).reshape(values.shape)
    return as_tensor_of(np.asarray(found, np.int32 if out_int32 else np.int64), sorted_sequence)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):  # noqa: A002
    """The bucket of 1-D ``boundaries`` each of ``input`` falls in (``right``: bounds
    excluded on the left)."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


METHODS = {f.__name__: f for f in (kthvalue, mode, cummax, cummin, logcumsumexp, msort, aminmax, nanmedian,
                                   quantile, nanquantile, histc, bincount, unique, unique_consecutive)}
FUNCTIONS = {f.__name__: f for f in (searchsorted, bucketize)}
