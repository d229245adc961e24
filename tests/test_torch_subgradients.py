"""Where a derivative does not exist, PyTorch's choice, not nan (gradmagic/torch/subgradients.py,
``F.binary_cross_entropy``); and ``inference_mode``. Every number is PyTorch 2.13.0+cpu's for
the same call (float64 unless said)."""

import warnings

import numpy as np
import pytest

import gradmagic.torch as torch

F = torch.nn.functional
X = [[0.0, 0.0, 0.0], [3.0, -4.0, 1.0]]  # a zero row
R = [0.588348, -0.784465, 0.196116]  # x / |x| of the second row

NORMS = {  # PyTorch 2.13.0: (value, gradient of its sum), rounded to 6 places
    "norm": (lambda x: x.norm(), 5.09902, [[0.0] * 3, R]),
    "torch.norm": (lambda x: torch.norm(x), 5.09902, [[0.0] * 3, R]),
    "dim1": (lambda x: x.norm(dim=1), [0.0, 5.09902], [[0.0] * 3, R]),
    "dim1-keepdim": (lambda x: x.norm(dim=1, keepdim=True), [[0.0], [5.09902]], [[0.0] * 3, R]),
    "torch.norm-dim1": (lambda x: torch.norm(x, dim=1), [0.0, 5.09902], [[0.0] * 3, R]),
    "fro-dim1": (lambda x: x.norm(p="fro", dim=1), [0.0, 5.09902], [[0.0] * 3, R]),
    "dim0": (lambda x: x.norm(dim=0), [3.0, 4.0, 1.0], [[0.0] * 3, [1.0, -1.0, 1.0]]),
    "p1-dims01": (lambda x: x.norm(p=1, dim=(0, 1)), 8.0, [[0.0] * 3, [1.0, -1.0, 1.0]]),  # was 4.0
    "p3-dim1": (lambda x: x.norm(p=3, dim=1), [0.0, 4.514357], [[0.0] * 3, [0.441622, -0.785106, 0.049069]]),
    "p0.5-dim1": (lambda x: x.norm(p=0.5, dim=1), [0.0, 22.392305], [[0.0] * 3, [2.732051, -2.366025, 4.732051]]),
    "pinf-dim1": (lambda x: x.norm(p=float("inf"), dim=1), [0.0, 4.0], [[0.0] * 3, [0.0, -1.0, 0.0]]),
    "nuc": (lambda x: x.norm(p="nuc"), 5.09902, [[0.808608, 0.570782, -0.142695], R]),
}


@pytest.mark.parametrize("name", list(NORMS))
def test_norm_gradient_is_zero_where_the_norm_is_zero(name, cases=NORMS):
    f, value, gradient = cases[name]
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no NumPy warning of a division by 0 on the way
        y = f(x)
        y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), value, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), gradient, atol=1e-6)


def test_the_norm_of_zeros_has_gradient_zero():
    x = torch.zeros(2, requires_grad=True)
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0]  # PyTorch 2.13.0: tensor([0., 0.])
    assert repr(x.norm().grad_fn) == "<LinalgVectorNormBackward0>"  # PyTorch's grad_fn name


def test_norm_second_derivative_is_finite_at_zero():
    x = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(x.norm(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


STDS = {  # PyTorch 2.13.0: (value, gradient of its sum)
    "ones": (lambda x: x[0].std(), 0.0, [[0.0] * 3, [0.0] * 3]),
    "dim1": (lambda x: x.std(dim=1), [0.0, 3.605551], [[0.0] * 3, [0.416025, -0.5547, 0.138675]]),
    "dim1-biased": (lambda x: x.std(dim=1, unbiased=False), [0.0, 2.94392], [[0.0] * 3, [0.339683, -0.452911, 0.113228]]),
    "dim1-keepdim": (lambda x: x.std(dim=1, keepdim=True), [[0.0], [3.605551]], [[0.0] * 3, [0.416025, -0.5547, 0.138675]]),
    "var-dim1": (lambda x: x.var(dim=1), [0.0, 13.0], [[0.0] * 3, [3.0, -4.0, 1.0]]),
}


@pytest.mark.parametrize("name", list(STDS))
def test_std_gradient_is_zero_where_std_is_zero(name):
    test_norm_gradient_is_zero_where_the_norm_is_zero(name, STDS)


def test_the_std_of_ones_has_gradient_zero():
    x = torch.ones(2, requires_grad=True)
    y = x.std()
    y.backward()
    assert x.grad.tolist() == [0.0, 0.0] and repr(y.grad_fn) == "<StdBackward0>"  # PyTorch 2.13.0


inf, nan = float("inf"), float("nan")
NO_DOF = {  # PyTorch 2.13.0, float32 and float64 alike: value, gradient of its sum, warning's fn
    "var-one": ([1.0], lambda x: x.var(), nan, [nan], "var"),
    "std-one": ([1.0], lambda x: x.std(), nan, [nan], "std"),
    "var-correction2": ([1.0, 2.0], lambda x: x.var(correction=2), inf, [inf, inf], "var"),
    "var-correction2-equal": ([1.0, 1.0], lambda x: x.var(correction=2), nan, [nan, nan], "var"),
    "var-correction3": ([1.0, 2.0], lambda x: x.var(correction=3), inf, [inf, inf], "var"),
    "std-correction2": ([1.0, 2.0], lambda x: x.std(correction=2), inf, [nan, nan], "std"),
    "var-dim": ([[1.0], [2.0]], lambda x: x.var(dim=1), [nan, nan], [[nan], [nan]], "var"),
    "var-dim-correction2": ([[1.0, 3.0], [2.0, 2.0]], lambda x: x.var(dim=1, correction=2), [inf, nan],
                            [[-inf, inf], [nan, nan]], "var"),
    "var-dim-correction3": ([[1.0, 3.0], [2.0, 2.0]], lambda x: x.var(dim=1, correction=3, keepdim=True),
                            [[inf], [nan]], [[2.0, -2.0], [0.0, 0.0]], "var"),
    "std-dim": ([[1.0], [2.0]], lambda x: x.std(dim=1), [nan, nan], [[nan], [nan]], "std"),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(NO_DOF))
def test_no_degrees_of_freedom_warn_and_give_pytorchs_nan_or_inf(name, dtype):
    data, f, value, gradient, fn = NO_DOF[name]
    x = torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True)
    with pytest.warns(UserWarning, match=rf"^{fn}\(\): degrees of freedom is <= 0\. Correction should be "
                                         r"strictly less than the reduction factor \(input numel divided "
                                         r"by output numel\)\.") as record:
        y = f(x)
    assert record[0].filename == __file__  # the warning points at the caller's line
    y.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), value)
    np.testing.assert_array_equal(x.grad.numpy(), gradient)
    assert x.grad.dtype == getattr(torch, dtype)


# PyTorch 2.13.0: F.binary_cross_entropy(p, z, weight=w, reduction=...) with p holding 0 and 1
P = [0.0, 1.0, 0.5, 1.0, 0.0, 0.3]
Z = [0.0, 1.0, 1.0, 0.0, 1.0, 0.25]
W = [1.0, 2.0, 3.0, 0.5, 1.5, 2.0]
BCE = {  # (dtype, reduction, weighted): value (the sum for "none"), d/dp, d/dz
    ("float64", "mean", False): (33.54360776493258,
                                 [0.0, 0.0, -0.3333333333333333, 166666667332.63382, -166666667332.63382,
                                  0.03968253968253967],
                                 [inf, -inf, 0.0, -inf, inf, 0.14121631006453392]),
    ("float64", "sum", True): (203.21644035975092,
                               [0.0, 0.0, -6.0, 500000001997.9014, -1500000005993.7043, 0.4761904761904761],
                               [inf, -inf, 0.0, -inf, inf, 1.6945957207744071]),
    ("float64", "none", False): (201.2616465895955,
                                 [0.0, 0.0, -2.0, 1000000003995.8029, -1000000003995.8029, 0.23809523809523805],
                                 [inf, -inf, 0.0, -inf, inf, 0.8472978603872036]),
    ("float32", "mean", False): (33.54360580444336,
                                 [0.0, 0.0, -0.3333333432674408, 166666665984.0, -166666665984.0,
                                  0.039682548493146896],
                                 [inf, -inf, 0.0, -inf, inf, 0.14121629297733307]),
    ("float32", "mean", True): (33.86940383911133,
                                [0.0, 0.0, -1.0, 83333332992.0, -249999998976.0, 0.07936509698629379],
                                [inf, -inf, 0.0, -inf, inf, 0.28243258595466614]),
}


@pytest.mark.parametrize("key", list(BCE), ids=lambda k: "-".join(map(str, k)))
def test_binary_cross_entropy_at_0_and_1_is_pytorchs(key):
    dtype, reduction, weighted = key
    value, d_p, d_z = BCE[key]
    dt = getattr(torch, dtype)
    p = torch.tensor(P, dtype=dt, requires_grad=True)
    z = torch.tensor(Z, dtype=dt, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy "divide by zero encountered in log"
        loss = F.binary_cross_entropy(p, z, weight=torch.tensor(W, dtype=dt) if weighted else None,
                                      reduction=reduction)
        total = loss.sum() if reduction == "none" else loss
        total.backward()
    rtol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(total.item(), value, rtol=rtol)
    np.testing.assert_allclose(p.grad.numpy(), d_p, rtol=rtol)
    np.testing.assert_allclose(z.grad.numpy(), d_z, rtol=rtol)
    assert "BinaryCrossEntropyBackward0" in repr(loss.grad_fn)


def test_inference_mode_false_keeps_gradients_on():
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode(False):
        y = x * 2
        assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert y.requires_grad and not y.is_inference()  # PyTorch 2.13.0: True, False


def test_inference_mode_makes_inference_tensors_and_records_nothing():
    """PyTorch 2.13.0: inside, grad mode off and inference mode on; results and factories are
    inference tensors; ``enable_grad`` inside records nothing still; ``inference_mode(False)``
    inside turns both back; under ``no_grad``, ``inference_mode(False)`` turns grad mode on."""
    x = torch.ones(2, requires_grad=True)
    with torch.inference_mode():
        y, z = x * 2, torch.ones(2)
        assert not torch.is_grad_enabled() and torch.is_inference_mode_enabled()
        assert not y.requires_grad and y.is_inference() and z.is_inference()
        with torch.enable_grad():
            w = x * 2
            assert torch.is_grad_enabled() and not w.requires_grad and w.is_inference()
        with torch.inference_mode(False):
            w = x * 2
            assert w.requires_grad and not w.is_inference() and not torch.is_inference_mode_enabled()
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert not x.is_inference() and not (x * 2).is_inference()
    with torch.no_grad():
        with torch.inference_mode(False):
            assert torch.is_grad_enabled() and (x * 2).requires_grad
        assert not torch.is_grad_enabled()


@pytest.mark.parametrize("form", ["call", "bare", "false"])
def test_inference_mode_decorates(form):
    x = torch.ones(2, requires_grad=True)

    def f():
        return x * 2
    wrapped = {"call": torch.inference_mode()(f), "bare": torch.inference_mode(f),
               "false": torch.inference_mode(False)(f)}[form]
    y = wrapped()
    assert y.is_inference() is (form != "false") and y.requires_grad is (form == "false")


def test_a_decorated_generator_runs_each_step_in_the_mode_and_the_reader_outside_it():
    # PyTorch 2.13.0+cpu, the same code: the targets a @no_grad generator yields are
    # constants, so x.grad is [6, 12] (before, they carried gradient: [8, 16] would be wrong
    # by x's share through them); sends, throws, close and the return value pass through
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    @torch.no_grad()
    def targets():
        for k in range(2):
            yield x * (k + 2)
    loss = 0
    for t in targets():
        assert not t.requires_grad and torch.is_grad_enabled()
        loss = loss + ((x * 3 - t) ** 2).sum()
    loss.backward()
    assert x.grad.tolist() == [6.0, 12.0]

    @torch.inference_mode(mode=False)  # (the keyword was a TypeError)
    def plain():
        yield torch.is_inference_mode_enabled()
    assert next(plain()) is False

    @torch.no_grad
    def talk():
        got = yield torch.is_grad_enabled()
        try:
            yield got, torch.is_grad_enabled()
        except ValueError as e:
            yield str(e), torch.is_grad_enabled()
        return "done"
    g = talk()
    assert next(g) is False and g.send(10) == (10, False) and g.throw(ValueError("v")) == ("v", False)
    with pytest.raises(StopIteration) as stop:
        next(g)
    assert stop.value.value == "done" and torch.is_grad_enabled()


def test_at_nan_maximum_gives_both_sides_the_gradient_and_max_the_nan_elements():
    # PyTorch 2.13.0+cpu, the same code: maximum/minimum and max(other) give 1 to both sides
    # where one is NaN (0.5 at a tie); a full max()/min() of data holding NaN is NaN, and
    # its gradient is shared by the NaN elements (every element's was NaN before)
    nan = float("nan")

    def grad(f, values):
        x = torch.tensor(values, requires_grad=True)
        y = f(x)
        (y if y.dim() == 0 else y.sum()).backward()
        return x.grad.tolist()
    other = torch.tensor([1.0, nan, 1.0])
    for f in (lambda x: torch.maximum(x, other), lambda x: x.max(other)):
        assert grad(f, [nan, 1.0, 2.0]) == [1.0, 1.0, 1.0]
    assert grad(lambda x: torch.minimum(x, other), [nan, 1.0, 2.0]) == [1.0, 1.0, 0.0]
    assert grad(lambda x: torch.maximum(x, torch.tensor([2.0, 1.0, 1.0])), [2.0, 3.0, 0.0]) == [0.5, 1.0, 0.0]
    assert grad(lambda x: x.max(), [nan, 1.0, 2.0]) == [1.0, 0.0, 0.0]
    assert grad(lambda x: x.max(), [nan, 1.0, nan]) == [0.5, 0.0, 0.5]
    assert grad(lambda x: x.min(), [nan, 1.0, 2.0]) == [1.0, 0.0, 0.0]
    assert grad(lambda x: x.max(), [2.0, 1.0, 2.0]) == [0.5, 0.0, 0.5]
    x = torch.tensor([nan, 1.0], requires_grad=True)
    assert np.isnan(x.max().item()) and type(x.max().grad_fn).__name__ == "MaxBackward1"
    assert type(x.min().grad_fn).__name__ == "MinBackward1" and torch.tensor([1, 2]).max().item() == 2
