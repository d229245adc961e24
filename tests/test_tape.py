"""Tape semantics: Tensor/Variable/constant, GradientTape, jacobians, higher order,
thread and task isolation, memory release and backend mixing.

TensorFlow eager is the reference: every expected value is derived by hand in the
test, and where a rule comes from TensorFlow the test says which.
"""

import asyncio
import contextlib
import copy
import enum
import gc
import threading
import warnings
import weakref

import array_api_strict as xs
import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core.tensor import callable_value
from gradmagic.errors import BackendError


def f32(x):
    return np.asarray(x, dtype=np.float32)


def f64(x):
    return np.asarray(x, dtype=np.float64)


def assert_tensor(t, expected, dtype=None):
    """``t`` is a gm.Tensor whose value equals ``expected`` exactly (and has ``dtype``)."""
    assert isinstance(t, gm.Tensor), f"expected a gm.Tensor, got {type(t).__name__}"
    expected = np.asarray(expected)
    assert t.shape == expected.shape
    if dtype is not None:
        assert t.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(t.numpy(), expected)


def assert_close(t, expected, rtol=1e-12):
    assert isinstance(t, gm.Tensor), f"expected a gm.Tensor, got {type(t).__name__}"
    np.testing.assert_allclose(t.numpy(), expected, rtol=rtol, atol=0)


# =====================================================================================
# constant: dtypes as tf.constant
# =====================================================================================

@pytest.mark.parametrize("value, dtype", [
    pytest.param(2.0, "float32", id="python-float-float32"),
    pytest.param(2, "int32", id="python-int-int32"),
    pytest.param(True, "bool", id="python-bool-bool"),
    pytest.param([1.0, 2.0], "float32", id="list-of-floats-float32"),
    pytest.param([1, 2], "int32", id="list-of-ints-int32"),
    pytest.param(np.array([1.0, 2.0]), "float64", id="ndarray-float64-kept"),
    pytest.param(np.array([1.0, 2.0], dtype=np.float16), "float16", id="ndarray-float16-kept"),
    pytest.param(np.array([1, 2], dtype=np.int64), "int64", id="ndarray-int64-kept"),
    pytest.param(np.float64(1.5), "float64", id="numpy-scalar-float64-kept"),
])
def test_constant_dtype_default(value, dtype):
    assert gm.constant(value).dtype == np.dtype(dtype)


def test_constant_python_float_value_is_exact_in_float32():
    assert_tensor(gm.constant(100.0), f32(100.0), "float32")


@pytest.mark.parametrize("value", [2.0, -0.1, float("inf")], ids=["two", "tenth", "inf"])
def test_constant_of_a_python_float_is_what_the_general_path_gives(value):
    # gm.constant takes a Python float straight to float32; the general path (a dtype given,
    # or a NumPy value) gives the same: a NumPy scalar, as TensorFlow's .numpy() of a scalar
    fast = gm.constant(value).value
    for general in (gm.constant(value, dtype=np.float32).value, gm.constant(np.float32(value)).value,
                    gm.constant(np.array(value, np.float32)).value):
        assert type(fast) is type(general) is np.float32
        assert fast == general or (np.isnan(fast) and np.isnan(general))
    assert type(gm.constant([value]).value) is np.ndarray  # an array stays one


def test_a_scalar_constant_holds_what_tensorflow_gives():
    # tf.constant(2.0).numpy() is np.float32(2.0), a NumPy scalar (TensorFlow 2.21.0), and
    # NumPy's ops on 0-d values return scalars too: a scalar constant differentiates as before
    x = gm.constant(3.0)
    assert type(x.numpy()) is np.float32 and x.numpy() == 3.0
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x * x
    g = tape.gradient(y, x)
    assert g.dtype == np.float32 and float(g) == 27.0


@pytest.mark.parametrize("value, dtype, expected", [
    pytest.param(2, "float64", 2.0, id="int-to-float64"),
    pytest.param(2.5, np.float64, 2.5, id="float-to-float64"),
    pytest.param(np.array([1.0, 2.0]), "float32", [1.0, 2.0], id="ndarray-float64-to-float32"),
    pytest.param([1, 0, 2], "bool", [True, False, True], id="ints-to-bool"),
])
def test_constant_dtype_casts(value, dtype, expected):
    t = gm.constant(value, dtype=dtype)
    assert_tensor(t, np.asarray(expected, dtype=dtype), dtype)


def test_constant_python_int_too_big_for_int32_is_int64():
    # tf.constant(2**40) is int64 with the exact value: TF narrows Python ints to
    # int32 only when that loses nothing.
    t = gm.constant(2 ** 40)
    assert t.dtype == np.int64
    assert int(t) == 2 ** 40


def test_constant_bad_dtype_raises_type_error():
    with pytest.raises(TypeError, match="not a dtype"):
        gm.constant(1.0, dtype="no-such-dtype")


# =====================================================================================
# Tensor: value access, formatting, immutability
# =====================================================================================

def test_tensor_float_of_scalar():
    assert float(gm.constant(2.5)) == 2.5


def test_tensor_numpy_returns_ndarray_with_value():
    a = gm.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).numpy()
    assert isinstance(a, np.ndarray)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a, [[1, 2, 3], [4, 5, 6]])


@pytest.mark.parametrize("value, shape", [
    pytest.param(2.0, (), id="scalar"),
    pytest.param([1.0, 2.0], (2,), id="vector"),
    pytest.param(np.zeros((2, 3, 1)), (2, 3, 1), id="3d"),
])
def test_tensor_shape_is_tuple(value, shape):
    s = gm.constant(value).shape
    assert isinstance(s, tuple)
    assert s == shape



def test_tensor_repr_scalar_as_tensorflow():
    assert repr(gm.constant(6.0)) == "<gm.Tensor: shape=(), dtype=float32, numpy=6.0>"


def test_tensor_repr_vector_as_tensorflow():
    assert repr(gm.constant([1.0, 2.0])) == (
        "<gm.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>")


@pytest.mark.parametrize("value, spec, text", [
    pytest.param(2.0, "", "2.0", id="float32-plain"),
    pytest.param(2.0, ".3f", "2.000", id="float32-.3f"),
    pytest.param(3, "", "3", id="int32-plain"),
    pytest.param(3, "04d", "0003", id="int32-04d"),
])
def test_tensor_format_uses_value(value, spec, text):
    assert format(gm.constant(value), spec) == text


def test_tensor_fstring_of_float32_two_reads_2_0():
    x = gm.constant(2.0)
    assert f"{x}" == "2.0"


def test_tensor_str_is_the_value():
    assert str(gm.constant(2.0)) == "2.0"
    assert str(gm.constant([1, 2])) == "[1 2]"


def test_tensor_setitem_raises_type_error_naming_the_fix():
    t = gm.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="immutable") as info:
        t[0] = 1
    assert "assign" in str(info.value)
    assert "where" in str(info.value)
    assert_tensor(t, f32([1.0, 2.0]))


def test_tensor_setitem_error_is_gradmagic_error():
    with pytest.raises(gm.GradmagicError):
        gm.constant([1.0, 2.0])[0] = 1.0


# =====================================================================================
# Variable
# =====================================================================================

def test_variable_defaults():
    v = gm.Variable(3.0)
    assert v.dtype == np.float32
    assert v.name == "Variable"
    assert v.trainable is True
    assert isinstance(v, gm.Tensor)


def test_variable_name_and_trainable():
    v = gm.Variable([1.0, 2.0], name="w", trainable=False)
    assert v.name == "w"
    assert v.trainable is False
    assert v.shape == (2,)


def test_variable_repr():
    v = gm.Variable(3.0, name="w")
    assert repr(v) == "<gm.Variable 'w' shape=() dtype=float32, numpy=3.0>"


def test_variable_assign_replaces_value():
    v = gm.Variable([1.0, 2.0])
    out = v.assign([5.0, 6.0])
    assert out is v
    assert_tensor(v, f32([5.0, 6.0]), "float32")


def test_variable_assign_casts_to_its_dtype():
    v = gm.Variable(1.0)
    v.assign(np.float64(4.0))
    assert_tensor(v, f32(4.0), "float32")


def test_variable_assign_add():
    v = gm.Variable(3.0)
    v.assign_add(2.0)
    assert_tensor(v, f32(5.0), "float32")


def test_variable_assign_sub():
    v = gm.Variable(3.0)
    v.assign_sub(gm.constant(0.5))
    assert_tensor(v, f32(2.5), "float32")


def test_variable_assign_wrong_shape_raises_value_error():
    v = gm.Variable([1.0, 2.0], name="w")
    with pytest.raises(ValueError, match=r"expected shape \(2,\)"):
        v.assign([1.0, 2.0, 3.0])


def test_variable_assign_is_not_recorded():
    # y = v * v is recorded with v = 3; the assign is not an op on the tape, so the
    # gradient is 2 * 3 = 6 (the value the multiply saw), as in TensorFlow.
    v = gm.Variable(3.0)
    with gm.GradientTape() as tape:
        y = v * v
        v.assign_add(1.0)
    assert_tensor(tape.gradient(y, v), f32(6.0))
    assert_tensor(v, f32(4.0))


def test_variable_assign_after_use_nested_tape_uses_value_at_use():
    # Under an outer tape the inner gradient runs on Tensors; it must still use the
    # value v had when y = v * v ran (3), not its value now (10): 2 * 3 = 6.
    v = gm.Variable(3.0)
    with gm.GradientTape() as outer:
        with gm.GradientTape() as inner:
            y = v * v
        v.assign(10.0)
        g = inner.gradient(y, v)
    assert_tensor(g, f32(6.0))
    del outer


def test_variable_setitem_raises_type_error():
    v = gm.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="assign"):
        v[0] = 5.0


# a Variable's value: its array, which tf.Variable's Variables may also call (Variable.value())
def callable_variable(value):
    v = gm.Variable(value)
    v.value = callable_value(v, v.value)  # what tf.Variable does
    return v


def test_gradmagic_variables_hold_plain_arrays():
    v = gm.Variable([1.0, 2.0])
    v.assign([3.0, 4.0])
    assert type(v.value) is np.ndarray


def test_variable_value_called_reads_the_variable_now_and_the_tape_follows():
    v = callable_variable([1.0, 2.0])
    first = v.value()
    v.assign([5.0, 6.0])  # the new value is callable too
    with gm.GradientTape() as tape:
        y = np.sum(v.value() * 3)
    assert first.tolist() == [1.0, 2.0] and tape.gradient(y, v).tolist() == [3.0, 3.0]


def test_variable_value_is_an_array_whose_results_are_plain_arrays():
    import pickle
    v = callable_variable([1.0, 2.0])
    assert isinstance(v.value, np.ndarray) and v.value.dtype == np.float32
    assert type(v.value * 2) is np.ndarray and type(np.sum(v.value)) is np.float32
    assert type(np.concatenate([v.value, v.value])) is np.ndarray
    assert type(pickle.loads(pickle.dumps(v.value))) is np.ndarray
    assert repr(v.value) == "array([1., 2.], dtype=float32)" and str(v.value) == "[1. 2.]"
    with gm.GradientTape() as tape:
        y = np.sum(np.exp(v))
    assert type(y.value) is np.float32 and type(tape.gradient(y, v).value) is np.ndarray


@pytest.mark.parametrize("made", [lambda a: a[:1], lambda a: a.copy(), lambda a: copy.deepcopy(a),
                                  lambda a: a.astype(np.float64)], ids=["view", "copy", "deepcopy", "astype"])
def test_calling_a_copy_of_a_variable_value_raises_instead_of_reading_a_variable(made):
    other = made(callable_variable([1.0, 2.0]).value)
    with pytest.raises(TypeError, match="this array is not a Variable's value"):
        other()


def test_a_variable_of_another_array_module_keeps_its_plain_array():
    v = callable_variable(xs.asarray([1.0, 2.0]))
    assert type(v.value) is type(xs.asarray([1.0])) and not callable(v.value)


# =====================================================================================
# GradientTape.watch and variables
# =====================================================================================

def test_watch_tensor_gradient_of_square():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert_tensor(tape.gradient(y, x), f32(6.0), "float32")


def test_unwatched_constant_gradient_is_none():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None


def test_watch_list_watches_each():
    a, b = gm.constant(2.0), gm.constant(5.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert_tensor(ga, f32(5.0))
    assert_tensor(gb, f32(2.0))


def test_watch_nested_structure_watches_each_leaf():
    a, b, c = gm.constant(2.0), gm.constant(3.0), gm.constant(4.0)
    with gm.GradientTape() as tape:
        tape.watch([a, {"k": (b, [c])}])
        y = a * b * c
    ga, gb, gc_ = tape.gradient(y, [a, b, c])
    assert_tensor(ga, f32(12.0))
    assert_tensor(gb, f32(8.0))
    assert_tensor(gc_, f32(6.0))


def test_watch_python_number_raises_type_error():
    with gm.GradientTape() as tape:
        with pytest.raises(TypeError, match="gm.constant"):
            tape.watch(3.0)


def test_trainable_variable_watched_on_use():
    v = gm.Variable(3.0)
    with gm.GradientTape() as tape:
        y = v * v * v
    assert_tensor(tape.gradient(y, v), f32(27.0))


def test_variable_not_used_is_not_watched():
    v, w = gm.Variable(1.0, name="v"), gm.Variable(2.0, name="w")
    with gm.GradientTape() as tape:
        y = v * 2.0
    assert tape.watched_variables() == (v,)
    assert tape.gradient(y, w) is None


def test_watch_accessed_variables_false_unwatched_variable_gives_none():
    v = gm.Variable(3.0)
    with gm.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    assert tape.watched_variables() == ()
    assert tape.gradient(y, v) is None


def test_watch_accessed_variables_false_watched_variable_gives_gradient():
    v, w = gm.Variable(3.0, name="v"), gm.Variable(5.0, name="w")
    with gm.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(v)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert_tensor(gv, f32(5.0))
    assert gw is None
    assert tape.watched_variables() == (v,)


def test_non_trainable_variable_not_auto_watched():
    v = gm.Variable(3.0, trainable=False)
    with gm.GradientTape() as tape:
        y = v * v
    assert tape.watched_variables() == ()
    assert tape.gradient(y, v) is None


def test_non_trainable_variable_watched_explicitly_gives_gradient():
    v = gm.Variable(3.0, trainable=False)
    with gm.GradientTape() as tape:
        tape.watch(v)
        y = v * v
    assert_tensor(tape.gradient(y, v), f32(6.0))


def test_watched_variables_excludes_plain_tensors():
    x, v = gm.constant(1.0), gm.Variable(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * v
    assert tape.watched_variables() == (v,)
    del y


def test_watched_variables_in_order_of_construction():
    # tf.GradientTape.watched_variables: "Returns variables watched by this tape in
    # order of construction." Used here in the other order.
    first = gm.Variable(1.0, name="first")
    second = gm.Variable(2.0, name="second")
    with gm.GradientTape() as tape:
        y = second * first
    assert [v.name for v in tape.watched_variables()] == ["first", "second"]
    del y


def test_watched_variables_each_once():
    v = gm.Variable(2.0)
    with gm.GradientTape() as tape:
        tape.watch(v)
        y = v * v + v
    assert tape.watched_variables() == (v,)
    del y


# =====================================================================================
# persistent and non-persistent
# =====================================================================================

def _call(tape, how, y, x):
    if how == "gradient":
        return tape.gradient(y, x)
    if how == "jacobian":
        return tape.jacobian(y, x)
    return tape.batch_jacobian(y, x)


@pytest.mark.parametrize("first, second", [
    pytest.param("gradient", "gradient", id="gradient-then-gradient"),
    pytest.param("gradient", "jacobian", id="gradient-then-jacobian"),
    pytest.param("jacobian", "gradient", id="jacobian-then-gradient"),
    pytest.param("jacobian", "batch_jacobian", id="jacobian-then-batch_jacobian"),
])
def test_non_persistent_second_call_raises_runtime_error(first, second):
    x = gm.constant([[1.0, 2.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    _call(tape, first, y, x)
    with pytest.raises(RuntimeError, match="non-persistent") as info:
        _call(tape, second, y, x)
    message = str(info.value)
    assert "one set of gradients" in message  # why
    assert "persistent=True" in message  # how to fix


def test_persistent_allows_many_gradients():
    x = gm.constant(3.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert_tensor(tape.gradient(z, x), f32(108.0))  # 4 x^3
    assert_tensor(tape.gradient(y, x), f32(6.0))  # 2 x
    assert_tensor(tape.gradient(z, x), f32(108.0))
    assert_tensor(tape.jacobian(y, x), f32(6.0))


def test_non_persistent_failed_call_leaves_tape_usable():
    # a call that raises before differentiating does not use up the tape
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        tape.gradient(y, x, output_gradients=gm.constant([1.0, 2.0, 3.0]))
    assert_tensor(tape.gradient(y, x), f32([2.0, 4.0]))


# =====================================================================================
# targets
# =====================================================================================

def test_gradient_non_scalar_target_is_gradient_of_sum():
    x = gm.constant([1.0, 2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x  # d sum(x^2) / dx = 2x
    assert_tensor(tape.gradient(y, x), f32([2.0, 4.0, 6.0]))


def test_gradient_matrix_target_is_gradient_of_sum():
    x = gm.constant([1.0, 2.0])
    w = gm.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = gm.ops.outer(x, gm.constant([1.0, 1.0, 1.0])) * w
    # sum_ij x_i w_ij: gradient row sums of w
    assert_tensor(tape.gradient(y, x), f32([6.0, 15.0]))


def test_gradient_list_of_targets_adds_up():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y1 = x * x  # 2x = 4
        y2 = x * x * x  # 3x^2 = 12
    assert_tensor(tape.gradient([y1, y2], x), f32(16.0))


def test_gradient_dict_of_targets_adds_up():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        targets = {"square": x * x, "times_five": x * 5.0}
    assert_tensor(tape.gradient(targets, x), f32(9.0))  # 4 + 5


def test_gradient_same_target_twice_counts_twice():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert_tensor(tape.gradient([y, y], x), f32(8.0))  # 2 * (2x)


def test_gradient_target_is_the_source_gives_ones():
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
    assert_tensor(tape.gradient(x, x), f32([1.0, 1.0]))


def test_gradient_of_target_computed_outside_tape_is_none():
    x = gm.constant(3.0)
    y = x * x
    with gm.GradientTape() as tape:
        tape.watch(x)
    assert tape.gradient(y, x) is None


def test_gradient_of_target_computed_after_tape_exit_is_none():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
    y = x * x
    assert tape.gradient(y, x) is None


# =====================================================================================
# sources: structure is kept
# =====================================================================================

def _sources_single(a, b):
    return a, lambda g: [g]


def _sources_list(a, b):
    return [a, b], lambda g: g


def _sources_tuple(a, b):
    return (a, b), lambda g: list(g)


def _sources_dict(a, b):
    return {"a": a, "b": b}, lambda g: [g["a"], g["b"]]


def _sources_nested(a, b):
    return {"outer": [a, (b,)]}, lambda g: [g["outer"][0], g["outer"][1][0]]


@pytest.mark.parametrize("build, kind", [
    pytest.param(_sources_single, gm.Tensor, id="single-tensor"),
    pytest.param(_sources_list, list, id="list"),
    pytest.param(_sources_tuple, tuple, id="tuple"),
    pytest.param(_sources_dict, dict, id="dict"),
    pytest.param(_sources_nested, dict, id="nested-dict-list-tuple"),
])
def test_gradient_sources_structure_kept(build, kind):
    a, b = gm.constant(2.0), gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = a * a * b  # d/da = 2ab = 12, d/db = a^2 = 4
    sources, leaves = build(a, b)
    result = tape.gradient(y, sources)
    assert type(result) is kind
    expected = [12.0, 4.0]
    for g, e in zip(leaves(result), expected):
        assert_tensor(g, f32(e))


def test_gradient_nested_sources_structure_exact():
    a, b = gm.constant(2.0), gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    result = tape.gradient(y, {"outer": [a, (b,)]})
    assert list(result) == ["outer"]
    assert type(result["outer"]) is list and len(result["outer"]) == 2
    assert type(result["outer"][1]) is tuple and len(result["outer"][1]) == 1


def test_gradient_same_source_twice_gets_same_gradient():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g1, g2 = tape.gradient(y, [x, x])
    assert_tensor(g1, f32(4.0))
    assert_tensor(g2, f32(4.0))


def test_gradient_with_respect_to_intermediate():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        h = x * 3.0  # h = 6
        y = h * h  # dy/dh = 2h = 12, dy/dx = 2h * 3 = 36
    gh, gx = tape.gradient(y, [h, x])
    assert_tensor(gh, f32(12.0))
    assert_tensor(gx, f32(36.0))


def test_gradient_with_respect_to_intermediate_used_twice():
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        h = x + 1.0  # 2
        y = h * h + h * 3.0  # dy/dh = 2h + 3 = 7
    assert_tensor(tape.gradient(y, h), f32(7.0))


def test_gradient_python_number_source_raises_type_error_naming_fix():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match=r"gm\.constant") as info:
        tape.gradient(y, 2.0)
    assert "watch" in str(info.value)


def test_gradient_python_number_in_source_list_raises_type_error():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match=r"gm\.constant"):
        tape.gradient(y, [x, 3])


def test_gradient_integer_source_none_with_warning():
    n = gm.constant(3)
    with gm.GradientTape() as tape:
        with pytest.warns(UserWarning, match="floating"):
            tape.watch(n)
        y = n * 2
    with pytest.warns(UserWarning, match="floating"):
        g = tape.gradient(y, n)
    assert g is None


def test_gradient_integer_source_warning_points_at_caller():
    n = gm.constant(3)
    with gm.GradientTape() as tape:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tape.watch(n)
        y = n * 2
    with pytest.warns(UserWarning, match="floating") as record:
        tape.gradient(y, n)
    assert record[0].filename == __file__


def test_gradient_integer_and_float_sources_mixed():
    x, n = gm.constant(2.0), gm.constant(3)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.warns(UserWarning, match="int32"):
        gx, gn = tape.gradient(y, [x, n])
    assert_tensor(gx, f32(4.0))
    assert gn is None


def test_gradient_result_dtype_is_source_dtype():
    x = gm.constant(np.array([1.0, 2.0]))  # float64
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert_tensor(tape.gradient(y, x), f64([2.0, 4.0]), "float64")


def test_gradient_through_float64_cast_comes_back_float32():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(np.float64) ** 2
    assert_tensor(tape.gradient(y, x), f32(6.0), "float32")


def test_gradient_through_integer_cast_is_none():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x.astype(np.int32) * 2
    assert tape.gradient(y, x) is None


def test_gradient_python_control_flow_follows_what_ran():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x if float(x) > 0 else -x
        for _ in range(3):
            y = y * x  # y = x^4: 4x^3 = 32
    assert_tensor(tape.gradient(y, x), f32(32.0))


def test_gradient_long_chain_no_recursion_limit():
    x = gm.constant(1.5)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(5000):
            y = y + 1.0
    assert_tensor(tape.gradient(y, x), f32(1.0))


def test_tape_reentered_keeps_recording():
    x = gm.constant(3.0)
    tape = gm.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * x
    with tape:
        z = y * x  # x^3: 3x^2 = 27
    assert_tensor(tape.gradient(z, x), f32(27.0))


def test_tape_exited_by_exception_stops_recording():
    x = gm.constant(3.0)
    tape = gm.GradientTape()
    with pytest.raises(ZeroDivisionError):
        with tape:
            tape.watch(x)
            1 / 0
    y = x * x
    assert tape.gradient(y, x) is None


# =====================================================================================
# output_gradients
# =====================================================================================

def test_output_gradients_weight_the_target():
    x = gm.constant([1.0, 2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x  # dy_i/dx_i = 2 x_i
    g = tape.gradient(y, x, output_gradients=gm.constant([1.0, 10.0, 100.0]))
    assert_tensor(g, f32([2.0, 40.0, 600.0]))


def test_output_gradients_raw_array_accepted():
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
    g = tape.gradient(y, x, output_gradients=np.array([2.0, -1.0], dtype=np.float32))
    assert_tensor(g, f32([6.0, -3.0]))


def test_output_gradients_one_per_target():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y1 = x * x  # 4
        y2 = x * 3.0  # 3
    g = tape.gradient([y1, y2], x, output_gradients=[gm.constant(10.0), gm.constant(1.0)])
    assert_tensor(g, f32(43.0))


def test_output_gradients_shape_mismatch_raises_value_error():
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match=r"expected shape \(2,\)"):
        tape.gradient(y, x, output_gradients=gm.constant([1.0, 2.0, 3.0]))


def test_output_gradients_count_mismatch_raises_value_error():
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y1, y2 = x * 2.0, x * 3.0
    with pytest.raises(ValueError, match="one per target"):
        tape.gradient([y1, y2], x, output_gradients=[gm.constant(1.0)])


# =====================================================================================
# unconnected_gradients
# =====================================================================================

class UnconnectedGradients(enum.Enum):  # the shape of tf.UnconnectedGradients
    NONE = "none"
    ZERO = "zero"


def test_unconnected_default_is_none():
    x, z = gm.constant(1.0), gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch([x, z])
        y = x * 2.0
    gx, gz = tape.gradient(y, [x, z])
    assert_tensor(gx, f32(2.0))
    assert gz is None


@pytest.mark.parametrize("how", [
    pytest.param("none", id="str-none"),
    pytest.param(UnconnectedGradients.NONE, id="enum-NONE"),
])
def test_unconnected_none_gives_none(how):
    x, z = gm.constant(1.0), gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.gradient(y, z, unconnected_gradients=how) is None


@pytest.mark.parametrize("how", [
    pytest.param("zero", id="str-zero"),
    pytest.param(UnconnectedGradients.ZERO, id="enum-ZERO"),
])
def test_unconnected_zero_gives_zeros_of_source_shape_and_dtype(how):
    x, z = gm.constant(1.0), gm.constant(np.array([[1.0, 2.0]]))
    with gm.GradientTape() as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert_tensor(tape.gradient(y, z, unconnected_gradients=how), f64([[0.0, 0.0]]), "float64")


@pytest.mark.parametrize("how", [
    pytest.param("zeros", id="zeros"),
    pytest.param("NONE", id="upper-NONE"),
    pytest.param(None, id="None"),
])
def test_unconnected_invalid_value_raises_value_error(how):
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients=how)


# =====================================================================================
# stop_recording, stop_gradient, reset
# =====================================================================================

def test_stop_recording_pauses_the_tape():
    x = gm.constant(3.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            paused = x * x
        y = x * x
    assert tape.gradient(paused, x) is None
    assert_tensor(tape.gradient(y, x), f32(6.0))


def test_stop_recording_paused_value_is_a_constant_afterwards():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            c = x * x  # 9, seen as a constant
        y = c * x  # d/dx = c = 9 (not 3x^2 = 27)
    assert_tensor(tape.gradient(y, x), f32(9.0))


def test_stop_recording_resumes_after_block():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            pass
        y = x * x * x
    assert_tensor(tape.gradient(y, x), f32(12.0))


def test_stop_recording_pauses_only_that_tape():
    x = gm.constant(3.0)
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            with inner.stop_recording():
                y = x * x
    assert inner.gradient(y, x) is None
    assert_tensor(outer.gradient(y, x), f32(6.0))


def test_stop_gradient_cuts_one_path():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * gm.stop_gradient(x)  # d/dx = stop_gradient(x) = 3
    assert_tensor(tape.gradient(y, x), f32(3.0))


def test_stop_gradient_other_paths_still_flow():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x + gm.stop_gradient(x * x * x)  # only 2x = 6
    assert_tensor(tape.gradient(y, x), f32(6.0))


def test_stop_gradient_of_everything_gives_none():
    x = gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = gm.stop_gradient(x * x)
    assert tape.gradient(y, x) is None


def test_stop_gradient_keeps_value():
    x = gm.constant([1.0, 2.0])
    assert_tensor(gm.stop_gradient(x), f32([1.0, 2.0]), "float32")


def test_reset_forgets_recorded_ops():
    x = gm.constant(2.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        before = x * x
        tape.reset()
        after = x * x
    assert tape.gradient(before, x) is None
    assert tape.gradient(after, x) is None  # x is no longer watched either


def test_reset_then_record_again():
    x = gm.constant(2.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        before = x * x
        tape.reset()
        tape.watch(x)
        after = x * x * x
    assert tape.gradient(before, x) is None
    assert_tensor(tape.gradient(after, x), f32(12.0))


def test_reset_forgets_watched_variables():
    v = gm.Variable(2.0)
    with gm.GradientTape() as tape:
        y = v * v
        assert tape.watched_variables() == (v,)
        tape.reset()
        assert tape.watched_variables() == ()
    del y


def test_reset_makes_used_non_persistent_tape_usable():
    x = gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.gradient(y, x)
        tape.reset()
        tape.watch(x)
        z = x * x * x
    assert_tensor(tape.gradient(z, x), f32(12.0))


# =====================================================================================
# jacobian
# =====================================================================================

def test_jacobian_elementwise_is_diagonal():
    x = gm.constant([1.0, 2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert_tensor(tape.jacobian(y, x), np.diag(f32([2.0, 4.0, 6.0])), "float32")


def test_jacobian_matmul_is_the_matrix():
    w = gm.constant([[1.0, 2.0], [3.0, 4.0]])
    x = gm.constant([5.0, 6.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = w @ x
    assert_tensor(tape.jacobian(y, x), f32([[1.0, 2.0], [3.0, 4.0]]))


def test_jacobian_non_square():
    # y = W x with W 2x3: dy/dx = W, shape (2, 3)
    w = gm.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = gm.constant([1.0, 1.0, 1.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = w @ x
    assert_tensor(tape.jacobian(y, x), f32([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


def test_jacobian_with_respect_to_matrix():
    # y_i = sum_k W_ik x_k: dy_i/dW_jk = [i == j] x_k, shape (2, 2, 3)
    w = gm.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = gm.constant([7.0, 8.0, 9.0])
    with gm.GradientTape() as tape:
        tape.watch(w)
        y = w @ x
    expected = np.zeros((2, 2, 3), dtype=np.float32)
    expected[0, 0] = [7.0, 8.0, 9.0]
    expected[1, 1] = [7.0, 8.0, 9.0]
    assert_tensor(tape.jacobian(y, w), expected)


def test_jacobian_scalar_target():
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x * x)
    assert_tensor(tape.jacobian(y, x), f32([2.0, 4.0]))


def test_jacobian_matrix_target_shape():
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = gm.ops.outer(x, x)  # y_ij = x_i x_j
    # dy_ij/dx_k = [i == k] x_j + x_i [j == k]
    expected = np.zeros((2, 2, 2), dtype=np.float32)
    xv = [1.0, 2.0]
    for i in range(2):
        for j in range(2):
            expected[i, j, i] += xv[j]
            expected[i, j, j] += xv[i]
    assert_tensor(tape.jacobian(y, x), expected)


def test_jacobian_dict_sources():
    a, b = gm.constant([1.0, 2.0]), gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b  # dy_i/da_j = b [i == j], dy_i/db = a_i
    j = tape.jacobian(y, {"a": a, "b": b})
    assert set(j) == {"a", "b"}
    assert_tensor(j["a"], f32([[3.0, 0.0], [0.0, 3.0]]))
    assert_tensor(j["b"], f32([1.0, 2.0]))


def test_jacobian_list_sources():
    a, b = gm.constant([1.0, 2.0]), gm.constant(3.0)
    with gm.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    ja, jb = tape.jacobian(y, [a, b])
    assert_tensor(ja, f32([[3.0, 0.0], [0.0, 3.0]]))
    assert_tensor(jb, f32([1.0, 2.0]))


def test_jacobian_unconnected_none():
    x, z = gm.constant([1.0, 2.0]), gm.constant([1.0, 2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.jacobian(y, z) is None


def test_jacobian_unconnected_zero_has_full_shape():
    x, z = gm.constant([1.0, 2.0]), gm.constant([1.0, 2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert_tensor(tape.jacobian(y, z, unconnected_gradients="zero"),
                  np.zeros((2, 3), dtype=np.float32), "float32")


def test_jacobian_partly_connected_rows_are_zero():
    x = gm.constant([2.0, 3.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = gm.ops.stack([x[0] * x[0], gm.constant(5.0)])  # second row is constant
    assert_tensor(tape.jacobian(y, x), f32([[4.0, 0.0], [0.0, 0.0]]))


# =====================================================================================
# batch_jacobian
# =====================================================================================

def test_batch_jacobian_elementwise():
    x = gm.constant([[1.0, 2.0], [3.0, 4.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    expected = f32([[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]])
    assert_tensor(tape.batch_jacobian(y, x), expected, "float32")


def test_batch_jacobian_matmul_shape_and_values():
    # y_b = x_b @ A with x_b of 3 and A 3x2: per example dy/dx = A.T, result (2, 2, 3)
    x = gm.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    a = gm.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x @ a
    j = tape.batch_jacobian(y, x)
    assert j.shape == (2, 2, 3)
    at = f32([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    assert_tensor(j, np.stack([at, at]))


def test_batch_jacobian_depends_on_example():
    # y_b = x_b * sum(x_b): dy_i/dx_j = [i == j] s + x_i
    x = gm.constant([[1.0, 2.0], [3.0, 4.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x * np.sum(x, axis=1, keepdims=True)
    expected = f32([[[3 + 1, 1], [2, 3 + 2]],
                    [[7 + 3, 3], [4, 7 + 4]]])
    assert_tensor(tape.batch_jacobian(y, x), expected)


@pytest.mark.parametrize("target_shape, source_shape", [
    pytest.param((2, 3), (3, 3), id="batch-2-vs-3"),
    pytest.param((2,), (3, 2), id="vector-target-batch-2-vs-3"),
])
def test_batch_jacobian_mismatched_batch_raises_value_error(target_shape, source_shape):
    x = gm.constant(np.ones(source_shape, dtype=np.float32))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = gm.constant(np.ones(target_shape, dtype=np.float32)) * np.sum(x)
    with pytest.raises(ValueError, match="batch"):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_scalar_target_raises_value_error():
    x = gm.constant([[1.0, 2.0]])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x)
    with pytest.raises(ValueError, match="batch"):
        tape.batch_jacobian(y, x)


def test_batch_jacobian_unconnected_none_and_zero():
    x, z = gm.constant([[1.0], [2.0]]), gm.constant([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    with gm.GradientTape(persistent=True) as tape:
        tape.watch([x, z])
        y = x * 2.0
    assert tape.batch_jacobian(y, z) is None
    assert_tensor(tape.batch_jacobian(y, z, unconnected_gradients="zero"),
                  np.zeros((2, 1, 3), dtype=np.float32))


# =====================================================================================
# higher order: nested tapes
# =====================================================================================

def nth_derivative(f, x, n):
    """The n-th derivative of ``f`` at ``x`` by nesting n tapes."""
    with contextlib.ExitStack() as stack:
        tapes = [stack.enter_context(gm.GradientTape()) for _ in range(n)]
        for tape in tapes:
            tape.watch(x)
        y = f(x)
        # innermost tape first: each gradient is recorded by the tapes outside it
        for tape in reversed(tapes):
            y = tape.gradient(y, x)
    return y


def _nth_derivative_exiting(f, x, n):
    """Same as TF users write it: each inner tape exits before its gradient is taken."""
    if n == 0:
        return f(x)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = _nth_derivative_exiting(f, x, n - 1)
    return tape.gradient(y, x)


E = np.e
DERIVATIVES = [
    # x**5 at 2: 5x^4 = 80, 20x^3 = 160, 60x^2 = 240, 120x = 240
    pytest.param(lambda x: x ** 5, 2.0, 1, 80.0, id="x**5-1st"),
    pytest.param(lambda x: x ** 5, 2.0, 2, 160.0, id="x**5-2nd"),
    pytest.param(lambda x: x ** 5, 2.0, 3, 240.0, id="x**5-3rd"),
    pytest.param(lambda x: x ** 5, 2.0, 4, 240.0, id="x**5-4th"),
    # sin at 0.5: cos, -sin, -cos, sin
    pytest.param(np.sin, 0.5, 1, np.cos(0.5), id="sin-1st"),
    pytest.param(np.sin, 0.5, 2, -np.sin(0.5), id="sin-2nd"),
    pytest.param(np.sin, 0.5, 3, -np.cos(0.5), id="sin-3rd"),
    pytest.param(np.sin, 0.5, 4, np.sin(0.5), id="sin-4th"),
    # exp(2x) at 0.5: 2^n e
    pytest.param(lambda x: np.exp(2.0 * x), 0.5, 1, 2 * E, id="exp(2x)-1st"),
    pytest.param(lambda x: np.exp(2.0 * x), 0.5, 2, 4 * E, id="exp(2x)-2nd"),
    pytest.param(lambda x: np.exp(2.0 * x), 0.5, 3, 8 * E, id="exp(2x)-3rd"),
    pytest.param(lambda x: np.exp(2.0 * x), 0.5, 4, 16 * E, id="exp(2x)-4th"),
]


@pytest.mark.parametrize("f, at, n, expected", DERIVATIVES)
def test_nested_tapes_nth_derivative(f, at, n, expected):
    x = gm.constant(np.float64(at))
    assert_close(nth_derivative(f, x, n), expected)


@pytest.mark.parametrize("f, at, n, expected", DERIVATIVES)
def test_nested_tapes_nth_derivative_inner_exits_first(f, at, n, expected):
    x = gm.constant(np.float64(at))
    assert_close(_nth_derivative_exiting(f, x, n), expected)


def test_nested_tapes_second_derivative_float32_exact():
    # the TF doc example: y = x * x at 5: 10, then 2
    x = gm.constant(5.0)
    with gm.GradientTape() as g:
        g.watch(x)
        with gm.GradientTape() as gg:
            gg.watch(x)
            y = x * x
        dy_dx = gg.gradient(y, x)
    d2y_dx2 = g.gradient(dy_dx, x)
    assert_tensor(dy_dx, f32(10.0), "float32")
    assert_tensor(d2y_dx2, f32(2.0), "float32")


def test_nested_tapes_mixed_partial():
    # f = x^2 y: df/dx = 2xy, d/dy (df/dx) = 2x = 6
    x, y = gm.constant(3.0), gm.constant(4.0)
    with gm.GradientTape() as outer:
        outer.watch(y)
        with gm.GradientTape() as inner:
            inner.watch(x)
            f = x * x * y
        dfdx = inner.gradient(f, x)
    assert_tensor(dfdx, f32(24.0))
    assert_tensor(outer.gradient(dfdx, y), f32(6.0))


def test_nested_tapes_variable_second_derivative():
    v = gm.Variable(2.0)
    with gm.GradientTape() as outer:
        with gm.GradientTape() as inner:
            y = v * v * v
        dy = inner.gradient(y, v)  # 3v^2 = 12
    assert_tensor(dy, f32(12.0))
    assert_tensor(outer.gradient(dy, v), f32(12.0))  # 6v = 12


def test_persistent_tape_gradient_inside_own_context_gives_second_derivative():
    # TensorFlow: a persistent tape records the gradient computed inside its own
    # context, so a second gradient of it is the second derivative.
    x = gm.constant(3.0)
    with gm.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        with pytest.warns(UserWarning, match="persistent tape inside its own context"):
            dy = tape.gradient(y, x)  # 3x^2 = 27 (TensorFlow warns here too)
    d2y = tape.gradient(dy, x)  # 6x = 18
    assert_tensor(dy, f32(27.0))
    assert_tensor(d2y, f32(18.0))


def test_first_order_gradient_outside_any_tape_is_constant():
    # taken with no tape recording, a gradient is not connected to anything
    x = gm.constant(3.0)
    with gm.GradientTape() as inner:
        inner.watch(x)
        y = x * x * x
    dy = inner.gradient(y, x)
    with gm.GradientTape() as outer:
        outer.watch(x)
        z = dy * 1.0
    assert outer.gradient(z, x) is None


# f(x) = x0^2 x1 + x1^3
# grad = (2 x0 x1, x0^2 + 3 x1^2); H = [[2 x1, 2 x0], [2 x0, 6 x1]]
# at x = (1, 2): grad = (4, 13), H = [[4, 2], [2, 12]]
def _f_two(x):
    return x[0] * x[0] * x[1] + x[1] ** 3


HESSIAN = f64([[4.0, 2.0], [2.0, 12.0]])


@pytest.mark.parametrize("v", [
    pytest.param([1.0, 0.0], id="e0"),
    pytest.param([0.0, 1.0], id="e1"),
    pytest.param([1.0, -1.0], id="(1,-1)"),
    pytest.param([0.5, 3.0], id="(0.5,3)"),
])
def test_hessian_vector_product_by_dot(v):
    x = gm.constant(np.array([1.0, 2.0]))
    vec = gm.constant(np.array(v))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = _f_two(x)
        g = inner.gradient(y, x)
        gv = np.sum(g * vec)
    assert_tensor(g, f64([4.0, 13.0]))
    assert_close(outer.gradient(gv, x), HESSIAN @ f64(v))


@pytest.mark.parametrize("v", [
    pytest.param([1.0, -1.0], id="(1,-1)"),
    pytest.param([2.0, 0.5], id="(2,0.5)"),
])
def test_hessian_vector_product_by_output_gradients(v):
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = _f_two(x)
        g = inner.gradient(y, x)
    hv = outer.gradient(g, x, output_gradients=gm.constant(np.array(v)))
    assert_close(hv, HESSIAN @ f64(v))


def test_hessian_as_jacobian_of_gradient():
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = _f_two(x)
        g = inner.gradient(y, x)
    assert_close(outer.jacobian(g, x), HESSIAN)


def test_jacobian_under_outer_tape_is_differentiable():
    # J = d(x^3)/dx = diag(3x^2); d sum(J) / dx = 6x
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = x * x * x
        j = inner.jacobian(y, x)
    assert_tensor(j, f32([[3.0, 0.0], [0.0, 12.0]]))
    assert_tensor(outer.gradient(j, x), f32([6.0, 12.0]))


# =====================================================================================
# tapes are private to their thread and their asyncio task
# =====================================================================================

def test_threads_record_independently():
    x = gm.constant(2.0)  # watched by both threads
    shared = gm.Variable(5.0, name="shared")  # used only by thread "cube"
    barrier = threading.Barrier(2, timeout=10)
    results, errors = {}, []

    def work(name, power):
        try:
            with gm.GradientTape(persistent=True) as tape:
                tape.watch(x)
                barrier.wait()
                y = x ** power
                barrier.wait()  # both threads have run an op on x while both tapes record
                if name == "cube":
                    y = y + shared * 0.0
                barrier.wait()
                y = y * 1.0
                barrier.wait()
            results[name] = (tape, y)
        except Exception as e:  # surfaces in the main thread
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=work, args=a) for a in (("square", 2), ("cube", 3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    square_tape, y_square = results["square"]
    cube_tape, y_cube = results["cube"]
    assert_tensor(square_tape.gradient(y_square, x), f32(4.0))  # 2x
    assert_tensor(cube_tape.gradient(y_cube, x), f32(12.0))  # 3x^2
    # neither tape saw the other's ops, though both watch x
    assert square_tape.gradient(y_cube, x) is None
    assert cube_tape.gradient(y_square, x) is None
    assert square_tape.watched_variables() == ()
    assert cube_tape.watched_variables() == (shared,)


def test_tape_of_main_thread_does_not_record_other_thread():
    x = gm.constant(3.0)
    out = {}
    with gm.GradientTape() as tape:
        tape.watch(x)
        t = threading.Thread(target=lambda: out.setdefault("y", x * x))
        t.start()
        t.join()
    assert tape.gradient(out["y"], x) is None


def test_asyncio_tasks_record_independently():
    x = gm.constant(2.0)
    log = []

    async def task(name, power):
        with gm.GradientTape(persistent=True) as tape:
            tape.watch(x)
            log.append(name)
            await asyncio.sleep(0)
            y = x ** power
            log.append(name)
            await asyncio.sleep(0)
            y = y * 1.0
            log.append(name)
            await asyncio.sleep(0)
        return tape, y

    async def main():
        return await asyncio.gather(task("square", 2), task("cube", 3))

    (square_tape, y_square), (cube_tape, y_cube) = asyncio.run(main())
    assert log == ["square", "cube"] * 3  # the tasks did interleave inside their tapes
    assert_tensor(square_tape.gradient(y_square, x), f32(4.0))
    assert_tensor(cube_tape.gradient(y_cube, x), f32(12.0))
    assert square_tape.gradient(y_cube, x) is None
    assert cube_tape.gradient(y_square, x) is None


def test_asyncio_task_nested_tapes_second_derivative():
    x = gm.constant(2.0)

    async def second(power):
        with gm.GradientTape() as outer:
            outer.watch(x)
            with gm.GradientTape() as inner:
                inner.watch(x)
                await asyncio.sleep(0)
                y = x ** power
            await asyncio.sleep(0)
            dy = inner.gradient(y, x)
        await asyncio.sleep(0)
        return outer.gradient(dy, x)

    async def main():
        return await asyncio.gather(second(3), second(4))

    d3, d4 = asyncio.run(main())
    assert_tensor(d3, f32(12.0))  # 6x
    assert_tensor(d4, f32(48.0))  # 12x^2


# =====================================================================================
# memory: what the tape saved is released
# =====================================================================================

@contextlib.contextmanager
def gc_disabled():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _record_with_intermediate(persistent):
    """A tape, its target, a watched x, and a weakref to an intermediate the user
    no longer holds."""
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape(persistent=persistent) as tape:
        tape.watch(x)
        h = np.exp(x)
        y = np.sum(h * h)
    ref = weakref.ref(h)
    del h
    return tape, y, x, ref


@pytest.mark.parametrize("how", ["gradient", "jacobian"])
def test_memory_non_persistent_releases_after_use(how):
    tape, y, x, ref = _record_with_intermediate(persistent=False)
    gc.collect()
    assert ref() is not None  # the tape holds it until it is used
    getattr(tape, how)(y, x)
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("how", ["gradient", "jacobian"])
def test_memory_non_persistent_releases_without_cycle_collector(how):
    with gc_disabled():
        tape, y, x, ref = _record_with_intermediate(persistent=False)
        assert ref() is not None
        getattr(tape, how)(y, x)
        assert ref() is None


def test_memory_persistent_keeps_until_deleted():
    with gc_disabled():
        tape, y, x, ref = _record_with_intermediate(persistent=True)
        tape.gradient(y, x)
        tape.gradient(y, x)
        assert ref() is not None
        del tape
        assert ref() is None


def test_memory_persistent_released_by_reset():
    with gc_disabled():
        tape, y, x, ref = _record_with_intermediate(persistent=True)
        tape.gradient(y, x)
        assert ref() is not None
        tape.reset()
        assert ref() is None


def test_memory_nested_tapes_release_without_cycle_collector():
    with gc_disabled():
        x = gm.constant([1.0, 2.0])
        with gm.GradientTape() as outer:
            outer.watch(x)
            with gm.GradientTape() as inner:
                inner.watch(x)
                h = np.sin(x)
                y = np.sum(h * h)
            g = inner.gradient(y, x)
        ref = weakref.ref(h)
        del h, y
        assert ref() is not None  # the outer tape recorded the inner backward pass
        outer.gradient(g, x)
        assert ref() is None


# =====================================================================================
# mixed backends: a NumPy-backed Tensor with an array_api_strict array
# =====================================================================================

def _np_tensor():
    return gm.constant([1.0, 2.0])


def _strict_tensor():
    return gm.constant(xs.asarray([3.0, 4.0]))


MIXED = [
    pytest.param(lambda: _np_tensor() + _strict_tensor(), id="numpy-tensor+strict-tensor"),
    pytest.param(lambda: _strict_tensor() + _np_tensor(), id="strict-tensor+numpy-tensor"),
    pytest.param(lambda: _np_tensor() * _strict_tensor(), id="numpy-tensor*strict-tensor"),
    pytest.param(lambda: _np_tensor() + xs.asarray([3.0, 4.0]), id="numpy-tensor+strict-array"),
    pytest.param(lambda: np.multiply(_np_tensor(), _strict_tensor()), id="np.multiply(numpy,strict)"),
]


@pytest.mark.parametrize("op", MIXED)
def test_mixed_backends_raise_backend_error_naming_both(op):
    with pytest.raises(gm.GradmagicError) as info:
        op()
    assert isinstance(info.value, BackendError)
    message = str(info.value)
    assert "numpy.ndarray" in message
    assert "array_api_strict" in message


def test_strict_backend_alone_is_not_an_error():
    # one backend throughout is fine: the error is about mixing
    a, b = _strict_tensor(), gm.constant(xs.asarray([1.0, 2.0]))
    c = a * b
    assert isinstance(c.value, type(xs.asarray([1.0])))
    np.testing.assert_array_equal(c.numpy(), [3.0, 8.0])


# =====================================================================================
# memory: what a non-persistent tape saved is freed during its backward pass
# =====================================================================================

def _first_op_sees_later_temporary(**tape_kwargs):
    """Whether a temporary made after the first op is still alive when the backward
    pass reaches that first op (the last one it walks)."""
    seen = {}

    @gm.custom_gradient
    def first(x):
        def grad_fn(upstream):
            seen["alive"] = later() is not None
            return upstream
        return x * 1.0, grad_fn

    x = gm.constant(np.ones(3))
    with gm.GradientTape(**tape_kwargs) as tape:
        tape.watch(x)
        t = first(x) * 2.0  # held by the tape alone once `del t` runs
        later = weakref.ref(t)
        y = np.sum(np.tanh(t))
        del t
    g = tape.gradient(y, x)
    want = 2.0 * (1.0 - np.tanh(2.0) ** 2)
    np.testing.assert_allclose(g.numpy(), np.full(3, want), rtol=1e-6)
    return seen["alive"]


def test_non_persistent_tape_frees_each_op_once_walked():
    assert _first_op_sees_later_temporary() is False


def test_persistent_tape_keeps_what_it_saved():
    assert _first_op_sees_later_temporary(persistent=True) is True


def test_trace_keeps_what_the_tape_saved_for_its_detectors():
    with gm.trace():
        assert _first_op_sees_later_temporary() is True


# one Tensor of each (gradient's own steps for its commonest call) and a list (the general ones)
ONE_OR_LIST = {"one": lambda x: x, "list": lambda x: [x]}


@pytest.mark.parametrize("how", ONE_OR_LIST)
def test_failure_while_differentiating_uses_up_a_non_persistent_tape(how):
    @gm.custom_gradient
    def broken(x):
        def grad_fn(upstream):
            raise ValueError("bad rule")
        return x * 1.0, grad_fn

    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.exp(broken(x)))
    with pytest.raises(ValueError, match="bad rule"):
        tape.gradient(y, ONE_OR_LIST[how](x))
    with pytest.raises(RuntimeError, match="failed while differentiating.*new tape"):
        tape.gradient(y, x)


def _one_or_list_gradients(how, dtype, persistent):
    """The gradients of a graph with a custom call, a broadcast, an integer source and a
    source the target does not reach, each asked for as ``how`` says."""
    x = gm.constant(np.array([0.5, -1.0, 2.0], dtype))
    b = gm.constant(np.array(1.5, dtype))
    i = gm.constant(np.array([1, 2, 3], np.int32))
    unused = gm.constant(np.array(3.0, dtype))
    with warnings.catch_warnings(record=True) as caught:  # watching i warns, as its gradient
        warnings.simplefilter("always")
        with gm.GradientTape(persistent=persistent) as tape:
            tape.watch([x, b, i, unused])
            y = np.sum(np.tanh(x * b) ** 2 + i)
        results = []
        for source in (x, b, unused, i):
            results.append(tape.gradient(y, ONE_OR_LIST[how](source)))
            if not persistent:
                break
    return results, [str(w.message) for w in caught]


@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gradient_of_one_tensor_is_what_the_general_steps_give(dtype, persistent):
    one, one_warnings = _one_or_list_gradients("one", dtype, persistent)
    listed, list_warnings = _one_or_list_gradients("list", dtype, persistent)
    assert len(one) == len(listed) == (4 if persistent else 1)
    for a, (b,) in zip(one, listed):
        if b is None:
            assert a is None
            continue
        assert type(a) is type(b) and a.dtype == b.dtype == dtype
        np.testing.assert_array_equal(a.value, b.value)
    x, s = np.array([0.5, -1.0, 2.0], dtype), dtype(1.5)
    t = np.tanh(x * s)
    np.testing.assert_allclose(one[0].value, 2 * t * (1 - t * t) * s, rtol=1e-6)
    if persistent:
        np.testing.assert_allclose(one[1].value, np.sum(2 * t * (1 - t * t) * x), rtol=1e-5)
        assert one[2] is None and one[3] is None
    assert one_warnings == list_warnings
    assert len(one_warnings) == (2 if persistent else 1)
    assert all("must be floating" in w for w in one_warnings)


def test_assign_refuses_a_cast_that_loses_what_the_value_holds():
    # TensorFlow 2.21.0: tf.Variable(0).assign(1.5) raises "Cannot convert 1.5 to EagerTensor of
    # dtype int32"; gradmagic truncated it to 1 without a word
    v = gm.Variable(np.int32(0))
    with pytest.raises(TypeError, match=r"assign\(value\): cannot convert a value of dtype float64 to "
                                        r"this Variable's dtype int32"):
        v.assign(np.float64(1.5))
    with pytest.raises(TypeError, match="cannot convert a value of dtype float64"):
        gm.Variable(np.array([1, 2], np.int32)).assign_add(np.array([0.7, 0.7]))
    v.assign(2)
    assert v.numpy() == 2 and v.dtype == np.int32  # an int stays fine
    w = gm.Variable(1.0)
    w.assign(np.float64(2.5))  # within floats: cast to the Variable's dtype, as before
    assert w.dtype == np.float32 and float(w) == 2.5


def test_numpy_gives_an_array_of_its_own_as_tensorflow_does():
    # TensorFlow 2.21.0: writing to what .numpy() gave changes neither the tensor nor the
    # Variable nor a read of it taken before ([1. 2.] [1. 2.]); a scalar's is a NumPy scalar
    v = gm.Variable(np.array([1.0, 2.0], np.float32))
    r = v.read_value()
    a = v.numpy()
    a += 10
    assert v.numpy().tolist() == r.numpy().tolist() == [1.0, 2.0] and a.tolist() == [11.0, 12.0]
    c = gm.constant([1.0, 2.0])
    b = c.numpy()
    b[1] = -5
    assert c.numpy().tolist() == [1.0, 2.0]
    x = gm.constant([1.0, 2.0])
    with gm.GradientTape() as tape:  # what the tape saved stays as it was
        tape.watch(x)
        y = np.sum(x * x)
    x.numpy()[0] = 100.0
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]
    s = gm.Variable(2.0).numpy()
    assert type(s) is np.float32 and s == 2.0 and hash(s) == hash(2.0)


@pytest.mark.parametrize("persistent", [False, True])
def test_a_tape_never_entered_says_so_instead_of_giving_none(persistent):
    # `tape = gm.GradientTape()` with no `with`: nothing is recorded, so every gradient would
    # be a silent None; TensorFlow raises a RuntimeError there too
    x = gm.constant(2.0)
    tape = gm.GradientTape(persistent=persistent)
    tape.watch(x)
    y = x * x
    for ask in (lambda: tape.gradient(y, x), lambda: tape.jacobian(y, x)):
        with pytest.raises(RuntimeError, match="this tape was never entered") as info:
            ask()
        assert isinstance(info.value, gm.GradmagicError)
    with tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 4.0
