"""``jax.random``: keys and the samplers JAX's guide uses. A key seeds NumPy's PCG64, so
the numbers are reproducible from the key but differ from JAX's own."""

from __future__ import annotations

import numpy as np

from .array import asarray, canonical


def PRNGKey(seed):  # noqa: N802  (JAX's name)
    return asarray(np.array([0, int(seed) & 0xFFFFFFFF], dtype=np.uint32))


key = PRNGKey


def _rng(key):
    return np.random.default_rng(np.asarray(asarray(key).numpy(), dtype=np.uint64).tolist())


def split(key, num=2):
    """``num`` new keys from ``key``."""
    return asarray(_rng(key).integers(0, 2 ** 32, size=(num, 2), dtype=np.uint32))


def normal(key, shape=(), dtype=np.float64):
    return asarray(_rng(key).standard_normal(tuple(shape)).astype(canonical(dtype)))


def uniform(key, shape=(), dtype=np.float64, minval=0.0, maxval=1.0):
    return asarray(_rng(key).uniform(minval, maxval, tuple(shape)).astype(canonical(dtype)))


def bernoulli(key, p=0.5, shape=None):
    p = np.asarray(p)
    return asarray(_rng(key).uniform(size=p.shape if shape is None else tuple(shape)) < p)
