"""JAX's arrays on gradmagic: ``Array`` (a gradmagic Tensor that prints as JAX's), dtype
canonicalization (float32 and int32 unless ``jax_enable_x64``), and ``config``. Indexing is
JAX's: an out-of-bounds index is clamped in a gather (``x[i]``) and drops its update in a
scatter (``x.at[i].set``); ``float(x)``, ``complex(x)`` and ``x.tolist()`` of an array a
transformation follows raise JAX's ``ConcretizationTypeError``."""

from __future__ import annotations

import warnings

import numpy as np

from ..core import ops
from ..core.context import followed
from ..core.kinks import absolute_one_at_zero
from ..core.primitive import computed_in
from ..core.tensor import Tensor
from ..debug.nans import no_first_nan_stop
from ..tracebacks import user_stacklevel
from .errors import concretization
from .indexing import bounded, values
from .mismatch import mismatch
from .power import power
from .indexing import fill_value as fill


UNCHECKED = ("jax_debug_nans", "jax_debug_infs")  # JAX's checks gradmagic does not make


class Config:
    """``jax.config``: only ``jax_enable_x64`` changes anything here; turning on a check
    gradmagic does not make (``jax_debug_nans``) warns, so that no one counts on it."""

    def __init__(self):
        self.jax_enable_x64 = False

    def update(self, name, value):
        if name == "jax_enable_x64":
            self.jax_enable_x64 = bool(value)
        elif name in UNCHECKED and value:  # turning one on says so, and what does the job
            warnings.warn(no_first_nan_stop("gradmagic.jax", f"JAX's {name}"), stacklevel=user_stacklevel())
        elif not name.startswith("jax_"):
            raise AttributeError(f"Unrecognized config option: {name}")

    def read(self, name):
        return getattr(self, name, None)


config = Config()

_NARROW = {np.dtype("float64"): np.dtype("float32"), np.dtype("int64"): np.dtype("int32"),
           np.dtype("uint64"): np.dtype("uint32"), np.dtype("complex128"): np.dtype("complex64")}


def canonical(dtype):
    """The dtype JAX uses for ``dtype``: 64-bit types narrowed unless x64 is on."""
    dtype = np.dtype(dtype)
    return dtype if config.jax_enable_x64 else _NARROW.get(dtype, dtype)


class Array(Tensor):
    """``jax.Array``: an immutable array the engine can follow. Operations on Arrays give
    Arrays; ``x.at[i].set(v)`` gives an updated copy, as in JAX."""

    __slots__ = ()
    # how a trace's notes write NumPy's and gradmagic's functions for a JAX user (debug/nans.py)
    spelling = {"gm.softplus": "jax.nn.softplus", "np.logaddexp(0, x)": "jnp.logaddexp(0., x)",
                "gm.sigmoid": "jax.nn.sigmoid", "gm.logsumexp": "jax.nn.logsumexp", "np.": "jnp."}

    def __repr__(self):
        host = np.asarray(self.numpy())
        body = np.array2string(host, separator=", ", prefix="Array(")
        shape = f"shape={host.shape}, " if host.size == 0 else ""
        return f"Array({body}, {shape}dtype={host.dtype})"

    @property
    def at(self):
        return _At(self)

    def block_until_ready(self):
        return self

    def item(self):  # JAX's too, under grad (the value a constant, as int(x)'s)
        return self.numpy().item()

    def __float__(self):
        return float(_concrete(self, "float").value)

    def __complex__(self):
        return complex(_concrete(self, "complex").value)

    def tolist(self):
        if followed(self):
            raise concretization(self, "The tolist() method was called on traced array with shape {aval}.")
        return super().tolist()


def _concrete(x, fn):
    """``x``, refused in JAX's words where a transformation follows it: ``fn(x)`` would be a
    Python number that the gradient takes for a constant."""
    if followed(x):
        raise concretization(x, f"The problem arose with the `{fn}` function. If trying to convert "
                                f"the data type of a value, try using `x.astype({fn})` or "
                                f"`jnp.array(x, {fn})` instead.")
    return x


def _narrowed(prim, args, vals, out, params):
    """``Array.made``, told of each differentiable op that makes an Array: with x64 off, a
    result NumPy's promotion widened (int32 * float32 is float64 in NumPy, float32 in JAX;
    1 - a bool array int64, int32 in JAX) is narrowed as JAX keeps it; the float16 NumPy
    gives a bool or a byte (``exp``, ``sqrt``) is computed again in float32, JAX's (with x64
    too)."""
    dtype = out.value.dtype
    if dtype == np.float16 and not any(getattr(v, "dtype", None) == np.float16 for v in vals):
        out.value = computed_in(prim, vals, params, np.float32)
    elif not config.jax_enable_x64:
        narrow = _NARROW.get(dtype)
        if narrow is not None:
            out.value = out.value.astype(narrow)


def absolute(x):
    """``|x|`` with JAX's derivative at 0, 1 (TensorFlow's and PyTorch's is 0); of complex
    values, their real magnitudes, as JAX's (no gradient through them here)."""
    x = asarray(x)
    if x.dtype.kind != "f":
        return ops.absolute(x) if x.dtype.kind == "c" else absolute_one_at_zero(x)
    # JAX's select(x >= 0, x, -x): one branch's derivative, so an infinite upstream at 0 stays
    # infinite (|x| + 0 * ... would make it NaN); + 0.0 makes -0.0 the 0.0 |x| gives
    return ops.where(x >= 0, x + 0.0, -x)


Array.result_class = Array
Array.made = staticmethod(_narrowed)
Array.mismatch = staticmethod(mismatch)  # JAX's error where shapes do not fit
Array.__abs__ = absolute  # abs(x), as jnp.abs


def _rpow(self, other):
    return power(other, self)


Array.__pow__, Array.__rpow__ = power, _rpow  # x ** y, as jnp.power: JAX's derivatives


class _At:
    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _Update(self.array, index)


def _plain_index(index):
    """An index with its integer Arrays as the arrays they hold (the engine indexes with
    values, and an index carries no gradient); a list is refused, as JAX refuses it."""
    if isinstance(index, list) or isinstance(index, tuple) and any(isinstance(i, list) for i in index):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return values(index)


class _Update:
    """``x.at[index]``: ``get``, ``set``, ``add``, ``subtract``, ``multiply`` (``mul``),
    ``divide``, ``power``, ``min``, ``max``, ``apply``: a new array, differentiable. An
    element the index names more than once takes every update, as JAX's scatters do
    (``add`` adds each value, ``multiply`` multiplies by each, ``min`` takes the smallest of
    all); ``set`` keeps the last. An out-of-bounds index drops its update (JAX's default,
    ``mode="drop"``), or is clamped with ``mode="clip"``. Where JAX has no gradient for
    ``multiply``, ``divide``, ``power`` (without ``unique_indices=True``) and ``apply``, this
    gives the exact one."""

    METHODS = ("get", "set", "add", "subtract", "multiply", "mul", "divide", "power", "min",
               "max", "apply")

    def __init__(self, array, index):
        self.array, self.index = array, _plain_index(index)

    def __getattr__(self, name):
        raise AttributeError(f"x.at[index].{name} does not exist: it maps "
                             f"{', '.join(self.METHODS)}")

    def get(self, mode=None, fill_value=None, *, indices_are_sorted=False, unique_indices=False):
        """The elements at the index: an out-of-bounds index clamped (``mode="clip"``, and by
        default, where no gradient reaches the element through it), or giving ``fill_value``
        (NaN for floats) with ``mode="fill"`` or ``"drop"``, as JAX's gather."""
        out = bounded(self.array.shape, self.index)
        if out is None or mode in (None, "promise_in_bounds"):
            return self.array[self.index]
        if mode not in ("fill", "drop", "clip"):
            raise ValueError(f"x.at[index].get(mode={mode!r}): mode must be one of 'clip', 'drop', "
                             "'fill', 'promise_in_bounds'")
        picked = ops.getitem(self.array, out.clamped)
        if mode == "clip":
            return picked
        return to_array(ops.where(out.valid, picked, asarray(fill(self.array.dtype, fill_value),
                                                                self.array.dtype)))

    def _scatter(self, mode, update):
        """``update(array, index)`` where an out-of-bounds index is clamped (``mode="clip"``)
        or, by default, points one past the end of the array padded by one on its axis, so
        that its update lands outside the array and is dropped."""
        out = bounded(self.array.shape, self.index)
        if out is None or mode in ("clip", "promise_in_bounds"):
            return update(self.array, self.index if out is None else out.clamped)
        shape = self.array.shape
        crop = tuple(slice(0, n) for n in shape)
        padded = np.pad(self.array, [(0, e - n) for n, e in zip(shape, out.extended)])
        return update(padded, out.dropped)[crop]

    def set(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        return self._scatter(mode, lambda a, i: ops.index_set(a, i, asarray(values, a.dtype)))

    def add(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        return self._scatter(mode, lambda a, i: ops.index_add(a, i, asarray(values, a.dtype)))

    def subtract(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        return self._scatter(mode, lambda a, i: ops.index_add(a, i, -asarray(values, a.dtype)))

    def multiply(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        return self._scatter(mode, lambda a, i: _each(a, i, values, lambda old, v: old * v))

    mul = multiply

    def divide(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """``x / ones.at[index].multiply(values)``, as JAX computes it."""
        return self.array / self._factor(values, mode)

    def power(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """``x ** ones.at[index].multiply(values)``, as JAX computes it."""
        return self.array ** self._factor(values, mode)

    def _factor(self, values, mode):
        ones = asarray(np.ones(self.array.shape, self.array.dtype))
        return _Update(ones, self.index).multiply(values, mode=mode)

    def apply(self, func, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """``func`` (elementwise) applied at the index, once per time it names an element."""
        return self._scatter(mode, lambda a, i: _each(a, i, 0, lambda old, v: func(old)))

    def min(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        """The smallest of each element and its values; at a tie the gradient is shared
        equally among those equal to it, as JAX's."""
        return self._scatter(mode, lambda a, i: _extreme(a, i, values, np.minimum))

    def max(self, values, *, mode=None, indices_are_sorted=False, unique_indices=False):
        return self._scatter(mode, lambda a, i: _extreme(a, i, values, np.maximum))


def _flat_updates(a, index, values):
    """``(positions, values)``: the flat position in ``a`` of each element ``index`` names,
    and the value for it (``values`` broadcast over them), both 1-d."""
    positions = np.arange(np.size(a)).reshape(np.shape(a))[index]
    spread = ops.broadcast_to(asarray(values, a.dtype), positions.shape)
    return positions.ravel(), ops.reshape(spread, (-1,))


def _each(a, index, values, combine):
    """``a`` with ``combine(element, value)`` at the index, an element named ``k`` times
    combined ``k`` times in order (in rounds that name no element twice)."""
    positions, v = _flat_updates(a, index, values)
    order = np.argsort(positions, kind="stable")
    ranked = positions[order]
    starts = np.r_[0, np.flatnonzero(ranked[1:] != ranked[:-1]) + 1]
    rank = np.empty_like(positions)
    rank[order] = np.arange(len(ranked)) - np.repeat(starts, np.diff(np.r_[starts, len(ranked)]))
    flat = ops.reshape(a, (-1,))
    for k in range(int(rank.max(initial=-1)) + 1):
        sel = np.flatnonzero(rank == k)
        at = positions[sel]
        flat = ops.index_set(flat, at, combine(ops.getitem(flat, at), ops.getitem(v, sel)))
    return ops.reshape(flat, np.shape(a))


def _extreme(a, index, values, reduce):
    """JAX's scatter-min (``reduce`` ``np.minimum``) or -max: each element the smallest
    (largest) of itself and all its values, exactly; its gradient shared equally among the
    element and the values equal to the result (JAX's rule)."""
    positions, v = _flat_updates(a, index, values)
    flat = ops.reshape(a, (-1,))
    best = np.array(flat.value)
    reduce.at(best, positions, v.value)
    if best.dtype.kind != "f":
        return asarray(best.reshape(np.shape(a)))
    kept, won = flat.value == best, v.value == best[positions]
    count = kept.astype(best.dtype)
    np.add.at(count, positions, won)
    count = np.maximum(count, 1)
    shares = ops.index_add(flat * (kept / count).astype(best.dtype), positions,
                           v * (won / count[positions]).astype(best.dtype))
    zero = ops.where(np.isfinite(shares.value), shares - ops.stop_gradient(shares), 0)
    return ops.reshape(asarray(best) + zero, np.shape(a))


def _gather(x, index):
    """``x[index]``, an out-of-bounds integer index clamped as JAX's gather clamps it, the
    gradient reaching no element through it."""
    out = bounded(x.shape, values(index))
    if out is None:
        return ops.getitem(x, index)
    picked = ops.getitem(x, out.clamped)
    return to_array(ops.where(out.valid, picked, ops.stop_gradient(picked)))


Array.__getitem__ = _gather


def asarray(value, dtype=None):
    """An ``Array`` of ``value``: Python floats become float32 (float64 with x64), NumPy
    arrays are narrowed as JAX narrows them; a Tensor is kept (cast if ``dtype`` says); a
    (nested) list or tuple that holds Tensors is stacked, so a tape follows each of them."""
    if isinstance(value, Tensor):  # kept as it is: a tape may follow it
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return ops.astype(value, canonical(dtype))
        return value
    if holds_tensor(value):
        return _stacked(value, dtype)
    host = np.asarray(value, dtype=None if dtype is None else np.dtype(dtype))
    if host.dtype == np.int64 and not config.jax_enable_x64 and not isinstance(value, np.ndarray):
        _fits_int32(value, host)
    if dtype is None and isinstance(value, (bool, int, float, complex)) and host.dtype.kind == "f":
        host = host.astype(np.float32 if not config.jax_enable_x64 else np.float64)
    host = host.astype(canonical(host.dtype), copy=False)
    if host.dtype.kind == "c":
        raise NotImplementedError("complex numbers are out of scope in gradmagic.jax (gradmagic "
                                  "differentiates real values): pass the real and imaginary parts "
                                  "as two real arrays")
    out = Array.__new__(Array)
    out.value = host
    return out


def _fits_int32(value, host):
    """Python ints become int32 with x64 off; one that does not fit is JAX's OverflowError,
    where NumPy's cast would wrap it around without a word."""
    info, flat = np.iinfo(np.int32), np.ravel(host)
    bad = flat[(flat < info.min) | (flat > info.max)]
    if bad.size:
        v = int(bad[0])
        raise OverflowError(f"Python int {v} too large to convert to int32" if isinstance(value, int)
                            else f"Python integer {v} out of bounds for int32")


def holds_tensor(value):
    """Whether ``value`` is a list or tuple with a Tensor somewhere inside."""
    return isinstance(value, (list, tuple)) and any(
        isinstance(v, Tensor) or holds_tensor(v) for v in value)


def _leaves(value):
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def _common_dtype(leaves):
    """The dtype JAX gives a list of values: the arrays' promoted dtype, which Python numbers
    (weakly typed in JAX) follow, unless a float among integers makes it a float."""
    python = [isinstance(v, (bool, int, float)) and not isinstance(v, np.generic) for v in leaves]
    strong = [v.dtype if isinstance(v, Tensor) else np.asarray(v).dtype
              for v, weak in zip(leaves, python) if not weak]
    python = [v for v, weak in zip(leaves, python) if weak]
    dtype = np.result_type(*strong)
    if dtype.kind in "biu" and any(isinstance(v, float) for v in python):
        dtype = np.dtype(np.float64)
    elif dtype.kind == "b" and any(not isinstance(v, bool) for v in python):
        dtype = np.dtype(np.int64)
    return canonical(dtype)


def _stacked(value, dtype):
    """``jnp.asarray([...])`` of traced values: each entry an Array, stacked level by level
    (the engine's ``stack``, which records, as ``np.stack`` of Tensors does)."""
    dtype = _common_dtype(_leaves(value)) if dtype is None else canonical(dtype)

    def build(v):
        if not isinstance(v, (list, tuple)):
            return asarray(v, dtype)
        parts = [build(e) for e in v]
        shapes = sorted({p.shape for p in parts})
        if len(shapes) > 1:
            raise ValueError(f"jnp.asarray: the entries of a list (or tuple) must have one shape "
                             f"to be stacked into an array, got shapes {shapes}")
        if not parts:
            return asarray(np.zeros((0,), dtype))
        return ops.stack(parts)
    return build(value)


def to_array(t):
    """A result as an ``Array``: a plain Tensor no tape follows (what a function without a
    gradient gives, such as ``np.zeros_like``) becomes one; anything else is kept."""
    if not isinstance(t, Tensor) or isinstance(t, Array) and canonical(t.dtype) == t.dtype or followed(t):
        return t
    return asarray(t.value)  # (an Array of a 64-bit dtype with x64 off: NumPy's int64 indices)


def fresh(x):
    """``x`` as an Array object of its own, for a transformation to watch: the same array
    captured by the function, or passed twice, is then not taken for the argument (JAX tells
    them apart by tracer level: ``grad(lambda a: a * x)(x)`` is ``x``, not ``2 x``). A value
    a recording tape follows is copied through the engine's identity, so that tape still
    reaches it; any other shares its buffer."""
    x = asarray(x)
    if followed(x):
        return ops.identity(x)
    out = Array.__new__(Array)
    out.value = x.value
    return out


def wrap(result):
    """A NumPy result as JAX would give it: arrays, NumPy scalars and plain Tensors become
    Arrays."""
    if isinstance(result, Tensor):
        return to_array(result)
    if isinstance(result, (np.ndarray, np.generic)):
        return asarray(result)
    if isinstance(result, tuple):
        return type(result)(*[wrap(r) for r in result]) if hasattr(result, "_fields") else tuple(
            wrap(r) for r in result)
    if isinstance(result, list):
        return [wrap(r) for r in result]
    return result
