"""gradmagic.torch at PyTorch's edges, where NumPy answers otherwise: in-place fills in
grad mode, the rounding functions' zero gradient, bitwise operators on integers, NaN in
relu, sign and sort, erfc far out, reductions over ``dim=()``, ``clamp`` with bounds the
wrong way round, ``dtype=`` on reductions, bool and byte inputs to float functions, and a
cross-entropy whose every target is ignored.

Each case is PyTorch code on the namespace ``T``; the expected results are what PyTorch
2.13.0+cpu printed running the same function with ``T = torch`` (the ``repr`` of each
result, pasted below). Before these, gradmagic gave a silent wrong answer for every case
but the last group, which raised where PyTorch runs.
"""

import numpy as np
import pytest
from _cases import same_as_printed as same

import gradmagic.torch as torch

NAN = float("nan")


def grad_of(T, f, vals):
    x = T.tensor(vals, requires_grad=True, dtype=T.float64)
    f(T, x).sum().backward()
    return x.grad.tolist()


def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def zeroed_without_grad(T):
    x = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    y = x * 2
    with T.no_grad():
        y.zero_()  # a change the graph does not see: the gradient is that of x * 2
    (y * y).sum().backward()  # (y is 0 now, so its square's gradient is 0)
    z = x * 3
    with T.no_grad():
        z.fill_(1.0)
    z.sum().backward()
    return [y.tolist(), x.grad.tolist()]


def clamped(T):
    x, lo, hi = (T.tensor(v, dtype=T.float64, requires_grad=True) for v in
                 ([2.0, 1.0, 5.0, 2.7], [3.0, 0.0, 0.0, 3.0], [2.5, 2.0, 4.0, 2.5]))
    T.clamp(x, lo, hi).sum().backward()
    return T.clamp(x, lo, hi).tolist(), x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()


def all_ignored(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    loss = T.nn.functional.cross_entropy(x, T.tensor([-100, -100]))
    loss.backward()
    return loss.item(), x.grad.tolist()


CASES = {  # name: (the case, what PyTorch 2.13.0 gave)
    "zero_": (lambda T: grad_of(T, lambda T, x: (x * 2).zero_() + x * x, [1.0, 2.0]), [2.0, 4.0]),
    "fill_": (lambda T: grad_of(T, lambda T, x: (x * 2).fill_(3.0) * x, [1.0, 2.0]), [3.0, 3.0]),
    "fill_-view": (lambda T: grad_of(T, lambda T, x: (lambda y: (y[0].fill_(5.0), y)[1])(x * 3), [1.0, 2.0]),
                   [0.0, 3.0]),
    "fill_-tensor-value": (lambda T: (lambda v: ((T.zeros(3, dtype=T.float64).fill_(v) * T.tensor(
        [1.0, 2.0, 4.0], dtype=T.float64)).sum().backward(), v.grad.item())[1])(
        T.tensor(2.0, dtype=T.float64, requires_grad=True)), 7.0),
    "zero_-no_grad": (zeroed_without_grad, [[0.0, 0.0], [3.0, 3.0]]),
    "floor-ceil-trunc-round": (lambda T: grad_of(
        T, lambda T, x: x.floor() + x.ceil() * 2 + x.trunc() + x.round() + x * x, [1.5, -0.5, 2.5]),
        [3.0, -1.0, 5.0]),
    "floor-requires_grad": (lambda T: [T.tensor([1.5], requires_grad=True).floor().requires_grad,
                                       T.tensor([1.5]).floor().requires_grad], [True, False]),
    "bitwise-ints": (lambda T: [(~T.tensor([5, -6])).tolist(), (T.tensor([5, 6]) & T.tensor([3, 3])).tolist(),
                                (T.tensor([5, 6]) | 8).tolist(), (T.tensor([5, 6]) ^ T.tensor([1, 7])).tolist(),
                                (~T.tensor([True, False])).tolist(), (T.tensor([True, False]) ^ True).tolist()],
                     [[-6, 5], [1, 2], [13, 14], [4, 1], [False, True], [False, True]]),
    "relu-nan": (lambda T: [T.relu(T.tensor([NAN, -1.0, 0.0, 2.0])).tolist(),
                            T.nn.functional.relu(T.tensor([NAN, 1.0])).tolist(), T.tensor([NAN]).relu().tolist()],
                 [[NAN, 0.0, 0.0, 2.0], [NAN, 1.0], [NAN]]),
    "relu-grad": (lambda T: grad_of(T, lambda T, x: T.relu(x) * 3, [NAN, -1.0, 0.0, 2.0]), [3.0, 0.0, 0.0, 3.0]),
    "sign-nan": (lambda T: [T.sign(T.tensor([NAN, -2.0, 0.0, 3.0])).tolist(), T.tensor([-2, 0, 3]).sign().tolist()],
                 [[0.0, -1.0, 0.0, 1.0], [-1, 0, 1]]),
    "erfc": (lambda T: [T.erfc(T.tensor([0.5, 5.0, 9.0], dtype=T.float64)).tolist(), T.erfc(T.tensor([5.0])).tolist()],
             [[0.4795001221869535, 1.537459794428035e-12, 4.13703174651381e-37], [1.5374598295869735e-12]]),
    "erfc-grad": (lambda T: grad_of(T, lambda T, x: T.erfc(x), [0.5, 3.0]),
                  [-0.8787825789354448, -0.00013925305194674786]),
    "reduce-over-()": (lambda T: [T.tensor([[1.0, 2.0], [3.0, 4.0]]).sum(dim=()).tolist(),
                                  T.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(dim=[]).tolist(),
                                  T.tensor([[1.0, 2.0], [3.0, 4.0]]).amax(dim=()).tolist(),
                                  T.tensor([[1.0, 2.0], [3.0, 5.0]]).var(dim=()).item()],
                       [10.0, 2.75, 4.0, 2.9166667461395264]),
    "clamp-min-above-max": (clamped, ([2.5, 1.0, 4.0, 2.5], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                                      [1.0, 0.0, 1.0, 1.0])),
    "sum-dtype": (lambda T: [T.tensor([1e8, 1.0, -1e8]).sum(dtype=T.float64).item(),
                             dtype_name(T.tensor([200, 100], dtype=T.uint8).sum()),
                             T.tensor([200, 100], dtype=T.uint8).sum().item(), dtype_name(T.tensor([True, True]).sum()),
                             dtype_name(T.tensor([2, 3], dtype=T.int32).prod()),
                             dtype_name(T.tensor([1, 2], dtype=T.int32).cumsum(0)),
                             T.tensor([1e8, 1.0, -1e8]).cumsum(0, dtype=T.float64).tolist()],
                  [1.0, "int64", 300, "int64", "int64", "int64", [100000000.0, 100000001.0, 1.0]]),
    "sort-descending": (lambda T: [T.sort(T.tensor([3.0, NAN, 1.0, 3.0]), descending=True)[0].tolist(),
                                   T.sort(T.tensor([3.0, NAN, 1.0, 3.0]), descending=True, stable=True)[1].tolist(),
                                   T.argsort(T.tensor([3.0, NAN, 1.0]), descending=True).tolist(),
                                   T.argsort(T.tensor([0, -2 ** 63, 5]), descending=True).tolist(),
                                   T.sort(T.tensor([[2.0, 5.0], [7.0, 1.0]]), dim=0, descending=True)[1].tolist()],
                        [[NAN, 3.0, 3.0, 1.0], [1, 0, 3, 2], [1, 0, 2], [2, 0, 1], [[1, 0], [0, 1]]]),
    "bool-and-byte-to-float": (lambda T: [(dtype_name(r), r.tolist()) for r in (
        T.exp(T.tensor([True, False])), T.sqrt(T.tensor([1, 200], dtype=T.uint8)), T.cos(T.tensor([True])))],
        [("float32", [2.7182817459106445, 1.0]), ("float32", [1.0, 14.142135620117188]),
         ("float32", [0.5403023362159729])]),
    "cross_entropy-all-ignored": (all_ignored, (NAN, [[0.0, 0.0], [0.0, 0.0]])),
    # raised before: keepdim, flip's separate dims, softmax's dtype
    "all-any-flip-softmax": (lambda T: [T.tensor([[True, False], [True, True]]).all(1, keepdim=True).tolist(),
                                        T.tensor([[True, False], [False, False]]).any(dim=0).tolist(),
                                        T.tensor([[1.0, 2.0], [3.0, 4.0]]).flip(0, 1).tolist(),
                                        dtype_name(T.nn.functional.softmax(T.tensor([1.0, 2.0]), 0, dtype=T.float64)),
                                        dtype_name(T.tensor([1.0, 2.0]).log_softmax(0, dtype=T.float64)),
                                        list(T.tensor([[True, False]]).all(dim=()).shape)],
                             [[[False], [True]], [True, False], [[4.0, 3.0], [2.0, 1.0]], "float64", "float64",
                              [1, 2]]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_pytorch(name):
    case, want = CASES[name]
    got = case(torch)
    assert same(got, want), f"{name}: got {got!r}, PyTorch 2.13.0 gave {want!r}"


def test_grad_fn_names_are_pytorchs():
    x = torch.tensor([1.5], requires_grad=True)
    names = [f.name() for f in ((x * 1).fill_(2.0).grad_fn, (x * 1).zero_().grad_fn, x.floor().grad_fn,
                                x.round(decimals=1).grad_fn, (x * 1).fill_(torch.tensor(2.0)).grad_fn)]
    assert names == ["FillBackward2", "ZeroBackward0", "FloorBackward0", "RoundBackward1", "FillBackward3"]


def test_fill_refuses_what_pytorch_refuses():
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        torch.zeros(2).fill_(torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        torch.zeros(2, requires_grad=True).zero_()


def test_descending_order_is_that_of_a_stable_sort_from_the_largest():
    rng = np.random.default_rng(3)
    for _ in range(20):
        v = rng.integers(-3, 4, size=(5, 4)).astype(float)
        v[rng.random(v.shape) < 0.15] = np.nan
        for dim in (0, 1, -1):
            got = torch.tensor(v).sort(dim=dim, descending=True, stable=True)[1].value
            keys = np.where(np.isnan(v), np.inf, v)  # NaN counts as the largest
            want = np.argsort(-keys, axis=dim, kind="stable")
            np.testing.assert_array_equal(got, want)


def test_an_index_naming_an_element_twice_writes_the_last_value():
    """PyTorch 2.13.0: ``x[[0, 0]] = tensor([1., 2.])`` leaves ``[2., 0., 0.]`` (the engine
    added the two: 3). The gradient is that of the value written: the value overwritten
    gets none. (PyTorch gives each of the two the element's gradient, [3., 3.] below, which
    no change of the first value could show: its index_put_ leaves repeated indices
    undefined.)"""
    x = torch.zeros(3)
    x[[0, 0]] = torch.tensor([1.0, 2.0])
    assert x.tolist() == [2.0, 0.0, 0.0]
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.zeros(3) * 1
    y[torch.tensor([2, 2])] = w
    (y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert w.grad.tolist() == [0.0, 3.0]


def test_more_methods_as_pytorchs():
    """``pow_``, ``relu_``, ``sigmoid_``, ``movedim``, ``Tensor.where``, ``unflatten``,
    ``index_add`` and ``count_nonzero`` (each raised AttributeError); the numbers are what
    PyTorch 2.13.0 printed for the same lines."""
    x = torch.tensor([[0.5, -1.0, 0.0], [2.0, 0.0, 3.0]], requires_grad=True)
    y = x * 1
    y.pow_(2)
    y.relu_()
    z = (y * 1).sigmoid_()
    b = x.where(x > 0, torch.tensor(-1.0))
    d = x.index_add(0, torch.tensor([1, 1]), torch.ones(2, 3))
    loss = z.sum() + x.movedim(0, 1).sum() * 2 + b.sum() + x.reshape(6).unflatten(0, (2, 3)).sum() + d.sum()
    loss.backward()
    assert (x.count_nonzero().item(), x.count_nonzero(dim=1).tolist()) == (4, [2, 2])
    assert y.grad_fn.name() == "ReluBackward0" and b.grad_fn.name() == "WhereBackward0"
    assert b.tolist() == [[0.5, -1.0, -1.0], [2.0, -1.0, 3.0]]
    assert d.tolist() == [[0.5, -1.0, 0.0], [4.0, 2.0, 5.0]]
    assert same(x.grad.tolist(), [[5.246134281158447, 3.606776237487793, 4.0],
                                  [5.070651054382324, 4.0, 5.000740051269531]])
    assert list(x.movedim(0, 1).shape) == [3, 2] and list(x.reshape(6).unflatten(0, (2, -1)).shape) == [2, 3]


def test_matrix_transposes_refuse_vectors_in_pytorchs_words():
    # (x.mT of a vector raised a bare IndexError from inside the engine; mH and H were missing)
    v, m, b = torch.zeros(3), torch.zeros(2, 3), torch.zeros(4, 2, 3)
    for name, message in (("mT", "tensor.mT is only supported on matrices or batches of matrices. "
                                 "Got 1-D tensor."),
                          ("mH", "tensor.mH is only supported on matrices or batches of matrices. "
                                 "Got 1-D tensor."),
                          ("H", "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor.")):
        with pytest.raises(RuntimeError) as e:
            getattr(v, name)
        assert str(e.value) == message
    assert tuple(m.mH.shape) == tuple(m.H.shape) == (3, 2) and tuple(b.mH.shape) == (4, 3, 2)
    with pytest.raises(RuntimeError, match="Got 3-D tensor"):
        b.H


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * 2 * x


def test_an_old_style_function_call_gets_pytorchs_legacy_error():
    # (Square()(x), as pre-1.3 tutorials wrote it, was "'Square' object is not callable")
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward method "
                                           "is deprecated.*call _Square.apply"):
        _Square()(torch.tensor([1.0], requires_grad=True))


def test_grad_fn_saved_tensors_reads_what_forward_saved_until_backward_frees_it():
    x = torch.tensor([3.0], requires_grad=True)
    y = _Square.apply(x)
    assert y.grad_fn.saved_tensors[0] is x
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_a_numpy_gradient_from_backward_is_pytorchs_runtime_error():
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output.numpy() * 2
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got numpy.ndarray\)"):
        Twice.apply(torch.tensor([1.0], requires_grad=True)).sum().backward()


@pytest.mark.parametrize("name, args, want", [  # PyTorch 2.13.0: the gradient and the second derivative
    ("sin_", (), ([0.955336489125606, 0.7648421872844885], [-0.29552020666133955, -0.644217687237691])),
    ("tanh_", (), ([0.9151369618266292, 0.6347395899824586], [-0.5331818782014544, -0.7672323100919166])),
    ("exp_", (), ([1.3498588075760032, 2.0137527074704766], [1.3498588075760032, 2.0137527074704766])),
    ("pow_", (3,), ([0.27, 1.47], [1.8, 4.2]))])
def test_a_double_backward_goes_through_an_in_place_op(name, args, want):
    # (the first-order gradient through y.sin_() did not require grad: its rule's input was a
    # stand-in for y's old value that led nowhere)
    x = torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)
    y = x * 1
    getattr(y, name)(*args)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x)
    assert same([g.tolist(), gg.tolist()], [list(want[0]), list(want[1])])


def test_relu_is_one_row_named_relu_in_a_trace():
    # (F.relu and torch.relu showed as the `where` they are made of)
    import gradmagic as gm
    x = torch.tensor([-1.0, 2.0], requires_grad=True)
    with gm.trace() as tr:
        (torch.nn.functional.relu(x) + torch.relu(x) + x.relu()).sum().backward()
    assert [r.node for r in tr.forward] == ["relu", "relu", "add", "relu", "add", "sum"]
    assert x.grad.tolist() == [0.0, 3.0]


def test_a_constant_written_in_place_in_grad_mode_cuts_the_old_gradient():
    # PyTorch 2.13.0: a.grad [0, 0] and CopyBackwards / NormalBackward0 / UniformBackward0;
    # before, copy_ of a constant and normal_ passed the old values' gradient through ([6, 6])
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    for write, name in ((lambda y: y.copy_(torch.tensor([5.0, 6.0])), "CopyBackwards"),
                        (lambda y: y.normal_(), "NormalBackward0"),
                        (lambda y: y.uniform_(), "UniformBackward0")):
        a.grad = None
        y = a * 2
        write(y)
        (y * 3).sum().backward()
        assert a.grad.tolist() == [0.0, 0.0] and str(y.grad_fn) == f"<{name}>"
    y = a * 2
    with torch.no_grad():  # under no_grad a change the graph does not see, as PyTorch's
        y.copy_(torch.tensor([5.0, 6.0]))
    a.grad = None
    (y * 3).sum().backward()
    assert a.grad.tolist() == [6.0, 6.0]
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an "
                                           "in-place operation"):
        torch.empty(3, requires_grad=True).normal_()


def test_backward_gets_one_gradient_per_output_none_for_those_that_are_not_tensors():
    # PyTorch 2.13.0+cpu: backward(ctx, g, None, zeros, None) when only y is used, and the
    # used z's gradient in its place; x.grad [2., 2.] and then [5., 5.]
    seen = []

    class Mixed(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5, x * 3, "a"

        @staticmethod
        def backward(ctx, g, k, h, s):
            seen.append((k, s, h.tolist()))
            return g * 2 + h * 3

    x = torch.ones(2, requires_grad=True)
    y, k, z, s = Mixed.apply(x)
    assert (k, s) == (5, "a")
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and seen == [(None, None, [0.0, 0.0])]
    x.grad = None
    y, k, z, s = Mixed.apply(x)
    (y.sum() + z.sum()).backward()
    assert x.grad.tolist() == [5.0, 5.0] and seen[-1] == (None, None, [1.0, 1.0])
