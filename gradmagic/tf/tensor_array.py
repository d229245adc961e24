"""``tf.TensorArray``, as TensorFlow runs it eagerly: a Python list of tensors that ``write``
fills and ``stack``, ``gather`` and ``concat`` join with the engine's ops, so a tape follows
each element from where it was computed to where it is read (a Python loop or
``tf.while_loop`` that writes one step at a time has TensorFlow's gradients). Indices,
dtypes and shapes are checked with TensorFlow's errors.

>>> import gradmagic.tf as tf
>>> ta = tf.TensorArray(tf.float32, size=2)
>>> ta = ta.write(0, 1.0).write(1, 2.0)
>>> ta.stack().numpy().tolist()
[1.0, 2.0]
"""

import numpy as np

from .._dtypes import dtype_of
from ..core.tensor import Shape
from ..errors import GradientValueError
from .arrays import concat, split, stack, unstack
from .errors import InvalidArgumentError, OutOfRangeError
from .tensors import as_tensor, constant, convert_to_tensor, zeros


def listed(shape):
    """A shape as TensorFlow's messages write it: ``(2,)``, ``<unknown>``."""
    return "<unknown>" if shape is None else str(Shape(shape))


def compatible(known, shape):
    """Whether ``shape`` fits ``known`` (None: any shape; a None dimension: any size)."""
    return known is None or (len(known) == len(shape) and all(
        k is None or k == s for k, s in zip(known, shape)))


class TensorArray:
    """``tf.TensorArray(dtype, size=None, dynamic_size=None, clear_after_read=None, ...,
    infer_shape=True, element_shape=None, ...)``: ``size`` elements of ``dtype``, written one
    at a time (``ta = ta.write(i, x)``: the array itself, as TensorFlow's eager one) and read
    back one at a time (``read``: once, unless ``clear_after_read=False``) or joined
    (``stack``, ``gather``, ``concat``). An element never written reads as zeros of the
    element shape, once that shape is known."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise GradientValueError("TensorArray handles are not supported when eager execution "
                                     "is enabled.")
        if size is None:
            raise GradientValueError("Size must be declared for TensorArrays when eager execution "
                                     "is enabled.")
        self._dtype = np.dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._shape = None if element_shape is None else tuple(
            None if d is None else int(d) for d in element_shape)
        self._read = set()  # indices cleared by a read
        self._items = [None] * int(size)

    dtype = property(lambda self: dtype_of(self._dtype))
    dynamic_size = property(lambda self: self._dynamic_size)

    @property
    def element_shape(self):
        """The elements' shape, as written so far or given (None while unknown: TensorFlow's
        ``TensorShape(None)``)."""
        return None if self._shape is None else Shape(self._shape)

    def size(self, name=None):
        return constant(len(self._items))

    def identity(self):
        return self

    def close(self, name=None):
        self._items.clear()

    def read(self, index, name=None):
        """The element at ``index``; with ``clear_after_read`` (the default), read once."""
        index = int(index)
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._items):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: "
                                  f"{len(self._items)} ")
        if self._items[index] is None and index in self._read:
            raise InvalidArgumentError(
                f"Could not read index {index} twice because it was cleared after a previous read "
                "(perhaps try setting clear_after_read = false?)")
        tensor = self._element(index)
        if self._clear_after_read:
            self._items[index] = None
            self._read.add(index)
        return tensor

    def write(self, index, value, name=None):
        """Put ``value`` (of the array's dtype) at ``index``; returns the array."""
        self._write(int(index), value)
        return self

    def _write(self, index, value):
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not allowed.")
        if index >= len(self._items):
            if not self._dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {index} but array is not resizeable "
                                      f"and size is: {len(self._items)} ")
            self._items += [None] * (index + 1 - len(self._items))
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                                       f"write dtype {value.dtype.name} ")
        if not compatible(self._shape, value.shape):
            raise GradientValueError(f"Incompatible shape for value ({listed(value.shape)}), "
                                     f"expected ({listed(self._shape)})")
        if self._infer_shape:
            self._shape = tuple(value.shape)
        self._items[index] = value

    def _element(self, index):
        """The element at ``index``, zeros of the element shape where none was written."""
        if self._items[index] is None:
            if self._shape is None or None in self._shape:
                raise GradientValueError(f"Cannot convert a partially known TensorShape "
                                         f"{listed(self._shape)} to a Tensor.")
            self._items[index] = zeros(self._shape, self._dtype)
        return self._items[index]

    def stack(self, name=None):
        """The elements stacked along a new first axis."""
        if not self._items:
            known = self._shape is not None and None not in self._shape
            return zeros((0,) + (self._shape if known else ()), self._dtype)
        return stack([self._element(i) for i in range(len(self._items))])

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        return stack([self._element(int(i)) for i in np.ravel(as_tensor(indices).numpy())])

    def concat(self, name=None):
        """The elements joined along their first axis."""
        parts = [self._element(i) for i in range(len(self._items))]
        scalar = next((k for k, p in enumerate(parts) if p.ndim == 0), None)
        if scalar is not None:
            raise InvalidArgumentError(f"Concat saw a scalar shape at index {scalar} but requires at "
                                       "least vectors.")
        return concat(parts, 0)

    def unstack(self, value, name=None):
        """The slices of ``value`` along its first axis, as the elements; returns the array."""
        tensors = unstack(value)
        if len(tensors) > len(self._items) and not self._dynamic_size:
            raise GradientValueError(f"Cannot unstack {len(tensors)} tensors into a TensorArray of "
                                     f"static size {len(self._items)} ")
        self._items = tensors
        return self

    def scatter(self, indices, value, name=None):
        """The slices of ``value`` along its first axis written at ``indices``."""
        for index, part in zip(np.ravel(as_tensor(indices).numpy()), unstack(value)):
            self._write(int(index), part)
        return self

    def split(self, value, lengths, name=None):
        """``value`` cut along its first axis into pieces of ``lengths``, as the elements."""
        value = convert_to_tensor(value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is trying to "
                                       f"write dtype {value.dtype.name} ")
        lengths = as_tensor(lengths)
        total = int(np.sum(lengths.numpy()))
        if lengths.ndim != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: "
                                       f"{list(lengths.shape)} ")
        if value.ndim == 0:
            raise InvalidArgumentError("Expected value to be at least a vector, but received shape: [] ")
        if total != value.shape[0]:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                f"{total} and value's shape is: {list(value.shape)} ")
        if not self._dynamic_size and lengths.shape[0] != len(self._items):
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({len(self._items)} vs. "
                f"{lengths.shape[0]}), and the TensorArray is not marked as dynamically resizeable.")
        self._items = split(value, [int(n) for n in lengths.numpy()])
        return self
