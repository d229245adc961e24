"""``tf.nn``: activations, softmax, the cross-entropy losses and the small helpers of
TensorFlow's guides, each a composition of the engine's ops with TensorFlow's gradient
conventions (``relu``'s gradient 0 at 0, ``moments``' variance about a constant mean);
convolution and pooling are ``conv``'s.
"""

import numpy as np

from ..core import ops, special, statistics
from ..core.ops import stop_gradient
from ..core.primitive import composite
from ..core.special import SELU_ALPHA, SELU_SCALE, gelu_erf, gelu_tanh
from ..errors import GradientValueError
from .random import uniform
from .arrays import gather
from .conv import CONV
from .errors import InvalidArgumentError
from .math import ELEMENTWISE, l2_normalize, log_softmax, softmax
from .more_nn import MORE_NN
from .tensors import as_tensor, check_dtype, missing, not_supported

sigmoid, softplus, relu, tanh, softsign = (ELEMENTWISE[k] for k in (
    "sigmoid", "softplus", "relu", "tanh", "softsign"))


@composite("[0 < x < 6]", elementwise=True)
def relu6(features, name=None):
    """``min(max(features, 0), 6)``; the gradient is 1 strictly between 0 and 6 only."""
    return special.relu6(as_tensor(features))


@composite("1 where x > 0, else alpha", elementwise=True)
def leaky_relu(features, alpha=0.2, name=None):
    x = as_tensor(features)
    return ops.where(x > 0, x, alpha * x)


@composite("1 where x >= 0, else exp(x)", elementwise=True)
def elu(features, name=None):
    """``x`` where ``x >= 0``, else ``exp(x) - 1``; the gradient at 0 is 1, as TensorFlow's."""
    x = as_tensor(features)
    return ops.where(x < 0, ops.expm1(ops.minimum(x, 0)), x)


@composite("scale where x >= 0, else scale alpha exp(x)", elementwise=True)
def selu(features, name=None):
    """``scale * elu`` with TensorFlow's ``alpha`` and ``scale``; the gradient at 0 is ``scale``."""
    x = as_tensor(features)
    return SELU_SCALE * ops.where(x < 0, SELU_ALPHA * ops.expm1(ops.minimum(x, 0)), x)


@composite("s(bx) (1 + bx (1 - s(bx)))", elementwise=True)
def silu(features, beta=1.0, name=None):
    """``features * sigmoid(beta * features)``."""
    x = as_tensor(features)
    return x * ops.sigmoid(beta * x)


swish = silu


@composite("gelu'(x)", elementwise=True)
def gelu(features, approximate=False, name=None):
    """``tf.nn.gelu``: exact, ``0.5 x (1 + erf(x / sqrt(2)))``, by default; the tanh form
    with ``approximate=True``."""
    x = as_tensor(features)
    return gelu_tanh(x) if approximate else gelu_erf(x)


def bias_add(value, bias, data_format=None, name=None):
    v, b = as_tensor(value), as_tensor(bias)
    if data_format not in (None, "NHWC", "N...C"):
        raise not_supported(f"tf.nn.bias_add(data_format={data_format!r})", "channels first",
                            "add bias reshaped to broadcast over your axes")
    if b.ndim != 1 or v.ndim < 1 or b.shape[0] != v.shape[-1]:
        raise GradientValueError(f"tf.nn.bias_add(bias): bias must be 1-D with the size of value's "
                                 f"last dimension, got shapes {v.shape} and {b.shape}")
    return v + b


@composite("t")
def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    t = as_tensor(t)
    return ops.sum(t * t) / 2


@composite("1 / n for the mean; 2 (x - mean) / n for the variance")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """``(mean, variance)`` along ``axes``; the variance is taken about the mean as a
    constant, as TensorFlow takes it."""
    x = as_tensor(x)
    axes = tuple(int(a) for a in axes)
    mean = ops.mean(x, axis=axes, keepdims=True)
    variance = ops.mean(ops.square(x - stop_gradient(mean)), axis=axes, keepdims=True)
    if not keepdims:
        mean, variance = ops.squeeze(mean, axes), ops.squeeze(variance, axes)
    return mean, variance


@composite("scale / sqrt(var + eps)", "-scale / sqrt(var + eps)", "-(x - mean) scale / (2 (var + eps)^1.5)", "1", "(x - mean) / sqrt(var + eps)")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + epsilon) + offset`` (``offset``, ``scale`` may
    be None), computed as TensorFlow computes it: ``inv = rsqrt(variance + epsilon) * scale``
    and ``offset - mean * inv`` in their own dtype (float32 for Python numbers), each cast to
    ``x``'s, then ``x * inv + (offset - mean * inv)``."""
    x = as_tensor(x)
    inv = ops.reciprocal(ops.sqrt(as_tensor(variance + variance_epsilon)))
    if scale is not None:
        inv = inv * scale
    shift = -mean * inv if offset is None else offset - mean * inv
    return x * ops.astype(inv, x.dtype) + ops.astype(as_tensor(shift), x.dtype)


@composite("mask / (1 - rate)", elementwise=True)
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """``tf.nn.dropout``: each element kept with probability ``1 - rate`` and scaled by
    ``1 / (1 - rate)``, else 0 (the mask from ``tf.random``'s generator)."""
    x = as_tensor(x)
    rate = float(rate)
    if not 0 <= rate < 1:
        raise GradientValueError(f"tf.nn.dropout(rate={rate}): rate must be a scalar tensor or a "
                                 "float in the range [0, 1)")
    shape = x.shape if noise_shape is None else tuple(int(n) for n in noise_shape)
    keep = uniform(shape, dtype=x.dtype if x.dtype.kind == "f" else np.float32, seed=seed) >= rate
    return ops.where(keep, x / (1 - rate), 0)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """``tf.nn.embedding_lookup``: the rows of ``params`` at ``ids`` (``tf.gather``)."""
    if max_norm is not None:
        raise not_supported("tf.nn.embedding_lookup(max_norm=...)", "max_norm",
                            "clip the rows with tf.clip_by_norm")
    return gather(params, ids)


# -- losses ----------------------------------------------------------------------------------
@composite("-log_softmax(logits)", "softmax(logits) sum(labels) - labels")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """``-sum(labels * log_softmax(logits), axis)``: its gradient is ``softmax(logits) *
    sum(labels) - labels`` for the logits and ``-log_softmax(logits)`` for the labels."""
    labels, logits = as_tensor(labels), as_tensor(logits)
    try:
        np.broadcast_shapes(labels.shape, logits.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"tf.nn.softmax_cross_entropy_with_logits: logits and labels must be broadcastable: "
            f"logits_size={list(logits.shape)} labels_size={list(labels.shape)}") from None
    return -ops.sum(labels * log_softmax(logits, axis=axis), axis=axis)


@composite("none (integer labels)", "softmax(logits) - one_hot(labels)")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """``logsumexp(logits) - logits[label]`` along the last axis, for integer ``labels`` of
    ``logits``' shape without its last axis; a label outside ``[0, classes)`` is an error."""
    labels, logits = as_tensor(labels), as_tensor(logits)
    fn = "tf.nn.sparse_softmax_cross_entropy_with_logits"
    check_dtype(fn, "labels", labels, "iu", "integer class labels (int32 or int64)")
    if labels.ndim != logits.ndim - 1 or labels.shape != logits.shape[:-1]:
        raise GradientValueError(
            f"{fn}: `labels.shape.rank` must equal `logits.shape.rank - 1`, and the shapes agree "
            f"except for the last dimension of logits. Received: labels.shape={labels.shape} of "
            f"rank {labels.ndim} and logits.shape={logits.shape} of rank {logits.ndim}")
    classes = logits.shape[-1]
    host = np.asarray(labels.numpy())
    bad = host[(host < 0) | (host >= classes)]
    if bad.size:
        raise InvalidArgumentError(
            f"{fn}: Received a label value of {int(bad.flat[0])} which is outside the valid range "
            f"of [0, {classes}).  Label values: {' '.join(map(str, host.ravel().tolist()))}")
    picked = statistics.take_along_axis(logits, np.expand_dims(labels.value, -1), axis=-1)
    return ops.logsumexp(logits, axis=-1) - ops.squeeze(picked, -1)


@composite("-logits", "sigmoid(logits) - labels", elementwise=True)
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """``max(x, 0) - x * z + log(1 + exp(-|x|))``, stable for any logit ``x``; both kinks at
    0 take the same side, so the gradient there is ``sigmoid(0) - z``, as TensorFlow's."""
    z, x = as_tensor(labels), as_tensor(logits)
    if z.shape != x.shape:
        raise GradientValueError(f"tf.nn.sigmoid_cross_entropy_with_logits: logits and labels must "
                                 f"have the same shape ({x.shape} vs {z.shape})")
    positive = x >= 0
    return ops.where(positive, x, 0) - x * z + ops.log1p(ops.exp(ops.where(positive, -x, x)))


globals().update(MORE_NN)  # tf.nn.crelu, tf.nn.space_to_depth, tf.nn.top_k ... (more_nn)
globals().update(CONV)  # tf.nn.conv2d, tf.nn.max_pool2d ... (conv)

NO_RULE = {name: "not mapped: of convolution and pooling, gradmagic.tf has conv1d/2d/3d, convolution, "
                 "their transposes, depthwise_conv2d, separable_conv2d, atrous_conv2d, max_pool and avg_pool "
                 "(1-d to 3-d)" for name in (
    "pool", "atrous_conv2d_transpose", "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter",
    "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool_with_argmax", "fractional_max_pool",
    "fractional_avg_pool", "dilation2d", "erosion2d")}

__all__ = ["sigmoid", "softplus", "relu", "relu6", "leaky_relu", "elu", "selu", "silu", "swish",
           "gelu", "tanh", "softsign", "softmax", "log_softmax", "bias_add",
           "l2_loss", "l2_normalize", "moments", "batch_normalization", "dropout",
           "embedding_lookup", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits", *MORE_NN, *CONV]


def __dir__():
    return __all__


def __getattr__(name):
    reason = f" ({NO_RULE[name]}; write it with a custom_gradient if you need it)" if name in NO_RULE else ""
    raise AttributeError(missing(f"tf.nn.{name}") + reason)
