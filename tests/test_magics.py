"""``%%gradtrace`` and ``%gradtrace`` through a real IPython ``InteractiveShell``.

Every behaviour is checked through both faces (the ipytest habit): the magic's displayed
trace must equal what ``gm.trace()`` gives a Python user for the same code.
"""

import re
import sys
from dataclasses import dataclass

import numpy as np
import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

import gradmagic as gm  # noqa: E402
from gradmagic import _backend  # noqa: E402
from gradmagic.errors import BackendError, GradientValueError  # noqa: E402
from gradmagic.core.context import stack  # noqa: E402

from _seed import SEED, SEED_ROW, WRONG_SHAPE, WRONG_SHAPE_LINE, has_tokens  # noqa: E402

RAISES = """\
import gradmagic as gm
x = gm.constant(3.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = x * x
    z = 1 / 0
"""

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Run:
    result: object  # IPython's ExecutionResult of the cell
    stdout: str
    stderr: str
    outputs: list  # the data (mime bundle) of each display, in order

    @property
    def traces(self):
        return [d for d in self.outputs if d.get("text/plain", "").startswith("gradmagic trace")]


@pytest.fixture(scope="session")
def ipython(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("IPYTHONDIR", str(tmp_path_factory.mktemp("ipython")))
    shell = InteractiveShell.instance()
    yield shell
    mp.undo()


@pytest.fixture
def shell(ipython):
    """The shell with a clean namespace and gradmagic loaded."""
    ipython.reset(new_session=False)
    ipython.extension_manager.load_extension("gradmagic")
    assert gm.get_backend() == "numpy" and stack() == ()
    yield ipython
    gm.set_backend("numpy")


def run(shell, cell, display=True):
    """Run a cell; capture its stdout, stderr and displays. With ``display=False``
    displays go through IPython's plain publisher, which prints text/plain to stdout,
    as a terminal does: then stdout holds everything in the order it was shown."""
    with capture_output(display=display) as c:
        result = shell.run_cell(cell)
    return Run(result, ANSI.sub("", c.stdout), ANSI.sub("", c.stderr), [o.data for o in c.outputs])


def library_trace(code, raises=None, **options):
    """The same code under ``gm.trace(**options)`` as a Python user writes it."""
    namespace = {}
    with gm.trace(**options) as tr:
        if raises is None:
            exec(compile(code, "<cell>", "exec"), namespace)
        else:
            with pytest.raises(raises):
                exec(compile(code, "<cell>", "exec"), namespace)
    tr.name_values(namespace)
    return tr


def assert_shows(bundle, tr):
    """The displayed bundle is exactly the Trace's own mime bundle."""
    assert bundle == tr._repr_mimebundle_()


# -- the extension ------------------------------------------------------------------------
def test_load_ext_registers_cell_and_line_magic(shell):
    assert shell.find_cell_magic("gradtrace") is not None
    assert shell.find_line_magic("gradtrace") is not None


def test_unload_ext_removes_both_magics(shell):
    run(shell, "%unload_ext gradmagic")
    assert shell.find_cell_magic("gradtrace") is None
    assert shell.find_line_magic("gradtrace") is None
    after = run(shell, "%%gradtrace\nx = 1")
    assert isinstance(after.result.error_in_exec, UsageError)
    assert "x" not in shell.user_ns


def test_reload_ext_keeps_the_magic_working(shell):
    assert run(shell, "%reload_ext gradmagic").result.success
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert shown.result.success
    assert_shows(shown.traces[0], library_trace(SEED))


def test_load_ext_twice_registers_once(shell):
    run(shell, "%load_ext gradmagic")
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert len(shown.traces) == 1


# -- the cell magic, and the same code under gm.trace() -----------------------------------
def test_cell_shows_the_trace_gm_trace_gives(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert shown.result.success
    assert shown.traces == shown.outputs and len(shown.outputs) == 1
    assert_shows(shown.outputs[0], library_trace(SEED))


def test_cell_trace_has_the_seed_backward_row(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert has_tokens(shown.outputs[0]["text/plain"], SEED_ROW)


def test_cell_display_is_text_and_html_without_png(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert set(shown.outputs[0]) == {"text/plain", "text/html"}
    assert "<table" in shown.outputs[0]["text/html"]


def test_cell_definitions_persist(shell):
    run(shell, "%%gradtrace\n" + SEED)
    later = run(shell, "later = float(foo(x))\nlater")
    assert later.result.success and shell.user_ns["later"] == 4.0
    assert float(shell.user_ns["dy_dx"]) == 1024.0
    assert isinstance(shell.user_ns["tape"], gm.GradientTape)


def test_cell_last_expression_is_still_displayed(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert re.search(r"Out\[\d+\]: 1024\.0", shown.stdout)
    assert shell.user_ns["_"] == 1024.0


def test_cell_prints_and_displays_of_the_code_come_before_the_trace(shell):
    shown = run(shell, "%%gradtrace\nfrom IPython.display import display\n"
                       "display({'text/plain': 'from the cell'}, raw=True)\n" + SEED)
    assert shown.outputs[0] == {"text/plain": "from the cell"}
    assert len(shown.traces) == 1 and shown.outputs[1] is shown.traces[0]


def test_cell_values_are_named_after_the_users_variables(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert "d(y)/d(x) = 1024" in shown.outputs[0]["text/plain"]


@pytest.mark.parametrize("options, trace_options", [
    ("--ops", dict(ops=True)),
    ("--check", dict(check=True)),
    ("--max-rows 2", dict(max_rows=2)),
    ("--max-rows=3", dict(max_rows=3)),
    ("--precision 2", dict(precision=2)),
    ("--ops --max-rows 4 --precision 6", dict(ops=True, max_rows=4, precision=6)),
], ids=["ops", "check", "max-rows", "max-rows-equals", "precision", "combined"])
def test_cell_option_is_the_gm_trace_option(shell, options, trace_options):
    shown = run(shell, f"%%gradtrace {options} -o tr\n" + SEED)
    tr = shell.user_ns["tr"]
    expected = {"ops": False, "check": False, "max_rows": 50, "precision": 4, **trace_options}
    assert {k: getattr(tr, k) for k in expected} == expected
    assert_shows(shown.traces[0], library_trace(SEED, **trace_options))


def test_cell_ops_shows_the_primitives(shell):
    shown = run(shell, "%%gradtrace --ops\n" + SEED)
    assert "foo › power" in shown.outputs[0]["text/plain"]


def test_cell_max_rows_folds_the_middle(shell):
    run(shell, "%%gradtrace --max-rows 2 -o tr\n" + SEED)
    assert shell.user_ns["tr"].folded("forward") == 1


def test_cell_o_stores_the_trace_that_was_shown(shell):
    shown = run(shell, "%%gradtrace -o seed_trace\n" + SEED)
    tr = shell.user_ns["seed_trace"]
    assert isinstance(tr, gm.Trace)
    assert_shows(shown.traces[0], tr)
    assert [float(r.downstream[0]) for r in tr.backward] == [32.0, 256.0, 1024.0]


def test_cell_quiet_shows_nothing_and_stores_with_o(shell):
    shown = run(shell, "%%gradtrace --quiet -o tr\n" + SEED)
    assert shown.result.success and shown.outputs == []
    assert "gradmagic trace" not in shown.stdout
    assert_shows(shell.user_ns["tr"]._repr_mimebundle_(), library_trace(SEED))


def test_cell_quiet_still_shows_the_codes_own_output(shell):
    shown = run(shell, "%%gradtrace -q\n" + SEED)
    assert re.search(r"Out\[\d+\]: 1024\.0", shown.stdout)


def test_cell_plot_adds_a_separate_png(shell):
    from gradmagic.render.plot import png_bytes

    shown = run(shell, "%%gradtrace --plot\n" + SEED)
    assert len(shown.outputs) == 2
    trace_bundle, picture = shown.outputs
    assert set(trace_bundle) == {"text/plain", "text/html"}
    assert "data:image/png" not in trace_bundle["text/html"] and "<img" not in trace_bundle["text/html"]
    assert set(picture) == {"image/png", "text/plain"}
    assert picture["image/png"] == png_bytes(library_trace(SEED))
    assert picture["image/png"][:8] == b"\x89PNG\r\n\x1a\n"


def test_cell_plot_png_only_with_plot(shell):
    shown = run(shell, "%%gradtrace\n" + SEED)
    assert not any("image/png" in d for d in shown.outputs)


def test_repeated_runs_show_the_same_single_trace(shell):
    first = run(shell, "%%gradtrace\n" + SEED)
    second = run(shell, "%%gradtrace\n" + SEED)
    assert len(first.outputs) == len(second.outputs) == 1
    assert first.outputs == second.outputs


def test_no_state_leaks_into_later_cells(shell):
    custom = shell.custom_exceptions
    run(shell, "%%gradtrace\n" + SEED)
    assert stack() == () and gm.get_backend() == "numpy"
    assert shell.custom_exceptions == custom
    plain = run(shell, SEED)
    assert plain.result.success and plain.outputs == []
    assert "gradmagic trace" not in plain.stdout


def test_terminal_display_prints_the_text_trace(shell):
    shown = run(shell, "%%gradtrace\n" + SEED, display=False)
    assert has_tokens(shown.stdout, SEED_ROW)
    assert library_trace(SEED).to_text() in shown.stdout
    assert "<div" not in shown.stdout and "<gradmagic Trace" not in shown.stdout


# -- a cell that raises -------------------------------------------------------------------
def test_raising_cell_shows_the_trace_so_far(shell):
    shown = run(shell, "%%gradtrace\n" + RAISES)
    assert len(shown.outputs) == 1
    assert_shows(shown.outputs[0], library_trace(RAISES, raises=ZeroDivisionError))
    assert "multiply" in shown.outputs[0]["text/plain"]


def test_raising_cell_shows_the_trace_then_the_traceback_once(shell):
    shown = run(shell, "%%gradtrace\n" + RAISES, display=False)
    trace_at = shown.stdout.index("gradmagic trace")
    error_at = shown.stdout.index("ZeroDivisionError")
    assert trace_at < error_at
    assert shown.stdout.count("Traceback (most recent call last)") == 1
    assert shown.stdout.count("ZeroDivisionError: division by zero") == 1


def test_raising_cell_traceback_is_the_users_code_not_the_magic(shell):
    shown = run(shell, "%%gradtrace\n" + RAISES, display=False)
    traceback = shown.stdout[shown.stdout.index("Traceback"):]
    assert "z = 1 / 0" in traceback
    assert "magics.py" not in traceback and "run_cell_magic" not in traceback


GRADMAGIC_FRAME = re.compile(r"^File .*[/\\]gradmagic[/\\]\S+\.py:\d+", re.M)


def numbered_run(shell, cell):
    """Run a cell as a notebook or a terminal does, counting it (store_history=True)."""
    with capture_output(display=False) as c:
        result = shell.run_cell(cell, store_history=True)
    return result, ANSI.sub("", c.stdout)


def test_raising_cell_traceback_names_the_cell_by_its_own_number(shell):
    numbered_run(shell, "before = 1")
    result, out = numbered_run(shell, "%%gradtrace\n" + RAISES)
    n = result.execution_count
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert f"Cell In[{n}], line 6" in out and f"In[{n + 1}]" not in out
    assert numbered_run(shell, "after = 1")[0].execution_count == n + 1  # the count goes on as before


# a %%gradtrace cell, and an ordinary one: once the extension is loaded, every cell's
# traceback leaves gradmagic's frames out the same way (IPython's custom exception handler)
FACES = pytest.mark.parametrize("face", ["%%gradtrace\n", ""], ids=["gradtrace", "ordinary cell"])


@FACES
def test_raising_cell_traceback_hides_gradmagics_frames(shell, face):
    result, out = numbered_run(shell, face + WRONG_SHAPE)
    traceback = out[out.index("Traceback"):]
    assert isinstance(result.error_in_exec, GradientValueError)
    assert f"Cell In[{result.execution_count}], line {WRONG_SHAPE_LINE}" in traceback
    assert f"---> {WRONG_SHAPE_LINE} tape.gradient(y, x)" in traceback
    assert GRADMAGIC_FRAME.search(traceback) is None, traceback
    assert traceback.count("Traceback (most recent call last)") == 1
    assert traceback.rstrip().endswith("a gradient must have its input's shape (broadcast it to the "
                                       "input's shape, upstream * np.ones_like(x), or keep the axes a "
                                       "sum took away)")


@FACES
def test_raising_cell_traceback_keeps_the_users_frames_inside_the_engine(shell, face):
    cell = WRONG_SHAPE.replace("lambda up: up  ", "lambda up: up[5]")  # grad_fn itself raises
    result, out = numbered_run(shell, face + cell)
    traceback = out[out.index("Traceback"):]
    assert isinstance(result.error_in_exec, IndexError)
    assert f"---> {WRONG_SHAPE_LINE} tape.gradient(y, x)" in traceback
    assert "return np.sum(x), lambda up: up[5]" in traceback
    assert GRADMAGIC_FRAME.search(traceback) is None, traceback


@FACES
@pytest.mark.parametrize("ask", ["environment", "xmode"])
def test_raising_cell_traceback_shows_gradmagics_frames_when_asked(shell, monkeypatch, ask, face):
    if ask == "environment":
        monkeypatch.setenv("GRADMAGIC_TRACEBACK", "full")
    else:
        monkeypatch.setattr(shell.InteractiveTB, "skip_hidden", False)  # what %xmode --show sets
    result, out = numbered_run(shell, face + WRONG_SHAPE)
    frames = GRADMAGIC_FRAME.findall(out)
    assert any("core" in f and "tape.py" in f for f in frames), out
    assert any("custom.py" in f for f in frames)


def test_line_traceback_hides_gradmagics_frames(shell):
    cell = WRONG_SHAPE.replace("tape.gradient(y, x)", "%gradtrace g = tape.gradient(y, x)")
    result, out = numbered_run(shell, cell)
    traceback = out[out.index("Traceback"):]
    assert isinstance(result.error_in_exec, GradientValueError)
    assert f"Cell In[{result.execution_count}], line {WRONG_SHAPE_LINE}" in traceback
    assert GRADMAGIC_FRAME.search(traceback) is None, traceback


def test_raising_cell_fails_the_cell_with_the_users_exception(shell):
    shown = run(shell, "%%gradtrace\n" + RAISES)
    assert not shown.result.success
    assert isinstance(shown.result.error_in_exec, ZeroDivisionError)
    assert sys.last_value is shown.result.error_in_exec  # for %debug


def test_raising_cell_leaves_nothing_active(shell):
    run(shell, "%%gradtrace --backend numpy\n" + RAISES)
    assert stack() == () and gm.get_backend() == "numpy"
    later = run(shell, "w = x * 2\nfloat(w)")
    assert later.result.success and later.outputs == []


def test_raising_cell_o_stores_the_trace_so_far(shell):
    run(shell, "%%gradtrace -o tr\n" + RAISES)
    assert [r.node for r in shell.user_ns["tr"].forward] == ["multiply"]


def test_raising_cell_keeps_what_ran_before_the_error(shell):
    run(shell, "%%gradtrace\n" + RAISES)
    assert float(shell.user_ns["y"]) == 9.0 and "z" not in shell.user_ns


@pytest.mark.parametrize("options", ["", "--plot"], ids=["table", "plot"])
def test_raising_cell_that_traced_nothing_shows_only_the_traceback(shell, options):
    shown = run(shell, f"%%gradtrace {options} -o tr\nbefore = 1\n1 / 0\n", display=False)
    assert isinstance(shown.result.error_in_exec, ZeroDivisionError)
    assert "gradmagic trace" not in shown.stdout and "nothing traced" not in shown.stdout
    assert shown.stdout.count("ZeroDivisionError: division by zero") == 1
    assert shell.user_ns["tr"].rows() == []  # -o still stores what was (not) recorded


def test_line_that_raises_before_tracing_shows_only_the_traceback(shell):
    shown = run(shell, "%gradtrace 1 / 0")
    assert isinstance(shown.result.error_in_exec, ZeroDivisionError) and shown.outputs == []


def test_cell_that_traced_nothing_without_error_still_shows_its_empty_trace(shell):
    shown = run(shell, "%%gradtrace\nx = 1\n")
    assert [d["text/plain"].splitlines()[0] for d in shown.outputs] == [
        "gradmagic trace: 0 forward, 0 backward rows"]


def test_syntax_error_is_shown_once_without_a_trace(shell):
    shown = run(shell, "%%gradtrace\ndef broken(:\n    pass\n", display=False)
    assert not shown.result.success
    assert isinstance(shown.result.error_in_exec, SyntaxError)
    assert shown.stdout.count("SyntaxError") == 1
    assert "gradmagic trace" not in shown.stdout


def test_users_own_exception_handler_still_handles_its_exceptions(shell):
    seen = []
    before = shell.custom_exceptions, shell.CustomTB
    shell.set_custom_exc((KeyError,), lambda _shell, etype, value, tb, tb_offset=None: seen.append(etype))
    try:
        shown = run(shell, "%%gradtrace\nimport gradmagic as gm\ny = gm.constant(2.0) * 3\n{}['missing']")
    finally:
        shell.custom_exceptions, shell.CustomTB = before
    assert seen == [KeyError] and len(shown.traces) == 1


# -- --backend ----------------------------------------------------------------------------
@pytest.fixture
def fake_gpu(monkeypatch):
    """A "cupy" backend that is NumPy underneath, so that choosing and restoring the
    backend can be checked on a machine without a GPU."""
    monkeypatch.setattr(_backend, "cupy_status", lambda: (np, ""))


def test_backend_is_set_for_the_cell_and_restored(shell, fake_gpu):
    shown = run(shell, "%%gradtrace --backend cupy\n" + SEED + "inside = gm.get_backend()\n")
    assert shown.result.success
    assert shell.user_ns["inside"] == "cupy" and gm.get_backend() == "numpy"


def test_backend_is_restored_when_the_cell_raises(shell, fake_gpu):
    run(shell, "%%gradtrace --backend cupy\n" + RAISES)
    assert gm.get_backend() == "numpy"


def test_backend_numpy_keeps_arrays_on_the_host(shell):
    run(shell, "%%gradtrace --backend numpy\n" + SEED)
    assert isinstance(shell.user_ns["x"].value, (np.ndarray, np.generic))  # NumPy's, on the host


def test_backend_cupy_without_a_gpu_is_a_clear_error(shell, monkeypatch):
    monkeypatch.setattr(_backend, "cupy_status", lambda: (None, "no GPU is usable (the test says so)"))
    shown = run(shell, "%%gradtrace --backend cupy\nran = True\n" + SEED, display=False)
    error = shown.result.error_in_exec
    assert isinstance(error, BackendError) and "no GPU is usable (the test says so)" in str(error)
    assert "BackendError" in shown.stdout
    assert gm.get_backend() == "numpy" and stack() == ()
    assert "ran" not in shell.user_ns and "gradmagic trace" not in shown.stdout


@pytest.mark.skipif(_backend.cupy_status()[0] is not None, reason="a GPU is usable here")
def test_backend_cupy_on_this_machine_without_a_gpu_raises_and_keeps_numpy(shell):
    shown = run(shell, "%%gradtrace --backend cupy\nran = True\n")
    assert isinstance(shown.result.error_in_exec, BackendError)
    assert gm.get_backend() == "numpy" and "ran" not in shell.user_ns


@pytest.mark.cupy
@pytest.mark.skipif(_backend.cupy_status()[0] is None, reason=_backend.cupy_status()[1])
def test_backend_cupy_puts_the_cells_arrays_on_the_gpu(shell):
    import cupy

    shown = run(shell, "%%gradtrace --backend cupy -o tr\n" + SEED)
    assert shown.result.success and gm.get_backend() == "numpy"
    assert isinstance(shell.user_ns["x"].value, cupy.ndarray)
    assert has_tokens(shown.traces[0]["text/plain"], SEED_ROW)


# -- help and bad options -----------------------------------------------------------------
@pytest.mark.parametrize("query", ["%%gradtrace?", "%gradtrace?"], ids=["cell", "line"])
def test_help_page_is_the_docstring_with_every_option(shell, query):
    shown = run(shell, query)
    assert "Trace the chain rule: every forward value and backward step" in shown.stdout
    for option in ("--ops", "--check", "--plot", "--backend", "--max-rows", "--precision", "-o NAME",
                   "--quiet", "%gradtrace [options] statement"):
        assert option in shown.stdout, option
    # plain text, not reStructuredText: IPython prints the docstring as it is
    assert "``" not in shown.stdout
    assert not [line for line in shown.stdout.splitlines() if line.rstrip().endswith("::")]


@pytest.mark.parametrize("options, message", [
    ("--bogus", "unrecognized arguments: --bogus"),
    ("--backend tpu", "invalid choice: 'tpu'"),
    ("--backend", "expected one argument"),
    ("--max-rows 1", "expected an int of at least 2, got '1'"),
    ("--max-rows many", "expected an int of at least 2, got 'many'"),
    ("--precision 0", "expected an int from 1 to 17, got '0'"),
    ("--precision 18", "expected an int from 1 to 17, got '18'"),
    ("-o 2nd", "expected a Python name to store the Trace in, got '2nd'"),
    ("extra words", "unrecognized arguments: extra words"),
], ids=["unknown", "backend-choice", "backend-missing", "max-rows-small", "max-rows-word",
        "precision-small", "precision-large", "o-not-a-name", "positional"])
def test_bad_cell_option_is_a_usage_error_and_runs_nothing(shell, options, message):
    shown = run(shell, f"%%gradtrace {options}\nran = True\n")
    error = shown.result.error_in_exec
    assert isinstance(error, UsageError) and message in str(error)
    assert "ran" not in shell.user_ns and shown.outputs == []
    assert stack() == () and gm.get_backend() == "numpy"


# -- the line magic -----------------------------------------------------------------------
STATEMENT_SETUP = """\
import gradmagic as gm
x = gm.constant(3.0)
square = lambda v: v * v
"""


@pytest.fixture
def setup(shell):
    assert run(shell, STATEMENT_SETUP).result.success
    return shell


def library_statement_trace(shell, statement, **options):
    """The statement under gm.trace() in a copy of the user's namespace."""
    namespace = dict(shell.user_ns)
    with gm.trace(**options) as tr:
        exec(compile(statement, "<line>", "exec"), namespace)
    tr.name_values(namespace)
    return tr


def test_line_traces_one_statement(setup):
    statement = "g = gm.grad(square)(x)"
    shown = run(setup, f"%gradtrace {statement}")
    assert shown.result.success and float(setup.user_ns["g"]) == 6.0
    assert len(shown.outputs) == 1
    assert_shows(shown.outputs[0], library_statement_trace(setup, statement))


def test_line_expression_value_is_displayed(setup):
    shown = run(setup, "%gradtrace float(gm.grad(square)(x))")
    assert re.search(r"Out\[\d+\]: 6\.0", shown.stdout) and len(shown.traces) == 1


@pytest.mark.parametrize("line, trace_options", [
    ("--ops -o tr g = gm.grad(square)(x)", dict(ops=True)),
    ("--max-rows 4 -o tr g = gm.grad(square)(x)", dict(max_rows=4)),
    ("-o tr --precision=3 g = gm.grad(square)(x)", dict(precision=3)),
    ("-o tr -- g = gm.grad(square)(x)", dict()),
    ("-otr g = gm.grad(square)(x)", dict()),
], ids=["ops", "max-rows", "precision-equals", "double-dash", "o-attached"])
def test_line_options_come_before_the_statement(setup, line, trace_options):
    shown = run(setup, f"%gradtrace {line}")
    assert shown.result.success and float(setup.user_ns["g"]) == 6.0
    tr = setup.user_ns["tr"]
    assert_shows(shown.traces[0], tr)
    assert_shows(tr._repr_mimebundle_(),
                 library_statement_trace(setup, "g = gm.grad(square)(x)", **trace_options))


def test_line_statement_is_not_expanded_by_ipython(setup):
    shown = run(setup, '%gradtrace g = gm.grad(square)(x); s = "$x {x}"')
    assert shown.result.success
    assert float(setup.user_ns["g"]) == 6.0 and setup.user_ns["s"] == "$x {x}"


def test_line_without_a_statement_is_a_usage_error(setup):
    shown = run(setup, "%gradtrace --ops")
    assert isinstance(shown.result.error_in_exec, UsageError)
    assert "needs a statement" in str(shown.result.error_in_exec)


@pytest.mark.parametrize("line, message", [
    ("--max-rows many g = 1", "expected an int of at least 2, got 'many'"),
    ("--bogus g = 1", "unrecognized arguments: --bogus"),
    ("--backend tpu g = 1", "invalid choice: 'tpu'"),
], ids=["max-rows-word", "unknown", "backend-choice"])
def test_line_bad_option_is_a_usage_error_and_runs_nothing(setup, line, message):
    shown = run(setup, f"%gradtrace {line}")
    assert isinstance(shown.result.error_in_exec, UsageError) and message in str(shown.result.error_in_exec)
    assert "g" not in setup.user_ns


def test_line_that_raises_stops_the_rest_of_the_cell(setup):
    shown = run(setup, "%gradtrace g = gm.grad(square)(x) + {}['k']\nafter = True")
    assert isinstance(shown.result.error_in_exec, KeyError)
    assert "after" not in setup.user_ns and "g" not in setup.user_ns
    assert len(shown.traces) == 1 and stack() == ()


def test_line_traceback_shows_the_statement(setup):
    shown = run(setup, "%gradtrace g = gm.grad(square)(x) + {}['k']", display=False)
    traceback = shown.stdout[shown.stdout.index("Traceback"):]
    assert "----> 1 g = gm.grad(square)(x) + {}['k']" in traceback
    assert "magics.py" not in traceback


def test_line_inside_a_function_uses_its_variables(setup):
    shown = run(setup, "def f(v):\n    %gradtrace print(float(gm.grad(square)(v)))\nf(x)")
    assert shown.result.success and "6.0" in shown.stdout
    assert "d(v * v)/d(v) = 6" in shown.traces[0]["text/plain"]


def test_line_backend_is_restored_when_it_raises(setup, fake_gpu):
    shown = run(setup, "%gradtrace --backend cupy g = {}['k']")
    assert isinstance(shown.result.error_in_exec, KeyError) and gm.get_backend() == "numpy"


def test_line_syntax_error_runs_nothing(setup):
    shown = run(setup, "%gradtrace g = (")
    assert isinstance(shown.result.error_in_exec, SyntaxError)
    assert shown.traces == [] and "g" not in setup.user_ns


def test_line_that_raises_shows_the_trace_then_fails(setup):
    shown = run(setup, "%gradtrace g = gm.grad(square)(x) / 0 + {}['k']", display=False)
    assert isinstance(shown.result.error_in_exec, KeyError)
    assert shown.stdout.index("gradmagic trace") < shown.stdout.index("KeyError")
    assert stack() == ()


def test_a_pytorch_function_in_a_cell_is_one_row_with_its_pitfall(shell):
    cell = """%%gradtrace --check
import gradmagic.torch as torch

class P3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return 1.5 * (5 * input ** 2 - 1)

x = torch.tensor(0.5, requires_grad=True)
(P3.apply(2 * x) * 3).backward()
"""
    r = run(shell, cell)
    assert r.result.error_in_exec is None
    text = r.outputs[0]["text/plain"]
    assert re.search(r"\n +\d+ +P3 +input=1 ", text)
    assert "P3's backward does not multiply by its grad_output" in text
    assert shell.user_ns["x"].grad.item() == 12.0  # what the program computed: 6 (upstream lost) * 2



# -- every cell's traceback, once the extension is loaded -------------------------------------
def test_an_error_that_never_entered_gradmagic_shows_as_ipython_shows_it(shell):
    cell = "def f():\n    return 1 / 0\nf()\n"
    _, ours = numbered_run(shell, cell)
    shell.extension_manager.unload_extension("gradmagic")
    try:
        assert shell.custom_exceptions == ()
        _, plain = numbered_run(shell, cell)
    finally:
        shell.extension_manager.load_extension("gradmagic")
    number = re.compile(r"In\[\d+\]")
    assert number.sub("In[n]", ours) == number.sub("In[n]", plain)
    assert "return 1 / 0" in ours and ours.count("Traceback") == 1


def test_a_custom_exception_handler_set_before_loading_stays(ipython):
    ipython.extension_manager.unload_extension("gradmagic")
    seen = []
    ipython.set_custom_exc((GradientValueError,), lambda shell, *exc, tb_offset=None: seen.append(exc[0]))
    try:
        ipython.extension_manager.load_extension("gradmagic")
        numbered_run(ipython, WRONG_SHAPE)
        assert seen == [GradientValueError]  # theirs ran, not gradmagic's
        ipython.extension_manager.unload_extension("gradmagic")
        assert ipython.custom_exceptions == (GradientValueError,)  # and it outlives the unload
    finally:
        ipython.set_custom_exc((), None)
        ipython.extension_manager.load_extension("gradmagic")
