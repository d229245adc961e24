"""Names for traced values, never an ``id()``, and never two values under one name.

A value is shown by the user's own name for it, read from their code's variables; else
by what produced it, written as code (``exp(x)``, ``(1 + exp(x))``, ``foo(x)[1]``) when
that is short and no other value of the trace reads the same; else by a number, ``t1``,
``t2`` ..., that is none of the user's names. An op's parameter names (``x``, ``y``) are
never used: they would clash with the user's names and with the columns of the table.

Once the traced block has ended, the first name asked for names what the rows show, in
row order (``_walk``), so the text, the HTML and the picture number values alike; the
forward row that made a numbered value shows its number (``output_names``).
"""

import sys

import numpy as np

from ..core.tensor import Tensor, Variable
from ..render._format import number

OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "power": "**",
             "matmul": "@"}  # ops whose output reads as `a + b`
DEFAULT_NAMES = ("Variable", "Variable:0")  # a Variable nobody named (gm's, tf's, in any scope)
LONGEST = 24  # an expression longer than this is named by a number instead


class Naming:
    """What a trace knows of the names of its values (a mixin of ``Trace``, whose rows,
    ``rows()``, it names)."""

    def __init__(self):
        self._names = {}  # id(tensor) -> the user's name for it
        self._item_names = {}  # id(tensor) -> "params['W1']": an item of a user's container
        self._auto = {}  # id(tensor) -> "t1", "t2" ... for values without another name
        self._next = 1  # the number the next of them gets
        self._derived = {}  # id(tensor) -> "exp(x)": what produced it, as code
        self._operator = set()  # the derived names that are `(a + b)`, bracketed
        self._in_use = None  # every name given so far (None: to be gathered again)
        self._closed = False  # the traced block has ended
        self._walked = False  # the rows have been named, in order

    # -- the user's names ----------------------------------------------------------------
    def name_from_caller(self):
        """Name values after the variables of the user's code calling into gradmagic now."""
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__", "").startswith("gradmagic"):
            frame = frame.f_back
        if frame is not None:
            self.name_from_frame(frame)

    def name_from_frame(self, frame):
        """Name values after a frame's variables, locals first. (Reading a function's
        locals makes Python, before 3.13, keep a snapshot of them until it returns, as
        ``locals()`` does: a trace dropped inside a function is freed when it returns.)"""
        local = frame.f_locals
        self.name_values(local)
        if local is not frame.f_globals:
            self.name_values(frame.f_globals)

    def name_values(self, namespace):
        """Name the traced values after the variables of ``namespace`` that hold them, and
        the items of its dicts, lists and tuples (``params['W1']``, ``layers[0]``): a
        variable's own name wins over a container's item."""
        for name, value in list(namespace.items()):
            if name.startswith("_"):
                continue
            if isinstance(value, Tensor):
                self._names.setdefault(id(value), name)
            elif isinstance(value, dict) and len(value) <= 1000:
                for key, item in list(value.items()):
                    if isinstance(item, Tensor) and isinstance(key, (str, int)):
                        self._item_names.setdefault(id(item), f"{name}[{key!r}]")
            elif isinstance(value, (list, tuple)) and len(value) <= 1000:
                for k, item in enumerate(value):
                    if isinstance(item, Tensor):
                        self._item_names.setdefault(id(item), f"{name}[{k}]")
        self._walked = False  # what a value's producer reads as may have changed
        self._in_use = None

    def name_as(self, value, name):
        """Name ``value`` ``name`` unless the user's code named it already."""
        self._names.setdefault(id(value), name)
        self._in_use = None

    def known_name(self, value):
        """The name the user gave a value: a Variable's own name, or the variable of their
        code that holds it (or held the tensor a row's value was read from: its name in
        every version); None when there is none."""
        if isinstance(value, Variable) and value.name.rpartition("/")[2] not in DEFAULT_NAMES:
            return value.name
        if not isinstance(value, Tensor):
            return None
        name = self._names.get(id(value)) or self._item_names.get(id(value))
        if name is None:  # what a mutable tensor held (a Variable without a name of its own):
            source = self.source_of(value)  # the tensor's name
            if source is not None and source is not value:
                return self.known_name(source)
        return name

    def source_of(self, value):
        """The mutable tensor ``value`` was read from, or None (a trace knows its reads)."""
        return None

    # -- every value's name -------------------------------------------------------------
    def close_names(self):
        """The traced block has ended: the next name asked for names the rows first."""
        self._closed = True
        self._walked = False

    def name_of(self, value):
        """The name a traced value is shown by: the user's, else what produced it as code,
        else ``t1``, ``t2`` ... (a value numbered once keeps its number)."""
        if not isinstance(value, Tensor):
            return None
        name = self.known_name(value)
        if name is not None:
            return name
        self._walk()
        key = id(value)
        return self._auto.get(key) or self._derived.get(key) or self._number(value)

    def input_names(self, row):
        """The name of each input of ``row``: a function's own parameter names, else each
        value's (``name_of``); a constant (a number) of an op is shown as its value alone."""
        if row.names is not None and row.kind == "function":
            return list(row.names) + [self.name_of(v) for v in row.inputs[len(row.names):]]
        return [self.name_of(v) if isinstance(v, Tensor) else "" if row.kind == "op" else f"arg{k}"
                for k, v in enumerate(row.inputs)]

    def output_names(self, row):
        """What stands before each output of a forward row: its number (``t3``), which
        the rows that use it show; "" for an output named by the user or as code."""
        self._walk()
        return [self._auto.get(id(v), "") if self.known_name(v) is None else "" for v in row.outputs]

    def _number(self, value):
        taken = self._taken()
        while f"t{self._next}" in taken:
            self._next += 1
        name = self._auto[id(value)] = f"t{self._next}"
        taken.add(name)
        self._next += 1
        return name

    def _taken(self):
        """The names in use: the user's, the numbers, the derived names (a set the walk
        adds to)."""
        if self._in_use is None:
            self._in_use = (set(self._names.values()) | set(self._auto.values())
                            | {n.partition("[")[0] for n in self._item_names.values()}
                            | set(self._derived.values()))
        return self._in_use

    def _walk(self):
        """Name what the rows show, in row order: each row's inputs, a forward row's
        outputs as code (a value that has no such name is numbered where a row first
        shows it), a gradient's targets."""
        if not self._closed or self._walked:
            return
        rows = self.rows()  # may run the detectors first, whose names walk the rows
        if self._walked:
            return
        self._walked = True
        self._derived, self._operator, self._in_use = {}, set(), None
        taken = self._taken()
        for row in rows:  # a Variable's own name, too, is the user's
            taken.update(filter(None, map(self.known_name, (*row.inputs, *row.outputs))))
        for row in rows:
            self.input_names(row)
            for k, v in enumerate(row.outputs):
                if row.section == "gradient":
                    self.name_of(v)
                elif (row.section == "forward" and isinstance(v, Tensor) and self.known_name(v) is None
                      and id(v) not in self._auto and id(v) not in self._derived):
                    text = self._expression(row, k)
                    if text is not None and text not in taken:
                        self._derived[id(v)] = text
                        taken.add(text)

    def _expression(self, row, k):
        """How output ``k`` of forward row ``row`` reads as code, or None when it would be
        long, or the row's node is not a name."""
        node = row.node
        if not node.isidentifier():
            return None
        parts = []
        for v in row.inputs:
            text = self.name_of(v) if isinstance(v, Tensor) else _constant(v)
            if text is None:
                return None
            parts.append(text)
        symbol = OPERATORS.get(node)
        if symbol and len(parts) == 2:
            text, bracketed = f"({parts[0]} {symbol} {parts[1]})", True
        elif node == "negative" and len(parts) == 1:
            text, bracketed = f"(-{parts[0]})", True
        else:  # a call: its arguments need no brackets of their own
            args = [p[1:-1] if p in self._operator else p for p in parts]
            text, bracketed = f"{node}({', '.join(args)})", False
            if len(row.outputs) > 1:
                text += f"[{k}]"
        if len(text) > LONGEST:
            return None
        if bracketed:
            self._operator.add(text)
        return text


def _constant(value):
    """A number an op was given, as written (``1``, ``0.5``); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number, np.ndarray)):
        return None
    if isinstance(value, np.ndarray) and value.ndim:
        return None
    return number(value)
