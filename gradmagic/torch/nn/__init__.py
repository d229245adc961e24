"""``torch.nn``: only ``functional`` and ``grad`` (modules and optimizers are out of scope)."""

from . import functional, grad


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.{name} does not exist: gradmagic.torch.nn has only functional "
        "(relu, conv2d, max_pool2d, batch_norm, cross_entropy ...) and grad (conv2d_input, "
        "conv2d_weight); torch.nn "
        "modules and optimizers are out of scope")
