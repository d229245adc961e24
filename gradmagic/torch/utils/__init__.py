"""``torch.utils``: only ``checkpoint`` (``torch.utils.checkpoint.checkpoint`` and
``checkpoint_sequential``), which runs the function and keeps its graph (gradmagic recomputes
nothing, so the gradients are those of the plain call). ``torch.utils.data`` and the rest
are out of scope."""

from ..values import missing
from . import checkpoint


def __getattr__(name):
    raise AttributeError(missing(f"torch.utils.{name}"))


__all__ = ["checkpoint"]
