"""Names for traced values: the user's own, read from their code's variables, else
``t1``, ``t2`` ... in order of first use. Shown in every row; never an ``id()``.
"""

import sys

from ..core.tensor import Tensor, Variable

ARGNAMES = {"where": ("condition", "x", "y"), "clip": ("x", "lo", "hi"), "matmul": ("a", "b"),
            "outer": ("a", "b"), "arctan2": ("y", "x")}  # an op's parameter names, when not x, y, z


class Naming:
    """What a trace knows of the user's names for its values (a mixin of ``Trace``)."""

    def __init__(self):
        self._names = {}  # id(tensor) -> the user's name for it
        self._item_names = {}  # id(tensor) -> "params['W1']": an item of a user's container
        self._auto = {}  # id(tensor) -> "t1", "t2" ... for the rest

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

    def known_name(self, value):
        """The name the user gave a value: a Variable's own name, or the variable of their
        code that holds it; None when there is none."""
        if isinstance(value, Variable) and value.name != "Variable":
            return value.name
        if not isinstance(value, Tensor):
            return None
        return self._names.get(id(value)) or self._item_names.get(id(value))

    def name_of(self, value):
        """The user's name for a traced value, else ``t1``, ``t2`` ... in order of first use."""
        if not isinstance(value, Tensor):
            return None
        name = self.known_name(value)
        if name is None:
            if isinstance(value, Variable):
                return value.name
            name = self._auto.get(id(value))
            if name is None:
                name = self._auto[id(value)] = f"t{len(self._auto) + 1}"
        return name

    def input_names(self, row):
        """The name of each input of ``row``: the user's, the op's parameter's, or ``t1`` ..."""
        if row.names is not None and row.kind == "function":
            return list(row.names) + [self.name_of(v) for v in row.inputs[len(row.names):]]
        names = []
        params = ARGNAMES.get(row.node, ("x", "y", "z"))
        for k, v in enumerate(row.inputs):
            known = self.known_name(v)
            if known is None and row.kind == "op":  # the op's own parameter names; a
                # constant (a number) is shown as its value alone
                known = "" if not isinstance(v, Tensor) else params[k] if k < len(params) else f"arg{k}"
            names.append(known if known is not None else self.name_of(v) or f"arg{k}")
        return names

    def name_as(self, value, name):
        """Name ``value`` ``name`` unless the user's code named it already."""
        self._names.setdefault(id(value), name)
