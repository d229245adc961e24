"""Traces: every forward value and backward step, recorded from the engine's hooks.

A ``Trace`` is a listener on the tape stack (``core.context.Listener``): the engine
tells it of each op, each custom-gradient function, and each step of every backward
pass; it builds rows from them (``rows.py``), names their values after the user's
variables (``names.py``) and, when the traced block ends, runs the pitfall detectors
over them (``pitfalls.py``). It does not change what the engine computes. Rows keep
arrays by reference; renderers (``render/``) summarise them, and only then copy to the
host.

Grouping: by default one row per user-level function (a ``custom_gradient`` function,
a function marked ``@traced``, a ``with scope(...)`` block), its ops folded inside;
``ops=True`` shows every primitive. A long trace keeps its first and last rows and
counts the ones in between (``max_rows`` per section), so memory stays bounded.
"""

from __future__ import annotations

import functools
import inspect
import json
import sys
import weakref

from ..core.backward import broadcast_axes
from ..core import context
from ..core.context import Listener, paused, push, remove
from ..core.tensor import Tensor, Variable
from ..errors import TapeError
from ..render._format import summary
from ..render.html import render_html
from ..render.text import render_text
from . import options
from .body import Body, call_kind
from .names import Naming
from .pitfalls import Pitfall, detect, why_none
from .rows import (CUSTOM_LOCAL, DOWNSTREAM, ELEMENTWISE, FORWARD_MODE, LEVEL, LOCAL, NOTE,
                   OUTPUTS, UPSTREAM, Group, Rows, TraceRow, ratio_local, record_row, replayed_local,
                   view)
from .snapshot import quietly


class Trace(Naming, Listener):
    """A record of every forward value and backward step of the code run inside it.

    Use it as ``with gm.trace() as tr:``; then ``print(tr)``, show it in a notebook, or
    read ``tr.forward``, ``tr.backward``, ``tr.gradients``, ``tr.to_rows()``,
    ``tr.to_json()``, ``tr.to_frame()``, ``tr.plot()``.

    >>> @gm.custom_gradient
    ... def foo(x):
    ...     return x ** 2, lambda upstream: upstream * 2 * x
    >>> x = gm.constant(2.0)
    >>> with gm.trace() as tr:
    ...     with gm.GradientTape() as tape:
    ...         tape.watch(x)
    ...         y = foo(foo(foo(x)))
    ...     dy_dx = tape.gradient(y, x)
    >>> [[float(v) for v in (r.inputs[0], r.upstream[0], r.local[0], r.downstream[0])]
    ...  for r in tr.backward]
    [[16.0, 1.0, 32.0, 32.0], [4.0, 32.0, 8.0, 256.0], [2.0, 256.0, 4.0, 1024.0]]
    """

    def __init__(self, ops: bool = options.OPS.default, check: bool = options.CHECK.default,
                 max_rows: int = options.MAX_ROWS.default,
                 precision: int = options.PRECISION.default):
        super().__init__()
        self.ops, self.check = options.OPS.check(ops), options.CHECK.check(check)
        self.max_rows = options.MAX_ROWS.check(max_rows)
        self.precision = options.PRECISION.check(precision)
        self._forward, self._backward, self._gradients = Rows(max_rows), Rows(max_rows), Rows(max_rows)
        self._tangents = Rows(max_rows)  # the steps of forward-mode passes
        self._pitfalls = []
        self._detected = False
        self._stack = []  # open groups, outermost first
        self._owner = {}  # id(output) of an op inside a group -> the outermost group
        self._folding = None  # (group, row) whose backward steps are being folded
        self._pending = []  # sum and unbroadcast rows waiting for their step's row
        self._snapshots = {}  # (id(tensor), id(value)) -> the Tensor rows show for a mutable one
        self._read_from = {}  # id(that Tensor) -> the tensor it was read from
        self._active = False
        self._used = False
        self._found = []  # pitfalls found while the code ran (None gradients, contract errors)
        self._bodies = {}  # a custom call -> its Body: one per function and input shapes (check)
        self._kinds = set()  # those (function, shapes) whose body is kept
        self._called = []  # the arguments transforms called the user's functions on

    # -- as a context ----------------------------------------------------------------
    def __enter__(self):
        if self._active or self._used:
            raise TapeError("trace: a Trace records once; use a new gm.trace() for each block")
        self._active = True
        push(self)
        return self

    def __exit__(self, *exc):
        remove(self)
        self._active = False
        self._used = True
        self._close_groups()
        self._flush_fold()
        self.name_from_frame(sys._getframe(1))
        self.close_names()
        if self.check:  # the checks run now, as the block ends
            self._detect()
        return False

    def _detect(self):
        """Run the detectors once the block has ended, at the first look at the trace's
        rows or pitfalls (or at its end, with ``check=True``): a trace that is never
        looked at reads no value, so tracing a GPU step syncs nothing."""
        if self._detected or not self._used:
            return
        self._detected = True
        for row in self._backward.rows(self):  # what a custom rule saved, as a note of its row
            saved = row.source.saved() if row.kind == "function" and hasattr(row.source, "saved") else ()
            if saved:
                row.add_note("saved for backward: " + ", ".join(
                    f"{name}={summary(value, self.precision, brief=True)}" for name, value in saved))
        self._pitfalls = self._found + detect(self)

    @property
    def pitfalls(self) -> list:
        """The mistakes found, each with ``kind``, ``message`` and ``row`` (see ``pitfalls.py``)."""
        self._detect()
        return self._pitfalls

    # -- rows ------------------------------------------------------------------------
    @property
    def forward(self) -> list[TraceRow]:
        """The forward rows (first and last ``max_rows // 2`` when there are more)."""
        self._detect()
        return self._forward.rows(self)

    @property
    def forward_mode(self) -> list[TraceRow]:
        """The steps of forward-mode passes (``gm.jvp``, an accumulator): one row per op (per
        custom function) whose inputs had tangents: tangents in, local, tangents out."""
        self._detect()
        return self._tangents.rows(self)

    @property
    def backward(self) -> list[TraceRow]:
        """The backward rows, in the order the backward passes ran them."""
        self._detect()
        return self._backward.rows(self)

    @property
    def gradients(self) -> list[TraceRow]:
        """One row per source of each ``tape.gradient`` call: what it returned."""
        self._detect()
        return self._gradients.rows(self)

    def _section(self, section):
        return {"forward": self._forward, FORWARD_MODE: self._tangents, "backward": self._backward,
                "gradient": self._gradients}[section]

    def folded(self, section: str) -> int:
        """How many rows of ``section`` were folded away (kept: the first and last)."""
        return self._section(section).folded

    def total(self, section: str) -> int:
        """How many rows ``section`` had, the folded ones included."""
        return self._section(section).total

    def rows(self) -> list[TraceRow]:
        return self.forward + self.forward_mode + self.backward + self.gradients

    # -- engine hooks: forward ---------------------------------------------------------
    def on_op(self, prim, args, vals, out, params):
        level = context.LEVEL.get()
        inside = ""
        if self._stack:
            if self.check:  # each custom function's body keeps its ops, to be checked
                for g in self._stack:
                    if g.body is not None:
                        g.body.append((prim, args, vals, out, params))
            group = self._stack[0]
            group.n_ops += 1
            key = id(out)  # forgotten when out dies, so a new value at that address is not its
            self._owner[key] = (weakref.ref(out, lambda _, k=key, d=self._owner: d.pop(k, None)), group)
            if not self.ops:
                return
            inside = " › ".join(g.name for g in self._stack)
        elif level and not self.ops:
            return  # an op of a backward pass: its step shows as a backward row
        for a in args:
            if getattr(a, "mutable", False):  # shown with the value it had here, under its name
                args = self._frozen(args, vals)
                break
        outs = self._frozen((out,)) if out.mutable else (out,)
        # a record as record_row builds it, written out: this runs for every op
        self._forward.add(["forward", level, "op", prim.name, args, None, outs, None, None,
                           None, "", inside, 0, None, None])

    def on_function_enter(self, name, inputs, names):
        row, shown = None, self._frozen(inputs)
        if (not self._stack and not context.LEVEL.get()) or self.ops:
            row = record_row("forward", context.LEVEL.get(), "function", name, shown, tuple(names),
                              context=" › ".join(g.name for g in self._stack))
            self._forward.add(row)
        self._stack.append(Group(name, inputs, shown, tuple(names), row, custom=True,
                                 body=[] if self.check else None))

    def on_custom_op(self, prim, inputs, vals, ys, outs, params):
        if not self.check or not self._stack:
            return
        group, call = self._stack[-1], params.get("call")
        for g in self._stack[:-1]:  # to the functions around it, one op of their bodies
            if g.body is not None:
                g.body.append((prim, tuple(inputs), vals, tuple(outs), params))
        if group.body is None or call is None:
            return
        kind = call_kind(call)
        if kind not in self._kinds:  # one body per function and input shapes is checked
            self._kinds.add(kind)
            self._bodies[call] = Body(group.body, inputs, ys)
        group.body = None

    def body_of(self, call):
        """The recorded body of a custom call (a ``Body``), kept when the trace checks, for
        the first call of each function and input shapes; else None."""
        return self._bodies.get(call)

    def _close(self, outputs):
        """The innermost group ended, giving ``outputs`` (None: it raised): its row, if it
        has one, gets them; the group, or None where the trace had closed it already."""
        if not self._stack:  # the trace ended inside it (its groups were closed then)
            return None
        group = self._stack.pop()
        if group.row is not None:
            group.row[OUTPUTS] = self._frozen(outputs) if outputs is not None else ()
            if outputs is None:
                group.row[NOTE] = "raised an exception"
        return group

    def on_function_exit(self, name, outputs):
        group = self._close(outputs)
        if group is not None and group.row is not None and outputs is not None and group.n_ops > 1 \
                and not self.ops:
            group.row[NOTE] = f"{group.n_ops} ops folded"

    def on_call(self, fn, args, kwargs):
        """A transform calls the user's ``fn``: its arguments are named after its parameters
        (kept alive with the trace, so no later value takes one's id and name)."""
        try:
            arguments = inspect.signature(fn).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):  # no signature to read, or one that does not fit
            return
        self._called.append(arguments)
        self.name_values(arguments)

    def on_composite_enter(self, op, inputs, labels):
        """An op made of ops (np.sort, np.roll ...) is one "op" row, its ops folded inside;
        shown, like a function's, where the user called it (or everywhere with ops=True)."""
        row, shown = None, self._frozen(inputs)  # a mutable tensor: with the value it has now
        if (not self._stack and not context.LEVEL.get()) or self.ops:
            row = record_row("forward", context.LEVEL.get(), "op", op.name, shown, source=op,
                             context=" › ".join(g.name for g in self._stack))
        if row is not None and self.ops:  # before the ops it is made of
            self._forward.add(row)
        self._stack.append(Group(op.name, inputs, shown, None, row, custom=False, composite=op,
                                 labels=labels))

    def on_composite_exit(self, op, outputs):
        group = self._close(outputs)
        if group is None:
            return
        if group.row is not None and not self.ops and (group.n_ops or outputs is None):
            self._forward.add(group.row)  # (with no op, it gave its input back: no row)
        if group.tangents is not None and outputs:  # forward mode: one row, its ops folded
            tangents = group.tangents
            rec = record_row(
                FORWARD_MODE, context.LEVEL.get(), "op", op.name,
                group.shown, None, self._frozen(outputs),
                upstream=tuple(tangents.get(id(v)) for v in group.inputs),
                downstream=tuple(tangents.get(id(v)) for v in outputs), local="", source=op,
                context=" › ".join(g.name for g in self._stack))
            if op.elementwise and len(rec[UPSTREAM]) == 1 and rec[UPSTREAM][0] is not None:
                # its derivative, as a backward row's: tangent out / tangent in is 0 / 0 where
                # the tangent in is 0 (an elementwise Jacobian is diagonal either way)
                rec[LOCAL] = functools.partial(replayed_local, rec, group.steps, group.inputs[0], "")
            self._tangents.add(rec)

    def scope_enter(self, name, inputs, names):
        """A ``scope`` or ``@traced`` function starts: its ops are grouped under ``name``."""
        self.on_function_enter(name, inputs, names)
        self._stack[-1].custom = False
        self._stack[-1].body = None  # only a custom function's body is checked

    def scope_exit(self, name, outputs, raised=False):
        """It ended, giving ``outputs`` (a Tensor, or a tuple or list holding some)."""
        if raised:
            outputs = None
        elif isinstance(outputs, Tensor):
            outputs = (outputs,)
        elif isinstance(outputs, (tuple, list)):
            outputs = tuple(o for o in outputs if isinstance(o, Tensor))
        else:
            outputs = ()
        self.on_function_exit(name, outputs)

    def _close_groups(self):
        while self._stack:
            self.on_function_exit(self._stack[-1].name, None)

    # -- engine hooks: forward mode ----------------------------------------------------
    def on_tangent_step(self, step):
        prim, args, vals, out, params = step.entry
        groups = self._stack
        call = params["call"] if prim.joint else None
        if call is not None and groups and groups[-1].custom and groups[-1].name == call.name:
            groups = groups[:-1]  # the function's own step, heard before it returns
        if not self.ops and any(g.custom for g in groups):
            return  # an op inside a custom function: the function's own row follows
        composite = None if self.ops else next((g for g in groups if g.composite is not None), None)
        if composite is not None:  # folded: the composite's own row follows, from these tangents
            if composite.tangents is None:
                composite.tangents = {}
            composite.steps.append(step.entry)
            for v, t in zip(args + (out if type(out) is tuple else (out,)),
                            step.tangents_in + step.tangents_out):
                if t is not None:
                    composite.tangents[id(v)] = t  # the latest: an id dead values had is reused
            return
        args = self._frozen(args, vals)
        where, level = " › ".join(g.name for g in groups), context.LEVEL.get()
        if call is None:
            rec = record_row(FORWARD_MODE, level, "op", prim.name, args, None, self._frozen((out,)),
                             upstream=step.tangents_in, downstream=step.tangents_out,
                             context=where, source=prim)
            rec[LOCAL] = (ELEMENTWISE, vals, params) if prim.elementwise else ""
        else:
            rec = record_row(FORWARD_MODE, level, "function", call.name, args,
                             tuple(call.names) + tuple(v.name for v in call.variables), self._frozen(out),
                             upstream=step.tangents_in, downstream=step.tangents_out,
                             note=_tangent_note(call, step), context=where, source=call)
            label = "grad_grad_fn(tangent)" if step.nested else call.words.get("forward", "grad_fn, transposed")
            rec[LOCAL] = functools.partial(ratio_local, rec, label) if len(args) == 1 else label
        self._tangents.add(rec)

    # -- engine hooks: backward --------------------------------------------------------
    def on_backward_step(self, entry, g, downs, level):
        prim, args, vals, out, params = entry
        if prim.joint:  # a custom-gradient function: one row, its grad_fn's numbers
            self._flush_fold()
            call = params["call"]
            self._add_backward(record_row(
                "backward", level, "function", call.name, self._frozen(args, vals),
                tuple(call.names) + tuple(v.name for v in call.variables), self._frozen(out),
                upstream=tuple(g), downstream=tuple(downs), local=CUSTOM_LOCAL, source=call))
            return
        if self._owner and not self.ops:
            owner = self._owner_of(out)
            if owner is not None:
                self._pending.clear()  # folded with the step, into the function's row
                self._fold(owner, entry, g, downs, level)
                return
        if self._folding is not None:
            self._flush_fold()
        for a in args:  # (as on_op: this runs for every step)
            if getattr(a, "mutable", False):
                args = self._frozen(args, vals)
                break
        if prim.elementwise:  # computed when shown: the rule applied to an upstream of ones
            local = (ELEMENTWISE, vals, params)
        else:
            local = tuple(lbl if d is not None else None
                          for lbl, d in zip(prim.labels or (), downs)) or prim.name
        outs, ups = (out, tuple(g)) if type(out) is tuple else ((out,), (g,))  # (a node's hooks: several)
        self._add_backward(["backward", level, "op", prim.name, args, None,
                            self._frozen(outs) if any(o.mutable for o in outs) else outs, ups, local,
                            tuple(downs), "", "", 0, None, prim])

    def _frozen(self, values, vals=None):
        """``values`` (a tuple) with each tensor whose value an in-place change can replace
        (a Variable, a gradmagic.torch tensor: ``mutable``) replaced by a tensor of the
        value it has here (``vals[k]``, the value an op read, else its value now), read as
        the same tensor: a later change must not change what a row shows. It copies
        nothing: an in-place op gives its tensor a new array. (A write into the array of a
        gradmagic.torch tensor's ``.numpy()``, which shares its memory as PyTorch's does, is
        seen by no version counter, PyTorch's included, nor by the rows.)"""
        out = None
        for k, a in enumerate(values):
            if getattr(a, "mutable", False):
                out = list(values) if out is None else out
                out[k] = self._snap(a, a.value if vals is None else vals[k])
        return tuple(values) if out is None else tuple(out)

    def _snap(self, tensor, value):
        source = getattr(tensor, "stands_for", None)  # a dialect's stand-in in a walk (the
        source = tensor if source is None else source  # version an in-place op replaced)
        key = (id(source), id(value))  # one snapshot per value: forward and backward rows
        snap = self._snapshots.get(key)  # show the same value object
        if snap is None:  # (the rows hold the source, so its id is not reused)
            cls = source.result_class  # a Variable's is a Tensor; a torch tensor's, its class
            snap = self._snapshots[key] = cls.__new__(cls)
            snap.value = value
            self._read_from[id(snap)] = source  # it reads as the source's name (known_name)
        return snap

    def source_of(self, value):
        """The mutable tensor a row's value was read from, or None."""
        return self._read_from.get(id(value))

    def variable_of(self, value):
        """The Variable a row's input was read from, or None."""
        if isinstance(value, Variable):
            return value
        source = self._read_from.get(id(value))
        return source if isinstance(source, Variable) else None

    def _owner_of(self, value):
        found = self._owner.get(id(value))
        return found[1] if found is not None and found[0]() is value else None

    def _fold(self, group, entry, g, downs, level):
        """Steps of a traced function's ops, folded into one row for the function."""
        args, out = entry[1], entry[3]
        if self._folding is None or self._folding[0] is not group or self._folding[1][LEVEL] != level:
            self._flush_fold()
            op = group.composite
            outs = group.row[OUTPUTS] if group.row else ()
            rec = record_row("backward", level, "function" if op is None else "op", group.name,
                              group.shown, group.names, outs,
                              upstream=[None] * len(outs) if len(outs) > 1 else (g,),
                              downstream=[None] * len(group.inputs), source=op)
            self._folding = (group, rec, [])
        group_, rec, steps = self._folding
        steps.append(entry)  # the ops folded, last first
        outs = rec[OUTPUTS]
        if len(outs) > 1:  # several outputs (np.split's pieces): each its own upstream
            rec[UPSTREAM] = [g if o is out else u for o, u in zip(outs, rec[UPSTREAM])]
        down = rec[DOWNSTREAM]
        for a, d in zip(args, downs):
            if d is None:
                continue
            for k, inp in enumerate(group.inputs):
                if inp is a:
                    with paused():
                        down[k] = d if down[k] is None else down[k] + d

    def _flush_fold(self):
        if self._folding is None:
            return
        group, rec, steps = self._folding
        n = len(steps)
        self._folding = None
        rec[DOWNSTREAM] = tuple(rec[DOWNSTREAM])
        rec[UPSTREAM] = tuple(rec[UPSTREAM])
        op = group.composite
        if op is None:
            rec[NOTE] = f"{n} op{'s' if n != 1 else ''} folded"
            rec[LOCAL] = functools.partial(ratio_local, rec)
        else:  # what its rules do, in words (a ratio says nothing of a permutation), or,
            # elementwise, the numbers they multiplied by where they can be told
            words = tuple(None if d is None else w for w, d in zip(group.labels, rec[DOWNSTREAM]))
            rec[LOCAL] = (functools.partial(replayed_local, rec, steps[::-1], group.inputs[0], words)
                          if op.elementwise and len(group.inputs) == 1 else
                          functools.partial(ratio_local, rec, words) if op.elementwise else words)
        self._backward.add(rec)

    # The engine reports a fan-in sum or an unbroadcast while it works on a step, before
    # the step itself: they wait in _pending, to follow their step's row, or to be folded
    # with it into a traced function's row.
    def on_backward_sum(self, tensor, before, added, level):
        self._pending.append(record_row(
            "backward", level, "sum", "sum", self._frozen((tensor,)), None, (), upstream=(before, added),
            downstream=None, local="add", note="a value used twice or more: its gradients add up"))

    def on_unbroadcast(self, tensor, before, after, level):
        bshape, ashape = tuple(before.shape), tuple(after.shape)
        axes = broadcast_axes(bshape, ashape)
        self._pending.append(record_row(
            "backward", level, "broadcast", "unbroadcast", self._frozen((tensor,)), None, (),
            upstream=(before,), downstream=(after,), local="sum",
            note=f"sum over broadcast axes {axes}: {bshape} -> {ashape}"))

    def _add_backward(self, rec):
        """A step's row, then the sums and unbroadcasts that came with it."""
        self._backward.add(rec)
        if self._pending:
            for extra in self._pending:
                self._backward.add(extra)
            self._pending.clear()

    def on_gradient_end(self, seen, targets, sources, grads, level):
        self._flush_fold()
        for s, g in zip(sources, grads):
            rec = record_row("gradient", level, "result", "gradient", self._frozen((s,)), None,
                             self._frozen(targets), downstream=self._frozen((g,)))
            self._gradients.add(rec)
            if g is None:
                self.name_from_caller()
                reason = quietly(why_none, self, seen, targets, s)
                if not isinstance(reason, Exception):
                    row = view(self, rec)
                    row.pitfalls.append(Pitfall("none-gradient", f"the gradient is None: {reason}", row))
                    self._found.append(row.pitfalls[-1])

    def on_backward_error(self, entry, g, error, level):
        self._flush_fold()
        prim, args, vals, out, params = entry
        call = params.get("call")
        if call is None:
            return
        rec = record_row("backward", level, "function", call.name, self._frozen(args, vals),
                          tuple(call.names) + tuple(v.name for v in call.variables), self._frozen(out),
                          upstream=tuple(g), downstream=None, local="",
                          note=f"{call.words['grad_fn']} raised {type(error).__name__}", source=call)
        self._backward.add(rec)
        row = view(self, rec)
        row.pitfalls.append(Pitfall("contract", f"{type(error).__name__}: {error}", row))
        self._found.append(row.pitfalls[-1])

    # -- output --------------------------------------------------------------------------
    def to_rows(self) -> list[dict]:
        """Every row as a dict of strings (values summarised as they are shown)."""
        out = []
        for row in self.rows():
            cells = row.cells()
            out.append({"section": row.section, "level": row.level, "index": row.index,
                        "kind": row.kind, "node": row.node, "context": row.context, **cells,
                        "note": row.note, "pitfalls": [f.message for f in row.pitfalls]})
        return out

    def to_json(self, indent: int | None = None) -> str:
        """``to_rows()`` as JSON."""
        return json.dumps(self.to_rows(), indent=indent)

    def to_frame(self):
        """``to_rows()`` as a pandas DataFrame (pandas must be installed)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Trace.to_frame needs pandas: pip install pandas") from None
        return pandas.DataFrame(self.to_rows())

    def to_text(self, width: int | None = None) -> str:
        """The trace as a fixed-width table for a terminal, its notes wrapped between words
        to ``width`` columns: by default the terminal's width where output goes to one,
        else 100 (a notebook's text output is the same everywhere)."""
        return render_text(self, width)

    __str__ = to_text

    def __repr__(self):
        tangents = f"{self._tangents.total} forward-mode, " if self._tangents.total else ""
        return (f"<gradmagic Trace: {self._forward.total} forward, {tangents}"
                f"{self._backward.total} backward rows>")

    def _repr_html_(self) -> str:
        return render_html(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/plain": self.to_text(), "text/html": self._repr_html_()}

    def plot(self, **kwargs):
        """A matplotlib Figure of the chain: nodes left to right, forward values above the
        arrows, upstream and downstream below."""
        from ..render.plot import plot_trace  # matplotlib is imported only now
        return plot_trace(self, **kwargs)


def _tangent_note(call, step):
    """What a custom function's forward-mode row says of how its tangent was found."""
    inner = " and ".join(c.name for c in step.nested)
    kept = f"as TensorFlow, the tangent out is the one {call.name}'s own ops gave"
    if step.nested and step.discarded is None:
        return (f"{inner} is itself a custom-gradient function: forward mode differentiates it "
                "with respect to its upstream by calling its grad_grad_fn with the tangent in, "
                "which gave the tangent out")
    if step.nested:
        return (f"{inner} is itself a custom-gradient function, so forward mode called its "
                f"grad_grad_fn with the tangent in; {kept}, and grad_grad_fn's is discarded")
    return "" if step.discarded is None else f"{kept}; the one from grad_fn was computed and is discarded"


def trace(ops: bool = options.OPS.default, check: bool = options.CHECK.default,
          max_rows: int = options.MAX_ROWS.default,
          precision: int = options.PRECISION.default) -> Trace:
    """Record every forward value and backward step run inside ``with gm.trace() as tr:``.

    ``ops``: one row per primitive instead of one per user-level function.
    ``check``: also check each custom function's gradient against the derivative of its
    recorded body, once per function and input shape (and the other costlier checks: see
    ``pitfalls.py``); what they run again runs on a snapshot, so the program is left as it
    was. ``max_rows``: rows kept per section
    (the first and last; the rest are counted). ``precision``: significant digits shown.
    """
    return Trace(ops=ops, check=check, max_rows=max_rows, precision=precision)
