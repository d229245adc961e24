"""``jax.scipy.stats``: ``norm``."""

from . import norm

__all__ = ["norm"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.scipy.stats.{name} does not exist: it maps {', '.join(__all__)}")
