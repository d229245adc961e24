"""Tensor, Variable and constant: values the tape can follow (data and conversions).

A ``Tensor`` wraps one raw array (``.value``: NumPy or CuPy) and a unique id; that is
all it holds. Its operators, NumPy-style methods and NumPy's dispatch protocols are
ops: ``core/dispatch.py`` installs them on the class, once the op catalogue exists, so
this module imports no op.
"""

from __future__ import annotations

import dis
import itertools
import sys
import weakref

import numpy as np

from .._array_api import numpy_names
from .._backend import default_xp, to_host, xp_of
from .._dtypes import dtype_of
from ..errors import GradientTypeError, GradientValueError
from .context import followed


class Shape(tuple):
    """A Tensor's shape: a tuple of ints, as NumPy's, that also answers as TensorFlow's
    ``TensorShape`` does (``as_list()``, ``rank``, ``num_elements()``). It compares as a
    tuple, in C, since the engine compares shapes at every step of a recorded pass: so
    ``shape == [3, 1]`` is False, as NumPy's (compare ``shape.as_list()`` with a list)."""

    __slots__ = ()

    def as_list(self) -> list:
        return list(self)

    rank = ndims = property(len)

    @property
    def dims(self) -> list:
        return list(self)

    def num_elements(self):
        """The number of elements (None where a dimension is unknown)."""
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        return None not in self


class Tensor:
    """An immutable array the tape can follow. ``.value`` is the raw NumPy/CuPy array.

    Tapes know a Tensor by ``id()``: a tape holds every Tensor it follows, so an id
    cannot be reused while the tape could look for it.
    """

    __slots__ = ("value", "__weakref__")
    __array_priority__ = 1000  # NumPy defers to our reflected operators

    def __init__(self, value):
        # an array of any module; Python numbers and lists become NumPy arrays (use
        # gm.constant for TensorFlow's dtypes and the current backend)
        self.value = value if hasattr(value, "shape") else np.asarray(value)

    # -- what the value is ------------------------------------------------------
    shape = property(lambda self: Shape(self.value.shape),
                     doc="The shape, a tuple of ints (with TensorFlow's ``as_list()``, ``rank``).")

    def get_shape(self) -> Shape:
        """``shape``, by TensorFlow's other name for it."""
        return Shape(self.value.shape)
    dtype = property(lambda self: dtype_of(self.value.dtype),
                     doc="The NumPy dtype, with TensorFlow's DType attributes (``is_floating`` ...).")
    ndim = property(lambda self: self.value.ndim)
    size = property(lambda self: int(self.value.size))

    def numpy(self):
        """The value as a NumPy array on the host, of its own: writing to it never changes
        the Tensor (a Variable, or a value a tape saved), as TensorFlow's ``numpy()`` gives a
        copy; a 0-d value as a NumPy scalar, as TensorFlow gives it."""
        v = self.value
        if isinstance(v, np.ndarray):
            return v[()] if v.ndim == 0 else np.array(v)
        return to_host(v)  # a NumPy scalar as it is; a device array's host copy

    def __array__(self, dtype=None, copy=None):
        if followed(self):  # as JAX refuses to make a traced value a NumPy array
            raise GradientTypeError(
                "%s makes a plain NumPy array of a Tensor, which would silently drop the gradient "
                "of this Tensor, since a tape follows it (or, a trainable Variable, would on use): "
                "build arrays from Tensors with np.stack([t1, t2]) or np.concatenate%s, which record; "
                "for a copy without gradient on purpose, call t.numpy()" % _converting(sys._getframe(1)))
        a = np.asarray(to_host(self.value), dtype=dtype)
        return a.copy() if copy else a

    def item(self):
        return to_host(self.value).item()

    def tolist(self):
        return np.asarray(self.numpy()).tolist()

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self.value.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d Tensor")
        return (self[i] for i in range(self.value.shape[0]))

    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        if self.dtype.kind not in "iub":
            raise TypeError(f"only integer Tensors can be used as an index, not {self.dtype}")
        return int(self.value)

    def __format__(self, spec):
        return format(to_host(self.value), spec)

    def __repr__(self):
        return f"<gm.Tensor: shape={self.shape}, dtype={self.dtype}, numpy={_numpy_repr(self)}>"

    def __str__(self):
        return str(to_host(self.value))

    __hash__ = None  # == is elementwise, as in NumPy and TensorFlow

    def ref(self):
        """A hashable reference to this object, as TensorFlow's ``ref()`` (``Reference``)."""
        return Reference(self)

    def __setitem__(self, index, value):
        raise GradientTypeError(
            f"{type(self).__name__}.__setitem__: Tensors are immutable, so the tape can "
            "follow them; build a new one instead (np.where(mask, new, old), or "
            "np.concatenate of the pieces), or use a Variable's assign()")


_STORE_SUBSCR = dis.opmap["STORE_SUBSCR"]


def _converting(frame):
    """What made an array of a Tensor, in the words of the code that did, and how else to
    write it, for ``__array__``'s error: ``frame`` is the frame that asked for the conversion."""
    numpy_frame = None
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "numpy":
        numpy_frame, frame = frame, frame.f_back  # the outermost of NumPy's own Python frames
    if numpy_frame is not None and "." not in numpy_frame.f_code.co_qualname.removesuffix(".__call__"):
        parts = numpy_frame.f_globals["__name__"].split(".")[1:]
        public = [p for p in itertools.takewhile(lambda p: not p.startswith("_") and p not in ("core", "lib"), parts)]
        name = ".".join(["np"] + public + [numpy_frame.f_code.co_qualname.removesuffix(".__call__")])
        return (f"{name}, given a list or tuple of Tensors (or a Tensor where it takes only arrays),",
                f" (np.stack the Tensors first, then call {name})")
    if frame is not None and frame.f_code.co_code[frame.f_lasti] == _STORE_SUBSCR:
        return ("b[i] = t, an item assignment into a NumPy array (which holds numbers, not Tensors),",
                " of the pieces, or np.where(mask, t, b)")
    return "np.array / np.asarray (or np.r_, np.c_, or a NumPy function given a list of Tensors)", ""


def wrap(value) -> Tensor:
    """A Tensor holding ``value``, an array or NumPy scalar, as it is: ``Tensor(value)``
    without its conversion check, for the engine's own results."""
    t = _new(Tensor)
    t.value = value
    return t


_new = object.__new__


def as_tensor(x) -> Tensor:
    """``x`` as a Tensor: itself where it is one (an op's result on Tensors), else ``Tensor(x)``."""
    return x if isinstance(x, Tensor) else Tensor(x)


Tensor.result_class = Tensor  # an op on Tensors gives a Tensor (a Variable's too); a dialect's
# subclass sets its own, so that results stay in its vocabulary, and may set ``made``, a hook
# called as made(prim, args, vals, out, params) by each differentiable op that makes one
Tensor.made = None
Tensor.mutable = False  # True where an in-place change can give the same object a new value:
# a Variable, a dialect's tensor (gradmagic.torch's); a trace keeps what such a one held


class Variable(Tensor):
    """A mutable Tensor, watched automatically by tapes when it is trainable.

    >>> v = gm.Variable(3.0, name="w")
    >>> with gm.GradientTape() as tape:
    ...     y = v * v
    >>> float(tape.gradient(y, v))
    6.0

    ``v.value`` is the raw array, as for any Tensor. A Variable made by ``tf.Variable`` holds
    one that may also be called, as TensorFlow's ``Variable.value()``: ``v.value()`` is
    ``v.read_value()`` (``VariableValue``; ``assign`` keeps it so).
    """

    __slots__ = ("name", "trainable", "serial")
    mutable = True
    _created = itertools.count()
    exist = False  # True once any Variable is made (until then no op can read one)

    def __init__(self, value, name: str | None = None, trainable: bool = True, dtype=None):
        super().__init__(to_array(value, dtype, "Variable", "value", copy=True))
        self.name = "Variable" if name is None else str(name)
        self.trainable = bool(trainable)
        self.serial = next(Variable._created)  # its place in creation order
        Variable.exist = True

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Replace the value (same shape; an array or a number cast to this variable's dtype
        within its kind, a Tensor of another dtype an error, as in TensorFlow). Not recorded.
        Returns the Variable, or None with ``read_value=False``."""
        new = _assignable(self, value, f"Variable({self.name!r}).assign")
        if tuple(new.shape) != self.shape:
            raise GradientValueError(
                f"Variable({self.name!r}).assign(value): expected shape {self.shape}, "
                f"got {tuple(new.shape)}")
        new = numpy_names(xp_of(self.value)).array(new, dtype=self.dtype)  # a copy: never aliases
        self.value = callable_value(self, new) if type(self.value) is VariableValue else new
        return self if read_value else None

    @classmethod
    def add_methods(cls, **methods):
        """Give every Variable ``methods`` (name: function of the Variable and its arguments),
        as a dialect whose variables are gradmagic's adds its own API (``gradmagic.tf``: the
        scatter methods); a name a Variable already has is refused."""
        for name, f in methods.items():
            if name in dir(cls) and getattr(cls, name) is not f:
                raise GradientTypeError(f"Variable.add_methods: Variable has {name} already")
            setattr(cls, name, f)

    # what an in-place change replaces, for a check that runs user code again to put back
    # (debug/snapshot.py); a dialect's mutable tensor has its own
    def state(self):
        return self.value  # (never written into: assign gives a new array)

    def put_state(self, value):
        self.value = value

    def sharing(self):
        """The tensors an in-place change of this one changes too: none."""
        return ()

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        same_dtype(self, delta, f"Variable({self.name!r}).assign_add")
        return self.assign(self.value + raw(delta), read_value=read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        same_dtype(self, delta, f"Variable({self.name!r}).assign_sub")
        return self.assign(self.value - raw(delta), read_value=read_value)

    def __repr__(self):
        return (f"<gm.Variable '{self.name}' shape={self.shape} dtype={self.dtype}, "
                f"numpy={_numpy_repr(self)}>")


def same_dtype(variable, value, fn):
    """TensorFlow's error for a Tensor of another dtype than ``variable``'s (an array or a
    number is converted to the variable's dtype, a Tensor never is)."""
    if isinstance(value, Tensor) and value.value.dtype != variable.value.dtype:
        raise GradientValueError(
            f"{fn}(value): Tensor conversion requested dtype {variable.dtype} for Tensor with dtype "
            f"{value.dtype}; cast it first (value.astype(np.{variable.dtype}), tf.cast(value, "
            f"{variable.dtype}) in gradmagic.tf)")


def _assignable(variable, value, fn):
    """``value`` as an array to write into ``variable``: in its array module, of a dtype that
    casts to the variable's within its kind; a Tensor of the variable's own dtype."""
    same_dtype(variable, value, fn)
    if type(value) in (list, tuple):  # Tensors in a list, as their values: a write is not recorded
        value = _values(value)
    new = to_array(value, None, fn, "value", module=xp_of(variable.value))
    if not np.can_cast(np.dtype(str(new.dtype)), np.dtype(str(variable.dtype)), "same_kind"):
        raise GradientTypeError(  # as TensorFlow refuses (a float into an int Variable)
            f"{fn}(value): cannot convert a value of dtype {new.dtype} to this Variable's dtype "
            f"{variable.dtype} without losing what it holds; cast it first, e.g. "
            "np.round(value).astype(...)")
    return new


def _values(x):
    if type(x) in (list, tuple):
        return type(x)(_values(a) for a in x)
    return to_host(x.value) if isinstance(x, Tensor) else x


class VariableSlice(Tensor):
    """What indexing a Variable gives (``v[0, 1]``, ``v[:, 0]``): an ordinary Tensor, which the
    tape follows to the Variable, that also writes back, as TensorFlow's does:
    ``v[:, 0].assign([1.0, 2.0])`` changes that part of ``v`` in place and returns ``v``.
    Like ``Variable.assign``, the write is not recorded: reads made before it keep the
    values they read."""

    __slots__ = ()  # Tensor's layout, so that the indexing op's result becomes one in place
    SOURCES = {}  # id(slice) -> (a weak reference to it, its Variable, its index)

    def assign(self, value, name=None):
        _, variable, index = VariableSlice.SOURCES[id(self)]
        fn = f"Variable({variable.name!r})[...].assign"
        new = _assignable(variable, value, fn)
        whole = numpy_names(xp_of(variable.value)).array(variable.value)  # a plain copy
        index = tuple(raw(i) for i in index) if isinstance(index, tuple) else raw(index)
        target = tuple(np.shape(whole[index]))
        try:
            fits = np.broadcast_shapes(tuple(new.shape), target) == target
        except ValueError:
            fits = False
        if not fits:
            raise GradientValueError(f"{fn}(value): Cannot broadcast input shape {list(new.shape)} "
                                     f"into final shape {list(target)}")
        whole[index] = new
        return variable.assign(whole)


def sliced(out, variable, index):
    """``out``, the Tensor ``variable[index]`` read, made the VariableSlice that writes there."""
    key = id(out)
    out.__class__ = VariableSlice
    VariableSlice.SOURCES[key] = (
        weakref.ref(out, lambda _: VariableSlice.SOURCES.pop(key, None)), variable, index)
    return out


class Reference:
    """What ``t.ref()`` gives, as TensorFlow's: a hashable stand-in for a Tensor or Variable,
    equal to another only where both stand for the same object (``{v.ref(): ...}`` keys a
    dict by identity); ``deref()`` gives the object back."""

    __slots__ = ("wrapped",)

    def __init__(self, wrapped):
        self.wrapped = wrapped

    def deref(self):
        return self.wrapped

    def __eq__(self, other):
        if other is None:
            return False
        if not isinstance(other, Reference):
            raise TypeError("Cannot compare wrapped object with unwrapped object")
        return self.wrapped is other.wrapped

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return id(self.wrapped)

    def __repr__(self):
        return f"<Reference wrapping {self.wrapped!r}>"


class VariableValue(np.ndarray):
    """The raw NumPy array of a Variable that TensorFlow code may call (``tf.Variable``'s):
    ``v.value`` is an array in every way (``v.value + 1``, ``v.value.shape``,
    ``np.exp(v.value)``), and ``v.value()`` is ``v.read_value()``, TensorFlow's
    ``Variable.value()``: a Tensor of the value now, which the tape follows to ``v``. NumPy's
    functions and ufuncs on it give plain arrays (at the cost of one Python call each, which
    is why gradmagic's own Variables hold plain arrays); a view or copy of it is no Variable's
    value, and calling one raises. CuPy and array-API values stay their module's arrays."""

    __slots__ = ("variable",)  # a weak reference to the Variable whose value this is

    def __call__(self):
        ref = getattr(self, "variable", None)
        variable = ref() if ref is not None else None
        if variable is None:
            raise GradientTypeError(
                "Variable.value(): this array is not a Variable's value (it is a view, a copy or "
                "a result computed from one), so there is no Variable to read; call value() on "
                "the Variable itself (v.value()), or use the array as it is")
        return variable.read_value()

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        return getattr(ufunc, method)(*[_plain(a) for a in inputs], **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})

    def __repr__(self):
        return repr(self.view(np.ndarray))

    def __reduce__(self):  # pickled as the plain array it holds
        return self.view(np.ndarray).__reduce__()


def _plain(a):
    """``a`` with every VariableValue in it (in lists and tuples too) seen as a plain array."""
    if isinstance(a, VariableValue):
        return a.view(np.ndarray)
    if type(a) in (list, tuple):
        return type(a)(_plain(b) for b in a)
    return a


def callable_value(variable, array):
    """``array`` as ``variable``'s value: a VariableValue on NumPy, else the array itself."""
    if type(array) is not np.ndarray:
        return array
    value = array.view(VariableValue)
    value.variable = weakref.ref(variable)
    return value


def _numpy_repr(t):
    """As TensorFlow shows it: ``6.0`` for a scalar, ``array([1., 2.], dtype=float32)``."""
    host = np.asarray(t.numpy())
    return str(host[()]) if host.ndim == 0 else repr(host)


def module_of(*values):
    """The array module (with NumPy's names) of the first Tensor among ``values``: an op's
    constants go there; NumPy where none is a Tensor."""
    for v in values:
        if isinstance(v, Tensor):
            return numpy_names(xp_of(v.value))
    return np


def as_array_of(x, module):
    """``x`` as an array of ``module`` where it is a list or a number; a Tensor or an array
    as it is."""
    if isinstance(x, Tensor) or hasattr(x, "shape"):
        return x
    return module.asarray(np.asarray(x)) if module is not np else np.asarray(x)


def raw(x):
    """The raw array of a Tensor; anything else as it is."""
    return x.value if isinstance(x, Tensor) else x


def replace_variables(args, vals, make):
    """``args`` with each Variable ``args[k]`` replaced by ``make(variable, vals[k])``:
    a Tensor of the value it had when an op read it."""
    args = list(args)
    for k, a in enumerate(args):
        if type(a) is Variable:
            args[k] = make(a, vals[k])
    return tuple(args)


_PY_DEFAULTS = {np.dtype("float64"): np.float32}
_INT32 = np.iinfo(np.int32)


def to_array(value, dtype, fn, arg, copy=False, module=None):
    """An array for a constant or a Variable. Host values (Python numbers and lists, NumPy
    arrays) land on the current backend, as TensorFlow places constants on its default
    device: under ``set_backend("cupy")``, one host-to-device copy. An array of another
    module (a CuPy array) stays where it is. Python floats become float32, as in
    TensorFlow; arrays keep their dtype; ``dtype`` casts. ``module``: where host values
    land instead of the backend's (a Variable's own, for ``assign``)."""
    if isinstance(value, Tensor):
        value = value.value
    elif value is None:  # most often a gradient that is None, passed on
        raise GradientValueError(
            f"{fn}({arg}): Attempt to convert a value (None) with an unsupported type "
            "(<class 'NoneType'>) to a Tensor; a gradient is None where the target does not "
            "depend on the source (gm.trace() says why)")
    if dtype is not None:
        try:
            dtype = np.dtype(dtype)
        except TypeError as e:
            raise GradientTypeError(f"{fn}({arg}, dtype=...): {dtype!r} is not a dtype ({e})") from None
    xp = xp_of(value)
    on_host = xp is np
    if on_host:  # a host value lands on the backend's module
        xp = module or default_xp()
    if on_host and not isinstance(value, (np.ndarray, np.generic)):  # Python numbers, lists
        try:
            host = np.asarray(value)
        except Exception as e:  # ragged lists and the like
            raise GradientTypeError(f"{fn}({arg}): cannot make an array of {type(value).__name__} ({e})") from None
        if dtype is None:
            dtype = _PY_DEFAULTS.get(host.dtype, host.dtype)
            if host.dtype == np.int64 and (host.size == 0 or (
                    host.min() >= _INT32.min and host.max() <= _INT32.max)):
                dtype = np.int32  # as TensorFlow: int32 unless a value needs 64 bits
        value = host
    try:
        ns = numpy_names(xp)  # an array-API module's array() is its asarray(copy=True)
        arr = ns.array(value, dtype=dtype) if copy else ns.asarray(value, dtype=dtype)
    except Exception as e:
        raise GradientTypeError(f"{fn}({arg}): cannot make an array of {type(value).__name__} ({e})") from None
    if arr.dtype == object:
        raise GradientTypeError(
            f"{fn}({arg}): got an object array; gradmagic needs numbers (bool, int, float or complex); "
            "convert the elements first")
    return arr


def constant(value, dtype=None) -> Tensor:
    """A Tensor of ``value``: Python floats become float32 (as ``tf.constant``), arrays keep
    their dtype; ``dtype`` casts.

    >>> gm.constant(2.0)
    <gm.Tensor: shape=(), dtype=float32, numpy=2.0>
    """
    if type(value) is float and dtype is None and default_xp() is np:  # the commonest: the general answer
        return Tensor(np.float32(value))
    # an array is copied, as TensorFlow copies it, so that changing it later never changes the
    # Tensor (a host array that lands on a device is copied there anyway)
    array = hasattr(value, "shape") and not isinstance(value, (np.generic, Tensor))
    arr = to_array(value, dtype, "constant", "value",
                   copy=array and (xp_of(value) is not np or default_xp() is np))
    # a 0-d NumPy value is held as a NumPy scalar, as TensorFlow's .numpy() gives one and as
    # NumPy's ops on 0-d values return: its arithmetic is several times quicker than a 0-d array's
    return Tensor(arr[()] if type(arr) is np.ndarray and not arr.shape else arr)
