"""JAX's devices, as the first lines of JAX programs ask for them: the CPU, or a GPU where
arrays land on one (``gm.set_backend("cupy")``)."""

from .._backend import get_backend


class Device:
    """One device: ``CpuDevice(id=0)`` or ``CudaDevice(id=0)``, as JAX prints them."""

    def __init__(self, platform):
        self.platform, self.id = platform, 0
        self.device_kind = "cpu" if platform == "cpu" else "gpu"

    def __repr__(self):
        return f"{'CpuDevice' if self.platform == 'cpu' else 'CudaDevice'}(id={self.id})"


def default_backend():
    return "gpu" if get_backend() == "cupy" else "cpu"


NAMES = {"cpu": ("cpu",), "gpu": ("gpu", "cuda")}  # what a backend may be asked for by


def devices(backend=None):
    present = default_backend()
    if backend is not None and str(backend).lower() not in NAMES[present]:
        raise RuntimeError(f"Unknown backend: '{backend}' requested, but no platforms that are "
                           f"instances of {backend} are present. Platforms present are: {present}")
    return [Device(present)]


def device_count(backend=None):
    return len(devices(backend))


local_devices, local_device_count = devices, device_count
