"""``jax.scipy``: the parts JAX code reaches for most (``special``, ``stats.norm``,
``linalg``), on gradmagic's ops, with JAX's conventions."""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.scipy.{name} does not exist: it maps {', '.join(__all__)}")
