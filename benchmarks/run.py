"""gradmagic's speed against hand-written NumPy (the floor), HIPS autograd and PyTorch.

    python -m benchmarks [--rounds N] [--quick] [--only W1,W3,...] [--output FILE]
    python benchmarks/run.py ...   (the same)

All in one process: every contender of every selected workload is checked against the
hand-written NumPy floor first (a disagreement stops the run before anything is timed);
then each workload's contenders are timed interleaved, one sample of each per round, and
the median is reported with the ratio to the floor (the median of per-round ratios).
BLAS, OpenMP and PyTorch run on one thread. A full run writes a Markdown table to
benchmarks/results.md; --quick and --only runs write a file only when --output names one.
Timings never go into pass/fail tests: tests/test_benchmarks.py runs each workload once,
for correctness.

--only takes workload keys W1 ... W8, and `trace` (W1 and W3 inside `with gm.trace():`),
`memory` (W3's and W6's peak memory, by tracemalloc), `render` (a 10,000-op trace rendered)
and `bounds` (W2 and W4 to W7 raced against gradmagic's own work with the engine taken out,
and against the least work a tape gets away with: what their targets are up against).
"""

import os
import sys

if __package__ in (None, ""):  # run as a script: pin before NumPy loads, then import the package
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import _pin

    _pin.pin_threads()
    __package__ = "benchmarks"  # noqa: A001

from ._pin import THREAD_VARS  # noqa: E402

import argparse  # noqa: E402
import datetime  # noqa: E402
import gc  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

np = gm = W = None  # NumPy, gradmagic and the workloads (PyTorch too): loaded by _load()


def _load():
    """Import the heavy modules, after the thread pinning (and not for --help)."""
    global np, gm, W
    if W is None:
        import numpy

        import gradmagic

        from . import workloads
        np, gm, W = numpy, gradmagic, workloads

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results.md")
SELECTORS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "trace", "memory", "render", "bounds")
PEER_TITLES = {"autograd": "autograd", "torch": "PyTorch"}
BOUNDS = ("by hand", "any tape")  # the contenders that only `bounds` times
BOUND_WORDS = {"by hand": "by hand", "any tape": "the least tape"}  # in a target's cell


# -- the machine --------------------------------------------------------------------------
def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def blas_threads():
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        blas = "unknown"
        try:
            deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
            blas = f"{deps.get('name')} {deps.get('version', '')}".strip()
        except Exception:
            pass
        return f"threadpoolctl not installed; NumPy's BLAS is {blas}, pinned by the variables above"
    pools = [f"{p.get('internal_api')} {p.get('version') or ''}: {p['num_threads']} thread(s)".replace(" :", ":")
             for p in threadpool_info()]
    return "threadpoolctl: " + ("; ".join(pools) or "no thread pools loaded")


def environment():
    """The run's date, machine, versions and thread settings, as the results' preamble says them."""
    _load()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    versions = [f"Python {platform.python_version()}", f"NumPy {np.__version__}",
                f"gradmagic {gm.__version__}",
                f"PyTorch {W.torch.__version__}" if W.torch is not None else "PyTorch absent",
                f"autograd {_autograd_version()}" if W.autograd is not None else "autograd absent"]
    env = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_VARS)
    threads = [env, blas_threads()]
    if W.torch is not None:
        threads.append(f"torch.get_num_threads() = {W.torch.get_num_threads()}")
    return {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": f"{platform.platform()}; {cpu_model()}; {os.cpu_count()} cores ({usable} usable); "
                   f"load average at start {load}",
        "versions": ", ".join(versions),
        "threads": "; ".join(threads),
    }


def _autograd_version():
    try:
        from importlib.metadata import version
        return version("autograd")
    except Exception:
        return getattr(W.autograd, "__version__", "installed")


# -- measuring ----------------------------------------------------------------------------
class Race:
    """The samples of an interleaved race: ``median(name)`` in seconds per call, and
    ``ratio(a, b)``: the median over rounds of a's sample over b's in the same round
    (paired, so that a change of the machine's load between rounds cancels)."""

    def __init__(self, samples):
        self.samples = samples

    def __contains__(self, name):
        return name in self.samples

    def median(self, name):
        return statistics.median(self.samples[name])

    def ratio(self, a, b):
        return statistics.median(x / y for x, y in zip(self.samples[a], self.samples[b]))


def race(contenders, args, rounds, inner=1):
    """Time the contenders interleaved: one sample of each per round (of ``inner`` calls),
    the order rotated every round so that none always follows the same one. Each sample
    follows one untimed call of the same contender, so that it runs as in a loop that
    calls it again and again, not in the caches and heap that another contender left."""
    for fn in contenders.values():
        fn(*args)  # warm-up
    names = list(contenders)
    samples = {name: [] for name in names}
    gc.collect()
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            fn = contenders[name]
            fn(*args)
            t = time.perf_counter()
            for _ in range(inner):
                fn(*args)
            samples[name].append((time.perf_counter() - t) / inner)
    return Race(samples)


def _nbytes(args):
    if isinstance(args, np.ndarray):
        return args.nbytes
    if isinstance(args, (list, tuple)):
        return sum(_nbytes(a) for a in args)
    return 0


def peak_memory(fn, args):
    """Peak bytes allocated while ``fn(*args)`` runs, above what was allocated before it
    (the inputs), by tracemalloc: NumPy reports its array buffers to it. PyTorch's
    allocator does not, so it cannot be measured this way. Returns (peak above the
    inputs, the inputs' bytes)."""
    fn(*args)  # warm-up: lazily built tables and caches are not the step's memory
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = fn(*args)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del result
    return peak, _nbytes(args)


def render_10k():
    """A 10,000-op trace rendered to text and HTML: seconds and size."""
    x = gm.Tensor(np.float64(0.1))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(10_000):
                y = np.sin(y)
        tape.gradient(y, x)
    t = time.perf_counter()
    text = tr.to_text()
    page = tr._repr_html_()
    seconds = time.perf_counter() - t
    return (f"10,000-op trace: text and HTML rendered in {seconds:.3f} s; HTML {len(page) / 1024:.1f} KB, "
            f"text {len(text) / 1024:.1f} KB")


# -- targets ------------------------------------------------------------------------------
def _met(ok):
    return "met" if ok else "**missed**"


# The targets, each a ratio to the floor or to a peer timed in the same run (this machine's
# speed swings with its load by up to 2x; ratios measured side by side do not): against whom,
# at most how much, and the peers gradmagic must also be below.
TARGETS = {"W1": ("torch", 0.5, ("autograd",)), "W2": ("torch", 0.6, ()), "W3": ("numpy", 1.05, ()),
           "W4": ("numpy", 1.1, ()), "W5": ("autograd", 0.5, ()), "W6": ("torch", 1.0, ()),
           "W7": ("numpy", 1.2, ("autograd", "torch")), "W8": ("torch", 1.0, ())}


def _title(name):
    return "hand-written NumPy" if name == "numpy" else PEER_TITLES[name]


def _bounds_against_peer(key, t):
    """For a target set against a peer, the bound rows' ratios to that peer."""
    against = TARGETS[key][0]
    if against == "numpy" or against not in t:
        return ""
    parts = [f"{BOUND_WORDS[name]} {t.ratio(name, against):.2f}x" for name in BOUNDS if name in t]
    return f" ({'; '.join(parts)} {_title(against)})"


def target(key, t, wl):
    """(what the target is, whether and by how much it is met) for a timed row."""
    against, limit, below = TARGETS[key]
    goal = f"at most {limit}x {_title(against)}" + "".join(f", below {_title(p)}" for p in below)
    if against not in t:
        return goal, f"not judged: {_title(against)} absent"
    ratio = t.ratio("gradmagic", against)
    beaten = [p for p in below if p in t]
    ok = ratio <= limit and all(t.ratio("gradmagic", p) < 1 for p in beaten)
    parts = [f"{ratio:.2f}x {_title(against)}"] + [f"{t.ratio('gradmagic', p):.2f}x {_title(p)}" for p in beaten]
    return goal, f"{_met(ok)} ({'; '.join(parts)})"


def _cell(t, name, wl):
    return f"{t.median(name) * wl.scale:.2f} {wl.unit} ({t.ratio(name, 'numpy'):.2f}x)"


def _mb(n):
    return f"{n / 2**20:.1f} MB"


BOUND_LEGEND = [
    "W2 the least a tape does: benchmarks/least_tape.py, the smallest tape that runs W2's code "
    "as written (NumPy's ufunc protocol and Python's operators on its own values): one entry "
    "per op, one walk, and nothing else (no Variables, nested tapes, listeners, higher order, "
    "unbroadcasting or checks). The gap between it and gradmagic is what those cost per op.",
    "W4 by hand: the array operations gradmagic performs, with the body's outputs kept until the "
    "gradient (the tape records the body, as TensorFlow does) and grad_fn's product with the "
    "upstream into a new array. The least a tape does: the floor's operations, every array "
    "freed as soon as it is not needed, plus grad_fn's product with its upstream, which no "
    "tape can skip (the floor does: its upstream is 1), into a new array (a Tensor's array is "
    "not a temporary NumPy may overwrite).",
    "W5 by hand: the seed's own code with no custom_gradient in between: the three bodies on a "
    "recording tape and the three grad_fns chained by hand, on Tensors. The target minus this "
    "is what the three custom calls and the gradient's bookkeeping may cost. The least a tape "
    "does: the seed's code as written on benchmarks/least_tape.py's tape, with the least "
    "custom_gradient (the body recorded, its output one op whose rule is grad_fn, nothing "
    "checked); the gap between it and gradmagic is what gradmagic's custom calls and engine "
    "(checks of what grad_fn returns, Variables, nesting, listeners, dialects) cost.",
    "W6 by hand: the array operations of gradmagic's two passes, in their order (its backward "
    "primitives: tanh_backward, power_backward and sum_backward, each one op; the seed's ones "
    "never multiplied). The least a tape does: the same rules scheduled by hand, each square "
    "formed once.",
    "W7 by hand: the array operations of gradmagic's rules (the forward's cholesky and solve, "
    "the solve by halves since L is triangular; solve's rule, one more such solve with L^T, "
    "shared by its two inputs; cholesky's, L^T gL, L^-1 by halves and two matmuls): also the "
    "least a tape that runs these rules with NumPy (no triangular solver of its own) does.",
]


# -- the run ------------------------------------------------------------------------------
def markdown_table(head, rows):
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(r) + " |" for r in rows])


def parse_only(text):
    if not text:
        return set(SELECTORS)
    chosen = set()
    for token in text.split(","):
        token = token.strip()
        match = [s for s in SELECTORS if s.lower() == token.lower()]
        if not match:
            raise SystemExit(f"--only: unknown workload {token!r}; choose from {', '.join(SELECTORS)}")
        chosen.add(match[0])
    return chosen


WARM_BYTES = 31 << 20  # just under glibc's 32 MiB ceiling for its adaptive mmap threshold


def warm_allocator():
    """Allocate and free one large buffer before timing. glibc then serves and keeps freed
    buffers of up to that size from its heap instead of mapping them anew, and returning
    them to the system, on every call: otherwise each contender pays page faults (several
    µs each in a virtual machine) that depend on which workload ran before it."""
    np.ones(WARM_BYTES // 8).sum()


def run(rounds=20, only=None, log=None):
    """Check, time and tabulate; return the Markdown text."""
    _load()
    warm_allocator()
    only = set(SELECTORS) if only is None else only
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    env = environment()
    peers = W.installed_peers()
    columns = ["numpy", "gradmagic"] + list(W.PEERS)
    head = ["workload", "hand-written NumPy (floor)", "gradmagic"] + [PEER_TITLES[p] for p in W.PEERS] + [
        "target (gradmagic)", "result"]
    rows, traced_rows, bound_rows, notes = [], [], [], []
    timed_keys = {k for k in only if k.startswith("W")} | ({"W1", "W3"} if "trace" in only else set())
    timed_keys |= {"W2", "W4", "W5", "W6", "W7"} if "bounds" in only else set()

    selected = []
    for wl in W.workloads():  # every check before any timing: a disagreement stops the run
        if wl.key not in timed_keys:
            continue
        contenders = dict(wl.contenders)
        if "trace" not in only:
            contenders.pop("gradmagic traced", None)
        if "bounds" not in only:
            for name in BOUNDS:
                contenders.pop(name, None)
        args = wl.make_args()
        want = contenders["numpy"](*args)
        if wl.key == "W5" and (float(want[0]), float(want[1])) != (256.0, 1024.0):
            raise W.Disagreement(f"W5 floor gave {want}, expected 256 and 1024")
        for name, fn in contenders.items():
            W.check(wl, name, fn(*args), want)  # raises Disagreement
        log(f"{wl.name}: all {len(contenders)} contenders agree with the floor")
        selected.append((wl, contenders, args))

    for wl, contenders, args in selected:
        n = max(1, rounds * wl.rounds)
        log(f"{wl.name}: timing {n} rounds")
        t = race(contenders, args, n, wl.inner)
        cells = [f"{t.median('numpy') * wl.scale:.2f} {wl.unit}"]
        cells += [_cell(t, c, wl) if c in t else "absent" for c in columns[1:]]
        goal, result = target(wl.key, t, wl)
        rows.append([wl.name] + cells + [goal, result])
        if "gradmagic traced" in t:
            ratio = t.ratio("gradmagic traced", "gradmagic")
            limit = 2.0 if wl.key == "W1" else 1.1
            traced_rows.append(
                [f"tracing on: {wl.name}", cells[0], _cell(t, "gradmagic traced", wl)]
                + ["—"] * len(W.PEERS)
                + [f"within {limit:g}x of untraced gradmagic",
                   f"{_met(ratio <= limit)} ({ratio:.3f}x untraced)"])
        if "gradmagic torch" in t:  # the same program written as a PyTorch Function
            extra = (t.median("gradmagic torch") - t.median("gradmagic")) * wl.scale / 3
            traced_rows.append(
                [f"gradmagic.torch: {wl.name}", cells[0], _cell(t, "gradmagic torch", wl)]
                + ["—"] * len(W.PEERS)
                + ["at most 5 µs per Function call over gm.custom_gradient's",
                   f"{_met(extra <= 5)} ({extra:+.1f} µs per call)"])
        if any(name in t for name in BOUNDS):
            bound_rows.append([wl.name, cells[0], cells[1]]
                              + [_cell(t, name, wl) if name in t else "—" for name in BOUNDS]
                              + [target(wl.key, t, wl)[0] + _bounds_against_peer(wl.key, t)])

    memory_rows = []
    if "memory" in only:
        for wl in W.workloads():
            if wl.key not in ("W3", "W6"):
                continue
            args = wl.make_args()
            log(f"{wl.name}: peak memory (tracemalloc)")
            measured = {c: peak_memory(wl.contenders[c], args) for c in ["numpy", "gradmagic", "autograd"]
                        if c in wl.contenders}
            inputs = measured["numpy"][1]
            peaks = {c: m[0] for c, m in measured.items()}
            floor = peaks["numpy"]

            def mem(c):
                return (f"{_mb(peaks[c])} ({peaks[c] / floor:.2f}x); with inputs {_mb(peaks[c] + inputs)} "
                        f"({(peaks[c] + inputs) / (floor + inputs):.2f}x)")
            cells = [f"{_mb(floor)}; with inputs {_mb(floor + inputs)}"]
            cells += [mem(c) if c in peaks else "absent" for c in ["gradmagic", "autograd"]]
            cells.append("n/a (not seen by tracemalloc)" if "torch" in peers else "absent")
            ratio = peaks["gradmagic"] / floor
            judged = (["within 1.2x of hand-written NumPy", f"{_met(ratio <= 1.2)} ({ratio:.3f}x)"]
                      if wl.key == "W3" else ["reported beside time", f"{ratio:.3f}x"])
            memory_rows.append([f"peak memory: {wl.name}"] + cells + judged)
        notes.append("Peak memory: measured in this process with tracemalloc, the peak while one step "
                     "runs above what was allocated before it: every array the step allocates (NumPy "
                     "reports its buffers to tracemalloc) and its Python objects, gradients included, the "
                     "parameters and data not. 'with inputs' adds the parameters' and data's bytes. The "
                     "target is judged on the first, the stricter. PyTorch's allocator is invisible to "
                     "tracemalloc.")
    if "render" in only:
        log("rendering a 10,000-op trace")
        notes.append(render_10k())

    legend = [
        f"W1: y = log(1 + exp(y)) chained {W.CHAIN} times on a 0-d float64, its value and dy/dx; "
        "µs per step.",
        f"W2: 16 float64 elements, {W.CHAIN} chained ops (tanh, * 0.5, exp, + the input, repeated), "
        "the gradient of the sum; µs per op.",
        "W3: a tanh MLP 1024 -> 1024 -> 1024 -> 1, batch 256, MSE loss, the gradients of all six "
        "weights and biases; ms per step.",
        "W4: the seed's custom-gradient log1pexp on 1e6 float64, the gradient of the sum; each "
        "contender with its own mechanism (gm.custom_gradient, autograd's @primitive + defvjp, "
        "torch.autograd.Function; the floor skips grad_fn's product with the sum's upstream 1); ms.",
        "W5: the seed's foo(foo(foo(x))) at x = 2, foo(x) = x**2 with the custom gradient "
        "upstream * 2 * x: 256 and 1024; µs per call (tape, three calls and the gradient). Its "
        "gradmagic.torch row runs the same foo as a torch.autograd.Function (three apply calls and "
        "backward()) on gradmagic.torch: the target is what the dialect adds per call. The issue "
        "set W5's target at 0.5x autograd, under 20 µs on the machine it was set on.",
        "W6: a Hessian-vector product of sum(tanh(x)**3) on 1e5 float64 by nested differentiation "
        "(nested tapes; autograd's grad of grad . v; PyTorch's double backward; the floor is the "
        "closed form 6 t s (s - t^2) v, t = tanh x, s = 1 - t^2); ms.",
        "W7: the log-likelihood of one 256-dimensional sample x under N(mu, sigma), through "
        "cholesky and solve (-z.z/2 - sum(log diag L) - n log(2 pi)/2, L = cholesky(sigma), "
        "z = solve(L, x - mu)), and its gradients for mu and sigma (sigma's given symmetric, "
        "(G + G^T)/2, the one convention the three share); the floor computes them in closed form "
        "from one inverse of L; ms.",
        "W8: one step of PyTorch's tutorial LegendrePolynomial3 (a + b P3(c + d x) fitted to sin on "
        "2,000 float32 points: forward through the custom Function, backward, the four updates "
        "under no_grad), the tutorial's code run on gradmagic.torch (the gradmagic column) and on "
        "PyTorch; the floor is the same step by hand in NumPy; µs per step.",
    ]
    lines = ["# gradmagic benchmarks", "",
             f"- date: {env['date']}",
             f"- machine: {env['machine']}",
             f"- versions: {env['versions']}",
             f"- threads: {env['threads']}",
             f"- method: in one process; every contender's value and gradients checked against the "
             f"hand-written NumPy floor first; then interleaved, one sample of each per round in an "
             f"order rotated every round, each sample right after one untimed call of the same "
             f"contender, {rounds} rounds (x5 for W1, W2, W5 and W8, whose samples are 20 "
             "calls for W5 and 5 for W8; x2 for W6); the median of the samples, and in brackets the ratio to the "
             "floor: the median over rounds of the contender's sample over the floor's in the same "
             "round (the 'tracing on' ratios likewise against untraced gradmagic). W1: µs per step "
             "(200 steps); W2: µs per op (200 ops); W5 and W8: µs per call; others: ms per call. "
             "Targets are ratios to the floor or to a peer in the same run. Before "
             f"timing, one {WARM_BYTES >> 20} MiB array is allocated and freed, so that glibc's "
             "allocator reuses freed buffers for every contender alike instead of faulting fresh "
             "pages in on each call (the state a long-running process is in).", ""]
    table = rows + traced_rows + memory_rows
    if table:
        lines += markdown_table(head, table)
        lines.append("")
        shown = timed_keys | ({"W3", "W6"} if memory_rows else set())
        lines += [f"- {n}" for n in legend if n[:2] in shown]
    if notes:
        lines += [f"- {n}" for n in notes]
    if hasattr(os, "getloadavg"):
        lines.append(f"- load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if bound_rows:
        lines += ["", "## What the targets are up against", "",
                  "The same races, with two more contenders: gradmagic's own work with the engine "
                  "taken out (what the engine costs is the gap between it and gradmagic), and the "
                  "least work a tape gets away with (a target below it is out of any tape's reach; "
                  "between the two rows, it is the tape's design that decides).", ""]
        lines += markdown_table(["workload", "hand-written NumPy (floor)", "gradmagic",
                                  "gradmagic's work by hand, no engine", "the least a tape does",
                                  "target (gradmagic)"], bound_rows)
        lines.append("")
        lines += [f"- {n}" for n in BOUND_LEGEND if n[:2] in {r[0][:2] for r in bound_rows}]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=None, help="rounds per workload (default 20; 3 with --quick)")
    parser.add_argument("--quick", action="store_true", help="few rounds: a smoke run")
    parser.add_argument("--only", default="", help=f"comma-separated, of {', '.join(SELECTORS)}")
    parser.add_argument("--output", default=None,
                        help="the Markdown file to write (default: benchmarks/results.md for a full run; "
                             "none for --quick or --only, unless named)")
    opts = parser.parse_args(argv)
    rounds = opts.rounds if opts.rounds is not None else (3 if opts.quick else 20)
    only = parse_only(opts.only)
    _load()
    try:
        text = run(rounds, only)
    except W.Disagreement as e:  # loudly: nothing is timed or written
        print(f"FAILED, nothing timed: {e}", file=sys.stderr)
        return 1
    print(text)
    output = opts.output or (RESULTS if not (opts.quick or opts.only) else None)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"(written to {output})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
