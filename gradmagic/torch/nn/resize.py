"""Resizing, ``torch.nn.functional.interpolate`` as PyTorch 2.13.0's (its CPU kernels):
``nearest``, ``nearest-exact``, ``linear``/``bilinear``/``trilinear``, ``bicubic`` and
``area`` on 3-, 4- and 5-d inputs, with ``upsample`` and its deprecated aliases.

Each spatial axis is resampled in turn, the last first, as PyTorch's kernel nests them: an
output position reads input positions (a gather by index) and adds them with constant
weights, so the result differentiates to any order with no rule of its own. The positions
and weights are PyTorch's, computed in the input's dtype (its source index
``scale * (i + 0.5) - 0.5``, ``scale`` being ``1 / scale_factor`` where one is given and
``recompute_scale_factor`` is not set, else ``in / out``), so the values are its, bit for bit.
"""

import math
import warnings

import numpy as np

from ...core import ops
from ...core.primitive import composite
from ...tracebacks import user_stacklevel
from ..values import named
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

LINEAR = {3: "linear", 4: "bilinear", 5: "trilinear"}
CUBIC_A = -0.75  # PyTorch's bicubic coefficient
AXIS_NAMES = ("D", "H", "W")


def _scale(n_in, n_out, align_corners, scale, dtype):
    """PyTorch's ``area_pixel_compute_scale``: input positions per output position."""
    if align_corners:
        return dtype.type(n_in - 1) / dtype.type(n_out - 1) if n_out > 1 else dtype.type(0)
    if scale is not None and scale > 0:
        return dtype.type(1.0 / scale)
    return dtype.type(n_in) / dtype.type(n_out)


def _source(s, n_out, align_corners, dtype, cubic=False):
    """Each output position's place in the input, ``s`` input positions apart
    (``area_pixel_compute_source_index``)."""
    i = np.arange(n_out).astype(dtype)
    if align_corners:
        return s * i
    half = dtype.type(0.5)
    real = _fused(np.full_like(i, s), i + half, np.full_like(i, -half))  # fused, as compiled
    return real if cubic else np.maximum(real, dtype.type(0))


def _floor(real, n_in):
    """PyTorch's ``floorf`` (in float32, whatever the dtype), at most the last position."""
    return np.minimum(np.floor(real.astype(np.float32)).astype(np.int64), n_in - 1)


def _cubic(t, dtype):
    """The four weights of PyTorch's cubic convolution (A = -0.75) at offset ``t``."""
    a, one = dtype.type(CUBIC_A), dtype.type(1)

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + one

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + one), near(t), near(one - t), far(one - t + one)]


def _taps(n_in, n_out, mode, align_corners, scale, dtype):
    """The input positions each output position reads along one axis, and their weights
    (``None``: one position, copied), as PyTorch's ``compute_indices_weights``."""
    s = _scale(n_in, n_out, align_corners, scale, dtype)
    if mode == "nearest":  # the position scaled, as PyTorch's (OpenCV's) INTER_NEAREST
        return [_floor(_source(s, n_out, True, dtype), n_in)], None
    if mode == "nearest-exact":  # the nearest centre, as Pillow's
        return [_floor(_source(s, n_out, False, dtype) + dtype.type(0.5), n_in)], None
    if mode == "bicubic":
        real = _source(s, n_out, align_corners, dtype, cubic=True)
        low = _floor(real, n_in)
        t = np.clip(real - low, 0, 1).astype(dtype)
        return [np.clip(low - 1 + j, 0, n_in - 1) for j in range(4)], _cubic(t, dtype)
    if n_out == n_in:  # PyTorch copies: weights 1 and 0
        i = np.arange(n_in)
        return [i, i], [np.ones(n_in, dtype), np.zeros(n_in, dtype)]
    real = _source(s, n_out, align_corners, dtype)
    low = _floor(real, n_in)
    t = np.clip(real - low, 0, 1).astype(dtype)
    return [low, low + (low < n_in - 1)], [dtype.type(1) - t, t]


def _fused(a, b, c):
    """``a * b + c`` rounded once, as PyTorch's kernel computes it (its compiler fuses the
    multiply and add): float32 through float64, float64 with Dekker's exact product."""
    if a.dtype != np.float64:
        return (a.astype(np.float64) * b + c).astype(a.dtype)
    p = a * b
    (ah, al), (bh, bl) = (_halves(a), _halves(b))
    error = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + error == a * b exactly
    s = p + c
    back = s - p
    return s + (((p - (s - back)) + (c - back)) + error)


def _halves(x):
    t = 134217729.0 * x  # 2 ** 27 + 1: Veltkamp's split into two 26-bit halves
    high = t - (t - x)
    return high, x - high


def _weighted(out, where, index, weights):
    """``sum_j out[where + index[j]] * weights[j]`` along one axis, its value PyTorch's: its
    compiled kernel fuses each product but the second into the sum, ``fma(x0, w0, x1 w1)``
    then ``fma(xj, wj, sum)``, which the ops' value, shifted by that tiny constant, equals."""
    terms = [ops.getitem(out, where + (i,)) for i in index]
    value = _fused(terms[0].value, weights[0], terms[1].value * weights[1])
    for term, w in zip(terms[2:], weights[2:]):
        value = _fused(term.value, w, value)
    total = terms[0] * weights[0]
    for term, w in zip(terms[1:], weights[1:]):
        total = total + term * w
    return total + (value - total.value)


@composite("upstream added back at the positions each output read, times their weights")
def _resample(input, sizes, scales, mode, align_corners):
    """``input`` resampled to ``sizes`` along its spatial axes (all but the first two)."""
    dtype = input.value.dtype
    out = input
    for axis in reversed(range(2, input.ndim)):
        n_in, n_out = input.shape[axis], sizes[axis - 2]
        index, weights = _taps(n_in, n_out, mode, align_corners, scales[axis - 2], dtype)
        where = (slice(None),) * axis
        if n_in == n_out and mode == "nearest" and input.ndim == 4:  # PyTorch's 2-d kernel copies
            index = [np.arange(n_in)]
        if weights is None:
            out = ops.getitem(out, where + (index[0],))
        else:
            tail = (1,) * (input.ndim - 1 - axis)
            out = _weighted(out, where, index, [w.reshape(w.shape + tail) for w in weights])
    return out


def _sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """The output's spatial sizes and the scales the kernel uses (``None`` each where it
    takes ``in / out``), checked as PyTorch checks them."""
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and output size of {size}. Please provide "
                    "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(s, (int, np.integer)) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, "
                                f"int, int], but got size with types {[type(s) for s in size]}")
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dim
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return [int(s) for s in sizes], [None] * dim
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dim:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
                "...,sK) format.")
        scales = [float(s) for s in scale_factor]
    else:
        scales = [float(scale_factor)] * dim
    sizes = [math.floor(n * s) for n, s in zip(input.shape[2:], scales)]
    if recompute_scale_factor or mode == "area":
        return sizes, [None] * dim
    return sizes, scales


def _check_sizes(input, sizes):
    if min(sizes, default=1) > 0 and min(input.shape[2:], default=1) > 0:
        return
    names = AXIS_NAMES[len(AXIS_NAMES) - len(sizes):]
    shown = [", ".join(f"{a}: {n}" for a, n in zip(names, ns)) for ns in (input.shape[2:], sizes)]
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({shown[0]}) "
                       f"output ({shown[1]})")


def _kernel_name(mode, dims):
    """PyTorch's ``grad_fn`` name for the mode (``UpsampleBilinear2DBackward0``)."""
    title = {"nearest-exact": "NearestExact", "linear": "Linear", "bilinear": "Bilinear",
             "trilinear": "Trilinear"}.get(mode, mode.capitalize())
    return f"Upsample{title}{dims}DBackward0"


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """``input`` (N, C, *spatial) resized to ``size`` or by ``scale_factor`` along its 1 to 3
    spatial axes."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _sizes(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
                         "requires a 4-D tensor as input")
    if antialias:
        raise NotImplementedError("interpolate(antialias=True) is not supported in gradmagic.torch: "
                                  "low-pass filter (avg_pool2d) before resizing")
    dims = input.ndim - 2
    if mode == "area" and input.ndim in (3, 4, 5):
        return {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[dims](input, sizes)
    if input.ndim in LINEAR and (mode in ("nearest", "nearest-exact", LINEAR[input.ndim])
                                 or (mode == "bicubic" and input.ndim == 4)):
        _check_sizes(input, sizes)
        return named(_resample(input, sizes, scales, mode, align_corners), _kernel_name(mode, dims))
    if input.ndim in LINEAR and mode in LINEAR.values():
        wanted = {m: r for r, m in LINEAR.items()}[mode]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wanted}D input")
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: nearest | "
        f"linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})")


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=user_stacklevel())


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``interpolate``, with PyTorch's deprecation warning."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(mode="nearest")``, with PyTorch's deprecation warning."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(mode="bilinear", align_corners=True)``, with PyTorch's deprecation warning."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]
