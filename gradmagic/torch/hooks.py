"""``Tensor.register_hook``: functions of a tensor's gradient, run where PyTorch runs them.

A hook on a tensor that an op made runs when the walk reaches that op, on the tensor's
whole gradient (every use summed), and what it returns replaces that gradient from there
on, ``.grad`` of a tensor that retains it included. The walk is given one more entry for
it: a ``hook`` op from a stand-in for the tensor (which the op that made it outputs in the
walk) to the tensor itself, whose rule runs the hooks in the order they were registered. A
hook on a leaf runs on the leaf's gradient at the end of the walk, before ``.grad``
accumulates it or ``autograd.grad`` returns it. With ``create_graph=True`` the hooks get
tensors the graph follows, so a hook's own arithmetic is differentiated too.
"""

from __future__ import annotations

import itertools

from ..core.primitive import Primitive, defvjp
from ..core.tensor import Tensor as CoreTensor

LIVE = [0]  # hooks registered and not removed: walks look for hooked tensors only when some are
_keys = itertools.count()


class RemovableHandle:
    """What ``register_hook`` returns: ``remove()`` takes the hook off its tensor."""

    def __init__(self, hooks, key, counted=True):
        self.hooks, self.id, self.counted = hooks, key, counted  # counted: in LIVE

    def remove(self):
        if self.hooks.pop(self.id, None) is not None and self.counted:
            LIVE[0] -= 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register(tensor, hook):
    """``tensor.register_hook(hook)``: ``hook(grad)`` returns None or the gradient to use."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not callable(hook):
        raise TypeError(f"register_hook(hook): expected a function of the gradient, got "
                        f"{type(hook).__name__}")
    if tensor.backward_hooks is None:
        tensor.backward_hooks = {}
    key = next(_keys)
    tensor.backward_hooks[key] = hook
    LIVE[0] += 1
    return RemovableHandle(tensor.backward_hooks, key)


def register_post_accumulate(tensor, hook):
    """``tensor.register_post_accumulate_grad_hook(hook)``: ``hook(tensor)`` runs after
    ``backward`` accumulates the leaf's ``.grad`` (``autograd.grad`` sets none, so runs none)."""
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if tensor.post_accumulate_hooks is None:
        tensor.post_accumulate_hooks = {}
    key = next(_keys)
    tensor.post_accumulate_hooks[key] = hook
    return RemovableHandle(tensor.post_accumulate_hooks, key, counted=False)


def run_post_accumulate(tensor):
    """Each of ``tensor``'s post-accumulate hooks, in the order they were registered."""
    for hook in list(tensor.post_accumulate_hooks.values()):
        if hook(tensor) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def run(tensor, g):
    """``g``, the gradient of ``tensor`` (a raw array, or a tensor when the walk records),
    after each of its hooks, in order; as it came in (raw or tensor)."""
    recording = isinstance(g, CoreTensor)
    cls = type(tensor)
    if isinstance(g, cls):
        t = g
    else:  # a raw gradient, or the engine's plain Tensor of one (a constant to the graph)
        t = cls.__new__(cls)
        t.value = g.value if recording else g
    for hook in list(tensor.backward_hooks.values()):
        r = hook(t)
        if r is None:
            continue
        if not isinstance(r, CoreTensor):
            raise TypeError(f"hook {_name(hook)!r} returned {type(r).__name__}; a hook returns a "
                            "Tensor of the gradient's shape, or None to leave it")
        if tuple(r.shape) != tuple(t.shape):
            raise RuntimeError(f"hook {_name(hook)!r} has changed the size of value")
        t = r
    return t if recording else t.value


def _name(hook):
    return getattr(hook, "__name__", type(hook).__name__)


def _hooks_rule(g, ans, x, tensor=None, seen=None):
    out = run(tensor, g)
    seen[id(tensor)] = out  # its gradient after the hooks, for .grad where it retains it
    return out


HOOK = Primitive("hook", lambda xp, x, tensor=None, seen=None: x)
defvjp(HOOK, _hooks_rule, labels=("your hooks",))


def with_hooks(entries, ids, seen):
    """``entries`` with a ``hook`` entry after each op whose output has hooks; ``seen``
    collects each such output's gradient after its hooks."""
    out = []
    for entry in entries:
        prim, args, vals, o, params = entry
        outs = o if type(o) is tuple else (o,)
        if not any(getattr(t, "backward_hooks", None) for t in outs):
            out.append(entry)
            continue
        pairs, new = [], []
        for t in outs:
            if getattr(t, "backward_hooks", None):
                stand = type(t).__new__(type(t))
                stand.value, stand.stands_for = t.value, t  # a trace shows it by t's name
                ids.add(id(stand))
                pairs.append((stand, t))
                t = stand
            new.append(t)
        out.append((prim, args, vals, tuple(new) if type(o) is tuple else new[0], params))
        for stand, t in pairs:
            out.append((HOOK, (stand,), (stand.value,), t, {"tensor": t, "seen": seen}))
    return out
