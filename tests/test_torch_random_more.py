"""Random sampling (``randperm``, ``normal``, ``bernoulli``, ``multinomial``, ``random_``,
``bernoulli_``), ``logspace``, ``std_mean``/``var_mean``, ``floor_divide``, ``bucketize``,
``searchsorted``, ``count_nonzero``, ``relu_``, ``stride()`` and the in-place shape changes
(``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``) on gradmagic.torch.

Every expected string below (``EXACT``, ``ERRORS``) was printed by PyTorch 2.13.0+cpu
running the same code. Random numbers come from gradmagic's own seeded generators, so they
are not PyTorch's: those tests check shapes, dtypes, ranges, distributions, seeding and
PyTorch's ``grad_fn`` names and (zero) gradients instead.
"""

import re

import numpy as np
import pytest

import gradmagic.torch as torch

X = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
XG = torch.tensor([5., -5.], requires_grad=True)
B = torch.tensor([1., 3., 5., 7.])
EXACT = {  # code: what PyTorch 2.13.0+cpu prints
    'torch.logspace(0, 2, 3)':
        'tensor([  1.,  10., 100.])',
    'torch.logspace(-1, 1, 5, base=2)':
        'tensor([0.5000, 0.7071, 1.0000, 1.4142, 2.0000])',
    'torch.logspace(0, 3, 4, dtype=torch.float64)':
        'tensor([   1.,   10.,  100., 1000.], dtype=torch.float64)',
    'torch.logspace(0, 3, 4, dtype=torch.long)':
        'tensor([   1,   10,  100, 1000])',
    'torch.std_mean(X, dim=1)':
        '(tensor([0.7071, 0.7071], grad_fn=<StdMeanBackward0>), tensor([1.5000, 3.5000], grad_fn=<StdMeanBackward0>))',
    'torch.var_mean(X, dim=0, keepdim=True, correction=0)':
        '(tensor([[1., 1.]], grad_fn=<VarMeanBackward0>), tensor([[2., 3.]], grad_fn=<VarMeanBackward0>))',
    'torch.var_mean(X, unbiased=False)':
        '(tensor(1.2500, grad_fn=<VarMeanBackward0>), tensor(2.5000, grad_fn=<VarMeanBackward0>))',
    'torch.std_mean(X, 1, True)':
        '(tensor([0.7071, 0.7071], grad_fn=<StdMeanBackward0>), tensor([1.5000, 3.5000], grad_fn=<StdMeanBackward0>))',
    'torch.std_mean(X)':
        '(tensor(1.2910, grad_fn=<StdMeanBackward0>), tensor(2.5000, grad_fn=<StdMeanBackward0>))',
    'torch.std_mean(torch.tensor([1., 2., 4.]), False)':
        '(tensor(1.2472), tensor(2.3333))',
    'torch.var_mean(torch.tensor([[1., 2.], [4., 8.]]), (0, 1), correction=2)':
        '(tensor(14.3750), tensor(3.7500))',
    'torch.std_mean(torch.tensor([1., 2., 4.], dtype=torch.float64), dim=0)':
        '(tensor(1.5275, dtype=torch.float64), tensor(2.3333, dtype=torch.float64))',
    'torch.floor_divide(torch.tensor([5., -5.]), 2)':
        'tensor([ 2., -3.])',
    'torch.floor_divide(torch.tensor([5, -5]), 2)':
        'tensor([ 2, -3])',
    'torch.floor_divide(torch.tensor([5.5]), torch.tensor([0.]))':
        'tensor([inf])',
    'torch.tensor([5., -7.]).floor_divide(2)':
        'tensor([ 2., -4.])',
    'torch.floor_divide(torch.tensor([5, -5]), 2.5)':
        'tensor([ 2., -2.])',
    'torch.floor_divide(torch.tensor([5, -5]), torch.tensor(2))':
        'tensor([ 2, -3])',
    'torch.floor_divide(torch.tensor([7, -7], dtype=torch.int32), torch.tensor([2]))':
        'tensor([ 3, -4])',
    'torch.floor_divide(XG, 2)':
        'tensor([ 2., -3.], grad_fn=<NotImplemented>)',
    'torch.tensor([5., -5.]).floor_divide_(2)':
        'tensor([ 2., -3.])',
    'torch.bucketize(torch.tensor([0., 3., 6., 9.]), B)':
        'tensor([0, 1, 3, 4])',
    'torch.bucketize(torch.tensor([0., 3., 6., 9.]), B, right=True)':
        'tensor([0, 2, 3, 4])',
    'torch.bucketize(torch.tensor([[3, 6]]), B, out_int32=True)':
        'tensor([[1, 3]], dtype=torch.int32)',
    'torch.bucketize(3., B)':
        'tensor(1)',
    'torch.searchsorted(B, torch.tensor([3., 6.]))':
        'tensor([1, 3])',
    'torch.searchsorted(B, torch.tensor([3., 6.]), right=True)':
        'tensor([2, 3])',
    "torch.searchsorted(B, torch.tensor([3., 6.]), side='right')":
        'tensor([2, 3])',
    'torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3], [3]]))':
        'tensor([[1],\n        [1]])',
    "torch.searchsorted(torch.tensor([[1, 3, 5], [2, 4, 6]]), torch.tensor([[3, 5], [0, 7]]), side='right')":
        'tensor([[2, 3],\n        [0, 3]])',
    'torch.searchsorted(B, 5.0)':
        'tensor(2)',
    'torch.searchsorted(B, torch.tensor([3.]), out_int32=True)':
        'tensor([1], dtype=torch.int32)',
    'torch.searchsorted(torch.tensor([5., 1., 3.]), torch.tensor([2.]), sorter=torch.tensor([1, 2, 0]))':
        'tensor([1])',
    'torch.count_nonzero(torch.tensor([[0, 1], [2, 0]]))':
        'tensor(2)',
    'torch.count_nonzero(torch.tensor([[0., 1], [2, 3]]), dim=0)':
        'tensor([1, 2])',
    'torch.count_nonzero(torch.tensor([[0., 1], [2, 3]]), dim=(0, 1))':
        'tensor(3)',
    'torch.relu_(torch.tensor([-1., 2.], requires_grad=True) * 1)':
        'tensor([0., 2.], grad_fn=<ReluBackward0>)',
    'torch.relu_(torch.tensor([-1, 2]))':
        'tensor([0, 2])',
    'torch.ones(2, 3).stride()':
        '(3, 1)',
    'torch.ones(2, 3).t().stride()':
        '(1, 3)',
    'torch.ones(2, 3).stride(1)':
        '1',
    'torch.ones(2, 3).stride(-1)':
        '1',
    'torch.tensor(1.).stride()':
        '()',
    'torch.ones(2, 3)[:, 1].stride()':
        '(3,)',
    'torch.ones(2, 3).expand(4, 2, 3).stride()':
        '(0, 3, 1)',
    'torch.ones(2, 3).unsqueeze(1).stride()':
        '(3, 3, 1)',
    'torch.ones(4, 6)[::2, 1::3].stride()':
        '(12, 3)',
    'torch.ones(2, 3, 4).permute(2, 0, 1).stride()':
        '(1, 12, 4)',
    'torch.ones(2, 3).t_().shape':
        'torch.Size([3, 2])',
    'torch.arange(3.).unsqueeze_(-1)':
        'tensor([[0.],\n        [1.],\n        [2.]])',
    'torch.zeros(1, 2, 1).squeeze_(-1).shape':
        'torch.Size([1, 2])',
    'torch.arange(6.).reshape(2, 3).transpose_(0, 1)':
        'tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])',
    '(XG * 2).t_()':
        'tensor([ 10., -10.], grad_fn=<TBackward1>)',
    '(XG * 2).unsqueeze_(0)':
        'tensor([[ 10., -10.]], grad_fn=<UnsqueezeBackward1>)',
    '(X * 1).squeeze_()':
        'tensor([[1., 2.],\n        [3., 4.]], grad_fn=<SqueezeBackward3>)',
    '(X[:1] * 1).squeeze_(0)':
        'tensor([1., 2.], grad_fn=<SqueezeBackward4>)',
    '(X[:1] * 1).squeeze_((0,))':
        'tensor([1., 2.], grad_fn=<SqueezeBackward5>)',
    '(X * 1).transpose_(0, 1)':
        'tensor([[1., 3.],\n        [2., 4.]], grad_fn=<TransposeBackward1>)',
}
ERRORS = {  # code: PyTorch 2.13.0+cpu's error
    'torch.var_mean(torch.tensor([1, 2]))':
        (RuntimeError, 'var_mean only support floating point and complex dtypes'),
    'torch.floor_divide(torch.tensor([5, -5]), 0)':
        (RuntimeError, 'ZeroDivisionError'),
    'torch.floor_divide(torch.tensor([5, -5]), torch.tensor([1, 0]))':
        (RuntimeError, 'ZeroDivisionError'),
    "torch.searchsorted(B, torch.tensor([3.]), side='left', right=True)":
        (RuntimeError, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"),
    "torch.searchsorted(B, torch.tensor([3.]), side='foo')":
        (RuntimeError, "torch.searchsorted(): side can only be 'left' or 'right' but got foo"),
    'torch.searchsorted(torch.ones(2, 3), torch.ones(3, 1))':
        (RuntimeError, 'torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries tensor [2, 3] and input value tensor [3, 1]'),
    'torch.bucketize(torch.tensor([1.]), torch.ones(2, 2))':
        (RuntimeError, 'boundaries tensor must be 1 dimension, but got dim(2)'),
    'torch.ones(2).stride(2)':
        (IndexError, 'Dimension out of range (expected to be in range of [-1, 0], but got 2)'),
    'torch.tensor(1.).stride(0)':
        (IndexError, 'Dimension specified as 0 but tensor has no dimensions'),
    'torch.ones(2, 3, 4).t_()':
        (RuntimeError, 't_() expects a tensor with <= 2 dimensions, but self is 3D'),
    'X.t_()':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
    'X.squeeze_()':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
    'X.unsqueeze_(0)':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
    'X.transpose_(0, 1)':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
    'torch.randperm(-1)':
        (RuntimeError, 'Trying to create tensor with negative dimension -1: [-1]'),
    'torch.normal(2.0, 3.0)':
        (TypeError, 'normal() received an invalid combination of arguments - got (float, float), but expected one of:\n * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n'),
    'torch.normal(torch.zeros(2), -1.0)':
        (RuntimeError, 'normal expects std >= 0.0, but found std -1'),
    'torch.normal(torch.zeros(2), -torch.ones(2))':
        (RuntimeError, 'normal expects all elements of std >= 0.0'),
    'torch.normal(0.0, -0.5, (2,))':
        (RuntimeError, 'normal expects std >= 0.0, but found std -0.5'),
    'torch.normal(torch.zeros(2, dtype=torch.long), 1.0)':
        (NotImplementedError, '"normal_kernel_cpu" not implemented for \'Long\''),
    'torch.normal(torch.zeros(2), torch.ones(3))':
        (RuntimeError, 'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0'),
    'torch.bernoulli(torch.ones(2, dtype=torch.long))':
        (NotImplementedError, '"bernoulli_tensor_cpu_p_" not implemented for \'Long\''),
    'torch.bernoulli(torch.tensor([1.5, 0.2]))':
        (RuntimeError, 'Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)'),
    'torch.bernoulli(torch.ones(2), 1.5)':
        (RuntimeError, 'bernoulli_ expects p to be in [0, 1], but got p=1.5'),
    'torch.multinomial(torch.ones(3), 5)':
        (RuntimeError, 'cannot sample n_sample > prob_dist.size(-1) samples without replacement'),
    'torch.multinomial(torch.tensor([1., -2.]), 1)':
        (RuntimeError, 'probability tensor contains either `inf`, `nan` or element < 0'),
    'torch.multinomial(torch.tensor([0., 0.]), 1)':
        (RuntimeError, 'invalid multinomial distribution (sum of probabilities <= 0)'),
    'torch.multinomial(torch.ones(2, 2, 2), 0)':
        (RuntimeError, 'prob_dist must be 1 or 2 dim'),
    'torch.multinomial(torch.ones(2, dtype=torch.long), 1)':
        (RuntimeError, 'multinomial only supports floating-point dtypes for input, got: Long'),
    'torch.multinomial(torch.ones(2), 0)':
        (RuntimeError, 'cannot sample n_sample <= 0 samples'),
    "torch.multinomial(torch.tensor([1., float('inf')]), 1)":
        (RuntimeError, 'probability tensor contains either `inf`, `nan` or element < 0'),
    'torch.multinomial(torch.tensor([[1., 0.], [0., 0.]]), 1)':
        (RuntimeError, 'invalid multinomial distribution (sum of probabilities <= 0)'),
    'torch.zeros(3).random_(5, 2)':
        (RuntimeError, "random_ expects 'from' to be less than 'to', but got from=5 >= to=2"),
    'torch.zeros(3).bernoulli_(1.5)':
        (RuntimeError, 'bernoulli_ expects p to be in [0, 1], but got p=1.5'),
    'torch.zeros(2).bernoulli_(torch.tensor([2., 0.]))':
        (RuntimeError, 'Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)'),
    'X.random_(3)':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
    'X.bernoulli_(0.5)':
        (RuntimeError, 'a leaf Variable that requires grad is being used in an in-place operation.'),
}


@pytest.mark.parametrize("code", list(EXACT))
def test_values_as_pytorch(code):
    got = eval(code)
    assert str(got) == EXACT[code]


@pytest.mark.parametrize("code", list(ERRORS))
def test_errors_as_pytorch(code):
    cls, message = ERRORS[code]
    with pytest.raises(cls, match="^" + re.escape(message) + "$"):
        eval(code)


def test_floor_divide_is_recorded_without_a_derivative():
    with pytest.raises(RuntimeError, match="^derivative for aten::floor_divide is not implemented$"):
        torch.floor_divide(XG, 2).sum().backward()


@pytest.mark.parametrize("fn", [torch.std_mean, torch.var_mean])
@pytest.mark.parametrize("kwargs", [{}, {"dim": 1}, {"dim": 0, "keepdim": True, "correction": 0},
                                    {"dim": (0, 1), "unbiased": False}])
def test_moments_first_and_second_derivatives_match_finite_differences(fn, kwargs):
    x = torch.tensor([[1.0, 2.5, -0.5], [3.0, 4.0, 0.25]], dtype=torch.float64, requires_grad=True)
    both = lambda t: fn(t, **kwargs)  # noqa: E731
    assert torch.autograd.gradcheck(both, (x,))
    assert torch.autograd.gradgradcheck(both, (x,))


def test_in_place_shape_changes_keep_the_gradient():
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    y = x.exp()
    y.t_()  # exp's output in a new shape: its gradient still exp's
    assert y.shape == torch.Size([3, 1]) and y._version == 1
    (y * torch.tensor([[1.0], [2.0], [3.0]])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([[1.0, 2.0, 3.0]]) * [1, 2, 3], rtol=1e-6)
    z = x * 2
    z.unsqueeze_(0)
    z.squeeze_()
    z.unsqueeze_(1)
    z.transpose_(0, 1)
    assert repr(z.grad_fn) == "<TransposeBackward1>" and z._version == 4
    x.grad = None
    (z * torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert x.grad.tolist() == [[2.0, 4.0, 6.0]]
    with torch.no_grad():
        w = x.clone()
        w.t_()
    assert w.is_leaf and w.tolist() == [[1.0], [2.0], [3.0]]


# -- random sampling: gradmagic's own numbers ------------------------------------------------
def test_randperm_is_a_permutation_seeded_as_asked():
    torch.manual_seed(3)
    a = torch.randperm(10)
    torch.manual_seed(3)
    assert torch.equal(a, torch.randperm(10)) and a.dtype == torch.int64
    assert sorted(a.tolist()) == list(range(10))
    g = torch.Generator().manual_seed(7)
    b = torch.randperm(6, generator=g, dtype=torch.float32)
    assert b.dtype == torch.float32 and sorted(b.tolist()) == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert torch.equal(b, torch.randperm(6, generator=torch.Generator().manual_seed(7), dtype=torch.float32))
    assert str(torch.randperm(0)) == "tensor([], dtype=torch.int64)"
    assert torch.randperm(3, dtype=torch.float32, requires_grad=True).requires_grad


def test_normal_forms_shapes_dtypes_and_statistics():
    torch.manual_seed(0)
    assert torch.normal(torch.zeros(2, 3), torch.ones(2, 3)).shape == torch.Size([2, 3])
    assert torch.normal(torch.zeros(2, 1), torch.ones(3)).shape == torch.Size([2, 3])
    assert torch.normal(0.0, torch.ones(4)).shape == torch.Size([4])
    assert torch.normal(torch.zeros(2, dtype=torch.float64), 1.0).dtype == torch.float64
    s = torch.normal(2.0, 3.0, size=(20000,))
    assert s.dtype == torch.float32 and abs(s.mean().item() - 2) < 0.1 and abs(s.std().item() - 3) < 0.1
    m = torch.normal(torch.full((20000,), -1.0), 0.5)
    assert abs(m.mean().item() + 1) < 0.02 and abs(m.std().item() - 0.5) < 0.02
    torch.manual_seed(5)
    a = torch.normal(0.0, 1.0, (4,))
    torch.manual_seed(5)
    assert torch.equal(a, torch.normal(0.0, 1.0, (4,)))


def test_normal_and_bernoulli_are_recorded_with_gradient_zero():
    m = torch.zeros(3, requires_grad=True)
    s = torch.ones(3, requires_grad=True)
    for y, name in ((torch.normal(m, s), "NormalBackward3"), (torch.normal(m, 1.0), "NormalBackward1"),
                    (torch.normal(0.0, s), "NormalBackward2")):
        assert repr(y.grad_fn) == f"<{name}>"
        y.sum().backward()
    assert m.grad.tolist() == [0.0] * 3 and s.grad.tolist() == [0.0] * 3
    p = torch.full((3,), 0.5, requires_grad=True)
    b = torch.bernoulli(p)
    assert repr(b.grad_fn) == "<BernoulliBackward0>"
    b.sum().backward()
    assert p.grad.tolist() == [0.0] * 3
    with pytest.raises(RuntimeError, match="^derivative for aten::bernoulli is not implemented$"):
        torch.bernoulli(p, 0.3).sum().backward()


def test_bernoulli_draws_ones_at_its_rate():
    torch.manual_seed(1)
    b = torch.bernoulli(torch.full((20000,), 0.3))
    assert b.dtype == torch.float32 and set(b.unique().tolist()) == {0.0, 1.0}
    assert abs(b.mean().item() - 0.3) < 0.02
    edge = torch.tensor([0.0, 1.0], dtype=torch.float64).bernoulli()
    assert edge.tolist() == [0.0, 1.0] and edge.dtype == torch.float64
    assert abs(torch.bernoulli(torch.zeros(20000), 0.8).mean().item() - 0.8) < 0.02


def test_multinomial_with_and_without_replacement():
    torch.manual_seed(2)
    w = torch.tensor([1.0, 0.0, 3.0])
    draws = torch.multinomial(w, 20000, replacement=True)
    assert draws.dtype == torch.int64 and draws.shape == torch.Size([20000])
    counts = torch.bincount(draws, minlength=3).tolist()
    assert counts[1] == 0 and abs(counts[2] / 20000 - 0.75) < 0.02
    rows = torch.multinomial(torch.ones(4, 5), 5)
    assert rows.shape == torch.Size([4, 5]) and all(sorted(r) == list(range(5)) for r in rows.tolist())
    first = [torch.multinomial(torch.tensor([1.0, 9.0]), 1).item() for _ in range(2000)]
    assert abs(sum(first) / 2000 - 0.9) < 0.03
    assert torch.multinomial(torch.tensor([1.0, 0.0, 0.0]), 2)[0].item() == 0


def test_random_and_bernoulli_in_place():
    torch.manual_seed(4)
    x = torch.zeros(10000)
    assert x.random_(10) is x and set(x.unique().tolist()) == set(float(k) for k in range(10))
    assert set(torch.zeros(1000, dtype=torch.long).random_(-3, -1).unique().tolist()) == {-3, -2}
    assert set(torch.zeros(1000, dtype=torch.bool).random_().unique().tolist()) == {False, True}
    big = torch.zeros(1000).random_()
    assert big.max().item() <= 2 ** 24 and big.max().item() > 2 ** 20 and big.dtype == torch.float32
    assert abs(torch.zeros(20000).bernoulli_(0.25).mean().item() - 0.25) < 0.02
    assert torch.zeros(2).bernoulli_(torch.tensor([0.0, 1.0])).tolist() == [0.0, 1.0]
    y = torch.ones(3, requires_grad=True) * 2
    names = [repr(y.clone().random_().grad_fn), repr(y.clone().random_(3).grad_fn),
             repr(y.clone().random_(2, 5).grad_fn), repr(y.clone().bernoulli_(0.5).grad_fn),
             repr(y.clone().bernoulli_(torch.full((3,), 0.5)).grad_fn)]
    assert names == ["<RandomBackward2>", "<RandomBackward1>", "<RandomBackward0>", "<BernoulliBackward2>",
                     "<BernoulliBackward1>"]
