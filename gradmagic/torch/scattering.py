"""Writes at indices, as PyTorch 2.13.0's: ``scatter_reduce`` (``"sum"``, ``"prod"``,
``"mean"``, ``"amax"``, ``"amin"``, with or without ``self``'s values), ``index_put``
(``accumulate`` or not) and ``masked_scatter``; methods and ``torch.<name>``, their
in-place forms from ``methods.IN_PLACE``.

``scatter_reduce`` is an op of its own (``SCATTER_REDUCE``) whose rules are PyTorch's: an
``amax``/``amin`` shares its gradient evenly among the values equal to the result, ``self``'s
too; a ``prod``'s gradient at a zero is the product of the others (one zero in its group),
or 0; what ``include_self=False`` leaves out of ``self`` gets none. The rules are written
with the engine's ops (the ``prod`` rule with this op again), so ``create_graph`` works.
``index_put`` and ``masked_scatter`` are the engine's indexed writes.
"""

from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.primitive import Primitive, apply, defvjp
from ..core.tensor import Tensor as CoreTensor
from ..core.tensor import raw
from .methods import scatter_checked
from .values import named, type_name

REDUCES = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _start(reduce, dtype):
    """What a group starts from without ``self``: the reduction's identity in ``dtype``."""
    if reduce in ("sum", "mean", "prod"):
        return int(reduce == "prod")
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _counts(shape, at, include_self):
    """How many values each position of the result reduces (``self``'s included or not)."""
    n = np.full(shape, int(include_self), np.int64)
    np.add.at(n, at, 1)
    return n


def _scatter_reduce(xp, x, src, at=(), reduce="sum", include_self=True):
    out = np.array(x, copy=True)
    if not include_self:
        out[at] = _start(reduce, out.dtype)
    REDUCES[reduce].at(out, at, src)
    if reduce == "mean":  # (an integer mean rounds down, as PyTorch's)
        n = np.maximum(_counts(out.shape, at, include_self), 1)
        out = (out // n if out.dtype.kind in "iu" else out / n).astype(out.dtype)
    return out


def _scattered_mask(shape, at):
    spot = np.zeros(shape, bool)
    spot[at] = True
    return spot


def _extremes(ans, x, src, at):
    """``amax``/``amin``: which of ``self`` and ``src`` equal the result, and how many per position."""
    ans, x, src = raw(ans), raw(x), raw(src)
    self_is, src_is = x == ans, src == ans[at]
    n = self_is.astype(np.int64)
    np.add.at(n, at, src_is)
    return self_is, src_is, np.maximum(n, 1)


def _self_vjp(g, ans, x, src, at=(), reduce="sum", include_self=True):
    dtype = raw(x).dtype
    if reduce == "sum":
        gx = g
    elif reduce == "mean":
        gx = g / np.maximum(_counts(raw(x).shape, at, include_self), 1).astype(dtype)
    elif reduce == "prod":  # the product of the others: self's zeros taken out first
        masked = ops.where(raw(x) == 0, np.ones((), dtype), x)
        gx = g * apply(SCATTER_REDUCE, masked, src, at=at, reduce=reduce, include_self=include_self) / masked
    else:
        self_is, _, n = _extremes(ans, x, src, at)
        gx = g * (self_is / n).astype(dtype)
    return gx if include_self else ops.where(_scattered_mask(raw(x).shape, at), np.zeros((), dtype), gx)


def _src_vjp(g, ans, x, src, at=(), reduce="sum", include_self=True):
    dtype = raw(x).dtype
    if reduce == "sum":
        return ops.getitem(g, at)
    if reduce == "mean":
        return ops.getitem(g / np.maximum(_counts(raw(x).shape, at, include_self), 1).astype(dtype), at)
    if reduce == "prod":  # a lone zero in its group: the product of the others; else out / src
        zero = raw(src) == 0
        zeros = np.zeros(raw(x).shape, np.int64)
        np.add.at(zeros, at, zero)
        single = zero & (zeros[at] == 1)
        one = np.ones((), dtype)
        others = apply(SCATTER_REDUCE, x, ops.where(single, one, src), at=at, reduce=reduce,
                       include_self=include_self)
        out = apply(SCATTER_REDUCE, x, src, at=at, reduce=reduce, include_self=include_self)
        return ops.where(single, ops.getitem(g * others, at),
                         ops.getitem(g * out, at) / ops.where(zero, one, src))
    _, src_is, n = _extremes(ans, x, src, at)
    return ops.getitem(g / n.astype(dtype), at) * src_is.astype(dtype)


SCATTER_REDUCE = Primitive("scatter_reduce", _scatter_reduce)
defvjp(SCATTER_REDUCE, _self_vjp, _src_vjp, labels=("g, PyTorch's rule", "g at the index, PyTorch's rule"))


def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
    """``src[i][j]`` reduced into ``[index[i][j]][j]`` of ``self`` for ``dim=0`` (and so on),
    with ``self``'s value there where ``include_self``."""
    if reduce not in REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    at, src = scatter_checked("scatter_reduce", self, dim, index, src, prefixed=False)
    return named(apply(SCATTER_REDUCE, self, src, at=at, reduce=reduce, include_self=include_self),
                 "ScatterReduceBackward0")


def _put_index(self, indices):
    """``index_put``'s ``indices`` (a tuple of index tensors) as NumPy's advanced index."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    out, axis = [], 0
    for i in indices:
        i = np.asarray(raw(i))
        if i.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if i.dtype.kind == "u" and i.dtype.itemsize == 1:  # (a byte tensor is a mask, as PyTorch's)
            i = i.astype(bool)
        if i.dtype.kind != "b":
            size = self.value.shape[axis]
            bad = (i < -size) | (i >= size)
            if bool(bad.any()):
                raise IndexError(f"index {int(i[bad].ravel()[0])} is out of bounds for dimension "
                                 f"{axis} with size {size}")
        axis += max(i.ndim, 1) if i.dtype.kind == "b" else 1
        out.append(i)
    return tuple(out)


def index_put(self, indices, values, accumulate=False):
    """``self`` with ``values`` written (or added, with ``accumulate``) at ``self[indices]``."""
    at = _put_index(self, indices)
    if isinstance(values, CoreTensor) and values.dtype != self.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{type_name(self.dtype)} for the destination and {type_name(values.dtype)} "
                           "for the source.")
    return named((ops.index_add if accumulate else ops.index_set)(self, at, values), "IndexPutBackward0")


def masked_scatter(self, mask, source):
    """``self`` with ``source``'s first elements (in order) where ``mask`` holds."""
    m = np.asarray(raw(mask))
    if m.dtype.kind != "b":
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{type_name(m.dtype)}")
    m = np.broadcast_to(m, self.value.shape)
    n = int(m.sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    picked = ops.getitem(ops.reshape(source, (-1,)), slice(0, n))
    return named(ops.index_set(self, m, picked), "MaskedScatterBackward0")


METHODS = {f.__name__: f for f in (scatter_reduce, index_put, masked_scatter)}
FUNCTIONS = {}
