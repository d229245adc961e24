"""NumPy's NaN-reductions, cov and corrcoef, signals (interp, convolve, correlate,
trapezoid, ediff1d), the elementwise heaviside, fix, float_power, fmax, fmin and copysign,
NumPy 2's and the array API's spellings, and np.linalg.lstsq on Tensors
(gradmagic/core/nanfunctions.py, statistics.py, signal.py, special.py, aliases.py,
lstsq.py): NumPy's values and dtypes, gradients against central finite differences to
second order, on another array module, and the conventions derived by hand."""

import warnings

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import aliases, dispatch, lstsq, nanfunctions, signal, special, statistics

from _cases import assert_same_on_module, assert_weighted_gradient, module_marks, distinct, rng_for


def u(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def nans(*shape, at=((0, 1), (2, 3), (1, 0))):
    """Uniform values with NaN at ``at``: no slice of a (3, 4) array is all NaN."""
    def make(rng):
        x = rng.uniform(-2, 2, shape)
        for i in at:
            x[i] = np.nan
        return x
    return make


def spread(*shape):
    """Distinct values in random order (order statistics are smooth there), with NaNs."""
    def make(rng):
        x = distinct(rng, shape)
        x[0, 1] = x[2, 3] = x[1, 0] = np.nan
        return x
    return make


def nodes(rng):
    return np.cumsum(rng.uniform(0.5, 1.0, 5)) - 1.0


def away_from(points, lo, hi, n):
    """``n`` points in [lo, hi], none within 0.05 of ``points`` (interp's kinks)."""
    def make(rng):
        x = rng.uniform(lo, hi, n)
        for p in points:
            x = np.where(np.abs(x - p) < 0.05, x + 0.1, x)
        return x
    return make


XP = np.array([-1.0, 0.0, 0.7, 2.0])
FP = np.array([1.0, -0.5, 2.0, 1.5])
W = np.array([1.0, 2.0, 1.0, 3.0, 1.0])
AW = np.array([0.5, 1.0, 2.0, 1.5, 1.0])
H = np.array([[1.5, -0.5], [0.5, 2.0], [-1.0, 0.5]])  # a host constant for the products

# name, function, one maker per argument; each argument is a Tensor in the checks
CASES = [
    ("nanmax", lambda x: np.nanmax(x, axis=1), [spread(3, 4)]),
    ("nanmax-all", lambda x: np.nanmax(x), [spread(3, 4)]),
    ("nanmax-keepdims", lambda x: np.nanmax(x, axis=0, keepdims=True), [spread(3, 4)]),
    ("nanmin", lambda x: np.nanmin(x, axis=(0, 1)), [spread(3, 4)]),
    ("nanmin-no-nan", lambda x: np.nanmin(x, axis=0), [lambda rng: distinct(rng, (3, 4))]),
    ("nanprod", lambda x: np.nanprod(x, axis=1), [nans(3, 4)]),
    ("nanprod-keepdims", lambda x: np.nanprod(x, axis=0, keepdims=True), [nans(3, 4)]),
    ("nanvar", lambda x: np.nanvar(x, axis=1), [nans(3, 4)]),
    ("nanvar-ddof", lambda x: np.nanvar(x, axis=0, ddof=1, keepdims=True), [nans(4, 4, at=((0, 1), (2, 3)))]),
    ("nanvar-correction", lambda x: np.nanvar(x, correction=1), [nans(3, 4)]),
    ("nanvar-mean", lambda x: np.nanvar(x, axis=1, mean=np.nanmean(x, axis=1, keepdims=True) * 0.5, keepdims=True),
     [nans(3, 4)]),
    ("nanvar-no-nan", lambda x: np.nanvar(x, axis=0, ddof=1), [u(-2, 2, 3, 4)]),
    ("nanstd", lambda x: np.nanstd(x, axis=1, ddof=1), [nans(3, 4)]),
    ("nanstd-no-nan", lambda x: np.nanstd(x), [u(-2, 2, 3, 4)]),
    ("nancumsum", lambda x: np.nancumsum(x, axis=1), [nans(3, 4)]),
    ("nancumsum-flat", lambda x: np.nancumsum(x), [nans(3, 4)]),
    ("nancumprod", lambda x: np.nancumprod(x, axis=0), [nans(3, 4)]),
    ("nanmedian", lambda x: np.nanmedian(x, axis=1), [spread(3, 4)]),
    ("nanmedian-all", lambda x: np.nanmedian(x), [spread(3, 4)]),
    ("nanmedian-keepdims", lambda x: np.nanmedian(x, axis=0, keepdims=True), [spread(3, 4)]),
    ("nanmedian-no-nan", lambda x: np.nanmedian(x, axis=0), [lambda rng: distinct(rng, (3, 4))]),
    ("nanpercentile", lambda x: np.nanpercentile(x, [10, 50, 95], axis=1), [spread(3, 4)]),
    ("nanquantile", lambda x: np.nanquantile(x, 0.3, axis=0), [spread(3, 4)]),
    ("nanquantile-axes", lambda x: np.nanquantile(x, [0.25, 0.8], axis=(0, 1), keepdims=True), [spread(3, 4)]),
    ("cov", lambda m: np.cov(m), [u(-2, 2, 3, 5)]),
    ("cov-rowvar", lambda m: np.cov(m, rowvar=False, bias=True), [u(-2, 2, 5, 3)]),
    ("cov-y", lambda m, y: np.cov(m, y, ddof=0), [u(-2, 2, 2, 5), u(-2, 2, 5)]),
    ("cov-1d", lambda m: np.cov(m), [u(-2, 2, 6)]),
    ("cov-weights", lambda m: np.cov(m, fweights=W.astype(int), aweights=AW), [u(-2, 2, 3, 5)]),
    ("cov-fweights-ddof", lambda m: np.cov(m, fweights=W, ddof=2), [u(-2, 2, 3, 5)]),
    ("corrcoef", lambda x: np.corrcoef(x), [u(-2, 2, 3, 5)]),
    ("corrcoef-y", lambda x, y: np.corrcoef(x, y, rowvar=False), [u(-2, 2, 5, 2), u(-2, 2, 5, 2)]),
    ("interp", lambda x: np.interp(x, XP, FP), [away_from(XP, -2, 3, 12)]),
    ("interp-left-right", lambda x: np.interp(x, XP, FP, left=-3.0, right=4.0), [away_from(XP, -2, 3, 12)]),
    ("interp-all-three", lambda x, xp, fp: np.interp(x, xp, fp), [away_from([], 0.1, 2.5, 7), nodes, u(-1, 1, 5)]),
    ("interp-2d-x", lambda fp: np.interp(np.array([[-0.5, 0.3], [1.2, 5.0]]), XP, fp), [u(-1, 1, 4)]),
    ("interp-period", lambda x, fp: np.interp(x, np.array([0.2, 1.0, 2.5, 3.1]), fp, period=3.5),
     [away_from([0.2, 1.0, 2.5, 3.1, 3.5, 4.2], -1.0, 6.0, 9), u(-1, 1, 4)]),
    ("convolve", lambda a, v: np.convolve(a, v), [u(-1, 1, 6), u(-1, 1, 3)]),
    ("convolve-same", lambda a, v: np.convolve(a, v, mode="same"), [u(-1, 1, 6), u(-1, 1, 4)]),
    ("convolve-valid-swapped", lambda a, v: np.convolve(a, v, "valid"), [u(-1, 1, 3), u(-1, 1, 7)]),
    ("convolve-same-swapped", lambda a, v: np.convolve(a, v, "same"), [u(-1, 1, 2), u(-1, 1, 5)]),
    ("correlate", lambda a, v: np.correlate(a, v), [u(-1, 1, 6), u(-1, 1, 3)]),
    ("correlate-full", lambda a, v: np.correlate(a, v, "full"), [u(-1, 1, 5), u(-1, 1, 3)]),
    ("correlate-same", lambda a, v: np.correlate(a, v, mode="same"), [u(-1, 1, 6), u(-1, 1, 4)]),
    ("correlate-same-swapped", lambda a, v: np.correlate(a, v, mode="same"), [u(-1, 1, 3), u(-1, 1, 6)]),
    ("correlate-full-swapped", lambda a, v: np.correlate(a, v, mode="full"), [u(-1, 1, 2), u(-1, 1, 5)]),
    ("correlate-valid-swapped", lambda a, v: np.correlate(a, v), [u(-1, 1, 2), u(-1, 1, 5)]),
    ("trapezoid", lambda y: np.trapezoid(y), [u(-2, 2, 3, 5)]),
    ("trapezoid-dx-axis", lambda y: np.trapezoid(y, dx=0.5, axis=0), [u(-2, 2, 3, 5)]),
    ("trapezoid-x", lambda y, x: np.trapezoid(y, x), [u(-2, 2, 3, 5), u(-2, 2, 5)]),
    ("trapezoid-x-full", lambda y, x: np.trapezoid(y, x, axis=0), [u(-2, 2, 4, 3), u(-2, 2, 4, 3)]),
    ("ediff1d", lambda a: np.ediff1d(a), [u(-2, 2, 2, 3)]),
    ("ediff1d-ends", lambda a, b: np.ediff1d(a, to_end=b, to_begin=[0.5, -1.0]), [u(-2, 2, 4), u(-2, 2, 2)]),
    ("heaviside", lambda x1, x2: np.heaviside(x1, x2) * x1 + x2, [u(0.2, 2, 3, 4), u(-1, 1, 4)]),
    ("fix", lambda x: np.fix(x) * x, [lambda rng: rng.integers(-4, 4, (3, 4)) + rng.uniform(0.1, 0.9, (3, 4))]),
    ("float_power", lambda x1, x2: np.float_power(x1, x2), [u(0.3, 2, 3, 4), u(-2, 2, 4)]),
    ("float_power-number", lambda x: np.float_power(x, 3), [u(-2, 2, 2, 3)]),
    ("fmax", lambda x1, x2: np.fmax(x1, x2), [nans(3, 4), nans(3, 4, at=((0, 0), (1, 1)))]),
    ("fmin", lambda x1, x2: np.fmin(x1, x2), [nans(3, 4), nans(4, at=((2,),))]),
    ("copysign", lambda x1, x2: np.copysign(x1, x2), [u(0.2, 2, 3, 4), u(-2, 2, 4)]),
    ("copysign-negative", lambda x1, x2: np.copysign(x1, x2) * x2, [u(-2, -0.2, 3, 4), u(-2, 2, 3, 4)]),
    ("cumulative_sum", lambda x: np.cumulative_sum(x, axis=1), [u(-2, 2, 3, 4)]),
    ("cumulative_sum-initial", lambda x: np.cumulative_sum(x, include_initial=True), [u(-2, 2, 5)]),
    ("cumulative_prod", lambda x: np.cumulative_prod(x, axis=0, include_initial=True), [u(-2, 2, 3, 4)]),
    ("vecdot", lambda a, b: np.vecdot(a, b), [u(-2, 2, 3, 4), u(-2, 2, 4)]),
    ("vecdot-axis", lambda a, b: np.vecdot(a, b, axis=0, keepdims=True), [u(-2, 2, 3, 4), u(-2, 2, 3, 1)]),
    ("vecdot-axes", lambda a, b: np.vecdot(a, b, axes=[(0,), (1,), (0,)], keepdims=True),
     [u(-2, 2, 3, 2, 4), u(-2, 2, 4, 3)]),
    ("matvec", lambda a, v: np.matvec(a, v), [u(-2, 2, 2, 3, 4), u(-2, 2, 4)]),
    ("matvec-axes", lambda a, v: np.matvec(a, v, axes=[(0, 1), (0,), (0,)]), [u(-2, 2, 3, 4, 2), u(-2, 2, 4, 2)]),
    ("vecmat", lambda v, a: np.vecmat(v, a), [u(-2, 2, 3), u(-2, 2, 2, 3, 4)]),
    ("matrix_norm", lambda x: np.linalg.matrix_norm(x), [u(-2, 2, 2, 3, 4)]),
    ("matrix_norm-nuc-keepdims", lambda x: np.linalg.matrix_norm(x, ord="nuc", keepdims=True), [u(-2, 2, 3, 4)]),
    ("vector_norm", lambda x: np.linalg.vector_norm(x), [u(-2, 2, 3, 4)]),
    ("vector_norm-axes", lambda x: np.linalg.vector_norm(x, axis=(2, 0), keepdims=True, ord=3), [u(-2, 2, 2, 3, 4)]),
    ("vector_norm-axis", lambda x: np.linalg.vector_norm(x, axis=-1, ord=1), [u(0.2, 2, 3, 4)]),
    ("cross", lambda a, b: np.linalg.cross(a, b), [u(-2, 2, 4, 3), u(-2, 2, 3)]),
    ("cross-axis", lambda a, b: np.linalg.cross(a, b, axis=0), [u(-2, 2, 3, 2), u(-2, 2, 3, 2)]),
    ("outer", lambda a, b: np.linalg.outer(a, b), [u(-2, 2, 3), u(-2, 2, 4)]),
    ("diagonal", lambda x: np.linalg.diagonal(x, offset=1), [u(-2, 2, 2, 3, 4)]),
    ("trace", lambda x: np.linalg.trace(x, offset=-1), [u(-2, 2, 2, 4, 3)]),
    ("matmul", lambda a, b: np.linalg.matmul(a, b), [u(-2, 2, 2, 3, 4), u(-2, 2, 4, 2)]),
    ("tensordot", lambda a, b: np.linalg.tensordot(a, b, axes=([1, 0], [0, 2])), [u(-2, 2, 3, 4), u(-2, 2, 4, 2, 3)]),
    ("linalg-vecdot", lambda a, b: np.linalg.vecdot(a, b, axis=0), [u(-2, 2, 3, 4), u(-2, 2, 3, 4)]),
    ("lstsq-tall", lambda a, b: np.linalg.lstsq(a, b)[0], [u(-2, 2, 5, 3), u(-2, 2, 5)]),
    ("lstsq-tall-matrix", lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], [u(-2, 2, 6, 3), u(-2, 2, 6, 2)]),
    ("lstsq-wide", lambda a, b: np.linalg.lstsq(a, b)[0], [u(-2, 2, 2, 4), u(-2, 2, 2)]),
    ("lstsq-square", lambda a: np.linalg.lstsq(a + 3 * np.eye(3), H)[0], [u(-1, 1, 3, 3)]),
    ("lstsq-residuals", lambda a, b: np.linalg.lstsq(a, b)[1], [u(-2, 2, 5, 3), u(-2, 2, 5)]),
    ("lstsq-residuals-matrix", lambda a, b: np.linalg.lstsq(a, b)[1], [u(-2, 2, 6, 3), u(-2, 2, 6, 2)]),
    ("lstsq-singular-values", lambda a: np.linalg.lstsq(a, np.ones(5))[3], [u(-2, 2, 5, 3)]),
    ("lstsq-singular-values-wide", lambda a, b: np.linalg.lstsq(a, b)[3], [u(-2, 2, 2, 4), u(-2, 2, 2)]),
]
IDS = [c[0] for c in CASES]


def _inputs(name, makers, dtype=np.float64):
    rng = rng_for("numpy-more", name)
    return [np.asarray(m(rng), dtype=dtype) for m in makers]


def _quiet(f, *xs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no case warns: NumPy's warnings are their own tests
        return f(*xs)


@pytest.mark.parametrize("name, fn, makers", CASES, ids=IDS)
def test_value_and_dtype_are_numpys(name, fn, makers):
    arrays = _inputs(name, makers)
    want = _quiet(fn, *arrays)
    got = _quiet(fn, *[gm.constant(a) for a in arrays])
    assert isinstance(got, gm.Tensor)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name, fn, makers", CASES, ids=IDS)
def test_gradient_matches_finite_differences(name, fn, makers, order):
    assert_weighted_gradient(fn, _inputs(name, makers), name, order)


FLOAT32 = ["nanmax", "nanvar", "nanstd", "nancumsum", "nanmedian", "cov", "corrcoef", "interp-all-three",
           "convolve", "correlate-same", "trapezoid-x", "ediff1d", "heaviside", "fix", "float_power", "fmax",
           "copysign", "cumulative_sum", "vecdot-axis", "matvec", "vector_norm-axes", "lstsq-tall",
           "lstsq-residuals", "lstsq-singular-values"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_gives_numpys_dtype_and_a_gradient_of_each_inputs_dtype(name):
    _, fn, makers = CASES[IDS.index(name)]
    arrays = _inputs(name, makers, np.float32)
    want = _quiet(fn, *arrays)
    ts = [gm.constant(a) for a in arrays]
    with gm.GradientTape() as tape:
        tape.watch(ts)
        got = _quiet(fn, *ts)
        y = np.sum(got)
    assert got.dtype == np.asarray(want).dtype  # cov, interp, float_power: float64, as NumPy
    np.testing.assert_allclose(got.numpy(), want, rtol=3e-6 if got.dtype == np.float32 else 1e-12, atol=1e-6)
    for g, t in zip(tape.gradient(y, ts), ts):
        assert g.dtype == np.float32 and g.shape == t.shape


# host constants (XP, FP, W, H, the q of a percentile are NumPy's everywhere) are refused
# beside another module's Tensors: the cases that have none
PORTABLE = ["nanmax", "nanmin-no-nan", "nanprod", "nanvar-ddof", "nanstd", "nancumsum", "nancumprod",
            "nanmedian", "nanquantile", "cov", "cov-y", "corrcoef", "interp-all-three", "convolve-same",
            "correlate-same-swapped", "trapezoid-x", "ediff1d", "heaviside", "fix", "float_power", "fmax",
            "fmin", "copysign", "cumulative_prod", "vecdot-axes", "matvec", "vecmat", "vector_norm-axes",
            "cross", "linalg-vecdot", "lstsq-tall", "lstsq-wide", "lstsq-singular-values-wide"]


@pytest.mark.parametrize("module, name", [pytest.param(m, n, id=f"{m}-{n}", marks=module_marks(m))
                                          for m in ("array_api_strict", "cupy") for n in PORTABLE])
def test_runs_on_another_array_module_to_second_order(module, name):
    _, fn, makers = CASES[IDS.index(name)]
    assert_same_on_module(module, fn, _inputs(name, makers), ("numpy-more", name))


def test_every_function_is_dispatched_and_has_a_case():
    tables = [nanfunctions.FUNCTIONS, statistics.COVARIANCE, signal.FUNCTIONS, aliases.FUNCTIONS,
              lstsq.FUNCTIONS]
    for table in tables:
        assert all(dispatch.FUNCTIONS[f] is impl for f, impl in table.items())
    for table in (special.UFUNC_FUNCTIONS, aliases.UFUNC_FUNCTIONS):
        assert all(dispatch.UFUNC_FUNCTIONS[f] is impl for f, impl in table.items())
    assert all(dispatch.UFUNCS[f] is prim for f, prim in special.UFUNCS.items())
    names = {f.__name__ for t in tables + [special.UFUNC_FUNCTIONS, aliases.UFUNC_FUNCTIONS, special.UFUNCS]
             for f in t}
    tested = {n.removeprefix("linalg-").split("-")[0] for n in IDS} | {"vecdot"}
    tested |= {"gradient", "unwrap"}  # signal.py's, in tests/test_numpy_assembled.py
    assert names <= tested, names - tested


# -- the conventions, by hand ----------------------------------------------------------------
def grad(fn, *xs):
    ts = [gm.constant(np.asarray(x, dtype=np.float64)) for x in xs]
    with gm.GradientTape() as tape:
        tape.watch(ts)
        y = fn(*ts)
    out = tape.gradient(y, ts)
    return [g.numpy() for g in out] if len(ts) > 1 else out[0].numpy()


NAN = np.nan


@pytest.mark.parametrize("fn, want", [
    (np.nanmax, [0, 0, 1, 0]), (np.nanmin, [1, 0, 0, 0]), (np.nanprod, [3, 0, 1, 0]),
    (np.nansum, [1, 0, 1, 0]), (np.nancumsum, [4, 0, 2, 0]), (np.nanmedian, [0.5, 0, 0.5, 0]),
    (lambda t: np.nanpercentile(t, 25), [0.75, 0, 0.25, 0]),
    (np.nanvar, [-2 / 2, 0, 2 / 2, 0]),  # 2 (x - mean) / n: mean 2, n 2
], ids=["nanmax", "nanmin", "nanprod", "nansum", "nancumsum", "nanmedian", "nanpercentile", "nanvar"])
def test_a_nan_gets_no_gradient(fn, want):
    g = grad(lambda t: np.sum(fn(t)), [1.0, NAN, 3.0, NAN])
    np.testing.assert_allclose(g, want)


def test_a_tie_of_nanmax_shares_the_gradient_as_max():
    np.testing.assert_array_equal(grad(np.nanmax, [2.0, NAN, 2.0, 1.0]), [0.5, 0, 0.5, 0])


@pytest.mark.parametrize("fn", [np.nanmax, np.nanmin, np.nanmedian, lambda t: np.nanquantile(t, 0.2, axis=1)],
                         ids=["nanmax", "nanmin", "nanmedian", "nanquantile"])
def test_an_all_nan_slice_is_nan_with_numpys_warning_and_no_gradient(fn):
    x = np.array([[NAN, NAN], [1.0, 2.0]])
    f = (lambda t: fn(t, axis=1)) if fn in (np.nanmax, np.nanmin, np.nanmedian) else fn
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        want = f(x)
    t = gm.constant(x)
    with gm.GradientTape() as tape:
        tape.watch(t)
        with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
            got = f(t)
        y = np.nansum(got)
    np.testing.assert_array_equal(got.numpy(), want)
    g = tape.gradient(y, t).numpy()
    assert np.all(g[0] == 0) and np.all(np.isfinite(g))


def test_nanvar_with_too_few_numbers_is_nan_with_numpys_warning():
    x = np.array([[1.0, NAN, NAN], [1.0, 2.0, 4.0]])
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        want = np.nanvar(x, axis=1, ddof=1)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = np.nanvar(gm.constant(x), axis=1, ddof=1)
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("x1, x2, g1, g2", [
    (1.0, 1.0, 1.0, 0.0),  # a tie: to x1, as np.maximum's rule here
    (NAN, 2.0, 0.0, 1.0),  # to the operand that is not NaN
    (3.0, NAN, 1.0, 0.0),
    (NAN, NAN, 1.0, 0.0),  # both NaN: x1, NaN out
    (1.0, 2.0, 0.0, 1.0),
])
def test_fmax_sends_the_gradient_to_the_number_chosen_and_a_tie_to_x1(x1, x2, g1, g2):
    assert grad(np.fmax, x1, x2) == [g1, g2]
    assert grad(np.maximum, 1.0, 1.0) == [1.0, 0.0]  # the rule fmax's agrees with at a tie
    small = {(1.0, 2.0): (1.0, 0.0)}.get((x1, x2), (g1, g2))  # fmin: the smaller, else as fmax
    assert grad(np.fmin, x1, x2) == list(small)


def test_heaviside_is_flat_in_x1_and_is_x2_where_x1_is_0():
    g1, g2 = grad(lambda a, b: np.sum(np.heaviside(a, b)), [-1.0, 0.0, 2.0, NAN], [0.5, 0.5, 0.5, 0.5])
    np.testing.assert_array_equal(g1, [0, 0, 0, 0])
    np.testing.assert_array_equal(g2, [0, 1, 0, 0])


def test_fix_is_flat_and_keeps_numpys_dtype():
    np.testing.assert_array_equal(grad(lambda t: np.sum(np.fix(t)), [-2.5, -0.5, 0.0, 1.5]), [0, 0, 0, 0])
    got = np.fix(gm.constant(np.array([-3, 2])))
    assert got.dtype == np.fix(np.array([-3, 2])).dtype


def test_copysign_differentiates_abs_x1_times_the_sign_of_x2():
    g1, g2 = grad(lambda a, b: np.sum(np.copysign(a, b)), [2.0, -2.0, 0.0, 1.0], [-1.0, -1.0, 3.0, -0.0])
    np.testing.assert_array_equal(g1, [-1, 1, 0, -1])  # -0.0's sign bit counts
    np.testing.assert_array_equal(g2, [0, 0, 0, 0])


def test_interp_on_a_node_takes_the_slope_to_its_right_and_the_last_node_the_one_to_its_left():
    g = grad(lambda t: np.sum(np.interp(t, XP, FP)), [0.0, 0.7, 2.0, -5.0, 9.0])
    # slopes: (-1, 0): -1.5; (0, 0.7): 2.5/0.7; (0.7, 2): -0.5/1.3; flat outside
    np.testing.assert_allclose(g, [2.5 / 0.7, -0.5 / 1.3, -0.5 / 1.3, 0, 0])
    assert float(np.interp(gm.constant(2.0), XP, FP)) == 1.5
    assert np.isnan(np.interp(gm.constant(np.array([NAN])), XP, FP).numpy()[0])


def test_float_power_is_float64_as_numpys():
    got = np.float_power(gm.constant(np.float32([2.0])), np.int32(3))
    assert got.dtype == np.float64 and got.numpy()[0] == 8.0


def test_lstsq_returns_numpys_four_values_and_refuses_a_gradient_in_a_rank_deficient_a():
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    b = np.array([1.0, 0.0, 2.0])
    want = np.linalg.lstsq(a, b)
    ta, tb = gm.constant(a), gm.constant(b)
    with gm.GradientTape() as tape:
        tape.watch(tb)  # a a constant: b's gradient is there
        got = np.linalg.lstsq(a, tb)
        y = np.sum(got[0])
    np.testing.assert_array_equal(got[0].numpy(), want[0])
    np.testing.assert_array_equal(got[1].numpy(), want[1])
    assert got[2] == want[2] == 1
    np.testing.assert_array_equal(got[3].numpy(), want[3])
    np.testing.assert_allclose(tape.gradient(y, tb).numpy(), np.linalg.pinv(a).T @ np.ones(2))
    with gm.GradientTape() as tape:
        tape.watch(ta)
        y = np.sum(np.linalg.lstsq(ta, b)[0])
    with pytest.raises(gm.GradmagicError, match="rank-deficient"):
        tape.gradient(y, ta)


def test_lstsq_residuals_and_singular_values_have_their_closed_forms():
    # r = |a x - b|^2 at the solution: dr/da = 2 (a x - b) x^T, dr/db = -2 (a x - b);
    # s from a's svd: ds_k/da = u_k v_k^T
    rng = rng_for("lstsq-residuals-closed-form")
    a, b = rng.uniform(-2, 2, (5, 3)), rng.uniform(-2, 2, 5)
    x = np.linalg.lstsq(a, b)[0]
    np.testing.assert_allclose(grad(lambda t: np.linalg.lstsq(t, b)[1][0], a), 2 * np.outer(a @ x - b, x),
                               rtol=1e-10)
    np.testing.assert_allclose(grad(lambda t: np.linalg.lstsq(a, t)[1][0], b), -2 * (a @ x - b), rtol=1e-10)
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(grad(lambda t: np.linalg.lstsq(t, b)[3][0], a), np.outer(u[:, 0], vh[0]),
                               rtol=1e-10)


def test_lstsq_tall_gradient_in_a_has_the_residual_term():
    # x = (a^T a)^-1 a^T b: d/da of sum(x) by the closed form, r = b - a x
    rng = rng_for("lstsq-closed-form")
    a, b = rng.uniform(-2, 2, (5, 2)), rng.uniform(-2, 2, 5)
    x = np.linalg.lstsq(a, b)[0]
    inv = np.linalg.inv(a.T @ a)
    want = np.outer(b - a @ x, inv @ np.ones(2)) - a @ np.outer(inv @ np.ones(2), x)
    np.testing.assert_allclose(grad(lambda t: np.sum(np.linalg.lstsq(t, b)[0]), a), want, rtol=1e-10)


# -- what has no gradient, or is malformed, says so --------------------------------------------
@pytest.mark.parametrize("call, error, match", [
    (lambda t: np.nanmax(t, initial=0.0), gm.NoGradientError, r"np.nanmax\(initial=...\)"),
    (lambda t: np.nanvar(t, where=np.ones(3, bool)), gm.NoGradientError, r"np.nanvar\(where=...\)"),
    (lambda t: np.nanquantile(t, 0.5, method="weibull"), gm.NoGradientError, r"method='weibull'"),
    (lambda t: np.nanpercentile(t, t[0] * 50), gm.NoGradientError, r"np.nanpercentile\(q=...\)"),
    (lambda t: np.fix(t, out=np.zeros(3)), gm.NoGradientError, r"np.fix\(out=...\)"),
    (lambda t: np.float_power(t, 2.0, out=np.zeros(3)), gm.NoGradientError, r"np.float_power\(out=...\)"),
    (lambda t: np.vecdot(t, t, out=np.zeros(())), gm.NoGradientError, r"np.vecdot\(out=...\)"),
    (lambda t: np.vecdot(t, t[:1]), ValueError, r"mismatch in its core dimension"),
    (lambda t: np.cov(t, aweights=t), gm.NoGradientError, r"np.cov\(aweights=...\)"),
    (lambda t: np.correlate(t, t, mode="wide"), ValueError, r"mode must be one of"),
    (lambda t: np.convolve(t, t[:0]), ValueError, r"v cannot be empty"),
    (lambda t: np.cumulative_sum(np.stack([t, t])), ValueError, r"``axis`` argument is required"),
    (lambda t: np.linalg.cross(t[:2], t[:2]), ValueError, r"3-dimensional vectors"),
    (lambda t: np.linalg.outer(np.stack([t, t]), t), ValueError, r"one-dimensional"),
    (lambda t: np.matvec(np.outer(t, t), t, keepdims=True), TypeError, r"keepdims"),
], ids=["nanmax-initial", "nanvar-where", "nanquantile-method", "nanpercentile-q", "fix-out",
        "float_power-out", "vecdot-out", "vecdot-core", "cov-tensor-weights", "correlate-mode",
        "convolve-empty", "cumulative_sum-axis", "cross-2", "outer-2d", "matvec-keepdims"])
def test_what_is_refused_says_why(call, error, match):
    t = gm.constant(np.array([1.0, 2.0, 3.0]))
    with gm.GradientTape() as tape:
        tape.watch(t)
        with pytest.raises(error, match=match):
            call(t)


@pytest.mark.parametrize("name", ["nanvar", "nanmedian", "cov", "interp-all-three", "correlate-same-swapped",
                                  "fmax", "heaviside", "copysign", "float_power", "vecdot-axes", "lstsq-tall",
                                  "lstsq-wide"])
def test_forward_mode_agrees_with_reverse_mode(name):
    _, fn, makers = CASES[IDS.index(name)]
    arrays = _inputs(name, makers)
    rng = rng_for("tangents", name)
    tangents = [np.where(np.isnan(a), 0.0, rng.standard_normal(a.shape)) for a in arrays]
    weights = rng.standard_normal(np.shape(fn(*arrays)))
    _, jt = gm.jvp(lambda *xs: np.sum(fn(*xs) * weights), tuple(arrays), tuple(tangents))
    grads = grad(lambda *xs: np.sum(fn(*xs) * weights), *arrays)
    grads = grads if len(arrays) > 1 else [grads]
    want = sum(float(np.nansum(g * t)) for g, t in zip(grads, tangents))
    np.testing.assert_allclose(float(np.asarray(getattr(jt, "value", jt))), want, rtol=1e-10, atol=1e-12)
