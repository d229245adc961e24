"""PyTorch's backward walks on gradmagic's engine: ``backward`` and ``autograd.grad``.

``Walk`` gathers the nodes the roots depend on (for ``autograd.grad``, only those on a way
to the inputs, as PyTorch runs only what it needs: a node a walk freed beyond them is not
gone over), sorts them by creation (their execution order) and hands them to
``core.backward.backward``: the walk, the rule table and the listeners (a trace) of
``GradientTape``. A node that used an older version of a tensor, changed in place since, is
walked with a stand-in for it (``graph.py`` records the versions).
"""

from __future__ import annotations

import numpy as np

from .._backend import MODULES
from ..core import ops
from ..core.backward import backward as walk_back
from ..core.backward import ones
from ..core.context import LEVEL, listeners
from ..core.tape import TapeView
from ..core.tensor import Tensor as CoreTensor
from ..errors import through_complex
from .anomaly import hooks_with_anomaly
from .graph import CHANGES, FREED, SERIAL, Node, Tensor, as_tensor_of
from .hooks import LIVE, run_post_accumulate, with_hooks, with_node_hooks
from .hooks import run as run_hooks
from .modes import GRAD
from .saved import assigned_since, saves
from .values import type_name


def seed(root, gradient, fn):
    """The gradient a walk starts from at ``root``: ones for a scalar, else ``gradient``."""
    if gradient is None:
        if root.value.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return ones(root.value)
    g = gradient if isinstance(gradient, CoreTensor) else root.result_class(
        np.asarray(gradient, dtype=root.value.dtype))
    if tuple(g.shape) != tuple(root.shape):
        raise RuntimeError(f"{fn}: Mismatch in shape: grad_output[0] has a shape of "
                           f"{list(g.shape)} and output[0] has a shape of {list(root.shape)}.")
    return g if g.requires_grad else g.value


class Walk:
    """The nodes that ``roots`` depend on, as the engine's entries in execution order."""

    def __init__(self, roots, sources=None):
        found, seen, top = [], set(), 0
        todo = [r.grad_fn for r in roots if r.grad_fn is not None]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            found.append(node)
            for n in node.sources:
                if n is not None:
                    todo.append(n)
        found.reverse()  # a chain's nodes, found from its end, are then in creation order
        found.sort(key=SERIAL)
        if sources is not None:  # autograd.grad: only the nodes on a way to the sources
            found = _towards(found, {id(s) for s in sources})
        for node in found:
            if node.freed:
                raise RuntimeError(FREED)
            if node.level > top:
                top = node.level
        self.nodes = found
        self.standins, self.bridges = {}, []
        ids = self.ids = set()
        entries, clean = [], CHANGES[0]
        for n in found:
            if n.changes == clean and len(n.outs) == 1:  # the commonest: one output, as recorded
                o = n.outs[0]()  # (nothing changed in place since it ran)
                if o is not None:
                    ids.update(n.grad_ids)
                    ids.add(id(o))
                    entries.append((n.prim, n.args, n.vals, (o,) if n.prim.joint else o, n.params))
                    if n.node_hooks:
                        entries[-1:] = with_node_hooks(entries[-1], n, ids, _identity_of)
                    continue
            entries.append(self._entry(n))
            if n.node_hooks:
                entries[-1:] = with_node_hooks(entries[-1], n, ids, _identity_of)
            if self.bridges:
                entries += self.bridges
                self.bridges = []
        self.hooked = {}  # id(tensor) -> its gradient after its hooks (register_hook)
        self.entries = with_hooks(entries, ids, self.hooked) if LIVE[0] else entries
        self.order = 1 + top  # one more than the highest order among the nodes' passes

    def _as_it_was(self, t, version, value, producer=None):
        """``t`` itself, or a stand-in for the ``value`` it had at ``version``. The stand-in
        for what a node made (``producer``) is kept on that node and has it as ``grad_fn``,
        so that what a ``create_graph`` walk records from it (``cos(x)`` of an ``x`` that
        ``sin_`` changed since) leads a later walk back through the node."""
        if t.version == version or assigned_since(t, version):  # (`.data =`: seen, as PyTorch's)
            return t
        if t.grad_fn is None and t.leaf_requires_grad:  # a leaf changed in place since
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_name(t)} {list(t.shape)}] is at version "
                f"{t.version}; expected version {version} instead.")
        key = (id(t), version)
        if key not in self.standins:
            i = next((i for i, r in enumerate(producer.outs) if r() is t), None) if producer else None
            stand = producer.standins.get(i) if i is not None and producer.standins else None
            if stand is None:
                stand = type(t).__new__(type(t))
                stand.value, stand.stands_for = value, t  # a trace shows it as t then
                if i is not None:
                    stand.grad_fn = producer
                    producer.standins = {**(producer.standins or {}), i: stand}
            self.standins[key] = stand
        return self.standins[key]

    def _entry(self, node):
        """The engine's entry for ``node``: its tensors as they were when it ran."""
        ids = self.ids
        if node.changes == CHANGES[0] and len(node.outs) > 1:  # as recorded (one output: above)
            outs = [r() for r in node.outs]
            if all(o is not None for o in outs):
                ids.update(node.grad_ids)
                ids.update([id(o) for o in outs])
                return (node.prim, node.args, node.vals, tuple(outs) if node.prim.joint else outs[0],
                        node.params)
        for a, v, source in zip(node.args, node.versions, node.sources):
            if v is not None and a.version != v:
                return self._entry_changed(node)  # something changed in place since
        for a, v, source in zip(node.args, node.versions, node.sources):
            if v is not None and (source is not None or a.leaf_requires_grad):
                ids.add(id(a))
        outs = []
        for ref, v in zip(node.outs, node.out_versions):
            o = ref()
            if o is None or o.version != v:  # gone, or changed in place since
                return self._entry_changed(node)
            outs.append(o)
            ids.add(id(o))
        return (node.prim, node.args, node.vals, tuple(outs) if node.prim.joint else outs[0],
                node.params)

    def _entry_changed(self, node):
        args, vals = [], list(node.vals)
        for k, (a, v, val, source) in enumerate(zip(node.args, node.versions, node.vals, node.sources)):
            if isinstance(a, Tensor):
                if a.version != v and assigned_since(a, v):  # `.data =` since: as it is now
                    vals[k] = a.value
                elif a.version == v or a.grad_fn is not None or not a.leaf_requires_grad or \
                        saves(node, k):  # (a leaf the node did not save: itself, as it ran)
                    a = self._as_it_was(a, v, val, source)
                if source is not None or a.leaf_requires_grad:
                    self.ids.add(id(a))
            args.append(a)
        outs = []
        for i, (ref, v) in enumerate(zip(node.outs, node.out_versions)):
            o = ref()
            if o is None:  # an output nobody holds (so no gradient reaches it)
                shape, dtype, cls, array = node.metas[i]
                o = cls.__new__(cls)
                o.value = MODULES.get(array, np).zeros(shape, dtype)  # zeros on its device
            else:
                now, o = o, self._as_it_was(o, v, node.kept.get(i) if node.kept else None, node)
                if node.through and i in node.through:  # changed since, where no op recorded
                    after = self._as_it_was(now, *node.through[i])  # it: the gradient of the
                    self.ids.add(id(after))  # version after passes to the version it made
                    self.bridges.append((ops.IDENTITY, (o,), (o.value,), after, {}))
            self.ids.add(id(o))
            outs.append(o)
        out = tuple(outs) if node.prim.joint else outs[0]
        return (node.prim, tuple(args), tuple(vals), out, node.params)

    def run(self, seeds, want, create_graph):
        """{id: gradient} for the ids in ``want``; the listeners hear every step."""
        level, grad = LEVEL.set(self.order), GRAD.set(create_graph)
        try:
            grads = walk_back(self.entries, self.ids, seeds, want, create_graph,
                              hooks_with_anomaly(listeners()))
            if self.hooked:  # gradients after their tensors' hooks
                grads.update((k, g) for k, g in self.hooked.items() if k in want)
            return grads
        finally:
            GRAD.reset(grad)
            LEVEL.reset(level)

    def tell(self, hooks, roots, sources, grads):
        """The listeners ``hooks`` hear the end of the walk, as after ``tape.gradient``."""
        seen = TapeView(self.entries, self.ids, False)
        for h in hooks:
            h.on_gradient_end(seen, list(roots), list(sources), list(grads), self.order)

    def free(self):
        for n in self.nodes:
            n.free()


def _identity_of(stand, t):
    """``stand`` (a node hooks' stand-in for ``t``) as an identity of ``t``, so that what a
    ``create_graph`` pass records from it leads back to ``t``."""
    stand.grad_fn = Node(ops.IDENTITY, (t,), (t.value,), {}, (stand,))


def _type_name(t):
    return f"torch.{type_name(t.dtype)}Tensor"


def _towards(nodes, ids):
    """The ``nodes`` (in creation order) that a gradient goes through on its way to the
    tensors of ``ids``: those that used one of them, or a node's output that did."""
    needed = set()
    for node in nodes:
        if any(n in needed for n in node.sources if n is not None) or any(
                id(a) in ids for a in node.args):
            needed.add(node)
    return [n for n in nodes if n in needed]


def leaves_of(walk):
    """The leaves that require grad, and the non-leaves that retain it, in walk order."""
    seen, out = set(), []
    for node in walk.nodes:
        for a in node.args:
            if isinstance(a, Tensor) and (a.leaf_requires_grad and a.grad_fn is None or
                                          a.retains_grad) and id(a) not in seen:
                seen.add(id(a))
                out.append(a)
    return out


def retained_after(walk, sources):
    """The non-leaves that ``retain_grad()`` whose gradient a walk to ``sources`` computes
    (the sources, and what was computed from them on the way to the roots): PyTorch fills
    their ``.grad`` in every walk that reaches them, ``autograd.grad`` and
    ``backward(inputs=...)`` included."""
    after = {id(s) for s in sources}
    out = {id(s): s for s in sources if s.retains_grad}
    for prim, args, vals, o, params in walk.entries:
        if any(id(a) in after for a in args):
            for t in (o if type(o) is tuple else (o,)):
                after.add(id(t))
                if getattr(t, "retains_grad", False) and t.grad_fn is not None:
                    out.setdefault(id(t), t)
    return list(out.values())


def real_only(fn, t, g):
    """Refuse a gradient for real ``t`` that came back through complex values: the rules take
    no conjugates (complex dtypes are out of scope here)."""
    if g.dtype.kind == "c" and t.dtype.kind != "c":
        raise through_complex(fn, t.dtype, g.dtype)


def accumulate(t, g):
    """``t.grad += g``, as PyTorch accumulates into a leaf."""
    held = t.grad_value
    if held is None and not isinstance(g, CoreTensor) and g.dtype == t.value.dtype:
        t.grad_value = as_tensor_of(g, t)  # the commonest: a first raw gradient, as it is
        return
    fresh = not isinstance(g, Tensor)  # a tensor made here, which nothing else holds
    g = as_tensor_of(g, t)
    if g.dtype != t.dtype:
        real_only("backward()", t, g)
        g, fresh = as_tensor_of(ops.astype(g, t.dtype), t), True
    if held is None:
        t.grad_value = g if g.requires_grad or fresh else as_tensor_of(g.value, t)
    elif g.requires_grad or held.requires_grad:
        t.grad_value = held + g
    else:
        held.value = held.value + g.value
        held.changed()


def _sequence(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _seeds(roots, grads, fn):
    grads = _sequence(grads) if grads is not None else [None] * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"{fn}: grad_tensors should have the same length as tensors: got "
                           f"{len(grads)} and {len(roots)}")
    seeds = {}
    for k, (r, g) in enumerate(zip(roots, grads)):
        if not isinstance(r, Tensor) or not r.requires_grad:
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have "
                               "a grad_fn")
        s = seed(r, g, fn)
        seeds[id(r)] = seeds[id(r)] + s if id(r) in seeds else s
    return seeds


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate the gradients of ``tensors`` into the
    ``.grad`` of the leaves they depend on (or of ``inputs``)."""
    if grad_tensors is None and isinstance(tensors, Tensor) and tensors.grad_fn is not None:
        roots, seeds = [tensors], {id(tensors): seed(tensors, None, "backward")}  # the commonest
    else:
        roots = _sequence(tensors)
        seeds = _seeds(roots, grad_tensors, "backward")
    walk = Walk(roots)
    if inputs is not None:
        targets = _sequence(inputs)
        if not targets:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        given = {id(t) for t in targets}
        targets += [t for t in retained_after(walk, targets) if id(t) not in given]
    else:
        targets = leaves_of(walk)
        for r in roots:
            if r.grad_fn is None or r.retains_grad:  # a leaf, or a root that retains its grad
                targets.append(r)
    grads = walk.run(seeds, {id(t) for t in targets}, create_graph)
    for t in targets:
        g = grads.get(id(t))
        if g is not None:
            accumulate(t, run_hooks(t, g) if t.backward_hooks and t.grad_fn is None else g)
            if t.post_accumulate_hooks:
                run_post_accumulate(t)
    hooks = listeners()
    if hooks:
        walk.tell(hooks, roots, targets, [t.grad_value for t in targets])
    if not (create_graph if retain_graph is None else retain_graph):
        walk.free()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: d ``outputs`` / d ``inputs`` as a tuple; no ``.grad`` is set."""
    roots, sources = _sequence(outputs), _sequence(inputs)
    if is_grads_batched:  # one walk per row of grad_outputs, the results stacked
        batched = _sequence(grad_outputs)
        if any(not isinstance(g, CoreTensor) or g.ndim == 0 for g in batched):
            raise ValueError("autograd.grad(is_grads_batched=True): each grad_output needs a "
                             "leading batch dimension")
        n = batched[0].shape[0]  # every row's walk keeps the graph, but the last as asked
        rows = [grad(roots, sources, [g[b] for g in batched], True if b < n - 1 else retain_graph,
                     create_graph, only_inputs, allow_unused, False, materialize_grads)
                for b in range(n)]
        return tuple(None if r[0] is None else ops.stack(list(r)) for r in zip(*rows))
    if not sources:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    for s in sources:
        if not isinstance(s, Tensor) or not s.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    seeds = _seeds(roots, grad_outputs, "autograd.grad")
    walk = Walk(roots, sources)
    kept = retained_after(walk, sources)
    grads = walk.run(seeds, {id(s) for s in sources} | {id(t) for t in kept}, create_graph)
    for t in kept:
        if grads.get(id(t)) is not None:
            accumulate(t, grads[id(t)])
    results = []
    for s in sources:
        g = grads.get(id(s))
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            results.append(as_tensor_of(s.value * 0, s) if materialize_grads else None)
            continue
        g = as_tensor_of(run_hooks(s, g) if s.backward_hooks and s.grad_fn is None else g, s)
        if g.dtype != s.dtype:
            real_only("autograd.grad()", s, g)
            g = g.type(s.dtype)
        results.append(g)
    hooks = listeners()
    if hooks:
        walk.tell(hooks, roots, sources, results)
    if not (create_graph if retain_graph is None else retain_graph):
        walk.free()
    return tuple(results)
