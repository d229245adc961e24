"""``jax.nn``: the activations JAX's guide uses, on gradmagic's ops; ``initializers``
(``jax.nn.initializers``) and ``dot_product_attention`` (its module ``attention``)."""

from __future__ import annotations

import numpy as np

from ...core import ops, special
from ...core.primitive import composite
from ..array import absolute, asarray, canonical
from ..numpy import clip, maximum, minimum
from ..numpy import mean as jnp_mean  # with JAX's where=
from . import initializers  # noqa: F401  (jax.nn.initializers)
from .attention import dot_product_attention  # noqa: F401  (jax.nn.dot_product_attention)


def relu(x):
    return special.relu(asarray(x))  # gradient 0 at 0, as JAX's


def sigmoid(x):
    return ops.sigmoid(asarray(x))


def softplus(x):
    return ops.softplus(asarray(x))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log |sum(b exp(a))|`` over ``axis``, as JAX's: ``b`` may be negative (the sum's sign
    is returned with ``return_sign``; without it, a negative sum gives NaN), a zero ``b``
    leaves its term out, as does a false ``where``, and an empty sum is ``-inf`` with sign 0."""
    a = asarray(a)
    if b is None and not return_sign and where is None:
        return ops.logsumexp(a, axis=axis, keepdims=keepdims)
    b = asarray(1.0 if b is None else b, a.dtype)
    where = True if where is None else np.asarray(asarray(where).numpy())
    shape = np.broadcast_shapes(a.shape, b.shape, np.shape(where))
    a, b = ops.broadcast_to(a, shape), ops.broadcast_to(b, shape)
    a = ops.where(where, a, 0)  # a masked-out entry gets no gradient, as in JAX
    kept = (b.value != 0) & (a.value > -np.inf) & where  # the terms that count
    top = np.max(np.where(kept, a.value, -np.inf), axis=axis, keepdims=True)  # a constant shift
    top = np.where(np.isfinite(top), top, 0).astype(a.dtype)
    total = ops.sum(ops.where(kept, b * ops.exp(a - top), 0), axis=axis, keepdims=True)
    sign = np.sign(total.value)
    out = ops.log(ops.absolute(total)) + top
    if not keepdims:
        out, sign = ops.squeeze(out, axis), np.squeeze(sign, axis)
    if return_sign:
        return out, asarray(sign)
    return ops.where(sign < 0, np.nan, out)


def _masked(x, where, fill):
    """``x`` where ``where`` is true, ``fill`` (no gradient) elsewhere; ``x`` if no mask."""
    return x if where is None else ops.where(np.asarray(asarray(where).numpy()), x, fill)


def softmax(x, axis=-1, where=None):
    """Softmax over ``axis``; with ``where``, over the entries it marks, the others 0 (JAX's)."""
    x = asarray(x)
    return _masked(special.softmax(_masked(x, where, -np.inf), axis), where, 0)


def log_softmax(x, axis=-1, where=None):
    """Log-softmax over ``axis``; with ``where``, over the entries it marks, the others
    ``-inf`` (JAX's)."""
    x = asarray(x)
    return _masked(special.log_softmax(_masked(x, where, -np.inf), axis), where, -np.inf)


@composite("1 strictly between 0 and 6", elementwise=True)
def relu6(x):
    return special.relu6(asarray(x))  # gradient 0 at 0 and 6, as JAX's


@composite("1 where x >= 0, else negative_slope", elementwise=True)
def leaky_relu(x, negative_slope=0.01):
    x = asarray(x)
    return ops.where(x >= 0, x, negative_slope * x)


@composite("1 where x > 0, else alpha exp(x)", elementwise=True)
def elu(x, alpha=1.0):
    x = asarray(x)
    return ops.where(x > 0, x, alpha * ops.expm1(ops.where(x > 0, 0.0, x)))


@composite("1 where x > 0, else exp(x / alpha)", elementwise=True)
def celu(x, alpha=1.0):
    """JAX's form, ``maximum(x, 0) + alpha expm1(minimum(x, 0) / alpha)``, whose ties at 0
    give each side half (its second derivative there is ``0.25 / alpha``, as JAX's)."""
    x = asarray(x)
    return maximum(x, 0.0) + alpha * ops.expm1(minimum(x, 0.0) / alpha)


@composite("scale where x > 0, else scale alpha exp(x)", elementwise=True)
def selu(x):
    return special.SELU_SCALE * elu(x, special.SELU_ALPHA)


@composite("s(x) (1 + x (1 - s(x)))", elementwise=True)
def silu(x):
    x = asarray(x)
    return x * ops.sigmoid(x)


swish = silu


@composite("gelu'(x)", elementwise=True)
def gelu(x, approximate=True):
    """JAX's default, the tanh form; ``approximate=False``: the exact form,
    ``0.5 x (1 + erf(x / sqrt(2)))``."""
    x = asarray(x)
    return special.gelu_tanh(x) if approximate else special.gelu_erf(x)


@composite("1 / (|x| + 1)^2", elementwise=True)
def soft_sign(x):
    x = asarray(x)
    return x / (absolute(x) + 1)  # JAX's abs: 1 at 0, so its second derivative there is -2


@composite("sigmoid(-x)", elementwise=True)
def log_sigmoid(x):
    return -ops.softplus(-asarray(x))


@composite("1 where -1 <= x <= 1", elementwise=True)
def hard_tanh(x):
    x = asarray(x)
    return ops.where(x > 1, 1.0, ops.where(x < -1, -1.0, x))


@composite("relu6'(x + 3) / 6", elementwise=True)
def hard_sigmoid(x):
    return relu6(asarray(x) + 3.0) / 6.0


@composite("hard_sigmoid(x) + x hard_sigmoid'(x)", elementwise=True)
def hard_silu(x):
    x = asarray(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@composite("tanh(softplus(x)) + x sech^2(softplus(x)) sigmoid(x)", elementwise=True)
def mish(x):
    x = asarray(x)
    return x * ops.tanh(ops.softplus(x))


@composite("(1 + x / sqrt(x^2 + b)) / 2", elementwise=True)
def squareplus(x, b=4):
    x = asarray(x)
    return (x + ops.sqrt(x * x + b)) / 2


@composite("1 / expm1(x)", elementwise=True)
def log1mexp(x):
    """``log(1 - exp(-x))``, with its digits near 0 and far out (JAX's two branches)."""
    x = asarray(x)
    near = x < np.log(2.0)
    return ops.where(near, ops.log(-ops.expm1(-ops.where(near, x, 1.0))),
                     ops.log1p(-ops.exp(-ops.where(near, 1.0, x))))


@composite("0 where x <= -1, 1 where x >= 1, else (x + 1) / 2", elementwise=True)
def sparse_plus(x):
    """0 up to -1, ``(x + 1)^2 / 4`` up to 1, then ``x``: smooth, convex, as JAX's."""
    x = asarray(x)
    return ops.where(x <= -1.0, 0.0, ops.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@composite("1/2 strictly between -1 and 1, 1/4 at -1 and 1", elementwise=True)
def sparse_sigmoid(x):
    """``clip(x + 1, 0, 2) / 2``, ``sparse_plus``'s derivative; ``jnp.clip``'s halves at the
    ends, as JAX's."""
    return 0.5 * clip(asarray(x) + 1.0, 0.0, 2.0)


def glu(x, axis=-1):
    """The first half along ``axis`` times the sigmoid of the second."""
    x = asarray(x)
    n = x.shape[axis]
    if n % 2:
        raise AssertionError("axis size must be divisible by 2")
    a, b = ops.split(x, 2, axis=axis)
    return a * ops.sigmoid(b)


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """``log(mean(exp(x)))`` over ``axis`` (over the entries ``where`` marks)."""
    x = asarray(x)
    mask = np.broadcast_to(True if where is None else np.asarray(asarray(where).numpy()), x.shape)
    count = np.sum(mask, axis=axis, keepdims=keepdims)
    lse = logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    return lse - asarray(np.log(count.astype(lse.dtype)))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis`` (the mean and variance over
    the entries ``where`` marks), the variance as JAX computes it, ``mean(x^2) - mean(x)^2``
    clipped at 0."""
    x = asarray(x)
    if mean is None:
        mean = jnp_mean(x, axis, keepdims=True, where=where)
    if variance is None:
        variance = clip(jnp_mean(x * x, axis, keepdims=True, where=where) - mean * mean, 0)
    return (x - mean) * ops.reciprocal(ops.sqrt(variance + epsilon))


def identity(x):
    return asarray(x)


def tanh(x):
    return ops.tanh(asarray(x))


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """Integer classes as one-hot rows (no gradient: classes are integers), in JAX's default
    float (float64 with x64 on) unless ``dtype`` says."""
    classes = np.asarray(asarray(x).numpy())
    out = np.moveaxis(classes[..., None] == np.arange(num_classes), -1, axis)
    return asarray(out.astype(canonical(np.float64 if dtype is None else dtype)))


NAMES = ("relu", "relu6", "leaky_relu", "elu", "celu", "selu", "silu", "swish", "gelu", "soft_sign",
         "log_sigmoid", "hard_tanh", "sigmoid", "softplus", "logsumexp", "softmax", "log_softmax",
         "one_hot", "hard_sigmoid", "hard_silu", "hard_swish", "mish", "squareplus", "log1mexp",
         "glu", "logmeanexp", "standardize", "identity", "tanh", "sparse_plus", "sparse_sigmoid",
         "dot_product_attention", "initializers")


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.nn.{name} does not exist: it maps {', '.join(NAMES)}")
