"""Random sampling as PyTorch 2.13.0's functions do it: ``torch.randperm``, ``normal``,
``bernoulli``, ``multinomial``, and the in-place ``random_`` and ``bernoulli_``.

The numbers come from gradmagic's seeded generators (``torch.manual_seed``,
``torch.Generator``, NumPy's PCG64): the same seed gives the same numbers, but not
PyTorch's. Shapes, dtypes, the ranges sampled and the errors are PyTorch's. A sample is
recorded where its parameters require grad, under PyTorch's name (``NormalBackward3``),
with gradient 0 to them, as PyTorch's; ``bernoulli(input, p)`` refuses a gradient.
"""

from __future__ import annotations

import numpy as np

from ..core.tensor import Tensor as CoreTensor
from .graph import as_tensor_of, replaced
from .order import implemented_for_floats, refusing
from .tensor import make
from .values import DEFAULT_INT, broadcast_shape, default_float, generator_of, named, type_name

NORMAL_FORMS = (
    "normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out "
    "= None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
    "pin_memory = False, bool requires_grad = False)\n")
P_IN = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
        "improved?  If so, please report an enhancement request to PyTorch.)")


def sampled(value, params, label):
    """``value`` (an array), drawn from the tensors among ``params``: recorded under ``label``
    where one of them requires grad, each getting gradient 0 (``replaced``)."""
    tensors = [p for p in params if isinstance(p, CoreTensor)]
    graded = [p for p in tensors if p.requires_grad]
    if not graded:
        return as_tensor_of(value, tensors[0])
    out = replaced(graded[0], value, label)
    for p in graded[1:]:  # (0 in the shape of each other parameter)
        out = out + replaced(p, np.zeros((), value.dtype), label)
    return named(out, label)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, pin_memory=False,
             requires_grad=False):
    """The integers ``0 .. n-1`` in a random order (int64 unless ``dtype``)."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    value = generator_of(generator).rng.permutation(int(n))
    return make(value, dtype or DEFAULT_INT, requires_grad, device, "torch.randperm")


def normal(mean, std=None, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory=False, requires_grad=False):
    """Samples of N(mean, std): ``mean`` and ``std`` tensors (broadcast) or numbers; two
    numbers need ``size``."""
    rng = generator_of(generator).rng
    tensors = [a for a in (mean, std) if isinstance(a, CoreTensor)]
    if not tensors:
        if size is None:
            raise TypeError(NORMAL_FORMS.format(got=", ".join(type(a).__name__ for a in (mean, std))))
        _check_std(std)
        value = rng.normal(mean, std, tuple(size))
        return make(value, dtype or default_float(), requires_grad, device, "torch.normal")
    std = 1.0 if std is None else std
    implemented_for_floats("normal_kernel_cpu", tensors[0])
    if isinstance(std, CoreTensor):
        if bool((std.value < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _check_std(std)
    m, s = (a.value if isinstance(a, CoreTensor) else np.asarray(a) for a in (mean, std))
    try:
        shape = broadcast_shape("normal", m.shape, s.shape)
    except RuntimeError as e:  # PyTorch's words, without the name
        raise RuntimeError(str(e).removeprefix("normal: ")) from None
    value = rng.normal(m, s, shape).astype(tensors[0].value.dtype)
    label = "NormalBackward" + ("3" if len(tensors) == 2 else "1" if tensors[0] is mean else "2")
    return sampled(value, (mean, std), label)


def _check_std(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def _bernoulli_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")


def bernoulli(self, p=None, *, generator=None, out=None):
    """1 with probability ``self`` (or ``p``), else 0, in ``self``'s dtype."""
    rng = generator_of(generator).rng
    if p is not None:  # as PyTorch: recorded, but its derivative is not implemented
        _bernoulli_p(p)
        value = (rng.random(self.value.shape) < p).astype(self.value.dtype)
        return refusing(value, [self], (RuntimeError, "derivative for aten::bernoulli is not implemented"))
    implemented_for_floats("bernoulli_tensor_cpu_p_", self)
    probs = self.value
    if not bool(((probs >= 0) & (probs <= 1)).all()):
        raise RuntimeError(P_IN)
    return sampled((rng.random(probs.shape) < probs).astype(probs.dtype), (self,), "BernoulliBackward0")


def multinomial(self, num_samples, replacement=False, *, generator=None, out=None):
    """``num_samples`` indices drawn from each row of weights ``self`` (int64), with or
    without ``replacement``."""
    v = self.value
    if v.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if v.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{type_name(v.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > v.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not bool((np.isfinite(v) & (v >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = np.asarray(v, np.float64).reshape(-1, v.shape[-1])
    if bool((rows.sum(axis=1) <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    rng = generator_of(generator).rng
    if replacement:
        picked = [rng.choice(len(w), num_samples, p=w / w.sum()) for w in rows]
    else:  # the smallest exponential(1) / weight first: a draw in proportion to the weights
        with np.errstate(divide="ignore"):
            keys = rng.exponential(size=rows.shape) / rows
        picked = np.argsort(keys, axis=1, kind="stable")[:, :num_samples]
    return make(np.asarray(picked, np.int64).reshape(v.shape[:-1] + (num_samples,)), copy=False)


def random_(self, *bounds, generator=None, **kwargs):
    """Integers from ``[from, to)`` in place: ``random_(to)`` from 0, ``random_()`` from 0 up
    to the largest integer the dtype holds exactly; recorded with gradient 0."""
    bounds = (*bounds, *(kwargs[k] for k in ("from", "to") if k in kwargs))  # (`from`: a keyword)
    label = f"RandomBackward{2 - len(bounds)}"
    from_, to = (0, None) if not bounds else (0, bounds[0]) if len(bounds) == 1 else bounds
    if to is not None and from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    dtype = self.value.dtype
    if to is None:
        to = (2 ** (np.finfo(dtype).nmant + 1) if dtype.kind == "f" else 1 if dtype.kind == "b"
              else int(np.iinfo(dtype).max)) + 1
    value = generator_of(generator).rng.integers(from_, to, self.value.shape).astype(dtype)
    return self.in_place(value, label)


def bernoulli_(self, p=0.5, *, generator=None):
    """1 with probability ``p`` (a number, or a tensor broadcast to ``self``), else 0, in place."""
    if isinstance(p, CoreTensor):
        if not bool(((p.value >= 0) & (p.value <= 1)).all()):
            raise RuntimeError(P_IN)
        probs, label = np.broadcast_to(p.value, self.value.shape), "BernoulliBackward1"
    else:
        _bernoulli_p(p)
        probs, label = p, "BernoulliBackward2"
    value = generator_of(generator).rng.random(self.value.shape) < probs
    return self.in_place(value.astype(self.value.dtype), label)


METHODS = {f.__name__: f for f in (bernoulli, multinomial, random_, bernoulli_)}
TENSOR_ONLY = ("random_", "bernoulli_")
FUNCTIONS = {"randperm": randperm, "normal": normal}
