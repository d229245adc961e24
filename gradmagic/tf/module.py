"""``tf.Module``: a class whose attributes hold Variables (and other Modules), found as
TensorFlow's basic guides read them (``model.variables``, ``model.trainable_variables``):
attributes in sorted order, into lists, tuples and dicts, then submodules, each Variable
once."""

import contextvars
import functools
import re

from ..core.nest import flatten
from ..core.tensor import Variable

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/>]*$")  # a name TensorFlow accepts


def _snake(name):
    """A class name in snake case, as TensorFlow names a Module: ``MLP`` is ``mlp``,
    ``RNNCell`` ``rnn_cell``, ``HTTPServer2Layer`` ``http_server2_layer``."""
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def _leaves(module, seen):
    """The values ``module`` holds, then its submodules', each once, as TensorFlow's
    ``_flatten_module`` walks them."""
    submodules = []
    for key in sorted(vars(module)):
        for leaf in flatten(vars(module)[key])[0]:
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            yield leaf
            if isinstance(leaf, Module):
                submodules.append(leaf)
    for sub in submodules:
        yield from _leaves(sub, seen)


class Module:
    """``tf.Module``: ``name``, ``variables``, ``trainable_variables``, ``submodules`` and a
    ``name_scope``: the scope it was made in, then its name (``'outer/dense/'``), which the
    methods decorated with ``tf.Module.with_name_scope`` enter (their Variables are named in
    it: ``'outer/dense/w:0'``)."""

    def __init__(self, name=None):
        if name is None:
            name = _snake(type(self).__name__)
        elif not _NAME.match(name):
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid "
                             "Python identifiers (e.g. a valid class name).")
        self._name = name
        self._scope = name_scope(f"{SCOPE.get()}{name}/")

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        return self._scope

    def _flat(self, predicate):
        return tuple(v for v in _leaves(self, {id(self)}) if predicate(v))

    @property
    def variables(self):
        return self._flat(lambda v: isinstance(v, Variable))

    @property
    def trainable_variables(self):
        return self._flat(lambda v: isinstance(v, Variable) and v.trainable)

    @property
    def non_trainable_variables(self):
        return self._flat(lambda v: isinstance(v, Variable) and not v.trainable)

    @property
    def submodules(self):
        return self._flat(lambda v: isinstance(v, Module))

    @classmethod
    def with_name_scope(cls, method):
        @functools.wraps(method)
        def scoped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return scoped


class name_scope:  # noqa: N801  (TensorFlow's name)
    """``tf.name_scope(name)``: a context that gives the scope's name (``'dense/'``, nested
    ``'dense/inner/'``; a name ending in ``/`` is the whole scope, ``''`` none), in which
    ``tf.Variable`` names its Variables (``'dense/w:0'``)."""

    def __init__(self, name):
        self.name = str(name)
        self.tokens = []  # one per entry: a Module's scope may be entered again inside itself

    def __enter__(self):
        name = self.name
        self.tokens.append(SCOPE.set(name if not name or name.endswith("/")
                                     else f"{SCOPE.get()}{name}/"))
        return SCOPE.get()

    def __exit__(self, *exc):
        SCOPE.reset(self.tokens.pop())
        return False


SCOPE = contextvars.ContextVar("gradmagic_tf_name_scope", default="")  # the scope entered, per thread
