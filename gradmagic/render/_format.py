"""What the renderers share: summaries of values, a row's cells, its level's name, the
sections, fold markers and gradient lines. The only place a trace copies values to the
host.

Only what is shown is copied: a few leading elements, min, max and the NaN/Inf counts
(reductions run on the device; their scalars come back). Rows are read through their
public attributes (``kind``, ``level``, ``index``, ``inputs``, ``upstream``, ``local``,
``downstream``, ``input_names()``, ``output_names()``), so nothing here imports the trace
that made them.
"""

import math

import numpy as np

from .._array_api import numpy_names
from .._backend import kind, numpy_dtype, to_host, xp_of
from .._scans import count_nonfinite
from ..core.context import paused
from ..core.tensor import Tensor

ORDER_NAMES = {0: "forward", 1: "first-order pass", 2: "second-order pass", 3: "third-order pass"}


def order_name(level):
    """``forward``, ``first-order pass`` ... for the rows of a level."""
    return ORDER_NAMES.get(level, f"order-{level} pass")


FORWARD_MODE = "forward-mode pass"  # the heading of forward-mode steps, in every renderer


def forward_mode_heading(level):
    """``forward-mode pass``, or ``ops of the first-order pass`` after it for the steps of
    ops a backward pass ran (forward-over-reverse): ``(heading, detail)``."""
    return FORWARD_MODE, f"ops of the {order_name(level)}" if level else ""

SHOWN = 4  # arrays of up to this many elements are shown whole; larger ones by 3 and "..."
_SHORT = {"float64": "f64", "float32": "f32", "float16": "f16", "int64": "i64", "int32": "i32",
          "complex128": "c128", "complex64": "c64", "bool": "bool"}


def number(x, precision=4):
    """A float as people write it: ``1024``, ``0.8808``, ``nan``, ``-inf``, ``1.5e-08``."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return format(x, f".{precision}g")


def summary(value, precision=4, brief=False):
    """One short line for a value: a number, the values of a small array, or the shape,
    dtype, first values, min and max of a larger one (``brief``: no first values)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (tuple, list)):  # None among several: an output nothing used
        return ", ".join("unused" if v is None else summary(v, precision, brief) for v in value)
    if isinstance(value, Tensor):
        value = value.value
    if not hasattr(value, "shape"):
        return number(value, precision) if isinstance(value, (int, float)) else str(value)
    if isinstance(value, np.ma.MaskedArray):  # a local derivative unknown in places: "?" there
        return _masked(value, precision, brief)
    k = kind(value.dtype)  # NumPy's letter, also for array-API dtypes
    if k == "b":
        host = np.asarray(to_host(value))
        return str(host.tolist()) if host.size <= SHOWN else f"{host.shape} bool, {int(host.sum())} true"
    if value.ndim == 0:
        return number(to_host(value), precision) if k in "fiu" else str(to_host(value))
    if value.size <= SHOWN:
        return _nested(np.asarray(to_host(value)).tolist(), precision)
    xp = xp_of(value)
    flat = xp.reshape(value, (-1,))
    text = _head(value, () if brief else np.asarray(to_host(flat[:3])).tolist(), precision, brief)
    return text + (_spread(flat, xp, precision, brief) if k in "fc" else "")


def _head(value, first, precision, brief):
    """A larger array's shape and dtype, and (unless ``brief``) its ``first`` values."""
    shape = "(" + ",".join(str(n) for n in value.shape) + ")"
    name = numpy_dtype(value.dtype).name  # float32, also for array_api_strict.float32
    text = f"{shape} {_SHORT.get(name, name)}"
    return text if brief else text + f" [{', '.join(_nested(v, precision) for v in first)}, ...]"


def _spread(flat, xp, precision, brief):
    """The finite range of the floating values ``flat`` and their NaN and Inf counts."""
    finite = xp.isfinite(flat)
    ns = numpy_names(xp)  # sums of booleans, on any module
    n_nan = int(to_host(ns.sum(xp.isnan(flat))))
    n_inf = int(to_host(ns.sum(xp.isinf(flat))))
    text = ""
    if bool(to_host(xp.any(finite))):
        lo = number(to_host(xp.min(xp.where(finite, flat, xp.inf))), precision)
        hi = number(to_host(xp.max(xp.where(finite, flat, -xp.inf))), precision)
        text += f" ∈ [{lo}, {hi}]" if brief else f" min {lo} max {hi}"
    if n_nan:
        text += f" nan:{n_nan}"
    if n_inf:
        text += f" inf:{n_inf}"
    return text


def _nested(items, precision):
    if isinstance(items, list):
        return "[" + ", ".join(_nested(i, precision) for i in items) + "]"
    if items is None:  # a masked element
        return UNKNOWN
    return number(items, precision) if isinstance(items, (int, float)) and not isinstance(
        items, bool) else str(items)


UNKNOWN = "?"  # an element of a masked array: a local derivative no one can tell (0 / 0)


def _masked(value, precision, brief):
    """A host masked array: ``UNKNOWN`` for each masked element of a small one; for a larger
    one, its shape and dtype, the range of its known elements and how many are unknown."""
    unknown = int(np.ma.count_masked(value))
    if not unknown:
        return summary(value.data, precision, brief)
    if value.size <= SHOWN:
        return _nested(value.tolist(), precision) if value.ndim else UNKNOWN
    text = _head(value, value.ravel()[:3].tolist(), precision, brief)
    return text + _spread(value.compressed(), np, precision, brief) + f" {UNKNOWN}:{unknown}"


def bad_count(value):
    """How many NaN or Inf values ``value`` holds (0 for non-floating values)."""
    if value is None or isinstance(value, str):
        return 0
    if isinstance(value, (tuple, list)):
        return sum(bad_count(v) for v in value)
    return count_nonfinite(value.value if isinstance(value, Tensor) else value)


# -- rows ---------------------------------------------------------------------------------
def pairs(names, values, precision, brief=False):
    """``name=value`` for each value that is not None, joined by commas."""
    if values is None:
        return ""
    if isinstance(values, str):
        return values
    parts = [f"{n}={summary(v, precision, brief)}" if n else summary(v, precision, brief)
             for n, v in zip(names, values) if v is not None]
    return ", ".join(parts)


def cells(row, precision, brief=False):
    """The row as display strings: ``x``, ``y``, ``upstream``, ``local``, ``downstream``
    (values summarised; ``name=value`` for each input, and for an output with a number
    of its own, ``t3=value``; in a forward-mode row ``upstream`` and ``downstream`` are the
    tangents in and out). Every renderer shows these;
    ``brief`` leaves out the first values of large arrays (for narrow text tables)."""
    p = precision
    names = row.input_names()
    if row.kind in ("sum", "broadcast"):
        down = row.downstream[0] if row.downstream else None
        if down is None and row.kind == "sum":
            with paused():
                down = row.upstream[0] + row.upstream[1]
        return {"x": names[0] if names else "", "y": "",
                "upstream": " + ".join(summary(u, p, brief) for u in row.upstream),
                "local": str(row.local), "downstream": summary(down, p, brief)}
    local = row.local
    if isinstance(local, tuple) and len(local) == 1 and not isinstance(local[0], str):
        local = summary(local[0], p, brief)
    elif isinstance(local, tuple):
        local = ", ".join(
            f"{n}: {v.format(*names)}" if isinstance(v, str) else f"{n}={summary(v, p, brief)}"
            for n, v in zip(names, local) if v is not None)
    else:
        local = summary(local, p, brief)
    down = row.downstream
    if row.section == "forward-mode":  # tangents in, one per input; out, one per output
        return {"x": pairs(names, row.inputs, p, brief), "y": "",
                "upstream": pairs(names, row.upstream, p, brief), "local": local,
                "downstream": summary(down, p, brief)}
    return {"x": pairs(names, row.inputs, p, brief),
            "y": pairs(row.output_names(), row.outputs, p, brief) if row.section == "forward" else "",
            "upstream": summary(row.upstream, p, brief), "local": local,
            "downstream": summary(down[0], p, brief) if down is not None and len(down) == 1
            else pairs(names, down, p, brief)}


def by_level(rows):
    """Rows split where the level changes, in order: ``[(level, [(k, row), ...]), ...]``
    with ``k`` each row's position in ``rows``."""
    out = []
    for k, row in enumerate(rows):
        if not out or out[-1][0] != row.level:
            out.append((row.level, []))
        out[-1][1].append((k, row))
    return out


def folded_after(rows, k):
    """How many rows were folded away between ``rows[k]`` and the next one kept."""
    return rows[k + 1].index - rows[k].index - 1 if k + 1 < len(rows) else 0


def fold_text(n, what="rows"):
    """The marker where ``n`` rows were folded."""
    return f"... {n} {what} folded ..."


def bare(name):
    """A value's name without the brackets of ``(a * b)``: it stands inside ``d(...)``."""
    return name[1:-1] if name.startswith("(") and name.endswith(")") else name


def gradient_line(trace, row, precision, brief=False):
    """A gradient row as ``(target, source, value)``: ``d(target)/d(source) = value``,
    ``value`` None for a gradient that is None; values named as the rows name them."""
    names = [trace.name_of(t) or "target" for t in row.outputs] or ["target"]
    target = " + ".join(names) if len(names) > 1 else bare(names[0])
    source = bare((trace.name_of(row.inputs[0]) if row.inputs else None) or "source")
    g = row.downstream[0] if row.downstream else None
    return target, source, None if g is None else summary(g, precision, brief)
