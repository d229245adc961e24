"""``jax.lax``'s convolutions and windowed reductions: ``conv_general_dilated`` (with
``conv``, ``conv_with_general_padding``, ``conv_transpose``, ``conv_dimension_numbers`` and
``ConvDimensionNumbers``) on the engine's convolution (``core.convolution``), and
``reduce_window`` of ``max``, ``min`` and ``add`` (what Flax's ``max_pool`` and
``avg_pool`` are made of), so they differentiate to any order.

What is JAX's is here: dimension numbers (``None``: NCHW / OIHW; a ``ConvDimensionNumbers``;
strings such as ``("NHWC", "HWIO", "NHWC")``, whose spatial axes follow the kernel's order),
padding ``"SAME"`` / ``"SAME_LOWER"`` / ``"VALID"`` or ``(low, high)`` pairs (negative: cut
off), ``lhs_dilation`` (the input spread out with zeros between, which ``conv_transpose``
is made of), JAX's shape and dtype checks in its words.

``reduce_window`` reduces each window of the operand padded (and, with ``base_dilation``,
spread out) by ``init_value``'s kind's identity, and folds ``init_value`` into each window
where it is not that identity. A max's gradient goes to one element of each window, chosen
as JAX on a CPU chooses it: the padding (and the holes of ``base_dilation``) count as
``-inf`` elements, and the window is walked in order, the element kept until one comes
that it is not ``>=`` of: the first maximum, which may be padding (then no element gets the
gradient), and after a NaN the element after it. ``min`` is the same with ``<=``.
"""

from __future__ import annotations

import math
import operator
from typing import NamedTuple

import numpy as np

from .._backend import to_host
from ..core import convolution as engine
from ..core import ops
from ..core.tensor import raw
from .array import asarray
from .numpy import NAMESPACE as jnp
from .primitives import FUNCTIONS

LEAD = (slice(None), slice(None))  # the batch and channel axes, whole


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions are: ``lhs_spec`` ``(batch,
    feature, *spatial)``, ``rhs_spec`` ``(out feature, in feature, *spatial)``, ``out_spec``
    ``(batch, feature, *spatial)``, each a tuple of axis numbers."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_general_permutations(dimension_numbers):
    """The axis numbers of three spec strings, as ``ConvDimensionNumbers`` holds them
    (spatial axes in the order the kernel's string names them)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = ("N", "C"), ("O", "I"), ("N", "C")
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                            f"'{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got "
                            f"{dimension_numbers[i]}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}):
        raise TypeError(f"convolution dimension_numbers elements must each have the same set of spatial "
                        f"characters, got {tuple(dimension_numbers)}.")

    def perm(spec, pair):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(perm(spec, pair) for spec, pair in zip(dimension_numbers, charpairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """``dimension_numbers`` (``None``, strings or a ``ConvDimensionNumbers``) as a
    ``ConvDimensionNumbers``."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and "
                        f"{len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(f"convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs "
                            f"and rhs, got {len(s)} for lhs and rhs shapes {tuple(lhs_shape)} and "
                            f"{tuple(rhs_shape)}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def dilate_dim(size, dilation):
    """The size of ``size`` places with ``dilation - 1`` holes between neighbours."""
    return 0 if size == 0 else 1 + dilation * (size - 1)


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """``"SAME"`` (``ceil(size / stride)`` outputs, the odd pad at the end),
    ``"SAME_LOWER"`` (at the start) or ``"VALID"`` as ``(low, high)`` pairs."""
    kind = padding.upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError(f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got "
                           f"{padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads.append((total // 2, total - total // 2) if kind == "SAME" else (total - total // 2, total // 2))
    return pads


def _same_dtypes(name, *arrays):
    if len({a.dtype for a in arrays}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(str(a.dtype) for a in arrays)}.")


def _checked_shapes(lhs, rhs, dnums, strides, groups, batch_groups):
    """JAX's shape rule, in its order and words."""
    name = "conv_general_dilated"
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"{name} lhs and rhs must have the same number of dimensions, but got "
                         f"{tuple(lhs.shape)} and {tuple(rhs.shape)}.")
    if not groups > 0:
        raise ValueError(f"{name} feature_group_count must be a positive integer, got {groups}.")
    features = lhs.shape[dnums.lhs_spec[1]]
    rhs_in, rhs_out = rhs.shape[dnums.rhs_spec[1]], rhs.shape[dnums.rhs_spec[0]]
    if features % groups:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension size, but "
                         f"{groups} does not divide {features}.")
    if features // groups != rhs_in:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count must equal "
                         f"the rhs input feature dimension size, but {features} // {groups} != {rhs_in}.")
    if rhs_out % groups:
        raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                         f"feature_group_count, but {rhs_out} is not a multiple of {groups}.")
    if not batch_groups > 0:
        raise ValueError(f"{name} batch_group_count must be a positive integer, got {batch_groups}.")
    if batch_groups != 1:
        raise NotImplementedError(f"gradmagic.jax.lax.conv_general_dilated takes batch_group_count=1 only "
                                  f"(got {batch_groups}): the grouped batch is not mapped (a weight "
                                  "gradient's form of the convolution); write it as feature groups")
    if len(dnums.rhs_spec) - 2 != len(strides):
        raise ValueError(f"{name} window and window_strides must have the same number of dimensions, but "
                         f"got {len(dnums.rhs_spec) - 2} and {len(strides)}")
    if any(s < 1 for s in strides):
        raise ValueError(f"{name} window_strides must be positive, got {tuple(strides)}.")


def _positive(dilation):
    if not all(d > 0 for d in dilation):
        raise TypeError(f"All dilations must be positive, got {tuple(dilation)}.")


def _spread(x, dilation):
    """``x`` (``(n, c, *spatial)``) with ``dilation - 1`` zeros between neighbours along
    each spatial axis."""
    if all(d == 1 for d in dilation) or 0 in x.shape[2:]:
        return x
    shape = tuple(x.shape[:2]) + tuple(dilate_dim(n, d) for n, d in zip(x.shape[2:], dilation))
    return ops.scatter_add(x, shape, LEAD + tuple(slice(None, None, d) for d in dilation))


def _cut_and_padded(x, padding):
    """``x`` with ``padding`` on each side of each spatial axis: zeros, or a negative
    amount cut off."""
    if any(a < 0 or b < 0 for a, b in padding):
        x = ops.getitem(x, LEAD + tuple(slice(max(-a, 0), n - max(-b, 0))
                                        for (a, b), n in zip(padding, x.shape[2:])))
    return engine.padded(x, [(max(a, 0), max(b, 0)) for a, b in padding])


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1,
                         precision=None, preferred_element_type=None, out_sharding=None):
    """The N-d convolution of ``lhs`` with the kernel ``rhs``, as XLA's ``Conv``: the input
    spread by ``lhs_dilation``, padded, and windows ``window_strides`` apart of the kernel
    dilated by ``rhs_dilation``, its features in ``feature_group_count`` groups."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    dnums = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    dims = lhs.ndim - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * dims
    elif isinstance(padding, str) and not all(d == 1 for d in lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using this op. "
                         "Please either exactly specify the required padding or use conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * dims
    strides = tuple(int(s) for s in window_strides)
    _checked_shapes(lhs, rhs, dnums, strides, feature_group_count, batch_group_count)
    kernel = tuple(rhs.shape[i] for i in dnums.rhs_spec[2:])
    size = tuple(lhs.shape[i] for i in dnums.lhs_spec[2:])
    if isinstance(padding, str):
        padding = padtype_to_pads(size, [dilate_dim(k, r) for k, r in zip(kernel, rhs_dilation)],
                                  strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a string or a sequence "
                             f"of (low, high) pairs, got {padding}") from e
    padding = tuple(tuple(p) for p in padding)
    _positive(lhs_dilation)
    _positive(rhs_dilation)
    if len(padding) != dims:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {dims}, got {len(padding)}.")
    spread = [dilate_dim(n, d) for n, d in zip(size, lhs_dilation)]
    if any(n + a + b < 0 for n, (a, b) in zip(spread, padding)):
        raise ValueError(f"Negative padding is larger than the size of the corresponding dimension: got "
                         f"padding={padding} for lhs_shape[2:]={tuple(np.int64(n) for n in spread)}")
    _same_dtypes("conv_general_dilated", lhs, rhs)
    x = ops.transpose(lhs, tuple(dnums.lhs_spec))  # (n, c, *spatial)
    w = ops.transpose(rhs, tuple(dnums.rhs_spec))  # (o, c / groups, *kernel)
    x = _cut_and_padded(_spread(x, lhs_dilation), padding)
    y = engine.convolve(x, w, strides, ((0, 0),) * dims, tuple(rhs_dilation), feature_group_count)
    y = ops.transpose(y, tuple(int(i) for i in np.argsort(dnums.out_spec)))
    return y if preferred_element_type is None else asarray(y, preferred_element_type)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """``conv_general_dilated`` with NCHW / OIHW dimensions and no dilation."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """``conv_general_dilated`` with NCHW / OIHW dimensions."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _transpose_padding(k, s, padding):
    """JAX's ``(before, after)`` padding of a transposed convolution along one axis, for
    a kernel of (dilated) size ``k``, stride ``s`` and the forward convolution's padding."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else int(np.ceil(pad_len / 2))
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


DEFAULT_TRANSPOSE = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"),
                     5: ("NHWDC", "HWDIO", "NHWDC")}


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """The convolution "transpose", fractionally strided: the input spread by ``strides``
    (``lhs_dilation``), convolved with stride 1. Dimensions default to TensorFlow's (NHWC,
    HWIO); ``transpose_kernel`` flips the kernel's spatial axes and swaps its features, which
    makes it the gradient of the forward convolution (Keras's ``Conv2DTranspose``)."""
    lhs, rhs = asarray(lhs), asarray(rhs)
    ndims = lhs.ndim
    if dimension_numbers is None:
        if ndims not in DEFAULT_TRANSPOSE:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = DEFAULT_TRANSPOSE[ndims]
    dn = conv_dimension_numbers(lhs.shape, rhs.shape, dimension_numbers)
    k_sdims = [rhs.shape[i] for i in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (rhs.ndim - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in ("SAME", "VALID")):
        replicated = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_transpose_padding(dilate_dim(k, r), s, p if isinstance(p, str) else tuple(p))
                     for k, r, s, p in zip(k_sdims, rhs_dilation, strides, replicated))
    else:
        pads = padding
    if transpose_kernel:
        rhs = ops.flip(rhs, tuple(dn.rhs_spec[2:]))
        rhs = ops.swapaxes(rhs, dn.rhs_spec[0], dn.rhs_spec[1])
    return conv_general_dilated(lhs, rhs, (1,) * (ndims - 2), pads, strides, rhs_dilation, dn,
                                precision=precision, preferred_element_type=preferred_element_type)


# -- reduce_window ---------------------------------------------------------------------------------
def _kind(computation):
    """``"max"``, ``"min"`` or ``"add"`` for the computations taken, and whether JAX's
    own windowed reduction (``lax``'s, not ``jnp``'s) runs it."""
    for kind, lax_fn, jnp_name in (("max", "max", "maximum"), ("min", "min", "minimum"), ("add", "add", "add")):
        if computation is FUNCTIONS[lax_fn]:
            return kind, True
        if computation is getattr(jnp, jnp_name):
            return kind, False
    raise NotImplementedError(f"gradmagic.jax.lax.reduce_window takes the computations lax.max, lax.min, "
                              f"lax.add, jnp.maximum, jnp.minimum and jnp.add (max and average pooling), "
                              f"got {getattr(computation, '__name__', computation)!r}")


def identity(kind, dtype):
    """The value that changes no ``kind`` reduction of ``dtype``."""
    dtype = np.dtype(dtype)
    if kind == "add":
        return np.zeros((), dtype)[()]
    if dtype.kind == "b":
        return np.bool_(kind == "min")
    if dtype.kind == "f":
        return dtype.type(-np.inf if kind == "max" else np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.min if kind == "max" else info.max)


def _shapelike(arg_name, obj, positive):
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"reduce_window {arg_name} must be of type tuple/list/ndarray, got {type(obj)}.")
    if any(d < (1 if positive else 0) for d in obj):
        raise TypeError(f"reduce_window {arg_name} must have every element be "
                        f"{'strictly positive' if positive else 'nonnegative'}, got {obj}.")


def _window_args(x, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    """The window's arguments, checked as JAX checks them: ``(window, strides, pads, base,
    dilation)``, one entry per axis."""
    n = len(window_dimensions)
    strides = (1,) * n if window_strides is None else window_strides
    base = (1,) * n if base_dilation is None else base_dilation
    dilation = (1,) * n if window_dilation is None else window_dilation
    if isinstance(padding, str):
        span = [dilate_dim(k, d) for k, d in zip(window_dimensions, dilation)]
        pads = padtype_to_pads(x.shape, span, strides, padding)
    else:
        pads = [tuple(int(v) for v in p) for p in padding]
    _shapelike("window_dimensions", window_dimensions, True)
    _shapelike("window_strides", strides, True)
    _shapelike("base_dilation", base, False)
    _shapelike("window_dilation", dilation, False)
    if x.ndim != n:
        raise TypeError(f"reduce_window got the wrong number of window_dimensions for operand: got operand "
                        f"shape {tuple(x.shape)} with window_dimensions {window_dimensions}.")
    for name, value in (("window_strides", strides), ("base_dilation", base), ("window_dilation", dilation)):
        if len(value) != n:
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got {name} "
                            f"{value} and window_dimensions {window_dimensions}.")
    if len(pads) != n:
        raise ValueError(f"safe_zip() argument 1 has length {len(pads)} but argument 0 has length {n}. "
                         f"All lengths: ({n}, {len(pads)})")
    _positive(base)
    _positive(dilation)
    return (tuple(int(k) for k in window_dimensions), tuple(int(s) for s in strides), pads,
            tuple(int(b) for b in base), tuple(int(d) for d in dilation))


def _places(size, window, stride, pad, base, dilation):
    """Along one axis: for each output position and window offset, ``(out, window)``, the
    input's element it meets (-1: the padding or a hole of the spread input)."""
    full = dilate_dim(size, base) + pad[0] + pad[1]
    out = max((full - dilate_dim(window, dilation)) // stride + 1, 0)
    spread = np.arange(out)[:, None] * stride + np.arange(window)[None, :] * dilation - pad[0]
    return np.where((spread >= 0) & (spread % base == 0) & (spread < dilate_dim(size, base)),
                    spread // base, -1)


def _flat(per_axis, steps):
    """The per-axis tables of ``_places`` as one flat index, ``(*out, prod(window))``,
    ``-1`` wherever one axis is outside the input."""
    dims = len(per_axis)
    flat, outside = np.zeros((), np.int64), np.zeros((), bool)
    for i, (table, step) in enumerate(zip(per_axis, steps)):
        shape = [1] * (2 * dims)
        shape[i], shape[dims + i] = table.shape
        flat = flat + table.reshape(shape) * step
        outside = outside | (table.reshape(shape) < 0)
    flat, outside = np.broadcast_arrays(flat, outside)
    return np.where(outside, -1, flat).reshape(flat.shape[:dims] + (math.prod(flat.shape[dims:]),))


def picked(values, element):
    """For each window of raw ``values`` (``(*out, window)``, in the window's order) the
    place JAX's max chooses: walking the window, the element is kept until one comes that
    it is not ``>=`` of; ``element`` (the input's flat index at each place, -1 for padding)
    at that place."""
    with np.errstate(invalid="ignore"):
        nan = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
        k = values.shape[-1]
        last = np.where(nan.any(-1), k - 1 - np.argmax(nan[..., ::-1], axis=-1), -1)
        after = np.arange(k) > last[..., None]  # past the last NaN: a first maximum among those
        top = np.max(np.where(after, values, identity("max", values.dtype)), axis=-1, initial=identity(
            "max", values.dtype))
        first = np.argmax(after & (values == top[..., None]), axis=-1)
        place = np.where(last == k - 1, k - 1, first)
    return np.take_along_axis(element, place[..., None], -1)[..., 0]


def _chosen(x, kind, window, strides, pads, base, dilation):
    """Each window's maximum (``kind`` "min": minimum) of ``x``, gathered where JAX's
    gradient goes (``picked``), NaN where the window holds one."""
    steps = [math.prod(x.shape[i + 1:]) for i in range(x.ndim)]
    tables = [_places(*args) for args in zip(x.shape, window, strides, pads, base, dilation)]
    out = tuple(t.shape[0] for t in tables)
    if 0 in out:
        return asarray(np.zeros(out, x.dtype))
    element = _flat(tables, steps)  # (*out, window): the input's flat index, or -1
    host = np.asarray(to_host(raw(x))).reshape(-1)
    fill = identity(kind, x.dtype)
    values = np.where(element >= 0, host[np.maximum(element, 0)], fill)
    if kind == "min":  # the order reversed: a min is a max of these
        order = -values if values.dtype.kind == "f" else ~values
    chosen = picked(values if kind == "max" else order, element)
    n = host.size
    ext = ops.concatenate([ops.reshape(x, (n,)), asarray(np.full((1,), fill, x.dtype))])
    y = ops.getitem(ext, np.where(chosen >= 0, chosen, n).reshape(out))
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            nan = np.isnan(values).any(-1).reshape(out)
        if nan.any():
            y = y + asarray(np.where(nan, np.nan, 0).astype(x.dtype))
    return y


def _window_sum(x, window, strides, pads, base, dilation):
    """Each window's sum: the engine's windows of ``x`` spread out and padded with
    zeros."""
    dims = x.ndim
    t = _cut_and_padded(_spread(ops.reshape(x, (1, 1) + tuple(x.shape)), base), pads)
    out = engine.output_size(t.shape[2:], window, strides, dilation, ((0, 0),) * dims)
    if 0 in out:
        return asarray(np.zeros(out, x.dtype))
    parts = engine.windows(t, window, strides, dilation, out)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return ops.reshape(total, out)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Each window's reduction by ``computation`` (max, min or add), ``init_value`` folded
    in; see the module for where a max's gradient goes."""
    if isinstance(operand, (list, tuple, dict)):
        raise NotImplementedError("gradmagic.jax.lax.reduce_window takes one array operand (with one "
                                  "scalar init_value), not a pytree of them")
    x = asarray(operand)
    kind, monoid = _kind(computation)
    init = asarray(init_value)  # (its value only: no gradient flows to the init)
    if init.ndim:
        raise TypeError(f"reduce_window expected init_values to be scalars but init_values have shapes "
                        f"[{tuple(init.shape)}].")
    start = np.asarray(init.numpy()).item()
    folded = not (start == identity(kind, init.dtype))  # (NaN: folded too)
    if (folded or not monoid) and init.dtype != x.dtype:
        raise TypeError(f"reduce_window got inconsistent dtypes for operands and init_values: got operand "
                        f"dtypes [{np.dtype(x.dtype)!r}] and init_value dtypes [{np.dtype(init.dtype)!r}].")
    args = _window_args(x, window_dimensions, window_strides, padding, base_dilation, window_dilation)
    if kind == "add":
        y = _window_sum(x, *args)
        return y + asarray(np.asarray(start, x.dtype)) if folded else y
    y = _chosen(x, kind, *args)
    if folded:  # the init wins ties (it comes first), a NaN wins over it
        value, c = np.asarray(to_host(raw(y))), np.asarray(start, x.dtype)
        with np.errstate(invalid="ignore"):
            keep = (value > c if kind == "max" else value < c) | (value != value)
        y = ops.where(keep, y, asarray(np.broadcast_to(c, value.shape)))
    return y


__all__ = ["ConvDimensionNumbers", "conv_general_dilated", "conv", "conv_with_general_padding",
           "conv_transpose", "conv_dimension_numbers", "padtype_to_pads", "reduce_window"]
