"""gradmagic.tf's segment reductions (``tf.math.segment_*``, ``tf.math.unsorted_segment_*``) and
scatters (``tf.scatter_nd``, ``tf.tensor_scatter_nd_*``) against TensorFlow: each case runs the
same code TensorFlow 2.21.0 ran (see ``_tensorflow.py``), in float64 and in float32 (the
inputs cast), and gives its numbers; then the errors, in TensorFlow's words."""

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic.tf as tf

D = [[3.0, -2.0, 0.5], [3.0, 1.0, -1.0], [1.5, 4.0, 2.5], [-0.5, 1.0, 2.5], [2.0, -3.0, 0.0]]
SORTED = [0, 0, 2, 2, 2]  # segment 1 is empty; ties: column 0 of segment 0, column 2 of segment 2
UNSORTED = [2, 0, -1, 2, 0]  # row 2 dropped; segments 1 and 3 empty
P = [[0.0, 2.0], [3.0, 0.0], [0.0, -1.5], [2.0, 0.0], [0.5, 0.0]]  # one zero, and two, per segment
T = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
U = [[10.0, -20.0], [0.5, 7.0], [-3.0, 1.5]]


def in_dtype(fn, dtype):
    """``fn`` on its inputs cast to ``dtype`` (the float32 runs of a case)."""
    return lambda *xs: fn(*[tf.cast(x, dtype) for x in xs])


FUNCTIONS = {
    "segment_sum": (lambda x: tf.math.segment_sum(x, SORTED), D),
    "segment_mean": (lambda x: tf.math.segment_mean(x, SORTED), D),
    "segment_max": (lambda x: tf.math.segment_max(x, SORTED), D),
    "segment_min": (lambda x: tf.math.segment_min(x, SORTED), D),
    "segment_prod": (lambda x: tf.math.segment_prod(x, SORTED), D),
    "segment_prod-zeros": (lambda x: tf.math.segment_prod(x, [0, 0, 1, 1, 1]), P),
    "segment_max-ties-everywhere": (lambda x: tf.math.segment_max(x, [0, 0, 0, 1]), [2.0, 2.0, 2.0, -1.0]),
    "unsorted_segment_sum": (lambda x: tf.math.unsorted_segment_sum(x, UNSORTED, 4), D),
    "unsorted_segment_mean": (lambda x: tf.math.unsorted_segment_mean(x, UNSORTED, 4), D),
    "unsorted_segment_max": (lambda x: tf.math.unsorted_segment_max(x, UNSORTED, 4), D),
    "unsorted_segment_min": (lambda x: tf.math.unsorted_segment_min(x, UNSORTED, 4), D),
    "unsorted_segment_sum-2d-ids": (lambda x: tf.math.unsorted_segment_sum(x, [[1, 0], [1, 1]], 3),
                                    [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]),
    "unsorted_segment_max-minus-inf": (lambda x: tf.math.unsorted_segment_max(x, [0, 1, 1], 2),
                                       [float("-inf"), 1.0, 2.0]),
    "unsorted_segment_min-scalar-id": (lambda x: tf.math.unsorted_segment_min(x, 1, 2), [1.0, -2.0]),
    "scatter_nd-rows-repeated": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [4, 2]), U),
    "scatter_nd-elements": (lambda u: tf.scatter_nd([[0, 1], [2, 0], [0, 1]], u, [3, 2]), [1.5, -2.0, 4.0]),
    "tensor_scatter_nd_add": (lambda t, u: tf.tensor_scatter_nd_add(t, [[1], [0], [1]], u), T, U),
    "tensor_scatter_nd_sub": (lambda t, u: tf.tensor_scatter_nd_sub(t, [[2, 1], [0, 0], [2, 1]], u),
                              T, [1.5, -2.0, 4.0]),
    "tensor_scatter_nd_update": (lambda t, u: tf.tensor_scatter_nd_update(t, [[2], [0]], u), T, U[:2]),
    "tensor_scatter_nd_update-batch-of-elements": (
        lambda t, u: tf.tensor_scatter_nd_update(t, [[[0, 1]], [[2, 0]]], u), T, [[9.0], [-7.0]]),
    "tensor_scatter_nd_update-repeated": (  # TensorFlow on a CPU keeps the last; both get upstream
        lambda t, u: tf.tensor_scatter_nd_update(t, [[1], [1]], u), T, U[:2]),
}
CASES = {f"{name}-{dtype.name}": (lambda fn=fn, xs=xs, dtype=dtype: value_and_grads(in_dtype(fn, dtype), *xs))
         for name, (fn, *xs) in FUNCTIONS.items() for dtype in (tf.float64, tf.float32)}
CASES.update({
    "segment_mean-integers": lambda: [listed(tf.math.segment_mean(tf.constant([1, 2, 4, 7]), [0, 0, 1, 1])),
                                      tf.math.segment_mean(tf.constant([1, 2]), [0, 0]).dtype.name],
    "unsorted_segment_mean-integers": lambda: [
        listed(tf.math.unsorted_segment_mean(tf.constant([1, 2, 4]), [0, 0, 1], 3)),
        tf.math.unsorted_segment_mean(tf.constant([1, 2]), [0, 0], 1).dtype.name],
    "unsorted_segment_max-int32-fill": lambda: listed(tf.math.unsorted_segment_max(tf.constant([1, 2]), [0, 0], 2)),
    "unsorted_segment_min-int32-fill": lambda: listed(tf.math.unsorted_segment_min(tf.constant([1, 2]), [0, 0], 2)),
    "segment_sum-no-rows": lambda: listed(tf.shape(tf.math.segment_sum(tf.zeros([0, 2]), tf.zeros([0], tf.int32)))),
    "scatter_nd-integers": lambda: listed(tf.scatter_nd([[1], [1]], [3, 4], tf.constant([4]))),
})

TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'segment_sum-float64': [[[6.0, -1.0, -0.5], [0.0, 0.0, 0.0], [3.0, 2.0, 5.0]], [[[1.0, 2.0,
        3.0], [1.0, 2.0, 3.0], [7.0, 8.0, 9.0], [7.0, 8.0, 9.0], [7.0, 8.0, 9.0]]]],
    'segment_sum-float32': [[[6.0, -1.0, -0.5], [0.0, 0.0, 0.0], [3.0, 2.0, 5.0]], [[[1.0, 2.0,
        3.0], [1.0, 2.0, 3.0], [7.0, 8.0, 9.0], [7.0, 8.0, 9.0], [7.0, 8.0, 9.0]]]],
    'segment_mean-float64': [[[3.0, -0.5, -0.25], [0.0, 0.0, 0.0], [1.0, 0.6666666667,
        1.666666667]], [[[0.5, 1.0, 1.5], [0.5, 1.0, 1.5], [2.333333333, 2.666666667, 3.0],
        [2.333333333, 2.666666667, 3.0], [2.333333333, 2.666666667, 3.0]]]],
    'segment_mean-float32': [[[3.0, -0.5, -0.25], [0.0, 0.0, 0.0], [1.0, 0.6666666865,
        1.666666627]], [[[0.5, 1.0, 1.5], [0.5, 1.0, 1.5], [2.333333254, 2.666666746, 3.0],
        [2.333333254, 2.666666746, 3.0], [2.333333254, 2.666666746, 3.0]]]],
    'segment_max-float64': [[[3.0, 1.0, 0.5], [0.0, 0.0, 0.0], [2.0, 4.0, 2.5]], [[[0.5, 0.0, 3.0],
        [0.5, 2.0, 0.0], [0.0, 8.0, 4.5], [0.0, 0.0, 4.5], [7.0, 0.0, 0.0]]]],
    'segment_max-float32': [[[3.0, 1.0, 0.5], [0.0, 0.0, 0.0], [2.0, 4.0, 2.5]], [[[0.5, 0.0, 3.0],
        [0.5, 2.0, 0.0], [0.0, 8.0, 4.5], [0.0, 0.0, 4.5], [7.0, 0.0, 0.0]]]],
    'segment_min-float64': [[[3.0, -2.0, -1.0], [0.0, 0.0, 0.0], [-0.5, -3.0, 0.0]], [[[0.5, 2.0,
        0.0], [0.5, 0.0, 3.0], [0.0, 0.0, 0.0], [7.0, 0.0, 0.0], [0.0, 8.0, 9.0]]]],
    'segment_min-float32': [[[3.0, -2.0, -1.0], [0.0, 0.0, 0.0], [-0.5, -3.0, 0.0]], [[[0.5, 2.0,
        0.0], [0.5, 0.0, 3.0], [0.0, 0.0, 0.0], [7.0, 0.0, 0.0], [0.0, 8.0, 9.0]]]],
    'segment_prod-float64': [[[9.0, -2.0, -0.5], [1.0, 1.0, 1.0], [-1.5, -12.0, 0.0]], [[[3.0, 2.0,
        -3.0], [3.0, -4.0, 1.5], [-7.0, -24.0, 0.0], [21.0, -96.0, 0.0], [-5.25, 32.0, 56.25]]]],
    'segment_prod-float32': [[[9.0, -2.0, -0.5], [1.0, 1.0, 1.0], [-1.5, -12.0, 0.0]], [[[3.0, 2.0,
        -3.0], [3.0, -4.0, 1.5], [-7.0, -24.0, 0.0], [21.0, -96.0, 0.0], [-5.25, 32.0, 56.25]]]],
    'segment_prod-zeros-float64': [[[0.0, 0.0], [0.0, -0.0]], [[[3.0, 0.0], [0.0, 4.0], [3.0, 0.0],
        [0.0, -0.0], [0.0, -0.0]]]],
    'segment_prod-zeros-float32': [[[0.0, 0.0], [0.0, -0.0]], [[[3.0, 0.0], [0.0, 4.0], [3.0, 0.0],
        [0.0, -0.0], [0.0, -0.0]]]],
    'segment_max-ties-everywhere-float64': [[2.0, -1.0], [[0.3333333333, 0.3333333333, 0.3333333333,
        2.0]]],
    'segment_max-ties-everywhere-float32': [[2.0, -1.0], [[0.3333333433, 0.3333333433, 0.3333333433,
        2.0]]],
    'unsorted_segment_sum-float64': [[[5.0, -2.0, -1.0], [0.0, 0.0, 0.0], [2.5, -1.0, 3.0], [0.0,
        0.0, 0.0]], [[[7.0, 8.0, 9.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [7.0, 8.0, 9.0], [1.0, 2.0,
        3.0]]]],
    'unsorted_segment_sum-float32': [[[5.0, -2.0, -1.0], [0.0, 0.0, 0.0], [2.5, -1.0, 3.0], [0.0,
        0.0, 0.0]], [[[7.0, 8.0, 9.0], [1.0, 2.0, 3.0], [0.0, 0.0, 0.0], [7.0, 8.0, 9.0], [1.0, 2.0,
        3.0]]]],
    'unsorted_segment_mean-float64': [[[2.5, -1.0, -0.5], [0.0, 0.0, 0.0], [1.25, -0.5, 1.5], [0.0,
        0.0, 0.0]], [[[3.5, 4.0, 4.5], [0.5, 1.0, 1.5], [0.0, 0.0, 0.0], [3.5, 4.0, 4.5], [0.5, 1.0,
        1.5]]]],
    'unsorted_segment_mean-float32': [[[2.5, -1.0, -0.5], [0.0, 0.0, 0.0], [1.25, -0.5, 1.5], [0.0,
        0.0, 0.0]], [[[3.5, 4.0, 4.5], [0.5, 1.0, 1.5], [0.0, 0.0, 0.0], [3.5, 4.0, 4.5], [0.5, 1.0,
        1.5]]]],
    'unsorted_segment_max-float64': [[[3.0, 1.0, 0.0], [-1.7976931348623157e+308,
        -1.7976931348623157e+308, -1.7976931348623157e+308], [3.0, 1.0, 2.5],
        [-1.7976931348623157e+308, -1.7976931348623157e+308, -1.7976931348623157e+308]], [[[7.0,
        0.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 8.0, 9.0], [0.0, 0.0, 3.0]]]],
    'unsorted_segment_max-float32': [[[3.0, 1.0, 0.0], [-3.402823466e+38, -3.402823466e+38,
        -3.402823466e+38], [3.0, 1.0, 2.5], [-3.402823466e+38, -3.402823466e+38, -3.402823466e+38]],
        [[[7.0, 0.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 8.0, 9.0], [0.0, 0.0, 3.0]]]],
    'unsorted_segment_min-float64': [[[2.0, -3.0, -1.0], [1.7976931348623157e+308,
        1.7976931348623157e+308, 1.7976931348623157e+308], [-0.5, -2.0, 0.5],
        [1.7976931348623157e+308, 1.7976931348623157e+308, 1.7976931348623157e+308]], [[[0.0, 8.0,
        9.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [7.0, 0.0, 0.0], [1.0, 2.0, 0.0]]]],
    'unsorted_segment_min-float32': [[[2.0, -3.0, -1.0], [3.402823466e+38, 3.402823466e+38,
        3.402823466e+38], [-0.5, -2.0, 0.5], [3.402823466e+38, 3.402823466e+38, 3.402823466e+38]],
        [[[0.0, 8.0, 9.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0], [7.0, 0.0, 0.0], [1.0, 2.0, 0.0]]]],
    'unsorted_segment_sum-2d-ids-float64': [[[3.0, 4.0], [13.0, 16.0], [0.0, 0.0]], [[[[3.0, 4.0],
        [1.0, 2.0]], [[3.0, 4.0], [3.0, 4.0]]]]],
    'unsorted_segment_sum-2d-ids-float32': [[[3.0, 4.0], [13.0, 16.0], [0.0, 0.0]], [[[[3.0, 4.0],
        [1.0, 2.0]], [[3.0, 4.0], [3.0, 4.0]]]]],
    'unsorted_segment_max-minus-inf-float64': [[-1.7976931348623157e+308, 2.0], [[0.0, 0.0, 2.0]]],
    'unsorted_segment_max-minus-inf-float32': [[-3.402823466e+38, 2.0], [[0.0, 0.0, 2.0]]],
    'unsorted_segment_min-scalar-id-float64': [[[1.7976931348623157e+308, 1.7976931348623157e+308],
        [1.0, -2.0]], [[3.0, 4.0]]],
    'unsorted_segment_min-scalar-id-float32': [[[3.402823466e+38, 3.402823466e+38], [1.0, -2.0]],
        [[3.0, 4.0]]],
    'scatter_nd-rows-repeated-float64': [[[0.0, 0.0], [7.0, -18.5], [0.0, 0.0], [0.5, 7.0]], [[[3.0,
        4.0], [7.0, 8.0], [3.0, 4.0]]]],
    'scatter_nd-rows-repeated-float32': [[[0.0, 0.0], [7.0, -18.5], [0.0, 0.0], [0.5, 7.0]], [[[3.0,
        4.0], [7.0, 8.0], [3.0, 4.0]]]],
    'scatter_nd-elements-float64': [[[0.0, 5.5], [0.0, 0.0], [-2.0, 0.0]], [[2.0, 5.0, 2.0]]],
    'scatter_nd-elements-float32': [[[0.0, 5.5], [0.0, 0.0], [-2.0, 0.0]], [[2.0, 5.0, 2.0]]],
    'tensor_scatter_nd_add-float64': [[[1.5, 9.0], [10.0, -14.5], [5.0, 6.0]], [[[1.0, 2.0], [3.0,
        4.0], [5.0, 6.0]], [[3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]]],
    'tensor_scatter_nd_add-float32': [[[1.5, 9.0], [10.0, -14.5], [5.0, 6.0]], [[[1.0, 2.0], [3.0,
        4.0], [5.0, 6.0]], [[3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]]],
    'tensor_scatter_nd_sub-float64': [[[3.0, 2.0], [3.0, 4.0], [5.0, 0.5]], [[[1.0, 2.0], [3.0,
        4.0], [5.0, 6.0]], [-6.0, -1.0, -6.0]]],
    'tensor_scatter_nd_sub-float32': [[[3.0, 2.0], [3.0, 4.0], [5.0, 0.5]], [[[1.0, 2.0], [3.0,
        4.0], [5.0, 6.0]], [-6.0, -1.0, -6.0]]],
    'tensor_scatter_nd_update-float64': [[[0.5, 7.0], [3.0, 4.0], [10.0, -20.0]], [[[0.0, 0.0],
        [3.0, 4.0], [0.0, 0.0]], [[5.0, 6.0], [1.0, 2.0]]]],
    'tensor_scatter_nd_update-float32': [[[0.5, 7.0], [3.0, 4.0], [10.0, -20.0]], [[[0.0, 0.0],
        [3.0, 4.0], [0.0, 0.0]], [[5.0, 6.0], [1.0, 2.0]]]],
    'tensor_scatter_nd_update-batch-of-elements-float64': [[[1.0, 9.0], [3.0, 4.0], [-7.0, 6.0]],
        [[[1.0, 0.0], [3.0, 4.0], [0.0, 6.0]], [[2.0], [5.0]]]],
    'tensor_scatter_nd_update-batch-of-elements-float32': [[[1.0, 9.0], [3.0, 4.0], [-7.0, 6.0]],
        [[[1.0, 0.0], [3.0, 4.0], [0.0, 6.0]], [[2.0], [5.0]]]],
    'tensor_scatter_nd_update-repeated-float64': [[[1.0, 2.0], [0.5, 7.0], [5.0, 6.0]], [[[1.0,
        2.0], [0.0, 0.0], [5.0, 6.0]], [[3.0, 4.0], [3.0, 4.0]]]],
    'tensor_scatter_nd_update-repeated-float32': [[[1.0, 2.0], [0.5, 7.0], [5.0, 6.0]], [[[1.0,
        2.0], [0.0, 0.0], [5.0, 6.0]], [[3.0, 4.0], [3.0, 4.0]]]],
    'segment_mean-integers': [[1, 5], 'int32'],
    'unsorted_segment_mean-integers': [[1.5, 4.0, 0.0], 'float64'],
    'unsorted_segment_max-int32-fill': [2, -2147483648],
    'unsorted_segment_min-int32-fill': [1, 2147483647],
    'segment_sum-no-rows': [0, 2],
    'scatter_nd-integers': [0, 7, 0, 0],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- errors, in TensorFlow's words (TensorFlow 2.21 raises the same sentence) -----------------------
R = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])


@pytest.mark.parametrize("call, message", [
    (lambda: tf.math.segment_sum(R, [0, 2, 1, 2]),
     r"tf\.math\.segment_sum\(segment_ids\): segment ids are not increasing"),
    (lambda: tf.math.segment_max(R, [-1, 0, 1, 2]), r"tf\.math\.segment_max\(segment_ids\): Segment id -1 out of "
     r"range \[0, 3\), possibly because 'segment_ids' input is not sorted\."),
    (lambda: tf.math.segment_mean(R, [0, 0, 1]), r"tf\.math\.segment_mean\(segment_ids\): segment_ids should be "
     r"the same size as dimension 0 of input\."),
    (lambda: tf.math.segment_prod(R, [[0, 0], [1, 1]]), r"segment_ids should be a vector\."),
    (lambda: tf.math.segment_min(tf.constant(1.0), 0),
     r"tf\.math\.segment_min\(data\): input must be at least rank 1"),
    (lambda: tf.math.segment_sum(R, [0.0, 1.0, 1.0, 1.0]), r"tf\.math\.segment_sum\(segment_ids\): Value for "
     r"attr 'Tindices' of float is not in the list of allowed values: int32, int64"),
    (lambda: tf.math.segment_sum(tf.constant([True, False]), [0, 0]),
     r"Value for attr 'T' of bool is not in the list"),
    (lambda: tf.math.unsorted_segment_sum(tf.zeros([2, 2]), [[0, 1], [1, 5]], 3),
     r"tf\.math\.unsorted_segment_sum\(segment_ids\): segment_ids\[1,1\] = 5 is out of range \[0, 3\)"),
    (lambda: tf.math.unsorted_segment_max(R, [0, 1, 7, 2], 4), r"segment_ids\[2\] = 7 is out of range \[0, 4\)"),
    (lambda: tf.math.unsorted_segment_mean(R, [0, 1, 2], 4), r"tf\.math\.unsorted_segment_mean\(segment_ids\): "
     r"data\.shape = \[4,2\] does not start with segment_ids\.shape = \[3\]"),
    (lambda: tf.math.unsorted_segment_min(R, [0, 1, 1, 1], -1), r"tf\.math\.unsorted_segment_min\(num_segments\): "
     r"Input num_segments == -1 must not be negative\."),
    (lambda: tf.math.unsorted_segment_sum(R, [0, 1, 1, 1], 2.0), r"Value for attr 'Tnumsegments' of float is not "
     r"in the list of allowed values: int32, int64"),
], ids=["unsorted", "negative", "length", "matrix", "scalar-data", "float-ids", "bool-data", "out-of-range-2d",
        "out-of-range", "shape-prefix", "negative-count", "float-count"])
def test_segment_reductions_refuse_what_tensorflow_refuses(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        call()


V4 = tf.constant([1.0, 2.0, 3.0, 4.0])


@pytest.mark.parametrize("call, message", [
    (lambda: tf.tensor_scatter_nd_update(V4, [[1], [5]], [9.0, 8.0]), r"tf\.tensor_scatter_nd_update\(indices\): "
     r"indices\[1\] = \[5\] does not index into shape \[4\]"),
    (lambda: tf.tensor_scatter_nd_sub(V4, [[1], [-1]], [9.0, 8.0]),
     r"indices\[1\] = \[-1\] does not index into shape \[4\]"),
    (lambda: tf.tensor_scatter_nd_add(tf.zeros([4]), [[[1], [2]], [[3], [4]]], [[1.0, 2.0], [3.0, 4.0]]),
     r"indices\[1,1\] = \[4\] does not index into shape \[4\]"),
    (lambda: tf.tensor_scatter_nd_update(tf.zeros([2, 3]), [[1, 0], [1, 3]], [9.0, 8.0]),
     r"indices\[1\] = \[1, 3\] does not index into shape \[2,3\]"),
    (lambda: tf.tensor_scatter_nd_update(V4, [[1], [3]], [9.0, 8.0, 7.0]),
     r"tf\.tensor_scatter_nd_update\(updates\): Outer dimensions of indices and update must match\. "
     r"Indices shape: \[2,1\], updates shape:\[3\]"),
    (lambda: tf.tensor_scatter_nd_update(V4, [[1, 0], [3, 0]], [9.0, 8.0]), r"Inner dimensions of output shape "
     r"must match inner dimensions of updates shape\. Output: \[4\] updates: \[2\]"),
    (lambda: tf.tensor_scatter_nd_update(V4, [[1], [3]], tf.constant([9.0, 8.0], tf.float64)),
     r"cannot compute TensorScatterUpdate as input #2\(zero-based\) was expected to be a float tensor but is a "
     r"double tensor"),
    (lambda: tf.tensor_scatter_nd_update(V4, 1, [3.0]),
     r"Indices shape must have rank at least one\. Found:\[\]"),
    (lambda: tf.tensor_scatter_nd_add(V4, [[1.0]], [3.0]), r"tf\.tensor_scatter_nd_add\(indices\): Value for attr "
     r"'Tindices' of float is not in the list of allowed values: int16, int32, int64, uint16"),
    (lambda: tf.scatter_nd([[1], [5]], [9.0, 8.0], [4]),
     r"tf\.scatter_nd\(indices\): indices\[1\] = \[5\] does not index into shape \[4\]"),
    (lambda: tf.scatter_nd([[1], [3]], [9.0, 8.0, 7.0], [4]), r"tf\.scatter_nd\(updates\): Dimensions \[0,1\) of "
     r"indices\[shape=\[2,1\]\] must match dimensions \[0,1\) of updates\[shape=\[3\]\]"),
    (lambda: tf.scatter_nd([[1, 0], [3, 0]], [9.0, 8.0], [4]), r"Dimensions \[2,1\) of input\[shape=\[4\]\] must "
     r"match dimensions \[1,1\) of updates\[shape=\[2\]\]"),
    (lambda: tf.scatter_nd([[1], [3]], [[9.0, 8.0], [1.0, 2.0]], [4, 3]), r"Dimensions \[1,2\) of "
     r"input\[shape=\[4,3\]\] must match dimensions \[1,2\) of updates\[shape=\[2,2\]\]"),
    (lambda: tf.scatter_nd([[1]], [3.0], [-4]), r"tf\.scatter_nd\(shape\): Dimension -4 must be >= 0"),
    (lambda: tf.scatter_nd([1], 3.0, [4]),
     r"Updates shape must have rank at least one\. Found:\[\]"),
], ids=["update-beyond", "sub-negative", "add-batch", "update-element", "outer", "inner", "dtype", "scalar-indices",
        "float-indices", "scatter_nd-beyond", "scatter_nd-outer", "scatter_nd-deeper-than-shape",
        "scatter_nd-inner", "scatter_nd-negative-shape", "scatter_nd-scalar-updates"])
def test_scatters_refuse_what_tensorflow_refuses(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        call()


def test_tensor_scatter_of_indices_of_rank_one_says_it_is_not_supported():
    # TensorFlow reads them as one coordinate for the shapes of updates and as several for its
    # own checks (tf.tensor_scatter_nd_update(tf.zeros([4]), [1, 3], [9., 8.]) is refused there)
    with pytest.raises(NotImplementedError, match=r"tf\.tensor_scatter_nd_update\(indices of shape \[2\]\) is "
                       r"not supported here .*indices=\[\[\.\.\.\]\]"):
        tf.tensor_scatter_nd_update(tf.zeros([4]), [1, 3], [9.0, 8.0])


def test_segment_max_second_derivative_flows_through_the_chosen_elements():
    x = tf.constant([1.0, 3.0, 3.0, 2.0])
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.math.segment_max(x * x, [0, 0, 0, 1]))
        g = inner.gradient(y, x)
    # d/dx of the max of x^2 shares 2x between the ties; its own derivative is 1 there
    # (TensorFlow 2.21.0 gives the same: [0, 3, 3, 4] and [0, 1, 1, 2])
    assert listed(g) == [0.0, 3.0, 3.0, 4.0]
    assert listed(outer.gradient(g, x)) == [0.0, 1.0, 1.0, 2.0]


def test_the_namespaces_list_the_new_functions():
    assert {"segment_sum", "unsorted_segment_max"} <= set(dir(tf.math))
    assert {"scatter_nd", "tensor_scatter_nd_update", "scan", "foldl", "foldr", "TensorSpec"} <= set(dir(tf))
    assert np.array_equal(tf.math.segment_sum([1, 2], [0, 0]).numpy(), [3])  # as TensorFlow 2.21.0
