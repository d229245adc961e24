"""JAX's own keywords of ``jnp`` functions on gradmagic.jax (``size``/``fill_value``,
``bincount``'s ``length``, the reductions' ``where`` and ``initial``), from JAX 0.10.2 (CPU,
x64 off): the expected values are what the real ``jax`` printed running the same code,
pasted here. Gradients are JAX's, and match finite differences to second order.
"""

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax.test_util import check_grads

A = jnp.array([0, 1, 2, 0, 3])
X = jnp.array([1., -2., 3., 4.])
M = jnp.array([True, False, True, True])


def plain(v):
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    return np.asarray(v.numpy()).tolist(), v.dtype.name


CASES = [  # (call, JAX 0.10.2's value and dtype)
    (lambda: jnp.where(A > 0, size=3, fill_value=-1), (([1, 2, 4], "int32"),)),
    (lambda: jnp.where(A > 0, size=2), (([1, 2], "int32"),)),
    (lambda: jnp.where(A > 0, size=6), (([1, 2, 4, 0, 0, 0], "int32"),)),
    (lambda: jnp.nonzero(A, size=4), (([1, 2, 4, 0], "int32"),)),
    (lambda: jnp.nonzero(A, size=5, fill_value=9), (([1, 2, 4, 9, 9], "int32"),)),
    (lambda: jnp.nonzero(jnp.eye(2), size=3, fill_value=(7, 8)), (([0, 1, 7], "int32"), ([0, 1, 8], "int32"))),
    (lambda: A.nonzero(size=4), (([1, 2, 4, 0], "int32"),)),
    (lambda: jnp.unique(A, size=6), ([0, 1, 2, 3, 0, 0], "int32")),
    (lambda: jnp.unique(A, size=6, fill_value=-5), ([0, 1, 2, 3, -5, -5], "int32")),
    (lambda: jnp.unique(A, size=2), ([0, 1], "int32")),
    (lambda: jnp.unique(A, size=6, return_index=True, return_counts=True, return_inverse=True),
     (([0, 1, 2, 3, 0, 0], "int32"), ([0, 1, 2, 4, 0, 0], "int32"), ([0, 1, 2, 0, 3], "int32"),
      ([2, 1, 1, 1, 0, 0], "int32"))),
    (lambda: jnp.unique(X, size=6), ([-2., 1., 3., 4., -2., -2.], "float32")),
    (lambda: jnp.bincount(A, length=6), ([2, 1, 1, 1, 0, 0], "int32")),
    (lambda: jnp.bincount(A, length=2), ([2, 1], "int32")),
    (lambda: jnp.bincount(A, weights=jnp.arange(5.), length=5), ([3., 1., 2., 4., 0.], "float32")),
    (lambda: jnp.argwhere(A, size=4), ([[1], [2], [4], [0]], "int32")),
    (lambda: jnp.argwhere(A, size=4, fill_value=-1), ([[1], [2], [4], [-1]], "int32")),
    (lambda: jnp.flatnonzero(A, size=4), ([1, 2, 4, 0], "int32")),
    (lambda: jnp.mean(X, where=M), (2.6666667461395264, "float32")),
    (lambda: jnp.sum(X, where=M), (8., "float32")),
    (lambda: jnp.max(X, where=M, initial=-10.), (4., "float32")),
    (lambda: jnp.min(X, where=M, initial=10.), (1., "float32")),
    (lambda: jnp.max(X, initial=10.), (10., "float32")),
    (lambda: jnp.prod(X, where=M), (12., "float32")),
    (lambda: jnp.var(X, where=M), (1.5555557012557983, "float32")),
    (lambda: jnp.std(X, where=M), (1.2472192049026489, "float32")),
    (lambda: jnp.mean(jnp.arange(6.).reshape(2, 3), axis=1, where=jnp.array([True, False, True])),
     ([1., 4.], "float32")),
    (lambda: X.sum(where=M), (8., "float32")),
    (lambda: X.mean(where=M), (2.6666667461395264, "float32")),
    (lambda: X.max(initial=10.), (10., "float32")),
    (lambda: jnp.min(A, where=A > 0, initial=100), (1, "int32")),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_jax_keywords_give_jaxs_values(case):
    call, want = CASES[case]
    assert same(plain(call()), want)


def same(got, want):
    """Arrays as (values, dtype) pairs, or tuples of them: the dtypes equal, the values to
    float32's rounding."""
    if isinstance(want[0], tuple):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want))
    return got[1] == want[1] and np.allclose(np.array(got[0], float), np.array(want[0], float),
                                             rtol=3e-7, atol=0)


def test_an_empty_mask_gives_nan_and_zero_gradient_as_jax():
    empty = jnp.zeros(4, bool)
    assert np.isnan(jnp.mean(X, where=empty).tolist())
    assert jax.grad(lambda v: jnp.mean(v, where=empty))(X).tolist() == [0., 0., 0., 0.]


ERRORS = [  # (call, JAX 0.10.2's error and message)
    (lambda: jnp.where(A > 0, A, 0, size=3),
     ValueError, "size and fill_value arguments cannot be used in three-term where function."),
    (lambda: jnp.max(X, where=M), ValueError, "reduction operation max does not have an identity, "
     "so to use a where mask one has to specify 'initial'"),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_misused_keywords_raise_jaxs_errors(case):
    call, error, message = ERRORS[case]
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


GRADS = [  # (function, JAX 0.10.2's gradient at X)
    (lambda v: jnp.mean(v, where=M), [0.33333334, 0., 0.33333334, 0.33333334]),
    (lambda v: jnp.max(v, where=M, initial=-10.), [0., 0., 0., 1.]),
    (lambda v: jnp.var(v, where=M), [-1.1111112, 0., 0.22222222, 0.8888889]),
    (lambda v: jnp.sum(v ** 2, where=M), [2., 0., 6., 8.]),
    (lambda v: jnp.max(v, where=M, initial=4.), [0., 0., 0., 0.5]),  # a tie with initial: half
    (lambda v: jnp.max(v, initial=10.), [0., 0., 0., 0.]),
]


@pytest.mark.parametrize("case", range(len(GRADS)))
def test_masked_reductions_have_jaxs_gradients(case):
    f, want = GRADS[case]
    assert np.allclose(jax.grad(f)(X).tolist(), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [
    lambda v: jnp.mean(v ** 3, where=M),
    lambda v: jnp.var(v * v, where=M, ddof=1),
    lambda v: jnp.std(v, where=M),
    lambda v: jnp.prod(v, where=M, initial=2.),
    lambda v: jnp.min(v ** 3, where=M, initial=50.) + jnp.sum(v ** 2, where=M, initial=1.),
    lambda v: jnp.sum(jnp.mean(v.reshape(2, 2) ** 3, axis=0, where=jnp.array([[True, False], [True, True]]))),
])
def test_masked_reductions_match_finite_differences_to_second_order(f, x64):
    check_grads(f, (jnp.array([0.7, -1.3, 2.1, 0.4]),), order=2)
