"""The backward walk: from seeded gradients, through the recorded ops in reverse.

Invariants:
- Entries are appended in execution order, so walking them backwards visits an op only
  after every op that used its output: a reverse topological order with no recursion
  and no sets of parents.
- Gradients are accumulated in a dict keyed by tensor id (never by tensor) and each is
  dropped as soon as it has been passed on.
- With no tape recording, rules run on raw arrays; when one records, they run on
  Tensors and are recorded in turn: that is how higher order works.
- Broadcasting is undone here, once, after each rule (``unbroadcast``).
"""

import numpy as np

from .._backend import xp_of
from . import ops
from .context import LEVEL, MEMO, TAPES
from .primitive import apply
from .tensor import Tensor, Variable, replace_variables


def read_variables(args, vals):
    """``args`` with each Variable replaced by a Tensor of the value it had when the op
    ran, recorded as a read of the variable on the tapes now active."""
    def read(variable, value):
        t = Tensor(value)
        for tape in TAPES.get():
            tape.on_op(ops.IDENTITY, (variable,), (value,), t, {})
        return t
    return replace_variables(args, vals, read)


def broadcast_axes(gshape, shape):
    """The axes of a gradient of shape ``gshape`` that broadcasting added or stretched to
    make it from ``shape``; None when ``shape`` does not broadcast to ``gshape``."""
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != m for n, m in zip(shape, gshape[lead:])):
        return None
    return tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)


def unbroadcast(g, shape):
    """Sum ``g`` over the axes that broadcasting added or stretched, so it has ``shape``."""
    gshape = g.shape
    if gshape == shape:
        return g
    if not shape:  # a scalar's: the total
        return summed(g, None, False)
    lead = len(gshape) - len(shape)
    if lead > 0 and gshape[lead:] == shape:  # only leading axes added (a bias's): summed away
        return summed(g, LEADING[lead] if lead < 4 else tuple(range(lead)), False)
    axes = broadcast_axes(gshape, shape)
    if axes is None:
        return ops.broadcast_to(g, shape)  # a rule gave less than the full shape
    return ops.reshape(summed(g, axes, True), shape)


def summed(g, axis, keepdims):
    """``g`` summed over ``axis``. Over some axes, a float32 or float16 one is added up in
    float64 and rounded once: NumPy adds an outer axis one row at a time, whose error grows
    with the rows (1e-4 of a 100,000-row bias gradient in float32, where pairwise or wider sums
    keep 1e-7). A total (``axis`` None) is NumPy's pairwise sum already, and stays quick."""
    dtype = g.dtype
    if axis is not None and isinstance(dtype, np.dtype) and dtype.kind == "f" and dtype.itemsize < 8:
        return ops.astype(apply(ops.SUM, ops.astype(g, np.float64), axis=axis, keepdims=keepdims), dtype)
    return apply(ops.SUM, g, axis=axis, keepdims=keepdims)


LEADING = [(), (0,), (0, 1), (0, 1, 2)]  # the first n axes, for n < 4


SEEDS = {}  # NumPy dtype -> the seed of every scalar target of that dtype: a read-only 0-d one


def ones(x):
    """Ones of ``x``'s shape and dtype, as a seed for ``x``'s own gradient. A NumPy scalar's
    is a NumPy scalar one (its arithmetic is several times quicker than a 0-d array's); a 0-d
    NumPy array's, its dtype's shared read-only one, which ``known_ones`` recognises, with
    its views."""
    if isinstance(x, np.generic):
        return type(x)(1)
    if not x.shape and type(x) is np.ndarray:
        return one(x.dtype)
    return xp_of(x).ones(x.shape, dtype=x.dtype)


def one(dtype):
    """The seed of every scalar target of a NumPy ``dtype``: a shared read-only 0-d one."""
    seed = SEEDS.get(dtype)
    if seed is None:
        seed = SEEDS[dtype] = np.ones((), dtype=dtype)
        seed.flags.writeable = False  # never written: so a view of it holds ones
    return seed


def known_ones(a) -> bool:
    """Whether ``a`` is the seed of a scalar target or a view of it (the broadcast that a
    sum's rule makes of it): all ones, known without looking at the values."""
    base = getattr(a, "base", None)
    return (a if base is None else base) is SEEDS.get(getattr(a, "dtype", None))


def backward(entries, ids, seeds, want, record, hooks=(), free=False):
    """Walk ``entries`` backwards from ``seeds`` ({id: gradient}); return {id: gradient}
    for the ids in ``want``. ``record``: run the rules on Tensors so an outer tape
    records them. ``hooks``: listeners told of every step. ``free``: drop each entry
    once walked, so what its op saved is freed as early as the backward pass allows.
    ``seeds`` is the walk's own: it holds the gradients as they are summed."""
    grads = seeds
    found = {}
    token = MEMO.set({})  # what the rules of one op share, for this pass only
    try:
        if not record and not hooks:
            _plain(entries, ids, grads, want, found, free)
        else:
            _heard(entries, ids, grads, want, found, record, hooks, free)
    finally:
        MEMO.reset(token)
    for i in want:
        if i not in found and i in grads:
            found[i] = grads[i]
    return found


def _plain(entries, ids, grads, want, found, free):
    """The walk when no tape records it and no listener hears it, on raw values: most
    passes are first-order ones, and this is where they spend their time. It is
    ``_heard`` less its Tensors and hooks, kept as a second loop so that a plain pass
    checks neither once per op (tests/test_backward.py runs both on the same graphs)."""
    pop, get = grads.pop, grads.get
    for k in range(len(entries) - 1, -1, -1):
        prim, args, vals, out, params = entries[k]
        if free:
            entries[k] = None
        if type(out) is tuple:  # an op with several outputs (a custom function's, often one)
            if len(out) == 1:  # _upstreams' commonest case, inline: one output
                g = pop(id(out[0]), None)
                if g is None:
                    continue
                if id(out[0]) in want:
                    found[id(out[0])] = g
                g = (g,)
            else:
                g = _upstreams(grads, out, want, found, False)
                if g is None:
                    continue
            ans = out if prim.joint else tuple([o.value for o in out])  # a custom rule reads none
        else:
            g = pop(id(out), None)
            if g is None:
                continue
            if id(out) in want:
                found[id(out)] = g
            ans = out.value
        vjps = prim.vjps
        joint = prim.joint
        if joint:  # one call gives every input's gradient (a custom gradient)
            vjps = vjps(g, ans, vals, params)
        i = -1
        for a in args:
            i += 1
            aid = id(a)
            if aid not in ids:  # ids hold live Tensors only: no number or array matches
                continue
            if joint:
                c = vjps[i]
            else:
                rule = vjps[i]
                if rule is None:
                    continue
                c = rule(g, ans, *vals, **params) if params else rule(g, ans, *vals)
            if c is None:
                continue
            shape = vals[i].shape
            if c.shape != shape:
                c = unbroadcast(c, shape)
            prev = get(aid)
            grads[aid] = c if prev is None else prev + c


def _heard(entries, ids, grads, want, found, record, hooks, free):
    """The walk in general: rules on Tensors when ``record``, each step told to ``hooks``."""
    pop, get = grads.pop, grads.get
    order = LEVEL.get()
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
            if id(out) in want:
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
                rule_args = read_variables(args, vals)
        vjps = prim.vjps
        joint = prim.joint
        if joint:  # one call gives every input's gradient (a custom gradient)
            try:
                vjps = vjps(g, ans, rule_args, params)
            except Exception as e:
                for h in hooks:
                    h.on_backward_error(entry, g, e, order)
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
                    h.on_backward_sum(a, prev, c, order)
            if hooks:
                downs[i] = c
        if hooks:
            for h in hooks:
                h.on_backward_step(entry, g, downs, order)


def _unbroadcast_seen(c, shape, tensor, hooks):
    after = unbroadcast(c, shape)
    for h in hooks:
        h.on_unbroadcast(tensor, c, after, LEVEL.get())
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
