"""gradmagic.torch: more of PyTorch's math (``functions.py``): values, output dtypes and
gradients, in float32 and float64, against PyTorch 2.13.0+cpu, which printed every expected
number below (rounded to 5 places) running the same cases with ``import torch``."""

import math
import warnings

import numpy as np
import pytest

import gradmagic.torch as torch

CASES = {  # each a function of x and y, both requiring grad
    "asin": lambda x, y: torch.asin(x * 0.5),
    "acos": lambda x, y: x.mul(0.5).acos(),
    "atan": lambda x, y: torch.atan(x),
    "arcsin": lambda x, y: torch.arcsin(x * 0.5),
    "sinh": lambda x, y: torch.sinh(x),
    "cosh": lambda x, y: x.cosh(),
    "asinh": lambda x, y: torch.asinh(x),
    "acosh": lambda x, y: torch.acosh(x.abs() + 1),
    "atanh": lambda x, y: torch.atanh(x * 0.5),
    "log10": lambda x, y: torch.log10(x.abs()),
    "log2": lambda x, y: x.abs().log2(),
    "exp2": lambda x, y: torch.exp2(x),
    "deg2rad": lambda x, y: torch.deg2rad(x),
    "rad2deg": lambda x, y: torch.rad2deg(x),
    "sinc": lambda x, y: torch.sinc(x),
    "rsqrt": lambda x, y: torch.rsqrt(x.abs()),
    "frac": lambda x, y: torch.frac(x * 3),
    "atan2": lambda x, y: torch.atan2(x, y),
    "arctan2": lambda x, y: torch.arctan2(y, x),
    "hypot": lambda x, y: torch.hypot(x, y),
    "logaddexp": lambda x, y: torch.logaddexp(x, y),
    "remainder": lambda x, y: torch.remainder(x * 3, y),
    "fmod": lambda x, y: torch.fmod(x * 3, y),
    "xlogy": lambda x, y: torch.xlogy(x, y.abs()),
    "lerp": lambda x, y: torch.lerp(x, y, 0.25),
    "addcmul": lambda x, y: torch.addcmul(x, x, y, value=2),
    "addcdiv": lambda x, y: torch.addcdiv(x, x, y, value=0.5),
    "broadcast_to": lambda x, y: torch.broadcast_to(x, (2, 3)),
    "tile": lambda x, y: torch.tile(x, (2,)),
    "diag": lambda x, y: torch.diag(x),
    "diag2": lambda x, y: torch.diag(torch.outer(x, y)),
    "diagonal": lambda x, y: torch.outer(x, y).diagonal(1),
    "trace": lambda x, y: torch.trace(torch.outer(x, y)),
    "cumprod": lambda x, y: torch.cumprod(x, 0),
    "swapaxes": lambda x, y: torch.outer(x, y).swapaxes(0, 1),
    "narrow": lambda x, y: torch.narrow(x, 0, 1, 2),
    "select": lambda x, y: torch.outer(x, y).select(1, 2),
    "inner": lambda x, y: torch.inner(x, y),
    "kron": lambda x, y: torch.kron(x, y),
    "nansum": lambda x, y: torch.nansum(x),
    "nanmean": lambda x, y: torch.nanmean(x),
    "nan_to_num": lambda x, y: torch.nan_to_num(x / (x - x[0])),
    "true_divide": lambda x, y: torch.true_divide(x, y),
    "isnan": lambda x, y: torch.isnan(x / 0 * 0),
    "isinf": lambda x, y: torch.isinf(x / 0),
    "isfinite": lambda x, y: torch.isfinite(x / (x - x[1])),
    "logical_not": lambda x, y: torch.logical_not(x > 0),
    "logical_and": lambda x, y: torch.logical_and(x > 0, y > 0),
    "argsort": lambda x, y: torch.argsort(x, descending=True),
    "int_asin": lambda x, y: torch.asin(torch.tensor([0, 1])),
}

# name: (output dtype for float64 inputs, value, gradient for x, for y), from PyTorch
EXPECTED = {
    "asin": ("float64", [0.35757, -0.6435, 1.25324], [0.53376, 0.625, 1.60128], None),
    "acos": ("float64", [1.21323, 2.2143, 0.31756], [-0.53376, -0.625, -1.60128], None),
    "atan": ("float64", [0.61073, -0.87606, 1.08632], [0.67114, 0.40984, 0.21692], None),
    "arcsin": ("float64", [0.35757, -0.6435, 1.25324], [0.53376, 0.625, 1.60128], None),
    "sinh": ("float64", [0.75858, -1.50946, 3.26816], [1.25517, 1.81066, 3.41773], None),
    "cosh": ("float64", [1.25517, 1.81066, 3.41773], [0.75858, -1.50946, 3.26816], None),
    "asinh": ("float64", [0.65267, -1.01597, 1.398], [0.81923, 0.64018, 0.46575], None),
    "acosh": ("float64", [1.12323, 1.42542, 1.72671], [0.72739, -0.51031, 0.36736], None),
    "atanh": ("float64", [0.36544, -0.69315, 1.83178], [0.5698, 0.78125, 5.12821], None),
    "log10": ("float64", [-0.1549, 0.07918, 0.27875], [0.62042, -0.36191, 0.22858], None),
    "log2": ("float64", [-0.51457, 0.26303, 0.926], [2.06099, -1.20225, 0.75931], None),
    "exp2": ("float64", [1.6245, 0.43528, 3.73213], [1.12602, 0.30171, 2.58692], None),
    "deg2rad": ("float64", [0.01222, -0.02094, 0.03316], [0.01745, 0.01745, 0.01745], None),
    "rad2deg": ("float64", [40.10705, -68.75494, 108.86198], [57.29578, 57.29578, 57.29578], None),
    "sinc": ("float64", [0.36788, -0.15591, -0.05177], [-1.36524, 0.54425, 0.5278], None),
    "rsqrt": ("float64", [1.19523, 0.91287, 0.72548], [-0.85373, 0.38036, -0.19091], None),
    "frac": ("float64", [0.1, -0.6, 0.7], [3.0, 3.0, 3.0], None),
    "atan2": ("float64", [0.43663, -0.98279, 2.49172], [0.54745, 0.38462, -0.25355], [-0.25547, 0.57692, -0.1927]),
    "arctan2": ("float64", [1.13417, 2.55359, -0.92093], [-0.54745, -0.38462, 0.25355], [0.25547, -0.57692, 0.1927]),
    "hypot": ("float64", [1.65529, 1.44222, 3.14006], [0.42289, -0.83205, 0.60508], [0.90618, 0.5547, -0.79616]),
    "logaddexp": ("float64", [1.8711, 0.92693, 1.9122], [0.31003, 0.1192, 0.98787], [0.68997, 0.8808, 0.01213]),
    "remainder": ("float64", [0.6, 0.4, -1.8], [3.0, 3.0, 3.0], [-1.0, 5.0, 3.0]),
    "fmod": ("float64", [0.6, -0.4, 0.7], [3.0, 3.0, 3.0], [-1.0, 4.0, 2.0]),
    "xlogy": ("float64", [0.28383, 0.26777, 1.74095], [0.40547, -0.22314, 0.91629], [0.46667, -1.5, -0.76]),
    "lerp": ("float64", [0.9, -0.7, 0.8], [0.75, 0.75, 0.75], [0.25, 0.25, 0.25]),
    "addcmul": ("float64", [2.8, -3.12, -7.6], [4.0, 2.6, -4.0], [1.4, -2.4, 3.8]),
    "addcdiv": ("float64", [0.93333, -1.95, 1.52], [1.33333, 1.625, 0.8], [-0.15556, 0.9375, -0.152]),
    "broadcast_to": ("float64", [0.7, -1.2, 1.9, 0.7, -1.2, 1.9], [2.0, 2.0, 2.0], None),
    "tile": ("float64", [0.7, -1.2, 1.9, 0.7, -1.2, 1.9], [2.0, 2.0, 2.0], None),
    "diag": ("float64", [0.7, 0.0, 0.0, 0.0, -1.2, 0.0, 0.0, 0.0, 1.9], [1.0, 1.0, 1.0], None),
    "diag2": ("float64", [1.05, -0.96, -4.75], [1.5, 0.8, -2.5], [0.7, -1.2, 1.9]),
    "diagonal": ("float64", [0.56, 3.0], [0.8, -2.5, 0.0], [0.0, 0.7, -1.2]),
    "trace": ("float64", [-4.66], [1.5, 0.8, -2.5], [0.7, -1.2, 1.9]),
    "cumprod": ("float64", [0.7, -0.84, -1.596], [-2.48, 2.03, -0.84], None),
    "swapaxes": ("float64", [1.05, -1.8, 2.85, 0.56, -0.96, 1.52, -1.75, 3.0, -4.75], [-0.2, -0.2, -0.2], [1.4, 1.4, 1.4]),
    "narrow": ("float64", [-1.2, 1.9], [0.0, 1.0, 1.0], None),
    "select": ("float64", [-1.75, 3.0, -4.75], [-2.5, -2.5, -2.5], [0.0, 0.0, 1.4]),
    "inner": ("float64", [-4.66], [1.5, 0.8, -2.5], [0.7, -1.2, 1.9]),
    "kron": ("float64", [1.05, 0.56, -1.75, -1.8, -0.96, 3.0, 2.85, 1.52, -4.75], [-0.2, -0.2, -0.2], [1.4, 1.4, 1.4]),
    "nansum": ("float64", [1.4], [1.0, 1.0, 1.0], None),
    "nanmean": ("float64", [0.46667], [0.33333, 0.33333, 0.33333], None),
    "nan_to_num": ("float64", [1.7976931348623157e+308, 0.63158, 1.58333], [math.nan, -0.19391, -0.48611], None),
    "true_divide": ("float64", [0.46667, -1.5, -0.76], [0.66667, 1.25, -0.4], [-0.31111, 1.875, -0.304]),
    "isnan": ("bool", [True, True, True], None, None),
    "isinf": ("bool", [True, True, True], None, None),
    "isfinite": ("bool", [True, False, True], None, None),
    "logical_not": ("bool", [False, True, False], None, None),
    "logical_and": ("bool", [True, False, False], None, None),
    "argsort": ("int64", [2, 0, 1], None, None),
    "int_asin": ("float32", [0.0, 1.5708], None, None),
}


def _flat(t):
    return None if t is None else t.reshape(-1).tolist()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_function_gives_pytorchs_values_dtype_and_gradients(name, dtype):
    x = torch.tensor([0.7, -1.2, 1.9], dtype=dtype, requires_grad=True)
    y = torch.tensor([1.5, 0.8, -2.5], dtype=dtype, requires_grad=True)
    out = CASES[name](x, y)
    out_dtype, value, gx, gy = EXPECTED[name]
    expected_dtype = dtype if out_dtype == "float64" else np.dtype(out_dtype)
    assert out.dtype == expected_dtype
    tol = 1e-5  # (the expected numbers are rounded to 5 places)
    got = _flat(out.detach())
    if out.dtype.kind == "f":
        big = [abs(v) > 1e30 for v in value]  # nan_to_num's largest float: the dtype's own
        np.testing.assert_allclose([v for v, b in zip(got, big) if not b],
                                   [v for v, b in zip(value, big) if not b], rtol=tol, atol=tol)
        assert [v == float(np.finfo(out.dtype).max) for v in got] == big
    else:
        assert got == value
    if gx is None and gy is None:
        assert not out.requires_grad
        return
    grads = torch.autograd.grad(out.sum(), [x, y], allow_unused=True)
    for g, want in zip(grads, (gx, gy)):
        if want is None:
            assert g is None
        else:
            np.testing.assert_allclose(_flat(g), want, rtol=tol, atol=tol)

# On a 3 x 3 float64 matrix A (the gradient is that of the output's sum), from PyTorch 2.13.0:
A = [[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.4, -0.6, 1.1]]
MATRIX_CASES = {
    "diff": lambda x: torch.diff(x * x),
    "diff_n2_dim0": lambda x: torch.diff(x * x, n=2, dim=0),
    "diff_prepend_append": lambda x: x.diff(prepend=x[:, :1] * 2, append=x[:, 2:] * x[:, 2:]),
    "erfc": lambda x: torch.erfc(x),
    "masked_select": lambda x: torch.masked_select(x, x > 0.5),
    "repeat_interleave": lambda x: torch.repeat_interleave(x, 2),
    "repeat_interleave_dim": lambda x: x.repeat_interleave(2, dim=1),
    "cross": lambda x: torch.cross(x, x * x, dim=1),
    "cross_nodim": lambda x: torch.cross(x, x.flip(0)),
    "logdet": lambda x: torch.logdet(x),
    "slogdet": lambda x: torch.slogdet(x).logabsdet,
    "slogdet_sign": lambda x: torch.slogdet(x * -1).sign,
    "meshgrid_ij": lambda x: torch.meshgrid(x[0], x[1, :2], indexing="ij")[0] * torch.meshgrid(x[0], x[1, :2], indexing="ij")[1],
    "meshgrid_xy": lambda x: torch.meshgrid(x[0], x[1, :2], indexing="xy")[0] * 2 + torch.meshgrid(x[0], x[1, :2], indexing="xy")[1],
    "meshgrid_default": lambda x: torch.meshgrid(x[0], x[1])[1],
    "unbind": lambda x: torch.unbind(x, 1)[2],
}
MATRIX_EXPECTED = {  # name: (shape, value, gradient)
    "diff": ((3, 2), [-3.75, -0.24, 2.16, -2.21, 0.2, 0.85], [-4.0, 0.0, 0.2, -0.6, 0.0, -0.4, -0.8, -0.0, 2.2]),
    "diff_n2_dim0": ((1, 3), [3.98, -3.89, 1.14], [4.0, 1.0, 0.2, -1.2, -6.0, 0.8, 0.8, -1.2, 2.2]),
    "diff_prepend_append": ((3, 4), [-2.0, -1.5, -0.4, -0.09, -0.3, 1.2, -1.7, 0.24, -0.4, -1.0, 1.7, 0.11],
                            [-2.0, 0.0, 0.2, -2.0, 0.0, -0.4, -2.0, 0.0, 2.2]),
    "erfc": ((3, 3), [0.00468, 0.4795, 0.88754, 0.67137, 0.03389, 1.2227, 0.57161, 1.60386, 0.11979], [-0.02067, -0.87878, -1.11715, -1.03126, -0.11893, -1.08413, -0.96154, -0.78724, -0.33648]),
    "masked_select": ((3,), [2.0, 1.5, 1.1], [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]),
    "repeat_interleave": ((18,), [2.0, 2.0, 0.5, 0.5, 0.1, 0.1, 0.3, 0.3, 1.5, 1.5, -0.2, -0.2, 0.4, 0.4, -0.6, -0.6, 1.1, 1.1], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
    "repeat_interleave_dim": ((3, 6), [2.0, 2.0, 0.5, 0.5, 0.1, 0.1, 0.3, 0.3, 1.5, 1.5, -0.2, -0.2, 0.4, 0.4, -0.6, -0.6, 1.1, 1.1], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0]),
    "cross": ((3, 3), [-0.02, 0.38, -1.5, 0.51, -0.03, 0.54, -1.122, -0.308, 0.24], [-1.36, -2.09, 3.45, 1.19, 1.45, -2.64, 0.51, 1.89, -2.4]),
    "cross_nodim": ((3, 3), [0.48, 1.65, 0.2, -3.84, 0.11, 1.2, 0.48, 1.65, 0.2], [-3.4, 2.0, -0.6, 3.2, 2.2, -2.0, 0.2, -4.2, 2.6]),
    "logdet": ((), [1.02137], [0.55095, -0.14764, -0.28088, -0.21966, 0.77782, 0.50414, -0.09003, 0.15484, 1.02629]),
    "slogdet": ((), [1.02137], [0.55095, -0.14764, -0.28088, -0.21966, 0.77782, 0.50414, -0.09003, 0.15484, 1.02629]),
    "slogdet_sign": ((), [-1.0], None),
    "meshgrid_ij": ((3, 2), [0.6, 3.0, 0.15, 0.75, 0.03, 0.15], [1.8, 1.8, 1.8, 2.6, 2.6, 0.0, 0.0, 0.0, 0.0]),
    "meshgrid_xy": ((2, 3), [4.3, 1.3, 0.5, 5.5, 2.5, 1.7], [4.0, 4.0, 4.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]),
    "meshgrid_default": ((3, 3), [0.3, 1.5, -0.2, 0.3, 1.5, -0.2, 0.3, 1.5, -0.2], [0.0, 0.0, 0.0, 3.0, 3.0, 3.0, 0.0, 0.0, 0.0]),
    "unbind": ((3,), [0.1, -0.2, 1.1], [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
}


@pytest.mark.parametrize("name", sorted(MATRIX_CASES))
def test_a_function_of_a_matrix_gives_pytorchs_values_and_gradient(name):
    x = torch.tensor(A, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # meshgrid's without indexing (tested below)
        out = MATRIX_CASES[name](x)
    shape, value, grad = MATRIX_EXPECTED[name]
    assert tuple(out.shape) == shape
    np.testing.assert_allclose(_flat(out.detach()), value, rtol=1e-5, atol=1e-5)
    if grad is None:
        assert not out.requires_grad
    else:
        g, = torch.autograd.grad(out.sum(), x)
        np.testing.assert_allclose(_flat(g), grad, rtol=1e-5, atol=1e-5)


def test_meshgrid_without_indexing_warns_as_pytorch_and_is_ij():
    with pytest.warns(UserWarning, match="it will be required to pass the indexing argument") as seen:
        a, b = torch.meshgrid(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0, 5.0]))
    assert seen[0].filename == __file__
    assert a.tolist() == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]] and b.tolist() == [[3.0, 4.0, 5.0]] * 2
    assert torch.is_floating_point(torch.tensor([1.0])) and not torch.is_floating_point(torch.tensor([1]))


def test_xlogy_at_zeros_gives_pytorchs_values_and_gradients():
    """Where input is 0, xlogy is 0 and its gradient with respect to input is log(other) (0
    where other is not positive), as PyTorch 2.13.0 prints them; it used to be NaN and 0 (a
    where over x * log(y)). Where both are 0 the gradient with respect to other is PyTorch's
    NaN (0 / 0: the derivative of x log x is unbounded at 0; it was 0 here, a finite number
    that hid it)."""
    x = torch.tensor([0.0, 1.0, 0.0, 0.0, 2.0], requires_grad=True)
    y = torch.tensor([0.0, 2.0, 3.0, -1.0, -1.0], requires_grad=True)
    out = torch.xlogy(x, y)
    np.testing.assert_allclose(_flat(out.detach()), [0.0, math.log(2), 0.0, 0.0, math.nan], rtol=1e-6)
    gx, gy = torch.autograd.grad(out.sum(), [x, y])
    np.testing.assert_allclose(_flat(gx), [0.0, math.log(2), math.log(3), 0.0, math.nan], rtol=1e-6)
    np.testing.assert_allclose(_flat(gy), [math.nan, 0.5, 0.0, 0.0, -2.0], rtol=1e-6)
    assert torch.xlogy(torch.tensor([0.0, 2.0]), 3.0).dtype == torch.float32  # as PyTorch's
    assert torch.xlogy(torch.tensor([0, 2]), torch.tensor([1, 3])).dtype == torch.float32
