"""PyTorch's fused products and matrix helpers on gradmagic.torch: ``addmm``, ``addmv``,
``addr``, ``baddbmm``, ``addbmm`` (``beta * input + alpha * product``), ``tensordot``,
``matrix_power``, ``cdist``, ``cov``, ``corrcoef``, ``block_diag``, ``cartesian_prod``.
Each is made of the engine's ops, so their rules give its gradient.

``METHODS`` become ``Tensor`` methods (and ``torch.<name>(input, ...)``); ``FUNCTIONS``
are ``torch.<name>`` only.
"""

from __future__ import annotations

METHODS = {}
FUNCTIONS = {}
