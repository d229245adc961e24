"""``torch.nn.grad``: the gradients of ``conv2d`` and ``conv3d`` as functions
(``conv2d_input``, ``conv2d_weight``, ``conv3d_input``, ``conv3d_weight``), made of the
engine's ops like the convolutions themselves."""

from .conv import conv2d_input, conv2d_weight, conv3d_input, conv3d_weight

__all__ = ["conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]
