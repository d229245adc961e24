"""PyTorch's answers where a derivative does not exist or a reduction has no degrees of
freedom: ``norm`` and ``std`` have gradient 0 where they are 0 (the chain rule through a
square root gives 0 * inf = nan there), and ``var``/``std`` with ``correction`` >= the count
give nan or inf with PyTorch's warning and PyTorch's gradient, not an error.

Each is one op to a trace (``composite``) and carries PyTorch's ``grad_fn`` name. The
square root at 0 is taken of a stand-in 1 and then replaced by 0 (``where`` twice), so the
backward pass never forms inf and anomaly mode stays quiet.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._backend import xp_of
from ..core import ops
from ..core.primitive import composite
from ..tracebacks import user_stacklevel
from .autograd.function import Function
from .values import dims, named

DOF = ("{}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
       "factor (input numel divided by output numel).")


def _axes(dim, ndim):
    """``dim`` (None: all) as a tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return tuple(int(d) % max(ndim, 1) for d in dims)


def _root(s, p):
    """``s ** (1 / p)`` with the root of 0 taken as 0 and its gradient 0 there."""
    nonzero = s.value != 0
    safe = ops.where(nonzero, s, 1)
    return ops.where(nonzero, ops.sqrt(safe) if p == 2 else safe ** (1.0 / p), 0)


@composite("x / norm (0 where the norm is 0)", name="norm")
def vector_norm(x, p=2, dim=None, keepdim=False):
    """``torch.linalg.vector_norm`` (and ``Tensor.norm`` with a number or ``"fro"``): the
    p-norm of the elements over ``dim`` (all when None); gradient 0 where it is 0, and for
    a zero element at any ``p``, as PyTorch's."""
    axis = _axes(dim, x.ndim) if dim is not None else None
    if p == math.inf:
        out = ops.max(ops.absolute(x), axis=axis, keepdims=keepdim)
    elif p == -math.inf:
        out = ops.min(ops.absolute(x), axis=axis, keepdims=keepdim)
    elif p == 0:
        out = ops.sum(ops.astype(x != 0, x.dtype), axis=axis, keepdims=keepdim)
    elif p == 1:
        out = ops.sum(ops.absolute(x), axis=axis, keepdims=keepdim)
    elif p == 2:
        out = _root(ops.sum(x * x, axis=axis, keepdims=keepdim), 2)
    else:  # |x| ** p at a zero element through a stand-in too (its slope there is 0 or inf)
        nonzero = x.value != 0
        powered = ops.where(nonzero, ops.absolute(ops.where(nonzero, x, 1)) ** p, 0)
        out = _root(ops.sum(powered, axis=axis, keepdims=keepdim), p)
    return named(out, "LinalgVectorNormBackward0")


def variance(x, dim, correction, keepdim, fn="var"):
    """``Tensor.var``: the core's ``var``; with no degrees of freedom left (count <=
    ``correction``), PyTorch's warning, value (nan, or inf when the values differ) and
    gradient."""
    count = int(np.prod([x.value.shape[a] for a in _axes(dim, x.ndim)], dtype=np.int64))
    if count - correction > 0:
        return ops.var(x, None if dim is None else _axes(dim, x.ndim), ddof=correction,
                       keepdims=keepdim)
    warnings.warn(DOF.format(fn), UserWarning, stacklevel=user_stacklevel())
    return named(NoDegreesOfFreedom.apply(x, dim, correction, keepdim), "VarBackward0")


@composite("(x - mean) / ((n - correction) std) (0 where std is 0)", name="std")
def standard_deviation(x, dim, correction, keepdim):
    """``Tensor.std``: the square root of ``variance``, its gradient 0 where it is 0."""
    count = int(np.prod([x.value.shape[a] for a in _axes(dim, x.ndim)], dtype=np.int64))
    if count - correction <= 0:
        warnings.warn(DOF.format("std"), UserWarning, stacklevel=user_stacklevel())
        v = NoDegreesOfFreedom.apply(x, dim, correction, keepdim)
    else:
        v = ops.var(x, None if dim is None else _axes(dim, x.ndim), ddof=correction, keepdims=keepdim)
    return named(_root(v, 2), "StdBackward0")


class NoDegreesOfFreedom(Function):
    """``var`` with ``correction`` >= the count, as PyTorch 2.13.0 computes it: the sum of
    squared deviations over max(0, count - correction); backward ``grad * (nan where x equals
    the mean, else inf)`` over all elements, ``2 / (count - correction) * grad * (x - mean)``
    over ``dim`` (PyTorch's ``var_backward``)."""

    @staticmethod
    def forward(ctx, x, dim, correction, keepdim):
        axes = _axes(dim, x.ndim)
        ctx.save_for_backward(x)
        ctx.axes, ctx.all, ctx.keepdim = axes, dim is None, keepdim
        ctx.dof = int(np.prod([x.value.shape[a] for a in axes], dtype=np.int64)) - correction
        centred = x - ops.mean(x, axis=axes, keepdims=True)
        squares = ops.sum(centred * centred, axis=axes, keepdims=keepdim)
        with np.errstate(divide="ignore", invalid="ignore"):
            return squares / np.asarray(0.0, x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore"):
            if ctx.all:
                xp = xp_of(x.value)
                slope = xp.where(x.value == x.value.mean(), np.nan, np.inf).astype(x.dtype)
                return grad * slope, None, None, None
            if not ctx.keepdim:
                grad = ops.expand_dims(grad, ctx.axes)
            scale = float(np.float64(2.0) / np.float64(ctx.dof))  # inf when it is 0, as PyTorch's
            return grad * (x - ops.mean(x, axis=ctx.axes, keepdims=True)) * scale, None, None, None


def extreme(t, largest):
    """``t.max()`` (``t.min()``) of every element. Where one is NaN, so is the result, and
    its gradient is shared by the NaN elements, as PyTorch's (``evenly_distribute_backward``),
    where the engine's rule (ties share, ``x == max``) would give every element NaN."""
    whole = (ops.max if largest else ops.min)(t)
    if t.value.dtype.kind not in "fc" or not np.isnan(whole.value):
        return whole
    nan = np.isnan(t.value)
    return named(ops.sum(ops.where(nan, t, 0)) / int(nan.sum()), "MaxBackward1" if largest else "MinBackward1")


def log_sum_exp(t, dim, keepdim=False):
    """``logsumexp``; over an empty dimension -inf, as PyTorch's (the log of an empty sum: its
    gradient is empty), where the engine's, which shifts by the maximum, has none to take."""
    axis = dims(dim)
    shape = t.value.shape
    reduced = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    if t.value.size or not any(shape[a] == 0 for a in reduced):
        return ops.logsumexp(t, axis=axis, keepdims=keepdim)
    with np.errstate(divide="ignore"):
        return named(ops.log(ops.sum(ops.exp(t), axis=axis, keepdims=keepdim)), "LogsumexpBackward0")
