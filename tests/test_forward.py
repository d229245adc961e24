"""Forward mode (``gm.jvp``; ``gradmagic.tf.autodiff.ForwardAccumulator``): tangents against
central finite differences and against reverse mode (the Jacobian built column by column from
JVPs with basis tangents equals the one built row by row from VJPs with basis cotangents),
over every catalogue of the op tests, in float64 and float32 and over broadcasting shapes;
custom and nested custom gradients; nests; the errors; the trace's forward-mode pass; and
TensorFlow's accumulator against the values TensorFlow 2.21 gives (hard-coded, with the
program that gave them).
"""

import re

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf
import test_contract
import test_layout
import test_linalg
import test_ops
import test_pitfalls
import test_statistics
from _cases import BINARY, OTHER_MODULES, UNARY, module_or_skip, rng_for, sid, uniform
from gradmagic.errors import GradientTypeError, GradientValueError, TapeReentryError

# -- the op suite: each catalogue of the op tests, as (id, function, inputs) -----------------------
SHAPES = [(), (2, 3)]
PAIRS = [((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((3,), (3,))]  # broadcasting ones


def _ops_case(family, name, domains, shapes, fn):
    return pytest.param(fn, lambda: test_ops.draw(domains, shapes, "forward", family, name),
                        id=f"{family}-{name}")


SUITE = (
    [_ops_case("unary", f"{n}-{sid(s)}", [d], [s], f) for n, f, d in UNARY for s in SHAPES]
    + [_ops_case("binary", f"{n}-{sid(a)}x{sid(b)}", [dx, dy], [a, b], test_ops._binary_fn(u, o))
       for n, u, o, dx, dy in BINARY for a, b in PAIRS]
    + [_ops_case("reflected", n, [d], [(2, 3)], f) for n, f, d in test_ops.REFLECTED]
    + [_ops_case("reduction", f"{n}-axis={a}", [d], [(2, 3, 2)],
                 (lambda f, a: lambda x: f(x, axis=a))(f, a))
       for n, f, d in test_ops.REDUCTIONS for a in (None, 1, (0, 2))]
    + [_ops_case("matmul", n, [uniform(-2, 2)] * 2, [sa, sb], np.matmul) for n, sa, sb in test_ops.MATMUL_SHAPES]
    + [_ops_case("linalg", n, [uniform(-2, 2)] * len(s), s, f) for n, s, f in test_ops.LINALG]
    + [_ops_case("shape", n, [uniform(-2, 2)] * len(s), s, f) for n, s, f in test_ops.SHAPE_OPS]
    + [_ops_case("clip", n, d, s, f) for n, d, s, f in test_ops.CLIPS]
    + [_ops_case("method", n, [d], [s], f) for n, s, d, f in test_ops.METHODS]
    + [pytest.param(c[2], (lambda c: lambda: test_linalg.inputs(c))(c), id=f"np.linalg-{c[0]}")
       for c in test_linalg.CASES]
    + [pytest.param(f, (lambda n, d, s: lambda: [np.array(d(rng_for("forward", n), s), dtype=np.float64)])(n, d, s),
                    id=f"statistics-{n}") for n, f, d, s in test_statistics.CASES]
    + [pytest.param(c[3], (lambda s, n: lambda: test_contract.draw(s, "forward", n))(c[2], c[1]),
                    id=f"contract-{c[1]}", marks=test_contract._param(c).marks) for c in test_contract.CASES]
    + [_ops_case("special", f"sinc-{sid(s)}", [uniform(-3, 3)], [s], np.sinc) for s in SHAPES]
    + [pytest.param(p.values[1], (lambda p: lambda: test_layout.draw(p.values[2], "forward", p.id))(p),
                    id=f"layout-{p.id}", marks=p.marks) for p in test_layout.ALL]
)


def _flat(f):
    """``f`` with its parts (a split's pieces, a factorization's factors) raveled into one vector."""
    def flat(*xs):
        out = f(*xs)
        if not isinstance(out, (list, tuple)):
            return out
        return np.concatenate([np.ravel(p) for p in out]) if out else np.zeros(0)
    return flat


def jacobian_forward(f, arrays):
    """Each input's Jacobian, ``out.shape + input.shape``, a column per basis tangent (JVPs)."""
    shape = np.shape(f(*arrays))
    jacobians = []
    for i, a in enumerate(arrays):
        columns = []
        for k in range(a.size):
            tangents = [np.zeros_like(b) for b in arrays]
            tangents[i].flat[k] = 1.0
            columns.append(np.asarray(gm.jvp(f, tuple(arrays), tuple(tangents))[1]))
        jacobians.append(np.stack(columns, -1).reshape(shape + a.shape) if columns
                         else np.zeros(shape + a.shape))
    return jacobians


def jacobian_reverse(f, arrays):
    """Each input's Jacobian, a row per basis cotangent (VJPs from one persistent tape)."""
    xs = [gm.constant(a) for a in arrays]
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = f(*xs)
    if not isinstance(y, gm.Tensor):  # not connected to any input
        return [np.zeros(np.shape(y) + a.shape) for a in arrays]
    rows = []
    for k in range(y.size):
        cotangent = np.zeros(y.size)
        cotangent[k] = 1.0
        rows.append([g.numpy() for g in tape.gradient(y, xs, output_gradients=cotangent.reshape(y.shape),
                                                       unconnected_gradients="zero")])
    return [np.stack([r[i] for r in rows]).reshape(y.shape + a.shape) if rows
            else np.zeros(y.shape + a.shape) for i, a in enumerate(arrays)]


@pytest.mark.parametrize("fn, make", SUITE)
def test_jacfwd_equals_jacrev(fn, make):
    arrays, f = make(), _flat(fn)
    for forward, reverse in zip(jacobian_forward(f, arrays), jacobian_reverse(f, arrays)):
        assert forward.shape == reverse.shape
        np.testing.assert_allclose(forward, reverse, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn, make", SUITE)
def test_jvp_matches_finite_differences(fn, make):
    arrays, f = make(), _flat(fn)
    rng = rng_for("forward-direction", len(arrays), *[a.shape for a in arrays])
    directions = [rng.standard_normal(a.shape) for a in arrays]
    y, t = gm.jvp(f, tuple(arrays), tuple(directions))
    np.testing.assert_allclose(y, f(*arrays), rtol=1e-12, atol=1e-14)
    h = 1e-6
    ahead = f(*[a + h * d for a, d in zip(arrays, directions)])
    behind = f(*[a - h * d for a, d in zip(arrays, directions)])
    np.testing.assert_allclose(t, (np.asarray(ahead) - np.asarray(behind)) / (2 * h), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, domains, shapes, fn", [pytest.param(*c, id=c[0]) for c in test_ops.FLOAT32])
def test_float32_stays_float32_and_agrees_with_float64(name, domains, shapes, fn):
    arrays = [a.astype(np.float32) for a in test_ops.draw(domains, shapes, "forward32", name)]
    rng = rng_for("forward32-direction", name)
    tangents = [rng.standard_normal(a.shape).astype(np.float32) for a in arrays]
    y32, t32 = gm.jvp(fn, tuple(arrays), tuple(tangents))
    y64, t64 = gm.jvp(fn, tuple(a.astype(np.float64) for a in arrays),
                      tuple(t.astype(np.float64) for t in tangents))
    assert np.asarray(y32).dtype == np.float32 and np.asarray(t32).dtype == np.float32
    np.testing.assert_allclose(t32, t64, rtol=1e-4, atol=1e-4)


# NumPy masks among the arrays (a host array meeting a device one is refused) and einsum (which
# array_api_strict lacks) stay on NumPy
PORTABLE = [pytest.param(*c, id=c[0]) for c in test_ops.SECOND_ORDER
            if c[0] not in ("einsum", "getitem-mask", "where")]


@pytest.mark.parametrize("module", OTHER_MODULES)
@pytest.mark.parametrize("name, domains, shapes, fn", PORTABLE)
def test_runs_on_another_array_module(module, name, domains, shapes, fn):
    xp = module_or_skip(module)
    arrays = test_ops.draw(domains, shapes, "forward-module", name)
    rng = rng_for("forward-module-direction", name)
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    y, t = gm.jvp(fn, tuple(xp.asarray(a) for a in arrays), tuple(xp.asarray(v) for v in tangents))
    want_y, want_t = gm.jvp(fn, tuple(arrays), tuple(tangents))
    for got, want in ((y, want_y), (t, want_t)):
        assert type(got).__module__.startswith(module)
        np.testing.assert_allclose(gm.Tensor(got).numpy(), want, rtol=1e-12, atol=1e-12)


# -- the functional form ---------------------------------------------------------------------------
def test_jvp_of_sin_is_cos_times_the_tangent():
    x, t = np.array([0.0, 0.5, 2.0]), np.array([1.0, -2.0, 0.5])
    y, ty = gm.jvp(np.sin, (x,), (t,))
    np.testing.assert_array_equal(y, np.sin(x))
    np.testing.assert_allclose(ty, np.cos(x) * t, rtol=1e-15)


def test_arrays_in_give_arrays_out_and_tensors_in_give_tensors():
    y, t = gm.jvp(lambda x: x * 3.0, (np.array([1.0, 2.0]),), (np.array([1.0, 1.0]),))
    assert type(y) is np.ndarray and type(t) is np.ndarray and t.tolist() == [3.0, 3.0]
    x = gm.constant(np.array([1.0, 2.0]))
    y, t = gm.jvp(lambda x: x * 3.0, (x,), (np.array([1.0, 0.0]),))
    assert isinstance(y, gm.Tensor) and isinstance(t, gm.Tensor) and t.numpy().tolist() == [3.0, 0.0]


def test_python_numbers_are_float64_and_a_number_is_a_scalars_tangent():
    y, t = gm.jvp(lambda x: x ** 3, (2.0,), (1.0,))
    assert np.asarray(t).dtype == np.float64 and float(y) == 8.0 and float(t) == 12.0


def test_primals_tangents_and_outputs_may_be_nests():
    params = {"w": np.array([1.0, 2.0]), "b": np.array(0.5)}
    tangents = {"w": np.array([1.0, 0.0]), "b": np.array(2.0)}

    def model(p, xs):
        first = np.sum(p["w"] * xs[0]) + p["b"]
        return {"first": first, "both": (first * xs[1], p["w"])}

    xs = [np.array([3.0, 4.0]), np.array(5.0)]
    out, tan = gm.jvp(model, (params, xs), (tangents, [np.zeros(2), np.array(1.0)]))
    assert float(out["first"]) == 11.5 and float(tan["first"]) == 3.0 + 2.0
    assert float(tan["both"][0]) == 5.0 * 5.0 + 11.5 * 1.0
    assert tan["both"][1].tolist() == [1.0, 0.0] and set(tan) == {"first", "both"}


def test_an_output_that_does_not_depend_on_the_primals_has_a_zero_tangent():
    c = gm.constant(np.array([1.0, 2.0]))
    (y, k, n), (ty, tk, tn) = gm.jvp(lambda x: (x * 2.0, c * 3.0, np.ones(2)), (np.array(1.0),),
                                     (np.array(1.0),))
    assert float(ty) == 2.0 and tk.tolist() == [0.0, 0.0] and tn.tolist() == [0.0, 0.0]


def test_the_same_tensor_given_twice_gets_each_its_own_tangent():
    x = gm.constant(np.float64(1.5))
    _, t = gm.jvp(lambda a, b: 2.0 * a + 3.0 * b, (x, x), (1.0, 10.0))
    assert float(t) == 32.0


def test_the_tangent_of_the_identity_is_the_tangent():
    t = np.array([3.0, -1.0])
    assert gm.jvp(lambda x: x, (np.zeros(2),), (t,))[1].tolist() == [3.0, -1.0]


def test_a_broadcast_input_gets_the_tangent_of_each_use():
    a, b = np.array([1.0, 2.0]), np.array([[1.0], [2.0], [3.0]])
    _, t = gm.jvp(lambda a, b: a * b, (a, b), (np.ones(2), np.array([[1.0], [0.0], [0.0]])))
    assert t.tolist() == [[2.0, 3.0], [2.0, 2.0], [3.0, 3.0]]  # what TensorFlow 2.21 gives too


# -- errors: the function, the argument, what was expected, what was got ---------------------------
def f(x):
    return x * 2.0


@pytest.mark.parametrize("primals, tangents, error, match", [
    pytest.param(np.ones(2), (np.ones(2),), GradientTypeError,
                 r"jvp\(f\): primals must be a tuple or list .* got ndarray; write jvp\(f, \(x,\), \(t,\)\)",
                 id="primals-not-a-tuple"),
    pytest.param((np.ones(2),), (np.ones(2), np.ones(2)), GradientValueError,
                 r"jvp\(f\): tangents must have the structure of primals: expected \[\*\], got \[\*, \*\]",
                 id="structure"),
    pytest.param((np.ones(2),), (np.ones(3),), GradientValueError,
                 r"jvp\(f\): tangents\[0\] has shape \(3,\), expected \(2,\) \(the shape of primals\[0\]\)",
                 id="shape"),
    pytest.param((np.ones(2),), (np.ones(2, dtype=np.float32),), GradientValueError,
                 r"jvp\(f\): tangents\[0\] has dtype float32, expected float64 \(the dtype of primals\[0\]\)",
                 id="dtype"),
    pytest.param((np.array([1, 2]),), (np.array([1, 1]),), GradientTypeError,
                 r"jvp\(f\): primals\[0\] has dtype int64; forward mode needs real floating primals",
                 id="integer-primal"),
    pytest.param(({"w": np.ones(2)},), ({"w": "up"},), GradientTypeError,
                 r"jvp\(f\): tangents\[0\]\['w'\] must be an array or Tensor like primals\[0\]\['w'\] "
                 r"\(shape \(2,\), dtype float64\), got str", id="not-an-array"),
    pytest.param((np.ones(2),), (1.0,), GradientTypeError,
                 r"tangents\[0\] must be an array or Tensor like primals\[0\] \(shape \(2,\)", id="number-for-array"),
])
def test_bad_primals_and_tangents_are_named(primals, tangents, error, match):
    with pytest.raises(error, match=match):
        gm.jvp(f, primals, tangents)


def test_a_function_that_returns_no_array_is_named():
    with pytest.raises(GradientTypeError, match=r"jvp\(<lambda>\): <lambda> must return arrays or "
                                                r"Tensors .* got str at output\[1\]"):
        gm.jvp(lambda x: (x, "done"), (np.ones(2),), (np.ones(2),))


def test_a_complex_value_made_from_tangents_is_refused():
    with pytest.raises(GradientTypeError, match=r"forward mode through add: it made a complex value "
                                                r"\(complex128\) from inputs that have tangents"):
        gm.jvp(lambda x: x + 1j, (np.ones(2),), (np.ones(2),))


# -- higher order: forward over forward, reverse over forward, forward over reverse ----------------
def _hessian_vector(fn, x, v):
    """``H v`` by reverse over reverse."""
    return gm.grad(lambda x: np.sum(gm.grad(fn)(x) * v))(x)


def loss(x):
    return np.sum(np.tanh(x) ** 3 * np.exp(x[::-1]))


X = np.array([0.3, -0.7, 1.1])
V = np.array([1.0, 0.5, -2.0])


def test_forward_over_forward_gives_the_second_directional_derivative():
    def first(x):
        return gm.jvp(loss, (x,), (V,))[1]
    _, second = gm.jvp(first, (X,), (V,))
    np.testing.assert_allclose(second, V @ _hessian_vector(loss, X, V), rtol=1e-12)


def test_reverse_over_forward_gives_a_hessian_vector_product():
    got = gm.grad(lambda x: gm.jvp(loss, (x,), (V,))[1])(X)
    np.testing.assert_allclose(got, _hessian_vector(loss, X, V), rtol=1e-12)


def test_forward_over_reverse_gives_a_hessian_vector_product():
    _, got = gm.jvp(gm.grad(loss), (X,), (V,))
    np.testing.assert_allclose(got, _hessian_vector(loss, X, V), rtol=1e-12)


# -- custom gradients --------------------------------------------------------------------------------
def test_forward_mode_uses_the_custom_gradient_as_reverse_mode_does():
    @gm.custom_gradient
    def ten(x):
        return x ** 2, lambda upstream: upstream * 10.0
    assert float(gm.jvp(ten, (2.0,), (1.0,))[1]) == 10.0
    assert float(gm.grad(ten)(2.0)) == 10.0


def test_a_stable_custom_gradient_keeps_forward_mode_finite():
    @gm.custom_gradient
    def log1pexp(x):
        e = np.exp(x)
        return np.log(1 + e), lambda upstream: upstream * (1 - 1 / (1 + e))
    x = np.array([100.0], dtype=np.float32)
    with np.errstate(over="ignore"):
        _, t = gm.jvp(log1pexp, (x,), (np.ones(1, np.float32),))
        _, naive = gm.jvp(lambda x: np.log(1 + np.exp(x)), (x,), (np.ones(1, np.float32),))
    assert t.tolist() == [1.0] and np.isnan(naive).all()


@gm.custom_gradient
def polar(r, theta):
    x, y = r * np.cos(theta), r * np.sin(theta)

    def grad_fn(dx, dy):
        return (dx * np.cos(theta) + dy * np.sin(theta),
                -dx * r * np.sin(theta) + dy * r * np.cos(theta))
    return (x, y), grad_fn


@gm.custom_gradient
def weighted_sum(xs, w):
    def grad_fn(upstream):
        return [upstream * w[0], upstream * w[1]], upstream * np.stack([xs[0], xs[1]])
    return xs[0] * w[0] + xs[1] * w[1], grad_fn


CUSTOM = [
    pytest.param(lambda r, t: np.stack(polar(r, t)), [np.array([1.5, 2.0]), np.array([0.3, -1.2])],
                 id="two-inputs-two-outputs"),
    pytest.param(lambda a, b, w: weighted_sum([a, b], w), [np.array(1.5), np.array(-0.5), np.array([2.0, 3.0])],
                 id="a-list-argument"),
    pytest.param(test_pitfalls.cube_fused, [np.array([0.5, -1.5])], id="nested-fused"),
    pytest.param(lambda x: gm.sigmoid(x) * gm.softplus(x), [np.array([-3.0, 0.0, 4.0])], id="stable-helpers"),
]


@pytest.mark.parametrize("fn, arrays", CUSTOM)
def test_custom_gradients_jacfwd_equals_jacrev(fn, arrays):
    for forward, reverse in zip(jacobian_forward(fn, arrays), jacobian_reverse(fn, arrays)):
        np.testing.assert_allclose(forward, reverse, rtol=1e-12, atol=1e-14)


def test_a_custom_function_reading_a_variable_passes_it_to_grad_fn():
    v = gm.Variable(np.float64(3.0))
    seen = []

    @gm.custom_gradient
    def scale(x):
        def grad_fn(upstream, variables=None):
            seen.append([w.name for w in variables])
            return upstream * v, [upstream * x]
        return x * v, grad_fn
    assert float(gm.jvp(scale, (2.0,), (1.0,))[1]) == 3.0 and seen == [["Variable"]]


def nested_cube(grad_grad):
    """The documentation's nested pattern: a decorated grad_fn with its own grad_grad_fn."""
    calls = []

    @gm.custom_gradient
    def cube(x):
        @gm.custom_gradient
        def grad_fn(dy):
            def grad_grad_fn(ddy):
                calls.append(float(ddy))
                return grad_grad(ddy, x)
            return dy * 3 * x ** 2, grad_grad_fn
        return x ** 3, grad_fn
    return cube, calls


def test_a_nested_custom_gradient_gives_its_tangent_through_grad_grad_fn():
    cube, calls = nested_cube(lambda ddy, x: ddy * 3 * x ** 2)
    assert float(gm.jvp(cube, (2.0,), (0.5,))[1]) == 6.0 and calls == [0.5]
    assert float(gm.grad(cube)(2.0)) == 12.0  # reverse mode agrees: grad_grad_fn is grad_fn's transpose


def test_it_is_grad_grad_fn_that_decides_the_tangent():
    cube, calls = nested_cube(lambda ddy, x: ddy * 100.0)  # not grad_fn's transpose, on purpose
    assert float(gm.jvp(cube, (2.0,), (1.0,))[1]) == 100.0 and calls == [1.0]


def test_a_grad_grad_fn_that_ignores_its_ddy_has_no_tangent_and_says_so():
    cube, _ = nested_cube(lambda ddy, x: 3 * x ** 2)
    with pytest.raises(GradientValueError, match=r"forward mode through grad_fn: it is a custom-gradient "
                                                 r"function whose grad_grad_fn returned a gradient for "
                                                 r"input 0 \('dy'\) that does not depend on its upstream ddy"):
        gm.jvp(cube, (2.0,), (1.0,))


def test_a_grad_fn_that_ignores_its_upstream_has_no_tangent_and_says_so():
    @gm.custom_gradient
    def square(x):
        return x ** 2, lambda upstream: 2 * x
    with pytest.raises(GradientValueError, match=r"forward mode through square: its grad_fn returned a "
                                                 r"gradient for input 0 \('x'\) that does not depend on its upstream"):
        gm.jvp(square, (2.0,), (1.0,))


def test_a_grad_fn_that_computes_on_numpy_copies_has_no_tangent_and_says_so():
    @gm.custom_gradient
    def square(x):
        return x ** 2, lambda upstream: np.asarray(upstream.numpy()) * 2 * x.numpy()
    with pytest.raises(GradientValueError, match=r"square: .* input 0 \('x'\) .*no \.numpy\(\) copies"):
        gm.jvp(square, (np.array([2.0]),), (np.array([1.0]),))


def test_a_grad_fn_giving_none_or_zeros_gives_a_zero_tangent():
    @gm.custom_gradient
    def pair(x, y):
        return x * y, lambda upstream: (None, np.zeros_like(upstream))
    assert float(gm.jvp(pair, (2.0, 3.0), (1.0, 1.0))[1]) == 0.0


# -- tf.autodiff.ForwardAccumulator, against TensorFlow 2.21 -------------------------------------
# Each number below is what the same program printed with `import tensorflow as tf` on
# TensorFlow 2.21.0 (CPU, eager): `tf.autodiff.ForwardAccumulator` there, gradmagic.tf's here.
Acc = tf.autodiff.ForwardAccumulator


def test_the_documentations_forward_over_backward_hessian_vector_product():
    v = tf.Variable([1., 2.])
    with Acc(v, tf.constant([1., 0.])) as acc:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v ** 3.)
        backward = tape.gradient(y, v)
    assert backward.numpy().tolist() == [3.0, 12.0]  # TF 2.21: [ 3., 12.]
    assert acc.jvp(backward).numpy().tolist() == [6.0, 0.0]  # TF 2.21: [6., 0.]


def test_the_documentations_nested_accumulators():
    primal = tf.constant(1.1)
    with Acc(primal, tf.constant(1.)) as outer:
        with Acc(primal, tf.constant(1.)) as inner:
            primal_out = primal ** tf.constant(3.5)
    inner_jvp = inner.jvp(primal_out)
    assert inner_jvp.dtype == np.float32
    assert float(inner_jvp) == pytest.approx(4.4417057, rel=1e-6)  # TF 2.21: 4.4417057
    assert float(outer.jvp(inner_jvp)) == pytest.approx(10.094786, rel=1e-6)  # TF 2.21: 10.094786
    assert inner.jvp(outer.jvp(primal_out)) is None  # "will not work": TF 2.21 gives None


def test_forward_columns_equal_the_gradient_as_the_documentation_shows():
    x = tf.constant([[2.0, 3.0], [1.0, 4.0]])
    targets = tf.constant([[1.], [-1.]])
    kernel, bias = tf.Variable([[0.5], [-0.25]]), tf.Variable([0.1])

    def loss_fn():
        return tf.reduce_sum((tf.matmul(x, kernel) + bias - targets) ** 2.)
    kernel_fprop = []
    for column in ([[1.], [0.]], [[0.], [1.]]):
        with Acc(kernel, tf.constant(column)) as acc:
            kernel_fprop.append(float(acc.jvp(loss_fn())))
    with Acc(bias, tf.constant([1.])) as acc:
        bias_fprop = float(acc.jvp(loss_fn()))
    with tf.GradientTape() as tape:
        loss = loss_fn()
    kernel_grad, bias_grad = tape.gradient(loss, (kernel, bias))
    np.testing.assert_allclose(kernel_grad.numpy().ravel(), kernel_fprop, rtol=1e-6)
    np.testing.assert_allclose(bias_grad.numpy(), [bias_fprop], rtol=1e-6)


def _connected(body_stopped):
    calls = []

    @tf.custom_gradient
    def f(x):
        def grad(dy):
            calls.append(float(dy))
            return dy * 10.0
        y = x ** 2
        return (tf.stop_gradient(y) if body_stopped else y), grad
    x = tf.constant(2.0)
    with Acc(x, tf.constant(1.0)) as acc:
        y = f(x)
    return float(acc.jvp(y)), calls


def test_tensorflow_keeps_the_tangent_of_a_connected_body_but_calls_grad_fn():
    assert _connected(body_stopped=False) == (4.0, [1.0])  # TF 2.21: 4.0; grad called with 1.0


def test_tensorflow_uses_grad_fn_where_the_body_is_not_connected():
    assert _connected(body_stopped=True) == (10.0, [1.0])  # TF 2.21: 10.0


def _nested(body_stopped):
    calls = []
    x = tf.constant(2.0)

    @tf.custom_gradient
    def cube(x):
        @tf.custom_gradient
        def grad_fn(dy):
            calls.append(("grad_fn", float(dy)))

            def grad_grad_fn(ddy):
                calls.append(("grad_grad_fn", float(ddy)))
                return ddy * 100.0
            return dy * 3 * x ** 2, grad_grad_fn
        return (tf.stop_gradient(x ** 3) if body_stopped else x ** 3), grad_fn
    return cube, x, calls


@pytest.mark.parametrize("body_stopped, expected", [(False, 12.0), (True, 100.0)], ids=["connected", "stopped"])
def test_a_nested_custom_gradient_consults_grad_grad_fn_where_tensorflow_does(body_stopped, expected):
    cube, x, calls = _nested(body_stopped)
    with Acc(x, tf.constant(1.0)) as acc:
        y = cube(x)
    # TF 2.21: 12.0 (the body's tangent kept), 100.0 (grad_grad_fn's); grad_grad_fn called with 1.0
    assert float(acc.jvp(y)) == expected
    assert calls == [("grad_fn", 1.0), ("grad_grad_fn", 1.0)]


def test_forward_over_backward_through_a_nested_custom_gradient_gives_the_true_second_derivative():
    cube, x, calls = _nested(body_stopped=False)
    with Acc(x, tf.constant(1.0)) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = cube(x)
        g = tape.gradient(y, x, output_gradients=x * 1.0)
    assert (float(g), float(acc.jvp(g))) == (24.0, 36.0)  # TF 2.21: 24.0, 36.0
    assert calls == [("grad_fn", 1.0), ("grad_grad_fn", 1.0), ("grad_fn", 2.0), ("grad_grad_fn", 1.0)]


def test_a_custom_function_with_two_outputs_and_one_reading_a_watched_variable():
    @tf.custom_gradient
    def two(x):
        return (tf.stop_gradient(x * 2), tf.stop_gradient(x * 3)), lambda d1, d2: d1 * 5.0 + d2 * 7.0
    v = tf.Variable(3.0)

    @tf.custom_gradient
    def scaled(x):
        return tf.stop_gradient(x * v), lambda dy, variables=None: (dy * 7.0, [dy * 11.0])
    a = tf.constant(1.0)
    with Acc(a, tf.constant(1.0)) as acc:
        y1, y2 = two(a)
    with Acc(v, tf.constant(1.0)) as acc_v:
        z = scaled(a)
    assert [float(t) for t in acc.jvp([y1, y2])] == [5.0, 7.0]  # TF 2.21: [5.0, 7.0]
    assert float(acc_v.jvp(z)) == 11.0  # TF 2.21: 11.0


def test_what_has_no_tangent_gives_none_or_zeros():
    a = tf.constant(1.0)
    before = a * 3.0
    with Acc(a, tf.constant(1.0)) as acc:
        y = a * 2
        after_before = before * 2.0
        integer = tf.cast(a, tf.int32)
    assert acc.jvp([y, tf.constant(3.0)])[1] is None  # TF 2.21: [2.0, None]
    zeros = acc.jvp([y, tf.constant([3.0, 4.0])], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(zeros[0]) == 2.0 and zeros[1].numpy().tolist() == [0.0, 0.0]
    assert acc.jvp(before) is None and acc.jvp(after_before) is None and acc.jvp(integer) is None
    ints = acc.jvp(tf.constant([1, 2]), unconnected_gradients="zero")
    assert ints.dtype == np.int32 and ints.numpy().tolist() == [0, 0]  # TF 2.21: int32 [0 0]
    assert float(acc.jvp(a)) == 1.0  # a watched primal: its own tangent


def test_jvp_keeps_the_structure_and_works_inside_the_block():
    a, b = tf.constant(1.0), tf.constant(2.0)
    with Acc([a, b], [tf.constant(1.0), tf.constant(0.0)]) as acc:
        y, z = a * b, a + b
        inside = acc.jvp(y)
        w = y * 2
    assert float(inside) == 2.0 and float(acc.jvp(w)) == 4.0
    assert [float(t) for t in acc.jvp([y, z])] == [2.0, 1.0]  # TF 2.21: [2.0, 1.0]
    by_key = acc.jvp({"y": y, "q": z})
    assert list(by_key) == ["y", "q"] and float(by_key["q"]) == 1.0  # TF 2.21: {'y': 2.0, 'q': 1.0}
    assert isinstance(acc.jvp((y, a)), tuple)


def test_an_accumulator_can_be_entered_again_after_its_block_and_watch_adds_tangents():
    a = tf.constant(1.0)
    acc = Acc(a, tf.constant(1.0))
    with acc:
        pass
    with acc:
        y = a * 3.0
    assert float(acc.jvp(y)) == 3.0  # TF 2.21: 3.0
    acc.watch(a, tf.constant(5.0))
    with acc:
        z = a * 3.0
        with pytest.raises(TapeReentryError, match="already active"):
            acc.__enter__()
    assert float(acc.jvp(z)) == 18.0  # TF 2.21 (acc._watch): 18.0, the tangents summed


def test_tapes_and_accumulators_nest_strictly():
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:  # a tape outside sees the accumulator's work
        tape.watch(x)
        with Acc(x, tf.constant(1.0)) as acc:
            y = x ** 3
        j = acc.jvp(y)
    assert (float(j), float(tape.gradient(j, x))) == (12.0, 12.0)  # TF 2.21: 12.0, 12.0
    with Acc(x, tf.constant(1.0)) as acc:  # a tape inside does not
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x ** 3
            j = acc.jvp(y)
    assert tape.gradient(j, x) is None  # TF 2.21: None
    t = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(t)
        with Acc(x, t) as acc:
            y = x ** 3
        j = acc.jvp(y)
    assert float(tape.gradient(j, t)) == 12.0  # TF 2.21: 12.0


@pytest.mark.parametrize("make, error, match", [
    pytest.param(lambda a: Acc(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0], dtype=tf.float64)),
                 GradientValueError, r"ForwardAccumulator\(primals, tangents\): tangents has dtype "
                 r"float64, expected float32", id="dtype"),  # TF 2.21: ValueError
    pytest.param(lambda a: Acc([a, tf.constant(2.0)], [tf.constant(1.0)]), GradientValueError,
                 r"tangents must have the structure of primals: expected \[\*, \*\], got \[\*\]",
                 id="structure"),  # TF 2.21: ValueError
    pytest.param(lambda a: Acc([a, a], [a, a]), GradientValueError,
                 r"a Tensor was given as a primal twice", id="twice"),  # TF 2.21: ValueError
    pytest.param(lambda a: Acc(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])), GradientValueError,
                 r"tangents has shape \(3,\), expected \(2,\)", id="shape"),  # TF 2.21 accepts it
    pytest.param(lambda a: Acc(tf.constant([1, 2]), tf.constant([1, 1])), GradientTypeError,
                 r"primals has dtype int32; forward mode needs real floating primals",
                 id="integer"),  # TF 2.21 accepts it, and gives no tangent through integer values
    pytest.param(lambda a: Acc(a, tf.constant(1.0)).jvp(3.0), GradientTypeError,
                 r"ForwardAccumulator.jvp\(primals\): expected a Tensor .* got float 3.0",
                 id="jvp-of-a-number"),  # TF 2.21: AttributeError
    pytest.param(lambda a: Acc(np.ones(2), np.ones(2)), GradientTypeError,
                 r"primals must be a Tensor or Variable, got ndarray", id="numpy-primal"),
])
def test_accumulator_errors_name_the_argument(make, error, match):
    with pytest.raises(error, match=match):
        make(tf.constant(1.0))


def test_tensorflow_ignores_a_grad_fn_that_drops_its_upstream_where_the_body_is_connected():
    @tf.custom_gradient
    def bad(x):
        return x ** 2, lambda dy: 2 * x
    x = tf.constant(2.0)
    with Acc(x, tf.constant(1.0)) as acc:
        y = bad(x)
    assert float(acc.jvp(y)) == 4.0  # TF 2.21: 4.0
    with pytest.raises(GradientValueError, match="does not depend on its upstream"):
        gm.jvp(bad, (x,), (1.0,))  # gradmagic's own forward mode uses grad_fn, so it must say


# -- the trace's forward-mode pass ---------------------------------------------------------------
def _jvp_trace(fn, x, **options):
    with gm.trace(**options) as tr:
        gm.jvp(fn, (x,), (np.ones_like(x.value),))
    return tr


def test_the_trace_shows_a_forward_mode_pass_as_its_own_section():
    x = gm.constant(np.float64(0.5))
    tr = _jvp_trace(lambda x: np.sin(x) * np.cos(x), x)
    rows = [r for r in tr.to_rows() if r["section"] == "forward-mode"]
    assert [(r["node"], r["x"], r["upstream"], r["local"], r["downstream"]) for r in rows] == [
        ("sin", "x=0.5", "x=1", "0.8776", "0.8776"),
        ("cos", "x=0.5", "x=1", "-0.4794", "-0.4794"),
        ("multiply", "sin(x)=0.4794, cos(x)=0.8776", "sin(x)=0.8776, cos(x)=-0.4794",
         "sin(x)=0.8776, cos(x)=0.4794", "0.5403")]
    text = str(tr)
    assert text.startswith("gradmagic trace: 3 forward, 3 forward-mode, 0 backward rows")
    assert re.search(r"\nforward-mode pass\n  #  node +x +tangent in +local +tangent out\n", text)
    assert repr(tr) == "<gradmagic Trace: 3 forward, 3 forward-mode, 0 backward rows>"


def test_a_reverse_mode_trace_has_no_forward_mode_section():
    x = gm.constant(2.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x ** 2
        tape.gradient(y, x)
    assert "forward-mode" not in str(tr) + tr._repr_html_() and tr.forward_mode == []


def test_the_nested_examples_row_says_grad_grad_fn_gave_the_tangent():
    cube, calls = nested_cube(lambda ddy, x: ddy * 3 * x ** 2)
    tr = _jvp_trace(cube, gm.constant(np.float64(2.0)))
    (row,) = tr.forward_mode
    assert (row.node, row.kind, row.cells()["local"], row.cells()["downstream"]) == ("cube", "function", "12", "12")
    assert "grad_fn is itself a custom-gradient function" in row.note and "grad_grad_fn" in row.note
    assert calls == [1.0]


def test_ops_inside_a_custom_function_fold_into_its_row_unless_ops_is_set():
    x = gm.constant(np.float64(2.0))
    cube, _ = nested_cube(lambda ddy, x: ddy * 3 * x ** 2)
    assert [r.node for r in _jvp_trace(cube, x).forward_mode] == ["cube"]
    rows = _jvp_trace(cube, x, ops=True).forward_mode
    assert [(r.node, r.context) for r in rows] == [("power", "cube"), ("cube", "")]


def test_tensorflows_kept_body_tangent_is_said_in_the_row():
    cube, x, _ = _nested(body_stopped=False)
    with gm.trace() as tr:
        with Acc(x, tf.constant(1.0)):
            cube(x)
    (row,) = tr.forward_mode
    assert "as TensorFlow, the tangent out is the one cube's own ops gave" in row.note


def test_forward_over_reverse_steps_are_under_the_backward_passs_heading():
    x = gm.constant(np.array([0.5, 1.5]))
    with gm.trace() as tr:
        gm.jvp(gm.grad(lambda x: np.sum(x ** 3)), (x,), (np.ones(2),))
    assert [r.node for r in tr.forward_mode if r.level == 0] == ["power", "sum"]  # the forward code
    assert {r.level for r in tr.forward_mode} == {0, 1}  # and the rules of its backward pass
    assert "\nforward-mode pass\n" in str(tr) and "\nforward-mode pass · ops of the first-order pass\n" in str(tr)


def test_the_html_has_a_forward_mode_table_and_renders_the_same_twice():
    def run():
        return _jvp_trace(lambda x: np.tanh(x) * 2.0, gm.constant(np.array([0.5, 1.5])))._repr_html_()
    html = run()
    assert 'class="gm-t gm-forward-mode"' in html and ">forward-mode pass</caption>" in html
    assert "tangent out</th>" in html and html == run()


def test_the_plot_names_the_forward_mode_pass_and_shows_the_tangents():
    from matplotlib.text import Text
    fig = _jvp_trace(lambda x: np.sin(x) * 3.0, gm.constant(np.float64(0.5))).plot()
    shown = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    assert any(s.startswith("forward-mode pass") for s in shown)
    assert "tangent 1" in shown and "→ 0.8776" in shown


def test_a_dialect_can_give_an_output_its_own_rules_tangent():
    from gradmagic.core.forward import accumulators

    def f(x):
        y = x * 2.0
        for acc in accumulators():  # as a custom_jvp rule would: the tangent is 5 t, not 2 t
            if acc.tangent(x) is not None:
                acc.set_tangent(y, acc.tangent(x) * 5.0)
        return y
    assert float(gm.jvp(f, (1.0,), (1.0,))[1]) == 5.0
