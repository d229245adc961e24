"""Which inputs a PyTorch node saves for its backward pass, where a leaf changed in place
since the node used it is concerned: PyTorch raises ("modified by an inplace operation") only
when the node saved it, and otherwise runs, the leaf's gradient not depending on its value
(``(x @ w).sum()`` saves ``x`` for ``w``'s gradient, not ``w``, while ``x`` needs none;
``w * 5 + 1`` saves nothing). gradmagic's rules read the values the op used, so where it runs
it gives PyTorch's numbers.

And ``t.data = new`` (``Tensor.assign``): PyTorch's saved references to ``t`` see the new
data, with no error; ``assigned_since`` tells the walk that only such assignments changed
``t`` since a node used it, so that the node is walked with ``t`` as it is now.
"""

from __future__ import annotations

NOT_SAVED = frozenset({  # ops linear in each input, whose backward reads no input's value
    "add", "subtract", "negative", "positive", "sum", "mean", "reshape", "transpose", "swapaxes",
    "moveaxis", "getitem", "expand_dims", "squeeze", "broadcast_to", "concatenate", "stack",
    "identity", "astype", "where", "flip", "cumsum"})
PRODUCTS = frozenset({"multiply", "matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum",
                      "kron"})  # each input saved for the others' gradients, where they need one
DIVISIONS = frozenset({"divide", "true_divide"})  # the divisor saved always; the dividend for the divisor's


def saves(node, k) -> bool:
    """Whether PyTorch's node for ``node`` saved its input ``k`` (a tensor)."""
    name = node.prim.name
    if name in NOT_SAVED:
        return False
    if name in PRODUCTS or name in DIVISIONS and k == 0:
        needing = node.grad_ids
        return any(id(a) in needing for j, a in enumerate(node.args) if j != k)
    return True


def assigned_since(t, version) -> bool:
    """Whether every change of ``t`` since ``version`` was a ``t.data = ...`` assignment."""
    return t.assigned == t.version and t.assigned_from <= version
