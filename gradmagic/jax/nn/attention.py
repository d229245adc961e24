"""``jax.nn.dot_product_attention``: scaled dot-product attention in JAX's layout and
words (its ``xla`` implementation, the default), on gradmagic's ops, so it differentiates
to any order.

Arrays are ``[batch, seq, heads, head_dim]`` (``B T N H`` for the query, ``B S K H`` for
key and value; the batch may be left out). ``N`` query heads share ``K`` key/value
heads in groups of ``N // K`` (grouped-query attention; ``K = 1``: multi-query). The
logits ``q k / sqrt(H)`` (or ``scale``) plus ``bias`` are masked (``mask``, ``is_causal``,
``local_window_size``, the sequence lengths) with a large negative number, not ``-inf``,
so a row with nothing to attend to averages all values, as JAX's does.
"""

from __future__ import annotations

import numpy as np

from ...core import ops
from ...core.contract import einsum
from ...core.layout import repeat
from ..array import asarray

IMPLEMENTATIONS = (None, "xla", "cudnn")


def _four_d(t):
    t = asarray(t)
    return ops.reshape(t, (1,) * (4 - t.ndim) + t.shape) if t.ndim < 4 else t


def _check(t, shape, dtype, name):
    """JAX's checks of an argument's rank, dtype and shape (-1: any size)."""
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(s != -1 and d != s for d, s in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {list(shape)}: but got {tuple(t.shape)}")


def _keep(T, S, mask, is_causal, q_lengths, kv_lengths, window):
    """The boolean ``[B|1, N|1, T, S]`` of the logits that take part, or None for all."""
    keep = np.ones((1, 1, T, S), bool)
    if mask is not None:
        keep = keep & mask.value
    t, s = np.arange(T)[:, None], np.arange(S)[None, :]
    if is_causal:
        keep = keep & (s <= t)
    if window is not None:
        left, right = window
        keep = keep & (t <= s + left) & (t >= s - right)
    if q_lengths is not None:
        keep = keep & (t < q_lengths.value[:, None, None, None])
    if kv_lengths is not None:
        keep = keep & (s < kv_lengths.value[:, None, None, None])
    masked = (mask is not None or is_causal or window is not None or q_lengths is not None
              or kv_lengths is not None)
    return keep if masked else None


def _softmax(x):
    """``exp(x - max) / sum``, as JAX's softmax: a row all of the large negative number is
    uniform (``x - logsumexp(x)`` rounds it to 0, each exp to 1)."""
    e = ops.exp(x - ops.stop_gradient(ops.max(x, axis=-1, keepdims=True)))
    return e / ops.sum(e, axis=-1, keepdims=True)


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """``softmax(q k^T scale + bias, masked) v`` for each head; the output has the query's
    shape (``return_residual``: and the logits' logsumexp, ``[B, T, N]``)."""
    shape = asarray(query).shape
    q, k, v = _four_d(query), _four_d(key), _four_d(value)
    bias = None if bias is None else _four_d(bias)
    mask = None if mask is None else _four_d(mask)
    q_lengths = None if query_seq_lengths is None else asarray(query_seq_lengths)
    kv_lengths = None if key_value_seq_lengths is None else asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = k.shape
    _check(v, [B, S, K, H], k.dtype, "value")
    _check(q, [B, -1, -1, H], k.dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(q_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check(kv_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
    N = q.shape[2]
    if N % K:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {N} vs {K}")
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"Unsupported implementation option: {implementation}")
    if N != K:  # head n reads key/value head n // (N // K)
        k, v = (repeat(t, N // K, axis=2) for t in (k, v))
    logits_dtype = np.promote_types(q.dtype, np.float32)
    logits = ops.astype(einsum("BTNH,BSNH->BNTS", q, k), logits_dtype)
    logits = logits * asarray(np.asarray(1.0 / np.sqrt(H) if scale is None else scale, logits_dtype))
    if bias is not None:
        logits = ops.astype(logits + bias, logits_dtype)
    keep = _keep(q.shape[1], S, mask, is_causal, q_lengths, kv_lengths, local_window_size)
    if keep is not None:  # JAX's large negative: finite, even in float32
        low = -0.7 * min(np.finfo(logits_dtype).max, np.finfo(np.float32).max)
        logits = ops.where(keep, logits, asarray(np.asarray(low, logits_dtype)))
    logits = ops.astype(logits, np.float32)  # JAX's softmax is float32, even for float64 inputs
    probs = ops.astype(_softmax(logits), k.dtype)
    out = einsum("BNTS,BSNH->BTNH", probs, v)
    if q_lengths is not None:
        out = out * (np.arange(out.shape[1])[None, :] < q_lengths.value[:, None])[:, :, None, None]
    out = ops.reshape(out, shape)
    if return_residual:
        lse = ops.stop_gradient(ops.astype(ops.logsumexp(logits, axis=-1), k.dtype))
        return out, ops.reshape(ops.transpose(lse, (0, 2, 1)), shape[:-1])
    return out
