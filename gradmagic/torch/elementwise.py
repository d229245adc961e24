"""More of PyTorch's elementwise functions on gradmagic.torch: ``erfinv``, ``logit``,
``fmax``/``fmin``, ``clamp_min``/``clamp_max``, ``copysign``, ``heaviside``,
``float_power``, ``logaddexp2``, ``sgn``, ``positive``, ``signbit``, ``nextafter``,
``ldexp``, ``frexp``; and the tensor queries and constructors ``new_tensor``,
``new_empty``, ``is_complex``, ``is_signed``, ``element_size``, ``is_nonzero``,
``is_same_size``, ``get_device``, ``conj``, ``resolve_conj``, ``resolve_neg``
(``PROPERTIES``: ``itemsize`` and ``nbytes``, which PyTorch has as properties).
``METHODS`` holds ``order.py``'s too (``kthvalue``, ``quantile``, ``unique`` ...).

Each is made of the engine's ops, so their rules give its gradient, with PyTorch's
conventions: ``fmax``/``fmin`` give it all to ``input`` on a tie (and to the one that is not
NaN), ``copysign`` none to ``other`` (a zero gradient, as PyTorch's), ``nextafter`` ``input``'s
own. ``erfinv`` is the engine's (``core.special``); ``logit`` is an op of its own here
(``LOGIT``) whose rule is written with the engine's ops, so both differentiate to any order. What PyTorch records but
does not differentiate (``heaviside``) gets a gradient that raises PyTorch's error
(``order.refusing``).

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

import collections
import warnings

import numpy as np

from ..core import ops, special
from ..core.primitive import Primitive, apply, defvjp
from ..core.tensor import Tensor as CoreTensor
from ..tracebacks import user_stacklevel
from .graph import as_tensor_of
from .order import FUNCTIONS as ORDER_FUNCTIONS, METHODS as ORDER, implemented_for_floats, refusing
from .tensor import make
from .values import default_float, float_result, named

FREXP = collections.namedtuple("frexp", ["mantissa", "exponent"])  # torch.return_types.frexp


def floating(t):
    """``t``, an integer or boolean tensor in the default float dtype, as PyTorch computes
    its float functions of one."""
    return t if t.dtype.kind in "fc" else t.type(default_float())


def raw(x):
    """The array of a tensor, or a number as an array."""
    return x.value if isinstance(x, CoreTensor) else np.asarray(x)


def tensor_other(fn, other, position=2):
    """``other``, which PyTorch takes only as a tensor: else its TypeError."""
    if not isinstance(other, CoreTensor):
        raise TypeError(f"{fn}(): argument 'other' (position {position}) must be Tensor, not "
                        f"{type(other).__name__}")
    return other


# -- erfinv and logit: ops of their own --------------------------------------------------
def _logit(xp, x, eps=None):
    z = x if eps is None else xp.clip(x, eps, 1 - eps)
    return xp.log(z / (1 - z))


def _logit_vjp(g, ans, x, eps=None):
    outside = (x < 0) | (x > 1) if eps is None else (x < eps) | (x > 1 - eps)
    return ops.where(outside, np.nan if eps is None else 0.0, g / (x * (1 - x)))


LOGIT = Primitive("logit", _logit, elementwise=True)
defvjp(LOGIT, _logit_vjp, labels=("1 / (x (1 - x))",))


def erfinv(self):
    """The inverse of ``erf``; derivative ``sqrt(pi) / 2 exp(erfinv(x)^2)``, to any order."""
    return special.erfinv(floating(self))


def logit(self, eps=None):
    """``log(z / (1 - z))`` with ``z`` the input clamped to ``[eps, 1 - eps]`` (not clamped
    without ``eps``); gradient ``1 / (x (1 - x))``, 0 outside the clamp (NaN outside [0, 1]
    without ``eps``), as PyTorch's."""
    return apply(LOGIT, floating(self), eps=None if eps is None else float(eps))


# -- two-argument functions --------------------------------------------------------------
def fmax(self, other):
    """The larger of the two, the other where one is NaN (NaN where both are); the gradient
    to ``input`` where it is the result (ties included), else to ``other`` (the engine's
    ``fmax``, whose convention is PyTorch's)."""
    return named(special.fmax(self, tensor_other("fmax", other)), "FmaxBackward0")


def fmin(self, other):
    return named(special.fmin(self, tensor_other("fmin", other)), "FminBackward0")


def clamp_min(self, min):  # noqa: A002  (PyTorch's name)
    """``clamp(min=min)``, its gradient clamp's (to ``input`` on a tie)."""
    label = "ClampMinBackward1" if isinstance(min, CoreTensor) else "ClampMinBackward0"
    return named(self.clamp(min=min), label)


def clamp_max(self, max):  # noqa: A002
    label = "ClampMaxBackward1" if isinstance(max, CoreTensor) else "ClampMaxBackward0"
    return named(self.clamp(max=max), label)


def copysign(self, other):
    """``|input|`` with the sign of ``other`` (a float); gradient ``+-1`` to ``input`` (0
    where it is 0, as PyTorch's) and 0 to ``other``."""
    dtype = float_result([self, other])
    x = self if self.dtype == dtype else self.type(dtype)
    if isinstance(other, CoreTensor):  # (the engine's copysign: a zero gradient to other)
        o = other if other.dtype == dtype else other.type(dtype)
        return named(special.copysign(x, o), "CopysignBackward0")
    return named(special.copysign(x, raw(other).astype(dtype)), "CopysignBackward1")


def heaviside(self, values):
    """0 below 0, 1 above (and at NaN), ``values`` at 0; PyTorch differentiates it nowhere."""
    if not isinstance(values, CoreTensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not "
                        f"{type(values).__name__}")
    if values.dtype != self.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    x = self.value
    value = np.where(x == 0, values.value, x > 0).astype(self.dtype)
    return refusing(np.asarray(value), [self, values],
                    (RuntimeError, "derivative for aten::heaviside is not implemented"))


def float_power(self, exponent):
    """``input ** exponent`` computed in float64 (the result's dtype, whatever the inputs')."""
    base = self.type(np.float64) if self.dtype != np.float64 else self
    if isinstance(exponent, CoreTensor):
        power = exponent if exponent.dtype == np.float64 else exponent.type(np.float64)
        return named(base ** power, "PowBackward1")
    return named(base ** float(exponent), "PowBackward0")


def logaddexp2(self, other):
    """``log2(2^input + 2^other)``, computed without overflow."""
    other = tensor_other("logaddexp2", other)
    implemented_for_floats("logaddexp2_cpu", self)
    return np.logaddexp2(self, other)


def sgn(self):
    """The sign (``sign`` of a real tensor: 0 at NaN), gradient 0."""
    if self.dtype.kind == "b":
        return as_tensor_of(self.value.copy(), self)
    return named(self.sign(), "SgnBackward0")


def positive(self):
    """``input`` itself, as PyTorch's."""
    if self.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def signbit(self):
    """Whether the sign bit is set (True at -0.0), a bool tensor; no gradient."""
    return as_tensor_of(np.asarray(np.signbit(self.value)), self)


def nextafter(self, other):
    """The next float after ``input`` toward ``other``; gradient 1 to ``input`` and 0 to
    ``other``, as PyTorch's."""
    other = tensor_other("nextafter", other)
    dtype = float_result([self, other])
    implemented_for_floats("nextafter_cpu", self if self.dtype.kind != "f" else other)
    x = self if self.dtype == dtype else self.type(dtype)
    o = other if other.dtype == dtype else other.type(dtype)
    value = np.nextafter(x.value, o.value)
    with np.errstate(invalid="ignore"):
        step = np.asarray(value - x.value)
        exact = np.isfinite(step) & (value != 0)
    out = ops.where(exact, x + np.where(exact, step, 0).astype(dtype), value)
    return named(ops.where(np.ones(np.shape(value), bool), out, o), "NextafterBackward0")


def ldexp(self, other):
    """``input * 2 ** other`` (a float)."""
    return named(floating(self) * (2.0 ** floating(other) if isinstance(other, CoreTensor) else 2.0 ** other),
                 "LdexpBackward0")


def frexp(self):
    """``(mantissa, exponent)``: ``input = mantissa * 2 ** exponent``, ``|mantissa|`` in
    [0.5, 1) (or 0), the exponent int32; the mantissa's gradient ``2 ** -exponent``."""
    if self.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(self.value)
    with np.errstate(over="ignore"):
        scale = np.asarray(np.ldexp(1.0, -exponent)).astype(self.dtype)
    exact = np.isfinite(scale) & np.isfinite(self.value)
    m = ops.where(exact, self * np.where(exact, scale, 0).astype(self.dtype), mantissa)
    return FREXP(named(m, "FrexpBackward0"), as_tensor_of(np.asarray(exponent, np.int32), self))


# -- queries and constructors ----------------------------------------------------------------
def new_tensor(self, data, dtype=None, device=None, requires_grad=False, **kwargs):
    """A new leaf of ``data``, in this tensor's dtype unless ``dtype`` says otherwise."""
    if isinstance(data, CoreTensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach()"
                      ".clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
                      "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=user_stacklevel())
        data = np.array(data.value)
    return make(data, self.dtype if dtype is None else np.dtype(dtype), requires_grad, device,
                "Tensor.new_tensor")


def new_empty(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
    """A new tensor of ``size`` (zeros here: PyTorch leaves its values undefined)."""
    if not size:
        raise TypeError('new_empty() missing 1 required positional arguments: "size"')
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
    return make(np.zeros(tuple(int(s) for s in shape)), self.dtype if dtype is None else np.dtype(dtype),
                requires_grad, device, "Tensor.new_empty")


def is_complex(self):
    return self.dtype.kind == "c"


def is_signed(self):
    return self.dtype.kind not in "bu"


def element_size(self):
    """Bytes per element."""
    return int(self.dtype.itemsize)


def itemsize(self):
    """``Tensor.itemsize`` (a property in PyTorch): bytes per element."""
    return int(self.dtype.itemsize)


def nbytes(self):
    """``Tensor.nbytes`` (a property in PyTorch): bytes of all the elements."""
    return int(self.dtype.itemsize * self.value.size)


def is_nonzero(self):
    """The truth of a one-element tensor, or PyTorch's error."""
    n = self.value.size
    if n != 1:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous" if n == 0 else
                           "Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.value.reshape(-1)[0] != 0)


def is_same_size(self, other):
    return tuple(self.value.shape) == tuple(other.value.shape)


def get_device(self):
    """-1: the CPU's, as PyTorch answers for a CPU tensor."""
    return -1


def conj(self):
    """Of a real tensor, itself (as PyTorch's ``conj``, ``resolve_conj`` and ``resolve_neg``)."""
    return self


resolve_conj = resolve_neg = conj

METHODS = {f.__name__: f for f in (erfinv, logit, fmax, fmin, clamp_min, clamp_max, copysign, heaviside,
                                   float_power, logaddexp2, sgn, positive, signbit, nextafter, ldexp,
                                   frexp, new_tensor, new_empty, is_complex, is_signed, element_size,
                                   is_nonzero, is_same_size, get_device, conj)}
METHODS.update(resolve_conj=conj, resolve_neg=conj)
METHODS.update(ORDER)  # kthvalue, quantile ...: order.py's, wired in with these
PROPERTIES = {"itemsize": itemsize, "nbytes": nbytes}  # Tensor properties, as PyTorch's
FUNCTIONS = dict(ORDER_FUNCTIONS)  # searchsorted, bucketize: order.py's
