"""gradmagic.torch's svd, svdvals, lstsq, triangular solves, cholesky_solve and matrix_exp
against PyTorch 2.13.0: values, gradients and second derivatives (``torch.autograd.grad``
with ``create_graph=True``), result types and PyTorch's errors.

Each case is a scalar function of a float64 matrix, written as PyTorch code; the expected
numbers are what PyTorch 2.13.0+cpu printed running the same lines with ``import torch``.
"""

import numpy as np
import pytest

import gradmagic.torch as torch

# -- the cases, as PyTorch code (the same lines made the expected numbers) ----------------
G3 = [[1.0, 2.0, 0.5], [-0.3, 1.5, 1.0], [0.7, -1.2, 2.5]]  # general, invertible
G3L = [[1.0, 0.0, 0.0], [-0.3, 1.5, 0.0], [0.7, -1.2, 2.5]]  # G3's lower triangle
G3U = [[1.0, 2.0, 0.5], [0.0, 1.5, 1.0], [0.0, 0.0, 2.5]]  # and its upper one
R32 = [[1.0, 2.0], [0.5, -1.0], [1.5, 0.3]]  # tall
R23 = [[1.0, 0.5, 1.5], [2.0, -1.0, 0.3]]  # wide
R43 = [[1.0, 2.0, 0.5], [0.5, -1.0, 0.2], [1.5, 0.3, -0.7], [0.1, 0.4, 1.2]]
BIG = [[1.0, 4.0, -2.0], [3.0, -2.5, 5.0], [-6.0, 2.0, 1.5]]  # 1-norm past 5.37: scaled and squared
W = torch.tensor([[0.3, -0.7, 1.1], [0.4, 0.9, -0.2], [-0.5, 0.6, 0.8], [0.25, -0.35, 0.45]], dtype=torch.float64)
V = torch.tensor([[0.2, 0.5, -0.3], [0.7, -0.1, 0.4], [0.6, 0.3, -0.9], [-0.4, 0.8, 0.1]], dtype=torch.float64)


def _uv(U, S, Vh, w):  # sign-free parts of U and Vh (each column's sign is LAPACK's choice)
    return (U[:, :2] ** 2 * w[:U.shape[0], :2]).sum() + (Vh[:2] ** 2 * w[:2, :Vh.shape[1]]).sum() + (S * w[0, :2]).sum()


CASES = {  # name: (input, a scalar function of it)
    "svd-tall": (R32, lambda A: _uv(*torch.linalg.svd(A, full_matrices=False), W)),
    "svd-wide": (R23, lambda A: _uv(*torch.linalg.svd(A, full_matrices=False), W)),
    "svd-full-tall": (R32, lambda A: _uv(*torch.linalg.svd(A), W) + (torch.linalg.svd(A).U ** 2 * W[:3]).sum()),
    "svd-full-wide": (R23, lambda A: _uv(*torch.linalg.svd(A), W) + (torch.linalg.svd(A).Vh ** 2 * W[:3]).sum()),
    "svd-signed": (G3, lambda A: (torch.linalg.svd(A).U * W[:3]).sum() + (torch.linalg.svd(A).Vh * V[:3]).sum()),
    "svdvals-wide": (R23, lambda A: (torch.linalg.svdvals(A) * W[0, :2]).sum()),
    "torch.svd": (R32, lambda A: (torch.svd(A).V * W[:2, :2]).sum() + (torch.svd(A).U * W[:3, :2]).sum()),
    "torch.svd-some=False": (R32, lambda A: (torch.svd(A, some=False).U * W[:3]).sum()),
    "torch.svd-compute_uv=False": (R32, lambda A: (torch.svd(A, compute_uv=False).S * W[0, :2]).sum()),
    "lstsq-tall": (R43, lambda A: (torch.linalg.lstsq(A, W[:, :2]).solution * V[:3, :2]).sum()),
    "lstsq-wide": (R23, lambda A: (torch.linalg.lstsq(A, W[:2]).solution * V[:3]).sum()),
    "lstsq-vector": (R43, lambda A: (torch.linalg.lstsq(A, W[:, 0]).solution * V[0]).sum()),
    "lstsq-b": (R43, lambda A: (torch.linalg.lstsq(W[:, :3] + 2 * torch.eye(4, 3, dtype=torch.float64), A).solution * V[:3]).sum()),
    "lstsq-gelsd-residuals": (R43, lambda A: (torch.linalg.lstsq(A, W[:, :2], driver="gelsd").residuals * V[0, :2]).sum()),
    "solve_triangular-lower": (G3, lambda A: (torch.linalg.solve_triangular(A, W[:3, :2], upper=False) * V[:3, :2]).sum()),
    "solve_triangular-upper": (G3, lambda A: (torch.linalg.solve_triangular(A, W[:3, :2], upper=True) * V[:3, :2]).sum()),
    "solve_triangular-right": (G3, lambda A: (torch.linalg.solve_triangular(A, W[:2], upper=True, left=False) * V[:2]).sum()),
    "solve_triangular-unit": (G3, lambda A: (torch.linalg.solve_triangular(A, W[:3], upper=False, unitriangular=True) * V[:3]).sum()),
    "solve_triangular-B": (G3, lambda A: (torch.linalg.solve_triangular(W[:3] + 2 * torch.eye(3, dtype=torch.float64), A, upper=True) * V[:3]).sum()),
    "triangular_solve": (G3, lambda A: (torch.triangular_solve(W[:3, :2], A).solution * V[:3, :2]).sum()
                         + (torch.triangular_solve(W[:3, :2], A).cloned_coefficient * V[:3]).sum()),
    "triangular_solve-transpose": (G3, lambda A: (torch.triangular_solve(W[:3], A, upper=False, transpose=True).solution * V[:3]).sum()),
    "triangular_solve-unit": (G3, lambda A: (torch.triangular_solve(W[:3], A, unitriangular=True)[0] * V[:3]).sum()),
    "cholesky_solve": (G3L, lambda A: (torch.cholesky_solve(W[:3, :2], A) * V[:3, :2]).sum()),
    "cholesky_solve-upper": (G3U, lambda A: (torch.cholesky_solve(W[:3], A, upper=True) * V[:3]).sum()),
    "cholesky_solve-B": (G3, lambda A: (torch.cholesky_solve(A, W[:3].tril() + 2 * torch.eye(3, dtype=torch.float64)) * V[:3]).sum()),
    "matrix_exp": (G3, lambda A: (torch.linalg.matrix_exp(A) * W[:3]).sum()),
    "matrix_exp-scaled": (BIG, lambda A: (torch.linalg.matrix_exp(A) * W[:3]).sum()),
    "matrix_exp-torch-method": (G3, lambda A: (torch.matrix_exp(A * 0.1) * V[:3]).sum() + (A.matrix_exp() * W[:3]).sum()),
    "matrix_power": (G3, lambda A: (torch.linalg.matrix_power(A, 3) * W[:3]).sum()),
    "cross": (G3, lambda A: (torch.linalg.cross(A, W[:3]) * V[:3]).sum()),
}

EXPECTED = {  # (value, gradient, second derivative along V), PyTorch 2.13.0+cpu
    'svd-tall': (0.7287066892258677, [[0.8025378599018611, -0.14229051461646897], [-0.27070030149886776, 0.18478774539399972], [-0.37299121847508887, 0.2831833806675014]], [[-0.02658001510300617, -0.025577827457881418], [0.030478076701340784, 0.03903160465183427], [0.07103388079491361, -0.10303819289098742]]),
    'svd-wide': (0.5880225959926412, [[1.289891416424973, 0.1868049967714778, 0.35003611537614615], [-0.8573454457276708, 0.7851244121405673, 1.0491811224469443]], [[-0.30811232567813585, -0.39037588011185553, -1.511273097746226], [1.3117252809841586, -0.4172477694542888, -0.2457490591578677]]),
    'svd-full-tall': (1.9053060778861566, [[0.7917211065650128, 0.058903814194353143], [-0.15116556283235316, -0.20062310431801472], [-0.8901826886488468, 0.07997365376939886]], [[-0.06253265010554482, 0.23359323376455873], [-0.19030740872180676, -0.13934482099407866], [-0.20545016670514832, -0.05309990865333933]]),
    'svd-full-wide': (1.7292724141672506, [[1.766428219611236, 0.7638450337083379, 0.5558719790536226], [-1.3712060480280495, 1.0000502291751199, 1.6119691373282845]], [[-0.3176595735076459, -0.528045413239306, -2.399397866711684], [1.868875988702638, -0.5688870475162594, -0.3169768868204088]]),
    'svd-signed': (-2.3570191697716094, [[-0.0678618619121713, 1.0268510590416973, -1.2561849260255311], [-0.14597382100569867, 0.6717642928785562, -1.154246669018598], [-0.6893823740408969, -1.6199280411104713, -1.086514278905336]], [[-2.4124866305173978, 16.179259953906403, -13.713400774291223], [-2.8026552473032362, 9.148649186658941, -11.842762874447669], [-7.900640456227057, -17.86824182353475, -16.818275646547264]]),
    'svdvals-wide': (-0.27671287898689345, [[0.25894790649547206, -0.41842521169469976, -0.3512420129290801], [0.14279561545342995, 0.20255177474450295, 0.39125127865415865]], [[-0.16330585023850022, -0.17358812654374237, -0.05130971990630321], [0.1824185033382259, -0.016695055096776393, -0.18155856134467213]]),
    'torch.svd': (0.5415202953926972, [[0.014861421613281856, 0.10649395287692921], [0.17245320699414154, 0.21541189633325042], [-0.05986841393693598, -0.029538045418522504]], [[-0.039195407079554184, 0.0006224369296887883], [-0.12362820906606446, -0.07817476222326267], [-0.03493575280508694, -0.12206449766133408]]),
    'torch.svd-some=False': (1.2120489121932134, [[0.14681088315201254, -0.009241379913398157], [0.1791625016486533, 0.3029122807858409], [0.05804743961610771, -0.006894175959545421]], [[-0.10797297527120339, -0.0030588258621630088], [-0.056967125906992336, -0.09743601185531182], [-0.03808690110833539, -0.16785230324920308]]),
    'torch.svd-compute_uv=False': (-0.27671287898689323, [[0.2589479064954719, 0.14279561545343006], [-0.4184252116946997, 0.20255177474450278], [-0.3512420129290802, 0.3912512786541586]], [[0.11650228425071782, -0.1097772247008899], [-0.038070233536913814, 0.17774586416566926], [0.19824857664556242, 0.008200937056148175]]),
    'lstsq-tall': (0.5053786131564522, [[-0.008661095819754522, 0.054815045308913055, -0.06353015059389903], [-0.15649020691883977, 0.2223361886128581, 0.10403544538483414], [-0.1030350170235805, 0.08829180574223353, -0.008040760104975203], [-0.1642228804643125, 0.17493798088510312, -0.1882706518588788]], [[-0.11034346640526543, 0.023943007274915135, -0.07361679000834345], [-0.10971555961563659, 0.07904519031042173, -0.39858275835913437], [0.1767895140675232, -0.17306555620580133, -0.03379026382442556], [0.05029293814790625, -0.15673519391215948, -0.07745211447916944]]),
    'lstsq-wide': (-0.2496984834968775, [[0.0009978512558478647, 0.4557423276814938, 0.07066894681933819], [-0.05552508950448065, 0.04418901500110216, 0.23355080727112992]], [[0.09320064488059883, 0.019752878337872676, -0.37583895262427996], [-0.022253610485658694, 0.023777168092807055, 0.049859721161229054]]),
    'lstsq-vector': (-0.15791503020867573, [[-0.01296443341354987, 0.0422310591733934, -0.11146587059374938], [-0.01067270741776137, 0.024671912805325935, 0.04582001161251734], [0.009525466700755048, -0.024464614604293416, -0.007572272617361923], [0.015780344805779736, -0.05183724657421597, 0.14158500200927265]], [[-0.043971243680383194, -0.035060063971736964, 0.06431405323702112], [0.0678001074937502, -0.0872981126522903, 0.13039923189370506], [-0.02446983045383949, 0.03161302460752781, -0.04802445382059471], [0.06283423748429522, 0.031377962938260104, -0.1286785105071512]]),
    'lstsq-b': (0.9333596107753434, [[0.0892891553793109, 0.21501636367979735, -0.19503595231838705], [0.2238089550337226, 0.017352667160364002, 0.12975800864766732], [0.19387655972544063, 0.0188146484794917, -0.2252788992140657], [0.008198561907264534, 0.0317144836482645, -0.06383985093523807]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'lstsq-gelsd-residuals': (0.04455147754767004, [[-0.0241572233656694, 0.03260036297526991, -0.03041951149982304], [-0.02951501031873181, 0.03983073861778789, -0.03716620003125091], [0.02401043468202311, -0.03240227049191236, 0.030234670718140184], [0.028990765019997443, -0.039123265462942355, 0.03650605438238323]], [[0.07868321648100847, -0.11853743836377552, -0.022853833291366095], [0.1254537719127474, -0.18439460200975266, 0.008997522846616202], [-0.07398791728955995, 0.11212602856045589, 0.028025377823347908], [-0.0774622940801104, 0.11936163010433026, 0.04878866776945371]]),
    'solve_triangular-lower': (0.013386666666666713, [[0.22848000000000002, 0.0, 0.0], [-0.17706666666666665, -0.22865777777777777, 0.0], [0.011999999999999997, -0.1336, -0.048288]], [[0.019106133333333282, 0.0, 0.0], [0.024664888888888875, 0.047469274074074044, 0.0], [0.001919999999999998, -0.06308266666666668, -0.028136959999999996]]),
    'solve_triangular-upper': (-0.7420000000000001, [[0.9300000000000002, -0.30000000000000004, -0.07999999999999999], [0.0, 0.24266666666666672, 0.21600000000000003], [0.0, 0.0, -0.05120000000000001]], [[-0.2726666666666667, 0.08053333333333335, -0.012799999999999999], [0.0, -0.05708444444444444, 0.09749333333333335], [0.0, 0.0, -0.09211733333333334]]),
    'solve_triangular-right': (-0.39266666666666655, [[-0.21666666666666667, -0.054666666666666655, -0.028000000000000018], [0.0, 0.3697777777777777, -0.11466666666666664], [0.0, 0.0, 0.11706666666666665]], [[0.08955555555555553, 0.021475555555555567, -0.004480000000000001], [0.0, 0.11104592592592588, -0.047057777777777775], [0.0, 0.0, 0.10046577777777776]]),
    'solve_triangular-unit': (0.04079999999999989, [[0.0, 0.0, 0.0], [0.5040000000000001, 0.0, 0.0], [1.02, -0.384, 0.0]], [[0.0, 0.0, 0.0], [-0.30600000000000005, 0.0, 0.0], [-0.0, -0.714, 0.0]]),
    'solve_triangular-B': (-0.03363675305204539, [[0.08695652173913045, 0.2173913043478261, -0.13043478260869565], [0.2623688155922039, 0.017991004497751126, 0.10644677661169417], [0.1988648532876419, 0.023024202184621957, -0.2625829942171771]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'triangular_solve': (-1.842, [[1.1300000000000001, 0.19999999999999996, -0.38], [0.7, 0.14266666666666672, 0.6160000000000001], [0.6, 0.3, -0.9512]], [[-0.2726666666666667, 0.08053333333333335, -0.012799999999999999], [0.0, -0.05708444444444444, 0.09749333333333335], [0.0, 0.0, -0.09211733333333334]]),
    'triangular_solve-transpose': (-0.7861066666666667, [[0.49464, 0.0, 0.0], [-0.3805333333333333, -0.10579555555555556, 0.0], [0.016000000000000028, 0.027199999999999988, 0.14297600000000002]], [[0.04769706666666661, 0.0, 0.0], [0.05214577777777776, 0.18109108148148143, 0.0], [0.0025600000000000067, 0.00349866666666665, 0.09371392000000003]]),
    'triangular_solve-unit': (-2.5, [[0.0, -0.6300000000000001, 0.04000000000000001], [0.0, 0.0, 0.010000000000000009], [0.0, 0.0, 0.0]], [[0.0, -0.016000000000000028, -0.0], [0.0, 0.0, -0.020000000000000004], [0.0, 0.0, 0.0]]),
    'cholesky_solve': (-0.16612259555555553, [[0.5750412799999999, -0.4788288284444443, -0.4739153373866667], [-0.4215210666666666, -0.27157627259259254, -0.02697931662222222], [-0.173568, -0.03806293333333334, 0.04557363200000001]], [[0.16471648961422208, 0.44517818167751116, -0.013597800699221216], [-0.1449834545303702, 0.5716299110020737, 0.4909869583746843], [0.01090537813333337, 0.11722631319703695, 0.12796018970168888]]),
    'cholesky_solve-upper': (-3.3550222222222224, [[5.004444444444445, -2.0008888888888894, 0.4746666666666669], [-9.105481481481482, 3.4888296296296293, -0.7976888888888889], [4.19045925925926, -1.6053451851851852, 0.41379555555555564]], [[11.397250370370363, -4.833000296296296, 0.05607822222222181], [-22.127656296296284, 9.38904888888888, -0.22684444444444357], [12.555877925925925, -5.271328237037036, 0.38178702222222194]]),
    'cholesky_solve-B': (-0.13405729248400916, [[0.04039892133607645, 0.1128424099916508, -0.1002787968987082], [0.06574914513186757, -0.0340364652297356, 0.08170703529305018], [0.06452131077318483, 0.0570633050821528, -0.13504727228222624]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
    'matrix_exp': (10.28221522819483, [[2.26257093925104, 2.6343256564150748, 10.064450369742238], [3.324170411082636, -0.6778913840874877, 1.7660399971781606], [5.315181875413886, 7.532822977482435, 8.69753567303128]], [[0.7173894856352967, 1.7571653074861995, -3.9572797257764645], [2.569650228129148, 4.194258825173764, 6.246753713537351], [0.888991770586973, -1.263179564487092, -5.4390080678712165]]),
    'matrix_exp-scaled': (-25.246023826337076, [[-9.63713829867445, -27.711144144742256, -18.5953433025358], [1.6751422425554894, -15.807476196860094, -17.631181309664136], [13.525793734130016, 10.794274051158336, 0.19859066919751722]], [[0.9446138350811055, 8.399049605272518, 10.45914958012846], [2.4580543312852483, 3.491307512005, 3.9518929735340143], [2.236140883355715, -5.391536320335686, -7.764416569274437]]),
    'matrix_exp-torch-method': (9.364047470176528, [[2.2906327636986217, 2.689982007603454, 10.021578565084239], [3.4018643302307363, -0.6844779827807731, 1.8210886166437457], [5.39186028896918, 7.563870489962974, 8.584243671475154]], [[0.7247916774376385, 1.7582458213938195, -3.9553284871535817], [2.5715088526610845, 4.200217163666585, 6.243188664833126], [0.890206576743646, -1.2651796573423661, -5.42430359454456]]),
    'matrix_power': (10.838000000000001, [[-0.3399999999999994, 5.9670000000000005, 17.087], [7.440000000000001, -5.854999999999999, 3.5479999999999996], [9.805, 13.09, 11.475000000000001]], [[1.4569999999999999, 5.361999999999999, -7.078999999999999], [0.9390000000000003, 5.361000000000001, 12.219000000000001], [3.1020000000000008, -2.75, -10.049]]),
    'cross': (-2.654, [[-0.3400000000000001, 0.31000000000000005, 0.29], [0.34, -0.30000000000000004, -0.67], [-0.78, 0.03, -0.51]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
}



def _derivatives(f, data):
    A = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    s = f(A)
    g, = torch.autograd.grad(s, A, create_graph=True)
    if not g.requires_grad:  # linear in A: the second derivative is 0
        return s.item(), g.tolist(), torch.zeros_like(A).tolist()
    h, = torch.autograd.grad((g * V[:A.shape[0], :A.shape[1]]).sum(), A)
    return s.item(), g.tolist(), h.tolist()


@pytest.mark.parametrize("name", list(CASES))
def test_value_gradient_and_second_derivative_as_pytorch(name):
    data, f = CASES[name]
    value, grad, second = _derivatives(f, data)
    want_value, want_grad, want_second = EXPECTED[name]
    assert value == pytest.approx(want_value, rel=1e-10)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(second, want_second, rtol=1e-8, atol=1e-12)


def _results():  # the same lines made RESULTS with PyTorch 2.13.0+cpu
    A, B = torch.tensor(R43, dtype=torch.float64), W[:, :2]
    Bs = torch.stack([B, V[:, :2]])
    batch = torch.stack([torch.tensor(R43, dtype=torch.float64), W[:, :3]])
    gelsy, gelsd = torch.linalg.lstsq(A, B), torch.linalg.lstsq(A, B, driver="gelsd")
    full = torch.linalg.svd(torch.tensor(R32, dtype=torch.float64))
    old = torch.svd(torch.tensor(R32, dtype=torch.float64), compute_uv=False)
    return {
        "lstsq-gelsy": [gelsy.solution.tolist(), gelsy.residuals.tolist(), gelsy.rank.tolist(),
                        gelsy.singular_values.tolist()],
        "lstsq-gelsd": [gelsd.residuals.tolist(), gelsd.rank.tolist(), gelsd.singular_values.tolist()],
        "lstsq-batch": [torch.linalg.lstsq(batch, Bs, driver="gelss").solution.tolist(),
                        torch.linalg.lstsq(batch, Bs, driver="gelss").rank.tolist(),
                        torch.linalg.lstsq(batch, Bs, driver="gelss").singular_values.tolist(),
                        torch.linalg.lstsq(batch, Bs, driver="gels").rank.tolist()],
        "lstsq-rcond": torch.linalg.lstsq(torch.ones(3, 2, dtype=torch.float64), B[:3], rcond=0.5).rank.tolist(),
        "svd-full-U": full.U.abs().tolist(),
        "svd-batch": torch.linalg.svdvals(batch).tolist(),
        "torch.svd-compute_uv=False": [old.U.tolist(), old.V.tolist(), list(old.S.shape)],
        "matrix_exp-batch": torch.linalg.matrix_exp(torch.stack([torch.tensor(G3, dtype=torch.float64),
                                                                 torch.tensor(BIG, dtype=torch.float64) * 3])).tolist(),
        "matrix_exp-float32": [torch.linalg.matrix_exp(torch.tensor(G3)).tolist(), str(torch.matrix_exp(torch.tensor(G3)).dtype)],
        "solve_triangular-batch": torch.linalg.solve_triangular(
            torch.stack([torch.tensor(G3, dtype=torch.float64), W[:3] + 2 * torch.eye(3, dtype=torch.float64)]),
            W[:3, :2], upper=True).tolist(),
        "solve_triangular-promoted": str(torch.linalg.solve_triangular(torch.tensor(G3, dtype=torch.float64),
                                                                       torch.ones(3, 1), upper=True).dtype),
    }


RESULTS = {  # PyTorch 2.13.0+cpu
    'lstsq-gelsy': [[[0.012172762953600034, 0.5108929205405135], [-0.06343184506097287, -0.606456554610017], [0.428778867563031, -0.0867102805355461]], [], 3, []],
    'lstsq-gelsd': [[0.1974282449682386, 0.010131657108044624], 3, [2.5828468562075266, 1.7339227552684666, 1.1412335414546408]],
    'lstsq-batch': [[[[0.012172762953599897, 0.5108929205405135], [-0.06343184506097281, -0.6064565546100168], [0.4287788675630311, -0.08671028053554614]], [[0.2276176046020984, 0.28958474372888876], [0.7279403389247683, -0.07345232594375602], [0.4039752558412763, 0.542302553577121]]], [3, 3], [[2.5828468562075266, 1.7339227552684673, 1.1412335414546408], [1.6095689965813131, 1.160455515781453, 0.7071991523868124]], []],
    'lstsq-rcond': 1,
    'svd-full-U': [[0.8765741499711248, 0.19320183184224504, 0.44078431434795945], [0.21777700775982275, 0.6575130401036493, 0.7212834234784791], [0.42917471325041734, 0.7282510928700744, 0.5342840173914659]],
    'svd-batch': [[2.5828468562075266, 1.7339227552684666, 1.1412335414546408], [1.6095689965813131, 1.1604555157814531, 0.7071991523868123]],
    'torch.svd-compute_uv=False': [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0], [0.0, 0.0]], [2]],
    'matrix_exp-batch': [[[3.7672391038071638, 4.00695898445797, 7.685913873610221], [0.9375773665850381, 1.2377170467163654, 6.165323760292363], [4.605794566039373, -4.321146083843369, 10.177603652384313]], [[43252.79607434371, 8877.117069578326, -28214.426205508436], [70852.68051312582, 48562.045857358295, 7530.016186364981], [43746.40680535881, 54367.88064329965, 43173.642324505025]]],
    'matrix_exp-float32': [[[3.7672386169433594, 4.006958961486816, 7.685912132263184], [0.9375771880149841, 1.2377177476882935, 6.165323734283447], [4.605794906616211, -4.321146488189697, 10.177604675292969]], 'torch.float32'],
    'solve_triangular-batch': [[[-0.4, -1.7000000000000002], [0.4, 0.44], [-0.2, 0.24]], [[0.25406939387449134, -0.3078817733990148], [0.12561576354679804, 0.3251231527093596], [-0.17857142857142858, 0.21428571428571427]]],
    'solve_triangular-promoted': 'torch.float64',
}


def _close(got, want, rel=1e-9):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w, rel)
    elif isinstance(want, str):
        assert got == want
    else:
        assert got == pytest.approx(want, rel=rel, abs=1e-12)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_as_pytorch(name):
    _close(_results()[name], RESULTS[name], 1e-5 if "float32" in name else 1e-9)  # float32: its rounding


def test_grad_fn_names_and_result_types_as_pytorch():
    A = torch.tensor(R32, dtype=torch.float64, requires_grad=True)
    L = torch.tensor(G3L, dtype=torch.float64, requires_grad=True)
    b = W[:3, :2]
    names = [torch.linalg.svd(A).U, torch.linalg.svdvals(A), torch.svd(A).V, torch.svd(A).S,
             torch.linalg.lstsq(A, b).solution, torch.linalg.solve_triangular(L, b, upper=False),
             torch.triangular_solve(b, L).solution, torch.triangular_solve(b, L).cloned_coefficient,
             torch.cholesky_solve(b, L), torch.linalg.matrix_exp(L), torch.linalg.cross(L, W[:3])]
    assert [t.grad_fn.name() for t in names] == [  # PyTorch 2.13.0
        "LinalgSvdBackward0", "LinalgSvdBackward0", "TransposeBackward0", "LinalgSvdBackward0",
        "LinalgLstsqBackward0", "LinalgSolveTriangularBackward0", "TriangularSolveBackward0",
        "TriangularSolveBackward0", "CholeskySolveBackward0", "LinalgMatrixExpBackward0", "LinalgCrossBackward0"]
    assert [type(r).__name__ for r in (torch.linalg.svd(A), torch.svd(A), torch.linalg.lstsq(A, b),
                                       torch.triangular_solve(b, L))] == [
        "linalg_svd", "svd", "linalg_lstsq", "triangular_solve"]
    assert torch.linalg.svd(A).Vh.shape == (2, 2) and torch.linalg.svd(A).U.shape == (3, 3)
    assert torch.svd(A, some=False).V.shape == (2, 2) and torch.svd(A).U.shape == (3, 2)
    assert torch.linalg.lstsq(A, b).rank.dtype == torch.int64


def test_gradcheck_and_gradgradcheck_in_float64():
    A = torch.tensor(R43, dtype=torch.float64, requires_grad=True)
    L = torch.tensor(G3L, dtype=torch.float64, requires_grad=True)
    B = W[:3, :2].clone().requires_grad_()
    fns = [(lambda a: torch.linalg.svd(a, full_matrices=False).U ** 2, (A,)),
           (lambda a: torch.linalg.svdvals(a), (A,)),
           (lambda a, b: torch.linalg.lstsq(a, b).solution, (A, W[:, :2].clone().requires_grad_())),
           (lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=True), (L, B)),
           (lambda a, b: torch.triangular_solve(b, a, upper=False, transpose=True).solution, (L, B)),
           (lambda a, b: torch.cholesky_solve(b, a.tril()), (L, B)),
           (lambda a: torch.linalg.matrix_exp(a), (torch.tensor(BIG, dtype=torch.float64, requires_grad=True),))]
    for f, inputs in fns:
        assert torch.autograd.gradcheck(f, inputs)
        assert torch.autograd.gradgradcheck(f, inputs)


M23 = torch.ones(2, 3, dtype=torch.float64)
V3 = torch.ones(3, dtype=torch.float64)
ERRORS = [  # PyTorch 2.13.0's sentences
    (lambda: torch.linalg.svd(V3), "linalg.svd: The input tensor A must have at least 2 dimensions."),
    (lambda: torch.linalg.svd(torch.ones(3, 3, dtype=torch.int64)),
     "linalg.svd: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: torch.svd(V3), "linalg.svd: input should have at least 2 dimensions, but has 1 dimensions instead"),
    (lambda: torch.linalg.lstsq(M23.T, M23[:, :2]), "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"),
    (lambda: torch.linalg.lstsq(M23, torch.ones(2, 2)), "torch.linalg.lstsq: Expected input and other to have "
     "the same dtype, but got input's dtype Double and other's dtype Float"),
    (lambda: torch.linalg.lstsq(M23, M23, driver="foo"),
     "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"),
    (lambda: torch.linalg.lstsq(V3, V3), "torch.linalg.lstsq: input must have at least 2 dimensions."),
    (lambda: torch.linalg.lstsq(M23, torch.ones(2, 2, 2, 3, dtype=torch.float64)),
     "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1"),
    (lambda: torch.linalg.solve_triangular(torch.eye(3), torch.ones(3), upper=False),
     "linalg.solve_triangular: The input tensor B must have at least 2 dimensions."),
    (lambda: torch.linalg.solve_triangular(torch.eye(3), torch.ones(2, 3), upper=False),
     "linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)"),
    (lambda: torch.linalg.solve_triangular(M23, M23, upper=False),
     "linalg.solve_triangular: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: torch.triangular_solve(torch.ones(2, 2), torch.eye(3)),
     "Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b matrix is 2 by 2"),
    (lambda: torch.cholesky_solve(torch.ones(2, 2), torch.eye(3)),
     "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 2 by 2"),
    (lambda: torch.cholesky_solve(torch.ones(3), torch.eye(3)),
     "b should have at least 2 dimensions, but has 1 dimensions instead"),
    (lambda: torch.linalg.matrix_exp(M23),
     "linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3 matrices"),
    (lambda: torch.linalg.cross(M23[:, :2], M23[:, :2]), "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_in_pytorch_s_words(k):
    f, message = ERRORS[k]
    with pytest.raises(RuntimeError) as e:
        f()
    assert str(e.value) == message
