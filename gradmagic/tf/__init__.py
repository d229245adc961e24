"""A TensorFlow-shaped namespace over gradmagic: ``import gradmagic.tf as tf``.

The code of TensorFlow's ``tf.custom_gradient`` pages and autodiff guides runs unchanged on
it and prints what those pages show. It is a thin map onto gradmagic's engine, not a second
engine: every function converts its inputs with ``constant`` and calls the same ops. It
covers the common eager API: tensors and ``Variable``, ``GradientTape``,
``custom_gradient``, ``recompute_grad``, ``grad_pass_through``, ``tf.math``, ``tf.linalg``,
``tf.nn``, ``tf.random``, shapes, indexing and scatters, segment reductions, ``cond``,
``while_loop``, ``scan`` and the folds (Python control flow, eager), ``TensorSpec``; a name
it does not map raises ``AttributeError`` naming it.

The modules, by family: ``tensors`` (making and converting; ``variables``: a Variable's
scatter methods), ``math`` (with ``segments`` and ``more_math``), ``arrays`` and
``more_arrays`` (shapes, indexing, clipping, ``unique``, ``searchsorted`` ...), ``strided``
(``strided_slice``, the scatters' max and min), ``scatter``, ``linalg``, ``nn`` (with
``more_nn``, and ``conv``: convolution and pooling), ``random``, ``control`` (control flow
and gradient tools), ``tensor_array``, ``eager`` (graph-mode no-ops, initializers,
``py_function``), ``debugging`` (asserts), ``autodiff``, ``specs``
(``TensorSpec``, ``tf.function``) and ``errors``.

>>> import gradmagic.tf as tf
>>> x = tf.constant(2.0)
>>> with tf.GradientTape() as tape:
...     tape.watch(x)
...     y = tf.math.log(1 + tf.exp(x))
>>> f"{float(tape.gradient(y, x)):.4f}"
'0.8808'
"""

from .. import out_of_scope
from ..core.ops import stop_gradient
from .sparse import GradientTape
from ..core.tensor import Shape as TensorShape
from ..core.tensor import Tensor
from . import autodiff, config, debugging, dtypes, errors, linalg, math, nest, nn, random
from .arrays import (argsort, boolean_mask, broadcast_to, clip_by_global_norm, clip_by_norm,
                     clip_by_value, concat, expand_dims, gather, gather_nd, one_hot, pad, repeat,
                     reshape, reverse, roll, slice, sort, split, squeeze, stack, tile, transpose,
                     unstack, where)
from .control import (case, cond, custom_gradient, foldl, foldr, grad_pass_through, gradients,
                      map_fn, recompute_grad, scan, switch_case, vectorized_map, while_loop)
from .debugging import (assert_equal, assert_greater, assert_greater_equal, assert_less,
                        assert_less_equal, assert_none_equal, assert_rank)
from .dtypes import DType, as_dtype
from .eager import (constant_initializer, control_dependencies, device, get_logger, group,
                    init_scope, inside_function, no_gradient, no_op, numpy_function, ones_initializer,
                    py_function, random_normal_initializer, random_uniform_initializer,
                    zeros_initializer)
from .linalg import einsum, matmul, norm, tensordot
from .math import add_n, argmax, argmin, cumsum, scalar_mul
from .module import Module, name_scope
from .more_arrays import (dynamic_partition, dynamic_stitch, ensure_shape, get_static_value,
                          identity_n, meshgrid, parallel_stack, realdiv, reverse_sequence,
                          saturate_cast, searchsorted, sequence_mask, shape_n, truncatediv,
                          truncatemod, unique, unique_with_counts, unravel_index)
from .scatter import (scatter_nd, tensor_scatter_nd_add, tensor_scatter_nd_sub,
                      tensor_scatter_nd_update)
from .specs import TensorSpec, function
from .strided import strided_slice, tensor_scatter_nd_max, tensor_scatter_nd_min
from .tensor_array import TensorArray
from .tensors import (UnconnectedGradients, Variable, bool, cast, complex64, complex128,
                      constant, convert_to_tensor, executing_eagerly, eye, fill, float16,
                      float32, float64, identity, int8, int16, int32, int64, is_tensor,
                      linspace, missing, newaxis, ones, ones_like, print, range, rank, shape,
                      size, uint8, zeros, zeros_like)
from .variables import IndexedSlices

out_of_scope.install()  # `from gradmagic.<dialect> import <missing>` says what __getattr__ says

# the TensorFlow whose behaviour this follows (its tests compare with it), marked as gradmagic's:
# `print(tf.__version__)` and version checks in pasted code run
__version__ = "2.21.0+gradmagic"

# the elementwise functions TensorFlow also has at the top (tf.exp, tf.sigmoid ...), the
# reductions (tf.reduce_sum ...), and tf.log, as the oldest documents write it
TOP_ELEMENTWISE = [k for k in math.ELEMENTWISE if k not in (
    "relu", "softplus", "rsqrt", "softsign", "log_sigmoid", "reciprocal_no_nan", "floordiv",
    "floormod", "mod", "xlogy", "xdivy", "divide_no_nan", "logical_xor", "erfinv", "ndtri", "erfcinv")]
TOP_REDUCTIONS = [k for k in math.REDUCTIONS if k != "reduce_euclidean_norm"]
globals().update({k: math.ELEMENTWISE[k] for k in TOP_ELEMENTWISE})
globals().update({k: math.REDUCTIONS[k] for k in TOP_REDUCTIONS})
reduce_all, reduce_any = math.reduce_all, math.reduce_any
log = math.log

__all__ = sorted({
    "Tensor", "Variable", "GradientTape", "custom_gradient", "stop_gradient",
    "UnconnectedGradients", "constant", "convert_to_tensor", "cast", "identity", "is_tensor",
    "zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace", "eye", "shape",
    "rank", "size", "executing_eagerly", "function", "print", "newaxis", "bool", "float16",
    "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "complex64", "complex128",
    "reshape", "transpose", "concat", "stack", "unstack", "expand_dims", "squeeze",
    "broadcast_to", "where", "clip_by_value", "clip_by_norm", "clip_by_global_norm", "gather",
    "gather_nd", "boolean_mask", "slice", "one_hot", "split", "repeat", "tile", "pad",
    "reverse", "roll", "sort", "argsort", "matmul", "norm", "einsum", "tensordot", "argmax",
    "argmin", "cumsum", "add_n", "reduce_all", "reduce_any", "log", "cond", "case", "switch_case",
    "while_loop",
    "map_fn", "vectorized_map", "recompute_grad", "grad_pass_through", "gradients",
    "scan", "foldl", "foldr", "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
    "tensor_scatter_nd_update", "TensorSpec", "TensorShape", "TensorArray", "IndexedSlices",
    "math", "linalg", "nest", "nn", "random", "debugging", "autodiff", "errors", "config", "Module",
    "dtypes", "DType",
    "name_scope", "scalar_mul",
    "unique", "unique_with_counts", "searchsorted", "sequence_mask", "meshgrid",
    "reverse_sequence", "realdiv", "truncatediv", "truncatemod", "shape_n", "identity_n",
    "parallel_stack", "unravel_index", "dynamic_partition", "dynamic_stitch", "saturate_cast", "ensure_shape", "get_static_value",
    "as_dtype", "strided_slice", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
    "control_dependencies", "group", "no_op", "device", "init_scope", "get_logger",
    "no_gradient", "inside_function", "constant_initializer", "zeros_initializer",
    "ones_initializer", "random_normal_initializer", "random_uniform_initializer",
    "py_function", "numpy_function", "assert_equal", "assert_none_equal", "assert_less",
    "assert_less_equal", "assert_greater", "assert_greater_equal", "assert_rank",
    *TOP_ELEMENTWISE, *TOP_REDUCTIONS})


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.{name}"))
