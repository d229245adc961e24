"""gradmagic.torch.nn.utils (gradient clipping, parameters to a vector and back) and
``Tensor.register_post_accumulate_grad_hook``, against PyTorch 2.13.0+cpu: the expected
values and messages are what it printed running the same lines with ``import torch``."""

import math

import numpy as np
import pytest

import gradmagic.torch as torch
from gradmagic.torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters


def _params():
    a = torch.tensor([3.0, 4.0], requires_grad=True)
    b = torch.tensor([[1.0, -2.0]], requires_grad=True)
    (a * torch.tensor([3.0, 4.0])).sum().backward()
    (b * torch.tensor([[1.0, -2.0]])).sum().backward()
    return a, b


def test_clip_grad_norm_scales_the_grads_in_place_and_returns_the_norm():
    a, b = _params()
    n = clip_grad_norm_([a, b], 1.0)
    assert n.item() == pytest.approx(5.4772, abs=1e-4) and n.dtype == torch.float32 and n.grad_fn is None
    np.testing.assert_allclose(a.grad.tolist(), [0.5477, 0.7303], atol=1e-4)  # PyTorch 2.13.0
    np.testing.assert_allclose(b.grad.tolist(), [[0.1826, -0.3651]], atol=1e-4)
    assert clip_grad_norm_(a, 10.0, norm_type=1).item() == pytest.approx(1.2780, abs=1e-4)  # one tensor
    np.testing.assert_allclose(a.grad.tolist(), [0.5477, 0.7303], atol=1e-4)  # below max_norm: kept
    assert clip_grad_norm_([a, b], 0.5, norm_type=float("inf")).item() == pytest.approx(0.7303, abs=1e-4)
    np.testing.assert_allclose(a.grad.tolist(), [0.3750, 0.5000], atol=1e-4)
    np.testing.assert_allclose(b.grad.tolist(), [[0.1250, -0.2500]], atol=1e-4)
    assert clip_grad_norm_(iter([a, b]), 0.5, norm_type="inf").item() == pytest.approx(0.5, abs=1e-6)


def test_clip_grad_norm_edges_as_pytorch():
    c = torch.tensor([1.0], requires_grad=True)  # no .grad: left out
    assert clip_grad_norm_([c], 1.0).item() == 0.0 and clip_grad_norm_([], 1.0).item() == 0.0
    a = torch.tensor([3.0, 4.0], requires_grad=True)
    a.grad = torch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError) as e:
        clip_grad_norm_([a], 1.0, error_if_nonfinite=True)
    assert str(e.value) == (
        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
        "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
        "`error_if_nonfinite=False`")
    assert math.isnan(clip_grad_norm_([a], 1.0).item()) and all(map(math.isnan, a.grad.tolist()))
    d = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    d.grad = torch.tensor([3.0, 4.0], dtype=torch.float64)
    n = clip_grad_norm_([d], 1.0, norm_type=3.0)
    assert n.dtype == torch.float64 and n.item() == pytest.approx(4.4979, abs=1e-4)
    np.testing.assert_allclose(d.grad.tolist(), [0.6670, 0.8893], atol=1e-4)
    a.grad = torch.tensor([1.0, -1.0])  # float32 and float64 norms: a float64 total
    assert clip_grad_norm_([a, d], 1.0).item() == pytest.approx(1.7988, abs=1e-4)


def test_clip_grad_value_clamps_in_place_and_returns_none():
    a, b = _params()
    a.grad, b.grad = torch.tensor([3.0, -4.0]), torch.tensor([[0.5, -7.0]])
    assert clip_grad_value_([a, b], 2.0) is None
    assert a.grad.tolist() == [2.0, -2.0] and b.grad.tolist() == [[0.5, -2.0]]
    clip_grad_value_(a, 1)
    assert a.grad.tolist() == [1.0, -1.0]


def test_parameters_to_vector_and_back():
    a, b = _params()
    v = parameters_to_vector([a, b])
    assert v.tolist() == [3.0, 4.0, 1.0, -2.0] and v.grad_fn.name() == "CatBackward0"
    vector_to_parameters(torch.tensor([1.0, 2, 3, 4]), [a, b])
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [[3.0, 4.0]] and a.is_leaf and a.requires_grad
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        vector_to_parameters([1.0], [a])


def test_nn_utils_imports_and_its_other_names_are_out_of_scope():
    assert torch.nn.utils.clip_grad_norm_ is clip_grad_norm_
    with pytest.raises(ImportError, match="gradmagic.torch.nn.utils.weight_norm does not exist: .* out of scope"):
        from gradmagic.torch.nn.utils import weight_norm  # noqa: F401
    with pytest.raises(AttributeError, match="nn.utils.rnn does not exist"):
        torch.nn.utils.rnn  # noqa: B018
    with pytest.raises(AttributeError, match="nn.Linear does not exist"):
        torch.nn.Linear  # noqa: B018


def test_post_accumulate_grad_hook_runs_after_grad_accumulates():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    h = x.register_post_accumulate_grad_hook(lambda t: calls.append(t.grad.tolist()))
    assert type(h).__name__ == "RemovableHandle"
    (x * 3).sum().backward()
    (x * x).sum().backward()
    assert calls == [[3.0, 3.0], [5.0, 7.0]]  # PyTorch 2.13.0
    torch.autograd.grad((x * 2).sum(), x)  # no .grad accumulated: not run
    h.remove()
    (x * 3).sum().backward()
    assert len(calls) == 2


def test_post_accumulate_grad_hook_as_an_optimizer_step():
    w = torch.tensor([1.0, 2.0], requires_grad=True)

    def step(p):
        with torch.no_grad():
            p.add_(p.grad, alpha=-0.1)
        p.grad = None
    w.register_post_accumulate_grad_hook(step)
    (w ** 2).sum().backward()
    np.testing.assert_allclose(w.tolist(), [0.8, 1.6], rtol=1e-6)
    assert w.grad is None and w.requires_grad


def test_post_accumulate_grad_hook_errors_in_pytorch_s_words():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="^post accumulate grad hooks cannot be registered on non-leaf tensors$"):
        (x * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        torch.tensor([1.0]).register_post_accumulate_grad_hook(print)
    x.register_post_accumulate_grad_hook(lambda t: t * 2)
    with pytest.raises(RuntimeError, match="^Tensor post accumulate grad hooks should return None.$"):
        (x * 3).sum().backward()
