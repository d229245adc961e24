"""Views (``a[1:]``, ``view``, ``t()``, ``expand``, ``unsqueeze``, ``split`` ...) see their
base's in-place changes, as PyTorch's views share their base's memory.

gradmagic's in-place ops give a tensor a new array rather than write into the old one (the
arrays the graph saved stay as they were), so a view cannot share memory with its base.
Instead each view remembers how it was made from its base, and after an in-place change of
the base it is made again from the new values: a new version of the view, recorded as the
view's op on the new base where grad mode records the change (named
``AsStridedBackward0``, as PyTorch names it then), and passed on unchanged where it does not (``no_grad``). Its old
version is kept for the ops that used it before, as for any in-place change.
"""

from __future__ import annotations

import weakref

from .modes import no_grad
from .values import named


def make_view(base, remake):
    """``remake(base)``, as a view of ``base``."""
    out = remake(base)
    out.view_of, out.remake = base, remake
    if base.views is None:
        base.views = {}  # id -> weak reference, each dropped when its view dies
    key = id(out)
    base.views[key] = weakref.ref(out, lambda _, k=key, views=base.views: views.pop(k, None))
    return out


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
            else:
                view.rebind(named(view.remake(owner), "AsStridedBackward0"))
            refresh_views(view)
