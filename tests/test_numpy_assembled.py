"""NumPy's finite differences, phase unwrapping, polynomials and assembled arrays on Tensors
(gradmagic/core/signal.py's gradient and unwrap, polynomials.py, assembly.py): NumPy's
values (to the last bit, but for the singular values' rounding in cond) and dtypes,
gradients against central finite differences to second order, float32, another array
module, and the conventions derived by hand."""

import warnings

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import assembly, dispatch, polynomials

from _cases import assert_same_on_module, assert_weighted_gradient, module_marks, rng_for


def u(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def coordinates(n):
    """``n`` increasing, unevenly spaced points."""
    return lambda rng: np.cumsum(rng.uniform(0.5, 1.5, n))


def phases(rng):
    """A phase that wraps: steps of about 2.5, some beyond pi."""
    return np.cumsum(rng.uniform(1.0, 4.0, 7))


SWV = np.lib.stride_tricks.sliding_window_view

# name, function (one array out), one maker per argument; each argument a Tensor in the checks
CASES = [
    ("gradient", lambda f: np.gradient(f), [u(-2, 2, 6)]),
    ("gradient-spacing", lambda f: np.gradient(f, 0.3), [u(-2, 2, 6)]),
    ("gradient-2d", lambda f: np.stack(np.gradient(f)), [u(-2, 2, 4, 5)]),
    ("gradient-axis-edge2", lambda f: np.gradient(f, axis=1, edge_order=2), [u(-2, 2, 4, 5)]),
    ("gradient-coordinates", lambda f, x: np.gradient(f, x), [u(-2, 2, 6), coordinates(6)]),
    ("gradient-coordinates-edge2", lambda f, x: np.gradient(f, x, edge_order=2), [u(-2, 2, 6), coordinates(6)]),
    ("gradient-coordinates-2d", lambda f, x: np.stack(np.gradient(f, x, 0.5)), [u(-2, 2, 5, 4), coordinates(5)]),
    ("gradient-scalar-spacing", lambda f, d: np.gradient(f, d, edge_order=2), [u(-2, 2, 6), u(0.2, 0.5)]),
    ("unwrap", lambda p: np.unwrap(p), [phases]),
    ("unwrap-period", lambda p: np.unwrap(p, period=5.0, discont=3.0), [phases]),
    ("vander", lambda x: np.vander(x), [u(-2, 2, 4)]),
    ("vander-increasing", lambda x: np.vander(x, 5, increasing=True), [u(-2, 2, 3)]),
    ("polyadd", np.polyadd, [u(-2, 2, 4), u(-2, 2, 2)]),
    ("polysub", np.polysub, [u(-2, 2, 2), u(-2, 2, 4)]),
    ("polymul", np.polymul, [u(-2, 2, 4), u(-2, 2, 3)]),
    ("polydiv", lambda a, b: np.concatenate(np.polydiv(a, b)), [u(-2, 2, 5), u(1, 2, 3)]),
    ("polyder", lambda p: np.polyder(p, 2), [u(-2, 2, 5)]),
    ("polyint", lambda p, k: np.polyint(p, 2, k=k), [u(-2, 2, 4), u(-1, 1, 2)]),
    ("poly", np.poly, [u(-2, 2, 4)]),
    ("polyval", np.polyval, [u(-2, 2, 4), u(-2, 2, 5)]),
    ("polyfit", lambda x, y: np.polyfit(x, y, 3), [coordinates(8), u(-2, 2, 8)]),
    ("polyfit-weights", lambda x, y, w: np.polyfit(x, y, 2, w=w), [coordinates(8), u(-2, 2, 8), u(0.5, 2, 8)]),
    ("polyfit-2d", lambda y: np.polyfit(np.linspace(0, 1, 7), y, 2), [u(-2, 2, 7, 2)]),
    ("polyfit-cov", lambda x, y: np.polyfit(x, y, 2, cov=True)[1], [coordinates(8), u(-2, 2, 8)]),
    ("polyfit-cov-2d", lambda y: np.polyfit(np.linspace(0, 1, 7), y, 2, cov=True)[1], [u(-2, 2, 7, 2)]),
    ("polyfit-cov-unscaled", lambda x: np.polyfit(x, np.ones(8), 2, cov="unscaled")[1], [coordinates(8)]),
    ("polyfit-full", lambda x, y: np.polyfit(x, y, 2, full=True)[1], [coordinates(8), u(-2, 2, 8)]),
    ("meshgrid", lambda a, b: np.stack(np.meshgrid(a, b)), [u(-2, 2, 3), u(-2, 2, 4)]),
    ("meshgrid-ij", lambda a, b, c: np.stack(np.meshgrid(a, b, c, indexing="ij")),
     [u(-2, 2, 3), u(-2, 2, 4), u(-2, 2, 2)]),
    ("meshgrid-sparse", lambda a, b: sum(np.meshgrid(a, b, sparse=True)), [u(-2, 2, 3), u(-2, 2, 4)]),
    ("block", lambda a, b: np.block([[a, b], [np.zeros((1, 2)), np.ones((1, 3))]]),
     [u(-2, 2, 2, 2), u(-2, 2, 2, 3)]),
    ("block-1d", lambda a, b: np.block([a, b]), [u(-2, 2, 3), u(-2, 2, 2)]),
    ("block-3d", lambda a, b: np.block([[[a]], [[b]]]), [u(-2, 2, 2, 3), u(-2, 2, 2, 3)]),
    ("sliding_window_view", lambda x: SWV(x, 3), [u(-2, 2, 6)]),
    ("sliding_window_view-2d", lambda x: SWV(x, (2, 3)), [u(-2, 2, 4, 5)]),
    ("sliding_window_view-axis", lambda x: SWV(x, 2, axis=0), [u(-2, 2, 4, 3)]),
    ("apply_along_axis", lambda m: np.apply_along_axis(lambda r: r * np.sum(r), 1, m), [u(-2, 2, 3, 4)]),
    ("apply_along_axis-scalar", lambda m: np.apply_along_axis(lambda r: np.sum(r ** 2), 0, m), [u(-2, 2, 3, 4)]),
    ("apply_along_axis-matrix", lambda m: np.apply_along_axis(lambda r: np.outer(r, r), 1, m), [u(-2, 2, 3, 2)]),
    ("cond", lambda a: np.linalg.cond(a), [u(-2, 2, 3, 3)]),
    ("cond-minus2", lambda a: np.linalg.cond(a, -2), [u(-2, 2, 3, 3)]),
    ("cond-1", lambda a: np.linalg.cond(a, 1), [u(-2, 2, 3, 3)]),
    ("cond-fro", lambda a: np.linalg.cond(a, "fro"), [u(-2, 2, 3, 3)]),
    ("cond-inf-stacked", lambda a: np.linalg.cond(a, np.inf), [u(-2, 2, 2, 3, 3)]),
]
IDS = [c[0] for c in CASES]
NOT_TO_THE_BIT = {"cond", "cond-minus2"}  # the singular values of a full svd, as gradmagic's svd gives them


def _inputs(name, makers, dtype=np.float64):
    rng = rng_for("numpy-assembled", name)
    return [np.asarray(m(rng), dtype=dtype) for m in makers]


@pytest.mark.parametrize("name, fn, makers", CASES, ids=IDS)
def test_value_and_dtype_are_numpys(name, fn, makers):
    arrays = _inputs(name, makers)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = fn(*arrays)
        got = fn(*[gm.constant(a) for a in arrays])
    assert isinstance(got, gm.Tensor)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype
    if name in NOT_TO_THE_BIT:
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-13)
    else:
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name, fn, makers", CASES, ids=IDS)
def test_gradient_matches_finite_differences(name, fn, makers, order):
    assert_weighted_gradient(fn, _inputs(name, makers), name, order)


FLOAT32 = ["gradient-coordinates", "gradient-2d", "unwrap", "vander", "polymul", "polydiv", "polyint", "poly",
           "polyfit", "meshgrid", "block", "sliding_window_view-2d", "apply_along_axis", "cond", "cond-1"]


@pytest.mark.parametrize("name", FLOAT32)
def test_float32_gives_numpys_dtype_and_a_gradient_of_each_inputs_dtype(name):
    _, fn, makers = CASES[IDS.index(name)]
    arrays = _inputs(name, makers, np.float32)
    want = fn(*arrays)
    ts = [gm.constant(a) for a in arrays]
    with gm.GradientTape() as tape:
        tape.watch(ts)
        got = fn(*ts)
        y = np.sum(got)
    assert got.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=3e-6 if got.dtype == np.float32 else 1e-12, atol=1e-6)
    for g, t in zip(tape.gradient(y, ts), ts):
        assert g.dtype == np.float32 and g.shape == t.shape


PORTABLE = ["gradient-2d", "gradient-coordinates", "unwrap", "vander", "polyadd", "polymul", "polyder", "poly",
            "meshgrid", "block-1d", "sliding_window_view-2d", "apply_along_axis", "cond-1"]


@pytest.mark.parametrize("module, name", [pytest.param(m, n, id=f"{m}-{n}", marks=module_marks(m))
                                          for m in ("array_api_strict", "cupy") for n in PORTABLE])
def test_runs_on_another_array_module_to_second_order(module, name):
    _, fn, makers = CASES[IDS.index(name)]
    assert_same_on_module(module, fn, _inputs(name, makers), ("numpy-assembled", name))


def test_every_function_is_dispatched_and_has_a_case():
    tables = [polynomials.FUNCTIONS, assembly.FUNCTIONS]
    for table in tables:
        assert all(dispatch.FUNCTIONS[f] is impl for f, impl in table.items())
    assert dispatch.FUNCTIONS[np.gradient].__name__ == "gradient"
    assert dispatch.FUNCTIONS[np.unwrap].__name__ == "unwrap"
    names = {f.__name__ for t in tables for f in t}
    assert names <= {n.split("-")[0] for n in IDS}


# -- the conventions, by hand ----------------------------------------------------------------
def grads(fn, *xs):
    ts = [gm.constant(np.asarray(x, dtype=np.float64)) for x in xs]
    with gm.GradientTape() as tape:
        tape.watch(ts)
        y = fn(*ts)
    return [None if g is None else g.numpy() for g in tape.gradient(y, ts)]


def test_unwrap_adds_constants_so_its_gradient_is_the_identity():
    p = [0.0, 3.0, 6.5, 9.8, -3.0]
    (g,) = grads(lambda t: np.sum(np.unwrap(t) * np.arange(5.0)), p)
    np.testing.assert_array_equal(g, np.arange(5.0))


def test_gradient_of_a_line_is_its_slope_and_the_weights_are_numpys_by_hand():
    # np.gradient of f = 2x + 1 on uneven points is exactly 2, and its derivative in f[k]
    # at the middle point is (b, a, c) of NumPy's formula: h1 = 1, h2 = 2
    x = [0.0, 1.0, 3.0]
    g = np.gradient(gm.constant(np.array([1.0, 3.0, 7.0])), gm.constant(np.array(x)))
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0, 2.0])
    (gf,) = grads(lambda f: np.gradient(f, np.array(x))[1], [1.0, 3.0, 7.0])
    np.testing.assert_allclose(gf, [-2 / (1 * 3), (2 - 1) / (1 * 2), 1 / (2 * 3)])


def test_polyfit_of_an_exact_line_has_the_gradient_of_least_squares_by_hand():
    # c = (X^T X)^-1 X^T y with X = [x, 1]: dc/dy is that matrix; dslope / dy_i = (x_i - mean x) / Sxx
    x = np.array([0.0, 1.0, 2.0, 4.0])
    (gy,) = grads(lambda y: np.polyfit(x, y, 1)[0], 3 * x + 1)
    np.testing.assert_allclose(gy, (x - x.mean()) / np.sum((x - x.mean()) ** 2), atol=1e-12)


def test_vander_poly_and_polyder_by_hand():
    (g,) = grads(lambda x: np.sum(np.vander(x, 3)[:, 0]), [1.0, -2.0])  # d x^2 / dx
    np.testing.assert_allclose(g, [2.0, -4.0])
    (g,) = grads(lambda r: np.poly(r)[1], [2.0, 3.0])  # x^2 - (r1 + r2) x + r1 r2
    np.testing.assert_allclose(g, [-1.0, -1.0])
    (g,) = grads(lambda p: np.sum(np.polyder(p)), [1.0, 1.0, 1.0])  # (2, 1) . p[:-1]
    np.testing.assert_allclose(g, [2.0, 1.0, 0.0])


def test_integer_answers_run_as_numpys_under_a_tape():
    x = gm.constant(np.array([0.2, 1.5, 2.7]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        bins = np.digitize(x, [1.0, 2.0])
        rank = np.linalg.matrix_rank(np.outer(x, x))
    np.testing.assert_array_equal(bins.numpy(), [0, 1, 2])
    assert rank == 1


@pytest.mark.parametrize("call, error, match", [
    (lambda t: np.gradient(t, edge_order=3), ValueError, "'edge_order' greater than 2 not supported"),
    (lambda t: np.gradient(t[:2], edge_order=2), ValueError, "at least \\(edge_order \\+ 1\\) elements"),
    (lambda t: np.gradient(t, np.ones(3)), ValueError, "distances must match the length"),
    (lambda t: np.polyder(t, -1), ValueError, "Order of derivative must be positive"),
    (lambda t: np.polyint(t, -1), ValueError, "Order of integral must be positive"),
    (lambda t: np.polyval(np.poly1d([1.0, 2.0]), t), gm.NoGradientError, "p.coeffs"),
    (lambda t: np.poly(np.outer(t, t)), gm.NoGradientError, "pass its roots"),
    (lambda t: np.polyfit(t, t, 3, cov=True), ValueError, "must exceed order"),
    (lambda t: np.block((t, t)), TypeError, "arrays is a tuple"),
    (lambda t: np.block([[t], t]), ValueError, "List depths are mismatched"),
    (lambda t: np.meshgrid(t, indexing="yx"), ValueError, "Valid values for `indexing`"),
    (lambda t: np.apply_along_axis(np.sum, 0, np.ones((3, 0)) * t[0]), ValueError, "iteration dimensions are 0"),
    (lambda t: np.linalg.cond(np.outer(t, t)[:2], 1), np.linalg.LinAlgError, "must be square"),
], ids=["edge-order", "too-short", "distances", "polyder", "polyint", "poly1d", "poly-matrix", "cov",
        "block-tuple", "block-depth", "indexing", "apply-empty", "cond-square"])
def test_what_is_refused_says_why(call, error, match):
    t = gm.constant(np.array([1.0, 2.0, 4.0, 7.0]))
    with gm.GradientTape() as tape:
        tape.watch(t)
        with pytest.raises(error, match=match):
            call(t)
