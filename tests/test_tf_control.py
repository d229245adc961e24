"""gradmagic.tf's control flow (``tf.cond``, ``tf.while_loop``, ``tf.map_fn``), gradient tools
(``tf.recompute_grad``, ``tf.grad_pass_through``) and ``tf.Variable`` against TensorFlow: each
case runs the same code TensorFlow 2.21.0 ran (see ``_tensorflow.py``) and gives its numbers;
then the errors, in TensorFlow's words, and how the trace shows them."""

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic as gm
import gradmagic.tf as tf

M = [[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]


def while_loop_gradient():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        r = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), (0, tf.constant(1.0)))
    return [listed(r), listed(tape.gradient(r[1], x))]


def cond_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.cond(x > 2.0, lambda: x * x, lambda: x)
        b = tf.cond(x < 2.0, lambda: x * x, lambda: -x)
    return [listed(a), listed(b), listed(tape.gradient(a, x)), listed(tape.gradient(b, x))]


def recompute_grad_second_order():
    f = tf.recompute_grad(lambda x: x ** 3)
    x = tf.constant(2.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x)
    return [listed(y), listed(g), listed(outer.gradient(g, x))]


def recompute_grad_variable_and_nest():
    w = tf.Variable(3.0)
    f = tf.recompute_grad(lambda x, y: (x * w * y, [x + y]))
    x, y = tf.constant(2.0), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        a, (b,) = f(x, y)
        z = a * 2 + b * 3
    return [listed(z), listed(tape.gradient(z, [x, y, w]))]


def recompute_grad_keyword_and_unconnected():
    f = tf.recompute_grad(lambda x, y, scale=2.0: tf.reduce_sum(tf.sin(x) * scale))
    x, y = tf.constant([1.0, 2.0]), tf.constant(5.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = f(x, y, scale=3.0)
    return [listed(z), listed(tape.gradient(z, [x, y]))]


def grad_pass_through_documentation():
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    with tf.GradientTape() as tape:
        y = tf.grad_pass_through(x.assign)(z**2)  # y = 9.0, as the documentation says
    return [listed(y), listed(tape.gradient(y, z)), listed(x)]


def grad_pass_through_round_and_variable():
    x = tf.constant([0.4, 1.6])
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.grad_pass_through(lambda a: tf.round(a) * w)(x) * tf.constant([2.0, 3.0]))
    return [listed(y), listed(tape.gradient(y, [x, w]))]


def variable_value_method():
    v = tf.Variable(initial_value=[1.0, 2.0], trainable=True, name="w")
    before = v.value()
    v.assign([5.0, 6.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(v.value() * 3.0)
    return [listed(before), listed(v.value()), listed(tape.gradient(y, v))]


def variable_positional_trainable_and_callable_initial_value():
    frozen = tf.Variable(2.0, False)  # TensorFlow's second parameter is trainable
    with tf.GradientTape() as tape:
        y = frozen * 3.0
    return [frozen.trainable, listed(tf.Variable(lambda: 4.0)), listed(tape.gradient(y, frozen))]


CASES = {
    "while_loop-gradient": while_loop_gradient,
    "while_loop-maximum_iterations": lambda: listed(
        tf.while_loop(lambda i: i < 10, lambda i: [i + 1], [tf.constant(0)], maximum_iterations=3)),
    "while_loop-no-iteration": lambda: listed(tf.while_loop(lambda i: i < 0, lambda i: (i + 1,), [5])),
    "cond-gradient": cond_gradient,
    "map_fn": lambda: value_and_grads(lambda x: tf.map_fn(lambda r: r * tf.reduce_sum(r), x), M),
    "vectorized_map": lambda: value_and_grads(lambda x: tf.vectorized_map(lambda r: tf.reduce_sum(r * r), x), M),
    "recompute_grad-second-order": recompute_grad_second_order,
    "recompute_grad-variable-and-nest": recompute_grad_variable_and_nest,
    "recompute_grad-keyword-and-unconnected": recompute_grad_keyword_and_unconnected,
    "grad_pass_through-documentation": grad_pass_through_documentation,
    "grad_pass_through-round-and-variable": grad_pass_through_round_and_variable,
    "Variable.value()": variable_value_method,
    "Variable-positional-trainable": variable_positional_trainable_and_callable_initial_value,
}

TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'while_loop-gradient': [[3, 8.0], 12.0],
    'while_loop-maximum_iterations': [3],
    'while_loop-no-iteration': [5],
    'cond-gradient': [9.0, -3.0, 6.0, -1.0],
    'map_fn': [[[0.5, -1.5, 2.0], [3.75, 11.25, -0.9375]], [[[4.5, 5.5, 6.5], [32.5, 36.25, 40.0]]]],
    'vectorized_map': [[6.5, 10.0625], [[[1.0, -3.0, 4.0], [4.0, 12.0, -1.0]]]],
    'recompute_grad-second-order': [8.0, 12.0, 12.0],
    'recompute_grad-variable-and-nest': [81.0, [33.0, 15.0, 20.0]],
    'recompute_grad-keyword-and-unconnected': [5.252305031, [[1.62090683, -1.248440504], 0.0]],
    'grad_pass_through-documentation': [9.0, 6.0, 9.0],
    'grad_pass_through-round-and-variable': [12.0, [[2.0, 3.0], None]],
    'Variable.value()': [[1.0, 2.0], [5.0, 6.0], [3.0, 3.0]],
    'Variable-positional-trainable': [False, 4.0, None],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- tf.cond and tf.while_loop: TensorFlow's checks, in its words ------------------------------------
def test_cond_runs_only_the_branch_taken():
    ran = []
    assert tf.cond(tf.constant(False), lambda: ran.append("true"), lambda: ran.append("false") or 2) == 2
    assert ran == ["false"]


@pytest.mark.parametrize("call, message", [
    (lambda: tf.cond(True, 1.0, lambda: 2.0), r"tf\.cond\(true_fn\): 'true_fn' must be callable, got float"),
    (lambda: tf.cond(True, lambda: 1.0), r"tf\.cond\(false_fn\): 'false_fn' must be callable, got NoneType"),
    (lambda: tf.while_loop(1, lambda i: (i,), [0]), r"tf\.while_loop\(cond\): 'cond' must be callable"),
    (lambda: tf.while_loop(lambda i: i < 1, 1, [0]), r"tf\.while_loop\(body\): 'body' must be callable"),
], ids=["true_fn", "false_fn", "cond", "body"])
def test_a_branch_or_body_must_be_callable(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_cond_needs_one_truth_value():
    with pytest.raises(ValueError, match=r"tf\.cond\(pred\): expected a scalar predicate, got shape \(2,\)"):
        tf.cond(tf.constant([True, False]), lambda: 1.0, lambda: 2.0)


def test_while_loop_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError, match=r"'loop_vars' must be provided\."):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1,), (0, tf.constant(1.0)))
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer."):
        tf.while_loop(lambda i: i < 5, lambda i: (i + 1,), [0], parallel_iterations=0)


def test_while_loop_gives_tensors_for_numbers():
    i, s = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + 0.5), [0, 0.0])
    assert isinstance(i, tf.Tensor) and i.dtype == tf.int32 and float(s) == 1.5


# -- recompute_grad and grad_pass_through: custom gradients, one row each in a trace ---------------
def cube(x):
    """Doc."""
    return x ** 3


def test_recompute_grad_keeps_the_function_s_name_and_is_one_row():
    f = tf.recompute_grad(cube)
    assert f.__name__ == "cube" and f.__doc__ == "Doc."  # TF: the same
    x = tf.constant(2.0)
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        g = tape.gradient(y, x)
    assert float(g) == 12.0  # TF: 12.0
    assert [r.node for r in tr.forward] == ["cube"]
    assert [r.node for r in tr.backward if r.level == 1] == ["cube"]


def test_recompute_grad_does_not_record_its_first_run():
    x, c = tf.constant(2.0), tf.constant(3.0)
    calls = []

    def body(x):
        calls.append(1)
        return x * c  # c: captured, neither an input nor a variable
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = tf.recompute_grad(body)(x)
    assert len(calls) == 1
    assert [None if g is None else float(g) for g in tape.gradient(y, [x, c])] == [3.0, None]  # TF: [3.0, None]
    assert len(calls) == 2  # run again, in the backward pass
    with tf.GradientTape() as only_c:
        only_c.watch(c)
        y = tf.recompute_grad(body)(x)
    assert only_c.gradient(y, c) is None  # TF: None (its first run is not recorded)


def test_grad_pass_through_refuses_a_gradient_of_the_wrong_shape():
    # TensorFlow 2.21 returns the scalar upstream as the gradient of the shape-(2,) input, silently
    x = tf.constant([0.4, 1.6])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.grad_pass_through(tf.reduce_sum)(x)
    with pytest.raises(ValueError, match=r"custom_gradient\(reduce_sum\): grad_fn returned a gradient of shape "
                                         r"\(\) for input 0 \('input_tensor'\), whose shape is \(2,\)"):
        tape.gradient(y, x)


def test_grad_pass_through_of_two_inputs_and_one_output_wants_one_gradient_each():
    x, y = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.grad_pass_through(lambda a, b: a * b)(x, y)
    # TF: "custom_gradient function expected to return 2 gradients, but returned 1 instead."
    with pytest.raises(ValueError,
                       match=r"grad_fn must return 2 gradient\(s\), one per input \(a, b\), but returned 1"):
        tape.gradient(z, [x, y])


@pytest.mark.parametrize("tool", ["recompute_grad", "grad_pass_through"])
def test_a_gradient_tool_needs_a_function(tool):
    with pytest.raises(TypeError, match=rf"tf\.{tool}\(f\): 'f' must be callable, got int 3"):
        getattr(tf, tool)(3)


# -- tf.Variable: TensorFlow's parameters; v.value is the array, v.value() reads it ------------------
def test_variable_takes_tensorflow_s_parameters():
    v = tf.Variable(initial_value=[1.0, 2.0], name="w", dtype=tf.float64, shape=(2,))
    assert isinstance(v, tf.Variable) and isinstance(v, gm.Variable) and type(v) is gm.Variable
    assert v.name == "w" and v.dtype == tf.float64 and v.trainable
    assert not isinstance(tf.constant(1.0), tf.Variable) and issubclass(gm.Variable, tf.Variable)
    with pytest.raises(ValueError, match=r"The `initial_value` arg to `tf.Variable` must be specified except "
                                         r"when you are not providing a `variable_def`. You provided neither."):
        tf.Variable()


@pytest.mark.parametrize("kwargs, message", [
    ({"constraint": abs}, r"tf\.Variable\(constraint=...\) is not supported here \(constraint\); gradmagic "
                          r"has no optimizer to apply it"),
    ({"shape": (None,)}, r"is not supported here \(a shape other than the initial value's \(2,\)\)"),
    ({"validate_shape": False}, r"a shape other than the initial value's"),
], ids=["constraint", "unknown-shape", "no-shape-validation"])
def test_variable_says_what_it_does_not_support(kwargs, message):
    with pytest.raises(NotImplementedError, match=message):
        tf.Variable([1.0, 2.0], **kwargs)


def test_the_value_of_a_variable_is_its_array_and_calling_it_reads_the_variable():
    v = tf.Variable([1.0, 2.0])
    assert isinstance(v.value, np.ndarray) and v.value.shape == (2,)  # gradmagic's attribute
    assert type(v.value + 1) is np.ndarray and type(np.exp(v.value)) is np.ndarray
    assert repr(v.value) == "array([1., 2.], dtype=float32)"
    read = v.value()  # TensorFlow's method: a Tensor of the value now
    assert isinstance(read, tf.Tensor) and not isinstance(read, tf.Variable)
    with pytest.raises(TypeError, match=r"Variable\.value\(\): this array is not a Variable's value \(it is a "
                                        r"view, a copy or a result computed from one\)"):
        v.value[:1]()


def test_a_trace_shows_recompute_grad_as_one_row_each_way_not_its_recomputation():
    @tf.recompute_grad
    def block(x):
        return tf.tanh(x) * 2.0

    x = tf.constant([0.5, 1.0])
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(block(x))
        g = tape.gradient(y, x)
    assert [(r.node, r.level) for r in tr.backward] == [("sum", 1), ("block", 1)]
    assert len(tr.gradients) == 1  # the recomputation's own gradient is not the user's
    np.testing.assert_allclose(tr.backward[1].downstream[0], g.numpy())
