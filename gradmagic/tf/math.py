"""``tf.math``: elementwise functions, reductions, ``argmax``/``argmin``, ``cumsum``,
``top_k`` ..., each one call of the engine's ops (or a short composition of them), with
TensorFlow's parameters, defaults and gradient conventions where they differ from NumPy's
(``argmax`` along axis 0 by default, ``xlogy`` with a gradient 0 where ``x`` is 0).
"""

import collections

import math

import numpy as np

from .._backend import broadcastable, xp_of
from ..core import ops, special, statistics
from ..core.primitive import Primitive, composite, defvjp, unary as unary_op
from ..core.tensor import Tensor
from ..errors import GradientValueError
from .errors import InvalidArgumentError
from .more_math import MORE_MATH
from .segments import SEGMENTS
from .tensors import as_tensor, axis_of, int64, missing, operands


def unary(fn, tf_name):
    """``tf.math.<tf_name>(x, name=None)`` on the engine's ``fn``."""
    def f(x, name=None):
        return fn(as_tensor(x))
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.math.{tf_name}``: elementwise, on gradmagic's ``{fn.__name__}``."
    return f


# tf.math's function -> TensorFlow's op, which its shape errors name (others: the name in CamelCase)
OP_NAMES = {"add": "AddV2", "subtract": "Sub", "multiply": "Mul", "divide": "RealDiv",
            "truediv": "RealDiv", "floordiv": "FloorDiv", "floormod": "FloorMod", "mod": "FloorMod"}


def dims(shape) -> str:
    """A shape as TensorFlow's op errors write it: ``[2,3]``."""
    return "[" + ",".join(str(n) for n in shape) + "]"


def incompatible(op, a, b):
    """TensorFlow's error for operands of ``op`` whose shapes do not broadcast."""
    return InvalidArgumentError(f"Incompatible shapes: {dims(a.shape)} vs. {dims(b.shape)} [Op:{op}]")


def binary(fn, tf_name):
    """``tf.math.<tf_name>(x, y, name=None)`` on the engine's ``fn``; shapes that do not
    broadcast are TensorFlow's InvalidArgumentError."""
    op = OP_NAMES.get(tf_name) or "".join(p.capitalize() for p in tf_name.split("_"))

    def f(x, y, name=None):
        a, b = operands(f"tf.math.{tf_name}", x, y)
        if not broadcastable(tuple(a.shape), tuple(b.shape)):
            raise incompatible(op, a, b)
        return fn(a, b)
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.math.{tf_name}``: elementwise, on gradmagic's ``{fn.__name__}``."
    return f


def relu_of(x):
    return special.relu(x)  # gradient 0 at 0, as TensorFlow's relu


def upstream_safe(name, forward, rule, label):
    """An elementwise op with TensorFlow's gradient for ``sqrt``, ``rsqrt`` and
    ``reciprocal``: ``rule(g, ans)``, and 0 wherever the upstream ``g`` is 0, as TensorFlow's
    SqrtGrad, RsqrtGrad and ReciprocalGrad kernels give (so ``tf.where(x > 0, tf.sqrt(x), 0.)``
    has gradient 0 at 0, where NumPy's rule gives 0 * inf = NaN)."""
    prim = Primitive(name, forward, elementwise=True)
    defvjp(prim, lambda g, ans, x: ops.where(g == 0, 0, rule(g, ans)), labels=(label,))

    def op(x):
        return unary_op(prim, x)
    op.__name__ = op.__qualname__ = name
    return op


sqrt_of = upstream_safe("sqrt", None, lambda g, ans: g / (2 * ans), "1 / (2 sqrt(x))")
rsqrt_of = upstream_safe("rsqrt", lambda xp, x: 1 / xp.sqrt(x), lambda g, ans: -0.5 * g * ans ** 3,
                         "-1 / (2 x^1.5)")
reciprocal_of = upstream_safe("reciprocal", None, lambda g, ans: -g * ans ** 2, "-1 / x^2")


@composite("1 / (1 + |x|)^2", name="softsign", elementwise=True)
def softsign_of(x):
    return x / (1 + ops.absolute(x))


@composite("sigmoid(-x)", name="log_sigmoid", elementwise=True)
def log_sigmoid_of(x):
    return -ops.softplus(-x)


@composite("log(y), 0 where x = 0", "x / y, 0 where x = 0", name="xlogy", elementwise=True)
def xlogy_of(x, y):
    """``x * log(y)``, 0 where ``x`` is 0, with TensorFlow's gradient (0 there, for both)."""
    zero = x == 0
    return ops.where(zero, 0, x * ops.log(ops.where(zero, 1, y)))


@composite("1 / y, 0 where x = 0", "-x / y^2, 0 where x = 0", name="xdivy", elementwise=True)
def xdivy_of(x, y):
    zero = x == 0
    return ops.where(zero, 0, x / ops.where(zero, 1, y))


@composite("1 / y, 0 where y = 0", "-x / y^2, 0 where y = 0", name="divide_no_nan", elementwise=True)
def divide_no_nan_of(x, y):
    """``x / y``, 0 where ``y`` is 0, with gradients 0 there."""
    zero = y == 0
    return ops.where(zero, 0, x / ops.where(zero, 1, y))


@composite("-1 / x^2, 0 where x = 0", name="reciprocal_no_nan", elementwise=True)
def reciprocal_no_nan_of(x):
    return divide_no_nan_of(ops.ones_like(x), x)


@composite("2 (x - y)", "-2 (x - y)", name="squared_difference", elementwise=True)
def squared_difference_of(x, y):
    return ops.square(ops.subtract(x, y))


UNARY = {
    "exp": ops.exp, "log": ops.log, "log1p": ops.log1p, "expm1": ops.expm1, "sqrt": sqrt_of,
    "square": ops.square, "abs": ops.absolute, "negative": ops.negative, "sign": ops.sign,
    "reciprocal": reciprocal_of, "sin": ops.sin, "cos": ops.cos, "tan": ops.tan,
    "asin": ops.arcsin, "acos": ops.arccos, "atan": ops.arctan, "sinh": ops.sinh,
    "cosh": ops.cosh, "tanh": ops.tanh, "asinh": ops.arcsinh, "acosh": ops.arccosh,
    "atanh": ops.arctanh, "sigmoid": ops.sigmoid, "softplus": ops.softplus,
    "is_nan": ops.isnan, "is_inf": ops.isinf, "is_finite": ops.isfinite, "floor": ops.floor,
    "ceil": ops.ceil, "round": ops.rint, "logical_not": ops.logical_not, "relu": relu_of,
    "rsqrt": rsqrt_of, "softsign": softsign_of, "log_sigmoid": log_sigmoid_of,
    "reciprocal_no_nan": reciprocal_no_nan_of, "erf": special.erf, "erfc": special.erfc,
    "lgamma": special.gammaln,
    "digamma": special.digamma, "erfinv": special.erfinv, "ndtri": special.ndtri,
    "erfcinv": lambda y: special.ndtri(y / 2) * (-1 / math.sqrt(2)),  # erfinv(1 - y), its digits kept
}
BINARY = {
    "add": ops.add, "subtract": ops.subtract, "multiply": ops.multiply, "divide": ops.divide,
    "truediv": ops.divide, "pow": ops.power, "maximum": ops.maximum, "minimum": ops.minimum,
    "atan2": ops.arctan2, "equal": ops.equal, "not_equal": ops.not_equal, "less": ops.less,
    "less_equal": ops.less_equal, "greater": ops.greater, "greater_equal": ops.greater_equal,
    "logical_and": ops.logical_and, "logical_or": ops.logical_or,
    "logical_xor": ops.logical_xor, "squared_difference": squared_difference_of,
    "floordiv": ops.floor_divide, "floormod": ops.remainder, "mod": ops.remainder,
    "xlogy": xlogy_of, "xdivy": xdivy_of, "divide_no_nan": divide_no_nan_of,
}
ELEMENTWISE = {**{k: unary(f, k) for k, f in UNARY.items()},
               **{k: binary(f, k) for k, f in BINARY.items()}}
globals().update(ELEMENTWISE)


def polygamma(a, x, name=None):
    """``tf.math.polygamma(a, x)``: the ``a``-th derivative of ``digamma`` at ``x``, for one
    order ``a`` (a tensor of several is refused)."""
    orders = np.unique(as_tensor(a).numpy())
    if orders.size != 1:
        raise NotImplementedError("tf.math.polygamma(a, x) with several orders in a is not supported "
                                  "in gradmagic.tf: call it once per order")
    return special.polygamma(orders[0], as_tensor(x))


def scalar_mul(scalar, x, name=None):
    return ops.multiply(*operands("tf.math.scalar_mul", scalar, x))


# -- reductions ------------------------------------------------------------------------------
FLOATING_ONLY = {"reduce_variance", "reduce_std", "reduce_logsumexp"}  # TensorFlow refuses integers
# what TensorFlow gives for an empty reduction (a float's -inf or inf, an integer's extremes)
EMPTY = {"reduce_max": lambda info: -np.inf if isinstance(info, np.finfo) else info.min,
         "reduce_min": lambda info: np.inf if isinstance(info, np.finfo) else info.max,
         "reduce_logsumexp": lambda info: -np.inf}


def reduction(fn, tf_name):
    """``tf.math.<tf_name>(input_tensor, axis=None, keepdims=False)`` on the engine's ``fn``."""
    def f(input_tensor, axis=None, keepdims=False, name=None):
        x = as_tensor(input_tensor)
        if tf_name in FLOATING_ONLY and x.dtype.kind not in "fc":
            _floating_only(tf_name, x.dtype)
        if x.value.size == 0 and tf_name in EMPTY:  # TensorFlow's identity, NumPy's error
            axes = tuple(axis) if isinstance(axis, (list, tuple)) else axis
            fill = EMPTY[tf_name](np.finfo(x.dtype) if x.dtype.kind == "f" else np.iinfo(x.dtype))
            xp = xp_of(x.value)
            extreme = xp.min if tf_name == "reduce_min" else xp.max
            return Tensor(extreme(x.value, axis=axes, keepdims=bool(keepdims), initial=fill))
        return same_integers(fn(x, axis=axis, keepdims=bool(keepdims)), x)
    f.__name__ = f.__qualname__ = tf_name
    f.__doc__ = f"``tf.{tf_name}(input_tensor, axis=None, keepdims=False)``, on gradmagic's ``{fn.__name__}``."
    return f


def _floating_only(tf_name, dtype):
    """TensorFlow's error for a reduction of integers or booleans that it computes in floats
    only (an integer result would be truncated: reduce_std of [1, 2, 3] is not 0)."""
    if tf_name != "reduce_logsumexp" and dtype.kind in "iu":
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"<dtype: '{dtype}'>.")
    raise InvalidArgumentError(f"tf.math.{tf_name}: Value for attr 'T' of {dtype} is not in the "
                               "list of allowed values: half, float, double")


def same_integers(out, x):
    """``out`` in ``x``'s integer dtype, as TensorFlow keeps it (NumPy's sums and products of
    int32 or uint8 are int64 or uint64; TensorFlow's wrap around in the input's dtype)."""
    if x.dtype.kind in "iu" and out.dtype != x.dtype:
        return ops.astype(out, x.dtype)
    return out


def integer_mean(x, axis=None, keepdims=False):
    """``np.mean``, except that integers give integers, truncated, as TensorFlow's do."""
    if x.dtype.kind not in "iub":
        return ops.mean(x, axis=axis, keepdims=keepdims)
    return ops.astype(ops.trunc(ops.mean(x, axis=axis, keepdims=keepdims)), x.dtype)


@composite("x / norm", name="reduce_euclidean_norm")
def euclidean_norm(x, axis=None, keepdims=False):
    return ops.sqrt(ops.sum(x * x, axis=axis, keepdims=keepdims))


REDUCTIONS = {"reduce_sum": ops.sum, "reduce_mean": integer_mean, "reduce_max": ops.max,
              "reduce_min": ops.min, "reduce_prod": ops.prod, "reduce_logsumexp": ops.logsumexp,
              "reduce_variance": ops.var, "reduce_std": ops.std,
              "reduce_euclidean_norm": euclidean_norm}
REDUCTIONS = {k: reduction(f, k) for k, f in REDUCTIONS.items()}
globals().update(REDUCTIONS)


def reduce_all(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_all``: whether every element (along ``axis``) is true; no gradient."""
    x = as_tensor(input_tensor)
    return Tensor(xp_of(x.value).all(x.value, axis=norm_axes(axis), keepdims=bool(keepdims)))


def reduce_any(input_tensor, axis=None, keepdims=False, name=None):
    """``tf.reduce_any``: whether some element (along ``axis``) is true; no gradient."""
    x = as_tensor(input_tensor)
    return Tensor(xp_of(x.value).any(x.value, axis=norm_axes(axis), keepdims=bool(keepdims)))


def count_nonzero(input, axis=None, keepdims=None, dtype=int64, name=None):  # noqa: A002
    x = as_tensor(input)
    xp = xp_of(x.value)
    n = xp.sum(x.value != 0, axis=norm_axes(axis), keepdims=bool(keepdims))
    return Tensor(xp.asarray(n, dtype=dtype))


def norm_axes(axis):
    if isinstance(axis, Tensor):
        axis = axis.numpy().tolist()
    return tuple(int(a) for a in axis) if isinstance(axis, (list, tuple)) else axis


# -- indices of extremes, running sums, top k -------------------------------------------------
def argmax(input, axis=None, output_type=int64, name=None):  # noqa: A002
    """``tf.math.argmax``: the index of the largest value along ``axis`` (0 when None, as in
    TensorFlow; the first of ties), as ``output_type`` (int64); no gradient."""
    return arg_extreme(input, axis, output_type, "argmax")


def argmin(input, axis=None, output_type=int64, name=None):  # noqa: A002
    """``tf.math.argmin``: the index of the smallest value along ``axis`` (0 when None)."""
    return arg_extreme(input, axis, output_type, "argmin")


def arg_extreme(input, axis, output_type, fn):  # noqa: A002
    x = as_tensor(input)
    a = axis_of(0 if axis is None else axis, x.ndim, f"tf.math.{fn}")
    if x.ndim == 0:
        raise GradientValueError(f"tf.math.{fn}(input): expected a tensor of rank 1 or more, got a scalar")
    xp = xp_of(x.value)
    return Tensor(xp.asarray(getattr(xp, fn)(x.value, axis=a), dtype=output_type))


def running(fn, identity, x, axis, exclusive, reverse, name):
    x = as_tensor(x)
    a = axis_of(axis, x.ndim, f"tf.math.{name}")
    if reverse:
        x = ops.flip(x, a)
    out = same_integers(fn(x, axis=a), x)
    if exclusive:  # shifted by one along the axis, the identity first, exactly as TensorFlow's
        lead = (slice(None),) * a
        first = ops.getitem(ops.ones_like(x) * identity, lead + (slice(0, 1),))
        out = ops.concatenate([first, ops.getitem(out, lead + (slice(0, -1),))], axis=a)
    return ops.flip(out, a) if reverse else out


@composite("reverse cumsum")
def cumsum(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumsum``: running sums along ``axis`` (0), ``exclusive`` of the element
    itself, from the end when ``reverse``."""
    return running(ops.cumsum, 0, x, axis, exclusive, reverse, "cumsum")


@composite("products of the others, reverse-summed")
def cumprod(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumprod``: running products, as ``cumsum``."""
    return running(ops.cumprod, 1, x, axis, exclusive, reverse, "cumprod")


def add_n(inputs, name=None):
    """``tf.math.add_n``: the sum of a list of tensors of one shape."""
    ts = [as_tensor(t) for t in inputs]
    if not ts:
        raise GradientValueError("tf.math.add_n(inputs): expected a non-empty list of tensors, got []")
    for k, t in enumerate(ts):
        if t.shape != ts[0].shape:
            raise InvalidArgumentError(
                f"tf.math.add_n(inputs): Inputs to operation AddN must have the same size and "
                f"shape.  Input 0: {list(ts[0].shape)} != input {k}: {list(t.shape)}")
    out = ts[0]
    for t in ts[1:]:
        out = ops.add(out, t)
    return out if len(ts) > 1 else ops.identity(out)


globals().update(SEGMENTS)  # tf.math.segment_sum, tf.math.unsorted_segment_max ...
globals().update(MORE_MATH)  # tf.math.xlog1py, tf.math.bincount ... (more_math)

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@composite("back to where each value was")
def top_k(input, k=1, sorted=True, index_type=None, name=None):  # noqa: A002
    """``tf.math.top_k``: the ``k`` largest values along the last axis, largest first (the
    lower index first among ties), and their indices (int32); the values carry the gradient."""
    x = as_tensor(input)
    n = x.shape[-1] if x.ndim else 0
    k = int(k)
    if k < 0:
        raise InvalidArgumentError(f"tf.math.top_k(k={k}): Need k >= 0, got {k}")
    if x.ndim == 0 or k > n:
        raise InvalidArgumentError(
            f"tf.math.top_k(input, k={k}): input must have at least k columns. Had {n}, needed {k}")
    xp = xp_of(x.value)
    order = xp.argsort(-x.value, axis=-1, kind="stable")[..., :k]
    values = statistics.take_along_axis(x, Tensor(order), axis=-1)
    return TopKV2(values, Tensor(xp.asarray(order, dtype=index_type or "int32")))


@composite("(upstream - y sum(upstream * y)) / norm")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``tf.math.l2_normalize``: ``x / sqrt(max(sum(x ** 2, axis), epsilon))``."""
    x = as_tensor(x)
    axis = dim if axis is None else axis
    square_sum = ops.sum(x * x, axis=norm_axes(axis), keepdims=True)
    return x * rsqrt_of(ops.maximum(square_sum, epsilon))


def softmax(logits, axis=-1, name=None):
    """``tf.nn.softmax``: ``exp(logits - logsumexp(logits, axis))``."""
    return special.softmax(as_tensor(logits), axis)


def log_softmax(logits, axis=-1, name=None):
    """``tf.nn.log_softmax``: ``logits - logsumexp(logits, axis)``."""
    return special.log_softmax(as_tensor(logits), axis)


__all__ = sorted([*ELEMENTWISE, *REDUCTIONS, "reduce_all", "reduce_any", "count_nonzero",
                  "argmax", "argmin", "cumsum", "cumprod", "add_n", "top_k", "l2_normalize",
                  "softmax", "log_softmax", "scalar_mul", *SEGMENTS, *MORE_MATH])


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.math.{name}"))

