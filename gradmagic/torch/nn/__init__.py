"""``torch.nn``: only ``functional``, ``grad`` and ``utils``'s gradient clipping (modules and
optimizers are out of scope)."""

from . import functional, grad, utils


def __getattr__(name):
    raise AttributeError(
        f"gradmagic.torch.nn.{name} does not exist: gradmagic.torch.nn has only functional "
        "(relu, conv2d, max_pool3d, batch_norm, cross_entropy ...), grad (conv2d_input, "
        "conv2d_weight, conv3d_input, conv3d_weight) and utils (clip_grad_norm_, clip_grad_value_); torch.nn "
        "modules and optimizers are out of scope")
