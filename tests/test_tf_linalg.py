"""gradmagic.tf's ``tf.linalg`` (and ``tf.norm``, ``tf.einsum`` ...) against TensorFlow: each
case runs the same code TensorFlow 2.21.0 ran (see ``_tensorflow.py``) and gives its numbers;
then the errors, and the gradients that differ on purpose, each with TensorFlow's."""

import numpy as np
import pytest
from _tensorflow import against_tensorflow, listed, value_and_grads

import gradmagic as gm
import gradmagic.tf as tf

NAN = float("nan")
A = [[4.0, 1.0], [2.0, 3.0]]
S = [[4.0, 1.0], [1.0, 3.0]]
B = [[1.0], [2.0]]
TALL = [[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]]
N3 = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
CASES = {
    "matmul-transposed": lambda: value_and_grads(
        lambda a, b: tf.matmul(a, b, transpose_a=True, adjoint_b=True), A, S),
    "einsum": lambda: value_and_grads(lambda a, b: tf.einsum("ij,jk->ik", a, b), A, S),
    "einsum-diagonal": lambda: value_and_grads(lambda a: tf.einsum("ii->i", a), A),
    "tensordot": lambda: value_and_grads(lambda a, b: tf.tensordot(a, b, 1), A, S),
    "inv": lambda: value_and_grads(tf.linalg.inv, A),
    "inv-adjoint": lambda: value_and_grads(lambda a: tf.linalg.inv(a, adjoint=True), A),
    "det": lambda: value_and_grads(tf.linalg.det, A),
    "slogdet": lambda: [listed(tf.linalg.slogdet(A)), value_and_grads(lambda a: tf.linalg.slogdet(a)[1], A)],
    "logdet-value": lambda: listed(tf.linalg.logdet(tf.constant(S))),
    "solve": lambda: value_and_grads(tf.linalg.solve, A, B),
    "solve-adjoint": lambda: value_and_grads(lambda a, b: tf.linalg.solve(a, b, adjoint=True), A, B),
    "cholesky-value": lambda: listed(tf.linalg.cholesky(tf.constant(S))),
    "cholesky_solve": lambda: value_and_grads(
        lambda b: tf.linalg.cholesky_solve(tf.linalg.cholesky(tf.constant(np.array(S))), b), B),
    "triangular_solve": lambda: value_and_grads(tf.linalg.triangular_solve, A, B),
    "triangular_solve-upper-adjoint": lambda: value_and_grads(
        lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), A, B),
    "eigh": lambda: value_and_grads(lambda a: tf.linalg.eigh(a)[0], S),
    "eigvalsh": lambda: value_and_grads(tf.linalg.eigvalsh, S),
    "svd-values": lambda: value_and_grads(lambda a: tf.linalg.svd(a, compute_uv=False),
                                          [[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]]),
    "svd-reconstructed": lambda: value_and_grads(
        lambda a: (lambda s, u, v: tf.matmul(u * s[None, :], v, transpose_b=True))(*tf.linalg.svd(a)), A),
    "qr": lambda: [listed(tf.linalg.qr(tf.constant(A))), value_and_grads(lambda a: tf.linalg.qr(a)[1], TALL)],
    "pinv": lambda: value_and_grads(tf.linalg.pinv, TALL),
    "lstsq": lambda: value_and_grads(tf.linalg.lstsq, [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]], [[1.0], [2.0], [2.0]]),
    "lstsq-wide-l2": lambda: value_and_grads(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.5),
                                             [[1.0, 0.0, 2.0], [1.0, 1.0, 3.0]], [[1.0], [2.0]]),
    "trace": lambda: value_and_grads(tf.linalg.trace, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]),
    "diag_part": lambda: value_and_grads(lambda a: tf.linalg.diag_part(a, k=1), N3),
    "diag": lambda: value_and_grads(tf.linalg.diag, [[1.0, 2.0], [3.0, 4.0]]),
    "diag-k": lambda: value_and_grads(lambda d: tf.linalg.diag(d, k=1), [1.0, 2.0]),
    "band_part": lambda: value_and_grads(lambda a: tf.linalg.band_part(a, 1, 0), N3),
    "norm": lambda: value_and_grads(tf.norm, A),
    "norm-axis-keepdims": lambda: value_and_grads(lambda a: tf.norm(a, axis=1, keepdims=True), A),
    "norm-1": lambda: value_and_grads(lambda a: tf.norm(a, ord=1), A),
    "norm-inf-axis": lambda: value_and_grads(lambda a: tf.norm(a, ord=np.inf, axis=0), A),
    "norm-3": lambda: value_and_grads(lambda a: tf.norm(a, ord=3), A),
    "norm-fro-matrix": lambda: value_and_grads(lambda a: tf.norm(a, ord="fro", axis=[0, 1]), A),
    "norm-1-matrix": lambda: value_and_grads(lambda a: tf.norm(a, ord=1, axis=[-2, -1]), A),
    "norm-inf-matrix": lambda: value_and_grads(lambda a: tf.norm(a, ord=np.inf, axis=[-2, -1]), A),
    "norm-2-matrix": lambda: value_and_grads(lambda a: tf.norm(a, ord=2, axis=[-2, -1]), A),
    "norm-at-0": lambda: value_and_grads(tf.norm, [0.0, 0.0]),
    "normalize": lambda: listed(tf.linalg.normalize(tf.constant([3.0, 4.0]))),
    "global_norm": lambda: value_and_grads(lambda a, b: tf.linalg.global_norm([a, b]), A, B),
    "matvec": lambda: value_and_grads(tf.linalg.matvec, A, [1.0, 2.0]),
    "cross": lambda: value_and_grads(tf.linalg.cross, [1.0, 2.0, 3.0], [0.0, 1.0, -1.0]),
    "matrix_transpose": lambda: listed(tf.linalg.matrix_transpose(tf.reshape(tf.range(6), [1, 2, 3]))),
}

TENSORFLOW_2_21 = {  # what each case gave on TensorFlow 2.21.0 (tensorflow-cpu, eager)
    'matmul-transposed': [[[18.0, 10.0], [7.0, 10.0]],
                          [[[6.0, 16.0], [7.0, 15.0]], [[7.0, 11.0], [12.0, 16.0]]]],
    'einsum': [[[17.0, 7.0], [11.0, 11.0]],
               [[[6.0, 7.0], [16.0, 15.0]], [[10.0, 16.0], [10.0, 14.0]]]],
    'einsum-diagonal': [[4.0, 3.0], [[[1.0, 0.0], [0.0, 2.0]]]],
    'tensordot': [[[17.0, 7.0], [11.0, 11.0]],
                  [[[6.0, 7.0], [16.0, 15.0]], [[10.0, 16.0], [10.0, 14.0]]]],
    'inv': [[[0.3, -0.1], [-0.2, 0.4]], [[[0.07, 0.02], [-0.19, -0.34]]]],
    'inv-adjoint': [[[0.3, -0.2], [-0.1, 0.4]], [[[0.04, -0.06], [-0.08, -0.38]]]],
    'det': [10.0, [[[3.0, -2.0], [-1.0, 4.0]]]],
    'slogdet': [[1.0, 2.302585125], [2.302585093, [[[0.3, -0.2], [-0.1, 0.4]]]]],
    'logdet-value': 2.397895336,
    'solve': [[[0.1], [0.6]], [[[0.01, 0.06], [-0.07, -0.42]], [[-0.1], [0.7]]]],
    'solve-adjoint': [[[-0.1], [0.7]], [[[0.01, 0.06], [-0.07, -0.42]], [[0.1], [0.6]]]],
    'cholesky-value': [[2.0, 0.0], [0.5, 1.65831244]],
    'cholesky_solve': [[[0.09090909091], [0.6363636364]], [[[0.09090909091], [0.6363636364]]]],
    'triangular_solve': [[[0.25], [0.5]],
                         [[[0.02083333333, 0.0], [-0.1666666667, -0.3333333333]],
                          [[-0.08333333333], [0.6666666667]]]],
    'triangular_solve-upper-adjoint': [[[0.25], [0.5833333333]],
                                       [[[-0.02083333333, -0.1666666667], [0.0, -0.3888888889]],
                                        [[0.08333333333], [0.6666666667]]]],
    'eigh': [[2.381966011, 4.618033989], [[[1.723606798, 0.0], [0.894427191, 1.276393202]]]],
    'eigvalsh': [[2.381966011, 4.618033989], [[[1.723606798, 0.0], [0.894427191, 1.276393202]]]],
    'svd-values': [[9.838862603, 0.6684180361],
                   [[[-1.434164064, 0.1464723284, 1.224641978],
                     [1.027896012, 0.5311699007, 0.2885474767]]]],
    'svd-reconstructed': [[[4.0, 1.0], [2.0, 3.0]], [[[1.0, 2.0], [3.0, 4.0]]]],
    'qr': [[[[-0.8944270611, -0.4472135901], [-0.4472135901, 0.8944271803]],
            [[-4.472136021, -2.23606801], [0.0, 2.23606801]]],
           [[[-5.916079783, -8.282511696], [0.0, 0.632455532]],
            [[[-5.684494341, 3.45667149], [1.331395277, -2.27909617],
              [-0.8451542547, -1.690308509]]]]],
    'pinv': [[[-2.071428571, 0.7857142857, 0.1428571429], [1.5, -0.5, 2.498001805e-16]],
             [[[3.704081633, -3.214285714], [-5.887755102, 4.357142857],
               [2.806122449, -2.071428571]]]],
    'lstsq': [[[1.166666667], [0.5]],
              [[[0.2222222222, -4.440892099e-16], [-0.4444444444, 0.0], [-0.9444444444, -0.5]],
               [[-0.1666666667], [0.3333333333], [0.8333333333]]]],
    'lstsq-wide-l2': [[[0.1052631579], [0.2807017544], [0.4912280702]],
                      [[[0.01662049861, -0.07263773469, 0.136041859],
                        [-0.1108033241, -0.108341028, -0.6106494306]],
                       [[-0.2456140351], [1.192982456]]]],
    'trace': [[5.0, 13.0], [[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]]],
    'diag_part': [[2.0, 6.0], [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]]],
    'diag': [[[[1.0, 0.0], [0.0, 2.0]], [[3.0, 0.0], [0.0, 4.0]]], [[[1.0, 4.0], [5.0, 8.0]]]],
    'diag-k': [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]], [[2.0, 6.0]]],
    'band_part': [[[1.0, 0.0, 0.0], [4.0, 5.0, 0.0], [0.0, 8.0, 9.0]],
                  [[[1.0, 0.0, 0.0], [4.0, 5.0, 0.0], [0.0, 8.0, 9.0]]]],
    'norm': [5.477225575, [[[0.7302967433, 0.1825741858], [0.3651483717, 0.5477225575]]]],
    'norm-axis-keepdims': [[[4.123105626], [3.605551275]],
                           [[[0.9701425001, 0.242535625], [1.109400392, 1.664100589]]]],
    'norm-1': [10.0, [[[1.0, 1.0], [1.0, 1.0]]]],
    'norm-inf-axis': [[4.0, 3.0], [[[1.0, 0.0], [0.0, 2.0]]]],
    'norm-3': [4.641588834, [[[0.7426542134, 0.04641588834], [0.1856635533, 0.417742995]]]],
    'norm-fro-matrix': [5.477225575, [[[0.7302967433, 0.1825741858], [0.3651483717, 0.5477225575]]]],
    'norm-1-matrix': [6.0, [[[1.0, 0.0], [1.0, 0.0]]]],
    'norm-inf-matrix': [5.0, [[[0.5, 0.5], [0.5, 0.5]]]],
    'norm-2-matrix': [5.116672736, [[[0.6530886298, 0.4036309709], [0.5450523271, 0.3368608638]]]],
    'norm-at-0': [0.0, [[NAN, NAN]]],
    'normalize': [[0.6000000238, 0.8000000119], [5.0]],
    'global_norm': [5.916079783,
                    [[[0.6761234038, 0.1690308509], [0.3380617019, 0.5070925528]],
                     [[0.1690308509], [0.3380617019]]]],
    'matvec': [[6.0, 8.0], [[[1.0, 2.0], [2.0, 4.0]], [8.0, 7.0]]],
    'cross': [[-5.0, 1.0, 1.0], [[5.0, -1.0, -1.0], [0.0, 0.0, 0.0]]],
    'matrix_transpose': [[[0, 3], [1, 4], [2, 5]]],
}

test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers = against_tensorflow(
    CASES, TENSORFLOW_2_21)


# -- the gradients of a function of one triangle ---------------------------------------------------
S64 = np.array([[4.0, 1.0], [1.0, 3.0]])
W = np.array([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("fn, tensorflow", [
    (lambda a: tf.reduce_sum(tf.linalg.cholesky(a) * W),
     [[0.1378778361, 0.4484886554], [0.4484886554, 1.206045378]]),
    (tf.linalg.logdet, [[0.2727272727, -0.09090909091], [-0.09090909091, 0.3636363636]]),
], ids=["cholesky", "logdet"])
def test_cholesky_has_tensorflows_symmetric_gradient(fn, tensorflow):
    # TensorFlow 2.21 spreads each off-diagonal entry half and half over both triangles (the
    # numbers above), where the function computed reads the lower triangle only: the two agree
    # in every symmetric direction, which finite differences check here
    g = np.asarray(value_and_grads(fn, S64)[1][0])
    np.testing.assert_allclose(g, tensorflow, rtol=1e-8)
    for e in (np.array([[1.0, 0.0], [0.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]),
              np.array([[0.0, 0.0], [0.0, 1.0]])):
        h = 1e-6
        f = [float(tf.reduce_sum(fn(tf.constant(S64 + s * h * e)))) for s in (1, -1)]
        np.testing.assert_allclose((f[0] - f[1]) / (2 * h), np.sum(g * e), rtol=1e-6)


def test_cholesky_and_eigh_of_a_nonsymmetric_matrix_read_its_lower_triangle():
    # as TensorFlow 2.21.0: the values and gradients of [[2, 5], [1, 3]] are those of its lower
    # triangle made symmetric, [[2, 1], [1, 3]]; eigh's gradient stays on the lower triangle
    a, sym = np.array([[2.0, 5.0], [1.0, 3.0]]), np.array([[2.0, 1.0], [1.0, 3.0]])
    for m in (a, sym):
        x = tf.constant(m)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            s = tf.reduce_sum(tf.linalg.cholesky(x))
            w, v = tf.linalg.eigh(x)
            e = tf.reduce_sum(w) + tf.reduce_sum(v[:, 0] ** 2 * w[0])
        np.testing.assert_allclose(tape.gradient(s, x).numpy(), [[0.25583363680084636, 0.19543950758485476],
                                                                [0.19543950758485476, 0.31622776601683794]])
        np.testing.assert_allclose(tape.gradient(e, x).numpy(), [[1.7236067977499787, 0.0],
                                                                [-0.8944271909999155, 1.2763932022500208]])


def test_svd_vectors_are_a_factorization_whatever_their_signs():
    s, u, v = tf.linalg.svd(tf.constant(np.array([[4.0, 1.0], [2.0, 3.0]])))
    np.testing.assert_allclose((u * s[None, :]) @ tf.transpose(v), [[4.0, 1.0], [2.0, 3.0]], atol=1e-12)
    np.testing.assert_allclose(tf.transpose(u) @ u, np.eye(2), atol=1e-12)


# -- errors, in TensorFlow's words -------------------------------------------------------------------
def test_solve_wants_a_matrix_of_right_hand_sides():
    with pytest.raises(ValueError, match=r"tf\.linalg\.solve\(matrix, rhs\): All input tensors must have the "
                                         r"same rank.*for one vector b, pass b\[:, None\]"):
        tf.linalg.solve(tf.eye(2), tf.constant([1.0, 2.0]))


@pytest.mark.parametrize("fn", ["inv", "det", "cholesky", "slogdet"])
def test_a_square_matrix_is_needed(fn):
    with pytest.raises(ValueError, match=rf"tf\.linalg\.{fn}\(input\): Input matrix must be square, "
                                         r"got shape \(2, 3\)"):
        getattr(tf.linalg, fn)(tf.zeros([2, 3]))


def test_factorizations_without_a_unique_gradient_are_not_supported_here():
    with pytest.raises(NotImplementedError, match=r"tf\.linalg\.svd\(full_matrices=True\) of a 2x3 matrix"):
        tf.linalg.svd(tf.zeros([2, 3]), full_matrices=True)
    with pytest.raises(NotImplementedError, match=r"tf\.linalg\.qr\(full_matrices=False\) of a 2x3 matrix"):
        tf.linalg.qr(tf.zeros([2, 3]))
    with pytest.raises(NotImplementedError, match=r"tf\.linalg\.lstsq\(fast=False\)"):
        tf.linalg.lstsq(tf.eye(2), tf.ones([2, 1]), fast=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"ord": "nuc", "axis": [0, 1]},
     r"'ord' must be a supported matrix norm in \['euclidean', 'fro', 1, 2, inf\], got nuc"),
    ({"ord": "fro", "axis": 0}, "'ord' must be a supported vector norm, got fro"),
    ({"ord": 0}, "'ord' must be a supported vector norm, got 0"),
    ({"ord": None}, "'ord' must be a supported vector norm, got None"),
    ({"axis": [1]}, r"'axis' must be None, an integer, or a tuple of 2 unique integers, got \[1\]"),
], ids=["nuc", "fro-vector", "zero", "none", "one-axis-list"])
def test_norm_refuses_what_tensorflow_refuses(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.norm(tf.eye(2), **kwargs)


def test_a_linear_algebra_function_without_a_rule_says_so():
    with pytest.raises(AttributeError, match=r"gradmagic\.tf\.linalg\.expm does not exist.*\(the engine has no "
                                             r"gradient rule for it\)"):
        tf.linalg.expm


def test_slogdets_sign_has_a_zero_gradient_not_none():
    # TensorFlow 2.21.0, the same code: the sign is an output the tape follows, with gradient
    # 0 (-0 where the inverse's entry is negative); sign * logabs gets sign's share of logabs'
    a = tf.Variable([[2.0, 1.0], [1.0, 3.0]])
    with tf.GradientTape(persistent=True) as tape:
        sign, logabs = tf.linalg.slogdet(a)
        y = sign * logabs
    assert str(tape.gradient(sign, a).numpy().tolist()) == "[[0.0, -0.0], [-0.0, 0.0]]"
    np.testing.assert_allclose(tape.gradient(y, a).numpy(), [[0.6, -0.2], [-0.2, 0.4]], rtol=1e-6)
    b = tf.Variable([[[2.0, 1.0], [1.0, -3.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with tf.GradientTape() as tape:
        sign, _ = tf.linalg.slogdet(b)
    assert sign.numpy().tolist() == [-1.0, 1.0] and not tape.gradient(sign, b).numpy().any()
