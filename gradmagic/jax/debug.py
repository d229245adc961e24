"""``jax.debug``: ``print`` and ``callback``, which run eagerly here, so they run when the
line runs, on the values as they are."""

from __future__ import annotations

import builtins

import numpy as np

from ..core.tensor import Tensor
from .array import asarray
from .tree_util import tree_map


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001  (JAX's name)
    """``jax.debug.print("x = {x}", x=x)``: ``fmt.format(*args, **kwargs)``, printed."""
    builtins.print(fmt.format(*args, **kwargs))


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """``jax.debug.callback(f, *args, **kwargs)``: ``f`` called on the arguments' values (as
    Arrays no transformation follows, as JAX gives it concrete ones); it returns None."""
    def concrete(x):
        if isinstance(x, Tensor):
            return asarray(x.value)
        return asarray(x) if isinstance(x, (int, float, np.ndarray, np.generic)) else x
    callback(*tree_map(concrete, args), **tree_map(concrete, kwargs))
