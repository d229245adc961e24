"""Sparse gradients, as TensorFlow gives them: ``tf.GradientTape`` and ``tf.gather``.

``tf.gather`` along the first axis records a ``gather`` op. A source that carries a
gradient to the target through such gathers of itself alone (directly, or through
``tf.identity``, a Variable's read or a ``tf.cast``) gets an ``IndexedSlices``, as in
TensorFlow: the gathers' upstream gradients as ``values`` (one row per index: a repeated
index keeps its rows apart), their ``indices``, and the source's shape as ``dense_shape``;
the last gather first, as TensorFlow's backward pass meets them. When anything else carries
a gradient to the source too, its gradient is the dense sum, as in TensorFlow.

The pass itself is the engine's (dense): the tape asks it for the gathers' upstreams
besides (``upstreams_wanted``) and assembles the slices from them (``regrade``).
"""

import numpy as np

from .._backend import kind, xp_of
from ..core import ops
from ..core.context import TAPES
from ..core.primitive import Primitive, apply, defvjp
from ..core.tape import GradientTape as CoreTape
from ..core.tensor import Tensor
from .tensors import IndexedSlices, as_tensor

GATHER = Primitive("gather", op=lambda x, index: x[index])
defvjp(GATHER, lambda g, ans, x, index: ops.scatter_add(g, x.shape, index),
       labels=("scatter-add into zeros",))

THROUGH = (ops.IDENTITY, ops.ASTYPE)  # TensorFlow passes IndexedSlices through these


def rows(params, index):
    """``params[index]``, ``index`` an integer array: ``tf.gather`` along axis 0."""
    for tape in TAPES.get():  # so that a tape without gathers keeps the engine's quick path
        if isinstance(tape, GradientTape):
            tape.dense = False
    return apply(GATHER, params, index=index)


class GradientTape(CoreTape):
    __doc__ = CoreTape.__doc__ + """
    As TensorFlow's, it gives a source read only through ``tf.gather`` an ``IndexedSlices``
    (``tf/sparse.py``)."""

    # dense (the core's True) turns False once a tf.gather is recorded while it is active

    def upstreams_wanted(self, sources):
        self._plan = plan = []  # (source index, gathers, others), for regrade
        wanted = []
        uses = self.recorded().uses()
        for k, s in enumerate(sources):
            if not isinstance(s, Tensor) or kind(s.dtype) != "f" or not s.shape:
                continue
            gathers, others = [], []
            _reached(uses, s, gathers, others)
            if gathers:
                plan.append((k, gathers, others))
                wanted += [out for out, _ in gathers] + others
        return wanted

    def regrade(self, sources, results, upstreams):
        results = list(results)
        at = 0
        for k, gathers, others in self._plan:
            ups = upstreams[at:at + len(gathers)]
            dense = any(u is not None for u in upstreams[at + len(gathers):at + len(gathers) + len(others)])
            at += len(gathers) + len(others)
            pairs = [(u, index) for u, (_, index) in zip(ups, gathers) if u is not None]
            if dense or not pairs or results[k] is None:
                continue
            s = sources[k]
            pairs.reverse()  # the last gather first, as the backward pass meets them
            values = ops.concatenate([ops.reshape(u, (-1,) + s.shape[1:]) for u, _ in pairs], axis=0)
            xp = xp_of(pairs[0][1])
            indices = xp.concatenate([xp.reshape(index, -1) for _, index in pairs])
            if values.dtype != s.dtype:  # through a cast: the source's dtype, as the dense one
                values = ops.astype(values, s.dtype)
            results[k] = IndexedSlices(as_tensor(values), Tensor(indices),
                                       Tensor(xp.asarray(s.shape, dtype=np.int32)))
        self._plan = None
        return results


def _reached(uses, t, gathers, others):
    """Sort the recorded ops that take ``t``: gathers of it (``(out, index)``, into
    ``gathers``), the ops TensorFlow passes IndexedSlices through (followed), and every
    other op's float outputs (into ``others``: a gradient through them makes ``t``'s dense)."""
    for prim, args, out, params in uses.get(id(t), ()):
        if prim is GATHER and args[0] is t:
            gathers.append((out, params["index"]))
        elif prim in THROUGH and isinstance(out, Tensor) and kind(out.dtype) == "f":
            _reached(uses, out, gathers, others)
        else:
            outs = out if type(out) is tuple else (out,)
            others += [o for o in outs if isinstance(o, Tensor) and kind(o.dtype) in "fc"]
