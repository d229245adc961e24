"""PyTorch's autograd on gradmagic's engine: the graph kept on tensors (``walk.py``
walks it for ``backward`` and ``autograd.grad``).

PyTorch records an op when one of its inputs requires a gradient and keeps the graph on
the tensors (``grad_fn``), so it lives as long as they do. Here the engine tells the torch
tensor class of each op that makes one of its tensors (``made``) and, when an input
requires grad, the output gets a ``Node``: the engine's own entry (primitive, arguments,
their values, parameters) less the output, which holds it.

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

from .._backend import xp_of
from ..core import ops
from ..core.context import LEVEL
from ..core.tensor import Tensor as CoreTensor
from ..tracebacks import user_stacklevel
from .hooks import keep_hooks, register_node_hook
from .mismatch import mismatch
from .names import node_name, node_type
from .modes import GRAD, INFERENCE
from .values import c_name, castable, named, narrow, type_name
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
                 "label", "standins", "node_hooks", "__weakref__")

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
        self.standins = None  # {output index: the stand-in for it, once it changed in place}
        self.node_hooks = None  # {"pre"/"post": {key: hook}}, from register_prehook/register_hook
        self.__class__ = node_type(self)  # type(node).__name__ is PyTorch's name for it

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
        return self.label or node_name(self)

    @property
    def next_functions(self):
        """The nodes of the inputs, as PyTorch lists them: ``(grad_fn, 0)`` for each tensor
        operand, ``(AccumulateGrad, 0)`` for a leaf that requires grad, ``(None, 0)`` for one
        that does not and for the number of an ``add``, ``sub``, ``mul`` or ``div`` (which
        PyTorch wraps in a tensor, after the tensor); a ``where``'s condition and another
        op's numbers have none."""
        pairs = []
        for k in self.operands():
            source = None if k is None else self.sources[k]
            if k is not None and source is None and self.args[k].leaf_requires_grad:
                source = accumulator(self.args[k])
            pairs.append((source, 0))
        return tuple(pairs)

    def operands(self) -> list:
        """The positions among ``args`` of the inputs PyTorch's node lists (``next_functions``,
        a hook's ``grad_inputs``), in its order; None for a number it wraps in a tensor."""
        rules = self.prim.vjps if type(self.prim.vjps) is tuple else None
        tensors, numbers = [], []
        for k, a in enumerate(self.args):
            if rules is not None and k < len(rules) and rules[k] is None:
                continue
            if isinstance(a, CoreTensor) or hasattr(a, "shape") and np.ndim(a):
                tensors.append(k)
            elif k and self.prim.name in SCALAR_OPERANDS or not k and self.prim.name in COMMUTING:
                numbers.append(None)
        return tensors + numbers

    def register_prehook(self, hook):
        """``grad_fn.register_prehook(hook)``: ``hook(grad_outputs)`` runs before this node's
        backward and may return the ``grad_outputs`` to use (see ``hooks.with_node_hooks``)."""
        return register_node_hook(self, "pre", hook)

    def register_hook(self, hook):
        """``grad_fn.register_hook(hook)``: ``hook(grad_inputs, grad_outputs)`` runs after this
        node's backward and may return the ``grad_inputs`` to use."""
        return register_node_hook(self, "post", hook)

    def __repr__(self):
        return f"<{self.name()}>"


SCALAR_OPERANDS = {"add", "subtract", "multiply", "divide", "true_divide"}  # PyTorch's Scalar overloads
COMMUTING = {"add", "multiply"}  # whose number PyTorch puts second wherever it was written


class AccumulateGrad:
    """The node PyTorch shows for a leaf that requires grad, among ``next_functions``: where
    its gradient is accumulated into ``.grad`` (``variable``). One per leaf."""

    __slots__ = ("leaf", "__weakref__")
    next_functions = ()
    metadata = {}

    def __init__(self, leaf):
        key = id(leaf)
        self.leaf = weakref.ref(leaf, lambda ref: ACCUMULATORS.pop(key, None))

    @property
    def variable(self):
        return self.leaf()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return "<AccumulateGrad>"


ACCUMULATORS = {}  # id(leaf) -> its AccumulateGrad, while the leaf lives


def accumulator(leaf):
    """The ``AccumulateGrad`` of ``leaf`` (the same one each time, as PyTorch's)."""
    node = ACCUMULATORS.get(id(leaf))
    if node is None or node.variable is not leaf:
        node = ACCUMULATORS[id(leaf)] = AccumulateGrad(leaf)
    return node


Node.kind = Node  # what a node's named class derives from (a subclass sets its own)


def made(prim, args, vals, out, params):
    """``Tensor.made``, called by the engine for each differentiable op that makes a torch
    tensor: its float dtype made PyTorch's (``values.float_result``); when grad mode is on
    and an input requires grad, ``out`` gets its ``Node``."""
    v, w = out.value, vals[0]  # a first operand that is a tensor of the result's own type
    if args[0] is w or type(w) is not type(v) or type(v) is np.ndarray:  # (a NumPy scalar's
        if v.dtype.itemsize != 4:  # dtype is its type: none of this for one of the first's type)
            # a float64 NumPy may have widened to, or the float16 it gives a bool or a byte:
            # PyTorch's is its default float32
            narrow(out, prim, args, vals, params)
        elif hasattr(w, "ndim") and (w.dtype != v.dtype or w.ndim != v.ndim and len(vals) > 1
                                      and getattr(vals[1], "dtype", v.dtype) != v.dtype):
            narrow(out, prim, args, vals, params)  # a first array that does not decide: float16 + 0-d float32
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
    post_accumulate_hooks = None  # {key: hook}, from register_post_accumulate_grad_hook
    assigned = assigned_from = None  # the versions after and before the last `.data =` assignments
    assignments = 0  # how many there were

    __hash__ = object.__hash__  # by identity, as torch.Tensor
    made = staticmethod(made)  # the engine tells the class of each op that makes one
    mismatch = staticmethod(mismatch)  # and asks it for the error where shapes do not fit

    def __iter__(self):  # as PyTorch's: the rows of unbind (UnbindBackward0)
        if self.value.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self):
        if self.value.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.value)

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
                "non-leaf Tensor.", UserWarning, stacklevel=user_stacklevel())
        return self.grad_value

    @grad.setter
    def grad(self, g):
        if g is not None:  # as PyTorch checks an assigned gradient
            if not isinstance(g, CoreTensor):
                raise TypeError("assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(g).__name__}")
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

    _version = property(lambda self: self.version - self.assignments,
                        doc="The in-place changes so far (a `.data =` assignment is none, as PyTorch's).")

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self.grad_fn is None and self.value.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")  # (its words)
        self.requires_grad = requires_grad
        return self

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf tensor after ``backward``."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self.retains_grad = True

    def rebind(self, new, label="CopyBackwards", reshape=False):
        """The in-place step of every in-place op: this tensor now holds ``new`` (a tensor
        of the same shape, or of another with ``reshape``: ``squeeze_``, ``t_``), as a new
        version; the arrays nodes saved are left as they were.
        A ``new`` that no op connects to the graph, written in grad mode over a value that
        is in it (``copy_`` of a constant, ``normal_``, a comparison's bools), is recorded as
        PyTorch records it, under ``label``: the old values get gradient 0."""
        if not reshape and tuple(new.shape) != tuple(self.value.shape):
            raise RuntimeError(f"output with shape {list(self.value.shape)} doesn't match the "
                               f"broadcast shape {list(new.shape)}")
        if GRAD.get() and self.grad_fn is None and self.leaf_requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        value = new.value if isinstance(new, CoreTensor) else new
        if value.dtype != self.value.dtype:
            value = value.astype(castable(value.dtype, self.value.dtype))
        grad = GRAD.get()
        old, node = self.grad_fn, new.grad_fn if isinstance(new, Tensor) and grad else None
        if node is None and grad and old is not None:
            node = replaced(self, value, label).grad_fn
        if old is not None and node is not None:  # a walk through the old version needs it
            i = old.keep(self)
            if self.backward_hooks:  # the hooks so far stay with the old version (PyTorch's)
                keep_hooks(self, old, i)
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

    def assign(self, value):
        """``t.data = value``: a new version, which the nodes that used this tensor see as
        PyTorch's saved references do (``saved.assigned_since``)."""
        if self.assigned != self.version:  # the first of a run of assignments
            self.assigned_from = self.version
        self.value = value
        self.changed()
        self.assigned = self.version
        self.assignments += 1


def replaced(t, value, label):
    """``value`` (an array or a 0-d tensor) in every element of ``t``, as an op: its
    gradient to ``t`` is 0 (a tensor ``value`` gets the sum of the upstream), and the result
    requires grad where ``t`` does, as PyTorch's ``fill_`` and ``floor``."""
    every = xp_of(t.value).ones(t.value.shape, bool)
    return named(ops.where(every, value, t), label)


def as_tensor_of(g, like):
    """A gradient (raw array or Tensor) as a tensor of ``like``'s class."""
    if isinstance(g, Tensor):
        return g
    cls = like.result_class
    t = cls.__new__(cls)
    t.value = g.value if isinstance(g, CoreTensor) else g
    return t
