"""Reviewing a custom gradient: what ``grad_fn`` gave against the derivative of its body.

For the first call of each custom function and input shapes in a checking trace, the
gradients ``grad_fn`` gave in the pass are compared, per input (variables too) and per
element, with the true ones: the engine's gradient of the body's recorded ops
(``body.py``), or, where the body is not differentiable by the engine (it left the tape:
``np.round``, ``.numpy()``; a PyTorch Function's forward), central finite differences of
the function run again on a snapshot (``snapshot.py``) when that can be made safe.
``grad_fn`` is called again, on the same snapshot, with other upstreams (``2u``, ``0``, a
random ``r``, ``u + r``, small multiples of ``u``) to tell a mistake from an intentional
pattern (``Verdict``):

- ignored: the same gradient for ``u``, ``2u`` and ``0``: the chain is cut (a mistake);
- straight-through: the body's derivative is 0 (piecewise constant) and ``grad_fn``
  passes a surrogate (intentional);
- clipped: not linear in the upstream, but exact for small upstreams (intentional);
- scaled or reversed: ``c`` times the derivative of an identity forward (intentional;
  on any other forward, a mistake);
- at a kink, any value between the one-sided derivatives is accepted (a subgradient);
- anything else is a wrong derivative, with every wrong input and element.
"""

from __future__ import annotations

import numpy as np

from .._backend import xp_of
from ..core.context import paused
from ..core.custom import CustomCall
from ..core.tensor import Tensor, raw
from .body import call_kind
from .notes import differ, host64, tolerance
from .snapshot import Snapshot, quietly

SMALL = (1e-3, 1e-6)  # upstreams this small (of the largest) must give the exact derivative
FULL = 16  # an input of up to this many elements is differenced element by element
DIRECTIONS = 3  # random directions for larger ones
KINKS = 8  # disputed elements whose one-sided derivatives are looked at
FD_TOL = {np.dtype("float64"): (1e-4, 1e-6), np.dtype("float32"): (3e-2, 3e-3)}
TIES = 64  # disputed elements at most whose kinks are confirmed by central differences
KINK_OPS = ("maximum", "minimum", "fmax", "fmin", "absolute", "sign", "clip")


def custom_rows(trace):
    """Backward rows of custom functions whose grad_fn ran to the end."""
    return [r for r in trace.backward if r.kind == "function" and isinstance(r.source, CustomCall)
            and r.downstream is not None]


def reviewed(trace):
    """The rows to review: one per custom function and input shapes (its call whose body
    the trace kept, where it kept one), functions nested in a grad_fn left out."""
    rows = [r for r in custom_rows(trace) if not r.source.level]
    kept = {call_kind(r.source) for r in rows if trace.body_of(r.source) is not None}
    out, seen = [], set()
    for r in rows:
        kind = call_kind(r.source)
        if kind in seen or (kind in kept and trace.body_of(r.source) is None):
            continue
        seen.add(kind)
        out.append(r)
    return out


class Verdict:
    """What the review found for one input: ``kind`` (``ok``, ``ignored``, ``zero``,
    ``clipped``, ``scaled``, ``reversed``, ``factor``, ``wrong``, ``unchecked``), the
    probe (``"u"`` or ``"r"``) the numbers come from, the disputed elements, and words."""

    def __init__(self, kind, probe="u", wrong=None, factor=None, why=""):
        self.kind, self.probe, self.wrong, self.factor, self.why = kind, probe, wrong, factor, why


def _tiny(a, ref=1.0):
    return a is None or float(np.max(np.abs(a), initial=0.0)) <= 1e-12 * max(1.0, ref)


class Review:
    """One custom call under review, on a snapshot of what its code can reach."""

    def __init__(self, trace, row):
        self.trace, self.row, self.call = trace, row, row.source
        call = self.call
        # the inputs as the call read them (one changed in place since, as an input a PyTorch
        # Function marks dirty, as the row shows it then), and the variables it captured
        self.args = [a if not getattr(a, "mutable", False) or s.value is a.value else s
                     for a, s in zip(call.inputs, row.inputs)] + list(call.variables)
        self.body = trace.body_of(call)
        self.ups = [raw(u) for u in row.upstream]
        rng = np.random.default_rng(0)  # the check's own generator: the user's is not touched
        self.rand = [xp_of(u).asarray(rng.standard_normal(np.shape(u)), dtype=u.dtype) for u in self.ups]
        self.given = [None if d is None else host64(d) for d in row.downstream]
        self._g, self._t, self._fd, self._runs = {"u": self.given}, {}, {}, {}
        self.kink = {}  # (argument, probe) -> {element: derivative from central differences}
        roots = [call.forward_function(), call.backward_function()]
        if self.body is not None:
            roots += [e[4]["call"].backward_function() for e in self.body.entries if e[0].joint]
        self.snap = Snapshot(roots, self.args + list(call.lead) + list(call.kw.values()))
        self.base = None  # the outputs of the function run again (finite differences)
        self._same = None  # and run again as it ran, in its own dtypes
        self.out_dtype = np.dtype(np.float64)  # their dtype

    # -- probes --------------------------------------------------------------------------
    def upstream(self, probe):
        u, r = self.ups, self.rand
        if probe.endswith("+"):  # the positive part of a probe (guided backpropagation's)
            return [xp_of(x).maximum(x, 0) for x in self.upstream(probe[:-1])]
        if probe in ("u", "again"):
            return u
        if probe == "r":
            return r
        if probe == "0":
            return [x * 0 for x in u]
        if probe == "2u":
            return [x * 2 for x in u]
        if probe == "u+r":
            return [a + b for a, b in zip(u, r)]
        if probe == "1":
            return [xp_of(x).ones(np.shape(x), dtype=x.dtype) for x in u]
        scale = max(float(np.max(np.abs(host64(x)), initial=0.0)) for x in u) or 1.0
        return [x * (float(probe) / scale) for x in u]

    def g(self, probe):
        """What grad_fn gives for an upstream probe, per argument (host float64, or None);
        an exception if it raised."""
        if probe not in self._g:
            got = quietly(self.call.gradients, tuple(self.upstream(probe)))
            self._g[probe] = got if isinstance(got, Exception) else [
                None if v is None else host64(v) for v in got]
        return self._g[probe]

    def t(self, probe):
        """The body's derivative for an upstream probe, per argument (host float64, or None
        where the body does not connect it)."""
        if probe not in self._t:
            got = None if self.body is None else quietly(self.body.vjp, self.upstream(probe), self.args)
            self._t[probe] = [None] * len(self.args) if got is None or isinstance(got, Exception) else [
                None if v is None else host64(v) for v in got]
        return self._t[probe]

    # -- the function run again, for finite differences -----------------------------------
    def run(self, k, delta, same=False):
        """The function's outputs (host float64) with argument ``k`` moved by ``delta``, run
        again from the snapshot's state (in float64; ``same``: unmoved, in the inputs' own
        dtypes); an exception if it raised."""
        self.snap.restore()
        call, n = self.call, len(self.call.inputs)
        if same:
            out = quietly(call.forward, *[Tensor(xp_of(a.value).asarray(a.value)) if isinstance(a, Tensor)
                                          else a for a in self.args[:n]])
            return out if isinstance(out, Exception) else [host64(o) for o in out[0]]
        inputs = [Tensor(xp_of(a.value).asarray(host64(a) + (delta if i == k else 0)))
                  if isinstance(a, Tensor) and a.dtype.kind == "f" else a
                  for i, a in enumerate(self.args[:n])]
        if k >= n:
            v = self.args[k]
            v.value = xp_of(v.value).asarray(host64(v) + delta)
        out = quietly(call.forward, *inputs)
        if isinstance(out, Exception):
            return out
        self.out_dtype = np.result_type(*[getattr(o, "dtype", np.float64) for o in out[0]])
        return [host64(o) for o in out[0]]

    def unsafe(self):
        """Why the function cannot be run again without changing the program, or ''."""
        if self.snap.unsafe:
            return "running it again would change your program: " + "; ".join(self.snap.unsafe)
        if self.base is None:
            self.base = self.run(0, 0.0)
        if isinstance(self.base, Exception):
            return f"running it again raised {type(self.base).__name__}: {self.base}"
        outs = [host64(o) for o in self.row.outputs]
        if self._same is None:
            self._same = self.run(0, 0.0, same=True)  # as it ran (an overflow to inf in float32 too)
        base = self._same
        if isinstance(base, Exception):
            base = self.base
        if len(outs) != len(base) or any(
                a.shape != b.shape or differ(a, b, tolerance(o.dtype)).any()
                for a, b, o in zip(base, outs, self.row.outputs)):
            return ("it gives other outputs when run again (it draws random numbers, or reads "
                    "state, that a snapshot cannot rewind)")
        return ""

    def fd(self, k):
        """Finite differences in argument ``k``: ``(directions or None for every element,
        columns: the outputs' change along each)``."""
        if k not in self._fd:
            x = host64(self.args[k])
            h = (1e-3 if self.fd_dtype() == np.float32 else 1e-6) * max(1.0, float(np.max(np.abs(x), initial=0)))
            if x.size <= FULL:
                dirs, vs = None, [np.eye(x.size)[j].reshape(x.shape) for j in range(x.size)]
            else:
                rng = np.random.default_rng(1)
                dirs = [rng.standard_normal(x.shape) for _ in range(DIRECTIONS)]
                vs = dirs
            cols, runs = [], []
            for v in vs:
                plus, minus = self.run(k, h * v), self.run(k, -h * v)
                if isinstance(plus, Exception) or isinstance(minus, Exception):
                    self._fd[k] = None
                    return None
                cols.append([(p - m) / (2 * h) for p, m in zip(plus, minus)])
                runs.append((v, plus, minus))
            self._fd[k] = (dirs, cols)
            self._runs[k] = (h, runs)
        return self._fd[k]

    def across_jumps(self, k):
        """Take the jumps out of argument ``k``'s finite differences: where an output steps
        at the input itself (``round(0.5)``, ``floor`` on its grid), its change over twice
        the step is the change over the step (a smooth change doubles), and the central
        difference is that step over ``2h``, not a derivative; there the derivative is the
        mean of the one-sided ones just beside the step (0 for a piecewise constant
        function). Whether any column changed."""
        h, runs = self._runs[k]
        dirs, cols = self._fd[k]
        changed = False
        for c, (v, p1, m1) in enumerate(runs):
            p2, m2 = self.run(k, 2 * h * v), self.run(k, -2 * h * v)
            if isinstance(p2, Exception) or isinstance(m2, Exception):
                return False
            for o in range(len(p1)):
                d1, d2 = p1[o] - m1[o], p2[o] - m2[o]
                with np.errstate(invalid="ignore"):
                    jump = (np.abs(d2 - d1) <= 0.25 * np.abs(d1)) & (np.abs(d1) > 0)
                if jump.any():
                    beside = ((p2[o] - p1[o]) + (m1[o] - m2[o])) / (2 * h)
                    cols[c][o] = np.where(jump, beside, cols[c][o])
                    changed = True
        return changed

    def fd_dtype(self):
        """The dtype the function computed in when run again (its outputs')."""
        return np.dtype(self.out_dtype)

    # -- comparing ------------------------------------------------------------------------
    def truth(self, k, probe, exact):
        """The true gradient of argument ``k`` for a probe: the body's (``exact``), or from
        finite differences, measured as ``measure`` measures grad_fn's."""
        if exact:
            t = self.t(probe)[k]
            if (k, probe) in self.kink and t is not None:  # at a kink: central differences
                t = np.array(t, np.float64)
                for j, v in self.kink[k, probe].items():
                    t.flat[j] = v
            return t
        dirs, cols = self.fd(k)
        up = [host64(u) for u in self.upstream(probe)]
        values = np.array([sum(float(np.sum(u * c)) for u, c in zip(up, col)) for col in cols])
        return values.reshape(np.shape(self.args[k])) if dirs is None else values

    def true_gradient(self, k, probe="u"):
        """The true gradient of argument ``k`` element by element (the body's, or from
        finite differences in every element), or None where only directions were measured."""
        if self.t(probe)[k] is not None:
            return self.truth(k, probe, True)
        if self._fd.get(k) is not None and self._fd[k][0] is None:
            return self.truth(k, probe, False)
        return None

    def measure(self, k, value, exact):
        if exact or value is None or self._fd[k][0] is None:
            return value
        return np.array([float(np.sum(value * d)) for d in self._fd[k][0]])

    def tol(self, k, exact):
        rtol, atol = tolerance(self.args[k].dtype)
        if exact:
            return rtol, atol
        frtol, fatol = FD_TOL.get(np.dtype(self.fd_dtype()), FD_TOL[np.dtype("float32")])
        return max(rtol, frtol), max(atol, fatol)

    def judge(self, k):
        """The verdict for argument ``k``."""
        exact = self.t("u")[k] is not None
        if not exact:
            why = self.unsafe()
            if why:
                return Verdict("unchecked", why=why)
            if self.fd(k) is None:
                return Verdict("unchecked", why="running it again with a moved input raised")
        for p in ("again", "r", "0", "2u", "u+r"):
            if isinstance(self.g(p), Exception):
                return Verdict("unchecked", why=f"calling it again raised {type(self.g(p)).__name__}")
        tol = self.tol(k, exact)
        again = self.g("again")[k]
        if (again is None) != (self.given[k] is None) or (
                again is not None and differ(again, self.given[k], tolerance(self.args[k].dtype)).any()):
            return Verdict("unchecked", why="it gives other gradients when called again with the "
                           "same upstream (it draws random numbers, or keeps state)")
        G = {p: self.measure(k, self.g(p)[k], exact) for p in ("u", "r", "0", "2u", "u+r")}
        if any(v is None for v in G.values()):
            return Verdict("ok")  # a None for some upstreams only: the contract's business
        T = {p: self.truth(k, p, exact) for p in ("u", "r")}
        finite = np.isfinite(G["u"]) & np.isfinite(T["u"])  # a NaN is nan_origin's to explain
        off = {p: differ(G[p], T[p], tol) & finite for p in ("u", "r")}
        if not exact and (off["u"].any() or off["r"].any()) and self.across_jumps(k):
            T = {p: self.truth(k, p, exact) for p in ("u", "r")}
            finite = np.isfinite(G["u"]) & np.isfinite(T["u"])
            off = {p: differ(G[p], T[p], tol) & finite for p in ("u", "r")}
        if exact and (off["u"].any() or off["r"].any()):
            # the engine's derivative at a kink of a body op (a tie of maximum, abs at 0) is
            # one subgradient; central differences of the forward say what the function's is
            settled, undecided = self.at_kinks(k, off["u"] | off["r"], G, tol)
            off = {p: off[p] & ~settled for p in off}
            T = {p: self.truth(k, p, exact) for p in ("u", "r")}
            if undecided.any() and not (off["u"] & ~undecided).any() and not (off["r"] & ~undecided).any():
                return Verdict("unchecked", why=(
                    f"it differs from the recorded ops' derivative only at {int(undecided.sum())} "
                    f"element(s) where an op of its body sits on a kink (a tie of maximum or "
                    f"minimum, abs or sign at 0, clip at a bound, a where's boundary), and "
                    f"central differences could not be taken there: {self.unsafe()}"))
        if not off["u"].any() and not off["r"].any():
            return Verdict("ok")
        probe = "u" if off["u"].any() else "r"
        big = max(float(np.max(np.abs(a), initial=0)) for a in (G["u"], T["u"], G["r"], T["r"]))
        if not differ(G["0"], G["u"], tol).any() and not differ(G["2u"], G["u"], tol).any() and not _tiny(G["u"]):
            return Verdict("ignored", probe)
        linear = (not differ(G["2u"], 2 * G["u"], tol).any() and _tiny(G["0"], big)
                  and not differ(G["u+r"], G["u"] + G["r"], tol).any())
        # the pass's own upstream may be 0 (a loss at its optimum, a relu after): then what
        # grad_fn is shows in the random probe's numbers alone
        ref = "u" if not (_tiny(T["u"], big) and _tiny(G["u"], big)) else "r"
        if _tiny(T["u"], big) and _tiny(T["r"], big) and not _tiny(G[ref]):
            return Verdict("zero", probe)
        if not linear and _tiny(G["0"], big):
            for s in SMALL:
                small = self.g(str(s))
                scale = max(float(np.max(np.abs(host64(x)), initial=0.0)) for x in self.ups) or 1.0
                if not isinstance(small, Exception) and small[k] is not None and not differ(
                        self.measure(k, small[k], exact) * scale / s, T["u"], tol).any():
                    return Verdict("clipped", probe)
            # guided backpropagation: the derivative for the upstream's positive part
            rectified = {p: self.truth(k, p + "+", exact) for p in ("u", "r")}
            if all(t is not None and not differ(G[p], t, tol).any() for p, t in rectified.items()):
                return Verdict("rectified", probe)
            factors = self.rescaled(G, T, tol)
            if factors:
                return Verdict("rescaled", probe, factor=factors)
        if linear and not _tiny(T[ref]) and not _tiny(G[ref], big):
            c = float(np.sum(G[ref] * T[ref]) / np.sum(T[ref] * T[ref]))
            if not differ(G["u"], c * T["u"], tol).any() and not differ(G["r"], c * T["r"], tol).any():
                if self.identity(k, exact, tol):
                    return Verdict("reversed" if c < 0 else "scaled", probe, factor=c)
                return Verdict("factor", probe, off[probe], factor=c)
        wrong = off["u"] | off["r"]
        if G["u"].shape == np.shape(self.args[k]) and 0 < wrong.sum() <= KINKS:
            kink = self.kinks(k, wrong, G, tol)
            if kink:
                return Verdict("ok")
            if kink is None:  # only running the body again could tell, and it cannot be run
                return Verdict("unchecked", why=(
                    f"it differs from the recorded ops' derivative only at {int(wrong.sum())} "
                    f"element(s), where a value the body made without recording (a mask) may "
                    f"make a kink; only running it again could tell, and {self.unsafe()}"))
        return Verdict("wrong", probe, off[probe], why="" if linear else "not linear")

    @staticmethod
    def rescaled(G, T, tol):
        """Gradient normalisation: for every probe, grad_fn gives the derivative's direction
        times a positive factor of its own (``u / |u|``); the factors for ``u`` and ``2u``,
        or None. The derivative must have two elements or more that are not 0, so that its
        direction says something (any two numbers are parallel)."""
        T = dict(T, **{"2u": 2 * T["u"], "u+r": T["u"] + T["r"]})
        factors = {}
        for p in ("u", "r", "2u", "u+r"):
            t = np.asarray(T[p], np.float64)
            big = float(np.max(np.abs(t), initial=0.0))
            if np.count_nonzero(np.abs(t) > 1e-9 * big) < 2 or not np.isfinite(t).all():
                return None
            c = float(np.sum(G[p] * t) / np.sum(t * t))
            if not c > 0 or differ(G[p], c * t, tol).any():
                return None
            factors[p] = c
        return factors["u"], factors["2u"]

    def elementwise(self, k):
        """Whether the body's Jacobian in argument ``k`` is diagonal (one output of k's
        shape, each element depending on its own alone): only then is true / upstream,
        element by element, a local derivative."""
        if len(self.ups) != 1 or np.shape(self.ups[0]) != np.shape(self.args[k]):
            return False
        if self.t("u")[k] is None:  # from finite differences: each column is one element's
            fd = self._fd.get(k)
            if fd is None or fd[0] is not None:
                return False
            cols = [np.abs(np.ravel(c[0])) for c in fd[1]]
            return all(np.delete(c, j).max(initial=0) <= 1e-3 * max(c.max(initial=0), 1e-12)
                       for j, c in enumerate(cols))
        ones, rand = self.truth(k, "1", True), self.truth(k, "r", True)
        return ones is not None and rand is not None and not differ(
            rand, host64(self.rand[0]) * ones, self.tol(k, True)).any()

    def identity(self, k, exact, tol):
        """Whether the function passes argument ``k`` through unchanged (its one output has
        k's shape and derivative 1)."""
        if len(self.ups) != 1 or np.shape(self.ups[0]) != np.shape(self.args[k]) or differ(
                host64(self.row.outputs[0]), host64(self.args[k]), tol).any():
            return False  # (x + round(x) has derivative 1, but is not the identity)
        return all(not differ(self.truth(k, p, exact), host64(self.upstream(p)[0]), tol).any()
                   for p in ("u", "r"))

    def at_kinks(self, k, disputed, G, tol):
        """Of the ``disputed`` elements of argument ``k``, those where an op of the body sits
        on a kink (a tie of maximum/minimum, abs/sign at 0, clip at a bound, found by the
        ops' sides changing when the element moves; a where's boundary, found by the
        function run again differing from the record, whose condition stays as it was)
        and grad_fn agrees with central differences of the forward (``settled``), or where
        that cannot be told (``undecided``): two boolean masks."""
        settled, undecided = np.zeros(disputed.shape, bool), np.zeros(disputed.shape, bool)
        body = self.body
        names = {e[0].name for e in body.entries} if body is not None else set()
        where = "where" in names
        if body is None or body.joint or not (where or names & set(KINK_OPS)) or \
                np.shape(G["u"]) != np.shape(self.args[k]):
            return settled, undecided
        x = host64(self.args[k])
        scale = max(1.0, float(np.max(np.abs(x), initial=0)))
        h = 1e-6 * scale  # the replay runs in float64
        hrun = (1e-3 if self.fd_dtype() == np.float32 else 1e-6) * scale
        ups = {p: [host64(u) for u in self.upstream(p)] for p in ("u", "r")}
        for j in np.flatnonzero(disputed)[:TIES]:
            e = np.zeros(x.shape)
            e.flat[j] = 1.0
            reps = [self._replay(k, x + d * e) for d in (h, 0.0, -h)]
            if any(r is None for r in reps):
                continue
            sigs = [_sides_of_kinks(r[0]) for r in reps]
            kinked = any(not all(np.array_equal(a, b) for a, b in zip(sigs[1], s)) for s in (sigs[0], sigs[2]))
            sides, step = None, h
            if where and not self.unsafe():  # the true forward (a where's condition moves too)
                runs = [self.run(k, d * e) for d in (hrun, 0.0, -hrun)]
                if not any(isinstance(s, Exception) for s in runs):
                    if not kinked:
                        rec = [self._outputs(self._replay(k, x + d * e)) for d in (hrun, 0.0, -hrun)]
                        kinked = any(r is None for r in rec) or any(
                            self._jump(a, b) for p in ups for a, b in zip(
                                self._one_sided(runs, ups[p], hrun), self._one_sided(rec, ups[p], hrun)))
                    sides, step = runs, hrun
            if not kinked:
                continue
            if sides is None:
                if where:  # the replay keeps the condition as it was: it cannot tell
                    undecided.flat[j] = True
                    continue
                sides = [self._outputs(r) for r in reps]
            for p in ("u", "r"):  # where the function is smooth: its derivative, for the notes
                left, right = self._one_sided(sides, ups[p], step)
                if not self._jump(left, right):
                    self.kink.setdefault((k, p), {})[int(j)] = (left + right) / 2
            rtol = max(tol[0], 1e-5) if step == h else self.tol(k, False)[0]
            if all(self._agrees(sides, ups[p], step, G[p].flat[j], rtol) for p in ("u", "r")):
                settled.flat[j] = True
        return settled, undecided

    def _replay(self, k, value):
        with paused(), np.errstate(all="ignore"):
            return self.body.replay([value if i == k else None for i in range(len(self.args))])

    def _outputs(self, replayed):
        return None if replayed is None else [host64(replayed[1].get(id(y), y)) for y in self.body.ys]

    def _agrees(self, sides, up, h, given, rtol):
        """Whether ``given`` is the central difference where the function is smooth, or
        lies between the one-sided derivatives where it has a kink."""
        left, right = self._one_sided(sides, up, h)
        slack = rtol * max(abs(left), abs(right), abs(given)) + 1e-9
        if not self._jump(left, right):
            return abs(given - (left + right) / 2) <= slack
        return min(left, right) - slack <= given <= max(left, right) + slack

    def kinks(self, k, wrong, G, tol):
        """Whether grad_fn's value at each disputed element lies between the body's
        one-sided derivatives there, which differ (a kink: any subgradient will do); None
        where only running the body again could tell and it cannot be run again."""
        x = host64(self.args[k])
        h = 1e-6 * max(1.0, float(np.max(np.abs(x), initial=0)))
        ups = {p: [host64(u) for u in self.upstream(p)] for p in ("u", "r")}
        for j in np.flatnonzero(wrong):
            e = np.zeros(x.shape)
            e.flat[j] = h
            sides = None
            if self.body is not None:  # the recorded ops run again: pure
                sides = [self.body.outputs([x + d if i == k else None for i in range(len(self.args))])
                         for d in (e, 0 * e, -e)]
                if any(s is None for s in sides) or not self._kinked(sides, ups, h, tol):
                    sides = None  # a value made without recording (a mask) may hide the kink
            if sides is None:
                if self.unsafe():
                    return None
                sides = [self.run(k, d) for d in (e, 0 * e, -e)]
                if any(isinstance(s, Exception) for s in sides):
                    return False
            if not self._within(sides, ups, h, G, j, tol):
                return False
        return True

    @staticmethod
    def _one_sided(sides, up, h):
        plus, base, minus = sides
        dot = lambda a: sum(float(np.sum(u * v)) for u, v in zip(up, a))  # noqa: E731
        return (dot(base) - dot(minus)) / h, (dot(plus) - dot(base)) / h

    @staticmethod
    def _jump(left, right):
        """Whether one-sided derivatives differ by a jump, not by the steps' own error."""
        return abs(left - right) > 1e-3 * max(abs(left), abs(right), 1e-12)

    def _kinked(self, sides, ups, h, tol):
        return self._jump(*self._one_sided(sides, ups["u"], h))

    def _within(self, sides, ups, h, G, j, tol):
        for p in ("u", "r"):
            left, right = self._one_sided(sides, ups[p], h)
            slack = tol[0] * max(abs(left), abs(right)) + 1e-6 * abs(left - right)
            if not self._jump(left, right) or not (
                    min(left, right) - slack <= G[p].flat[j] <= max(left, right) + slack):
                return False
        return True


def _sides_of_kinks(entries):
    """Which side of its kink each kink op of a (replayed) body is on, element by element:
    the sign of ``a - b`` for maximum and minimum, of ``x`` for abs and sign, of ``x`` to
    clip's bounds."""
    out = []
    with np.errstate(all="ignore"):
        for prim, args, vals, o, params in entries:
            if prim.name not in KINK_OPS or any(v is None for v in vals[:1]):
                continue
            v = [host64(a) for a in vals if a is not None]
            if prim.name in ("absolute", "sign"):
                out.append(np.sign(v[0]))
            elif prim.name == "clip":
                out.append(sum(np.sign(v[0] - b) * 3 ** i for i, b in enumerate(v[1:])))
            elif len(v) == 2:
                out.append(np.sign(v[0] - v[1]))
    return out
