"""``tf.nest``, ``tf.case`` and ``tf.switch_case`` on gradmagic.tf, as TensorFlow 2.21.0
(tensorflow-cpu, eager) printed them running the same code."""

import collections

import numpy as np
import pytest

import gradmagic.tf as tf

P = collections.namedtuple("P", "a b")
S = {"b": [1, 2], "a": (3, None), "c": P(4, 5)}


def test_flatten_and_pack_as_tensorflow():
    assert tf.nest.flatten(S) == [3, None, 1, 2, 4, 5]  # keys sorted; None is a leaf
    assert tf.nest.flatten(3) == [3] and tf.nest.flatten(None) == [None]
    packed = tf.nest.pack_sequence_as(S, list(range(10, 16)))
    assert packed == {"b": [12, 13], "a": (10, 11), "c": P(a=14, b=15)} and type(packed["c"]) is P
    with pytest.raises(ValueError) as info:
        tf.nest.pack_sequence_as(S, [1, 2])
    assert str(info.value) == ("Could not pack sequence. Structure had 6 atoms, but flat_sequence had 2 "
                               "items.  Structure: {'b': [1, 2], 'a': (3, None), 'c': P(a=4, b=5)}, "
                               "flat_sequence: [1, 2].")
    assert [tf.nest.is_nested(v) for v in ([1], 1, {"a": 1}, None)] == [True, False, True, False]


def test_map_structure_and_its_refusals():
    assert tf.nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, (20, 30)]) == [11, (22, 33)]
    assert tf.nest.map_structure(lambda a: a, [1, None]) == [1, None]
    assert tf.nest.map_structure(lambda a, b: a + b, [1, (2, 3)], [10, [20, 30]], check_types=False) == [11, (22, 33)]
    doubled = tf.nest.map_structure(lambda v: v * 2, [tf.constant(1.0), tf.constant([2.0, 3.0])])
    assert [np.asarray(v).tolist() for v in doubled] == [2.0, [4.0, 6.0]]
    assert tf.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)]) is None
    head = ("The two structures don't have the same nested structure.\n\nFirst structure: type=list "
            "str={}\n\nSecond structure: type=list str={}\n\nMore specifically: {}\nEntire first "
            "structure:\n{}\nEntire second structure:\n{}")
    cases = [
        (TypeError, lambda: tf.nest.map_structure(lambda a, b: a, [1, (2, 3)], [10, [20, 30]]),
         head.format("[1, (2, 3)]", "[10, [20, 30]]", "The two namedtuples don't have the same sequence "
                     "type. First structure type=tuple str=(2, 3) has type tuple, while second structure "
                     "type=list str=[20, 30] has type list", "[., (., .)]", "[., [., .]]")),
        (ValueError, lambda: tf.nest.map_structure(lambda a, b: a, [1, 2], [10]),
         head.format("[1, 2]", "[10]", "The two structures don't have the same number of elements. First "
                     "structure: type=list str=[1, 2]. Second structure: type=list str=[10]", "[., .]", "[.]")),
        (ValueError, lambda: tf.nest.assert_same_structure([1, (2, 3)], [4, 5]),
         head.format("[1, (2, 3)]", "[4, 5]", 'Substructure "type=tuple str=(2, 3)" is a sequence, while '
                     'substructure "type=int str=5" is not', "[., (., .)]", "[., .]")),
    ]
    for exc, fn, message in cases:
        with pytest.raises(exc) as info:
            fn()
        assert str(info.value) == message


X = tf.constant([1.0, 2.0])


def test_case_runs_the_first_true_branch_or_the_default():
    assert tf.case([(X[0] > 5, lambda: X), (X[0] > 0, lambda: X * 3)], default=lambda: X * 0).numpy().tolist() == [3.0, 6.0]
    assert tf.case([(X[0] > 5, lambda: X)], default=lambda: X * 0).numpy().tolist() == [0.0, 0.0]
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions evaluated as True: False, False"):
        tf.case([(X[0] > 5, lambda: X), (X[0] > 9, lambda: X * 2)])


def test_switch_case_clamps_to_the_last_branch_or_the_default():
    assert tf.switch_case(tf.constant(1), [lambda: X, lambda: X * 5]).numpy().tolist() == [5.0, 10.0]
    assert tf.switch_case(tf.constant(7), [lambda: X, lambda: X * 5]).numpy().tolist() == [5.0, 10.0]
    assert tf.switch_case(tf.constant(-1), [lambda: X, lambda: X * 5], default=lambda: X * 0).numpy().tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match=r"branch indices \(keys\) must form contiguous range of \[0 to 2\) but found \{1,3\}"):
        tf.switch_case(tf.constant(3), {3: lambda: X * 2, 1: lambda: X})
    with pytest.raises(TypeError, match="'branch_index' must be a Tensor, got <class 'int'>"):
        tf.switch_case(1, [lambda: X, lambda: X * 5])


def test_gradients_flow_through_the_branch_taken():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.case([(v > 1, lambda: v ** 3)], default=lambda: v)
        z = tf.switch_case(tf.constant(0), [lambda: v * y, lambda: v])
    assert float(tape.gradient(z, v)) == 32.0  # d(v^4)/dv = 4 v^3 (TensorFlow: 32.0)
