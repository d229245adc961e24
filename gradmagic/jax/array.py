"""JAX's arrays on gradmagic: ``Array`` (a gradmagic Tensor that prints as JAX's), dtype
canonicalization (float32 and int32 unless ``jax_enable_x64``), and ``config``."""

from __future__ import annotations

import warnings

import numpy as np

from ..core import ops
from ..core.kinks import absolute_one_at_zero
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
    1 - a bool array int64, int32 in JAX) is narrowed as JAX keeps it."""
    if not config.jax_enable_x64:
        narrow = _NARROW.get(out.value.dtype)
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


class _Update:
    """``x.at[index]``: ``set``, ``add``, ``multiply``, ``get``: a new array, differentiable."""

    def __init__(self, array, index):
        self.array, self.index = array, index

    def get(self):
        return self.array[self.index]

    def set(self, values):
        return ops.index_set(self.array, self.index, asarray(values, self.array.dtype))

    def add(self, values):
        return ops.index_add(self.array, self.index, asarray(values, self.array.dtype))

    def multiply(self, values):
        return self.set(self.array[self.index] * values)


def asarray(value, dtype=None):
    """An ``Array`` of ``value``: Python floats become float32 (float64 with x64), NumPy
    arrays are narrowed as JAX narrows them; a Tensor is kept (cast if ``dtype`` says)."""
    if isinstance(value, Tensor):  # kept as it is: a tape may follow it
        if dtype is not None and np.dtype(dtype) != value.dtype:
            return ops.astype(value, canonical(dtype))
        return value
    host = np.asarray(value, dtype=None if dtype is None else np.dtype(dtype))
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


def wrap(result):
    """A NumPy result as JAX would give it: arrays and NumPy scalars become Arrays."""
    if isinstance(result, Tensor):
        return result
    if isinstance(result, (np.ndarray, np.generic)):
        return asarray(result)
    if isinstance(result, tuple):
        return type(result)(*[wrap(r) for r in result]) if hasattr(result, "_fields") else tuple(
            wrap(r) for r in result)
    if isinstance(result, list):
        return [wrap(r) for r in result]
    return result
