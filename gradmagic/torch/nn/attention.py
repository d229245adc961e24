"""``torch.nn.functional.scaled_dot_product_attention``, with ``dropout`` on the attention
weights, as PyTorch 2.13.0's (its math backend): ``softmax(Q K^T * scale + mask) V``,
one row in a trace. A boolean mask keeps where it is True, a float mask is added,
``is_causal`` keeps the lower triangle; a row that keeps nothing gives zeros, as PyTorch's.
Dropout draws from gradmagic's generator (NumPy's), so its mask differs from PyTorch's.
"""

import math

import numpy as np

from ...core import ops, special
from ...core.primitive import composite
from ..values import named
from .dropout import dropout


@composite("softmax's rule through Q K^T, then the weights' and V's products")
def _attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    n, m = query.value.shape[-2], key.value.shape[-2]
    scores = ops.matmul(query, ops.swapaxes(key, -1, -2)) * scale
    if is_causal:
        attn_mask = np.tril(np.ones((n, m), dtype=bool))
    if attn_mask is not None:
        mask = getattr(attn_mask, "value", attn_mask)
        scores = ops.where(mask, scores, -np.inf) if mask.dtype == bool else scores + attn_mask
    kept = np.any(scores.value > -np.inf, axis=-1, keepdims=True)  # a row with no key kept: zeros
    weights = ops.where(kept, special.softmax(ops.where(kept, scores, 0.0), axis=-1), 0.0)
    return ops.matmul(dropout(weights, dropout_p) if dropout_p > 0 else weights, value)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None, enable_gqa=False):
    """``F.scaled_dot_product_attention``: each query's average of ``value`` weighted by the
    softmax of its scaled dot products with ``key`` (``scale``: ``1/sqrt(E)`` by default)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and query.value.ndim >= 3 and key.value.shape[-3] != query.value.shape[-3]:
        groups = query.value.shape[-3] // key.value.shape[-3]
        key, value = (np.repeat(t, groups, axis=-3) for t in (key, value))
    if scale is None:
        scale = 1 / math.sqrt(query.value.shape[-1])
    return named(_attention(query, key, value, attn_mask, dropout_p, is_causal, scale), "UnsafeViewBackward0")
