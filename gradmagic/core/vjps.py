"""Gradient rules: one line per op and argument, read like a derivative table.

A rule is ``vjp(g, ans, *args, **params)``: ``g`` is the upstream gradient, ``ans`` the
op's output, ``args`` its inputs. It returns the downstream gradient for one argument,
before broadcasting is undone (the backward walk does that, once, for every rule). Rules are
written with ``ops``, so they run on raw arrays in a plain backward pass and are
recorded when an outer tape is watching (higher order). Labels are what the trace
shows for the local derivative of ops that are not elementwise; ``{0}``, ``{1}`` stand
for the names of the op's arguments.
"""

import builtins
import math

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, xp_of
from ..errors import through_complex
from . import fused, methods, ops
from .fused import (divide_backward, mean_backward, power_backward, sigmoid_backward,
                    sum_backward, tanh_backward)
from .ops import (cos, cosh, cumsum, exp, exp2, flip, floor, getitem, log, matmul, trunc,
                  reshape, scatter_add, sigmoid, sign, sin, sinh, sqrt, swapaxes, transpose,
                  where, zeros_like)
from .primitive import defvjp, variadic
from .tensor import raw

LN2, LN10 = math.log(2.0), math.log(10.0)
U = ops.UFUNCS  # np.exp -> the exp op: the table below names ops by their NumPy ufunc

# -- elementwise, one argument ------------------------------------------------------
defvjp(U[np.negative], lambda g, ans, x: -g, labels=("-1",))
defvjp(U[np.positive], lambda g, ans, x: g, labels=("1",))
defvjp(U[np.absolute], lambda g, ans, x: g * sign(x), labels=("sign(x)",))
defvjp(U[np.sign], lambda g, ans, x: zeros_like(g), labels=("0",))
defvjp(U[np.exp], lambda g, ans, x: g * ans, labels=("exp(x)",))
defvjp(U[np.exp2], lambda g, ans, x: g * ans * LN2, labels=("exp2(x) * ln 2",))
defvjp(U[np.expm1], lambda g, ans, x: g * (ans + 1), labels=("exp(x)",))
defvjp(U[np.log], lambda g, ans, x: g / x, labels=("1 / x",))
defvjp(U[np.log1p], lambda g, ans, x: g / (1 + x), labels=("1 / (1 + x)",))
defvjp(U[np.log2], lambda g, ans, x: g / (x * LN2), labels=("1 / (x ln 2)",))
defvjp(U[np.log10], lambda g, ans, x: g / (x * LN10), labels=("1 / (x ln 10)",))
defvjp(U[np.sqrt], lambda g, ans, x: g / (2 * ans), labels=("1 / (2 sqrt(x))",))
defvjp(U[np.cbrt], lambda g, ans, x: g / (3 * ans ** 2), labels=("1 / (3 cbrt(x)^2)",))
defvjp(U[np.square], lambda g, ans, x: g * (2 * x), labels=("2x",))
defvjp(U[np.reciprocal], lambda g, ans, x: -g * (ans ** 2), labels=("-1 / x^2",))
defvjp(U[np.sin], lambda g, ans, x: g * cos(x), labels=("cos(x)",))
defvjp(U[np.cos], lambda g, ans, x: -g * sin(x), labels=("-sin(x)",))
defvjp(U[np.tan], lambda g, ans, x: g * (1 + ans ** 2), labels=("1 + tan(x)^2",))
defvjp(U[np.arcsin], lambda g, ans, x: g / sqrt(1 - x ** 2), labels=("1 / sqrt(1 - x^2)",))
defvjp(U[np.arccos], lambda g, ans, x: -g / sqrt(1 - x ** 2), labels=("-1 / sqrt(1 - x^2)",))
defvjp(U[np.arctan], lambda g, ans, x: g / (1 + x ** 2), labels=("1 / (1 + x^2)",))
defvjp(U[np.sinh], lambda g, ans, x: g * cosh(x), labels=("cosh(x)",))
defvjp(U[np.cosh], lambda g, ans, x: g * sinh(x), labels=("sinh(x)",))
defvjp(U[np.tanh], lambda g, ans, x: tanh_backward(g, ans), labels=("1 - tanh(x)^2",))
defvjp(U[np.arcsinh], lambda g, ans, x: g / sqrt(x ** 2 + 1), labels=("1 / sqrt(x^2 + 1)",))
defvjp(U[np.arccosh], lambda g, ans, x: g / sqrt(x ** 2 - 1), labels=("1 / sqrt(x^2 - 1)",))
defvjp(U[np.arctanh], lambda g, ans, x: g / (1 - x ** 2), labels=("1 / (1 - x^2)",))
defvjp(U[np.deg2rad], lambda g, ans, x: g * (math.pi / 180), labels=("pi / 180",))
defvjp(U[np.radians], lambda g, ans, x: g * (math.pi / 180), labels=("pi / 180",))
defvjp(U[np.rad2deg], lambda g, ans, x: g * (180 / math.pi), labels=("180 / pi",))
defvjp(U[np.degrees], lambda g, ans, x: g * (180 / math.pi), labels=("180 / pi",))
defvjp(U[np.conjugate], lambda g, ans, x: g, labels=("1",))  # real values only
defvjp(ops.SIGMOID, lambda g, ans, x: sigmoid_backward(g, ans), labels=("s(x) (1 - s(x))",))
defvjp(ops.SOFTPLUS, lambda g, ans, x: g * sigmoid(x), labels=("sigmoid(x)",))
defvjp(ops.IDENTITY, lambda g, ans, x: g, labels=("1",))
defvjp(methods.COPY, lambda g, ans, x: g, labels=("1",))
def cast_back(g, ans, x, dtype):
    """A cast's gradient, in its input's dtype (None for an integer input); a real input's
    gradient from a complex cast's is refused (the rules after it take no conjugates)."""
    if kind(x.dtype) not in "fc":
        return None
    if kind(x.dtype) == "f" and kind(raw(g).dtype) == "c":
        raise through_complex("the cast to complex", x.dtype, raw(g).dtype)
    return ops.astype(g, x.dtype)


defvjp(ops.ASTYPE, cast_back, labels=("cast back",))

# -- elementwise, two arguments -----------------------------------------------------
defvjp(U[np.add], lambda g, ans, x, y: g, lambda g, ans, x, y: g, labels=("1", "1"))
defvjp(U[np.subtract], lambda g, ans, x, y: g, lambda g, ans, x, y: -g, labels=("1", "-1"))
defvjp(U[np.multiply], lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x, labels=("y", "x"))
defvjp(U[np.divide], lambda g, ans, x, y: g / y, lambda g, ans, x, y: divide_backward(g, ans, y),
       labels=("1 / y", "-x / y^2"))


def power_vjp_base(g, ans, x, y):
    if type(y) in (int, float):  # a number: one op (y == 2 costs no power)
        if y == 0:  # x ** 0 is 1, a constant: not 0 * x ** -1,
            return ops.zeros_like(x)  # NaN at 0 (where the fifth derivative of x ** 4 ends up)
        return power_backward(g, x, y)
    return g * (y * x ** (y - 1))


def power_vjp_exponent(g, ans, x, y):
    # as TensorFlow: log(x) is taken as 0 where x <= 0, so x = 0 gives 0, not NaN
    if type(x) in (bool, int, float):  # a Python number: stay one (an array would be NumPy's)
        return g * ans * (math.log(x) if x > 0 else 0.0)
    positive = x > 0
    return g * ans * where(positive, log(where(positive, x, 1)), 0)


defvjp(U[np.power], power_vjp_base, power_vjp_exponent, labels=("y x^(y-1)", "x^y log(x)"))
defvjp(U[np.arctan2], lambda g, ans, y, x: g * x / (x * x + y * y),
       lambda g, ans, y, x: -g * y / (x * x + y * y), labels=("x / (x^2+y^2)", "-y / (x^2+y^2)"))
defvjp(U[np.hypot], lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans,
       labels=("x / hypot", "y / hypot"))
# the gradient to x where x >= y, else to y, as TensorFlow's: so a NaN's goes to y
defvjp(U[np.maximum], lambda g, ans, x, y: where(x >= y, g, 0), lambda g, ans, x, y: where(x >= y, 0, g),
       labels=("[x >= y]", "[not x >= y]"))
defvjp(U[np.minimum], lambda g, ans, x, y: where(x <= y, g, 0), lambda g, ans, x, y: where(x <= y, 0, g),
       labels=("[x <= y]", "[not x <= y]"))
defvjp(U[np.logaddexp], lambda g, ans, x, y: g * exp(x - ans), lambda g, ans, x, y: g * exp(y - ans),
       labels=("exp(x - ans)", "exp(y - ans)"))
defvjp(U[np.logaddexp2], lambda g, ans, x, y: g * exp2(x - ans), lambda g, ans, x, y: g * exp2(y - ans),
       labels=("2^(x - ans)", "2^(y - ans)"))
# x - floor(x / y) * y and x - trunc(x / y) * y: a jump where x / y is a whole number, and
# there the one-sided slope, as TensorFlow, JAX and autograd give
defvjp(U[np.remainder], lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor(x / y),
       labels=("1", "-floor(x / y)"))
defvjp(U[np.fmod], lambda g, ans, x, y: g, lambda g, ans, x, y: -g * trunc(x / y),
       labels=("1", "-trunc(x / y)"))
defvjp(ops.WHERE, None, lambda g, ans, c, x, y: where(c, g, 0), lambda g, ans, c, x, y: where(c, 0, g),
       labels=(None, "[c]", "[not c]"))


def _inside(x, lo, hi):
    inside = True
    if lo is not None:
        inside = x >= lo
    if hi is not None:
        inside = inside & (x <= hi) if lo is not None else x <= hi
    return inside


def _to_lo(x, lo, hi):  # clip is min(max(x, lo), hi): lo is the result where x < lo <= hi
    return x < lo if hi is None else (x < lo) & (lo <= hi)


def _to_hi(x, lo, hi):  # and hi where max(x, lo) > hi (every element, where lo > hi)
    return x > hi if lo is None else (x > hi) | (lo > hi)


defvjp(ops.CLIP, lambda g, ans, x, lo, hi: where(_inside(x, lo, hi), g, 0),
       lambda g, ans, x, lo, hi: where(_to_lo(x, lo, hi), g, 0),
       lambda g, ans, x, lo, hi: where(_to_hi(x, lo, hi), g, 0),
       labels=("[lo <= x <= hi]", "[x < lo <= hi]", "[x > hi or lo > hi]"))


# -- reductions -------------------------------------------------------------------------
def unreduce(g, x, axis, keepdims):
    """``g`` of a reduction over ``axis``, broadcast back to ``x``'s shape."""
    shape = x.shape
    if not keepdims:
        g = reshape(g, ops.reduced_shape(shape, axis, True))
    return ops.broadcast_to(g, shape)


def _count(x, axis):
    return math.prod(x.shape[a] for a in ops.axes_of(axis, len(x.shape)))


def extremum_vjp(g, ans, x, axis=None, keepdims=False):
    # ties share the gradient equally, as TensorFlow's reduce_max; a NaN max equals no
    # element, and its slice's gradient is NaN (0 / 0), as TensorFlow's, PyTorch's and JAX's
    hit = ops.astype(x == unreduce(ans, x, axis, keepdims), g.dtype)
    ties = ops.sum(hit, axis=axis, keepdims=True)
    return hit * (unreduce(g, x, axis, keepdims) / ties)


def prod_vjp(g, ans, x, axis=None, keepdims=False):
    # The product of the other elements, without dividing by a zero. Where x has zeros,
    # it is still written as a function of them (z: their sum, which is 0), so that its
    # own derivative, the second derivative of prod, is right too: with one zero, the
    # others' products are z * p / x; with two, the zeros' are (z - x) * p.
    zero = x == 0
    nonzero = where(zero, 1, x)
    p = ops.prod(nonzero, axis=axis, keepdims=True)  # of the nonzero elements
    zeros = ops.sum(ops.astype(zero, x.dtype), axis=axis, keepdims=True)
    z = ops.sum(where(zero, x, 0), axis=axis, keepdims=True)
    others = where(zeros == 0, p / nonzero,
                   where(zeros == 1, where(zero, p, z * p / nonzero),
                         where(zero & (zeros == 2), (z - x) * p, 0)))
    return unreduce(g, x, axis, keepdims) * others


def _per_degree(x, axis, ddof, c):
    """``c`` over the degrees of freedom, ``n - ddof``; inf where there are none (NumPy's
    variance is then NaN or inf, and so is its gradient: not a ZeroDivisionError)."""
    dof = _count(x, axis) - ddof
    return c / dof if dof else math.inf


def var_vjp(g, ans, x, axis=None, ddof=0, keepdims=False):
    centred = x - ops.mean(x, axis=axis, keepdims=True)
    return unreduce(g, x, axis, keepdims) * centred * _per_degree(x, axis, ddof, 2)


def std_vjp(g, ans, x, axis=None, ddof=0, keepdims=False):
    centred = x - ops.mean(x, axis=axis, keepdims=True)
    return unreduce(g / ans, x, axis, keepdims) * centred * _per_degree(x, axis, ddof, 1)


def cumsum_vjp(g, ans, x, axis=None):
    if axis is None:
        return reshape(flip(cumsum(flip(g, 0), 0), 0), x.shape)
    return flip(cumsum(flip(g, axis), axis), axis)


def _shift(t, d, fill):
    """``t[..., k + d]`` at each k of the last axis, ``fill`` where that is off the end."""
    v = raw(t)
    edge = numpy_names(xp_of(v)).full(v.shape[:-1] + (abs(d),), fill, dtype=v.dtype)
    if d > 0:
        return ops.concatenate([getitem(t, (Ellipsis, slice(d, None))), edge], axis=-1)
    return ops.concatenate([edge, getitem(t, (Ellipsis, slice(None, d)))], axis=-1)


def cumprod_vjp(g, ans, x, axis=None):
    # Exact where x has zeros (it never divides by x): d ans_i / d x_k is the product of
    # x_j, j <= i, j != k, so gx_k = ans_(k-1) R_k with R_k = sum_(i >= k) g_i x_(k+1)...x_i,
    # the reverse scan R_k = g_k + x_(k+1) R_(k+1): each doubling step composes the maps
    # r -> r_k + a_k r over windows twice as long (log2(n) steps of ops, so it differentiates again)
    if axis is None or not x.shape:  # flattened (NumPy reads a 0-d x as 1-d with any axis)
        flat = [reshape(t, (-1,)) for t in (g, ans, x)]
        return reshape(cumprod_vjp(*flat, axis=0), x.shape)
    g, ans, x = (ops.moveaxis(t, axis, -1) for t in (g, ans, x))
    r, a, d = g, _shift(x, 1, 0), 1
    while d < x.shape[-1]:
        r, a, d = r + a * _shift(r, d, 0), a * _shift(a, d, 1), 2 * d
    return ops.moveaxis(_shift(ans, -1, 1) * r, -1, axis)


def logsumexp_vjp(g, ans, x, axis=None, keepdims=False):
    return unreduce(g, x, axis, keepdims) * exp(x - unreduce(ans, x, axis, keepdims))


defvjp(ops.SUM, lambda g, ans, x, axis=None, keepdims=False: sum_backward(g, x.shape, axis, keepdims),
       labels=("broadcast",))
defvjp(ops.MEAN, lambda g, ans, x, axis=None, keepdims=False:
       mean_backward(g, x.shape, axis, keepdims, _count(x, axis)), labels=("1 / n",))
defvjp(ops.PROD, prod_vjp, labels=("product of the others",))
defvjp(ops.MAX, extremum_vjp, labels=("[x == max] / ties",))
defvjp(ops.MIN, extremum_vjp, labels=("[x == min] / ties",))
defvjp(ops.VAR, var_vjp, labels=("2 (x - mean) / (n - ddof)",))
defvjp(ops.STD, std_vjp, labels=("(x - mean) / ((n - ddof) std)",))
defvjp(ops.CUMSUM, cumsum_vjp, labels=("reverse cumsum",))
defvjp(ops.CUMPROD, cumprod_vjp, labels=("exclusive cumprod * reverse scan",))
defvjp(ops.LOGSUMEXP, logsumexp_vjp, labels=("softmax(x)",))


# -- backward primitives (fused.py): the rules above, as ops, and their own rules ----------
def power_backward_vjp_x(u, r, g, x, y, c=1):  # d/dx of c g y x^(y-1): c g y (y-1) x^(y-2)
    if y == 1:  # c g x^0 has no x in it
        return ops.zeros_like(x)
    return power_backward(g, x, y - 1, c * y) * u


defvjp(fused.TANH_BACKWARD, lambda u, r, g, ans: tanh_backward(u, ans),
       lambda u, r, g, ans: u * g * (-2 * ans), labels=("1 - ans^2", "-2 upstream ans"))
defvjp(fused.SIGMOID_BACKWARD, lambda u, r, g, ans: sigmoid_backward(u, ans),
       lambda u, r, g, ans: u * g * (1 - 2 * ans), labels=("ans (1 - ans)", "upstream (1 - 2 ans)"))
defvjp(fused.POWER_BACKWARD, lambda u, r, g, x, y, c=1: power_backward(u, x, y, c), power_backward_vjp_x,
       labels=("c y x^(y-1)", "upstream c y (y-1) x^(y-2)"))
defvjp(fused.DIVIDE_BACKWARD, lambda u, r, g, ans, y: divide_backward(u, ans, y),
       lambda u, r, g, ans, y: divide_backward(u, g, y), lambda u, r, g, ans, y: divide_backward(u, r, y),
       labels=("-ans / y", "-upstream / y", "upstream ans / y^2"))
defvjp(fused.SUM_BACKWARD, lambda u, r, g, shape, axis, keepdims: ops.sum(u, axis=axis, keepdims=keepdims),
       labels=("sum",))
defvjp(fused.MEAN_BACKWARD, lambda u, r, g, shape, axis, keepdims, n: ops.sum(u, axis=axis, keepdims=keepdims) / n,
       labels=("sum / n",))


# -- shape ------------------------------------------------------------------------------
def _inverse(axes, ndim):
    axes = range(ndim - 1, -1, -1) if axes is None else [a % ndim for a in axes]
    inv = [0] * ndim
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


def concatenate_vjp(i, g, ans, *xs, axis=0):
    start = builtins.sum(x.shape[axis] for x in xs[:i])
    index = (slice(None),) * (axis % len(ans.shape)) + (slice(start, start + xs[i].shape[axis]), ...)
    return getitem(g, index)


def stack_vjp(i, g, ans, *xs, axis=0):
    return getitem(g, (slice(None),) * (axis % len(ans.shape)) + (i, ...))


defvjp(ops.RESHAPE, lambda g, ans, x, shape: reshape(g, x.shape), labels=("reshape back",))
defvjp(ops.SQUEEZE, lambda g, ans, x, axis=None: reshape(g, x.shape), labels=("reshape back",))
defvjp(ops.EXPAND_DIMS, lambda g, ans, x, axis: reshape(g, x.shape), labels=("reshape back",))
defvjp(ops.TRANSPOSE, lambda g, ans, x, axes=None: transpose(g, _inverse(axes, len(x.shape))),
       labels=("transpose back",))
defvjp(ops.BROADCAST_TO, lambda g, ans, x, shape: g, labels=("sum over broadcast axes",))
defvjp(ops.FLIP, lambda g, ans, x, axis=None: flip(g, axis), labels=("flip back",))
defvjp(ops.CONCATENATE, variadic(concatenate_vjp), labels=("slice",))
defvjp(ops.STACK, variadic(stack_vjp), labels=("take",))
defvjp(ops.GETITEM, lambda g, ans, x, index: scatter_add(g, x.shape, index),
       labels=("scatter-add into zeros",))
defvjp(ops.SCATTER_ADD, lambda g, ans, x, shape, index, accumulate: getitem(g, index),
       labels=("gather",))


# -- linear algebra -----------------------------------------------------------------
def matmul_vjp_a(g, ans, a, b):
    if len(a.shape) == 1 and len(b.shape) == 1:  # a dot product: ans is a scalar
        return g * b
    if len(b.shape) == 1:
        g = ops.expand_dims(g, -1)
        b = reshape(b, (1, b.shape[0]))
    else:
        if len(a.shape) == 1:
            g = ops.expand_dims(g, -2)
        b = swapaxes(b, -1, -2)
    ga = matmul(g, b)
    return ops.squeeze(ga, -2) if len(a.shape) == 1 else ga


def matmul_vjp_b(g, ans, a, b):
    if len(a.shape) == 1 and len(b.shape) == 1:
        return g * a
    if len(a.shape) == 1:
        g = ops.expand_dims(g, -2)
        a = reshape(a, (a.shape[0], 1))
    else:
        if len(b.shape) == 1:
            g = ops.expand_dims(g, -1)
        a = swapaxes(a, -1, -2)
    gb = matmul(a, g)
    return ops.squeeze(gb, -1) if len(b.shape) == 1 else gb


defvjp(ops.MATMUL, matmul_vjp_a, matmul_vjp_b, labels=("upstream @ {1}.T", "{0}.T @ upstream"))
defvjp(ops.OUTER, lambda g, ans, a, b: reshape(matmul(g, reshape(b, (-1,))), a.shape),
       lambda g, ans, a, b: reshape(matmul(reshape(a, (-1,)), g), b.shape),
       labels=("upstream @ {1}", "{0} @ upstream"))
