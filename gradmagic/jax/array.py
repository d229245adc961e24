"""JAX's arrays on gradmagic: ``Array`` (a gradmagic Tensor that prints as JAX's), dtype
canonicalization (float32 and int32 unless ``jax_enable_x64``), and ``config``."""

from __future__ import annotations

import warnings

import numpy as np

from ..core import ops
from ..core.context import stack
from ..core.kinks import absolute_one_at_zero, maximum_halves, minimum_halves
from ..core.primitive import computed_in
from ..core.tensor import Tensor
from ..debug.nans import no_first_nan_stop


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
            warnings.warn(no_first_nan_stop("gradmagic.jax", f"JAX's {name}"), stacklevel=2)
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
        return f"Array({body}, dtype={host.dtype})"

    @property
    def at(self):
        return _At(self)

    def block_until_ready(self):
        return self

    def item(self):
        return self.numpy().item()


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
    """``|x|`` with JAX's derivative at 0, 1 (TensorFlow's and PyTorch's is 0)."""
    return absolute_one_at_zero(asarray(x))


Array.result_class = Array
Array.made = staticmethod(_narrowed)
Array.__abs__ = absolute  # abs(x), as jnp.abs


class _At:
    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _Update(self.array, index)


def _plain_index(index):
    """An index with its integer Arrays as the arrays they hold (the engine indexes with
    values, and an index carries no gradient); a list is refused, as JAX refuses it."""
    if isinstance(index, tuple):
        return tuple(_plain_index(i) for i in index)
    if isinstance(index, Tensor):
        return index.value
    if isinstance(index, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not allowed; "
                        "use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return index


class _Update:
    """``x.at[index]``: ``set``, ``add``, ``multiply``, ``min``, ``max``, ``get``: a new array,
    differentiable; ``add`` at a repeated index adds each value, as JAX's scatter-add does."""

    def __init__(self, array, index):
        self.array, self.index = array, _plain_index(index)

    def get(self, mode=None, fill_value=None):
        """The elements at the index; ``mode="fill"``: ``fill_value`` (NaN for floats) where an
        integer index along the first axis is out of bounds, as JAX's gather fills."""
        if mode is None or mode == "promise_in_bounds":
            return self.array[self.index]
        idx = np.asarray(self.index)
        if mode != "fill" or idx.dtype.kind not in "iu":
            raise NotImplementedError(f"x.at[index].get(mode={mode!r}): gradmagic.jax takes mode='fill' "
                                      "with an integer index along the first axis")
        n = self.array.shape[0]
        inside = (idx >= -n) & (idx < n)
        fill = np.nan if fill_value is None and self.array.dtype.kind == "f" else fill_value
        picked = self.array[np.where(inside, idx, 0)]
        mask = inside.reshape(inside.shape + (1,) * (picked.ndim - inside.ndim))
        return to_array(ops.where(mask, picked, asarray(fill, self.array.dtype)))

    def set(self, values):
        return ops.index_set(self.array, self.index, asarray(values, self.array.dtype))

    def add(self, values):
        return ops.index_add(self.array, self.index, asarray(values, self.array.dtype))

    def multiply(self, values):
        counts = np.zeros(self.array.shape, np.int64)
        np.add.at(counts, self.index, 1)
        if counts.max(initial=0) > 1:  # JAX multiplies once per repeat; set would do it once
            raise NotImplementedError("x.at[index].multiply(values) with a repeated index is not "
                                      "supported in gradmagic.jax (JAX multiplies once per "
                                      "repeat): multiply by a factor array built with .at[].set")
        return self.set(self.array[self.index] * values)

    def min(self, values):
        """The smaller of each element and its value; at a tie each gets half the gradient,
        as JAX's minimum."""
        return self._once("min", minimum_halves, values)

    def max(self, values):
        return self._once("max", maximum_halves, values)

    def _once(self, name, fn, values):
        counts = np.zeros(self.array.shape, np.int64)
        np.add.at(counts, self.index, 1)
        if counts.max(initial=0) > 1:
            raise NotImplementedError(f"x.at[index].{name}(values) with a repeated index is not "
                                      "supported in gradmagic.jax: reduce the values of each index "
                                      "first (jnp.minimum / jnp.maximum), then .at[].set")
        return self.set(fn(self.array[self.index], asarray(values, self.array.dtype)))


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


def followed(t):
    """Whether a recording tape follows ``t`` (then it must stay the object the tape knows)."""
    return any(tape.records and tape.follows(t) for tape in stack())


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
