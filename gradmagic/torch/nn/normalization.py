"""``torch.nn.functional``'s normalizations over batches and groups: ``batch_norm``,
``instance_norm``, ``group_norm`` and ``local_response_norm`` (``layer_norm`` is in
``functional``), made of the engine's ops.

In training, ``batch_norm`` and ``instance_norm`` normalize with the statistics of the
input (the biased variance) and, where given, move the running statistics towards them in
place, unrecorded, as PyTorch does: ``running = (1 - momentum) running + momentum stat``,
with the unbiased variance.
"""

from __future__ import annotations

import numpy as np

from ...core import layout, ops
from ...core.primitive import composite
from ..modes import no_grad
from ..values import named


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def _per_channel(t, ndim):
    """A (C,) tensor shaped to broadcast along axis 1 of an ``ndim``-d input."""
    return ops.reshape(t, (1, -1) + (1,) * (ndim - 2))


def _affine(out, weight, bias):
    if weight is not None:
        out = out * _per_channel(weight, out.ndim)
    if bias is not None:
        out = out + _per_channel(bias, out.ndim)
    return out


def _check_channels(input, channels, batch=1, **tensors):
    """Each per-channel tensor has ``channels`` elements (``instance_norm``'s: repeated per
    sample, as PyTorch's message counts them)."""
    for name, t in tensors.items():
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels * batch} elements not "
                               f"{t.numel() * batch}")


def _update(running, stat, momentum):
    """``running`` moved towards ``stat`` in place, where no graph sees it."""
    if running is None:
        return
    with no_grad():
        new = (1 - momentum) * running.value + momentum * np.asarray(stat.value, running.value.dtype)
        running.in_place(np.asarray(new, running.value.dtype))


def _normalized(input, mean, var, eps):
    return (input - mean) / ops.sqrt(var + eps)


@composite("through the batch statistics", "none (updated in place)", "none (updated in place)", "x normalized, summed", "upstream summed")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` per channel (axis 1): in training
    with the batch's mean and biased variance (over every axis but 1), the running ones
    updated in place; otherwise with ``running_mean`` and ``running_var``."""
    shape = tuple(input.shape)
    if training and _count(shape[:1] + shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"torch.Size({list(shape)})")
    channels = shape[1] if len(shape) > 1 else 0
    _check_channels(input, channels, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias)
    axes = (0,) + tuple(range(2, input.ndim))
    if training:
        mean = ops.mean(input, axis=axes, keepdims=True)
        centred = input - mean
        var = ops.mean(centred * centred, axis=axes, keepdims=True)
        out = centred / ops.sqrt(var + eps)
        n = _count(shape) // max(channels, 1)
        _update(running_mean, ops.reshape(mean, (-1,)), momentum)
        _update(running_var, ops.reshape(var, (-1,)) * (n / max(n - 1, 1)), momentum)
    else:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
        out = _normalized(input, _per_channel(ops.stop_gradient(running_mean), input.ndim),
                          _per_channel(ops.stop_gradient(running_var), input.ndim), eps)
    return named(_affine(out, weight, bias), "NativeBatchNormBackward0")


@composite("through the instance statistics", "none (updated in place)", "none (updated in place)", "x normalized, summed", "upstream summed")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """``batch_norm`` of each sample on its own: each (sample, channel) normalized over
    the spatial axes; the running statistics, where given, move towards the batch's mean
    of the samples' ones."""
    shape = tuple(input.shape)
    if use_input_stats and _count(shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"torch.Size({list(shape)})")
    channels = shape[1] if len(shape) > 1 else 0
    _check_channels(input, channels, running_mean=running_mean, running_var=running_var,
                    weight=weight, bias=bias, batch=shape[0])
    axes = tuple(range(2, input.ndim))
    if use_input_stats:
        mean = ops.mean(input, axis=axes, keepdims=True)
        centred = input - mean
        var = ops.mean(centred * centred, axis=axes, keepdims=True)
        out = centred / ops.sqrt(var + eps)
        n = _count(shape[2:])
        _update(running_mean, ops.mean(ops.reshape(mean, shape[:2]), axis=0), momentum)
        _update(running_var, ops.mean(ops.reshape(var, shape[:2]), axis=0) * (n / (n - 1)), momentum)
    else:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError("Expected running_mean and running_var to be defined when "
                                   "use_input_stats is false")
        out = _normalized(input, _per_channel(ops.stop_gradient(running_mean), input.ndim),
                          _per_channel(ops.stop_gradient(running_var), input.ndim), eps)
    return named(_affine(out, weight, bias), "ViewBackward0")


@composite("through the group statistics", "none", "x normalized, summed", "upstream summed")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Each sample's channels in ``num_groups`` groups, each group normalized over its
    channels and the spatial axes (the biased variance), then scaled per channel."""
    shape = tuple(input.shape)
    channels = shape[1] if len(shape) > 1 else 0
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but "
                           f"got input of shape {list(shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != channels):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels "
                               f"in input, but got {name} of shape {list(t.shape)} and input of shape "
                               f"{list(shape)}")
    grouped = ops.reshape(input, (shape[0], num_groups, -1))
    mean = ops.mean(grouped, axis=-1, keepdims=True)
    centred = grouped - mean
    var = ops.mean(centred * centred, axis=-1, keepdims=True)
    out = ops.reshape(centred / ops.sqrt(var + eps), shape)
    return named(_affine(out, weight, bias), "NativeGroupNormBackward0")


@composite("through the neighbours' squares")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean of x^2 over the ``size`` channels around) ^ beta``, the
    window zero-padded at the ends of the channel axis (``size // 2`` before)."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got "
                         f"{input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    widths = [(0, 0)] * input.ndim
    widths[1] = (size // 2, (size - 1) // 2)
    sq = layout.pad(sq, widths)
    channels = input.shape[1]
    total = None
    for i in range(size):
        part = ops.getitem(sq, (slice(None), slice(i, i + channels)))
        total = part if total is None else total + part
    div = ops.power(total / size * alpha + k, beta)
    return named(input / div, "DivBackward0")


__all__ = ["batch_norm", "instance_norm", "group_norm", "local_response_norm"]
