"""Sorting, order statistics and NaN-aware reductions (gradmagic/core/statistics.py):
NumPy's values, and gradients against central finite differences to second order."""

import warnings

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import statistics

from _cases import assert_same_on_module, module_marks, distinct, rng_for, uniform

# name, function, domain, shape; inputs without ties, so that every function is smooth there
CASES = [
    ("sort", lambda x: np.sort(x), distinct, (3, 4)),
    ("sort-axis0", lambda x: np.sort(x, axis=0), distinct, (3, 4)),
    ("sort-axis-none", lambda x: np.sort(x, axis=None), distinct, (3, 4)),
    ("sort-stable", lambda x: np.sort(x, kind="stable"), distinct, (5,)),
    ("partition", lambda x: np.partition(x, 2, axis=1), distinct, (3, 5)),
    ("partition-axis-none", lambda x: np.partition(x, (1, 3), axis=None), distinct, (2, 3)),
    ("take_along_axis", lambda x: np.take_along_axis(x, np.argsort(x, axis=1)[:, ::-1], 1), distinct, (3, 4)),
    ("take_along_axis-none", lambda x: np.take_along_axis(x, np.array([3, 0, 0, 5]), None), distinct, (2, 3)),
    ("median", lambda x: np.median(x), distinct, (3, 4)),
    ("median-odd-axis1", lambda x: np.median(x, axis=1), distinct, (2, 5)),
    ("median-keepdims", lambda x: np.median(x, axis=0, keepdims=True), distinct, (4, 3)),
    ("median-axes", lambda x: np.median(x, axis=(0, 2)), distinct, (2, 3, 3)),
    ("percentile", lambda x: np.percentile(x, 30), distinct, (3, 4)),
    ("percentile-list-axis", lambda x: np.percentile(x, [10, 50, 95], axis=0), distinct, (5, 3)),
    ("percentile-keepdims", lambda x: np.percentile(x, [20, 80], axis=1, keepdims=True), distinct, (2, 5)),
    ("quantile", lambda x: np.quantile(x, 0.75, axis=-1), distinct, (2, 3, 4)),
    ("ptp", lambda x: np.ptp(x), distinct, (3, 4)),
    ("ptp-axis", lambda x: np.ptp(x, axis=0, keepdims=True), distinct, (3, 4)),
    ("average", lambda x: np.average(x), uniform(-2, 2), (3, 4)),
    ("average-weights-1d", lambda x: np.average(x, axis=1, weights=np.arange(1.0, 5.0)), uniform(-2, 2), (3, 4)),
    ("average-weights-full", lambda x: np.average(x, weights=x * x + 1), uniform(-2, 2), (3, 4)),
    ("average-returned", lambda x: np.average(x, axis=0, weights=np.ones((3, 4)) * 2, returned=True)[0]
     * np.average(x, axis=0, weights=x * x + 1, returned=True)[1], uniform(-2, 2), (3, 4)),
    ("nansum", lambda x: np.nansum(x, axis=0), uniform(-2, 2), (3, 4)),
    ("nanmean", lambda x: np.nanmean(x, axis=1, keepdims=True), uniform(-2, 2), (3, 4)),
    ("nan_to_num", lambda x: np.nan_to_num(x * x), uniform(-2, 2), (3, 4)),
    ("select", lambda x: np.select([x > 0.5, x < -0.5], [x * x, 2 * x], np.sin(x)),
     uniform(-2, 2), (3, 4)),
    ("piecewise", lambda x: np.piecewise(x, [x < -0.5, x > 0.5], [lambda v: v ** 3, np.log]),
     uniform(-2, 2), (3, 4)),
    ("piecewise-otherwise", lambda x: np.piecewise(x, [x < -0.5, x > 0.5], [lambda v: v ** 3, 2.0, np.sin]),
     uniform(-2, 2), (3, 4)),
    ("piecewise-later-condition-wins", lambda x: np.piecewise(x, [x > -1, x > 0.5], [np.exp, lambda v: v * v]),
     uniform(-2, 2), (2, 5)),
    ("piecewise-one-condition", lambda x: np.piecewise(x, x > 0, [np.sqrt, lambda v: -v]), uniform(-2, 2), (6,)),
    ("piecewise-args", lambda x: np.piecewise(x, [x > 0], [lambda v, a, b=0: a * v ** 3 + b], 2.0, b=0.5),
     uniform(-2, 2), (2, 3)),
    ("piecewise-0d", lambda x: np.piecewise(x, [x > 0], [np.cos, np.sinh]), uniform(-2, 2), ()),
    ("piecewise-constants", lambda x: x * np.piecewise(x, [x > 0], [1.5, -1.0]), uniform(-2, 2), (4,)),
    ("real", lambda x: np.real(x) * x, uniform(-2, 2), (3,)),
    ("imag", lambda x: np.imag(x) + x, uniform(-2, 2), (3,)),
    ("polyval", lambda x: np.polyval([1.5, -2.0, 0.5, 3.0], x), uniform(-2, 2), (3, 4)),
    ("polyval-coefficients", lambda p: np.polyval(p, np.array([[0.5], [-1.0], [2.0]])), uniform(-2, 2), (4,)),
    ("polyval-both", lambda x: np.polyval(x[:3], x[3:]), uniform(-2, 2), (7,)),
    ("polyval-one", lambda x: np.polyval([2.5], x), uniform(-2, 2), (3,)),
]


def _weighted(fn, weights):
    def f(*xs):
        return np.sum(fn(*xs) * weights)
    return f


@pytest.mark.parametrize("name, fn, domain, shape", [pytest.param(*c, id=c[0]) for c in CASES])
def test_value_is_numpys(name, fn, domain, shape):
    x = np.array(domain(rng_for("statistics", name), shape), dtype=np.float64)
    got = fn(gm.constant(x))
    assert isinstance(got, gm.Tensor)
    np.testing.assert_allclose(got.numpy(), fn(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name, fn, domain, shape", [pytest.param(*c, id=c[0]) for c in CASES])
def test_gradient_matches_finite_differences(name, fn, domain, shape, order):
    x = np.array(domain(rng_for("statistics", name), shape), dtype=np.float64)
    weights = rng_for("weights", name).standard_normal(np.shape(fn(x)))
    report = gm.check_grad(_weighted(fn, weights), x, order=order)
    assert report, str(report)


# a NumPy array among the Tensors (indices, weights) is refused on another module (a host
# array meeting a device Tensor), so those cases run on NumPy only
HOST_CONSTANT = ("take_along_axis-none", "average-weights-1d", "average-returned", "polyval-coefficients")
MISSING = {"partition": "array_api_strict has no argpartition, which np.partition's order is"}


def _portable(module, case):
    missing = MISSING.get(case[0].split("-")[0]) if module == "array_api_strict" else None
    return pytest.param(module, *case, id=f"{module}-{case[0]}",
                        marks=[pytest.mark.skip(reason=missing)] if missing else module_marks(module))


@pytest.mark.parametrize("module, name, fn, domain, shape", [
    _portable(m, c) for m in ("array_api_strict", "cupy") for c in CASES if c[0] not in HOST_CONSTANT])
def test_runs_on_another_array_module_to_second_order(module, name, fn, domain, shape):
    x = np.array(domain(rng_for("statistics", name), shape), dtype=np.float64)
    assert_same_on_module(module, fn, [x], ("statistics", name))


def test_every_function_has_a_case():
    tested = {name.split("-")[0] for name, *_ in CASES}
    assert {f.__name__ for f in statistics.FUNCTIONS} <= tested


# -- hand-derived ------------------------------------------------------------------------
def _grad(fn, x):
    t = gm.constant(np.asarray(x, dtype=np.float64))
    with gm.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
    return tape.gradient(y, t).numpy()


def test_the_median_of_an_odd_count_sends_the_gradient_to_the_middle_element():
    np.testing.assert_array_equal(_grad(np.median, [3.0, 1.0, 2.0]), [0.0, 0.0, 1.0])


def test_the_median_of_an_even_count_splits_it_between_the_two_middle_elements():
    np.testing.assert_array_equal(_grad(np.median, [4.0, 1.0, 3.0, 2.0]), [0.0, 0.0, 0.5, 0.5])


def test_a_percentile_interpolates_between_its_neighbours():
    # positions 0.3 * 4 = 1.2: 0.8 of the second smallest and 0.2 of the third
    np.testing.assert_allclose(_grad(lambda t: np.percentile(t, 30), [5.0, 1.0, 4.0, 2.0, 3.0]),
                               [0.0, 0.0, 0.0, 0.8, 0.2])


def test_sort_sends_each_output_gradient_to_the_element_it_came_from():
    g = _grad(lambda t: np.sum(np.sort(t) * np.array([1.0, 10.0, 100.0])), [3.0, 1.0, 2.0])
    np.testing.assert_array_equal(g, [100.0, 1.0, 10.0])


def test_nansum_and_nanmean_give_nan_positions_no_gradient():
    x = [1.0, np.nan, 3.0]
    np.testing.assert_array_equal(_grad(np.nansum, x), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(_grad(np.nanmean, x), [0.5, 0.0, 0.5])


def test_nan_to_num_replaces_as_numpy_and_passes_the_gradient_where_finite():
    x = np.array([1.0, np.nan, np.inf, -np.inf], dtype=np.float32)
    got = np.nan_to_num(gm.constant(x), nan=-1.0)
    np.testing.assert_array_equal(got.numpy(), np.nan_to_num(x, nan=-1.0))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(_grad(lambda t: np.nan_to_num(t, posinf=9.0, neginf=-9.0), x),
                                  [1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("fn", [np.median, lambda t: np.percentile(t, 40), lambda t: np.quantile(t, 0.1)],
                         ids=["median", "percentile", "quantile"])
def test_a_nan_makes_the_order_statistic_nan_as_in_numpy(fn):
    x = np.array([[1.0, np.nan, 3.0], [1.0, 2.0, 3.0]])
    got = np.median(gm.constant(x), axis=1) if fn is np.median else fn(gm.constant(x[0]))
    want = np.median(x, axis=1) if fn is np.median else fn(x[0])
    np.testing.assert_array_equal(got.numpy(), want)


def test_piecewise_calls_each_function_on_its_elements_only():
    # log is never given the negative values, so neither a NaN nor a warning
    with np.errstate(all="raise"):
        g = _grad(lambda t: np.piecewise(t, [t > 0], [np.log, 0.0]), [-2.0, 0.5, 4.0])
    np.testing.assert_array_equal(g, [0.0, 2.0, 0.25])


def test_piecewise_tensor_constant_gets_the_gradient_of_its_elements():
    c = gm.constant(3.0, dtype=np.float64)
    x = np.array([-1.0, 2.0, -3.0])
    with gm.GradientTape() as tape:
        tape.watch(c)
        y = np.sum(np.piecewise(gm.constant(x), [x < 0], [c, lambda v: v]))
    assert float(tape.gradient(y, c)) == 2.0


@pytest.mark.parametrize("fn", [lambda t: np.sort(t), np.median, lambda t: np.percentile(t, [25, 75]),
                                lambda t: np.average(t, weights=np.ones(3, np.float32)), np.nanmean, np.ptp,
                                lambda t: np.piecewise(t, [t > 0], [lambda v: v * np.float64(2.0), 1.0])],
                         ids=["sort", "median", "percentile", "average", "nanmean", "ptp", "piecewise"])
def test_float32_stays_float32(fn):
    t = gm.constant(np.array([0.5, -1.5, 2.0], dtype=np.float32))
    with gm.GradientTape() as tape:
        tape.watch(t)
        y = fn(t)
    assert y.dtype == np.float32 and tape.gradient(y, t).dtype == np.float32


# -- what has no gradient says so -----------------------------------------------------------
def _percentile_of_a_watched_q(t):
    """``np.percentile(t, q)`` with a ``q`` that a tape follows (a constant ``q`` is fine)."""
    q = gm.constant(50.0)
    with gm.GradientTape() as tape:
        tape.watch(q)
        return np.percentile(t, q)


@pytest.mark.parametrize("call, match", [
    (lambda t: _percentile_of_a_watched_q(t), r"np.percentile\(q=...\): gradmagic differentiates with respect to a only"),
    (lambda t: np.quantile(t, 0.5, method="weibull"), r"np.quantile\(method='weibull'\): gradmagic has gradients for the "
                                                      r"methods 'linear', 'lower', 'higher', 'nearest', 'midpoint' only"),
    (lambda t: np.median(t, out=np.zeros(())), r"np.median\(out=...\)"),
    (lambda t: np.real(t.astype(np.complex128)), r"np.real of complex values"),
], ids=["percentile-q-tensor", "quantile-method", "median-out", "real-complex"])
def test_what_has_no_gradient_says_why(call, match):
    with pytest.raises(gm.NoGradientError, match=match):
        call(gm.constant(np.array([1.0, 2.0, 3.0])))


@pytest.mark.parametrize("call, match", [
    (lambda t: np.percentile(t, 120), r"np.percentile\(q=...\): expected quantiles in range"),
    (lambda t: np.average(t, axis=0, weights=np.ones(2)), r"np.average\(weights=...\): expected weights of shape"),
    (lambda t: np.select([t > 0], [t, t]), r"np.select: expected as many choices as conditions"),
    (lambda t: np.piecewise(t, [t > 0], [1.0, 2.0, 3.0]),
     r"np.piecewise\(funclist=...\): with 1 condition\(s\), expected 1 or 2 functions, got 3"),
    (lambda t: np.piecewise(t, [t > 0], [lambda v: v[:1] * np.ones(2)]),
     r"np.piecewise\(funclist\[0\]=...\): expected a number, or one per element selected \(3\)"),
    (lambda t: np.piecewise(t, [t > 0], ["a"]), r"np.piecewise\(funclist\[0\]=...\): expected a number"),
    (lambda t: np.piecewise(t, [[True, False]], [1.0]),
     r"np.piecewise\(condlist=...\): expected conditions of x's shape \(3,\), got one of shape \(2,\)"),
], ids=["percentile-range", "average-weights-shape", "select-counts", "piecewise-counts",
        "piecewise-piece-shape", "piecewise-piece-kind", "piecewise-condition-shape"])
def test_bad_arguments_name_the_function_and_what_was_expected(call, match):
    with pytest.raises(gm.GradmagicError, match=match):
        call(gm.constant(np.array([1.0, 2.0, 3.0])))


@pytest.mark.parametrize("fn", [lambda x: np.var(x, ddof=1), lambda x: np.std(x, ddof=1)],
                         ids=["var", "std"])
def test_variance_with_no_degrees_of_freedom_is_nan_not_an_error(fn):
    # one element with ddof=1: NumPy's value is NaN (with its warning), and so is the
    # gradient; it was a ZeroDivisionError inside the rule
    x = gm.constant(np.array([1.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            y = fn(x)
    assert np.isnan(y.numpy())
    assert np.isnan(tape.gradient(y, x).numpy()).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_polyval_differentiates_as_its_derivative_polynomial(dtype):
    p, x = np.array([1.5, -2.0, 0.5, 3.0], dtype), np.array([[-1.0, 0.5], [2.0, 0.0]], dtype)
    pt, xt = gm.constant(p), gm.constant(x)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([pt, xt])
        y = np.polyval(pt, xt)
        s = np.sum(y)
    assert y.dtype == dtype and y.shape == (2, 2)
    np.testing.assert_allclose(y.numpy(), np.polyval(p, x), rtol=1e-6)
    # d/dx: 4.5 x^2 - 4 x + 0.5; d/dp_k: the sum of x^(3 - k)
    np.testing.assert_allclose(tape.gradient(s, xt).numpy(), 4.5 * x * x - 4 * x + 0.5, rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(s, pt).numpy(), [np.sum(x ** k) for k in (3, 2, 1, 0)],
                               rtol=1e-6)
    with pytest.raises(gm.NoGradientError, match="np.polyval of a np.poly1d"):
        np.polyval(np.poly1d(p), xt)
