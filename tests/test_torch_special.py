"""``torch.special`` on gradmagic.torch: values, gradients (of the output weighted 1, 2,
3 ...) and node names as PyTorch's.

Each case is PyTorch code on the namespace ``T``; the expected results are what PyTorch
2.13.0+cpu gave running the same function with ``T = torch`` (pasted below).
"""

import pytest
from _cases import same_as_printed as same

import gradmagic.torch as torch

inf, nan = float("inf"), float("nan")

X = [0.2, 0.45, 0.7, 0.95]


def run(T, name, vals=X, *args):
    x = T.tensor(vals, dtype=T.float64, requires_grad=True)
    f = getattr(T.special, name)
    y = f(*args, x) if name == "polygamma" else f(x, *args)
    (y * T.tensor([1.0, 2.0, 3.0, 4.0], dtype=T.float64)).sum().backward()
    return [y.tolist(), x.grad.tolist(), type(y.grad_fn).__name__ if not hasattr(y.grad_fn, "prim") else y.grad_fn.name()]


CASES = {name: (lambda T, n=name: run(T, n)) for name in (
    "expit", "logit", "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "gammaln", "digamma", "psi",
    "sinc", "ndtr", "ndtri")}
CASES["polygamma"] = lambda T: run(T, "polygamma", X, 1)
CASES["xlogy"] = lambda T: (lambda x, y: (T.special.xlogy(x, y).sum().backward(), [x.grad.tolist(), y.grad.tolist()])[1])(
    T.tensor([0.0, 1.0, 2.0], dtype=T.float64, requires_grad=True), T.tensor([0.5, 2.0, 3.0], dtype=T.float64, requires_grad=True))
CASES["xlog1py"] = lambda T: (lambda x, y: (T.special.xlog1py(x, y).sum().backward(), [T.special.xlog1py(x, y).tolist(), x.grad.tolist(), y.grad.tolist()])[1])(
    T.tensor([0.0, 1.0, 2.0], dtype=T.float64, requires_grad=True), T.tensor([0.5, 2.0, 3.0], dtype=T.float64, requires_grad=True))
CASES["round"] = lambda T: T.special.round(T.tensor([0.125, 2.5, -1.55]), decimals=1).tolist()
CASES["logsumexp etc"] = lambda T: [T.special.logsumexp(T.tensor([[1.0, 2.0], [3.0, 0.0]]), 1).tolist(),
                                    T.special.softmax(T.tensor([1.0, 2.0]), 0).tolist(),
                                    T.special.log_softmax(T.tensor([1.0, 2.0]), 0).tolist()]


PYTORCH = {'digamma': [[-5.289039896592188, -2.2335386448086685, -1.2200235536979347, -0.6626096162053255],
             [26.267377204400756, 11.832700784208741, 8.502147473585925, 7.095237780874095],
             'DigammaBackward0'],
 'erf': [[0.22270258921047847, 0.47548171978692366, 0.6778011938374184, 0.8208908072732779],
         [1.084134787104863, 1.8430640260244402, 2.073824581231616, 1.83047701854073],
         'ErfBackward0'],
 'erfc': [[0.7772974107895215, 0.5245182802130763, 0.32219880616258156, 0.17910919272672207],
          [-1.084134787104863, -1.8430640260244402, -2.073824581231616, -1.83047701854073],
          'ErfcBackward0'],
 'erfinv': [[0.1791434546212917, 0.4226802386475619, 0.7328690779592167, 1.3859038243496777],
            [0.9151293475072344, 2.119167932703477, 4.5490896520012924, 24.197311545536934],
            'ErfinvBackward0'],
 'exp2': [[1.148698354997035, 1.3660402567543954, 1.624504792712471, 1.931872657849691],
          [0.796217026080042, 1.893733905001386, 3.378062750624303, 5.356288343957445],
          'Exp2Backward0'],
 'expit': [[0.549833997312478, 0.610639233949222, 0.6681877721681662, 0.7211151780228631],
           [0.24751657271185995, 0.4755179198222586, 0.6651386198793271, 0.8044323121916703],
           'SigmoidBackward0'],
 'expm1': [[0.22140275816016985, 0.5683121854901688, 1.0137527074704764, 1.5857096593158462],
           [1.2214027581601699, 3.1366243709803374, 6.041258122411429, 10.342838637263384],
           'Expm1Backward0'],
 'gammaln': [[1.5240638224307845, 0.6770871054774646, 0.26086724653166654, 0.030968795237972926],
             [-5.289039896592188, -4.467077289617337, -3.660070661093804, -2.650438464821302],
             'LgammaBackward0'],
 'log1p': [[0.18232155679395465, 0.371563556432483, 0.5306282510621704, 0.6678293725756554],
           [0.8333333333333334, 1.3793103448275863, 1.7647058823529411, 2.0512820512820515],
           'Log1PBackward0'],
 'logit': [[-1.3862943611198906, -0.20067069546215124, 0.8472978603872034, 2.9444389791664394],
           [6.249999999999999, 8.08080808080808, 14.285714285714285, 84.2105263157894],
           'LogitBackward0'],
 'logsumexp etc': [[2.3132617473602295, 3.0485873222351074],
                   [0.2689414322376251, 0.7310585975646973],
                   [-1.31326162815094, -0.31326165795326233]],
 'ndtr': [[0.579259709439103, 0.67364477971208, 0.758036347776927, 0.8289438736915182],
          [0.3910426939754559, 0.7210539249232959, 0.9367618001002838, 1.016236225876756],
          'MulBackward1'],
 'ndtri': [[-0.8416212335729142, -0.12566134685507402, 0.5244005127080407, 1.644853626951472],
           [3.5719143465773615, 5.05299481815905, 8.628310977792877, 38.78387709080624],
           'SpecialNdtriBackward0'],
 'polygamma': [[26.267377204400756, 5.916350392104371, 2.834049157861975, 1.7738094452185238],
               [-251.4780361144359, -45.7034224056038, -19.30497862257277, -11.050660590223403],
               'PolygammaBackward0'],
 'psi': [[-5.289039896592188, -2.2335386448086685, -1.2200235536979347, -0.6626096162053255],
         [26.267377204400756, 11.832700784208741, 8.502147473585925, 7.095237780874095],
         'DigammaBackward0'],
 'round': [0.10000000149011612, 2.5, -1.600000023841858],
 'sinc': [[0.935489283788639, 0.6986465850664342, 0.3678830105717742, 0.052415407118082215],
          [-0.6323614470684578, -2.409831644560903, -4.0957211265610605, -4.379384200897768],
          'SincBackward0'],
 'xlog1py': [[0.0, 1.0986122886681096, 2.772588722239781],
             [0.4054651081081644, 1.0986122886681096, 1.3862943611198906],
             [0.0, 0.3333333333333333, 0.5]],
 'xlogy': [[-0.6931471805599453, 0.6931471805599453, 1.0986122886681098],
           [0.0, 0.5, 0.6666666666666666]]}


@pytest.mark.parametrize("name", sorted(CASES))
def test_as_pytorch(name):
    got = CASES[name](torch)
    assert same(got, PYTORCH[name]), (got, PYTORCH[name])


def test_a_name_it_does_not_map_says_what_it_maps():
    with pytest.raises(AttributeError, match="gradmagic.torch.special.zeta does not exist: it maps expit"):
        torch.special.zeta
