"""More of TensorFlow's array functions at the top of ``tf``: ``unique``, ``searchsorted``,
``sequence_mask``, ``meshgrid``, ``reverse_sequence``, ``unravel_index``, ``saturate_cast``,
``ensure_shape``, ``shape_n``, ``identity_n``, ``parallel_stack``, ``get_static_value`` and the
elementwise ``realdiv``, ``truncatediv`` and ``truncatemod``.

What carries a gradient is built from the engine's ops (``meshgrid`` broadcasts,
``reverse_sequence`` gathers, ``saturate_cast`` clips); what TensorFlow gives no gradient
(``unique``, the masks and indices, ``truncatediv``, ``truncatemod``) is computed on the
host and comes out constant, so the tape gives None for it.
"""

import builtins
import collections

import numpy as np

from .._backend import to_host, xp_of
from ..core import ops, statistics
from ..core.primitive import Primitive, apply, defvjp
from ..core.tensor import Tensor
from ..core.tensor import Variable as CoreVariable
from ..core.tensor import constant as core_constant
from ..errors import GradientValueError
from .errors import InternalError, InvalidArgumentError, NotFoundError
from .segments import dtype_word, host_ints
from .tensors import as_tensor, axis_of, int32, operands, shape as shape_op

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def host(t):
    return np.asarray(to_host(t.value))


def made(values, like):
    """A constant Tensor of host ``values``, on ``like``'s array module."""
    return Tensor(xp_of(like.value).asarray(values))


def unique_parts(fn, x, out_idx):
    t = as_tensor(x)
    if t.ndim != 1:
        raise InvalidArgumentError(f"{fn}: unique expects a 1D vector.")
    values = host(t)
    _, first, inverse, counts = np.unique(values, return_index=True, return_inverse=True,
                                          return_counts=True)
    order = np.argsort(first, kind="stable")  # the values in the order they first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    out = np.dtype(out_idx)
    return (made(values[first[order]], t), made(rank[inverse.reshape(-1)].astype(out), t),
            made(counts[order].astype(out), t))


def unique(x, out_idx=int32, name=None):
    """``tf.unique``: ``(y, idx)``, the distinct values of the 1-D ``x`` in the order they
    first appear and, for each element, the index of its value in ``y``; no gradient."""
    y, idx, _ = unique_parts("tf.unique", x, out_idx)
    return Unique(y, idx)


def unique_with_counts(x, out_idx=int32, name=None):
    """``tf.unique_with_counts``: ``tf.unique``'s ``(y, idx)`` and how often each value occurs."""
    return UniqueWithCounts(*unique_parts("tf.unique_with_counts", x, out_idx))


def searchsorted(sorted_sequence, values, side="left", out_type=int32, name=None):
    """``tf.searchsorted``: where each of ``values`` would go in the innermost axis of
    ``sorted_sequence`` (the leading axes of both match), ``side`` 'left' or 'right'."""
    if side not in ("left", "right"):
        raise GradientValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                                 f"`side` = {side!r}.")
    seq, vals = operands("tf.searchsorted", sorted_sequence, values)
    if seq.dtype != vals.dtype:
        raise InvalidArgumentError(
            f"tf.searchsorted: cannot compute {'LowerBound' if side == 'left' else 'UpperBound'} "
            f"as input #1(zero-based) was expected to be a {dtype_word(seq.dtype)} tensor but is "
            f"a {dtype_word(vals.dtype)} tensor")
    s, v = host(seq), host(vals)
    if s.ndim == 0 or s.ndim != v.ndim or s.shape[:-1] != v.shape[:-1]:
        raise InvalidArgumentError("tf.searchsorted: Leading dim_size of both tensors must match.")
    rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(rows_s, rows_v)])
    return made(out.reshape(v.shape).astype(np.dtype(out_type)), seq)


def sequence_mask(lengths, maxlen=None, dtype=np.dtype("bool"), name=None):
    """``tf.sequence_mask``: ``mask[..., j] = j < lengths[...]``, ``maxlen`` columns (the
    largest length when None), as ``dtype``; no gradient."""
    n = host(as_tensor(lengths))
    if maxlen is None:
        maxlen = n.max() if n.size else 0
    width = int(np.asarray(to_host(as_tensor(maxlen).value)))
    mask = np.arange(width) < n[..., None]
    return made(mask.astype(np.dtype(dtype)), as_tensor(lengths))


def meshgrid(*args, **kwargs):
    """``tf.meshgrid``: N-D grids of the (flattened) inputs, ``indexing`` 'xy' (the first
    two axes swapped, the default) or 'ij'; each grid is its input broadcast, so its gradient
    sums back."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise GradientValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got "
                                 f"'{indexing}'")
    ts = [ops.reshape(as_tensor(a), (-1,)) for a in args]
    for k, t in enumerate(ts[1:], 1):
        if t.dtype != ts[0].dtype:
            raise InvalidArgumentError(
                f"tf.meshgrid: cannot compute Mul as input #1(zero-based) was expected to be a "
                f"{dtype_word(t.dtype)} tensor but is a {dtype_word(ts[0].dtype)} tensor")
    sizes = [t.shape[0] for t in ts]
    if indexing == "xy" and len(ts) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for k, t in enumerate(ts):
        at = 1 - k if indexing == "xy" and len(ts) > 1 and k < 2 else k
        lead = [1] * len(ts)
        lead[at] = t.shape[0]
        grids.append(ops.broadcast_to(ops.reshape(t, tuple(lead)), tuple(sizes)))
    return grids


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):  # noqa: A002
    """``tf.reverse_sequence``: along ``seq_axis``, the first ``seq_lengths[b]`` elements of
    each batch entry ``b`` (along ``batch_axis``, 0) reversed, the rest kept; the gradient
    goes back to where each element came from."""
    t = as_tensor(input)
    lengths = host_ints("tf.reverse_sequence", "seq_lengths", "Tlen", as_tensor(seq_lengths),
                        ("int32", "int64"))
    s = axis_of(0 if seq_axis is None else seq_axis, t.ndim, "tf.reverse_sequence")
    b = axis_of(0 if batch_axis is None else batch_axis, t.ndim, "tf.reverse_sequence")
    if s == b:
        raise InvalidArgumentError(f"tf.reverse_sequence: seq_dim must not equal batch_dim, got {s}")
    if lengths.ndim != 1 or lengths.size != t.shape[b]:
        raise InvalidArgumentError(f"tf.reverse_sequence: Length of seq_lengths != input.dims({b}), "
                                   f"({lengths.size} vs. {t.shape[b]})")
    bad = np.flatnonzero(lengths > t.shape[s])
    if bad.size:
        raise InvalidArgumentError(f"tf.reverse_sequence: seq_lens({bad[0]}) > input.dims({s})")
    shape = [1] * t.ndim
    shape[s] = t.shape[s]
    pos = np.arange(t.shape[s]).reshape(shape)
    shape[s], shape[b] = 1, t.shape[b]
    n = lengths.reshape(shape)
    source = np.broadcast_to(np.where(pos < n, n - 1 - pos, pos), t.shape)
    return statistics.take_along_axis(t, xp_of(t.value).asarray(source), axis=s)


def shape_n(input, out_type=int32, name=None):  # noqa: A002
    """``tf.shape_n``: the shape of each tensor in ``input``, as a list."""
    return [shape_op(t, out_type) for t in input]


def identity_n(input, name=None):  # noqa: A002
    """``tf.identity_n``: each tensor of ``input`` as it is (a list; gradients pass)."""
    return [ops.identity(as_tensor(t)) for t in input]


def parallel_stack(values, name="parallel_stack"):
    """``tf.parallel_stack``: ``tf.stack`` along a new first axis. TensorFlow refuses it in
    eager mode and runs it inside ``tf.function``; gradmagic's functions are eager, so it stacks."""
    return ops.stack(operands("tf.parallel_stack", *values), axis=0)


def unravel_index(indices, dims, name=None):
    """``tf.unravel_index``: the coordinates in an array of shape ``dims`` of each flat
    index, shape ``(len(dims),) + indices.shape``, in ``indices``' dtype; no gradient."""
    idx = host_ints("tf.unravel_index", "indices", "Tidx", as_tensor(indices), ("int32", "int64"))
    d = host_ints("tf.unravel_index", "dims", "Tidx", as_tensor(dims), ("int32", "int64"))
    if ((idx < 0) | (idx >= np.prod(d))).any():
        raise InvalidArgumentError("tf.unravel_index: index is out of bound as with dims")
    coords = np.stack(np.unravel_index(idx, tuple(int(n) for n in d))) if d.size else idx[None]
    return made(coords.astype(idx.dtype), as_tensor(indices))


def saturate_cast(value, dtype, name=None):
    """``tf.saturate_cast``: ``value`` clipped to the range of ``dtype`` (in ``value``'s
    dtype, the nearest bound it can hold without overflow), then cast; NaN becomes 0 when
    cast to an integer. A float result keeps the gradient of the clip."""
    t, out = as_tensor(value), np.dtype(dtype)
    info_in = np.finfo(t.dtype) if t.dtype.kind in "fc" else np.iinfo(t.dtype) if t.dtype.kind in "iu" else None
    info_out = np.finfo(out) if out.kind in "fc" else np.iinfo(out) if out.kind in "iu" else None
    if info_in is not None and info_out is not None:
        low = bound(info_out.min, t.dtype, up=True)
        high = bound(info_out.max, t.dtype, up=False)
        if info_in.min < info_out.min:
            t = ops.maximum(t, core_constant(low, t.dtype))
        if info_in.max > info_out.max:
            t = ops.minimum(t, core_constant(high, t.dtype))
        if t.dtype.kind == "f" and out.kind in "iu":
            t = ops.where(ops.isnan(t), 0, t)
    return ops.astype(t, out)


def bound(limit, dtype, up):
    """``limit`` in ``dtype``, moved toward 0 where rounding took it beyond ``limit``."""
    v = np.array(limit).astype(dtype)
    if dtype.kind == "f" and (v.item() < limit if up else v.item() > limit):  # exact, in Python
        v = np.nextafter(v, dtype.type(0))
    return v


def ensure_shape(x, shape, name=None):
    """``tf.ensure_shape``: ``x`` as it is (gradients pass) if its shape fits ``shape``
    (None for any size, or for any shape), else TensorFlow's InvalidArgumentError."""
    t = as_tensor(x)
    if shape is None:
        return ops.identity(t)
    dims = [None if d is None else int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]
    if len(dims) != t.ndim or builtins.any(d is not None and d != n for d, n in zip(dims, t.shape)):
        wanted = ",".join("?" if d is None else str(d) for d in dims)
        raise InvalidArgumentError(f"tf.ensure_shape: Shape of tensor input [{','.join(map(str, t.shape))}] "
                                   f"is not compatible with expected shape [{wanted}].")
    return ops.identity(t)


def get_static_value(tensor, partial=False):
    """``tf.get_static_value``: a Tensor's value as a NumPy array (eager: always known);
    anything else as it is."""
    if isinstance(tensor, CoreVariable):
        return None  # a variable's value may change: TensorFlow gives None
    return tensor.numpy() if isinstance(tensor, Tensor) else tensor


# -- division and remainder that truncate toward 0 ---------------------------------------------
def realdiv(x, y, name=None):
    """``tf.realdiv``: ``x / y`` for floating tensors (TensorFlow has no integer kernel)."""
    a, b = operands("tf.realdiv", x, y)
    if a.dtype.kind not in "fc":
        raise NotFoundError(f"tf.realdiv: Could not find device for node: {{{{node RealDiv}}}} = "
                                f"RealDiv[T=DT_{a.dtype.name.upper()}]: divide floats, or use "
                                "tf.math.floordiv or tf.truncatediv")
    return ops.divide(a, b)


def truncated(fn, x, y):
    a, b = operands(f"tf.{fn}", x, y)
    if a.dtype != b.dtype:
        raise InvalidArgumentError(f"tf.{fn}: cannot compute {fn} as input #1(zero-based) was "
                                   f"expected to be a {dtype_word(a.dtype)} tensor but is a "
                                   f"{dtype_word(b.dtype)} tensor")
    u, v = host(a), host(b)
    if u.dtype.kind in "iu" and (v == 0).any():
        raise InternalError(f"tf.{fn}: Integer division by zero")
    return a, u, v


def truncatediv(x, y, name=None):
    """``tf.truncatediv``: ``x / y`` rounded toward 0 (C's division); no gradient."""
    a, u, v = truncated("truncatediv", x, y)
    if u.dtype.kind in "iu":
        q = np.abs(u) // np.abs(v) * np.sign(u) * np.sign(v)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.trunc(u / v)
    return made(np.asarray(q).astype(a.dtype), a)


def truncatemod(x, y, name=None):
    """``tf.truncatemod``: the remainder of ``truncatediv``, with ``x``'s sign (C's ``fmod``);
    no gradient, as TensorFlow registers none."""
    a, u, v = truncated("truncatemod", x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return made(np.asarray(np.fmod(u, v)).astype(a.dtype), a)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``tf.dynamic_partition``: ``num_partitions`` Tensors, the ``i``-th holding the slices
    of ``data`` whose entry in ``partitions`` (a prefix of ``data``'s shape) is ``i``, in
    order; differentiable (each slice's gradient goes back to its place)."""
    d, p = as_tensor(data), as_tensor(partitions)
    host = np.asarray(host_ints("tf.dynamic_partition", "partitions", "partitions", p, ("int32",)))
    n = int(num_partitions)
    bad = np.argwhere((host < 0) | (host >= n))
    if bad.size:
        at = ",".join(str(int(i)) for i in bad[0])
        raise InvalidArgumentError(f"tf.dynamic_partition: partitions[{at}] = {int(host[tuple(bad[0])])} "
                                   f"is not in [0, {n})")
    if host.shape != d.shape[:host.ndim]:
        raise InvalidArgumentError(f"tf.dynamic_partition: data.shape must start with partitions.shape, "
                                   f"got data.shape = {list(d.shape)}, partitions.shape = {list(host.shape)}")
    xp = xp_of(d.value)
    return [ops.getitem(d, xp.asarray(host == i)) for i in builtins.range(n)]


STITCH = Primitive("dynamic_stitch", op=lambda rows, index, winners: rows[winners])
defvjp(STITCH, lambda g, ans, rows, index, winners: ops.getitem(g, index),
       labels=("the upstream at each row's index (every write of a repeated index)",))


def dynamic_stitch(indices, data, name=None):
    """``tf.dynamic_stitch``: ``merged[indices[m][i]] = data[m][i]``, a later write of an index
    winning; the gradient of each ``data[m][i]`` is the upstream at its index, a
    written-over one's too, as TensorFlow's rule gives it."""
    if len(indices) != len(data):
        raise InvalidArgumentError(f"tf.dynamic_stitch: expected as many data as indices, got "
                                   f"{len(data)} and {len(indices)}")
    idx = [np.asarray(host_ints("tf.dynamic_stitch", "indices", "indices", as_tensor(i), ("int32",)))
           for i in indices]
    parts = [as_tensor(d) for d in data]
    row = parts[0].shape[idx[0].ndim:]
    for k, (i, d) in enumerate(zip(idx, parts)):
        if d.shape != i.shape + row:
            raise InvalidArgumentError(f"tf.dynamic_stitch: data[{k}].shape = {list(d.shape)} does not "
                                       f"start with indices[{k}].shape = {list(i.shape)}")
    flat = np.concatenate([i.reshape(-1) for i in idx])
    rows = ops.concatenate([ops.reshape(d, (-1,) + row) for d in parts], axis=0)
    last = np.full(int(flat.max()) + 1 if flat.size else 0, -1)
    np.maximum.at(last, flat, np.arange(flat.size))
    index = flat
    if (last < 0).any():  # an index no one wrote: zeros there (TensorFlow leaves it undefined)
        rows = ops.concatenate([rows, ops.zeros_like(rows[:1])], axis=0)
        last, index = np.where(last < 0, flat.size, last), np.append(flat, 0)
    xp = xp_of(rows.value)
    return apply(STITCH, rows, index=xp.asarray(index), winners=xp.asarray(last))


__all__ = ["dynamic_partition", "dynamic_stitch", "Unique", "UniqueWithCounts", "unique", "unique_with_counts", "searchsorted",
           "sequence_mask", "meshgrid", "reverse_sequence", "shape_n", "identity_n",
           "parallel_stack", "unravel_index", "saturate_cast", "ensure_shape", "get_static_value",
           "realdiv", "truncatediv", "truncatemod"]
