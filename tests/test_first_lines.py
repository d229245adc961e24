"""What the first lines of pasted code meet: a dialect's import statements say what its
attribute access says (what the dialect covers and what it leaves out), where Python's own
words would be "cannot import name" or "No module named", which read like a broken install;
and ``print(tf.__version__)`` runs."""

import pytest
from packaging.version import Version

import gradmagic.jax as jax
import gradmagic.tf as tf
import gradmagic.torch as torch
from gradmagic.jax import platforms as jax_platforms

CASES = [
    ("from gradmagic.torch import func", r"gradmagic\.torch\.func does not exist.*out of scope.*torch\.func"),
    ("from gradmagic.torch.func import grad, vmap", r"gradmagic\.torch\.func does not exist"),
    ("import gradmagic.torch.optim", r"gradmagic\.torch\.optim does not exist.*optimizers"),
    ("from gradmagic.torch.nn import Linear", r"gradmagic\.torch\.nn\.Linear does not exist.*only functional"),
    ("from gradmagic.tf import keras", r"gradmagic\.tf\.keras does not exist.*not all of TensorFlow"),
    ("from gradmagic.tf.keras import layers", r"gradmagic\.tf\.keras does not exist"),
    ("from gradmagic.jax import pmap", r"gradmagic\.jax\.pmap does not exist.*out of scope: pmap"),
    ("from gradmagic.jax.scipy.stats import beta", r"gradmagic\.jax\.scipy\.stats\.beta does not exist: it maps norm"),
    ("from gradmagic.jax.scipy import optimize", r"gradmagic\.jax\.scipy\.optimize does not exist: it maps linalg"),
    ("from gradmagic.jax.experimental import ode", r"gradmagic\.jax\.experimental does not exist"),
]


@pytest.mark.parametrize("statement, message", CASES, ids=[c[0] for c in CASES])
def test_an_import_of_what_a_dialect_leaves_out_says_so(statement, message):
    with pytest.raises(ImportError, match=message) as caught:
        exec(statement, {})
    assert not isinstance(caught.value, ModuleNotFoundError)  # not "is it installed?"


def test_what_a_dialect_has_imports_and_attribute_access_is_unchanged():
    namespace = {}
    exec("from gradmagic.torch import nn, autograd\n"
         "from gradmagic.torch.autograd import Function\n"
         "from gradmagic.tf import math, GradientTape\n"
         "from gradmagic.jax.numpy import sin\n"
         "from gradmagic.jax import custom_vjp", namespace)
    assert namespace["Function"] is torch.autograd.Function and namespace["sin"] is jax.numpy.sin
    assert not hasattr(tf, "keras") and not hasattr(torch, "func") and not hasattr(jax, "pmap")


def test_outside_the_dialects_python_s_own_error_stands():
    with pytest.raises(ModuleNotFoundError, match="No module named 'gradmagic.nothing'"):
        exec("import gradmagic.nothing", {})
    with pytest.raises(ImportError, match="cannot import name 'nothing' from 'gradmagic.core'"):
        exec("from gradmagic.core import nothing", {})


@pytest.mark.parametrize("dialect, followed", [(tf, "2.21.0"), (torch, "2.13.0"), (jax, "0.10.2")],
                         ids=["tf", "torch", "jax"])
def test_a_dialect_s_version_is_the_framework_it_follows_marked_as_gradmagic_s(dialect, followed):
    version = Version(dialect.__version__)  # PEP 440, as version checks in user code parse it
    assert version.public == followed and version.local == "gradmagic"


# -- the device lines most programs start with, as a CPU-only install of each answers them --
def test_pytorch_s_device_line_picks_the_cpu():
    """Answers of PyTorch 2.13.0+cpu for the same calls."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert str(device) == "cpu" and torch.cuda.device_count() == 0
    assert not torch.accelerator.is_available() and torch.accelerator.current_accelerator() is None
    with pytest.raises(AttributeError, match=r"torch\.cuda\.memory_allocated does not exist.*gm\.set_backend"):
        torch.cuda.memory_allocated()
    # "Learning PyTorch with Examples": the accelerator's type, else "cpu", made the default
    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    torch.set_default_device(device)
    assert str(torch.get_default_device()) == "cpu"
    with pytest.raises(NotImplementedError, match=r"set_default_device\(device='cuda'\).*CPU only"):
        torch.set_default_device("cuda")


def test_tensorflow_s_device_lines_list_the_cpu_and_a_gpu_where_arrays_go(monkeypatch):
    """Reprs of TensorFlow 2.21.0 (CPU); a GPU is listed where gm.set_backend("cupy") puts
    arrays, as TensorFlow lists the GPU it places ops on."""
    assert tf.config.list_physical_devices("GPU") == []
    assert repr(tf.config.list_physical_devices()) == (
        "[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]")
    assert repr(tf.config.list_logical_devices("CPU")) == "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly()
    monkeypatch.setattr(tf.config, "get_backend", lambda: "cupy")
    gpus = tf.config.list_physical_devices("GPU")
    assert [g.name for g in gpus] == ["/physical_device:GPU:0"]
    for gpu in gpus:  # the loop TensorFlow's guide puts at the top of GPU programs
        tf.config.experimental.set_memory_growth(gpu, True)


def test_jax_s_device_lines_answer_as_jax_on_a_cpu(monkeypatch):
    """Reprs and message of JAX 0.10.2 (CPU)."""
    assert repr(jax.devices()) == "[CpuDevice(id=0)]" and jax.default_backend() == "cpu"
    assert jax.device_count() == jax.local_device_count() == 1
    with pytest.raises(RuntimeError, match=r"Unknown backend: 'gpu' requested, but no platforms "
                                           r"that are instances of gpu are present. Platforms present are: cpu"):
        jax.devices("gpu")
    monkeypatch.setattr(jax_platforms, "get_backend", lambda: "cupy")
    assert repr(jax.devices("gpu")) == "[CudaDevice(id=0)]" and jax.default_backend() == "gpu"


def test_pytorch_s_default_dtype_is_set_for_the_process_as_pytorch_s():
    """Printed as PyTorch 2.13.0 prints the same tensors."""
    assert torch.get_default_dtype() == torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        x = torch.tensor([1.0, 2.5], requires_grad=True)
        assert x.dtype == torch.randn(2).dtype == torch.full((2,), 1.5).dtype == torch.float64
        assert repr(x) == "tensor([1.0000, 2.5000], requires_grad=True)"  # no dtype: the default
        assert repr(torch.zeros(2, dtype=torch.float32)) == "tensor([0., 0.], dtype=torch.float32)"
        assert torch.tensor([1, 2]).dtype == torch.int64
        (x * 2.0).sum().backward()
        assert x.grad.dtype == torch.float64
        with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
            torch.set_default_dtype(torch.int64)
    finally:
        torch.set_default_dtype(torch.float32)
    assert repr(torch.tensor([1.0], dtype=torch.float64)) == "tensor([1.], dtype=torch.float64)"
