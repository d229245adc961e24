"""``gradmagic.jax.scipy`` (``special``, ``stats.norm``, ``linalg``) and ``jax.nn.logsumexp``
with ``b`` and ``return_sign``, against JAX.

Expected values and gradients were printed by JAX 0.10.2 (CPU, float32) running the same
code (values to 5 decimals, gradients to 4); each gradient is of the output weighted 1, 2,
3 ... so that one that lands in the wrong place shows.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
import gradmagic.jax.scipy.linalg as sl
from gradmagic.jax.nn import logsumexp
from gradmagic.jax.scipy.special import erf, erfc, expit, logit, ndtr, xlog1py, xlogy
from gradmagic.jax.scipy.stats import norm

X = [[0.2, -1.0, 2.0], [0.7, 0.0, -0.5]]
P = [[0.2, 0.5, 0.9], [0.1, 0.3, 0.99]]
A = [[4., 1., 0.5], [0.3, 3., 0.2], [0.1, 0.4, 5.]]  # not symmetric
S = ((np.array(A) + np.array(A).T) / 2).tolist()
B = [[1., 2.], [0.5, -1.], [2., 0.]]

CASES = {
    "lse": (lambda x: logsumexp(x, axis=1), [X]),
    "expit": (expit, [X]),
    "logit": (logit, [P]),
    "erf": (erf, [X]),
    "erfc": (erfc, [X]),
    "ndtr": (ndtr, [X]),
    "xlogy": (xlogy, [[[0., 1., 2.]], [[0.5, 0.5, 0.5]]]),
    "xlog1py": (xlog1py, [[[0., 1., 2.]], [[0.5, 0.5, 0.5]]]),
    "norm logpdf": (lambda x, m, s: norm.logpdf(x, m, s), [X, [0.5], [2.0]]),
    "norm pdf": (lambda x: norm.pdf(x), [X]),
    "norm cdf": (lambda x, m, s: norm.cdf(x, m, s), [X, [0.5], [2.0]]),
    "norm sf": (lambda x: norm.sf(x, 1., 0.5), [X]),
    "chol": (lambda a: sl.cholesky(a), [S]),
    "chol lower": (lambda a: sl.cholesky(a, lower=True), [S]),
    "chol nonsym": (lambda a: sl.cholesky(a), [A]),
    "cho_solve": (lambda a, b: sl.cho_solve(sl.cho_factor(a), b), [S, B]),
    "cho_solve lower": (lambda a, b: sl.cho_solve(sl.cho_factor(a, lower=True), b), [S, B]),
    "solve_tri": (lambda a, b: sl.solve_triangular(a, b), [A, B]),
    "solve_tri lower T": (lambda a, b: sl.solve_triangular(a, b, trans=1, lower=True), [A, B]),
    "solve_tri unit vec": (lambda a, b: sl.solve_triangular(a, b, lower=True, unit_diagonal=True, trans="T"),
                           [A, [1., 2., 3.]]),
    "solve": (lambda a, b: sl.solve(a, b), [A, B]),
    "inv": (sl.inv, [A]),
    "det": (sl.det, [A]),
    "eigh": (lambda a: sl.eigh(a)[0], [A]),
    "eigh upper": (lambda a: sl.eigh(a, lower=False)[1][:, 0] ** 2, [A]),
    "eigvals_only": (lambda a: sl.eigh(a, eigvals_only=True), [S]),
}

JAX = {'cho_solve': [[[0.20776, 0.57482], [0.0834, -0.45717], [0.38253, -0.00706]],
               [[[-0.1366, -0.6805, -0.8703], [-0.0799, 0.4613, 0.0655], [0.0215, 0.0307, -0.3533]],
                [[0.0332, 0.2257], [0.8984, 1.1728], [0.9441, 1.1161]]]],
 'cho_solve lower': [[[0.20776, 0.57482], [0.0834, -0.45717], [0.38253, -0.00706]],
                     [[[-0.1366, -0.0799, 0.0215], [-0.6805, 0.4613, 0.0307],
                       [-0.8703, 0.0655, -0.3533]],
                      [[0.0332, 0.2257], [0.8984, 1.1728], [0.9441, 1.1161]]]],
 'chol': [[[2.0, 0.325, 0.15], [0.0, 1.70129, 0.14768], [0.0, 0.0, 2.22614]],
          [[[0.1977, 0.7968, 0.8038], [-0.4677, 1.3316, 3.3513], [-0.1231, -0.1755, 2.0214]]]],
 'chol lower': [[[2.0, 0.0, 0.0], [0.325, 1.70129, 0.0], [0.15, 0.14768, 2.22614]],
                [[[0.0545, -0.5476, -0.1231], [1.8051, 1.2806, -0.1755], [2.6128, 4.5269, 2.0214]]]],
 'chol nonsym': [[[2.0, 0.5, 0.25], [0.0, 1.65831, 0.04523], [0.0, 0.0, 2.22159]],
                 [[[0.2637, 0.642, 0.3561], [-0.8103, 1.4597, 3.5629], [-0.2394, -0.0552, 2.0256]]]],
 'det': [58.11, [[[14.92, -1.48, -0.18], [-4.8, 19.95, -1.5], [-1.3, -0.65, 11.7]]]],
 'eigh': [[2.67157, 4.13605, 5.19238],
          [[[1.9418, 0.4664, 0.2941], [0.4664, 1.2389, 0.2627], [0.2941, 0.2627, 2.8193]]]],
 'eigh upper': [[0.18277, 0.8135, 0.00374],
                [[[0.1967, -0.163, -0.0176], [-0.163, -0.1876, 0.0731], [-0.0176, 0.0731, -0.009]]]],
 'eigvals_only': [[2.67157, 4.13605, 5.19238],
                  [[[1.9418, 0.4664, 0.2941], [0.4664, 1.2389, 0.2627], [0.2941, 0.2627, 2.8193]]]],
 'erf': [[[0.2227, -0.8427, 0.99532], [0.6778, 0.0, -0.5205]],
         [[[1.0841, 0.8302, 0.062], [2.7651, 5.6419, 5.2727]]]],
 'erfc': [[[0.7773, 1.8427, 0.00468], [0.3222, 1.0, 1.5205]],
          [[[-1.0841, -0.8302, -0.062], [-2.7651, -5.6419, -5.2727]]]],
 'expit': [[[0.54983, 0.26894, 0.8808], [0.66819, 0.5, 0.37754]],
           [[[0.2475, 0.3932, 0.315], [0.8869, 1.25, 1.41]]]],
 'inv': [[[0.25675, -0.0826, -0.02237], [-0.02547, 0.34331, -0.01119], [-0.0031, -0.02581, 0.20134]],
         [[[0.0088, -0.1141, -0.109], [-0.1386, -0.4158, -0.2799], [-0.1824, -0.4655, -0.2947]]]],
 'logit': [[[-1.38629, 0.0, 2.19722], [-2.19722, -0.8473, 4.59512]],
           [[[6.25, 8.0, 33.3333], [44.4444, 23.8095, 606.06122]]]],
 'lse': [[2.19481, 1.28655], [[[0.136, 0.041, 0.823], [1.1125, 0.5524, 0.3351]]]],
 'ndtr': [[[0.57926, 0.15866, 0.97725], [0.75804, 0.5, 0.30854]],
          [[[0.391, 0.4839, 0.162], [1.249, 1.9947, 2.1124]]]],
 'norm cdf': [[[0.44038, 0.22663, 0.77337], [0.53983, 0.40129, 0.30854]],
              [[[0.1972, 0.3011, 0.4517], [0.7939, 0.9667, 1.0562]], [-3.7669], [0.607]]],
 'norm logpdf': [[[-1.62334, -1.89334, -1.89334], [-1.61709, -1.64334, -1.73709]],
                 [[[0.075, 0.75, -1.125], [-0.2, 0.625, 1.5]], [-1.625], [-8.1562]]],
 'norm pdf': [[[0.39104, 0.24197, 0.05399], [0.31225, 0.39894, 0.35207]],
              [[[-0.0782, 0.4839, -0.3239], [-0.8743, -0.0, 1.0562]]]],
 'norm sf': [[[0.9452, 0.99997, 0.02275], [0.72575, 0.97725, 0.99865]],
             [[[-0.2218, -0.0005, -0.3239], [-2.6658, -0.5399, -0.0532]]]],
 'solve': [[[0.17071, 0.59611], [0.12382, -0.39425], [0.38668, 0.01962]],
           [[[-0.2624, 0.1345, -0.0715], [-0.7675, 0.3139, -0.3371], [-0.8291, 0.3233, -0.3896]],
            [[0.1649, 0.393], [0.8183, 1.0532], [0.9508, 1.1186]]]],
 'solve_tri': [[[0.165, 0.58333], [0.14, -0.33333], [0.4, 0.0]],
               [[[-0.3329, 0.1317, -0.1], [0.0, 0.2606, -0.3667], [0.0, 0.0, -0.3753]],
                [[0.25, 0.5], [0.9167, 1.1667], [0.9383, 1.1033]]]],
 'solve_tri lower T': [[[0.2315, 0.525], [0.11333, -0.33333], [0.4, 0.0]],
                       [[[-0.3204, 0.0, 0.0], [0.1383, 0.3173, 0.0], [-0.1, -0.39, -0.3668]],
                        [[0.25, 0.5], [0.975, 1.2833], [0.917, 1.0873]]]],
 'solve_tri unit vec': [[0.46, 0.8, 3.0],
                        [[[0.0, 0.0, 0.0], [-0.8, 0.0, 0.0], [-3.0, -5.1, 0.0]], [1.0, 1.7, 2.22]]],
 'xlog1py': [[[0.0, 0.40547, 0.81093]], [[[0.4055, 0.8109, 1.2164]], [[0.0, 1.3333, 4.0]]]],
 'xlogy': [[[0.0, -0.69315, -1.38629]], [[[-0.6931, -1.3863, -2.0794]], [[0.0, 4.0, 12.0]]]]}


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_are_jaxs(name):
    f, args = CASES[name]
    xs = [jnp.asarray(np.asarray(x, np.float32)) for x in args]
    y = f(*xs)
    assert isinstance(y, jax.Array) and y.dtype == np.float32
    gs = jax.grad(lambda *xs: (f(*xs) * jnp.arange(1., 1 + np.size(y)).reshape(np.shape(y))).sum(),
                  argnums=tuple(range(len(xs))))(*xs)
    value, grads = JAX[name]
    np.testing.assert_allclose(np.asarray(y), value, atol=2e-5)
    for g, want in zip(gs, grads):
        np.testing.assert_allclose(np.asarray(g), want, atol=2e-4, rtol=1e-4)


@pytest.mark.parametrize("name", ["xlogy", "norm logpdf", "norm cdf", "chol nonsym", "cho_solve",
                                  "solve_tri lower T", "lse"])
def test_gradients_match_finite_differences_in_float64(name):
    f, args = CASES[name]
    jax.config.update("jax_enable_x64", True)
    try:
        xs = [jnp.asarray(np.asarray(x, np.float64)) for x in args]
        weights = jnp.arange(1., 1 + np.size(f(*xs))).reshape(np.shape(f(*xs)))
        loss = (lambda *xs: (f(*xs) * weights).sum())
        gs = jax.grad(loss, argnums=tuple(range(len(xs))))(*xs)
        h = 1e-6
        for k, (x, g) in enumerate(zip(xs, gs)):
            numeric = np.zeros(x.shape)
            for i in np.ndindex(x.shape):
                e = np.zeros(x.shape)
                e[i] = h
                up = [jnp.asarray(np.asarray(v) + (e if j == k else 0)) for j, v in enumerate(xs)]
                down = [jnp.asarray(np.asarray(v) - (e if j == k else 0)) for j, v in enumerate(xs)]
                numeric[i] = (float(loss(*up)) - float(loss(*down))) / (2 * h)
            if name.startswith("ch"):  # JAX's factorization gradients assume a symmetric change
                numeric = (numeric + numeric.T) / 2 if x.ndim == 2 and x.shape[0] == x.shape[1] else numeric
                g = (np.asarray(g) + np.asarray(g).T) / 2 if x.ndim == 2 and x.shape[0] == x.shape[1] else g
            np.testing.assert_allclose(np.asarray(g), numeric, rtol=1e-5, atol=1e-7, err_msg=f"{name} {k}")
    finally:
        jax.config.update("jax_enable_x64", False)


def test_xlogy_derivatives_are_jaxs_where_x_is_0():
    # JAX 0.10.2: value 0; d/dx log(y): -inf at y = 0 (and NaN for y < 0); d/dy x / y: NaN at 0 / 0
    assert float(xlogy(0., 0.)) == 0.0 and float(xlog1py(0., -1.)) == 0.0
    gx, gy = jax.grad(xlogy, (0, 1))(0., 0.)
    assert float(gx) == -np.inf and np.isnan(float(gy))
    gx, gy = jax.grad(xlogy, (0, 1))(0., 0.5)
    assert float(gx) == pytest.approx(np.log(0.5)) and float(gy) == 0.0
    gx, gy = jax.grad(xlog1py, (0, 1))(2., 0.5)
    assert float(gx) == pytest.approx(np.log1p(0.5)) and float(gy) == pytest.approx(2 / 1.5)


A2 = [[1., 2., 3.], [0., -1., 5.]]
B2 = [[1., -1., 0.5], [2., 1., -0.1]]


def test_logsumexp_takes_signed_weights_and_returns_the_sign():
    """It used to ignore ``return_sign`` (so ``lse, sign = logsumexp(..., return_sign=True)``
    unpacked two values of the result) and gave NaN for any negative weight; JAX 0.10.2's
    numbers."""
    a, b = jnp.asarray(A2), jnp.asarray(B2)
    out, sign = logsumexp(a, axis=1, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), [3.40761, 5.00917], atol=1e-5)
    np.testing.assert_array_equal(np.asarray(sign), [1., 1.])
    out = logsumexp(a, axis=1, b=b)  # the second row's sum is negative: NaN
    assert float(out[0]) == pytest.approx(1.6812, abs=1e-4) and np.isnan(float(out[1]))
    out, sign = logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), [1.6812, 2.5236], atol=1e-4)
    np.testing.assert_array_equal(np.asarray(sign), [1., -1.])
    out, sign = logsumexp(a, axis=0, b=b, keepdims=True, return_sign=True)
    np.testing.assert_allclose(np.asarray(out), [[1.55144, 1.94893, 1.56831]], atol=1e-5)
    np.testing.assert_array_equal(np.asarray(sign), [[1., -1., -1.]])
    out, sign = logsumexp(a, b=b, return_sign=True)
    assert float(out) == pytest.approx(1.9603, abs=1e-4) and float(sign) == -1.0
    out, sign = logsumexp(jnp.array([-np.inf, -np.inf]), return_sign=True)
    assert float(out) == -np.inf and float(sign) == 0.0
    out, sign = logsumexp(a, axis=1, b=jnp.zeros_like(a), return_sign=True)
    assert np.asarray(out).tolist() == [-np.inf, -np.inf] and np.asarray(sign).tolist() == [0., 0.]
    g = jax.grad(lambda a: logsumexp(a, axis=1, b=b).sum())(a)  # 0 on the NaN row, as JAX's
    np.testing.assert_allclose(np.asarray(g), [[0.50601, -1.37548, 1.86947], [0., 0., 0.]], atol=1e-4)
    g = jax.grad(lambda b: logsumexp(a, axis=1, b=b).sum())(b)
    np.testing.assert_allclose(np.asarray(g), [[0.50601, 1.37548, 3.73894], [0., 0., 0.]], atol=1e-4)
    g = jax.grad(lambda a: logsumexp(a, axis=1, b=b, return_sign=True)[0].sum())(a)
    np.testing.assert_allclose(np.asarray(g), [[0.50601, -1.37548, 1.86947], [-0.16034, -0.02949, 1.18983]],
                               atol=1e-4)


def test_what_jax_scipy_leaves_out_says_what_it_maps():
    with pytest.raises(AttributeError, match=r"gradmagic.jax.scipy.special.betaln does not exist: it "
                                             r"maps logsumexp, expit, logit, erf, erfc, erfinv, ndtr, ndtri, xlogy, xlog1py, "
                                             r"gammaln, digamma, polygamma"):
        jax.scipy.special.betaln
    with pytest.raises(AttributeError, match=r"gradmagic.jax.scipy.linalg.expm does not exist: it maps cholesky"):
        jax.scipy.linalg.expm
