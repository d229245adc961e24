"""gradmagic.torch's errors where operands' shapes do not fit: PyTorch's RuntimeError and
message (gradmagic/torch/mismatch.py, the hook the engine calls where NumPy refused a
binary or n-ary op), and a many-element tensor's truth value. Every expected message was
printed by PyTorch 2.13.0+cpu for the same code."""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.torch as torch

O = torch.ones

CASES = [
    (lambda: O(2, 3) @ O(2, 3), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda: torch.matmul(O(2, 3), O(2, 3)), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda: torch.mm(O(2, 3), O(2, 3)), "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    (lambda: O(3) @ O(4), "inconsistent tensor size, expected tensor [3] and src [4] to have the same "
                          "number of elements, but got 3 and 4 elements respectively"),
    (lambda: O(2, 3) @ O(4), "size mismatch, got input (2), mat (2x3), vec (4)"),
    (lambda: O(3) @ O(2, 4), "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x4)"),
    (lambda: O(5, 2, 3) @ O(5, 4, 3), "Expected size for first two dimensions of batch2 tensor to be: "
                                      "[5, 3] but got: [5, 4]."),
    (lambda: O(2, 3) @ O(5, 4, 3), "Expected size for first two dimensions of batch2 tensor to be: "
                                   "[5, 3] but got: [5, 4]."),
    (lambda: O(5, 2, 3) @ O(4, 3, 2), "The size of tensor a (5) must match the size of tensor b (4) at "
                                      "non-singleton dimension 0"),
    (lambda: O(2, 3) + O(4), "The size of tensor a (3) must match the size of tensor b (4) at "
                             "non-singleton dimension 1"),
    (lambda: O(2, 3) * O(2, 1, 4), "The size of tensor a (3) must match the size of tensor b (4) at "
                                   "non-singleton dimension 2"),
    (lambda: O(2, 3) - O(3, 3), "The size of tensor a (2) must match the size of tensor b (3) at "
                                "non-singleton dimension 0"),
    (lambda: torch.maximum(O(2, 3), O(4)), "The size of tensor a (3) must match the size of tensor b (4) "
                                           "at non-singleton dimension 1"),
    (lambda: O(2, 3) == O(4), "The size of tensor a (3) must match the size of tensor b (4) at "
                              "non-singleton dimension 1"),
    (lambda: O(2, 3) ** O(4), "The size of tensor a (3) must match the size of tensor b (4) at "
                              "non-singleton dimension 1"),
    (lambda: torch.where(O(2, 3) > 0, O(2, 3), O(4)), "The size of tensor a (3) must match the size of "
                                                      "tensor b (4) at non-singleton dimension 1"),
]


@pytest.mark.parametrize("call, message", CASES, ids=range(len(CASES)))
def test_shapes_that_do_not_fit_get_pytorchs_runtime_error(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message
    assert info.value.__cause__ is None and info.value.__suppress_context__  # NumPy's stays out of sight


def test_a_recorded_op_that_fails_records_nothing_and_the_graph_goes_on():
    x = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="mat1 and mat2"):
        x @ x
    (x * 2).sum().backward()
    assert x.grad.tolist() == [[2.0] * 3] * 2
    assert bool(torch.ones(1)) and not bool(torch.zeros(()))
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(O(2))


def test_other_tensors_keep_numpys_error():
    # gm's and the other dialects' tensors have no mismatch hook: NumPy's ValueError as before
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        gm.constant(np.ones((2, 3))) + gm.constant(np.ones(4))
