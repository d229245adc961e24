"""``torch.autograd``: ``backward`` and ``grad`` (walks of ``graph``), ``Function``,
``gradcheck`` and ``gradgradcheck``, ``functional`` (``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``vhp``, ``hvp``) and ``forward_ad`` (dual tensors), on gradmagic's engine."""

from __future__ import annotations

from ..anomaly import detect_anomaly, set_detect_anomaly
from ..graph import Tensor
from ..walk import backward, grad
from ..modes import enable_grad, no_grad, set_grad_enabled
from ..values import missing
from . import forward_ad, function, functional
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # (the function hides the module)
from .function import Function, FunctionCtx, once_differentiable


def Variable(data, requires_grad=False, volatile=False):  # noqa: N802  (PyTorch's name)
    """Legacy ``torch.autograd.Variable``: as PyTorch 2.13.0, a new leaf of ``data``'s values
    (detached from its graph), requiring grad only when ``requires_grad=True``."""
    if not isinstance(data, Tensor):
        raise TypeError(f"Variable(data): Variable data has to be a tensor, but got {type(data).__name__}")
    out = data.detach()
    if requires_grad:
        out.requires_grad_(True)
    return out


__all__ = ["Variable", "backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "function", "no_grad", "enable_grad",
           "set_grad_enabled", "detect_anomaly", "set_detect_anomaly", "functional", "forward_ad"]


def __getattr__(name):
    raise AttributeError(missing(f"torch.autograd.{name}"))
