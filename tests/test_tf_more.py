"""More of gradmagic.tf against TensorFlow: ``tf.unique``, ``tf.strided_slice``, the scatters'
max and min, ``tf.py_function``, the eager no-ops and asserts, and the newer ``tf.math`` and
``tf.nn`` functions. Each case runs the same code TensorFlow 2.21.0 ran (see ``_tensorflow.py``:
its values, dtypes and gradients were printed by tensorflow-cpu 2.21.0, eager, and pasted
here); then the errors, in TensorFlow's words."""

import logging

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic.tf as tf

V = [0.5, -1.5, 2.0, 0.0]
M = [[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]
X234 = np.arange(24.0).reshape(2, 3, 4) / 4 - 2


def dtypes(*ts):
    return [t.numpy().dtype.name for t in ts]


def config(init):
    return [[k, v] for k, v in sorted(init.get_config().items())]


def grads_of(fn, *xs, dtype=np.float32):
    """``[value, dtype, [gradients]]`` of ``fn`` at ``xs`` made ``dtype``; an output that is
    not floating, or a gradient the tape gives as None, is shown as None."""
    xs = [tf.constant(np.asarray(x, dtype=dtype)) for x in xs]
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xs)
        y = fn(*xs)
        value = y.numpy()
        weights = np.arange(1.0, 1 + value.size).reshape(value.shape)
        loss = tf.reduce_sum(tf.cast(y, tf.float64) * weights) if value.dtype.kind == "f" else None
    return [listed(y), value.dtype.name, None if loss is None else listed(tape.gradient(loss, xs))]


CASES = {
    # -- tf.* array functions
    "top_k-nn": lambda: value_and_grads(lambda x: tf.nn.top_k(x, k=2).values, M),
    "top_k-indices": lambda: [listed(tf.nn.top_k(M, 2).indices), type(tf.nn.top_k(M, 2)).__name__],
    "unique": lambda: [listed(tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])), dtypes(*tf.unique([3.0, 1.0, 3.0]))],
    "unique-out_idx": lambda: [listed(tf.unique([3.0, 1.0, 3.0], out_idx=tf.int64)),
                               dtypes(*tf.unique([3.0, 1.0, 3.0], out_idx=tf.int64))],
    "unique_with_counts": lambda: [listed(tf.unique_with_counts([5, 1, 5, 2, 1, 5])),
                                   dtypes(*tf.unique_with_counts([5, 1, 5, 2, 1, 5]))],
    "searchsorted": lambda: [listed(tf.searchsorted([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]], [[2.0, 2.5], [1.0, 5.0]])),
                             listed(tf.searchsorted([[1.0, 2.0, 3.0], [1.0, 1.0, 4.0]], [[2.0, 2.5], [1.0, 5.0]],
                                                    side="right")),
                             dtypes(tf.searchsorted([1, 2, 3], [2], out_type=tf.int64))],
    "sequence_mask": lambda: [listed(tf.sequence_mask([1, 3, 2], 5)), listed(tf.sequence_mask([[1, 3], [2, 0]])),
                              listed(tf.sequence_mask([1, 2], dtype=tf.float32)),
                              dtypes(tf.sequence_mask([1, 2], dtype=tf.float32))],
    "meshgrid-xy": lambda: grads_of(lambda x, y: tf.concat([tf.reshape(g, [-1]) for g in tf.meshgrid(x, y)], 0),
                                    [1.0, 2.0, 3.0], [4.0, 5.0]),
    "meshgrid-ij": lambda: grads_of(
        lambda x, y, z: tf.concat([tf.reshape(g, [-1]) for g in tf.meshgrid(x, y, z, indexing="ij")], 0),
        [1.0, 2.0], [[3.0, 4.0, 5.0]], [6.0, 7.0], dtype=np.float64),
    "reverse_sequence": lambda: grads_of(lambda x: tf.reverse_sequence(x, [2, 3], seq_axis=1, batch_axis=0),
                                         [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]),
    "reverse_sequence-batch1": lambda: grads_of(
        lambda x: tf.reverse_sequence(x, [3, 1], seq_axis=0, batch_axis=1), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    "scalar_mul": lambda: grads_of(lambda x: tf.scalar_mul(2.5, x), V, dtype=np.float64),
    "realdiv": lambda: grads_of(tf.realdiv, [1.0, 2.0], [2.0, 4.0]),
    "truncatediv": lambda: [listed(tf.truncatediv([-7, 7, 6], [2, -2, 3])),
                            grads_of(tf.truncatediv, [-7.0, 7.0], [2.0, -2.0])],
    "truncatemod": lambda: [listed(tf.truncatemod([-7, 7], [2, -2])),
                            listed(tf.truncatemod([-7.5, 7.0], [2.0, -2.0]))],
    "shape_n": lambda: [listed(tf.shape_n([tf.ones([2, 3]), [1, 2]])),
                        dtypes(*tf.shape_n([tf.ones([2, 3])], out_type=tf.int64))],
    "identity_n": lambda: grads_of(lambda x, y: tf.concat(tf.identity_n([x, y * 2]), 0), [1.0, 2.0], [3.0]),
    "unravel_index": lambda: [listed(tf.unravel_index([5, 7], [3, 4])), listed(tf.unravel_index(5, [3, 4])),
                              dtypes(tf.unravel_index(tf.constant([5], tf.int64), tf.constant([3, 4], tf.int64)))],
    "saturate_cast": lambda: [listed(tf.saturate_cast([300.0, -5.0, 1.7, np.nan], tf.uint8)),
                              listed(tf.saturate_cast([1e10, -1e10], tf.int32)),
                              listed(tf.saturate_cast([70000], tf.int16)),
                              dtypes(tf.saturate_cast([1.0], tf.float16))],
    "saturate_cast-gradient": lambda: grads_of(lambda x: tf.saturate_cast(x, tf.float16), [1e6, 2.0, -7e4]),
    "ensure_shape": lambda: grads_of(lambda x: tf.ensure_shape(x * 2, [2, None]), M),
    "get_static_value": lambda: [listed(tf.get_static_value(tf.constant([1, 2]))),
                                 tf.get_static_value([1, 2]), tf.get_static_value(3),
                                 tf.get_static_value(tf.Variable(2.0))],
    "as_dtype": lambda: [tf.as_dtype(t).name for t in ("float32", np.float64, tf.int32, float, "double")],
    "strided_slice-strides": lambda: grads_of(lambda x: tf.strided_slice(x, [0, 1, 0], [2, 3, 4], [1, 1, 2]), X234),
    "strided_slice-shrink": lambda: grads_of(lambda x: tf.strided_slice(x, [1, 0], [2, 2], shrink_axis_mask=1), X234),
    "strided_slice-masks-reverse": lambda: grads_of(
        lambda x: tf.strided_slice(x, [0, 0], [0, 0], begin_mask=3, end_mask=3, strides=[1, -1]), X234),
    "strided_slice-ellipsis": lambda: grads_of(lambda x: tf.strided_slice(x, [0, 1], [0, 2], ellipsis_mask=1), X234),
    "strided_slice-new_axis": lambda: grads_of(
        lambda x: tf.strided_slice(x, [0, 0, 1], [1, 0, 2], new_axis_mask=2, shrink_axis_mask=1), X234),
    "strided_slice-negative": lambda: grads_of(
        lambda x: tf.strided_slice(x, [-1, 3], [0, -10], strides=[1, -1], shrink_axis_mask=1), X234),
    "strided_slice-clamped": lambda: grads_of(lambda x: tf.strided_slice(x, [-10], [10]), [1.0, 2.0, 3.0]),
    "strided_slice-positional": lambda: listed(tf.shape(tf.strided_slice(X234, [0, 1], [2, 3], [1, 1], 0, 0, 1, 2, 0))),
    "tensor_scatter_nd_max": lambda: grads_of(
        lambda t, u: tf.tensor_scatter_nd_max(t, [[0, 0], [0, 1], [1, 1], [1, 1]], u),
        [[1.0, 5.0], [2.0, 0.0]], [3.0, 5.0, 4.0, 1.0]),
    "tensor_scatter_nd_min": lambda: grads_of(
        lambda t, u: tf.tensor_scatter_nd_min(t, [[0, 0], [0, 1], [1, 1], [1, 1]], u),
        [[1.0, 5.0], [2.0, 0.0]], [3.0, 5.0, 4.0, 1.0], dtype=np.float64),
    "tensor_scatter_nd_max-rows": lambda: grads_of(
        lambda t, u: tf.tensor_scatter_nd_max(t, [[0]], u), [[1.0, 5.0], [2.0, 0.0]], [[3.0, 5.0]]),
    # -- py_function, numpy_function, initializers
    "py_function": lambda: grads_of(lambda x: tf.py_function(lambda a: a * a, [x], tf.float32), [1.0, 2.0]),
    "py_function-list": lambda: grads_of(
        lambda x: tf.concat(tf.py_function(lambda a, b: [a * b, a + b], [x, 3.0], [tf.float32, tf.float32]), 0),
        [1.0, 2.0]),
    "py_function-numbers": lambda: [dtypes(tf.py_function(lambda: 3, [], tf.int32)),
                                    dtypes(tf.py_function(lambda: 3, [], tf.float32)),
                                    dtypes(tf.py_function(lambda: np.float64(3.0), [], tf.float32)),
                                    listed(tf.py_function(lambda a: None, [1.0], []))],
    "numpy_function": lambda: grads_of(lambda x: tf.numpy_function(lambda a: a * a, [x], tf.float32), [1.0, 2.0]),
    "numpy_function-dtypes": lambda: [
        dtypes(tf.numpy_function(lambda: 3, [], tf.int64), tf.numpy_function(lambda: 3.0, [], tf.float32),
               *tf.numpy_function(lambda a, b: [a, b], [1.0, 2], [tf.float64, tf.int64]),
               tf.numpy_function(lambda a: a, [tf.constant(1.0)], tf.float32))],
    "initializers": lambda: [listed(tf.constant_initializer(2.0)([2, 2])), listed(tf.constant_initializer([1, 2, 3, 4])([2, 2])),
                             dtypes(tf.constant_initializer(2.0)([2], tf.float64),
                                    tf.constant_initializer([1, 2, 3, 4])([2, 2], tf.int32),
                                    tf.zeros_initializer()([2], tf.int32), tf.ones_initializer()([2], tf.bool),
                                    tf.ones_initializer()([1]), tf.random_normal_initializer()([3], tf.float64),
                                    tf.random_uniform_initializer(-1, 1)([2], dtype=tf.int32)),
                             listed(tf.zeros_initializer()([2, 1])), listed(tf.ones_initializer()([3])),
                             config(tf.constant_initializer([1, 2])), config(tf.random_normal_initializer(seed=1)),
                             config(tf.random_uniform_initializer(-1, 1, seed=1))],
    "no-ops": lambda: [tf.group(tf.constant(1)), tf.no_op(), tf.no_gradient("Foo"), tf.inside_function(),
                       tf.get_logger().name, tf.assert_equal([1, 2], [1, 2]), tf.assert_less(1.0, 2.0),
                       tf.assert_greater([2, 3], 1), tf.assert_rank([1, 2], 1)],
    # -- tf.math
    "math.xlog1py": lambda: value_and_grads(tf.math.xlog1py, [0.0, 1.0, 2.0, 0.0], [3.0, 0.5, 2.0, -1.0]),
    "math.multiply_no_nan": lambda: [grads_of(lambda x: tf.math.multiply_no_nan(x, tf.constant([0.0, 2.0])),
                                              [np.inf, 3.0]),
                                     grads_of(lambda y: tf.math.multiply_no_nan(tf.constant([2.0, np.inf]), y),
                                              [0.0, 0.0])],
    "math.multiply_no_nan-broadcast": lambda: value_and_grads(tf.math.multiply_no_nan, M, [0.0, 2.0, -1.0]),
    "math.cumulative_logsumexp": lambda: value_and_grads(lambda x: tf.math.cumulative_logsumexp(x, axis=1), M),
    "math.cumulative_logsumexp-exclusive-reverse": lambda: value_and_grads(
        lambda x: tf.math.cumulative_logsumexp(x, exclusive=True, reverse=True), V),
    "math.cumulative_logsumexp-range": lambda: grads_of(tf.math.cumulative_logsumexp, [-1000.0, 0.0, 1.0]),
    "math.rint": lambda: grads_of(tf.math.rint, [0.5, 1.5, 2.5, -0.5, -1.7]),
    "math.polyval": lambda: value_and_grads(lambda c, x: tf.math.polyval([c, 2.0 * c, tf.constant(3.0, tf.float64)], x),
                                            1.5, V),
    "math.polyval-empty": lambda: grads_of(lambda x: tf.math.polyval([], x), [1.0, 2.0]),
    "math.lbeta": lambda: value_and_grads(tf.math.lbeta, [[1.0, 2.0], [3.0, 0.5]]),
    "math.is_non_decreasing": lambda: [listed(tf.math.is_non_decreasing([1, 1, 2])),
                                       listed(tf.math.is_non_decreasing([[1, 3], [2, 4]])),
                                       listed(tf.math.is_strictly_increasing([1, 1, 2])),
                                       listed(tf.math.is_strictly_increasing([1.0, 2.0, 3.5])),
                                       listed(tf.math.is_strictly_increasing([]))],
    "math.zero_fraction": lambda: [grads_of(tf.math.zero_fraction, [0.0, 2.0, 0.0]),
                                   listed(tf.nn.zero_fraction([[0, 1], [2, 3]]))],
    "math.accumulate_n": lambda: value_and_grads(lambda x, y: tf.math.accumulate_n([x, y, x]), V, V),
    "math.invert_permutation": lambda: [listed(tf.math.invert_permutation([2, 0, 3, 1])),
                                        dtypes(tf.math.invert_permutation(tf.constant([1, 0], tf.int64)))],
    "math.bincount": lambda: [listed(tf.math.bincount([1, 1, 3, 0])), listed(tf.math.bincount([1, 1, 3], minlength=6)),
                              listed(tf.math.bincount([1, 1, 3], maxlength=2)),
                              listed(tf.math.bincount([[1, 2], [2, 2]], axis=-1)),
                              listed(tf.math.bincount([1, 1, 3], binary_output=True)),
                              dtypes(tf.math.bincount([1], dtype=tf.int64), tf.math.bincount([1], weights=[2.0]))],
    "math.confusion_matrix": lambda: [listed(tf.math.confusion_matrix([0, 1, 2, 1], [1, 1, 2, 0])),
                                      listed(tf.math.confusion_matrix([0, 1], [1, 1], num_classes=3)),
                                      grads_of(lambda w: tf.math.confusion_matrix([0, 1, 1], [1, 1, 1], weights=w,
                                                                                  dtype=tf.float32), [1.0, 2.0, 3.0])],
    "math.in_top_k": lambda: [listed(tf.math.in_top_k([0, 1, 2], [[1.0, 2.0, 0.5], [2.0, 2.0, 1.0],
                                                                  [0.0, 1.0, 3.0]], 1)),
                              listed(tf.nn.in_top_k([0, 1], [[1.0, 2.0, 0.5], [np.nan, 2.0, 1.0]], 2))],
    "math.unsorted_segment_prod": lambda: value_and_grads(
        lambda x: tf.math.unsorted_segment_prod(x, [0, 0, 2, 0], 3), [[1.0, 2.0], [3.0, 0.5], [-2.0, 4.0], [2.0, 0.0]]),
    "math.unsorted_segment_sqrt_n": lambda: value_and_grads(
        lambda x: tf.math.unsorted_segment_sqrt_n(x, [0, 0, 2, -1], 3), [1.0, 2.0, 3.0, 4.0]),
    "math.nextafter": lambda: [grads_of(tf.math.nextafter, [1.0, 2.0], [2.0, 0.0]),
                               grads_of(tf.math.nextafter, [1.0, 2.0], [2.0, 0.0], dtype=np.float64)],
    # -- tf.nn
    "nn.crelu": lambda: value_and_grads(tf.nn.crelu, M),
    "nn.crelu-axis0": lambda: value_and_grads(lambda x: tf.nn.crelu(x, axis=0), [-1.0, 0.0, 2.0]),
    "nn.weighted_cross_entropy_with_logits": lambda: value_and_grads(
        lambda z, x: tf.nn.weighted_cross_entropy_with_logits(z, x, 3.0), [0.0, 1.0, 0.5, 1.0], [-100.0, 2.0, 0.0, 0.5]),
    "nn.log_poisson_loss": lambda: value_and_grads(tf.nn.log_poisson_loss, [0.5, 2.0, 3.0], [0.1, -1.0, 2.0]),
    "nn.log_poisson_loss-full": lambda: value_and_grads(
        lambda z, c: tf.nn.log_poisson_loss(z, c, compute_full_loss=True), [0.5, 2.0, 3.0], [0.1, -1.0, 2.0]),
    "nn.sufficient_statistics": lambda: value_and_grads(
        lambda x: tf.concat([tf.reshape(t, [-1]) for t in tf.nn.sufficient_statistics(x, [1])[:3]], 0), M),
    "nn.sufficient_statistics-shift": lambda: value_and_grads(
        lambda x, s: tf.concat([tf.reshape(t, [-1]) for t in tf.nn.sufficient_statistics(x, [0], shift=s,
                                                                                          keepdims=True)], 0),
        M, [1.0, 0.0, -1.0]),
    "nn.normalize_moments": lambda: value_and_grads(
        lambda m, v: tf.concat(tf.nn.normalize_moments(tf.constant(3.0, tf.float64), m, v, None), 0), [1.0, 6.0],
        [7.0, 20.0]),
    "nn.normalize_moments-shift": lambda: value_and_grads(
        lambda m, v, s: tf.concat(tf.nn.normalize_moments(tf.constant(3.0, tf.float64), m, v, s), 0), [1.0, 6.0],
        [7.0, 20.0], [0.5, -1.0]),
    "nn.weighted_moments": lambda: value_and_grads(
        lambda x, w: tf.concat(tf.nn.weighted_moments(x, [1], w), 0), M, [[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]),
    "nn.weighted_moments-keepdims": lambda: value_and_grads(
        lambda x, w: tf.concat([tf.reshape(t, [-1]) for t in tf.nn.weighted_moments(x, [0], w, keepdims=True)], 0),
        M, [[1.0], [3.0]]),
    "nn.compute_average_loss": lambda: [
        value_and_grads(lambda x: tf.nn.compute_average_loss(x), V),
        value_and_grads(lambda x, w: tf.nn.compute_average_loss(x, sample_weight=w, global_batch_size=8), M, [2.0, 0.5]),
        grads_of(lambda x: tf.nn.compute_average_loss(x, global_batch_size=3), V)],
    "nn.space_to_depth": lambda: value_and_grads(lambda x: tf.nn.space_to_depth(x, 2),
                                                 np.arange(32.0).reshape(1, 4, 4, 2)),
    "nn.depth_to_space": lambda: value_and_grads(lambda x: tf.nn.depth_to_space(x, 2),
                                                 np.arange(16.0).reshape(2, 1, 2, 4)),
}

INF = float("inf")
TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'top_k-nn': [[[2.0, 0.5], [3.0, 1.0]], [[[2.0, 0.0, 1.0], [4.0, 3.0, 0.0]]]],
    'top_k-indices': [[[2, 0], [1, 0]], 'TopKV2'],
    'unique': [[[1, 2, 4, 7, 8], [0, 0, 1, 2, 2, 2, 3, 4, 4]], ['float32', 'int32']],
    'unique-out_idx': [[[3.0, 1.0], [0, 1, 0]], ['float32', 'int64']],
    'unique_with_counts': [[[5, 1, 2], [0, 1, 0, 2, 1, 0], [3, 2, 1]], ['int32', 'int32', 'int32']],
    'searchsorted': [[[1, 2], [0, 3]], [[2, 2], [2, 3]], ['int64']],
    'sequence_mask': [[[True, False, False, False, False],
                       [True, True, True, False, False],
                       [True, True, False, False, False]],
                      [[[True, False, False], [True, True, True]], [[True, True, False], [False, False, False]]],
                      [[1.0, 0.0], [1.0, 1.0]],
                      ['float32']],
    'meshgrid-xy': [[1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 4.0, 4.0, 5.0, 5.0, 5.0],
                    'float32',
                    [[5.0, 7.0, 9.0], [24.0, 33.0]]],
    'meshgrid-ij': [[1.0,
                     1.0,
                     1.0,
                     1.0,
                     1.0,
                     1.0,
                     2.0,
                     2.0,
                     2.0,
                     2.0,
                     2.0,
                     2.0,
                     3.0,
                     3.0,
                     4.0,
                     4.0,
                     5.0,
                     5.0,
                     3.0,
                     3.0,
                     4.0,
                     4.0,
                     5.0,
                     5.0,
                     6.0,
                     7.0,
                     6.0,
                     7.0,
                     6.0,
                     7.0,
                     6.0,
                     7.0,
                     6.0,
                     7.0,
                     6.0,
                     7.0],
                    'float64',
                    [[21.0, 57.0], [[66.0, 74.0, 82.0]], [180.0, 186.0]]],
    'reverse_sequence': [[[2.0, 1.0, 3.0, 4.0], [7.0, 6.0, 5.0, 8.0]],
                         'float32',
                         [[[2.0, 1.0, 3.0, 4.0], [7.0, 6.0, 5.0, 8.0]]]],
    'reverse_sequence-batch1': [[[5.0, 2.0], [3.0, 4.0], [1.0, 6.0]],
                                'float32',
                                [[[5.0, 2.0], [3.0, 4.0], [1.0, 6.0]]]],
    'scalar_mul': [[1.25, -3.75, 5.0, 0.0], 'float64', [[2.5, 5.0, 7.5, 10.0]]],
    'realdiv': [[0.5, 0.5], 'float32', [[0.5, 0.5], [-0.25, -0.25]]],
    'truncatediv': [[-3, -3, 2], [[-3.0, -3.0], 'float32', [None, None]]],
    'truncatemod': [[-1, 1], [-1.5, 1.0]],
    'shape_n': [[[2, 3], [2]], ['int64']],
    'identity_n': [[1.0, 2.0, 6.0], 'float32', [[1.0, 2.0], [6.0]]],
    'unravel_index': [[[1, 1], [1, 3]], [1, 1], ['int64']],
    'saturate_cast': [[255, 0, 1, 0], [2147483520, -2147483648], [32767], ['float16']],
    'saturate_cast-gradient': [[65504.0, 2.0, -65504.0], 'float16', [[0.0, 2.0, 0.0]]],
    'ensure_shape': [[[1.0, -3.0, 4.0], [2.0, 6.0, -0.5]], 'float32', [[[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]]],
    'get_static_value': [[1, 2], [1, 2], 3, None],
    'as_dtype': ['float32', 'float64', 'int32', 'float32', 'float64'],
    'strided_slice-strides': [[[[-1.0, -0.5], [0.0, 0.5]], [[2.0, 2.5], [3.0, 3.5]]],
                              'float32',
                              [[[[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 2.0, 0.0], [3.0, 0.0, 4.0, 0.0]],
                                [[0.0, 0.0, 0.0, 0.0], [5.0, 0.0, 6.0, 0.0], [7.0, 0.0, 8.0, 0.0]]]]],
    'strided_slice-shrink': [[[1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75]],
                             'float32',
                             [[[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                               [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [0.0, 0.0, 0.0, 0.0]]]]],
    'strided_slice-masks-reverse': [[[[0.0, 0.25, 0.5, 0.75],
                                      [-1.0, -0.75, -0.5, -0.25],
                                      [-2.0, -1.75, -1.5, -1.25]],
                                     [[3.0, 3.25, 3.5, 3.75], [2.0, 2.25, 2.5, 2.75], [1.0, 1.25, 1.5, 1.75]]],
                                    'float32',
                                    [[[[9.0, 10.0, 11.0, 12.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0]],
                                      [[21.0, 22.0, 23.0, 24.0],
                                       [17.0, 18.0, 19.0, 20.0],
                                       [13.0, 14.0, 15.0, 16.0]]]]],
    'strided_slice-ellipsis': [[[[-1.75], [-0.75], [0.25]], [[1.25], [2.25], [3.25]]],
                               'float32',
                               [[[[0.0, 1.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 3.0, 0.0, 0.0]],
                                 [[0.0, 4.0, 0.0, 0.0], [0.0, 5.0, 0.0, 0.0], [0.0, 6.0, 0.0, 0.0]]]]],
    'strided_slice-new_axis': [[[[-1.0, -0.75, -0.5, -0.25]]],
                               'float32',
                               [[[[0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0]],
                                 [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]]]],
    'strided_slice-negative': [[[3.0, 3.25, 3.5, 3.75], [2.0, 2.25, 2.5, 2.75], [1.0, 1.25, 1.5, 1.75]],
                               'float32',
                               [[[[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                                 [[9.0, 10.0, 11.0, 12.0], [5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0]]]]],
    'strided_slice-clamped': [[1.0, 2.0, 3.0], 'float32', [[1.0, 2.0, 3.0]]],
    'strided_slice-positional': [2, 3, 4, 1],
    'tensor_scatter_nd_max': [[[3.0, 5.0], [2.0, 4.0]],
                              'float32',
                              [[[0.0, 1.0], [3.0, 0.0]], [1.0, 1.0, 4.0, 0.0]]],
    'tensor_scatter_nd_min': [[[1.0, 5.0], [2.0, 0.0]],
                              'float64',
                              [[[1.0, 1.0], [3.0, 4.0]], [0.0, 1.0, 0.0, 0.0]]],
    'tensor_scatter_nd_max-rows': [[[3.0, 5.0], [2.0, 0.0]],
                                   'float32',
                                   [[[0.0, 1.0], [3.0, 4.0]], [[1.0, 1.0]]]],
    'py_function': [[1.0, 4.0], 'float32', [[2.0, 8.0]]],
    'py_function-list': [[3.0, 6.0, 4.0, 5.0], 'float32', [[6.0, 10.0]]],
    'py_function-numbers': [['int32'], ['float32'], ['float32'], []],
    'numpy_function': [[1.0, 4.0], 'float32', [None]],
    'numpy_function-dtypes': [['int32', 'float32', 'float64', 'int64', 'float32']],
    'initializers': [[[2.0, 2.0], [2.0, 2.0]],
                     [[1, 2], [3, 4]],
                     ['float64', 'int32', 'int32', 'bool', 'float32', 'float64', 'int32'],
                     [[0.0], [0.0]],
                     [1.0, 1.0, 1.0],
                     [['value', [1, 2]]],
                     [['mean', 0.0], ['seed', 1], ['stddev', 0.05]],
                     [['maxval', 1], ['minval', -1], ['seed', 1]]],
    'no-ops': [None, None, None, False, 'tensorflow', None, None, None, None],
    'math.xlog1py': [[0.0, 0.4054651081, 2.197224577, 0.0],
                     [[0.0, 0.8109302162, 3.295836866, 0.0], [0.0, 1.333333333, 2.0, 0.0]]],
    'math.multiply_no_nan': [[[0.0, 6.0], 'float32', [[0.0, 4.0]]], [[0.0, 0.0], 'float32', [[2.0, INF]]]],
    'math.multiply_no_nan-broadcast': [[[0.0, -3.0, -2.0], [0.0, 6.0, 0.25]],
                                       [[[0.0, 4.0, -3.0], [0.0, 10.0, -6.0]], [4.5, 12.0, 4.5]]],
    'math.cumulative_logsumexp': [[[0.5, 0.626928011, 2.225802049], [1.0, 3.126928011, 3.16050998]],
                                  [[[3.295684772, 0.3106871489, 2.393628079],
                                    [5.287612545, 9.514241329, 0.1981461259]]]],
    'math.cumulative_logsumexp-exclusive-reverse': [[2.153178207, 2.126928011, 0.0, -INF],
                                                    [[0.0, 0.02590865472, 2.619570967, 3.354520379]]],
    'math.cumulative_logsumexp-range': [[-1000.0, 0.0, 1.313261747],
                                        'float32',
                                        [[1.0, 2.806824207, 2.193175554]]],
    'math.rint': [[0.0, 2.0, 2.0, -0.0, -2.0], 'float32', [None]],
    'math.polyval': [[4.875, 1.875, 15.0, 3.0], [23.75, [4.5, -3.0, 27.0, 12.0]]],
    'math.polyval-empty': [[0.0, 0.0], 'float32', [None]],
    'math.lbeta': [[-0.6931471806, 0.06453852114], [[[-1.5, -0.5], [-0.3607446111, -6.133333333]]]],
    'math.is_non_decreasing': [True, False, False, True, True],
    'math.zero_fraction': [[0.6666666865, 'float32', [None]], 0.25],
    'math.accumulate_n': [[1.5, -4.5, 6.0, 0.0], [[2.0, 4.0, 6.0, 8.0], [1.0, 2.0, 3.0, 4.0]]],
    'math.invert_permutation': [[1, 3, 0, 2], ['int64']],
    'math.bincount': [[1, 2, 0, 1],
                      [0, 2, 0, 1, 0, 0],
                      [0, 2],
                      [[0, 1, 1], [0, 0, 2]],
                      [0, 1, 0, 1],
                      ['int64', 'float32']],
    'math.confusion_matrix': [[[0, 1, 0], [1, 1, 0], [0, 0, 1]],
                              [[0, 1, 0], [0, 1, 0], [0, 0, 0]],
                              [[[0.0, 1.0], [0.0, 5.0]], 'float32', [[2.0, 4.0, 4.0]]]],
    'math.in_top_k': [[False, True, True], [True, False]],
    'math.unsorted_segment_prod': [[[6.0, 0.0], [1.0, 1.0], [-2.0, 4.0]],
                                   [[[6.0, 0.0], [2.0, 0.0], [5.0, 6.0], [3.0, 2.0]]]],
    'math.unsorted_segment_sqrt_n': [[2.121320344, 0.0, 3.0], [[0.7071067812, 0.7071067812, 3.0, 0.0]]],
    'math.nextafter': [[[1.000000119, 1.999999881], 'float32', [[1.0, 2.0], [0.0, 0.0]]],
                       [[1.0, 2.0], 'float64', [[1.0, 2.0], [0.0, 0.0]]]],
    'nn.crelu': [[[0.5, 0.0, 2.0, 0.0, 1.5, 0.0], [1.0, 3.0, 0.0, 0.0, 0.0, 0.25]],
                 [[[1.0, -5.0, 3.0], [7.0, 8.0, -12.0]]]],
    'nn.crelu-axis0': [[0.0, 0.0, 2.0, 1.0, -0.0, 0.0], [[-4.0, 0.0, 3.0]]],
    'nn.weighted_cross_entropy_with_logits': [[0.0, 0.3807840331, 1.386294361, 1.422230953],
                                              [[300.0, -3.492287956, 4.158883083, 1.792615873],
                                               [3.720075976e-44, -0.7152175321, 1.5, -4.530488026]]],
    'nn.log_poisson_loss': [[1.055170918, 2.367879441, 1.389056099],
                            [[-0.1, 2.0, -6.0], [0.6051709181, -3.264241118, 13.1671683]]],
    'nn.log_poisson_loss-full': [[1.055170918, 3.019685926, 3.153137642],
                                 [[-0.1, 3.886294361, -2.204163134], [0.6051709181, -3.264241118, 13.1671683]]],
    'nn.sufficient_statistics': [[3.0, 1.0, 3.75, 6.5, 10.0625], [[[6.0, -10.0, 18.0], [13.0, 33.0, 0.5]]]],
    'nn.sufficient_statistics-shift': [[2.0, -0.5, 1.5, 3.75, 0.25, 11.25, 9.5625, 1.0, 0.0, -1.0],
                                       [[[-3.0, -15.0, 46.0], [2.0, 39.0, 14.5]], [9.0, -15.0, -50.5]]],
    'nn.normalize_moments': [[0.3333333333, 2.0, 2.222222222, 2.666666667],
                             [[-0.3333333333, -4.666666667], [1.0, 1.333333333]]],
    'nn.normalize_moments-shift': [[0.8333333333, 1.0, 2.222222222, 2.666666667],
                                   [[-0.3333333333, -4.666666667], [1.0, 1.333333333], [1.0, 2.0]]],
    'nn.weighted_moments': [[-0.8333333333, 0.0, 0.8888888889, 0.0],
                            [[[3.0, -2.0, 0.0], [0.0, 0.0, 0.0]],
                             [[1.333333333, -0.6666666667, 8.083333333], [0.0, 0.0, 0.0]]]],
    'nn.weighted_moments-keepdims': [[0.875, 1.875, 0.3125, 0.046875, 3.796875, 0.94921875],
                                     [[[-0.5, -7.9375, 5.8125], [1.5, 9.9375, -2.8125]],
                                      [[11.91796875], [-3.97265625]]]],
    'nn.compute_average_loss': [[0.25, [[0.25, 0.25, 0.25, 0.25]]],
                                [0.484375, [[[0.25, 0.25, 0.25], [0.0625, 0.0625, 0.0625]], [0.125, 0.46875]]],
                                [0.3333333433,
                                 'float32',
                                 [[0.3333333433, 0.3333333433, 0.3333333433, 0.3333333433]]]],
    'nn.space_to_depth': [[[[[0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0],
                             [4.0, 5.0, 6.0, 7.0, 12.0, 13.0, 14.0, 15.0]],
                            [[16.0, 17.0, 18.0, 19.0, 24.0, 25.0, 26.0, 27.0],
                             [20.0, 21.0, 22.0, 23.0, 28.0, 29.0, 30.0, 31.0]]]],
                          [[[[[1.0, 2.0], [3.0, 4.0], [9.0, 10.0], [11.0, 12.0]],
                             [[5.0, 6.0], [7.0, 8.0], [13.0, 14.0], [15.0, 16.0]],
                             [[17.0, 18.0], [19.0, 20.0], [25.0, 26.0], [27.0, 28.0]],
                             [[21.0, 22.0], [23.0, 24.0], [29.0, 30.0], [31.0, 32.0]]]]]],
    'nn.depth_to_space': [[[[[0.0], [1.0], [4.0], [5.0]], [[2.0], [3.0], [6.0], [7.0]]],
                           [[[8.0], [9.0], [12.0], [13.0]], [[10.0], [11.0], [14.0], [15.0]]]],
                          [[[[[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]],
                            [[[9.0, 10.0, 13.0, 14.0], [11.0, 12.0, 15.0, 16.0]]]]]],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- what TensorFlow gives no gradient: TensorFlow 2.21's tape raises LookupError ("gradient registry
# has no entry for: Unique", "... DenseBincount"); gradmagic's results are constants: None ----------
def test_unique_and_bincount_give_no_gradient():
    x = tf.constant([1.0, 2.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.unique(x).y
        counts = tf.math.bincount([1, 1, 3], weights=x)
    assert listed(counts) == [0.0, 3.0, 0.0, 1.0] and counts.dtype == tf.float32
    assert tape.gradient(y, x) is None and tape.gradient(counts, x) is None


# -- asserts: TensorFlow 2.21's messages, printed by the same calls ---------------------------------------
def test_assert_equal_reports_the_elements_that_differ():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_equal([1, 2, 3], [1, 3, 3])
    assert str(e.value) == ("Condition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
                            "Corresponding x values:\n[2]\nCorresponding y values:\n[3]\n"
                            "First 3 elements of x:\n[1 2 3]\nFirst 3 elements of y:\n[1 3 3]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.debugging.assert_equal([1.0, 2.0], [1.0, 3.0], message="hello")
    assert str(e.value).startswith("hello\nCondition x == y did not hold.\n") and str(e.value).endswith(
        "First 2 elements of x:\n[1. 2.]\nFirst 2 elements of y:\n[1. 3.]")
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_equal(tf.range(30), tf.range(30) * 0)
    assert "Indices of first 3 different values:\n[[1]\n [2]\n [3]]\nCorresponding x values:\n[1 2 3]" in str(e.value)


def test_assert_less_and_greater_of_broadcast_shapes_list_the_first_elements():
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.assert_less(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 3.0)
    assert str(e.value) == ("Condition x < y did not hold.\nFirst 3 elements of x:\n[1. 2. 3.]\n"
                            "First 1 elements of y:\n[3.]")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^m\nCondition x > y did not hold\.\nIndices of "
                                                             r"first 1 different values:\n\[\[1\]\]"):
        tf.assert_greater([1, 2], [0, 2], message="m")
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"First 4 elements of x:\n\[1 5 7 2\]"):
        tf.debugging.assert_less([[1, 5], [7, 2]], 3, summarize=-1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Condition x <= y did not hold"):
        tf.debugging.assert_less_equal([1, 2], [0, 2])


def test_asserts_refuse_mixed_dtypes_and_shapes_that_do_not_broadcast():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"cannot compute Equal as input #1\(zero-based\) "
                                                             r"was expected to be a float tensor but is a int32 tensor"):
        tf.assert_equal(tf.constant([1.0]), 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2\] vs\. \[3\]"):
        tf.assert_equal([1, 2], [1, 2, 3])


def test_no_op_context_managers_run_their_block():
    ran = []
    with tf.control_dependencies([tf.constant(1)]), tf.device("/cpu:0"), tf.init_scope():
        ran.append(1)
    assert ran == [1]
    assert tf.get_logger() is logging.getLogger("tensorflow")


# -- errors, in TensorFlow 2.21's words --------------------------------------------------------------------
@pytest.mark.parametrize("call, error, message", [
    (lambda: tf.unique([[1, 2]]), tf.errors.InvalidArgumentError, "unique expects a 1D vector."),
    (lambda: tf.searchsorted([1.0, 2.0], [1.0], side="bad"), ValueError,
     "Argument `side` must be either 'right' or 'left'. Received: `side` = 'bad'."),
    (lambda: tf.searchsorted([[1.0, 2.0], [3.0, 4.0]], [[1.0, 4.0]]), tf.errors.InvalidArgumentError,
     "Leading dim_size of both tensors must match."),
    (lambda: tf.meshgrid([1, 2], indexing="foo"), ValueError,
     "Argument `indexing` parameter must be either 'xy' or 'ij', got 'foo'"),
    (lambda: tf.meshgrid([1, 2], [1.0, 2.0]), tf.errors.InvalidArgumentError,
     "cannot compute Mul as input #1(zero-based) was expected to be a float tensor but is a int32 tensor"),
    (lambda: tf.reverse_sequence([[1, 2], [3, 4]], [3, 1], seq_axis=1), tf.errors.InvalidArgumentError,
     "seq_lens(0) > input.dims(1)"),
    (lambda: tf.reverse_sequence([[1, 2], [3, 4]], [1, 1, 1], seq_axis=1), tf.errors.InvalidArgumentError,
     "Length of seq_lengths != input.dims(0), (3 vs. 2)"),
    (lambda: tf.unravel_index([12], [3, 4]), tf.errors.InvalidArgumentError, "index is out of bound as with dims"),
    (lambda: tf.ensure_shape(tf.ones([2, 3]), [3, 2]), tf.errors.InvalidArgumentError,
     "Shape of tensor input [2,3] is not compatible with expected shape [3,2]."),
    (lambda: tf.ensure_shape(tf.ones([2, 3]), [2]), tf.errors.InvalidArgumentError,
     "Shape of tensor input [2,3] is not compatible with expected shape [2]."),
    (lambda: tf.as_dtype("foo"), TypeError, "Cannot convert the argument `type_value`: 'foo' to a TensorFlow DType."),
    (lambda: tf.strided_slice(X234, [0], [5]), tf.errors.InvalidArgumentError, None),  # no error: clamped
    (lambda: tf.strided_slice(X234, [5], [6], shrink_axis_mask=1), tf.errors.InvalidArgumentError,
     "slice index 5 of dimension 0 out of bounds."),
    (lambda: tf.strided_slice(X234, [0, 0], [1, 1], strides=[1, 0]), tf.errors.InvalidArgumentError,
     "strides[1] must be non-zero"),
    (lambda: tf.strided_slice(X234, [0, 0], [1]), tf.errors.InvalidArgumentError,
     "Expected begin, end, and strides to be 1D equal size tensors, but got shapes [2], [1], and [2] instead."),
    (lambda: tf.strided_slice(X234, [0, 0], [1, 1], ellipsis_mask=3), tf.errors.InvalidArgumentError,
     "Multiple ellipses in slice spec not allowed"),
    (lambda: tf.strided_slice(X234, [0, 0, 0, 0], [1, 1, 1, 1]), tf.errors.InvalidArgumentError,
     "Index out of range using input dim 3; input has only 3 dims"),
    (lambda: tf.strided_slice([1.0, 2.0, 3.0], [1.0], [2.0]), tf.errors.InvalidArgumentError,
     "Value for attr 'Index' of float is not in the list of allowed values: int16, int32, int64"),
    (lambda: tf.tensor_scatter_nd_max([[1.0, 5.0], [2.0, 0.0]], [[0, 2]], [3.0]), tf.errors.InvalidArgumentError,
     "indices[0] = [0, 2] does not index into shape [2,2]"),
    (lambda: tf.tensor_scatter_nd_min(tf.ones([2]), [[0]], tf.ones([1], tf.float64)), tf.errors.InvalidArgumentError,
     "cannot compute TensorScatterMin as input #2(zero-based) was expected to be a float tensor but is a double tensor"),
    (lambda: tf.py_function(lambda a: a, [1.0], tf.int32), tf.errors.InvalidArgumentError,
     "ValueError: Tensor conversion requested dtype int32 for Tensor with dtype float32"),
    (lambda: tf.py_function(lambda a: None, [1.0], tf.float32), tf.errors.InvalidArgumentError,
     "returns 0 values, but expects to see 1 values."),
    (lambda: tf.constant_initializer([1, 2, 3])([2, 2]), TypeError,
     "Eager execution of tf.constant with unsupported shape. Tensor [1. 2. 3.] (converted from [1, 2, 3]) has 3 "
     "elements, but got `shape` (2, 2) with 4 elements)."),
    (lambda: tf.constant_initializer(tf.constant([1.0])), TypeError,
     "Expected Python scalar, list or tuple of values, or numpy.ndarray."),
    (lambda: tf.random_normal_initializer()([2], tf.int32), ValueError,
     "Argument `dtype` is expected to be floating point. Received: <dtype: 'int32'>."),
    (lambda: tf.assert_rank(tf.ones([2, 3]), 1), ValueError, "must have rank 1"),
    (lambda: tf.math.invert_permutation([0, 0, 1]), tf.errors.InvalidArgumentError, "0 is duplicated in the input."),
    (lambda: tf.math.invert_permutation([0, 3, 1]), tf.errors.InvalidArgumentError, "3 is not between 0 and 3"),
    (lambda: tf.math.bincount([1, -1]), tf.errors.InvalidArgumentError, "Input arr must be non-negative!"),
    (lambda: tf.math.confusion_matrix([0, -1], [1, 1]), tf.errors.InvalidArgumentError,
     "`labels` contains negative values."),
    (lambda: tf.math.confusion_matrix([0, 3], [1, 1], num_classes=3), tf.errors.InvalidArgumentError,
     "`labels` out of bound"),
    (lambda: tf.math.cumulative_logsumexp([1, 2]), tf.errors.InvalidArgumentError,
     "Value for attr 'T' of int32 is not in the list of allowed values: half, float, double"),
    (lambda: tf.math.polyval(tf.constant([1.0, 2.0]), 2.0), ValueError, "Argument coeffs must be list type."),
    (lambda: tf.math.unsorted_segment_prod([1.0, 2.0], [0, 3], 2), tf.errors.InvalidArgumentError,
     "segment_ids[1] = 3 is out of range [0, 2)"),
    (lambda: tf.math.unsorted_segment_sqrt_n([1, 2], [0, 1], 2), tf.errors.InvalidArgumentError,
     "Value for attr 'T' of int32 is not in the list of allowed values"),
    (lambda: tf.nn.weighted_cross_entropy_with_logits([1.0, 0.0], [1.0], 2.0), ValueError,
     "`logits` and `labels` must have the same shape, received ((1,) vs (2,))."),
    (lambda: tf.nn.space_to_depth(tf.ones([1, 3, 4, 1]), 2), tf.errors.InvalidArgumentError,
     "Image width 4 and height 3 should be divisible by block_size: 2"),
    (lambda: tf.nn.space_to_depth(tf.ones([1, 4, 4, 1]), 1), tf.errors.InvalidArgumentError,
     "Value for attr 'block_size' of 1 must be at least minimum 2"),
    (lambda: tf.nn.depth_to_space(tf.ones([1, 2, 2, 3]), 2), tf.errors.InvalidArgumentError,
     "Input depth dimension 3 should be divisible by: 4"),
    (lambda: tf.nn.compute_average_loss(tf.constant(1.0)), ValueError,
     "Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. Received "
     "per_example_loss=1.0 with rank 0"),
])
def test_errors_are_tensorflows(call, error, message):
    if message is None:
        call()  # TensorFlow clamps it too
        return
    with pytest.raises(error) as e:
        call()
    assert message in str(e.value)


# -- where gradmagic differs on purpose ---------------------------------------------------------------------
def test_realdiv_of_integers_and_truncated_division_by_zero_are_tensorflows_errors():
    # TensorFlow 2.21 has no integer RealDiv kernel (NotFoundError: "Could not find device for node:
    # {{node RealDiv}} = RealDiv[T=DT_INT32]"), and an integer TruncateDiv or TruncateMod by 0 is its
    # InternalError
    with pytest.raises(tf.errors.NotFoundError, match=r"RealDiv\[T=DT_INT32\]"):
        tf.realdiv([1, 2], [2, 4])
    for f in (tf.truncatediv, tf.truncatemod):
        with pytest.raises(tf.errors.InternalError, match="Integer division by zero"):
            f([1], [0])


def test_parallel_stack_stacks():
    # TensorFlow refuses it in eager mode and stacks inside tf.function; gradmagic's tf.function is eager
    assert listed(tf.parallel_stack([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]


def test_py_function_is_recorded_as_it_runs():
    # TensorFlow 2.21 gives a scalar 0.0 for a py_function result made from NumPy; gradmagic None
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        v = tf.py_function(lambda a: (a * a).numpy(), [x], tf.float32)
    assert listed(v) == [1.0, 4.0] and tape.gradient(v, x) is None


def test_erfinv_ndtri_and_erfcinv_as_tensorflows():
    # TensorFlow 2.21.0 printed these (float32); they are tf.math's only, not tf's
    import math
    want = {"erfinv": ([-1.1630871295928955, 0.2724626660346985, 0.47693631052970886, 1.821386456489563],
                       [3.428042411804199, 0.9545203447341919, 1.1125849485397339, 24.450885772705078]),
            "ndtri": ([-2.326347827911377, -0.5244004726409912, 0.0, 2.326348304748535],
                      [37.52043533325195, 2.876103639602661, 2.5066282749176025, 37.520469665527344]),
            "erfcinv": ([1.8213863372802734, 0.7328690886497498, 0.47693631052970886, 0.008862492628395557],
                        [-24.45087242126465, -1.516363263130188, -1.1125848293304443, -0.8862965106964111])}
    for name, (values, grads) in want.items():
        x = tf.constant([0.01, 0.3, 0.5, 0.99] if name != "erfinv" else [-0.9, 0.3, 0.5, 0.99])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = getattr(tf.math, name)(x)
        assert y.dtype == tf.float32 and not hasattr(tf, name)
        np.testing.assert_allclose(y.numpy(), values, rtol=2e-6)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), grads, rtol=2e-6)
    # far into the tail, in float64 (sqrt(2) erfinv(2 p - 1) would be -inf)
    assert math.isclose(float(tf.math.erfcinv(tf.constant(1e-30, tf.float64))), 8.148616223169864, rel_tol=1e-14)
    assert math.isclose(float(tf.math.ndtri(tf.constant(1e-30, tf.float64))), -11.464024688443613, rel_tol=1e-14)
