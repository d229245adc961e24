"""``torch.nn.functional``'s convolutions (``conv1d``, ``conv2d``, ``conv_transpose1d``,
``conv_transpose2d``) and ``torch.nn.grad``'s gradients of ``conv2d``, made of the engine's
ops, so they differentiate to any order (a custom ``Function`` whose ``backward`` calls
them can be checked by ``gradgradcheck``).

A convolution is a sum over the kernel's offsets: for each offset ``(i, j)``, the strided
window of the (zero-padded) input it meets, contracted with the weight's ``[:, :, i, j]``
over the input channels (per group). A transposed convolution is the convolution whose
input gradient it is: the input spread out by the stride (zeros between), padded by
``dilation * (k - 1) - padding`` (negative: cropped), convolved with the weight flipped
and its channel axes swapped.
"""

from __future__ import annotations

import numpy as np

from ...core import contract, layout, ops
from ...core.primitive import composite
from ..graph import as_tensor_of
from ..values import named


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


def _patches(x, kernel, s, d, out, groups):
    """The window of ``x`` (``(n, c, h, w)``) that each kernel offset meets, as ``(n, groups,
    c / groups, ho, wo, kh * kw)``."""
    (kh, kw), (ho, wo) = kernel, out
    windows = [ops.getitem(x, (slice(None), slice(None),
                               slice(i * d[0], i * d[0] + s[0] * (ho - 1) + 1, s[0]),
                               slice(j * d[1], j * d[1] + s[1] * (wo - 1) + 1, s[1])))
               for i in range(kh) for j in range(kw)]
    n, c = x.shape[:2]
    return ops.reshape(ops.stack(windows, axis=-1), (n, groups, c // groups, ho, wo, kh * kw))


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
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    if weight.ndim != 4 or c != cg * groups or o % groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {cg * groups} channels, but got {c} "
                           f"channels instead")
    if x.dtype != weight.dtype:
        raise RuntimeError(f"Input type ({x.dtype}) and weight type ({weight.dtype}) should be the same")
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
    if any(a for pair in p for a in pair):
        x = layout.pad(x, ((0, 0), (0, 0)) + p)
    hp, wp = x.shape[2], x.shape[3]
    ho, wo = (hp - d[0] * (kh - 1) - 1) // s[0] + 1, (wp - d[1] * (kw - 1) - 1) // s[1] + 1
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Calculated padded input size per channel: ({hp} x {wp}). Kernel size: "
                           f"({d[0] * (kh - 1) + 1} x {d[1] * (kw - 1) + 1}). Kernel size can't be "
                           "greater than actual input size")
    patches = _patches(x, (kh, kw), s, d, (ho, wo), groups)
    kernel = ops.reshape(weight, (groups, o // groups, cg, kh * kw))
    out = ops.reshape(contract.einsum("ngchwk,gock->ngohw", patches, kernel), (n, o, ho, wo))
    if bias is not None:
        out = out + ops.reshape(bias, (1, o, 1, 1))
    return out


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
    n, c, h, w = x.shape
    ci, og, kh, kw = weight.shape
    if c != ci or ci % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {ci} channels, but got {c} channels instead")
    if any(a >= max(st, di) for a, st, di in zip(q, s, d)):
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                           f"output_padding_height: {q[0]} output_padding_width: {q[1]} stride_height: "
                           f"{s[0]} stride_width: {s[1]} dilation_height: {d[0]} dilation_width: {d[1]}")
    if s != (1, 1):  # the input spread out by the stride, zeros between
        spread = as_tensor_of(np.zeros((n, c, (h - 1) * s[0] + 1, (w - 1) * s[1] + 1), x.value.dtype), x)
        x = ops.index_set(spread, (slice(None), slice(None), slice(None, None, s[0]),
                                   slice(None, None, s[1])), x)
    # each side: widened by dilation * (k - 1) - padding (the right also by output_padding),
    # cropped where that is negative
    edges = [(di * (k - 1) - pa, di * (k - 1) - pa + qa) for di, k, pa, qa in zip(d, (kh, kw), p, q)]
    x = ops.getitem(x, (slice(None), slice(None)) + tuple(
        slice(-a if a < 0 else None, b if b < 0 else None) for a, b in edges))
    x = layout.pad(x, ((0, 0), (0, 0)) + tuple((max(a, 0), max(b, 0)) for a, b in edges))
    # per group: (in / g, out / g, kh, kw) -> (out / g, in / g, kh, kw), flipped; groups stacked
    flipped = ops.flip(ops.reshape(weight, (groups, ci // groups, og, kh, kw)), (3, 4))
    kernel = ops.reshape(ops.swapaxes(flipped, 1, 2), (groups * og, ci // groups, kh, kw))
    out = _conv2d(fn, x, kernel, bias, 1, 0, d, groups)
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
    o, cg, kh, kw = tuple(weight_size)
    x = layout.pad(input, ((0, 0), (0, 0)) + tuple((a, a) for a in _pair("padding", padding, 2)))
    n, c, _, _ = x.shape
    ho, wo = grad_output.shape[-2:]
    patches = _patches(x, (kh, kw), s, d, (ho, wo), groups)
    g = ops.reshape(grad_output, (n, groups, o // groups, ho, wo))
    return named(ops.reshape(contract.einsum("ngchwk,ngohw->gock", patches, g), (o, cg, kh, kw)),
                 "ConvolutionBackward0")
