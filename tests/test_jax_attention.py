"""``jax.nn.dot_product_attention``, ``sparse_plus`` and ``sparse_sigmoid`` on gradmagic.jax:
values, dtypes, errors and gradients from JAX 0.10.2 (CPU, x64 off), run with the real
``jax`` and pasted here; second order against JAX's Hessian-vector product and finite
differences (``check_grads``).

The inputs are ``sin`` of a ramp (``arr``), so they can be rebuilt in JAX exactly. JAX
computes the attention's softmax in float32 even for float64 inputs (as here), so its
finite-difference check runs in float32.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax.test_util import check_grads

attention = jax.nn.dot_product_attention


def arr(*shape, s=1.0):
    return jnp.asarray(np.sin(np.arange(np.prod(shape)) * 0.7 * s + s).reshape(shape).astype(np.float32))


Q, K, V = arr(1, 3, 4, 2), arr(1, 4, 2, 2, s=1.3), arr(1, 4, 2, 2, s=0.9)  # 4 query heads, 2 kv heads
BIAS = arr(1, 1, 3, 4, s=0.5)
MASK = jnp.asarray(np.array([[[[1, 1, 0, 1], [0, 1, 1, 1], [0, 0, 0, 0]]]], bool))  # a row of none

GQA = [[[[0.450852, 0.578836], [0.293467, 0.401339], [0.581381, 0.507518], [0.457338, 0.395247]],
  [[0.409879, 0.445843], [0.40633, 0.561208], [0.34585, 0.196133], [0.611458, 0.572576]],
  [[0.279137, 0.159565], [0.450677, 0.581376], [-0.072498, -0.280908], [0.586854, 0.515926]]]]
CAUSAL = [[[[0.783327, 0.999168], [0.783327, 0.999168], [0.831383, 0.344393], [0.831383, 0.344393]],
  [[0.531151, 0.57313], [0.649047, 0.772309], [0.25191, -0.026256], [0.466989, 0.111315]],
  [[0.049866, 0.088182], [0.36404, 0.640376], [0.045902, -0.00024], [0.657353, 0.621511]]]]
BIAS_MASK = [[[[0.693144, 0.585815], [0.575165, 0.372011], [0.222917, -0.144709], [0.007531, -0.30078]],
  [[0.052845, -0.007805], [-0.033138, 0.093405], [0.060795, 0.122683], [0.489899, 0.647958]],
  [[0.248484, 0.205525], [0.248484, 0.205525], [0.083656, -0.070333], [0.083656, -0.070333]]]]
LENGTHS = [[[[-0.049401, 0.248663], [0.198177, 0.242787]], [[0.06821, -0.300483], [-0.103988, -0.134803]],
  [[0.0, 0.0], [0.0, 0.0]]],
 [[[-0.328979, -0.780348], [-0.993329, -0.902858]],
  [[-0.328979, -0.780348], [-0.993329, -0.902858]],
  [[-0.328979, -0.780348], [-0.993329, -0.902858]]]]
WINDOW = [[[0.564642, 0.852108], [0.991458, 0.958471]], [[0.735348, 0.478837], [0.541636, 0.334003]],
 [[-0.404417, -0.645058], [-0.288461, -0.535994]]]
GRADS = [[[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
   [[0.77623, 0.48964], [0.57218, 0.36093], [-0.07463, -0.30018], [-0.09809, -0.39456]],
   [[0.26035, 0.17712], [0.33003, 0.35693], [-0.03924, -0.10963], [-0.27027, -0.41478]]]],
 [[[[0.66474, 0.93189], [-0.19084, -0.31028]], [[-0.49639, -0.72551], [0.31351, 0.51425]],
   [[-0.16835, -0.20638], [-0.12267, -0.20397]], [[0.0, 0.0], [0.0, 0.0]]]],
 [[[[6.07374, 7.65749], [5.35809, 2.13652]], [[0.57064, 0.67814], [0.54947, 0.13966]],
   [[0.25569, 0.35926], [0.61316, 0.46286]], [[0.0, 0.0], [0.0, 0.0]]]]]
HVP = [[[[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
  [[-0.2029, -0.128], [0.4192, 0.2644], [0.104, 0.4182], [0.0037, 0.0148]],
  [[-0.1217, -0.0888], [-0.1863, -0.0678], [-0.1663, -0.3915], [-0.0248, -0.2051]]]]
GRAD_BIAS = [[[[0.3583, -0.54398, 0.46627, -0.28059], [0.81412, -0.73896, 0.06076, -0.13591],
   [0.60442, -0.49346, -0.00305, -0.1079]]]]
RESIDUAL = [[[1.82633, 1.51135, 1.66288, 1.48037], [1.61813, 1.77896, 1.46187, 1.70752],
  [1.42386, 1.83142, 1.5071, 1.67165]]]


def close(a, b, atol=2e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b, np.float32), atol=atol, rtol=1e-5)


def test_grouped_query_heads_and_the_causal_mask_give_jaxs_values():
    out = attention(Q, K, V)
    assert out.shape == (1, 3, 4, 2) and out.dtype == np.float32
    close(out, GQA)
    close(attention(Q, K, V, is_causal=True), CAUSAL)


def test_a_bias_a_mask_and_a_scale_and_a_row_with_nothing_to_attend_to():
    # the last query attends to no key: JAX's large negative number leaves it the values' mean
    close(attention(Q, K, V, BIAS, MASK, scale=0.7), BIAS_MASK)


def test_sequence_lengths_pad_queries_with_zeros_and_drop_keys():
    out = attention(arr(2, 3, 2, 2), arr(2, 4, 2, 2, s=1.1), arr(2, 4, 2, 2, s=.8),
                    query_seq_lengths=jnp.array([2, 3], jnp.int32),
                    key_value_seq_lengths=jnp.array([3, 1], jnp.int32))
    close(out, LENGTHS)


def test_a_local_window_and_inputs_without_a_batch_axis():
    out = attention(arr(3, 2, 2), arr(3, 2, 2, s=1.2), arr(3, 2, 2, s=.6), local_window_size=(1, 0))
    assert out.shape == (3, 2, 2)
    close(out, WINDOW)


def test_gradients_of_query_key_value_and_bias_are_jaxs():
    def f(q, k, v):
        return jnp.sum(attention(q, k, v, BIAS, is_causal=True) ** 2)
    for got, want in zip(jax.grad(f, argnums=(0, 1, 2))(Q, K, V), GRADS):
        close(got, want, atol=3e-5)
    close(jax.grad(lambda b: jnp.sum(attention(Q, K, V, b) ** 3))(BIAS), GRAD_BIAS, atol=3e-5)
    hvp = jax.grad(lambda q: jnp.vdot(jax.grad(f)(q, K, V), arr(1, 3, 4, 2, s=2.)))(Q)
    close(hvp, HVP, atol=2e-4)


def test_second_order_against_finite_differences():
    check_grads(lambda q, k, v: attention(q, k, v, BIAS, is_causal=True),
                (Q * 0.5, K, V), order=2, modes=["fwd", "rev"], eps=1e-2, atol=1e-2, rtol=1e-2)


def test_the_residual_is_the_logits_logsumexp_and_half_precision_stays_half():
    out, lse = attention(Q, K, V, return_residual=True)
    assert lse.shape == (1, 3, 4)
    close(lse, RESIDUAL, atol=2e-5)
    h = [x.astype(jnp.float16) for x in (Q, K, V)]
    assert attention(*h).dtype == np.float16


@pytest.mark.parametrize("call, message", [
    (lambda: attention(Q, K, V[..., :1]), "value shape should be [1, 4, 2, 2]: but got (1, 4, 2, 1)"),
    (lambda: attention(Q[..., :1], K, V), "query shape should be [1, -1, -1, 2]: but got (1, 3, 4, 1)"),
    (lambda: attention(Q, K, V, mask=jnp.ones((1, 1, 3, 4))), "mask dtype should be bool, but got float32"),
    (lambda: attention(arr(1, 3, 3, 2), K, V),
     "The number of query heads must be a multiple of key/value heads, but got 3 vs 2"),
    (lambda: attention(Q, K, V, implementation="foo"), "Unsupported implementation option: foo"),
    (lambda: attention(Q, K, V, query_seq_lengths=jnp.array([2.])),
     "query_seq_lengths dtype should be int32, but got float32"),
    (lambda: attention(Q, K, V.astype(jnp.float16)), "value dtype should be float32, but got float16"),
])
def test_jaxs_errors(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message


X = jnp.array([-2., -1., -0.5, 0., 0.3, 1., 1.5])


@pytest.mark.parametrize("name, values, first, second", [
    ("sparse_plus", [0.0, 0.0, 0.0625, 0.25, 0.4225, 1.0, 1.5], [0.0, 0.0, 0.25, 0.5, 0.65, 1.0, 1.0],
     [0.0, 0.0, 0.5, 0.5, 0.5, 0.0, 0.0]),
    ("sparse_sigmoid", [0.0, 0.0, 0.25, 0.5, 0.65, 1.0, 1.0], [0.0, 0.25, 0.5, 0.5, 0.5, 0.25, 0.0],
     [0.0] * 7),  # jnp.clip's halves at -1 and 1
])
def test_sparse_plus_and_sparse_sigmoid_and_their_derivatives_at_the_kinks(name, values, first, second):
    f = getattr(jax.nn, name)
    close(f(X), values)
    close(jax.vmap(jax.grad(f))(X), first)
    close(jax.vmap(jax.grad(jax.grad(f)))(X), second)
    assert f(jnp.ones(2, jnp.float16)).dtype == np.float16 and f(2).dtype == np.float32


@pytest.mark.parametrize("name", ["sparse_plus", "sparse_sigmoid"])
def test_sparse_functions_against_finite_differences(x64, name):
    check_grads(getattr(jax.nn, name), (jnp.array([-1.7, -0.6, 0.2, 0.9, 1.4]),), order=2,
                modes=["fwd", "rev"])
