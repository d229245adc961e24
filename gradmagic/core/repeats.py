"""Which of the values an indexed write gives stay written where its index names an
element more than once: the last, in order, as NumPy's assignment and JAX's
``x.at[index].set`` on a CPU leave it (``x[[0, 0]] = [1, 2]`` holds 2)."""

import math

import numpy as np

from .._backend import to_host


def _integer_array(p):
    return getattr(p, "ndim", 0) > 0 and np.dtype(p.dtype).kind in "iu"


def last_writes(shape, index):
    """A bool mask over ``x[index]`` (``x`` of ``shape``): True for the values that stay
    written, each the last to name its element; None where no element is named twice (only
    an integer array in the index can name one twice)."""
    parts = index if isinstance(index, tuple) else (index,)
    parts = tuple(np.asarray(p) if isinstance(p, list) else p for p in parts)
    if not any(_integer_array(p) for p in parts):
        return None
    host = tuple(to_host(p) if hasattr(p, "dtype") else p for p in parts)
    target = np.arange(math.prod(shape)).reshape(shape)[host if isinstance(index, tuple) else host[0]]
    ids = target.ravel()
    _, first_from_end = np.unique(ids[::-1], return_index=True)
    if first_from_end.size == ids.size:
        return None
    keep = np.zeros(ids.size, bool)
    keep[ids.size - 1 - first_from_end] = True
    return keep.reshape(target.shape)
