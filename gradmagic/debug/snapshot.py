"""What user code can change, saved before a check runs it again and put back after.

A check that calls a forward function or a ``grad_fn`` again must leave the program as it
found it. ``Snapshot`` saves what that code can reach and change: Variables and a
dialect's tensors (what an in-place change replaces: ``state()``, ``put_state()``), random
generators (NumPy's ``Generator`` and ``RandomState``, NumPy's global state, Python's
``random``), the globals and closure cells it names, and the contents of the lists,
dicts, sets, arrays and objects reachable from them, from its arguments and from its bound
object; ``restore`` puts every one back. What cannot be put back (a file written, a
process started) is named by ``Snapshot.unsafe``: then the check says it did not run,
rather than running it.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import io
import logging
import random
import types
import warnings

import numpy as np

from ..core.context import RANDOM_SOURCES, paused
from ..core.tensor import Tensor

DEPTH = 3  # how far from the code's names, arguments and bound object values are followed
LIMIT = 5000  # values followed at most; past that the snapshot is incomplete: unsafe
BIG = 10_000_000  # an array of more elements than this is not copied: unsafe to re-run
# names of calls whose effects live outside the process: a re-run would repeat them
OUTSIDE = {"open", "write", "writelines", "savez", "savez_compressed", "savetxt", "tofile",
           "save", "system", "popen", "unlink", "rmtree", "rmdir", "mkdir", "makedirs",
           "rename", "send", "sendall", "urlopen", "exec", "Popen"}
METHODS = (types.FunctionType, staticmethod, classmethod, property)
SKIP = (type, types.ModuleType, types.BuiltinFunctionType, str, bytes, int, float, complex,
        bool, type(None), np.dtype, np.generic)


def code_of(fn):
    """The code object behind a function, method, partial or decorated function; None."""
    for _ in range(8):
        if isinstance(fn, functools.partial):
            fn = fn.func
        elif isinstance(fn, (staticmethod, classmethod)):
            fn = fn.__func__
        elif isinstance(fn, types.MethodType):
            fn = fn.__func__
        elif hasattr(fn, "__wrapped__") and not isinstance(fn, types.FunctionType):
            fn = fn.__wrapped__
        else:
            break
    return fn if isinstance(fn, types.FunctionType) else None


def _codes(code):
    """``code`` and the code of the functions and lambdas defined inside it."""
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _codes(c)
    return out


def _own(fn):
    """Whether ``fn`` is the user's (not gradmagic's, NumPy's or the standard library's)."""
    module = getattr(fn, "__module__", "") or ""
    return not module.startswith(("gradmagic", "numpy", "cupy", "builtins", "functools"))


class Snapshot:
    """The state that ``functions`` (and ``values``: arguments, a bound object) can reach,
    saved now; ``restore()`` puts it back. Use as a context: restored on exit."""

    def __init__(self, functions=(), values=()):
        self._saved = []  # (restore function, argument)
        self._seen = set()
        self.unsafe = []  # what a re-run would do that cannot be undone, in words
        self.names = set()  # the names the code uses (attributes and globals)
        self._save(np.random.set_state, np.random.get_state())
        self._save(random.setstate, random.getstate())
        for source in RANDOM_SOURCES:
            self._save(source.put_state, source.state())
        todo = [(v, 0) for v in values]
        for fn in functions:
            todo += self._function(fn)
        while todo:
            value, depth = todo.pop()
            todo += self._value(value, depth)
            if len(self._seen) > LIMIT:
                self.unsafe.append(f"it reaches more than {LIMIT} values")
                break
        outside = sorted(self.names & OUTSIDE)
        if outside:
            self.unsafe.append("it calls " + ", ".join(outside))

    def _save(self, put, value):
        self._saved.append((put, value))

    def _function(self, fn, depth=0):
        """The globals, closure cells and defaults ``fn`` names, as values to follow."""
        if isinstance(fn, type):  # a class (a PyTorch Function): its methods and attributes
            self._class(fn)
            return [(v, depth) for v in vars(fn).values()] + [(fn, depth)]
        f = code_of(fn)
        if f is None or id(f) in self._seen:
            return []
        self._seen.add(id(f))
        out = [(getattr(fn, "__self__", None), depth + 1)] if isinstance(fn, types.MethodType) else []
        g = f.__globals__
        for code in _codes(f.__code__):
            self.names.update(code.co_names)
            for name in code.co_names:
                if name in g:
                    self._save(functools.partial(_put_global, g, name), g[name])
                    out.append((g[name], depth + 1))
        for cell in f.__closure__ or ():
            try:
                contents = cell.cell_contents
            except ValueError:
                continue
            self._save(functools.partial(setattr, cell, "cell_contents"), contents)
            out.append((contents, depth + 1))
        out += [(d, depth + 1) for d in (f.__defaults__ or ())]
        out += [(d, depth + 1) for d in (f.__kwdefaults__ or {}).values()]
        return out

    def _class(self, cls):
        """The values a class of the user's keeps (a counter: ``Quant.calls += 1``)."""
        if _own(cls) and ("class", cls) not in self._seen:
            self._seen.add(("class", cls))
            for name, v in vars(cls).items():
                if not name.startswith("__") and not isinstance(v, METHODS):
                    self._save(functools.partial(setattr, cls, name), v)

    def _value(self, v, depth):
        """Save ``v``'s mutable state; the values inside it, to follow."""
        if isinstance(v, type) and depth <= DEPTH:
            self._class(v)
        if depth > DEPTH or isinstance(v, SKIP) or id(v) in self._seen:
            return []
        self._seen.add(id(v))
        if isinstance(v, Tensor) and v.mutable:  # a Variable, a gradmagic.torch tensor: what an
            self._save(v.put_state, v.state())  # in-place change replaces, and the tensors
            return [(t, depth) for t in v.sharing()]  # such a change reaches through it
        if isinstance(v, Tensor):
            return []
        if hasattr(type(v), "put_state") and hasattr(type(v), "state"):  # a torch.Generator
            self._save(v.put_state, v.state())
            return []
        if isinstance(v, random.Random):
            self._save(v.setstate, v.getstate())
            return []
        if isinstance(v, np.random.Generator):
            self._save(functools.partial(setattr, v.bit_generator, "state"), v.bit_generator.state)
            return []
        if isinstance(v, np.random.RandomState):
            self._save(v.set_state, v.get_state())
            return []
        if isinstance(v, (types.FunctionType, types.MethodType, functools.partial, staticmethod,
                          classmethod)):
            return self._function(v, depth) if _own(code_of(v) or v) else []
        if isinstance(v, np.ndarray):
            if v.flags.writeable:
                if v.size > BIG:
                    self.unsafe.append(f"it can reach an array of {v.size} elements")
                else:
                    self._save(functools.partial(np.copyto, v), v.copy())
            return []
        if isinstance(v, list):
            self._save(functools.partial(_put_list, v), list(v))
            return [(x, depth + 1) for x in v]
        if isinstance(v, dict):
            self._save(functools.partial(_put_dict, v), dict(v))
            return [(x, depth + 1) for x in v.values()]
        if isinstance(v, (set, collections.deque)):
            self._save(functools.partial(_put_set, v), list(v))
            return [(x, depth + 1) for x in v] if isinstance(v, collections.deque) else []
        if isinstance(v, tuple):
            return [(x, depth + 1) for x in v]
        state = getattr(v, "__dict__", None)
        if isinstance(state, dict) and _own(type(v)):
            self._save(functools.partial(_put_dict, state), dict(state))
            return [(x, depth + 1) for x in state.values()]
        return []

    def restore(self):
        """Put every saved value back (the last saved first)."""
        for put, value in reversed(self._saved):
            put(value)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.restore()
        return False


def _put_global(namespace, name, value):
    if namespace.get(name, _put_global) is not value:
        namespace[name] = value


def _put_list(target, items):
    if len(target) != len(items) or any(a is not b for a, b in zip(target, items)):
        target[:] = items


def _put_dict(target, items):
    if target != items or any(target[k] is not v for k, v in items.items()):
        target.clear()
        target.update(items)


def _put_set(target, items):
    """A set's or a deque's items back."""
    target.clear()
    (target.extend if isinstance(target, collections.deque) else target.update)(items)


def quietly(fn, *args, errors="ignore"):
    """``fn(*args)`` with nothing recorded, printed or warned, and NumPy's floating-point
    errors ignored (``errors="raise"``: raised); an exception is returned, not raised."""
    muted = logging.root.manager.disable  # (a logging handler keeps the stream it was given)
    try:
        with paused(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings(), \
                np.errstate(all=errors):
            warnings.simplefilter("ignore")
            logging.disable(logging.CRITICAL)
            return fn(*args)
    except Exception as e:
        return e
    finally:
        logging.disable(muted)
