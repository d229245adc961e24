"""``torch.autograd.functional``: ``jacobian``, ``hessian``, ``vjp``, ``jvp``, ``vhp`` and
``hvp``, each a few calls of the dialect's ``autograd.grad``, as PyTorch 2.13.0 builds them.

PyTorch's conventions hold: a tuple of inputs (or outputs) gives a tuple of results, a single
tensor a single result; ``v`` may be left out where the function's output (``vjp``) or input
(``jvp``, ``vhp``, ``hvp``) has one element; an input the outputs do not depend on gets zeros,
or, with ``strict=True``, PyTorch's error. ``jvp`` and ``hvp`` use the double-backward trick,
as PyTorch's do. ``vectorize=True`` and ``strategy="forward-mode"`` (PyTorch's vmap and
forward-mode AD) give the same values here by the same reverse passes, one per output element;
the combinations PyTorch refuses are refused in its words.

>>> import gradmagic.torch as torch
>>> from gradmagic.torch.autograd.functional import jacobian
>>> jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""

from __future__ import annotations

from ..._backend import xp_of
from ...core import ops
from ..graph import Tensor, as_tensor_of
from ..walk import grad
from ..modes import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

STRATEGIES = ("forward-mode", "reverse-mode")


def _as_tuple(inp, arg_name, fn_name):
    """``(was it a tuple, the tensors as a tuple)``; anything but tensors is refused."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"{fn_name}: The {arg_name} given to {fn_name} must be either a Tensor "
                            f"or a tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, to_unpack):
    """The results as the arguments came: a tuple for a tuple, a tensor for a tensor;
    ``to_unpack`` a pair (outputs, inputs) for a nested result (``jacobian``, ``hessian``)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
        return res
    return res if to_unpack else res[0]


def _zeros_like(t, requires_grad=False):
    z = as_tensor_of(xp_of(t.value).zeros_like(t.value), t)
    z.leaf_requires_grad = requires_grad
    return z


def _preprocess(inputs, create_graph, need_graph):
    """New tensor objects for the inputs (so a tensor that ``func`` also reads from outside
    is not mistaken for one of them): a differentiable view with ``create_graph`` (gradients
    then flow on to the caller's tensors), else a detached one."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _postprocess(results, create_graph):
    """Results without history unless ``create_graph`` asked for it."""
    if isinstance(results[0], Tensor):
        return results if create_graph else tuple(r.detach() for r in results)
    return tuple(_postprocess(r, create_graph) for r in results)


def _validate_v(v, other, is_other_tuple, fn):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"{fn}: v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError(f"{fn}: The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{fn}: {prepend}v has invalid size: should be {el_other.size()} "
                               f"but got {el_v.size()}.")


def _v(v, other, is_other_tuple, create_graph, fn, of):
    """``v`` as a tuple checked against ``other``; left out, ``None`` (ones), which only a
    single one-element ``other`` allows (``of`` says whose: PyTorch's words for it)."""
    if v is None:
        if len(other) != 1 or other[0].nelement() != 1:
            raise RuntimeError(f"{fn}: The vector v can only be None if {of} a single Tensor with "
                               "a single element.")
        return None
    _, v = _as_tuple(v, "v", fn)
    v = _preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, other, is_other_tuple, fn)
    return v


NOT_GRAD = {
    "hessian": lambda i: (f"The hessian of the user-provided function with respect to input {i} "
                          "is independent of the input. This is not allowed in strict mode. You "
                          "should ensure that your function is thrice differentiable and that the "
                          "hessian depends on the inputs."),
    "jacobian": lambda i: ("While computing the hessian, found that the jacobian of the "
                           f"user-provided function with respect to input {i} is independent of "
                           "the input. This is not allowed in strict mode. You should ensure that "
                           "your function is twice differentiable and that the jacobian depends "
                           "on the inputs (this would be violated by a linear function for "
                           "example)."),
    "grad_inputs": lambda i: (f"The gradient with respect to input {i} is independent of the "
                              "inputs of the user-provided function. This is not allowed in "
                              "strict mode."),
    "outputs": lambda i: (f"Output {i} of the user-provided function does not require gradients. "
                          "The outputs must be computed in a differentiable manner from the input "
                          "when running in strict mode."),
}


def _check_requires_grad(tensors, kind, strict, fn):
    """With ``strict``, PyTorch's error for a result that does not depend on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"{fn}: The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(f"{fn}: {NOT_GRAD[kind](i)}")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` over the outputs that require grad (``None`` where none does)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return grad([o for o, _ in pairs], list(inputs), [g for _, g in pairs], allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph)


BACK = {  # stage -> PyTorch's strict error for a gradient that is None (no dependence)
    "back": lambda i: (f"The output of the user-provided function is independent of input {i}. "
                       "This is not allowed in strict mode."),
    "back_trick": lambda i: (f"The gradient with respect to the input is independent of entry {i} "
                             "in the grad_outputs when using the double backward trick to compute "
                             "forward mode gradients. This is not allowed in strict mode."),
    "double_back": lambda i: (f"The jacobian of the user-provided function is independent of "
                              f"input {i}. This is not allowed in strict mode."),
    "double_back_trick": lambda i: (
        f"The hessian of the user-provided function is independent of entry {i} in the "
        "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
        "backward trick to replace forward mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage, fn):
    """Zeros (of ``refs[i]``'s shape) for a ``None`` gradient, or with ``strict`` the error."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(f"{fn}: {BACK[stage](i)}")
            g = _zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"{fn}: The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _outputs(func, inputs, strict, fn):
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn)
    _check_requires_grad(outputs, "outputs", strict, fn)
    return is_tuple, outputs


def _pair(outputs, outputs_tuple, res, res_tuple, create_graph):
    """``(func's outputs, the product)``, each as the user gave its kind (a tensor or a tuple)."""
    return (_unpack(_postprocess(outputs, create_graph), outputs_tuple),
            _unpack(_postprocess(res, create_graph), res_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.vjp``: ``(func(*inputs), v^T J)``, the second shaped as
    the inputs (a tuple for a tuple). ``v`` may be left out when ``func`` returns a single
    one-element tensor.

    >>> import gradmagic.torch as torch
    >>> vjp(lambda x, y: 2 * x + 3 * y, (torch.ones(2), torch.ones(2)), torch.ones(2))
    (tensor([5., 5.]), (tensor([2., 2.]), tensor([3., 3.])))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func, inputs, strict, "vjp")
        v = _v(v, outputs, is_outputs_tuple, create_graph, "vjp", "the user-provided function returns")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_grad(outputs, inputs, v, create_graph=create_graph), inputs, strict,
                             create_graph, "back", "vjp")
    return _pair(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.jvp``: ``(func(*inputs), J v)``, the second shaped as
    the outputs; by the double-backward trick, as PyTorch computes it. ``v`` may be left out
    when the input is a single one-element tensor.

    >>> import gradmagic.torch as torch
    >>> jvp(lambda x, y: 2 * x + 3 * y, (torch.ones(2), torch.ones(2)), (torch.ones(2), torch.ones(2)))
    (tensor([5., 5.]), tensor([5., 5.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _v(v, inputs, is_inputs_tuple, create_graph, "jvp",
               "the input to the user-provided function is")
        is_outputs_tuple, outputs = _outputs(func, inputs, strict, "jvp")
        grad_outputs = tuple(_zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict, "jvp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_grad(grad_inputs, grad_outputs, v, create_graph=create_graph), outputs,
                             strict, create_graph, "back_trick", "jvp")
    return _pair(outputs, is_outputs_tuple, res, is_outputs_tuple, create_graph)


def _reverse_jacobian(func, inputs, create_graph, strict, lists=False):
    """Per output, per input, d output / d input, shaped ``output.shape + input.shape``:
    one backward pass per output element; nested in lists where PyTorch's forward mode
    gives lists (``lists``), else in tuples."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func, inputs, strict, "jacobian")
        jacobian = []
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                vj = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
                for k, (row, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"jacobian: Output {i} of the user-provided function is independent "
                                f"of input {k}. This is not allowed in strict mode.")
                        g = _zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "jacobian: The jacobian of the user-provided function is independent "
                            f"of input {i}. This is not allowed in strict mode when "
                            "create_graph=True.")
                    row.append(g)
            jacobian.append(tuple(_stack(row, out, inp) for row, inp in zip(rows, inputs)))
        jacobian = _postprocess(tuple(jacobian), create_graph)
        if lists:
            jacobian = [list(row) for row in jacobian]
        return _unpack(jacobian, (is_outputs_tuple, is_inputs_tuple))


def _stack(rows, out, inp):
    shape = tuple(out.shape) + tuple(inp.shape)
    if not rows:  # an output with no element
        return as_tensor_of(xp_of(inp.value).zeros(shape, inp.dtype), inp)
    return ops.reshape(ops.stack(rows, axis=0), shape)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """``torch.autograd.functional.jacobian``: d output / d input for each pair, shaped
    ``output.shape + input.shape``; a tensor for one input and one output, a tuple over the
    inputs for a tuple of inputs, over the outputs for a tuple of outputs, a tuple of tuples
    (outputs, then inputs) for both. ``vectorize=True`` and ``strategy="forward-mode"``
    compute the same values by the reverse passes (one per output element) here; forward
    mode nests them in lists where PyTorch's does (a tuple of inputs).

    >>> import gradmagic.torch as torch
    >>> jacobian(lambda x, y: 2 * x.exp() + 3 * y, (torch.zeros(2), torch.zeros(2)))
    (tensor([[2., 0.],
            [0., 2.]]), tensor([[3., 0.],
            [0., 3.]]))
    """
    if strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`strict=False` or `strategy="reverse-mode"`.')
        if not vectorize:
            raise NotImplementedError("torch.autograd.functional.jacobian: Computing Jacobian using "
                                      "forward-AD or forward-over-reverse Hessian is only "
                                      "implemented for `vectorize=True`.")
    elif vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    return _reverse_jacobian(func, inputs, create_graph, strict, lists=strategy == "forward-mode")


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """``torch.autograd.functional.hessian``: the second derivatives of ``func``, which returns
    one one-element tensor: shaped ``input.shape + input.shape`` for one input, a tuple of
    tuples ``H[i][j]`` (d2 / d input i d input j) for a tuple of inputs.

    >>> import gradmagic.torch as torch
    >>> hessian(lambda x: x.pow(3).sum(), torch.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict, "hessian")
        if is_out_tuple:
            raise RuntimeError("hessian: The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("hessian: The Tensor returned by the function given to hessian "
                               "should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict, "hessian")
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def _scalar_output(func, inputs, strict, fn):
    is_outputs_tuple, outputs = _outputs(func, inputs, strict, fn)
    if is_outputs_tuple:
        raise RuntimeError(f"{fn}: The function given to {fn} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"{fn}: The Tensor returned by the function given to {fn} should "
                           "contain a single element")
    return is_outputs_tuple, outputs


def _first_derivative(func, inputs, v, create_graph, strict, fn):
    """What ``vhp`` and ``hvp`` share (under ``enable_grad``): the inputs and ``v`` as tuples,
    the one-element output, and its gradient, with a graph."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    inputs = _preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _v(v, inputs, is_inputs_tuple, create_graph, fn, "the input to the user-provided function is")
    is_outputs_tuple, outputs = _scalar_output(func, inputs, strict, fn)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict, fn)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.vhp``: ``(func(*inputs), v^T H)`` for ``func`` returning
    one one-element tensor, the second shaped as the inputs.

    >>> import gradmagic.torch as torch
    >>> vhp(lambda x: x.pow(3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_grad(jac, inputs, v, create_graph=create_graph), inputs, strict,
                             create_graph, "double_back", "vhp")
    return _pair(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``torch.autograd.functional.hvp``: ``(func(*inputs), H v)`` for ``func`` returning
    one one-element tensor, by the double-backward trick, as PyTorch computes it.

    >>> import gradmagic.torch as torch
    >>> hvp(lambda x: x.pow(3).sum(), torch.tensor([1.0, 2.0]), torch.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "hvp")
        grad_jac = tuple(_zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict, "hvp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _fill_in_zeros(_grad(double_back, grad_jac, v, create_graph=create_graph), inputs,
                             strict, create_graph, "double_back_trick", "hvp")
    return _pair(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)
