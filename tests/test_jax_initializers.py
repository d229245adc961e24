"""``jax.nn.initializers`` on gradmagic.jax: shapes, dtypes, statistics and errors from JAX
0.10.2 (CPU), run with the real ``jax`` and pasted here.

Keys seed NumPy's generator, so the samples differ from JAX's: what is checked is what JAX
printed for the same calls, its standard deviations, bounds and means to two or three
digits (large draws), orthogonality, and that one key gives the same array each time.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax.nn import initializers as I

KEY = jax.random.key(1)


def stats(w):
    w = np.asarray(w)
    return w.std(), np.abs(w).max(), w.mean()


# (initializer, shape, JAX's std, JAX's largest |w| for a bounded distribution, else None)
@pytest.mark.parametrize("init, shape, std, bound", [
    (I.he_normal(), (1000, 500), 0.045, 0.102),      # truncated at 2 std of the normal
    (I.kaiming_uniform(), (1000, 500), 0.045, 0.077),  # sqrt(3 * 2 / 1000)
    (I.glorot_normal(), (1000, 500), 0.037, 0.083),
    (I.xavier_uniform(), (1000, 500), 0.037, 0.063),
    (I.lecun_normal(), (400, 300), 0.05, 0.114),
    (I.lecun_uniform(), (400, 300), 0.05, 0.087),
    (I.variance_scaling(1., "fan_in", "normal"), (3, 3, 16, 64), 0.083, None),  # fan_in 9 * 16
    (I.variance_scaling(2., "fan_out", "uniform"), (3, 3, 16, 64), 0.059, 0.102),
    (I.variance_scaling(1., "fan_geo_avg", "truncated_normal"), (100, 400), 0.071, 0.161),
    (I.variance_scaling(1., "fan_in", "normal", in_axis=1, out_axis=2, batch_axis=0),
     (8, 100, 30), 0.1, None),
    (I.variance_scaling(1., "fan_in", "normal", in_axis=(0, 1), out_axis=-1), (10, 20, 30), 0.0707, None),
    (I.normal(0.5), (400, 300), 0.5, None),
    (I.truncated_normal(1.), (400, 300), 0.879, 2.0),
])
def test_variance_scaling_and_its_named_forms_have_jaxs_spread_and_bounds(init, shape, std, bound):
    w = init(KEY, shape)
    assert w.shape == shape and w.dtype == np.float32
    s, top, mean = stats(w)
    assert abs(s - std) < 0.03 * std and abs(mean) < 0.05 * std
    if bound is not None:
        assert top <= bound + 5e-4 and top > 0.95 * bound  # JAX printed 3 decimals
    np.testing.assert_array_equal(np.asarray(init(KEY, shape)), np.asarray(w))  # per key
    assert not np.array_equal(np.asarray(init(jax.random.key(2), shape)), np.asarray(w))


def test_uniform_and_a_cut_normal_between_its_own_bounds():
    s, top, mean = stats(I.uniform(2.)(KEY, (400, 300)))  # JAX: std 0.577, max 2.0, mean 1.0
    assert abs(s - 0.577) < 0.01 and top <= 2.0 and abs(mean - 1.0) < 0.01
    w = np.asarray(I.truncated_normal(1., lower=-1., upper=0.5)(KEY, (400, 300)))
    assert w.min() >= -1.0 and w.max() <= 0.5 and abs(w.std() - 0.415) < 0.01  # JAX's 0.415
    assert abs(w.mean() + 0.206) < 0.01


def test_constants_and_dtypes_as_jaxs():
    assert np.asarray(I.constant(-7.)(KEY, (2, 3))).tolist() == [[-7.0] * 3] * 2
    assert I.constant(2, jnp.float16)(KEY, (1,)).dtype == np.float16
    assert I.constant(2)(KEY, (1,), jnp.int32).dtype == np.int32
    assert I.zeros(KEY, (2,), jnp.int32).dtype == np.int32 and I.ones(KEY, 3).shape == (3,)
    assert I.zeros(KEY, (2, 3), jnp.float64).dtype == np.float32  # narrowed without x64
    assert I.normal(dtype=jnp.float16)(KEY, (2,)).dtype == np.float16
    assert I.normal()(KEY, (2,), jnp.float16).dtype == np.float16
    assert I.he_normal(dtype=jnp.float16)(KEY, (2, 3)).dtype == np.float16
    assert np.asarray(I.ones(KEY, (2,))).tolist() == [1.0, 1.0]


def test_x64_makes_float64_the_default(x64):
    for w in (I.he_normal()(KEY, (2, 3)), I.zeros(KEY, (2,)), I.orthogonal()(KEY, (2, 2)),
              I.constant(1)(KEY, (2,))):
        assert w.dtype == np.float64


def test_orthogonal_rows_or_columns_and_delta_orthogonal_kernels():
    w = np.asarray(I.orthogonal(2.)(KEY, (5, 3)))
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(3), atol=1e-5)
    w = np.asarray(I.orthogonal()(KEY, (3, 5)))
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-5)
    w = I.orthogonal(column_axis=0)(KEY, (4, 2, 3))
    m = np.asarray(w).reshape(4, 6)
    assert w.shape == (4, 2, 3)
    np.testing.assert_allclose(m @ m.T, np.eye(4), atol=1e-5)
    assert I.orthogonal()(KEY, (0, 3)).shape == (0, 3)
    w = np.asarray(I.delta_orthogonal()(KEY, (3, 4, 2, 2)))
    # JAX: only the spatial centre (1, 1) is non-zero, and it is orthogonal
    assert (np.abs(w).sum(axis=(2, 3)) > 0).tolist() == [[False] * 4, [False, True, False, False],
                                                         [False] * 4]
    np.testing.assert_allclose(w[1, 1].T @ w[1, 1], np.eye(2), atol=1e-5)
    assert I.delta_orthogonal()(KEY, (2, 2, 2, 3, 4)).shape == (2, 2, 2, 3, 4)


@pytest.mark.parametrize("call, error, message", [
    (lambda: I.glorot_normal()(KEY, (5,)), ValueError,
     "Can't compute input and output sizes of a 1-dimensional weights tensor with default in_axis. "
     "Must be at least 2D or specify in_axis explicitly."),
    (lambda: I.glorot_normal()(KEY, ()), ValueError,
     "Can't compute input and output sizes of a 0-dimensional weights tensor with default in_axis. "
     "Must be at least 2D or specify in_axis explicitly."),
    (lambda: I.variance_scaling(1., "fan_x", "normal")(KEY, (2, 3)), ValueError,
     "invalid mode for variance scaling initializer: fan_x"),
    (lambda: I.variance_scaling(1., "fan_in", "cauchy")(KEY, (2, 3)), ValueError,
     "invalid distribution for variance scaling initializer: cauchy"),
    (lambda: I.orthogonal()(KEY, (3,)), ValueError, "orthogonal initializer requires at least a 2D shape"),
    (lambda: I.delta_orthogonal()(KEY, (3, 3)), ValueError,
     "Delta orthogonal initializer requires a 3D, 4D or 5D shape."),
    (lambda: I.delta_orthogonal()(KEY, (3, 4, 2)), ValueError,
     "`fan_in` must be less or equal than `fan_out`. "),
    (lambda: I.normal()(KEY, (2,), jnp.int32), ValueError,
     "dtype argument to `normal` must be a float or complex dtype, got int32"),
    (lambda: I.he_uniform()(KEY, (2, 3), jnp.int32), ValueError,
     "dtype argument to `uniform` must be a float dtype, got int32"),
])
def test_jaxs_errors(call, error, message):
    with pytest.raises(error) as e:
        call()
    assert str(e.value) == message


def test_a_1d_shape_with_an_explicit_in_axis_is_fine_and_the_module_imports_as_jaxs():
    assert I.variance_scaling(1., "fan_in", "normal", in_axis=0)(KEY, (5,)).shape == (5,)
    import gradmagic.jax.nn.initializers as module
    assert module is jax.nn.initializers is I
    with pytest.raises(AttributeError, match="it maps Initializer, zeros"):
        I.kaiming
