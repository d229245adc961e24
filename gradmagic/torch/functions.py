"""More of PyTorch's math, as ``torch.<name>(input, ...)`` and ``Tensor.<name>(...)``: the
inverse and hyperbolic trigonometric functions, ``atan2``, ``hypot``, ``remainder``,
``lerp``, ``addcmul``, the tests for NaN and infinity, the diagonal, tiling and cumulative
product functions, ``cross``, ``slogdet``, ``meshgrid``. Each is the NumPy function of the
same meaning on the tensor, so the engine's rule for it gives the gradient; what differs
from NumPy is PyTorch's: its names, ``dim`` for ``axis``, an integer tensor computed in the
default float dtype, ``atan2(input, other)`` meaning arctan(input / other), ``meshgrid``'s
"ij" indexing.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np

from ..core import ops, special
from ..core.primitive import Primitive, apply, defvjp
from ..tracebacks import user_stacklevel
from .graph import Tensor, as_tensor_of
from .values import default_float, descending_order, dims, named, overload, summand

SLOGDET = collections.namedtuple("slogdet", ["sign", "logabsdet"])  # torch.return_types.slogdet


def _floating(t):
    """``t``, an integer or boolean tensor in the default float dtype, as PyTorch computes
    the transcendental functions."""
    return t if t.dtype.kind in "fc" else t.type(default_float())


def _unary(name, fn):
    label = LABELS.get(name)

    def method(self):
        out = fn(_floating(self))
        return named(out, label) if label else out
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``Tensor.{name}()``, elementwise."
    return method


def _test(name, fn):
    def method(self):
        return as_tensor_of(fn(self.value), self)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``Tensor.{name}()``: a bool tensor, elementwise (no gradient)."
    return method


UNARY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
         "log10": np.log10, "log2": np.log2, "exp2": np.exp2, "deg2rad": np.deg2rad,
         "rad2deg": np.rad2deg, "sinc": np.sinc, "rsqrt": lambda x: 1 / np.sqrt(x),
         "frac": lambda x: x - np.trunc(x), "erfc": special.erfc,
         "lgamma": special.gammaln, "digamma": special.digamma}
LABELS = {"rsqrt": "RsqrtBackward0", "frac": "FracBackward0", "digamma": "DigammaBackward0"}
TESTS = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
         "logical_not": np.logical_not}


def _reciprocal_norm(y, x):
    """``1 / (x^2 + y^2)``, 0 where both are 0 (PyTorch's atan2 rule masks the infinity)."""
    d = x * x + y * y
    return ops.where(d == 0, 0, 1 / ops.where(d == 0, 1, d))


ATAN2 = Primitive("arctan2", lambda xp, y, x: xp.arctan2(y, x))
defvjp(ATAN2, lambda g, ans, y, x: g * x * _reciprocal_norm(y, x),
       lambda g, ans, y, x: -g * y * _reciprocal_norm(y, x), labels=("x / (x² + y²)", "-y / (x² + y²)"))


def atan2(self, other):
    """``atan2(input, other)``: the angle of (other, input), arctan(input / other); its
    gradient 0 at (0, 0), as PyTorch's (NumPy's rule, TensorFlow's, is NaN there)."""
    y = _floating(self)
    return apply(ATAN2, y, other if isinstance(other, Tensor) else as_tensor_of(np.asarray(other, y.dtype), y))


def hypot(self, other):
    return np.hypot(self, other)


def logaddexp(self, other):
    return np.logaddexp(_floating(self), other)


def remainder(self, other):
    """Python's ``%``: the sign of ``other`` (``fmod`` has ``input``'s)."""
    return named(np.remainder(self, other), overload("Remainder", other))


def fmod(self, other):
    return named(np.fmod(self, other), overload("Fmod", other))


def logical_and(self, other):
    return as_tensor_of(np.logical_and(self.value, getattr(other, "value", other)), self)


def logical_or(self, other):
    return as_tensor_of(np.logical_or(self.value, getattr(other, "value", other)), self)


def logical_xor(self, other):
    return as_tensor_of(np.logical_xor(self.value, getattr(other, "value", other)), self)


def _xlogy(xp, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log(y))


XLOGY = Primitive("xlogy", _xlogy)
def _xlogy_vjp_x(g, ans, x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return g * ops.log(ops.where((x == 0) & (y <= 0), 1, y))


defvjp(XLOGY, _xlogy_vjp_x, lambda g, ans, x, y: g * x / y,
       labels=("log(y), 0 where x is 0 and y is not positive", "x / y"))


def xlogy(self, other):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN); the
    gradients PyTorch's: ``log(other)`` (0 where ``input`` is 0 and ``other`` is not
    positive) and ``input / other`` (NaN where both are 0)."""
    x = _floating(self)
    y = _floating(other) if isinstance(other, Tensor) else as_tensor_of(np.asarray(other, x.dtype), x)
    return named(apply(XLOGY, x, y), "XlogyBackward0" if isinstance(other, Tensor) else "XlogyBackward2")


def lerp(self, end, weight):
    """``input + weight * (end - input)``."""
    return named(self + weight * (end - self), overload("Lerp", weight))


def addcmul(self, tensor1, tensor2, *, value=1):
    return named(self + value * tensor1 * tensor2, "AddcmulBackward0")


def addcdiv(self, tensor1, tensor2, *, value=1):
    return named(self + value * tensor1 / tensor2, "AddcdivBackward0")


def broadcast_to(self, size):
    return ops.broadcast_to(self, tuple(size))


def tile(self, dims):
    return np.tile(self, tuple(dims))


def diag(self, diagonal=0):
    """A 1-D tensor's diagonal matrix, or a 2-D tensor's diagonal, as NumPy's ``diag``."""
    return np.diag(self, diagonal)


def diagonal(self, offset=0, dim1=0, dim2=1):
    return np.diagonal(self, offset, dim1, dim2)


def trace(self):
    return named(np.trace(self), "TraceBackward0")


def cumprod(self, dim, *, dtype=None):
    return np.cumprod(summand(self, dtype), axis=dim)


def argsort(self, dim=-1, descending=False, stable=False):
    index = (descending_order(self.value, dim) if descending else
             np.argsort(self.value, axis=dim, kind="stable"))
    return as_tensor_of(index, self).type(np.int64)


def swapaxes(self, axis0, axis1):
    return self.transpose(axis0, axis1)


def narrow(self, dim, start, length):
    index = [slice(None)] * self.ndim
    index[dim] = slice(start, start + length)
    return self[tuple(index)]


def select(self, dim, index):
    at = [slice(None)] * self.ndim
    at[dim] = index
    return self[tuple(at)]


def inner(self, other):
    return np.inner(self, other)


def kron(self, other):
    return np.kron(self, other)


def nansum(self, dim=None, keepdim=False, *, dtype=None):
    return np.nansum(summand(self, dtype), axis=dims(dim), keepdims=keepdim)


def nanmean(self, dim=None, keepdim=False, *, dtype=None):
    return np.nanmean(self if dtype is None else self.type(dtype), axis=dims(dim), keepdims=keepdim)


NAN_TO_NUM = Primitive("nan_to_num", lambda xp, x, nan=0.0, posinf=None, neginf=None:
                       xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf), elementwise=True)
defvjp(NAN_TO_NUM, lambda g, ans, x, **params: g * np.isfinite(getattr(x, "value", x)),
       labels=("[x finite]",))


def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
    """NaN and the infinities replaced; the gradient PyTorch's, ``grad * isfinite(input)``
    (a product, so that a tangent that is infinite or NaN where ``input`` is not finite
    stays NaN, as PyTorch's forward mode gives)."""
    if self.dtype.kind != "f":
        return np.nan_to_num(self, nan=nan, posinf=posinf, neginf=neginf)
    return named(apply(NAN_TO_NUM, self, nan=nan, posinf=posinf, neginf=neginf), "NanToNumBackward0")


def diff(self, n=1, dim=-1, prepend=None, append=None):
    return np.diff(self, n, dim, prepend=prepend, append=append)


def masked_select(self, mask):
    """The elements where ``mask`` (broadcast to this tensor's shape) is True, as a 1-D tensor."""
    mask = np.broadcast_to(getattr(mask, "value", mask), self.shape)
    return self[mask]


def repeat_interleave(self, repeats, dim=None):
    """Each element repeated ``repeats`` times (along ``dim``; flattened first without one)."""
    source = self.reshape(-1) if dim is None else self
    return np.repeat(source, getattr(repeats, "value", repeats), axis=0 if dim is None else dim)


def cross(self, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (the first axis of size 3 without one,
    as PyTorch's ``torch.cross`` still finds it)."""
    if dim is None:
        dim = next((k for k, n in enumerate(self.shape) if n == 3), None)
    if dim is None or self.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{self.shape[dim] if dim is not None else None} and "
                           f"{other.shape[dim] if dim is not None else None}")
    return np.cross(self, other, axis=dim)


def logdet(self):
    """log det: NaN where the determinant is negative, as PyTorch's."""
    sign, logabs = np.linalg.slogdet(self)
    return logabs + np.log(as_tensor_of(sign.value, self) if hasattr(sign, "value") else sign)


def polygamma(self, n):
    """``Tensor.polygamma(n)``: the ``n``-th derivative of ``digamma``."""
    return named(special.polygamma(n, _floating(self)), "PolygammaBackward0")


def polygamma_of(n, input):
    """``torch.polygamma(n, input)``: the order first, as PyTorch has it."""
    return polygamma(input, n)


def slogdet(self):
    sign, logabs = np.linalg.slogdet(self)
    return SLOGDET(as_tensor_of(getattr(sign, "value", sign), self), logabs)


METHODS = {**{name: _unary(name, fn) for name, fn in UNARY.items()},
           **{name: _test(name, fn) for name, fn in TESTS.items()},
           **{f.__name__: f for f in (atan2, hypot, logaddexp, remainder, fmod, logical_and, logical_or,
                                      logical_xor, xlogy,
                                      lerp, addcmul, addcdiv, broadcast_to, tile, diag, diagonal,
                                      trace, cumprod, argsort, swapaxes, narrow, select, inner,
                                      kron, nansum, nanmean, nan_to_num, diff, masked_select,
                                      repeat_interleave, cross, logdet, slogdet, polygamma)}}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh", "arctan2": "atan2", "true_divide": "div",
           "swapdims": "swapaxes", "multiply": "mul", "subtract": "sub", "divide": "div",
           "negative": "neg", "absolute": "abs", "greater": "gt", "greater_equal": "ge",
           "less": "lt", "less_equal": "le", "not_equal": "ne", "fix": "trunc",
           "moveaxis": "movedim", "ger": "outer"}


def meshgrid(*tensors, indexing=None):
    """``torch.meshgrid``: with ``indexing="ij"`` (the default, with PyTorch's warning that
    it must be given) grid ``k`` varies along axis ``k``; ``"xy"`` swaps the first two."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=user_stacklevel())
        indexing = "ij"
    shape = [t.numel() for t in tensors]
    if indexing == "xy" and len(shape) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for k, t in enumerate(tensors):
        axis = (1 - k if k < 2 else k) if indexing == "xy" and len(shape) > 1 else k
        ones = [1] * len(shape)
        ones[axis] = -1
        grids.append(ops.broadcast_to(t.reshape(tuple(ones)), tuple(shape)))
    return tuple(grids)


def install(cls):
    """Attach ``METHODS`` and their ``ALIASES`` to ``cls`` (``torch.Tensor``)."""
    for name, f in METHODS.items():
        setattr(cls, name, f)
    for alias, name in ALIASES.items():
        setattr(cls, alias, getattr(cls, name))
