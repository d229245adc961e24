"""NumPy code on gradmagic where users' programs found a difference from the reference
differentiators (HIPS autograd 1.9.1, JAX 0.10.2 with x64) or from finite differences."""

import numpy as np
import pytest

import gradmagic as gm


@pytest.mark.parametrize("make", [
    lambda b: (np.ones((100_000, 8), np.float32) + b) * np.float32(0.1),  # a bias over a batch
    lambda b: np.tile(b, (100_000, 1)) * np.float32(0.1),
    lambda b: np.broadcast_to(b, (100_000, 8)) * np.float32(0.1),
])
def test_a_float32_gradient_summed_over_many_copies_is_accurate(make):
    """The exact gradient is 0.1 (as float32) times 100,000 = 10000.000149...; NumPy's sum over
    an outer axis adds row by row, and gave 9998.557 (1.4e-4 off); float64 accumulation
    rounds once, to float32's 10000.0."""
    b = gm.constant(np.zeros(8, np.float32))
    with gm.GradientTape() as t:
        t.watch(b)
        y = np.sum(make(b))
    g = t.gradient(y, b)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.numpy(), np.float32(0.1) * np.float64(100_000), rtol=2e-7)


def test_a_float32_total_of_a_scalar_broadcast_is_accurate():
    x = gm.constant(np.float32(0.5))
    with gm.GradientTape() as t:
        t.watch(x)
        y = np.sum(np.broadcast_to(x, (100_000,)) * np.float32(0.1))
    # a total is NumPy's pairwise sum: within a float32 rounding or two (JAX 2e-7, PyTorch 4e-7)
    np.testing.assert_allclose(float(t.gradient(y, x)), np.float32(0.1) * np.float64(100_000), rtol=2e-7)
