"""More of ``torch.Tensor``'s methods, each made of the engine's ops as PyTorch 2.13.0
computes it: ``tan``; indexing (``masked_fill``, ``index_select``, ``gather``,
``scatter_add``); ``repeat``, ``split``, ``chunk``; order statistics (``topk``, ``median``);
``det`` and ``inverse`` (``torch.linalg``'s). ``install`` attaches them to the class, as
the op layer installs a Tensor's operators; ``torch.dist`` is here too.

Indices are constants: the gradient flows to the values picked (a gather's rule scatters
it back, repeated indices adding up). ``median`` without ``dim`` spreads its gradient
evenly over the elements equal to it, as PyTorch's does.

>>> import gradmagic.torch as torch
>>> x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> x.gather(1, torch.tensor([[1], [0]]))
tensor([[2.],
        [3.]], grad_fn=<GatherBackward0>)
"""

from __future__ import annotations

import math

import numpy as np

from .._backend import xp_of
from ..core import layout, ops, statistics
from ..core.kinks import maximum_halves, minimum_halves
from ..core.tensor import Tensor as CoreTensor
from .graph import as_tensor_of, replaced
from .order import refusing
from .modes import GRAD
from .linalg import det, inv
from .subgradients import vector_norm
from .tensor import make, values_indices
from .values import ELEMENT_TYPES, axis_of, broadcast_shape, dims, named, sizes_of
from .views import make_view, piece_of


def _dim(fn, dim, ndim):
    """``dim`` as a non-negative axis, or PyTorch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"{fn}(dim={dim}): Dimension out of range (expected to be in range of "
                         f"[{-n}, {n - 1}], but got {dim})")
    return dim % n


def _index(fn, index, expected="int32/int64"):
    """The raw integer array of an index tensor, or PyTorch's error."""
    value = getattr(index, "value", index)
    if not hasattr(value, "dtype"):
        value = np.asarray(value)
    if value.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}(): Expected dtype {expected} for index")
    return value


def _in_bounds(fn, idx, dim, size, where=None):
    bad = (idx < 0) | (idx >= size)
    if bool(bad.any()):
        where = f"{fn}(index): " if where is None else where
        raise RuntimeError(f"{where}index {int(idx[bad].ravel()[0])} is out of bounds for "
                           f"dimension {dim} with size {size}")


def index_grid(idx, dim):
    """The advanced index that picks ``x[..., idx[i, j, ...] (along dim), ...]`` at each
    position of ``idx``: ``idx`` on ``dim``, the positions' own coordinates elsewhere."""
    xp = xp_of(idx)
    nd = idx.ndim
    return tuple(idx if k == dim else xp.reshape(xp.arange(n), (1,) * k + (n,) + (1,) * (nd - k - 1))
                 for k, n in enumerate(idx.shape))


def tan(self):
    return np.tan(self)


def masked_fill(self, mask, value, *, in_place=False):
    """``value`` where ``mask`` (bool, broadcast) holds, else ``self``; a tensor ``value``
    (0-d) gets the gradient of the places it fills."""
    fn = "masked_fill_" if in_place else "masked_fill"
    m = getattr(mask, "value", mask)
    if m.dtype.kind != "b":
        raise RuntimeError(f"{fn}(mask): masked_fill_ only supports boolean masks, but got mask "
                           f"with dtype {ELEMENT_TYPES.get(np.dtype(m.dtype).name, m.dtype)}")
    shape = broadcast_shape(f"{fn}(mask)", m.shape, self.value.shape)
    if in_place and shape != self.value.shape:
        raise RuntimeError(f"{fn}(mask): output with shape {list(self.value.shape)} doesn't match "
                           f"the broadcast shape {list(shape)}")
    if hasattr(value, "value"):
        if value.value.ndim:
            raise RuntimeError(f"{fn}(value): masked_fill_ only supports a 0-dimensional value "
                               f"tensor, but got tensor with {value.value.ndim} dimension(s).")
        fill, label = (value if value.dtype == self.dtype else value.type(self.dtype)), "MaskedFillBackward1"
    else:
        fill, label = np.asarray(value).astype(self.dtype), "MaskedFillBackward0"
    return named(ops.where(m, fill, self), label)


def index_select(self, dim, index):
    """The slices at ``index`` (a vector of ints) along ``dim``."""
    idx = _index("index_select", index, "int32 or int64")
    if idx.ndim > 1:
        raise IndexError("index_select(index): Index is supposed to be a vector")
    d = _dim("index_select", dim, self.value.ndim)
    size = self.value.shape[d] if self.value.ndim else 1
    if bool(((idx < 0) | (idx >= size)).any()):
        raise IndexError("index_select(index): index out of range in self")
    if not self.value.ndim:
        return named(ops.reshape(self, (1,) * idx.size), "IndexSelectBackward0")
    at = (slice(None),) * d + (idx.reshape(-1),)
    return named(ops.getitem(self, at), "IndexSelectBackward0")


def gather(self, dim, index, *, sparse_grad=False):
    """``out[i][j] = self[index[i][j]][j]`` for ``dim=0`` (and so on): ``index`` has
    ``self``'s ndim and no larger a size but along ``dim``."""
    idx = _index("gather", index)
    d = _dim("gather", dim, self.value.ndim)
    if idx.ndim != self.value.ndim:
        raise RuntimeError("gather(index): Index tensor must have the same number of dimensions as input tensor")
    shape = self.value.shape
    for k in range(idx.ndim):
        if k != d and idx.shape[k] > shape[k]:
            raise RuntimeError(f"gather(index): Size does not match at dimension {k} expected index "
                               f"{list(idx.shape)} to be no larger than self {list(shape)} apart from "
                               f"dimension {d}")
    _in_bounds("gather", idx, d, shape[d])
    return named(ops.getitem(self, index_grid(idx, d)), "GatherBackward0")


def scatter_checked(name, self, dim, index, src, prefixed=True):
    """``scatter``'s and ``scatter_add``'s checks, in PyTorch's words (``scatter_reduce``'s
    without the ``name(index): `` prefix): ``(index grid, src cut to the index's shape)``."""
    at, of_src = (f"{name}(index): ", f"{name}(src): ") if prefixed else ("", "")
    idx = _index(name if prefixed else "scatter", index)
    d = _dim(name, dim, self.value.ndim)
    if src.dtype != self.dtype:
        raise RuntimeError(f"{of_src}scatter(): Expected self.dtype to be equal to src.dtype")
    for which, other in (("self", self.value), ("src", src.value)):
        if idx.ndim != other.ndim:
            raise RuntimeError(f"{at}Index tensor must have the same number of dimensions as {which} tensor")
    shape, src_shape = self.value.shape, src.value.shape
    if any((k != d and i > s) or i > t for k, (i, s, t) in enumerate(zip(idx.shape, shape, src_shape))):
        raise RuntimeError(f"{at}Expected index {list(idx.shape)} to be no larger than "
                           f"self {list(shape)} apart from dimension {d} and to be no larger size than "
                           f"src {list(src_shape)}")
    _in_bounds(name, idx, d, shape[d], at)
    if src_shape != idx.shape:
        src = ops.getitem(src, tuple(slice(0, n) for n in idx.shape))
    return index_grid(idx, d), src


def scatter_add(self, dim, index, src):
    """``self`` with ``src[i][j]`` added at ``[index[i][j]][j]`` for ``dim=0`` (and so on),
    repeated indices adding up; differentiable in ``self`` and ``src``."""
    at, src = scatter_checked("scatter_add", self, dim, index, src)
    return named(ops.index_add(self, at, src), "ScatterAddBackward0")


def scatter(self, dim, index, src=None, *, value=None, reduce=None):
    """``self`` with ``src[i][j]`` (or ``value``) written at ``[index[i][j]][j]`` for
    ``dim=0`` (and so on); the gradient of ``self`` is 0 where it was written over, and
    ``src`` gets the gradient of where each of its elements went. Where an index repeats,
    the last write wins (PyTorch leaves which one unspecified)."""
    if reduce == "add":
        return scatter_add(self, dim, index, src)
    if reduce is not None:
        raise NotImplementedError(f"scatter(reduce={reduce!r}) is not supported in gradmagic.torch "
                                  "(PyTorch deprecates it): use scatter_reduce's arithmetic by hand")
    if src is None or not isinstance(src, CoreTensor):
        fill = value if src is None else src
        src = as_tensor_of(np.full(np.shape(index.value if isinstance(index, CoreTensor) else index),
                                   fill, self.value.dtype), self)
        label = "ScatterBackward1"
    else:
        label = "ScatterBackward0"
    at, src = scatter_checked("scatter", self, dim, index, src)
    return named(ops.index_set(self, at, src), label)


def repeat(self, *sizes):
    """``self`` tiled ``sizes`` times along each axis (``np.tile``); the gradient sums the copies."""
    sizes = sizes_of(sizes)
    if len(sizes) < self.value.ndim:
        raise RuntimeError("repeat(sizes): Number of dimensions of repeat dims can not be smaller "
                           "than number of dimensions of tensor")
    if any(s < 0 for s in sizes):
        shape = (1,) * (len(sizes) - self.value.ndim) + self.value.shape
        raise RuntimeError(f"repeat(sizes): Trying to create tensor with negative dimension "
                           f"{min(sizes)}: {[s * n for s, n in zip(sizes, shape)]}")
    return named(layout.tile(self, sizes), "RepeatBackward0")


def _pieces(self, bounds, d, label):
    def piece(k, a, b):  # a view, as PyTorch's
        index = (slice(None),) * d + (slice(a, b),)
        return make_view(self, lambda base: named(ops.getitem(base, index), label), piece_of(index, k, label))
    return tuple(piece(k, a, b) for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])))


def split(self, split_size_or_sections, dim=0):
    """Pieces of ``split_size`` along ``dim`` (the last one smaller), or of the sizes listed."""
    d = _dim("split", dim, self.value.ndim)
    n = self.value.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError("split(split_size_or_sections): split_with_sizes expects split_sizes "
                               f"have only non-negative entries, but got split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split(split_size_or_sections): split_with_sizes expects split_sizes "
                               f"to sum exactly to {n} (input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
        return _pieces(self, np.cumsum([0] + sizes).tolist(), d, "SplitWithSizesBackward0")
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split(split_size): split expects split_size be non-negative, but got "
                           f"split_size={size}")
    if size == 0 and n:
        raise RuntimeError(f"split(split_size): split_size can only be 0 if dimension size is 0, but "
                           f"got dimension size of {n}")
    bounds = list(range(0, n, size)) + [n] if n else [0, 0]
    return _pieces(self, bounds, d, "SplitBackward0")


def chunk(self, chunks, dim=0):
    """``chunks`` pieces (or fewer) of ``ceil(size / chunks)`` along ``dim``."""
    if chunks <= 0:
        raise RuntimeError(f"chunk(chunks): chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _dim("chunk", dim, self.value.ndim)
    return split(self, max(math.ceil(self.value.shape[d] / chunks), 1), d)


def topk(self, k, dim=-1, largest=True, sorted=True):  # noqa: A002  (PyTorch's name)
    """The ``k`` largest (smallest) values along ``dim``, sorted, and their indices; NaN
    counts as the largest, as PyTorch's. The gradient goes to the values picked."""
    d = _dim("topk", dim, self.value.ndim)
    n = self.value.shape[d] if self.value.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"topk(k={k}): selected index k out of range")
    x = self if self.value.ndim else ops.reshape(self, (1,))
    v = x.value
    xp = xp_of(v)
    key = v if not largest else (xp.where(xp.isnan(v), -xp.inf, -v) if v.dtype.kind == "f" else -v)
    index = xp.take(xp.argsort(key, axis=d, kind="stable"), xp.arange(k), axis=d)
    values = statistics.take_along_axis(x, index, axis=d)
    if not self.value.ndim:
        values, index = ops.reshape(values, ()), index.reshape(())
    return values_indices["topk"](named(values, "TopkBackward0"), as_tensor_of(index, self))


def median(self, dim=None, keepdim=False):
    """No ``dim``: the lower median of all elements (NaN if one is), its gradient spread
    evenly over the elements equal to it. With ``dim``: ``(values, indices)`` along it,
    the gradient to the index picked (the first NaN's where a slice has one)."""
    v = self.value
    xp = xp_of(v)
    is_float = v.dtype.kind == "f"
    if dim is None:
        flat = ops.reshape(self, (-1,))
        if v.size == 0:
            return as_tensor_of(xp.asarray(np.nan, dtype=v.dtype), self)
        nan = is_float and bool(xp.isnan(v).any())
        mask = xp.isnan(v) if nan else v == xp.sort(v, axis=None)[(v.size - 1) // 2]
        chosen = ops.getitem(flat, xp.nonzero(mask.reshape(-1))[0])
        return named((ops.mean if nan else ops.max)(chosen), "MedianBackward0")
    d = _dim("median", dim, v.ndim)
    x = self if v.ndim else ops.reshape(self, (1,))
    w = x.value
    n = w.shape[d]
    index = xp.take(xp.argsort(w, axis=d, kind="stable"), [(n - 1) // 2], axis=d)
    if is_float:
        nan = xp.isnan(w)
        index = xp.where(nan.any(axis=d, keepdims=True), xp.argmax(nan, axis=d, keepdims=True), index)
    values = statistics.take_along_axis(x, index, axis=d)
    if not keepdim or not v.ndim:
        values, index = ops.squeeze(values, d), xp.squeeze(index, d)
    return values_indices["median"](named(values, "MedianBackward1"), as_tensor_of(index, self))


def inverse(self):
    return inv(self)


def maximum(self, other):
    """``torch.maximum``: half the gradient to each where the two are equal, as PyTorch's."""
    return named(maximum_halves(self, other, nan_to_both=True), "MaximumBackward0")


def minimum(self, other):
    return named(minimum_halves(self, other, nan_to_both=True), "MinimumBackward0")


def outer(self, vec2):
    return named(ops.outer(self, vec2), "MulBackward0")  # PyTorch's: a view times the other


def dist(input, other, p=2):  # noqa: A002
    """``torch.dist``: the ``p``-norm of ``input - other`` (broadcast); gradient 0 where they
    are equal, as PyTorch's."""
    theirs = other.value if hasattr(other, "value") else np.asarray(other)
    broadcast_shape("dist(input, other)", input.value.shape, theirs.shape)
    return named(vector_norm(input - other, p), "DistBackward0")


def div(self, other, *, rounding_mode=None):
    """``self / other``; ``rounding_mode="trunc"`` or ``"floor"`` rounds the quotient, whose
    derivative is 0 almost everywhere (integers divide exactly, in their dtype, as PyTorch's)."""
    if rounding_mode is None:
        return self / other
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(f"div(rounding_mode={rounding_mode!r}): div expected rounding_mode to "
                           f"be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    b = getattr(other, "value", other)
    if self.dtype.kind in "iu" and np.asarray(b).dtype.kind in "iub":  # exact, in the ints' dtype
        a = self.value
        q = np.floor_divide(a, b)
        if not np.all(b):
            raise RuntimeError("ZeroDivisionError")
        if rounding_mode == "trunc":  # toward 0: one up where the floor went below
            q = q + ((np.remainder(a, b) != 0) & ((a < 0) != (np.asarray(b) < 0)))
        dtype = np.result_type(a, b) if hasattr(other, "dtype") else a.dtype
        return make(np.asarray(q).astype(dtype), copy=False)
    q = self / other
    rounded = np.trunc(q.detach()) if rounding_mode == "trunc" else np.floor(q.detach())
    return named(ops.where(np.zeros(q.shape, bool), q, rounded), "DivBackward0")  # a gradient of 0


def is_contiguous(self, memory_format=None):
    """Whether the values lie in memory in row-major order (a transpose's do not)."""
    flags = getattr(self.value, "flags", None)
    return True if flags is None else bool(flags.c_contiguous)


def is_floating_point(self):
    return self.dtype.kind == "f"


def unbind(self, dim=0):
    """The slices along ``dim``, as a tuple."""
    d = _dim("unbind", dim, self.ndim)
    return named(tuple(self[(slice(None),) * d + (k,)] for k in range(self.shape[d])), "UnbindBackward0")


def _new(self, fill, size, dtype):
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)
    return make(np.full(shape, fill), self.dtype if dtype is None else dtype)


def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    return _new(self, 0, size, dtype).requires_grad_(requires_grad)


def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    return _new(self, 1, size, dtype).requires_grad_(requires_grad)


def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return _new(self, fill_value, (size,), dtype).requires_grad_(requires_grad)


def tril(self, diagonal=0):
    return named(np.tril(self, diagonal), "TrilBackward0")


def triu(self, diagonal=0):
    return named(np.triu(self, diagonal), "TriuBackward0")


def roll(self, shifts, dims=None):
    return named(np.roll(self, shifts, dims), "RollBackward0")


def nonzero(self, *, as_tuple=False):
    """The indices of the nonzero elements: one row each (int64), or one tensor per axis."""
    found = np.nonzero(np.asarray(self.value))
    if as_tuple:
        return tuple(make(i.astype(np.int64), copy=False) for i in found)
    return make(np.stack(found, axis=1).astype(np.int64), copy=False)


def _rounding(name, fn):
    def method(self):  # gradient 0 (almost everywhere), and recorded: as PyTorch's
        return replaced(self, fn(np.asarray(self.value)), name.capitalize() + "Backward0")
    method.__name__ = method.__qualname__ = name
    return method


floor, ceil, trunc = (_rounding(n, getattr(np, n)) for n in ("floor", "ceil", "trunc"))


def round(self, *, decimals=0):  # noqa: A001  (PyTorch's name)
    """Half to even, as PyTorch's (and NumPy's) round; gradient 0."""
    return replaced(self, np.round(np.asarray(self.value), decimals),
                    "RoundBackward1" if decimals else "RoundBackward0")


def count_nonzero(self, dim=None):
    return make(np.asarray(np.count_nonzero(np.asarray(self.value), axis=dims(dim)), np.int64), copy=False)


def movedim(self, source, destination):
    return np.moveaxis(self, source, destination)


def where(self, condition, y):
    """``self`` where ``condition`` holds, else ``y``: ``torch.where(condition, self, y)``."""
    return named(ops.where(getattr(condition, "value", condition), self, y), "WhereBackward0")


def unflatten(self, dim, sizes):
    d = _dim("unflatten", dim, self.ndim)
    return self.reshape(tuple(self.shape[:d]) + tuple(sizes) + tuple(self.shape[d + 1:]))


def index_add(self, dim, index, source, alpha=1):
    return (self * 1).index_add_(dim, index, source, alpha)


def floor_divide(self, other):
    """``torch.floor_divide``: the quotient rounded down, recorded where ``self`` requires
    grad but without a derivative, as PyTorch's."""
    q = div(self.detach(), other.detach() if isinstance(other, CoreTensor) else other, rounding_mode="floor")
    return refusing(q.value, [self, other], (RuntimeError, "derivative for aten::floor_divide is not implemented"))


def _moments(fn, spread, self, dim, unbiased, keepdim, correction):
    """``torch.std_mean`` and ``var_mean``: ``(spread, mean)`` over ``dim``, named as PyTorch's."""
    if self.dtype.kind not in "fc":
        raise RuntimeError(f"{fn} only support floating point and complex dtypes")
    if isinstance(dim, bool):  # std_mean(input, unbiased)
        dim, unbiased = None, dim
    out = getattr(self, spread)(dim, unbiased, keepdim, correction), self.mean(dims(dim), keepdim)
    return named(out, f"{fn.title().replace('_', '')}Backward0")


def std_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return _moments("std_mean", "std", input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=None):  # noqa: A002
    return _moments("var_mean", "var", input, dim, unbiased, keepdim, correction)


def stride(self, dim=None):
    """The step in elements between neighbours along each dimension, as PyTorch's
    ``stride()`` (a transpose's and an ``expand``'s as PyTorch's views have them)."""
    itemsize = self.value.dtype.itemsize
    strides = tuple(s // itemsize for s in getattr(self.value, "strides", ()))
    if dim is None:
        return strides
    if not self.value.ndim:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return strides[axis_of(dim, self.value.ndim)]


def _reshaping_in_place(name, label):
    """``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``: the tensor takes the view op's
    result, the same values in a new shape, as PyTorch changes only its sizes."""
    def method(self, *args):
        if name == "t" and self.ndim > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        new = getattr(self, name)(*args)
        self.views.pop(id(new))  # (it becomes this tensor: no view of it)
        kind = label(args) if callable(label) else label
        return self.rebind(named(new, kind) if new.grad_fn is not None else new, kind, reshape=True)
    method.__name__ = method.__qualname__ = name + "_"
    return method


def _squeezed(args):  # PyTorch's overloads: squeeze_(), squeeze_(dim), squeeze_(dims)
    return f"SqueezeBackward{3 if not args else 5 if isinstance(args[0], (tuple, list)) else 4}"


def _in_place_of(name):
    def method(self, *args, **kwargs):  # the op, then the in-place step every in-place op ends with
        return self.in_place(getattr(self, name)(*args, **kwargs))
    method.__name__ = method.__qualname__ = name + "_"
    return method


def _tested_in_place(name):
    def method(self, *args, **kwargs):  # a test's bools in self's dtype, recorded with gradient 0
        other = args[0] if args else None  # under PyTorch's name (EqBackward0, GtBackward1 ...)
        return self.in_place(getattr(self, name)(*args, **kwargs),
                             f"{name.capitalize()}Backward{1 if isinstance(other, CoreTensor) else 0}")
    method.__name__ = method.__qualname__ = name + "_"
    return method


# PyTorch's in-place forms, each its method's result written into the tensor (the methods
# come from here, functions.py, tensor.py and the modules in torch.MORE)
IN_PLACE = ("pow", "relu", "sigmoid", "exp", "log", "sqrt", "tanh", "neg", "sin", "cos", "square",
            "reciprocal", "sign", "acos", "acosh", "asin", "asinh", "atan", "atanh", "arccos",
            "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "atan2", "arctan2", "cosh", "sinh",
            "tan", "erf", "erfc", "erfinv", "exp2", "expm1", "log10", "log1p", "log2", "lgamma",
            "digamma", "polygamma", "rsqrt", "sinc", "frac", "deg2rad", "rad2deg", "floor", "ceil",
            "round", "trunc", "fix", "sgn", "clip", "clamp_min", "clamp_max", "cumsum", "cumprod",
            "fmod", "remainder", "hypot", "lerp", "addcdiv", "addcmul", "nan_to_num", "xlogy",
            "logit", "copysign", "heaviside", "ldexp", "true_divide", "multiply", "subtract",
            "divide", "negative", "absolute", "tril", "triu", "scatter", "scatter_add",
            "index_fill", "index_copy", "addmm", "addmv", "addr", "baddbmm", "addbmm", "renorm",
            "floor_divide", "scatter_reduce", "index_put", "masked_scatter")
TESTS = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
         "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not")


def zero_(self):
    return _fill(self, 0, "ZeroBackward0")


def fill_(self, value):
    return _fill(self, value, None)


def _fill(self, value, label):
    """Every element ``value``: in grad mode an op (gradient 0 to the old values, as
    PyTorch's ``FillBackward``); under no_grad a change the graph does not see."""
    if isinstance(value, CoreTensor):
        if value.value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.value.ndim} dimensions.")
        value = value if value.dtype == self.dtype else value.type(self.dtype)
        label = label or "FillBackward3"
    else:
        value = np.asarray(value).astype(self.value.dtype)
        label = label or "FillBackward2"
    return self.in_place(replaced(self, value, label) if GRAD.get() else
                          np.broadcast_to(getattr(value, "value", value), self.value.shape).copy())


METHODS = {f.__name__: f for f in (floor, ceil, trunc, round, zero_, fill_, tril, triu, roll, nonzero,
                                   tan, masked_fill, index_select, gather, scatter_add, scatter, repeat,
                                   split, chunk, topk, median, det, inverse, div, is_contiguous,
                                   is_floating_point, unbind, new_zeros, new_ones, new_full,
                                   count_nonzero, movedim, where, unflatten, index_add, maximum,
                                   minimum, outer, dist, floor_divide, stride)}
METHODS.update((f.__name__, f) for f in (_reshaping_in_place("squeeze", _squeezed),
                                         _reshaping_in_place("unsqueeze", "UnsqueezeBackward1"),
                                         _reshaping_in_place("t", "TBackward1"),
                                         _reshaping_in_place("transpose", "TransposeBackward1")))


def _matrices(name, transpose, least, most):
    """``tensor.mT`` and kin (real tensors: ``mH`` and ``H`` are the transposes), refused on
    a tensor with fewer dimensions, as PyTorch refuses it."""
    def get(self):
        if not least <= self.ndim <= most:
            what = "matrices (2-D tensors)" if most == 2 else "matrices or batches of matrices"
            raise RuntimeError(f"tensor.{name} is only supported on {what}. Got {self.ndim}-D tensor.")
        return transpose(self)
    return property(get, doc=f"``tensor.{name}``")


def install(cls):
    """Attach ``METHODS`` to ``cls`` (``torch.Tensor``), and the matrix transposes."""
    for name, f in METHODS.items():
        setattr(cls, name, f)
    mT = cls.mT.fget  # noqa: N806  (tensor.py's)
    for name, most in (("mT", 99), ("mH", 99), ("H", 2)):
        setattr(cls, name, _matrices(name, mT, 2, most))


def install_in_place(cls):
    """Attach the in-place forms ``cls`` lacks of the methods it has (once every module has
    installed its own)."""
    for names, form in ((IN_PLACE, _in_place_of), (TESTS, _tested_in_place)):
        for name in names:
            if hasattr(cls, name) and not hasattr(cls, name + "_"):
                setattr(cls, name + "_", form(name))
