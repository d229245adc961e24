"""The least tape: the smallest reverse-mode tape that runs W2's code as a NumPy user writes
it, and, with the least ``custom_gradient``, W5's (the seed's) as a TensorFlow user writes it.

``np.exp(np.tanh(y) * c) + x`` on its values goes through NumPy's ``__array_ufunc__`` and
Python's operators, as on gradmagic's Tensors; each op appends one entry (its rule, its
arguments and their arrays, its output) to one list; the walk pops each output's gradient,
runs the rule for each argument that came from the source, and adds where two meet.

It does nothing else, and that is what makes it the least: no Variables watched on use, no
nested tapes or listeners, no backward pass recorded (so no higher order), no shapes checked
or unbroadcast, no array modules told apart, no dialect classes, no freeing as it walks. Its
time is what W2's target is up against; the gap between it and gradmagic is what those
features cost per op.
"""

import numpy as np

_new = object.__new__


class Value:
    """An array the least tape follows."""

    __slots__ = ("value",)
    __array_priority__ = 1000

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if len(inputs) == 2:  # a NumPy number times a Value: W5's grad_fn, in the backward pass
            return self * (inputs[0] if inputs[1] is self else inputs[1])
        x = self.value
        out = _new(Value)
        out.value = ufunc(x)
        TAPE.append((UNARY[ufunc], (self,), (x,), out))
        return out

    def __mul__(self, c):  # by a number, as W2 multiplies
        out = _new(Value)
        out.value = self.value * c
        TAPE.append((MUL_BY_NUMBER, (self, c), (self.value, c), out))
        return out

    __rmul__ = __mul__

    def __pow__(self, p):  # by a number, as W5's foo squares
        out = _new(Value)
        out.value = self.value ** p
        TAPE.append((POW_BY_NUMBER, (self, p), (self.value, p), out))
        return out

    def __add__(self, other):
        out = _new(Value)
        out.value = self.value + other.value
        TAPE.append((ADD, (self, other), (self.value, other.value), out))
        return out


TAPE = []  # (rules, arguments, their arrays, output): one entry per op
UNARY = {np.tanh: (lambda g, ans, x: g * (1 - ans * ans),),
         np.exp: (lambda g, ans, x: g * ans,)}
MUL_BY_NUMBER = (lambda g, ans, a, c: g * c, None)
POW_BY_NUMBER = (lambda g, ans, a, p: g * p * a ** (p - 1), None)
ADD = (lambda g, ans, a, b: g, lambda g, ans, a, b: g)


def gradient(y, x):
    """d sum(y) / dx over what ``TAPE`` recorded since it was cleared."""
    followed = {id(x)} | {id(entry[3]) for entry in TAPE}
    grads = {id(y): np.ones_like(y.value)}
    pop, get = grads.pop, grads.get
    for rules, args, vals, out in reversed(TAPE):
        g = pop(id(out), None)
        if g is None:
            continue
        ans = out.value
        for rule, a in zip(rules, args):
            if rule is not None and id(a) in followed:
                c = rule(g, ans, *vals)
                prev = get(id(a))
                grads[id(a)] = c if prev is None else prev + c
    TAPE.clear()
    return grads[id(x)]


def w2_any_tape(x0, chain, c):
    """W2 (``chain`` ops, ``c`` its constant) on the least tape: its value and the
    gradient of its sum."""
    TAPE.clear()
    x = _new(Value)
    x.value = x0
    y = x
    for _ in range(chain // 4):
        y = np.exp(np.tanh(y) * c) + x
    return y.value.sum(), gradient(y, x)


# -- W5: the seed's foo(foo(foo(x))) with its custom gradient ---------------------------------
def custom_gradient(f):
    """The least ``custom_gradient``: the body runs (its ops recorded, as TensorFlow records
    them), its output becomes a new value recorded as one op whose rule is ``grad_fn``; no
    check of what ``grad_fn`` returns, no Variables, no nesting."""
    def call(x):
        y, grad_fn = f(x)
        out = _new(Value)
        out.value = y.value
        TAPE.append(((lambda g, ans, xv: grad_fn(g).value,), (x,), (x.value,), out))
        return out
    return call


@custom_gradient
def foo(x):  # the seed's own code
    def grad_fn(upstream):
        return upstream * 2 * x
    return x ** 2, grad_fn


def w5_any_tape(x0):
    """W5 on the least tape: foo(foo(foo(x))) at a float32 x0, its value and gradient."""
    TAPE.clear()
    x = _new(Value)
    x.value = np.array(x0, np.float32)
    y = foo(foo(foo(x)))
    return y.value, gradient(y, x)
