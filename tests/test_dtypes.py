"""Tensors' dtypes: NumPy's to NumPy, with the attributes a framework's code reads from
its own dtype objects (TensorFlow's ``DType`` on ``gm.Tensor`` and ``gradmagic.tf``,
``torch.dtype`` on ``gradmagic.torch``). The expected values were printed by TensorFlow
2.21.0 (tensorflow-cpu) and PyTorch 2.13.0+cpu."""

import pickle

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf
import gradmagic.torch as torch


def test_a_tensors_dtype_is_numpys_to_numpy():
    d = gm.constant(1.0).dtype
    assert d == np.float32 and d == np.dtype("float32") and d == "float32" and np.float32 == d
    assert d != np.float64 and not (d == np.float64)
    assert np.dtype(d) is np.dtype("float32")
    assert hash(d) == hash(np.dtype("float32"))
    assert {np.dtype("float32"): "found"}[d] == "found"
    assert d is gm.constant(np.float32(2.0)).dtype  # one object per dtype
    assert (repr(d), str(d)) == ("dtype('float32')", "float32")  # printed as NumPy prints it
    assert (d.kind, d.itemsize, d.name, d.type, d.char, d.str) == ("f", 4, "float32", np.float32, "f", "<f4")
    assert np.zeros(2, d).dtype == np.float32 and np.ones(2).astype(d).dtype == np.float32
    assert np.issubdtype(d, np.floating) and np.finfo(d).eps == np.finfo(np.float32).eps
    assert np.result_type(d, np.float64) == np.float64
    assert pickle.loads(pickle.dumps(d)) is d


def test_an_array_api_modules_dtype_stays_its_own():
    xp = pytest.importorskip("array_api_strict")
    t = gm.Tensor(xp.asarray([1.0, 2.0]))
    assert type(t.dtype) is type(xp.float64) and t.dtype == xp.float64


# name: (is_floating, is_integer, is_complex, is_bool, is_unsigned, is_numeric, size,
#        as_numpy_dtype, base_dtype, real_dtype, as_datatype_enum, min, max, limits),
# from TensorFlow 2.21.0 (an error's type where TensorFlow raises)
TENSORFLOW = {
    'float16': (True, False, False, False, False, True, 2, 'float16', 'float16', 'float16', 19, np.float16(-6.55e+04), np.float16(6.55e+04), 'ValueError'),
    'float32': (True, False, False, False, False, True, 4, 'float32', 'float32', 'float32', 1, np.float32(-3.4028235e+38), np.float32(3.4028235e+38), (0, 1)),
    'float64': (True, False, False, False, False, True, 8, 'float64', 'float64', 'float64', 2, np.float64(-1.7976931348623157e+308), np.float64(1.7976931348623157e+308), (0, 1)),
    'int8': (False, True, False, False, False, True, 1, 'int8', 'int8', 'int8', 6, -128, 127, (0, 127)),
    'int16': (False, True, False, False, False, True, 2, 'int16', 'int16', 'int16', 5, -32768, 32767, (0, 32767)),
    'int32': (False, True, False, False, False, True, 4, 'int32', 'int32', 'int32', 3, -2147483648, 2147483647, (0, 2147483647)),
    'int64': (False, True, False, False, False, True, 8, 'int64', 'int64', 'int64', 9, -9223372036854775808, 9223372036854775807, (0, 9223372036854775807)),
    'uint8': (False, True, False, False, True, True, 1, 'uint8', 'uint8', 'uint8', 4, 0, 255, (0, 255)),
    'uint16': (False, True, False, False, True, True, 2, 'uint16', 'uint16', 'uint16', 17, 0, 65535, (0, 65535)),
    'uint32': (False, True, False, False, True, True, 4, 'uint32', 'uint32', 'uint32', 22, 0, 4294967295, (0, 4294967295)),
    'uint64': (False, True, False, False, True, True, 8, 'uint64', 'uint64', 'uint64', 23, 0, 18446744073709551615, (0, 18446744073709551615)),
    'bool': (False, False, False, True, False, False, 1, 'bool', 'bool', 'bool', 10, 'TypeError', 'TypeError', (0, True)),
    'complex64': (False, False, True, False, False, True, 8, 'complex64', 'complex64', 'float32', 8, 'TypeError', 'TypeError', 'ValueError'),
    'complex128': (False, False, True, False, False, True, 16, 'complex128', 'complex128', 'float64', 18, 'TypeError', 'TypeError', 'ValueError'),
}


def _or_error(get):
    try:
        return get()
    except Exception as e:  # noqa: BLE001  (the test compares the error's type)
        return type(e).__name__


@pytest.mark.parametrize("name", sorted(TENSORFLOW))
def test_a_tensors_dtype_answers_as_tensorflows_dtype(name):
    d = tf.zeros([2], dtype=tf.as_dtype(name)).dtype
    got = (d.is_floating, d.is_integer, d.is_complex, d.is_bool, d.is_unsigned, d.is_numeric, d.size,
           d.as_numpy_dtype.__name__, d.base_dtype.name, d.real_dtype.name, d.as_datatype_enum,
           _or_error(lambda: d.min), _or_error(lambda: d.max), _or_error(lambda: d.limits))
    assert got == TENSORFLOW[name]
    assert d is tf.as_dtype(name) and isinstance(d, tf.DType) and isinstance(d, tf.dtypes.DType)
    assert d.is_compatible_with(tf.as_dtype(name)) and d.base_dtype is d


def test_tensorflow_code_that_reads_dtypes_runs():
    def masked_softmax(logits, mask):
        if not logits.dtype.is_floating:
            logits = tf.cast(logits, tf.float32)
        big = logits.dtype.max if logits.dtype == tf.float16 else 1e9
        neg = tf.cast(-big, logits.dtype.base_dtype)
        return tf.nn.softmax(tf.where(mask, logits, neg))

    x = tf.constant([1, 2, 3])
    with tf.GradientTape() as tape:
        f = tf.cast(x, tf.float32)
        tape.watch(f)
        y = masked_softmax(f, tf.constant([True, True, False]))
        first = y[0]
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(y.numpy(), [*(e / e.sum()), 0.0], rtol=1e-6)
    assert y.dtype is tf.float32 and y.dtype.as_numpy_dtype is np.float32
    assert tape.gradient(first, f).dtype is tf.float32
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.double is tf.float64
    assert tf.dtypes.as_dtype(float) is tf.float32 and tf.dtypes.cast is tf.cast


# str: (is_floating_point, is_complex, is_signed, itemsize, to_real(), to_complex()), from
# PyTorch 2.13.0+cpu (the error's type and message where it raises)
PYTORCH = {
    'torch.float32': (True, False, True, 4, 'torch.float32', 'torch.complex64'),
    'torch.float64': (True, False, True, 8, 'torch.float64', 'torch.complex128'),
    'torch.int8': (False, False, True, 1, 'torch.int8', 'RuntimeError: Unknown Complex ScalarType for Char'),
    'torch.int16': (False, False, True, 2, 'torch.int16', 'RuntimeError: Unknown Complex ScalarType for Short'),
    'torch.int32': (False, False, True, 4, 'torch.int32', 'RuntimeError: Unknown Complex ScalarType for Int'),
    'torch.int64': (False, False, True, 8, 'torch.int64', 'RuntimeError: Unknown Complex ScalarType for Long'),
    'torch.uint8': (False, False, False, 1, 'torch.uint8', 'RuntimeError: Unknown Complex ScalarType for Byte'),
    'torch.bool': (False, False, False, 1, 'torch.bool', 'RuntimeError: Unknown Complex ScalarType for Bool'),
}


@pytest.mark.parametrize("name", sorted(PYTORCH))
def test_a_torch_tensors_dtype_answers_as_pytorchs(name):
    d = getattr(torch, name.split(".")[1])
    t = torch.zeros(2, dtype=d)
    assert t.dtype is d and isinstance(d, torch.dtype)
    assert (repr(d), str(d)) == (name, name)
    try:
        complex_ = str(d.to_complex())
    except RuntimeError as e:
        complex_ = f"RuntimeError: {e}"
    assert (d.is_floating_point, d.is_complex, d.is_signed, d.itemsize, str(d.to_real()), complex_) == PYTORCH[name]
    assert d == np.dtype(name.split(".")[1]) and np.dtype(d) == d and pickle.loads(pickle.dumps(d)) is d


def test_torch_dtypes_print_and_are_kept_as_pytorchs():
    x = torch.tensor([1.0, 2.0])
    assert (str(x.dtype), repr(x.double().dtype)) == ("torch.float32", "torch.float64")
    assert torch.float is torch.float32 and torch.long is torch.int64 and torch.double is torch.float64
    assert torch.get_default_dtype() is torch.float32
    assert x.to(torch.float64).dtype is torch.float64 and (x * 2).dtype is torch.float32
    assert torch.tensor(2.0, dtype=torch.float64).dtype is torch.float64
    assert repr(torch.zeros(2, dtype=torch.int32)) == "tensor([0, 0], dtype=torch.int32)"
    with pytest.raises(RuntimeError, match="complex32"):
        torch.float16.to_complex()


def test_a_torch_dtype_mismatch_in_conv2d_is_pytorchs_error():
    x, w = torch.ones(1, 1, 3, 3), torch.ones(1, 1, 2, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        torch.nn.functional.conv2d(x, w)
