"""``lgamma`` and the polygamma functions (``core/special.py``; NumPy has none), and the
dialects' names for them: ``torch.lgamma``/``digamma``/``polygamma``,
``tf.math.lgamma``/``digamma``/``polygamma``, ``jax.scipy.special.gammaln``/``digamma``/
``polygamma`` and ``jax.lax.lgamma``/``digamma``.

Reference values are closed forms (the Euler-Mascheroni constant, zeta(3), pi), Python's
``math.lgamma``, the functions' own identities, and the numbers PyTorch 2.13.0+cpu, JAX
0.10.2 (x64) and TensorFlow 2.21.0 printed for the same code.
"""

import math

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import special
from gradmagic.errors import GradientValueError

EULER = 0.5772156649015329
ZETA3 = 1.2020569031595942


def test_closed_forms():
    np.testing.assert_allclose(special.digamma(np.array([1.0, 0.5, 2.0])),
                               [-EULER, -EULER - 2 * math.log(2), 1 - EULER], rtol=1e-14)
    np.testing.assert_allclose(special.polygamma(1, np.array([1.0, 0.5])), [math.pi ** 2 / 6, math.pi ** 2 / 2],
                               rtol=1e-14)
    np.testing.assert_allclose(special.polygamma(2, np.array([1.0])), [-2 * ZETA3], rtol=1e-14)
    x = np.array([-7.3, -2.5, -0.5, 1e-3, 0.3, 1.0, 3.7, 12.5, 1e4])
    np.testing.assert_allclose(special.gammaln(x), [math.lgamma(v) for v in x], rtol=1e-15)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_the_recurrence_and_the_reflection_hold(n):
    x = np.random.default_rng(n).uniform(-6, 15, 200)
    x = x[np.abs(x - np.round(x)) > 1e-3]  # away from the poles
    # psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1)
    lhs = special.polygamma(n, x + 1)
    rhs = special.polygamma(n, x) + (-1) ** n * math.factorial(n) / x ** (n + 1)
    np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-12 * np.abs(rhs).max())
    if n == 0:  # psi(1 - x) - psi(x) = pi cot(pi x)
        np.testing.assert_allclose(special.digamma(1 - x) - special.digamma(x), math.pi / np.tan(math.pi * x),
                                   rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradients_to_second_order_by_finite_differences(dtype):
    x0 = np.array([-2.5, 0.3, 1.0, 3.7, 12.5])
    for f in (special.gammaln, special.digamma, lambda x: special.polygamma(2, x)):
        assert gm.check_grad(lambda x: np.sum(f(x) * np.arange(1.0, 6.0)), x0, order=2)
    x = gm.constant(x0.astype(dtype))
    with gm.GradientTape() as t2:
        t2.watch(x)
        with gm.GradientTape() as t1:
            t1.watch(x)
            y = np.sum(special.gammaln(x))
        g = t1.gradient(y, x)
    h = t2.gradient(g, x)
    assert g.dtype == dtype and h.dtype == dtype and special.gammaln(x).dtype == dtype
    rtol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(g.numpy(), special.digamma(x0), rtol=rtol)
    np.testing.assert_allclose(h.numpy(), special.polygamma(1, x0), rtol=rtol)


def test_poles_and_infinities_as_jax():
    x = np.array([0.0, -1.0, np.inf, -np.inf, np.nan])
    assert special.gammaln(x).tolist()[:4] == [np.inf, np.inf, np.inf, np.inf]  # JAX, PyTorch, SciPy
    assert np.isnan(special.digamma(x)[[0, 1, 3, 4]]).all() and special.digamma(x)[2] == np.inf
    assert special.polygamma(1, x)[:2].tolist() == [np.inf, np.inf]  # odd order: +inf; even: NaN
    assert np.isnan(special.polygamma(2, x)[:2]).all()
    assert special.polygamma(1, x)[2] == 0.0  # the limit (JAX gives NaN, PyTorch 0)
    with pytest.raises(GradientValueError, match="n must be a non-negative integer"):
        special.polygamma(1.5, x)


X0 = [-2.5, 0.3, 1.0, 3.7, 12.5]


def test_torch_names():
    import gradmagic.torch as torch
    # PyTorch 2.13.0+cpu: y = sum(lgamma + 2 digamma + 3 polygamma(1) + 4 polygamma(2)), float64
    x = torch.tensor(X0, dtype=torch.float64, requires_grad=True)
    y = (torch.lgamma(x) + torch.digamma(x) * 2 + torch.polygamma(1, x) * 3 + x.polygamma(2) * 4).sum()
    g, = torch.autograd.grad(y, x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    assert y.item() == pytest.approx(-217.526617743, rel=1e-10)
    np.testing.assert_allclose(g.detach().numpy(), [798.848542652, 2767.737653722, 21.47606866, 1.7341602,
                                                    2.635582442], rtol=1e-9)
    np.testing.assert_allclose(h.numpy(), [593.294483201, -37442.748636655, -83.226539832, 0.08193045,
                                           0.071729824], rtol=1e-8)
    assert torch.lgamma(torch.tensor([2.5])).dtype == torch.float32


def test_jax_names():
    import gradmagic.jax as jax
    from gradmagic.jax import lax
    from gradmagic.jax.scipy.special import digamma, gammaln, polygamma
    jax.config.update("jax_enable_x64", True)
    try:
        f = (lambda x: (gammaln(x) + 2 * digamma(x) + 3 * polygamma(1, x) + 4 * polygamma(2, x)
                        + lax.lgamma(x) + lax.digamma(x)).sum())
        x = jax.numpy.asarray(X0)
        assert float(f(x)) == pytest.approx(-195.648877681, rel=1e-10)  # JAX 0.10.2, x64
        np.testing.assert_allclose(np.asarray(jax.grad(f)(x)), [809.490945938, 2776.480494048, 22.543787061,
                                                                3.211351597, 5.204063318], rtol=1e-9)
        np.testing.assert_allclose(np.diag(np.asarray(jax.hessian(f)(x))),
                                   [602.725525795, -37505.775808697, -83.985719572, 0.296572999, 0.148082612],
                                   rtol=1e-8)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_tf_names():
    import gradmagic.tf as tf
    x = tf.constant(np.array(X0))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.lgamma(x) + 2 * tf.math.digamma(x)
                          + 3 * tf.math.polygamma(tf.constant(1.0, tf.float64), x))
    assert float(y) == pytest.approx(94.022111026, rel=1e-10)  # TensorFlow 2.21.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [19.857037776, -204.829404896, -4.49968895,
                                                             1.501043329, 2.630968791], rtol=1e-9)
