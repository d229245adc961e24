"""``torch.Tensor``'s methods, each a map onto gradmagic's ops (through NumPy's names).

Every method is an op (or a few): the engine tells the class of each op that makes a torch
tensor, so an op on a tensor that requires grad gets its ``grad_fn`` (``graph.made``). Views
(``view``, ``t()``, basic indexing ...) remember their base: an in-place op on the base
reaches them, and one on a view writes into its base (``views.py``).
"""

from __future__ import annotations

import collections
import warnings

import numpy as np

from ..core import ops, special
from ..core.kinks import maximum_halves, minimum_halves
from ..core.tensor import Tensor as CoreTensor
from ..core.tensor import to_array
from .._backend import default_xp, to_host
from .._dtypes import FrameworkDType
from ..tracebacks import user_stacklevel
from .graph import as_tensor_of
from .hooks import register
from .modes import GRAD, INFERENCE, tangent_of
from .graph import Tensor as GraphTensor
from .subgradients import extreme, log_sum_exp, standard_deviation, variance, vector_norm
from .walk import backward
from .views import at, make_view, reshaped, swapped, transposed, write_through
from .legacy import LegacyConstructor, typed_dtype
from .printing import format_tensor
from .reshaping import NOT_VIEWABLE, viewable
from .values import (DEFAULT_INT, Device, Size, SizeMethod, check_device, default_float,
                     descending_order, dims, generator_of, named, summand,
                     sizes_of, torch_dtype, type_name)

values_indices = {n: collections.namedtuple(n, ["values", "indices"])
                  for n in ("max", "min", "sort", "topk", "median")}


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (int, slice, type(None), type(Ellipsis))) and not isinstance(i, bool)
               for i in items)


class Tensor(GraphTensor, metaclass=LegacyConstructor):
    """``torch.Tensor``: a gradmagic Tensor with PyTorch's methods and autograd state."""

    view_of = None  # the tensor this one is a view of (an in-place op on it writes into it)
    views = remake = None  # its views, by weak reference; a view's: how it is made (views.py)
    write = None  # a view's: how an in-place op on it writes into its base (views.py)
    # how a trace's notes write NumPy's and gradmagic's functions for a PyTorch user
    # (debug/nans.py): torch's functions where they have NumPy's names and meanings
    spelling = {"gm.softplus": "F.softplus", "np.logaddexp(0, x)": "torch.logaddexp(torch.zeros_like(x), x)",
                "gm.sigmoid": "torch.sigmoid", "gm.logsumexp": "torch.logsumexp",
                "np.max(x)": "x.max()", "np.": "torch."}

    # -- what it is ----------------------------------------------------------------------
    @property
    def shape(self):
        return Size(self.value.shape)

    @property
    def dtype(self):
        """``torch.float32`` ...: NumPy's dtype to NumPy, PyTorch's to the user's code."""
        return torch_dtype(self.value.dtype)

    @property
    def size(self):
        """``t.size()`` (a ``torch.Size``) and ``t.size(dim)``, as PyTorch; ``t.size`` itself
        is the element count, as NumPy's, for gradmagic's own code."""
        return SizeMethod(self.value.shape)

    def dim(self):
        return self.value.ndim

    ndimension = dim

    def numel(self):
        return int(self.value.size)

    nelement = numel

    @property
    def device(self):
        return "cpu"

    @property
    def is_cuda(self):
        return False

    @property
    def data(self):
        """The same values, detached; in-place ops on it change this tensor (``w.data -= ...``)
        where the graph does not see it, as PyTorch's: no new version, and an op that made this
        tensor is walked with the new value."""
        out = self.detach()
        out.untracked = True
        return out

    @data.setter
    def data(self, other):
        self.assign(other.value if isinstance(other, CoreTensor) else np.asarray(other))
        # (a new array: the aliases made before keep the old one, as PyTorch's)

    def detach(self):
        return self.alias()

    def detach_(self):
        if self.view_of is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self.leaf_requires_grad = False
        return self

    def item(self):
        if self.value.size != 1:
            raise RuntimeError(f"a Tensor with {self.value.size} elements cannot be converted "
                               "to Scalar")
        return self.numpy(force=True).item()

    def numpy(self, force=False):
        self._no_graph_lost(force)
        value = to_host(self.value)  # the tensor's own array, as PyTorch's shares its memory
        return np.asarray(value) if isinstance(value, np.generic) else value  # 0-d: an array

    def _no_graph_lost(self, force=False):
        """PyTorch's check before a tensor becomes a NumPy array: refused while grad mode is on
        and it requires grad (its graph would be lost), allowed under ``no_grad``, as in a
        ``Function``'s ``forward``, whose ``backward`` gives the gradient."""
        if self.requires_grad and not force and GRAD.get():
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")

    def tolist(self):
        return np.asarray(self.numpy(force=True)).tolist()

    def __array__(self, dtype=None, copy=None):
        self._no_graph_lost()
        return super().__array__(dtype, copy)

    def __repr__(self):
        return format_tensor(self)

    __str__ = __repr__

    def __format__(self, spec):
        """As PyTorch's: a 0-d tensor formats its number (``f"{loss:.4f}"``); any other
        prints as ``str`` does, ``f"{t}"`` reading ``tensor([...])``."""
        if self.value.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    # -- conversions -----------------------------------------------------------------------
    def to(self, *args, dtype=None, device=None, **kwargs):
        for a in args:
            if isinstance(a, (str, Device)) or a is None:
                device = a
            elif isinstance(a, CoreTensor):
                dtype = a.dtype
            else:
                dtype = a
        check_device(device, "Tensor.to")
        return self if dtype is None or np.dtype(dtype) == self.dtype else self.type(dtype)

    def type(self, dtype=None):
        if dtype is None:  # PyTorch's legacy type name: torch.FloatTensor, torch.LongTensor
            return f"torch.{type_name(self.dtype)}Tensor"
        return ops.astype(self, np.dtype(typed_dtype(dtype)))

    def float(self):
        return self.type(np.float32)

    def double(self):
        return self.type(np.float64)

    def half(self):
        return self.type(np.float16)

    def long(self):
        return self.type(np.int64)

    def int(self):
        return self.type(np.int32)

    def bool(self):
        return self.type(np.bool_)

    def type_as(self, other):
        return self.type(other.dtype)

    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        check_device("cuda", "Tensor.cuda")

    def clone(self, memory_format=None):
        if self.requires_grad or tangent_of(self) is not None:  # (recorded, or given a tangent)
            return ops.identity(self)
        return as_tensor_of(self.value.copy(), self)

    # -- shape (reshape, flatten: reshaping.py) ---------------------------------------------
    def _view(self, remake, write=None):
        return make_view(self, remake, write)

    def view(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], (tuple, list, int)):
            return self.type(shape[0])  # view(dtype)
        sizes = sizes_of(shape)
        if not viewable(self.value, sizes):
            raise RuntimeError(NOT_VIEWABLE)
        return self._view(lambda base: ops.reshape(base, sizes), reshaped)

    def view_as(self, other):
        return self.view(other.shape)

    def expand(self, *sizes):
        sizes = sizes_of(sizes)
        lead = len(sizes) - self.ndim
        full = tuple(s if s != -1 else self.value.shape[i - lead] for i, s in enumerate(sizes))
        return self._view(lambda base: ops.broadcast_to(base, full))

    def expand_as(self, other):
        return self.expand(other.shape)

    def unsqueeze(self, dim):
        axis = dim if dim >= 0 else dim + self.ndim + 1
        return self._view(lambda base: ops.expand_dims(base, axis), reshaped)

    def squeeze(self, dim=None):
        if dim is not None:
            dims = [d % max(self.ndim, 1) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))]
            dim = tuple(d for d in dims if self.ndim and self.value.shape[d] == 1)
            if not dim:
                return self._view(ops.identity, reshaped)
        return self._view(lambda base: ops.squeeze(base, dim), reshaped)

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        return named(self._view(ops.transpose, transposed()), "TBackward0")

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        return self._view(ops.transpose, transposed())

    @property
    def mT(self):  # noqa: N802  (matrices: methods.py checks the rank first)
        return self._view(lambda base: ops.swapaxes(base, -1, -2), swapped(-1, -2))

    def transpose(self, dim0, dim1):
        out = self._view(lambda base: ops.swapaxes(base, dim0, dim1), swapped(dim0, dim1))
        return named(out, "TransposeBackward0")

    def permute(self, *dims):
        axes = sizes_of(dims)
        return self._view(lambda base: ops.transpose(base, axes), transposed(axes))

    def flip(self, *dims):
        return ops.flip(self, sizes_of(dims))

    def __getitem__(self, index):
        if isinstance(index, CoreTensor):
            index = index.value
        elif isinstance(index, tuple):
            index = tuple(i.value if isinstance(i, CoreTensor) else i for i in index)
        if _is_basic(index):
            return self._view(lambda base: ops.getitem(base, index), at(index))
        return ops.getitem(self, index)

    # -- arithmetic --------------------------------------------------------------------------
    def add(self, other, alpha=1):
        return self + (other if alpha == 1 else other * alpha)

    def sub(self, other, alpha=1):
        return self - (other if alpha == 1 else other * alpha)

    def mul(self, other):
        return self * other

    def pow(self, exponent):
        return self ** exponent

    def neg(self):
        return -self

    def mm(self, other):
        if self.ndim != 2 or other.ndim != 2:
            raise RuntimeError("self must be a matrix" if self.ndim != 2 else "mat2 must be a matrix")
        return self @ other

    def matmul(self, other):
        return self @ other

    def bmm(self, other):
        return named(self @ other, "BmmBackward0")

    def mv(self, vec):
        return self @ vec

    def dot(self, other):
        return named(ops.sum(self * other), "DotBackward0")

    def clamp(self, min=None, max=None):  # noqa: A002  (PyTorch's names)
        bound = max if min is None else min  # PyTorch's node for number bounds is the second
        label = "ClampBackward0" if isinstance(bound, CoreTensor) else "ClampBackward1"
        return named(ops.clip(self, min, max), label)

    clip = clamp

    def exp(self):
        return np.exp(self)

    def log(self):
        return np.log(self)

    def sqrt(self):
        return np.sqrt(self)

    def sin(self):
        return np.sin(self)

    def cos(self):
        return np.cos(self)

    def tanh(self):
        return np.tanh(self)

    def sigmoid(self):
        return ops.sigmoid(self)

    def erf(self):
        return special.erf(self)

    def relu(self):
        return named(special.relu(self), "ReluBackward0")

    def abs(self):
        return np.abs(self)

    def square(self):
        return named(self * self, "PowBackward0")

    def reciprocal(self):
        return named(1 / self, "ReciprocalBackward0")

    def log1p(self):
        return np.log1p(self)

    def expm1(self):
        return np.expm1(self)

    def sign(self):
        s = np.sign(self)  # 0 at NaN, as PyTorch's
        return named(ops.where(self != self, 0, s), "SignBackward0") if self.value.dtype.kind in "fc" else s

    # -- reductions ----------------------------------------------------------------------------
    def sum(self, dim=None, keepdim=False, dtype=None):
        return ops.sum(summand(self, dtype), axis=dims(dim), keepdims=keepdim)

    def mean(self, dim=None, keepdim=False, dtype=None):
        if dtype is None and self.value.dtype.kind not in "fc":
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {type_name(self.dtype)}")
        return ops.mean(self if dtype is None else self.type(dtype), axis=dims(dim), keepdims=keepdim)

    def prod(self, dim=None, keepdim=False, dtype=None):
        return ops.prod(summand(self, dtype), axis=dims(dim), keepdims=keepdim)

    def var(self, dim=None, unbiased=True, keepdim=False, correction=None):
        ddof = (1 if unbiased else 0) if correction is None else correction
        return variance(self, dims(dim), ddof, keepdim)

    def std(self, dim=None, unbiased=True, keepdim=False, correction=None):
        """Gradient 0 where it is 0, as PyTorch's (``subgradients``)."""
        ddof = (1 if unbiased else 0) if correction is None else correction
        return standard_deviation(self, dims(dim), ddof, keepdim)

    def _extreme(self, name, dim, keepdim, other):
        if isinstance(dim, CoreTensor) or other is not None:  # elementwise, as torch.maximum
            return (maximum_halves if name == "max" else minimum_halves)(self, dim if other is None else other,
                                                                      nan_to_both=True)
        if dim is None:
            return extreme(self, name == "max")  # (NaN: PyTorch's gradient)
        index = (np.argmax if name == "max" else np.argmin)(self.value, axis=dim, keepdims=True)
        values = np.take_along_axis(self, index, axis=dim)
        if not keepdim:
            values, index = ops.squeeze(values, dim), np.squeeze(index, dim)
        return values_indices[name](named(values, f"{name.capitalize()}Backward0"), as_tensor_of(index, self))

    def max(self, dim=None, keepdim=False, other=None):
        return self._extreme("max", dim, keepdim, other)

    def min(self, dim=None, keepdim=False, other=None):
        return self._extreme("min", dim, keepdim, other)

    def amax(self, dim=None, keepdim=False):
        return named(ops.max(self, axis=dims(dim), keepdims=keepdim), "AmaxBackward0")

    def amin(self, dim=None, keepdim=False):
        return named(ops.min(self, axis=dims(dim), keepdims=keepdim), "AminBackward0")

    def argmax(self, dim=None, keepdim=False):
        return as_tensor_of(np.argmax(self.value, axis=dim, keepdims=keepdim), self)

    def argmin(self, dim=None, keepdim=False):
        return as_tensor_of(np.argmin(self.value, axis=dim, keepdims=keepdim), self)

    def sort(self, dim=-1, descending=False, stable=False):
        index = (descending_order(self.value, dim) if descending else
                 np.argsort(self.value, axis=dim, kind="stable"))
        values = np.take_along_axis(self, index, axis=dim)
        return values_indices["sort"](values, as_tensor_of(index, self))

    def norm(self, p="fro", dim=None, keepdim=False):
        """A vector norm over ``dim`` (all elements when None; ``"fro"`` is the 2-norm),
        gradient 0 where it is 0, as PyTorch's (``subgradients``); ``"nuc"`` is NumPy's."""
        if p == "nuc":
            return np.linalg.norm(self, ord=p, axis=dims(dim) or (-2, -1), keepdims=keepdim)
        return vector_norm(self, 2 if p == "fro" else p, dims(dim), keepdim)

    def logsumexp(self, dim, keepdim=False):
        return log_sum_exp(self, dim, keepdim)

    def cumsum(self, dim, dtype=None):
        return ops.cumsum(summand(self, dtype), dim)

    def softmax(self, dim, dtype=None):
        return named(special.softmax(self if dtype is None else self.type(dtype), dim), "SoftmaxBackward0")

    def log_softmax(self, dim, dtype=None):
        return named(special.log_softmax(self if dtype is None else self.type(dtype), dim),
                     "LogSoftmaxBackward0")

    def all(self, dim=None, keepdim=False):  # (dim=() reduces nothing here, as PyTorch's)
        axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
        return as_tensor_of(np.asarray(np.all(self.value, axis=axis, keepdims=keepdim)), self)

    def any(self, dim=None, keepdim=False):
        axis = tuple(dim) if isinstance(dim, (tuple, list)) else dim
        return as_tensor_of(np.asarray(np.any(self.value, axis=axis, keepdims=keepdim)), self)

    def equal(self, other):
        return self.shape == other.shape and bool(np.all(self.value == other.value))

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.allclose(self.value, other.value, rtol=rtol, atol=atol, equal_nan=equal_nan))

    eq = CoreTensor.__eq__
    ne = CoreTensor.__ne__
    lt = CoreTensor.__lt__
    le = CoreTensor.__le__
    gt = CoreTensor.__gt__
    ge = CoreTensor.__ge__

    # -- in place ---------------------------------------------------------------------------------
    def in_place(self, new, label="CopyBackwards"):
        """The last step of every in-place op: this tensor (a view: its base) holds ``new``
        (``label``: the node's name where ``new`` is not in the graph, see ``rebind``)."""
        if self.view_of is not None:
            return write_through(self, new)
        return self.rebind(new if isinstance(new, CoreTensor) else as_tensor_of(new, self), label)

    def __iadd__(self, other):
        return self.in_place(self + other)

    def __isub__(self, other):
        return self.in_place(self - other)

    def __imul__(self, other):
        return self.in_place(self * other)

    def __itruediv__(self, other):
        return self.in_place(self / other)

    def add_(self, other, alpha=1):
        return self.in_place(self.add(other, alpha))

    def sub_(self, other, alpha=1):
        return self.in_place(self.sub(other, alpha))

    def mul_(self, other):
        return self.in_place(self * other)

    def div_(self, other):
        return self.in_place(self / other)

    def abs_(self):
        return self.in_place(self.abs())

    def clamp_(self, min=None, max=None):  # noqa: A002
        return self.in_place(self.clamp(min, max))

    def masked_fill_(self, mask, value):  # masked_fill: methods.py's
        return self.in_place(self.masked_fill(mask, value, in_place=True))

    def copy_(self, src):
        return self.in_place(ops.broadcast_to(src, self.shape).type(self.dtype)
                              if isinstance(src, CoreTensor) else np.broadcast_to(src, self.shape))

    def normal_(self, mean=0.0, std=1.0, generator=None):
        return self.in_place(generator_of(generator).normal(mean, std, self.shape), "NormalBackward0")

    def uniform_(self, a=0.0, b=1.0, generator=None):
        return self.in_place(generator_of(generator).uniform(a, b, self.shape), "UniformBackward0")

    def index_add_(self, dim, index, source, alpha=1):
        at = (slice(None),) * (dim % self.ndim) + (index.value if isinstance(index, CoreTensor) else index,)
        return self.in_place(ops.index_add(self, at, source if alpha == 1 else source * alpha))

    def __setitem__(self, index, value):
        if isinstance(index, CoreTensor):
            index = index.value
        if not (GRAD.get() and (self.requires_grad or getattr(value, "requires_grad", False))
                or tangent_of(self) is not None or tangent_of(value) is not None):
            new = self.value.copy()
            new[index] = value.value if isinstance(value, CoreTensor) else value
            self.in_place(new)
            return
        self.in_place(ops.index_set(self, index, value))

    # -- autograd ---------------------------------------------------------------------------------
    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves."""
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """``hook(grad)`` runs on this tensor's gradient and may return the one to use (see
        ``hooks``); the handle's ``remove()`` takes it off."""
        return register(self, hook)


Tensor.result_class = Tensor


def scalars_of(value, dropped):
    """A list holding tensors as PyTorch's ``torch.tensor`` reads it: each tensor one number
    (its ``item()``); ``dropped`` gets True where that drops a gradient."""
    if isinstance(value, (list, tuple)):
        return [scalars_of(v, dropped) for v in value]
    if isinstance(value, CoreTensor):
        dropped[0] = dropped[0] or bool(getattr(value, "requires_grad", False))
        if value.value.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return value.value.item()
    return value


def make(value, dtype=None, requires_grad=False, device=None, fn="torch.tensor", copy=True):
    """A leaf tensor of ``value``: Python floats become the default
    dtype (float32 unless set), ints int64 (as PyTorch)."""
    if type(value) is float and device is None and default_xp() is np and (
            dtype is None or isinstance(dtype, (np.dtype, FrameworkDType)) and dtype.kind == "f"):
        t = Tensor.__new__(Tensor)  # the commonest, a Python float: to_array's answer directly,
        # held as a NumPy scalar, as NumPy's ops on 0-d values give (its arithmetic is quicker)
        t.value = (default_float() if dtype is None else dtype).type(value)
        t.leaf_requires_grad = bool(requires_grad)
        if INFERENCE.get():
            t.inference = True
        return t
    check_device(device, fn)
    if isinstance(value, CoreTensor):
        value = value.value
    elif isinstance(value, (list, tuple)):
        dropped = [False]
        value = scalars_of(value, dropped)
        if dropped[0]:  # PyTorch's warning, at the user's torch.tensor([...]) line
            warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to "
                          "unexpected behavior.\nConsider using tensor.detach() first.", UserWarning,
                          stacklevel=user_stacklevel())
    if dtype is None and not hasattr(value, "dtype"):
        host = np.asarray(value)
        dtype = {"f": default_float(), "i": DEFAULT_INT, "u": DEFAULT_INT}.get(host.dtype.kind, host.dtype)
    t = Tensor.__new__(Tensor)
    t.value = to_array(value, dtype, fn, "data", copy=copy)
    if t.value.dtype.kind == "c":
        raise NotImplementedError(f"{fn}: complex dtypes are out of scope in gradmagic.torch "
                                  "(gradmagic differentiates real values): pass the real and "
                                  "imaginary parts as two real tensors")
    if requires_grad:
        t.requires_grad = True
    if INFERENCE.get():
        t.inference = True
    return t
