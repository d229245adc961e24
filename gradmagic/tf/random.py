"""``tf.random``: ``set_seed``, ``uniform``, ``normal``, ``truncated_normal``, with
TensorFlow's parameters, dtypes and seeding rules, drawn from NumPy's PCG64 generator: the
numbers are reproducible from the seeds, but are not TensorFlow's. Each result is a
constant (no gradient), on the current backend.

As in TensorFlow: without a seed, every program run differs; after ``set_seed(s)`` a run
gives the same sequence again, and ``set_seed(s)`` once more starts it over; an op ``seed``
picks its own sequence for that global seed (the global seed defaulting to a fixed one).
"""

import numpy as np

from .._backend import default_xp, xp_of
from ..core.context import RANDOM_SOURCES
from ..core.tensor import Tensor
from ..errors import GradientTypeError, GradientValueError
from .errors import InvalidArgumentError
from .tensors import as_tensor, float32, missing, shape_of

DEFAULT_GLOBAL_SEED = 87654321  # TensorFlow's default graph seed, used when only an op seed is set
STATE = {"seed": None, "streams": {}}


class Streams:
    """The global seed and the streams drawn so far, as a check's snapshot saves them."""

    def state(self):
        return STATE["seed"], {k: (g, g.bit_generator.state) for k, g in STATE["streams"].items()}

    def put_state(self, saved):
        STATE["seed"], streams = saved
        STATE["streams"].clear()
        for key, (g, state) in streams.items():
            g.bit_generator.state = state
            STATE["streams"][key] = g


RANDOM_SOURCES.append(Streams())


def set_seed(seed):
    """``tf.random.set_seed``: the global seed; the sequences start over."""
    STATE["seed"] = None if seed is None else int(seed)
    STATE["streams"].clear()


def generator(seed):
    """The NumPy generator for an op ``seed`` under the global seed: one stream per op seed,
    kept until the next ``set_seed``; fresh entropy when neither seed is set."""
    glob = STATE["seed"]
    if glob is None and seed is None:
        return np.random.default_rng()
    key = None if seed is None else int(seed)
    if key not in STATE["streams"]:
        entropy = [DEFAULT_GLOBAL_SEED if glob is None else glob, 0 if key is None else 1, key or 0]
        STATE["streams"][key] = np.random.default_rng([abs(e) for e in entropy])
    return STATE["streams"][key]


def dtype_of(fn, dtype, kinds):
    d = np.dtype(dtype)
    if d.kind not in kinds or d.itemsize < 2 or (d.kind == "i" and d.itemsize < 4):
        allowed = "float16, float32, float64" + (", int32, int64" if "i" in kinds else "")
        raise GradientValueError(f"{fn}(dtype={d}): Argument `dtype` got invalid value {d}. "
                                 f"Accepted dtypes are ({allowed}).")
    return d


def number(x):
    return np.asarray(as_tensor(x).numpy()) if isinstance(x, Tensor) else np.asarray(x)


def made(values, dtype):
    return Tensor(default_xp().asarray(np.asarray(values).astype(dtype)))


def uniform(shape, minval=0, maxval=None, dtype=float32, seed=None, name=None):
    """``tf.random.uniform``: values in ``[minval, maxval)``; ``maxval`` defaults to 1 for
    floats and must be given for int32 and int64."""
    d = dtype_of("tf.random.uniform", dtype, "fi")
    shape = shape_of(shape)
    rng = generator(seed)
    if d.kind == "i":
        if maxval is None:
            raise GradientValueError(f"tf.random.uniform(maxval): Must specify maxval for integer "
                                     f"dtype {d}")
        lo, hi = int(number(minval)), int(number(maxval))
        if lo >= hi:
            raise InvalidArgumentError(f"tf.random.uniform: Need minval < maxval: {lo} >= {hi}")
        return made(rng.integers(lo, hi, size=shape), d)
    hi = 1.0 if maxval is None else number(maxval)
    return made(rng.uniform(number(minval), hi, size=shape), d)


def normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """``tf.random.normal``: ``mean + stddev * N(0, 1)``."""
    d = dtype_of("tf.random.normal", dtype, "f")
    return made(number(mean) + number(stddev) * generator(seed).standard_normal(shape_of(shape)), d)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """``tf.random.truncated_normal``: normal values, each drawn again until it lies within
    two standard deviations of the mean."""
    d = dtype_of("tf.random.truncated_normal", dtype, "f")
    rng = generator(seed)
    z = rng.standard_normal(shape_of(shape))
    far = np.abs(z) > 2
    while far.any():
        z[far] = rng.standard_normal(int(far.sum()))
        far = np.abs(z) > 2
    return made(number(mean) + number(stddev) * z, d)


def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: ``value`` permuted along its first axis (no gradient)."""
    t = as_tensor(value)
    if t.ndim == 0:
        raise GradientTypeError("tf.random.shuffle(value): expected a tensor of rank 1 or more, got a scalar")
    order = generator(seed).permutation(t.shape[0])
    return Tensor(t.value[xp_of(t.value).asarray(order)])  # where value lives


__all__ = ["set_seed", "uniform", "normal", "truncated_normal", "shuffle"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.random.{name}"))
