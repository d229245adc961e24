"""Spatial transformers: ``torch.nn.functional.affine_grid`` and ``grid_sample`` as PyTorch
2.13.0's (its CPU kernels), on 4-d inputs (N, C, H, W) and 5-d ones (N, C, D, H, W), modes
``bilinear``, ``nearest`` and (4-d) ``bicubic``, padding ``zeros``, ``border`` and
``reflection``, with ``align_corners`` either way.

Each grid coordinate becomes a position in the input (PyTorch's
``grid_sampler_compute_source_index``), computed in NumPy as PyTorch computes it, and joined
to the grid as a tensor of that exact value whose derivative is PyTorch's multiplier (the
scale, its sign flipped by each reflection, 0 where clipped, borders included). An output
then reads input positions (a gather by index) and adds them with weights that are
polynomials of the position's fraction, so gradients in ``input`` and ``grid`` (and second
order) come from the ops' rules, with PyTorch's one-sided conventions at the kinks.
"""

import itertools
import warnings

import numpy as np

from ...core import ops
from ...core.primitive import composite
from ...tracebacks import user_stacklevel
from ..values import named, type_name

MODES = ("bilinear", "nearest", "bicubic")
PADDINGS = ("zeros", "border", "reflection")
CUBIC_A = -0.75  # PyTorch's bicubic coefficient
ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                 "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                 "documentation of grid_sample for details.")


def _align(align_corners):
    """``align_corners``, ``False`` where not given, with PyTorch's warning then."""
    if align_corners is None:
        warnings.warn(ALIGN_WARNING, UserWarning, stacklevel=user_stacklevel())
        return False
    return bool(align_corners)


# -- where a grid coordinate reads the input -------------------------------------------

def _unnormalize(g, size, align_corners, volumetric):
    """Grid coordinates in [-1, 1] as input positions, and the scale between the two: the
    vectorized 2-d kernel's ``(g + 1) * scale - 0.5`` (``(size - 1) / 2``, ``size / 2``), the 3-d
    kernel's ``((g + 1) / 2) * (size - 1)`` or ``((g + 1) * size - 1) / 2``."""
    t = g.dtype.type
    scale = t(size - 1) / t(2) if align_corners else t(size) / t(2)
    if volumetric:
        x = ((g + t(1)) / t(2)) * t(size - 1) if align_corners else ((g + t(1)) * t(size) - t(1)) / t(2)
    else:
        x = (g + t(1)) * scale
        if not align_corners and g.dtype != np.float64:  # its compiler fuses the * and -:
            x = ((g + t(1)).astype(np.float64) * scale - 0.5).astype(g.dtype)  # rounded once
        elif not align_corners:
            x = x - t(0.5)
    return x, scale


def _reflect(x, size, align_corners):
    """``x`` reflected into the input, about its corner pixels' centres (``align_corners``)
    or their outer edges, as often as needed; and the sign each reflection gives ``dx``."""
    if align_corners and size <= 1:
        return np.zeros_like(x), np.zeros_like(x)
    t = x.dtype.type
    low = t(0) if align_corners else t(-0.5)
    twice_span = t(2 * (size - 1)) if align_corners else t(2 * size)
    shifted = x - low
    a = np.abs(shifted)
    extra = a - np.trunc(a / twice_span) * twice_span
    flip = extra > twice_span - extra
    sign = np.where(flip ^ (shifted < 0), t(-1), t(1))
    return np.where(flip, twice_span - extra, extra) + low, sign


def _clipped(x, size):
    """``x`` clipped to the input (NaN to 0, as PyTorch's vectorized kernel) and where it
    was inside: PyTorch counts the borders as outside, where the derivative is 0."""
    x = np.where(np.isnan(x), x.dtype.type(0), x)
    return np.clip(x, 0, size - 1), (x > 0) & (x < size - 1)


def _source(g, size, padding_mode, align_corners, volumetric):
    """The input position each grid coordinate ``g`` (values) reads, and its derivative."""
    x, scale = _unnormalize(g, size, align_corners, volumetric)
    slope = np.full_like(x, scale)
    if padding_mode == "zeros":
        return x, slope
    if padding_mode == "reflection":
        x, sign = _reflect(x, size, align_corners)
        slope = slope * sign
    x, inside = _clipped(x, size)
    return x, np.where(inside, slope, x.dtype.type(0))


def _position(coordinate, value, slope):
    """A tensor whose value is ``value`` exactly and whose derivative in ``coordinate`` is
    ``slope``: ``(coordinate - its value) * slope + value``, the first term 0 but for its
    gradient (0 where the coordinate is infinite or NaN)."""
    c = coordinate.value
    finite = np.isfinite(c)
    with np.errstate(invalid="ignore"):
        zero = ops.where(finite, coordinate - np.where(finite, c, 0), 0)
    return zero * slope + value


# -- reading the input at positions -----------------------------------------------------

def _gather(image, batch, index, sizes):
    """``image`` (N, *spatial, C) read at integer positions ``index`` (one array per spatial
    axis, NaN or out of the input giving 0): (N, *out, C)."""
    inside = np.ones(np.broadcast_shapes(*(i.shape for i in index)), bool)
    for i, n in zip(index, sizes):
        inside &= (i >= 0) & (i <= n - 1)
    safe = tuple(np.where(inside, i, 0).astype(np.intp) for i in index)
    out = ops.getitem(image, (batch,) + safe)
    return out if inside.all() else ops.where(inside[..., None], out, 0)


def _bilinear(image, batch, positions, sizes):
    """The 2**d neighbours of each position, weighted by the products of the distances to
    the opposite ones, summed in PyTorch's order (north-west, north-east, south-west, ...)."""
    lows = [np.floor(p.value) for p in positions]
    fractions = [p - low for p, low in zip(positions, lows)]
    total = None
    for corner in itertools.product((0, 1), repeat=len(positions)):
        weight = None
        for f, bit in zip(fractions, corner):
            w = f if bit else 1 - f
            weight = w if weight is None else weight * w
        value = _gather(image, batch, [low + bit for low, bit in zip(lows, corner)], sizes)
        term = value * ops.expand_dims(weight, -1)
        total = term if total is None else total + term
    return total


def _nearest(image, batch, positions, sizes):
    """Each position's nearest pixel, halves to even (PyTorch's ``nearbyint``); the grid's
    gradient is 0, as PyTorch's, joined by a ``where`` that never picks it."""
    out = _gather(image, batch, [np.rint(p.value) for p in positions], sizes)
    zero = ops.expand_dims(sum(positions[1:], positions[0]), -1)
    return ops.where(np.ones(out.shape, bool), out, zero)


def _cubic(t):
    """The four weights of cubic convolution (A = -0.75) at fraction ``t`` (a tensor)."""
    a = CUBIC_A

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _tap(i, size, padding_mode, align_corners):
    """Integer positions ``i`` (floats) moved into the input by ``padding_mode``, as PyTorch
    moves bicubic's sixteen taps (``zeros`` leaves them, to read 0 outside)."""
    if padding_mode == "reflection":
        i = np.rint(_reflect(i, size, align_corners)[0])
    return i if padding_mode == "zeros" else _clipped(i, size)[0]


def _bicubic(image, batch, positions, sizes, padding_mode, align_corners):
    """Cubic convolution over the 4 x 4 pixels around each position: each row's four along
    x, then the four rows along y, as PyTorch adds them."""
    (y, x), (h, w) = positions, sizes
    low_y, low_x = np.floor(y.value), np.floor(x.value)
    cy, cx = _cubic(y - low_y), _cubic(x - low_x)
    total = None
    for j in range(4):
        iy = _tap(low_y + (j - 1), h, padding_mode, align_corners)
        row = None
        for k in range(4):
            ix = _tap(low_x + (k - 1), w, padding_mode, align_corners)
            term = _gather(image, batch, [iy, ix], sizes) * ops.expand_dims(cx[k], -1)
            row = term if row is None else row + term
        term = row * ops.expand_dims(cy[j], -1)
        total = term if total is None else total + term
    return total


@composite("upstream added back at the pixels each output read, times their weights; to the grid, "
           "the weights' slopes times the pixels")
def _sample(input, grid, mode, padding_mode, align_corners):
    """``input`` (N, C, *spatial) read at ``grid`` (N, *out, d): (N, C, *out)."""
    d = input.ndim - 2
    sizes = input.shape[2:]
    positions = []
    for axis in range(d):  # grid's last axis holds x (the last spatial axis) first
        coordinate = ops.getitem(grid, (Ellipsis, d - 1 - axis))
        padding = "zeros" if mode == "bicubic" else padding_mode  # bicubic pads its taps
        with np.errstate(invalid="ignore"):
            value, slope = _source(coordinate.value, sizes[axis], padding, align_corners, d == 3)
        positions.append(_position(coordinate, value, slope))
    image = ops.moveaxis(input, 1, -1)
    batch = np.arange(input.shape[0]).reshape((-1,) + (1,) * d)
    with np.errstate(invalid="ignore"):  # infinite or NaN grids give NaN, quietly, as PyTorch's
        if mode == "bilinear":
            out = _bilinear(image, batch, positions, sizes)
        elif mode == "nearest":
            out = _nearest(image, batch, positions, sizes)
        else:
            out = _bicubic(image, batch, positions, sizes, padding_mode, align_corners)
    return ops.moveaxis(out, -1, 1)


def _sizes(t):
    return list(t.shape)


def _check_sample(input, grid, mode):
    """PyTorch's checks of ``grid_sampler``, in its order and words."""
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last dimension, but "
                           f"got grid with sizes {_sizes(grid)}")
    for i in range(2, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError("grid_sampler(): expected input to have non-empty spatial dimensions, but input "
                               f"has sizes {_sizes(input)} with dimension {i} being empty")
    rank = 4 if input.ndim == 4 else 5
    if input.ndim != rank or grid.ndim != rank:
        raise RuntimeError(f"grid_sampler(): expected {rank}D input and grid with same number of dimensions, but "
                           f"got input with sizes {_sizes(input)} and grid with sizes {_sizes(grid)}")
    if rank == 5 and mode == "bicubic":
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype.kind != "f":
        kernel = "grid_sampler_2d_cpu_kernel_impl" if rank == 4 else "grid_sampler3d_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(input.dtype)}\'')
    if grid.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {type_name(input.dtype)} but found {type_name(grid.dtype)}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """``input`` (N, C, H, W) or (N, C, D, H, W) sampled at ``grid``'s (N, H_out, W_out, 2) or
    (N, D_out, H_out, W_out, 3) normalized positions, ``x`` first, -1 and 1 the input's edges
    (or, ``align_corners``, its corner pixels' centres)."""
    if mode not in MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    _check_sample(input, grid, mode)
    out = _sample(input, grid, mode, padding_mode, align_corners)
    return named(out, f"GridSampler{input.ndim - 2}DBackward0")


# -- affine grids -----------------------------------------------------------------------

def _linspace(n, align_corners, dtype):
    """PyTorch's ``linspace_from_neg_one``: ``n`` points from -1 to 1 (from either end, as
    its kernel), scaled by ``(n - 1) / n`` unless ``align_corners``; ``[0]`` for one point."""
    t = dtype.type
    if n <= 1:
        return np.zeros(1, dtype)
    step = t(2) / t(n - 1)
    i = np.arange(n)
    points = np.where(i < n // 2, t(-1) + step * i.astype(dtype), t(1) - step * (n - 1 - i).astype(dtype))
    points = points.astype(dtype)
    return points if align_corners else (points * t(n - 1) / t(n)).astype(dtype)


def _base_grid(spatial, align_corners, dtype):
    """The output's normalized positions, ``(x, y[, z], 1)`` at each, flattened: (P, d + 1)."""
    axes = [_linspace(n, align_corners, dtype) for n in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # D, H, W order
    columns = [m.ravel() for m in reversed(mesh)] + [np.ones(mesh[0].size, dtype)]
    return np.stack(columns, axis=-1)


def _check_affine(theta, size, align_corners):
    """PyTorch's checks of ``affine_grid``, in its order and words: the spatial sizes."""
    if theta.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    d = len(size) - 2
    if theta.ndim != 3 or theta.shape[-2] != d or theta.shape[-1] != d + 1:
        raise ValueError(f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size {size}. "
                         f"Got {theta.shape}.")
    spatial = list(size)[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", UserWarning, stacklevel=user_stacklevel())
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {d + 1}] but got: [{theta.shape[0]}, {d + 1}].")
    return spatial


@composite("the output positions (x, y[, z], 1) times upstream, summed over the positions")
def _affine(theta, spatial, align_corners):
    base = _base_grid(spatial, align_corners, theta.value.dtype)
    grid = ops.matmul(base, ops.swapaxes(theta, 1, 2))  # (N, P, d): theta applied to each
    return ops.reshape(grid, (theta.shape[0],) + tuple(spatial) + (len(spatial),))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3)
    or (N, 3, 4): each output position's normalized ``(x, y[, z])`` mapped by its ``theta``,
    for ``grid_sample`` to read (a spatial transformer)."""
    align_corners = _align(align_corners)
    spatial = _check_affine(theta, size, align_corners)
    return named(_affine(theta, [int(n) for n in spatial], align_corners), "AffineGridGeneratorBackward0")


__all__ = ["affine_grid", "grid_sample"]
