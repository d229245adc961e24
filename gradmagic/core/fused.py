"""Backward primitives: the closed forms of the hot rules, each one op with its own rules.

Written with ops, tanh's rule ``g * (1 - tanh(x)^2)`` is three ops, and a nested pass
records all three and differentiates each again. As PyTorch's ``tanh_backward``, it is one
op here, ``tanh_backward(g, ans)``: its forward does the arithmetic on one temporary of its
own, and its rules (in ``vjps.py``, with every other rule) are the closed form's
derivatives, themselves made of these ops, so a second-order pass records a few ops, not
dozens, and a third-order one works the same way.

Where ``g`` is the seed of a scalar target (``backward.known_ones``: ones, known without
looking), ``scaled`` skips the product with it.
"""

import numpy as np

from .._backend import kind
from .backward import known_ones, one
from .ops import reduced_shape
from .primitive import Primitive, apply, binary, unary


BIG = 1 << 14  # elements: from here on, writing into a temporary beats making a new one
# (below it, an in-place call's own cost, keywords parsed and all, is the larger)


def scaled(g, local):
    """``g * local``, for a ``local`` made by the caller (a temporary nobody else holds): for
    a large NumPy ``local``, ``local`` itself where ``g`` is known to be ones of its shape and
    dtype, else the product written into ``local`` when it has the result's shape and dtype."""
    if (type(local) is np.ndarray and local.size >= BIG and type(g) is np.ndarray
            and g.dtype == local.dtype and (g.shape == local.shape or not g.shape)):
        if known_ones(g):
            return local
        local *= g
        return local
    return g * local


def _tanh_backward(xp, g, ans):  # g (1 - ans^2)
    local = ans * ans
    if type(local) is np.ndarray and local.size >= BIG:  # in place (see BIG)
        return scaled(g, np.subtract(1, local, out=local))
    return g * (1 - local)


def _sigmoid_backward(xp, g, ans):  # g ans (1 - ans)
    local = 1 - ans
    local *= ans
    return scaled(g, local)


def _power_backward(xp, g, x, y, c=1):  # c g y x^(y-1), for numbers y and c
    if y == 0:  # x ** 0 is 1, a constant: no x in it (not 0 * x ** -1, NaN at 0)
        return xp.zeros_like(x)
    p, k = y - 1, c * y
    if p == 1:
        local = x * k
    else:  # small whole powers by multiplying, as ops.power does (NumPy's pow is far slower)
        local = x * x if p in (2, 3, 4) else x ** p
        if p == 3:
            local *= x
        elif p == 4:
            local *= local
        if getattr(local, "dtype", None) is not None and kind(local.dtype) in "fc":
            local *= k  # a Python number: the dtype stays
        else:  # an integer x: the product promotes
            local = local * k
    return scaled(g, local)


def _divide_backward(xp, g, ans, y):  # -g ans / y: the gradient of ans = x / y for y
    local = ans / y
    local *= -1
    return scaled(g, local)


def spread(g, shape):
    """A NumPy 0-d ``g`` as a read-only array of ``shape``: a view with no strides, made at
    C speed (``np.broadcast_to`` is Python), whose base is ``g`` (so ``known_ones`` sees
    through it)."""
    view = np.ndarray(shape, g.dtype, g, 0, (0,) * len(shape))
    if view.flags.writeable:
        view.flags.writeable = False
    return view


def _sum_backward(xp, g, shape, axis, keepdims):  # g broadcast back over the summed axes
    if isinstance(g, np.generic):  # a total's gradient as a NumPy scalar: a 0-d array, and
        g = one(g.dtype) if g == 1 else np.array(g)  # a one is the seed (known to be ones)
    if type(g) is np.ndarray and not g.shape:  # a total's gradient (a scalar target's seed)
        return spread(g, shape)
    if g.shape and not keepdims:  # (a 0-d g broadcasts as it is)
        g = xp.reshape(g, reduced_shape(shape, axis, True))
    return xp.broadcast_to(g, shape)


def _mean_backward(xp, g, shape, axis, keepdims, n):
    return _sum_backward(xp, g / n, shape, axis, keepdims)


TANH_BACKWARD = Primitive("tanh_backward", _tanh_backward, elementwise=True)
SIGMOID_BACKWARD = Primitive("sigmoid_backward", _sigmoid_backward, elementwise=True)
POWER_BACKWARD = Primitive("power_backward", _power_backward, elementwise=True)
DIVIDE_BACKWARD = Primitive("divide_backward", _divide_backward, elementwise=True)
SUM_BACKWARD = Primitive("sum_backward", _sum_backward)
MEAN_BACKWARD = Primitive("mean_backward", _mean_backward)


def tanh_backward(g, ans):
    """``g * (1 - ans ** 2)``: the gradient of ``ans = tanh(x)``, as one op."""
    return binary(TANH_BACKWARD, g, ans)


def sigmoid_backward(g, ans):
    """``g * ans * (1 - ans)``: the gradient of ``ans = sigmoid(x)``, as one op."""
    return binary(SIGMOID_BACKWARD, g, ans)


def power_backward(g, x, y, c=1):
    """``c * g * y * x ** (y - 1)``, for numbers ``y`` and ``c``: the gradient of ``x ** y``
    for ``x`` (``c``, a constant factor, spares the rules of higher orders a product)."""
    return binary(POWER_BACKWARD, g, x, {"y": y} if c == 1 else {"y": y, "c": c})


def divide_backward(g, ans, y):
    """``-g * ans / y``: the gradient of ``ans = x / y`` for ``y``, as one op."""
    return apply(DIVIDE_BACKWARD, g, ans, y)


def sum_backward(g, shape, axis, keepdims):
    """The gradient of a sum over ``axis`` of a value of ``shape``: ``g`` broadcast back."""
    return unary(SUM_BACKWARD, g, {"shape": shape, "axis": axis, "keepdims": keepdims})


def mean_backward(g, shape, axis, keepdims, n):
    """The gradient of a mean over ``axis`` (``n`` elements each): ``g / n`` broadcast back."""
    return unary(MEAN_BACKWARD, g, {"shape": shape, "axis": axis, "keepdims": keepdims, "n": n})
