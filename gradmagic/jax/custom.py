"""``jax.custom_vjp`` and ``jax.custom_jvp``: a JAX user's rule as one recorded op.

Both map onto ``gm.custom_gradient``'s mechanism (a call is one op whose gradient is a
function of the upstream gradient), so the trace shows the call as one row named after the
user's function and the pitfall checks call the rule again, in JAX's words:

- ``custom_vjp``: the op's gradient is ``bwd(*nondiff, res, g)`` on the residuals ``fwd``
  saved;
- ``custom_jvp``: the op's outputs are the rule's primal outputs, and its gradient is the
  user's JVP rule transposed through a tape: the rule runs once, with zero tangents that an
  inner tape watches, and the gradient with respect to the tangents, weighted by ``g``, is the
  cotangent. A rule that is not linear in its tangents cannot be transposed; that is an
  error, as in JAX.

Only the innermost transformation that differentiates a call's arguments takes it as this
op; the enclosing ones differentiate the rule's code as plain code (``levels``). A trace
hears of a ``custom_jvp`` rule run as the call's body only what made its primal output
(``overheard``).
"""

from __future__ import annotations

import contextvars
import functools
import inspect

import numpy as np

from ..core.context import Listener, followed, paused, push, recording, remove, stack, unheard
from ..core.custom import CustomCall
from ..core.forward import Accumulator
from ..core.nest import flatten
from ..core.tape import GradientTape
from ..core.tensor import Tensor
from .array import asarray, canonical
from .errors import UnexpectedTracerError
from .levels import FULL, PROCESSOR, LeveledFunction
from .linearity import check_linear, run_heard
from .overheard import primal_heard
from .tree_util import tree_flatten, tree_leaves, tree_map, tree_structure, tree_unflatten

FORWARD = contextvars.ContextVar("gradmagic_jax_forward", default=False)  # inside jax.jvp
INSIDE = contextvars.ContextVar("gradmagic_jax_inside", default=frozenset())  # rules running now

WORDS = {"grad_fn": "bwd", "upstream": "g", "upstream gradient": "cotangent g", "an": "a",
         "stop_gradient": "jax.lax.stop_gradient", "example": "return (g * 2 * x,)",
         "check_grad": "jax.grad against finite differences", "create_graph": "an outer jax.grad",
         "forward": "bwd, transposed",
         "unrecorded_fix": "return it from fwd as a residual",
         "one_op": "a custom_vjp function is differentiated with respect to its arguments "
                   "({inputs}) only, as in JAX", "call": "{f}({args})", "or": "",
         "function": "custom_vjp function"}


class JaxCall(CustomCall):
    """One call of a ``custom_vjp`` function (notes in JAX's words). Forward mode never
    runs its ``bwd`` forwards (it refuses a direct ``jax.jvp``): inside a ``grad`` inside a
    ``jvp``, it differentiates ``fwd`` and ``bwd`` as plain code, as JAX does."""

    __slots__ = ()
    words = WORDS
    body_tangents = True

    def forward_function(self):
        """The user's function that computes the outputs (``fwd``, or a ``custom_jvp``'s own
        function): what tells two custom functions apart in a check, where the body each
        records is one and the same closure of this module."""
        return getattr(self.function, "user_forward", None) or super().forward_function()

    def saved(self):
        res = getattr(self.grad_fn, "residuals", None)
        leaves, names, _ = flatten(res, "res")
        return [(n, v) for n, v in zip(names, leaves) if v is not None]


class JaxJVPCall(JaxCall):
    """One call of a ``custom_jvp`` function: its gradient is the JVP rule, transposed; its
    tangents in forward mode, the rule itself, as JAX runs it (linear in the tangents or
    not)."""

    __slots__ = ()
    body_tangents = False  # forward mode is its rule's

    def forward_tangents(self, tangent):
        ran = getattr(self.grad_fn, "tangents", None)  # the rule's, run by the call's body
        if ran is not None:
            return ran
        args = self.unflatten(list(self.inputs)) if self.unflatten is not None else list(self.inputs)
        return self.function.rule_of.forward(args, tangent)
    words = {**WORDS, "grad_fn": "transposed JVP rule", "example": "return primal_out, 2 * x * x_dot",
             "forward": "JVP rule",
             "unrecorded_fix": "compute it from the primals inside the JVP rule",
             "function": "custom_jvp function",
             "one_op": "a custom_jvp function is differentiated with respect to its arguments "
                       "({inputs}) only, as in JAX"}


class RecordedVJP(LeveledFunction):
    """The body that ``custom_vjp`` records: ``(outputs, gradient function)``."""

    call_type = JaxCall


class RecordedJVP(LeveledFunction):
    """The body that ``custom_jvp`` records: its gradient is the rule, transposed."""

    call_type = JaxJVPCall


def _named(body, fun, kind):
    body.__name__ = body.__qualname__ = getattr(fun, "__name__", "f")
    try:
        body.__signature__ = inspect.signature(fun)
    except (TypeError, ValueError):
        pass
    return kind(body)


@functools.lru_cache(maxsize=1024)
def _signature(fun):
    """``fun``'s signature and how many positional parameters it has (None: it has none to
    read, a builtin's), found once per function."""
    try:
        sig = inspect.signature(fun)
    except ValueError:
        return None
    kinds = [p.kind for p in sig.parameters.values()]
    plain = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sig, len(kinds) if all(k in plain for k in kinds) else -1


def _bind(kind, fun, args, kwargs):
    """The arguments as positions, defaults filled in, as JAX's ``resolve_kwargs``: the rules
    take them all positionally; arguments that do not bind, or a keyword-only one passed,
    are JAX's TypeError."""
    name = getattr(fun, "__name__", "f")
    if isinstance(fun, functools.partial):  # opaque, as in JAX
        return args if not kwargs else _bind(kind, lambda *args, **kwargs: None, args, kwargs)
    found = _signature(fun)
    if found is None:  # no signature (a builtin): the arguments as given
        return args
    if not kwargs and found[1] == len(args):  # the commonest: every parameter given by position
        return args
    try:
        bound = found[0].bind(*args, **kwargs)
        bound.apply_defaults()
        passed = [k for k in bound.kwargs if k in kwargs]
        if passed:
            raise TypeError("The following keyword arguments could not be resolved to positions: "
                            f"{', '.join(passed)}")
    except TypeError as e:
        raise TypeError(f"The input arguments to the {kind}-decorated function "
                        f"{name} could not be resolved to positional-only "
                        f"arguments. Binding failed with the error:\n{e}") from e
    return bound.args


def _type(x):
    """JAX's short type of a value, ``float32[2,3]``, and whether it is a Python float (weakly
    typed: it goes with any float type)."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        dtype = canonical(np.float64 if isinstance(x, float) else np.int64)
    else:
        dtype = asarray(x).dtype
    return f"{dtype.name}[{','.join(str(n) for n in np.shape(x))}]", dtype, isinstance(x, float)


def _check_tangent_types(primal_out, tangent_out):
    """JAX's TypeError where a JVP rule's tangent output leaf has another shape or dtype than
    its primal output leaf. JAX wants a ``float0`` tangent for an integer output; gradmagic has
    no float0, so such a tangent may be of any dtype (its shape is checked)."""
    primals, tangents = tree_leaves(primal_out), tree_leaves(tangent_out)
    if len(primals) != len(tangents):
        return
    wrong = []
    for p, t in zip(primals, tangents):
        (p_type, p_dtype, _), (t_type, t_dtype, weak) = _type(p), _type(t)
        want = p_type if p_dtype.kind in "fc" else "float0" + p_type[p_type.index("["):]
        if np.shape(p) != np.shape(t) or p_dtype.kind in "fc" and p_dtype != t_dtype and not (
                weak and p_dtype.kind == "f"):
            wrong.append((p_type, want, t_type))
    if len(primals) == 1 and wrong:
        (p_type, want, t_type), = wrong
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding "
                        f"shapes and dtypes. Expected {want} (tangent type of {p_type}) but got "
                        f"{t_type}.")
    if wrong:
        raise TypeError("Custom JVP rule must produce primal and tangent outputs with corresponding "
                        "shapes and dtypes, but got:\n" + "\n".join(
                            f"  primal {p} with tangent {t}, expecting tangent {w}" for p, w, t in wrong))


def _per_leaf(args, nondiff, cts):
    """One cotangent per leaf of the arguments (as ``custom_gradient`` flattens them):
    ``None`` for the non-differentiable arguments and for ``None`` cotangents. ``cts`` is a
    tuple (or list) with the structure of the differentiable arguments or a prefix of it, a
    leaf standing for each leaf of its subtree, as JAX broadcasts it; else JAX's TypeError."""
    diff = tuple(a for i, a in enumerate(args) if i not in nondiff)
    if isinstance(cts, list) and len(cts) == len(diff):
        cts = tuple(cts)
    in_tree = tree_structure(diff)

    def is_none(x):
        return x is None
    try:
        if not isinstance(cts, tuple):
            raise ValueError
        subtrees = tree_structure(cts, is_leaf=is_none).flatten_up_to(diff)
    except ValueError:
        raise TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must produce "
            "a tuple of length equal to the number of arguments to the primal function, but got "
            f"bwd output structure {tree_structure(cts)} for primal input structure {in_tree}.") from None
    leaves = [ct for ct, sub in zip(tree_leaves(cts, is_leaf=is_none), subtrees)
              for _ in tree_leaves(sub)]
    per_arg = iter(tree_unflatten(in_tree, leaves))
    return [leaf for i, a in enumerate(args)
            for leaf in ([None] * len(flatten(a)[0]) if i in nondiff else flatten(next(per_arg))[0])]


class _Reads(Listener):
    """Hears the ops of a function's code as it runs: the Tensors they read that a tape
    follows and that were neither arguments nor computed from them there (``read``, in the
    order first read: the values the function closes over that are being differentiated)."""

    def __init__(self, args):  # (made where the tapes that follow are on the stack)
        self.made = {id(x) for x in flatten(list(args))[0] if isinstance(x, Tensor)}
        full = FULL.get()  # the stack as the call began (its body runs below its level)
        self.tapes, self.read = [t for t in (stack() if full is None else full) if t.records], []

    def on_op(self, prim, args, vals, out, params):
        self._saw(args, (out,))

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        self._saw(inputs, outs)

    def _saw(self, args, outs):
        for a in args:
            if (isinstance(a, Tensor) and id(a) not in self.made
                    and any(t.follows(a) for t in self.tapes)):
                self.read.append(a)
                self.made.add(id(a))
        self.made.update(map(id, outs))


def _closed_over(kind, name, part, run, args, functions):
    """``run()`` (a custom function's ``part``, called on ``args``), or, where it read a value
    being differentiated that is not among ``args`` (one it closes over), JAX's refusal in
    words that say which value and what to do: its gradient through the function would be
    lost, since a custom rule differentiates its arguments only."""
    heard = _Reads(args)
    push(heard)
    try:
        result = run()
    finally:
        remove(heard)
    if not heard.read:
        return result
    read = heard.read[0]
    functions = list(functions) + [a for a in args if callable(a)]  # a function it was given
    var = next((name for f in functions for name, _, _ in _holders(f, read)), None)
    what = f"`{var}`" if var else f"a value of shape {tuple(read.shape)}"
    rule = "bwd gives one cotangent per argument" if kind == "custom_vjp" else (
        "its JVP rule gives the tangent for its arguments")
    fix = "return its cotangent from bwd" if kind == "custom_vjp" else "give its tangent in the JVP rule"
    raise TypeError(
        f"{kind} function {name}: {part} reads {what}, a value being differentiated (computed "
        f"from an argument of the jax.grad, jax.vjp or jax.jvp running), without taking it as an "
        f"argument. A {kind} function is differentiated with respect to its arguments only "
        f"({rule}), so the derivative through {name} for {what} would be lost. Pass it to {name} "
        f"as an argument and {fix} (jax.closure_convert does that for a function you are "
        f"given). (JAX raises UnexpectedTracerError here.)")


def closure_convert(fun, *example_args):
    """``jax.closure_convert``: ``(converted, consts)``, where ``consts`` are the values being
    differentiated that ``fun`` reads without taking them (it closes over them) and
    ``converted(*args, *consts)`` is ``fun(*args)`` reading the ``consts`` given: so a
    ``custom_vjp`` function that takes ``converted`` (as a ``nondiff_argnums`` argument) can
    take ``consts`` as arguments, and give them cotangents. ``fun`` runs once on
    ``example_args``, unrecorded, to find them; each must be held in ``fun``'s closure or
    globals, where ``converted`` puts the one it is given while ``fun`` runs."""
    heard = _Reads(example_args)
    with paused():  # heard, not recorded
        push(heard)
        fun(*example_args)
    consts = heard.read
    homes = []  # (a cell of fun's closure, or its globals; the key there) for each
    for c in consts:
        home = next(((space, key) for _, space, key in _holders(fun, c)), None)
        if home is None:
            raise NotImplementedError(
                f"closure_convert({getattr(fun, '__name__', 'fun')}): it reads a value being "
                f"differentiated of shape {tuple(c.shape)} that is in neither its closure nor its "
                "globals (a function it calls reads it): pass that value to it as an argument")
        homes.append(home)
    n = len(consts)

    def converted(*args):
        args, given = args[:len(args) - n], args[len(args) - n:]
        if len(given) != n:
            raise TypeError(f"{getattr(fun, '__name__', 'fun')} (closure-converted) takes its "
                            f"arguments, then the {n} consts closure_convert gave")
        was = [space[key] for space, key in homes]
        try:
            for (space, key), value in zip(homes, given):
                space[key] = value
            return fun(*args)
        finally:
            for (space, key), value in zip(homes, was):
                space[key] = value
    converted.__name__ = getattr(fun, "__name__", "fun")
    return converted, list(consts)


def _holders(f, value):
    """Where function ``f`` holds ``value``: ``(name, place, key)``, with ``place[key]`` the
    value, for each cell of its closure (``_Cell``), then each of its globals, that holds it."""
    code = getattr(f, "__code__", None)
    if code is None:
        return []
    closure = getattr(f, "__closure__", None) or ()
    cells = [(name, _Cell(c)) for name, c in zip(code.co_freevars, closure)]
    found = [(name, cell, None) for name, cell in cells if cell[None] is value]
    space = getattr(f, "__globals__", {})
    return found + [(name, space, name) for name in code.co_names if space.get(name) is value]


class _Cell:
    """A closure's cell read and written by subscript, as a dict of globals is."""

    def __init__(self, cell):
        self.cell = cell

    def __getitem__(self, key):
        try:
            return self.cell.cell_contents
        except ValueError:  # a cell not filled yet
            return None

    def __setitem__(self, key, value):
        self.cell.cell_contents = value


class custom_vjp:  # noqa: N801  (JAX's name)
    """``jax.custom_vjp``: ``f.defvjp(fwd, bwd)``; ``fwd(*args)`` returns ``(out, res)``
    and ``bwd(*nondiff, res, g)`` a tuple with one cotangent per differentiable argument."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self.fwd = self.bwd = self.recorded = None

    def defvjp(self, fwd, bwd, symbolic_zeros=False, optimize_remat=False):
        self.fwd, self.bwd = fwd, bwd
        nondiff, name = self.nondiff_argnums, getattr(self.fun, "__name__", "f")

        def body(*args):
            token = INSIDE.set(INSIDE.get() | {id(self)})  # f called inside fwd is f itself
            try:
                pair = _closed_over("custom_vjp", name, "its fwd", lambda: fwd(*args), args,
                                    (fwd, self.fun))
            finally:
                INSIDE.reset(token)
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"Custom VJP fwd rule {getattr(fwd, '__name__', 'fwd')} for "
                                f"function {name} must produce a pair (list or tuple of length "
                                f"two) representing primal outputs and residuals, got {pair!r:.80}")
            out, res = pair
            out_def = tree_flatten(out)[1]

            def grad_fn(*g):
                cts = bwd(*[args[i] for i in nondiff], res, tree_unflatten(out_def, list(g)))
                return _per_leaf(args, nondiff, cts)
            grad_fn.residuals = res  # shown in the trace as what fwd saved
            return out, grad_fn
        self.recorded = _named(body, self.fun, RecordedVJP)
        self.recorded.user_forward = fwd

    def __call__(self, *args, **kwargs):
        args = _bind("custom_vjp", self.fun, args, kwargs)
        if self.fwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {self.fun.__name__} "
                                 "using defvjp.")
        if FORWARD.get() and _run_forwards(args):
            raise TypeError("can't apply forward-mode autodiff (jvp) to a custom_vjp function.")
        if not recording() or id(self) in INSIDE.get():
            return self.fun(*args)
        if any(followed(x) for i in self.nondiff_argnums if i < len(args)
               for x in tree_leaves(args[i]) if isinstance(x, Tensor)):
            raise UnexpectedTracerError(
                "Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
                "position indicated by nondiff_argnums as non-differentiable. Tracers cannot be "
                "passed as non-differentiable arguments to custom_vjp functions; instead, "
                "nondiff_argnums should only be used for arguments that can't be or contain JAX "
                "tracers, e.g. function-valued arguments. In particular, array-valued arguments "
                "should typically not be indicated as nondiff_argnums.\nSee "
                "https://docs.jax.dev/en/latest/errors.html#jax.errors.UnexpectedTracerError")
        return self.recorded(*args)


def _run_forwards(args) -> bool:
    """Whether forward mode would need a ``custom_vjp`` call's rule run forwards, which JAX
    refuses: an accumulator gives one of its inputs a tangent, and no reverse pass entered
    after it (a ``grad`` inside the ``jvp``) transposes the call first. A call inside a
    ``fwd`` is the forward's own (JAX runs ``fwd`` below the reverse pass that called it)."""
    leaves = [a for a in tree_flatten(args)[0] if isinstance(a, Tensor)]
    tapes, inside = stack(), bool(INSIDE.get())
    for k, t in enumerate(tapes):
        if isinstance(t, Accumulator) and any(t.follows(a) for a in leaves):
            if inside or not any(isinstance(u, GradientTape) for u in tapes[k + 1:]):
                return True
    return False


class custom_jvp:  # noqa: N801  (JAX's name)
    """``jax.custom_jvp``: ``f.defjvp(rule)`` with ``rule(primals, tangents)`` returning
    ``(primal_out, tangent_out)``, or ``f.defjvps(*per_argument)``."""

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self.jvp = self.recorded = None

    def defjvp(self, jvp, symbolic_zeros=False):
        self.jvp = jvp
        self.recorded = _named(lambda *args: self._body(*args), self.fun, RecordedJVP)
        self.recorded.user_forward, self.recorded.rule_of = self.fun, self
        return jvp

    def defjvps(self, *jvps):
        fun = self.fun

        def jvp(primals, tangents):
            ans = fun(*primals)
            parts = [rule(t, ans, *primals) for rule, t in zip(jvps, tangents) if rule is not None]
            total = parts[0] if parts else tree_map(lambda a: asarray(a) * 0, ans)
            for p in parts[1:]:
                total = tree_map(lambda a, b: a + b, total, p)
            return ans, total
        jvp.__name__ = f"{getattr(fun, '__name__', 'f')}_jvps"
        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        args = _bind("custom_jvp", self.fun, args, kwargs)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.fun.__name__} "
                                 "using defjvp.")
        if not recording():
            return self.fun(*args)
        return self.recorded(*args)

    def _rule(self, args, tangents):
        """The JVP rule's ``(primal_out, tangent_out)``, or JAX's TypeError where it returns
        something else."""
        nondiff = [args[i] for i in self.nondiff_argnums]
        primals = tuple(a for i, a in enumerate(args) if i not in self.nondiff_argnums)
        out = self.jvp(*nondiff, primals, tangents)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            rule, name = getattr(self.jvp, "__name__", "jvp"), getattr(self.fun, "__name__", "f")
            raise TypeError(f"Custom JVP rule {rule} for function {name} must produce a pair (list "
                            f"or tuple of length two) representing primal and tangent outputs, but "
                            f"got {out!r}.")
        _check_tangent_types(*out)
        return out

    def forward(self, args, tangent):
        """The tangents of a call's output leaves by the rule itself, given ``tangent(x)`` of
        each argument leaf (zeros where it has none), as JAX's forward mode runs it."""
        primals = [a for i, a in enumerate(args) if i not in self.nondiff_argnums]

        def of(x):
            t = tangent(x)
            return t if t is not None else asarray(np.zeros(np.shape(x), asarray(x).dtype))
        _, tout = self._rule(args, tuple(tree_map(of, p) for p in primals))
        return tuple(asarray(t) for t in tree_flatten(tout)[0])

    def _body(self, *args):
        """The call's outputs and its gradient function. Under a transformation that
        differentiates the arguments, the outputs are the rule's primal output, as in JAX:
        the rule runs once, below that transformation, on its tangents (an accumulator's) or on
        zero tangents a tape watches (a tape's, whose backward pass transposes them). The
        listeners hear of the rule what made its primal output (``overheard``), as they heard
        a body that was the function itself; its tangent code is the call's own step."""
        nondiff, name = self.nondiff_argnums, getattr(self.fun, "__name__", "f")
        primals = [a for i, a in enumerate(args) if i not in nondiff]
        structs = [tree_flatten(p) for p in primals]
        zeros = [[asarray(np.zeros(np.shape(x), asarray(x).dtype)) for x in leaves]
                 for leaves, _ in structs]
        floats = [z for leaves in zeros for z in leaves if z.dtype.kind == "f"]
        known = [x for p in primals for x in tree_leaves(p)]
        level, ran = PROCESSOR.get(), {}

        def linearized():
            """(tape, rule's output, ops heard) for the rule on the zero tangents."""
            tangents = tuple(tree_unflatten(d, z) for (_, d), z in zip(structs, zeros))
            tape = GradientTape(persistent=True)
            with tape:
                tape.watch(floats)
                out, heard = run_heard(lambda: self._rule(args, tangents), floats, known)
            return tape, out, heard
        if level is None:  # nothing differentiates the arguments: f itself, as JAX runs it
            out = _closed_over("custom_jvp", name, "it", lambda: self.fun(*args), args, (self.fun,))
        elif isinstance(level, GradientTape):  # heard: what made the primal output alone
            tape, (out, tout), heard = primal_heard(
                lambda: _closed_over("custom_jvp", name, "it", linearized, args, (self.jvp, self.fun)),
                lambda ran: tree_leaves(ran[1][0]), self.recorded)
            ran.update(tape=tape, touts=[asarray(t) for t in tree_flatten(tout)[0]], heard=heard)
        else:  # an accumulator's tangents, through the rule itself (linear or not), as JAX
            def of(x, z):
                t = level.tangent(x)
                return t if t is not None else z
            tangents = tuple(tree_unflatten(d, [of(x, z) for x, z in zip(leaves, zs)])
                             for (leaves, d), zs in zip(structs, zeros))
            out, tout = primal_heard(  # (it reads the tangents)
                lambda: _closed_over("custom_jvp", name, "it", lambda: self._rule(args, tangents),
                                     list(args) + [tangents], (self.jvp, self.fun)),
                lambda ran: tree_leaves(ran[0]), self.recorded)

        def grad_fn(*g):
            """The rule transposed: the gradient of <g, tangent_out> in the tangents."""
            if ran:
                tape, touts, heard = ran["tape"], ran["touts"], ran["heard"]
            else:  # (a check calls it) the rule run now
                with unheard():
                    tape, (_, t_out), heard = linearized()
                touts = [asarray(t) for t in tree_flatten(t_out)[0]]
            seeds = [u if isinstance(u, Tensor) else asarray(u) for u in g]
            with unheard():
                cts = tape.gradient(touts, floats, output_gradients=[
                    asarray(s, t.dtype) for s, t in zip(seeds, touts)], unconnected_gradients="zero")
            check_linear(heard, floats, touts, seeds, cts, lambda vs: self._tangents_at(args, zeros, vs),
                         name, getattr(self.jvp, "__name__", "jvp"), (self.jvp, args))
            found = iter(cts)
            per_primal = [tree_unflatten(d, [next(found) if z.dtype.kind == "f" else None for z in zs])
                          for (_, d), zs in zip(structs, zeros)]
            return _per_leaf(args, nondiff, per_primal)
        if level is not None and not isinstance(level, GradientTape):
            grad_fn.tangents = tuple(asarray(t) for t in tree_flatten(tout)[0])
        return out, grad_fn

    def _tangents_at(self, args, zeros, vs):
        """The rule's tangent output leaves, called again with tangents ``vs`` for the floating
        leaves (in order) and the ``zeros`` for the others."""
        vs = iter(vs)
        leaves = [[asarray(next(vs)) if z.dtype.kind == "f" else z for z in zs] for zs in zeros]
        primals = [a for i, a in enumerate(args) if i not in self.nondiff_argnums]
        tangents = tuple(tree_unflatten(tree_flatten(p)[1], t) for p, t in zip(primals, leaves))
        return tree_flatten(self._rule(args, tangents)[1])[0]
