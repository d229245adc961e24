"""``np.sinc`` on Tensors (gradmagic/core/special.py): NumPy's values; first and second
derivatives against central finite differences and against the closed forms, at 0 exactly,
near it, across the switch from the series to the recurrence, and far from it."""

import math

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import dispatch, special

from _cases import OTHER_MODULES, assert_op, assert_same_on_module, rng_for, uniform

PI2 = math.pi ** 2


def derivatives(x, n, dtype=np.float64):
    """``[sinc(x), sinc'(x), ..., sinc^(n)(x)]`` by ``n`` nested tapes."""
    t = gm.constant(np.asarray(x, dtype=dtype))
    tapes = [gm.GradientTape() for _ in range(n)]
    for tape in tapes:
        tape.__enter__()
        tape.watch(t)
    y, out = np.sinc(t), []
    out.append(y)
    for tape in reversed(tapes):
        tape.__exit__(None, None, None)
        y = tape.gradient(y, t)
        out.append(y)
    return [v.numpy() for v in out]


def closed_forms(x):
    """sinc, sinc' and sinc'' away from 0, from sin and cos (accurate for |pi x| >= 1)."""
    y = math.pi * x
    s = np.sin(y) / y
    d1 = (np.cos(y) - s) / y
    d2 = (-np.sin(y) - 2 * d1) / y
    return s, math.pi * d1, PI2 * d2


def test_every_function_is_dispatched_here_and_has_the_cases_below():
    assert list(special.FUNCTIONS) == [np.sinc]
    assert all(dispatch.FUNCTIONS[f] is impl for f, impl in special.FUNCTIONS.items())


GRID = np.array([0.0, 1e-300, -1e-20, 1e-8, -1e-3, 0.2, -1 / math.pi, 0.5, 1.0, -1.7, 3.3, 12.0, -1e6])


def test_value_is_numpys():
    got = np.sinc(gm.constant(GRID))
    assert isinstance(got, gm.Tensor)
    np.testing.assert_allclose(got.numpy(), np.sinc(GRID), rtol=1e-15, atol=1e-300)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("shape", [(3, 4), (2, 1, 3)], ids=["(3,4)", "(2,1,3)"])
@pytest.mark.parametrize("lo, hi", [(-0.4, 0.4), (-4.0, 4.0)], ids=["near-0", "wide"])
def test_matches_finite_differences(lo, hi, shape, order):
    x = uniform(lo, hi)(rng_for("sinc", lo, shape), shape)
    assert_op(np.sinc, x, key=("sinc", lo, shape), order=order)


def test_at_zero_the_derivatives_are_the_maclaurin_coefficients():
    # sinc(x) = 1 - (pi x)^2 / 6 + (pi x)^4 / 120 - ...: derivatives 1, 0, -pi^2/3, 0, pi^4/5
    got = derivatives(0.0, 4)
    np.testing.assert_allclose(got, [1.0, 0.0, -PI2 / 3, 0.0, PI2 ** 2 / 5], rtol=1e-15, atol=0)


@pytest.mark.parametrize("x", [1e-300, -1e-20, 1e-8, -1e-5])
def test_near_zero_the_derivatives_follow_the_series(x):
    # where sin(y)/y differentiated as written cancels to noise: sinc'(x) = -pi^2 x / 3 + ...
    value, first, second = derivatives(x, 2)
    assert value == 1.0 or abs(value - 1.0) < 1e-9
    np.testing.assert_allclose(first, -PI2 * x / 3 * (1 - PI2 * x * x / 10), rtol=1e-12)
    np.testing.assert_allclose(second, -PI2 / 3 + PI2 ** 2 * x * x / 10, rtol=1e-12)


@pytest.mark.parametrize("x", [1 / math.pi, -1 / math.pi, 1.0, -1.7, 3.3, 12.0, -1e6])
def test_away_from_zero_the_derivatives_are_the_closed_forms(x):
    np.testing.assert_allclose(derivatives(x, 2), closed_forms(x), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_series_and_the_recurrence_meet_at_the_switch(k):
    # |pi x| = 1 is where the k-th derivative changes method: both sides agree
    below, above = (1 - 1e-14) / math.pi, (1 + 1e-14) / math.pi
    assert abs(math.pi * below) < 1 <= abs(math.pi * above)
    np.testing.assert_allclose(derivatives(below, k)[k], derivatives(above, k)[k], rtol=1e-12)


def test_every_derivative_is_finite_everywhere():
    x = np.concatenate([GRID, np.linspace(-5, 5, 1001)])
    for d in derivatives(x, 3):
        assert np.all(np.isfinite(d))


def test_float32_stays_float32_and_agrees_with_float64():
    x = np.array([0.0, 1e-4, 0.3, -2.5], dtype=np.float32)
    got = derivatives(x, 2, np.float32)
    want = derivatives(x.astype(np.float64), 2)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("module", OTHER_MODULES)
def test_runs_on_another_array_module_to_second_order(module):
    assert_same_on_module(module, np.sinc, [np.concatenate([GRID, uniform(-3, 3)(rng_for("sinc-module"), 8)])],
                          ("sinc",))


def test_the_trace_shows_one_sinc_row():
    x = gm.constant(np.array([0.0, 0.5]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(np.sinc(x))
        tape.gradient(y, x)
    assert [r.node for r in tr.forward] == ["sinc", "sum"]


def test_erf_is_pythons_erf_element_by_element_with_its_derivatives():
    xs = np.linspace(-6.5, 6.5, 261)
    want = [math.erf(v) for v in xs]
    got = special.erf(gm.constant(xs)).numpy()
    assert got.dtype == np.float64 and got.tolist() == want  # math.erf's bits, each element
    f32 = special.erf(gm.constant(xs.astype(np.float32))).numpy()
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, np.array([math.erf(v) for v in xs.astype(np.float32)], np.float32))
    assert special.erf(np.arange(3)).dtype == np.float64  # integers: NumPy's ufunc dtype
    assert type(special.erf(gm.constant(0.5)).value) is np.float32  # a scalar stays one
    assert gm.check_grad(special.erf, np.array([-1.7, -0.2, 0.4, 2.2]), order=2)
    assert gm.check_grad(special.gelu_erf, np.array([-1.7, -0.2, 0.4, 2.2]), order=2)
    x = gm.constant(np.array([[0.0, 1.0], [-2.0, 0.5]]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(special.erf(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 / math.sqrt(math.pi) * np.exp(-x.numpy() ** 2),
                               rtol=1e-15)


@pytest.mark.parametrize("module", OTHER_MODULES)
def test_erf_runs_on_another_array_module_to_second_order(module):
    # computed on the host (math.erf) and sent back to the module's device
    assert_same_on_module(module, special.erf, [np.array([-1.7, -0.2, 0.0, 0.4, 2.2])], ("erf",))


def test_erfc_keeps_its_digits_far_out():
    """``erfc`` is computed as itself: ``1 - erf(x)`` is 0 from x = 6 on in float64. The
    numbers are Python's ``math.erfc``; its derivative against central differences."""
    xs = np.array([0.5, 6.0, 26.0, -3.0])
    x = gm.constant(xs)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = special.erfc(x)
    np.testing.assert_array_equal(y.value, [math.erfc(v) for v in xs])
    assert y.value[1] == pytest.approx(2.1519736712498913e-17, rel=1e-15)
    np.testing.assert_allclose(tape.gradient(y, x).value, -2 / math.sqrt(math.pi) * np.exp(-xs ** 2))
    assert gm.check_grad(special.erfc, [np.array([0.3, -1.2, 2.0])], order=2)
    assert special.erfc(gm.constant(np.float32(5.0))).value.dtype == np.float32


# -- erfinv and ndtri -------------------------------------------------------------------------
def test_erfinv_inverts_erf_to_float64_accuracy_into_the_tails():
    x = np.concatenate([np.linspace(-0.999999, 0.999999, 801), [1e-300, -1e-12, 0.5, 1 - 1e-15]])
    y = special.erfinv(x)
    assert np.all(np.abs(np.array([math.erf(v) for v in y]) - x) <= 3e-16 * np.maximum(np.abs(x), 1e-300))
    # near 1 erf has no digits left: erfc, the complement, is what erfinv must invert there
    tail = np.array([1 - 1e-10, 1 - 1e-15])
    assert np.allclose([math.erfc(v) for v in special.erfinv(tail)], 1 - tail, rtol=1e-6)
    out = special.erfinv(np.array([1.0, -1.0, 1.5, np.nan]))
    assert out[0] == np.inf and out[1] == -np.inf and np.isnan(out[2:]).all()


@pytest.mark.parametrize("p", [1e-300, 1e-100, 1e-38, 1e-20, 1e-10, 0.01, 0.3, 0.5, 0.8, 1 - 1e-12])
def test_ndtri_inverts_the_normal_distribution_far_into_both_tails(p):
    # (sqrt(2) erfinv(2 p - 1) is -inf for every p below 6e-17: 2 p - 1 is -1 in float64)
    y = float(special.ndtri(np.float64(p)))
    assert math.isclose(math.erfc(-y / math.sqrt(2)) / 2, p, rel_tol=1e-12 if p > 1e-200 else 1e-11)


@pytest.mark.parametrize("f, x, slope", [
    (special.erfinv, [-0.9, -0.3, 0.0, 0.6, 0.97], lambda y: math.sqrt(math.pi) / 2 * np.exp(y * y)),
    (special.ndtri, [0.02, 0.3, 0.5, 0.9, 0.999], lambda y: math.sqrt(2 * math.pi) * np.exp(y * y / 2))])
def test_erfinv_and_ndtri_derivatives_to_second_order(f, x, slope):
    # the closed forms (an inverse's derivative is 1 / f'(y); then y'' = 2 y y'^2 for erfinv,
    # y y'^2 for ndtri), and central differences for the first
    x = np.array(x)
    t = gm.constant(x)
    with gm.GradientTape() as outer:
        outer.watch(t)
        with gm.GradientTape() as inner:
            inner.watch(t)
            y = f(t)
        g = inner.gradient(y, t)
    gg = outer.gradient(g, t)
    y, d1 = y.numpy(), slope(y.numpy())
    np.testing.assert_allclose(g.numpy(), d1, rtol=1e-13)
    np.testing.assert_allclose(gg.numpy(), (2 if f is special.erfinv else 1) * y * d1 * d1, rtol=1e-12, atol=1e-12)
    h = 1e-6
    np.testing.assert_allclose(g.numpy(), (f(x + h) - f(x - h)) / (2 * h), rtol=1e-5)


def test_erfinv_keeps_float32():
    assert special.erfinv(np.array([0.5], np.float32)).dtype == np.float32
    assert special.ndtri(gm.constant(np.array([0.5, 0.9], np.float32))).dtype == np.float32
