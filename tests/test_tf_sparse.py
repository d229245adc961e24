"""gradmagic.tf's sparse gradients: ``tape.gradient`` gives ``tf.IndexedSlices`` for a source
read only by ``tf.gather``, as TensorFlow does.

Every expected value, type, order and dtype below was printed by TensorFlow 2.21.0
(tensorflow-cpu, CPU) running the same code.
"""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf

ROWS = [[1., 2.], [3., 4.], [5., 6.]]


def sliced(g):
    """An IndexedSlices as (values, indices, indices' dtype, dense_shape)."""
    assert isinstance(g, tf.IndexedSlices), type(g)
    assert g.dense_shape.dtype == np.int32
    return (g.values.numpy().tolist(), g.indices.numpy().tolist(), g.indices.dtype.name,
            g.dense_shape.numpy().tolist())


def dense(g):
    assert isinstance(g, tf.Tensor) and not isinstance(g, tf.IndexedSlices), type(g)
    return g.numpy().tolist()


@pytest.fixture
def vx():
    return tf.Variable(ROWS), tf.constant(ROWS)


def test_a_variable_gathered_gets_its_rows_one_per_index(vx):
    v, _ = vx
    with tf.GradientTape() as t:
        a = tf.reduce_sum(tf.gather(v, [2, 0, 2]) * [[1., 2.]])
    g = t.gradient(a, v)
    assert sliced(g) == ([[1., 2.]] * 3, [2, 0, 2], "int32", [3, 2])
    assert g.dtype == np.float32 and tuple(g.shape) == (3, 2)
    # made dense where a Tensor is expected: the repeated index's rows added up
    assert dense(tf.convert_to_tensor(g)) == [[1., 2.], [0., 0.], [2., 4.]]
    assert dense(tf.add_n([g, g])) == [[2., 4.], [0., 0.], [4., 8.]]
    assert dense(tf.math.multiply(g, 2.)) == [[2., 4.], [0., 0.], [4., 8.]]
    assert sliced(-g)[0] == [[-1., -2.]] * 3
    with pytest.raises(TypeError):
        0.1 * g  # as TensorFlow's, Python's operators refuse them
    with pytest.raises(TypeError):
        g + g
    v.assign_sub(g)
    assert v.numpy().tolist() == [[0., 0.], [3., 4.], [3., 2.]]


def test_the_norms_count_each_repeated_row_as_tensorflow_does(vx):
    v, _ = vx
    with tf.GradientTape() as t:
        a = tf.reduce_sum(tf.gather(v, [2, 0, 2]) * [[1., 2.]])
    g = t.gradient(a, v)
    clipped, norm = tf.clip_by_global_norm([g], 1.0)
    assert float(norm) == pytest.approx(3.8729835, rel=1e-6)  # sqrt(15); dense would be 5
    assert float(tf.linalg.global_norm([g])) == pytest.approx(3.8729835, rel=1e-6)
    np.testing.assert_allclose(sliced(clipped[0])[0], [[0.2581989, 0.5163978]] * 3, rtol=1e-6)
    assert sliced(clipped[0])[1] == [2, 0, 2]
    np.testing.assert_allclose(sliced(tf.clip_by_norm(g, 1.0))[0], [[0.2581989, 0.5163978]] * 3,
                               rtol=1e-6)


@pytest.mark.parametrize("name, expected", [
    ("index_matrix", ([[1., 1.]] * 4, [2, 0, 1, 1], "int32", [3, 2])),
    ("through_identity", ([[1., 1.]] * 2, [2, 0], "int32", [3, 2])),
    ("through_cast", ([[1., 1.]], [1], "int32", [3, 2])),
    ("index_0d", ([[1., 1.]], [1], "int32", [3, 2])),
    ("index_2d_one", ([[1., 1.]], [1], "int32", [3, 2])),
    ("no_gradient_elsewhere", ([[1., 1.]], [1], "int32", [3, 2])),
    ("reshaped_after", ([[1., 1.]], [1], "int32", [3, 2])),
    ("gather_of_gather", ([[0., 0.], [1., 1.]], [2, 1], "int32", [3, 2])),
])
def test_a_constant_watched_and_gathered(vx, name, expected):
    _, x = vx
    with tf.GradientTape() as t:
        t.watch(x)
        y = {"index_matrix": lambda: tf.gather(x, [[2, 0], [1, 1]]),
             "through_identity": lambda: tf.gather(tf.identity(x), [2, 0]),
             "through_cast": lambda: tf.gather(tf.cast(x, tf.float64), [1]),
             "index_0d": lambda: tf.gather(x, 1),
             "index_2d_one": lambda: tf.gather(x, [[1]]),
             "no_gradient_elsewhere": lambda: tf.gather(x, [1]) + tf.reduce_sum(tf.stop_gradient(x)),
             "reshaped_after": lambda: tf.reshape(tf.gather(x, [1]), [-1]),
             "gather_of_gather": lambda: tf.gather(tf.gather(x, [2, 1]), [1]),
             }[name]()
        y = tf.reduce_sum(y)
    g = t.gradient(y, x)
    assert sliced(g) == expected
    assert g.values.dtype == np.float32  # the source's, through a cast too


@pytest.mark.parametrize("name, expected", [
    ("with_a_dense_use", [[2., 2.], [3., 3.], [2., 2.]]),
    ("axis_1", [[1., 1.]] * 3),
    ("of_an_intermediate", [[0., 0.], [2., 2.], [0., 0.]]),
    ("batch_dims", [[0., 1.], [1., 0.], [0., 1.]]),
    ("of_a_slice", [[0., 0.], [1., 1.], [0., 0.]]),
    ("indexing", [[0., 0.], [1., 1.], [0., 0.]]),
])
def test_anything_else_on_the_way_makes_it_dense(vx, name, expected):
    v, _ = vx
    with tf.GradientTape() as t:
        y = {"with_a_dense_use": lambda: tf.gather(v, [1]) + tf.reduce_sum(v),
             "axis_1": lambda: tf.gather(v, [1, 0], axis=1),
             "of_an_intermediate": lambda: tf.gather(v * 2, [1]),
             "batch_dims": lambda: tf.gather(v, [[1], [0], [1]], batch_dims=1),
             "of_a_slice": lambda: tf.gather(v[1:], [0]),
             "indexing": lambda: v[1],
             }[name]()
        y = tf.reduce_sum(y)
    assert dense(t.gradient(y, v)) == expected


def test_reads_lookups_orders_and_dtypes(vx):
    v, _ = vx
    with tf.GradientTape(persistent=True) as t:
        f = tf.reduce_sum(tf.nn.embedding_lookup(v, [0, 0])) + tf.reduce_sum(tf.gather(v, [2]))
        n = tf.reduce_sum(tf.gather(v, [0])) * 0 + tf.reduce_sum(tf.gather(v, [1]))
        m = tf.reduce_sum(v.sparse_read([0, 1]))
        i64 = tf.reduce_sum(tf.gather(v, tf.constant([1, 2], tf.int64)))
        reads = [tf.reduce_sum(tf.gather(r, [1])) for r in (v.value(), v.read_value(),
                                                             tf.convert_to_tensor(v))]
    assert sliced(t.gradient(f, v)) == ([[1., 1.]] * 3, [2, 0, 0], "int32", [3, 2])  # the last first
    assert sliced(t.gradient(n, v)) == ([[1., 1.], [0., 0.]], [1, 0], "int32", [3, 2])
    assert sliced(t.gradient(m, v)) == ([[1., 1.]] * 2, [0, 1], "int32", [3, 2])
    assert sliced(t.gradient(i64, v)) == ([[1., 1.]] * 2, [1, 2], "int64", [3, 2])
    for r in reads:
        assert sliced(t.gradient(r, v)) == ([[1., 1.]], [1], "int32", [3, 2])


def test_the_tape_calls_other_forms(vx):
    v, x = vx
    with tf.GradientTape(persistent=True) as t:
        t.watch(x)
        a = tf.reduce_sum(tf.gather(v, [2, 0, 2]) * [[1., 2.]])
        c = tf.reduce_sum(tf.gather(v, [1]) + tf.reduce_sum(v))
        n = tf.gather(x, [1, 2])
        p = tf.reduce_sum(tf.gather(v, [1]))
    assert dense(t.gradient([a, c], v)) == [[3., 4.], [3., 3.], [4., 6.]]
    both = t.gradient(a, [v, x])
    assert sliced(both[0])[1] == [2, 0, 2] and both[1] is None
    assert sliced(t.gradient(a, v, output_gradients=tf.constant(2.)))[0] == [[2., 4.]] * 3
    assert sliced(t.gradient(n, x, output_gradients=tf.ones((2, 2)) * 3))[0] == [[3., 3.]] * 2
    zero = t.gradient(p, [v, x], unconnected_gradients="zero")
    assert sliced(zero[0])[1] == [1] and dense(zero[1]) == [[0., 0.]] * 3
    assert sliced(t.gradient(p, {"a": v})["a"])[1] == [1]
    assert dense(t.jacobian(p, v)) == [[0., 0.], [1., 1.], [0., 0.]]  # a Jacobian is dense


def test_second_order_through_the_slices(vx):
    v, _ = vx
    for read in (tf.convert_to_tensor, lambda g: g.values):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(tf.gather(v, [1, 1]) ** 2)
            g = inner.gradient(y, v)
            assert sliced(g) == ([[6., 8.]] * 2, [1, 1], "int32", [3, 2])
            z = tf.reduce_sum(read(g))
        assert sliced(outer.gradient(z, v)) == ([[2., 2.]] * 2, [1, 1], "int32", [3, 2])


def test_a_grad_fn_may_return_indexed_slices(vx):
    _, x = vx

    @tf.custom_gradient
    def f(z):
        def grad(up):
            return tf.IndexedSlices(up[:1], tf.constant([0]), tf.shape(z))
        return tf.identity(z), grad

    with tf.GradientTape() as t:
        t.watch(x)
        y = tf.reduce_sum(f(x))
    assert dense(t.gradient(y, x)) == [[1., 1.], [0., 0.], [0., 0.]]


def test_slices_without_dense_shape_do_not_convert():
    s = tf.IndexedSlices(tf.ones((1, 2)), tf.constant([0]))
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(s)


def test_a_trace_sees_the_dense_pass_and_changes_nothing(vx):
    v, _ = vx

    def run():
        with tf.GradientTape() as t:
            a = tf.reduce_sum(tf.gather(v, [2, 0, 2]))
        return sliced(t.gradient(a, v))

    plain = run()
    with gm.trace() as tr:
        traced = run()
    assert traced == plain
    assert "gather" in tr.to_text()
