"""Dropout, ``torch.nn.functional``'s: ``dropout`` (each element), ``dropout1d``/``2d``/``3d``
(whole channels) and ``alpha_dropout``/``feature_alpha_dropout`` (SELU's, which keep the mean
and variance), as PyTorch 2.13.0's: its checks, warnings, scaling and ``grad_fn`` names. The
mask is drawn from gradmagic's default generator (NumPy's, seeded by ``torch.manual_seed``), so
it differs from PyTorch's; it is a constant to the gradient. ``gumbel_softmax`` draws its
noise from it too.
"""

import warnings

import numpy as np

from ...tracebacks import user_stacklevel
from ..graph import as_tensor_of
from ..values import DEFAULT_GENERATOR, named

SELU_ALPHA_PRIME = 1.7580993408473766  # PyTorch's alpha: -SELU's scale times its alpha


def _check(p):
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _noise(input, p, shape, alpha):
    """PyTorch's ``_dropout_impl``'s factor and, for alpha dropout, shift (else ``None``):
    one draw per element of ``shape``, broadcast over the rest."""
    dtype = input.value.dtype
    if p == 1:
        return dtype.type(0), None
    keep = (DEFAULT_GENERATOR.rng.random(shape) >= p).astype(dtype)
    if not alpha:
        return (keep / (1 - p)).astype(dtype), None
    a = 1 / ((SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p)) ** 0.5
    shift = (keep - 1) * (SELU_ALPHA_PRIME * a) + SELU_ALPHA_PRIME * a * p
    return (keep * a).astype(dtype), shift.astype(dtype)


def _dropout(input, p, training, inplace, feature, alpha=False, unbatched=False):
    """``input`` times dropout's noise (``feature``: one draw per (N, C) channel, per C one of
    an ``unbatched`` input), plus its shift for alpha dropout."""
    _check(p)
    if p == 0 or not training or input.numel() == 0:
        return input
    shape = input.value.shape
    if feature and p < 1:
        lead = 1 if unbatched else 2
        if input.ndim < lead:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = shape[:lead] + (1,) * (input.ndim - lead)
    factor, shift = _noise(input, p, shape, alpha)
    factor = as_tensor_of(factor, input)
    out = input.mul_(factor) if inplace else named(input * factor, "MulBackward0")
    return out if shift is None else out.add_(as_tensor_of(shift, input))


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, each element zeroed with probability ``p`` and the rest scaled by
    ``1 / (1 - p)``; otherwise ``input`` as it is."""
    return _dropout(input, p, training, inplace, feature=False)


def _unbatched(input, p, training, inplace):
    """Channel dropout of an input without its batch axis (PyTorch gives it one, and takes
    it away after: its ``grad_fn`` is a squeeze's)."""
    out = _dropout(input, p, training, inplace, feature=True, unbatched=True)
    return out if out is input else named(out, "SqueezeBackward4" if inplace else "SqueezeBackward1")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Whole channels of (N, C, L) or (C, L) zeroed with probability ``p``, the rest scaled by
    ``1 / (1 - p)``."""
    _check(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that dropout1d "
            "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, "
            "and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 2:
        return _unbatched(input, p, training, inplace)
    return _dropout(input, p, training, inplace, feature=True)


def _rank_warning(fn, ndim, spatial):
    warnings.warn(
        f"{fn}: Received a {ndim}-D input to {fn}, which is deprecated and will result in an error in a "
        f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
        f"that {fn} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
        f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=user_stacklevel())


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Whole channels of (N, C, H, W) zeroed with probability ``p``, the rest scaled by
    ``1 / (1 - p)``; a 3-d input is taken as (N, C, L), with PyTorch's warning."""
    _check(p)
    if input.ndim not in (3, 4):
        _rank_warning("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", stacklevel=user_stacklevel())
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Whole channels of (N, C, D, H, W) or (C, D, H, W) zeroed with probability ``p``, the
    rest scaled by ``1 / (1 - p)``."""
    _check(p)
    if input.ndim not in (4, 5):
        _rank_warning("dropout3d", input.ndim, 3)
    if input.ndim != 5:
        return _unbatched(input, p, training, inplace)
    return _dropout(input, p, training, inplace, feature=True)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """SELU's dropout: each element dropped to SELU's negative saturation, then all scaled
    and shifted so that the mean and variance stay (``training=False`` by default)."""
    return _dropout(input, p, training, inplace, feature=False, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole (N, C) channels."""
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax distribution, by PyTorch's algorithm: ``softmax((logits
    + g) / tau, dim)`` with ``g = -log(e)``, ``e`` drawn from Exp(1) (by the default generator:
    other numbers than PyTorch's); ``hard=True`` gives the one-hot of its largest element along
    ``dim``, with the gradient of the soft sample (``y_hard - y_soft.detach() + y_soft``)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=user_stacklevel())
    value = logits.value
    with np.errstate(divide="ignore"):
        noise = -np.log(DEFAULT_GENERATOR.rng.exponential(1.0, value.shape)).astype(value.dtype)
    y_soft = ((logits + as_tensor_of(noise, logits)) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
