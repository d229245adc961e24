"""Pitfalls: the mistakes people make with gradients, found in a trace and explained next
to the row where they happen, each with its fix.

Each detector is a small function over a ``Trace`` that returns notes (``notes.Pitfall``).
The cheap ones always run: where a NaN was born and a masked ``where`` (``nans.py``), why a
gradient is ``None`` (here). The checks run when the trace was asked to check
(``gm.trace(check=True)``): each custom function's ``grad_fn`` against the derivative of its
recorded body (``review.py``, ``findings.py``), the term a nested custom gradient loses in a
second-order pass, and the values a PyTorch Function's ``backward`` reads that nothing
records. They never change the program: what they run again runs on a snapshot
(``snapshot.py``). Detectors run when the traced block ends, never while it runs.
"""

import numpy as np

from .._backend import xp_of
from ..core.tensor import Tensor, Variable, raw
from ..render._format import number, order_name
from .body import call_kind
from .findings import check_custom_gradients
from .names import DEFAULT_NAMES
from .nans import births, masked_where, nan_origin
from .notes import Pitfall, host64
from .review import custom_rows
from .snapshot import Snapshot, code_of, quietly

__all__ = ["Pitfall", "detect", "why_none"]
COPIES = {"numpy", "asarray", "array", "item", "tolist", "to_host"}  # names that leave the tape


# -- 6: why a gradient is None -------------------------------------------------------------
def why_none(trace, seen, targets, source):
    """The missing link between ``targets`` and ``source``, in words, with the fix.
    ``seen``: what the tape had recorded (``core.tape.TapeView``)."""
    name = trace.name_of(source) or "the source"
    tname = " + ".join(trace.name_of(t) or "the target" for t in targets)
    if source.dtype.kind not in "fc":
        return (f"{name} has dtype {source.dtype}: integer and boolean values have no gradient. "
                f"Make it floating: gm.constant(..., dtype='float32') or {name}.astype(float).")
    custom = _custom_reason(trace, name, tname, source)
    if custom:
        return custom
    used = seen.recorded_inputs + [a for row in trace.forward for a in row.inputs]
    copies = [a for a in used if isinstance(a, Tensor) and not _is(trace, a, source)
              and _same_buffer(a, source)]
    if not seen.connected(source):
        if isinstance(source, Variable):
            if not source.trainable:
                return (f"{name} is a Variable with trainable=False, which tapes do not watch "
                        f"on their own: call tape.watch({name}) inside the with block.")
            if not seen.watch_accessed:
                return (f"the tape was made with watch_accessed_variables=False, so it watches "
                        f"only what you watch: call tape.watch({name}).")
            if copies:
                return (f"{tname} depends on {name} only through a copy made without its history: "
                        "stop_gradient, .numpy(), np.asarray or plain NumPy on its value cut the "
                        f"chain. Keep the computation on Tensors (np.exp({name}) records; "
                        f"np.exp({name}.numpy()) does not), or remove the stop_gradient.")
            return (f"no op the tape recorded connects {name} to {tname}: {tname} was computed "
                    f"without {name}, from a copy of its value made without its history "
                    f"(stop_gradient({name}), {name}.numpy(), np.asarray({name})), or outside the "
                    f"with block. Use {name} itself, in ops inside `with tape:`.")
        producer = _producer(trace, source)
        read = [trace.variable_of(a) for a in producer.inputs] if producer is not None else []
        if any(v is not None for v in read):
            var = next(v for v in read if v is not None)
            was = ("it was" if var.name.rpartition("/")[2] in DEFAULT_NAMES else repr(var.name))
            return (f"{name} is no longer the Variable {was}: an assignment like "
                    f"`{name} = {name} - lr * grad` made a new Tensor, which nothing watches. "
                    f"Update the variable in place ({name}.assign_sub(lr * grad)), or ask "
                    f"for the gradient with respect to the Variable.")
        if copies:
            return (f"the tape followed a copy of {name} made without its history "
                    "(gm.stop_gradient, .numpy(), np.asarray or gm.constant of its value), not "
                    f"{name} itself; use {name} directly, or tape.watch({name}).")
        return (f"{name} was never watched: constants are not followed unless you call "
                f"tape.watch({name}) inside the with block (trainable Variables are watched "
                f"on their own).")
    if copies:
        return (f"{tname} depends on {name} only through a copy made without its history: "
                "gm.stop_gradient, .numpy(), np.asarray or plain NumPy on its value cut the "
                f"chain. Keep the computation on Tensors (np.exp(t) records; np.exp(t.numpy()) "
                "does not), or remove the stop_gradient.")
    if not any(seen.connected(t) for t in targets):
        made = [o for row in trace.forward for o in row.outputs if isinstance(o, Tensor)
                and seen.connected(o) and any(_is(trace, a, source) for a in row.inputs)]
        cut = [a for row in trace.forward for a in row.inputs if isinstance(a, Tensor)
               and not seen.connected(a) and any(_same_buffer(a, o) for o in made)]
        if cut:
            what = trace.name_of(cut[0]) or "a value"
            return (f"{tname} depends on {name} only through {what}, a copy of a value computed "
                    f"from {name} made without its history (stop_gradient, .numpy(), np.asarray "
                    f"or a constant of its value), which cuts the chain. Remove it, or apply "
                    f"stop_gradient only to what must stay constant.")
        step = _stepped(trace, seen, source)
        if step is not None:
            made, orphan = step
            return (f"{tname} depends on {name} only through {orphan}, computed from {made} by an "
                    f"op the tape does not record: np.round, np.rint, np.floor, np.ceil, np.trunc "
                    f"and comparisons are piecewise constant and have no gradient (or a .numpy() "
                    f"copy cut the chain). For a straight-through estimate write `x + "
                    f"gm.stop_gradient(np.round(x) - x)` in place of np.round(x), x being {made}.")
        return (f"{tname} was not recorded by this tape: it was computed outside the tape's "
                f"with block (or while it was paused), or only from values the tape does not "
                f"watch. Compute it inside `with tape:`.")
    if _ran_unrecorded(trace, seen, source):
        return (f"ops on {name} ran while the tape was not recording "
                f"(inside tape.stop_recording()), so the chain from {name} to {tname} has a gap.")
    return f"{tname} does not depend on {name} through any op the tape recorded."


def _stepped(trace, seen, source):
    """Where the chain from ``source`` ends at a value that no recorded op used, and a
    recorded op used a value of its shape that nothing recorded made (``np.round`` in
    between): ``(name of the one, name of the other)``, or None."""
    made, used, outs = [], set(), set()
    for row in trace.forward:
        used.update(id(a) for a in row.inputs if isinstance(a, Tensor))
        outs.update(id(o) for o in row.outputs or () if isinstance(o, Tensor))
        if any(_is(trace, a, source) or id(a) in {id(m) for m in made} for a in row.inputs):
            made += [o for o in row.outputs or () if isinstance(o, Tensor) and seen.connected(o)]
    ends = [m for m in made if id(m) not in used]
    for row in trace.forward:
        for a in row.inputs:
            if isinstance(a, Tensor) and id(a) not in outs and not seen.connected(a) and \
                    a.dtype.kind == "f" and not _is(trace, a, source):
                end = next((m for m in ends if np.shape(m) == np.shape(a)), None)
                if end is not None:
                    return trace.name_of(end), trace.name_of(a)
    return None


def _names_in(fn):
    """Every name ``fn``'s code (and the code defined inside it) uses."""
    f = code_of(fn)
    out, todo = set(), [f.__code__] if f is not None else []
    while todo:
        code = todo.pop()
        out.update(code.co_names)
        todo += [c for c in code.co_consts if hasattr(c, "co_names")]
    return out


def _reaches(fn, value):
    """How ``fn`` reaches ``value`` without taking it as an argument: ``a closure``, ``a
    global``, or None."""
    f = code_of(fn)
    if f is None:
        return None
    for cell in f.__closure__ or ():
        try:
            if cell.cell_contents is value:
                return "from the enclosing scope (a closure)"
        except ValueError:
            continue
    if any(f.__globals__.get(n) is value for n in _names_in(f)):
        return "as a global"
    return None


def _custom_reason(trace, name, tname, source):
    """A None caused by a custom function: one that reads ``source`` without taking it as
    an input, or whose recorded grad_fn took a NumPy copy of it."""
    if not isinstance(source, Tensor):
        return None
    for row in custom_rows(trace):
        call, w = row.source, row.source.words
        given = list(call.inputs) + list(call.variables)
        if any(a is source for a in given):
            k = next(i for i, a in enumerate(given) if a is source)
            if row.downstream is not None and k < len(row.downstream) and row.downstream[k] is None:
                what = (" (a variable it reads)" if k >= len(call.names) else "" if call.names[k] == name
                        else f" (its input {call.names[k]!r})")
                return (f"{row.node}'s {w['grad_fn']} returned None for {name}{what}: None "
                        f"means no gradient, so none reaches {name} through {row.node}. Return "
                        f"{w['upstream']} times the derivative of {row.node} with respect to "
                        f"{name} in its place (None is right only for a value that needs no "
                        f"gradient).")
            recorded = any(isinstance(u, Tensor) for u in row.upstream)
            copies = sorted(_names_in(call.backward_function()) & COPIES)
            if recorded and copies:
                return (f"{tname} comes from a pass through {row.node}'s {w['grad_fn']}, which "
                        f"uses {', '.join(copies)} on Tensors (a NumPy copy has no history): "
                        f"this pass was recorded to be differentiated again, but through that "
                        f"copy nothing connects {tname} back to {name}. Keep {w['grad_fn']} on "
                        f"Tensors: write np.cos({name}), not np.cos({name}.numpy()).")
            continue
        if type(source) is Variable:
            continue  # a Variable read in the body gets its gradient through variables=
        how = _reaches(call.forward_function(), source) or _reaches(call.backward_function(), source)
        if how:
            inputs = ", ".join(call.names)
            call_with = w["call"].format(f=row.node, args=f"{inputs}, {name}")
            return (f"{name} is not an input of {row.node}: {row.node} reads it {how}, and "
                    f"{w['one_op'].format(inputs=inputs)}, so no gradient reaches {name} through "
                    f"{row.node}. Pass it as an input, `{call_with}`, and return its gradient "
                    f"from {w['grad_fn']} too{w['or']}.")
    return None


def _is(trace, value, tensor):
    """Whether a row's ``value`` is ``tensor``, or what it held when the row ran."""
    return value is tensor or trace.source_of(value) is tensor


def _same_buffer(a, b):
    va, vb = a.value, b.value
    if va is vb:
        return True
    xp = xp_of(va)
    shares = getattr(xp, "shares_memory", None)
    try:
        return bool(shares is not None and va.ndim and vb.ndim and shares(va, vb))
    except Exception:
        return False


def _producer(trace, tensor):
    for row in trace.forward:
        if any(_is(trace, o, tensor) for o in (row.outputs or ())):
            return row
    return None


def _ran_unrecorded(trace, seen, source):
    for row in trace.forward:
        if any(_is(trace, a, source) for a in row.inputs) and not any(
                isinstance(o, Tensor) and seen.connected(o) for o in (row.outputs or ())):
            return True
    return False


# -- nested custom gradients are not second derivatives -------------------------------------
NESTED_FIX = """@gm.custom_gradient
def op(x):
    y, x_grad = f(x), df(x)
    def grad_fn(dy):
        @gm.custom_gradient
        def first_order(x):          # takes x explicitly
            return x_grad, lambda ddy: ddy * d2f(x)
        return dy * first_order(x)
    return y, grad_fn"""


def nested_second_order(trace):
    """A decorated grad_fn used in a second-order pass: the values it captured got no
    gradient; the term lost is the engine's derivative of its recorded body in them."""
    found, done = [], set()
    for row in custom_rows(trace):
        call = row.source
        body = trace.body_of(call)
        if row.level < 2 or call.level < 1 or body is None or call_kind(call) in done:
            continue
        done.add(call_kind(call))
        captured = body.read()
        fn = code_of(call.forward_function())
        cells = dict(zip(getattr(getattr(fn, "__code__", None), "co_freevars", ()),
                         [c.cell_contents for c in getattr(fn, "__closure__", None) or ()]))
        missing = body.vjp([raw(u) for u in row.upstream], captured) if captured else []
        for c, m in zip(captured, missing):
            if m is None or not np.any(host64(m)):
                continue
            name = next((k for k, v in cells.items() if v is c), None) or trace.name_of(c)
            found.append(Pitfall("nested-not-second-derivative",
                                 _nested_message(trace, row, c, name, host64(m)), row))
    return found


def _nested_message(trace, row, captured, name, missed):
    call, p = row.source, trace.precision
    qual = getattr(code_of(call.forward_function()), "__qualname__", "")
    owner = qual.split(".<locals>.")[0] if ".<locals>." in qual else None
    inner = f"{owner}'s {call.name}" if owner else call.name
    scope = f"{owner}'s scope" if owner else "the enclosing scope"
    result = next((g for g in trace.gradients if g.level == row.level and g.inputs
                   and g.inputs[0] is captured and g.downstream[0] is not None), None)
    numbers = ""
    if result is not None and missed.size == 1 and raw(result.downstream[0]).size == 1:
        produced = float(host64(result.downstream[0]).sum())
        numbers = (f" The second derivative came out {number(produced, p)}; with the missing "
                   f"term it is {number(produced + float(missed.sum()), p)}.")
    shown = number(float(missed.sum()), p) if missed.size == 1 else str(np.round(missed, p).tolist())
    nested = f" (nested in {owner})" if owner else ", nested inside another function's grad_fn"
    return (f"{inner} is itself a custom gradient{nested}. In the {order_name(row.level)} its grad_grad_fn gave the derivative with "
            f"respect to its upstream dy only: {name}, which {call.name} captures from {scope}, "
            f"got no gradient through this path (the engine's derivative of {call.name}'s "
            f"recorded ops in {name} is {shown}, missing).{numbers} Fix: make the inner custom "
            f"gradient take {name} explicitly, so its second-order rule gives {name}'s "
            f"gradient:\n{NESTED_FIX}")


def unrecorded_in_second_order(trace):
    """A custom function's backward, differentiated again, that reads values its forward
    computed where nothing recorded them: their derivative is silently lost."""
    found = []
    for row in custom_rows(trace):
        if not any(isinstance(u, Tensor) for u in row.upstream):
            continue  # a pass that nothing differentiates again
        call = row.source
        with Snapshot([call.forward_function(), call.backward_function()], list(call.inputs)) as snap:
            names = [] if snap.unsafe else quietly(call.unrecorded)
        if isinstance(names, Exception) or not names:
            continue
        w, one = call.words, len(names) == 1
        found.append(Pitfall("lost-in-second-order", (
            f"{row.node}'s {w['grad_fn']} reads {' and '.join(names)}, computed by {row.node}'s "
            f"forward from its inputs where nothing records {'it' if one else 'them'}. This pass "
            f"is recorded to be differentiated again ({w['create_graph']}), and to that second "
            f"pass {'it is a constant: its' if one else 'they are constants: their'} derivative "
            f"with respect to the inputs is silently lost, so second derivatives through "
            f"{row.node} are wrong. Fix: "
            f"{w['unrecorded_fix'].replace(' it ', ' it ' if one else ' them ')}."),
            row))
    return found


CHEAP = (nan_origin, masked_where)
COSTLY = (check_custom_gradients, nested_second_order, unrecorded_in_second_order)


def detect(trace):
    """Run the detectors over ``trace`` (the checks too when it was asked to check) and
    attach what they find to the rows; returns the findings."""
    with np.errstate(all="ignore"):  # the checks' own arithmetic warns nothing to the user
        return _detect(trace)


def _detect(trace):
    found = []
    born = None
    for detector in CHEAP + (COSTLY if trace.check else ()):
        try:
            if detector in CHEAP:  # they share one scan of the backward pass's values
                born = births(trace) if born is None else born
                results = detector(trace, born)
            else:
                results = detector(trace)
        except Exception as e:  # a check must never hide the user's own result or error
            results = [Pitfall("check-failed", f"the {detector.__name__} check could not run: "
                               f"{type(e).__name__}: {e}")]
        for p in results:
            if p.row is not None:
                p.row.pitfalls.append(p)
            found.append(p)
    return found
