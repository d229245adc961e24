"""``gradmagic.torch``'s products (``addmm``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``,
``vdot``, ``tensordot``, ``matrix_power``, ``cdist``, ``cov``, ``corrcoef``, ``block_diag``,
``cartesian_prod``, ``chain_matmul``) and its functions that move, pick or split elements
(flips, ``rot90``, the splits, ``unfold``, ``sum_to_size``, ``diag_embed``, ``take``,
``take_along_dim``, ``index_fill``, ``index_copy``, the stacking and broadcasting helpers).

Every expected value, gradient, ``grad_fn`` name, dtype and error message below was printed
by PyTorch 2.13.0+cpu running the same code with ``T = torch`` (values and gradients in
float64, rounded to 5 decimals; gradients of the outputs weighted 1, 2, 3 ...); each
differentiable case is also checked by ``gradcheck`` and ``gradgradcheck`` (central
differences, first and second order) and run in float32.
"""

import warnings

import numpy as np
import pytest
from _cases import same_as_printed as same
from _cases import torch_inputs, weighted_gradients

import gradmagic.torch as torch

INF = float("inf")

CASES = {  # name: (the PyTorch code on namespace T, the inputs' shapes)
    "addmm": (lambda T, a, b, c: T.addmm(a, b, c), [(2, 3), (2, 4), (4, 3)]),
    "addmm bcast beta alpha": (lambda T, a, b, c: a.addmm(b, c, beta=0.5, alpha=-2), [(3,), (2, 4), (4, 3)]),
    "addmm beta 0": (lambda T, a, b, c: T.addmm(a, b, c, beta=0, alpha=1.5), [(2, 3), (2, 4), (4, 3)]),
    "addmv": (lambda T, a, m, v: T.addmv(a, m, v, alpha=2), [(2,), (2, 3), (3,)]),
    "addmv 0-d input": (lambda T, a, m, v: a.addmv(m, v, beta=3), [(), (2, 3), (3,)]),
    "addr": (lambda T, a, u, v: T.addr(a, u, v, beta=2), [(2, 3), (2,), (3,)]),
    "baddbmm": (lambda T, a, b, c: T.baddbmm(a, b, c, alpha=0.5), [(2, 2, 3), (2, 2, 4), (2, 4, 3)]),
    "baddbmm bcast": (lambda T, a, b, c: a.baddbmm(b, c), [(1, 3), (2, 2, 4), (2, 4, 3)]),
    "addbmm": (lambda T, a, b, c: T.addbmm(a, b, c, beta=-1), [(2, 3), (3, 2, 4), (3, 4, 3)]),
    "vdot": (lambda T, a, b: a.vdot(b), [(4,), (4,)]),
    "tensordot int": (lambda T, a, b: T.tensordot(a, b, 1), [(2, 3), (3, 4)]),
    "tensordot lists": (lambda T, a, b: T.tensordot(a, b, ([0, 2], [1, 0])), [(3, 2, 4), (4, 3, 5)]),
    "tensordot 0": (lambda T, a, b: T.tensordot(a, b, 0), [(2,), (3,)]),
    "matrix_power 3": (lambda T, a: T.matrix_power(a, 3), [(3, 3)]),
    "matrix_power 5 batch": (lambda T, a: a.matrix_power(5), [(2, 3, 3)]),
    "matrix_power -2": (lambda T, a: a.matrix_power(-2), [(3, 3)]),
    "matrix_power 0": (lambda T, a: a.matrix_power(0) * a, [(2, 2)]),
    "matrix_power 1": (lambda T, a: a.matrix_power(1), [(2, 2)]),
    "cdist": (lambda T, a, b: T.cdist(a, b), [(3, 2), (4, 2)]),
    "cdist p1": (lambda T, a, b: T.cdist(a, b, p=1), [(3, 2), (4, 2)]),
    "cdist inf": (lambda T, a, b: T.cdist(a, b, p=INF), [(3, 2), (4, 2)]),
    "cdist p3 batch": (lambda T, a, b: T.cdist(a, b, p=3), [(2, 3, 2), (1, 4, 2)]),
    "cdist same": (lambda T, a: T.cdist(a, a), [(3, 2)]),
    "cov": (lambda T, a: a.cov(), [(3, 5)]),
    "cov 1d": (lambda T, a: T.cov(a), [(5,)]),
    "cov correction 0": (lambda T, a: T.cov(a, correction=0), [(2, 4)]),
    "cov weights": (lambda T, a: T.cov(a, fweights=T.tensor([1, 2, 0, 3, 1]),
                                       aweights=T.tensor([0.5, 1.0, 2.0, 0.25, 1.0], dtype=a.dtype)), [(2, 5)]),
    "corrcoef": (lambda T, a: a.corrcoef(), [(3, 5)]),
    "block_diag": (lambda T, a, b, c: T.block_diag(a, b, c), [(2, 2), (3,), ()]),
    "cartesian_prod": (lambda T, a, b, c: T.cartesian_prod(a, b, c), [(2,), (3,), (2,)]),
    "chain_matmul": (lambda T, a, b, c, d: T.chain_matmul(a, b, c, d), [(2, 3), (3, 4), (4, 2), (2, 5)]),
    "fliplr": (lambda T, a: a.fliplr(), [(2, 3)]),
    "flipud": (lambda T, a: T.flipud(a), [(2, 3)]),
    "rot90": (lambda T, a: a.rot90(), [(2, 3)]),
    "rot90 2": (lambda T, a: T.rot90(a, 2), [(2, 3)]),
    "rot90 -1 dims": (lambda T, a: T.rot90(a, -1, [2, 0]), [(2, 3, 4)]),
    "rot90 3 neg dims": (lambda T, a: a.rot90(3, [-1, -2]), [(2, 3, 4)]),
    "rot90 4": (lambda T, a: a.rot90(4), [(2, 3)]),
    "tensor_split sections": (lambda T, a: a.tensor_split(3), [(7,)]),
    "tensor_split indices": (lambda T, a: T.tensor_split(a, [1, 4], dim=1), [(2, 5)]),
    "tensor_split tensor": (lambda T, a: a.tensor_split(T.tensor([3, 1, -1]), 0), [(5, 2)]),
    "hsplit": (lambda T, a: a.hsplit(2), [(2, 4)]),
    "vsplit": (lambda T, a: T.vsplit(a, [1]), [(3, 2)]),
    "dsplit": (lambda T, a: a.dsplit(2), [(1, 2, 4)]),
    "split_with_sizes": (lambda T, a: a.split_with_sizes([1, 3], 1), [(2, 4)]),
    "unfold": (lambda T, a: a.unfold(1, 2, 1), [(2, 4)]),
    "unfold step": (lambda T, a: a.unfold(0, 2, 2), [(5, 3)]),
    "sum_to_size": (lambda T, a: a.sum_to_size(1, 4), [(3, 4)]),
    "sum_to_size lead": (lambda T, a: a.sum_to_size((3, 1)), [(2, 3, 4)]),
    "diag_embed": (lambda T, a: a.diag_embed(), [(2, 3)]),
    "diag_embed offset dims": (lambda T, a: T.diag_embed(a, 1, 0, 2), [(2, 3)]),
    "diag_embed offset -1": (lambda T, a: a.diag_embed(-1), [(3,)]),
    "diagflat": (lambda T, a: a.diagflat(-1), [(2, 2)]),
    "take": (lambda T, a: a.take(T.tensor([[0, 5], [-1, 0]])), [(2, 3)]),
    "take_along_dim": (lambda T, a: a.take_along_dim(T.tensor([[0, 2, 2], [1, 1, 0]]), 1), [(2, 3)]),
    "take_along_dim bcast": (lambda T, a: T.take_along_dim(a, T.tensor([[2], [0]]), dim=1), [(1, 3)]),
    "take_along_dim flat": (lambda T, a: T.take_along_dim(a, T.tensor([4, 0, 4])), [(2, 3)]),
    "index_fill": (lambda T, a: a.index_fill(1, T.tensor([2, -3]), -1.5), [(2, 3)]),
    "index_fill tensor": (lambda T, a, v: T.index_fill(a, 0, T.tensor([1]), v), [(2, 3), ()]),
    "index_copy": (lambda T, a, s: a.index_copy(1, T.tensor([2, 0]), s), [(2, 3), (2, 2)]),
    "moveaxis": (lambda T, a: a.moveaxis((0, 1), (2, 0)), [(2, 3, 4)]),
    "movedim": (lambda T, a: T.movedim(a, -1, 0), [(2, 3, 4)]),
    "atleast_3d": (lambda T, a, b, c: T.atleast_3d(a, b, c), [(), (2,), (2, 3)]),
    "column_stack": (lambda T, a, b: T.column_stack([a, b]), [(3,), (3, 2)]),
    "dstack": (lambda T, a, b: T.dstack((a, b)), [(2, 3), (2, 3)]),
    "row_stack": (lambda T, a, b: T.row_stack([a, b]), [(3,), (2, 3)]),
    "broadcast_tensors": (lambda T, a, b: T.broadcast_tensors(a, b), [(3, 1), (4,)]),
}

PYTORCH = {'addmm': [[[-2.15285, -2.80203, 1.26721], [1.09031, -3.437, 2.26993]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
                     [[-4.34322, 3.6345, 0.60881, 2.44049], [-11.91053, 7.04803, 2.32701, 6.48746]],
                     [[-1.1891, -0.50837, 0.17235], [1.11238, 2.10079, 3.0892], [-10.00386, -13.03262, -16.06139],
                      [-2.14059, -3.6248, -5.10901]]],
           'addmm bcast beta alpha': [[[-0.71663, -4.22419, 0.76392], [-2.72973, 6.05242, 1.77785]], [2.5, 3.5, 4.5],
                                      [[10.53022, 8.68645, -7.269, -1.21762], [25.5452, 23.82107, -14.09606, -4.65402]],
                                      [[-7.78645, -9.89041, -11.99437], [6.70122, 9.18003, 11.65884],
                                       [9.40018, 11.20783, 13.01549], [2.3782, 1.01674, -0.34471]]],
           'addmm beta 0': [[[-3.41788, -4.00489, 0.94018], [1.47812, -4.35199, 2.8625]],
                            [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
                            [[-6.51483, 5.45175, 0.91321, 3.66073], [-17.8658, 10.57205, 3.49052, 9.7312]],
                            [[-1.78365, -0.76256, 0.25853], [1.66858, 3.15119, 4.6338], [-15.00579, -19.54894, -24.09209],
                             [-3.21088, -5.4372, -7.66352]]],
           'addmv': [[-0.37339, -5.12184], [1.0, 2.0], [[-1.40747, -2.53084, -1.24655], [-2.81494, -5.06169, -2.4931]],
                     [2.72723, 5.4258, 2.71699]],
           'addmv 0-d input': [[-0.33135, -2.03471], 9.0, [[0.94708, -0.70374, -1.26542], [1.89416, -1.40747, -2.53084]],
                               [-1.20344, 1.36361, 2.7129]],
           'addr': [[[-0.66621, -1.91432, 0.4681], [-0.45669, -2.2698, 0.1329]], [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]],
                    [-5.1044, -12.8817], [5.09232, 7.3434, 9.59449]],
           'baddbmm': [[[[0.59446, -0.87909, 1.61546], [0.23916, -0.08862, 1.1947]],
                        [[1.66494, 0.4413, -1.8163], [-2.94556, -0.82038, 0.52166]]],
                       [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]],
                       [[[-1.5231, 0.54746, -0.51804, 2.95932], [-3.39382, 0.80612, -0.64374, 6.181]],
                        [[7.70541, 2.37976, 21.05146, 0.59495], [10.10651, 3.47753, 28.88133, 1.2912]]],
                       [[[-2.25103, -3.68568, -5.12032], [-0.742, -1.00954, -1.27709], [0.20031, -0.21683, -0.63397],
                         [1.71889, 1.87402, 2.02914]],
                        [[4.06748, 4.45495, 4.84242], [5.25268, 5.98292, 6.71316], [-6.04568, -6.75002, -7.45437],
                         [-3.37834, -3.66345, -3.94856]]]],
           'baddbmm bcast': [[[[0.02853, -0.31559, -1.35003], [1.74752, 0.30239, 3.09441]],
                              [[1.21504, -3.02268, 0.17935], [-0.3152, 0.16628, 0.68186]]],
                             [[22.0, 26.0, 30.0]],
                             [[[4.88483, 2.74824, -4.15816, -3.04619], [11.72616, 4.51759, -8.8718, -6.78764]],
                              [[2.12958, -1.53886, 18.80539, 15.41081], [2.64692, -1.79025, 25.24877, 20.21301]]],
                             [[[3.89322, 4.94521, 5.99719], [-3.35061, -4.59001, -5.82942],
                               [-4.70009, -5.60392, -6.50774], [-1.1891, -0.50837, 0.17235]],
                              [[-7.03339, -7.72433, -8.41527], [-21.71781, -24.5871, -27.45638],
                               [-4.69454, -5.22964, -5.76473], [-4.60507, -5.43935, -6.27363]]]],
           'addbmm': [[[-3.74433, -2.71337, -4.1174], [0.49109, 4.32378, 0.03911]],
                      [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]],
                      [[[-1.90564, 2.03628, 1.43887, 3.51707], [-6.0397, 5.36891, 1.44047, 8.76194]],
                       [[3.70187, 8.48289, 5.50398, 0.7522], [10.87679, 17.79596, 15.92634, -0.9167]],
                       [[0.79147, -3.6573, 2.44206, -0.61369], [-0.59865, -7.10663, 2.84146, -1.89023]]],
                      [[[-1.1891, -0.50837, 0.17235], [1.11238, 2.10079, 3.0892], [-10.00386, -13.03262, -16.06139],
                        [-2.14059, -3.6248, -5.10901]],
                       [[0.40061, -0.43367, -1.26795], [3.43779, 3.74803, 4.05828], [-1.0584, -1.73119, -2.40398],
                        [5.14955, 6.19972, 7.24988]],
                       [[-3.63919, -5.04789, -6.45658], [-3.33539, -3.90561, -4.47582], [-0.92743, -0.48169, -0.03594],
                        [0.97479, 1.289, 1.60321]]]],
           'vdot': [0.81934, [-0.53567, 0.3616, 1.304, 0.94708], [0.12573, -0.1321, 0.64042, 0.1049]],
           'tensordot int': [[[-0.55162, -0.35534, -0.12989, -0.33276], [0.02014, -0.18757, 0.97482, -0.12992]],
                             [[-3.97473, -8.39088, -5.60842], [-2.84703, -20.89397, -16.96337]],
                             [[0.65023, 0.88086, 1.11149, 1.34212], [-2.81045, -3.47823, -4.146, -4.81377],
                              [2.4484, 3.45042, 4.45243, 5.45445]]],
           'tensordot lists': [[[0.54831, 1.54549, -0.21276, -2.93473, -4.8444],
                                [-2.53599, 4.66657, 1.41999, -1.07206, -2.67989]],
                               [[[-7.11453, 12.80713, -2.34495, 0.87792], [-12.74187, 32.18451, -7.1022, -4.53078]],
                                [[-0.35924, 20.85988, -0.56606, 1.18204], [-3.44413, 46.71211, -5.68847, 5.30282]],
                                [[2.36534, 1.66947, 13.01045, -6.48614], [5.21817, 7.2504, 31.04837, -6.0411]]],
                               [[[-3.08829, -3.49823, -3.90816, -4.3181, -4.72804],
                                 [-14.65392, -17.68269, -20.71145, -23.74022, -26.76898],
                                 [-1.31547, -1.98826, -2.66105, -3.33385, -4.00664]],
                                [[2.03747, 2.26696, 2.49645, 2.72594, 2.95543],
                                 [-2.57817, -4.06238, -5.5466, -7.03081, -8.51502],
                                 [7.88248, 8.93264, 9.98281, 11.03297, 12.08313]],
                                [[8.46442, 10.40885, 12.35327, 14.29769, 16.24211],
                                 [-8.09874, -9.96793, -11.83711, -13.7063, -15.57548],
                                 [-3.57954, -3.8331, -4.08667, -4.34023, -4.59379]],
                                [[5.78739, 6.83937, 7.89135, 8.94333, 9.99531],
                                 [-4.35228, -5.04322, -5.73416, -6.4251, -7.11604],
                                 [3.15157, 4.5456, 5.93962, 7.33364, 8.72767]]]],
           'tensordot 0': [[[0.08052, 0.01319, -0.06735], [-0.0846, -0.01386, 0.07076]], [-0.75679, -0.12783],
                           [-0.40269, -0.40906, -0.41544]],
           'matrix_power 3': [[[-0.37044, -0.86031, 1.06909], [-0.37835, -0.74716, 0.76512],
                               [1.95787, 2.39179, -2.08303]],
                              [[6.77142, -1.28296, 15.12633], [0.92635, -4.11253, 0.85936],
                               [15.69371, 15.38921, 6.69095]]],
           'matrix_power 5 batch': [[[[-1.37832, -2.21338, 2.27097], [-1.13755, -1.7398, 1.72269],
                                      [4.02685, 5.56972, -5.21401]],
                                     [[-33.18495, -12.09501, -6.90428], [-55.07587, -19.57689, -11.84762],
                                      [-27.83547, -10.15665, -5.79302]]],
                                    [[[-3.40731, -15.12216, 29.364], [-11.59158, -22.3891, 5.95901],
                                      [33.18303, 35.14601, -13.79552]],
                                     [[2635.76347, 4184.46897, 2456.40409], [1173.46192, 1866.31198, 1073.91164],
                                      [988.27525, 1598.9965, 880.84933]]]],
           'matrix_power -2': [[[2.63053, -2.7617, 0.02824], [-2.37946, 5.73463, 0.71157], [-0.8857, 3.53422, 1.18143]],
                               [[36.70043, -105.60316, -72.92588], [-107.15985, 108.26672, 14.37669],
                                [-24.37934, 8.45289, -13.23583]]],
           'matrix_power 0': [[[0.12573, 0.0], [0.0, 0.1049]], [[1.0, 0.0], [0.0, 4.0]]],
           'matrix_power 1': [[[0.12573, -0.1321], [0.64042, 0.1049]], [[1.0, 2.0], [3.0, 4.0]]],
           'cdist': [[[1.5978, 1.40443, 0.76882, 2.45229], [1.0722, 1.91952, 1.2653, 2.98307],
                      [1.93059, 1.63567, 0.33203, 1.88113]],
                     [[7.36396, 0.40315], [16.051, 1.57576], [6.7682, 21.53025]],
                     [[12.40806, 7.3322], [-6.41027, -15.84433], [-12.81611, -10.28519], [-23.36484, -4.71184]]],
           'cdist p1': [[[2.25746, 1.96278, 0.92244, 2.53745], [1.50576, 2.71448, 1.32727, 3.28915],
                         [2.42516, 1.79508, 0.40787, 2.36975]],
                        [[8.0, 2.0], [16.0, 16.0], [24.0, 24.0]],
                        [[15.0, 15.0], [-18.0, -18.0], [-21.0, -15.0], [-24.0, -24.0]]],
           'cdist inf': [[[1.17827, 1.13332, 0.749, 2.45076], [0.84218, 1.37032, 1.2637, 2.96545],
                          [1.83967, 1.62702, 0.32027, 1.78936]],
                         [[6.0, 2.0], [15.0, 1.0], [3.0, 21.0]],
                         [[10.0, 5.0], [0.0, -18.0], [-10.0, -11.0], [-24.0, 0.0]]],
           'cdist p3 batch': [[[[2.4508, 1.40892, 0.6746, 1.18024], [2.96674, 1.93977, 1.20217, 0.94213],
                                [1.80949, 1.18574, 0.6779, 1.05246]],
                               [[3.66871, 2.77268, 2.02715, 0.89273], [1.7553, 0.67746, 0.95062, 2.39169],
                                [1.70378, 0.88973, 0.35891, 1.28301]]],
                              [[[5.61996, -3.37419], [17.93926, -5.88704], [2.66883, 15.41331]],
                               [[53.01736, 12.09205], [21.14772, -54.75623], [14.99388, 25.34251]]],
                              [[[-62.97041, 3.25507], [-45.30071, -20.60977], [-20.57857, -21.8051],
                                [13.46269, 50.32939]]]],
           'cdist same': [[[0.0, 0.56664, 0.82534], [0.56664, 0.0, 1.20378], [0.82534, 1.20378, 0.0]],
                          [[2.56369, -8.49135], [19.12795, -0.47578], [-21.69164, 8.96714]]],
           'cov': [[[0.18327, 0.2644, -0.18766], [0.2644, 1.18546, -0.02006], [-0.18766, -0.02006, 0.89345]],
                   [[1.01953, 3.96572, -2.09929, 0.42233, -3.30829], [1.58856, 5.88392, -2.13184, 0.30968, -5.65031],
                    [2.15758, 7.80212, -2.16439, 0.19703, -7.99234]]],
           'cov 1d': [0.18327, [0.04254, -0.08638, 0.29988, 0.03212, -0.28816]],
           'cov correction 0': [[[0.07947, 0.10891], [0.10891, 0.48415]],
                                [[-1.34815, -0.35549, 1.20878, 0.49487], [-2.1836, -0.71137, 2.1391, 0.75586]]],
           'cov weights': [[[0.06859, 0.13219], [0.13219, 1.51277]],
                           [[0.17407, 3.13517, 0.0, -0.90892, -2.40031], [0.3519, 5.04012, 0.0, -1.35235, -4.03967]]],
           'corrcoef': [[[1.0, 0.56724, -0.46376], [0.56724, 1.0, -0.01949], [-0.46376, -0.01949, 1.0]],
                        [[2.4438, 9.1485, -5.31927, 1.47933, -7.75236], [0.97385, 1.78216, -3.54379, 2.98574, -2.19796],
                         [1.66261, 4.18785, 4.49533, -1.53336, -8.81243]]],
           'block_diag': [[[0.12573, -0.1321, 0.0, 0.0, 0.0, 0.0], [0.64042, 0.1049, 0.0, 0.0, 0.0, 0.0],
                           [0.0, 0.0, -0.53567, 0.3616, 1.304, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.94708]],
                          [[1.0, 2.0], [7.0, 8.0]], [15.0, 16.0, 17.0], 24.0],
           'cartesian_prod': [[[0.12573, 0.64042, 0.3616], [0.12573, 0.64042, 1.304], [0.12573, 0.1049, 0.3616],
                               [0.12573, 0.1049, 1.304], [0.12573, -0.53567, 0.3616], [0.12573, -0.53567, 1.304],
                               [-0.1321, 0.64042, 0.3616], [-0.1321, 0.64042, 1.304], [-0.1321, 0.1049, 0.3616],
                               [-0.1321, 0.1049, 1.304], [-0.1321, -0.53567, 0.3616], [-0.1321, -0.53567, 1.304]],
                              [51.0, 159.0], [50.0, 74.0, 98.0], [108.0, 126.0]],
           'chain_matmul': [[[0.5321, 0.54579, -0.43416, -0.33131, -0.00483],
                             [0.5254, 0.66087, 0.38716, -0.14107, 0.77428]],
                            [[10.64647, -14.17373, -6.61932], [22.92542, -35.31624, -10.98965]],
                            [[-0.09745, 2.14504, 2.70228, -2.95609], [0.77477, -7.82153, -10.37361, 11.52963],
                             [-0.22339, 8.66563, 10.7056, -11.63732]],
                            [[4.02621, -1.90784], [7.14392, -2.72164], [-21.06243, 6.77088], [5.65221, -2.20828]],
                            [[-4.79616, -5.92521, -7.05426, -8.18332, -9.31237],
                             [-0.56676, -1.6092, -2.65164, -3.69408, -4.73652]]],
           'fliplr': [[[0.64042, -0.1321, 0.12573], [0.3616, -0.53567, 0.1049]], [[3.0, 2.0, 1.0], [6.0, 5.0, 4.0]]],
           'flipud': [[[0.1049, -0.53567, 0.3616], [0.12573, -0.1321, 0.64042]], [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]]],
           'rot90': [[[0.64042, 0.3616], [-0.1321, -0.53567], [0.12573, 0.1049]], [[5.0, 3.0, 1.0], [6.0, 4.0, 2.0]]],
           'rot90 2': [[[0.3616, -0.53567, 0.1049], [0.64042, -0.1321, 0.12573]], [[6.0, 5.0, 4.0], [3.0, 2.0, 1.0]]],
           'rot90 -1 dims': [[[[0.1049, -0.73227], [0.94708, 1.04251], [0.04133, 0.35151]],
                              [[0.64042, -1.24591], [1.304, 0.41163], [-0.62327, -0.66519]],
                              [[-0.1321, -0.21879], [0.3616, -0.3163], [-1.26542, 1.36646]],
                              [[0.12573, -2.32503], [-0.53567, -0.54426], [-0.70374, -0.12853]]],
                             [[[19.0, 13.0, 7.0, 1.0], [21.0, 15.0, 9.0, 3.0], [23.0, 17.0, 11.0, 5.0]],
                              [[20.0, 14.0, 8.0, 2.0], [22.0, 16.0, 10.0, 4.0], [24.0, 18.0, 12.0, 6.0]]]],
           'rot90 3 neg dims': [[[[0.1049, 0.94708, 0.04133], [0.64042, 1.304, -0.62327], [-0.1321, 0.3616, -1.26542],
                                  [0.12573, -0.53567, -0.70374]],
                                 [[-0.73227, 1.04251, 0.35151], [-1.24591, 0.41163, -0.66519],
                                  [-0.21879, -0.3163, 1.36646], [-2.32503, -0.54426, -0.12853]]],
                                [[[10.0, 7.0, 4.0, 1.0], [11.0, 8.0, 5.0, 2.0], [12.0, 9.0, 6.0, 3.0]],
                                 [[22.0, 19.0, 16.0, 13.0], [23.0, 20.0, 17.0, 14.0], [24.0, 21.0, 18.0, 15.0]]]],
           'rot90 4': [[[0.12573, -0.1321, 0.64042], [0.1049, -0.53567, 0.3616]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
           'tensor_split sections': [[[0.12573, -0.1321, 0.64042], [0.1049, -0.53567], [0.3616, 1.304]],
                                     [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]],
           'tensor_split indices': [[[[0.12573], [0.3616]], [[-0.1321, 0.64042, 0.1049], [1.304, 0.94708, -0.70374]],
                                     [[-0.53567], [-1.26542]]],
                                    [[1.0, 3.0, 4.0, 5.0, 9.0], [2.0, 6.0, 7.0, 8.0, 10.0]]],
           'tensor_split tensor': [[[[0.12573, -0.1321], [0.64042, 0.1049], [-0.53567, 0.3616]], [],
                                    [[0.64042, 0.1049], [-0.53567, 0.3616], [1.304, 0.94708]], [[-0.70374, -1.26542]]],
                                   [[1.0, 2.0], [10.0, 12.0], [14.0, 16.0], [11.0, 12.0], [13.0, 14.0]]],
           'hsplit': [[[[0.12573, -0.1321], [-0.53567, 0.3616]], [[0.64042, 0.1049], [1.304, 0.94708]]],
                      [[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]],
           'vsplit': [[[[0.12573, -0.1321]], [[0.64042, 0.1049], [-0.53567, 0.3616]]],
                      [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]],
           'dsplit': [[[[[0.12573, -0.1321], [-0.53567, 0.3616]]], [[[0.64042, 0.1049], [1.304, 0.94708]]]],
                      [[[1.0, 2.0, 5.0, 6.0], [3.0, 4.0, 7.0, 8.0]]]],
           'split_with_sizes': [[[[0.12573], [-0.53567]], [[-0.1321, 0.64042, 0.1049], [0.3616, 1.304, 0.94708]]],
                                [[1.0, 3.0, 4.0, 5.0], [2.0, 6.0, 7.0, 8.0]]],
           'unfold': [[[[0.12573, -0.1321], [-0.1321, 0.64042], [0.64042, 0.1049]],
                       [[-0.53567, 0.3616], [0.3616, 1.304], [1.304, 0.94708]]],
                      [[1.0, 5.0, 9.0, 6.0], [7.0, 17.0, 21.0, 12.0]]],
           'unfold step': [[[[0.12573, 0.1049], [-0.1321, -0.53567], [0.64042, 0.3616]],
                            [[1.304, -1.26542], [0.94708, -0.62327], [-0.70374, 0.04133]]],
                           [[1.0, 3.0, 5.0], [2.0, 4.0, 6.0], [7.0, 9.0, 11.0], [8.0, 10.0, 12.0], [0.0, 0.0, 0.0]]],
           'sum_to_size': [[[-1.11367, -1.03593, 1.32115, 1.09331]],
                           [[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]]],
           'sum_to_size lead': [[[-3.78305], [2.67059], [-1.62686]],
                                [[[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0]],
                                 [[1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0]]]],
           'diag_embed': [[[[0.12573, 0.0, 0.0], [0.0, -0.1321, 0.0], [0.0, 0.0, 0.64042]],
                           [[0.1049, 0.0, 0.0], [0.0, -0.53567, 0.0], [0.0, 0.0, 0.3616]]],
                          [[1.0, 5.0, 9.0], [10.0, 14.0, 18.0]]],
           'diag_embed offset dims': [[[[0.0, 0.12573, 0.0, 0.0], [0.0, 0.1049, 0.0, 0.0]],
                                       [[0.0, 0.0, -0.1321, 0.0], [0.0, 0.0, -0.53567, 0.0]],
                                       [[0.0, 0.0, 0.0, 0.64042], [0.0, 0.0, 0.0, 0.3616]],
                                       [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]],
                                      [[2.0, 11.0, 20.0], [6.0, 15.0, 24.0]]],
           'diag_embed offset -1': [[[0.0, 0.0, 0.0, 0.0], [0.12573, 0.0, 0.0, 0.0], [0.0, -0.1321, 0.0, 0.0],
                                     [0.0, 0.0, 0.64042, 0.0]],
                                    [5.0, 10.0, 15.0]],
           'diagflat': [[[0.0, 0.0, 0.0, 0.0, 0.0], [0.12573, 0.0, 0.0, 0.0, 0.0], [0.0, -0.1321, 0.0, 0.0, 0.0],
                         [0.0, 0.0, 0.64042, 0.0, 0.0], [0.0, 0.0, 0.0, 0.1049, 0.0]],
                        [[6.0, 12.0], [18.0, 24.0]]],
           'take': [[[0.12573, 0.3616], [0.3616, 0.12573]], [[5.0, 0.0, 0.0], [0.0, 0.0, 5.0]]],
           'take_along_dim': [[[0.12573, 0.64042, 0.64042], [-0.53567, -0.53567, 0.1049]],
                              [[1.0, 0.0, 5.0], [6.0, 9.0, 0.0]]],
           'take_along_dim bcast': [[[0.64042], [0.12573]], [[2.0, 0.0, 1.0]]],
           'take_along_dim flat': [[-0.53567, 0.12573, -0.53567], [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0]]],
           'index_fill': [[[-1.5, -0.1321, -1.5], [-1.5, -0.53567, -1.5]], [[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]]],
           'index_fill tensor': [[[0.12573, -0.1321, 0.64042], [1.304, 1.304, 1.304]], [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]],
                                 15.0],
           'index_copy': [[[0.94708, -0.1321, 1.304], [-1.26542, -0.53567, -0.70374]], [[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]],
                          [[3.0, 1.0], [6.0, 4.0]]],
           'moveaxis': [[[[0.12573, -2.32503], [-0.1321, -0.21879], [0.64042, -1.24591], [0.1049, -0.73227]],
                         [[-0.53567, -0.54426], [0.3616, -0.3163], [1.304, 0.41163], [0.94708, 1.04251]],
                         [[-0.70374, -0.12853], [-1.26542, 1.36646], [-0.62327, -0.66519], [0.04133, 0.35151]]],
                        [[[1.0, 3.0, 5.0, 7.0], [9.0, 11.0, 13.0, 15.0], [17.0, 19.0, 21.0, 23.0]],
                         [[2.0, 4.0, 6.0, 8.0], [10.0, 12.0, 14.0, 16.0], [18.0, 20.0, 22.0, 24.0]]]],
           'movedim': [[[[0.12573, -0.53567, -0.70374], [-2.32503, -0.54426, -0.12853]],
                        [[-0.1321, 0.3616, -1.26542], [-0.21879, -0.3163, 1.36646]],
                        [[0.64042, 1.304, -0.62327], [-1.24591, 0.41163, -0.66519]],
                        [[0.1049, 0.94708, 0.04133], [-0.73227, 1.04251, 0.35151]]],
                       [[[1.0, 7.0, 13.0, 19.0], [2.0, 8.0, 14.0, 20.0], [3.0, 9.0, 15.0, 21.0]],
                        [[4.0, 10.0, 16.0, 22.0], [5.0, 11.0, 17.0, 23.0], [6.0, 12.0, 18.0, 24.0]]]],
           'atleast_3d': [[[[[0.12573]]], [[[-0.1321], [0.64042]]],
                           [[[0.1049], [-0.53567], [0.3616]], [[1.304], [0.94708], [-0.70374]]]],
                          1.0, [2.0, 3.0], [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]],
           'column_stack': [[[0.12573, 0.1049, -0.53567], [-0.1321, 0.3616, 1.304], [0.64042, 0.94708, -0.70374]],
                            [1.0, 4.0, 7.0], [[2.0, 3.0], [5.0, 6.0], [8.0, 9.0]]],
           'dstack': [[[[0.12573, 1.304], [-0.1321, 0.94708], [0.64042, -0.70374]],
                       [[0.1049, -1.26542], [-0.53567, -0.62327], [0.3616, 0.04133]]],
                      [[1.0, 3.0, 5.0], [7.0, 9.0, 11.0]], [[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]]],
           'row_stack': [[[0.12573, -0.1321, 0.64042], [0.1049, -0.53567, 0.3616], [1.304, 0.94708, -0.70374]],
                         [1.0, 2.0, 3.0], [[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]],
           'broadcast_tensors': [[[[0.12573, 0.12573, 0.12573, 0.12573], [-0.1321, -0.1321, -0.1321, -0.1321],
                                   [0.64042, 0.64042, 0.64042, 0.64042]],
                                  [[0.1049, -0.53567, 0.3616, 1.304], [0.1049, -0.53567, 0.3616, 1.304],
                                   [0.1049, -0.53567, 0.3616, 1.304]]],
                                 [[10.0], [26.0], [42.0]], [51.0, 54.0, 57.0, 60.0]]}

GRAD_FNS = {'addmm': 'AddmmBackward0',
            'addmm bcast beta alpha': 'AddmmBackward0',
            'addmm beta 0': 'AddmmBackward0',
            'addmv': 'AddmvBackward0',
            'addmv 0-d input': 'AddmvBackward0',
            'addr': 'AddrBackward0',
            'baddbmm': 'BaddbmmBackward0',
            'baddbmm bcast': 'BaddbmmBackward0',
            'addbmm': 'AddbmmBackward0',
            'vdot': 'VdotBackward0',
            'tensordot int': 'ViewBackward0',
            'tensordot lists': 'ViewBackward0',
            'tensordot 0': 'ViewBackward0',
            'matrix_power 3': 'MmBackward0',
            'matrix_power 5 batch': 'UnsafeViewBackward0',
            'matrix_power -2': 'MmBackward0',
            'matrix_power 0': 'MulBackward0',
            'matrix_power 1': 'CloneBackward0',
            'cdist': 'CdistBackward0',
            'cdist p1': 'CdistBackward0',
            'cdist inf': 'CdistBackward0',
            'cdist p3 batch': 'CdistBackward0',
            'cdist same': 'CdistBackward0',
            'cov': 'SqueezeBackward0',
            'cov 1d': 'SqueezeBackward0',
            'cov correction 0': 'SqueezeBackward0',
            'cov weights': 'SqueezeBackward0',
            'corrcoef': 'ClampBackward1',
            'block_diag': 'BlockDiagBackward0',
            'cartesian_prod': 'StackBackward0',
            'chain_matmul': 'ViewBackward0',
            'fliplr': 'FlipBackward0',
            'flipud': 'FlipBackward0',
            'rot90': 'Rot90Backward0',
            'rot90 2': 'Rot90Backward0',
            'rot90 -1 dims': 'Rot90Backward0',
            'rot90 3 neg dims': 'Rot90Backward0',
            'rot90 4': 'Rot90Backward0',
            'tensor_split sections': 'SliceBackward0',
            'tensor_split indices': 'SliceBackward0',
            'tensor_split tensor': 'SliceBackward0',
            'hsplit': 'SliceBackward0',
            'vsplit': 'SliceBackward0',
            'dsplit': 'SliceBackward0',
            'split_with_sizes': 'SplitWithSizesBackward0',
            'unfold': 'UnfoldBackward0',
            'unfold step': 'UnfoldBackward0',
            'sum_to_size': 'SumBackward1',
            'sum_to_size lead': 'ViewBackward0',
            'diag_embed': 'DiagEmbedBackward0',
            'diag_embed offset dims': 'DiagEmbedBackward0',
            'diag_embed offset -1': 'DiagEmbedBackward0',
            'diagflat': 'DiagEmbedBackward0',
            'take': 'TakeBackward0',
            'take_along_dim': 'GatherBackward0',
            'take_along_dim bcast': 'GatherBackward0',
            'take_along_dim flat': 'GatherBackward0',
            'index_fill': 'IndexFillBackward0',
            'index_fill tensor': 'IndexFillBackward1',
            'index_copy': 'IndexCopyBackward0',
            'moveaxis': 'PermuteBackward0',
            'movedim': 'PermuteBackward0',
            'atleast_3d': ['ViewBackward0', 'UnsqueezeBackward0', 'UnsqueezeBackward0'],
            'column_stack': 'CatBackward0',
            'dstack': 'CatBackward0',
            'row_stack': 'CatBackward0',
            'broadcast_tensors': 'ExpandBackward0'}


def run(name, dtype):
    """The value (each output's, for a tuple) and each input's gradient of the outputs
    weighted 1, 2, 3 ..."""
    fn, shapes = CASES[name]
    xs = torch_inputs(shapes, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation
        y = fn(torch, *xs)
    return weighted_gradients(y, xs, dtype)


def close(got, want, rtol, atol):
    if isinstance(got, list):  # the outputs of a split
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, rtol, atol)
        return
    want = np.asarray(want, dtype=float)
    if want.size == 0:  # an empty piece (printed as [])
        assert got.size == 0
        return
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * max(1.0, np.abs(want).max(initial=0)))


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_are_pytorchs(name):
    for got, want in zip(run(name, torch.float64), PYTORCH[name]):
        close(got, want, 1e-6, 6e-6)


@pytest.mark.parametrize("name", list(CASES))
def test_float32_gives_the_same_numbers(name):
    for got, want in zip(run(name, torch.float32), PYTORCH[name]):
        close(got, want, 1e-4, 1e-4)


@pytest.mark.parametrize("name", list(CASES))
def test_first_and_second_derivatives_match_finite_differences(name):
    fn, shapes = CASES[name]
    xs = tuple(torch_inputs(shapes, torch.float64, seed=1))

    def f(*xs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(torch, *xs)
    assert torch.autograd.gradcheck(f, xs)
    assert torch.autograd.gradgradcheck(f, xs)  # (tensor_split's piece [3:1] has no elements)


def test_grad_fn_names_are_pytorchs():
    got = {}
    for name, (fn, shapes) in CASES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = fn(torch, *torch_inputs(shapes, torch.float64))
        names = [o.grad_fn.name() for o in (y if isinstance(y, tuple) else (y,))]
        got[name] = names[0] if len(set(names)) == 1 else names
    assert got == GRAD_FNS



def dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def shapes(ts):
    return [list(t.shape) for t in ts]


def more(T):
    """Dtypes, integer inputs, shapes at the edges and the values no gradient flows through."""
    ints, mat = T.tensor([[1, 2, 4], [3, 1, 1]]), T.arange(6).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dof = T.cov(T.tensor([[1., 2.], [0., 4.]]), correction=2)
    addmm = T.addmm(T.tensor([[1, 2]]), T.tensor([[1, 2], [3, 4]]), T.tensor([[5, 6], [7, 8]]), beta=2, alpha=3)
    return {
        "addmm int": [addmm.tolist(), dtype_name(addmm)],
        "cov int": [T.cov(ints).tolist(), dtype_name(T.cov(ints))],
        "corrcoef int": [T.corrcoef(ints).tolist()],
        "cov dof": [dof.tolist(), [str(w.message).split(" (Triggered")[0] for w in caught]],
        "block_diag": [T.block_diag(T.tensor([[1, 2]]), T.tensor(3)).tolist(),
                       dtype_name(T.block_diag(T.tensor([[1, 2]]), T.tensor(3))),
                       dtype_name(T.block_diag(T.ones(1, dtype=T.float64), T.tensor([1]))),
                       list(T.block_diag().shape), dtype_name(T.block_diag())],
        "vdot int": [T.vdot(T.tensor([1, 2]), T.tensor([3, 4])).tolist()],
        "cartesian int": [T.cartesian_prod(T.tensor([1, 2]), T.tensor([3])).tolist()],
        "argwhere": [T.argwhere(T.tensor([[0, 1.5], [2, 0]])).tolist(), T.tensor([0., 3.]).argwhere().tolist(),
                     list(T.argwhere(T.tensor(2.)).shape), list(T.argwhere(T.tensor(0.)).shape),
                     dtype_name(T.argwhere(T.tensor([1])))],
        "tril_indices": [T.tril_indices(3, 4, -1).tolist(), T.triu_indices(3, 4, 1).tolist(),
                         dtype_name(T.tril_indices(2, 2, dtype=T.int32)), T.triu_indices(2, 3, -5).tolist(),
                         T.tril_indices(0, 3).tolist()],
        "broadcast_shapes": [list(T.broadcast_shapes((2,), (3, 1), (1, 1, 1))), list(T.broadcast_shapes(4, [1, 4])),
                             list(T.broadcast_shapes()), list(T.broadcast_shapes((0, 1), (3,)))],
        "index_fill int": [mat.index_fill(1, T.tensor(1), 9.7).tolist(),
                           T.tensor([True, False]).index_fill(0, T.tensor([1]), True).tolist()],
        "index_copy dup": [T.zeros(3).index_copy(0, T.tensor([0, 0]), T.tensor([1., 2.])).tolist()],
        "rot90 int": [mat.rot90().tolist(), mat.rot90(-1).tolist()],
        "tensor_split shapes": [shapes(T.tensor_split(T.ones(5), [3, 1, -1, 9])), shapes(T.ones(2).tensor_split(4)),
                                shapes(T.ones(5).tensor_split(T.tensor(2)))],
        "unfold shapes": [list(T.ones(2, 4).unfold(1, 0, 1).shape), list(T.ones(()).unfold(0, 1, 1).shape),
                          list(T.ones(3, 7, 2).unfold(1, 3, 2).shape)],
        "stacks": [list(T.column_stack([T.ones(3, 2, 1), T.ones(3, 2, 1)]).shape),
                   list(T.column_stack([T.tensor(1.), T.tensor(2.)]).shape), list(T.dstack([T.ones(2), T.ones(2)]).shape),
                   dtype_name(T.row_stack([T.ones(2), T.tensor([1, 2])])),
                   dtype_name(T.column_stack([T.ones(2, dtype=T.int32), T.tensor([1, 2])]))],
        "atleast": [shapes(T.atleast_1d([T.tensor(1.), T.ones(2)])), list(T.atleast_2d(T.tensor(1.)).shape),
                    list(T.atleast_3d(T.ones(1, 2, 3, 4)).shape), T.atleast_1d() == ()],
        "matrix_power 0": [T.matrix_power(T.ones(2, 2, 2), 0).tolist()],
        "take int": [mat.take(T.tensor([-1, 0])).tolist(), mat.take_along_dim(T.tensor([[2], [1]]), 1).tolist()],
        "sum_to_size int": [mat.sum_to_size(1, 3).tolist(), dtype_name(T.ones(2, dtype=T.int32).sum_to_size(1))],
        "diag_embed int": [T.tensor([1, 2]).diag_embed(1).tolist(), T.tensor(5).diagflat(1).tolist()],
    }


MORE = {'addmm int': [[[59, 70], [131, 154]], 'int64'],
        'cov int': [[[2.3333334922790527, -1.3333332538604736], [-1.3333332538604736, 1.3333333730697632]], 'float32'],
        'corrcoef int': [[[1.0, -0.7559288740158081], [-0.7559288740158081, 1.0]]],
        'cov dof': [[[INF, INF], [INF, INF]],
                    ['cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of '
                     'observations.']],
        'block_diag': [[[1, 2, 0], [0, 0, 3]], 'int64', 'float64', [1, 0], 'float32'],
        'vdot int': [11],
        'cartesian int': [[[1, 3], [2, 3]]],
        'argwhere': [[[0, 1], [1, 0]], [[1]], [1, 0], [0, 0], 'int64'],
        'tril_indices': [[[1, 2, 2], [0, 0, 1]], [[0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3]], 'int32',
                         [[0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2]], [[], []]],
        'broadcast_shapes': [[1, 3, 2], [1, 4], [], [0, 3]],
        'index_fill int': [[[0, 9, 2], [3, 9, 5]], [True, True]],
        'index_copy dup': [[2.0, 0.0, 0.0]],
        'rot90 int': [[[2, 5], [1, 4], [0, 3]], [[3, 0], [4, 1], [5, 2]]],
        'tensor_split shapes': [[[3], [0], [3], [1], [0]], [[1], [1], [0], [0]], [[3], [2]]],
        'unfold shapes': [[2, 5, 0], [1], [3, 3, 2, 3]],
        'stacks': [[3, 4, 1], [1, 2], [1, 2, 2], 'float32', 'int64'],
        'atleast': [[[1], [2]], [1, 1], [1, 2, 3, 4], True],
        'matrix_power 0': [[[[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]]],
        'take int': [[5, 0], [[2], [4]]],
        'sum_to_size int': [[[3, 5, 7]], 'int64'],
        'diag_embed int': [[[0, 1, 0], [0, 0, 2], [0, 0, 0]], [[0, 5], [0, 0]]]}


ERRORS = {  # what a user can get wrong, on namespace T
 "addmm 1d": lambda T: T.addmm(T.ones(2,3), T.ones(2), T.ones(2,3)),
 "addmm 1d m2": lambda T: T.addmm(T.ones(2,3), T.ones(2,2), T.ones(3)),
 "addmm shape": lambda T: T.addmm(T.ones(2,3), T.ones(2,4), T.ones(5,3)),
 "addmm input": lambda T: T.ones(2,4).addmm(T.ones(2,4), T.ones(4,3)),
 "addmm input3d": lambda T: T.addmm(T.ones(1,2,3), T.ones(2,4), T.ones(4,3)),
 "addmm dtype": lambda T: T.addmm(T.ones(2,3), T.ones(2,4).double(), T.ones(4,3)),
 "addmm dtype2": lambda T: T.addmm(T.ones(2,3).double(), T.ones(2,4), T.ones(4,3)),
 "addmv shape": lambda T: T.addmv(T.ones(2), T.ones(2,3), T.ones(4)),
 "addmv vec2d": lambda T: T.addmv(T.ones(2), T.ones(2,3), T.ones(3,1)),
 "addmv input": lambda T: T.ones(3).addmv(T.ones(2,3), T.ones(3)),
 "addmv dtype": lambda T: T.addmv(T.ones(2), T.ones(2,3), T.ones(3).double()),
 "addmv dtype2": lambda T: T.addmv(T.ones(2).double(), T.ones(2,3), T.ones(3)),
 "addr 2d": lambda T: T.addr(T.ones(2,3), T.ones(2,1), T.ones(3)),
 "addr 2d b": lambda T: T.addr(T.ones(2,3), T.ones(2), T.ones(3,1)),
 "addr input": lambda T: T.addr(T.ones(2,4), T.ones(2), T.ones(3)),
 "baddbmm batch": lambda T: T.baddbmm(T.ones(2,2,3), T.ones(2,2,4), T.ones(3,4,3)),
 "baddbmm inner": lambda T: T.baddbmm(T.ones(2,2,3), T.ones(2,2,4), T.ones(2,5,3)),
 "baddbmm input": lambda T: T.baddbmm(T.ones(2,2,4), T.ones(2,2,4), T.ones(2,4,3)),
 "baddbmm dtype": lambda T: T.baddbmm(T.ones(2,2,3), T.ones(2,2,4), T.ones(2,4,3).double()),
 "baddbmm dtype2": lambda T: T.baddbmm(T.ones(2,2,3).double(), T.ones(2,2,4), T.ones(2,4,3)),
 "addbmm batch": lambda T: T.addbmm(T.ones(2,3), T.ones(2,2,4), T.ones(3,4,3)),
 "addbmm inner": lambda T: T.addbmm(T.ones(2,3), T.ones(2,2,4), T.ones(2,5,3)),
 "addbmm input": lambda T: T.addbmm(T.ones(2,4), T.ones(2,2,4), T.ones(2,4,3)),
 "addbmm dtype": lambda T: T.addbmm(T.ones(2,3), T.ones(2,2,4), T.ones(2,4,3).double()),
 "addbmm dtype2": lambda T: T.addbmm(T.ones(2,3).double(), T.ones(2,2,4), T.ones(2,4,3)),
 "td": lambda T: T.tensordot(T.ones(2,3), T.ones(4,5), 1),
 "td neg": lambda T: T.tensordot(T.ones(2,3), T.ones(3,5), -1),
 "td lists": lambda T: T.tensordot(T.ones(2,3), T.ones(3,5), ([0],[0])),
 "td lists len": lambda T: T.tensordot(T.ones(2,3), T.ones(3,5), ([0,1],[0])),
 "td big": lambda T: T.tensordot(T.ones(2,3), T.ones(3,5), 3),
 "td dtype": lambda T: T.tensordot(T.ones(2,3), T.ones(3,5).double(), 1),
 "mp": lambda T: T.matrix_power(T.ones(2,3),2),
 "mp1d": lambda T: T.ones(3).matrix_power(2),
 "mp int neg": lambda T: T.matrix_power(T.ones(2,2,dtype=T.long),-1),
 "cdist 1d": lambda T: T.cdist(T.ones(3), T.ones(3,3)),
 "cdist 1d b": lambda T: T.cdist(T.ones(3,3), T.ones(3)),
 "cdist cols": lambda T: T.cdist(T.ones(2,3), T.ones(2,4)),
 "cdist p": lambda T: T.cdist(T.ones(2,3), T.ones(2,3), p=-1),
 "cdist int": lambda T: T.cdist(T.ones(2,3,dtype=T.long), T.ones(2,3,dtype=T.long)),
 "cdist batch": lambda T: T.cdist(T.ones(2,2,3), T.ones(3,2,3)),
 "cdist dtype": lambda T: T.cdist(T.ones(2,3), T.ones(2,3).double()),
 "cov 3d": lambda T: T.cov(T.ones(2,2,2)),
 "cov bool": lambda T: T.ones(2,2,dtype=T.bool).cov(),
 "cov fw float": lambda T: T.cov(T.ones(2,3), fweights=T.ones(3)),
 "cov fw 2d": lambda T: T.cov(T.ones(2,3), fweights=T.ones(1,3,dtype=T.long)),
 "cov fw numel": lambda T: T.cov(T.ones(2,3), fweights=T.ones(2,dtype=T.long)),
 "cov fw neg": lambda T: T.cov(T.ones(2,3), fweights=T.tensor([1,-1,1])),
 "cov aw int": lambda T: T.cov(T.ones(2,3), aweights=T.tensor([1,1,1])),
 "cov aw neg": lambda T: T.cov(T.ones(2,3), aweights=T.tensor([1.,-1,1])),
 "cov aw numel": lambda T: T.cov(T.ones(2,3), aweights=T.tensor([1.,1])),
 "cov aw 2d": lambda T: T.cov(T.ones(2,3), aweights=T.ones(1,3)),
 "cov w0": lambda T: T.cov(T.ones(2,3), aweights=T.tensor([0.,0,0])),
 "corrcoef 3d": lambda T: T.ones(2,2,2).corrcoef(),
 "bd 3d": lambda T: T.block_diag(T.ones(2,2), T.ones(1,1,1)),
 "cp 2d": lambda T: T.cartesian_prod(T.ones(2), T.ones(2,2)),
 "cp mix": lambda T: T.cartesian_prod(T.ones(2), T.ones(2,dtype=T.long)),
 "vdot 2d": lambda T: T.vdot(T.ones(2,2), T.ones(2)),
 "vdot size": lambda T: T.ones(3).vdot(T.ones(4)),
 "vdot dtype": lambda T: T.vdot(T.ones(3), T.ones(3).double()),
 "chain 1d": lambda T: T.chain_matmul(T.ones(2,3), T.ones(3)),
 "chain 0": lambda T: T.chain_matmul(),
 "chain shape": lambda T: T.chain_matmul(T.ones(2,3), T.ones(4,3)),
 "chain shape3": lambda T: T.chain_matmul(T.ones(2,3), T.ones(3,3), T.ones(4,3)),
 "chain dtype": lambda T: T.chain_matmul(T.ones(2,3), T.ones(3,3).double()),
 "fliplr": lambda T: T.fliplr(T.ones(3)),
 "flipud": lambda T: T.ones(()).flipud(),
 "rot90 dims": lambda T: T.rot90(T.ones(2,2), 1, [0,1,2]),
 "rot90 1d": lambda T: T.rot90(T.ones(2), 1, [0,1]),
 "rot90 same": lambda T: T.rot90(T.ones(2,2), 1, [0,0]),
 "rot90 same neg": lambda T: T.ones(2,2).rot90(1, [1,-1]),
 "rot90 range": lambda T: T.rot90(T.ones(2,2), 1, [0,2]),
 "ts 0": lambda T: T.tensor_split(T.ones(4), 0),
 "ts 0d": lambda T: T.tensor_split(T.ones(()), 2),
 "ts dim": lambda T: T.ones(4).tensor_split(2, dim=1),
 "ts t2d": lambda T: T.tensor_split(T.ones(4), T.tensor([[1]])),
 "ts tfloat": lambda T: T.tensor_split(T.ones(4), T.tensor([1.])),
 "hsplit 0d": lambda T: T.hsplit(T.ones(()), 2),
 "hsplit div": lambda T: T.ones(2,5).hsplit(2),
 "hsplit div1": lambda T: T.hsplit(T.ones(5), 2),
 "hsplit 0": lambda T: T.hsplit(T.ones(2,4), 0),
 "vsplit 1d": lambda T: T.vsplit(T.ones(4), 2),
 "vsplit div": lambda T: T.ones(5,2).vsplit(2),
 "dsplit 2d": lambda T: T.dsplit(T.ones(4,2), 2),
 "dsplit div": lambda T: T.ones(1,1,5).dsplit(2),
 "sws sum": lambda T: T.ones(3).split_with_sizes([1,1]),
 "sws neg": lambda T: T.split_with_sizes(T.ones(3), [4,-1]),
 "sws dim": lambda T: T.ones(3).split_with_sizes([3], 1),
 "unfold big": lambda T: T.ones(2,4).unfold(1,5,1),
 "unfold step": lambda T: T.ones(2,4).unfold(1,2,0),
 "unfold size": lambda T: T.ones(2,4).unfold(1,-1,1),
 "unfold dim": lambda T: T.ones(2,4).unfold(2,1,1),
 "unfold 0d2": lambda T: T.ones(()).unfold(0,2,1),
 "stsz": lambda T: T.ones(2,4).sum_to_size(3,1),
 "stsz nd": lambda T: T.ones(2,4).sum_to_size(1,2,4),
 "de same": lambda T: T.ones(2,3).diag_embed(0,1,1),
 "de same2": lambda T: T.diag_embed(T.ones(2,3), 0,-1,2),
 "de range": lambda T: T.ones(2,3).diag_embed(0,0,3),
 "de 0d": lambda T: T.ones(()).diag_embed(),
 "take oob": lambda T: T.ones(2,3).take(T.tensor([6])),
 "take oob neg": lambda T: T.take(T.ones(2,3), T.tensor([-7])),
 "take float": lambda T: T.ones(2,3).take(T.tensor([1.])),
 "take int32": lambda T: T.ones(2,3).take(T.tensor([1], dtype=T.int32)),
 "tad nd": lambda T: T.ones(2,3).take_along_dim(T.tensor([1]), 1),
 "tad float": lambda T: T.take_along_dim(T.ones(2,3), T.tensor([[1.]]), 1),
 "tad bcast3": lambda T: T.ones(2,3).take_along_dim(T.tensor([[0,0],[0,0],[1,1]]), 1),
 "tad dim": lambda T: T.ones(2,3).take_along_dim(T.tensor([[0]]), 2),
 "tad int32": lambda T: T.ones(2,3).take_along_dim(T.tensor([[0]],dtype=T.int32), 1),
 "tad none oob": lambda T: T.ones(2,3).take_along_dim(T.tensor([7])),
 "if oob": lambda T: T.arange(6.).reshape(2,3).index_fill(1, T.tensor([3]), 9.),
 "if oobn": lambda T: T.index_fill(T.arange(6.).reshape(2,3), 1, T.tensor([-4]), 9.),
 "if float": lambda T: T.arange(6.).reshape(2,3).index_fill(1, T.tensor([1.]), 9.),
 "if 2d": lambda T: T.arange(6.).reshape(2,3).index_fill(1, T.tensor([[1]]), 9.),
 "if tval": lambda T: T.arange(6.).reshape(2,3).index_fill(1, T.tensor([1]), T.tensor([9.])),
 "if dim": lambda T: T.arange(6.).reshape(2,3).index_fill(2, T.tensor([1]), 9.),
 "if int32": lambda T: T.arange(6.).reshape(2,3).index_fill(1, T.tensor([1], dtype=T.int32), 9.),
 "ic num": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1]), T.ones(2,3)),
 "ic shape": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1]), T.ones(3,2)),
 "ic shape3": lambda T: T.zeros(2,3,4).index_copy(1, T.tensor([0,1]), T.ones(3,2,5)),
 "ic oob": lambda T: T.index_copy(T.zeros(2,3), 1, T.tensor([0,3]), T.ones(2,2)),
 "ic neg": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,-1]), T.ones(2,2)),
 "ic float": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0.,1]), T.ones(2,2)),
 "ic int32": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1],dtype=T.int32), T.ones(2,2)),
 "ic 2d": lambda T: T.zeros(2,3).index_copy(1, T.tensor([[0,1]]), T.ones(2,2)),
 "ic dtype": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1]), T.ones(2,2).double()),
 "ic ndim": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1]), T.ones(2,2,1)),
 "ic dim": lambda T: T.zeros(2,3).index_copy(2, T.tensor([0,1]), T.ones(2,2)),
 "ic scalar": lambda T: T.zeros(2,3).index_copy(1, T.tensor([0,1]), T.tensor(1.)),
 "bs": lambda T: T.broadcast_shapes((2,3),(4,)),
 "bs3": lambda T: T.broadcast_shapes((2,3),[3], (5,1)),
 "bs int": lambda T: T.broadcast_shapes((2,1),(3,), 4),
 "bs neg": lambda T: T.broadcast_shapes((2,-1),(3,)),
 "bt": lambda T: T.broadcast_tensors(T.ones(2,3),T.ones(4)),
 "bt3": lambda T: T.broadcast_tensors(T.ones(2,3),T.ones(3),T.ones(5,1)),
 "tri dtype f": lambda T: T.tril_indices(3,4,dtype=T.float32),
 "tri neg": lambda T: T.tril_indices(-1,4),
 "triu neg": lambda T: T.triu_indices(3,-4),
 "cs 2d": lambda T: T.column_stack([T.ones(3,2), T.ones(2,2)]),
 "ds": lambda T: T.dstack([T.ones(3), T.ones(4)]),
 "ds empty": lambda T: T.dstack([]),
 "cs empty": lambda T: T.column_stack([]),
 "rs": lambda T: T.row_stack([T.ones(3), T.ones(4)]),
 "rs empty": lambda T: T.row_stack([]),
}

PYTORCH_ERRORS = {'addmm 1d': ('RuntimeError', 'mat1 must be a matrix, got 1-D tensor'),
                  'addmm 1d m2': ('RuntimeError', 'mat2 must be a matrix, got 1-D tensor'),
                  'addmm shape': ('RuntimeError', 'mat1 and mat2 shapes cannot be multiplied (2x4 and 5x3)'),
                  'addmm input': ('RuntimeError',
                                  'The expanded size of the tensor (3) must match the existing size (4) at non-singleton '
                                  'dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2, 4]'),
                  'addmm input3d': ('RuntimeError',
                                    'expand(torch.FloatTensor{[1, 2, 3]}, size=[2, 3]): the number of sizes provided (2) must '
                                    'be greater or equal to the number of dimensions in the tensor (3)'),
                  'addmm dtype': ('RuntimeError', 'mat1 and mat2 must have the same dtype, but got Double and Float'),
                  'addmm dtype2': ('RuntimeError', 'self and mat2 must have the same dtype, but got Double and Float'),
                  'addmv shape': ('RuntimeError', 'size mismatch, got input (2), mat (2x3), vec (4)'),
                  'addmv vec2d': ('RuntimeError', 'vector + matrix @ vector expected, got 1, 2, 2'),
                  'addmv input': ('RuntimeError', 'size mismatch, got input (3), mat (2x3), vec (3)'),
                  'addmv dtype': ('RuntimeError',
                                  'addmv input tensors must have the same dtype, but got Float, Float, and Double'),
                  'addmv dtype2': ('RuntimeError',
                                   'addmv input tensors must have the same dtype, but got Double, Float, and Float'),
                  'addr 2d': ('RuntimeError', 'addr: Expected 1-D argument vec1, but got 2-D'),
                  'addr 2d b': ('RuntimeError', 'addr: Expected 1-D argument vec2, but got 2-D'),
                  'addr input': ('RuntimeError',
                                 'The expanded size of the tensor (3) must match the existing size (4) at non-singleton '
                                 'dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2, 4]'),
                  'baddbmm batch': ('RuntimeError',
                                    'Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [3, 4].'),
                  'baddbmm inner': ('RuntimeError',
                                    'Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 5].'),
                  'baddbmm input': ('RuntimeError',
                                    'The expanded size of the tensor (3) must match the existing size (4) at non-singleton '
                                    'dimension 2.  Target sizes: [2, 2, 3].  Tensor sizes: [2, 2, 4]'),
                  'baddbmm dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
                  'baddbmm dtype2': ('RuntimeError',
                                     'Input dtypes must be the same, got: input double, batch1: float, batch2: float'),
                  'addbmm batch': ('RuntimeError', 'batch1 and batch2 must have same number of batches, got 2 and 3'),
                  'addbmm inner': ('RuntimeError', 'Incompatible matrix sizes for bmm (2x4 and 5x3)'),
                  'addbmm input': ('RuntimeError',
                                   'The expanded size of the tensor (3) must match the existing size (4) at non-singleton '
                                   'dimension 1.  Target sizes: [2, 3].  Tensor sizes: [2, 4]'),
                  'addbmm dtype': ('RuntimeError', 'self and mat2 must have the same dtype, but got Float and Double'),
                  'addbmm dtype2': ('RuntimeError', 'self and mat2 must have the same dtype, but got Double and Float'),
                  'td': ('RuntimeError',
                         'contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4 in dim 0'),
                  'td neg': ('RuntimeError', 'tensordot expects dims >= 0, but got dims=-1'),
                  'td lists': ('RuntimeError',
                               'contracted dimensions need to match, but first has size 2 in dim 0 and second has size 3 in dim '
                               '0'),
                  'td lists len': ('RuntimeError', 'both dimension lists should have same length'),
                  'td big': ('RuntimeError', 'tensordot expects dims < ndim_a or ndim_b, but got dims=3'),
                  'td dtype': ('RuntimeError', 'both inputs should have same dtype'),
                  'mp': ('RuntimeError',
                         'linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices'),
                  'mp1d': ('RuntimeError', 'linalg.matrix_power: The input tensor A must have at least 2 dimensions.'),
                  'mp int neg': ('RuntimeError', 'linalg.inv: Expected a floating point or complex tensor as input. Got Long'),
                  'cdist 1d': ('RuntimeError', 'cdist only supports at least 2D tensors, X1 got: 1D'),
                  'cdist 1d b': ('RuntimeError', 'cdist only supports at least 2D tensors, X2 got: 1D'),
                  'cdist cols': ('RuntimeError', 'X1 and X2 must have the same number of columns. X1: 3 X2: 4'),
                  'cdist p': ('RuntimeError', 'cdist only supports non-negative p values'),
                  'cdist int': ('RuntimeError', 'cdist only supports floating-point dtypes, X1 got: Long'),
                  'cdist batch': ('RuntimeError',
                                  'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0'),
                  'cdist dtype': ('RuntimeError', 'expected scalar type Float but found Double'),
                  'cov 3d': ('RuntimeError',
                             'cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions'),
                  'cov bool': ('RuntimeError', 'cov(): bool dtype is not supported for input'),
                  'cov fw float': ('RuntimeError',
                                   'cov(): expected fweights to have integral dtype but got fweights with Float dtype'),
                  'cov fw 2d': ('RuntimeError',
                                'cov(): expected fweights to have one or fewer dimensions but got fweights with 2 dimensions'),
                  'cov fw numel': ('RuntimeError',
                                   'cov(): expected fweights to have the same numel as there are observations in the input but '
                                   'got 2 != 3'),
                  'cov fw neg': ('RuntimeError', 'cov(): fweights cannot be negative'),
                  'cov aw int': ('RuntimeError',
                                 'cov(): expected aweights to have floating point dtype but got aweights with Long dtype'),
                  'cov aw neg': ('RuntimeError', 'cov(): aweights cannot be negative'),
                  'cov aw numel': ('RuntimeError',
                                   'cov(): expected aweights to have the same numel as there are observations in the input but '
                                   'got 2 != 3'),
                  'cov aw 2d': ('RuntimeError',
                                'cov(): expected aweights to have one or fewer dimensions but got aweights with 2 dimensions'),
                  'cov w0': ('RuntimeError', "cov(): weights sum to zero, can't be normalized"),
                  'corrcoef 3d': ('RuntimeError',
                                  'corrcoef(): expected input to have two or fewer dimensions but got an input with 3 '
                                  'dimensions'),
                  'bd 3d': ('RuntimeError',
                            'torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 has 3 dimensions'),
                  'cp 2d': ('RuntimeError', 'Expect a 1D vector, but got shape [2, 2]'),
                  'cp mix': ('RuntimeError', 'meshgrid expects all tensors to have the same dtype'),
                  'vdot 2d': ('RuntimeError', '1D tensors expected, but got 2D and 1D tensors'),
                  'vdot size': ('RuntimeError',
                                'inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, '
                                'but got 3 and 4 elements respectively'),
                  'vdot dtype': ('RuntimeError', 'dot : expected both vectors to have same dtype, but found Float and Double'),
                  'chain 1d': ('RuntimeError', 'Tensor dimension is 1, expected 2 instead.'),
                  'chain 0': ('RuntimeError', 'chain_matmul(): Expected one or more matrices'),
                  'chain shape': ('RuntimeError',
                                  'multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 3] cannot be multiplied'),
                  'chain shape3': ('RuntimeError',
                                   'multi_dot(): tensors 1 and 2 with shapes [3, 3] and [4, 3] cannot be multiplied'),
                  'chain dtype': ('RuntimeError',
                                  'multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 '
                                  'double'),
                  'fliplr': ('RuntimeError', 'Input must be >= 2-d.'),
                  'flipud': ('RuntimeError', 'Input must be >= 1-d.'),
                  'rot90 dims': ('RuntimeError', 'expected total rotation dims == 2, but got dims = 3'),
                  'rot90 1d': ('RuntimeError', 'expected total dims >= 2, but got total dims = 1'),
                  'rot90 same': ('RuntimeError', 'expected rotation dims to be different, but got dim0 = 0 and dim1 = 0'),
                  'rot90 same neg': ('RuntimeError', 'expected rotation dims to be different, but got dim0 = 1 and dim1 = -1'),
                  'rot90 range': ('IndexError', 'Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
                  'ts 0': ('RuntimeError', 'number of sections must be larger than 0, got 0'),
                  'ts 0d': ('RuntimeError',
                            'tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims'),
                  'ts dim': ('IndexError', 'Dimension out of range (expected to be in range of [-1, 0], but got 1)'),
                  'ts t2d': ('RuntimeError',
                             'tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional '
                             'tensor, but got a tensor with 2 dims'),
                  'ts tfloat': ('RuntimeError',
                                'tensor_split expected tensor_indices_or_sections to have dtype of long, but got Float'),
                  'hsplit 0d': ('RuntimeError',
                                'torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with 0 dimensions!'),
                  'hsplit div': ('RuntimeError',
                                 'torch.hsplit attempted to split along dimension 1, but the size of the dimension 5 is not '
                                 'divisible by the split_size 2!'),
                  'hsplit div1': ('RuntimeError',
                                  'torch.hsplit attempted to split along dimension 0, but the size of the dimension 5 is not '
                                  'divisible by the split_size 2!'),
                  'hsplit 0': ('RuntimeError',
                               'torch.hsplit attempted to split along dimension 1, but the size of the dimension 4 is not '
                               'divisible by the split_size 0!'),
                  'vsplit 1d': ('RuntimeError',
                                'torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with 1 dimensions!'),
                  'vsplit div': ('RuntimeError',
                                 'torch.vsplit attempted to split along dimension 0, but the size of the dimension 5 is not '
                                 'divisible by the split_size 2!'),
                  'dsplit 2d': ('RuntimeError',
                                'torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with 2 dimensions!'),
                  'dsplit div': ('RuntimeError',
                                 'torch.dsplit attempted to split along dimension 2, but the size of the dimension 5 is not '
                                 'divisible by the split_size 2!'),
                  'sws sum': ('RuntimeError',
                              "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 0), "
                              'but got split_sizes=[1, 1]'),
                  'sws neg': ('RuntimeError',
                              'split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[4, '
                              '-1]'),
                  'sws dim': ('IndexError', 'Dimension out of range (expected to be in range of [-1, 0], but got 1)'),
                  'unfold big': ('RuntimeError', 'maximum size for tensor at dimension 1 is 4 but size is 5'),
                  'unfold step': ('RuntimeError', 'step is 0 but must be > 0'),
                  'unfold size': ('RuntimeError', 'size is -1 but must be >= 0'),
                  'unfold dim': ('IndexError', 'Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
                  'unfold 0d2': ('RuntimeError', 'maximum size for tensor at dimension 0 is 1 but size is 2'),
                  'stsz': ('RuntimeError', 'size {[3, 1]} is not expandable to size {[2, 4]}.'),
                  'stsz nd': ('RuntimeError', 'size {[1, 2, 4]} is not expandable to size {[2, 4]}.'),
                  'de same': ('RuntimeError', 'diagonal dimensions cannot be identical 1, 1'),
                  'de same2': ('RuntimeError', 'diagonal dimensions cannot be identical -1, 2'),
                  'de range': ('IndexError', 'Dimension out of range (expected to be in range of [-3, 2], but got 3)'),
                  'de 0d': ('IndexError', 'Dimension out of range (expected to be in range of [-1, 0], but got -2)'),
                  'take oob': ('IndexError', 'out of range: tried to access index 6 on a tensor of 6 elements.'),
                  'take oob neg': ('IndexError', 'out of range: tried to access index -7 on a tensor of 6 elements.'),
                  'take float': ('RuntimeError', 'take(): Expected a long tensor for index, but got Float'),
                  'take int32': ('RuntimeError', 'take(): Expected a long tensor for index, but got Int'),
                  'tad nd': ('RuntimeError',
                             'torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 '
                             'dimensions for input, and 1 dimensions for indices'),
                  'tad float': ('RuntimeError', 'torch.take_along_dim(): dtype of indices should be Long but got Float'),
                  'tad bcast3': ('RuntimeError',
                                 'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0'),
                  'tad dim': ('IndexError', 'Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
                  'tad int32': ('RuntimeError', 'torch.take_along_dim(): dtype of indices should be Long but got Int'),
                  'tad none oob': ('RuntimeError', 'index 7 is out of bounds for dimension 0 with size 6'),
                  'if oob': ('IndexError', 'index 3 is out of bounds for dimension 1 with size 3'),
                  'if oobn': ('IndexError', 'index -4 is out of bounds for dimension 1 with size 3'),
                  'if float': ('IndexError', 'index_fill_(): Expected dtype int64 for index.'),
                  'if 2d': ('RuntimeError', 'Index has to be a vector/scalar'),
                  'if tval': ('RuntimeError',
                              'index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).'),
                  'if dim': ('IndexError', 'Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
                  'if int32': ('IndexError', 'index_fill_(): Expected dtype int64 for index.'),
                  'ic num': ('IndexError', 'index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)'),
                  'ic shape': ('RuntimeError',
                               'index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: '
                               '2 at dimension 1 and source slice shape: 3 at dimension 0.'),
                  'ic shape3': ('RuntimeError',
                                'index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: '
                                '2 4 at dimension 1 and source slice shape: 3 5 at dimension 0.'),
                  'ic oob': ('IndexError', 'index_copy_(): index 3 is out of bounds for dimension 1 with size 3'),
                  'ic neg': ('IndexError', 'index_copy_(): index -1 is out of bounds for dimension 1 with size 3'),
                  'ic float': ('RuntimeError', 'index_copy_(): Expected a long tensor for index, but got Float'),
                  'ic int32': ('RuntimeError', 'index_copy_(): Expected a long tensor for index, but got Int'),
                  'ic 2d': ('IndexError', 'index_copy_(): Index should have dimension 1 or 0 (got 2)'),
                  'ic dtype': ('RuntimeError',
                               'index_copy_(): self and source expected to have the same dtype, but got (self) Float and '
                               '(source) Double'),
                  'ic ndim': ('IndexError',
                              'index_copy_(): When source and destination are not scalars, their dimensionality must match. '
                              'Source dimensionality (3), destination dimensionality (2)'),
                  'ic dim': ('IndexError', 'Dimension out of range (expected to be in range of [-2, 1], but got 2)'),
                  'ic scalar': ('IndexError', 'index_copy_(): When source is scalar, index should have one element (got 2)'),
                  'bs': ('RuntimeError',
                         'Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 had (4,); but '
                         'expected shape should be broadcastable to [2, 3]'),
                  'bs3': ('RuntimeError',
                          'Attempting to broadcast a dimension of length 5 at -2! Mismatching argument at index 2 had (5, 1); '
                          'but expected shape should be broadcastable to [2, 3]'),
                  'bs int': ('RuntimeError',
                             'Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 2 had (4,); '
                             'but expected shape should be broadcastable to [2, 3]'),
                  'bs neg': ('ValueError', 'Attempting to broadcast a dimension with negative length!'),
                  'bt': ('RuntimeError',
                         'The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1'),
                  'bt3': ('RuntimeError',
                          'The size of tensor a (2) must match the size of tensor b (5) at non-singleton dimension 0'),
                  'tri dtype f': ('NotImplementedError', '"tril_indices" not implemented for \'Float\''),
                  'tri neg': ('RuntimeError', 'row must be non-negative, got-1'),
                  'triu neg': ('RuntimeError', 'col must be non-negative, got-4'),
                  'cs 2d': ('RuntimeError',
                            'Sizes of tensors must match except in dimension 1. Expected size 3 but got size 2 for tensor '
                            'number 1 in the list.'),
                  'ds': ('RuntimeError',
                         'Sizes of tensors must match except in dimension 2. Expected size 3 but got size 4 for tensor number 1 '
                         'in the list.'),
                  'ds empty': ('RuntimeError', 'dstack expects a non-empty TensorList'),
                  'cs empty': ('RuntimeError', 'column_stack expects a non-empty TensorList'),
                  'rs': ('RuntimeError',
                         'Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 '
                         'in the list.'),
                  'rs empty': ('RuntimeError', 'vstack expects a non-empty TensorList')}


@pytest.mark.parametrize("key", list(MORE))
def test_dtypes_shapes_and_integer_results_are_pytorchs(key):
    got = more(torch)[key]
    assert same(got, MORE[key]), f"{key}: got {got!r}, PyTorch 2.13.0 gave {MORE[key]!r}"


@pytest.mark.parametrize("label", list(ERRORS))
def test_refusals_in_pytorchs_words(label):
    kind, message = PYTORCH_ERRORS[label]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            ERRORS[label](torch)
    assert (type(info.value).__name__, str(info.value)) == (kind, message)
    assert isinstance(info.value, {"RuntimeError": RuntimeError, "IndexError": IndexError,
                                   "ValueError": ValueError, "NotImplementedError": NotImplementedError}[kind])


def test_beta_zero_ignores_the_input_and_gives_it_a_zero_gradient():
    # PyTorch: "If beta is 0, then input will be ignored, and nan and inf in it will not be propagated"
    nan = torch.full((2, 3), float("nan"), requires_grad=True)
    b, c = torch.ones(2, 4), torch.ones(4, 3)
    y = torch.addmm(nan, b, c, beta=0)
    assert y.tolist() == [[4.0] * 3] * 2
    y.sum().backward()
    assert nan.grad.tolist() == [[0.0] * 3] * 2
    assert torch.addr(torch.full((2,), float("inf")), torch.ones(2), torch.ones(2), beta=0).tolist() == [[1.0, 1.0]] * 2
    assert np.isnan(torch.addmm(nan.detach(), b, c, beta=0.5).numpy()).all()  # read where beta is not 0


def test_the_pieces_of_a_split_are_views_of_the_input():
    x = torch.arange(6.0)
    first, second = x.tensor_split(2)
    x.mul_(10)  # an in-place change of the base reaches its views
    assert first.tolist() == [0.0, 10.0, 20.0] and second.tolist() == [30.0, 40.0, 50.0]
    second.add_(1)  # and one on a piece writes into the base
    assert x.tolist() == [0.0, 10.0, 20.0, 31.0, 41.0, 51.0]
    left, right = torch.ones(2, 4).hsplit(2)
    assert (left.shape, right.shape) == (torch.Size([2, 2]), torch.Size([2, 2]))


def test_the_input_itself_where_pytorch_returns_it():
    x = torch.ones(2, 3, requires_grad=True)
    v = torch.ones(3)
    assert x.sum_to_size(2, 3) is x and torch.atleast_2d(x) is x and torch.cartesian_prod(v) is v
    a, b = torch.broadcast_tensors(x, v)
    assert a is x and b.shape == torch.Size([2, 3]) and b.grad_fn is None


def test_chain_matmul_warns_as_pytorch_does():
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated and will be removed in a future "
                                         "PyTorch release. Use torch.linalg.multi_dot instead"):
        y = torch.chain_matmul(torch.ones(2, 3), torch.ones(3, 1))
    assert y.tolist() == [[3.0], [3.0]]


def test_index_copy_and_index_fill_give_the_values_written_over_no_gradient():
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    s = torch.tensor([[10.0, 20.0]], requires_grad=True)
    y = x.index_copy(1, torch.tensor([2, 0]), s)
    assert y.tolist() == [[20.0, 2.0, 10.0]]
    (y * torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0]] and s.grad.tolist() == [[3.0, 1.0]]
    v = torch.tensor(5.0, requires_grad=True)
    z = x.index_fill(1, torch.tensor([0, 1]), v)
    assert z.tolist() == [[5.0, 5.0, 3.0]]
    (z * torch.tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert v.grad.item() == 3.0  # the sum of the places it fills


def test_cdist_has_gradient_zero_between_equal_rows():
    x = torch.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 3.0]], dtype=torch.float64, requires_grad=True)
    for p in (2.0, 1.0, 3.0, 0.5, INF):
        x.grad = None
        d = torch.cdist(x[:2], x[1:], p=p)  # rows 0 and 1 are equal
        assert d[:, 0].tolist() == [0.0, 0.0]
        d[:, 0].sum().backward()
        assert x.grad.tolist() == [[0.0, 0.0]] * 3, p


def test_each_name_is_where_pytorch_has_it():
    # PyTorch 2.13.0: these are Tensor methods and torch functions ...
    both = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "vdot", "matrix_power", "cov", "corrcoef", "fliplr",
            "flipud", "rot90", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes", "diag_embed",
            "diagflat", "take", "take_along_dim", "index_fill", "index_copy", "moveaxis", "argwhere", "movedim",
            "ravel"]
    # ... these torch functions only, and unfold and sum_to_size Tensor methods
    functions = ["tensordot", "cdist", "block_diag", "cartesian_prod", "chain_matmul", "atleast_1d", "atleast_2d",
                 "atleast_3d", "column_stack", "dstack", "row_stack", "hstack", "vstack", "broadcast_tensors",
                 "broadcast_shapes", "tril_indices", "triu_indices"]
    assert all(callable(getattr(torch, n)) and callable(getattr(torch.Tensor, n)) for n in both)
    assert all(callable(getattr(torch, n)) and not hasattr(torch.Tensor, n) for n in functions)
    assert callable(torch.Tensor.unfold) and callable(torch.Tensor.sum_to_size)
    assert not hasattr(torch, "unfold") and not hasattr(torch, "sum_to_size")
    x = torch.arange(12.0).reshape(3, 4)
    assert torch.rot90(x, 1, [1, 0]).tolist() == x.rot90(1, [1, 0]).tolist() == x.rot90(3).tolist()
    assert torch.take(x, torch.tensor([11])).tolist() == [11.0] and torch.ravel(x).shape == torch.Size([12])
