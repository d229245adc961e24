"""JAX's function transformations on gradmagic's tapes: ``grad``, ``value_and_grad``,
``vjp``, ``jacrev``, ``jvp``, ``jacfwd``, ``hessian``, ``vmap`` and ``jit``.

Each call runs the user's pure function once on a tape that watches the arguments'
leaves; the transformations nest (``grad(grad(f))``) because an outer tape records the
inner one's backward pass. Nothing is compiled: ``jit`` returns the function itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
from collections import Counter

import numpy as np

from ..core import ops
from ..core.context import calling
from ..core.forward import jvp as engine_jvp
from ..core.tape import GradientTape
from .array import asarray, fresh, to_array
from .custom import FORWARD
from .tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_map, tree_unflatten


def _argnums(argnums, n, fn):
    """``argnums`` as non-negative positions among ``n`` positional arguments, or JAX's error:
    ``grad``'s TypeError, the Jacobians' ValueError."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int):
            raise TypeError(f"{fn}: argnums={argnums!r} must be an int or a tuple of ints")
        if fn.startswith("value_and_grad") and a >= n:
            raise TypeError(f"differentiating with respect to argnums={argnums!r} requires at least "
                            f"{max(nums) + 1} positional arguments to be passed by the caller, but "
                            f"got only {n} positional arguments.")
        if not -n <= a < n:
            raise ValueError("Positional argument indices, e.g. for `static_argnums`, must have "
                             "value greater than or equal to -len(args) and less than len(args), "
                             f"but got value {a} for len(args) == {n}.")
    return tuple(a % n for a in nums)


def _aval(x):
    return f"{x.dtype.name}[{','.join(str(n) for n in x.shape)}]"


def _holomorphic(fn, leaves):
    """JAX's TypeError for ``holomorphic=True`` with an input that is not complex."""
    for x in leaves:
        if x.dtype.kind != "c":
            raise TypeError(f"{fn} with holomorphic=True requires inputs with complex dtype, but "
                            f"got {x.dtype.name}.")


def _aux_pair(out):
    """``fun``'s ``(output, aux)``, or JAX's TypeError where it returned no pair."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("expected function with aux output to return a two-element tuple, but "
                        f"got type {type(out)} with value {out!r}")
    return out


class _Watched:
    """The arguments ``nums`` of a call, with their leaves as Arrays on a tape."""

    def __init__(self, args, nums, fn, allow_int=False):
        self.args = list(args)
        self.defs, self.leaves = {}, []
        for a in nums:
            leaves, treedef = tree_flatten(self.args[a])
            leaves = [fresh(x) for x in leaves]
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
            out.append(tree_unflatten(treedef, [g if getattr(g, "dtype", None) == FLOAT0 else to_array(g)
                                                for g in flat[start:start + n]]))
        return out

    def gradient(self, tape, out):
        """The gradient of ``out`` for each leaf: a float0 zero for an integer one, as JAX's
        ``allow_int=True`` gives (the tape follows floating leaves only)."""
        floats = [x for x in self.leaves if x.dtype.kind in "fc"]
        found = iter(tape.gradient(out, floats, unconnected_gradients="zero") if floats else ())
        return [next(found) if x.dtype.kind in "fc" else np.zeros(x.shape, FLOAT0) for x in self.leaves]


FLOAT0 = np.dtype([("float0", np.void, 0)])  # jax.dtypes.float0: the tangent type of integers


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False,
                   reduce_axes=()):
    """``jax.value_and_grad``: ``fun``'s value and its gradient in ``argnums``."""
    name = getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def run(*args, **kwargs):
        nums = _argnums(argnums, len(args), f"value_and_grad({name})")
        if holomorphic:
            _holomorphic("grad", [asarray(x) for a in nums for x in tree_flatten(args[a])[0]])
        w = _Watched(args, nums, "grad", allow_int)
        with GradientTape(persistent=True) as tape:
            tape.watch([x for x in w.leaves if x.dtype.kind in "fc"])
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
        if out.dtype.kind in "biu":
            raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype "
                            f"of np.floating), but got {out.dtype.name}. For differentiation of "
                            "functions with integer outputs, use jax.vjp directly.")
        if out.dtype.kind != "f":
            raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype "
                            f"of np.floating), but got {out.dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiating "
                            "non-holomorphic functions involving complex outputs, use jax.vjp "
                            "directly.")
        grads = w.rebuild(w.gradient(tape, out), nums)
        g = grads[0] if isinstance(argnums, int) else tuple(grads)
        value = to_array(out)
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
        out, aux = _aux_pair(out)
    out_leaves, out_def = tree_flatten(out)
    out_leaves = [asarray(o) for o in out_leaves]

    def vjp_fn(cotangent):
        cts, ct_def = tree_flatten(cotangent)
        if ct_def != out_def:
            raise ValueError("unexpected tree structure.\n\nThe argument to a VJP function returned "
                             "by `jax.vjp` must match the pytree\nstructure of the differentiated "
                             f"function {getattr(fun, '__name__', 'fun')}.\n\nBut the tree structures "
                             f"differ: the cotangent is {ct_def}, the output {out_def}.")
        seeds = []
        for o, c in zip(out_leaves, cts):
            given = asarray(c)
            if o.dtype.kind in "fc" and given.dtype.kind in "biu" or given.shape != o.shape:
                raise ValueError(
                    "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                    f"{_aval(given)}, but expected {_aval(o)} because the corresponding output of "
                    f"the differentiated function had JAX type {_aval(o)}")
            seeds.append(asarray(c, o.dtype))
        floats = [x for x in w.leaves if x.dtype.kind in "fc"]
        flat = iter(tape.gradient(out_leaves, floats, output_gradients=seeds,
                                  unconnected_gradients="zero")) if floats else iter(())
        grads = [next(flat) if x.dtype.kind in "fc" else np.zeros(x.shape, FLOAT0)  # JAX's
                 for x in w.leaves]  # float0 zeros for an integer primal
        return tuple(w.rebuild(grads, nums))

    out = tree_unflatten(out_def, [to_array(o) for o in out_leaves])
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """``jax.jacrev``: the Jacobian, row by row with reverse mode. Inputs and outputs may be
    pytrees: ``jac[out leaf][in leaf]`` has shape ``out.shape + in.shape`` (the output's
    tree outside, the input's inside; a tuple over ``argnums`` when it is a tuple).

    >>> import gradmagic.jax as jax
    >>> import gradmagic.jax.numpy as jnp
    >>> jax.jacrev(lambda x: {"c": x ** 2})(jnp.array([1., 2.]))["c"].tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    @functools.wraps(fun)
    def run(*args, **kwargs):  # keyword arguments passed on, not differentiated, as JAX
        nums = _argnums(argnums, len(args), "jacrev")
        if holomorphic:
            _holomorphic("jacrev", [asarray(x) for a in nums for x in tree_flatten(args[a])[0]])
        w = _Watched(args, nums, "jacrev", allow_int)
        floats = [x for x in w.leaves if x.dtype.kind in "fc"]
        with GradientTape(persistent=True) as tape:
            tape.watch(floats)
            calling(fun, w.args)
            out = fun(*w.args, **kwargs)
        if has_aux:
            out, aux = _aux_pair(out)
        out_leaves, out_def = tree_flatten(out)
        per_out = []
        for o in out_leaves:
            o = asarray(o)
            found = iter(tape.jacobian(o, floats, unconnected_gradients="zero") if floats else ())
            flat = [next(found) if x.dtype.kind in "fc" else  # allow_int: an integer's zeros, as JAX
                    asarray(np.zeros(o.shape + x.shape, x.dtype)) for x in w.leaves]
            grads = w.rebuild(flat, nums)
            per_out.append(grads[0] if isinstance(argnums, int) else tuple(grads))
        jac = tree_unflatten(out_def, per_out)
        return (jac, tree_map(to_array, aux)) if has_aux else jac
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
    _matching(primals, tangents)
    primals = [tree_map(fresh, p) for p in primals]
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
    out, tangent_out = tree_map(to_array, out), tree_map(to_array, tangent_out)
    return (out, tangent_out, aux[0]) if has_aux else (out, tangent_out)


def _matching(primals, tangents):
    """JAX's errors for ``jvp`` tangents of another tree structure, dtype or shape than their
    primals'."""
    p_def, t_def = tree_flatten(tuple(primals))[1], tree_flatten(tuple(tangents))[1]
    if p_def != t_def:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree structure; "
                        f"primals have tree structure {p_def} whereas tangents have tree structure "
                        f"{t_def}.")
    for p, t in zip(tree_flatten(tuple(primals))[0], tree_flatten(tuple(tangents))[0]):
        p, weak = asarray(p), isinstance(t, float)
        t = asarray(t)
        if p.dtype.kind in "fc" and t.dtype != p.dtype and not (weak and p.dtype.kind == "f"):
            raise TypeError("primal and tangent arguments to jax.jvp do not match; dtypes must be "
                            "equal, or in case of int/bool primal dtype the tangent dtype must be "
                            f"float0.Got primal dtype {p.dtype.name} and so expected tangent dtype "
                            f"{p.dtype.name}, but got tangent dtype {t.dtype.name} instead.")
        if p.shape != t.shape:
            raise ValueError("jvp called with different primal and tangent shapes;Got primal shape "
                             f"{p.shape} and tangent shape as {t.shape}")


def _basis(zeros, a, k, x, i):
    """The tangents that are zero but for element ``i`` of leaf ``k`` of argument ``a``."""
    leaves, treedef = tree_flatten(zeros[a])
    column = np.zeros(x.size, x.dtype)
    column[i] = 1
    tangents = list(zeros)
    tangents[a] = tree_unflatten(treedef, leaves[:k] + [asarray(column.reshape(x.shape))]
                                 + leaves[k + 1:])
    return tangents


def jacfwd(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jax.jacfwd``: the Jacobian, column by column with forward mode (one ``jvp`` per
    element of the inputs). Inputs and outputs may be pytrees: ``jac[out leaf][in leaf]``
    has shape ``out.shape + in.shape`` (the output's tree outside, the input's inside; a
    tuple over ``argnums`` when it is a tuple). JAX's example (NumPy's float32 ``sin`` can
    differ from XLA's in the last place: 0.841471 here, 0.84147096 in JAX):

    >>> import gradmagic.jax as jax
    >>> import gradmagic.jax.numpy as jnp
    >>> def f(x):
    ...     return jnp.asarray([x[0], 5*x[2], 4*x[1]**2 - 2*x[2], x[2] * jnp.sin(x[0])])
    >>> print(jax.jacfwd(f)(jnp.array([1., 2., 3.])))
    [[ 1.         0.         0.       ]
     [ 0.         0.         5.       ]
     [ 0.        16.        -2.       ]
     [ 1.6209068  0.         0.841471 ]]
    """
    @functools.wraps(fun)
    def run(*args, **kwargs):  # keyword arguments passed on, not differentiated, as JAX
        nums = _argnums(argnums, len(args), "jacfwd")
        args = [tree_map(asarray, a) for a in args]
        primals = [args[a] for a in nums]  # the rest are constants (an int n in x ** n)

        def at(*diff):
            full = list(args)
            for a, d in zip(nums, diff):
                full[a] = d
            return fun(*full, **kwargs)
        at.__name__ = getattr(fun, "__name__", "fun")
        try:  # so that a trace names the primals after fun's own parameters
            params = list(inspect.signature(fun).parameters.values())
            at.__signature__ = inspect.Signature([params[a] for a in nums])
        except (TypeError, ValueError, IndexError):
            pass
        zeros = [tree_map(lambda p: asarray(np.zeros(p.shape, p.dtype)), a) for a in primals]
        inputs = []  # (position among the primals, leaf position, leaf) for each input leaf
        for a, primal in enumerate(primals):
            for k, x in enumerate(tree_flatten(primal)[0]):
                if holomorphic:
                    _holomorphic("jacfwd", [x])
                if x.dtype.kind != "f":
                    raise TypeError(
                        f"jacfwd requires real-valued inputs (input dtype that is a sub-dtype of "
                        f"np.floating), but got {x.dtype.name}. For holomorphic differentiation, "
                        "pass holomorphic=True. For differentiation of non-holomorphic functions "
                        "involving complex inputs or integer inputs, use jax.jvp directly.")
                inputs.append((a, k, x))
        columns, result = [[] for _ in inputs], None
        for j, (a, k, x) in enumerate(inputs):
            for i in range(x.size):
                result = jvp(at, primals, _basis(zeros, a, k, x, i), has_aux=has_aux)
                columns[j].append(tree_flatten(result[1])[0])
        if result is None:  # no input has an element: one call for the output's structure
            result = jvp(at, primals, zeros, has_aux=has_aux)
        out_leaves, out_def = tree_flatten(result[0])
        per_out = []
        for m, o in enumerate(out_leaves):
            o = asarray(o)
            blocks = iter([to_array(ops.reshape(ops.stack([c[m] for c in cols], axis=-1),
                                                o.shape + x.shape)) if cols else
                           asarray(np.zeros(o.shape + x.shape, o.dtype))
                           for cols, (_, _, x) in zip(columns, inputs)])
            trees = []
            for a in nums:
                treedef = tree_flatten(args[a])[1]
                trees.append(tree_unflatten(treedef, [next(blocks) for _ in range(treedef.num_leaves)]))
            per_out.append(trees[0] if isinstance(argnums, int) else tuple(trees))
        jac = tree_unflatten(out_def, per_out)
        return (jac, tree_map(to_array, result[2])) if has_aux else jac
    return run


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """``jax.hessian``: ``jacfwd(jacrev(fun))``; for pytrees ``hess[out][in1][in2]`` has shape
    ``out.shape + in1.shape + in2.shape``. JAX's examples:

    >>> import gradmagic.jax as jax
    >>> import gradmagic.jax.numpy as jnp
    >>> g = lambda x: x[0]**3 - 2*x[0]*x[1] - x[1]**6
    >>> print(jax.hessian(g)(jnp.array([1., 2.])))
    [[   6.   -2.]
     [  -2. -480.]]
    >>> f = lambda dct: {"c": jnp.power(dct["a"], dct["b"])}
    >>> h = jax.hessian(f)({"a": jnp.arange(2.) + 1., "b": jnp.arange(2.) + 2.})
    >>> print(h["c"]["b"]["b"])
    [[[0.       0.      ]
      [0.       0.      ]]
    <BLANKLINE>
     [[0.       0.      ]
      [0.       3.843624]]]
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


def linearize(fun, *primals, has_aux=False):
    """``jax.linearize``: ``(fun(*primals), f_jvp)``, where ``f_jvp(*tangents)`` is the
    Jacobian-vector product at ``primals`` (with ``has_aux``, ``fun``'s aux comes third).
    Nothing is compiled or stored here: each call of ``f_jvp`` is one ``jax.jvp``.

    >>> import gradmagic.jax as jax
    >>> import gradmagic.jax.numpy as jnp
    >>> y, f_jvp = jax.linearize(jnp.sin, 1.)
    >>> print(y, f_jvp(2.))
    0.841471 1.0806046
    """
    primals = tuple(tree_map(asarray, p) for p in primals)
    zeros = tuple(tree_map(lambda p: asarray(np.zeros(p.shape, p.dtype)), p) for p in primals)
    result = jvp(fun if not has_aux else functools.wraps(fun)(lambda *a: _aux_pair(fun(*a))),
                 primals, zeros, has_aux=has_aux)
    expected = [(x.shape, x.dtype) for x in tree_flatten(primals)[0]]

    def f_jvp(*tangents):
        leaves, treedef = tree_flatten(tangents)
        if treedef != tree_flatten(primals)[1]:
            raise TypeError(f"linearized function called on tangents of structure {treedef}, "
                            f"inconsistent with the original primals' {tree_flatten(primals)[1]}")
        for t, (shape, dtype) in zip(leaves, expected):
            t = asarray(t)
            if t.shape != shape:
                raise ValueError(
                    "linearized function called on tangent values inconsistent with the original "
                    f"primal values: got tangent of shape {t.shape} for primal of shape {shape} "
                    f"and dtype {dtype.name}, expected shape {shape}.")
        return jvp(fun, primals, tangents, has_aux=has_aux)[1]
    f_jvp.__name__ = f"linearized_{getattr(fun, '__name__', 'fun')}"
    return (result[0], f_jvp, result[2]) if has_aux else (result[0], f_jvp)


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """``jax.checkpoint`` (``jax.remat``): in JAX, a function whose intermediate values are
    recomputed in the backward pass instead of stored, to save memory. The values and the
    gradients are the same, so here it returns a function that simply calls ``fun``:
    gradmagic's tape keeps the intermediates (it does not trade time for memory)."""
    @functools.wraps(fun)
    def run(*args, **kwargs):
        return fun(*args, **kwargs)
    return run


remat = checkpoint


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


def _leaf_names(fun, args, kwargs):
    """How JAX's vmap names each leaf of ``args`` and ``kwargs`` in an error: ``argument x``,
    ``argument y[0]``, ``kwargs['z']``, each with its type (``float32[3]``)."""
    try:
        params = list(inspect.signature(fun).bind(*args, **kwargs).signature.parameters)
    except (TypeError, ValueError):
        params = []
    named = [(f"argument {params[i]}" if i < len(params) else f"args[{i}]", a)
             for i, a in enumerate(args)] + [("kwargs", kwargs)]
    return [f"{head}{keystr(path)} of type {x.dtype.name}[{','.join(map(str, x.shape))}]"
            for head, a in named for path, x in tree_flatten_with_path(tree_map(asarray, a))[0]]


def _size_error(fun, args, kwargs, sizes, dims, axis_size):
    """JAX's ValueError for mapped axes of different sizes: each size, how many axes had
    it, and the first of them."""
    names = _leaf_names(fun, args, kwargs)
    mapped = [(s, d, name) for s, d, name in zip(sizes, dims, names) if d is not None]
    lines = [] if axis_size is None else [f"  * the `axis_size` argument was {axis_size};"]
    for k, (size, count) in enumerate(Counter(s for s, _, _ in mapped).most_common()):
        _, dim, name = next(m for m in mapped if m[0] == size)
        lines.append(f"  * one axis had size {size}: axis {dim} of {name};" if count == 1 else
                     f"  * {'some' if k else 'most'} axes ({count} of them) had size {size}, "
                     f"e.g. axis {dim} of {name};")
    return ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                      + "\n".join(lines)[:-1])


def _mapped_size(x, axis):
    """The size of ``x`` along a mapped ``axis``, or JAX's error for a rank too small."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"vmap was requested to map its argument along axis {axis}, which "
                         f"implies that its rank should be at least {axis + 1 if axis >= 0 else -axis}, "
                         f"but is only {x.ndim} (its shape is {tuple(x.shape)})")
    return x.shape[axis]


def _part(x, axis, i):
    """Slice ``i`` of ``x`` along ``axis`` (``x`` where not mapped); ``i`` None: zeros of a
    slice's shape, for a batch of none."""
    if axis is None:
        return x
    if i is None:
        return asarray(np.zeros(np.delete(x.shape, axis % x.ndim), x.dtype))
    return x[(slice(None),) * (axis % x.ndim) + (i,)]


def _stacked(results, out_axes, n):
    """The calls' outputs stacked along ``out_axes``; for a batch of none (``results`` one
    call on zeros), empty arrays of the stacked shape, as JAX gives."""
    treedef = tree_flatten(results[0])[1]
    columns = zip(*[[asarray(x) for x in tree_flatten(r)[0]] for r in results])
    paths = [path for path, _ in tree_flatten_with_path(results[0])[0]]
    out = []
    for column, ax, path in zip(columns, _leaf_axes(out_axes, results[0]), paths):
        if ax is None:  # an output not mapped: the same each time, or JAX's error
            if any(x.shape != column[0].shape or not np.array_equal(x.value, column[0].value, equal_nan=True)
                   for x in column[1:]):
                raise ValueError(f"at vmap out_axes{keystr(path)}, got axis spec None but output "
                                 "was batched on axis 0")
            out.append(column[0])
        elif n == 0:
            shape = list(column[0].shape)
            shape.insert(ax % (len(shape) + 1), 0)
            out.append(asarray(np.zeros(shape, column[0].dtype)))
        else:
            out.append(to_array(ops.stack(column, axis=ax)))
    return tree_unflatten(treedef, out)


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """``jax.vmap``: ``fun`` mapped over an axis of its arguments (a loop and a stack here).
    ``in_axes`` is for the positional arguments; keyword arguments are mapped over axis 0,
    as in JAX. A batch of size 0 runs ``fun`` once on zeros, for its output's shape."""
    @functools.wraps(fun)
    def run(*args, **kwargs):
        leaves, treedef = tree_flatten((args, kwargs))
        leaves = [asarray(x) for x in leaves]
        dims = _leaf_axes(_axes_for(in_axes, args), args) + [0] * len(tree_flatten(kwargs)[0])
        sizes = [None if d is None else _mapped_size(x, d) for x, d in zip(leaves, dims)]
        found = {s for s in sizes if s is not None} | ({axis_size} - {None})
        if not found:
            raise ValueError("vmap must have at least one non-None value in in_axes or "
                             "axis_size must be specified")
        if len(found) > 1:
            raise _size_error(fun, args, kwargs, sizes, dims, axis_size)
        n = found.pop()
        results = []
        for i in range(n) if n else [None]:
            call_args, call_kwargs = tree_unflatten(treedef, [_part(x, d, i) for x, d in zip(leaves, dims)])
            results.append(fun(*call_args, **call_kwargs))
        return _stacked(results, out_axes, n)
    return run


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None, **options):
    """``jax.jit``: gradmagic runs everything eagerly; nothing is compiled: the function runs
    as it is (so decorated code runs, and its trace shows every op), its numbers returned as
    Arrays, as JAX's are."""
    if fun is None:
        return lambda f: jit(f)

    @functools.wraps(fun)
    def run(*args, **kwargs):
        out = fun(*args, **kwargs)
        if JIT_OFF.get():  # under disable_jit: what the function returns, as it is
            return out
        return tree_map(lambda v: asarray(v) if isinstance(v, (int, float, bool, np.generic)) else v, out)
    return run


JIT_OFF = contextvars.ContextVar("gradmagic_jax_jit_off", default=False)


@contextlib.contextmanager
def disable_jit(disable=True):
    """``with jax.disable_jit():``: ``jit`` compiles nothing anyway; in the block a jitted
    function returns what its code returns (a Python number stays one), as JAX's then."""
    token = JIT_OFF.set(bool(disable))
    try:
        yield
    finally:
        JIT_OFF.reset(token)
