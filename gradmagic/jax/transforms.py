"""JAX's function transformations on gradmagic's tapes: ``grad``, ``value_and_grad``,
``vjp``, ``jacrev``, ``jvp``, ``jacfwd``, ``hessian``, ``vmap`` and ``jit``.

Each call runs the user's pure function once on a tape that watches the arguments'
leaves; the transformations nest (``grad(grad(f))``) because an outer tape records the
inner one's backward pass. Nothing is compiled: ``jit`` returns the function itself.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import ops
from ..core.context import calling, stack
from ..core.forward import jvp as engine_jvp
from ..core.tape import GradientTape
from ..core.tensor import Tensor
from .array import Array, asarray
from .custom import FORWARD
from .tree_util import tree_flatten, tree_map, tree_unflatten


def _argnums(argnums, n, fn):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -n <= a < n:
            raise TypeError(f"{fn}: argnums={argnums!r} is out of range for a function called "
                            f"with {n} positional argument(s)")
    return tuple(a % n for a in nums)


def _as_array(t):
    """A result as an ``Array``, unless a recording tape follows it (then it stays itself)."""
    if not isinstance(t, Tensor) or isinstance(t, Array):
        return t
    for tape in stack():
        if tape.records and tape.follows(t):
            return t
    return asarray(t.value)


class _Watched:
    """The arguments ``nums`` of a call, with their leaves as Arrays on a tape."""

    def __init__(self, args, nums, fn, allow_int=False):
        self.args = list(args)
        self.defs, self.leaves = {}, []
        for a in nums:
            leaves, treedef = tree_flatten(self.args[a])
            leaves = [asarray(x) for x in leaves]
            for x in leaves:
                if x.dtype.kind not in "fc" and not allow_int:
                    raise TypeError(
                        f"{fn} requires real- or complex-valued inputs (input dtype that is a "
                        f"sub-dtype of np.inexact), but got {x.dtype.name}. If you want to use "
                        "Boolean- or integer-valued inputs, use vjp or set allow_int to True.")
            self.defs[a] = (treedef, len(self.leaves), len(leaves))
            self.leaves += leaves
            self.args[a] = tree_unflatten(treedef, leaves)

    def rebuild(self, flat, nums):
        out = []
        for a in nums:
            treedef, start, n = self.defs[a]
            out.append(tree_unflatten(treedef, [_as_array(g) for g in flat[start:start + n]]))
        return out


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """``jax.value_and_grad``: ``fun``'s value and its gradient in ``argnums``."""
    name = getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def run(*args, **kwargs):
        nums = _argnums(argnums, len(args), f"value_and_grad({name})")
        w = _Watched(args, nums, "grad", allow_int)
        with GradientTape(persistent=True) as tape:
            tape.watch(w.leaves)
            calling(fun, w.args, kwargs)
            out = fun(*w.args, **kwargs)
        if has_aux:
            if not (isinstance(out, (tuple, list)) and len(out) == 2):
                raise TypeError("has_aux=True requires the function to return a pair "
                                f"(output, aux), got {type(out).__name__}")
            out, aux = out
        out = asarray(out)
        if out.shape != ():
            raise TypeError(f"Gradient only defined for scalar-output functions. Output had "
                            f"shape: {out.shape}.")
        if out.dtype.kind != "f":
            raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype "
                            f"of np.floating), but got {out.dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiating "
                            "non-holomorphic functions involving complex outputs, use jax.vjp "
                            "directly.")
        flat = tape.gradient(out, w.leaves, unconnected_gradients="zero")
        grads = w.rebuild(flat, nums)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = _as_array(out)
        return ((value, aux), g) if has_aux else (value, g)
    return run


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False, reduce_axes=()):
    """``jax.grad``: the gradient of scalar-valued ``fun`` in ``argnums``.

    >>> import gradmagic.jax as jax
    >>> import gradmagic.jax.numpy as jnp
    >>> print(jax.grad(lambda x, y: jnp.sin(x) * y)(2., 3.))
    -1.2484405
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    @functools.wraps(fun)
    def run(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return run


def vjp(fun, *primals, has_aux=False):
    """``jax.vjp``: ``(fun(*primals), vjp_fn)``; ``vjp_fn(cotangent)`` gives one cotangent
    per primal."""
    nums = tuple(range(len(primals)))
    w = _Watched(primals, nums, "vjp", allow_int=True)
    tape = GradientTape(persistent=True)
    with tape:
        tape.watch([x for x in w.leaves if x.dtype.kind in "fc"])
        out = fun(*w.args)
    if has_aux:
        out, aux = out
    out_leaves, out_def = tree_flatten(out)
    out_leaves = [asarray(o) for o in out_leaves]

    def vjp_fn(cotangent):
        cts, ct_def = tree_flatten(cotangent)
        if ct_def != out_def:
            raise TypeError(f"Tree structure of cotangent input {ct_def}, does not match "
                            f"structure of primal output {out_def}.")
        seeds = []
        for o, c in zip(out_leaves, cts):
            c = asarray(c, o.dtype)
            if c.shape != o.shape:
                raise ValueError(f"Shape of cotangent input to vjp pullback function {c.shape} "
                                 f"must be the same as the shape of corresponding primal input "
                                 f"{o.shape}.")
            seeds.append(c)
        floats = [x for x in w.leaves if x.dtype.kind in "fc"]
        flat = iter(tape.gradient(out_leaves, floats, output_gradients=seeds,
                                  unconnected_gradients="zero")) if floats else iter(())
        grads = [next(flat) if x.dtype.kind in "fc" else None for x in w.leaves]
        return tuple(w.rebuild(grads, nums))

    out = tree_unflatten(out_def, [_as_array(o) for o in out_leaves])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """``jax.jacrev``: the Jacobian, row by row with reverse mode: ``out.shape + x.shape``."""
    @functools.wraps(fun)
    def run(*args):
        nums = _argnums(argnums, len(args), "jacrev")
        w = _Watched(args, nums, "jacrev", allow_int)
        with GradientTape(persistent=True) as tape:
            tape.watch(w.leaves)
            calling(fun, w.args)
            out = fun(*w.args)
        if has_aux:
            out, aux = out
        out_leaves, out_def = tree_flatten(out)
        per_out = []
        for o in out_leaves:
            flat = tape.jacobian(asarray(o), w.leaves, unconnected_gradients="zero")
            grads = w.rebuild(flat, nums)
            per_out.append(grads[0] if isinstance(argnums, int) else tuple(grads))
        jac = tree_unflatten(out_def, per_out)
        return (jac, aux) if has_aux else jac
    return run


def jvp(fun, primals, tangents, has_aux=False):
    """``jax.jvp``: ``(fun(*primals), the tangent of the output along tangents)``: forward mode,
    built on the engine's reverse mode."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    if len(primals) != len(tangents):
        raise TypeError("jvp called with different primal and tangent arguments sizes: "
                        f"{len(primals)} and {len(tangents)}")
    primals = [tree_map(asarray, p) for p in primals]
    tangents = [tree_map(asarray, t) for t in tangents]
    aux = []

    def run(*args):
        calling(fun, args)
        out = fun(*args)
        if has_aux:
            out, extra = out
            aux.append(extra)
        return out
    run.__name__ = getattr(fun, "__name__", "fun")
    token = FORWARD.set(True)  # a custom_vjp function refuses forward mode, as in JAX
    try:
        out, tangent_out = engine_jvp(run, tuple(primals), tuple(tangents))
    finally:
        FORWARD.reset(token)
    out, tangent_out = tree_map(_as_array, out), tree_map(_as_array, tangent_out)
    return (out, tangent_out, aux[0]) if has_aux else (out, tangent_out)


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jax.jacfwd``: the Jacobian, column by column with forward mode."""
    @functools.wraps(fun)
    def run(*args):
        nums = _argnums(argnums, len(args), "jacfwd")
        args = [tree_map(asarray, a) for a in args]
        columns = {a: [] for a in nums}
        for a in nums:
            x = args[a]
            for i in range(x.size):
                basis = np.zeros(x.size, x.dtype)
                basis[i] = 1
                tangents = [ops.zeros_like(asarray(p)) if k != a else asarray(basis.reshape(x.shape))
                            for k, p in enumerate(args)]
                out, t = jvp(fun, args, tangents)
                columns[a].append(t)
        jacs = []
        for a in nums:
            x = args[a]
            cols = columns[a]
            stacked = ops.stack(cols, axis=-1) if cols else None
            jacs.append(_as_array(ops.reshape(stacked, stacked.shape[:-1] + x.shape)))
        return jacs[0] if isinstance(argnums, int) else tuple(jacs)
    return run


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jax.hessian``: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def _axes_for(in_axes, args):
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the function, "
                             f"but got len(in_axes)={len(in_axes)}, len(args)={len(args)}")
        return list(in_axes)
    return [in_axes] * len(args)


def _leaf_axes(axis, arg):
    """One axis (or None) per leaf of ``arg``, for an axis spec that is a prefix tree of it."""
    if axis is None or isinstance(axis, int):
        return [axis] * len(tree_flatten(arg)[0])
    if isinstance(axis, dict):
        return [x for k in sorted(arg) for x in _leaf_axes(axis[k], arg[k])]
    return [x for sub_axis, sub in zip(axis, arg) for x in _leaf_axes(sub_axis, sub)]


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """``jax.vmap``: ``fun`` mapped over an axis of its arguments (a loop and a stack here)."""
    @functools.wraps(fun)
    def run(*args):
        axes = _axes_for(in_axes, args)
        flat_args = []
        sizes = set()
        for a, ax in zip(args, axes):
            leaves, treedef = tree_flatten(a)
            leaf_axes = _leaf_axes(ax, a)
            leaves = [asarray(x) for x in leaves]
            for x, la in zip(leaves, leaf_axes):
                if la is not None:
                    sizes.add(x.shape[la])
            flat_args.append((leaves, leaf_axes, treedef))
        if len(sizes) != 1:
            if not sizes and axis_size is None:
                raise ValueError("vmap must have at least one non-None value in in_axes")
            if len(sizes) > 1:
                raise ValueError(f"vmap got inconsistent sizes for array axes to be mapped: "
                                 f"{sorted(sizes)}")
        n = sizes.pop() if sizes else axis_size
        results = []
        for i in range(n):
            call = [tree_unflatten(td, [ops.moveaxis(x, la, 0)[i] if la is not None else x
                                        for x, la in zip(leaves, las)])
                    for leaves, las, td in flat_args]
            results.append(fun(*call))
        leaves = [tree_flatten(r)[0] for r in results]
        treedef = tree_flatten(results[0])[1]
        axes = _leaf_axes(out_axes, results[0])
        out = [asarray(column[0]) if ax is None else  # an output not mapped: the same each time
               _as_array(ops.stack([asarray(x) for x in column], axis=ax))
               for column, ax in zip(zip(*leaves), axes)]
        return tree_unflatten(treedef, out)
    return run


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None, **options):
    """``jax.jit``: gradmagic runs everything eagerly; nothing is compiled, and the function
    is returned as it is (so decorated code runs, and its trace shows every op)."""
    if fun is None:
        return lambda f: f
    return fun
