"""``Tensor.register_hook`` on gradmagic.torch: where the hooks run, what their results
replace, and the errors, each as PyTorch 2.13.0 gives them for the same code."""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch


def test_a_hook_on_an_intermediate_replaces_its_gradient_downstream_and_in_its_grad():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.retain_grad()
    (y ** 2).sum().backward()
    assert x.grad.tolist() == [80.0, 160.0, 240.0]  # PyTorch 2.13.0
    assert y.grad.tolist() == [40.0, 80.0, 120.0]  # the gradient after the hook, as PyTorch's


def test_a_hook_on_a_leaf_runs_before_grad_accumulates_and_in_autograd_grad():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()) or g + 1)
    (x * 2).sum().backward()
    assert seen == [[2.0, 2.0, 2.0]] and x.grad.tolist() == [3.0, 3.0, 3.0]
    assert torch.autograd.grad((x * 3).sum(), x)[0].tolist() == [4.0, 4.0, 4.0]
    assert seen[-1] == [3.0, 3.0, 3.0]
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0] and len(seen) == 2  # removed: it runs no more


def test_hooks_run_in_order_on_the_root_too():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    c = a * 1
    c.register_hook(lambda g: g * 2)
    c.register_hook(lambda g: g + 1)
    c.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]  # (1 * 2) + 1, in registration order
    w = torch.tensor(2.0, requires_grad=True)
    v = w * w
    roots = []
    v.register_hook(lambda g: roots.append(g.item()))  # None: the gradient is left as it is
    v.backward()
    assert roots == [1.0] and w.grad.item() == 4.0


def test_a_hooks_arithmetic_is_differentiated_under_create_graph():
    p = torch.tensor(3.0, requires_grad=True)
    q = p * p
    q.register_hook(lambda g: g * p)
    gp, = torch.autograd.grad(q, p, create_graph=True)
    gpp, = torch.autograd.grad(gp, p)
    assert gp.item() == 18.0 and gpp.item() == 12.0  # PyTorch 2.13.0: 2 p^2 and 4 p


def test_hook_errors_in_pytorchs_words():
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.tensor([1.0]).register_hook(lambda g: g)
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1

    def first(g):
        return g[:1]
    b.register_hook(first)
    with pytest.raises(RuntimeError, match="hook 'first' has changed the size of value"):
        b.sum().backward()


def test_a_trace_shows_the_hook_as_a_row_of_its_own():
    with gm.trace() as t:
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: g * 10)
        (y ** 2).sum().backward()
    rows = [r for r in str(t).splitlines() if " hook " in r]
    assert len(rows) == 1 and "your hooks" in rows[0] and "[40, 80, 120]" in rows[0]
    assert "y=[2, 4, 6]" in rows[0]  # the hooked tensor by its own name
    assert x.grad.tolist() == [80.0, 160.0, 240.0]  # observing changed nothing


def test_a_nodes_hooks_run_as_pytorchs():
    # PyTorch 2.13.0+cpu: the pre-hook sees [[1, 1]] and times it by 3; the hook sees
    # grad_inputs ([9, 36],) and grad_outputs ([3, 3],) and doubles: x.grad [18, 72];
    # a number's slot in grad_inputs is None (x * 3: (tensor([3, 3]), None))
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 3
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append([t.tolist() for t in go]) or (go[0] * 3,))
    y.grad_fn.register_hook(lambda gi, go: seen.append(([t.tolist() for t in gi], [t.tolist() for t in go]))
                            or (gi[0] * 2,))
    y.sum().backward()
    assert x.grad.tolist() == [18.0, 72.0]
    assert seen == [[[1.0, 1.0]], ([[9.0, 36.0]], [[3.0, 3.0]])]
    z = x * 3
    z.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), gi[1])))
    z.sum().backward()
    assert seen[-1] == (2, None)


def test_a_custom_functions_node_hooks_see_every_output_and_a_removed_one_runs_no_more():
    # PyTorch 2.13.0+cpu: [[1, 1], [2, 2]] before; ([26, 26],) and ([10, 10], [2, 2]) after
    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = Two.apply(x)
    seen = []
    a.grad_fn.register_prehook(lambda go: seen.append([t.tolist() for t in go]) or (go[0] * 10, go[1]))
    a.grad_fn.register_hook(lambda gi, go: seen.append(([t.tolist() for t in gi], [t.tolist() for t in go])))
    (a.sum() + 2 * b.sum()).backward()
    assert x.grad.tolist() == [26.0, 26.0]
    assert seen == [[[1.0, 1.0], [2.0, 2.0]], ([[26.0, 26.0]], [[10.0, 10.0], [2.0, 2.0]])]
    x.grad = None
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100, gi[1])).remove()
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has returned an incorrect number of values \(got 1, "
                                           r"but expected 2\)"):
        z = x * 2
        z.grad_fn.register_hook(lambda gi, go: (gi[0],))
        z.sum().backward()


def test_create_graph_records_through_a_hooked_tensor_and_a_nodes_pre_hook():
    # PyTorch 2.13.0+cpu: exp's rule reads the hooked output itself, so the second
    # derivative is there: [2.7183, 7.3891]; with a pre-hook that doubles, 2 e^x, and 4 e^x
    # for the next pass (the pre-hook runs in it again)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.register_hook(lambda g: g * 1)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(torch.autograd.grad(g.sum(), x)[0].tolist(), np.exp([1.0, 2.0]), rtol=1e-6)
    y = x.exp()
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.tolist(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(torch.autograd.grad(g.sum(), x)[0].tolist(), 4 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_create_graph_records_through_a_nodes_post_hook():
    # PyTorch 2.13.0+cpu, the same code: the node's rule (mul's: g w, g sin x) reads its
    # inputs through the stand-ins the hook's entry gives, which lead back to x and w
    x = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([2.0, -1.0], dtype=torch.float64, requires_grad=True)
    y = torch.sin(x) * w
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, gi[1]))
    gx, gw = torch.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    np.testing.assert_allclose(gx.tolist(), [10.0977, 0.4234], atol=1e-4)
    np.testing.assert_allclose(gw.tolist(), [0.9194, -1.9900], atol=1e-4)
    hx, hw = torch.autograd.grad((gx * gw).sum(), (x, w))
    np.testing.assert_allclose(hx.tolist(), [113.8846, 11.4620], atol=1e-4)
    np.testing.assert_allclose(hw.tolist(), [13.9256, 2.5274], atol=1e-4)
