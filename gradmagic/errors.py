"""The one error family of gradmagic: each also derives from the builtin that fits."""


class GradmagicError(Exception):
    """Base class of every error gradmagic raises on purpose."""


class GradientTypeError(GradmagicError, TypeError):
    """A value of the wrong kind was given where a gradient is asked."""


class GradientValueError(GradmagicError, ValueError):
    """A value of the right kind but the wrong shape, dtype or content."""


class NoGradientError(GradmagicError, NotImplementedError):
    """A NumPy function or method that gradmagic has no gradient rule for."""


class BackendError(GradmagicError, RuntimeError):
    """An array backend that is not usable, or two backends mixed in one op."""


class TapeError(GradmagicError, RuntimeError):
    """A tape or trace used in a way its state does not allow (used up, re-entered)."""


class TapeReentryError(TapeError, ValueError):
    """A tape entered while it is already recording (a ValueError in TensorFlow too)."""


class WatchTypeError(GradientTypeError, ValueError):
    """Something a tape cannot watch, such as a NumPy array (a ValueError in TensorFlow too)."""


def through_complex(fn, dtype, complex_dtype) -> NoGradientError:
    """The error for a real value's gradient that came back through complex values: the
    rules are written for real values (no conjugates), so it would be wrong."""
    return NoGradientError(
        f"{fn}: the gradient of a real value (dtype {dtype}) came back through complex values "
        f"({complex_dtype}), which gradmagic does not differentiate: its rules are written for "
        "real values, so the result would be wrong; compute with the real and imaginary parts "
        "as real values (|z|**2 as re**2 + im**2)")
