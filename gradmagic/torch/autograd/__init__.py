"""``torch.autograd``: ``backward`` and ``grad`` (walks of ``graph``), ``Function``,
``gradcheck`` and ``gradgradcheck``, and ``functional`` (``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``vhp``, ``hvp``), on gradmagic's engine."""

from __future__ import annotations

from ..anomaly import detect_anomaly, set_detect_anomaly
from ..graph import backward, enable_grad, grad, no_grad, set_grad_enabled
from ..values import missing
from . import function, functional
from .checks import GradcheckError, gradcheck, gradgradcheck
from .function import Function, FunctionCtx, once_differentiable


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "function", "no_grad", "enable_grad",
           "set_grad_enabled", "detect_anomaly", "set_detect_anomaly", "functional"]


def __getattr__(name):
    raise AttributeError(missing(f"torch.autograd.{name}"))
