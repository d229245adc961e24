"""``jax.numpy.fft`` (a package, so that ``from jax.numpy.fft import rfft`` gets its refusal):
its real-valued helpers (``fftfreq``, ``rfftfreq``, ``fftshift``,
``ifftshift``), as JAX's. The transforms themselves give complex numbers, which are out of
scope in gradmagic.jax: each is refused, in words that say so."""

from __future__ import annotations

import numpy as np

from ....core.layout import roll
from ...array import asarray, canonical

HELPERS = "fftfreq, rfftfreq, fftshift and ifftshift"


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an ``n``-point transform, ``[0, 1, ..., -1] / (d n)``."""
    return asarray(np.fft.fftfreq(n, d), canonical(dtype or np.float64))


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The non-negative sample frequencies of an ``n``-point real transform."""
    return asarray(np.fft.rfftfreq(n, d), canonical(dtype or np.float64))


def _shifted(x, axes, sign):
    x = asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else (axes,) if isinstance(axes, int) else tuple(axes)
    shift = tuple(x.shape[a] // 2 if sign > 0 else -(x.shape[a] // 2) for a in axes)
    return roll(x, shift, axes) if axes else x


def fftshift(x, axes=None):
    """The zero-frequency term moved to the centre: a roll by half of each axis in ``axes``
    (all by default), so its gradient is the roll back."""
    return _shifted(x, axes, 1)


def ifftshift(x, axes=None):
    """``fftshift`` undone."""
    return _shifted(x, axes, -1)


def __getattr__(name):
    if name.startswith("_") or not callable(getattr(np.fft, name, None)):
        raise AttributeError(f"gradmagic.jax.numpy.fft has no {name!r}: of jnp.fft it has the "
                             f"real-valued helpers {HELPERS}")
    raise AttributeError(f"gradmagic.jax.numpy.fft.{name} does not exist: the discrete Fourier "
                         "transforms (jnp.fft.fft, rfft, ...) give complex numbers, and complex "
                         f"numbers are out of scope in gradmagic.jax (its real-valued helpers "
                         f"{HELPERS} are here)")
