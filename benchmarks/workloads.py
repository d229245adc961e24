"""The workloads, each written once per contender, and their correctness check.

Every contender function returns ``(value, gradients)``: ``value`` a scalar (or None
when the workload has no value to compare) and ``gradients`` an array or a list of
arrays. ``check`` compares a contender with the hand-written NumPy floor.

Contenders: ``numpy`` (forward and backward written by hand: the floor), ``gradmagic``
(and ``gradmagic traced``, inside ``with gm.trace():``, for W1 and W3; for W8, the tutorial's
PyTorch code on ``gradmagic.torch``), ``autograd`` (HIPS autograd) and ``torch`` (PyTorch,
CPU, eager), the last two when installed.
Neither is a dependency of gradmagic.

For W2 and W4 to W7 more rows say what their targets are up against (``bounds``):
``by hand`` runs gradmagic's own work with the engine taken out (the array operations its
rules perform, each array kept as long as the tape keeps it; for W5, the seed's code on
Tensors), and ``any tape`` the least work a tape running the seed's code gets away with
(for W2, the smallest tape that runs its code: ``least_tape.py``).
"""

import dataclasses

import numpy as np

import gradmagic as gm
import gradmagic.torch as gmtorch

try:  # peers, when installed: never dependencies
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None

try:
    import autograd
    import autograd.numpy as anp
    from autograd import grad as agrad
    from autograd import value_and_grad as avalue_and_grad
    from autograd.extend import defvjp, primitive
except ImportError:
    autograd = anp = agrad = avalue_and_grad = defvjp = primitive = None

CHAIN = 200  # W1 steps, W2 ops


@dataclasses.dataclass
class Workload:
    key: str  # "W1" ... "W6": what --only selects
    name: str  # the row's label
    make_args: object  # () -> args of every contender
    contenders: dict  # name -> fn(*args) -> (value, gradients)
    unit: str = "ms"  # the unit of the table's cells
    scale: float = 1e3  # seconds per call -> unit (per step, per op ...)
    rtol: float = 1e-10
    atol: float = 0.0
    rounds: int = 1  # rounds, as a multiple of --rounds
    inner: int = 1  # calls per timed sample (for calls of a few µs)


# -- W1: per-op overhead: y = log(1 + exp(y)) chained 200 times on a 0-d float64 ----------
def w1_args():
    return (np.float64(0.5),)


def w1_numpy(x0):
    ys, y = [], x0
    for _ in range(CHAIN):
        ys.append(y)
        y = np.log(1 + np.exp(y))
    g = 1.0
    for v in reversed(ys):  # d/dv log(1 + e^v) = e^v / (1 + e^v)
        e = np.exp(v)
        g = g * (e / (1 + e))
    return y, g


def w1_gradmagic(x0):
    x = gm.Tensor(x0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(CHAIN):
            y = np.log(1 + np.exp(y))
    return y.value, tape.gradient(y, x).value


def w1_traced(x0):
    with gm.trace():
        return w1_gradmagic(x0)


def w1_autograd(x0):
    def f(y):
        for _ in range(CHAIN):
            y = anp.log(1 + anp.exp(y))
        return y
    return avalue_and_grad(f)(float(x0))


def w1_torch(x0):
    x = torch.tensor(float(x0), dtype=torch.float64, requires_grad=True)
    y = x
    for _ in range(CHAIN):
        y = torch.log(1 + torch.exp(y))
    y.backward()
    return y.item(), x.grad.item()


# -- W2: small arrays: 16 float64, 200 chained ops (tanh, * c, exp, + x), grad of the sum ---
W2_C = 0.5


def w2_args():
    return (np.random.default_rng(2).uniform(-1, 1, 16),)


def w2_numpy(x):
    y, saved = x, []
    for _ in range(CHAIN // 4):
        a = np.tanh(y)
        e = np.exp(a * W2_C)
        saved.append((a, e))
        y = e + x
    gx = np.zeros_like(x)
    g = np.ones_like(x)
    for a, e in reversed(saved):
        gx += g  # y = e + x
        g = g * e * W2_C * (1 - a * a)  # through exp, * c, tanh
    return y.sum(), gx + g


def w2_gradmagic(x0):
    x = gm.Tensor(x0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(CHAIN // 4):
            y = np.exp(np.tanh(y) * W2_C) + x
        s = np.sum(y)
    return s.value, tape.gradient(s, x).value


def w2_autograd(x0):
    def f(x):
        y = x
        for _ in range(CHAIN // 4):
            y = anp.exp(anp.tanh(y) * W2_C) + x
        return anp.sum(y)
    return avalue_and_grad(f)(x0)


def w2_torch(x0):
    x = torch.from_numpy(x0).requires_grad_()
    y = x
    for _ in range(CHAIN // 4):
        y = torch.exp(torch.tanh(y) * W2_C) + x
    s = y.sum()
    s.backward()
    return s.item(), x.grad.numpy()


# -- W3: MLP 1024 -> 1024 -> 1024 -> 1, tanh, batch 256, MSE, gradients of all weights ------
def mlp_data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal((1024, 1024)) / 32, np.zeros(1024),
              rng.standard_normal((1024, 1024)) / 32, np.zeros(1024),
              rng.standard_normal((1024, 1)) / 32, np.zeros(1)]
    x = rng.standard_normal((256, 1024))
    y = rng.standard_normal((256, 1))
    return [p.astype(dtype) for p in params], x.astype(dtype), y.astype(dtype)


def w3_numpy(params, x, y, xp=np):
    """The MLP step by hand; ``xp=cupy`` gives the GPU floor (benchmarks/gpu.py), and any
    array-API module works (tests/test_backend.py counts its calls on array_api_strict)."""
    W1, b1, W2, b2, W3, b3 = params
    h1 = xp.tanh(x @ W1 + b1)
    h2 = xp.tanh(h1 @ W2 + b2)
    d = h2 @ W3 + b3 - y
    loss = xp.mean(d * d)
    g = d * (2 / d.size)
    gW3, gb3 = h2.T @ g, xp.sum(g, axis=0)
    g2 = (g @ W3.T) * (1 - h2 * h2)
    gW2, gb2 = h1.T @ g2, xp.sum(g2, axis=0)
    g1 = (g2 @ W2.T) * (1 - h1 * h1)
    gW1, gb1 = x.T @ g1, xp.sum(g1, axis=0)
    return loss, [gW1, gb1, gW2, gb2, gW3, gb3]


def w3_gradmagic(params, x, y):
    """The same code a NumPy user writes; the arrays may be NumPy's or CuPy's."""
    ps = [gm.Tensor(p) for p in params]
    x, y = gm.Tensor(x), gm.Tensor(y)  # constants: never watched, no gradient computed
    with gm.GradientTape() as tape:
        tape.watch(ps)
        W1, b1, W2, b2, W3, b3 = ps
        h1 = np.tanh(x @ W1 + b1)
        h2 = np.tanh(h1 @ W2 + b2)
        d = h2 @ W3 + b3 - y
        loss = np.mean(d * d)
    return loss.value, [g.value for g in tape.gradient(loss, ps)]


def w3_traced(params, x, y):
    with gm.trace():
        return w3_gradmagic(params, x, y)


def _w3_autograd_loss(params, x, y):
    W1, b1, W2, b2, W3, b3 = params
    h1 = anp.tanh(anp.dot(x, W1) + b1)
    h2 = anp.tanh(anp.dot(h1, W2) + b2)
    d = anp.dot(h2, W3) + b3 - y
    return anp.mean(d * d)


def w3_autograd(params, x, y):
    return avalue_and_grad(_w3_autograd_loss)(list(params), x, y)


def w3_torch(params, x, y):
    ps = [torch.from_numpy(p).requires_grad_() for p in params]
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    W1, b1, W2, b2, W3, b3 = ps
    h1 = torch.tanh(x @ W1 + b1)
    h2 = torch.tanh(h1 @ W2 + b2)
    d = h2 @ W3 + b3 - y
    loss = torch.mean(d * d)
    loss.backward()
    return loss.item(), [p.grad.numpy() for p in ps]


# -- W4: the seed's custom-gradient log1pexp on 1e6 float64, gradient of the sum ---------
def w4_args():
    return (np.random.default_rng(4).standard_normal(1_000_000),)


def w4_numpy(x):
    e = np.exp(x)
    loss = np.sum(np.log(1 + e))
    return loss, 1 - 1 / (1 + e)  # upstream of a sum is 1: the grad_fn's product is skipped


@gm.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad_fn(upstream):
        return upstream * (1 - 1 / (1 + e))
    return np.log(1 + e), grad_fn


def w4_gradmagic(x0):
    x = gm.Tensor(x0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(log1pexp(x))
    return loss.value, tape.gradient(loss, x).value


def w4_by_hand(x):
    """gradmagic's array operations for W4 with the engine taken out: the body's three
    outputs are kept until the gradient is taken (the tape records them, as TensorFlow
    does), and grad_fn's product with the sum's broadcast upstream fills a new array."""
    e = np.exp(x)
    t = 1 + e
    y = np.log(t)
    loss = np.sum(y)
    upstream = np.broadcast_to(np.ones((), x.dtype), x.shape)
    grad = np.multiply(upstream, 1 - 1 / (1 + e))
    del t, y  # held until here, as by the tape's entries
    return loss, grad


def w4_any_tape(x):
    """The least a tape does for W4: the floor's operations, with every array freed as
    soon as nothing needs it, plus grad_fn's product with its upstream, which no tape
    can skip. It fills a new array: the operands are Tensors' arrays, not temporaries
    that NumPy may overwrite."""
    e = np.exp(x)
    loss = np.sum(np.log(1 + e))
    upstream = np.broadcast_to(np.ones((), x.dtype), x.shape)
    return loss, np.multiply(upstream, 1 - 1 / (1 + e))


if autograd is not None:
    @primitive
    def ag_log1pexp(x):
        return anp.log(1 + anp.exp(x))

    # autograd calls the vjp maker in the forward pass, with the answer and the input;
    # it cannot see the forward's e, so it computes it again
    def _ag_log1pexp_vjp(ans, x):
        e = np.exp(x)
        return lambda upstream: upstream * (1 - 1 / (1 + e))
    defvjp(ag_log1pexp, _ag_log1pexp_vjp)

    @primitive
    def ag_foo(x):
        return x ** 2
    defvjp(ag_foo, lambda ans, x: lambda upstream: upstream * 2 * x)


def w4_autograd(x0):
    return avalue_and_grad(lambda x: anp.sum(ag_log1pexp(x)))(x0)


if torch is not None:
    class TorchLog1pexp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            e = torch.exp(x)
            ctx.save_for_backward(e)
            return torch.log(1 + e)

        @staticmethod
        def backward(ctx, upstream):
            e, = ctx.saved_tensors
            return upstream * (1 - 1 / (1 + e))


def w4_torch(x0):
    x = torch.from_numpy(x0).requires_grad_()
    loss = TorchLog1pexp.apply(x).sum()
    loss.backward()
    return loss.item(), x.grad.numpy()


# -- W5: the seed's foo(foo(foo(x))), foo(x) = x**2 with grad upstream * 2 * x, at x = 2 ---
def w5_args():
    return (2.0,)


def w5_numpy(x):
    x = np.float64(x)
    y1 = x ** 2
    y2 = y1 ** 2
    y3 = y2 ** 2
    return y3, 2 * y2 * (2 * y1 * (2 * x))


@gm.custom_gradient
def foo(x):
    def grad_fn(upstream):
        return upstream * 2 * x
    return x ** 2, grad_fn


def w5_gradmagic(x0):
    x = gm.constant(x0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = foo(foo(foo(x)))
    return y.value, tape.gradient(y, x).value


def w5_by_hand(x0):
    """The seed's own code with no custom_gradient in between: the three bodies on a tape
    that records them (as TensorFlow does) and the three grad_fns chained by hand, on
    Tensors. What is left of the 20 µs target after this is what the three custom calls
    and their gradient may cost."""
    x = gm.constant(x0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y1 = x ** 2
        y2 = y1 ** 2
        y3 = y2 ** 2
    upstream = np.ones((), np.float64)
    g2 = upstream * 2 * y2
    g1 = g2 * 2 * y1
    return y3.value, (g1 * 2 * x).value


def foo_function(T):
    """The seed's foo as a PyTorch user writes it, on the namespace ``T`` (``torch`` or
    ``gradmagic.torch``): one class, the same code on both."""
    class Foo(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, upstream):
            x, = ctx.saved_tensors
            return upstream * 2 * x
    return Foo


GmTorchFoo = foo_function(gmtorch)
TorchFoo = foo_function(torch) if torch is not None else None


def w5_gradmagic_torch(x0):
    x = gmtorch.tensor(x0, dtype=gmtorch.float64, requires_grad=True)
    y = GmTorchFoo.apply(GmTorchFoo.apply(GmTorchFoo.apply(x)))
    y.backward()
    return y.value, x.grad.value


def w5_autograd(x0):
    return avalue_and_grad(lambda x: ag_foo(ag_foo(ag_foo(x))))(x0)


def w5_torch(x0):
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    y = TorchFoo.apply(TorchFoo.apply(TorchFoo.apply(x)))
    y.backward()
    return y.item(), x.grad.item()


# -- W6: Hessian-vector product of sum(tanh(x)**3) on 1e5 float64, nested differentiation --
def w6_args():
    rng = np.random.default_rng(6)
    return rng.standard_normal(100_000), rng.standard_normal(100_000)


def w6_numpy(x, v):
    t = np.tanh(x)
    s = 1 - t * t  # d tanh = s; f' = 3 t^2 s; f'' = 6 t s^2 - 6 t^3 s = 6 t s (s - t^2)
    return None, 6 * t * s * (s - t * t) * v


def w6_gradmagic(x0, v):
    x = gm.Tensor(x0)
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            f = np.sum(np.tanh(x) ** 3)
        g = inner.gradient(f, x)
        gv = np.sum(g * v)
    return None, outer.gradient(gv, x).value


def w6_by_hand(x, v):
    """gradmagic's array operations for W6 with the engine taken out: the forward, the
    inner pass's rules (sum's spreads the seed: no work; power_backward skips the product
    with the seed's ones; tanh_backward works on one temporary) and the outer pass over the
    three ops they recorded, in its order; each array kept until the function returns."""
    t = np.tanh(x)
    np.sum(t * t * t)
    p = t * t  # power_backward(ones, t, 3) = 3 t^2
    p *= 3
    g = t * t  # tanh_backward(p, t) = p (1 - t^2)
    np.subtract(1, g, out=g)
    g *= p
    np.sum(g * v)
    u = np.broadcast_to(np.ones((), x.dtype), x.shape) * v  # the outer pass: multiply's rule
    up = t * t  # tanh_backward's rule for p: tanh_backward(u, t)
    np.subtract(1, up, out=up)
    up *= u
    dt = u * p * (-2 * t)  # its rule for t
    dt2 = t * 6  # power_backward's for t: power_backward(ones, t, 2, 3) * up
    dt = dt + dt2 * up
    dx = t * t  # tanh's rule: tanh_backward(dt, t)
    np.subtract(1, dx, out=dx)
    dx *= dt
    return None, dx


def w6_any_tape(x, v):
    """The least work for W6 by nesting reverse passes, scheduled by hand: the same
    rules, each square formed once and no product with the seeds' ones (which a tape
    that runs its rules as operations does not know to skip)."""
    t = np.tanh(x)
    np.sum(t * t * t)
    sq = t ** 2
    gp = 3 * sq
    s = 1 - sq
    g = gp * s
    np.sum(g * v)
    dt = (v * gp) * (-2 * t) + ((v * s) * 3) * (2 * t)
    return None, dt * s


def _w6_autograd_f(x):
    return anp.sum(anp.tanh(x) ** 3)


def w6_autograd(x0, v):
    return None, agrad(lambda x: anp.sum(agrad(_w6_autograd_f)(x) * v))(x0)


def w6_torch(x0, v):
    x = torch.from_numpy(x0).requires_grad_()
    f = (torch.tanh(x) ** 3).sum()
    g, = torch.autograd.grad(f, x, create_graph=True)
    hv, = torch.autograd.grad((g * torch.from_numpy(v)).sum(), x)
    return None, hv.numpy()


# -- the table of workloads -----------------------------------------------------------------
def _contenders(**fns):
    """The installed contenders, numpy (the floor) first; absent peers are left out."""
    absent = {"autograd": autograd is None, "torch": torch is None}
    return {name.replace("_", " "): fn for name, fn in fns.items() if not absent.get(name)}


PEERS = ("autograd", "torch")


def installed_peers():
    return [p for p in PEERS if {"autograd": autograd, "torch": torch}[p] is not None]


def workloads():
    from . import least_tape  # here, not at the top: this file also runs on its own, exec'd by A/B scripts
    from . import w7_w8 as X

    return [
        Workload("W1", "W1 per-op overhead, per step",
                 w1_args, _contenders(numpy=w1_numpy, gradmagic=w1_gradmagic, autograd=w1_autograd,
                                      torch=w1_torch, gradmagic_traced=w1_traced),
                 unit="µs", scale=1e6 / CHAIN, rtol=1e-12, rounds=5),
        Workload("W2", "W2 small arrays, per op",
                 w2_args, _contenders(numpy=w2_numpy, gradmagic=w2_gradmagic, autograd=w2_autograd,
                                      torch=w2_torch,
                                      any_tape=lambda x0: least_tape.w2_any_tape(x0, CHAIN, W2_C)),
                 unit="µs", scale=1e6 / CHAIN, rtol=1e-12, rounds=5),
        Workload("W3", "W3 MLP f64",
                 lambda: mlp_data(np.float64),
                 _contenders(numpy=w3_numpy, gradmagic=w3_gradmagic, autograd=w3_autograd,
                             torch=w3_torch, gradmagic_traced=w3_traced),
                 rtol=1e-9, atol=1e-12),
        Workload("W3", "W3 MLP f32",
                 lambda: mlp_data(np.float32),
                 _contenders(numpy=w3_numpy, gradmagic=w3_gradmagic, autograd=w3_autograd,
                             torch=w3_torch, gradmagic_traced=w3_traced),
                 rtol=1e-4, atol=1e-6),
        Workload("W4", "W4 custom log1pexp",
                 w4_args, _contenders(numpy=w4_numpy, gradmagic=w4_gradmagic, autograd=w4_autograd,
                                      torch=w4_torch, by_hand=w4_by_hand, any_tape=w4_any_tape),
                 rtol=1e-10, atol=1e-12),
        Workload("W5", "W5 foo(foo(foo(x))), per call",
                 w5_args, _contenders(numpy=w5_numpy, gradmagic=w5_gradmagic, autograd=w5_autograd,
                                      torch=w5_torch, by_hand=w5_by_hand, any_tape=least_tape.w5_any_tape,
                                      gradmagic_torch=w5_gradmagic_torch),
                 unit="µs", scale=1e6, rtol=0.0, rounds=5, inner=20),
        Workload("W6", "W6 Hessian-vector product",
                 w6_args, _contenders(numpy=w6_numpy, gradmagic=w6_gradmagic, autograd=w6_autograd,
                                      torch=w6_torch, by_hand=w6_by_hand, any_tape=w6_any_tape),
                 rtol=1e-9, atol=1e-12, rounds=2),
        Workload("W7", "W7 Gaussian log-likelihood, n = 256",
                 X.w7_args, _contenders(numpy=X.w7_numpy, gradmagic=X.w7_gradmagic, autograd=X.w7_autograd,
                                        torch=X.w7_torch, by_hand=X.w7_by_hand),
                 rtol=1e-8, atol=1e-10),
        Workload("W8", "W8 LegendrePolynomial3 training step",
                 X.w8_args, _contenders(numpy=X.w8_numpy, gradmagic=X.w8_gradmagic_torch, torch=X.w8_torch),
                 unit="µs", scale=1e6, rtol=1e-5, atol=1e-3, rounds=5, inner=5),
    ]


class Disagreement(AssertionError):
    """A contender's value or gradients differ from the hand-written NumPy floor."""


def check(workload, name, got, want):
    """Raise ``Disagreement``, naming what differs, unless ``got`` matches ``want``."""
    (gv, gg), (wv, wg) = got, want
    gg = list(gg) if isinstance(gg, (list, tuple)) else [gg]
    wg = list(wg) if isinstance(wg, (list, tuple)) else [wg]
    problems = []
    if wv is not None and not np.allclose(np.asarray(gv, dtype=np.float64), wv, rtol=max(workload.rtol, 1e-15),
                                          atol=workload.atol):
        problems.append(f"value {gv!r} != {wv!r}")
    if len(gg) != len(wg):
        problems.append(f"{len(gg)} gradients, expected {len(wg)}")
    for i, (a, b) in enumerate(zip(gg, wg)):
        a = np.asarray(a)
        if a.shape != np.shape(b):
            problems.append(f"gradient {i}: shape {a.shape}, expected {np.shape(b)}")
        elif not np.allclose(a, b, rtol=max(workload.rtol, 1e-15), atol=workload.atol):
            err = np.max(np.abs(a - b) / (np.abs(b) + workload.atol + 1e-300))
            problems.append(f"gradient {i}: max relative error {err:.3g}")
    if problems:
        raise Disagreement(f"{workload.name}: {name} disagrees with hand-written NumPy: "
                           + "; ".join(problems))
