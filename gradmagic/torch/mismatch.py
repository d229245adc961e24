"""PyTorch's errors for operands whose shapes do not fit: ``mismatch`` is the torch tensor
class's hook, which the engine calls where NumPy refused a binary op's shapes, and gives
the ``RuntimeError`` PyTorch raises there, in its words (``mat1 and mat2 shapes cannot be
multiplied (2x3 and 2x3)``, ``The size of tensor a (3) must match the size of tensor b (4)
at non-singleton dimension 1``)."""

import numpy as np

from .values import broadcast_shape


def _dims(shape):
    return "x".join(str(n) for n in shape)


def _unbroadcastable(a, b):
    """PyTorch's message where shapes ``a`` and ``b`` do not broadcast; else None."""
    try:
        broadcast_shape("", a, b)
    except RuntimeError as e:
        return str(e).removeprefix(": ")
    return None


def _matmul(a, b):
    """PyTorch's message for ``a @ b`` of these shapes (the first check that fails)."""
    if len(a) == 1 and len(b) == 1:
        return (f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have the same "
                f"number of elements, but got {a[0]} and {b[0]} elements respectively")
    if len(a) == 2 and len(b) == 1:
        return f"size mismatch, got input ({a[0]}), mat ({_dims(a)}), vec ({b[0]})"
    if len(a) <= 2 and len(b) == 2:
        rows = a if len(a) == 2 else (1,) + tuple(a)
        return f"mat1 and mat2 shapes cannot be multiplied ({_dims(rows)} and {_dims(b)})"
    batch_a, batch_b = tuple(a[:-2]), tuple(b[:-2])
    unfit = _unbroadcastable(batch_a, batch_b)
    if unfit:
        return unfit
    n = int(np.prod(broadcast_shape("", batch_a, batch_b)))
    return (f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {a[-1]}] but "
            f"got: [{n}, {b[-2]}].")


def mismatch(prim, vals, error):
    """The error PyTorch raises for ``prim`` on values of these shapes; NumPy's ``error``
    where the shapes do fit (another ValueError)."""
    shapes = [np.shape(v) for v in vals]
    if prim.name == "matmul":
        sa, sb = shapes
        if not sa or not sb:
            return RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                                f"{len(sa)}D and {len(sb)}D")
        return RuntimeError(_matmul(sa, sb))
    shape = shapes[0]
    for other in shapes[1:]:  # broadcast in order, as PyTorch's iterator meets the operands
        unfit = _unbroadcastable(shape, other)
        if unfit:
            return RuntimeError(unfit)
        shape = broadcast_shape("", shape, other)
    return error
