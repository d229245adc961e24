"""W7 and W8, each written once per contender (see ``workloads.py``, whose table lists them).

W7: the Gaussian log-likelihood of one 256-dimensional sample, through ``cholesky`` and
``solve``, and its gradients for the mean and the covariance. W8: one training step of
PyTorch's tutorial ``LegendrePolynomial3``, its code run unchanged on ``gradmagic.torch``
and on PyTorch.
"""

import math

import numpy as np

import gradmagic as gm
import gradmagic.torch as gmtorch
from gradmagic.core.linalg import SOLVE
from gradmagic.core.triangular import lower_inverse

solve = SOLVE.np  # gradmagic's solve on NumPy arrays: by halves where the matrix is triangular

# peers, when installed: never dependencies. Imported here as in workloads.py, which imports
# this module: taking them from it would make the two a circle.
try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None

try:
    import autograd.numpy as anp
    from autograd import value_and_grad as avalue_and_grad
except ImportError:
    anp = avalue_and_grad = None


# -- W7: the Gaussian log-likelihood of one 256-dimensional sample, through cholesky and solve --
W7_N = 256


def w7_args():
    rng = np.random.default_rng(7)
    a = rng.standard_normal((W7_N, W7_N)) / np.sqrt(W7_N)
    return rng.standard_normal(W7_N), 0.1 * rng.standard_normal(W7_N), a @ a.T + np.eye(W7_N)


def symmetric(g):
    """A gradient with respect to a symmetric matrix in the one convention every contender's
    can be put in: (G + G^T) / 2 (gradmagic's cholesky gives the triangle NumPy reads)."""
    return (g + g.T) / 2


def w7_numpy(x, mu, sigma):
    L = np.linalg.cholesky(sigma)
    d = x - mu
    linv = np.linalg.inv(L)
    z = linv @ d
    ll = -0.5 * (z @ z) - np.sum(np.log(np.diagonal(L))) - 0.5 * len(x) * np.log(2 * np.pi)
    alpha = linv.T @ z  # inv(sigma) @ d
    return ll, [alpha, 0.5 * (np.outer(alpha, alpha) - linv.T @ linv)]


def w7_gradmagic(x, mu0, sigma0):
    mu, sigma = gm.Tensor(mu0), gm.Tensor(sigma0)
    with gm.GradientTape() as tape:
        tape.watch([mu, sigma])
        L = np.linalg.cholesky(sigma)
        z = np.linalg.solve(L, x - mu)
        ll = -0.5 * np.sum(z * z) - np.sum(np.log(np.diagonal(L))) - 0.5 * len(x) * np.log(2 * np.pi)
    gmu, gsigma = tape.gradient(ll, [mu, sigma])
    return ll.value, [gmu.value, symmetric(gsigma.value)]


def _w7_autograd_ll(mu, sigma, x):
    L = anp.linalg.cholesky(sigma)
    z = anp.linalg.solve(L, x - mu)
    diagonal = anp.diagonal(L, axis1=-1, axis2=-2)  # the axes autograd's rule supports
    return -0.5 * anp.sum(z * z) - anp.sum(anp.log(diagonal)) - 0.5 * len(x) * np.log(2 * np.pi)


def w7_autograd(x, mu, sigma):
    ll, (gmu, gsigma) = avalue_and_grad(_w7_autograd_ll, argnum=(0, 1))(mu, sigma, x)
    return ll, [gmu, symmetric(gsigma)]


def w7_torch(x0, mu0, sigma0):
    mu = torch.from_numpy(mu0).requires_grad_()
    sigma = torch.from_numpy(sigma0).requires_grad_()
    x = torch.from_numpy(x0)
    L = torch.linalg.cholesky(sigma)
    z = torch.linalg.solve(L, x - mu)
    ll = -0.5 * torch.sum(z * z) - torch.sum(torch.log(torch.diagonal(L))) - 0.5 * len(x) * np.log(2 * np.pi)
    ll.backward()
    return ll.item(), [mu.grad.numpy(), symmetric(sigma.grad.numpy())]


def w7_by_hand(x, mu, sigma):
    """gradmagic's array operations for W7 with the engine taken out: the forward's
    cholesky and solve (by halves, L being triangular), solve's rule (one solve with L^T,
    which its rules for both inputs share), cholesky's (L^T gL, L^-1 by halves, two
    products). It is also the least a tape running these rules with NumPy does."""
    n = len(x)
    L = np.linalg.cholesky(sigma)
    z = solve(L, x - mu)
    ll = -0.5 * (z @ z) - np.sum(np.log(np.diagonal(L))) - 0.5 * n * np.log(2 * np.pi)
    gd = solve(L.T, -z)
    gL = -np.outer(gd, z)
    gL[np.diag_indices(n)] -= 1 / np.diagonal(L)  # log(diag L)'s rule
    lower = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
    linv = lower_inverse(L)  # gradmagic's inverse of a lower-triangular matrix, in NumPy
    s = linv.T @ ((L.T @ gL) * lower) @ linv
    return ll, [-gd, symmetric((s + s.T) * lower)]


# -- W8: PyTorch's tutorial LegendrePolynomial3, one training step, gradmagic.torch vs PyTorch --
def w8_args():
    return ()


def legendre_step(T):
    """One step of the tutorial's training loop, on the namespace ``T`` (``torch`` or
    ``gradmagic.torch``), unchanged: returns ``step() -> (loss, [a.grad, b.grad, c.grad,
    d.grad])`` before the update, with the weights starting where the tutorial's do."""
    class LegendrePolynomial3(T.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            input, = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    x = T.linspace(-math.pi, math.pi, 2000, dtype=T.float)
    y = T.sin(x)
    w = [T.full((), v, dtype=T.float, requires_grad=True) for v in (0.0, -1.0, 0.0, 0.3)]
    learning_rate = 5e-6

    def step():
        a, b, c, d = w
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        grads = [p.grad for p in w]
        with T.no_grad():
            for p, start in zip(w, (0.0, -1.0, 0.0, 0.3)):
                p -= learning_rate * p.grad
                p.grad = None
                p.fill_(start)  # back where the tutorial starts, so that every call is alike
        return loss.item(), [g.numpy() for g in grads]
    return step


W8_STEPS = {}


def _w8(name, T):
    if name not in W8_STEPS:
        W8_STEPS[name] = legendre_step(T)
    return W8_STEPS[name]()


def w8_numpy():
    x = np.linspace(-math.pi, math.pi, 2000, dtype=np.float32)
    y = np.sin(x)
    a, b, c, d = (np.float32(v) for v in (0.0, -1.0, 0.0, 0.3))
    t = c + d * x
    p3 = 0.5 * (5 * t ** 3 - 3 * t)
    r = a + b * p3 - y
    loss = np.sum(r * r)
    g = 2 * r
    gt = g * b * (1.5 * (5 * t * t - 1))
    return loss, [np.sum(g), np.sum(g * p3), np.sum(gt), np.sum(gt * x)]


def w8_gradmagic_torch():
    return _w8("gradmagic", gmtorch)


def w8_torch():
    return _w8("torch", torch)
