"""The kernel spec, a real kernel started from it, and the magic in a terminal IPython.

``python -m gradmagic install-kernel --prefix TMP`` writes the spec; jupyter_client starts
the kernel from it (nothing is installed outside temporary directories); cells run there
use ``%%gradtrace`` without ``%load_ext``.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ipykernel")
pytest.importorskip("jupyter_client")

from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

from _seed import SEED, SEED_ROW, WRONG_SHAPE, WRONG_SHAPE_LINE, has_tokens  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "gradmagic", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=TIMEOUT, env=env)


def kernels_dir(prefix):
    return Path(prefix) / "share" / "jupyter" / "kernels"


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    """Jupyter's and IPython's per-user directories in a temporary place."""
    home = tmp_path_factory.mktemp("home")
    env = {"IPYTHONDIR": home / "ipython", "JUPYTER_RUNTIME_DIR": home / "runtime",
           "JUPYTER_DATA_DIR": home / "data", "JUPYTER_CONFIG_DIR": home / "config"}
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, str(v))
        yield home


@pytest.fixture(scope="module")
def prefix(isolated, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    done = cli("install-kernel", "--prefix", str(prefix))
    assert done.returncode == 0, done.stderr
    return prefix


class Kernel:
    """A kernel started from the installed spec, and a client that runs cells on it."""

    def __init__(self, prefix, name="gradmagic", env=None):
        manager = KernelSpecManager(kernel_dirs=[str(kernels_dir(prefix))])
        self.km = KernelManager(kernel_name=name, kernel_spec_manager=manager)
        self.km.start_kernel(env={**os.environ, **(env or {})})
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=TIMEOUT)
        except Exception:
            self.shutdown()
            raise

    def run(self, code):
        """(reply content, [iopub messages of the cell]) for one cell."""
        messages = []
        reply = self.kc.execute_interactive(code, timeout=TIMEOUT, output_hook=messages.append)
        outputs = [m for m in messages if m["msg_type"] in ("stream", "display_data", "execute_result", "error")]
        return reply["content"], outputs

    def shutdown(self):
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def kernel(prefix):
    k = Kernel(prefix)
    yield k
    k.shutdown()


def kinds(outputs):
    return [m["msg_type"] for m in outputs]


# -- the spec -----------------------------------------------------------------------------
def test_install_writes_a_spec_that_runs_this_python_with_gradmagic(prefix):
    spec = json.loads((kernels_dir(prefix) / "gradmagic" / "kernel.json").read_text())
    assert spec["argv"] == [sys.executable, "-m", "gradmagic.kernel", "-f", "{connection_file}"]
    assert spec["display_name"] == "Python 3 (gradmagic)"
    assert spec["language"] == "python"


def test_install_is_found_by_jupyter(prefix):
    spec = KernelSpecManager(kernel_dirs=[str(kernels_dir(prefix))]).get_kernel_spec("gradmagic")
    assert spec.display_name == "Python 3 (gradmagic)"


def test_install_with_a_name_and_uninstall_removes_it(isolated, tmp_path):
    done = cli("install-kernel", "--prefix", str(tmp_path), "--name", "gm-test")
    assert done.returncode == 0, done.stderr
    assert (kernels_dir(tmp_path) / "gm-test" / "kernel.json").is_file()
    done = cli("uninstall-kernel", "--prefix", str(tmp_path), "--name", "gm-test")
    assert done.returncode == 0, done.stderr
    assert not (kernels_dir(tmp_path) / "gm-test").exists()
    assert "removed kernel spec 'gm-test'" in done.stdout


def test_uninstall_of_a_missing_spec_says_so(isolated, tmp_path):
    done = cli("uninstall-kernel", "--prefix", str(tmp_path))
    assert done.returncode == 1 and "no kernel spec named 'gradmagic'" in done.stderr


def test_uninstall_leaves_a_spec_that_is_not_gradmagics(isolated, tmp_path):
    other = kernels_dir(tmp_path) / "python3"
    other.mkdir(parents=True)
    (other / "kernel.json").write_text(json.dumps(
        {"argv": ["python", "-m", "ipykernel_launcher", "-f", "{connection_file}"], "display_name": "Python 3"}))
    done = cli("uninstall-kernel", "--prefix", str(tmp_path), "--name", "python3")
    assert done.returncode == 1 and "does not start gradmagic" in done.stderr
    assert (other / "kernel.json").is_file()


def test_install_defaults_to_the_users_directory_and_uninstall_finds_it(isolated):
    spec = isolated / "data" / "kernels" / "gm-user"
    done = cli("install-kernel", "--name", "gm-user")
    assert done.returncode == 0, done.stderr
    assert (spec / "kernel.json").is_file()
    done = cli("uninstall-kernel", "--name", "gm-user")
    assert done.returncode == 0, done.stderr
    assert not spec.exists()


def test_install_rejects_an_invalid_name(isolated, tmp_path):
    done = cli("install-kernel", "--prefix", str(tmp_path), "--name", "no spaces")
    assert done.returncode == 1 and "Invalid kernel name" in done.stderr


def test_install_places_are_exclusive(isolated, tmp_path):
    done = cli("install-kernel", "--user", "--prefix", str(tmp_path))
    assert done.returncode == 2 and "not allowed with argument" in done.stderr


# -- a kernel started from the spec -------------------------------------------------------
def test_kernel_runs_gradtrace_without_load_ext(kernel):
    reply, outputs = kernel.run("%%gradtrace\n" + SEED)
    assert reply["status"] == "ok", reply
    assert kinds(outputs) == ["execute_result", "display_data"]
    result, shown = outputs
    assert result["content"]["data"]["text/plain"] == "1024.0"
    data = shown["content"]["data"]
    assert set(data) == {"text/plain", "text/html"}
    assert has_tokens(data["text/plain"], SEED_ROW)
    assert "<table" in data["text/html"]


def test_kernel_load_ext_gradmagic_says_nothing(kernel):
    for _ in range(2):  # the tutorials' first cell, run once or again
        reply, outputs = kernel.run("%load_ext gradmagic")
        assert reply["status"] == "ok" and outputs == []
    reply, outputs = kernel.run("%%gradtrace\n" + SEED)
    assert reply["status"] == "ok" and kinds(outputs) == ["execute_result", "display_data"]


def test_kernel_load_ext_of_another_extension_is_ipythons(kernel):
    reply, outputs = kernel.run("%load_ext storemagic")  # an extension every kernel loads
    assert reply["status"] == "ok"
    assert "".join(m["content"]["text"] for m in outputs) == (
        "The storemagic extension is already loaded. To reload it, use:\n  %reload_ext storemagic\n")


def test_kernel_load_ext_after_unload_loads_gradmagic_again(prefix):
    kernel = Kernel(prefix)
    try:
        assert kernel.run("%unload_ext gradmagic")[0]["status"] == "ok"
        reply, _ = kernel.run("%%gradtrace\nx = 1\n")
        assert reply["status"] == "error" and reply["ename"] == "UsageError"
        reply, outputs = kernel.run("%load_ext gradmagic")
        assert reply["status"] == "ok" and outputs == []
        reply, outputs = kernel.run("%%gradtrace\n" + SEED)
        assert reply["status"] == "ok" and kinds(outputs) == ["execute_result", "display_data"]
    finally:
        kernel.shutdown()


def test_kernel_shows_the_trace_gm_trace_gives(kernel):
    _, outputs = kernel.run("%%gradtrace\n" + SEED)
    reply, expected = kernel.run("import gradmagic as gm\nwith gm.trace() as tr:\n"
                                 + "".join("    " + line + "\n" for line in SEED.splitlines())
                                 + "tr.name_values(globals())\ntr")
    assert reply["status"] == "ok", reply
    assert outputs[1]["content"]["data"] == expected[0]["content"]["data"]


def test_kernel_cell_that_raises_shows_the_trace_then_replies_with_the_error(kernel):
    reply, outputs = kernel.run("%%gradtrace\n" + SEED + "1 / 0\n")
    assert reply["status"] == "error" and reply["ename"] == "ZeroDivisionError"
    assert kinds(outputs) == ["display_data", "error"]
    assert has_tokens(outputs[0]["content"]["data"]["text/plain"], SEED_ROW)
    assert outputs[1]["content"]["ename"] == "ZeroDivisionError"
    reply, outputs = kernel.run("float(foo(x))")
    assert reply["status"] == "ok" and kinds(outputs) == ["execute_result"]


def test_kernel_traceback_names_the_cell_and_leaves_out_gradmagics_frames(kernel):
    kernel.run("before = 1")
    reply, outputs = kernel.run("%%gradtrace\n" + WRONG_SHAPE)
    assert reply["status"] == "error" and reply["ename"] == "GradientValueError"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(outputs[-1]["content"]["traceback"]))
    n = reply["execution_count"]
    assert f"Cell In[{n}], line {WRONG_SHAPE_LINE}" in traceback and f"In[{n + 1}]" not in traceback
    assert re.search(r"^File .*[/\\]gradmagic[/\\]", traceback, re.M) is None, traceback
    reply, _ = kernel.run("after = 1")
    assert reply["execution_count"] == n + 1


def test_kernel_plot_is_a_separate_png_output(kernel):
    reply, outputs = kernel.run("%%gradtrace --plot\n" + SEED + "None\n")
    assert reply["status"] == "ok", reply
    assert kinds(outputs) == ["display_data", "display_data"]
    assert set(outputs[0]["content"]["data"]) == {"text/plain", "text/html"}
    assert "image/png" in outputs[1]["content"]["data"]


def test_kernel_bad_option_fails_the_cell(kernel):
    reply, outputs = kernel.run("%%gradtrace --max-rows 1\nran = True\n")
    assert reply["status"] == "error" and reply["ename"] == "UsageError"
    assert "expected an int of at least 2" in reply["evalue"]
    _, outputs = kernel.run("'ran' in globals()")
    assert outputs[0]["content"]["data"]["text/plain"] == "False"


BLOCKER = '''\
import sys


class _Blocker:
    """Make gradmagic's magics fail to import, as a broken environment would."""

    def find_spec(self, name, path=None, target=None):
        if name == "gradmagic.magics":
            raise ImportError("gradmagic.magics is blocked by the test")
        return None


sys.meta_path.insert(0, _Blocker())
'''


def test_kernel_says_when_the_extension_fails_to_load(prefix, tmp_path):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    kernel = Kernel(prefix, env={"PYTHONPATH": str(tmp_path)})
    try:
        reply, outputs = kernel.run("1 + 1")
        assert reply["status"] == "ok"
        said = [m["content"]["text"] for m in outputs if m["msg_type"] == "stream"]
        assert len(said) == 1 and m_has_failure(said[0])
        reply, outputs = kernel.run("%%gradtrace\nx = 1\n")
        assert reply["status"] == "error" and reply["ename"] == "ImportError"
        assert m_has_failure(reply["evalue"])
        assert kinds(outputs) == ["error"]  # said in the first cell only, raised every time
    finally:
        kernel.shutdown()


def m_has_failure(text):
    return ("gradmagic could not be loaded in this kernel" in text
            and "gradmagic.magics is blocked by the test" in text and sys.executable in text)


# -- a terminal IPython -------------------------------------------------------------------
def test_terminal_ipython_prints_the_text_trace(isolated):
    cell = "%%gradtrace\n" + SEED + "\n\n" + "print('after', float(dy_dx))\n"
    done = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "--quick", "--colors=nocolor",
                           "--ext", "gradmagic"], input=cell, capture_output=True, text=True,
                          cwd=ROOT, timeout=TIMEOUT)
    out = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout)
    assert done.returncode == 0, done.stderr
    assert has_tokens(out, SEED_ROW)
    assert "gradmagic trace: 3 forward, 3 backward rows" in out
    assert "Out[1]: 1024.0" in out and "after 1024.0" in out
    assert "<div" not in out and "<gradmagic Trace" not in out
