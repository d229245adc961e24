"""gradmagic.torch's tan, masked_fill(_), index_select, gather, scatter_add, repeat, split,
chunk, topk, median, torch.dist, torch.autograd.Variable and F.linear against PyTorch 2.13.0.

Each case is a scalar function of a float64 input, written as PyTorch code; the expected
numbers are what PyTorch 2.13.0+cpu printed running the same lines with ``import torch``:
the value, the gradient, and the second derivative (``torch.autograd.grad`` with
``create_graph=True``, then the gradient of ``(gradient * arange(1, n + 1)).sum()``).
"""

import math

import numpy as np
import pytest

import gradmagic.torch as torch
import gradmagic.torch.nn.functional as F
from gradmagic.torch.autograd import Variable

# -- the cases, as PyTorch code (the same lines made the expected numbers) ----------------
X = [[0.3, -1.2, 0.7], [2.0, 0.5, -0.4]]
W = torch.tensor([[0.3, -0.7, 1.1], [0.4, 0.9, -0.2], [-0.5, 0.6, 0.8]], dtype=torch.float64)
C = torch.tensor([[1.5, -0.5, 0.25], [0.75, 2.0, -1.0]], dtype=torch.float64)  # a constant
BIG = torch.linspace(-1.0, 1.0, 48, dtype=torch.float64).reshape(2, 4, 6)
OPS = {  # name: (input, a scalar function of it)
    "tan": (X, lambda x: (x.tan() * W[:2]).sum()),
    "torch.tan": (X, lambda x: (torch.tan(x) ** 2).sum()),
    "masked_fill": (X, lambda x: (x.masked_fill(x > 0.4, 2.5) ** 2 * W[:2]).sum()),
    "masked_fill-broadcast-mask": (X, lambda x: (torch.masked_fill(x, torch.tensor([True, False, True]), -1.0) ** 3).sum()),
    "masked_fill_": (X, lambda x: ((x * 1).masked_fill_(torch.tensor([[True], [False]]), -1.0) ** 3).sum()),
    "index_select": (X, lambda x: (x.index_select(1, torch.tensor([2, 0, 2])) ** 2 * W[:2]).sum()),
    "index_select-dim0": (X, lambda x: (torch.index_select(x, 0, torch.tensor([1, 1])) ** 3).sum()),
    "gather": (X, lambda x: (x.gather(1, torch.tensor([[2, 2], [0, 1]])) ** 2 * W[:2, :2]).sum()),
    "gather-dim0": (X, lambda x: (torch.gather(x, 0, torch.tensor([[1, 0, 1]])) ** 3).sum()),
    "scatter_add-self": (X, lambda x: (x.scatter_add(0, torch.tensor([[1, 0, 1], [1, 1, 0]]), C) ** 2 * W[:2]).sum()),
    "scatter_add-src": (X, lambda x: (C.scatter_add(1, torch.tensor([[2, 2, 0], [0, 1, 1]]), x) ** 2 * W[:2]).sum()),
    "torch.scatter_add": (X, lambda x: (torch.scatter_add(x, 0, torch.tensor([[1, 1, 1]]), (x * x)[:1]) ** 2).sum()),
    "repeat": (X, lambda x: (x.repeat(2, 2, 2) ** 2 * BIG).sum()),
    "split": (X, lambda x: sum((p ** 2).sum() * (k + 1) for k, p in enumerate(x.split(2, dim=1)))),
    "split-sizes": (X, lambda x: sum((p ** 3).sum() * (k + 1) for k, p in enumerate(torch.split(x, [1, 0, 2], 1)))),
    "chunk": (X, lambda x: sum((p ** 2).sum() * (k + 1) for k, p in enumerate(torch.chunk(x, 2, dim=1)))),
    "topk": (X, lambda x: (x.topk(2, dim=1).values ** 2 * W[:2, :2]).sum()),
    "topk-smallest": (X, lambda x: (torch.topk(x, 1, dim=0, largest=False).values ** 3).sum()),
    "median": (X, lambda x: x.median() ** 3),
    "median-ties": ([[3.0, 1.0, 2.0], [2.0, 5.0, 2.0]], lambda x: x.median() ** 3),
    "median-dim": (X, lambda x: (x.median(dim=1).values ** 3 * W[0, :2]).sum()),
    "median-dim-keepdim": (X, lambda x: (torch.median(x, 0, keepdim=True).values ** 3 * W[:1]).sum()),
    "dist": (X, lambda x: torch.dist(x, C)),
    "dist-1": (X, lambda x: torch.dist(x, C, 1) ** 2),
    "dist-3-broadcast": (X, lambda x: torch.dist(x, C[0], 3)),
    "dist-inf": (X, lambda x: torch.dist(x, C, float("inf")) ** 2),
    "linear": (X, lambda x: (F.linear(x, W, C[0]) ** 2).sum()),
    "linear-weight": (X, lambda w: (F.linear(W, w) ** 2).sum()),
    "linear-bias": ([0.5, -1.0, 2.0], lambda b: (F.linear(W, C, b[:2]) ** 3).sum()),
}

EXPECTED = {  # (value, gradient, second derivative along arange(1, n+1)), PyTorch 2.13.0+cpu
    'tan': (2.522039168183134, [[0.3287066745967641, -5.331174777044937, 1.880394687449429], [2.309759681616767, 1.1686017693685724, -0.23575082116219503]], [[0.20336177988282766, 54.8503594024602, 9.503007575538948], [-40.37533583109496, 6.384100562419101, 1.1960861819919504]]),
    'torch.tan': (12.672702318655134, [[0.6778725996094256, -39.17882814461443, 2.8796992653148323], [-25.23458489443435, 1.4186890138709112, -0.9967384849932919]], [[2.8204495336740103, 635.1071740598979, 32.08653336880345], [707.8580807586877, 24.609964212970905, 21.730506171320933]]),
    'masked_fill': (13.987000000000002, [[0.18, 1.68, 0.0], [0.0, 0.0, 0.16000000000000003]], [[0.6, -2.8, 0.0], [0.0, 0.0, -2.4000000000000004]]),
    'masked_fill-broadcast-mask': (-5.603, [[0.0, 4.32, 0.0], [0.0, 0.75, 0.0]], [[0.0, -14.399999999999999, 0.0], [0.0, 15.0, 0.0]]),
    'masked_fill_': (5.061, [[0.0, 0.0, 0.0], [12.0, 0.75, 0.4800000000000001]], [[0.0, 0.0, 0.0], [48.0, 15.0, -14.4]]),
    'index_select': (4.255, [[-0.42, 0.0, 1.96], [3.6, 0.0, -0.16000000000000003]], [[-1.4, 0.0, 8.4], [7.2, 0.0, 2.4000000000000004]]),
    'index_select-dim0': (16.122, [[0.0, 0.0, 0.0], [24.0, 1.5, 0.9600000000000002]], [[0.0, 0.0, 0.0], [96.0, 30.0, -28.8]]),
    'gather': (1.6290000000000002, [[0.0, 0.0, -0.5599999999999998], [1.6, 0.9, 0.0]], [[0.0, 0.0, -2.3999999999999995], [3.2, 9.0, 0.0]]),
    'gather-dim0': (6.208, [[0.0, 4.32, 0.0], [12.0, 0.0, 0.4800000000000001]], [[0.0, -14.399999999999999, 0.0], [48.0, 0.0, -14.4]]),
    'scatter_add-self': (10.948500000000001, [[0.18, 2.38, -0.6600000000000001], [3.4000000000000004, 4.5, 0.06000000000000001]], [[0.6, -2.8, 6.6000000000000005], [3.2, 9.0, -2.4000000000000004]]),
    'scatter_add-src': (8.53575, [[-1.43, -1.43, 1.32], [2.2, 3.7800000000000002, 3.7800000000000002]], [[6.6000000000000005, 6.6000000000000005, 1.7999999999999998], [3.2, 19.8, 19.8]]),
    'torch.scatter_add': (10.159799999999999, [[3.1079999999999997, -11.712, 1.6519999999999997], [4.18, 3.88, 0.17999999999999983]], [[15.879999999999999, 18.56, 35.63999999999999], [9.2, 0.40000000000000036, 20.4]]),
    'repeat': (1.2697872340425536, [[-0.8170212765957447, 2.451063829787234, -0.9531914893617023], [2.7234042553191493, 1.0212765957446808, -1.0893617021276598]], [[-2.7234042553191493, -4.085106382978723, -4.085106382978726], [5.446808510638299, 10.212765957446809, 16.340425531914896]]),
    'split': (7.08, [[0.6, -2.4, 2.8], [4.0, 1.0, -1.6]], [[2.0, 4.0, 12.0], [8.0, 10.0, 24.0]]),
    'split-sizes': (4.054999999999999, [[0.27, 12.96, 4.409999999999999], [12.0, 2.25, 1.4400000000000004]], [[1.7999999999999998, -43.199999999999996, 37.8], [48.0, 45.0, -43.2]]),
    'chunk': (7.08, [[0.6, -2.4, 2.8], [4.0, 1.0, -1.6]], [[2.0, 4.0, 12.0], [8.0, 10.0, 24.0]]),
    'topk': (1.9090000000000003, [[-0.42, 0.0, 0.42], [1.6, 0.9, 0.0]], [[-1.4, 0.0, 1.7999999999999998], [3.2, 9.0, 0.0]]),
    'topk-smallest': (-1.7650000000000001, [[0.27, 4.32, 0.0], [0.0, 0.0, 0.4800000000000001]], [[1.7999999999999998, -14.399999999999999, 0.0], [0.0, 0.0, -14.4]]),
    'median': (0.027, [[0.27, 0.0, 0.0], [0.0, 0.0, 0.0]], [[1.7999999999999998, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'median-ties': (8.0, [[0.0, 0.0, 4.0], [4.0, 0.0, 4.0]], [[0.0, 0.0, 17.333333333333332], [17.333333333333332, 0.0, 17.333333333333332]]),
    'median-dim': (-0.0794, [[0.081, 0.0, 0.0], [0.0, -0.5249999999999999, 0.0]], [[0.5399999999999999, 0.0, 0.0], [0.0, -10.5, 0.0]]),
    'median-dim-keepdim': (1.1473, [[0.081, -3.024, 0.0], [0.0, 0.0, 0.5280000000000001]], [[0.5399999999999999, 10.079999999999998, 0.0], [0.0, 0.0, -15.840000000000002]]),
    'dist': (2.510975905897944, [[-0.4779018377601162, -0.27877607202673443, 0.17921318916004356], [0.49781441433345436, -0.5973772972001452, 0.2389509188800581]], [[0.3868819397674745, 0.7898708011089418, 1.1990181912875237], [1.6048494505538133, 1.9770456677097061, 2.3951939846502253]]),
    'dist-1': (32.489999999999995, [[-11.399999999999999, -11.399999999999999, 11.399999999999999], [11.399999999999999, -11.399999999999999, 11.399999999999999]], [[-10.0, -10.0, 10.0], [10.0, -10.0, 10.0]]),
    'dist-3-broadcast': (1.5271715010986426, [[-0.6174287812401337, -0.21009729361643434, 0.08682592236189378], [0.10719249674307876, 0.42876998697231505, -0.18115531949580313]], [[1.6019691793740116, 1.3955083199209704, 1.0771119195789365], [1.6156144599308477, 3.889837917889501, 3.5125025730337747]]),
    'dist-inf': (2.25, [[-0.0, -0.0, 0.0], [0.0, -3.0, 0.0]], [[0.0, 0.0, -0.0], [-0.0, 10.0, -0.0]]),
    'linear': (15.801500000000004, [[0.6999999999999997, -7.4319999999999995, 7.584000000000001], [2.22, -1.2639999999999996, 1.3180000000000005]], [[-0.5, 3.520000000000001, 9.160000000000002], [0.6999999999999993, 9.759999999999998, 16.780000000000005]]),
    'linear-weight': (7.0415, [[0.44999999999999996, -4.732, 3.6840000000000006], [1.9700000000000002, 1.4360000000000002, -2.5820000000000003]], [[-0.5, 3.520000000000001, 9.160000000000002], [0.6999999999999993, 9.759999999999998, 16.780000000000005]]),
    'linear-bias': (-29.776171874999996, [8.889375, 40.098749999999995, 0.0], [10.95, -35.4, 0.0]),
}


def _derivatives(f, data):
    x = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    s = f(x)
    g, = torch.autograd.grad(s, x, create_graph=True)
    h, = torch.autograd.grad((g * torch.arange(1.0, x.numel() + 1, dtype=torch.float64).reshape(x.shape)).sum(), x)
    return s.item(), g.tolist(), h.tolist()


@pytest.mark.parametrize("name", list(OPS))
def test_op_value_gradient_and_second_derivative_as_pytorch(name):
    data, f = OPS[name]
    value, grad, second = _derivatives(f, data)
    want_value, want_grad, want_second = EXPECTED[name]
    assert value == pytest.approx(want_value, rel=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(second, want_second, rtol=1e-10, atol=1e-14)


def test_indices_are_pytorch_s():
    x = torch.tensor(X, dtype=torch.float64)
    # PyTorch 2.13.0: [[2, 0], [0, 1]], [[0, 0, 1]], [0, 1], [[0, 0, 1]]
    assert x.topk(2, dim=1).indices.tolist() == [[2, 0], [0, 1]]
    assert torch.topk(x, 1, dim=0, largest=False).indices.tolist() == [[0, 0, 1]]
    assert x.median(dim=1).indices.tolist() == [0, 1]
    assert torch.median(x, 0, keepdim=True).indices.tolist() == [[0, 0, 1]]
    assert x.topk(2, dim=1).values.dtype == torch.float64


def test_median_is_the_lower_one_and_nan_where_a_nan_is():
    assert torch.tensor([3.0, 1.0, 2.0, 2.0, 5.0, 2.0]).median().item() == 2.0  # PyTorch: tensor(2.)
    x = torch.tensor([1.0, math.nan, 3.0, math.nan], dtype=torch.float64, requires_grad=True)
    m = x.median()
    m.backward()
    assert math.isnan(m.item())
    assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]  # PyTorch 2.13.0: spread over the NaNs
    row = torch.tensor([[1.0, math.nan, 3.0, math.nan]]).median(1)
    assert math.isnan(row.values.item()) and row.indices.tolist() == [1]  # PyTorch: values nan, index 1


def test_masked_fill_with_a_tensor_value_gives_it_the_gradient_of_what_it_fills():
    x = torch.tensor(X, dtype=torch.float64)
    v = torch.tensor(2.5, dtype=torch.float64, requires_grad=True)
    y = x.masked_fill(x > 0.4, v)
    (y * torch.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=torch.float64)).sum().backward()
    assert v.grad.item() == 12.0  # PyTorch 2.13.0: tensor(12.)
    assert y.grad_fn.name() == "MaskedFillBackward1"


def test_dist_has_gradient_zero_where_the_two_are_equal():
    a = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.dist(a, a.detach()).backward()
    assert a.grad.tolist() == [0.0, 0.0]  # PyTorch 2.13.0: tensor([0., 0.])


def test_split_and_chunk_give_pytorch_s_pieces():
    x = torch.arange(5.0)
    assert [p.tolist() for p in torch.chunk(x, 3)] == [[0.0, 1.0], [2.0, 3.0], [4.0]]
    assert [p.tolist() for p in torch.arange(6.0).chunk(4)] == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert [p.tolist() for p in torch.tensor([1.0, 2.0]).chunk(5)] == [[1.0], [2.0]]
    assert [p.shape for p in x.split([2, 0, 3])] == [torch.Size([2]), torch.Size([0]), torch.Size([3])]
    x.split(2)[0].mul_(2.0)  # a view, as PyTorch's: it writes into its base
    assert x.tolist() == [0.0, 2.0, 2.0, 3.0, 4.0]  # PyTorch 2.13.0: tensor([0., 2., 2., 3., 4.])


def test_variable_is_a_new_leaf_as_in_pytorch():
    # PyTorch 2.13.0: Variable(t) is not t; requires_grad only when asked; detached
    t = torch.tensor([1.0, 2.0], requires_grad=True)
    v = Variable(t)
    assert v is not t and not v.requires_grad and v.is_leaf
    w = Variable(t * 2, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    (w * w).sum().backward()
    assert w.grad.tolist() == [4.0, 8.0] and t.grad is None
    assert torch.autograd.Variable is Variable


GRAD_FNS = [  # PyTorch 2.13.0's names
    ("tan", lambda x: x.tan(), "TanBackward0"),
    ("masked_fill", lambda x: x.masked_fill(x > 0, 1.0), "MaskedFillBackward0"),
    ("index_select", lambda x: x.index_select(0, torch.tensor([0])), "IndexSelectBackward0"),
    ("gather", lambda x: x.gather(0, torch.tensor([0])), "GatherBackward0"),
    ("scatter_add", lambda x: x.scatter_add(0, torch.tensor([0]), x[:1]), "ScatterAddBackward0"),
    ("repeat", lambda x: x.repeat(2), "RepeatBackward0"),
    ("split", lambda x: x.split(2)[0], "SplitBackward0"),
    ("split-sizes", lambda x: x.split([1, 2])[0], "SplitWithSizesBackward0"),
    ("chunk", lambda x: x.chunk(2)[0], "SplitBackward0"),
    ("topk", lambda x: x.topk(2)[0], "TopkBackward0"),
    ("median", lambda x: x.median(), "MedianBackward0"),
    ("median-dim", lambda x: x.median(0)[0], "MedianBackward1"),
    ("dist", lambda x: torch.dist(x, x), "DistBackward0"),
    ("linear", lambda x: F.linear(x[None], x[None], x[:1]), "AddmmBackward0"),
]


@pytest.mark.parametrize("name, f, expected", GRAD_FNS, ids=[c[0] for c in GRAD_FNS])
def test_grad_fn_is_named_as_pytorch_names_it(name, f, expected):
    assert f(torch.ones(3, requires_grad=True)).grad_fn.name() == expected


XS = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
ERRORS = [  # PyTorch 2.13.0's sentences, after the function and argument named
    ("masked_fill-float-mask", lambda: XS.masked_fill(torch.tensor([1.0, 0.0, 1.0]), 0.0), RuntimeError,
     "masked_fill(mask): masked_fill_ only supports boolean masks, but got mask with dtype float"),
    ("masked_fill-value-1d", lambda: XS.masked_fill(XS > 1, torch.tensor([1.0, 2.0])), RuntimeError,
     r"masked_fill(value): masked_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    ("masked_fill-broadcast", lambda: XS.masked_fill(torch.ones(4, dtype=torch.bool), 9.0), RuntimeError,
     "masked_fill(mask): The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"),
    ("masked_fill_-shape", lambda: XS.clone().masked_fill_(torch.ones(3, 2, 3, dtype=torch.bool), 9.0), RuntimeError,
     "masked_fill_(mask): output with shape [2, 3] doesn't match the broadcast shape [3, 2, 3]"),
    ("index_select-2d", lambda: XS.index_select(0, torch.tensor([[0]])), IndexError,
     "index_select(index): Index is supposed to be a vector"),
    ("index_select-float", lambda: XS.index_select(0, torch.tensor([0.0])), RuntimeError,
     "index_select(): Expected dtype int32 or int64 for index"),
    ("index_select-range", lambda: XS.index_select(0, torch.tensor([5])), IndexError,
     "index_select(index): index out of range in self"),
    ("gather-ndim", lambda: XS.gather(0, torch.tensor([0])), RuntimeError,
     "gather(index): Index tensor must have the same number of dimensions as input tensor"),
    ("gather-size", lambda: XS.gather(0, torch.tensor([[0, 1, 0, 1]])), RuntimeError,
     "gather(index): Size does not match at dimension 1 expected index [1, 4] to be no larger than self [2, 3] apart from dimension 0"),
    ("gather-bounds", lambda: XS.gather(0, torch.tensor([[0, 5]])), RuntimeError,
     "gather(index): index 5 is out of bounds for dimension 0 with size 2"),
    ("gather-float", lambda: XS.gather(0, torch.tensor([[0.0, 1.0]])), RuntimeError,
     "gather(): Expected dtype int32/int64 for index"),
    ("scatter_add-size", lambda: XS.scatter_add(0, torch.tensor([[0, 1]]), torch.ones(1, 1)), RuntimeError,
     "scatter_add(index): Expected index [1, 2] to be no larger than self [2, 3] apart from dimension 0 and to be no larger size than src [1, 1]"),
    ("scatter_add-dtype", lambda: XS.scatter_add(0, torch.tensor([[0, 1]]), torch.ones(2, 3, dtype=torch.float64)),
     RuntimeError, "scatter_add(src): scatter(): Expected self.dtype to be equal to src.dtype"),
    ("scatter_add-src-ndim", lambda: XS.scatter_add(0, torch.tensor([[0, 1]]), torch.ones(1, 2, 3)), RuntimeError,
     "scatter_add(index): Index tensor must have the same number of dimensions as src tensor"),
    ("scatter_add-bounds", lambda: XS.scatter_add(0, torch.tensor([[-1, 0]]), XS), RuntimeError,
     "scatter_add(index): index -1 is out of bounds for dimension 0 with size 2"),
    ("repeat-few", lambda: XS.repeat(2), RuntimeError,
     "repeat(sizes): Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    ("repeat-negative", lambda: XS.repeat(-1, 2), RuntimeError,
     "repeat(sizes): Trying to create tensor with negative dimension -1: [-2, 6]"),
    ("split-sum", lambda: XS.split([1, 2]), RuntimeError,
     "split(split_size_or_sections): split_with_sizes expects split_sizes to sum exactly to 2 (input tensor's size at dimension 0), but got split_sizes=[1, 2]"),
    ("split-negative-size", lambda: XS.split([-1, 3]), RuntimeError,
     "split(split_size_or_sections): split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[-1, 3]"),
    ("split-zero", lambda: XS.split(0), RuntimeError,
     "split(split_size): split_size can only be 0 if dimension size is 0, but got dimension size of 2"),
    ("split-negative", lambda: XS.split(-1), RuntimeError,
     "split(split_size): split expects split_size be non-negative, but got split_size=-1"),
    ("chunk-zero", lambda: XS.chunk(0), RuntimeError,
     "chunk(chunks): chunk expects `chunks` to be greater than 0, got: 0"),
    ("topk-k", lambda: XS.topk(4), RuntimeError, "topk(k=4): selected index k out of range"),
    ("median-dim", lambda: XS.median(dim=2), IndexError,
     "median(dim=2): Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ("dist-broadcast", lambda: torch.dist(XS, torch.ones(3, 2)), RuntimeError,
     "dist(input, other): The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    ("variable-list", lambda: Variable([1.0, 2.0]), TypeError,
     "Variable(data): Variable data has to be a tensor, but got list"),
    ("linear-shapes", lambda: F.linear(torch.ones(2, 3), torch.ones(2, 4)), RuntimeError,
     "linear(input, weight): mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)"),
    ("linear-vector", lambda: F.linear(torch.ones(3), torch.ones(4, 2)), RuntimeError,
     "linear(input, weight): mat1 and mat2 shapes cannot be multiplied (1x3 and 2x4)"),
    ("linear-bias", lambda: F.linear(torch.ones(2, 3), torch.ones(4, 3), torch.ones(5)), RuntimeError,
     "linear(bias): The expanded size of the tensor (4) must match the existing size (5) at non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]"),
]


@pytest.mark.parametrize("name, call, kind, message", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_are_pytorch_s(name, call, kind, message):
    with pytest.raises(kind) as caught:
        call()
    assert str(caught.value) == message


def test_tensor_basics_as_pytorchs():
    # PyTorch 2.13.0 gave each value below for the same code
    i, f = torch.tensor([7, -7, 8]), torch.tensor([7.5, -7.5, 8.0])
    assert torch.div(i, 2, rounding_mode="floor").tolist() == [3, -4, 4]
    assert torch.div(i, 2, rounding_mode="trunc").tolist() == [3, -3, 4]
    assert torch.div(i, 2, rounding_mode="floor").dtype == torch.int64
    assert torch.div(i, torch.tensor([2, 2, 3]), rounding_mode="trunc").tolist() == [3, -3, 2]
    assert torch.div(f, 2, rounding_mode="floor").tolist() == [3.0, -4.0, 4.0]
    assert torch.div(f, 2, rounding_mode="trunc").tolist() == [3.0, -3.0, 4.0] and f.div(2).tolist() == [3.75, -3.75, 4.0]
    x = torch.tensor([3.0, 5.0], requires_grad=True)
    y = torch.div(x, 2, rounding_mode="floor")
    y.sum().backward()
    assert y.requires_grad and y.grad_fn.name() == "DivBackward0" and x.grad.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                                           "but found 'round'"):
        torch.div(i, 2, rounding_mode="round")
    m = torch.zeros(2, 3)
    assert m.is_contiguous() and not m.t().is_contiguous()
    assert m.is_floating_point() and not i.is_floating_point()
    assert [t.tolist() for t in torch.tensor([[1, 2], [3, 4]]).unbind(1)] == [[1, 3], [2, 4]]
    assert f.new_zeros(2, 2).tolist() == [[0.0, 0.0], [0.0, 0.0]] and f.new_zeros((2,)).dtype == torch.float32
    assert i.new_ones(3).dtype == torch.int64 and f.new_full((2,), 3.5).tolist() == [3.5, 3.5]
    assert i.type() == "torch.LongTensor" and f.type() == "torch.FloatTensor"
    a = torch.tensor([-1.5, 2.0])
    a.abs_()
    assert a.tolist() == [1.5, 2.0]


def test_common_tensor_functions_as_pytorchs():
    # PyTorch 2.13.0 gave each value, dtype and grad_fn name below for the same code
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    names = {"hstack": torch.hstack([a, a]), "vstack": torch.vstack([a, a]), "tril": torch.tril(a),
             "triu": torch.triu(a, 1), "roll": torch.roll(a, 1, 0)}
    assert {k: v.grad_fn.name() for k, v in names.items()} == {
        "hstack": "CatBackward0", "vstack": "CatBackward0", "tril": "TrilBackward0",
        "triu": "TriuBackward0", "roll": "RollBackward0"}
    assert torch.tril(a).tolist() == [[1.0, 0.0], [3.0, 4.0]] and a.roll(1, 0).tolist() == [[3.0, 4.0], [1.0, 2.0]]
    torch.tril(a).sum().backward()
    assert a.grad.tolist() == [[1.0, 0.0], [1.0, 1.0]]
    assert torch.nonzero(torch.tensor([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]
    rows, cols = torch.nonzero(torch.tensor([[0, 1], [2, 0]]), as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0] and rows.dtype == torch.int64
    f = torch.finfo(torch.float32)
    assert (f.eps, f.max, f.tiny, f.bits, f.resolution) == (
        1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 32, 1e-06)
    assert torch.finfo().eps == f.eps and torch.iinfo(torch.int32).max == 2147483647
    r = torch.randint(0, 10, (3,))
    assert r.dtype == torch.int64 and r.shape == (3,) and torch.randint(5, (2, 2)).shape == (2, 2)
    torch.manual_seed(0)
    first = torch.randint(0, 100, (4,)).tolist()
    torch.manual_seed(0)
    assert torch.randint(0, 100, (4,)).tolist() == first  # seeded as torch.rand is


def test_rounding_and_the_straight_through_estimator_as_pytorchs():
    # PyTorch 2.13.0: round is half to even; x + (round(x) - x).detach() and a Function whose
    # backward passes g through give the identity's gradient
    x = torch.tensor([0.5, 1.5, -2.7, 2.2], requires_grad=True)
    assert torch.round(x).tolist() == [0.0, 2.0, -3.0, 2.0] and x.floor().tolist() == [0.0, 1.0, -3.0, 2.0]
    assert torch.ceil(x).tolist() == [1.0, 2.0, -2.0, 3.0] and x.trunc().tolist() == [0.0, 1.0, -2.0, 2.0]
    y = x + (torch.round(x) - x).detach()
    y.sum().backward()
    assert y.tolist() == [0.0, 2.0, -3.0, 2.0] and x.grad.tolist() == [1.0] * 4

    class STE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.round(x)

        @staticmethod
        def backward(ctx, g):
            return g
    x.grad = None
    STE.apply(x).sum().backward()
    assert x.grad.tolist() == [1.0] * 4
