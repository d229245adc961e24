"""gradmagic.tf's functions whose operands' shapes do not fit raise TensorFlow's
InvalidArgumentError in its words (the elementwise functions, matmul, concat and stack).
Every expected message was printed by TensorFlow 2.21.0 (tensorflow-cpu) for the same code,
less the ``{{function_node ...}}`` prefix and the ``name:`` suffix of its eager errors. (A
tensor's operators, ``a + b``, are gradmagic's own and keep NumPy's ValueError, which
InvalidArgumentError also is.)"""

import pytest

import gradmagic.tf as tf

O = tf.ones
CASES = [
    (lambda: tf.matmul(O((2, 3)), O((2, 3))), "Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul]"),
    (lambda: tf.matmul(O((5, 2, 3)), O((5, 4, 3))),
     "Matrix size-incompatible: In[0]: [5,2,3], In[1]: [5,4,3] [Op:BatchMatMulV2]"),
    (lambda: tf.matmul(O((5, 2, 3)), O((4, 3, 2))),
     "In[0] and In[1] must have compatible batch dimensions: [5,2,3] vs. [4,3,2] [Op:BatchMatMulV2]"),
    (lambda: tf.add(O((2, 3)), O(4)), "Incompatible shapes: [2,3] vs. [4] [Op:AddV2]"),
    (lambda: tf.math.multiply(O((2, 3)), O(4)), "Incompatible shapes: [2,3] vs. [4] [Op:Mul]"),
    (lambda: tf.maximum(O((2, 3)), O(4)), "Incompatible shapes: [2,3] vs. [4] [Op:Maximum]"),
    (lambda: tf.math.pow(O((2, 3)), O(4)), "Incompatible shapes: [2,3] vs. [4] [Op:Pow]"),
    (lambda: tf.concat([O((2, 3)), O(3)], 0),
     "ConcatOp : Ranks of all input tensors should match: shape[0] = [2,3] vs. shape[1] = [3] [Op:ConcatV2]"),
    (lambda: tf.concat([O((2, 3)), O((2, 3)), O((1, 2))], 1),
     "ConcatOp : Dimension 0 in both shapes must be equal: shape[0] = [2,3] vs. shape[2] = [1,2] [Op:ConcatV2]"),
    (lambda: tf.concat([O((2, 3)), O((2, 3))], -3),
     "ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got -3 [Op:ConcatV2]"),
    (lambda: tf.stack([O((2, 3)), O((2, 4))], axis=1),
     "Shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape = [2,4] [Op:Pack]"),
]


@pytest.mark.parametrize("call, message", CASES, ids=range(len(CASES)))
def test_shapes_that_do_not_fit_are_tensorflows_invalid_argument_error(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    assert str(info.value) == message


def test_shapes_that_fit_still_broadcast():
    assert tf.add(O((2, 3)), O(3)).shape == (2, 3) and tf.matmul(O((4, 2, 3)), O((3, 5))).shape == (4, 2, 5)


def test_concat_and_stack_as_tensorflow_at_their_edges():
    # TensorFlow 2.21.0: one tensor concatenates along any axis (itself); stack's axis out of
    # range is a ValueError; fitting shapes join as before
    assert tf.concat([O((2, 3))], 5).shape == (2, 3) and tf.concat([O((2, 3)), O((2, 2))], -1).shape == (2, 5)
    with pytest.raises(ValueError, match=r"^Argument `axis` = 3 not in range \[-3, 3\)$"):
        tf.stack([O((2, 3)), O((2, 3))], axis=3)
    assert tf.stack([O((2, 3)), O((2, 3))], -1).shape == (2, 3, 2)
