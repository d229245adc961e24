"""``jax.lax``'s elementwise, shape and reduction primitives, run eagerly.

``lax`` is stricter than ``jax.numpy``: a binary primitive takes operands of one dtype
(a Python float goes with any float operand, a Python int with an integer one), and the
float functions refuse integers, each in JAX's words. What they compute is
``jax.numpy``'s (so the engine's rules give the gradients), where JAX's ``lax`` means the
same thing; where it means something else it says so here: ``div`` of integers rounds
toward 0, ``rem`` takes the dividend's sign, ``round`` rounds halves away from 0, ``pad``
takes interior padding and negative edges, ``cumsum`` and its kin run ``reverse``.
"""

from __future__ import annotations

import builtins
import enum

import numpy as np

from ..core import ops, special
from ..core.tensor import Tensor
from .numpy import NAMESPACE as jnp
from .array import asarray


def _dtype_of(x):
    return np.dtype(x.dtype)


def same(name, *operands):
    """The operands as Arrays of one dtype, as ``lax`` takes them: a Python float joins a
    float operand, a Python int an integer one; anything else of another dtype is JAX's
    TypeError."""
    typed = [asarray(x) for x in operands if not isinstance(x, (bool, int, float))]
    dtypes = []
    for a in typed:
        if _dtype_of(a) not in dtypes:
            dtypes.append(_dtype_of(a))
    for x in operands:  # a Python number is weakly typed, within its kind
        if isinstance(x, (bool, int, float)) and dtypes and not isinstance(x, bool):
            kind = "f" if isinstance(x, float) else "i"
            if dtypes[0].kind not in (kind + "c" if kind == "f" else "iu"):
                dtypes.append(asarray(x).dtype)
    if len(dtypes) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(d.name for d in dtypes)}. (Tip: jnp.{JNP.get(name, name)} is a "
                        "similar function that does automatic type promotion on inputs).")
    dtype = dtypes[0] if dtypes else None
    return [asarray(x, dtype) if dtype is not None and not isinstance(x, Tensor) else asarray(x)
            for x in operands]


JNP = {"sub": "subtract", "mul": "multiply", "div": "divide", "rem": "remainder", "max": "maximum",
       "min": "minimum", "pow": "power", "atan2": "arctan2", "eq": "equal", "ne": "not_equal",
       "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"}


def floating(name, x, accepted="floating, complexfloating"):
    """``x`` as an Array, refused as JAX's ``lax`` refuses it unless its dtype is floating."""
    x = asarray(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        f"subtypes of {accepted}.")
    return x


def _unary(name, fn, float_only=True):
    def primitive(x):
        return fn(floating(name, x) if float_only else asarray(x))
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__doc__ = f"``lax.{name}(x)``, elementwise."
    return primitive


PRIMITIVE_NAMES = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor"}  # JAX's


def same_rank(name, *operands):
    """``operands``, refused in JAX's words where two that are not scalars differ in rank:
    ``lax``'s binary primitives broadcast a scalar (a Python number, a 0-d array) and axes
    of length 1, never a missing axis."""
    ranks = {np.ndim(x.value if isinstance(x, Tensor) else x) for x in operands} - {0}
    if len(ranks) > 1:
        raise TypeError(f"{PRIMITIVE_NAMES.get(name, name)}: arrays must have the same number of "
                        f"dimensions, got {{{', '.join(str(r) for r in sorted(ranks))}}}")
    return operands


def _binary(name, fn):
    def primitive(x, y):
        return fn(*same(name, *same_rank(name, x, y)))
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__doc__ = f"``lax.{name}(x, y)``: operands of one dtype, elementwise."
    return primitive


UNARY = {name: _unary(name, getattr(jnp, fn)) for name, fn in (
    ("exp2", "exp2"), ("log1p", "log1p"), ("expm1", "expm1"), ("sin", "sin"), ("cos", "cos"),
    ("tan", "tan"), ("asin", "arcsin"), ("acos", "arccos"), ("atan", "arctan"), ("sinh", "sinh"),
    ("cosh", "cosh"), ("tanh", "tanh"), ("asinh", "arcsinh"), ("acosh", "arccosh"),
    ("atanh", "arctanh"), ("sqrt", "sqrt"), ("cbrt", "cbrt"), ("is_finite", "isfinite"),
    ("floor", "floor"), ("ceil", "ceil"))}
UNARY.update({name: _unary(name, getattr(jnp, fn), float_only=False) for name, fn in (
    ("abs", "abs"), ("neg", "negative"), ("sign", "sign"), ("square", "square"),
    ("bitwise_not", "invert"))})
UNARY["logistic"] = _unary("logistic", lambda x: ops.sigmoid(x))
UNARY["erf_inv"] = _unary("erf_inv", special.erfinv)
UNARY["reciprocal"] = _unary("reciprocal", lambda x: 1 / x, float_only=False)
BINARY = {name: _binary(name, getattr(jnp, JNP.get(name, name))) for name in (
    "add", "sub", "mul", "max", "min", "atan2", "nextafter", "eq", "ne", "lt", "le", "gt", "ge",
    "bitwise_and", "bitwise_or", "bitwise_xor")}
BINARY["shift_left"] = _binary("shift_left", jnp.left_shift)
BINARY["shift_right_arithmetic"] = _binary("shift_right_arithmetic", jnp.right_shift)


def div(x, y):
    """``x / y``; integers divide rounding toward 0 (C's), not down as ``//`` does."""
    x, y = same("div", *same_rank("div", x, y))
    if x.dtype.kind not in "iu":
        return jnp.divide(x, y)
    a, b = x.value, y.value
    q = np.floor_divide(a, b)
    return asarray(q + ((np.remainder(a, b) != 0) & ((a < 0) != (b < 0))), x.dtype)


def rem(x, y):
    """The remainder with the dividend's sign (C's ``fmod``), as ``lax.rem``."""
    return jnp.fmod(*same("rem", *same_rank("rem", x, y)))


class RoundingMethod(enum.IntEnum):
    """``lax.RoundingMethod``."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001  (JAX's name)
    """Halves away from 0 (the default) or to even; the derivative is 0."""
    x = floating("round", x)
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return jnp.round(x)
    return jnp.sign(x) * jnp.floor(jnp.abs(x) + 0.5)  # (floor's and sign's derivatives are 0)


# -- shapes --------------------------------------------------------------------------------
def broadcast(operand, sizes):
    """``operand`` with the dimensions ``sizes`` put in front."""
    x = asarray(operand)
    return jnp.broadcast_to(x, tuple(sizes) + tuple(x.shape))


def broadcast_in_dim(operand, shape, broadcast_dimensions, out_sharding=None):
    """``operand``'s dimension ``k`` becomes dimension ``broadcast_dimensions[k]`` of ``shape``."""
    x = asarray(operand)
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must have length equal to operand "
                        f"ndim; got broadcast_dimensions {tuple(broadcast_dimensions)} for operand "
                        f"ndim {x.ndim}.")
    placed = [1] * len(shape)
    for k, d in enumerate(broadcast_dimensions):
        placed[d] = x.shape[k]
    return jnp.broadcast_to(jnp.reshape(x, tuple(placed)), tuple(shape))


def expand_dims(array, dimensions):
    return jnp.expand_dims(asarray(array), tuple(dimensions))


def reshape(operand, new_sizes, dimensions=None, out_sharding=None):
    """``operand`` (first transposed by ``dimensions``) in the shape ``new_sizes``."""
    x = asarray(operand)
    if dimensions is not None:
        x = jnp.transpose(x, tuple(dimensions))
    return jnp.reshape(x, tuple(new_sizes))


def squeeze(array, dimensions):
    return jnp.squeeze(asarray(array), tuple(dimensions))


def transpose(operand, permutation):
    return jnp.transpose(asarray(operand), tuple(permutation))


def rev(operand, dimensions):
    return jnp.flip(asarray(operand), tuple(dimensions))


def pad(operand, padding_value, padding_config):
    """``operand`` with ``(low, high, interior)`` padding along each dimension: ``interior``
    values between neighbours, then ``low`` and ``high`` at the edges (negative: cut off)."""
    x = asarray(operand)
    fill = same("pad", x, padding_value)[1]
    for axis, (low, high, interior) in enumerate(padding_config):
        n = x.shape[axis]
        if interior:
            size = n + (n - 1) * interior if n else 0
            spread = jnp.broadcast_to(fill, x.shape[:axis] + (size,) + x.shape[axis + 1:])
            at = (builtins.slice(None),) * axis + (builtins.slice(None, None, interior + 1),)
            x = spread.at[at].set(x)
        parts = []
        if low > 0:
            parts.append(jnp.broadcast_to(fill, x.shape[:axis] + (low,) + x.shape[axis + 1:]))
        cut = (builtins.slice(None),) * axis + (builtins.slice(max(-low, 0), x.shape[axis] - max(-high, 0)),)
        parts.append(x[cut])
        if high > 0:
            parts.append(jnp.broadcast_to(fill, x.shape[:axis] + (high,) + x.shape[axis + 1:]))
        x = jnp.concatenate(parts, axis=axis) if len(parts) > 1 else parts[0]
    return x


def concatenate(operands, dimension):
    return jnp.concatenate(same("concatenate", *operands), axis=dimension)


def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001  (JAX's name)
    strides = strides or (1,) * len(start_indices)
    return asarray(operand)[tuple(map(builtins.slice, start_indices, limit_indices, strides))]


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    x = asarray(operand)
    n = x.shape[axis]
    starts, limits, strides = [0] * x.ndim, list(x.shape), [1] * x.ndim
    start = start_index or 0  # a negative start or limit counts from the end, as JAX's
    starts[axis] = start + n if start < 0 else start
    limits[axis] = n if limit_index is None else (limit_index + n if limit_index < 0 else limit_index)
    strides[axis] = stride
    return slice(x, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    x = slice_in_dim(operand, index, index + 1 if index != -1 else None, 1, axis)
    return x if keepdims else jnp.squeeze(x, axis)


def full(shape, fill_value, dtype=None, sharding=None):
    return jnp.full(tuple(shape) if not isinstance(shape, int) else (shape,), fill_value, dtype)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    x = asarray(x)
    return jnp.full(x.shape if shape is None else tuple(shape), fill_value,
                    x.dtype if dtype is None else dtype)


def iota(dtype, size, sharding=None):
    return jnp.arange(size, dtype=dtype)


def broadcasted_iota(dtype, shape, dimension, sharding=None):
    """The index along ``dimension`` at each position of ``shape``."""
    ones = [1] * len(shape)
    ones[dimension] = shape[dimension]
    return jnp.broadcast_to(jnp.reshape(jnp.arange(shape[dimension], dtype=dtype), tuple(ones)),
                            tuple(shape))


def convert_element_type(operand, new_dtype):
    return asarray(operand).astype(new_dtype)


# -- products and reductions ---------------------------------------------------------------
def dot(lhs, rhs, precision=None, preferred_element_type=None, out_sharding=None):
    """Vector-vector, matrix-vector or matrix-matrix product (operands of one dtype)."""
    out = jnp.dot(*same("dot", lhs, rhs))
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    """The contraction ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``: the batch
    dimensions first, then ``lhs``'s free ones, then ``rhs``'s, as ``lax.dot_general``."""
    a, b = same("dot_general", lhs, rhs)
    (ca, cb), (ba, bb) = dimension_numbers
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la, lb = [None] * a.ndim, [None] * b.ndim
    for i, j in zip(ba, bb):
        la[i] = lb[j] = next(letters)
    for i, j in zip(ca, cb):
        la[i] = lb[j] = next(letters)
    for labels in (la, lb):
        for k, v in enumerate(labels):
            if v is None:
                labels[k] = next(letters)
    free_a = [la[k] for k in range(a.ndim) if k not in ba and k not in ca]
    free_b = [lb[k] for k in range(b.ndim) if k not in bb and k not in cb]
    spec = f"{''.join(la)},{''.join(lb)}->{''.join([la[i] for i in ba] + free_a + free_b)}"
    out = jnp.einsum(spec, a, b)
    return out if preferred_element_type is None else out.astype(preferred_element_type)


def batch_matmul(lhs, rhs, precision=None):
    return jnp.matmul(*same("batch_matmul", lhs, rhs))


def _reduction(name, fn):
    def primitive(operand, axes):
        return fn(asarray(operand), axis=tuple(axes))
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__doc__ = f"``lax.{name}(operand, axes)``."
    return primitive


REDUCTIONS = {name: _reduction(name, getattr(jnp, fn)) for name, fn in (
    ("reduce_sum", "sum"), ("reduce_max", "max"), ("reduce_min", "min"), ("reduce_prod", "prod"),
    ("reduce_and", "all"), ("reduce_or", "any"))}


def argmax(operand, axis, index_dtype):
    return jnp.argmax(asarray(operand), axis=axis).astype(index_dtype)


def argmin(operand, axis, index_dtype):
    return jnp.argmin(asarray(operand), axis=axis).astype(index_dtype)


def _cumulative(name, fn):
    def primitive(operand, axis=0, reverse=False):
        x = asarray(operand)
        if reverse:
            return jnp.flip(fn(jnp.flip(x, axis), axis), axis)
        return fn(x, axis)
    primitive.__name__ = primitive.__qualname__ = name
    primitive.__doc__ = f"``lax.{name}(operand, axis=0, reverse=False)``."
    return primitive


def _running(pick):
    def run(x, axis):  # each position the best so far: a chain of picks, so each one's
        n = x.shape[axis]  # gradient goes where the pick's rule sends it (ties: half each)
        best = [slice_in_dim(x, 0, 1, 1, axis)] if n else []
        for k in range(1, n):
            best.append(pick(best[-1], slice_in_dim(x, k, k + 1, 1, axis)))
        return jnp.concatenate(best, axis=axis) if n else x
    return run


CUMULATIVE = {"cumsum": _cumulative("cumsum", lambda x, axis: jnp.cumsum(x, axis=axis)),
              "cumprod": _cumulative("cumprod", lambda x, axis: jnp.cumprod(x, axis=axis)),
              "cumlogsumexp": _cumulative("cumlogsumexp", lambda x, axis: _cumlogsumexp(x, axis)),
              "cummax": _cumulative("cummax", _running(jnp.maximum)),
              "cummin": _cumulative("cummin", _running(jnp.minimum))}


def _cumlogsumexp(x, axis):
    """log of the running sum of exp, shifted by the largest element for its digits."""
    top = ops.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
    top = jnp.where(jnp.isfinite(top), top, 0)
    return jnp.log(jnp.cumsum(jnp.exp(x - top), axis=axis)) + top


def top_k(operand, k):
    """The ``k`` largest along the last axis, sorted, and their (int32) indices."""
    x = asarray(operand)
    index = np.argsort(-np.asarray(x.value), axis=-1, kind="stable")[..., :k]
    return jnp.take_along_axis(x, asarray(index), axis=-1), asarray(index.astype(np.int32))


FUNCTIONS = {**UNARY, **BINARY, **REDUCTIONS, **CUMULATIVE}
