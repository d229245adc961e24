"""More of ``tf.nn``: ``crelu``, ``weighted_cross_entropy_with_logits``, ``log_poisson_loss``,
the moments' pieces (``sufficient_statistics``, ``normalize_moments``, ``weighted_moments``),
``compute_average_loss``, ``space_to_depth``/``depth_to_space``, and ``top_k``,
``in_top_k`` and ``zero_fraction`` (``tf.math``'s). Each is TensorFlow's formula written
with the engine's ops, so its gradient is TensorFlow's.
"""

import math

import numpy as np

from ..core import ops
from ..errors import GradientValueError
from .errors import InvalidArgumentError
from .math import ELEMENTWISE, top_k
from .more_math import in_top_k, zero_fraction
from .tensors import as_tensor, axis_of, operands, not_supported

relu = ELEMENTWISE["relu"]


def crelu(features, axis=-1, name=None):
    """``tf.nn.crelu``: ``concat([relu(x), relu(-x)], axis)``."""
    x = as_tensor(features)
    return ops.concatenate([relu(x), relu(-x)], axis=axis_of(axis, x.ndim, "tf.nn.crelu"))


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """``tf.nn.weighted_cross_entropy_with_logits``: the sigmoid cross-entropy with the
    positive term weighted by ``pos_weight``, in TensorFlow's stable form ``(1 - z) x + (1 +
    (q - 1) z) (log1p(exp(-|x|)) + relu(-x))``."""
    x, z = operands("tf.nn.weighted_cross_entropy_with_logits", logits, labels)
    if z.shape != x.shape:
        raise GradientValueError(f"`logits` and `labels` must have the same shape, received "
                                 f"({x.shape} vs {z.shape}).")
    q = as_tensor(pos_weight) if not isinstance(pos_weight, (int, float)) else pos_weight
    log_weight = 1 + (q - 1) * z
    return (1 - z) * x + log_weight * (ops.log1p(ops.exp(-ops.absolute(x))) + relu(-x))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``tf.nn.log_poisson_loss``: ``exp(log_input) - log_input * targets``, plus Stirling's
    approximation of ``log(targets!)`` where ``targets > 1`` when ``compute_full_loss``."""
    c, z = operands("tf.nn.log_poisson_loss", log_input, targets)
    if c.shape != z.shape:
        raise GradientValueError(f"log_input and targets must have the same shape ({c.shape} vs {z.shape})")
    result = ops.exp(c) - c * z
    if compute_full_loss:
        stirling = z * ops.log(z) - z + 0.5 * ops.log(2 * math.pi * z)
        small = ops.logical_and(z >= 0, z <= 1)
        result = result + ops.where(small, ops.zeros_like(z), stirling)
    return result


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.sufficient_statistics``: ``(count, sum(x - shift), sum((x - shift) ** 2),
    shift)`` over ``axes``; ``count`` in ``x``'s dtype."""
    t = as_tensor(x)
    axes = tuple(axis_of(a, t.ndim, "tf.nn.sufficient_statistics") for a in axes)
    count = as_tensor(np.asarray(math.prod(t.shape[a] for a in axes), dtype=t.dtype))
    if shift is not None:
        s = operands("tf.nn.sufficient_statistics", t, shift)[1]
        m, v = t - s, ops.square(t - s)
    else:
        s, m, v = None, t, ops.square(t)
    keep = bool(keepdims)
    return count, ops.sum(m, axis=axes, keepdims=keep), ops.sum(v, axis=axes, keepdims=keep), s


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``tf.nn.normalize_moments``: ``(mean, variance)`` from ``sufficient_statistics``'
    sums: ``mean_ss / counts (+ shift)``, ``variance_ss / counts - (mean_ss / counts) ** 2``."""
    n, m, v = operands("tf.nn.normalize_moments", counts, mean_ss, variance_ss)
    divisor = ops.reciprocal(n)
    shifted_mean = m * divisor
    mean = shifted_mean if shift is None else shifted_mean + as_tensor(shift)
    return mean, v * divisor - ops.square(shifted_mean)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """``tf.nn.weighted_moments``: the mean and variance of ``x`` along ``axes``, each element
    counted ``frequency_weights`` times (broadcast); 0 where the weights sum to 0."""
    t = as_tensor(x)
    w = as_tensor(frequency_weights)
    if w.dtype != t.dtype:
        w = ops.astype(w, t.dtype)
    axes = tuple(axis_of(a, t.ndim, "tf.nn.weighted_moments") for a in axes)
    total = ops.sum(w * t, axis=axes, keepdims=True)
    weight_sum = ops.sum(w + ops.zeros_like(t), axis=axes, keepdims=True)
    empty = weight_sum == 0
    safe = ops.where(empty, 1, weight_sum)
    mean = ops.where(empty, 0, total / safe)
    variance = ops.sum(w * ops.square(t - mean), axis=axes, keepdims=True)
    variance = ops.where(empty, 0, variance / safe)
    if not keepdims:
        mean, variance = ops.squeeze(mean, axes), ops.squeeze(variance, axes)
    return mean, variance


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``tf.nn.compute_average_loss``: ``sum(per_example_loss * sample_weight) /
    global_batch_size`` (the first dimension, with one replica, when None)."""
    loss = as_tensor(per_example_loss)
    if loss.ndim == 0:
        raise GradientValueError("Invalid value passed for `per_example_loss`. Expected a tensor "
                                 f"with at least rank 1. Received per_example_loss={loss.numpy()} with rank 0")
    if sample_weight is not None:
        w = ops.astype(as_tensor(sample_weight), loss.dtype)
        while w.ndim > loss.ndim and w.shape[-1] == 1:
            w = ops.squeeze(w, -1)
        while 0 < w.ndim < loss.ndim:
            w = ops.expand_dims(w, -1)
        loss = loss * w
    if global_batch_size is None:
        global_batch_size = loss.shape[0]
    size = as_tensor(global_batch_size)
    if size.ndim != 0 or size.dtype.kind not in "iu":
        raise TypeError("Expected `global_batch_size` to be an integer scalar: got "
                        f"{global_batch_size!r}")
    if int(size.numpy()) <= 0:
        raise InvalidArgumentError(f"Expected `global_batch_size` to be positive: got "
                                   f"{int(size.numpy())}")
    return ops.sum(loss) / ops.astype(size, loss.dtype)


def block_checked(fn, input, block_size, data_format):  # noqa: A002
    x = as_tensor(input)
    b = int(block_size)
    if data_format != "NHWC":
        raise not_supported(f"{fn}(data_format={data_format!r})", "a layout other than NHWC",
                            "transpose to NHWC (tf.transpose(x, [0, 2, 3, 1])) and back")
    if b < 2:
        raise InvalidArgumentError(f"{fn}: Value for attr 'block_size' of {b} must be at least "
                                   "minimum 2")
    if x.ndim != 4:
        raise InvalidArgumentError(f"{fn}: input rank should be: 4 instead of: {x.ndim}")
    return x, b


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.space_to_depth``: each ``block_size`` x ``block_size`` block of an NHWC image
    moved into the channels (row-major within the block, then the channels)."""
    x, b = block_checked("tf.nn.space_to_depth", input, block_size, data_format)
    n, h, w, c = x.shape
    if h % b or w % b:
        raise InvalidArgumentError(f"tf.nn.space_to_depth: Image width {w} and height {h} should "
                                   f"be divisible by block_size: {b}")
    y = ops.reshape(x, (n, h // b, b, w // b, b, c))
    return ops.reshape(ops.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h // b, w // b, b * b * c))


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002
    """``tf.nn.depth_to_space``: the inverse of ``space_to_depth``: the channels spread into
    ``block_size`` x ``block_size`` blocks."""
    x, b = block_checked("tf.nn.depth_to_space", input, block_size, data_format)
    n, h, w, c = x.shape
    if c % (b * b):
        raise InvalidArgumentError(f"tf.nn.depth_to_space: Input depth dimension {c} should be "
                                   f"divisible by: {b * b}")
    y = ops.reshape(x, (n, h, w, b, b, c // (b * b)))
    return ops.reshape(ops.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h * b, w * b, c // (b * b)))


MORE_NN = {f.__name__: f for f in (
    crelu, weighted_cross_entropy_with_logits, log_poisson_loss, sufficient_statistics,
    normalize_moments, weighted_moments, compute_average_loss, space_to_depth, depth_to_space,
    top_k, in_top_k, zero_fraction)}
__all__ = [*MORE_NN, "MORE_NN"]
