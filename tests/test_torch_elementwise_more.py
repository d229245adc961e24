"""More of PyTorch's elementwise functions, order statistics, counts and tensor queries on
gradmagic.torch (``gradmagic/torch/elementwise.py`` and ``order.py``).

Every expected number below was printed by PyTorch 2.13.0+cpu running the same code
(``CASES`` and ``EXACT`` take the namespace ``T``; they ran with ``T = torch``): values and
the gradients of the output weighted 1, 2, 3 ... in float64 (12 significant digits),
checked here in float64 and float32, with ``gradcheck`` and ``gradgradcheck`` on the
smooth cases; then exact results at the edges (NaN, ties, +-1, dtypes, indices) and
PyTorch's error messages.
"""

import math

import numpy as np
import pytest
from _cases import same_as_printed as same
from _cases import weighted_gradients

import gradmagic.torch as torch

NAN, INF = float("nan"), float("inf")


def normal(*shape, scale=1.0):
    return lambda rng: rng.standard_normal(shape) * scale


def uniform(lo, hi, *shape):
    return lambda rng: rng.uniform(lo, hi, shape)


def given(values):
    return lambda rng: np.array(values, dtype=float)


def distinct(*shape):
    """Values 0.25 apart in random order: no ties for an order statistic to break."""
    n = math.prod(shape)
    return lambda rng: ((rng.permutation(n) - n / 2) * 0.25).reshape(shape)


FMAX_A = [1.0, NAN, 2.0, NAN, 3.0, -1.0]
FMAX_B = [1.0, 2.0, NAN, NAN, 4.0, -2.0]

CASES = {  # name: (PyTorch code on namespace T, its inputs)
    "erfinv": (lambda T, x: T.erfinv(x), [uniform(-0.99, 0.99, 2, 3)]),
    "erfinv method": (lambda T, x: (x * 0.5).erfinv() * x, [uniform(-0.9, 0.9, 5)]),
    "logit": (lambda T, x: T.logit(x), [uniform(0.05, 0.95, 2, 3)]),
    "logit eps": (lambda T, x: x.logit(eps=0.2), [given([0.1, 0.3, 0.5, 0.85, 0.95])]),
    "fmax nan": (lambda T, a, b: T.fmax(a, b), [given(FMAX_A), given(FMAX_B)]),
    "fmin nan": (lambda T, a, b: a.fmin(b), [given(FMAX_A), given(FMAX_B)]),
    "fmax broadcast": (lambda T, a, b: T.fmax(a, b), [normal(2, 3), normal(3)]),
    "clamp_min": (lambda T, x: T.clamp_min(x, 0.1), [normal(2, 3)]),
    "clamp_max tensor": (lambda T, x, m: x.clamp_max(m), [normal(2, 3), normal(3)]),
    "clamp_min tensor": (lambda T, x, m: T.clamp_min(x, m), [normal(2, 3), normal(2, 1)]),
    "copysign": (lambda T, a, b: T.copysign(a, b), [normal(2, 3), normal(2, 3)]),
    "copysign number": (lambda T, a: a.copysign(-2.0), [normal(4)]),
    "float_power": (lambda T, x: T.float_power(x, 3), [normal(2, 3)]),
    "float_power tensor": (lambda T, x, e: x.float_power(e), [uniform(0.5, 2.0, 2, 3), normal(3)]),
    "logaddexp2": (lambda T, a, b: T.logaddexp2(a, b), [normal(2, 3, scale=3), normal(2, 3, scale=3)]),
    "ldexp": (lambda T, x, e: T.ldexp(x, e), [normal(2, 3), normal(2, 3)]),
    "ldexp int": (lambda T, x: x.ldexp(T.tensor([[2, 1, 0]])), [normal(2, 3)]),
    "frexp": (lambda T, x: T.frexp(x).mantissa * 3, [normal(2, 3, scale=10)]),
    "nextafter": (lambda T, x: T.nextafter(x, x * 0 + 10) * x, [normal(4)]),
    "kthvalue": (lambda T, x: T.kthvalue(x, 2, dim=1).values, [distinct(3, 4)]),
    "kthvalue keepdim": (lambda T, x: x.kthvalue(3, 0, keepdim=True)[0], [distinct(3, 4)]),
    "mode": (lambda T, x: T.mode(x * 0 + T.round(x)).values * x.sum(), [uniform(0, 2, 3, 6)]),
    "cummax": (lambda T, x: T.cummax(x, 1).values, [distinct(2, 5)]),
    "cummin dim0": (lambda T, x: x.cummin(dim=0).values, [distinct(4, 2)]),
    "logcumsumexp": (lambda T, x: T.logcumsumexp(x, 1), [normal(2, 4, scale=3)]),
    "logcumsumexp dim0": (lambda T, x: x.logcumsumexp(0) ** 2, [normal(3, 2)]),
    "msort": (lambda T, x: T.msort(x), [distinct(3, 2)]),
    "aminmax": (lambda T, x: T.aminmax(x).min * 2 + x.aminmax().max, [distinct(2, 3)]),
    "aminmax dim": (lambda T, x: (lambda r: r.min * 3 + r.max)(T.aminmax(x, dim=1, keepdim=True)),
                    [distinct(3, 4)]),
    "nanmedian": (lambda T, x: T.nanmedian(x), [given([[3.0, NAN, 2.0], [1.0, 2.0, NAN]])]),
    "nanmedian dim": (lambda T, x: x.nanmedian(dim=1).values, [given([[3.0, NAN, 2.0, 0.5], [1.0, 2.5, NAN, NAN]])]),
    "quantile": (lambda T, x: T.quantile(x, 0.3), [distinct(2, 4)]),
    "quantile q dim keepdim": (lambda T, x: T.quantile(x, T.tensor([0.25, 0.5, 0.9], dtype=x.dtype), dim=1,
                                                       keepdim=True), [distinct(2, 5)]),
    "quantile lower": (lambda T, x: x.quantile(0.4, dim=0, interpolation="lower"), [distinct(5, 2)]),
    "quantile higher": (lambda T, x: x.quantile(0.4, dim=0, interpolation="higher"), [distinct(5, 2)]),
    "quantile midpoint": (lambda T, x: x.quantile(0.4, dim=0, interpolation="midpoint"), [distinct(5, 2)]),
    "quantile nearest": (lambda T, x: x.quantile(0.4, dim=0, interpolation="nearest"), [distinct(5, 2)]),
    "nanquantile": (lambda T, x: T.nanquantile(x, T.tensor([0.2, 0.75], dtype=x.dtype), dim=1),
                    [given([[3.0, NAN, 2.0, 0.5, 4.0], [1.0, 2.5, NAN, 7.0, NAN]])]),
}

PYTORCH = {  # printed by PyTorch 2.13.0+cpu running each case in float64 (12 significant digits)
    'erfinv': [[[0.245154722042, -0.428865683581, -1.19464241031],
                [-1.4328749152, 0.621124888052, 0.94211640475]],
               [[0.941123033913, 2.13035944175, 11.0784362595], [27.6228311427, 6.51724539578, 12.9172102703]]],
    'erfinv method': [[0.0270393856244, 0.0769647236853, 0.317460451086, 0.354210881282, 0.143963534122],
                      [0.220242721524, -0.751593524255, -2.42574813716, -3.44848932226, 2.61000300531]],
    'logit': [[[0.503431975578, -0.881784890224, -2.35238771032],
               [-2.66821997901, 1.27702661394, 1.91410855606]],
              [[4.25884199187, 9.65849994084, 37.8173335845], [65.9346568515, 29.3241332668, 53.5701873334]]],
    'logit eps': [[-1.38629436112, -0.847297860387, 0.0, 1.38629436112, 1.38629436112],
                  [0.0, 9.52380952381, 12.0, 0.0, 0.0]],
    'fmax nan': [[1.0, 2.0, 2.0, NAN, 4.0, -1.0],
                 [1.0, 0.0, 3.0, 4.0, 0.0, 6.0],
                 [0.0, 2.0, 0.0, 0.0, 5.0, 0.0]],
    'fmin nan': [[1.0, 2.0, 2.0, NAN, 3.0, -2.0],
                 [1.0, 0.0, 3.0, 4.0, 5.0, 0.0],
                 [0.0, 2.0, 0.0, 0.0, 0.0, 6.0]],
    'fmax broadcast': [[[1.30400004513, 0.947080963129, 0.640422650443],
                        [1.30400004513, 0.947080963129, 0.361595054909]],
                       [[0.0, 0.0, 3.0], [0.0, 0.0, 6.0]],
                       [5.0, 7.0, 0.0]],
    'clamp_min': [[[0.125730221093, 0.1, 0.640422650443], [0.104900117153, 0.1, 0.361595054909]],
                  [[1.0, 0.0, 3.0], [4.0, 0.0, 6.0]]],
    'clamp_max tensor': [[[0.125730221093, -0.132104863291, -0.703735235807],
                          [0.104900117153, -0.535669373161, -0.703735235807]],
                         [[1.0, 2.0, 0.0], [4.0, 5.0, 0.0]],
                         [0.0, 0.0, 9.0]],
    'clamp_min tensor': [[[1.30400004513, 1.30400004513, 1.30400004513],
                          [0.947080963129, 0.947080963129, 0.947080963129]],
                         [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                         [[6.0], [15.0]]],
    'copysign': [[[0.125730221093, 0.132104863291, -0.640422650443],
                  [-0.104900117153, -0.535669373161, 0.361595054909]],
                 [[1.0, -2.0, -3.0], [-4.0, 5.0, 6.0]],
                 [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
    'copysign number': [[-0.125730221093, -0.132104863291, -0.640422650443, -0.104900117153],
                        [-1.0, 2.0, -3.0, -4.0]],
    'float_power': [[[0.00198755446169, -0.00230545376965, 0.262663695916],
                     [0.00115432451646, -0.153705868436, 0.0472789091431]],
                    [[0.0474242654886, 0.104710169431, 3.69127054081],
                     [0.132048414945, 4.30412516014, 2.35351770723]]],
    'float_power tensor': [[[1.63134406719, 0.909488610427, 1.50111174422],
                            [0.431382689711, 1.6712517526, 0.643927772218]],
                           [[1.46159858047, 1.90422974279, -5.64448770723],
                            [4.28759304917, 4.60144714181, -1.45464632183]],
                           [-0.500283682507, 4.34912823854, -0.182825318251]],
    'logaddexp2': [[[4.0313977877, 2.98662363871, 2.0068406779],
                    [0.395866844903, -0.732439389393, 1.68293058065]],
                   [[0.0794280764563, 0.191718541035, 2.82723102002],
                    [3.7811720777, 2.72708442678, 3.96361568565]],
                   [[0.920571923544, 1.80828145896, 0.17276897998],
                    [0.218827922304, 2.27291557322, 2.03638431435]]],
    'ldexp': [[[0.310443668748, -0.254693923808, 0.393207025318],
               [0.0436361225998, -0.347754299052, 0.372102717664]],
              [[2.46912529103, 3.85593561755, 1.84194152899], [1.66391130092, 3.24597892353, 6.1743551956]],
              [[0.215183153715, -0.353080750387, 0.817651022927],
               [0.120985021402, -1.20522455958, 1.54753169776]]],
    'ldexp int': [[[0.502920884374, -0.264209726583, 0.640422650443],
                   [0.419600468612, -1.07133874632, 0.361595054909]],
                  [[4.0, 4.0, 3.0], [16.0, 10.0, 6.0]]],
    'frexp': [[[1.8859533164, -1.98157294937, 2.40158493916], [1.5735017573, -2.00876014935, 2.71196291182]],
              [[1.5, 3.0, 1.125], [6.0, 1.875, 4.5]]],
    'nextafter': [[0.0158080884962, 0.0174516949052, 0.410141171201, 0.0110040345787],
                  [0.251460442187, -0.528419453165, 3.84253590266, 0.839200937224]],
    'kthvalue': [[-0.5, -0.75, 0.0], [[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 2.0], [3.0, 0.0, 0.0, 0.0]]],
    'kthvalue keepdim': [[[0.75, 1.25, 0.5, -0.5]],
                         [[1.0, 0.0, 0.0, 4.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 3.0, 0.0]]],
    'mode': [[0.0, 19.0492764897, 0.0],
             [[2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]],
    'cummax': [[[-0.25, 0.25, 0.25, 0.5, 0.5], [0.0, 1.0, 1.0, 1.0, 1.0]],
               [[1.0, 5.0, 0.0, 9.0, 0.0], [6.0, 34.0, 0.0, 0.0, 0.0]]],
    'cummin dim0': [[[-0.5, 0.0], [-0.5, 0.0], [-0.5, -1.0], [-0.75, -1.0]],
                    [[9.0, 6.0], [0.0, 0.0], [0.0, 14.0], [7.0, 0.0]]],
    'logcumsumexp': [[[0.37719066328, 0.756580706807, 2.19283606308, 2.33509474952],
                      [-1.60700811948, 1.15034752279, 3.97327137913, 4.25270350234]],
                     [[3.42137169502, 1.11720378449, 4.93101189514, 0.530412625352],
                      [5.42997324249, 6.3455957223, 12.2741354783, 1.95029555689]]],
    'logcumsumexp dim0': [[[0.0158080884962, 0.0174516949052],
                           [1.22983215844, 0.471350703973],
                           [1.65255322339, 1.51378922116]],
                          [[6.77141129052, 5.67395525071],
                           [10.9086850622, 7.86118387963],
                           [2.08039911038, 6.19317728685]]],
    'msort': [[[-0.75, -0.5], [0.0, -0.25], [0.5, 0.25]], [[3.0, 4.0], [5.0, 6.0], [1.0, 2.0]]],
    'aminmax': [-1.0, [[0.0, 0.0, 1.0], [0.0, 2.0, 0.0]]],
    'aminmax dim': [[[-2.25], [-3.25], [-2.75]],
                    [[1.0, 3.0, 0.0, 0.0], [0.0, 2.0, 6.0, 0.0], [0.0, 3.0, 0.0, 9.0]]],
    'nanmedian': [2.0, [[0.0, 0.0, 0.5], [0.0, 0.5, 0.0]]],
    'nanmedian dim': [[2.0, 1.0], [[0.0, 0.0, 1.0, 0.0], [2.0, 0.0, 0.0, 0.0]]],
    'quantile': [-0.475, [[0.9, 0.0, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0]]],
    'quantile q dim keepdim': [[[[-0.5], [-1.0]], [[-0.25], [0.0]], [[0.4], [0.9]]],
                               [[3.0, 2.0, 0.0, 3.0, 1.0], [4.0, 3.6, 0.0, 2.4, 2.0]]],
    'quantile lower': [[-0.5, -1.0], [[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 2.0]]],
    'quantile higher': [[-0.25, 0.0], [[1.0, 0.0], [0.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.0, 0.0]]],
    'quantile midpoint': [[-0.375, -0.5], [[0.5, 0.0], [0.0, 0.0], [0.5, 1.0], [0.0, 0.0], [0.0, 1.0]]],
    'quantile nearest': [[-0.25, 0.0], [[1.0, 0.0], [0.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.0, 0.0]]],
    'nanquantile': [[[1.4, 1.6], [3.25, 4.75]], [[2.25, 0.0, 0.6, 0.4, 0.75], [1.2, 2.8, 0.0, 2.0, 0.0]]],
}

NOT_SMOOTH = ("fmax nan", "fmin nan", "nanmedian", "nanmedian dim", "nanquantile", "logit eps")


def inputs(name, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [torch.tensor(make(rng), dtype=dtype, requires_grad=True) for make in CASES[name][1]]


def run(name, dtype):
    """The value, and each input's gradient of the output weighted 1, 2, 3 ..."""
    xs = inputs(name, dtype)
    return weighted_gradients(CASES[name][0](torch, *xs), xs)


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_are_pytorchs(name):
    for got, want in zip(run(name, torch.float64), PYTORCH[name], strict=True):
        np.testing.assert_allclose(got, np.asarray(want, float), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_gives_the_same_numbers(name):
    xs = inputs(name, torch.float32)
    y = CASES[name][0](torch, *xs)
    # float_power computes in float64, its gradient returns in the input's float32
    assert y.dtype == (torch.float64 if "float_power" in name else torch.float32)
    for got, want in zip(run(name, torch.float32), PYTORCH[name], strict=True):
        want = np.asarray(want, float)
        assert got.dtype == np.float32 or "float_power" in name
        scale = max(1.0, np.nanmax(np.abs(want), initial=0.0))
        np.testing.assert_allclose(got, want, rtol=3e-5, atol=3e-5 * scale)


@pytest.mark.parametrize("name", [n for n in CASES if n not in NOT_SMOOTH])
def test_first_and_second_derivatives_match_finite_differences(name):
    xs = tuple(inputs(name, torch.float64, seed=1))
    fn = CASES[name][0]
    assert torch.autograd.gradcheck(lambda *a: fn(torch, *a), xs)
    assert torch.autograd.gradgradcheck(lambda *a: fn(torch, *a), xs)


def test_erfinv_differentiates_twice_near_its_poles():
    x = torch.tensor([-0.999, -0.2, 0.0, 0.6, 0.9999], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(torch.erfinv, (x,))
    g, = torch.autograd.grad(torch.erfinv(x).sum(), x, create_graph=True)
    g2, = torch.autograd.grad(g.sum(), x)
    # PyTorch 2.13.0: sqrt(pi)/2 exp(y^2) and its derivative 2 y (dy/dx)^2
    np.testing.assert_allclose(g.detach().numpy(), PYTORCH_EXACT["erfinv grad2"][0], rtol=1e-12)
    np.testing.assert_allclose(g2.numpy(), PYTORCH_EXACT["erfinv grad2"][1], rtol=1e-11)


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")  # (PyTorch's str is "torch.float32", NumPy's "float32")


def erfinv_edges(T):
    x = T.tensor([-1.0, 1.0, 1.5, -2.0, NAN, 0.0, -0.0, 0.9999999, -0.999999999999, 1e-10, 1 - 2 ** -53,
                  5e-324], dtype=T.float64, requires_grad=True)
    y = T.erfinv(x)
    y.sum().backward()
    ints = T.erfinv(T.tensor([1, 0]))
    return [y.tolist(), x.grad.tolist()[:7], dtype_name(ints.dtype), ints.tolist(), T.tensor([0.5]).erfinv().tolist()]


def logit_edges(T):
    out = []
    for eps in (None, 0.25, 0.0):
        x = T.tensor([0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.2, -0.1], dtype=T.float64, requires_grad=True)
        y = T.logit(x, eps)
        y.sum().backward()
        out += [y.tolist(), x.grad.tolist()]
    return out + [dtype_name(T.logit(T.tensor([1, 0])).dtype), T.tensor([0.5]).logit(eps=0.1).tolist()]


def fmax_dtypes(T):
    return [T.fmax(T.tensor([1, 5]), T.tensor([2.5, 1.0])).tolist(), dtype_name(T.fmax(T.tensor([1, 5]), T.tensor([2.5, 1.0])).dtype),
            T.fmax(T.tensor([1, 2]), T.tensor([True, False])).tolist(),
            dtype_name(T.fmin(T.tensor([1.0]), T.tensor([-2.0], dtype=T.float64)).dtype),
            T.fmin(T.tensor([NAN, 1.0]), T.tensor([NAN, NAN])).tolist()]


def elementwise_dtypes(T):
    return [(dtype_name(t.dtype), t.tolist()) for t in (
        T.copysign(T.tensor([1, -2]), T.tensor([-1, 1])), T.copysign(T.tensor([1.0, 2.0]), -1),
        T.copysign(T.tensor([1.0]), T.tensor([-2.0], dtype=T.float64)),
        T.float_power(T.tensor([2, 3]), 2), T.tensor([2, 3]).float_power(T.tensor([0.5])),
        T.ldexp(T.tensor([1, 2]), T.tensor([2, 3])), T.ldexp(T.tensor([1.0], dtype=T.float64), T.tensor([2])),
        T.logaddexp2(T.tensor([1.0]), T.tensor([-2.0], dtype=T.float64)),
        T.nextafter(T.tensor([1.0, 2.0]), T.tensor([2.0, 1.0])),
        T.nextafter(T.tensor([1.0, 0.0], dtype=T.float64), T.tensor([2.0, -1.0], dtype=T.float64)),
        T.sgn(T.tensor([-2.0, 0.0, 3.0, NAN])), T.sgn(T.tensor([-3, 0, 2])), T.sgn(T.tensor([True, False])),
        T.signbit(T.tensor([-1.0, 0.0, -0.0, 2.0])), T.signbit(T.tensor([-1, 0, 2])),
        T.heaviside(T.tensor([-1.0, 0.0, NAN, 2.0]), T.tensor(0.5)), T.heaviside(T.tensor([-1, 0, 2]), T.tensor([7])),
        T.clamp_min(T.tensor([1, 2]), 1.5), T.clamp_max(T.tensor([1, 2]), 1),
        T.positive(T.tensor([1, 2])))]


def frexp_parts(T):
    r = T.frexp(T.tensor([8.0, -0.3, 0.0, 1.0, float("inf"), NAN, -0.0, 1e-40]))
    d = T.frexp(T.tensor([8.0, -0.3], dtype=T.float64))
    return [r.mantissa.tolist(), r.exponent.tolist(), dtype_name(r.exponent.dtype), dtype_name(d.mantissa.dtype), d[1].tolist()]


def kthvalue_ties(T):
    rng = np.random.default_rng(7)  # tie-heavy slices: which of equal values is PyTorch's quickselect's
    x = T.tensor(rng.integers(0, 3, (12, 9)).astype(float))
    x[3, 2] = x[3, 5] = x[7, 0] = NAN
    return [T.kthvalue(x, k, dim=1).indices.tolist() for k in (1, 3, 5, 9)] + [
        T.kthvalue(x, 2, dim=0).indices.tolist(), T.tensor([2.0, 1.0, 2.0, 1.0, 2.0]).kthvalue(3).indices.item(),
        T.tensor(3.0).kthvalue(1).values.item(), T.tensor([3, 1, 2]).kthvalue(2).values.item()]


def mode_cases(T):
    x = T.tensor([[3.0, 1.0, 3.0, 1.0, 2.0], [NAN, NAN, 2.0, 2.0, 5.0], [4.0, 4.0, 4.0, 0.0, 0.0]])
    rng = np.random.default_rng(3)
    y = T.tensor(rng.integers(0, 4, (10, 12)))
    r = T.mode(y)
    return [T.mode(x).values.tolist(), T.mode(x).indices.tolist(), T.mode(x, 0, keepdim=True).indices.tolist(),
            r.values.tolist(), r.indices.tolist(), T.mode(T.tensor(2.0)).indices.item(), dtype_name(r.values.dtype)]


def cumulative_cases(T):
    x = T.tensor([[1.0, 3.0, 2.0, 3.0, NAN, 4.0, NAN], [0.0, -1.0, 0.0, 5.0, 5.0, 1.0, -1.0]], requires_grad=True)
    a, b = T.cummax(x, 1), T.cummin(x, dim=1)
    ((a.values * T.arange(1.0, 15.0).reshape(2, 7)).sum() + b.values.sum()).backward()
    return [a.indices.tolist(), b.indices.tolist(), x.grad.tolist(), T.cummax(T.tensor([1, 3, 2]), 0).values.tolist(),
            T.cummin(T.tensor(2.0), 0).indices.tolist(), T.cummax(x, 0).indices.tolist()]


def logcumsumexp_edges(T):
    x = T.tensor([[1.0, -2.0, 3.0], [-float("inf"), -float("inf"), 1.0], [-1000.0, 0.0, float("inf")]],
                 dtype=T.float64, requires_grad=True)
    y = T.logcumsumexp(x, 1)
    (y[:2] * T.arange(1.0, 7.0).reshape(2, 3)).sum().backward()
    return [y.tolist(), x.grad.tolist()]


def nanmedian_cases(T):
    x = T.tensor([[3.0, NAN, 2.0, 1.0], [NAN, NAN, NAN, NAN], [4.0, 1.0, 2.0, 2.0]], requires_grad=True)
    y = T.nanmedian(x)
    y.backward()
    alls = [T.nanmedian(T.full((1, n), NAN), 1).indices.item() for n in range(1, 21)]
    return [y.item(), x.grad.tolist(), T.nanmedian(x, 1).indices.tolist(), T.nanmedian(x, 0, keepdim=True).indices.tolist(),
            alls, T.nanmedian(T.tensor([NAN, NAN])).tolist(), T.nanmedian(T.tensor([3, 1, 2, 5])).item()]


def quantile_cases(T):
    x = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    return [T.quantile(T.tensor([1.0, NAN, 3.0]), 0.5).tolist(), T.nanquantile(T.tensor([1.0, NAN, 3.0, 4.0]), 0.5).item(),
            T.nanquantile(T.tensor([[1.0, NAN, 3.0, 4.0], [NAN] * 4]), 0.5, dim=1).tolist(),
            T.quantile(x, T.tensor([0.5, 0.1]), keepdim=True).tolist(), list(T.quantile(x, 0.5, keepdim=True).shape),
            T.quantile(x, 0.5, dim=1, keepdim=True).tolist(), T.quantile(T.tensor(3.0), 0.5).item(),
            T.quantile(x, T.tensor(0.5)).tolist(), T.quantile(x, 0.5, dim=-1, interpolation="nearest").tolist()]


def counts(T):
    return [T.histc(T.tensor([1.0, 2.0, 1.0, 2.5, 4.0, 0.0]), bins=4, min=0, max=3).tolist(),
            T.histc(T.tensor([1.0, 2.0, 1.0, 2.5, 4.0, 0.0]), bins=4).tolist(), T.histc(T.tensor([1.0, 1.0]), bins=4).tolist(),
            T.histc(T.tensor([0.7]), bins=4, min=1, max=1).tolist(), dtype_name(T.histc(T.tensor([1.0, 2.0], dtype=T.float64), 3).dtype),
            T.histc(T.tensor([1.0, NAN, 2.0]), 3, min=0, max=3).tolist(), T.histc(T.tensor([]), bins=3).tolist(),
            T.bincount(T.tensor([1, 3, 1, 0])).tolist(), T.bincount(T.tensor([1, 3, 1, 0]), minlength=6).tolist(),
            dtype_name(T.bincount(T.tensor([1, 3])).dtype),
            T.bincount(T.tensor([1, 3, 1, 0]), weights=T.tensor([0.5, 1.0, 2.0, 3.0])).tolist(),
            dtype_name(T.bincount(T.tensor([1, 3]), weights=T.tensor([0.5, 1.0])).dtype),
            dtype_name(T.bincount(T.tensor([1, 3]), weights=T.tensor([1, 2])).dtype),
            T.bincount(T.tensor([], dtype=T.int64), minlength=2).tolist(),
            T.bincount(T.tensor([1, 2]), weights=T.tensor([1.0, 2.0], requires_grad=True)).requires_grad]


def uniques(T):
    def lists(r):
        return [t.tolist() for t in r] if isinstance(r, tuple) else r.tolist()
    x = T.tensor([[3, 1], [3, 1], [2, 5]])
    return [lists(T.unique(T.tensor([3, 1, 3, 2, 1]))),
            lists(T.unique(T.tensor([3, 1, 3, 2, 1]), return_inverse=True, return_counts=True)),
            lists(T.unique(T.tensor([3, 1, 3, 2, 1]), sorted=False)),
            lists(T.unique(x, dim=0, return_inverse=True, return_counts=True)), lists(T.unique(x, dim=1)),
            lists(T.unique(T.tensor([[3.0, 1.0], [3.0, 1.0]]), return_inverse=True)),
            lists(T.unique(T.tensor([NAN, 1.0, NAN]))), lists(T.tensor([3, 1, 3]).unique(return_counts=True)),
            lists(T.unique(T.tensor(3), return_inverse=True)),
            lists(T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1, 2]))),
            lists(T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)),
            lists(T.unique_consecutive(T.tensor([[1, 1], [1, 1], [2, 3]]), dim=0, return_counts=True)),
            T.unique(T.tensor([3.0, 1.0], requires_grad=True)).requires_grad]


def queries(T):
    x = T.tensor([1.0, 2.0], requires_grad=True)
    new = x.new_tensor([1, 2])
    return [x.conj() is x, x.resolve_conj() is x, x.resolve_neg() is x, T.conj(x) is x, T.positive(x) is x,
            x.element_size(), T.tensor(True).element_size(), T.tensor([1], dtype=T.int16).element_size(),
            x.is_complex(), T.is_complex(x), x.is_signed(), T.tensor([1], dtype=T.uint8).is_signed(),
            T.tensor([True]).is_signed(), x.get_device(),
            T.tensor([0.0]).is_nonzero(), T.tensor([[3]]).is_nonzero(), T.tensor(NAN).is_nonzero(),
            T.is_nonzero(T.tensor([False])), x.is_same_size(T.zeros(2)), x.is_same_size(T.zeros(2, 1)),
            dtype_name(new.dtype), new.tolist(), new.requires_grad, x.new_tensor(3.5, requires_grad=True).requires_grad,
            T.tensor([1, 2]).new_tensor([1.5]).tolist(), dtype_name(x.new_tensor([1, 2], dtype=T.int32).dtype),
            list(x.new_empty(2, 3).shape), list(x.new_empty((2,)).shape), dtype_name(x.new_empty([2], dtype=T.int64).dtype),
            x.new_empty(2, requires_grad=True).requires_grad, dtype_name(x.new_empty(1).dtype)]


EXACT = {  # name: PyTorch code on namespace T, giving Python values
    "erfinv edges": erfinv_edges, "logit edges": logit_edges, "fmax dtypes": fmax_dtypes,
    "elementwise dtypes": elementwise_dtypes, "frexp": frexp_parts, "kthvalue ties": kthvalue_ties,
    "mode": mode_cases, "cummax cummin": cumulative_cases, "logcumsumexp edges": logcumsumexp_edges,
    "nanmedian": nanmedian_cases, "quantile": quantile_cases, "counts": counts, "unique": uniques,
    "queries": queries,
}

PYTORCH_EXACT = {  # what PyTorch 2.13.0+cpu gave running each function with T = torch
    'erfinv edges': [[-INF,
                      INF,
                      NAN,
                      NAN,
                      NAN,
                      0.0,
                      -0.0,
                      3.7665625816384707,
                      -5.042031898572696,
                      8.862269254527581e-11,
                      5.8635847487551676,
                      5e-324],
                     [INF, INF, NAN, NAN, NAN, 0.8862269254527579, 0.8862269254527579],
                     'float32',
                     [INF, 0.0],
                     [0.4769362807273865]],
    'logit edges': [[-INF, -2.197224577336219, -1.0986122886681098, 0.0, 1.0986122886681098, INF, NAN, NAN],
                    [INF, 11.111111111111109, 5.333333333333333, 4.0, 5.333333333333333, INF, NAN, NAN],
                    [-1.0986122886681098,
                     -1.0986122886681098,
                     -1.0986122886681098,
                     0.0,
                     1.0986122886681098,
                     1.0986122886681098,
                     1.0986122886681098,
                     -1.0986122886681098],
                    [0.0, 0.0, 5.333333333333333, 4.0, 5.333333333333333, 0.0, 0.0, 0.0],
                    [-INF, -2.197224577336219, -1.0986122886681098, 0.0, 1.0986122886681098, INF, INF, -INF],
                    [INF, 11.111111111111109, 5.333333333333333, 4.0, 5.333333333333333, INF, 0.0, 0.0],
                    'float32',
                    [0.0]],
    'fmax dtypes': [[2.5, 5.0], 'float32', [1, 2], 'float64', [NAN, 1.0]],
    'elementwise dtypes': [('float32', [-1.0, 2.0]),
                           ('float32', [-1.0, -2.0]),
                           ('float64', [-1.0]),
                           ('float64', [4.0, 9.0]),
                           ('float64', [1.4142135623730951, 1.7320508075688772]),
                           ('float32', [4.0, 16.0]),
                           ('float64', [4.0]),
                           ('float64', [1.1699250014423124]),
                           ('float32', [1.0000001192092896, 1.9999998807907104]),
                           ('float64', [1.0000000000000002, -5e-324]),
                           ('float32', [-1.0, 0.0, 1.0, 0.0]),
                           ('int64', [-1, 0, 1]),
                           ('bool', [True, False]),
                           ('bool', [True, False, True, False]),
                           ('bool', [True, False, False]),
                           ('float32', [0.0, 0.5, 0.0, 1.0]),
                           ('int64', [0, 7, 1]),
                           ('float32', [1.5, 2.0]),
                           ('int64', [1, 1]),
                           ('int64', [1, 2])],
    'frexp': [[0.5, -0.6000000238418579, 0.0, 0.5, INF, NAN, -0.0, 0.5444488525390625],
              [4, -1, 0, 1, 0, 0, 0, -132],
              'int32',
              'float64',
              [4, -1]],
    'kthvalue ties': [[8, 4, 0, 1, 7, 2, 6, 3, 7, 3, 3, 6],
                      [1, 7, 7, 0, 2, 4, 7, 8, 6, 4, 0, 7],
                      [2, 5, 4, 7, 1, 6, 8, 7, 8, 7, 5, 8],
                      [0, 8, 8, 2, 8, 7, 0, 0, 0, 5, 1, 0],
                      [10, 1, 7, 2, 7, 5, 6, 2, 7],
                      2,
                      3.0,
                      2],
    'mode': [[1.0, 2.0, 4.0],
             [3, 3, 2],
             [[0, 0, 1, 2, 2]],
             [0, 1, 1, 3, 0, 2, 1, 3, 1, 2],
             [9, 9, 10, 8, 9, 11, 8, 9, 11, 9],
             0,
             'int64'],
    'cummax cummin': [[[0, 1, 1, 3, 4, 4, 6], [0, 0, 2, 3, 4, 4, 4]],
                      [[0, 0, 0, 0, 4, 4, 6], [0, 1, 1, 1, 1, 1, 6]],
                      [[5.0, 5.0, 0.0, 4.0, 13.0, 0.0, 8.0], [18.0, 5.0, 10.0, 11.0, 39.0, 0.0, 1.0]],
                      [1, 3, 3],
                      0,
                      [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0]]],
    'logcumsumexp edges': [[[1.0, 1.048587351573742, 3.1328452337275756],
                            [-INF, -INF, 1.0],
                            [-1000.0, 0.0, INF]],
                           [[3.260647217249895, 0.11255099756084191, 2.6268017851892638],
                            [NAN, NAN, 6.0],
                            [0.0, 0.0, NAN]]],
    'nanmedian': [2.0,
                  [[0.0, 0.0, 0.3333333432674408, 0.0],
                   [0.0, 0.0, 0.0, 0.0],
                   [0.0, 0.0, 0.3333333432674408, 0.3333333432674408]],
                  [2, 2, 2],
                  [[0, 2, 0, 0]],
                  [0, 0, 0, 2, 2, 3, 5, 6, 7, 8, 8, 9, 8, 9, 9, 10, 10, 11, 11, 12],
                  NAN,
                  2],
    'quantile': [NAN,
                 3.0,
                 [3.0, NAN],
                 [[[2.5]], [[1.2999999523162842]]],
                 [1, 1],
                 [[1.5], [3.5]],
                 3.0,
                 2.5,
                 [1.0, 3.0]],
    'counts': [[1.0, 2.0, 1.0, 1.0],
               [1.0, 2.0, 2.0, 1.0],
               [0.0, 0.0, 2.0, 0.0],
               [0.0, 0.0, 1.0, 0.0],
               'float64',
               [0.0, 1.0, 1.0],
               [0.0, 0.0, 0.0],
               [1, 2, 0, 1],
               [1, 2, 0, 1, 0, 0],
               'int64',
               [3.0, 2.5, 0.0, 1.0],
               'float32',
               'float64',
               [0, 0],
               True],
    'unique': [[1, 2, 3],
               [[1, 2, 3], [2, 0, 2, 1, 0], [2, 1, 2]],
               [1, 2, 3],
               [[[2, 5], [3, 1]], [1, 1, 0], [1, 2]],
               [[1, 3], [1, 3], [5, 2]],
               [[1.0, 3.0], [[1, 0], [1, 0]]],
               [1.0, NAN, NAN],
               [[1, 3], [1, 2]],
               [[3], 0],
               [1, 2, 3, 1, 2],
               [[1, 2, 3, 1, 2], [0, 0, 1, 1, 2, 3, 3, 4], [2, 2, 1, 2, 1]],
               [[[1, 1], [2, 3]], [2, 1]],
               True],
    'queries': [True,
                True,
                True,
                True,
                True,
                4,
                1,
                2,
                False,
                False,
                True,
                False,
                False,
                -1,
                False,
                True,
                True,
                False,
                True,
                False,
                'float32',
                [1.0, 2.0],
                False,
                True,
                [1],
                'int32',
                [2, 3],
                [2],
                'int64',
                True,
                'float32'],
    'erfinv grad2': [[198.93951776442498,
                      0.9151293475072344,
                      0.8862269254527579,
                      1.2628624281411842,
                      1715.6895961763146],
                     [-184171.5498527827, -0.3000515722240515, 0.0, 1.898207858155958, 16196012.753463972]],
}


@pytest.mark.parametrize("name", list(EXACT))
def test_edges_are_pytorchs(name):
    got = EXACT[name](torch)
    assert same(got, PYTORCH_EXACT[name]), f"{name}: got {got!r}, PyTorch 2.13.0 gave {PYTORCH_EXACT[name]!r}"


def test_results_are_pytorchs_named_tuples_and_grad_fns():
    x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
    r = torch.kthvalue(x, 2)
    assert type(r).__name__ == "kthvalue" and r._fields == ("values", "indices") and r[0] is r.values
    assert torch.aminmax(x)._fields == ("min", "max") and torch.frexp(x)._fields == ("mantissa", "exponent")
    for fn in (torch.mode, lambda t: torch.cummax(t, 0), lambda t: torch.cummin(t, 0), lambda t: t.nanmedian(0)):
        assert fn(x)._fields == ("values", "indices")
    names = {  # PyTorch 2.13.0's
        "ErfinvBackward0": torch.erfinv(x * 0.1), "LogitBackward0": torch.logit(x), "FmaxBackward0": torch.fmax(x, x),
        "FminBackward0": x.fmin(x), "ClampMinBackward0": x.clamp_min(1.0), "ClampMinBackward1": x.clamp_min(x[0]),
        "ClampMaxBackward0": torch.clamp_max(x, 1.0), "ClampMaxBackward1": x.clamp_max(x), "CopysignBackward0":
        torch.copysign(x, x), "CopysignBackward1": x.copysign(-1.0), "PowBackward0": torch.float_power(x, 2),
        "PowBackward1": x.float_power(x), "Logaddexp2Backward0": torch.logaddexp2(x, x), "SgnBackward0": x.sgn(),
        "NextafterBackward0": torch.nextafter(x, x), "LdexpBackward0": torch.ldexp(x, torch.tensor([1])),
        "FrexpBackward0": torch.frexp(x).mantissa, "KthvalueBackward0": r.values, "ModeBackward0": x.mode().values,
        "CummaxBackward0": x.cummax(1).values, "CumminBackward0": x.cummin(1).values,
        "LogcumsumexpBackward0": x.logcumsumexp(1), "SortBackward0": x.msort(), "AminmaxBackward0": x.aminmax().max,
        "NanmedianBackward0": x.nanmedian(), "NanmedianBackward1": x.nanmedian(1).values,
        "SqueezeBackward4": x.quantile(0.5), "NotImplemented": torch.heaviside(x, x),
        "Unique2Backward0": x.unique(), "UniqueDimBackward0": x.unique(dim=0),
        "UniqueConsecutiveBackward0": x.unique_consecutive()}
    assert {name: t.grad_fn.name() for name, t in names.items()} == {name: name for name in names}


def test_the_undifferentiated_raise_pytorchs_errors_on_backward():
    x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    cases = [(RuntimeError, "derivative for aten::heaviside is not implemented", torch.heaviside(x, torch.tensor([0.5]))),
             (RuntimeError, "derivative for aten::bincount is not implemented",
              torch.bincount(torch.tensor([1, 2, 2]), weights=x)),
             (NotImplementedError, "the derivative for '_unique2' is not implemented.", torch.unique(x)),
             (NotImplementedError, "the derivative for 'unique_dim' is not implemented.", x.unique(dim=0))]
    for exc, message, y in cases:
        assert y.requires_grad
        with pytest.raises(exc) as info:
            y.sum().backward()
        assert str(info.value) == message
    assert not torch.heaviside(x.detach(), torch.tensor([0.5])).requires_grad
    assert not torch.histc(x, bins=3).requires_grad and not torch.signbit(x).requires_grad


def test_method_and_function_forms_agree():
    x = torch.tensor([[0.3, -0.2, 0.9], [0.1, 0.5, -0.7]], dtype=torch.float64)
    pairs = [(torch.erfinv(x), x.erfinv()), (torch.logit(x.abs(), 0.1), x.abs().logit(0.1)),
             (torch.kthvalue(x, 2, 0).values, x.kthvalue(2, 0).values), (torch.cummax(x, 1).values, x.cummax(1).values),
             (torch.quantile(x, 0.5, 1), x.quantile(0.5, 1)), (torch.msort(x), x.msort()),
             (torch.sgn(x), x.sgn()), (torch.nanmedian(x), x.nanmedian()), (torch.histc(x, 4), x.histc(4))]
    for a, b in pairs:
        assert a.tolist() == b.tolist()
    assert torch.is_same_size(x, x) and torch.get_device(x) == -1 and torch.is_signed(x)


def test_erfinv_inverts_erf_to_float64_accuracy():
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.uniform(-1, 1, 300), 1 - 10.0 ** -rng.uniform(1, 15.9, 100), 10.0 ** -rng.uniform(0, 300, 50)])
    y = torch.erfinv(torch.tensor(x, dtype=torch.float64)).numpy()
    back = np.array([math.erfc(v) for v in y])
    tail = x > 0.5  # where 1 - x is exact: erfc(y) is it, to its conditioning
    np.testing.assert_allclose(back[tail], 1 - x[tail], rtol=2e-14)
    np.testing.assert_allclose(np.array([math.erf(v) for v in y[~tail]]), x[~tail], rtol=2e-15, atol=0)


def test_refusals_in_pytorchs_words():
    t = torch.tensor([1.0, 2.0])
    cases = [
        (TypeError, "fmax(): argument 'other' (position 2) must be Tensor, not float", lambda: torch.fmax(t, 2.0)),
        (TypeError, "logaddexp2(): argument 'other' (position 2) must be Tensor, not float", lambda: torch.logaddexp2(t, 2.0)),
        (TypeError, "heaviside(): argument 'values' (position 2) must be Tensor, not float", lambda: torch.heaviside(t, 0.5)),
        (RuntimeError, "heaviside is not yet implemented for tensors with different dtypes.",
         lambda: torch.heaviside(torch.tensor([1, 0]), torch.tensor([0.5]))),
        (NotImplementedError, "\"logaddexp2_cpu\" not implemented for 'Long'",
         lambda: torch.logaddexp2(torch.tensor([1]), torch.tensor([2]))),
        (NotImplementedError, "\"nextafter_cpu\" not implemented for 'Long'",
         lambda: torch.nextafter(torch.tensor([1]), torch.tensor([2]))),
        (RuntimeError, "The `+` operator, on a bool tensor is not supported.", lambda: torch.positive(torch.tensor([True]))),
        (RuntimeError, "torch.frexp() only supports floating-point dtypes", lambda: torch.frexp(torch.tensor([8]))),
        (RuntimeError, "kthvalue(): selected number k out of range for dimension 1", lambda: torch.ones(2, 4).kthvalue(5)),
        (RuntimeError, "kthvalue(): selected number k out of range for dimension 1", lambda: torch.ones(2, 4).kthvalue(0)),
        (IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
         lambda: torch.ones(2, 4).kthvalue(1, dim=2)),
        (TypeError, 'cummax() missing 1 required positional arguments: "dim"', lambda: torch.cummax(t)),
        (NotImplementedError, "\"logcumsumexp_out_cpu\" not implemented for 'Long'",
         lambda: torch.logcumsumexp(torch.tensor([1, 2]), 0)),
        (RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.",
         lambda: torch.aminmax(torch.tensor([]))),
        (RuntimeError, "quantile() q must be in the range [0, 1] but got 1.5", lambda: torch.quantile(t, 1.5)),
        (RuntimeError, "quantile() input tensor must be either float or double dtype",
         lambda: torch.quantile(torch.tensor([1, 2]), 0.5)),
        (RuntimeError, "quantile() q tensor must be same dtype as the input tensor",
         lambda: torch.quantile(t, torch.tensor([0.5], dtype=torch.float64))),
        (RuntimeError, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got foo",
         lambda: torch.quantile(t, 0.5, interpolation="foo")),
        (RuntimeError, "quantile() input tensor must be non-empty", lambda: torch.quantile(torch.tensor([]), 0.5)),
        (RuntimeError, "quantile() q must be a scalar or 1D tensor", lambda: torch.quantile(t, torch.tensor([[0.5]]))),
        (RuntimeError, "quantile() q values must be in the range [0, 1]", lambda: torch.quantile(t, torch.tensor([0.5, 1.5]))),
        (RuntimeError, "nanquantile() q must be in the range [0, 1] but got -0.1", lambda: torch.nanquantile(t, -0.1)),
        (IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
         lambda: torch.quantile(torch.ones(2, 2), 0.5, dim=3)),
        (NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'", lambda: torch.histc(torch.tensor([1, 2]), 4)),
        (RuntimeError, "torch.histogram(): bins must be > 0, but got 0 for dimension 0", lambda: torch.histc(t, bins=0)),
        (RuntimeError, "torch.histc: max must be larger than min", lambda: torch.histc(t, bins=3, min=3, max=1)),
        (RuntimeError, "torch.histc: range of [-nan, -nan] is not finite", lambda: torch.histc(torch.tensor([1.0, NAN]), 3)),
        (RuntimeError, "bincount only supports 1-d non-negative integral inputs.", lambda: torch.bincount(torch.tensor([1, -3]))),
        (RuntimeError, "bincount only supports 1-d non-negative integral inputs.", lambda: torch.bincount(torch.tensor([[1, 3]]))),
        (NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'", lambda: torch.bincount(t)),
        (RuntimeError, "weights should be 1-d and have the same length as input",
         lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.tensor([1.0]))),
        (RuntimeError, "minlength should be >= 0", lambda: torch.bincount(torch.tensor([1, 2]), minlength=-1)),
        (IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
         lambda: torch.unique(torch.tensor([[1, 2]]), dim=2)),
        (RuntimeError, "Boolean value of Tensor with more than one value is ambiguous", lambda: t.is_nonzero()),
        (RuntimeError, "Boolean value of Tensor with no values is ambiguous", lambda: torch.tensor([]).is_nonzero()),
        (TypeError, 'new_empty() missing 1 required positional arguments: "size"', lambda: t.new_empty()),
    ]
    for exc, message, fn in cases:
        with pytest.raises(exc) as info:
            fn()
        assert str(info.value) == message


def test_ldexp_by_a_negative_integer_has_the_true_gradient():
    """Where PyTorch 2.13.0 differs, on purpose: its gradient of ``ldexp(x, e)`` for an integer
    ``e`` is ``grad * pow(2, e)`` in integers, 0 for ``e < 0`` (``[4., 0., 0.]`` below); here
    it is ``2 ** e``, the derivative of the value both give, ``x * 2 ** e``."""
    x = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
    y = torch.ldexp(x, torch.tensor([2, -1, -3]))
    y.sum().backward()
    assert y.tolist() == [6.0, -1.0, 0.375] and x.grad.tolist() == [4.0, 0.5, 0.125]


def test_new_tensor_from_a_tensor_warns_as_pytorch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match=r"To copy construct from a tensor, it is recommended to use "
                                         r"sourceTensor\.detach\(\)\.clone\(\)"):
        y = x.new_tensor(x)
    assert y.tolist() == [1.0, 2.0] and not y.requires_grad and y.grad_fn is None
    y[0] = 5.0
    assert x.tolist() == [1.0, 2.0]  # a copy


def test_itemsize_and_nbytes_are_properties_as_pytorchs():
    x = torch.zeros(3, 2)
    assert (x.itemsize, x.nbytes) == (4, 24)  # PyTorch 2.13.0: 4 24
    assert (torch.zeros(5, dtype=torch.float64).nbytes, torch.zeros(2, dtype=torch.int8).itemsize) == (40, 1)


def test_copysign_passes_nan_to_the_gradient_as_pytorch():
    # PyTorch 2.13.0: grad [nan, 0., -1., -1.] (the engine's copysign, shared with NumPy's)
    x = torch.tensor([float("nan"), 0.0, -2.0, 3.0], requires_grad=True)
    y = torch.copysign(x, torch.tensor([1.0, -1.0, 1.0, -1.0]))
    y.sum().backward()
    g = x.grad.tolist()
    assert np.isnan(g[0]) and g[1:] == [0.0, -1.0, -1.0] and str(y.grad_fn) == "<CopysignBackward0>"
