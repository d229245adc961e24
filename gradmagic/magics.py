"""``%%gradtrace`` and ``%gradtrace``: run code under ``gm.trace(...)`` and show the Trace.

The magic is thin, like ``%%capture``: parse the options, run the cell with
``shell.run_cell`` (so definitions, display and the last expression's ``Out`` behave as
in any cell) inside the same ``gm.trace(...)`` a Python user writes, then display the
``Trace`` once through IPython's display machinery (its ``_repr_mimebundle_``: text in a
terminal, text and HTML in a notebook). Everything it shows can be had without IPython.

This module is the only one that imports IPython; ``load_ipython_extension`` in
``gradmagic/__init__.py`` imports it when ``%load_ext gradmagic`` runs.
"""

import argparse
import ast
import re
import weakref

from IPython.core import magic_arguments
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, needs_local_scope, no_var_expand
from IPython.display import display

from ._backend import BACKENDS, on_backend
from .debug.options import OPTIONS, trace_kwargs
from .debug.trace import trace
from .tracebacks import user_traceback


def _trace_options(func):
    """The trace's own options (``debug/options.py``), as magic arguments."""
    for option in reversed(OPTIONS):
        args, kwargs = option.argument()
        func = magic_arguments.argument(*args, **kwargs)(func)
    return func


class _PlainHelp(magic_arguments.MagicHelpFormatter):
    """IPython's help layout in plain text: ``%%gradtrace?`` prints the page as it is, so
    the usage line is not an reStructuredText block and values are not put in ``<>``."""

    _format_action_invocation = argparse.HelpFormatter._format_action_invocation

    def add_usage(self, usage, actions, groups, prefix="usage: %"):
        super().add_usage(usage, actions, groups, prefix)


def _identifier(text):
    if not text.isidentifier():
        raise argparse.ArgumentTypeError(f"expected a Python name to store the Trace in, got {text!r}")
    return text


@magics_class
class GradtraceMagics(Magics):

    @magic_arguments.magic_arguments()
    @magic_arguments.kwds(formatter_class=_PlainHelp)
    @_trace_options
    @magic_arguments.argument("--plot", action="store_true",
                              help="also show a picture of the chain, as a separate image/png output")
    @magic_arguments.argument("--backend", choices=BACKENDS,
                              help="where arrays created in the cell land; restored afterwards")
    @magic_arguments.argument("-o", dest="output", type=_identifier, metavar="NAME",
                              help="store the Trace in the variable NAME of your namespace")
    @magic_arguments.argument("-q", "--quiet", action="store_true",
                              help="record (and store with -o) but show nothing")
    @needs_local_scope
    @no_var_expand
    @line_cell_magic
    def gradtrace(self, line, cell=None, local_ns=None):
        """Trace the chain rule: every forward value and backward step of the code.

        As a cell and as a line:

            %%gradtrace [options]
            code of the cell

            %gradtrace [options] statement

        The cell runs in your namespace exactly as a normal cell would: what it defines
        stays defined, what it prints and displays is shown, and the value of its last
        expression is still shown (Out). The line form runs one statement where it
        stands (in a function, with the function's variables) and returns the value of
        an expression. Either runs inside gm.trace(...); after it, the trace is
        displayed once, its values named after your variables: a table in a terminal, a
        table in HTML in a notebook. With --plot a picture of the chain follows as a
        separate image. If the code raises, the trace recorded up to that point is
        shown (nothing, if nothing was recorded yet), then the traceback, and the cell
        fails as it would without the magic. The traceback names the cell by its own
        number and leaves out gradmagic's frames, so it ends in your code (%xmode --show,
        or GRADMAGIC_TRACEBACK=full in the environment, keeps them). No tape or trace
        stays active afterwards, and a --backend choice is undone.

        The same trace without IPython:

            with gm.trace(ops=False, check=False, max_rows=50, precision=4) as tr:
                ...            # the code
            tr                 # or print(tr), tr.plot(), tr.to_rows()

        Example:

            %load_ext gradmagic
            import gradmagic as gm

            %%gradtrace -o tr
            x = gm.constant(2.0)
            with gm.GradientTape() as tape:
                tape.watch(x)
                y = x ** 8
            tape.gradient(y, x)

        $name and {expression} in the options expand from your namespace, as in any
        magic (%%gradtrace --backend $where); the code itself is never expanded.

        A bad option is a usage error; --backend cupy where no GPU is usable raises
        gradmagic.errors.BackendError saying why, before the code runs.
        """
        __tracebackhide__ = True  # noqa: F841  (IPython's tracebacks skip this frame)
        if cell is None:
            options, statement = self._split_line(line)
        else:
            options = line
        # $name and {expr} expand in the options (--backend $where), never in the code
        args = magic_arguments.parse_argstring(self.gradtrace, self.shell.var_expand(options))
        tr = trace(**trace_kwargs(args))
        if cell is None:
            return self._trace_statement(statement, tr, args, local_ns)
        self._trace_cell(cell, tr, args)

    def _show(self, tr, args, failed=False):
        """Store the trace, display it (not when the code ``failed`` before anything was
        recorded: the traceback says it all)."""
        if args.output:
            self.shell.user_ns[args.output] = tr
        if args.quiet or (failed and not tr.rows()):
            return
        display(tr)
        if args.plot:
            from .render.plot import png_bytes
            display({"image/png": png_bytes(tr),
                     "text/plain": "<the gradmagic trace as a picture (image/png)>"}, raw=True)

    # -- %%gradtrace: a cell ----------------------------------------------------------
    def _trace_cell(self, cell, tr, args):
        """Run the cell with ``shell.run_cell`` inside ``tr``; show the trace, then the
        traceback the cell raised, if any (see ``_InnerCell``)."""
        __tracebackhide__ = True  # noqa: F841
        shell = self.shell
        with on_backend(args.backend), _InnerCell(shell) as inner, tr:
            result = shell.run_cell(cell)
            tr.name_values(shell.user_ns)  # before the block ends: --check's notes use the names
        ran = result.error_before_exec is None  # False: a syntax error, nothing ran
        if ran:
            self._show(tr, args, failed=result.error_in_exec is not None)
        elif args.output:
            shell.user_ns[args.output] = tr
        inner.show_traceback(ran, full_traceback(self.shell))
        inner.fail_outer(result.error_before_exec or result.error_in_exec)

    # -- %gradtrace: one statement or expression --------------------------------------
    def _trace_statement(self, statement, tr, args, local_ns):
        """Run one statement in the caller's namespace inside ``tr`` (as ``%time`` does);
        show the trace; return the value of an expression. An exception propagates after
        the trace is shown, and stops the rest of the cell."""
        __tracebackhide__ = True  # noqa: F841
        shell = self.shell
        namespace = shell.user_ns if local_ns is None else local_ns
        source = shell.transform_cell(statement)
        # cached under the number of the cell it is in, so that a traceback shows it
        outer = shell.displayhook.exec_result
        number = shell.execution_count if outer is None else outer.execution_count
        filename = shell.compile.cache(source, number, raw_code=statement)
        tree = shell.compile.ast_parse(source, filename=filename)
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
            code = shell.compile(ast.Expression(tree.body[0].value), filename, "eval")
        else:
            code = shell.compile(tree, filename, "exec")
        with on_backend(args.backend):  # one that is not usable raises here: nothing runs or shows
            failed = True
            try:
                with tr:
                    try:
                        value = eval(code, shell.user_ns, namespace)  # None for a statement
                    finally:  # before the block ends: --check's notes use the names
                        tr.name_values(namespace)
                        tr.name_values(shell.user_ns)
                failed = False
                return value
            except BaseException as e:  # the traceback ends in the user's code
                raise user_traceback(e, full_traceback(self.shell))
            finally:
                self._show(tr, args, failed=failed)

    # -- the line form ----------------------------------------------------------------
    def _split_line(self, line):
        """``%gradtrace [options] statement``: the options, and the statement as written.

        The statement starts at the first word that is neither an option nor an
        option's value (``--`` ends the options explicitly); the options are what
        argparse accepts before it.
        """
        words = list(re.finditer(r"\S+", line))
        errors = []
        for word in words:
            if word.group() == "--":
                return line[:word.start()], line[word.end():]
            if word.group().startswith("-"):
                continue
            options = line[:word.start()]
            try:
                magic_arguments.parse_argstring(self.gradtrace, options)
            except UsageError as e:
                errors.append(e)
                continue
            return options, line[word.start():]
        if errors:  # no split parses: the first error that is not "wanted a value"
            raise next((e for e in errors if "expected one argument" not in str(e)), errors[0])
        magic_arguments.parse_argstring(self.gradtrace, line)  # only options: bad ones raise
        raise UsageError("%gradtrace needs a statement: %gradtrace [options] statement "
                         "(for a whole cell, %%gradtrace [options] and the code below)")


class _InnerCell:
    """A cell run inside the magic's own cell (``shell.run_cell`` within ``run_cell``).

    Its code is named after the calling cell's number (``Cell In[2]`` in the traceback of
    cell 2: IPython has counted the calling cell already, so the inner run would take the
    next number). Its traceback is held back while it runs (a custom exception handler)
    so the caller can show it after the trace, without gradmagic's frames; the
    displayhook's ``ExecutionResult`` of the calling cell, which the inner run replaces,
    is put back; then ``fail_outer`` marks the calling cell as failed with the same
    exception, so that a kernel replies with an error and a notebook run stops there,
    without a second traceback.
    """

    def __init__(self, shell):
        self.shell = shell
        self.held = []

    def __enter__(self):
        shell = self.shell
        self.saved = shell.custom_exceptions, shell.CustomTB
        self.outer = shell.displayhook.exec_result
        self.compiler = shell.compile
        if self.outer is not None:
            shell.compile = _NumberedAs(shell.compile, self.outer.execution_count)
        shell.set_custom_exc((BaseException,),
                             lambda _shell, *exc, tb_offset=None: self.held.append(exc))
        return self

    def __exit__(self, *exc):
        self.shell.custom_exceptions, self.shell.CustomTB = self.saved
        self.shell.displayhook.exec_result = self.outer
        self.shell.compile = self.compiler
        return False

    def show_traceback(self, ran, full=False):
        """The held traceback, as the cell would have shown it (by the user's own handler
        for its type, if they set one), without gradmagic's frames unless ``full``."""
        if not self.held:
            return
        etype, value, tb = self.held[0]
        if isinstance(value, BaseException) and tb is value.__traceback__:
            tb = user_traceback(value, full).__traceback__
        custom_types, custom_tb = self.saved
        if custom_types and issubclass(etype, custom_types) and not _ours(self.shell, custom_tb):
            custom_tb(etype, value, tb)
        else:
            self.shell.showtraceback((etype, value, tb), running_compiled_code=ran)

    def fail_outer(self, error):
        if error is not None and self.outer is not None:
            self.outer.error_in_exec = error


class _NumberedAs:
    """The shell's compiler, caching code under the cell number ``number`` (the number a
    traceback shows, ``Cell In[number]``); the rest is the compiler's own."""

    def __init__(self, compiler, number):
        self.compiler, self.number = compiler, number

    def cache(self, transformed_code, number=0, raw_code=None):
        return self.compiler.cache(transformed_code, self.number, raw_code)

    def __call__(self, *args, **kwargs):
        return self.compiler(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.compiler, name)


def full_traceback(shell) -> bool:
    """Whether the user asked IPython for every frame (``%xmode --show``)."""
    return not getattr(shell.InteractiveTB, "skip_hidden", True)


# -- every cell's traceback ------------------------------------------------------------------
HANDLERS = weakref.WeakKeyDictionary()  # shell -> the CustomTB that gradmagic gave it


def users_frames(shell, etype, value, tb, tb_offset=None):
    """IPython's handler of an error in any cell while gradmagic is loaded: the traceback
    without gradmagic's frames, as ``%%gradtrace`` shows it, so that it ends in the user's
    code (``%xmode --show`` or ``GRADMAGIC_TRACEBACK=full`` keep them). An error that
    never went through gradmagic shows as it would have."""
    if isinstance(value, BaseException) and tb is value.__traceback__:
        tb = user_traceback(value, full_traceback(shell)).__traceback__
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset, running_compiled_code=True)


def _ours(shell, custom_tb) -> bool:
    return custom_tb is not None and HANDLERS.get(shell) is custom_tb


def load_ipython_extension(ipython):
    ipython.register_magics(GradtraceMagics)
    if not ipython.custom_exceptions:  # a handler the user (or another extension) set stays
        ipython.set_custom_exc((Exception,), users_frames)
        HANDLERS[ipython] = ipython.CustomTB


def unload_ipython_extension(ipython):
    if _ours(ipython, ipython.CustomTB):
        ipython.set_custom_exc((), None)  # IPython's own default: no custom handler
        del HANDLERS[ipython]
    manager = ipython.magics_manager
    for kind in ("line", "cell"):
        fn = manager.magics[kind].get("gradtrace")
        if isinstance(getattr(fn, "__self__", None), GradtraceMagics):
            del manager.magics[kind]["gradtrace"]
    manager.registry.pop(GradtraceMagics.__name__, None)
