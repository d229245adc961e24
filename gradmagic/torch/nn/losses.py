"""``torch.nn.functional``'s further losses (``kl_div``, ``poisson_nll_loss``,
``gaussian_nll_loss``, the margin and embedding losses, ``multilabel_soft_margin_loss``,
``multi_margin_loss``) and distances (``pairwise_distance``, ``pdist``), made of the
engine's ops as PyTorch composes them, so the gradients at their kinks are PyTorch's
(a ``clamp_min(z, 0)`` passes the gradient at ``z = 0``; ``multi_margin_loss`` does not).
"""

from __future__ import annotations

import warnings

import numpy as np

from ...core import ops, special, statistics
from ...core.primitive import Primitive, apply, composite, defvjp
from ...tracebacks import user_stacklevel
from ..modes import is_grad_enabled
from ..subgradients import vector_norm
from ..values import named


def reduced(loss, reduction, invalid="{} is not a valid value for reduction"):
    """``loss`` reduced as ``reduction`` says: ``"mean"``, ``"sum"`` or ``"none"``."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(invalid.format(reduction))


def valid(reduction, invalid="{} is not a valid value for reduction"):
    """Refuse an unknown ``reduction`` before anything else is checked, as PyTorch does."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(invalid.format(reduction))


def clamp_min(z, low=0.0):
    """``max(z, low)``, the gradient passing where ``z == low`` (PyTorch's ``clamp_min``)."""
    return ops.where(z < low, low, z)


def broadcastable(a, b):
    """Refuse ``a`` and ``b`` that do not broadcast together, in PyTorch's words."""
    a, b = tuple(a.shape), tuple(b.shape)
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    for k in reversed(range(n)):
        if a[k] != b[k] and 1 not in (a[k], b[k]):
            raise RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) "
                               f"at non-singleton dimension {k}")


def _raw(t):
    return np.asarray(t.numpy(force=True)) if hasattr(t, "numpy") else np.asarray(t)


@composite("d loss / d input")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target (log(target) - input)`` (``log_target``: ``exp(target) (target - input)``),
    ``batchmean``: summed over the batch's size; ``mean`` warns as PyTorch's does."""
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support "
                      "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
                      "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
                      "major release.", UserWarning, stacklevel=user_stacklevel())
    if reduction != "batchmean":
        valid(reduction)
    broadcastable(target, input)
    if log_target:
        loss = ops.exp(target) * (target - input)
    else:
        loss = special.xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return named(total / input.shape[0], "DivBackward0") if input.ndim else total
    return reduced(loss, reduction)


@composite("d loss / d input")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """``exp(input) - target input`` (``log_input``), or ``input - target log(input + eps)``;
    ``full``: with Stirling's ``t log t - t + log(2 pi t) / 2`` where ``t > 1``."""
    valid(reduction)
    if log_input:
        loss = ops.exp(input) - target * input
    else:
        loss = input - target * ops.log(input + eps)
    if full:
        big = _raw(target) > 1
        t = ops.where(big, target, 2.0)  # (no log(0) in the branch not taken: no NaN gradient)
        stirling = t * ops.log(t) - t + 0.5 * ops.log(2 * np.pi * t)
        loss = named(loss + ops.where(big, stirling, 0.0), "AddBackward0")
    return reduced(loss, reduction)


@composite("d loss / d input")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """``(log(var) + (input - target)^2 / var) / 2`` (``full``: plus ``log(2 pi) / 2``),
    ``var`` raised to ``eps`` where smaller, that step without a gradient of its own (as
    PyTorch's ``clamp_`` under no_grad: the gradient flows as if it were not there)."""
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ops.zeros_like(input) + float(var)
    elif np.any(_raw(var) < 0):
        raise ValueError("var has negative entry/entries")
    a, v = tuple(input.shape), tuple(var.shape)
    if v != a:
        if a[:-1] == v:
            var = ops.expand_dims(var, -1)
        elif not (len(a) == len(v) and sum(y for x, y in zip(a, v) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    valid(reduction, "{} is not valid")
    var = var + ops.stop_gradient(ops.maximum(var, eps) - var)
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss = named(loss + 0.5 * np.log(2 * np.pi), "AddBackward0")
    return reduced(loss, reduction)


@composite("d loss / d input")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target (input1 - input2) + margin)``."""
    valid(reduction)
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got "
                           f"sizes: input1: torch.Size({list(input1.shape)}), input2: "
                           f"torch.Size({list(input2.shape)}), target: torch.Size({list(target.shape)}) ")
    loss = named(clamp_min(-target * (input1 - input2) + margin), "ClampMinBackward0")
    return reduced(loss, reduction)


@composite("d loss / d input")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1."""
    valid(reduction)
    t = _raw(target)
    loss = ops.where(t != 1, clamp_min(margin - input), 0.0) + ops.where(t != -1, input, 0.0)
    return reduced(named(loss, "AddBackward0"), reduction)


@composite("d loss / d input")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target input))``."""
    valid(reduction)
    broadcastable(input, target)
    return named(reduced(ops.softplus(-target * input), reduction), "SoftMarginLossBackward0")


@composite("d loss / d input")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it
    is -1 (the squared norms each raised by 1e-12, as PyTorch's)."""
    valid(reduction)
    dim = target.ndim
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if dim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{dim}D target tensor expects {want}D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    broadcastable(input1, input2)
    eps = 1e-12
    prod = (input1 * input2).sum(dim)
    square1, square2 = (input1 * input1).sum(dim) + eps, (input2 * input2).sum(dim) + eps
    cos = prod / ops.sqrt(square1 * square2)
    t = _raw(target)
    loss = ops.where(t == 1, 1 - cos, 0.0) + ops.where(t == -1, clamp_min(cos - margin), 0.0)
    return reduced(named(loss, "AddBackward0"), reduction)


@composite("d loss / d input")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` along the last axis (of the two broadcast together)."""
    broadcastable(x1, x2)
    dim = max(x1.ndim, x2.ndim) - 1
    return named(vector_norm(x1 - x2 + eps, p, dim, keepdim=keepdim), "NormBackward1")


@composite("d loss / d input")
def pdist(input, p=2):
    """The p-norm distances between the rows of ``input`` (N, M), each pair ``i < j`` once,
    in row order (its gradient 0 where two rows are equal, as PyTorch's)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    diff = ops.getitem(input, i) - ops.getitem(input, j)
    return named(vector_norm(diff, p, -1), "PdistBackward0")


@composite("d loss / d input")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))``, ``d`` the
    ``pairwise_distance``; ``swap``: ``d(anchor, negative)`` lowered to
    ``d(positive, negative)`` where that is smaller."""
    valid(reduction)
    dims = (anchor.ndim, positive.ndim, negative.ndim)
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same "
                           f"number of dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and "
                           f"negative {dims[2]}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = ops.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return reduced(named(clamp_min(margin + d_pos - d_neg), "ClampMinBackward0"), reduction)


@composite("d loss / d input")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """``-(t log sigmoid(x) + (1 - t) log sigmoid(-x))``, weighted, the mean over the
    classes (the last axis)."""
    broadcastable(target, input)
    loss = -(target * -ops.softplus(-input) + (1 - target) * -ops.softplus(input))
    if weight is not None:
        loss = loss * weight
    loss = named(loss.sum(input.ndim - 1) / input.shape[-1], "DivBackward0")
    return reduced(loss, reduction, "{} is not valid")


@composite("d loss / d input")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """``sum over i != y of max(0, margin - x[y] + x[i])^p * weight[y] / C`` per sample,
    ``y`` its target class (no gradient where the margin is met exactly)."""
    valid(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    if weight is not None and getattr(weight, "requires_grad", False) and is_grad_enabled():
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to "
                           "argument 'weight'. This input cannot have requires_grad True.")
    if input.ndim > 2 or input.numel() == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but "
                           f"got: {list(input.shape)}")
    x = input if input.ndim == 2 else ops.reshape(input, (1, -1))
    n, c = x.shape
    t = _raw(target)
    if t.ndim > 1 or t.size != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number "
                           f"of input samples (batch size). Expected target size [{n}], but got "
                           f"{list(t.shape)}. Input has shape {list(input.shape)}.")
    t = t.reshape(n).astype(np.int64)
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    picked = statistics.take_along_axis(x, t[:, None], axis=1)
    z = margin - picked + x
    counted = (np.arange(c)[None, :] != t[:, None]) & (_raw(z) > 0)
    h = ops.where(counted, z, 0.0)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * _raw(weight)[t][:, None].astype(h.dtype)
    loss = h.sum(1) / c
    if input.ndim < 2:
        loss = ops.reshape(loss, tuple(target.shape)) if target.ndim else ops.squeeze(loss, 0)
    return named(reduced(loss, reduction), "MultiMarginLossBackward0")


def _logit_loss(xp, x, z, w):
    with np.errstate(over="ignore"):
        return (1 - z) * x + w * (xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x))))


# ``(1 - z) x + w softplus(-x)``, elementwise: binary cross-entropy with logits ``x``, targets
# ``z`` and the positive class weighed ``w`` (``1 + (pos_weight - 1) z``). Its own rules, as
# PyTorch's: ``w sigmoid(x) - (z + w - 1)`` for ``x``, which is ``sigmoid(x) - z`` exactly for
# ``w`` 1 (the loss's own terms' derivatives, summed, would lose a small ``sigmoid(x)``'s
# digits to ``1 - 1``: 0.4% at x = -12 in float32), ``-x`` for ``z``, ``softplus(-x)`` for ``w``.
LOGIT_LOSS = Primitive("binary_cross_entropy_with_logits", _logit_loss, elementwise=True)
defvjp(LOGIT_LOSS, lambda g, ans, x, z, w: g * (w * ops.sigmoid(x) - (z + w - 1)),
       lambda g, ans, x, z, w: g * -x, lambda g, ans, x, z, w: g * ops.softplus(-x),
       labels=("w sigmoid(x) - (z + w - 1)", "-x", "softplus(-x)"))


def logit_loss(x, z, w):
    """The elementwise binary cross-entropy of logits ``x`` (see ``LOGIT_LOSS``)."""
    return apply(LOGIT_LOSS, x, z, w)


__all__ = ["kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss",
           "hinge_embedding_loss", "soft_margin_loss", "cosine_embedding_loss", "pairwise_distance",
           "pdist", "triplet_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss"]
