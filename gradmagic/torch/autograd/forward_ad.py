"""``torch.autograd.forward_ad``: dual tensors, forward-mode AD on gradmagic's engine.

``dual_level()`` puts a forward-mode accumulator (``core.forward.Accumulator``) on the
stack: while it is there, each op on a tensor that has a tangent gives its output one as
the op runs (the JVP of every rule of the table, from its VJP). ``make_dual(tensor,
tangent)`` is a view of ``tensor`` that has ``tangent``; ``unpack_dual(t)`` gives back a
view of its primal, without the tangent, and the tangent. A ``Function``'s outputs get
the tangents its ``jvp`` gives (``function_tangents``), as PyTorch's. Leaving the level
drops every tangent. One level at a time, as in PyTorch.
"""

from __future__ import annotations

import functools
from collections import namedtuple

from ..._backend import xp_of
from ...core.context import TAPES, listeners, paused
from ...core.forward import Accumulator, TangentStep
from ..graph import Tensor, as_tensor_of
from ..modes import DUAL

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual",
           "dual_level"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])
ZERO_DERIVATIVE = {"sign", "power"}  # (a power's only where its exponent is the number 0)


class DualLevel(Accumulator):
    """The accumulator of the dual level: the tangents of the tensors made while it is active.
    Where the engine's rule gives none because the derivative is 0 everywhere (``sign``, a
    power of 0), PyTorch's tangent is zeros: so is this one."""

    def on_op(self, prim, args, vals, out, params):
        Accumulator.on_op(self, prim, args, vals, out, params)
        if prim.name in ZERO_DERIVATIVE and self.tangent(out) is None and out.dtype.kind == "f" \
                and any(self.tangent(a) is not None for a in args):
            self.set_tangent(out, as_tensor_of(xp_of(out.value).zeros_like(out.value), out))

    def carry(self, new, t):
        """``t`` was changed in place to ``new``'s value: ``new``'s tangent is its now (zeros
        where ``new`` has none and ``t`` had one: ``zero_()``, ``fill_``, a constant copied)."""
        tangent = self.tangent(new)
        if tangent is not None:
            self.set_tangent(t, tangent)
        else:
            old = self.tangent(t)
            if old is not None:
                self.set_tangent(t, as_tensor_of(old.value * 0, old))


class unheard_by:
    """A context in which ``level`` hears no op (a Function's forward, which sees primals)."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        self.token = TAPES.set(tuple(t for t in TAPES.get() if t is not self.level))

    def __exit__(self, *exc):
        TAPES.reset(self.token)
        return False


def enter_dual_level():
    """Enter the dual level (``dual_level`` is the context for it); returns it, 0."""
    if DUAL[0] is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    level = DualLevel()
    level.__enter__()
    DUAL[0] = level
    return 0


def exit_dual_level(*, level=None):
    """Leave the dual level: every tangent made in it is dropped."""
    current = DUAL[0]
    if current is None or level not in (None, 0):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    current.__exit__(None, None, None)
    current.forget()
    DUAL[0] = None


class dual_level:  # noqa: N801  (PyTorch's name)
    """``with fwAD.dual_level():`` (or ``@fwAD.dual_level()``): forward AD inside."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def run(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return run


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` whose tangent is ``tangent`` (itself where it is laid out as
    ``tensor``; else a copy that is, as PyTorch's)."""
    current = DUAL[0]
    if current is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make "
                           "sure to enter_dual_level() first.")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            raise TypeError(f"_make_dual(): argument '{name}' must be Tensor, not {type(t).__name__}")
        if t.dtype.kind not in "fc":
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{t.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original "
            f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
            f"forward gradient is of size {list(tangent.shape)}.")
    if current.tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           "gradient at the same level 0 is not supported.")
    with paused():  # (a view that no trace shows as an op of the user's)
        dual = tensor.view_as(tensor)
        if getattr(tangent.value, "strides", None) != getattr(tensor.value, "strides", None):
            tangent = as_tensor_of(tangent.value.copy(), tangent)
    current.set_tangent(dual, tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)``: a view of ``tensor`` without its tangent, and the tangent
    (None where it has none, or outside the dual level)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    current = DUAL[0]
    tangent = None if current is None else current.tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    with paused():
        primal = tensor.view_as(tensor)
    return UnpackedDualTensor(primal, as_tensor_of(tangent, tensor))


def function_tangents(call, outputs):
    """Forward AD through one ``Function.apply`` (``call``) whose inputs have tangents at
    the dual level: its outputs get the tangents its ``jvp`` gives, one per output (``ctx``
    holding what ``forward`` saved with ``save_for_forward``), checked as PyTorch checks
    them; a trace shows the step as one row, with ``jvp``'s numbers."""
    current, cls, ctx, args = DUAL[0], call.cls, call.ctx, call.args
    tangents_in = []
    for a in args:
        t = current.tangent(a) if isinstance(a, Tensor) else None
        if t is None and isinstance(a, Tensor) and ctx.materialize_grads:
            t = as_tensor_of(a.value * 0, a)
        tangents_in.append(t if t is None else as_tensor_of(t, a))
    ctx.in_jvp = True
    try:
        with unheard_by(current):
            result = cls.jvp(ctx, *tangents_in)
    finally:
        ctx.in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    if len(result) != len(outs):
        raise RuntimeError(f"Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(result)})")
    tangents_out = []
    for o, t in zip(outs, result):
        if isinstance(o, Tensor) and t is not None and id(o) not in ctx.non_differentiable:
            if tuple(t.shape) != tuple(o.shape):
                raise RuntimeError(
                    "Trying to set a forward gradient that has a different size than that of the "
                    f"original Tensor, this is not supported. Tensor is of size {list(o.shape)} "
                    f"while the given forward gradient is of size {list(t.shape)}.")
            current.set_tangent(o, t)
            tangents_out.append(t)
        else:
            tangents_out.append(None)
    hooks = listeners()
    if hooks:
        entry = (cls.prim, tuple(args), tuple(getattr(a, "value", a) for a in args),
                 tuple(o for o in outs if isinstance(o, Tensor)), {"call": call})
        step = TangentStep(entry, tuple(tangents_in), tuple(tangents_out), (), None)
        for h in hooks:
            h.on_tangent_step(step)
