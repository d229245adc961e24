"""The engine on array modules other than NumPy.

Without a GPU, portability is checked with ``array_api_strict``: an array module that
has only the array API standard's names and refuses everything else (no ``arccos``, no
``add.at``, no ``x.reshape``, no NumPy arrays or scalars in its operators). Every core
op runs forward, backward and to second order on it and must give NumPy's numbers,
with every value along the way an ``array_api_strict`` array. On the NumPy backend the
same cases are checked against central finite differences, so each case asserts
something real on both.

The CuPy tests at the end carry the ``cupy`` marker and skip, with the reason
``gradmagic._backend.cupy_status()`` gives, where no GPU is usable; pytest's summary says
that reason in one line (the project's conftest).
"""

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import array_api_strict as xs
import numpy as np
import pytest

import gradmagic as gm
from gradmagic import _array_api, _backend, ops
from gradmagic.errors import BackendError

from _cases import BINARY as SHARED_BINARY
from _cases import UNARY as SHARED_UNARY
from _cases import OTHER_MODULES, distinct, grid, magnitude, module_or_skip, rng_for, sid, uniform


# ---------------------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------------------

class Backend:
    """An array module under test: how to make its arrays, and how to read them back
    (the only host copies these tests make, outside the engine)."""

    def __init__(self, name, module, types_, array, host):
        self.name, self.module, self.types = name, module, types_
        self.array, self.host = array, host

    def is_native(self, value):
        return isinstance(value, self.types)

    def __repr__(self):
        return self.name


NUMPY = Backend("numpy", np, (np.ndarray, np.generic), np.array, np.asarray)
STRICT = Backend("array_api_strict", xs, (type(xs.asarray(0.0)),), xs.asarray, np.asarray)


@pytest.fixture(params=[NUMPY, STRICT], ids=["numpy", "array_api_strict"])
def backend(request):
    return request.param


# ---------------------------------------------------------------------------------------
# the derivatives of a case, on one backend
# ---------------------------------------------------------------------------------------

def derivatives(f, inputs, backend, weights, directions):
    """``f(*inputs)``, its vector-Jacobian product with ``weights`` (first order) and
    the gradient of ``<directions, that product>`` (second order, nested tapes), all
    computed on ``backend`` and returned as NumPy arrays. Asserts that every value
    the engine handed back is an array of ``backend``."""
    xs_ = [gm.Tensor(backend.array(a)) for a in inputs]
    w = backend.array(weights)
    with gm.GradientTape() as outer:
        outer.watch(xs_)
        with gm.GradientTape() as inner:
            inner.watch(xs_)
            y = f(*xs_)
        first = inner.gradient(y, xs_, output_gradients=w, unconnected_gradients="zero")
        along = [ops.sum(g * backend.array(d)) for g, d in zip(first, directions)]
        total = along[0]
        for term in along[1:]:
            total = total + term
    second = outer.gradient(total, xs_, unconnected_gradients="zero")
    for what, t in [("value", y)] + [("gradient", g) for g in first] + [("second", g) for g in second]:
        assert backend.is_native(t.value), (
            f"the {what} is a {type(t.value).__module__}.{type(t.value).__name__}, not an "
            f"array of {backend.name}")
    return (backend.host(y.value), [backend.host(g.value) for g in first],
            [backend.host(g.value) for g in second])


def numeric(fun, inputs, eps=1e-6):
    """Central differences of the scalar ``fun(*inputs)`` with respect to each input."""
    grads = []
    for i, a in enumerate(inputs):
        g = np.zeros_like(a)
        for k in np.ndindex(a.shape):
            up = [b.copy() for b in inputs]
            down = [b.copy() for b in inputs]
            up[i][k] += eps
            down[i][k] -= eps
            g[k] = (fun(*up) - fun(*down)) / (2 * eps)
        grads.append(g)
    return grads


def check_case(f, inputs, backend, key, orders=2):
    """On NumPy: the engine against finite differences, first and second order. On
    another backend: the same numbers as NumPy's, from arrays of that backend."""
    rng = rng_for("weights", key)
    y = f(*[gm.Tensor(a) for a in inputs]).value
    weights = rng.uniform(0.5, 1.5, np.shape(y))
    directions = [rng.uniform(-1.0, 1.0, np.shape(a)) for a in inputs]
    got = derivatives(f, inputs, backend, weights, directions)
    if backend is NUMPY:
        _, first, second = got

        def vjp_value(*a):
            return float(np.sum(weights * f(*[gm.Tensor(b) for b in a]).value))

        def first_along(*a):
            _, g, _ = derivatives(f, a, NUMPY, weights, directions)
            return float(sum(np.sum(gi * d) for gi, d in zip(g, directions)))

        for g, n in zip(first, numeric(vjp_value, inputs)):
            np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-7, err_msg="first order")
        if orders > 1:
            for g, n in zip(second, numeric(first_along, inputs)):
                np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-6, err_msg="second order")
        return
    want = derivatives(f, inputs, NUMPY, weights, directions)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-15, err_msg="value")
    for g, n in zip(got[1], want[1]):
        np.testing.assert_allclose(g, n, rtol=1e-12, atol=1e-15, err_msg="first order")
    for g, n in zip(got[2], want[2]):
        np.testing.assert_allclose(g, n, rtol=1e-12, atol=1e-14, err_msg="second order")


# ---------------------------------------------------------------------------------------
# cases: an id, a function of Tensors, and one (sampler, shape) per input
# ---------------------------------------------------------------------------------------

class Case:
    """``orders``: how many orders finite differences check on NumPy (other backends
    are compared with NumPy at both orders)."""

    def __init__(self, id, f, *inputs, orders=2):
        self.id, self.f, self.inputs, self.orders = id, f, inputs, orders

    def draw(self):
        rng = rng_for("inputs", self.id)
        return [np.asarray(sampler(rng, shape), dtype=np.float64) for sampler, shape in self.inputs]


M = (2, 3)
X3 = (2, 3, 4)


def with_zero(rng, shape):
    x = rng.uniform(0.5, 1.5, shape)
    x[(0,) * len(shape)] = 0.0
    return x


def with_zeros(n):
    """A sampler whose arrays have exact zeros in their first ``n`` places (in C order)."""
    def sample(rng, shape):
        x = rng.uniform(0.5, 1.5, shape)
        x.reshape(-1)[:n] = 0.0
        return x
    return sample


UNARY = [Case(name, f, (sampler, M)) for name, f, sampler in SHARED_UNARY] + [
    Case("sign(x) * x", lambda x: np.sign(x) * x, (magnitude(0.2, 2), M)),  # a nonzero gradient
]


BINARY = [
    Case(f"{name} {sid(sa)}&{sid(sb)}", f, (a, sa), (b, sb))
    for name, f, _, a, b in SHARED_BINARY
    for sa, sb in [((2, 3), (3,)), ((3, 1), (1, 4)), ((2, 3), ())]
]

OPERATORS = [
    Case("python scalars", lambda a: 2.0 * a - 1 + a / 3 + 1 / a + a ** 2 + 2 ** a + (3 - a) ** 3,
         (uniform(0.5, 2), M)),
    Case("tensor operators", lambda a, b: (a + b) * (a - b) / (b * b) - (-a) ** 2,
         (uniform(-2, 2), M), (magnitude(0.5, 2), (3,))),
]


def _reduction(f, axis, keepdims):
    return lambda x: f(x, axis=axis, keepdims=keepdims)


REDUCTIONS = [
    Case(f"{name} axis={axis} keepdims={keepdims}", _reduction(f, axis, keepdims), (sampler, X3))
    for axis in [None, 0, -1, (0, 2)]
    for keepdims in [False, True]
    for name, f, sampler in [
        ("sum", np.sum, uniform(-2, 2)),
        ("mean", np.mean, uniform(-2, 2)),
        ("prod", np.prod, uniform(0.5, 1.5)),
        ("max", np.max, distinct),
        ("min", np.min, distinct),
        ("var", np.var, uniform(-2, 2)),
        ("std", np.std, uniform(-2, 2)),
        ("logsumexp", gm.logsumexp, uniform(-2, 2)),
    ]
] + [
    Case("var ddof=1 axis=1", lambda x: np.var(x, axis=1, ddof=1), (uniform(-2, 2), X3)),
    Case("std ddof=1", lambda x: np.std(x, ddof=1), (uniform(-2, 2), X3)),
    Case("cumsum flat", np.cumsum, (uniform(-2, 2), M)),
    Case("cumsum axis=1", lambda x: np.cumsum(x, axis=1), (uniform(-2, 2), M)),
    Case("prod with a zero, axis=1", lambda x: np.prod(x, axis=1), (with_zero, M)),
    Case("prod with a zero, all", np.prod, (with_zero, M)),
    Case("prod with two zeros, axis=0", lambda x: np.prod(x, axis=0), (with_zeros(2), X3)),
    Case("prod with two zeros, all", np.prod, (with_zeros(2), M)),
    Case("prod with three zeros, all", np.prod, (with_zeros(3), M)),
    Case("methods x.sum(0) ...", lambda x: x.sum(0) * x.mean(1, keepdims=True) + x.max() - x.min(axis=1, keepdims=True),
         (distinct, (3, 4))),
]

MATMUL = [
    Case(f"a @ b {sid(sa)}@{sid(sb)}", lambda a, b: a @ b, (uniform(-1, 1), sa), (uniform(-1, 1), sb))
    for sa, sb in [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4))]
] + [
    Case("np.matmul", np.matmul, (uniform(-1, 1), (2, 3)), (uniform(-1, 1), (3, 2))),
    Case("np.dot", np.dot, (uniform(-1, 1), (2, 3)), (uniform(-1, 1), (3,))),
    Case("np.outer", np.outer, (uniform(-1, 1), (3,)), (uniform(-1, 1), (2, 2))),
]

SHAPE = [
    Case("reshape", lambda x: np.reshape(x, (3, 2)) ** 2, (uniform(-2, 2), M)),
    Case("x.reshape(-1)", lambda x: x.reshape(-1) ** 2, (uniform(-2, 2), M)),
    Case("ravel", lambda x: np.ravel(x) ** 2, (uniform(-2, 2), M)),
    Case("x.T", lambda x: x.T @ x, (uniform(-2, 2), M)),
    Case("transpose axes", lambda x: np.transpose(x, (2, 0, 1)) ** 2, (uniform(-2, 2), X3)),
    Case("swapaxes", lambda x: np.swapaxes(x, 0, 2) ** 2, (uniform(-2, 2), X3)),
    Case("moveaxis", lambda x: np.moveaxis(x, 0, -1) ** 2, (uniform(-2, 2), X3)),
    Case("squeeze all", lambda x: np.squeeze(x) ** 2, (uniform(-2, 2), (1, 3, 1))),
    Case("squeeze axis", lambda x: np.squeeze(x, axis=2) ** 2, (uniform(-2, 2), (1, 3, 1))),
    Case("expand_dims int", lambda x: np.expand_dims(x, 1) ** 2, (uniform(-2, 2), M)),
    Case("expand_dims tuple", lambda x: np.expand_dims(x, (0, -1)) ** 2, (uniform(-2, 2), M)),
    Case("broadcast_to", lambda x: np.broadcast_to(x, (4, 2, 3)) ** 2, (uniform(-2, 2), (2, 1))),
    Case("flip all", lambda x: np.flip(x) * x, (uniform(-2, 2), M)),
    Case("flip axis", lambda x: np.flip(x, 1) * x, (uniform(-2, 2), M)),
    Case("concatenate axis=0", lambda a, b: np.concatenate([a, b, a], axis=0) ** 2,
         (uniform(-2, 2), M), (uniform(-2, 2), (1, 3))),
    Case("concatenate axis=1", lambda a, b: np.concatenate([a, b], axis=1) ** 2,
         (uniform(-2, 2), M), (uniform(-2, 2), (2, 2))),
    Case("concatenate axis=None", lambda a, b: np.concatenate([a, b], axis=None) ** 2,
         (uniform(-2, 2), M), (uniform(-2, 2), (3,))),
    Case("stack axis=0", lambda a, b: np.stack([a, b]) ** 2, (uniform(-2, 2), M), (uniform(-2, 2), M)),
    Case("stack axis=-1", lambda a, b: np.stack([a, b], axis=-1) ** 2,
         (uniform(-2, 2), M), (uniform(-2, 2), M)),
    Case("split", lambda x: np.split(x, 3, axis=1)[1] * np.split(x, 2)[0], (uniform(-2, 2), M)),
]

INDEXING = [
    Case("x[1:, ::-1]", lambda x: x[1:, ::-1] ** 2, (uniform(-2, 2), M)),
    Case("x[1]", lambda x: x[1] ** 2, (uniform(-2, 2), M)),
    Case("x[-1, 1:]", lambda x: x[-1, 1:] ** 2, (uniform(-2, 2), X3)),
    Case("x[None, ..., 1]", lambda x: x[None, ..., 1] ** 2, (uniform(-2, 2), X3)),
    Case("x[[0, 0, 2, 0]] repeated", lambda x: x[[0, 0, 2, 0]] ** 2, (uniform(-2, 2), (3,))),
    Case("x[rows, cols] repeated", lambda x: x[[0, 1, 1, 0], [2, 2, 0, 2]] ** 2, (uniform(-2, 2), M)),
    Case("x[1, [2, 2, 0]]", lambda x: x[1, [2, 2, 0]] ** 2, (uniform(-2, 2), M)),
    Case("x[Tensor of ints]", lambda x: x[gm.Tensor(_like(x, [1, 1, 0]))] * 3, (uniform(-2, 2), (3,))),
    Case("x[[1, 0, 1]] rows of a matrix", lambda x: x[[1, 0, 1]] ** 2, (uniform(-2, 2), M)),
    Case("x[:, [2, 2, 0]]", lambda x: x[:, [2, 2, 0]] ** 2, (uniform(-2, 2), X3)),
    Case("x[[[0, 1], [1, 1]], 2]", lambda x: x[[[0, 1], [1, 1]], 2] ** 2, (uniform(-2, 2), X3)),
    Case("x[x > 0.2] mask", lambda x: x[x > 0.2] ** 2, (grid(0.1), M)),
    Case("x[[True, False, True]]", lambda x: x[[True, False, True]] ** 2, (uniform(-2, 2), (3,))),
]


def _like(t, values):
    """An array of ``values`` in ``t``'s module."""
    return _backend.xp_of(t.value).asarray(values)


SELECTION = [
    Case("np.where", lambda a, b: np.where(a > 0, a * b, b ** 2), (grid(0.1), M), (uniform(-2, 2), M)),
    Case("where scalar branch", lambda a: gm.ops.where(a > 0, a, 0.0) * a, (grid(0.1), M)),
    Case("np.clip", lambda a: np.clip(a, -0.5, 0.5) ** 2, (grid(0.1), M)),
    Case("x.clip(min=)", lambda a: a.clip(min=-0.3) * a, (grid(0.1), M)),
]


@gm.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))

    return np.log(1 + e), grad_fn


@gm.custom_gradient
def mul(x, y):
    def grad_fn(upstream):
        return upstream * y, upstream * x

    return x * y, grad_fn


CUSTOM = [
    Case("custom_gradient log1pexp", lambda x: log1pexp(x) * x, (uniform(-3, 3), M)),
    Case("custom_gradient two inputs", lambda x, y: mul(x, np.sin(y)) ** 2,
         (uniform(-2, 2), M), (uniform(-2, 2), M)),
]

CASES = UNARY + BINARY + OPERATORS + REDUCTIONS + MATMUL + SHAPE + INDEXING + SELECTION + CUSTOM


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_core_op(case, backend):
    check_case(case.f, case.draw(), backend, key=case.id, orders=case.orders)


# ---------------------------------------------------------------------------------------
# beyond the cases: higher order, Jacobians, dtypes, ties, non-differentiable ops
# ---------------------------------------------------------------------------------------

def test_nested_tapes_give_second_and_third_derivatives(backend):
    x = gm.Tensor(backend.array([0.5, -1.0, 2.0]))
    with gm.GradientTape() as t3:
        t3.watch(x)
        with gm.GradientTape() as t2:
            t2.watch(x)
            with gm.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3 * np.sin(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    for d in (d1, d2, d3):
        assert backend.is_native(d.value)
    v = np.array([0.5, -1.0, 2.0])
    s, c = np.sin(v), np.cos(v)
    np.testing.assert_allclose(backend.host(d1.value), 3 * v**2 * s + v**3 * c, rtol=1e-12)
    np.testing.assert_allclose(backend.host(d2.value), 6 * v * s + 6 * v**2 * c - v**3 * s, rtol=1e-12)
    np.testing.assert_allclose(backend.host(d3.value),
                               6 * s + 18 * v * c - 9 * v**2 * s - v**3 * c, rtol=1e-12)


def test_jacobian_and_batch_jacobian(backend):
    a = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    x = gm.Tensor(backend.array(a))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = np.tanh(x) * x[:, :1]
        z = np.sum(x ** 2, axis=1)
    jac = tape.jacobian(y, x)
    batch = tape.batch_jacobian(y, x)
    jz = tape.jacobian(z, x)
    assert backend.is_native(jac.value) and backend.is_native(batch.value) and backend.is_native(jz.value)
    assert jac.shape == (2, 3, 2, 3) and batch.shape == (2, 3, 3) and jz.shape == (2, 2, 3)
    want = np.zeros((2, 3, 2, 3))
    for i in range(2):
        for j in range(3):
            want[i, j, i, j] += (1 - np.tanh(a[i, j]) ** 2) * a[i, 0]
            want[i, j, i, 0] += np.tanh(a[i, j])
    np.testing.assert_allclose(backend.host(jac.value), want, rtol=1e-12)
    np.testing.assert_allclose(backend.host(batch.value), want[[0, 1], :, [0, 1], :], rtol=1e-12)
    want_z = np.zeros((2, 2, 3))
    want_z[0, 0], want_z[1, 1] = 2 * a[0], 2 * a[1]
    np.testing.assert_allclose(backend.host(jz.value), want_z, rtol=1e-12)


def _dtype_name(dtype):
    return str(dtype).rpartition(".")[2]


@pytest.mark.parametrize("op", [
    pytest.param(lambda x: np.exp(x) * x, id="exp(x) * x"),
    pytest.param(lambda x: np.max(x, axis=0) + np.prod(x), id="max + prod"),
    pytest.param(lambda x: np.sum(x[[0, 0, 1]] ** 2), id="x[[0, 0, 1]]"),
    pytest.param(lambda x: gm.sigmoid(x) * 2.5, id="sigmoid(x) * 2.5"),
])
def test_float32_stays_float32(backend, op):
    a = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
    x = gm.Tensor(backend.array(a))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = op(x)
    g = tape.gradient(y, x)
    assert backend.is_native(g.value)
    assert _dtype_name(y.dtype) == "float32" and _dtype_name(g.dtype) == "float32"
    with gm.GradientTape() as tape:
        x64 = gm.Tensor(np.asarray(a, dtype=np.float64))
        tape.watch(x64)
        y64 = op(x64)
    np.testing.assert_allclose(backend.host(g.value), tape.gradient(y64, x64).value, rtol=1e-5)


def test_astype_round_trip_casts_the_gradient_back(backend):
    x = gm.Tensor(backend.array([0.5, -1.0, 2.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = (x.astype(np.float32) * 3).astype("float64") * x
    g = tape.gradient(y, x)
    assert backend.is_native(g.value) and _dtype_name(g.dtype) == "float64"
    np.testing.assert_allclose(backend.host(g.value), 6 * np.array([0.5, -1.0, 2.0]), rtol=1e-6)


def test_astype_to_a_strict_dtype():
    x = gm.Tensor(xs.asarray([0.5, -1.0, 2.0], dtype=xs.float64))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(xs.float32) ** 2
    assert y.dtype == xs.float32
    g = tape.gradient(y, x)
    assert g.dtype == xs.float64
    np.testing.assert_allclose(np.asarray(g.value), [1.0, -2.0, 4.0])
    assert x.astype(xs.int64).dtype == xs.int64  # a cast to integers: no gradient, still runs


def test_max_ties_share_the_gradient(backend):
    x = gm.Tensor(backend.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.max(x, axis=1)
    g = tape.gradient(y, x)
    assert backend.is_native(g.value)
    np.testing.assert_allclose(backend.host(g.value), [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-12)


def test_booleans_count_as_in_numpy(backend):
    x = gm.Tensor(backend.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
    assert float(np.sum(x > 0)) == 4
    np.testing.assert_array_equal(backend.host(np.sum(x > 0, axis=0).value), [2, 1, 1])
    np.testing.assert_array_equal(backend.host(np.cumsum(x > 0).value), [1, 1, 2, 3, 4, 4])
    assert float(np.prod(x > -1)) == 0


@pytest.mark.parametrize("op, want", [
    pytest.param(lambda x: np.floor(x), [[0.0, -1.0, 2.0], [1.0, 0.0, -1.0]], id="floor"),
    pytest.param(lambda x: np.rint(x), [[0.0, -1.0, 2.0], [2.0, 0.0, -1.0]], id="rint"),
    pytest.param(lambda x: np.fmod(x, 0.5), [[0.0, -0.0, 0.0], [0.0, 0.25, -0.25]], id="fmod"),
    pytest.param(lambda x: np.remainder(x, 0.5), [[0.0, 0.0, 0.0], [0.0, 0.25, 0.25]], id="remainder"),
    pytest.param(lambda x: np.isfinite(x), [[True, True, True]] * 2, id="isfinite"),
    pytest.param(lambda x: np.isnan(x), [[False, False, False]] * 2, id="isnan"),
    pytest.param(lambda x: np.signbit(x), [[False, True, False], [False, False, True]], id="signbit"),
    pytest.param(lambda x: ~(x > 0), [[False, True, False], [False, False, True]], id="~(x > 0)"),
    pytest.param(lambda x: np.argmax(x, axis=1), [2, 0], id="argmax"),
])
def test_non_differentiable_ops(backend, op, want):
    x = gm.Tensor(backend.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
    got = op(x)
    assert backend.is_native(got.value)
    np.testing.assert_array_equal(backend.host(got.value), want)


def test_prod_second_derivative_at_a_zero():
    x = gm.constant([0.0, 2.0, 3.0], dtype="float64")
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = np.prod(x)
        g = inner.gradient(y, x)  # [6, 0, 0]
        h = outer.gradient(g[1], x)  # d/dx of x0 * x2: [3, 0, 0]
    np.testing.assert_array_equal(g.numpy(), [6.0, 0.0, 0.0])
    np.testing.assert_array_equal(h.numpy(), [3.0, 0.0, 0.0])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("values", [[0.0, 2.0, 3.0, 5.0], [2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 5.0],
                                    [2.0, 3.0, 5.0, 7.0]], ids=["one zero", "two zeros", "three zeros",
                                                                "no zero"])
def test_prod_hessian_is_the_others_others_product(values, dtype):
    # d2 prod / dx_i dx_j = the product of all but x_i and x_j (i != j), 0 on the diagonal
    v = np.array(values, dtype=dtype)
    want = np.array([[0.0 if i == j else np.prod(np.delete(v, [i, j])) for j in range(4)]
                     for i in range(4)], dtype=dtype)
    x = gm.constant(v)
    with gm.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = np.prod(x)
        g = inner.gradient(y, x)
        rows = [g[i] for i in range(4)]
    hessian = np.stack([outer.gradient(r, x).numpy() for r in rows])
    assert hessian.dtype == np.dtype(dtype)
    eps = np.finfo(dtype).eps  # p / x and back: a few roundings
    np.testing.assert_allclose(hessian, want, rtol=8 * eps, atol=8 * eps * np.abs(want).max())


# ---------------------------------------------------------------------------------------
# two modules in one op: a host constant goes to the device; anything else, a clear error
# ---------------------------------------------------------------------------------------

def _strict(values):
    return gm.Tensor(xs.asarray(values, dtype=xs.float64))


TENSORS = "both are Tensors' arrays, which an op does not move"
MOVE = "move one of them first (numpy.asarray(...) or array_api_strict.asarray(...), whichever fits)"


@pytest.mark.parametrize("op, advice", [
    pytest.param(lambda: _strict([1.0, 2.0]) + gm.constant(np.array([3.0, 4.0])), TENSORS,
                 id="strict Tensor + numpy Tensor"),
    pytest.param(lambda: gm.constant(np.array([3.0, 4.0])) * _strict([1.0, 2.0]), TENSORS,
                 id="numpy Tensor * strict Tensor"),
    pytest.param(lambda: np.concatenate([_strict([1.0]), gm.constant(np.array([2.0]))]), TENSORS,
                 id="np.concatenate([strict, numpy])"),
    pytest.param(lambda: gm.constant(np.array([3.0, 4.0])) * xs.asarray([1.0, 2.0], dtype=xs.float64),
                 MOVE, id="numpy Tensor * strict array"),
])
def test_mixing_numpy_and_strict_names_both(op, advice):
    """Both arrays named; for two Tensors, how to make them on one backend (an op cannot
    move a Tensor's array), for an array, how to move it."""
    with pytest.raises(BackendError) as info:
        op()
    message = str(info.value)
    assert "numpy.ndarray" in message and "an array_api_strict._array_object.Array" in message
    assert "cannot mix arrays of two backends" in message and advice in message


HOST_CONSTANTS = [  # (the op on a device Tensor x, the same on NumPy)
    pytest.param(lambda x, m: x - m.asarray([3.0, 4.0]), id="Tensor - numpy array"),
    pytest.param(lambda x, m: x * np.float64(2.0), id="Tensor * numpy scalar"),
    pytest.param(lambda x, m: x * [2.0, 3.0], id="Tensor * list"),
    pytest.param(lambda x, m: np.where(x > 1.5, x, np.zeros(2)), id="np.where(c, Tensor, numpy zeros)"),
    pytest.param(lambda x, m: np.reshape(x, (1, 2)) @ np.ones((2, 1)), id="Tensor @ numpy ones"),
    pytest.param(lambda x, m: x @ x + 3 * np.eye(2)[0], id="3 * np.eye(2) as an operand"),
]


@pytest.mark.parametrize("module", OTHER_MODULES)
@pytest.mark.parametrize("op", HOST_CONSTANTS)
def test_a_host_constant_meeting_a_device_tensor_goes_to_the_device(op, module):
    """As TensorFlow converts a constant operand onto its op's device: NumPy code with host
    constants in it runs on another module's Tensors unchanged, values and gradient alike."""
    xp = module_or_skip(module)
    x = gm.Tensor(xp.asarray([1.0, 2.0], dtype=xp.float64))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(op(x, np))
    g = tape.gradient(y, x)
    assert _backend.xp_of(y.value) is xp and _backend.xp_of(g.value) is xp
    h = gm.constant(np.array([1.0, 2.0]))
    with gm.GradientTape() as tape:
        tape.watch(h)
        want = np.sum(op(h, np))
    np.testing.assert_allclose(np.asarray(y.numpy()), want.numpy(), rtol=1e-15)
    np.testing.assert_allclose(np.asarray(g.numpy()), tape.gradient(want, h).numpy(), rtol=1e-15)


@pytest.mark.parametrize("module", OTHER_MODULES)
def test_a_grad_fn_s_host_constants_go_to_the_device_as_the_forward_s(module):
    """A dropout mask made with NumPy: the forward's product took it to the device, and so
    does grad_fn's (on a device grad_fn gets Tensors, as TensorFlow's gets tf.Tensors)."""
    xp = module_or_skip(module)
    mask = np.array([1.0, 0.0, 2.0])

    @gm.custom_gradient
    def dropout(x):
        return x * mask, lambda upstream: upstream * mask

    x = gm.Tensor(xp.asarray([0.5, 1.5, -1.0], dtype=xp.float64))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(dropout(x) * 3.0)
    g = tape.gradient(y, x)
    assert _backend.xp_of(g.value) is xp
    np.testing.assert_array_equal(np.asarray(g.numpy()), 3.0 * mask)


@pytest.mark.parametrize("module", OTHER_MODULES)
def test_a_host_output_gradient_goes_where_its_target_is(module):
    xp = module_or_skip(module)
    x = gm.Tensor(xp.asarray([1.0, 2.0], dtype=xp.float64))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
    g = tape.gradient(y, x, output_gradients=np.array([2.0, -1.0]))
    assert _backend.xp_of(g.value) is xp
    np.testing.assert_allclose(np.asarray(g.numpy()), [6.0, -3.0], rtol=1e-15)


def test_mixing_in_the_backward_pass_is_the_same_error():
    x = _strict([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.exp(x)
    with pytest.raises(BackendError, match="numpy.ndarray.*array_api_strict|array_api_strict.*numpy.ndarray"):
        tape.gradient(y, x, output_gradients=gm.constant(np.ones(2)))  # a NumPy Tensor, a strict target


def test_python_numbers_mix_with_every_module():
    _backend.xp_of(2.0), _backend.xp_of(3)  # asking about a number must not tie it to NumPy
    x = _strict([1.0, 2.0])
    y = 2.0 * x + 1 - x / 4 + 3 ** x
    assert STRICT.is_native(y.value)
    np.testing.assert_allclose(np.asarray(y.value), [5.75, 13.5])


# ---------------------------------------------------------------------------------------
# NumPy's names on other modules: resolved once, NumPy and NumPy-like modules untouched
# ---------------------------------------------------------------------------------------

def test_numpy_is_its_own_namespace_and_its_fast_path_is_numpys_function():
    assert _array_api.numpy_names(np) is np
    assert ops.exp.prim.np is np.exp and ops.arccos.prim.np is np.arccos
    assert ops.arccos.prim.impl(np) is np.arccos
    assert ops.add.prim.np is ops.add.prim.impl(xs)  # a Python operator: one for every module


def test_a_module_that_mirrors_numpy_is_untouched():
    fake = types.ModuleType("cupy")  # CuPy mirrors NumPy's names: they are used as they are
    fake.arccos, fake.acos = (lambda x: "arccos"), (lambda x: "acos")
    assert _array_api.numpy_names(fake) is fake
    assert ops.arccos.prim.impl(fake) is fake.arccos


def test_a_module_with_numpys_name_keeps_its_own_function():
    fake = types.ModuleType("some_array_api_module")
    fake.arccos, fake.acos, fake.atan = (lambda x: "arccos"), (lambda x: "acos"), (lambda x: "atan")
    names = _array_api.numpy_names(fake)
    assert names is not fake
    assert names.arccos is fake.arccos  # its own NumPy name first
    assert names.arctan is fake.atan  # the array API's spelling where it lacks NumPy's
    assert ops.arccos.prim.impl(fake) is fake.arccos


@pytest.mark.parametrize("numpy_name, api_name", [
    (n, a) for n, a in sorted(_array_api.ALIASES.items()) if hasattr(xs, a) and not hasattr(xs, n)])
def test_strict_gets_the_array_api_spelling(numpy_name, api_name):
    assert getattr(_array_api.numpy_names(xs), numpy_name) is getattr(xs, api_name)


def test_names_are_resolved_once_per_primitive_and_module():
    prim = ops.arccos.prim
    first = prim.impl(xs)
    assert prim.impl(xs) is first and first is xs.acos
    names = _array_api.numpy_names(xs)
    assert _array_api.numpy_names(xs) is names
    assert names.cbrt is names.cbrt  # a fallback is built once, then kept


def test_numpy_signatures_on_strict():
    names = _array_api.numpy_names(xs)
    a = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    x = xs.asarray(a)
    np.testing.assert_allclose(np.asarray(names.var(x, axis=1, ddof=1)), np.var(a, axis=1, ddof=1))
    np.testing.assert_allclose(np.asarray(names.std(x, ddof=1)), np.std(a, ddof=1))
    np.testing.assert_allclose(np.asarray(names.cumsum(x)), np.cumsum(a))
    np.testing.assert_allclose(np.asarray(names.transpose(x)), a.T)
    assert names.squeeze(xs.reshape(x, (1, 2, 1, 3))).shape == (2, 3)
    assert names.expand_dims(x, (0, 3)).shape == (1, 2, 3, 1)
    np.testing.assert_allclose(np.asarray(names.concatenate((x, x), axis=1)), np.concatenate((a, a), axis=1))
    np.testing.assert_allclose(np.asarray(names.outer(x, x[0, ...])), np.outer(a, a[0]))
    assert int(names.sum(x > 2.5)) == 4


@pytest.mark.parametrize("name, args", [
    ("exp2", (np.array([-30.0, -2.5, -0.75, 0.0, 0.5, 3.0, 8.0, 100.0]),)),
    ("cbrt", (np.array([-27.0, -2.5, -0.75, 0.0, 0.5, 3.0, 8.0, 1e10]),)),
    ("fmod", (np.array([-27.0, -2.5, -0.75, 0.0, 0.5, 3.0, 8.0, 1e10]), 0.7)),
    ("fmod", (np.array([-7.5, 7.5, -0.25, 2.0]), np.array([2.0, -2.0, 1.0, -0.75]))),
])
def test_portable_fallbacks_match_numpy(name, args):
    f = getattr(_array_api.numpy_names(xs), name)
    got = f(*[xs.asarray(v) if isinstance(v, np.ndarray) else v for v in args])
    np.testing.assert_allclose(np.asarray(got), getattr(np, name)(*args), rtol=1e-14)


def test_scatter_add_fallback_adds_repeated_positions_as_add_at():
    rng = np.random.default_rng(7)
    names = _array_api.numpy_names(xs)
    for shape, n in [((5,), 40), ((3, 4), 25), ((2, 3, 2), 1), ((4,), 0), ((3,), 1000)]:
        index = tuple(rng.integers(0, m, n) for m in shape)
        g = rng.standard_normal(n)
        if n > 2:
            g[1] = np.inf
        want = np.zeros(shape)
        np.add.at(want, index, g)
        got = _array_api.scatter_add(names, xs.asarray(g), shape, tuple(xs.asarray(i) for i in index))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


def test_an_op_the_module_lacks_is_a_clear_error():
    a, b = _strict([[1.0, 2.0]]), _strict([[3.0], [4.0]])
    with pytest.raises(BackendError) as info:
        np.einsum("ij,jk->ik", a, b)
    assert "einsum" in str(info.value) and "array_api_strict" in str(info.value)
    np.testing.assert_allclose(np.einsum("ij,jk->ik", a.numpy(), b.numpy()), [[11.0]])  # NumPy has it


def test_kind_reads_numpy_and_array_api_dtypes():
    for np_dtype, strict_dtype in [("float32", xs.float32), ("float64", xs.float64), ("int64", xs.int64),
                                   ("uint8", xs.uint8), ("bool", xs.bool), ("complex128", xs.complex128)]:
        assert _backend.kind(strict_dtype) == np.dtype(np_dtype).kind
        assert _backend.kind(np.dtype(np_dtype)) == np.dtype(np_dtype).kind


def test_watching_an_integer_strict_tensor_warns_and_gives_none():
    x = gm.Tensor(xs.asarray([1, 2]))
    with gm.GradientTape() as tape:
        with pytest.warns(UserWarning, match="floating"):
            tape.watch(x)
        y = x * 2
    with pytest.warns(UserWarning, match="floating"):
        assert tape.gradient(y, x) is None


# ---------------------------------------------------------------------------------------
# CuPy: never imported by gradmagic; asked for where none is usable, a BackendError saying why
# ---------------------------------------------------------------------------------------

def test_import_gradmagic_imports_no_cupy_and_probes_no_gpu():
    code = ("import sys, gradmagic, gradmagic._backend as b; "
            "print('cupy' in sys.modules, b._cupy_status is None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]


REASONS = ("CuPy is not installed", "does not import", "a CUDA library it needs is missing",
           "there is no GPU", "no GPU is usable")


@pytest.mark.skipif(_backend.cupy_status()[0] is not None, reason="a GPU is usable here")
def test_set_backend_cupy_without_a_gpu_says_why_and_keeps_numpy():
    assert gm.get_backend() == "numpy"
    with pytest.raises(BackendError) as info:
        gm.set_backend("cupy")
    message = str(info.value)
    assert message.startswith("set_backend('cupy'): ")
    assert any(reason in message for reason in REASONS), message
    assert gm.get_backend() == "numpy"
    assert isinstance(gm.constant([1.0]).value, np.ndarray)


class _Refuse:
    """A meta path finder that makes ``import cupy`` fail as a broken CUDA install does."""

    def __init__(self, error):
        self.error = error

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "cupy":
            raise self.error
        return None


def _fake_cupy(arange=None, devices=1):
    fake = types.ModuleType("cupy")
    fake.float32 = np.float32
    fake.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: devices))
    fake.arange = arange or np.arange
    return fake


def _raise(error):
    def f(*args, **kwargs):
        raise error
    return f


@pytest.mark.parametrize("setup, reason", [
    pytest.param(lambda mp: mp.setitem(sys.modules, "cupy", None), "CuPy is not installed",
                 id="not installed"),
    pytest.param(lambda mp: (mp.delitem(sys.modules, "cupy", raising=False),
                             mp.setattr(sys, "meta_path", [_Refuse(ImportError(
                                 "libcudart.so.12: cannot open shared object file"))] + sys.meta_path)),
                 "a CUDA library it needs is missing", id="CUDA library missing at import"),
    pytest.param(lambda mp: (mp.delitem(sys.modules, "cupy", raising=False),
                             mp.setattr(sys, "meta_path", [_Refuse(ModuleNotFoundError(
                                 "No module named 'fastrlock'", name="fastrlock"))] + sys.meta_path)),
                 "CuPy is installed but does not import", id="a dependency missing at import"),
    pytest.param(lambda mp: mp.setitem(sys.modules, "cupy", _fake_cupy(arange=_raise(RuntimeError(
        "CUDA_ERROR_NOT_FOUND: libnvrtc.so.12: cannot open shared object file")))),
                 "a CUDA library it needs is missing", id="CUDA library missing at the first kernel"),
    pytest.param(lambda mp: mp.setitem(sys.modules, "cupy", _fake_cupy(devices=0)),
                 "there is no GPU", id="no device"),
    pytest.param(lambda mp: mp.setitem(sys.modules, "cupy", _fake_cupy(arange=_raise(RuntimeError(
        "cudaErrorNoDevice: no CUDA-capable device is detected")))),
                 "there is no GPU", id="no device at the first kernel"),
])
def test_cupy_status_says_why(monkeypatch, setup, reason):
    monkeypatch.setattr(_backend, "_cupy_status", None)
    setup(monkeypatch)
    module, why = _backend.cupy_status()
    assert module is None and reason in why, why
    with pytest.raises(BackendError, match=reason):
        gm.set_backend("cupy")
    assert gm.get_backend() == "numpy"


# -- where host values land: the backend's module, as TensorFlow's default device ---------
class _Device:
    """A stand-in for CuPy: NumPy underneath, each host-to-device copy counted."""

    __name__ = "cupy"

    def __init__(self):
        self.copies = []

    def asarray(self, value, dtype=None):
        self.copies.append(("asarray", type(value).__name__, dtype))
        return np.asarray(value, dtype=dtype)

    def array(self, value, dtype=None):
        self.copies.append(("array", type(value).__name__, dtype))
        return np.array(value, dtype=dtype)


@pytest.fixture
def device(monkeypatch):
    fake = _Device()
    monkeypatch.setattr(_backend, "cupy_status", lambda: (fake, ""))
    gm.set_backend("cupy")
    yield fake
    gm.set_backend("numpy")


@pytest.mark.parametrize("make, value, call, dtype", [
    (gm.constant, np.ones(3, np.float64), "asarray", None),  # an array keeps its dtype
    (gm.constant, np.float32(2.0), "asarray", None),
    (gm.constant, 2.0, "asarray", np.float32),  # a Python float is float32, as in TensorFlow
    (gm.constant, [1, 2], "asarray", np.int32),
    (gm.Variable, np.zeros((2, 2), np.float32), "array", None),  # a Variable owns a copy
    (gm.Variable, 0.5, "array", np.float32),
], ids=["constant-array", "constant-numpy-scalar", "constant-float", "constant-list",
        "Variable-array", "Variable-float"])
def test_host_values_land_on_the_device_under_the_cupy_backend(device, make, value, call, dtype):
    t = make(value)
    assert len(device.copies) == 1  # one host-to-device copy, through the backend's module
    how, kind, got_dtype = device.copies[0]
    assert how == call and (got_dtype is None if dtype is None else np.dtype(got_dtype) == dtype)
    assert t.dtype == (np.asarray(value).dtype if dtype is None else dtype)


def test_tf_constructors_land_on_the_device_too(device):
    import gradmagic.tf as tf
    tf.constant(np.ones(2)), tf.Variable(np.ones(2)), tf.convert_to_tensor([1.0, 2.0])
    assert [c[0] for c in device.copies] == ["asarray", "array", "asarray"]


@pytest.mark.parametrize("backend", ["numpy", "cupy"])
def test_an_array_of_another_module_stays_where_it_is(monkeypatch, backend):
    if backend == "cupy":
        fake = _Device()
        monkeypatch.setattr(_backend, "cupy_status", lambda: (fake, ""))
    gm.set_backend(backend)
    try:
        a = xs.asarray([1.0, 2.0])  # stands for a CuPy array: an array that is not NumPy's
        assert type(gm.constant(a).value) is type(a) and type(gm.Variable(a).value) is type(a)
        if backend == "cupy":
            assert fake.copies == []
    finally:
        gm.set_backend("numpy")


def test_host_values_stay_on_the_host_under_the_numpy_backend():
    # a copy of its own, as TensorFlow 2.21.0's tf.constant: changing the array after leaves
    # the Tensor as it was ([1., 1., 1.]); gradmagic held the array itself, so the Tensor changed
    a = np.ones(3, np.float32)
    t = gm.constant(a)
    assert type(t.value) is np.ndarray and t.value is not a
    a[0] = 99.0
    assert t.numpy().tolist() == [1.0, 1.0, 1.0]


# ---------------------------------------------------------------------------------------
# CuPy proper: only where a GPU is usable
# ---------------------------------------------------------------------------------------

@pytest.fixture
def cupy():
    module, reason = _backend.cupy_status()
    if module is None:
        pytest.skip(reason)
    return module


@pytest.fixture
def cupy_backend(cupy):
    return Backend("cupy", cupy, (cupy.ndarray,), cupy.asarray, cupy.asnumpy)


@pytest.mark.cupy
@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CASES])
def test_core_op_on_cupy(case, cupy_backend):
    inputs = case.draw()
    rng = rng_for("weights", case.id)
    y = case.f(*[gm.Tensor(a) for a in inputs]).value
    weights = rng.uniform(0.5, 1.5, np.shape(y))
    directions = [rng.uniform(-1.0, 1.0, np.shape(a)) for a in inputs]
    got = derivatives(case.f, inputs, cupy_backend, weights, directions)
    want = derivatives(case.f, inputs, NUMPY, weights, directions)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-13)
    for g, n in zip(got[1] + got[2], want[1] + want[2]):
        np.testing.assert_allclose(g, n, rtol=1e-10, atol=1e-12)


@pytest.mark.cupy
def test_untraced_gradient_on_cupy_makes_no_device_to_host_copy(cupy, monkeypatch):
    rng = np.random.default_rng(0)
    params = [cupy.asarray(rng.standard_normal(s) / 8) for s in [(64, 32), (32,), (32, 1), (1,)]]
    x, y = cupy.asarray(rng.standard_normal((16, 64))), cupy.asarray(rng.standard_normal((16, 1)))
    copies = []
    get, asnumpy = cupy.ndarray.get, cupy.asnumpy

    def counted_get(self, *args, **kwargs):
        copies.append("ndarray.get")
        return get(self, *args, **kwargs)

    def counted_asnumpy(*args, **kwargs):
        copies.append("asnumpy")
        return asnumpy(*args, **kwargs)

    monkeypatch.setattr(cupy.ndarray, "get", counted_get)
    monkeypatch.setattr(cupy, "asnumpy", counted_asnumpy)
    ps = [gm.Tensor(p) for p in params]
    with gm.GradientTape() as tape:
        tape.watch(ps)
        w1, b1, w2, b2 = ps
        h = np.tanh(x @ w1 + b1)
        d = h @ w2 + b2 - y
        loss = np.mean(d * d) + gm.logsumexp(h, axis=1).sum() * 1e-3 + np.max(h[[0, 0, 3]])
    grads = tape.gradient(loss, ps)
    assert copies == []
    assert all(isinstance(g.value, cupy.ndarray) for g in grads)
    monkeypatch.undo()
    with gm.GradientTape() as tape:  # the same numbers on the host
        hp = [gm.Tensor(cupy.asnumpy(p)) for p in params]
        tape.watch(hp)
        w1, b1, w2, b2 = hp
        xh, yh = cupy.asnumpy(x), cupy.asnumpy(y)
        h = np.tanh(xh @ w1 + b1)
        d = h @ w2 + b2 - yh
        loss_h = np.mean(d * d) + gm.logsumexp(h, axis=1).sum() * 1e-3 + np.max(h[[0, 0, 3]])
    for g, gh in zip(grads, tape.gradient(loss_h, hp)):
        np.testing.assert_allclose(cupy.asnumpy(g.value), gh.value, rtol=1e-9, atol=1e-12)


def test_assign_puts_host_values_where_the_variable_lives(monkeypatch):
    v = gm.Variable(np.zeros(2, np.float32))  # on the host
    fake = _Device()
    monkeypatch.setattr(_backend, "cupy_status", lambda: (fake, ""))
    gm.set_backend("cupy")
    try:
        v.assign(np.ones(2))
    finally:
        gm.set_backend("numpy")
    assert fake.copies == [] and type(v.value) is np.ndarray and v.dtype == np.float32
    np.testing.assert_array_equal(v.value, [1.0, 1.0])


# -- tracing on a device costs no synchronisation per value --------------------------------
SYNCS = ("__array__", "__bool__", "__float__", "__int__", "__index__", "__complex__", "__dlpack__",
         "__buffer__")  # __buffer__: how NumPy reads it on Python 3.12 and later


@pytest.fixture
def host_copies(monkeypatch):
    """Every way an array_api_strict array (standing for a device array) reaches the host:
    each is a device-to-host copy, a synchronisation, on a GPU."""
    copies = []
    array = type(xs.asarray(0.0))
    for name in (n for n in SYNCS if hasattr(array, n)):
        def counted(self, *args, _f=getattr(array, name), _name=name, **kwargs):
            copies.append(_name)
            return _f(self, *args, **kwargs)
        monkeypatch.setattr(array, name, counted)
    return copies


def _mlp_step(make):
    rng = np.random.default_rng(0)
    params = [gm.Tensor(make(a)) for a in (rng.standard_normal((8, 16)) / 4, np.zeros(16),
                                           rng.standard_normal((16, 1)) / 4, np.zeros(1))]
    x, y = gm.Tensor(make(rng.standard_normal((5, 8)))), gm.Tensor(make(rng.standard_normal((5, 1))))
    with gm.GradientTape() as tape:
        tape.watch(params)
        W1, b1, W2, b2 = params
        d = np.tanh(x @ W1 + b1) @ W2 + b2 - y
        loss = np.mean(d * d)
    return tape.gradient(loss, params)


def test_a_traced_step_brings_nothing_to_the_host_until_it_is_looked_at(host_copies):
    _mlp_step(xs.asarray)
    assert host_copies == []  # untraced: none
    with gm.trace() as tr:
        grads = _mlp_step(xs.asarray)
    assert host_copies == []  # traced: nothing is read until the trace is looked at
    assert all(type(g.value) is type(xs.asarray(0.0)) for g in grads)
    assert tr.pitfalls == [] and len(host_copies) == 1  # the scans: one stacked array
    host_copies.clear()
    assert "\ngradient\n" in tr.to_text() and host_copies  # shown: values come to the host now


def test_the_scan_finds_a_nan_born_on_a_device_with_one_copy(host_copies):
    x = gm.Tensor(xs.asarray([100.0, 1.0], dtype=xs.float32))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            with np.errstate(over="ignore"):
                y = np.log(1 + np.exp(x))
        with np.errstate(invalid="ignore"):  # 0 * inf, inside array_api_strict's own NumPy
            tape.gradient(y, x)
    assert host_copies == []
    assert [p.kind for p in tr.pitfalls] == ["nan-origin"]  # found from one scan
    assert len(host_copies) == 1, host_copies
    assert "exp overflow" in tr.pitfalls[0].message  # its numbers come when it is read


# -- an untraced step makes the array calls a hand-written step makes, and no more ------------
# On a GPU each array call is a kernel launch or a view, 10 to 30 us of Python and driver at
# small sizes: what a step costs beyond the hand-written one is largely its extra calls.
# Counted on array_api_strict (standing for CuPy), in a fresh interpreter whose namespace
# and array class are counted before gradmagic is imported, since gradmagic resolves each
# namespace function once per module and keeps it.
COUNT_CALLS = '''
import collections, json
import array_api_strict as xs

calls, on = collections.Counter(), [False]
Array = type(xs.asarray(0.0))


def counted(f, name):
    def call(*args, **kwargs):
        if on[0]:
            calls[name] += 1
        return f(*args, **kwargs)
    return call


for name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
             "__rtruediv__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__neg__",
             "__getitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"):
    setattr(Array, name, counted(getattr(Array, name), name))
for name in ("T", "mT"):
    setattr(Array, name, property(counted(getattr(Array, name).fget, name)))
for name in dir(xs):
    f = getattr(xs, name)
    if callable(f) and not isinstance(f, type) and not name.startswith("_"):
        setattr(xs, name, counted(f, name))

import sys

import numpy as np

sys.path.insert(0, sys.argv[1])  # benchmarks/
from workloads import w3_gradmagic as engine  # the step as a NumPy user writes it, on Tensors
from workloads import w3_numpy  # the same step by hand (the benchmark's floor)


def hand(params, x, y):
    return w3_numpy(params, x, y, xp=xs)


rng = np.random.default_rng(0)
shapes = [(8, 16), (16,), (16, 16), (16,), (16, 1), (1,)]
params = [xs.asarray(rng.standard_normal(s).astype(np.float32) / 4) for s in shapes]
x = xs.asarray(rng.standard_normal((4, 8)).astype(np.float32))
y = xs.asarray(rng.standard_normal((4, 1)).astype(np.float32))
out = {}
for name, step in (("hand", hand), ("engine", engine)):
    step(params, x, y)  # warm: every namespace function looked up once
    calls.clear()
    on[0] = True
    loss, grads = step(params, x, y)
    on[0] = False
    out[name] = {"calls": dict(calls), "values": [np.asarray(loss).tolist()] + [np.asarray(g).tolist() for g in grads]}
print(json.dumps(out))
'''
VIEWS = {"T", "mT", "reshape", "broadcast_to", "permute_dims", "expand_dims", "squeeze", "__getitem__"}


def test_an_untraced_step_makes_no_more_array_calls_than_the_same_step_by_hand():
    root = str(Path(__file__).resolve().parents[1])
    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    done = subprocess.run([sys.executable, "-c", COUNT_CALLS, benchmarks], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get(
                              "PYTHONPATH", "")])})
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    hand, engine = out["hand"]["calls"], out["engine"]["calls"]

    def split(calls):
        kernels = sum(n for name, n in calls.items() if name not in VIEWS)
        return kernels, sum(n for name, n in calls.items() if name in VIEWS)

    (hand_kernels, hand_views), (kernels, views) = split(hand), split(engine)
    assert hand_kernels == 26 and hand_views == 5, hand  # the count counts
    # What the engine does beyond the hand's, each on purpose: the loss's seed (ones), the
    # mean's rule dividing it by n and broadcasting it (a view), and d * d's two rules with
    # their sum where the hand writes one product (each rule stays one readable line, and a
    # seed shared across passes would be a device array a grad_fn could write into)
    assert kernels <= hand_kernels + 4 and views <= hand_views + 1, f"by hand {hand}, by gradmagic {engine}"
    for got, want in zip(out["engine"]["values"], out["hand"]["values"]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axes", [(-1, -2), (0, 1), (1, -2), (0, -2), (-1, 1)])
def test_swapaxes_of_a_raw_matrix_is_its_transpose(axes, backend):
    """A rule's raw matrix gets ``.T`` (one view, the call a hand-written step makes);
    the same axis twice leaves it as it is, as NumPy's swapaxes does."""
    a = np.arange(6.0).reshape(2, 3)
    got = ops.swapaxes(backend.array(a), *axes)
    assert backend.is_native(got)
    np.testing.assert_array_equal(backend.host(got), np.swapaxes(a, *axes))
    cube = np.arange(24.0).reshape(2, 3, 4)  # not a matrix: the permutation
    np.testing.assert_array_equal(backend.host(ops.swapaxes(backend.array(cube), -1, -2)), np.swapaxes(cube, -1, -2))


def test_scan_tells_nan_from_inf_for_each_value():
    values = [np.array([1.0, np.nan]), xs.asarray([np.inf, 1.0]), np.ones(2), xs.asarray([1.0, np.nan]),
              np.arange(3), None, "text", xs.asarray([1, 2])]
    from gradmagic._scans import scan
    assert scan(values) == [(True, True), (True, False), (False, False), (True, True),
                                     (False, False), (False, False), (False, False), (False, False)]


GPU_TESTS = '''\
import pytest

@pytest.mark.cupy
@pytest.mark.parametrize("k", [1, 2])
def test_on_the_gpu(k):
    pytest.skip("no GPU in this test")

def test_on_the_cpu():
    pass
'''


def test_the_pytest_summary_says_why_the_cupy_tests_skipped(tmp_path):
    """The project's conftest adds one line to the summary, without ``-rs``."""
    (tmp_path / "test_gpu.py").write_text(GPU_TESTS)
    root = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
                           "-W", "ignore::pytest.PytestUnknownMarkWarning", "test_gpu.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get(
                              "PYTHONPATH", "")])})
    lines = done.stdout.splitlines()
    assert "2 CuPy tests skipped: no GPU in this test" in lines, done.stdout
    assert lines.index("2 CuPy tests skipped: no GPU in this test") < len(lines) - 1  # above the counts
    assert "1 passed, 2 skipped" in lines[-1]
