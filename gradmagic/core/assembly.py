"""Arrays NumPy assembles from others, on Tensors: ``meshgrid``, ``block``,
``lib.stride_tricks.sliding_window_view`` and ``apply_along_axis``.

Each is composed from the op catalogue (reshapes, broadcasts, concatenations, one gather
for the windows, a stack of ``func1d``'s results), so every Tensor among the pieces gets
its gradient, to any order. The windows are gathered by index, a copy where NumPy gives a
read-only view. ``linalg.cond`` is here too, composed of ``svd``, ``norm`` and ``inv``.
"""

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..errors import GradientValueError
from . import ops
from .primitive import composite
from .tensor import Tensor, as_array_of, module_of, raw




def _shape(x):
    return tuple(np.shape(raw(x)))


@composite("1 (each grid repeats its vector)")
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """``np.meshgrid``: each vector reshaped along its own axis (the first two swapped for
    ``indexing="xy"``) and, unless ``sparse``, broadcast to the full grid."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    mod = module_of(*xi)
    ndim = len(xi)
    shapes = [(1,) * i + (-1,) + (1,) * (ndim - i - 1) for i in range(ndim)]
    if indexing == "xy" and ndim > 1:
        shapes[0] = (1, -1) + (1,) * (ndim - 2)
        shapes[1] = (-1, 1) + (1,) * (ndim - 2)
    out = [ops.reshape(as_array_of(x, mod), s) for x, s in zip(xi, shapes)]
    if not sparse:
        full = np.broadcast_shapes(*[_shape(o) for o in out])
        out = [ops.broadcast_to(o, full) for o in out]
        if copy:
            out = [o + 0 if not isinstance(o, Tensor) else ops.multiply(o, 1) for o in out]
    return tuple(out)


def _depth(a, fn="np.block"):
    """The nesting depth of the lists in ``a`` (all leaves at one depth, as NumPy requires)."""
    if type(a) is tuple:
        raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, and np.block "
                        "does not allow implicit conversion from tuple to ndarray.")
    if type(a) is not list:
        return 0
    if not a:
        raise ValueError("Lists cannot be empty")
    depths = {_depth(x) for x in a}
    if len(depths) != 1:
        raise ValueError("List depths are mismatched. All lists in np.block must be equally deep.")
    return 1 + depths.pop()


def _leaves(a):
    return [leaf for x in a for leaf in _leaves(x)] if type(a) is list else [a]


@composite("1")
def block(arrays):
    """``np.block``: the innermost lists joined along the last axis, the next along the one
    before, and so on, each piece given leading axes of 1 up to the result's dimensions."""
    depth = _depth(arrays)
    mod = module_of(*_leaves(arrays))
    leaves = [as_array_of(x, mod) for x in _leaves(arrays)]
    ndim = max([depth] + [len(_shape(x)) for x in leaves])

    def join(a, level):
        if type(a) is list:
            return ops.concatenate([join(x, level + 1) for x in a], axis=-(depth - level))
        a = as_array_of(a, mod)
        shape = _shape(a)
        return ops.reshape(a, (1,) * (ndim - len(shape)) + shape) if len(shape) < ndim else a

    out = join(arrays, 0)
    return out if depth else ops.multiply(out, 1)


@composite("1 (each element to the windows it is in)")
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """``np.lib.stride_tricks.sliding_window_view``: every window, gathered by index (the
    positions NumPy's view would read)."""
    if writeable:
        raise GradientValueError("sliding_window_view(writeable=True) of a Tensor: its windows are "
                                 "copies here (a Tensor's values are never written through a view)")
    mod = module_of(x)
    x = as_array_of(x, mod)
    shape = _shape(x)
    positions = np.arange(int(np.prod(shape))).reshape(shape)
    index = np.lib.stride_tricks.sliding_window_view(positions, window_shape, axis)
    index = mod.asarray(np.ascontiguousarray(index)) if mod is not np else np.ascontiguousarray(index)
    return ops.getitem(ops.reshape(x, (-1,)), index)


@composite("func1d's, slice by slice")
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``np.apply_along_axis``: ``func1d`` on each 1-D slice along ``axis`` (a Tensor), its
    results stacked where the slices were, as NumPy arranges them."""
    mod = module_of(arr)
    arr = as_array_of(arr, mod)
    nd = len(_shape(arr))
    axis = normalize_axis_index(int(axis), nd)
    moved = ops.moveaxis(arr, axis, -1)
    outer = _shape(moved)[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [func1d(ops.getitem(moved, index), *args, **kwargs) for index in np.ndindex(*outer)]
    results = [r if isinstance(r, Tensor) or hasattr(r, "shape") else np.asarray(r) for r in results]
    rshape = _shape(results[0])
    out = ops.reshape(ops.stack(results), outer + rshape)
    k = len(rshape)
    dims = list(range(len(outer) + k))
    return ops.transpose(out, dims[:axis] + dims[len(outer):] + dims[axis:len(outer)])


@composite("the norms' change")
def cond(x, p=None):
    """``np.linalg.cond``: the largest singular value over the smallest (``p`` None, 2 or
    -2, the inverse), or ``norm(x, p) * norm(inv(x), p)``; NaN made infinite where ``x`` has
    none, as NumPy."""
    mod = module_of(x)
    x = as_array_of(x, mod)
    shape = _shape(x)
    if len(shape) >= 2 and 0 in shape[-2:]:
        raise np.linalg.LinAlgError("cond is not defined on empty arrays")
    if p is None or p == 2 or p == -2:
        s = np.linalg.svd(x, compute_uv=False)
        first, last = ops.getitem(s, (Ellipsis, 0)), ops.getitem(s, (Ellipsis, -1))
        with np.errstate(all="ignore"):
            r = last / first if p == -2 else first / last
    else:
        if len(shape) < 2 or shape[-1] != shape[-2]:
            raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")
        r = np.linalg.norm(x, p, axis=(-2, -1)) * np.linalg.norm(np.linalg.inv(x), p, axis=(-2, -1))
    nan = np.isnan(raw(r))
    if nan.any():
        nan &= ~np.isnan(raw(x)).any(axis=(-2, -1))
        r = ops.where(nan, np.inf, r)
    return r


FUNCTIONS = {
    np.meshgrid: meshgrid, np.block: block, np.apply_along_axis: apply_along_axis,
    np.lib.stride_tricks.sliding_window_view: sliding_window_view, np.linalg.cond: cond,
}
