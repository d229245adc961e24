"""``jax.numpy``: NumPy's functions on gradmagic's arrays (``import gradmagic.jax.numpy as
jnp``). A name is NumPy's own function, run so that its results are JAX ``Array`` s of
JAX's dtypes (float32 unless ``jax_enable_x64``) and its differentiable ones record; a
name NumPy does not have raises ``AttributeError``, and a function without a gradient
rule says so when it meets a traced value."""

from __future__ import annotations

import builtins
import functools
import sys

import numpy as np

from ...core import ops
from ...core.tensor import Tensor
from ...core.kinks import fmax_second_at_tie, fmin_second_at_tie, maximum_halves, minimum_halves
from . import fft, keywords, linalg, methods  # noqa: F401  (jnp.linalg, jnp.fft)
from ..array import Array, absolute, asarray, canonical, wrap
from ..indexing import fill_value as fill
from ..power import power as jax_power

ndarray = Array
NAMESPACE = sys.modules[__name__]  # this module, for lax's primitives, made of many of its functions
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
    """``jnp.array``: as ``asarray``; a (nested) list of traced values is stacked, so the
    gradient reaches each of them."""
    return asarray(object, dtype)


def copy(a, order=None):
    """``jnp.copy``: a new Array of ``a``'s values, whose gradient is the identity."""
    return ops.identity(asarray(a))


TAKE_MODES = (None, "fill", "clip", "wrap", "promise_in_bounds")


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """``jnp.take``: ``a`` at ``indices`` along ``axis`` (of ``a`` flattened when ``axis`` is
    None). It indexes with an integer array, so the gradient adds up at a repeated index.
    Out-of-bounds indices follow ``mode`` as in JAX: ``"fill"`` (the default) gives
    ``fill_value`` (NaN for floats) and no gradient, ``"clip"`` the nearest end, ``"wrap"``
    the index modulo the axis' length.

    >>> import gradmagic.jax as jax
    >>> print(jax.grad(lambda x: take(x, array([0, 0, 2])).sum())(array([1., 2., 3.])))
    [2. 0. 1.]
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    if mode not in TAKE_MODES:
        raise ValueError(f"jnp.take: mode={mode!r} is not one of {TAKE_MODES[1:]}")
    a = asarray(a)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"jnp.take: axis {axis} is out of bounds for array of dimension {a.ndim}")
    axis %= a.ndim
    index = np.asarray(indices.value if isinstance(indices, Tensor) else indices)
    if index.dtype.kind not in "iu":
        raise TypeError(f"jnp.take: indices must be integers, got dtype {index.dtype.name}")
    n = a.shape[axis]
    inside = (index >= -n) & (index < n)
    if mode == "wrap":
        index = index % max(n, 1)
    elif mode in ("clip", "promise_in_bounds"):
        index = np.clip(index, 0, n - 1)
    else:
        index = np.where(inside, index, 0)
    taken = a[(slice(None),) * axis + (index,)]
    if mode in (None, "fill") and not inside.all():
        spot = inside.reshape(inside.shape + (1,) * (a.ndim - axis - 1))
        taken = ops.where(spot, taken, fill(a.dtype, fill_value))
    return taken


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``jnp.diff``: ``a[1:] - a[:-1]`` along ``axis``, ``n`` times (slices and a
    subtraction, so it differentiates); ``prepend`` and ``append`` join ``a`` first."""
    a = asarray(a)
    if n < 0:
        raise ValueError(f"jnp.diff: order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError("jnp.diff requires input that is at least one dimensional; got a scalar")
    if not -a.ndim <= axis < a.ndim:
        raise ValueError(f"jnp.diff: axis {axis} is out of bounds for array of dimension {a.ndim}")
    axis %= a.ndim
    parts = []
    for extra in (prepend, a, append):
        if extra is None:
            continue
        extra = asarray(extra)
        if extra.ndim == 0:
            extra = ops.broadcast_to(extra, a.shape[:axis] + (1,) + a.shape[axis + 1:])
        parts.append(extra)
    if len(parts) > 1:
        a = ops.concatenate(parts, axis=axis)
    head = (slice(None),) * axis
    for _ in range(n):
        hi, lo = a[head + (slice(1, None),)], a[head + (slice(None, -1),)]
        a = ops.not_equal(hi, lo) if a.dtype == np.bool_ else hi - lo
    return a


abs = absolute  # noqa: A001  (JAX's names; the derivative at 0 is JAX's: see array.absolute)


def _weak(args):
    """The arguments of an elementwise function: arrays as Arrays of JAX's dtypes; Python
    numbers too where no array is given, else left as numbers, weakly typed as in JAX
    (``jnp.maximum(x, 0.)`` keeps ``x``'s float32, with x64 too), as NumPy treats them."""
    weak = any(isinstance(a, (Tensor, np.ndarray, np.generic)) for a in args)
    return [asarray(a) if isinstance(a, (np.ndarray, np.generic)) or not weak and isinstance(
        a, (int, float, complex)) and not isinstance(a, bool) else a for a in args]


def maximum(x1, x2):
    """``np.maximum`` with JAX's derivative where the two are equal: half to each."""
    return maximum_halves(*_weak([x1, x2]))


def minimum(x1, x2):
    """``np.minimum``, likewise: half to each where the two are equal."""
    return minimum_halves(*_weak([x1, x2]))


def fmax(x1, x2):
    """``np.fmax`` (NaN ignored) with JAX's derivative where the two are equal: all to ``x2``."""
    return fmax_second_at_tie(*_weak([x1, x2]))


def fmin(x1, x2):
    """``np.fmin``, likewise: a tie's gradient to ``x2``."""
    return fmin_second_at_tie(*_weak([x1, x2]))


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


def power(x1, x2):
    """``np.power``'s value with JAX's derivatives (see ``gradmagic.jax.power``)."""
    return jax_power(*_weak([x1, x2]))


def _inexact(x):
    """``x`` in JAX's float type (float32 unless x64; a Python number a float)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    x = asarray(x)
    return x if x.dtype.kind == "f" else asarray(x, np.float64)  # narrowed unless x64


def float_power(x1, x2):
    """``jnp.float_power``: both operands in JAX's float type, then ``power``: JAX's
    ``lax.pow`` of floats, with its float rule."""
    return jax_power(_inexact(x1), _inexact(x2))


def fabs(x):
    """``jnp.fabs``: ``abs`` of ``x`` in JAX's float type, with JAX's derivative (1 at 0)."""
    return absolute(_inexact(x))


def hypot(x1, x2):
    """``jnp.hypot`` as JAX computes it: ``a sqrt(1 + (b / a)^2)`` for ``a = max(|x1|, |x2|)``,
    ``b`` the min (``a`` where it is 0, inf where either is), so its gradient at (0, 0) is
    JAX's (0.5, 0.5), each side of the tie half."""
    x1, x2 = _weak([_inexact(x1), _inexact(x2)])
    x1, x2 = absolute(x1), absolute(x2)
    infinite = (x1 == np.inf) | (x2 == np.inf)
    x1, x2 = maximum(x1, x2), minimum(x1, x2)
    zero = x1 == 0
    safe = ops.where(zero, 1.0, x1)
    x = ops.where(zero, x1, x1 * np.sqrt(1 + np.square(x2 / safe)))
    return ops.where(infinite, np.inf, x)


def reciprocal(x):
    """``1 / x``, an integer's in JAX's default float (NumPy's stays an integer: 1 / 2 is 0)."""
    x = asarray(x)
    return np.reciprocal(x) if x.dtype.kind == "f" else 1 / x


def _jnp(f):
    @functools.wraps(f)
    def run(*args, **kwargs):
        if isinstance(f, np.ufunc):  # elementwise
            args = _weak(args)
        if "dtype" in kwargs and kwargs["dtype"] is not None:
            kwargs["dtype"] = canonical(kwargs["dtype"])
        return wrap(f(*args, **kwargs))
    return run


# NumPy's submodules whose results are complex numbers, out of scope in gradmagic.jax (jnp.fft
# is its own module: its real-valued helpers, and its transforms refused)
COMPLEX = {}


def __getattr__(name):
    if name in COMPLEX:
        raise AttributeError(f"gradmagic.jax.numpy.{name} does not exist: {COMPLEX[name]}, "
                             "and complex numbers are out of scope in gradmagic.jax")
    f = getattr(np, name, None)
    if f is None or name.startswith("_"):
        raise AttributeError(f"gradmagic.jax.numpy has no {name!r}: it maps NumPy's own "
                             "functions, and NumPy has none of that name")
    if callable(f) and not isinstance(f, type):
        run = keywords.extend(name, _jnp(f))
        if not hasattr(builtins, name):  # looked up once; but jnp.max must not become this
            globals()[name] = run  # module's own max (take's index % max(n, 1))
        return run
    return f


methods.install(NAMESPACE)  # x.argmax(), x.sum(where=m) ...: these functions, as Array methods
