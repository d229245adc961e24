"""``tf.TensorArray`` on gradmagic.tf, from TensorFlow 2.21.0 (tensorflow-cpu, eager): every
value, gradient and error below is what TensorFlow printed for the same code. Gradients flow
from each element written to where the array is read, stacked, gathered or joined, in a
Python loop and in ``tf.while_loop``."""

import pytest

import gradmagic.tf as tf


def listed(t):
    return t.numpy().tolist()


def test_a_python_loop_that_writes_then_stacks_has_tensorflow_s_gradients():
    x = tf.Variable([1.0, 2.0])
    w = tf.constant(0.5)
    with tf.GradientTape() as tape:
        tape.watch(w)
        ta = tf.TensorArray(tf.float32, size=3)
        h = x
        for i in range(3):
            h = tf.tanh(h * w + 1.0)
            ta = ta.write(i, h)
        loss = tf.reduce_sum(ta.stack() ** 2)
    gx, gw = tape.gradient(loss, [x, w])
    assert listed(gx) == pytest.approx([0.18108350038528442, 0.07463959604501724], rel=1e-5)
    assert float(gw) == pytest.approx(2.005505084991455, rel=1e-6)


def test_a_while_loop_carries_a_dynamic_array_with_tensorflow_s_gradients():
    x = tf.Variable([1.0, 2.0])
    w = tf.constant(0.5)
    with tf.GradientTape() as tape:
        tape.watch(w)

        def body(i, h, ta):
            h = tf.sin(h) * w + x
            return i + 1, h, ta.write(i, h)
        _, h, ta = tf.while_loop(lambda i, h, ta: i < 4, body,
                                 [0, x, tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
        out = ta.stack()
        loss = tf.reduce_sum(out * tf.constant([[1.0], [2.0], [3.0], [4.0]])) + tf.reduce_sum(h)
    assert isinstance(ta, tf.TensorArray) and int(ta.size()) == 4
    assert [v for row in listed(out) for v in row] == pytest.approx(
        [1.420735478401184, 2.454648733139038, 1.4943809509277344, 2.3170886039733887,
         1.4985408782958984, 2.367105484008789, 1.4986953735351562, 2.349674701690674], rel=1e-6)
    gx, gw = tape.gradient(loss, [x, w])
    assert listed(gx) == pytest.approx([11.773445129394531, 8.106955528259277], rel=1e-5)
    assert float(gw) == pytest.approx(16.976207733154297, rel=1e-5)


def test_unstack_read_gather_split_concat_and_scatter_have_tensorflow_s_gradients():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=3).unstack(v * v)
        a = ta.read(2) * 3.0 + ta.gather([0, 0])
        loss = tf.reduce_sum(a * tf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert listed(tape.gradient(loss, v)) == [[8.0, 24.0], [0.0, 0.0], [120.0, 216.0]]
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=3).split(tf.reshape(v, [-1]), [1, 2, 3])
        loss = tf.reduce_sum(ta.concat() * tf.range(6.0)) + tf.reduce_sum(ta.read(1) ** 2)
    assert listed(tape.gradient(loss, v)) == [[0.0, 5.0], [8.0, 3.0], [4.0, 5.0]]
    with tf.GradientTape() as tape:
        ta = tf.TensorArray(tf.float32, size=4).scatter([3, 1], v[:2] * 2.0)
        loss = tf.reduce_sum(ta.stack() * tf.reshape(tf.range(8.0), [4, 2]))
    assert listed(tape.gradient(loss, v)) == [[12.0, 14.0], [4.0, 6.0], [0.0, 0.0]]


def test_reads_sizes_shapes_and_unwritten_elements_as_tensorflow():
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.dtype == tf.float32 and ta.element_shape is None  # TensorFlow: TensorShape(None)
    size = ta.size()
    assert size.dtype == tf.int32 and int(size) == 3
    assert ta.write(0, 1.0) is ta  # TensorFlow's eager write returns the same array
    assert ta.element_shape == (), ta.read(1).numpy() == 0.0  # never written: zeros, once known
    assert float(ta.read(0)) == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Could not read index 0 twice because "
                       r"it was cleared after a previous read \(perhaps try setting clear_after_read = "
                       r"false\?\)$"):
        ta.read(0)
    assert listed(ta.stack()) == [0.0, 0.0, 0.0]  # the two read (cleared) come back as zeros
    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, [1.0, 2.0])
    assert int(grown.size()) == 3 and tuple(grown.element_shape) == (2,)
    assert listed(grown.stack()) == [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0]]
    assert listed(grown.concat()) == [0.0, 0.0, 0.0, 0.0, 1.0, 2.0]
    kept = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(
        tf.reshape(tf.range(6.0), [3, 2]))
    assert listed(kept.read(1)) == listed(kept.read(1)) == [2.0, 3.0]
    assert listed(kept.gather([2, 0])) == [[4.0, 5.0], [0.0, 1.0]]
    assert listed(tf.TensorArray(tf.float32, size=3, element_shape=[2]).stack()) == [[0.0, 0.0]] * 3
    assert tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[2]).stack().shape == (0, 2)
    assert tf.TensorArray(tf.float32, size=0).stack().shape == (0,)
    assert listed(tf.TensorArray(tf.float32, size=2).write(1, 1).stack()) == [0.0, 1.0]  # 1 as float32
    loose = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0])
    assert loose.element_shape is None


def test_errors_as_tensorflow_words_them():
    ta = tf.TensorArray(tf.float32, size=3)
    cases = [
        (lambda: ta.read(5), tf.errors.OutOfRangeError, "Tried to read from index 5 but array size is: 3 "),
        (lambda: ta.read(-1), tf.errors.OutOfRangeError, "Reading from negative indices (index -1) is not allowed."),
        (lambda: ta.write(3, 1.0), tf.errors.OutOfRangeError,
         "Tried to write to index 3 but array is not resizeable and size is: 3 "),
        (lambda: ta.write(-1, 1.0), tf.errors.OutOfRangeError,
         "Writing to negative indices (index -1) is not allowed."),
        (lambda: ta.write(1, tf.constant(1, tf.int32)), tf.errors.InvalidArgumentError,
         "TensorArray dtype is float32 but Op is trying to write dtype int32 "),
        (lambda: tf.TensorArray(tf.int32, size=2).write(0, 1.0), tf.errors.InvalidArgumentError,
         "TensorArray dtype is int32 but Op is trying to write dtype float32 "),
        (lambda: ta.read(1), ValueError, "Cannot convert a partially known TensorShape <unknown> to a Tensor."),
        (lambda: ta.stack(), ValueError, "Cannot convert a partially known TensorShape <unknown> to a Tensor."),
        (lambda: tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0]), ValueError,
         "Incompatible shape for value ((2,)), expected ((1,))"),
        (lambda: tf.TensorArray(tf.float32, size=3, element_shape=[2]).write(0, [1.0, 2.0, 3.0]), ValueError,
         "Incompatible shape for value ((3,)), expected ((2,))"),
        (lambda: tf.TensorArray(tf.float32, size=2).unstack(tf.range(6.0)), ValueError,
         "Cannot unstack 6 tensors into a TensorArray of static size 2 "),
        (lambda: tf.TensorArray(tf.float32, size=2).split(tf.range(6.0), [1, 2, 3]), tf.errors.InvalidArgumentError,
         "TensorArray's size is not equal to the size of lengths (2 vs. 3), and the TensorArray is not "
         "marked as dynamically resizeable."),
        (lambda: tf.TensorArray(tf.float32, size=3).split(tf.range(6.0), [1, 2, 2]), tf.errors.InvalidArgumentError,
         "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 5 and value's "
         "shape is: [6] "),
        (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0).concat(),
         tf.errors.InvalidArgumentError, "Concat saw a scalar shape at index 0 but requires at least vectors."),
        (lambda: tf.TensorArray(tf.float32), ValueError,
         "Size must be declared for TensorArrays when eager execution is enabled."),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as caught:
            call()
        assert str(caught.value) == message
