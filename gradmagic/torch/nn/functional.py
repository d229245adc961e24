"""``torch.nn.functional``: the activations PyTorch's tutorials use, on gradmagic's ops."""

from ...core import ops
from ...core.primitive import composite


def relu(input, inplace=False):
    return ops.where(input > 0, input, 0)  # gradient 0 at 0, as PyTorch's


def sigmoid(input):
    return ops.sigmoid(input)


def tanh(input):
    return input.tanh()


@composite("sigmoid(beta x), 1 where beta x > threshold", elementwise=True)
def softplus(input, beta=1.0, threshold=20.0):
    scaled = input * beta
    return ops.where(scaled > threshold, input, ops.softplus(scaled) / beta)


def softmax(input, dim=None, dtype=None):
    return input.softmax(-1 if dim is None else dim)


def log_softmax(input, dim=None, dtype=None):
    return input.log_softmax(-1 if dim is None else dim)


@composite("2 (input - target) / n", "-2 (input - target) / n")  # n: 1 for reduction='sum'
def mse_loss(input, target, reduction="mean"):
    d = (input - target) ** 2
    return d.mean() if reduction == "mean" else d.sum() if reduction == "sum" else d


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.functional.{name} does not exist: it maps relu, sigmoid, tanh, "
        "softplus, softmax, log_softmax and mse_loss")
