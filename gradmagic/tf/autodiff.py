"""``tf.autodiff``: ``ForwardAccumulator`` (forward mode, ``gradmagic/core/forward.py``) and
``GradientTape``."""

from ..core.forward import ForwardAccumulator
from .sparse import GradientTape
from .tensors import missing

__all__ = ["ForwardAccumulator", "GradientTape"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.autodiff.{name}"))
