"""``tf.random``: ``set_seed``, ``uniform``, ``normal``, ``truncated_normal``, ``shuffle``,
``categorical``, ``stateless_normal`` and ``stateless_uniform`` (the same values for the
same seed pair) and ``Generator`` (a state of its own), with TensorFlow's parameters, dtypes
and seeding rules, drawn from NumPy's PCG64 generator: the numbers are reproducible from
the seeds, but are not TensorFlow's. Each result is a constant (no gradient), on the
current backend.

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
from .segments import host_ints
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
    if d.kind == "i" and maxval is None:
        raise GradientValueError(f"tf.random.uniform(maxval): Must specify maxval for integer dtype {d}")
    return drawn_uniform("tf.random.uniform", generator(seed), shape, minval, maxval, d)


def drawn_uniform(fn, rng, shape, minval, maxval, d):
    """Uniform values of dtype ``d`` from ``rng``; integers in ``[minval, maxval)``, or over
    the whole range of ``d`` where both are None."""
    shape = shape_of(shape)
    if d.kind == "i":
        if (minval is None) != (maxval is None):
            raise GradientValueError(
                f"{fn}: For integer `dtype` argument {d}, argument `minval` and `maxval` must be "
                f"both None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is None:
            return made(rng.integers(np.iinfo(d).min, np.iinfo(d).max, size=shape, endpoint=True), d)
        lo, hi = int(number(minval)), int(number(maxval))
        if lo >= hi:
            raise InvalidArgumentError(f"{fn}: Need minval < maxval: {lo} >= {hi}")
        return made(rng.integers(lo, hi, size=shape), d)
    lo = 0.0 if minval is None else number(minval)
    return made(rng.uniform(lo, 1.0 if maxval is None else number(maxval), size=shape), d)


def normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """``tf.random.normal``: ``mean + stddev * N(0, 1)``."""
    d = dtype_of("tf.random.normal", dtype, "f")
    return made(number(mean) + number(stddev) * generator(seed).standard_normal(shape_of(shape)), d)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=float32, seed=None, name=None):
    """``tf.random.truncated_normal``: normal values, each drawn again until it lies within
    two standard deviations of the mean."""
    d = dtype_of("tf.random.truncated_normal", dtype, "f")
    return made(number(mean) + number(stddev) * truncated(generator(seed), shape_of(shape)), d)


def truncated(rng, shape):
    """Standard normal values from ``rng``, each drawn again until it lies in [-2, 2]."""
    z = rng.standard_normal(shape)
    far = np.abs(z) > 2
    while far.any():
        z[far] = rng.standard_normal(int(far.sum()))
        far = np.abs(z) > 2
    return z


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``tf.random.categorical``: ``num_samples`` class indices per row of ``logits`` (a
    matrix of unnormalized log-probabilities), drawn with those probabilities; int64 by
    default."""
    d = np.dtype("int64" if dtype is None else dtype)
    if d.name not in ("int32", "int64"):
        raise GradientValueError(f"tf.random.categorical(dtype={d}): Argument `dtype` got invalid "
                                 f"value {d}. Accepted dtypes are (tf.int32, tf.int64).")
    x = np.asarray(as_tensor(logits).numpy(), dtype=np.float64)
    if x.ndim != 2:
        raise InvalidArgumentError(f"tf.random.categorical(logits): logits should be a matrix, got "
                                   f"shape {list(x.shape)}")
    gumbel = generator(seed).gumbel(size=(x.shape[0], int(num_samples), x.shape[1]))
    return made(np.argmax(x[:, None, :] + gumbel, axis=-1), d)  # the Gumbel-max draw


def stateless_rng(fn, seed):
    """The NumPy generator of a stateless op's ``seed``: a shape [2] integer tensor."""
    pair = host_ints(fn, "seed", "Tseed", as_tensor(seed), ("int32", "int64"))
    if pair.shape != (2,):
        raise InvalidArgumentError(f"{fn}(seed): seed must have shape [2], not {list(pair.shape)}")
    return np.random.default_rng([int(s) % 2**64 for s in pair])


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=float32, name=None, alg="auto_select"):
    """``tf.random.stateless_normal``: normal values that depend on ``seed`` (two integers)
    alone: the same seed gives the same values."""
    fn = "tf.random.stateless_normal"
    d = dtype_of(fn, dtype, "f")
    return made(number(mean) + number(stddev) * stateless_rng(fn, seed).standard_normal(shape_of(shape)), d)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=float32, name=None, alg="auto_select"):
    """``tf.random.stateless_uniform``: ``uniform``'s values, depending on ``seed`` alone;
    integers over their whole range where ``minval`` and ``maxval`` are both None."""
    fn = "tf.random.stateless_uniform"
    return drawn_uniform(fn, stateless_rng(fn, seed), shape, minval, maxval, dtype_of(fn, dtype, "fi"))


class Generator:
    """``tf.random.Generator``: a random number generator with a state of its own
    (``Generator.from_seed(1234)``), whose draws do not depend on the global seed."""

    def __init__(self, rng):
        self.rng = rng

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(np.random.default_rng(int(number(seed)) % 2**64))

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(np.random.default_rng())

    def reset_from_seed(self, seed):
        self.rng = np.random.default_rng(int(number(seed)) % 2**64)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, name=None):
        d = dtype_of("Generator.normal", dtype, "f")
        return made(number(mean) + number(stddev) * self.rng.standard_normal(shape_of(shape)), d)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=float32, name=None):
        d = dtype_of("Generator.truncated_normal", dtype, "f")
        return made(number(mean) + number(stddev) * truncated(self.rng, shape_of(shape)), d)

    def uniform(self, shape, minval=0, maxval=None, dtype=float32, name=None):
        fn = "Generator.uniform"
        return drawn_uniform(fn, self.rng, shape, minval, maxval, dtype_of(fn, dtype, "fi"))


def shuffle(value, seed=None, name=None):
    """``tf.random.shuffle``: ``value`` permuted along its first axis (no gradient)."""
    t = as_tensor(value)
    if t.ndim == 0:
        raise GradientTypeError("tf.random.shuffle(value): expected a tensor of rank 1 or more, got a scalar")
    order = generator(seed).permutation(t.shape[0])
    return Tensor(t.value[xp_of(t.value).asarray(order)])  # where value lives


__all__ = ["set_seed", "uniform", "normal", "truncated_normal", "shuffle", "categorical",
           "stateless_normal", "stateless_uniform", "Generator"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.random.{name}"))
