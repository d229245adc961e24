"""The seed's foo(foo(foo(x))) as a notebook cell, and the trace row that shows its chain
rule: what the magic and kernel tests run and look for."""

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


def has_tokens(text, tokens):
    """Whether some line of ``text`` is ``tokens``, whatever the spacing."""
    return any(line.split() == tokens for line in text.splitlines())
