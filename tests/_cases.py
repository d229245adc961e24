"""What the op tests share: seeded inputs, readable shape ids, and the domain of each
elementwise op (away from poles, branch cuts, kinks and ties). ``test_ops`` checks the
ops over broadcasting shapes on NumPy; ``test_backend`` on every backend, to second order;
the families' tests run their cases on another array module with ``assert_same_on_module``.
"""

import math
import operator
import zlib

import numpy as np
import pytest

import gradmagic as gm


def sid(shape):
    """``(2,3)``, ``(3,)``, ``()``: a shape as a readable test id."""
    inner = ",".join(str(n) for n in shape)
    return f"({inner}{',' if len(shape) == 1 else ''})"


def same_as_printed(got, want):
    """``got`` (nested lists and tuples of Python values) equals what a framework printed:
    floats to float32's precision (NumPy's float32 functions and the framework's may differ
    in the last place), NaN equal to NaN, everything else exactly and of the same type."""
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            same_as_printed(g, w) for g, w in zip(got, want))
    if isinstance(want, float):
        return isinstance(got, float) and (math.isnan(got) and math.isnan(want) or
                                           math.isclose(got, want, rel_tol=3e-7, abs_tol=0))
    return type(got) is type(want) and got == want


def same_to_float32(got, want):
    """``got`` equals what a framework printed in float32: floats to 2e-6 relative or 5e-7
    absolute (its float32 functions and NumPy's differ in the last bits; ``1 - tanh^2`` far
    out is a few float32 ulps of 1), NaN equal to NaN, everything else exactly."""
    if isinstance(want, (list, tuple)):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            same_to_float32(g, w) for g, w in zip(got, want))
    if isinstance(want, float):
        return isinstance(got, float) and (math.isnan(got) and math.isnan(want) or math.isclose(
            got, want, rel_tol=2e-6, abs_tol=5e-7))
    return type(got) is type(want) and got == want


def torch_inputs(shapes, dtype, scale=1.0, seed=0):
    """Seeded standard-normal gradmagic.torch tensors of ``shapes`` (times ``scale``) that
    require grad."""
    import gradmagic.torch as torch
    rng = np.random.default_rng(seed)
    return [torch.tensor(rng.standard_normal(s) * scale, dtype=dtype, requires_grad=True) for s in shapes]


def weighted_gradients(y, xs, dtype=None):
    """``[value, each input's gradient]`` for the outputs ``y`` (a tensor, or a tuple: then a
    list of their values) weighted 1, 2, 3 ... across them, so that a gradient that mixes up
    elements shows; with ``dtype``, every output and gradient must have it."""
    import gradmagic.torch as torch
    ys = y if isinstance(y, tuple) else (y,)
    total, start = 0, 1
    for o in ys:
        assert dtype is None or o.dtype == dtype
        w = torch.tensor(np.arange(start, start + o.numel()).reshape(tuple(o.shape)), dtype=o.dtype)
        total, start = total + (o * w).sum(), start + o.numel()
    total.backward()
    assert dtype is None or all(x.grad.dtype == dtype for x in xs)
    values = [o.detach().numpy() for o in ys]
    return [values if isinstance(y, tuple) else values[0]] + [x.grad.numpy() for x in xs]


def rng_for(*key):
    """A generator seeded by the test case, so every case draws its own fixed numbers."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def uniform(lo, hi):
    return lambda rng, shape: rng.uniform(lo, hi, shape)


def magnitude(lo, hi):
    """|x| in [lo, hi], either sign: away from 0 (abs, sign, cbrt, reciprocal ...)."""
    return lambda rng, shape: rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def grid(offset):
    """``offset + 0.2 k``: two grids with offsets 0.1 apart never tie (maximum, clip ...)."""
    return lambda rng, shape: offset + 0.2 * rng.integers(-8, 9, shape)


def distinct(rng, shape):
    """Values 0.25 apart in random order: reductions max/min never meet a tie."""
    n = math.prod(shape)
    return (rng.permutation(n).reshape(shape) - n / 2) * 0.25


UNARY = [
    ("negative", np.negative, uniform(-2, 2)),
    ("negative-operator", operator.neg, uniform(-2, 2)),
    ("positive", np.positive, uniform(-2, 2)),
    ("absolute", np.absolute, magnitude(0.2, 2)),
    ("abs-builtin", abs, magnitude(0.2, 2)),
    ("sign", np.sign, magnitude(0.2, 2)),
    ("exp", np.exp, uniform(-2, 2)),
    ("exp2", np.exp2, uniform(-2, 2)),
    ("expm1", np.expm1, uniform(-2, 2)),
    ("log", np.log, uniform(0.2, 3)),
    ("log1p", np.log1p, uniform(-0.5, 2)),
    ("log2", np.log2, uniform(0.2, 3)),
    ("log10", np.log10, uniform(0.2, 3)),
    ("sqrt", np.sqrt, uniform(0.2, 3)),
    ("cbrt", np.cbrt, magnitude(0.2, 3)),
    ("square", np.square, uniform(-2, 2)),
    ("reciprocal", np.reciprocal, magnitude(0.5, 2)),
    ("sin", np.sin, uniform(-3, 3)),
    ("cos", np.cos, uniform(-3, 3)),
    ("tan", np.tan, uniform(-1.2, 1.2)),
    ("arcsin", np.arcsin, uniform(-0.9, 0.9)),
    ("arccos", np.arccos, uniform(-0.9, 0.9)),
    ("arctan", np.arctan, uniform(-3, 3)),
    ("sinh", np.sinh, uniform(-2, 2)),
    ("cosh", np.cosh, uniform(-2, 2)),
    ("tanh", np.tanh, uniform(-2, 2)),
    ("arcsinh", np.arcsinh, uniform(-3, 3)),
    ("arccosh", np.arccosh, uniform(1.1, 3)),
    ("arctanh", np.arctanh, uniform(-0.9, 0.9)),
    ("deg2rad", np.deg2rad, uniform(-200, 200)),
    ("radians", np.radians, uniform(-200, 200)),
    ("rad2deg", np.rad2deg, uniform(-3, 3)),
    ("degrees", np.degrees, uniform(-3, 3)),
    ("conjugate", np.conjugate, uniform(-2, 2)),
    ("sigmoid", gm.sigmoid, uniform(-4, 4)),
    ("softplus", gm.softplus, uniform(-4, 4)),
]

# name, ufunc, operator form (or None), domain of the first and of the second argument
BINARY = [
    ("add", np.add, operator.add, uniform(-2, 2), uniform(-2, 2)),
    ("subtract", np.subtract, operator.sub, uniform(-2, 2), uniform(-2, 2)),
    ("multiply", np.multiply, operator.mul, uniform(-2, 2), uniform(-2, 2)),
    ("divide", np.divide, operator.truediv, uniform(-2, 2), magnitude(0.5, 2)),
    ("power", np.power, operator.pow, uniform(0.3, 2), uniform(-2, 2)),
    ("arctan2", np.arctan2, None, magnitude(0.3, 2), uniform(-2, 2)),  # y off the branch cut
    ("hypot", np.hypot, None, magnitude(0.3, 2), magnitude(0.3, 2)),
    ("maximum", np.maximum, None, grid(0.1), grid(0.0)),
    ("minimum", np.minimum, None, grid(0.1), grid(0.0)),
    ("logaddexp", np.logaddexp, None, uniform(-3, 3), uniform(-3, 3)),
    ("logaddexp2", np.logaddexp2, None, uniform(-3, 3), uniform(-3, 3)),
    # |x / y| in (2.08, 2.9): floor and trunc are constant there, away from the jumps
    ("remainder", np.remainder, operator.mod, magnitude(2.5, 2.9), uniform(1.0, 1.2)),
    ("fmod", np.fmod, None, magnitude(2.5, 2.9), uniform(1.0, 1.2)),
]


# -- checks shared by the op tests ---------------------------------------------------------
def assert_op(f, *arrays, key=(), order=1):
    """``f`` on Tensors gives a Tensor with NumPy's value, and its gradient (of a random
    weighting of the output) agrees with central finite differences in float64."""
    expected = f(*arrays)
    got = f(*[gm.constant(a) for a in arrays])
    assert isinstance(got, gm.Tensor)
    assert got.shape == np.shape(expected)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-14)
    weights = rng_for("weights", *key).standard_normal(np.shape(expected))

    def weighted(*xs):
        return np.sum(f(*xs) * weights)

    report = gm.check_grad(weighted, *arrays, order=order)
    assert report, str(report)


def assert_weighted_gradient(fn, arrays, key, order):
    """``fn``'s gradient (of a random weighting of its output, drawn from ``key``) agrees
    with central finite differences, to ``order``."""
    weights = rng_for("weights", key).standard_normal(np.shape(fn(*arrays)))
    report = gm.check_grad(lambda *xs: np.sum(fn(*xs) * weights), *arrays, order=order)
    assert report, str(report)


def tape_grads(f, inputs, output_gradients=None, dtype=np.float64):
    xs = [gm.constant(np.asarray(v, dtype=dtype)) for v in inputs]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    og = None if output_gradients is None else np.asarray(output_gradients, dtype=y.dtype)
    return tape.gradient(y, xs, output_gradients=og)


# -- the same derivatives on another array module ---------------------------------------------
OTHER_MODULES = [pytest.param("array_api_strict"), pytest.param("cupy", marks=pytest.mark.cupy)]


def module_marks(module):
    return [pytest.mark.cupy] if module == "cupy" else []


def module_or_skip(name):
    """``array_api_strict`` (an array-API module standing for a device's) or CuPy, where usable."""
    if name == "cupy" and not gm.backend_status("cupy"):
        pytest.skip("CuPy has no usable GPU here")
    return pytest.importorskip(name)


def parts(out):
    """A function's result as a list of its arrays (splits give lists, factorizations tuples)."""
    return list(out) if isinstance(out, (list, tuple)) else [out]


def assert_same_on_module(module, fn, arrays, key):
    """On ``module``'s arrays, ``fn`` gives NumPy's value of ``sum(fn(...) ** 3 * weights)``,
    gradient and Hessian-vector product (to 1e-12), every one an array of that module."""
    xp = module_or_skip(module)
    rng = rng_for("portable-weights", *key)
    weights = [rng.standard_normal(np.shape(p)) for p in parts(fn(*arrays))]
    directions = [rng.standard_normal(np.shape(a)) for a in arrays]

    def derivatives(array):
        ts = [gm.Tensor(array(a)) for a in arrays]
        with gm.GradientTape() as outer:
            outer.watch(ts)
            with gm.GradientTape() as inner:
                inner.watch(ts)
                y = sum(np.sum(p ** 3 * array(w)) for p, w in zip(parts(fn(*ts)), weights))
            grads = inner.gradient(y, ts, unconnected_gradients="zero")
            gv = sum(np.sum(g * array(d)) for g, d in zip(grads, directions))
        return [y] + list(grads) + list(outer.gradient(gv, ts, unconnected_gradients="zero"))

    for a, b in zip(derivatives(xp.asarray), derivatives(np.asarray)):
        assert type(a.value).__module__.startswith(module)
        np.testing.assert_allclose(gm.Tensor(a.value).numpy(), b.numpy(), rtol=1e-12, atol=1e-12)
