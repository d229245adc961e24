"""``torch.random`` (and its ``torch.`` names): seeding, and saving and restoring the state
of the default generator (``get_rng_state``, ``set_rng_state``, ``fork_rng``) and of a
``torch.Generator`` (``get_state``, ``set_state``, attached by ``install``).

The numbers are NumPy's PCG64's, not PyTorch's (the same seed gives other numbers than
PyTorch's), so a state is gradmagic's own: a uint8 tensor of 37 bytes (PCG64's 128-bit
state and increment, and its buffered 32-bit half), which only gradmagic reads back.
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..core.tensor import Tensor as CoreTensor
from .tensor import make
from .values import DEFAULT_GENERATOR, Generator

SIZE = 37  # bytes: state (16), increment (16), has_uint32 (1), uinteger (4)


def _encode(state):
    pcg = state["state"]
    raw = (pcg["state"].to_bytes(16, "little") + pcg["inc"].to_bytes(16, "little")
           + bytes([state["has_uint32"]]) + state["uinteger"].to_bytes(4, "little"))
    return np.frombuffer(raw, np.uint8).copy()


def _decode(raw):
    raw = bytes(raw)
    return {"bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[:16], "little"), "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:], "little")}


def get_state(self):
    """This generator's state, as a uint8 tensor (``set_state`` takes it back)."""
    return make(_encode(self.rng.bit_generator.state), np.dtype(np.uint8))


def set_state(self, new_state):
    """Put back a state ``get_state`` gave, with PyTorch's checks (its own size)."""
    if not isinstance(new_state, CoreTensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
    if new_state.value.dtype != np.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if new_state.value.size != SIZE:
        raise RuntimeError(f"Expected a CPUGeneratorImplState of size {SIZE} but found the input RNG "
                           f"state size to be {new_state.value.size}")
    self.rng.bit_generator.state = _decode(np.asarray(new_state.value).ravel())
    return self


def install():
    Generator.get_state, Generator.set_state = get_state, set_state


def manual_seed(seed):
    """Seeds the default generator (the numbers differ from PyTorch's own)."""
    return DEFAULT_GENERATOR.manual_seed(seed)


def seed():
    return DEFAULT_GENERATOR.seed()


def initial_seed():
    return DEFAULT_GENERATOR.initial_seed()


def get_rng_state():
    return get_state(DEFAULT_GENERATOR)


def set_rng_state(new_state):
    set_state(DEFAULT_GENERATOR, new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):  # noqa: ARG001
    """The default generator's state saved on entry and put back on exit (CPU only)."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)


default_generator = DEFAULT_GENERATOR
