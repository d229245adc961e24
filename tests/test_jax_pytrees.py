"""gradmagic.jax: Jacobians and Hessians over pytrees, arrays built from lists of traced
values, and transformations that tell an argument from the same array captured by the
function.

Every expected number was printed by JAX 0.10.2 (jaxlib CPU, NumPy 2.4, Python 3.11) running
the same expression with ``import jax`` / ``import jax.numpy as jnp``.
"""

import collections

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

X = jnp.array([1.0, 2.0])


def _close(got, want):
    """``got``, a pytree of Arrays, has ``want``'s structure and values (float32 ulps)."""
    got_leaves, got_def = jax.tree_util.tree_flatten(got)
    want_leaves, want_def = jax.tree_util.tree_flatten(want)
    assert got_def == want_def
    for g, w in zip(got_leaves, want_leaves):
        assert isinstance(g, jax.Array)
        np.testing.assert_allclose(g.numpy(), w, rtol=2e-6, atol=1e-6)


A = np.array  # an array leaf of an expected pytree (a list is a pytree node, as in JAX)
JACOBIANS = {  # name: (function, arguments, argnums, JAX 0.10.2's Jacobian)
    "dict-out": (lambda x: {"c": x ** 2}, (X,), 0, {"c": A([[2.0, 0.0], [0.0, 4.0]])}),
    "tuple-out": (lambda x: (x ** 2, x.sum()), (X,), 0,
                  (A([[2.0, 0.0], [0.0, 4.0]]), A([1.0, 1.0]))),
    "dict-in": (lambda p: p["a"] * p["b"], ({"a": X, "b": 3.0},), 0,
                {"a": A([[3.0, 0.0], [0.0, 3.0]]), "b": A([1.0, 2.0])}),
    "argnums-tuple": (lambda x, y: {"o": x * y, "p": (x.sum(),)}, (X, 3.0), (0, 1),
                      {"o": (A([[3.0, 0.0], [0.0, 3.0]]), A([1.0, 2.0])),
                       "p": ((A([1.0, 1.0]), A(0.0)),)}),
    "list-in-scalar-out": (lambda xs: xs[0] * jnp.sin(xs[1]), ([2.0, 0.5],), 0,
                           [A(0.47942555), A(1.7551651)]),
}


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("case", sorted(JACOBIANS))
def test_jacobians_of_pytrees_nest_the_output_tree_outside_the_input_tree(transform, case):
    f, args, argnums, want = JACOBIANS[case]
    _close(getattr(jax, transform)(f, argnums=argnums)(*args), want)


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_jacobians_with_has_aux_return_the_aux_as_jax_does(transform):
    jac, aux = getattr(jax, transform)(lambda x: (x ** 2, {"a": x}), has_aux=True)(X)
    assert jac.numpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]
    assert list(aux) == ["a"] and aux["a"].numpy().tolist() == [1.0, 2.0]


def test_jacfwd_of_an_empty_input_has_a_zero_sized_block():
    jx, jy = jax.jacfwd(lambda x, y: x.sum() * y, argnums=(0, 1))(jnp.zeros(0), X)
    assert jx.shape == (2, 0)  # JAX: Array([], shape=(2, 0), dtype=float32)
    assert jy.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_jacfwd_refuses_integer_inputs_in_jaxs_words():
    with pytest.raises(TypeError, match=r"jacfwd requires real-valued inputs \(input dtype that "
                                        r"is a sub-dtype of np.floating\), but got int32"):
        jax.jacfwd(lambda x: x * 2)(jnp.array([1, 2]))


def test_hessian_of_jaxs_docstring_examples():
    g = lambda x: x[0] ** 3 - 2 * x[0] * x[1] - x[1] ** 6  # noqa: E731
    assert jax.hessian(g)(X).numpy().tolist() == [[6.0, -2.0], [-2.0, -480.0]]
    f = lambda dct: {"c": jnp.power(dct["a"], dct["b"])}  # noqa: E731
    h = jax.hessian(f)({"a": jnp.arange(2.0) + 1.0, "b": jnp.arange(2.0) + 2.0})
    _close(h, {"c": {"a": {"a": A([[[2.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 12.0]]]),
                           "b": A([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 12.317766]]])},
                     "b": {"a": A([[[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 12.317766]]]),
                           "b": A([[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 3.8436241]]])}}})


def test_hessian_in_a_later_argument_after_a_pytree_one():
    h = jax.hessian(lambda p, x: jnp.sum(p["w"] * x ** 3), argnums=1)({"w": X}, X)
    assert h.numpy().tolist() == [[6.0, 0.0], [0.0, 24.0]]


def test_hessian_with_has_aux():
    h, aux = jax.hessian(lambda x: (jnp.sum(x ** 3), x * 2), has_aux=True)(X)
    assert h.numpy().tolist() == [[6.0, 0.0], [0.0, 12.0]] and aux.numpy().tolist() == [2.0, 4.0]


# -- arrays built from traced values ----------------------------------------------------------------
def test_jacfwd_docstring_example_stacks_a_list_of_traced_values():
    def f(x):
        return jnp.asarray([x[0], 5 * x[2], 4 * x[1] ** 2 - 2 * x[2], x[2] * jnp.sin(x[0])])
    _close(jax.jacfwd(f)(jnp.array([1.0, 2.0, 3.0])),
           A([[1.0, 0.0, 0.0], [0.0, 0.0, 5.0], [0.0, 16.0, -2.0], [1.6209068, 0.0, 0.84147096]]))


@pytest.mark.parametrize("build, want", [
    (lambda t: jnp.asarray((t, 2 * t)), [1.0, 2.0]),
    (lambda t: jnp.array([[t, 0.0], [0.0, t ** 2]]), [[1.0, 0.0], [0.0, 6.0]]),
    (lambda t: jnp.asarray([t, 0]), [1.0, 0.0]),  # a Python int follows the traced float
    (lambda t: jnp.array([t, 1], dtype=jnp.float32), [1.0, 0.0]),
], ids=["tuple", "nested-list", "with-an-int", "dtype"])
def test_lists_of_traced_values_stack_and_differentiate(build, want):
    jac = jax.jacfwd(build)(3.0)
    assert jac.dtype == np.float32 and jac.numpy().tolist() == want


def test_a_stacked_list_keeps_jaxs_dtype():
    assert jnp.asarray([jnp.array(1), 2]).dtype == np.int32
    assert jnp.asarray([[jnp.float32(1.0), 2], [3, 4]]).dtype == np.float32
    assert jax.grad(lambda t: jnp.asarray((t, 2 * t)).sum())(1.0).numpy() == 3.0


def test_a_ragged_list_of_traced_values_says_so():
    with pytest.raises(ValueError, match=r"jnp.asarray: the entries of a list .* must have one "
                                         r"shape .* got shapes \[\(\), \(2,\)\]"):
        jax.grad(lambda t: jnp.array([t, jnp.ones(2)]).sum())(1.0)


# -- an argument is not the same array captured by the function ---------------------------------------
@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "jvp"])
def test_an_array_captured_by_the_function_is_not_the_argument(transform):
    """JAX tells the traced argument from the same array closed over: the inner derivative of
    a * y in a is y, so the outer derivative is 1 (it was 2 here before)."""
    inner = {"grad": lambda y: jax.grad(lambda a: a * y)(y),
             "jacrev": lambda y: jax.jacrev(lambda a: a * y)(y),
             "jacfwd": lambda y: jax.jacfwd(lambda a: a * y)(y),
             "jvp": lambda y: jax.jvp(lambda a: a * y, (y,), (1.0,))[1]}[transform]
    assert float(jax.grad(inner)(jnp.array(3.0))) == 1.0
    x = jnp.array(3.0)
    assert float(jax.grad(lambda a: a * x)(x)) == 3.0


@pytest.mark.parametrize("transform", ["vjp", "grad", "jacrev", "jacfwd", "dict"])
def test_the_same_array_passed_twice_is_two_arguments(transform):
    x = jnp.array(1.0)
    f = lambda a, b: a * 2 + b * 3  # noqa: E731
    got = {"vjp": lambda: jax.vjp(f, x, x)[1](jnp.array(1.0)),
           "grad": lambda: jax.grad(f, argnums=(0, 1))(x, x),
           "jacrev": lambda: jax.jacrev(f, argnums=(0, 1))(x, x),
           "jacfwd": lambda: jax.jacfwd(f, argnums=(0, 1))(x, x),
           "dict": lambda: tuple(jax.grad(lambda p: f(p["a"], p["b"]))({"a": x, "b": x}).values()),
           }[transform]()
    assert [float(g) for g in got] == [2.0, 3.0]


def test_nested_grads_of_the_same_array_passed_twice():
    f = lambda y: jax.grad(lambda a, b: a * b * y, argnums=(0, 1))(y, y)[0]  # noqa: E731
    assert float(jax.grad(f)(jnp.array(1.0))) == 2.0


class _Point:  # a class of the user's, registered as a pytree node below
    def __init__(self, x, y):
        self.x, self.y = x, y


jax.tree_util.register_pytree_node(_Point, lambda p: ((p.x, p.y), "aux"), lambda aux, ch: _Point(*ch))


@jax.tree_util.register_pytree_node_class
class _Wrapped:
    def __init__(self, a):
        self.a = a

    def tree_flatten(self):
        return (self.a,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


def test_registered_pytree_nodes_flatten_and_differentiate_as_in_jax():
    # JAX 0.10.2: PyTreeDef(CustomNode(Point[aux], [*, [*, *]])); grad gives Point(9., 12.) and
    # _Wrapped(6.); registering a class twice is a ValueError
    assert repr(jax.tree_util.tree_structure(_Point(1.0, [2.0, 3.0]))) == (
        "PyTreeDef(CustomNode(_Point[aux], [*, [*, *]]))")
    assert jax.tree_util.tree_leaves({"a": _Point(1.0, 2.0), "b": None}) == [1.0, 2.0]
    assert jax.tree.map(lambda v: v * 2, _Point(1.0, 2.0)).y == 4.0
    g = jax.grad(lambda p: p.x * p.y ** 2)(_Point(2.0, 3.0))
    assert isinstance(g, _Point) and (float(g.x), float(g.y)) == (9.0, 12.0)
    assert float(jax.grad(lambda w: w.a ** 2)(_Wrapped(3.0)).a) == 6.0
    with pytest.raises(ValueError, match="^Duplicate custom PyTreeDef type registration for"):
        jax.tree_util.register_pytree_node(_Point, lambda p: ((p.x,), None), lambda aux, ch: _Point(*ch))


def test_tree_structures_are_written_as_jax_writes_them():
    # JAX 0.10.2's reprs
    point = collections.namedtuple("P", "x y")
    expected = {1.0: "PyTreeDef(*)", (1.0, 2.0): "PyTreeDef((*, *))",
                None: "PyTreeDef(None)", (): "PyTreeDef(())", (1.0,): "PyTreeDef((*,))"}
    for tree, text in expected.items():
        assert repr(jax.tree_util.tree_structure(tree)) == text
    assert repr(jax.tree.structure([1.0, (2.0, None)])) == "PyTreeDef([*, (*, None)])"
    assert repr(jax.tree.structure({"b": 1.0, "a": [2.0]})) == "PyTreeDef({'a': [*], 'b': *})"
    assert repr(jax.tree.structure(point(1.0, 2.0))) == "PyTreeDef(CustomNode(namedtuple[P], [*, *]))"
    assert jax.tree.all([True, (1, 2)]) and not jax.tree.all([True, 0])
    assert jax.tree.reduce(lambda a, b: a + b, {"a": 1, "b": [2, 3]}) == 6


def test_vjp_of_an_integer_primal_is_float0_zeros_as_in_jax():
    # JAX 0.10.2: float0 zeros of the primal's shape, beside the float primal's cotangent
    y, f_vjp = jax.vjp(lambda a, b: a * b, jnp.arange(3), jnp.ones(3))
    ints, floats = f_vjp(jnp.ones(3))
    assert ints.dtype == np.dtype([("float0", "V")]) and ints.shape == (3,)
    assert floats.tolist() == [0.0, 1.0, 2.0]
