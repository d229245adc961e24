"""The backward primitives (core/fused.py): each is its closed form, on small arrays and on
large ones (which it updates in place), its rules are the closed form's derivatives (checked
by finite differences to the second order, so the rules of its rules too), a seed of ones
is never multiplied, and a nested pass records one op per rule."""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import fused
from gradmagic.core.backward import known_ones, ones

SIZES = {"small": 7, "large": fused.BIG + 3}  # below and above where forwards work in place


def _values(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.9, 0.9, n), rng.uniform(0.5, 1.5, n), rng.uniform(-1, 1, n)


def _power(y, c=1):
    return (lambda g, x: fused.power_backward(g, x, y, c),
            lambda g, x: np.zeros_like(x) if y == 0 else c * g * y * x ** (y - 1))


FORMS = {  # name -> (op of (g, a), its closed form); a is in (0.5, 1.5) where it must be positive
    "tanh_backward": (fused.tanh_backward, lambda g, a: g * (1 - a ** 2)),
    "sigmoid_backward": (fused.sigmoid_backward, lambda g, a: g * a * (1 - a)),
    "divide_backward": (lambda g, a: fused.divide_backward(g, a, a + 1),
                        lambda g, a: -g * a / (a + 1)),
    **{f"power_backward-y={y}-c={c}": _power(y, c)
       for y, c in [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (0.5, 1), (-1.5, 1), (3, 2.5)]},
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", FORMS)
def test_backward_primitive_is_its_closed_form(name, size):
    op, form = FORMS[name]
    g, a, _ = _values(SIZES[size])
    np.testing.assert_allclose(op(g, a), form(g, a), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", FORMS)
def test_backward_primitive_on_tensors_is_one_recorded_op(name):
    op, form = FORMS[name]
    g, a, _ = (gm.Tensor(v) for v in _values(5))
    with gm.GradientTape() as tape:
        tape.watch([g, a])
        out = op(g, a)
    np.testing.assert_allclose(out.value, form(g.value, a.value), rtol=1e-13, atol=1e-15)
    assert [e[0].name for e in tape._entries][-1:] == [name.partition("-")[0]]


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name", FORMS)
def test_backward_primitive_rules_agree_with_finite_differences(name, order):
    op, _ = FORMS[name]
    g, a, w = _values(5, seed=order)
    assert gm.check_grad(lambda g, a: np.sum(op(g, a) * w), g, a, order=order)


@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), ((0, 2), True)],
                         ids=["all", "all-keepdims", "axis0", "axes02-keepdims"])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_a_reductions_gradient_is_its_upstream_spread_back(reduction, axis, keepdims):
    x = np.random.default_rng(1).standard_normal((2, 3, 4))
    n = x.size // np.sum(x, axis=axis, keepdims=True).size
    g = np.sum(x, axis=axis, keepdims=keepdims) + 1
    got = (fused.sum_backward(g, x.shape, axis, keepdims) if reduction == "sum" else
           fused.mean_backward(g, x.shape, axis, keepdims, n))
    want = np.broadcast_to(np.reshape(g, np.sum(x, axis=axis, keepdims=True).shape), x.shape)
    np.testing.assert_allclose(got, want / (n if reduction == "mean" else 1))
    assert gm.check_grad(lambda x: np.sum(getattr(np, reduction)(x, axis=axis, keepdims=keepdims) ** 2),
                         x, order=2)


def test_the_seed_of_a_scalar_target_is_known_ones_and_read_only():
    seed = ones(np.array(3.0))
    assert known_ones(seed) and seed.shape == () and not seed.flags.writeable
    assert ones(np.array(2.0)) is seed  # one per dtype, shared
    assert known_ones(fused.spread(seed, (3, 4))) and known_ones(np.reshape(seed, (1,)))
    assert not known_ones(np.ones(())) and not known_ones(np.ones(3)) and not known_ones(2.0)
    assert not known_ones(ones(np.array(1.0, np.float32)).astype(np.float64))


def test_the_seed_of_a_numpy_scalar_is_a_numpy_scalar_one():
    seed = ones(np.float32(3.0))
    assert type(seed) is np.float32 and seed == 1


def test_spread_is_a_read_only_view_of_its_scalar():
    g = np.array(2.5)
    view = fused.spread(g, (3, 2))
    assert view.base is g and not view.flags.writeable and view.strides == (0, 0)
    np.testing.assert_array_equal(view, np.full((3, 2), 2.5))


@pytest.mark.parametrize("size", SIZES)
def test_scaled_skips_only_a_known_ones_upstream(size):
    n = SIZES[size]
    local = np.arange(n, dtype=np.float64)
    seeded = fused.scaled(fused.spread(ones(np.array(1.0)), (n,)), local.copy())
    np.testing.assert_array_equal(seeded, local)
    if size == "large":  # the product skipped: the temporary itself comes back
        mine = local.copy()
        assert fused.scaled(fused.spread(ones(np.array(1.0)), (n,)), mine) is mine
    np.testing.assert_array_equal(fused.scaled(np.full(n, 2.0), local.copy()), 2 * local)
    np.testing.assert_array_equal(fused.scaled(np.ones(n, np.float32), local.copy()), local)


def test_a_nested_pass_records_one_op_per_hot_rule():
    x = gm.Tensor(np.linspace(-1, 1, 5))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            f = np.sum(np.tanh(x) ** 3)
        before = len(outer._entries)
        g = inner.gradient(f, x)
        recorded = [e[0].name for e in outer._entries[before:]]
        gv = np.sum(g * 2.0)
    assert recorded == ["power_backward", "tanh_backward"]  # sum_backward spread a constant: the seed
    t = np.tanh(x.value)
    np.testing.assert_allclose(outer.gradient(gv, x).value,
                               2 * 6 * t * (1 - t ** 2) * ((1 - t ** 2) - t ** 2), rtol=1e-12)


@pytest.mark.parametrize("size", SIZES)
def test_a_third_derivative_goes_through_the_rules_of_the_rules(size):
    x0 = np.random.default_rng(3).uniform(-1, 1, SIZES[size])
    x = gm.Tensor(x0)
    with gm.GradientTape() as t3:
        t3.watch(x)
        with gm.GradientTape() as t2:
            t2.watch(x)
            with gm.GradientTape() as t1:
                t1.watch(x)
                y = np.sum(np.tanh(x))
            s1 = np.sum(t1.gradient(y, x))
        d2 = t2.gradient(s1, x)
        s2 = np.sum(d2)
    d3 = t3.gradient(s2, x)
    t = np.tanh(x0)
    s = 1 - t ** 2
    np.testing.assert_allclose(d2.value, -2 * t * s, rtol=1e-12)
    np.testing.assert_allclose(d3.value, -2 * s * s + 4 * t * t * s, rtol=1e-12, atol=1e-14)


def test_a_sums_gradient_from_a_numpy_scalar_seed_is_known_ones():
    spread = fused.sum_backward(ones(np.float64(2.0)), (4, 3), None, False)
    assert known_ones(spread) and spread.shape == (4, 3)
    other = fused.sum_backward(np.float64(2.0), (4,), None, False)
    assert not known_ones(other) and other.tolist() == [2.0] * 4


@pytest.mark.parametrize("y", [2, 3.0, 4, 2.5], ids=["2", "3.0", "4", "2.5"])
def test_power_backward_of_integers_promotes(y):
    x = np.arange(1, 5)
    np.testing.assert_allclose(fused.power_backward(np.ones(4), x, y), y * x ** (y - 1.0))
