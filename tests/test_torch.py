"""gradmagic.torch: PyTorch's tutorials on custom Functions run unchanged, with PyTorch's
semantics, and their trace and pitfalls in PyTorch's words.

Expected outputs were printed by PyTorch 2.13.0+cpu (NumPy 2.4, Python 3.11) running the
same programs with ``import torch``; ``tests/torch_tutorials/`` holds them as gradmagic
runs them (only the import lines differ).
"""

import contextlib
import gc
import io
import re
import runpy
import subprocess
import sys
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch
from gradmagic.torch.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from gradmagic.torch.autograd.function import once_differentiable

from _cases import module_or_skip

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from benchmarks.workloads import foo_function  # noqa: E402

TUTORIALS = Path(__file__).parent / "torch_tutorials"


def _tutorial(name):
    """A tutorial run as a script: what it printed, and its names."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        names = runpy.run_path(str(TUTORIALS / f"{name}.py"), run_name="__main__")
    return out.getvalue(), names


def _run(name):
    return _tutorial(name)[0]


# -- the tutorials, unchanged -------------------------------------------------------------------
# PyTorch 2.13.0+cpu: polynomial_custom_function.py (loss every 100 steps, then the result)
LEGENDRE_LOSSES = [209.95834350585938, 144.66018676757812, 100.70249938964844, 71.03519439697266,
                   50.978511810302734, 37.40313720703125, 28.20686912536621, 21.973186492919922,
                   17.745729446411133, 14.877889633178711, 12.93176555633545, 11.610918045043945,
                   10.71425724029541, 10.10548210144043, 9.692105293273926, 9.411375999450684,
                   9.220745086669922, 9.091285705566406, 9.003361701965332, 8.943641662597656]
LEGENDRE_RESULT = (-6.71270206087371e-10, -2.208526849746704, -3.392665037793563e-10, 0.2554861009120941)


def test_legendre_polynomial_tutorial_trains_as_in_pytorch():
    lines = _run("legendre").splitlines()
    losses = [float(line.split()[1]) for line in lines[:-1]]
    assert [int(line.split()[0]) for line in lines[:-1]] == list(range(99, 2000, 100))
    np.testing.assert_allclose(losses, LEGENDRE_LOSSES, rtol=1e-5)  # float32, 2000 steps
    a, b, c, d = map(float, re.fullmatch(r"Result: y = (\S+) \+ (\S+) \* P3\((\S+) \+ (\S+) x\)",
                                          lines[-1]).groups())
    assert abs(a) < 1e-8 and abs(c) < 1e-8  # both are 0 up to float32 rounding
    assert b == pytest.approx(LEGENDRE_RESULT[1], rel=1e-6)
    assert d == pytest.approx(LEGENDRE_RESULT[3], rel=1e-6)


EXTENDING = """True
True
tensor([[ 0.1000,  5.7000,  0.8000],
        [ 1.8500,  2.7000, -3.4500]], grad_fn=<LinearFunctionBackward>)
tensor([[1.0000, 2.5000],
        [1.0000, 2.5000]])
tensor([[4., 1.],
        [4., 1.],
        [4., 1.]])
tensor([2., 2., 2.])
tensor([[ 0.0000,  5.5000,  0.5000],
        [ 1.7500,  2.5000, -3.7500]], grad_fn=<LinearFunctionBackward>)
tensor([[4.0000, 5.5000],
        [4.0000, 5.5000]])
tensor([ 3., 12., 27.], grad_fn=<AddBackward0>)
tensor([ 6., 12., 18.])
tensor([1., 2., 3.], grad_fn=<FuncBackward>) tensor([1, 2, 0]) False
tensor([100.,   1.,  10.])
tensor(1.)
"""  # PyTorch 2.13.0+cpu


def test_extending_pytorch_examples_print_what_pytorch_prints():
    assert _run("extending") == EXTENDING


DOUBLE = """True
True
True
True
True
True
True
gradgradcheck failed: GradcheckError Jacobian mismatch for output 0 with respect to input 0,
True
True
tensor(12., dtype=torch.float64, grad_fn=<CubeBackwardBackward>)
tensor(12., dtype=torch.float64)
"""  # PyTorch 2.13.0+cpu: SinhBad's double backward fails there too


def test_double_backward_tutorial_prints_what_pytorch_prints():
    assert _run("double") == DOUBLE


# -- tensors and dtypes ---------------------------------------------------------------------------
def test_dtypes_default_as_pytorch():
    assert torch.tensor(1.5).dtype == torch.float32 == torch.float
    assert torch.tensor([1, 2]).dtype == torch.int64
    assert torch.tensor(np.array([1.0])).dtype == torch.float64
    assert torch.zeros(2, 3).dtype == torch.float32 and torch.zeros(2, 3).shape == (2, 3)
    assert torch.ones((2,), dtype=torch.double).dtype == np.float64
    assert torch.linspace(0, 1, 5).dtype == torch.float32
    assert torch.arange(3).dtype == torch.int64 and torch.full((), 0.5).dtype == torch.float32


def test_size_dim_shape_and_printing():
    x = torch.zeros(2, 3)
    assert x.size() == torch.Size([2, 3]) and repr(x.size()) == "torch.Size([2, 3])"
    assert x.size(1) == 3 and x.dim() == 2 and x.numel() == 6 and x.shape[0] == 2
    assert repr(torch.tensor(2.5, requires_grad=True)) == "tensor(2.5000, requires_grad=True)"
    assert repr(torch.tensor([1.0, -2.0])) == "tensor([ 1., -2.])"


def test_methods_map_onto_ops():
    x = torch.tensor([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    assert x.sum(0).tolist() == [5.0, 3.0, -3.0] and x.sum(dim=1, keepdim=True).shape == (2, 1)
    assert x.mean().item() == pytest.approx(5 / 6)
    values, indices = x.max(dim=1)
    assert values.tolist() == [3.0, 5.0] and indices.tolist() == [2, 1]
    assert x.t().shape == (3, 2) and x.T.shape == (3, 2) and x.view(-1).shape == (6,)
    assert x.unsqueeze(0).shape == (1, 2, 3) and x.unsqueeze(-1).shape == (2, 3, 1)
    assert x.clamp(min=0).tolist() == [[1.0, 0.0, 3.0], [4.0, 5.0, 0.0]]
    assert x.abs().sum().item() == 21.0 and x.mm(x.t()).shape == (2, 2)
    assert x.expand(3, 2, 3).shape == (3, 2, 3) and x[:, 0].tolist() == [1.0, 4.0]
    assert torch.tensor([3.0, 4.0]).norm().item() == 5.0
    assert x.std().item() == pytest.approx(np.std(x.numpy(), ddof=1))  # unbiased, as PyTorch
    s = torch.tensor([3.0, 1.0, 2.0]).sort(descending=True)
    assert s.values.tolist() == [3.0, 2.0, 1.0] and s.indices.tolist() == [0, 2, 1]


def _fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


METHOD_CASES = {
    "sum-dim": lambda t: (t.sum(1) ** 2).sum(),
    "mean-keepdim": lambda t: (t * t.mean(0, keepdim=True)).sum(),
    "max-dim": lambda t: t.max(dim=1).values.sum(),
    "norm": lambda t: t.norm(),
    "softmax": lambda t: (t.softmax(1) * torch.tensor([1.0, 2.0, 3.0], dtype=torch.double)).sum(),
    "pow-exp-sin": lambda t: (t.pow(3) + t.exp() + torch.sin(t)).sum(),
    "mm-t": lambda t: t.mm(t.t()).sum(),
    "view-expand": lambda t: t.view(3, 2).unsqueeze(0).expand(2, 3, 2).sum(),
    "std": lambda t: t.std(),
    "clamp": lambda t: t.clamp(-0.5, 0.5).sum(),
    "relu-sigmoid": lambda t: torch.nn.functional.relu(t).sum() + torch.sigmoid(t).sum(),
    "softplus": lambda t: torch.nn.functional.softplus(t).sum(),
    "index": lambda t: (t[0] * t[1]).sum(),
}


@pytest.mark.parametrize("name", list(METHOD_CASES))
def test_method_gradients_match_finite_differences(name):
    f = METHOD_CASES[name]
    x0 = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.9]])
    x = torch.tensor(x0, requires_grad=True)
    f(x).backward()
    expected = _fd(lambda v: f(torch.tensor(v)).item(), x0)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["pow-exp-sin", "softmax", "norm", "mm-t"])
def test_second_derivatives_match_finite_differences(name):
    f = METHOD_CASES[name]
    x0 = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.9]])
    v = np.arange(6.0).reshape(2, 3) / 6

    def directional(a):
        t = torch.tensor(a, requires_grad=True)
        g, = torch.autograd.grad(f(t), t)
        return float(np.sum(g.numpy() * v))
    x = torch.tensor(x0, requires_grad=True)
    g, = torch.autograd.grad(f(x), x, create_graph=True)
    (g * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _fd(directional, x0, 1e-5), rtol=1e-5, atol=1e-7)


def test_float32_gradients_match_finite_differences_in_float64():
    x0 = np.array([0.3, -1.2, 0.7], dtype=np.float32)
    x = torch.tensor(x0, requires_grad=True)
    (x.exp() * x).sum().backward()
    assert x.grad.dtype == torch.float32
    expected = _fd(lambda v: float(np.sum(np.exp(v) * v)), x0.astype(np.float64))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)


def test_broadcast_gradients_are_summed_to_the_leaf_shape():
    a = torch.ones(3, 1, requires_grad=True)
    b = torch.ones(4, requires_grad=True)
    (a * b * torch.arange(12.0).view(3, 4)).sum().backward()
    assert a.grad.shape == (3, 1) and a.grad.view(-1).tolist() == [6.0, 22.0, 38.0]
    assert b.grad.tolist() == [12.0, 15.0, 18.0, 21.0]


# -- autograd semantics -----------------------------------------------------------------------------
def test_grad_accumulates_across_backward_calls_and_resets_to_none():
    x = torch.tensor(2.0, requires_grad=True)
    (x * x).backward()
    (x * x).backward()
    assert x.grad.item() == 8.0
    x.grad = None
    (3 * x).backward()
    assert x.grad.item() == 3.0
    x.grad.zero_()
    assert x.grad.item() == 0.0


def test_a_second_backward_through_a_freed_graph_raises_pytorchs_error():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_autograd_grad_walks_only_the_nodes_on_the_way_to_its_inputs():
    """As PyTorch 2.13.0: autograd.grad(y, h) goes over, and frees, only what lies between
    y and h, so a freed graph behind h does not stop it (it raised), and the part behind h
    that it did not go over can still be walked; backward() goes over all and raises."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.sum().backward()  # frees h's node
    y = (h * 3).sum()
    assert torch.autograd.grad(y, h, retain_graph=True)[0].tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    y = (h * 3).sum()
    assert torch.autograd.grad(y, h)[0].tolist() == [3.0, 3.0]  # frees what it went over
    h.sum().backward()  # h's node: not gone over, not freed
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()
    with gm.trace() as tr:
        a = torch.tensor(1.0, requires_grad=True)
        b = torch.tensor(2.0, requires_grad=True)
        z = a * b + b.exp()
        (ga,) = torch.autograd.grad(z, a)  # d/da = b; exp(b) is not on the way to a
    assert ga.item() == 2.0 and "exp" not in [r.node for r in tr.backward]


def test_retain_graph_allows_a_second_backward():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 8.0


def test_backward_of_a_non_scalar_needs_a_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(torch.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 20.0]


def test_backward_of_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        torch.tensor(1.0).backward()


def test_no_grad_records_nothing_and_enable_grad_records_again():
    x = torch.tensor(1.0, requires_grad=True)
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad
    assert torch.is_grad_enabled()

    @torch.no_grad()
    def f(v):
        return v * 3

    @torch.no_grad
    def f2(v):
        return v * 3
    assert not f(x).requires_grad and not f2(x).requires_grad and torch.is_grad_enabled()


def test_autograd_grad_returns_a_tuple_and_leaves_grad_alone():
    x = torch.tensor(3.0, requires_grad=True)
    y = torch.tensor(4.0, requires_grad=True)
    gx, gy = torch.autograd.grad(x * y, (x, y))
    assert (gx.item(), gy.item()) == (4.0, 3.0) and x.grad is None


def test_autograd_grad_unused_input_needs_allow_unused():
    x = torch.tensor(3.0, requires_grad=True)
    u = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        torch.autograd.grad(x * 2, [x, u])
    assert torch.autograd.grad(x * 2, [x, u], allow_unused=True)[1] is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        torch.autograd.grad(x * 2, torch.tensor(1.0))


def test_non_leaf_grad_warns_unless_retained():
    x = torch.tensor(2.0, requires_grad=True)
    h = x * 3
    h.retain_grad()
    k = h * h
    (k * 1).backward()
    assert h.grad.item() == 12.0
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert k.grad is None


def test_in_place_on_a_leaf_that_requires_grad_raises_outside_no_grad():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w += 1
    with torch.no_grad():
        w -= 0.5
    assert w.tolist() == [0.5, 1.5] and w.is_leaf and w.requires_grad


def test_sgd_through_data_writes_to_the_parameter():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    (w * w).sum().backward()
    w.data -= 0.25 * w.grad
    assert w.tolist() == [0.5, 1.0]


def test_in_place_on_a_non_leaf_is_recorded():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h += x ** 2  # h = 2x + x^2
    h.sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]


def test_a_saved_tensor_modified_in_place_raises_at_backward():
    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2

    x = torch.tensor([1.0], requires_grad=True)
    h = x * 1
    y = Twice.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_in_place_on_a_view_writes_into_its_base_and_on_an_expand_is_refused_as_pytorch():
    x = torch.zeros(2, 3)
    x.view(-1).add_(1)  # PyTorch 2.13.0: x is all ones
    assert x.tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x[0].expand(4, 3).add_(1)


def test_mask_assignment_and_index_add():
    g = torch.tensor([1.0, -2.0, 3.0])
    g[g < 0] = 0
    assert g.tolist() == [1.0, 0.0, 3.0]
    z = torch.zeros(3)
    z.index_add_(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0]))
    assert z.tolist() == [3.0, 0.0, 3.0]


def test_mask_assignment_is_differentiable():
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    y[y < 0] = 0
    (y * y).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0]


def test_numpy_of_a_tensor_that_requires_grad_raises_pytorchs_error():
    x = torch.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\) instead"):
        x.numpy()
    assert x.detach().numpy() == 1.0


def test_cuda_is_refused_with_the_way_to_a_gpu():
    with pytest.raises(NotImplementedError, match=r"gm.set_backend\('cupy'\)"):
        torch.zeros(2, device="cuda")
    with pytest.raises(NotImplementedError, match="CPU only"):
        torch.device("cuda:0")


def test_complex_dtypes_are_refused_as_out_of_scope():
    with pytest.raises(NotImplementedError, match="complex dtypes are out of scope"):
        torch.tensor([1 + 2j])


def test_an_unmapped_name_says_what_is_covered():
    with pytest.raises(AttributeError, match="torch.compile does not exist.*out of scope"):
        torch.compile  # noqa: B018
    with pytest.raises(AttributeError, match="nn.Linear"):
        torch.nn.Linear  # noqa: B018


# -- Function --------------------------------------------------------------------------------------
class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


def test_function_gives_needs_input_grad_and_a_named_grad_fn():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b):
            seen["needs"] = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    y = Probe.apply(torch.tensor(1.0, requires_grad=True), torch.tensor(2.0))
    assert seen["needs"] == (True, False)
    assert repr(y.grad_fn) == "<ProbeBackward>" and y.grad_fn.name() == "ProbeBackward"


def test_one_input_s_paths_agree_with_the_general_ones():
    """apply, save_for_backward, the node and backward() each have a path for one tensor
    (the commonest call); a second, constant argument takes the general one: the same
    needs_input_grad, saved tensors, gradients and graph either way."""
    seen = []

    class Square(Function):
        @staticmethod
        def forward(ctx, x, *rest):
            seen.append(ctx.needs_input_grad)
            ctx.save_for_backward(x, *rest)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x = ctx.saved_tensors[0]
            return (g * 2 * x,) + (None,) * (len(ctx.saved_tensors) - 1)

    grads, nodes = [], []
    for extra in ((), (torch.tensor(5.0),)):
        x = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
        y = Square.apply(Square.apply(x, *extra), *extra)
        nodes.append((repr(y.grad_fn), len(y.grad_fn.next_functions), y.grad_fn.next_functions[0][0].name()))
        y.backward()
        grads.append(x.grad.item())
    assert seen == [(True,), (True,), (True, False), (True, False)]
    assert grads == [4 * 3.0 ** 3] * 2
    assert nodes[0][0] == nodes[1][0] == "<SquareBackward>" and nodes[0][2] == nodes[1][2]
    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 0 "
                                        "is of type float"):
        class Saves(Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(3.0)
                return x
        Saves.apply(torch.tensor(1.0, requires_grad=True))


def test_a_python_float_makes_the_tensor_the_general_path_makes():
    """torch.tensor of a Python float has a path of its own; every other value the general one."""
    for dtype in (None, torch.float64, torch.float32):
        quick = torch.tensor(2.5, dtype=dtype, requires_grad=True)
        general = torch.tensor(np.array(2.5, dtype=dtype or np.float32), requires_grad=True)
        assert quick.dtype == general.dtype == (dtype or torch.float32)
        assert quick.item() == general.item() and quick.requires_grad and quick.is_leaf
        assert not torch.tensor(2.5, dtype=dtype).requires_grad
    assert torch.tensor(2.5, dtype=torch.int64).dtype == torch.int64  # not a float dtype: general
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torch.tensor(2.5, dtype=torch.int64, requires_grad=True)


def test_backward_returning_the_wrong_count_names_both_numbers():
    class Short(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    y = Short.apply(torch.tensor(1.0, requires_grad=True), torch.tensor(2.0, requires_grad=True))
    with pytest.raises(RuntimeError, match=r"function ShortBackward returned an incorrect number "
                                           r"of gradients \(expected 2, got 1\)"):
        y.backward()


def test_a_gradient_for_a_non_tensor_input_is_an_error():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="returned a gradient different than None at position 2"):
        Bad.apply(torch.tensor(1.0, requires_grad=True), 3.0).backward()


def test_a_gradient_of_the_wrong_shape_names_the_function_and_the_index():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)

    with pytest.raises(RuntimeError, match=r"Function BadBackward returned an invalid gradient at "
                                           r"index 0 - got \[3\] but expected shape compatible with \[2\]"):
        Bad.apply(torch.ones(2, requires_grad=True)).backward()


def test_a_broadcastable_gradient_is_summed_as_pytorch_does():
    class Wide(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g.expand(4, 2) * 2

    a = torch.ones(2, requires_grad=True)
    Wide.apply(a).sum().backward()
    assert a.grad.tolist() == [8.0, 8.0]


def test_one_input_s_gradient_is_cast_trimmed_or_none_as_pytorch_validates_it():
    # one gradient for one input, right as it is, is taken as it is; any other goes through
    # the general checks: another dtype is cast, extra Nones are dropped, None is no gradient
    def function(backward):
        class One(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        One.backward = staticmethod(backward)
        return One

    for backward, expected in ((lambda ctx, g: g * 2, 2.0), (lambda ctx, g: (g * 2).float(), 2.0),
                               (lambda ctx, g: (g * 2, None), 2.0), (lambda ctx, g: None, 0.0)):
        x = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
        (function(backward).apply(x) + x).backward()
        assert x.grad.dtype == torch.float64 and x.grad.item() == expected + 1.0


def test_mul_constant_gets_no_gradient_for_the_constant():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    MulConstant.apply(x, 5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


Square = foo_function(torch)  # the seed's foo as a PyTorch user writes it (benchmarks' W5)


def test_saved_tensors_after_an_in_place_op_on_another_tensor_are_compared_and_kept():
    # saved_tensors skips its version check when no in-place op ran since save_for_backward;
    # after one (on another tensor) it compares the versions, and the saved ones pass
    x = torch.tensor(3.0, requires_grad=True)
    y = Square.apply(Square.apply(x))
    other = torch.zeros(2)
    other.add_(1)
    y.backward()
    assert x.grad.item() == 108.0  # d(x^4)/dx = 4 x^3


def test_a_forward_that_returns_its_input_gives_a_new_tensor_with_the_node():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    x = torch.tensor(2.0, requires_grad=True)
    y = Identity.apply(x)
    assert y is not x and y.grad_fn is not None and x.grad_fn is None
    y.backward()
    assert x.grad.item() == 3.0


def test_a_retained_function_graph_walks_twice_and_then_is_freed():
    x = torch.tensor(3.0, requires_grad=True)
    y = Square.apply(x)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 12.0
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_grad_never_aliases_a_gradient_that_backward_returns():
    held = torch.tensor(5.0)

    class Held(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return held

    x = torch.tensor(1.0, requires_grad=True)
    y = Held.apply(x)
    y.backward(retain_graph=True)
    y.backward()  # accumulates into x.grad in place
    assert x.grad is not held and x.grad.item() == 10.0 and held.item() == 5.0


def test_a_function_graph_goes_with_its_last_holder_and_its_ctx_remembers_the_walk():
    seen = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            seen["ctx"] = ctx
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 2 * x

    x = torch.tensor(3.0, requires_grad=True)
    y = Keep.apply(x)
    assert seen["ctx"].saved_tensors[0] is x
    node = weakref.ref(y.grad_fn)
    y.backward()
    assert x.grad.item() == 6.0
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        seen["ctx"].saved_tensors
    gc.disable()
    try:
        del y
        assert node() is None  # no reference cycle: the graph went without the collector
    finally:
        gc.enable()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        seen["ctx"].saved_tensors  # as in PyTorch, where ctx is the node itself


def test_once_differentiable_refuses_a_double_backward():
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2

    x = torch.tensor(2.0, requires_grad=True)
    g, = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    assert g.item() == 12.0
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was "
                                           "marked with @once_differentiable"):
        g.backward()


def test_gradcheck_failure_says_where_it_differs():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * x  # should be 2 * x

    x = torch.tensor([1.0, 2.0], dtype=torch.double, requires_grad=True)
    with pytest.raises(GradcheckError, match=r"(?s)Jacobian mismatch for output 0 with respect to "
                                             r"input 0.*largest difference at input element 1, "
                                             r"output element 1: numerical 4, analytical 2"):
        gradcheck(Wrong.apply, x)
    assert gradcheck(Wrong.apply, x, raise_exception=False) is False


def test_gradcheck_warns_for_float32_inputs():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="not a double precision"):
        assert gradcheck(lambda t: t * 2, x, eps=1e-2, atol=1e-2, rtol=1e-2)


def test_gradgradcheck_passes_for_a_correct_double_backward():
    x = torch.tensor([0.3, 0.7], dtype=torch.double, requires_grad=True)
    assert gradgradcheck(lambda t: (t ** 3).sin(), x)


@pytest.mark.cupy
def test_the_checks_and_a_dropped_output_s_zeros_stay_on_the_gpu():
    """gradcheck's probes, gradgradcheck's grad_outputs and the zero gradient of an output
    nobody holds (the tutorial's sinh drops two of Sinh's three) are made on the inputs'
    device (they were NumPy arrays: a mixing error): the whole tutorial runs on the GPU."""
    module_or_skip("cupy")
    gm.set_backend("cupy")
    try:
        printed, names = _tutorial("double")
        assert printed == DOUBLE
        x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
        assert type(x.value).__module__.startswith("cupy")
        assert gradcheck(names["sinh"], x) and gradgradcheck(names["sinh"], x)
    finally:
        gm.set_backend("numpy")


def test_a_function_with_dropped_outputs_gets_its_gradient():
    sinh = _tutorial("double")[1]["sinh"]  # Sinh's three outputs, two dropped
    x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
    sinh(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cosh([0.5, 1.0]), rtol=1e-15)


# -- trace and pitfalls -------------------------------------------------------------------------------
class LegendrePolynomial3(Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class ForgetsGradOutput(LegendrePolynomial3):
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return 1.5 * (5 * input ** 2 - 1)


def _traced(F, check=True):
    x = torch.tensor([0.5, -0.25], requires_grad=True)
    with gm.trace(check=check) as tr:
        y = F.apply(2 * x)
        (y ** 2).sum().backward()
    return tr, x


def test_a_function_is_one_row_with_its_own_name_and_numbers():
    tr, x = _traced(LegendrePolynomial3)
    rows = [r for r in tr.backward if r.node == "LegendrePolynomial3"]
    assert len(rows) == 1 and rows[0].input_names() == ["input"]
    assert [float(v) for v in np.asarray(rows[0].downstream[0]).tolist()] == pytest.approx([12.0, 0.328125])
    assert not tr.pitfalls and x.grad.tolist() == pytest.approx([24.0, 0.65625])


def test_a_backward_that_forgets_grad_output_is_found_in_pytorchs_words():
    tr, _ = _traced(ForgetsGradOutput)
    notes = [p for p in tr.pitfalls if p.kind == "upstream-ignored"]
    assert len(notes) == 1
    text = notes[0].message
    assert "ForgetsGradOutput's backward does not multiply by its grad_output" in text
    assert "as if detach() were there" in text and "return grad_output *" in text
    assert "grad_fn" not in text and "upstream" not in text


def test_a_backward_that_disagrees_with_forward_is_found():
    class Off(LegendrePolynomial3):
        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2)

    tr, _ = _traced(Off)
    notes = [p for p in tr.pitfalls if p.kind == "wrong-derivative"]
    assert len(notes) == 1 and "torch.autograd.gradcheck" in notes[0].message


def test_a_double_backward_that_loses_ctx_attributes_is_found():
    class SinhBad(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.expx, ctx.expnegx = torch.exp(x), torch.exp(-x)
            return (ctx.expx - ctx.expnegx) / 2

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * (ctx.expx + ctx.expnegx) / 2

    x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
    v = torch.tensor([1.0, 1.0], dtype=torch.double, requires_grad=True)
    with gm.trace(check=True) as tr:
        g, = torch.autograd.grad(SinhBad.apply(x), x, v, create_graph=True)
    notes = [p for p in tr.pitfalls if p.kind == "lost-in-second-order"]
    assert len(notes) == 1
    assert "reads ctx.expx and ctx.expnegx" in notes[0].message
    assert "create_graph=True" in notes[0].message and "ctx.save_for_backward" in notes[0].message


def test_a_correct_double_backward_and_saved_outputs_raise_no_alarm():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.save_for_backward(result)
            ctx.scale = torch.tensor(1.0)  # a constant kept on ctx: no dependence on x
            return result

        @staticmethod
        def backward(ctx, grad_out):
            result, = ctx.saved_tensors
            return result * grad_out * ctx.scale

    x = torch.tensor([0.5], dtype=torch.double, requires_grad=True)
    with gm.trace(check=True) as tr:
        g, = torch.autograd.grad(Exp.apply(x).sum(), x, create_graph=True)
        g.sum().backward()
    assert tr.pitfalls == [] and x.grad.item() == pytest.approx(np.exp(0.5))


def test_tracing_does_not_change_the_program():
    x1 = torch.tensor([0.5, -0.25], requires_grad=True)
    LegendrePolynomial3.apply(2 * x1).pow(2).sum().backward()
    _, x2 = _traced(LegendrePolynomial3)
    assert x1.grad.tolist() == x2.grad.tolist()


@pytest.mark.parametrize("traced", [False, True])
def test_a_check_that_runs_a_function_again_puts_back_what_it_changed_in_place(traced):
    """The check runs a wrong backward's Function again (to find where it is wrong); what
    those runs change in place (a counter, a tensor of a graph, its version and what its
    node keeps) is put back, so the program goes on as it would untraced: the counter counts
    one forward (1) and one backward (10), and a later backward through the changed tensor
    reaches w (buf = w * 1 + 1 = [2, 3]; d sum(buf ** 2)/dw = 2 * buf = [4, 6]), as PyTorch
    2.13.0 runs the same code untraced."""
    counter = torch.zeros(1)
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    buf = w * 1

    class Counted(Function):
        @staticmethod
        def forward(ctx, x):
            counter.add_(1)
            buf.add_(1)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            counter.add_(10)
            return g * 3  # wrong (2 is right): the check runs it again to say where

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with gm.trace(check=True) if traced else contextlib.nullcontext() as tr:
        Counted.apply(x).sum().backward()
    if traced:
        assert [p.kind for p in tr.pitfalls] == ["wrong-derivative"]
    assert counter.tolist() == [11.0] and buf._version == 1 and x.grad.tolist() == [3.0, 3.0]
    (buf * buf).sum().backward()
    assert w.grad.tolist() == [4.0, 6.0]


# -- import costs --------------------------------------------------------------------------------------
def test_importing_the_dialect_imports_no_framework():
    code = ("import sys, gradmagic.torch; print(sorted(m for m in ('torch', 'IPython', 'matplotlib', "
            "'tensorflow', 'jax') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_gradmagic_does_not_import_the_dialect():
    code = "import sys, gradmagic; print('gradmagic.torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_no_warning_from_plain_use():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x.exp() * 2).sum().backward()
        assert x.grad is not None


def test_numpy_functions_on_torch_tensors_record_too():
    x = torch.tensor([0.5, 1.0], dtype=torch.double, requires_grad=True)
    y = np.sum(np.exp(x) * np.sin(x))
    assert isinstance(y, torch.Tensor) and y.grad_fn is not None
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.5, 1.0]) * (np.sin([0.5, 1.0]) + np.cos([0.5, 1.0])))


def test_the_row_of_a_function_shows_what_it_saved_for_backward():
    tr, _ = _traced(LegendrePolynomial3, check=False)
    row = next(r for r in tr.backward if r.node == "LegendrePolynomial3")
    assert row.note == "saved for backward: saved_tensors[0]=[1, -0.5]"


# -- numpy() inside forward: PyTorch's "Extending torch.func with autograd.Function" ----------
def _to_numpy(tensor):
    return tensor.cpu().numpy()


class NumpySort(Function):  # the guide's, verbatim but for its vmap staticmethod (torch.func)
    @staticmethod
    def forward(x, dim):
        device = x.device
        x = _to_numpy(x)
        ind = np.argsort(x, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        result = np.take_along_axis(x, ind, axis=dim)
        return (
            torch.tensor(result, device=device),
            torch.tensor(ind, device=device),
            torch.tensor(ind_inv, device=device),
        )

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim), None


class NumpyTake(Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        device = x.device
        x = _to_numpy(x)
        ind = _to_numpy(ind)
        return torch.tensor(np.take_along_axis(x, ind, dim), device=device)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, grad_output):
        ind, ind_inv = ctx.saved_tensors
        result = NumpyTake.apply(grad_output, ind_inv, ind, ctx.dim)
        return result, None, None, None


def test_a_forward_that_goes_through_numpy_runs_as_in_pytorch():
    """``forward`` runs with grad mode off, where PyTorch lets ``numpy()`` of a tensor that
    requires grad through (its ``backward`` gives the gradient); with grad mode on it is
    refused, in PyTorch's words. Values from PyTorch 2.13.0 (CPU) for the same code."""
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, 0.0, -2.0]], requires_grad=True)
    w = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y, ind, ind_inv = NumpySort.apply(x, 1)
    assert y.requires_grad and not ind.requires_grad
    np.testing.assert_array_equal(ind.numpy(), [[1, 0, 2], [2, 1, 0]])
    (y * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[2.0, 1.0, 3.0], [6.0, 5.0, 4.0]])
    with torch.no_grad():
        assert np.asarray(x).sum() == x.numpy().sum() == 2.5
    for to_array in (lambda t: t.numpy(), np.asarray):
        with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
            to_array(x)


def test_gradcheck_inside_a_trace_shows_one_forward_and_one_backward_pass():
    """What a trace shows of ``gradcheck``: the Function's call and one backward pass (the
    first output element's); the other passes and the finite differences' probes are the
    check's own (before, a 4 x 3 input and output gave 25 forward and 12 backward rows)."""
    mul_constant = _tutorial("extending")[1]["MulConstant"]  # Extending PyTorch's own
    x = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
    with gm.trace() as tr:
        assert gradcheck(mul_constant.apply, (x, 2.0))
    assert [r.node for r in tr.forward] == ["MulConstant"]
    assert [r.node for r in tr.backward] == ["MulConstant"]


# -- anomaly mode: PyTorch 2.13.0's messages for the same code ---------------------------------
def test_detect_anomaly_raises_at_the_step_that_returns_nan_as_pytorch():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), np.errstate(all="ignore"):
        with torch.autograd.detect_anomaly():
            y = (torch.sqrt(x) * torch.tensor([0.0, 1.0])).sum()  # 0 * inf in sqrt's rule
            with pytest.raises(RuntimeError, match=r"^Function 'SqrtBackward0' returned nan values "
                                                   r"in its 0th output\. \(Under gm\.trace\(\)"):
                y.backward()
    assert not torch.is_anomaly_enabled()
    y = (torch.sqrt(torch.tensor([0.0, 1.0], requires_grad=True)) * torch.tensor([0.0, 1.0])).sum()
    y.backward()  # anomaly mode off: the NaN gradient, no error, as in PyTorch


def test_set_detect_anomaly_is_a_switch_and_a_with_block():
    try:
        torch.autograd.set_detect_anomaly(True)
        assert torch.is_anomaly_enabled()
        with torch.autograd.set_detect_anomaly(False):
            assert not torch.is_anomaly_enabled()
        assert torch.is_anomaly_enabled()
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="Function 'LogBackward0' returned nan values in its 0th output"):
            (torch.log(x) * 0.0).sum().backward()
        w = torch.tensor([2.0], requires_grad=True)  # a clean pass is untouched
        (w * w).sum().backward()
        assert w.grad.tolist() == [4.0]
    finally:
        torch.autograd.set_detect_anomaly(False)


def test_detect_anomaly_decorates_a_function():
    @torch.autograd.detect_anomaly()
    def step(x):
        (torch.log(x) * 0.0).sum().backward()
    with pytest.warns(UserWarning, match="Anomaly Detection"), np.errstate(all="ignore"):
        with pytest.raises(RuntimeError, match="LogBackward0"):
            step(torch.tensor([0.0], requires_grad=True))
    assert not torch.is_anomaly_enabled()


def test_numpy_of_a_0d_tensor_is_a_0d_array_as_pytorchs():
    # PyTorch 2.13.0: torch.tensor(2.0).numpy() and (x * x).detach().numpy() are 0-d arrays
    # (gradmagic holds such values as NumPy scalars, whose arithmetic is quicker)
    x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    y = x * x
    y.backward()
    for t in (x.detach(), y.detach(), x.grad, torch.tensor(1.5)):
        a = t.numpy()
        assert type(a) is np.ndarray and a.shape == ()
    assert float(x.grad) == 4.0 and x.detach().numpy().dtype == np.float64
    with torch.no_grad():
        x -= 0.5  # an in-place update of a leaf: a new value, as before
    assert x.item() == 1.5 and x.requires_grad and x.is_leaf


def test_arange_has_pytorchs_dtypes():
    # PyTorch 2.13.0: torch.arange(6.) is float32, torch.arange(6) int64, and a float step float32
    assert torch.arange(6.0).dtype == torch.float32 and torch.arange(6).dtype == torch.int64
    assert torch.arange(0, 2, 0.5).dtype == torch.float32
    assert torch.arange(0, 2, 0.5).tolist() == [0.0, 0.5, 1.0, 1.5]
    assert torch.arange(3, dtype=torch.float64).dtype == torch.float64


PROMOTION = {  # PyTorch 2.13.0: the dtype and values of each (NumPy would give float64 for all)
    "i/2": (lambda i, f, c: i / 2, [0.5, 1.0]),
    "i+0.5": (lambda i, f, c: i + 0.5, [1.5, 2.5]),
    "i+f": (lambda i, f, c: i + f, [2.0, 4.0]),
    "f+0-d float64": (lambda i, f, c: f + torch.tensor(1.0, dtype=torch.float64), [2.0, 3.0]),
    "f*np.float64": (lambda i, f, c: f * np.float64(2.0), [2.0, 4.0]),
    "cat": (lambda i, f, c: torch.cat([i, f]), [1.0, 2.0, 1.0, 2.0]),
    "stack/3": (lambda i, f, c: torch.stack([i, i]) / 3,
                [[0.3333333432674408, 0.6666666865348816], [0.3333333432674408, 0.6666666865348816]]),
    "where": (lambda i, f, c: torch.where(c, i, 0.5), [1.0, 0.5]),
    "sqrt(i)": (lambda i, f, c: torch.sqrt(i), [1.0, 1.4142135381698608]),
    "i**0.5": (lambda i, f, c: i ** 0.5, [1.0, 1.4142135381698608]),
    "2.0**i": (lambda i, f, c: 2.0 ** i, [2.0, 4.0]),
    "bool*1.5": (lambda i, f, c: c * 1.5, [1.5, 0.0]),
    "np.float64*0-d": (lambda i, f, c: np.float64(2.0) * torch.tensor(1.0), 2.0),
    "2.5*0-d int": (lambda i, f, c: 2.5 * torch.tensor(3), 7.5),
}


@pytest.mark.parametrize("name", list(PROMOTION))
def test_float_results_have_pytorchs_dtype(name):
    fn, values = PROMOTION[name]
    r = fn(torch.tensor([1, 2]), torch.tensor([1.0, 2.0]), torch.tensor([True, False]))
    assert r.dtype == torch.float32 and r.tolist() == values


def test_float64_stays_where_a_tensor_or_a_cast_asks_for_it():
    f = torch.tensor([1.0, 2.0])
    assert (torch.tensor([1.0, 2.0], dtype=torch.float64) + f).dtype == torch.float64
    assert torch.tensor([1, 2]).double().dtype == torch.float64
    assert (f.to(torch.float64) * 2).dtype == torch.float64
    assert (torch.tensor([1.0], dtype=torch.float64) * 0.5).dtype == torch.float64
    x = torch.tensor([1.0, 2.0], requires_grad=True)  # a float64 0-d tensor and number: float32
    y = (x * torch.tensor(2.0, dtype=torch.float64) + np.float64(1.0)).sum()
    y.backward()
    assert y.dtype == x.grad.dtype == torch.float32 and x.grad.tolist() == [2.0, 2.0]


def test_in_place_ops_refuse_what_pytorch_cannot_cast():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.tensor([1, 2]).add_(0.5)
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
        torch.tensor([True]).add_(1)
    f = torch.ones(2)
    f.add_(torch.tensor([1, 2]))  # an integer into a float tensor is fine
    assert f.dtype == torch.float32 and f.tolist() == [2.0, 3.0]


def test_out_holds_the_result_as_pytorchs():
    # PyTorch's Tensors tutorial: torch.matmul(tensor, tensor.T, out=y3), torch.mul(..., out=z3)
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    y3 = torch.rand_like(t)
    assert torch.matmul(t, t.T, out=y3) is y3 and y3.tolist() == [[5.0, 11.0], [11.0, 25.0]]
    z3 = torch.zeros_like(t)
    torch.mul(t, t, out=z3)
    assert z3.tolist() == [[1.0, 4.0], [9.0, 16.0]]
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"mul\(\): functions with out=\.\.\. arguments don't support "
                                           r"automatic differentiation, but one of the arguments requires grad\."):
        torch.mul(x, x, out=torch.zeros(2))


def test_grad_of_a_non_leaf_given_as_backward_input_reads_without_a_warning():
    # PyTorch 2.13.0: z.backward(inputs=[y]) fills y.grad ([4., 8.]) and reading it warns not
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    (y ** 2).sum().backward(inputs=[y])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [4.0, 8.0] and x.grad is None
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert (x * 3).grad is None  # nothing accumulated there: PyTorch's warning


def test_a_list_of_tensors_makes_a_tensor_of_their_numbers_as_pytorchs():
    # PyTorch 2.13.0: torch.tensor([x * 2, x]) is tensor([4., 2.]) with no history, after its
    # warning that the gradient is dropped; a tensor of several elements is refused
    x = torch.tensor(2.0, requires_grad=True)
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True to a scalar"):
        t = torch.tensor([x * 2, x])
    assert t.tolist() == [4.0, 2.0] and not t.requires_grad and t.dtype == torch.float32
    assert torch.tensor([torch.tensor(1), 2.5]).tolist() == [1.0, 2.5]
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        torch.tensor([torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])])


W_READ = torch.tensor(2.0, requires_grad=True)  # a global that Scale.forward reads


class Scale(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * W_READ

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * W_READ


def test_a_function_that_reads_a_tensor_it_does_not_take_is_explained_in_pytorchs_words():
    # PyTorch 2.13.0: torch.autograd.grad(y, [x, w], allow_unused=True) gives (tensor(2.), None)
    x = torch.tensor(3.0, requires_grad=True)
    with gm.trace() as tr:
        grads = torch.autograd.grad(Scale.apply(x), [x, W_READ], allow_unused=True)
    assert float(grads[0]) == 2.0 and grads[1] is None
    (note,) = [p.message for p in tr.pitfalls if p.kind == "none-gradient"]
    assert ("W_READ is not an input of Scale: Scale reads it as a global, and an autograd.Function's "
            "outputs are one op over the inputs of apply (x), whose forward runs under no_grad, as in "
            "PyTorch") in note
    assert "`Scale.apply(x, W_READ)`, and return its gradient from backward too." in note
    assert "TensorFlow" not in note and "Variable" not in note


def test_nan_notes_write_the_fix_with_torch_functions():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with gm.trace() as tr:
        torch.where(x > 0, torch.log(x), torch.zeros(2)).sum().backward()
    (note,) = [p.message for p in tr.pitfalls if p.kind == "masked-where"]
    assert note.startswith("torch.where(c, x, y) sends a gradient of 0")
    assert "`torch.where(condition, torch.log(torch.where(condition, x, 1.0)), other)`" in note
    assert "np." not in note
    y = torch.tensor([100.0, 1.0], requires_grad=True)
    with gm.trace() as tr:
        torch.exp(y * 10).sum().backward()
    (note,) = [p.message for p in tr.pitfalls if p.kind == "nan-origin"]
    assert "Fix: exp overflows: shift its argument (torch.exp(x - x.max())), use torch.sigmoid" in note


def test_set_grad_enabled_as_a_decorator_and_as_an_object_entered_later_as_in_pytorch():
    # PyTorch 2.13.0: the decorator leaves the mode as it found it (True True, then False True);
    # an object made earlier sets its mode on entering and puts back, on exit, the mode from
    # before it was made (False True); gradmagic's decorator left grad mode off for good
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    @torch.set_grad_enabled(False)
    def f(v):
        return v * 2
    y = x * 3
    assert (torch.is_grad_enabled(), y.requires_grad) == (True, True)
    assert (f(x).requires_grad, torch.is_grad_enabled()) == (False, True)
    with torch.no_grad():
        @torch.set_grad_enabled(True)
        def g(v):
            return v * 2
        assert (torch.is_grad_enabled(), g(x).requires_grad, torch.is_grad_enabled()) == (False, True, False)
    m = torch.set_grad_enabled(False)
    torch.set_grad_enabled(True)
    with m:
        y = x * 2
    assert (y.requires_grad, torch.is_grad_enabled()) == (False, True)


def test_in_place_changes_the_graph_does_not_record_pass_the_gradient_through_as_pytorch():
    # PyTorch 2.13.0: z.data changed in place is seen by tanh's backward, which uses its output:
    # x.grad = [1., 1., 1.]; gradmagic gave None, the gradient lost without a word
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = torch.tanh(x)
    z.data.mul_(0)
    z.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]
    # PyTorch 2.13.0: a change under no_grad is a constant change: [2., 2., 2.] and [24., 48., 72.]
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = x * 2
    with torch.no_grad():
        z.add_(1)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and z.tolist() == [3.0, 5.0, 7.0]
    x.grad = None
    z = x * 2
    with torch.no_grad():
        z.mul_(3)
    (z * z).sum().backward()
    assert x.grad.tolist() == [24.0, 48.0, 72.0]


def test_an_output_an_op_saved_changed_unrecorded_is_walked_with_the_value_the_op_made():
    # PyTorch 2.13.0 raises "one of the variables needed for gradient computation has been modified
    # by an inplace operation" for these (exp and sigmoid save their outputs); gradmagic gave
    # 2 (exp(2x) + 1), exp's rule run on the changed value, and None through detach()
    xs = np.array([0.1, 0.2, 0.3])
    x = torch.tensor(xs, requires_grad=True)
    z = (x * 2).exp()
    with torch.no_grad():
        z.add_(1)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * xs), rtol=1e-6)
    x = torch.tensor(xs, requires_grad=True)
    z = torch.sigmoid(x)
    z.detach().mul_(0)
    z.sum().backward()
    s = 1 / (1 + np.exp(-xs))
    np.testing.assert_allclose(x.grad.numpy(), s * (1 - s), rtol=1e-6)
    x = torch.tensor(xs, requires_grad=True)  # an unrecorded change, then a recorded one
    z = (x * 2).exp()
    with torch.no_grad():
        z.add_(1)
        z.mul_(2)
    z.mul_(3)
    (z * z).sum().backward()
    e = np.exp(2 * xs)
    np.testing.assert_allclose(x.grad.numpy(), 2 * (6 * (e + 1)) * 3 * 2 * e, rtol=1e-6)


def test_a_retained_non_leaf_gets_its_grad_from_autograd_grad_and_backward_inputs_as_in_pytorch():
    # PyTorch 2.13.0: h.grad = [4., 8.] after autograd.grad; [6., 12.] after backward(inputs=[x]);
    # a retained input of autograd.grad gets its gradient too, and two walks accumulate [2., 2.]
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    (g,) = torch.autograd.grad((h ** 2).sum(), x)
    assert g.tolist() == [8.0, 16.0] and h.grad.tolist() == [4.0, 8.0] and x.grad is None
    h2 = x * 3
    h2.retain_grad()
    (h2 ** 2).sum().backward(inputs=[x])
    assert h2.grad.tolist() == [6.0, 12.0] and x.grad.tolist() == [18.0, 36.0]
    h3 = x * 3
    h3.retain_grad()
    (g,) = torch.autograd.grad((h3 ** 2).sum(), h3)
    assert g.tolist() == h3.grad.tolist() == [6.0, 12.0]
    h4 = x * 4
    h4.retain_grad()
    y4 = (h4 * 1).sum()
    torch.autograd.grad(y4, x, retain_graph=True)
    torch.autograd.grad(y4, x)
    assert h4.grad.tolist() == [2.0, 2.0]
    h5, other = x * 4, x * 5  # other: retained, but a walk to h5 does not reach it
    other.retain_grad()
    torch.autograd.grad((h5 * 2).sum() + other.sum() * 0, h5)
    assert other.grad is None


def test_pytorchs_checks_of_grad_flags_assigned_grads_and_empty_inputs():
    # PyTorch 2.13.0's behaviour and words, each checked there
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    assert y.requires_grad_() is y and y.requires_grad  # a non-leaf that requires grad: no-op
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf "
                                           r"variables. If you want to use a computed variable"):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        torch.tensor([1.0]).retain_grad()
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[3\]' to a "
                                           r"tensor of size '\[2\]'"):
        x.grad = torch.ones(3)
    with pytest.raises(RuntimeError, match="^attempting to assign a gradient with dtype 'double' to "
                                           "a tensor with grad_dtype 'Float'"):
        x.grad = torch.ones(2, dtype=torch.float64)
    assert x.grad is None
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `grad\(\)` cannot be empty.$"):
        torch.autograd.grad((x * 2).sum(), [])
    with pytest.raises(RuntimeError, match=r"^`inputs` argument to `backward\(\)` cannot be empty.$"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(ValueError, match="^Expected allow_unused to be True or not passed when "
                                         "materialize_grads=True, but got: allow_unused=False.$"):
        torch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)
    assert x._version == 0
    with torch.no_grad():
        x.add_(1)
    assert x._version == 1


def test_autograd_grad_with_batched_grad_outputs_as_in_pytorch():
    # PyTorch 2.13.0: the Jacobian of x * [2, 3] by rows of eye(2): [[2, 0], [0, 3]]; two outputs
    # weighted by the same rows: [[6, 0], [0, 12]]; the graph is freed after, as by one walk
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (jac,) = torch.autograd.grad(x * torch.tensor([2.0, 3.0]), x, torch.eye(2), is_grads_batched=True)
    assert jac.tolist() == [[2.0, 0.0], [0.0, 3.0]] and type(jac) is torch.Tensor
    y = x ** 2
    (jac,) = torch.autograd.grad([y, y * 2], [x], [torch.eye(2), torch.eye(2)], is_grads_batched=True)
    assert jac.tolist() == [[6.0, 0.0], [0.0, 12.0]]
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(ValueError, match="a leading batch dimension"):
        torch.autograd.grad((x * 2).sum(), x, is_grads_batched=True)


def test_detach_and_data_share_the_tensors_values_both_ways_as_in_pytorch():
    # PyTorch 2.13.0: a.add_(5) is seen by b = a.detach() ([6., 7.] twice), b.add_(1) by a
    # ([7., 8.] twice); gradmagic lost the +5 from a; a later w.data = ... leaves aliases as
    # they were ([11., 21.]), since PyTorch swaps w's storage
    a = torch.tensor([1.0, 2.0])
    b = a.detach()
    a.add_(5)
    assert a.tolist() == b.tolist() == [6.0, 7.0]
    b.add_(1)
    assert a.tolist() == b.tolist() == [7.0, 8.0]
    a[0] = 5
    a.copy_(torch.tensor([3.0, 4.0]))
    b.clamp_(max=2.0)
    assert a.tolist() == b.tolist() == [2.0, 2.0]
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    d = w.detach()
    with torch.no_grad():
        w.mul_(10)
    assert d.tolist() == [10.0, 20.0]
    e, f = w.data, w.detach()
    e.add_(1)
    assert w.tolist() == f.tolist() == d.tolist() == [11.0, 21.0]
    w.data = torch.tensor([0.0, 0.0])
    assert d.tolist() == f.tolist() == [11.0, 21.0] and w.tolist() == [0.0, 0.0]
    a = torch.tensor([1.0, 2.0])  # an alias of an alias: [2., 3.] three times, then [4., 6.]
    b = a.detach()
    c = b.detach()
    c.add_(1)
    assert a.tolist() == b.tolist() == c.tolist() == [2.0, 3.0]
    a.mul_(2)
    assert b.tolist() == c.tolist() == [4.0, 6.0]


# -- ctx.mark_dirty: an input changed in place is the output it became ---------------------------
# Expected values printed by PyTorch 2.13.0+cpu running the same code with ``import torch``.
class Square_(Function):
    """The in-place square of "Extending PyTorch"'s ``mark_dirty``: d(x^2)/dx = 2x."""
    @staticmethod
    def forward(ctx, x):
        ctx.mark_dirty(x)
        ctx.save_for_backward(x.clone())
        return x.mul_(x)

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_a_dirty_input_is_the_output_and_later_uses_of_it_reach_the_call(dtype):
    """It was left with its old history and its new value: (x * 1).sum() after the call
    gave a.grad [1, 1, 1] where PyTorch gives 2a."""
    a = torch.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    x = a * 1
    y = Square_.apply(x)
    assert y is x and x._version == 2 and x.grad_fn.name() == "Square_Backward"
    assert x.tolist() == [1.0, 4.0, 9.0]
    (x * 1).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0] and a.grad.dtype == dtype
    a.grad = None
    x = a * 1
    y = Square_.apply(x)
    (y + x).sum().backward()  # both are the square: 2 * 2a
    assert a.grad.tolist() == [4.0, 8.0, 12.0]


def test_a_dirty_input_with_another_output_in_setup_context_form():
    class AddInto(Function):
        @staticmethod
        def forward(x, y):
            x.add_(y)
            return x, y * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_dirty(inputs[0])

        @staticmethod
        def backward(ctx, gx, gy):
            return gx, gx + 3 * gy

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    x = a * 1
    u, v = AddInto.apply(x, b)
    assert u is x and x._version == 2 and x.grad_fn.name() == "AddIntoBackward"
    (u * v).sum().backward()  # u = a + b, v = 3b: d/da = 3b, d/db = 3b + 3(a + b)
    assert a.grad.tolist() == [9.0, 12.0] and b.grad.tolist() == [21.0, 30.0]


def test_a_dirty_input_not_recorded_is_a_constant_change():
    """An input that requires no grad is returned itself; under no_grad the output is a
    new tensor and the input keeps its history, its gradient passing through the change."""
    x = torch.tensor([1.0, 2.0])
    y = Square_.apply(x)
    assert y is x and x._version == 2 and not x.requires_grad and x.tolist() == [1.0, 4.0]
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    with torch.no_grad():
        y = Square_.apply(x)
    assert y is not x and x._version == 2 and x.grad_fn.name() == "MulBackward0"
    x.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_a_dirty_input_written_through_numpy_as_in_pytorchs_docs():
    class Inplace(Function):
        @staticmethod
        def forward(ctx, x):
            x_npy = x.numpy()  # x_npy shares storage with x
            x_npy += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    x = a * 1
    y = Inplace.apply(x)
    assert y is x and x._version == 1 and x.tolist() == [2.0, 3.0]
    y.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


def test_mark_dirty_misused_is_refused_or_warned_in_pytorchs_words():
    class NotReturned(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            x.mul_(2)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    class NotAnInput(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an "
                                           "in-place operation"):
        Square_.apply(a)
    assert a.grad_fn is None and a.is_leaf  # still the leaf it was
    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward method "
                                           "were not returned as output"):
        NotReturned.apply(a * 1)
    with pytest.warns(UserWarning, match=r"ctx.mark_dirty\(\) received a tensor that was not an "
                                         "input") as seen:
        y = NotAnInput.apply(a)
    assert seen[0].filename == __file__  # the user's line (PyTorch 2.13.0 names its function.py)
    y.sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_a_dirty_function_is_checked_on_its_input_as_forward_read_it():
    """The check runs forward again on the input as it was before forward squared it in
    place ([1, 2, 3], as the row shows it), not on its value now ([1, 4, 9], where it used
    to say forward gives other outputs when run again); the program is left as it was."""
    class HalfWrong(Square_):  # its forward, inherited, names its input x
        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return x * g  # the derivative is 2x

    for cls, kinds in ((Square_, []), (HalfWrong, ["wrong-derivative"])):
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with gm.trace(check=True) as tr:
            x = a * 1
            cls.apply(x)
            (x * 1).sum().backward()
        assert [p.kind for p in tr.pitfalls] == kinds
        row = next(r for r in tr.backward if r.node == cls.__name__)
        assert row.cells()["x"] == "x=[1, 2, 3]"
        assert x.tolist() == [1.0, 4.0, 9.0] and x._version == 2
    assert "at x[0] = 1 with grad_output 1, backward gave 1 where the derivative is 2" in \
        tr.pitfalls[0].message


@pytest.mark.parametrize("traced", [False, True])
def test_a_check_leaves_the_random_numbers_class_counters_and_logs_as_they_were(traced, caplog):
    """A check runs a stochastic forward again: PyTorch's default generator, a
    ``torch.Generator`` it uses, a ``random.Random``, a counter on the Function's class and a
    log record all come out as an untraced run leaves them."""
    import logging
    import random

    gen, py = torch.Generator().manual_seed(3), random.Random(5)
    log = logging.getLogger("gradmagic-test-check")

    class StochRound(Function):
        calls = 0

        @staticmethod
        def forward(ctx, x):
            StochRound.calls += 1
            log.warning("forward ran")
            noise = torch.rand(x.shape) + torch.rand(x.shape, generator=gen) + py.random()
            return torch.floor(x + noise - 1.0)

        @staticmethod
        def backward(ctx, g):
            return g  # straight through

    torch.manual_seed(0)
    x = torch.tensor([0.3, 1.7, -0.4], requires_grad=True)
    with caplog.at_level(logging.WARNING, logger="gradmagic-test-check"):
        with gm.trace(check=True) if traced else contextlib.nullcontext():
            StochRound.apply(x).sum().backward()
    after = [torch.rand(2).tolist(), torch.rand(2, generator=gen).tolist(), py.random()]
    torch.manual_seed(0)
    torch.rand(3), torch.rand(3, generator=torch.Generator().manual_seed(3))
    gen2, py2 = torch.Generator().manual_seed(3), random.Random(5)
    torch.rand(3, generator=gen2), py2.random()
    assert after == [torch.rand(2).tolist(), torch.rand(2, generator=gen2).tolist(), py2.random()]
    assert StochRound.calls == 1 and [r.message for r in caplog.records] == ["forward ran"]


def test_lost_in_second_order_leaves_alone_what_backward_reads_of_labels_and_random_masks():
    """``ctx`` attributes made from an input that requires no grad (a target's weights) or
    drawn at random (a dropout mask) have no second derivative to lose: a gradient penalty
    through them gives no lost-in-second-order note (it gave one for each)."""
    class WeightedSquaredError(Function):
        @staticmethod
        def forward(ctx, x, target):
            ctx.save_for_backward(x)
            ctx.t, ctx.w = target.clone(), 1.0 / (1.0 + target.abs())
            return (0.5 * ctx.w * (x - ctx.t) ** 2).sum()

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * ctx.w * (x - ctx.t), None

    class Dropout(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mask = (torch.rand(x.shape) > 0.5).double() * 2
            return x * ctx.mask

        @staticmethod
        def backward(ctx, g):
            return g * ctx.mask

    x = torch.linspace(-1.0, 2.0, 24, dtype=torch.double, requires_grad=True)
    with gm.trace(check=True) as tr:
        loss = WeightedSquaredError.apply(Dropout.apply(x) ** 2, torch.linspace(0.0, 3.0, 24))
        g, = torch.autograd.grad(loss, x, create_graph=True)
        (g ** 2).sum().backward()
    assert "lost-in-second-order" not in [p.kind for p in tr.pitfalls], [p.message for p in tr.pitfalls]


def test_a_saved_intermediate_is_named_as_lost_in_second_order():
    """forward saves ``x * x`` (neither an input nor an output) and backward reads it: a
    double backward takes it as a constant. PyTorch 2.13.0 gives the same x.grad, [3., 12.]
    (the true second-order term is [9., 36.]); the note names saved_tensors[0] (it named only
    ctx attributes)."""
    class Cube(Function):
        @staticmethod
        def forward(ctx, x):
            x2 = x * x
            ctx.save_for_backward(x2)
            return x2 * x

        @staticmethod
        def backward(ctx, grad_output):
            x2, = ctx.saved_tensors
            return grad_output * 3 * x2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with gm.trace(check=True) as tr:
        g, = torch.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (g * x).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0]
    found = [p.message for p in tr.pitfalls if p.kind == "lost-in-second-order"]
    assert len(found) == 1 and found[0].startswith("Cube's backward reads saved_tensors[0], computed by "
                                                   "Cube's forward from its inputs"), found
