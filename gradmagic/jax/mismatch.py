"""JAX's errors for operands whose shapes do not fit: ``mismatch`` is the Array class's hook,
which the engine calls where NumPy refused a binary or n-ary op, and gives the error JAX
raises there, in its words: a ``TypeError`` naming ``lax``'s primitive for operands of one
rank (``add got incompatible shapes for broadcasting: (2,), (3,).``), JAX's ``ValueError``
for ranks that differ, and ``dot_general``'s for a product."""

import numpy as np

from .._backend import broadcastable, numpy_dtype

# the engine's op -> lax's primitive, which JAX's message names
LAX_NAMES = {"subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
             "power": "pow", "maximum": "max", "minimum": "min", "equal": "eq", "not_equal": "ne",
             "less": "lt", "greater": "gt", "less_equal": "le", "greater_equal": "ge",
             "arctan2": "atan2", "remainder": "rem"}


def _matmul(a, b, da, db):
    """JAX's message for ``a @ b`` of shapes ``a`` and ``b`` (dtypes ``da``, ``db``)."""
    inner_b = b[0] if len(b) == 1 else b[-2]
    if a[-1] != inner_b:
        return TypeError(f"dot_general requires contracting dimensions to have the same shape, got "
                         f"({a[-1]},) and ({inner_b},).")
    typed = [f"{numpy_dtype(d).name}[{','.join(str(n) for n in s)}]" for d, s in ((da, a), (db, b))]
    return ValueError(f"Incompatible types for matmul arguments: {typed[0]} and {typed[1]}")


def mismatch(prim, vals, error):
    """The error JAX raises for ``prim`` on values of these shapes; NumPy's ``error`` where
    the shapes do fit (another ValueError)."""
    shapes = [tuple(np.shape(v)) for v in vals]
    if prim.name == "matmul":
        a, b = shapes
        if a and b:
            return _matmul(a, b, vals[0].dtype, vals[1].dtype)
        return error
    if broadcastable(*shapes):
        return error
    if len(shapes) == 2 and len(shapes[0]) == len(shapes[1]):
        return TypeError(f"{LAX_NAMES.get(prim.name, prim.name)} got incompatible shapes for "
                         f"broadcasting: {shapes[0]}, {shapes[1]}.")
    return ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
