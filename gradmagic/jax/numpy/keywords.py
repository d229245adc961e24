"""JAX's own keywords of ``jnp`` functions, which NumPy's lack: ``size`` and ``fill_value``
(``where``, ``nonzero``, ``flatnonzero``, ``argwhere``, ``unique``), ``bincount``'s
``length``, the reductions' ``where`` mask and ``initial`` (``sum``, ``prod``, ``max``,
``min``, ``mean``, ``var``, ``std``), and the quantiles' ``method`` (JAX's ``"nearest"``),
as JAX defines them. ``extend(name, plain)`` gives
``plain`` (NumPy's function, run as ``jnp`` runs it) these keywords; a call without them is
``plain``'s.

A fixed ``size`` pads the indices (or values) with ``fill_value`` (0 for indices, the
smallest value for ``unique``) or cuts them. A masked reduction reduces ``where(mask, x,
identity)``, so the gradient reaches the elements the mask keeps; ``max`` and ``min`` need
an ``initial`` with a mask, and take the larger (smaller) of it and the reduction, each
getting half the gradient where they are equal, as JAX's ``maximum``.
"""

from __future__ import annotations

import functools

import numpy as np

from ...core import ops
from ...core.kinks import maximum_halves, minimum_halves
from ...core.tensor import Tensor
from ..array import asarray, canonical, followed, wrap

INDEX = np.int64  # narrowed to int32 by asarray unless x64


def _host(a):
    return a.value if isinstance(a, Tensor) else np.asarray(a)


def _sized(values, size, fill):
    """``values`` (a 1-d array) cut or padded with ``fill`` to ``size`` elements."""
    pad = np.full(max(size - len(values), 0), fill, values.dtype)
    return np.concatenate([values[:size], pad])


def _given(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not None}


def nonzero(plain, a, *, size=None, fill_value=None):
    if size is None:
        return plain(a)
    found = np.nonzero(np.atleast_1d(_host(a)))
    fills = fill_value if isinstance(fill_value, (tuple, list)) else (fill_value or 0,) * len(found)
    return tuple(asarray(_sized(i, size, f)) for i, f in zip(found, fills))


def flatnonzero(plain, a, *, size=None, fill_value=None):
    if size is None:
        return plain(a)
    return nonzero(plain, np.ravel(_host(a)), size=size, fill_value=fill_value)[0]


def argwhere(plain, a, *, size=None, fill_value=None):
    if size is None:
        return plain(a)
    return asarray(np.stack([i.value for i in nonzero(plain, a, size=size, fill_value=fill_value)], axis=1))


def where(plain, condition, x=None, y=None, *, size=None, fill_value=None):
    if x is None and y is None:
        return nonzero(plain, condition, size=size, fill_value=fill_value)
    if size is not None or fill_value is not None:
        raise ValueError("size and fill_value arguments cannot be used in three-term where function.")
    return plain(condition, x, y)


def unique(plain, ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):  # noqa: A002  (JAX's name)
    flags = dict(return_index=return_index, return_inverse=return_inverse, return_counts=return_counts)
    if size is None:
        return plain(ar, axis=axis, **flags)
    if axis is not None:
        raise NotImplementedError("jnp.unique(size=..., axis=...): gradmagic.jax takes size= with "
                                  "axis=None (the flattened array)")
    found = np.unique(_host(ar), **flags)
    found = found if isinstance(found, tuple) else (found,)
    values = found[0]
    out = [_sized(values, size, values.min() if fill_value is None and values.size else fill_value or 0)]
    for name, part in zip([k for k, v in flags.items() if v], found[1:]):
        out.append(part.astype(INDEX) if name == "return_inverse" else _sized(part.astype(INDEX), size, 0))
    out = [asarray(o) for o in out]
    return tuple(out) if len(out) > 1 else out[0]


def bincount(plain, x, weights=None, minlength=0, *, length=None):
    """``length``: the counts of ``0 .. length - 1`` (larger values dropped)."""
    if length is None:
        return plain(x, weights, minlength)
    return plain(x, weights, length)[:length]


# -- reductions with a mask and an initial value ----------------------------------------------
def _masked(a, where, fill):
    a = asarray(a)
    return a if where is None else ops.where(asarray(where), a, asarray(fill, a.dtype))


def _count(a, where, axis, keepdims):
    mask = np.broadcast_to(_host(where), np.shape(_host(a)))
    return np.sum(mask, axis=axis, keepdims=keepdims)


def sum(plain, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
        promote_integers=True):  # noqa: A001  (JAX's name)
    result = plain(_masked(a, where, 0), axis=axis, keepdims=keepdims, **_given(dtype=dtype, out=out))
    return result if initial is None else result + initial


def prod(plain, a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None,
         promote_integers=True):
    result = plain(_masked(a, where, 1), axis=axis, keepdims=keepdims, **_given(dtype=dtype, out=out))
    return result if initial is None else result * initial


def _extreme(name, lowest, halves):
    def reduce(plain, a, axis=None, out=None, keepdims=False, initial=None, where=None):
        if where is not None and initial is None:
            raise ValueError(f"reduction operation {name} does not have an identity, so to use a "
                             "where mask one has to specify 'initial'")
        dtype = asarray(a).dtype
        info = np.finfo if dtype.kind == "f" else np.iinfo
        bound = (-np.inf if lowest else np.inf) if dtype.kind == "f" else (
            info(dtype).min if lowest else info(dtype).max)
        result = plain(_masked(a, where, bound), axis=axis, keepdims=keepdims, **_given(out=out))
        return result if initial is None else halves(result, asarray(initial, dtype))
    reduce.__name__ = name
    return reduce


def mean(plain, a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    if where is None:
        return plain(a, axis=axis, keepdims=keepdims, **_given(dtype=dtype, out=out))
    total = sum(np.sum, a, axis=axis, keepdims=keepdims, where=where)
    return _float(total, dtype) / _count(a, where, axis, keepdims)


def var(plain, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    ddof = ddof if correction is None else correction
    if where is None:
        return plain(a, axis=axis, ddof=ddof, keepdims=keepdims, **_given(dtype=dtype, out=out))
    a = _float(a, dtype)
    centred = a - mean(None, a, axis=axis, keepdims=True, where=where)
    total = sum(np.sum, centred * centred, axis=axis, keepdims=keepdims, where=where)
    return total / (_count(a, where, axis, keepdims) - ddof)


def std(plain, a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
        correction=None):
    if where is None:
        return plain(a, axis=axis, ddof=ddof if correction is None else correction,
                     keepdims=keepdims, **_given(dtype=dtype, out=out))
    return np.sqrt(var(None, a, axis, dtype, None, ddof, keepdims, where=where, correction=correction))


def _float(a, dtype):
    """``a`` in ``dtype``, or JAX's default float where it is an integer or bool array."""
    a = asarray(a)
    target = canonical(dtype) if dtype is not None else a.dtype if a.dtype.kind == "f" else canonical(float)
    return a if a.dtype == target else ops.astype(a, target)


# -- sorting: descending ------------------------------------------------------------------
def sort(plain, a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``descending``: the ascending sort reversed, as JAX's."""
    result = plain(a, axis=axis, kind=kind, order=order, stable=stable)
    return np.flip(result, -1 if axis is None else axis) if descending else result


def argsort(plain, a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``descending``: as JAX's, equal elements kept in their order (the indices of the
    reversed array's ascending stable sort, reversed)."""
    if not descending:
        return plain(a, axis=axis, kind=kind, order=order, stable=stable)
    data = _host(a)
    if axis is None:
        data, axis = np.ravel(data), -1
    n = np.shape(data)[axis]
    flipped = np.argsort(np.flip(data, axis), axis=axis, kind=kind, stable=stable)
    return asarray(np.flip(n - 1 - flipped, axis))


# -- quantiles: JAX's methods ---------------------------------------------------------------
METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _quantile(percent, nan):
    """``jnp.quantile`` or ``percentile`` (``percent``), their ``nan`` forms too: NumPy's on
    positions computed as JAX computes them, in ``a``'s float dtype (a percentile ``q`` times
    0.01, as XLA's compiled ``q / 100``), with JAX's methods; ``"nearest"`` takes the lower of
    two equally near elements, as JAX does (NumPy takes the even one)."""
    name = ("nan" if nan else "") + ("percentile" if percent else "quantile")
    quantile = np.nanquantile if nan else np.quantile

    def reduce(plain, a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, **kwargs):
        if method not in METHODS:
            raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                             "'nearest' or 'inverted_cdf'")
        if isinstance(q, (list, tuple)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(q)} at "
                            "position 1.")
        if isinstance(q, Tensor) and followed(q):  # refused, in the words of jnp's own name
            return plain(a, q, axis=axis, out=out, keepdims=keepdims, method=method, **kwargs)
        a = _float(a, None)
        levels = np.asarray(_host(q), a.dtype)
        if percent:
            levels = levels * a.dtype.type(0.01)
        run = functools.partial(quantile, a, levels, axis=axis, out=out, keepdims=keepdims, **kwargs)
        if method != "nearest":
            return wrap(run(method=method))
        lower, higher = run(method="lower"), run(method="higher")
        data = _host(a)
        count = np.sum(~np.isnan(data) if nan else np.ones(np.shape(data), bool), axis=axis,
                       keepdims=keepdims)
        pos = levels.reshape(levels.shape + (1,) * np.ndim(count)) * (count - 1).astype(a.dtype)
        return wrap(ops.where(pos - np.floor(pos) <= 0.5, lower, higher))
    return reduce


KEYWORDS = {"nonzero": nonzero, "flatnonzero": flatnonzero, "argwhere": argwhere, "where": where,
            "unique": unique, "bincount": bincount, "sort": sort, "argsort": argsort, "sum": sum,
            "prod": prod, "mean": mean, "var": var, "std": std,
            "max": _extreme("max", True, maximum_halves), "min": _extreme("min", False, minimum_halves)}
KEYWORDS.update(amax=KEYWORDS["max"], amin=KEYWORDS["min"], quantile=_quantile(False, False),
                percentile=_quantile(True, False), nanquantile=_quantile(False, True),
                nanpercentile=_quantile(True, True))


def extend(name, plain):
    """``plain`` (the ``jnp`` function ``name``), taking JAX's own keywords too where it has some."""
    impl = KEYWORDS.get(name)
    if impl is None:
        return plain

    @functools.wraps(plain)
    def run(*args, **kwargs):
        return impl(plain, *args, **kwargs)
    return run
