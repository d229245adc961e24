"""gradmagic.torch's graph as PyTorch shows it: ``grad_fn.name()`` where PyTorch's name
depends on the arguments (gradmagic/torch/names.py: overloads, the product's kernel, the
view an index makes) and ``next_functions`` with ``AccumulateGrad`` nodes for the leaves.
Every expected name and list was printed by PyTorch 2.13.0+cpu for the same code."""

import pytest

import gradmagic.torch as torch

x = torch.ones(2, 3, requires_grad=True)
v = torch.ones(3, requires_grad=True)
c = torch.ones(2, 3)
ACC = "torch::autograd::AccumulateGrad"

NAMES = [
    (lambda: x * 3, "MulBackward0"), (lambda: 2 ** x, "PowBackward2"), (lambda: x ** v, "PowBackward1"),
    (lambda: x ** 2, "PowBackward0"), (lambda: 1 - x, "RsubBackward1"), (lambda: x - 1, "SubBackward0"),
    (lambda: 2 / x, "MulBackward0"), (lambda: x / 2, "DivBackward0"), (lambda: x / x, "DivBackward0"),
    (lambda: x @ v, "MvBackward0"), (lambda: v @ v, "DotBackward0"), (lambda: x @ x.T, "MmBackward0"),
    (lambda: torch.mm(x, x.T), "MmBackward0"), (lambda: v @ x.T, "SqueezeBackward4"),
    (lambda: torch.ones(2, 2, 3, requires_grad=True) @ torch.ones(3, 4), "UnsafeViewBackward0"),
    (lambda: x[:, 1], "SelectBackward0"), (lambda: x[0], "SelectBackward0"), (lambda: x[0:1], "SliceBackward0"),
    (lambda: x[0, 1:], "SliceBackward0"), (lambda: x[[0, 1]], "IndexBackward0"), (lambda: x[x > 0], "IndexBackward0"),
    (lambda: x[:, [0, 2]], "IndexBackward0"), (lambda: x[None], "UnsqueezeBackward0"),
    (lambda: x[..., None], "UnsqueezeBackward0"), (lambda: torch.cat([x, c]), "CatBackward0"),
    (lambda: torch.stack([x, x]), "StackBackward0"), (lambda: x.T, "PermuteBackward0"),
    (lambda: x.permute(1, 0), "PermuteBackward0"), (lambda: x.unsqueeze(0), "UnsqueezeBackward0"),
    (lambda: x[None].squeeze(), "SqueezeBackward0"), (lambda: x[None].squeeze(0), "SqueezeBackward1"),
    (lambda: v.expand(2, 3), "ExpandBackward0"), (lambda: x.clone(), "CloneBackward0"),
    (lambda: x.double(), "ToCopyBackward0"), (lambda: x.sum(), "SumBackward0"), (lambda: x.sum(1), "SumBackward1"),
    (lambda: x.mean(), "MeanBackward0"), (lambda: x.mean(0), "MeanBackward1"), (lambda: x.max(), "MaxBackward1"),
    (lambda: x.prod(), "ProdBackward0"), (lambda: x.prod(1), "ProdBackward1"), (lambda: x.reshape(6), "ViewBackward0"),
    (lambda: x.narrow(1, 0, 2), "SliceBackward0"), (lambda: x.split(1)[0], "SplitBackward0"),
    (lambda: x.t(), "TBackward0"), (lambda: x.transpose(0, 1), "TransposeBackward0"),
    (lambda: torch.bmm(x[None], x.T[None]), "BmmBackward0"), (lambda: v.dot(v), "DotBackward0"),
    (lambda: x.square(), "PowBackward0"), (lambda: x.reciprocal(), "ReciprocalBackward0"),
    (lambda: x.sign(), "SignBackward0"), (lambda: x.max(1).values, "MaxBackward0"),
    (lambda: x.min(1).values, "MinBackward0"), (lambda: x.amax(1), "AmaxBackward0"),
    (lambda: x.amin(1), "AminBackward0"), (lambda: x.softmax(1), "SoftmaxBackward0"),
    (lambda: x.log_softmax(1), "LogSoftmaxBackward0"), (lambda: x[:, :2].trace(), "TraceBackward0"),
    (lambda: torch.outer(v, v), "MulBackward0"), (lambda: x.unbind()[0], "UnbindBackward0"),
    (lambda: list(x)[1], "UnbindBackward0"),
]


@pytest.mark.parametrize("make, name", NAMES, ids=[n for _, n in NAMES])
def test_grad_fn_is_named_as_pytorch_names_it(make, name):
    y = make()
    assert y.grad_fn.name() == name
    assert repr(y).endswith(f"grad_fn=<{name}>)")


def _names(y):
    return [(None if n is None else n.name(), k) for n, k in y.grad_fn.next_functions]


NEXT = [
    (lambda: x * 3, [(ACC, 0), (None, 0)]), (lambda: 3 * x, [(ACC, 0), (None, 0)]),
    (lambda: x * c, [(ACC, 0), (None, 0)]), (lambda: c * x, [(None, 0), (ACC, 0)]),
    (lambda: x + v, [(ACC, 0), (ACC, 0)]), (lambda: x.relu(), [(ACC, 0)]), (lambda: x ** 2, [(ACC, 0)]),
    (lambda: 2 ** x, [(ACC, 0)]), (lambda: 1 - x, [(ACC, 0)]), (lambda: x - 1, [(ACC, 0), (None, 0)]),
    (lambda: x / 2, [(ACC, 0), (None, 0)]), (lambda: torch.cat([x, c]), [(ACC, 0), (None, 0)]),
    (lambda: torch.where(c > 0, x, c), [(ACC, 0), (None, 0)]), (lambda: (x * 2).sum(), [("MulBackward0", 0)]),
    (lambda: x.exp(), [(ACC, 0)]), (lambda: x.clamp(0, 1), [(ACC, 0)]),
]


@pytest.mark.parametrize("make, want", NEXT, ids=range(len(NEXT)))
def test_next_functions_list_the_tensor_operands_as_pytorch(make, want):
    assert _names(make()) == want


def test_a_leaf_has_one_accumulate_grad_that_knows_it():
    a = (x * 2).grad_fn.next_functions[0][0]
    assert a is (x + 1).grad_fn.next_functions[0][0]
    assert a.variable is x and a.next_functions == () and a.name() == ACC
    leaf = torch.ones(2, requires_grad=True)
    acc = (leaf * 2).grad_fn.next_functions[0][0]
    del leaf
    assert acc.variable is None  # it does not keep the leaf alive


@pytest.mark.parametrize("f, name", [(torch.tanh, "TanhBackwardBackward0"), (torch.sigmoid, "SigmoidBackwardBackward0"),
                                     (lambda t: t ** 2, "MulBackward0"), (lambda t: t ** 3, "MulBackward0"),
                                     (torch.exp, "MulBackward0"), (torch.log, "DivBackward0"),
                                     (lambda t: (c / t), "MulBackward0")],
                         ids=["tanh", "sigmoid", "square", "cube", "exp", "log", "divide"])
def test_a_create_graph_gradient_is_named_as_pytorchs_formula_ends(f, name):
    g, = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == name


def test_a_nodes_type_is_named_as_pytorchs_so_a_graph_walk_reads_the_same_names():
    # PyTorch 2.13.0+cpu: type(fn).__name__ of each node down the first inputs
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g

    y = Square.apply((x * 2).relu()).sum()
    names, node = [], y.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    assert names == ["SumBackward0", "SquareBackward", "ReluBackward0", "MulBackward0", "AccumulateGrad"]
    assert all(type(n).__name__ == n.name() for n in (y.grad_fn, (x @ v).grad_fn, x.softmax(1).grad_fn))
