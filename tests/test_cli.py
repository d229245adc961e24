"""The terminal face's usage errors (the benchmarks' correctness is in test_benchmarks.py)."""

import subprocess
import sys
from pathlib import Path

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
