"""What the tests of ``gradmagic.tf`` against TensorFlow share: one way to run a case (its
value, and its gradient with respect to each input) and one way to compare it with the
numbers TensorFlow 2.21.0 (tensorflow-cpu, eager) gave for the same code.

The expected numbers were computed by running each case's code with ``import tensorflow as
tf`` in place of ``import gradmagic.tf as tf``, in a scratch environment (TensorFlow is never
a dependency), and are written in the test files to 10 significant digits.
"""

import numpy as np
import pytest

import gradmagic.tf as tf


def value_and_grads(fn, *xs):
    """``[fn(*xs), [d loss / d x for x in xs]]`` as lists, ``xs`` made float64 constants, where
    ``loss = sum(fn(*xs) * [1, 2, 3 ...])``: each output element weighs differently, so a
    gradient that mixes up elements shows. An integer result has no gradient (None)."""
    xs = [tf.constant(np.asarray(x, dtype=np.float64)) for x in xs]
    with tf.GradientTape() as tape:
        tape.watch(xs)
        y = fn(*xs)
        floating = y.numpy().dtype.kind == "f"
        weights = np.arange(1, 1 + int(np.prod(y.shape)), dtype=np.float64).reshape(tuple(y.shape))
        loss = tf.reduce_sum(y * tf.constant(weights, dtype=y.dtype)) if floating else None
    return [listed(y), listed(tape.gradient(loss, xs)) if floating else None]


def listed(x):
    """Tensors (in lists and tuples) as nested lists of numbers."""
    if x is None:
        return None
    if isinstance(x, (list, tuple)):
        return [listed(v) for v in x]
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x).tolist()


def assert_close(got, want, path="result"):
    """``got`` equals ``want`` (TensorFlow's numbers) in structure, and in value to 1e-6
    relative (NaN matching NaN); None (no gradient) only matches None."""
    if want is None or isinstance(want, str):
        assert got == want, f"{path}: {got!r} != {want!r}"
        return
    if isinstance(want, list) and not _array(want):
        assert isinstance(got, list) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{path}[{k}]")
        return
    assert got is not None and _array(got), f"{path}: {got!r} is not an array of numbers like {want!r}"
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    assert g.shape == w.shape, f"{path}: shape {g.shape} != TensorFlow's {w.shape}"
    np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-9, equal_nan=True, err_msg=path)


def _array(x):
    """Whether ``x`` is a number or a rectangular nest of numbers (one array, no None)."""
    if isinstance(x, list):
        if not all(_array(v) for v in x):
            return False
        try:
            np.asarray(x, dtype=np.float64)
        except ValueError:
            return False
        return True
    return isinstance(x, (int, float, bool))


def against_tensorflow(cases, numbers):
    """The two tests each family's file runs (assign them to module names ``test_...``): each
    case gives TensorFlow's numbers, and every case has its numbers written down."""
    @pytest.mark.parametrize("name", list(cases))
    def test_gives_what_tensorflow_gives(name):
        assert_close(cases[name](), numbers[name])

    def test_every_case_has_tensorflow_numbers():
        assert set(cases) == set(numbers)
    return test_gives_what_tensorflow_gives, test_every_case_has_tensorflow_numbers
