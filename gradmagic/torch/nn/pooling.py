"""``torch.nn.functional``'s pooling and sliding windows: ``max_pool1d``/``2d``/``3d``,
``avg_pool1d``/``2d``/``3d``, the adaptive ones, ``lp_pool1d``/``2d``, ``unfold``/``fold``
(im2col) and ``pixel_shuffle``/``pixel_unshuffle``, made of the engine's ops so they
differentiate to any order.

The max and average pools are the engine's (``core.pooling``, N-d: the gradient of a max
goes to the element picked, the first in the window at ties, a NaN the last NaN, as
PyTorch's; an average over the zero-padded window, divided by PyTorch's divisor). What is
PyTorch's is here: its arguments, output sizes (``ceil_mode``), checks, messages and
``grad_fn`` names, the adaptive windows (an adaptive average pool contracts each spatial
axis with a matrix of window means), and im2col. The 2-d and 3-d pools are one function
each, for either; a 1-d pool is the 2-d one of height 1.
"""

from __future__ import annotations

import numpy as np

from ..._backend import to_host
from ...core import contract, convolution, ops, pooling, special
from ...core.primitive import composite
from ...core.tensor import raw
from ..graph import as_tensor_of
from ..values import named

NUMBERS = {2: "two", 3: "three"}
AXES = {2: "HW", 3: "THW"}  # PyTorch's letters for the spatial axes in its messages


def _ints(fn, name, value, default=None, dims=2):
    """A pool's argument as ``dims`` ints (PyTorch takes one int or ``dims`` of them)."""
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0 and default is not None):
        return default
    v = tuple(int(a) for a in value) if isinstance(value, (tuple, list)) else (int(value),)
    if len(v) not in (1, dims):
        must = "be omitted," if default is not None else "be"
        must = "be either" if name == "dilation" else must if fn == "avg_pool3d" else "either " + must
        raise RuntimeError(f"{fn}: {name} must {must} a single int, or a tuple of {NUMBERS[dims]} ints")
    return v * dims if len(v) == 1 else v


def _batched(x, message, dims=2):
    """``x`` with a batch axis, and whether it had one (an unbatched (C, *spatial) is taken)."""
    if x.ndim == dims + 2:
        return x, True
    if x.ndim == dims + 1:
        return ops.expand_dims(x, 0), False
    raise RuntimeError(message.format(shape=list(x.shape)))


def _out_size(size, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: a last window that would start in the right
    padding is dropped."""
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = span // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _said(names, values, sep=": ", join=" "):
    """``kT: 1 kH: 2 kW: 3``, PyTorch's way of showing a size in its messages."""
    return join.join(f"{n}{sep}{v}" for n, v in zip(names, values))


def _geometry(fn, input, x, k, s, p, d, ceil_mode):
    """The output's spatial sizes, checked as PyTorch checks them: each axis's
    ``pooling_output_shape``, then ``pool2d_shape_check`` or ``pool3d_shape_check``."""
    for kk, ss, pa, dd in zip(k, s, p, d):
        if ss == 0:
            raise RuntimeError("stride should not be zero")
        if pa < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {pa}")
        if pa > int(((kk - 1) * dd + 1) / 2):  # C++'s division, toward zero
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pa}, "
                               f"kernel_size={kk} and dilation={dd}")
    dims, size = len(k), x.shape[2:]
    out = tuple(_out_size(n, *a, ceil_mode) for n, a in zip(size, zip(k, s, p, d)))
    axes = AXES[dims]
    for what, v, prefix in (("kernel size", k, "k"), ("stride", s, "d"), ("dilation", d, "dilation")):
        if min(v) <= 0:
            raise RuntimeError(f"{what} should be greater than zero, but got {_said([prefix + a for a in axes], v)}")
    shape = list(input.shape)
    if 0 in shape[-(dims + 1):]:
        if dims == 2:
            raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                               f"but got:{shape}")
        where = "avg_pool3d()" if fn == "avg_pool3d" else "max_pool3d_with_indices_out_cpu_template()"
        raise RuntimeError(f"{where}: Expected input's non-batch dimensions to have positive length, but input "
                           f"has a shape of {shape} and non-batch dimension 0 has length zero!")
    if fn == "avg_pool3d" and any(n < kk for n, kk in zip(size, k)):
        raise RuntimeError(f"input image ({_said(axes, size)}) smaller than kernel size "
                           f"({_said(['k' + a for a in axes], k)})")
    if any(kk // 2 < pa for kk, pa in zip(k, p)):
        if dims == 2:
            said = _said(["padW", "padH", "kW", "kH"], (p[1], p[0], k[1], k[0]), " = ", ", ")
        else:
            said = _said(["kT", "kW", "kH", "padT", "padW", "padH"], (k[0], k[2], k[1], p[0], p[2], p[1]))
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got {said}")
    if min(out) < 1:
        c = x.shape[1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + tuple(size)))}). Calculated output "
                           f"size: ({'x'.join(map(str, (c,) + out))}). Output size is too small")
    return out


def _unbatched(out, batched):
    return out if batched else ops.squeeze(out, 0)


def _max_pool(fn, dims, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    """``max_pool2d`` and ``max_pool3d``: each window's maximum (the padding never wins);
    ``return_indices``: with the flat spatial index of each in the input, as PyTorch's
    (int64)."""
    k = _ints(fn, "kernel_size", kernel_size, dims=dims)
    s = _ints(fn, "stride", stride, default=k, dims=dims)
    p, d = _ints(fn, "padding", padding, dims=dims), _ints(fn, "dilation", dilation, dims=dims)
    x, batched = _batched(input, f"non-empty {dims + 1}D or {dims + 2}D (batch mode) tensor expected for input",
                          dims)
    out_size = _geometry(fn, input, x, k, s, p, d, ceil_mode)
    pooled, index = pooling.max_pool(x, k, s, [(a, a) for a in p], d, out_size)
    out = named(_unbatched(pooled, batched), f"MaxPool{dims}DWithIndicesBackward0")
    if return_indices:
        return out, _index_tensor(index if batched else index[0], input)
    return out


@composite("upstream at each window's maximum")
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Each window's maximum (the padding never wins); ``return_indices``: with the flat
    ``h * w`` index of each in the input, as PyTorch's (int64)."""
    return _max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


@composite("upstream at each window's maximum")
def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` over (depth, height, width) windows, its indices flat ``d * h * w``."""
    return _max_pool("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _index_tensor(index, like):
    """The int64 indices, a tensor without a graph."""
    return as_tensor_of(np.ascontiguousarray(index, dtype=np.int64), like)


def _as_2d(fn, input):
    """A 1-d pool's (C, L) or (N, C, L) input as a 2-d pool's (C, 1, L) or (N, C, 1, L)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for {fn})")
    return ops.expand_dims(input, -2)


def _one(fn, name, value, default=None):
    if value is None or (isinstance(value, (tuple, list)) and len(value) == 0 and default is not None):
        return default
    v = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if len(v) != 1:
        raise RuntimeError(f"{fn}() {name} must be an int, list of ints or tuple of ints of size 1 "
                           f"but got size {len(v)}")
    return int(v[0])


@composite("upstream at each window's maximum")
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` along the last axis."""
    fn = "max_pool1d"
    k = _one(fn, "kernel_size", kernel_size)
    s = _one(fn, "stride", stride, default=k)
    p, d = _one(fn, "padding", padding), _one(fn, "dilation", dilation)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{list(input.shape)}")
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got "
                           f"padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    x = _as_2d(fn, input)
    if _out_size(input.shape[-1], k, s, p, d, ceil_mode) < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: "
                           f"{_out_size(input.shape[-1], k, s, p, d, ceil_mode)}")
    out = max_pool2d(x, (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    if return_indices:
        return named(ops.squeeze(out[0], -2), "SqueezeBackward1"), out[1].squeeze(-2)
    return named(ops.squeeze(out, -2), "SqueezeBackward1")




def _avg_pool(fn, dims, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    """``avg_pool2d`` and ``avg_pool3d``: each window's mean, its sum over the window's size
    within the padded input (``count_include_pad``), within the input, or
    ``divisor_override``."""
    k = _ints(fn, "kernel_size", kernel_size, dims=dims)
    s = _ints(fn, "stride", stride, default=k, dims=dims)
    p = _ints(fn, "padding", padding, dims=dims)
    message = ("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}"
               if dims == 2 else "non-empty 4D or 5D (batch mode) tensor expected for input")
    x, batched = _batched(input, message, dims)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    out_size = _geometry(fn, input, x, k, s, p, (1,) * dims, ceil_mode)
    out = pooling.average_pool(x, k, s, [(a, a) for a in p], out_size, count_include_pad, divisor_override)
    return named(_unbatched(out, batched), f"AvgPool{dims}DBackward0")


@composite("upstream / window size, spread over the window")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Each window's mean: its sum over the window's size, within the padded input
    (``count_include_pad``), within the input, or ``divisor_override``."""
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@composite("upstream / window size, spread over the window")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """``avg_pool2d`` over (depth, height, width) windows."""
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override)


@composite("upstream / window size, spread over the window")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """``avg_pool2d`` along the last axis."""
    fn = "avg_pool1d"
    k = _one(fn, "kernel_size", kernel_size)
    s = _one(fn, "stride", stride, default=k)
    p = _one(fn, "padding", padding)
    x = _as_2d(fn, input)
    out = avg_pool2d(x, (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return named(ops.squeeze(out, -2), "SqueezeBackward1")



def _adaptive_sizes(fn, output_size, shape, n, full=None):
    """The adaptive pool's output sizes (``None``: the input's), checked as PyTorch checks
    them against ``full``, the (batched) input's shape."""
    if full is not None:
        empty = [i for i in range(1, len(full)) if full[i] == 0]
        if empty:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, "
                               f"but input has sizes {list(full)} with dimension {empty[0]} being empty")
    v = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size,) * n
    if len(v) != n:
        if n == 1:
            raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got {len(v)})")
        internal = "(): internal error: output_size.size()" if "max" in fn else ": output_size"
        raise RuntimeError(f"{fn}{internal} must be {n}")
    v = tuple(int(shape[i]) if o is None else int(o) for i, o in enumerate(v))
    if min(v) < 0 and full is not None and "max" in fn:
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(o for o in v if o < 0)}: "
                           f"{list(full[:-n]) + list(v)}")
    if min(v) < 0:
        shown = f"{v[0]}, {v[1]},{v[2]}" if n == 3 else ", ".join(map(str, v))  # PyTorch's spacing
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{shown}}}")
    return v


def _bounds(size, out):
    """PyTorch's adaptive windows along one axis: ``[floor(i L / o), ceil((i + 1) L / o))``."""
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _adaptive_offsets(size, out):
    """The adaptive windows along one axis as positions per output (out, widest window),
    a narrower window's spare places -1 (outside the input: they never win)."""
    start, end = _bounds(size, out)
    pos = start[:, None] + np.arange(int((end - start).max(initial=1)))[None, :]
    return np.where(pos < end[:, None], pos, -1)


def _means(size, out, dtype):
    """The (out, size) matrix whose rows average the adaptive windows."""
    start, end = _bounds(size, out)
    at = np.arange(size)[None, :]
    inside = (at >= start[:, None]) & (at < end[:, None])
    return (inside / np.maximum(end - start, 1)[:, None]).astype(dtype)


def _adaptive_avg(fn, dims, input, output_size):
    """``adaptive_avg_pool2d`` and ``3d``: each spatial axis contracted with its matrix of
    window means."""
    x, batched = _batched(input, fn + f"(): Expected {dims + 1}D or {dims + 2}D tensor, but got {{shape}}", dims)
    sizes = _adaptive_sizes(fn, output_size, x.shape[2:], dims, tuple(input.shape))
    dtype = raw(x).dtype
    ins, outs = "xyz"[:dims], "ijk"[:dims]
    spec = f"nc{ins}," + ",".join(o + i for o, i in zip(outs, ins)) + f"->nc{outs}"
    out = contract.einsum(spec, x, *(_means(n, o, dtype) for n, o in zip(x.shape[2:], sizes)))
    return named(_unbatched(out, batched), f"AdaptiveAvgPool{dims}DBackward0")


@composite("upstream / window size, spread over the window")
def adaptive_avg_pool2d(input, output_size):
    """The mean over each of ``output_size`` windows that tile the input (PyTorch's
    bounds: they may overlap by one)."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


@composite("upstream / window size, spread over the window")
def adaptive_avg_pool3d(input, output_size):
    """``adaptive_avg_pool2d`` over (depth, height, width)."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


@composite("upstream / window size, spread over the window")
def adaptive_avg_pool1d(input, output_size):
    """``adaptive_avg_pool2d`` along the last axis."""
    o = _adaptive_sizes("adaptive_avg_pool1d", output_size, input.shape[-1:], 1)[0]
    out = adaptive_avg_pool2d(_as_2d("adaptive_avg_pool1d", input), (1, o))
    return named(ops.squeeze(out, -2), "SqueezeBackward1")


def _adaptive_max(fn, dims, input, output_size, return_indices):
    """``adaptive_max_pool2d`` and ``3d``: the maximum over each adaptive window, its
    gradient to that element; ``return_indices``: with their flat spatial indices."""
    x, batched = _batched(input, fn + f"(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {{shape}}", dims)
    sizes = _adaptive_sizes(fn, output_size, x.shape[2:], dims, tuple(input.shape))
    places = tuple(_adaptive_offsets(n, o) for n, o in zip(x.shape[2:], sizes))
    index = pooling.argmax_windows(np.asarray(to_host(raw(x))), places)
    out = named(_unbatched(pooling.gathered(x, index), batched), f"AdaptiveMaxPool{dims}DBackward0")
    if return_indices:
        return out, _index_tensor(index if batched else index[0], input)
    return out


@composite("upstream at each window's maximum")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The maximum over each adaptive window (bounds as ``adaptive_avg_pool2d``'s), its
    gradient to that element; ``return_indices``: with their flat ``h * w`` indices."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


@composite("upstream at each window's maximum")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` over (depth, height, width), its indices flat ``d * h * w``."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


@composite("upstream at each window's maximum")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` along the last axis."""
    o = _adaptive_sizes("adaptive_max_pool1d", output_size, input.shape[-1:], 1)[0]
    out = adaptive_max_pool2d(_as_2d("adaptive_max_pool1d", input), (1, o), return_indices)
    if return_indices:
        return named(ops.squeeze(out[0], -2), "SqueezeBackward1"), out[1].squeeze(-2)
    return named(ops.squeeze(out, -2), "SqueezeBackward1")


def _lp(pooled, p, window):
    """PyTorch's ``(sign(s) relu(|s|) * window) ** (1 / p)`` of the mean ``s`` of ``x ** p``."""
    return named(ops.power(ops.sign(pooled) * special.relu(ops.absolute(pooled)) * window,
                           1.0 / p), "PowBackward0")


@composite("(x / lp)^(p - 1) upstream over the window")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum over the window of x ** p) ** (1 / p)``."""
    k = _ints("lp_pool2d", "kernel_size", kernel_size)
    pooled = avg_pool2d(ops.power(input, norm_type), k, stride, 0, ceil_mode)
    return _lp(pooled, norm_type, k[0] * k[1])


@composite("(x / lp)^(p - 1) upstream over the window")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``lp_pool2d`` along the last axis."""
    pooled = avg_pool1d(ops.power(input, norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp(pooled, norm_type, int(kernel_size))


def _pixel_checks(fn, input, r, what):
    if input.ndim < 3:
        raise RuntimeError(f"{fn} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"{fn} expects a positive {what}, but got {r}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) to (*, C, H r, W r): each group of ``r^2`` channels spread over an
    ``r`` by ``r`` block."""
    r = int(upscale_factor)
    _pixel_checks("pixel_shuffle", input, r, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by "
                           f"the square of upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(lead)
    x = ops.reshape(input, tuple(lead) + (c // (r * r), r, r, h, w))
    x = ops.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return named(ops.reshape(x, tuple(lead) + (c // (r * r), h * r, w * r)), "PixelShuffleBackward0")


def pixel_unshuffle(input, downscale_factor):
    """``pixel_shuffle``'s inverse: (*, C, H r, W r) to (*, C r^2, H, W)."""
    r = int(downscale_factor)
    _pixel_checks("pixel_unshuffle", input, r, "downscale_factor")
    *lead, c, h, w = input.shape
    for name, size, k in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({k})={size} is not divisible by {r}")
    n = len(lead)
    x = ops.reshape(input, tuple(lead) + (c, h // r, r, w // r, r))
    x = ops.transpose(x, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return named(ops.reshape(x, tuple(lead) + (c * r * r, h // r, w // r)), "PixelUnshuffleBackward0")


def _im2col_args(kernel_size, dilation, padding, stride):
    k, d = _ints("unfold", "kernel_size", kernel_size), _ints("unfold", "dilation", dilation)
    p, s = _ints("unfold", "padding", padding), _ints("unfold", "stride", stride)
    for what, v, a, b in (("kernel size", k, "kernel", "zero"), ("stride", s, "stride", "zero"),
                          ("dilation", d, "dilation", "zero")):
        if min(v) <= 0:
            raise RuntimeError(f"{what} should be greater than {b}, but got {a}_height: {v[0]} "
                               f"{a}_width: {v[1]}")
    if min(p) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    return k, d, p, s


def _blocks(size, k, d, p, s):
    return tuple((n + 2 * pa - dd * (kk - 1) - 1) // st + 1 for n, kk, dd, pa, st in zip(size, k, d, p, s))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: each sliding block of (N, C, H, W) as a column, (N, C kh kw, L), the rows
    channel by channel, each in the kernel's row-major order."""
    if input.ndim not in (3, 4):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                         f"{input.ndim - 1}], but got {input.ndim})")
    k, d, p, s = _im2col_args(kernel_size, dilation, padding, stride)
    x, batched = _batched(input, "")
    n, c, h, w = x.shape
    ho, wo = _blocks((h, w), k, d, p, s)
    if ho < 1 or wo < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the "
                           f"array of sliding blocks as ({ho}, {wo}), but its components must be at least one.")
    windows = convolution.windows(convolution.padded(x, [(a, a) for a in p]), k, s, d, (ho, wo))
    out = ops.reshape(ops.stack(windows, axis=2), (n, c * k[0] * k[1], ho * wo))
    return named(_unbatched(out, batched), "Im2ColBackward0")


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, ``unfold``'s adjoint: the columns (N, C kh kw, L) added back into (N, C, H,
    W) where their blocks lie (overlaps summed)."""
    if input.ndim not in (2, 3) or 0 in tuple(input.shape)[1:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size "
                           f"and non-zero dimensions for input, but got: {list(input.shape)}")
    size = _ints("fold", "output_size", output_size)
    k, d, p, s = _im2col_args(kernel_size, dilation, padding, stride)
    x = input if input.ndim == 3 else ops.expand_dims(input, 0)
    n, ck, length = x.shape
    if ck % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of "
                           f"kernel_size, but got input.size(1)={ck} and kernel_size=({k[0]}, {k[1]}).")
    ho, wo = _blocks(size, k, d, p, s)
    if ho * wo != length or ho < 1 or wo < 1:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), "
                           f"expected size of input's dimension 2 to match the calculated number of sliding "
                           f"blocks {max(ho, 0)} * {max(wo, 0)} = {max(ho, 0) * max(wo, 0)}, but got "
                           f"input.size(2)={length}.")
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    rows = (np.arange(k[0]) * d[0])[:, None, None, None] + (np.arange(ho) * s[0])[None, None, :, None]
    cols = (np.arange(k[1]) * d[1])[None, :, None, None] + (np.arange(wo) * s[1])[None, None, None, :]
    at = (rows * wp + cols).reshape(-1)  # each (kernel offset, block) -> its place, flat
    c = ck // (k[0] * k[1])
    spread = ops.scatter_add(ops.reshape(x, (n, c, -1)), (n, c, hp * wp), (slice(None), slice(None), at))
    out = ops.getitem(ops.reshape(spread, (n, c, hp, wp)),
                      (slice(None), slice(None), slice(p[0], p[0] + size[0]), slice(p[1], p[1] + size[1])))
    return named(out if input.ndim == 3 else ops.squeeze(out, 0), "Col2ImBackward0")


__all__ = ["pixel_shuffle", "pixel_unshuffle", "unfold", "fold", "max_pool1d", "max_pool2d", "max_pool3d",
           "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "lp_pool1d", "lp_pool2d"]
