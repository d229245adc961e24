"""The stack of active tapes and listeners, the backward pass running, and the hooks.

Each thread and async task has its own stack (a ``contextvars`` variable). Tapes record
ops; listeners (a trace, custom_gradient's variable watcher) only hear them, through
the public ``on_...`` hooks of ``Listener``. The engine calls a hook only while the stack
holds something, so an empty stack costs one lookup per op.
"""

from __future__ import annotations

import contextvars
from typing import Any, Sequence

TAPES = contextvars.ContextVar("gradmagic_tapes", default=())  # tapes and listeners, innermost last
LEVEL = contextvars.ContextVar("gradmagic_level", default=0)  # the order of the backward pass running
MEMO = contextvars.ContextVar("gradmagic_memo", default=None)  # the running pass's: work its rules share
# a dialect's random sources that code reaches without naming them (torch's default generator,
# tf.random's global streams): each has state() and put_state(), and a check's snapshot saves
# and puts them back, so that running code again never moves the program's random numbers
RANDOM_SOURCES = []


def stack() -> tuple:
    """The tapes and listeners active now, outermost first."""
    return TAPES.get()


def push(obj: Any) -> None:
    """Put a tape or listener on this thread's (and task's) stack."""
    TAPES.set(TAPES.get() + (obj,))


def remove(obj: Any) -> None:
    """Take a tape or listener off the stack, wherever it is."""
    tapes = TAPES.get()
    TAPES.set(tapes[:-1] if tapes and tapes[-1] is obj else tuple(t for t in tapes if t is not obj))


def followed(t) -> bool:
    """Whether a recording tape follows ``t`` (or, a trainable Variable, would on its use):
    a gradient could flow to it, so a NumPy copy of it would silently drop one."""
    return any(tape.records and (tape.follows(t) or tape.watches_on_use(t)) for tape in TAPES.get())


def differentiated(t) -> bool:
    """``followed(t)``, or ``t`` is a dialect's tensor that requires grad."""
    return bool(getattr(t, "requires_grad", False)) or followed(t)


def listeners() -> list:
    """The listeners on the stack: the engine calls their hooks."""
    tapes = TAPES.get()
    return [t for t in tapes if not t.records] if tapes else []


def recording() -> bool:
    """True while some tape is recording (so rules must run on Tensors)."""
    for t in TAPES.get():
        if t.records:
            return True
    return False


def pass_memo():
    """A dict that lives as long as the backward pass now running (None outside one):
    where one op's rules leave work for each other (``solve``'s two rules, one solve)."""
    return MEMO.get()


def level() -> int:
    """The order of the backward pass now running (0: none, 1: a first-order pass ...)."""
    return LEVEL.get()


class Listener:
    """What watches the engine instead of recording: a trace, or custom_gradient's
    variable watcher. It sits on the tape stack; the engine calls these hooks, which
    do nothing here. Ops reach ``on_op`` only while a listener or tape is active.

    ``entry``, in the backward hooks, is one recorded op: ``(prim, args, vals, out,
    params)``, with ``out`` a tuple for an op with several outputs (a custom function).
    """

    records = False  # a tape records; a listener only hears

    def on_op(self, prim, args: tuple, vals: tuple, out, params: dict) -> None:
        """A differentiable op ran: ``out = prim(*args, **params)``; ``vals`` are the
        arguments' raw values when it ran."""

    def on_custom_op(self, prim, inputs: Sequence, vals: tuple, ys: Sequence, outs: tuple,
                     params: dict) -> None:
        """A custom-gradient function's outputs ``outs`` (its body's ``ys``) became one op
        over ``inputs``."""

    def on_function_enter(self, name: str, inputs: Sequence, names: Sequence[str]) -> None:
        """A custom-gradient function starts (its ops follow, until ``on_function_exit``)."""

    def on_function_exit(self, name: str, outputs: tuple | None) -> None:
        """It ended, giving ``outputs`` (None: it raised)."""

    def on_composite_enter(self, op: Any, inputs: tuple, labels: tuple) -> None:
        """An op made of other ops starts (``op``: a ``primitive.Composite``) on the Tensors
        ``inputs``, whose local derivatives read ``labels``; the ops it is made of follow,
        until ``on_composite_exit``."""

    def on_composite_exit(self, op: Any, outputs: tuple | None) -> None:
        """It ended, giving ``outputs`` (None: it raised)."""

    def on_call(self, fn: Any, args: Sequence, kwargs: dict) -> None:
        """A transform (``gm.grad``, ``jax.grad``, ``gm.jvp`` ...) calls the user's ``fn``
        on ``args``: values their code knows by ``fn``'s parameter names."""

    def on_backward_step(self, entry: tuple, g, downs: list, level: int) -> None:
        """One op differentiated: upstream ``g``, downstream ``downs[i]`` per argument."""

    def on_backward_sum(self, tensor, before, added, level: int) -> None:
        """A value used several times: its gradients ``before`` and ``added`` are summed."""

    def on_unbroadcast(self, tensor, before, after, level: int) -> None:
        """A gradient summed over broadcast axes, from ``before`` to ``after``."""

    def on_backward_error(self, entry: tuple, g, error: Exception, level: int) -> None:
        """A custom gradient's ``grad_fn`` raised ``error`` (it propagates after this)."""

    def on_gradient_end(self, seen: Any, targets: list, sources: list, grads: list,
                        level: int) -> None:
        """``tape.gradient`` finished: ``grads``, one per source, None where unconnected.
        ``seen`` is a read-only view of what the tape had recorded (``tape.TapeView``)."""

    def on_tangent_step(self, step: Any) -> None:
        """Forward mode: one op's output tangents, from its input tangents
        (``step``: a ``forward.TangentStep``)."""


def calling(fn: Any, args: Sequence, kwargs: dict | None = None) -> None:
    """Tell the listeners that a transform calls the user's ``fn`` on ``args``."""
    tapes = TAPES.get()
    if tapes:
        for t in tapes:
            if not t.records:
                t.on_call(fn, args, kwargs or {})


class paused:
    """A context in which no tape records and no listener hears: the stack is empty."""

    def __enter__(self):
        self.token = TAPES.set(())

    def __exit__(self, *exc):
        TAPES.reset(self.token)
        return False


class unheard:
    """A context in which tapes record as before but no listener hears: a dialect's own
    inner computation, which a trace shows as the one op it belongs to."""

    def __enter__(self):
        self.token = TAPES.set(tuple(t for t in TAPES.get() if t.records))

    def __exit__(self, *exc):
        TAPES.reset(self.token)
        return False


class without:
    """A context in which one tape records nothing (``tape.stop_recording()``)."""

    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        self.was = TAPES.get()
        TAPES.set(tuple(t for t in self.was if t is not self.tape))

    def __exit__(self, *exc):
        if self.tape in self.was:  # back in its place, whatever was entered meanwhile
            now = TAPES.get()
            TAPES.set(tuple(t for t in self.was if t is self.tape or t in now)
                      + tuple(t for t in now if t not in self.was))
        return False


class at_level:
    """A context in which ops belong to the backward pass of order ``n``."""

    def __init__(self, n: int):
        self.n = n

    def __enter__(self):
        self.token = LEVEL.set(self.n)

    def __exit__(self, *exc):
        LEVEL.reset(self.token)
        return False
