"""A note about a trace (``Pitfall``), and what the detectors share to write one: host
copies of values, element labels, tolerances, a row's place in words.

Most notes are mistakes (shown with a warning sign); ``INFO`` kinds say what a check
recognised or could not do (an intentional surrogate gradient, a body it did not run again),
and are shown as information.
"""

from __future__ import annotations

import numpy as np

from .._backend import to_host
from ..core.tensor import raw
from ..render._format import number, order_name, summary

INFO = frozenset({"intentional-surrogate", "not-checked"})  # kinds that are not mistakes
RTOL = {np.dtype("float64"): 1e-6, np.dtype("float32"): 2e-3, np.dtype("float16"): 3e-2}
ATOL = {np.dtype("float64"): 1e-9, np.dtype("float32"): 1e-4, np.dtype("float16"): 1e-2}


class Pitfall:
    """A note about a trace: ``kind``, ``message`` (what, where, and the fix), ``row``;
    ``info`` when it is not a mistake.

    ``message`` may be given as a function that writes it: it runs when the message is
    first read, so the numbers it quotes come to the host only when someone looks."""

    __slots__ = ("kind", "_message", "row")

    def __init__(self, kind, message, row=None):
        self.kind, self._message, self.row = kind, message, row

    @property
    def info(self) -> bool:
        """Whether the note informs (an intentional pattern, a check not run) rather than warns."""
        return self.kind in INFO

    @property
    def message(self) -> str:
        if callable(self._message):
            try:
                with np.errstate(all="ignore"):  # writing a note warns nothing to the user
                    self._message = self._message()
            except Exception as e:  # a check must never hide the user's own result
                self._message = f"(this note could not be written: {type(e).__name__}: {e})"
        return self._message

    def __repr__(self):
        where = f" at {self.row.section} #{self.row.index}" if self.row is not None else ""
        return f"<Pitfall {self.kind}{where}: {self.message[:60]}...>"


def arrays(values):
    """The raw arrays among ``values`` (None and labels left out)."""
    return [raw(v) for v in (values or ()) if v is not None and not isinstance(v, str)]


def host64(v):
    """A value on the host, as float64."""
    return np.asarray(to_host(raw(v)), dtype=np.float64)


def place(row):
    """``backward row #3, first-order pass``."""
    return f"{row.section} row #{row.index}, {order_name(row.level)}"


def element(name, shape, flat):
    """The label of element ``flat`` of a value named ``name``: ``x[1, 2]``; ``x`` for 0-d."""
    if not shape:
        return name
    return f"{name}[{', '.join(str(int(i)) for i in np.unravel_index(flat, shape))}]"


def tolerance(dtype):
    """``(rtol, atol relative to the largest magnitude)`` for values computed in ``dtype``."""
    dtype = np.dtype(dtype)
    return RTOL.get(dtype, RTOL[np.dtype("float32")]), ATOL.get(dtype, ATOL[np.dtype("float32")])


def differ(a, b, tol):
    """Where ``a`` and ``b`` (host arrays) differ beyond ``tol`` (``(rtol, atol relative to
    the largest magnitude)``, as ``tolerance`` gives), element by element: a boolean array
    (NaN and Inf compare equal only to themselves)."""
    rtol, atol = tol
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    finite = np.isfinite(a) & np.isfinite(b)
    big = max(float(np.max(np.abs(np.where(finite, a, 0)), initial=0)),
              float(np.max(np.abs(np.where(finite, b, 0)), initial=0)))
    with np.errstate(invalid="ignore"):
        near = np.abs(a - b) <= atol * big + rtol * np.maximum(np.abs(a), np.abs(b))
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    return ~np.where(finite, near, same)


def shown(value, precision):
    """A value as the notes show it: a number, or a short summary of an array."""
    if isinstance(value, (float, int, np.floating)) or np.ndim(value) == 0:
        return number(float(np.asarray(value)), precision)
    return summary(np.asarray(value), precision)
