"""What TensorFlow 2 code carries from graph mode, in eager code: ``tf.control_dependencies``,
``tf.device`` and ``tf.init_scope`` (context managers that change nothing), ``tf.group`` and
``tf.no_op`` (None), ``tf.no_gradient``, ``tf.inside_function``, ``tf.get_logger``; the
initializers (``tf.zeros_initializer()`` ... callables ``init(shape, dtype)``); and
``tf.py_function`` and ``tf.numpy_function``, which call a Python function eagerly.

``py_function``'s function gets Tensors, and the tape records what it does with them, so its
results have the gradient of that code (as TensorFlow 2's eager ``py_function``; a result the
function made from NumPy has none: None, where TensorFlow gives a scalar 0). ``numpy_function``'s
gets NumPy arrays, and its results are constants, unconnected to the inputs, as TensorFlow's.
"""

import contextlib
import logging

import numpy as np

from ..core import ops
from ..core.tensor import Tensor
from ..core.tensor import constant as core_constant
from ..errors import GradientTypeError, GradientValueError
from .errors import InvalidArgumentError
from .random import generator
from .tensors import as_tensor, convert_to_tensor, float32, shape_of


@contextlib.contextmanager
def nothing(*args, **kwargs):
    yield


def control_dependencies(control_inputs):
    """``tf.control_dependencies``: in eager code every op has run already: nothing to order."""
    return nothing()


def device(device_name):
    """``tf.device``: gradmagic computes where its arrays are (NumPy, or the backend's device)."""
    return nothing()


def init_scope():
    """``tf.init_scope``: eager already; nothing to lift out of."""
    return nothing()


def group(*inputs, **kwargs):
    """``tf.group``: in eager code the ops have run; TensorFlow returns None, and so does this."""
    return None


def no_op(name=None):
    return None


def no_gradient(op_type):
    """``tf.no_gradient(op_type)``: registers nothing (gradmagic has no op registry by name)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")


def inside_function():
    """``tf.inside_function``: False; gradmagic's ``tf.function`` runs eagerly."""
    return False


def get_logger():
    """``tf.get_logger``: the ``"tensorflow"`` logger of Python's ``logging``."""
    return logging.getLogger("tensorflow")


# -- initializers ------------------------------------------------------------------------------
class Initializer:
    """``tf.keras.initializers.Initializer``'s protocol: ``init(shape, dtype=None)``."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    """``tf.zeros_initializer()``: zeros of ``shape`` and ``dtype`` (float32)."""

    def __call__(self, shape, dtype=float32, **kwargs):
        return core_constant(np.zeros(shape_of(shape), dtype=np.dtype(dtype or float32)))


class Ones(Initializer):
    """``tf.ones_initializer()``: ones of ``shape`` and ``dtype`` (float32)."""

    def __call__(self, shape, dtype=float32, **kwargs):
        return core_constant(np.ones(shape_of(shape), dtype=np.dtype(dtype or float32)))


class Constant(Initializer):
    """``tf.constant_initializer(value)``: ``value`` (a number filling the shape, or values
    as many as it has) as ``dtype`` (float32)."""

    def __init__(self, value=0, support_partition=False):
        if isinstance(value, Tensor):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value

    def __call__(self, shape, dtype=float32, **kwargs):
        dims = shape_of(shape)
        t = convert_to_tensor(self.value, dtype=np.dtype(dtype or float32))
        if t.ndim == 0:
            return ops.broadcast_to(t, dims) if dims else t
        if t.size != int(np.prod(dims, dtype=np.int64)):
            raise TypeError(
                f"Eager execution of tf.constant with unsupported shape. Tensor {t.numpy()} "
                f"(converted from {self.value}) has {t.size} elements, but got `shape` {dims} "
                f"with {int(np.prod(dims, dtype=np.int64))} elements).")
        return ops.reshape(t, dims)

    def get_config(self):
        return {"value": self.value}


def floating(dtype):
    d = np.dtype(dtype or float32)
    if d.kind != "f":
        raise GradientValueError(f"Argument `dtype` is expected to be floating point. Received: "
                                 f"<dtype: '{d}'>.")
    return d


class RandomNormal(Initializer):
    """``tf.random_normal_initializer(mean=0.0, stddev=0.05, seed=None)``: normal values (from
    ``tf.random``'s generator: reproducible from the seeds, not TensorFlow's numbers)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=float32, **kwargs):
        d = floating(dtype)
        z = generator(self.seed).standard_normal(shape_of(shape))
        return core_constant((self.mean + self.stddev * z).astype(d))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    """``tf.random_uniform_initializer(minval=-0.05, maxval=0.05, seed=None)``: uniform values
    in ``[minval, maxval)``, integers too."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=float32, **kwargs):
        d = np.dtype(dtype or float32)
        rng = generator(self.seed)
        if d.kind in "iu":
            values = rng.integers(int(self.minval), int(self.maxval), shape_of(shape))
        else:
            values = rng.uniform(self.minval, self.maxval, shape_of(shape))
        return core_constant(values.astype(d))

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, Constant
random_normal_initializer, random_uniform_initializer = RandomNormal, RandomUniform


# -- Python functions as ops -------------------------------------------------------------------
def listed_types(Tout):
    """``(list of dtypes, whether Tout was a list)``."""
    if isinstance(Tout, (list, tuple)):
        return [np.dtype(t) for t in Tout], True
    return [np.dtype(Tout)], False


def returned(out, many):
    """What a function returned, as a list of its results."""
    if out is None:
        return []
    return list(out) if many and isinstance(out, (list, tuple)) else [out]


def results_of(fn, out, dtypes, many, check):
    """``out`` (the list of what the function returned) as Tensors, as many as ``dtypes``."""
    if len(out) != len(dtypes):
        raise InvalidArgumentError(f"{fn}: the function returns {len(out)} values, but expects to "
                                   f"see {len(dtypes)} values.")
    tensors = []
    for value, dtype in zip(out, dtypes):
        if isinstance(value, Tensor):
            if check and value.dtype != dtype:
                raise InvalidArgumentError(
                    f"{fn}: ValueError: Tensor conversion requested dtype {dtype} for Tensor with "
                    f"dtype {value.dtype}")
            tensors.append(value)
        else:
            t = as_tensor(value)
            tensors.append(ops.astype(t, dtype) if check and t.dtype != dtype else t)
    return tensors if many else tensors[0]


def inputs_of(fn, inp):
    if inp is None:
        return []
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    return [convert_to_tensor(v) for v in inp]


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803  (TensorFlow's names)
    """``tf.py_function``: ``func`` called on the inputs as Tensors; what it returns, as
    ``Tout`` (one dtype: one Tensor; a list: a list). Its gradient is that of the ops ``func``
    runs, recorded as they run."""
    if func is None:
        return lambda f: py_function(f, inp, Tout, name)
    dtypes, many = listed_types(Tout if Tout is not None else [])
    out = returned(func(*inputs_of("tf.py_function", inp)), many)
    return results_of("tf.py_function", out, dtypes, many, True)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: ``func`` called on the inputs as NumPy arrays (Python numbers
    as NumPy makes them: float64, int64); what it returns as constant Tensors (no gradient
    flows through NumPy code), in the dtypes conversion gives: as TensorFlow's eager
    ``numpy_function``, which does not cast them to ``Tout``."""
    if func is None:
        return lambda f: numpy_function(f, inp, Tout, stateful, name)
    dtypes, many = listed_types(Tout if Tout is not None else [])
    if inp is not None and not isinstance(inp, (list, tuple)):
        inp = [inp]
    arrays = [v.numpy() if isinstance(v, Tensor) else np.asarray(v) for v in inp or []]
    out = func(*arrays)
    if isinstance(out, Tensor):
        raise GradientTypeError("tf.numpy_function: func must return NumPy arrays, not a Tensor: "
                                "use tf.py_function for a function of Tensors")
    out = [core_constant(v) for v in returned(out, many)]
    return results_of("tf.numpy_function", out, dtypes, many, False)

__all__ = ["control_dependencies", "device", "init_scope", "group", "no_op", "no_gradient",
           "inside_function", "get_logger", "zeros_initializer", "ones_initializer",
           "constant_initializer", "random_normal_initializer", "random_uniform_initializer",
           "py_function", "numpy_function"]
