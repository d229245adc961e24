"""Derivatives at kinks, where frameworks differ and a dialect says its framework's.

gradmagic's own ops follow TensorFlow: ``maximum``'s gradient goes to the first argument
where the two are equal, and ``abs``'s derivative at 0 is ``sign(0) = 0``. PyTorch and JAX
split a tie of ``maximum``/``minimum`` half and half (where one is NaN, PyTorch gives the
gradient to both and JAX to neither), and JAX gives ``abs`` a derivative of 1 at 0, and its
``fmax``/``fmin`` give a tie's gradient to the second argument. Each
function here keeps the exact value (NaN propagation included) and changes
only the derivative at the kink.
"""

from .._backend import kind
from . import ops
from .tensor import raw


def _floating(*xs):
    """Whether any of ``xs`` is floating (integers have no gradient, and keep their dtype)."""
    for x in xs:
        dtype = getattr(raw(x), "dtype", None)
        if isinstance(x, float) or (dtype is not None and kind(dtype) in "fc"):
            return True
    return False


def maximum_halves(x1, x2, nan_to_both=False):
    """``maximum``, with half the gradient to each side where the two are equal; where one
    is NaN (so is the value), the gradient goes to both (``nan_to_both``: PyTorch's) or to
    neither (JAX's)."""
    if not _floating(x1, x2):
        return ops.maximum(x1, x2)
    return _halves(x1, x2, ops.greater, nan_to_both)


def minimum_halves(x1, x2, nan_to_both=False):
    """``minimum``, likewise: half to each side at a tie, a NaN's gradient to both or neither."""
    if not _floating(x1, x2):
        return ops.minimum(x1, x2)
    return _halves(x1, x2, ops.less, nan_to_both)


def _halves(x1, x2, wins, nan_to_both):
    """``x1`` where ``wins(x1, x2)``, ``x2`` where ``wins(x2, x1)``, ``0.5 x1 + 0.5 x2`` where
    they are equal (which cannot overflow; exact but for subnormal ties), and NaN where
    neither (one is NaN): ``x1 + x2``, whose gradient goes to both, or that without one."""
    nan = x1 + x2 if nan_to_both else ops.stop_gradient(x1 + x2)
    return ops.where(x1 == x2, 0.5 * x1 + 0.5 * x2,
                     ops.where(wins(x1, x2), x1, ops.where(wins(x2, x1), x2, nan)))


def fmax_second_at_tie(x1, x2):
    """``fmax`` as JAX writes it, ``where(x1 > x2 or x2 is NaN, x1, x2)``: the same value
    (NaN only where both are), with the gradient at a tie to ``x2``."""
    return ops.where(ops.greater(x1, x2) | ops.isnan(x2), x1, x2)


def fmin_second_at_tie(x1, x2):
    """``fmin``, likewise: ``where(x1 < x2 or x2 is NaN, x1, x2)``."""
    return ops.where(ops.less(x1, x2) | ops.isnan(x2), x1, x2)


def absolute_one_at_zero(x):
    """``|x|`` with a derivative of 1 at 0: the exact value, plus a term that is 0 but
    carries that 1 where ``x`` is 0."""
    return ops.absolute(x) + ops.where(x == 0, x - ops.stop_gradient(x), 0)
