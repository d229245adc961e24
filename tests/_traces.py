"""Traces the renderer tests draw: the seed's chain, a small MLP with Variables, and a NaN
born in the backward pass."""

import numpy as np

import gradmagic as gm


@gm.custom_gradient
def foo(x):
    def grad(upstream):
        return upstream * 2 * x
    return x ** 2, grad


def seed_trace():
    x = gm.constant(2.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = foo(foo(foo(x)))
        dy_dx = tape.gradient(y, x)
    assert float(dy_dx) == 1024.0
    return tr


def mlp_trace():
    W = gm.Variable(np.ones((2, 3)) * 0.5, name="W")
    b = gm.Variable(np.zeros(3), name="b")
    xs = gm.constant(np.arange(4.0).reshape(2, 2))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            h = np.tanh(xs @ W + b)
            loss = np.sum(h * h)
        tape.gradient(loss, [W, b])
    return tr


def softplus_nan_trace(check=False):
    """Naive softplus at 100 in float32: exp overflows, the gradient is NaN (a note box says
    where it was born)."""
    x = gm.constant(np.float32(100.0))
    with gm.trace(check=check) as tr, np.errstate(over="ignore", invalid="ignore"):
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.log(1 + np.exp(x))
        g = tape.gradient(y, x)
    assert np.isnan(g.numpy())
    return tr
