"""gradmagic in a terminal.

    python -m gradmagic demo [--html FILE]          two worked examples, traced
    python -m gradmagic trace SCRIPT.py [--ops] [--check] [--max-rows N] [--precision P] [--html FILE]
                                        [script arguments] [-- arguments also for the script]
    python -m gradmagic install-kernel [--user | --sys-prefix | --prefix P] [--name N]
    python -m gradmagic uninstall-kernel [--user | --sys-prefix | --prefix P] [--name N]
"""

import argparse
import base64
import html
import os
import sys
import textwrap
import traceback

import numpy as np

import gradmagic as gm

from .debug.options import OPTIONS, trace_kwargs


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
    for title, text, make in DEMOS:
        tr = make()
        out.write(f"{title}\n{textwrap.fill(text, 88)}\n\n{tr.to_text()}\n\n")
        parts.append((title, text, tr))
    if args.html:
        _write_html(args.html, parts, out)
    return 0


def trace_script(args, out):
    """Run the script as ``python SCRIPT args`` would, under a trace; print the trace even
    when the script raises (then the traceback follows) and exit with the script's code."""
    try:
        with open(args.script, "rb") as f:
            code_object = compile(f.read(), args.script, "exec")
    except OSError as e:
        out.flush()
        sys.stderr.write(f"python -m gradmagic trace: cannot open {args.script!r}: {e.strerror}\n")
        return 2
    argv, sys.argv = sys.argv, [args.script] + args.args
    path = list(sys.path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    namespace = {"__name__": "__main__", "__file__": args.script, "__builtins__": __builtins__}
    failure, code = None, 0
    try:
        with gm.trace(**trace_kwargs(args)) as tr:
            try:
                exec(code_object, namespace)  # as `python SCRIPT` runs it; names kept on error
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception as e:  # shown after the trace, as the script would show it
                failure = e
    finally:
        sys.argv, sys.path[:] = argv, path
    tr.name_values(namespace)
    out.write(tr.to_text() + "\n")
    if args.html:
        _write_html(args.html, [(f"gradmagic trace of {args.script}", "", tr)], out)
    if failure is not None:
        traceback.print_exception(failure)
        return 1
    return code


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
    p = sub.add_parser("trace", help="run a Python script under a trace and print it",
                       description="Run SCRIPT under a trace and print it. gradmagic's options "
                       "may come before or after SCRIPT; the arguments it does not know are the "
                       "script's (put them after -- to pass one of gradmagic's own).")
    p.add_argument("script", help="the script to run")
    for option in OPTIONS:  # the trace's own options, as %%gradtrace takes them
        args, kwargs = option.argument()
        p.add_argument(*args, **kwargs)
    p.add_argument("--html", metavar="FILE", help="also write an HTML page")
    from .kernelspec import add_commands
    add_commands(sub)
    argv = sys.argv[1:] if argv is None else list(argv)
    script_args = argv[argv.index("--") + 1:] if "--" in argv else []
    args, unknown = parser.parse_known_args(argv[:len(argv) - len(script_args) - ("--" in argv)])
    if args.command == "trace":
        args.args = unknown + script_args
    elif unknown or script_args:
        parser.error(f"unrecognized arguments: {' '.join(unknown + script_args)}")
    if args.command in ("install-kernel", "uninstall-kernel"):
        return args.run(args, out)
    if args.command == "demo":
        return demo(args, out)
    return trace_script(args, out)


if __name__ == "__main__":
    sys.exit(main())
