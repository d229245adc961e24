"""gradmagic.jax against JAX 0.10.2 (CPU), the third sweep's fixes: a ``custom_jvp`` rule runs
once under ``grad`` (its linearity check replays the rule's recorded ops), JAX's NaN
conventions for the derivatives of ``**``/``jnp.power``/``jnp.float_power``/``lax.pow``,
``lax``'s binary primitives refusing operands of different ranks, and a ``custom_jvp``
rule's tangent output checked against its primal output's shape and dtype.

Each expected value, gradient and message is what the real ``jax`` 0.10.2 (CPU, x64 off)
printed running the same code, pasted here; gradients are also checked against central
finite differences (``check_grads``) where the function is smooth there.
"""

import math
import re

import numpy as np
import pytest
from _cases import same_to_float32 as same

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.errors import GradientValueError
from gradmagic.jax import lax
from gradmagic.jax.test_util import check_grads

NAN = math.nan


def values(v):
    """An Array (or a tuple or list of them) as Python values."""
    if isinstance(v, (tuple, list)):
        return [values(x) for x in v]
    return np.asarray(v.numpy()).tolist() if isinstance(v, jax.Array) else v


def with_rule(rule, primal=jnp.sin):
    """A custom_jvp function computing ``primal``, whose JVP rule is ``rule``."""
    f = jax.custom_jvp(primal)
    f.defjvp(rule)
    return f


# -- 1. custom_jvp: the rule runs once under grad ---------------------------------------------
@jax.custom_jvp
def scaled_sin(x, y):
    return jnp.sin(x) * y


@scaled_sin.defjvp
def scaled_sin_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    print("rule ran")
    return scaled_sin(x, y), jnp.cos(x) * y * tx + jnp.sin(x) * ty


def test_a_rule_with_a_print_prints_once_under_grad(capsys):
    """JAX 0.10.2 (CPU): one line printed (the rule traced once), gradients 1.0806046 and
    0.84147096; gradmagic printed a second line, the rule run again on random tangents."""
    assert same(values(jax.grad(scaled_sin)(1., 2.)), 1.0806046)
    assert capsys.readouterr().out.count("rule ran") == 1
    assert same(values(jax.grad(scaled_sin, argnums=(0, 1))(1., 2.)), [1.0806046, 0.84147096])
    assert capsys.readouterr().out.count("rule ran") == 1
    assert same(values(jax.grad(lambda v: jnp.sum(scaled_sin(v, 2.)))(jnp.array([1., 2.]))),
                [1.0806046, -0.8322937])
    assert capsys.readouterr().out.count("rule ran") == 1


def test_a_linear_rule_still_gives_first_and_second_derivatives():
    """JAX 0.10.2 (CPU): hessian and grad of grad in x, -1.6829419 (-2 sin 1)."""
    assert same(values(jax.hessian(scaled_sin)(1., 2.)), -1.6829419)
    assert same(values(jax.grad(jax.grad(scaled_sin))(1., 2.)), -1.6829419)
    check_grads(lambda x: scaled_sin(x, 2.), (jnp.array([0.3, 1.2]),), order=2, modes=("rev",))


def test_a_rule_not_linear_in_its_tangents_is_still_refused():
    """JAX refuses these too, with internal errors (``integer_pow``'s and ``expm1``'s transpose
    is not implemented; an AssertionError for the mask); gradmagic's message names the rule.
    Each is 0 at zero tangents: only the replay (or, for the mask, the call again) at a random
    tangent tells."""
    for rule in (lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * t[0] ** 2),
                 lambda p, t: (jnp.sin(p[0]), jnp.where(t[0] > 0, t[0], 0.)),
                 lambda p, t: (jnp.sin(p[0]), jnp.expm1(t[0])),
                 # branching through ops no listener hears (a cast of a comparison's mask, a
                 # stop_gradient): a replay would keep their values at zero tangents, and
                 # pass; the rule is called again instead
                 lambda p, t: (jnp.sin(p[0]), (t[0] > 0).astype(jnp.float32) * t[0]),
                 lambda p, t: (jnp.sin(p[0]), jax.lax.stop_gradient(t[0]) * t[0])):
        with pytest.raises(GradientValueError, match="is not linear in its tangents"):
            jax.grad(with_rule(rule))(1.)


def test_an_affine_rule_is_refused():
    """JAX 0.10.2 (CPU) drops the constant and gives 0.5403023 (cos 1); gradmagic refuses a
    rule whose tangent output is not 0 at zero tangents, which JAX's forward mode would
    differentiate otherwise than its reverse mode."""
    f = with_rule(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * t[0] + 1.))
    with pytest.raises(GradientValueError, match="with zero tangents its tangent output reaches 1"):
        jax.grad(f)(1.)


def test_a_linear_rule_with_cancelling_terms_passes_the_check():
    """JAX 0.10.2 (CPU): 0.009765625 each; the check computed the rule again in float32 and
    refused it as not linear (the sweep's B6); the replay is in float64."""
    @jax.custom_jvp
    def cancel(x):
        return x * 0.01
    cancel.defjvp(lambda p, t: (cancel(p[0]), t[0] * (p[0] * 0 + 1e4 + 0.01) - t[0] * 1e4))
    assert same(values(jax.grad(lambda v: jnp.sum(cancel(v)))(jnp.ones(3))), [0.009765625] * 3)


def test_a_rule_calling_another_custom_function_on_its_tangents():
    """JAX 0.10.2 (CPU): 1.6209068 (3 cos 1). Its ops cannot be replayed (the inner function's
    rule is user code), so gradmagic calls the rule again to check it."""
    @jax.custom_jvp
    def triple(t):
        return 3. * t
    triple.defjvp(lambda p, t: (triple(p[0]), 3. * t[0]))
    f = with_rule(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * triple(t[0])))
    assert same(values(jax.grad(f)(1.)), 1.6209068)
    g = with_rule(lambda p, t: (jnp.sin(p[0]), jnp.cos(p[0]) * triple(t[0]) ** 2))
    with pytest.raises(GradientValueError, match="is not linear in its tangents"):
        jax.grad(g)(1.)


# -- 2. JAX's derivatives of x ** y --------------------------------------------------------
X = jnp.array([-2., 0., 0.5, 2.])
YI = jnp.array([0, 1, 2, -1])
YF = jnp.array([0., 1., 2.5, -1.])


def grad2(f):
    return jax.grad(jax.grad(f))


POWER = {  # name: (the case, what JAX 0.10.2 (CPU) gave; gradmagic gave 0 where JAX gives NaN)
    "x ** 0. at 0": (lambda: jax.grad(lambda a: a ** 0.)(0.), NAN),
    "the exponent's at a negative base": (lambda: jax.grad(lambda a, b: a ** b, argnums=1)(-2., 2.), NAN),
    "x ** 0 (a Python int) at 0": (lambda: jax.grad(lambda a: a ** 0)(0.), 0.0),
    "jnp.power(x, int32 0) at 0": (lambda: jax.grad(lambda a: jnp.power(a, jnp.int32(0)))(0.), 0.0),
    "second of x ** 1. at 0": (lambda: grad2(lambda a: a ** 1.)(0.), NAN),
    "second of x ** 1 at 0": (lambda: grad2(lambda a: a ** 1)(0.), 0.0),
    "lax.pow(x, 0) at 0, first and second": (
        lambda: [jax.grad(lambda a: lax.pow(a, 0))(0.), grad2(lambda a: lax.pow(a, 0))(0.)], [0.0, NAN]),
    "second of lax.pow(x, 1) at 0 and -2": (
        lambda: [grad2(lambda a: lax.pow(a, 1))(0.), grad2(lambda a: lax.pow(a, 1))(-2.)], [NAN, -0.0]),
    "second of lax.integer_pow(x, 1) at 0": (lambda: grad2(lambda a: lax.integer_pow(a, 1))(0.), 0.0),
    "0. ** y in y at -1 and 2": (
        lambda: [jax.grad(lambda b: 0. ** b)(-1.), jax.grad(lambda b: 0. ** b)(2.)], [NAN, 0.0]),
    "float_power(x, 0) at 0 and -2": (
        lambda: [jax.grad(lambda a: jnp.float_power(a, 0))(0.),
                 jax.grad(lambda a: jnp.float_power(a, 0))(-2.)], [NAN, -0.0]),
    "jnp.power(x, integer array)": (
        lambda: jax.grad(lambda a: jnp.power(a, YI).sum())(X), [0.0, 1.0, 1.0, -0.25]),
    "jnp.power(x, integer array), second": (
        lambda: jax.grad(lambda a: jax.grad(lambda a: jnp.power(a, YI).sum())(a).sum())(X),
        [-0.0, NAN, 2.0, 0.25]),
    "x ** float array": (lambda: jax.grad(lambda a: (a ** YF).sum())(X), [-0.0, 1.0, 0.8838834762573242, -0.25]),
    "x ** y in y": (lambda: jax.grad(lambda b: (X ** b).sum())(YF),
                    [NAN, 0.0, -0.12253226339817047, 0.3465735912322998]),
    "2. ** y in y": (lambda: jax.grad(lambda b: (2. ** b).sum())(YF),
                     [0.6931471824645996, 1.3862943649291992, 3.921032428741455, 0.3465735912322998]),
    "jvp at (0, 0)": (lambda: jax.jvp(lambda a, b: a ** b, (0., 0.), (1., 1.)), [1.0, NAN]),
    "hessian at (-2, 2)": (lambda: jax.hessian(lambda a, b: a ** b, argnums=(0, 1))(-2., 2.),
                           [[NAN, NAN], [NAN, NAN]]),
    "hessian at (1.5, 2.5)": (lambda: jax.hessian(lambda a, b: a ** b, argnums=(0, 1))(1.5, 2.5),
                              [[4.5927934646606445, 3.6993346214294434],
                               [3.6993348598480225, 0.4530384838581085]]),
}


@pytest.mark.parametrize("name", POWER)
def test_power_derivatives_are_jax(name):
    case, want = POWER[name]
    got = values(case())
    assert same(got, want), got
    flat_got, flat_want = np.ravel(got), np.ravel(want)  # signed zeros too, as JAX's
    assert list(np.signbit(flat_got[flat_want == 0])) == list(np.signbit(flat_want[flat_want == 0]))


def test_power_values_are_unchanged():
    """JAX 0.10.2 (CPU) values, NumPy's: x ** 3, x ** 2.5, jnp.power(x, YI), float_power,
    lax.pow and 2. ** y; dtypes float32, an integer power of integers int32."""
    got = [X ** 3, X ** 2.5, jnp.power(X, YI), jnp.float_power(X, 2), lax.pow(X, YF), 2. ** YF]
    assert same(values(got), [[-8.0, 0.0, 0.125, 8.0], [NAN, 0.0, 0.1767766922712326, 5.656854152679443],
                              [1.0, 0.0, 0.25, 0.5], [4.0, 0.0, 0.25, 4.0],
                              [1.0, 0.0, 0.1767766922712326, 0.5], [1.0, 2.0, 5.656854152679443, 0.5]])
    assert {str(v.dtype) for v in got} == {"float32"}
    assert values(jnp.power(jnp.array([1, 2]), 2)) == [1, 4] and jnp.power(jnp.array([1, 2]), 2).dtype == np.int32


def test_power_gradients_match_finite_differences_where_smooth():
    base, exponent = jnp.array([0.5, 1.5, 2.]), jnp.array([2.5, -1., 0.5])
    for f in (lambda a, b: a ** b, jnp.power, jnp.float_power, lax.pow):
        check_grads(f, (base, exponent), order=2)
    check_grads(lambda a: lax.pow(a, jnp.array([0, 1, 3])), (base,), order=2)


# -- 3. lax's binary primitives: one rank ---------------------------------------------------
@pytest.mark.parametrize("name, call", [
    ("mul", lambda: lax.mul(jnp.ones(2), jnp.ones((2, 2)))),
    ("max", lambda: lax.max(jnp.ones(2), jnp.ones((1, 2)))),
    ("pow", lambda: lax.pow(jnp.ones(2), jnp.ones((1, 2)))),
    ("div", lambda: lax.div(jnp.ones(2), jnp.ones((1, 2)))),
    ("rem", lambda: lax.rem(jnp.ones(2), jnp.ones((1, 2)))),
    ("eq", lambda: lax.eq(jnp.ones(2), jnp.ones((1, 2)))),
    ("and", lambda: lax.bitwise_and(jnp.ones(2, int), jnp.ones((1, 2), int))),
    ("mul", lambda: lax.mul(np.ones(2, np.float32), jnp.ones((2, 2)))),
])
def test_lax_binary_refuses_operands_of_different_ranks(name, call):
    """JAX 0.10.2 (CPU): ``TypeError: mul: arrays must have the same number of dimensions,
    got {1, 2}`` (lax's primitive's name: ``and`` for bitwise_and); gradmagic broadcast them."""
    with pytest.raises(TypeError, match=re.escape(f"{name}: arrays must have the same number of "
                                                  "dimensions, got {1, 2}")):
        call()


def test_lax_binary_broadcasts_scalars_and_axes_of_length_one():
    """JAX 0.10.2 (CPU): a Python number, a 0-d array and an axis of length 1 broadcast;
    ranks 3 and 2 are refused as ``{2, 3}``; one rank of incompatible shapes is
    ``add got incompatible shapes for broadcasting: (2,), (3,).``"""
    assert values(lax.add(jnp.ones((2, 1)), jnp.ones((2, 3)))) == [[2.0] * 3] * 2
    assert values(lax.mul(jnp.ones(2), 2.)) == [2.0, 2.0]
    assert values(lax.mul(2., jnp.ones((2, 2)))) == [[2.0, 2.0]] * 2
    assert values(lax.mul(jnp.ones(()), jnp.ones((2, 2)))) == [[1.0, 1.0]] * 2
    assert values(lax.mul(jnp.ones(2), jnp.ones(1))) == [1.0, 1.0]
    assert values(lax.pow(jnp.ones(2), 2)) == [1.0, 1.0]
    with pytest.raises(TypeError, match=re.escape("add: arrays must have the same number of "
                                                  "dimensions, got {2, 3}")):
        lax.add(jnp.ones((1, 2, 3)), jnp.ones((4, 5)))
    with pytest.raises(TypeError, match=re.escape("add got incompatible shapes for broadcasting: "
                                                  "(2,), (3,).")):
        lax.add(jnp.ones(2), jnp.ones(3))


# -- 4. custom_jvp: the tangent output's shape and dtype ------------------------------------
WRONG = "Custom JVP rule must produce primal and tangent outputs with corresponding shapes and dtypes"


@pytest.mark.parametrize("tangent, message", [
    (lambda: jnp.ones(3), ". Expected float32[2] (tangent type of float32[2]) but got float32[3]."),
    (lambda: jnp.ones(2, jnp.int32), ". Expected float32[2] (tangent type of float32[2]) but got int32[2]."),
    (lambda: jnp.ones(2, jnp.float16), ". Expected float32[2] (tangent type of float32[2]) but got float16[2]."),
    (lambda: 1.0, ". Expected float32[2] (tangent type of float32[2]) but got float32[]."),
])
def test_a_tangent_of_the_wrong_shape_or_dtype_is_refused(tangent, message):
    """JAX 0.10.2 (CPU), in ``jax.jvp`` and in ``jax.grad``: these TypeErrors. gradmagic
    returned a (3,) tangent for a (2,) output, and grad failed inside the engine."""
    f = with_rule(lambda p, t: (jnp.sin(p[0]), tangent()))
    for run in (lambda: jax.jvp(f, (jnp.ones(2),), (jnp.ones(2),)),
                lambda: jax.grad(lambda v: f(v).sum())(jnp.ones(2))):
        with pytest.raises(TypeError, match=re.escape(WRONG + message)):
            run()


def test_a_wrong_tangent_among_several_outputs_is_named():
    """JAX 0.10.2 (CPU): the second form of the message, one line per wrong output; a Python
    float tangent for a float32[] output is accepted (weakly typed)."""
    f = with_rule(lambda p, t: ((jnp.sin(p[0]), p[0] * 2), (jnp.ones(2), jnp.ones((2, 1)))),
                  lambda x: (jnp.sin(x), x * 2))
    with pytest.raises(TypeError, match=re.escape(
            WRONG + ", but got:\n  primal float32[2] with tangent float32[2,1], expecting tangent float32[2]")):
        jax.jvp(f, (jnp.ones(2),), (jnp.ones(2),))
    g = with_rule(lambda p, t: (jnp.sin(p[0]), 1.0))
    assert same(values(jax.jvp(g, (1.,), (1.,))), [0.84147096, 1.0])


def test_an_integer_output_takes_a_tangent_of_any_dtype():
    """JAX 0.10.2 (CPU) wants a float0 tangent for an integer output (``Expected float0[2]
    (tangent type of int32[2]) but got int32[2].``); gradmagic has no float0, so it takes any
    dtype there, and checks the shape."""
    f = with_rule(lambda p, t: ((p[0] * 2).astype(jnp.int32), jnp.ones(2, jnp.int32)),
                  lambda x: (x * 2).astype(jnp.int32))
    assert values(jax.jvp(f, (jnp.ones(2),), (jnp.ones(2),))) == [[2, 2], [1, 1]]
    g = with_rule(lambda p, t: ((p[0] * 2).astype(jnp.int32), jnp.ones(3)),
                  lambda x: (x * 2).astype(jnp.int32))
    with pytest.raises(TypeError, match=re.escape(
            WRONG + ". Expected float0[2] (tangent type of int32[2]) but got float32[3].")):
        jax.jvp(g, (jnp.ones(2),), (jnp.ones(2),))


CALLS = []


@jax.custom_jvp
def masked_relu(x):
    return jnp.maximum(x, 0.)


@masked_relu.defjvp
def masked_relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    print("masked rule ran")
    CALLS.append(1)
    return masked_relu(x), jnp.where(x > 0, t, 0.)


def test_a_rule_masked_by_its_primals_runs_once_as_the_user_sees_it(capsys):
    """JAX 0.10.2 (CPU): grad gives [1., 0., 1.] and the rule prints once. A mask the rule
    makes (``x > 0``) is no op the check hears, so it calls the rule again, on a snapshot
    with its output muted: the print shows once and the list it appends to has one item."""
    CALLS.clear()
    assert values(jax.grad(lambda v: jnp.sum(masked_relu(v)))(jnp.array([0.5, -1., 2.]))) == [1.0, 0.0, 1.0]
    assert capsys.readouterr().out.count("masked rule ran") == 1 and CALLS == [1]
