"""``gradmagic.torch.nn.functional`` against PyTorch: each activation and loss, its value
and the gradient of its sum, on one input holding a 0 (where the conventions differ); and
PyTorch's autograd tutorial, run unchanged but for the import."""

import contextlib
import io
import runpy
from pathlib import Path

import numpy as np
import pytest

import gradmagic.torch as torch

F = torch.nn.functional
X = np.array([[-1.5, 0.0, 0.3, 2.0], [0.7, -0.2, 1.1, -3.0]])
Z = np.array([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.5, 1.0]])


def _cases():
    z = torch.tensor(Z, dtype=torch.float64)
    t = torch.tensor([2, 0])
    w = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=torch.float64)
    return {
        "relu": F.relu, "leaky_relu": lambda x: F.leaky_relu(x, 0.1), "elu": lambda x: F.elu(x, 0.5),
        "selu": F.selu, "silu": F.silu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "logsigmoid": F.logsigmoid, "softsign": F.softsign,
        "hardtanh": lambda x: F.hardtanh(x, -1.0, 1.1), "relu6": lambda x: F.relu6(x * 3),
        "mse": lambda x: F.mse_loss(x, z), "mse_sum": lambda x: F.mse_loss(x, z, reduction="sum"),
        "l1": lambda x: F.l1_loss(x, z), "smooth_l1": lambda x: F.smooth_l1_loss(x, z, beta=0.5),
        "huber": lambda x: F.huber_loss(x, z, delta=0.8, reduction="none"),
        "bce_logits": lambda x: F.binary_cross_entropy_with_logits(x, z),
        "bce_logits_w": lambda x: F.binary_cross_entropy_with_logits(x, z, weight=w, pos_weight=w * 2,
                                                                     reduction="sum"),
        "bce": lambda x: F.binary_cross_entropy(torch.sigmoid(x), z),
        "ce": lambda x: F.cross_entropy(x, t), "ce_w": lambda x: F.cross_entropy(x, t, weight=w),
        "ce_ignore": lambda x: F.cross_entropy(x, torch.tensor([2, -100])),
        "ce_smooth": lambda x: F.cross_entropy(x, t, weight=w, label_smoothing=0.1),
        "ce_probs": lambda x: F.cross_entropy(x, z / z.sum(1, keepdim=True)),
        "ce_none": lambda x: F.cross_entropy(x, t, reduction="none"),
        "nll": lambda x: F.nll_loss(F.log_softmax(x, dim=1), t),
        "ce_1d": lambda x: F.cross_entropy(x[0], torch.tensor(3)),
    }


# PyTorch 2.13.0+cpu, float64, the same calls on X (and Z, targets [2, 0], weights w):
# the value (rounded to 6 places) and the gradient of its sum with respect to X
PYTORCH = {
    "relu": ([[0.0, 0.0, 0.3, 2.0], [0.7, 0.0, 1.1, 0.0]],
             [[0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0]]),
    "leaky_relu": ([[-0.15, 0.0, 0.3, 2.0], [0.7, -0.02, 1.1, -0.3]],
                   [[0.1, 0.1, 1.0, 1.0], [1.0, 0.1, 1.0, 0.1]]),
    "elu": ([[-0.388435, 0.0, 0.3, 2.0], [0.7, -0.090635, 1.1, -0.475106]],
            [[0.111565, 0.5, 1.0, 1.0], [1.0, 0.409365, 1.0, 0.024894]]),
    "selu": ([[-1.365814, 0.0, 0.31521, 2.101402], [0.735491, -0.318689, 1.155771, -1.670569]],
             [[0.392285, 1.758099, 1.050701, 1.050701], [1.050701, 1.43941, 1.050701, 0.087531]]),
    "silu": ([[-0.273638, 0.0, 0.172333, 1.761594], [0.467731, -0.090033, 0.825286, -0.142278]],
             [[-0.041294, 0.5, 0.64778, 1.090784], [0.823387, 0.400663, 0.956367, -0.088104]]),
    "gelu_tanh": ([[-0.100428, 0.0, 0.185371, 1.954598], [0.53057, -0.084149, 0.950581, -0.003637]],
                  [[-0.127711, 0.5, 0.732295, 1.086099], [0.976357, 0.342542, 1.103659, -0.011584]]),
    "logsigmoid": ([[-1.701413, -0.693147, -0.554355, -0.126928], [-0.403186, -0.798139, -0.287335, -3.048587]],
                   [[0.817574, 0.5, 0.425557, 0.119203], [0.331812, 0.549834, 0.24974, 0.952574]]),
    "softsign": ([[-0.6, 0.0, 0.230769, 0.666667], [0.411765, -0.166667, 0.52381, -0.75]],
                 [[0.16, 1.0, 0.591716, 0.111111], [0.346021, 0.694444, 0.226757, 0.0625]]),
    "hardtanh": ([[-1.0, 0.0, 0.3, 1.1], [0.7, -0.2, 1.1, -1.0]],
                 [[0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]),
    "relu6": ([[0.0, 0.0, 0.9, 6.0], [2.1, 0.0, 3.3, 0.0]],
              [[0.0, 0.0, 3.0, 0.0], [3.0, 0.0, 3.0, 0.0]]),
    "mse": (3.02875,
            [[-0.375, -0.25, -0.175, 0.5], [-0.075, -0.05, 0.15, -1.0]]),
    "mse_sum": (24.23,
                [[-3.0, -2.0, -1.4, 4.0], [-0.6, -0.4, 1.2, -8.0]]),
    "l1": (1.2875,
           [[-0.125, -0.125, -0.125, 0.125], [-0.125, -0.125, 0.125, -0.125]]),
    "smooth_l1": (1.05375,
                  [[-0.125, -0.125, -0.125, 0.125], [-0.075, -0.05, 0.125, -0.125]]),
    "huber": ([[0.88, 0.48, 0.245, 1.28], [0.045, 0.02, 0.18, 2.88]],
              [[-0.8, -0.8, -0.7, 0.8], [-0.3, -0.2, 0.6, -0.8]]),
    "bce_logits": (1.057886,
                   [[0.022803, -0.0625, -0.053195, 0.1101], [-0.041477, 0.056271, 0.031283, -0.119072]]),
    "bce_logits_w": (69.700442,
                     [[0.182426, -4.0, -0.212779, 2.642391], [-0.663624, 0.900332, 0.12513, -17.146334]]),
    "bce": (1.057886,
            [[0.022803, -0.0625, -0.053195, 0.1101], [-0.041477, 0.056271, 0.031283, -0.119072]]),
    "ce": (1.535717,
           [[0.011199, 0.05019, -0.43225, 0.37086], [-0.32895, 0.069544, 0.255177, 0.004229]]),
    "ce_w": (1.381361,
             [[0.007466, 0.03346, -0.288167, 0.24724], [-0.4386, 0.092725, 0.340236, 0.005639]]),
    "ce_ignore": (1.998782,
                  [[0.022398, 0.100381, -0.8645, 0.741721], [0.0, 0.0, 0.0, 0.0]]),
    "ce_smooth": (1.74263,
                  [[-0.007521, 0.007656, -0.253004, 0.252869], [-0.374346, 0.065187, 0.353167, -0.044009]]),
    "ce_probs": (2.310717,
                 [[0.011199, -0.19981, -0.18225, 0.37086], [-0.02895, 0.069544, 0.155177, -0.195771]]),
    "ce_none": ([1.998782, 1.072651],
                [[0.022398, 0.100381, -0.8645, 0.741721], [-0.6579, 0.139088, 0.510354, 0.008458]]),
    "nll": (1.535717,
            [[0.011199, 0.05019, -0.43225, 0.37086], [-0.32895, 0.069544, 0.255177, 0.004229]]),
    "ce_1d": (0.298782,
              [[0.022398, 0.100381, 0.1355, -0.258279], [0.0, 0.0, 0.0, 0.0]]),
}


@pytest.mark.parametrize("name", sorted(PYTORCH))
def test_agrees_with_pytorch(name):
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    y = _cases()[name](x)
    y.sum().backward()
    value, grad = PYTORCH[name]
    np.testing.assert_allclose(np.asarray(y.detach().numpy(), dtype=float), value, atol=2e-6)
    np.testing.assert_allclose(x.grad.numpy(), grad, atol=2e-6)


@pytest.mark.parametrize("call, error, message", [
    (lambda x: F.cross_entropy(x, torch.tensor([2, 7])), IndexError, "Target 7 is out of bounds."),
    (lambda x: F.mse_loss(x, x, reduction="avg"), ValueError, "avg is not a valid value for reduction"),
    (lambda x: F.binary_cross_entropy_with_logits(x, x[0]), ValueError,
     r"Target size \(torch.Size\(\[4\]\)\) must be the same as input size \(torch.Size\(\[2, 4\]\)\)"),
    (lambda x: F.binary_cross_entropy(x, x), RuntimeError, "all elements of input should be between 0 and 1"),
    (lambda x: F.gelu(x, approximate="bad"), RuntimeError,
     r"gelu\(approximate='bad'\): approximate argument must be either none or tanh\."),
], ids=["target out of range", "reduction", "sizes", "bce outside [0, 1]", "gelu's approximate"])
def test_errors_in_pytorch_s_words(call, error, message):
    with pytest.raises(error, match=message):
        call(torch.tensor(X, dtype=torch.float64, requires_grad=True))


# PyTorch 2.13.0+cpu: what tests/torch_tutorials/autograd.py prints after its gradients
# (those depend on torch.randn, whose numbers differ: gradmagic draws with NumPy's generator)
AUTOGRAD_TAIL = """True
False
False
First call
tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.]])

Second call
tensor([[8., 4., 4., 4., 4.],
        [4., 8., 4., 4., 4.],
        [4., 4., 8., 4., 4.],
        [4., 4., 4., 8., 4.]])

Call after zeroing gradients
tensor([[4., 2., 2., 2., 2.],
        [2., 4., 2., 2., 2.],
        [2., 2., 4., 2., 2.],
        [2., 2., 2., 4., 2.]])
"""


def test_pytorch_s_autograd_tutorial_runs_unchanged():
    """Its code, but for the import line. Its w.grad is checked against the closed form of
    the gradient of binary cross-entropy, on the w and b it drew."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        names = runpy.run_path(str(Path(__file__).parent / "torch_tutorials" / "autograd.py"))
    text = out.getvalue()
    assert text.startswith("Gradient function for z = <AddBackward0>\n"
                           "Gradient function for loss = <BinaryCrossEntropyWithLogitsBackward0>\n")
    assert text.endswith(AUTOGRAD_TAIL)
    w, b = names["w"], names["b"]
    z = np.ones(5) @ w.detach().numpy() + b.detach().numpy()
    expected = (1 / (1 + np.exp(-z)) - 0) / 3  # d mean(bce(z, 0)) / dz
    np.testing.assert_allclose(b.grad.numpy(), expected, rtol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), np.outer(np.ones(5), expected), rtol=1e-5)


# PyTorch 2.13.0+cpu: type(F.<name>(...).grad_fn).__name__ for the same calls
GRAD_FN_NAMES = {
    "mse": "MseLossBackward0", "l1": "MeanBackward0", "smooth_l1": "SmoothL1LossBackward0",
    "huber": "HuberLossBackward0", "bce_logits": "BinaryCrossEntropyWithLogitsBackward0",
    "bce": "BinaryCrossEntropyBackward0", "ce": "NllLossBackward0", "nll": "NllLossBackward0",
    "leaky_relu": "LeakyReluBackward0", "elu": "EluBackward0", "selu": "EluBackward0",
    "silu": "SiluBackward0", "gelu_tanh": "GeluBackward0", "logsigmoid": "LogSigmoidBackward0",
    "softsign": "DivBackward0", "hardtanh": "HardtanhBackward0", "relu6": "HardtanhBackward0",
    "relu": "ReluBackward0", "ce_none": "NllLossBackward0", "huber_none": "HuberLossBackward0",
}
# and for the operators: x * y, x - y, x / y, x ** 2, -x, x.abs(), x.sum(), x.sqrt()
OPERATOR_NAMES = ["MulBackward0", "SubBackward0", "DivBackward0", "PowBackward0", "NegBackward0",
                  "AbsBackward0", "SumBackward0", "SqrtBackward0"]


def test_grad_fn_is_named_as_pytorch_names_it():
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    cases = {**_cases(), "huber_none": lambda x: F.huber_loss(x, torch.tensor(Z), reduction="none")}
    got = {name: repr(cases[name](x).grad_fn) for name in GRAD_FN_NAMES}
    assert got == {name: f"<{n}>" for name, n in GRAD_FN_NAMES.items()}
    y = torch.tensor(Z)
    ops = [x * y, x - y, x / (y + 1), x ** 2, -x, x.abs(), x.sum(), x.sqrt()]
    assert [repr(t.grad_fn) for t in ops] == [f"<{n}>" for n in OPERATOR_NAMES]


def test_kinks_as_pytorch():
    """PyTorch 2.13.0+cpu: maximum and minimum give each side half where the two are equal
    (gradmagic's own ops give it to the first, as TensorFlow); clamp gives 1 on a bound,
    abs 0 at 0, a full max splits among equal maxima."""
    def grads(f, *xs):
        xs = [torch.tensor(x, requires_grad=True) for x in xs]
        f(*xs).sum().backward()
        return [x.grad.tolist() for x in xs]
    a, b = [1.0, 2.0, 3.0], [1.0, 0.0, 4.0]
    assert grads(torch.maximum, a, b) == [[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]]
    assert grads(torch.minimum, a, b) == [[0.5, 0.0, 1.0], [0.5, 1.0, 0.0]]
    assert grads(lambda x, y: x.max(y), a, b) == [[0.5, 1.0, 0.0], [0.5, 0.0, 1.0]]
    assert grads(lambda x: torch.clamp(x, 0.0, 1.0), [0.0, 0.5, 1.0, 2.0]) == [[1.0, 1.0, 1.0, 0.0]]
    assert grads(torch.abs, [-1.0, 0.0, 1.0]) == [[-1.0, 0.0, 1.0]]
    assert grads(lambda x: x.max(), [1.0, 3.0, 3.0]) == [[0.0, 0.5, 0.5]]
    assert torch.maximum(torch.tensor([1.0]), 2).dtype == torch.float32  # a number stays weak
    assert torch.maximum(torch.tensor([1, 5]), torch.tensor([1, 2])).tolist() == [1, 5]
    assert torch.maximum(torch.tensor([1, 5]), torch.tensor([1, 2])).dtype == torch.int64


def test_exact_gelu_and_erf_give_what_pytorch_gives():
    # F.gelu's default is exact, 0.5 x (1 + erf(x / sqrt(2))); PyTorch 2.13.0's values, first
    # and second derivatives, and grad_fn names, for the same code
    x = torch.tensor([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.5], dtype=torch.float64, requires_grad=True)
    y = F.gelu(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    h, = torch.autograd.grad(g.sum(), x)
    e = torch.erf(x)
    ge, = torch.autograd.grad(e.sum(), x)
    pytorch = {
        "gelu": [-0.00404969409489031, -0.15865525393145702, -0.15426876936299344, 0.0,
                 0.34573123063700656, 0.841344746068543, 2.4844758366855597],
        "gelu'": [-0.01194564720418392, -0.08331547058768635, 0.13250487534383712, 0.5,
                  0.8674951246561629, 1.0833154705876864, 1.037611085908145],
        "gelu''": [-0.031022938883566054, 0.24197072451914337, 0.6161143218375241, 0.7978845608028654,
                   0.6161143218375241, 0.24197072451914337, -0.07449527709766629],
        "erf": [-0.9999779095030014, -0.8427007929497149, -0.5204998778130465, 0.0,
                0.5204998778130465, 0.8427007929497149, 0.999593047982555],
        "erf'": [0.00013925305194674786, 0.4151074974205947, 0.8787825789354448, 1.1283791670955126,
                 0.8787825789354448, 0.4151074974205947, 0.00217828423035271]}
    got = {"gelu": y, "gelu'": g, "gelu''": h, "erf": e, "erf'": ge}
    for k, want in pytorch.items():
        np.testing.assert_allclose(got[k].detach().numpy(), want, rtol=1e-14, atol=1e-16, err_msg=k)
    assert y.grad_fn.name() == "GeluBackward0" and e.grad_fn.name() == "ErfBackward0"
    assert x.erf().tolist() == e.tolist()
    one = F.gelu(torch.tensor([1.0]))
    assert one.dtype == torch.float32 and one.tolist() == [0.8413447141647339]
