"""Importing gradmagic: no heavy or optional modules, and a public API that exists."""

import subprocess
import sys

import pytest

import gradmagic


def _modules_after_import():
    """The top-level module names in ``sys.modules`` after ``import gradmagic`` in a
    fresh interpreter."""
    code = ("import sys, gradmagic; "
            "print('\\n'.join(sorted({m.partition('.')[0] for m in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.fixture(scope="module")
def modules_after_import():
    return _modules_after_import()


def test_import_succeeds_in_fresh_interpreter(modules_after_import):
    assert "gradmagic" in modules_after_import
    assert "numpy" in modules_after_import


@pytest.mark.parametrize("module", ["IPython", "matplotlib", "cupy", "ipykernel", "array_api_strict"])
def test_import_does_not_import(module, modules_after_import):
    assert module not in modules_after_import


@pytest.mark.parametrize("name", gradmagic.__all__)
def test_all_names_exist(name):
    assert getattr(gradmagic, name) is not None


def test_all_has_no_duplicates():
    assert len(gradmagic.__all__) == len(set(gradmagic.__all__))


@pytest.mark.parametrize("name", [
    "Tensor", "Variable", "constant", "GradientTape", "stop_gradient", "grad",
    "value_and_grad", "jvp", "check_grad", "set_backend", "get_backend", "GradmagicError",
])
def test_all_names_the_core_api(name):
    assert name in gradmagic.__all__


def test_version_is_a_string():
    assert isinstance(gradmagic.__version__, str)
