"""Tensor printing (PyTorch's scientific notation, summaries, wrapping, ``set_printoptions``)
and the legacy constructors (``torch.Tensor(...)``, ``torch.FloatTensor`` ...) on
gradmagic.torch (``gradmagic/torch/printing.py``, ``legacy.py``).

Every expected string below was printed by PyTorch 2.13.0+cpu running the same code (with
``torch`` the real one); a legacy constructor given sizes alone leaves its tensor
uninitialised in PyTorch, which printed it after ``zero_()``: gradmagic gives zeros.
"""

import re

import numpy as np  # noqa: F401  (the cases eval np.array)
import pytest

import gradmagic.torch as torch
from gradmagic.torch import printing

CASES = {  # code: what PyTorch 2.13.0+cpu prints
    'torch.tensor([102.4, 1024., 0.1024])':
        'tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])',
    'torch.arange(2000.)':
        'tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n        1.9990e+03])',
    'torch.tensor([123456.789, 0.001])':
        'tensor([1.2346e+05, 1.0000e-03])',
    "torch.tensor([float('nan'), 1.])":
        'tensor([nan, 1.])',
    'torch.tensor([2., 2., -0.])':
        'tensor([2., 2., -0.])',
    'torch.arange(2000.).reshape(40, 50)':
        'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n         4.9000e+01],\n        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n         9.9000e+01],\n        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n         1.4900e+02],\n        ...,\n        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n         1.8990e+03],\n        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n         1.9490e+03],\n        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n         1.9990e+03]])',
    'torch.arange(2000).reshape(2, 10, 100)':
        'tensor([[[   0,    1,    2,  ...,   97,   98,   99],\n         [ 100,  101,  102,  ...,  197,  198,  199],\n         [ 200,  201,  202,  ...,  297,  298,  299],\n         ...,\n         [ 700,  701,  702,  ...,  797,  798,  799],\n         [ 800,  801,  802,  ...,  897,  898,  899],\n         [ 900,  901,  902,  ...,  997,  998,  999]],\n\n        [[1000, 1001, 1002,  ..., 1097, 1098, 1099],\n         [1100, 1101, 1102,  ..., 1197, 1198, 1199],\n         [1200, 1201, 1202,  ..., 1297, 1298, 1299],\n         ...,\n         [1700, 1701, 1702,  ..., 1797, 1798, 1799],\n         [1800, 1801, 1802,  ..., 1897, 1898, 1899],\n         [1900, 1901, 1902,  ..., 1997, 1998, 1999]]])',
    'torch.zeros(2, 0)':
        'tensor([], size=(2, 0))',
    'torch.tensor([], dtype=torch.long)':
        'tensor([], dtype=torch.int64)',
    'torch.zeros(0, 3, requires_grad=True)':
        'tensor([], size=(0, 3), requires_grad=True)',
    'torch.tensor([[1.5, 2.25], [1e-3, 7.]], dtype=torch.float64, requires_grad=True)':
        'tensor([[1.5000e+00, 2.2500e+00],\n        [1.0000e-03, 7.0000e+00]], dtype=torch.float64, requires_grad=True)',
    "torch.tensor([float('inf'), -float('inf')])":
        'tensor([inf, -inf])',
    'torch.ones(3, 40, requires_grad=True) * 1.2345':
        'tensor([[1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345],\n        [1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345],\n        [1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n         1.2345, 1.2345, 1.2345, 1.2345]], grad_fn=<MulBackward0>)',
    "torch.tensor([102.4, float('nan'), float('inf'), 0.1024])":
        'tensor([1.0240e+02,        nan,        inf, 1.0240e-01])',
    'torch.tensor(1e8)':
        'tensor(100000000.)',
    'torch.tensor(1e8, dtype=torch.float64)':
        'tensor(100000000., dtype=torch.float64)',
    'torch.tensor([123456.789, 0.001], dtype=torch.float64)':
        'tensor([1.2346e+05, 1.0000e-03], dtype=torch.float64)',
    'torch.tensor([102.4, 1024., 0.1024], requires_grad=True)':
        'tensor([1.0240e+02, 1.0240e+03, 1.0240e-01], requires_grad=True)',
    'torch.tensor([102.4, 1024., 0.1024], requires_grad=True) * 2':
        'tensor([2.0480e+02, 2.0480e+03, 2.0480e-01], grad_fn=<MulBackward0>)',
    'torch.tensor([[1e-3, 2.], [3., -4.]], dtype=torch.float64, requires_grad=True) * 1':
        'tensor([[ 1.0000e-03,  2.0000e+00],\n        [ 3.0000e+00, -4.0000e+00]], dtype=torch.float64,\n       grad_fn=<MulBackward0>)',
    'torch.tensor([0.5, -1024.25]).half()':
        'tensor([ 5.0000e-01, -1.0240e+03], dtype=torch.float16)',
    'torch.ones(12) * 1.2345':
        'tensor([1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345, 1.2345,\n        1.2345, 1.2345, 1.2345])',
}
OPTIONS = [  # set_printoptions(**options), code: what PyTorch 2.13.0+cpu prints
    ({'precision': 2}, 'torch.tensor([1.12345, 1234.5])',
     'tensor([1.12e+00, 1.23e+03])'),
    ({'precision': 2}, 'torch.tensor([1.12345, 3.])',
     'tensor([1.12, 3.00])'),
    ({'sci_mode': False}, 'torch.tensor([1e-5, 1e5])',
     'tensor([     0.0000, 100000.0000])'),
    ({'sci_mode': True}, 'torch.tensor([1.5, 2.])',
     'tensor([1.5000e+00, 2.0000e+00])'),
    ({'sci_mode': True}, 'torch.tensor([1., 2.])',
     'tensor([1.0000e+00, 2.0000e+00])'),
    ({'threshold': 5, 'edgeitems': 2}, 'torch.arange(10)',
     'tensor([0, 1,  ..., 8, 9])'),
    ({'threshold': 5, 'edgeitems': 2}, 'torch.arange(10.).reshape(5, 2)',
     'tensor([[0., 1.],\n        [2., 3.],\n        ...,\n        [6., 7.],\n        [8., 9.]])'),
    ({'linewidth': 20}, 'torch.arange(10.) / 4',
     'tensor([0.0000,\n        0.2500,\n        0.5000,\n        0.7500,\n        1.0000,\n        1.2500,\n        1.5000,\n        1.7500,\n        2.0000,\n        2.2500])'),
    ({'profile': 'short'}, 'torch.arange(10.) / 3',
     'tensor([0.00, 0.33, 0.67, 1.00, 1.33, 1.67, 2.00, 2.33, 2.67, 3.00])'),
    ({'edgeitems': 0, 'threshold': 3}, 'torch.arange(10.)',
     'tensor([...], size=(10,))'),
    ({'profile': 'full'}, 'torch.arange(1200.)[-3:] * 1000',
     'tensor([1197000., 1198000., 1199000.])'),
]
LEGACY = {  # code: what PyTorch 2.13.0+cpu prints (sizes alone: zeros here, uninitialised there)
    'torch.Tensor()': 'tensor([])',
    'torch.Tensor([1, 2])': 'tensor([1., 2.])',
    'torch.Tensor(2, 3)': 'tensor([[0., 0., 0.],\n        [0., 0., 0.]])',
    'torch.Tensor((2, 3))': 'tensor([2., 3.])',
    'torch.Tensor(torch.Size([2, 1]))': 'tensor([[0.],\n        [0.]])',
    'torch.Tensor(np.array([1, 2]))': 'tensor([1., 2.])',
    'torch.Tensor([[1, 2], [3, 4]])': 'tensor([[1., 2.],\n        [3., 4.]])',
    'torch.FloatTensor([1, 2])': 'tensor([1., 2.])',
    'torch.FloatTensor(2)': 'tensor([0., 0.])',
    'torch.DoubleTensor([1, 2])': 'tensor([1., 2.], dtype=torch.float64)',
    'torch.LongTensor([1.7, -2.7])': 'tensor([ 1, -2])',
    'torch.LongTensor(2, 2)': 'tensor([[0, 0],\n        [0, 0]])',
    'torch.IntTensor([1, 2])': 'tensor([1, 2], dtype=torch.int32)',
    'torch.BoolTensor([2.5, 0])': 'tensor([ True, False])',
    'torch.LongTensor()': 'tensor([], dtype=torch.int64)',
    'torch.HalfTensor([1])': 'tensor([1.], dtype=torch.float16)',
    'torch.ByteTensor([1])': 'tensor([1], dtype=torch.uint8)',
    "torch.Tensor([1], device='cpu')": 'tensor([1.])',
    'torch.tensor([1, 2]).type(torch.FloatTensor)': 'tensor([1., 2.])',
    "torch.tensor([1.5]).type('torch.IntTensor')": 'tensor([1], dtype=torch.int32)',
}
LEGACY_ERRORS = {  # code: PyTorch 2.13.0+cpu's error
    'torch.Tensor(3.5)': (TypeError, 'new(): data must be a sequence (got float)'),
    'torch.Tensor(True)': (TypeError, 'new(): data must be a sequence (got bool)'),
    "torch.Tensor('a')": (TypeError, "new(): invalid data type 'str'"),
    'torch.Tensor(-1)': (RuntimeError, 'Trying to create tensor with negative dimension -1: [-1]'),
    'torch.Tensor(2, dtype=torch.float64)': (TypeError, "new() received an invalid combination of arguments - got (int, dtype=torch.dtype), but expected one of:\n * (*, torch.device device = None)\n      didn't match because some of the keywords were incorrect: dtype\n * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n"),
    'torch.FloatTensor(2, requires_grad=True)': (TypeError, "new() received an invalid combination of arguments - got (int, requires_grad=bool), but expected one of:\n * (*, torch.device device = None)\n      didn't match because some of the keywords were incorrect: requires_grad\n * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n"),
    'torch.Tensor(2.0, 3)': (TypeError, "new() received an invalid combination of arguments - got (float, int), but expected one of:\n * (*, torch.device device = None)\n      didn't match because some of the arguments have invalid types: (!float!, !int!)\n * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n"),
    'torch.Tensor([1], [2])': (TypeError, "new() received an invalid combination of arguments - got (list, list), but expected one of:\n * (*, torch.device device = None)\n      didn't match because some of the arguments have invalid types: (!list of [int]!, !list of [int]!)\n * (torch.Storage storage)\n * (Tensor other)\n * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n"),
    'torch.LongTensor(torch.tensor([1., 2.]))': (TypeError, 'expected TensorOptions(dtype=long int, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)) (got TensorOptions(dtype=float, device=cpu, layout=Strided, requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt)))'),
    "torch.tensor([1]).type('torch.Foo')": (ValueError, "invalid type: 'torch.Foo'"),
}


@pytest.fixture(autouse=True)
def _default_options():
    yield
    torch.set_printoptions(profile="default")


@pytest.mark.parametrize("code", sorted(CASES))
def test_prints_as_pytorch(code):
    assert str(eval(code)) == CASES[code]


@pytest.mark.parametrize("options, code, expected", OPTIONS, ids=[c for _, c, _ in OPTIONS])
def test_set_printoptions_holds_for_the_process_as_pytorch(options, code, expected):
    torch.set_printoptions(**options)
    assert str(eval(code)) == expected
    assert repr(eval(code)) == expected


def test_a_later_call_without_sci_mode_lets_the_values_decide_again():
    torch.set_printoptions(sci_mode=False)
    torch.set_printoptions(precision=4)
    assert printing.OPTIONS["sci_mode"] is None
    assert str(torch.tensor([102.4, 1024.0, 0.1024])) == "tensor([1.0240e+02, 1.0240e+03, 1.0240e-01])"


def test_a_tensor_under_forward_ad_prints_its_tangent_last():
    import gradmagic.torch.autograd.forward_ad as fwAD
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x * 1, torch.ones(2))
        assert str(d) == "tensor([1., 2.], grad_fn=<ViewBackward0>, tangent=tensor([1., 1.]))"


@pytest.mark.parametrize("code", sorted(LEGACY))
def test_legacy_constructors_as_pytorch(code):
    assert str(eval(code)) == LEGACY[code]


@pytest.mark.parametrize("code", sorted(LEGACY_ERRORS))
def test_legacy_constructors_refuse_as_pytorch(code):
    cls, message = LEGACY_ERRORS[code]
    with pytest.raises(cls, match="^" + re.escape(message) + "$"):
        eval(code)


def test_every_tensor_is_a_torch_tensor_and_typed_ones_answer_by_dtype():
    t = torch.Tensor([1, 2])
    assert isinstance(t, torch.Tensor) and type(t) is torch.Tensor and t.dtype == torch.float32
    assert isinstance(t * 2, torch.Tensor) and isinstance(torch.zeros(2).exp(), torch.Tensor)
    assert isinstance(torch.zeros(2), torch.FloatTensor) and not isinstance(torch.zeros(2), torch.LongTensor)
    assert isinstance(torch.LongTensor([1]), torch.LongTensor) and torch.FloatTensor.dtype == torch.float32
    assert repr(torch.FloatTensor) == "<class 'torch.FloatTensor'>"


def test_legacy_constructor_of_a_tensor_is_a_view_of_it():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.Tensor(x)
    assert str(y) == "tensor([1., 2.], grad_fn=<AliasBackward0>)"
    (y * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    a = torch.tensor([1, 2])
    b = torch.Tensor(a)  # PyTorch keeps its dtype
    assert str(b) == "tensor([1, 2])"
    a.add_(1)
    assert b.tolist() == [2, 3]


def test_default_dtype_decides_the_legacy_constructor():
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.Tensor([1]).dtype == torch.float64 and torch.FloatTensor([1]).dtype == torch.float32
    finally:
        torch.set_default_dtype(torch.float32)
