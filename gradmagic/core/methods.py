"""NumPy's ndarray methods on Tensors, and the NumPy functions behind them that no other
family has: ``np.take``, ``np.copy``, ``np.matrix_transpose``, ``np.unstack``, and
``np.reshape``/``np.ravel`` in each order NumPy reads (``'C'``, ``'F'``, ``'A'``, ``'K'``).

A method is its NumPy function: ``t.argmax(axis)`` runs ``np.argmax(t, axis)``, dispatched
as NumPy dispatches that call, so it has that function's gradient rule (or, for an answer of
integers, none to lose). ``METHODS`` (name -> NumPy function) and ``PROPERTIES`` list them;
``dispatch.install`` puts each on ``Tensor`` as a ``NumpyMethod``. A dialect's tensor class
(one whose ``result_class`` is its own: ``gradmagic.torch``'s) defines its own methods;
where it defines none of a name, it has none (PyTorch's tensors have no ``copy()`` or
``__round__``), rather than NumPy's under that name.

An order other than C reads the elements in another order, which is a transpose: a
reshape in order F is the reversed shape's reshape of the transpose, transposed back.
"""

import types

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .._array_api import numpy_names
from .._backend import kind, xp_of
from ..errors import GradientTypeError
from . import ops
from .primitive import Primitive, apply, composite
from .tensor import Tensor, raw

COPY = Primitive("copy", lambda xp, x: x.copy(), elementwise=True,
                 portable=lambda xp, x: xp.asarray(x, copy=True))  # its rule: vjps.py


def copy(a, order="K", subok=False):
    """``np.copy``: a new Tensor of the same values (immutable: only its identity is new),
    whose gradient is the upstream one."""
    return apply(COPY, a)


@composite("scatter-add into zeros")
def take(a, indices, axis=None, out=None, mode="raise"):
    """``np.take``: the elements at ``indices`` along ``axis`` (of the raveled values where
    None), NumPy's ``mode`` ('raise', 'wrap', 'clip') applied to the indices; a gather."""
    ops.unsupported("np.take", out=out)
    if axis is None:
        a, axis = ops.reshape(a, (-1,)), 0
    shape = np.shape(raw(a))
    axis = normalize_axis_index(int(axis), len(shape))
    xp = numpy_names(xp_of(raw(a)))
    index = raw(indices)
    index = xp.asarray(index) if not isinstance(index, (int, np.integer)) else index
    if getattr(index, "dtype", None) is not None and kind(index.dtype) == "b":
        index = index.astype(np.intp)  # NumPy takes booleans as the integers 0 and 1
    n = shape[axis]
    if mode == "wrap":
        index = index % n
    elif mode == "clip":
        index = xp.clip(index, 0, n - 1) if n else index
    elif mode != "raise":
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    return ops.getitem(a, (slice(None),) * axis + (index,))


def matrix_transpose(x, /):
    """``np.matrix_transpose`` (and ``np.linalg``'s): the last two axes swapped."""
    nd = len(np.shape(raw(x)))
    if nd < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {nd}")
    return ops.swapaxes(x, -1, -2)


def unstack(x, /, *, axis=0):
    """``np.unstack``: the slices along ``axis``, as a tuple."""
    shape = np.shape(raw(x))
    axis = normalize_axis_index(int(axis), len(shape))
    return tuple(ops.getitem(x, (slice(None),) * axis + (i,)) for i in range(shape[axis]))


# -- orders ---------------------------------------------------------------------------------
def _order(a, order, allowed, fn):
    """``order`` as 'C' or 'F' for ``a``'s values; 'A' and 'K' read their memory layout, as
    NumPy's, and 'K' can be an axis permutation (a tuple: the axes in memory order)."""
    order = "C" if order is None else order
    if order not in ("C", "F", "A", "K") or order not in allowed:
        if order == "K":
            raise ValueError("order 'K' is not permitted for reshaping")
        raise ValueError(f"{fn}: order must be one of {', '.join(repr(o) for o in allowed)} (got {order!r})")
    if order in "CF":
        return order
    flags = getattr(raw(a), "flags", None)
    c, f = getattr(flags, "c_contiguous", True), getattr(flags, "f_contiguous", False)
    if c or order == "A":
        return "F" if f and not c else "C"
    strides = getattr(raw(a), "strides", None)
    if f or not strides:
        return "F" if f else "C"
    return tuple(sorted(range(len(strides)), key=lambda k: -abs(strides[k])))  # stable


def _reversed_axes(a):
    return ops.transpose(a, None)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    """``np.reshape`` in order 'C', 'F' or 'A': in F, the transpose reshaped to the reversed
    shape, transposed back."""
    order = "C" if order == "C" else _order(a, order, "CFA", "np.reshape")
    if order == "C":
        return ops.reshape(a, shape, newshape=newshape)
    shape = ops.shape_arg(newshape if shape is None else shape)
    return _reversed_axes(ops.reshape(_reversed_axes(a), shape[::-1]))


def ravel(a, order="C"):
    """``np.ravel`` in order 'C', 'F', 'A' or 'K' (of the values' memory layout, as NumPy's)."""
    order = "C" if order == "C" else _order(a, order, "CFAK", "np.ravel")
    if order == "C":
        return ops.reshape(a, (-1,))
    return ops.reshape(_reversed_axes(a) if order == "F" else ops.transpose(a, order), (-1,))


# -- the methods ----------------------------------------------------------------------------
def reshape_method(self, *shape, order="C", copy=None):
    """``t.reshape(2, 3)``, ``t.reshape((2, 3), order='F')``: ``np.reshape``."""
    if order == "C":
        return ops.reshape(self, shape[0] if len(shape) == 1 else shape)
    return reshape(self, shape[0] if len(shape) == 1 else shape, order)


def ravel_method(self, order="C"):
    """``t.ravel(order)`` and ``t.flatten(order)``: ``np.ravel`` (a Tensor is never a view)."""
    return ops.reshape(self, (-1,)) if order == "C" else ravel(self, order)


def sort_method(self, axis=-1, kind=None, order=None):
    """NumPy's ``a.sort()`` sorts ``a`` in place and returns None; a Tensor cannot change."""
    raise GradientTypeError(
        "t.sort() sorts t in place in NumPy (it returns None), and Tensors are immutable, so "
        "that the tape can follow them: write t = np.sort(t) (np.sort(t, axis=...)), which "
        "gives the sorted values as a new Tensor")


def round_method(self, ndigits=None):
    """``round(t)``: a 0-d Tensor's nearest int, as a NumPy scalar's (its derivative is 0 where
    it has one); otherwise, and with ``ndigits``, ``np.round(t, ndigits)``."""
    if ndigits is None and not np.shape(self.value):
        return round(self.value.item())
    return np.round(self, 0 if ndigits is None else ndigits)


METHODS = {  # t.name(*args, **kwargs) is np.function(t, *args, **kwargs)
    "copy": np.copy, "argmax": np.argmax, "argmin": np.argmin, "argsort": np.argsort,
    "argpartition": np.argpartition, "searchsorted": np.searchsorted, "any": np.any, "all": np.all,
    "round": np.round, "swapaxes": np.swapaxes, "trace": np.trace, "diagonal": np.diagonal,
    "repeat": np.repeat, "take": np.take, "nonzero": np.nonzero, "conj": np.conjugate,
    "conjugate": np.conjugate, "sort": sort_method, "__round__": round_method,
}
PROPERTIES = {"mT": np.matrix_transpose, "real": np.real, "imag": np.imag}


class NumpyMethod:
    """A method or property (``prop``) of ``Tensor`` that is NumPy's: the core's Tensors,
    Variables and gradmagic.tf's tensors have it; a dialect's own tensor class that does not
    define the name has no such attribute."""

    __slots__ = ("name", "call", "prop")

    def __init__(self, name, func, prop=False):
        self.name, self.prop = name, prop
        if getattr(func, "__module__", None) == __name__:
            self.call = func  # one of this module's own (sort, __round__)
        else:
            def call(self, *args, **kwargs):
                return func(self, *args, **kwargs)
            call.__name__ = call.__qualname__ = name
            call.__doc__ = f"``t.{name}(...)`` is ``np.{func.__name__}(t, ...)``."
            self.call = call

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        if obj.result_class is not Tensor:  # a dialect's tensor: not its vocabulary
            if self.name == "__round__":
                raise TypeError(f"type {type(obj).__name__} doesn't define __round__ method")
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}")
        return self.call(obj) if self.prop else types.MethodType(self.call, obj)


FUNCTIONS = {np.copy: copy, np.take: take, np.matrix_transpose: matrix_transpose,
             np.linalg.matrix_transpose: matrix_transpose, np.unstack: unstack,
             np.reshape: reshape, np.ravel: ravel}  # NumPy function -> its form here
