"""PyTorch's legacy tensor constructors: ``torch.Tensor(...)`` and ``torch.FloatTensor(...)``
and their kin, as PyTorch 2.13.0 reads their arguments.

``torch.Tensor([1, 2])`` is data in the default float dtype (``tensor([1., 2.])``);
``torch.Tensor(2, 3)`` or ``torch.Tensor(torch.Size([2, 3]))`` a tensor of that size
(uninitialised in PyTorch, zeros here); ``torch.Tensor()`` an empty one; ``torch.Tensor(t)``
a view of tensor ``t``. Calling the class is this constructor (its metaclass's ``__call__``);
the engine makes its tensors with ``Tensor.__new__``, which it leaves alone.
"""

from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.tensor import to_array
from .modes import INFERENCE
from .values import ELEMENT_TYPES, TYPE_NAMES, Size, check_device, default_float, named, type_name
from .views import make_view, reshaped

SIGNATURES = (" * (*, torch.device device = None)\n{why}\n * (torch.Storage storage)\n * (Tensor other)\n"
              " * (tuple of ints size, *, torch.device device = None)\n"
              " * (object data, *, torch.device device = None)\n")


def _described(v, inside=False):
    """An argument's type as PyTorch's argument parser writes it (``inside``: a list's
    elements' too, ``list of [int]``)."""
    if inside and isinstance(v, list):
        return f"list of [{', '.join(dict.fromkeys(_described(x) for x in v))}]"
    return {"dtype": "torch.dtype", "Size": "tuple of ints"}.get(type(v).__name__, type(v).__name__)


def _refused(args, kwargs, why):
    got = ", ".join([_described(a) for a in args] + [f"{k}={_described(v)}" for k, v in kwargs.items()])
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected "
                    f"one of:\n{SIGNATURES.format(why=why)}")


def _options(dtype):
    return (f"TensorOptions(dtype={ELEMENT_TYPES[np.dtype(dtype).name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _is_size(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def legacy_new(cls, dtype, args, kwargs, fn):
    """A tensor of class ``cls`` and ``dtype`` from the arguments of ``torch.Tensor(...)``
    (``fn``: ``torch.FloatTensor`` ...)."""
    wrong = [k for k in kwargs if k != "device"]
    if wrong:
        _refused(args, kwargs,
                 f"      didn't match because some of the keywords were incorrect: {', '.join(wrong)}")
    check_device(kwargs.get("device"), fn)
    if len(args) == 1 and isinstance(args[0], cls):  # a view of it (an alias, in PyTorch)
        other = args[0]
        if fn != "torch.Tensor" and other.dtype != dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(other.dtype)})")
        return make_view(other, lambda base: named(ops.identity(base), "AliasBackward0"), reshaped)
    if len(args) == 1 and isinstance(args[0], Size) or args and all(_is_size(a) for a in args):
        sizes = tuple(int(a) for a in (args[0] if isinstance(args[0], Size) else args))
        if any(s < 0 for s in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}")
        value = np.zeros(sizes, dtype)
    elif not args:
        value = np.zeros(0, dtype)
    elif len(args) > 1:
        marked = ", ".join(f"!{_described(a, inside=True)}!" for a in args)
        _refused(args, kwargs, f"      didn't match because some of the arguments have invalid types: ({marked})")
    elif isinstance(args[0], str):
        raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")
    elif not hasattr(args[0], "__len__"):
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    else:
        value = args[0]
    t = cls.__new__(cls)
    t.value = to_array(value, dtype, fn, "data", copy=True)
    if INFERENCE.get():
        t.inference = True
    return t


class LegacyConstructor(type):
    """The class of ``torch.Tensor``: calling it is PyTorch's legacy constructor, in the
    default float dtype."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls, default_float(), args, kwargs, "torch.Tensor")


class TypedTensor:
    """``torch.FloatTensor`` and its kin: the legacy constructor of one dtype; a tensor of
    that dtype is an instance of it, as in PyTorch (``isinstance(x, torch.FloatTensor)``)."""

    def __init__(self, cls, dtype):
        self.cls, self.dtype = cls, dtype
        self.__name__ = f"{type_name(dtype)}Tensor"

    def __call__(self, *args, **kwargs):
        return legacy_new(self.cls, self.dtype, args, kwargs, f"torch.{self.__name__}")

    def __instancecheck__(self, obj):
        return isinstance(obj, self.cls) and obj.dtype == self.dtype

    def __repr__(self):
        return f"<class 'torch.{self.__name__}'>"


def typed_dtype(dtype):
    """``x.type("torch.DoubleTensor")``'s and ``x.type(torch.DoubleTensor)``'s dtype; another
    ``dtype`` as it is."""
    if isinstance(dtype, str):
        name = dtype.removeprefix("torch.").removesuffix("Tensor")
        found = [d for d, n in TYPE_NAMES.items() if n == name]
        if not found:
            raise ValueError(f"invalid type: '{dtype}'")
        return np.dtype(found[0])
    return getattr(dtype, "dtype", dtype) if isinstance(dtype, TypedTensor) else dtype
