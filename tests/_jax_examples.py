"""The custom rules of JAX's guide "Custom derivative rules", as the guide writes them, shared
by the tests that run them on gradmagic.jax."""

import gradmagic.jax.numpy as jnp
from gradmagic.jax import custom_jvp, custom_vjp


@custom_jvp
def log1pexp(x):
    return jnp.log(1. + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    ans = log1pexp(x)
    ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
    return ans, ans_dot


@custom_vjp
def f(x, y):
    return jnp.sin(x) * y


def f_fwd(x, y):
    return f(x, y), (jnp.cos(x), jnp.sin(x), y)


def f_bwd(res, g):
    cos_x, sin_x, y = res
    return (cos_x * g * y, sin_x * g)


f.defvjp(f_fwd, f_bwd)
