"""A JAX-shaped namespace over gradmagic: ``import gradmagic.jax as jax`` and
``import gradmagic.jax.numpy as jnp``.

The examples of JAX's guide "Custom derivative rules for JAX-transformable Python
functions" run unchanged on it and give JAX's numbers (to float tolerance). It is a thin
map onto gradmagic's engine, not a second engine: ``grad``, ``vjp`` and ``jacrev`` run the
user's pure function on a tape, ``custom_vjp`` and ``custom_jvp`` are one recorded op as
``gm.custom_gradient`` is (so ``gm.trace()`` and ``%%gradtrace`` show and check them, in
JAX's words), and forward mode (``jvp``, ``jacfwd``) is the engine's. JAX's semantics where
they differ: float32 unless ``jax.config.update("jax_enable_x64", True)``, ``grad`` of a
scalar output and floating inputs only. Nothing is compiled (``jit`` returns the function);
``checkpoint`` (``remat``) computes the same values and gradients without trading time
for memory; out of scope, with an error that says so: ``pmap`` and sharding, complex
numbers.

>>> import gradmagic.jax as jax
>>> import gradmagic.jax.numpy as jnp
>>> print(jax.grad(lambda x: jnp.log(1. + jnp.exp(x)))(3.))
0.95257413
"""

from .. import out_of_scope
from . import debug, errors, flatten_util, lax, nn, numpy, random, scipy, test_util, tree, tree_util
from .array import Array, asarray, config
from .custom import closure_convert, custom_jvp, custom_vjp
from .platforms import default_backend, device_count, devices, local_device_count, local_devices
from .transforms import (checkpoint, disable_jit, grad, hessian, jacfwd, jacrev, jit, jvp, linearize, remat,
                         value_and_grad, vjp, vmap)

out_of_scope.install()  # `from gradmagic.<dialect> import <missing>` says what __getattr__ says

# the JAX whose behaviour this follows (its tests compare with it), marked as gradmagic's:
# `print(jax.__version__)` and version checks in pasted code run
__version__ = "0.10.2+gradmagic"


jacobian = jacrev  # JAX's alias


def device_get(x):
    return x


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    return x


def block_until_ready(x):
    return x


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.jax.{name} does not exist: gradmagic.jax covers JAX's autodiff (grad, "
        "value_and_grad, vjp, jvp, linearize, jacfwd, jacrev (jacobian), hessian, vmap, jit, "
        "checkpoint, custom_vjp, custom_jvp, closure_convert, disable_jit, debug.print, "
        "debug.callback, flatten_util.ravel_pytree, errors, lax, nn, random, scipy (special, stats.norm, "
        "linalg), test_util, tree, tree_util, numpy); "
        "out of scope: "
        "pmap and sharding, real compilation, complex numbers")


__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian",
           "vmap", "debug", "errors", "device_put", "disable_jit", "flatten_util",
           "jit", "checkpoint", "remat", "custom_vjp", "custom_jvp", "closure_convert", "lax", "nn", "numpy", "random", "scipy",
           "test_util", "tree", "tree_util", "Array",
           "asarray", "config", "device_get", "block_until_ready", "devices", "device_count",
           "default_backend", "local_devices", "local_device_count"]
