"""gradmagic in a terminal.

    python -m gradmagic demo [--html FILE]          two worked examples, traced
    python -m gradmagic trace [--ops] [--check] [--max-rows N] [--precision P] [--html FILE]
                              [--backend numpy|cupy] SCRIPT.py [script arguments]
    python -m gradmagic install-kernel [--user | --sys-prefix | --prefix P] [--name N]
    python -m gradmagic uninstall-kernel [--user | --sys-prefix | --prefix P] [--name N]
"""

import argparse
import base64
import difflib
import html
import os
import sys
import traceback

import numpy as np

import gradmagic as gm

from ._backend import BACKENDS, on_backend
from .debug.options import OPTIONS, trace_kwargs
from .render.text import line_width, wrap
from .tracebacks import VARIABLE, user_traceback

HTML, BACKEND = "--html", "--backend"  # the trace command's own options, beside the trace's


def _chain():
    @gm.custom_gradient
    def foo(x):
        def grad_fn(upstream):
            return upstream * 2 * x
        return x ** 2, grad_fn

    x = gm.constant(2.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = foo(foo(foo(x)))
        dy_dx = tape.gradient(y, x)  # noqa: F841  (named in the trace)
    return tr


def _log1pexp():
    x = gm.constant(100.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.log(1 + np.exp(x))
        dy_dx = tape.gradient(y, x)  # noqa: F841
    return tr


DEMOS = [
    ("The chain rule, seen: y = foo(foo(foo(x))), foo(x) = x**2, at x = 2",
     "Each backward row multiplies the upstream gradient (d y / d foo's output) by foo's local "
     "derivative 2x and passes the product downstream: 1 * 32, 32 * 8, 256 * 4 = 1024 = 8 * 2**7.",
     _chain),
    ("A NaN born in the backward pass: log(1 + exp(x)) at x = 100 in float32",
     "exp(100) overflows float32 to inf; the forward value is inf, and the backward step of exp "
     "multiplies upstream 0 by local inf: NaN. gm.softplus(x) (or a custom gradient) avoids it.",
     _log1pexp),
]


def _page(parts):
    """A standalone HTML page: titles, explanations, trace tables and pictures."""
    body = []
    for title, text, tr in parts:
        body.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(text)}</p>{tr._repr_html_()}")
        try:
            from .render.plot import png_bytes
        except ImportError:  # the picture is optional; the tables are the page
            continue
        png = base64.b64encode(png_bytes(tr)).decode("ascii")
        body.append(f'<p><img alt="the chain of {html.escape(title)}" src="data:image/png;base64,{png}"></p>')
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>gradmagic</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}</style>"
            "</head><body><h1>gradmagic</h1>" + "".join(body) + "</body></html>\n")


def _write_html(path, parts, out):
    with open(path, "w", encoding="utf-8") as f:
        f.write(_page(parts))
    out.write(f"\nwrote {path}\n")


def demo(args, out):
    parts = []
    width = line_width()
    for title, text, make in DEMOS:
        tr = make()
        prose = "\n".join(wrap(title, width) + wrap(text, width))
        out.write(f"{prose}\n\n{tr.to_text(width)}\n\n")
        parts.append((title, text, tr))
    if args.html:
        _write_html(args.html, parts, out)
    return 0


def trace_script(args, out):
    """Run the script as ``python SCRIPT args`` would, under a trace; print the trace even
    when the script raises (then the traceback follows, without gradmagic's own frames
    unless GRADMAGIC_TRACEBACK=full) and exit with the script's code."""
    try:
        with open(args.script, "rb") as f:
            code_object = compile(f.read(), args.script, "exec")
    except OSError as e:
        out.flush()
        sys.stderr.write(f"python -m gradmagic trace: cannot open {args.script!r}: {e.strerror}\n")
        return 2
    status = gm.backend_status(args.backend) if args.backend else True
    if not status:  # said before anything runs
        out.flush()
        sys.stderr.write(f"python -m gradmagic trace {BACKEND} {args.backend}: {status.reason}\n")
        return 2
    argv, sys.argv = sys.argv, [args.script] + args.args
    path = list(sys.path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    namespace = {"__name__": "__main__", "__file__": args.script, "__builtins__": __builtins__}
    failure, code = None, 0
    try:
        with on_backend(args.backend), gm.trace(**trace_kwargs(args)) as tr:
            try:
                exec(code_object, namespace)  # as `python SCRIPT` runs it; names kept on error
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception as e:  # shown after the trace, as the script would show it
                failure = e
            tr.name_values(namespace)  # before the block ends: the checks' notes use the names
    finally:
        sys.argv, sys.path[:] = argv, path
    out.write(tr.to_text(line_width()) + "\n")
    if args.html:
        _write_html(args.html, [(f"gradmagic trace of {args.script}", "", tr)], out)
    if failure is not None:
        out.flush()
        traceback.print_exception(user_traceback(failure))
        return 1
    return code


def _resembles(word, flags):
    """The flag among ``flags`` that ``word`` is or looks like (``--max_rows``, ``--chek``),
    or None."""
    name = word.split("=", 1)[0].lstrip("-").lower().replace("_", "-")
    names = [f.lstrip("-") for f in flags]
    if name in names:
        return "--" + name
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75) if name else []
    return "--" + close[0] if close else None


def _script_arguments(argv, args, flags):
    """The script's arguments, as given after SCRIPT, and a warning for each that is or
    looks like one of gradmagic's options (those after a ``--`` excepted; a ``--`` right
    after SCRIPT is dropped)."""
    rest = list(args.args)
    start = len(argv) - len(rest)
    quiet = start > 1 and argv[start - 2:start] == [args.script, "--"]  # argparse took the --
    if rest[:1] == ["--"]:
        rest, quiet = rest[1:], True
    warnings = []
    for word in rest:
        if word == "--":
            break
        if quiet or not word.startswith("-") or word in ("-h", "--help"):
            continue
        flag = _resembles(word, flags)
        if flag is None:
            continue
        written = word.split("=", 1)[0]
        said = (f"{word} is passed to {args.script}, not to gradmagic"
                if written == flag else f"{word}, passed to {args.script}, looks like gradmagic's {flag}")
        warnings.append(f"{said}: gradmagic's options go before the script "
                        f"(python -m gradmagic trace {flag} ... {args.script}); to pass {written} to the "
                        f"script without this warning, put -- before it")
    return rest, warnings


def main(argv=None, out=None):
    out = out or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m gradmagic",
                                     description="See the chain rule: traces of gradients.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="print two worked examples, traced",
                       description="Print two worked examples with their traces: the chain rule "
                       "through y = foo(foo(foo(x))) with a custom gradient, and a NaN born in the "
                       "backward pass of log(1 + exp(x)) at x = 100 in float32.")
    p.add_argument("--html", metavar="FILE", help="also write an HTML page with tables and pictures")
    p = trace_parser = sub.add_parser(
        "trace", help="run a Python script under a trace and print it",
        description="Run SCRIPT as `python SCRIPT [arguments]` would, under a trace, and print "
        "the trace (then the traceback, if the script raised, without gradmagic's own frames "
        f"unless {VARIABLE}=full). gradmagic's options go before SCRIPT; everything after it "
        "is the script's, and one that looks like gradmagic's gets a warning.")
    for option in OPTIONS:  # the trace's own options, as %%gradtrace takes them
        args, kwargs = option.argument()
        p.add_argument(*args, **kwargs)
    p.add_argument(HTML, metavar="FILE", help="also write an HTML page")
    p.add_argument(BACKEND, choices=BACKENDS,
                   help="where the script's arrays land (cupy: the GPU), as gm.set_backend")
    p.add_argument("script", help="the script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, metavar="...", help="the script's arguments")
    from .kernelspec import add_commands
    add_commands(sub)
    argv = sys.argv[1:] if argv is None else list(argv)
    args, unknown = parser.parse_known_args(argv)
    flags = [o.flag for o in OPTIONS] + [HTML, BACKEND]
    if unknown and args.command == "trace":  # before SCRIPT: meant for gradmagic
        hints = [f"{w} (did you mean {f}?)" if (f := _resembles(w, flags)) else w for w in unknown]
        trace_parser.error(f"unrecognized arguments: {' '.join(hints)}; gradmagic's options are "
                           f"{', '.join(flags)}, and the script's arguments go after SCRIPT")
    if unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "trace":
        args.args, warnings = _script_arguments(argv, args, flags)
        for said in warnings:
            lines = wrap(f"python -m gradmagic trace: warning: {said}", line_width(), "", "  ")
            sys.stderr.write("\n".join(lines) + "\n")
    if args.command in ("install-kernel", "uninstall-kernel"):
        return args.run(args, out)
    if args.command == "demo":
        return demo(args, out)
    return trace_script(args, out)


if __name__ == "__main__":
    sys.exit(main())
