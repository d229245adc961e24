"""``tf.nn``'s convolutions and pools: ``conv1d``/``conv2d``/``conv3d`` and ``convolution``,
their transposes, ``depthwise_conv2d``, ``separable_conv2d``, ``atrous_conv2d``, and
``max_pool``/``avg_pool`` (N-d) with their 1-, 2- and 3-d forms, on the engine's
(``core.convolution``, ``core.pooling``), so they differentiate to any order.

What is TensorFlow's is here: channels last unless ``data_format`` says first (NCHW: what
TensorFlow runs on a GPU; its CPU kernels refuse it), filters ``(*kernel, in, out)``
(transposes: ``(*kernel, out, in)``), strides, kernel sizes and dilations as an int or a
list of 1, N or N + 2, padding ``"SAME"`` (``ceil(size / stride)`` outputs, the odd pad
at the end), ``"VALID"`` or explicit pairs, an average over SAME padding that leaves the
padding out of its count, a max pool that a NaN never wins, and TensorFlow's messages.
"""

import numpy as np

from ..core import convolution as engine
from ..core import ops, pooling
from ..core.primitive import composite
from ..core.tensor import Tensor
from .errors import InvalidArgumentError, UnimplementedError
from .segments import dtype_word
from .tensors import as_tensor, converted

FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _quoted(values):
    return ", ".join(f'"{v}"' for v in values)


def _channels_first(fn, data_format, dims):
    """Whether ``data_format`` puts the channels first (None: last)."""
    if data_format is None or data_format in FORMATS[dims]:
        return data_format is not None and data_format.startswith("NC")
    raise InvalidArgumentError(f"{fn}: Value for attr 'data_format' of \"{data_format}\" is not in the "
                               f"list of allowed values: {_quoted(FORMATS[dims])}")


def _first(x, first):
    """``x`` channels first, as the engine's convolutions take it."""
    return x if first else ops.moveaxis(x, -1, 1)


def _back(y, first):
    return y if first else ops.moveaxis(y, 1, -1)


def _ints(value):
    if isinstance(value, Tensor):
        value = value.numpy()
    return [int(v) for v in np.ravel(np.asarray(value))] if np.ndim(value) else int(value)


def _sizes(fn, name, value, dims, first, across=None):
    """Strides, kernel sizes or dilations, one per spatial axis, from an int or a list of
    1, ``dims`` or ``dims + 2`` (TensorFlow's ``_get_sequence``); a whole list's batch and
    channel entries must be 1 (``across``: the message where not)."""
    v = _ints(1 if value is None else value)
    if isinstance(v, int):
        return (v,) * dims
    if len(v) == 1:
        return tuple(v) * dims
    if len(v) == dims:
        return tuple(v)
    if len(v) == dims + 2:
        spatial, ends = (v[2:], (v[0], v[1])) if first else (v[1:-1], (v[0], v[-1]))
        if ends != (1, 1):
            raise UnimplementedError(f"{fn}: {across or f'Current implementation does not yet support {name} in the batch and depth dimensions.'}")
        return tuple(spatial)
    raise ValueError(f"{name} should be of length 1, {dims} or {dims + 2}. Received: {name}={v} of length {len(v)}")


def _operands(fn, op, input, filters):
    """The input and filters as Tensors of one dtype: the filters, when not a Tensor, made
    the input's (TensorFlow's conversion); two Tensors of different dtypes refused."""
    x = as_tensor(input)
    w = filters if isinstance(filters, Tensor) else converted(fn, filters, x.dtype)
    if w.dtype != x.dtype:
        raise InvalidArgumentError(f"{fn}: cannot compute {op} as input #1(zero-based) was expected to be a "
                                   f"{dtype_word(x.dtype)} tensor but is a {dtype_word(w.dtype)} tensor")
    return x, w


def _same(size, kernel, stride, dilation):
    """TensorFlow's SAME padding along one axis: ``ceil(size / stride)`` outputs, the pad
    that takes split with the odd one at the end."""
    total = max((-(-size // stride) - 1) * stride + dilation * (kernel - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _padding(fn, padding, size, kernel, stride, dilation, first, allowed=("SAME", "VALID", "EXPLICIT")):
    """The ``(before, after)`` zeros on each spatial axis: ``"SAME"``, ``"VALID"`` or, where
    ``allowed`` has ``"EXPLICIT"``, a list of pairs, one per axis of the input."""
    dims = len(size)
    if isinstance(padding, (list, tuple)):
        if "EXPLICIT" not in allowed:
            raise TypeError(f"Expected string for argument 'padding' not {padding!r}.")
        pairs = [_ints(p) for p in padding]
        if len(pairs) != dims + 2:
            raise ValueError(f"When padding is a list, it must be of size {dims + 2}. Received: "
                             f"padding={padding!r} of size {len(pairs)}")
        if any(np.ndim(p) != 1 or len(p) != 2 for p in pairs):
            raise ValueError(f"When padding is a list, each element of padding must be a list/tuple of "
                             f"size 2. Received: padding={padding!r}")
        ends = pairs[:2] if first else [pairs[0], pairs[-1]]
        if any(a for pair in ends for a in pair):
            raise InvalidArgumentError(f"{fn}: Nonzero explicit padding in the batch or depth dimensions is "
                                       "not supported")
        spatial = pairs[2:] if first else pairs[1:-1]
        if any(a < 0 for pair in spatial for a in pair):
            raise InvalidArgumentError(f"{fn}: All elements of explicit_paddings must be nonnegative")
        return [tuple(p) for p in spatial]
    if padding == "VALID":
        return [(0, 0)] * dims
    if padding == "SAME":
        return [_same(*a) for a in zip(size, kernel, stride, dilation)]
    raise InvalidArgumentError(f"{fn}: Value for attr 'padding' of \"{padding}\" is not in the list of "
                               f"allowed values: {_quoted(allowed)}")


def _checked_strides(fn, strides, dilations):
    if min(strides) <= 0:
        raise InvalidArgumentError(f"{fn}: Row and column strides should be larger than 0.")
    if min(dilations) <= 0:
        raise InvalidArgumentError(f"{fn}: Dilated rates should be larger than 0.")


def _rank(fn, t, what, dims):
    if t.ndim != dims + 2:
        raise InvalidArgumentError(f"{fn}: convolution {what} must be {dims + 2}-dimensional: "
                                   f"[{','.join(map(str, t.shape))}]")


def _prepared(fn, op, input, filters, strides, data_format, dilations, dims):
    """A convolution's operands and arguments, checked as TensorFlow checks them: ``(x, w,
    channels first, strides, dilations)``."""
    x, w = _operands(fn, op, input, filters)
    _rank(fn, x, "input", dims)
    _rank(fn, w, "filter", dims)
    first = _channels_first(fn, data_format, dims)
    s = _sizes(fn, "strides", strides, dims, first)
    d = _sizes(fn, "dilations", dilations, dims, first)
    _checked_strides(fn, s, d)
    return x, w, first, s, d


def _convolve(fn, op, input, filters, strides, padding, data_format, dilations, dims):
    """``tf.nn.conv{dims}d``: filters ``(*kernel, in / groups, out)``; an input of more
    channels than the filters take is a grouped convolution (as TensorFlow's GPU kernels
    run it)."""
    x, w, first, s, d = _prepared(fn, op, input, filters, strides, data_format, dilations, dims)
    x = _first(x, first)
    c, (cin, cout) = x.shape[1], w.shape[-2:]
    if cin == 0 or c % cin:
        raise InvalidArgumentError(f"{fn}: input depth must be evenly divisible by filter depth: {c} vs {cin}")
    groups = c // cin
    if cout % groups:
        raise InvalidArgumentError(f"{fn}: output depth must be evenly divisible by number of groups: "
                                   f"{cout} vs {groups}")
    kernel = tuple(w.shape[:dims])
    p = _padding(fn, padding, x.shape[2:], kernel, s, d, first)
    weight = ops.transpose(w, (dims + 1, dims) + tuple(range(dims)))  # (out, in / groups, *kernel)
    return _back(engine.convolve(x, weight, s, p, d, groups), first)


@composite("conv2d_transpose(upstream, filters)", "input windows and upstream, summed")
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """``out[n, i, j, o] = sum over di, dj, c of filters[di, dj, c, o] * x[n, s i + d di,
    s j + d dj, c]``, ``x`` the input padded with zeros."""
    return _convolve("tf.nn.conv2d", "Conv2D", input, filters, strides, padding, data_format, dilations, 2)


@composite("conv1d_transpose(upstream, filters)", "input windows and upstream, summed")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):  # noqa: A002
    """``conv2d`` along one axis: ``(n, w, c)`` (``"NCW"``: ``(n, c, w)``), filters ``(k, in, out)``."""
    if data_format not in ("NWC", "NCW"):
        raise ValueError('data_format must be "NWC" or "NCW".')
    return _convolve("tf.nn.conv1d", "Conv2D", input, filters, stride, padding, data_format, dilations, 1)


@composite("conv3d_transpose(upstream, filters)", "input windows and upstream, summed")
def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002
    """``conv2d`` over three spatial axes: filters ``(kd, kh, kw, in, out)``."""
    return _convolve("tf.nn.conv3d", "Conv3D", input, filters, strides, padding, data_format, dilations, 3)


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """``tf.nn.convolution``: ``conv1d``, ``conv2d`` or ``conv3d`` by the input's rank;
    strides above 1 with dilations above 1 are refused, as TensorFlow refuses them here."""
    x = as_tensor(input)
    dims = x.ndim - 2
    if dims not in FORMATS:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={tuple(x.shape)} "
                         f"of rank {x.ndim}.")
    first = data_format is not None and str(data_format).startswith("NC")
    s = _sizes("tf.nn.convolution", "strides", strides, dims, first)
    d = _sizes("tf.nn.convolution", "dilations", dilations, dims, first)
    if max(s) > 1 and max(d) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={np.array(s)} and dilation_rate={np.array(d)}")
    fn = {1: conv1d, 2: conv2d, 3: conv3d}[dims]
    return fn(x, filters, s, padding, data_format or FORMATS[dims][0], d)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """``tf.nn.atrous_conv2d``: ``conv2d`` with dilations ``rate`` (NHWC)."""
    if int(rate) < 1:
        raise ValueError(f"rate {int(rate)} cannot be less than one")
    return conv2d(value, filters, 1, padding, dilations=int(rate))


def _output_shape(fn, output_shape, dims):
    shape = _ints(output_shape)
    if isinstance(shape, int) or len(shape) != dims + 2:
        raise ValueError(f"{fn}: output_shape must have length {dims + 2}, got {output_shape!r}")
    return shape


def _transpose(fn, op, input, filters, output_shape, strides, padding, data_format, dilations, dims):
    """``tf.nn.conv{dims}d_transpose``: the gradient of ``conv{dims}d`` with respect to an
    input of ``output_shape``, for filters ``(*kernel, out, in)``."""
    x, w, first, s, d = _prepared(fn, op, input, filters, strides, data_format, dilations, dims)
    shape = _output_shape(fn, output_shape, dims)
    size, depth = (shape[2:], shape[1]) if first else (shape[1:-1], shape[-1])
    x = _first(x, first)
    kernel, (cout, cin) = tuple(w.shape[:dims]), w.shape[-2:]
    if depth != cout:
        raise InvalidArgumentError(f"{fn}: {op}: input depth must be evenly divisible by filter depth")
    if x.shape[1] != cin:
        raise InvalidArgumentError(f"{fn}: {op}: filter and out_backprop must have the same out_depth")
    if shape[0] != x.shape[0]:
        raise InvalidArgumentError(f"{fn}: {op}: input and out_backprop must have the same batch size")
    pads = _padding(fn, padding, size, kernel, s, d, first)
    for k, (n, m) in enumerate(zip(size, x.shape[2:])):
        computed = engine.output_size((n,), kernel[k:k + 1], s[k:k + 1], d[k:k + 1], pads[k:k + 1])[0]
        if computed != m:
            raise InvalidArgumentError(
                f"{fn}: {op}: Size of out_backprop doesn't match computed: actual = {m}, computed = {computed} "
                f"spatial_dim: {k + 1} input: {n} filter: {kernel[k]} output: {m} stride: {s[k]} dilation: {d[k]}")
    full = engine.transposed_size(x.shape[2:], kernel, s, d, [(0, 0)] * dims)
    crop = [(a, f - a - n) for (a, _), f, n in zip(pads, full, size)]
    weight = ops.transpose(w, (dims + 1, dims) + tuple(range(dims)))  # (in, out, *kernel)
    return _back(engine.convolve_transpose(x, weight, s, crop, d), first)


@composite("conv2d(upstream, filters)", "upstream and input windows, summed")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """The gradient of ``conv2d`` with respect to its input, as an op: filters ``(kh, kw,
    out, in)``, the output of ``output_shape`` (batch and channels included)."""
    return _transpose("tf.nn.conv2d_transpose", "Conv2DCustomBackpropInput", input, filters, output_shape,
                      strides, padding, data_format, dilations, 2)


@composite("conv1d(upstream, filters)", "upstream and input windows, summed")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=None, name=None):
    """``conv2d_transpose`` along one axis: filters ``(k, out, in)``."""
    return _transpose("tf.nn.conv1d_transpose", "Conv2DCustomBackpropInput", input, filters, output_shape,
                      strides, padding, data_format, dilations, 1)


@composite("conv3d(upstream, filters)", "upstream and input windows, summed")
def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """``conv2d_transpose`` over three spatial axes: filters ``(kd, kh, kw, out, in)``."""
    return _transpose("tf.nn.conv3d_transpose", "Conv3DBackpropInputV2", input, filters, output_shape,
                      strides, padding, data_format, dilations, 3)


@composite("depthwise_conv2d_backprop_input(upstream, filter)", "input windows and upstream, summed")
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):  # noqa: A002
    """Each input channel ``c`` convolved with each of its ``M`` filters ``filter[:, :, c,
    m]``, output channel ``c * M + m``: a convolution of ``C`` groups."""
    fn = "tf.nn.depthwise_conv2d"
    if not isinstance(strides, (list, tuple, np.ndarray, Tensor)):
        raise TypeError(f"Expected list for 'strides' argument to 'depthwise_conv2d_native' Op, not {strides!r}.")
    x, w = _operands(fn, "DepthwiseConv2dNative", input, filter)
    _rank(fn, x, "input", 2)
    _rank(fn, w, "filter", 2)
    first = _channels_first(fn, data_format, 2)
    s = _sizes(fn, "strides", strides, 2, first)
    d = _sizes(fn, "dilations", dilations, 2, first)
    _checked_strides(fn, s, d)
    x = _first(x, first)
    kh, kw, c, m = w.shape
    if x.shape[1] != c:
        raise InvalidArgumentError(f"{fn}: input and filter must have the same depth: {x.shape[1]} vs {c}")
    p = _padding(fn, padding, x.shape[2:], (kh, kw), s, d, first)
    weight = ops.expand_dims(ops.transpose(ops.reshape(w, (kh, kw, c * m)), (2, 0, 1)), 1)  # (c m, 1, kh, kw)
    return _back(engine.convolve(x, weight, s, p, d, c), first)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """``depthwise_conv2d``, then a 1 by 1 ``conv2d`` with ``pointwise_filter`` ``(1, 1, C M,
    out)``."""
    inner = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format, dilations)
    return conv2d(inner, pointwise_filter, 1, "VALID", data_format or "NHWC")


# -- pooling -----------------------------------------------------------------------------------------------
def _pool(fn, op, kind, input, ksize, strides, padding, data_format, dims):
    """A max or average pool over ``dims`` spatial axes, TensorFlow's way (see the module)."""
    x = as_tensor(input)
    if x.ndim != dims + 2:
        raise InvalidArgumentError(f"{fn}: input must be {dims + 2}-dimensional, got shape "
                                   f"[{','.join(map(str, x.shape))}]")
    if kind == "avg" and x.dtype.kind != "f":
        raise InvalidArgumentError(f"{fn}: Value for attr 'T' of {dtype_word(x.dtype)} is not in the list of "
                                   "allowed values: half, bfloat16, float, double")
    first = _channels_first(fn, data_format, dims)
    batch = "Pooling is not yet supported on the batch dimension."
    for name, value in (("ksize", ksize), ("strides", strides)):
        v = _ints(value)
        if not isinstance(v, int) and len(v) == dims + 2 and v[0] != 1:
            raise UnimplementedError(f"{fn}: {batch}")
    k = _sizes(fn, "ksize", ksize, dims, first, across="depthwise pooling (ksize over the channels)")
    s = _sizes(fn, "strides", strides, dims, first, across="depthwise pooling (ksize over the channels)")
    if min(k) <= 0 or min(s) <= 0:
        raise InvalidArgumentError(f"{fn}: Sliding window ksize and stride must be positive: ksize {list(k)}, "
                                   f"strides {list(s)}")
    x = _first(x, first)
    allowed = ("SAME", "VALID", "EXPLICIT") if kind == "max" else ("SAME", "VALID")
    ones = (1,) * dims
    p = _padding(fn, padding, x.shape[2:], k, s, ones, first, allowed)
    out = engine.output_size(x.shape[2:], k, s, ones, p)
    if kind == "max":
        y = pooling.max_pool(x, k, s, p, ones, out, nan_wins=False)[0]
    else:
        y = pooling.average_pool(x, k, s, p, out, count_padding=False)
    return _back(y, first)


def _pool_call(kind, dims):
    op = {"max": "MaxPool", "avg": "AvgPool"}[kind] + ("3D" if dims == 3 else "")
    default = FORMATS[dims][0]

    def pool(input, ksize, strides, padding, data_format=default, name=None):  # noqa: A002
        return _pool(f"tf.nn.{kind}_pool{dims}d", op, kind, input, ksize, strides, padding, data_format, dims)
    pool.__name__ = pool.__qualname__ = f"{kind}_pool{dims}d"
    pool.__doc__ = (f"``tf.nn.{kind}_pool{dims}d``: each window's "
                    + ("maximum (its gradient to that element, the first at ties)" if kind == "max" else
                       "mean (over SAME padding: of the elements inside the input)"))
    labels = ("1 at each window's maximum",) if kind == "max" else ("1 / window size",)
    return composite(*labels)(pool)


max_pool1d, max_pool2d, max_pool3d = (_pool_call("max", n) for n in (1, 2, 3))
avg_pool1d, avg_pool2d, avg_pool3d = (_pool_call("avg", n) for n in (1, 2, 3))
POOLS = {("max", 1): max_pool1d, ("max", 2): max_pool2d, ("max", 3): max_pool3d,
         ("avg", 1): avg_pool1d, ("avg", 2): avg_pool2d, ("avg", 3): avg_pool3d}


def _any_pool(kind, input, ksize, strides, padding, data_format):
    x = as_tensor(input)
    dims = x.ndim - 2
    if dims not in FORMATS:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={tuple(x.shape)} "
                         f"of rank {x.ndim}.")
    return POOLS[kind, dims](x, ksize, strides, padding, data_format or FORMATS[dims][0])


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.max_pool``: ``max_pool1d``, ``2d`` or ``3d`` by the input's rank."""
    return _any_pool("max", input, ksize, strides, padding, data_format)


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``tf.nn.avg_pool``: ``avg_pool1d``, ``2d`` or ``3d`` by the input's rank."""
    return _any_pool("avg", input, ksize, strides, padding, data_format)


CONV = {f.__name__: f for f in (
    conv1d, conv2d, conv3d, convolution, atrous_conv2d, conv1d_transpose, conv2d_transpose, conv3d_transpose,
    depthwise_conv2d, separable_conv2d, max_pool, max_pool1d, max_pool2d, max_pool3d, avg_pool, avg_pool1d,
    avg_pool2d, avg_pool3d)}

__all__ = list(CONV)
