"""``tf.debugging``: ``assert_rank`` and ``check_numerics``, which raise as TensorFlow's do."""

from .._scans import has_nan, nonfinite
from ..errors import GradientValueError
from .tensors import as_tensor, missing


def assert_rank(x, rank, message=None, name=None):
    x = as_tensor(x)
    if x.ndim != int(rank):
        raise GradientValueError(
            f"{message + ': ' if message else ''}tf.debugging.assert_rank: the tensor must have "
            f"rank {int(rank)}, but has rank {x.ndim} (shape {x.shape})")


def check_numerics(tensor, message, name=None):
    t = as_tensor(tensor)
    if nonfinite(t.value):  # scanned where the values are (the GPU for CuPy ones)
        kind = "NaN" if has_nan(t.value) else "Inf"
        raise GradientValueError(f"{message} : Tensor had {kind} values")
    return t


__all__ = ["assert_rank", "check_numerics"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.debugging.{name}"))
