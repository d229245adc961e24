"""Tracebacks that show the user's code: gradmagic's own frames left out.

An error raised inside the engine (a shape that does not fit, a ``grad_fn`` that returned
the wrong thing, a dialect's ``RuntimeError``) would otherwise show a page of gradmagic's
internals before the one line that matters. The faces (``%%gradtrace``, ``%gradtrace``,
``python -m gradmagic trace``) show the traceback of the code they ran with the frames of
files inside the gradmagic package taken out: what is left is the user's code, and the
libraries it called on its own (NumPy's frames stay). The error itself is unchanged.

``GRADMAGIC_TRACEBACK=full`` in the environment keeps every frame (in IPython,
``%xmode --show`` does too).

Warnings likewise point at the user's line: ``user_stacklevel()`` is the ``stacklevel`` of
the first frame outside the package, however many of gradmagic's own frames (a composite
function's, a trace's) lie between.
"""

import os
import sys
import types

PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
VARIABLE = "GRADMAGIC_TRACEBACK"  # "full": keep gradmagic's frames


def full_wanted() -> bool:
    """Whether the environment asks for every frame (``GRADMAGIC_TRACEBACK=full``)."""
    return os.environ.get(VARIABLE, "").strip().lower() == "full"


def _inside(frame):
    return os.path.abspath(frame.f_code.co_filename).startswith(PACKAGE)


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn``, called by the function that calls this, at
    which the warning points at the first frame outside gradmagic: the user's line."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and _inside(frame):
        frame, level = frame.f_back, level + 1
    return level


def _users(tb):
    """A copy of the traceback ``tb`` without gradmagic's frames (None when none is left)."""
    kept = []
    while tb is not None:
        if not _inside(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    out = None
    for t in reversed(kept):
        out = types.TracebackType(out, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return out


def user_traceback(error: BaseException, full: bool = False) -> BaseException:
    """``error``, its traceback (and those of the exceptions chained to it) without
    gradmagic's frames, unless ``full`` or ``GRADMAGIC_TRACEBACK=full``. A traceback made
    only of gradmagic's frames is kept whole: it is gradmagic's own failure."""
    if full or full_wanted():
        return error
    seen = set()
    todo = [error]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        tb = _users(e.__traceback__)
        if tb is not None:
            e.__traceback__ = tb
        todo += [e.__cause__, e.__context__]
    return error
