"""``jax.scipy.stats.norm``: the normal distribution's ``logpdf``, ``pdf``, ``cdf`` and
``sf`` at ``x``, for ``loc`` and ``scale`` (every argument differentiable)."""

from __future__ import annotations

import math

from ....core import ops
from ...array import asarray
from ..special import ndtr

HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def logpdf(x, loc=0, scale=1):
    x, loc, scale = asarray(x), asarray(loc), asarray(scale)
    z = (x - loc) / scale
    return -0.5 * z * z - ops.log(scale) - HALF_LOG_2PI


def pdf(x, loc=0, scale=1):
    return ops.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = asarray(x), asarray(loc), asarray(scale)
    return ndtr((x - loc) / scale)


def sf(x, loc=0, scale=1):
    """``1 - cdf``, computed as ``cdf`` of the mirrored point."""
    x, loc, scale = asarray(x), asarray(loc), asarray(scale)
    return ndtr((loc - x) / scale)


__all__ = ["logpdf", "pdf", "cdf", "sf"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.scipy.stats.norm.{name} does not exist: it maps {', '.join(__all__)}")
