"""``tf.math.segment_*`` and ``tf.math.unsorted_segment_*``: reductions of the rows of
``data`` that share a segment id, built from the engine's indexing and reduction ops, so their
gradients are those ops' (a sum sends each row its segment's upstream, a mean divides it by the
count, a max or min shares it among the tied elements, as TensorFlow's do).

The ids are checked on the host first, with TensorFlow's errors: sorted ids must not decrease,
unsorted ones must be below ``num_segments`` (a negative one drops its row, as in TensorFlow).
A max, min or product reduces each group of equally long segments in one op (no padding, so
no padding value can tie with the data); an empty segment gets TensorFlow's fill: 0 for the
sorted ops, the dtype's lowest (max) or highest (min) for the unsorted ones, 1 for a product.
"""

import numpy as np

from .._backend import to_host, xp_of
from ..core import ops
from ..core.primitive import composite
from ..core.tensor import Tensor
from .errors import InvalidArgumentError
from .tensors import PACK_NAMES, as_tensor, float64

DATA_KINDS = "iuf"  # TensorFlow's segment ops take numbers, not bool


def dtype_word(dtype):
    return PACK_NAMES.get(dtype.name, dtype.name)


def host_ints(fn, arg, attr, t, allowed):
    """``t``'s values on the host, refused in TensorFlow's words unless its dtype is allowed."""
    if t.dtype.name not in allowed:
        raise InvalidArgumentError(
            f"{fn}({arg}): Value for attr '{attr}' of {dtype_word(t.dtype)} is not in the list of allowed "
            f"values: {', '.join(allowed)}")
    return np.asarray(to_host(t.value))


def checked_data(fn, data):
    d = as_tensor(data)
    if d.dtype.kind not in DATA_KINDS:
        raise InvalidArgumentError(f"{fn}(data): Value for attr 'T' of {dtype_word(d.dtype)} is not "
                                   "in the list of allowed values: float, double, int32, uint8, int16, int8, "
                                   "complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, "
                                   "uint16, complex128, half, uint32, uint64")
    return d


def sorted_ids(fn, data, segment_ids):
    """``(data, ids, number of segments)`` for the sorted ops, checked as TensorFlow checks
    them: the first run of ids out of ``[0, last + 1)``, or followed by a smaller id, fails."""
    d = checked_data(fn, data)
    ids = host_ints(fn, "segment_ids", "Tindices", as_tensor(segment_ids), ("int32", "int64"))
    if d.ndim == 0:
        raise InvalidArgumentError(f"{fn}(data): input must be at least rank 1")
    if ids.ndim != 1:
        raise InvalidArgumentError(f"{fn}(segment_ids): segment_ids should be a vector.")
    if ids.size != d.shape[0]:
        raise InvalidArgumentError(
            f"{fn}(segment_ids): segment_ids should be the same size as dimension 0 of input.")
    n = int(ids[-1]) + 1 if ids.size else 0
    runs = ids[np.r_[True, ids[1:] != ids[:-1]]] if ids.size else ids
    out_of_range = (runs < 0) | (runs >= n)
    decreasing = np.r_[runs[1:] < runs[:-1], False]
    bad = np.flatnonzero(out_of_range | decreasing)
    if bad.size:
        k = bad[0]
        if out_of_range[k]:
            raise InvalidArgumentError(
                f"{fn}(segment_ids): Segment id {int(runs[k])} out of range [0, {n}), possibly "
                "because 'segment_ids' input is not sorted.")
        raise InvalidArgumentError(f"{fn}(segment_ids): segment ids are not increasing")
    return d, ids, n


def unsorted_ids(fn, data, segment_ids, num_segments):
    """``(rows of data, ids, num_segments)`` for the unsorted ops: ``data`` reshaped to one row
    per id, and the rows of negative ids dropped."""
    d = checked_data(fn, data)
    ids = host_ints(fn, "segment_ids", "Tindices", as_tensor(segment_ids), ("int16", "int32", "int64"))
    count = as_tensor(num_segments)
    n = host_ints(fn, "num_segments", "Tnumsegments", count, ("int32", "int64"))
    if n.ndim:
        raise InvalidArgumentError(f"{fn}(num_segments): num_segments should be a scalar, not "
                                   f"shape [{','.join(map(str, n.shape))}]")
    n = int(n)
    if n < 0:
        raise InvalidArgumentError(f"{fn}(num_segments): Input num_segments == {n} must not be negative.")
    if d.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(
            f"{fn}(segment_ids): data.shape = [{','.join(map(str, d.shape))}] does not start "
            f"with segment_ids.shape = [{','.join(map(str, ids.shape))}]")
    bad = np.argwhere(ids >= n)
    if bad.size:
        at = tuple(int(i) for i in bad[0])
        raise InvalidArgumentError(f"{fn}(segment_ids): segment_ids[{','.join(map(str, at))}] = "
                                   f"{int(ids[at])} is out of range [0, {n})")
    rows = ops.reshape(d, (ids.size,) + d.shape[ids.ndim:])
    ids = ids.reshape(-1)
    if (ids < 0).any():  # dropped, as TensorFlow drops them
        keep = np.flatnonzero(ids >= 0)
        rows, ids = ops.getitem(rows, xp_of(rows.value).asarray(keep)), ids[keep]
    return rows, ids, n


def summed(rows, ids, n):
    """The sum of each segment's rows (0 where it has none)."""
    index = xp_of(rows.value).asarray(ids.astype(np.intp))
    return ops.scatter_add(rows, (n,) + rows.shape[1:], index)


def counts_like(rows, ids, n, dtype):
    """How many rows each segment has, at least 1, shaped to divide its sum."""
    counts = np.maximum(np.bincount(ids, minlength=n), 1).astype(dtype)
    return Tensor(xp_of(rows.value).asarray(counts.reshape((n,) + (1,) * (rows.ndim - 1))))


def grouped(reduce, rows, ids, n, fill):
    """``reduce(block, axis=1)`` of each segment's rows, the segments of one length at a time
    (a block of shape ``(segments, length) + row shape``); ``fill`` where a segment is empty."""
    xp = xp_of(rows.value)
    counts = np.bincount(ids, minlength=n)
    order = np.argsort(ids, kind="stable")
    starts = np.cumsum(counts) - counts
    parts, place, taken = [], np.zeros(n, dtype=np.intp), 0
    if (counts == 0).any():
        parts.append(Tensor(xp.full((1,) + rows.shape[1:], fill, dtype=rows.dtype)))
        taken = 1
    for length in np.unique(counts[counts > 0]):
        segments = np.flatnonzero(counts == length)
        where = order[starts[segments][:, None] + np.arange(length)]
        parts.append(reduce(ops.getitem(rows, xp.asarray(where)), axis=1))
        place[segments] = taken + np.arange(segments.size)
        taken += segments.size
    if not parts:  # no segment at all
        return Tensor(xp.zeros((0,) + rows.shape[1:], dtype=rows.dtype))
    block = parts[0] if len(parts) == 1 else ops.concatenate(parts, axis=0)
    return ops.getitem(block, xp.asarray(place))


def extreme_fill(dtype, largest):
    """TensorFlow's value of an empty unsorted max (the lowest number) or min (the highest)."""
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if largest else info.max


def unsorted_extreme(reduce, rows, ids, n, largest):
    fill = extreme_fill(rows.dtype, largest)
    out = grouped(reduce, rows, ids, n, fill)
    if rows.dtype.kind == "f":  # TensorFlow starts from the fill: -inf comes out as the lowest
        beyond = out < fill if largest else out > fill
        out = ops.where(beyond, fill, out)
    return out


# -- sorted segment ids ----------------------------------------------------------------------
@composite("1 in its segment")
def segment_sum(data, segment_ids, name=None):
    """``tf.math.segment_sum``: ``output[i]`` is the sum of the rows of ``data`` whose id is
    ``i``; the ids are sorted (they may skip a segment: it sums to 0)."""
    d, ids, n = sorted_ids("tf.math.segment_sum", data, segment_ids)
    return summed(d, ids, n)


@composite("1 / count in its segment")
def segment_mean(data, segment_ids, name=None):
    """``tf.math.segment_mean``: the mean of each segment's rows (0 for an empty one;
    integers truncated, as TensorFlow's)."""
    d, ids, n = sorted_ids("tf.math.segment_mean", data, segment_ids)
    total = summed(d, ids, n)
    if d.dtype.kind != "f":
        return ops.astype(ops.trunc(total / counts_like(d, ids, n, float64)), d.dtype)
    return total / counts_like(d, ids, n, d.dtype)


@composite("[x == max] / ties in its segment")
def segment_max(data, segment_ids, name=None):
    """``tf.math.segment_max``: the largest of each segment's rows, elementwise (0 for an
    empty one); tied elements share the gradient equally, as in TensorFlow."""
    d, ids, n = sorted_ids("tf.math.segment_max", data, segment_ids)
    return grouped(ops.max, d, ids, n, 0)


@composite("[x == min] / ties in its segment")
def segment_min(data, segment_ids, name=None):
    """``tf.math.segment_min``: the smallest of each segment's rows (0 for an empty one)."""
    d, ids, n = sorted_ids("tf.math.segment_min", data, segment_ids)
    return grouped(ops.min, d, ids, n, 0)


@composite("product of the others in its segment")
def segment_prod(data, segment_ids, name=None):
    """``tf.math.segment_prod``: the product of each segment's rows (1 for an empty one); the
    gradient is the product of the others, exact where some are 0."""
    d, ids, n = sorted_ids("tf.math.segment_prod", data, segment_ids)
    return grouped(ops.prod, d, ids, n, 1)


# -- unsorted segment ids ----------------------------------------------------------------------
@composite("1 in its segment")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sum``: ``num_segments`` sums; ``segment_ids`` has the shape of
    the leading axes of ``data``, in any order; a negative id drops its row."""
    rows, ids, n = unsorted_ids("tf.math.unsorted_segment_sum", data, segment_ids, num_segments)
    return summed(rows, ids, n)


@composite("1 / count in its segment")
def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_mean``: each segment's mean (0 for an empty one; float64 for
    integer data, as TensorFlow's division gives)."""
    rows, ids, n = unsorted_ids("tf.math.unsorted_segment_mean", data, segment_ids, num_segments)
    total = summed(rows, ids, n)
    if rows.dtype.kind != "f":
        total = ops.astype(total, float64)
    return total / counts_like(rows, ids, n, total.dtype)


@composite("[x == max] / ties in its segment")
def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_max``: each segment's largest row, elementwise, at least the
    dtype's lowest number (an empty segment's value, as TensorFlow's)."""
    rows, ids, n = unsorted_ids("tf.math.unsorted_segment_max", data, segment_ids, num_segments)
    return unsorted_extreme(ops.max, rows, ids, n, largest=True)


@composite("[x == min] / ties in its segment")
def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_min``: each segment's smallest row, at most the dtype's
    highest number (an empty segment's value)."""
    rows, ids, n = unsorted_ids("tf.math.unsorted_segment_min", data, segment_ids, num_segments)
    return unsorted_extreme(ops.min, rows, ids, n, largest=False)


SEGMENTS = {f.__name__: f for f in (
    segment_sum, segment_mean, segment_max, segment_min, segment_prod, unsorted_segment_sum,
    unsorted_segment_mean, unsorted_segment_max, unsorted_segment_min)}  # tf.math's names
__all__ = [*SEGMENTS, "SEGMENTS"]
