"""gradmagic: see the chain rule. A small tape autodiff over NumPy/CuPy arrays with
TensorFlow-eager semantics.

>>> import gradmagic as gm
>>> x = gm.constant(2.0)
>>> with gm.GradientTape() as tape:
...     tape.watch(x)
...     y = x ** 8
>>> float(tape.gradient(y, x))
1024.0

The package in layers, each importing only those below it: ``core/`` (the engine),
``debug/`` (traces, pitfalls and ``check_grad``, listening to the engine), ``render/``
(text, HTML and pictures of a trace's rows), and the faces on top: the dialects ``tf``,
``torch`` and ``jax``, then ``magics``, ``kernel``, ``kernelspec`` and ``__main__``.
"""

import warnings as _warnings

from ._backend import BackendStatus, backend_status, get_backend, set_backend
from .core import dispatch, ops, vjps  # noqa: F401  (operators installed, rules filled)
from .core.api import grad, value_and_grad
from .core.custom import custom_gradient
from .core.forward import jvp
from .core.ops import logsumexp, sigmoid, softplus, stop_gradient
from .core.tape import GradientTape
from .core.tensor import Tensor, Variable, constant
from .debug.gradcheck import check_grad
from .debug.scopes import scope, traced
from .debug.trace import Trace, trace
from .errors import BackendError, GradmagicError, NoGradientError

# Overflow and invalid-value warnings from NumPy inside the engine's own lines (and the
# dialects' rules) are silenced, as TensorFlow, PyTorch and JAX are silent: a trace shows
# where a NaN or Inf was born.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"gradmagic\.(core|tf|torch|jax)\.")

__version__ = "0.1.0"


def __getattr__(name):
    if name in ("tf", "torch", "jax"):  # the dialects, imported when first used
        import importlib
        return importlib.import_module(f"gradmagic.{name}")
    raise AttributeError(f"module 'gradmagic' has no attribute {name!r}")


def load_ipython_extension(ipython):
    """``%load_ext gradmagic``: register ``%%gradtrace`` (IPython is imported only now)."""
    from .magics import load_ipython_extension as load
    load(ipython)


def unload_ipython_extension(ipython):
    from .magics import unload_ipython_extension as unload
    unload(ipython)


__all__ = [
    "Tensor", "Variable", "constant", "GradientTape", "stop_gradient", "custom_gradient",
    "grad", "value_and_grad", "jvp", "check_grad",
    "sigmoid", "softplus", "logsumexp",
    "trace", "Trace", "scope", "traced",
    "set_backend", "get_backend", "backend_status", "BackendStatus",
    "GradmagicError", "NoGradientError", "BackendError", "tf", "torch", "jax",
]
