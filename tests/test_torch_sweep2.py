"""gradmagic.torch against PyTorch 2.13.0+cpu, the second sweep's finds: ``reshape``/``flatten``/
``ravel`` views, ``scatter_reduce``, ``index_put``, ``masked_scatter``, ``linalg.multi_dot``,
``renorm``, bit shifts, RNG state, and PyTorch's refusals (integer powers and means,
``detach_`` on a view).

The expected numbers and messages are what PyTorch 2.13.0+cpu printed running the same
lines with ``import torch``; gradients are also checked by the dialect's ``gradcheck``
(float64, central differences).
"""

import numpy as np
import pytest

import gradmagic.torch as torch
import gradmagic.torch.nn.functional as F


def close(got, want, rtol=1e-6, atol=0.0):
    np.testing.assert_allclose(np.asarray(got.tolist() if hasattr(got, "tolist") else got), want,
                               rtol=rtol, atol=atol)


def raises(cls, message, f):
    with pytest.raises(cls) as caught:
        f()
    assert str(caught.value) == message


# -- 1. reshape, flatten and ravel are views where PyTorch's are ------------------------------
def test_writes_through_reshape_and_flatten_reach_the_base():
    """The report's four examples, as PyTorch 2.13.0+cpu prints them."""
    base = torch.zeros(2, 3)
    base.reshape(6)[5] = 2.
    assert base.tolist() == [[0, 0, 0], [0, 0, 2]]
    base = torch.zeros(2, 3)
    base.flatten()[0] = 2.
    assert base.tolist() == [[2, 0, 0], [0, 0, 0]]
    base = torch.zeros(2, 3)
    base.reshape(-1).add_(1)
    assert base.tolist() == [[1, 1, 1], [1, 1, 1]]
    x = torch.ones(2, 2, requires_grad=True)
    y = x * 1
    y.reshape(4)[0] = 0.
    y.sum().backward()
    assert x.grad.tolist() == [[0, 1], [1, 1]]


def test_a_reshape_sees_its_base_change_and_a_copy_does_not():
    b = torch.zeros(2, 3)
    r = b.reshape(6)
    b.add_(1)
    assert r.tolist() == [1.0] * 6
    b = torch.zeros(2, 3)
    r = b.t().reshape(6)  # a transpose's reshape is a copy, as PyTorch's
    b.add_(1)
    assert r.tolist() == [0.0] * 6
    b = torch.zeros(2, 3)
    b.t().reshape(6)[0] = 5
    assert b.tolist() == [[0.0] * 3] * 2
    b = torch.zeros(2, 3)
    alias = b.t().reshape(3, 2, 1)  # non-contiguous, yet a view (ReshapeAliasBackward0)
    alias[2, 1, 0] = 7.
    assert b.tolist() == [[0, 0, 0], [0, 0, 7]]


SHAPES = {  # name: (f, PyTorch's grad_fn name, contiguous result) for y = x * 1, x of shape (2, 3)
    "reshape": (lambda t: t.reshape(6), "ViewBackward0", True),
    "torch.reshape": (lambda t: torch.reshape(t, (3, 2)), "ViewBackward0", True),
    "flatten": (lambda t: t.flatten(), "ViewBackward0", True),
    "torch.flatten": (lambda t: torch.flatten(t), "ViewBackward0", True),
    "ravel": (lambda t: t.ravel(), "ViewBackward0", True),
    "torch.ravel": (lambda t: torch.ravel(t), "ViewBackward0", True),
    "reshape_as": (lambda t: t.reshape_as(torch.zeros(3, 2)), "ViewBackward0", True),
    "0-d flatten": (lambda t: t.sum().flatten(), "ViewBackward0", True),
    "rows": (lambda t: t[1:].reshape(3), "ViewBackward0", True),
    "T.reshape": (lambda t: t.t().reshape(6), "UnsafeViewBackward0", True),
    "T.flatten": (lambda t: t.t().flatten(), "UnsafeViewBackward0", True),
    "T.ravel": (lambda t: t.t().ravel(), "ViewBackward0", True),
    "columns": (lambda t: t[:, :2].reshape(4), "UnsafeViewBackward0", True),
    "step": (lambda t: t[:, ::2].flatten(), "UnsafeViewBackward0", True),
    "alias": (lambda t: t.t().reshape(3, 2, 1), "ReshapeAliasBackward0", False),
    "flatten one dim": (lambda t: t.t().flatten(0, 0), "TBackward0", False),
}


@pytest.mark.parametrize("name", SHAPES)
def test_reshape_names_and_layout_are_pytorchs(name):
    """PyTorch 2.13.0+cpu's grad_fn names; gradients checked by gradcheck."""
    f, label, contiguous = SHAPES[name]
    y = torch.ones(2, 3, requires_grad=True) * 1
    out = f(y)
    assert out.grad_fn.name() == label
    assert out.is_contiguous() == contiguous
    x = torch.tensor([[0.3, -1.2, 0.7], [2.0, 0.5, -0.4]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: f(t * t) ** 2, (x,))


def test_flatten_of_one_dim_is_the_tensor_itself_and_bad_dims_are_refused():
    x = torch.ones(2, 3)
    assert x.flatten(1) is x
    raises(RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim",
           lambda: x.flatten(1, 0))


def test_a_write_through_a_reshape_has_pytorchs_gradient():
    x = torch.tensor([[0.3, -1.2], [0.7, 2.0]], dtype=torch.float64, requires_grad=True)

    def f(t):
        y = t * t
        y.reshape(-1)[1:3] *= 3.
        return y
    assert torch.autograd.gradcheck(f, (x,))
    f(x).sum().backward()
    close(x.grad, [[0.6, -7.2], [4.2, 4.0]])


# -- 2. scatter_reduce, index_put, masked_scatter, multi_dot, renorm, shifts ------------------
SRC = [[1., 2., 0., 4.], [3., 3., 5., -1.]]
IDX = [[0, 1, 0, 1], [2, 2, 0, 0]]
W3 = [[1., 2., 3.], [4., 5., 6.]]
T = 1 / 3
REDUCED = {  # (reduce, include_self): (out, x.grad, src.grad) of (out * W3).sum(), PyTorch 2.13.0+cpu
    ("sum", True): ([[3, 5, 3], [5, 0, 10]], [[1, 2, 3], [4, 5, 6]], [[1, 2, 1, 2], [6, 6, 4, 4]]),
    ("sum", False): ([[1, 6, 3], [4, 0, 6]], [[0, 0, 3], [0, 5, 0]], [[1, 2, 1, 2], [6, 6, 4, 4]]),
    ("prod", True): ([[0, -8, 3], [-5, 0, 36]], [[0, 16, 3], [-20, 5, 54]], [[0, -8, 2, -4], [72, 72, -4, 20]]),
    ("prod", False): ([[0, 8, 3], [-5, 0, 9]], [[0, 0, 3], [0, 5, 0]], [[0, 8, 1, 4], [18, 18, -4, 20]]),
    ("mean", True): ([[1, 5 * T, 3], [5 * T, 0, 10 * T]], [[T, 2 * T, 3], [4 * T, 5, 2]],
                     [[T, 2 * T, T, 2 * T], [2, 2, 4 * T, 4 * T]]),
    ("mean", False): ([[.5, 3, 3], [2, 0, 3]], [[0, 0, 3], [0, 5, 0]], [[.5, 1, .5, 1], [3, 3, 2, 2]]),
    ("amax", True): ([[2, 4, 3], [5, 0, 4]], [[1, 0, 3], [0, 5, 6]], [[0, 0, 0, 2], [0, 0, 4, 0]]),
    ("amax", False): ([[1, 4, 3], [5, 0, 3]], [[0, 0, 3], [0, 5, 0]], [[1, 0, 0, 2], [3, 3, 4, 0]]),
    ("amin", True): ([[0, -1, 3], [-1, 0, 3]], [[0, 2, 3], [0, 5, 0]], [[0, 0, 1, 0], [3, 3, 0, 4]]),
    ("amin", False): ([[0, 2, 3], [-1, 0, 3]], [[0, 0, 3], [0, 5, 0]], [[0, 2, 1, 0], [3, 3, 0, 4]]),
}


@pytest.mark.parametrize("reduce, include_self", REDUCED)
def test_scatter_reduce_values_and_gradients_are_pytorchs(reduce, include_self):
    x = torch.tensor([[2., -1., 3.], [1., 0., 4.]], requires_grad=True)
    s = torch.tensor(SRC, requires_grad=True)
    out = x.scatter_reduce(1, torch.tensor(IDX), s, reduce, include_self=include_self)
    assert out.grad_fn.name() == "ScatterReduceBackward0"
    (out * torch.tensor(W3)).sum().backward()
    want = REDUCED[reduce, include_self]
    for got, expected in zip((out, x.grad, s.grad), want):
        close(got, expected)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_passes_gradcheck(reduce, include_self):
    x = torch.tensor([[0.3, -1.2, 0.7], [2.0, 0.5, -0.4]], dtype=torch.float64, requires_grad=True)
    s = torch.tensor([[1.5, -0.5, 0.0, 0.25], [0.75, 2.5, -1.0, 1.1]], dtype=torch.float64, requires_grad=True)
    idx = torch.tensor(IDX)
    assert torch.autograd.gradcheck(
        lambda a, b: torch.scatter_reduce(a, 1, idx, b, reduce, include_self=include_self), (x, s))


def test_scatter_reduce_ties_zeros_integers_and_errors():
    """PyTorch 2.13.0+cpu: amax shares among ties; prod's gradient at a zero."""
    x = torch.tensor([3., 0.], requires_grad=True)
    s = torch.tensor([3., 3., 1.], requires_grad=True)
    x.scatter_reduce(0, torch.tensor([0, 0, 1]), s, "amax").sum().backward()
    assert x.grad.tolist() == pytest.approx([T, 0]) and s.grad.tolist() == pytest.approx([T, T, 1])
    for first, grad_x, grad_s in ((0., [0, 20], [0, 0, 10, 8]), (1., [0, 20], [3, 0, 10, 8])):
        x = torch.tensor([first, 2.], requires_grad=True)
        s = torch.tensor([0., 3., 4., 5.], requires_grad=True)
        out = x.scatter_reduce(0, torch.tensor([0, 0, 1, 1]), s, "prod")
        out.sum().backward()
        assert out.tolist() == [0, 40] and x.grad.tolist() == grad_x and s.grad.tolist() == grad_s
    ints = torch.tensor([1, 2, 3])
    assert ints.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([4, 5]), "mean").tolist() == [3, 2, 3]
    assert ints.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([4, 6]), "mean",
                               include_self=False).tolist() == [5, 2, 3]
    t = torch.zeros(3)
    assert t.scatter_reduce_(0, torch.tensor([2, 2]), torch.tensor([1., 5.]), "amax") is t
    assert t.tolist() == [0, 0, 5]
    three = torch.tensor([3., 0.])
    raises(RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, got foo",
           lambda: three.scatter_reduce(0, torch.tensor([0, 0]), torch.ones(2), "foo"))
    raises(RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype",
           lambda: three.scatter_reduce(0, torch.tensor([0, 0]), torch.ones(2, dtype=torch.float64), "sum"))
    raises(RuntimeError, "index 5 is out of bounds for dimension 0 with size 2",
           lambda: three.scatter_reduce(0, torch.tensor([0, 5]), torch.ones(2), "sum"))
    raises(RuntimeError, "Expected index [3] to be no larger than self [2] apart from dimension 0 and to "
           "be no larger size than src [1]",
           lambda: three.scatter_reduce(0, torch.tensor([0, 1, 0]), torch.ones(1), "sum"))


def test_index_put_values_gradients_and_errors():
    """PyTorch 2.13.0+cpu's values, gradients (IndexPutBackward0) and messages."""
    weights = torch.arange(12.).reshape(3, 4)
    x = torch.zeros(3, 4, requires_grad=True)
    v = torch.tensor([1., 2., 3.], requires_grad=True)
    out = (x * 1).index_put((torch.tensor([0, 0, 2]), torch.tensor([1, 1, 3])), v, accumulate=True)
    assert out.grad_fn.name() == "IndexPutBackward0"
    (out * weights).sum().backward()
    assert out.tolist() == [[0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]]
    assert x.grad.tolist() == weights.tolist() and v.grad.tolist() == [1, 1, 11]
    x = torch.zeros(3, 4, requires_grad=True)
    v = torch.tensor([1., 3.], requires_grad=True)
    out = torch.index_put(x * 1, (torch.tensor([0, 2]), torch.tensor([1, 3])), v)
    (out * weights).sum().backward()
    assert out.tolist() == [[0, 1, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]]
    assert x.grad.tolist() == [[0, 0, 2, 3], [4, 5, 6, 7], [8, 9, 10, 0]] and v.grad.tolist() == [1, 11]
    x = torch.zeros(3, 2)
    x.index_put_((torch.tensor([1]),), torch.tensor(7.))
    assert x.tolist() == [[0, 0], [7, 7], [0, 0]]
    assert x.index_put_((torch.tensor([True, False, True]),), torch.tensor([5., 6.]), accumulate=True) is x
    assert x.tolist() == [[5, 6], [7, 7], [5, 6]]
    assert torch.index_put(torch.zeros(2), (torch.tensor([1, 1]),), torch.tensor([1., 2.]), True).tolist() == [0, 3]
    raises(RuntimeError, "Index put requires the source and destination dtypes match, got Float for the "
           "destination and Long for the source.",
           lambda: torch.zeros(3).index_put((torch.tensor([0]),), torch.tensor([1])))
    raises(IndexError, "tensors used as indices must be long, int, byte or bool tensors",
           lambda: torch.zeros(3).index_put((torch.tensor([0.]),), torch.tensor([1.])))
    raises(IndexError, "index 4 is out of bounds for dimension 0 with size 3",
           lambda: torch.zeros(3).index_put((torch.tensor([4]),), torch.tensor([1.])))
    raises(TypeError, "index_put(): argument 'indices' (position 1) must be tuple of Tensors, not Tensor",
           lambda: torch.zeros(2).index_put(torch.tensor([1]), torch.tensor([1.])))


def test_masked_scatter_values_gradients_and_errors():
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    mask = torch.tensor([[True, False, True], [False, True, False]])
    s = torch.tensor([[10., 20., 30.], [40., 50., 60.]], requires_grad=True)
    out = x.masked_scatter(mask, s)
    assert out.grad_fn.name() == "MaskedScatterBackward0"
    (out * torch.tensor(W3)).sum().backward()
    assert out.tolist() == [[10, 2, 20], [4, 30, 6]]
    assert x.grad.tolist() == [[0, 2, 0], [4, 0, 6]] and s.grad.tolist() == [[1, 3, 5], [0, 0, 0]]
    assert torch.zeros(2, 3).masked_scatter(torch.tensor([True, False, True]),
                                            torch.arange(6.).reshape(2, 3)).tolist() == [[0, 0, 1], [2, 0, 3]]
    t = torch.zeros(3)
    assert t.masked_scatter_(torch.tensor([False, True, True]), torch.tensor([7., 8., 9.])) is t
    assert t.tolist() == [0, 7, 8]
    raises(RuntimeError, "Number of elements of source < number of ones in mask",
           lambda: torch.zeros(3).masked_scatter(torch.tensor([True, True, True]), torch.tensor([1., 2.])))
    raises(RuntimeError, "masked_scatter_ only supports boolean masks, but got mask with dtype Long",
           lambda: torch.zeros(3).masked_scatter(torch.tensor([1, 0, 1]), torch.tensor([1., 2.])))
    a = torch.tensor([0.3, -1.2, 0.7], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda p, q: (p * p).masked_scatter(mask[0], q * q), (a, b))


def test_multi_dot_values_gradients_and_errors():
    a = torch.tensor([[1., 2., 0.5], [-1., 0., 3.]], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([[0.5, 1.], [2., -1.], [1., 1.]], dtype=torch.float64, requires_grad=True)
    c = torch.tensor([3., -2.], dtype=torch.float64, requires_grad=True)
    v = torch.tensor([1., 2.], dtype=torch.float64, requires_grad=True)
    out = torch.linalg.multi_dot([v, a, b, c])
    out.backward()
    assert out.item() == 23.0 and out.grad_fn.name() == "ViewBackward0"
    assert v.grad.tolist() == [16.0, 3.5] and c.grad.tolist() == [10.0, 3.5]
    assert a.grad.tolist() == [[-0.5, 8.0, 1.0], [-1.0, 16.0, 2.0]]
    assert b.grad.tolist() == [[-3.0, 2.0], [6.0, -4.0], [19.5, -13.0]]
    assert torch.linalg.multi_dot([a, b]).tolist() == [[5.0, -0.5], [2.5, 2.0]]
    assert torch.autograd.gradcheck(lambda p, q: torch.linalg.multi_dot([p, q, p]), (a, b))
    raises(RuntimeError, "multi_dot(): expected at least 2 tensors but got 1", lambda: torch.linalg.multi_dot([a]))
    raises(RuntimeError, "multi_dot(): tensors 0 and 1 with shapes [2] and [3, 2] cannot be multiplied",
           lambda: torch.linalg.multi_dot([v, b, c]))
    raises(RuntimeError, "multi_dot(): tensor 1 must be 2D but got 3D",
           lambda: torch.linalg.multi_dot([a, torch.zeros(2, 2, 2), c]))
    raises(RuntimeError, "multi_dot(): the last tensor must be 1D or 2D but got 3D",
           lambda: torch.linalg.multi_dot([a, torch.zeros(2, 3, 4)]))


def test_renorm_values_gradients_and_errors():
    """PyTorch 2.13.0+cpu (float32: to its rounding)."""
    x = torch.tensor([[1., 2., 2.], [0.1, 0.2, 0.2], [3., 0., 4.]], requires_grad=True)
    out = x.renorm(2, 0, 1.)
    assert out.grad_fn.name() == "RenormBackward0"
    (out * torch.arange(1., 10.).reshape(3, 3)).sum().backward()
    close(out, [[1 / 3, 2 / 3, 2 / 3], [0.1, 0.2, 0.2], [0.6, 0.0, 0.8]])
    close(x.grad, [[-0.0740740597, -0.1481481194, 0.1851852089], [4, 5, 6],
                   [0.0320000276, 1.6000000238, -0.0239999630]], rtol=1e-5, atol=1e-6)
    y = torch.tensor([[3., 4.]])
    y.renorm_(2, 0, 1.)
    close(y, [[0.6, 0.8]])
    z = torch.tensor([[0.3, -1.2, 0.7], [2.0, 0.5, -0.4]], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: torch.renorm(t, 1, 1, 1.5), (z,))
    raises(RuntimeError, "renorm: expected maxnorm to be >= 0 but got -1", lambda: torch.ones(2, 2).renorm(2, 0, -1.))
    raises(RuntimeError, "renorm: non-positive-norm not supported", lambda: torch.ones(2, 2).renorm(-1, 0, 1.))
    raises(RuntimeError, "renorm: input needs at least 2 dimensions, got 1 dimensions",
           lambda: torch.ones(3).renorm(2, 0, 1.))
    raises(RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
           lambda: torch.ones(2, 2, dtype=torch.int64).renorm(2, 0, 1.))


def test_bit_shifts_are_pytorchs():
    i = torch.tensor([1, -8, 255, 3])
    assert (i << 2).tolist() == [4, -32, 1020, 12] and (i >> 1).tolist() == [0, -4, 127, 1]
    assert torch.bitwise_left_shift(i, torch.tensor([0, 1, 2, 70])).tolist() == [1, -16, 1020, 0]
    assert torch.bitwise_right_shift(i, 2).tolist() == [0, -2, 63, 0]
    assert i.bitwise_left_shift(1).tolist() == [2, -16, 510, 6]
    assert (1 << torch.tensor([1, 2])).tolist() == [2, 4] and (256 >> torch.tensor([1, 2])).tolist() == [128, 64]
    u = torch.tensor([1, 2], dtype=torch.uint8) << 7
    assert u.tolist() == [128, 0] and u.dtype == torch.uint8
    assert (torch.tensor([1, 2], dtype=torch.int8) << 7).tolist() == [-128, 0]
    assert (i >> 70).tolist() == [0, -1, 0, 0] and (i >> -1).tolist() == [0, -1, 0, 0]
    assert (torch.tensor([True]) << 1).tolist() == [2]
    j = i.clone()
    j <<= 1
    assert j.tolist() == [2, -16, 510, 6]
    j = i.clone()
    j.bitwise_right_shift_(1)
    assert j.tolist() == [0, -4, 127, 1]
    raises(NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'", lambda: torch.tensor([1.]) << 1)
    raises(NotImplementedError, "\"lshift_cpu\" not implemented for 'Float'", lambda: i << 1.5)


# -- 3. RNG state (gradmagic's own numbers: a state restores them) ---------------------------
def test_rng_state_round_trips():
    torch.manual_seed(3)
    assert torch.initial_seed() == 3 and torch.random.initial_seed() == 3
    state = torch.get_rng_state()
    assert state.dtype == torch.uint8 and state.shape == (37,)
    a = torch.rand(3)
    torch.set_rng_state(state)
    assert torch.equal(a, torch.rand(3))
    with torch.random.fork_rng():
        inside = torch.randn(2)
    assert torch.equal(inside, torch.randn(2))
    g = torch.Generator()
    assert g.initial_seed() == 67280421310721  # PyTorch's default seed
    saved = g.get_state()
    first = torch.randn(4, generator=g)
    g.set_state(saved)
    assert torch.equal(first, torch.randn(4, generator=g))
    assert not torch.equal(first, torch.randn(4, generator=g))
    raises(TypeError, "RNG state must be a torch.ByteTensor", lambda: torch.set_rng_state(torch.zeros(3)))
    raises(TypeError, "expected a torch.ByteTensor, but got list", lambda: torch.set_rng_state([1, 2]))
    raises(RuntimeError, "Expected a CPUGeneratorImplState of size 37 but found the input RNG state size "
           "to be 3", lambda: g.set_state(torch.zeros(3, dtype=torch.uint8)))


# -- 4. PyTorch's refusals ---------------------------------------------------------------------
def test_integer_powers_and_means_are_refused_as_pytorch_refuses_them():
    """PyTorch 2.13.0+cpu's messages; a tensor exponent gives its integer answers."""
    raises(RuntimeError, "Integers to negative integer powers are not allowed.", lambda: torch.tensor([1, 2]) ** -1)
    raises(RuntimeError, "Integers to negative integer powers are not allowed.", lambda: torch.tensor([1, 2]).pow(-2))
    assert (torch.tensor([1, 2]) ** torch.tensor([1, -1])).tolist() == [1, 0]
    assert (torch.tensor([-1, -1, 3]) ** torch.tensor([-3, -2, 2])).tolist() == [-1, 1, 9]
    assert (2 ** torch.tensor([1, -1])).tolist() == [2, 0]
    assert (torch.tensor([1, 2]) ** -1.0).tolist() == [1.0, 0.5]
    message = ("mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
               "dtype. Got: {}")
    raises(RuntimeError, message.format("Long"), lambda: torch.tensor([1, 2]).mean())
    raises(RuntimeError, message.format("Int"), lambda: torch.tensor([1, 2], dtype=torch.int32).mean(0))
    raises(RuntimeError, message.format("Bool"), lambda: torch.tensor([True]).mean())
    raises(RuntimeError, message.format("Long"), lambda: torch.mean(torch.tensor([1, 2])))
    assert torch.tensor([1, 2]).mean(dtype=torch.float32).item() == 1.5


def test_detach_in_place_of_a_view_is_refused():
    message = ("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
               "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
               "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
               "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
    w = torch.ones(3, requires_grad=True)
    raises(RuntimeError, message, lambda: (w * 2)[:2].detach_())
    raises(RuntimeError, message, lambda: torch.zeros(4)[1:3].detach_())
    raises(RuntimeError, message, lambda: torch.zeros(4).view(2, 2).detach_())
    y = w * 2
    assert y.detach_() is y and not y.requires_grad


def test_gradcheck_and_embedding_messages():
    raises(ValueError, "gradcheck expects at least one input tensor to require gradient, but none of them "
           "have requires_grad=True.",
           lambda: torch.autograd.gradcheck(lambda x: x * 2, (torch.zeros(2, dtype=torch.float64),)))
    with pytest.raises(NotImplementedError, match=r"^embedding\(scale_grad_by_freq=True\) is not supported"):
        F.embedding(torch.tensor([0]), torch.ones(2, 2), scale_grad_by_freq=True)


def test_embedding_max_norm_renormalizes_the_rows_looked_up_in_place():
    # PyTorch 2.13.0+cpu, the same code: rows 0 and 3 (norms 5 and 10) are scaled to norm 1
    # in the weight itself (its version 1), row 1 (0.5) and row 2 (not looked up) kept; the
    # gradient flows as through a plain lookup; norm_type 1 scales [3, 4] by 2 / 7
    w = torch.tensor([[3.0, 4.0], [0.3, 0.4], [1.0, 2.0], [6.0, 8.0]], requires_grad=True)
    out = F.embedding(torch.tensor([[0, 1], [0, 3]]), w, max_norm=1.0)
    assert type(out.grad_fn).__name__ == "EmbeddingBackward0" and w._version == 1
    np.testing.assert_allclose(w.detach().numpy(), [[0.6, 0.8], [0.3, 0.4], [1.0, 2.0], [0.6, 0.8]], rtol=1e-6)
    np.testing.assert_allclose(out.detach().numpy(), [[[0.6, 0.8], [0.3, 0.4]], [[0.6, 0.8], [0.6, 0.8]]],
                               rtol=1e-6)
    (out * torch.arange(8.0).reshape(2, 2, 2)).sum().backward()
    assert w.grad.tolist() == [[4.0, 6.0], [2.0, 3.0], [0.0, 0.0], [6.0, 7.0]]
    w2 = torch.tensor([[3.0, 4.0], [1.0, 1.0]])
    F.embedding(torch.tensor([0, 1]), w2, max_norm=2.0, norm_type=1.0)
    np.testing.assert_allclose(w2.numpy(), [[0.857143, 1.142857], [1.0, 1.0]], rtol=1e-6)


def test_contiguous_copies_a_transposed_tensor_and_view_refuses_one():
    # PyTorch 2.13.0+cpu, the same code: contiguous() of a transpose is a copy named
    # CloneBackward0 (of a contiguous tensor, itself), so a reshape of it is a view; view()
    # of a layout it cannot view is PyTorch's RuntimeError (it was accepted, as a copy)
    x = torch.arange(6.0).reshape(2, 3).requires_grad_()
    c = x.t().contiguous()
    assert type(c.grad_fn).__name__ == "CloneBackward0" and c.is_contiguous() and x.contiguous() is x
    assert type(c.reshape(-1).grad_fn).__name__ == "ViewBackward0"
    assert type(x.t().view(3, 2).grad_fn).__name__ == "ViewBackward0"
    assert type(x.t().view(3, 2, 1).grad_fn).__name__ == "ViewBackward0"
    for call in (lambda: x.t().view(6), lambda: x[:, ::2].view(4)):
        with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor's size and "
                                               r"stride \(at least one dimension spans across two contiguous "
                                               r"subspaces\)\. Use \.reshape\(\.\.\.\) instead\.$"):
            call()
    c.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_a_regression_loss_warns_where_target_and_input_sizes_differ():
    # PyTorch 2.13.0+cpu, the same code: mse_loss, l1_loss, smooth_l1_loss and huber_loss of a
    # (3, 1) input and a (3,) target (which broadcast to (3, 3), the classic silent mistake)
    # warn at the caller's line; binary_cross_entropy refuses in its own words
    x, y = torch.ones(3, 1, requires_grad=True), torch.ones(3)
    F_ = torch.nn.functional
    for loss in (F_.mse_loss, F_.l1_loss, F_.smooth_l1_loss, F_.huber_loss):
        with pytest.warns(UserWarning, match=r"^Using a target size \(torch\.Size\(\[3\]\)\) that is different "
                                             r"to the input size \(torch\.Size\(\[3, 1\]\)\)\. This will "
                                             r"likely lead to incorrect results due to broadcasting\.") as seen:
            loss(x, y)
        assert seen[0].filename == __file__
    with pytest.raises(ValueError, match=r"^Using a target size \(torch\.Size\(\[3\]\)\) that is different to "
                                         r"the input size \(torch\.Size\(\[3, 1\]\)\) is deprecated\. Please "
                                         r"ensure they have the same size\.$"):
        F_.binary_cross_entropy(torch.full((3, 1), 0.5), y)
