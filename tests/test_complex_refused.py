"""Complex values in between real ones: gradmagic's rules are written for real values (they
take no conjugates), so a real value's gradient that came back through complex ones would be
wrong. Each way of asking for it refuses it, naming the call; none gives a number.

The true gradient of sum(|a (1 + 1j)|**2) = 2 sum(a**2) is 4 a; without conjugates the rules
gave 0 (the real part of 4 a i), silently, before.
"""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.errors import NoGradientError


def f(a):
    return np.sum(np.abs(a * (1 + 1j)) ** 2)


A = np.array([1., 2.])


def test_gm_grad_and_check_grad_refuse():
    with pytest.raises(NoGradientError, match=r"GradientTape.gradient: the gradient of a real value "
                                              r"\(dtype float64\) came back through complex values \(complex128\)"):
        gm.grad(f)(A)
    with pytest.raises(NoGradientError, match="through complex values"):
        gm.check_grad(f, A)


def test_the_tape_refuses_gradient_jacobian_and_batch_jacobian():
    a = gm.constant(A)
    with gm.GradientTape(persistent=True) as t:
        t.watch(a)
        s = f(a)
        b = np.reshape(a, (2, 1))
        rows = np.abs(b * (1 + 1j)) ** 2
    with pytest.raises(NoGradientError, match="GradientTape.gradient: .* through complex values"):
        t.gradient(s, [a])
    with pytest.raises(NoGradientError, match="GradientTape.jacobian: .* through complex values"):
        t.jacobian(s, a)
    with pytest.raises(NoGradientError, match="GradientTape.batch_jacobian: .* through complex"):
        t.batch_jacobian(rows, b)


def test_the_same_function_on_real_and_imaginary_parts_is_right():
    def parts(a):
        re, im = a * 1, a * 1  # a (1 + 1j), as two real values
        return np.sum(re ** 2 + im ** 2)
    np.testing.assert_allclose(gm.grad(parts)(A), 4 * A)


def test_tf_cast_to_complex_refuses():
    import gradmagic.tf as tf
    v = tf.Variable([1., 2.])
    with tf.GradientTape() as t:
        y = tf.reduce_sum(tf.abs(tf.cast(v, tf.complex64) * (1 + 1j)) ** 2)
    with pytest.raises(NoGradientError, match=r"the cast to complex: .* \(dtype float32\) came back "
                                              r"through complex values \(complex64\)"):
        t.gradient(y, v)


def test_torch_backward_and_autograd_grad_refuse():
    import gradmagic.torch as torch
    for call, words in ((lambda y, x: y.backward(), "backward()"),
                        (lambda y, x: torch.autograd.grad(y, x), "autograd.grad()")):
        x = torch.tensor([1., 2.], requires_grad=True)
        y = (x * (1 + 1j)).abs().pow(2).sum()
        with pytest.raises(RuntimeError, match=rf"{words[:-2]}\(\): .*torch.float32.*torch.complex64"):
            call(y, x)
        assert x.grad is None


def test_jax_abs_of_complex_is_real_and_grad_refuses():
    import gradmagic.jax as jax
    import gradmagic.jax.numpy as jnp
    a = jnp.array([1., 2.])
    assert jnp.abs(a * (1 + 1j)).dtype == np.float32  # as JAX's (the magnitudes)
    with pytest.raises(NoGradientError, match="through complex values"):
        jax.grad(lambda a: jnp.sum(jnp.abs(a * (1 + 1j)) ** 2))(a)


def test_numpy_fft_runs_on_a_tensor_no_tape_follows_and_is_refused_under_one():
    x = gm.constant(np.arange(8.))
    np.testing.assert_allclose(np.fft.rfft(x).value, np.fft.rfft(np.arange(8.)))  # NumPy's own
    with gm.GradientTape() as t:
        t.watch(x)
        with pytest.raises(NoGradientError, match=r"np.fft.rfft has no gradient rule in gradmagic"):
            np.fft.rfft(x)
