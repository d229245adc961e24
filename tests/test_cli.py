"""The terminal face: usage errors, gradmagic's options before the script and the script's after it,
text to the terminal's width (the benchmarks' correctness is in test_benchmarks.py)."""

import os
import subprocess
import sys
from pathlib import Path

from _cases import module_or_skip
from _seed import WRONG_SHAPE

ROOT = Path(__file__).resolve().parents[1]


def test_demo_unknown_command_is_a_usage_error():
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "nope"], capture_output=True, text=True,
                          cwd=ROOT)
    assert proc.returncode == 2 and "invalid choice: 'nope'" in proc.stderr



# -- the trace options, declared once (gradmagic/debug/options.py) ---------------------------
import pytest  # noqa: E402

import gradmagic as gm  # noqa: E402
from gradmagic.debug.options import OPTIONS  # noqa: E402

LIMITS = [(o.name, o.flag, bad, o.expected) for o in OPTIONS if hasattr(o, "expected")
          for bad in ([o.low - 1] + ([o.high + 1] if o.high is not None else []))]


@pytest.mark.parametrize("name, flag, bad, expected", LIMITS, ids=[f"{f}={b}" for _, f, b, _ in LIMITS])
def test_an_option_out_of_range_is_refused_alike_by_the_cli_and_the_function(tmp_path, name, flag, bad,
                                                                             expected):
    script = tmp_path / "s.py"
    script.write_text("print('ran')\n")
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "trace", flag, str(bad), str(script)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"argument {flag}: expected {expected}, got '{bad}'" in proc.stderr
    assert "ran" not in proc.stdout
    with pytest.raises(TypeError, match=rf"^trace\({name}={bad}\): expected {expected}$"):
        gm.trace(**{name: bad})


def test_the_function_and_its_faces_share_defaults():
    import inspect
    defaults = {k: p.default for k, p in inspect.signature(gm.trace).parameters.items()}
    assert defaults == {o.name: o.default for o in OPTIONS}
    tr = gm.trace()
    assert {o.name: getattr(tr, o.name) for o in OPTIONS} == defaults


# -- help -----------------------------------------------------------------------------------
COMMANDS = ["demo", "trace", "install-kernel", "uninstall-kernel"]


def help_page(capsys, *args):
    from gradmagic.__main__ import main

    with pytest.raises(SystemExit) as done:
        main([*args, "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", [None] + COMMANDS, ids=["top"] + COMMANDS)
def test_help_says_what_a_command_does_in_the_readers_words(capsys, command):
    page = help_page(capsys, *([command] if command else []))
    usage, description = page.split("\n\n")[:2]
    assert usage.startswith("usage: python -m gradmagic")
    assert not description.startswith(("options:", "positional arguments:")), page  # a description
    assert "seed" not in page.lower()


# -- trace: gradmagic's options before the script, the script's after it ---------------------
FORGETS = """\
import sys
import gradmagic as gm
print("argv", sys.argv[1:])

@gm.custom_gradient
def foo(x):
    def grad_fn(upstream):
        return 2 * x                      # forgets upstream
    return x ** 2, grad_fn

x = gm.constant(2.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = foo(foo(foo(x)))
print("gradient", float(tape.gradient(y, x)))
"""


def trace_cli(tmp_path, *args, env=None):
    script = tmp_path / "forgets.py"
    script.write_text(FORGETS)
    words = [str(script) if a == "SCRIPT" else a for a in args]
    return subprocess.run([sys.executable, "-m", "gradmagic", "trace", *words], capture_output=True,
                          text=True, cwd=ROOT, env=env)


def test_trace_check_finds_a_grad_fn_that_forgets_upstream(tmp_path):
    proc = trace_cli(tmp_path, "--check", "SCRIPT")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert "argv []" in proc.stdout and "gradient 4.0" in proc.stdout
    # one note: a custom function is reviewed once per input shape in a trace
    assert proc.stdout.count("! upstream-ignored: foo's grad_fn does not multiply by its upstream") == 1
    unchecked = trace_cli(tmp_path, "SCRIPT")
    assert unchecked.returncode == 0 and "upstream-ignored" not in unchecked.stdout


ON_MODULE = """
import numpy as np
import gradmagic as gm
x = gm.constant([1.0, 2.0])
with gm.GradientTape() as tape:
    tape.watch(x)
    y = np.sum(np.tanh(x) * np.array([1.0, 3.0]))
print("gradient on", type(tape.gradient(y, x).value).__module__.partition(".")[0])
"""


@pytest.mark.parametrize("backend", ["numpy", pytest.param("cupy", marks=pytest.mark.cupy)])
def test_trace_backend_runs_the_script_s_arrays_there(tmp_path, backend):
    if backend == "cupy":
        module_or_skip("cupy")
    script = tmp_path / "on_module.py"
    script.write_text(ON_MODULE)
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "trace", "--backend", backend, str(script)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert f"gradient on {backend}" in proc.stdout and "backward" in proc.stdout


def test_trace_backend_that_is_not_usable_says_why_and_runs_nothing(tmp_path):
    script = tmp_path / "on_module.py"
    script.write_text(ON_MODULE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    (tmp_path / "cupy.py").write_text("raise ImportError('no CUDA here')\n")  # stands for a missing GPU
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "trace", "--backend", "cupy", str(script)],
                          capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("python -m gradmagic trace --backend cupy: CuPy is installed but does not import")


@pytest.mark.parametrize("word, flag", [("--check", "--check"), ("--max-rows=3", "--max-rows"),
                                        ("--chek", "--check"), ("--max_rows", "--max-rows"),
                                        ("--Precision", "--precision"), ("--op", "--ops")])
def test_trace_an_option_after_the_script_is_the_scripts_with_a_warning(tmp_path, word, flag):
    proc = trace_cli(tmp_path, "SCRIPT", word, "keep")
    assert proc.returncode == 0
    assert f"argv [{word!r}, 'keep']" in proc.stdout and "upstream-ignored" not in proc.stdout
    warning = " ".join(proc.stderr.split())  # one warning, wrapped to the terminal's width
    assert warning.startswith(f"python -m gradmagic trace: warning: {word}")
    assert warning.count("warning:") == 1 and f"python -m gradmagic trace {flag} ... " in warning


@pytest.mark.parametrize("args, argv", [(["SCRIPT", "--", "--check"], ["--check"]),
                                        (["SCRIPT", "a", "--", "--check"], ["a", "--", "--check"]),
                                        (["SCRIPT", "-v", "--verbose", "-h", "7"],
                                         ["-v", "--verbose", "-h", "7"])])
def test_trace_script_arguments_that_are_not_gradmagics_pass_quietly(tmp_path, args, argv):
    proc = trace_cli(tmp_path, *args)
    assert proc.returncode == 0 and proc.stderr == ""
    assert f"argv {argv!r}" in proc.stdout


@pytest.mark.parametrize("word, hint", [("--chek", " (did you mean --check?)"),
                                        ("--max_rows", " (did you mean --max-rows?)"),
                                        ("--verbose", "")])
def test_trace_an_unknown_option_before_the_script_is_a_usage_error(tmp_path, word, hint):
    proc = trace_cli(tmp_path, word, "SCRIPT")
    assert proc.returncode == 2 and "argv" not in proc.stdout
    assert f"error: unrecognized arguments: {word}{hint}; gradmagic's options are --ops" in proc.stderr


# -- the traceback of a script that raises ---------------------------------------------------
@pytest.mark.parametrize("full", [False, True], ids=["users", "full"])
def test_trace_traceback_leaves_out_gradmagics_frames_unless_asked(tmp_path, full):
    script = tmp_path / "shape.py"
    script.write_text(WRONG_SHAPE)
    env = {**os.environ, "GRADMAGIC_TRACEBACK": "full" if full else ""}
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "trace", str(script)], capture_output=True,
                          text=True, cwd=ROOT, env=env)
    assert proc.returncode == 1 and "! contract: GradientValueError" in proc.stdout
    lines = proc.stderr.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1].startswith("gradmagic.errors.GradientValueError: custom_gradient(total)")
    files = [line.split('"')[1] for line in lines if line.startswith('  File "')]
    inside = [f for f in files if os.sep + "gradmagic" + os.sep in f]
    if full:
        assert any(f.endswith("__main__.py") for f in inside) and any(f.endswith("tape.py") for f in inside)
    else:
        assert files == [str(script)] and inside == []


# -- text to the terminal's width ------------------------------------------------------------
def test_demo_fits_an_80_column_terminal():
    proc = subprocess.run([sys.executable, "-m", "gradmagic", "demo"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "! nan-origin:" in proc.stdout and "Each backward row multiplies" in proc.stdout
    wide = subprocess.run([sys.executable, "-m", "gradmagic", "demo"], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, "COLUMNS": "150"})
    assert max(len(line) for line in wide.stdout.splitlines()) > 100  # the width is the terminal's
