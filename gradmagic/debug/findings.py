"""The notes a review of custom gradients writes (``review.py`` finds, this module says).

Each note names the function, the input (by parameter name, a variable by its name) and,
for arrays, the element; it shows what ``grad_fn`` gave and what the derivative of the
body is, and says where that derivative came from. Mistakes (``upstream-ignored``,
``wrong-derivative``) carry a fix written from the user's own ``grad_fn`` where its source
can be read; intentional patterns (``intentional-surrogate``) and checks that could not run
(``not-checked``) are information. Every backward row of a function found wrong says that
its ``local`` comes from that ``grad_fn``.
"""

from __future__ import annotations

import numpy as np

from ..core.custom import CustomCall
from ..render._format import summary
from .body import call_kind
from .notes import Pitfall, differ, element, host64, shown
from .review import Review, reviewed
from .snapshot import code_of
from .source import times_upstream

MISTAKES = ("ignored", "wrong", "factor")
INTENDED = ("zero", "clipped", "rectified", "rescaled", "scaled", "reversed")
STEP_OPS = ("round", "around", "rint", "floor", "ceil", "trunc", "sign", "heaviside",
            "stop_gradient", "greater", "less", "greater_equal", "less_equal")


def check_custom_gradients(trace):
    """Review every custom function's gradient (once per function and input shapes) and
    write the notes."""
    found = []
    for row in reviewed(trace):
        call = row.source
        ks = [k for k, a in enumerate(list(call.inputs) + list(call.variables))
              if getattr(a, "dtype", None) is not None and a.dtype.kind == "f"
              and hasattr(a, "value") and row.downstream[k] is not None]
        if not ks:
            continue
        rv = Review(trace, row)
        with rv.snap:
            verdicts = {k: rv.judge(k) for k in ks}
            notes = _notes(trace, rv, verdicts)
        found += notes
        if any(v.kind in MISTAKES for v in verdicts.values()):
            _mark_locals(trace, rv, verdicts)
    return found


def _notes(trace, rv, verdicts):
    by = {}
    for k, v in verdicts.items():
        by.setdefault(v.kind, []).append(k)
    out = []
    if "ignored" in by:
        out.append(Pitfall("upstream-ignored", _ignored(trace, rv, by["ignored"]), rv.row))
    wrong = [k for k in verdicts if verdicts[k].kind in ("wrong", "factor")]
    if wrong:
        out.append(Pitfall("wrong-derivative", _wrong(trace, rv, verdicts, wrong), rv.row))
    intended = [k for k in verdicts if verdicts[k].kind in INTENDED]
    if intended:
        out.append(Pitfall("intentional-surrogate", _intended(trace, rv, verdicts, intended), rv.row))
    if "unchecked" in by:
        out.append(Pitfall("not-checked", _unchecked(rv, verdicts, by["unchecked"]), rv.row))
    return out


def _names(rv):
    return rv.row.input_names()


def _source(rv, k):
    f = rv.row.node
    if rv.t("u")[k] is not None:
        return f"the engine's derivative of {f}'s recorded body" + (
            ", and central differences of its forward where an op of it sits on a kink"
            if any(key[0] == k for key in rv.kink) else "")
    return f"central differences of {f}'s forward, run again on a snapshot"


def _val(trace, v):
    return shown(v, trace.precision)


def _ignored(trace, rv, ks):
    f, w, names, p = rv.row.node, rv.call.words, _names(rv), trace.precision
    parts = []
    for k in ks:
        got, up = summary(rv.given[k], p), summary([host64(u) for u in rv.ups], p)
        true = rv.true_gradient(k)
        would = (f"; with the {w['upstream']} multiplied in ({w['upstream']} × local) it would "
                 f"pass {summary(true, p)} ({_source(rv, k)})" if true is not None else "")
        parts.append(f"for {names[k]} it passed {got} downstream for {w['an']} {w['upstream']} of "
                     f"{up}, and the same for {w['upstream']} × 2 and for {w['upstream']} 0{would}")
    n = len(rv.call.names)
    # what it returns must be the local derivative (its value for an upstream of ones) for
    # "multiply it by the upstream" to be the whole fix
    exact = {k: rv.t("u")[k] is not None for k in ks}
    local = [rv.truth(k, "1", exact[k]) for k in ks]
    off = [k for k, t in zip(ks, local) if t is not None and rv.given[k] is not None
           and np.shape(t) == np.shape(rv.given[k])
           and differ(host64(rv.given[k]), t, rv.tol(k, exact[k])).any()]
    fix = None if rv.call.variables or off or any(k >= n for k in ks) else times_upstream(
        rv.call.backward_function(), n, rv.call.leading, set(ks))
    fix = f"`{fix}`" if fix else (f"multiply what {w['grad_fn']} returns for "
                                  f"{' and '.join(names[k] for k in ks)} by its {w['upstream']}")
    if off:
        fix = "; ".join(
            f"return {w['upstream']} times the derivative of {f} with respect to {names[k]}, "
            f"which is {summary(t, p)} here (it returns {summary(rv.given[k], p)}: not that "
            f"derivative either)" for k, t in zip(ks, local) if k in off)
    return (f"{f}'s {w['grad_fn']} does not multiply by its {w['upstream gradient']}: "
            + "; ".join(parts) + f". Ignoring {w['upstream']} cuts the chain rule here, as if "
            f"{w['stop_gradient']} were there: everything before {f} gets the wrong gradient. "
            f"Fix: {fix}.")


def _wrong(trace, rv, verdicts, ks):
    f, w, names, p = rv.row.node, rv.call.words, _names(rv), trace.precision
    args, details, extra = rv.args, [], []
    for k in ks:
        v = verdicts[k]
        got = rv.measure(k, rv.g(v.probe)[k], rv.t("u")[k] is not None)
        true = rv.truth(k, v.probe, rv.t("u")[k] is not None)
        up = "" if v.probe == "u" else (f" (with a random {w['upstream']}; the pass's own "
                                        f"{w['upstream']} hides the difference)")
        details.append(_detail(trace, rv, k, got, true, v) + up)
        if v.kind == "factor":
            extra.append(f"For {names[k]} {w['grad_fn']} gives {_val(trace, v.factor)} times the "
                         f"derivative everywhere; {f}'s forward is not the identity, so a scaled "
                         f"gradient is a mistake here (to scale gradients on purpose, put the "
                         f"scaling in an identity function of its own, as grad_multiply does)")
        elif not np.any(got) and np.any(true):
            extra.append(f"For {names[k]} it returns zeros, a placeholder, where the derivative is "
                         "not zero")
        if v.why == "not linear":
            extra.append(_not_linear(rv, k))
        local = _local(rv, k, v) if len(ks) == 1 else None
        if local is not None:
            extra.append(f"The local derivative of {f} in {names[k]} is {summary(local, p)}, so "
                         f"{w['upstream']} × local = {summary(true, p)}")
    for a in ks:
        for b in ks:
            if a < b and np.shape(args[a]) == np.shape(args[b]) and rv.t("u")[a] is not None and \
                    rv.t("u")[b] is not None and np.allclose(rv.given[a], rv.t("u")[b]) and \
                    np.allclose(rv.given[b], rv.t("u")[a]):
                extra.insert(0, f"The gradients for {names[a]} and {names[b]} are swapped: each "
                             "is the other's derivative")
    which = " and ".join(_what(rv, k) for k in ks)
    body = "; ".join(details) if len(ks) > 1 else details[0].split(": ", 1)[1]
    return (f"{f}'s custom gradient disagrees with the derivative of its own forward function "
            f"({_source(rv, ks[0])}) for {which}: {body}. "
            + "".join(s + ". " for s in extra)
            + f"Fix the formula in {_rule(rv)} (check it with {w['check_grad']}).")


def _rule(rv):
    """The user's rule by its own name where a dialect's words name it by its role (a
    custom_jvp's ``f_jvp``, which the engine transposes into the gradient)."""
    w = rv.call.words
    rule = getattr(getattr(getattr(rv.call, "function", None), "rule_of", None), "jvp", None)
    name = getattr(code_of(rule), "__name__", None)
    return f"{name}, its {w['forward']}" if name and name != "<lambda>" and "forward" in w else w["grad_fn"]


def _what(rv, k):
    n = len(rv.call.names)
    return rv.row.input_names()[k] if k < n else \
        f"variable {(rv.trace.known_name(rv.args[k]) or rv.args[k].name)!r}"


def _detail(trace, rv, k, got, true, v):
    """The numbers of one wrong input: where it differs, what grad_fn gave, what it should."""
    w, p, name = rv.call.words, trace.precision, _names(rv)[k]
    if k >= len(rv.call.names):  # a variable, by the user's name for it
        name = trace.known_name(rv.args[k]) or name
    x = host64(rv.args[k])
    shape = np.shape(rv.args[k])
    if np.shape(got) != shape:  # measured along random directions
        return (f"for {_what(rv, k)}: along {len(got)} random directions {w['grad_fn']} gives "
                f"{summary(got, p)}, the derivative gives {summary(true, p)}")
    wrong = v.wrong if v.wrong is not None and np.shape(v.wrong) == shape else np.ones(shape, bool)
    flat = np.flatnonzero(wrong)
    if not flat.size:
        flat = np.array([int(np.argmax(np.abs(got - true)))])
    j = int(flat[0])
    up = rv.upstream(v.probe)
    u = host64(up[0]) if len(up) == 1 and np.shape(up[0]) == shape else None
    at = element(name, shape, j)
    head = (f"for {_what(rv, k)}: at {at} = {_val(trace, x.flat[j])}"
            + (f" with {w['upstream']} {_val(trace, u.flat[j])}" if u is not None else "") + ", "
            f"{w['grad_fn']} gave {_val(trace, np.asarray(got).flat[j])} where the derivative is "
            f"{_val(trace, np.asarray(true).flat[j])}")
    if u is not None and u.flat[j] not in (0.0, 1.0) and (x.size == 1 or rv.elementwise(k)):
        head += f" ({w['upstream']} × local {_val(trace, np.asarray(true).flat[j] / u.flat[j])})"
    if x.size > 1:
        worst = int(flat[np.argmax(np.abs(np.asarray(got) - np.asarray(true)).flat[flat])])
        head += f"; {flat.size} of {x.size} elements differ"
        if worst != j:
            head += (f", the most at {element(name, shape, worst)}: "
                     f"{_val(trace, np.asarray(got).flat[worst])} instead of "
                     f"{_val(trace, np.asarray(true).flat[worst])}")
    return head


def _local(rv, k, v):
    """The correct local derivative of an elementwise input (true / upstream), or None."""
    up = rv.upstream(v.probe)
    true = rv.truth(k, v.probe, True) if rv.t(v.probe)[k] is not None else None
    if true is None or len(up) != 1 or np.shape(up[0]) != np.shape(true) or np.size(true) > 4 or (
            np.size(true) > 1 and not rv.elementwise(k)):
        return None
    u = host64(up[0])
    return None if np.any(u == 0) else true / u


def _not_linear(rv, k):
    w = rv.call.words
    text = (f"This {w['grad_fn']} is not linear in its {w['upstream']} ({w['grad_fn']}(2 × "
            f"{w['upstream']}) is not 2 × {w['grad_fn']}({w['upstream']})), and it is not exact "
            f"for small values of {w['upstream']} either, so it is not a gradient clipping")
    twice, once = rv.g("2u")[k], rv.g("u")[k]
    if twice is not None and once is not None and np.any(once) and np.allclose(
            host64(twice), 4 * host64(once), rtol=1e-5, atol=0):
        text += (f". It is quadratic in its {w['upstream']} ({w['grad_fn']}(2 × {w['upstream']}) is "
                 f"4 × {w['grad_fn']}({w['upstream']})): it multiplies by the {w['upstream']} twice, "
                 f"where the chain rule multiplies once")
    small = rv.g(str(1e-6))
    if not isinstance(small, Exception) and small[k] is not None and len(rv.ups) == 1 and \
            np.shape(rv.ups[0]) == np.shape(small[k]):
        scale = float(np.max(np.abs(host64(rv.ups[0])), initial=0.0)) or 1.0
        if np.allclose(small[k] * scale / 1e-6, host64(rv.ups[0]), rtol=1e-3):
            text += (f". It clips its {w['upstream']} as a gradient-clipping function does, but "
                     f"{rv.row.node}'s forward is not the identity: the clipped {w['upstream']} must "
                     f"still be multiplied by the local derivative")
    return text


def _intended(trace, rv, verdicts, ks):
    f, w, names, p = rv.row.node, rv.call.words, _names(rv), trace.precision
    parts = []
    for k in ks:
        v = verdicts[k]
        got = summary(rv.given[k], p)
        if v.kind == "zero":
            ops = sorted(set(getattr(getattr(code_of(rv.call.forward_function()), "__code__", None),
                                     "co_names", ())) & set(STEP_OPS))
            uses = f"; it uses {', '.join(ops)}" if ops else ""
            if v.probe == "r":  # this pass's upstream is 0: the random probe shows it
                got = (f"{got} for this {w['upstream']} of 0, and {summary(rv.g('r')[k], p)} for a "
                       f"random one,")
            parts.append(f"a straight-through gradient for {names[k]} (a surrogate): {f}'s forward "
                         f"is piecewise constant there (its derivative is 0{uses}), and "
                         f"{w['grad_fn']} passes {got} instead")
        elif v.kind == "rectified":
            parts.append(f"a rectified gradient for {names[k]} (guided backpropagation's): "
                         f"{w['grad_fn']} gives the derivative of {f} for the positive part of its "
                         f"{w['upstream']}, and nothing for the negative part")
        elif v.kind == "rescaled":
            once, twice = (_val(trace, c) for c in v.factor)
            parts.append(f"a normalised gradient for {names[k]}: {w['grad_fn']} gives the "
                         f"derivative of {f} rescaled by a positive factor that depends on the "
                         f"{w['upstream']} ({once} for this {w['upstream']}, {twice} for "
                         f"{w['upstream']} × 2): its direction is the derivative's, its size is not")
        elif v.kind == "clipped":
            true = rv.true_gradient(k)
            parts.append(f"a clipped gradient for {names[k]}: for small values of {w['upstream']} "
                         f"{w['grad_fn']} gives exactly the derivative of {f}; for this "
                         f"{w['upstream']} it gives {got}"
                         + (f" where the derivative is {summary(true, p)}" if true is not None else ""))
        else:
            c = _val(trace, v.factor)
            what = "gradient reversal" if v.kind == "reversed" else "gradient scaling"
            parts.append(f"{what} for {names[k]}: {f} passes {names[k]} through unchanged and its "
                         f"{w['grad_fn']} multiplies the {w['upstream']} by {c}")
    return (f"{f}'s {w['grad_fn']} is an intentional surrogate, not the derivative of its forward: "
            + "; ".join(parts) + ". Recognised as intended: nothing to fix if this is what you meant.")


def _unchecked(rv, verdicts, ks):
    f, w, names = rv.row.node, rv.call.words, _names(rv)
    whys = sorted({verdicts[k].why for k in ks})
    how = (f"its {w['grad_fn']} differs from the engine's derivative of {f}'s recorded body "
           f"only at a kink, where that derivative is one choice among several"
           if all(rv.t("u")[k] is not None for k in ks) else
           f"the engine cannot differentiate {f}'s recorded body for it (its output does not "
           f"depend on {' and '.join(names[k] for k in ks)} through recorded ops: np.round, "
           f".numpy() or stop_gradient leave the tape)" if rv.body is not None else
           f"{f}'s forward runs without recording, so its derivative would come from running it again")
    return (f"{f}'s {w['grad_fn']} was not checked for {' and '.join(names[k] for k in ks)}: "
            f"{how}, and {'; '.join(whys)}.")


def _mark_locals(trace, rv, verdicts):
    """Say, in every backward row of the function, that its local comes from a grad_fn
    found wrong (the reviewed row shows what grad_fn returns for an upstream of ones)."""
    f, w = rv.row.node, rv.call.words
    kind = call_kind(rv.call)
    ignored = any(v.kind == "ignored" for v in verdicts.values())
    if ignored:
        ones = rv.g("1")
        if not isinstance(ones, Exception):
            rv.row.set_local(tuple(ones))
            rv.row.add_note(f"local: what {f}'s {w['grad_fn']} returns for {w['an']} "
                            f"{w['upstream']} of ones; it ignores its {w['upstream']}, so "
                            f"{w['upstream']} × local is not downstream here")
    for r in trace.backward:
        if r.kind == "function" and isinstance(r.source, CustomCall) and (
                r is not rv.row or not ignored) and call_kind(r.source) == kind:
            r.add_note(f"{f}'s {w['grad_fn']} is wrong (see the note under row #{rv.row.index}): "
                       f"local and downstream here are what it gave, not {f}'s derivative")
