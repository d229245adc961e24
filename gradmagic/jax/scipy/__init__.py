"""``jax.scipy``: the parts JAX code reaches for most (``special``, ``stats.norm``,
``linalg``), on gradmagic's ops, with JAX's conventions."""

from . import linalg, special, stats

__all__ = ["linalg", "special", "stats"]
