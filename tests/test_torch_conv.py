"""gradmagic.torch's convolutions (``F.conv1d``/``conv2d``, ``F.conv_transpose1d``/
``conv_transpose2d``, ``torch.nn.grad.conv2d_input``/``conv2d_weight``) and PyTorch's
tutorial "Fusing Convolution and Batch Norm using Custom Function", whose custom Functions
run unchanged but for the imports (``tests/torch_tutorials/conv_bn.py``).

Expected numbers were printed by PyTorch 2.13.0+cpu running the same code: for each case,
the output's shape and sum, and for each input, the sum of its gradient times 0, 1, 2 ...
(its elements weighted by position), the output weighted by its position modulo 7, so that
a value or gradient that lands in the wrong place shows.
"""

import runpy
from pathlib import Path

import numpy as np
import pytest

import gradmagic.torch as torch
import gradmagic.torch.nn.functional as F
import gradmagic.torch.nn.grad as G
from gradmagic.torch.autograd import GradcheckError

CASES = {  # name: (function, input shapes, PyTorch 2.13.0's [shape, sum, weighted gradients ...])
    "conv2d": (lambda x, w: F.conv2d(x, w), [(2, 3, 7, 6), (4, 3, 3, 2)],
               [[2, 4, 5, 5], 73.9838, -309222.2423, -36668.2627]),
    "conv2d bias stride pad": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
                               [(2, 3, 7, 6), (4, 3, 3, 3), (4,)],
                               [[2, 4, 4, 3], 65.7119, -65415.6536, 6839.8227, 451.0]),
    "conv2d dilation": (lambda x, w: F.conv2d(x, w, dilation=(2, 1), padding=(1, 2)),
                        [(1, 2, 7, 6), (3, 2, 2, 3)], [[1, 3, 7, 8], 36.0911, 23432.3871, 3793.57]),
    "conv2d groups": (lambda x, w: F.conv2d(x, w, groups=2, stride=(1, 2)), [(2, 4, 5, 6), (6, 2, 3, 3)],
                      [[2, 6, 3, 2], 58.5468, -48463.374, -7221.1114]),
    "conv2d same": (lambda x, w: F.conv2d(x, w, padding="same", dilation=2), [(1, 2, 6, 6), (3, 2, 3, 4)],
                    [[1, 3, 6, 6], 40.2528, 27165.9477, 10028.0363]),
    "conv2d unbatched": (lambda x, w: F.conv2d(x, w), [(3, 5, 5), (2, 3, 3, 3)],
                         [[2, 3, 3], 31.443, -396.52, 6176.719]),
    "conv1d": (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), [(2, 3, 9), (4, 3, 3), (4,)],
               [[2, 4, 5], 19.273, 3933.9149, 2994.9457, 199.0]),
    "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w), [(2, 3, 4, 5), (3, 4, 3, 2)],
                         [[2, 4, 6, 6], 0.7216, -56859.7109, 47545.4191]),
    "conv_transpose2d stride pad output_padding": (
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [(2, 3, 4, 5), (3, 4, 3, 3), (4,)], [[2, 4, 8, 10], -574.3761, -31210.9374, 86314.6382, 2878.0]),
    "conv_transpose2d groups dilation": (
        lambda x, w: F.conv_transpose2d(x, w, groups=3, dilation=2, stride=(2, 1), padding=(2, 0)),
        [(1, 6, 4, 4), (6, 2, 3, 2)], [[1, 6, 7, 6], -27.5861, -23239.5005, 16033.1849]),
    "conv_transpose1d": (lambda x, w: F.conv_transpose1d(x, w, stride=3, padding=2), [(2, 3, 5), (3, 2, 4)],
                         [[2, 2, 12], -23.7529, 4598.1744, -1894.7247]),
    "conv2d_input": (lambda w, go: G.conv2d_input((2, 3, 8, 7), w, go, stride=2, padding=1),
                     [(4, 3, 3, 3), (2, 4, 4, 4)], [[2, 3, 8, 7], -53.0108, -68424.6269, 42320.2279]),
    "conv2d_weight": (lambda x, go: G.conv2d_weight(x, (4, 3, 3, 3), go, stride=2, padding=1),
                      [(2, 3, 8, 7), (2, 4, 4, 4)], [[4, 3, 3, 3], 1.7425, 76136.0671, -56830.0963]),
    "conv2d_weight groups": (lambda x, go: G.conv2d_weight(x, (4, 1, 2, 2), go, groups=2),
                             [(1, 2, 4, 4), (1, 4, 3, 3)], [[4, 1, 2, 2], -18.1082, 1074.8317, -532.9864]),
}


def inputs(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [torch.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]


def fingerprint(fn, shapes, dtype):
    xs = inputs(shapes, dtype)
    y = fn(*xs)
    assert y.dtype == dtype
    w = torch.tensor(np.arange(1, 1 + y.numel()).reshape(tuple(y.shape)) % 7, dtype=y.dtype)
    (y * w).sum().backward()
    return [list(y.shape), float(y.detach().numpy().sum())] + [
        float((x.grad.numpy() * np.arange(x.numel()).reshape(tuple(x.shape))).sum()) for x in xs]


@pytest.mark.parametrize("dtype, rtol", [(torch.float64, 1e-7), (torch.float32, 1e-4)], ids=["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_are_pytorchs(name, dtype, rtol):
    fn, shapes, want = CASES[name]
    got = fingerprint(fn, shapes, dtype)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1:], want[1:], rtol=rtol, atol=1e-3 if dtype == torch.float64 else 0.05)


SMALL = {  # the same functions on smaller inputs, for finite differences to second order
    "conv2d bias stride pad": [(1, 2, 5, 4), (3, 2, 3, 2), (3,)],
    "conv2d groups": [(1, 4, 4, 5), (4, 2, 2, 3)],
    "conv_transpose2d stride pad output_padding": [(1, 2, 3, 3), (2, 2, 3, 3), (2,)],
    "conv_transpose1d": [(1, 2, 4), (2, 2, 3)],
    "conv2d_weight": [(1, 3, 6, 5), (1, 4, 3, 3)],
}


@pytest.mark.parametrize("name", list(SMALL))
def test_first_and_second_derivatives_match_finite_differences(name):
    xs = tuple(inputs(SMALL[name], torch.float64, seed=1))
    assert torch.autograd.gradcheck(CASES[name][0], xs)
    assert torch.autograd.gradgradcheck(CASES[name][0], xs)


def test_refusals_in_pytorchs_words():
    cases = [
        ("Given groups=1, weight of size [2, 2, 3, 3], expected input[1, 3, 5, 5] to have 2 channels, "
         "but got 3 channels instead", lambda: F.conv2d(torch.ones(1, 3, 5, 5), torch.ones(2, 2, 3, 3))),
        ("Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't "
         "be greater than actual input size", lambda: F.conv2d(torch.ones(1, 2, 2, 2), torch.ones(2, 2, 3, 3))),
        ("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 2]",
         lambda: F.conv2d(torch.ones(2, 2), torch.ones(2, 2, 3, 3))),
        ("output padding must be smaller than either stride or dilation, but got output_padding_height: "
         "1 output_padding_width: 1 stride_height: 1 stride_width: 1 dilation_height: 1 dilation_width: 1",
         lambda: F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 2, 3, 3), output_padding=1)),
    ]
    for message, fn in cases:
        with pytest.raises(RuntimeError) as info:
            fn()
        assert str(info.value) == message


TUTORIAL = Path(__file__).parent / "torch_tutorials" / "conv_bn.py"


@pytest.fixture(scope="module")
def tutorial():
    """The tutorial run as a script: its three gradchecks (Conv2D, BatchNorm with
    fast_mode=False, FusedConvBN2DFunction) raise if a gradient is wrong."""
    return runpy.run_path(str(TUTORIAL), run_name="__main__")


def test_the_fusing_conv_and_batch_norm_tutorial_runs_and_its_checks_pass(tutorial):
    """All three checks pass, as on PyTorch 2.13.0."""
    names = tutorial
    out = names["FusedConvBN2DFunction"].apply(names["X"], names["weight"])
    assert tuple(out.shape) == (2, 5, 2, 2)
    per_channel = out.detach().numpy().mean(axis=(0, 2, 3))  # normalized: mean 0 per channel
    np.testing.assert_allclose(per_channel, 0, atol=1e-12)


def test_the_tutorials_gradcheck_catches_a_wrong_batch_norm_backward(tutorial):
    names = tutorial
    right = names["batch_norm_backward"]

    def wrong(grad_out, X, sum, sqrt_var, N, eps):  # the mean's term (2) left out
        return right(grad_out, X, sum, sqrt_var, N, eps) + (grad_out / (sqrt_var + eps)[None, :, None, None]).sum(
            dim=(0, 2, 3))[None, :, None, None] / N
    names["BatchNorm"].backward.__wrapped__.__globals__["batch_norm_backward"] = wrong
    try:
        a = torch.rand(1, 2, 3, 4, requires_grad=True, dtype=torch.double)
        with pytest.raises(GradcheckError):
            torch.autograd.gradcheck(names["BatchNorm"].apply, (a,), fast_mode=False)
    finally:
        names["BatchNorm"].backward.__wrapped__.__globals__["batch_norm_backward"] = right


def test_a_trace_shows_a_convolution_as_one_row():
    import gradmagic as gm
    x = torch.rand(1, 2, 4, 4, dtype=torch.double, requires_grad=True)
    w = torch.rand(3, 2, 2, 2, dtype=torch.double, requires_grad=True)
    with gm.trace() as tr:
        F.conv2d(x, w).sum().backward()
    rows = tr.to_rows()
    assert [r["node"] for r in rows if r["section"] == "forward"] == ["conv2d", "sum"]
    conv = [r for r in rows if r["section"] == "backward" and r["node"] == "conv2d"]
    assert len(conv) == 1 and conv[0]["local"].startswith("x: conv_transpose2d(upstream, weight), w: ")
    np.testing.assert_allclose(x.grad.numpy(), F.conv_transpose2d(torch.ones(1, 3, 3, 3, dtype=torch.double),
                                                                  w.detach()).numpy())
