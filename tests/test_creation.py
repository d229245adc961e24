"""Arrays made from Tensors (gradmagic/core/creation.py): np.linspace differentiates in its
endpoints; np.array, np.asarray, np.r_ and np.c_ of followed Tensors refuse, saying how."""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import creation

LINSPACE = [
    ("linspace", dict(num=5)),
    ("linspace-no-endpoint", dict(num=4, endpoint=False)),
    ("linspace-one", dict(num=1)),
    ("linspace-retstep", dict(num=6, retstep=True)),
    ("linspace-axis", dict(num=3, axis=1)),
]


def _call(start, stop, kw):
    out = np.linspace(start, stop, **kw)
    return out[0] * out[1] if kw.get("retstep") else out


@pytest.mark.parametrize("name, kw", [pytest.param(*c, id=c[0]) for c in LINSPACE])
def test_linspace_is_numpys(name, kw):
    a, b = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    got = _call(gm.constant(a), gm.constant(b), kw)
    np.testing.assert_allclose(got.numpy(), _call(a, b, kw), rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name, kw", [pytest.param(*c, id=c[0]) for c in LINSPACE])
def test_linspace_gradient_matches_finite_differences(name, kw, order):
    a, b = np.array([0.5, -1.0]), np.array([2.0, 3.0])
    w = np.random.default_rng(3).standard_normal(np.shape(_call(a, b, kw)))
    assert gm.check_grad(lambda s, t: np.sum(_call(s, t, kw) * w), a, b, order=order)


def test_linspace_by_hand():
    a, b = gm.constant(np.float64(1.0)), gm.constant(np.float64(2.0))
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = np.sum(np.linspace(a, b, 5))  # 5 a + (0 + 1/4 + 1/2 + 3/4 + 1) (b - a)
    assert [float(g) for g in tape.gradient(y, [a, b])] == [2.5, 2.5]


def test_every_function_has_a_case():
    assert set(creation.FUNCTIONS) == {np.linspace}


@pytest.mark.parametrize("build", [lambda a, b: np.array([a, b]), lambda a, b: np.asarray([a, b]),
                                   lambda a, b: np.r_[a, b], lambda a, b: np.c_[a, b],
                                   lambda a, b: np.array(a)],
                         ids=["array", "asarray", "r_", "c_", "array-of-one"])
def test_building_a_numpy_array_of_followed_tensors_refuses_and_says_how(build):
    a, b = gm.constant(1.0), gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        with pytest.raises(gm.GradmagicError, match=r"np\.array / np\.asarray .* np\.stack\(\[t1, t2\]\)") as info:
            build(a, b)
    assert isinstance(info.value, TypeError) and "GradientTape" not in str(info.value)


def test_a_trainable_variable_a_tape_would_watch_refuses_too():
    a, b = gm.Variable(1.0), gm.Variable(2.0)  # watched on their first use, as in TensorFlow
    with gm.GradientTape():
        with pytest.raises(gm.GradmagicError, match=r"np\.stack\(\[t1, t2\]\)"):
            np.array([a, b])
    with gm.GradientTape(watch_accessed_variables=False):
        np.testing.assert_array_equal(np.array([a, b]), [1.0, 2.0])  # nothing follows them
    frozen = gm.Variable(3.0, trainable=False)
    with gm.GradientTape():
        np.testing.assert_array_equal(np.asarray(frozen), 3.0)


def test_np_stack_is_the_way_and_records():
    a, b = gm.constant(1.0), gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = np.sum(np.stack([a, b]) * np.array([3.0, 4.0]))
    assert [float(g) for g in tape.gradient(y, [a, b])] == [3.0, 4.0]


def test_tensors_no_tape_follows_still_become_numpy_arrays():
    a, b = gm.constant(1.0), gm.constant(2.0)
    np.testing.assert_array_equal(np.array([a, b]), [1.0, 2.0])  # no tape: nothing to lose
    with gm.GradientTape() as tape:
        c = gm.constant(3.0)  # not watched
        np.testing.assert_array_equal(np.asarray(c), 3.0)
        tape.watch(a)
        np.testing.assert_array_equal(a.numpy(), 1.0)  # the deliberate copy
