"""``jax.debug``: ``print``, which runs eagerly here, so it prints when the line runs."""

from __future__ import annotations

import builtins


def print(fmt, *args, ordered=False, **kwargs):  # noqa: A001  (JAX's name)
    """``jax.debug.print("x = {x}", x=x)``: ``fmt.format(*args, **kwargs)``, printed."""
    builtins.print(fmt.format(*args, **kwargs))
