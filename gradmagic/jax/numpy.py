"""``jax.numpy``: NumPy's functions on gradmagic's arrays (``import gradmagic.jax.numpy as
jnp``). A name is NumPy's own function, run so that its results are JAX ``Array`` s of
JAX's dtypes (float32 unless ``jax_enable_x64``) and its differentiable ones record; a
name NumPy does not have raises ``AttributeError``, and a function without a gradient
rule says so when it meets a traced value."""

from __future__ import annotations

import functools

import numpy as np

from ..core.tensor import Tensor
from ..core.kinks import maximum_halves, minimum_halves
from .array import Array, absolute, asarray, canonical, wrap

ndarray = Array
pi, e, inf, nan, newaxis = np.pi, np.e, np.inf, np.nan, None


class DType:
    """``jnp.float32`` and kin: a dtype (``dtype=jnp.float32``) and a constructor
    (``jnp.float32(3.0)``)."""

    def __init__(self, name):
        self.dtype = np.dtype(name)
        self.__name__ = name

    def __call__(self, value):
        return asarray(value, self.dtype)

    def __eq__(self, other):
        try:
            return self.dtype == np.dtype(other)
        except TypeError:
            return False

    __hash__ = object.__hash__

    def __repr__(self):
        return f"<class 'jax.numpy.{self.__name__}'>"


float16, float32, float64 = DType("float16"), DType("float32"), DType("float64")
int8, int16, int32, int64 = DType("int8"), DType("int16"), DType("int32"), DType("int64")
uint8, uint32, bool_ = DType("uint8"), DType("uint32"), DType("bool")
complex64 = DType("complex64")


def array(object, dtype=None, copy=True, order=None, ndmin=0):  # noqa: A002  (NumPy's name)
    if isinstance(object, (list, tuple)) and any(isinstance(x, Tensor) for x in object):
        return np.stack([asarray(x) for x in object])  # records, as jnp.array of traced values
    return asarray(object, dtype)


abs = absolute  # noqa: A001  (JAX's names; the derivative at 0 is JAX's: see array.absolute)


def maximum(x1, x2):
    """``np.maximum`` with JAX's derivative where the two are equal: half to each."""
    return maximum_halves(asarray(x1), asarray(x2))


def minimum(x1, x2):
    """``np.minimum``, likewise: half to each where the two are equal."""
    return minimum_halves(asarray(x1), asarray(x2))


def clip(a, a_min=None, a_max=None, *, min=None, max=None):  # noqa: A002  (JAX's names)
    """``jnp.clip``: ``minimum(maximum(a, lo), hi)``, so a value on a bound gets half the
    gradient, as in JAX."""
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    out = asarray(a)
    if lo is not None:
        out = maximum(out, lo)
    if hi is not None:
        out = minimum(out, hi)
    return out


def _jnp(f):
    @functools.wraps(f)
    def run(*args, **kwargs):
        if isinstance(f, np.ufunc):  # elementwise: numbers become Arrays, computed in JAX's dtype
            args = [asarray(a) if isinstance(a, (int, float, complex, np.ndarray, np.generic))
                    and not isinstance(a, bool) else a for a in args]
        if "dtype" in kwargs and kwargs["dtype"] is not None:
            kwargs["dtype"] = canonical(kwargs["dtype"])
        return wrap(f(*args, **kwargs))
    return run


def __getattr__(name):
    f = getattr(np, name, None)
    if f is None or name.startswith("_"):
        raise AttributeError(f"gradmagic.jax.numpy has no {name!r}: it maps NumPy's own "
                             "functions, and NumPy has none of that name")
    if callable(f) and not isinstance(f, type):
        run = _jnp(f)
        globals()[name] = run  # looked up once
        return run
    return f
