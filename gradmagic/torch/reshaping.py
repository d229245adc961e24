"""``reshape``, ``reshape_as``, ``flatten`` and ``ravel``: views where PyTorch 2.13.0 gives
one, copies where it copies, so a write through ``x.reshape(-1)[i] = v`` or
``buf.flatten().zero_()`` reaches ``x``, as in PyTorch.

PyTorch views a tensor whose elements can take the new shape without moving: always a
contiguous one (``ViewBackward0``), and a non-contiguous one whose strides allow it
(``ReshapeAliasBackward0``: ``x.t().reshape(3, 2, 1)``). Otherwise (``x.t().reshape(-1)``,
``x[:, ::2].flatten()``) it copies (``UnsafeViewBackward0``); ``ravel`` copies such a
tensor too, named ``ViewBackward0`` as PyTorch's. NumPy's strides stand for PyTorch's
(``is_contiguous``, ``stride()`` read them), and NumPy's reshape without a copy decides.
"""

from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.primitive import Primitive, apply, defvjp
from .values import axis_of, named, sizes_of
from .views import make_view, reshaped


def viewable(value, sizes) -> bool:
    """Whether ``value``'s elements take the shape ``sizes`` without moving (NumPy's reshape
    without a copy decides, as PyTorch's strides would)."""
    if getattr(value, "flags", None) is None or value.flags.c_contiguous:
        return True
    if not isinstance(value, np.ndarray):  # (a device array's layout: not read here)
        return False
    try:
        np.reshape(value, sizes, copy=False)
    except ValueError:
        return False
    return True


NOT_VIEWABLE = ("view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")


def _view_kind(value, sizes):
    """PyTorch's node name for a reshape of ``value`` that is a view, or None for a copy."""
    if not viewable(value, sizes):
        return None
    flags = getattr(value, "flags", None)  # (a NumPy scalar is a 0-d contiguous tensor)
    return "ViewBackward0" if flags is None or flags.c_contiguous else "ReshapeAliasBackward0"


def _reshape(self, sizes, copy_name="UnsafeViewBackward0"):
    kind = _view_kind(self.value, sizes)
    if kind is None:
        return named(ops.reshape(self, sizes), copy_name)
    return named(make_view(self, lambda base: ops.reshape(base, sizes), reshaped), kind)


def reshape(self, *shape):
    """The same elements in ``shape``: a view of this tensor where its layout allows."""
    return _reshape(self, sizes_of(shape))


def reshape_as(self, other):
    return _reshape(self, tuple(other.shape))


def flatten(self, start_dim=0, end_dim=-1):
    """Dimensions ``start_dim`` to ``end_dim`` as one; this tensor itself where that is one
    dimension already, as PyTorch's."""
    shape = self.value.shape
    if not shape:
        return _reshape(self, (1,))
    start, end = axis_of(start_dim, len(shape)), axis_of(end_dim, len(shape))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self
    return _reshape(self, (*shape[:start], -1, *shape[end + 1:]))


CONTIGUOUS = Primitive("contiguous", lambda xp, a: xp.ascontiguousarray(a), elementwise=True)
defvjp(CONTIGUOUS, lambda g, ans, a: g, labels=("1",))


def contiguous(self, memory_format=None):
    """This tensor where its elements lie in order already, else a copy in which they do
    (``CloneBackward0``, as PyTorch's), so that a ``view`` of it is one."""
    flags = getattr(self.value, "flags", None)
    if flags is None or flags.c_contiguous:
        return self
    return named(apply(CONTIGUOUS, self), "CloneBackward0")


def ravel(self):
    """The elements as a vector: a view of a contiguous tensor, else a copy."""
    return _reshape(self, (-1,), "ViewBackward0")


METHODS = {f.__name__: f for f in (reshape, reshape_as, flatten, ravel, contiguous)}
TENSOR_ONLY = ("reshape_as", "ravel", "contiguous")  # (torch.reshape and torch.flatten: __init__'s; torch.ravel: reorder's)
FUNCTIONS = {}
