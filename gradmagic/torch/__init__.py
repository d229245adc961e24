"""A PyTorch-shaped namespace over gradmagic: ``import gradmagic.torch as torch``.

The code of PyTorch's tutorials on custom ``autograd.Function`` s runs unchanged on it and
prints what they print (to float tolerance). It is a thin map onto gradmagic's engine, not
a second engine: tensors are gradmagic Tensors with PyTorch's methods and autograd state
(``requires_grad``, ``.grad``, ``grad_fn``), a ``Function`` is one recorded op as
``gm.custom_gradient`` is, and ``backward`` is the engine's walk; so ``gm.trace()`` and
``%%gradtrace`` show and check PyTorch code. PyTorch's semantics where they differ from
TensorFlow's: float32 by default, ``.grad`` accumulates, a graph is freed by ``backward``
unless ``retain_graph=True``. CPU only (``gm.set_backend("cupy")`` for a GPU). A name it
does not map raises ``AttributeError`` naming it.

>>> import gradmagic.torch as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> (x ** 2).sum().backward()
>>> x.grad
tensor([2., 4.])
"""

import builtins

import numpy as np

from .. import out_of_scope
from ..core import ops
from ..core.tensor import Tensor as CoreTensor
from . import (autograd, bits_norms, elementwise, functions, linalg, linalg_more, nn, products, reorder, reshaping, sampling,
               scattering, special, utils, values, views)
from .modes import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad,
                    set_grad_enabled)
from .tensor import Tensor, make
from .hooks import register_post_accumulate
from .anomaly import is_anomaly_enabled
from .legacy import TypedTensor
from .printing import set_printoptions
from . import random
from .random import default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from .methods import install, install_in_place, std_mean, var_mean
from .values import (DEFAULTS, DTYPES, TYPE_NAMES, Device, Generator, Size, check_device,
                     default_float, dtype, generator_of, missing, torch_dtype)

install(Tensor)  # the methods methods.py adds (gather, topk, det ...)
Tensor.register_post_accumulate_grad_hook = register_post_accumulate  # hook(leaf) after .grad accumulates
functions.install(Tensor)  # and functions.py (asin, atan2, lerp, diag ...)
MORE = (products, reorder, elementwise, sampling, linalg_more, reshaping, scattering, bits_norms)  # addmm ...,
# flips and splits ..., erfinv ..., bernoulli ..., reshape and flatten, scatter_reduce and index_put, << and renorm
for _module in MORE:
    for _name, _f in _module.METHODS.items():
        setattr(Tensor, _name, _f)
    for _name, _f in getattr(_module, "PROPERTIES", {}).items():
        setattr(Tensor, _name, property(_f))
random.install()  # Generator.get_state and set_state
install_in_place(Tensor)  # the in-place forms (acos_, lt_, addmm_ ...) of all of these
linalg.matrix_power = products.matrix_power  # (products.py imports linalg.py)
out_of_scope.install()  # `from gradmagic.<dialect> import <missing>` says what __getattr__ says

# the PyTorch whose behaviour this follows (its tests compare with it), marked as gradmagic's,
# as PyTorch marks its builds (2.13.0+cpu): `print(torch.__version__)` in pasted code runs
__version__ = "2.13.0+gradmagic"

float16 = half = DTYPES[np.dtype("float16")]
float32 = float = DTYPES[np.dtype("float32")]  # noqa: A001  (torch.float)
float64 = double = DTYPES[np.dtype("float64")]
int8, int16, uint8 = DTYPES[np.dtype("int8")], DTYPES[np.dtype("int16")], DTYPES[np.dtype("uint8")]
int32 = int = DTYPES[np.dtype("int32")]  # noqa: A001
int64 = long = DTYPES[np.dtype("int64")]
bool = DTYPES[np.dtype("bool")]  # noqa: A001
device = Device
# torch.FloatTensor, torch.LongTensor ...: the legacy constructors of one dtype each (legacy.py)
globals().update({f"{n}Tensor": TypedTensor(Tensor, DTYPES[np.dtype(d)]) for d, n in TYPE_NAMES.items()})
strided = "strided"
pi, e, inf, nan, newaxis = np.pi, np.e, np.inf, np.nan, None  # torch.pi ... (Python floats)


def get_default_dtype():
    return torch_dtype(default_float())


def set_default_dtype(d):
    """``torch.set_default_dtype``: the dtype of Python floats and of factories called without
    ``dtype=`` from now on, for the whole process, as PyTorch's."""
    try:
        d = np.dtype(d)
    except TypeError:
        d = None
    if d is None or d.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    DEFAULTS["float"] = d


class _NoDevices:
    """``torch.cuda`` and ``torch.accelerator`` as a CPU-only PyTorch answers them, so the
    ``device = "cuda" if torch.cuda.is_available() else "cpu"`` of most scripts picks the CPU
    (a GPU is ``gm.set_backend("cupy")``'s, with ``device="cpu"`` kept)."""

    def __init__(self, name, **more):
        self.name = name
        self.__dict__.update(more)  # the namespace's own answers (accelerator's current one)

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    def __getattr__(self, name):
        raise AttributeError(missing(f"torch.{self.name}.{name}"))


cuda = _NoDevices("cuda")
accelerator = _NoDevices("accelerator", current_accelerator=lambda check_available=False: None)


def set_default_device(device):
    """``torch.set_default_device``: the CPU is the one device here (None or "cpu"); another
    is refused as a factory's ``device=`` is."""
    check_device(device, "torch.set_default_device")


def get_default_device():
    return Device("cpu")


def is_tensor(obj):
    return isinstance(obj, Tensor)


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """``torch.tensor``: a new leaf (Python floats become float32, ints int64)."""
    return make(data, dtype, requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    return data if isinstance(data, Tensor) and dtype is None else make(data, dtype, False, device,
                                                                        "torch.as_tensor", copy=False)


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return make(ndarray, None, False, None, "torch.from_numpy", copy=False)


FILLS = {"zeros": lambda s, g: np.zeros(s), "ones": lambda s, g: np.ones(s),
         "empty": lambda s, g: np.zeros(s), "randn": lambda s, g: g.normal(0.0, 1.0, s),
         "rand": lambda s, g: g.uniform(0.0, 1.0, s)}  # torch.<name> and torch.<name>_like


def _filled(fn):
    fill = FILLS[fn]

    def create(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
               generator=None, pin_memory=False, memory_format=None):
        shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        value = fill(tuple(builtins.int(s) for s in shape), generator_of(generator))
        return make(value, dtype or default_float(), requires_grad, device, f"torch.{fn}")
    create.__name__ = create.__qualname__ = fn
    create.__doc__ = f"``torch.{fn}(*size, dtype=None, device=None, requires_grad=False)``."
    return create


def _like(fn):
    fill = FILLS[fn]

    def create(input, dtype=None, device=None, requires_grad=False, memory_format=None, **kwargs):
        value = fill(input.value.shape, generator_of(kwargs.get("generator")))
        return make(value, dtype or input.dtype, requires_grad, device, f"torch.{fn}_like")
    create.__name__ = create.__qualname__ = f"{fn}_like"
    create.__doc__ = f"``torch.{fn}_like(input, dtype=None, device=None, requires_grad=False)``."
    return create


globals().update({name: _filled(name) for name in FILLS})
globals().update({f"{name}_like": _like(name) for name in FILLS})


def full(size, fill_value, dtype=None, device=None, requires_grad=False, **kwargs):
    if dtype is None:
        dtype = default_float() if isinstance(fill_value, (np.floating, type(0.0))) else None
    return make(np.full(tuple(size), fill_value), dtype, requires_grad, device, "torch.full")


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False, **kwargs):
    if end is None:
        start, end = 0, start
    values = np.arange(start, end, step)
    if dtype is None:  # as PyTorch: the default float dtype if any bound or the step is a float
        dtype = default_float() if values.dtype.kind == "f" else np.dtype(np.int64)
    return make(values, dtype, requires_grad, device, "torch.arange")


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False, **kwargs):
    return make(np.linspace(start, end, steps), dtype or default_float(), requires_grad, device,
                "torch.linspace")


def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False, **kwargs):
    return make(np.logspace(start, end, steps, base=base), dtype or default_float(), requires_grad, device,
                "torch.logspace")


def eye(n, m=None, dtype=None, device=None, requires_grad=False, **kwargs):
    return make(np.eye(n, m), dtype or default_float(), requires_grad, device, "torch.eye")


def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, **kwargs):
    return make(np.full(input.value.shape, fill_value), dtype or input.dtype, requires_grad,
                device, "torch.full_like")


def hstack(tensors):
    return values.named(np.hstack([_t(t) for t in tensors]), "CatBackward0")


def vstack(tensors):
    return values.named(np.vstack([_t(t) for t in tensors]), "CatBackward0")


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False):
    """``torch.randint(high, size)`` or ``torch.randint(low, high, size)``: int64 by default."""
    if size is None:  # randint(high, size)
        low, high, size = 0, low, high
    value = generator_of(generator).rng.integers(low, high, tuple(size))
    return make(value, dtype or np.dtype(np.int64), requires_grad, device, "torch.randint")


class finfo:
    """``torch.finfo(dtype)``: a float dtype's limits, under PyTorch's names."""

    def __init__(self, type=None):  # noqa: A002  (PyTorch's name)
        info = np.finfo(type or default_float())
        number = builtins.float  # (torch.float is a dtype here)
        self.bits, self.eps, self.max, self.min = info.bits, number(info.eps), number(info.max), number(info.min)
        self.tiny = self.smallest_normal = number(info.tiny)
        self.resolution, self.dtype = 10.0 ** -info.precision, info.dtype.name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: an integer dtype's limits."""

    def __init__(self, type):  # noqa: A002
        info = np.iinfo(type)
        self.bits, self.max, self.min = info.bits, builtins.int(info.max), builtins.int(info.min)
        self.dtype = info.dtype.name


def _t(x, like=None):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, CoreTensor):
        return make(x.value, copy=False)
    return make(x, like.dtype if like is not None and hasattr(x, "__float__") else None)


def _method(name):
    def function(input, *args, out=None, **kwargs):
        result = getattr(_t(input), name)(*args, **kwargs)
        return result if out is None else _into(name, out, result)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"``torch.{name}(input, ...)``: ``input.{name}(...)``."
    return function


def _into(name, out, result):
    """``torch.<name>(..., out=out)``: ``out`` holds the result (a new version of it), as
    PyTorch writes it; refused where the result would need a gradient, as PyTorch refuses."""
    if isinstance(result, Tensor) and result.requires_grad:
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    with no_grad():
        if out.view_of is not None:  # written into its base, as by any in-place op on a view
            return views.write_through(out, result)
        return out.rebind(result)


_METHODS = ("exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "erf", "relu", "abs", "square",
            "reciprocal", "log1p", "expm1", "sign", "neg", "sum", "mean", "prod", "var", "std",
            "max", "min", "amax", "amin", "argmax", "argmin", "sort", "norm", "logsumexp",
            "cumsum", "softmax", "log_softmax", "clamp", "clip", "t", "transpose", "permute",
            "reshape", "flatten", "squeeze", "unsqueeze", "flip", "matmul", "mm", "bmm", "mv",
            "dot", "add", "sub", "mul", "div", "equal", "allclose", "numel", "clone", "detach",
            "all", "any", "eq", "ne", "lt", "le", "gt", "ge", "tan", "masked_fill",
            "index_select", "gather", "scatter_add", "scatter", "split", "chunk", "topk", "median", "det",
            "inverse", "tril", "triu", "roll", "nonzero", "floor", "ceil", "trunc", "round",
            "unbind", "is_floating_point", "maximum", "minimum", "outer", "dist", "floor_divide",
            "count_nonzero", "relu_")
globals().update({name: _method(name) for name in _METHODS + tuple(functions.METHODS)
                  + tuple(functions.ALIASES)})
for _module in MORE:
    globals().update({name: _method(name) for name in _module.METHODS
                      if name not in getattr(_module, "TENSOR_ONLY", ())})
    globals().update(_module.FUNCTIONS)
del _module, _name, _f  # (the loops' names are no torch attribute)
# the in-place functions PyTorch has as torch.<name>_: the tensor's method, and nn.functional's
globals().update({name + "_": _method(name + "_") for name in (
    "abs acos acosh addmv arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil "
    "clamp clamp_max clamp_min clip cos cosh deg2rad detach erf erfc exp2 exp expm1 fill fix floor "
    "frac index_put ldexp log10 log1p log2 log logit nan_to_num neg negative rad2deg reciprocal round "
    "rsqrt sigmoid sin sinc sinh sqrt square tan tanh trunc xlogy zero").split()})
celu_, selu_, rrelu_, threshold_ = (nn.functional.celu_, nn.functional.selu_, nn.functional.rrelu_,
                                    nn.functional.threshold_)


def dropout_(input, p, train):
    return nn.functional.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    return nn.functional.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    return nn.functional.feature_alpha_dropout(input, p, train, inplace=True)


def pow(input, exponent):  # noqa: A001
    return _t(input, exponent if isinstance(exponent, CoreTensor) else None) ** exponent


def where(condition, input=None, other=None):
    return ops.where(condition, input, other)


def cat(tensors, dim=0):
    return ops.concatenate([_t(t) for t in tensors], axis=dim)


concat = concatenate = cat


def stack(tensors, dim=0):
    return ops.stack([_t(t) for t in tensors], axis=dim)


def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return np.einsum(equation, *operands)


meshgrid = functions.meshgrid
polygamma = functions.polygamma_of


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return make(np.isclose(input.value, other.value, rtol=rtol, atol=atol, equal_nan=equal_nan))


def __getattr__(name):
    raise AttributeError(missing(f"torch.{name}"))


_INTERNAL = ("np", "TYPE_NAMES", "TypedTensor", "ops", "CoreTensor", "out_of_scope", "DEFAULTS", "DTYPES", "default_float", "missing",
             "torch_dtype",
             "check_device", "install", "register_post_accumulate", "install_in_place", "MORE", "products", "reorder", "elementwise",
             "sampling", "linalg_more", "reshaping", "scattering", "bits_norms")
__all__ = [k for k in list(globals()) if not k.startswith("_") and k not in _INTERNAL]
