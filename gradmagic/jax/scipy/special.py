"""``jax.scipy.special``: ``logsumexp`` (JAX's, with ``b`` and ``return_sign``), ``expit``,
``logit``, ``erf``, ``erfc``, ``erfinv``, ``ndtr``, ``ndtri``, ``xlogy``, ``xlog1py``, ``gammaln``, ``digamma`` and
``polygamma``."""

from __future__ import annotations

import math

from ...core import ops
from ...core import special as core
from ..array import asarray
from ..nn import logsumexp, sigmoid

expit = sigmoid


def logit(x):
    """``log(x / (1 - x))``."""
    x = asarray(x)
    return ops.log(x / (1 - x))


def erf(x):
    return core.erf(asarray(x))


def erfc(x):
    """``1 - erf(x)``, with its digits where ``erf`` is near 1."""
    return core.erfc(asarray(x))


def ndtr(x):
    """The standard normal's distribution function, ``erfc(-x / sqrt(2)) / 2``: its digits
    kept far into the lower tail (``(1 + erf(x / sqrt(2))) / 2`` is 0 there from x = -9)."""
    return erfc(-asarray(x) / math.sqrt(2)) / 2


def erfinv(x):
    """The inverse of ``erf``; derivative ``sqrt(pi) / 2 exp(erfinv(x)^2)``."""
    return core.erfinv(asarray(x))


def ndtri(p):
    """The inverse of ``ndtr``, with its digits far into both tails."""
    return core.ndtri(asarray(p))


def xlogy(x, y):
    """``x log(y)``, 0 where ``x`` is 0; derivatives ``log(y)`` and ``x / y``, as JAX's."""
    return core.xlogy(asarray(x), asarray(y))


def xlog1py(x, y):
    """``x log(1 + y)``, 0 where ``x`` is 0; derivatives ``log(1 + y)`` and ``x / (1 + y)``."""
    return core.xlog1py(asarray(x), asarray(y))


def gammaln(x):
    """``log |Gamma(x)|``; its derivative is ``digamma``."""
    return core.gammaln(asarray(x))


def digamma(x):
    return core.digamma(asarray(x))


def polygamma(n, x):
    """The ``n``-th derivative of ``digamma``, for one order ``n``."""
    return core.polygamma(int(asarray(n).numpy()) if not isinstance(n, int) else n, asarray(x))


__all__ = ["logsumexp", "expit", "logit", "erf", "erfc", "erfinv", "ndtr", "ndtri", "xlogy", "xlog1py", "gammaln",
           "digamma", "polygamma"]


def __getattr__(name):
    raise AttributeError(f"gradmagic.jax.scipy.special.{name} does not exist: it maps {', '.join(__all__)}")
