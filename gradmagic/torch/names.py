"""The names PyTorch gives its ``grad_fn`` nodes where they depend on more than the op: an
overload chosen by the arguments (``SumBackward1`` with a ``dim``, ``PowBackward2`` for a
number's power), the kernel a product dispatches to (``MmBackward0``, ``MvBackward0``,
``DotBackward0``), the view an index makes (``SelectBackward0``, ``SliceBackward0``,
``IndexBackward0``, ``UnsqueezeBackward0``) and the ops whose ATen names differ from the
engine's (``CatBackward0``, ``ExpandBackward0``, ``ToCopyBackward0``). ``node_name`` is what
``grad_fn.name()`` and a tensor's print show; ``values.step_name`` gives the rest."""

import numpy as np

from ..core.tensor import Tensor
from .values import node_class, step_name

RENAMED = {"concatenate": "CatBackward0", "stack": "StackBackward0", "expand_dims": "UnsqueezeBackward0",
           "broadcast_to": "ExpandBackward0", "astype": "ToCopyBackward0", "identity": "CloneBackward0",
           # the engine's fused backward ops, in a create_graph pass: the node PyTorch's formula ends in
           "power_backward": "MulBackward0", "divide_backward": "MulBackward0",
           "sum_backward": "ExpandBackward0", "mean_backward": "DivBackward0"}
PRODUCTS = {(2, 2): "MmBackward0", (1, 1): "DotBackward0", (2, 1): "MvBackward0", (1, 2): "SqueezeBackward4"}
# reductions whose overload with a dim is PyTorch's 1 (max and min: their overload without one)
WITH_DIM = {"sum": ("SumBackward0", "SumBackward1"), "mean": ("MeanBackward0", "MeanBackward1"),
            "prod": ("ProdBackward0", "ProdBackward1"), "max": ("MaxBackward1", "MaxBackward0"),
            "min": ("MinBackward1", "MinBackward0"), "squeeze": ("SqueezeBackward0", "SqueezeBackward1")}


def _index_name(index):
    """The node of ``x[index]``: the last view PyTorch applies (an advanced index last of all)."""
    parts = index if isinstance(index, tuple) else (index,)
    if any(hasattr(p, "shape") and np.ndim(p) > 0 or isinstance(p, list) for p in parts):
        return "IndexBackward0"
    name = "AliasBackward0"
    for p in parts:
        if p is None:
            name = "UnsqueezeBackward0"
        elif isinstance(p, slice) and p != slice(None):
            name = "SliceBackward0"
        elif not isinstance(p, slice) and p is not Ellipsis:
            name = "SelectBackward0"
    return name


CONTEXTUAL = {"matmul", "getitem", "power", "subtract", "divide", "transpose", *WITH_DIM}  # named by more than the op
CLASSES = {}  # an op whose name alone names its nodes -> their class


def node_type(node):
    """The class a new node takes, named as PyTorch names its type (cached per op where the
    op alone decides the name: most ops, and every custom Function's)."""
    cls = CLASSES.get(node.prim)
    if cls is None:
        cls = node_class(node_name(node), node.kind)
        if node.prim.name not in CONTEXTUAL or node.prim.joint:
            CLASSES[node.prim] = cls
    return cls


def node_name(node) -> str:
    """PyTorch's name for the node of one op (its ``label`` where a function set one)."""
    prim, vals, params = node.prim, node.vals, node.params
    name = prim.name
    if name == "matmul":
        return PRODUCTS.get((np.ndim(vals[0]), np.ndim(vals[1])), "UnsafeViewBackward0")
    if name == "getitem":
        return _index_name(params.get("index"))
    if name in WITH_DIM:
        return WITH_DIM[name][params.get("axis") is not None]
    if name == "power":
        return "PowBackward2" if not isinstance(node.args[0], Tensor) else (
            "PowBackward1" if isinstance(node.args[1], Tensor) else "PowBackward0")
    if name == "subtract" and not isinstance(node.args[0], Tensor):
        return "RsubBackward1"
    if name == "divide" and not isinstance(node.args[0], Tensor):
        return "MulBackward0"  # PyTorch's 2 / x: its reciprocal times 2
    if name == "transpose":
        axes = params.get("axes")
        n = np.ndim(vals[0])
        moved = n if axes is None else sum(1 for i, a in enumerate(axes) if i != a)
        return "TransposeBackward0" if moved == 2 and n > 2 else "PermuteBackward0"
    return RENAMED.get(name) or step_name(prim)
