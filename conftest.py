from collections import Counter

import numpy as np
import pytest

import gradmagic as gm


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    doctest_namespace.update(gm=gm, np=np)


@pytest.fixture
def x64():
    """gradmagic.jax with ``jax_enable_x64`` for one test: float64, whose finite differences
    are fine enough for second order (float32's are too coarse)."""
    import gradmagic.jax as jax
    jax.config.update("jax_enable_x64", True)
    try:
        yield
    finally:
        jax.config.update("jax_enable_x64", False)


def pytest_terminal_summary(terminalreporter):
    """One line above the counts that says why the CuPy tests were skipped (``-rs`` lists
    each skipped test)."""
    reasons = Counter(str(r.longrepr[2]).removeprefix("Skipped: ")
                      for r in terminalreporter.stats.get("skipped", [])
                      if "cupy" in r.keywords and isinstance(r.longrepr, tuple))
    if reasons:
        n = sum(reasons.values())
        terminalreporter.write_line(f"{n} CuPy test{'s' * (n != 1)} skipped: "
                                    + "; ".join(reason for reason, _ in reasons.most_common()))
