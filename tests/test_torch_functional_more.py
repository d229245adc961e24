"""``torch.nn.functional``'s vector, embedding, padding, normalization and dropout
functions, and ``Tensor.scatter``, on gradmagic.torch.

Expected values and gradients were printed by PyTorch 2.13.0+cpu running the same code
(float64, rounded to 5 decimals); each case is also checked by ``gradcheck`` and
``gradgradcheck`` (central differences, first and second order) and run in float32.
"""

import numpy as np
import pytest
from _cases import torch_inputs, weighted_gradients

import gradmagic.torch as torch
import gradmagic.torch.nn.functional as F

CASES = {
    "normalize": (lambda x: F.normalize(x), [(2, 3)], 1.0),
    "normalize p1 dim0": (lambda x: F.normalize(x, p=1, dim=0), [(2, 3)], 1.0),
    "normalize tiny": (lambda x: F.normalize(x), [(2, 3)], 1e-14),
    "cos": (lambda a, b: F.cosine_similarity(a, b), [(2, 3), (2, 3)], 1.0),
    "cos bcast dim0": (lambda a, b: F.cosine_similarity(a, b, dim=0), [(2, 3), (2, 1)], 1.0),
    "cos tiny": (lambda a, b: F.cosine_similarity(a, b), [(2, 3), (2, 3)], 1e-9),
    "embedding": (lambda w: F.embedding(torch.tensor([[0, 2], [2, 1]]), w), [(3, 2)], 1.0),
    "embedding pad": (lambda w: F.embedding(torch.tensor([[0, 2], [2, 1]]), w, padding_idx=2), [(3, 2)], 1.0),
    "embedding pad -1": (lambda w: F.embedding(torch.tensor([[0, 2], [2, 1]]), w, padding_idx=-1), [(3, 2)], 1.0),
    "pad const": (lambda x: F.pad(x, (1, 2)), [(2, 3)], 1.0),
    "pad const val 2d": (lambda x: F.pad(x, (1, 0, 0, 1), value=3.5), [(2, 3)], 1.0),
    "pad neg": (lambda x: F.pad(x, (-1, 1)), [(2, 3)], 1.0),
    "pad reflect": (lambda x: F.pad(x, (2, 1), mode="reflect"), [(1, 2, 4)], 1.0),
    "pad replicate": (lambda x: F.pad(x, (2, 1), mode="replicate"), [(1, 2, 4)], 1.0),
    "pad circular": (lambda x: F.pad(x, (2, 1), mode="circular"), [(1, 2, 4)], 1.0),
    "layer_norm": (lambda x: F.layer_norm(x, (3,)), [(2, 3)], 1.0),
    "layer_norm wb": (lambda x, w, b: F.layer_norm(x, (2, 3), w, b), [(2, 2, 3), (2, 3), (2, 3)], 1.0),
    "dropout eval": (lambda x: F.dropout(x, 0.5, training=False), [(2, 3)], 1.0),
    "dropout 0": (lambda x: F.dropout(x, 0.0), [(2, 3)], 1.0),
    "dropout 1": (lambda x: F.dropout(x, 1.0), [(2, 3)], 1.0),
}

PYTORCH = {'cos': [[-0.3517, 0.23385], [[1.21329, 0.70399, -0.09298], [-2.85351, -0.76471, -0.30504]],
         [[0.25566, -0.00511, 0.46687], [0.52424, -1.01311, 0.77299]]],
 'cos bcast dim0': [[0.99774, -0.76429, 0.99349],
                    [[0.26261, 2.26967, -0.22845], [-0.31475, -0.55974, 0.4046]], [[0.5704], [-0.78537]]],
 'cos tiny': [[-0.00412, 0.00216],
              [[13117764.73883, 9389102.62017, -6641250.20622],
               [-25377664.19303, -12111943.91654, 587864.45574]],
              [[1562690.9603, -1099248.12611, 6239416.06263],
               [2485502.27805, -10522527.09042, 7219246.17279]]],
 'dropout 0': [[[0.12573, -0.1321, 0.64042], [0.1049, -0.53567, 0.3616]], [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
 'dropout 1': [[[0.0, -0.0, 0.0], [0.0, -0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]],
 'dropout eval': [[[0.12573, -0.1321, 0.64042], [0.1049, -0.53567, 0.3616]],
                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]],
 'embedding': [[[[0.12573, -0.1321], [-0.53567, 0.3616]], [[-0.53567, 0.3616], [0.64042, 0.1049]]],
               [[1.0, 2.0], [7.0, 8.0], [8.0, 10.0]]],
 'embedding pad': [[[[0.12573, -0.1321], [-0.53567, 0.3616]], [[-0.53567, 0.3616], [0.64042, 0.1049]]],
                   [[1.0, 2.0], [7.0, 8.0], [0.0, 0.0]]],
 'embedding pad -1': [[[[0.12573, -0.1321], [-0.53567, 0.3616]], [[-0.53567, 0.3616], [0.64042, 0.1049]]],
                      [[1.0, 2.0], [7.0, 8.0], [0.0, 0.0]]],
 'layer_norm': [[[-0.2666, -1.06943, 1.33602], [0.33912, -1.35853, 1.01941]],
                [[-2.67029, 1.77887, 0.89142], [-2.85401, 0.81644, 2.03757]]],
 'layer_norm wb': [[[[0.21286, 1.1765, -1.97075], [1.34515, 0.26261, 0.12254]],
                    [[-3.01334, 0.80517, 0.75759], [2.33475, -0.32575, 0.32008]]],
                   [[[0.13219, 4.52393, -2.26027], [-1.56069, -2.77965, 1.94448]],
                    [[-8.00549, 7.45472, -4.42269], [-0.72837, 1.34043, 4.36141]]],
                   [[10.39709, 7.45343, -1.96521], [-13.10667, -15.38416, 5.53578]],
                   [[8.0, 10.0, 12.0], [14.0, 16.0, 18.0]]],
 'normalize': [[[0.18882, -0.19839, 0.96176], [0.16021, -0.81813, 0.55226]],
               [[0.74258, 3.8012, 0.63832], [6.14254, 7.46633, 9.27869]]],
 'normalize p1 dim0': [[[0.54516, -0.19783, 0.63913], [0.45484, -0.80217, 0.36087]],
                       [[-5.91649, -3.60378, -1.08042], [7.09134, 0.88875, 1.91354]]],
 'normalize tiny': [[[0.00126, -0.00132, 0.0064], [0.00105, -0.00536, 0.00362]],
                    [[1000000000000.0, 2000000000000.0, 3000000000000.0],
                     [4000000000000.0, 5000000000000.0, 6000000000000.0]]],
 'pad circular': [[[[0.64042, 0.1049, 0.12573, -0.1321, 0.64042, 0.1049, 0.12573],
                    [1.304, 0.94708, -0.53567, 0.3616, 1.304, 0.94708, -0.53567]]],
                  [[[10.0, 4.0, 6.0, 8.0], [24.0, 11.0, 20.0, 22.0]]]],
 'pad const': [[[0.0, 0.12573, -0.1321, 0.64042, 0.0, 0.0], [0.0, 0.1049, -0.53567, 0.3616, 0.0, 0.0]],
               [[2.0, 3.0, 4.0], [8.0, 9.0, 10.0]]],
 'pad const val 2d': [[[3.5, 0.12573, -0.1321, 0.64042], [3.5, 0.1049, -0.53567, 0.3616],
                       [3.5, 3.5, 3.5, 3.5]],
                      [[2.0, 3.0, 4.0], [6.0, 7.0, 8.0]]],
 'pad neg': [[[-0.1321, 0.64042, 0.0], [-0.53567, 0.3616, 0.0]], [[0.0, 1.0, 2.0], [0.0, 4.0, 5.0]]],
 'pad reflect': [[[[0.64042, -0.1321, 0.12573, -0.1321, 0.64042, 0.1049, 0.64042],
                   [1.304, 0.3616, -0.53567, 0.3616, 1.304, 0.94708, 1.304]]],
                 [[[3.0, 6.0, 13.0, 6.0], [10.0, 20.0, 34.0, 13.0]]]],
 'pad replicate': [[[[0.12573, 0.12573, 0.12573, -0.1321, 0.64042, 0.1049, 0.1049],
                     [-0.53567, -0.53567, -0.53567, 0.3616, 1.304, 0.94708, 0.94708]]],
                   [[[6.0, 4.0, 5.0, 13.0], [27.0, 11.0, 12.0, 27.0]]]]}


def run(name, dtype):
    """The value, and each input's gradient of the output weighted 1, 2, 3 ..."""
    fn, shapes, scale = CASES[name]
    xs = torch_inputs(shapes, dtype, scale)
    return weighted_gradients(fn(*xs), xs, dtype)


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_are_pytorchs(name):
    for got, want in zip(run(name, torch.float64), PYTORCH[name]):
        want = np.asarray(want)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=6e-6 * max(1.0, np.abs(want).max() * 1e-5))


@pytest.mark.parametrize("name", list(CASES))
def test_float32_gives_the_same_numbers(name):
    for got, want in zip(run(name, torch.float32), PYTORCH[name]):
        want = np.asarray(want)
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * max(1.0, np.abs(want).max()))


# not: below eps (the clamp's gradient is not the function's, in PyTorch too), p = 1 (no
# gradient at all) and padding_idx (whose row gets none, by design, as in PyTorch)
SMOOTH = [n for n in CASES if n not in ("normalize tiny", "cos tiny", "dropout 1", "embedding pad",
                                        "embedding pad -1")]


@pytest.mark.parametrize("name", SMOOTH)
def test_first_and_second_derivatives_match_finite_differences(name):
    fn, shapes, scale = CASES[name]
    xs = tuple(torch_inputs(shapes, torch.float64, scale, seed=1))
    assert torch.autograd.gradcheck(fn, xs)
    assert torch.autograd.gradgradcheck(fn, xs)


def test_one_hot_is_pytorchs():
    assert F.one_hot(torch.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    out = F.one_hot(torch.tensor([[0], [2]]), 4)
    assert out.tolist() == [[[1, 0, 0, 0]], [[0, 0, 1, 0]]] and out.dtype == torch.int64
    for index, n, message in (([-1, 2], -1, "Class values must be non-negative."),
                              ([0, 2], 2, "Class values must be smaller than num_classes.")):
        with pytest.raises(RuntimeError, match=message):
            F.one_hot(torch.tensor(index), n)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor of type LongTensor."):
        F.one_hot(torch.tensor([0.0, 2.0]))


def test_refusals_in_pytorchs_words():
    cases = [
        (RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                       "types: Long, Int; but got torch.FloatTensor instead (while checking arguments "
                       "for embedding)", lambda: F.embedding(torch.tensor([0.0]), torch.ones(2, 2))),
        (IndexError, "index out of range in self", lambda: F.embedding(torch.tensor([3]), torch.ones(2, 2))),
        (RuntimeError, "Given normalized_shape=[3], expected input with shape [*, 3], but got input of "
                       "size[2, 4]", lambda: F.layer_norm(torch.ones(2, 4), (3,))),
        (ValueError, "dropout probability has to be between 0 and 1, but got 1.5",
         lambda: F.dropout(torch.ones(2), 1.5)),
        (RuntimeError, "Padding length must be divisible by 2", lambda: F.pad(torch.ones(2), (1,))),
        (NotImplementedError, "Padding size 2 is not supported for 4D input tensor.\nSupported combinations "
                              "for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last "
                              "dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  "
                              "- 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
         lambda: F.pad(torch.ones(1, 2, 4, 4), (1, 1), mode="reflect")),
        (RuntimeError, "Argument #4: Padding size should be less than the corresponding input dimension, "
                       "but got: padding (4, 1) at dimension 2 of input [1, 2, 4]",
         lambda: F.pad(torch.ones(1, 2, 4), (4, 1), mode="reflect")),
        (RuntimeError, "Padding length should be less than or equal to two times the input dimension "
                       "but got padding length 4 and input of dimension 1",
         lambda: F.pad(torch.ones(2), (1, 1, 1, 1))),
    ]
    for exc, message, fn in cases:
        with pytest.raises(exc) as info:
            fn()
        assert str(info.value) == message


def test_pads_are_named_as_pytorchs():
    # PyTorch 2.13.0's grad_fn names; its circular pad is a copy into slices
    x = torch.ones(1, 2, 4, 4, requires_grad=True)
    assert F.pad(x, (1, 1)).grad_fn.name() == "ConstantPadNdBackward0"
    assert F.pad(x[0], (1, 1), mode="reflect").grad_fn.name() == "ReflectionPad1DBackward0"
    assert F.pad(x, (1, 1, 1, 1), mode="replicate").grad_fn.name() == "ReplicationPad2DBackward0"
    assert F.pad(x, (1, 1, 1, 1), mode="circular").grad_fn.name() == "CopySlices"


def test_dropout_in_training_zeroes_a_share_and_scales_the_rest():
    x = torch.ones(2000, dtype=torch.float64, requires_grad=True)
    assert F.dropout(x, 0.5, training=False) is x  # as PyTorch: the input itself
    torch.manual_seed(0)
    y = F.dropout(x, 0.25)
    kept = y.detach().numpy() != 0
    assert set(np.round(y.detach().numpy(), 6).tolist()) == {0.0, 1.333333}
    assert abs(1 - kept.mean() - 0.25) < 0.04
    y.sum().backward()  # the gradient is the mask, scaled
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.75)
    torch.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(x, 0.25).detach().numpy(), y.detach().numpy())  # seeded


def test_scatter_is_pytorchs():
    x = torch.tensor([[1., 2., 3.], [4., 5., 6.]], requires_grad=True)
    s = torch.tensor([[10., 20.]], requires_grad=True)
    y = x.scatter(1, torch.tensor([[0, 2]]), s)
    assert y.tolist() == [[10., 2., 20.], [4., 5., 6.]] and y.grad_fn.name() == "ScatterBackward0"
    (y * torch.arange(6.).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0., 1., 0.], [3., 4., 5.]]  # 0 where written over
    assert s.grad.tolist() == [[0., 2.]]  # where each element went
    x.grad = None
    y = torch.scatter(x, 0, torch.tensor([[1, 0, 1]]), 7.5)
    assert y.tolist() == [[1., 7.5, 3.], [7.5, 5., 7.5]] and y.grad_fn.name() == "ScatterBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [[1., 0., 1.], [0., 1., 0.]]
    assert x.detach().scatter(1, torch.tensor([[0, 2]]), value=-1.).tolist() == [[-1., 2., -1.], [4., 5., 6.]]
    added = x.detach().scatter(1, torch.tensor([[0, 0]]), s.detach(), reduce="add")
    assert added.tolist() == [[31., 2., 3.], [4., 5., 6.]]
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        x.scatter(1, torch.tensor([[0]]), torch.tensor([[1]]))
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 1 with size 3"):
        x.scatter(1, torch.tensor([[3]]), s)
