"""gradmagic.jax where NumPy answers otherwise than JAX: ``x.at[index].set`` with an index
that names an element twice, ``jnp.reciprocal`` of integers, ``relu`` and ``relu6`` of
NaN, float functions of bools and bytes, Python numbers weakly typed in ``jnp``'s
elementwise functions, ``jacfwd`` and ``hessian`` with a non-float argument outside
``argnums``, ``lax.clamp``'s derivatives at its bounds, and forward mode over a ``grad``
through ``custom_vjp`` functions.

Each case is JAX code on the modules ``jax`` and ``jnp``; the expected results are what JAX
0.10.2 (CPU) printed running it with ``import jax, jax.numpy as jnp``: each result's dtype
and elements. Every case gave another answer before (the jacfwd case raised).
"""

import functools

import numpy as np
import pytest
from _cases import same_as_printed as same

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp

NAN = float("nan")


def show(v):
    return (v.dtype.name, jnp.ravel(v).tolist())


X5 = [-2.0, -1.0, 0.0, 1.0, 2.0]
CASES = {  # name: (the case, what JAX 0.10.2 gave)
    "set-repeated": (lambda: [
        show(jnp.zeros(3).at[jnp.array([1, 1])].set(5.0)), show(jnp.zeros(3).at[jnp.array([-1, 2])].set(5.0)),
        show(jnp.zeros(3).at[jnp.array([0, 2, 0])].set(jnp.array([1.0, 2.0, 3.0]))),
        show(jnp.zeros((2, 2)).at[jnp.array([0, 0]), jnp.array([1, 1])].set(jnp.array([7.0, 8.0]))),
        show(jnp.zeros(3, jnp.int32).at[jnp.array([1, 1])].set(5)),
        show(jax.grad(lambda v: (jnp.zeros(3).at[jnp.array([0, 2, 0])].set(v) * jnp.array([1.0, 2.0, 3.0])).sum())(
            jnp.array([1.0, 2.0, 3.0])))],
        [("float32", [0.0, 5.0, 0.0]), ("float32", [0.0, 0.0, 5.0]), ("float32", [3.0, 0.0, 2.0]),
         ("float32", [0.0, 8.0, 0.0, 0.0]), ("int32", [0, 5, 0]), ("float32", [0.0, 3.0, 1.0])]),
    "reciprocal-int": (lambda: [show(jnp.reciprocal(jnp.array([1, 2, 5]))),
                                show(jnp.reciprocal(jnp.array([0.5], jnp.float16)))],
                       [("float32", [1.0, 0.5, 0.20000000298023224]), ("float16", [2.0])]),
    "relu-nan": (lambda: [show(jax.nn.relu(jnp.array([NAN, -1.0, 0.0, 2.0]))),
                          show(jax.nn.relu6(jnp.array([NAN, -1.0, 3.0, 7.0]))),
                          show(jax.grad(lambda x: jax.nn.relu6(x).sum())(jnp.array([-1.0, 0.0, 3.0, 6.0, 7.0])))],
                 [("float32", [NAN, 0.0, 0.0, 2.0]), ("float32", [NAN, 0.0, 3.0, 6.0]),
                  ("float32", [0.0, 0.0, 1.0, 0.0, 0.0])]),
    "bool-byte-float": (lambda: [show(jnp.exp(jnp.array([True, False]))),
                                 show(jnp.sqrt(jnp.array([4, 200], dtype=jnp.uint8)))],
                        [("float32", [2.7182817459106445, 1.0]), ("float32", [2.0, 14.142135620117188])]),
    "weak-scalars": (lambda: [
        show(jnp.maximum(jnp.array([1.5, -2.0], jnp.float32), 0.0)), show(jnp.add(jnp.array([100, 3], jnp.int8), 1)),
        show(jnp.multiply(jnp.array([1.5, 2.0], jnp.float16), 2.5)), show(jnp.add(jnp.array([1, 2]), 1.5)),
        show(jnp.add(1.0, 2)), show(jnp.clip(jnp.array([1.5, -2.0], jnp.float32), 0.0, 1.0))],
        [("float32", [1.5, 0.0]), ("int8", [101, 4]), ("float16", [3.75, 5.0]), ("float32", [2.5, 3.5]),
         ("float32", [3.0]), ("float32", [1.0, 0.0])]),
    "jacfwd-int-arg": (lambda: [show(jax.jacfwd(lambda x, n: x ** n)(jnp.array([1.0, 2.0]), 2)),
                                show(jax.hessian(lambda x, i: (x ** 3).sum() * i)(jnp.array([1.0, 2.0]), 3))],
                       [("float32", [2.0, 0.0, 0.0, 4.0]), ("float32", [18.0, 0.0, 0.0, 36.0])]),
    "clamp": (lambda: [
        show(jax.lax.clamp(-1.0, jnp.array(X5), 1.0)),
        show(jax.grad(lambda x: jax.lax.clamp(-1.0, x, 1.0).sum())(jnp.array(X5))),
        [show(g) for g in jax.grad(lambda lo, hi: (jax.lax.clamp(lo, jnp.array(X5), hi) * jnp.arange(1.0, 6.0)).sum(),
                                   argnums=(0, 1))(jnp.full(5, -1.0), jnp.full(5, 1.0))]],
        [("float32", [-1.0, -1.0, 0.0, 1.0, 1.0]), ("float32", [0.0, 0.0, 1.0, 0.0, 0.0]),
         [("float32", [1.0, 0.0, 0.0, 0.0, 0.0]), ("float32", [0.0, 0.0, 0.0, 0.0, 5.0])]]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_jax(name):
    case, want = CASES[name]
    got = case()
    assert same(got, want), f"{name}: got {got!r}, JAX 0.10.2 gave {want!r}"


def test_with_x64_python_numbers_stay_weak_and_bools_still_give_float32():
    """JAX 0.10.2 with ``jax_enable_x64``: ``jnp.maximum(x32, 0.)`` and ``jnp.clip`` keep
    float32, ``jnp.exp`` of a bool is float32, an int32 plus a Python float is float64."""
    jax.config.update("jax_enable_x64", True)
    try:
        x32 = jnp.array([1.5, -2.0], dtype=jnp.float32)
        got = [show(jnp.maximum(x32, 0.0)), show(jnp.clip(x32, 0.0, 1.0)), show(jnp.power(x32, 2.0)),
               show(jnp.exp(jnp.array([True, False]))), show(jnp.add(jnp.array([1, 2], jnp.int32), 1.5))]
    finally:
        jax.config.update("jax_enable_x64", False)
    assert same(got, [("float32", [1.5, 0.0]), ("float32", [1.0, 0.0]), ("float32", [2.25, 4.0]),
                      ("float32", [2.7182817459106445, 1.0]), ("float64", [2.5, 3.5])])


def test_jacfwd_names_the_primals_after_the_functions_parameters():
    import gradmagic as gm

    def f(x, n):
        return jnp.sin(x) * n
    with gm.trace() as tr:
        jax.jacfwd(f)(jnp.array([1.0, 2.0]), 2)
    assert "x=[1, 2]" in str(tr)


def test_norm_1_at_zero_uses_jaxs_abs():
    """JAX 0.10.2: the gradient of ``jnp.linalg.norm(x, 1)`` at a zero element is 1 (JAX's
    ``abs`` has derivative 1 at 0); it was 0, NumPy's rule under TensorFlow's convention."""
    v = jnp.array([1.0, -2.0, 0.0, 2.0])
    assert jax.grad(lambda x: jnp.linalg.norm(x, 1))(v).tolist() == [1.0, -1.0, 1.0, 1.0]
    assert jax.grad(lambda x: jnp.linalg.norm(x, 1))(jnp.zeros(3)).tolist() == [1.0, 1.0, 1.0]
    assert jax.grad(lambda x: jnp.linalg.norm(x, -jnp.inf))(v).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert jnp.linalg.norm(jnp.array([[1.0, -2.0], [0.0, 3.0]]), 1, axis=1).tolist() == [3.0, 3.0]


def test_a_bwd_gradient_of_the_wrong_shape_is_named_in_jaxs_words():
    # (it said "custom_gradient(k): grad_fn returned ...", TensorFlow's words)
    @jax.custom_vjp
    def k(x):
        return x * 2

    k.defvjp(lambda x: (x * 2, None), lambda res, g: (jnp.ones(3),))
    with pytest.raises(ValueError, match=r"^custom_vjp\(k\): bwd returned a gradient of shape \(3,\) "
                                         r"for input 0 \('x'\), whose shape is \(\)"):
        jax.grad(k)(1.0)


def test_a_jvp_rule_that_returns_three_values_gets_jaxs_type_error():
    # (it was Python's "too many values to unpack")
    @jax.custom_jvp
    def p(x):
        return jnp.sin(x)

    @p.defjvp
    def p_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return jnp.sin(x), jnp.cos(x) * t, 3
    with pytest.raises(TypeError, match="^Custom JVP rule p_jvp for function p must produce a pair "
                                        r"\(list or tuple of length two\) representing primal and "
                                        "tangent outputs, but got"):
        jax.grad(p)(1.0)


def _custom_vjp_pair():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x) * x

    def f_fwd(x):
        return jnp.sin(x) * x, (x, jnp.cos(x))

    def f_bwd(res, g):
        x, c = res
        return (g * (jnp.sin(x) + x * c),)
    f.defvjp(f_fwd, f_bwd)

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
    def clip_gradient(lo, hi, x):
        return x
    clip_gradient.defvjp(lambda lo, hi, x: (x, None), lambda lo, hi, res, g: (jnp.clip(g, lo, hi),))
    return f, clip_gradient


def test_forward_over_reverse_runs_through_custom_vjp_functions_as_jax():
    # JAX 0.10.2 (x64): forward mode over a grad differentiates fwd and bwd as plain code;
    # only a jvp that would run bwd forwards (f itself) is refused
    f, clip_gradient = _custom_vjp_pair()

    def loss(x):
        return jnp.sum(f(x) ** 2) + jnp.sum(clip_gradient(-1.0, 1.0, x) * x)

    x = jnp.array([0.3, 1.2])
    want = [[3.000796, 0.0], [0.0, 3.855923]]
    np.testing.assert_allclose(np.asarray(jax.hessian(loss)(x)), want, atol=2e-5)
    np.testing.assert_allclose(np.asarray(jax.jacfwd(jax.grad(loss))(x)), want, atol=2e-5)
    value, tangent = jax.jvp(jax.grad(loss), (x,), (jnp.array([1.0, 0.5]),))
    np.testing.assert_allclose(np.asarray(value), [0.703217, 5.257539], atol=2e-5)
    np.testing.assert_allclose(np.asarray(tangent), [3.000796, 1.927962], atol=2e-5)
    const = jnp.array([3.0])  # no input of the custom call has a tangent
    out = jax.jvp(lambda y: y * jnp.sum(clip_gradient(-1.0, 1.0, const)), (2.0,), (1.0,))
    assert [float(v) for v in out] == [6.0, 3.0]
    for direct in (lambda: jax.jvp(f, (x,), (jnp.ones(2),)), lambda: jax.jacfwd(f)(x)):
        with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a custom_vjp"):
            direct()


def test_forward_mode_runs_a_custom_jvp_rule_itself_as_jax():
    # JAX 0.10.2: jax.jvp calls the rule (t ** 2 * x is not linear in t: (9., 12.)); sin of it
    # (0.4121185, -10.933563); reverse mode transposes the rule, so there it is refused
    @jax.custom_jvp
    def f(x):
        return x ** 2

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), t ** 2 * x

    assert [float(v) for v in jax.jvp(f, (3.0,), (2.0,))] == [9.0, 12.0]
    value, tangent = jax.jvp(lambda x: jnp.sin(f(x)), (3.0,), (2.0,))
    np.testing.assert_allclose([float(value), float(tangent)], [0.4121185, -10.933563], rtol=1e-6)
    with pytest.raises(ValueError, match="not linear in its tangents"):
        jax.grad(f)(3.0)
