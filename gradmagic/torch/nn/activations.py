"""``torch.nn.functional``'s further activations (``hardswish``, ``hardsigmoid``, ``mish``,
``softmin``, the shrinks, ``threshold``, ``celu``, ``glu``, ``prelu``, ``rrelu``) and the
in-place forms (``relu_``, ``elu_``, ``leaky_relu_`` ...), made of the engine's ops.

Each is written so that its gradient at a kink is PyTorch's: the branch a point on the
boundary falls in is the one PyTorch's backward takes there (``hardswish``'s 0 at -3 and 1 at 3,
``hardsigmoid``'s 0 at -3 and 3, the shrinks' 0 at ``±lambd``).
An in-place form, or ``inplace=True``, ends as every in-place op does: ``input`` holds the
result (``input.in_place``), under PyTorch's in-place ``grad_fn`` name.
"""

from __future__ import annotations

import warnings

import numpy as np

from ...core import ops, special
from ...core.primitive import composite
from ...core.special import SELU_ALPHA, SELU_SCALE
from ..graph import as_tensor_of
from ..values import DEFAULT_GENERATOR, axis_of, named, type_name


def _done(input, out, name, inplace, in_place_name=None):
    """``out`` under PyTorch's name; with ``inplace``, held by ``input`` (its name the
    in-place op's, where PyTorch's differs)."""
    if inplace:
        return input.in_place(named(out, in_place_name or name))
    return named(out, name)


@composite("0 up to -3, (2 x + 3) / 6 between, 1 from 3", elementwise=True)
def hardswish(input, inplace=False):
    """``x relu6(x + 3) / 6``: 0 up to -3, ``x (x + 3) / 6`` between, ``x`` from 3 (PyTorch's
    gradient at -3 and 3 those of the sides outside)."""
    x = input
    with np.errstate(invalid="ignore"):  # -inf: NaN, as PyTorch's x relu6(x + 3) / 6
        out = ops.where(x <= -3, x * 0.0, ops.where(x < 3, x * (x + 3) / 6, x))
    return _done(input, out, "HardswishBackward0", inplace)


@composite("1/6 strictly between -3 and 3", elementwise=True)
def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``, its gradient ``1/6`` strictly between -3 and 3."""
    x = input
    inside = ops.logical_and(x > -3, x < 3)
    with np.errstate(invalid="ignore"):  # (inf * 0, not picked; NaN stays NaN)
        out = ops.where(inside, x / 6 + 0.5,
                        ops.where(x >= 3, 1.0, ops.where(x <= -3, 0.0, x * 0.0)))
    return _done(input, out, "HardsigmoidBackward0", inplace)


@composite("tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), sp = softplus(x)", elementwise=True)
def mish(input, inplace=False):
    """``x tanh(softplus(x))``."""
    x = input
    with np.errstate(invalid="ignore"):  # -inf: NaN, as PyTorch's
        out = x * ops.tanh(ops.softplus(x))
    return _done(input, out, "MishBackward0", inplace)


@composite("softmin's Jacobian")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input, dim)``; no ``dim``: PyTorch's legacy choice (0 for a 0-, 1- or 3-d
    input, else 1), with its warning."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=_stacklevel)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return named((-input).softmax(dim, dtype), "SoftmaxBackward0")


@composite("1 outside [-lambd, lambd]", elementwise=True)
def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        limit = np.finfo(input.value.dtype).max if input.value.dtype.kind == "f" else np.inf
        raise RuntimeError(f"lambda must be in range [0, {limit:g}] for input dtype "
                           f"{type_name(input.value.dtype)}, but found {lambd:g}")
    with np.errstate(invalid="ignore"):  # (inf * 0, not picked; NaN stays NaN)
        out = ops.where(input > lambd, input - lambd,
                        ops.where(input < -lambd, input + lambd, input * 0.0))
    return named(out, "SoftshrinkBackward0")


@composite("1 outside [-lambd, lambd]", elementwise=True)
def hardshrink(input, lambd=0.5):
    """``x`` outside ``[-lambd, lambd]``, else 0."""
    inside = ops.logical_and(input >= -lambd, input <= lambd)
    return named(ops.where(inside, 0.0, input), "HardshrinkBackward0")


@composite("tanh(x)^2", elementwise=True)
def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - ops.tanh(input)


@composite("1 above threshold", elementwise=True)
def threshold(input, threshold, value, inplace=False):
    """``x`` above ``threshold``, else ``value``."""
    return _thresholded(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    return _thresholded(input, threshold, value, True)


def _thresholded(input, limit, value, inplace):
    x = input
    out = ops.where(x <= limit, value, x)
    return _done(input, out, "ThresholdBackward0", inplace, "ThresholdBackward1")


def _elu(input, alpha, scale=1.0, input_scale=1.0):
    """``scale x`` above 0, ``scale alpha (exp(input_scale x) - 1)`` at or below (the
    negative side's gradient at 0, as PyTorch's)."""
    negative = ops.where(input > 0, 0.0, input)
    return scale * ops.where(input > 0, input, alpha * ops.expm1(negative * input_scale))


@composite("1 where x > 0, else exp(x / alpha)", elementwise=True)
def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))``."""
    x = input
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _done(input, _elu(x, alpha, 1.0, 1.0 / alpha), "CeluBackward0", inplace, "CeluBackward1")


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


@composite("sigmoid(b) for a, a sigmoid'(b) for b")
def glu(input, dim=-1):
    """``a * sigmoid(b)``, ``a`` and ``b`` the halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    axis = axis_of(dim, input.ndim)
    size = input.shape[axis]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {axis} is size {size}")
    first = (slice(None),) * axis + (slice(0, size // 2),)
    second = (slice(None),) * axis + (slice(size // 2, None),)
    return named(ops.getitem(input, first) * ops.sigmoid(ops.getitem(input, second)), "GluBackward0")


@composite("1 where x > 0, else weight", "x where x <= 0, summed")
def prelu(input, weight):
    """``x`` above 0, ``weight x`` at or below, ``weight`` one slope or one per channel
    (axis 1)."""
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter "
                           f"numbers = {weight.numel()} and channel size = {channels}.")
    w = weight if weight.numel() == 1 or input.ndim < 2 else ops.reshape(
        weight, (1, -1) + (1,) * (input.ndim - 2))
    return named(ops.where(input > 0, input, w * input), "PreluKernelBackward0")


@composite("1 where x >= 0, else the slope", elementwise=True)
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """``x`` above 0, else ``a x``: ``a`` the mean slope ``(lower + upper) / 2`` out of
    training; in training one drawn uniformly in ``[lower, upper]`` per element (from the
    default generator: NumPy's, so the slopes differ from PyTorch's)."""
    x = input
    if training:
        slopes = DEFAULT_GENERATOR.rng.uniform(lower, upper, x.value.shape)
        noise = np.where(np.asarray(x.numpy(force=True)) > 0, 1.0, slopes).astype(x.value.dtype)
        out = x * as_tensor_of(noise, input)
    else:
        out = ops.where(x > 0, x, x * ((lower + upper) / 2))
    return _done(input, out, "RreluWithNoiseBackward0", inplace, "RreluWithNoiseBackward1")


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


# -- the in-place forms of functional's activations ------------------------------------------
def relu_(input):
    x = input
    return input.in_place(named(special.relu(x), "ReluBackward0"))


def elu_(input, alpha=1.0):
    x = input
    return input.in_place(named(_elu(x, alpha), "EluBackward1"))


def selu_(input):
    x = input
    return input.in_place(named(_elu(x, SELU_ALPHA, SELU_SCALE), "EluBackward1"))


def leaky_relu_(input, negative_slope=0.01):
    x = input
    return input.in_place(named(ops.where(x > 0, x, x * negative_slope), "LeakyReluBackward1"))


def silu_(input):
    return input.in_place(named(input * ops.sigmoid(input), "SiluBackward0"))


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """``clamp(x, min_val, max_val)``, its gradient 1 strictly between."""
    x = input
    inside = ops.logical_and(x > min_val, x < max_val)
    out = ops.where(inside, x, ops.where(x >= max_val, max_val, min_val))
    return input.in_place(named(out, "HardtanhBackward0"))


__all__ = ["hardswish", "hardsigmoid", "mish", "softmin", "softshrink", "hardshrink", "tanhshrink",
           "threshold", "threshold_", "celu", "celu_", "glu", "prelu", "rrelu", "rrelu_", "relu_",
           "elu_", "selu_", "leaky_relu_", "hardtanh_"]
