"""Pitfalls: the mistakes people make with gradients, found in a trace and explained next
to the row where they happen, each with its fix.

Each detector is a small function over a ``Trace`` that returns ``Pitfall`` s. The cheap
ones (where a NaN was born, a masked ``where`` branch, why a gradient is ``None``) always
run; the ones that call user code again (upstream ignored, wrong derivative, nested
custom gradients) run when the trace was asked to check (``gm.trace(check=True)``).
Detectors run when the traced block ends, never while it runs.
"""

import math

import numpy as np

from .._backend import numpy_dtype, to_host, xp_of
from .._scans import has_nan, scan
from ..core.custom import CustomCall
from ..core.tensor import Tensor, Variable, raw
from ..render._format import number, order_name, summary
from .gradcheck import TOLERANCES, central_difference, relative_step


class Pitfall:
    """A mistake found in a trace: ``kind``, ``message`` (what, where, and the fix), ``row``.

    ``message`` may be given as a function that writes it: it runs when the message is
    first read, so the numbers it quotes come to the host only when someone looks."""

    __slots__ = ("kind", "_message", "row")

    def __init__(self, kind, message, row=None):
        self.kind, self._message, self.row = kind, message, row

    @property
    def message(self) -> str:
        if callable(self._message):
            try:
                self._message = self._message()
            except Exception as e:  # a check must never hide the user's own result
                self._message = f"(this note could not be written: {type(e).__name__}: {e})"
        return self._message

    def __repr__(self):
        where = f" at {self.row.section} #{self.row.index}" if self.row is not None else ""
        return f"<Pitfall {self.kind}{where}: {self.message[:60]}...>"


OVERFLOW = {np.dtype("float16"): math.log(np.finfo(np.float16).max),
            np.dtype("float32"): math.log(np.finfo(np.float32).max),
            np.dtype("float64"): math.log(np.finfo(np.float64).max)}

STABLE = ("use a stable form: gm.softplus(x) for log(1 + exp(x)), np.logaddexp(0, x), "
          "gm.logsumexp, or a custom gradient that computes the derivative stably, as the "
          "TensorFlow docs' log1pexp does: upstream * (1 - 1 / (1 + e))")


# -- small tools --------------------------------------------------------------------------
def _arrays(values):
    return [raw(v) for v in (values or ()) if v is not None and not isinstance(v, str)]


def _host64(v):
    return np.asarray(to_host(raw(v)), dtype=np.float64)


def _close(a, b, rtol, atol):
    a, b = _host64(a), _host64(b)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= atol + rtol * np.maximum(np.abs(a), np.abs(b))))


def _tolerance(dtype):
    """check_grad's tolerances for a dtype, which compare float32 a little more loosely here
    (a one-direction finite difference, not per element)."""
    rtol, atol = TOLERANCES.get(np.dtype(dtype), TOLERANCES[np.dtype("float32")])
    return (max(rtol, 1e-4), atol) if np.dtype(dtype) == np.float64 else (max(rtol, 3e-3), atol)


def _where(row):
    return f"{row.section} row #{row.index}, {order_name(row.level)}"


# -- 4 and 5: NaN or Inf born in the backward pass; a masked where branch ------------------
def _nan_births(trace):
    """The first backward row of each pass whose downstream is not finite while its
    upstream and inputs were (a NaN in x itself comes from the forward pass); and
    whether each such row's forward output held a NaN already. Every value is scanned at
    once (``scan``: one synchronisation for device arrays, however many values)."""
    rows = [r for r in trace.backward if r.kind in ("op", "function")]
    parts = [(_arrays(r.downstream), _arrays(r.upstream), _arrays(r.inputs), _arrays(r.outputs))
             for r in rows]
    values = list({id(v): v for part in parts for group in part for v in group}.values())
    flags = dict(zip(map(id, values), scan(values)))  # each value once
    births, seen = [], set()
    for row, (downs, ups, xs, outs) in zip(rows, parts):
        if row.level in seen or not any(flags[id(d)][0] for d in downs):
            continue
        seen.add(row.level)
        if any(flags[id(u)][0] for u in ups) or any(flags[id(x)][1] for x in xs):
            continue  # it came from upstream (or a folded row): not born here
        births.append((row, any(flags[id(o)][1] for o in outs)))
    return births


def _cause(row):
    """Why a step made NaN or Inf, in words (``0 * inf``, ``log(0)``, exp overflow ...)."""
    xs = _arrays(row.inputs)
    x = _host64(xs[0]) if xs else None
    dtype = numpy_dtype(raw(row.inputs[0]).dtype) if xs and hasattr(raw(row.inputs[0]), "dtype") else None
    nan = any(has_nan(d) for d in _arrays(row.downstream))
    local = row.local
    zero_times_inf = False
    if isinstance(local, tuple):
        for loc in _arrays(local):
            lv = _host64(loc)
            for up in _arrays(row.upstream):
                uv = _host64(up)
                try:
                    both = np.broadcast_arrays(lv, uv)
                except ValueError:
                    continue
                if np.any(np.isinf(both[0]) & (both[1] == 0)):
                    zero_times_inf = True
    parts = []
    if row.node == "exp" and x is not None and dtype in OVERFLOW and np.any(x > OVERFLOW[dtype]):
        parts.append(f"exp overflow: x={number(x.max())} is above log(max {dtype.name}) ≈ "
                     f"{OVERFLOW[dtype]:.1f}, so exp(x) = inf")
    if row.node in ("log", "log2", "log10", "reciprocal", "divide") and x is not None and np.any(x == 0):
        parts.append(f"{row.node}(0): its local derivative 1/x is inf at x = 0")
    if row.node == "sqrt" and x is not None and np.any(x == 0):
        parts.append("sqrt at 0: its local derivative 1 / (2 sqrt(x)) is inf at x = 0")
    if row.node in ("arcsin", "arccos", "arctanh") and x is not None and np.any(np.abs(x) >= 1):
        parts.append(f"{row.node} at |x| = 1: its local derivative is inf there")
    if zero_times_inf and nan:
        parts.append("0 * inf = NaN: an upstream gradient of 0 met a local derivative of inf")
    elif nan and not parts:
        parts.append("inf - inf or 0 * inf inside the step: the upstream and inputs were finite")
    elif not parts:
        parts.append("the local derivative is inf for a finite input")
    return "; ".join(parts)


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


def nan_origin(trace, births=None):
    """NaN or Inf born in the backward pass: the first step, its numbers, cause and fix."""
    found = []
    for row, nan_before in _nan_births(trace) if births is None else births:
        if _masked_branch(trace, row)[0] is not None:
            continue  # masked_where explains it
        if nan_before:
            continue  # the forward value was NaN already: not born in the backward pass
        found.append(Pitfall("nan-origin", lambda row=row: _nan_origin_message(row), row))
    return found


def _nan_origin_message(row):
    c = row.cells()
    return (f"NaN/Inf first appears in the backward pass at {row.node} ({_where(row)}): "
            f"{c['x']}, upstream {c['upstream']}, local {c['local']}, downstream "
            f"{c['downstream']}. Cause: {_cause(row)}. Fix: {STABLE}.")


def masked_where(trace, births=None):
    """A where whose unselected branch sends NaN backward (the where-inside-where fix)."""
    found = []
    for row, _ in _nan_births(trace) if births is None else births:
        f, k = _masked_branch(trace, row)
        if f is None:
            continue
        found.append(Pitfall("masked-where", lambda row=row, k=k: _masked_where_message(row, k), row))
    return found


def _masked_where_message(row, k):
    branch = "x (taken where the condition is True)" if k == 1 else "y (taken where it is False)"
    return (f"np.where(c, x, y) sends a gradient of 0 into the unselected positions of its "
            f"branch {branch}, computed by {row.node} ({_where(row)}); there {row.node}'s local "
            f"derivative is not finite, and 0 * inf = NaN, so the NaN reaches the inputs even "
            f"though where never selected those values. Cause: {_cause(row)}. Fix: make the "
            f"branch safe where it is not selected, a where inside the where: "
            f"np.where(c, np.{row.node}(np.where(c, x, 1)), 0).")


# -- 6: why a gradient is None -------------------------------------------------------------
def why_none(trace, seen, targets, source):
    """The missing link between ``targets`` and ``source``, in words, with the fix.
    ``seen``: what the tape had recorded (``core.tape.TapeView``)."""
    name = trace.name_of(source) or "the source"
    tname = " + ".join(trace.name_of(t) or "the target" for t in targets)
    if source.dtype.kind not in "fc":
        return (f"{name} has dtype {source.dtype}: integer and boolean values have no gradient. "
                f"Make it floating: gm.constant(..., dtype='float32') or {name}.astype(float).")
    used = seen.recorded_inputs + [a for row in trace.forward for a in row.inputs]
    copies = [a for a in used if isinstance(a, Tensor) and a is not source and _same_buffer(a, source)]
    if not seen.connected(source):
        if isinstance(source, Variable):
            if not source.trainable:
                return (f"{name} is a Variable with trainable=False, which tapes do not watch "
                        f"on their own: call tape.watch({name}) inside the with block.")
            if not seen.watch_accessed:
                return (f"the tape was made with watch_accessed_variables=False, so it watches "
                        f"only what you watch: call tape.watch({name}).")
            return (f"{name} was not used while the tape recorded: {tname} was computed "
                    f"without it, or outside the with block.")
        producer = _producer(trace, source)
        read = [trace.variable_of(a) for a in producer.inputs] if producer is not None else []
        if any(v is not None for v in read):
            var = next(v for v in read if v is not None)
            return (f"{name} is no longer the Variable {var.name!r}: an assignment like "
                    f"`{name} = {name} - lr * grad` made a new Tensor, which nothing watches. "
                    f"Update the variable in place ({var.name}.assign_sub(lr * grad)), or ask "
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
        return (f"{tname} was not recorded by this tape: it was computed outside the tape's "
                f"with block (or while it was paused), or only from values the tape does not "
                f"watch. Compute it inside `with tape:`.")
    if _ran_unrecorded(trace, seen, source):
        return (f"ops on {name} ran while the tape was not recording "
                f"(inside tape.stop_recording()), so the chain from {name} to {tname} has a gap.")
    return f"{tname} does not depend on {name} through any op the tape recorded."


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
        if any(o is tensor for o in (row.outputs or ())):
            return row
    return None


def _ran_unrecorded(trace, seen, source):
    for row in trace.forward:
        if any(a is source for a in row.inputs) and not any(
                isinstance(o, Tensor) and seen.connected(o) for o in (row.outputs or ())):
            return True
    return False


# -- 1: upstream ignored (calls grad_fn again) -----------------------------------------------
def _custom_rows(trace):
    """Backward rows of custom functions whose grad_fn ran to the end."""
    return [r for r in trace.backward if r.kind == "function" and isinstance(r.source, CustomCall)
            and r.downstream is not None]


def upstream_ignored(trace):
    """A grad_fn whose result does not scale with its upstream: the chain is cut."""
    found = []
    for row in _custom_rows(trace):
        call, ups = row.source, [raw(u) for u in row.upstream]
        downs = row.downstream
        twice = trace.rerun_quietly(call.gradients, tuple(u * 2 for u in ups))
        zero = trace.rerun_quietly(call.gradients, tuple(u * 0 for u in ups))
        if isinstance(twice, Exception) or isinstance(zero, Exception):
            continue
        bad = []
        for k, d in enumerate(downs):
            if d is None or twice[k] is None:
                continue
            rtol, atol = _tolerance(raw(d).dtype)
            scale = float(np.max(np.abs(_host64(d)))) if _host64(d).size else 0.0
            if not _close(twice[k], _host64(d) * 2, rtol, atol * max(1.0, scale)) or (
                    zero[k] is not None and not _close(zero[k], np.zeros_like(_host64(d)), rtol, atol * max(1.0, scale))):
                bad.append(k)
        if not bad:
            continue
        names = row.input_names()
        k = bad[0]
        local = trace.custom_local(row)  # what grad_fn gives for an upstream of ones
        if isinstance(local, tuple):
            row.set_local(local)  # the row shows the number the user's grad_fn gives
        local = local[k] if isinstance(local, tuple) else None
        got = summary(downs[k], trace.precision)
        up = summary(row.upstream, trace.precision)
        would = ""
        if local is not None and not isinstance(local, str) and len(ups) == 1:
            try:
                would = summary(raw(ups[0]) * raw(local), trace.precision)
            except ValueError:
                would = ""
        if would == got:
            continue  # an upstream of ones: the numbers agree here; the rows after show the cut
        w = call.words
        found.append(Pitfall("upstream-ignored", (
            f"{row.node}'s {w['grad_fn']} does not multiply by its {w['upstream gradient']}: for "
            f"{names[k]} it passed {got} downstream for {w['an']} {w['upstream']} of {up}"
            + (f"; with the {w['upstream']} multiplied in ({w['upstream']} × local) it would pass "
               f"{would}" if would else "")
            + f". Ignoring {w['upstream']} cuts the chain rule here, as if {w['stop_gradient']} were "
            f"there: everything before {row.node} gets the wrong gradient. Fix: return "
            f"{w['upstream']} * (d{row.node}/d{names[k]}), e.g. `{w['example']}`."), row))
    return found


# -- 2: wrong derivative (finite differences of the forward) -----------------------------------
def wrong_derivative(trace):
    """A custom gradient that disagrees with the derivative of its own forward function."""
    found = []
    rng = np.random.default_rng(0)
    for row in _custom_rows(trace):
        call = row.source
        if call.function is None or call.level or any(p.kind == "upstream-ignored" for p in row.pitfalls):
            continue  # nested inside a grad_fn (see nested_second_order), or already explained
        for k, (x, d) in enumerate(zip(call.inputs, row.downstream)):
            if d is None or not isinstance(x, Tensor) or x.dtype.kind != "f":
                continue
            fd, engine = _directional(trace, call, row, k, rng)
            if fd is None:
                continue
            rtol, atol = _tolerance(x.dtype)
            if abs(fd - engine) <= atol * max(1.0, abs(fd)) + rtol * max(abs(fd), abs(engine)):
                continue
            name = row.input_names()[k]
            along = "" if x.size == 1 else " along a random direction"
            w = call.words
            found.append(Pitfall("wrong-derivative", (
                f"{row.node}'s custom gradient disagrees with the derivative of its own forward "
                f"function for {name} (at {name}={summary(x, trace.precision)}): {w['grad_fn']} "
                f"passed {number(engine, trace.precision)} downstream{along}, while central finite "
                f"differences of {row.node} give {number(fd, trace.precision)} for the same "
                f"{w['upstream']}. Fix the formula in {w['grad_fn']} (check it with "
                f"{w['check_grad']}); if the "
                f"difference is deliberate (a straight-through or clipped gradient), ignore "
                f"this note."), row))
            break
    return found


def _directional(trace, call, row, k, rng):
    """(finite differences, engine) of <upstream, y> along a direction in input ``k``."""
    x = call.inputs[k]
    xp = xp_of(x.value)
    v = np.ones(x.shape) if x.size == 1 else rng.standard_normal(x.shape)
    host = _host64(x)
    eps = relative_step(host)
    ups = [_host64(u) for u in row.upstream]
    base = [Tensor(xp.asarray(_host64(a))) if isinstance(a, Tensor) and a.dtype.kind == "f" else a
            for a in call.inputs]

    def value(t):
        xs = list(base)
        xs[k] = Tensor(xp.asarray(host + t * v))
        out = call.forward(*xs)[0]
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return sum(float(np.sum(u * _host64(o))) for u, o in zip(ups, outs))

    fd = trace.rerun_quietly(central_difference, value, eps)
    if isinstance(fd, Exception) or not math.isfinite(fd):
        return None, None
    engine = float(np.sum(_host64(row.downstream[k]) * v))
    return fd, engine


# -- 3: nested custom gradients are not second derivatives ---------------------------------------
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
    """A decorated grad_fn used in a second-order pass: captured values got no gradient."""
    found = []
    for row in _custom_rows(trace):
        call = row.source
        if row.level < 2 or call.level < 1 or call.function is None:
            continue
        fn = getattr(call.function, "__wrapped__", None)
        cells = zip(getattr(getattr(fn, "__code__", None), "co_freevars", ()),
                    getattr(fn, "__closure__", None) or ())
        captured = [(var, c.cell_contents) for var, c in cells if _cell_tensor(c)]
        for var, c in captured:
            missed = _captured_term(trace, call, row, c)
            if missed is None or abs(missed) <= 1e-6 * max(1.0, abs(missed)):
                continue
            name = trace.known_name(c) or var
            result = next((g for g in trace.gradients if g.level == row.level and g.inputs
                           and g.inputs[0] is c and g.downstream[0] is not None), None)
            numbers = ""
            if result is not None and raw(result.downstream[0]).size == 1:
                produced = float(_host64(result.downstream[0]).sum())
                numbers = (f" The second derivative came out {number(produced, trace.precision)}; "
                           f"with the missing term it is {number(produced + missed, trace.precision)}.")
            found.append(Pitfall("nested-not-second-derivative", (
                f"{row.node} is a custom gradient nested inside another function's grad_fn. In "
                f"the {order_name(row.level)} its grad_grad_fn gave the derivative with respect "
                f"to its upstream dy only: {name}, which grad_fn captures from the enclosing "
                f"scope, got no gradient through this path (finite differences of {row.node}'s "
                f"output in {name} give {number(missed, trace.precision)} that is missing)."
                f"{numbers} Fix: make the inner custom gradient take {name} explicitly, so its "
                f"second-order rule gives {name}'s gradient:\n{NESTED_FIX}"), row))
    return found


def _cell_tensor(cell):
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return isinstance(v, Tensor) and v.dtype.kind == "f"


def _captured_term(trace, call, row, captured):
    """Finite differences of <ddy, grad_fn(dy)> in a value grad_fn captured (dy held fixed)."""
    ups = [_host64(u) for u in row.upstream]
    old = captured.value
    host = _host64(old)
    xp = xp_of(old)
    eps = relative_step(host)
    v = np.ones(host.shape)
    inputs = [Tensor(raw(a)) if isinstance(a, Tensor) else a for a in call.inputs]

    def value(t):
        captured.value = xp.asarray(host + t * v, dtype=old.dtype if hasattr(old, "dtype") else None)
        try:
            out = call.forward(*inputs)[0]
        finally:
            captured.value = old
        outs = out if isinstance(out, (tuple, list)) else (out,)
        return sum(float(np.sum(u * _host64(o))) for u, o in zip(ups, outs))

    missed = trace.rerun_quietly(central_difference, value, eps)
    return None if isinstance(missed, Exception) else missed


def unrecorded_in_second_order(trace):
    """A custom function's backward, differentiated again, that reads values its forward
    computed where nothing recorded them: their derivative is silently lost."""
    found = []
    for row in _custom_rows(trace):
        if not any(isinstance(u, Tensor) for u in row.upstream):
            continue  # a pass that nothing differentiates again
        call = row.source
        names = trace.rerun_quietly(call.unrecorded)
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
COSTLY = (upstream_ignored, wrong_derivative, nested_second_order, unrecorded_in_second_order)


def detect(trace):
    """Run the detectors over ``trace`` (the costly ones when it was asked to check) and
    attach what they find to the rows; returns the findings."""
    found = []
    births = None
    for detector in CHEAP + (COSTLY if trace.check else ()):
        try:
            if detector in CHEAP:  # they share one scan of the backward pass's values
                births = _nan_births(trace) if births is None else births
                results = detector(trace, births)
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
