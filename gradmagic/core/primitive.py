"""Primitives and ``apply``: the one way an op runs, and is recorded.

A ``Primitive`` is an op's forward function (per array module) and its gradient rules
(``defvjp``; the rules themselves are in ``vjps.py``). ``apply`` runs one: raw arrays in
give a raw array out, at NumPy speed; a Tensor in gives a Tensor out, recorded on every
active tape (each tape keeps it only if it follows one of the inputs).
"""

import functools
import inspect

import numpy as np

from .._array_api import numpy_names
from .._backend import MODULES, SCALARS, common_xp, settle, xp_of
from .context import TAPES
from .tensor import Tensor

_new = object.__new__


class Primitive:
    """One differentiable (or declared non-differentiable) op.

    ``impl(xp)`` gives the forward function for an array module (``np``: the NumPy one);
    ``vjps[i]`` is the vector-Jacobian product for argument ``i`` (``None``: no gradient),
    called as ``vjp(g, ans, *args, **params)``; ``labels[i]`` is how the trace writes it.
    A ``joint`` primitive (a custom gradient) has one ``vjps(g, ans, args, params)``
    (the arguments as a tuple, the parameters as a dict: one call per op, unpacked by
    none) that returns the gradients of all arguments at once.
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
            else:  # bound to the module once (a partial: no Python frame per call)
                f = functools.partial(self.portable if ns is not xp and self.portable else self.forward, ns)
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


NO_PARAMS = {}  # the parameters of an op that has none (shared: never written to)
SEQUENCES = (list, tuple)  # operands an operator converts to arrays


def apply(prim, *args, **params):
    """Run ``prim``. Raw arrays in, raw array out; any Tensor in, a Tensor out, recorded
    on every active tape that follows one of the inputs."""
    n = len(args)
    if n == 2:  # the common cases, their own functions, since this runs once per op
        return binary(prim, args[0], args[1], params)
    if n == 1:
        return unary(prim, args[0], params)
    vals = tuple([b.value if isinstance(b, Tensor) else b for b in args])
    if all(v is b for v, b in zip(vals, args)):
        return prim.impl(common_xp(args))(*args, **params)
    cls = result_class(args)
    xp, vals = settle(vals, args)
    out = _new(cls)
    try:
        out.value = prim.impl(xp)(*vals, **params)
    except ValueError as e:  # as in binary
        mismatch = getattr(cls, "mismatch", None)
        if mismatch is None:
            raise
        raise mismatch(prim, vals, e) from None
    if prim.vjps is not None:
        for tape in TAPES.get():
            tape.on_op(prim, args, vals, out, params)
        if cls.made is not None:
            cls.made(prim, args, vals, out, params)
    return out


def unary(prim, a, params=NO_PARAMS):
    """``apply(prim, a, **params)``."""
    if not isinstance(a, Tensor):
        f = prim.np if MODULES.get(type(a)) is np else prim.impl(common_xp((a,)))
        return f(a, **params) if params else f(a)
    va = a.value
    f = prim.np if MODULES.get(type(va)) is np else prim.impl(xp_of(va))
    cls = a.result_class
    out = _new(cls)
    out.value = f(va, **params) if params else f(va)
    if prim.vjps is not None:
        tapes = TAPES.get()
        if tapes:
            args = (a,)
            for tape in tapes:
                tape.on_op(prim, args, (va,), out, params)
        if cls.made is not None:
            cls.made(prim, (a,), (va,), out, params)
    return out


def binary(prim, a, b, params=NO_PARAMS):
    """``apply(prim, a, b, **params)``: an operator's, with no parameters."""
    if isinstance(a, Tensor):
        va, cls = a.value, a.result_class
        if isinstance(b, Tensor):
            vb = b.value
            if cls is Tensor:
                cls = b.result_class
        else:
            vb = b
    elif isinstance(b, Tensor):
        va, vb, cls = a, b.value, b.result_class
    elif MODULES.get(type(a)) is np and MODULES.get(type(b)) is np:  # NumPy values: a rule's op
        return prim.np(a, b, **params) if params else prim.np(a, b)
    else:
        return prim.impl(common_xp((a, b)))(a, b, **params)
    xp, xb = MODULES.get(type(va)), MODULES.get(type(vb))
    if xp is not xb:  # a Python number goes with any module; anything else is checked
        if xb is None and type(vb) in SCALARS and xp is not None:
            pass
        elif xp is None and type(va) in SCALARS and xb is not None:
            xp = xb
        else:  # a host operand meeting a device Tensor goes to the device
            xp, (va, vb) = settle(_arrays(va, vb), (a, b))
    elif xp is None:
        xp, (va, vb) = settle(_arrays(va, vb), (a, b))
    f = prim.np if xp is np else prim.impl(xp)
    out = _new(cls)
    try:
        out.value = f(va, vb, **params) if params else f(va, vb)
    except ValueError as e:  # shapes that do not fit: a dialect's class says so in its words
        mismatch = getattr(cls, "mismatch", None)
        if mismatch is None:
            raise
        raise mismatch(prim, (va, vb), e) from None
    if prim.vjps is not None:
        tapes = TAPES.get()
        if tapes:
            args, vals = (a, b), (va, vb)
            for tape in tapes:
                tape.on_op(prim, args, vals, out, params)
        if cls.made is not None:
            cls.made(prim, (a, b), (va, vb), out, params)
    return out


def _arrays(va, vb):
    """``(va, vb)`` with a list operand (``[[1., 2., 3.]] @ w``) an array of the other's
    module, as NumPy converts one, so that the op's rules are given arrays."""
    if type(va) in SEQUENCES:
        va = xp_of(vb).asarray(va)
    if type(vb) in SEQUENCES:
        vb = xp_of(va).asarray(vb)
    return va, vb


def computed_in(prim, vals, params, dtype):
    """``prim`` on the values ``vals`` again, their bool and integer arrays cast to ``dtype``
    first: for a dialect whose float functions take those to a wider float than the float16
    NumPy gives a bool or a byte (``exp``, ``sqrt``), so the result keeps that float's digits."""
    vals = [v.astype(dtype) if np.dtype(getattr(v, "dtype", "f")).kind in "biu" else v for v in vals]
    return prim.impl(common_xp(vals))(*vals, **params)


def result_class(args):
    """The class of an op's result: a Tensor, unless an argument's class says otherwise
    (a dialect's tensors, ``gradmagic.torch``'s, give results of their own class, and that
    class's ``made`` hook, when it has one, hears each differentiable op that makes one)."""
    for a in args:
        if isinstance(a, Tensor) and a.result_class is not Tensor:
            return a.result_class
    return Tensor


class Composite:
    """An op made of other ops (``np.sort``: an argsort, then a gather), as a trace shows it:
    one row named ``name`` whose local derivative reads ``labels``, one per parameter of the
    function (the last repeated; ``{0}``, ``{1}`` stand for the inputs' names), or one
    Primitive, whose rules' labels are read; where ``elementwise``, the numbers its rules
    multiplied by instead, when they can be told (one input, of the output's shape). Its
    ops are recorded as they run, so its gradient is theirs; only what a listener hears
    is grouped."""

    __slots__ = ("name", "labels", "elementwise", "fn", "_signature")

    def __init__(self, name, labels, elementwise, fn):
        self.name, self.labels, self.elementwise, self.fn = name, labels, elementwise, fn
        self._signature = None

    def label(self, k):
        """The local derivative's label for parameter ``k``: from ``labels``, or, where they
        are one Primitive's (an op that unpacks its outputs), from its rules'."""
        labels = self.labels
        if isinstance(labels[0], Primitive):
            labels = labels[0].labels or (labels[0].name,)
        return labels[min(k, len(labels) - 1)]

    def inputs(self, args, kwargs):
        """The Tensors a call takes (one level into its lists and tuples), in the order of
        the function's parameters, each with its parameter's label."""
        if self._signature is None:
            signature = inspect.signature(self.fn)
            rest = [k for k, p in enumerate(signature.parameters.values()) if p.kind is p.VAR_POSITIONAL]
            self._signature = signature, (rest[0] if rest else None)
        signature, rest = self._signature
        if kwargs:  # bound to the parameters by name (Python's binding is slow: only here)
            try:
                slots = list(enumerate(signature.bind(*args, **kwargs).arguments.values()))
            except TypeError:  # the call itself will say what is wrong with it
                slots = list(enumerate(args + tuple(kwargs.values())))
        else:  # the commonest: all positional, argument k is parameter k (or *args from ``rest``)
            slots = [(k if rest is None or k < rest else rest, v) for k, v in enumerate(args)]
        tensors, params, first = [], [], {}
        for k, v in slots:
            for t in (v if isinstance(v, (list, tuple)) else (v,)):
                if isinstance(t, Tensor):
                    first.setdefault(k, len(tensors))
                    tensors.append(t)
                    params.append(k)
        # a label's {k} is parameter k: the k-th input where every argument is a Tensor, else
        # renumbered to that parameter's input, or, where it has none, its parameter's name
        names = list(signature.parameters)
        return tuple(tensors), tuple(_renumbered(self.label(k), first, names) for k in params)

    def __repr__(self):
        return f"<Composite {self.name}>"


def _renumbered(label, first, names):
    if "{" not in label:
        return label
    return label.format(*[f"{{{first[k]}}}" if k in first else names[k] for k in range(len(names))])


def composite(*labels, name=None, elementwise=False):
    """Make ``f``, an op written with other ops, one op to a listener: its calls are told to
    ``on_composite_enter``/``on_composite_exit`` around the ops it runs (see ``Composite``).
    With no listener, a call costs one lookup."""
    def wrap(f):
        op = Composite(name or f.__name__, labels, elementwise, f)

        @functools.wraps(f)
        def run(*args, **kwargs):
            tapes = TAPES.get()
            if tapes:
                heard = [t for t in tapes if not t.records]
                if heard:
                    return _heard(op, heard, f, args, kwargs)
            return f(*args, **kwargs)
        run.composite = op
        return run
    return wrap


def _heard(op, heard, f, args, kwargs):
    inputs, labels = op.inputs(args, kwargs)
    for h in heard:
        h.on_composite_enter(op, inputs, labels)
    try:
        out = f(*args, **kwargs)
    except BaseException:
        for h in heard:
            h.on_composite_exit(op, None)
        raise
    outs = tuple(o for o in (out if isinstance(out, (list, tuple)) else (out,)) if isinstance(o, Tensor))
    for h in heard:
        h.on_composite_exit(op, outs)
    return out


def record_custom(prim, inputs, ys, outs, params):
    """Record a function with its own gradient, as TensorFlow does: on each tape that
    follows one of ``inputs``, ``outs`` come from one ``prim`` op over ``inputs``; on a
    tape that follows none of them, each out is linked to the body's own ``y``, so the
    body's ops still connect it."""
    if len(inputs) == 1:  # the commonest: one input
        a = inputs[0]
        vals = (a.value if isinstance(a, Tensor) else a,)
    else:
        vals = tuple([a.value if isinstance(a, Tensor) else a for a in inputs])
    for tape in TAPES.get():
        tape.on_custom_op(prim, inputs, vals, ys, outs, params)
