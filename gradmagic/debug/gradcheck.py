"""``check_grad``: the engine's gradients against central finite differences, and the
one home of the finite differences and tolerances the pitfall checks use too."""

from __future__ import annotations

import html
import inspect
from typing import Callable

import numpy as np

from .._backend import to_host, xp_of
from ..core.api import value_and_grad
from ..core.context import unheard
from ..core.tape import GradientTape
from ..core.tensor import Tensor, constant
from ..errors import GradientTypeError

TOLERANCES = {  # dtype the engine computed in -> (rtol, atol)
    np.dtype("float64"): (1e-5, 1e-7),
    np.dtype("float32"): (2e-3, 2e-4),
    np.dtype("float16"): (5e-2, 5e-2),
}


class GradCheckRow:
    """One input's verdict: its largest absolute and relative error."""

    __slots__ = ("index", "name", "shape", "dtype", "max_abs", "max_rel", "ok", "engine", "numeric")

    def __init__(self, index, name, dtype, engine, numeric, rtol, atol):
        self.index, self.name, self.dtype = index, name, dtype
        self.engine, self.numeric = engine, numeric
        self.shape = tuple(np.shape(numeric))
        err = np.abs(np.asarray(engine, dtype=np.float64) - numeric)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(np.abs(numeric) > 0, err / np.abs(numeric), err)
        self.max_abs = float(np.max(err)) if err.size else 0.0
        self.max_rel = float(np.max(rel)) if rel.size else 0.0
        self.ok = bool(np.all(err <= atol + rtol * np.abs(numeric))) and not np.any(np.isnan(err))


class GradCheck:
    """The report of ``check_grad``: truthy when every input agrees."""

    def __init__(self, function, order, rows, rtol, atol, eps):
        self.function, self.order, self.rows = function, order, rows
        self.rtol, self.atol, self.eps = rtol, atol, eps

    def __bool__(self):
        return all(r.ok for r in self.rows)

    @property
    def failures(self):
        return [r for r in self.rows if not r.ok]

    def to_text(self):
        what = "gradient" if self.order == 1 else "second derivative (Hessian-vector product)"
        lines = [f"check_grad({self.function}, order={self.order}): {what} vs central finite "
                 f"differences (eps={self.eps:g}, rtol={self.rtol:g}, atol={self.atol:g})"]
        for r in self.rows:
            verdict = "ok" if r.ok else "MISMATCH"
            lines.append(f"  {r.name:<12} shape={r.shape!s:<10} {str(r.dtype):<8} max abs err "
                         f"{r.max_abs:.3g}  max rel err {r.max_rel:.3g}  {verdict}")
        lines.append("all agree" if self else f"{len(self.failures)} input(s) disagree")
        return "\n".join(lines)

    __str__ = to_text

    def __repr__(self):
        return self.to_text()

    def _repr_html_(self):
        e = html.escape
        rows = "".join(
            f"<tr><td>{e(r.name)}</td><td>{e(str(r.shape))}</td><td>{e(str(r.dtype))}</td>"
            f"<td>{r.max_abs:.3g}</td><td>{r.max_rel:.3g}</td>"
            f"<td>{'ok' if r.ok else '<b>mismatch</b>'}</td></tr>" for r in self.rows)
        return (f"<div class='gradmagic-check'><p>check_grad({e(self.function)}, order={self.order})"
                f": {'all agree' if self else 'disagreement'}</p><table><tr><th>input</th>"
                f"<th>shape</th><th>dtype</th><th>max abs err</th><th>max rel err</th><th></th>"
                f"</tr>{rows}</table></div>")


def _scalar(out, name):
    v = out.value if isinstance(out, Tensor) else out
    v = np.asarray(to_host(v), dtype=np.float64)
    return float(v.sum())


def central_difference(value: Callable[[float], float], eps: float) -> float:
    """``(value(eps) - value(-eps)) / (2 eps)``: the derivative of ``value`` at 0."""
    return (value(eps) - value(-eps)) / (2 * eps)


def relative_step(host) -> float:
    """A finite-difference step for values like ``host``: 1e-6, scaled up for large ones."""
    return 1e-6 * max(1.0, float(np.max(np.abs(host))) if host.size else 1.0)


def _numeric_grad(fn, args, k, eps):
    """Central differences of scalar ``fn(*args)`` in argument ``k`` (float64 host arrays)."""
    x = args[k]
    g = np.zeros_like(x)
    flat, gflat = x.reshape(-1), g.reshape(-1)
    for i in range(flat.size):
        old = flat[i]

        def value(t):
            flat[i] = old + t
            return fn(*args)
        try:
            gflat[i] = central_difference(value, eps)
        finally:
            flat[i] = old
    return g


def check_grad(f: Callable, *args, order: int = 1, eps: float | None = None,
               rtol: float | None = None, atol: float | None = None) -> GradCheck:
    """Check ``f``'s gradients (``order=1``) or second derivatives along a random direction
    (``order=2``) against central finite differences in float64.

    ``f`` takes arrays and returns a scalar (a non-scalar result is summed). Every
    floating argument is checked. Tolerances default by the dtype the engine computed
    in. Returns a report that prints as a table and is truthy when all agree.

    >>> import numpy as np
    >>> bool(gm.check_grad(lambda x, y: np.sum(np.sin(x) * y), np.ones(3), np.arange(3.0)))
    True
    """
    if order not in (1, 2):
        raise GradientTypeError(f"check_grad(order={order!r}): expected 1 or 2")
    name = getattr(f, "__name__", "f")
    try:
        params = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        params = []
    host = [np.asarray(to_host(a.value if isinstance(a, Tensor) else a)) for a in args]
    nums = [k for k, a in enumerate(host) if a.dtype.kind == "f"]
    if not nums:
        raise GradientTypeError(
            f"check_grad({name}, *args): no floating argument to differentiate; got dtypes "
            f"{[str(a.dtype) for a in host]} (pass x.astype(float))")
    dtype = np.result_type(*[host[k].dtype for k in nums])
    d_rtol, d_atol = TOLERANCES.get(np.dtype(dtype), TOLERANCES[np.dtype("float32")])
    rtol = d_rtol * (10 if order == 2 else 1) if rtol is None else rtol
    atol = d_atol * (10 if order == 2 else 1) if atol is None else atol
    eps = (1e-6 if order == 1 else 1e-5) if eps is None else eps
    f64 = [a.astype(np.float64) if k in nums else a for k, a in enumerate(host)]

    def summed(*xs):
        out = f(*xs)
        return np.sum(out) if getattr(out, "ndim", 0) else out

    # the engine's pass is the user's function as a trace shows it; the probes of the finite
    # differences (two calls per element, a step apart) are the check's own: no listener hears them
    if order == 1:
        _, engine = value_and_grad(summed, nums)(*args)
        with unheard():
            numeric = [_numeric_grad(lambda *xs: _scalar(f(*xs), name), f64, k, eps) for k in nums]
    else:
        rng = np.random.default_rng(0)
        direction = [rng.standard_normal(host[k].shape) for k in nums]
        engine = _hvp(summed, list(args), nums, direction)

        def directional(*xs):  # <grad f(xs), v>, in float64, through the engine
            return float(sum(np.sum(np.asarray(to_host(getattr(g, "value", g)), dtype=np.float64) * v)
                             for g, v in zip(value_and_grad(summed, nums)(*xs)[1], direction)))
        with unheard():
            numeric = [_numeric_grad(directional, f64, k, eps) for k in nums]
    rows = []
    for k, e, n in zip(nums, engine, numeric):
        e = np.asarray(to_host(e.value if isinstance(e, Tensor) else e), dtype=np.float64)
        label = params[k] if k < len(params) and not params[k].startswith("*") else f"args[{k}]"
        rows.append(GradCheckRow(k, label, host[k].dtype, e, n, rtol, atol))
    return GradCheck(name, order, rows, rtol, atol, eps)


def _hvp(f, args, nums, direction):
    """The engine's Hessian-vector product by nesting tapes."""
    xs = [constant(args[k], dtype=np.asarray(to_host(getattr(args[k], "value", args[k]))).dtype)
          for k in nums]
    full = list(args)
    for k, x in zip(nums, xs):
        full[k] = x
    with GradientTape() as outer:
        outer.watch(xs)
        with GradientTape() as inner:
            inner.watch(xs)
            out = f(*full)
        grads = inner.gradient(out, xs, unconnected_gradients="zero")
        # the direction goes to the array module of x (the GPU for CuPy values)
        dot = sum(np.sum(g * xp_of(x.value).asarray(v, dtype=x.dtype))
                  for g, v, x in zip(grads, direction, xs))
    return outer.gradient(dot, xs, unconnected_gradients="zero")
