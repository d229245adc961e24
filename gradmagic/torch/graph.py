"""PyTorch's autograd on gradmagic's engine: the graph kept on tensors, and the
walk of ``backward`` and ``autograd.grad``.

PyTorch records an op when one of its inputs requires a gradient and keeps the graph on
the tensors (``grad_fn``), so it lives as long as they do. Here the engine tells the torch
tensor class of each op that makes one of its tensors (``made``) and, when an input
requires grad, the output gets a ``Node``: the engine's own entry (primitive, arguments,
their values, parameters) less the output, which holds it.
``run_backward`` gathers the nodes the roots depend on, sorts them by creation (their
execution order) and hands them to ``core.backward.backward``: the walk, the rule table
and the listeners (a trace) of ``GradientTape``.

In-place ops never write into an array a node saved: they rebind the tensor to a new
array and count a new version, so a gradient is always that of the computation as it
ran; a node that used an older version of a tensor is walked with a stand-in for it.
"""

from __future__ import annotations

import itertools
import operator
import warnings
import weakref

import numpy as np

from .._backend import MODULES
from ..core import ops
from ..core.backward import backward as walk_back
from ..core.backward import ones
from ..core.context import LEVEL, listeners
from ..core.tape import TapeView
from ..core.tensor import Tensor as CoreTensor
from .anomaly import hooks_with_anomaly
from .hooks import LIVE, with_hooks
from .hooks import run as run_hooks
from .modes import GRAD, INFERENCE
from .values import c_name, castable, narrow, step_name, type_name
from .views import after_change, put_state, sharing, state_of

# -- the graph -------------------------------------------------------------------------------
_serials = itertools.count()
CHANGES = [0]  # in-place changes so far: a node recorded since the last one needs no version check
SERIAL = operator.attrgetter("serial")  # creation order: the order ops ran

FREED = ("Trying to backward through the graph a second time (or directly access saved "
         "tensors after they have already been freed). Saved intermediate values of the graph "
         "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
         "you need to backward through the graph a second time or if you need to access saved "
         "tensors after calling backward.")


class Node:
    """``grad_fn``: one recorded op, as the engine's entry less its outputs (which hold
    it), with the versions of the tensors it used and the nodes that made them."""

    __slots__ = ("prim", "args", "vals", "params", "outs", "metas", "versions", "out_versions",
                 "sources", "grad_ids", "changes", "kept", "through", "serial", "level", "freed",
                 "label", "__weakref__")

    def __init__(self, prim, args, vals, params, outs):
        self.prim, self.args, self.vals, self.params = prim, args, vals, params
        if len(outs) == 1:  # the commonest: one output
            o = outs[0]
            self.outs, self.out_versions = (weakref.ref(o),), (o.version,)
            # what an output nobody holds any more looks like (only an op with several
            # outputs, or a custom function's, can be walked without one of them: a single
            # output of any other op is held by what reached it)
            self.metas = ((o.value.shape, o.value.dtype, type(o), type(o.value)),) if prim.joint else None
        else:
            self.outs = tuple([weakref.ref(o) for o in outs])
            self.out_versions = tuple([o.version for o in outs])
            self.metas = tuple([(o.value.shape, o.value.dtype, type(o), type(o.value)) for o in outs])
        if len(args) == 1 and isinstance(args[0], Tensor):  # the commonest: one tensor
            a = args[0]
            source = a.grad_fn
            self.versions, self.sources = (a.version,), (source,)
            self.grad_ids = (id(a),) if source is not None or a.leaf_requires_grad else ()
        else:
            versions, sources, grad_ids = [], [], []
            for a in args:
                ours = isinstance(a, Tensor)
                versions.append(a.version if ours else None)
                sources.append(a.grad_fn if ours else None)
                if ours and (a.grad_fn is not None or a.leaf_requires_grad):
                    grad_ids.append(id(a))
            self.versions, self.sources, self.grad_ids = tuple(versions), tuple(sources), grad_ids
        self.changes = CHANGES[0]
        self.kept = None  # {output index: its value}, once an in-place op replaced one
        self.through = None  # {output index: (version, value)}: its last change no op recorded
        self.serial = next(_serials)
        self.level = LEVEL.get()  # the order of the backward pass that recorded it (0: none)
        self.freed = False
        self.label = None  # PyTorch's name for the function whose last op this is, if it has one

    def free(self):
        """A walk went through it without ``retain_graph``: a second one raises."""
        self.freed = True

    def index(self, t):
        """The position of ``t`` among the outputs."""
        return next(i for i, r in enumerate(self.outs) if r() is t)

    def keep(self, t):
        """Keep the value output ``t`` holds, as this op made it (an in-place change is about
        to replace it; a later one keeps nothing more); the output's position."""
        i = self.index(t)
        if self.kept is None:
            self.kept = {}
        self.kept.setdefault(i, t.value)
        return i

    def name(self) -> str:
        """As PyTorch names it: ``MulBackward0``, ``LegendrePolynomial3Backward``, or, for the
        last op of a function made of ops (``F.binary_cross_entropy_with_logits``), that
        function's (``BinaryCrossEntropyWithLogitsBackward0``)."""
        return self.label or step_name(self.prim)

    @property
    def next_functions(self):
        """The nodes of the inputs, as ``(grad_fn, 0)`` pairs (``(None, 0)`` for leaves)."""
        return tuple((n, 0) for n in self.sources)

    def __repr__(self):
        return f"<{self.name()}>"


def made(prim, args, vals, out, params):
    """``Tensor.made``, called by the engine for each differentiable op that makes a torch
    tensor: its float dtype made PyTorch's (``values.float_result``); when grad mode is on
    and an input requires grad, ``out`` gets its ``Node``."""
    v, w = out.value, vals[0]  # a first operand that is a tensor of the result's own type
    if (args[0] is w or type(w) is not type(v) or type(v) is np.ndarray) and v.dtype.itemsize == 8:
        narrow(out, args, params)  # a float64 NumPy may have widened to (a NumPy scalar's type is its dtype)
    if GRAD.get() and out.value.dtype.kind in "fc":
        for a in args:
            if isinstance(a, Tensor) and (a.grad_fn is not None or a.leaf_requires_grad):
                if INFERENCE.get():  # enable_grad inside inference_mode: still nothing recorded
                    out.inference = True
                    return
                out.grad_fn = Node(prim, args, vals, params, (out,))
                return
    elif INFERENCE.get():
        out.inference = True


class Tensor(CoreTensor):
    """A tensor with PyTorch's autograd state: ``requires_grad`` (a leaf's flag),
    ``grad``, ``grad_fn`` (the ``Node`` that made it), and a version counted by in-place
    ops. ``gradmagic.torch.Tensor`` adds the rest of PyTorch's methods."""

    grad_fn, mutable = None, True
    state, put_state, sharing = state_of, put_state, sharing  # (Snapshot's: see core.tensor)
    grad_value, version = None, 0  # what .grad holds; bumped by each in-place op
    leaf_requires_grad = False
    retains_grad = False
    base = None  # the tensor a `.data` or `.detach()` alias writes through to
    untracked = False  # a `.data` alias: what it writes the graph does not see (as PyTorch's)
    aliases = None  # weak references to the `.detach()` and `.data` aliases made of it
    inference = False  # made under inference_mode
    backward_hooks = None  # {key: hook}, from register_hook

    __hash__ = object.__hash__  # by identity, as torch.Tensor
    made = staticmethod(made)  # the engine tells the class of each op that makes one

    @property
    def requires_grad(self) -> bool:
        return self.grad_fn is not None or self.leaf_requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        if self.grad_fn is not None:
            if flag:  # it does already: nothing to change, as PyTorch
                return
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                               "want to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        if flag and self.value.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.leaf_requires_grad = bool(flag)

    @property
    def grad(self):
        """The gradient ``backward`` accumulated here (leaves, non-leaves that ``retain_grad()``)."""
        if self.grad_fn is not None and not self.retains_grad and self.grad_value is None:
            warnings.warn(  # as PyTorch, only where nothing was accumulated (backward(inputs=))
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor.", UserWarning, stacklevel=2)
        return self.grad_value

    @grad.setter
    def grad(self, g):
        if g is not None:  # as PyTorch checks an assigned gradient
            if tuple(g.shape) != tuple(self.value.shape):
                raise RuntimeError(f"attempting to assign a gradient of size '{list(g.shape)}' to a "
                                   f"tensor of size '{list(self.value.shape)}'. Please ensure that "
                                   "the gradient and the tensor are the same size")
            if g.dtype != self.value.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{c_name(g.dtype)}' "
                                   f"to a tensor with grad_dtype '{type_name(self.value.dtype)}'. The "
                                   "gradient must match the tensor's grad_dtype (defaults to the "
                                   "tensor's dtype)")
        self.grad_value = g

    def is_inference(self) -> bool:
        """``Tensor.is_inference()``: made by an op or a factory under ``inference_mode``."""
        return self.inference

    _version = property(lambda self: self.version, doc="The in-place changes so far.")

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def requires_grad_(self, requires_grad=True):
        self.requires_grad = requires_grad
        return self

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after ``backward``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self.retains_grad = True

    def rebind(self, new):
        """The in-place step of every in-place op: this tensor now holds ``new`` (a tensor
        of the same shape), as a new version; the arrays nodes saved are left as they were."""
        if tuple(new.shape) != tuple(self.value.shape):
            raise RuntimeError(f"output with shape {list(self.value.shape)} doesn't match the "
                               f"broadcast shape {list(new.shape)}")
        if GRAD.get() and self.grad_fn is None and self.leaf_requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        value = new.value if isinstance(new, CoreTensor) else new
        if value.dtype != self.value.dtype:
            value = value.astype(castable(value.dtype, self.value.dtype))
        old, node = self.grad_fn, new.grad_fn if isinstance(new, Tensor) and GRAD.get() else None
        if old is not None and node is not None:  # a walk through the old version needs it
            old.keep(self)
        if node is not None:  # the op is recorded: its output is this tensor, new version
            self.value = value
            self.changed()
            node.outs, node.out_versions = (weakref.ref(self),), (self.version,)
            self.grad_fn = node
        else:  # changed under no_grad: a constant change, as in PyTorch
            self.unrecorded(value)
        if self.base is not None:
            if self.untracked:  # `.data`: the graph sees the new value as the old (PyTorch's)
                self.base.value = value
            else:
                self.base.unrecorded(value)
        (self if self.base is None else self.base).spread(value)
        after_change(self, new)  # its views made again, its tangent new's (forward AD)
        return self

    def alias(self):
        """A tensor of this one's value, without its graph, sharing it as PyTorch's ``detach()``
        does: an in-place op on it, its ``base`` or another alias of that is seen by all."""
        root = self if self.base is None else self.base
        out = type(self).__new__(type(self))
        out.value, out.base = self.value, root
        live = [r for r in root.aliases or () if r() is not None]  # (the dead ones dropped)
        root.aliases = live + [weakref.ref(out)]
        return out

    def spread(self, value):
        """Give ``value``, this tensor's new one, to its live aliases."""
        for ref in self.aliases or ():
            t = ref()
            if t is not None and t.value is not value:
                t.value = value

    def unrecorded(self, value):
        """This tensor now holds ``value``, changed where no op records it (no_grad, detach()):
        the op that made it is walked with the value it made, and the gradient of the new
        version passes to it unchanged, as PyTorch's (which raises where the op saved it)."""
        node = self.grad_fn
        i = node.keep(self) if node is not None else None
        self.value = value
        self.changed()
        if node is not None:
            node.through = {**(node.through or {}), i: (self.version, value)}

    def changed(self):
        """Count an in-place change of this tensor: a new version."""
        self.version += 1
        CHANGES[0] += 1


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

    def __init__(self, roots):
        found, seen, top = [], set(), 0
        todo = [r.grad_fn for r in roots if r.grad_fn is not None]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            if node.freed:
                raise RuntimeError(FREED)
            seen.add(node)
            found.append(node)
            if node.level > top:
                top = node.level
            for n in node.sources:
                if n is not None:
                    todo.append(n)
        found.reverse()  # a chain's nodes, found from its end, are then in creation order
        found.sort(key=SERIAL)
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
                    continue
            entries.append(self._entry(n))
            if self.bridges:
                entries += self.bridges
                self.bridges = []
        self.hooked = {}  # id(tensor) -> its gradient after its hooks (register_hook)
        self.entries = with_hooks(entries, ids, self.hooked) if LIVE[0] else entries
        self.order = 1 + top  # one more than the highest order among the nodes' passes

    def _as_it_was(self, t, version, value):
        """``t`` itself, or a stand-in for the ``value`` it had at ``version``."""
        if t.version == version:
            return t
        if t.grad_fn is None and t.leaf_requires_grad:  # a leaf changed in place since
            raise RuntimeError(
                f"one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{_type_name(t)} {list(t.shape)}] is at version "
                f"{t.version}; expected version {version} instead.")
        key = (id(t), version)
        if key not in self.standins:
            stand = self.standins[key] = type(t).__new__(type(t))
            stand.value, stand.stands_for = value, t  # a trace shows it as t then
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
        args = []
        for a, v, val, source in zip(node.args, node.versions, node.vals, node.sources):
            if isinstance(a, Tensor):
                a = self._as_it_was(a, v, val)
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
                now, o = o, self._as_it_was(o, v, node.kept.get(i) if node.kept else None)
                if node.through and i in node.through:  # changed since, where no op recorded
                    after = self._as_it_was(now, *node.through[i])  # it: the gradient of the
                    self.ids.add(id(after))  # version after passes to the version it made
                    self.bridges.append((ops.IDENTITY, (o,), (o.value,), after, {}))
            self.ids.add(id(o))
            outs.append(o)
        out = tuple(outs) if node.prim.joint else outs[0]
        return (node.prim, tuple(args), node.vals, out, node.params)

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


def _type_name(t):
    return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor"}.get(
        str(t.dtype), f"torch.{t.dtype}Tensor")


def as_tensor_of(g, like):
    """A gradient (raw array or Tensor) as a tensor of ``like``'s class."""
    if isinstance(g, Tensor):
        return g
    cls = like.result_class
    t = cls.__new__(cls)
    t.value = g.value if isinstance(g, CoreTensor) else g
    return t


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


def accumulate(t, g):
    """``t.grad += g``, as PyTorch accumulates into a leaf."""
    held = t.grad_value
    if held is None and not isinstance(g, CoreTensor) and g.dtype == t.value.dtype:
        t.grad_value = as_tensor_of(g, t)  # the commonest: a first raw gradient, as it is
        return
    fresh = not isinstance(g, Tensor)  # a tensor made here, which nothing else holds
    g = as_tensor_of(g, t)
    if g.dtype != t.dtype:
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
    walk = Walk(roots)
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
        results.append(g if g.dtype == s.dtype else g.type(s.dtype))
    hooks = listeners()
    if hooks:
        walk.tell(hooks, roots, sources, results)
    if not (create_graph if retain_graph is None else retain_graph):
        walk.free()
    return tuple(results)
