"""gradmagic.torch.linalg against PyTorch 2.13.0: values, gradients and second derivatives
(``torch.autograd.grad`` with ``create_graph=True``), result types and PyTorch's errors.

Each case is a scalar function of a float64 matrix, written as PyTorch code; the expected
numbers are what PyTorch 2.13.0+cpu printed running the same lines with ``import torch``.
The ``-lower-read`` cases give a matrix whose upper triangle is not its lower one's mirror:
PyTorch's cholesky, eigh and eigvalsh read the lower triangle and spread the gradient of an
off-diagonal entry half and half over both triangles.
"""

import importlib
import math

import numpy as np
import pytest

import gradmagic.torch as torch

# -- the cases, as PyTorch code (the same lines made the expected numbers) ----------------
S3 = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]  # symmetric positive-definite
L3 = [[4.0, 9.0, 9.0], [1.0, 3.0, 9.0], [0.5, 0.2, 2.0]]  # S3's lower triangle, another upper one
G3 = [[1.0, 2.0, 0.5], [-0.3, 1.5, 1.0], [0.7, -1.2, 2.5]]  # general, invertible
R32 = [[1.0, 2.0], [0.5, -1.0], [1.5, 0.3]]  # tall
W = torch.tensor([[0.3, -0.7, 1.1], [0.4, 0.9, -0.2], [-0.5, 0.6, 0.8]], dtype=torch.float64)
V = torch.tensor([[0.2, 0.5, -0.3], [0.7, -0.1, 0.4], [0.6, 0.3, -0.9]], dtype=torch.float64)
LINALG = {  # name: (input, a scalar function of it)
    "det": (G3, lambda A: torch.linalg.det(A)),
    "slogdet": (G3, lambda A: torch.linalg.slogdet(A).logabsdet * torch.linalg.slogdet(A).sign),
    "inv": (G3, lambda A: (torch.linalg.inv(A) * W).sum()),
    "solve": (G3, lambda A: (torch.linalg.solve(A, W[:, :2]) * W[:, 1:]).sum()),
    "solve-vector": (G3, lambda A: (torch.linalg.solve(A, W[0]) * W[1]).sum()),
    "solve-left-false": (G3, lambda A: (torch.linalg.solve(A, W[:2], left=False) * W[1:]).sum()),
    "cholesky": (S3, lambda A: (torch.linalg.cholesky(A) * W).sum()),
    "cholesky-upper": (S3, lambda A: (torch.linalg.cholesky(A, upper=True) * W).sum()),
    "cholesky-lower-read": (L3, lambda A: (torch.linalg.cholesky(A) * W).sum()),
    "eigh": (S3, lambda A: (torch.linalg.eigh(A).eigenvalues * W[0]).sum()
             + (torch.linalg.eigh(A).eigenvectors ** 2 * W).sum()),
    "eigh-upper": (S3, lambda A: (torch.linalg.eigh(A, UPLO="U").eigenvectors ** 2 * W).sum()),
    "eigh-lower-read": (L3, lambda A: (torch.linalg.eigh(A).eigenvectors ** 2 * W).sum()),
    "eigvalsh": (L3, lambda A: (torch.linalg.eigvalsh(A) * W[0]).sum()),
    "svdvals": (R32, lambda A: (torch.linalg.svdvals(A) * W[0, :2]).sum()),
    "qr": (G3, lambda A: (torch.linalg.qr(A).Q * W).sum() + (torch.linalg.qr(A).R * V).sum()),
    "qr-tall": (R32, lambda A: (torch.linalg.qr(A).Q * W[:, :2]).sum() + (torch.linalg.qr(A).R * V[:2, :2]).sum()),
    "pinv": (R32, lambda A: (torch.linalg.pinv(A) * W[:2]).sum()),
    "vector_norm": (G3, lambda A: torch.linalg.vector_norm(A)),
    "vector_norm-3-dim": (G3, lambda A: (torch.linalg.vector_norm(A, 3, dim=0) * W[0]).sum()),
    "matrix_norm-fro": (G3, lambda A: torch.linalg.matrix_norm(A)),
    "matrix_norm-nuc": (G3, lambda A: torch.linalg.matrix_norm(A, "nuc")),
    "matrix_norm-2": (G3, lambda A: torch.linalg.matrix_norm(A, 2)),
    "norm-dim": (G3, lambda A: (torch.linalg.norm(A, dim=1) * W[0]).sum()),
    "norm-ord": (R32, lambda A: torch.linalg.norm(A, ord=-2)),
    "det-inverse-methods": (G3, lambda A: A.det() + (A.inverse() * W).sum() + (torch.det(A) * torch.inverse(A)).sum()),
}

EXPECTED = {  # (value, gradient, second derivative along V), PyTorch 2.13.0+cpu
    'det': (7.505, [[4.949999999999999, 1.4499999999999997, -0.6899999999999993], [-5.6, 2.1500000000000004, 2.599999999999999], [1.2500000000000002, -1.15, 2.1]], [[-1.4199999999999995, -1.1399999999999997, -1.7599999999999993], [1.0599999999999996, -0.49, 1.4899999999999993], [1.8, -0.1600000000000002, -1.0499999999999998]]),
    'slogdet': (2.0155694650854254, [[0.6595602931379081, 0.19320453031312457, -0.09193870752831443], [-0.7461692205196535, 0.2864756828780813, 0.346435709526982], [0.1665556295802798, -0.15323117921385745, 0.2798134576948701]], [[0.044385244391813426, -0.08347266601301997, -0.2670716968168234], [-0.12302702040522834, 0.036169535654888715, 0.32122932923687114], [0.298828096392323, -0.07558807119925824, -0.04080690598894539]]),
    'inv': (1.7468354430379749, [[-0.569864815861156, 0.13019168655495497, -0.023275622159066943], [1.0236213832128795, -0.3205457964732374, -0.2001028849965002], [-0.037780720026311665, 0.12110070079862376, -0.10637633982408355]], [[-0.4886960496722352, 0.11727687716027974, 0.3651487465559228], [0.6477075226342697, -0.14104975563984629, -0.5740705975628715], [-0.4643295146160584, 0.14228406995768506, 0.030075225853894744]]),
    'solve': (-0.3719253830779482, [[0.5706902926363551, 0.06666113330619917, -0.3435880765254876], [-0.43927810063111394, -0.2277628815965905, 0.3554971347105484], [0.43636332163190344, 0.008165997263205833, -0.24063380353581734]], [[-0.2886228827170563, 0.05227687405094695, -0.1804836514878643], [0.3811161400447264, -0.08057217953563094, 0.15017115171720163], [0.23360955757326285, 0.04802004727190575, -0.36971887351085997]]),
    'solve-vector': (0.07380413057961353, [[-0.4120360354922168, 0.1419032659106676, -0.017198554283819698], [0.09930754580224328, -0.03420105006611182, 0.004145137973751461], [0.11495600756502104, -0.039590306440165805, 0.004798311230221388]], [[-0.1917006633001595, 0.05966104765450564, 0.15972332907320047], [0.12015319026849723, -0.039847384533724314, -0.03540927272059241], [0.0005811191792363599, 0.0015742056374659398, -0.046770184161277754]]),
    'solve-left-false': (-0.543184543637575, [[0.276850565090739, 0.03565857272145019, -0.20943335577747188], [-0.08991784735115517, 0.01063914308071765, 0.06199597780915318], [0.12311534704156814, -0.17610422720629068, -0.04108094048782047]], [[-0.17160193505128718, 0.08021898080413027, -0.07606188605232522], [0.08538763027139093, -0.10936319294929213, 0.015398617015103047], [0.17074384418776, -0.03916556431309088, -0.10109053708626971]]),
    'cholesky': (3.3075820948481076, [[0.09759910398582633, 0.011706770428784942, -0.20420637274418058], [0.011706770428784943, 0.26664024618739846, 0.1730653441949237], [-0.20420637274418058, 0.1730653441949237, 0.2875202935635972]], [[0.018083046245887198, -0.0434866702062795, -0.034516883840156894], [-0.043486670206279505, 0.003543527088347765, -0.01576429938132861], [-0.034516883840156894, -0.01576429938132861, 0.07041171747859704]]),
    'cholesky-upper': (3.121400733498776, [[0.10168468859045326, -0.2347867024474992, 0.2560958961713722], [-0.2347867024474992, 0.27321867552364054, -0.0681437314672872], [0.2560958961713722, -0.0681437314672872, 0.2875202935635972]], [[0.03167961324861606, -0.03354672017462126, -0.007102066990279863], [-0.03354672017462126, 0.02631386317720399, -0.03275857516662075], [-0.007102066990279862, -0.03275857516662075, 0.07041171747859704]]),
    'cholesky-lower-read': (3.3075820948481076, [[0.09759910398582633, 0.011706770428784942, -0.20420637274418058], [0.011706770428784943, 0.26664024618739846, 0.1730653441949237], [-0.20420637274418058, 0.1730653441949237, 0.2875202935635972]], [[0.018083046245887198, -0.0434866702062795, -0.034516883840156894], [-0.043486670206279505, 0.003543527088347765, -0.01576429938132861], [-0.034516883840156894, -0.01576429938132861, 0.07041171747859704]]),
    'eigh': (4.9035056884277886, [[0.9121823054746936, 0.6387682294874448, 0.41471074506255384], [0.6387682294874448, -0.7369888261327102, -0.2517748649819005], [0.41471074506255384, -0.2517748649819005, 0.5248065206580167]], [[0.024079935391314228, -0.09023089111889784, -0.1632744256350105], [-0.0902308911188979, 0.6579471811280615, 0.2463889941171324], [-0.16327442563501046, 0.24638899411713244, -0.6820271165193756]]),
    'eigh-upper': (0.8245926455664229, [[0.28150251023309125, -0.11706419068424534, 0.3699009563719228], [-0.11706419068424542, -0.5071456116212707, -0.4790799596208582], [0.36990095637192266, -0.47907995962085814, 0.22564310138817975]], [[0.25802947170345103, -0.272939269382778, -0.3383211797662379], [-0.27293926938277796, 0.5787820828873125, 0.6257128348057855], [-0.3383211797662378, 0.6257128348057857, -0.8368115545907637]]),
    'eigh-lower-read': (0.8245926455664245, [[0.28150251023308964, -0.1170641906842445, 0.3699009563719224], [-0.11706419068424445, -0.5071456116212703, -0.4790799596208588], [0.3699009563719224, -0.4790799596208588, 0.2256431013881807]], [[0.25802947170345236, -0.2729392693827803, -0.338321179766236], [-0.27293926938278035, 0.5787820828873146, 0.625712834805785], [-0.338321179766236, 0.625712834805785, -0.8368115545907668]]),
    'eigvalsh': (4.078913042861364, [[0.6306797952416039, 0.7558324201716893, 0.04480978869063146], [0.7558324201716893, -0.2298432145114399, 0.22730509463895832], [0.04480978869063146, 0.22730509463895832, 0.299163419269836]], [[-0.23394953631213813, 0.18270837826388245, 0.1750467541312255], [0.18270837826388245, 0.07916509824074688, -0.3793238406886526], [0.17504675413122553, -0.37932384068865255, 0.1547844380713912]]),
    'svdvals': (-0.27671287898689323, [[0.2589479064954719, 0.14279561545343006], [-0.4184252116946997, 0.20255177474450278], [-0.3512420129290802, 0.3912512786541586]], [[0.11650228425071782, -0.1097772247008899], [-0.038070233536913814, 0.17774586416566926], [0.19824857664556242, 0.008200937056148175]]),
    'qr': (-1.1280846037967307, [[-1.3092177082183583, -0.14749080355932465, 0.19217935804081335], [-0.16350109966470416, -0.5483503689478526, -0.9981471642729719], [1.441101823599166, -0.9221493737483681, -0.1636133637477267]], [[0.2903770144654376, 0.4233283288521532, 0.4444738915677278], [1.1818960406518677, -0.41998410454332263, -0.010143680007775319], [-0.6991581176040328, 0.3631717710760115, 0.5839595885930116]]),
    'qr-tall': (-2.202301554809887, [[-0.7872641632156503, -0.33495818368159774], [0.1344073772154834, -0.06250810222092215], [0.23059649062034293, -0.37946807460095094]], [[0.054021046228245675, 0.012588857840947876], [0.09861777933405211, -0.19038626777204676], [-0.22222112132292804, 0.02233575221573045]]),
    'pinv': (0.23785905441570024, [[-0.32107793395249706, 0.18787679217851394], [-0.3879645244743726, 0.16798134073295395], [0.10713201304111514, -0.3042304047058785]], [[0.2693716991947978, -0.14607352330027198], [0.4593965865611941, -0.23288994789098222], [0.060952461461800125, 0.13346408342950913]]),
    'vector_norm': (4.095119045888654, [[0.24419314525275218, 0.48838629050550436, 0.12209657262637609], [-0.07325794357582564, 0.36628971787912823, 0.24419314525275218], [0.1709352016769265, -0.2930317743033026, 0.6104828631318804]], [[0.06485606851256756, 0.15413145155041036, -0.06524922384481707], [0.16612996983832135, -0.0003931553322495257, 0.113694697563118], [0.15772809477506328, 0.05403701622140509, -0.17973023207243416]]),
    'vector_norm-3-dim': (1.4973988273500447, [[0.24320595798759242, -0.5037838070349033, 0.0420071115045019], [-0.021888536218883318, -0.2833783914571331, 0.1680284460180076], [0.11917091941392027, 0.1813621705325652, 1.0501777876125475]], [[-0.05574209548036786, -0.14862064459233904, -0.023824928913001073], [0.11591870543557524, 0.0958738686729936, 0.2407571763840109], [0.12931101015862922, -0.12785873847932314, -0.091537884771004]]),
    'matrix_norm-fro': (4.095119045888654, [[0.24419314525275218, 0.48838629050550436, 0.12209657262637609], [-0.07325794357582564, 0.36628971787912823, 0.24419314525275218], [0.1709352016769265, -0.2930317743033026, 0.6104828631318804]], [[0.06485606851256756, 0.15413145155041036, -0.06524922384481707], [0.16612996983832135, -0.0003931553322495257, 0.113694697563118], [0.15772809477506328, 0.05403701622140509, -0.17973023207243416]]),
    'matrix_norm-nuc': (6.579824012170467, [[0.7350733169777252, 0.6741087875846963, 0.07241934250222637], [-0.6068142762957418, 0.6065015457041099, 0.5137434273469589], [0.3023965157719894, -0.4215841761257362, 0.854881939035645]], [[-0.0024932032070880683, 0.0325686988018106, -0.277856139201309], [0.18906543127352887, -0.057199688226020604, 0.29084421176010955], [0.38545513563393813, -0.030211886455093845, -0.15124561340990778]]),
    'matrix_norm-2': (2.871866241863059, [[-0.027114950134219513, 0.0721722391543502, -0.11899197811365728], [0.0012207011582682503, -0.0032491572174917585, 0.00535695786969784], [0.18930320941314488, -0.5038709802091544, 0.830743307283696]], [[-0.15558406320449492, 0.538422566804061, -0.6376055570484198], [-0.07425520074881264, 0.19205007245349223, -0.3278967731120065], [-0.05637468377182017, -0.7177641201230917, -0.5627071412718914]]),
    'norm-dim': (2.5541665946051015, [[0.13093073414159542, 0.26186146828319085, 0.06546536707079771], [0.11490688758456238, -0.5745344379228119, -0.3830229586152079], [0.26922418649090024, -0.4615271768415433, 0.9615149517532153]], [[0.0, 0.013093073414159537, -0.052372293656638175], [-0.26949220142087976, 0.04518294781269218, -0.14862208214530223], [0.30284194641772416, -0.008181105212961337, -0.08872267549918422]]),
    'norm-ord': (1.479583999029607, [[-0.1603414081308748, 0.1077848814343058], [0.5456809891984635, -0.3668182873491034], [0.604387673709954, -0.4062821607379873]], [[-0.13392252748526992, 0.11960990870851126], [0.09856546563341817, -0.1669405830423742], [-0.2218737835372953, 0.037633565050356754]]),
    'det-inverse-methods': (16.31183544303797, [[8.580135184138843, 1.0801916865549543, -4.413275622159065], [-9.77637861678712, 4.1294542035267625, 5.299897115003498], [2.212219279973689, -2.8288992992013764, 2.793623660175916]], [[-3.6086960496722345, 0.1772768771602804, -0.8948512534440765], [2.1077075226342687, -1.6310497556398462, 1.5159294024371275], [2.6356704853839417, -0.21771593004231554, -2.1199247741461047]]),
}


def _derivatives(f, data):
    A = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    s = f(A)
    g, = torch.autograd.grad(s, A, create_graph=True)
    h, = torch.autograd.grad((g * V[:A.shape[0], :A.shape[1]]).sum(), A)
    return s.item(), g.tolist(), h.tolist()


@pytest.mark.parametrize("name", list(LINALG))
def test_linalg_value_gradient_and_second_derivative_as_pytorch(name):
    data, f = LINALG[name]
    value, grad, second = _derivatives(f, data)
    want_value, want_grad, want_second = EXPECTED[name]
    assert value == pytest.approx(want_value, rel=1e-10)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(second, want_second, rtol=1e-8, atol=1e-12)


def test_cholesky_gradient_is_symmetric_as_pytorch_s():
    A = torch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=torch.float64, requires_grad=True)
    torch.linalg.cholesky(A).sum().backward()
    np.testing.assert_allclose(A.grad.tolist(), [[0.2558336368008464, 0.19543950758485482],  # PyTorch 2.13.0
                                                 [0.19543950758485482, 0.31622776601683794]], rtol=1e-12)


def test_results_are_pytorch_s_named_tuples_of_tensors():
    A = torch.tensor(S3, dtype=torch.float64)
    w, v = torch.linalg.eigh(A)
    assert torch.linalg.eigh(A).eigenvalues.tolist() == w.tolist() and isinstance(v, torch.Tensor)
    # PyTorch 2.13.0's eigenvectors of L3, from its lower triangle (LAPACK's signs)
    np.testing.assert_allclose(torch.linalg.eigh(torch.tensor(L3, dtype=torch.float64)).eigenvectors.tolist(),
                               [[-0.25304236163525456, -0.48194966042618, -0.8388647614682253],
                                [0.053438720828776154, 0.8587971746720289, -0.5095210652088138],
                                [0.9659781914382108, -0.1737582734445472, -0.1915572918876562]], rtol=1e-9)
    q, r = torch.linalg.qr(A)
    assert torch.linalg.qr(A).Q.tolist() == q.tolist() and torch.linalg.qr(A).R.tolist() == r.tolist()
    sign, logabsdet = torch.linalg.slogdet(torch.tensor([[0.0, 1.0], [2.0, 0.0]], dtype=torch.float64))
    assert isinstance(sign, torch.Tensor) and sign.item() == -1.0  # PyTorch: sign=tensor(-1.)
    assert logabsdet.item() == pytest.approx(math.log(2.0), rel=1e-15)
    assert type(torch.linalg.slogdet(A)).__name__ == "linalg_slogdet"


def test_torch_linalg_is_a_module_to_import():
    module = importlib.import_module("gradmagic.torch.linalg")
    assert module is torch.linalg and module.det is torch.linalg.det
    with pytest.raises(AttributeError, match="gradmagic.torch.linalg.matrix_rank does not exist: .* maps vector_norm"):
        torch.linalg.matrix_rank  # noqa: B018


def test_norms_have_gradient_zero_at_zero_as_pytorch_s():
    A = torch.zeros(2, 2, dtype=torch.float64, requires_grad=True)
    (torch.linalg.vector_norm(A) + torch.linalg.matrix_norm(A) + torch.linalg.norm(A)).backward()
    assert A.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]  # PyTorch 2.13.0: zeros


def test_solve_gradient_of_b_is_pytorch_s():
    A = torch.tensor(G3, dtype=torch.float64)
    B = W[:, :2].clone().requires_grad_()
    (torch.linalg.solve(A, B) * W[:, 1:]).sum().backward()
    np.testing.assert_allclose(B.grad.tolist(), [[-0.3429713524317122, 0.6133244503664224],  # PyTorch 2.13.0
                                                 [0.9880079946702198, -0.6009327115256498],
                                                 [-0.08660892738174553, 0.4377081945369754]], rtol=1e-10)


M23 = torch.ones(2, 3, dtype=torch.float64)
V3 = torch.ones(3, dtype=torch.float64)
SINGULAR = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
ERRORS = [  # PyTorch 2.13.0's sentences
    ("det-not-square", lambda: torch.linalg.det(M23), RuntimeError,
     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("det-vector", lambda: torch.linalg.det(V3), RuntimeError,
     "linalg.det: The input tensor A must have at least 2 dimensions."),
    ("det-method-not-square", lambda: M23.det(), RuntimeError,
     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("det-long", lambda: torch.linalg.det(torch.ones(2, 2, dtype=torch.int64)), RuntimeError,
     "linalg.det: Expected a floating point or complex tensor as input. Got Long"),
    ("slogdet-not-square", lambda: torch.linalg.slogdet(M23), RuntimeError,
     "linalg.slogdet: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("inv-not-square", lambda: torch.linalg.inv(M23), RuntimeError,
     "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("inverse-vector", lambda: V3.inverse(), RuntimeError,
     "linalg.inv: The input tensor A must have at least 2 dimensions."),
    ("cholesky-not-square", lambda: torch.linalg.cholesky(M23), RuntimeError,
     "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("eigh-not-square", lambda: torch.linalg.eigh(M23), RuntimeError,
     "linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("eigvalsh-vector", lambda: torch.linalg.eigvalsh(V3), RuntimeError,
     "linalg.eigh: The input tensor A must have at least 2 dimensions."),
    ("eigh-uplo", lambda: torch.linalg.eigh(torch.eye(2), UPLO="X"), RuntimeError,
     "linalg.eigh: Expected UPLO argument to be 'L' or 'U', but got X"),
    ("solve-not-square", lambda: torch.linalg.solve(M23, V3), RuntimeError,
     "linalg.solve: A must be batches of square matrices, but they are 2 by 3 matrices"),
    ("solve-shapes", lambda: torch.linalg.solve(torch.eye(3), torch.ones(2)), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)"),
    ("solve-shapes-right", lambda: torch.linalg.solve(torch.eye(3), torch.ones(3, 2), left=False), RuntimeError,
     "linalg.solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x2)"),
    ("svdvals-vector", lambda: torch.linalg.svdvals(V3), RuntimeError,
     "linalg.svd: The input tensor A must have at least 2 dimensions."),
    ("qr-vector", lambda: torch.linalg.qr(V3), RuntimeError,
     "linalg.qr: The input tensor A must have at least 2 dimensions."),
    ("pinv-vector", lambda: torch.linalg.pinv(V3), RuntimeError,
     "linalg.pinv(Double{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types"),
    ("matrix_norm-vector", lambda: torch.linalg.matrix_norm(V3), RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    ("matrix_norm-order", lambda: torch.linalg.matrix_norm(M23, ord=3), RuntimeError,
     "linalg.matrix_norm: Order 3 not supported."),
    ("vector_norm-str", lambda: torch.linalg.vector_norm(M23, ord="fro"), TypeError,
     "linalg_vector_norm(): argument 'ord' must be Number, not str"),
    ("vector_norm-long", lambda: torch.linalg.vector_norm(torch.ones(3, dtype=torch.int64)), RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    ("norm-3d", lambda: torch.linalg.norm(torch.ones(2, 2, 2), ord=2), RuntimeError,
     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."),
    ("inv-singular", lambda: torch.linalg.inv(SINGULAR), torch.linalg.LinAlgError,
     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular."),
    ("inv-singular-3", lambda: torch.linalg.inv(torch.tensor([[1.0, 0, 0], [0, 1, 1], [0, 1, 1]])),
     torch.linalg.LinAlgError,
     "linalg.inv: The diagonal element 3 is zero, the inversion could not be completed because the input matrix is singular."),
    ("inv-singular-batch", lambda: torch.linalg.inv(torch.stack([torch.eye(2), torch.zeros(2, 2)])),
     torch.linalg.LinAlgError,
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular."),
    ("solve-singular", lambda: torch.linalg.solve(SINGULAR, torch.ones(2, dtype=torch.float64)),
     torch.linalg.LinAlgError, "torch.linalg.solve: The solver failed because the input matrix is singular."),
    ("solve-singular-batch", lambda: torch.linalg.solve(torch.stack([torch.eye(2), torch.zeros(2, 2)]), torch.ones(2, 2)),
     torch.linalg.LinAlgError,
     "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."),
    ("cholesky-not-pd", lambda: torch.linalg.cholesky(SINGULAR), torch.linalg.LinAlgError,
     "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite)."),
    ("cholesky-not-pd-batch", lambda: torch.linalg.cholesky(torch.stack([torch.eye(2), -torch.eye(2)])),
     torch.linalg.LinAlgError,
     "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not positive-definite (the leading minor of order 1 is not positive-definite)."),
]


@pytest.mark.parametrize("name, call, kind, message", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_are_pytorch_s(name, call, kind, message):
    with pytest.raises(kind) as caught:
        call()
    assert str(caught.value) == message


def test_linalg_error_is_a_runtime_error_as_pytorch_s():
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)  # PyTorch: _LinAlgError(RuntimeError)
