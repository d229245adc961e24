"""A trace's rows: the record layout, ``TraceRow`` (how a record reads), the folding of
long sections (``Rows``), and a group of rows under one function (``Group``).

A row is recorded as a plain list (cheap while code runs) and read through a
``TraceRow``. Its local derivative may be left to compute when it is first shown.
"""

import collections

import numpy as np

from .._backend import to_host, xp_of
from ..core.backward import backward
from ..core.context import paused
from ..core.tensor import raw
from ..render._format import cells

# A row is recorded as a plain list (cheap while code runs) and read through a TraceRow.
(SECTION, LEVEL, KIND, NODE, INPUTS, NAMES, OUTPUTS, UPSTREAM, LOCAL, DOWNSTREAM, NOTE, CONTEXT,
 INDEX, VIEW, SOURCE) = range(15)


def record_row(section, level, kind, node, inputs=(), names=None, outputs=(), upstream=None,
                local=None, downstream=None, note="", context="", source=None):
    return [section, level, kind, node, inputs, names, outputs, upstream, local, downstream,
            note, context, 0, None, source]


FORWARD_MODE = "forward-mode"  # the section of forward-mode steps: there ``upstream`` holds the
# tangents coming in (one per input) and ``downstream`` the tangents going out (one per output)
ELEMENTWISE = object()  # marks a local derivative computed only when it is shown
CUSTOM_LOCAL = object()  # a custom function's: downstream / upstream, computed when shown


def _field(k, doc):
    return property(lambda self: self._rec[k], doc=doc)


class TraceRow:
    """One row of a trace.

    ``section``: "forward", "forward-mode", "backward" or "gradient". ``kind``: "op", "function", "sum"
    (gradients of a value used several times added up), "broadcast" (a gradient summed
    over broadcast axes), "result" (what ``tape.gradient`` returned). ``inputs`` and
    ``outputs`` hold the values; ``names`` the names of the inputs in the user's code
    (parameter names for functions). ``upstream`` (one per output), ``local`` and
    ``downstream`` (one per input) are what the chain rule multiplies. In a forward-mode
    row, the tangents flow the other way: ``upstream`` holds one per input (the tangents
    in), ``downstream`` one per output (the tangents out).
    """

    __slots__ = ("_rec", "_trace", "pitfalls")

    def __init__(self, trace, rec):
        self._trace, self._rec = trace, rec
        self.pitfalls = []

    section = _field(SECTION, "'forward', 'forward-mode', 'backward' or 'gradient'")
    level = _field(LEVEL, "0 for the forward code; n for ops and steps of the order-n pass")
    kind = _field(KIND, "'op', 'function', 'sum', 'broadcast' or 'result'")
    node = _field(NODE, "the function or op")
    inputs = _field(INPUTS, "the input values (x)")
    names = _field(NAMES, "the parameter names of a function's inputs, or None")
    outputs = _field(OUTPUTS, "the output values (y)")
    upstream = _field(UPSTREAM, "the upstream gradient, one per output")
    downstream = _field(DOWNSTREAM, "the downstream gradient, one per input (None: none)")
    note = _field(NOTE, "what the row is, in words")
    context = _field(CONTEXT, "the functions the op ran inside (with ops=True)")
    index = _field(INDEX, "the row's number in its section")
    source = _field(SOURCE, "what made the row: the op's Primitive, or a custom function's call")

    @property
    def local(self):
        """The local derivative: an array per input for elementwise ops and custom
        functions (what ``grad_fn`` gives for an upstream of ones), else the rule's label."""
        rec = self._rec
        local = rec[LOCAL]
        if local is CUSTOM_LOCAL:
            words = getattr(rec[SOURCE], "words", None) or {"grad_fn": "grad_fn", "upstream": "upstream"}
            rec[LOCAL] = ratio_local(rec, f"{words['grad_fn']}({words['upstream']})")
        elif type(local) is tuple and local and local[0] is ELEMENTWISE:  # for the inputs that
            # carry a gradient back, or (forward mode) a tangent forward
            rec[LOCAL] = elementwise_local(rec[SOURCE], local[1], rec[OUTPUTS][0], local[2],
                                           rec[UPSTREAM if rec[SECTION] == FORWARD_MODE else DOWNSTREAM])
        elif callable(local):
            rec[LOCAL] = local()
        return rec[LOCAL]

    def set_local(self, local):
        """Show ``local`` (one value per input) as the row's local derivative: a check that
        called ``grad_fn`` again gives the number the user's rule gives."""
        self._rec[LOCAL] = local

    def add_note(self, text):
        """Add ``text`` to the row's note (what the row is, in words)."""
        rec = self._rec
        rec[NOTE] = f"{rec[NOTE]}; {text}" if rec[NOTE] else text

    def input_names(self):
        """The name of each input: the user's name for it when known."""
        return self._trace.input_names(self)

    def output_names(self):
        """What stands before each output: its number (``t3``) where the rows that use it
        show one, else ""."""
        return self._trace.output_names(self)

    def cells(self, precision=None, brief=False):
        """The row as display strings: ``x``, ``y``, ``upstream``, ``local``, ``downstream``
        (see ``render._format.cells``); ``precision`` defaults to the trace's."""
        return cells(self, self._trace.precision if precision is None else precision, brief)

    def __repr__(self):
        return f"<TraceRow {self.section} #{self.index} {self.node}>"


class Rows:
    """The first ``limit // 2`` records, the last ``limit - limit // 2``, and a count of the rest."""

    def __init__(self, limit):
        self.half = limit // 2
        self.head = []
        self.tail = collections.deque(maxlen=limit - limit // 2)
        self.total = 0

    def add(self, rec):
        self.total += 1
        rec[INDEX] = self.total
        if self.total <= self.half:
            self.head.append(rec)
        else:
            self.tail.append(rec)

    @property
    def folded(self):
        return self.total - len(self.head) - len(self.tail)

    def rows(self, trace):
        return [view(trace, rec) for rec in self.head + list(self.tail)]


def view(trace, rec):
    """The TraceRow of record ``rec`` (made once)."""
    if rec[VIEW] is None:
        rec[VIEW] = TraceRow(trace, rec)
    return rec[VIEW]


class Group:
    """A user-level function call or scope, while it runs and while its backward is folded."""

    __slots__ = ("name", "inputs", "shown", "names", "row", "n_ops", "custom", "body", "composite",
                 "labels", "tangents", "steps")

    def __init__(self, name, inputs, shown, names, row, custom, body=None, composite=None, labels=()):
        self.name, self.inputs, self.names, self.row, self.custom = name, inputs, names, row, custom
        self.shown = shown  # the inputs as its rows show them: with the values they had then
        self.n_ops = 0
        self.body = body  # a custom function's recorded ops, while a checking trace keeps them
        self.composite = composite  # an op made of ops (np.sort): its primitive.Composite
        self.labels = labels  # and the local derivative's label of each of its inputs
        self.tangents = None  # its values' tangents, {id: tangent}, while forward mode folds it
        self.steps = []  # and the entries of the ops it folds, in the order they ran


def elementwise_local(prim, vals, out, params, downs):
    """d(out)/d(input) of an elementwise op: its rule applied to an upstream of ones."""
    ans = out.value
    ones = xp_of(ans).ones(ans.shape, dtype=ans.dtype)
    with paused():
        return tuple(None if d is None or prim.vjps[i] is None else
                     prim.vjps[i](ones, ans, *vals, **params) for i, d in enumerate(downs))


def ratio_local(rec, otherwise=None):
    """downstream / upstream, for a function with one input and one output of one shape:
    what its rule multiplied the upstream by, found without running user code again. Where
    the upstream is 0 that is unknown (0 / 0, not a NaN the function made): those elements
    are masked, in a NumPy masked array on the host, which renders them as "?"."""
    up, down = rec[UPSTREAM][0], rec[DOWNSTREAM]
    if len(down) == 1 and down[0] is not None and tuple(down[0].shape) == tuple(up.shape):
        with paused():
            u, d = raw(up), raw(down[0])
            xp = xp_of(u)
            zero = u == 0
            ratio = d / xp.where(zero, xp.ones_like(u), u)
            if not bool(to_host(xp.any(zero))):
                return (ratio,)
            return (np.ma.masked_array(to_host(ratio), mask=to_host(zero)),)
    return rec[NOTE] if otherwise is None else otherwise


def replayed_local(rec, entries, x, otherwise):
    """d(output)/d(x) of an elementwise function made of ops (one input ``x``, one output of
    its shape): the rules of its ``entries`` (its ops, in the order they ran) run again on
    an upstream of ones, since an elementwise Jacobian is diagonal. So an upstream of 0
    does not hide it, where downstream / upstream would be 0 / 0. A custom function among
    the ops is not run again (its grad_fn is user code): then, and where the ops do not
    reach ``x``, downstream / upstream."""
    outs = rec[OUTPUTS]
    if len(outs) != 1 or any(entry[0].joint for entry in entries):
        return ratio_local(rec, otherwise)
    y = outs[0]
    ans = y.value
    with paused():
        ones = xp_of(ans).ones(ans.shape, dtype=ans.dtype)
        found = backward(list(entries), {id(x)} | {id(entry[3]) for entry in entries},
                         {id(y): ones}, {id(x)}, False)
    local = found.get(id(x))
    if local is None or tuple(local.shape) != tuple(x.value.shape):
        return ratio_local(rec, otherwise)
    return (local,)
