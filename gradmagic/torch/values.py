"""What PyTorch's tensors are made of besides values: ``torch.Size``, devices (the CPU
only), seeded generators, and the names PyTorch gives its grad_fns."""

from __future__ import annotations

import numpy as np

from .._dtypes import FrameworkDType, by_name, table
from ..core.context import RANDOM_SOURCES
from ..core.primitive import computed_in



class dtype(FrameworkDType):
    """``torch.dtype``: ``torch.float32`` and its kin, as PyTorch prints and describes them
    (``is_floating_point``, ``is_signed``, ``to_complex()`` ...), NumPy's dtype to NumPy."""

    __slots__ = ()
    framework = "torch"

    @property
    def is_floating_point(self):
        return self.kind == "f"

    @property
    def is_complex(self):
        return self.kind == "c"

    @property
    def is_signed(self):
        return self.kind in "fci"

    def to_real(self):
        return DTYPES[np.dtype(f"f{self.itemsize // 2}")] if self.kind == "c" else self

    def to_complex(self):
        if self.kind == "c":
            return self
        if self.kind != "f":
            raise RuntimeError(f"Unknown Complex ScalarType for {type_name(self)}")
        if self.itemsize < 4:  # PyTorch's torch.complex32, which NumPy has not
            raise RuntimeError("torch.float16.to_complex(): torch.complex32 is out of scope in "
                               "gradmagic.torch (NumPy has no complex32)")
        return DTYPES[np.dtype(f"c{2 * self.itemsize}")]


DTYPES = table(dtype, ["float16", "float32", "float64", "complex64", "complex128", "int8", "int16",
                       "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool"])


def torch_dtype(d):
    """``d`` (a NumPy dtype, or anything NumPy takes as one) as ``torch.dtype``."""
    found = DTYPES.get(d)
    return found if found is not None else by_name("torch", np.dtype(d).name)


DEFAULT_INT = DTYPES[np.dtype("int64")]
DEFAULTS = {"float": DTYPES[np.dtype("float32")]}  # torch.set_default_dtype's: process-wide, as PyTorch's


def missing(what):
    """The message of the AttributeError for a name ``gradmagic.torch`` does not map."""
    return (f"gradmagic.{what} does not exist: gradmagic.torch covers what PyTorch's tutorials on "
            "custom autograd Functions use (tensors, autograd, Function, no_grad, the common "
            "elementwise functions and reductions), not all of PyTorch; out of scope: CUDA "
            "devices (use gm.set_backend('cupy')), torch.nn modules and optimizers, "
            "torch.compile, torch.func and complex dtypes")


# the engine's op -> PyTorch's name for it, where the two differ
PYTORCH_NAMES = {"multiply": "Mul", "subtract": "Sub", "divide": "Div", "true_divide": "Div",
                 "power": "Pow", "negative": "Neg", "absolute": "Abs", "reshape": "View",
                 "arccos": "Acos", "arcsin": "Asin", "arctan": "Atan", "arccosh": "Acosh",
                 "arcsinh": "Asinh", "arctanh": "Atanh", "arctan2": "Atan2", "log1p": "Log1P",
                 "deg2rad": "Deg2Rad", "rad2deg": "Rad2Deg"}


def step_name(prim) -> str:
    """A step as PyTorch names its ``grad_fn``: ``MulBackward0``, ``LegendrePolynomial3Backward``."""
    if prim.joint:
        return f"{prim.name}Backward"
    name = PYTORCH_NAMES.get(prim.name) or "".join(p.capitalize() for p in prim.name.split("_"))
    return name + "Backward0"


def overload(name, other):
    """PyTorch's node name for an op whose ``other`` is a tensor (``FmodBackward1``) or a
    number (``FmodBackward0``)."""
    return f"{name}Backward{1 if hasattr(other, 'grad_fn') else 0}"


def named(out, name):
    """``out`` (a tensor, or a tuple of them) with PyTorch's ``grad_fn`` name (``GatherBackward0``)
    where the last of the ops a function is made of would name it (``GetitemBackward0``)."""
    for t in out if isinstance(out, tuple) else (out,):
        node = getattr(t, "grad_fn", None)
        if node is not None:
            node.label = name
            node.__class__ = node_class(name, node.kind)
    return out


NODE_CLASSES = {}  # (name, base) -> the node class of that name


def node_class(name, base):
    """The subclass of ``base`` named ``name`` (``MulBackward0``): a node's type is named as
    PyTorch's is, so ``type(y.grad_fn).__name__`` in a user's graph walk reads PyTorch's name."""
    cls = NODE_CLASSES.get((name, base))
    if cls is None:
        cls = NODE_CLASSES[(name, base)] = type(name, (base,), {"__slots__": (), "__module__": base.__module__})
    return cls


TYPE_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double", "int8": "Char",
              "int16": "Short", "int32": "Int", "int64": "Long", "uint8": "Byte", "bool": "Bool"}


C_NAMES = {"float16": "half", "float32": "float", "float64": "double", "int8": "signed char",
           "int16": "short", "int32": "int", "int64": "long", "uint8": "unsigned char", "bool": "bool"}


# a scalar type in the messages that print a dtype as C++ does (``TensorOptions(dtype=long int``)
ELEMENT_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
                 "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
                 "bool": "bool"}


def c_name(dtype):
    """PyTorch's C name of a scalar type in some of its messages (``double``)."""
    return C_NAMES.get(np.dtype(dtype).name, str(dtype))


def type_name(dtype):
    """PyTorch's name of a scalar type in its messages (``Long``)."""
    return TYPE_NAMES.get(np.dtype(dtype).name, str(dtype))


def broadcast_shape(fn, a, b):
    """The shape ``a`` and ``b`` broadcast to; else PyTorch's error, after ``fn``."""
    ndim = max(len(a), len(b))
    a, b = (1,) * (ndim - len(a)) + tuple(a), (1,) * (ndim - len(b)) + tuple(b)
    for k in reversed(range(ndim)):
        m, n = a[k], b[k]
        if m != n and 1 not in (m, n):
            raise RuntimeError(f"{fn}: The size of tensor a ({m}) must match the size of tensor b "
                               f"({n}) at non-singleton dimension {k}")
    return tuple(max(m, n) if 0 not in (m, n) else 0 for m, n in zip(a, b))


def default_float():
    """The dtype Python floats and factories without ``dtype=`` give (float32 unless
    ``torch.set_default_dtype`` changed it)."""
    return DEFAULTS["float"]


def float_result(args):
    """The float dtype PyTorch gives an op on ``args`` whose NumPy result is a float:
    dimensioned tensors decide before 0-d ones, and numbers (Python's or NumPy's scalars)
    never widen a tensor; integers alone give the default float (``i / 2``, ``sqrt(i)``).
    NumPy would give float64 where a float64 number or 0-d tensor, or an integer, met a
    float32 tensor."""
    dims, zeros = _by_rank(args, "f")
    floats = dims or zeros
    return np.result_type(*floats) if floats else default_float()


def _by_rank(args, kinds):
    """The dtypes of ``kinds`` among the tensors and arrays in ``args`` (one level into lists;
    not numbers): those of dimensioned ones, and those of 0-d ones."""
    dims, zeros = [], []
    for a in args:
        for v in a if isinstance(a, (list, tuple)) else (a,):
            value = getattr(v, "value", v)  # a tensor's array, or an array: not a number
            if (v is not value or isinstance(value, np.ndarray)) and value.dtype.kind in kinds:
                (dims if value.ndim else zeros).append(value.dtype)
    return dims, zeros


def int_result(args):
    """The integer dtype PyTorch gives an op on ``args`` whose NumPy result is an integer,
    where 0-d integer tensors meet dimensioned ones: the dimensioned ones' integers decide;
    None otherwise (NumPy's is PyTorch's, or the op's own: a sum's int64)."""
    dims, zeros = _by_rank(args, "iu")
    return np.result_type(*dims) if dims and zeros else None


def axis_of(dim, ndim):
    """``dim`` as a non-negative axis (0 of a 0-d tensor), or PyTorch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def dims(dim):
    """A ``dim`` argument as NumPy's ``axis``: None, an int or a tuple; ``()`` or ``[]`` is
    every dimension, as PyTorch 2.13.0 reduces them."""
    if dim is None or isinstance(dim, (tuple, list)) and not dim:
        return None
    return tuple(dim) if isinstance(dim, (tuple, list)) else int(dim)


def summand(t, dtype):
    """What ``sum``, ``prod``, ``cumsum`` and ``cumprod`` add up: ``t`` in ``dtype`` (PyTorch
    casts before it reduces, so a float32 sum asked for in float64 keeps its digits), and
    otherwise a bool or integer tensor as int64, as PyTorch accumulates them."""
    if dtype is not None:
        return t.type(dtype)
    return t.type(np.int64) if t.value.dtype.kind in "biu" and t.value.dtype != np.int64 else t


def descending_order(values, dim):
    """The indices that sort ``values`` along ``dim`` from the largest: NaN first, ties in
    their order, as PyTorch's stable sort (negating the values would put NaN last and
    overflow the smallest integer)."""
    if not np.ndim(values):
        return np.argsort(values, kind="stable")
    n = values.shape[dim]
    order = np.argsort(np.flip(values, axis=dim), axis=dim, kind="stable")
    return (n - 1) - np.flip(order, axis=dim)


def narrow(out, prim, args, vals, params):
    """``out``, the result of ``prim`` on ``vals`` in the float dtype NumPy gave, made the one
    PyTorch gives (an op that names its ``dtype`` keeps it): a float64 narrowed; a float16,
    NumPy's for a bool or a byte, computed again from the inputs in PyTorch's wider float,
    so that it keeps that float's digits."""
    value = out.value
    dtype = value.dtype
    if "dtype" in params:
        return
    if dtype.kind in "iu":  # a 0-d tensor does not widen a dimensioned one's integers either
        want = int_result(args)
        if want is not None and want != dtype:
            out.value = value.astype(want)  # wrapping around as PyTorch's does (uint8 200 + 100: 44)
        return
    if dtype.kind != "f":
        return
    for a in args:  # the commonest: a tensor of the result's dtype and rank decides it as is
        v = getattr(a, "value", None)
        if v is not None and v.dtype == dtype and v.ndim == value.ndim:
            return
    want = float_result(args)
    if want.itemsize > dtype.itemsize:
        out.value = computed_in(prim, vals, params, want)
    elif want != dtype:
        out.value = value.astype(want)


CATEGORIES = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}  # PyTorch's: bool, integer, float, complex


def castable(result, into):
    """``into``, where an in-place op may write a ``result`` dtype into a tensor of it (within
    a category or down from a higher one); else PyTorch's error (a float into an int)."""
    if CATEGORIES[result.kind] > CATEGORIES[into.kind]:
        raise RuntimeError(f"result type {type_name(result)} can't be cast to the desired output "
                           f"type {type_name(into)}")
    return into


class Size(tuple):
    """``torch.Size``: a tuple of ints that prints as PyTorch prints it."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def numel(self):
        return int(np.prod(self))


class SizeMethod(int):
    """The element count, callable as PyTorch's ``size(dim=None)``."""

    def __new__(cls, shape):
        n = super().__new__(cls, int(np.prod(shape, dtype=np.int64)))
        n.shape = tuple(shape)
        return n

    def __call__(self, dim=None):
        return Size(self.shape) if dim is None else self.shape[dim]


class Device:
    """``torch.device``: only the CPU (a GPU is ``gm.set_backend("cupy")``)."""

    def __init__(self, type="cpu", index=None):  # noqa: A002
        check_device(type, "torch.device")
        self.type, self.index = "cpu", index

    def __repr__(self):
        return "device(type='cpu')"

    def __eq__(self, other):
        return str(other).split(":")[0] == "cpu" or isinstance(other, Device)

    __hash__ = object.__hash__

    def __str__(self):
        return "cpu"


def check_device(device, fn):
    name = str(getattr(device, "type", device) if device is not None else "cpu")
    if name.split(":")[0] != "cpu":
        raise NotImplementedError(
            f"{fn}(device={str(device)!r}): gradmagic.torch runs on the CPU only; for a GPU, "
            "call gm.set_backend('cupy') and keep device='cpu' (or leave it out)")


def sizes_of(args):
    """``(2, 3)``, ``((2, 3),)`` or ``(torch.Size([2, 3]),)``: sizes as PyTorch's methods take
    them (loose or in one sequence), as one tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(int(a) for a in args[0])
    return tuple(int(a) for a in args)


class Generator:
    """``torch.Generator``: a seeded source of random numbers (NumPy's PCG64); a new one has
    PyTorch's default seed (``random.py`` adds ``get_state``/``set_state``)."""

    DEFAULT_SEED = 67280421310721  # PyTorch's

    def __init__(self, device="cpu", seed=DEFAULT_SEED):
        check_device(device, "torch.Generator")
        self.manual_seed(seed)

    def manual_seed(self, seed):
        self.seeded = int(seed)
        self.rng = np.random.default_rng(self.seeded)
        return self

    def initial_seed(self):
        return self.seeded

    def seed(self):
        """Seeds with a non-deterministic random number, which it returns."""
        self.manual_seed(np.random.SeedSequence().entropy % 2 ** 64)
        return self.seeded

    def normal(self, mean, std, shape):
        return self.rng.normal(mean, std, shape)

    def uniform(self, a, b, shape):
        return self.rng.uniform(a, b, shape)

    def state(self):
        """What a check's snapshot saves (``manual_seed`` replaces the NumPy generator)."""
        return self.rng, self.rng.bit_generator.state

    def put_state(self, saved):
        self.rng, state = saved
        self.rng.bit_generator.state = state


DEFAULT_GENERATOR = Generator(seed=np.random.SeedSequence().entropy % 2 ** 64)  # (random, as PyTorch's)
RANDOM_SOURCES.append(DEFAULT_GENERATOR)


def generator_of(generator):
    return DEFAULT_GENERATOR if generator is None else generator
