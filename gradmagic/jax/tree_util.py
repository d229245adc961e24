"""``jax.tree_util``: pytrees as JAX flattens them: tuples, lists, dicts (in sorted key
order), namedtuples and the classes registered with ``register_pytree_node`` are nodes,
``None`` is an empty node, anything else is a leaf. Key paths as JAX's
(``tree_flatten_with_path``, ``tree_map_with_path``, ``keystr``: ``DictKey``, ``SequenceKey``,
``GetAttrKey``, ``FlattenedIndexKey``), ``register_dataclass``, ``all_leaves``,
``tree_transpose``, and ``Partial``, a pytree."""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from typing import NamedTuple

NODES = {}  # a registered class -> (flatten: x -> (children, aux), unflatten: (aux, children) -> x)


class PyTreeDef:
    """The structure of a pytree, without its leaves."""

    def __init__(self, kind, meta, children):
        self.kind, self.meta, self.children = kind, meta, children

    @property
    def num_leaves(self):
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)

    def compose(self, inner):
        """This structure with a tree of ``inner``'s at each leaf."""
        if self.kind == "leaf":
            return inner
        return PyTreeDef(self.kind, self.meta, [c.compose(inner) for c in self.children])

    def flatten_up_to(self, tree, name="tree"):
        """The subtrees of ``tree`` at this structure's leaves (``tree``'s structure starts
        with this one; else JAX's ValueError, naming the key path where they differ)."""
        return _up_to(self, tree, name, ())

    def __eq__(self, other):
        return (isinstance(other, PyTreeDef) and (self.kind, self.meta) == (other.kind, other.meta)
                and self.children == other.children)

    def __hash__(self):
        return hash((self.kind, str(self.meta), tuple(self.children)))

    def __repr__(self):
        return f"PyTreeDef({self._inner()})"

    def _inner(self):
        """As JAX writes the structure: ``*`` a leaf, ``(*, *)``, ``[*]``, ``{'a': *}``,
        ``CustomNode(Point[aux], [*, *])``."""
        inner = [c._inner() for c in self.children]
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind == "tuple":
            return f"({inner[0]},)" if len(inner) == 1 else f"({', '.join(inner)})"
        if self.kind == "list":
            return f"[{', '.join(inner)}]"
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.meta, inner)) + "}"
        if self.kind == "namedtuple":
            return f"CustomNode(namedtuple[{self.meta.__name__}], [{', '.join(inner)}])"
        return f"CustomNode({self.meta[0].__name__}[{self.meta[1]}], [{', '.join(inner)}])"


def register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys_func=None):
    """``jax.tree_util.register_pytree_node``: instances of ``nodetype`` become nodes:
    ``flatten_func(x)`` gives ``(children, aux_data)`` and ``unflatten_func(aux_data,
    children)`` rebuilds one."""
    if nodetype in NODES:
        raise ValueError(f"Duplicate custom PyTreeDef type registration for {nodetype}.")
    NODES[nodetype] = (flatten_func, unflatten_func)
    if flatten_with_keys_func is not None:
        KEYED[nodetype] = flatten_with_keys_func
    return nodetype


def register_pytree_with_keys(nodetype, flatten_with_keys, unflatten_func, flatten_func=None):
    """``jax.tree_util.register_pytree_with_keys``: as ``register_pytree_node``, with
    ``flatten_with_keys(x)`` giving ``(((key, child), ...), aux_data)``, the keys of the
    children's paths."""
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux = flatten_with_keys(x)
            return [c for _, c in pairs], aux
    return register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_node_class(cls):
    """``jax.tree_util.register_pytree_node_class``: a class decorator, for a class with a
    ``tree_flatten`` method and a ``tree_unflatten`` classmethod."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def _node(tree):
    if tree is None:
        return "none", None, []
    custom = NODES.get(type(tree))
    if custom is not None:
        children, aux = custom[0](tree)
        return "custom", (type(tree), aux), list(children)
    if isinstance(tree, tuple) and hasattr(type(tree), "_fields"):
        return "namedtuple", type(tree), list(tree)
    if isinstance(tree, tuple):
        return "tuple", None, list(tree)
    if isinstance(tree, list):
        return "list", None, list(tree)
    if isinstance(tree, dict):
        keys = sorted(tree)
        return "dict", tuple(keys), [tree[k] for k in keys]
    return "leaf", None, None


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treedef)``."""
    leaves = []

    def walk(t):
        if is_leaf is not None and is_leaf(t):
            leaves.append(t)
            return PyTreeDef("leaf", None, [])
        kind, meta, children = _node(t)
        if kind == "leaf":
            leaves.append(t)
            return PyTreeDef("leaf", None, [])
        return PyTreeDef(kind, meta, [walk(c) for c in children])
    return leaves, walk(tree)


def tree_unflatten(treedef, leaves):
    """The pytree of ``treedef`` with ``leaves`` (as many as it has, else JAX's ValueError)."""
    leaves = list(leaves)
    n = treedef.num_leaves
    if len(leaves) > n:
        raise ValueError(f"Too many leaves for PyTreeDef; expected {n}.")
    if len(leaves) < n:
        raise ValueError(f"Too few leaves for PyTreeDef; expected {n}, got {len(leaves)}")
    it = iter(leaves)

    def build(d):
        if d.kind == "leaf":
            return next(it)
        if d.kind == "none":
            return None
        items = [build(c) for c in d.children]
        if d.kind == "tuple":
            return tuple(items)
        if d.kind == "list":
            return items
        if d.kind == "namedtuple":
            return d.meta(*items)
        if d.kind == "custom":
            return NODES[d.meta[0]][1](d.meta[1], items)
        return dict(zip(d.meta, items))
    return build(treedef)


def tree_leaves(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    """``f`` applied leaf by leaf (to the leaves of ``tree`` and to the subtrees of each of
    ``rest`` there: ``tree`` may be a prefix of them, as in JAX)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r, "tree_map tree") for r in rest]
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def _path(keys):
    return "".join(f"[{k!r}]" if isinstance(k, str) or d else f"[{k}]" for k, d in keys)


def _up_to(d, tree, name, keys):
    """``PyTreeDef.flatten_up_to``, at key path ``keys`` (``(key, of a dict)`` pairs)."""
    if d.kind == "leaf":
        return [tree]
    kind, meta, children = _node(tree)
    where = f"pytree structure error: different {{}} at key path\n    {name}{_path(keys)}\nAt that key path, the prefix pytree {name} has a subtree of type"
    want = {"none": type(None), "tuple": tuple, "list": list, "dict": dict}.get(d.kind)
    want = want or (d.meta if d.kind == "namedtuple" else d.meta[0])
    got = type(tree)
    if kind != d.kind or kind == "namedtuple" and meta is not d.meta or kind == "custom" and meta[0] is not d.meta[0]:
        raise ValueError(where.format("types") + f"\n    {want}\nbut at the same key path the "
                         f"full pytree has a subtree of different type\n    {got}.")
    if kind in ("tuple", "list") and len(children) != len(d.children):
        raise ValueError(where.format(f"lengths of {kind}") + f" {kind} of length "
                         f"{len(d.children)}, but the full pytree has a subtree of the same type "
                         f"but of length {len(children)}.")
    if kind == "dict" and meta != d.meta:
        if len(meta) != len(d.meta):
            raise ValueError(where.format("numbers of pytree children") + f"\n    {want}\nwith "
                             f"{len(d.meta)} child keys\n    {' '.join(map(str, d.meta))}\nbut at "
                             f"the same key path the full pytree has a subtree of the same type "
                             f"but with {len(meta)} child keys\n    {' '.join(map(str, meta))}")
        raise ValueError(where.format("pytree metadata") + f"\n    {want}\nwith metadata\n    "
                         f"{d.meta}\nbut at the same key path the full pytree has a subtree of "
                         f"the same type but with metadata\n    {meta}")
    if kind == "custom" and (meta[1] != d.meta[1] or len(children) != len(d.children)):
        raise ValueError(where.format("pytree metadata") + f"\n    {want}\nwith metadata\n    "
                         f"{d.meta[1]}\nbut at the same key path the full pytree has a subtree "
                         f"of the same type but with metadata\n    {meta[1]}")
    names = meta if kind == "dict" else range(len(children))
    return [x for k, sub, c in zip(names, d.children, children)
            for x in _up_to(sub, c, name, keys + ((k, kind == "dict"),))]


def tree_all(tree, is_leaf=None):
    """Whether every leaf is true."""
    return all(tree_leaves(tree, is_leaf))


def tree_reduce(function, tree, *initializer, is_leaf=None):
    """``functools.reduce`` of ``function`` over the leaves."""
    return functools.reduce(function, tree_leaves(tree, is_leaf), *initializer)


# -- key paths --------------------------------------------------------------------------
KEYED = {}  # a class registered with keys -> flatten_with_keys: x -> (((key, child), ...), aux)


class DictKey(NamedTuple):
    """The key of a dict's child in a path: ``['a']``."""

    key: object

    def __str__(self):
        return f"[{self.key!r}]"


class SequenceKey(NamedTuple):
    """The position of a list's or tuple's child in a path: ``[0]``."""

    idx: int

    def __str__(self):
        return f"[{self.idx}]"


class GetAttrKey(NamedTuple):
    """The attribute of a namedtuple's (or a class's) child in a path: ``.name``."""

    name: str

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(NamedTuple):
    """The position of a registered class's child, where it was registered without keys."""

    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def _keyed_children(tree):
    """``[(key, child)]`` of a node (None for a leaf)."""
    kind, meta, children = _node(tree)
    if kind == "leaf":
        return None
    if kind == "custom" and type(tree) in KEYED:
        return list(KEYED[type(tree)](tree)[0])
    if kind in ("tuple", "list"):
        keys = map(SequenceKey, range(len(children)))
    elif kind == "dict":
        keys = map(DictKey, meta)
    elif kind == "namedtuple":
        keys = map(GetAttrKey, meta._fields)
    else:  # None (no children), or a class registered without keys
        keys = map(FlattenedIndexKey, range(len(children)))
    return list(zip(keys, children))


def tree_flatten_with_path(tree, is_leaf=None):
    """``([(path, leaf)], treedef)``: each leaf with its path, a tuple of keys (``DictKey``,
    ``SequenceKey``, ``GetAttrKey``, ``FlattenedIndexKey``) from the root."""
    pairs = []

    def walk(path, t):
        children = None if is_leaf is not None and is_leaf(t) else _keyed_children(t)
        if children is None:
            pairs.append((path, t))
            return
        for k, c in children:
            walk(path + (k,), c)
    walk((), tree)
    return pairs, tree_structure(tree, is_leaf)


def tree_leaves_with_path(tree, is_leaf=None):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None):
    """``f(path, leaf, *others)`` leaf by leaf (``rest``: trees of ``tree``'s structure)."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf)
    others = [treedef.flatten_up_to(r, "tree_map_with_path tree") for r in rest]
    return tree_unflatten(treedef, [f(p, x, *xs) for (p, x), *xs in zip(pairs, *others)])


def keystr(keys, *, simple=False, separator=""):
    """A path as JAX writes it: ``['a'][0].b`` (``simple``: the keys alone, joined by
    ``separator``: ``a/0/b``)."""
    if not simple:
        return separator.join(str(k) for k in keys)
    return separator.join(str(k[0]) for k in keys)


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """``jax.tree_util.register_dataclass``: instances of ``nodetype`` become nodes whose
    children are the ``data_fields`` (key paths ``.name``) and whose structure holds the
    ``meta_fields``; on a dataclass both may be left out (the fields marked
    ``metadata={"static": True}`` are the meta ones). Also a decorator."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError("register_dataclass: data_fields and meta_fields must both be "
                            f"specified when either is specified. Got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError("register_dataclass: data_fields and meta_fields are required when"
                            f" nodetype is not a dataclass. Got {nodetype=}.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        given = {*meta_fields, *data_fields}
        if given != init:
            msg = ("data_fields and meta_fields must include all dataclass fields with ``init=True`` "
                   "and only them.")
            if init - given:
                msg += f" Missing fields: {init - given}. Add them to drop_fields to suppress this error."
            if given - init:
                msg += f" Unexpected fields: {given - init}."
            raise ValueError(msg)
    if set(data_fields) & set(meta_fields):
        raise ValueError("data_fields and meta_fields must not overlap. Overlapping fields: "
                         f"{set(data_fields) & set(meta_fields)}.")

    def flatten_with_keys(x):
        return (tuple((GetAttrKey(n), getattr(x, n)) for n in data_fields),
                tuple(getattr(x, n) for n in meta_fields))

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))
    return register_pytree_with_keys(nodetype, flatten_with_keys, unflatten)


def all_leaves(iterable, is_leaf=None):
    """Whether every item of ``iterable`` is a leaf (``None`` is not: it is an empty node)."""
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(item is leaf for item, leaf in zip(items, leaves))


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """A tree of ``outer_treedef`` whose leaves are trees of ``inner_treedef``, turned into an
    ``inner`` tree of ``outer`` trees."""
    leaves, treedef = tree_flatten(pytree_to_transpose)
    expected = outer_treedef.compose(inner_treedef)
    if treedef != expected:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{expected}")
    n = inner_treedef.num_leaves
    columns = [tree_unflatten(outer_treedef, leaves[i::n]) for i in range(n)]
    return tree_unflatten(inner_treedef, columns)


class Partial(functools.partial):
    """``jax.tree_util.Partial``: a ``functools.partial`` that is a pytree, its arguments the
    leaves and its function part of the structure, so it can be passed through ``jit`` and
    other transformations."""


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


# an OrderedDict keeps its keys' order (a dict's are sorted), as JAX registers it
register_pytree_with_keys(OrderedDict, lambda d: (tuple((DictKey(k), v) for k, v in d.items()), tuple(d)),
                          lambda keys, values: OrderedDict(zip(keys, values)))
