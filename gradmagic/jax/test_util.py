"""``jax.test_util.check_grads``: a function's JVPs and VJPs on the dialect's engine against
central finite differences, as JAX's own check makes them.

Like JAX, each check runs along one random direction (a fixed seed), so it stays cheap for
large inputs: forward mode compares ``jvp(f)(args, t)`` with ``(f(x + eps t) - f(x - eps t))
/ 2 eps``; reverse mode compares ``<vjp(f)(c), t>`` with ``<c, finite difference along t>``
for a random cotangent ``c``; ``order`` > 1 checks the JVP (VJP) function in turn. The
tolerances are JAX's for gradients (float32: 2e-3 times the number of elements; float64:
1e-5 times it); a mismatch raises ``AssertionError`` naming the mode, the order and the
numbers.
"""

from __future__ import annotations

import numpy as np

from .array import asarray
from .transforms import jvp, vjp
from .tree_util import tree_flatten, tree_map

EPS = 1e-4
TOLERANCE = {np.dtype("float16"): 1e-2, np.dtype("float32"): 2e-3, np.dtype("float64"): 1e-5}


def _host(x):
    return np.asarray(asarray(x).numpy())


def _random_like(rng, x):
    x = _host(x)
    return asarray(np.asarray(rng.randn(*x.shape), dtype=x.dtype))


def _numerical_jvp(f, primals, tangents, eps):
    """``(f(x + eps t) - f(x - eps t)) / (2 eps)``, in the inputs' dtype (as JAX computes it)."""
    def moved(sign):
        return tree_map(lambda x, t: asarray(_host(x) + np.asarray(sign * eps, _host(x).dtype)
                                             * _host(t)), primals, tangents)
    up, down = f(*moved(1)), f(*moved(-1))

    def slope(a, b):
        a, b = _host(a), _host(b)
        with np.errstate(invalid="ignore"):
            d = np.where(a == b, np.zeros((), a.dtype), a - b)
        return asarray(d * np.asarray(0.5 / eps, a.dtype))
    return tree_map(slope, up, down)


def _inner(xs, ys):
    return sum(float(np.dot(_host(x).reshape(-1).astype(np.float64),
                            _host(y).reshape(-1).astype(np.float64)))
               for x, y in zip(tree_flatten(xs)[0], tree_flatten(ys)[0]))


def _tolerance(tol, dtype):
    if tol is None:
        return TOLERANCE.get(np.dtype(dtype), 0)
    if isinstance(tol, dict):
        return {np.dtype(k): v for k, v in tol.items()}.get(np.dtype(dtype), TOLERANCE.get(
            np.dtype(dtype), 0))
    return tol


def _close(got, want, atol, rtol, what):
    """``got`` and ``want`` leaf by leaf within JAX's tolerances (scaled by the size)."""
    got_leaves, got_def = tree_flatten(got)
    want_leaves, want_def = tree_flatten(want)
    if got_def != want_def:
        raise AssertionError(f"check_grads: {what}: structure {got_def} where the finite "
                             f"differences give {want_def}")
    for g, w in zip(got_leaves, want_leaves):
        g, w = _host(g), _host(w)
        if g.shape != w.shape:
            raise AssertionError(f"check_grads: {what}: shape {g.shape} where the finite "
                                 f"differences give {w.shape}")
        a = max(_tolerance(atol, g.dtype), _tolerance(atol, w.dtype)) * g.size
        r = max(_tolerance(rtol, g.dtype), _tolerance(rtol, w.dtype)) * w.size
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(g, w, atol=a, rtol=r, err_msg=f"check_grads: {what}")


def _check_jvp(f, args, atol, rtol, eps, what):
    rng = np.random.RandomState(0)
    tangent = tree_map(lambda x: _random_like(rng, x), args)
    value, t_out = jvp(f, args, tangent)
    _close(value, f(*args), atol, rtol, f"{what} primal")
    _close(t_out, _numerical_jvp(f, args, tangent, eps), atol, rtol,
           f"{what} tangent (autodiff, then central finite differences)")


def _check_vjp(f, args, atol, rtol, eps, what):
    rng = np.random.RandomState(0)
    value, pullback = vjp(f, *args)
    _close(value, f(*args), atol, rtol, f"{what} primal")
    tangent = tree_map(lambda x: _random_like(rng, x), args)
    t_out = _numerical_jvp(f, args, tangent, eps)
    cotangent = tree_map(lambda y: _random_like(rng, y), value)
    projected = _inner(tangent, pullback(cotangent))
    expected = _inner(t_out, cotangent)
    dtype = _host(tree_flatten(value)[0][0]).dtype if tree_flatten(value)[0] else np.float64
    a, r = _tolerance(atol, dtype), _tolerance(rtol, dtype)
    if not abs(projected - expected) <= a + r * abs(expected):
        raise AssertionError(
            f"check_grads: {what} cotangent projection: <vjp(cotangent), tangent> = "
            f"{projected:.7g}, but <cotangent, finite-difference JVP> = {expected:.7g} "
            f"(atol={a:g}, rtol={r:g})")


def check_grads(f, args, order, modes=("fwd", "rev"), atol=None, rtol=None, eps=None):
    """``jax.test_util.check_grads``: check ``f``'s derivatives at ``f(*args)`` up to
    ``order`` in ``modes`` (``"fwd"``: JVPs, ``"rev"``: VJPs) against central finite
    differences along a random direction; ``AssertionError`` on a mismatch.

    >>> import gradmagic.jax.numpy as jnp
    >>> check_grads(lambda x: jnp.sin(x) * x, (jnp.array([0.5, 1.0]),), order=2)
    """
    args = tuple(tree_map(asarray, a) for a in args)
    eps = eps or EPS
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"check_grads: modes must hold 'fwd' and/or 'rev', got {mode!r}")

    def check(f, args, order, what):
        if "fwd" in modes:
            name = f"JVP of {what}" if what else "JVP"
            _check_jvp(f, args, atol, rtol, eps, name)
            if order > 1:
                check(lambda p, t: jvp(f, p, t), (args, args), order - 1, name)
        if "rev" in modes:
            name = f"VJP of {what}" if what else "VJP"
            _check_vjp(f, args, atol, rtol, eps, name)
            if order > 1:
                def f_vjp(*xs):
                    value, pullback = vjp(f, *xs)
                    return pullback(value)
                check(f_vjp, args, order - 1, name)
    check(f, args, order, "")
