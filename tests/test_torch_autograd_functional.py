"""``gradmagic.torch.autograd.functional`` against PyTorch 2.13.0+cpu: the examples of
PyTorch's docs for ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp`` and ``hvp`` (their
``torch.rand`` inputs replaced by fixed ones), the structure of each result (a tuple for a
tuple, a tensor for a tensor), the defaults of ``v``, ``create_graph`` and ``strict``'s errors,
each value computed by PyTorch 2.13.0+cpu on the same calls (float32, rounded to 6 places)."""

import numpy as np
import pytest

import gradmagic.torch as torch
from gradmagic.torch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp

X44 = [[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [-0.1, -0.2, 0.9, 1.0], [0.0, 0.3, -0.5, 0.25]]
X22 = [[0.3, 0.7], [0.2, 0.9]]
A, B = [0.25, 0.75], [0.5, -1.5]


def exp_reducer(x):
    return x.exp().sum(dim=1)


def adder(x, y):
    return 2 * x + 3 * y


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def pow_reducer(x):
    return x.pow(3).sum()


def pow_adder_reducer(x, y):
    return (2 * x.pow(2) + 3 * y.pow(2)).sum()


def _t(v):
    return torch.tensor(v)


def _flat(result):
    """The result's structure (tuples and lists kept) with each tensor as a flat list."""
    if isinstance(result, (tuple, list)):
        return type(result)(_flat(r) for r in result)
    assert isinstance(result, torch.Tensor)
    return result.detach().reshape(-1).tolist()


def _close(got, want):
    assert type(got) is type(want), (got, want)
    if isinstance(want, (tuple, list)) and want and isinstance(want[0], (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


CALLS = {  # PyTorch's docs' examples on fixed inputs
    "vjp-exp_reducer": lambda: vjp(exp_reducer, _t(X44), torch.ones(4)),
    "vjp-adder": lambda: vjp(adder, (_t(A), _t(B)), torch.ones(2)),
    "jvp-exp_reducer": lambda: jvp(exp_reducer, _t(X44), torch.ones(4, 4)),
    "jvp-adder": lambda: jvp(adder, (_t(A), _t(B)), (torch.ones(2), torch.ones(2))),
    "jacobian-exp_reducer": lambda: jacobian(exp_reducer, _t(X22)),
    "jacobian-exp_adder": lambda: jacobian(exp_adder, (_t(A), _t(B))),
    "hessian-pow_reducer": lambda: hessian(pow_reducer, _t(X22)),
    "hessian-pow_adder_reducer": lambda: hessian(pow_adder_reducer, (_t(A), _t(B))),
    "vhp-pow_reducer": lambda: vhp(pow_reducer, _t(X22), torch.ones(2, 2)),
    "vhp-pow_adder_reducer": lambda: vhp(pow_adder_reducer, (_t(A), _t(B)), (torch.zeros(2), torch.ones(2))),
    "hvp-pow_reducer": lambda: hvp(pow_reducer, _t(X22), torch.ones(2, 2)),
    "hvp-pow_adder_reducer": lambda: hvp(pow_adder_reducer, (_t(A), _t(B)), (torch.zeros(2), torch.ones(2))),
    # the same values by PyTorch's vmap and forward-mode paths (the reverse passes here)
    "jacobian-vectorize": lambda: jacobian(exp_adder, (_t(A), _t(B)), vectorize=True),
    "jacobian-forward-mode": lambda: jacobian(exp_adder, (_t(A), _t(B)), vectorize=True,
                                              strategy="forward-mode"),
    "hessian-forward-mode": lambda: hessian(pow_adder_reducer, (_t(A), _t(B)), vectorize=True,
                                            outer_jacobian_strategy="forward-mode"),
    # conventions: v left out, a tuple of outputs, an input nothing depends on (zeros)
    "vjp-v-default": lambda: vjp(pow_reducer, _t(X22)),
    "jvp-v-default": lambda: jvp(lambda x: x * _t([1.0, 2.0]), _t([3.0])),
    "jacobian-tuple-out": lambda: jacobian(lambda x: (x * 2, x.sum()), _t(A)),
    "jacobian-tuple-both": lambda: jacobian(lambda x, y: (x * y, (x + y).sum()), (_t(A), _t(B))),
    "jacobian-unused-input": lambda: jacobian(lambda x, y: x * 2, (_t(A), _t(B))),
    "jacobian-0d": lambda: jacobian(lambda x: (x ** 2).sum(), _t(3.0)),
    "vjp-unused-input": lambda: vjp(lambda x, y: x * 2, (_t(A), _t(B)), torch.ones(2)),
}

# PyTorch 2.13.0+cpu, the same calls (float32), each tensor flattened, rounded to 6 places
PYTORCH = {
    "vjp-exp_reducer": ([5.168257, 7.710134, 6.901453, 4.240415],
                        [1.105171, 1.221403, 1.349859, 1.491825, 1.648721, 1.822119, 2.013753, 2.225541,
                         0.904837, 0.818731, 2.459603, 2.718282, 1.0, 1.349859, 0.606531, 1.284025]),
    "vjp-adder": ([2.0, -3.0], ([2.0, 2.0], [3.0, 3.0])),
    "jvp-exp_reducer": ([5.168257, 7.710134, 6.901453, 4.240415], [5.168257, 7.710134, 6.901453, 4.240415]),
    "jvp-adder": ([2.0, -3.0], [5.0, 5.0]),
    "jacobian-exp_reducer": [1.349859, 2.013753, 0.0, 0.0, 0.0, 0.0, 1.221403, 2.459603],
    "jacobian-exp_adder": ([2.568051, 0.0, 0.0, 4.234], [3.0, 0.0, 0.0, 3.0]),
    "hessian-pow_reducer": [1.8, 0.0, 0.0, 0.0, 0.0, 4.2, 0.0, 0.0, 0.0, 0.0, 1.2, 0.0, 0.0, 0.0, 0.0, 5.4],
    "hessian-pow_adder_reducer": (([4.0, 0.0, 0.0, 4.0], [0.0, 0.0, 0.0, 0.0]),
                                  ([0.0, 0.0, 0.0, 0.0], [6.0, 0.0, 0.0, 6.0])),
    "vhp-pow_reducer": ([1.107], [1.8, 4.2, 1.2, 5.4]),
    "vhp-pow_adder_reducer": ([8.75], ([0.0, 0.0], [6.0, 6.0])),
    "hvp-pow_reducer": ([1.107], [1.8, 4.2, 1.2, 5.4]),
    "hvp-pow_adder_reducer": ([8.75], ([0.0, 0.0], [6.0, 6.0])),
    "jacobian-vectorize": ([2.568051, 0.0, 0.0, 4.234], [3.0, 0.0, 0.0, 3.0]),
    "jacobian-forward-mode": [[2.568051, 0.0, 0.0, 4.234], [3.0, 0.0, 0.0, 3.0]],  # a list, as PyTorch's
    "hessian-forward-mode": [[[4.0, 0.0, 0.0, 4.0], [0.0, 0.0, 0.0, 0.0]],
                             [[0.0, 0.0, 0.0, 0.0], [6.0, 0.0, 0.0, 6.0]]],
    "vjp-v-default": ([1.107], [0.27, 1.47, 0.12, 2.43]),
    "jvp-v-default": ([3.0, 6.0], [1.0, 2.0]),
    "jacobian-tuple-out": ([2.0, 0.0, 0.0, 2.0], [1.0, 1.0]),
    "jacobian-tuple-both": (([0.5, 0.0, 0.0, -1.5], [0.25, 0.0, 0.0, 0.75]), ([1.0, 1.0], [1.0, 1.0])),
    "jacobian-unused-input": ([2.0, 0.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0]),
    "jacobian-0d": [6.0],
    "vjp-unused-input": ([0.5, 1.5], ([2.0, 2.0], [0.0, 0.0])),
}

SHAPES = {  # PyTorch 2.13.0: the shape of d output / d input is output.shape + input.shape
    "jacobian-exp_reducer": (2, 2, 2), "hessian-pow_reducer": (2, 2, 2, 2), "jacobian-0d": (),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_functional_matches_pytorch(name):
    """Values and structure: tuples where PyTorch gives tuples (lists for forward mode),
    a tensor where it gives one, ``vjp`` and the like a pair (output, product)."""
    result = CALLS[name]()
    _close(_flat(result), PYTORCH[name])
    if name in SHAPES:
        assert tuple(result.shape) == SHAPES[name]


def test_jacobian_vectorize_of_the_docs_linear_model_has_pytorchs_shape():
    def linear_model(x):
        w = torch.tensor([[2.0, -1.0], [0.0, 1.0]])
        b = torch.tensor([1.0, 0.5])
        return x @ w.T + b
    x = torch.tensor([[0.5, -1.0], [2.0, 0.0], [1.0, 1.0], [-0.5, 0.25]], requires_grad=True)
    jac = jacobian(linear_model, x, vectorize=True)
    assert jac.shape == torch.Size([4, 2, 4, 2])  # PyTorch 2.13.0's doc: torch.Size([4, 2, 4, 2])
    assert jac[1, :, 1].tolist() == [[2.0, -1.0], [0.0, 1.0]] and float(jac.abs().sum()) == 16.0


@pytest.mark.parametrize("create_graph", [False, True], ids=["plain", "create_graph"])
@pytest.mark.parametrize("fn", ["vjp", "jvp", "vhp", "hvp"])
def test_results_have_history_only_with_create_graph(fn, create_graph):
    """PyTorch 2.13.0: the docs' ``create_graph=True`` calls give ``grad_fn`` s on both parts."""
    if fn in ("vjp", "jvp"):
        out, res = {"vjp": vjp, "jvp": jvp}[fn](exp_reducer, _t(X44), torch.ones(4) if fn == "vjp"
                                                else torch.ones(4, 4), create_graph=create_graph)
    else:
        out, res = {"vhp": vhp, "hvp": hvp}[fn](pow_reducer, _t(X22), torch.ones(2, 2),
                                                create_graph=create_graph)
    assert out.requires_grad is create_graph and res.requires_grad is create_graph


def test_jacobian_create_graph_lets_gradients_reach_the_inputs():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    j = jacobian(lambda x: x ** 3, a, create_graph=True)
    assert j.grad_fn is not None
    j.sum().backward()
    assert a.grad.tolist() == [6.0, 12.0]  # PyTorch 2.13.0: [6.0, 12.0]


def test_importable_as_pytorch_code_imports_it():
    import gradmagic.torch.autograd.functional as functional
    assert torch.autograd.functional is functional
    assert torch.autograd.functional.jacobian is jacobian


INDEPENDENT = "of the user-provided function is independent of input 1. This is not allowed in strict mode."
# PyTorch 2.13.0's messages (gradmagic puts the function's name first)
STRICT = {
    "jacobian-unused": (lambda: jacobian(lambda x, y: x * 2, (_t(A), _t(B)), strict=True),
                        "jacobian: Output 0 " + INDEPENDENT),
    "jacobian-constant": (lambda: jacobian(lambda x: torch.ones(2), _t(A), strict=True),
                          "jacobian: Output 0 of the user-provided function does not require gradients. "
                          "The outputs must be computed in a differentiable manner from the input when "
                          "running in strict mode."),
    "vjp-unused": (lambda: vjp(lambda x, y: x * 2, (_t(A), _t(B)), torch.ones(2), strict=True),
                   "vjp: The output " + INDEPENDENT),
    "jvp-unused": (lambda: jvp(lambda x, y: x * 2, (_t(A), _t(B)), (_t(A), _t(B)), strict=True),
                   "jvp: The output " + INDEPENDENT),
    "vhp-unused": (lambda: vhp(lambda x, y: (x ** 2).sum(), (_t(A), _t(B)), (_t(A), _t(B)), strict=True),
                   "vhp: The output " + INDEPENDENT),
    "hvp-unused": (lambda: hvp(lambda x, y: (x ** 2).sum(), (_t(A), _t(B)), (_t(A), _t(B)), strict=True),
                   "hvp: The output " + INDEPENDENT),
    "hessian-linear": (lambda: hessian(lambda x: x.sum(), _t(A), strict=True),
                       "hessian: While computing the hessian, found that the jacobian of the "
                       "user-provided function with respect to input 0 is independent of the input."),
    "jacobian-create_graph-linear": (
        lambda: jacobian(lambda x: x * 2, _t(A), strict=True, create_graph=True),
        "jacobian: The jacobian of the user-provided function is independent of input 0. This is "
        "not allowed in strict mode when create_graph=True."),
}


@pytest.mark.parametrize("name", list(STRICT))
def test_strict_raises_pytorchs_error(name):
    call, message = STRICT[name]
    with pytest.raises(RuntimeError) as e:
        call()
    assert str(e.value).startswith(message)


ERRORS = {  # PyTorch 2.13.0's exception and message for the same call
    "vjp-v-needed": (lambda: vjp(exp_reducer, _t(X44)), RuntimeError,
                     "vjp: The vector v can only be None if the user-provided function returns a "
                     "single Tensor with a single element."),
    "jvp-v-needed": (lambda: jvp(exp_reducer, _t(X44)), RuntimeError,
                     "jvp: The vector v can only be None if the input to the user-provided function "
                     "is a single Tensor with a single element."),
    "vjp-v-size": (lambda: vjp(exp_reducer, _t(X44), torch.ones(3)), RuntimeError,
                   "vjp: v has invalid size: should be torch.Size([4]) but got torch.Size([3])."),
    "vjp-v-length": (lambda: vjp(lambda x: (x, x), _t(A), (torch.ones(2),)), RuntimeError,
                     "vjp: v is a tuple of invalid length: should be 2 but got 1."),
    "jvp-v-entry-size": (lambda: jvp(adder, (_t(A), _t(B)), (torch.ones(2), torch.ones(3))), RuntimeError,
                         "jvp: Entry 1 in v has invalid size: should be torch.Size([2]) but got "
                         "torch.Size([3])."),
    "inputs-list": (lambda: jacobian(lambda x: x, [_t(A)]), TypeError,
                    "jacobian: The inputs given to jacobian must be either a Tensor or a tuple of "
                    "Tensors but the given inputs has type <class 'list'>."),
    "output-float": (lambda: jacobian(lambda x: 2.0, _t(A)), TypeError,
                     "jacobian: The outputs of the user-provided function given to jacobian must be "
                     "either a Tensor or a tuple of Tensors but the given outputs of the user-provided "
                     "function has type <class 'float'>."),
    "hessian-tuple": (lambda: hessian(lambda x: (x.sum(), x.sum()), _t(A)), RuntimeError,
                      "hessian: The function given to hessian should return a single Tensor"),
    "hessian-vector": (lambda: hessian(lambda x: x * 2, _t(A)), RuntimeError,
                       "hessian: The Tensor returned by the function given to hessian should contain "
                       "a single element"),
    "forward-mode-not-vectorized": (lambda: jacobian(lambda x: x, _t(A), strategy="forward-mode"),
                                    NotImplementedError, "torch.autograd.functional.jacobian: Computing "
                                    "Jacobian using forward-AD"),
    "forward-mode-create_graph": (
        lambda: jacobian(lambda x: x, _t(A), strategy="forward-mode", vectorize=True, create_graph=True),
        NotImplementedError, "torch.autograd.functional.jacobian: `create_graph=True` and "
        '`strategy="forward-mode"` are not supported together (yet).'),
    "vectorize-strict": (lambda: jacobian(lambda x: x, _t(A), vectorize=True, strict=True), RuntimeError,
                         "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                         "not supported together."),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_are_pytorchs(name):
    call, kind, message = ERRORS[name]
    with pytest.raises(kind) as e:
        call()
    assert str(e.value).startswith(message)
