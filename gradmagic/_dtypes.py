"""Dtype objects over NumPy's that answer what a framework's dtypes answer, usable wherever
NumPy takes a dtype.

Tensors hold NumPy (or CuPy) arrays, so their dtypes are NumPy's. A user's code also asks
them what its framework's dtype objects answer: ``x.dtype.is_floating`` and
``x.dtype.as_numpy_dtype`` (TensorFlow, whose eager semantics ``gm.Tensor`` has: ``DType``),
``x.dtype.is_floating_point`` (PyTorch, whose dtypes also print as ``torch.float32``:
``gradmagic.torch.dtype``). ``FrameworkDType`` holds one NumPy dtype and is that dtype to
NumPy (``np.dtype(d)`` reads its ``dtype``, as for any object that has one), equal to it and
hashed alike, with NumPy's attributes (``kind``, ``itemsize`` ...); a subclass adds its
framework's. There is one object per NumPy dtype and framework (``table``), so
``x.dtype is torch.float32`` holds, as in PyTorch.
"""

from __future__ import annotations

import numpy as np


class FrameworkDType:
    """One NumPy dtype in a framework's words (a dialect subclasses it)."""

    __slots__ = ("dtype", "kind", "itemsize", "name", "char", "type")
    framework = ""  # how the subclass's objects are looked up again: "torch", "tf"

    def __init__(self, dtype):
        dtype = np.dtype(dtype)
        self.dtype, self.kind, self.itemsize = dtype, dtype.kind, dtype.itemsize
        self.name, self.char, self.type = dtype.name, dtype.char, dtype.type

    def __getattr__(self, name):  # the rest of NumPy's dtype (str, num, byteorder ...)
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.dtype, name)

    def __eq__(self, other):
        return self.dtype == (other.dtype if isinstance(other, FrameworkDType) else other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.dtype)

    def __reduce__(self):  # a pickled dtype comes back as the same object
        return (by_name, (self.framework, self.name))

    def __repr__(self):
        return f"{self.framework}.{self.name}"


TABLES = {}  # framework -> (its class, {NumPy dtype: its object})


def table(cls, names) -> dict:
    """``cls``'s object for each NumPy dtype named in ``names``, made once: {NumPy dtype:
    object}."""
    made = TABLES.setdefault(cls.framework, (cls, {}))[1]
    for name in names:
        by_name(cls.framework, name)
    return made


def by_name(framework, name):
    """The object of ``framework`` for the NumPy dtype ``name`` (made if it was not yet)."""
    cls, made = TABLES[framework]
    dtype = np.dtype(name)
    found = made.get(dtype)
    if found is None:
        found = made[dtype] = cls(dtype)
    return found


# TensorFlow's numbers for its dtypes (``as_datatype_enum``)
ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
         "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "complex128": 18, "float16": 19,
         "uint32": 22, "uint64": 23}


class DType(FrameworkDType):
    """The dtype of a ``gm.Tensor`` (and so of ``gradmagic.tf``'s): NumPy's, printed as NumPy
    prints it, with TensorFlow's ``DType`` attributes (``is_floating``, ``as_numpy_dtype``,
    ``base_dtype``, ``min`` ...), as TensorFlow code reads them."""

    __slots__ = ()
    framework = "gm"

    def __repr__(self):
        return repr(self.dtype)

    def __str__(self):
        return str(self.dtype)

    is_floating = property(lambda self: self.kind == "f")
    is_integer = property(lambda self: self.kind in "iu")
    is_complex = property(lambda self: self.kind == "c")
    is_bool = property(lambda self: self.kind == "b")
    is_unsigned = property(lambda self: self.kind == "u")
    is_numeric = property(lambda self: self.kind in "iufc")
    is_quantized = False
    is_numpy_compatible = True
    as_numpy_dtype = property(lambda self: self.type)
    base_dtype = property(lambda self: self)
    size = property(lambda self: self.itemsize)
    as_datatype_enum = property(lambda self: ENUMS.get(self.name, 0))

    @property
    def real_dtype(self):
        return by_name("gm", f"float{4 * self.itemsize}") if self.kind == "c" else self

    @property
    def min(self):
        return self._limit("min", "minimum")

    @property
    def max(self):
        return self._limit("max", "maximum")

    def _limit(self, end, word):
        if self.kind in "iu":
            return getattr(np.iinfo(self.dtype), end)
        if self.kind == "f":
            return getattr(np.finfo(self.dtype), end)
        raise TypeError(f"Cannot find {word} value of <dtype: '{self.name}'> with type "
                        f"<dtype: '{self.name}'>.")

    @property
    def limits(self):
        """TensorFlow's ``(0, max)`` of an integer dtype; ``(0, 1)`` of a float one."""
        if self.kind == "b":
            return (0, True)
        if self.kind not in "iuf" or self.kind == "f" and self.itemsize < 4:
            raise ValueError(f"<dtype: '{self.name}'> does not have defined limits.")
        return (0, 1) if self.kind == "f" else (0, int(np.iinfo(self.dtype).max))

    def is_compatible_with(self, other):
        return self == other


DTYPES = table(DType, ["float16", "float32", "float64", "complex64", "complex128", "int8", "int16",
                       "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"])


def dtype_of(d):
    """A NumPy (or CuPy) array's dtype ``d`` as a ``DType``; another array module's as it is
    (``array_api_strict.float64``)."""
    if not isinstance(d, np.dtype):
        return d
    found = DTYPES.get(d)
    return found if found is not None else by_name("gm", d.name)
