"""``gradmagic.jax.lax``'s control flow and dynamic slices, against JAX.

Every expected value and message below was printed by JAX 0.10.2 (jaxlib 0.10.2, CPU,
x64 off) running the same code; the gradients are also derived by hand in the comments.
"""

import collections
from functools import partial

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax import lax


def same(got, want, dtype):
    """``got`` is an Array of ``want``'s values, of ``dtype``, as JAX gives it."""
    assert isinstance(got, jax.Array), type(got)
    assert got.dtype == np.dtype(dtype), got.dtype
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)


# -- carries are arrays, as JAX traces them -------------------------------------------------
def test_a_python_number_carry_comes_back_an_array_of_jax_dtype():
    same(lax.while_loop(lambda c: c < 3., lambda c: c + 1., 0.), 3.0, np.float32)
    i, x = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.), (0, 1.))
    same(i, 3, np.int32)
    same(x, 8.0, np.float32)
    same(lax.fori_loop(0, 3, lambda i, c: c * 2., 1.), 8.0, np.float32)
    same(lax.cond(True, lambda x: x + 1., lambda x: x - 1., 2.), 3.0, np.float32)
    same(lax.cond(True, lambda: 1, lambda: 2), 1, np.int32)
    out = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, None), (0, None))
    assert out[1] is None and int(out[0]) == 3


def test_fixed_point_of_jax_guide_computes_in_float32():
    """The guide's ``fixed_point`` with ``custom_vjp``: with its carry a Python float, it
    used to run in float64 (1.414213562373095 where JAX gives 1.4142135)."""
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return jnp.abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def fixed_point_fwd(f, a, x_init):
        x_star = fixed_point(f, a, x_init)
        return x_star, (a, x_star)

    def rev_iter(f, packed, u):
        a, x_star, x_star_bar = packed
        _, vjp_x = jax.vjp(lambda x: f(a, x), x_star)
        return x_star_bar + vjp_x(u)[0]

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = jax.vjp(lambda a: f(a, x_star), a)
        a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
        return a_bar, jnp.zeros_like(x_star)

    fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)

    def newton_sqrt(a):
        return fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)

    same(newton_sqrt(2.), 1.4142135, np.float32)
    same(jax.grad(newton_sqrt)(2.), 0.35355338, np.float32)  # 1 / (2 sqrt 2)
    same(jax.grad(jax.grad(newton_sqrt))(2.), -0.088388346, np.float32)  # -1 / (8 sqrt 2)


def test_a_python_number_carry_takes_the_dtype_the_body_gives():
    """Weakly typed in JAX: an int carry that the body makes a float is a float carry."""
    same(lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, 0), 3.0, np.float32)
    same(lax.fori_loop(0, 3, lambda i, c: c * 1.5, 1), 3.375, np.float32)


def test_fori_loop_gives_the_body_an_int32_index():
    seen = []
    lax.fori_loop(0, 3, lambda i, c: (seen.append(i), c + i)[1], 0.)
    assert [type(i) for i in seen] == [jax.Array] * 3
    assert [(int(i), i.dtype) for i in seen] == [(k, np.dtype(np.int32)) for k in range(3)]
    same(lax.fori_loop(jnp.int32(0), 3, lambda i, c: c + i, 0.), 3.0, np.float32)


# -- scan over pytrees ----------------------------------------------------------------------
def test_scan_slices_every_leaf_of_xs():
    """A tuple of arrays is scanned leaf by leaf. It used to be stacked into one array and
    scanned by its rows: (4., [0., 2.]) where JAX gives (6., [0., 1., 2.]), with no error."""
    c, ys = lax.scan(lambda c, x: (c + x[0] * x[1], x[0]), 0., (jnp.arange(3.), jnp.ones(3) * 2))
    same(c, 6.0, np.float32)
    same(ys, [0., 1., 2.], np.float32)
    c, ys = lax.scan(lambda c, x: (c + x["a"], None), 0., {"a": jnp.arange(3.)})
    same(c, 3.0, np.float32)
    assert ys is None
    out = lax.scan(lambda c, x: [c + x, x], 0., jnp.arange(3.))
    assert type(out) is list  # the pair as the body gave it
    same(out[0], 3.0, np.float32)


def test_scan_carries_length_reverse_and_map():
    c, ys = lax.scan(lambda c, x: (c + 1, c * 2), 0, None, length=3)
    same(c, 3, np.int32)
    same(ys, [0, 2, 4], np.int32)
    c, ys = lax.scan(lambda c, x: (c * 10 + x, c), 0., jnp.arange(3.), reverse=True)
    same(c, 210.0, np.float32)
    same(ys, [21., 2., 0.], np.float32)
    c, ys = lax.scan(lambda c, x: ({"s": c["s"] + x, "n": c["n"] + 1}, c["s"]), {"s": 0., "n": 0},
                     jnp.arange(3.))
    same(c["n"], 3, np.int32)
    same(c["s"], 3.0, np.float32)
    same(ys, [0., 0., 1.], np.float32)
    same(lax.map(lambda x: x * 2, jnp.arange(3.)), [0., 2., 4.], np.float32)
    a, b = lax.map(lambda p: (p[0] + p[1], p[0]), (jnp.arange(3.), jnp.ones(3)))
    same(a, [1., 2., 3.], np.float32)
    same(b, [0., 1., 2.], np.float32)


@pytest.mark.parametrize("config", ["float32", "float64"])
def test_gradients_through_the_loops(config):
    jax.config.update("jax_enable_x64", config == "float64")
    try:
        # fori: c = x^3, 3 x^2 = 12; scan: c = x^3 + x + 2, 3 x^2 + 1 = 13, 6 x = 12
        cubed = (lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.))
        same(jax.grad(cubed)(2.), 12.0, config)
        same(jax.jacfwd(cubed)(2.), 12.0, config)
        scanned = (lambda x: lax.scan(lambda c, y: (c * x + y, c), 1., jnp.arange(3.))[0])
        same(jax.grad(scanned)(2.), 13.0, config)
        same(jax.hessian(scanned)(2.), 12.0, config)
        same(jax.vmap(scanned)(jnp.arange(3.)), [2., 4., 12.], config)
        # map: the sum of (r x)^2 over r = 0, 1, 2 is 5 x^2: 10 x = 20
        same(jax.grad(lambda x: lax.map(lambda r: (r * x) ** 2, jnp.arange(3.)).sum())(2.), 20.0, config)
        # while: c x three times from 1, 3 x^2 (JAX refuses reverse mode through while_loop;
        # here the loop runs eagerly, so it has a gradient: checked by central differences)
        loop = (lambda x: lax.while_loop(lambda c: c[1] < 3, lambda c: (c[0] * x, c[1] + 1), (1., 0))[0])
        h = 1e-2
        numeric = (float(loop(2. + h)) - float(loop(2. - h))) / (2 * h)  # exact but for h^2: 3 x^2 + h^2
        same(jax.grad(loop)(2.), 12.0, config)
        np.testing.assert_allclose(numeric, 12.0 + h * h, rtol=1e-4)
    finally:
        jax.config.update("jax_enable_x64", False)


# -- JAX's checks, in JAX's words -----------------------------------------------------------
STRUCTURE = ("{loop} body function carry input and carry output must have the same pytree "
             "structure, but they differ:\n\nThe input carry {what}.\n\nRevise the function so "
             "that the carry output has the same pytree structure as the carry input.")
TYPES = ("{loop} body function carry input and carry output must have equal types, but they "
         "differ:\n\nThe input carry {what}.\n\nRevise the function so that all output types "
         "match the corresponding input types.")
ARRAY = str(jax.Array)  # JAX names the class of its traced leaves: ShapedArray


def raises(exc, message, fn):
    with pytest.raises(exc) as info:
        fn()
    assert str(info.value) == message


def test_a_body_that_grows_its_carry_stops_at_the_first_step():
    """It used to run on, doubling the carry until memory ran out."""
    raises(TypeError, TYPES.format(loop="while_loop", what=(
        "c has type float32[1] but the corresponding output carry component has type "
        "float32[2,1], so the shapes do not match")),
        lambda: lax.while_loop(lambda c: c.sum() < 3, lambda c: jnp.stack([c, c]), jnp.zeros(1)))
    raises(TypeError, TYPES.format(loop="while_loop", what=(
        "c has type float32[1] but the corresponding output carry component has type "
        "int32[2,1], so the dtypes do not match, and the shapes do not match")),
        lambda: lax.while_loop(lambda c: c.sum() < 3,
                               lambda c: jnp.stack([c, c]).astype(jnp.int32), jnp.zeros(1)))
    raises(TypeError, TYPES.format(loop="scan", what=(
        "component loop_carry[1] has type float32[1] but the corresponding output carry "
        "component has type float32[2,1], so the shapes do not match")),
        lambda: lax.fori_loop(0, 3, lambda i, c: jnp.stack([c, c]), jnp.zeros(1)))
    raises(TypeError, TYPES.format(loop="scan", what=(
        "c has type float32[1] but the corresponding output carry component has type "
        "float32[2,1], so the shapes do not match")),
        lambda: lax.scan(lambda c, x: (jnp.stack([c, c]), x), jnp.zeros(1), jnp.arange(3.)))


def test_an_array_carry_keeps_its_dtype():
    raises(TypeError, TYPES.format(loop="while_loop", what=(
        "c has type int32[] but the corresponding output carry component has type float32[], "
        "so the dtypes do not match")),
        lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1.5, jnp.int32(0)))
    raises(TypeError, TYPES.format(loop="while_loop", what=(
        "component c[0] has type int32[] but the corresponding output carry component has type "
        "float32[], so the dtypes do not match")),
        lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1.5, c[1]), (jnp.int32(0), 1.)))
    raises(TypeError, TYPES.format(loop="scan", what=(
        "component loop_carry[1] has type int32[] but the corresponding output carry component "
        "has type float32[], so the dtypes do not match")),
        lambda: lax.fori_loop(0, 3, lambda i, c: c * 1.5, jnp.int32(1)))
    raises(TypeError, TYPES.format(loop="scan", what=(
        "c has type int32[] but the corresponding output carry component has type float32[], "
        "so the dtypes do not match")),
        lambda: lax.scan(lambda c, x: (c + 1.5, x), jnp.int32(0), jnp.arange(3.)))


def test_a_carry_keeps_its_structure():
    raises(TypeError, STRUCTURE.format(loop="while_loop", what=(
        "c is a tuple of length 2 but the corresponding component of the carry output is a "
        "tuple of length 1, so the lengths do not match")),
        lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1,), (0, 1.)))
    raises(TypeError, STRUCTURE.format(loop="while_loop", what=(
        "c is a <class 'list'> but the corresponding component of the carry output is a "
        "<class 'tuple'>, so their Python types differ")),
        lambda: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1]), [0, 1.]))
    raises(TypeError, STRUCTURE.format(loop="while_loop", what=(
        "c is a <class 'dict'> with pytree metadata ('a',) but the corresponding component of "
        "the carry output is a <class 'dict'> with pytree metadata ('b',), so the pytree node "
        "metadata does not match")),
        lambda: lax.while_loop(lambda c: c["a"] < 3, lambda c: {"b": c["a"] + 1}, {"a": 0}))
    raises(TypeError, STRUCTURE.format(loop="scan", what=(
        f"component loop_carry[1] is a {ARRAY} but the corresponding component of the carry "
        "output is a <class 'tuple'>, so their Python types differ")),
        lambda: lax.fori_loop(0, 3, lambda i, c: (c,), jnp.zeros(1)))
    raises(TypeError, STRUCTURE.format(loop="scan", what=(
        f"c is a {ARRAY} but the corresponding component of the carry output is a "
        "<class 'tuple'>, so their Python types differ")),
        lambda: lax.scan(lambda c, x: ((c,), x), jnp.zeros(1), jnp.arange(3.)))
    P = collections.namedtuple("P", "a b")
    out = lax.while_loop(lambda c: c.a < 3, lambda c: P(c.a + 1, c.b), P(0, 1.))
    assert type(out) is P and int(out.a) == 3


def test_scan_refuses_what_jax_refuses():
    raises(TypeError, "scan body output must be a pair, got float32[1].",
           lambda: lax.scan(lambda c, x: c, jnp.zeros(1), jnp.arange(3.)))
    raises(ValueError, "scan got values with different leading axis sizes: 3, 4.",
           lambda: lax.scan(lambda c, x: (c, x), 0., (jnp.arange(3.), jnp.arange(4.))))
    raises(ValueError, "scan got `length` argument of 4 which disagrees with leading axis sizes [3].",
           lambda: lax.scan(lambda c, x: (c, x), 0., jnp.arange(3.), length=4))
    raises(ValueError, "scan got no values to scan over and `length` not provided.",
           lambda: lax.scan(lambda c, x: (c, x), 0.))


def test_conditions_predicates_and_indices_as_jax_takes_them():
    raises(TypeError, "cond_fun must return a boolean scalar, but got output type(s) "
                      "[ShapedArray(bool[2])].",
           lambda: lax.while_loop(lambda c: c < 3, lambda c: c + 1, jnp.zeros(2)))
    raises(TypeError, "cond_fun must return a boolean scalar, but got output type(s) "
                      "[ShapedArray(int32[])].",
           lambda: lax.while_loop(lambda c: c - 3, lambda c: c + 1, 0))
    raises(TypeError, "Pred must be a scalar, got [ True False] of shape (2,).",
           lambda: lax.cond(jnp.array([True, False]), lambda: 1., lambda: 2.))
    same(lax.cond(2, lambda: 1., lambda: 2.), 1.0, np.float32)
    same(lax.cond(0.5, lambda: 1., lambda: 2.), 1.0, np.float32)
    same(lax.switch(5, [lambda x: x + 1, lambda x: x * 2], 3.), 6.0, np.float32)  # clamped
    same(lax.switch(-1, [lambda x: x + 1, lambda x: x * 2], 3.), 4.0, np.float32)
    raises(TypeError, "Index type must be an integer, got 1.0 as float32",
           lambda: lax.switch(1.0, [lambda: 1., lambda: 2.]))
    raises(ValueError, "Empty branch sequence", lambda: lax.switch(0, []))
    raises(TypeError, "Argument 'abc' of type <class 'str'> is not a valid JAX type",
           lambda: lax.while_loop(lambda c: False, lambda c: c, "abc"))


# -- dynamic slices -------------------------------------------------------------------------
X = np.arange(12.).reshape(3, 4)


def test_dynamic_slices_clamp_their_starts_as_jax():
    x = jnp.asarray(X)
    same(lax.dynamic_slice(x, (1, 2), (2, 2)), [[6., 7.], [10., 11.]], np.float32)
    same(lax.dynamic_slice(x, (2, 3), (2, 2)), [[6., 7.], [10., 11.]], np.float32)  # clamped
    same(lax.dynamic_slice(x, (-1, -5), (2, 2)), [[4., 5.], [8., 9.]], np.float32)  # from the end
    same(lax.dynamic_slice(x, jnp.array([1, 1]), (2, 2)), [[5., 6.], [9., 10.]], np.float32)
    same(lax.dynamic_update_slice(x, jnp.ones((2, 2)), (2, 3)),
         [[0., 1., 2., 3.], [4., 5., 1., 1.], [8., 9., 1., 1.]], np.float32)
    same(lax.dynamic_slice_in_dim(x, 1, 2, axis=1), [[1., 2.], [5., 6.], [9., 10.]], np.float32)
    same(lax.dynamic_update_slice_in_dim(x, jnp.ones((3, 1)), 5, axis=1),
         [[0., 1., 2., 1.], [4., 5., 6., 1.], [8., 9., 10., 1.]], np.float32)
    same(lax.dynamic_index_in_dim(x, 1, axis=0, keepdims=False), [4., 5., 6., 7.], np.float32)


@pytest.mark.parametrize("config", ["float32", "float64"])
def test_dynamic_slices_gradients(config):
    jax.config.update("jax_enable_x64", config == "float64")
    try:
        x = jnp.asarray(X)
        assert x.dtype == np.dtype(config)
        # the slice's elements get 1, the rest 0
        want = np.zeros((3, 4))
        want[1:, 2:] = 1
        same(jax.grad(lambda x: lax.dynamic_slice(x, (2, 3), (2, 2)).sum())(x), want, config)
        # d/du sum(2 u) = 2; d/dx sum(y^2) = 2 x where x is kept, 0 where it is overwritten
        same(jax.grad(lambda u: lax.dynamic_update_slice(x, u * 2, (2, 3)).sum())(jnp.ones((2, 2))),
             np.full((2, 2), 2.), config)
        want = 2 * X
        want[1:, 2:] = 0
        same(jax.grad(lambda x: (lax.dynamic_update_slice(x, jnp.ones((2, 2)), (2, 3)) ** 2).sum())(x),
             want, config)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_dynamic_slices_refuse_what_jax_refuses():
    x = jnp.asarray(X)
    raises(ValueError, "Length of slice indices must match number of operand dimensions (1 vs (3, 4))",
           lambda: lax.dynamic_slice(x, (1,), (2, 2)))
    raises(TypeError, "slice slice_sizes must be less than or equal to operand shape, got "
                      "slice_sizes (4, 2) for operand shape (3, 4).",
           lambda: lax.dynamic_slice(x, (0, 0), (4, 2)))
    raises(TypeError, "index arguments to dynamic_slice must be integers of the same type, got: "
                      "float32, int32",
           lambda: lax.dynamic_slice(x, (0.5, 0), (2, 2)))
    raises(TypeError, "dynamic_update_slice update must have the same rank as operand, got update "
                      "shape (2,) for operand shape (3, 4).",
           lambda: lax.dynamic_update_slice(x, jnp.ones(2), (0, 0)))
    raises(TypeError, "lax.dynamic_update_slice requires arguments to have the same dtypes, got "
                      "float32, int32.",
           lambda: lax.dynamic_update_slice(x, jnp.ones((2, 2), jnp.int32), (0, 0)))
