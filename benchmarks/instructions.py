"""Instructions per call, counted by valgrind's callgrind: a measure this machine's noise
cannot move, for the per-op workloads, whose time is Python's interpreter at work.

    python -m benchmarks.instructions [--only W5] [--calls N]

Each contender runs in a child process under ``valgrind --tool=callgrind``, twice: after
the same warm-up calls, once with N more calls and once with none; the difference over N
is its count per call, start-up and imports taken out (``PYTHONHASHSEED=0``, so both runs
hash alike). The counts are split by where they ran: CPython's interpreter, NumPy's
compiled code, PyTorch's, the rest. A count is not a time (caches and branches differ):
W5's ratio to autograd, 0.88x to 0.89x counted, was 0.85x to 0.86x timed; but with 100
calls or more, two runs agree within one percent (20 calls left 3% of start-up noise), so
a change can be judged on its own.
Needs valgrind (``apt install valgrind``); timing stays in ``python -m benchmarks``.

``--compiled`` adds a row: gradmagic with its engine (every module of ``gradmagic/core``)
compiled by Cython from the same source, unchanged, in a scratch copy: what compiling the
Python as it is would give, before any of it is rewritten for a compiler (needs Cython and
a C compiler where it runs; neither is a dependency of gradmagic).
"""

import argparse
import glob
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from . import run

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = ("autograd", "torch")
WARM = 20  # calls before counting, in both runs
# where an instruction ran, by its function's file or library: CPython (its headers' inlined
# functions name no library), NumPy, PyTorch; the rest is "other" (libc, libm, OpenBLAS ...)
PLACES = (("interpreter", ("libpython", "/Python-3.", "/Include/")), ("NumPy", ("numpy",)),
          ("PyTorch", ("torch",)))


COMPILED = "gradmagic, engine compiled"  # the --compiled row's contender: gradmagic's calls


def child(key, contender, calls, path=None):
    """Run one contender of workload ``key``: the warm-up, then ``calls`` calls; gradmagic
    imported from ``path`` (a compiled copy) where one is given."""
    if path:
        sys.path.insert(0, path)
    for peer in PEERS:  # a peer that is not counted is not imported (PyTorch's import is long)
        if contender != peer:
            sys.modules[peer] = None
    from ._pin import pin_threads
    pin_threads()  # before NumPy is imported
    from . import workloads as W
    if path and not W.gm.core.primitive.__file__.startswith(path):
        raise SystemExit(f"benchmarks.instructions: gradmagic came from {W.gm.__file__}, not {path}")
    wl = next(w for w in W.workloads() if w.key == key)
    fn, args = wl.contenders["gradmagic" if contender == COMPILED else contender], wl.make_args()
    for _ in range(WARM + calls):
        fn(*args)


def compile_engine(folder, names=None):
    """A copy of gradmagic in ``folder`` with every module of ``gradmagic/core`` (or those
    ``names``) compiled by Cython, unchanged (annotations read as Python reads them, not as
    C types); its path."""
    root = os.path.join(folder, "compiled")
    shutil.copytree(os.path.join(os.path.dirname(HERE), "gradmagic"), os.path.join(root, "gradmagic"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    include, suffix = sysconfig.get_paths()["include"], sysconfig.get_config_var("EXT_SUFFIX")
    for source in sorted(glob.glob(os.path.join(root, "gradmagic", "core", "*.py"))):
        name = os.path.basename(source)[:-3]
        if name == "__init__" or names is not None and name not in names:
            continue
        c_file = source[:-3] + ".c"
        subprocess.run([sys.executable, "-m", "cython", "-3", "-X", "annotation_typing=False",
                        "--module-name", f"gradmagic.core.{name}", source, "-o", c_file],
                       check=True, capture_output=True)
        subprocess.run([sysconfig.get_config_var("CC") or "cc", "-shared", "-fPIC", "-O2", f"-I{include}",
                        c_file, "-o", source[:-3] + suffix], check=True, capture_output=True)
    return root


def count(key, contender, calls, folder, path=None):
    """``{place: instructions}`` of one callgrind run of ``calls`` counted calls."""
    out = os.path.join(folder, f"{key}-{contender}-{calls}.out".replace(" ", "_").replace(",", ""))
    env = dict(os.environ, PYTHONHASHSEED="0")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                    "-m", "benchmarks.instructions", "--child", key, contender, str(calls)]
                   + ([path] if path else []),
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


def per_call(key, contender, calls, folder, path=None):
    """Instructions per counted call, in all and by place."""
    more, none = count(key, contender, calls, folder, path), count(key, contender, 0, folder, path)
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
    parser.add_argument("--compiled", action="store_true", help="also count gradmagic with its "
                        "engine compiled by Cython from the same source (needs Cython and a C compiler)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        key, contender, calls, *path = args.child
        child(key, contender, int(calls), *path)
        return 0
    keys = [k for k in run.parse_only(args.only) if k.startswith("W")]  # unknown keys: its error
    if not (shutil.which("valgrind") and shutil.which("callgrind_annotate")):
        print("benchmarks.instructions: valgrind is not installed (apt install valgrind)", file=sys.stderr)
        return 2
    if args.compiled and importlib.util.find_spec("Cython") is None:
        print("benchmarks.instructions: --compiled needs Cython (pip install cython), which gradmagic "
              "does not depend on", file=sys.stderr)
        return 2
    from . import workloads as W
    print(header(), end="")
    names = [name for name, _ in PLACES] + ["other"]
    with tempfile.TemporaryDirectory() as folder:
        path = compile_engine(folder) if args.compiled else None
        for wl in W.workloads():
            if wl.key not in keys:
                continue
            rows = {name: per_call(wl.key, name, args.calls, folder) for name in wl.contenders
                    if name != "numpy"}
            if path:
                rows[COMPILED] = per_call(wl.key, COMPILED, args.calls, folder, path)
            base = rows["gradmagic"]["all"]
            print("\n".join(run.markdown_table(
                ["workload", "contender", "instructions per call", "to gradmagic"] + names,
                [[wl.name, name, f"{row['all']:,.0f}", f"{row['all'] / base:.2f}x"]
                 + [f"{100 * row.get(p, 0) / row['all']:.0f}%" for p in names]
                 for name, row in rows.items()])) + "\n", flush=True)
    if path:
        print(f"- {COMPILED}: Cython {cython_version()}; its 'other' is mostly the compiled "
              "engine's own code, its 'interpreter' CPython's object machinery that the compiled "
              "code calls as the interpreter did, and the workload's own Python")
    return 0


def cython_version():
    from Cython import __version__
    return __version__


if __name__ == "__main__":
    raise SystemExit(main())
