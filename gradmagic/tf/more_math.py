"""More of ``tf.math``: ``xlog1py``, ``multiply_no_nan``, ``nextafter`` and ``rint``;
``cumulative_logsumexp``, ``polyval``, ``lbeta``, ``accumulate_n``; the checks
``is_non_decreasing`` and ``is_strictly_increasing``; ``zero_fraction``; the counting
functions ``bincount``, ``confusion_matrix``, ``in_top_k`` and ``invert_permutation``; and
``unsorted_segment_prod`` and ``unsorted_segment_sqrt_n`` (on ``segments``' helpers).

Each carries TensorFlow's gradient where TensorFlow has one (``multiply_no_nan``'s is 0
where ``y`` is 0, ``xlog1py``'s 0 where ``x`` is 0, ``nextafter``'s 1 for ``x1`` and 0 for
``x2``); the counts, checks and indices are computed on the host, constants.
"""

import numpy as np

from .._backend import to_host, xp_of
from ..core import ops, special
from ..core.primitive import Primitive, apply, composite, defvjp
from ..core.tensor import Tensor
from ..errors import GradientTypeError, GradientValueError
from .errors import InvalidArgumentError
from .segments import dtype_word, grouped, host_ints, summed, unsorted_ids, counts_like
from .tensors import as_tensor, axis_of, int32, operands


def host(t):
    return np.asarray(to_host(t.value))


def made(values, like):
    return Tensor(xp_of(like.value).asarray(values))


@composite("log(1 + y), 0 where x = 0", "x / (1 + y), 0 where x = 0", name="xlog1py", elementwise=True)
def xlog1py_of(x, y):
    zero = x == 0
    return ops.where(zero, 0, x * ops.log1p(ops.where(zero, 0, y)))


def xlog1py(x, y, name=None):
    """``tf.math.xlog1py``: ``x * log1p(y)``, 0 where ``x`` is 0; its gradients are 0 there."""
    return xlog1py_of(*operands("tf.math.xlog1py", x, y))


def no_nan_product(xp, x, y):
    return xp.where(y == 0, xp.zeros_like(x * y), x * y)


MUL_NO_NAN = Primitive("multiply_no_nan", no_nan_product, elementwise=True)
defvjp(MUL_NO_NAN, lambda g, ans, x, y: apply(MUL_NO_NAN, g, y),
       lambda g, ans, x, y: apply(MUL_NO_NAN, x, g),
       labels=("y, 0 where y = 0", "x, 0 where the upstream is 0"))


def multiply_no_nan(x, y, name=None):
    """``tf.math.multiply_no_nan``: ``x * y``, 0 where ``y`` is 0 (even where ``x`` is inf or
    NaN); TensorFlow's gradient: ``upstream * y`` (0 where ``y`` is 0) for ``x``, and ``x *
    upstream`` (0 where the upstream is 0) for ``y``."""
    a, b = operands("tf.math.multiply_no_nan", x, y)
    if a.dtype != b.dtype:
        raise InvalidArgumentError(f"tf.math.multiply_no_nan: cannot compute MulNoNan as input "
                                   f"#1(zero-based) was expected to be a {dtype_word(a.dtype)} "
                                   f"tensor but is a {dtype_word(b.dtype)} tensor")
    return apply(MUL_NO_NAN, a, b)


NEXTAFTER = Primitive("nextafter", lambda xp, x, y: xp.nextafter(x, y), elementwise=True)
defvjp(NEXTAFTER, lambda g, ans, x, y: g, lambda g, ans, x, y: ops.zeros_like(g),
       labels=("1", "0"))


def nextafter(x1, x2, name=None):
    """``tf.math.nextafter``: the next float after ``x1`` toward ``x2``; gradient 1 for
    ``x1`` and 0 for ``x2``, as TensorFlow's."""
    a, b = operands("tf.math.nextafter", x1, x2)
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor) and a.dtype.kind in "iu":
        a, b = ops.astype(a, np.float32), ops.astype(b, np.float32)  # numbers: float32, as TF
    if a.dtype.kind != "f" or a.dtype.itemsize < 4:
        raise InvalidArgumentError(f"tf.math.nextafter: Value for attr 'T' of {dtype_word(a.dtype)} "
                                   "is not in the list of allowed values: double, float")
    return apply(NEXTAFTER, a, b)


def rint(x, name=None):
    """``tf.math.rint``: the nearest integer, halves to even; gradient 0."""
    return ops.rint(as_tensor(x))


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``tf.math.cumulative_logsumexp``: ``log(cumsum(exp(x)))`` along ``axis``, one
    ``logaddexp`` a step (exact over any range of values); ``exclusive`` starts from -inf,
    ``reverse`` from the end."""
    t = as_tensor(x)
    if t.dtype.kind != "f":
        raise InvalidArgumentError(f"tf.math.cumulative_logsumexp: Value for attr 'T' of "
                                   f"{dtype_word(t.dtype)} is not in the list of allowed values: "
                                   "half, float, double")
    a = axis_of(axis, t.ndim, "tf.math.cumulative_logsumexp")
    n = t.shape[a]
    if n == 0:
        return ops.identity(t)
    lead = (slice(None),) * a
    steps = range(n - 1, -1, -1) if reverse else range(n)
    parts, total = [], None
    for k in steps:
        item = ops.getitem(t, lead + (slice(k, k + 1),))
        if exclusive:
            parts.append(ops.ones_like(item) * -np.inf if total is None else total)
        total = item if total is None else ops.logaddexp(total, item)
        if not exclusive:
            parts.append(total)
    if reverse:
        parts = parts[::-1]
    return ops.concatenate(parts, axis=a)


def polyval(coeffs, x, name=None):
    """``tf.math.polyval``: ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule;
    ``coeffs`` is a list (0 where it is empty)."""
    if not isinstance(coeffs, (list, tuple)):
        raise GradientValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    t = as_tensor(x)
    if not coeffs:
        return ops.zeros_like(t)
    cs = operands("tf.math.polyval", t, *coeffs)[1:]
    p = cs[0] + ops.zeros_like(t)
    for c in cs[1:]:
        p = c + p * t
    return p


def lbeta(x, name=None):
    """``tf.math.lbeta``: ``sum(lgamma(x), -1) - lgamma(sum(x, -1))``, the log of the
    multivariate beta function along the last axis."""
    t = as_tensor(x)
    if t.ndim == 0:
        raise GradientValueError("tf.math.lbeta(x): expected a tensor of rank 1 or more, got a scalar")
    return ops.sum(special.gammaln(t), axis=-1) - special.gammaln(ops.sum(t, axis=-1))


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """``tf.math.accumulate_n``: the sum of a list of tensors of one shape (``tf.add_n``)."""
    ts = [as_tensor(t) for t in inputs]
    if not ts:
        raise GradientValueError("inputs must be an iterable of at least one Tensor/IndexedSlices "
                                 "with the same dtype and shape")
    for t in ts:
        if t.shape != ts[0].shape or t.dtype != ts[0].dtype:
            raise GradientValueError("inputs must be an iterable of at least one Tensor/IndexedSlices "
                                     "with the same dtype and shape")
    out = ts[0]
    for t in ts[1:]:
        out = ops.add(out, t)
    return out if len(ts) > 1 else ops.identity(out)


def ordered(fn, x, strict):
    t = as_tensor(x)
    if t.dtype.kind not in "iuf":
        raise GradientTypeError(f"Expected x to be numeric, instead found: {t.dtype}")
    v = host(t).reshape(-1)
    ok = (v[1:] > v[:-1]) if strict else (v[1:] >= v[:-1])
    return made(np.bool_(ok.all()), t)


def is_non_decreasing(x, name=None):
    """``tf.math.is_non_decreasing``: whether each element (in row-major order) is at least
    the one before it (True for fewer than two); a boolean scalar."""
    return ordered("tf.math.is_non_decreasing", x, False)


def is_strictly_increasing(x, name=None):
    """``tf.math.is_strictly_increasing``: whether each element exceeds the one before it."""
    return ordered("tf.math.is_strictly_increasing", x, True)


def zero_fraction(value, name=None):
    """``tf.math.zero_fraction``: the fraction of elements that are 0, a float32 scalar."""
    v = host(as_tensor(value))
    return made(np.float32(np.count_nonzero(v == 0) / v.size if v.size else np.nan), as_tensor(value))


def invert_permutation(x, name=None):
    """``tf.math.invert_permutation``: ``y[x[i]] = i`` for a permutation ``x`` of
    ``0 ... n-1`` (int32 or int64, 1-D)."""
    fn = "tf.math.invert_permutation"
    p = host_ints(fn, "x", "T", as_tensor(x), ("int32", "int64"))
    if p.ndim != 1:
        raise InvalidArgumentError(f"{fn}: invert_permutation expects a 1D vector.")
    out = np.full(p.size, -1, dtype=p.dtype)
    for i, k in enumerate(p.tolist()):
        if not 0 <= k < p.size:
            raise InvalidArgumentError(f"{fn}: {k} is not between 0 and {p.size}")
        if out[k] != -1:
            raise InvalidArgumentError(f"{fn}: {k} is duplicated in the input.")
        out[k] = i
    return made(out, as_tensor(x))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=int32, name=None, axis=None,
             binary_output=False):
    """``tf.math.bincount``: how often each value ``0 ... max(arr)`` occurs (at least
    ``minlength``, at most ``maxlength`` bins; values outside are left out), or the sum of
    ``weights`` at each (differentiable in them); ``axis=-1`` counts each row of a 2-D
    ``arr``; ``binary_output`` gives 1 where a value occurs. No gradient, in the weights
    either: TensorFlow registers none (its tape raises LookupError; this one gives None)."""
    fn = "tf.math.bincount"
    a = as_tensor(arr)
    values = host_ints(fn, "arr", "Tidx", a, ("int32", "int64"))
    if (values < 0).any():
        raise InvalidArgumentError(f"{fn}: Input arr must be non-negative!")
    if axis not in (None, 0, -1):
        raise GradientValueError(f"{fn}(axis={axis}): Unsupported axis value {axis}. Only 0 and -1 "
                                 "are currently supported.")
    rows = values.ndim == 2 and axis == -1
    flat = values.reshape(-1)
    size = int(flat.max()) + 1 if flat.size else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    keep = flat < size
    row = np.repeat(np.arange(values.shape[0]), values.shape[1]) if rows else None
    shape = (values.shape[0], size) if rows else (size,)
    index = (row[keep], flat[keep]) if rows else flat[keep]
    counts = np.zeros(shape, dtype=np.int64)
    if weights is not None and not binary_output:
        w = as_tensor(weights)
        values = host(w).reshape(-1)
        if values.size != flat.size:
            raise InvalidArgumentError(f"{fn}: Input arr and weights must have the same shape")
        counts = np.zeros(shape, dtype=w.dtype)
        np.add.at(counts, index, values[keep])
        return made(counts, a)
    np.add.at(counts, index, 1)
    if binary_output:
        counts = np.minimum(counts, 1)
    out_dtype = as_tensor(weights).dtype if weights is not None else np.dtype(dtype)
    return made(counts.astype(out_dtype), a)


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=int32, name=None):
    """``tf.math.confusion_matrix``: ``m[i, j]`` counts (or sums ``weights`` over) the
    examples of label ``i`` predicted ``j``; ``num_classes`` defaults to the largest + 1."""
    fn = "tf.math.confusion_matrix"
    lt, pt = as_tensor(labels), as_tensor(predictions)
    lab, pred = host(lt).reshape(-1).astype(np.int64), host(pt).reshape(-1).astype(np.int64)
    if lab.size != pred.size:
        raise GradientValueError(f"{fn}: labels and predictions must have the same number of "
                                 f"elements, got {lab.size} and {pred.size}")
    if (lab < 0).any():
        raise InvalidArgumentError(f"{fn}: `labels` contains negative values.")
    if (pred < 0).any():
        raise InvalidArgumentError(f"{fn}: `predictions` contains negative values.")
    n = int(num_classes) if num_classes is not None else int(max(lab.max(initial=-1),
                                                                 pred.max(initial=-1)) + 1)
    if num_classes is not None and ((lab >= n).any() or (pred >= n).any()):
        which = "labels" if (lab >= n).any() else "predictions"
        raise InvalidArgumentError(f"{fn}: `{which}` out of bound")
    xp = xp_of(lt.value)
    index = (xp.asarray(lab), xp.asarray(pred))
    if weights is not None:
        w = ops.astype(ops.reshape(as_tensor(weights), (-1,)), np.dtype(dtype))
        return ops.scatter_add(w, (n, n), index)
    counts = np.zeros((n, n), dtype=np.dtype(dtype))
    np.add.at(counts, (lab, pred), 1)
    return made(counts, lt)


def in_top_k(targets, predictions, k, name=None):
    """``tf.math.in_top_k`` (TensorFlow 2's argument order): whether ``predictions[i,
    targets[i]]`` is among the ``k`` largest of row ``i`` (ties counted in: fewer than ``k``
    values are larger); False where a prediction is not finite or a target out of range."""
    fn = "tf.math.in_top_k"
    p = as_tensor(predictions)
    t = host_ints(fn, "targets", "T", as_tensor(targets), ("int32", "int64"))
    if p.dtype.name != "float32":
        raise InvalidArgumentError(f"{fn}: cannot compute InTopKV2 as input #0(zero-based) was "
                                   f"expected to be a float tensor but is a {dtype_word(p.dtype)} tensor")
    v = host(p)
    if v.ndim != 2:
        raise InvalidArgumentError(f"{fn}: predictions must be 2-dimensional")
    if t.shape != (v.shape[0],):
        raise InvalidArgumentError(f"{fn}: First dimension of predictions {v.shape[0]} must match "
                                   f"length of targets {t.size}")
    out = np.zeros(v.shape[0], dtype=bool)
    for i, target in enumerate(t.tolist()):
        if 0 <= target < v.shape[1] and np.isfinite(v[i]).all():
            out[i] = np.count_nonzero(v[i] > v[i, target]) < int(k)
    return made(out, p)


@composite("product of the others in its segment")
def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_prod``: each segment's product (1 for an empty one)."""
    rows, ids, n = unsorted_ids("tf.math.unsorted_segment_prod", data, segment_ids, num_segments)
    return grouped(ops.prod, rows, ids, n, 1)


@composite("1 / sqrt(count) in its segment")
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``tf.math.unsorted_segment_sqrt_n``: each segment's sum divided by the square root of
    its count (0 for an empty one); floating data only, as TensorFlow's."""
    fn = "tf.math.unsorted_segment_sqrt_n"
    rows, ids, n = unsorted_ids(fn, data, segment_ids, num_segments)
    if rows.dtype.kind != "f":
        raise InvalidArgumentError(f"{fn}: Value for attr 'T' of {dtype_word(rows.dtype)} is not in "
                                   "the list of allowed values: bfloat16, half, float, double, "
                                   "complex64, complex128")
    return summed(rows, ids, n) / ops.sqrt(counts_like(rows, ids, n, rows.dtype))


__all__ = ["xlog1py", "multiply_no_nan", "nextafter", "rint", "cumulative_logsumexp", "polyval",
           "lbeta", "accumulate_n", "is_non_decreasing", "is_strictly_increasing",
           "zero_fraction", "invert_permutation", "bincount", "confusion_matrix", "in_top_k",
           "unsorted_segment_prod", "unsorted_segment_sqrt_n"]
MORE_MATH = {k: globals()[k] for k in __all__}
__all__.append("MORE_MATH")
