"""Which level of differentiation runs a ``custom_vjp``/``custom_jvp`` call's rule, as JAX
decides it.

JAX processes a custom function's call at the innermost transformation that differentiates
its arguments: only that one uses the rule. The ``fwd`` (or the JVP rule's primal code) runs
below it, so every enclosing ``grad``/``jvp`` differentiates that code as plain code, and the
``bwd`` (or the transposed rule) as plain code when it runs in a backward pass they record.
So a surrogate rule (a gradient reversal, a straight-through estimator) acts once, at the
level it belongs to, in ``grad(grad(f))`` as in ``hessian(f)``.

Here the levels are the recording tapes and accumulators on the stack: ``innermost`` finds the
one that takes the call as its op; the body runs with the ones entered before it alone
(listeners kept); ``record`` gives it the call as one op and links the outputs, for the ones
before it, to the values the body computed.
"""

from __future__ import annotations

import contextvars
import inspect

from ..core.context import TAPES, level, listeners
from ..core.custom import CustomGradientFunction, custom_primitive, flatten_args
from ..core.nest import flatten
from ..core.tensor import Tensor

# the level that runs the call's rule now (a tape or an accumulator; None: none
# differentiates its arguments), and the whole stack as it was when the call began
PROCESSOR = contextvars.ContextVar("gradmagic_jax_processor", default=None)
FULL = contextvars.ContextVar("gradmagic_jax_full_stack", default=None)


def innermost(tapes, leaves):
    """The index in ``tapes`` of the last recording tape or accumulator that follows one of
    ``leaves`` (None: none does)."""
    tensors = [a for a in leaves if isinstance(a, Tensor)]
    for k in range(len(tapes) - 1, -1, -1):
        t = tapes[k]
        if t.records and any(t.follows(a) or t.watches_on_use(a) for a in tensors):
            return k
    return None


def _names(signature, n):
    """The names of ``n`` positional arguments under ``signature`` (``args[i]`` past it)."""
    names = []
    params = list(signature.parameters.values()) if signature is not None else []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            names += [f"{p.name}[{k}]" for k in range(n - len(names))]
            break
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and len(names) < n:
            names.append(p.name)
    return names + [f"args[{k}]" for k in range(len(names), n)]


class LeveledFunction(CustomGradientFunction):
    """A custom function whose calls the innermost level that differentiates them takes as
    one op (see the module's docstring); its body returns ``(outputs, gradient function)``."""

    def __init__(self, f):
        super().__init__(f)
        self.prim = custom_primitive(getattr(f, "__name__", "f"), "grad_fn(upstream)")
        try:
            self.signature = inspect.signature(f)
        except (TypeError, ValueError):
            self.signature = None
        self.names = {}  # the argument names of a call of n arguments, found once per n

    def __call__(self, *args):
        tapes = TAPES.get()
        name = self.__name__
        names = self.names.get(len(args))
        if names is None:
            names = self.names[len(args)] = _names(self.signature, len(args))
        inputs, names, unflatten = flatten_args(args, names)
        k = innermost(tapes, inputs)
        hooks = listeners()
        for h in hooks:
            h.on_function_enter(name, inputs, names)
        outs = None
        try:
            below = tuple(t for i, t in enumerate(tapes) if k is None or i < k or not t.records)
            tokens = (TAPES.set(below), PROCESSOR.set(None if k is None else tapes[k]),
                      FULL.set(tapes))
            try:
                y, grad_fn = self.__wrapped__(*args)
            finally:
                FULL.reset(tokens[2])
                PROCESSOR.reset(tokens[1])
                TAPES.reset(tokens[0])
            result, outs = self.record(y, grad_fn, inputs, names, unflatten, tapes, k)
        finally:
            for h in hooks:
                h.on_function_exit(name, outs)
        return result

    def record(self, y, grad_fn, inputs, names, unflatten, tapes, k):
        """The outputs ``y`` of a call as one op over ``inputs`` on level ``k`` (and for the
        listeners); the levels before it see them as the body computed them."""
        if isinstance(y, Tensor):
            ys, rebuild = [y], None
        else:
            leaves, _, rebuild = flatten(y)
            ys = [t if isinstance(t, Tensor) else Tensor(t) for t in leaves]
        if not tapes:
            return y, tuple(ys)
        outs = tuple(Tensor(t.value) for t in ys)
        call = self.call_type(self.__name__, grad_fn, names, inputs, [], self, (), None, level(),
                              unflatten)
        vals = tuple(a.value if isinstance(a, Tensor) else a for a in inputs)
        params = {"call": call}
        for i, t in enumerate(tapes):
            if t.records and k is not None and i < k:
                t.on_custom_op(self.prim, (), (), ys, outs, params)  # linked to the body's
            else:
                t.on_custom_op(self.prim, inputs, vals, ys, outs, params)
        return (outs[0] if rebuild is None else rebuild(list(outs))), outs
