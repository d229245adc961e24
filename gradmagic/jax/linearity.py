"""Whether a ``custom_jvp`` rule is linear in its tangents, checked without calling it again.

Reverse mode transposes the user's JVP rule: it runs once, on zero tangents a tape watches,
and the tape's gradient is the cotangent. That is right only for a rule linear in its
tangents, so the check compares ``<g, rule(v)>`` with ``<rule transposed(g), v>`` for a random
``v``, and wants ``rule(0) == 0``. ``rule(v)`` comes from replaying the ops the rule ran on
its tangents (``debug.body.Body.replay``, in float64) at ``v``: the user's code runs once, as
in JAX (a ``print`` in it prints once). Where the ops cannot be replayed (the rule called
another custom function, or an op with several outputs) or may branch on the tangents (an
op on them read a tensor that no op the listener heard made: a comparison's mask, a cast of
it, a ``stop_gradient``, a constant made inside the rule), the rule is called again, so no
rule that is not linear escapes the check.
"""

from __future__ import annotations

import numpy as np

from ..core.context import Listener, paused, push, remove
from ..core.tensor import Tensor
from ..debug.body import Body
from ..debug.notes import host64
from ..debug.snapshot import Snapshot, quietly
from ..errors import GradientValueError


class RuleOps(Listener):
    """Hears the ops a rule runs on its tangents, and on what it computes from them (the
    ones a tape watching the tangents records): ``entries``, as a tape keeps them. It also
    follows what the rule computes from ``known`` values alone (its primals), so that it
    can tell when an op on the tangents reads a tensor no op it heard made: one a comparison,
    a cast of its bools or a ``stop_gradient`` made, which may have come from the tangents
    (``t > 0``) and which a replay would keep as the zero tangents gave it."""

    def __init__(self, tangents, known):
        self.ids, self.entries = {id(t) for t in tangents}, []
        self.known = {id(k) for k in known if isinstance(k, Tensor)}
        self.unheard = False  # an op on the tangents read a tensor made by an op not heard

    def on_op(self, prim, args, vals, out, params):
        tensors = [a for a in args if isinstance(a, Tensor)]
        if any(id(a) in self.ids for a in tensors):
            if any(id(a) not in self.ids and id(a) not in self.known for a in tensors):
                self.unheard = True
            self.entries.append((prim, args, vals, out, params))
            self.ids.add(id(out))
        elif all(id(a) in self.known for a in tensors):
            self.known.add(id(out))

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        if any(id(a) in self.ids for a in inputs):  # a custom function's: not replayed
            self.entries.append((prim, tuple(inputs), vals, tuple(outs), params))
            self.ids.update(id(o) for o in outs)


def run_heard(run, tangents, known):
    """``(run(), the RuleOps that heard it)``: the ops it ran on ``tangents``, ``known`` its
    primals."""
    heard = RuleOps(tangents, known)
    push(heard)
    try:
        return run(), heard
    finally:
        remove(heard)


def _again(rerun, vs, rule, args):
    """``rerun(vs)``, on a snapshot of what the rule can reach (put back after) and with its
    prints, warnings and logging muted, so that the user sees the rule run once, as in JAX;
    a rule that reaches outside the process (a file written) runs as it is."""
    with Snapshot((rule,), args) as snapshot:
        if snapshot.unsafe:
            with paused():
                return rerun(vs)
        out = quietly(rerun, vs)
    if isinstance(out, Exception):
        raise out
    return out


def check_linear(heard, tangents, touts, seeds, cts, rerun, name, rule, reach):
    """Refuse custom_jvp ``name``'s JVP rule ``rule`` where it is not linear in its tangents.

    ``tangents``: the floating zero tangents it ran on, whose ops ``heard`` kept; ``touts``:
    its tangent outputs; ``seeds``: the cotangents of those; ``cts``: the gradient for each of
    ``tangents`` (the transposed rule); ``rerun(vs)``: the rule's tangent outputs at tangents
    ``vs``, by calling it again (only where a replay cannot give them); ``reach``: the rule
    and its arguments, whose state a call again puts back."""
    rng = np.random.default_rng(0)
    vs = [rng.standard_normal(np.shape(t)).astype(t.dtype) for t in tangents]
    outs = None if heard.unheard else Body(heard.entries, tangents, touts).outputs(vs)
    if outs is None:
        outs = [host64(t) for t in _again(rerun, vs, *reach)]
    lhs = sum(float(np.sum(host64(s) * o)) for s, o in zip(seeds, outs))
    rhs = sum(float(np.sum(host64(c) * host64(v))) for c, v in zip(cts, vs))
    offset = max((float(np.max(np.abs(host64(t)))) for t in touts if np.size(host64(t))),
                 default=0.0)
    tol = 1e-3 if any(np.dtype(getattr(t, "dtype", float)) == np.float32 for t in touts) else 1e-9
    if offset > 0 or abs(lhs - rhs) > tol * max(1.0, abs(lhs), abs(rhs)):
        why = (f"with zero tangents its tangent output reaches {offset:.4g}" if offset else
               "along a random tangent its output is not the linear map it transposes to")
        raise GradientValueError(
            f"custom_jvp({name}): the JVP rule {rule} is not linear in its tangents ({why}), "
            "so it cannot be transposed for reverse mode (jax.grad): write tangent_out as a "
            "linear function of the tangents, e.g. jnp.cos(x) * x_dot")
