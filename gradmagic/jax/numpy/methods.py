"""``jax.Array``'s methods and properties that are ``jnp`` functions of the same name
(``x.argmax()`` is ``jnp.argmax(x)``, ``x.sum(where=m)`` is ``jnp.sum(x, where=m)``),
installed on ``Array`` by ``jax.numpy`` once its functions exist."""

from __future__ import annotations

import numpy as np

from ..array import Array, canonical

METHODS = ("argmax", "argmin", "any", "all", "round", "sort", "argsort", "copy", "swapaxes", "take",
           "repeat", "diagonal", "trace", "nonzero", "ptp", "searchsorted", "conj", "conjugate",
           "sum", "prod", "max", "min", "mean", "var", "std", "cumsum", "cumprod")
PROPERTIES = ("real", "imag")


def install(jnp):
    """Give ``Array`` the methods and properties above, each calling ``jnp``'s function."""
    for name in METHODS:
        setattr(Array, name, _method(getattr(jnp, name), name))
    for name in PROPERTIES:
        setattr(Array, name, property(_method(getattr(jnp, name), name)))
    Array.mT = property(lambda self: jnp.swapaxes(self, -1, -2), doc="The transpose of the last two axes.")
    Array.itemsize = property(lambda self: self.dtype.itemsize)
    Array.nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def __round__(self, ndigits=None):  # round(x): an integer array unless ndigits is given, as JAX's
        return jnp.round(self).astype(canonical(np.int64)) if ndigits is None else jnp.round(self, ndigits)
    Array.__round__ = __round__


def _method(f, name):
    def method(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``jnp.{name}(x, ...)``."
    return method
