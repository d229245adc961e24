"""``tf.scatter_nd`` and ``tf.tensor_scatter_nd_add``/``_sub``/``_update``: ``updates`` placed
at the coordinates in the last axis of ``indices``, built from the engine's ``scatter_add``
(the gradient of an index: each update's gradient is the upstream gathered at its coordinate,
and repeated coordinates add up) and ``where`` (an updated element of ``tensor`` gets no
gradient). Shapes and coordinates are checked first, with TensorFlow's errors.

``tensor_scatter_nd_update`` with a coordinate given twice keeps the last update, as
TensorFlow on a CPU does, and gives every update the upstream at its coordinate, as
TensorFlow's gradient does (the overwritten ones too): that case is one custom-gradient op.
"""

import numpy as np

from .._backend import xp_of
from ..core import ops
from ..core.custom import custom_gradient
from ..core.tensor import Tensor
from .errors import InvalidArgumentError
from .segments import dtype_word, host_ints
from .tensors import as_tensor, converted, not_supported, shape_of

INDEX_TYPES = ("int16", "int32", "int64")


def listed(shape):
    return f"[{','.join(map(str, shape))}]"


def coordinates(fn, idx, shape):
    """``idx`` (outer + (k,)) as one index tuple of 1-D arrays over the first k axes, each
    coordinate checked to lie in ``shape`` (TensorFlow's error names the first that does not)."""
    k = idx.shape[-1]
    flat = idx.reshape(-1, k)
    bad = np.flatnonzero(((flat < 0) | (flat >= np.array(shape[:k], dtype=np.int64))).any(axis=1))
    if bad.size:
        at = np.unravel_index(bad[0], idx.shape[:-1])
        raise InvalidArgumentError(
            f"{fn}(indices): indices[{','.join(str(int(i)) for i in at)}] = "
            f"[{', '.join(str(int(v)) for v in flat[bad[0]])}] does not index into shape {listed(shape)}")
    return flat


def updates_rows(u, idx):
    """``updates`` as one row per coordinate (shape ``(m,) + slice shape``)."""
    return ops.reshape(u, (int(np.prod(idx.shape[:-1], dtype=np.int64)),) + u.shape[idx.ndim - 1:])


def index_of(flat, like):
    xp = xp_of(like.value)
    return tuple(xp.asarray(flat[:, j].astype(np.intp)) for j in range(flat.shape[1]))


def checked_for_tensor(fn, op, tensor, indices, updates):
    """``(tensor, rows of updates, coordinates)`` for the ``tensor_scatter_nd_*`` family, in
    the order TensorFlow checks them."""
    t = as_tensor(tensor)
    u = updates if isinstance(updates, Tensor) else converted(fn, updates, t.dtype)  # a list packed
    idx = host_ints(fn, "indices", "Tindices", as_tensor(indices), INDEX_TYPES + ("uint16",))
    if idx.ndim == 0:
        raise InvalidArgumentError(f"{fn}(indices): Indices shape must have rank at least one. Found:[]")
    if u.ndim == 0:
        raise InvalidArgumentError(f"{fn}(updates): Updates shape must have rank at least one. Found:[]")
    if idx.ndim == 1:
        raise not_supported(f"{fn}(indices of shape {listed(idx.shape)})", "indices of rank 1, which "
                            "TensorFlow reads inconsistently", "give one coordinate per row: indices=[[...]]")
    k = idx.shape[-1]
    if k == 0:
        raise InvalidArgumentError(f"{fn}(indices): Indices and updates specified for empty output shape")
    if idx.shape[:-1] != u.shape[:idx.ndim - 1]:
        raise InvalidArgumentError(
            f"{fn}(updates): Outer dimensions of indices and update must match. Indices shape: "
            f"{listed(idx.shape)}, updates shape:{listed(u.shape)}")
    if k > t.ndim or t.shape[k:] != u.shape[idx.ndim - 1:]:
        raise InvalidArgumentError(
            f"{fn}(updates): Inner dimensions of output shape must match inner dimensions of updates "
            f"shape. Output: {listed(t.shape)} updates: {listed(u.shape)}")
    if u.dtype != t.dtype:
        raise InvalidArgumentError(
            f"{fn}(updates): cannot compute {op} as input #2(zero-based) was expected to be a "
            f"{dtype_word(t.dtype)} tensor but is a {dtype_word(u.dtype)} tensor")
    return t, updates_rows(u, idx), coordinates(fn, idx, t.shape)


def scatter_nd(indices, updates, shape, name=None):
    """``tf.scatter_nd``: zeros of ``shape`` with each row of ``updates`` added at its
    coordinate in ``indices`` (repeated coordinates add up)."""
    fn = "tf.scatter_nd"
    u = as_tensor(updates)
    idx = host_ints(fn, "indices", "Tindices", as_tensor(indices), INDEX_TYPES)
    dims = np.asarray(shape.numpy() if isinstance(shape, Tensor) else shape)
    if dims.ndim != 1:
        raise InvalidArgumentError(f"{fn}(shape): Shape must be a vector")
    out = shape_of(dims.tolist())
    for n in out:
        if n < 0:
            raise InvalidArgumentError(f"{fn}(shape): Dimension {n} must be >= 0")
    if idx.ndim == 0 or u.ndim == 0:
        raise InvalidArgumentError(f"{fn}(updates): Updates shape must have rank at least one. "
                                   f"Found:{listed(u.shape)}")
    k, b = idx.shape[-1], idx.ndim - 1
    if k == 0:
        raise InvalidArgumentError(f"{fn}(indices): Indices and updates specified for empty output shape")
    if idx.shape[:b] != u.shape[:b]:
        raise InvalidArgumentError(
            f"{fn}(updates): Dimensions [0,{b}) of indices[shape={listed(idx.shape)}] must match "
            f"dimensions [0,{b}) of updates[shape={listed(u.shape)}]")
    if k > len(out) or out[k:] != u.shape[b:]:
        raise InvalidArgumentError(
            f"{fn}(updates): Dimensions [{k},{len(out)}) of input[shape={listed(out)}] must match "
            f"dimensions [{b},{u.ndim}) of updates[shape={listed(u.shape)}]")
    flat = coordinates(fn, idx, out)
    return ops.scatter_add(updates_rows(u, idx), out, index_of(flat, u))


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_add``: ``tensor`` with each row of ``updates`` added at its
    coordinate (repeated coordinates add up)."""
    t, rows, flat = checked_for_tensor("tf.tensor_scatter_nd_add", "TensorScatterAdd", tensor,
                                       indices, updates)
    return t + ops.scatter_add(rows, t.shape, index_of(flat, t))


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_sub``: ``tensor`` with each row of ``updates`` subtracted at its
    coordinate."""
    t, rows, flat = checked_for_tensor("tf.tensor_scatter_nd_sub", "TensorScatterSub", tensor,
                                       indices, updates)
    return t - ops.scatter_add(rows, t.shape, index_of(flat, t))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tf.tensor_scatter_nd_update``: ``tensor`` with the elements (or slices) at the
    coordinates replaced by ``updates``; those elements of ``tensor`` get no gradient, each
    update gets the upstream at its coordinate. A coordinate given twice keeps the last
    update (and both get that upstream, as in TensorFlow)."""
    t, rows, flat = checked_for_tensor("tf.tensor_scatter_nd_update", "TensorScatterUpdate",
                                       tensor, indices, updates)
    spot = xp_of(t.value).zeros(t.shape, dtype=bool)
    index = index_of(flat, t)
    spot[index] = True
    at = np.ravel_multi_index(tuple(flat.T), t.shape[:flat.shape[1]]) if flat.size else flat[:, 0]
    last = len(at) - 1 - np.unique(at[::-1], return_index=True)[1]
    if last.size == len(at):  # no coordinate twice: the engine's ops give TensorFlow's gradient
        return ops.where(spot, ops.scatter_add(rows, t.shape, index), t)
    return replaced(t, rows, spot=spot, index=index, last=xp_of(t.value).asarray(np.sort(last)))


@custom_gradient
def replaced(t, rows, spot=None, index=None, last=None):
    """``t`` with its elements at ``index`` replaced by the rows ``last`` of ``rows`` (one per
    coordinate); TensorFlow's gradient gives every row the upstream at its coordinate."""
    kept = ops.getitem(rows, last)
    y = ops.where(spot, ops.scatter_add(kept, t.shape, tuple(i[last] for i in index)), t)

    def grad_fn(upstream):
        return [ops.where(spot, 0, upstream), ops.getitem(upstream, index)]
    return y, grad_fn


__all__ = ["scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_update"]
