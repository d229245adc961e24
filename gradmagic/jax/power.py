"""``x ** y`` with JAX's derivatives, for ``**``, ``jnp.power``, ``jnp.float_power``,
``lax.pow`` and ``lax.integer_pow``.

The value is the engine's ``power`` (NumPy's). The rules are JAX's, which differ from the
engine's (TensorFlow's) at a few points:

- a float exponent: ``d/dx = y x ** (y - 1)`` everywhere, so NaN at ``x = 0, y = 0``
  (``0 * inf``), where the engine gives 0;
- an integer exponent: 0 where ``y == 0``, else ``y x ** (y - 1)``. A Python int
  (``x ** 2``: JAX's ``integer_pow``) is static; an integer array (``lax.pow(x, n)``) is not,
  and JAX writes ``x ** (y - 1)`` there with ``y`` a float, so a second derivative at
  ``x = 0`` for ``y`` of 0 or 1 meets ``0 * inf``: NaN, as in JAX;
- the exponent's: ``log(x) x ** y``, with ``log(0)`` taken as 0 (still NaN where ``x ** y``
  is inf) and NaN for a negative ``x``, where the engine takes ``log(x)`` as 0.

Each rule is written with this op again, so higher derivatives are JAX's too.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..core import ops
from ..core.primitive import Primitive, apply, defvjp
from ..core.tensor import Tensor


def _integer(y) -> bool:
    """Whether exponent ``y`` is an integer (a Python int, or an integer array)."""
    if isinstance(y, bool):
        return False
    return isinstance(y, int) or np.dtype(getattr(y, "dtype", float)).kind in "iu"


def _base_vjp(g, ans, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        if type(y) is int:  # JAX's integer_pow: 0 for y == 0
            return ops.zeros_like(x) if y == 0 else g * (y * apply(POW, x, y - 1))
        if _integer(y):  # an integer array: 0 where y == 0, the other branch still computed
            zero, y = y == 0, ops.astype(y, x.dtype)  # in x's float type, as JAX converts it
            return g * ops.where(zero, 0, ops.where(zero, 1, y) * apply(POW, x, y - 1))
        return g * (y * apply(POW, x, y - 1))


def _exponent_vjp(g, ans, x, y):
    if _integer(y):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(x, (int, float)):  # a Python number: stay one
            log = math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
        else:
            log = ops.log(ops.where(x == 0, 1, x))
        return g * (log * ans)


POW = Primitive("power", lambda xp, x, y: ops.power(x, y), elementwise=True)
defvjp(POW, _base_vjp, _exponent_vjp, labels=("y x^(y-1), JAX's", "log(x) x^y, JAX's"))


def exponent(y):
    """``y`` as a Python int where it is a concrete integer scalar (``jnp.power``'s path to
    JAX's ``integer_pow``, whose derivative is static), else as it is."""
    if isinstance(y, (bool, float)):
        return y
    try:
        return operator.index(y.value if isinstance(y, Tensor) else y)
    except TypeError:
        return y


def power(x, y):
    """``x ** y``: the engine's value, JAX's derivatives; ``y`` a Python int or a concrete
    integer scalar is static (``integer_pow``), anything else as ``lax.pow`` takes it."""
    return apply(POW, x, exponent(y))


def traced_power(x, y):
    """``x ** y`` with ``y`` never static: ``lax.pow``'s, whose integer exponent is an array
    (so its second derivative at ``x = 0`` is JAX's NaN)."""
    return apply(POW, x, y)
