"""``jax.nn``: the activations JAX's guide uses, on gradmagic's ops."""

from __future__ import annotations

from ..core import ops, special
from .array import asarray


def relu(x):
    x = asarray(x)
    return ops.where(x > 0, x, 0)  # gradient 0 at 0, as JAX's


def sigmoid(x):
    return ops.sigmoid(asarray(x))


def softplus(x):
    return ops.softplus(asarray(x))


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    a = asarray(a)
    if b is not None:
        a = a + ops.log(asarray(b))
    return ops.logsumexp(a, axis=axis, keepdims=keepdims)


def softmax(x, axis=-1):
    return special.softmax(asarray(x), axis)


def log_softmax(x, axis=-1):
    return special.log_softmax(asarray(x), axis)


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.nn.{name} does not exist: it maps relu, sigmoid, "
                         "softplus, logsumexp, softmax and log_softmax")
