"""``torch.autograd.Function``: a PyTorch user's custom function as one recorded op.

``Function.apply`` runs ``forward`` without recording (as PyTorch runs it), then gives its
outputs one ``Node`` whose rule calls the user's ``backward``: the same joint primitive and
``CustomCall`` as ``gm.custom_gradient``, so the trace shows the call as one row and the
pitfall checks call ``backward`` again. What ``backward`` returns is checked as PyTorch
checks it (count, ``None`` for non-tensors, shape up to broadcasting, dtype), in PyTorch's
words.
"""

from __future__ import annotations

import functools
import inspect
import warnings

from ...core.backward import broadcast_axes, unbroadcast
from ...core.context import LEVEL, listeners
from ...core.custom import CustomCall, custom_primitive
from ...core.ops import astype
from ...core.primitive import Primitive, variadic
from ...core.tensor import Tensor as CoreTensor
from ...tracebacks import user_stacklevel
from ..graph import CHANGES, FREED, Node, Tensor, as_tensor_of
from ..modes import DUAL, GRAD, no_grad
from .forward_ad import function_tangents, unheard_by

WORDS = {"grad_fn": "backward", "upstream": "grad_output", "upstream gradient": "grad_output",
         "an": "a", "stop_gradient": "detach()", "example": "return grad_output * 2 * x",
         "check_grad": "torch.autograd.gradcheck", "create_graph": "create_graph=True",
         "forward": "jvp",
         "unrecorded_fix": "return it from forward as an extra output and save it with "
                           "ctx.save_for_backward (a saved output keeps its graph), or recompute "
                           "it in backward from ctx.saved_tensors",
         "one_op": "an autograd.Function's outputs are one op over the inputs of apply "
                   "({inputs}), whose forward runs under no_grad, as in PyTorch",
         "call": "{f}.apply({args})", "or": "", "function": "autograd.Function"}


class FunctionCtx:
    """``ctx``: what ``forward`` (or ``setup_context``) leaves for ``backward``."""

    needs_input_grad = ()
    to_save = saved_versions = ()
    saved_changes = 0  # in-place changes counted when they were saved (graph.CHANGES)
    non_differentiable = frozenset()
    dirty = ()  # the inputs forward changed in place (mark_dirty)
    for_forward = ()  # what save_for_forward saved, which saved_tensors gives jvp
    in_jvp = False
    materialize_grads = True
    freed = False  # the walk through its node freed what it saved (FunctionNode.freed)
    in_backward = False  # its backward is running (saved tensors stay readable meanwhile)
    tensor_outputs = None  # which outputs are tensors, where forward also returned others

    def save_for_backward(self, *tensors):
        if len(tensors) == 1 and isinstance(tensors[0], CoreTensor):  # the commonest: one tensor
            self.to_save, self.saved_versions = tensors, (getattr(tensors[0], "version", 0),)
            self.saved_changes = CHANGES[0]
            return
        for t in tensors:
            if t is not None and not isinstance(t, CoreTensor):
                raise TypeError(f"save_for_backward can only save variables, but argument "
                                f"{tensors.index(t)} is of type {type(t).__name__}")
        self.to_save = tensors
        self.saved_versions = tuple([getattr(t, "version", 0) for t in tensors])
        self.saved_changes = CHANGES[0]

    def save_for_forward(self, *tensors):
        """Keep ``tensors`` for ``jvp``, which reads them as ``ctx.saved_tensors``."""
        self.for_forward = tensors

    @property
    def saved_tensors(self):
        if self.in_jvp:
            return self.for_forward
        if self.freed and not self.in_backward:
            raise RuntimeError(FREED)
        if self.saved_changes == CHANGES[0]:  # no in-place op since: every version as saved
            return self.to_save
        for k, (t, v) in enumerate(zip(self.to_save, self.saved_versions)):
            if isinstance(t, Tensor) and t.version != v:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: saved tensor {k} of shape {list(t.shape)} is at "
                    f"version {t.version}; expected version {v} instead.")
        return self.to_save

    def mark_non_differentiable(self, *tensors):
        self.non_differentiable = self.non_differentiable | {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        """``forward`` changed these inputs in place: each is returned as the output it
        became, its history the call's (see ``_dirty``)."""
        self.dirty = self.dirty + tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


def once_differentiable(backward):
    """``torch.autograd.function.once_differentiable``: ``backward`` runs without
    recording, and a second-order pass through what it returned raises, as in PyTorch."""
    @functools.wraps(backward)
    def run(ctx, *grads):
        with no_grad():
            return backward(ctx, *grads)
    run.once_differentiable = True
    return run


def _twice(g, ans, *args):
    raise RuntimeError("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


ONCE = Primitive("once_differentiable")
ONCE.vjps = variadic(lambda i, g, ans, *args: _twice(g, ans))


class FunctionCall(CustomCall):
    """One ``apply``: its ``backward`` called with the upstream gradients, checked."""

    __slots__ = ("cls", "ctx", "args", "like")
    words = WORDS

    def __init__(self, cls, ctx, args, like):
        super().__init__(cls.__name__, None, cls.names(len(args)), args, (), cls, (), None,
                         LEVEL.get())
        self.cls, self.ctx, self.args, self.like = cls, ctx, args, like

    def gradients(self, g):
        ctx, like = self.ctx, self.like
        upstream = (as_tensor_of(g[0], like),) if len(g) == 1 else tuple(
            [as_tensor_of(u, like) for u in g])
        if ctx.tensor_outputs is not None:  # backward takes one per output: None for the others
            given = iter(upstream)
            upstream = tuple([next(given) if t else None for t in ctx.tensor_outputs])
        if not ctx.freed:  # the walk's own call (it frees the graph only after)
            result = self.cls.backward(ctx, *upstream)
        else:  # a check's, after the walk freed it: what it saved stays readable meanwhile
            was, ctx.in_backward = ctx.in_backward, True
            try:
                result = self.cls.backward(ctx, *upstream)
            finally:
                ctx.in_backward = was
        record = isinstance(g[0], CoreTensor)
        grads = self.check(result, record)
        if record and getattr(self.cls.backward, "once_differentiable", False):
            grads = tuple(None if r is None else _once(r, self.args) for r in grads)
        return grads

    def forward_function(self):
        return self.cls.forward

    leading = 1  # backward(ctx, *grad_outputs)

    def backward_function(self):
        return self.cls.backward

    def saved(self):
        return [(f"saved_tensors[{k}]", t) for k, t in enumerate(self.ctx.to_save) if t is not None]

    def unrecorded(self):
        """What ``backward`` reads that ``forward`` computed from its inputs without
        recording it: ``ctx`` attributes, and saved tensors that are neither inputs nor
        outputs; a double backward sees them as constants."""
        ctx, args = self.ctx, {id(a) for a in self.args}
        saved = {id(t) for t in ctx.to_save}
        kept = {f"ctx.{k}": (lambda c, k=k: vars(c).get(k), v) for k, v in vars(ctx).items()
                if isinstance(v, CoreTensor) and id(v) not in saved | args}
        for k, t in enumerate(ctx.to_save):  # an output keeps its graph (its node is the call's)
            if isinstance(t, CoreTensor) and id(t) not in args and getattr(
                    getattr(t, "grad_fn", None), "ctx", None) is not ctx:
                kept[f"saved_tensors[{k}]"] = (lambda c, k=k: c.to_save[k] if k < len(c.to_save) else None, t)
        kept = {name: (get, v) for name, (get, v) in kept.items()
                if v.dtype.kind == "f" and not (isinstance(v, Tensor) and v.requires_grad)}
        if not kept:
            return []
        # forward again with the inputs that require grad moved (a label's derivative is none
        # of backward's business): a kept value that moves with them was computed from them;
        # one that changes without them (a random mask) is left alone
        moved = [as_tensor_of(a.value + 1e-3 * (1 + abs(a.value)), a) if isinstance(
            a, Tensor) and a.dtype.kind == "f" and a.requires_grad else a for a in self.args]
        runs = []
        for given in (self.args, self.args, moved):  # (twice as it ran: a random value shows)
            again = FunctionCtx()
            with no_grad():
                run_forward(self.cls, again, given, {})
            runs.append(again)
        *same, after = runs
        return [name for name, (get, v) in kept.items() if all(_equal(get(s), v) for s in same)
                and isinstance(get(after), CoreTensor) and not _equal(get(after), v)]

    def check(self, result, record):
        """One gradient per forward input, as PyTorch's ``validate_outputs``."""
        args = self.args
        if len(args) == 1 and isinstance(result, CoreTensor) and isinstance(args[0], CoreTensor):
            gv, av = result.value, args[0].value  # the commonest: one gradient for one input,
            if gv.shape == av.shape and gv.dtype == av.dtype:  # right as it is (as in the loop)
                return (result if record else gv,)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.args)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]  # PyTorch drops extra Nones
            else:
                raise RuntimeError(f"function {self.name}Backward returned an incorrect number of "
                                   f"gradients (expected {n}, got {len(result)})")
        out = []
        for i, a in enumerate(self.args):
            gr = result[i]
            if gr is not None and isinstance(gr, CoreTensor) and isinstance(a, CoreTensor):
                gv, av = gr.value, a.value
                if gv.shape == av.shape and gv.dtype == av.dtype:  # the common case
                    out.append(gr if record else gv)
                    continue
            out.append(None if gr is None else self._checked(i, a, gr, record))
        return tuple(out)

    def _checked(self, i, a, gr, record):
        name = f"{self.name}Backward"
        if not isinstance(a, CoreTensor):
            raise RuntimeError(f"function {name} returned a gradient different than None at "
                               f"position {i + 1}, but the corresponding forward input was "
                               "not a Variable")
        if not isinstance(gr, CoreTensor):
            raise RuntimeError(f"function {name} returned a gradient of type {type(gr).__name__} at "
                               f"position {i + 1}: expected Variable or None (got "
                               f"{type(gr).__module__.split('.')[0]}.{type(gr).__name__})")
        shape = tuple(a.value.shape)
        if tuple(gr.value.shape) != shape:
            if broadcast_axes(tuple(gr.value.shape), shape) is None:
                raise RuntimeError(f"Function {name} returned an invalid gradient at index {i} - "
                                   f"got {list(gr.value.shape)} but expected shape compatible with "
                                   f"{list(shape)}")
            gr = unbroadcast(gr, shape)
        if gr.dtype != a.dtype:
            gr = astype(gr, a.dtype)
        return gr if record else gr.value

    def forward(self, *inputs):
        """``forward`` again on ``inputs``, without recording (for the checks)."""
        ctx = FunctionCtx()
        like = next(a for a in self.args if isinstance(a, Tensor))
        inputs = [as_tensor_of(x.value, like) if isinstance(x, CoreTensor) else x for x in inputs]
        with no_grad():
            out = run_forward(self.cls, ctx, inputs, {})
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(o for o in outs if isinstance(o, CoreTensor)), None


def _once(r, args):
    """``r`` as the output of a node that raises when a later pass differentiates it."""
    r = as_tensor_of(r.value if isinstance(r, CoreTensor) else r, next(
        a for a in args if isinstance(a, Tensor)))
    inputs = tuple(a for a in args if isinstance(a, Tensor) and a.requires_grad)
    if inputs:
        r.grad_fn = Node(ONCE, inputs, tuple(a.value for a in inputs), {}, (r,))
    return r


def _equal(a, t):
    """Whether ``a`` is a tensor of ``t``'s shape and values."""
    return isinstance(a, CoreTensor) and a.shape == t.shape and bool((a.value == t.value).all())


class FunctionNode(Node):
    """The node of one ``apply``. A walk that frees it tells its ``ctx`` too (which
    ``saved_tensors`` reads), so ``ctx`` holds no reference back to the node: the graph has
    no cycle, and goes as soon as nothing holds it, as PyTorch's."""

    __slots__ = ("ctx",)

    def __init__(self, ctx, prim, args, vals, params, outs):
        self.ctx = ctx
        super().__init__(prim, args, vals, params, outs)

    def free(self):
        self.freed = self.ctx.freed = True

    @property
    def saved_tensors(self):
        """``y.grad_fn.saved_tensors``: what ``forward`` saved, as ``ctx.saved_tensors``."""
        return self.ctx.saved_tensors


FunctionNode.kind = FunctionNode  # its named classes (``LegendrePolynomial3Backward``) derive from it


def run_forward(cls, ctx, args, kwargs):
    """The user's ``forward``, in either of PyTorch's two forms."""
    if cls.separate:
        out = cls.forward(*args, **kwargs)
        cls.setup_context(ctx, tuple(args), out)
        return out
    return cls.forward(ctx, *args, **kwargs)


class FunctionMeta(type):
    """Gives each ``Function`` subclass its primitive, its form (``setup_context`` or not)
    and its parameters' names, once."""

    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        cls.prim = custom_primitive(name, "backward(ctx, grad_output)")
        cls.separate = any("setup_context" in vars(c) for c in cls.__mro__[:-2])  # less Function, object
        forward = next((vars(c)["forward"] for c in cls.__mro__[:-2] if "forward" in vars(c)), None)
        try:  # (its own, or the one it inherits from a Function of the user's)
            params = list(inspect.signature(forward).parameters) if forward is not None else []
        except (TypeError, ValueError):
            params = []
        cls.input_names = tuple(params if cls.separate else params[1:])
        cls.arity_names = {}

    def names(cls, n):
        """The names of ``n`` arguments, as the trace shows them."""
        known = cls.arity_names.get(n)
        if known is None:
            known = cls.arity_names[n] = tuple(cls.input_names[:n]) + tuple(
                f"args[{k}]" for k in range(len(cls.input_names), n))
        return known


class Function(metaclass=FunctionMeta):
    """``torch.autograd.Function``: subclass it with static ``forward`` and ``backward``
    and call ``YourFunction.apply(*inputs)``.

    >>> import gradmagic.torch as torch
    >>> class Square(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 2
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         x, = ctx.saved_tensors
    ...         return grad_output * 2 * x
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> Square.apply(x).backward()
    >>> x.grad
    tensor(6.)
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
                           f" gradmagic.torch: call {type(self).__name__}.apply(...) instead of "
                           f"{type(self).__name__}()(...)")

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function "
                                  "to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run ``forward`` and record the call as one op whose gradient is ``backward``."""
        ctx = FunctionCtx()
        # before: each input's version and value, for one forward changes in place (mark_dirty)
        if len(args) == 1:  # the commonest
            a = args[0]
            ours = isinstance(a, Tensor)
            needs = ctx.needs_input_grad = (ours and (a.grad_fn is not None or a.leaf_requires_grad),)
            before = ((a.version, a.value) if ours else None,)
        else:
            needs = ctx.needs_input_grad = tuple([isinstance(a, Tensor) and a.requires_grad for a in args])
            before = [(a.version, a.value) if isinstance(a, Tensor) else None for a in args]
        hooks = listeners()
        for h in hooks:
            h.on_function_enter(cls.__name__, args, cls.names(len(args)))
        outs = None
        dual = DUAL[0]  # forward AD, where an input has a tangent at the dual level
        if dual is not None and not any(dual.tangent(a) is not None for a in args):
            dual = None
        try:
            token = GRAD.set(False)  # forward runs without recording, as in PyTorch
            try:
                if dual is None:
                    result = run_forward(cls, ctx, args, kwargs)
                else:
                    with unheard_by(dual):  # forward sees the primals, as PyTorch's
                        result = run_forward(cls, ctx, args, kwargs)
            finally:
                GRAD.reset(token)
            grad = GRAD.get()
            result, outs = _outputs(result, args, ctx.dirty if grad else ())
            if type(result) is tuple and len(outs) != len(result):
                ctx.tensor_outputs = tuple([isinstance(r, Tensor) for r in result])
            if ctx.dirty:
                _dirty(ctx, args, before, result, outs, cls if True in needs and grad else None)
            elif True in needs and grad:
                _record(cls, ctx, args, outs)
            if dual is not None:  # forward AD: the outputs' tangents from jvp
                like = next(a for a in args if isinstance(a, Tensor))
                function_tangents(FunctionCall(cls, ctx, args, like), result)
        finally:
            for h in hooks:
                h.on_function_exit(cls.__name__, outs)
        return result


def _outputs(result, args, dirty=()):
    """The outputs as new tensors where ``forward`` returned one of its inputs (PyTorch
    gives a view) other than one it changed in place (``dirty``: itself, in grad mode, as
    PyTorch), and the tensors among them."""
    if isinstance(result, Tensor):  # the commonest: one tensor, new unless it is an input
        for a in args:
            if a is result:
                break
        else:
            return result, (result,)
    single = not isinstance(result, tuple)
    items = [result] if single else list(result)
    for k, r in enumerate(items):
        if isinstance(r, CoreTensor) and (not isinstance(r, Tensor) or any(r is a for a in args)
                                          and not any(r is d for d in dirty)):
            like = next((a for a in args if isinstance(a, Tensor)), None)
            items[k] = as_tensor_of(r.value, like) if like is not None else r
    outs = tuple([r for r in items if isinstance(r, Tensor)])
    return (items[0] if single else tuple(items)), outs


def _record(cls, ctx, args, outs):
    dropped = ctx.non_differentiable
    if dropped and all(id(o) in dropped for o in outs):
        return
    if len(args) == 1:  # the commonest: one input (a tensor that requires grad, as apply found)
        like = args[0]
        vals = (like.value,)
    else:
        for like in args:
            if isinstance(like, Tensor) and like.requires_grad:
                break
        vals = tuple([a.value if isinstance(a, CoreTensor) else a for a in args])
    node = FunctionNode(ctx, cls.prim, args, vals, {"call": FunctionCall(cls, ctx, args, like)}, outs)
    for o in outs:  # outputs marked non-differentiable, or not floating, require no grad
        if o.value.dtype.kind in "fc" and not (dropped and id(o) in dropped):
            o.grad_fn = node
    return node


def _dirty(ctx, args, before, result, outs, cls):
    """The inputs ``forward`` changed in place (``ctx.mark_dirty``), as PyTorch has them:
    each must be returned; its version counts the call once more; where the call is
    recorded (``cls``), it is the call's output, and the call's input is its version
    before ``forward`` (its change under forward's no_grad is the call's, not a constant
    one); where it is not, the change stays a constant one, as any under no_grad."""
    returned = result if isinstance(result, tuple) else (result,)
    dirty = {}  # position among the inputs -> the input
    for t in ctx.dirty:
        k = next((k for k, a in enumerate(args) if a is t), None)
        if k is None:
            warnings.warn("ctx.mark_dirty() received a tensor that was not an input. Only input "
                          "Tensors that have been mutated should be passed to ctx.mark_dirty().",
                          UserWarning, stacklevel=user_stacklevel())
        elif GRAD.get() and not any(o is t for o in returned):
            raise RuntimeError("Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all "
                               "be outputs of the Function.")
        elif cls is not None and t.grad_fn is None and t.leaf_requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                               "operation.")
        else:
            dirty[k] = t
    node = _record(cls, ctx, args, outs) if cls is not None else None
    for k, t in dirty.items():
        if node is None:  # not recorded: a constant change, one version more
            t.unrecorded(t.value)
            continue
        version, value = before[k]
        old = node.sources[k]
        if old is not None and old.through:  # forward's change: recorded by the call after all
            old.through = {i: v for i, v in old.through.items() if old.outs[i]() is not t} or None
        node.versions = node.versions[:k] + (version,) + node.versions[k + 1:]
        node.vals = node.vals[:k] + (value,) + node.vals[k + 1:]
        node.changes = None  # its input is its output, changed: never walked as recorded
        t.changed()
        i = node.index(t)
        node.out_versions = node.out_versions[:i] + (t.version,) + node.out_versions[i + 1:]
