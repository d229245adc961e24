"""``jax.Array``'s methods, out-of-bounds indexing and Python conversions under a
transformation, on gradmagic.jax, from JAX 0.10.2 (CPU, x64 off): the expected values are
what the real ``jax`` printed running the same code, pasted here. Gradients are checked
against JAX's and against finite differences, to second order (``check_grads``).
"""

import math

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax.test_util import check_grads

X = jnp.array([[3., -1., 2.5], [0., 7.25, -4.5]])


def plain(v):
    """An Array, a tuple of them or a number as Python values, with its dtype's name."""
    if isinstance(v, tuple):
        return tuple(plain(x) for x in v)
    if isinstance(v, jax.Array):
        return np.asarray(v.numpy()).tolist(), v.dtype.name
    return v


METHODS = [  # (call, JAX 0.10.2's value and dtype)
    (lambda: X.argmax(), (4, "int32")),
    (lambda: X.argmax(axis=1), ([0, 1], "int32")),
    (lambda: X.argmin(0), ([1, 0, 1], "int32")),
    (lambda: (X > 5).any(), (True, "bool")),
    (lambda: (X > -5).all(axis=1), ([True, True], "bool")),
    (lambda: X.round(), ([[3., -1., 2.], [0., 7., -4.]], "float32")),
    (lambda: round(jnp.array(2.5)), (2, "int32")),
    (lambda: round(jnp.array(3)), (3, "int32")),
    (lambda: X.sort(), ([[-1., 2.5, 3.], [-4.5, 0., 7.25]], "float32")),
    (lambda: X.sort(axis=0), ([[0., -1., -4.5], [3., 7.25, 2.5]], "float32")),
    (lambda: X.argsort(), ([[1, 2, 0], [2, 0, 1]], "int32")),
    (lambda: X.copy(), (X.tolist(), "float32")),
    (lambda: X.swapaxes(0, 1), ([[3., 0.], [-1., 7.25], [2.5, -4.5]], "float32")),
    (lambda: X.take(jnp.array([0, 4])), ([3., 7.25], "float32")),
    (lambda: X.repeat(2, axis=0), ([[3., -1., 2.5]] * 2 + [[0., 7.25, -4.5]] * 2, "float32")),
    (lambda: X.diagonal(), ([3., 7.25], "float32")),
    (lambda: X.trace(), (10.25, "float32")),
    (lambda: X.nonzero(), (([0, 0, 0, 1, 1], "int32"), ([0, 1, 2, 1, 2], "int32"))),
    (lambda: X.ptp(axis=1), ([4., 11.75], "float32")),
    (lambda: jnp.array([1., 2., 3.]).searchsorted(2.5), (2, "int32")),
    (lambda: X.conj(), (X.tolist(), "float32")),
    (lambda: X.conjugate(), (X.tolist(), "float32")),
    (lambda: X.real, (X.tolist(), "float32")),
    (lambda: X.mT, ([[3., 0.], [-1., 7.25], [2.5, -4.5]], "float32")),
    (lambda: X.nbytes, 24),
    (lambda: X.itemsize, 4),
]


@pytest.mark.parametrize("case", range(len(METHODS)))
def test_array_methods_are_jnps_functions(case):
    call, want = METHODS[case]
    assert plain(call()) == want


def test_imag_of_a_real_array_is_zero():
    assert np.abs(np.asarray(X.imag.numpy())).tolist() == [[0.] * 3] * 2


GRADS = [  # (function, its input, JAX 0.10.2's gradient)
    (lambda v: (v.sort() * jnp.arange(3.)).sum(), [2., 1., 3.], [1., 0., 2.]),
    (lambda v: v.round().sum(), [2.2, 1., 3.], [0., 0., 0.]),
    (lambda v: v.ptp(), [2., 1., 3.], [0., -1., 1.]),
    (lambda v: v.reshape(2, 2).trace(), [1., 2., 3., 4.], [1., 0., 0., 1.]),
    (lambda v: (v.repeat(2) * jnp.arange(4.)).sum(), [1., 1.], [1., 5.]),
    (lambda v: (v.reshape(2, 2).mT * jnp.array([[1., 2.], [3., 4.]])).sum(), [1., 1., 1., 1.], [1., 3., 2., 4.]),
    (lambda v: v.real.sum() + v.imag.sum(), [1., 2.], [1., 1.]),
]


@pytest.mark.parametrize("case", range(len(GRADS)))
def test_array_methods_have_jaxs_gradients(case):
    f, x, want = GRADS[case]
    assert jax.grad(f)(jnp.array(x)).tolist() == want


@pytest.mark.parametrize("f", [
    lambda v: jnp.sum(v.sort() ** 3 * jnp.arange(3.)),
    lambda v: v.ptp() ** 2,
    lambda v: jnp.sum(v.reshape(3, 1).repeat(2, axis=1).swapaxes(0, 1).diagonal() ** 3),
    lambda v: jnp.sum(v.take(jnp.array([2, 0, 2])) ** 3),
    lambda v: (v ** 2).reshape(1, 3).mT.trace() * v.copy()[1],
])
def test_method_gradients_match_finite_differences_to_second_order(f, x64):
    check_grads(f, (jnp.array([0.7, -1.3, 2.1]),), order=2)


# -- out-of-bounds indices -------------------------------------------------------------------
R = jnp.arange(5.)
INDEXING = [  # (call, JAX 0.10.2's value)
    (lambda: R[jnp.array([7])], [4.]),
    (lambda: R[jnp.array([-7, -1, 2])], [0., 4., 2.]),
    (lambda: R[7], 4.),
    (lambda: R[np.array([7])], [4.]),
    (lambda: R[jnp.array(7)], 4.),
    (lambda: jnp.arange(6.).reshape(2, 3)[jnp.array([5]), jnp.array([1])], [4.]),
    (lambda: jnp.arange(6.).reshape(2, 3)[:, jnp.array([5, -9])], [[2., 0.], [5., 3.]]),
    (lambda: jnp.arange(6.).reshape(2, 3)[1, 5], 5.),
    (lambda: jnp.zeros(3).at[5].add(1.), [0., 0., 0.]),
    (lambda: jnp.array([1., 2.]).at[5].set(3.), [1., 2.]),
    (lambda: jnp.array([1., 2.]).at[-5].set(3.), [1., 2.]),
    (lambda: jnp.array([1., 2., 3.]).at[jnp.array([0, 5, 2])].set(jnp.array([7., 8., 9.])), [7., 2., 9.]),
    (lambda: jnp.array([1., 2.]).at[5].multiply(3.), [1., 2.]),
    (lambda: jnp.array([1., 2.]).at[5].min(0.), [1., 2.]),
    (lambda: jnp.array([1., 2.]).at[5].get(), 2.),
    (lambda: jnp.array([1., 2.]).at[jnp.array([5, 0])].get(), [2., 1.]),
    (lambda: jnp.array([1., 2.]).at[jnp.array([5, 0])].get(mode="fill"), [math.nan, 1.]),
    (lambda: jnp.array([1., 2.]).at[jnp.array([5, 0])].get(mode="fill", fill_value=-1.), [-1., 1.]),
    (lambda: jnp.array([1., 2.]).at[jnp.array([5, 0])].get(mode="clip"), [2., 1.]),
    (lambda: jnp.array([1., 2.]).at[jnp.array([5, 0])].get(mode="drop"), [math.nan, 1.]),
    (lambda: jnp.array([1., 2.]).at[5].set(3., mode="clip"), [1., 3.]),
    (lambda: jnp.array([1., 2.]).at[5].set(3., mode="drop"), [1., 2.]),
    (lambda: jnp.array([1., 2.]).at[5].set(3., mode="fill"), [1., 2.]),
    (lambda: jnp.zeros((2, 3)).at[1, 5].set(3.), [[0.] * 3] * 2),
    (lambda: jnp.zeros((2, 3)).at[5].set(3.), [[0.] * 3] * 2),
    (lambda: jnp.zeros(3).at[jnp.array([1, 1, 5])].add(1.), [0., 2., 0.]),
    (lambda: jnp.zeros(3).at[jnp.array([-1, -4])].add(1.), [0., 0., 1.]),
]


def test_out_of_bounds_gathers_clamp_and_scatters_drop_as_jax():
    wrong = []
    for i, (call, want) in enumerate(INDEXING):
        got = np.asarray(call().numpy())
        if not np.array_equal(got, np.array(want), equal_nan=True):
            wrong.append((i, got.tolist(), want))
    assert wrong == []


OOB_GRADS = [  # (function, its input, JAX 0.10.2's gradient)
    (lambda v: jnp.sum(v[jnp.array([7, 1, -9])] * jnp.array([1., 2., 3.])), [0., 1., 2., 3., 4.],
     [0., 2., 0., 0., 0.]),
    (lambda v: jnp.sum(jnp.zeros(3).at[jnp.array([0, 5])].set(v) * jnp.arange(3.)), [2., 4.], [0., 0.]),
    (lambda v: jnp.sum(v.at[jnp.array([0, 5])].set(1.) * jnp.arange(3.)), [2., 4., 5.], [0., 1., 2.]),
    (lambda v: jnp.sum(jnp.zeros(3).at[jnp.array([1, 5])].add(v) * jnp.arange(3.)), [2., 4.], [1., 0.]),
    (lambda v: jnp.sum(jnp.zeros(3).at[5].add(v[0])), [2.], [0.]),
]


@pytest.mark.parametrize("case", range(len(OOB_GRADS)))
def test_out_of_bounds_indices_pass_no_gradient_as_jax(case):
    f, x, want = OOB_GRADS[case]
    assert jax.grad(f)(jnp.array(x)).tolist() == want


def test_an_out_of_bounds_gathers_hessian_is_jaxs():
    """JAX's clamped gather passes no gradient through an out-of-bounds index (so finite
    differences, which see the clamped element move, disagree with JAX, and with this)."""
    v = jnp.array([0.5, -1.5, 2., 1.])
    assert jax.hessian(lambda v: jnp.sum(v[jnp.array([7, 1, -9, 2])] ** 3))(v).tolist() == [
        [0., 0., 0., 0.], [0., -9., 0., 0.], [0., 0., 12., 0.], [0., 0., 0., 0.]]
    assert jax.hessian(lambda v: jnp.sum(v.at[jnp.array([0, 9])].add(v[1] ** 2) ** 2))(v).tolist() == [
        [2., -6., 0., 0.], [-6., 31., 0., 0.], [0., 0., 2., 0.], [0., 0., 0., 2.]]


@pytest.mark.parametrize("f", [
    lambda v: jnp.sum(v.at[jnp.array([0, 9])].set(v[1] ** 2) ** 2),
    lambda v: jnp.sum((v ** 2).at[jnp.array([1, 5, -8])].add(v[:3] ** 2) ** 2),
    lambda v: jnp.sum(v.reshape(2, 2).at[1, jnp.array([5, 0])].get(mode="fill", fill_value=0.) ** 3),
])
def test_out_of_bounds_gradients_match_finite_differences_to_second_order(f, x64):
    check_grads(f, (jnp.array([0.7, -1.3, 2.1, 0.4]),), order=2)


# -- Python numbers of arrays a transformation follows -----------------------------------------
CONCRETE = ("Abstract tracer value encountered where concrete value is expected: traced array "
            "with shape float32[]\nThe problem arose with the `{}` function. If trying to convert "
            "the data type of a value, try using `x.astype({})` or `jnp.array(x, {})` instead.\n\n"
            "See https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError")


@pytest.mark.parametrize("call", [
    lambda: jax.grad(lambda x: x * float(x))(2.),
    lambda: jax.grad(lambda x: math.sin(x))(1.),
    lambda: jax.jvp(lambda x: x * float(x), (2.,), (1.,)),
    lambda: jax.jacfwd(lambda x: x * float(x))(2.),
    lambda: jax.jacrev(lambda x: x * float(x))(2.),
    lambda: jax.vjp(lambda x: x * float(x), 2.),
    lambda: jax.hessian(lambda x: x * float(x))(2.),
    lambda: jax.grad(jax.jit(lambda x: x * float(x)))(2.),
])
def test_float_of_a_followed_array_is_jaxs_concretization_error(call):
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        call()
    assert str(info.value) == CONCRETE.format("float", "float", "float")
    assert isinstance(info.value, TypeError)


def test_complex_and_tolist_raise_as_jax_and_what_jax_allows_runs():
    """``complex()`` and ``tolist()`` of a followed value raise; JAX 0.10.2 gives the values
    below for int(), item(), bool() and an index of a traced value (their results constants,
    as JAX's), and for float() of a value no transformation follows (a constant, an argument
    outside argnums, a stop_gradient)."""
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.grad(lambda x: x * complex(x).real)(2.)
    assert str(info.value) == CONCRETE.format("complex", "complex", "complex")
    with pytest.raises(jax.errors.ConcretizationTypeError) as info:
        jax.grad(lambda x: x * x.tolist())(1.)
    assert "The tolist() method was called on traced array with shape float32[]." in str(info.value)
    assert jax.grad(lambda x: x * int(x))(2.).tolist() == 2.0
    assert jax.grad(lambda x: x * x.item())(2.).tolist() == 2.0
    assert jax.grad(lambda x: x * 2 if x > 0 else x)(1.).tolist() == 2.0
    assert jax.grad(lambda x: x * 2 if bool(x) else x)(1.).tolist() == 2.0
    assert jax.grad(lambda x: x[int(jnp.argmax(x))])(jnp.array([1., 3.])).tolist() == [0., 1.]
    assert jax.grad(lambda x: x * float(jnp.array(3.)))(2.).tolist() == 3.0
    assert jax.grad(lambda x: x * float(jax.lax.stop_gradient(x)))(2.).tolist() == 2.0
    assert jax.grad(lambda x, y: x * float(y))(2., 3.).tolist() == 3.0
    assert jax.grad(lambda x: x * float(jnp.round(x).astype(jnp.int32)))(2.).tolist() == 2.0
    assert float(jnp.array(2.5)) == 2.5 and jax.jit(lambda x: float(x))(2.5) == 2.5  # jit runs eagerly
