"""How a tensor prints, as PyTorch 2.13.0's ``torch/_tensor_str.py`` prints it, and
``torch.set_printoptions``.

Its rule for floats: all whole numbers print as ``2.``; scientific notation (``1.0240e+02``)
where the largest and the smallest nonzero finite magnitudes differ by more than 1000
times, or the largest is over 1e8, or the smallest under 1e-4; else fixed point, with
``precision`` digits (4). Every element is padded to one width, a row is wrapped at
``linewidth`` (80) characters, and a tensor of more than ``threshold`` (1000) elements is
summarized to its ``edgeitems`` (3) first and last along each dimension.
"""

from __future__ import annotations

import math

import numpy as np

from .modes import tangent_of
from .values import DEFAULT_INT, default_float, torch_dtype

PROFILES = {"default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
            "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
            "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80}}
OPTIONS = dict(PROFILES["default"], sci_mode=None)  # process-wide, as PyTorch's PRINT_OPTS


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """``torch.set_printoptions``: from now on, for the whole process; ``sci_mode`` None
    (what every call without it sets) lets each tensor's values decide."""
    if profile is not None:
        OPTIONS.update(PROFILES.get(profile, {}))
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    OPTIONS.update({k: v for k, v in given.items() if v is not None}, sci_mode=sci_mode)


class Formatter:
    """PyTorch's ``_Formatter``: how each element of ``a`` (a NumPy array, maybe the summary
    of a larger one) is written, at one width."""

    def __init__(self, a):
        self.floating = a.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        flat = a.reshape(-1)
        if not self.floating:
            self.width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if not shown.size:
            return
        magnitudes = np.abs(shown.astype(np.float64))
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        sci = OPTIONS["sci_mode"]
        self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4 if sci is None else sci
        values = shown.tolist()
        if self.sci_mode or not self.int_mode:
            self.width = max(len(self.plain(v)) for v in values)
        else:
            self.width = max(len(f"{v:.0f}") + 1 for v in values)

    def plain(self, v):
        precision = OPTIONS["precision"]
        return f"{v:.{precision}e}" if self.sci_mode else f"{v:.{precision}f}"

    def format(self, v):
        if not self.floating:
            text = str(v)
        elif self.int_mode and not self.sci_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = self.plain(v)
        return text.rjust(self.width)


def summary(a):
    """PyTorch's ``get_summarized_data``: the ``edgeitems`` first and last along each
    dimension, which its formatter reads in a tensor too large to print whole."""
    edge = OPTIONS["edgeitems"]
    if a.ndim == 0:
        return a
    if a.ndim > 1 and not edge:
        return a[(slice(0, 0),) * a.ndim]
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    return np.stack([summary(s) for s in a]) if a.ndim > 1 else a


def body(a, indent, summarize, formatter):
    """PyTorch's ``_tensor_str_with_formatter``: the nested brackets of ``a``."""
    edge = OPTIONS["edgeitems"]
    cut = summarize and a.shape[0] > 2 * edge if a.ndim else False
    if a.ndim == 0:
        return formatter.format(a.item())
    if a.ndim == 1:
        if summarize and not edge:
            items = ["..."]
        else:
            parts = (a[:edge], None, a[-edge:]) if cut else (a,)
            items = [" ..." if p is None else formatter.format(v) for p in parts
                     for v in ([None] if p is None else p.tolist())]
        per_line = max(1, (OPTIONS["linewidth"] - indent) // (formatter.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = ([*range(edge), None, *range(a.shape[0] - edge, a.shape[0])] if cut else range(a.shape[0]))
    slices = ["..." if i is None else body(a[i], indent + 1, summarize, formatter) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def format_tensor(t):
    """As PyTorch prints a tensor: ``tensor([1.0000, 2.5000], requires_grad=True)``, the
    suffixes wrapped onto a line of their own where the last line would pass ``linewidth``."""
    a = np.asarray(t.numpy(force=True))
    prefix, indent, suffixes = "tensor(", 7, []
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append(f"size={a.shape}")
        text = "[]"
        show_dtype = a.dtype != default_float()
    else:
        summarize = a.size > OPTIONS["threshold"]
        if not OPTIONS["edgeitems"]:
            suffixes.append(f"size={a.shape}")
        text = body(a, indent, summarize, Formatter(summary(a) if summarize else a))
        show_dtype = a.dtype not in (default_float(), DEFAULT_INT, np.dtype(bool))
    if show_dtype:
        suffixes.append(f"dtype={torch_dtype(a.dtype)!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn={t.grad_fn!r}")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    tangent = tangent_of(t)  # at the dual level of forward AD
    if tangent is not None:
        suffixes.append(f"tangent={format_tensor(tangent)}")
    out = prefix + text
    last = len(out) - out.rfind("\n") + 1  # (as PyTorch counts it)
    for s in suffixes:
        if last + len(s) + 2 > OPTIONS["linewidth"]:
            out, last = out + ",\n" + " " * indent + s, indent + len(s)
        else:
            out, last = out + ", " + s, last + len(s) + 2
    return out + ")"
