"""TensorFlow's control flow and gradient tools, in eager mode: ``tf.cond`` is a Python
``if``, ``tf.while_loop``, ``tf.map_fn``, ``tf.scan`` and the folds are Python loops (the
tape records what they run), and ``tf.recompute_grad`` and ``tf.grad_pass_through`` are custom gradients, so a
trace shows each call as one row. ``tf.custom_gradient`` is the engine's, whose ``grad_fn``
gets its upstream gradients as Tensors, as TensorFlow's does.
"""

import functools

from ..core.context import TAPES, unheard
from ..core.custom import CustomCall, CustomGradientFunction
from ..core.nest import flatten
from ..core.ops import expand_dims, getitem, identity, stack
from ..core.tape import GradientTape
from ..core.tensor import Tensor
from ..errors import GradientTypeError, GradientValueError
from .arrays import unstack
from .errors import InvalidArgumentError
from .nest import outline
from .tensor_array import TensorArray
from .tensors import as_tensor, convert_to_tensor, dense_of


def callable_or_fail(fn, arg, f):
    if not callable(f):
        raise GradientTypeError(f"{fn}({arg}): '{arg}' must be callable, got {type(f).__name__} {f!r:.40}")


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``tf.cond``: ``true_fn()`` if ``pred`` is true, else ``false_fn()`` (eager: only that
    branch runs, and its result is returned as it is)."""
    callable_or_fail("tf.cond", "true_fn", true_fn)
    callable_or_fail("tf.cond", "false_fn", false_fn)
    return true_fn() if truth("tf.cond(pred)", pred) else false_fn()


def truth(where, pred):
    """A scalar predicate's truth; else the error, naming ``where``."""
    p = as_tensor(pred)
    if p.size != 1:
        raise GradientValueError(f"{where}: expected a scalar predicate, got shape {p.shape} "
                                 "(the truth value of more than one element is ambiguous)")
    return bool(p.numpy().reshape(()))


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """``tf.case``: the function of the first ``(predicate, function)`` pair whose predicate
    is true (eager: only it runs), else ``default``'s."""
    pairs = list(pred_fn_pairs.items() if isinstance(pred_fn_pairs, dict) else pred_fn_pairs)
    seen = []
    for pred, fn in pairs:
        callable_or_fail("tf.case", "pred_fn_pairs", fn)
        seen.append(truth("tf.case(pred_fn_pairs)", pred))
        if seen[-1]:
            return fn()
    if default is None:
        raise InvalidArgumentError("Input error: None of conditions evaluated as True: "
                                   + ", ".join(str(v) for v in seen))
    callable_or_fail("tf.case", "default", default)
    return default()


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case``: ``branch_fns[branch_index]()``; an index out of range runs
    ``default``, or the last branch where there is none."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"'branch_index' must be a Tensor, got {type(branch_index)}")
    if isinstance(branch_fns, dict) or branch_fns and isinstance(branch_fns[0], (tuple, list)):
        keyed = dict(branch_fns.items() if isinstance(branch_fns, dict) else branch_fns)
        if sorted(keyed) != list(range(len(keyed))):
            raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                             f"{len(keyed)}) but found {{{','.join(str(k) for k in sorted(keyed))}}}")
        branch_fns = [keyed[k] for k in range(len(keyed))]
    for fn in branch_fns:
        callable_or_fail("tf.switch_case", "branch_fns", fn)
    k = int(branch_index.numpy())
    if not 0 <= k < len(branch_fns):
        return default() if default is not None else branch_fns[-1]()
    return branch_fns[k]()


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """``tf.while_loop``: while ``cond(*loop_vars)``, ``loop_vars = body(*loop_vars)``, at most
    ``maximum_iterations`` times; ``body`` returns the same structure as ``loop_vars``. The
    result has ``body``'s structure, each leaf a Tensor (a ``TensorArray`` stays one).
    Gradients flow through every iteration, as the tape records them."""
    callable_or_fail("tf.while_loop", "cond", cond)
    callable_or_fail("tf.while_loop", "body", body)
    if not loop_vars:
        raise GradientValueError("tf.while_loop(loop_vars): 'loop_vars' must be provided.")
    if not isinstance(loop_vars, (list, tuple)):
        raise GradientTypeError(f"tf.while_loop(loop_vars): expected a list or tuple of loop "
                                f"variables, got {type(loop_vars).__name__}")
    if int(parallel_iterations) < 1:
        raise GradientTypeError("tf.while_loop(parallel_iterations): 'parallel_iterations' must be "
                                "a positive integer.")
    limit = None if maximum_iterations is None else int(as_tensor(maximum_iterations).numpy())
    shape = outline(list(loop_vars))
    done = 0
    while (limit is None or done < limit) and bool(as_tensor(cond(*loop_vars)).numpy()):
        new = body(*loop_vars)
        if not isinstance(new, (list, tuple)) or outline(list(new)) != shape:
            raise GradientValueError(
                f"tf.while_loop(body): The two structures don't have the same nested structure: "
                f"body must return the structure of loop_vars, {shape}, got {new!r:.80}")
        loop_vars = new
        done += 1
    leaves, _, rebuild = flatten(loop_vars)
    return rebuild([v if isinstance(v, TensorArray) else convert_to_tensor(v) for v in leaves])


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """``tf.map_fn``: ``fn`` on each slice of ``elems`` along its first axis (a nest of
    tensors: of each), the results stacked; a Python loop here."""
    callable_or_fail("tf.map_fn", "fn", fn)
    leaves, _, rebuild = flatten(elems)
    slices = [unstack(as_tensor(t)) for t in leaves]
    n = {len(s) for s in slices}
    if len(n) != 1:
        raise GradientValueError(f"tf.map_fn(elems): the tensors of elems must have the same first "
                                 f"dimension, got {sorted(n)}")
    results = [fn(rebuild(list(parts))) for parts in zip(*slices)]
    if not results:
        raise GradientValueError("tf.map_fn(elems): elems has no element to map over (first dimension 0)")
    outs, _, rebuild_out = flatten(results[0])
    columns = [stack([as_tensor(flatten(r)[0][k]) for r in results]) for k in range(len(outs))]
    return rebuild_out(columns)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``tf.vectorized_map``: as ``tf.map_fn`` (gradmagic runs it as a loop)."""
    return map_fn(fn, elems)


class recording_paused:
    """Tapes record nothing; listeners (a trace, ``custom_gradient``'s variable watcher) still
    hear: what ``tf.recompute_grad`` runs its function under the first time."""

    def __enter__(self):
        self.token = TAPES.set(tuple(t for t in TAPES.get() if not t.records))

    def __exit__(self, *exc):
        TAPES.reset(self.token)
        return False


class TensorCall(CustomCall):
    """A ``tf.custom_gradient`` call: ``grad_fn`` gets Tensors, so TensorFlow's code runs as
    written (``upstream.numpy()``, ``upstream.shape.as_list()``); the engine's own
    ``custom_gradient`` gives arrays in a plain backward pass, its quicker path."""

    __slots__ = ()
    tensors = True
    densify = staticmethod(dense_of)  # an IndexedSlices grad_fn returns, as TensorFlow takes it


class TensorGradientFunction(CustomGradientFunction):
    call_type = TensorCall


def custom_gradient(f=None):
    """``tf.custom_gradient``: ``gm.custom_gradient``, whose ``grad_fn`` receives Tensors."""
    if f is None:
        return custom_gradient
    return TensorGradientFunction.of(f)


def recompute_grad(f):
    """``tf.recompute_grad(f)``: ``f`` with the same gradient, computed by running ``f`` again
    in the backward pass: the first run is not recorded, so what it computes in between is
    not kept. One custom-gradient call (a row of its own in a trace); variables ``f`` reads
    get gradients too; keyword arguments are passed on and get none, as in TensorFlow."""
    callable_or_fail("tf.recompute_grad", "f", f)

    def inner(*args, **kwargs):
        with recording_paused():
            result = f(*args, **kwargs)

        def grad_fn(*upstream, variables=None):
            leaves, _, rebuild = flatten(list(args))
            again = [identity(a) if isinstance(a, Tensor) else a for a in leaves]
            wanted = [isinstance(a, Tensor) and a.dtype.kind in "fc" for a in again]  # floats
            sources = [a for a, w in zip(again, wanted) if w] + list(variables or ())
            with unheard():  # the recomputation is grad_fn's own work: a trace shows its row
                with GradientTape() as tape:
                    tape.watch(sources)
                    outs = flatten(f(*rebuild(again), **kwargs))[0]
                grads = tape.gradient([as_tensor(o) for o in outs], sources,
                                      output_gradients=list(upstream), unconnected_gradients="zero")
            per_input = iter(grads)
            grad_xs = [next(per_input) if w else None for w in wanted]
            return (grad_xs, list(per_input)) if variables else grad_xs
        return result, grad_fn
    functools.update_wrapper(inner, f)
    return custom_gradient(inner)


def grad_pass_through(f):
    """``tf.grad_pass_through(f)``: ``f`` in the forward pass, the identity in the backward
    one (each input gets the upstream gradient of the output in its place: a straight-through
    estimator). Variables ``f`` reads get no gradient. Unlike TensorFlow, an output whose
    shape differs from its input's is an error, not a gradient of the wrong shape."""
    callable_or_fail("tf.grad_pass_through", "f", f)

    def inner(*args, **kwargs):
        def grad_fn(*upstream, variables=None):
            passed = list(upstream)
            return (passed, [None] * len(variables)) if variables else passed
        return f(*args, **kwargs), grad_fn
    functools.update_wrapper(inner, f)
    return custom_gradient(inner)


def gradients(ys, xs, grad_ys=None, name=None, **kwargs):
    """``tf.gradients`` does not work in eager mode; gradmagic is always eager."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                       "Use tf.GradientTape instead.")


# -- scan and folds: Python loops over the first axis, recorded as they run -----------------------
def slices_of(fn, elems):
    """``(number of slices, slice k as elems' nest)`` of a nest of tensors along its first axis."""
    leaves, _, rebuild = flatten(elems)
    tensors = [as_tensor(t) for t in leaves]
    if not tensors or min(t.ndim for t in tensors) == 0:
        raise GradientValueError(f"{fn}(elems): expected tensors of rank 1 or more to run over their "
                                 f"first dimension, got {[t.shape for t in tensors]}")
    n = {t.shape[0] for t in tensors}
    if len(n) != 1:
        raise GradientValueError(f"{fn}(elems): the tensors of elems must have the same first "
                                 f"dimension, got {sorted(n)}")
    parts = [unstack(t) for t in tensors]
    return n.pop(), lambda k: rebuild([p[k] for p in parts])


def accumulated(fn_name, fn, elems, initializer, reverse, keep):
    """Run ``a = fn(a, x)`` over the slices ``x`` of ``elems`` (from the end when ``reverse``),
    starting from ``initializer`` or else from the first slice; ``(a, [each a, if keep])``."""
    callable_or_fail(fn_name, "fn", fn)
    n, slice_at = slices_of(fn_name, elems)
    steps = list(range(n))[::-1] if reverse else list(range(n))
    if initializer is None:
        if not steps:
            raise GradientValueError(f"{fn_name}(elems): elems has no element to start from, and "
                                     "no initializer was given")
        a, steps, seen = slice_at(steps[0]), steps[1:], [slice_at(steps[0])]
    else:
        leaves, _, rebuild = flatten(initializer)
        a, seen = rebuild([as_tensor(v) for v in leaves]), []
    shape = outline(a)
    for k in steps:
        a = fn(a, slice_at(k))
        if outline(a) != shape:
            wanted = "one tensor" if shape == "." else shape
            raise GradientValueError(
                f"{fn_name}(fn): The two structures don't have the same nested structure: fn must "
                f"return what the accumulator is, {wanted}, got {a!r:.80}")
        if keep:
            seen.append(a)
    return a, seen


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
         infer_shape=True, reverse=False, name=None):
    """``tf.scan``: ``a = fn(a, x)`` for each slice ``x`` of ``elems`` along its first axis (a
    nest of tensors: of each, passed as that nest), every ``a`` stacked, in ``elems``' order
    (from the end when ``reverse``). ``a`` starts from ``initializer`` (its structure is
    ``fn``'s result's), or else is the first slice, which is then the first result. A Python
    loop here: gradients flow through every step, as the tape records them."""
    a, seen = accumulated("tf.scan", fn, elems, initializer, reverse, keep=True)
    leaves, _, rebuild = flatten(a)
    if reverse:
        seen = seen[::-1]
    if not seen:  # no element: empty stacks of the initializer's shapes
        return rebuild([getitem(expand_dims(as_tensor(v), 0), slice(0, 0)) for v in leaves])
    columns = zip(*[flatten(s)[0] for s in seen])
    return rebuild([stack([as_tensor(v) for v in column]) for column in columns])


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``tf.foldl``: ``a = fn(a, x)`` for each slice of ``elems`` from the first, starting from
    ``initializer`` or else from the first slice; the last ``a``."""
    a = accumulated("tf.foldl", fn, elems, initializer, False, keep=False)[0]
    leaves, _, rebuild = flatten(a)
    return rebuild([convert_to_tensor(v) for v in leaves])


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False,
          name=None):
    """``tf.foldr``: as ``tf.foldl``, from the last slice."""
    a = accumulated("tf.foldr", fn, elems, initializer, True, keep=False)[0]
    leaves, _, rebuild = flatten(a)
    return rebuild([convert_to_tensor(v) for v in leaves])
