"""``tf.debugging``: ``assert_rank``, the comparisons ``assert_equal``, ``assert_less`` ...
and ``check_numerics``, which raise as TensorFlow's do (a failed comparison is TensorFlow's
InvalidArgumentError, with its report of the elements that differ), and
``enable_check_numerics``, which says that gradmagic makes no such check (a trace does the job)."""

import warnings

import numpy as np

from .._scans import has_nan, nonfinite
from ..debug.nans import no_first_nan_stop
from ..errors import GradientValueError
from ..tracebacks import user_stacklevel
from .errors import InvalidArgumentError
from .segments import dtype_word
from .tensors import as_tensor, missing


def assert_rank(x, rank, message=None, name=None):
    x = as_tensor(x)
    if x.ndim != int(rank):
        raise GradientValueError(
            f"{message + ': ' if message else ''}tf.debugging.assert_rank: the tensor must have "
            f"rank {int(rank)}, but has rank {x.ndim} (shape {x.shape})")


def compared(fn, op, sym, test, x, y, message, summarize):
    """TensorFlow's ``_binary_assert``: None where ``test(x, y)`` holds for every element,
    else InvalidArgumentError with the first ``summarize`` (3) elements that fail and of each."""
    a, b = as_tensor(x), as_tensor(y)
    if a.dtype != b.dtype:  # each converted on its own, as TensorFlow does
        raise InvalidArgumentError(f"{fn}: cannot compute {op} as input #1(zero-based) was expected "
                                   f"to be a {dtype_word(a.dtype)} tensor but is a "
                                   f"{dtype_word(b.dtype)} tensor")
    u, v = a.numpy(), np.asarray(b.numpy()).astype(a.dtype, copy=False)
    try:
        ok = test(u, v)
    except ValueError:
        raise InvalidArgumentError(f"{fn}: Incompatible shapes: [{','.join(map(str, u.shape))}] vs. "
                                   f"[{','.join(map(str, v.shape))}]") from None
    if np.all(ok):
        return None
    n = 3 if summarize is None else int(summarize) if summarize >= 0 else 10 ** 9
    lines = [] if message is None else [str(message)]
    lines.append(f"Condition x {sym} y did not hold.")
    if n > 0:
        if u.shape == v.shape and u.ndim:
            bad = ~np.asarray(ok)
            at = np.argwhere(bad)
            k = min(n, at.shape[0])
            lines += [f"Indices of first {k} different values:", str(at[:k]),
                      "Corresponding x values:", str(u[bad].reshape(-1)[:k]),
                      "Corresponding y values:", str(v[bad].reshape(-1)[:k])]
        fx, fy = u.reshape(-1), v.reshape(-1)
        lines += [f"First {min(fx.size, n)} elements of x:", str(fx[:n]),
                  f"First {min(fy.size, n)} elements of y:", str(fy[:n])]
    raise InvalidArgumentError("\n".join(lines))


def assert_equal(x, y, message=None, summarize=None, name=None):
    """``tf.debugging.assert_equal``: None if ``x == y`` everywhere (broadcast), else
    TensorFlow's InvalidArgumentError naming the first elements that differ."""
    return compared("tf.debugging.assert_equal", "Equal", "==", np.equal, x, y, message, summarize)


def assert_none_equal(x, y, message=None, summarize=None, name=None):
    return compared("tf.debugging.assert_none_equal", "NotEqual", "!=", np.not_equal, x, y, message,
                    summarize)


def assert_less(x, y, message=None, summarize=None, name=None):
    return compared("tf.debugging.assert_less", "Less", "<", np.less, x, y, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None):
    return compared("tf.debugging.assert_less_equal", "LessEqual", "<=", np.less_equal, x, y,
                    message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None):
    return compared("tf.debugging.assert_greater", "Greater", ">", np.greater, x, y, message,
                    summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None):
    return compared("tf.debugging.assert_greater_equal", "GreaterEqual", ">=", np.greater_equal, x,
                    y, message, summarize)


def check_numerics(tensor, message, name=None):
    t = as_tensor(tensor)
    if nonfinite(t.value):  # scanned where the values are (the GPU for CuPy ones)
        kind = "NaN" if has_nan(t.value) else "Inf"
        raise InvalidArgumentError(f"{message} : Tensor had {kind} values")
    return t


def assert_all_finite(t, msg, name=None, x=None, message=None):
    """``tf.debugging.assert_all_finite``: ``t`` itself, or ``check_numerics``'s error."""
    return check_numerics(t if x is None else x, msg if message is None else message)


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """``tf.debugging.enable_check_numerics``: gradmagic does not stop at the first NaN or
    inf; this says so, and what does the job, rather than leave the switch without effect."""
    warnings.warn(no_first_nan_stop("gradmagic.tf", "TensorFlow's enable_check_numerics"),
                  stacklevel=user_stacklevel())


def disable_check_numerics():
    pass


__all__ = ["assert_all_finite", "assert_rank", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "check_numerics", "enable_check_numerics", "disable_check_numerics"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.debugging.{name}"))
