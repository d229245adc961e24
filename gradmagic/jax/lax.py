"""``jax.lax``: the control flow and primitives JAX's guide uses, run eagerly."""

from __future__ import annotations

import builtins

import numpy as np

from ..core import ops, special
from ..core.tensor import Tensor
from .array import asarray, to_array
from .control import cond, fori_loop, leaf, map, scan, switch, while_loop
from .convolution import (ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,
                          conv_transpose, conv_with_general_padding, padtype_to_pads, reduce_window)
from .primitives import (FUNCTIONS, RoundingMethod, argmax, argmin, batch_matmul, broadcast,
                         broadcast_in_dim, broadcasted_iota, concatenate, convert_element_type, div,
                         dot, dot_general, expand_dims, floating, full, full_like, index_in_dim, iota,
                         pad, rem, reshape, rev, round, same_rank, slice, slice_in_dim, squeeze, top_k,
                         transpose)
from .power import power, traced_power
from .tree_util import tree_map


def stop_gradient(x):
    """The value of ``x`` (an Array, or each leaf of a pytree), with no gradient flowing back
    through it."""
    return tree_map(lambda v: to_array(ops.stop_gradient(asarray(v))), x)


def exp(x):
    return ops.exp(floating("exp", x))


def log(x):
    return ops.log(floating("log", x))


def erf(x):
    """The error function; its derivative is ``2 exp(-x^2) / sqrt(pi)``."""
    return special.erf(floating("erf", x, "floating"))


def erfc(x):
    """``1 - erf(x)``, with its digits where ``erf`` is near 1."""
    return special.erfc(floating("erfc", x, "floating"))


def lgamma(x):
    """``log |Gamma(x)|``; its derivative is ``digamma``."""
    return special.gammaln(floating("lgamma", x, "floating"))


def digamma(x):
    return special.digamma(floating("digamma", x, "floating"))


def rsqrt(x):
    """``1 / sqrt(x)``; its derivative is ``-0.5 x ** -1.5``."""
    return ops.reciprocal(ops.sqrt(floating("rsqrt", x)))


def pow(x, y):  # noqa: A001  (JAX's name)
    """``x ** y`` elementwise: ``x`` floating, ``y`` floating or integer; JAX's derivatives,
    an integer ``y`` taken as an array (not static: see ``gradmagic.jax.power``)."""
    x, y = same_rank("pow", x, y)
    return traced_power(floating("pow", x), y if isinstance(y, float) else asarray(y))


def integer_pow(x, y):
    """``x ** y`` for a Python int ``y``; its derivative is ``y x ** (y - 1)`` (0 for y = 0)."""
    if isinstance(y, bool) or not isinstance(y, (int, np.integer)):
        raise TypeError(f"lax.integer_pow: the exponent y must be a Python int, got "
                        f"{type(y).__name__} {y!r} (for a non-integer exponent use lax.pow)")
    return power(asarray(x), int(y))


def select(pred, on_true, on_false):
    return ops.where(asarray(pred), asarray(on_true), asarray(on_false))


def _starts(name, operand, start_indices, sizes):
    """The start of each axis, as JAX reads them: integers, a negative one counted from the
    end, then clamped so that a slice of ``sizes`` fits."""
    starts = [leaf(i) for i in (start_indices if isinstance(start_indices, (list, tuple))
                                else list(asarray(start_indices)))]
    kinds = sorted({s.dtype.name for s in starts})
    if any(s.dtype.kind not in "iu" for s in starts) or len(kinds) > 1:
        raise TypeError(f"index arguments to {name} must be integers of the same type, got: "
                        f"{', '.join(s.dtype.name for s in starts)}")
    if len(starts) != operand.ndim:
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(starts)} vs {tuple(operand.shape)})")
    out = []
    for s, dim, size in zip(starts, operand.shape, sizes):
        s = int(s)
        s = builtins.min(builtins.max(s + dim if s < 0 else s, 0), dim - size)
        out.append(builtins.slice(s, s + size))
    return tuple(out)


def dynamic_slice(operand, start_indices, slice_sizes):
    """``operand[start:start + size]`` on every axis, the starts clamped so the slice fits."""
    operand, sizes = asarray(operand), tuple(int(n) for n in slice_sizes)
    if len(sizes) != operand.ndim or any(n > d or n < 0 for n, d in zip(sizes, operand.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {sizes} for operand shape {tuple(operand.shape)}.")
    return operand[_starts("dynamic_slice", operand, start_indices, sizes)]


def dynamic_update_slice(operand, update, start_indices):
    """``operand`` with ``update`` written from ``start_indices`` on (clamped so it fits)."""
    operand, update = asarray(operand), asarray(update)
    if update.ndim != operand.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {tuple(update.shape)} for operand shape {tuple(operand.shape)}.")
    if update.dtype != operand.dtype:
        raise TypeError(f"lax.dynamic_update_slice requires arguments to have the same dtypes, "
                        f"got {operand.dtype.name}, {update.dtype.name}.")
    if any(u > d for u, d in zip(update.shape, operand.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand shape, "
                        f"got update shape {tuple(update.shape)} for operand shape "
                        f"{tuple(operand.shape)}.")
    at = _starts("dynamic_update_slice", operand, start_indices, update.shape)
    return operand.at[at].set(update)


def _in_dim(operand, start_index, axis):
    starts = [0] * asarray(operand).ndim
    starts[axis] = start_index
    return starts


def dynamic_slice_in_dim(operand, start_index, slice_size=1, axis=0):
    operand = asarray(operand)
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, _in_dim(operand, start_index, axis), sizes)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    return dynamic_update_slice(operand, update, _in_dim(operand, start_index, axis))


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    out = dynamic_slice_in_dim(operand, index, 1, axis)
    return out if keepdims else ops.squeeze(out, axis)


def clamp(min, x, max):  # noqa: A002  (JAX's names)
    """``x`` clamped to ``[min, max]``, with JAX's derivatives: ``x``'s 1 strictly inside
    only, ``min``'s where it is above ``x`` (and below ``max``), ``max``'s where it is below
    ``x``; at a bound none (``jnp.clip`` gives half to each side there)."""
    x = asarray(x)
    lo, hi = (asarray(b, x.dtype) if not isinstance(b, Tensor) else b for b in (min, max))
    at_bound = ops.stop_gradient(ops.clip(x, lo, hi))
    to_hi = ops.where(hi < x, hi, at_bound)
    return ops.where((x > lo) & (x < hi), x, ops.where((lo > x) & (lo < hi), lo, to_hi))


globals().update(FUNCTIONS)  # add, mul, sin, reduce_sum, cumsum ... (primitives.py)


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.lax.{name} does not exist: it maps stop_gradient, cond, "
                         "switch, select, while_loop, fori_loop, scan, map (run eagerly), "
                         "dynamic_slice, dynamic_update_slice and their _in_dim forms, "
                         "dynamic_index_in_dim, clamp, the elementwise primitives (add, mul, "
                         "exp, sin, logistic, ...), the shape ones (reshape, broadcast_in_dim, "
                         "pad, concatenate, slice, ...), dot_general, the reductions and the "
                         "cumulative ones, conv_general_dilated (conv, conv_transpose ...) and "
                         "reduce_window of max, min and add; not the collectives or sharding")


__all__ = ["stop_gradient", "cond", "switch", "select", "while_loop", "fori_loop", "scan", "map",
           "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
           "dynamic_update_slice_in_dim", "dynamic_index_in_dim", "clamp", "exp", "log", "erf", "erfc",
           "pow", "integer_pow", "rsqrt", "lgamma", "digamma", "RoundingMethod", "argmax", "argmin",
           "batch_matmul", "broadcast", "broadcast_in_dim", "broadcasted_iota", "concatenate",
           "convert_element_type", "div", "dot", "dot_general", "expand_dims", "full", "full_like",
           "index_in_dim", "iota", "pad", "rem", "reshape", "rev", "round", "slice", "slice_in_dim",
           "squeeze", "top_k", "transpose", "ConvDimensionNumbers", "conv", "conv_dimension_numbers",
           "conv_general_dilated", "conv_transpose", "conv_with_general_padding", "padtype_to_pads",
           "reduce_window", *FUNCTIONS]
