"""A custom function's body as it ran, and its true derivative from the record.

While a trace checks (``check=True``), it keeps the ops each custom function's body
recorded, from its inputs (and the values it read) to its outputs: ``Body``. The derivative
of what the user wrote is then the engine's own gradient of that record (``Body.vjp``):
exact, per input and per element, with no re-run, no random numbers drawn again and no side
effect. It is computed again in float64 (``replay``: the recorded ops run once more on
float64 copies of their operands; values the body made without recording, a random mask, a
condition, stay as they were) where every op allows it, else in the recorded dtype.
"""

from __future__ import annotations

import types

import numpy as np

from .._backend import xp_of
from ..core.backward import backward
from ..core.context import paused
from ..core.tensor import Tensor
from .notes import host64
from .snapshot import code_of


def wide(v):
    """A floating array (or number) in float64; anything else as it is."""
    dtype = getattr(v, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype != np.float64 and hasattr(v, "shape"):
        return xp_of(v).asarray(v, dtype=np.float64)
    return v


def _outs(out):
    return out if type(out) is tuple else (out,)


class Body:
    """The ops a custom function's body recorded (``entries``: ``(prim, args, vals, out,
    params)`` as a tape keeps them), its op's arguments (``args``: inputs, then the
    variables it read) and its body's outputs (``ys``)."""

    __slots__ = ("entries", "args", "ys", "_wide")

    def __init__(self, entries, args, ys):
        self.entries, self.args, self.ys = list(entries), tuple(args), tuple(ys)
        self._wide = False  # not replayed yet

    @property
    def joint(self) -> bool:
        """Whether the body called another custom function (whose rule is user code)."""
        return any(e[0].joint for e in self.entries)

    def read(self) -> list:
        """The floating Tensors the body read that it neither computed nor took as
        arguments: values it captured from the enclosing scope or a global."""
        made = {id(a) for a in self.args if isinstance(a, Tensor)}
        out, seen = [], set()
        for prim, args, vals, out_, params in self.entries:
            for a in args:
                if (isinstance(a, Tensor) and id(a) not in made and id(a) not in seen
                        and a.dtype.kind == "f"):
                    seen.add(id(a))
                    out.append(a)
            made.update(id(o) for o in _outs(out_))
        return out

    def replay(self, values=None):
        """The recorded ops run again on new argument values (``values``: one per arg, None
        to keep one; by default every floating value in float64): ``(entries, {id(old
        tensor): new tensor})``, or None where an op cannot run so (a custom function's)."""
        new = {}
        for k, a in enumerate(self.args):
            if isinstance(a, Tensor):
                v = a.value if values is None or values[k] is None else xp_of(a.value).asarray(values[k])
                new[id(a)] = Tensor(wide(v))
        entries = []
        try:
            for prim, args, vals, out, params in self.entries:
                if prim.joint or type(out) is tuple:
                    return None
                nargs, nvals = [], []
                for a, v in zip(args, vals):
                    t = new.get(id(a))
                    nargs.append(a if t is None else t)
                    nvals.append(wide(v) if t is None else t.value)
                xp = xp_of(next((v for v in nvals if hasattr(v, "shape")), out.value))
                value = prim.impl(xp)(*nvals, **params)
                if tuple(getattr(value, "shape", ())) != tuple(out.value.shape):
                    return None
                t = new[id(out)] = Tensor(value)
                entries.append((prim, tuple(nargs), tuple(nvals), t, params))
        except Exception:
            return None
        return entries, new

    def outputs(self, values):
        """The body's outputs (host float64) for new argument values, by replaying its
        ops (values it made without recording kept as they were); None where it cannot."""
        with paused(), np.errstate(all="ignore"):
            replayed = self.replay(values)
        if replayed is None:
            return None
        entries, new = replayed
        return [host64(new.get(id(y), y)) for y in self.ys]

    def vjp(self, upstream, wrt=None):
        """``upstream`` (one per output) times the Jacobian of the body, for each of ``wrt``
        (default: every argument): an array, or None where the body does not connect it."""
        wrt = self.args if wrt is None else tuple(wrt)
        if self._wide is False:
            with paused(), np.errstate(all="ignore"):
                self._wide = None if self.joint else self.replay()
        entries, new = self._wide if self._wide is not None else (self.entries, {})
        ys = [new.get(id(y), y) for y in self.ys]
        seeds = {}
        for y, u in zip(ys, upstream):
            if u is None or not isinstance(y, Tensor):
                continue
            u = xp_of(y.value).asarray(u, dtype=y.dtype)
            seeds[id(y)] = u if id(y) not in seeds else seeds[id(y)] + u
        targets = [new.get(id(w), w) for w in wrt]
        ids = set(seeds) | {id(t) for t in targets if isinstance(t, Tensor)}
        for prim, args, vals, out, params in entries:
            ids.update(id(a) for a in args if isinstance(a, Tensor))
            ids.update(id(o) for o in _outs(out))
        with paused(), np.errstate(all="ignore"):
            found = backward(list(entries), ids, seeds, {id(t) for t in targets}, False)
        return [found.get(id(t)) if isinstance(t, Tensor) else None for t in targets]


def call_kind(call):
    """What makes two custom calls the same for a check: the function (its code, so that
    the closures one definition makes count as one, with the settings it was made with:
    the numbers, strings and functions its closure and defaults hold, so that functions
    made in a loop with different ones each count) and its arguments' shapes and dtypes."""
    fn = call.forward_function()
    f = code_of(fn)
    key = (f.__code__, _made_with(f)) if f is not None else fn
    return (key, call.level, tuple((tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", type(a).__name__)))
                                   for a in list(call.inputs) + list(call.variables)))


SETTINGS = (bool, int, float, complex, str, bytes, type(None))


def _made_with(f):
    """What a function was made with, as far as it tells one function made in a loop
    from another: the numbers, strings and functions (by identity) of its closure and
    defaults; arrays by shape and dtype, anything else by its type."""
    values = list(f.__defaults__ or ()) + list((f.__kwdefaults__ or {}).values())
    for cell in f.__closure__ or ():
        try:
            values.append(cell.cell_contents)
        except ValueError:  # a cell not filled yet
            values.append(None)
    return tuple(_setting(v) for v in values)


def _setting(v, depth=0):
    if isinstance(v, SETTINGS):
        return (type(v).__name__, v)
    if isinstance(v, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)):
        return id(v)
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return (type(v).__name__, tuple(v.shape), str(v.dtype))
    if isinstance(v, tuple) and depth < 2:
        return tuple(_setting(x, depth + 1) for x in v[:16])
    return type(v).__name__
