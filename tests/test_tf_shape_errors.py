"""gradmagic.tf's functions whose operands' shapes do not fit raise TensorFlow's
InvalidArgumentError in its words. Every expected message was printed by TensorFlow 2.21.0
(tensorflow-cpu) for the same code, less the ``{{function_node ...}}`` prefix and the
``name:`` suffix of its eager errors. (A tensor's operators, ``a + b``, are gradmagic's
own and keep NumPy's ValueError, which InvalidArgumentError also is.)"""

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
]


@pytest.mark.parametrize("call, message", CASES, ids=range(len(CASES)))
def test_shapes_that_do_not_fit_are_tensorflows_invalid_argument_error(call, message):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    assert str(info.value) == message


def test_shapes_that_fit_still_broadcast():
    assert tf.add(O((2, 3)), O(3)).shape == (2, 3) and tf.matmul(O((4, 2, 3)), O((3, 5))).shape == (4, 2, 5)
