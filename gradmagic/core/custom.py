"""``custom_gradient``: TensorFlow's decorator, as an adapter with validation.

The decorated function runs as usual (active tapes record its ops); its outputs are
then recorded as one op over its inputs, and the variables it read, whose gradient is
``grad_fn`` (see ``primitive.record_custom``). What ``grad_fn`` returns is checked, as
JAX checks a custom VJP (``check_gradients``, beside the call, not inside it): count,
shape and dtype per input, with errors that name the function and the input. Inputs are the
positional arguments, as TensorFlow records them; keyword arguments are hyper-parameters.
gradmagic is stricter than TensorFlow where TensorFlow fails silently: a gradient of the wrong
shape is an error, and so is a Tensor passed by keyword that a tape follows.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

import numpy as np

from .._backend import MODULES, kind, xp_of
from ..errors import GradientTypeError, GradientValueError
from .context import LEVEL, TAPES, Listener, level, listeners, push, remove, stack
from .nest import NESTS, flatten, is_nest
from .ops import astype
from .primitive import Primitive, record_custom
from .tensor import Tensor, Variable


class _VariableWatcher(Listener):
    """Listens while a custom function runs, to learn which Variables it reads."""

    def __init__(self):
        self.variables = {}

    def on_op(self, prim, args, vals, out, params):
        for a in args:
            if type(a) is Variable and a.trainable:
                self.variables.setdefault(id(a), a)

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        self.on_op(prim, inputs, vals, None, params)


NO_KEYWORDS = {}  # the keyword arguments of a call that has none (shared: never written to)


def _call_gradients(g, ans, args, params):
    return params["call"].gradients(g)


def custom_primitive(name: str, label: str) -> Primitive:
    """The joint primitive that a custom function's calls are recorded as: its one rule asks
    the call it is given (``params["call"]``, a ``CustomCall``) for every input's gradient;
    ``label`` is how a trace writes the local derivative."""
    prim = Primitive(name)
    prim.vjps, prim.joint, prim.labels = _call_gradients, True, (label,)
    return prim


def _describe(v):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return f"{type(v).__name__} of shape {tuple(v.shape)} and dtype {v.dtype}"
    return f"{type(v).__name__} {v!r:.60}"


class CustomCall:
    """One call of a custom function: what its gradient needs and what to check."""

    __slots__ = ("name", "grad_fn", "names", "inputs", "variables", "function", "lead", "kw",
                 "level", "unflatten")
    # how notes about this call name its parts (a dialect speaks its framework's words)
    words = {"grad_fn": "grad_fn", "upstream": "upstream", "upstream gradient": "upstream gradient",
             "an": "an", "stop_gradient": "stop_gradient", "example": "return upstream * 2 * x",
             "check_grad": "gm.check_grad", "create_graph": "an outer tape",
             "forward": "grad_fn, transposed",
             "unrecorded_fix": "compute it from the inputs inside grad_fn",
             # why a value the function reads without taking it gets no gradient, how to
             # call it with that value, and what else would do
             "one_op": "a custom_gradient function's outputs are one op over its inputs "
                       "({inputs}), as in TensorFlow",
             "call": "{f}({args})", "function": "custom_gradient function",
             "or": " (or make it a gm.Variable: grad_fn then receives it in variables=)"}

    tensors = False  # whether grad_fn gets Tensors in a plain backward pass (else arrays: quicker)
    # whether forward mode gives the outputs the tangents of the body's own ops, as plain code,
    # rather than grad_fn's transposed (JAX's custom_vjp, differentiated forward over reverse)
    body_tangents = False
    # a dialect's function that makes a gradient of a type of its own (TensorFlow's
    # IndexedSlices) the Tensor it stands for, anything else as it is; None: no such type
    densify = None

    def __init__(self, name, grad_fn, names, inputs, variables, function=None, lead=(), kw=None,
                 level=0, unflatten=None):
        self.name, self.grad_fn, self.names = name, grad_fn, names
        self.inputs, self.variables = inputs, variables  # inputs: the arguments' leaves
        self.function = function  # the CustomGradientFunction (None: no forward to run again)
        self.lead, self.kw = lead, kw or NO_KEYWORDS  # its bound object, its keyword arguments
        self.level = level  # the backward pass it ran in (1: it is a grad_fn, nested)
        self.unflatten = unflatten  # leaves -> the arguments, where some were nested

    def forward(self, *inputs):
        """The function again on ``inputs`` (one per leaf): ``(outputs' leaves, grad_fn)``
        (for checks)."""
        args = self.unflatten(inputs) if self.unflatten is not None else inputs
        y, grad_fn = self.function.__wrapped__(*self.lead, *args, **self.kw)
        return tuple(flatten(y)[0]), grad_fn

    def forward_function(self):
        """The user's function that computes the outputs (for checks and their notes)."""
        return getattr(self.function, "__wrapped__", self.function)

    leading = 0  # parameters of backward_function() before the upstream gradients

    def backward_function(self):
        """The user's function that gives the gradients: ``grad_fn``."""
        return self.grad_fn

    def forward_tangents(self, tangent):
        """A dialect's own forward-mode rule for this call (JAX's ``custom_jvp`` rule): the
        tangents of the outputs' leaves, given ``tangent(x)`` of each input (None: none).
        None where it has none: forward mode then transposes ``grad_fn``."""
        return None

    def saved(self) -> list:
        """``(name, value)`` for what the rule saved for its backward pass, where a dialect
        makes that explicit (PyTorch's ``ctx.save_for_backward``, JAX's residuals)."""
        return []

    def unrecorded(self) -> list:
        """Names of values ``grad_fn`` reads that its function computed from its inputs
        where no tape follows them (a dialect's; none for ``custom_gradient``)."""
        return []

    def where(self, i: int) -> str:
        """Input or variable ``i`` in words: ``input 0 ('x')``, ``variable 'w'``."""
        if i < len(self.names):
            return f"input {i} ({self.names[i]!r})"
        v = self.variables[i - len(self.names)]
        return f"variable {v.name!r}"

    def gradients(self, g):
        """Call ``grad_fn`` with the upstream gradient(s); check and return one gradient
        per input, then per variable."""
        upstream = g  # one per output: the entry of a custom op always has a tuple of outputs
        record = isinstance(upstream[0], Tensor)
        if not record and (self.tensors or MODULES.get(type(upstream[0])) is not np
                           and xp_of(upstream[0]) is not np):
            # a dialect's grad_fn gets Tensors, as its framework gives them (TensorFlow's:
            # upstream.numpy(), upstream.shape.as_list()); and
            # on a device, grad_fn gets Tensors, whose values are taken back in check_gradient:
            # the host constants it holds (a dropout mask, np.eye(3)) then go to the device as
            # in the forward (a raw CuPy array refuses them), and an array-API module's
            # arrays, which do not defer to a Tensor in operators, meet the forward's Tensors
            upstream = tuple(Tensor(u) for u in upstream)
        try:
            if self.variables:
                result = self.grad_fn(*upstream, variables=list(self.variables))
            else:
                result = self.grad_fn(*upstream)
        except Exception as e:
            e.add_note(f"(raised by the {self.words['grad_fn']} of {self.words['function']} "
                       f"{self.name!r})")
            raise
        if len(self.inputs) == 1 and not self.variables and isinstance(result, Tensor) and not record:
            x = self.inputs[0]  # the commonest result, one gradient for one input: when it is
            if as_is(x.value if isinstance(x, Tensor) else x, result.value):  # already right,
                return (result.value,)  # nothing more is checked or converted
        return check_gradients(self, result, record)


# -- what grad_fn returned, checked (as JAX's _flatten_bwd checks a custom VJP's) ------------
def check_gradients(call: CustomCall, result, record: bool) -> tuple:
    """``grad_fn``'s ``result`` as one checked gradient per input, then per variable:
    Tensors when ``record`` (an outer tape records the backward pass), else raw arrays."""
    nx = len(call.names)
    if nx == 1 and not call.variables and not isinstance(result, (tuple, list)):
        return (check_gradient(call, 0, result, record),)  # one input, one bare gradient
    if call.variables:
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            raise GradientTypeError(
                f"custom_gradient({call.name}): {call.name} uses variables, so grad_fn must "
                f"return a pair (grad_xs, grad_vars), got {_describe(result)}")
        grad_xs, grad_vars = result
        grad_xs = _sequence(call, grad_xs, nx, "input")
        grad_vars = _sequence(call, grad_vars, len(call.variables), "variable", bare=False)
        grads = grad_xs + grad_vars
    else:
        grads = _sequence(call, result, nx, "input")
    return tuple(check_gradient(call, i, gr, record) for i, gr in enumerate(grads))


def _sequence(call, result, n, what, bare=True):
    if bare and n == 1 and not isinstance(result, (tuple, list)):
        result = [result]
    if call.unflatten is not None and is_nest(result) and not (
            isinstance(result, (tuple, list)) and len(result) == n):
        leaves = flatten(result)[0]  # nested as the arguments were: TensorFlow flattens it
        result = leaves if len(leaves) == n else result
    if isinstance(result, (tuple, list)) and len(result) != n:  # empty lists flatten away, as in
        kept = [r for r in result if not (type(r) in (list, tuple) and not r)]  # TensorFlow's
        result = kept if len(kept) == n else result  # nest: (g, []) where variables is None
    if n > 1 and (isinstance(result, Tensor) or hasattr(result, "shape")):  # one gradient: a count
        raise GradientValueError(  # as TensorFlow counts it (a ValueError there too)
            f"custom_gradient({call.name}): grad_fn must return {n} gradient(s), one per "
            f"{what}, as a tuple or list, but returned 1, a {_describe(result)}")
    if isinstance(result, dict) or inspect.isgenerator(result) or not isinstance(result, (tuple, list)):
        raise GradientTypeError(
            f"custom_gradient({call.name}): grad_fn must return {n} gradient(s), one per "
            f"{what}, as a tuple or list, got {_describe(result)}")
    if len(result) != n:
        names = ", ".join(call.names) if what == "input" else ", ".join(
            v.name for v in call.variables)
        raise GradientValueError(
            f"custom_gradient({call.name}): grad_fn must return {n} gradient(s), one per "
            f"{what} ({names}), but returned {len(result)}")
    return list(result)


def shape_fix(got, want) -> str:
    """What a gradient of shape ``got`` for an input of shape ``want`` most likely needs."""
    if len(got) == len(want) == 2 and got == want[::-1] and got != want:
        return ("it has the transpose's shape: for y = x @ w the gradients are upstream @ w.T "
                "for x and x.T @ upstream for w")
    try:
        if len(got) >= len(want) and np.broadcast_shapes(want, got) == got:
            return "sum it over the axes the input was broadcast along"
        if np.broadcast_shapes(want, got) == want:
            return ("broadcast it to the input's shape, upstream * np.ones_like(x), or keep the "
                    "axes a sum took away")
    except ValueError:
        pass
    if int(np.prod(got)) == int(np.prod(want)):
        return "it has as many elements in another shape: a keepdims or an axis left over?"
    return "compute it for the input itself"


def as_is(xv, gv) -> bool:
    """Whether ``gv`` is a gradient for a value ``xv`` as it stands: of its module (a NumPy
    scalar for a NumPy array), shape and dtype."""
    if type(gv) is type(xv) and isinstance(gv, np.generic):  # NumPy scalars of one type: one dtype
        return True
    same_module = type(gv) is type(xv) or (type(xv) is np.ndarray and isinstance(gv, np.generic))
    return same_module and hasattr(gv, "shape") and gv.shape == xv.shape and gv.dtype == xv.dtype


def check_gradient(call: CustomCall, i: int, grad, record: bool):
    """The gradient ``grad_fn`` gave input (or variable) ``i``: None, or an array of its
    shape and floating dtype (cast to its dtype), else an error naming both."""
    if grad is None:
        return None
    x = call.inputs[i] if i < len(call.inputs) else call.variables[i - len(call.inputs)]
    xv = x.value if isinstance(x, Tensor) else x
    gv = grad.value if isinstance(grad, Tensor) else grad
    if as_is(xv, gv):
        if not record:  # the common case: nothing more to check or convert
            return gv
        return grad if isinstance(grad, Tensor) else Tensor(gv)
    if call.densify is not None and not isinstance(grad, Tensor):
        dense = call.densify(grad)
        if dense is not grad:
            return check_gradient(call, i, dense, record)
    raw = grad.value if isinstance(grad, Tensor) else grad
    words = call.words  # custom_gradient(f): grad_fn ..., or custom_vjp(f): bwd ... in JAX's
    who = f"{words['function'].split()[0]}({call.name}): {words['grad_fn']}"
    if not hasattr(raw, "dtype"):
        try:
            raw = (xp_of(xv) if hasattr(xv, "shape") else np).asarray(raw)
        except Exception:
            raw = None
        if raw is None or raw.dtype == object or isinstance(grad, (str, bytes)):
            raise GradientTypeError(
                f"{who} returned {_describe(grad)} for "
                f"{call.where(i)}; expected an array, a Tensor or None")
    xshape = tuple(getattr(x, "shape", ()))
    if tuple(raw.shape) != xshape:
        raise GradientValueError(
            f"{who} returned a gradient of shape "
            f"{tuple(raw.shape)} for {call.where(i)}, whose shape is {xshape}; a gradient "
            f"must have its input's shape ({shape_fix(tuple(raw.shape), xshape)})")
    if kind(raw.dtype) not in "fc":
        raise GradientTypeError(
            f"{who} returned a gradient of dtype {raw.dtype} "
            f"for {call.where(i)}; gradients must be floating (return x.astype(float), or None "
            "for no gradient)")
    xdtype = getattr(x, "dtype", None)
    if record:
        grad = grad if isinstance(grad, Tensor) else Tensor(raw)
        if xdtype is not None and grad.dtype != xdtype and kind(xdtype) in "fc":
            grad = grad.astype(xdtype)
        return grad
    if xdtype is not None and raw.dtype != xdtype and kind(xdtype) in "fc":
        raw = astype(raw, xdtype)
    return raw


# -- nested arguments, flattened into the op's inputs ---------------------------------------
def flatten_args(inputs, names):
    """Positional arguments flattened into the op's inputs (TensorFlow records the leaves
    of a list or dict argument, each with its own gradient); ``None`` as the rebuild when
    none is nested."""
    if not any(is_nest(a) for a in inputs):
        return inputs, names, None
    flat, flat_names, rebuilds = [], [], []
    for a, n in zip(inputs, names):
        leaves, leaf_names, rebuild = flatten(a, n)
        rebuilds.append((len(leaves), rebuild))
        flat += leaves
        flat_names += leaf_names

    def unflatten(values):
        out, at = [], 0
        for n, rebuild in rebuilds:
            out.append(rebuild(list(values[at:at + n])))
            at += n
        return out
    return flat, flat_names, unflatten


def _accepts_variables(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is p.VAR_KEYWORD for p in params)


def _followed_keyword(name, kwargs):
    """Keyword arguments are not inputs (TensorFlow records positional arguments only): a
    Tensor passed by keyword that a tape follows would lose its gradient without a word, so
    that is an error here (a Variable is fine: a body that reads it gets ``variables=``)."""
    tapes = [t for t in stack() if t.records]
    if not tapes:
        return
    for key, value in kwargs.items():
        for leaf in flatten(value)[0] if is_nest(value) else [value]:
            if isinstance(leaf, Tensor) and type(leaf) is not Variable and any(
                    t.follows(leaf) for t in tapes):
                raise GradientTypeError(
                    f"{name}({key}=...): {key} is a Tensor the tape follows, passed by keyword; "
                    f"custom_gradient records positional arguments only (as TensorFlow), so its "
                    f"gradient would be lost without a word. Pass it positionally, and return "
                    f"its gradient from grad_fn")


def _made_variables():
    """A watcher holding what a body that made the first Variable read: the Variables the
    recording tapes watched (they watch a trainable one as it is used)."""
    watcher = _VariableWatcher()
    for t in stack():
        for v in (t.watched_variables() if t.records else ()):
            if v.trainable:
                watcher.variables.setdefault(id(v), v)
    return watcher


def _pair(name, result):
    """``(y, grad_fn)``, what a custom function must return, or an error that says so."""
    if not (isinstance(result, (tuple, list)) and len(result) == 2 and callable(result[1])):
        raise GradientTypeError(
            f"custom_gradient({name}): {name} must return a pair (y, grad_fn), got "
            f"{_describe(result)}; end it with `return y, grad_fn`, where grad_fn(upstream) "
            "returns the gradient of each input")
    return result


class CustomGradientFunction:
    """A function whose gradient is the ``grad_fn`` it returns (see ``custom_gradient``)."""

    call_type = CustomCall  # what a call records (a dialect's subclass speaks its words)

    def __init__(self, f):
        functools.update_wrapper(self, f)
        self._f = f
        self._name = getattr(f, "__name__", "f")
        try:
            self._signature = inspect.signature(f)
        except (TypeError, ValueError):
            self._signature = None
        # inspect reads this first, so the decorated function introspects as f does
        # (getfullargspec would otherwise take it, with its __get__, for a builtin method)
        self.__signature__ = self._signature
        # the common case, positional parameters called positionally (those with defaults left
        # out or not), binds without inspect (which costs more than the rest of a call)
        params = list(self._signature.parameters.values()) if self._signature else []
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
        self._positional = tuple(p.name for p in params) if self._signature and plain else None
        # how many arguments such a call takes: from the required ones to all ((1, 0): none)
        self._arity = (1, 0) if self._positional is None else (
            sum(p.default is p.empty for p in params), len(params))
        self._prim = custom_primitive(self._name, "grad_fn(upstream)")

    @classmethod
    def of(cls, f):
        """``f`` decorated (``custom_gradient``'s work, for this class or a dialect's)."""
        if not callable(f):
            raise GradientTypeError(f"custom_gradient(f): expected a function, got {_describe(f)}")
        return cls(f)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self._call, obj)

    def __call__(self, *args, **kwargs):
        if kwargs or Variable.exist or not self._arity[0] <= len(args) <= self._arity[1]:
            return self._call(None, *args, **kwargs)
        for a in args:
            if isinstance(a, NESTS):
                return self._call(None, *args)
        tapes = TAPES.get()
        for t in tapes:
            if not t.records:  # a listener: it hears the call begin and end
                return self._call(None, *args)
        # The common call, with what ``_run`` checks known beforehand: positional arguments
        # that bind as they are, none nested, no listener to tell and no Variable the body
        # could read. ``_run`` does the same steps in general; this is the custom function's
        # cost in a loop (tests/test_custom.py runs both on the same functions).
        result = self._f(*args)
        y = result[0] if type(result) is tuple and len(result) == 2 else None
        if Variable.exist or not isinstance(y, Tensor) or not callable(result[1]):
            # the body made a Variable, gave a nest of outputs or no pair: the general steps
            watcher = _made_variables() if Variable.exist else None
            names = list(self._positional[:len(args)])
            return self._finish(result, watcher, list(args), names, (), {}, None)[0]
        if not tapes:
            return y
        out = object.__new__(Tensor)  # a new Tensor of y's value (an array: nothing to convert)
        out.value = y.value
        names = self._positional if len(args) == len(self._positional) else self._positional[:len(args)]
        call = self.call_type(self._name, result[1], names, args, (), self, (), None, LEVEL.get(), None)
        record_custom(self._prim, args, (y,), (out,), {"call": call})
        return out

    def _bind(self, obj, args, kwargs):
        """Inputs (the positional arguments, as TensorFlow records them), keyword arguments
        (hyper-parameters, passed to the function as they are) and the inputs' parameter names."""
        lead = () if obj is None else (obj,)
        n = len(lead) + len(args)
        if not kwargs and self._arity[0] <= n <= self._arity[1]:
            return list(args), {}, list(self._positional[len(lead):n])
        if self._signature is None:
            if kwargs:
                raise GradientTypeError(f"{self._name}(): keyword arguments need an inspectable signature")
            return list(args), {}, [f"args[{i}]" for i in range(len(args))]
        try:
            self._signature.bind(*lead, *args, **kwargs)
        except TypeError as e:
            raise GradientTypeError(f"{self._name}(): {e}") from None
        _followed_keyword(self._name, kwargs)
        names = []
        params = list(self._signature.parameters.values())[len(lead):]
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                names += [f"{p.name}[{k}]" for k in range(len(args) - len(names))]
                break
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and len(names) < len(args):
                names.append(p.name)
        return list(args), dict(kwargs), names

    def _call(self, obj, *args, **kwargs):
        name = self._name
        args, kw, names = self._bind(obj, args, kwargs)
        inputs, names, unflatten = flatten_args(args, names)
        lead = () if obj is None else (obj,)
        hooks = listeners()
        if not hooks:
            return self._run(obj, lead, args, kw, names, inputs, unflatten)[0]
        for h in hooks:
            h.on_function_enter(name, inputs, names)
        outs = None
        try:
            result, outs = self._run(obj, lead, args, kw, names, inputs, unflatten)
        finally:  # listeners hear the end even when the function or its checks raise
            for h in hooks:
                h.on_function_exit(name, outs)
        return result

    def _run(self, obj, lead, args, kw, names, inputs, unflatten):
        """Run the body on ``args`` and record its outputs as one op over ``inputs`` (the
        arguments' leaves)."""
        if Variable.exist:  # learn which variables the body reads
            watcher = _VariableWatcher()
            push(watcher)
            try:
                result = self._f(*lead, *args, **kw)
            finally:
                remove(watcher)
        else:  # no Variable exists, so the body can read none, unless it makes one
            result = self._f(*lead, *args, **kw)
            watcher = _made_variables() if Variable.exist else None
        return self._finish(result, watcher, inputs, names, lead, kw, unflatten)

    def _finish(self, result, watcher, inputs, names, lead, kw, unflatten):
        """The body's ``result`` checked and recorded, with the variables ``watcher`` saw
        it read."""
        name = self._name
        y, grad_fn = _pair(name, result)
        variables = []
        if watcher is not None and watcher.variables:
            taken = {id(a) for a in inputs}
            variables = [v for k, v in watcher.variables.items() if k not in taken]
        if variables and not _accepts_variables(grad_fn):
            raise GradientTypeError(
                f"custom_gradient({name}): grad_fn must accept keyword argument 'variables', "
                f"since {name} uses variables: {[v.name for v in variables]} (read inside "
                "without being inputs). Define grad_fn(*upstream, variables=None) and return "
                "(grad_xs, grad_vars), one gradient per variable in grad_vars")
        return self._record(y, grad_fn, inputs, names, variables, lead, kw, unflatten)

    def _record(self, y, grad_fn, inputs, names, variables, lead, kw, unflatten):
        """The outputs of a call that gave ``(y, grad_fn)``, recorded as one op over
        ``inputs`` and ``variables`` on the active tapes; and the outputs as a tuple."""
        if isinstance(y, Tensor):  # the common case: one output
            ys, rebuild = [y], None
        else:  # a nest of outputs (or a value to wrap): one upstream per leaf, as TensorFlow
            leaves, _, rebuild = flatten(y)
            ys = [t if isinstance(t, Tensor) else Tensor(t) for t in leaves]
        if not stack():
            return y, tuple(ys)
        outs = tuple([Tensor(t.value) for t in ys])
        call = self.call_type(self._name, grad_fn, names, inputs, variables, self, lead, kw, level(),
                              unflatten)
        record_custom(self._prim, inputs + variables if variables else inputs, ys, outs, {"call": call})
        return (outs[0] if rebuild is None else rebuild(list(outs))), outs

    def __repr__(self):
        return f"<custom_gradient function {self._name}>"


def custom_gradient(f: Callable | None = None) -> CustomGradientFunction:
    """Decorate ``f`` so that its gradient is the one it defines, as ``tf.custom_gradient``.

    ``f(*x)`` returns ``(y, grad_fn)``. ``grad_fn(*upstream)`` receives the upstream
    gradient of each output (the gradient of the final result with respect to ``y``:
    ``dL/dy``) and returns the downstream gradient of each input, ``upstream * dy/dx``:
    a bare value when there is one input, ``None`` for "no gradient". Forgetting to
    multiply by ``upstream`` cuts the chain rule, as if ``stop_gradient`` were there.

    When ``f`` reads ``Variable`` s that are not inputs, ``grad_fn`` is called with
    ``variables=[...]`` and returns ``(grad_xs, grad_vars)``.

    ``grad_fn`` receives raw arrays in a plain backward pass and Tensors when an outer
    tape records (for higher order); it may always use gradmagic ops and NumPy calls.
    A ``grad_fn`` that is itself decorated and returns ``(gdy, grad_grad_fn)`` behaves
    as in TensorFlow: ``grad_grad_fn`` gives the derivative with respect to ``upstream``,
    not the second derivative with respect to ``x``.

    As in TensorFlow, the inputs are the positional arguments: keyword arguments are
    hyper-parameters (``grad_multiply(x, scale=0.1)``), passed to ``f`` and not
    differentiated. Stricter than TensorFlow: each gradient must have its input's shape and
    a floating dtype, and a Tensor passed by keyword that a tape follows is an error (its
    gradient would be lost).

    >>> @gm.custom_gradient
    ... def log1pexp(x):
    ...     e = np.exp(x)
    ...     def grad_fn(upstream):
    ...         return upstream * (1 - 1 / (1 + e))
    ...     return np.log(1 + e), grad_fn
    >>> x = gm.constant(100.0)
    >>> with gm.GradientTape() as tape:
    ...     tape.watch(x)
    ...     with np.errstate(over="ignore"):
    ...         y = log1pexp(x)
    >>> float(tape.gradient(y, x))
    1.0
    """
    if f is None:
        return custom_gradient
    return CustomGradientFunction.of(f)
