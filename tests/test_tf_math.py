"""gradmagic.tf's ``tf.math``, reductions, ``tf.nn`` and ``tf.random`` against TensorFlow: each
case runs the same code TensorFlow 2.21.0 ran (see ``_tensorflow.py``), and gives its numbers,
values and gradients; then the errors, in TensorFlow's words, and what differs on purpose."""

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic as gm
import gradmagic.tf as tf

V = [0.5, -1.5, 2.0, 0.0]
M = [[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]
LABELS = [[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]]
LOGITS = [[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]]
CASES = {
    "math.rsqrt": lambda: value_and_grads(tf.math.rsqrt, [0.5, 1.5, 2.0]),
    "math.softsign": lambda: value_and_grads(tf.math.softsign, V),
    "math.log_sigmoid": lambda: value_and_grads(tf.math.log_sigmoid, V),
    "math.reciprocal_no_nan": lambda: value_and_grads(tf.math.reciprocal_no_nan, V),
    "math.abs": lambda: value_and_grads(tf.math.abs, V),
    "math.sign": lambda: value_and_grads(tf.math.sign, V),
    "math.softplus": lambda: value_and_grads(tf.math.softplus, V),
    "math.xlogy": lambda: value_and_grads(tf.math.xlogy, [0.0, 1.0, 2.0], [3.0, 0.5, 2.0]),
    "math.xdivy": lambda: value_and_grads(tf.math.xdivy, [0.0, 1.0, 2.0], [3.0, 0.5, 2.0]),
    "math.divide_no_nan": lambda: value_and_grads(tf.math.divide_no_nan, [1.0, 1.0, 2.0], [0.0, 0.5, 2.0]),
    "math.squared_difference": lambda: value_and_grads(tf.math.squared_difference, [1.0, 1.0, 2.0],
                                                       [0.0, 0.5, 2.0]),
    "math.maximum-ties": lambda: value_and_grads(tf.math.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0]),
    "math.minimum-ties": lambda: value_and_grads(tf.math.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0]),
    "math.floormod": lambda: value_and_grads(tf.math.floormod, [5.5, -3.5], [2.0, 2.0]),
    "math.atan2": lambda: value_and_grads(tf.math.atan2, [1.5, -2.0], [2.0, 3.0]),
    "math.scalar_mul": lambda: value_and_grads(lambda x: tf.math.scalar_mul(2.5, x), V),
    "reduce_sum-axis": lambda: value_and_grads(lambda x: tf.reduce_sum(x, axis=1), M),
    "reduce_mean-keepdims": lambda: value_and_grads(lambda x: tf.reduce_mean(x, axis=0, keepdims=True), M),
    "reduce_max-ties": lambda: value_and_grads(tf.reduce_max, [1.0, 3.0, 3.0]),
    "reduce_min-axis": lambda: value_and_grads(lambda x: tf.reduce_min(x, axis=1), M),
    "reduce_prod": lambda: value_and_grads(lambda x: tf.reduce_prod(x, axis=1), M),
    "reduce_logsumexp": lambda: value_and_grads(lambda x: tf.reduce_logsumexp(x, axis=1), M),
    "reduce_variance": lambda: value_and_grads(lambda x: tf.math.reduce_variance(x, axis=1), M),
    "reduce_std": lambda: value_and_grads(tf.math.reduce_std, M),
    "reduce_euclidean_norm": lambda: value_and_grads(lambda x: tf.math.reduce_euclidean_norm(x, axis=1), M),
    "reduce_mean-integers": lambda: [listed(tf.reduce_mean(tf.constant([-1, -2]))),
                                     listed(tf.reduce_mean(tf.constant([[1, 2], [4, 4]]), axis=1))],
    "reduce_all-reduce_any": lambda: [listed(tf.reduce_all([[True, False], [True, True]], axis=1)),
                                      listed(tf.reduce_any([[True, False], [False, False]], axis=1))],
    "count_nonzero": lambda: listed(tf.math.count_nonzero([[0.0, 1.0], [2.0, 3.0]], axis=1)),
    "argmax-argmin": lambda: [listed(tf.math.argmax(M)), listed(tf.math.argmax(M, axis=1)),
                              listed(tf.argmin(M, axis=-1, output_type=tf.int32)),
                              str(tf.math.argmax(M).numpy().dtype),
                              str(tf.argmin(M, output_type=tf.int32).numpy().dtype)],
    "cumsum-axis": lambda: value_and_grads(lambda x: tf.math.cumsum(x, axis=1), M),
    "cumsum-exclusive-reverse": lambda: value_and_grads(
        lambda x: tf.math.cumsum(x, exclusive=True, reverse=True), V),
    "cumprod-exclusive": lambda: value_and_grads(lambda x: tf.math.cumprod(x, exclusive=True), [1.5, 2.0, 3.0]),
    "add_n": lambda: value_and_grads(lambda x, y: tf.add_n([x, y, x]), V, V),
    "top_k": lambda: [value_and_grads(lambda x: tf.math.top_k(x, k=2).values, [1.0, 3.0, 3.0, 2.0]),
                      listed(tf.math.top_k([1.0, 3.0, 3.0, 2.0], k=2).indices)],
    "l2_normalize": lambda: value_and_grads(lambda x: tf.math.l2_normalize(x, axis=1), M),
    "clip_by_value-at-the-bounds": lambda: value_and_grads(lambda x: tf.clip_by_value(x, 1.0, 2.0),
                                                           [0.0, 1.0, 1.5, 2.0, 3.0]),
    "clip_by_norm": lambda: value_and_grads(lambda x: tf.clip_by_norm(x, 1.0), M),
    "clip_by_global_norm": lambda: value_and_grads(
        lambda x, y: tf.concat([tf.reshape(t, [-1]) for t in tf.clip_by_global_norm([x, y], 2.0)[0]], 0), V, M),
    "nn.relu": lambda: value_and_grads(tf.nn.relu, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.relu6": lambda: value_and_grads(tf.nn.relu6, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.leaky_relu": lambda: value_and_grads(tf.nn.leaky_relu, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.elu": lambda: value_and_grads(tf.nn.elu, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.selu": lambda: value_and_grads(tf.nn.selu, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.silu": lambda: value_and_grads(tf.nn.silu, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.gelu-approximate": lambda: value_and_grads(lambda x: tf.nn.gelu(x, approximate=True),
                                                   [-2.0, 0.0, 0.5, 3.0]),
    "nn.log_softmax": lambda: value_and_grads(tf.nn.log_softmax, [-2.0, 0.0, 0.5, 6.0, 7.0]),
    "nn.softmax-axis0": lambda: value_and_grads(lambda x: tf.nn.softmax(x, axis=0), M),
    "nn.softmax_cross_entropy_with_logits": lambda: value_and_grads(
        lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
        LABELS, LOGITS),
    "nn.sparse_softmax_cross_entropy_with_logits": lambda: value_and_grads(
        lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=x), LOGITS),
    "nn.sparse_softmax_cross_entropy_with_logits-batch": lambda: value_and_grads(
        lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[2], [0]], logits=x),
        [[[2.0, 1.0, 0.1]], [[0.5, 2.5, 0.3]]]),
    "nn.sigmoid_cross_entropy_with_logits": lambda: value_and_grads(
        lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
        [0.0, 1.0, 0.5], [-100.0, 2.0, 0.0]),
    "nn.l2_loss": lambda: value_and_grads(tf.nn.l2_loss, M),
    "nn.moments": lambda: value_and_grads(lambda x: tf.concat(tf.nn.moments(x, axes=[1]), 0), M),
    "nn.batch_normalization": lambda: value_and_grads(
        lambda x: tf.nn.batch_normalization(x, 0.5, 2.0, 0.1, 3.0, 1e-3), V),
    "nn.bias_add": lambda: value_and_grads(tf.nn.bias_add, M, [1.0, 2.0, 3.0]),
    "nn.embedding_lookup": lambda: value_and_grads(lambda p: tf.nn.embedding_lookup(p, [1, 1, 0]), M),
}

TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'math.rsqrt': [[1.414213562, 0.8164965809, 0.7071067812],
                   [[-1.414213562, -0.544331054, -0.5303300859]]],
    'math.softsign': [[0.3333333333, -0.6, 0.6666666667, 0.0],
                      [[0.4444444444, 0.32, 0.3333333333, 4.0]]],
    'math.log_sigmoid': [[-0.4740769842, -1.701413278, -0.126928011, -0.6931471806],
                         [[0.3775406688, 1.635148952, 0.3576087661, 2.0]]],
    'math.reciprocal_no_nan': [[2.0, -0.6666666667, 0.5, 0.0], [[-4.0, -0.8888888889, -0.75, 0.0]]],
    'math.abs': [[0.5, 1.5, 2.0, 0.0], [[1.0, -2.0, 3.0, 0.0]]],
    'math.sign': [[1.0, -1.0, 1.0, 0.0], [[0.0, 0.0, 0.0, 0.0]]],
    'math.softplus': [[0.9740769842, 0.201413278, 2.126928011, 0.6931471806],
                      [[0.6224593312, 0.3648510476, 2.642391234, 2.0]]],
    'math.xlogy': [[0.0, -0.6931471806, 1.386294361],
                   [[0.0, -1.386294361, 2.079441542], [0.0, 4.0, 3.0]]],
    'math.xdivy': [[0.0, 2.0, 1.0], [[0.0, 4.0, 1.5], [0.0, -8.0, -1.5]]],
    'math.divide_no_nan': [[0.0, 2.0, 1.0], [[0.0, 4.0, 1.5], [0.0, -8.0, -1.5]]],
    'math.squared_difference': [[1.0, 0.25, 0.0], [[2.0, 2.0, 0.0], [-2.0, -2.0, -0.0]]],
    'math.maximum-ties': [[1.0, 2.0, 4.0], [[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]]],
    'math.minimum-ties': [[1.0, 1.0, 3.0], [[1.0, 0.0, 3.0], [0.0, 2.0, 0.0]]],
    'math.floormod': [[1.5, 0.5], [[1.0, 2.0], [-2.0, 4.0]]],
    'math.atan2': [[0.6435011088, -0.5880026035], [[0.32, 0.4615384615], [-0.24, 0.3076923077]]],
    'math.scalar_mul': [[1.25, -3.75, 5.0, 0.0], [[2.5, 5.0, 7.5, 10.0]]],
    'reduce_sum-axis': [[1.0, 3.75], [[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]]],
    'reduce_mean-keepdims': [[[0.75, 0.75, 0.875]], [[[0.5, 1.0, 1.5], [0.5, 1.0, 1.5]]]],
    'reduce_max-ties': [3.0, [[0.0, 0.5, 0.5]]],
    'reduce_min-axis': [[-1.5, -0.25], [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]]],
    'reduce_prod': [[-1.5, -0.75], [[[-3.0, 1.0, -0.75], [-1.5, -0.5, 6.0]]]],
    'reduce_logsumexp': [[2.225802049, 3.16050998],
                         [[[0.1780302055, 0.02409376829, 0.7978760262],
                           [0.230532645, 1.703418646, 0.06604870862]]]],
    'reduce_variance': [[2.055555556, 1.791666667],
                        [[[0.1111111111, -1.222222222, 1.111111111],
                          [-0.3333333333, 2.333333333, -2.0]]]],
    'reduce_std': [1.460712345,
                   [[[-0.03327904448, -0.2614782066, 0.1378703271],
                     [0.02377074606, 0.2519699082, -0.1188537303]]]],
    'reduce_euclidean_norm': [[2.549509757, 3.172144385],
                              [[[0.1961161351, -0.5883484054, 0.7844645406],
                                [0.630488325, 1.891464975, -0.1576220812]]]],
    'reduce_mean-integers': [-1, [1, 4]],
    'reduce_all-reduce_any': [[False, True], [True, False]],
    'count_nonzero': [1, 2],
    'argmax-argmin': [[1, 1, 0], [2, 1], [1, 2], 'int64', 'int32'],
    'cumsum-axis': [[[0.5, -1.0, 1.0], [1.0, 4.0, 3.75]], [[[6.0, 5.0, 3.0], [15.0, 11.0, 6.0]]]],
    'cumsum-exclusive-reverse': [[0.5, 2.0, 0.0, 0.0], [[0.0, 1.0, 3.0, 6.0]]],
    'cumprod-exclusive': [[1.0, 1.5, 3.0], [[8.0, 4.5, 0.0]]],
    'add_n': [[1.5, -4.5, 6.0, 0.0], [[2.0, 4.0, 6.0, 8.0], [1.0, 2.0, 3.0, 4.0]]],
    'top_k': [[[3.0, 3.0], [[0.0, 1.0, 2.0, 0.0]]], [1, 2]],
    'l2_normalize': [[[0.1961161351, -0.5883484054, 0.7844645406],
                      [0.3152441625, 0.9457324875, -0.07881104062]],
                     [[[0.2866312744, 1.101267528, 0.7542928275],
                       [0.7127259326, -0.06853133967, 2.028527654]]]],
    'clip_by_value-at-the-bounds': [[1.0, 1.0, 1.5, 2.0, 2.0], [[0.0, 2.0, 3.0, 4.0, 0.0]]],
    'clip_by_norm': [[[0.1228590234, -0.3685770701, 0.4914360935],
                      [0.2457180467, 0.7371541402, -0.06142951168]],
                     [[[0.08994207748, 0.9587640012, 0.1140502632],
                       [0.6713202484, 0.2939344182, 1.552196265]]]],
    'clip_by_global_norm': [[0.2082316825, -0.6246950476, 0.8329267301, 0.0, 0.2082316825,
                             -0.6246950476, 0.8329267301, 0.416463365, 1.249390095, -0.1041158413],
                            [[0.02370116712, 2.011213324, -0.3216586966, 1.66585346],
                             [[1.689554627, 3.677066784, 1.344194764],
                              [2.546182524, 1.391597098, 4.361014749]]]],
    'nn.relu': [[0.0, 0.0, 0.5, 6.0, 7.0], [[0.0, 0.0, 3.0, 4.0, 5.0]]],
    'nn.relu6': [[0.0, 0.0, 0.5, 6.0, 6.0], [[0.0, 0.0, 3.0, 0.0, 0.0]]],
    'nn.leaky_relu': [[-0.400000006, 0.0, 0.5, 6.0, 7.0], [[0.200000003, 0.400000006, 3.0, 4.0, 5.0]]],
    'nn.elu': [[-0.8646647168, 0.0, 0.5, 6.0, 7.0], [[0.1353352832, 2.0, 3.0, 4.0, 5.0]]],
    'nn.selu': [[-1.520166469, 0.0, 0.5253504937, 6.304205924, 7.354906911],
                [[0.2379328723, 2.101401975, 3.152102962, 4.202803949, 5.253504937]]],
    'nn.silu': [[-0.238405844, 0.0, 0.3112296656, 5.985164261, 6.993622642],
                [[-0.09078424878, 1.0, 2.219883562, 4.04930573, 5.027302485]]],
    'nn.gelu-approximate': [[-0.04540230679, 0.0, 0.3457140098, 2.996362608],
                            [[-0.08609925692, 1.0, 2.60210971, 4.046336669]]],
    'nn.log_softmax': [[-9.315115928, -7.315115928, -6.815115928, -1.315115928, -0.3151159284],
                       [[0.9986492101, 1.990018937, 2.98354401, -0.02664801867, -5.945564139]]],
    'nn.softmax-axis0': [[[0.3775406688, 0.01098694263, 0.9046505351],
                          [0.6224593312, 0.9890130574, 0.0953494649]],
                         [[[-0.7050111366, -0.03259868917, -0.2587738333],
                           [0.7050111366, 0.03259868917, 0.2587738333]]]],
    'nn.softmax_cross_entropy_with_logits': [[0.4170300163, 1.320049523],
                                             [[[0.4170300163, 1.417030016, 2.317030016],
                                               [4.440099046, 0.440099046, 4.840099046]],
                                              [[-0.3409988611, 0.2424329707, 0.09856589041],
                                               [0.2172074606, 0.6049581116, -0.8221655722]]]],
    'nn.sparse_softmax_cross_entropy_with_logits': [[0.4170300163, 0.220049523],
                                                    [[[-0.3409988611, 0.2424329707, 0.09856589041],
                                                      [0.2172074606, -0.3950418884, 0.1778344278]]]],
    'nn.sparse_softmax_cross_entropy_with_logits-batch': [[[2.317030016], [2.220049523]],
                                                          [[[[0.6590011389, 0.2424329707,
                                                              -0.9014341096]],
                                                            [[-1.782792539, 1.604958112,
                                                              0.1778344278]]]]],
    'nn.sigmoid_cross_entropy_with_logits': [[3.720075976e-44, 0.126928011, 0.6931471806],
                                             [[100.0, -4.0, -0.0],
                                              [3.720075976e-44, -0.238405844, 0.0]]],
    'nn.l2_loss': [8.28125, [[[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]]]],
    'nn.moments': [[0.3333333333, 1.25, 2.055555556, 1.791666667],
                   [[[0.6666666667, -3.333333333, 3.666666667], [0.0, 5.333333333, -3.333333333]]]],
    'nn.batch_normalization': [[0.1000000238, -4.141580462, 3.281185389, -0.9603950977],
                               [[2.120790243, 4.241580486, 6.362370729, 8.483160973]]],
    'nn.bias_add': [[[1.5, 0.5, 5.0], [2.0, 5.0, 2.75]],
                    [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [5.0, 7.0, 9.0]]],
    'nn.embedding_lookup': [[[1.0, 3.0, -0.25], [1.0, 3.0, -0.25], [0.5, -1.5, 2.0]],
                            [[[7.0, 8.0, 9.0], [5.0, 7.0, 9.0]]]],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- errors, in TensorFlow's words (TensorFlow 2.21 raises the same sentence) -----------------------
def test_add_n_of_different_shapes_is_an_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"tf\.math\.add_n\(inputs\): Inputs to "
                       r"operation AddN must have the same size and shape\.  Input 0: \[2\] != input 1: \[3\]"):
        tf.add_n([tf.ones(2), tf.ones(3)])


def test_top_k_needs_k_columns():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="input must have at least k columns. Had 2, needed 3"):
        tf.math.top_k([1.0, 3.0], k=3)


def test_argmax_of_a_scalar_says_what_it_needs():
    with pytest.raises(ValueError, match=r"tf\.math\.argmax\(input\): expected a tensor of rank 1 or more"):
        tf.math.argmax(tf.constant(1.0))


def test_sparse_softmax_cross_entropy_refuses_a_label_out_of_range():
    with pytest.raises(tf.errors.InvalidArgumentError,  # TF: the same sentence
                       match=r"Received a label value of -1 which is outside the valid range of \[0, 3\)\.  "
                             r"Label values: 0 -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, -1], logits=tf.zeros([2, 3]))


def test_sparse_softmax_cross_entropy_refuses_labels_of_the_wrong_rank_or_dtype():
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`.*"
                                         r"labels.shape=\(1, 2\) of rank 2 and logits.shape=\(2, 3\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[0, 1]], logits=tf.zeros([2, 3]))
    with pytest.raises(TypeError,
                       match=r"\(labels\): expected integer class labels.*got a tensor of dtype float32"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=tf.zeros([2, 3]))


def test_softmax_cross_entropy_refuses_shapes_that_do_not_broadcast():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"logits and labels must be broadcastable: logits_size=\[2, 3\] labels_size=\[2, 2\]"):
        tf.nn.softmax_cross_entropy_with_logits(labels=tf.zeros([2, 2]), logits=tf.zeros([2, 3]))


def test_softmax_cross_entropy_of_labels_that_do_not_sum_to_one_has_its_true_gradient():
    # Along axis 0 these labels' columns sum to 1, 0.5 and 0.5. TensorFlow 2.21's gradient with
    # respect to the logits is softmax - labels whatever the labels sum to (for the weights 1, 2, 3:
    # [[-0.18242552, 0.36485105, 1.35049801], [0.18242552, 0.63514895, 1.64950199]]), which is not the
    # derivative of the loss it computes; gradmagic's is: softmax * sum(labels) - labels.
    labels = np.array([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])

    def loss(logits):
        return tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels, logits, axis=0)
                             * tf.constant([1.0, 2.0, 3.0], dtype=tf.float64))
    logits = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    got = value_and_grads(loss, logits)[1][0]
    np.testing.assert_allclose(got, [[-0.1824255238, 0.1824255238, 0.675249004],
                                     [0.1824255238, -0.1824255238, -0.675249004]], rtol=1e-8)
    assert gm.check_grad(loss, logits)


def test_exact_gelu_and_erf_give_what_tensorflow_gives():
    # tf.nn.gelu's default is exact, 0.5 x (1 + erf(x / sqrt(2))): TensorFlow 2.21.0's values,
    # first and second derivatives (its float64 gelu rounds 1 / sqrt(2) to float32, so it is
    # off by up to 2e-7 relative from the true value that gradmagic gives: rtol 1e-6)
    x = tf.constant(np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5]))
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y, e = tf.nn.gelu(x), tf.math.erf(x)
        g = inner.gradient(y, x)
    tensorflow = {
        "gelu": [-0.004049694777521031, -0.15865525807260966, -0.1542687708693288, 0.0,
                 0.3457312291306712, 0.8413447419273903, 2.484475834810659],
        "gelu'": [-0.011945648796988968, -0.08331546644653365, 0.1325048806160109, 0.5,
                  0.8674951193839892, 1.0833154664465336, 1.0376110890954762],
        "gelu''": [-0.031022941765784608, 0.2419707328014484, 0.6161143169419341, 0.7978845471476527,
                   0.6161143169419341, 0.2419707328014484, -0.07449528004126003],
        "erf": [-0.9999779095030015, -0.8427007929497148, -0.5204998778130466, 0.0,
                0.5204998778130466, 0.8427007929497148, 0.999593047982555],
        "erf'": [0.00013925305194674786, 0.41510749742059466, 0.8787825789354448, 1.1283791670955126,
                 0.8787825789354448, 0.4151074974205947, 0.00217828423035271]}
    got = {"gelu": y, "gelu'": g, "gelu''": outer.gradient(g, x), "erf": e, "erf'": outer.gradient(e, x)}
    for k, want in tensorflow.items():
        np.testing.assert_allclose(got[k].numpy(), want, rtol=1e-6 if "gelu" in k else 1e-14,
                                   atol=1e-15, err_msg=k)
    assert float(tf.nn.gelu(tf.constant(1.0))) == pytest.approx(0.8413447460685429, rel=1e-7)  # x P(X <= x)
    assert tf.nn.gelu(tf.constant([1.0])).dtype == np.float32
    assert tf.math.erf(tf.constant([0.5])).numpy().tolist() == [0.5204998850822449]  # float32, as TensorFlow


@pytest.mark.parametrize("name", ["pool", "max_pool_with_argmax", "conv2d_backprop_filter"])
def test_unmapped_convolution_and_pooling_say_what_is_mapped(name):
    with pytest.raises(AttributeError, match=rf"gradmagic\.tf\.nn\.{name} does not exist.*not mapped: of "
                                             "convolution and pooling, gradmagic.tf has conv1d/2d/3d"):
        getattr(tf.nn, name)


def test_dir_of_a_namespace_lists_its_functions_only():
    assert "reduce_sum" in dir(tf.math) and "argmax" in dir(tf.math) and "np" not in dir(tf.math)
    assert "softmax_cross_entropy_with_logits" in dir(tf.nn) and "ops" not in dir(tf.nn)


# -- tf.random: TensorFlow's seeding rules, NumPy's numbers ----------------------------------------
def test_set_seed_starts_the_sequence_over():
    tf.random.set_seed(1234)
    a1, a2 = tf.random.uniform([2]), tf.random.uniform([2])
    tf.random.set_seed(1234)
    assert tf.random.uniform([2]).tolist() == a1.tolist() and tf.random.uniform([2]).tolist() == a2.tolist()
    assert a1.tolist() != a2.tolist()  # one sequence: each call draws new numbers


def test_an_op_seed_has_its_own_sequence():
    tf.random.set_seed(7)
    a = tf.random.normal([3], seed=1)
    b = tf.random.normal([3], seed=2)
    tf.random.set_seed(7)
    assert tf.random.normal([3], seed=2).tolist() == b.tolist() and a.tolist() != b.tolist()
    assert tf.random.normal([3], seed=1).tolist() == a.tolist()


def test_random_values_have_tensorflow_dtypes_ranges_and_no_gradient():
    tf.random.set_seed(0)
    u = tf.random.uniform([1000], minval=-2.0, maxval=3.0)
    assert u.dtype == tf.float32 and u.shape == (1000,)
    assert -2.0 <= float(tf.reduce_min(u)) and float(tf.reduce_max(u)) < 3.0
    k = tf.random.uniform([1000], minval=2, maxval=5, dtype=tf.int64)
    assert k.dtype == tf.int64 and sorted(set(k.numpy().tolist())) == [2, 3, 4]
    n = tf.random.normal([4000], mean=1.0, stddev=2.0, dtype=tf.float64)
    assert n.dtype == tf.float64 and abs(float(tf.reduce_mean(n)) - 1.0) < 0.1
    assert abs(float(tf.math.reduce_std(n)) - 2.0) < 0.1
    t = tf.random.truncated_normal([4000], stddev=0.5)
    assert float(tf.reduce_max(tf.abs(t))) <= 1.0  # two standard deviations
    mean = tf.constant(0.0)
    with tf.GradientTape() as tape:
        tape.watch(mean)
        y = tf.reduce_sum(tf.random.normal([3], mean=mean))
    assert tape.gradient(y, mean) is None  # a constant, as TensorFlow's sampling op


def test_random_refuses_what_tensorflow_refuses():
    with pytest.raises(ValueError,
                       match=r"tf\.random\.uniform\(maxval\): Must specify maxval for integer dtype int32"):
        tf.random.uniform([2], dtype=tf.int32)
    with pytest.raises(ValueError, match=r"Argument `dtype` got invalid value bool. Accepted dtypes are "
                                         r"\(float16, float32, float64, int32, int64\)"):
        tf.random.uniform([2], dtype=tf.bool)
    with pytest.raises(ValueError, match=r"tf\.random\.normal\(dtype=int32\)"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval: 5 >= 5"):
        tf.random.uniform([2], 5, 5, dtype=tf.int32)


def test_shuffle_permutes_the_first_axis():
    tf.random.set_seed(3)
    x = tf.reshape(tf.range(12), [6, 2])
    s = tf.random.shuffle(x)
    assert sorted(map(tuple, s.numpy().tolist())) == list(map(tuple, x.numpy().tolist()))


def test_dropout_keeps_and_scales():
    tf.random.set_seed(5)
    x = tf.ones([10000])
    y = tf.nn.dropout(x, rate=0.25)
    kept = y.numpy() != 0
    assert set(np.unique(y.numpy()).tolist()) == {0.0, float(np.float32(1 / 0.75))}
    assert abs(kept.mean() - 0.75) < 0.02
    with pytest.raises(ValueError, match=r"rate must be a scalar tensor or a float in the range \[0, 1\)"):
        tf.nn.dropout(x, rate=1.0)


def test_sqrt_rsqrt_and_reciprocal_give_0_where_the_upstream_is_0():
    # TensorFlow's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels give 0 where the upstream
    # gradient is 0, so the safe-sqrt pattern tf.where(x > 0, tf.sqrt(x), 0.) has gradient 0 at
    # 0; log, x ** 0.5, tf.pow and 1 / x have no such guard: NaN there, as in TensorFlow. These
    # lists are what TensorFlow 2.21.0 printed for the same code.
    x = tf.constant([0.0, 4.0, 0.0, -1.0])
    fns = {"sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt, "reciprocal": tf.math.reciprocal,
           "x**0.5": lambda x: x ** 0.5, "log": tf.math.log, "1/x": lambda x: 1 / x,
           "pow": lambda x: tf.pow(x, 0.5), "square(sqrt)": lambda x: tf.math.square(tf.sqrt(x))}
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        masked = {k: tf.reduce_sum(tf.where(x > 0, f(x), 0.0)) for k, f in fns.items()}
        plain = tf.reduce_sum(tf.sqrt(x))
    got = {k: tape.gradient(y, x).numpy().tolist() for k, y in masked.items()}
    nan = float("nan")
    want = {"sqrt": [0.0, 0.25, 0.0, 0.0], "rsqrt": [0.0, -0.0625, 0.0, 0.0],
            "reciprocal": [0.0, -0.0625, 0.0, 0.0], "x**0.5": [nan, 0.25, nan, nan],
            "log": [nan, 0.25, nan, -0.0], "1/x": [nan, -0.0625, nan, -0.0],
            "pow": [nan, 0.25, nan, nan], "square(sqrt)": [0.0, 1.0, 0.0, nan]}
    for k in fns:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)
    np.testing.assert_array_equal(tape.gradient(plain, x).numpy(), [np.inf, 0.25, np.inf, nan])
    with tf.GradientTape() as outer:  # the second derivative keeps TensorFlow's NaN at 0
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.where(x > 0, tf.sqrt(x), 0.0))
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(outer.gradient(g, x).numpy(), [nan, -0.03125, nan, nan])
    assert tf.sqrt(tf.constant([4.0, 0.0])).numpy().tolist() == [2.0, 0.0]  # values as NumPy's


def test_core_sqrt_keeps_numpys_rule_where_the_upstream_is_0():
    # gradmagic's own np.sqrt keeps the rule NumPy code has in HIPS autograd and JAX: 0 * inf is
    # NaN, which a trace's nan-origin note then explains (the tf dialect follows TensorFlow)
    x = gm.constant([0.0, 4.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.where(x > 0, np.sqrt(x), 0.0))
    g = tape.gradient(y, x).numpy()
    assert np.isnan(g[0]) and g[1] == 0.25


def test_integer_reductions_keep_their_dtype_as_tensorflows():
    # TensorFlow 2.21.0: sums and products of int32 are int32 (NumPy's are int64), and a uint8
    # sum wraps around in uint8: 200 + 100 is 44
    for fn in (tf.reduce_sum, tf.reduce_prod, tf.reduce_max, tf.reduce_mean):
        r = fn(tf.constant([1, 2, 3]))
        assert r.dtype == np.int32
    assert int(tf.reduce_sum(tf.constant([1, 2, 3]))) == 6 and int(tf.reduce_mean(tf.constant([1, 2, 3]))) == 2
    r = tf.reduce_sum(tf.constant([200, 100], tf.uint8))
    assert r.dtype == np.uint8 and int(r) == 44
    r = tf.cumsum(tf.constant([1, 2, 3], tf.int16))
    assert r.dtype == np.int16 and r.numpy().tolist() == [1, 3, 6]
    assert tf.reduce_sum(tf.constant([[1, 2], [3, 4]]), axis=0).numpy().tolist() == [4, 6]


# -- an op's other inputs take its Tensor's dtype, as TensorFlow converts them ----------------
X32 = [1.0, -2.0]
OPERANDS = {  # name: (the code, what TensorFlow 2.21.0 gave: dtype and value)
    "maximum(x, 0)": (lambda x, i: tf.maximum(x, 0), ("float32", [1.0, 0.0])),
    "maximum(0, x)": (lambda x, i: tf.maximum(0, x), ("float32", [1.0, 0.0])),
    "maximum(x, float64 array)": (lambda x, i: tf.maximum(x, np.array([2.0, 3.0])), ("float32", [2.0, 3.0])),
    "maximum(x, np.float64)": (lambda x, i: tf.maximum(x, np.float64(2.0)), ("float32", [2.0, 2.0])),
    "multiply(int, float64 array)": (lambda x, i: tf.multiply(i, np.array([2.5, 1.0])), ("int32", [2, 2])),
    "multiply(x, [1, 2])": (lambda x, i: tf.multiply(x, [1, 2]), ("float32", [1.0, -4.0])),
    "where(c, x, 0)": (lambda x, i: tf.where(x > 0, x, 0), ("float32", [1.0, 0.0])),
    "where(c, 0, x)": (lambda x, i: tf.where(x > 0, 0, x), ("float32", [0.0, -2.0])),
    "pow(2, x)": (lambda x, i: tf.pow(2, x), ("float32", [2.0, 0.25])),
    "scalar_mul(2, x)": (lambda x, i: tf.math.scalar_mul(2, x), ("float32", [2.0, -4.0])),
    "stack([x[0], 2.0, 3])": (lambda x, i: tf.stack([x[0], 2.0, 3]), ("float32", [1.0, 2.0, 3.0])),
    "concat([x, [1, 2]])": (lambda x, i: tf.concat([x, [1, 2]], 0), ("float32", [1.0, -2.0, 1.0, 2.0])),
    "add(1., 2)": (lambda x, i: tf.add(1.0, 2), ("float32", 3.0)),
    "relu6(float32)": (lambda x, i: tf.nn.relu6(tf.constant([-1.0, 3.0, 7.0])), ("float32", [0.0, 3.0, 6.0])),
    "erfc": (lambda x, i: tf.math.erfc(tf.constant([0.5, 5.0])), ("float32", [0.47950011, 1.5374597e-12])),
}


@pytest.mark.parametrize("name", list(OPERANDS))
def test_other_inputs_take_the_tensors_dtype(name):
    code, (dtype, want) = OPERANDS[name]
    got = code(tf.constant(X32), tf.constant([1, 2]))
    assert got.dtype == np.dtype(dtype), f"{name}: {got.dtype}, TensorFlow gives {dtype}"
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


def test_a_python_float_for_an_integer_tensor_is_refused_as_tensorflow_refuses_it():
    i = tf.constant([1, 2])
    for call in (lambda: tf.multiply(i, 2.5), lambda: tf.multiply(i, 2.0), lambda: tf.maximum(1, 2.5)):
        with pytest.raises(TypeError, match="Cannot convert 2.[05] to EagerTensor of dtype int32"):
            call()


def test_bitwise_operators_on_integers_as_tensorflows():
    a, b = tf.constant([5, 6]), tf.constant([3, 3])  # TensorFlow 2.21.0: [1 2] [7 7] [6 5] [-6 -7]
    assert [(a & b).numpy().tolist(), (a | b).numpy().tolist(), (a ^ b).numpy().tolist(),
            (~a).numpy().tolist()] == [[1, 2], [7, 7], [6, 5], [-6, -7]]
    assert (a & b).dtype == np.int32
    t = tf.constant([True, False])
    assert (~t).numpy().tolist() == [False, True] and (t & True).numpy().tolist() == [True, False]


def test_relu_and_relu6_keep_nan_as_tensorflows():
    x = tf.constant([float("nan"), -1.0, 0.0, 3.0, 7.0])  # TensorFlow 2.21.0: nan stays nan
    np.testing.assert_array_equal(tf.nn.relu(x).numpy(), [np.nan, 0, 0, 3, 7])
    np.testing.assert_array_equal(tf.nn.relu6(x).numpy(), [np.nan, 0, 0, 3, 6])
    assert tf.nn.relu6(x).dtype == np.float32


def test_empty_reductions_give_tensorflows_identities():
    """TensorFlow 2.21.0: reduce_max of nothing is -inf (an int32's minimum), reduce_min inf,
    reduce_logsumexp -inf, over every axis form (NumPy raises)."""
    e, e2 = tf.zeros((0,)), tf.zeros((0, 3))
    for f, fill in ((tf.reduce_max, -np.inf), (tf.reduce_min, np.inf), (tf.reduce_logsumexp, -np.inf)):
        assert f(e).numpy() == fill
        np.testing.assert_array_equal(f(e2, axis=0).numpy(), [fill] * 3)
        assert f(e2, axis=1).shape == (0,) and f(e2, axis=[0], keepdims=True).shape == (1, 3)
    i = tf.constant(np.zeros((0,), np.int32))
    assert (tf.reduce_max(i).numpy(), tf.reduce_min(i).numpy()) == (-2 ** 31, 2 ** 31 - 1)
