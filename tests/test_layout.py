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
from gradmagic.core import layout

from _cases import rng_for, sid, uniform

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

ALL = STACKS + FLIPS + REPEATS + PADS


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


def test_every_function_has_cases():
    covered = {p.values[0] for p in ALL}
    missing = [f.__name__ for f in layout.FUNCTIONS if f not in covered]
    assert not missing, f"no test case for {missing}"


def test_every_function_dispatches_here():
    from gradmagic.core import dispatch
    for func, impl in layout.FUNCTIONS.items():
        assert dispatch.FUNCTIONS[func] is impl, func.__name__
