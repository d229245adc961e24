"""Op-level tests: every gradient rule of gradmagic, against central finite differences
in float64 and against small hand-derived cases; float32 stays float32; NumPy's dispatch
tables are complete; comparisons and logical ops carry no gradient.

The numerical oracle is ``gm.check_grad`` (central differences in float64). Inputs come
from seeded ``np.random.default_rng`` generators, with a domain chosen per op (away from
poles, branch cuts, kinks and ties).
"""

import math
import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import gradmagic as gm
from gradmagic import ops

from _cases import (BINARY, OTHER_MODULES, UNARY, assert_op, assert_same_on_module, distinct, grid,
                    magnitude, rng_for, sid, tape_grads, uniform)

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------

SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1)]


def draw(domains, shapes, *key):
    rng = rng_for(*key)
    return [np.array(d(rng, s), dtype=np.float64) for d, s in zip(domains, shapes)]


def raw(a):
    if isinstance(a, gm.Tensor):
        return a.numpy()
    if isinstance(a, (list, tuple)):
        return type(a)(raw(b) for b in a)
    return a


# ---------------------------------------------------------------------------------------
# catalogues of ops and the domains they are checked on
# ---------------------------------------------------------------------------------------

# name, function (applied to a Tensor or a float64 array), input domain


def _binary_fn(ufunc, op):
    return op if op is not None else ufunc


# ---------------------------------------------------------------------------------------
# 1-2. elementwise ops against finite differences, over broadcasting shapes
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "name,fn,domain,shape",
    [pytest.param(n, f, d, s, id=f"{n}-{sid(s)}") for n, f, d in UNARY for s in SHAPES])
def test_unary_matches_finite_differences(name, fn, domain, shape):
    (x,) = draw([domain], [shape], name, shape)
    assert_op(fn, x, key=(name, shape))


@pytest.mark.parametrize(
    "name,fn,dx,dy,sx,sy",
    [pytest.param(n, _binary_fn(u, o), dx, dy, sx, sy, id=f"{n}-{sid(sx)}x{sid(sy)}")
     for n, u, o, dx, dy in BINARY for sx in SHAPES for sy in SHAPES])
def test_binary_matches_finite_differences(name, fn, dx, dy, sx, sy):
    x, y = draw([dx, dy], [sx, sy], name, sx, sy)
    assert_op(fn, x, y, key=(name, sx, sy))


REFLECTED = [
    ("scalar-plus-x", lambda x: 2.5 + x, uniform(-2, 2)),
    ("x-plus-scalar", lambda x: x + 2.5, uniform(-2, 2)),
    ("scalar-minus-x", lambda x: 2.5 - x, uniform(-2, 2)),
    ("x-minus-scalar", lambda x: x - 2.5, uniform(-2, 2)),
    ("scalar-times-x", lambda x: 2.5 * x, uniform(-2, 2)),
    ("scalar-over-x", lambda x: 2.5 / x, magnitude(0.5, 2)),
    ("x-over-scalar", lambda x: x / 2.5, uniform(-2, 2)),
    ("scalar-pow-x", lambda x: 2.5 ** x, uniform(-2, 2)),
    ("x-pow-int", lambda x: x ** 3, uniform(-2, 2)),
    ("x-pow-half", lambda x: x ** 0.5, uniform(0.2, 3)),
    ("x-pow-negative", lambda x: x ** -1.5, uniform(0.3, 3)),
    ("array-plus-x", lambda x: np.array([1.0, -2.0, 0.5]) + x, uniform(-2, 2)),
    ("array-times-x", lambda x: np.array([1.0, -2.0, 0.5]) * x, uniform(-2, 2)),
    ("array-over-x", lambda x: np.array([1.0, -2.0, 0.5]) / x, magnitude(0.5, 2)),
    ("array-pow-x", lambda x: np.array([1.5, 2.0, 0.5]) ** x, uniform(-2, 2)),
    ("array-matmul-x", lambda x: np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0]]) @ x, uniform(-2, 2)),
]


@pytest.mark.parametrize("name,fn,domain", [pytest.param(*c, id=c[0]) for c in REFLECTED])
def test_operator_with_constant_matches_finite_differences(name, fn, domain):
    (x,) = draw([domain], [(2, 3)], name)
    assert_op(fn, x, key=(name,))


# ---------------------------------------------------------------------------------------
# reductions, with axis / keepdims / ddof
# ---------------------------------------------------------------------------------------

REDUCTIONS = [
    ("sum", lambda x, **kw: np.sum(x, **kw), uniform(-2, 2)),
    ("mean", lambda x, **kw: np.mean(x, **kw), uniform(-2, 2)),
    ("prod", lambda x, **kw: np.prod(x, **kw), magnitude(0.5, 1.5)),
    ("max", lambda x, **kw: np.max(x, **kw), distinct),
    ("min", lambda x, **kw: np.min(x, **kw), distinct),
    ("var", lambda x, **kw: np.var(x, **kw), uniform(-2, 2)),
    ("std", lambda x, **kw: np.std(x, **kw), uniform(-2, 2)),
    ("logsumexp", lambda x, **kw: gm.logsumexp(x, **kw), uniform(-3, 3)),
]
AXES = [None, 0, 1, -1, (0, 2)]


@pytest.mark.parametrize(
    "name,fn,domain,axis,keepdims",
    [pytest.param(n, f, d, a, k, id=f"{n}-axis={a}-keepdims={k}".replace(" ", ""))
     for n, f, d in REDUCTIONS for a in AXES for k in (False, True)])
def test_reduction_matches_finite_differences(name, fn, domain, axis, keepdims):
    (x,) = draw([domain], [(2, 3, 4)], name, axis, keepdims)
    assert_op(lambda t: fn(t, axis=axis, keepdims=keepdims), x, key=(name, axis, keepdims))


@pytest.mark.parametrize(
    "name,axis", [pytest.param(n, a, id=f"{n}-ddof=1-axis={a}".replace(" ", ""))
                  for n in ("var", "std") for a in AXES])
def test_reduction_ddof_matches_finite_differences(name, axis):
    fn = {"var": np.var, "std": np.std}[name]
    (x,) = draw([uniform(-2, 2)], [(2, 3, 4)], name, "ddof", axis)
    assert_op(lambda t: fn(t, axis=axis, ddof=1), x, key=(name, axis))


@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1], ids=lambda a: f"axis={a}")
def test_cumsum_matches_finite_differences(axis):
    (x,) = draw([uniform(-2, 2)], [(2, 3, 4)], "cumsum", axis)
    assert_op(lambda t: np.cumsum(t, axis=axis), x, key=("cumsum", axis))


def _zeros_planted(x, axis, where):
    """``x`` with zeros along ``axis`` (None: the flattened values) at the positions ``where``."""
    x = x.copy()
    if axis is None:
        x.reshape(-1)[list(where)] = 0.0
    else:
        index = [1] * x.ndim
        index[axis] = list(where)
        x[tuple(index)] = 0.0
    return x


# zeros: the division by x that an O(n) formula would make is where cumprod's rule must stay exact
CUMPROD_ZEROS = {"no-zero": (), "one-zero": (1,), "zeros-in-a-row": (1, 2), "zero-first": (0,)}


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("zeros", list(CUMPROD_ZEROS))
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -1], ids=lambda a: f"axis={a}")
def test_cumprod_matches_finite_differences(axis, zeros, order):
    (x,) = draw([magnitude(0.5, 1.5)], [(3, 4, 5)], "cumprod", axis, zeros)
    x = _zeros_planted(x, axis, CUMPROD_ZEROS[zeros])
    assert_op(lambda t: np.cumprod(t, axis=axis), x, key=("cumprod", axis, zeros), order=order)


@pytest.mark.parametrize("module", OTHER_MODULES)
@pytest.mark.parametrize("zeros", list(CUMPROD_ZEROS))
@pytest.mark.parametrize("axis", [None, 1, -1], ids=lambda a: f"axis={a}")
def test_cumprod_runs_on_another_array_module_to_second_order(axis, zeros, module):
    (x,) = draw([magnitude(0.5, 1.5)], [(3, 4, 5)], "cumprod", axis, zeros)
    x = _zeros_planted(x, axis, CUMPROD_ZEROS[zeros])
    assert_same_on_module(module, lambda t: np.cumprod(t, axis=axis), [x], ("cumprod", axis, zeros))


def test_cumprod_second_derivative_at_zeros_is_hand_derived():
    # f = x0 + x0 x1 + x0 x1 x2 at (2, 0, 3): the Hessian is [[0, 1 + x2, x1], [., 0, x0], [., ., 0]]
    x = gm.constant(np.array([2.0, 0.0, 3.0]))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = np.sum(np.cumprod(x))
        g = inner.gradient(y, x)
    np.testing.assert_array_equal(g.numpy(), [1.0, 8.0, 0.0])
    hessian = outer.jacobian(g, x)
    np.testing.assert_array_equal(hessian.numpy(), [[0.0, 4.0, 0.0], [4.0, 0.0, 2.0], [0.0, 2.0, 0.0]])


@pytest.mark.parametrize("shape, axis", [((), None), ((), -1), ((2, 0), 1), ((2, 1), -1)],
                         ids=["0d", "0d-axis=-1", "empty-axis", "length-1-axis"])
def test_cumprod_of_degenerate_shapes(shape, axis):
    x = np.full(shape, 1.5)
    assert_op(lambda t: np.cumprod(t, axis=axis), x, key=("cumprod", shape, axis), order=2)


@pytest.mark.parametrize("module", OTHER_MODULES)
@pytest.mark.parametrize("scan", [np.cumsum, np.cumprod], ids=["cumsum", "cumprod"])
def test_a_0d_scan_with_an_axis_is_numpys_on_another_module(scan, module):
    """NumPy scans a 0-d array as a 1-d one, axis=-1 or not; CuPy refuses the axis there."""
    assert_same_on_module(module, lambda t: scan(t, axis=-1), [np.array(1.5)], ("0d-scan", scan.__name__))


def test_cumprod_dtype_casts_first_as_numpy():
    x = np.array([[1.5, -0.5, 2.0], [0.25, 3.0, 0.0]])
    got = np.cumprod(gm.constant(x), axis=1, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.numpy(), np.cumprod(x, axis=1, dtype=np.float32))
    (g,) = tape_grads(lambda t: np.cumprod(t, axis=1, dtype=np.float32), [x])
    assert g.dtype == np.float64
    (g64,) = tape_grads(lambda t: np.cumprod(t, axis=1), [x])
    np.testing.assert_allclose(g.numpy(), g64.numpy(), rtol=1e-6)


def test_cumprod_out_is_refused_with_the_way_out():
    with pytest.raises(gm.NoGradientError, match=r"np.cumprod\(out=...\)"):
        np.cumprod(gm.constant(np.ones(3)), out=np.empty(3))


# ---------------------------------------------------------------------------------------
# linear algebra
# ---------------------------------------------------------------------------------------

MATMUL_SHAPES = [
    ("1d@1d", (3,), (3,)),
    ("2d@2d", (2, 3), (3, 4)),
    ("1d@2d", (3,), (3, 4)),
    ("2d@1d", (2, 3), (3,)),
    ("batched@batched", (5, 2, 3), (5, 3, 4)),
    ("batched@2d", (5, 2, 3), (3, 4)),
    ("2d@batched", (2, 3), (5, 3, 4)),
    ("1d@batched", (3,), (5, 3, 4)),
    ("batched@1d", (5, 2, 3), (3,)),
    ("broadcast-batch", (1, 2, 3), (5, 3, 4)),
    ("4d-broadcast-batch", (2, 1, 2, 3), (1, 5, 3, 4)),
]


@pytest.mark.parametrize("form", ["operator", "np.matmul"])
@pytest.mark.parametrize("name,sa,sb", [pytest.param(*c, id=c[0]) for c in MATMUL_SHAPES])
def test_matmul_matches_finite_differences(name, sa, sb, form):
    a, b = draw([uniform(-2, 2)] * 2, [sa, sb], "matmul", name)
    fn = operator.matmul if form == "operator" else np.matmul
    assert_op(fn, a, b, key=("matmul", name))


LINALG = [
    ("dot-1d-1d", [(3,), (3,)], lambda a, b: np.dot(a, b)),
    ("dot-2d-2d", [(2, 3), (3, 4)], lambda a, b: np.dot(a, b)),
    ("dot-2d-1d", [(2, 3), (3,)], lambda a, b: np.dot(a, b)),
    ("dot-1d-2d", [(3,), (3, 4)], lambda a, b: np.dot(a, b)),
    ("dot-scalar-array", [(), (2, 3)], lambda a, b: np.dot(a, b)),
    ("dot-method", [(2, 3), (3, 4)], lambda a, b: a.dot(b)),
    ("outer-1d", [(3,), (4,)], lambda a, b: np.outer(a, b)),
    ("outer-flattens-2d", [(2, 2), (3,)], lambda a, b: np.outer(a, b)),
]


@pytest.mark.parametrize("name,shapes,fn", [pytest.param(*c, id=c[0]) for c in LINALG])
def test_linalg_matches_finite_differences(name, shapes, fn):
    arrays = draw([uniform(-2, 2)] * len(shapes), shapes, name)
    assert_op(fn, *arrays, key=(name,))


# ---------------------------------------------------------------------------------------
# shape ops, indexing, selection
# ---------------------------------------------------------------------------------------

MASK3 = np.array([True, False, True])
MASK23 = np.array([[True, False, True], [False, True, True]])
COND = np.array([[True, False, False], [False, True, True]])

SHAPE_OPS = [
    ("transpose-default", [(2, 3, 4)], lambda x: np.transpose(x)),
    ("transpose-axes", [(2, 3, 4)], lambda x: np.transpose(x, (1, 0, 2))),
    ("transpose-negative-axes", [(2, 3, 4)], lambda x: np.transpose(x, (-1, 0, 1))),
    ("transpose-method-varargs", [(2, 3, 4)], lambda x: x.transpose(2, 0, 1)),
    ("T-2d", [(2, 3)], lambda x: x.T),
    ("T-3d", [(2, 3, 4)], lambda x: x.T),
    ("reshape-2d", [(2, 3, 4)], lambda x: np.reshape(x, (6, 4))),
    ("reshape-minus-one", [(2, 3, 4)], lambda x: np.reshape(x, (4, -1, 2))),
    ("reshape-method-varargs", [(2, 3, 4)], lambda x: x.reshape(3, 8)),
    ("reshape-scalar-to-1x1", [()], lambda x: np.reshape(x, (1, 1))),
    ("squeeze-all", [(1, 3, 1)], lambda x: np.squeeze(x)),
    ("squeeze-axis", [(1, 3, 1)], lambda x: np.squeeze(x, axis=2)),
    ("squeeze-negative-axis", [(1, 3, 1)], lambda x: np.squeeze(x, axis=-3)),
    ("squeeze-tuple-axis", [(1, 3, 1)], lambda x: np.squeeze(x, axis=(0, 2))),
    ("squeeze-method", [(1, 3, 1)], lambda x: x.squeeze()),
    ("expand_dims-0", [(2, 3)], lambda x: np.expand_dims(x, 0)),
    ("expand_dims-negative", [(2, 3)], lambda x: np.expand_dims(x, -1)),
    ("expand_dims-middle", [(2, 3)], lambda x: np.expand_dims(x, 1)),
    ("expand_dims-tuple", [(2, 3)], lambda x: np.expand_dims(x, (0, 2))),
    ("broadcast_to-row", [(3,)], lambda x: np.broadcast_to(x, (2, 3))),
    ("broadcast_to-column", [(2, 1)], lambda x: np.broadcast_to(x, (2, 3))),
    ("broadcast_to-scalar", [()], lambda x: np.broadcast_to(x, (2, 3))),
    ("broadcast_to-new-leading-axes", [(1, 3)], lambda x: np.broadcast_to(x, (4, 2, 3))),
    ("concatenate-axis0", [(2, 3), (1, 3), (3, 3)], lambda a, b, c: np.concatenate([a, b, c])),
    ("concatenate-axis1", [(2, 3), (2, 1)], lambda a, b: np.concatenate((a, b), axis=1)),
    ("concatenate-negative-axis", [(2, 2, 3), (2, 2, 1)], lambda a, b: np.concatenate([a, b], axis=-1)),
    ("concatenate-axis-none", [(2, 3), (4,)], lambda a, b: np.concatenate([a, b], axis=None)),
    ("stack-axis0", [(2, 3), (2, 3), (2, 3)], lambda a, b, c: np.stack([a, b, c])),
    ("stack-axis1", [(2, 3), (2, 3)], lambda a, b: np.stack([a, b], axis=1)),
    ("stack-negative-axis", [(2, 3), (2, 3)], lambda a, b: np.stack([a, b], axis=-1)),
    ("stack-scalars", [(), ()], lambda a, b: np.stack([a, b])),
    ("split-sections-axis0", [(4, 3)], lambda x: _weigh_pieces(np.split(x, 2))),
    ("split-indices-axis1", [(2, 5)], lambda x: _weigh_pieces(np.split(x, [1, 3], axis=1))),
    ("split-negative-axis", [(2, 3, 4)], lambda x: _weigh_pieces(np.split(x, 2, axis=-1))),
    ("swapaxes", [(2, 3, 4)], lambda x: np.swapaxes(x, 0, 2)),
    ("swapaxes-negative", [(2, 3, 4)], lambda x: np.swapaxes(x, -1, 1)),
    ("moveaxis-single", [(2, 3, 4)], lambda x: np.moveaxis(x, 0, -1)),
    ("moveaxis-several", [(2, 3, 4)], lambda x: np.moveaxis(x, [0, 1], [-1, 0])),
    ("ravel", [(2, 3)], lambda x: np.ravel(x)),
    ("ravel-method", [(2, 3)], lambda x: x.ravel()),
    ("flatten-method", [(2, 3)], lambda x: x.flatten()),
    ("flip-all", [(2, 3)], lambda x: np.flip(x)),
    ("flip-axis", [(2, 3)], lambda x: np.flip(x, 1)),
    ("flip-tuple-axis", [(2, 3, 4)], lambda x: np.flip(x, (0, 2))),
    ("getitem-slice", [(3, 4)], lambda x: x[1:]),
    ("getitem-slice-step", [(3, 4)], lambda x: x[:, ::2]),
    ("getitem-negative-step", [(3, 4)], lambda x: x[::-1]),
    ("getitem-int", [(3, 4)], lambda x: x[1]),
    ("getitem-int-pair", [(3, 4)], lambda x: x[-1, 2]),
    ("getitem-int-list-repeated", [(3,)], lambda x: x[[0, 0, 2, 0]]),
    ("getitem-int-array-repeated", [(3, 2)], lambda x: x[np.array([1, 1, 0])]),
    ("getitem-int-array-2d", [(3,)], lambda x: x[np.array([[0, 1], [1, 1]])]),
    ("getitem-int-arrays-pair", [(2, 3)], lambda x: x[[0, 1, 1, 1], [2, 2, 0, 2]]),
    ("getitem-int-list-and-slice", [(3, 4)], lambda x: x[[2, 2], 1:]),
    ("getitem-mask", [(3,)], lambda x: x[MASK3]),
    ("getitem-mask-2d", [(2, 3)], lambda x: x[MASK23]),
    ("getitem-slice-and-mask", [(3, 3)], lambda x: x[1:, MASK3]),
    ("getitem-none", [(2, 3)], lambda x: x[None]),
    ("getitem-none-middle", [(2, 3)], lambda x: x[:, None, :]),
    ("getitem-ellipsis", [(2, 3, 4)], lambda x: x[..., 1]),
    ("getitem-ellipsis-none", [(2, 3)], lambda x: x[..., None]),
    ("getitem-ellipsis-slice-int", [(2, 3, 4)], lambda x: x[0, ..., 1:3]),
    ("where-same-shapes", [(2, 3), (2, 3)], lambda a, b: np.where(COND, a, b)),
    ("where-broadcast", [(2, 1), ()], lambda a, b: np.where(MASK3, a, b)),
    ("where-condition-tensor", [(2, 3), (2, 3)], lambda a, b: np.where(a > b, a, b)),
]


def _weigh_pieces(pieces):
    """Each piece of a split weighted differently, so a mixed-up piece shows."""
    return sum(np.sum(p) * (k + 1.0) for k, p in enumerate(pieces))


@pytest.mark.parametrize("name,shapes,fn", [pytest.param(*c, id=c[0]) for c in SHAPE_OPS])
def test_shape_op_matches_finite_differences(name, shapes, fn):
    arrays = draw([uniform(-2, 2)] * len(shapes), shapes, name)
    assert_op(fn, *arrays, key=(name,))


CLIPS = [
    ("scalar-bounds", [grid(0.1)], [(2, 3)], lambda x: np.clip(x, -0.6, 0.4)),
    ("lower-only", [grid(0.1)], [(2, 3)], lambda x: np.clip(x, -0.6, None)),
    ("upper-only", [grid(0.1)], [(2, 3)], lambda x: np.clip(x, None, 0.4)),
    ("min-max-keywords", [grid(0.1)], [(2, 3)], lambda x: np.clip(x, min=-0.6, max=0.4)),
    ("method", [grid(0.1)], [(2, 3)], lambda x: x.clip(-0.6, 0.4)),
    ("tensor-bounds", [grid(0.1), grid(-0.85), grid(0.85)], [(2, 3), (3,), (2, 1)],
     lambda x, lo, hi: np.clip(x, np.minimum(lo, -0.2), np.maximum(hi, 0.4))),
]


@pytest.mark.parametrize("name,domains,shapes,fn", [pytest.param(*c, id=c[0]) for c in CLIPS])
def test_clip_matches_finite_differences(name, domains, shapes, fn):
    arrays = draw(domains, shapes, "clip", name)
    assert_op(fn, *arrays, key=("clip", name))


METHODS = [
    ("sum", (2, 3), uniform(-2, 2), lambda x: x.sum(axis=1)),
    ("mean", (2, 3), uniform(-2, 2), lambda x: x.mean(axis=0, keepdims=True)),
    ("prod", (2, 3), magnitude(0.5, 1.5), lambda x: x.prod(1)),
    ("max", (2, 3), distinct, lambda x: x.max(axis=0)),
    ("min", (2, 3), distinct, lambda x: x.min()),
    ("var", (2, 3), uniform(-2, 2), lambda x: x.var(1, ddof=1)),
    ("std", (2, 3), uniform(-2, 2), lambda x: x.std(0, keepdims=True)),
    ("cumsum", (2, 3), uniform(-2, 2), lambda x: x.cumsum(1)),
    ("cumprod", (2, 3), uniform(-2, 2), lambda x: x.cumprod(1)),
]


@pytest.mark.parametrize("name,shape,domain,fn", [pytest.param(*c, id=c[0]) for c in METHODS])
def test_tensor_method_matches_finite_differences(name, shape, domain, fn):
    (x,) = draw([domain], [shape], "method", name)
    assert_op(fn, x, key=("method", name))


# ---------------------------------------------------------------------------------------
# astype: float32 <-> float64 (not finite-differenced: a float32 cast swallows eps)
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("source,target", [
    pytest.param(np.float64, np.float32, id="float64-to-float32"),
    pytest.param(np.float32, np.float64, id="float32-to-float64"),
    pytest.param(np.float32, np.float32, id="float32-to-float32"),
])
def test_astype_gradient_casts_back(source, target):
    w = rng_for("astype").standard_normal((2, 3))
    x = gm.constant(rng_for("astype-x").standard_normal((2, 3)).astype(source))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(target)
        z = np.sum(y * w.astype(target))
    assert y.dtype == target
    np.testing.assert_array_equal(y.numpy(), x.numpy().astype(target))
    g = tape.gradient(z, x)
    assert g.dtype == source
    np.testing.assert_allclose(g.numpy(), w.astype(target).astype(source), rtol=1e-7)


def test_astype_to_integer_carries_no_gradient():
    x = gm.constant(np.array([1.5, -2.5, 3.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(np.int64)
    assert y.dtype == np.int64
    np.testing.assert_array_equal(y.numpy(), [1, -2, 3])
    assert tape.gradient(y, x) is None


# ---------------------------------------------------------------------------------------
# 3. float32 stays float32
# ---------------------------------------------------------------------------------------

FLOAT32 = (
    [(f"unary-{n}", [d], [(2, 3)], f) for n, f, d in UNARY]
    + [(f"binary-{n}", [dx, dy], [(2, 3), (3,)], _binary_fn(u, o)) for n, u, o, dx, dy in BINARY]
    + [
        ("times-python-float", [uniform(-2, 2)], [(2, 3)], lambda x: x * 2.0),
        ("python-float-plus", [uniform(-2, 2)], [(2, 3)], lambda x: 1.5 + x),
        ("python-float-minus", [uniform(-2, 2)], [(2, 3)], lambda x: 2.0 - x),
        ("over-python-float", [uniform(-2, 2)], [(2, 3)], lambda x: x / 3.0),
        ("python-float-over", [magnitude(0.5, 2)], [(2, 3)], lambda x: 1.0 / x),
        ("pow-python-float", [uniform(0.3, 2)], [(2, 3)], lambda x: x ** 2.5),
        ("pow-python-int", [uniform(-2, 2)], [(2, 3)], lambda x: x ** 3),
        ("python-float-pow", [uniform(-2, 2)], [(2, 3)], lambda x: 2.0 ** x),
        ("np-power-python-base", [uniform(-2, 2)], [(2, 3)], lambda x: np.power(2.0, x)),
        ("times-gm-constant", [uniform(-2, 2)], [(2, 3)], lambda x: x * gm.constant(2.0)),
        ("maximum-python-float", [grid(0.05)], [(2, 3)], lambda x: np.maximum(x, 0.0)),
        ("minimum-python-float", [grid(0.05)], [(2, 3)], lambda x: np.minimum(x, 0.5)),
        ("clip-python-floats", [grid(0.05)], [(2, 3)], lambda x: np.clip(x, -0.5, 0.5)),
        ("where-python-float", [grid(0.05)], [(2, 3)], lambda x: np.where(x > 0, x, 0.0)),
        ("arctan2-python-float", [uniform(-2, 2)], [(2, 3)], lambda x: np.arctan2(x, 1.0)),
        ("hypot-python-float", [uniform(-2, 2)], [(2, 3)], lambda x: np.hypot(x, 1.0)),
        ("logaddexp-python-float", [uniform(-2, 2)], [(2, 3)], lambda x: np.logaddexp(x, 0.0)),
        ("sum-axis", [uniform(-2, 2)], [(2, 3)], lambda x: np.sum(x, axis=0)),
        ("mean", [uniform(-2, 2)], [(2, 3)], lambda x: np.mean(x)),
        ("prod", [magnitude(0.5, 1.5)], [(2, 3)], lambda x: np.prod(x, axis=1)),
        ("max", [distinct], [(2, 3)], lambda x: np.max(x, axis=1)),
        ("max-ties", [grid(0.0)], [(4, 6)], lambda x: np.max(x, axis=1) + np.min(x)),
        ("min", [distinct], [(2, 3)], lambda x: np.min(x)),
        ("var-ddof", [uniform(-2, 2)], [(2, 3)], lambda x: np.var(x, axis=1, ddof=1)),
        ("std", [uniform(-2, 2)], [(2, 3)], lambda x: np.std(x, axis=0)),
        ("cumsum", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumsum(x, axis=1)),
        ("cumsum-flat", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumsum(x)),
        ("cumprod", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumprod(x, axis=-1)),
        ("cumprod-zeros", [lambda rng, s: rng.uniform(-2, 2, s) * (rng.random(s) < 0.5)], [(3, 4)],
         lambda x: np.cumprod(x, axis=0)),
        ("logsumexp", [uniform(-3, 3)], [(2, 3)], lambda x: gm.logsumexp(x, axis=1)),
        ("matmul", [uniform(-2, 2)] * 2, [(2, 3), (3, 4)], lambda a, b: a @ b),
        ("matmul-batched-1d", [uniform(-2, 2)] * 2, [(2, 2, 3), (3,)], lambda a, b: a @ b),
        ("dot", [uniform(-2, 2)] * 2, [(2, 3), (3,)], lambda a, b: np.dot(a, b)),
        ("outer", [uniform(-2, 2)] * 2, [(2,), (3,)], lambda a, b: np.outer(a, b)),
        ("einsum", [uniform(-2, 2)] * 2, [(2, 3), (3, 4)], lambda a, b: np.einsum("ij,jk->ki", a, b)),
        ("transpose", [uniform(-2, 2)], [(2, 3)], lambda x: x.T ** 3),
        ("reshape", [uniform(-2, 2)], [(2, 3)], lambda x: np.reshape(x, (3, 2)) ** 2),
        ("concatenate", [uniform(-2, 2)] * 2, [(2, 3), (1, 3)], lambda a, b: np.concatenate([a, b]) ** 2),
        ("stack", [uniform(-2, 2)] * 2, [(2, 3), (2, 3)], lambda a, b: np.stack([a, b]) ** 2),
        ("split", [uniform(-2, 2)], [(4, 3)], lambda x: _weigh_pieces(np.split(x, 2))),
        ("getitem-repeated", [uniform(-2, 2)], [(3,)], lambda x: x[[0, 0, 2]] ** 2),
        ("getitem-mask", [uniform(-2, 2)], [(3,)], lambda x: x[MASK3] ** 2),
        ("flip", [uniform(-2, 2)], [(2, 3)], lambda x: np.flip(x, 1) ** 3),
        ("broadcast_to", [uniform(-2, 2)], [(3,)], lambda x: np.broadcast_to(x, (2, 3)) ** 2),
        ("where", [uniform(-2, 2)] * 2, [(2, 3), (3,)], lambda a, b: np.where(COND, a, b) ** 2),
        # 0-d float32 values: NumPy gives scalars there, and Python floats must not promote them
        ("scalar-times-python-float", [uniform(-2, 2)], [()], lambda x: x * 2.0),
        ("scalar-python-float-pow", [uniform(-2, 2)], [()], lambda x: 2.0 ** x),
        ("scalar-pow-python-float", [uniform(0.3, 2)], [()], lambda x: x ** 1.5),
        ("scalar-over-python-float", [uniform(-2, 2)], [()], lambda x: 1.0 - x / 3.0),
        ("scalar-exp", [uniform(-2, 2)], [()], lambda x: np.exp(x) * 0.5),
        ("scalar-maximum-python-float", [grid(0.05)], [()], lambda x: np.maximum(x, 0.0)),
        ("scalar-binary-broadcast", [uniform(-2, 2)] * 2, [(), (3,)], lambda a, b: np.logaddexp(a, b) * a),
    ]
)


@pytest.mark.parametrize("name,domains,shapes,fn", [pytest.param(*c, id=c[0]) for c in FLOAT32])
def test_float32_stays_float32(name, domains, shapes, fn):
    arrays32 = [a.astype(np.float32) for a in draw(domains, shapes, "float32", name)]
    x32 = [gm.constant(a) for a in arrays32]
    x64 = [gm.constant(a.astype(np.float64)) for a in arrays32]
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x32 + x64)
        y32 = fn(*x32)
        y64 = fn(*x64)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32.numpy(), y64.numpy(), rtol=1e-5, atol=1e-5)
    g32 = tape.gradient(y32, x32)
    g64 = tape.gradient(y64, x64)
    for a, b in zip(g32, g64):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------------------
# the stable helpers: values where the naive formula overflows or loses everything
# ---------------------------------------------------------------------------------------

LN2 = math.log(2.0)

STABLE = [
    ("sigmoid-at-0", gm.sigmoid, [0.0], 0.5),
    ("sigmoid-at-1000", gm.sigmoid, [1000.0], 1.0),
    ("sigmoid-at-minus-1000", gm.sigmoid, [-1000.0], 0.0),
    ("sigmoid-at-minus-30", gm.sigmoid, [-30.0], 1 / (1 + math.exp(30.0))),
    ("softplus-at-0", gm.softplus, [0.0], LN2),
    ("softplus-at-100", gm.softplus, [100.0], 100.0),
    ("softplus-at-1000", gm.softplus, [1000.0], 1000.0),
    ("softplus-at-minus-30", gm.softplus, [-30.0], math.log1p(math.exp(-30.0))),
    ("logsumexp-large", gm.logsumexp, [[1000.0, 1000.0]], 1000.0 + LN2),
    ("logsumexp-very-negative", gm.logsumexp, [[-1000.0, -1000.0]], -1000.0 + LN2),
    ("logsumexp-with-minus-inf", gm.logsumexp, [[-np.inf, 0.0]], 0.0),
    ("logsumexp-(0,ln3)", gm.logsumexp, [[0.0, math.log(3.0)]], math.log(4.0)),
]


@pytest.mark.filterwarnings("error")  # no overflow, no invalid value
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn,x,expected", [pytest.param(*c[1:], id=c[0]) for c in STABLE])
def test_stable_helper_value(fn, x, expected, dtype):
    y = fn(gm.constant(np.asarray(x[0], dtype=dtype)))
    assert y.dtype == dtype
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(y.numpy(), expected, rtol=rtol, atol=0)


# ---------------------------------------------------------------------------------------
# 4. exact, hand-derived cases for every rule
# ---------------------------------------------------------------------------------------

LN10, E = math.log(10.0), math.e
SQRT3 = math.sqrt(3.0)

# id, function, inputs, expected gradient per input, output_gradients (or None: ones)
HAND = [
    # arithmetic
    ("add", lambda x, y: x + y, [1.0, 2.0], [1.0, 1.0], None),
    ("add-broadcast-row", lambda x, y: x + y, [np.ones((2, 3)), [1.0, 2, 3]],
     [np.ones((2, 3)), [2.0, 2, 2]], None),
    ("add-broadcast-scalar", lambda x, y: x + y, [0.5, np.ones((2, 3))], [6.0, np.ones((2, 3))], None),
    ("add-broadcast-column-and-row", lambda x, y: x + y, [[[1.0], [2.0]], [1.0, 2.0, 3.0]],
     [[[6.0], [15.0]], [5.0, 7.0, 9.0]], [[1.0, 2, 3], [4, 5, 6]]),
    ("subtract", lambda x, y: x - y, [5.0, 3.0], [1.0, -1.0], None),
    ("subtract-python-float-minus-x", lambda x: 2.0 - x, [5.0], [-1.0], None),
    ("multiply", lambda x, y: x * y, [2.0, 3.0], [3.0, 2.0], None),
    ("multiply-same-tensor", lambda x: x * x, [3.0], [6.0], None),
    ("divide", lambda x, y: x / y, [6.0, 3.0], [1 / 3, -6 / 9], None),
    ("divide-python-float-over-x", lambda x: 1.0 / x, [4.0], [-1 / 16], None),
    ("power-x^3-at-2", lambda x: x ** 3, [2.0], [12.0], None),
    ("power-both-at-(2,3)", lambda x, y: x ** y, [2.0, 3.0], [12.0, 8 * LN2], None),
    ("power-exponent-at-base-0-is-0", lambda x, y: x ** y, [0.0, 3.0], [0.0, 0.0], None),
    ("power-exponent-at-base-0-fractional", lambda x, y: np.power(x, y), [0.0, 2.5], [0.0, 0.0], None),
    ("power-negative-base-integer-exponent", lambda x, y: x ** y, [-2.0, 3.0], [12.0, 0.0], None),
    ("power-python-base-2^x-at-3", lambda x: 2.0 ** x, [3.0], [8 * LN2], None),
    ("power-x^0.5-at-4", lambda x: x ** 0.5, [4.0], [0.25], None),
    ("negative", lambda x: -x, [[1.0, 2.0]], [[-1.0, -1.0]], None),
    ("positive", lambda x: np.positive(x), [[1.0, 2.0]], [[1.0, 1.0]], None),
    ("absolute", lambda x: np.abs(x), [[-2.0, 3.0, 0.0]], [[-1.0, 1.0, 0.0]], None),
    ("sign", lambda x: np.sign(x), [[-2.0, 3.0]], [[0.0, 0.0]], None),
    # exponentials and logarithms
    ("exp-at-ln2", np.exp, [LN2], [2.0], None),
    ("exp2-at-3", np.exp2, [3.0], [8 * LN2], None),
    ("expm1-at-0", np.expm1, [0.0], [1.0], None),
    ("expm1-at-1", np.expm1, [1.0], [E], None),
    ("log-at-2", np.log, [2.0], [0.5], None),
    ("log1p-at-1", np.log1p, [1.0], [0.5], None),
    ("log2-at-2", np.log2, [2.0], [1 / (2 * LN2)], None),
    ("log10-at-10", np.log10, [10.0], [1 / (10 * LN10)], None),
    ("sqrt-at-4", np.sqrt, [4.0], [0.25], None),
    ("cbrt-at-8", np.cbrt, [8.0], [1 / 12], None),
    ("cbrt-at-minus-8", np.cbrt, [-8.0], [1 / 12], None),
    ("square-at-3", np.square, [3.0], [6.0], None),
    ("reciprocal-at-2", np.reciprocal, [2.0], [-0.25], None),
    ("logaddexp-equal", np.logaddexp, [0.0, 0.0], [0.5, 0.5], None),
    ("logaddexp-at-(0,ln3)", np.logaddexp, [0.0, math.log(3.0)], [0.25, 0.75], None),
    ("logaddexp-large", np.logaddexp, [1000.0, 1000.0], [0.5, 0.5], None),
    # trigonometry and hyperbolics
    ("sin-at-0", np.sin, [0.0], [1.0], None),
    ("cos-at-pi-over-2", np.cos, [math.pi / 2], [-1.0], None),
    ("tan-at-0", np.tan, [0.0], [1.0], None),
    ("tan-at-pi-over-4", np.tan, [math.pi / 4], [2.0], None),
    ("arcsin-at-0.5", np.arcsin, [0.5], [2 / SQRT3], None),
    ("arccos-at-0.5", np.arccos, [0.5], [-2 / SQRT3], None),
    ("arctan-at-1", np.arctan, [1.0], [0.5], None),
    ("arctan2-at-(1,1)", np.arctan2, [1.0, 1.0], [0.5, -0.5], None),
    ("arctan2-at-(1,-1)", np.arctan2, [1.0, -1.0], [-0.5, -0.5], None),
    ("arctan2-at-(-2,0)", np.arctan2, [-2.0, 0.0], [0.0, 0.5], None),
    ("hypot-at-(3,4)", np.hypot, [3.0, 4.0], [0.6, 0.8], None),
    ("sinh-at-0", np.sinh, [0.0], [1.0], None),
    ("cosh-at-0", np.cosh, [0.0], [0.0], None),
    ("cosh-at-ln2", np.cosh, [LN2], [0.75], None),
    ("tanh-at-0", np.tanh, [0.0], [1.0], None),
    ("arcsinh-at-0", np.arcsinh, [0.0], [1.0], None),
    ("arccosh-at-2", np.arccosh, [2.0], [1 / SQRT3], None),
    ("arctanh-at-0.5", np.arctanh, [0.5], [4 / 3], None),
    # stable helpers
    ("sigmoid-at-0", gm.sigmoid, [0.0], [0.25], None),
    ("sigmoid-at-minus-1000-no-nan", gm.sigmoid, [-1000.0], [0.0], None),
    ("sigmoid-at-ln3", gm.sigmoid, [math.log(3.0)], [3 / 16], None),
    ("softplus-at-0", gm.softplus, [0.0], [0.5], None),
    ("softplus-at-100", gm.softplus, [100.0], [1.0], None),
    ("softplus-at-minus-100", gm.softplus, [-100.0], [0.0], None),
    ("logsumexp-equal", gm.logsumexp, [[0.0, 0.0]], [[0.5, 0.5]], None),
    ("logsumexp-large", gm.logsumexp, [[1000.0, 1000.0]], [[0.5, 0.5]], None),
    ("logsumexp-axis1", lambda x: gm.logsumexp(x, axis=1), [[[0.0, math.log(3.0)], [5.0, 5.0]]],
     [[[0.25, 0.75], [1.0, 1.0]]], [1.0, 2.0]),
    ("logsumexp-keepdims", lambda x: gm.logsumexp(x, axis=0, keepdims=True), [[[0.0], [math.log(3.0)]]],
     [[[0.5], [1.5]]], [[2.0]]),
    # maximum / minimum / clip / where
    ("maximum", np.maximum, [[1.0, 5.0], [3.0, 2.0]], [[0.0, 1.0], [1.0, 0.0]], None),
    ("maximum-tie-goes-to-x", np.maximum, [[2.0], [2.0]], [[1.0], [0.0]], None),
    ("maximum-relu-at-0", lambda x: np.maximum(x, 0.0), [[-1.0, 0.0, 2.0]], [[0.0, 1.0, 1.0]], None),
    ("maximum-broadcast", np.maximum, [[1.0, 5.0, 3.0], 2.0], [[0.0, 1.0, 1.0], 1.0], None),
    ("minimum", np.minimum, [[1.0, 5.0], [3.0, 2.0]], [[1.0, 0.0], [0.0, 1.0]], None),
    ("minimum-tie-goes-to-x", np.minimum, [[2.0], [2.0]], [[1.0], [0.0]], None),
    ("clip-boundaries-inclusive", lambda x: np.clip(x, 0.0, 1.0), [[-1.0, 0.0, 0.5, 1.0, 2.0]],
     [[0.0, 1.0, 1.0, 1.0, 0.0]], None),
    ("clip-no-lower", lambda x: np.clip(x, None, 1.0), [[-5.0, 1.0, 2.0]], [[1.0, 1.0, 0.0]], None),
    ("clip-no-upper", lambda x: np.clip(x, 0.0, None), [[-1.0, 0.0, 3.0]], [[0.0, 1.0, 1.0]], None),
    ("clip-tensor-bounds", lambda x, lo, hi: np.clip(x, lo, hi), [[-1.0, 0.5, 2.0, 3.0], 0.0, 1.0],
     [[0.0, 1.0, 0.0, 0.0], 1.0, 2.0], None),
    ("where-chosen-branch-only", lambda a, b: np.where(np.array([True, False, True]), a, b),
     [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], None),
    ("where-broadcast-scalar-branch", lambda a, b: np.where(np.array([True, False, False]), a, b),
     [[1.0, 2.0, 3.0], 9.0], [[1.0, 0.0, 0.0], 2.0], None),
    ("where-condition-from-tensor", lambda a: np.where(a > 0, a, 0.0) * 3.0,
     [[-1.0, 2.0, 0.5]], [[0.0, 3.0, 3.0]], None),
    # reductions
    ("sum", np.sum, [np.zeros((2, 3))], [np.ones((2, 3))], None),
    ("sum-axis0", lambda x: np.sum(x, axis=0), [np.zeros((2, 3))], [[[1.0, 2, 3], [1, 2, 3]]], [1.0, 2, 3]),
    ("sum-axis1-keepdims", lambda x: np.sum(x, axis=1, keepdims=True), [np.zeros((2, 3))],
     [[[1.0, 1, 1], [2, 2, 2]]], [[1.0], [2.0]]),
    ("sum-axis-tuple", lambda x: np.sum(x, axis=(0, 2)), [np.zeros((2, 2, 2))],
     [[[[1.0, 1], [2, 2]], [[1, 1], [2, 2]]]], [1.0, 2.0]),
    ("mean-is-1-over-n", np.mean, [np.zeros((2, 3))], [np.full((2, 3), 1 / 6)], None),
    ("mean-axis1", lambda x: np.mean(x, axis=1), [np.zeros((2, 3))],
     [[[1 / 3] * 3, [2 / 3] * 3]], [1.0, 2.0]),
    ("prod", np.prod, [[2.0, 3.0, 4.0]], [[12.0, 8.0, 6.0]], None),
    ("prod-with-a-zero", np.prod, [[0.0, 2.0, 3.0]], [[6.0, 0.0, 0.0]], None),
    ("prod-axis1", lambda x: np.prod(x, axis=1), [[[1.0, 2.0], [3.0, 4.0]]], [[[2.0, 1.0], [4.0, 3.0]]], None),
    ("max", np.max, [[1.0, 3.0, 2.0]], [[0.0, 1.0, 0.0]], None),
    ("max-ties-split-equally", np.max, [[1.0, 3.0, 3.0]], [[0.0, 0.5, 0.5]], None),
    ("max-axis1-ties", lambda x: np.max(x, axis=1), [[[1.0, 1.0], [2.0, 0.0]]],
     [[[1.0, 1.0], [2.0, 0.0]]], [2.0, 2.0]),
    ("amax-keepdims", lambda x: np.amax(x, axis=0, keepdims=True), [[[1.0, 4.0], [3.0, 4.0]]],
     [[[0.0, 0.5], [1.0, 0.5]]], [[1.0, 1.0]]),
    ("min", np.min, [[1.0, -3.0, 2.0]], [[0.0, 1.0, 0.0]], None),
    ("min-ties-split-equally", np.min, [[2.0, 1.0, 1.0, 1.0]], [[0.0, 1 / 3, 1 / 3, 1 / 3]], None),
    ("var", np.var, [[1.0, 2.0, 3.0, 4.0]], [[-0.75, -0.25, 0.25, 0.75]], None),
    ("var-ddof1", lambda x: np.var(x, ddof=1), [[1.0, 2.0, 3.0, 4.0]], [[-1.0, -1 / 3, 1 / 3, 1.0]], None),
    ("var-axis0", lambda x: np.var(x, axis=0), [[[1.0, 0.0], [3.0, 0.0]]], [[[-1.0, 0.0], [1.0, 0.0]]], None),
    ("std", np.std, [[1.0, 3.0]], [[-0.5, 0.5]], None),
    ("std-ddof1", lambda x: np.std(x, ddof=1), [[1.0, 3.0]], [[-1 / math.sqrt(2), 1 / math.sqrt(2)]], None),
    ("std-axis1-keepdims", lambda x: np.std(x, axis=1, keepdims=True), [[[1.0, 3.0], [0.0, 4.0]]],
     [[[-0.5, 0.5], [-1.0, 1.0]]], [[1.0], [2.0]]),
    ("cumsum-is-reverse-cumsum", np.cumsum, [[1.0, 2.0, 3.0]], [[3.0, 2.0, 1.0]], None),
    ("cumsum-output-gradients", np.cumsum, [[1.0, 2.0, 3.0]], [[6.0, 5.0, 3.0]], [1.0, 2.0, 3.0]),
    ("cumsum-axis1", lambda x: np.cumsum(x, axis=1), [np.zeros((2, 3))],
     [[[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]], [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
    ("cumsum-axis0", lambda x: np.cumsum(x, axis=0), [np.zeros((2, 2))],
     [[[3.0, 1.0], [2.0, 0.0]]], [[1.0, 1.0], [2.0, 0.0]]),
    ("cumsum-2d-flattened", np.cumsum, [np.zeros((2, 2))], [[[4.0, 3.0], [2.0, 1.0]]], None),
    # d/dx_k sum_i cumprod(x)_i = sum_(i >= k) prod_(j <= i, j != k) x_j, zeros included
    ("cumprod-one-zero", np.cumprod, [[2.0, 0.0, 3.0]], [[1.0, 8.0, 0.0]], None),
    ("cumprod-two-zeros", np.cumprod, [[2.0, 0.0, 0.0, 5.0]], [[1.0, 2.0, 0.0, 0.0]], None),
    ("cumprod-axis0-output-gradients", lambda x: np.cumprod(x, axis=0), [[[2.0, 0.0], [3.0, 4.0]]],
     [[[1.0 + 3.0 * 10.0, 1.0 + 4.0 * 100.0], [2.0 * 10.0, 0.0]]], [[1.0, 1.0], [10.0, 100.0]]),
    # linear algebra
    ("matmul-2d", lambda a, b: a @ b, [[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]],
     [[[11.0, 15.0], [11.0, 15.0]], [[4.0, 4.0], [6.0, 6.0]]], None),
    ("matmul-1d-1d", lambda a, b: a @ b, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
     [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]], None),
    ("matmul-2d-1d", lambda a, b: a @ b, [[[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0]],
     [[[1.0, 2.0], [1.0, 2.0]], [4.0, 6.0]], None),
    ("matmul-1d-2d", lambda a, b: a @ b, [[1.0, 2.0], [[1.0, 2.0], [3.0, 4.0]]],
     [[3.0, 7.0], [[1.0, 1.0], [2.0, 2.0]]], None),
    ("matmul-1d-batched", lambda a, b: a @ b, [[1.0, 2.0], [np.eye(2), 2 * np.eye(2)]],
     [[3.0, 3.0], [[[1.0, 1.0], [2.0, 2.0]], [[1.0, 1.0], [2.0, 2.0]]]], None),
    ("dot-1d-1d", np.dot, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]], None),
    ("dot-scalar", np.dot, [2.0, [1.0, 2.0]], [3.0, [2.0, 2.0]], None),
    ("outer", np.outer, [[1.0, 2.0], [3.0, 4.0, 5.0]], [[12.0, 12.0], [3.0, 3.0, 3.0]], None),
    ("einsum-inner", lambda a, b: np.einsum("i,i->", a, b), [[1.0, 2.0], [3.0, 4.0]],
     [[3.0, 4.0], [1.0, 2.0]], None),
    ("einsum-letter-only-one-operand-has", lambda a, v: np.einsum("ij,k->i", a, v),
     [[[1.0, 2.0], [3.0, 4.0]], [1.0, 2.0, 3.0]], [[[6.0, 6.0], [12.0, 12.0]], [17.0, 17.0, 17.0]],
     [1.0, 2.0]),
    ("einsum-implicit-is-transpose", lambda a: np.einsum("ji", a), [np.zeros((2, 2))],
     [[[1.0, 3.0], [2.0, 4.0]]], [[1.0, 2.0], [3.0, 4.0]]),
    # shape ops
    ("transpose", lambda x: x.T, [np.zeros((2, 3))], [[[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]],
     [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
    ("reshape", lambda x: np.reshape(x, (4,)), [np.zeros((2, 2))], [[[1.0, 2.0], [3.0, 4.0]]],
     [1.0, 2.0, 3.0, 4.0]),
    ("ravel", np.ravel, [np.zeros((2, 2))], [[[1.0, 2.0], [3.0, 4.0]]], [1.0, 2.0, 3.0, 4.0]),
    ("squeeze", np.squeeze, [np.zeros((1, 2))], [[[5.0, 6.0]]], [5.0, 6.0]),
    ("expand_dims", lambda x: np.expand_dims(x, 1), [[0.0, 0.0]], [[5.0, 6.0]], [[5.0], [6.0]]),
    ("swapaxes", lambda x: np.swapaxes(x, 0, 1), [np.zeros((1, 2))], [[[5.0, 6.0]]], [[5.0], [6.0]]),
    ("moveaxis", lambda x: np.moveaxis(x, 0, -1), [np.zeros((2, 1, 2))],
     [[[[1.0, 3.0]], [[2.0, 4.0]]]], [[[1.0, 2.0], [3.0, 4.0]]]),
    ("broadcast_to", lambda x: np.broadcast_to(x, (2, 3)), [[0.0, 0.0, 0.0]], [[2.0, 2.0, 2.0]], None),
    ("broadcast_to-column", lambda x: np.broadcast_to(x, (2, 3)), [[[0.0], [0.0]]], [[[6.0], [15.0]]],
     [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ("flip", np.flip, [[0.0, 0.0, 0.0]], [[3.0, 2.0, 1.0]], [1.0, 2.0, 3.0]),
    ("concatenate", lambda a, b: np.concatenate([a, b]), [[0.0], [0.0, 0.0]], [[1.0], [2.0, 3.0]],
     [1.0, 2.0, 3.0]),
    ("concatenate-same-tensor-twice", lambda a: np.concatenate([a, a]), [[0.0, 0.0]], [[4.0, 6.0]],
     [1.0, 2.0, 3.0, 4.0]),
    ("stack", lambda a, b: np.stack([a, b]), [[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [3.0, 4.0]],
     [[1.0, 2.0], [3.0, 4.0]]),
    ("stack-axis1", lambda a, b: np.stack([a, b], axis=1), [[0.0, 0.0], [0.0, 0.0]],
     [[1.0, 3.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]),
    ("split", lambda x: _weigh_pieces(np.split(x, 2)), [[0.0, 0.0, 0.0, 0.0]], [[1.0, 1.0, 2.0, 2.0]], None),
    ("split-unused-piece", lambda x: np.sum(np.split(x, [1])[1]), [[0.0, 0.0, 0.0]], [[0.0, 1.0, 1.0]], None),
    # indexing
    ("getitem-repeated-index-scatter-adds", lambda x: x[[0, 0, 2]], [[0.0, 0.0, 0.0]], [[2.0, 0.0, 1.0]], None),
    ("getitem-repeated-with-output-gradients", lambda x: x[[0, 0, 2]], [[0.0, 0.0, 0.0]],
     [[11.0, 0.0, 100.0]], [1.0, 10.0, 100.0]),
    ("getitem-negative-repeated", lambda x: x[[-1, -1, 0]], [[0.0, 0.0, 0.0]], [[1.0, 0.0, 2.0]], None),
    ("getitem-2d-index-array", lambda x: x[np.array([[0, 1], [1, 1]])], [[0.0, 0.0, 0.0]],
     [[1.0, 3.0, 0.0]], None),
    ("getitem-pair-of-int-lists", lambda x: x[[0, 0, 1], [1, 1, 0]], [np.zeros((2, 2))],
     [[[0.0, 2.0], [1.0, 0.0]]], None),
    ("getitem-tensor-index", lambda x: x[gm.constant(np.array([1, 1]))], [[0.0, 0.0, 0.0]],
     [[0.0, 2.0, 0.0]], None),
    ("getitem-slice", lambda x: x[1:], [[0.0, 0.0, 0.0]], [[0.0, 1.0, 1.0]], None),
    ("getitem-step", lambda x: x[::2], [[0.0] * 5], [[1.0, 0.0, 1.0, 0.0, 1.0]], None),
    ("getitem-int", lambda x: x[1], [np.zeros((2, 2))], [[[0.0, 0.0], [3.0, 4.0]]], [3.0, 4.0]),
    ("getitem-mask", lambda x: x[np.array([True, False, True])], [[0.0, 0.0, 0.0]], [[1.0, 0.0, 1.0]], None),
    ("getitem-mask-list", lambda x: x[[True, False, True]], [[0.0, 0.0, 0.0]], [[1.0, 0.0, 1.0]], None),
    ("getitem-mask-from-tensor", lambda x: x[x > 0], [[-1.0, 2.0, 3.0]], [[0.0, 1.0, 1.0]], None),
    ("getitem-slice-and-mask", lambda x: x[1:, np.array([True, False, True])], [np.zeros((3, 3))],
     [[[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 0.0, 1.0]]], None),
    ("getitem-none", lambda x: x[None], [[0.0, 0.0]], [[1.0, 2.0]], [[1.0, 2.0]]),
    ("getitem-ellipsis", lambda x: x[..., 1], [np.zeros((2, 2))], [[[0.0, 1.0], [0.0, 2.0]]], [1.0, 2.0]),
    # casts
    ("astype-float32", lambda x: x.astype(np.float32) * 3.0, [[1.0, 2.0]], [[3.0, 3.0]], None),
]


@pytest.mark.parametrize("fn,inputs,expected,og", [pytest.param(*c[1:], id=c[0]) for c in HAND])
def test_hand_derived_gradient(fn, inputs, expected, og):
    grads = tape_grads(fn, inputs, og)
    assert len(grads) == len(expected)
    for g, e in zip(grads, expected):
        assert g is not None
        assert g.dtype == np.float64
        assert g.shape == np.shape(e)
        np.testing.assert_allclose(g.numpy(), e, rtol=1e-12, atol=1e-12)


def test_where_single_tensor_used_in_both_branches():
    # a tensor in both branches gets the whole gradient, each element exactly once
    (g,) = tape_grads(lambda x: np.where(np.array([True, False]), x * 2.0, x * 5.0), [[1.0, 1.0]])
    np.testing.assert_array_equal(g.numpy(), [2.0, 5.0])


def test_where_gradient_to_unused_branch_is_zero_not_none():
    a = gm.constant(np.array([1.0, 2.0]))
    b = gm.constant(np.array([3.0, 4.0]))
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = np.where(np.array([True, True]), a, b)
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_array_equal(ga.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(gb.numpy(), [0.0, 0.0])


@pytest.mark.filterwarnings("ignore:divide by zero")  # d/dx x**0.5 at 0 is inf, rightly
def test_power_exponent_gradient_over_zero_base_is_finite():
    x = np.array([0.0, 0.0, 1.5])
    y = np.array([2.0, 0.5, 2.0])
    gx, gy = tape_grads(lambda a, b: a ** b, [x, y])
    assert np.all(np.isfinite(gy.numpy()))
    np.testing.assert_allclose(gy.numpy(), [0.0, 0.0, 1.5 ** 2 * math.log(1.5)], rtol=1e-12)
    np.testing.assert_allclose(gx.numpy()[[0, 2]], [0.0, 3.0], rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("zero", [0, 0.0], ids=["int", "float"])
def test_power_to_a_zero_exponent_has_a_zero_gradient_even_at_zero(zero, dtype):
    # 0 * x ** -1 would be NaN at x = 0: x ** 0 is the constant 1
    (gx,) = tape_grads(lambda a: a ** zero, [[-1.0, 0.0, 2.0]], dtype=dtype)
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0, 0.0])
    assert gx.dtype == dtype


def test_the_fifth_derivative_of_x_to_the_fourth_is_zero_at_zero():
    # each derivative lowers the exponent by one, to x ** 0.0 whose own derivative was NaN
    x = gm.constant([-1.0, 0.0, 1.0])
    tapes = [gm.GradientTape() for _ in range(5)]
    derivatives = []
    with tapes[0], tapes[1], tapes[2], tapes[3]:
        for t in tapes:
            t.watch(x)
        with tapes[4]:
            y = x ** 4.0
        for t in reversed(tapes[1:]):  # the innermost first, each recorded by the outer ones
            y = t.gradient(y, x)
            derivatives.append(y.numpy())
    derivatives.append(tapes[0].gradient(y, x).numpy())
    want = [[-4, 0, 4], [12, 0, 12], [-24, 0, 24], [24, 24, 24], [0, 0, 0]]
    for k, (got, expected) in enumerate(zip(derivatives, want), 1):
        np.testing.assert_array_equal(got, expected, err_msg=f"derivative {k}")


# ---------------------------------------------------------------------------------------
# second order: the rules themselves are recorded and differentiated
# ---------------------------------------------------------------------------------------

SECOND_ORDER = (
    [(f"unary-{n}", [d], [(2, 3)], f) for n, f, d in UNARY]
    + [(f"binary-{n}", [dx, dy], [(2, 3), (3,)], _binary_fn(u, o)) for n, u, o, dx, dy in BINARY]
    + [
        ("sum", [uniform(-2, 2)], [(2, 3)], lambda x: np.sum(x, axis=0) ** 2),
        ("mean", [uniform(-2, 2)], [(2, 3)], lambda x: np.mean(x, axis=1) ** 2),
        ("prod", [magnitude(0.5, 1.5)], [(2, 3)], lambda x: np.prod(x, axis=1)),
        ("max", [distinct], [(2, 3)], lambda x: np.max(x, axis=1) ** 2),
        ("min", [distinct], [(2, 3)], lambda x: np.min(x) ** 2),
        ("var", [uniform(-2, 2)], [(2, 3)], lambda x: np.var(x, axis=1, ddof=1)),
        ("std", [uniform(-2, 2)], [(2, 3)], lambda x: np.std(x, axis=0)),
        ("cumsum", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumsum(x, axis=1) ** 2),
        ("cumsum-flat", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumsum(x) ** 2),
        ("cumprod", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumprod(x, axis=1)),
        ("cumprod-flat", [uniform(-2, 2)], [(2, 3)], lambda x: np.cumprod(x) ** 2),
        ("logsumexp", [uniform(-2, 2)], [(2, 3)], lambda x: gm.logsumexp(x, axis=0)),
        ("matmul", [uniform(-2, 2)] * 2, [(2, 3), (3, 4)], lambda a, b: (a @ b) ** 2),
        ("matmul-batched-1d", [uniform(-2, 2)] * 2, [(3,), (2, 3, 4)], lambda a, b: (a @ b) ** 2),
        ("outer", [uniform(-2, 2)] * 2, [(2,), (3,)], lambda a, b: np.outer(a, b) ** 2),
        ("einsum", [uniform(-2, 2)] * 2, [(2, 3), (3, 4)], lambda a, b: np.einsum("ij,jk->i", a, b) ** 2),
        ("transpose", [uniform(-2, 2)], [(2, 3, 4)], lambda x: np.transpose(x, (1, 2, 0)) ** 3),
        ("reshape", [uniform(-2, 2)], [(2, 3)], lambda x: np.reshape(x, (3, 2)) ** 3),
        ("squeeze-expand_dims", [uniform(-2, 2)], [(1, 3)], lambda x: np.expand_dims(np.squeeze(x), 1) ** 3),
        ("broadcast_to", [uniform(-2, 2)], [(3,)], lambda x: np.broadcast_to(x, (2, 3)) ** 3),
        ("flip", [uniform(-2, 2)], [(2, 3)], lambda x: np.flip(x, 0) ** 3),
        ("concatenate", [uniform(-2, 2)] * 2, [(2, 3), (1, 3)], lambda a, b: np.concatenate([a, b]) ** 3),
        ("stack", [uniform(-2, 2)] * 2, [(2, 3), (2, 3)], lambda a, b: np.stack([a, b], axis=1) ** 3),
        ("getitem-repeated", [uniform(-2, 2)], [(3,)], lambda x: x[[0, 0, 2]] ** 3),
        ("getitem-mask", [uniform(-2, 2)], [(2, 3)], lambda x: x[MASK23] ** 3),
        ("getitem-slice", [uniform(-2, 2)], [(3, 4)], lambda x: x[1:, ::2] ** 3),
        ("where", [uniform(-2, 2)] * 2, [(2, 3), (3,)], lambda a, b: np.where(COND, a, b) ** 3),
        ("clip", [grid(0.1)], [(2, 3)], lambda x: np.clip(x, -0.6, 0.4) ** 3),
    ]
)


@pytest.mark.parametrize("name,domains,shapes,fn", [pytest.param(*c, id=c[0]) for c in SECOND_ORDER])
def test_second_order_matches_finite_differences(name, domains, shapes, fn):
    arrays = draw(domains, shapes, "second", name)
    assert_op(fn, *arrays, key=("second", name), order=2)


# ---------------------------------------------------------------------------------------
# 5. hypothesis: random compositions over random broadcastable shapes
# ---------------------------------------------------------------------------------------

SMOOTH_UNARY = {
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "arctan": np.arctan,
    "sigmoid": gm.sigmoid, "softplus": gm.softplus, "negative": np.negative,
    "log1p(x^2)": lambda x: np.log1p(x * x), "sqrt(1+x^2)": lambda x: np.sqrt(1.0 + x * x),
    "exp(tanh)": lambda x: np.exp(np.tanh(x)), "arcsinh": np.arcsinh, "half": lambda x: x / 2.0,
}
SMOOTH_BINARY = {
    # values stay moderate (no repeated squaring), so finite differences stay exact enough
    "add": operator.add, "subtract": operator.sub, "a*tanh(b)": lambda a, b: a * np.tanh(b),
    "logaddexp": np.logaddexp, "a/(1+b^2)": lambda a, b: a / (1.0 + b * b),
    "(1+sigmoid(a))^tanh(b)": lambda a, b: (1.0 + gm.sigmoid(a)) ** np.tanh(b),
    "hypot(a,1+tanh(b)^2)": lambda a, b: np.hypot(a, 1.0 + np.tanh(b) ** 2),
}
FINAL = {
    "sum": np.sum, "mean": np.mean, "logsumexp": gm.logsumexp,
    "var": np.var, "sum-of-cumsum": lambda v: np.sum(np.cumsum(v)),
}
ELEMENTS = st.floats(-1.5, 1.5, allow_nan=False, allow_infinity=False, allow_subnormal=False)


@st.composite
def compositions(draw_):
    shapes = draw_(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3)).input_shapes
    x = draw_(hnp.arrays(np.float64, shapes[0], elements=ELEMENTS))
    y = draw_(hnp.arrays(np.float64, shapes[1], elements=ELEMENTS))
    steps = []
    for k in range(draw_(st.integers(1, 4))):
        n = 2 + k  # values available: x, y and the results so far
        if draw_(st.booleans()):
            steps.append(("unary", draw_(st.sampled_from(sorted(SMOOTH_UNARY))), draw_(st.integers(0, n - 1))))
        else:
            steps.append(("binary", draw_(st.sampled_from(sorted(SMOOTH_BINARY))),
                          draw_(st.integers(0, n - 1)), draw_(st.integers(0, n - 1))))
    return x, y, steps, draw_(st.sampled_from(sorted(FINAL)))


def run_composition(steps, final):
    def f(x, y):
        values = [x, y]
        for step in steps:
            if step[0] == "unary":
                values.append(SMOOTH_UNARY[step[1]](values[step[2]]))
            else:
                values.append(SMOOTH_BINARY[step[1]](values[step[2]], values[step[3]]))
        return FINAL[final](values[-1])
    return f


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(compositions())
def test_composition_matches_finite_differences(case):
    x, y, steps, final = case
    f = run_composition(steps, final)
    value = f(gm.constant(x), gm.constant(y))
    np.testing.assert_allclose(value.numpy(), f(x, y), rtol=1e-12, atol=1e-12)
    report = gm.check_grad(f, x, y, atol=1e-6)
    assert report, str(report)


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.data())
def test_reduction_random_axes_matches_finite_differences(data):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=3), label="shape")
    x = data.draw(hnp.arrays(np.float64, shape, elements=ELEMENTS), label="x")
    ndim = len(shape)
    axis = data.draw(st.none() | st.integers(-ndim, ndim - 1) | hnp.valid_tuple_axes(ndim, min_size=1),
                     label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    name = data.draw(st.sampled_from(["sum", "mean", "var", "logsumexp"]), label="op")
    fn = {"sum": np.sum, "mean": np.mean, "var": np.var, "logsumexp": gm.logsumexp}[name]
    out_shape = np.shape(fn(x, axis=axis, keepdims=keepdims))
    w = np.linspace(-1.0, 2.0, math.prod(out_shape)).reshape(out_shape)
    report = gm.check_grad(lambda t: np.sum(fn(t, axis=axis, keepdims=keepdims) * w), x)
    assert report, str(report)


# ---------------------------------------------------------------------------------------
# 6. the dispatch tables are complete; unknown functions fail loudly
# ---------------------------------------------------------------------------------------

UFUNC_ITEMS = sorted(ops.UFUNCS.items(), key=lambda kv: kv[0].__name__)


@pytest.mark.parametrize("ufunc,prim", [pytest.param(u, p, id=u.__name__) for u, p in UFUNC_ITEMS])
def test_ufunc_table_entry_has_rule_or_is_declared_nondiff(ufunc, prim):
    assert prim.vjps is not None or prim.differentiable is False
    if prim.differentiable:
        assert len(prim.vjps) == ufunc.nin  # one rule per argument
    else:
        assert prim.vjps is None  # a declared non-differentiable op is never recorded


# every differentiable ufunc: the domains it is checked on
UFUNC_DOMAINS = {u: [dx, dy] for _, u, _, dx, dy in BINARY}
UFUNC_DOMAINS.update({f: [d] for _, f, d in UNARY if isinstance(f, np.ufunc)})
UFUNC_DOMAINS[np.matmul] = "matmul"

DIFF_UFUNCS = [(u, p) for u, p in UFUNC_ITEMS if p.differentiable]
NONDIFF_UFUNCS = [(u, p) for u, p in UFUNC_ITEMS if not p.differentiable]


@pytest.mark.parametrize("ufunc", [pytest.param(u, id=u.__name__) for u, _ in DIFF_UFUNCS])
def test_ufunc_table_differentiable_entry_records_gradient(ufunc):
    domains = UFUNC_DOMAINS[ufunc]
    if domains == "matmul":
        arrays = draw([uniform(-2, 2)] * 2, [(2, 3), (3, 4)], "ufunc", ufunc.__name__)
    else:
        arrays = draw(domains, [(2, 3), (3,)][: len(domains)], "ufunc", ufunc.__name__)
    xs = [gm.constant(a) for a in arrays]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = ufunc(*xs)
    assert all(g is not None for g in tape.gradient(y, xs))
    assert_op(ufunc, *arrays, key=("ufunc", ufunc.__name__))


S = np.array([-2.5, -1.0, 0.0, 0.5, 1.5, 3.0])
SPECIALS = np.array([np.nan, 0.0, np.inf, 0.0, -np.inf, 0.0])

# every non-differentiable ufunc: its arguments, built from the watched float tensor s
NONDIFF_UFUNC_ARGS = {
    np.equal: lambda s: (s, np.flip(s)),
    np.not_equal: lambda s: (s, np.flip(s)),
    np.less: lambda s: (s, np.flip(s)),
    np.less_equal: lambda s: (s, np.flip(s)),
    np.greater: lambda s: (s, np.flip(s)),
    np.greater_equal: lambda s: (s, np.flip(s)),
    np.logical_and: lambda s: (s > 0, s < 2),
    np.logical_or: lambda s: (s > 0, s < -2),
    np.logical_xor: lambda s: (s > 0, s < 2),
    np.logical_not: lambda s: (s > 0,),
    np.floor_divide: lambda s: (s, 2.0),
    np.isnan: lambda s: (s + SPECIALS,),
    np.isinf: lambda s: (s + SPECIALS,),
    np.isfinite: lambda s: (s + SPECIALS,),
    np.signbit: lambda s: (s,),
    np.floor: lambda s: (s,),
    np.ceil: lambda s: (s,),
    np.trunc: lambda s: (s,),
    np.rint: lambda s: (s,),
    np.bitwise_and: lambda s: (s.astype(np.int64), 3),
    np.bitwise_or: lambda s: (s.astype(np.int64), 4),
    np.bitwise_xor: lambda s: (s.astype(np.int64), 5),
    np.invert: lambda s: (s.astype(np.int64),),
}


@pytest.mark.parametrize("ufunc", [pytest.param(u, id=u.__name__) for u, _ in NONDIFF_UFUNCS])
def test_ufunc_table_nondiff_entry_runs_unconnected(ufunc):
    s = gm.constant(S)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(s)
        y = ufunc(*NONDIFF_UFUNC_ARGS[ufunc](s))
        z = y * s if y.dtype.kind == "f" else None
    assert isinstance(y, gm.Tensor)
    np.testing.assert_array_equal(y.numpy(), ufunc(*NONDIFF_UFUNC_ARGS[ufunc](S)))
    assert tape.gradient(y, s) is None
    if z is not None:  # float results (floor, ceil ...) are constants: d(y * s)/ds is y
        np.testing.assert_array_equal(tape.gradient(z, s).numpy(), y.numpy())


# every function in ops.FUNCTIONS: domains, shapes and a call
FUNCTION_CASES = {
    np.sum: ([uniform(-2, 2)], [(2, 3)], lambda x: np.sum(x, axis=1)),
    np.mean: ([uniform(-2, 2)], [(2, 3)], lambda x: np.mean(x, axis=0, keepdims=True)),
    np.prod: ([magnitude(0.5, 1.5)], [(2, 3)], lambda x: np.prod(x, axis=-1)),
    np.max: ([distinct], [(2, 3)], lambda x: np.max(x, axis=1)),
    np.min: ([distinct], [(2, 3)], lambda x: np.min(x, axis=0)),
    np.amax: ([distinct], [(2, 3)], lambda x: np.amax(x)),
    np.amin: ([distinct], [(2, 3)], lambda x: np.amin(x, axis=1, keepdims=True)),
    np.var: ([uniform(-2, 2)], [(2, 3)], lambda x: np.var(x, axis=1, ddof=1)),
    np.std: ([uniform(-2, 2)], [(2, 3)], lambda x: np.std(x)),
    np.cumsum: ([uniform(-2, 2)], [(2, 3)], lambda x: np.cumsum(x, axis=1)),
    np.cumprod: ([uniform(-2, 2)], [(2, 3)], lambda x: np.cumprod(x, axis=0)),
    np.reshape: ([uniform(-2, 2)], [(2, 3)], lambda x: np.reshape(x, (3, 2))),
    np.transpose: ([uniform(-2, 2)], [(2, 3)], lambda x: np.transpose(x)),
    np.swapaxes: ([uniform(-2, 2)], [(2, 3)], lambda x: np.swapaxes(x, 0, 1)),
    np.moveaxis: ([uniform(-2, 2)], [(2, 3, 4)], lambda x: np.moveaxis(x, 0, -1)),
    np.squeeze: ([uniform(-2, 2)], [(1, 3)], lambda x: np.squeeze(x)),
    np.expand_dims: ([uniform(-2, 2)], [(2, 3)], lambda x: np.expand_dims(x, 1)),
    np.broadcast_to: ([uniform(-2, 2)], [(3,)], lambda x: np.broadcast_to(x, (2, 3))),
    np.ravel: ([uniform(-2, 2)], [(2, 3)], lambda x: np.ravel(x)),
    np.flip: ([uniform(-2, 2)], [(2, 3)], lambda x: np.flip(x, 1)),
    np.concatenate: ([uniform(-2, 2)] * 2, [(2, 3), (1, 3)], lambda a, b: np.concatenate([a, b])),
    np.stack: ([uniform(-2, 2)] * 2, [(2, 3), (2, 3)], lambda a, b: np.stack([a, b], axis=1)),
    np.split: ([uniform(-2, 2)], [(4, 3)], lambda x: _weigh_pieces(np.split(x, [1, 3]))),
    np.where: ([uniform(-2, 2)] * 2, [(2, 3), (3,)], lambda a, b: np.where(COND, a, b)),
    np.clip: ([grid(0.1)], [(2, 3)], lambda x: np.clip(x, -0.6, 0.4)),
    np.outer: ([uniform(-2, 2)] * 2, [(3,), (2,)], lambda a, b: np.outer(a, b)),
}


@pytest.mark.parametrize("func", [pytest.param(f, id=f.__name__) for f in ops.FUNCTIONS])
def test_function_table_entry_records_gradient(func):
    domains, shapes, fn = FUNCTION_CASES[func]
    arrays = draw(domains, shapes, "function", func.__name__)
    xs = [gm.constant(a) for a in arrays]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
    assert isinstance(y, gm.Tensor)
    assert all(g is not None for g in tape.gradient(y, xs))
    assert_op(fn, *arrays, key=("function", func.__name__))


def test_where_single_argument_is_the_declared_nondiff_form():
    x = gm.constant(np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.0]]))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rows, cols = np.where(x > 0)
    np.testing.assert_array_equal(rows.numpy(), [0, 0, 1])
    np.testing.assert_array_equal(cols.numpy(), [0, 2, 1])
    assert tape.gradient(rows, x) is None and tape.gradient(cols, x) is None


XS = np.sort(np.random.default_rng(7).uniform(-2, 2, (2, 3)), axis=1)

# every function in ops.NONDIFF_FUNCTIONS: a call on a Tensor (or on the raw array)
NONDIFF_CASES = {
    np.shape: lambda x: np.shape(x),
    np.ndim: lambda x: np.ndim(x),
    np.size: lambda x: np.size(x),
    np.argmax: lambda x: np.argmax(x, axis=1),
    np.argmin: lambda x: np.argmin(x, axis=0),
    np.argsort: lambda x: np.argsort(-x, axis=1),
    np.argwhere: lambda x: np.argwhere(x > 0),
    np.nonzero: lambda x: np.nonzero(x > 0),
    np.flatnonzero: lambda x: np.flatnonzero(x > 0),
    np.zeros_like: lambda x: np.zeros_like(x),
    np.ones_like: lambda x: np.ones_like(x),
    np.full_like: lambda x: np.full_like(x, 7.0),
    np.empty_like: lambda x: np.empty_like(x),  # values arbitrary: compared by shape/dtype
    np.allclose: lambda x: np.allclose(x, x + 1e-12),
    np.isclose: lambda x: np.isclose(x, x * np.array([1.0, 1.1, 1.0])),
    np.array_equal: lambda x: np.array_equal(x, x),
    np.count_nonzero: lambda x: np.count_nonzero(x > 0),
    np.any: lambda x: np.any(x > 1.0),
    np.all: lambda x: np.all(x > -5.0),
    np.round: lambda x: np.round(x, 1),
    np.around: lambda x: np.around(x, 2),
    np.result_type: lambda x: np.result_type(x),
    np.iscomplexobj: lambda x: np.iscomplexobj(x),
    np.isrealobj: lambda x: np.isrealobj(x),
    np.isscalar: lambda x: np.isscalar(x),
    np.searchsorted: lambda x: np.searchsorted(x[0], x[1]),
}


def _tensor_leaves(r):
    if isinstance(r, gm.Tensor):
        return [r]
    if isinstance(r, (list, tuple)):
        return [t for a in r for t in _tensor_leaves(a)]
    return []


@pytest.mark.parametrize("func", [pytest.param(f, id=f.__name__)
                                  for f in sorted(ops.NONDIFF_FUNCTIONS, key=lambda f: f.__name__)])
def test_nondiff_function_runs_on_tensor_unconnected(func):
    call = NONDIFF_CASES[func]
    x = gm.constant(XS)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        result = call(x)
    expected = call(XS)
    if func is np.empty_like:
        assert (result.shape, result.dtype) == (expected.shape, expected.dtype)
    else:
        np.testing.assert_equal(raw(result), expected)
    for leaf in _tensor_leaves(result):
        assert tape.gradient(leaf, x) is None


UNKNOWN = [
    ("roots", lambda t: np.roots(t[0]), "np.roots"),
    ("linalg-eig", lambda t: np.linalg.eig(t), "np.linalg.eig"),
    ("linalg-eigvals", lambda t: np.linalg.eigvals(t), "np.linalg.eigvals"),
    ("add-reduceat", lambda t: np.add.reduceat(t, [0, 1]), "np.add.reduceat"),
    ("subtract-accumulate", lambda t: np.subtract.accumulate(t), "np.subtract.accumulate"),
    ("add-at", lambda t: np.add.at(np.zeros(2), [0], t), "np.add.at"),
    ("histogram", lambda t: np.histogram(t), "np.histogram"),
    ("i0", lambda t: np.i0(t), "np.i0"),
    ("spacing-ufunc", lambda t: np.spacing(t), "np.spacing"),
]


@pytest.mark.parametrize("fn,name", [pytest.param(f, n, id=i) for i, f, n in UNKNOWN])
def test_unknown_numpy_function_raises_no_gradient_error(fn, name):
    # where a tape follows the Tensor (its gradient would be lost); NumPy's own function
    # runs on a Tensor no tape follows (tests/test_hardening.py)
    t = gm.constant(np.array([[2.0, 1.0], [1.0, 3.0]]))
    with gm.GradientTape() as tape, pytest.raises(gm.NoGradientError) as info:
        tape.watch(t)
        fn(t)
    assert isinstance(info.value, NotImplementedError)
    message = str(info.value)
    assert name in message
    assert "custom_gradient" in message


LIMITS = [
    ("var-where", lambda t: np.var(t, where=np.array([True, False]))),
    ("sum-out", lambda t: np.sum(t, out=np.empty(()))),
    ("exp-out", lambda t: np.exp(t, out=np.empty((2, 2)))),
]


@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in LIMITS])
def test_unsupported_form_raises_no_gradient_error(fn):
    t = gm.constant(np.array([[2.0, 1.0], [1.0, 3.0]]))
    with pytest.raises(gm.NoGradientError):
        fn(t)


# ---------------------------------------------------------------------------------------
# 7. comparisons and logical ops: right values, no gradient
# ---------------------------------------------------------------------------------------

A = np.array([1.0, 2.0, 3.0, -1.0])
B = np.array([1.0, 0.0, 4.0, -1.0])

COMPARE = [
    ("eq", lambda a, b: a == b),
    ("ne", lambda a, b: a != b),
    ("lt", lambda a, b: a < b),
    ("le", lambda a, b: a <= b),
    ("gt", lambda a, b: a > b),
    ("ge", lambda a, b: a >= b),
    ("eq-scalar", lambda a, b: a == 2.0),
    ("lt-scalar-reflected", lambda a, b: 2.0 < a),
    ("np-equal", lambda a, b: np.equal(a, b)),
    ("np-greater-equal", lambda a, b: np.greater_equal(a, b)),
    ("and", lambda a, b: (a > 0) & (b > 0)),
    ("or", lambda a, b: (a > 2) | (b > 2)),
    ("xor", lambda a, b: (a > 0) ^ (b > 0)),
    ("invert", lambda a, b: ~(a > 1)),
    ("np-logical_and", lambda a, b: np.logical_and(a > 0, b > 0)),
    ("np-logical_or", lambda a, b: np.logical_or(a > 2, b > 2)),
    ("np-logical_xor", lambda a, b: np.logical_xor(a > 0, b > 0)),
    ("np-logical_not", lambda a, b: np.logical_not(a > 1)),
    ("np-isnan", lambda a, b: np.isnan(a / b)),
    ("np-isfinite", lambda a, b: np.isfinite(np.log(b))),
    ("floordiv", lambda a, b: a // 2.0),
]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # a / 0 and log(0) on purpose
@pytest.mark.parametrize("fn", [pytest.param(f, id=i) for i, f in COMPARE])
def test_comparison_and_logical_have_values_and_no_gradient(fn):
    a, b = gm.constant(A), gm.constant(B)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = fn(a, b)
        as_float = np.where(y, 1.0, 0.0) if y.dtype == bool else y
        z = as_float * 3.0
    assert isinstance(y, gm.Tensor)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(y.numpy(), fn(A, B))
    assert tape.gradient(y, [a, b]) == [None, None]
    assert tape.gradient(z, [a, b]) == [None, None]
    zero = tape.gradient(z, a, unconnected_gradients="zero")
    np.testing.assert_array_equal(zero.numpy(), np.zeros(4))


def test_comparison_mask_does_not_block_the_gradient_of_the_selected_values():
    x = gm.constant(np.array([-1.0, 2.0, 3.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * (x > 0).astype(np.float64))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 1.0, 1.0])


def test_index_set_and_index_add_give_values_and_gradients_in_both_arguments():
    x = gm.constant(np.array([1.0, 2.0, 3.0, 4.0]))
    v = gm.constant(np.array([10.0, 20.0]))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([x, v])
        s = ops.index_set(x, np.array([0, 2]), v)
        a = ops.index_add(x, np.array([1, 1]), v)  # repeated indices add up
        ys, ya = np.sum(s * np.arange(1.0, 5.0)), np.sum(a * np.arange(1.0, 5.0))
    assert s.numpy().tolist() == [10.0, 2.0, 20.0, 4.0] and a.numpy().tolist() == [1.0, 32.0, 3.0, 4.0]
    assert tape.gradient(ys, x).numpy().tolist() == [0.0, 2.0, 0.0, 4.0]
    assert tape.gradient(ys, v).numpy().tolist() == [1.0, 3.0]
    assert tape.gradient(ya, x).numpy().tolist() == [1.0, 2.0, 3.0, 4.0]
    assert tape.gradient(ya, v).numpy().tolist() == [2.0, 2.0]
    assert ops.index_set(x, 1, 7.0).numpy().tolist() == [1.0, 7.0, 3.0, 4.0]  # a number broadcast


def test_bitwise_operators_are_numpys():
    """``&``, ``|``, ``^`` and ``~`` on integer Tensors are NumPy's bitwise operators (they
    were logical ones, so ``~5`` gave False); on bools the two agree."""
    a, b = gm.constant(np.array([5, 6, -7])), np.array([3, 3, 1])
    for op in (np.bitwise_and, np.bitwise_or, np.bitwise_xor):
        np.testing.assert_array_equal(op(a, b).value, op(a.value, b))
    np.testing.assert_array_equal((a & b).value, a.value & b)
    np.testing.assert_array_equal((a | b).value, a.value | b)
    np.testing.assert_array_equal((a ^ b).value, a.value ^ b)
    np.testing.assert_array_equal((3 & a).value, 3 & a.value)
    np.testing.assert_array_equal((~a).value, ~a.value)
    t = gm.constant(np.array([True, False]))
    np.testing.assert_array_equal((~t).value, [False, True])
    np.testing.assert_array_equal((t ^ True).value, [False, True])


def test_clip_with_bounds_the_wrong_way_round_gives_the_gradient_to_the_bound_it_returns():
    """``np.clip`` is ``min(max(x, lo), hi)``: where ``lo > hi`` every element is ``hi``, and
    the gradient is ``hi``'s (it went to ``lo`` where ``x < lo``)."""
    args = [np.array([2.0, 1.0, 5.0, 2.7]), np.array([3.0, 0.0, 0.0, 3.0]), np.array([2.5, 2.0, 4.0, 2.5])]
    xs = [gm.constant(a) for a in args]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = np.clip(*xs)
    np.testing.assert_array_equal(y.value, np.clip(*args))
    gx, glo, ghi = tape.gradient(y, xs)
    np.testing.assert_array_equal(gx.value, [0, 1, 0, 0])
    np.testing.assert_array_equal(glo.value, [0, 0, 0, 0])
    np.testing.assert_array_equal(ghi.value, [1, 0, 1, 1])
    for k in range(3):  # each against central differences (no element sits on a kink)
        def f(v, k=k):
            vals = list(args)
            vals[k] = v
            return np.clip(*vals)
        assert gm.check_grad(f, [args[k]])


def test_a_nan_reaches_the_gradient_of_max_and_maximum_as_in_tensorflow():
    """TensorFlow 2.21.0: the gradient of ``reduce_max([nan, 1, 2])`` is ``[nan nan nan]``
    (no element equals a NaN max: 0 / 0), and ``maximum(1., nan)``'s goes to the NaN side,
    as its ``x >= y`` mask sends what is not ``x``'s to ``y``. Both were 0: a NaN loss with a
    gradient that hid it."""
    x = gm.constant(np.array([[np.nan, 1.0, 2.0], [3.0, 3.0, 1.0]]))
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        hi, lo = np.max(x, axis=1), np.min(x, axis=1)
    for y in (hi, lo):
        g = tape.gradient(y, x).value
        assert np.isnan(g[0]).all()
    np.testing.assert_array_equal(tape.gradient(hi, x).value[1], [0.5, 0.5, 0.0])
    a, b = gm.constant(1.0), gm.constant(np.float32(np.nan))
    for f in (np.maximum, np.minimum):
        with gm.GradientTape() as tape:
            tape.watch([a, b])
            y = f(a, b)
        assert [float(v.value) for v in tape.gradient(y, [a, b])] == [0.0, 1.0]
