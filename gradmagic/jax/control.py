"""``jax.lax``'s control flow (``while_loop``, ``fori_loop``, ``scan``, ``map``, ``cond``,
``switch``), run eagerly, with JAX's carries and checks.

JAX traces a loop's body once, so its carry is made of arrays of fixed types: a Python
number given as a carry becomes an array (``0.`` a float32 one), what comes back is arrays,
and a body that changes the carry's structure, a shape or a dtype is refused before anything
runs. Here the body runs once per step, on the same arrays, and each step's carry is checked
as JAX checks the one it traces, in JAX's words: a body that grows its carry stops at the
first step instead of running on. A Python number is weakly typed in JAX: a carry that
starts as one takes the dtype the body gives it (``0`` then ``c + 1.5`` is float32). JAX
traces both branches of ``cond``; here only the one taken runs (the other may not run on
these values at all), so only its output is checked and converted.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..core import ops
from ..core.tensor import Tensor
from .array import Array, asarray
from .tree_util import tree_flatten, tree_map, tree_unflatten

NUMBERS = (bool, int, float)  # weakly typed in JAX


def leaf(v):
    """A carry's or an operand's leaf as JAX holds it: an Array (a Tensor as it is)."""
    if isinstance(v, Tensor):
        return v
    if not isinstance(v, (*NUMBERS, complex, np.ndarray, np.generic)) or (
            np.asarray(v).dtype.kind not in "biufc"):
        raise TypeError(f"Argument {v!r} of type {type(v)} is not a valid JAX type")
    return asarray(v)


def arrays(tree):
    """``tree`` with every leaf an Array."""
    return tree_map(leaf, tree)


def aval(a) -> str:
    """An array's type as JAX writes it: ``float32[2,1]``, ``int32[]``."""
    return f"{a.dtype.name}[{','.join(str(n) for n in a.shape)}]"


def _kind(d):
    if d.kind == "leaf":
        return str(Array)
    if d.kind == "namedtuple":
        return str(d.meta)
    if d.kind == "custom":
        return str(d.meta[0])
    return str({"tuple": tuple, "list": list, "dict": dict, "none": type(None)}[d.kind])


def _steps(d):
    """The path of each child of node ``d``, as JAX's ``keystr`` writes it."""
    if d.kind == "dict":
        return [f"[{k!r}]" for k in d.meta]
    if d.kind == "namedtuple":
        return [f".{f}" for f in d.meta.__match_args__]  # a namedtuple's fields
    return [f"[{i}]" for i in range(len(d.children))]


def structure_difference(a, b, path=""):
    """Where the structures ``a`` and ``b`` (PyTreeDefs) first differ, as JAX says it:
    ``(path, the input's, the output's, why)``, or None."""
    if a.kind != b.kind or _kind(a) != _kind(b):
        return path, f"a {_kind(a)}", f"a {_kind(b)}", "their Python types differ"
    if a.kind in ("tuple", "list") and len(a.children) != len(b.children):
        return (path, f"a {a.kind} of length {len(a.children)}",
                f"a {b.kind} of length {len(b.children)}", "the lengths do not match")
    if a.kind in ("dict", "custom") and a.meta != b.meta:  # the keys, or a node's aux data
        meta = (lambda d: d.meta if d.kind == "dict" else d.meta[1])
        return (path, f"a {_kind(a)} with pytree metadata {meta(a)!r}",
                f"a {_kind(b)} with pytree metadata {meta(b)!r}", "the pytree node metadata does not match")
    for step, ca, cb in zip(_steps(a), a.children, b.children):
        found = structure_difference(ca, cb, path + step)
        if found is not None:
            return found
    return None


def leaf_paths(d, path=""):
    """The path of each leaf of structure ``d``, in flattening order."""
    if d.kind == "leaf":
        return [path]
    return [p for step, c in zip(_steps(d), d.children) for p in leaf_paths(c, path + step)]


def parameter(fn, default="carry"):
    """The name of ``fn``'s first parameter, which JAX's messages call the carry."""
    try:
        return next(iter(inspect.signature(fn).parameters))
    except (TypeError, ValueError, StopIteration):
        return default


class Carry:
    """A loop's carry: its leaves as Arrays, checked after each step as JAX checks the body
    it traces (``loop``: ``while_loop`` or ``scan``; ``root``: how messages name it)."""

    def __init__(self, loop, root, init, component=False):
        self.loop, self.root, self.component = loop, root, component
        leaves, self.treedef = tree_flatten(init)
        self.weak = [type(v) in NUMBERS for v in leaves]  # Python numbers: weakly typed
        self.leaves = [leaf(v) for v in leaves]
        self.paths = leaf_paths(self.treedef)

    @property
    def value(self):
        return tree_unflatten(self.treedef, self.leaves)

    def _where(self, path):
        return f"component {self.root}{path}" if path or self.component else self.root

    def update(self, out):
        """The body's output ``out`` as the next carry, or JAX's TypeError."""
        leaves, treedef = tree_flatten(out)
        found = structure_difference(self.treedef, treedef)
        if found is not None:
            path, was, now, why = found
            raise TypeError(
                f"{self.loop} body function carry input and carry output must have the same "
                f"pytree structure, but they differ:\n\nThe input carry {self._where(path)} is "
                f"{was} but the corresponding component of the carry output is {now}, so {why}."
                "\n\nRevise the function so that the carry output has the same pytree structure "
                "as the carry input.")
        new = [leaf(v) for v in leaves]
        for k, (a, b) in enumerate(zip(self.leaves, new)):
            dtypes, shapes = a.dtype != b.dtype, a.shape != b.shape
            if shapes or dtypes and not self.weak[k]:
                why = ", and ".join(f"the {w} do not match" for w, bad in
                                    (("dtypes", dtypes), ("shapes", shapes)) if bad)
                raise TypeError(
                    f"{self.loop} body function carry input and carry output must have equal "
                    f"types, but they differ:\n\nThe input carry {self._where(self.paths[k])} has "
                    f"type {aval(a)} but the corresponding output carry component has type "
                    f"{aval(b)}, so {why}.\n\nRevise the function so that all output types match "
                    "the corresponding input types.")
        self.leaves = new


def while_loop(cond_fun, body_fun, init_val):
    """``while cond_fun(val): val = body_fun(val)``, with JAX's carry."""
    carry = Carry("while_loop", parameter(body_fun), init_val)
    while True:
        go = cond_fun(carry.value)
        flag = leaf(go)
        if flag.shape != () or flag.dtype != np.bool_:
            weak = ", weak_type=True" if type(go) in NUMBERS else ""
            raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) "
                            f"[ShapedArray({aval(flag)}{weak})].")
        if not bool(flag):
            return carry.value
        carry.update(body_fun(carry.value))


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = body_fun(i, val)`` for ``i`` (an int32 Array, as JAX's) from ``lower`` up to
    ``upper``; JAX runs it as a ``scan`` whose carry is ``(i, val)``. ``unroll`` (how many
    steps XLA unrolls) changes nothing in an eager loop."""
    carry = Carry("scan", "loop_carry[1]", init_val, component=True)
    for i in range(int(lower), int(upper)):
        carry.update(body_fun(asarray(i), carry.value))
    return carry.value


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``(carry, stacked ys)``: ``carry, y = f(carry, x)`` over the leading axis of each
    leaf of ``xs`` (a pytree, or None with ``length``)."""
    slices, xs_def = tree_flatten(xs)
    slices = [leaf(v) for v in slices]
    n = _length(slices, length)
    carry = Carry("scan", parameter(f), init)
    ys, pair = [], tuple
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        out = f(carry.value, tree_unflatten(xs_def, [s[i] for s in slices]))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            what = aval(leaf(out)) if not isinstance(out, (tuple, list, dict)) and out is not None else repr(out)
            raise TypeError(f"scan body output must be a pair, got {what}.")
        pair = type(out)
        carry.update(out[0])
        ys.append(out[1])
    if reverse:
        ys.reverse()
    stacked = tree_map(lambda *v: ops.stack([leaf(y) for y in v]), *ys) if ys else None
    return pair((carry.value, stacked))


def _length(slices, length):
    for s in slices:
        if s.ndim == 0:
            raise ValueError(f"scan got value with no leading axis to scan over: {s}.")
    sizes = [s.shape[0] for s in slices]
    if len(set(sizes)) > 1:
        raise ValueError(f"scan got values with different leading axis sizes: "
                         f"{', '.join(str(n) for n in sizes)}.")
    if length is not None:
        if sizes and sizes[0] != length:
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {sizes}.")
        return int(length)
    if not sizes:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    return sizes[0]


def map(f, xs, *, batch_size=None):  # noqa: A001  (JAX's name)
    """``f`` over the leading axis of ``xs``, the results stacked: a ``scan`` with no carry.
    ``batch_size`` (JAX's batches of ``vmap``) changes nothing here, where ``vmap`` is a loop."""
    return scan(lambda _, x: ((), f(x)), (), xs)[1]


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``: only the branch
    taken runs, so its gradient is the gradient; operands and output are Arrays."""
    p = leaf(pred)
    if p.shape != ():
        raise TypeError(f"Pred must be a scalar, got {p.value} of shape {p.shape}.")
    return arrays((true_fun if bool(p) else false_fun)(*arrays(operands)))


def switch(index, branches, *operands):
    """``branches[index](*operands)``, ``index`` clamped into range as JAX clamps it."""
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    k = leaf(index)
    if k.shape != () or k.dtype.kind not in "iub":
        raise TypeError(f"Index type must be an integer, got {k.value} as {k.dtype.name}")
    k = min(max(int(k), 0), len(branches) - 1)
    return arrays(branches[k](*arrays(operands)))
