"""``torch.autograd.gradcheck`` and ``gradgradcheck``: analytical Jacobians (from the
engine's backward walk) against central finite differences, as PyTorch computes them, and
a failure that says which element differs and by how much."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from ..._backend import to_host, xp_of
from ...core.context import unheard
from ...tracebacks import user_stacklevel
from ..graph import Tensor, as_tensor_of
from ..walk import grad
from .forward_ad import dual_level, make_dual, unpack_dual


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` and ``gradgradcheck`` when the Jacobians differ."""


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _leaf(value, like, requires_grad):
    """A tensor of the host ``value`` on ``like``'s device, of its dtype."""
    t = as_tensor_of(xp_of(like.value).asarray(np.asarray(value, dtype=like.dtype)), like)
    t.leaf_requires_grad = requires_grad
    return t


def _outputs(func, inputs):
    return [o for o in _tuple(func(*inputs)) if isinstance(o, Tensor)]


def _numerical(func, inputs, k, eps):
    """d(every output element)/d(input k's elements): shape (input size, output size) per output."""
    x = inputs[k]
    base = np.array(to_host(x.value), dtype=x.dtype)
    columns = []
    for i in range(base.size):
        values = []
        for step in (eps, -eps):
            moved = base.copy()
            moved.reshape(-1)[i] += step
            args = list(inputs)
            args[k] = _leaf(moved, x, x.requires_grad)
            values.append([np.array(to_host(o.value), dtype=np.float64).reshape(-1)
                           for o in _outputs(func, args)])
        columns.append([(a - b) / (2 * eps) for a, b in zip(*values)])
    if not columns:  # an empty input: an empty Jacobian for each output
        return [np.zeros((0, o.value.size)) for o in _outputs(func, inputs)]
    return [np.array([c[j] for c in columns]).reshape(base.size, -1) for j in range(len(columns[0]))]


def _analytical(outputs, inputs, wanted):
    """Per output, per wanted input: shape (input size, output size), from backward passes,
    one per output element; a trace shows the first of each output's (the others are the
    same steps for another element)."""
    result = []
    for o in outputs:
        per_input = [np.zeros((inputs[k].value.size, o.value.size)) for k in wanted]
        if not o.requires_grad:
            result.append(per_input)
            continue
        for j in range(o.value.size):
            onehot = np.zeros(o.value.size, dtype=o.dtype)
            onehot[j] = 1
            with unheard() if j else _SHOWN:
                gs = grad(o, [inputs[k] for k in wanted], _leaf(onehot.reshape(o.value.shape), o, False),
                          retain_graph=True, allow_unused=True)
            for col, g in zip(per_input, gs):
                if g is not None:
                    col[:, j] = np.asarray(to_host(g.value), dtype=np.float64).reshape(-1)
        result.append(per_input)
    return result


_SHOWN = contextlib.nullcontext()  # a pass a trace hears


def _forward_mode(func, inputs, wanted):
    """Per output, per wanted input: shape (input size, output size), from forward-mode
    passes (``forward_ad.py``), one per input element: the tangents of the outputs."""
    outputs = _outputs(func, inputs)
    result = [[np.zeros((inputs[k].value.size, o.value.size)) for k in wanted] for o in outputs]
    for col, k in enumerate(wanted):
        x = inputs[k]
        for i in range(x.value.size):
            onehot = np.zeros(x.value.size, dtype=x.dtype)
            onehot[i] = 1
            with unheard() if col or i else _SHOWN, dual_level():
                args = list(inputs)
                args[k] = make_dual(x, _leaf(onehot.reshape(x.value.shape), x, False))
                for j, o in enumerate(_outputs(func, args)):
                    t = unpack_dual(o).tangent
                    if t is not None:
                        result[j][col][i, :] = np.asarray(to_host(t.value), dtype=np.float64).reshape(-1)
    return result


def _where(n, a, atol, rtol):
    bad = np.abs(a - n) - (atol + rtol * np.abs(n))
    i, j = np.unravel_index(int(np.argmax(bad)), bad.shape)
    return (f"largest difference at input element {i}, output element {j}: numerical "
            f"{n[i, j]:.6g}, analytical {a[i, j]:.6g} (|difference| {abs(a[i, j] - n[i, j]):.3g}, "
            f"allowed {atol + rtol * abs(n[i, j]):.3g}); {int(np.sum(bad > 0))} of {bad.size} "
            "elements differ")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """``torch.autograd.gradcheck``: True when the gradients of ``func`` at ``inputs`` match
    finite differences; else a ``GradcheckError`` naming the output, the input and the
    element that differ (or False, with ``raise_exception=False``). ``check_forward_ad``
    checks forward mode's Jacobian too (a ``Function``'s ``jvp``); ``check_backward_ad=False``
    leaves out reverse mode's (a ``Function`` without ``backward``)."""
    inputs = _tuple(inputs)
    wanted = [k for k, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    if not wanted:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for k in wanted:
        if inputs[k].dtype != np.float64:
            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=user_stacklevel())
    modes = []  # (how the analytical Jacobian was computed, in the failure's words; it)
    if check_backward_ad:
        modes.append(("", _analytical(_outputs(func, inputs), inputs, wanted)))
    if check_forward_ad:
        modes.append(("computed with forward mode ", _forward_mode(func, inputs, wanted)))
    with unheard():  # the probes, two calls per element a step apart: the check's own, unheard
        numerical = {k: _numerical(func, inputs, k, eps) for k in wanted}
    for how, analytical in modes:
        for j, per_input in enumerate(analytical):
            for a, k in zip(per_input, wanted):
                n = numerical[k][j]
                if np.allclose(a, n, rtol=rtol, atol=atol):
                    continue
                if not raise_exception:
                    return False
                with np.printoptions(precision=4, suppress=True):
                    raise GradcheckError(
                        f"Jacobian {how}mismatch for output {j} with respect to input {k},\n"
                        f"numerical:{n}\nanalytical:{a}\n\n{_where(n, a, atol, rtol)}")
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """``torch.autograd.gradgradcheck``: ``gradcheck`` of the function that gives
    ``func``'s gradients (with ``create_graph=True``), so the second derivatives of a
    custom ``backward`` are checked."""
    inputs = _tuple(inputs)
    n = len(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(_leaf(rng.standard_normal(o.value.shape), o, True) for o in outputs)
    grad_outputs = _tuple(grad_outputs)

    def first_order(*args):
        xs, gos = args[:n], args[n:]
        wanted = [x for x in xs if isinstance(x, Tensor) and x.requires_grad]
        pairs = [(o, g) for o, g in zip(_outputs(func, xs), gos) if o.requires_grad]
        gs = grad([o for o, _ in pairs], wanted, [g for _, g in pairs], create_graph=True,
                  allow_unused=True) if pairs else ()
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
