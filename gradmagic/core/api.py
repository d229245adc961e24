"""The functional form: ``grad`` and ``value_and_grad`` over plain arrays, as in JAX."""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import numpy as np

from ..errors import GradientTypeError
from .context import calling
from .tape import GradientTape
from .tensor import Tensor, constant


def _argnums(argnums, n, fn):
    ok = isinstance(argnums, int) or (isinstance(argnums, (tuple, list)) and argnums)
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums) if ok else ()
    if not ok or any(isinstance(a, bool) or not isinstance(a, int) or not -n <= a < n for a in nums):
        raise GradientTypeError(
            f"{fn}: argnums={argnums!r}, but the function was called with {n} positional "
            f"argument(s), so argnums must be an int (or a tuple of ints) in range({n})")
    return nums


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """``f``'s value and its gradient with respect to the arguments ``argnums``.

    ``f`` must return a scalar. Arguments may be NumPy/CuPy arrays, Python numbers or
    Tensors; gradients come back as raw arrays for raw arguments and as Tensors for
    Tensor arguments, so ``grad(grad(f))`` gives the second derivative.

    >>> import numpy as np
    >>> value, g = gm.value_and_grad(lambda x: np.sum(x ** 2))(np.array([1.0, 2.0]))
    >>> float(value), g.tolist()
    (5.0, [2.0, 4.0])
    """
    name = getattr(f, "__name__", "f")

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        nums = _argnums(argnums, len(args), f"grad({name})")
        args = list(args)
        raw = {}
        for a in nums:
            if not isinstance(args[a], Tensor):
                raw[a] = True
                dtype = getattr(args[a], "dtype", None)
                if dtype is None:  # a Python number or list: floats become float64, ints stay ints
                    dtype = np.asarray(args[a]).dtype
                args[a] = constant(args[a], dtype=dtype)
            if args[a].dtype.kind != "f":
                raise GradientTypeError(
                    f"grad({name}): argument {a} has dtype {args[a].dtype}; gradients need a "
                    "real floating dtype, so pass x.astype(float) (for a complex z, its real "
                    "and imaginary parts as two arguments)")
        with GradientTape() as tape:
            for a in nums:
                tape.watch(args[a])
            calling(f, args, kwargs)
            out = f(*args, **kwargs)
        if not isinstance(out, Tensor) and np.ndim(out) == 0 and np.asarray(out).dtype.kind in "fc":
            out = constant(out)  # does not depend on the arguments: its gradient is zero
        if not isinstance(out, Tensor) or out.ndim != 0:
            what = (f"shape {out.shape}" if hasattr(out, "shape") else type(out).__name__)
            raise GradientTypeError(
                f"grad({name}): the function must return a scalar Tensor computed from its "
                f"arguments, got {what}; reduce it first (np.sum(...) or np.mean(...))")
        grads = tape.gradient(out, [args[a] for a in nums], unconnected_gradients="zero")
        grads = [g.value if a in raw else g for a, g in zip(nums, grads)]
        value = out.value if all(a in raw for a in nums) else out
        return value, (grads[0] if isinstance(argnums, int) else tuple(grads))

    return wrapper


def grad(f: Callable, argnums: int | Sequence[int] = 0) -> Callable:
    """The gradient of scalar-valued ``f`` with respect to argument(s) ``argnums``.

    >>> import numpy as np
    >>> float(gm.grad(lambda x: x ** 3)(3.0))
    27.0
    >>> float(gm.grad(gm.grad(lambda x: x ** 3))(3.0))
    18.0
    """
    vg = value_and_grad(f, argnums)

    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    return wrapper
