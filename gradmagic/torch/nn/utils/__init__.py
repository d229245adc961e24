"""``torch.nn.utils``: only the gradient clipping (``clip_grad_norm_``, ``clip_grad_value_``)
and ``parameters_to_vector``/``vector_to_parameters``, as PyTorch 2.13.0's: they act on the
tensors' ``.grad`` in place, unrecorded. Its other names (weight norm, parametrizations,
``rnn``, ``prune`` ...) belong to ``torch.nn``'s modules, out of scope.

>>> import gradmagic.torch as torch
>>> w = torch.tensor([3.0, 4.0], requires_grad=True)
>>> (w * w).sum().backward()  # w.grad = [6, 8], norm 10
>>> torch.nn.utils.clip_grad_norm_(w, 1.0)
tensor(10.)
>>> w.grad
tensor([0.6000, 0.8000])
"""

import math

from ....core import ops
from ...graph import Tensor
from ...linalg import vector_norm
from ...modes import no_grad
from ...tensor import make


def _tensors(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the ``.grad`` of ``parameters`` (a tensor, or an iterable of them) in place so that
    their ``norm_type``-norm, taken together, is at most ``max_norm``; returns that norm as it
    was, a tensor (0 where no parameter has a gradient)."""
    grads = [p.grad for p in _tensors(parameters) if p.grad is not None]
    norm_type = float(norm_type)
    if not grads:
        return make(0.0)
    with no_grad():
        norms = [vector_norm(g, norm_type) for g in grads]
        total = vector_norm(ops.stack(norms) if len(norms) > 1 else norms[0], norm_type)
        if error_if_nonfinite and not math.isfinite(total.item()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                "it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                "norm anyway, set `error_if_nonfinite=False`")
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.type(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the ``.grad`` of ``parameters`` in place to ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one vector (recorded, as PyTorch's)."""
    return ops.concatenate([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy the consecutive slices of ``vec`` into the parameters, in place, unrecorded."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    with no_grad():
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start:start + n].view_as(p))
            start += n


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.utils.{name} does not exist: gradmagic.torch.nn.utils has only "
        "clip_grad_norm_, clip_grad_value_, parameters_to_vector and vector_to_parameters; "
        "torch.nn modules (and their utils: weight_norm, parametrizations, rnn, prune ...) are out of scope")
