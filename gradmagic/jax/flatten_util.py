"""``jax.flatten_util``: ``ravel_pytree``, a pytree's leaves as one flat Array and the function
that splits such an Array back into the tree."""

from __future__ import annotations

import numpy as np

from ..core import ops
from .array import asarray, canonical
from .tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree):
    """``(flat, unravel)``: the leaves raveled and joined (in the type they promote to, as
    JAX's), and ``unravel(flat)`` the tree again, each leaf of its shape and dtype. Gradients
    flow through both."""
    leaves, treedef = tree_flatten(pytree)
    leaves = [asarray(x) for x in leaves]
    shapes = [x.shape for x in leaves]
    dtypes = [x.dtype for x in leaves]
    sizes = [int(np.prod(s)) for s in shapes]
    dtype = canonical(np.result_type(*dtypes)) if dtypes else np.dtype(np.float32)
    flat = (ops.concatenate([ops.reshape(x.astype(dtype) if x.dtype != dtype else x, (-1,))
                             for x in leaves]) if leaves else asarray(np.zeros(0, dtype)))
    ends = np.cumsum(sizes).tolist()

    def unravel(arr):
        arr = asarray(arr)
        if arr.shape != (sum(sizes),):
            raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension 0 of the "
                             f"operand shape {list(arr.shape)}")
        if arr.dtype != dtype:
            raise TypeError("unravel function given array of dtype "
                            f"{arr.dtype}, but expected dtype {dtype}")
        parts = [ops.reshape(arr[end - n:end], shape) for n, end, shape in zip(sizes, ends, shapes)]
        return tree_unflatten(treedef, [p.astype(d) if p.dtype != d else p
                                        for p, d in zip(parts, dtypes)])
    return flat, unravel
