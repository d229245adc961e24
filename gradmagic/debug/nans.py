"""Where a NaN or an Inf was born in a backward pass, why, and the fix for that op.

``births`` finds, in each pass, the first step whose downstream is not finite while its
upstream and inputs were. ``nan_origin`` explains it from what happened there: the op and
its operands (``exp`` overflow, ``log(0)``, a norm at 0 is ``0/0``), or, for a custom
function, the op inside its ``grad_fn`` that raised the floating-point error (found by
running ``grad_fn`` again, on a snapshot, with NumPy's errors raised). ``masked_where``
explains the NaN that a ``where`` sends into its unselected branch, with a fix in the
user's names.
"""

from __future__ import annotations

import linecache
import math
import os
import re

import numpy as np

from .._backend import numpy_dtype
from .._scans import has_nan, scan
from ..core.custom import CustomCall
from ..core.tensor import Tensor, raw
from .names import OPERATORS
from .notes import Pitfall, arrays, host64, place, shown
from .snapshot import Snapshot, quietly

OVERFLOW = {np.dtype("float16"): math.log(np.finfo(np.float16).max),
            np.dtype("float32"): math.log(np.finfo(np.float32).max),
            np.dtype("float64"): math.log(np.finfo(np.float64).max)}

STABLE = ("use a stable form: gm.softplus(x) for log(1 + exp(x)), np.logaddexp(0, x), "
          "gm.logsumexp, or a custom gradient that computes the derivative stably, as the "
          "TensorFlow docs' log1pexp does: upstream * (1 - 1 / (1 + e))")
FIXES = {  # the op whose local derivative is not finite -> how to keep it finite
    "exp": ("exp overflows: shift its argument (np.exp(x - np.max(x))), use gm.sigmoid or "
            "gm.logsumexp, or compute in float64"),
    "log": "keep the argument away from 0: np.log(x + 1e-12), or np.log(np.where(x > 0, x, 1.0))",
    "sqrt": "keep the argument away from 0: np.sqrt(x + 1e-12), or a where inside the where",
    "arcsin": "keep the argument inside (-1, 1): np.clip(x, -1 + 1e-7, 1 - 1e-7)",
    "divide": "keep the denominator away from 0: x / (y + 1e-12), or a where inside the where",
}
FIXES.update({"log2": FIXES["log"], "log10": FIXES["log"], "reciprocal": FIXES["divide"],
              "arccos": FIXES["arcsin"], "arctanh": FIXES["arcsin"]})
PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def births(trace):
    """The first backward row of each pass whose downstream is not finite while its
    upstream and inputs were (a NaN in x itself comes from the forward pass); and
    whether each such row's forward output held a NaN already. Every value is scanned at
    once (``scan``: one synchronisation for device arrays, however many values)."""
    rows = [r for r in trace.backward if r.kind in ("op", "function")]
    parts = [(arrays(r.downstream), arrays(r.upstream), arrays(r.inputs), arrays(r.outputs))
             for r in rows]
    values = list({id(v): v for part in parts for group in part for v in group}.values())
    flags = dict(zip(map(id, values), scan(values)))  # each value once
    found, seen = [], set()
    for row, (downs, ups, xs, outs) in zip(rows, parts):
        if row.level in seen or not any(flags[id(d)][0] for d in downs):
            continue
        if any(flags[id(u)][0] for u in ups):
            continue  # it came from upstream: born before, or in a row folded away
        before = any(flags[id(o)][1] for o in outs)
        if not before and any(flags[id(x)][1] for x in xs):
            continue  # a NaN input whose output is finite: a NaN the op passed along
        seen.add(row.level)  # (a NaN input with a NaN output: where's branch, x * log(x))
        found.append((row, before))
    return found


def _fed_by(trace, row, value, nodes):
    """The backward row of the same pass, among ``nodes``, whose output is ``value``."""
    for r in trace.backward:
        if r.level == row.level and r.node in nodes and r.outputs and r.outputs[0] is value:
            return r
    return None


def _norm_input(trace, row):
    """For a sqrt at 0 that takes the square root of a sum of squares (a norm): the value
    squared; else None."""
    s = _fed_by(trace, row, row.inputs[0], ("sum",)) if row.inputs else None
    sq = _fed_by(trace, s, s.inputs[0], ("multiply", "square", "power")) if s is not None else None
    if sq is None or (sq.node == "multiply" and sq.inputs[0] is not sq.inputs[1]):
        return None
    return sq.inputs[0]


def _norm_at_zero(name):
    """Why a norm of ``name`` at 0 has no derivative, and the fix, in the user's names."""
    return (f"a norm at 0: sqrt(sum({name} * {name})), np.linalg.norm, has the derivative "
            f"{name} / norm({name}) = 0/0 at {name} = 0",
            f"a norm has no derivative at 0: use a where inside the where, `sq = np.sum({name} * "
            f"{name}); norm = np.where(sq > 0, np.sqrt(np.where(sq > 0, sq, 1.0)), 0.0)`, or "
            f"`np.sqrt(np.sum({name} * {name}) + 1e-12)`")


def _feeds_log1p(trace, row):
    """Whether an exp's output goes into ``log(1 + exp(x))`` (softplus written out)."""
    out = row.outputs[0] if row.outputs else None
    same = [r for r in trace.backward if r.level == row.level]
    adds = [r.outputs[0] for r in same if r.node == "add" and r.outputs and any(a is out for a in r.inputs)]
    return any(q.node == "log" and q.inputs and any(q.inputs[0] is a for a in adds) for q in same)


def cause(trace, row):
    """Why a step made NaN or Inf, from its op and operands, and the fix for that op."""
    if row.kind == "function" and isinstance(row.source, CustomCall):
        return _inside_rule(trace, row)
    xs = arrays(row.inputs)
    x = host64(xs[0]) if xs else None
    dtype = numpy_dtype(raw(row.inputs[0]).dtype) if xs and hasattr(raw(row.inputs[0]), "dtype") else None
    nan = any(has_nan(d) for d in arrays(row.downstream))
    zero_times_inf = False
    if isinstance(row.local, tuple):
        for loc in arrays(row.local):
            for up in arrays(row.upstream):
                try:
                    lv, uv = np.broadcast_arrays(host64(loc), host64(up))
                except ValueError:
                    continue
                zero_times_inf |= bool(np.any(np.isinf(lv) & (uv == 0)))
    parts, fix = [], FIXES.get(row.node)
    if row.node == "exp" and x is not None and dtype in OVERFLOW and np.any(x > OVERFLOW[dtype]):
        parts.append(f"exp overflow: x={shown(x.max(), trace.precision)} is above log(max "
                     f"{dtype.name}) ≈ {OVERFLOW[dtype]:.1f}, so exp(x) = inf")
        fix = STABLE if _feeds_log1p(trace, row) else fix
    if row.node in ("log", "log2", "log10", "reciprocal", "divide") and x is not None and np.any(x == 0):
        parts.append(f"{row.node}(0): its local derivative 1/x is inf at x = 0")
    if row.node == "sqrt" and x is not None and np.any(x == 0):
        v = _norm_input(trace, row)
        if v is not None:
            name = trace.name_of(v)
            part, fix = _norm_at_zero(name)
            parts.append(f"{part}; sqrt's local derivative 1 / (2 sqrt(0)) = inf meets "
                         f"d({name} * {name}) = 0")
        else:
            parts.append("sqrt at 0: its local derivative 1 / (2 sqrt(x)) is inf at x = 0")
    if row.node == "norm" and x is not None and not np.any(x):  # np.linalg.norm, one row
        part, fix = _norm_at_zero(trace.name_of(row.inputs[0]))
        parts.append(part)
    if row.node in ("arcsin", "arccos", "arctanh") and x is not None and np.any(np.abs(x) >= 1):
        parts.append(f"{row.node} at |x| = 1: its local derivative is inf there")
    if zero_times_inf and nan:
        parts.append("0 * inf = NaN: an upstream gradient of 0 met a local derivative of inf")
    elif not parts and any(not np.isfinite(host64(a)).all() for a in xs):
        parts.append("its input is already inf from the forward pass (an op before it "
                     "overflowed: exp above log(max float32) ≈ 88.7 is inf), and its local "
                     "derivative there is not finite")
        fix = ("keep the forward pass finite where it overflowed: a stable form, such as "
               "gm.softplus(x) for log(1 + exp(x)), np.logaddexp(0, x), gm.sigmoid, or compute "
               "in float64")
    elif not parts:
        parts.append("the local derivative is not finite for these finite inputs"
                     + (" (0 * inf or inf - inf inside the rule)" if nan else ""))
    fix = fix or "keep the op's inputs where its derivative is finite (a where inside the where)"
    return "; ".join(parts), fix


def _inside_rule(trace, row):
    """The op inside a custom function's grad_fn that raised a floating-point error, found
    by running grad_fn again on a snapshot with NumPy's errors raised."""
    call, w = row.source, row.source.words
    if not trace.check:
        return (f"the NaN is born inside {row.node}'s {w['grad_fn']}: its {w['upstream']} and "
                "inputs were finite", "run the trace with check=True (%%gradtrace --check) to "
                f"find the op inside {w['grad_fn']} that made it")
    ups = tuple(raw(u) for u in row.upstream)
    roots = [call.backward_function(), call.forward_function()]
    with Snapshot(roots, list(call.inputs) + list(call.lead) + list(call.kw.values())) as snap:
        error = None if snap.unsafe else quietly(call.gradients, ups, errors="raise")
    if isinstance(error, FloatingPointError):
        where = _user_line(error)
        text = (f"inside {row.node}'s {w['grad_fn']}, " + (f"`{where}` raised" if where else
                "NumPy reports") + f" '{error}'")
    else:
        text = (f"the NaN is born inside {row.node}'s {w['grad_fn']} (its {w['upstream']} and "
                "inputs were finite)")
    op = str(error).rsplit(" ", 1)[-1] if isinstance(error, FloatingPointError) else ""
    if op == "exp" and "overflow" in str(error):
        text += (" (an argument above log(max float) overflows to inf; inf / inf or 0 * inf "
                 "is then NaN)")
    body = trace.body_of(call)
    truth = body.vjp(ups) if body is not None else None
    fix = FIXES.get(op, "rewrite that line so that every intermediate value stays finite")
    if op == "divide" and "invalid" in str(error) and any(
            np.isposinf(host64(v)).any() for v in arrays(row.outputs)) and not any(
            (host64(v) == 0).any() for v in arrays(row.inputs)):  # an overflow, no 0 to divide by
        text += (" (the forward overflowed to inf, and inf / inf is NaN: the denominator is "
                 "inf, not 0)")
        fix = ("rewrite the ratio so that neither side overflows: e / (1 + e) with e = exp(x) "
               "is 1 - 1 / (1 + e), or gm.sigmoid(x)")
    if truth is not None and truth[0] is not None and np.all(np.isfinite(host64(truth[0]))):
        fix = (f"the derivative of {row.node}'s body here is {shown(host64(truth[0]), trace.precision)} "
               f"(the engine's, from its recorded ops): finite. Compute it in {w['grad_fn']} "
               f"without the overflow, e.g. from the forward's output (for a sigmoid, "
               f"`{w['upstream']} * y * (1 - y)`); {fix}")
    return text, fix


def _user_line(error):
    """The user's line of code where ``error`` was raised (the last frame outside
    gradmagic and NumPy), as written."""
    tb, line = error.__traceback__, None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith((PACKAGE, os.path.dirname(np.__file__))):
            line = " ".join(linecache.getline(name, tb.tb_lineno).split()) or line
        tb = tb.tb_next
    return line


def _masked_branch(trace, row):
    """The forward ``where`` row that consumed ``row``'s output as its unselected branch."""
    outs = [o for o in (row.outputs or ()) if isinstance(o, Tensor)]
    if not outs:
        return None, None
    for f in trace.forward:
        if f.node == "where" and len(f.inputs) == 3:
            for k in (1, 2):
                if any(f.inputs[k] is o for o in outs):
                    return f, k
    return None, None


def nan_origin(trace, found=None):
    """NaN or Inf born in the backward pass: the first step, its numbers, cause and fix."""
    out = []
    for row, nan_before in births(trace) if found is None else found:
        if _masked_branch(trace, row)[0] is not None:
            continue  # masked_where explains it
        if nan_before:
            continue  # the forward value was NaN already: not born in the backward pass
        out.append(Pitfall("nan-origin", lambda row=row: _nan_origin_message(trace, row), row))
    return out


def spelled(text, values):
    """``text``, written with NumPy's and gradmagic's functions, in the words of the dialect
    whose tensors ``values`` are (its tensor class's ``spelling``: phrase -> its own, ``np.``
    last, as a prefix); as it is for gradmagic's own Tensors."""
    table = next((getattr(type(v), "spelling", None) for v in values if isinstance(v, Tensor)), None)
    for phrase, own in (table or {}).items():
        text = re.sub(r"\bnp\.", own, text) if phrase == "np." else text.replace(phrase, own)
    return text


def _nan_origin_message(trace, row):
    c = row.cells()
    why, fix = cause(trace, row)
    return spelled(f"NaN/Inf first appears in the backward pass at {row.node} ({place(row)}): "
            f"{c['x']}, upstream {c['upstream']}, local {c['local']}, downstream "
            f"{c['downstream']}. Cause: {why}. Fix: {fix}.", row.inputs)


def masked_where(trace, found=None):
    """A where whose unselected branch sends NaN backward (the where-inside-where fix)."""
    out = []
    for row, _ in births(trace) if found is None else found:
        f, k = _masked_branch(trace, row)
        if f is None:
            continue
        out.append(Pitfall("masked-where", lambda row=row, f=f, k=k: _masked_where_message(
            trace, row, f, k), row))
    return out


def _masked_where_message(trace, row, f, k):
    branch = "x (taken where the condition is True)" if k == 1 else "y (taken where it is False)"
    cond = trace.known_name(f.inputs[0]) or "condition"
    other = f.inputs[3 - k]
    other = (trace.known_name(other) or _scalar(trace, other) or "other") if isinstance(other, Tensor) \
        else repr(other)
    args = [(trace.known_name(a) or "xyz"[i]) if isinstance(a, Tensor) else repr(a)
            for i, a in enumerate(row.inputs)]
    safe = ", ".join((f"np.where({cond}, {a}, 1.0)" if k == 1 else f"np.where({cond}, 1.0, {a})")
                     if isinstance(v, Tensor) else a for a, v in zip(args, row.inputs))
    inner = safe_branch(trace, row, f, k, cond) or f"np.{row.node}({safe})"
    template = f"np.where({cond}, {inner}, {other})" if k == 1 else f"np.where({cond}, {other}, {inner})"
    unnamed = [n for n, known in (("condition", cond == "condition"), ("other", other == "other"))
               if known]
    code = (f"`{template}`" + "".join(f", where {n} stands for your where's {n}" for n in unnamed)
            if hasattr(np, row.node) else
            f"give {row.node} an input where its derivative is finite at the unselected positions")
    why, _ = cause(trace, row)
    return spelled(
        f"np.where(c, x, y) sends a gradient of 0 into the unselected positions of its "
        f"branch {branch}, computed by {row.node} ({place(row)}); there {row.node}'s local "
        f"derivative is not finite, and 0 * inf = NaN, so the NaN reaches the inputs even "
        f"though where never selected those values. Cause: {why}. Fix: make the "
        f"branch safe where it is not selected, a where inside the where: {code}.", f.inputs)


def no_first_nan_stop(dialect, switch):
    """What ``dialect`` says of ``switch``, its framework's way to stop at the first NaN or
    inf, which gradmagic does not honour: where the same is found instead."""
    return (f"{dialect} does not stop at the first NaN or inf as {switch} does; run the code "
            "under gm.trace() (or %%gradtrace): its nan-origin note names the op where a NaN or "
            "inf was born, forward or backward, and why")


def _scalar(trace, value):
    """A constant one-element value no row made (``0.0`` a dialect made a tensor), as
    code; None for anything else."""
    if value.size != 1 or value.dtype.kind != "f" or any(
            any(o is value for o in r.outputs or ()) for r in trace.forward):
        return None
    return repr(float(host64(value).reshape(())))


def safe_branch(trace, row, f, k, cond):
    """The branch of where-row ``f`` written again with a where inside it, at the input of
    each op of the branch that is the first to be not finite (its inputs finite: the
    input of ``log`` in ``x * log(x)``, not the operands of ``*``), so that the backward
    pass meets no inf there; None where the branch cannot be written as code (an op
    with parameters, a value without a name)."""
    producers = {}
    for r in trace.forward:
        for o in r.outputs or ():
            producers.setdefault(id(o), r)
    start = producers.get(id(row.outputs[0])) if row.outputs else None
    if start is None:
        return None
    wraps = set()

    def culprits(r, depth):
        ins = [(i, a) for i, a in enumerate(r.inputs) if isinstance(a, Tensor) and a.dtype.kind == "f"]
        bad = [(i, a) for i, a in ins if not np.isfinite(host64(a)).all()]
        for i, a in bad or ins:
            p = producers.get(id(a))
            if bad and p is not None and depth < 8 and trace.known_name(a) is None:
                culprits(p, depth + 1)
            else:
                wraps.add((id(r), i, r.node in ("arcsin", "arccos", "arctanh")))

    culprits(start, 0)
    wrapped = {(w[0], w[1]): w[2] for w in wraps}

    def code(v, depth):
        if not isinstance(v, Tensor):
            return None if isinstance(v, bool) or not isinstance(v, (int, float)) else repr(v)
        name = trace.known_name(v)
        p = producers.get(id(v))
        if name is not None or p is None:
            return name
        fn = getattr(np, p.node, None)
        if depth > 8 or len(p.outputs) != 1 or not (isinstance(fn, np.ufunc) or p.node == "where"):
            return None
        parts = []
        for i, a in enumerate(p.inputs):
            text = code(a, depth + 1)
            if text is None:
                return None
            if (id(p), i) in wrapped:
                fill = "0.0" if wrapped[id(p), i] else "1.0"
                text = f"np.where({cond}, {text}, {fill})" if k == 1 else f"np.where({cond}, {fill}, {text})"
            parts.append(text)
        if p.node in OPERATORS and len(parts) == 2:
            return f"({parts[0]} {OPERATORS[p.node]} {parts[1]})"
        if p.node == "negative":
            return f"(-{parts[0]})"
        return f"np.{p.node}({', '.join(parts)})"

    text = code(f.inputs[k], 0)
    if text is None or not wrapped:
        return None
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text
