"""gradmagic.torch's 3-d convolutions and pools: ``F.conv3d``, ``F.conv_transpose3d``,
``F.max_pool3d``, ``F.avg_pool3d``, ``F.adaptive_avg_pool3d``, ``F.adaptive_max_pool3d``,
``F.interpolate(mode="area")`` of a 5-d input and ``torch.nn.grad.conv3d_input``/
``conv3d_weight``, against PyTorch 2.13.0+cpu.

Expected numbers were computed by PyTorch 2.13.0+cpu running the same ``CASES`` on the same
inputs (NumPy's ``default_rng`` seeded per case), in float64 and in float32, and written
here as literals: the output's shape and ``grad_fn`` name, the indices a max pool returned,
and for the output and each input's gradient (of the output times a patterned upstream) a
fingerprint: its sum and its projections on two fixed random directions, which change with
any element that is wrong or in the wrong place. They agree to rtol 1e-6 (float64) and 1e-5
(float32) of the same projections of the absolute values. Max pooling with ties (inputs of
small integers) gives each window's gradient to the one element PyTorch picks.
"""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch
import gradmagic.torch.nn.functional as F
import gradmagic.torch.nn.grad as G

CASES = {  # name: (function, input shapes, "ties" for small integers (max pooling ties), else normal)
    "conv3d": (lambda x, w, b: F.conv3d(x, w, b), [(1, 2, 4, 4, 4), (3, 2, 2, 2, 2), (3,)], ""),
    "conv3d stride padding": (lambda x, w, b: F.conv3d(x, w, b, stride=2, padding=1),
                              [(1, 2, 4, 4, 4), (3, 2, 3, 3, 3), (3,)], ""),
    "conv3d groups dilation": (lambda x, w: F.conv3d(x, w, groups=2, dilation=(2, 1, 1), padding=(1, 0, 1),
                                                     stride=(1, 2, 1)), [(1, 4, 4, 4, 4), (4, 2, 2, 2, 2)], ""),
    "conv3d depthwise": (lambda x, w, b: F.conv3d(x, w, b, groups=2, padding=1), [(1, 2, 4, 4, 4), (4, 1, 3, 2, 3), (4,)],
                         ""),
    "conv3d same": (lambda x, w: F.conv3d(x, w, padding="same", dilation=(1, 2, 1)),
                    [(1, 2, 4, 4, 4), (2, 2, 2, 3, 2)], ""),
    "conv3d valid unbatched": (lambda x, w: F.conv3d(x, w, padding="valid"), [(2, 4, 4, 4), (3, 2, 2, 2, 2)], ""),
    "conv3d batch 2": (lambda x, w: F.conv3d(x, w, stride=(2, 1, 1), padding=(0, 1, 0)),
                       [(2, 2, 5, 4, 3), (2, 2, 3, 2, 2)], ""),
    "conv_transpose3d": (lambda x, w, b: F.conv_transpose3d(x, w, b), [(1, 2, 3, 3, 3), (2, 3, 2, 2, 2), (3,)], ""),
    "conv_transpose3d stride padding output_padding": (
        lambda x, w, b: F.conv_transpose3d(x, w, b, stride=2, padding=1, output_padding=1),
        [(1, 2, 3, 3, 3), (2, 2, 3, 3, 3), (2,)], ""),
    "conv_transpose3d groups dilation": (
        lambda x, w: F.conv_transpose3d(x, w, groups=2, dilation=2, stride=(1, 2, 1), output_padding=(0, 1, 0)),
        [(1, 4, 3, 3, 3), (4, 1, 2, 2, 2)], ""),
    "conv_transpose3d unbatched": (lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 2)),
                                   [(2, 3, 3, 3), (2, 2, 2, 2, 2)], ""),
    "max_pool3d": (lambda x: F.max_pool3d(x, 2, return_indices=True), [(1, 2, 4, 4, 4)], ""),
    "max_pool3d ties": (lambda x: F.max_pool3d(x, 2, stride=1, return_indices=True), [(1, 2, 4, 4, 4)], "ties"),
    "max_pool3d ties padding": (lambda x: F.max_pool3d(-x, (2, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0),
                                                       return_indices=True), [(1, 2, 4, 4, 4)], "ties"),
    "max_pool3d ceil_mode": (lambda x: F.max_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                                                    return_indices=True), [(1, 2, 4, 4, 4)], ""),
    "max_pool3d dilation ceil_mode": (
        lambda x: F.max_pool3d(x, (2, 3, 2), stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 2, 2),
                               ceil_mode=True, return_indices=True), [(1, 2, 5, 5, 5)], "ties"),
    "max_pool3d unbatched": (lambda x: F.max_pool3d(x, (2, 1, 2), return_indices=True), [(2, 4, 4, 4)], ""),
    "max_pool3d no indices": (lambda x: F.max_pool3d(x, 2, 1), [(1, 2, 3, 4, 4)], ""),
    "avg_pool3d": (lambda x: F.avg_pool3d(x, 2), [(1, 2, 4, 4, 4)], ""),
    "avg_pool3d ceil_mode count_include_pad=False": (
        lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 4, 4, 4)], ""),
    "avg_pool3d ceil_mode count_include_pad": (lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True),
                                                [(1, 2, 4, 4, 4)], ""),
    "avg_pool3d ceil_mode edge": (lambda x: F.avg_pool3d(x, 2, ceil_mode=True), [(1, 2, 5, 5, 5)], ""),
    "avg_pool3d divisor_override": (lambda x: F.avg_pool3d(x, (2, 2, 3), stride=(1, 2, 1), padding=(1, 0, 1),
                                                           divisor_override=5), [(1, 2, 4, 4, 4)], ""),
    "avg_pool3d unbatched": (lambda x: F.avg_pool3d(x, (1, 2, 2), stride=(1, 1, 2)), [(2, 4, 4, 4)], ""),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (3, 3, 2)), [(1, 2, 5, 4, 3)], ""),
    "adaptive_avg_pool3d None unbatched": (lambda x: F.adaptive_avg_pool3d(x, (3, None, 2)), [(2, 4, 4, 4)], ""),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, (3, 2, 2), return_indices=True),
                            [(1, 2, 5, 4, 3)], ""),
    "adaptive_max_pool3d ties": (lambda x: F.adaptive_max_pool3d(x, 3, return_indices=True), [(1, 2, 4, 4, 4)],
                                 "ties"),
    "adaptive_max_pool3d unbatched": (lambda x: F.adaptive_max_pool3d(x, 2), [(2, 4, 4, 3)], ""),
    "interpolate area 5-d": (lambda x: F.interpolate(x, size=(3, 2, 3), mode="area"), [(1, 2, 4, 4, 4)], ""),
    "conv3d_input": (lambda w, g: G.conv3d_input((1, 2, 5, 5, 5), w, g, stride=2, padding=1),
                     [(3, 2, 3, 3, 3), (1, 3, 3, 3, 3)], ""),
    "conv3d_weight": (lambda x, g: G.conv3d_weight(x, (3, 2, 3, 3, 3), g, stride=2, padding=1),
                      [(1, 2, 5, 5, 5), (1, 3, 3, 3, 3)], ""),
    "conv3d_weight groups dilation": (lambda x, g: G.conv3d_weight(x, (4, 1, 2, 2, 2), g, groups=2, dilation=2),
                                      [(1, 2, 4, 4, 4), (1, 4, 2, 2, 2)], ""),
}


def inputs(name, dtype):
    """The case's inputs: normal, or small integers (many ties), from its own seed."""
    _, shapes, kind = CASES[name]
    rng = np.random.default_rng(list(CASES).index(name))
    draw = (lambda s: rng.integers(0, 3, s).astype(float)) if kind == "ties" else rng.standard_normal
    return [torch.tensor(draw(s), dtype=dtype, requires_grad=True) for s in shapes]


def upstream(y):
    """A gradient for the output that differs from place to place (zeros and negatives)."""
    return torch.tensor((np.arange(y.numel()).reshape(tuple(y.shape)) % 7 - 3) / 3.0, dtype=y.dtype)


def probes(size):
    """Two fixed random directions: an array's projections on them (with its sum) show a
    value in the wrong place, or a wrong one, anywhere in it."""
    return [np.random.default_rng(100 + k).uniform(-1, 1, size) for k in (1, 2)]


def fingerprint(a):
    """``(sum, projections, their scales)`` of an array, in float64."""
    a = np.asarray(a, dtype=np.float64).reshape(-1)
    r = [np.ones(a.size)] + probes(a.size)
    return [float(v @ a) for v in r], [float(np.abs(v) @ np.abs(a)) for v in r]


def run(name, dtype):
    """The case run: the output's shape, ``grad_fn`` name and fingerprint, each input's
    gradient's fingerprint, and the indices where it returns them."""
    fn = CASES[name][0]
    xs = inputs(name, dtype)
    out = fn(*xs)
    y, indices = out if isinstance(out, tuple) else (out, None)
    (y * upstream(y)).sum().backward()
    return {"shape": list(y.shape), "grad_fn": type(y.grad_fn).__name__, "out": fingerprint(y.detach().numpy()),
            "grads": [fingerprint(x.grad.numpy()) for x in xs],
            "indices": None if indices is None else indices.numpy().reshape(-1).tolist()}


EXPECTED = {  # name: PyTorch 2.13.0's (shape, grad_fn name, fingerprints in float64, in float32,
            #        the indices it returned, flat)
    'conv3d': (
        [1, 3, 3, 3, 3], 'ConvolutionBackward0',
        [[-52.13762792, -11.02372237, 8.371239734], [0.4664343514, 21.36534983, -16.65864347], [-8.444812834, -3.118635653, -21.72565062], [-2, -0.8894966637, 0.3495351721]],
        [[-52.13762373, -11.02372172, 8.371240246], [0.4664335055, 21.36534949, -16.65864388], [-8.444812603, -3.118635667, -21.72565115], [-1.99999994, -0.8894966128, 0.3495352201]],
        None),
    'conv3d stride padding': (
        [1, 3, 2, 2, 2], 'ConvolutionBackward0',
        [[21.77543008, 8.199051683, 21.86901379], [5.020512336, -14.9986161, -24.56978658], [31.36315285, -5.406829142, 3.309028332], [-2, -0.8894966637, 0.3495351721]],
        [[21.775428, 8.199051255, 21.8690135], [5.020511515, -14.99861597, -24.56978704], [31.36315343, -5.40682999, 3.309028725], [-1.999999911, -0.8894965769, 0.3495351603]],
        None),
    'conv3d groups dilation': (
        [1, 4, 4, 2, 5], 'ConvolutionBackward0',
        [[-35.87507547, -50.98837276, -11.64100875], [8.94290014, 9.939098298, 21.74226202], [-34.92696551, -1.006883701, -5.614318991]],
        [[-35.87507185, -50.9883711, -11.64100926], [8.942902677, 9.939098187, 21.74226083], [-34.92696899, -1.006883347, -5.614319871]],
        None),
    'conv3d depthwise': (
        [1, 4, 4, 5, 4], 'ConvolutionBackward0',
        [[187.6988162, -38.52635632, 10.76579148], [-4.979991113, 38.28831119, -7.68131411], [-11.09718335, -18.39226257, 3.447103822], [-1.666666667, -2.435028505, 1.10014008]],
        [[187.6988145, -38.52635269, 10.76579208], [-4.979996502, 38.28831122, -7.681313875], [-11.09718746, -18.39226275, 3.447102865], [-1.666665137, -2.435027646, 1.100139688]],
        None),
    'conv3d same': (
        [1, 2, 4, 4, 4], 'ConvolutionBackward0',
        [[23.01194526, -6.332228044, 5.180328845], [0.9225411406, 23.90197399, 8.915957866], [18.77453011, 17.80457096, 18.3522533]],
        [[23.0119421, -6.332228329, 5.180325717], [0.9225410894, 23.90197424, 8.915957885], [18.77452722, 17.80457128, 18.3522536]],
        None),
    'conv3d valid unbatched': (
        [3, 3, 3, 3], 'SqueezeBackward1',
        [[-21.22464935, -10.97568763, -26.09445652], [-5.527861798, 9.583926106, -1.206537937], [11.16911591, -3.945286835, 14.68020718]],
        [[-21.22464699, -10.97568719, -26.09445225], [-5.527863288, 9.583926871, -1.206537317], [11.16911519, -3.945287207, 14.68020883]],
        None),
    'conv3d batch 2': (
        [2, 2, 2, 5, 2], 'ConvolutionBackward0',
        [[-12.10539223, 0.585491306, 15.71543721], [-5.005840155, -5.104372031, -16.98260366], [21.07419965, 13.5338826, -19.25036056]],
        [[-12.10538843, 0.5854900652, 15.71543546], [-5.005835694, -5.104372573, -16.9826048], [21.07419926, 13.53388113, -19.25036077]],
        None),
    'conv_transpose3d': (
        [1, 3, 4, 4, 4], 'ConvolutionBackward0',
        [[120.1785847, 9.190378764, -31.69726133], [-1.028210723, -8.118473726, -18.06099774], [-4.675722675, -12.86123047, -5.632348687], [-2, -0.8894966637, 0.3495351721]],
        [[120.1785922, 9.190378711, -31.69726053], [-1.028211594, -8.118473703, -18.0609967], [-4.67572403, -12.86122881, -5.63234918], [-2.000000268, -0.8894967867, 0.3495351944]],
        None),
    'conv_transpose3d stride padding output_padding': (
        [1, 2, 6, 6, 6], 'ConvolutionBackward0',
        [[374.2038708, -45.65702636, 59.27987381], [14.73844214, -5.220015056, 20.28725002], [-99.69189382, 13.6917423, 11.65306715], [-1.666666667, -0.699626389, 0.5654263569]],
        [[374.2038811, -45.65702821, 59.27987296], [14.73843273, -5.220016628, 20.28725015], [-99.69188812, 13.69174194, 11.6530663], [-1.66666472, -0.6996257527, 0.5654258283]],
        None),
    'conv_transpose3d groups dilation': (
        [1, 2, 5, 8, 5], 'ConvolutionBackward0',
        [[21.77966037, -8.313810974, -14.20881323], [5.166398671, 3.089915326, -16.52411506], [3.138543748, -6.249496153, -4.208581992]],
        [[21.7796611, -8.313812322, -14.20881164], [5.166398406, 3.089915176, -16.52411589], [3.138545692, -6.249496256, -4.208581229]],
        None),
    'conv_transpose3d unbatched': (
        [2, 4, 6, 6], 'SqueezeBackward1',
        [[101.594689, 8.695149032, -6.889621995], [-12.04326631, -11.43593993, 7.556763377], [5.262842689, -4.452592411, -11.14711855]],
        [[101.5946891, 8.695148946, -6.889621885], [-12.04326591, -11.43594028, 7.556763304], [5.262842581, -4.452593116, -11.14711952]],
        None),
    'max_pool3d': (
        [1, 2, 2, 2, 2], 'MaxPool3DWithIndicesBackward0',
        [[20.43941411, 5.508800225, 2.798289862], [-1.666666667, -1.624911733, 0.3026915689]],
        [[20.43941408, 5.508800126, 2.798289882], [-1.666666687, -1.624911763, 0.3026915698]],
        [1, 2, 8, 10, 37, 50, 61, 42, 20, 6, 25, 26, 53, 38, 61, 46]),
    'max_pool3d ties': (
        [1, 2, 3, 3, 3], 'MaxPool3DWithIndicesBackward0',
        [[108, 8.675062597, 2.852434305], [-1.666666667, -0.8681649389, -1.837084964]],
        [[108, 8.675062597, 2.852434305], [-1.666666687, -0.868164963, -1.837085002]],
        [17, 2, 2, 20, 26, 26, 12, 13, 26, 17, 17, 19, 20, 26, 26, 40, 26, 26, 32, 34, 34, 40, 41, 42, 40, 41, 42, 1, 1, 2, 4, 22, 7, 8, 25, 11, 32, 22, 22, 25, 22, 22, 25, 25, 27, 32, 37, 38, 36, 37, 38, 40, 45, 43]),
    'max_pool3d ties padding': (
        [1, 2, 3, 4, 2], 'MaxPool3DWithIndicesBackward0',
        [[-1, 0.2906419256, 0.6753808557], [1, -0.6157131798, 1.226919006]],
        [[-1, 0.2906419256, 0.6753808557], [0.9999999106, -0.6157132595, 1.22691901]],
        [4, 7, 4, 7, 4, 7, 8, 15, 21, 18, 21, 18, 21, 42, 25, 42, 53, 50, 53, 58, 53, 58, 61, 58, 4, 6, 4, 6, 4, 6, 8, 11, 16, 34, 16, 34, 25, 30, 25, 30, 48, 55, 48, 55, 60, 55, 60, 58]),
    'max_pool3d ceil_mode': (
        [1, 2, 3, 3, 3], 'MaxPool3DWithIndicesBackward0',
        [[58.34663445, -1.428555258, 1.596825546], [-1.666666667, -3.141423165, -1.235313265]],
        [[58.34663458, -1.428555188, 1.596825613], [-1.666666627, -3.141423249, -1.235313295]],
        [20, 5, 7, 13, 13, 7, 13, 13, 15, 20, 39, 39, 20, 39, 39, 28, 47, 47, 53, 53, 55, 53, 53, 55, 60, 62, 63, 17, 6, 23, 24, 6, 11, 12, 14, 31, 17, 17, 35, 40, 59, 59, 61, 63, 63, 52, 54, 55, 57, 59, 59, 61, 63, 63]),
    'max_pool3d dilation ceil_mode': (
        [1, 2, 3, 3, 2], 'MaxPool3DWithIndicesBackward0',
        [[69, 10.63304945, 6.072459823], [-1, 1.291879811, 2.876818222]],
        [[69, 10.63304945, 6.072459823], [-0.9999999702, 1.291879821, 2.876818262]],
        [5, 19, 0, 2, 5, 19, 30, 59, 27, 27, 30, 59, 115, 84, 85, 99, 115, 84, 15, 17, 10, 14, 15, 17, 55, 59, 45, 29, 55, 59, 90, 109, 77, 77, 90, 109]),
    'max_pool3d unbatched': (
        [2, 2, 4, 2], 'MaxPool3DWithIndicesBackward0',
        [[33.77532648, 4.794867887, 5.432335447], [-2, 0.1444865405, 0.1392287324]],
        [[33.77532638, 4.794867892, 5.432335374], [-2.00000003, 0.1444865351, 0.1392287447]],
        [1, 2, 4, 6, 24, 26, 13, 30, 33, 51, 37, 38, 40, 58, 60, 63, 17, 19, 20, 23, 9, 27, 29, 14, 49, 50, 52, 54, 57, 59, 44, 46]),
    'max_pool3d no indices': (
        [1, 2, 2, 3, 3], 'MaxPool3DWithIndicesBackward0',
        [[61.03325176, 8.732775801, 0.8471573528], [-1, 0.3311695892, -0.1680140143]],
        [[61.03325239, 8.73277579, 0.847157479], [-1.00000006, 0.331169606, -0.1680139364]],
        None),
    'avg_pool3d': (
        [1, 2, 2, 2, 2], 'AvgPool3DBackward0',
        [[-0.5279059026, 0.1605360526, -0.843012997], [-1.666666667, -0.3291224263, 0.2958220062]],
        [[-0.5279060006, 0.1605360485, -0.8430129984], [-1.666666687, -0.3291224303, 0.2958220105]],
        None),
    'avg_pool3d ceil_mode count_include_pad=False': (
        [1, 2, 3, 3, 3], 'AvgPool3DBackward0',
        [[1.666589799, 0.5736322382, 0.6690471974], [-1.666666667, 0.9246965159, -0.5700967995]],
        [[1.666589926, 0.5736322864, 0.669047274], [-1.666666627, 0.9246965056, -0.5700968904]],
        None),
    'avg_pool3d ceil_mode count_include_pad': (
        [1, 2, 3, 3, 3], 'AvgPool3DBackward0',
        [[-2.526892961, -0.4368887328, -0.8136789537], [-0.06944444444, 0.2666955537, -0.2832842068]],
        [[-2.526892975, -0.4368887924, -0.8136789316], [-0.06944445148, 0.2666955504, -0.283284197]],
        None),
    'avg_pool3d ceil_mode edge': (
        [1, 2, 3, 3, 3], 'AvgPool3DBackward0',
        [[-5.171649273, 0.5836585069, -2.959631338], [-1.666666667, -3.549813803, -1.665043306]],
        [[-5.171649169, 0.583658752, -2.95963124], [-1.666666687, -3.549813848, -1.665043331]],
        None),
    'avg_pool3d divisor_override': (
        [1, 2, 5, 2, 4], 'AvgPool3DBackward0',
        [[6.549840245, -8.093451644, 1.024880431], [-4.133333333, 0.8624765234, -0.1870475809]],
        [[6.54983953, -8.093451821, 1.02488036], [-4.133333266, 0.8624766141, -0.1870476246]],
        None),
    'avg_pool3d unbatched': (
        [2, 4, 3, 2], 'AvgPool3DBackward0',
        [[-5.85940054, -2.509409719, 0.4434186857], [-1, 0.3292871879, -1.937832084]],
        [[-5.859400436, -2.509409695, 0.443418603], [-1.000000015, 0.3292872242, -1.937832087]],
        None),
    'adaptive_avg_pool3d': (
        [1, 2, 3, 3, 2], 'AdaptiveAvgPool3DBackward0',
        [[-9.264370265, -0.9570577409, -0.01797565707], [-1, 0.9674899504, 0.2098640455]],
        [[-9.264370386, -0.957057786, -0.01797560967], [-1.000000026, 0.9674899596, 0.2098640142]],
        None),
    'adaptive_avg_pool3d None unbatched': (
        [2, 3, 4, 2], 'AdaptiveAvgPool3DBackward0',
        [[1.485748109, 2.038696962, 2.848517581], [-1, 1.835776623, -1.385074169]],
        [[1.485748097, 2.038696919, 2.84851764], [-1.00000003, 1.835776748, -1.385074183]],
        None),
    'adaptive_max_pool3d': (
        [1, 2, 3, 2, 2], 'AdaptiveMaxPool3DBackward0',
        [[40.32944033, 5.106520789, 3.08534954], [-2, -0.8645360787, 2.857856786]],
        [[40.3294403, 5.106520816, 3.085349791], [-2.000000089, -0.864536028, 2.857856862]],
        [3, 4, 9, 8, 28, 38, 30, 23, 48, 38, 55, 55, 12, 2, 10, 10, 39, 41, 45, 22, 49, 41, 45, 59]),
    'adaptive_max_pool3d ties': (
        [1, 2, 3, 3, 3], 'AdaptiveMaxPool3DBackward0',
        [[108, 8.675062597, 2.852434305], [-1.666666667, -0.9141739369, -0.9076409548]],
        [[108, 8.675062597, 2.852434305], [-1.666666776, -0.914174067, -0.9076410032]],
        [1, 1, 18, 4, 9, 11, 9, 9, 11, 33, 18, 18, 25, 25, 27, 25, 25, 27, 33, 33, 38, 37, 37, 38, 40, 42, 42, 1, 1, 6, 4, 5, 6, 29, 26, 26, 16, 18, 18, 20, 22, 22, 29, 26, 26, 49, 49, 50, 57, 57, 43, 57, 57, 43]),
    'adaptive_max_pool3d unbatched': (
        [2, 2, 2, 2], 'AdaptiveMaxPool3DBackward0',
        [[26.47442702, 5.829972991, 5.381050036], [-1.666666667, -0.05564698912, 0.2949845626]],
        [[26.47442651, 5.829972851, 5.381049941], [-1.666666627, -0.05564699002, 0.2949845923]],
        None),
    'interpolate area 5-d': (
        [1, 2, 3, 2, 3], 'AdaptiveAvgPool3DBackward0',
        [[0.2088533101, -0.2269193775, 2.115683514], [-1, 0.5393237107, 0.5217737009]],
        [[0.2088532522, -0.2269193365, 2.115683568], [-0.9999999925, 0.539323717, 0.5217737378]],
        None),
    'conv3d_input': (
        [1, 2, 5, 5, 5], 'ConvolutionBackwardBackward0',
        [[-6.444086288, -46.88616791, -46.19042529], [14.53670431, -35.06889667, -15.37101279], [-3.096622849, -13.19790329, 21.52821091]],
        [[-6.444079101, -46.88617063, -46.19042904], [14.53670255, -35.06889718, -15.37101508], [-3.096619815, -13.19790002, 21.52820935]],
        None),
    'conv3d_weight': (
        [3, 2, 3, 3, 3], 'ConvolutionBackwardBackward0',
        [[49.2544585, 14.87598204, -19.05282584], [-1.183756527, -10.08850764, 15.63477537], [-4.296177938, -0.4784867852, 5.364864662]],
        [[49.2544591, 14.87598191, -19.05282386], [-1.183752099, -10.08850721, 15.63477417], [-4.296177536, -0.4784883895, 5.364866572]],
        None),
    'conv3d_weight groups dilation': (
        [4, 1, 2, 2, 2], 'ConvolutionBackwardBackward0',
        [[-10.68174374, -6.845680259, -13.75840994], [-3.511806718, -4.821827698, 5.362992168], [1.571441868, -7.35366383, -5.720489191]],
        [[-10.68174273, -6.845680428, -13.75840983], [-3.511806604, -4.821828339, 5.362991938], [1.571441561, -7.353663786, -5.720489651]],
        None),
}


REFUSALS = [  # PyTorch 2.13.0's RuntimeError message for each call
    ('Given groups=1, weight of size [2, 2, 3, 3, 3], expected input[1, 3, 5, 5, 5] to have 2 channels, but got 3 channels instead',
     lambda: F.conv3d(torch.ones(1, 3, 5, 5, 5), torch.ones(2, 2, 3, 3, 3))),
    ("Calculated padded input size per channel: (2 x 2 x 2). Kernel size: (3 x 3 x 3). Kernel size can't be greater than actual input size",
     lambda: F.conv3d(torch.ones(1, 2, 2, 2, 2), torch.ones(2, 2, 3, 3, 3))),
    ('Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [2, 2]',
     lambda: F.conv3d(torch.ones(2, 2), torch.ones(2, 2, 3, 3, 3))),
    ('expected stride to be a single integer value or a list of 3 values to match the convolution dimensions, but got stride=[1, 1]',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 3, 3, 3), stride=(1, 1))),
    ('expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but got stride=[1, 1, 1]',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 3, 3))),
    ("padding='same' is not supported for strided convolutions",
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 3, 3, 3), padding="same", stride=2)),
    ("Invalid padding string: 'full'",
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 3, 3, 3), padding="full")),
    ('Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 2, 2, 2]] instead',
     lambda: F.conv3d(torch.ones(1, 4, 4, 4, 4), torch.ones(3, 2, 2, 2, 2), groups=2)),
    ('Given weight of size [2, 2, 2, 2, 2], expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 2, 2, 2), torch.ones(3))),
    ('negative padding is not supported',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 2, 2, 2), padding=-1)),
    ('non-positive stride is not supported',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 2, 2, 2), stride=0)),
    ('expected scalar type Float but found Double',
     lambda: F.conv3d(torch.ones(1, 2, 4, 4, 4), torch.ones(2, 2, 2, 2, 2, dtype=torch.float64))),
    ('output padding must be smaller than either stride or dilation, but got output_padding_depth: 1 output_padding_height: 1 output_padding_width: 1 stride_depth: 1 stride_height: 1 stride_width: 1 dilation_depth: 1 dilation_height: 1 dilation_width: 1',
     lambda: F.conv_transpose3d(torch.ones(1, 2, 3, 3, 3), torch.ones(2, 2, 3, 3, 3), output_padding=1)),
    ('Given transposed=1, weight of size [2, 2, 3, 3, 3], expected input[1, 3, 3, 3, 3] to have 2 channels, but got 3 channels instead',
     lambda: F.conv_transpose3d(torch.ones(1, 3, 3, 3, 3), torch.ones(2, 2, 3, 3, 3))),
    ('Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [2, 3]',
     lambda: F.conv_transpose3d(torch.ones(2, 3), torch.ones(2, 2, 3, 3, 3))),
    ('max_pool3d: kernel_size must either be a single int, or a tuple of three ints',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), (2, 2))),
    ('max_pool3d: stride must either be omitted, a single int, or a tuple of three ints',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, stride=(1, 2))),
    ('max_pool3d: padding must either be a single int, or a tuple of three ints',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, padding=(1, 2))),
    ('max_pool3d: dilation must be either a single int, or a tuple of three ints',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, dilation=(1, 2))),
    ('stride should not be zero',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 0)),
    ('kernel size should be greater than zero, but got kT: 3 kH: 0 kW: 3',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), (3, 0, 3), 1)),
    ('stride should be greater than zero, but got dT: 2 dH: -1 dW: 1',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 3, (2, -1, 1))),
    ('dilation should be greater than zero, but got dilationT: 1 dilationH: 0 dilationW: 2',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, dilation=(1, 0, 2))),
    ('pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, padding=2)),
    ('pad must be non-negative, but got pad: -1',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), 2, padding=-1)),
    ('pad should be smaller than or equal to half of kernel size, but got kT: 3 kW: 3 kH: 3 padT: 1 padW: 1 padH: 2',
     lambda: F.max_pool3d(torch.ones(1, 2, 6, 6, 6), 3, 1, padding=(1, 2, 1), dilation=(1, 2, 1))),
    ('Given input size: (2x4x4x4). Calculated output size: (2x4x0x4). Output size is too small',
     lambda: F.max_pool3d(torch.ones(1, 2, 4, 4, 4), (1, 5, 1), 1)),
    ('non-empty 4D or 5D (batch mode) tensor expected for input',
     lambda: F.max_pool3d(torch.ones(2, 2), 2)),
    ("max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive length, but input has a shape of [0, 4, 4, 4] and non-batch dimension 0 has length zero!",
     lambda: F.max_pool3d(torch.ones(0, 4, 4, 4), 2)),
    ('avg_pool3d: kernel_size must be a single int, or a tuple of three ints',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), (2, 2))),
    ('avg_pool3d: stride must be omitted, a single int, or a tuple of three ints',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), 2, stride=(1, 2))),
    ('avg_pool3d: padding must be a single int, or a tuple of three ints',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), 2, padding=(1, 2))),
    ('kernel size should be greater than zero, but got kT: 0 kH: 0 kW: 0',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), 0, 1)),
    ('input image (T: 4 H: 4 W: 4) smaller than kernel size (kT: 1 kH: 5 kW: 1)',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), (1, 5, 1), 1)),
    ('input image (T: 1 H: 1 W: 1) smaller than kernel size (kT: 2 kH: 2 kW: 2)',
     lambda: F.avg_pool3d(torch.ones(1, 2, 1, 1, 1), 2, stride=2, padding=1, ceil_mode=True)),
    ('divisor must be not zero',
     lambda: F.avg_pool3d(torch.ones(1, 2, 4, 4, 4), 2, divisor_override=0)),
    ("avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input has a shape of [2, 0, 4, 4] and non-batch dimension 0 has length zero!",
     lambda: F.avg_pool3d(torch.ones(2, 0, 4, 4), 2)),
    ('non-empty 4D or 5D (batch mode) tensor expected for input',
     lambda: F.avg_pool3d(torch.ones(2, 2), 2)),
    ('adaptive_avg_pool3d: output_size must be 3',
     lambda: F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 4, 4), (2, 2))),
    ('adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [2, 2]',
     lambda: F.adaptive_avg_pool3d(torch.ones(2, 2), 2)),
    ('adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but received {2, 4,-1}',
     lambda: F.adaptive_avg_pool3d(torch.ones(1, 2, 4, 4, 4), (2, None, -1))),
    ('adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 0, 4, 4, 4] with dimension 1 being empty',
     lambda: F.adaptive_avg_pool3d(torch.ones(1, 0, 4, 4, 4), 2)),
    ('adaptive_max_pool3d(): internal error: output_size.size() must be 3',
     lambda: F.adaptive_max_pool3d(torch.ones(1, 2, 4, 4, 4), (2, 2))),
    ('adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [2, 2]',
     lambda: F.adaptive_max_pool3d(torch.ones(2, 2), 2)),
    ('Trying to create tensor with negative dimension -1: [1, 2, 2, 4, -1]',
     lambda: F.adaptive_max_pool3d(torch.ones(1, 2, 4, 4, 4), (2, None, -1))),
    ('Trying to create tensor with negative dimension -1: [2, -1, -2, 2]',
     lambda: F.adaptive_max_pool3d(torch.ones(2, 6, 6, 6), (-1, -2, 2))),
    ('Given weight of size [2, 2, 2, 2], expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead',
     lambda: F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 2, 2, 2), torch.ones(3))),
    ('non-positive stride is not supported',
     lambda: F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 2, 2, 2), stride=0)),
    ("Invalid padding string: 'full'",
     lambda: F.conv2d(torch.ones(1, 2, 4, 4), torch.ones(2, 2, 3, 3), padding="full")),
    ('kernel size should be greater than zero, but got kH: 0 kW: 0',
     lambda: F.max_pool2d(torch.ones(1, 2, 6, 6), 0, 1)),
    ('pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 3, kH = 3',
     lambda: F.max_pool2d(torch.ones(1, 2, 6, 6), 3, 1, padding=2, dilation=2)),
    ('max_pool2d: dilation must be either a single int, or a tuple of two ints',
     lambda: F.max_pool2d(torch.ones(1, 2, 6, 6), 2, dilation=(1, 1, 1))),
    ('Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 0, 4, 4]',
     lambda: F.max_pool2d(torch.ones(1, 0, 4, 4), 2)),
]

@pytest.mark.parametrize("dtype, rtol", [(torch.float64, 1e-6), (torch.float32, 1e-5)], ids=["float64", "float32"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_gradients_and_indices_are_pytorchs(name, dtype, rtol):
    shape, grad_fn, f64, f32, indices = EXPECTED[name]
    got = run(name, dtype)
    assert got["shape"] == shape
    assert got["grad_fn"] == grad_fn
    assert got["indices"] == indices
    for (values, scales), want in zip([got["out"]] + got["grads"], f64 if dtype == torch.float64 else f32):
        assert np.all(np.abs(np.subtract(values, want)) <= rtol * np.asarray(scales) + 1e-12), (values, want)


SMALL = {  # functions of core arrays, for finite differences to second order
    "conv3d groups dilation stride": (
        lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=1, dilation=(1, 2, 1), groups=2),
        [(1, 2, 3, 4, 3), (2, 1, 2, 2, 2), (2,)]),
    "conv_transpose3d stride output_padding": (
        lambda x, w: F.conv_transpose3d(x, w, stride=2, padding=1, output_padding=(1, 0, 1)),
        [(1, 2, 2, 2, 2), (2, 1, 3, 2, 3)]),
    "max_pool3d ceil_mode padding": (lambda x: F.max_pool3d(x, 2, stride=2, padding=1, ceil_mode=True),
                                     [(1, 1, 3, 3, 4)]),
    "avg_pool3d ceil_mode count_include_pad=False": (
        lambda x: F.avg_pool3d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 1, 4, 3, 3)]),
    "adaptive_avg_pool3d": (lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), [(1, 1, 3, 4, 3)]),
    "adaptive_max_pool3d": (lambda x: F.adaptive_max_pool3d(x, 2), [(2, 3, 3, 3)]),
    "conv3d_weight": (lambda x, g: G.conv3d_weight(x, (2, 1, 2, 2, 2), g, stride=2), [(1, 1, 4, 4, 3), (1, 2, 2, 2, 1)]),
}


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name", list(SMALL))
def test_first_and_second_derivatives_match_finite_differences(name, order):
    fn, shapes = SMALL[name]
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(s) for s in shapes]  # distinct values: no tie in a max
    weights = rng.standard_normal(tuple(fn(*[torch.tensor(a) for a in arrays]).shape))
    report = gm.check_grad(lambda *xs: np.sum(fn(*xs) * weights), *arrays, order=order)
    assert report, str(report)


@pytest.mark.parametrize("message, call", REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_refusals_in_pytorchs_words(message, call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


def test_a_tie_sends_the_gradient_to_the_first_element_of_the_window():
    """All equal: each window's maximum is its first element (PyTorch's choice), which
    gets the whole upstream; the others, none."""
    x = torch.zeros(1, 1, 3, 3, 3, dtype=torch.float64, requires_grad=True)
    y, index = F.max_pool3d(x, 2, stride=1, return_indices=True)
    assert index.reshape(-1).tolist() == [0, 1, 3, 4, 9, 10, 12, 13]
    y.sum().backward()
    want = np.zeros(27)
    want[[0, 1, 3, 4, 9, 10, 12, 13]] = 1
    np.testing.assert_array_equal(x.grad.numpy().reshape(-1), want)


def test_the_3d_names_are_in_functional_and_grad():
    for name in ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
                 "adaptive_max_pool3d"]:
        assert name in F.__all__ and callable(getattr(F, name))
    assert {"conv3d_input", "conv3d_weight"} <= set(G.__all__)


def test_an_unbatched_2d_convolution_is_named_as_pytorch_names_it():
    """PyTorch squeezes the batch axis away after the convolution, in 2-d as in 3-d."""
    x = torch.ones(2, 4, 4, requires_grad=True)
    assert type(F.conv2d(x, torch.ones(3, 2, 2, 2)).grad_fn).__name__ == "SqueezeBackward1"
    assert type(F.conv2d(x[None], torch.ones(3, 2, 2, 2)).grad_fn).__name__ == "ConvolutionBackward0"
