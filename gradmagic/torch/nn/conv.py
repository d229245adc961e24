"""``torch.nn.functional``'s convolutions (``conv1d``, ``conv2d``, ``conv_transpose1d``,
``conv_transpose2d``) and ``torch.nn.grad``'s gradients of ``conv2d``, made of the engine's
ops, so they differentiate to any order (a custom ``Function`` whose ``backward`` calls
them can be checked by ``gradgradcheck``).

The arithmetic is the engine's (``core.convolution``: windows of the padded input
contracted with the weight at each kernel offset; the transposed convolution as the
convolution whose input gradient it is). What is PyTorch's is here: the arguments as
PyTorch takes them (an int or a tuple, ``padding='same'``, unbatched inputs, a 1-d
convolution as a 2-d one of height 1), its checks and messages, and its ``grad_fn`` names.
"""

from __future__ import annotations

from ...core import convolution, ops
from ...core.primitive import composite
from ..values import named, type_name


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
    """A 2-d convolution's ``out`` as the ``dims``-d one asked for, batched as its input."""
    if dims == 1:
        out = ops.squeeze(out, 2)
    return named(out if batched else ops.squeeze(out, 0), "ConvolutionBackward0")


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
    if dims == 1:  # as a 2-d one of height 1
        x, weight = ops.expand_dims(x, 2), ops.expand_dims(weight, 2)
        stride, dilation = (1, _pair("stride", stride, 1)[0]), (1, _pair("dilation", dilation, 1)[0])
        padding = padding if isinstance(padding, str) else (0, _pair("padding", padding, 1)[0])
    out = _conv2d(fn, x, weight, bias, stride, padding, dilation, groups)
    return _finished(out, dims, batched)


def _conv2d(fn, x, weight, bias, stride, padding, dilation, groups):
    s, d = _pair("stride", stride, 2), _pair("dilation", dilation, 2)
    _, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    if weight.ndim != 4 or c != cg * groups or o % groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {cg * groups} channels, but got {c} "
                           f"channels instead")
    if x.dtype != weight.dtype:
        raise RuntimeError(f"expected scalar type {type_name(x.dtype)} but found {type_name(weight.dtype)}")
    if isinstance(padding, str):
        if padding == "valid":
            p = ((0, 0), (0, 0))
        elif padding == "same":
            if s != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            p = tuple((t // 2, t - t // 2) for t in (d[0] * (kh - 1), d[1] * (kw - 1)))
        else:
            raise RuntimeError(f"Invalid padding string '{padding}'")
    else:
        p = tuple((a, a) for a in _pair("padding", padding, 2))
    hp, wp = h + sum(p[0]), w + sum(p[1])
    ho, wo = (hp - d[0] * (kh - 1) - 1) // s[0] + 1, (wp - d[1] * (kw - 1) - 1) // s[1] + 1
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Calculated padded input size per channel: ({hp} x {wp}). Kernel size: "
                           f"({d[0] * (kh - 1) + 1} x {d[1] * (kw - 1) + 1}). Kernel size can't be "
                           "greater than actual input size")
    return convolution.convolve(x, weight, s, p, d, groups, bias)


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
    c, ci = x.shape[1], weight.shape[0]
    if c != ci or ci % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {ci} channels, but got {c} channels instead")
    if any(a >= max(st, di) for a, st, di in zip(q, s, d)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_height: {q[0]} output_padding_width: {q[1]} stride_height: "
                           f"{s[0]} stride_width: {s[1]} dilation_height: {d[0]} dilation_width: {d[1]}")
    out = convolution.convolve_transpose(x, weight, s, [(pa, pa - qa) for pa, qa in zip(p, q)], d, groups, bias)
    return _finished(out, dims, batched)


@composite("", "conv2d(input windows, upstream)", "conv2d(upstream, weight)")
def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv2d_input``: the gradient of ``conv2d`` with respect to an input
    of ``input_size``, a transposed convolution whose output padding makes that size."""
    s, p, d = _pair("stride", stride, 2), _pair("padding", padding, 2), _pair("dilation", dilation, 2)
    size = tuple(input_size)[-2:]
    k = weight.shape[2:]
    base = [(g - 1) * st - 2 * pa + di * (kk - 1) + 1 for g, st, pa, di, kk in
            zip(grad_output.shape[-2:], s, p, d, k)]
    extra = tuple(int(a - b) for a, b in zip(size, base))
    return conv_transpose2d(grad_output, weight, None, s, p, extra, groups, d)


@composite("conv_transpose2d(grad_output, upstream)", "", "input windows and upstream, summed")
def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """``torch.nn.grad.conv2d_weight``: the gradient of ``conv2d`` with respect to a weight
    of ``weight_size``: the input's windows contracted with ``grad_output`` over the batch
    and the output positions."""
    s, d = _pair("stride", stride, 2), _pair("dilation", dilation, 2)
    kernel = tuple(weight_size)[2:]
    p = _pair("padding", padding, 2)
    return named(convolution.weight_gradient(input, grad_output, kernel, s, [(a, a) for a in p], d, groups),
                 "ConvolutionBackward0")
