"""What the listeners hear of a ``custom_jvp`` rule run as a call's body: the ops that made
its primal output, as they heard a body that was the function itself.

Under a transformation that differentiates a ``custom_jvp`` call, the call's outputs are the
rule's primal output (``levels``), so its body runs the rule, on zero tangents a tape
watches (``grad``) or on an accumulator's tangents (``jvp``). The listeners (a trace, an
enclosing rule's checks) should hear of it what makes the call's outputs, not the tangent
code the call's own row (its backward or forward-mode step) stands for. So ``primal_heard``
runs the rule with the listeners on the stack replaced by an ``Overheard`` that keeps every
hook call, then tells them, in order, only:

- the ops (and custom functions' ops, and an accumulator's tangent steps of them) the primal
  output comes from;
- the functions and composite ops around those; a call of the function itself (the rule's
  ``ans = f(x)``, the commonest rule) is not a function of its own there: its ops are the
  body's, as when the body was ``f``;
- the transforms' calls of user functions (they only name values).

Backward steps inside the rule, and the ops of its tangents, are not told. Where the rule
raises, everything it ran is told. The tapes record all of it, heard or not: hearing never
changes a value.
"""

from __future__ import annotations

from ..core.context import TAPES, Listener, at_level, level, listeners
from ..core.tensor import Tensor

HOOKS = tuple(n for n in dir(Listener) if n.startswith("on_"))
LINK = "link"  # an event no hook hears: an own call's outputs (its ys, its outs)
ENTERS = {"on_function_enter": "on_function_exit", "on_composite_enter": "on_composite_exit"}


class Overheard(Listener):
    """Keeps every hook call, with the backward-pass order it came at, to tell some later."""

    def __init__(self):
        self.events = []  # (hook name, arguments, level)


def _keeper(name):
    def hook(self, *args):
        self.events.append((name, args, level()))
    hook.__name__ = hook.__qualname__ = name
    return hook


for _name in HOOKS:
    setattr(Overheard, _name, _keeper(_name))


class _Group:
    """A function's or composite op's events: where it was entered, what ran in it, where it
    ended (None: it did not, in what was heard)."""

    def __init__(self, enter):
        self.enter, self.children, self.exit = enter, [], None
        self.own = None  # its custom op's index, where it is a call of the rule's function


def _tree(events):
    """The events' indices, nested in the groups their enter and exit hooks open and close."""
    root = _Group(None)
    open_ = [root]
    for i, (name, args, _) in enumerate(events):
        if name in ENTERS:
            group = _Group(i)
            open_[-1].children.append(group)
            open_.append(group)
        elif name in ENTERS.values() and len(open_) > 1:
            open_.pop().exit = i
        else:
            open_[-1].children.append(i)
    return root


def _tensor_ids(values):
    return {id(v) for v in values if isinstance(v, Tensor)}


def _groups(root):
    """Every group under ``root`` (``root`` left out)."""
    found, todo = [], [root]
    while todo:
        g = todo.pop()
        inner = [c for c in g.children if isinstance(c, _Group)]
        found += inner
        todo += inner
    return found


def _own_call(events, group, function):
    """The index of the custom op of ``group`` where it is a call of ``function`` itself
    (None: it is not)."""
    if events[group.enter][0] != "on_function_enter":
        return None
    for i in group.children:
        if not isinstance(i, _Group) and events[i][0] == "on_custom_op":
            if getattr(events[i][1][5].get("call"), "function", None) is function:
                return i
    return None


def _select(events, outputs, function):
    """The indices of the events to tell, given the primal ``outputs`` and the recorded
    custom ``function`` whose own calls are not functions of their own."""
    needed, keep, linked = _tensor_ids(outputs), set(), set()
    root = _tree(events)
    for g in _groups(root):
        g.own = _own_call(events, g, function)
    links = {g.own for g in _groups(root) if g.own is not None}

    def mark(nodes) -> bool:
        """Mark, last first, what of ``nodes`` made what is needed; whether any was."""
        told = False
        for node in reversed(nodes):
            if isinstance(node, _Group):
                inner = mark(node.children)
                if inner and node.own is None:
                    keep.update(i for i in (node.enter, node.exit) if i is not None)
                told |= inner
                continue
            name, args, _ = events[node]
            if name == "on_op":  # (prim, args, vals, out, params)
                if id(args[3]) in needed:
                    keep.add(node)
                    needed.update(_tensor_ids(args[1]))
            elif name == "on_custom_op":  # (prim, inputs, vals, ys, outs, params)
                if needed & _tensor_ids(args[4]):
                    needed.update(_tensor_ids(args[3]))  # what its body made them from
                    if node in links:  # an own call's ops are the body's: only its link told
                        linked.add(node)
                    else:
                        keep.add(node)
                        needed.update(_tensor_ids(args[1]))
            elif name == LINK:  # (ys, outs): an own call's, told by a rule run inside this one
                if needed & _tensor_ids(args[1]):
                    needed.update(_tensor_ids(args[0]))
                    linked.add(node)
            elif name == "on_tangent_step":  # an op above: its entry's out
                out = args[0].entry[3]
                if needed & _tensor_ids(out if type(out) is tuple else (out,)):
                    keep.add(node)
            elif name == "on_call":
                keep.add(node)
            told |= node in keep or node in linked
        return told

    mark(root.children)
    return sorted(keep | linked), linked


def primal_heard(run, primal, function):
    """``run()``, the listeners on the stack hearing of it only what made its primal output
    (``primal(result)``: the output's leaves) and the rest recorded as ever (see the module's
    docstring); ``function``: the recorded custom function whose rule runs."""
    told = listeners()
    if not told:
        return run()
    heard = Overheard()
    token = TAPES.set(tuple(t for t in TAPES.get() if t.records) + (heard,))
    try:
        result = run()
    except BaseException:
        TAPES.reset(token)
        _tell(told, heard.events, range(len(heard.events)), ())
        raise
    TAPES.reset(token)
    _tell(told, heard.events, *_select(heard.events, primal(result), function))
    return result


def _tell(told, events, indices, linked):
    """Tell ``told`` the events at ``indices``; those ``linked`` (an own call's custom op, or
    its link) only as a link, to an ``Overheard`` (a rule running around this one), which
    needs it to follow the outputs of that call back to the ops of its body."""
    for i in indices:
        name, args, at = events[i]
        if i in linked or name == LINK:
            link = (LINK, args if name == LINK else (args[3], args[4]), at)
            for h in told:
                if isinstance(h, Overheard):
                    h.events.append(link)
            continue
        with at_level(at):
            for h in told:
                getattr(h, name)(*args)
