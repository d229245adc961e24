"""PyTorch's functions that move, pick or split elements, on gradmagic.torch: flips and
rotations (``fliplr``, ``flipud``, ``rot90``), splits (``tensor_split``, ``hsplit``,
``vsplit``, ``dsplit``, ``split_with_sizes``), ``unfold``'s sliding windows,
``sum_to_size``, ``diag_embed``, ``diagflat``, ``take``, ``take_along_dim``,
``index_fill``, ``index_copy``, ``moveaxis``, ``argwhere`` (methods and
``torch.<name>``), and the stacking and broadcasting helpers (``atleast_1d/2d/3d``,
``column_stack``, ``dstack``, ``row_stack``, ``broadcast_tensors``, ``broadcast_shapes``,
``tril_indices``, ``triu_indices``, ``movedim``, ``ravel``: ``torch.<name>`` only). Each
is made of the engine's ops, so their rules give its gradient, and its result carries
PyTorch's ``grad_fn`` name.

Indices are constants: the gradient flows to the values picked, and the values that
``index_fill`` or ``index_copy`` write over get none. The pieces of a split are views of
the input, as PyTorch's; ``unfold``'s windows are a copy (PyTorch's share memory). The
errors a user can cause are PyTorch's, in its words.
"""

from __future__ import annotations

import numpy as np

from ..core import ops, statistics
from .graph import as_tensor_of
from .tensor import make
from .values import Size, axis_of, named, type_name
from .views import at, make_view


def _promoted(tensors):
    """PyTorch's dtype of ``cat``'s result: a float wins over integers."""
    kinds = [t.dtype for t in tensors]
    floats = [d for d in kinds if d.kind == "f"]
    return np.result_type(*(floats or kinds))


def _cat(tensors, dim):
    """``torch.cat`` of tensors of one ndim, with its size check and type promotion."""
    first = tensors[0]
    d = axis_of(dim, first.ndim)
    for k, t in enumerate(tensors[1:], 1):
        for axis in range(first.ndim):
            if axis != d and t.shape[axis] != first.shape[axis]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{first.shape[axis]} but got size {t.shape[axis]} for tensor number {k} "
                                   "in the list.")
    dtype = _promoted(tensors)
    same = [t if t.dtype == dtype else t.type(dtype) for t in tensors]
    return named(ops.concatenate(same, axis=d), "CatBackward0")


# -- flips and rotations ----------------------------------------------------------------------
def fliplr(self):
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return named(ops.flip(self, 1), "FlipBackward0")


def flipud(self):
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return named(ops.flip(self, 0), "FlipBackward0")


def rot90(self, k=1, dims=(0, 1)):
    """A quarter turn ``k`` times in the plane of ``dims``, from its first axis toward its
    second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if self.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.ndim}")
    a, b = axis_of(dims[0], self.ndim), axis_of(dims[1], self.ndim)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        out = ops.swapaxes(ops.flip(self, b), a, b)
    elif k == 2:
        out = ops.flip(self, (a, b))
    elif k == 3:
        out = ops.swapaxes(ops.flip(self, a), a, b)
    else:
        out = self.clone()
    return named(out, "Rot90Backward0")


# -- splits ------------------------------------------------------------------------------------
def _slices(self, bounds, d):
    """The pieces ``[bounds[k], bounds[k + 1])`` along ``d``, each a view (``SliceBackward0``)."""
    def piece(a, b):
        index = (slice(None),) * d + (slice(a, b),)
        return make_view(self, lambda base: named(ops.getitem(base, index), "SliceBackward0"), at(index))
    return tuple(piece(a, b) for a, b in zip(bounds[:-1], bounds[1:]))


def tensor_split(self, indices_or_sections, dim=0):
    """``sections`` pieces of nearly equal size (the first ones one larger), or the pieces
    between the ``indices`` listed (as Python's slices: clamped, possibly empty)."""
    if self.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    given = indices_or_sections
    if hasattr(given, "value"):
        if given.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {given.ndim} dims")
        if given.dtype != np.int64:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                               f"got {type_name(given.dtype)}")
        given = given.value.tolist()
    d = axis_of(dim, self.ndim)
    n = self.shape[d]
    if isinstance(given, (list, tuple)):
        bounds = [slice(int(i), None).indices(n)[0] for i in given]
        starts = [0] + bounds
        return tuple(_slices(self, [s, max(s, e)], d)[0] for s, e in zip(starts, bounds + [n]))
    sections = int(given)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size, extra = divmod(n, sections)
    bounds = np.cumsum([0] + [size + (k < extra) for k in range(sections)]).tolist()
    return _slices(self, bounds, d)


def _split_named(fn, self, sections, dim, need):
    if self.ndim < need:
        raise RuntimeError(f"torch.{fn} requires a tensor with at least {need} dimension, but got a tensor "
                           f"with {self.ndim} dimensions!")
    if isinstance(sections, (list, tuple)):
        return tensor_split(self, list(sections), dim)
    n = self.shape[dim]
    if sections == 0 or n % sections:
        raise RuntimeError(f"torch.{fn} attempted to split along dimension {dim}, but the size of the "
                           f"dimension {n} is not divisible by the split_size {sections}!")
    return tensor_split(self, sections, dim)


def hsplit(self, indices_or_sections):
    """``tensor_split`` along the columns (dimension 1; 0 for a vector), in equal pieces."""
    return _split_named("hsplit", self, indices_or_sections, 1 if self.ndim > 1 else 0, 1)


def vsplit(self, indices_or_sections):
    return _split_named("vsplit", self, indices_or_sections, 0, 2)


def dsplit(self, indices_or_sections):
    return _split_named("dsplit", self, indices_or_sections, 2, 3)


def split_with_sizes(self, split_sizes, dim=0):
    """Pieces of the sizes listed along ``dim`` (they must add up to its size)."""
    sizes = [int(s) for s in split_sizes]
    d = axis_of(dim, self.ndim)
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                           f"split_sizes={sizes}")
    if sum(sizes) != self.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {self.shape[d]} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    return self.split(sizes, d)


# -- windows, sums and diagonals ---------------------------------------------------------------
def unfold(self, dimension, size, step):
    """``Tensor.unfold``: the windows of ``size`` every ``step`` along ``dimension``, as a
    new last dimension (a copy, where PyTorch's is a view)."""
    d = axis_of(dimension, self.ndim)
    n = self.shape[d] if self.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if self.ndim == 0:
        return named(ops.reshape(self, (size,)), "UnfoldBackward0")
    count = (n - size) // step + 1
    index = np.arange(count)[:, None] * step + np.arange(size)[None, :]
    windows = ops.getitem(self, (slice(None),) * d + (index,))  # (..., count, size, ...)
    return named(ops.moveaxis(windows, d + 1, -1), "UnfoldBackward0")


def sum_to_size(self, *size):
    """The sum over the dimensions ``size`` broadcasts to this tensor's shape: the
    gradient of a broadcast, undone (``self`` itself where the shapes are equal)."""
    size = tuple(int(s) for s in (size[0] if len(size) == 1 and isinstance(size[0], (list, tuple)) else size))
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != shape[lead + k] for k, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return self
    axes = tuple(range(lead)) + tuple(lead + k for k, s in enumerate(size) if s == 1 and shape[lead + k] != 1)
    out = named(ops.sum(self, axis=axes, keepdims=True), "SumBackward1")
    return out if tuple(out.shape) == size else out.reshape(size)


def diag_embed(self, offset=0, dim1=-2, dim2=-1):
    """The last dimension of ``input`` on the ``offset`` diagonal of the planes of
    ``dim1`` and ``dim2`` of a new tensor (zeros elsewhere)."""
    nd = self.ndim + 1
    a, b = axis_of(dim1, nd), axis_of(dim2, nd)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = self if self.ndim else ops.reshape(self, (1,))
    last = x.shape[-1]
    m = last + abs(offset)
    zeros = as_tensor_of(np.zeros(tuple(x.shape[:-1]) + (m, m), self.dtype), self)
    rows, cols = np.arange(last) + max(-offset, 0), np.arange(last) + max(offset, 0)
    out = ops.index_set(zeros, (Ellipsis, rows, cols), x)
    return named(ops.moveaxis(out, (-2, -1), (a, b)), "DiagEmbedBackward0")


def diagflat(self, offset=0):
    """A matrix with the flattened ``input`` on its ``offset`` diagonal."""
    return diag_embed(ops.reshape(self, (-1,)), offset)


# -- picking and writing by index ---------------------------------------------------------------
def take(self, index):
    """The elements of the flattened ``input`` at ``index`` (negative from the end), in
    ``index``'s shape."""
    idx = index.value if hasattr(index, "value") else np.asarray(index)
    if idx.dtype != np.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {type_name(idx.dtype)}")
    n = self.numel()
    bad = (idx < -n) | (idx >= n)
    if bool(bad.any()):
        raise IndexError(f"out of range: tried to access index {int(idx[bad].ravel()[0])} on a tensor of "
                         f"{n} elements.")
    return named(ops.getitem(ops.reshape(self, (-1,)), idx % max(n, 1)), "TakeBackward0")


def _gather_bounds(idx, d, n):
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        raise RuntimeError(f"index {int(idx[bad].ravel()[0])} is out of bounds for dimension {d} with size {n}")


def take_along_dim(self, indices, dim=None):
    """``gather`` along ``dim`` with ``input`` and ``indices`` broadcast against each other
    elsewhere; without ``dim``, of the flattened ``input``. An index out of range is
    refused, as ``gather`` refuses it (PyTorch reads past the dimension)."""
    idx = indices.value if hasattr(indices, "value") else np.asarray(indices)
    if idx.dtype != np.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{type_name(idx.dtype)}")
    if dim is None:
        flat = idx.reshape(-1)
        _gather_bounds(flat, 0, self.numel())
        return named(ops.getitem(ops.reshape(self, (-1,)), flat), "GatherBackward0")
    if self.ndim != idx.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {self.ndim} dimensions for input, and {idx.ndim} dimensions "
                           "for indices")
    d = axis_of(dim, self.ndim)
    mine = list(self.shape)
    mine[d] = idx.shape[d]
    common = broadcast_shapes_of(mine, idx.shape)
    _gather_bounds(idx, d, self.shape[d])
    x_shape, i_shape = list(common), list(common)
    x_shape[d], i_shape[d] = self.shape[d], idx.shape[d]
    x = self if tuple(self.shape) == tuple(x_shape) else ops.broadcast_to(self, tuple(x_shape))
    return named(statistics.take_along_axis(x, np.broadcast_to(idx, tuple(i_shape)), axis=d), "GatherBackward0")


def index_fill(self, dim, index, value):
    """``value`` (a number, or a 0-d tensor that gets the gradient of the places it fills)
    in the slices at ``index`` (negative from the end) along ``dim``."""
    idx = index.value if hasattr(index, "value") else np.asarray(index)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    d = axis_of(dim, self.ndim)
    n = self.shape[d] if self.ndim else 1
    bad = (idx < -n) | (idx >= n)
    if bool(bad.any()):
        raise IndexError(f"index {int(idx[bad].ravel()[0])} is out of bounds for dimension {d} with size {n}")
    if hasattr(value, "value"):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        fill, label = (value if value.dtype == self.dtype else value.type(self.dtype)), "IndexFillBackward1"
    else:
        fill, label = np.asarray(value).astype(self.dtype), "IndexFillBackward0"
    along = np.zeros(n, bool)
    along[idx.reshape(-1) % n] = True
    mask = along.reshape((n,) + (1,) * (self.ndim - d - 1)) if self.ndim else along.reshape(())
    return named(ops.where(np.broadcast_to(mask, tuple(self.shape)), fill, self), label)


def index_copy(self, dim, index, source):
    """``input`` with its slices at ``index`` along ``dim`` replaced by ``source``'s, in
    order (where an index repeats, the last one wins, as PyTorch's CPU kernel); the values
    replaced get no gradient, ``source`` the gradient of where each slice went."""
    idx = index.value if hasattr(index, "value") else np.asarray(index)
    d = axis_of(dim, self.ndim)
    if idx.ndim >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {idx.ndim})")
    count = idx.size
    if source.ndim == 0 and count != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {count})")
    if source.ndim != self.ndim and source.ndim != 0 and self.ndim != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality "
                         f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
                         f"({self.ndim})")
    if idx.dtype != np.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {type_name(idx.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{type_name(self.dtype)} and (source) {type_name(source.dtype)}")
    mine = [n for k, n in enumerate(self.shape) if k != d]
    theirs = [n for k, n in enumerate(source.shape) if k != d]
    if mine != theirs:
        mine, theirs = (" ".join(map(str, sizes)) for sizes in (mine, theirs))
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {mine} at dimension {d} and source slice shape: {theirs} "
                           "at dimension 0.")
    if source.ndim and count != source.shape[d]:
        raise IndexError(f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) "
                         f"({source.shape[d]})")
    n = self.shape[d] if self.ndim else 1
    bad = (idx < 0) | (idx >= n)
    if bool(bad.any()):
        raise IndexError(f"index_copy_(): index {int(idx[bad].ravel()[0])} is out of bounds for dimension {d} "
                         f"with size {n}")
    if self.ndim == 0 or source.ndim == 0:
        return named(ops.where(np.ones(tuple(self.shape), bool), ops.reshape(source, tuple(self.shape)), self),
                     "IndexCopyBackward0")
    return named(ops.index_set(self, (slice(None),) * d + (idx.reshape(-1),), source), "IndexCopyBackward0")


def moveaxis(self, source, destination):
    """``movedim``'s NumPy name: the dimensions ``source`` moved to ``destination``."""
    return named(self.movedim(source, destination), "PermuteBackward0")


def argwhere(self):
    """The indices of the nonzero elements, one row each (int64): ``nonzero()``."""
    return make(np.argwhere(np.asarray(self.value)).astype(np.int64), copy=False)


# -- torch.<name> only ----------------------------------------------------------------------------
def _tensors(args):
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args


def _at_least(n):
    def atleast(*tensors):
        ts = _tensors(tensors)
        out = tuple(_raised(t, n) for t in ts)
        return out[0] if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)) else out
    atleast.__name__ = atleast.__qualname__ = f"atleast_{n}d"
    atleast.__doc__ = (f"``torch.atleast_{n}d``: each tensor with at least {n} dimensions (itself where it has "
                       "them), one tensor for one, a tuple for several or a list.")
    return atleast


def _raised(t, n):
    if t.ndim >= n:
        return t
    if t.ndim == 0:
        return named(t.reshape((1,) * n), "ViewBackward0")
    out = t.unsqueeze(0) if t.ndim == 1 else t
    if n == 3:
        out = out.unsqueeze(-1)
    return named(out, "UnsqueezeBackward0")


atleast_1d, atleast_2d, atleast_3d = (_at_least(n) for n in (1, 2, 3))


def column_stack(tensors):
    """The tensors side by side as columns: a vector (or a number) is one column."""
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return _cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in tensors], 1)


def dstack(tensors):
    """The tensors, each made at least 3-D, along their third dimension."""
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return _cat(list(atleast_3d(list(tensors))), 2)


def row_stack(tensors):
    """``torch.vstack``'s alias: the tensors, each made at least 2-D, one below another."""
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return _cat(list(atleast_2d(list(tensors))), 0)


def broadcast_shapes_of(*shapes):
    """The shape ``shapes`` broadcast to, or PyTorch's error (its tensors' wording)."""
    out = ()
    for shape in shapes:
        a, b = tuple(out), tuple(shape)
        n = max(len(a), len(b))
        a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
        for k in reversed(range(n)):
            if a[k] != b[k] and 1 not in (a[k], b[k]):
                raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) at "
                                   f"non-singleton dimension {k}")
        out = tuple(max(x, y) if 0 not in (x, y) else 0 for x, y in zip(a, b))
    return out


def broadcast_tensors(*tensors):
    """The tensors expanded to their common shape (each a view; itself where its shape is
    that shape)."""
    shape = broadcast_shapes_of(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else named(t.expand(shape), "ExpandBackward0") for t in tensors)


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes``: the ``torch.Size`` that shapes (ints or sequences)
    broadcast to, as PyTorch's ``_refs._broadcast_shapes`` checks them."""
    shapes = tuple((s,) if isinstance(s, int) else s for s in shapes if s is not None)
    for shape in shapes:
        if not isinstance(shape, (list, tuple)):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got "
                               f"{shape}")
    if not shapes:
        return Size([])
    common = [1] * max(len(s) for s in shapes)
    for k, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i]:
                continue
            if common[i] == 1:
                if shape[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = shape[i]
            if shape[i] != 1 and common[i] != shape[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[i]} at {i}! Mismatching "
                                   f"argument at index {k} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    return Size(common)


def _triangle(fn, lower):
    def indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
        for name, n in (("row", row), ("col", col)):
            if n < 0:
                raise RuntimeError(f"{name} must be non-negative, got{n}")
        dtype = np.dtype(np.int64) if dtype is None else np.dtype(dtype)
        if dtype.kind not in "iu":
            raise NotImplementedError(f"\"{fn}\" not implemented for '{type_name(dtype)}'")
        found = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
        return make(np.stack(found).reshape(2, -1).astype(dtype), dtype)
    indices.__name__ = indices.__qualname__ = fn
    indices.__doc__ = (f"``torch.{fn}(row, col, offset=0)``: the 2 x N coordinates of the "
                       f"{'lower' if lower else 'upper'} triangle of a row x col matrix, row by row.")
    return indices


tril_indices, triu_indices = _triangle("tril_indices", True), _triangle("triu_indices", False)


def movedim(input, source, destination):  # noqa: A002  (PyTorch's name)
    """``torch.movedim``: ``input.movedim(source, destination)``."""
    return named(input.movedim(source, destination), "PermuteBackward0")


def ravel(input):  # noqa: A002
    """``torch.ravel``: ``input.ravel()``, the elements as a vector."""
    return input.ravel()


METHODS = {f.__name__: f for f in (fliplr, flipud, rot90, tensor_split, hsplit, vsplit, dsplit, split_with_sizes,
                                   unfold, sum_to_size, diag_embed, diagflat, take, take_along_dim, index_fill,
                                   index_copy, moveaxis, argwhere)}
TENSOR_ONLY = ("unfold", "sum_to_size")  # methods PyTorch has no torch.<name> function for
FUNCTIONS = {f.__name__: f for f in (atleast_1d, atleast_2d, atleast_3d, column_stack, dstack, row_stack,
                                     broadcast_tensors, broadcast_shapes, tril_indices, triu_indices, movedim,
                                     ravel)}
