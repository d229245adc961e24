"""Arrays made from Tensors: ``np.linspace`` with Tensor endpoints, composed from the op
catalogue so that it differentiates in its endpoints. (``np.array`` of Tensors is refused
by ``Tensor.__array__`` while a tape follows them, with the way to build it instead.)
"""

import numpy as np

from ..errors import GradientValueError
from . import ops
from .primitive import composite
from .tensor import raw


@composite("1 - k / (n - 1)", "k / (n - 1)")
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    """``np.linspace``: ``start + (stop - start) * k / (num - 1)``, differentiable in both ends."""
    ops.unsupported("np.linspace", dtype=dtype, device=device)
    num = int(num)
    if num < 0:
        raise GradientValueError(f"np.linspace(num={num}): expected a count of at least 0")
    div = (num - 1) if endpoint else num
    base = np.broadcast_shapes(np.shape(raw(start)), np.shape(raw(stop)))
    steps = np.arange(num, dtype=np.float64).reshape((num,) + (1,) * len(base))
    span = ops.subtract(stop, start)
    frac = steps / div if div > 0 else steps * 0.0
    out = ops.add(start, ops.multiply(span, frac))
    if endpoint and num > 1:  # the last point is exactly stop, as NumPy makes it
        out = ops.concatenate([ops.getitem(out, slice(0, num - 1)),
                               ops.expand_dims(ops.broadcast_to(stop, base), 0)])
    out = ops.moveaxis(out, 0, axis) if axis != 0 else out
    if retstep:
        return out, ops.divide(span, div) if div > 0 else ops.multiply(span, np.nan)
    return out


FUNCTIONS = {np.linspace: linspace}
