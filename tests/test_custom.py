"""custom_gradient: TensorFlow's semantics, the seed documents' examples, and the
stricter checks."""

import sys

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf


def grad_of(f, *xs, **kw):
    xs = [gm.constant(x) for x in xs]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return y, tape.gradient(y, xs, **kw)


# -- the seed documents ---------------------------------------------------------------
def naive_log1pexp(x):
    return tf.math.log(1 + tf.exp(x))


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad


def test_log1pexp_naive_is_inf_and_nan_at_100_float32():
    x = tf.constant(100.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = naive_log1pexp(x)
    dy_dx = tape.gradient(y, x)
    assert x.dtype == np.float32 and y.dtype == np.float32
    assert np.isinf(float(y)) and np.isnan(float(dy_dx))


def test_log1pexp_custom_gradient_is_one_at_100():
    x = tf.constant(100.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    dy_dx = tape.gradient(y, x)
    assert np.isinf(float(y))  # as in TensorFlow: only the gradient is fixed
    assert float(dy_dx) == 1.0 and dy_dx.dtype == np.float32


def test_log1pexp_custom_gradient_matches_the_derivative_where_both_are_finite():
    for v in (-3.0, 0.0, 2.5):
        _, (g,) = grad_of(log1pexp, np.float64(v))
        assert float(g) == pytest.approx(1 / (1 + np.exp(-v)), rel=1e-12)


@tf.custom_gradient
def bar(x, y):
    def grad(upstream):
        dz_dx = y
        dz_dy = x
        return upstream * dz_dx, upstream * dz_dy
    z = x * y
    return z, grad


def test_bar_several_inputs_persistent_tape():
    x = tf.constant(2.0, dtype=tf.float32)
    y = tf.constant(3.0, dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = bar(x, y)
    assert repr(z) == "<gm.Tensor: shape=(), dtype=float32, numpy=6.0>"
    assert repr(tape.gradient(z, x)) == "<gm.Tensor: shape=(), dtype=float32, numpy=3.0>"
    assert repr(tape.gradient(z, y)) == "<gm.Tensor: shape=(), dtype=float32, numpy=2.0>"


def test_undecorated_pair_as_target_says_to_decorate():
    def bar_plain(x, y):
        return x * y, lambda upstream: (upstream * y, upstream * x)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = bar_plain(x, x)
    with pytest.raises(TypeError, match="custom_gradient"):
        tape.gradient(z, x)


def make_foo(multiply_upstream=True):
    @tf.custom_gradient
    def foo(x):
        tf.debugging.assert_rank(x, 0)

        def grad(dy_dx_upstream):
            dy_dx = 2 * x
            dy_dx_downstream = dy_dx * dy_dx_upstream if multiply_upstream else dy_dx
            tf.print(f'x={x}\tupstream={dy_dx_upstream}\tcurrent={dy_dx}\t\tdownstream={dy_dx_downstream}')
            return dy_dx_downstream

        y = x ** 2
        tf.print(f'x={x}\ty={y}')
        return y, grad
    return foo


SEED_ANSWER = (
    "x=2.0\ty=4.0\n"
    "x=4.0\ty=16.0\n"
    "x=16.0\ty=256.0\n"
    "x=16.0\tupstream=1.0\tcurrent=32.0\t\tdownstream=32.0\n"
    "x=4.0\tupstream=32.0\tcurrent=8.0\t\tdownstream=256.0\n"
    "x=2.0\tupstream=256.0\tcurrent=4.0\t\tdownstream=1024.0\n"
    "\n"
    "final dy/dx=1024.0\n")


def test_foo_chain_prints_the_answer_of_the_fourth_seed(capsys):
    foo = make_foo()
    x = tf.constant(2.0, dtype=tf.float32)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = foo(foo(foo(x)))  # y = x ** 8
    tf.print(f'\nfinal dy/dx={tape.gradient(y, x)}')
    out = capsys.readouterr()
    assert out.err == SEED_ANSWER and out.out == ""


def test_foo_chain_forgetting_upstream_gives_4(capsys):
    foo = make_foo(multiply_upstream=False)
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = foo(foo(foo(x)))
    assert float(y) == 256.0
    assert float(tape.gradient(y, x)) == 4.0  # only the innermost 2x: the chain is cut


def test_tf_print_to_stdout(capsys):
    tf.print("a", tf.constant(2.0), output_stream=sys.stdout)
    assert capsys.readouterr().out == "a 2.0\n"


# -- decorator forms and calls ----------------------------------------------------------
def test_decorator_with_parentheses():
    @gm.custom_gradient()
    def cube(x):
        return x ** 3, lambda up: up * 3 * x ** 2
    _, (g,) = grad_of(cube, np.float64(2.0))
    assert float(g) == 12.0


def test_decorator_on_a_method_does_not_count_self():
    class Scale:
        def __init__(self, k):
            self.k = k

        @gm.custom_gradient
        def apply(self, x):
            return x * self.k, lambda up: up * self.k

    s = Scale(5.0)
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(s.apply(x))
    assert tape.gradient(y, x).tolist() == [5.0, 5.0]


def test_keyword_arguments_are_hyper_parameters_as_in_tensorflow():
    @gm.custom_gradient
    def grad_multiply(x, scale=1.0):
        return x, lambda upstream: upstream * scale  # one gradient: x is the only input
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(grad_multiply(x, scale=0.1))
    assert tape.gradient(y, x).tolist() == [0.1, 0.1]  # TensorFlow 2.21 gives [0.1, 0.1] too


def test_a_keyword_tensor_nothing_follows_is_a_hyper_parameter():
    @gm.custom_gradient
    def grad_multiply(x, scale):
        return x, lambda upstream: upstream * scale
    x, s = gm.constant(np.float64(1.0)), gm.constant(np.float64(0.5))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = grad_multiply(x, scale=s)
    assert float(tape.gradient(y, x)) == 0.5


def test_a_followed_tensor_passed_by_keyword_is_an_error_naming_it():
    @gm.custom_gradient
    def f(x, scale):
        return x * scale, lambda up: up * 7.0
    x = gm.constant(np.float64(1.0))
    with gm.GradientTape() as tape:
        tape.watch(x)
        # TensorFlow records positional arguments only: there x's gradient would silently be
        # the body's (2.0), not grad_fn's
        with pytest.raises(TypeError, match=r"f\(x=\.\.\.\): x is a Tensor the tape follows, passed by keyword"):
            f(x=x, scale=2.0)


def test_no_tape_returns_the_value_unchanged():
    y = log1pexp(tf.constant(0.0))
    assert float(y) == pytest.approx(np.log(2.0))


# -- None, several outputs, variables ---------------------------------------------------
def test_none_gradient_means_unconnected():
    @gm.custom_gradient
    def f(x, y):
        return x * y, lambda up: (up * y, None)
    _, (gx, gy) = grad_of(f, np.float64(2.0), np.float64(3.0))
    assert float(gx) == 3.0 and gy is None
    _, (gx, gy) = grad_of(f, np.float64(2.0), np.float64(3.0), unconnected_gradients="zero")
    assert float(gy) == 0.0


def test_several_outputs_each_get_their_upstream():
    seen = []

    @gm.custom_gradient
    def sincos(x):
        def grad_fn(up_sin, up_cos):
            seen.append((np.asarray(up_sin).tolist(), np.asarray(up_cos).tolist()))
            return up_sin * np.cos(x) - up_cos * np.sin(x)
        return (np.sin(x), np.cos(x)), grad_fn

    x = gm.constant(np.array([0.5, 1.0]))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        s, c = sincos(x)
        total = np.sum(2 * s + 3 * c)
        only_sin = np.sum(s)
    g = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(g, 2 * np.cos([0.5, 1.0]) - 3 * np.sin([0.5, 1.0]))
    assert seen[-1] == ([2.0, 2.0], [3.0, 3.0])
    tape.gradient(only_sin, x)
    assert seen[-1] == ([1.0, 1.0], [0.0, 0.0])  # zeros for the output nobody used


def test_list_output_keeps_its_type():
    @gm.custom_gradient
    def f(x):
        return [x * 2, x * 3], lambda a, b: a * 2 + b * 3
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        out = f(x)
    assert isinstance(out, list) and float(tape.gradient(out, x)) == 5.0


def test_variables_are_passed_to_grad_fn():
    w = gm.Variable(np.float64(3.0), name="w")
    got = {}

    @gm.custom_gradient
    def f(x):
        def grad_fn(up, variables=None):
            got["variables"] = variables
            return up * w, [up * x * 10]  # 10x the true d/dw, to see it is used
        return x * w, grad_fn

    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, w])
    assert [v.name for v in got["variables"]] == ["w"] and got["variables"][0] is w
    assert float(gx) == 3.0 and float(gw) == 20.0


@pytest.mark.parametrize("variables_existed", [True, False], ids=["variables-existed", "first-variable"])
def test_variable_made_inside_the_body_and_read_there_is_passed_to_grad_fn(monkeypatch, variables_existed):
    # whether or not a Variable existed before the call (gradmagic begins watching the
    # body's variable reads once one exists), one made and read inside reaches grad_fn
    monkeypatch.setattr(gm.Variable, "exist", variables_existed)
    got = {}

    @gm.custom_gradient
    def f(x):
        w = gm.Variable(np.float64(3.0), name="inner")
        got["w"] = w

        def grad_fn(up, variables=None):
            got["variables"] = variables
            return up * w, [up * x]
        return x * w, grad_fn

    x = gm.constant(np.float64(2.0))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = f(x)
    gx, gw = tape.gradient(y, [x, got["w"]])
    assert [v.name for v in got["variables"]] == ["inner"] and got["variables"][0] is got["w"]
    assert float(gx) == 3.0 and float(gw) == 2.0


def test_variables_without_the_keyword_raise_naming_them():
    w = gm.Variable(np.float64(3.0), name="weight")

    @gm.custom_gradient
    def f(x):
        return x * w, lambda up: up * w

    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match=r"grad_fn must accept keyword argument 'variables'.*weight"):
            f(x)


def test_variables_wrong_count_raises():
    w = gm.Variable(np.float64(3.0), name="w")

    @gm.custom_gradient
    def f(x):
        return x * w, lambda up, variables=None: (up * w, [up, up])

    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError, match=r"f\): grad_fn must return 1 gradient\(s\), one per variable \(w\), but returned 2"):
        tape.gradient(y, [x, w])


def test_op_recorded_only_on_tapes_that_watch_an_input():
    w = gm.constant(np.float64(3.0))  # captured, not an input

    @gm.custom_gradient
    def f(x):
        return x * w, lambda up: up * w

    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch(w)
        y = f(x)
    # the tape follows only w, so y stays connected through the body's own x * w
    assert float(tape.gradient(y, w)) == 2.0


# -- nesting ------------------------------------------------------------------------------
@gm.custom_gradient
def cube_nested(x):
    """The seed's nesting pattern, for y = x**3: grad_grad_fn is d(grad_fn)/d(dy)."""
    y = x ** 3

    @gm.custom_gradient
    def grad_fn(dy):
        gdy = dy * 3 * x ** 2

        def grad_grad_fn(ddy):  # not the second derivative with respect to x
            return ddy * 3 * x ** 2
        return gdy, grad_grad_fn
    return y, grad_fn


@gm.custom_gradient
def cube_fused(x):
    """The documented fix: the inner custom gradient takes x explicitly."""
    y, x_grad = x ** 3, 3 * x ** 2

    def first_order_gradient(dy):
        @gm.custom_gradient
        def first_order_custom(unused_x):
            def second_order(ddy):
                return ddy * 6 * x
            return x_grad, second_order
        return dy * first_order_custom(x)
    return y, first_order_gradient


@gm.custom_gradient
def cube_plain_grad_fn(x):
    """A grad_fn written with ordinary ops: an outer tape records it."""
    return x ** 3, lambda dy: dy * 3 * x ** 2


def second(f, x0, upstream=None):
    x = gm.constant(np.float64(x0))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        dy = None if upstream is None else upstream(x)
        g = inner.gradient(y, x, output_gradients=dy)
    return float(g), outer.gradient(g, x)


@pytest.mark.parametrize("f", [cube_nested, cube_fused, cube_plain_grad_fn],
                         ids=["nested", "fused", "plain"])
def test_nesting_constant_upstream_gives_the_second_derivative(f):
    # upstream = 1 is a constant: the outer tape sees the ops inside grad_fn (TF)
    first, sec = second(f, 2.0)
    assert first == 12.0 and float(sec) == 12.0  # 3x^2, 6x at x = 2


def test_nesting_connected_upstream_loses_the_captured_term():
    # g = dy * 3x^2 with dy = x: dg/dx = 3x^2 (through dy) + 6x * dy (through x) = 12 + 24
    first, sec = second(cube_nested, 2.0, upstream=lambda x: x * 1.0)
    assert first == 24.0
    assert float(sec) == 12.0  # grad_grad_fn gives only the dy term: x got nothing


@pytest.mark.parametrize("f", [cube_fused, cube_plain_grad_fn], ids=["fused", "plain"])
def test_nesting_fixed_patterns_give_the_true_second_derivative(f):
    first, sec = second(f, 2.0, upstream=lambda x: x * 1.0)
    assert first == 24.0 and float(sec) == 36.0


def test_grad_fn_gets_raw_arrays_in_a_plain_pass_and_tensors_under_an_outer_tape():
    kinds = []

    @gm.custom_gradient
    def f(x):
        def grad_fn(up):
            kinds.append(type(up))
            return up * 2 * x
        return x * x, grad_fn

    grad_of(f, np.float64(1.0))
    second(f, 1.0)
    assert issubclass(kinds[0], (np.generic, np.ndarray))
    assert kinds[1] is gm.Tensor


# -- stricter than TensorFlow ---------------------------------------------------------------
def run_bad(grad_fn, x=np.float64(2.0), y=None):
    @gm.custom_gradient
    def square(x):
        return x * x, grad_fn
    xs = gm.constant(x)
    with gm.GradientTape() as tape:
        tape.watch(xs)
        out = square(xs)
    return tape.gradient(out, xs)


def test_wrong_count_names_function_and_inputs():
    @gm.custom_gradient
    def mul(a, b):
        return a * b, lambda up: (up * b,)
    a, b = gm.constant(1.0), gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = mul(a, b)
    with pytest.raises(ValueError, match=r"custom_gradient\(mul\): grad_fn must return 2 gradient\(s\), one per input \(a, b\), but returned 1"):
        tape.gradient(y, [a, b])


def test_wrong_shape_is_an_error_where_tensorflow_is_silent():
    with pytest.raises(ValueError, match=r"custom_gradient\(square\): grad_fn returned a gradient of shape \(5,\) for input 0 \('x'\), whose shape is \(\)"):
        run_bad(lambda up: np.ones(5))


def test_integer_gradient_is_an_error():
    with pytest.raises(TypeError, match=r"dtype int64 for input 0 \('x'\)"):
        run_bad(lambda up: np.int64(3))


def test_float64_gradient_for_float32_input_is_cast():
    g = run_bad(lambda up: np.float64(4.0), x=np.float32(2.0))
    assert g.dtype == np.float32 and float(g) == 4.0


def test_grad_fn_raising_keeps_its_type_and_names_the_function():
    def boom(up):
        raise ZeroDivisionError("boom")
    with pytest.raises(ZeroDivisionError, match="boom") as info:
        run_bad(boom)
    assert any("square" in note for note in info.value.__notes__)


@pytest.mark.parametrize("result", [(u for u in [1.0]), {"x": 1.0}, "text"],
                         ids=["generator", "dict", "string"])
def test_grad_fn_returning_a_non_gradient_is_an_error(result):
    with pytest.raises(TypeError, match=r"custom_gradient\(square\)"):
        run_bad(lambda up: result)


def test_function_returning_a_single_value_is_an_error():
    @gm.custom_gradient
    def single(x):
        return x * 2
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match=r"custom_gradient\(single\): single must return a pair \(y, grad_fn\)"):
            single(x)


def test_wrong_arguments_name_the_function():
    @gm.custom_gradient
    def one(x):
        return x, lambda up: up
    with pytest.raises(TypeError, match=r"one\(\)"):
        one(1.0, 2.0)


def test_custom_gradient_of_a_non_function_is_an_error():
    with pytest.raises(TypeError, match=r"custom_gradient\(f\): expected a function"):
        gm.custom_gradient(3)


def test_broadcasting_custom_function_float32():
    @gm.custom_gradient
    def scaled(x, w):
        return x * w, lambda up: (up * w, np.sum(up * x, axis=0))
    x = gm.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    w = gm.constant(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    with gm.GradientTape() as tape:
        tape.watch([x, w])
        y = np.sum(scaled(x, w))
    gx, gw = tape.gradient(y, [x, w])
    assert gx.dtype == np.float32 and gw.dtype == np.float32
    assert gx.tolist() == [[1, 2, 3], [1, 2, 3]] and gw.tolist() == [3.0, 5.0, 7.0]


# -- the common call and the general one ---------------------------------------------------
@gm.custom_gradient
def cube(x, scale):
    def grad_fn(upstream):
        return upstream * 3 * scale * x ** 2, None
    return scale * x ** 3, grad_fn


@gm.custom_gradient
def cube_with_default(x, scale=1.0):  # a default: bound by the general steps
    return scale * x ** 3, lambda upstream: upstream * 3 * scale * x ** 2


def _cube_call(how):
    """The gradient at 2 of a cube and what the tape recorded, called ``how``: plainly or
    with a default left out (``__call__``'s own steps), with a keyword argument or while
    a listener hears (the general steps)."""
    x = gm.constant(np.float64(2.0))
    listener = gm.core.context.Listener()
    if how == "heard":  # a listener on the stack: the call is told to it, by the general path
        gm.core.context.push(listener)
    try:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = {"keyword": lambda: cube_with_default(x, scale=1.0),
                 "default": lambda: cube_with_default(x)}.get(how, lambda: cube(x, 1.0))()
        names = [e[0].name for e in tape._entries]
        return float(tape.gradient(y, x)), names
    finally:
        gm.core.context.remove(listener)


@pytest.mark.parametrize("how", ["plain", "default", "keyword", "heard"])
def test_a_custom_call_records_the_same_op_on_every_path(how):
    gradient, names = _cube_call(how)
    assert gradient == 12.0 and names[:2] == ["power", "multiply"] and names[2].startswith("cube")


@pytest.mark.parametrize("returned,dtype", [("float64", np.float64), ("float32", np.float64)],
                         ids=["as-is", "cast"])
def test_grad_fns_result_is_taken_as_is_when_it_matches_and_cast_otherwise(returned, dtype):
    @gm.custom_gradient
    def double(x):
        return 2 * x, lambda up: gm.Tensor(np.full(np.shape(up), 2.0, dtype=returned))
    x = gm.Tensor(np.ones(3))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = double(x)
    g = tape.gradient(y, x)
    assert g.dtype == dtype and g.tolist() == [2.0, 2.0, 2.0]


def test_a_gradient_of_the_wrong_shape_gets_the_fix_its_shape_points_to():
    """A transposed matmul gradient is told to transpose, an unsummed bias gradient to sum
    (reshaping would have silenced the first and kept it wrong)."""
    @gm.custom_gradient
    def mm(a, b):
        return a @ b, lambda g: (g @ b.T, g.T @ a)  # the second should be a.T @ g

    @gm.custom_gradient
    def add_bias(x, b):
        return x + b, lambda g: (g, g)  # b's should be summed over the batch

    a, b, x, bias = (gm.constant(np.ones(s)) for s in ((3, 2), (2, 4), (4, 3), (3,)))
    for f, args, fix in ((mm, (a, b), "it has the transpose's shape: for y = x @ w the gradients are "
                          "upstream @ w.T for x and x.T @ upstream for w"),
                         (add_bias, (x, bias), "sum it over the axes the input was broadcast along")):
        with gm.GradientTape() as tape:
            tape.watch(list(args))
            y = np.sum(f(*args))
        with pytest.raises(ValueError, match="must have its input.s shape") as e:
            tape.gradient(y, list(args))
        assert str(e.value).endswith(f"({fix})")


def test_one_gradient_for_two_inputs_is_a_count_error_a_value_error_as_in_tensorflow():
    # TensorFlow 2.21.0: ValueError "custom_gradient function expected to return 2 gradients,
    # but returned 1 instead."
    @gm.custom_gradient
    def f(x, y):
        return x * y, lambda dy: dy * y

    x, y = gm.constant(2.0), gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch([x, y])
        z = f(x, y)
    with pytest.raises(ValueError, match=r"must return 2 gradient\(s\), one per input, as a tuple or "
                                         r"list, but returned 1, a Tensor of shape \(\)"):
        tape.gradient(z, [x, y])
