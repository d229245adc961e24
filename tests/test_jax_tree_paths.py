"""``jax.tree_util``'s key paths, ``tree_transpose`` and ``Partial`` on gradmagic.jax, from
JAX 0.10.2: the expected values are what the real ``jax`` printed running the same code,
pasted here."""

import collections

import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax import tree_util as tu

P = collections.namedtuple("P", "a b")
TREE = {"w": [1., (2., None)], "b": P(3., 4.), "c": {"z": 5}}


def test_flatten_with_path_gives_jaxs_keys_and_keystr():
    leaves, treedef = tu.tree_flatten_with_path(TREE)
    assert [(repr(p), x, tu.keystr(p)) for p, x in leaves] == [
        ("(DictKey(key='b'), GetAttrKey(name='a'))", 3.0, "['b'].a"),
        ("(DictKey(key='b'), GetAttrKey(name='b'))", 4.0, "['b'].b"),
        ("(DictKey(key='c'), DictKey(key='z'))", 5, "['c']['z']"),
        ("(DictKey(key='w'), SequenceKey(idx=0))", 1.0, "['w'][0]"),
        ("(DictKey(key='w'), SequenceKey(idx=1), SequenceKey(idx=0))", 2.0, "['w'][1][0]")]
    assert str(treedef) == "PyTreeDef({'b': CustomNode(namedtuple[P], [*, *]), 'c': {'z': *}, 'w': [*, (*, None)]})"
    assert tu.tree_flatten_with_path([None, 1]) == ([((tu.SequenceKey(1),), 1)], tu.tree_structure([None, 1]))
    assert tu.tree_flatten_with_path(5)[0] == [((), 5)]
    assert tu.tree_flatten_with_path([1, 2], is_leaf=lambda x: isinstance(x, list))[0] == [((), [1, 2])]
    assert tu.tree_leaves_with_path({"a": 1}) == [((tu.DictKey("a"),), 1)]


def test_key_classes_print_and_compare_as_jaxs():
    assert [repr(tu.DictKey("a")), str(tu.DictKey("a")), repr(tu.SequenceKey(0)), str(tu.SequenceKey(0)),
            repr(tu.GetAttrKey("x")), str(tu.GetAttrKey("x"))] == [
        "DictKey(key='a')", "['a']", "SequenceKey(idx=0)", "[0]", "GetAttrKey(name='x')", ".x"]
    assert (tu.DictKey("a").key, tu.SequenceKey(1).idx, tu.GetAttrKey("x").name) == ("a", 1, "x")
    assert tu.DictKey("a") == tu.DictKey("a") and hash(tu.DictKey("a")) == hash(tu.DictKey("a"))
    path = (tu.DictKey("a"), tu.SequenceKey(0))
    assert (tu.keystr(path), tu.keystr(path, simple=True, separator="/"), tu.keystr(())) == ("['a'][0]", "a/0", "")


def test_registered_classes_have_flat_index_keys_or_their_own():
    @tu.register_pytree_node_class
    class Pt:
        def __init__(self, x, y):
            self.x, self.y = x, y

        def tree_flatten(self):
            return (self.x, self.y), None

        @classmethod
        def tree_unflatten(cls, aux, children):
            return cls(*children)
    leaves = tu.tree_flatten_with_path(Pt(1, 2))[0]
    assert repr(leaves) == "[((FlattenedIndexKey(key=0),), 1), ((FlattenedIndexKey(key=1),), 2)]"
    assert tu.keystr(leaves[0][0]) == "[<flat index 0>]"

    class Q:
        def __init__(self, x):
            self.x = x
    tu.register_pytree_with_keys(Q, lambda q: (((tu.GetAttrKey("x"), q.x),), None), lambda a, c: Q(*c))
    assert repr(tu.tree_flatten_with_path(Q(3))[0]) == "[((GetAttrKey(name='x'),), 3)]"
    assert tu.tree_map(lambda v: v * 2, Q(3)).x == 6


def test_tree_map_with_path():
    out = tu.tree_map_with_path(lambda p, x: tu.keystr(p) + str(x), TREE)
    assert out == {"b": P(a="['b'].a3.0", b="['b'].b4.0"), "c": {"z": "['c']['z']5"},
                   "w": ["['w'][0]1.0", ("['w'][1][0]2.0", None)]}
    assert tu.tree_map_with_path(lambda p, x, y: (len(p), x + y), [1, 2], [10, 20]) == [(1, 11), (1, 22)]


def test_tree_transpose():
    assert tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)), [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert tu.tree_transpose(tu.tree_structure({"a": 0, "b": 0}), tu.tree_structure([0, 0, 0]),
                             {"a": [1, 2, 3], "b": [4, 5, 6]}) == [{"a": 1, "b": 4}, {"a": 2, "b": 5}, {"a": 3, "b": 6}]
    with pytest.raises(TypeError, match=r"Mismatch\nPyTreeDef\(\[\(\*, \*\), \(\*, \*, \*\)\]\)\n != \n"
                       r"PyTreeDef\(\[\(\*, \*\), \(\*, \*\)\]\)"):
        tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)), [(1, 2), (3, 4, 5)])


def test_partial_is_a_pytree_that_transformations_pass_through():
    f = tu.Partial(jnp.add, 1.)
    assert f(2.).tolist() == 3.0 and (f.args, f.keywords) == ((1.0,), {})
    assert repr(f).startswith("Partial(")
    leaves, treedef = tu.tree_flatten(f)
    assert leaves == [1.0] and str(treedef).startswith("PyTreeDef(CustomNode(Partial[")
    assert jax.grad(lambda x: tu.Partial(jnp.multiply, x)(3.))(2.).tolist() == 3.0
    assert jax.jit(lambda g, x: g(x))(f, 2.).tolist() == 3.0
    assert tu.tree_map(lambda x: x * 2, f)(0.).tolist() == 2.0
