"""``jax.nn.initializers``: JAX's weight initializers, each a function that builds an
``init(key, shape, dtype=...)``, with JAX's defaults (float32 unless x64), fans, scales
and errors.

Their samples come from ``gradmagic.jax.random``, whose keys seed NumPy's generator: for
one key they are the same each time, and they follow JAX's distributions (variance,
bounds, orthogonality), not JAX's own numbers.

>>> import gradmagic.jax as jax
>>> w = jax.nn.initializers.glorot_normal()(jax.random.key(0), (3, 4))
>>> w.shape, w.dtype
((3, 4), dtype('float32'))
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...core import ops
from ..random import normal as draw_normal, orthogonal as draw_orthogonal
from ..random import truncated_normal as draw_truncated, uniform as draw_uniform
from ..array import asarray, canonical

TRUNCATED_STDDEV = .87962566103423978  # the standard deviation of a normal cut at +-2


class Initializer:
    """The type of an initializer, ``init(key, shape, dtype=None) -> Array``, as JAX names it."""


def _scaled(sample, factor, dtype):
    """``sample`` times ``factor`` rounded to ``dtype`` first, as JAX multiplies them."""
    return sample * asarray(np.asarray(factor, dtype))


def zeros(key, shape, dtype=None, out_sharding=None):
    """An array of zeros (``key`` is not used)."""
    return asarray(np.zeros(shape, canonical(dtype)))


def ones(key, shape, dtype=None, out_sharding=None):
    """An array of ones (``key`` is not used)."""
    return asarray(np.ones(shape, canonical(dtype)))


def constant(value, dtype=None):
    """An initializer of arrays full of ``value``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        return asarray(np.full(shape, np.asarray(value), canonical(dtype)))
    return init


def uniform(scale=1e-2, dtype=None):
    """An initializer of uniform samples in ``[0, scale)``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = canonical(dtype)
        return _scaled(draw_uniform(key, shape, dtype), scale, dtype)
    return init


def normal(stddev=1e-2, dtype=None):
    """An initializer of normal samples of mean 0 and standard deviation ``stddev``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = canonical(dtype)
        return _scaled(draw_normal(key, shape, dtype), stddev, dtype)
    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    """An initializer of normal samples cut to ``[lower, upper]``, then times ``stddev``
    (which is not corrected for the cut, as in JAX)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = canonical(dtype)
        return _scaled(draw_truncated(key, lower, upper, shape, dtype), stddev, dtype)
    return init


def _size(shape, axes):
    return shape[axes] if isinstance(axes, numbers.Integral) else math.prod(shape[a] for a in axes)


def compute_fans(shape, in_axis=-2, out_axis=-1, batch_axis=()):
    """``(fan_in, fan_out)``: the input and output sizes, each times the receptive field
    (the axes that are none of ``in_axis``, ``out_axis`` and ``batch_axis``)."""
    if isinstance(in_axis, numbers.Integral) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional "
                         "weights tensor with default in_axis. Must be at least 2D or specify "
                         "in_axis explicitly.")
    n_in, n_out = _size(shape, in_axis), _size(shape, out_axis)
    field = math.prod(shape) / n_in / n_out / _size(shape, batch_axis)
    return n_in * field, n_out * field


DENOMINATORS = {"fan_in": lambda i, o: i, "fan_out": lambda i, o: o,
                "fan_avg": lambda i, o: (i + o) / 2, "fan_geo_avg": lambda i, o: (i * o) ** 0.5}


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None):
    """An initializer of samples of mean 0 and variance ``scale / n``, ``n`` the fan that
    ``mode`` names (``"fan_in"``, ``"fan_out"``, ``"fan_avg"``, ``"fan_geo_avg"``);
    ``distribution``: ``"truncated_normal"`` (cut at 2 standard deviations, then rescaled),
    ``"normal"`` or ``"uniform"``."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = tuple(int(d) for d in ((shape,) if isinstance(shape, numbers.Integral) else shape))
        dtype = canonical(dtype)
        fans = compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode not in DENOMINATORS:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = np.asarray(scale / DENOMINATORS[mode](*fans), dtype)
        if distribution == "truncated_normal":
            stddev = np.sqrt(variance) / np.asarray(TRUNCATED_STDDEV, dtype)
            return _scaled(draw_truncated(key, -2, 2, shape, dtype), stddev, dtype)
        if distribution == "normal":
            return _scaled(draw_normal(key, shape, dtype), np.sqrt(variance), dtype)
        if distribution == "uniform":
            return _scaled(draw_uniform(key, shape, dtype, -1), np.sqrt(3 * variance), dtype)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")
    return init


def _named(scale, mode, distribution, name):
    def build(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
        return variance_scaling(scale, mode, distribution, in_axis, out_axis, batch_axis, dtype)
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"``variance_scaling({scale}, {mode!r}, {distribution!r}, ...)``."
    return build


glorot_uniform = xavier_uniform = _named(1.0, "fan_avg", "uniform", "glorot_uniform")
glorot_normal = xavier_normal = _named(1.0, "fan_avg", "truncated_normal", "glorot_normal")
lecun_uniform = _named(1.0, "fan_in", "uniform", "lecun_uniform")
lecun_normal = _named(1.0, "fan_in", "truncated_normal", "lecun_normal")
he_uniform = kaiming_uniform = _named(2.0, "fan_in", "uniform", "he_uniform")
he_normal = kaiming_normal = _named(2.0, "fan_in", "truncated_normal", "he_normal")


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of ``scale`` times a uniformly drawn matrix with orthonormal columns
    (along ``column_axis``; the other axes, flattened, are its rows) or rows, whichever
    are fewer."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = canonical(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if 0 in shape:
            return zeros(key, shape, dtype)
        n_cols = shape[column_axis]
        q = draw_orthogonal(key, math.prod(shape) // n_cols, (), dtype, n_cols)
        q = ops.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        return _scaled(ops.moveaxis(q, -1, column_axis), scale, dtype)
    return init


def delta_orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """An initializer of convolution kernels (3-D to 5-D) that are zero but at the
    spatial centre, which holds an orthogonal matrix (``fan_in <= fan_out``)."""
    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = canonical(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        kernel = np.zeros(shape, dtype)
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        kernel[centre] = orthogonal(scale, column_axis, dtype)(key, shape[-2:]).value
        return asarray(kernel)
    return init


NAMES = ("Initializer", "zeros", "ones", "constant", "uniform", "normal", "truncated_normal",
         "variance_scaling", "glorot_uniform", "glorot_normal", "xavier_uniform", "xavier_normal",
         "lecun_uniform", "lecun_normal", "he_uniform", "he_normal", "kaiming_uniform",
         "kaiming_normal", "orthogonal", "delta_orthogonal")


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.nn.initializers.{name} does not exist: it maps "
                         f"{', '.join(NAMES)}")


__all__ = list(NAMES)
