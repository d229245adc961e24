"""A dialect's import statements say what its attribute access says: what the dialect
covers and what it leaves out, where Python's own words would be "cannot import name" or
"No module named", which read like a broken install."""

import pytest

import gradmagic.jax as jax
import gradmagic.tf as tf
import gradmagic.torch as torch

CASES = [
    ("from gradmagic.torch import func", r"gradmagic\.torch\.func does not exist.*out of scope.*torch\.func"),
    ("from gradmagic.torch.func import grad, vmap", r"gradmagic\.torch\.func does not exist"),
    ("import gradmagic.torch.optim", r"gradmagic\.torch\.optim does not exist.*optimizers"),
    ("from gradmagic.torch.nn import Linear", r"gradmagic\.torch\.nn\.Linear does not exist.*only functional"),
    ("from gradmagic.tf import keras", r"gradmagic\.tf\.keras does not exist.*not all of TensorFlow"),
    ("from gradmagic.tf.keras import layers", r"gradmagic\.tf\.keras does not exist"),
    ("from gradmagic.jax import pmap", r"gradmagic\.jax\.pmap does not exist.*out of scope: pmap"),
    ("from gradmagic.jax.scipy.special import logsumexp", r"gradmagic\.jax\.scipy does not exist"),
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
