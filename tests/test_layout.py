"""NumPy's shape and layout functions on Tensors (``gradmagic/core/layout.py``): stacks,
splits, atleast_nd, flips, rot90, roll, rollaxis, repeat, tile, pad and append.

Each case runs one NumPy call on Tensors and on the arrays: the values must be NumPy's
(type of the container too: splits give lists, several atleast_nd arguments a tuple),
and the gradients of a random weighting of the output must agree with central finite
differences in float64, at first order and (through a sine, since the functions are
linear) at second order. Hand-derived gradients, float32, mixed Tensor/array inputs and
NumPy's errors are checked after.
"""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import dispatch, layout

from _cases import assert_same_on_module, module_marks, rng_for, sid, uniform

C23 = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])  # a plain array mixed with Tensors


def case(name, func, f, *shapes, marks=()):
    return pytest.param(func, f, shapes, id=f"{name}-{'x'.join(sid(s) for s in shapes)}",
                        marks=marks)


# -- 1. stacks, splits, atleast_nd ---------------------------------------------------------
STACKS = [
    case("atleast_1d", np.atleast_1d, lambda x: np.atleast_1d(x), ()),
    case("atleast_1d", np.atleast_1d, lambda x: np.atleast_1d(x), (3,)),
    case("atleast_1d-several", np.atleast_1d, lambda x, y: np.atleast_1d(x, y), (), (2, 3)),
    case("atleast_2d", np.atleast_2d, lambda x: np.atleast_2d(x), ()),
    case("atleast_2d", np.atleast_2d, lambda x: np.atleast_2d(x), (3,)),
    case("atleast_2d", np.atleast_2d, lambda x: np.atleast_2d(x), (2, 3)),
    case("atleast_2d-several", np.atleast_2d, lambda x, y: np.atleast_2d(x, y), (3,), ()),
    case("atleast_2d-mixed", np.atleast_2d, lambda x: np.atleast_2d(x, np.ones(3), 2.0), (3,)),
    case("atleast_3d", np.atleast_3d, lambda x: np.atleast_3d(x), ()),
    case("atleast_3d", np.atleast_3d, lambda x: np.atleast_3d(x), (3,)),
    case("atleast_3d", np.atleast_3d, lambda x: np.atleast_3d(x), (2, 3)),
    case("atleast_3d", np.atleast_3d, lambda x: np.atleast_3d(x), (2, 2, 3)),
    case("atleast_3d-several", np.atleast_3d, lambda x, y: np.atleast_3d(x, y), (2, 3), (3,)),
    case("hstack", np.hstack, lambda x, y: np.hstack([x, y]), (3,), (2,)),
    case("hstack", np.hstack, lambda x, y: np.hstack([x, y]), (2, 3), (2, 1)),
    case("hstack", np.hstack, lambda x, y: np.hstack((x, y)), (), ()),
    case("hstack-3d", np.hstack, lambda x, y: np.hstack([x, y]), (2, 1, 2), (2, 3, 2)),
    case("hstack-array", np.hstack, lambda x: np.hstack([x, C23]), (2, 3)),
    case("hstack-list", np.hstack, lambda x: np.hstack((x, [1.0, 2.0])), (3,)),
    case("hstack-rows-of", np.hstack, lambda x: np.hstack(x), (2, 3)),
    case("vstack", np.vstack, lambda x, y: np.vstack([x, y]), (3,), (3,)),
    case("vstack", np.vstack, lambda x, y: np.vstack([x, y]), (2, 3), (1, 3)),
    case("vstack", np.vstack, lambda x, y: np.vstack([x, y]), (2, 2, 3), (1, 2, 3)),
    case("vstack-array-first", np.vstack, lambda x: np.vstack([np.ones(3), x, C23]), (3,)),
    case("dstack", np.dstack, lambda x, y: np.dstack([x, y]), (3,), (3,)),
    case("dstack", np.dstack, lambda x, y: np.dstack([x, y]), (2, 3), (2, 3)),
    case("dstack", np.dstack, lambda x, y: np.dstack([x, y]), (2, 3, 1), (2, 3, 2)),
    case("dstack-array", np.dstack, lambda x: np.dstack([C23, x]), (2, 3)),
    case("column_stack", np.column_stack, lambda x, y: np.column_stack([x, y]), (3,), (3,)),
    case("column_stack", np.column_stack, lambda x, y: np.column_stack([x, y]), (3,), (3, 2)),
    case("column_stack", np.column_stack, lambda x, y: np.column_stack((x, y)), (), ()),
    case("column_stack-array", np.column_stack, lambda x: np.column_stack([x, C23.T]), (3,)),
    case("append", np.append, lambda x, y: np.append(x, y), (2, 3), (3,)),
    case("append-axis0", np.append, lambda x, y: np.append(x, y, axis=0), (2, 3), (1, 3)),
    case("append-axis-1", np.append, lambda x, y: np.append(x, y, axis=-1), (2, 3), (2, 2)),
    case("append-list", np.append, lambda x: np.append(x, [1.0, 2.0]), (2, 2)),
    case("append-to-array", np.append, lambda x: np.append(C23, x, axis=0), (1, 3)),
    case("array_split-3", np.array_split, lambda x: np.array_split(x, 3), (7,)),
    case("array_split-2-axis1", np.array_split, lambda x: np.array_split(x, 2, axis=1), (2, 3)),
    case("array_split-4-axis-1", np.array_split, lambda x: np.array_split(x, 4, axis=-1), (2, 3)),
    case("array_split-at-1,3", np.array_split, lambda x: np.array_split(x, [1, 3]), (5,)),
    case("array_split-at-1,10", np.array_split, lambda x: np.array_split(x, [1, 10]), (4,)),
    case("array_split-at-array", np.array_split,
         lambda x: np.array_split(x, np.array([2]), axis=1), (2, 4)),
    case("hsplit-2", np.hsplit, lambda x: np.hsplit(x, 2), (4,)),
    case("hsplit-at-1,3", np.hsplit, lambda x: np.hsplit(x, [1, 3]), (2, 4)),
    case("hsplit-2", np.hsplit, lambda x: np.hsplit(x, 2), (2, 4, 2)),
    case("vsplit-2", np.vsplit, lambda x: np.vsplit(x, 2), (4, 3)),
    case("vsplit-at-1", np.vsplit, lambda x: np.vsplit(x, [1]), (4, 3)),
    case("vsplit-at-3", np.vsplit, lambda x: np.vsplit(x, [3]), (4, 2, 2)),
    case("dsplit-2", np.dsplit, lambda x: np.dsplit(x, 2), (2, 2, 4)),
    case("dsplit-at-1,2", np.dsplit, lambda x: np.dsplit(x, [1, 2]), (1, 2, 4)),
]
if hasattr(np, "row_stack"):  # deprecated in NumPy 2.0; it warns on arrays and on Tensors
    STACKS += [case("row_stack", getattr(np, "row_stack"), lambda x, y: getattr(np, "row_stack")([x, y]),
                    (2, 3), (3,), marks=pytest.mark.filterwarnings("ignore::DeprecationWarning"))]

# -- 2. flips, rot90, roll, rollaxis -------------------------------------------------------
FLIPS = [
    case("flip-None", np.flip, lambda x: np.flip(x), (2, 3, 2)),
    case("flip-axis=None", np.flip, lambda x: np.flip(x, axis=None), (2, 3)),
    case("flip-0", np.flip, lambda x: np.flip(x, 0), (2, 3, 2)),
    case("flip--1", np.flip, lambda x: np.flip(x, -1), (2, 3, 2)),
    case("flip-(0,2)", np.flip, lambda x: np.flip(x, (0, 2)), (2, 3, 2)),
    case("fliplr", np.fliplr, lambda x: np.fliplr(x), (2, 3)),
    case("fliplr", np.fliplr, lambda x: np.fliplr(x), (2, 3, 2)),
    case("flipud", np.flipud, lambda x: np.flipud(x), (3,)),
    case("flipud", np.flipud, lambda x: np.flipud(x), (2, 3)),
    case("rot90", np.rot90, lambda x: np.rot90(x), (2, 3)),
    case("rot90-k2", np.rot90, lambda x: np.rot90(x, 2), (2, 3)),
    case("rot90-k3", np.rot90, lambda x: np.rot90(x, k=3), (2, 3)),
    case("rot90-k-1", np.rot90, lambda x: np.rot90(x, -1), (2, 3)),
    case("rot90-k0", np.rot90, lambda x: np.rot90(x, 0), (2, 3)),
    case("rot90-k5", np.rot90, lambda x: np.rot90(x, 5), (2, 3)),
    case("rot90-axes(1,0)", np.rot90, lambda x: np.rot90(x, axes=(1, 0)), (2, 3)),
    case("rot90-axes(0,2)", np.rot90, lambda x: np.rot90(x, 1, (0, 2)), (2, 3, 2)),
    case("rot90-k3-axes(-1,-2)", np.rot90, lambda x: np.rot90(x, 3, axes=(-1, -2)), (2, 3, 2)),
    case("roll-2-None", np.roll, lambda x: np.roll(x, 2), (2, 3)),
    case("roll-7-None", np.roll, lambda x: np.roll(x, 7, axis=None), (2, 3)),
    case("roll-(1,2)-None", np.roll, lambda x: np.roll(x, (1, 2)), (2, 3)),
    case("roll--1-0", np.roll, lambda x: np.roll(x, -1, axis=0), (2, 3)),
    case("roll-4-1", np.roll, lambda x: np.roll(x, 4, axis=1), (2, 3)),
    case("roll-0-1", np.roll, lambda x: np.roll(x, 0, axis=1), (2, 3)),
    case("roll-(1,2)-(0,1)", np.roll, lambda x: np.roll(x, (1, 2), axis=(0, 1)), (2, 3)),
    case("roll-1-(0,1)", np.roll, lambda x: np.roll(x, 1, axis=(0, 1)), (2, 3)),
    case("roll-(1,-2)-1", np.roll, lambda x: np.roll(x, (1, -2), axis=1), (2, 3)),
    case("roll-1--1", np.roll, lambda x: np.roll(x, 1, axis=-1), (2, 3, 2)),
    case("roll-1-None", np.roll, lambda x: np.roll(x, 1), ()),
    case("rollaxis-2", np.rollaxis, lambda x: np.rollaxis(x, 2), (2, 3, 4)),
    case("rollaxis-2-start1", np.rollaxis, lambda x: np.rollaxis(x, 2, 1), (2, 3, 4)),
    case("rollaxis-0-start3", np.rollaxis, lambda x: np.rollaxis(x, 0, start=3), (2, 3, 4)),
    case("rollaxis--1-start-2", np.rollaxis, lambda x: np.rollaxis(x, -1, -2), (2, 3, 4)),
    case("rollaxis-1-start1", np.rollaxis, lambda x: np.rollaxis(x, 1, 1), (2, 3, 4)),
    case("rollaxis-1-start2", np.rollaxis, lambda x: np.rollaxis(x, 1, 2), (2, 3, 4)),
]

# -- 3. repeat, tile ---------------------------------------------------------------------
REPEATS = [
    case("repeat-2-None", np.repeat, lambda x: np.repeat(x, 2), (2, 3)),
    case("repeat-2-0", np.repeat, lambda x: np.repeat(x, 2, axis=0), (2, 3)),
    case("repeat-3--1", np.repeat, lambda x: np.repeat(x, 3, axis=-1), (2, 3)),
    case("repeat-0-1", np.repeat, lambda x: np.repeat(x, 0, axis=1), (2, 3)),
    case("repeat-[1,0,2]-1", np.repeat, lambda x: np.repeat(x, [1, 0, 2], axis=1), (2, 3)),
    case("repeat-array-1", np.repeat, lambda x: np.repeat(x, np.array([2, 1]), axis=1), (3, 2)),
    case("repeat-[2]-0", np.repeat, lambda x: np.repeat(x, [2], axis=0), (2, 3)),
    case("repeat-counts-None", np.repeat, lambda x: np.repeat(x, [1, 2, 0, 1, 1, 3]), (2, 3)),
    case("repeat-3-scalar", np.repeat, lambda x: np.repeat(x, 3), ()),
    case("repeat-2-1", np.repeat, lambda x: np.repeat(x, 2, 1), (2, 2, 2)),
    case("tile-2", np.tile, lambda x: np.tile(x, 2), (3,)),
    case("tile-(2,1)", np.tile, lambda x: np.tile(x, (2, 1)), (2, 3)),
    case("tile-(2,2)", np.tile, lambda x: np.tile(x, (2, 2)), (3,)),
    case("tile-2-of-2d", np.tile, lambda x: np.tile(x, 2), (2, 3)),
    case("tile-(1,2,1)", np.tile, lambda x: np.tile(x, [1, 2, 1]), (2, 1, 3)),
    case("tile-(2,1,3)", np.tile, lambda x: np.tile(x, (2, 1, 3)), (2, 2)),
    case("tile-0", np.tile, lambda x: np.tile(x, (2, 0)), (2, 3)),
    case("tile-scalar", np.tile, lambda x: np.tile(x, 3), ()),
]

# -- 4. pad ------------------------------------------------------------------------------
PADS = [
    case("pad-1", np.pad, lambda x: np.pad(x, 1), (3,)),
    case("pad-1", np.pad, lambda x: np.pad(x, 1), (2, 3)),
    case("pad-0", np.pad, lambda x: np.pad(x, 0), (2, 3)),
    case("pad-(1,2)-1.5", np.pad, lambda x: np.pad(x, (1, 2), constant_values=1.5), (2, 3)),
    case("pad-[(1,2)]", np.pad, lambda x: np.pad(x, [(1, 2)], "constant"), (2, 3)),
    case("pad-per-axis", np.pad, lambda x: np.pad(x, ((1, 0), (2, 1)), constant_values=((1, 2), (3, 4))),
         (2, 3)),
    case("pad-per-axis-values-(5,6)", np.pad,
         lambda x: np.pad(x, ((0, 0), (1, 1)), constant_values=(5, 6)), (2, 3)),
    case("pad-3d", np.pad, lambda x: np.pad(x, ((1, 0), (0, 1), (1, 1)), constant_values=-1), (2, 2, 2)),
    case("pad-int-values", np.pad, lambda x: np.pad(x, 1, constant_values=7), (2, 2)),
    case("pad-edge-2", np.pad, lambda x: np.pad(x, 2, mode="edge"), (3,)),
    case("pad-edge", np.pad, lambda x: np.pad(x, ((1, 2), (2, 0)), "edge"), (2, 3)),
    case("pad-edge-3d", np.pad, lambda x: np.pad(x, ((0, 1), (1, 0), (2, 1)), "edge"), (2, 2, 2)),
    case("pad-reflect-1", np.pad, lambda x: np.pad(x, 1, mode="reflect"), (3,)),
    case("pad-reflect-2", np.pad, lambda x: np.pad(x, 2, mode="reflect"), (2, 3)),
    case("pad-reflect-repeated", np.pad, lambda x: np.pad(x, ((3, 2), (0, 4)), "reflect"), (2, 3)),
    case("pad-reflect-length1", np.pad, lambda x: np.pad(x, ((0, 0), (2, 1)), "reflect"), (2, 1)),
    case("pad-reflect-even", np.pad, lambda x: np.pad(x, 2, "reflect", reflect_type="even"), (3,)),
    case("pad-symmetric", np.pad, lambda x: np.pad(x, ((2, 5), (1, 1)), "symmetric"), (2, 3)),
    case("pad-wrap", np.pad, lambda x: np.pad(x, ((4, 1), (2, 2)), "wrap"), (2, 3)),
    case("pad-tensor-value", np.pad, lambda x, c: np.pad(x, 1, constant_values=c), (2, 3), ()),
    case("pad-tensor-values-per-axis", np.pad,
         lambda x, c: np.pad(x, ((1, 0), (1, 2)), constant_values=c), (2, 3), (2, 2)),
]

DIFFS = [
    case("diff", np.diff, lambda x: np.diff(x), (5,)),
    case("diff-axis0", np.diff, lambda x: np.diff(x, axis=0), (3, 4)),
    case("diff-n2", np.diff, lambda x: np.diff(x, n=2), (2, 5)),
    case("diff-n0", np.diff, lambda x: np.diff(x, n=0), (2, 3)),
    case("diff-n-past-the-length", np.diff, lambda x: np.diff(x, n=4), (3,)),
    case("diff-prepend-scalar", np.diff, lambda x: np.diff(x, prepend=0.5), (2, 3)),
    case("diff-append-tensor", np.diff, lambda x, y: np.diff(x, n=2, append=y), (2, 3), (2, 1)),
    case("diff-prepend-tensor-axis0", np.diff, lambda x, y: np.diff(x, axis=0, prepend=y), (2, 3), (1, 3)),
]

ALL = STACKS + FLIPS + REPEATS + PADS + DIFFS


# -- helpers -------------------------------------------------------------------------------
def draw(shapes, *key):
    rng = rng_for(*key)
    return [np.array(uniform(-2, 2)(rng, s), dtype=np.float64) for s in shapes]


def parts(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def weighting(f, expected, key, inner=lambda y: y):
    """``f`` followed by a random weighting of every part of its output (after ``inner``)."""
    rng = rng_for("weights", *key)
    weights = [rng.standard_normal(np.shape(p)) for p in parts(expected)]

    def weighted(*xs):
        return sum(np.sum(inner(p) * w) for p, w in zip(parts(f(*xs)), weights))
    return weighted


def assert_values(f, arrays):
    """On Tensors, ``f`` gives NumPy's result: the same container, shapes, dtypes and values;
    the parts made from a Tensor are Tensors."""
    expected = f(*arrays)
    got = f(*[gm.constant(a) for a in arrays])
    assert type(got) is type(expected) or isinstance(got, gm.Tensor) and isinstance(expected, np.ndarray)
    assert len(parts(got)) == len(parts(expected))
    for g, e in zip(parts(got), parts(expected)):
        g_value = g.numpy() if isinstance(g, gm.Tensor) else g
        assert g_value.shape == e.shape and g_value.dtype == e.dtype
        np.testing.assert_allclose(g_value, e, rtol=1e-12, atol=1e-14)
    return expected, got


# -- values and gradients of every case ----------------------------------------------------
@pytest.mark.parametrize("func,f,shapes", ALL)
def test_value_matches_numpy(func, f, shapes):
    arrays = draw(shapes, func.__name__, shapes)
    _, got = assert_values(f, arrays)
    assert any(isinstance(p, gm.Tensor) for p in parts(got))


@pytest.mark.parametrize("func,f,shapes", ALL)
def test_first_order_matches_finite_differences(func, f, shapes):
    arrays = draw(shapes, func.__name__, shapes)
    report = gm.check_grad(weighting(f, f(*arrays), (func.__name__, shapes)), *arrays, order=1)
    assert report, str(report)


@pytest.mark.parametrize("func,f,shapes", ALL)
def test_second_order_matches_finite_differences(func, f, shapes):
    arrays = draw(shapes, func.__name__, shapes)
    weighted = weighting(f, f(*arrays), (func.__name__, shapes, 2), inner=np.sin)
    report = gm.check_grad(weighted, *arrays, order=2)
    assert report, str(report)


# cases with a NumPy array among the Tensors: on another module, a host array meeting a
# device Tensor is refused (it says how to move one), so they run on NumPy only
HOST_CONSTANT = ("atleast_2d-mixed", "hstack-array", "vstack-array-first", "dstack-array",
                 "column_stack-array", "append-to-array")
PORTABLE = [pytest.param(m, *p.values, id=f"{m}-{p.id}", marks=[*p.marks, *module_marks(m)])
            for m in ("array_api_strict", "cupy") for p in ALL if not p.id.startswith(HOST_CONSTANT)]


@pytest.mark.parametrize("module,func,f,shapes", PORTABLE)
def test_runs_on_another_array_module_to_second_order(module, func, f, shapes):
    assert_same_on_module(module, f, draw(shapes, "portable", func.__name__, shapes), (func.__name__, shapes))


def test_every_function_has_cases():
    covered = {p.values[0] for p in ALL}
    missing = [f.__name__ for f in layout.FUNCTIONS if f not in covered]
    assert not missing, f"no test case for {missing}"


@pytest.mark.parametrize("func", list(layout.FUNCTIONS), ids=lambda f: f.__name__)
def test_numpy_dispatches_here(func):
    assert dispatch.FUNCTIONS[func] is layout.FUNCTIONS[func]


# -- hand-derived gradients (the expected value from the formula, with NumPy on arrays) ----
def tape_grads(f, arrays, weights, dtype=np.float64):
    xs = [gm.constant(np.asarray(a, dtype=dtype)) for a in arrays]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = sum(np.sum(p * w) for p, w in zip(parts(f(*xs)), weights))
    return [g.numpy() for g in tape.gradient(y, xs)]


def _edge_pad_grad(w, x_shape, before):
    g = np.zeros(x_shape)
    for i, j in np.ndindex(w.shape):  # every padded cell copies the nearest cell of x
        g[min(max(i - before, 0), x_shape[0] - 1), min(max(j - before, 0), x_shape[1] - 1)] += w[i, j]
    return [g]


def _counts_grad(w, counts):
    ends = np.cumsum(counts)
    return [np.stack([w[:, e - c:e].sum(axis=1) for c, e in zip(counts, ends)], axis=1)]


HAND = [
    pytest.param(lambda x: np.diff(x), [(4,)],
                 lambda w, xs: [np.concatenate([[0], w[0]]) - np.concatenate([w[0], [0]])],
                 id="diff: each weight in at i + 1 and out at i"),
    pytest.param(lambda x: np.roll(x, 2, axis=1), [(2, 3)],
                 lambda w, xs: [np.roll(w[0], -2, axis=1)], id="roll: roll(w, -shift)"),
    pytest.param(lambda x: np.roll(x, 4), [(2, 3)],
                 lambda w, xs: [np.roll(w[0], -4)], id="roll-raveled: roll(w, -shift)"),
    pytest.param(lambda x: np.rot90(x, 1), [(2, 3)],
                 lambda w, xs: [np.rot90(w[0], -1)], id="rot90: rot90(w, -k)"),
    pytest.param(lambda x: np.rot90(x, 3, (1, 2)), [(2, 3, 2)],
                 lambda w, xs: [np.rot90(w[0], -3, (1, 2))], id="rot90-axes: rot90(w, -k, axes)"),
    pytest.param(lambda x: np.rollaxis(x, 2), [(2, 3, 4)],
                 lambda w, xs: [np.moveaxis(w[0], 0, 2)], id="rollaxis: the axis moved back"),
    pytest.param(lambda x: np.repeat(x, 3, axis=1), [(2, 3)],
                 lambda w, xs: [w[0].reshape(2, 3, 3).sum(-1)], id="repeat-int: sum of each group"),
    pytest.param(lambda x: np.repeat(x, [2, 0, 3], axis=1), [(2, 3)],
                 lambda w, xs: _counts_grad(w[0], [2, 0, 3]), id="repeat-counts: sum of each group"),
    pytest.param(lambda x: np.tile(x, (2, 3)), [(2, 3)],
                 lambda w, xs: [w[0].reshape(2, 2, 3, 3).sum((0, 2))], id="tile: sum of the tiles"),
    pytest.param(lambda x: np.pad(x, 2, "edge"), [(2, 3)],
                 lambda w, xs: _edge_pad_grad(w[0], (2, 3), 2), id="pad-edge: border cells add up"),
    pytest.param(lambda x, c: np.pad(x, 1, constant_values=c), [(2, 3), ()],
                 lambda w, xs: [w[0][1:-1, 1:-1], w[0].sum() - w[0][1:-1, 1:-1].sum()],
                 id="pad-constant: the interior to x, the border to c"),
    pytest.param(lambda x: np.pad(x, (2, 1), "reflect"), [(4,)],
                 lambda w, xs: [w[0][2:6] + np.array([0, w[0][1], w[0][0], 0])
                                + np.array([0, 0, w[0][6], 0])], id="pad-reflect: mirrored cells add"),
    pytest.param(lambda x: np.hsplit(x, [1]), [(2, 3)],
                 lambda w, xs: [np.concatenate(w, axis=1)], id="hsplit: the parts' weights joined"),
    pytest.param(lambda x, y: np.append(x, y), [(2, 2), (3,)],
                 lambda w, xs: [w[0][:4].reshape(2, 2), w[0][4:]], id="append: the weights split"),
    pytest.param(lambda x, y: np.column_stack([x, y]), [(3,), (3, 2)],
                 lambda w, xs: [w[0][:, 0], w[0][:, 1:]], id="column_stack: columns back"),
    pytest.param(lambda x, y: np.atleast_3d(x, y), [(3,), (2, 3)],
                 lambda w, xs: [w[0].reshape(3), w[1].reshape(2, 3)], id="atleast_3d: reshaped back"),
]


@pytest.mark.parametrize("f,shapes,expected", HAND)
def test_hand_derived_gradient(f, shapes, expected):
    arrays = draw(shapes, "hand", shapes)
    rng = rng_for("hand-weights", shapes)
    weights = [rng.standard_normal(np.shape(p)) for p in parts(f(*arrays))]
    for got, want in zip(tape_grads(f, arrays, weights), expected(weights, arrays)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# -- float32 stays float32 ----------------------------------------------------------------
FLOAT32 = [
    case("hstack", np.hstack, lambda x: np.hstack([x, x]), (2, 3)),
    case("vstack-float32-array", np.vstack, lambda x: np.vstack([x, np.ones(3, np.float32)]), (2, 3)),
    case("array_split", np.array_split, lambda x: np.array_split(x, 2, axis=1), (2, 3)),
    case("atleast_3d", np.atleast_3d, lambda x: np.atleast_3d(x), (3,)),
    case("rot90", np.rot90, lambda x: np.rot90(x), (2, 3)),
    case("roll", np.roll, lambda x: np.roll(x, 1, axis=(0, 1)), (2, 3)),
    case("repeat-counts", np.repeat, lambda x: np.repeat(x, [1, 2, 0], axis=1), (2, 3)),
    case("tile", np.tile, lambda x: np.tile(x, (2, 2)), (2, 3)),
    case("pad-int-constant", np.pad, lambda x: np.pad(x, 1, constant_values=2), (2, 3)),
    case("pad-float64-constant", np.pad, lambda x: np.pad(x, 1, constant_values=np.float64(0.5)), (2, 3)),
    case("pad-reflect", np.pad, lambda x: np.pad(x, 2, "reflect"), (2, 3)),
    case("diff-n2-prepend-float32", np.diff, lambda x: np.diff(x, n=2, prepend=np.float32(0.5)), (2, 3)),
]


@pytest.mark.parametrize("func,f,shapes", FLOAT32)
def test_float32_stays_float32(func, f, shapes):
    arrays = [a.astype(np.float32) for a in draw(shapes, "f32", shapes)]
    expected, got = assert_values(f, arrays)  # NumPy's dtype, which is float32 here
    assert all(p.dtype == np.float32 for p in parts(expected))
    weights = [np.ones(np.shape(p), np.float32) for p in parts(expected)]
    grads = tape_grads(f, arrays, weights, dtype=np.float32)
    assert all(g.dtype == np.float32 for g in grads)


# -- Tensors mixed with arrays, numbers and lists ------------------------------------------
MIXED = [
    pytest.param(lambda t: np.hstack([np.ones(2), t, [5.0]]), id="hstack-array-tensor-list"),
    pytest.param(lambda t: np.vstack((t, np.zeros(3))), id="vstack-tensor-array"),
    pytest.param(lambda t: np.column_stack([2.0 * np.ones(3), t]), id="column_stack-array-tensor"),
    pytest.param(lambda t: np.dstack([t, np.ones(3)]), id="dstack-tensor-array"),
    pytest.param(lambda t: np.append([1.0, 2.0], t), id="append-list-tensor"),
    pytest.param(lambda t: np.atleast_2d(1.0, t)[1], id="atleast_2d-number-tensor"),
    pytest.param(lambda t: np.pad(t, 1, constant_values=[t[0], 2.0]), id="pad-tensor-and-its-value"),
    pytest.param(lambda t: np.hstack([[t[2], 1.0], t]), id="hstack-list-holding-a-tensor"),
]


@pytest.mark.parametrize("f", MIXED)
def test_mixed_inputs_carry_the_tensors_gradient(f):
    x = np.array([0.5, -1.0, 2.0])
    t = gm.constant(x)
    with gm.GradientTape() as tape:
        tape.watch(t)
        y = f(t)
        loss = np.sum(y * y)
    assert isinstance(y, gm.Tensor)
    np.testing.assert_allclose(y.numpy(), f(x), rtol=1e-12, atol=1e-14)
    g = tape.gradient(loss, t)
    # d/dt sum(y^2) = 2 * sum of the cells of y that copy each element of t
    eps = 1e-6
    want = np.array([(np.sum(f(x + eps * e) ** 2) - np.sum(f(x - eps * e) ** 2)) / (2 * eps)
                     for e in np.eye(3)])
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-6, atol=1e-8)


# -- errors: NumPy's kind of error, with the function named --------------------------------
ERRORS = [
    pytest.param(lambda x: np.diff(x, n=-1), (3,), id="diff-negative-order"),
    pytest.param(lambda x: np.diff(x), (), id="diff-0d"),
    pytest.param(lambda x: np.fliplr(x), (3,), id="fliplr-1d"),
    pytest.param(lambda x: np.flipud(x), (), id="flipud-0d"),
    pytest.param(lambda x: np.rot90(x, axes=(0, 0)), (2, 3), id="rot90-same-axes"),
    pytest.param(lambda x: np.rot90(x, axes=(0,)), (2, 3), id="rot90-one-axis"),
    pytest.param(lambda x: np.rot90(x, axes=(0, 3)), (2, 3), id="rot90-axis-out-of-range"),
    pytest.param(lambda x: np.roll(x, 1, axis=2), (2, 3), id="roll-axis-out-of-range"),
    pytest.param(lambda x: np.rollaxis(x, 3), (2, 3), id="rollaxis-axis-out-of-range"),
    pytest.param(lambda x: np.rollaxis(x, 0, 5), (2, 3), id="rollaxis-start-out-of-range"),
    pytest.param(lambda x: np.repeat(x, -1), (3,), id="repeat-negative"),
    pytest.param(lambda x: np.repeat(x, [1, 2]), (3,), id="repeat-counts-length"),
    pytest.param(lambda x: np.repeat(x, 2, axis=1), (3,), id="repeat-axis-out-of-range"),
    pytest.param(lambda x: np.tile(x, -1), (3,), id="tile-negative"),
    pytest.param(lambda x: np.pad(x, 1.5), (3,), id="pad-float-width"),
    pytest.param(lambda x: np.pad(x, -1), (3,), id="pad-negative-width"),
    pytest.param(lambda x: np.pad(x, ((1, 1), (1, 1), (1, 1))), (2, 3), id="pad-too-many-pairs"),
    pytest.param(lambda x: np.pad(x, 1, "edge"), (0, 2), id="pad-edge-empty-axis"),
    pytest.param(lambda x: np.pad(x, 1, reflect_type="odd"), (3,), id="pad-constant-reflect_type"),
    pytest.param(lambda x: np.array_split(x, 0), (3,), id="array_split-0-sections"),
    pytest.param(lambda x: np.hsplit(x, 2), (3,), id="hsplit-unequal"),
    pytest.param(lambda x: np.hsplit(x, 1), (), id="hsplit-0d"),
    pytest.param(lambda x: np.vsplit(x, 1), (3,), id="vsplit-1d"),
    pytest.param(lambda x: np.dsplit(x, 1), (2, 3), id="dsplit-2d"),
    pytest.param(lambda x: np.append(x, np.ones(3), axis=0), (2, 3), id="append-ndim-mismatch"),
    pytest.param(lambda x: np.vstack([x, np.ones(2)]), (3,), id="vstack-shape-mismatch"),
    pytest.param(lambda x: np.hstack(y for y in [x, x]), (3,), id="hstack-generator"),
]


@pytest.mark.parametrize("f,shape", ERRORS)
def test_errors_are_numpys_kind(f, shape):
    x = np.ones(shape)
    with pytest.raises(Exception) as numpy_error:
        f(x)
    with pytest.raises(type(numpy_error.value)):
        f(gm.constant(x))


UNSUPPORTED = [
    pytest.param(lambda x: np.hstack([x, x], dtype=np.float32), "dtype", id="hstack-dtype"),
    pytest.param(lambda x: np.vstack([x, x], casting="no"), "casting", id="vstack-casting"),
    pytest.param(lambda x: np.pad(x, 1, "mean"), "mean", id="pad-mean"),
    pytest.param(lambda x: np.pad(x, 1, "linear_ramp"), "linear_ramp", id="pad-linear_ramp"),
    pytest.param(lambda x: np.pad(x, 1, lambda v, w, i, k: None), "mode", id="pad-callable"),
    pytest.param(lambda x: np.pad(x, 1, "reflect", reflect_type="odd"), "odd", id="pad-reflect-odd"),
]


@pytest.mark.parametrize("f,word", UNSUPPORTED)
def test_unsupported_arguments_say_so(f, word):
    with pytest.raises(gm.NoGradientError, match=word) as e:
        f(gm.constant(np.ones(3)))
    assert "np." in str(e.value)


@pytest.mark.skipif(not hasattr(np, "row_stack"), reason="this NumPy has no np.row_stack")
def test_row_stack_warns_as_numpy_does():
    with pytest.warns(DeprecationWarning, match="row_stack"):
        np.row_stack([gm.constant(np.ones(3)), np.zeros(3)])


def test_split_parts_differentiate_together():
    """The parts of one split, recombined, give each element of x its gradient once."""
    x = gm.constant(np.arange(1.0, 7.0).reshape(2, 3))
    with gm.GradientTape() as tape:
        tape.watch(x)
        a, b = np.array_split(x, 2, axis=1)
        y = np.sum(a ** 2) + 3 * np.sum(b)
    want = np.where(np.arange(3) < 2, 2 * x.numpy(), 3.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-12)
