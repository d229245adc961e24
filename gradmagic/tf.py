"""A TensorFlow-shaped namespace over gradmagic: ``import gradmagic.tf as tf``.

The code of TensorFlow's ``tf.custom_gradient`` pages runs unchanged on it and prints
what those pages show. It is a thin map onto gradmagic's engine, not a second engine:
every function converts its inputs with ``constant`` and calls the same ops. It covers
the common eager API (tensors, ``GradientTape``, ``custom_gradient``, elementwise math,
reductions, shapes); a name it does not map raises ``AttributeError`` naming it.

>>> import gradmagic.tf as tf
>>> x = tf.constant(2.0)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = tf.math.log(1 + tf.exp(x))
>>> f"{float(tape.gradient(y, x)):.4f}"
'0.8808'
"""

import enum
import sys

import numpy as np

from ._backend import default_xp, xp_of
from ._scans import has_nan, nonfinite
from .core import ops
from .core.custom import custom_gradient
from .core.forward import ForwardAccumulator as _ForwardAccumulator
from .core.ops import stop_gradient
from .core.tape import GradientTape
from .core.tensor import Tensor, Variable
from .core.tensor import constant as _constant
from .errors import GradientValueError

float16, float32, float64 = np.dtype("float16"), np.dtype("float32"), np.dtype("float64")
int8, int16, int32, int64 = np.dtype("int8"), np.dtype("int16"), np.dtype("int32"), np.dtype("int64")
uint8, complex64, complex128 = np.dtype("uint8"), np.dtype("complex64"), np.dtype("complex128")
bool = np.dtype("bool")  # noqa: A001  (tf.bool)
newaxis = None


class UnconnectedGradients(enum.Enum):
    """What ``GradientTape.gradient`` gives for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


def constant(value, dtype=None, shape=None, name=None):
    """``tf.constant``: Python floats become float32, NumPy arrays keep their dtype."""
    t = _constant(value, dtype)
    if shape is not None:
        t = ops.broadcast_to(t, tuple(shape)) if t.ndim == 0 else ops.reshape(t, tuple(shape))
    return t


def convert_to_tensor(value, dtype=None, name=None):
    """``tf.convert_to_tensor``: a Tensor as it is; a Variable read now (a later ``assign``
    does not change the result, and the tape follows the read to the Variable)."""
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor) and (dtype is None or value.dtype == np.dtype(dtype)):
        return value
    return _constant(value, dtype)


def _t(x):
    return x if isinstance(x, Tensor) else _constant(x)


def _map1(fn, tf_name):
    def f(x, name=None):
        return fn(_t(x))
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.{tf_name}``: elementwise, on gradmagic's ``{fn.__name__}``."
    return f


def _map2(fn, tf_name):
    def f(x, y, name=None):
        return fn(_t(x), _t(y))
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.{tf_name}``: elementwise, on gradmagic's ``{fn.__name__}``."
    return f


def _relu(x):
    return ops.where(x > 0, x, 0)  # gradient 0 at 0, as TensorFlow's relu


_UNARY = {
    "exp": ops.exp, "log": ops.log, "log1p": ops.log1p, "expm1": ops.expm1, "sqrt": ops.sqrt,
    "square": ops.square, "abs": ops.absolute, "negative": ops.negative, "sign": ops.sign,
    "reciprocal": ops.reciprocal, "sin": ops.sin, "cos": ops.cos, "tan": ops.tan,
    "asin": ops.arcsin, "acos": ops.arccos, "atan": ops.arctan, "sinh": ops.sinh,
    "cosh": ops.cosh, "tanh": ops.tanh, "asinh": ops.arcsinh, "acosh": ops.arccosh,
    "atanh": ops.arctanh, "sigmoid": ops.sigmoid, "softplus": ops.softplus,
    "is_nan": ops.isnan, "is_inf": ops.isinf, "is_finite": ops.isfinite, "floor": ops.floor,
    "ceil": ops.ceil, "round": ops.rint, "logical_not": ops.logical_not, "relu": _relu,
}
_BINARY = {
    "add": ops.add, "subtract": ops.subtract, "multiply": ops.multiply, "divide": ops.divide,
    "truediv": ops.divide, "pow": ops.power, "maximum": ops.maximum, "minimum": ops.minimum,
    "atan2": ops.arctan2, "equal": ops.equal, "not_equal": ops.not_equal, "less": ops.less,
    "less_equal": ops.less_equal, "greater": ops.greater, "greater_equal": ops.greater_equal,
    "logical_and": ops.logical_and, "logical_or": ops.logical_or, "squared_difference":
    lambda x, y: ops.square(ops.subtract(x, y)),
}
_elementwise = {**{k: _map1(f, k) for k, f in _UNARY.items()},
                **{k: _map2(f, k) for k, f in _BINARY.items()}}


def _reduce(fn, tf_name):
    def f(input_tensor, axis=None, keepdims=False, name=None):
        return fn(_t(input_tensor), axis=axis, keepdims=keepdims)
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.{tf_name}(input_tensor, axis=None, keepdims=False)``."
    return f


reduce_sum = _reduce(ops.sum, "reduce_sum")
reduce_mean = _reduce(ops.mean, "reduce_mean")
reduce_max = _reduce(ops.max, "reduce_max")
reduce_min = _reduce(ops.min, "reduce_min")
reduce_prod = _reduce(ops.prod, "reduce_prod")
reduce_logsumexp = _reduce(ops.logsumexp, "reduce_logsumexp")


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    return ops.var(_t(input_tensor), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    return ops.std(_t(input_tensor), axis=axis, keepdims=keepdims)


def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    a, b = _t(a), _t(b)
    if transpose_a:
        a = ops.swapaxes(a, -1, -2)
    if transpose_b:
        b = ops.swapaxes(b, -1, -2)
    return ops.matmul(a, b)


def reshape(tensor, shape, name=None):
    return ops.reshape(_t(tensor), shape)


def transpose(a, perm=None, name=None):
    return ops.transpose(_t(a), perm)


def concat(values, axis, name=None):
    return ops.concatenate([_t(v) for v in values], axis=axis)


def stack(values, axis=0, name=None):
    return ops.stack([_t(v) for v in values], axis=axis)


def expand_dims(input, axis, name=None):  # noqa: A002  (TensorFlow's parameter name)
    return ops.expand_dims(_t(input), axis)


def squeeze(input, axis=None, name=None):  # noqa: A002
    return ops.squeeze(_t(input), axis)


def where(condition, x=None, y=None, name=None):
    return ops.where(_t(condition), None if x is None else _t(x), None if y is None else _t(y))


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    return ops.clip(_t(t), clip_value_min, clip_value_max)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(norm(t), clip_norm)``, with a gradient that is finite at 0."""
    t = _t(t)
    l2sum = ops.sum(t * t, axis=axes, keepdims=True)
    positive = l2sum > 0
    l2norm = ops.where(positive, ops.sqrt(ops.where(positive, l2sum, 1)), l2sum)
    return t * clip_norm / ops.maximum(l2norm, clip_norm)


def cast(x, dtype, name=None):
    return ops.astype(_t(x), dtype)


def identity(input, name=None):  # noqa: A002
    return ops.identity(_t(input))


def zeros(shape, dtype=float32, name=None):
    return Tensor(default_xp().zeros(shape, dtype=dtype))  # on the current backend


def ones(shape, dtype=float32, name=None):
    return Tensor(default_xp().ones(shape, dtype=dtype))


def fill(dims, value, name=None):
    return Tensor(default_xp().full(dims, value, dtype=_constant(value).dtype))


def zeros_like(input, dtype=None, name=None):  # noqa: A002
    t = _t(input)
    return Tensor(xp_of(t.value).zeros(t.shape, dtype=dtype or t.dtype))  # where input lives


def ones_like(input, dtype=None, name=None):  # noqa: A002
    t = _t(input)
    return Tensor(xp_of(t.value).ones(t.shape, dtype=dtype or t.dtype))


def range(start, limit=None, delta=1, dtype=None, name=None):  # noqa: A001
    if limit is None:
        start, limit = 0, start
    values = np.arange(start, limit, delta)
    default = float32 if values.dtype.kind == "f" else int32
    return Tensor(default_xp().asarray(values, dtype=dtype or default))


def shape(input, out_type=int32, name=None):  # noqa: A002
    return _constant(np.array(_t(input).shape, dtype=out_type))


def rank(input, name=None):  # noqa: A002
    return _constant(np.int32(_t(input).ndim))


def size(input, out_type=int32, name=None):  # noqa: A002
    return _constant(np.array(_t(input).size, dtype=out_type))


def is_tensor(x):
    return isinstance(x, Tensor)


def executing_eagerly():
    return True


def function(func=None, **options):
    """``tf.function``: gradmagic always runs eagerly, so this returns ``func`` itself."""
    if func is None:
        return lambda f: f
    return func


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


def gradients(ys, xs, grad_ys=None, name=None, **kwargs):
    """``tf.gradients`` does not work in eager mode; gradmagic is always eager."""
    raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                       "Use tf.GradientTape instead.")


def _softmax(logits, axis=-1, name=None):
    logits = _t(logits)
    return ops.exp(logits - ops.logsumexp(logits, axis=axis, keepdims=True))


def _log_softmax(logits, axis=-1, name=None):
    logits = _t(logits)
    return logits - ops.logsumexp(logits, axis=axis, keepdims=True)


def _assert_rank(x, rank, message=None, name=None):
    x = _t(x)
    if x.ndim != int(rank):
        raise GradientValueError(
            f"{message + ': ' if message else ''}tf.debugging.assert_rank: the tensor must have "
            f"rank {int(rank)}, but has rank {x.ndim} (shape {x.shape})")


def _check_numerics(tensor, message, name=None):
    t = _t(tensor)
    if nonfinite(t.value):  # scanned where the values are (the GPU for CuPy ones)
        kind = "NaN" if has_nan(t.value) else "Inf"
        raise GradientValueError(f"{message} : Tensor had {kind} values")
    return t


class _Namespace:
    """A sub-namespace such as ``tf.math``; unmapped names raise a clear error."""

    def __init__(self, name, members):
        self._name = name
        self.__dict__.update(members)

    def __getattr__(self, attr):
        raise AttributeError(_missing(f"{self._name}.{attr}"))

    def __dir__(self):
        return [k for k in self.__dict__ if not k.startswith("_")]

    def __repr__(self):
        return f"<gradmagic.{self._name} namespace>"


def _missing(what):
    return (f"gradmagic.{what} does not exist: gradmagic.tf covers the common eager API of "
            "TensorFlow (constant, Variable, GradientTape, custom_gradient, tf.math, reductions, "
            "shapes), not all of TensorFlow; call NumPy functions on the Tensors, or use "
            "gradmagic directly")


_reductions = {"reduce_sum": reduce_sum, "reduce_mean": reduce_mean, "reduce_max": reduce_max,
               "reduce_min": reduce_min, "reduce_prod": reduce_prod,
               "reduce_logsumexp": reduce_logsumexp, "reduce_variance": reduce_variance,
               "reduce_std": reduce_std}
math = _Namespace("tf.math", {**_elementwise, **_reductions, "log_sigmoid":
                              lambda x, name=None: -ops.softplus(-_t(x))})
nn = _Namespace("tf.nn", {"sigmoid": _elementwise["sigmoid"], "softplus": _elementwise["softplus"],
                          "relu": _elementwise["relu"], "tanh": _elementwise["tanh"],
                          "softmax": _softmax, "log_softmax": _log_softmax})
debugging = _Namespace("tf.debugging", {"assert_rank": _assert_rank, "check_numerics": _check_numerics})
autodiff = _Namespace("tf.autodiff", {"ForwardAccumulator": _ForwardAccumulator})

globals().update({k: v for k, v in _elementwise.items() if k not in ("relu", "softplus")})
log = _elementwise["log"]  # tf.log, as the oldest documents write it

__all__ = [k for k in list(globals()) if not k.startswith("_") and k not in (
    "enum", "sys", "np", "ops", "GradientValueError")]


def __getattr__(name):
    raise AttributeError(_missing(f"tf.{name}"))
