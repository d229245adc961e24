"""gradmagic.torch where PyTorch users' programs differed from PyTorch 2.13.0+cpu: every
expected value, dtype and grad_fn name below was printed by PyTorch 2.13.0+cpu running the
same code."""

import math

import numpy as np
import pytest

import gradmagic.torch as torch

F = torch.nn.functional
NAN = math.nan


def close(got, expected, tol=1e-4):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("call, values, grad, node", [
    (lambda h: F.relu(h, inplace=True), [0., .25, 3., 4.], [0., 2., 3., 4.], "ReluBackward0"),
    (lambda h: F.relu(h, True), [0., .25, 3., 4.], [0., 2., 3., 4.], "ReluBackward0"),
    (lambda h: F.relu6(h, inplace=True), [0., .25, 3., 4.], [0., 2., 3., 4.], "HardtanhBackward0"),
    (lambda h: F.leaky_relu(h, 0.2, inplace=True), [-.4, .25, 3., 4.], [.2, 2., 3., 4.], "LeakyReluBackward1"),
    (lambda h: F.leaky_relu(h, negative_slope=0.3, inplace=True), [-.6, .25, 3., 4.], [.3, 2., 3., 4.],
     "LeakyReluBackward1"),
    (lambda h: F.elu(h, 2.0, True), [-1.7293, .25, 3., 4.], [.2707, 2., 3., 4.], "EluBackward1"),
    (lambda h: F.selu(h, inplace=True), [-1.5202, .2627, 3.1521, 4.2028], [.2379, 2.1014, 3.1521, 4.2028],
     "EluBackward1"),
    (lambda h: F.hardtanh(h, -1., 2., True), [-1., .25, 2., 2.], [0., 2., 0., 0.], "HardtanhBackward0"),
    (lambda h: F.silu(h, inplace=True), [-.2384, .1405, 2.8577, 3.9281], [-.0908, 1.2474, 3.2643, 4.2107],
     "SiluBackward0"),
])
def test_inplace_activations_change_their_input(call, values, grad, node):
    x = torch.tensor([[-2., 0.25], [3., 4.]], requires_grad=True)
    h = x * 1
    assert call(h) is h
    (h * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
    close(h.flatten().tolist(), values)
    close(x.grad.flatten().tolist(), grad)
    assert h.grad_fn.name() == node


def test_without_inplace_the_input_is_kept():
    h = torch.tensor([-2., 0.25])
    assert F.relu(h, inplace=False).tolist() == [0., 0.25] and h.tolist() == [-2., 0.25]


def test_a_0d_tensor_does_not_widen_a_dimensioned_ones_dtype():
    f16, f32_0d = torch.tensor([1.], dtype=torch.float16), torch.tensor(2.)
    for r in (f16 + f32_0d, f32_0d + f16, torch.add(f16, f32_0d), f32_0d * f16):
        assert r.dtype == torch.float16
    i32 = torch.tensor([1, 2], dtype=torch.int32)
    assert (i32 + torch.tensor(1)).dtype == torch.int32
    assert torch.maximum(i32, torch.tensor(1)).dtype == torch.int32
    assert torch.where(i32 > 1, i32, torch.tensor(0)).dtype == torch.int32
    u8 = torch.tensor([200, 100], dtype=torch.uint8)
    wrapped = u8 + torch.tensor(100)
    assert wrapped.dtype == torch.uint8 and wrapped.tolist() == [44, 200]  # wraps, as PyTorch's
    assert (torch.tensor([True]) + torch.tensor(3)).dtype == torch.int64  # another category
    assert i32.sum().dtype == torch.int64  # a sum's own promotion stays
    assert (i32 / torch.tensor(2)).dtype == torch.float32


def test_atan2_at_the_origin_has_gradient_0():
    y = torch.tensor([0., 1., -2., 0.], requires_grad=True)
    x = torch.tensor([0., 0., 3., -1.], requires_grad=True)
    a = torch.atan2(y, x)
    a.sum().backward()
    close(a.tolist(), [0., 1.5707963705062866, -0.588002622127533, 3.1415927410125732], 1e-7)
    close(y.grad.tolist(), [0., 0., 0.23076924681663513, -1.], 1e-7)
    close(x.grad.tolist(), [0., -1., 0.1538461595773697, 0.], 1e-7)
    assert a.grad_fn.name() == "Atan2Backward0"
    y2 = torch.tensor([1., 0.], requires_grad=True)
    g, = torch.autograd.grad(torch.atan2(y2, torch.tensor(2.)).sum(), y2, create_graph=True)
    close(g.tolist(), [0.4, 0.5], 1e-6)
    close(torch.autograd.grad(g.sum(), y2)[0].tolist(), [-0.16, 0.], 1e-6)


def test_xlogy_gradients_are_pytorchs_nan_included():
    p = torch.tensor([0.5, 0.5, 0.0], requires_grad=True)
    q = torch.tensor([0.3, 0.3, 0.4])
    (torch.xlogy(p, p).sum() - torch.xlogy(p, q).sum()).backward()
    close(p.grad.tolist(), [1.5108, 1.5108, NAN])  # a KL with a zero probability: NaN, not 0.9163
    xx = torch.tensor([0., 0., 1., 2., 0.], requires_grad=True)
    yy = torch.tensor([0., -1., NAN, 3., NAN], requires_grad=True)
    out = torch.xlogy(xx, yy)
    out.sum().backward()
    close(out.tolist(), [0., 0., NAN, 2.1972, NAN])
    close(xx.grad.tolist(), [0., 0., NAN, 1.0986, NAN])
    close(yy.grad.tolist(), [NAN, 0., NAN, 0.6667, NAN])
    z = torch.tensor([1., 2.], requires_grad=True)
    g, = torch.autograd.grad(torch.xlogy(z, z).sum(), z, create_graph=True)
    close(g.tolist(), [1., 1.6931])
    close(torch.autograd.grad(g.sum(), z)[0].tolist(), [1., 0.5])


def test_pow_gradients_at_negative_and_zero_bases_are_pytorchs():
    e = torch.tensor([0.5, 2., 0., -1.], requires_grad=True)
    b = torch.tensor([-2., -2., 0., 0.], requires_grad=True)
    out = torch.pow(b, e)
    out.sum().backward()
    close(out.tolist(), [NAN, 4., 1., math.inf])
    close(e.grad.tolist(), [NAN, NAN, 0., -math.inf])  # log of a negative base: NaN, not 0
    close(b.grad.tolist(), [NAN, -4., 0., -math.inf])  # 0 where the exponent is 0
    x = torch.tensor([1.5, 2.], requires_grad=True)
    y = torch.tensor([2., 3.], requires_grad=True)
    g = torch.autograd.grad((x ** y).sum(), [x, y], create_graph=True)
    close(g[0].tolist(), [3., 12.])
    close(g[1].tolist(), [0.9123, 5.5452])
    h = torch.autograd.grad(g[1].sum(), [x, y])
    close(h[0].tolist(), [2.7164, 12.3178])
    close(h[1].tolist(), [0.3699, 3.8436])


def test_cdist_inf_gives_each_tied_coordinate_its_sign():
    a = torch.tensor([[1., 2., 3.], [0., 0., 0.], [1., 1., 1.]], requires_grad=True)
    b = torch.tensor([[1., 2., 3.], [1., 0., 0.], [-1., -1., -1.]], requires_grad=True)
    d = torch.cdist(a, b, p=float("inf"))
    d.sum().backward()
    assert d.tolist() == [[0., 3., 4.], [3., 1., 1.], [2., 1., 2.]]
    assert a.grad.tolist() == [[0., 0., 2.], [0., 1., 0.], [1., 2., 1.]]
    assert b.grad.tolist() == [[0., 0., 2.], [1., -1., -2.], [-2., -2., -3.]]
    assert d.grad_fn.name() == "CdistBackward0"


def test_bce_with_logits_gradient_keeps_a_small_sigmoids_digits():
    """PyTorch 2.13.0+cpu prints, for logits [-12, -3, 0, 2.5, 30] and targets [0, 1, .5, 1, 0]
    in float32, the gradient [1.228835e-06, -0.1905148, 0, -0.01517163, 0.2], the target's
    [2.4, 0.6, -0, -0.5, -6] and the second derivative [1.22883e-06, 0.00903533, 0.05,
    0.0140207, 0]. The loss's own terms' derivatives, summed, lost a small sigmoid's digits to
    1 - 1: 0.4% at x = -12 (and a tutorial's test failed on some random draws)."""
    x = torch.tensor([-12., -3., 0., 2.5, 30.], requires_grad=True)
    z = torch.tensor([0., 1., 0.5, 1., 0.], requires_grad=True)
    loss = F.binary_cross_entropy_with_logits(x, z)
    gx, gz = torch.autograd.grad(loss, [x, z], create_graph=True)
    np.testing.assert_allclose(gx.tolist(), [1.228835e-06, -0.1905148, 0, -0.01517163, 0.2], rtol=2e-6)
    close(gz.tolist(), [2.4, 0.6, 0., -0.5, -6.], 1e-6)
    np.testing.assert_allclose(torch.autograd.grad(gx.sum(), x)[0].tolist(),
                               [1.22883e-06, 0.00903533, 0.05, 0.0140207, 0], rtol=1e-5, atol=1e-12)
    with_pos = F.binary_cross_entropy_with_logits(x, z, pos_weight=torch.tensor([2.] * 5))
    np.testing.assert_allclose(torch.autograd.grad(with_pos, x)[0].tolist(),
                               [1.228835e-06, -0.3810297, -0.05, -0.03034327, 0.2], rtol=2e-6)
    assert loss.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
