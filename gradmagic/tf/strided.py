"""``tf.strided_slice`` and ``tf.tensor_scatter_nd_max``/``_min``.

``strided_slice`` turns TensorFlow's ``begin``/``end``/``strides`` and its five bit masks
into one NumPy index (slices, ints for shrunk axes, None for new ones, an Ellipsis), checked
with TensorFlow's errors, and reads it with the engine's ``getitem``: the gradient goes back
to the elements read. Python's slice rules are TensorFlow's (a begin or end past the ends is
clamped; a shrunk axis's index must lie inside).

``tensor_scatter_nd_max``/``_min`` compute the result on the host and carry TensorFlow's
gradient (``_TensorScatterMinOrMaxGrad``): the upstream goes to every input equal to the
result at its element, shared equally among the ties.
"""

import numpy as np

from .._backend import to_host, xp_of
from ..core import ops
from ..core.custom import custom_gradient
from ..core.tensor import Tensor
from .errors import InvalidArgumentError
from .scatter import checked_for_tensor, index_of
from .segments import host_ints
from .tensors import as_tensor

INDEX_TYPES = ("int16", "int32", "int64")


def spec_of(fn, name, value):
    return host_ints(fn, name, "Index", as_tensor(value), INDEX_TYPES)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """``tf.strided_slice``: ``input_[begin[0]:end[0]:strides[0], ...]``, where bit ``i`` of
    ``begin_mask``/``end_mask`` leaves out ``begin[i]``/``end[i]``, of ``ellipsis_mask``
    makes entry ``i`` an Ellipsis, of ``new_axis_mask`` a new axis of length 1, and of
    ``shrink_axis_mask`` the single index ``begin[i]`` (the axis removed)."""
    fn = "tf.strided_slice"
    t = as_tensor(input_)
    b, e = spec_of(fn, "begin", begin), spec_of(fn, "end", end)
    s = np.ones_like(b) if strides is None else spec_of(fn, "strides", strides)
    if b.ndim != 1 or b.shape != e.shape or b.shape != s.shape:
        raise InvalidArgumentError(
            f"{fn}: Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"[{','.join(map(str, b.shape))}], [{','.join(map(str, e.shape))}], and "
            f"[{','.join(map(str, s.shape))}] instead.")
    n = b.size
    bits = [[bool(int(mask) >> i & 1) for i in range(n)] for mask in
            (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)]
    begins, ends, ellipses, new_axes, shrinks = bits
    if sum(ellipses) > 1:
        raise InvalidArgumentError(f"{fn}: Multiple ellipses in slice spec not allowed")
    index, dim = [], 0
    for i in range(n):
        if ellipses[i]:  # the axes that the entries after it do not name
            named = sum(1 for j in range(i + 1, n) if not new_axes[j])
            dim = max(dim, t.ndim - named)
            index.append(Ellipsis)
            continue
        if new_axes[i]:
            index.append(None)
            continue
        if dim >= t.ndim:
            raise InvalidArgumentError(f"{fn}: Index out of range using input dim {dim}; input has "
                                       f"only {t.ndim} dims")
        if s[i] == 0:
            raise InvalidArgumentError(f"{fn}: strides[{i}] must be non-zero")
        size = t.shape[dim]
        if shrinks[i]:
            k = int(b[i]) + (size if b[i] < 0 else 0)
            if not 0 <= k < size:
                raise InvalidArgumentError(f"{fn}: slice index {int(b[i])} of dimension {dim} out of "
                                           "bounds.")
            index.append(k)
        else:
            index.append(slice(None if begins[i] else int(b[i]), None if ends[i] else int(e[i]),
                               int(s[i])))
        dim += 1
    return ops.getitem(t, tuple(index))


# -- tensor_scatter_nd_max / _min ------------------------------------------------------------
def scattered_extreme(fn, op, tensor, indices, updates, largest):
    t, rows, flat = checked_for_tensor(fn, op, tensor, indices, updates)
    index = index_of(flat, t)
    return extreme(t, rows, index=index, largest=largest)


@custom_gradient
def extreme(t, rows, index=None, largest=True):
    """``t`` with each of ``rows`` folded in at ``index`` by max (or min); the gradient
    shares the upstream among the inputs equal to the result, as TensorFlow's."""
    xp = xp_of(t.value)
    out = np.array(to_host(t.value), copy=True)
    host_index = tuple(np.asarray(to_host(i)) for i in index)
    (np.maximum if largest else np.minimum).at(out, host_index, np.asarray(to_host(rows.value)))
    y = Tensor(xp.asarray(out))

    def grad_fn(upstream):
        g = upstream if isinstance(upstream, Tensor) else Tensor(upstream)
        t_hit = ops.astype(ops.equal(t, y), g.dtype)
        rows_hit = ops.astype(ops.equal(rows, ops.getitem(y, index)), g.dtype)
        ties = t_hit + ops.scatter_add(rows_hit, t.shape, index)
        share = g / ops.where(ties == 0, 1, ties)
        return [share * t_hit, ops.getitem(share, index) * rows_hit]
    return y, grad_fn


def tensor_scatter_nd_max(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tf.tensor_scatter_nd_max``: ``tensor`` with each element (or slice) at a coordinate
    of ``indices`` the largest of it and the updates there."""
    return scattered_extreme("tf.tensor_scatter_nd_max", "TensorScatterMax", tensor, indices,
                             updates, True)


def tensor_scatter_nd_min(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tf.tensor_scatter_nd_min``: as ``tensor_scatter_nd_max``, the smallest."""
    return scattered_extreme("tf.tensor_scatter_nd_min", "TensorScatterMin", tensor, indices,
                             updates, False)


__all__ = ["strided_slice", "tensor_scatter_nd_max", "tensor_scatter_nd_min"]
