"""Array modules: ``numpy`` or ``cupy``, chosen per value.

This is the only module that imports CuPy, and it does so lazily: ``import gradmagic``
never imports it, and a usable GPU is detected once, by running a tiny kernel.
Everything else asks ``xp_of(value)`` for the module of a value and calls ``xp.exp``.

Modules that do not mirror NumPy's names are seen through ``_array_api.numpy_names``.
"""

import numpy as np

from .errors import BackendError

SCALARS = (bool, int, float, complex)
MODULES = {np.ndarray: np}  # type -> array module; filled on first sight of a type
BACKENDS = ("numpy", "cupy")  # the names set_backend takes
_backend = "numpy"
_cupy_status = None  # (module or None, reason), found once


def _module_of(x):
    t = type(x)
    if t in SCALARS or isinstance(x, (np.ndarray, np.generic)):
        return np
    root = t.__module__.partition(".")[0]
    if root == "cupy":
        import cupy

        return cupy
    namespace = getattr(x, "__array_namespace__", None)
    if namespace is not None:
        return namespace()
    return None


def xp_of(x):
    """The array module of ``x`` (numpy for Python and NumPy scalars)."""
    m = MODULES.get(type(x))
    if m is None:
        m = _module_of(x)
        if m is None:
            return np
        if type(x) not in SCALARS:  # Python numbers belong to no module: they mix with all
            MODULES[type(x)] = m
    return m


def _describe(v):
    t = type(v)
    name = f"{t.__module__}.{t.__name__}"
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name} ({xp_of(v).__name__})"


TENSORS_APART = ("both are Tensors' arrays, which an op does not move (the tape follows the "
                 "Tensors): make them on one backend, each gm.constant or gm.Variable after the "
                 "same gm.set_backend(...), or gm.Tensor of arrays of one module")


def common_xp(values, advice=None):
    """The one array module of ``values`` (Python numbers go with any); raises a
    ``BackendError`` naming both when arrays of two modules meet, with ``advice`` (or how
    to move an array) after them."""
    xp = None
    first = None
    for v in values:
        m = MODULES.get(type(v))
        if m is None:
            if type(v) in SCALARS or v is None:
                continue
            m = xp_of(v)
        if xp is None:
            xp, first = m, v
        elif m is not xp:
            names = {xp.__name__.partition(".")[0], m.__name__.partition(".")[0]}
            how = ("cupy.asarray(x) to the GPU, x.get() or cupy.asnumpy(x) to the host"
                   if names == {"numpy", "cupy"} else
                   f"{xp.__name__}.asarray(...) or {m.__name__}.asarray(...), whichever fits")
            raise BackendError(
                f"cannot mix arrays of two backends in one op: {_describe(first)} and "
                f"{_describe(v)}; {advice or f'move one of them first ({how})'}")
    return np if xp is None else xp


def settle(values, args):
    """``(xp, values)`` for one op on ``args`` (``values``: their arrays): the array module
    the values share, where an argument that is its own value (an operand no tape follows:
    a NumPy array, a Python list; not a Tensor) and lives on the host goes to the other
    values' device first, one host-to-device copy, as TensorFlow converts a constant
    operand onto its op's device; so NumPy code with ``np.eye(3)`` or ``[1.0, 2.0]`` in it
    runs on CuPy Tensors unchanged. A NumPy scalar is left as it is where the module takes
    one (CuPy does). Tensors of two modules, or a device array meeting a host Tensor,
    raise ``common_xp``'s ``BackendError``."""
    try:
        return common_xp(values), values
    except BackendError as e:
        error = e
    movable = [v is a for v, a in zip(values, args)]
    xp = common_xp([v for v, m in zip(values, movable) if not m], TENSORS_APART)  # the Tensors' module
    if xp is np or not any(m and v is not None and type(v) not in SCALARS and xp_of(v) is np
                           for v, m in zip(values, movable)):
        raise error
    keep_scalars = xp.__name__.partition(".")[0] == "cupy"
    return xp, tuple(
        v if not m or v is None or type(v) in SCALARS or xp_of(v) is not np
        or (keep_scalars and isinstance(v, np.generic)) else xp.asarray(v)
        for v, m in zip(values, movable))


def cupy_status():
    """``(cupy_module, "")`` when a GPU is usable, else ``(None, reason)``; found once.

    The reason says which of three things is wrong: CuPy is not installed; it is, but a
    CUDA library it needs is missing or does not match the driver; or there is no GPU."""
    global _cupy_status
    if _cupy_status is None:
        _cupy_status = _find_cupy()
    return _cupy_status


_NO_DEVICE = ("no cuda-capable device", "cudaerrornodevice", "no device", "device count is 0")
_NO_LIBRARY = ("cannot open shared object", ".so", ".dll", "nvrtc", "libcu", "driver")


def _find_cupy():
    try:
        import cupy
    except Exception as e:
        if isinstance(e, ModuleNotFoundError) and (e.name or "").partition(".")[0] == "cupy":
            return None, "CuPy is not installed; install it with pip install 'gradmagic[cupy]'"
        if any(k in str(e).lower() for k in _NO_LIBRARY):  # cupy is there, a CUDA library is not
            return None, _library_missing(e)
        return None, f"CuPy is installed but does not import ({type(e).__name__}: {e})"
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "CuPy is installed but there is no GPU: CUDA reports 0 devices"
        float((cupy.arange(4, dtype=cupy.float32) * 2).sum())  # a tiny kernel, compiled and run
    except Exception as e:
        text = f"{type(e).__name__}: {e}"
        low = text.lower()
        if any(k in low for k in _NO_DEVICE):
            return None, f"CuPy is installed but there is no GPU: no CUDA device was found ({text})"
        if any(k in low for k in _NO_LIBRARY):
            return None, _library_missing(e)
        return None, f"CuPy is installed but no GPU is usable: running a tiny kernel failed with {text}"
    return cupy, ""


def _library_missing(e):
    return ("CuPy is installed but does not work: a CUDA library it needs is missing or does not "
            f"match the driver ({type(e).__name__}: {e}); install the cupy-cudaXXx wheel that "
            "matches your CUDA version")


class BackendStatus:
    """Whether a backend is usable here, and why not: truthy when ``usable``."""

    __slots__ = ("name", "usable", "reason")

    def __init__(self, name: str, usable: bool, reason: str = ""):
        self.name, self.usable, self.reason = name, usable, reason

    def __bool__(self) -> bool:
        return self.usable

    def __repr__(self) -> str:
        why = "" if self.usable else f": {self.reason}"
        return f"<backend {self.name!r} {'usable' if self.usable else 'not usable'}{why}>"


def backend_status(name: str = "cupy") -> BackendStatus:
    """Whether arrays can land on backend ``name`` here (``"numpy"`` always can), and why
    not: for ``"cupy"``, whether CuPy imports and a GPU runs a tiny kernel (found once).

    >>> gm.backend_status("numpy")
    <backend 'numpy' usable>
    """
    if name not in BACKENDS:
        raise BackendError(f"backend_status(name): expected 'numpy' or 'cupy', got {name!r}")
    if name == "numpy":
        return BackendStatus(name, True)
    module, reason = cupy_status()
    return BackendStatus(name, module is not None, reason)


def set_backend(name: str) -> None:
    """Choose where new arrays land: ``"numpy"`` (host) or ``"cupy"`` (GPU).

    Under ``"cupy"``, ``gm.constant``, ``gm.Variable`` and the dialects' constructors
    (``tf.constant``, ``tf.Variable`` ...) put host values, Python numbers and lists and
    NumPy arrays alike, on the GPU: one host-to-device copy, the dtype kept, as
    TensorFlow places constants on its default device. An array that is already on a
    device (a CuPy array) stays there under either backend: nothing is copied back to
    the host. A host constant meeting a GPU Tensor in an op goes to the GPU (``settle``);
    Tensors of two modules meeting in one op are an error that names both and says what
    to do.
    ``gm.Tensor(array)`` wraps the array as it is. Raises ``BackendError``, saying
    why, when the backend is not usable here (``gm.backend_status(name)`` asks without
    raising).
    """
    global _backend
    if name not in BACKENDS:
        raise BackendError(f"set_backend(name): expected 'numpy' or 'cupy', got {name!r}")
    status = backend_status(name)
    if not status:
        raise BackendError(f"set_backend({name!r}): {status.reason}")
    _backend = name


class on_backend:
    """Arrays created inside land on backend ``name`` (None: as they would); the backend
    is restored after. Choosing one that is not usable raises ``BackendError`` on entry,
    saying why, before anything runs (``%%gradtrace --backend``, ``python -m gradmagic
    trace --backend``)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        self.previous = _backend
        if self.name is not None:
            set_backend(self.name)

    def __exit__(self, *exc):
        set_backend(self.previous)
        return False


def get_backend() -> str:
    """The name of the backend new arrays land on: ``"numpy"`` or ``"cupy"``."""
    return _backend


def default_xp():
    return np if _backend == "numpy" else cupy_status()[0]


def to_host(x):
    """A NumPy copy of ``x`` for display; the only device-to-host copy gradmagic makes."""
    if isinstance(x, (np.ndarray, np.generic)) or type(x) in SCALARS:
        return x
    get = getattr(x, "get", None)
    if get is not None and type(x).__module__.partition(".")[0] == "cupy":
        return get()
    return np.asarray(x)


# -- dtypes -----------------------------------------------------------------------------
_KINDS = {}  # a dtype without NumPy's .kind -> its kind


def kind(dtype):
    """NumPy's one-letter kind (``"b"``, ``"i"``, ``"u"``, ``"f"``, ``"c"``) of a NumPy,
    CuPy or array-API dtype (``array_api_strict.float64`` has no ``.kind``)."""
    k = getattr(dtype, "kind", None)
    if k is None:
        k = _KINDS.get(dtype)
        if k is None:  # array-API dtypes are named as NumPy's: "array_api_strict.float64"
            try:
                k = np.dtype(str(dtype).rpartition(".")[2]).kind
            except TypeError:
                k = "O"
            _KINDS[dtype] = k
    return k


def broadcastable(*shapes) -> bool:
    """Whether arrays of these shapes broadcast together."""
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def numpy_dtype(dtype):
    """NumPy's dtype for a NumPy, CuPy or array-API dtype (``array_api_strict.float32``)."""
    try:
        return np.dtype(dtype)
    except TypeError:
        return np.dtype(str(dtype).rpartition(".")[2])
