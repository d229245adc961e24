"""``tf.config``: the devices a program sees and whether functions run eagerly, as the first
lines of TensorFlow programs ask. The CPU, and a GPU where arrays land on one
(``gm.set_backend("cupy")``, under which ``tf.constant`` and ``tf.Variable`` put values on
it, as TensorFlow places ops on its GPU); every function runs eagerly here."""

import collections

from .._backend import get_backend
from .tensors import missing

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])


def _types(device_type):
    present = ("CPU", "GPU") if get_backend() == "cupy" else ("CPU",)
    return [t for t in present if device_type is None or device_type == t]


def list_physical_devices(device_type=None):
    return [PhysicalDevice(f"/physical_device:{t}:0", t) for t in _types(device_type)]


def list_logical_devices(device_type=None):
    return [LogicalDevice(f"/device:{t}:0", t) for t in _types(device_type)]


def run_functions_eagerly(run_eagerly):
    """Accepted: gradmagic runs every function eagerly (``tf.function`` returns the function)."""


def functions_run_eagerly():
    return True


class _Experimental:
    """``tf.config.experimental``: ``set_memory_growth``, accepted (CuPy's memory pool
    grows as arrays need it), and ``list_physical_devices``."""

    list_physical_devices = staticmethod(list_physical_devices)

    @staticmethod
    def set_memory_growth(device, enable):
        pass

    def __getattr__(self, name):
        raise AttributeError(missing(f"tf.config.experimental.{name}"))


experimental = _Experimental()

__all__ = ["PhysicalDevice", "LogicalDevice", "list_physical_devices", "list_logical_devices",
           "run_functions_eagerly", "functions_run_eagerly", "experimental"]


def __dir__():
    return __all__


def __getattr__(name):
    raise AttributeError(missing(f"tf.config.{name}"))
