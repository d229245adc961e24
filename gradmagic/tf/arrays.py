"""TensorFlow's shape, indexing and clipping functions (``tf.reshape``, ``tf.gather``,
``tf.split``, ``tf.tile``, ``tf.where`` ...) on the engine's ops, with TensorFlow's
parameters and checks: an index out of range is an error, as in TensorFlow (NumPy would
count a negative one from the end), and ``tf.where(condition)`` gives coordinates.
"""

import builtins
import math

import numpy as np

from .._backend import to_host, xp_of
from ..core import layout, ops, statistics
from ..core.primitive import composite
from ..core.tensor import Tensor
from ..errors import GradientValueError
from .errors import InvalidArgumentError
from .sparse import rows
from .math import dims
from .tensors import (IndexedSlices, as_tensor, axis_of, check_dtype, int32, int64, operands,
                      shape_of)


def reshape(tensor, shape, name=None):
    """``tf.reshape``, with TensorFlow's InvalidArgumentError for a shape that does not fit."""
    t, dims = as_tensor(tensor), shape_of(shape)
    unknown = [k for k, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise InvalidArgumentError(f"tf.reshape(shape={list(dims)}): Only one input size may be -1, "
                                   f"not both {unknown[0]} and {unknown[1]}")
    known = math.prod(d for d in dims if d != -1)
    if (t.size % known if unknown and known else t.size != known):
        wanted = f"a multiple of {known}" if unknown else f"{known}"
        raise InvalidArgumentError(f"tf.reshape(shape={list(dims)}): Input to reshape is a tensor "
                                   f"with {t.size} values, but the requested shape "
                                   f"{'requires' if unknown else 'has'} {wanted}")
    return ops.reshape(t, dims)


def transpose(a, perm=None, conjugate=False, name=None):
    return ops.transpose(as_tensor(a), perm)


def concat(values, axis, name=None):
    ts = operands("tf.concat", *values)
    axis, rank = int(axis), len(ts[0].shape) if ts else 0
    for k, t in enumerate(ts[1:], 1):
        if len(t.shape) != rank:
            raise InvalidArgumentError(f"ConcatOp : Ranks of all input tensors should match: shape[0] = "
                                       f"{dims(ts[0].shape)} vs. shape[{k}] = {dims(t.shape)} [Op:ConcatV2]")
    if len(ts) > 1 and not -rank <= axis < rank:
        raise InvalidArgumentError(f"ConcatOp : Expected concatenating dimensions in the range "
                                   f"[{-rank}, {rank}), but got {axis} [Op:ConcatV2]")
    for k, t in enumerate(ts[1:], 1):
        for d, (m, n) in enumerate(zip(ts[0].shape, t.shape)):
            if m != n and d != axis % rank:
                raise InvalidArgumentError(f"ConcatOp : Dimension {d} in both shapes must be equal: "
                                           f"shape[0] = {dims(ts[0].shape)} vs. shape[{k}] = "
                                           f"{dims(t.shape)} [Op:ConcatV2]")
    return ops.concatenate(ts, axis=axis) if len(ts) != 1 else ops.identity(ts[0])  # (TF: any axis)


def stack(values, axis=0, name=None):
    ts = operands("tf.stack", *values)
    for k, t in enumerate(ts[1:], 1):
        if t.shape != ts[0].shape:
            raise InvalidArgumentError(f"Shapes of all inputs must match: values[0].shape = "
                                       f"{dims(ts[0].shape)} != values[{k}].shape = {dims(t.shape)} [Op:Pack]")
    rank = len(ts[0].shape) + 1 if ts else 1
    if not -rank <= int(axis) < rank:
        raise GradientValueError(f"Argument `axis` = {int(axis)} not in range [{-rank}, {rank})")
    return ops.stack(ts, axis=int(axis))


def unstack(value, num=None, axis=0, name=None):
    """``tf.unstack``: the slices of ``value`` along ``axis``, as a list."""
    t = as_tensor(value)
    a = axis_of(axis, t.ndim, "tf.unstack")
    lead = (builtins.slice(None),) * a
    return [ops.getitem(t, lead + (k,)) for k in builtins.range(t.shape[a])]


def expand_dims(input, axis, name=None):  # noqa: A002  (TensorFlow's parameter name)
    return ops.expand_dims(as_tensor(input), int(axis))


def squeeze(input, axis=None, name=None):  # noqa: A002
    return ops.squeeze(as_tensor(input), axis)


def broadcast_to(input, shape, name=None):  # noqa: A002
    return ops.broadcast_to(as_tensor(input), shape_of(shape))


def where(condition, x=None, y=None, name=None):
    """``tf.where(condition, x, y)``: ``x`` where ``condition`` holds, else ``y`` (broadcast);
    ``tf.where(condition)``: the coordinates of the true elements, shape ``(n, rank)``, int64."""
    c = as_tensor(condition)
    if x is None and y is None:
        xp = xp_of(c.value)
        return Tensor(xp.asarray(xp.argwhere(c.value), dtype=int64))
    if x is None or y is None:
        raise GradientValueError("tf.where(condition, x, y): x and y must both be given, or neither")
    return ops.where(c, *operands("tf.where", x, y))


# -- clipping --------------------------------------------------------------------------------
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``maximum(minimum(t, max), min)``, as TensorFlow's: a min above the max wins."""
    lo, hi, t = clip_value_min, clip_value_max, as_tensor(t)
    if isinstance(lo, Tensor) or isinstance(hi, Tensor) or np.any(np.asarray(lo) > np.asarray(hi)):
        # TensorFlow's own formula: where the min is above the max, and for tensor bounds (no
        # host copy of them to look); NumPy's clip, one op, for ordered numbers
        return ops.maximum(ops.minimum(t, hi), lo)
    return ops.clip(t, lo, hi)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(norm(t), clip_norm)``, with a gradient that is finite at 0; an
    ``IndexedSlices``'s values by their own norm (a repeated index's rows each count), as
    TensorFlow clips them."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clipped(t.values, clip_norm, axes), t.indices, t.dense_shape)
    return clipped(t, clip_norm, axes)


@composite("1 where the norm is under clip_norm, else its projection scaled", name="clip_by_norm")
def clipped(t, clip_norm, axes=None):
    t = as_tensor(t)
    l2sum = ops.sum(t * t, axis=axes, keepdims=True)
    positive = l2sum > 0
    l2norm = ops.where(positive, ops.sqrt(ops.where(positive, l2sum, 1)), l2sum)
    return t * clip_norm / ops.maximum(l2norm, clip_norm)


def global_norm(t_list, name=None):
    """``tf.linalg.global_norm``: ``sqrt(sum of every element squared)`` over the list (None
    entries are skipped; an ``IndexedSlices`` by its values, so a repeated index's rows each
    count, as in TensorFlow)."""
    ts = [as_tensor(values_of(t)) for t in t_list if t is not None]
    if not ts:
        raise GradientValueError("tf.linalg.global_norm(t_list): expected at least one tensor")
    total = ops.sum(ts[0] * ts[0])
    for t in ts[1:]:
        total = total + ops.sum(t * t)
    return ops.sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``tf.clip_by_global_norm``: each tensor times ``clip_norm / max(global_norm,
    clip_norm)``; returns ``(clipped list, global_norm)``, None entries kept."""
    norm = global_norm(t_list) if use_norm is None else as_tensor(use_norm)
    scale = clip_norm * ops.minimum(1.0 / norm, 1.0 / as_tensor(clip_norm))
    scale = scale + (norm - norm)  # NaN throughout for a norm that is not finite, as TensorFlow
    return [None if t is None else scaled(t, scale) for t in t_list], norm


def scaled(t, scale):
    """``t`` times ``scale`` in ``t``'s dtype; an ``IndexedSlices``'s values, kept sparse."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(scaled(t.values, scale), t.indices, t.dense_shape)
    t = as_tensor(t)
    return t * ops.astype(scale, t.dtype)


def values_of(t):
    """An ``IndexedSlices``'s values; anything else as it is."""
    return t.values if isinstance(t, IndexedSlices) else t


# -- indexing --------------------------------------------------------------------------------
def indices_of(indices, fn, like):
    """``indices`` as an integer array on ``like``'s module (TensorFlow takes int32 or int64)."""
    t = as_tensor(indices)
    check_dtype(fn, "indices", t, "iu", "integer indices (int32 or int64)")
    return xp_of(like.value).asarray(t.value)


def check_range(fn, idx, n):
    """An index outside ``[0, n)`` is an error, in TensorFlow's words."""
    host = np.asarray(to_host(idx))
    if not host.ndim and not 0 <= host < n:  # one index: TensorFlow names no position
        raise InvalidArgumentError(f"{fn}: indices = {int(host)} is not in [0, {n})")
    bad = np.argwhere((host < 0) | (host >= n))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        raise InvalidArgumentError(
            f"{fn}: indices[{','.join(map(str, at))}] = {int(host[at])} is not in [0, {n})")


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """``tf.gather``: the slices of ``params`` at ``indices`` along ``axis``; the result has
    shape ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.
    The gradient adds up over repeated indices."""
    p = as_tensor(params)
    idx = indices_of(indices, "tf.gather", p)
    b = int(batch_dims) + (idx.ndim if int(batch_dims) < 0 else 0)
    a = b if axis is None else axis_of(axis, p.ndim, "tf.gather")
    if not 0 <= b <= builtins.min(a, idx.ndim):
        raise GradientValueError(
            f"tf.gather(batch_dims={batch_dims}): batch_dims must be at most axis ({a}) and the "
            f"rank of indices ({idx.ndim})")
    check_range("tf.gather", idx, p.shape[a])
    if b == 0:
        if a == 0:  # its own op, whose source gets IndexedSlices (tf/sparse.py)
            return rows(p, idx)
        return ops.getitem(p, (builtins.slice(None),) * a + (idx,))
    if p.shape[:b] != tuple(idx.shape[:b]):
        raise GradientValueError(
            f"tf.gather(batch_dims={b}): params and indices must agree on the first {b} "
            f"dimension(s), got shapes {p.shape} and {tuple(idx.shape)}")
    if a != b:  # the axis moved to follow the batch axes, gathered there, and its axes moved back
        out = gather(ops.moveaxis(p, a, b), idx, axis=b, batch_dims=b)
        m, k = idx.ndim - b, a - b  # the gathered axes, and the params' axes between
        return ops.transpose(out, tuple(builtins.range(b)) + tuple(builtins.range(b + m, b + m + k))
                             + tuple(builtins.range(b, b + m)) + tuple(builtins.range(b + m + k, out.ndim)))
    return ops.getitem(p, batch_positions(p, b, idx.ndim) + (idx,))


def batch_positions(p, b, rank):
    """The positions along ``p``'s first ``b`` axes, each an ``arange`` shaped to broadcast
    over an index of ``rank`` axes whose first ``b`` are those batch axes."""
    xp = xp_of(p.value)
    return tuple(xp.reshape(xp.arange(n), (1,) * k + (n,) + (1,) * (rank - k - 1))
                 for k, n in enumerate(p.shape[:b]))


def gather_nd(params, indices, batch_dims=0, name=None):
    """``tf.gather_nd``: ``params`` at the coordinates in the last axis of ``indices``."""
    p = as_tensor(params)
    idx = indices_of(indices, "tf.gather_nd", p)
    b = int(batch_dims)
    k = idx.shape[-1] if idx.ndim else 0
    if idx.ndim == 0 or k > p.ndim - b:
        raise GradientValueError(
            f"tf.gather_nd(indices): the last axis of indices ({k}) must be at most the rank of "
            f"params ({p.ndim}) less batch_dims ({b}), got indices of shape {tuple(idx.shape)}")
    if not 0 <= b < idx.ndim:
        raise GradientValueError(f"tf.gather_nd: Argument `batch_dims` = {batch_dims} must be less than "
                                 f"rank(`indices`) = {idx.ndim}")
    if p.shape[:b] != tuple(idx.shape[:b]):
        raise GradientValueError(
            f"tf.gather_nd(batch_dims={batch_dims}): params and indices must agree on the first "
            f"batch_dims dimension(s), got shapes {p.shape} and {tuple(idx.shape)}")
    host = np.asarray(to_host(idx))
    bad = np.argwhere(((host < 0) | (host >= np.array(p.shape[b:b + k]))).any(axis=-1))
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        raise InvalidArgumentError(
            f"tf.gather_nd: indices[{','.join(map(str, at))}] = {host[at].tolist()} does not "
            f"index into param shape {list(p.shape)}")
    return ops.getitem(p, batch_positions(p, b, idx.ndim - 1) + tuple(idx[..., j] for j in builtins.range(k)))


def boolean_mask(tensor, mask, axis=None, name=None):
    """``tf.boolean_mask``: the elements (or slices) of ``tensor`` where ``mask`` is true."""
    t, m = as_tensor(tensor), as_tensor(mask)
    check_dtype("tf.boolean_mask", "mask", m, "b", "a boolean mask")
    a = 0 if axis is None else axis_of(axis, t.ndim, "tf.boolean_mask")
    if m.ndim == 0 or t.shape[a:a + m.ndim] != m.shape:
        raise GradientValueError(
            f"tf.boolean_mask(mask): the mask's shape {m.shape} must match the tensor's shape "
            f"from axis {a}, {t.shape[a:a + builtins.max(m.ndim, 1)]}")
    return ops.getitem(t, (builtins.slice(None),) * a + (m.value,))


def slice(input_, begin, size, name=None):  # noqa: A001  (tf.slice)
    """``tf.slice``: ``size[i]`` elements from ``begin[i]`` along each axis (-1: to the end)."""
    t = as_tensor(input_)
    begin, size = shape_of(begin), shape_of(size)
    if len(begin) != t.ndim or len(size) != t.ndim:
        raise GradientValueError(f"tf.slice(begin, size): expected {t.ndim} values each (the rank "
                                 f"of input_), got {len(begin)} and {len(size)}")
    index = []
    for n, b, s in zip(t.shape, begin, size):
        end = n if s == -1 else b + s
        if not 0 <= b <= n:
            raise InvalidArgumentError(f"tf.slice: Expected begin[{len(index)}] in [0, {n}], but got {b}")
        if not 0 <= end - b <= n - b:
            raise InvalidArgumentError(f"tf.slice: Expected size[{len(index)}] in [0, {n - b}], but got {s}")
        index.append(builtins.slice(b, end))
    return ops.getitem(t, tuple(index))


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``tf.one_hot``: ``on_value`` (1) at each index and ``off_value`` (0) elsewhere, along a
    new axis of length ``depth`` (last by default); an index outside ``[0, depth)`` gives a
    row of ``off_value``. No gradient."""
    idx = as_tensor(indices)
    check_dtype("tf.one_hot", "indices", idx, "iu", "integer indices")
    xp = xp_of(idx.value)
    hot = xp.expand_dims(idx.value, -1) == xp.arange(int(depth))
    on = 1 if on_value is None else as_tensor(on_value).value
    off = 0 if off_value is None else as_tensor(off_value).value
    dtype = dtype or (as_tensor(on_value).dtype if on_value is not None else np.dtype("float32"))
    out = xp.where(hot, on, off).astype(dtype)
    if axis is not None and int(axis) != -1:
        out = xp.moveaxis(out, -1, int(axis))
    return Tensor(out)


# -- splitting and repeating -------------------------------------------------------------------
def split(value, num_or_size_splits, axis=0, num=None, name=None):
    """``tf.split``: ``value`` cut along ``axis`` into that many equal parts, or into parts of
    the given sizes (one of which may be -1: the rest); a list of tensors."""
    t = as_tensor(value)
    a = axis_of(axis, t.ndim, "tf.split")
    n = t.shape[a]
    sizes = num_or_size_splits
    if isinstance(sizes, Tensor) and sizes.ndim == 0:
        sizes = int(sizes)
    if isinstance(sizes, (int, np.integer)):
        k = int(sizes)
        if k <= 0 or n % k:
            raise InvalidArgumentError(
                f"tf.split: Number of ways to split should evenly divide the split dimension, "
                f"but got split_dim {a} (size = {n}) and num_split {k}")
        sizes = [n // k] * k
    sizes = list(shape_of(sizes))
    if sizes.count(-1) > 1 or builtins.any(s < -1 for s in sizes):
        raise GradientValueError(f"tf.split(num_or_size_splits={sizes}): sizes must be at least 0, "
                                 "with at most one -1")
    if -1 in sizes:
        sizes[sizes.index(-1)] = n - (builtins.sum(sizes) + 1)
    if builtins.sum(sizes) != n or builtins.min(sizes) < 0:
        raise InvalidArgumentError(
            f"tf.split: Determined shape must either match input shape along split_dim exactly "
            f"if fully specified, or be less than the size of the input along split_dim if not "
            f"fully specified.  Got: {builtins.sum(sizes)} (sizes {sizes} for a dimension of {n})")
    bounds = np.cumsum(sizes)[:-1].tolist()
    return ops.split(t, bounds, axis=a)


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """``tf.repeat``: each element ``repeats`` times along ``axis`` (of the flattened tensor
    when None); ``repeats`` one count, or one per element along the axis."""
    t = as_tensor(input)
    reps = np.asarray(as_tensor(repeats).numpy())
    length = t.size if axis is None else t.shape[axis_of(axis, t.ndim, "tf.repeat")]
    if reps.ndim > 1 or (reps.ndim == 1 and reps.size not in (1, length)):
        raise GradientValueError(f"tf.repeat(repeats): Dimensions {length} and {reps.size} are "
                                 "not compatible (one count, or one per element along the axis)")
    if reps.dtype.kind not in "iu" or (reps < 0).any():
        raise GradientValueError(f"tf.repeat(repeats): expected counts of at least 0, got {reps.tolist()}")
    return layout.repeat(t, reps, axis=None if axis is None else int(axis))


def tile(input, multiples, name=None):  # noqa: A002
    """``tf.tile``: ``input`` repeated ``multiples[i]`` times along axis ``i`` (one per axis)."""
    t = as_tensor(input)
    m = shape_of(multiples)
    if len(m) != t.ndim:
        raise InvalidArgumentError(f"tf.tile: Expected multiples argument to be a vector of length "
                                   f"{t.ndim} but got length {len(m)}")
    if builtins.any(k < 0 for k in m):
        raise InvalidArgumentError(f"tf.tile: Expected multiples[i] >= 0, got {list(m)}")
    return layout.tile(t, m)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tf.pad``: ``paddings[i] = [before, after]`` for each axis; mode ``CONSTANT``,
    ``REFLECT`` or ``SYMMETRIC`` (any case)."""
    t = as_tensor(tensor)
    pairs = np.asarray(as_tensor(paddings).numpy())
    if pairs.shape != (t.ndim, 2):
        raise InvalidArgumentError(f"tf.pad: The first dimension of paddings must be the rank of "
                                   f"inputs ({t.ndim}), with 2 columns, got paddings of shape "
                                   f"{list(pairs.shape)}")
    how = str(mode).lower()
    if how not in ("constant", "reflect", "symmetric"):
        raise GradientValueError(f"tf.pad(mode={mode!r}): expected 'CONSTANT', 'REFLECT' or 'SYMMETRIC'")
    options = {"constant_values": constant_values} if how == "constant" else {}
    return layout.pad(t, [tuple(int(v) for v in p) for p in pairs], mode=how, **options)


def reverse(tensor, axis, name=None):
    t = as_tensor(tensor)
    return ops.flip(t, tuple(axis_of(a, t.ndim, "tf.reverse") for a in shape_of(axis)))


def roll(input, shift, axis, name=None):  # noqa: A002
    t = as_tensor(input)
    shift, axis = shape_of(shift), shape_of(axis)
    return layout.roll(t, shift if len(shift) > 1 else shift[0], axis if len(axis) > 1 else axis[0])


# -- sorting ---------------------------------------------------------------------------------
def order_of(values, axis, direction, fn):
    t = as_tensor(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise GradientValueError(f"{fn}(direction={direction!r}): expected 'ASCENDING' or 'DESCENDING'")
    a = axis_of(axis, t.ndim, fn)
    xp = xp_of(t.value)
    keys = -t.value if direction == "DESCENDING" else t.value
    return t, a, xp.argsort(keys, axis=a, kind="stable")  # ties: the lower index first


@composite("back to unsorted order")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort``: the values in order along ``axis``; the gradient follows each value."""
    t, a, order = order_of(values, axis, direction, "tf.sort")
    return statistics.take_along_axis(t, order, axis=a)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: the indices (int32) that sort ``values`` along ``axis``."""
    t, a, order = order_of(values, axis, direction, "tf.argsort")
    return Tensor(xp_of(order).asarray(order, dtype=int32))

