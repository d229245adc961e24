"""Convolution made of the engine's ops, so it differentiates to any order: N-d, channels
first (``(n, c, *spatial)``), with zero padding given per side, stride, dilation and
groups; the transposed convolution; and the gradient of a convolution with respect to its
weight, as an op of its own.

A convolution is a sum over the kernel's offsets: for each offset, the strided window of
the padded input it meets, contracted with the weight at that offset over the input
channels (per group). A transposed convolution is the convolution whose input gradient it
is: the input spread out by the stride (zeros between), padded by ``dilation * (k - 1)``
less what is cropped on each side (a negative crop: more padding), convolved with the
weight flipped and its channel axes swapped.

The arguments are taken as valid: a dialect checks them first and says what is wrong in
its framework's words. Every size argument has one entry per spatial axis; ``padding``
and ``crop`` are ``(before, after)`` pairs.
"""

import itertools
import math

from . import contract, layout, ops

SPATIAL = "hwdtuv"  # the einsum letters of the spatial axes (the others: n g c o k)
LEAD = (slice(None), slice(None))  # the batch and channel axes, whole


def output_size(size, kernel, stride, dilation, padding):
    """Along each spatial axis of ``size``, how many windows a convolution (or a pool)
    takes: ``(size + before + after - dilation (kernel - 1) - 1) // stride + 1``, at least
    0."""
    return tuple(max(0, (n + a + b - d * (k - 1) - 1) // s + 1)
                 for n, k, s, d, (a, b) in zip(size, kernel, stride, dilation, padding))


def padded(x, padding):
    """``x`` with ``padding`` zeros on each side of each spatial axis."""
    if any(a for pair in padding for a in pair):
        return layout.pad(x, ((0, 0), (0, 0)) + tuple(tuple(pair) for pair in padding))
    return x


def windows(x, kernel, stride, dilation, out):
    """For each kernel offset (row-major), the strided slice of ``x`` (``(n, c,
    *spatial)``) it meets: ``out`` positions along each axis."""
    def axis(i, s, d, o):
        return slice(i * d, i * d + s * (o - 1) + 1 if o > 0 else i * d, s)
    return [ops.getitem(x, LEAD + tuple(axis(i, s, d, o) for i, s, d, o in zip(offset, stride, dilation, out)))
            for offset in itertools.product(*(range(k) for k in kernel))]


def patches(x, kernel, stride, dilation, out, groups):
    """``windows`` stacked, as ``(n, groups, c / groups, *out, prod(kernel))``."""
    n, c = x.shape[:2]
    stacked = ops.stack(windows(x, kernel, stride, dilation, out), axis=-1)
    return ops.reshape(stacked, (n, groups, c // groups) + tuple(out) + (math.prod(kernel),))


def convolve(x, weight, stride, padding, dilation, groups=1, bias=None):
    """``out[n, o, p] = bias[o] + sum over c, q of weight[o, c, q] * xp[n, c, stride p +
    dilation q]``, ``xp`` the input padded with zeros, its channels in ``groups`` (the
    weight's ``c`` runs over one group's): ``x`` is ``(n, c, *spatial)``, ``weight`` ``(o,
    c / groups, *kernel)``."""
    dims = weight.ndim - 2
    kernel = tuple(weight.shape[2:])
    x = padded(x, padding)
    out = output_size(x.shape[2:], kernel, stride, dilation, ((0, 0),) * dims)
    n = x.shape[0]
    o, cg = weight.shape[:2]
    sp = SPATIAL[:dims]
    k = ops.reshape(weight, (groups, o // groups, cg, math.prod(kernel)))
    y = contract.einsum(f"ngc{sp}k,gock->ngo{sp}", patches(x, kernel, stride, dilation, out, groups), k)
    y = ops.reshape(y, (n, o) + out)
    if bias is not None:
        y = y + ops.reshape(bias, (1, o) + (1,) * dims)
    return y


def transposed_size(size, kernel, stride, dilation, crop):
    """Along each spatial axis, the size of ``convolve_transpose``'s output:
    ``(size - 1) stride + dilation (kernel - 1) + 1 - before - after``."""
    return tuple((n - 1) * s + d * (k - 1) + 1 - a - b
                 for n, k, s, d, (a, b) in zip(size, kernel, stride, dilation, crop))


def convolve_transpose(x, weight, stride, crop, dilation, groups=1, bias=None):
    """The gradient of ``convolve`` with respect to its input, as an op: ``x`` is ``(n,
    c_in, *spatial)``, ``weight`` ``(c_in, o / groups, *kernel)``, ``crop`` what is taken
    off each side of the full output (``transposed_size``; an ``after`` below 0 adds as
    many places at the end, which a convolution's window never reached)."""
    dims = weight.ndim - 2
    kernel = tuple(weight.shape[2:])
    n, c = x.shape[:2]
    if any(s != 1 for s in stride):  # the input spread out by the stride, zeros between
        spread = (n, c) + tuple((m - 1) * s + 1 for m, s in zip(x.shape[2:], stride))
        x = ops.scatter_add(x, spread, LEAD + tuple(slice(None, None, s) for s in stride))
    # each side: widened by dilation * (k - 1) less its crop, cropped where that is negative
    edges = [(d * (k - 1) - a, d * (k - 1) - b) for d, k, (a, b) in zip(dilation, kernel, crop)]
    if any(a < 0 or b < 0 for a, b in edges):
        x = ops.getitem(x, LEAD + tuple(slice(-a if a < 0 else None, b if b < 0 else None) for a, b in edges))
    x = padded(x, [(max(a, 0), max(b, 0)) for a, b in edges])
    # per group: (in / g, out / g, *k) -> (out / g, in / g, *k), flipped; groups stacked
    ci, og = weight.shape[:2]
    flipped = ops.flip(ops.reshape(weight, (groups, ci // groups, og) + kernel), tuple(range(3, 3 + dims)))
    w = ops.reshape(ops.swapaxes(flipped, 1, 2), (groups * og, ci // groups) + kernel)
    return convolve(x, w, (1,) * dims, ((0, 0),) * dims, dilation, groups, bias)


def weight_gradient(x, grad, kernel, stride, padding, dilation, groups=1):
    """The gradient of ``sum(convolve(x, w, ...) * grad)`` with respect to a weight ``w``
    of spatial size ``kernel``: the input's windows contracted with ``grad`` over the
    batch and the output positions, ``(o, c / groups, *kernel)``."""
    dims = len(kernel)
    x = padded(x, padding)
    n, c = x.shape[:2]
    o, out = grad.shape[1], tuple(grad.shape[2:])
    sp = SPATIAL[:dims]
    g = ops.reshape(grad, (n, groups, o // groups) + out)
    w = contract.einsum(f"ngc{sp}k,ngo{sp}->gock", patches(x, kernel, stride, dilation, out, groups), g)
    return ops.reshape(w, (o, c // groups) + tuple(kernel))
