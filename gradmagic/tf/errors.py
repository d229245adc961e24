"""``tf.errors``: the exception classes TensorFlow code catches, in gradmagic's error family
(each is also a ``ValueError``, as gradmagic's value errors are)."""

from ..errors import GradientValueError


class OpError(GradientValueError):
    """``tf.errors.OpError``: an operation refused its inputs."""


class InvalidArgumentError(OpError):
    """``tf.errors.InvalidArgumentError``: an index out of range, a split that does not
    divide, multiples of the wrong length ... as TensorFlow raises them."""


class UnimplementedError(OpError):
    """``tf.errors.UnimplementedError``: an operation TensorFlow has no kernel for (strides
    across the batch or the channels)."""


class NotFoundError(OpError):
    """``tf.errors.NotFoundError``: no kernel for these dtypes (``tf.realdiv`` of integers)."""


class OutOfRangeError(OpError):
    """``tf.errors.OutOfRangeError``: an index past the end (a ``TensorArray``'s read or write)."""


class InternalError(OpError):
    """``tf.errors.InternalError``: an integer division by zero, as TensorFlow reports it."""


__all__ = ["OpError", "InvalidArgumentError", "UnimplementedError", "NotFoundError", "InternalError",
           "OutOfRangeError"]
