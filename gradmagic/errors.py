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
