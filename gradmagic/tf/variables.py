"""A Variable's scatter methods, as TensorFlow's (``v.scatter_nd_update(indices, updates)``,
``v.scatter_update(tf.IndexedSlices(values, indices))`` ...).

Each computes the new value with the matching ``tf.tensor_scatter_nd_*`` (so indices,
shapes and dtypes are checked with TensorFlow's errors) on the values alone, and assigns
it: like ``assign``, an update is not recorded, and returns the Variable.
"""

import numpy as np

from ..core.tensor import Tensor
from ..core.tensor import Variable as CoreVariable
from ..errors import GradientTypeError
from .arrays import gather
from .scatter import tensor_scatter_nd_add, tensor_scatter_nd_sub, tensor_scatter_nd_update
from .tensors import IndexedSlices


def values_of(x):
    """``x`` as what a scatter reads: a Tensor's values alone, so that no tape records it."""
    return Tensor(x.value) if isinstance(x, Tensor) else x


def updated(scatter):
    """The Variable method that assigns ``scatter(variable, indices, updates)``."""
    def method(self, indices, updates, name=None):
        return self.assign(scatter(values_of(self), values_of(indices), values_of(updates)))
    method.__name__ = scatter.__name__.replace("tensor_", "")
    return method


def by_rows(scatter):
    """The Variable method that applies an ``IndexedSlices`` row by row with ``scatter``."""
    nd = updated(scatter)

    def method(self, sparse_delta, use_locking=False, name=None):
        if not isinstance(sparse_delta, IndexedSlices):
            raise GradientTypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. "
                                    f"Received arg: {sparse_delta}")
        rows = Tensor(np.expand_dims(sparse_delta.indices.numpy(), -1))
        return nd(self, rows, sparse_delta.values)
    method.__name__ = scatter.__name__.replace("tensor_", "").replace("_nd", "")
    return method


def sparse_read(self, indices, name=None):
    """``v.sparse_read(indices)``: ``tf.gather(v, indices)``, whose gradient for ``v`` is an
    ``IndexedSlices``."""
    return gather(self, indices)


CoreVariable.add_methods(
    sparse_read=sparse_read, scatter_nd_update=updated(tensor_scatter_nd_update), scatter_nd_add=updated(tensor_scatter_nd_add),
    scatter_nd_sub=updated(tensor_scatter_nd_sub), scatter_update=by_rows(tensor_scatter_nd_update),
    scatter_add=by_rows(tensor_scatter_nd_add), scatter_sub=by_rows(tensor_scatter_nd_sub))
