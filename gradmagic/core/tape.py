"""``GradientTape``: records the ops that follow what it watches, and differentiates them.

An op is recorded on a tape only when one of its inputs is connected to something the
tape watches; a tape's ``_ids`` holds the ids of those connected tensors. The walk
itself is ``backward.backward``; this module seeds it, shapes its results as the
sources were given (a Tensor, a list, a dict ...) and builds Jacobians from it.
"""

from __future__ import annotations

import warnings

import numpy as np

from .._backend import TENSORS_APART, common_xp, kind, settle, xp_of
from ..errors import (GradientTypeError, GradientValueError, TapeError, TapeReentryError,
                      WatchTypeError, through_complex)
from ..tracebacks import user_stacklevel
from . import ops
from .backward import backward, ones
from .context import LEVEL, TAPES, listeners, push, recording, remove, without
from .nest import flatten
from .tensor import Tensor, Variable, as_tensor, wrap


class TapeView:
    """A read-only view of what a tape had recorded when a gradient was taken (for
    listeners: why a gradient is None)."""

    __slots__ = ("_entries", "_ids", "watch_accessed")

    def __init__(self, entries, ids, watch_accessed):
        self._entries, self._ids = entries, ids
        self.watch_accessed = watch_accessed  # the tape watched trainable Variables on use

    def connected(self, tensor) -> bool:
        """Whether the tape followed ``tensor`` (watched, or computed from what it watched)."""
        return id(tensor) in self._ids

    @property
    def recorded_inputs(self) -> list:
        """Every argument of every op the tape recorded, in order."""
        return [a for entry in self._entries if entry is not None for a in entry[1]]

    def uses(self) -> dict:
        """{id of a Tensor: ``(primitive, args, out, params)`` of each recorded op that takes
        it as an argument, in the order recorded}."""
        found = {}
        for e in self._entries:
            if e is not None:
                for a in e[1]:
                    found.setdefault(id(a), []).append((e[0], e[1], e[3], e[4]))
        return found


NEVER = "never entered"  # a tape's state before its first `with`


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

    records = True  # a tape records ops (a Listener only hears them)
    dense = True  # every gradient it gives is a Tensor; False: a dialect's tape whose
    # ``upstreams_wanted`` and ``regrade`` may give some in another form (tf's IndexedSlices)

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._entries = []
        self._ids = set()
        self._watched = {}  # id -> Tensor, in the order first watched
        self._used = NEVER  # False once entered; True (or "failed") once a last pass used it
        self._level = 0  # the highest backward-pass order whose ops this tape recorded
        self._levels = {}  # id(output) -> the highest order of the passes it was computed in
        self._order = 0  # the order of the last backward pass over this tape
        self._born = 0  # the order of the backward pass it was entered in (a rule's own tape)

    # -- recording --------------------------------------------------------------
    def __enter__(self):
        if self in TAPES.get():
            raise TapeReentryError("GradientTape.__enter__: Tape is still recording: this tape is "
                                   "already recording, and a tape cannot be re-entered (use one "
                                   "`with tape:` block, or a new tape)")
        self._born = LEVEL.get()
        if self._used is NEVER:
            self._used = False
        push(self)
        return self

    def __exit__(self, *exc):
        remove(self)
        return False

    def on_op(self, prim, args, vals, out, params):
        """Engine hook: keep the op when one of its inputs is connected to what this tape
        watches."""
        ids = self._ids
        hit = False
        for a in args:  # ids hold live Tensors only, so a number's id cannot match one
            if id(a) in ids:
                hit = True
            elif type(a) is Variable and self._watches_on_use(a):  # every one used is watched
                hit = True
        if hit:
            self._entries.append((prim, args, vals, out, params))
            ids.add(id(out))
            level = LEVEL.get()
            if self._levels:  # an output depends on the orders its inputs depend on too
                level = self._rise(level, args)
            if level:  # recorded during a backward pass of that order, or computed from one
                self._levels[id(out)] = level
                self._level = max(self._level, level)

    def watches_on_use(self, tensor) -> bool:
        """Whether this tape starts to follow ``tensor`` when an op uses it: a trainable
        Variable, unless ``watch_accessed_variables=False``."""
        return type(tensor) is Variable and self._watch_accessed and tensor.trainable

    def _watches_on_use(self, a):
        """A trainable Variable used while this tape records is watched from then on."""
        if self.watches_on_use(a):
            self._watch_one(a)
            return True
        return False

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        """Engine hook: a custom function's call as one op over ``inputs`` (see
        ``primitive.record_custom``)."""
        ids = self._ids
        hit = False
        for a in inputs:
            if isinstance(a, Tensor) and (id(a) in ids or self._watches_on_use(a)):
                hit = True
        if hit:
            self._entries.append((prim, inputs, vals, outs, params))
            if len(outs) == 1:
                ids.add(id(outs[0]))
            else:
                ids.update(map(id, outs))
            level = LEVEL.get()
            if self._levels:
                level = self._rise(level, inputs)
            if level:
                self._levels.update((id(o), level) for o in outs)
                self._level = max(self._level, level)
            return
        for y, o in zip(ys, outs):
            if id(y) in ids:
                self._entries.append((ops.IDENTITY, (y,), (y.value,), o, {}))
                ids.add(id(o))
                if self._levels and id(y) in self._levels:
                    self._levels[id(o)] = self._levels[id(y)]

    def _rise(self, level, args):
        """The highest of ``level`` and the orders that ``args`` depend on: so each output's
        entry in ``_levels`` is the highest order among the ops it was computed through."""
        levels = self._levels
        for a in args:
            lv = levels.get(id(a), 0)
            if lv > level:
                level = lv
        return level

    def follows(self, tensor) -> bool:
        """Whether this tape follows ``tensor``: watched, or computed from what it watches."""
        return id(tensor) in self._ids

    def watch(self, tensor) -> None:
        """Follow ``tensor`` (a Tensor, a Variable, or a list/tuple/dict of them)."""
        if type(tensor) is Tensor and kind(tensor.value.dtype) in "fc":  # the commonest: one, floating
            self._watch_one(tensor)
            return
        try:
            leaves = _flatten(tensor, "GradientTape.watch", "tensor")[0]
        except GradientTypeError as e:  # a ValueError too, as TensorFlow raises there
            raise WatchTypeError(str(e)) from None
        for t in leaves:
            if kind(t.dtype) not in "fc":
                warnings.warn(f"GradientTape.watch: The dtype of the watched tensor must be "
                              f"floating (e.g. float32), got {t.dtype}; its gradient will be None",
                              stacklevel=user_stacklevel())
            self._watch_one(t)

    def _watch_one(self, t):
        self._ids.add(id(t))
        self._watched.setdefault(id(t), t)

    def watched_variables(self) -> tuple[Variable, ...]:
        """The Variables this tape watches, in the order they were created."""
        return tuple(sorted((t for t in self._watched.values() if isinstance(t, Variable)),
                            key=lambda v: v.serial))

    def stop_recording(self) -> without:
        """A context in which this tape records nothing (``with tape.stop_recording():``)."""
        return without(self)

    def reset(self) -> None:
        """Forget everything recorded and watched, as if the tape were new."""
        self._entries = []
        self._ids = set()
        self._watched = {}
        self._used = False
        self._level = 0
        self._levels = {}

    # -- differentiating --------------------------------------------------------
    def _check_usable(self, fn):
        if self._used is NEVER:  # `tape = GradientTape()` with no `with`: nothing was recorded
            raise TapeError(f"GradientTape.{fn}: this tape was never entered, so it recorded "
                            "nothing and every gradient would be None; compute the target inside "
                            "`with GradientTape() as tape:` (tape.watch(x) goes inside it too)")
        if self._used and not self._persistent:
            failed = (" (by a call that failed while differentiating, which had freed part of "
                      "what the tape saved: run the forward code again on a new tape)"
                      if self._used == "failed" else "")
            raise TapeError(
                f"GradientTape.{fn}: A non-persistent GradientTape can only be used to compute "
                f"one set of gradients (or jacobians), and this one has been used{failed}. Ask for "
                "every gradient in one call (tape.gradient(y, [x1, x2])), or create the tape with "
                "GradientTape(persistent=True)")

    def _release(self):
        if not self._persistent:
            self._used = True
            self._entries = []
            self._ids = set()
            self._levels = {}

    def _grads(self, targets, seeds, sources, last=False, hooks=None):
        """{source id: gradient} for a backward pass seeded at ``targets``; the pass's
        order is left in ``self._order``. ``last``: the tape's last pass, unless it is
        persistent; when no listener needs the entries afterwards, each is freed once
        walked (so the values it saved go as soon as they are used, as in PyTorch).
        ``hooks``: the listeners, where the caller has them."""
        want = {id(sources[0])} if len(sources) == 1 else {id(s) for s in sources}
        if len(targets) == 1:
            start = {id(targets[0]): seeds[0]}
        else:
            start = {}
            for t, s in zip(targets, seeds):
                start[id(t)] = start[id(t)] + s if id(t) in start else s
        # one more than the highest order of the ops the targets depend on; but a tape a
        # rule entered within a pass (a grad_fn's own tape, custom_jvp's transposition), over
        # that pass's ops only, walks as part of that pass: its ops are the pass's, and a
        # pass over them is one order up, not two
        deepest = max(self._levels.get(i, 0) for i in start) if self._level else 0
        born = self._born
        order = born if born and deepest <= born == LEVEL.get() else 1 + deepest
        if hooks is None:
            hooks = listeners()
        return self._walk(order, start, want, recording(), hooks,
                          last and not self._persistent and not hooks)

    def _walk(self, order, start, want, record, hooks, free):
        """``backward`` over this tape's entries as a pass of ``order`` (ops it records
        belong to that order); ``free``: each entry dropped once walked."""
        self._order = order
        token = LEVEL.set(order)
        try:
            return backward(self._entries, self._ids, start, want, record, hooks, free)
        except BaseException:
            if free:  # what was walked is gone: the tape cannot be walked again
                self._release()
                self._used = "failed"
            raise
        finally:
            LEVEL.reset(token)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients: str = "none"):
        """The gradient of ``target`` with respect to ``sources``.

        ``target`` may be a Tensor or a list/dict of them: a non-scalar target is
        differentiated as its sum, several targets as the sum of all. ``sources`` may
        be a Tensor, a list/tuple or a dict (nested too); the result has the same
        structure. ``output_gradients`` weights each target (the upstream gradient).
        A source the target does not depend on gets ``None``, or zeros with
        ``unconnected_gradients="zero"``.
        """
        if self._used:
            self._check_usable("gradient")
        if (output_gradients is None and isinstance(target, Tensor) and isinstance(sources, Tensor)
                and self.dense and not self._level and not TAPES.get() and unconnected_gradients == "none"
                and kind(sources.value.dtype) != "c"):
            # the commonest call, one Tensor of each, with nothing on the stack (no tape
            # records the pass, no listener hears it) and no pass recorded before: the steps
            # below, without their lists (tests/test_tape.py takes both ways)
            g = self._walk(1, {id(target): ones(target.value)}, {id(sources)}, False, (),
                           not self._persistent).get(id(sources))
            result = _finish(g, sources, "none", "GradientTape.gradient")
            self._release()
            return result
        how = "none" if unconnected_gradients == "none" else _unconnected(unconnected_gradients)
        if self._persistent and self in TAPES.get():
            warnings.warn("GradientTape.gradient: called on a persistent tape inside its own "
                          "context, so the tape records the gradient computation too (for a "
                          "second derivative, that is what you want; otherwise call it after "
                          "the with block)", stacklevel=user_stacklevel())
        targets, _ = _flatten(target, "GradientTape.gradient", "target")
        flat_sources, rebuild = _flatten(sources, "GradientTape.gradient", "sources")
        _no_complex(flat_sources, "GradientTape.gradient")
        if output_gradients is None:
            seeds = [ones(t.value) for t in targets]
        else:
            record = recording()
            seeds, _ = _flatten(output_gradients, "GradientTape.gradient", "output_gradients",
                                allow_raw=True)
            if len(seeds) != len(targets):
                raise GradientValueError(
                    f"GradientTape.gradient(output_gradients=...): expected one per target "
                    f"({len(targets)}), got {len(seeds)}")
            seeds = [xp_of(t.value).asarray(s, dtype=t.dtype) if isinstance(s, (int, float)) else s
                     for t, s in zip(targets, seeds)]  # a number: for a scalar target
            for k, (t, s) in enumerate(zip(targets, seeds)):
                if tuple(s.shape) != t.shape:
                    raise GradientValueError(
                        f"GradientTape.gradient(output_gradients=...): expected shape {t.shape} "
                        f"(the target's), got {tuple(s.shape)}"
                        + ("; a number weighs a scalar target only: give np.full(target.shape, "
                           "value) for this one" if not tuple(s.shape) else ""))
                if isinstance(s, Tensor):  # the target's module, or BackendError
                    common_xp((t.value, s.value), TENSORS_APART)
                else:  # an array: a host one goes where its target is
                    seeds[k] = settle((t.value, s), (t, s))[1][1]
            seeds = [s if record and isinstance(s, Tensor) else getattr(s, "value", s) for s in seeds]
        hooks = listeners()
        extra = () if self.dense else self.upstreams_wanted(flat_sources)
        grads = self._grads(targets, seeds, flat_sources + extra if extra else flat_sources,
                            last=True, hooks=hooks)
        results = []
        for s in flat_sources:  # a loop, not a comprehension: warnings point at the caller
            results.append(_finish(grads.get(id(s)), s, how, "GradientTape.gradient"))
        if hooks:
            seen = self.recorded()
            for h in hooks:
                h.on_gradient_end(seen, targets, flat_sources, results, self._order)
        if extra:
            results = self.regrade(flat_sources, results, [grads.get(id(t)) for t in extra])
        self._release()
        return rebuild(results)

    def recorded(self) -> TapeView:
        """A read-only view of the ops this tape has recorded."""
        return TapeView(self._entries, self._ids, self._watch_accessed)

    # -- for a dialect's tape whose gradients are not all dense (``dense = False``) --------
    def upstreams_wanted(self, sources) -> list:
        """Tensors besides ``sources`` whose upstream gradients, from the coming pass,
        ``regrade`` needs."""
        return []

    def regrade(self, sources, results, upstreams) -> list:
        """``results`` (the sources' gradients) in the form this tape gives them, from the
        ``upstreams`` of the Tensors that ``upstreams_wanted`` named (None: none came)."""
        return results

    def jacobian(self, target: Tensor, sources, unconnected_gradients: str = "none", parallel_iterations=None,
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
            if (target.size and all(p is None for p in per_row)) or kind(s.dtype) not in "fc":
                out.append(_finish(None, s, how, "GradientTape.jacobian", target.shape + s.shape))
                continue
            per_row = [ops.zeros_like(s) if p is None else p for p in per_row]
            if not per_row:
                out.append(Tensor(xp_of(s.value).zeros(target.shape + s.shape, dtype=s.dtype)))
                continue
            out.append(_assembled(ops.reshape(ops.stack(per_row), target.shape + s.shape), s,
                                  "GradientTape.jacobian"))
        return rebuild(out)

    def batch_jacobian(self, target: Tensor, source: Tensor, unconnected_gradients: str = "none",
                       parallel_iterations=None,
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
        if not rows:  # no element per example: an empty Jacobian, as TensorFlow gives
            return Tensor(xp.zeros(shape, dtype=source.dtype))
        if all(r is None for r in rows):
            return _finish(None, source, how, "GradientTape.batch_jacobian", shape)
        rows = [ops.zeros_like(source) if r is None else r for r in rows]
        return _assembled(ops.reshape(ops.stack(rows, axis=1), shape), source,
                          "GradientTape.batch_jacobian")


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
        if kind(s.value.dtype) == "c":
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


def _finish(g, source, how, fn, shape=None):
    if type(g) is type(source.value) and isinstance(g, np.floating):  # the commonest: a NumPy
        return wrap(g)  # scalar of the source's own type (a 0-d source's, or a total's)
    if g is not None and g.dtype == source.value.dtype and kind(g.dtype) in "fc":  # the common case
        return g if isinstance(g, Tensor) else wrap(g)
    if kind(source.dtype) not in "fc":
        warnings.warn(f"{fn}: The dtype of the watched tensor must be floating (e.g. float32), "
                      f"got {source.dtype}; its gradient is None", stacklevel=user_stacklevel())
        return None
    if g is None:
        if how == "none":
            return None
        return Tensor(xp_of(source.value).zeros(shape or source.shape, dtype=source.dtype))
    if g.dtype != source.dtype:  # a mixed-precision graph: give the source's own dtype
        if kind(g.dtype) == "c":
            raise through_complex(fn, source.dtype, g.dtype)
        g = ops.astype(g, source.dtype)
    return as_tensor(g)


def _assembled(j, source, fn):
    """A Jacobian assembled from rows, as a Tensor; one of a real source that came through
    complex values is refused, as its gradient is."""
    if kind(j.dtype) == "c" and kind(source.dtype) != "c":
        raise through_complex(fn, source.dtype, j.dtype)
    return as_tensor(j)


def _first(values):
    return values[0]


def _one_tensor(x, fn, arg):
    if not isinstance(x, Tensor):
        raise GradientTypeError(f"{fn}({arg}): expected a Tensor, got {type(x).__name__}")
    return x


def _flatten(tree, fn, arg, allow_raw=False):
    """Leaves of a Tensor / list / tuple / dict tree, each checked, and a function that
    rebuilds the tree from new leaves (``nest.flatten``)."""
    if isinstance(tree, Tensor):  # the common case, one Tensor
        return [tree], _first
    if type(tree) is list or type(tree) is tuple:  # the next commonest: a flat list of Tensors
        for node in tree:
            if not isinstance(node, Tensor):
                break
        else:
            return list(tree), type(tree)  # rebuilt by list(...) or tuple(...), as nest's would
    leaves, _, rebuild = flatten(tree, ordered=False)  # results in the order given
    for node in leaves:
        if isinstance(node, Tensor) or (allow_raw and (hasattr(node, "shape") or (
                isinstance(node, (int, float)) and not isinstance(node, bool)))):
            continue
        if callable(node):
            raise GradientTypeError(
                f"{fn}({arg}): got the function {getattr(node, '__name__', node)!r} inside "
                f"{arg}; a (y, grad_fn) pair is what a function with a custom gradient returns "
                "when it is not decorated: put @custom_gradient above its def")
        if allow_raw:  # output_gradients: arrays, Tensors and numbers are welcome
            raise GradientTypeError(
                f"{fn}({arg}): expected a Tensor, array or number per target (or a list or dict "
                f"of them), got {type(node).__name__} {node!r:.60}")
        hint = ("; wrap numbers with gm.constant(...) and tape.watch(...) them"
                if isinstance(node, (int, float)) else "")
        raise GradientTypeError(
            f"{fn}({arg}): expected a Tensor or Variable (or a list, tuple or dict of them), "
            f"got {type(node).__name__} {node!r:.60}{hint}")
    return leaves, rebuild
