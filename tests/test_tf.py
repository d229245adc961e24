"""gradmagic.tf: a thin TensorFlow-shaped map onto the engine."""

import contextlib

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf


def test_constant_dtypes_follow_tensorflow():
    assert tf.constant(100.).dtype == tf.float32
    assert tf.constant(3).dtype == tf.int32
    assert tf.constant(np.array([1.0, 2.0])).dtype == tf.float64
    assert tf.constant(2.0, dtype=tf.float64).dtype == np.float64
    assert tf.constant(1.0, shape=(2, 3)).shape == (2, 3)


def test_tensor_is_gradmagic_tensor_and_formats_like_tensorflow():
    x = tf.constant(2.0, dtype=tf.float32)
    assert tf.Tensor is gm.Tensor and tf.is_tensor(x)
    assert f"{x}" == "2.0" and float(x) == 2.0 and x.numpy() == np.float32(2.0)
    assert repr(x * 3) == "<gm.Tensor: shape=(), dtype=float32, numpy=6.0>"


@pytest.mark.parametrize("name,expected", [
    ("exp", np.exp(0.5)), ("log", np.log(0.5)), ("sqrt", np.sqrt(0.5)), ("tanh", np.tanh(0.5)),
    ("sigmoid", 1 / (1 + np.exp(-0.5))), ("softplus", np.log1p(np.exp(0.5))),
    ("square", 0.25), ("abs", 0.5), ("log1p", np.log1p(0.5)), ("asin", np.arcsin(0.5)),
], ids=lambda v: v if isinstance(v, str) else "")
def test_math_functions_compute_and_differentiate(name, expected):
    f = getattr(tf.math, name)
    x = tf.constant(np.float64(0.5))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    assert float(y) == pytest.approx(expected, rel=1e-12)
    assert gm.check_grad(lambda v: f(v), np.array([0.5, 0.3]))


def test_tf_log_is_the_old_alias():
    assert tf.log is tf.math.log


def test_reductions_and_matmul():
    a = tf.constant(np.arange(6.0).reshape(2, 3))
    assert tf.reduce_sum(a).numpy() == 15.0
    assert tf.reduce_mean(a, axis=0).numpy().tolist() == [1.5, 2.5, 3.5]
    assert tf.reduce_max(a, axis=1, keepdims=True).shape == (2, 1)
    m = tf.matmul(a, a, transpose_b=True)
    assert m.numpy().tolist() == [[5.0, 14.0], [14.0, 50.0]]
    assert tf.reshape(a, [3, 2]).shape == (3, 2)
    assert tf.concat([a, a], axis=0).shape == (4, 3)


def test_nn_softmax_sums_to_one_and_relu():
    p = tf.nn.softmax(tf.constant([1.0, 2.0, 3.0]))
    assert float(tf.reduce_sum(p)) == pytest.approx(1.0)
    assert tf.nn.relu(tf.constant([-1.0, 2.0])).numpy().tolist() == [0.0, 2.0]


def test_clip_by_norm_value_and_gradient_at_zero():
    t = tf.constant(np.array([3.0, 4.0]))
    assert tf.clip_by_norm(t, 1.0).numpy().tolist() == pytest.approx([0.6, 0.8])
    assert tf.clip_by_norm(t, 10.0).numpy().tolist() == [3.0, 4.0]
    z = tf.constant(np.zeros(2))
    with tf.GradientTape() as tape:
        tape.watch(z)
        y = tf.reduce_sum(tf.clip_by_norm(z, 1.0))
    assert np.all(np.isfinite(tape.gradient(y, z).numpy()))


def test_unconnected_gradients_enum():
    x, y = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = x * 2
    gx, gy = tape.gradient(z, [x, y], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(gx) == 2.0 and float(gy) == 0.0


def test_assert_rank():
    tf.debugging.assert_rank(tf.constant(1.0), 0)
    with pytest.raises(ValueError, match="must have rank 0, but has rank 1"):
        tf.debugging.assert_rank(tf.constant([1.0]), 0)


def test_check_numerics():  # TensorFlow 2.21.0: InvalidArgumentError "bad : Tensor had NaN values"
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad : Tensor had NaN"):
        tf.debugging.check_numerics(tf.constant([np.nan]), "bad")


def test_enable_check_numerics_says_that_gradmagic_does_not_stop_at_a_nan():
    with pytest.warns(UserWarning, match=r"does not stop at the first NaN.*gm\.trace\(\)"):
        tf.debugging.enable_check_numerics()
    tf.debugging.disable_check_numerics()


def test_the_gradient_guide_s_first_example_runs_as_in_tensorflow():
    """TensorFlow's "Introduction to gradients and automatic differentiation", verbatim but
    for the import: a Python list times a Variable. Values from TensorFlow 2.21.0 (CPU)."""
    w = tf.Variable(tf.ones((3, 2)), name='w')
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name='b')
    x = [[1., 2., 3.]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    assert dl_dw.numpy().tolist() == [[6.0, 6.0], [12.0, 12.0], [18.0, 18.0]]
    assert dl_db.numpy().tolist() == [6.0, 6.0] and dl_dw.dtype == tf.float32


def test_gradients_points_to_gradient_tape():
    with pytest.raises(RuntimeError, match="Use tf.GradientTape instead"):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))


@pytest.mark.parametrize("path", ["keras", "math.bessel_i0", "nn.max_pool_with_argmax", "debugging.assert_near"])
def test_unmapped_names_raise_attribute_error_naming_them(path):
    obj = tf
    *parents, last = path.split(".")
    for p in parents:
        obj = getattr(obj, p)
    with pytest.raises(AttributeError, match=rf"gradmagic\.tf\.{path.replace('.', '[.]')} does not exist.*not all of TensorFlow"):
        getattr(obj, last)


def test_function_decorator_runs_eagerly():
    @tf.function
    def f(x):
        return x * 2
    assert float(f(tf.constant(2.0))) == 4.0
    assert tf.executing_eagerly()


def test_variable_and_shape_helpers():
    v = tf.Variable(np.ones((2, 3)), name="v")
    assert tf.shape(v).numpy().tolist() == [2, 3] and int(tf.rank(v)) == 2 and int(tf.size(v)) == 6
    assert tf.zeros((2,)).dtype == tf.float32 and tf.range(3).numpy().tolist() == [0, 1, 2]
    assert tf.cast(tf.constant(1.5), tf.int32).dtype == np.int32


# -- held to TensorFlow: each expected value was computed with TensorFlow 2.21.0 (tensorflow-cpu,
# eager) in a scratch environment, running the same code with `import tensorflow as tf` -----------
def test_tensors_inside_a_list_argument_use_the_custom_gradient():
    a, b = tf.constant(2.0), tf.constant(3.0)

    @tf.custom_gradient
    def h(xs):
        return xs[0] * xs[1], lambda dy: [10 * dy, 10 * dy]
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = h([a, b])
    assert [float(g) for g in tape.gradient(y, [a, b])] == [10.0, 10.0]  # TF: [10, 10], not [3, 2]


def test_a_dict_argument_is_flattened_in_sorted_key_order_and_grad_fn_may_return_a_dict():
    a, b = tf.constant(2.0), tf.constant(3.0)

    @tf.custom_gradient
    def d(cfg):
        return cfg["w"] * cfg["b"], lambda dy: {"b": dy * 100, "w": dy * 1000}
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        y = d({"w": a, "b": b})
    assert [float(g) for g in tape.gradient(y, [a, b])] == [1000.0, 100.0]  # TF: [1000, 100]


def test_an_empty_tuple_argument_asks_no_gradient():
    a = tf.constant(2.0)

    @tf.custom_gradient
    def g(x, empty):
        return x * 2, lambda dy: dy * 2
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = g(a, ())
    assert float(tape.gradient(y, a)) == 2.0  # TF: 2


def test_a_nested_output_keeps_its_structure_and_grad_fn_gets_one_upstream_per_leaf():
    a = tf.constant(2.0)
    got = []

    @tf.custom_gradient
    def f(x):
        def grad_fn(*dys):
            got.append(len(dys))
            return dys[0] + dys[1] + dys[2]
        return ((x * 1, x * 2), x * 3), grad_fn
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = f(a)
    assert type(y) is tuple and type(y[0]) is tuple and len(y[0]) == 2  # TF: the nest is kept
    assert float(tape.gradient(y, a)) == 3.0 and got == [3]  # TF: 3.0


def test_batch_jacobian_of_a_target_with_no_elements_per_example_is_empty_zeros():
    x = tf.zeros([1, 0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    j = tape.batch_jacobian(y, x)
    assert j.shape == (1, 0, 0) and j.dtype == np.float32  # TF: zeros of shape (1, 0, 0), float32


def test_a_decorated_function_introspects_as_the_function_it_wraps():
    import inspect

    @tf.custom_gradient
    def f(x, y=2.0):
        """Doc."""
        return x * y, lambda dy: (dy * y, dy * x)
    spec = inspect.getfullargspec(f)  # TF: works, args ['x', 'y']
    assert spec.args == ["x", "y"] and spec.defaults == (2.0,)
    assert str(inspect.signature(f)) == "(x, y=2.0)"
    assert f.__name__ == "f" and f.__doc__ == "Doc." and f.__wrapped__.__name__ == "f"

    class Model:
        @tf.custom_gradient
        def triple(self, x):
            return x * 3, lambda dy: dy * 3
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = Model().triple(x)
    assert float(tape.gradient(y, x)) == 3.0  # still binds as a method


def test_convert_to_tensor_of_a_variable_is_a_read_of_its_value():
    v = tf.Variable(1.0)
    c = tf.convert_to_tensor(v)
    v.assign(5.0)
    assert float(c) == 1.0  # TF: 1.0, the value when it was read
    assert tf.convert_to_tensor(v) is not tf.convert_to_tensor(v)  # TF: two reads, two tensors
    with tf.GradientTape() as tape:
        y = tf.convert_to_tensor(v) * 3
    assert float(tape.gradient(y, v)) == 3.0  # TF: 3.0, the read is followed to the Variable


def test_a_number_as_output_gradients_of_a_scalar_target():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x, output_gradients=2.0)) == 12.0  # TF: 12.0
    assert float(tape.gradient(y, x, output_gradients=[2.0])) == 12.0  # TF: 12.0


def test_a_number_as_output_gradients_of_a_vector_target_says_what_to_give():
    # TensorFlow broadcasts the number (6.0 here); gradmagic asks for the seed's shape
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = x * tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match=r"a number weighs a scalar target only: give np\.full"):
        tape.gradient(z, x, output_gradients=2.0)


def test_re_entering_a_tape_and_watching_an_array_are_value_errors_as_in_tensorflow():
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="already recording"):  # TF: ValueError
            tape.__enter__()
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match=r"GradientTape.watch\(tensor\)"):  # TF: ValueError
            tape.watch(np.ones(2))


def test_messages_that_mirror_tensorflow_s_start_with_its_capital():
    x = tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match=r"GradientTape\.gradient: A non-persistent GradientTape can only be "
                                           r"used to compute one set of gradients \(or jacobians\)"):  # TF's words
        tape.gradient(y, x)
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError, match=r"GradientTape\.__enter__: Tape is still recording"):
            tape.__enter__()
    with tf.GradientTape() as tape:
        with pytest.warns(UserWarning, match=r"GradientTape\.watch: The dtype of the watched tensor must be "
                                             r"floating \(e\.g\. float32\), got int32"):
            tape.watch(tf.constant(1))


# -- the tape where gradmagic and TensorFlow 2.21 differ on purpose (README: Semantics) -------------
def test_batch_jacobian_of_an_unconnected_target_is_none_or_zeros_when_asked():
    # TensorFlow 2.21 gives zeros of shape (2, 2, 2) with either setting, which hides a cut chain
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.stop_gradient(x) * 2
    assert tape.batch_jacobian(y, x) is None
    z = tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert z.shape == (2, 2, 2) and z.dtype == tf.float32 and not z.numpy().any()


def test_batch_jacobian_of_rank_one_targets_and_sources_is_one_value_per_example():
    # TensorFlow 2.21 refuses both: "Shape (3,) must have rank at least 2"
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    s = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, s])
        y = tf.reduce_sum(x * x, axis=1)  # shape (3,), example i from row i of x
        z = tf.stack([s, s * s], axis=1)  # shape (3, 2), example i from s[i]
    assert tape.batch_jacobian(y, x).numpy().tolist() == [[2.0, 4.0], [6.0, 8.0], [10.0, 12.0]]
    assert tape.batch_jacobian(z, s).numpy().tolist() == [[1.0, 2.0], [1.0, 4.0], [1.0, 6.0]]
    with pytest.raises(ValueError, match=r"need the same first \(batch\) dimension, got shapes \(\) and \(3,\)"):
        tape.batch_jacobian(tf.reduce_sum(s), s)


@pytest.mark.parametrize("method, options", [
    ("jacobian", {"experimental_use_pfor": False}),
    ("jacobian", {"parallel_iterations": 2}),
    ("batch_jacobian", {"experimental_use_pfor": False, "parallel_iterations": 1}),
], ids=["jacobian-no-pfor", "jacobian-parallel_iterations", "batch_jacobian-no-pfor"])
def test_a_non_persistent_tape_gives_jacobians_whatever_the_vectorization_options(method, options):
    # TensorFlow 2.21 on a non-persistent tape: experimental_use_pfor=False raises "GradientTape must be
    # created with persistent=True ..."; parallel_iterations=2 here raises "Encountered an exception
    # while vectorizing the jacobian computation" (a persistent tape, or parallel_iterations=4, does
    # not). gradmagic has no vectorization to choose: one backward pass per row, on any tape.
    x = tf.constant([[1.0], [2.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    j = getattr(tape, method)(y, x, **options)
    want = [[[[2.0], [0.0]]], [[[0.0], [4.0]]]] if method == "jacobian" else [[[2.0]], [[4.0]]]
    assert j.numpy().tolist() == want  # TF: the same numbers with its default options
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used"):
        tape.gradient(y, x)


# -- the package: every name it had, by family, the namespaces as modules ---------------------------
NAMES = ["GradientTape", "Tensor", "UnconnectedGradients", "Variable", "abs", "acos", "acosh", "add",
         "asin", "asinh", "atan", "atan2", "atanh", "autodiff", "bool", "cast", "ceil", "clip_by_norm",
         "clip_by_value", "complex128", "complex64", "concat", "constant", "convert_to_tensor", "cos",
         "cosh", "custom_gradient", "debugging", "divide", "equal", "executing_eagerly", "exp",
         "expand_dims", "expm1", "fill", "float16", "float32", "float64", "floor", "function",
         "gradients", "greater", "greater_equal", "identity", "int16", "int32", "int64", "int8",
         "is_finite", "is_inf", "is_nan", "is_tensor", "less", "less_equal", "log", "log1p",
         "logical_and", "logical_not", "logical_or", "math", "matmul", "maximum", "minimum", "multiply",
         "negative", "newaxis", "nn", "not_equal", "ones", "ones_like", "pow", "print", "range", "rank",
         "reciprocal", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min", "reduce_prod",
         "reduce_std", "reduce_sum", "reduce_variance", "reshape", "round", "shape", "sigmoid", "sign",
         "sin", "sinh", "size", "sqrt", "square", "squared_difference", "squeeze", "stack",
         "stop_gradient", "subtract", "tan", "tanh", "transpose", "truediv", "uint8", "where", "zeros",
         "zeros_like"]  # gradmagic.tf's names when it was one module


@pytest.mark.parametrize("name", NAMES)
def test_every_name_the_module_had_is_still_there(name):
    assert name in tf.__all__ and hasattr(tf, name)


@pytest.mark.parametrize("name", ["math", "linalg", "nn", "random", "debugging", "autodiff", "errors"])
def test_each_namespace_is_a_module_of_the_package(name):
    import importlib
    assert importlib.import_module(f"gradmagic.tf.{name}") is getattr(tf, name) and name in tf.__all__


def test_gm_tf_is_the_package_and_its_names_are_shared():
    from gradmagic.core.forward import ForwardAccumulator
    assert gm.tf is tf and tf.autodiff.ForwardAccumulator is ForwardAccumulator
    assert tf.math.log is tf.log and tf.linalg.matmul is tf.matmul and tf.nn.softmax is tf.math.softmax


def test_convert_to_tensor_takes_a_dtype_or_a_hint_as_tensorflow_does():
    assert tf.convert_to_tensor(1, dtype=tf.float64).dtype == tf.float64  # TF: float64
    assert tf.convert_to_tensor([1.0], dtype_hint=tf.float64).dtype == tf.float64  # TF: float64
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32  # TF: float32
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32  # TF: float32 (no fit)
    with pytest.raises(ValueError, match=r"Tensor conversion requested dtype float64 for Tensor with "
                                         r"dtype float32; cast it with tf\.cast"):  # TF: the same sentence
        tf.convert_to_tensor(tf.constant(1.0), dtype=tf.float64)


# -- tf.Module: TensorFlow 2.21.0 (CPU) gave every value below for the same code ---------------
class _Dense(tf.Module):  # "Introduction to modules", with ones for its random initial weights
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.ones([in_features, out_features]), name='w')
        self.b = tf.Variable(tf.zeros([out_features]), name='b')

    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = _Dense(in_features=3, out_features=3, name="dense")
        self.dense_2 = _Dense(in_features=3, out_features=2, name="dense")
        self.extra = [tf.Variable(1.0, name="e", trainable=False),
                      {"z": tf.Variable(2.0, name="z"), "a": tf.Variable(3.0, name="a")}]

    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def test_a_module_finds_its_variables_as_tensorflow_does():
    """Attributes in sorted order, into lists and dicts (a dict's by sorted key), then the
    submodules, each once; trainable ones apart."""
    model = SequentialModule(name="the_model")
    assert model(tf.constant([[2.0, 2.0, 2.0]])).numpy().tolist() == [[18.0, 18.0]]
    assert [m.name for m in model.submodules] == ["dense", "dense"]
    assert [v.name for v in model.variables] == ["e:0", "a:0", "z:0", "b:0", "w:0", "b:0", "w:0"]
    assert [v.name for v in model.trainable_variables] == ["a:0", "z:0", "b:0", "w:0", "b:0", "w:0"]
    assert (model.name, SequentialModule().name) == ("the_model", "sequential_module")
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(model(tf.constant([[1.0, -1.0, 2.0]])))
    grads = tape.gradient(out, model.trainable_variables)
    assert [None if g is None else g.numpy().tolist() for g in grads] == [
        None, None, [2.0, 2.0, 2.0], [[2.0, 2.0, 2.0], [-2.0, -2.0, -2.0], [4.0, 4.0, 4.0]],
        [1.0, 1.0], [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]]
    with pytest.raises(ValueError, match="'bad name' is not a valid module name"):
        tf.Module(name="bad name")


def test_the_custom_training_guide_s_linear_model_trains_as_in_tensorflow():
    class MyModel(tf.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    model = MyModel()
    assert [float(v.numpy()) for v in model.variables] == [0.0, 5.0]  # b, then w
    x = tf.cast(tf.linspace(-2, 2, 201), tf.float32)
    y = x * 3.0 + 2.0
    for _ in range(10):
        with tf.GradientTape() as t:
            current_loss = tf.reduce_mean(tf.square(y - model(x)))
        dw, db = t.gradient(current_loss, [model.w, model.b])
        model.w.assign_sub(0.1 * dw)
        model.b.assign_sub(0.1 * db)
    assert (round(float(model.w.numpy()), 4), round(float(model.b.numpy()), 4)) == (3.0867, 1.7853)



def test_a_module_is_named_from_its_class_as_tensorflow_names_it():
    # TensorFlow 2.21.0: mlp rnn_cell http_server2_layer my_module (gradmagic gave m_l_p ...)
    names = []
    for cls in ("MLP", "RNNCell", "HTTPServer2Layer", "myModule"):
        names.append(type(cls, (tf.Module,), {})().name)
    assert names == ["mlp", "rnn_cell", "http_server2_layer", "my_module"]


def test_reductions_computed_in_floats_refuse_integers_as_tensorflow_does():
    # TensorFlow 2.21.0 raises for these; gradmagic gave reduce_std([1, 2, 3]) = 0, the float
    # result truncated to int32; reduce_euclidean_norm of integers stays an integer (4)
    x = tf.constant([[1, 2, 3], [1, 1, 1]])
    for f in (tf.math.reduce_std, tf.math.reduce_variance):
        with pytest.raises(TypeError, match=r"^Input must be either real or complex. Received "
                                            r"integer type <dtype: 'int32'>.$"):
            f(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of int32"):
        tf.math.reduce_logsumexp(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Value for attr 'T' of bool"):
        tf.math.reduce_std(tf.constant([True, False]))
    assert int(tf.math.reduce_euclidean_norm(x)) == 4
    assert float(tf.math.reduce_std(tf.constant([1.0, 2.0, 3.0]))) == pytest.approx(0.8164966)


def test_tf_constant_copies_an_array_and_numpy_gives_a_copy_as_tensorflow_does():
    # TensorFlow 2.21.0: [1. 2.] after the array changes, for constant and convert_to_tensor
    # alike; a Variable's numpy() written to leaves the Variable and its reads as they were
    arr = np.array([1.0, 2.0], np.float32)
    t, c = tf.constant(arr), tf.convert_to_tensor(arr)
    arr[0] = 99.0
    assert t.numpy().tolist() == c.numpy().tolist() == [1.0, 2.0]
    v = tf.Variable([1.0, 2.0])
    r, i = v.read_value(), tf.identity(v)
    n = v.numpy()
    n *= 0
    assert v.numpy().tolist() == r.numpy().tolist() == i.numpy().tolist() == [1.0, 2.0]
    s = tf.Variable(2.0).numpy()
    assert type(s).__name__ == "float32" and s.shape == ()


def test_name_scope_gives_the_scope_names_as_tensorflow_does():
    # TensorFlow 2.21.0: 'dense/', then 'dense/inner/' nested; .name is the name given
    with tf.name_scope("dense") as outer:
        with tf.name_scope("inner") as inner:
            assert (outer, inner) == ("dense/", "dense/inner/")
    assert tf.name_scope("x").name == "x"
    with tf.name_scope("again") as again:
        assert again == "again/"


def test_get_shape_is_shape():
    x = tf.constant([[1.0, 2.0, 3.0]])
    assert x.get_shape() == x.shape and x.get_shape().as_list() == [1, 3]
    assert tf.Variable([1.0, 2.0]).get_shape().as_list() == [2]


@pytest.mark.parametrize("traced", [False, True])
def test_a_check_leaves_tf_randoms_global_streams_as_they_were(traced):
    """A check runs a custom function whose body draws ``tf.random.uniform`` again; the
    numbers drawn after come out as an untraced run leaves them."""
    @tf.custom_gradient
    def noisy(x):
        p = tf.sigmoid(x)
        b = tf.cast(tf.random.uniform(tf.shape(x)) < p, tf.float32) + tf.random.uniform([2], seed=7)
        b = tf.constant(b.numpy())  # leaves the tape: the check runs the body again

        def grad_fn(upstream):
            return upstream * p * (1 - p)
        return b, grad_fn

    tf.random.set_seed(1)
    x = tf.constant([1.0, 2.0])
    with gm.trace(check=True) if traced else contextlib.nullcontext():
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = noisy(x)
        tape.gradient(y, x)
    after = [tf.random.uniform([2]).numpy().tolist(), tf.random.uniform([2], seed=7).numpy().tolist()]
    tf.random.set_seed(1)
    tf.random.uniform([2]), tf.random.uniform([2], seed=7)
    assert after == [tf.random.uniform([2]).numpy().tolist(), tf.random.uniform([2], seed=7).numpy().tolist()]


def test_tf_custom_gradients_grad_fn_gets_tensors_as_tensorflows():
    """TensorFlow 2.21.0 gives ``grad_fn`` a ``tf.Tensor``: code that calls
    ``upstream.numpy()`` or ``upstream.shape.as_list()`` runs (it raised AttributeError on
    the array it got); the value is TensorFlow's, [2. 2.]."""
    seen = []

    @tf.custom_gradient
    def f(x):
        def grad(upstream):
            seen.append((isinstance(upstream, tf.Tensor), upstream.shape.as_list(),
                         upstream.numpy().tolist()))
            return upstream * 2.0
        return 2.0 * x, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 2.0]
    assert seen == [(True, [2], [1.0, 1.0])]
    assert tf.custom_gradient(None) is tf.custom_gradient
    with pytest.raises(TypeError, match="custom_gradient\\(f\\): expected a function"):
        tf.custom_gradient(3)
