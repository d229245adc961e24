"""``jax.vmap``'s keyword arguments, batches of size 0 and errors on gradmagic.jax, and
``jnp.fft``'s refusal: values, shapes, dtypes and messages from JAX 0.10.2 (CPU), run with
the real ``jax`` and pasted here."""

import re

import numpy as np
import pytest

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

XS = jnp.arange(3.)


def test_keyword_arguments_are_mapped_over_axis_0_whatever_in_axes_says():
    assert jax.vmap(lambda x, y=2.: x * y)(XS, y=XS).tolist() == [0.0, 1.0, 4.0]
    assert jax.vmap(lambda x, y=2.: x * y, in_axes=(None,))(2., y=XS).tolist() == [0.0, 2.0, 4.0]
    assert jax.vmap(lambda x, y: x + y["a"])(XS, y={"a": jnp.ones(3)}).tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        jax.vmap(lambda x, y: x * y, in_axes=(0, None))(XS, y=jnp.ones((3, 2)))
    # JAX: 3.0, the gradient of sum over the batch of x w + b in w, sum(x)
    assert jax.grad(lambda w: jax.vmap(lambda x, b: (x * w + b).sum())(XS, b=XS).sum())(2.) == 3.0


@pytest.mark.parametrize("f, out_axes, path", [
    (lambda x: x * 2, None, ""),
    (lambda x: (x * 2, x), (0, None), "[1]"),
    (lambda x: {"a": x, "b": x}, {"a": 0, "b": None}, "['b']"),
])
def test_out_axes_none_of_a_batched_output_is_jaxs_error_not_its_first_slice(f, out_axes, path):
    with pytest.raises(ValueError, match=rf"^at vmap out_axes{re.escape(path)}, "
                                         "got axis spec None but output was batched on axis 0$"):
        jax.vmap(f, out_axes=out_axes)(XS)
    # an output the same for every element stays one (JAX: (Array([0., 2., 4.]), 5.0))
    batched, same = jax.vmap(lambda x: (x * 2, jnp.float32(5.)), out_axes=(0, None))(XS)
    assert batched.tolist() == [0.0, 2.0, 4.0] and same.shape == () and float(same) == 5.0


@pytest.mark.parametrize("f, x, shape, dtype", [
    (lambda x: x * 2, jnp.ones((0, 2)), (0, 2), "float32"),
    (lambda x: x.sum(), jnp.ones((0, 2), jnp.int32), (0,), "int32"),
    (lambda x: 1.0, jnp.ones((0, 3)), (0,), "float32"),
    (lambda x: x[0], jnp.ones((0, 3)), (0,), "float32"),
    (lambda x: x, jnp.ones((0,)), (0,), "float32"),
    (jax.grad(lambda x: (x ** 2).sum()), jnp.ones((0, 3)), (0, 3), "float32"),
])
def test_a_batch_of_none_gives_jaxs_empty_shape_and_dtype(f, x, shape, dtype):
    out = jax.vmap(f)(x)
    assert out.shape == shape and str(out.dtype) == dtype


def test_a_batch_of_none_with_trees_and_axes():
    s, head = jax.vmap(lambda x: (x.sum(), x[:1]))(jnp.ones((0, 2)))
    assert (s.shape, head.shape) == ((0,), (0, 1))
    assert jax.vmap(lambda x: x * 2, in_axes=1)(jnp.ones((2, 0))).shape == (0, 2)
    assert jax.vmap(lambda x: jnp.outer(x, x), out_axes=1)(jnp.ones((0, 3))).shape == (3, 0, 3)
    assert jax.vmap(lambda x, y: x * y, in_axes=(0, None))(jnp.ones((0, 3)), 2.).shape == (0, 3)


RANK = ("vmap was requested to map its argument along axis {}, which implies that its rank "
        "should be at least {}, but is only {} (its shape is {})")


@pytest.mark.parametrize("call, message", [
    (lambda: jax.vmap(lambda x: x)(3.), RANK.format(0, 1, 0, "()")),
    (lambda: jax.vmap(lambda x, y: x + y)(XS, 3.), RANK.format(0, 1, 0, "()")),
    (lambda: jax.vmap(lambda x, y: x + y, in_axes=(0, 1))(XS, jnp.ones(3)), RANK.format(1, 2, 1, "(3,)")),
    (lambda: jax.vmap(lambda x, y: x, in_axes=(0, None))(3., 2.), RANK.format(0, 1, 0, "()")),
    (lambda: jax.vmap(lambda x, y: x + y)(XS, jnp.ones(4)),
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
     "  * one axis had size 4: axis 0 of argument y of type float32[4]"),
    (lambda: jax.vmap(lambda x, y: x + y)(XS, jnp.ones((4, 2))),
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
     "  * one axis had size 4: axis 0 of argument y of type float32[4,2]"),
    (lambda: jax.vmap(lambda x, y: x + y)(XS, y=jnp.ones(4)),
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * one axis had size 3: axis 0 of argument x of type float32[3];\n"
     "  * one axis had size 4: axis 0 of kwargs['y'] of type float32[4]"),
    (lambda: jax.vmap(lambda x, y: x + y)((XS, XS), (jnp.ones(4), jnp.ones(5))),
     "vmap got inconsistent sizes for array axes to be mapped:\n"
     "  * most axes (2 of them) had size 3, e.g. axis 0 of argument x[0] of type float32[3];\n"
     "  * one axis had size 4: axis 0 of argument y[0] of type float32[4];\n"
     "  * one axis had size 5: axis 0 of argument y[1] of type float32[5]"),
    (lambda: jax.vmap(lambda x: x, in_axes=None)(XS),
     "vmap must have at least one non-None value in in_axes or axis_size must be specified"),
])
def test_jaxs_value_errors(call, message):
    with pytest.raises(ValueError) as e:
        call()
    assert str(e.value) == message


def test_jnp_fft_is_refused_as_complex_numbers_are():
    message = "gradmagic.jax.numpy.fft.rfft does not exist: .* complex numbers are out of scope"
    with pytest.raises(AttributeError, match=message):
        jnp.fft.rfft(jnp.ones(4))
    with pytest.raises(ImportError, match=message):
        from gradmagic.jax.numpy.fft import rfft  # noqa: F401
    assert np.fft is not None  # NumPy's own is untouched
