"""``torch.nn.functional``'s convolutions (``conv1d``, ``conv2d``, ``conv3d``,
``conv_transpose1d``/``2d``/``3d``) and ``torch.nn.grad``'s gradients of ``conv2d`` and
``conv3d``, made of the engine's ops, so they differentiate to any order (a custom
``Function`` whose ``backward`` calls them can be checked by ``gradgradcheck``).

The arithmetic is the engine's (``core.convolution``, N-d: windows of the padded input
contracted with the weight at each kernel offset; the transposed convolution as the
convolution whose input gradient it is). What is PyTorch's is here: the arguments as
PyTorch takes them (an int or a tuple, ``padding='same'``, unbatched inputs, a 1-d
convolution as a 2-d one of height 1), its checks and messages, and its ``grad_fn`` names.
"""

from __future__ import annotations

from ...core import convolution, ops
from ...core.primitive import composite
from ..values import named, type_name

AXES = {1: ("width",), 2: ("height", "width"), 3: ("depth", "height", "width")}


def _pair(name, value, n):
    v = tuple(int(a) for a in value) if isinstance(value, (tuple, list)) else (int(value),) * n
    if len(v) == 1:
        v = v * n
    if len(v) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values "
                           f"to match the convolution dimensions, but got {name}={list(v)}")
    return v


def _batched(fn, input, dims):
    """``input`` with its batch axis (PyTorch takes an unbatched one too), and whether it
    had one."""
    if input.ndim == dims + 2:
        return input, True
    if input.ndim == dims + 1:
        return ops.expand_dims(input, 0), False
    raise RuntimeError(f"Expected {dims + 1}D (unbatched) or {dims + 2}D (batched) input to {fn}, "
                       f"but got input of size: {list(input.shape)}")


def _finished(out, dims, batched):
    """A convolution's ``out`` (a 1-d one made as a 2-d one) as the ``dims``-d one asked
    for, batched as its input (PyTorch squeezes an unbatched one's batch axis away after the
    convolution, which names its ``grad_fn``)."""
    if dims == 1:
        out = ops.squeeze(out, 2)
    out = named(out, "ConvolutionBackward0")
    return out if batched else named(ops.squeeze(out, 0), "SqueezeBackward1")


def _check(x, weight, bias, s, padding, groups, transposed):
    """PyTorch's ``check_shape_forward``: what it refuses before the sizes, in its words."""
    if any(a < 0 for a in padding):
        raise RuntimeError("negative padding is not supported")
    if any(a <= 0 for a in s):
        raise RuntimeError("non-positive stride is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != x.ndim:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-dimensional weight "
                           f"{list(weight.shape)}, but got {x.ndim}-dimensional input of size "
                           f"{list(x.shape)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size [{list(weight.shape)}] instead")
    c = x.shape[1]
    want = weight.shape[0] if transposed else weight.shape[1] * groups
    if c != want:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
                           f"to have {want} channels, but got {c} channels instead")
    o = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        given = "transposed=1, weight" if transposed else "weight"
        raise RuntimeError(f"Given {given} of size {list(weight.shape)}, expected bias to be 1-dimensional with "
                           f"{o} elements, but got bias of size {list(bias.shape)} instead")
    if x.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found {type_name(weight.dtype)}")


@composite("conv_transpose3d(upstream, weight)", "conv3d_weight(input, upstream)",
           "upstream summed over n, d, h, w")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``out[n, o] = bias[o] + sum over c, i, j, l of weight[o, c, i, j, l] * x[n, c,
    s d + D i, s h + D j, s w + D l]``, ``x`` the input padded with zeros."""
    return _conv("conv3d", input, weight, bias, stride, padding, dilation, groups, 3)


@composite("conv_transpose2d(upstream, weight)", "conv2d_weight(input, upstream)",
           "upstream summed over n, h, w")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``out[n, o] = bias[o] + sum over c, i, j of weight[o, c, i, j] * x[n, c, s h + d i,
    s w + d j]``, ``x`` the input padded with zeros, its channels in ``groups``."""
    return _conv("conv2d", input, weight, bias, stride, padding, dilation, groups, 2)


@composite("conv_transpose1d(upstream, weight)", "upstream and input windows, summed",
           "upstream summed over n, l")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """``conv2d`` along one axis."""
    return _conv("conv1d", input, weight, bias, stride, padding, dilation, groups, 1)


def _conv(fn, input, weight, bias, stride, padding, dilation, groups, dims):
    x, batched = _batched(fn, input, dims)
    if dims == 1 and weight.ndim == 3:  # as a 2-d one of height 1
        x, weight = ops.expand_dims(x, 2), ops.expand_dims(weight, 2)
        stride, dilation = (1, _pair("stride", stride, 1)[0]), (1, _pair("dilation", dilation, 1)[0])
        padding = padding if isinstance(padding, str) else (0, _pair("padding", padding, 1)[0])
    out = _convolve(x, weight, bias, stride, padding, dilation, groups)
    return _finished(out, dims, batched)


def _convolve(x, weight, bias, stride, padding, dilation, groups):
    """The N-d convolution of the batched ``x``, its arguments checked as PyTorch checks them
    (the weight's dimensions set the stride's, as in PyTorch)."""
    dims = x.ndim - 2
    s = _pair("stride", _pair("stride", stride, dims), weight.ndim - 2)
    d = _pair("dilation", dilation, dims)
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if padding == "same" and any(a != 1 for a in s):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        _check(x, weight, bias, s, (0,) * dims, groups, False)
        spans = [di * (k - 1) for di, k in zip(d, weight.shape[2:])] if padding == "same" else [0] * dims
        p = tuple((t // 2, t - t // 2) for t in spans)
    else:
        _check(x, weight, bias, s, _pair("padding", padding, dims), groups, False)
        p = tuple((a, a) for a in _pair("padding", padding, dims))
    padded = [n + a + b for n, (a, b) in zip(x.shape[2:], p)]
    kernel = [di * (k - 1) + 1 for di, k in zip(d, weight.shape[2:])]
    if any(k > n for k, n in zip(kernel, padded)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                           "than actual input size")
    return convolution.convolve(x, weight, s, p, d, groups, bias)


@composite("conv3d(upstream, weight)", "input and upstream windows, summed",
           "upstream summed over n, d, h, w")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of ``conv3d`` with respect to its input, as an op: ``weight`` is
    ``(in_channels, out_channels / groups, kd, kh, kw)``."""
    return _conv_transpose("conv_transpose3d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 3)


@composite("conv2d(upstream, weight)", "input and upstream windows, summed",
           "upstream summed over n, h, w")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """The gradient of ``conv2d`` with respect to its input, as an op: ``weight`` is
    ``(in_channels, out_channels / groups, kh, kw)``."""
    return _conv_transpose("conv_transpose2d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 2)


@composite("conv1d(upstream, weight)", "input and upstream windows, summed",
           "upstream summed over n, l")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose1d", input, weight, bias, stride, padding,
                           output_padding, groups, dilation, 1)


def _conv_transpose(fn, input, weight, bias, stride, padding, output_padding, groups, dilation, dims):
    x, batched = _batched(fn, input, dims)
    s, p = _pair("stride", stride, dims), _pair("padding", padding, dims)
    q, d = _pair("output_padding", output_padding, dims), _pair("dilation", dilation, dims)
    if dims == 1:
        x, weight = ops.expand_dims(x, 2), ops.expand_dims(weight, 2)
        s, p, q, d = (1,) + s, (0,) + p, (0,) + q, (1,) + d
    _check(x, weight, bias, s, p, groups, True)
    if any(a >= max(st, di) for a, st, di in zip(q, s, d)):
        names = AXES[len(q)]
        said = " ".join(f"{what}_{axis}: {v}" for what, vs in (("output_padding", q), ("stride", s),
                                                               ("dilation", d)) for axis, v in zip(names, vs))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got {said}")
    out = convolution.convolve_transpose(x, weight, s, [(pa, pa - qa) for pa, qa in zip(p, q)], d, groups, bias)
    return _finished(out, dims, batched)


def _input_gradient(transpose, dims, input_size, weight, grad_output, stride, padding, dilation, groups):
    """``torch.nn.grad.conv{dims}d_input``: a transposed convolution whose output padding
    makes ``input_size``."""
    s, p, d = _pair("stride", stride, dims), _pair("padding", padding, dims), _pair("dilation", dilation, dims)
    size = tuple(input_size)[-dims:]
    base = [(g - 1) * st - 2 * pa + di * (kk - 1) + 1 for g, st, pa, di, kk in
            zip(grad_output.shape[-dims:], s, p, d, weight.shape[2:])]
    extra = tuple(int(a - b) for a, b in zip(size, base))
    return named(transpose(grad_output, weight, None, s, p, extra, groups, d), "ConvolutionBackwardBackward0")


def _weight_gradient(dims, input, weight_size, grad_output, stride, padding, dilation, groups):
    """``torch.nn.grad.conv{dims}d_weight``: the input's windows contracted with
    ``grad_output`` over the batch and the output positions."""
    s, d = _pair("stride", stride, dims), _pair("dilation", dilation, dims)
    kernel = tuple(weight_size)[2:]
    p = _pair("padding", padding, dims)
    return named(convolution.weight_gradient(input, grad_output, kernel, s, [(a, a) for a in p], d, groups),
                 "ConvolutionBackwardBackward0")


@composite("", "conv2d(input windows, upstream)", "conv2d(upstream, weight)")
def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv2d_input``: the gradient of ``conv2d`` with respect to an input
    of ``input_size``, a transposed convolution whose output padding makes that size."""
    return _input_gradient(conv_transpose2d, 2, input_size, weight, grad_output, stride, padding, dilation,
                           groups)


@composite("conv_transpose2d(grad_output, upstream)", "", "input windows and upstream, summed")
def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv2d_weight``: the gradient of ``conv2d`` with respect to a weight
    of ``weight_size``: the input's windows contracted with ``grad_output`` over the batch
    and the output positions."""
    return _weight_gradient(2, input, weight_size, grad_output, stride, padding, dilation, groups)


@composite("", "conv3d(input windows, upstream)", "conv3d(upstream, weight)")
def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv3d_input``: ``conv2d_input`` in three dimensions."""
    return _input_gradient(conv_transpose3d, 3, input_size, weight, grad_output, stride, padding, dilation,
                           groups)


@composite("conv_transpose3d(grad_output, upstream)", "", "input windows and upstream, summed")
def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv3d_weight``: ``conv2d_weight`` in three dimensions."""
    return _weight_gradient(3, input, weight_size, grad_output, stride, padding, dilation, groups)
