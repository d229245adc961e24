"""``jax.scipy.stats``: ``norm``."""

from . import norm

__all__ = ["norm"]
