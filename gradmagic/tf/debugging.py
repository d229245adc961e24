"""``tf.debugging``: ``assert_rank`` and ``check_numerics``, which raise as TensorFlow's do, and
``enable_check_numerics``, which says that gradmagic makes no such check (a trace does the job)."""

import warnings

from .._scans import has_nan, nonfinite
from ..debug.nans import no_first_nan_stop
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


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """``tf.debugging.enable_check_numerics``: gradmagic does not stop at the first NaN or
    inf; this says so, and what does the job, rather than leave the switch without effect."""
    warnings.warn(no_first_nan_stop("gradmagic.tf", "TensorFlow's enable_check_numerics"),
                  stacklevel=2)


def disable_check_numerics():
    pass


__all__ = ["assert_rank", "check_numerics", "enable_check_numerics", "disable_check_numerics"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.debugging.{name}"))
