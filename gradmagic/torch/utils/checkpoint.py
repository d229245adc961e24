"""``torch.utils.checkpoint``, as PyTorch 2.13.0 takes its arguments: ``checkpoint(function,
*args, use_reentrant=...)`` calls ``function(*args)`` and returns what it returns, its graph
kept (gradmagic trades no memory for time: nothing is recomputed in the backward pass, so the
gradients are those of the plain call); ``checkpoint_sequential`` runs its functions in turn.
The checks and the warning PyTorch gives for the arguments are its own."""

import warnings

from ...tracebacks import user_stacklevel
from ..values import missing

__all__ = ["checkpoint", "checkpoint_sequential"]

UNSET = object()  # context_fn not given (PyTorch's noop_context_fn)


def _check(use_reentrant, kwargs, context_fn=UNSET, debug=False):
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for more "
            "details on the differences between the two variants.", UserWarning,
            stacklevel=user_stacklevel())
        use_reentrant = True
    kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant and (context_fn is not UNSET or debug is not False):
        raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")


def checkpoint(function, *args, use_reentrant=None, context_fn=UNSET, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)``, its graph kept: the values and gradients of the plain
    call (PyTorch's recomputes the forward pass in the backward one to save memory)."""
    _check(use_reentrant, kwargs, context_fn, debug)
    if context_fn is not UNSET:
        forward, _ = context_fn()
        with forward:
            return function(*args, **kwargs)
    return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """The functions (a list of them, or a module's ``children()``) applied in turn to ``input``."""
    _check(use_reentrant, kwargs)
    if hasattr(functions, "children"):
        functions = list(functions.children())
    for f in functions:
        input = f(input)
    return input


def __getattr__(name):
    raise AttributeError(missing(f"torch.utils.checkpoint.{name}"))
