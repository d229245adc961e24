"""The tape: recording ops and walking them backwards.

Invariants:
- A tape's entries are appended in execution order, so walking them backwards visits
  an op only after every op that used its output: a reverse topological order with
  no recursion and no sets of parents.
- An op is recorded on a tape only when one of its inputs is connected to something
  the tape watches; a tape's ``_ids`` holds the ids of those connected tensors.
- Gradients are accumulated in a dict keyed by tensor id (never by tensor) and each
  is dropped as soon as it has been passed on.
- With no other tape recording, rules run on raw arrays; when one records, they run
  on Tensors and are recorded in turn: that is how higher order works.
- Broadcasting is undone here, once, after each rule (``unbroadcast``).
"""

import contextvars
import warnings

import numpy as np

from ._backend import _SCALARS, _XP, common_xp, kind, numpy_names, xp_of
from .errors import GradientTypeError, GradientValueError, TapeError
from .tensor import Tensor, Variable

_TAPES = contextvars.ContextVar("gradmagic_tapes", default=())  # tapes and listeners
_LEVEL = contextvars.ContextVar("gradmagic_level", default=0)  # the backward pass running
_new = object.__new__


def push(obj):
    """Put a tape or listener on this thread's (and task's) stack."""
    _TAPES.set(_TAPES.get() + (obj,))


def remove(obj):
    """Take a tape or listener off the stack, wherever it is."""
    stack = _TAPES.get()
    _TAPES.set(stack[:-1] if stack and stack[-1] is obj else tuple(t for t in stack if t is not obj))


def listeners():
    """The listeners on the stack: the engine calls their hooks."""
    stack = _TAPES.get()
    return [t for t in stack if not t._records] if stack else []


def level():
    """The order of the backward pass now running (0: none, 1: a first-order pass ...)."""
    return _LEVEL.get()


class Listener:
    """What watches the engine instead of recording: a trace, or custom_gradient's
    variable watcher. It sits on the tape stack; the engine calls these hooks, which
    do nothing here. Ops reach ``_record`` only while a listener or tape is active."""

    _records = False

    def _record(self, prim, args, vals, out, params):
        """A differentiable op ran: ``out = prim(*args, **params)``."""

    def _record_custom(self, prim, inputs, vals, ys, outs, params):
        """A custom-gradient function's outputs became one op over ``inputs``."""

    def _function_enter(self, name, inputs, names):
        """A custom-gradient function starts (its ops follow, until ``_function_exit``)."""

    def _function_exit(self, name, outputs):
        """It ended, giving ``outputs``."""

    def _backward_step(self, entry, g, downs, level):
        """One op differentiated: upstream ``g``, downstream ``downs[i]`` per argument."""

    def _backward_sum(self, tensor, before, added, level):
        """A value used several times: its gradients ``before`` and ``added`` are summed."""

    def _backward_unbroadcast(self, tensor, before, after, level):
        """A gradient summed over broadcast axes, from ``before`` to ``after``."""

    def _backward_error(self, entry, g, error, level):
        """A custom gradient's ``grad_fn`` raised ``error`` (it propagates after this)."""

    def _backward_end(self, tape, targets, sources, grads, level):
        """``tape.gradient`` finished (the tape still holds its entries): ``grads``, one
        per source, None where unconnected."""



class Primitive:
    """One differentiable (or declared non-differentiable) op.

    ``impl(xp)`` gives the forward function for an array module (``np``: the NumPy one);
    ``vjps[i]`` is the vector-Jacobian product for argument ``i`` (``None``: no gradient),
    called as ``vjp(g, ans, *args, **params)``; ``labels[i]`` is how the trace writes it.
    A ``joint`` primitive (a custom gradient) has one ``vjps(g, ans, *args, **params)``
    that returns the gradients of all arguments at once.
    """

    __slots__ = ("name", "forward", "op", "portable", "vjps", "joint", "labels", "differentiable",
                 "elementwise", "np", "_impls")

    def __init__(self, name, forward=None, differentiable=True, op=None, elementwise=False,
                 portable=None):
        self.name = name
        self.elementwise = elementwise  # its local derivative is an array of x's shape
        self.joint = False  # True: vjps is one function giving every argument's gradient
        self.forward = forward  # forward(xp, *args, **params), or None: xp.<name>
        self.op = op  # or a function that works on every array module (a Python operator)
        self.portable = portable  # a forward for modules that do not mirror NumPy, or None
        self.vjps = None
        self.labels = None
        self.differentiable = differentiable
        self._impls = {}
        self.np = self.impl(np) if forward or op or hasattr(np, name) else None  # looked up once

    def impl(self, xp):
        """The forward function for module ``xp``, found once per module. Forwards are
        written with NumPy's names; a module that does not mirror NumPy (an array-API
        one) is given through ``numpy_names``, which maps them onto its own."""
        f = self._impls.get(xp)
        if f is None:
            ns = numpy_names(xp)
            if self.op is not None:
                f = self.op
            elif self.forward is None:
                f = getattr(ns, self.name)
            else:
                forward = self.portable if ns is not xp and self.portable else self.forward
                def f(*args, **params):
                    return forward(ns, *args, **params)
            self._impls[xp] = f
        return f

    def __repr__(self):
        return f"<Primitive {self.name}>"


def defvjp(prim, *vjps, labels=None):
    """Give ``prim`` its gradient rules: one per argument (``None``: no gradient for that
    argument), or one ``variadic`` rule for ops that take any number of arrays."""
    prim.vjps = vjps[0] if len(vjps) == 1 and isinstance(vjps[0], variadic) else vjps
    prim.labels = labels


class variadic:
    """The rules of an op that takes any number of arrays: ``rule(i, g, ans, *args)``."""

    def __init__(self, rule):
        self.rule = rule

    def __getitem__(self, i):
        rule = self.rule
        return lambda g, ans, *args, **params: rule(i, g, ans, *args, **params)


def apply(prim, *args, **params):
    """Run ``prim``. Raw arrays in, raw array out; any Tensor in, a Tensor out, recorded
    on every active tape that follows one of the inputs."""
    n = len(args)
    if n == 1:  # the common cases spelled out, since this runs once per op
        a = args[0]
        if not isinstance(a, Tensor):
            return prim.impl(common_xp(args))(*args, **params)
        va = a.value
        vals = (va,)
        xp = _XP.get(type(va)) or xp_of(va)
    elif n == 2:
        a, b = args
        va = a.value if isinstance(a, Tensor) else a
        vb = b.value if isinstance(b, Tensor) else b
        if va is a and vb is b:
            return prim.impl(common_xp(args))(*args, **params)
        vals = (va, vb)
        xp, xb = _XP.get(type(va)), _XP.get(type(vb))
        if xp is not xb:  # a Python number goes with any module; anything else is checked
            if xb is None and type(vb) in _SCALARS and xp is not None:
                pass
            elif xp is None and type(va) in _SCALARS and xb is not None:
                xp = xb
            else:
                xp = common_xp(vals)
        elif xp is None:
            xp = common_xp(vals)
    else:
        vals = tuple([b.value if isinstance(b, Tensor) else b for b in args])
        if all(v is b for v, b in zip(vals, args)):
            return prim.impl(common_xp(args))(*args, **params)
        xp = common_xp(vals)
    out = _new(Tensor)
    out.value = (prim.np if xp is np else prim.impl(xp))(*vals, **params)
    tapes = _TAPES.get()
    if tapes and prim.vjps is not None:
        for tape in tapes:
            tape._record(prim, args, vals, out, params)
    return out


def _read_variables(args, vals):
    """``args`` with each Variable replaced by a Tensor of the value it had when the op
    ran, recorded as a read of the variable on the tapes now active."""
    args = list(args)
    for i, b in enumerate(args):
        if type(b) is Variable:
            args[i] = Tensor(vals[i])
            for tape in _TAPES.get():
                tape._record(ops.IDENTITY, (b,), (vals[i],), args[i], {})
    return tuple(args)


def recording():
    """True while some tape is recording (so rules must run on Tensors)."""
    for t in _TAPES.get():
        if t._records:
            return True
    return False


def record_custom(prim, inputs, ys, outs, params):
    """Record a function with its own gradient, as TensorFlow does: on each tape that
    follows one of ``inputs``, ``outs`` come from one ``prim`` op over ``inputs``; on a
    tape that follows none of them, each out is linked to the body's own ``y``, so the
    body's ops still connect it."""
    vals = tuple([a.value if isinstance(a, Tensor) else a for a in inputs])
    for tape in _TAPES.get():
        tape._record_custom(prim, inputs, vals, ys, outs, params)


def unbroadcast(g, shape):
    """Sum ``g`` over the axes that broadcasting added or stretched, so it has ``shape``."""
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        return ops.broadcast_to(g, shape)  # a rule gave less than the full shape
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    return ops.reshape(ops.sum(g, axis=axes, keepdims=True), shape)


def _ones(x):
    if not x.shape and isinstance(x, (np.ndarray, np.generic)):
        return np.array(1, dtype=x.dtype)  # a scalar loss: four times quicker than np.ones
    return xp_of(x).ones(x.shape, dtype=x.dtype)


def backward(entries, ids, seeds, want, record, hooks=(), free=False):
    """Walk ``entries`` backwards from ``seeds`` ({id: gradient}); return {id: gradient}
    for the ids in ``want``. ``record``: run the rules on Tensors so an outer tape
    records them. ``hooks``: listeners told of every step. ``free``: drop each entry
    once walked, so what its op saved is freed as early as the backward pass allows."""
    grads = dict(seeds)
    found = {}
    pop, get = grads.pop, grads.get
    order = _LEVEL.get()
    for k in range(len(entries) - 1, -1, -1):
        entry = entries[k]
        prim, args, vals, out, params = entry
        if free:
            entries[k] = None
        if type(out) is tuple:  # an op with several outputs
            g = _upstreams(grads, out, want, found, record)
            if g is None:
                continue
            ans = out if record or prim.joint else tuple([o.value for o in out])  # a custom rule reads none
        else:
            g = pop(id(out), None)
            if g is None:
                continue
            if want and id(out) in want:
                found[id(out)] = g
            if record:
                if not isinstance(g, Tensor):
                    g = Tensor(g)
                ans = out
            else:
                ans = out.value
        rule_args = vals
        if record:  # rules see Tensors; a Variable as the value it had when the op ran
            rule_args = args
            if any(type(a) is Variable for a in args):
                rule_args = _read_variables(args, vals)
        vjps = prim.vjps
        joint = prim.joint
        if joint:  # one call gives every input's gradient (a custom gradient)
            try:
                vjps = vjps(g, ans, *rule_args, **params)
            except Exception as e:
                for h in hooks:
                    h._backward_error(entry, g, e, order)
                raise
        downs = [None] * len(args) if hooks else None
        for i, a in enumerate(args):
            aid = id(a)
            if aid not in ids:  # ids hold live Tensors only: no number or array matches
                continue
            if joint:
                c = vjps[i]
            else:
                rule = vjps[i]
                if rule is None:
                    continue
                c = rule(g, ans, *rule_args, **params) if params else rule(g, ans, *rule_args)
            if c is None:
                continue
            if c.shape != vals[i].shape:
                c = _unbroadcast_seen(c, vals[i].shape, a, hooks)
            prev = get(aid)
            if prev is None:
                grads[aid] = c
            else:
                grads[aid] = prev + c
                for h in hooks:
                    h._backward_sum(a, prev, c, order)
            if hooks:
                downs[i] = c
        if hooks:
            for h in hooks:
                h._backward_step(entry, g, downs, order)
    for i in want:
        if i not in found and i in grads:
            found[i] = grads[i]
    return found


def _unbroadcast_seen(c, shape, tensor, hooks):
    after = unbroadcast(c, shape)
    for h in hooks:
        h._backward_unbroadcast(tensor, c, after, _LEVEL.get())
    return after


def _upstreams(grads, outs, want, found, record):
    """The upstream gradient of each output; zeros for outputs nobody differentiated."""
    if len(outs) == 1:
        g = grads.pop(id(outs[0]), None)
        if g is None:
            return None
        if id(outs[0]) in want:
            found[id(outs[0])] = g
        return (Tensor(g) if record and not isinstance(g, Tensor) else g,)
    gs = [grads.pop(id(o), None) for o in outs]
    if all(g is None for g in gs):
        return None
    for o, g in zip(outs, gs):
        if g is not None and id(o) in want:
            found[id(o)] = g
    gs = [ops.zeros_like(o.value) if g is None else g for o, g in zip(outs, gs)]
    if record:
        gs = [g if isinstance(g, Tensor) else Tensor(g) for g in gs]
    return tuple(gs)


class GradientTape:
    """Records ops on watched tensors so that gradients can be taken, as ``tf.GradientTape``.

    >>> x = gm.constant(3.0)
    >>> with gm.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = x * x
    >>> float(tape.gradient(y, x))
    6.0

    A non-persistent tape gives one ``gradient``/``jacobian`` call and then frees what
    it saved; ``persistent=True`` allows many. Trainable ``Variable`` s are watched when
    they are used, unless ``watch_accessed_variables=False``. Tapes nest: a tape that
    is recording while an inner tape computes a gradient records that computation, so
    ``outer.gradient(inner.gradient(y, x), x)`` is the second derivative.
    """

    _records = True  # a tape records ops (see custom.py for one that only listens)

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._entries = []
        self._ids = set()
        self._watched = {}  # id -> Tensor, in the order first watched
        self._used = False
        self._level = 0  # the highest backward-pass order whose ops this tape recorded
        self._levels = {}  # id(output) -> that order, for ops recorded during a backward pass
        self._order = 0  # the order of the last backward pass over this tape

    # -- recording --------------------------------------------------------------
    def __enter__(self):
        if self in _TAPES.get():
            raise TapeError("GradientTape.__enter__: this tape is already recording; a tape "
                            "cannot be re-entered (use one `with tape:` block, or a new tape)")
        push(self)
        return self

    def __exit__(self, *exc):
        remove(self)
        return False

    def _record(self, prim, args, vals, out, params):
        ids = self._ids
        hit = False
        for a in args:  # ids hold live Tensors only, so a number's id cannot match one
            if id(a) in ids or (type(a) is Variable and self._watches_on_use(a)):
                hit = True
        if hit:
            self._entries.append((prim, args, vals, out, params))
            ids.add(id(out))
            level = _LEVEL.get()
            if level:  # recorded during a backward pass of that order
                self._levels[id(out)] = level
                self._level = max(self._level, level)

    def _watches_on_use(self, a):
        """A trainable Variable used while this tape records is watched from then on."""
        if type(a) is Variable and self._watch_accessed and a.trainable:
            self._watch_one(a)
            return True
        return False

    def _record_custom(self, prim, inputs, vals, ys, outs, params):
        ids = self._ids
        hit = False
        for a in inputs:
            if isinstance(a, Tensor) and (id(a) in ids or self._watches_on_use(a)):
                hit = True
        if hit:
            self._entries.append((prim, inputs, vals, outs, params))
            ids.update(map(id, outs))
            level = _LEVEL.get()
            if level:
                self._levels[id(outs[0])] = level
                self._level = max(self._level, level)
            return
        for y, o in zip(ys, outs):
            if id(y) in ids:
                self._entries.append((ops.IDENTITY, (y,), (y.value,), o, {}))
                ids.add(id(o))

    def watch(self, tensor):
        """Follow ``tensor`` (a Tensor, a Variable, or a list/tuple/dict of them)."""
        for t in _flatten(tensor, "GradientTape.watch", "tensor")[0]:
            if kind(t.dtype) not in "fc":
                warnings.warn(f"GradientTape.watch: the dtype of the watched tensor must be "
                              f"floating (e.g. float32), got {t.dtype}; its gradient will be None",
                              stacklevel=2)
            self._watch_one(t)

    def _watch_one(self, t):
        self._ids.add(id(t))
        self._watched.setdefault(id(t), t)

    def watched_variables(self):
        """The Variables this tape watches, in the order they were created."""
        return tuple(sorted((t for t in self._watched.values() if isinstance(t, Variable)),
                            key=lambda v: v._serial))

    def stop_recording(self):
        """A context in which this tape records nothing (``with tape.stop_recording():``)."""
        return _Paused(self)

    def reset(self):
        """Forget everything recorded and watched, as if the tape were new."""
        self._entries = []
        self._ids = set()
        self._watched = {}
        self._used = False
        self._level = 0
        self._levels = {}

    # -- differentiating --------------------------------------------------------
    def _check_usable(self, fn):
        if self._used and not self._persistent:
            failed = (" (by a call that failed while differentiating, which had freed part of "
                      "what the tape saved: run the forward code again on a new tape)"
                      if self._used == "failed" else "")
            raise TapeError(
                f"GradientTape.{fn}: a non-persistent GradientTape can only be used to compute "
                f"one set of gradients (or jacobians), and this one has been used{failed}. Ask for "
                "every gradient in one call (tape.gradient(y, [x1, x2])), or create the tape with "
                "GradientTape(persistent=True)")

    def _release(self):
        if not self._persistent:
            self._used = True
            self._entries = []
            self._ids = set()
            self._levels = {}

    def _levels_below(self, start):
        """The highest order among the recorded ops that the ids in ``start`` depend on."""
        needed, highest = set(start), 0
        for prim, args, vals, out, params in reversed(self._entries):
            first = out[0] if type(out) is tuple else out
            if not any(id(o) in needed for o in (out if type(out) is tuple else (out,))):
                continue
            highest = max(highest, self._levels.get(id(first), 0))
            needed.update(id(a) for a in args if isinstance(a, Tensor))
        return highest

    def _grads(self, targets, seeds, sources, last=False):
        """{source id: gradient} for a backward pass seeded at ``targets``; the pass's
        order is left in ``self._order``. ``last``: the tape's last pass, unless it is
        persistent; when no listener needs the entries afterwards, each is freed once
        walked (so the values it saved go as soon as they are used, as in PyTorch)."""
        want = {id(s) for s in sources}
        start = {}
        for t, s in zip(targets, seeds):
            start[id(t)] = start[id(t)] + s if id(t) in start else s
        # one more than the highest order of the ops the targets depend on
        order = self._order = 1 + (self._levels_below(start) if self._level else 0)
        token = _LEVEL.set(order)  # ops recorded during this pass belong to that order
        hooks = listeners()
        free = last and not self._persistent and not hooks
        try:
            return backward(self._entries, self._ids, start, want, recording(), hooks, free)
        except BaseException:
            if free:  # what was walked is gone: the tape cannot be walked again
                self._release()
                self._used = "failed"
            raise
        finally:
            _LEVEL.reset(token)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """The gradient of ``target`` with respect to ``sources``.

        ``target`` may be a Tensor or a list/dict of them: a non-scalar target is
        differentiated as its sum, several targets as the sum of all. ``sources`` may
        be a Tensor, a list/tuple or a dict (nested too); the result has the same
        structure. ``output_gradients`` weights each target (the upstream gradient).
        A source the target does not depend on gets ``None``, or zeros with
        ``unconnected_gradients="zero"``.
        """
        self._check_usable("gradient")
        how = _unconnected(unconnected_gradients)
        if self._persistent and self in _TAPES.get():
            warnings.warn("GradientTape.gradient: called on a persistent tape inside its own "
                          "context, so the tape records the gradient computation too (for a "
                          "second derivative, that is what you want; otherwise call it after "
                          "the with block)", stacklevel=2)
        targets, _ = _flatten(target, "GradientTape.gradient", "target")
        flat_sources, rebuild = _flatten(sources, "GradientTape.gradient", "sources")
        _no_complex(flat_sources, "GradientTape.gradient")
        if output_gradients is None:
            seeds = [_ones(t.value) for t in targets]
        else:
            record = recording()
            seeds, _ = _flatten(output_gradients, "GradientTape.gradient", "output_gradients",
                                allow_raw=True)
            if len(seeds) != len(targets):
                raise GradientValueError(
                    f"GradientTape.gradient(output_gradients=...): expected one per target "
                    f"({len(targets)}), got {len(seeds)}")
            for t, s in zip(targets, seeds):
                if tuple(s.shape) != t.shape:
                    raise GradientValueError(
                        f"GradientTape.gradient(output_gradients=...): expected shape {t.shape} "
                        f"(the target's), got {tuple(s.shape)}")
                common_xp((t.value, getattr(s, "value", s)))  # the target's module, or BackendError
            seeds = [s if record and isinstance(s, Tensor) else getattr(s, "value", s) for s in seeds]
        grads = self._grads(targets, seeds, flat_sources, last=True)
        results = []
        for s in flat_sources:  # a loop, not a comprehension: warnings point at the caller
            results.append(_finish(grads.get(id(s)), s, how, "GradientTape.gradient"))
        for h in listeners():
            h._backward_end(self, targets, flat_sources, results, self._order)
        self._release()
        return rebuild(results)

    def jacobian(self, target, sources, unconnected_gradients="none", parallel_iterations=None,
                 experimental_use_pfor=True):
        """The Jacobian of ``target`` with respect to each source: shape
        ``target.shape + source.shape``. One backward pass per element of ``target``."""
        self._check_usable("jacobian")
        how = _unconnected(unconnected_gradients)
        target = _one_tensor(target, "GradientTape.jacobian", "target")
        flat_sources, rebuild = _flatten(sources, "GradientTape.jacobian", "sources")
        _no_complex(flat_sources, "GradientTape.jacobian")
        _check_jacobian_size("GradientTape.jacobian", target.size, flat_sources)
        xp = xp_of(target.value)
        rows = []
        for i in range(target.size):
            seed = xp.zeros(target.size, dtype=target.dtype)
            seed[i] = 1
            rows.append(self._grads([target], [xp.reshape(seed, target.shape)], flat_sources))
        self._release()
        out = []
        for s in flat_sources:
            per_row = [r.get(id(s)) for r in rows]
            if target.size and all(p is None for p in per_row):
                out.append(_finish(None, s, how, "GradientTape.jacobian", target.shape + s.shape))
                continue
            per_row = [ops.zeros_like(s) if p is None else p for p in per_row]
            if not per_row:
                out.append(Tensor(xp_of(s.value).zeros(target.shape + s.shape, dtype=s.dtype)))
                continue
            out.append(_as_tensor(ops.reshape(ops.stack(per_row), target.shape + s.shape)))
        return rebuild(out)

    def batch_jacobian(self, target, source, unconnected_gradients="none", parallel_iterations=None,
                       experimental_use_pfor=True):
        """Per-example Jacobians: for ``target`` of shape ``(b, *t)`` and ``source`` of shape
        ``(b, *s)``, a result of shape ``(b, *t, *s)``. Assumes example ``i`` of the
        target depends only on example ``i`` of the source."""
        self._check_usable("batch_jacobian")
        how = _unconnected(unconnected_gradients)
        target = _one_tensor(target, "GradientTape.batch_jacobian", "target")
        source = _one_tensor(source, "GradientTape.batch_jacobian", "source")
        if target.ndim < 1 or source.ndim < 1 or target.shape[0] != source.shape[0]:
            raise GradientValueError(
                f"GradientTape.batch_jacobian: target and source need the same first (batch) "
                f"dimension, got shapes {target.shape} and {source.shape}")
        b = target.shape[0]
        m = target.size // b if b else 0
        _check_jacobian_size("GradientTape.batch_jacobian", target.size, [source], batch=max(b, 1))
        xp = xp_of(target.value)
        rows = []
        for j in range(m):
            seed = xp.zeros((b, m), dtype=target.dtype)
            seed[:, j] = 1
            rows.append(self._grads([target], [xp.reshape(seed, target.shape)], [source]).get(id(source)))
        self._release()
        shape = target.shape + source.shape[1:]
        if all(r is None for r in rows):
            return _finish(None, source, how, "GradientTape.batch_jacobian", shape)
        rows = [ops.zeros_like(source) if r is None else r for r in rows]
        if not rows:
            return Tensor(xp.zeros(shape, dtype=source.dtype))
        return _as_tensor(ops.reshape(ops.stack(rows, axis=1), shape))


class _Paused:
    def __init__(self, tape):
        self.tape = tape

    def __enter__(self):
        self.was = _TAPES.get()
        _TAPES.set(tuple(t for t in self.was if t is not self.tape))

    def __exit__(self, *exc):
        if self.tape in self.was:  # back in its place, whatever was entered meanwhile
            now = _TAPES.get()
            _TAPES.set(tuple(t for t in self.was if t is self.tape or t in now)
                       + tuple(t for t in now if t not in self.was))
        return False


class paused:
    """A context in which no tape records and no listener hears: the stack is empty."""

    def __enter__(self):
        self.token = _TAPES.set(())

    def __exit__(self, *exc):
        _TAPES.reset(self.token)
        return False


JACOBIAN_LIMIT = 1 << 27  # elements (1 GiB of float64)


def _check_jacobian_size(fn, n_out, sources, batch=1):
    for s in sources:
        n = n_out * s.size // batch
        if n > JACOBIAN_LIMIT:
            raise GradientValueError(
                f"{fn}: the Jacobian would hold {n:,} elements (target of {n_out:,} x source "
                f"of {s.size:,}), over the limit of {JACOBIAN_LIMIT:,}; take a vector-Jacobian "
                "product instead (tape.gradient(target, source, output_gradients=v))")


def _no_complex(sources, fn):
    for k, s in enumerate(sources):
        if kind(s.dtype) == "c":
            raise GradientTypeError(
                f"{fn}(sources): source {k} has the complex dtype {s.dtype}; gradmagic "
                "differentiates real floating values only: take the gradient with respect to "
                "the real and imaginary parts as two float sources (z = a + 1j * b)")


def _unconnected(how):
    how = getattr(how, "value", how)
    if how not in ("none", "zero"):
        raise GradientValueError(
            f"GradientTape: unconnected_gradients must be 'none' or 'zero', got {how!r}")
    return how


def _as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _finish(g, source, how, fn, shape=None):
    if g is not None and g.dtype == source.dtype and kind(g.dtype) in "fc":  # the common case
        return g if isinstance(g, Tensor) else Tensor(g)
    if kind(source.dtype) not in "fc":
        warnings.warn(f"{fn}: the dtype of the watched tensor must be floating (e.g. float32), "
                      f"got {source.dtype}; its gradient is None", stacklevel=3)
        return None
    if g is None:
        if how == "none":
            return None
        return Tensor(xp_of(source.value).zeros(shape or source.shape, dtype=source.dtype))
    if g.dtype != source.dtype:  # a mixed-precision graph: give the source's own dtype
        g = ops.astype(g, source.dtype)
    return _as_tensor(g)


def _first(values):
    return values[0]


def _one_tensor(x, fn, arg):
    if not isinstance(x, Tensor):
        raise GradientTypeError(f"{fn}({arg}): expected a Tensor, got {type(x).__name__}")
    return x


def _flatten(tree, fn, arg, allow_raw=False):
    """Leaves of a Tensor / list / tuple / dict tree, and a function that rebuilds it."""
    if isinstance(tree, Tensor):  # the common case, one Tensor
        return [tree], _first
    leaves = []

    def walk(node):
        if isinstance(node, Tensor) or (allow_raw and hasattr(node, "shape")):
            leaves.append(node)
            return None
        if isinstance(node, dict):
            return (dict, [(k, walk(v)) for k, v in node.items()])
        if isinstance(node, (list, tuple)):
            return (type(node), [walk(v) for v in node])
        if callable(node):
            raise GradientTypeError(
                f"{fn}({arg}): got the function {getattr(node, '__name__', node)!r} inside "
                f"{arg}; a (y, grad_fn) pair is what a function with a custom gradient returns "
                "when it is not decorated: put @custom_gradient above its def")
        if allow_raw:  # output_gradients: arrays are welcome, numbers need a shape
            hint = ("; give an array of the target's shape (np.full(target.shape, value)) "
                    "or a Tensor" if isinstance(node, (int, float)) else "")
            raise GradientTypeError(
                f"{fn}({arg}): expected a Tensor or array per target (or a list or dict of "
                f"them), got {type(node).__name__} {node!r:.60}{hint}")
        hint = ("; wrap numbers with gm.constant(...) and tape.watch(...) them"
                if isinstance(node, (int, float)) else "")
        raise GradientTypeError(
            f"{fn}({arg}): expected a Tensor or Variable (or a list, tuple or dict of them), "
            f"got {type(node).__name__} {node!r:.60}{hint}")

    shape = walk(tree)

    def rebuild(values):
        it = iter(values)

        def build(s):
            if s is None:
                return next(it)
            kind, parts = s
            if kind is dict:
                return {k: build(v) for k, v in parts}
            return kind(build(v) for v in parts)

        return build(shape)

    return leaves, rebuild


from . import ops  # noqa: E402
