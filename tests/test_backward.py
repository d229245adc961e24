"""The backward walk (core/backward.py): its plain loop (no tape recording, no listener) and
its general loop give the same gradients on the same graphs; a scalar's gradient is the
total of a broadcast one."""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core.context import Listener, push, remove


@gm.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))
    return np.log(1 + e), grad_fn


def chain(x):  # W1's chain: 0-d values
    y = x
    for _ in range(20):
        y = np.log(1 + np.exp(y))
    return y


def arrays(x):  # W2's ops, with a broadcast against a column and a reduction
    y = x
    for _ in range(5):
        y = np.exp(np.tanh(y) * 0.5) + x
    return np.sum(np.mean(y * np.ones((3, 1)), axis=0) ** 3) + np.sum(gm.sigmoid(y) / (2 + x))


def custom(x):  # a custom gradient between ops, and a value used twice
    return np.sum(log1pexp(x * x) * log1pexp(x))


def factorization(x):  # an op with several outputs (eigh's packed output, sliced)
    a = np.reshape(x[:4], (2, 2))
    w, v = np.linalg.eigh(a @ a.T + np.eye(2))
    return np.sum(w) + np.sum(v[:, 0] ** 2)


def squares(x):  # x * x: under a mean (its upstream a shared constant), and under any upstream
    t = np.tanh(x)
    return np.mean(x * x) + np.sum((t * t) * x) + np.sum(np.mean(x * x, axis=0))


PROGRAMS = {"chain": (chain, np.float64(0.3)), "arrays": (arrays, np.linspace(-1, 1, 16)),
            "squares": (squares, np.linspace(-1, 1, 12).reshape(3, 4)),
            "squares-float32": (squares, np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)),
            "custom": (custom, np.linspace(-2, 2, 6)), "factorization": (factorization, np.arange(1.0, 7.0))}


def _gradient(f, x0, heard):
    x = gm.Tensor(x0)
    listener = Listener()  # one that hears everything and does nothing: the general loop runs
    if heard:
        push(listener)
    try:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x).value
    finally:
        if heard:
            remove(listener)


@pytest.mark.parametrize("name", PROGRAMS)
def test_the_plain_and_the_heard_walk_give_the_same_gradient(name):
    f, x0 = PROGRAMS[name]
    plain, heard = _gradient(f, x0, False), _gradient(f, x0, True)
    np.testing.assert_array_equal(plain, heard)
    assert gm.check_grad(lambda x: f(x), x0)


def test_a_scalar_broadcast_against_an_array_gets_the_total():
    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * np.arange(4.0))
    g = tape.gradient(y, x)
    assert g.shape == () and float(g) == 6.0


@pytest.mark.parametrize("gshape,shape", [((5, 3), (3,)), ((2, 5, 3), (3,)), ((2, 5, 3), (5, 3)),
                                          ((5, 3), (1, 3)), ((5, 3), (5, 1)), ((2, 5, 3), (5, 1))])
def test_unbroadcast_sums_the_added_and_the_stretched_axes(gshape, shape):
    """Only leading axes added (a bias's gradient): one sum; otherwise a sum kept as ones, reshaped."""
    from gradmagic.core.backward import unbroadcast
    g = np.arange(float(np.prod(gshape))).reshape(gshape)
    got = unbroadcast(g, shape)
    lead = len(gshape) - len(shape)
    stretched = tuple(i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1)
    want = np.sum(np.sum(g, axis=tuple(range(lead))), axis=tuple(a - lead for a in stretched), keepdims=True)
    assert got.shape == shape
    np.testing.assert_array_equal(got, want)


def test_a_flat_list_or_tuple_of_sources_comes_back_as_given():
    x, y = gm.constant(2.0), gm.constant(3.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * y
    assert type(tape.gradient(z, (x, y))) is tuple and type(tape.gradient(z, [x, y])) is list
    assert [float(g) for g in tape.gradient(z, [x, y])] == [3.0, 2.0]
    nested = tape.gradient(z, [x, {"y": y}])  # not flat: nest's way
    assert float(nested[0]) == 3.0 and float(nested[1]["y"]) == 2.0
