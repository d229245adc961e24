"""gradmagic.tf's shape, indexing and clipping functions (``tf.gather``, ``tf.split``,
``tf.tile`` ...) against TensorFlow: each case runs the same code TensorFlow 2.21.0 ran (see
``_tensorflow.py``) and gives its numbers; then the errors, in TensorFlow's words."""

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic.tf as tf

V = [0.5, -1.5, 2.0, 0.0]
M = [[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]
P3 = np.arange(24.0).reshape(2, 3, 4).tolist()
CASES = {
    "gather": lambda: value_and_grads(lambda x: tf.gather(x, [1, 0, 1]), M),
    "gather-axis1": lambda: value_and_grads(lambda x: tf.gather(x, [[2, 0], [1, 1]], axis=1), M),
    "gather-batch_dims": lambda: value_and_grads(
        lambda x: tf.gather(x, [[2, 0], [1, 1]], axis=1, batch_dims=1), M),
    "gather-scalar-index": lambda: value_and_grads(lambda x: tf.gather(x, 1), V),
    "gather-axis-after-batch_dims": lambda: value_and_grads(
        lambda x: tf.gather(x, [[3, 0], [1, 1]], axis=2, batch_dims=1), P3),
    "gather_nd-batch_dims": lambda: value_and_grads(
        lambda x: tf.gather_nd(x, [[[1, 3], [0, 0]], [[2, 1], [2, 2]]], batch_dims=1), P3),
    "gather_nd": lambda: value_and_grads(lambda x: tf.gather_nd(x, [[0, 1], [1, 2], [0, 1]]), M),
    "gather_nd-rows": lambda: value_and_grads(lambda x: tf.gather_nd(x, [[1], [0]]), M),
    "split-sizes": lambda: value_and_grads(lambda x: tf.split(x, [1, -1], axis=1)[1] * 2.0, M),
    "split-equal": lambda: value_and_grads(lambda x: tf.split(x, 3, axis=1)[2], M),
    "repeat-counts": lambda: value_and_grads(lambda x: tf.repeat(x, [1, 2], axis=0), M),
    "repeat-flat": lambda: value_and_grads(lambda x: tf.repeat(x, 2), M),
    "tile": lambda: value_and_grads(lambda x: tf.tile(x, [2, 1]), M),
    "pad-constant": lambda: value_and_grads(lambda x: tf.pad(x, [[1, 0], [0, 2]], constant_values=7.0), M),
    "pad-reflect": lambda: value_and_grads(lambda x: tf.pad(x, [[1, 1], [1, 0]], mode="REFLECT"), M),
    "pad-symmetric": lambda: value_and_grads(lambda x: tf.pad(x, [[1, 1], [2, 0]], mode="symmetric"), M),
    "reverse": lambda: value_and_grads(lambda x: tf.reverse(x, [1]), M),
    "roll": lambda: value_and_grads(lambda x: tf.roll(x, [1, -1], [0, 1]), M),
    "boolean_mask": lambda: value_and_grads(lambda x: tf.boolean_mask(x, [True, False, True], axis=1), M),
    "slice": lambda: value_and_grads(lambda x: tf.slice(x, [0, 1], [2, -1]), M),
    "unstack": lambda: value_and_grads(lambda x: tf.unstack(x, axis=1)[2], M),
    "stack-concat": lambda: value_and_grads(
        lambda x, y: tf.concat([tf.stack([x, y], axis=1), tf.stack([y, x], axis=1)], 0), V, V),
    "sort-descending": lambda: value_and_grads(lambda x: tf.sort(x, direction="DESCENDING"), V),
    "sort-axis0": lambda: value_and_grads(lambda x: tf.sort(x, axis=0), M),
    "argsort": lambda: [listed(tf.argsort([1.0, 3.0, 3.0, 2.0], direction="DESCENDING")),
                        listed(tf.argsort([[3.0, 1.0, 2.0]], axis=-1))],
    "where-coordinates": lambda: listed(tf.where([[True, False], [False, True]])),
    "where": lambda: value_and_grads(lambda x, y: tf.where(x > y, x, y * 2.0), V, [0.0, 0.0, 3.0, 1.0]),
    "broadcast_to": lambda: value_and_grads(lambda x: tf.broadcast_to(x, [3, 4]), V),
    "one_hot": lambda: [listed(tf.one_hot([0, 2, -1], 3)), listed(tf.one_hot([0, 2], 3, axis=0)),
                        listed(tf.one_hot([0, 2], 3, on_value=5, off_value=-1))],
    "linspace": lambda: [value_and_grads(lambda a, b: tf.linspace(a, b, 4), 1.0, 3.0),
                         listed(tf.linspace(0, 1, 3)), str(tf.linspace(0, 1, 3).numpy().dtype),
                         str(tf.linspace(0.0, 1.0, 3).numpy().dtype)],
    "eye": lambda: [listed(tf.eye(2, 3)), listed(tf.eye(2, batch_shape=[2]))],
}

TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'gather': [[[1.0, 3.0, -0.25], [0.5, -1.5, 2.0], [1.0, 3.0, -0.25]],
               [[[4.0, 5.0, 6.0], [8.0, 10.0, 12.0]]]],
    'gather-axis1': [[[[2.0, 0.5], [-1.5, -1.5]], [[-0.25, 1.0], [3.0, 3.0]]],
                     [[[2.0, 7.0, 1.0], [6.0, 15.0, 5.0]]]],
    'gather-batch_dims': [[[2.0, 0.5], [3.0, 3.0]], [[[2.0, 0.0, 1.0], [0.0, 7.0, 0.0]]]],
    'gather-scalar-index': [-1.5, [[0.0, 1.0, 0.0, 0.0]]],
    'gather-axis-after-batch_dims': [
        [[[3.0, 0.0], [7.0, 4.0], [11.0, 8.0]], [[13.0, 13.0], [17.0, 17.0], [21.0, 21.0]]],
        [[[[2.0, 0.0, 0.0, 1.0], [4.0, 0.0, 0.0, 3.0], [6.0, 0.0, 0.0, 5.0]],
          [[0.0, 15.0, 0.0, 0.0], [0.0, 19.0, 0.0, 0.0], [0.0, 23.0, 0.0, 0.0]]]]],
    'gather_nd-batch_dims': [
        [[7.0, 0.0], [21.0, 22.0]],
        [[[[2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]],
          [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 4.0, 0.0]]]]],
    'gather_nd': [[-1.5, -0.25, -1.5], [[[0.0, 4.0, 0.0], [0.0, 0.0, 2.0]]]],
    'gather_nd-rows': [[[1.0, 3.0, -0.25], [0.5, -1.5, 2.0]], [[[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]]]],
    'split-sizes': [[[-3.0, 4.0], [6.0, -0.5]], [[[0.0, 2.0, 4.0], [0.0, 6.0, 8.0]]]],
    'split-equal': [[[2.0], [-0.25]], [[[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]],
    'repeat-counts': [[[0.5, -1.5, 2.0], [1.0, 3.0, -0.25], [1.0, 3.0, -0.25]],
                      [[[1.0, 2.0, 3.0], [11.0, 13.0, 15.0]]]],
    'repeat-flat': [[0.5, 0.5, -1.5, -1.5, 2.0, 2.0, 1.0, 1.0, 3.0, 3.0, -0.25, -0.25],
                    [[[3.0, 7.0, 11.0], [15.0, 19.0, 23.0]]]],
    'tile': [[[0.5, -1.5, 2.0], [1.0, 3.0, -0.25], [0.5, -1.5, 2.0], [1.0, 3.0, -0.25]],
             [[[8.0, 10.0, 12.0], [14.0, 16.0, 18.0]]]],
    'pad-constant': [[[7.0, 7.0, 7.0, 7.0, 7.0], [0.5, -1.5, 2.0, 7.0, 7.0],
                      [1.0, 3.0, -0.25, 7.0, 7.0]],
                     [[[6.0, 7.0, 8.0], [11.0, 12.0, 13.0]]]],
    'pad-reflect': [[[3.0, 1.0, 3.0, -0.25], [-1.5, 0.5, -1.5, 2.0], [3.0, 1.0, 3.0, -0.25],
                     [-1.5, 0.5, -1.5, 2.0]],
                    [[[20.0, 40.0, 24.0], [12.0, 24.0, 16.0]]]],
    'pad-symmetric': [[[-1.5, 0.5, 0.5, -1.5, 2.0], [-1.5, 0.5, 0.5, -1.5, 2.0],
                       [3.0, 1.0, 1.0, 3.0, -0.25], [3.0, 1.0, 1.0, 3.0, -0.25]],
                      [[[20.0, 20.0, 15.0], [60.0, 60.0, 35.0]]]],
    'reverse': [[[2.0, -1.5, 0.5], [-0.25, 3.0, 1.0]], [[[3.0, 2.0, 1.0], [6.0, 5.0, 4.0]]]],
    'roll': [[[3.0, -0.25, 1.0], [-1.5, 2.0, 0.5]], [[[6.0, 4.0, 5.0], [3.0, 1.0, 2.0]]]],
    'boolean_mask': [[[0.5, 2.0], [1.0, -0.25]], [[[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]]],
    'slice': [[[-1.5, 2.0], [3.0, -0.25]], [[[0.0, 1.0, 2.0], [0.0, 3.0, 4.0]]]],
    'unstack': [[2.0, -0.25], [[[0.0, 0.0, 1.0], [0.0, 0.0, 2.0]]]],
    'stack-concat': [[[0.5, 0.5], [-1.5, -1.5], [2.0, 2.0], [0.0, 0.0], [0.5, 0.5], [-1.5, -1.5],
                      [2.0, 2.0], [0.0, 0.0]],
                     [[11.0, 15.0, 19.0, 23.0], [11.0, 15.0, 19.0, 23.0]]],
    'sort-descending': [[2.0, 0.5, 0.0, -1.5], [[2.0, 4.0, 1.0, 3.0]]],
    'sort-axis0': [[[0.5, -1.5, -0.25], [1.0, 3.0, 2.0]], [[[1.0, 2.0, 6.0], [4.0, 5.0, 3.0]]]],
    'argsort': [[1, 2, 3, 0], [[1, 2, 0]]],
    'where-coordinates': [[0, 0], [1, 1]],
    'where': [[0.5, 0.0, 6.0, 2.0], [[1.0, 0.0, 0.0, 0.0], [0.0, 4.0, 6.0, 8.0]]],
    'broadcast_to': [[[0.5, -1.5, 2.0, 0.0], [0.5, -1.5, 2.0, 0.0], [0.5, -1.5, 2.0, 0.0]],
                     [[15.0, 18.0, 21.0, 24.0]]],
    'one_hot': [[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]],
                [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]], [[5, -1, -1], [-1, -1, 5]]],
    'linspace': [[[1.0, 1.666666667, 2.333333333, 3.0], [3.333333333, 6.666666667]], [0.0, 0.5, 1.0],
                 'float64', 'float32'],
    'eye': [[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]]],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- errors, in TensorFlow's words (TensorFlow 2.21 raises the same sentence) -----------------------
P = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


@pytest.mark.parametrize("indices, message", [
    ([0, 5], r"tf\.gather: indices\[1\] = 5 is not in \[0, 2\)"),
    ([-1], r"tf\.gather: indices\[0\] = -1 is not in \[0, 2\)"),  # NumPy would take the last row
    ([[0], [2]], r"tf\.gather: indices\[1,0\] = 2 is not in \[0, 2\)"),
], ids=["past-the-end", "negative", "nested"])
def test_gather_refuses_an_index_out_of_range(indices, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.gather(P, indices)


def test_gather_refuses_float_indices_and_batch_dimensions_that_disagree():
    with pytest.raises(TypeError, match=r"tf\.gather\(indices\): expected integer indices \(int32 or int64\), "
                                        "got a tensor of dtype float32"):
        tf.gather(P, [0.0])
    with pytest.raises(ValueError, match=r"^tf\.gather_nd: Argument `batch_dims` = 2 must be less than "
                                         r"rank\(`indices`\) = 2$"):  # TensorFlow's words
        tf.gather_nd(tf.zeros([2, 3, 4]), [[1], [3]], batch_dims=2)
    with pytest.raises(ValueError, match=r"params and indices must agree on the first 1 dimension"):
        tf.gather(P, [[0], [1], [0]], axis=1, batch_dims=1)


def test_gather_nd_refuses_coordinates_outside_the_params():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"tf\.gather_nd: indices\[0\] = \[0, 3\] does not index into param shape \[2, 3\]"):
        tf.gather_nd(P, [[0, 3]])


def test_split_refuses_what_does_not_divide():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Number of ways to split should evenly divide the split dimension, but got "
                             r"split_dim 0 \(size = 6\) and num_split 4"):
        tf.split(tf.range(6.0), 4)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Determined shape must either match input shape "
                                                             r"along split_dim exactly.*Got: 5"):
        tf.split(tf.range(6.0), [1, 2, 2])


def test_tile_repeat_slice_and_pad_refuse_what_tensorflow_refuses():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Expected multiples argument to be a vector of length 2 but got length 1"):
        tf.tile(P, [2])
    with pytest.raises(ValueError, match=r"tf\.repeat\(repeats\): Dimensions 2 and 3 are not compatible"):
        tf.repeat(P, [1, 2, 3], axis=0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected size\[0\] in \[0, 2\], but got 3"):
        tf.slice(P, [0, 1], [3, -1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="The first dimension of paddings must be the rank"):
        tf.pad(P, [[1, 0]])


def test_boolean_mask_needs_a_mask_of_the_shape_it_masks():
    with pytest.raises(ValueError,
                       match=r"the mask's shape \(2,\) must match the tensor's shape from axis 1, \(3,\)"):
        tf.boolean_mask(P, [True, False], axis=1)


def test_where_needs_both_x_and_y_or_neither():
    with pytest.raises(ValueError, match=r"tf\.where\(condition, x, y\): x and y must both be given, or neither"):
        tf.where([True], x=[1.0])


def test_an_invalid_argument_is_a_value_error_too():
    assert issubclass(tf.errors.InvalidArgumentError, ValueError)
    assert issubclass(tf.errors.InvalidArgumentError, tf.errors.OpError)


def test_a_list_holding_tensors_is_packed_with_its_gradient():
    # TensorFlow's conversion packs a list holding Tensors (tf.stack of its elements, numbers
    # taking the Tensors' dtype), so it has a gradient: TensorFlow 2.21.0 gave these numbers
    v, x = tf.Variable(1.5), tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.convert_to_tensor([v, 2 * v])
        b = tf.convert_to_tensor([[x, 1.0], [3.0, x * x]])
        c = tf.reduce_sum(tf.multiply(tf.constant([1.0, 2.0]), [v, v * 2]))
    assert a.numpy().tolist() == [1.5, 3.0] and float(tape.gradient(a, v)) == 3.0
    assert b.dtype == np.float32 and b.numpy().tolist() == [[2.0, 1.0], [3.0, 4.0]]
    assert float(tape.gradient(b, x)) == 5.0
    assert float(c) == 7.5 and float(tape.gradient(c, v)) == 5.0
    assert tf.convert_to_tensor([1, 2]).dtype == np.int32  # no Tensor in it: as before
    assert tf.convert_to_tensor([1, 2], dtype=tf.float32).dtype == np.float32


def test_packing_refuses_what_tensorflow_refuses():
    x = tf.constant(2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute Pack as input #1\(zero-based\) "
                       r"was expected to be a float tensor but is a int32 tensor"):
        tf.convert_to_tensor([x, tf.constant(1)])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shapes of all inputs must match: "
                       r"values\[0\]\.shape = \[\] != values\[1\]\.shape = \[2\]"):
        tf.convert_to_tensor([x, tf.constant([1.0, 2.0])])


def test_a_shape_answers_as_tensorflows_tensorshape():
    # TensorFlow 2.21.0: tf.zeros([3, 1]).shape.as_list() is [3, 1], rank and ndims 2,
    # num_elements() 3; TensorShape([None, 3]) has None elements. (TensorFlow's also equals the
    # list [3, 1]; gradmagic's compares as the tuple it is, as NumPy's shapes do)
    s = tf.zeros([3, 1]).shape
    assert s.as_list() == [3, 1] and s.rank == s.ndims == 2 and s.num_elements() == 3
    assert s == (3, 1) and s != (3, 2) and s[0] == 3 and s.is_fully_defined()
    assert tf.TensorShape([2, 3]).as_list() == [2, 3]
    assert tf.TensorShape([None, 3]).num_elements() is None
    assert hash(s) == hash((3, 1))  # still a tuple, as NumPy code expects


def test_reshape_refuses_a_shape_that_does_not_fit_in_tensorflows_words():
    # TensorFlow 2.21.0 raises InvalidArgumentError with these sentences
    t = tf.zeros([2, 3])
    for shape, message in (([7, -1], "Input to reshape is a tensor with 6 values, but the requested shape "
                                     "requires a multiple of 7"),
                           ([4, 2], "Input to reshape is a tensor with 6 values, but the requested shape has 8"),
                           ([-1, -1], "Only one input size may be -1, not both 0 and 1")):
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            tf.reshape(t, shape)
    assert tf.reshape(t, [3, -1]).shape == (3, 2) and tf.reshape(tf.zeros([0, 3]), [-1, 3]).shape == (0, 3)
