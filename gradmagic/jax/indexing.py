"""Out-of-bounds integer indices, as JAX treats them on a CPU: a gather (``x[i]``,
``x.at[i].get()``) clamps each to the nearest valid index, and its gradient reaches no
element through one; a scatter (``x.at[i].set/add/...``) drops the updates they name
(JAX's default modes). ``bounded`` finds them and gives both forms of the index."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.tensor import Tensor


class Bounded(NamedTuple):
    """An index with an out-of-bounds entry, in its forms for a gather and a scatter."""

    clamped: tuple  # each out-of-bounds entry moved to the nearest valid index
    dropped: tuple  # each one at ``n``, one past the end: an index into the array padded to ``extended``
    extended: tuple  # the array's shape, each axis with an out-of-bounds entry one longer
    valid: np.ndarray  # bool, the shape of ``x[index]``: False where an entry came through one


def values(index):
    """``index`` with its Tensors as the arrays they hold (an index carries no gradient)."""
    if isinstance(index, tuple):
        return tuple(values(i) for i in index)
    return index.value if isinstance(index, Tensor) else index


def _is_bool(part):
    return isinstance(part, (bool, np.bool_)) or isinstance(part, np.ndarray) and part.dtype == np.bool_


def _is_int(part):
    return (isinstance(part, (int, np.integer)) and not isinstance(part, (bool, np.bool_))
            or isinstance(part, np.ndarray) and part.dtype.kind in "iu")


def _integer_parts(shape, index):
    """``(position in index, axis)`` for each integer part of the tuple ``index``."""
    used = sum(0 if p is None or p is Ellipsis else np.ndim(p) if _is_bool(p) else 1 for p in index)
    axis, found = 0, []
    for k, part in enumerate(index):
        if part is Ellipsis:
            axis += len(shape) - used
        elif _is_bool(part):
            axis += np.ndim(part)
        elif part is not None:
            if _is_int(part) and axis < len(shape):
                found.append((k, axis))
            axis += 1
    return found


def bounded(shape, index):
    """``index`` (its Tensors as values) in its gather and scatter forms (``Bounded``), or None
    where every integer in it is in bounds for an array of ``shape``."""
    index = index if isinstance(index, tuple) else (index,)
    bad = []
    for k, axis in _integer_parts(shape, index):
        n, i = shape[axis], index[k]
        if isinstance(i, int) and -n <= i < n:
            continue
        i = np.asarray(i)
        outside = (i < -n) | (i >= n)
        if outside.any():
            bad.append((k, axis, np.where(i < 0, i + n, i), outside, n))
    if not bad:
        return None
    clamped, dropped, extended = list(index), list(index), list(shape)
    for k, axis, i, outside, n in bad:
        clamped[k], dropped[k] = np.clip(i, 0, n - 1), np.where(outside, n, i)
        extended[axis] = n + 1
    ok = np.ones(extended, bool)
    for _, axis, _, _, n in bad:
        ok[(slice(None),) * axis + (n,)] = False
    return Bounded(tuple(clamped), tuple(dropped), tuple(extended), ok[tuple(dropped)])


def fill_value(dtype, given=None):
    """What JAX's ``mode="fill"`` puts where an index is out of bounds, unless ``given``: NaN
    for floats, True for bools, an integer type's smallest (unsigned: largest) value."""
    if given is not None:
        return given
    if dtype.kind == "f":
        return np.nan
    if dtype.kind == "b":
        return True
    return np.iinfo(dtype).min if dtype.kind == "i" else np.iinfo(dtype).max
