"""gradmagic.jax's errors where operands' shapes do not fit: JAX's error class and message
(gradmagic/jax/mismatch.py, the Array class's hook the engine calls where NumPy refused an
op). Every expected message was printed by JAX 0.10.2 (CPU) for the same code."""

import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

O = jnp.ones
CASES = [
    (lambda: O(2) + O(3), TypeError, "add got incompatible shapes for broadcasting: (2,), (3,)."),
    (lambda: O((2, 3)) - O((3, 3)), TypeError, "sub got incompatible shapes for broadcasting: (2, 3), (3, 3)."),
    (lambda: jnp.arctan2(O(2), O(3)), TypeError, "atan2 got incompatible shapes for broadcasting: (2,), (3,)."),
    (lambda: O((2, 3)) * O(4), ValueError, "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]"),
    (lambda: O((2, 3)) ** O(4), ValueError, "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]"),
    (lambda: jnp.maximum(O((2, 3)), O(4)), ValueError, "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]"),
    (lambda: O((2, 3)) == O(4), ValueError, "Incompatible shapes for broadcasting: shapes=[(2, 3), (4,)]"),
    (lambda: jnp.where(O((2, 3)) > 0, O((2, 3)), O(4)), ValueError,
     "Incompatible shapes for broadcasting: shapes=[(2, 3), (2, 3), (4,)]"),
    (lambda: O((2, 3)) @ O((2, 3)), TypeError,
     "dot_general requires contracting dimensions to have the same shape, got (3,) and (2,)."),
    (lambda: O(3) @ O(4), TypeError,
     "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,)."),
    (lambda: jnp.dot(O(2), O(3)), TypeError,
     "dot_general requires contracting dimensions to have the same shape, got (2,) and (3,)."),
    (lambda: O((5, 2, 3)) @ O((4, 3, 2)), ValueError,
     "Incompatible types for matmul arguments: float32[5,2,3] and float32[4,3,2]"),
]


@pytest.mark.parametrize("call, error, message", CASES, ids=range(len(CASES)))
def test_shapes_that_do_not_fit_get_jaxs_error(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error and str(info.value) == message


def test_under_grad_too():
    with pytest.raises(TypeError, match=r"^mul got incompatible shapes for broadcasting: \(2,\), \(3,\)\.$"):
        jax.grad(lambda x: jnp.sum(x * O(3)))(O(2))
