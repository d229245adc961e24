"""``jax.random``: keys, and samplers with JAX's signatures, shapes, dtypes and errors. A key
seeds NumPy's PCG64, so the numbers are reproducible from the key (and ``split`` and
``fold_in`` give new streams) but differ from JAX's own.

``key(seed)`` is a typed key, as JAX's: shape ``()``, dtype ``key<fry>``, its data two
uint32 (``key_data``); ``PRNGKey(seed)`` is that data itself, a ``(2,)`` uint32 array. Every
function takes either, and ``split`` and ``fold_in`` give keys of the kind they are given.
A typed key that meets an array operation (``vmap``'s slicing, ``lax.scan``'s) becomes its
data, which every function here takes too.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..core import special
from ..core.tensor import Shape, Tensor
from .array import Array, asarray, canonical
from .numpy import linalg

MASK = 0xFFFFFFFF


class KeyDType:
    """The dtype of a typed key, as JAX writes it: ``key<fry>`` (threefry's data, two uint32)."""

    name = "key<fry>"
    kind = "V"
    itemsize = 8

    def __repr__(self):
        return self.name

    __str__ = __repr__


KEY = KeyDType()


class PRNGKeyArray(Array):
    """A typed key (or an array of them): ``.value`` is its data, with a last axis of two
    uint32 that its shape leaves out."""

    __slots__ = ()
    shape = property(lambda self: Shape(self.value.shape[:-1]))
    ndim = property(lambda self: self.value.ndim - 1)
    size = property(lambda self: int(np.prod(self.value.shape[:-1])))
    dtype = property(lambda self: KEY)

    def __getitem__(self, index):
        return _typed(self.value[index if isinstance(index, tuple) else (index,)])

    def __repr__(self):
        return f"Array({self.shape}, dtype={KEY}) overlaying:\n{self.value}"

    __str__ = __repr__


def _typed(data):
    out = PRNGKeyArray.__new__(PRNGKeyArray)
    out.value = np.asarray(data, np.uint32)
    return out


def _data(key):
    """The uint32 data of a key or an array of keys, checked as JAX checks it."""
    if isinstance(key, PRNGKeyArray):
        return key.value
    if isinstance(key, numbers.Number):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data to have ndim, "
                        f"shape, and dtype attributes. Got {key}")
    if not isinstance(key, (Tensor, np.ndarray)):
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    data = np.asarray(key.value if isinstance(key, Tensor) else key)
    if data.dtype != np.uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = uint32; "
                        f"got dtype={data.dtype.name}")
    if data.shape[-1:] != (2,):
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with (2,); got shape={data.shape} for impl=threefry2x32")
    return data


def _one(key, name):
    """The data of one key, for the function ``name``; a batch of keys is JAX's error."""
    data = _data(key)
    if data.shape != (2,):
        shape = data.shape[:-1] if isinstance(key, PRNGKeyArray) else data.shape
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape {shape} "
                         "!= (). Use jax.vmap for batching.")
    return data


def _rng(key, name):
    return np.random.default_rng(_one(key, name).astype(np.uint64).tolist())


def _like(key, data):
    """New key data as keys of ``key``'s kind: typed, or a raw uint32 Array."""
    return _typed(data) if isinstance(key, PRNGKeyArray) else asarray(np.asarray(data, np.uint32))


def _shape(shape):
    return (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)


def _host(x):
    return x.value if isinstance(x, Tensor) else np.asarray(x)


def _floating(dtype, name):
    dtype = canonical(dtype)
    if dtype.kind != "f":
        kinds = "float or complex" if name == "normal" else "float"  # JAX's words for each
        raise ValueError(f"dtype argument to `{name}` must be a {kinds} dtype, got {dtype.name}")
    return dtype


def PRNGKey(seed):  # noqa: N802  (JAX's name)
    """A raw key: its data, ``[0, seed]`` as uint32 (the seed's low 32 bits, as JAX's without x64)."""
    return asarray(np.array([0, int(seed) & MASK], dtype=np.uint32))


def key(seed, *, impl=None):
    """A typed key: shape ``()``, dtype ``key<fry>``, its data ``PRNGKey(seed)``'s."""
    return _typed(PRNGKey(seed).value)


def key_data(keys):
    """The uint32 data of typed keys (a raw key is its own data)."""
    return asarray(_data(keys))


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys of uint32 data whose last axis is 2."""
    return _typed(_data(asarray(key_bits_array)))


def split(key, num=2):
    """``num`` new keys (``num`` may be a shape) from ``key``, of its kind."""
    return _like(key, _rng(key, "split").integers(0, 2 ** 32, size=(*_shape(num), 2), dtype=np.uint32))


def fold_in(key, data):
    """A new key from ``key`` and an integer ``data``, of ``key``'s kind; its stream differs
    from ``key``'s and from ``split``'s."""
    seed = [*_one(key, "fold_in").tolist(), int(_host(data)) & MASK, 1]
    return _like(key, np.random.default_rng(seed).integers(0, 2 ** 32, size=2, dtype=np.uint32))


def normal(key, shape=(), dtype=float):
    return asarray(_rng(key, "normal").standard_normal(_shape(shape)).astype(_floating(dtype, "normal")))


def uniform(key, shape=(), dtype=float, minval=0.0, maxval=1.0):
    dtype = _floating(dtype, "uniform")
    draw = _rng(key, "uniform").uniform(_host(minval), _host(maxval), _shape(shape))
    return asarray(draw.astype(dtype))


def bernoulli(key, p=0.5, shape=None):
    p = _host(p)
    shape = p.shape if shape is None else _shape(shape)
    return asarray(_rng(key, "bernoulli").uniform(size=shape) < p)


def randint(key, shape, minval, maxval, dtype=int):
    """Integers in ``[minval, maxval)`` (``minval`` where the range is empty, as JAX)."""
    dtype = canonical(dtype)
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype.name}")
    lo, hi = np.broadcast_arrays(_host(minval).astype(np.int64), _host(maxval).astype(np.int64))
    draw = _rng(key, "randint").integers(lo, np.maximum(hi, lo + 1), size=_shape(shape))
    return asarray(draw.astype(dtype))


def gumbel(key, shape=(), dtype=float):
    return asarray(_rng(key, "gumbel").gumbel(size=_shape(shape)).astype(_floating(dtype, "gumbel")))


def exponential(key, shape=(), dtype=float):
    draw = _rng(key, "exponential").standard_exponential(_shape(shape))
    return asarray(draw.astype(_floating(dtype, "exponential")))


def bits(key, shape=(), dtype=None):
    """Random bits, as unsigned integers (uint32 unless ``dtype`` says)."""
    dtype = canonical(np.uint32 if dtype is None else dtype)
    if dtype.kind != "u":
        raise TypeError(f"bits only accepts unsigned integer dtypes, got {dtype.name}")
    return asarray(_rng(key, "bits").integers(0, np.iinfo(dtype).max, _shape(shape), dtype, endpoint=True))


def truncated_normal(key, lower, upper, shape=None, dtype=float):
    """Normal samples in ``[lower, upper]``, by the inverse of the normal's distribution
    function (``shape``: the bounds' broadcast shape unless given)."""
    dtype = _floating(dtype, "truncated_normal")
    lower, upper = _host(lower).astype(np.float64), _host(upper).astype(np.float64)
    shape = np.broadcast_shapes(lower.shape, upper.shape) if shape is None else _shape(shape)
    lo, hi = (special.erfc(Tensor(-b / np.sqrt(2))).value / 2 for b in (lower, upper))
    u = _rng(key, "truncated_normal").uniform(lo, hi, shape)
    out = np.clip(special.ndtri(Tensor(u)).value, lower, upper)
    return asarray(out.astype(dtype))


def permutation(key, x, axis=0, independent=False):
    """A shuffled ``arange(x)`` for an int ``x``; else ``x`` shuffled along ``axis`` (each
    slice on its own where ``independent``), differentiable in ``x``."""
    rng = _rng(key, "permutation")
    if isinstance(x, numbers.Integral) or np.ndim(_host(x)) == 0:
        return asarray(rng.permutation(int(_host(x))).astype(canonical(np.int64)))
    x = asarray(x)
    axis %= x.ndim
    if not independent:
        return x[(slice(None),) * axis + (rng.permutation(x.shape[axis]),)]
    order = np.broadcast_to(np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1)), x.shape)
    return np.take_along_axis(x, rng.permuted(order, axis=axis), axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    """Samples of ``arange(a)`` for an int ``a``, else of ``a``'s slices along ``axis``
    (differentiable in ``a``), with replacement unless ``replace=False``, weighted by ``p``."""
    n = int(a) if isinstance(a, numbers.Integral) else asarray(a).shape[axis]
    shape = _shape(shape)
    if not replace and int(np.prod(shape)) > n:
        raise ValueError(f"Cannot take a larger sample (size {int(np.prod(shape))}) than population "
                         f"(size {n}) when 'replace=False'")
    weights = None if p is None else _host(p).astype(np.float64) / _host(p).sum()
    index = _rng(key, "choice").choice(n, size=shape, replace=replace, p=weights)
    if isinstance(a, numbers.Integral):
        return asarray(index.astype(canonical(np.int64)))
    a = asarray(a)
    return a[(slice(None),) * (axis % a.ndim) + (index,)]


def categorical(key, logits, axis=-1, shape=None):
    """Indices along ``axis`` drawn with probabilities ``softmax(logits)`` (the Gumbel-max
    trick, as JAX's); ``shape``: the batch shape, the logits' others unless given."""
    logits = np.moveaxis(_host(logits), axis, -1)
    shape = logits.shape[:-1] if shape is None else _shape(shape)
    noise = _rng(key, "categorical").gumbel(size=shape + logits.shape[-1:])
    return asarray(np.argmax(logits + noise, axis=-1).astype(canonical(np.int64)))


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Matrices ``n`` by ``m`` (``m`` = ``n`` unless given) with orthonormal columns or rows,
    whichever are fewer, uniform as JAX draws them: the Q of a normal matrix's QR, its
    columns' signs set by R's diagonal; ``shape``: the batch shape."""
    dtype = _floating(float if dtype is None else dtype, "normal")
    m = n if m is None else m
    z = _rng(key, "orthogonal").standard_normal((*_shape(shape), max(n, m), min(n, m)))
    q, r = np.linalg.qr(z)
    q = q * np.sign(np.diagonal(r, 0, -2, -1))[..., None, :]
    return asarray((np.swapaxes(q, -1, -2) if n < m else q).astype(dtype))


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """``mean + factor @ z`` for standard normal ``z``, where ``factor factor^T = cov``
    (``method``: ``"cholesky"``, ``"eigh"`` or ``"svd"``): differentiable in ``mean`` and
    ``cov``."""
    if method not in ("cholesky", "eigh", "svd"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean, cov = asarray(mean), asarray(cov)
    batch = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    shape = batch if shape is None else _shape(shape)
    z = normal(key, shape + mean.shape[-1:], canonical(mean.dtype if dtype is None else dtype))
    if method == "cholesky":
        factor = linalg.cholesky(cov)
    elif method == "eigh":
        w, v = linalg.eigh(cov)
        factor = v * np.sqrt(w)[..., None, :]
    else:
        u, s, _ = np.linalg.svd(cov)
        factor = u * np.sqrt(s)[..., None, :]
    return mean + (factor @ z[..., None])[..., 0]


NAMES = ("PRNGKey", "key", "key_data", "wrap_key_data", "split", "fold_in", "normal", "uniform",
         "bernoulli", "randint", "gumbel", "exponential", "bits", "truncated_normal", "permutation",
         "choice", "categorical", "multivariate_normal", "orthogonal")


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.random.{name} does not exist: it maps {', '.join(NAMES)} "
                         "(keys seed NumPy's generator, so the numbers differ from JAX's)")


__all__ = list(NAMES)
