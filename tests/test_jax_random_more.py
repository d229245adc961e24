"""``jax.random`` on gradmagic.jax: typed and raw keys, the samplers' shapes, dtypes, ranges
and errors, from JAX 0.10.2 (CPU, x64 off), run with the real ``jax`` and pasted here.

A key seeds NumPy's generator, so the numbers differ from JAX's: what is checked is each
sampler's shape and dtype, that it is the same for one key and differs between the keys
``split`` and ``fold_in`` give, and its distribution, loosely (means and spreads of many
draws); gradients (``multivariate_normal``'s, a permutation's) against finite differences.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

random = jax.random
K = random.PRNGKey(0)


def test_a_typed_key_is_a_scalar_whose_data_is_two_uint32():
    k = random.key(0)
    assert (k.shape, str(k.dtype), k.ndim) == ((), "key<fry>", 0)
    assert repr(k) == "Array((), dtype=key<fry>) overlaying:\n[0 0]"
    assert random.split(k).shape == (2,) and random.split(k, 3).shape == (3,)
    a, b = random.split(k)
    assert a.shape == () and str(a.dtype) == "key<fry>"
    assert random.key_data(k).tolist() == [0, 0] and random.key_data(k).dtype == np.uint32
    assert random.key_data(random.split(k)).shape == (2, 2)
    assert random.key_data(K).tolist() == [0, 0]  # a raw key is its own data
    w = random.wrap_key_data(jnp.array([0, 0], jnp.uint32))
    assert w.shape == () and random.normal(w).tolist() == random.normal(k).tolist()
    assert random.PRNGKey(-1).tolist() == [0, 4294967295]  # as JAX's without x64


def test_raw_keys_split_into_uint32_arrays_and_fold_in_keeps_the_kind():
    assert random.split(K).shape == (2, 2) and random.split(K).dtype == np.uint32
    assert random.split(K, 3).shape == (3, 2)
    assert random.fold_in(K, 3).shape == (2,) and random.fold_in(K, 3).dtype == np.uint32
    assert random.fold_in(random.key(0), 3).shape == ()


def test_each_key_gives_its_own_reproducible_stream():
    a, b = random.split(K)
    draws = [random.normal(k, (4,)).tolist() for k in (K, a, b, random.fold_in(K, 1),
                                                       random.fold_in(K, 2), random.fold_in(a, 1))]
    assert len({tuple(d) for d in draws}) == len(draws)
    assert random.normal(a, (4,)).tolist() == draws[1]
    assert random.fold_in(K, 1).tolist() == random.fold_in(K, 1).tolist()
    assert random.split(random.key(0))[1].value.tolist() == random.split(K)[1].tolist()


SHAPES = [  # (call, shape, dtype), as JAX 0.10.2 gives them
    (lambda k: random.normal(k, 3), (3,), "float32"),
    (lambda k: random.normal(k, [2]), (2,), "float32"),
    (lambda k: random.normal(k, (2,), jnp.float16), (2,), "float16"),
    (lambda k: random.uniform(k), (), "float32"),
    (lambda k: random.uniform(k, (2,), jnp.float64), (2,), "float32"),
    (lambda k: random.randint(k, (3,), 0, 10), (3,), "int32"),
    (lambda k: random.randint(k, 3, 0, 10), (3,), "int32"),
    (lambda k: random.randint(k, (3,), 0, 10, jnp.uint8), (3,), "uint8"),
    (lambda k: random.randint(k, (), 0, 3), (), "int32"),
    (lambda k: random.permutation(k, 5), (5,), "int32"),
    (lambda k: random.permutation(k, 0), (0,), "int32"),
    (lambda k: random.permutation(k, jnp.arange(6.).reshape(2, 3), axis=1), (2, 3), "float32"),
    (lambda k: random.choice(k, 5, (3,)), (3,), "int32"),
    (lambda k: random.choice(k, 5), (), "int32"),
    (lambda k: random.choice(k, jnp.arange(5.), (3,), replace=False), (3,), "float32"),
    (lambda k: random.choice(k, jnp.arange(6).reshape(3, 2), (2,), axis=1), (3, 2), "int32"),
    (lambda k: random.choice(k, jnp.arange(6).reshape(3, 2), (2,)), (2, 2), "int32"),
    (lambda k: random.categorical(k, jnp.zeros((2, 3))), (2,), "int32"),
    (lambda k: random.categorical(k, jnp.zeros((2, 3)), axis=0), (3,), "int32"),
    (lambda k: random.categorical(k, jnp.zeros((2, 3)), shape=(4, 2)), (4, 2), "int32"),
    (lambda k: random.categorical(k, jnp.zeros(3)), (), "int32"),
    (lambda k: random.truncated_normal(k, -1., 1., (3,)), (3,), "float32"),
    (lambda k: random.truncated_normal(k, jnp.array([-1., 0.]), 1.), (2,), "float32"),
    (lambda k: random.truncated_normal(k, -1., 1.), (), "float32"),
    (lambda k: random.gumbel(k, (3,)), (3,), "float32"),
    (lambda k: random.gumbel(k, (2,), jnp.float16), (2,), "float16"),
    (lambda k: random.exponential(k), (), "float32"),
    (lambda k: random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2)), (2,), "float32"),
    (lambda k: random.multivariate_normal(k, jnp.zeros(2), jnp.eye(2), (3,)), (3, 2), "float32"),
    (lambda k: random.multivariate_normal(k, jnp.zeros((4, 2)), jnp.eye(2)), (4, 2), "float32"),
    (lambda k: random.bits(k, (2,)), (2,), "uint32"),
    (lambda k: random.bits(k), (), "uint32"),
    (lambda k: random.bits(k, (2,), jnp.uint8), (2,), "uint8"),
    (lambda k: random.bernoulli(k, 0.5, 3), (3,), "bool"),
    (lambda k: random.bernoulli(k), (), "bool"),
]


def test_samplers_give_jaxs_shapes_and_dtypes_from_either_kind_of_key():
    wrong = []
    for kind in ("key", "PRNGKey"):
        k = getattr(random, kind)(0)
        for i, (call, shape, dtype) in enumerate(SHAPES):
            out = call(k)
            if (out.shape, out.dtype.name) != (shape, dtype) or np.asarray(
                    call(k).numpy()).tolist() != np.asarray(out.numpy()).tolist():
                wrong.append((kind, i, out.shape, out.dtype.name))
    assert wrong == []


def draw(f, n=20000):
    return np.asarray(f(random.key(7), n).numpy(), np.float64)


def test_distributions_loosely():
    x = draw(lambda k, n: random.truncated_normal(k, -1., 2., (n,)))
    assert x.min() >= -1 and x.max() <= 2 and abs(x.mean() - 0.2290) < 0.02  # the truncated mean
    x = draw(lambda k, n: random.exponential(k, (n,)))
    assert x.min() >= 0 and abs(x.mean() - 1) < 0.03
    x = draw(lambda k, n: random.gumbel(k, (n,)))
    assert abs(x.mean() - 0.5772) < 0.03
    x = draw(lambda k, n: random.randint(k, (n,), 2, 5))
    assert set(x.tolist()) == {2., 3., 4.}
    x = draw(lambda k, n: random.randint(k, (n,), jnp.array([0, 10, 20] * (n // 3)), 30), 3000)
    assert x.min() >= 0 and x.max() < 30
    x = draw(lambda k, n: random.categorical(k, jnp.log(jnp.array([0.2, 0.8])), shape=(n,)))
    assert abs(x.mean() - 0.8) < 0.02
    x = draw(lambda k, n: random.choice(k, 3, (n,), p=jnp.array([0.1, 0.1, 0.8])))
    assert abs((x == 2).mean() - 0.8) < 0.02
    x = draw(lambda k, n: random.multivariate_normal(k, jnp.array([1., -1.]),
                                                     jnp.array([[2., 0.6], [0.6, 1.]]), (n,)))
    assert np.allclose(x.mean(0), [1, -1], atol=0.05) and np.allclose(np.cov(x.T), [[2, .6], [.6, 1]], atol=0.08)
    bits = draw(lambda k, n: random.bits(k, (n,), jnp.uint8))
    assert bits.min() >= 0 and bits.max() <= 255 and abs(bits.mean() - 127.5) < 3


def test_permutations_and_choices_without_replacement_are_rearrangements():
    p = random.permutation(K, 10)
    assert sorted(p.tolist()) == list(range(10))
    x = jnp.arange(12.).reshape(3, 4)
    cols = random.permutation(K, x, axis=1)
    assert sorted(cols[0].tolist()) == [0., 1., 2., 3.] and (cols - cols[:, :1]).tolist() == (
        x[:, np.asarray(cols[0].numpy()).astype(int)] - cols[:, :1]).tolist()
    each = random.permutation(K, x, axis=1, independent=True)
    assert [sorted(r) for r in each.tolist()] == x.tolist()
    assert sorted(random.choice(K, 5, (5,), replace=False).tolist()) == [0, 1, 2, 3, 4]


def test_gradients_flow_through_samples_of_arrays():
    x = jnp.array([1., 2., 3.])
    g = jax.grad(lambda v: jnp.sum(random.permutation(K, v) * jnp.array([1., 10., 100.])))(x)
    assert sorted(g.tolist()) == [1., 10., 100.]
    mean, cov = jnp.array([0.5, -1.]), jnp.array([[2., 0.3], [0.3, 1.]])
    f = lambda m, c: jnp.sum(random.multivariate_normal(K, m, c, (3,)) ** 2)  # noqa: E731
    jax.test_util.check_grads(f, (mean, cov), order=2, modes=["rev"])
    assert jax.grad(lambda m: jnp.sum(random.multivariate_normal(K, m, cov, (4,))))(mean).tolist() == [4., 4.]


def test_keys_pass_through_vmap_scan_and_fori_loop():
    keys = random.split(random.key(0), 3)
    assert jax.vmap(lambda k: random.normal(k, (2,)))(keys).shape == (3, 2)

    def body(carry, _):
        k, s = carry
        k, sub = random.split(k)
        return (k, s + random.normal(sub)), None
    (k, s), _ = jax.lax.scan(body, (random.key(0), 0.), None, length=4)
    assert (k.shape, s.shape, s.dtype.name) == ((), (), "float32")


ERRORS = [  # (call, error, message), as JAX 0.10.2 gives them
    (lambda: random.normal((2,)), TypeError, "unexpected PRNG key type <class 'tuple'>"),
    (lambda: random.normal(None), TypeError, "unexpected PRNG key type <class 'NoneType'>"),
    (lambda: random.normal(5), TypeError, "JAX encountered invalid PRNG key data: expected key_data "
     "to have ndim, shape, and dtype attributes. Got 5"),
    (lambda: random.normal(jnp.zeros(2)), TypeError, "JAX encountered invalid PRNG key data: "
     "expected key_data.dtype = uint32; got dtype=float32"),
    (lambda: random.normal(jnp.zeros(2, jnp.int32)), TypeError, "JAX encountered invalid PRNG key "
     "data: expected key_data.dtype = uint32; got dtype=int32"),
    (lambda: random.normal(random.split(random.key(0))), ValueError, "normal accepts a single key, "
     "but was given a key array of shape (2,) != (). Use jax.vmap for batching."),
    (lambda: random.normal(random.split(K)), ValueError, "normal accepts a single key, but was "
     "given a key array of shape (2, 2) != (). Use jax.vmap for batching."),
    (lambda: random.split(random.split(K)), ValueError, "split accepts a single key, but was given "
     "a key array of shape (2, 2) != (). Use jax.vmap for batching."),
    (lambda: random.normal(K, (2,), jnp.int32), ValueError, "dtype argument to `normal` must be a "
     "float or complex dtype, got int32"),
    (lambda: random.randint(K, (2,), 0, 5, jnp.float32), TypeError, "randint only accepts integer "
     "dtypes, got float32"),
    (lambda: random.choice(K, 3, (5,), replace=False), ValueError, "Cannot take a larger sample "
     "(size 5) than population (size 3) when 'replace=False'"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_bad_keys_and_arguments_raise_jaxs_errors(case):
    call, error, message = ERRORS[case]
    with pytest.raises(error) as info:
        call()
    assert str(info.value).startswith(message)


def test_a_name_jax_random_lacks_says_what_it_maps():
    with pytest.raises(AttributeError, match=r"gradmagic.jax.random.nonexistent does not exist: "
                       r"it maps PRNGKey, key, .*randint"):
        random.nonexistent  # noqa: B018
