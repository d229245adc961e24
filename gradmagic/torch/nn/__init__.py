"""``torch.nn``: only ``functional`` (modules and optimizers are out of scope)."""

from . import functional


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.{name} does not exist: gradmagic.torch.nn has only functional "
        "(relu, sigmoid, softplus ...); torch.nn modules and optimizers are out of scope")
