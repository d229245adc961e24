"""gradmagic.jax: JAX's guide on custom derivative rules runs unchanged, with JAX's
semantics, and its trace and pitfalls in JAX's words.

Expected numbers were printed by JAX 0.10.2 (jaxlib CPU, NumPy 2.4, Python 3.11) running
the same program with ``import jax``; ``tests/jax_guide/guide.py`` holds it as gradmagic
runs it (only the import lines differ).
"""

import contextlib
import io
import re
import runpy
import subprocess
import sys
import warnings
from functools import partial
from pathlib import Path

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.errors import GradientValueError
from gradmagic.jax import custom_jvp, custom_vjp, grad

GUIDE = Path(__file__).parent / "jax_guide" / "guide.py"

# JAX 0.10.2: each printed line of the guide's program, as numbers
JAX_OUTPUT = """3.0485873
3.0485873
0.95257413
[0.5       0.7310586 0.8807971]
nan
1.0
3.0485873
0.95257413
[0.5       0.7310586 0.8807971]
nan
1.0
2.7278922
2.7278922
-1.2484405
-1.2484405
-1.2484405
-1.2484405
0.9092974
-1.2484405
[ 0.          0.5984721  -0.9589243   0.93799996 -0.5440211 ]
[ 0.75      -0.75       0.2836622  0.3466353 -0.75     ]
[ 1.        -0.8011436  0.2836622  0.3466353 -0.8390715]
2.0
[[ 6.  0.]
 [ 0. 12.]]
[[2.        0.       ]
 [0.        1.0806046]]
[[2.        0.       ]
 [0.        1.0806046]]
6.0 (Array(3., dtype=float32, weak_type=True), Array(2., dtype=float32, weak_type=True))
"""


def _numbers(text):
    return [float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?|nan", text)]


def test_the_guides_examples_give_jaxs_numbers():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(GUIDE), run_name="__main__")
    got, want = _numbers(out.getvalue()), _numbers(JAX_OUTPUT)
    assert len(got) == len(want)
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=1e-7)  # float32, a few ulps
    assert len(out.getvalue().splitlines()) == len(JAX_OUTPUT.splitlines())


# -- semantics -------------------------------------------------------------------------------------
def test_python_floats_are_float32_unless_x64():
    assert grad(lambda x: x * x)(3.0).dtype == np.float32
    assert jnp.arange(3.0).dtype == np.float32 and jnp.float32(2.0).dtype == np.float32
    assert jax.asarray(np.ones(2)).dtype == np.float32
    jax.config.update("jax_enable_x64", True)
    try:
        assert grad(lambda x: x * x)(3.0).dtype == np.float64
        assert jax.asarray(np.ones(2)).dtype == np.float64
    finally:
        jax.config.update("jax_enable_x64", False)


def test_grad_requires_a_scalar_output_in_jaxs_words():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions. "
                                        r"Output had shape: \(2,\)."):
        grad(lambda x: x * 2)(jnp.ones(2))


def test_grad_requires_floating_inputs():
    with pytest.raises(TypeError, match="grad requires real- or complex-valued inputs"):
        grad(lambda x: x * 2.0)(3)


def test_argnums_has_aux_and_pytrees():
    f = lambda p, x: (jnp.sum(p["w"] * x) + p["b"], "aux")  # noqa: E731
    (g, aux) = grad(f, has_aux=True)({"w": jnp.array([1.0, 2.0]), "b": 0.5}, jnp.array([3.0, 4.0]))
    assert aux == "aux" and g["w"].tolist() == [3.0, 4.0] and float(g["b"]) == 1.0
    gx, gy = grad(lambda x, y: x * y, argnums=(0, 1))(2.0, 5.0)
    assert (float(gx), float(gy)) == (5.0, 2.0)
    v, g = jax.value_and_grad(lambda x: x ** 3)(2.0)
    assert (float(v), float(g)) == (8.0, 12.0)


def test_grad_of_grad_is_the_second_derivative():
    assert float(grad(grad(lambda x: jnp.sin(x) * x))(0.5)) == pytest.approx(
        2 * np.cos(0.5) - 0.5 * np.sin(0.5), rel=1e-6)


def test_vjp_pullback_gives_one_cotangent_per_primal():
    y, pullback = jax.vjp(lambda x, y: jnp.sin(x) * y, 2.0, 3.0)
    gx, gy = pullback(jnp.float32(1.0))
    assert float(y) == pytest.approx(np.sin(2) * 3, rel=1e-6)
    assert (float(gx), float(gy)) == pytest.approx((np.cos(2) * 3, np.sin(2)), rel=1e-6)
    with pytest.raises(ValueError, match="^unexpected tree structure"):  # JAX 0.10.2's ValueError
        pullback((1.0, 2.0))


def test_jvp_jacfwd_and_hessian_run_on_the_engines_forward_mode():
    y, t = jax.jvp(lambda x: jnp.sin(x) * x, (jnp.array([0.5, 1.0]),), (jnp.array([1.0, 0.0]),))
    x = np.array([0.5, 1.0])
    np.testing.assert_allclose(t.numpy(), [np.cos(0.5) * 0.5 + np.sin(0.5), 0.0], rtol=1e-6)
    f = lambda v: jnp.sin(v) * v[0] + v ** 3  # noqa: E731
    np.testing.assert_allclose(jax.jacfwd(f)(jnp.array(x)).numpy(), jax.jacrev(f)(jnp.array(x)).numpy(),
                               rtol=1e-6)
    h = jax.hessian(lambda v: jnp.sum(jnp.sin(v) * v))(jnp.array(x))
    np.testing.assert_allclose(h.numpy(), np.diag(2 * np.cos(x) - x * np.sin(x)), rtol=1e-5, atol=1e-7)
    value, tangent, aux = jax.jvp(lambda v: (v * 2, "aux"), (1.0,), (1.0,), has_aux=True)
    assert (float(value), float(tangent), aux) == (2.0, 2.0, "aux")


def test_jvp_of_a_custom_vjp_function_raises_as_jax_does():
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp"):
        jax.jvp(f, (2.0, 3.0), (1.0, 0.0))


def test_forward_over_reverse_through_a_custom_vjp_raises_and_reverse_over_reverse_runs_as_in_jax():
    # JAX 0.10.2: hessian, jacfwd(grad(f)) and jvp(grad(f)) of a function through a custom_vjp
    # whose fwd calls the function itself (there JAX runs it forwards) raise "can't apply
    # forward-mode autodiff (jvp) to a custom_vjp function."; jacrev(jacrev(f))
    # runs, giving [1.3624206, 0.34127092, 1.9715813] on the diagonal
    @jax.custom_vjp
    def log1pexp(x):
        return jnp.log1p(jnp.exp(x))
    log1pexp.defvjp(lambda x: (log1pexp(x), x), lambda x, g: (g * jax.nn.sigmoid(x),))
    f = lambda x: jnp.sum(log1pexp(x) * x)  # noqa: E731
    x = jnp.array([0.5, -1.0, 2.0])
    for forward_over_reverse in (jax.hessian(f), jax.jacfwd(jax.grad(f)),
                                 lambda v: jax.jvp(jax.grad(f), (v,), (jnp.ones(3),))):
        with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp"):
            forward_over_reverse(x)
    h = jax.jacrev(jax.jacrev(f))(x)
    np.testing.assert_allclose(np.diag(h.numpy()), [1.3624206, 0.34127092, 1.9715813], rtol=2e-6)
    np.testing.assert_array_equal(h.numpy() - np.diag(np.diag(h.numpy())), np.zeros((3, 3)))


def test_jacrev_shape_and_values():
    j = jax.jacrev(lambda x: jnp.sin(x) * x[0])(jnp.array([0.5, 1.0]))
    x = np.array([0.5, 1.0])
    want = np.diag(np.cos(x) * x[0])
    want[:, 0] += np.sin(x)
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-6)


def test_vmap_maps_axes_and_pytrees():
    f = lambda p, x: p["w"] * x + p["b"]  # noqa: E731
    out = jax.vmap(f, in_axes=(None, 0))({"w": 2.0, "b": 1.0}, jnp.arange(3.0))
    assert out.tolist() == [1.0, 3.0, 5.0]
    out = jax.vmap(lambda a: a.sum(), in_axes=1)(jnp.ones((2, 3)))
    assert out.tolist() == [2.0, 2.0, 2.0]
    a, b = jax.vmap(lambda x: (x, {"a": x * 2}), out_axes=(0, {"a": 1}))(jnp.ones((2, 3)))
    assert a.shape == (2, 3) and b["a"].shape == (3, 2)
    k = jax.vmap(lambda x: (x.sum(), 7.0), out_axes=(0, None))(jnp.ones((4, 2)))
    assert k[0].tolist() == [2.0] * 4 and float(k[1]) == 7.0
    with pytest.raises(ValueError, match="inconsistent sizes"):
        jax.vmap(lambda a, b: a + b)(jnp.ones(2), jnp.ones(3))


def test_lax_control_flow_runs_eagerly():
    assert int(jax.lax.while_loop(lambda v: v < 10, lambda v: v * 2, 1)) == 16
    assert float(jax.lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)) == 2.0
    assert float(grad(lambda x: jax.lax.stop_gradient(x) * x)(3.0)) == 3.0


def test_random_keys_are_reproducible():
    k = jax.random.PRNGKey(0)
    a, b = jax.random.split(k)
    assert jax.random.normal(a, (3,)).tolist() == jax.random.normal(a, (3,)).tolist()
    assert jax.random.normal(a, (3,)).tolist() != jax.random.normal(b, (3,)).tolist()
    assert jax.random.uniform(k, (2,)).dtype == np.float32


def test_tree_util_flattens_as_jax_does():
    leaves, treedef = jax.tree_util.tree_flatten({"b": (1, None), "a": [2, 3]})
    assert leaves == [2, 3, 1]
    assert jax.tree_util.tree_unflatten(treedef, [4, 5, 6]) == {"a": [4, 5], "b": (6, None)}
    assert jax.tree_util.tree_map(lambda x, y: x + y, (1, [2]), (10, [20])) == (11, [22])


def test_complex_numbers_are_refused_as_out_of_scope():
    with pytest.raises(NotImplementedError, match="complex numbers are out of scope"):
        jnp.array([1 + 2j])


def test_unmapped_names_say_what_is_covered():
    with pytest.raises(AttributeError, match="jax.pmap does not exist.*out of scope: pmap"):
        jax.pmap  # noqa: B018
    with pytest.raises(AttributeError, match="has no 'not_a_function'"):
        jnp.not_a_function  # noqa: B018


# -- custom rules ------------------------------------------------------------------------------------
from _jax_examples import f  # noqa: E402  (JAX's guide's custom_vjp)


def test_custom_vjp_residuals_of_any_pytree_and_none_cotangents():
    @custom_vjp
    def h(x, cfg):
        return x * cfg["k"]

    def h_fwd(x, cfg):
        return h(x, cfg), {"k": cfg["k"], "unused": None}

    def h_bwd(res, g):
        return (g * res["k"], None)

    h.defvjp(h_fwd, h_bwd)
    assert float(grad(h)(2.0, {"k": 3.0})) == 3.0


def test_custom_vjp_bwd_must_return_a_tuple_of_the_right_length():
    @custom_vjp
    def h(x, y):
        return x * y

    h.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: g * res[1])
    with pytest.raises(TypeError, match=r"must produce a tuple of length equal to the number of arguments "
                                        r"to the primal function, but got bwd output structure PyTreeDef\(\*\) "
                                        r"for primal input structure PyTreeDef\(\(\*, \*\)\)"):
        grad(h)(2.0, 3.0)


def _closing_over(kind):
    """f(x, y) = g(y), where g, a custom function of ``kind``, reads x without taking it."""
    def f(x, y):
        if kind == "custom_vjp":
            @jax.custom_vjp
            def g(z):
                return z * x
            g.defvjp(lambda z: (z * x, None), lambda r, ct: (ct * x,))
        else:
            @jax.custom_jvp
            def g(z):
                return z * x

            @g.defjvp
            def g_jvp(p, t):
                return p[0] * x, t[0] * x
        return g(y)
    return f


@pytest.mark.parametrize("kind", ["custom_vjp", "custom_jvp"])
def test_a_custom_function_that_closes_over_a_value_being_differentiated_is_refused(kind):
    # JAX 0.10.2 raises UnexpectedTracerError for grad(f, 0), grad(f, (0, 1)) and jvp(f, ...),
    # and gives 2.0 for grad(f, 1); gradmagic gave 0 for x's gradient (its cotangent, lost)
    f = _closing_over(kind)
    part = "its fwd" if kind == "custom_vjp" else "it"
    runs = [lambda: jax.grad(f, (0, 1))(2.0, 3.0), lambda: jax.grad(f, 0)(2.0, 3.0)]
    if kind == "custom_jvp":  # (jvp of a custom_vjp refuses forward mode first, as JAX)
        runs.append(lambda: jax.jvp(f, (2.0, 3.0), (1.0, 1.0)))
    for run in runs:
        with pytest.raises(TypeError, match=rf"{kind} function g: {part} reads `x`, a value being "
                                            r"differentiated.*Pass it to g as an argument"):
            run()
    assert float(jax.grad(f, 1)(2.0, 3.0)) == 2.0
    assert float(jax.grad(f, 1)(jnp.array(2.0), 3.0)) == 2.0  # x an array nobody differentiates


def test_custom_vjp_without_defvjp_says_so():
    @custom_vjp
    def h(x):
        return x

    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function h"):
        grad(h)(1.0)


def test_custom_jvp_rule_that_is_not_linear_is_an_error():
    @custom_jvp
    def sq(x):
        return x ** 2

    @sq.defjvp
    def sq_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        return sq(x), 2 * x * x_dot ** 2

    with pytest.raises(GradientValueError, match="the JVP rule sq_jvp is not linear in its tangents"):
        grad(sq)(3.0)


def test_custom_jvp_second_order_goes_through_the_rule():
    @custom_jvp
    def cube(x):
        return x ** 3

    cube.defjvps(lambda t, ans, x: 3 * x ** 2 * t)
    assert float(grad(grad(cube))(2.0)) == 12.0


def test_custom_jvp_nondiff_argnums():
    @partial(custom_jvp, nondiff_argnums=(0,))
    def scale(k, x):
        return k * x

    @scale.defjvp
    def scale_jvp(k, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return scale(k, x), k * x_dot

    assert float(grad(lambda x: scale(3.0, x))(1.0)) == 3.0


# -- trace and pitfalls --------------------------------------------------------------------------------
def test_a_custom_vjp_call_is_one_row_with_the_users_name():
    with gm.trace() as tr:
        grad(lambda x, y: 3 * f(x, y))(2.0, 3.0)
    rows = [r for r in tr.backward if r.node == "f"]
    assert len(rows) == 1 and rows[0].input_names() == ["x", "y"]
    assert float(np.asarray(rows[0].downstream[0])) == pytest.approx(3 * np.cos(2) * 3, rel=1e-6)


def test_a_bwd_that_ignores_g_is_found_in_jaxs_words():
    @custom_vjp
    def h(x):
        return jnp.sin(x)

    h.defvjp(lambda x: (h(x), jnp.cos(x)), lambda cos_x, g: (cos_x,))
    with gm.trace(check=True) as tr:
        grad(lambda x: 3 * h(x))(2.0)
    notes = [p for p in tr.pitfalls if p.kind == "upstream-ignored"]
    assert len(notes) == 1 and "h's bwd does not multiply by its cotangent g" in notes[0].message
    assert "jax.lax.stop_gradient" in notes[0].message and "upstream" not in notes[0].message


def test_a_bwd_that_disagrees_with_its_function_is_found():
    @custom_vjp
    def h(x, y):
        return jnp.sin(x) * y

    h.defvjp(lambda x, y: (h(x, y), (jnp.cos(x), jnp.sin(x), y)),
             lambda res, g: (-res[0] * g * res[2], res[1] * g))  # the sign of x's is wrong
    with gm.trace(check=True) as tr:
        grad(lambda x, y: 3 * h(x, y))(2.0, 3.0)
    notes = [p for p in tr.pitfalls if p.kind == "wrong-derivative"]
    assert len(notes) == 1 and "h's custom gradient disagrees" in notes[0].message
    assert "for x: at x = 2 with g 3, bwd gave 3.745 where the derivative is -3.745" in notes[0].message


def test_custom_jvp_shows_as_one_row_with_its_transposed_rule():
    @custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * x_dot

    with gm.trace(check=True) as tr:
        g = grad(lambda x: 2 * log1pexp(x))(3.0)
    assert [r.node for r in tr.backward] == ["multiply", "log1pexp"]
    assert float(g) == pytest.approx(2 / (1 + np.exp(-3.0)), rel=1e-6) and not tr.pitfalls


# -- import costs ------------------------------------------------------------------------------------
def test_importing_the_dialect_imports_no_framework():
    code = ("import sys, gradmagic.jax, gradmagic.jax.numpy; print(sorted(m for m in ('jax', "
            "'IPython', 'matplotlib', 'torch', 'tensorflow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_row_of_a_custom_vjp_call_shows_its_residuals():
    with gm.trace() as tr:
        grad(lambda x, y: f(x, y))(2.0, 3.0)
    row = next(r for r in tr.backward if r.node == "f")
    assert row.note.startswith("saved for backward: res[0]=-0.4161, res[1]=0.9093, res[2]=3")


def test_a_traced_transform_shows_the_functions_parameter_names():
    def loss(params, x):
        return jnp.sum(jnp.tanh(params["w"] * x) ** 2)

    with gm.trace() as tr:
        jax.grad(loss)({"w": jnp.array([1.0, 2.0])}, jnp.array([0.5, 0.1]))
    assert tr.forward[0].cells()["x"] == "params['w']=[1, 2], x=[0.5, 0.1]"
    assert "/d(params['w']) = " in tr.to_text()


def test_turning_on_a_check_gradmagic_does_not_make_says_so():
    """``jax_debug_nans`` stops JAX at the first NaN; gradmagic.jax does not, and says where
    the job is done (a trace's nan-origin note), rather than ignore the switch."""
    with pytest.warns(UserWarning, match=r"does not stop at the first NaN.*gm\.trace\(\)"):
        jax.config.update("jax_debug_nans", True)
    with pytest.warns(UserWarning, match=r"first NaN or inf as JAX.s jax_debug_infs"):
        jax.config.update("jax_debug_infs", True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jax.config.update("jax_debug_nans", False)  # turning it off: nothing to say
        jax.config.update("jax_disable_jit", True)  # nothing is compiled here anyway
        jax.config.update("jax_platform_name", "cpu")


def test_indices_are_int32_as_jaxs():
    """NumPy's index functions give int64, JAX's (x64 off) int32 (JAX 0.10.2)."""
    c = jnp.array([0, 1, 1])
    for got in (jnp.where(c)[0], jnp.nonzero(c)[0], jnp.argsort(jnp.array([3.0, 1.0])),
                jnp.argmax(jnp.array([1.0, 3.0])), jnp.searchsorted(jnp.array([1.0, 2.0]), 1.5)):
        assert isinstance(got, jax.Array) and got.dtype == np.int32
    assert jnp.where(c)[0].tolist() == [1, 2]
    jax.config.update("jax_enable_x64", True)
    try:
        assert jnp.argsort(jnp.array([3.0, 1.0])).dtype == np.int64
    finally:
        jax.config.update("jax_enable_x64", False)


def test_results_stay_in_jax_s_32_bit_types_where_numpy_would_widen_them():
    """NumPy gives float64 for int32 * float32 and int64 for 1 - a bool array; JAX, with x64
    off, float32 and int32. The autodiff cookbook's logistic loss, whose labels are bools,
    printed a float64 loss; values from JAX 0.10.2 (CPU)."""
    t = jnp.array([True, False])
    assert (1 - t).dtype == np.int32
    assert (jnp.array([1, 2]) * jnp.array([0.5, 0.5])).dtype == np.float32
    assert (jnp.array([1, 2]) * 0.5).dtype == np.float32
    inputs = jnp.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                        [0.74, -2.49, 1.39]])
    targets = jnp.array([True, True, False, True])

    def loss(W, b):
        preds = 0.5 * (jnp.tanh((jnp.dot(inputs, W) + b) / 2) + 1)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))
    value, (gw, gb) = jax.value_and_grad(loss, (0, 1))(jnp.array([0.1, -0.2, 0.3]), jnp.array(0.05))
    assert value.dtype == gw.dtype == gb.dtype == np.float32
    np.testing.assert_allclose(float(value), 2.0108252, rtol=1e-6)
    np.testing.assert_allclose(gw.numpy(), [-0.5713142, 0.5804442, -1.3407626], rtol=1e-6)
    jax.config.update("jax_enable_x64", True)
    try:
        assert (jnp.array([1, 2]) * jnp.array([0.5, 0.5])).dtype == np.float64
    finally:
        jax.config.update("jax_enable_x64", False)

# -- JAX's conventions at kinks, and jax.nn: JAX 0.10.2 (CPU) gave every value below ---------
KINKS = jnp.array([-2.0, -1.0, 0.0, 0.5, 1.0, 6.0, 7.0])
# name: (values, derivatives) at KINKS, rounded to 6 places
JAX_NN = {
    "relu": ([0.0, 0.0, 0.0, 0.5, 1.0, 6.0, 7.0],
             [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]),
    "relu6": ([0.0, 0.0, 0.0, 0.5, 1.0, 6.0, 6.0],
              [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]),
    "leaky_relu": ([-0.02, -0.01, 0.0, 0.5, 1.0, 6.0, 7.0],
                   [0.01, 0.01, 1.0, 1.0, 1.0, 1.0, 1.0]),
    "elu": ([-0.864665, -0.632121, 0.0, 0.5, 1.0, 6.0, 7.0],
            [0.135335, 0.367879, 1.0, 1.0, 1.0, 1.0, 1.0]),
    "selu": ([-1.520167, -1.111331, 0.0, 0.525351, 1.050701, 6.304206, 7.354907],
             [0.237933, 0.646769, 1.758099, 1.050701, 1.050701, 1.050701, 1.050701]),
    "celu": ([-0.864665, -0.632121, 0.0, 0.5, 1.0, 6.0, 7.0],
             [0.135335, 0.367879, 1.0, 1.0, 1.0, 1.0, 1.0]),
    "silu": ([-0.238406, -0.268941, 0.0, 0.31123, 0.731059, 5.985165, 6.993623],
             [-0.090784, 0.072329, 0.5, 0.739961, 0.927671, 1.012326, 1.00546]),
    "swish": ([-0.238406, -0.268941, 0.0, 0.31123, 0.731059, 5.985165, 6.993623],
              [-0.090784, 0.072329, 0.5, 0.739961, 0.927671, 1.012326, 1.00546]),
    "gelu": ([-0.045402, -0.158808, 0.0, 0.345714, 0.841192, 6.0, 7.0],
             [-0.086099, -0.082964, 0.5, 0.86737, 1.082964, 1.0, 1.0]),
    "soft_sign": ([-0.666667, -0.5, 0.0, 0.333333, 0.5, 0.857143, 0.875],
                  [0.111111, 0.25, 1.0, 0.444444, 0.25, 0.020408, 0.015625]),
    "log_sigmoid": ([-2.126928, -1.313262, -0.693147, -0.474077, -0.313262, -0.002476, -0.000911],
                    [0.880797, 0.731059, 0.5, 0.377541, 0.268941, 0.002473, 0.000911]),
    "hard_tanh": ([-1.0, -1.0, 0.0, 0.5, 1.0, 1.0, 1.0],
                  [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
    "sigmoid": ([0.119203, 0.268941, 0.5, 0.622459, 0.731059, 0.997527, 0.999089],
                [0.104994, 0.196612, 0.25, 0.235004, 0.196612, 0.002466, 0.00091]),
    "softplus": ([0.126928, 0.313262, 0.693147, 0.974077, 1.313262, 6.002476, 7.000911],
                 [0.119203, 0.268941, 0.5, 0.622459, 0.731059, 0.997527, 0.999089]),
}


@pytest.mark.parametrize("name", sorted(JAX_NN))
def test_jax_nn_gives_jax_s_values_and_derivatives_at_the_kinks(name):
    f = getattr(jax.nn, name)
    values, derivatives = JAX_NN[name]
    np.testing.assert_allclose(f(KINKS).numpy(), values, atol=2e-6)
    np.testing.assert_allclose(jax.vmap(jax.grad(lambda t: f(t)))(KINKS).numpy(), derivatives, atol=2e-6)


def test_maximum_minimum_clip_and_abs_at_a_tie_as_jax():
    """JAX gives each side half the gradient where maximum's (minimum's) two are equal, so a
    value on a bound of clip gets half; and abs's derivative at 0 is 1. TensorFlow and
    PyTorch differ (1 to the first, and sign(0) = 0), so the dialect says JAX's."""
    y = jnp.array([-2.0, 0.0, 0.0, 1.0, 1.0, 6.0, 8.0])
    gx, gy = jax.vmap(jax.grad(lambda a, b: jnp.maximum(a, b), (0, 1)))(KINKS, y)
    assert gx.numpy().tolist() == [0.5, 0.0, 0.5, 0.0, 0.5, 0.5, 0.0]
    assert gy.numpy().tolist() == [0.5, 1.0, 0.5, 1.0, 0.5, 0.5, 1.0]
    gx, gy = jax.vmap(jax.grad(lambda a, b: jnp.minimum(a, b), (0, 1)))(KINKS, y)
    assert gx.numpy().tolist() == [0.5, 1.0, 0.5, 1.0, 0.5, 0.5, 1.0]
    assert jax.vmap(jax.grad(lambda t: jnp.clip(t, -1.0, 6.0)))(KINKS).numpy().tolist() == [
        0.0, 0.5, 1.0, 1.0, 1.0, 0.5, 0.0]
    for fn in (jnp.abs, jnp.absolute, abs):
        assert jax.vmap(jax.grad(lambda t: fn(t)))(KINKS).numpy().tolist() == [-1.0, -1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    assert jnp.maximum(KINKS, y).numpy().tolist() == [-2.0, 0.0, 0.0, 1.0, 1.0, 6.0, 8.0]
    assert np.isnan(jnp.maximum(jnp.array([np.nan]), 1.0).numpy()[0])  # NaN kept, as NumPy and JAX
    ints = jnp.maximum(jnp.array([1, 5]), jnp.array([1, 2]))  # integers keep their dtype, as JAX's
    assert ints.dtype == np.int32 and jnp.clip(jnp.array([1, 5]), 0, 3).numpy().tolist() == [1, 3]
    big = jnp.array([3e38, np.inf, -np.inf])  # a tie's value cannot overflow
    assert jnp.maximum(big, big).numpy().tolist() == big.numpy().tolist()
    assert str(jnp.abs(jnp.array([-0.0, -1.0])).numpy().tolist()) == "[0.0, 1.0]"
    assert jax.nn.one_hot(jnp.array([0, 2]), 3).numpy().tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


def test_maximum_minimum_give_neither_side_a_gradient_where_one_is_nan():
    """JAX 0.10.2: grad(maximum, (0, 1))(nan, 1.) and (1., nan) are (0., 0.), as for minimum
    (gradmagic gave the second 1); a tie still halves, and the larger takes all."""
    for fn in (jnp.maximum, jnp.minimum):
        for a, b in ((np.nan, 1.0), (1.0, np.nan)):
            assert [float(g) for g in jax.grad(fn, argnums=(0, 1))(a, b)] == [0.0, 0.0]
        assert [float(g) for g in jax.grad(fn, argnums=(0, 1))(1.0, 1.0)] == [0.5, 0.5]
    assert [float(g) for g in jax.grad(jnp.maximum, argnums=(0, 1))(2.0, 1.0)] == [1.0, 0.0]
    assert np.isnan(float(jnp.maximum(np.nan, 1.0)))


def test_fmax_fmin_give_a_tie_to_the_second_as_jax():
    """JAX writes fmax as where(x1 > x2 or x2 is NaN, x1, x2): at a tie the gradient goes to
    x2 (JAX 0.10.2: grad(fmax, (0, 1))(1., 1.) is (0., 1.)); gradmagic's own goes to x1."""
    x1 = jnp.array([1.0, np.nan, 1.0, 2.0, -1.0])
    x2 = jnp.array([1.0, 1.0, np.nan, 1.0, 3.0])
    for fn, (g1, g2) in [(jnp.fmax, ([0.0, 0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0, 1.0])),
                        (jnp.fmin, ([0.0, 0.0, 1.0, 0.0, 1.0], [1.0, 1.0, 0.0, 1.0, 0.0]))]:
        gx, gy = jax.vmap(jax.grad(lambda a, b: fn(a, b), (0, 1)))(x1, x2)
        assert gx.numpy().tolist() == g1 and gy.numpy().tolist() == g2
        want = getattr(np, fn.__name__)(x1.numpy(), x2.numpy())
        assert fn(x1, x2).numpy().tolist() == want.tolist() and fn(x1, x2).dtype == np.float32
    assert jnp.fmax(jnp.arange(3), 1).numpy().tolist() == [1, 1, 2]


# -- Arrays from functions without a gradient; gradients built from indexing and slicing -----------
# (JAX 0.10.2, CPU, gave every number below)
V = jnp.array([1.0, 2.0])


@pytest.mark.parametrize("make", [
    lambda x: jnp.zeros_like(x), lambda x: jnp.ones_like(x), lambda x: jnp.empty_like(x),
    lambda x: jnp.full_like(x, 7), lambda x: jnp.round(x), lambda x: jnp.copy(x),
    lambda x: jax.lax.stop_gradient(x)],
    ids=["zeros_like", "ones_like", "empty_like", "full_like", "round", "copy", "stop_gradient"])
def test_functions_without_a_gradient_still_give_jax_arrays(make):
    out = make(V)
    assert isinstance(out, jax.Array) and out.dtype == np.float32 and out.shape == (2,)
    assert out.at[0].set(5.0).numpy()[0] == 5.0


def test_zeros_like_updated_inside_grad():
    g = jax.grad(lambda x: (jnp.zeros_like(x).at[0].set(x[1]) * x).sum())(V)
    assert g.numpy().tolist() == [2.0, 1.0]
    assert jnp.full_like(V, 7).numpy().tolist() == [7.0, 7.0]
    np.testing.assert_allclose(jnp.round(jnp.array([1.26, -2.5]), 1).numpy(), [1.3, -2.5], rtol=1e-6)


def test_copy_works_outside_grad_and_differentiates_as_the_identity():
    assert jnp.copy(V).numpy().tolist() == [1.0, 2.0]
    assert jax.grad(lambda x: (jnp.copy(x) ** 2).sum())(V).numpy().tolist() == [2.0, 4.0]


@pytest.mark.parametrize("f, x, want", [
    (lambda x: jnp.take(x, jnp.array([0, 0, 2])).sum(), jnp.array([1.0, 2.0, 3.0]), [2.0, 0.0, 1.0]),
    (lambda x: jnp.take(x, jnp.array([0, 5, -1])).sum(), jnp.array([1.0, 2.0, 3.0]), [1.0, 0.0, 1.0]),
    (lambda x: (jnp.take(x, jnp.array([2, 2, 0]), axis=1) ** 2).sum(), jnp.arange(6.0).reshape(2, 3),
     [[0.0, 0.0, 8.0], [6.0, 0.0, 20.0]]),
    (lambda x: x.at[jnp.array([0, 0, 2])].add(x[1]).sum(), jnp.array([1.0, 2.0, 3.0]), [1.0, 4.0, 1.0]),
    (lambda x: (jnp.diff(x) ** 2).sum(), jnp.array([1.0, 2.0, 4.0]), [-2.0, -2.0, 4.0]),
    (lambda x: (jnp.diff(x, n=2, append=jnp.array([1.0])) ** 2).sum(), jnp.array([1.0, 2.0, 4.0, 7.0]),
     [2.0, -2.0, -20.0, 38.0]),
    (lambda x: (jnp.diff(x, axis=0) ** 2).sum(), jnp.array([[1.0, 2.0], [4.0, 8.0], [9.0, 10.0]]),
     [[-6.0, -12.0], [-4.0, 8.0], [10.0, 4.0]]),
], ids=["take-repeated", "take-out-of-bounds", "take-axis", "at-add-repeated", "diff", "diff-n2-append",
        "diff-axis0"])
def test_take_at_add_and_diff_have_jaxs_gradients(f, x, want):
    assert jax.grad(f)(x).numpy().tolist() == want


def test_take_modes_and_at_add_values_as_jax():
    a = jnp.array([1.0, 2.0, 3.0])
    i = jnp.array([-1, 3, -4, 5])
    assert str(jnp.take(a, i).numpy().tolist()) == "[3.0, nan, nan, nan]"
    assert jnp.take(a, i, mode="clip").numpy().tolist() == [1.0, 3.0, 1.0, 3.0]
    assert jnp.take(a, i, mode="wrap").numpy().tolist() == [3.0, 1.0, 3.0, 3.0]
    assert jnp.take(jnp.array([1, 2, 3]), jnp.array([-1, 3])).numpy().tolist() == [3, -2147483648]
    assert jnp.take(jnp.array([1.0, 2.0]), jnp.array([0, 7]), fill_value=-1.0).numpy().tolist() == [1.0, -1.0]
    assert jnp.take(jnp.arange(6.0).reshape(2, 3), jnp.array([[5, 1], [0, 0]])).numpy().tolist() == [
        [5.0, 1.0], [0.0, 0.0]]
    assert jnp.zeros(3).at[jnp.array([0, 0, 2])].add(jnp.array([1.0, 2.0, 3.0])).numpy().tolist() == [
        3.0, 0.0, 3.0]
    g = jax.grad(lambda v: (jnp.arange(3.0).at[jnp.array([1, 1, 2])].add(v) ** 2).sum())(a)
    assert g.numpy().tolist() == [8.0, 8.0, 10.0]
    assert jnp.diff(jnp.array([1.0, 4.0]), prepend=0.0, append=jnp.array([10.0, 20.0])).numpy().tolist() == [
        1.0, 3.0, 6.0, 10.0]
    assert jnp.diff(jnp.array([True, True, False])).numpy().tolist() == [False, True]


def test_an_update_at_a_list_index_is_refused_as_jax_refuses_it():
    with pytest.raises(TypeError, match="Using a non-tuple sequence for multidimensional indexing"):
        jnp.zeros(3).at[[0, 0, 2]].add(1.0)
    # JAX 0.10.2: a repeated index multiplies once per repeat
    assert jnp.ones(3).at[jnp.array([0, 0])].multiply(2.0).tolist() == [4.0, 1.0, 1.0]


# -- names JAX's autodiff tutorials use ----------------------------------------------------------------
def test_linearize_gives_the_value_and_a_jvp_function():
    y, f_jvp = jax.linearize(lambda x: jnp.sin(x) * x, jnp.array([0.5, 1.0]))
    np.testing.assert_allclose(y.numpy(), [0.23971277, 0.84147096], rtol=2e-7)
    np.testing.assert_allclose(f_jvp(jnp.array([1.0, 2.0])).numpy(), [0.9182168, 2.7635465], rtol=2e-7)
    assert float(jax.linearize(lambda x, y: x * y, 2.0, 3.0)[1](1.0, 0.0)) == 3.0
    y, f_jvp, aux = jax.linearize(lambda x: (x * 2, "a"), 2.0, has_aux=True)
    assert (float(y), float(f_jvp(1.0)), aux) == (4.0, 2.0, "a")
    with pytest.raises(ValueError, match="linearized function called on tangent values inconsistent "
                                         r"with the original primal values: got tangent of shape \(3,\)"):
        jax.linearize(jnp.sin, jnp.ones(2))[1](jnp.ones(3))


def test_check_grads_passes_a_right_function_to_second_order():
    jax.test_util.check_grads(lambda x, y: jnp.sin(x) * y ** 2, (jnp.array([0.5, 1.0]), 2.0), order=2)
    jax.test_util.check_grads(lambda p: {"o": p["a"] * jnp.exp(p["b"])},
                              ({"a": 1.5, "b": jnp.array([0.1, 0.2])},), order=1)


@custom_jvp
def twice_too_steep(x):
    return jnp.sin(x)


@twice_too_steep.defjvp
def twice_too_steep_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return jnp.sin(x), 2 * jnp.cos(x) * x_dot


@pytest.mark.parametrize("mode, words", [
    ("fwd", r"JVP tangent[\s\S]*ACTUAL: array\(1.90624[\s\S]*DESIRED: array\(0.95337"),
    ("rev", r"VJP cotangent projection: <vjp\(cotangent\), tangent> = 0.7627\d*, but "
            r"<cotangent, finite-difference JVP> = 0.3815"),
])
def test_check_grads_finds_a_wrong_rule_with_jaxs_numbers(mode, words):
    """JAX 0.10.2's check_grads on the same rule: JVP tangent 1.906243 against 0.953376; VJP
    cotangent projection 0.762797 against 0.3815."""
    with pytest.raises(AssertionError, match=words):
        jax.test_util.check_grads(twice_too_steep, (1.0,), order=1, modes=(mode,))


def test_checkpoint_and_remat_keep_values_and_gradients():
    f = lambda x: jnp.sin(jnp.sin(x))  # noqa: E731
    for wrap in (jax.checkpoint, jax.remat, partial(jax.checkpoint, policy=None)):
        np.testing.assert_allclose(float(wrap(f)(2.0)), 0.78907233, rtol=2e-7)
        np.testing.assert_allclose(float(jax.grad(wrap(f))(2.0)), -0.25563914, rtol=5e-7)


@pytest.mark.parametrize("f, x, value, derivative", [
    (jax.lax.exp, 0.5, 1.6487212, 1.6487212),
    (jax.lax.log, 3.0, 1.0986123, 0.33333334),
    (jax.lax.rsqrt, 2.0, 0.70710677, -0.17677669),
    (lambda x: jax.lax.pow(x, 0.5), 2.0, 1.4142135, 0.35355338),
    (lambda y: jax.lax.pow(2.0, y), 0.5, 1.4142135, 0.9802581),
    (lambda x: jax.lax.integer_pow(x, -2), 2.0, 0.25, -0.25),
    (lambda x: jax.lax.integer_pow(x, 3), 3.0, 27.0, 27.0),
], ids=["exp", "log", "rsqrt", "pow-x", "pow-y", "integer_pow-2", "integer_pow3"])
def test_lax_elementwise_values_and_derivatives(f, x, value, derivative):
    np.testing.assert_allclose(float(f(x)), value, rtol=2e-7)
    np.testing.assert_allclose(float(jax.grad(f)(x)), derivative, rtol=2e-7)


def test_lax_refuses_what_jax_refuses():
    with pytest.raises(TypeError, match="exp does not accept dtype int32. Accepted dtypes are "
                                        "subtypes of floating, complexfloating."):
        jax.lax.exp(2)
    with pytest.raises(TypeError, match="lax.integer_pow: the exponent y must be a Python int, got "
                                        "float 2.5"):
        jax.lax.integer_pow(3.0, 2.5)


def test_exact_gelu_and_lax_erf_give_what_jax_gives():
    # jax.nn.gelu(approximate=False) is 0.5 x (1 + erf(x / sqrt(2))): JAX 0.10.2's values, first
    # and second derivatives (x64 on), for the same code
    jax.config.update("jax_enable_x64", True)
    try:
        _exact_gelu_and_erf()
    finally:
        jax.config.update("jax_enable_x64", False)
    one = jax.nn.gelu(jnp.array([1.0]), approximate=False)  # x64 off: float32, as JAX's
    assert one.dtype == np.float32 and one.tolist() == [0.8413447141647339]


def _exact_gelu_and_erf():
    x = jnp.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5])
    f = lambda x: jax.nn.gelu(x, approximate=False)  # noqa: E731
    g = jax.grad(lambda x: f(x).sum())
    jax_values = {
        "gelu": [-0.004049694094890279, -0.15865525393145707, -0.15426876936299344, 0.0,
                 0.34573123063700656, 0.8413447460685429, 2.4844758366855597],
        "gelu'": [-0.01194564720418392, -0.08331547058768624, 0.13250487534383715, 0.5,
                  0.8674951246561629, 1.0833154705876862, 1.037611085908145],
        "gelu''": [-0.03102293888356603, 0.24197072451914328, 0.616114321837524, 0.7978845608028654,
                   0.616114321837524, 0.24197072451914328, -0.07449527709766625],
        "erf": [-0.9999779095030014, -0.8427007929497149, -0.5204998778130465, 0.0,
                0.5204998778130465, 0.8427007929497149, 0.999593047982555],
        "erf'": [0.00013925305194674786, 0.41510749742059466, 0.8787825789354448, 1.1283791670955126,
                 0.8787825789354448, 0.41510749742059466, 0.00217828423035271]}
    got = {"gelu": f(x), "gelu'": g(x), "gelu''": jax.grad(lambda x: g(x).sum())(x),
           "erf": jax.lax.erf(x), "erf'": jax.grad(lambda x: jax.lax.erf(x).sum())(x)}
    for k, want in jax_values.items():
        assert isinstance(got[k], jax.Array)
        np.testing.assert_allclose(np.asarray(got[k]), want, rtol=1e-14, atol=1e-16, err_msg=k)
    with pytest.raises(TypeError, match=r"erf does not accept dtype int32\. Accepted dtypes are "
                                        r"subtypes of floating\.$"):
        jax.lax.erf(jnp.array([1, 2], dtype=jnp.int32))


def test_grad_with_allow_int_gives_float0_zeros_for_integers_as_jax():
    # JAX 0.10.2: jax.grad(lambda x, y: (x * y).sum(), argnums=(0, 1), allow_int=True)(
    # jnp.array([2, 3]), 3.0) is (float0 zeros of shape (2,), 5.0), with no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gx, gy = jax.grad(lambda x, y: (x * y).sum(), argnums=(0, 1), allow_int=True)(
            jnp.array([2, 3]), 3.0)
        g0 = jax.grad(lambda x, y: x * y, allow_int=True)(2, 3.0)
    assert gx.shape == (2,) and gx.dtype == np.dtype([("float0", np.void, 0)])
    assert float(gy) == 5.0 and isinstance(gy, jax.Array)
    assert g0.shape == () and g0.dtype.names == ("float0",)


def test_at_min_max_and_get_fill_as_jax():
    # JAX 0.10.2 gave each value below for the same code
    x = jnp.array([1.0, 5.0, 3.0])
    assert x.at[1].min(2.0).tolist() == [1.0, 2.0, 3.0] and x.at[0].max(4.0).tolist() == [4.0, 5.0, 3.0]
    assert x.at[jnp.array([0, 2])].min(jnp.array([0.0, 9.0])).tolist() == [0.0, 5.0, 3.0]
    assert jax.grad(lambda x: x.at[1].min(2.0).sum())(x).tolist() == [1.0, 0.0, 1.0]
    assert float(jax.grad(lambda v: x.at[1].min(v).sum())(2.0)) == 1.0
    assert jax.grad(lambda x: x.at[1].min(5.0).sum())(x).tolist() == [1.0, 0.5, 1.0]  # a tie: halves
    assert float(jax.grad(lambda v: x.at[1].min(v).sum())(5.0)) == 0.5
    assert float(x.at[5].get(mode="fill", fill_value=-1.0)) == -1.0 and float(x.at[1].get()) == 5.0
    assert x.at[jnp.array([1, 7])].get(mode="fill", fill_value=0.0).tolist() == [5.0, 0.0]
    # JAX 0.10.2: at a repeated index, the smallest of the element and all its values
    assert x.at[jnp.array([0, 0])].min(jnp.array([0.5, -1.0])).tolist() == [-1.0, 5.0, 3.0]


def test_python_ints_that_do_not_fit_int32_and_jit_outputs_as_jax():
    # JAX 0.10.2, x64 off: jnp.array(2**31) raises "Python int 2147483648 too large to convert to
    # int32" (NumPy's cast wrapped it to -2147483648 without a word); jit's outputs are Arrays
    for v, message in ((2**31, "Python int 2147483648 too large to convert to int32"),
                       (-2**31 - 1, "Python int -2147483649 too large to convert to int32"),
                       ([1, 2**31], "Python integer 2147483648 out of bounds for int32")):
        with pytest.raises(OverflowError, match=message):
            jnp.array(v)
    assert int(jnp.array(2**31 - 1)) == 2**31 - 1 and jnp.array([1, 2]).dtype == np.int32
    r = jax.jit(lambda x: x * 2)(3)
    assert isinstance(r, jax.Array) and int(r) == 6 and r.dtype == np.int32
    assert all(isinstance(v, jax.Array) for v in jax.jit(lambda x: (x, 1.5))(3))
    assert float(jax.grad(jax.jit(lambda x: x ** 2))(3.0)) == 6.0


def test_a_check_tells_two_custom_vjp_functions_apart():
    # two custom_vjp functions on inputs of one shape: the wrong one's verdict stays on its own
    # rows (each recorded the same closure of gradmagic.jax, which a check took for one function)
    @jax.custom_vjp
    def mysin_wrong(x):
        return jnp.sin(x)
    mysin_wrong.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * -jnp.cos(x),))

    @jax.custom_vjp
    def mycos_ok(x):
        return jnp.cos(x)
    mycos_ok.defvjp(lambda x: (jnp.cos(x), x), lambda x, g: (-g * jnp.sin(x),))
    x = jnp.array([0.5, 2.0])
    for first, second in ((mysin_wrong, mycos_ok), (mycos_ok, mysin_wrong)):
        with gm.trace(check=True) as t:
            jax.grad(lambda x: jnp.sum(first(x) * 2.0))(x)
            jax.grad(lambda x: jnp.sum(second(x) * 2.0))(x)
        assert [(p.kind, p.row.node) for p in t.pitfalls] == [("wrong-derivative", "mysin_wrong")]
        ok_rows = [r for r in t.backward if r.node == "mycos_ok"]
        assert ok_rows and not any("is wrong" in (r.note or "") for r in ok_rows)
    with gm.trace(check=True) as t:
        jax.grad(lambda x: jnp.sum(mycos_ok(x) * mysin_wrong(x)))(x)
    assert [(p.kind, p.row.node) for p in t.pitfalls] == [("wrong-derivative", "mysin_wrong")]


def test_nan_notes_write_the_fix_with_jax_functions():
    with gm.trace() as tr:
        jax.grad(lambda x: jnp.sum(jnp.sqrt(x)))(jnp.array([0.0, 1.0]))
    (note,) = [p.message for p in tr.pitfalls if p.kind == "nan-origin"]
    assert "Fix: keep the argument away from 0: jnp.sqrt(x + 1e-12), or a where inside the where." in note
    with gm.trace() as tr:
        jax.grad(lambda x: jnp.sum(jnp.log(jnp.exp(x * 100.0) + 1.0)))(jnp.array([10.0, 1.0]))
    (note,) = [p.message for p in tr.pitfalls if p.kind == "nan-origin"]
    assert "Fix: use a stable form: jax.nn.softplus(x) for log(1 + exp(x)), jnp.logaddexp(0., x), " in note
    assert "np." not in note.replace("jnp.", "")


def _minimizer(convert):
    """jax.closure_convert's docstring's minimize, with a gradient-descent search and the
    implicit-function rule; ``convert``: as the docstring does, or not."""
    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def _minimize(objective_fn, x0, *args):
        x = x0
        for _ in range(100):
            x = x - 0.1 * jax.grad(objective_fn)(x, *args)
        return x

    def fwd(objective_fn, x0, *args):
        y = _minimize(objective_fn, x0, *args)
        return y, (y, args)

    def rev(objective_fn, res, g):
        y, args = res
        hess = jax.grad(jax.grad(objective_fn))(y, *args)
        _, vjp_args = jax.vjp(lambda *a: jax.grad(objective_fn)(y, *a), *args)
        return (jnp.zeros_like(y), *vjp_args(-g / hess))
    _minimize.defvjp(fwd, rev)

    def minimize(objective_fn, x0):
        if not convert:
            return _minimize(objective_fn, x0)
        converted_fn, aux_args = jax.closure_convert(objective_fn, x0)
        return _minimize(converted_fn, x0, *aux_args)
    return minimize


def test_closure_convert_lets_a_custom_vjp_differentiate_what_its_function_argument_closes_over():
    # JAX 0.10.2 gives 1.9999998, 1.0, 4.0 and (5.0, 2.0)
    minimize = _minimizer(convert=True)
    assert float(minimize(lambda x: (x - 2.0) ** 2, 0.0)) == pytest.approx(2.0, abs=1e-6)
    assert float(jax.grad(lambda a: minimize(lambda x: 3.0 * (x - a) ** 2, 0.0))(2.0)) == pytest.approx(1.0)
    assert float(jax.grad(lambda a: minimize(lambda x: (x - a * a) ** 2, 0.0))(2.0)) == pytest.approx(4.0)
    ga, gb = jax.grad(lambda a, b: minimize(lambda x: (x - a * b) ** 2, 0.0), (0, 1))(2.0, 5.0)
    assert (float(ga), float(gb)) == (pytest.approx(5.0), pytest.approx(2.0))
    converted, consts = jax.closure_convert(lambda x: x * 2.0, 1.0)  # closes over nothing
    assert consts == [] and float(converted(3.0)) == 6.0
    with pytest.raises(TypeError, match=r"custom_vjp function _minimize: its fwd reads `a`.*"
                                        r"jax.closure_convert does that for a function you are given"):
        jax.grad(lambda a: _minimizer(convert=False)(lambda x: (x - a) ** 2, 0.0))(2.0)
