"""NaN and Inf scans, done where the values are: NumPy's directly, a device's by
reductions on the device whose small results come to the host (``scan``: one copy for
any number of values). Used by the pitfall detectors, the renderers and the dialects.
"""

import cmath

import numpy as np

from ._array_api import numpy_names
from ._backend import kind, to_host, xp_of


def nonfinite(v):
    """Whether array ``v`` holds a NaN or an Inf (False for non-floating values)."""
    if type(v) is np.ndarray or isinstance(v, np.generic):  # NumPy's, the common case, directly
        if v.dtype.kind not in "fc":
            return False
        if v.ndim == 0 and v.dtype.char in "efdFD":  # one number that a Python float or complex
            return not cmath.isfinite(v.item())  # holds: ten times quicker than a ufunc
        return not np.isfinite(v).all()
    if v is None or isinstance(v, str) or not hasattr(v, "dtype") or kind(v.dtype) not in "fc":
        return False
    xp = xp_of(v)
    return not bool(to_host(xp.all(xp.isfinite(v))))


def has_nan(v):
    """Whether array ``v`` holds a NaN (False for non-floating values)."""
    if v is None or not hasattr(v, "dtype") or kind(v.dtype) not in "fc":
        return False
    xp = xp_of(v)
    return bool(to_host(xp.any(xp.isnan(v))))


def count_nonfinite(v):
    """How many NaN or Inf values array ``v`` holds (0 for non-floating values)."""
    if v is None or not hasattr(v, "dtype") or kind(v.dtype) not in "fc":
        return 0
    xp = xp_of(v)
    return int(to_host(numpy_names(xp).sum(~xp.isfinite(v))))  # booleans counted, on any module


def scan(values):
    """``(holds NaN or Inf, holds NaN)`` for each of ``values`` ((False, False) for what is
    not a floating array), found where the arrays are: NumPy's directly; a device's by
    reductions on the device, stacked into one small array that comes to the host at
    once, so a whole trace's values cost one synchronisation, not one each."""
    out = [(False, False)] * len(values)
    devices = {}  # module -> [(position, array)]
    for k, v in enumerate(values):
        if v is None or isinstance(v, str) or not hasattr(v, "dtype") or kind(v.dtype) not in "fc":
            continue
        if type(v) is np.ndarray or isinstance(v, np.generic):
            bad = nonfinite(v)
            out[k] = (bad, bad and bool(np.isnan(v).any()))
        else:
            devices.setdefault(xp_of(v), []).append((k, v))
    for xp, group in devices.items():
        flags = xp.stack([xp.stack([xp.any(~xp.isfinite(v)), xp.any(xp.isnan(v))]) for _, v in group])
        for (k, _), (bad, nan) in zip(group, np.asarray(to_host(flags)).tolist()):
            out[k] = (bool(bad), bool(nan))
    return out
