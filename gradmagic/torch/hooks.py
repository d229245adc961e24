"""``Tensor.register_hook``: functions of a tensor's gradient, run where PyTorch runs them.

A hook on a tensor that an op made runs when the walk reaches that op, on the tensor's
whole gradient (every use summed), and what it returns replaces that gradient from there
on, ``.grad`` of a tensor that retains it included. The walk is given one more entry for
it, walked just before that op's: a ``hook`` op from the tensor to itself, whose rule runs
the hooks in the order they were registered and hands the result back to the tensor (the
op's rule then reads the tensor itself, so a ``create_graph`` pass records from it). A
hook on a leaf runs on the leaf's gradient at the end of the walk, before ``.grad``
accumulates it or ``autograd.grad`` returns it. With ``create_graph=True`` the hooks get
tensors the graph follows, so a hook's own arithmetic is differentiated too.

A node's hooks (``grad_fn.register_prehook``, ``register_hook``) run the same way, as two
more entries around the node's own: a ``node_prehooks`` entry from its outputs to
themselves, whose rule runs the pre-hooks on ``grad_outputs``, and a ``node_hooks`` entry
from its inputs to stand-ins for them (the node's entry gives its gradients to those),
whose rule runs the hooks on ``grad_inputs`` (one per input PyTorch lists, None where none
flows) and ``grad_outputs``. The walk makes the stand-ins (``link``): each is an identity of
its input, so that what a ``create_graph`` pass records from one (the node's own rule) leads
back to the input, as PyTorch's does.
"""

from __future__ import annotations

import itertools

from ..core.primitive import Primitive, defvjp, variadic
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


def keep_hooks(tensor, node, i):
    """An in-place op recorded in grad mode is about to change ``tensor``, output ``i`` of
    ``node``: the hooks registered on it so far go with the old version, as PyTorch's (they
    get the gradient of the value ``node`` made, after the hooks registered since, which
    get the new version's). They are put on the stand-in the walk uses for that version."""
    stand = node.standins.get(i) if node.standins else None
    if stand is None:
        stand = type(tensor).__new__(type(tensor))
        stand.value, stand.stands_for, stand.grad_fn = tensor.value, tensor, node
        node.standins = {**(node.standins or {}), i: stand}
    if stand.backward_hooks:
        stand.backward_hooks.update(tensor.backward_hooks)
    else:
        stand.backward_hooks = tensor.backward_hooks  # the same dict: a handle still removes
    tensor.backward_hooks = None


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
    """``entries`` with a ``hook`` entry after each op whose output has hooks (a step from
    the output to itself, walked first); ``seen`` collects each such output's gradient after
    its hooks."""
    out = []
    for entry in entries:
        out.append(entry)
        o = entry[3]
        for t in o if type(o) is tuple else (o,):
            if getattr(t, "backward_hooks", None):
                out.append((HOOK, (t,), (t.value,), t, {"tensor": t, "seen": seen}))
    return out


# -- a node's hooks ----------------------------------------------------------------------------
def register_node_hook(node, when, hook):
    """``hook`` on ``node``, run ``when`` ("pre": on its ``grad_outputs``; "post": on its
    ``grad_inputs`` and ``grad_outputs``) as PyTorch runs a node's hooks."""
    if not callable(hook):
        raise TypeError(f"register_{'pre' if when == 'pre' else ''}hook(hook): expected a function, "
                        f"got {type(hook).__name__}")
    if node.node_hooks is None:
        node.node_hooks = {"pre": {}, "post": {}}
    key = next(_keys)
    node.node_hooks[when][key] = hook
    LIVE[0] += 1
    return RemovableHandle(node.node_hooks[when], key)


def _as_tensors(gs, like, recording):
    """Gradients as the tensors a hook gets (a raw array wrapped in ``like``'s class)."""
    cls = type(like)
    out = []
    for g in gs:
        if g is None or isinstance(g, cls):
            out.append(g)
            continue
        t = cls.__new__(cls)
        t.value = g.value if recording else g
        out.append(t)
    return out


def _replaced(hook, given, returned, what):
    """What a hook returned in place of ``given`` (a list): itself where it returned None."""
    if returned is None:
        return given
    returned = list(returned) if isinstance(returned, (tuple, list)) else [returned]
    if len(returned) != len(given):
        raise RuntimeError(f"hook '{_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(returned)}, but expected {len(given)})")
    return returned


def _back(gs, recording):
    return [g if g is None or recording else g.value for g in gs]


def _pre_rule(i, g, ans, *vals, node=None, like=None, seen=None, **_):
    """Output ``i``'s gradient after the node's pre-hooks (run once for all of them)."""
    if "pre" not in seen:
        recording = isinstance(g[0], CoreTensor)
        outputs = _as_tensors(g, like, recording)
        for hook in list(node.node_hooks["pre"].values()):
            outputs = _replaced(hook, outputs, hook(tuple(outputs)), "grad_outputs")
        seen["grad_outputs"], seen["pre"] = tuple(outputs), _back(outputs, recording)
    return seen["pre"][i]


def _post_rule(i, g, ans, *vals, node=None, like=None, seen=None, slots=(), flowing=(), **_):
    """Input ``i``'s gradient after the node's hooks (run once for all of them)."""
    if "post" not in seen:
        recording = isinstance(g[0], CoreTensor)
        given = iter(_as_tensors(g, like, recording))
        inputs = [None if k is None or k not in flowing else next(given) for k in slots]
        for hook in list(node.node_hooks["post"].values()):
            inputs = _replaced(hook, inputs, hook(tuple(inputs), seen.get("grad_outputs", ())),
                               "grad_inputs")
        kept = [inputs[j] for j, k in enumerate(slots) if k is not None and k in flowing]
        seen["post"] = _back(kept, recording)
    return seen["post"][i]


NODE_PRE = Primitive("node_prehooks", lambda xp, *x, **params: x)
defvjp(NODE_PRE, variadic(_pre_rule), labels=("your node's pre-hooks",))
NODE_POST = Primitive("node_hooks", lambda xp, *x, **params: x)
defvjp(NODE_POST, variadic(_post_rule), labels=("your node's hooks",))


def _stand_in(t, ids, link):
    stand = type(t).__new__(type(t))
    stand.value, stand.stands_for = t.value, t  # a trace shows it by t's name
    link(stand, t)
    ids.add(id(stand))
    return stand


def with_node_hooks(entry, node, ids, link):
    """The entries that run ``node``'s hooks around its own ``entry``, in the walk's order
    (it walks them last to first): the post-hooks' entry (from its inputs to stand-ins for
    them), the node's (to the stand-ins), the pre-hooks' (from its outputs to themselves).
    ``link(stand_in, input)`` records each stand-in as made from its input."""
    prim, args, vals, out, params = entry
    outs = out if type(out) is tuple else (out,)
    like = outs[0]
    seen = {}  # what the pre-hooks passed on: the post-hooks' grad_outputs
    slots = node.operands()
    flowing = [k for k in slots if k is not None and id(args[k]) in ids]
    stand_args = list(args)
    for k in flowing:
        stand_args[k] = _stand_in(args[k], ids, link)
    own = (prim, tuple(stand_args), vals, out, params)
    shared = {"node": node, "like": like, "seen": seen}  # (one dict: the two entries' rules share it)
    pre = (NODE_PRE, outs, tuple(o.value for o in outs), outs, shared)  # outputs to themselves
    if not flowing:
        return [own, pre]
    post = (NODE_POST, tuple(args[k] for k in flowing), tuple(args[k].value for k in flowing),
            tuple(stand_args[k] for k in flowing), {**shared, "slots": slots, "flowing": set(flowing)})
    return [post, own, pre]
