"""Views (``a[1:]``, ``view``, ``t()``, ``expand``, ``unsqueeze``, ``split`` ...) see their
base's in-place changes, and an in-place op on a view writes into its base, as PyTorch's
views share their base's memory.

gradmagic's in-place ops give a tensor a new array rather than write into the old one (the
arrays the graph saved stay as they were), so a view cannot share memory with its base.
Instead each view remembers how it was made from its base, and after an in-place change of
the base it is made again from the new values: a new version of the view, recorded as the
view's op on the new base where grad mode records the change (named ``AsStridedBackward0``,
as PyTorch names it then), and passed on unchanged where it does not (``no_grad``). Its old
version is kept for the ops that used it before, as for any in-place change. An in-place
op on a view writes its result into the base the way the view was made (into
``base[index]``; reshaped, or transposed back, over the whole base), and the base's change
then reaches the view in turn.
"""

from __future__ import annotations

import weakref

import numpy as np

from ..core import ops
from .modes import DUAL, GRAD, no_grad
from .values import named


def make_view(base, remake, write=None):
    """``remake(base)``, as a view of ``base``; ``write(base, new)``: how an in-place op that
    gives the view ``new`` writes it into the base (None: it cannot, an ``expand``'s)."""
    out = remake(base)
    out.view_of, out.remake, out.write = base, remake, write
    if base.views is None:
        base.views = {}  # id -> weak reference, each dropped when its view dies
    key = id(out)
    base.views[key] = weakref.ref(out, lambda _, k=key, views=base.views: views.pop(k, None))
    return out


# how a view of each kind writes into its base
def at(index):
    """``base[index]``'s (basic indexing)."""
    def write(base, new):
        base[index] = new
    return write


def piece_of(index, k, label):
    """Piece ``k`` of a ``split`` or ``chunk`` (``label``: its step's name): as ``base[index]``,
    refused where the graph records it, as PyTorch refuses to change in place one of several
    views a function returned."""
    def write(base, new):
        if GRAD.get() and (base.requires_grad or getattr(new, "requires_grad", False)):
            raise RuntimeError(
                f"Output {k} of {label.removesuffix('Backward0')} is a view and is being modified "
                "inplace. This view is the output of a function that returns multiple views. "
                "Such functions do not allow the output views to be modified inplace. You should "
                "replace the inplace operation by an out-of-place one.")
        base[index] = new
    return write


def reshaped(base, new):
    """The same elements in another shape (``view``, ``unsqueeze``, ``squeeze``)."""
    base.copy_(ops.reshape(new, base.value.shape))


def transposed(axes=None):
    """``transpose(base, axes)``'s (``t()``, ``.T``, ``permute``): the inverse transpose."""
    back = None if axes is None else tuple(int(i) for i in np.argsort(axes))
    return lambda base, new: base.copy_(ops.transpose(new, back))


def swapped(a, b):
    """``swapaxes(base, a, b)``'s (``transpose(a, b)``, ``.mT``): the same swap."""
    return lambda base, new: base.copy_(ops.swapaxes(new, a, b))


def after_change(t, new):
    """What follows an in-place change of ``t`` to ``new``'s value: at the dual level of
    forward AD, ``t``'s tangent is ``new``'s; the views of what shares its values are made
    again from them (``refresh_views``)."""
    level = DUAL[0]
    if level is not None:
        level.carry(new, t)
    refresh_views(t)


def refresh_views(t):
    """After an in-place change of ``t``: the live views of the tensors that share its values
    (``t``, its ``detach()`` and ``.data`` aliases, and their base) are made again from them,
    and so are the views of those views."""
    root = t if t.base is None else t.base
    if root.views is None and root.aliases is None:  # the commonest: nothing shares its values
        return
    for owner in [root] + [r() for r in root.aliases or ()]:
        for ref in list(owner.views.values()) if owner is not None and owner.views else ():
            view = ref()
            if view is None:
                continue
            if view.grad_fn is None and view.leaf_requires_grad:  # made a leaf of its own
                with no_grad():  # (requires_grad_()): its values change, as a constant's
                    view.unrecorded(view.remake(owner).value)
                refresh_views(view)
            else:  # (rebind, the step of every in-place change, gives it to the view's views)
                view.rebind(named(view.remake(owner), "AsStridedBackward0"))


def write_through(view, new):
    """An in-place op on ``view`` that gives it ``new``: written into its base, as PyTorch's
    view writes into its base's memory (``x[0] += 1``, ``x.t().add_(1)``), and the base's
    views, this one too, made again from it."""
    base = view.view_of
    if view.write is None:  # an expand's: several of its elements are one of the base's
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if GRAD.get() and base.grad_fn is None and base.leaf_requires_grad:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    view.write(base, new)
    return view


# -- for a check that runs the user's code again, and then puts back what it changed ---------
def state_of(t):
    """What an in-place change of ``t`` replaces: its value (never written into), its
    attributes (version, grad, graph, aliases), and what its node keeps of old versions."""
    node = t.grad_fn
    kept = None if node is None else (dict(node.kept or {}) or None, node.through)
    return t.value, dict(vars(t)), node, kept


def put_state(t, state):
    """Put back what ``state_of(t)`` saved."""
    t.value, attrs, node, kept = state
    vars(t).clear()
    vars(t).update(attrs)
    if node is not None:
        node.kept, node.through = kept


def sharing(t):
    """The tensors an in-place op on ``t`` can change too: its base and its live views
    and aliases."""
    refs = [*(getattr(t, "views", None) or {}).values(), *(t.aliases or ())]
    return [s for s in (getattr(t, "view_of", None), t.base, *(r() for r in refs)) if s is not None]
