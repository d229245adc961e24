"""gradmagic.torch where PyTorch users' programs differed from PyTorch 2.13.0+cpu (the third
sweep, its items A2, A8 and B): every expected value, dtype and grad_fn name below was printed
by PyTorch 2.13.0+cpu running the same code. Gumbel-softmax draws its noise from another
generator than PyTorch's, so its tests check what does not depend on the draw."""

import math
import warnings

import numpy as np
import pytest

import gradmagic.torch as torch
import gradmagic.torch.autograd.forward_ad as fwAD
from gradmagic.torch.utils.checkpoint import checkpoint, checkpoint_sequential

F = torch.nn.functional
nan, inf = math.nan, math.inf


def close(got, expected, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, dtype=float),
                               rtol=tol, atol=tol)


# -- A2: a hook registered before an in-place op gets the old version's gradient ----------------
def test_hook_before_in_place_gets_the_old_versions_gradient():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()) or g.clamp(-5, 5))
    y.mul_(3)
    (y * torch.tensor([1., 10.])).sum().backward()
    assert seen == [[3.0, 30.0]]
    assert x.grad.tolist() == [3.0, 5.0]


def test_hook_after_in_place_fires_first_on_the_new_version():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 1
    order = []
    y.register_hook(lambda g: order.append(("before", g.tolist())) or g.clamp(-5, 5))
    y.mul_(3)
    y.register_hook(lambda g: order.append(("after", g.tolist())) or g * 2)
    (y * torch.tensor([1., 10.])).sum().backward()
    assert order == [("after", [1.0, 10.0]), ("before", [6.0, 60.0])]
    assert x.grad.tolist() == [5.0, 5.0]


def test_hooks_across_two_in_place_ops():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 2
    order = []
    y.register_hook(lambda g: order.append(("h1", g.tolist())))
    y.add_(1)
    y.register_hook(lambda g: order.append(("h2", g.tolist())) or g + 1)
    y.mul_(torch.tensor([2., 3.]))
    y.register_hook(lambda g: order.append(("h3", g.tolist())))
    y.sum().backward()
    assert order == [("h3", [1.0, 1.0]), ("h2", [2.0, 3.0]), ("h1", [3.0, 4.0])]
    assert x.grad.tolist() == [6.0, 8.0]


def test_hook_removed_after_in_place_and_retain_grad_and_autograd_grad():
    x = torch.tensor([1., 2.], requires_grad=True)
    y = x * 1
    y.retain_grad()
    order = []
    h = y.register_hook(lambda g: order.append(("gone", g.tolist())))
    y.register_hook(lambda g: order.append(("kept", g.tolist())) or g ** 2)
    y.mul_(3)
    h.remove()
    (g,) = torch.autograd.grad((y * torch.tensor([1., 10.])).sum(), x, retain_graph=True)
    assert order == [("kept", [3.0, 30.0])]
    assert g.tolist() == [9.0, 900.0]
    (y * torch.tensor([1., 10.])).sum().backward()
    assert order == [("kept", [3.0, 30.0]), ("kept", [3.0, 30.0])]
    assert x.grad.tolist() == [9.0, 900.0]
    assert y.grad.tolist() == [2.0, 20.0]


# -- A8: forward-mode tangents --------------------------------------------------------------
def tangent(f, *pairs):
    with fwAD.dual_level():
        duals = [fwAD.make_dual(torch.tensor(v), torch.tensor(t)) for v, t in pairs]
        out = fwAD.unpack_dual(f(*duals)).tangent
        return None if out is None else out.tolist()


BASE = ([0., 0., 0., 0., -0., 2., -2., 0.], [1., 1., 1., 1., 1., 1., 1., 0.])
EXPONENT = ([0., 1., 0.5, 2., -1., 0., 2., -1.], [1.] * 8)


def test_pow_tangent_at_base_zero():
    close(tangent(torch.pow, BASE, EXPONENT), [0.0, 1.0, inf, 0.0, nan, 0.6931471824645996, nan, nan])
    close(tangent(lambda x: torch.pow(x, torch.tensor(EXPONENT[0])), BASE),
          [0.0, 1.0, inf, 0.0, -inf, 0.0, -4.0, nan])
    close(tangent(lambda y: torch.pow(torch.tensor(BASE[0]), y), EXPONENT),
          [0.0, 0.0, 0.0, 0.0, inf, 0.6931471824645996, nan, -inf])
    d = ([-1., 0., 2.], [1., 1., 1.])
    close(tangent(lambda d: d.abs() ** d, d), [1.0, 0.0, 6.7726])
    close(tangent(lambda d: torch.pow(d * 0, d), d), [nan, 0.0, 0.0])


def test_pow_of_zero_number_and_to_the_zero():
    assert tangent(lambda x: x ** 0., BASE) == [0.0] * 8
    close(tangent(lambda y: 0. ** y, EXPONENT), [0.0, 0.0, 0.0, 0.0, -inf, 0.0, 0.0, -inf])
    for f in (lambda y: 0. ** y, lambda y: torch.pow(0., y), lambda y: 0 ** y):
        y = torch.tensor([0., 1., -1., -0.5, 2.], requires_grad=True)
        f(y).sum().backward()
        close(y.grad.tolist(), [0.0, 0.0, -inf, -inf, 0.0])


def test_sign_tangent_is_zeros():
    assert tangent(torch.sign, BASE) == [0.0] * 8
    assert tangent(torch.sgn, BASE) == [0.0] * 8
    assert tangent(torch.sign, ([-1., 0., 2.], [1., 1., 1.])) == [0.0, 0.0, 0.0]


def test_nan_to_num_tangent():
    n = ([nan, inf, -inf, 1., 0., -1.], [1.] * 6)
    assert tangent(torch.nan_to_num, n) == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    assert tangent(lambda x: torch.nan_to_num(x, nan=2., posinf=3., neginf=-3.), n) == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    assert tangent(lambda x: x.nan_to_num(), n) == [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
    close(tangent(lambda x: torch.nan_to_num(x.log()), n), [nan, 0.0, -0.0, 1.0, nan, -0.0])
    x = torch.tensor([0., -1., 2.], requires_grad=True)
    y = torch.nan_to_num(x.log())
    assert type(y.grad_fn).__name__ == "NanToNumBackward0"
    y.sum().backward()
    close(x.grad.tolist(), [nan, -0.0, 0.5])


# -- B ----------------------------------------------------------------------------------------
def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient():
    torch.manual_seed(0)
    logits = torch.tensor([[0., 100., 0.], [50., 0., 0.]], requires_grad=True)
    y = F.gumbel_softmax(logits, hard=True)
    assert y.tolist() == [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    assert type(y.grad_fn).__name__ == "AddBackward0"
    (y * torch.tensor([[1., 2., 3.], [4., 5., 6.]])).sum().backward()
    close(logits.grad.tolist(), [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 1e-4)
    y = F.gumbel_softmax(logits.detach().t(), hard=True, dim=0)
    assert y.tolist() == [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0]]
    lg = torch.tensor([[0.3, -1., 2.], [1., 1., 0.]], requires_grad=True)
    c = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    torch.manual_seed(3)
    hard = F.gumbel_softmax(lg, tau=0.5, hard=True)
    (hard * c).sum().backward()
    g_hard, lg.grad = lg.grad.clone(), None
    torch.manual_seed(3)  # the same noise: the soft sample whose gradient the hard one has
    soft = F.gumbel_softmax(lg, tau=0.5)
    (soft * c).sum().backward()
    assert torch.allclose(g_hard, lg.grad)
    assert torch.equal(hard.argmax(-1), soft.argmax(-1))
    assert type(soft.grad_fn).__name__ == "SoftmaxBackward0"
    assert torch.allclose(soft.sum(-1), torch.ones(2))
    assert ((hard == 0) | (hard == 1)).all() and hard.sum().item() == 2.0


def test_gumbel_softmax_tau_and_eps():
    y = F.gumbel_softmax(torch.tensor([1., 2., 3.]), tau=1e6)
    close(y.tolist(), [0.3333, 0.3333, 0.3333], 1e-4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.gumbel_softmax(torch.tensor([1., 2.]), eps=1e-3)
    assert [str(w.message) for w in caught] == ["`eps` parameter is deprecated and has no effect."]


def test_constants():
    assert (torch.pi, torch.e, torch.inf) == (3.141592653589793, 2.718281828459045, inf)
    assert math.isnan(torch.nan) and torch.newaxis is None
    assert torch.tensor([1., 2.])[torch.newaxis].shape == (1, 2)


def test_checkpoint_runs_the_function_with_its_gradients():
    def f(a, b):
        return (a.sin() * b).exp()
    for reentrant in (False, True):
        x = torch.tensor([1., 2.], requires_grad=True)
        w = torch.tensor([0.5, -1.], requires_grad=True)
        y = checkpoint(f, x, w, use_reentrant=reentrant)
        y.sum().backward()
        close(y.tolist(), [1.5230813026428223, 0.4028071463108063])
        close(x.grad.tolist(), [0.4114621877670288, 0.16762691736221313])
        close(w.grad.tolist(), [1.2816287279129028, 0.3662714958190918])
    with pytest.warns(UserWarning, match="torch.utils.checkpoint: the use_reentrant parameter should b"):
        torch.utils.checkpoint.checkpoint(f, x, w)
    with pytest.raises(ValueError, match="^Unexpected keyword arguments: b$"):
        checkpoint(f, x, b=w, use_reentrant=True)
    close(checkpoint(f, x, b=w, use_reentrant=False).tolist(), [1.5230813026428223, 0.4028071463108063])
    close(checkpoint_sequential([torch.sin, torch.exp], 2, x, use_reentrant=False).tolist(),
          [2.319776773452759, 2.4825775623321533])


def test_module_level_in_place_functions():
    x = torch.tensor([-2., 0.25, 3.], requires_grad=True)
    h = x * 1
    assert torch.sigmoid_(h) is h and type(h.grad_fn).__name__ == "SigmoidBackward0"
    h.sum().backward()
    close(x.grad.tolist(), [0.10499358177185059, 0.24613407254219055, 0.04517665505409241])
    cases = [(torch.clamp_, (0., 1.), [0.0, 0.25, 1.0]),
             (torch.selu_, (), [-1.5201665163040161, 0.2626752555370331, 3.1521029472351074]),
             (torch.celu_, (2.,), [-1.264241099357605, 0.25, 3.0]),
             (torch.threshold_, (0.5, -1.), [-1.0, -1.0, 3.0]),
             (torch.exp_, (), [0.1353352814912796, 1.2840254306793213, 20.08553695678711]),
             (torch.zero_, (), [0.0, 0.0, 0.0]), (torch.fill_, (7.,), [7.0, 7.0, 7.0]),
             (torch.dropout_, (0., True), [-2.0, 0.25, 3.0]), (torch.neg_, (), [2.0, -0.25, -3.0]),
             (torch.square_, (), [4.0, 0.0625, 9.0]), (torch.clamp_min_, (0.5,), [0.5, 0.5, 3.0])]
    for f, args, expected in cases:
        h = torch.tensor([-2., 0.25, 3.])
        assert f(h, *args) is h
        close(h.tolist(), expected)
    h = torch.tensor([nan, 1.])
    torch.nan_to_num_(h, 5.)
    assert h.tolist() == [5.0, 1.0]
    assert not hasattr(torch, "sign_")  # (PyTorch has none)


def test_cdist_p0_requires_grad_with_zero_gradient():
    a = torch.tensor([[1., 2., 3.], [0., 0., 0.], [1., 1., 1.]], requires_grad=True)
    b = torch.tensor([[1., 2., 3.], [1., 0., 0.], [-1., -1., -1.]])
    d = torch.cdist(a, b, p=0.)
    assert d.requires_grad and type(d.grad_fn).__name__ == "CdistBackward0"
    assert d.tolist() == [[0.0, 2.0, 3.0], [3.0, 1.0, 3.0], [2.0, 2.0, 3.0]]
    d.sum().backward()
    assert a.grad.tolist() == [[0.0] * 3] * 3


def test_logsumexp_over_an_empty_dimension():
    x = torch.zeros(0, 3, requires_grad=True)
    y = x.logsumexp(0)
    assert y.tolist() == [-inf] * 3 and type(y.grad_fn).__name__ == "LogsumexpBackward0"
    y.sum().backward()
    assert x.grad.shape == (0, 3)
    assert torch.logsumexp(torch.zeros(2, 0), 1).tolist() == [-inf, -inf]
    assert torch.logsumexp(torch.zeros(2, 0), 0).shape == (0,)
    assert torch.zeros(0, 2).logsumexp((0, 1), keepdim=True).tolist() == [[-inf]]


X = [[1., 1.], [2., 3.]]
UNSAVED = [  # the leaf changed under no_grad after these uses: PyTorch runs, with these gradients
    ("mm", lambda w, x: (x @ w).sum(), [3.0, 4.0]),
    ("mul5", lambda w, x: (w * 5 + 1).sum(), [5.0, 5.0]),
    ("mulx", lambda w, x: (x[0] * w).sum(), [1.0, 1.0]),
    ("div_by", lambda w, x: (w / 4).sum(), [0.25, 0.25]),
    ("view_t", lambda w, x: (x @ w.view(2, 1)).sum() + w.t().sum(), [4.0, 5.0]),
    ("where", lambda w, x: torch.where(x[0] > 1, w, 0.).sum(), [0.0, 0.0]),
    ("cat", lambda w, x: torch.cat([w, x[0]]).mean(), [0.25, 0.25]),
    ("linear", lambda w, x: F.linear(x, w[None]).sum(), [3.0, 4.0]),
    ("getitem", lambda w, x: w[1] * 3, [0.0, 3.0])]
SAVED = [("div_of", lambda w, x: (x[0] / w).sum()), ("sq", lambda w, x: (w * w).sum()),
         ("pow", lambda w, x: (w ** 2).sum()), ("sin", lambda w, x: w.sin().sum())]


@pytest.mark.parametrize("name,f,expected", UNSAVED, ids=[c[0] for c in UNSAVED])
def test_leaf_changed_after_a_use_that_did_not_save_it(name, f, expected):
    w = torch.tensor([1., 2.], requires_grad=True)
    loss = f(w, torch.tensor(X))
    with torch.no_grad():
        w -= 0.1
    loss.backward()
    close(w.grad.tolist(), expected)


@pytest.mark.parametrize("name,f", SAVED, ids=[c[0] for c in SAVED])
def test_leaf_changed_after_a_use_that_saved_it_raises(name, f):
    w = torch.tensor([1., 2.], requires_grad=True)
    loss = f(w, torch.tensor(X))
    with torch.no_grad():
        w -= 0.1
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has "
                                           "been modified by an inplace operation"):
        loss.backward()


def test_data_assigned_between_forward_and_backward():
    w = torch.tensor([1., 2.], requires_grad=True)
    y = (w ** 2).sum()
    w.data = torch.tensor([10., 20.])
    assert w._version == 0
    y.backward()
    assert w.grad.tolist() == [20.0, 40.0]
    w = torch.tensor([1., 2.], requires_grad=True)
    h = w * 3
    z = h.exp().sum()
    h.data = torch.tensor([0., 1.])
    z.backward()
    close(w.grad.tolist(), [60.25661087036133, 1210.286376953125])
    w = torch.tensor([1., 2.], requires_grad=True)
    y = (w.sin() * w).sum()
    w.data = torch.tensor([0., 3.])
    y.backward()
    close(w.grad.tolist(), [0.8414709568023682, -2.0606799125671387])


# -- C: errors in PyTorch's words -----------------------------------------------------------------
def test_assigning_a_non_tensor_grad():
    x = torch.tensor([1., 2.], requires_grad=True)
    with pytest.raises(TypeError, match="^assigned grad expected to be a Tensor or None but got grad of type list$"):
        x.grad = [1., 2.]


def test_requires_grad_on_an_integer_tensor():
    with pytest.raises(RuntimeError, match="^only Tensors of floating point dtype can require gradients$"):
        torch.tensor([1, 2]).requires_grad_()
    with pytest.raises(RuntimeError, match="^only Tensors of floating point and complex dtype can require gradients$"):
        torch.tensor([1, 2]).requires_grad = True
