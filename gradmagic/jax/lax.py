"""``jax.lax``: the control flow and primitives JAX's guide uses, run eagerly."""

from __future__ import annotations

from ..core import ops
from .array import asarray
from .tree_util import tree_map


def stop_gradient(x):
    """The value of ``x``, with no gradient flowing back through it."""
    return tree_map(lambda v: ops.stop_gradient(asarray(v)), x)


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
                         "select, while_loop, fori_loop, scan and clamp, run eagerly")
