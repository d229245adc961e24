"""``tf.constant``, ``tf.Variable`` and the other ways to make and look at tensors, with
TensorFlow's dtypes and defaults (Python floats are float32, ints int32).

Every function of ``gradmagic.tf`` converts its inputs with ``as_tensor`` and calls the
engine's ops; what a name of TensorFlow's that is not mapped raises is ``missing``'s.
"""

import builtins
import enum
import sys

import numpy as np

from .._backend import default_xp, to_host, xp_of
from .._dtypes import dtype_of
from ..core import creation, ops
from ..core.tensor import Shape, Tensor
from ..core.tensor import Variable as CoreVariable
from ..core.tensor import callable_value
from ..core.tensor import constant as core_constant
from ..errors import GradientTypeError, GradientValueError, NoGradientError
from .errors import InvalidArgumentError
from .module import SCOPE

# TensorFlow's dtypes: a tensor's own (NumPy's, with TensorFlow's DType attributes)
float16, float32, float64 = (dtype_of(np.dtype(n)) for n in ("float16", "float32", "float64"))
int8, int16, int32, int64 = (dtype_of(np.dtype(n)) for n in ("int8", "int16", "int32", "int64"))
uint8, complex64, complex128 = (dtype_of(np.dtype(n)) for n in ("uint8", "complex64", "complex128"))
bool = dtype_of(np.dtype("bool"))  # noqa: A001  (tf.bool)
newaxis = None


class IndexedSlices:
    """``tf.IndexedSlices(values, indices, dense_shape=None)``: rows ``values`` of a tensor of
    shape ``dense_shape`` at ``indices`` along its first axis. A Variable's scatter methods
    take them, and ``GradientTape.gradient`` gives them for a source read by ``tf.gather``
    alone (``tf/sparse.py``). Where a Tensor is expected, one is made dense (a repeated
    index's rows added up), as TensorFlow converts them; Python's arithmetic operators
    refuse them, as TensorFlow's do, all but ``-``."""

    def __init__(self, values, indices, dense_shape=None):
        self.values, self.indices = as_tensor(values), as_tensor(indices)
        self.dense_shape = None if dense_shape is None else as_tensor(dense_shape)

    dtype = property(lambda self: self.values.dtype)
    shape = property(lambda self: None if self.dense_shape is None
                     else Shape(int(n) for n in to_host(self.dense_shape.value)))

    def __array__(self, dtype=None, copy=None):  # NumPy's conversion (a Variable's assign_sub)
        dense = to_host(densified(self).value)
        return dense if dtype is None else dense.astype(dtype)

    def __neg__(self):
        return IndexedSlices(ops.negative(self.values), self.indices, self.dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self.indices}, values={self.values}, "
                f"dense_shape={self.dense_shape})")


def densified(s):
    """``IndexedSlices`` ``s`` as the dense Tensor it stands for: zeros of its
    ``dense_shape`` with each row of ``values`` added at its index (recorded, so a
    gradient flows to the values)."""
    if s.dense_shape is None:
        raise GradientValueError(f"Tensor conversion requested for IndexedSlices for argument "
                                 f"`value` without dense_shape: {s!r}")
    shape = tuple(int(n) for n in to_host(s.dense_shape.value))
    return ops.scatter_add(s.values, shape, xp_of(s.values.value).asarray(s.indices.value))


def dense_of(x):
    """``x`` made dense if it is an ``IndexedSlices``, else ``x`` as it is."""
    return densified(x) if isinstance(x, IndexedSlices) else x


def missing(what):
    """The message of the ``AttributeError`` for a name ``gradmagic.tf`` does not map."""
    return (f"gradmagic.{what} does not exist: gradmagic.tf covers the common eager API of "
            "TensorFlow (constant, Variable, GradientTape, custom_gradient, recompute_grad, "
            "tf.math, tf.linalg, tf.nn, tf.random, shapes, cond and while_loop), not all of "
            "TensorFlow; call NumPy functions on the Tensors, or use gradmagic directly")


def not_supported(fn, what, instead):
    """The error for an argument value of TensorFlow's that gradmagic does not support."""
    return NoGradientError(f"{fn} is not supported here ({what}); {instead}")


def as_tensor(x):
    """``x`` as a Tensor: a Tensor (or Variable) as it is, a list holding Tensors packed
    (``packed``), an ``IndexedSlices`` made dense, anything else as ``tf.constant``."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, IndexedSlices):
        return densified(x)
    t = packed(x) if type(x) in SEQUENCES else None
    return core_constant(x) if t is None else t


def operands(fn, *values):
    """``values`` as Tensors, as TensorFlow converts the inputs of one op: those that are
    not Tensors (numbers, lists, NumPy values) take the dtype of the first that is (of the
    first value, where none is), so ``tf.maximum(x, 0)`` keeps ``x``'s float32; a Python
    float for an integer dtype is TensorFlow's TypeError."""
    first = next((v for v in values if isinstance(v, Tensor)), None)
    if first is None:
        first = as_tensor(values[0])
    return [v if isinstance(v, Tensor) else converted(fn, v, first.dtype) for v in values]


def converted(fn, value, dtype):
    """A non-Tensor input of ``fn`` as a Tensor of ``dtype``: NumPy values cast to it, as
    TensorFlow casts them; a list holding Tensors packed."""
    if (type(value) in SEQUENCES and _first_tensor(value) is not None) or isinstance(value, IndexedSlices):
        return as_tensor(value)
    if dtype.kind in "biu" and not isinstance(value, (np.ndarray, np.generic)):
        if np.asarray(value).dtype.kind in "fc":  # a Python float, even 2.0, is refused
            raise GradientTypeError(f"{fn}: Cannot convert {value!r} to EagerTensor of dtype {dtype}")
    return core_constant(value, dtype)


SEQUENCES = (list, tuple)
PACK_NAMES = {"float32": "float", "float64": "double", "float16": "half"}  # TensorFlow's words


def packed(value):
    """A list or tuple (nested too) that holds Tensors as one Tensor, as TensorFlow's
    conversion packs it: ``tf.stack`` of its elements, recorded (so ``[v, 2 * v]`` has a
    gradient), numbers taking the Tensors' dtype; None when ``value`` holds no Tensor."""
    first = _first_tensor(value)
    return None if first is None else _pack(value, first.dtype)


def _first_tensor(value):
    for v in value:
        t = _first_tensor(v) if type(v) in SEQUENCES else v if isinstance(v, Tensor) else None
        if t is not None:
            return t
    return None


def _pack(value, dtype):
    parts = [_pack(v, dtype) if type(v) in SEQUENCES else v if isinstance(v, Tensor)
             else core_constant(v, dtype) for v in value]
    for k, p in enumerate(parts):
        if p.dtype != dtype:
            raise InvalidArgumentError(
                f"tf.convert_to_tensor: cannot compute Pack as input #{k}(zero-based) was expected "
                f"to be a {PACK_NAMES.get(dtype.name, dtype.name)} tensor but is a "
                f"{PACK_NAMES.get(p.dtype.name, p.dtype.name)} tensor; cast it with tf.cast")
        if p.shape != parts[0].shape:
            raise InvalidArgumentError(
                f"tf.convert_to_tensor: Shapes of all inputs must match: values[0].shape = "
                f"{list(parts[0].shape)} != values[{k}].shape = {list(p.shape)}")
    return ops.stack(parts)


class UnconnectedGradients(enum.Enum):
    """What ``GradientTape.gradient`` gives for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def constant(value, dtype=None, shape=None, name=None):
    """``tf.constant``: Python floats become float32, NumPy arrays keep their dtype."""
    t = core_constant(value, dtype)
    if shape is not None:
        t = ops.broadcast_to(t, tuple(shape)) if t.ndim == 0 else ops.reshape(t, tuple(shape))
    return t


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``tf.convert_to_tensor``: a Tensor as it is; a Variable read now (a later ``assign``
    does not change the result, and the tape follows the read to the Variable)."""
    if isinstance(value, CoreVariable):
        value = value.read_value()
    elif isinstance(value, IndexedSlices):
        value = densified(value)
    pack = packed(value) if type(value) in SEQUENCES else None
    if pack is not None:  # a list holding Tensors
        value = pack
    if isinstance(value, Tensor):
        if dtype is None or value.dtype == np.dtype(dtype):
            return value
        raise GradientValueError(
            f"tf.convert_to_tensor(value, dtype={np.dtype(dtype)}): Tensor conversion requested "
            f"dtype {np.dtype(dtype)} for Tensor with dtype {value.dtype}; cast it with tf.cast")
    if dtype is None and dtype_hint is not None:  # the hint where the value converts to it
        natural = core_constant(value)
        if np.can_cast(natural.dtype, np.dtype(dtype_hint), "same_kind"):
            dtype = dtype_hint
        else:
            return natural
    return core_constant(value, dtype)


# -- tf.Variable: TensorFlow's signature, gradmagic's Variable --------------------------------
class VariableType(type):
    """The type of ``tf.Variable``: every gradmagic Variable is an instance of it."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, CoreVariable)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, CoreVariable)


UNSUPPORTED_VARIABLE = {
    "variable_def": "graph-mode protocol buffers do not exist in eager code",
    "import_scope": "graph-mode protocol buffers do not exist in eager code",
    "constraint": "gradmagic has no optimizer to apply it: apply it yourself after an update "
                  "(v.assign(constraint(v)))",
    "synchronization": "gradmagic has one device and no replicas",
    "aggregation": "gradmagic has one device and no replicas",
}


class Variable(metaclass=VariableType):
    """``tf.Variable(initial_value, trainable=None, ..., name=None, dtype=None, shape=None)``,
    with TensorFlow's parameters in TensorFlow's order; it makes a gradmagic ``Variable``
    (``isinstance(v, tf.Variable)`` holds for every one). ``initial_value`` may be a callable,
    as in TensorFlow. ``v.value`` is the raw array (gradmagic's attribute, on every Tensor)
    and, on NumPy, ``v.value()`` reads the variable (TensorFlow's method): see
    ``gradmagic.core.tensor.VariableValue``. Its ``name`` is TensorFlow's: under the name
    scopes entered, with ``:0`` (``tf.Variable(1.0, name="w").name`` is ``'w:0'``)."""

    def __new__(cls, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                synchronization=None, aggregation=None, shape=None,
                experimental_enable_variable_lifting=True):
        given = {"variable_def": variable_def, "import_scope": import_scope,
                 "constraint": constraint}
        given.update({k: v for k, v in (("synchronization", synchronization),
                                        ("aggregation", aggregation))
                      if getattr(v, "name", v) not in (None, "AUTO", "NONE")})
        for key, value in given.items():
            if value is not None:
                raise not_supported(f"tf.Variable({key}=...)", key, UNSUPPORTED_VARIABLE[key])
        if initial_value is None:
            raise GradientValueError(
                "tf.Variable(initial_value): The `initial_value` arg to `tf.Variable` must be "
                "specified except when you are not providing a `variable_def`. You provided "
                "neither.")
        if callable(initial_value) and not isinstance(initial_value, (Tensor, np.ndarray)):
            initial_value = initial_value()  # a function that makes it (an array is a value)
        name = f"{SCOPE.get()}{'Variable' if name is None else name}:0"  # TensorFlow's: 'outer/w:0'
        v = CoreVariable(initial_value, name=name, trainable=True if trainable is None else trainable,
                         dtype=dtype)
        v.value = callable_value(v, v.value)  # v.value(): TensorFlow's method
        if not validate_shape or shape is not None:
            wanted = None if shape is None else tuple(shape)
            if wanted is None or None in wanted or wanted != v.shape:
                raise not_supported(
                    f"tf.Variable(shape={wanted}, validate_shape={validate_shape})",
                    "a shape other than the initial value's " + str(v.shape),
                    "a gradmagic Variable keeps the shape of its initial value: make a new "
                    "Variable for a new shape")
        return v


# -- making tensors --------------------------------------------------------------------------
def zeros(shape, dtype=float32, name=None):
    return Tensor(default_xp().zeros(shape_of(shape), dtype=dtype))  # on the current backend


def ones(shape, dtype=float32, name=None):
    return Tensor(default_xp().ones(shape_of(shape), dtype=dtype))


def fill(dims, value, name=None):
    return Tensor(default_xp().full(shape_of(dims), value, dtype=core_constant(value).dtype))


def zeros_like(input, dtype=None, name=None):  # noqa: A002  (TensorFlow's parameter name)
    t = as_tensor(input)
    return Tensor(xp_of(t.value).zeros(t.shape, dtype=dtype or t.dtype))  # where input lives


def ones_like(input, dtype=None, name=None):  # noqa: A002
    t = as_tensor(input)
    return Tensor(xp_of(t.value).ones(t.shape, dtype=dtype or t.dtype))


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001
    if limit is None:
        start, limit = 0, start
    values = np.arange(start, limit, delta)
    default = float32 if values.dtype.kind == "f" else int32
    return Tensor(default_xp().asarray(values, dtype=dtype or default))


def linspace(start, stop, num, name=None, axis=0):
    """``tf.linspace``: ``num`` evenly spaced values from ``start`` to ``stop`` (both
    included), differentiable in both ends; float32 for Python floats, float64 for ints."""
    start, stop = operands("tf.linspace", start, stop)  # a Python number takes the other's dtype
    if start.dtype.kind not in "fc" or stop.dtype.kind not in "fc":  # integers: float64, as TF
        start, stop = ops.astype(start, float64), ops.astype(stop, float64)
    dtype = np.result_type(start.dtype, stop.dtype)
    return ops.astype(creation.linspace(start, stop, int(num), axis=axis), dtype)  # not float64


def eye(num_rows, num_columns=None, batch_shape=None, dtype=float32, name=None):
    """``tf.eye``: ones on the diagonal, with ``batch_shape`` leading axes."""
    m = default_xp().eye(int(num_rows), None if num_columns is None else int(num_columns),
                         dtype=dtype)
    if batch_shape is not None:
        m = default_xp().broadcast_to(m, shape_of(batch_shape) + tuple(m.shape)).copy()
    return Tensor(m)


def shape_of(shape):
    """A shape given as an int, a list or a Tensor, as a tuple of ints."""
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(n) for n in shape)


# -- looking at tensors ----------------------------------------------------------------------
def shape(input, out_type=int32, name=None):  # noqa: A002
    return core_constant(np.array(as_tensor(input).shape, dtype=out_type))


def rank(input, name=None):  # noqa: A002
    return core_constant(np.int32(as_tensor(input).ndim))


def size(input, out_type=int32, name=None):  # noqa: A002
    return core_constant(np.array(as_tensor(input).size, dtype=out_type))


def cast(x, dtype, name=None):
    return ops.astype(as_tensor(x), dtype)


def identity(input, name=None):  # noqa: A002
    return ops.identity(as_tensor(input))


def is_tensor(x):
    return isinstance(x, Tensor)


def executing_eagerly():
    return True


def print(*inputs, output_stream=None, sep=" ", end="\n", summarize=3, name=None):  # noqa: A001
    """``tf.print``: writes its inputs, separated by ``sep``, to standard error (as
    TensorFlow does) or to ``output_stream`` (``sys.stdout``, ``sys.stderr``, or a
    ``"file://path"``)."""
    text = sep.join(str(x) for x in inputs) + end
    stream = sys.stderr if output_stream is None else output_stream
    if isinstance(stream, str) and stream.startswith("file://"):
        with open(stream[len("file://"):], "a") as f:
            f.write(text)
        return
    stream.write(text)


def check_dtype(fn, arg, x, kinds, wanted):
    """Refuse a tensor whose dtype kind is not in ``kinds``, in TensorFlow's terms."""
    if x.dtype.kind not in kinds:
        raise GradientTypeError(f"{fn}({arg}): expected {wanted}, got a tensor of dtype {x.dtype}")


def axis_of(axis, ndim, fn):
    """An axis given as an int or a 0-d Tensor, checked against ``ndim`` and made positive."""
    a = int(axis.numpy()) if isinstance(axis, Tensor) else int(axis)
    if not -ndim <= a < builtins.max(ndim, 1):
        raise GradientValueError(f"{fn}(axis={a}): expected an axis in [{-ndim}, {ndim}), for a "
                                 f"tensor of rank {ndim}")
    return a % ndim if ndim else 0
