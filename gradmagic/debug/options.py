"""The trace options, declared once: ``gm.trace``, ``%%gradtrace`` and ``python -m
gradmagic trace`` all take their names, limits, defaults, help and messages from here.
"""

from __future__ import annotations

import argparse

from ..errors import GradientTypeError


class Flag:
    """An on/off option: ``--name`` in a command line."""

    default = False

    def __init__(self, name: str, help: str):
        self.name, self.help = name, help

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def argument(self) -> tuple[tuple, dict]:
        """``(args, kwargs)`` for argparse's ``add_argument`` (and IPython's ``argument``)."""
        return (self.flag,), {"action": "store_true", "help": self.help}

    def check(self, value, fn: str = "trace") -> bool:
        return bool(value)


class IntRange:
    """An int option in ``[low, high]`` (``high`` None: no upper limit)."""

    def __init__(self, name: str, low: int, high: int | None, default: int, help: str,
                 metavar: str):
        self.name, self.low, self.high, self.default = name, low, high, default
        self.help, self.metavar = help, metavar

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def expected(self) -> str:
        if self.high is None:
            return f"an int of at least {self.low}"
        return f"an int from {self.low} to {self.high}"

    def check(self, value, fn: str = "trace") -> int:
        """``value`` when it is in range, else a ``GradientTypeError`` naming ``fn``."""
        if (not isinstance(value, int) or isinstance(value, bool) or value < self.low
                or (self.high is not None and value > self.high)):
            raise GradientTypeError(f"{fn}({self.name}={value!r}): expected {self.expected}")
        return value

    def parse(self, text: str) -> int:
        """An argparse type: the message says what is expected."""
        try:
            n = int(text)
        except ValueError:
            n = None
        if n is None or n < self.low or (self.high is not None and n > self.high):
            raise argparse.ArgumentTypeError(f"expected {self.expected}, got {text!r}")
        return n

    def argument(self) -> tuple[tuple, dict]:
        """``(args, kwargs)`` for argparse's ``add_argument``; unset, the value is None (the
        default is the trace's)."""
        return (self.flag,), {"type": self.parse, "metavar": self.metavar,
                              "help": f"{self.help} (default {self.default})"}


OPS = Flag("ops", "one row per primitive op, not one per user-level function")
CHECK = Flag("check", "also check each custom gradient against the derivative of its recorded "
                      "body, once per function and input shape (a training loop in one trace "
                      "runs about 1.5 to 3 times slower); the program is left as it was")
MAX_ROWS = IntRange("max_rows", 2, None, 50, "rows kept per section, first and last", "N")
PRECISION = IntRange("precision", 1, 17, 4, "significant digits shown", "P")
OPTIONS = (OPS, CHECK, MAX_ROWS, PRECISION)


def trace_kwargs(parsed) -> dict:
    """The options an argparse result gives, as keyword arguments of ``gm.trace`` (those
    left unset are left out, so the trace's defaults apply)."""
    out = {}
    for option in OPTIONS:
        value = getattr(parsed, option.name, None)
        if value is not None:
            out[option.name] = value
    return out
