"""What a dialect leaves out, said at the import statement as well as on the attribute.

A dialect answers ``tf.keras`` with an AttributeError that says what it covers and what
it leaves out (its module's ``__getattr__``). Python's import statements drop that message:
``from gradmagic.tf import keras`` ends in "cannot import name 'keras'", and
``from gradmagic.torch.func import grad`` in "No module named 'gradmagic.torch.func'",
which reads like a broken install. ``OutOfScope``, last on ``sys.meta_path``, is asked only
for a module that no other finder found; under a dialect's module that answers missing
names itself, it raises ImportError in that module's own words. Attribute access is
untouched (``hasattr(tf, "keras")`` is still False).
"""

import importlib.abc
import sys

DIALECTS = ("gradmagic.tf.", "gradmagic.torch.", "gradmagic.jax.")


class OutOfScope(importlib.abc.MetaPathFinder):
    """Turns "no module named gradmagic.<dialect>..." into the dialect's own message."""

    def find_spec(self, fullname, path=None, target=None):
        parent, _, child = fullname.rpartition(".")
        module = sys.modules.get(parent)
        if module is None or not fullname.startswith(DIALECTS) or "__getattr__" not in vars(module):
            return None
        try:
            getattr(module, child)
        except AttributeError as e:  # an ImportError, not ModuleNotFoundError, which
            # ``from package import name`` would swallow for its generic message
            raise ImportError(str(e), name=fullname) from None
        return None  # a name the module has (not a module): the import system says so


def install():
    """Put ``OutOfScope`` last on ``sys.meta_path``, once."""
    if not any(isinstance(f, OutOfScope) for f in sys.meta_path):
        sys.meta_path.append(OutOfScope())
