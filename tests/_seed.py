"""The seed's foo(foo(foo(x))) as a notebook cell, and the trace row that shows its chain
rule: what the magic and kernel tests run and look for; and a cell whose error is raised
inside the engine, for the tests of tracebacks."""

SEED = """\
import gradmagic as gm

@gm.custom_gradient
def foo(x):
    return x**2, lambda upstream: upstream * 2 * x

x = gm.constant(2.0)
with gm.GradientTape() as tape:
    tape.watch(x)
    y = foo(foo(foo(x)))
dy_dx = tape.gradient(y, x)
float(dy_dx)
"""

SEED_ROW = "3  foo   x=2   256  4  1024".split()

WRONG_SHAPE = """\
import numpy as np
import gradmagic as gm

@gm.custom_gradient
def total(x):
    return np.sum(x), lambda up: up                   # should be up * np.ones_like(x)

x = gm.constant(np.array([1.0, 2.0, 3.0]))
with gm.GradientTape() as tape:
    tape.watch(x)
    y = total(x)
tape.gradient(y, x)
"""
WRONG_SHAPE_LINE = 12  # the line of WRONG_SHAPE the traceback ends in


def has_tokens(text, tokens):
    """Whether some line of ``text`` is ``tokens``, whatever the spacing."""
    return any(line.split() == tokens for line in text.splitlines())
