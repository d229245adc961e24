"""Instructions per call, counted by valgrind's callgrind: a measure this machine's noise
cannot move, for the per-op workloads, whose time is Python's interpreter at work.

    python -m benchmarks.instructions [--only W5] [--calls N]

Each contender runs in a child process under ``valgrind --tool=callgrind``, twice: after
the same warm-up calls, once with N more calls and once with none; the difference over N
is its count per call, start-up and imports taken out (``PYTHONHASHSEED=0``, so both runs
hash alike). The counts are split by where they ran: CPython's interpreter, NumPy's
compiled code, PyTorch's, the rest. A count is not a time (caches and branches differ):
W5's ratio to autograd, 0.89x counted, was 0.85x to 0.86x timed; but with 100 calls or
more, two runs agree within one percent (20 calls left 3% of start-up noise), so a change
can be judged on its own.
Needs valgrind (``apt install valgrind``); timing stays in ``python -m benchmarks``.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from . import run

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ("autograd", "torch")
WARM = 20  # calls before counting, in both runs
# where an instruction ran, by its function's file or library: CPython (its headers' inlined
# functions name no library), NumPy, PyTorch; the rest is "other" (libc, libm, OpenBLAS ...)
PLACES = (("interpreter", ("libpython", "/Python-3.", "/Include/")), ("NumPy", ("numpy",)),
          ("PyTorch", ("torch",)))


def child(key, contender, calls):
    """Run one contender of workload ``key``: the warm-up, then ``calls`` calls."""
    for peer in PEERS:  # a peer that is not counted is not imported (PyTorch's import is long)
        if contender != peer:
            sys.modules[peer] = None
    from ._pin import pin_threads
    pin_threads()  # before NumPy is imported
    from . import workloads as W
    wl = next(w for w in W.workloads() if w.key == key)
    fn, args = wl.contenders[contender], wl.make_args()
    for _ in range(WARM + calls):
        fn(*args)


def count(key, contender, calls, folder):
    """``{place: instructions}`` of one callgrind run of ``calls`` counted calls."""
    out = os.path.join(folder, f"{key}-{contender}-{calls}.out".replace(" ", "_"))
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                    "-m", "benchmarks.instructions", "--child", key, contender, str(calls)],
                   cwd=os.path.dirname(HERE), env=env, check=True, capture_output=True)
    text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                          check=True, capture_output=True, text=True).stdout
    return places(text)


def places(text):
    """``{place: instructions}`` from ``callgrind_annotate``'s per-function lines, and "all"."""
    found = {"all": 0}
    for m in re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+(\S.*?)(?: \[(.*)\])?$", text, re.M):
        n, where, lib = int(m.group(1).replace(",", "")), m.group(2), m.group(3) or ""
        if where.startswith("PROGRAM TOTALS"):
            continue
        place = next((name for name, parts in PLACES if any(p in lib or p in where for p in parts)),
                     "other")
        found[place] = found.get(place, 0) + n
        found["all"] += n
    return found


def per_call(key, contender, calls, folder):
    """Instructions per counted call, in all and by place."""
    more, none = count(key, contender, calls, folder), count(key, contender, 0, folder)
    return {p: (more.get(p, 0) - none.get(p, 0)) / calls for p in more}


def header():
    """The run's date, machine and versions (``python -m benchmarks``'s), valgrind's, and the
    method, as a Markdown preamble."""
    env = run.environment()
    valgrind = (subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
                if shutil.which("valgrind") else "no valgrind")
    return (f"# gradmagic: instructions per call\n\n- date: {env['date']}\n- machine: {env['machine']}\n"
            f"- versions: {env['versions']}, {valgrind}\n"
            "- method: `python -m benchmarks.instructions` (see its docstring): callgrind's count of "
            "instructions, the run with N calls less the run with none, over N; by place, the "
            "share of that count run in CPython's interpreter, NumPy's and PyTorch's compiled code, "
            "and elsewhere\n\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="W5", help="workload keys (default W5; W1 and W2, whose "
                        "calls are longer, take tens of minutes under valgrind)")
    parser.add_argument("--calls", type=int, default=200, help="calls counted per contender")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        key, contender, calls = args.child
        child(key, contender, int(calls))
        return 0
    keys = [k for k in run.parse_only(args.only) if k.startswith("W")]  # unknown keys: its error
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        print("benchmarks.instructions: valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    from . import workloads as W
    print(header(), end="")
    names = [name for name, _ in PLACES] + ["other"]
    with tempfile.TemporaryDirectory() as folder:
        for wl in W.workloads():
            if wl.key not in keys:
                continue
            rows = {name: per_call(wl.key, name, args.calls, folder) for name in wl.contenders
                    if name != "numpy"}
            base = rows["gradmagic"]["all"]
            print("\n".join(run.markdown_table(
                ["workload", "contender", "instructions per call", "to gradmagic"] + names,
                [[wl.name, name, f"{row['all']:,.0f}", f"{row['all'] / base:.2f}x"]
                 + [f"{100 * row.get(p, 0) / row['all']:.0f}%" for p in names]
                 for name, row in rows.items()])) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
