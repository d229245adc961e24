"""Grouping in a trace by the user's own hand: ``with gm.scope("layer1"):`` and
``@gm.traced``, each one row of the trace with its ops folded inside."""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from ..core.context import listeners
from ..core.tensor import Tensor
from .trace import Trace


class scope:
    """Group the ops of a block under one name in the trace: ``with gm.scope("layer1"):``."""

    def __init__(self, name: str):
        self.name = str(name)

    def __enter__(self):
        self._traces = [h for h in listeners() if isinstance(h, Trace)]
        for t in self._traces:
            t.scope_enter(self.name, (), ())
        return self

    def __exit__(self, exc_type, exc, tb):
        for t in self._traces:
            t.scope_exit(self.name, None, raised=exc_type is not None)
        return False


def traced(fn: Callable | None = None, *, name: str | None = None) -> Callable:
    """Mark a function so that a trace shows it as one row, its ops folded inside.

    >>> @gm.traced
    ... def layer(x, w):
    ...     return np.tanh(x * w)
    """
    if fn is None:
        return functools.partial(traced, name=name)
    label = name or getattr(fn, "__name__", "function")
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        traces = [h for h in listeners() if isinstance(h, Trace)]
        if not traces:
            return fn(*args, **kwargs)
        inputs = tuple(a for a in args if isinstance(a, Tensor))
        names = tuple(params[k] if k < len(params) else f"args[{k}]"
                      for k, a in enumerate(args) if isinstance(a, Tensor))
        for t in traces:
            t.scope_enter(label, inputs, names)
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            for t in traces:
                t.scope_exit(label, None, raised=True)
            raise
        for t in traces:
            t.scope_exit(label, result)
        return result

    return wrapper
