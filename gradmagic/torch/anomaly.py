"""``torch.autograd.detect_anomaly`` and ``set_detect_anomaly``: while anomaly mode is on,
a backward pass raises at the first step that returns NaN, in PyTorch's words, and says
where gradmagic shows more (a trace names the step where the NaN was born, and why).
Anomaly mode is per thread, as PyTorch's."""

from __future__ import annotations

import contextvars
import warnings

from .._scans import has_nan
from ..core.context import Listener
from ..core.tensor import Tensor
from ..tracebacks import user_stacklevel
from .values import step_name

ANOMALY = contextvars.ContextVar("gradmagic_torch_anomaly", default=False)


class NanWatch(Listener):
    """Hears each backward step; raises where one returns NaN."""

    def on_backward_step(self, entry, g, downs, level):
        prim, args = entry[0], entry[1]
        k = -1
        for a, d in zip(args, downs):
            if not isinstance(a, Tensor):
                continue  # a number: no output of the step, in PyTorch's count
            k += 1
            if d is not None and has_nan(d.value if isinstance(d, Tensor) else d):
                raise RuntimeError(
                    f"Function '{step_name(prim)}' returned nan values in its {k}th output. "
                    "(Under gm.trace() or %%gradtrace, the trace names the step where the NaN "
                    "was born, and why.)")


WATCH = NanWatch()


def hooks_with_anomaly(hooks):
    """The listeners of a backward pass, with ``WATCH`` among them while anomaly mode is on."""
    return hooks + [WATCH] if ANOMALY.get() else hooks


def is_anomaly_enabled() -> bool:
    """``torch.is_anomaly_enabled()``."""
    return ANOMALY.get()


class set_detect_anomaly:
    """``torch.autograd.set_detect_anomaly(mode)``: sets anomaly mode now, and, used as a
    ``with`` block, puts it back after."""

    def __init__(self, mode: bool, check_nan: bool = True):
        self.prev = ANOMALY.get()
        ANOMALY.set(bool(mode) and bool(check_nan))

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        ANOMALY.set(self.prev)
        return False


class detect_anomaly:
    """``torch.autograd.detect_anomaly()``: anomaly mode on in a ``with`` block, or in a
    decorated function, with PyTorch's warning that it slows the program."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=user_stacklevel())
        self.token = ANOMALY.set(bool(self.check_nan))

    def __exit__(self, *exc):
        ANOMALY.reset(self.token)
        return False

    def __call__(self, fn):
        def run(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return fn(*args, **kwargs)
        return run
