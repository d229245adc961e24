"""Forward mode: each op's output tangents, computed as the op runs, from the reverse-mode rules.

An op ``y = f(x)`` with input tangent ``t`` needs ``J t``. Its rule gives ``g(u) = Jᵀ u`` for
any upstream ``u``; ``g`` is linear in ``u``, and the gradient of ``<g(u), t>`` with respect
to ``u`` is ``J t``. So an op's Jacobian-vector product is the VJP of its VJP with respect to
the cotangent (the double-VJP trick): run the op's rule on a placeholder upstream ``u`` (ones)
while a tape watches ``u``, then take that tape's gradient with respect to ``u``, weighted by
``t``. Every rule of the table and every custom gradient gives forward mode this way, with no
second rule table: a ``grad_fn`` is transposed through the ops it ran, and a ``grad_fn`` that
is itself a custom-gradient function through its own ``grad_grad_fn`` (which is what
TensorFlow's documentation means by ``grad_grad_fn`` being "used to generate forward-mode
gradient graphs from backward-mode gradient graphs"). A rule whose result does not depend on
its upstream (a ``grad_fn`` that ignores it or computes on ``.numpy()`` copies, a
``grad_grad_fn`` that ignores ``ddy``) has nothing to transpose: forward mode says so, rather
than give a wrong tangent.

``Accumulator`` sits on the tape stack while code runs and gives each op's outputs their
tangents as the op runs: it keeps the tangents of live values, not a tape. Like a tape, it
makes backward passes run their rules on Tensors, so a gradient taken inside has a tangent too
(forward-over-reverse Hessian-vector products). Its own work is seen only by the tapes and
accumulators entered before it (strict nesting, as TensorFlow's): an outer tape differentiates
a tangent; an outer accumulator takes tangents of tangents. ``jvp(f, primals, tangents)`` is
the functional form; ``ForwardAccumulator`` is TensorFlow's class.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, NamedTuple

import numpy as np

from .._backend import common_xp, kind, numpy_dtype, xp_of
from ..errors import GradientTypeError, GradientValueError, TapeReentryError
from . import ops
from .backward import backward, ones
from .context import TAPES, Listener, calling, listeners, push, remove
from .nest import flatten
from .tape import GradientTape
from .tensor import Tensor, Variable, constant, to_array


class TangentStep(NamedTuple):
    """One op of a forward-mode pass, as listeners hear it (``Listener.on_tangent_step``)."""

    entry: tuple  # (prim, args, vals, out, params), as a tape records the op
    tangents_in: tuple  # one per argument (None: it has none)
    tangents_out: tuple  # one per output (None: not connected)
    nested: tuple  # the custom calls (decorated grad_fns) whose grad_grad_fn gave them
    discarded: tuple | None  # the rule's tangents, where TensorFlow kept the body's instead


class _Heard(Listener):
    """Hears an op's double VJP: whether its first half ran a custom-gradient function (a
    decorated grad_fn); then the second half runs recorded on ``check``, a tape that watches
    the tangents, and each grad_grad_fn it calls must give a result that depends on its ddy.
    ``calls``: the decorated grad_fns whose grad_grad_fn gave the tangents."""

    def __init__(self):
        self.calls, self.nested, self.check = [], False, None

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        self.nested = True

    def on_backward_step(self, entry, g, downs, level):
        if not entry[0].joint:
            return
        call = entry[4]["call"]
        self.calls.append(call)
        for k, d in enumerate(downs if self.check is not None else ()):
            if d is not None and not self.check.follows(d) and _nonzero(d):
                raise GradientValueError(
                    f"forward mode through {call.name}: it is a custom-gradient function whose "
                    f"grad_grad_fn returned a gradient for {call.where(k)} that does not depend on "
                    "its upstream ddy (here the tangent), so it has no tangent to give: grad_grad_fn "
                    "must be linear in ddy and compute with the Tensors it is given (return ddy * "
                    "(local derivative))")


def _nonzero(value) -> bool:
    v = value.value if isinstance(value, Tensor) else value
    return bool(xp_of(v).any(v != 0))


def _cut(entry, k) -> GradientValueError:
    """The error for a rule whose gradient for argument ``k`` ignores its upstream."""
    prim, args, vals, out, params = entry
    call = params.get("call") if prim.joint else None
    if call is None:
        return GradientValueError(
            f"forward mode through {prim.name}: its gradient rule for argument {k} does not "
            "depend on the upstream gradient, so it has no transpose (a bug in gradmagic's rule)")
    w = call.words
    return GradientValueError(
        f"forward mode through {call.name}: its {w['grad_fn']} returned a gradient for "
        f"{call.where(k)} that does not depend on its {w['upstream']}, so forward mode (which "
        f"differentiates {w['grad_fn']} with respect to its {w['upstream']}) has no tangent to "
        f"give. {w['grad_fn']} must be linear in its {w['upstream']} and compute with the "
        f"Tensors it is given (no .numpy() copies): return {w['upstream']} * (local derivative), "
        f"e.g. `{w['example']}`")


def op_tangents(entry: tuple, tangents: dict, strict: bool = True) -> tuple[tuple, tuple]:
    """The tangents of one recorded op's outputs (None where not connected), given
    ``tangents`` ({id(argument): tangent}), by the double VJP; and the custom calls whose
    ``grad_grad_fn`` gave them. Run it with only the tapes that may see the work on the stack.
    ``strict``: a rule that ignores its upstream raises (else that argument is left out)."""
    prim, args, vals, out, params = entry
    outs = out if type(out) is tuple else (out,)
    name = params["call"].name if prim.joint else prim.name
    for o in outs:
        if kind(o.dtype) == "c":
            raise GradientTypeError(
                f"forward mode through {name}: it made a complex value ({o.dtype}) from inputs "
                "that have tangents; gradmagic's forward mode follows real floating values only "
                "(carry the real and imaginary parts as two real values)")
    us = [Tensor(ones(o.value)) if kind(o.dtype) == "f" else None for o in outs]
    live = [u for u in us if u is not None]
    if not live:
        return (None,) * len(outs), ()
    ids = {id(a) for a in args if id(a) in tangents}
    transpose, heard = GradientTape(), _Heard()
    push(heard)
    try:
        with transpose:  # g(u) = Jᵀu, recorded where it depends on u
            transpose.watch(live)
            grads = backward([entry], ids, {id(o): u for o, u in zip(outs, us) if u is not None}, ids, True)
    finally:
        remove(heard)
    targets, weights = [], []
    for k, a in enumerate(args):
        g = grads.pop(id(a), None)  # popped: an argument given twice (x * x) counts once
        if g is None:
            continue
        if not transpose.follows(g):
            if strict and _nonzero(g):
                raise _cut(entry, k)
            continue  # zero for every upstream: it adds nothing
        targets.append(g)
        weights.append(tangents[id(a)])
    if not targets:
        return (None,) * len(outs), ()
    if heard.nested and strict:
        heard.check = GradientTape()
        heard.check.watch(weights)
        push(heard.check)
    push(heard)
    try:  # J t = d<g(u), t>/du
        found = iter(transpose.gradient(targets, live, output_gradients=weights))
    finally:
        remove(heard)
        if heard.check is not None:
            remove(heard.check)
    return tuple(None if u is None else next(found) for u in us), tuple(heard.calls)


# -- primals and tangents, checked in pairs --------------------------------------------------------
def _skeleton(tree) -> str:
    """A nest's structure with ``*`` for each leaf: ``(*, [*, *])``, ``{'a': *}``."""
    if isinstance(tree, dict):
        keys = sorted(tree, key=repr)
        return "{" + ", ".join(f"{k!r}: {_skeleton(tree[k])}" for k in keys) + "}"
    if isinstance(tree, (list, tuple)):
        inner = ", ".join(_skeleton(v) for v in tree)
        return f"[{inner}]" if isinstance(tree, list) else f"({inner}{',' if len(tree) == 1 else ''})"
    return "*"


def checked_pairs(primals, tangents, fn: str, convert: bool = False) -> tuple[list, list, Callable]:
    """The leaves of ``primals`` (Tensors) and of ``tangents`` (Tensors of each primal's
    shape, dtype and module), and a function that rebuilds ``primals``' structure. Errors
    name ``fn``, the leaf, what was expected and what was got. ``convert``: arrays and
    numbers are welcome as primals (they become Tensors of their own dtype)."""
    if _skeleton(primals) != _skeleton(tangents):
        raise GradientValueError(
            f"{fn}: tangents must have the structure of primals: expected {_skeleton(primals)}, "
            f"got {_skeleton(tangents)}")
    ps, names, rebuild = flatten(primals, "primals")
    ts = flatten(tangents)[0]
    out_p, out_t = [], []
    for p, t, name in zip(ps, ts, names):
        tname = "tangents" + name[len("primals"):]
        if not isinstance(p, Tensor):
            numeric = hasattr(p, "dtype") or (isinstance(p, (int, float)) and not isinstance(p, bool))
            if not (convert and numeric):
                raise GradientTypeError(
                    f"{fn}: {name} must be a Tensor or Variable, got {type(p).__name__} {p!r:.60}"
                    + ("; wrap it with constant(...)" if numeric else ""))
            p = _primal(p)
        if kind(p.dtype) != "f":
            raise GradientTypeError(
                f"{fn}: {name} has dtype {p.dtype}; forward mode needs real floating primals "
                f"(pass x.astype(float), or leave integer values out of {fn.partition('(')[0]})")
        out_p.append(p)
        out_t.append(_tangent(t, p, fn, name, tname))
    return out_p, out_t, rebuild


def _primal(p) -> Tensor:
    """A Tensor for an array or number given as a primal: a Python float is float64; a host
    array lands on the backend (as ``gm.grad``'s arguments do), a device array stays."""
    if hasattr(p, "shape") and xp_of(p) is not np:
        return Tensor(p)
    return constant(p, dtype="float64" if isinstance(p, float) else getattr(p, "dtype", None))


def _tangent(t, p, fn, name, tname) -> Tensor:
    xp = xp_of(p.value)
    if isinstance(t, (int, float)) and not isinstance(t, bool) and not p.shape:
        t = xp.asarray(t, dtype=p.dtype)  # a number for a scalar primal
    v = t.value if isinstance(t, Tensor) else t
    if not hasattr(v, "shape") or not hasattr(v, "dtype"):
        raise GradientTypeError(f"{fn}: {tname} must be an array or Tensor like {name} (shape "
                                f"{p.shape}, dtype {numpy_dtype(p.dtype)}), got {type(t).__name__} {t!r:.60}")
    if tuple(v.shape) != p.shape:
        raise GradientValueError(f"{fn}: {tname} has shape {tuple(v.shape)}, expected {p.shape} "
                                 f"(the shape of {name})")
    if numpy_dtype(v.dtype) != numpy_dtype(p.dtype):
        raise GradientValueError(f"{fn}: {tname} has dtype {numpy_dtype(v.dtype)}, expected "
                                 f"{numpy_dtype(p.dtype)} (the dtype of {name}); cast it with .astype(...)")
    if not isinstance(t, Tensor) and xp_of(v) is np and xp is not np:
        v = to_array(v, None, fn, tname, module=xp)  # a host tangent goes where its primal is
    common_xp((p.value, v))  # the primal's module, or a BackendError naming both
    return t if isinstance(t, Tensor) else Tensor(v)


def _unconnected(how, fn):
    how = getattr(how, "value", how)
    if how not in ("none", "zero"):
        raise GradientValueError(f"{fn}: unconnected_gradients must be 'none' or 'zero', got {how!r}")
    return how


# -- the accumulator ----------------------------------------------------------------------------
class Accumulator:
    """Forward mode while a ``with`` block runs: each op on a value that has a tangent
    gives its outputs theirs at once (see the module's docstring). ``watch(primals,
    tangents)`` seeds it; ``jvp(values)`` reads the tangents back.

    A custom-gradient function's outputs get the tangent its ``grad_fn`` gives (so that
    forward mode agrees with reverse mode, which uses ``grad_fn`` too); ``body_first``
    (TensorFlow's choice) keeps the tangent of the body's own ops where it has one.
    """

    records = True  # backward passes run their rules on Tensors while it is there
    body_first = False

    def __init__(self):
        self._tangents = {}  # id(value) -> its tangent (a Tensor)
        self._alive = {}  # id(value) -> a weak reference that forgets the tangent with the value

    @property
    def _fn(self):
        return type(self).__name__

    def __enter__(self):
        if self in TAPES.get():
            raise TapeReentryError(f"{self._fn}.__enter__: this accumulator is already active; "
                                   "it cannot be re-entered (use one `with` block, or a new one)")
        push(self)
        return self

    def __exit__(self, *exc):
        remove(self)
        return False

    # -- tangents --------------------------------------------------------------------------------
    def set_tangent(self, value, tangent) -> None:
        """Give ``value`` (a Tensor) the tangent ``tangent`` (a Tensor of its shape), kept while
        ``value`` lives: what each op's step does, and the seam for a dialect's own forward
        rule (a JAX ``custom_jvp``)."""
        key = id(value)

        def forget(ref, key=key, alive=self._alive, tangents=self._tangents):
            if alive.get(key) is ref:
                del alive[key]
                tangents.pop(key, None)
        self._tangents[key] = tangent
        self._alive[key] = weakref.ref(value, forget)

    def forget(self) -> None:
        """Drop every tangent (a dialect's dual level left)."""
        self._tangents.clear()
        self._alive.clear()

    def watch(self, primals, tangents) -> None:
        """Give ``primals`` (a Tensor or Variable, or a nest of them) the ``tangents`` (a
        nest of the same structure, each of its primal's shape and dtype). A primal that
        already has a tangent gets the sum, as in TensorFlow."""
        self._watch(primals, tangents, f"{self._fn}.watch")

    def _watch(self, primals, tangents, fn):
        ps, ts, _ = checked_pairs(primals, tangents, fn)
        seen = set()
        for p in ps:
            if id(p) in seen:
                raise GradientValueError(
                    f"{fn}: a Tensor was given as a primal twice ({p!r:.80}); if that was meant, "
                    "give it once, with the sum of its tangents")
            seen.add(id(p))
        self.start(ps, ts)

    def start(self, primals: list, tangents: list) -> None:
        """``watch``, for primals and tangents already checked (``checked_pairs``)."""
        for p, t in zip(primals, tangents):
            old = self._tangents.get(id(p))
            if old is not None:
                token = TAPES.set(self._outer())
                try:
                    t = ops.add(old, t)
                finally:
                    TAPES.reset(token)
            self.set_tangent(p, t)

    def tangent(self, value):
        """The tangent of ``value`` (None: it has none)."""
        return self._tangents.get(id(value)) if isinstance(value, Tensor) else None

    def jvp(self, primals, unconnected_gradients: Any = "none"):
        """The tangents of ``primals`` (a Tensor or a nest of them), in their structure:
        computed as they were made, looked up now. A value that does not depend on a
        watched primal (or was made outside the ``with`` block) gives None, or zeros with
        ``unconnected_gradients="zero"``."""
        how = _unconnected(unconnected_gradients, f"{self._fn}.jvp")
        leaves, _, rebuild = flatten(primals, ordered=False)
        out = []
        for v in leaves:
            if not isinstance(v, Tensor):
                raise GradientTypeError(f"{self._fn}.jvp(primals): expected a Tensor (or a list, "
                                        f"tuple or dict of them), got {type(v).__name__} {v!r:.60}")
            t = self.tangent(v)
            if t is None and how == "zero":
                t = Tensor(xp_of(v.value).zeros(v.value.shape, dtype=v.dtype))
            out.append(t)
        return rebuild(out)

    # -- engine hooks ------------------------------------------------------------------------------
    def follows(self, tensor) -> bool:
        """Whether ``tensor`` has a tangent (so it may not become a plain NumPy array)."""
        return id(tensor) in self._tangents

    def watches_on_use(self, tensor) -> bool:
        """Never: a value gets a tangent only from ``watch`` or an op on one that has one."""
        return False

    def watched_variables(self) -> tuple:
        return tuple(v for v in (r() for r in self._alive.values()) if isinstance(v, Variable))

    def _outer(self) -> tuple:
        """The tapes and accumulators entered before this one: they alone see its work."""
        before = []
        for t in TAPES.get():
            if t is self:
                break
            if t.records:
                before.append(t)
        return tuple(before)

    def on_op(self, prim, args, vals, out, params):
        tangents = self._tangents
        for a in args:
            if id(a) in tangents:
                break
        else:
            return
        self._through((prim, args, vals, out, params), (out,), (None,))

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        tangents = self._tangents
        body = tuple(tangents.get(id(y)) for y in ys)
        call = params["call"]
        if any(id(a) in tangents for a in inputs) and not call.body_tangents:
            entry = (prim, tuple(inputs), vals, outs, params)
            if not self._own_rule(call, entry):
                self._through(entry, outs, body)
            return
        for o, t in zip(outs, body):  # outs are the body's values, with its tangents
            if t is not None:
                self.set_tangent(o, t)

    def _own_rule(self, call, entry) -> bool:
        """Give the call's outputs the tangents of the dialect's own forward rule (a JAX
        ``custom_jvp`` rule, run as JAX runs it, for the tapes entered before this
        accumulator alone); False where the call has none."""
        hooks = listeners()
        token = TAPES.set(self._outer())
        try:
            own = call.forward_tangents(lambda a: self._tangents.get(id(a)))
        finally:
            TAPES.reset(token)
        if own is None:
            return False
        for o, t in zip(entry[3], own):
            if t is not None:
                self.set_tangent(o, t)
        if hooks:
            step = TangentStep(entry, tuple(self._tangents.get(id(a)) for a in entry[1]), tuple(own), (), None)
            for h in hooks:
                h.on_tangent_step(step)
        return True

    def _through(self, entry, outs, body):
        """Give ``outs`` their tangents by the double VJP of ``entry``; tell the listeners."""
        hooks = listeners()
        keep_body = self.body_first and any(t is not None for t in body)
        token = TAPES.set(self._outer())
        try:
            rule, nested = op_tangents(entry, self._tangents,
                                       strict=not (keep_body and all(t is not None for t in body)))
        finally:
            TAPES.reset(token)
        final = tuple(b if b is not None else r for b, r in zip(body, rule)) if keep_body else rule
        for o, t in zip(outs, final):
            if t is not None:
                self.set_tangent(o, t)
        if hooks:
            step = TangentStep(entry, tuple(self._tangents.get(id(a)) for a in entry[1]), final,
                               nested, rule if keep_body else None)
            for h in hooks:
                h.on_tangent_step(step)


class ForwardAccumulator(Accumulator):
    """TensorFlow's ``tf.autodiff.ForwardAccumulator``: Jacobian-vector products by forward
    mode, computed op by op while the context is active.

    >>> x = gm.constant(2.0)
    >>> with ForwardAccumulator(x, gm.constant(1.0)) as acc:
    ...     y = x ** 3
    >>> float(acc.jvp(y))
    12.0

    As TensorFlow: ``jvp`` only looks tangents up (call it inside or after the block); a
    value made outside the block, or not from a watched primal, gives None (zeros with
    ``unconnected_gradients="zero"``); accumulators nest strictly (take higher-order JVPs
    from the outer one); a tape inside the block gives gradients whose tangents ``jvp``
    reads (forward-over-backward Hessian-vector products). For a ``custom_gradient``
    function, TensorFlow keeps the tangent of the body's own ops where the body is
    connected, and uses ``grad_fn`` (a decorated ``grad_fn``'s ``grad_grad_fn``) where it
    is not; ``grad_fn`` is called in both cases.

    Stricter than TensorFlow: a tangent of the wrong shape and an integer primal raise
    (TensorFlow accepts both, and gives no tangent through integer values).
    """

    body_first = True

    def __init__(self, primals, tangents):
        super().__init__()
        self._watch(primals, tangents, "ForwardAccumulator(primals, tangents)")


def accumulators() -> tuple:
    """The accumulators active now, outermost first."""
    return tuple(t for t in TAPES.get() if isinstance(t, Accumulator))


# -- the functional form ------------------------------------------------------------------------
def jvp(f: Callable, primals, tangents) -> tuple:
    """``(f(*primals), J·tangents)``: the value of ``f`` and its Jacobian-vector product, by
    forward mode (the VJP of each op's VJP with respect to its cotangent, so every gradient
    rule and custom gradient applies; see ``gradmagic/core/forward.py``).

    ``primals`` is a tuple (or list) of ``f``'s positional arguments, each an array, a
    number, a Tensor or a nest (list, tuple, dict) of them, with real floating dtypes;
    ``tangents`` has the same structure, each leaf of its primal's shape and dtype (a
    number for a scalar). ``f`` may return a nest; the tangents come in its structure,
    zeros where an output does not depend on the primals. Arrays in give arrays out;
    Tensors in give Tensors, so ``jvp`` nests under tapes and inside another ``jvp``.

    >>> import numpy as np
    >>> y, t = gm.jvp(lambda x: np.sin(x) * x, (np.array([0.0, 1.0]),), (np.array([1.0, 0.0]),))
    >>> y.tolist(), t.tolist()
    ([0.0, 0.8414709848078965], [0.0, 0.0])
    """
    name = getattr(f, "__name__", "f")
    fn = f"jvp({name})"
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, (tuple, list)):
            raise GradientTypeError(
                f"{fn}: {what} must be a tuple or list with one entry per positional argument of "
                f"{name}, got {type(value).__name__}; write jvp({name}, (x,), (t,))")
    given = flatten(list(primals))[0]
    raw = not any(isinstance(p, Tensor) for p in given)
    ps, ts, rebuild = checked_pairs(list(primals), list(tangents), fn, convert=True)
    seen = set()
    for k, p in enumerate(ps):  # one tangent per argument, even where two are one Tensor
        if id(p) in seen:
            ps[k] = ops.identity(p)
        seen.add(id(ps[k]))
    acc = Accumulator()
    with acc:
        acc.start(ps, ts)
        args = rebuild(ps)
        calling(f, args)
        out = f(*args)
    leaves, names, rebuild_out = flatten(out, "output")
    values, tangents_out = [], []
    for v, where in zip(leaves, names):
        if not isinstance(v, Tensor):
            if not (hasattr(v, "shape") or isinstance(v, (bool, int, float))):
                raise GradientTypeError(f"{fn}: {name} must return arrays or Tensors (or a tuple, "
                                        f"list or dict of them), got {type(v).__name__} at {where}")
            v = Tensor(v)
        t = acc.tangent(v)
        if t is None:
            t = Tensor(xp_of(v.value).zeros(v.value.shape, dtype=v.dtype))
        values.append(v.value if raw else v)
        tangents_out.append(t.value if raw else t)
    return rebuild_out(values), rebuild_out(tangents_out)
