"""``jax.tree_util``: pytrees as JAX flattens them: tuples, lists, dicts (in sorted key
order), namedtuples and the classes registered with ``register_pytree_node`` are nodes,
``None`` is an empty node, anything else is a leaf."""

from __future__ import annotations

import functools

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
    return nodetype


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
    """The pytree of ``treedef`` with ``leaves``."""
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
    """``f`` applied leaf by leaf (to the leaves of ``tree`` and of each of ``rest``)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [tree_flatten(r, is_leaf)[0] for r in rest]
    for o in others:
        if len(o) != len(leaves):
            raise ValueError(f"tree_map: the trees have different structures ({len(leaves)} and "
                             f"{len(o)} leaves)")
    return tree_unflatten(treedef, [f(*xs) for xs in zip(leaves, *others)])


def tree_all(tree, is_leaf=None):
    """Whether every leaf is true."""
    return all(tree_leaves(tree, is_leaf))


def tree_reduce(function, tree, *initializer, is_leaf=None):
    """``functools.reduce`` of ``function`` over the leaves."""
    return functools.reduce(function, tree_leaves(tree, is_leaf), *initializer)
