"""``tf.TensorSpec`` and ``tf.function``: gradmagic runs every function eagerly, so
``tf.function`` traces nothing; with an ``input_signature`` it binds and checks each call's
arguments against it as TensorFlow does (a value converted to the spec's dtype, a Tensor of
another dtype or an incompatible shape refused with TensorFlow's ``TypeError``), then calls
the function itself.
"""

import functools
import inspect

import numpy as np

from ..core.nest import flatten
from ..core.tensor import Tensor
from ..core.tensor import constant as core_constant
from .tensors import float32, shape_of


def dimension(shape, d):
    if d is None:
        return None
    if isinstance(d, (int, np.integer)) and not isinstance(d, bool):
        return int(d)
    raise TypeError(
        f"tf.TensorSpec(shape): Failed to convert '{shape!r}' to a shape: '{d!r}'could not be "
        "converted to a dimension. A shape should either be single dimension (e.g. 10), or an "
        "iterable of dimensions (e.g. [1, 10, None]).")


class TensorSpec:
    """``tf.TensorSpec(shape, dtype=tf.float32, name=None)``: the shape (``None`` for an
    unknown rank, ``None`` in it for an unknown dimension) and dtype a tensor is expected to
    have. ``shape`` reads as a tuple (gradmagic's shapes are tuples, not ``TensorShape``).

    >>> import gradmagic.tf as tf
    >>> tf.TensorSpec([None, 3], tf.float64)
    TensorSpec(shape=(None, 3), dtype=tf.float64, name=None)
    """

    __slots__ = ("shape", "dtype", "name")

    def __init__(self, shape, dtype=float32, name=None):
        if isinstance(shape, Tensor):
            shape = shape_of(shape)
        elif isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
        if shape is not None:
            try:
                dims = list(shape)
            except TypeError:
                dims = [shape]
            shape = tuple(dimension(shape, d) for d in dims)
        self.shape, self.dtype, self.name = shape, np.dtype(dtype), name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        t = tensor if isinstance(tensor, Tensor) else core_constant(tensor)
        return cls(t.shape, t.dtype, name)

    def is_compatible_with(self, spec_or_tensor):
        """Whether the dtypes agree and the shapes do where both are known."""
        other = spec_or_tensor
        if not isinstance(other, TensorSpec):
            other = TensorSpec.from_tensor(other)
        if self.dtype != other.dtype:
            return False
        if self.shape is None or other.shape is None:
            return True
        return len(self.shape) == len(other.shape) and all(
            a is None or b is None or a == b for a, b in zip(self.shape, other.shape))

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self.shape == other.shape
                and self.dtype == other.dtype and self.name == other.name)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        shape = "<unknown>" if self.shape is None else repr(self.shape)
        return f"TensorSpec(shape={shape}, dtype=tf.{self.dtype.name}, name={self.name!r})"


def checked_signature(input_signature):
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError(f"tf.function(input_signature): input_signature must be either a tuple or "
                        f"a list, got {type(input_signature)}.")
    bad = [s for s in flatten(list(input_signature))[0] if not isinstance(s, TensorSpec)]
    if bad:
        raise TypeError(f"tf.function(input_signature): input_signature must be a possibly nested "
                        f"sequence of TensorSpec objects, got invalid args {bad} with types "
                        f"{[type(s) for s in bad]}.")
    return list(input_signature)


def bound(func, specs):
    """``func`` checking each call's arguments against ``specs`` (``self`` of a method is not
    in the signature, as in TensorFlow)."""
    params = list(inspect.signature(func).parameters.values())
    skip = 1 if params and params[0].name in ("self", "cls") and len(params) > len(specs) else 0
    checked = params[skip:skip + len(specs)]
    shown = ", ".join(f"{p.name}: {s!r}" for p, s in zip(checked, specs))
    signature = inspect.Signature([p.replace(default=inspect.Parameter.empty) for p in checked])

    def fail(name, reason, args, kwargs):
        return TypeError(f"{func.__name__}({name}): Binding inputs to tf.function failed due to "
                         f"`{reason}`. Received args: {args!r} and kwargs: {kwargs!r} for "
                         f"signature: ({shown}).")

    @functools.wraps(func)
    def call(*args, **kwargs):
        lead, rest = args[:skip], args[skip:]
        try:
            values = signature.bind(*rest, **kwargs).arguments
        except TypeError as e:
            raise fail("", e, rest, kwargs) from None
        for p, spec in zip(checked, specs):
            if isinstance(spec, TensorSpec):  # the whole value is one tensor (a list converts)
                leaves, rebuild, wanted = [values[p.name]], lambda ts: ts[0], [spec]
            else:
                leaves, _, rebuild = flatten(values[p.name])
                wanted = flatten(spec)[0]
            if len(leaves) != len(wanted):
                raise fail(p.name, f"Can not cast {values[p.name]!r} to {spec!r}", rest, kwargs)
            converted = []
            for value, want in zip(leaves, wanted):
                t = value if isinstance(value, Tensor) else core_constant(value, want.dtype)
                if not want.is_compatible_with(t):
                    raise fail(p.name, f"Can not cast {TensorSpec.from_tensor(t)!r} to {want!r}",
                               rest, kwargs)
                converted.append(t)
            values[p.name] = rebuild(converted)
        return func(*lead, **values)
    call.input_signature = tuple(specs)
    return call


def function(func=None, input_signature=None, **options):
    """``tf.function``: gradmagic always runs eagerly, so this returns ``func`` whose Python
    numbers among its outputs come back as Tensors, as TensorFlow's do, or, given an ``input_signature`` (a list of ``tf.TensorSpec``), ``func`` checking its
    arguments against it as TensorFlow does: a Python or NumPy value is converted to the
    spec's dtype, and a value whose dtype or shape does not fit is TensorFlow's ``TypeError``
    ("Binding inputs to tf.function failed due to `Can not cast ...`")."""
    specs = None if input_signature is None else checked_signature(input_signature)

    def wrap(f):
        return outputs_as_tensors(f if specs is None else bound(f, specs), f)
    return wrap if func is None else wrap(func)


def outputs_as_tensors(call, func):
    """``call`` whose result has its Python numbers and NumPy values as Tensors, as a
    ``tf.function``'s outputs are (``three(x).numpy()``); ``python_function`` is ``func``."""
    @functools.wraps(call)  # func's name and doc, and an input_signature bound() gave call
    def run(*args, **kwargs):
        result = call(*args, **kwargs)
        if result is None or isinstance(result, Tensor):  # the commonest: nothing to convert
            return result
        leaves, _, rebuild = flatten(result)
        if not any(isinstance(v, PLAIN) for v in leaves):
            return result
        return rebuild([core_constant(v) if isinstance(v, PLAIN) else v for v in leaves])
    run.python_function = func
    return run


PLAIN = (bool, int, float, np.generic, np.ndarray)  # what a tf.function gives back as a Tensor


__all__ = ["TensorSpec", "function"]
