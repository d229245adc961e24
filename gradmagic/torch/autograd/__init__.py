"""``torch.autograd``: ``backward``, ``grad``, ``Function``, ``gradcheck`` and
``gradgradcheck``, on gradmagic's engine (see ``graph``)."""

from __future__ import annotations

from ..graph import (Tensor, Walk, accumulate, as_tensor_of, enable_grad, leaves_of, no_grad,
                     seed, set_grad_enabled)
from . import function
from .checks import GradcheckError, gradcheck, gradgradcheck
from .function import Function, FunctionCtx, once_differentiable


def _sequence(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def _seeds(roots, grads, fn):
    grads = _sequence(grads) if grads is not None else [None] * len(roots)
    if len(grads) != len(roots):
        raise RuntimeError(f"{fn}: grad_tensors should have the same length as tensors: got "
                           f"{len(grads)} and {len(roots)}")
    seeds = {}
    for k, (r, g) in enumerate(zip(roots, grads)):
        if not isinstance(r, Tensor) or not r.requires_grad:
            raise RuntimeError(f"element {k} of tensors does not require grad and does not have "
                               "a grad_fn")
        s = seed(r, g, fn)
        seeds[id(r)] = seeds[id(r)] + s if id(r) in seeds else s
    return seeds


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate the gradients of ``tensors`` into the
    ``.grad`` of the leaves they depend on (or of ``inputs``)."""
    roots = _sequence(tensors)
    seeds = _seeds(roots, grad_tensors, "backward")
    walk = Walk(roots)
    if inputs is not None:
        targets = _sequence(inputs)
    else:
        targets = leaves_of(walk) + [r for r in roots if r.is_leaf or r.retains_grad]
    grads = walk.run(seeds, {id(t) for t in targets}, create_graph)
    for t in targets:
        g = grads.get(id(t))
        if g is not None:
            accumulate(t, g)
    walk.tell(roots, targets, [t.grad_value for t in targets])
    if not (create_graph if retain_graph is None else retain_graph):
        walk.free()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: the gradients of ``outputs`` with respect to ``inputs``, as
    a tuple, without touching any ``.grad``."""
    if is_grads_batched:
        raise NotImplementedError("gradmagic.torch: autograd.grad(is_grads_batched=True) is not "
                                  "supported; call it once per row of grad_outputs")
    roots, sources = _sequence(outputs), _sequence(inputs)
    for s in sources:
        if not isinstance(s, Tensor) or not s.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    seeds = _seeds(roots, grad_outputs, "autograd.grad")
    walk = Walk(roots)
    grads = walk.run(seeds, {id(s) for s in sources}, create_graph)
    results = []
    for s in sources:
        g = grads.get(id(s))
        if g is None:
            if not (allow_unused or materialize_grads):
                raise RuntimeError("One of the differentiated Tensors appears to not have been "
                                   "used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            results.append(as_tensor_of(s.value * 0, s) if materialize_grads else None)
            continue
        g = as_tensor_of(g, s)
        results.append(g if g.dtype == s.dtype else g.type(s.dtype))
    walk.tell(roots, sources, results)
    if not (create_graph if retain_graph is None else retain_graph):
        walk.free()
    return tuple(results)


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "function", "no_grad", "enable_grad",
           "set_grad_enabled"]
