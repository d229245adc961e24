"""gradmagic.tf where TensorFlow users' programs differed from TensorFlow 2.21.0: each expected
value, dtype and message below was printed by TensorFlow 2.21.0 (tensorflow-cpu) running the
same code."""

import warnings

import numpy as np
import pytest

import gradmagic.tf as tf


def test_the_jacobian_of_an_integer_source_is_none_as_its_gradient():
    xi = tf.constant([1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tf.GradientTape(persistent=True) as t:
            t.watch(xi)
            yi = xi * 2
        assert t.gradient(yi, xi) is None
    with pytest.warns(UserWarning, match="GradientTape.jacobian: The dtype of the watched tensor"):
        assert t.jacobian(yi, xi) is None


@pytest.mark.parametrize("call, index", [
    (lambda A: tf.gather(A, -1), -1), (lambda A: A.sparse_read(-1), -1),
    (lambda A: tf.gather(A, tf.constant(-2)), -2), (lambda A: tf.gather(A, 3), 3)])
def test_a_single_index_out_of_range_is_an_error(call, index):
    A = tf.Variable([[1., 2.], [3., 4.], [5., 6.]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=rf"indices = {index} is not in \[0, 3\)"):
        call(A)
    assert tf.gather(A, 2).numpy().tolist() == [5., 6.]


def test_clip_by_value_with_min_above_max_gives_min():
    x = tf.constant([-2., 0., 2.])
    assert tf.clip_by_value(x, 1., -1.).numpy().tolist() == [1., 1., 1.]
    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(tf.clip_by_value(x, 1., -1.) * [1., 2., 3.])
    assert t.gradient(y, x).numpy().tolist() == [0., 0., 0.]
    assert tf.clip_by_value(x, -1., 1.).numpy().tolist() == [-1., 0., 1.]  # the ordinary case
    # and with Variable bounds, an element on min (TensorFlow 2.21.0 prints these gradients)
    x = tf.constant([-2., 0., 1., 2.])
    for (lo, hi), (gx, gl, gh) in [((1., -1.), ([0., 0., 0., 0.], 10., 0.)),
                                   ((-1., 1.), ([0., 2., 3., 0.], 1., 4.)),
                                   ((1., 1.), ([0., 0., 3., 0.], 3., 4.))]:
        lo_v, hi_v = tf.Variable(lo), tf.Variable(hi)
        with tf.GradientTape(persistent=True) as t:
            t.watch(x)
            y = tf.reduce_sum(tf.clip_by_value(x, lo_v, hi_v) * [1., 2., 3., 4.])
            y_numbers = tf.reduce_sum(tf.clip_by_value(x, lo, hi) * [1., 2., 3., 4.])
        got = t.gradient(y, [x, lo_v, hi_v])
        assert (got[0].numpy().tolist(), float(got[1]), float(got[2])) == (gx, gl, gh)
        assert t.gradient(y_numbers, x).numpy().tolist() == gx


def test_clip_by_global_norm_of_an_infinite_norm_is_nan_throughout():
    clipped, norm = tf.clip_by_global_norm([tf.constant([np.inf, 1.]), tf.constant([2.])], 1.)
    assert np.isnan(clipped[0].numpy()).all() and np.isnan(clipped[1].numpy()).all()
    assert float(norm) == np.inf
    finite, n = tf.clip_by_global_norm([tf.constant([3., 4.])], 1.)
    np.testing.assert_allclose(finite[0].numpy(), [0.6, 0.8], rtol=1e-6)


def test_python_numbers_keep_float16():
    x16 = tf.constant([1., 2.], tf.float16)
    assert tf.nn.batch_normalization(x16, 0.1, 2.0, None, None, 1e-3).dtype == np.float16
    out = tf.nn.batch_normalization(x16, 0.1, 2.0, 1., 2., 1e-3)
    assert out.dtype == np.float16 and out.numpy().tolist() == [2.2734375, 3.6875]  # 2.273, 3.688
    assert tf.linspace(tf.constant(0., tf.float16), 1., 3).dtype == np.float16
    assert tf.linspace(0, 1, 3).dtype == np.float64 and tf.linspace(0., 1., 3).dtype == np.float32


def test_triangular_and_cholesky_solve_broadcast_the_batch():
    L = tf.constant([[[2., 0.], [1., 3.]], [[1., 0.], [2., 4.]]], tf.float64)
    b = tf.constant([[1.], [2.]], tf.float64)
    np.testing.assert_allclose(tf.linalg.triangular_solve(L, b).numpy(), [[[0.5], [0.5]], [[1.], [0.]]])
    np.testing.assert_allclose(
        tf.linalg.triangular_solve(tf.linalg.matrix_transpose(L), b, lower=False).numpy(),
        [[[1 / 6], [2 / 3]], [[0.], [0.5]]])
    Lm = tf.constant([[2., 0.], [1., 3.]], tf.float64)
    np.testing.assert_allclose(tf.linalg.cholesky_solve(Lm, tf.constant(np.ones((3, 2, 1)))).numpy(),
                               [[[2 / 9], [1 / 18]]] * 3)
    Lv, bv = tf.Variable(L), tf.Variable(b)
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.linalg.cholesky_solve(Lv, bv) ** 2)
    gL, gb = t.gradient(y, [Lv, bv])
    np.testing.assert_allclose(gL.numpy(), [[[-0.064815, 0.], [-0.037037, -0.018519]],
                                            [[-4.5, 0.], [0.25, 0.]]], atol=1e-6)
    np.testing.assert_allclose(gb.numpy(), [[2.574074], [-0.231481]], atol=1e-6)
    with pytest.raises(ValueError, match="same rank"):
        tf.linalg.triangular_solve(Lm, tf.constant([1., 2.], tf.float64))


def test_lists_holding_tensors_are_packed_by_scatters_and_assign():
    x = tf.Variable([1., 2.])
    T = tf.zeros([3])
    with tf.GradientTape(persistent=True) as t:
        a = tf.tensor_scatter_nd_update(T, [[1]], [x[1]])
        b = tf.tensor_scatter_nd_add(T, [[1], [2]], [x[1], x[0]])
    assert a.numpy().tolist() == [0., 2., 0.] and t.gradient(a, x).numpy().tolist() == [0., 1.]
    assert b.numpy().tolist() == [0., 2., 1.] and t.gradient(b, x).numpy().tolist() == [1., 1.]
    v = tf.Variable(T)
    v.assign([x[1], 0., 0.])
    assert v.numpy().tolist() == [2., 0., 0.]
    v.scatter_nd_update([[1]], [x[0]])
    assert v.numpy().tolist() == [2., 1., 0.]


def test_a_grad_fn_may_return_an_empty_list_for_no_variables():
    w = tf.Variable(2.0, name="w")

    @tf.custom_gradient
    def f(x):
        y = x * w

        def grad(dy, variables=None):
            return dy * w, [dy * x for _ in (variables or [])]
        return y, grad

    with tf.GradientTape() as t:
        y = f(w)  # the variable read is the input: variables is None, and TensorFlow flattens []
    assert float(t.gradient(y, w)) == 2.0


def test_dynamic_partition_and_stitch():
    x = tf.Variable([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
    p = tf.constant([1, 0, 1, 2])
    with tf.GradientTape(persistent=True) as t:
        parts = tf.dynamic_partition(x, p, 3)
        loss = tf.reduce_sum(parts[0]) + 2 * tf.reduce_sum(parts[1] ** 2)
        st = tf.dynamic_stitch([tf.constant([0, 2]), tf.constant([[1, 2], [3, 4]])],
                               [x[:2], tf.reshape(x, [2, 2, 2])])
        l2 = tf.reduce_sum(st * tf.constant([[1.], [2.], [3.], [4.], [5.]]))
    assert [q.numpy().tolist() for q in parts] == [[[3., 4.]], [[1., 2.], [5., 6.]], [[7., 8.]]]
    assert t.gradient(loss, x).numpy().tolist() == [[4., 8.], [1., 1.], [20., 24.], [0., 0.]]
    assert st.numpy().tolist() == [[1., 2.], [1., 2.], [3., 4.], [5., 6.], [7., 8.]]
    # the written-over x[1] (at index 2) gets the upstream there too, as TensorFlow's rule gives
    assert t.gradient(l2, x).numpy().tolist() == [[3., 3.], [6., 6.], [4., 4.], [5., 5.]]
    assert tf.dynamic_partition(tf.constant([1, 2, 3]), tf.constant([0, 0, 0]), 2)[1].shape == (0,)
    assert tf.dynamic_stitch([tf.constant(1), tf.constant([0])],
                             [tf.constant(5.), tf.constant([6.])]).numpy().tolist() == [6., 5.]
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"partitions\[1\] = 3 is not in \[0, 3\)"):
        tf.dynamic_partition(x, tf.constant([0, 3, 0, 0]), 3)


def test_assert_all_finite():
    assert tf.debugging.assert_all_finite(tf.constant([1., 2.]), "bad").numpy().tolist() == [1., 2.]
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad values : Tensor had Inf values"):
        tf.debugging.assert_all_finite(tf.constant([1., np.inf]), "bad values")


def test_none_where_a_tensor_is_expected_is_tensorflows_value_error():
    """TensorFlow 2.21.0: ValueError, 'Attempt to convert a value (None) with an unsupported
    type (<class 'NoneType'>) to a Tensor.' (it was a TypeError about an object array)."""
    for call in (lambda: tf.constant(None), lambda: tf.convert_to_tensor(None),
                 lambda: tf.reduce_sum(None)):
        with pytest.raises(ValueError, match=r"Attempt to convert a value \(None\) with an unsupported "
                                             r"type \(<class 'NoneType'>\) to a Tensor.*gradient is None"):
            call()


def test_a_tf_function_gives_its_python_numbers_back_as_tensors():
    """TensorFlow 2.21.0 prints: Tensor 3 int32; 4.0 1.5 float32 None True; 6.0 (a method
    of a Module); python_function is the function itself."""
    @tf.function
    def three(x):
        return 3

    @tf.function
    def pair(x):
        return x * 2, 1.5, None, {"k": True}

    r = three(tf.constant(1.))
    assert isinstance(r, tf.Tensor) and r.numpy() == 3 and r.dtype == np.int32
    a, b, c, d = pair(tf.constant(2.))
    assert (a.numpy(), b.numpy(), b.dtype, c, bool(d["k"].numpy())) == (4.0, 1.5, np.float32, None, True)
    assert three.python_function(1) == 3

    class M(tf.Module):
        def __init__(self):
            self.w = tf.Variable(2.)

        @tf.function
        def __call__(self, x):
            return self.w * x

    assert M()(tf.constant(3.)).numpy() == 6.0
    with tf.GradientTape() as t:
        x = tf.constant(2.)
        t.watch(x)
        y = pair(x)[0]
    assert t.gradient(y, x).numpy() == 2.0
