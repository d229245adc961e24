"""PyTorch 2.13.0's bit shifts, integer powers and ``renorm``.

``<<``, ``>>`` (and ``<<=``, ``>>=``), ``bitwise_left_shift``, ``bitwise_right_shift``: on
integer (and bool) tensors, refused on floats as PyTorch refuses them; a shift by a negative
count or by the width of the type or more gives 0 (a right shift of a negative value: -1),
as PyTorch's, where NumPy's is left to the machine.

``**`` of integers: a negative number as exponent is refused in PyTorch's words (a
RuntimeError, NumPy's is a ValueError); negative entries of an integer tensor exponent give
PyTorch's integer answers (1 and -1 keep their magnitude, any other base 0).

``renorm(p, dim, maxnorm)``: each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled
to norm ``maxnorm`` (PyTorch's ``maxnorm / (norm + 1e-7)``), a max-norm weight constraint;
made of the engine's ops, so the gradient is the scale's too, as PyTorch's.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import ops
from ..core.primitive import Primitive, binary, defvjp
from ..core.tensor import Tensor as CoreTensor
from .graph import as_tensor_of
from .subgradients import vector_norm
from .values import axis_of, default_float, named, type_name


def _shift(a, b, left):
    """``a << b`` (``left``) or ``a >> b``, one of them a tensor, with PyTorch's dtype and
    its answer for counts out of range."""
    like = a if isinstance(a, CoreTensor) else b
    values = [x.value if isinstance(x, CoreTensor) else x for x in (a, b)]
    floats = [v.dtype for v in values if getattr(v, "dtype", np.dtype(int)).kind == "f"]
    if floats or any(isinstance(v, float) for v in values):  # (a number: the default float)
        raise NotImplementedError(f'"{"lshift" if left else "rshift"}_cpu" not implemented for '
                                  f"'{type_name(floats[0] if floats else default_float())}'")
    dtype = np.result_type(*values)
    if dtype == np.bool_:
        dtype = np.dtype(np.int64)
    x, count = (np.asarray(v).astype(dtype) for v in values)
    bits = dtype.itemsize * 8
    out_of_range = (count < 0) | (count >= bits)
    count = np.clip(count, 0, bits - 1)
    if left:
        out = np.where(out_of_range, 0, np.left_shift(x, count))
    else:
        out = np.where(out_of_range, np.where(x < 0, -1, 0), np.right_shift(x, count))
    return as_tensor_of(np.asarray(out, dtype), like)


def bitwise_left_shift(self, other):
    return _shift(self, other, True)


def bitwise_right_shift(self, other):
    return _shift(self, other, False)


def bitwise_left_shift_(self, other):
    return self.in_place(_shift(self, other, True))


def bitwise_right_shift_(self, other):
    return self.in_place(_shift(self, other, False))


def power(self, exponent):
    """``self ** exponent``: the engine's op itself, as the operator it replaces (no frame
    more), with PyTorch's answers where integers meet negative integer exponents."""
    try:  # a number exponent (the commonest) needs no rule for the exponent: the engine's op
        return binary(POWER if isinstance(exponent, CoreTensor) else NUMBER_POWER, self, exponent)
    except ValueError as error:
        return _integer_power(self, exponent, error)


def reverse_power(self, other):
    try:
        return binary(POWER, other, self)
    except ValueError as error:
        return _integer_power(other, self, error)


def _integer_power(base, exponent, error):
    """PyTorch's RuntimeError for an integer tensor to a negative integer's power, or its
    integer answers for a tensor of exponents (1 of 1, +-1 of -1, 0 of the others)."""
    if "negative integer powers" not in str(error) or not isinstance(exponent, CoreTensor):
        raise RuntimeError(str(error)) from None
    b, e = (x.value if isinstance(x, CoreTensor) else np.asarray(x) for x in (base, exponent))
    dtype = np.result_type(b, e)
    signed = np.where(e % 2 == 0, 1, -1)
    out = np.where(e >= 0, b ** np.maximum(e, 0), np.where(b == 1, 1, np.where(b == -1, signed, 0)))
    return as_tensor_of(out.astype(dtype), exponent)


def _exponent_vjp(g, ans, x, y):
    """PyTorch's gradient for the exponent: ``x^y log(x)``, 0 where ``x`` is 0 and ``y >= 0``,
    NaN for a negative ``x`` (the engine's, TensorFlow's, takes ``log(x)`` as 0 there)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if type(x) in (bool, int, float):  # a Python number: stay one
            if x == 0:  # PyTorch's: 0 where y >= 0, else inf * log(0)
                return g * ops.where(y >= 0, 0.0, ans * -math.inf)
            return g * ans * (math.log(x) if x > 0 else math.nan)
        return g * ops.where((x == 0) & (y >= 0), 0, ans * ops.log(x))


def _base_vjp(g, ans, x, y):
    """PyTorch's gradient for the base: ``y x^(y-1)``, 0 where ``y`` is 0 (``0 * 0^-1`` at
    ``x = 0`` would be NaN). The upstream stays out of the masked product, so that forward
    mode (which differentiates this rule in ``g``) gets PyTorch's 0 there too, not ``0 * inf``.
    ``y`` is a tensor: a number exponent takes the engine's op (``NUMBER_POWER``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        zero = y == 0
        return ops.where(zero, 0, g * ops.where(zero, 0, y * x ** (y - 1)))


NUMBER_POWER = ops.power.prim  # a tensor to a number's power: the engine's op and rule
POWER = Primitive("power", op=ops.power.prim.op, elementwise=True)  # a tensor exponent: PyTorch's rules
defvjp(POWER, _base_vjp, _exponent_vjp, labels=("y x^(y-1)", "x^y log(x), PyTorch's"))


def renorm(self, p, dim, maxnorm):
    """The slices along ``dim`` with a p-norm above ``maxnorm`` scaled down to it."""
    if self.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {self.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = axis_of(dim, self.ndim)
    if self.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {type_name(self.dtype)}")
    norm = vector_norm(self, p, tuple(k for k in range(self.ndim) if k != d), True)
    scale = ops.where(norm > maxnorm, maxnorm / (norm + 1e-7), np.ones((), self.value.dtype))
    return named(self * scale, "RenormBackward0")


METHODS = {f.__name__: f for f in (bitwise_left_shift, bitwise_right_shift, bitwise_left_shift_,
                                   bitwise_right_shift_, renorm)}
METHODS.update(__lshift__=bitwise_left_shift, __rshift__=bitwise_right_shift,
               __rlshift__=lambda self, other: _shift(other, self, True),
               __rrshift__=lambda self, other: _shift(other, self, False),
               __ilshift__=bitwise_left_shift_, __irshift__=bitwise_right_shift_,
               __pow__=power, __rpow__=reverse_power)
TENSOR_ONLY = ("bitwise_left_shift_", "bitwise_right_shift_", "__lshift__", "__rshift__", "__rlshift__",
               "__rrshift__", "__ilshift__", "__irshift__",
               "__pow__", "__rpow__")
FUNCTIONS = {}
