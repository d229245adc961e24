"""Tensor's operators, NumPy-style methods and NumPy's dispatch protocols, installed.

The op layer gives the value type its operators (as JAX's numpy layer does with
``register_jax_array_methods``): ``install()`` runs once, when this module is imported
by ``gradmagic/__init__.py``, and sets every entry of the tables below on ``Tensor``.
Each operator is one op of ``ops.py``; ``__array_ufunc__`` and ``__array_function__``
run NumPy's ufuncs and functions as the matching op, or raise ``NoGradientError``
naming the function and the way out.
"""

import numpy as np

from ..errors import NoGradientError
from . import (aliases, assembly, contract, creation, determinant, layout, linalg, lstsq, methods,
               nanfunctions, ops, polynomials, reductions, signal, special, statistics, ufunc_methods)
from .context import differentiated
from .primitive import apply, binary, unary
from .tensor import Tensor, Variable, sliced

# NumPy function -> its differentiable form, from every family of the catalogue
FUNCTIONS = {**ops.FUNCTIONS, **layout.FUNCTIONS, **contract.FUNCTIONS, **linalg.FUNCTIONS,
             **determinant.FUNCTIONS, **statistics.FUNCTIONS, **special.FUNCTIONS,
             **creation.FUNCTIONS, **statistics.COVARIANCE, **nanfunctions.FUNCTIONS, **signal.FUNCTIONS,
             **aliases.FUNCTIONS, **lstsq.FUNCTIONS, **polynomials.FUNCTIONS,
             **assembly.FUNCTIONS, **reductions.FUNCTIONS, **methods.FUNCTIONS}  # (the last two
# replace the catalogue's np.sum ..., np.reshape and np.ravel with every keyword and order)
# NumPy ufunc -> Primitive: the op catalogue's and the elementwise ops of special.py; and
# ufunc -> function, for those composed or called with keyword arguments (vecdot's axis)
UFUNCS = {**ops.UFUNCS, **special.UFUNCS}  # looked up on every NumPy call on a Tensor
UFUNC_FUNCTIONS = {**special.UFUNC_FUNCTIONS, **aliases.UFUNC_FUNCTIONS}
# and the functions whose results are integers: no gradient to lose, NumPy's own on the values
NONDIFF_FUNCTIONS = ops.NONDIFF_FUNCTIONS | {np.digitize, np.linalg.matrix_rank, np.lexsort, np.nanargmax,
                                             np.nanargmin, np.argpartition}

# operator -> Primitive, for the operators that run on every call (one call into the engine)
BINARY = {"add": ops.add.prim, "sub": ops.subtract.prim, "mul": ops.multiply.prim,
          "truediv": ops.divide.prim, "pow": ops.power.prim, "matmul": ops.MATMUL}
# operator -> op function, for the rest
BINARY_OPS = {"floordiv": ops.floor_divide, "mod": ops.remainder, "and": ops.bitwise_and,
              "or": ops.bitwise_or, "xor": ops.bitwise_xor}  # as NumPy's: bitwise (logical on bools)
COMPARISONS = {"eq": ops.equal, "ne": ops.not_equal, "lt": ops.less, "le": ops.less_equal,
               "gt": ops.greater, "ge": ops.greater_equal}
NONE_COMPARISONS = {"eq": False, "ne": True}  # t == None is False, as in TensorFlow and PyTorch
UNARY = {"neg": ops.negative, "abs": ops.absolute, "invert": ops.invert}


def _binary(prim):
    def forward(self, other):
        return binary(prim, self, other)

    def reflected(self, other):
        return binary(prim, other, self)
    return forward, reflected


def _binary_op(op):
    def forward(self, other):
        return op(self, other)

    def reflected(self, other):
        return op(other, self)
    return forward, reflected


def _comparison(op, with_none):
    def forward(self, other):
        return with_none if other is None else op(self, other)
    return forward


def _unary(prim):
    def op(self):
        return unary(prim, self)
    return op


# -- NumPy-style methods (and in methods.py, those that are their NumPy function by name) -----
def var(self, axis=None, ddof=0, keepdims=False): return ops.var(self, axis, ddof=ddof, keepdims=keepdims)
def std(self, axis=None, ddof=0, keepdims=False): return ops.std(self, axis, ddof=ddof, keepdims=keepdims)
def cumsum(self, axis=None): return ops.cumsum(self, axis)
def cumprod(self, axis=None): return ops.cumprod(self, axis)
def dot(self, other): return contract.dot(self, other)
def clip(self, min=None, max=None): return ops.clip(self, min, max)
def astype(self, dtype): return ops.astype(self, dtype)
def squeeze(self, axis=None): return ops.squeeze(self, axis)
def __getitem__(self, index): return ops.getitem(self, index)


def transpose(self, *axes):
    return ops.transpose(self, axes[0] if len(axes) == 1 else (axes or None))


def variable_getitem(self, index):
    """``v[index]``: a Tensor the tape follows to ``v``, whose ``assign`` writes into ``v``
    (``v[0, 1].assign(10.0)``, as TensorFlow's)."""
    return sliced(ops.getitem(self, index), self, index)


def read_value(self):
    """The current value as a Tensor that follows this variable on the tape."""
    return ops.identity(self)


METHODS = {"sum": reductions.sum, "mean": reductions.mean, "prod": reductions.prod,  # t.sum(...) is np.sum(t, ...)
           "max": reductions.max, "min": reductions.min, "var": var, "std": std,
           "cumsum": cumsum, "cumprod": cumprod, "dot": dot, "clip": clip, "astype": astype,
           "squeeze": squeeze, "ravel": methods.ravel_method, "flatten": methods.ravel_method,
           "reshape": methods.reshape_method, "transpose": transpose,
           "__getitem__": __getitem__}


# -- NumPy's protocols ----------------------------------------------------------------------
def _np_name(f):
    mod = getattr(f, "__module__", None) or "numpy"
    mod = "np" + mod[len("numpy"):] if mod.startswith("numpy") else mod
    if mod.startswith("np._core") or mod.startswith("np.core") or mod.startswith("np.lib"):
        mod = "np"
    return f"{mod}.{f.__name__}"


def _no_rule(name):
    return NoGradientError(
        f"{name} has no gradient rule in gradmagic, so it cannot run on a Tensor that a tape "
        "follows or that requires grad (its gradient would be lost; on other Tensors it runs "
        "as NumPy's). Write the "
        "computation with the ops that have one (see gradmagic.core.dispatch.FUNCTIONS and "
        "gradmagic.ops.UFUNCS), or "
        "give it a gradient: wrap it in a function decorated with @gm.custom_gradient that "
        "computes on x.numpy() and returns (y, grad_fn)")


def dispatch_ufunc(ufunc, method, inputs, kwargs):
    """``Tensor.__array_ufunc__``: run a NumPy ufunc as the matching op."""
    name = f"np.{ufunc.__name__}"
    impl = UFUNC_FUNCTIONS.get(ufunc)
    prim = UFUNCS.get(ufunc)
    if method != "__call__":  # reduce, accumulate, outer ...
        return ufunc_methods.ufunc_method(ufunc, method, inputs, kwargs, differentiable=impl is not None or (
            prim is not None and prim.differentiable))
    out = kwargs.get("out")
    if out and inputs and out[0] is inputs[0] and not isinstance(out[0], Tensor):
        raise _into_array(ufunc, inputs)
    if impl is not None:
        return impl(*inputs, **kwargs)
    if prim is None and ufunc.__name__ == "clip":  # NumPy's clip ufunc, which A.clip(t_lo, t_hi) calls
        return ops.clip(*inputs, **kwargs)
    if prim is None:
        if not _followed(inputs, kwargs):  # no gradient to lose: NumPy's own (np.left_shift)
            return ops.nondiff(ufunc, inputs, kwargs)
        raise _no_rule(name)
    if kwargs:
        dtype = kwargs.pop("dtype", None)
        ops.unsupported(name, **kwargs)
        result = apply(prim, *inputs)
        return result if dtype is None else ops.astype(result, dtype)
    return apply(prim, *inputs)


AUGMENTED = {np.add: "+=", np.subtract: "-=", np.multiply: "*=", np.divide: "/=", np.floor_divide: "//=",
             np.remainder: "%=", np.power: "**=", np.matmul: "@=", np.bitwise_and: "&=",
             np.bitwise_or: "|=", np.bitwise_xor: "^="}


def _into_array(ufunc, inputs):
    """The error for ``s += t`` (``np.add(s, t, out=s)``) where ``s`` is a NumPy array."""
    op = AUGMENTED.get(ufunc)
    code = f"s {op} t" if op else f"np.{ufunc.__name__}(s, t, out=s)"
    fix = f"s = s {op[:-1]} t" if op else f"s = np.{ufunc.__name__}(s, t)"
    return NoGradientError(
        f"{code}, where s is a NumPy array ({type(inputs[0]).__name__} of shape {inputs[0].shape}) "
        "and t a Tensor, writes the result into the array s itself, which holds numbers, not a "
        f"Tensor: the gradient through t would be lost. Write {fix} instead: s then names a new "
        "Tensor that the tape follows (an accumulator can start as s = 0.0)")


def dispatch_function(func, args, kwargs):
    """``Tensor.__array_function__``: run a NumPy function as the matching op."""
    impl = FUNCTIONS.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    if func in NONDIFF_FUNCTIONS or not _followed(args, kwargs):
        return ops.nondiff(func, args, kwargs)  # no gradient to lose: NumPy's own function
    raise _no_rule(_np_name(func))


def _followed(args, kwargs):
    """Whether a gradient could flow through one of the Tensors among ``args`` and ``kwargs``
    (one level into lists): a recording tape follows it, or it requires grad (a dialect's)."""
    for a in list(args) + list(kwargs.values()):
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, Tensor) and differentiated(t):
                return True
    return False


def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
    prim = UFUNCS.get(ufunc)
    if prim is not None and method == "__call__" and not kwargs:
        n = len(inputs)
        return unary(prim, inputs[0]) if n == 1 else binary(prim, *inputs) if n == 2 else apply(
            prim, *inputs)
    return dispatch_ufunc(ufunc, method, inputs, kwargs)


def __array_function__(self, func, types, args, kwargs):
    return dispatch_function(func, args, kwargs)


def install():
    """Give ``Tensor`` (and ``Variable``) their operators, methods and NumPy protocols."""
    def put(cls, name, f):
        if f.__name__ in ("forward", "reflected", "op"):  # made here: named as installed
            f.__name__, f.__qualname__ = name, f"{cls.__name__}.{name}"
        setattr(cls, name, f)
    for name, prim in BINARY.items():
        forward, reflected = _binary(prim)
        put(Tensor, f"__{name}__", forward)
        put(Tensor, f"__r{name}__", reflected)
    for name, op in BINARY_OPS.items():
        forward, reflected = _binary_op(op)
        put(Tensor, f"__{name}__", forward)
        put(Tensor, f"__r{name}__", reflected)
    for name, op in COMPARISONS.items():
        put(Tensor, f"__{name}__", _comparison(op, NONE_COMPARISONS[name]) if name in NONE_COMPARISONS
            else _binary_op(op)[0])
    for name, op in UNARY.items():
        put(Tensor, f"__{name}__", _unary(op.prim))
    for name, f in METHODS.items():
        put(Tensor, name, f)
    Tensor.T = property(lambda self: ops.transpose(self), doc="The transpose (axes reversed).")
    for name, func in methods.METHODS.items():  # t.argmax() is np.argmax(t) ...
        setattr(Tensor, name, methods.NumpyMethod(name, func))
    for name, func in methods.PROPERTIES.items():  # t.mT is np.matrix_transpose(t) ...
        setattr(Tensor, name, methods.NumpyMethod(name, func, prop=True))
    put(Tensor, "__array_ufunc__", __array_ufunc__)
    put(Tensor, "__array_function__", __array_function__)
    put(Variable, "read_value", read_value)
    put(Variable, "__getitem__", variable_getitem)


install()
