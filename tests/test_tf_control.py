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
    assert v.name == "w:0" and v.dtype == tf.float64 and v.trainable  # TensorFlow 2.21.0: w:0
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




# -- tf.scan, tf.foldl, tf.foldr and tf.function(input_signature=...) ------------------------------
def scan_nested(dtype):
    def f(x, y):
        start = (tf.zeros([], dtype), tf.ones([], dtype))
        total, product = tf.scan(lambda a, e: (a[0] + e[0] * a[1], a[1] * tf.sin(e[1])), (x, y),
                                 initializer=start)
        return tf.concat([total, product], 0)
    return f


def fold_nested(fold, dtype):
    def f(x, y):
        a, b = fold(lambda acc, e: (acc[0] * e[0] + acc[1], acc[1] - e[1] * acc[0]), (x, y))
        return tf.stack([a, b])
    return f


def signature_gradient():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)])
    def f(x, n):
        return x * x * tf.cast(n, tf.float32)
    x = tf.constant([1.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x, 3)
    return [listed(y), listed(tape.gradient(y, x)), listed(f([1.0, 2.0], np.int32(2))),
            listed(f(np.array([0.5, 1.5]), 1))]


SCAN_FUNCTIONS = {
    "scan": lambda x: tf.scan(lambda a, e: a * e + tf.sin(a), x),
    "scan-reverse-initializer": lambda x: tf.scan(lambda a, e: a * tf.cos(e) + e, x,
                                                  initializer=tf.constant(2.0, x.dtype), reverse=True),
    "scan-rows": lambda x: tf.scan(lambda a, row: a * row + tf.reduce_sum(row), x),
    "foldl": lambda x: tf.foldl(lambda a, e: a * e - tf.exp(-a), x),
    "foldr": lambda x: tf.foldr(lambda a, e: a * e - tf.exp(-a), x),
    "foldl-initializer": lambda x: tf.foldl(lambda a, e: a * a * e, x,
                                            initializer=tf.constant(0.5, x.dtype)),
}
SCAN_CASES = {f"{name}-{dtype.name}": (lambda fn=fn, dtype=dtype: value_and_grads(
                  lambda x: fn(tf.cast(x, dtype)), [[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]
                  if name == "scan-rows" else [0.5, -1.5, 2.0, 0.75]))
              for name, fn in SCAN_FUNCTIONS.items() for dtype in (tf.float64, tf.float32)}
SCAN_CASES.update({
    f"{name}-{dtype.name}": (lambda fn=fn, dtype=dtype: value_and_grads(
        lambda x, y: fn(dtype)(tf.cast(x, dtype), tf.cast(y, dtype)),
        [0.5, -1.5, 2.0], [1.0, 0.25, -2.0]))
    for name, fn in {"scan-nested": scan_nested,
                     "foldl-nested": lambda dtype: fold_nested(tf.foldl, dtype),
                     "foldr-nested": lambda dtype: fold_nested(tf.foldr, dtype)}.items()
    for dtype in (tf.float64, tf.float32)})
SCAN_CASES.update({
    "scan-no-element": lambda: listed(tf.shape(tf.scan(lambda a, e: a + e, tf.zeros([0, 2]),
                                                       initializer=tf.ones([2])))),
    "foldl-no-element": lambda: listed(tf.foldl(lambda a, e: a - e, tf.zeros([0]), initializer=3.0)),
    "function-input_signature": signature_gradient,
})

SCAN_TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'scan-float64': [[0.5, -0.2705744614, -0.8084339646, -1.329531981], [[-16.40825614, 13.9843898,
        -2.370916128, -3.233735858]]],
    'scan-float32': [[0.5, -0.2705744505, -0.8084338903, -1.329531908], [[-16.40825653, 13.98439026,
        -2.370916128, -3.233735561]]],
    'scan-reverse-initializer-float64': [[-0.7493975631, -1.423680936, 1.078909856, 2.213377738],
        [[1.682548999, 5.974457555, -3.243976742, -0.9688073489]]],
    'scan-reverse-initializer-float32': [[-0.7493975163, -1.423680902, 1.078909874, 2.213377714],
        [[1.682549, 5.974457741, -3.243976593, -0.9688074589]]],
    'scan-rows-float64': [[0.5, -2.25, -2.5, -1.125], [[-20.0, 21.0, -7.5, -6.0]]],
    'scan-rows-float32': [[0.5, -2.25, -2.5, -1.125], [[-20.0, 21.0, -7.5, -6.0]]],
    'foldl-float64': [-736.932406, [[-3851.266768, 2155.231632, -993.978287, -6.595760822]]],
    'foldl-float32': [-736.9324341, [[-3851.26709, 2155.231689, -993.9783325, -6.595760822]]],
    'foldr-float64': [-7.630887553, [[-1.899303008, 7.379678357, -6.151521286, -20.27842064]]],
    'foldr-float32': [-7.630887032, [[-1.899302959, 7.379677773, -6.151521206, -20.27841949]]],
    'foldl-initializer-float64': [9.052455425e-07, [[1.448392868e-05, -2.413988113e-06,
        9.052455425e-07, 1.206994057e-06]]],
    'foldl-initializer-float32': [9.052455425e-07, [[1.448392868e-05, -2.413988113e-06,
        9.052455425e-07, 1.206994057e-06]]],
    'scan-nested-float64': [[0.5, -0.7622064772, -0.3458399707, 0.8414709848, 0.2081832532,
        -0.1893004965], [[6.0, 4.207354924, 0.6245497597], [-1.14994655, 4.520263658,
        -0.5198088135]]],
    'scan-nested-float32': [[0.5, -0.7622064352, -0.3458399475, 0.8414709568, 0.2081832439,
        -0.1893004775], [[6.0, 4.207354546, 0.6245497465], [-1.149946451, 4.520263672,
        -0.5198088288]]],
    'foldl-nested-float64': [[1.375, 1.375], [[-9.75, 3.0, 0.25], [9.0, -1.5, -0.5]]],
    'foldl-nested-float32': [[1.375, 1.375], [[-9.75, 3.0, 0.25], [9.0, -1.5, -0.5]]],
    'foldr-nested-float64': [[-5.0, 2.5], [[-5.0, -3.0, 1.5], [10.0, -6.0, 1.5]]],
    'foldr-nested-float32': [[-5.0, 2.5], [[-5.0, -3.0, 1.5], [10.0, -6.0, 1.5]]],
    'scan-no-element': [0, 2],
    'foldl-no-element': 3.0,
    'function-input_signature': [[3.0, 27.0], [6.0, 18.0], [2.0, 8.0], [0.25, 2.25]],
}

test_scan_gives_what_tensorflow_gives, test_every_scan_case_has_tensorflow_numbers = against_tensorflow(
    SCAN_CASES, SCAN_TENSORFLOW_2_21)


@pytest.mark.parametrize("call, message", [
    (lambda: tf.scan(lambda a, x: (a, a), tf.constant([1.0, 2.0]), initializer=0.0),
     r"tf\.scan\(fn\): The two structures don't have the same nested structure"),
    (lambda: tf.foldl(lambda a, x: [a[0] + x[0]], (tf.constant([1.0, 2.0]),)),
     r"tf\.foldl\(fn\): The two structures don't have the same nested structure"),
    (lambda: tf.scan(lambda a, x: a + x, tf.zeros([0])),
     r"tf\.scan\(elems\): elems has no element to start from, and no initializer was given"),
    (lambda: tf.foldr(lambda a, x: a + x, tf.constant(1.0)),
     r"tf\.foldr\(elems\): expected tensors of rank 1 or more"),
    (lambda: tf.scan(lambda a, x: a + x[0], (tf.zeros([3]), tf.zeros([2]))),
     r"tf\.scan\(elems\): the tensors of elems must have the same first dimension, got \[2, 3\]"),
], ids=["scan-structure", "foldl-structure", "scan-empty", "foldr-scalar", "scan-lengths"])
def test_scan_and_folds_refuse_what_tensorflow_refuses(call, message):
    # TensorFlow 2.21 raises ValueError ("The two structures don't have the same nested
    # structure."), OutOfRangeError for no element, IndexError for a scalar
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("fold", [tf.scan, tf.foldl, tf.foldr])
def test_scan_and_folds_need_a_function(fold):
    with pytest.raises(TypeError, match=r"\(fn\): 'fn' must be callable, got int 3"):
        fold(3, tf.constant([1.0]))


def test_tensor_spec_reads_as_tensorflow_s():
    # TensorFlow 2.21.0 prints these same strings
    spec = tf.TensorSpec([2, 3])
    assert repr(spec) == "TensorSpec(shape=(2, 3), dtype=tf.float32, name=None)"
    assert (spec.shape, spec.dtype, spec.name) == ((2, 3), tf.float32, None)
    assert (repr(tf.TensorSpec(shape=None, dtype=tf.int32, name="x"))
            == "TensorSpec(shape=<unknown>, dtype=tf.int32, name='x')")
    assert repr(tf.TensorSpec([None, 3], tf.float64)) == "TensorSpec(shape=(None, 3), dtype=tf.float64, name=None)"
    assert repr(tf.TensorSpec([], "float64")) == "TensorSpec(shape=(), dtype=tf.float64, name=None)"
    assert (repr(tf.TensorSpec.from_tensor(tf.constant([1.0, 2.0])))
            == "TensorSpec(shape=(2,), dtype=tf.float32, name=None)")
    assert tf.TensorSpec([2]) == tf.TensorSpec([2]) and tf.TensorSpec([2]) != tf.TensorSpec([3])
    assert tf.TensorSpec([None]).is_compatible_with(tf.constant([1.0, 2.0]))
    assert not tf.TensorSpec([3]).is_compatible_with(tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match=r"tf\.TensorSpec\(shape\): Failed to convert ''abc'' to a shape: "
                       r"''a''could not be converted to a dimension\."):
        tf.TensorSpec("abc")


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def doubled(x):
    return x * 2


@pytest.mark.parametrize("args, message", [
    ((tf.constant([[1.0, 2.0]]),), r"doubled\(x\): Binding inputs to tf\.function failed due to `Can not "
     r"cast TensorSpec\(shape=\(1, 2\), dtype=tf\.float32, name=None\) to TensorSpec\(shape=\(None,\), "
     r"dtype=tf\.float32, name=None\)`\. Received args: .* and kwargs: \{\} for signature: "
     r"\(x: TensorSpec\(shape=\(None,\), dtype=tf\.float32, name=None\)\)\."),
    ((tf.constant([1.0, 2.0], tf.float64),),
     r"`Can not cast TensorSpec\(shape=\(2,\), dtype=tf\.float64, name=None\) to "
     r"TensorSpec\(shape=\(None,\), dtype=tf\.float32, name=None\)`"),
    ((3.0,), r"`Can not cast TensorSpec\(shape=\(\), dtype=tf\.float32, name=None\) to"),
    ((tf.constant([1.0]), tf.constant([1.0])), r"failed due to `too many positional arguments`"),
], ids=["rank", "dtype", "python-scalar", "two-arguments"])
def test_function_checks_its_input_signature_as_tensorflow_does(args, message):
    # TensorFlow 2.21.0 raises TypeError with these sentences
    with pytest.raises(TypeError, match=message):
        doubled(*args)


def test_function_takes_a_list_of_tensor_specs_only():
    with pytest.raises(TypeError, match=r"input_signature must be either a tuple or a list, got "):
        tf.function(lambda x: x, input_signature=tf.TensorSpec([2]))
    with pytest.raises(TypeError, match=r"input_signature must be a possibly nested sequence of TensorSpec "
                       r"objects, got invalid args \[3\] with types \[<class 'int'>\]\."):
        tf.function(lambda x: x, input_signature=[3])
    assert listed(doubled(x=tf.constant([1.0]))) == [2.0] and doubled.input_signature == (tf.TensorSpec([None]),)
