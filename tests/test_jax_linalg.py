"""``gradmagic.jax.numpy.linalg``: JAX's symmetrized ``cholesky``, ``eigh`` and ``eigvalsh``.

JAX factors ``(a + a^T) / 2``, so a matrix that is not symmetric gives other values than
NumPy's (which read the lower triangle) and every gradient is symmetric. They used to be
NumPy's: the values of a non-symmetric input, and a lower-triangular gradient, differed
from JAX's without a word. Expected values were printed by JAX 0.10.2 (CPU) running the
same code, in float64 (x64) and float32.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

A = np.array([[4., 1., 0.5], [0.3, 3., 0.2], [0.1, 0.4, 5.]])  # not symmetric
W = np.arange(9.).reshape(3, 3)

JAX = {  # JAX 0.10.2, x64; the symmetric (A + A^T) / 2 gives the same
    "chol": [[2.0, 0.0, 0.0], [0.325, 1.701286, 0.0], [0.15, 0.147682, 2.226138]],
    "dchol": [[-0.151239, 0.443191, 1.056278], [0.443191, 1.010537, 1.90129],
              [1.056278, 1.90129, 1.796834]],
    "eigh": [2.671572, 4.136049, 5.19238],
    "deigh": [[0.355387, -0.104244, 0.392133], [-0.104244, -0.19429, 0.099042],
              [0.392133, 0.099042, 0.838902]],
    "deigvalsh": [[0.941825, 0.466352, 0.294099], [0.466352, 0.238852, 0.2627],
                  [0.294099, 0.2627, 1.819323]],
}


def results(a):
    L = jnp.linalg.cholesky(a)
    return {
        "chol": L,
        "dchol": jax.grad(lambda a: (jnp.linalg.cholesky(a) * W).sum())(a),
        "eigh": jnp.linalg.eigh(a)[0],
        "deigh": jax.grad(lambda a: jnp.linalg.eigh(a)[1][:, 0].sum() ** 2 + jnp.linalg.eigh(a)[0][2])(a),
        "deigvalsh": jax.grad(lambda a: (jnp.linalg.eigvalsh(a) * jnp.arange(3.)).sum())(a),
    }


@pytest.mark.parametrize("config", ["float32", "float64"])
@pytest.mark.parametrize("a", [A, (A + A.T) / 2], ids=["not symmetric", "symmetric"])
def test_values_and_gradients_are_jaxs(config, a):
    jax.config.update("jax_enable_x64", config == "float64")
    try:
        got = results(jnp.asarray(a))
        for key, want in JAX.items():
            assert isinstance(got[key], jax.Array) and got[key].dtype == np.dtype(config), key
            np.testing.assert_allclose(np.asarray(got[key]), want, atol=2e-6, err_msg=key)
            if key.startswith("d"):  # every gradient symmetric
                np.testing.assert_array_equal(np.asarray(got[key]), np.asarray(got[key]).T)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_the_gradients_agree_with_finite_differences():
    """The gradient is that of the function computed, by central differences in float64,
    entry by entry, and so is the Hessian-vector product (forward over reverse)."""
    jax.config.update("jax_enable_x64", True)
    try:
        f = (lambda a: (jnp.linalg.cholesky(a) * W).sum() + jnp.linalg.eigvalsh(a)[0] * 3)
        g = np.asarray(jax.grad(f)(jnp.asarray(A)))
        h, numeric = 1e-6, np.zeros_like(A)
        for i in range(3):
            for j in range(3):
                e = np.zeros_like(A)
                e[i, j] = h
                numeric[i, j] = (float(f(jnp.asarray(A + e))) - float(f(jnp.asarray(A - e)))) / (2 * h)
        np.testing.assert_allclose(g, numeric, rtol=1e-6, atol=1e-8)
        # second order: the Hessian-vector product of the same function, against differences of grads
        v = np.ones_like(A)
        hv = np.asarray(jax.jvp(jax.grad(f), (jnp.asarray(A),), (jnp.asarray(v),))[1])
        fd = (np.asarray(jax.grad(f)(jnp.asarray(A + h * v))) - np.asarray(jax.grad(f)(jnp.asarray(A - h * v)))) / (2 * h)
        np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-7)
    finally:
        jax.config.update("jax_enable_x64", False)


def test_options_batches_and_the_rest_of_numpy_linalg():
    a = jnp.asarray(A)
    np.testing.assert_allclose(  # JAX 0.10.2, float32
        np.asarray(jnp.linalg.cholesky(a, upper=True)),
        [[2.0, 0.325, 0.15], [0.0, 1.70129, 0.14768], [0.0, 0.0, 2.22614]], atol=1e-5)
    np.testing.assert_allclose(  # the lower triangle, as NumPy's
        np.asarray(jnp.linalg.cholesky(a, symmetrize_input=False)),
        [[2.0, 0.0, 0.0], [0.15, 1.72554, 0.0], [0.05, 0.22746, 2.22391]], atol=1e-5)
    batched = jax.grad(lambda a: jnp.linalg.eigvalsh(a)[..., 0].sum())(jnp.stack([a, a.T]))
    want = [[0.18277, -0.38559, 0.02613], [-0.38559, 0.81349, -0.05513], [0.02613, -0.05513, 0.00374]]
    np.testing.assert_allclose(np.asarray(batched), [want, want], atol=1e-5)
    inv = jax.grad(lambda a: jnp.linalg.inv(a)[0, 1])(a)  # NumPy's own, as an Array
    assert isinstance(inv, jax.Array) and inv.dtype == np.float32
    np.testing.assert_allclose(np.asarray(inv), [[0.02121, -0.08815, 0.00663], [-0.00682, 0.02836, -0.00213],
                                                 [-0.00185, 0.00768, -0.00058]], atol=1e-5)
    assert isinstance(jnp.linalg.inv(a), jax.Array)
    from gradmagic.jax.numpy.linalg import cholesky  # as `from jax.numpy.linalg import ...`
    assert cholesky is jnp.linalg.cholesky
    with pytest.raises(AttributeError, match="gradmagic.jax.numpy.linalg has no 'nope'"):
        jnp.linalg.nope
