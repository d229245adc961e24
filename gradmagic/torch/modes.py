"""PyTorch's grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled`` and
``inference_mode``, each a context manager and a decorator, over two context variables
that the graph reads as ops run (so each thread and task has its own mode); and the dual
level of forward AD that is active."""

from __future__ import annotations

import contextvars
import functools
import inspect
import sys

GRAD = contextvars.ContextVar("gradmagic_torch_grad", default=True)  # grad mode, per thread
INFERENCE = contextvars.ContextVar("gradmagic_torch_inference", default=False)  # inference mode
DUAL = [None]  # the dual level of forward AD: process-wide, as PyTorch's (``forward_ad.py``)


def tangent_of(t):
    """``t``'s tangent at the dual level (``autograd/forward_ad.py``), or None."""
    level = DUAL[0]
    return None if level is None else level.tangent(t)


def is_grad_enabled() -> bool:
    """``torch.is_grad_enabled()``."""
    return GRAD.get()


class _GradMode:
    """A context manager and decorator that sets grad mode, as ``torch.no_grad``."""

    mode = True

    def __new__(cls, *args, **kwargs):
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]):
            return cls()(args[0])  # @torch.no_grad without parentheses
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        self.before = []

    def __enter__(self):
        self.before.append(GRAD.get())
        GRAD.set(self.mode)
        return self

    def __exit__(self, *exc):
        GRAD.set(self.before.pop())
        return False

    def fresh(self):
        """A new context of this one's mode, for one call of a function it decorates."""
        return type(self)()

    def __call__(self, fn):
        return decorated(fn, self.fresh)


def decorated(fn, fresh):
    """``fn`` run inside a ``fresh()`` context. A generator function runs each of its steps
    inside one, and the code that reads it between them outside, as PyTorch's decorators do."""
    if not inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with fresh():
                return fn(*args, **kwargs)
        return run

    @functools.wraps(fn)
    def steps(*args, **kwargs):
        gen = fn(*args, **kwargs)
        try:
            with fresh():
                item = gen.send(None)
            while True:
                try:
                    sent = yield item
                except GeneratorExit:
                    with fresh():
                        gen.close()
                    raise
                except BaseException:
                    with fresh():
                        item = gen.throw(*sys.exc_info())
                else:
                    with fresh():
                        item = gen.send(sent)
        except StopIteration as stop:
            return stop.value
    return steps


class no_grad(_GradMode):
    """``torch.no_grad()``: ops inside record nothing (for updates and evaluation)."""

    mode = False


class enable_grad(_GradMode):
    """``torch.enable_grad()``: ops record again inside ``no_grad``."""

    mode = True


class set_grad_enabled(_GradMode):
    """``torch.set_grad_enabled(mode)``: sets grad mode now (a call) or for a ``with`` block."""

    def __init__(self, mode):
        super().__init__()
        self.mode, self.prev = bool(mode), GRAD.get()
        GRAD.set(self.mode)

    def __call__(self, fn):  # a decorator: the mode as it was, but inside the function
        GRAD.set(self.prev)
        return super().__call__(fn)

    def fresh(self):
        return set_grad_enabled(self.mode)

    def __enter__(self):  # as PyTorch's: the mode on entering, the one before it was made on exit
        GRAD.set(self.mode)
        return self

    def __exit__(self, *exc):
        GRAD.set(self.prev)
        return False


class inference_mode(_GradMode):
    """``torch.inference_mode(mode=True)``: inside, ops record nothing, even under
    ``enable_grad``, and the tensors they make are inference tensors (``is_inference()``);
    ``inference_mode(False)`` turns it off for a block, grad mode on, as PyTorch's."""

    def __init__(self, mode=True):
        super().__init__()
        self.mode = bool(mode)

    def __enter__(self):
        self.before.append((GRAD.get(), INFERENCE.get()))
        GRAD.set(not self.mode)
        INFERENCE.set(self.mode)
        return self

    def __exit__(self, *exc):
        grad_mode, inference = self.before.pop()
        GRAD.set(grad_mode)
        INFERENCE.set(inference)
        return False

    def fresh(self):
        return inference_mode(self.mode)


def is_inference_mode_enabled() -> bool:
    """``torch.is_inference_mode_enabled()``."""
    return INFERENCE.get()
