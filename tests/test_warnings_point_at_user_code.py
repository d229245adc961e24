"""A warning gradmagic gives the user points at the user's line (``tracebacks.user_stacklevel``),
whatever the frames of gradmagic's own between: a composite function's, a trace's."""

import warnings

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch
from gradmagic.tracebacks import user_stacklevel


def _watch_an_integer():
    with gm.GradientTape() as tape:
        tape.watch(gm.constant(np.arange(3)))


def _caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    assert seen, "no warning"
    return seen[0]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("name, call", [
    ("kl_div", lambda: torch.nn.functional.kl_div(torch.zeros(2), torch.ones(2))),  # a composite
    ("watch", lambda: _watch_an_integer()),
    ("polyfit", lambda: np.polyfit(gm.constant(np.ones(3)), np.ones(3), 2)),
    ("chain_matmul", lambda: torch.chain_matmul(torch.eye(2), torch.eye(2))),
])
def test_the_warning_names_this_file(name, call, traced):
    if traced:
        with gm.trace():
            w = _caught(call)
    else:
        w = _caught(call)
    assert w.filename == __file__, (name, w.filename, w.lineno)


def test_user_stacklevel_counts_only_gradmagics_frames():
    assert user_stacklevel() == 1  # called from outside gradmagic: the calling line itself
