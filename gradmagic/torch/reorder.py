"""PyTorch's functions that move, pick or split elements, on gradmagic.torch: flips and
rotations, splits, ``unfold``, ``sum_to_size``, ``diag_embed``, ``take``,
``take_along_dim``, ``index_fill``, ``index_copy``, and the stacking helpers. Each is
made of the engine's ops, so their rules give its gradient.

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

METHODS = {}
FUNCTIONS = {}
