"""``jax.lax``: the control flow and primitives JAX's guide uses, run eagerly."""

from __future__ import annotations

import numpy as np

from ..core import ops, special
from .array import asarray, to_array
from .tree_util import tree_map


def stop_gradient(x):
    """The value of ``x`` (an Array, or each leaf of a pytree), with no gradient flowing back
    through it."""
    return tree_map(lambda v: to_array(ops.stop_gradient(asarray(v))), x)


def _floating(name, x, accepted="floating, complexfloating"):
    """``x`` as an Array, refused as JAX's ``lax`` refuses it unless its dtype is floating."""
    x = asarray(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        f"subtypes of {accepted}.")
    return x


def exp(x):
    return ops.exp(_floating("exp", x))


def log(x):
    return ops.log(_floating("log", x))


def erf(x):
    """The error function; its derivative is ``2 exp(-x^2) / sqrt(pi)``."""
    return special.erf(_floating("erf", x, "floating"))


def rsqrt(x):
    """``1 / sqrt(x)``; its derivative is ``-0.5 x ** -1.5``."""
    return ops.reciprocal(ops.sqrt(_floating("rsqrt", x)))


def pow(x, y):  # noqa: A001  (JAX's name)
    """``x ** y`` elementwise: ``x`` floating, ``y`` floating or integer."""
    return ops.power(_floating("pow", x), asarray(y))


def integer_pow(x, y):
    """``x ** y`` for a Python int ``y``; its derivative is ``y x ** (y - 1)``."""
    if isinstance(y, bool) or not isinstance(y, (int, np.integer)):
        raise TypeError(f"lax.integer_pow: the exponent y must be a Python int, got "
                        f"{type(y).__name__} {y!r} (for a non-integer exponent use lax.pow)")
    return ops.power(asarray(x), int(y))


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)`` (only the branch
    taken runs, so its gradient is the gradient)."""
    return true_fun(*operands) if bool(pred) else false_fun(*operands)


def select(pred, on_true, on_false):
    return ops.where(asarray(pred), asarray(on_true), asarray(on_false))


def while_loop(cond_fun, body_fun, init_val):
    """A Python loop: ``while cond_fun(val): val = body_fun(val)``."""
    val = init_val
    while bool(cond_fun(val)):
        val = body_fun(val)
    return val


def fori_loop(lower, upper, body_fun, init_val):
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``(carry, stacked ys)``: ``f(carry, x)`` over the leading axis of ``xs``."""
    n = length if xs is None else len(asarray(xs))
    order = range(n - 1, -1, -1) if reverse else range(n)
    carry, ys = init, []
    for i in order:
        carry, y = f(carry, None if xs is None else asarray(xs)[i])
        ys.append(y)
    if reverse:
        ys.reverse()
    stacked = tree_map(lambda *v: ops.stack([asarray(x) for x in v]), *ys) if ys else None
    return carry, stacked


def clamp(min, x, max):  # noqa: A002  (JAX's names)
    return ops.clip(asarray(x), min, max)


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.lax.{name} does not exist: it maps stop_gradient, cond, "
                         "select, while_loop, fori_loop, scan and clamp, run eagerly, and exp, "
                         "log, pow, integer_pow and rsqrt")
