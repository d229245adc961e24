"""Shape and layout functions of NumPy (flips, rolls, tiles, pads, stacks, splits, diff ...),
composed from the op catalogue's primitives, so that they differentiate to any order
with no rule of their own. ``FUNCTIONS`` maps each NumPy function onto its form here;
``core/dispatch.py`` routes NumPy's calls on Tensors through it.

Every function takes NumPy's signature. The arrays it is given may mix Tensors, arrays
and Python numbers or lists (``np.hstack([t, np.ones(3)])``); the ones that are not
arrays become arrays of the first Tensor's module. Axis errors are NumPy's own
(``AxisError``); other bad input raises ``GradientValueError`` naming the function.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._backend import to_host, xp_of
from ..errors import GradientTypeError, GradientValueError, NoGradientError
from ..tracebacks import user_stacklevel
from . import ops
from .primitive import composite
from .tensor import Tensor


# -- helpers ----------------------------------------------------------------------------
def _module(values):
    """The array module of the first Tensor (or array) among ``values``; numpy if none."""
    for v in values:
        if isinstance(v, Tensor):
            return xp_of(v.value)
    for v in values:
        if hasattr(v, "shape") and hasattr(v, "dtype"):
            return xp_of(v)
    return np


def _holds_tensor(a):
    return isinstance(a, Tensor) or (isinstance(a, (list, tuple)) and any(map(_holds_tensor, a)))


def _as_array(a, xp):
    """``a`` if it is a Tensor or an array, else ``xp.asarray(a)``; a nested list that holds
    Tensors (``[t[0], 2.0]``) is stacked, so that they keep their gradients."""
    if isinstance(a, Tensor) or (hasattr(a, "shape") and hasattr(a, "dtype")):
        return a
    if isinstance(a, (list, tuple)) and a and _holds_tensor(a):
        return ops.stack([_as_array(b, xp) for b in a])
    return xp.asarray(a)


def _arrays(seq, fn):
    """The sequence ``seq`` of a stacking function, as a list of Tensors and arrays."""
    if not (isinstance(seq, (list, tuple)) or hasattr(seq, "shape")):
        raise GradientTypeError(
            f"{fn}(tup): arrays to stack must be passed as a sequence (list or tuple), got "
            f"{type(seq).__name__}")
    seq = list(seq)  # an array: its rows, as NumPy reads it
    if not seq:
        raise GradientValueError(f"{fn}(tup): need at least one array to concatenate")
    xp = _module(seq)
    return [_as_array(a, xp) for a in seq]


def _shape(x):
    return tuple(x.shape)


def _host(v):
    """A host NumPy value of ``v`` (a Tensor, an array, a number or a sequence): for the
    integer arguments (shifts, repeats, pad widths) that carry no gradient."""
    if isinstance(v, Tensor):
        v = v.value
    if isinstance(v, (list, tuple)):
        return np.asarray([_host(a) for a in v]) if v else np.asarray(v)
    return np.asarray(to_host(v))


def _int_tuple(v):
    """An int or a sequence of ints (a Tensor allowed) as a tuple of Python ints."""
    h = _host(v)
    return tuple(int(a) for a in h.reshape(-1)) if h.ndim else (int(h),)


def _take_along(x, axis, index):
    """``x`` indexed along ``axis`` by ``index`` (a slice or a list of ints)."""
    if isinstance(index, list) and not index:  # an empty list is read as a float array
        index = slice(0, 0)
    return ops.getitem(x, (slice(None),) * axis + (index, Ellipsis))


def _identity(x):
    return ops.identity(x)


def _single_or_tuple(results):
    return results[0] if len(results) == 1 else tuple(results)


# -- at least n dimensions ----------------------------------------------------------------
def _at_least(x, n):
    shape = _shape(x)
    if len(shape) >= n:
        return x
    if n == 3 and len(shape) == 2:
        return ops.reshape(x, shape + (1,))
    if n == 3 and len(shape) == 1:
        return ops.reshape(x, (1,) + shape + (1,))
    return ops.reshape(x, (1,) * (n - len(shape)) + shape)


def _atleast(n, arys, fn):
    if not arys:
        raise GradientValueError(f"{fn}(*arys): expected at least one array, got none")
    xp = _module(arys)
    return _single_or_tuple([_at_least(_as_array(a, xp), n) for a in arys])


@composite("reshape back")
def atleast_1d(*arys):
    """``np.atleast_1d``: a 0-d array as shape (1,); one array for one argument, else a tuple."""
    return _atleast(1, arys, "np.atleast_1d")


@composite("reshape back")
def atleast_2d(*arys):
    """``np.atleast_2d``: (N,) as (1, N), a 0-d array as (1, 1)."""
    return _atleast(2, arys, "np.atleast_2d")


@composite("reshape back")
def atleast_3d(*arys):
    """``np.atleast_3d``: (M, N) as (M, N, 1), (N,) as (1, N, 1), a 0-d array as (1, 1, 1)."""
    return _atleast(3, arys, "np.atleast_3d")


# -- stacks -----------------------------------------------------------------------------
def _stack_kwargs(fn, dtype, casting):
    ops.unsupported(fn, dtype=dtype, casting=None if casting == "same_kind" else casting)


@composite("slice")
def vstack(tup, *, dtype=None, casting="same_kind"):
    """``np.vstack``: arrays of at least 2 dimensions, joined along the first axis."""
    _stack_kwargs("np.vstack", dtype, casting)
    return ops.concatenate([_at_least(a, 2) for a in _arrays(tup, "np.vstack")], axis=0)


@composite("slice")
def hstack(tup, *, dtype=None, casting="same_kind"):
    """``np.hstack``: 1-d arrays joined end to end, others along the second axis."""
    _stack_kwargs("np.hstack", dtype, casting)
    arrays = [_at_least(a, 1) for a in _arrays(tup, "np.hstack")]
    return ops.concatenate(arrays, axis=0 if len(_shape(arrays[0])) == 1 else 1)


@composite("slice")
def dstack(tup):
    """``np.dstack``: arrays of at least 3 dimensions, joined along the third axis."""
    return ops.concatenate([_at_least(a, 3) for a in _arrays(tup, "np.dstack")], axis=2)


def _column(a):
    shape = _shape(a)
    return ops.reshape(a, (shape[0] if shape else 1, 1)) if len(shape) < 2 else a


@composite("slice")
def column_stack(tup):
    """``np.column_stack``: 1-d arrays as columns (N, 1), joined along the second axis."""
    return ops.concatenate([_column(a) for a in _arrays(tup, "np.column_stack")], axis=1)


@composite("slice")
def row_stack(tup, *, dtype=None, casting="same_kind"):
    """``np.row_stack``, NumPy's deprecated alias of ``np.vstack`` (it warns as NumPy does)."""
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=user_stacklevel())
    _stack_kwargs("np.row_stack", dtype, casting)
    return ops.concatenate([_at_least(a, 2) for a in _arrays(tup, "np.row_stack")], axis=0)


@composite("slice")
def append(arr, values, axis=None):
    """``np.append``: both raveled and joined when ``axis`` is None, else joined along it."""
    xp = _module((arr, values))
    arr, values = _as_array(arr, xp), _as_array(values, xp)
    if axis is None:
        return ops.concatenate([ops.reshape(arr, (-1,)), ops.reshape(values, (-1,))], axis=0)
    if len(_shape(arr)) != len(_shape(values)):
        raise GradientValueError(
            f"np.append(arr, values, axis={axis}): arr and values must have the same number "
            f"of dimensions, got shapes {_shape(arr)} and {_shape(values)}")
    return ops.concatenate([arr, values], axis=normalize_axis_index(int(axis), len(_shape(arr))))


# -- splits -----------------------------------------------------------------------------
def _split_at(x, bounds, axis):
    return [_take_along(x, axis, slice(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]


@composite("concatenate")
def array_split(ary, indices_or_sections, axis=0):
    """``np.array_split``: like ``np.split``, and ``N`` sections need not divide the axis
    (the first ``n % N`` parts are one longer)."""
    axis = normalize_axis_index(int(axis), len(_shape(ary)))
    n = _shape(ary)[axis]
    h = _host(indices_or_sections)
    if h.ndim == 0:
        sections = int(h)
        if sections <= 0:
            raise GradientValueError(
                f"np.array_split(ary, indices_or_sections={sections}): the number of "
                "sections must be larger than 0")
        each, extras = divmod(n, sections)
        sizes = [each + 1] * extras + [each] * (sections - extras)
        bounds = [0]
        for s in sizes:
            bounds.append(bounds[-1] + s)
    else:  # as Python slices read them: negative from the end, clipped to the axis
        bounds = [0] + [min(max(int(i) + n * (int(i) < 0), 0), n) for i in h] + [n]
    return _split_at(ary, bounds, axis)


def _split_on(fn, ary, indices_or_sections, axis, min_ndim):
    ndim = len(_shape(ary))
    if ndim < min_ndim:
        raise GradientValueError(
            f"{fn}(ary, ...): works only on arrays of {min_ndim} or more dimensions, got "
            f"shape {_shape(ary)}")
    h = _host(indices_or_sections)
    if h.ndim == 0:
        n, k = _shape(ary)[axis], int(h)
        if k <= 0 or n % k:
            raise GradientValueError(
                f"{fn}(ary, indices_or_sections={k}): an axis of length {n} does not split "
                f"into {k} equal parts")
    return array_split(ary, h, axis)


@composite("concatenate")
def hsplit(ary, indices_or_sections):
    """``np.hsplit``: split along the second axis (the first for 1-d arrays)."""
    axis = 1 if len(_shape(ary)) > 1 else 0
    return _split_on("np.hsplit", ary, indices_or_sections, axis, 1)


@composite("concatenate")
def vsplit(ary, indices_or_sections):
    """``np.vsplit``: split along the first axis of an array of at least 2 dimensions."""
    return _split_on("np.vsplit", ary, indices_or_sections, 0, 2)


@composite("concatenate")
def dsplit(ary, indices_or_sections):
    """``np.dsplit``: split along the third axis of an array of at least 3 dimensions."""
    return _split_on("np.dsplit", ary, indices_or_sections, 2, 3)


# -- flips, rotations, rolls ------------------------------------------------------------
@composite("flip back")
def fliplr(m):
    """``np.fliplr``: reverse the second axis (columns)."""
    if len(_shape(m)) < 2:
        raise GradientValueError(f"np.fliplr(m): m must be at least 2-d, got shape {_shape(m)}")
    return ops.flip(m, 1)


@composite("flip back")
def flipud(m):
    """``np.flipud``: reverse the first axis (rows)."""
    if len(_shape(m)) < 1:
        raise GradientValueError("np.flipud(m): m must be at least 1-d, got a 0-d array")
    return ops.flip(m, 0)


@composite("rotate back")
def rot90(m, k=1, axes=(0, 1)):
    """``np.rot90``: rotate by 90 degrees ``k`` times, from the first of ``axes`` towards
    the second; a flip and a transpose, as NumPy computes it."""
    axes = tuple(axes)
    ndim = len(_shape(m))
    if len(axes) != 2:
        raise GradientValueError(f"np.rot90(m, axes={axes}): len(axes) must be 2")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == ndim:
        raise GradientValueError(f"np.rot90(m, axes={axes}): the axes must be different")
    if not all(-ndim <= a < ndim for a in axes):
        raise GradientValueError(
            f"np.rot90(m, axes={axes}): axes out of range for an array of {ndim} dimensions")
    k = int(k) % 4
    if k == 0:
        return _identity(m)
    if k == 2:
        return ops.flip(m, axes)
    perm = list(range(ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return ops.transpose(ops.flip(m, axes[1]), perm)
    return ops.flip(ops.transpose(m, perm), axes[1])


def _roll_axis(x, shift, axis):
    n = _shape(x)[axis]
    s = shift % n if n else 0
    if s == 0:
        return x
    return ops.concatenate([_take_along(x, axis, slice(n - s, None)),
                            _take_along(x, axis, slice(0, n - s))], axis=axis)


@composite("roll back")
def roll(a, shift, axis=None):
    """``np.roll``: elements shifted along ``axis`` (all of them, raveled, when None), those
    that leave one end coming in at the other. ``shift`` and ``axis`` may be tuples, broadcast
    against each other; shifts of one axis add up."""
    shape = _shape(a)
    if axis is None:
        flat = ops.reshape(a, (-1,))
        return ops.reshape(roll(flat, shift, 0), shape)
    shifts = _host(shift)
    axes = _host(axis)
    total = {}
    for s, ax in np.broadcast(shifts, axes):
        ax = normalize_axis_index(int(ax), len(shape))
        total[ax] = total.get(ax, 0) + int(s)
    out = a
    for ax, s in sorted(total.items()):
        out = _roll_axis(out, s, ax)
    return _identity(out) if out is a else out


@composite("transpose back")
def rollaxis(a, axis, start=0):
    """``np.rollaxis``: ``axis`` moved to stand before ``start``; a transpose."""
    n = len(_shape(a))
    axis = normalize_axis_index(int(axis), n)
    given = start = int(start)
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {given} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return _identity(a)
    perm = [i for i in range(n) if i != axis]
    perm.insert(start, axis)
    return ops.transpose(a, perm)


# -- repeat and tile --------------------------------------------------------------------
@composite("sum over the repeats")
def repeat(a, repeats, axis=None):
    """``np.repeat``: each element ``repeats`` times along ``axis`` (of the raveled array
    when None). An int repeats by a broadcast; an array of counts by a gather."""
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    shape = _shape(a)
    axis = normalize_axis_index(int(axis), len(shape))
    reps = _host(repeats)
    if reps.size == 1 and reps.ndim <= 1:
        r = int(reps.reshape(()))
        if r < 0:
            raise GradientValueError(f"np.repeat(a, repeats={r}): repeats may not be negative")
        wide = ops.broadcast_to(ops.expand_dims(a, axis + 1),
                                shape[:axis + 1] + (r,) + shape[axis + 1:])
        return ops.reshape(wide, shape[:axis] + (shape[axis] * r,) + shape[axis + 1:])
    # NumPy's own checks of the counts (negative, wrong length, not integers)
    index = np.repeat(np.arange(shape[axis]), reps)
    return _take_along(a, axis, index.tolist())


@composite("sum over the tiles")
def tile(A, reps):
    """``np.tile``: ``A`` repeated ``reps`` times along each axis (``reps`` padded with ones
    in front, or ``A``'s shape with ones, to the same length); one broadcast."""
    reps = _int_tuple(reps)
    if any(r < 0 for r in reps):
        raise GradientValueError(f"np.tile(A, reps={reps}): reps may not be negative")
    xp = _module((A,))
    A = _as_array(A, xp)
    shape = _shape(A)
    d = max(len(shape), len(reps))
    shape = (1,) * (d - len(shape)) + shape
    reps = (1,) * (d - len(reps)) + reps
    interleaved = tuple(v for n in shape for v in (1, n))
    wide = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    out = ops.broadcast_to(ops.reshape(A, interleaved), wide)
    return ops.reshape(out, tuple(r * n for r, n in zip(reps, shape)))


# -- pad --------------------------------------------------------------------------------
def _pad_pairs(pad_width, ndim):
    """NumPy's forms of ``pad_width`` (an int, a pair, one pair per axis) as ndim pairs."""
    h = _host(pad_width)
    if h.dtype.kind not in "iu":
        raise GradientTypeError(
            f"np.pad(array, pad_width={pad_width!r}): pad_width must be of integral type")
    h = h.astype(np.intp)
    if h.size and h.min() < 0:
        raise GradientValueError(f"np.pad(array, pad_width={pad_width!r}): widths may not be negative")
    if h.size == 1:
        return [(int(h.reshape(())),) * 2] * ndim
    if h.size == 2 and h.shape != (2, 1):
        lo, hi = h.reshape(-1)
        return [(int(lo), int(hi))] * ndim
    try:
        return [(int(lo), int(hi)) for lo, hi in np.broadcast_to(h, (ndim, 2))]
    except ValueError:
        raise GradientValueError(
            f"np.pad(array, pad_width={pad_width!r}): pad_width of shape {h.shape} does not "
            f"fit an array of {ndim} dimensions (give an int, a pair or {ndim} pairs)") from None


def _value_pairs(values, ndim, xp):
    """``constant_values`` (a number, a pair, one pair per axis; Tensors allowed) as an
    (ndim, 2) array of module ``xp`` or Tensor, as NumPy reads it."""
    v = _as_array(values, xp)
    size = int(np.prod(_shape(v)))
    if size == 1:
        v = ops.reshape(v, ())
    elif size == 2 and _shape(v) != (2, 1):
        v = ops.reshape(v, (2,))
    try:
        return ops.broadcast_to(v, (ndim, 2))
    except ValueError:
        raise GradientValueError(
            f"np.pad(constant_values=...): shape {_shape(v)} does not fit an array of {ndim} "
            "dimensions (give a number, a pair or one pair per axis)") from None


def _source_index(i, n, mode):
    """The index of ``x`` that position ``i`` (``-before .. n + after - 1``) of the padded
    axis copies, for the modes that copy."""
    if mode == "edge":
        return min(max(i, 0), n - 1)
    if mode == "wrap":
        return i % n
    if mode == "symmetric":
        m = i % (2 * n)
        return m if m < n else 2 * n - 1 - m
    if n == 1:  # reflect
        return 0
    m = i % (2 * (n - 1))
    return m if m < n else 2 * (n - 1) - m


def _fill(x, axis, count, value, dtype):
    shape = _shape(x)
    block = ops.broadcast_to(value, shape[:axis] + (count,) + shape[axis + 1:])
    return block if block.dtype == dtype else ops.astype(block, dtype)


PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap")


@composite("crop, padding summed back")
def pad(array, pad_width, mode="constant", **kwargs):
    """``np.pad`` with modes constant (``constant_values`` may be Tensors: they get gradients
    too), edge, reflect, symmetric and wrap (``reflect_type='even'``); the axes are padded in
    order, so a corner takes the later axis's fill, as in NumPy."""
    if callable(mode) or mode not in PAD_MODES:
        raise NoGradientError(
            f"np.pad(mode={mode!r}) has no gradient form in gradmagic; the modes are "
            f"{', '.join(PAD_MODES)}")
    allowed = {"constant": {"constant_values"}, "reflect": {"reflect_type"},
               "symmetric": {"reflect_type"}}.get(mode, set())
    extra = set(kwargs) - allowed
    if extra:
        raise GradientValueError(
            f"np.pad(mode={mode!r}): unsupported keyword argument(s) {sorted(extra)}")
    if kwargs.get("reflect_type", "even") != "even":
        raise NoGradientError(
            f"np.pad(reflect_type={kwargs['reflect_type']!r}): only reflect_type='even' is "
            "supported on Tensors")
    xp = _module((array,))
    x = _as_array(array, xp)
    ndim = len(_shape(x))
    pairs = _pad_pairs(pad_width, ndim)
    dtype = x.dtype
    if mode == "constant":
        values = _value_pairs(kwargs.get("constant_values", 0), ndim, xp)
        for axis, (before, after) in enumerate(pairs):
            parts = [x]
            if before:
                parts.insert(0, _fill(x, axis, before, ops.getitem(values, (axis, 0)), dtype))
            if after:
                parts.append(_fill(x, axis, after, ops.getitem(values, (axis, 1)), dtype))
            if len(parts) > 1:
                x = ops.concatenate(parts, axis=axis)
        return x if x is not array else _identity(x)
    for axis, (before, after) in enumerate(pairs):
        if not before and not after:
            continue
        n = _shape(x)[axis]
        if n == 0:
            raise GradientValueError(
                f"np.pad(mode={mode!r}): cannot extend the empty axis {axis}; only mode "
                "'constant' pads an empty axis")
        index = [_source_index(i, n, mode) for i in range(-before, n + after)]
        x = _take_along(x, axis, index)
    return x if x is not array else _identity(x)


# -- differences -------------------------------------------------------------------------
@composite("difference back")
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``np.diff``: the ``n``-th differences along ``axis``, ``prepend`` and ``append`` (a
    scalar is broadcast to one slice) joined first."""
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    shape = _shape(a)
    if not shape:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(int(axis), len(shape))
    xp = _module((a, prepend, append))
    parts = [a]
    for value, at in ((prepend, 0), (append, 1)):
        if value is not None:
            value = _as_array(value, xp)
            if not _shape(value):
                value = ops.broadcast_to(value, shape[:axis] + (1,) + shape[axis + 1:])
            parts.insert(at * len(parts), value)
    x = ops.concatenate(parts, axis=axis) if len(parts) > 1 else a
    for _ in range(n):
        m = _shape(x)[axis]
        if m == 0:  # (empty already: it stays so)
            break
        x = ops.subtract(_take_along(x, axis, slice(1, None)), _take_along(x, axis, slice(0, m - 1)))
    return x if x is not a else _identity(x)


FUNCTIONS = {
    np.atleast_1d: atleast_1d, np.atleast_2d: atleast_2d, np.atleast_3d: atleast_3d,
    np.hstack: hstack, np.vstack: vstack, np.dstack: dstack, np.column_stack: column_stack,
    np.append: append,
    np.array_split: array_split, np.hsplit: hsplit, np.vsplit: vsplit, np.dsplit: dsplit,
    np.fliplr: fliplr, np.flipud: flipud, np.rot90: rot90, np.roll: roll, np.rollaxis: rollaxis,
    np.repeat: repeat, np.tile: tile, np.pad: pad, np.diff: diff,
}  # numpy function -> its differentiable form
if hasattr(np, "row_stack"):  # deprecated in NumPy 2.0
    FUNCTIONS[np.row_stack] = row_stack
