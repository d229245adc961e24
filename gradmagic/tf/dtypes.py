"""``tf.dtypes``: TensorFlow's dtype objects. A tensor's dtype is NumPy's, with TensorFlow's
``DType`` attributes (``is_floating``, ``as_numpy_dtype``, ``base_dtype``, ``min``, ``max``
...): ``tf.float32`` is that object for float32, and ``as_dtype`` finds it from a name, a
NumPy type or a Python type, as TensorFlow maps them."""

import numpy as np

from .._dtypes import DType, dtype_of
from .tensors import (bool, cast, complex64, complex128, float16, float32, float64, int8, int16,
                      int32, int64, uint8)

half, double, complex = float16, float64, complex64  # noqa: A001  (TensorFlow's aliases)
uint16, uint32, uint64 = dtype_of(np.dtype("uint16")), dtype_of(np.dtype("uint32")), dtype_of(np.dtype("uint64"))

DTYPE_WORDS = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
               "long": "int64", "complex": "complex64"}
PYTHON_TYPES = {float: "float32", int: "int32", bool: "bool", complex: "complex128", str: None}


def as_dtype(type_value):
    """``tf.as_dtype``: a dtype name, NumPy type or dtype as a ``DType``; Python's ``float``
    and ``int`` are float32 and int32, as TensorFlow maps them."""
    try:
        if type_value in PYTHON_TYPES and PYTHON_TYPES[type_value]:
            return dtype_of(np.dtype(PYTHON_TYPES[type_value]))
        if isinstance(type_value, str):
            type_value = DTYPE_WORDS.get(type_value, type_value)
        if type_value is None or type_value is str:
            raise TypeError
        return dtype_of(np.dtype(type_value))
    except TypeError:
        raise TypeError(f"Cannot convert the argument `type_value`: {type_value!r} to a TensorFlow "
                        "DType.") from None


__all__ = ["DType", "as_dtype", "cast", "bool", "float16", "float32", "float64", "half", "double",
           "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "complex64",
           "complex128", "complex"]
