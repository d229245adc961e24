"""``torch.special``: the special functions gradmagic.torch has, under PyTorch's names
there (``expit`` is ``sigmoid``, ``gammaln`` ``lgamma``, ``psi`` ``digamma``), and the
normal distribution's ``ndtr`` and ``ndtri``. Each is the tensor's method or made of the
engine's ops, so its gradient is theirs.
"""

from __future__ import annotations

import math

from ..core import special
from .values import named


def expit(input):
    return input.sigmoid()


def logit(input, eps=None):
    return input.logit(eps)


def erf(input):
    return input.erf()


def erfc(input):
    return input.erfc()


def erfinv(input):
    return input.erfinv()


def exp2(input):
    return input.exp2()


def expm1(input):
    return input.expm1()


def log1p(input):
    return input.log1p()


def gammaln(input):
    return input.lgamma()


def digamma(input):
    return input.digamma()


psi = digamma


def polygamma(n, input):
    return input.polygamma(n)


def sinc(input):
    return input.sinc()


def round(input, *, decimals=0):  # noqa: A001  (PyTorch's name)
    return input.round(decimals=decimals)


def xlogy(input, other):
    return input.xlogy(other)


def xlog1py(input, other):
    """``input * log1p(other)``, 0 where ``input`` is 0."""
    return named(special.xlog1py(input, other), "SpecialXlog1PyBackward0")


def ndtr(input):
    """The standard normal distribution function, ``erfc(-x / sqrt(2)) / 2``."""
    return named(special.erfc(-input / math.sqrt(2)) * 0.5, "MulBackward1")


def ndtri(input):
    """Its inverse, with its digits far into both tails."""
    return named(special.ndtri(input), "SpecialNdtriBackward0")


def logsumexp(input, dim, keepdim=False):
    return input.logsumexp(dim, keepdim)


def softmax(input, dim, *, dtype=None):
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return input.log_softmax(dim, dtype=dtype)


def __getattr__(name):
    raise AttributeError(f"gradmagic.torch.special.{name} does not exist: it maps {', '.join(__all__)}; "
                         "the Bessel, gamma-incomplete and zeta functions are out of scope")


__all__ = ["expit", "logit", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "gammaln", "digamma",
           "psi", "polygamma", "sinc", "round", "xlogy", "xlog1py", "ndtr", "ndtri",
           "logsumexp", "softmax", "log_softmax"]
