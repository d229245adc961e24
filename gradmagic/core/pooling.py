"""Pooling made of the engine's ops, so it differentiates to any order: max and average
pooling over N-d windows, channels first (``(n, c, *spatial)``), with padding given per
side, stride and dilation (max only).

A max pool picks, on the raw values (a constant: where the maximum is does not move under
a small change), the index of each window's maximum, the first in the window at ties, and
gathers the input there: the gradient of each output goes to that element; the padding
never wins. An average pool sums the window's strided slices of the zero-padded input
and divides by the window's size, counting the padding or not.

The arguments are taken as valid: a dialect checks them first, in its framework's words.
Every size argument has one entry per spatial axis.
"""

import math

import numpy as np

from .._backend import to_host
from . import ops
from .convolution import padded, windows
from .tensor import raw


def positions(kernel, stride, before, dilation, out):
    """Along one axis: for each output position and kernel offset, ``(out, kernel)``, the
    input position it meets (below 0 or past the end: in the padding)."""
    return np.arange(out)[:, None] * stride - before + np.arange(kernel)[None, :] * dilation


def argmax_windows(values, places, nan_wins=True):
    """Over windows of ``values`` (``(n, c, *spatial)`` raw values) whose positions are given
    per axis (``places[i]``: ``(out_i, kernel_i)``, as ``positions`` gives them; outside
    the input: never picked), the flat index into the spatial axes of each window's
    maximum, ``(n, c, *out)``: the first in the window (row-major) at ties, the first
    element inside the input where all are -inf; a NaN the last NaN in the window where
    ``nan_wins``, else never (the window's maximum of its other values)."""
    spatial = values.shape[2:]
    dims = len(spatial)
    steps = [math.prod(spatial[i + 1:]) for i in range(dims)]  # row-major strides
    inside, flat = np.ones((), bool), np.zeros((), np.int64)
    for i, (pos, size) in enumerate(zip(places, spatial)):
        shape = [1] * (2 * dims)
        shape[i], shape[dims + i] = pos.shape
        inside = inside & ((pos >= 0) & (pos < size)).reshape(shape)
        flat = flat + (np.clip(pos, 0, size - 1) * steps[i]).reshape(shape)
    inside, flat = np.broadcast_arrays(inside, flat)
    out, window = inside.shape[:dims], math.prod(inside.shape[dims:])
    inside, flat = inside.reshape(out + (window,)), flat.reshape(out + (window,))
    vals = values.reshape(values.shape[:2] + (-1,))[:, :, flat]  # (n, c, *out, window)
    with np.errstate(invalid="ignore"):
        key = np.where(inside, vals, -np.inf)
        nan = np.isnan(key)
        if not nan_wins:
            key = np.where(nan, -np.inf, key)
        pick = np.argmax(key, axis=-1)
        top = np.take_along_axis(key, pick[..., None], -1)[..., 0]
        first_inside = np.broadcast_to(np.argmax(inside, axis=-1), pick.shape)
        pick = np.where(top == -np.inf, first_inside, pick)
        if nan_wins:
            last_nan = nan.shape[-1] - 1 - np.argmax(nan[..., ::-1], axis=-1)
            pick = np.where(nan.any(-1), last_nan, pick)
    return np.take_along_axis(np.broadcast_to(flat, vals.shape), pick[..., None], -1)[..., 0]


def gathered(x, index):
    """``x`` (``(n, c, *spatial)``) at the flat spatial ``index`` (``(n, c, *out)``),
    differentiably."""
    n, c = x.shape[:2]
    lead = (np.arange(n).reshape((n,) + (1,) * (index.ndim - 1)),
            np.arange(c).reshape((1, c) + (1,) * (index.ndim - 2)))
    return ops.getitem(ops.reshape(x, (n, c, -1)), lead + (index,))


def max_pool(x, kernel, stride, padding, dilation, out, nan_wins=True):
    """Each window's maximum, ``(n, c, *out)``, and the flat spatial index of each in the
    input (raw, int64): the windows start ``padding[i][0]`` before the input, ``out``
    of them along each axis. See ``argmax_windows`` for ties and NaN."""
    places = [positions(k, s, p[0], d, o) for k, s, p, d, o in zip(kernel, stride, padding, dilation, out)]
    index = argmax_windows(np.asarray(to_host(raw(x))), places, nan_wins)
    return gathered(x, index), index


def window_counts(size, kernel, stride, padding, out, count_padding):
    """Along one axis, how many places each of ``out`` windows averages over: within the
    input padded by ``padding`` (``count_padding``; a window reaching further is cut
    there), or within the input."""
    before, after = padding
    start = np.arange(out) * stride - before
    end = np.minimum(start + kernel, size + after)
    if count_padding:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def average_pool(x, kernel, stride, padding, out, count_padding=True, divisor=None):
    """Each window's sum over its size (``window_counts``), or over ``divisor``: ``out``
    windows along each axis, starting ``padding[i][0]`` before the input (zeros beyond
    it, as far as the last window reaches)."""
    spatial = x.shape[2:]
    # zero padding, and after it as far as the last window reaches
    pads = [(p[0], max(p[1], (o - 1) * s + k - n - p[0])) for p, o, s, k, n in zip(padding, out, stride, kernel, spatial)]
    parts = windows(padded(x, pads), kernel, stride, (1,) * len(kernel), out)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    if divisor is not None:
        return total / np.asarray(float(divisor)).astype(raw(x).dtype)
    count = np.ones((), np.int64)
    for i, args in enumerate(zip(spatial, kernel, stride, padding, out)):
        shape = [1] * len(spatial)
        shape[i] = args[-1]
        count = count * window_counts(*args, count_padding).reshape(shape)
    return total / count.astype(raw(x).dtype)
