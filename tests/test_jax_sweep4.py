"""gradmagic.jax against JAX 0.10.2 (CPU), the fixes of the fourth sweep (the third sweep's
report): a ``custom_jvp`` call's primal output is its rule's under a transformation; a
custom rule acts at the one level of differentiation that processes the call, the enclosing
levels differentiating its ``fwd`` (or the rule's primal code) and its ``bwd`` as plain code,
so surrogate rules (gradient reversal, scaling, straight-through) give JAX's second
derivatives; ``jnp.abs`` at 0 under an infinite upstream, ``jnp.hypot`` at the origin,
``soft_sign``'s and ``celu``'s second derivatives at 0, ``jacrev(allow_int=True)``, an
OrderedDict's leaf order; ``svd``/``qr``/``slogdet``/``pinv`` keywords, ``tree_map`` with a
prefix tree, ``disable_jit``, ``flatten_util.ravel_pytree``, ``debug.callback``,
``fori_loop(unroll=)``, ``jnp.fabs``, ``jnp.fft``'s real helpers; and JAX's errors for a
traced ``nondiff_argnums`` argument, ``tree_unflatten``'s leaf counts, ``has_aux`` without a
pair, ``holomorphic=True`` on real inputs, integer outputs, ``argnums`` and cotangent types.

Each expected value, gradient and message is what the real ``jax`` 0.10.2 (CPU, x64 off)
printed running the same code, pasted here as a literal.
"""

import math
import warnings
from collections import OrderedDict
from functools import partial

import numpy as np
import pytest
from _cases import same_to_float32 as same

import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.jax import lax
from gradmagic.jax.errors import UnexpectedTracerError
from gradmagic.jax.flatten_util import ravel_pytree
from gradmagic.jax.test_util import check_grads

INF, NAN = math.inf, math.nan
tu = jax.tree_util


def values(v):
    """An Array (or a tuple or list of them) as Python values."""
    if isinstance(v, (tuple, list)):
        return [values(x) for x in v]
    return np.asarray(v).tolist() if isinstance(v, (jax.Array, np.ndarray)) else v


# -- A1: a custom_jvp call's primal output is its rule's -------------------------------------
@jax.custom_jvp
def softplus_naive(x):
    return jnp.log(1. + jnp.exp(x))


@softplus_naive.defjvp
def _softplus_jvp(p, t):
    x, = p
    return jnp.logaddexp(x, 0.), t[0] * jax.nn.sigmoid(x)  # a stable primal in the rule


@jax.custom_jvp
def shifted(x):
    return x * 2.


shifted.defjvp(lambda p, t: (p[0] * 2. + 100., t[0] * 2.))


def test_a_custom_jvp_call_under_a_transformation_gives_its_rules_primal():
    """JAX: (100.0, 1.0) twice, 100.0 twice, and inf for the call outside any transformation;
    gradmagic gave f's own inf under grad and jvp."""
    with np.errstate(over="ignore"):
        assert values(jax.value_and_grad(softplus_naive)(100.)) == [100.0, 1.0]
        assert values(jax.jvp(softplus_naive, (100.,), (1.,))) == [100.0, 1.0]
        assert values(jax.vjp(softplus_naive, 100.)[0]) == 100.0
        assert values(jax.linearize(softplus_naive, 100.)[0]) == 100.0
        assert values(softplus_naive(100.)) == INF


def test_the_rules_primal_flows_into_the_values_and_gradients_downstream():
    """JAX: (10404.0, 408.0), jacfwd with aux (408.0, 102.0), jacrev diag(408, 416), and a
    rule whose primal has another shape than f's: (9.0, [3.0, 3.0]); gradmagic gave (4.0,
    8.0) and refused the last in TensorFlow's words."""
    assert values(jax.value_and_grad(lambda x: shifted(x) ** 2)(1.)) == [10404.0, 408.0]
    assert values(jax.jacfwd(lambda x: (shifted(x) ** 2, shifted(x)), has_aux=True)(1.)) == [408.0, 102.0]
    assert values(jax.jacrev(lambda x: shifted(x) ** 2)(jnp.array([1., 2.]))) == [[408.0, 0.0], [0.0, 416.0]]
    g2 = jax.custom_jvp(lambda x: jnp.sum(x))
    g2.defjvp(lambda p, t: (p[0] * 3., t[0] * 3.))
    assert values(jax.value_and_grad(lambda x: jnp.sum(g2(x)))(jnp.array([1., 2.]))) == [9.0, [3.0, 3.0]]


def test_a_rule_with_a_print_still_prints_once(capsys):
    """JAX: one line under grad and one under jvp (the rule runs once)."""
    @jax.custom_jvp
    def pr(x):
        return jnp.sin(x)

    @pr.defjvp
    def pr_jvp(p, t):
        print("rule ran")
        return jnp.sin(p[0]), jnp.cos(p[0]) * t[0]
    assert same(values(jax.grad(pr)(1.)), 0.5403023)
    assert capsys.readouterr().out.count("rule ran") == 1
    assert same(values(jax.jvp(pr, (1.,), (1.,))), [0.84147096, 0.5403023])
    assert capsys.readouterr().out.count("rule ran") == 1


# -- A2: a surrogate rule acts once, at its own level ------------------------------------------
@jax.custom_jvp
def ste_j(x):
    return jnp.round(x)


ste_j.defjvp(lambda p, t: (jnp.round(p[0]), t[0]))


@jax.custom_jvp
def sin_s(x):
    return jnp.sin(x)


sin_s.defjvp(lambda p, t: (jnp.sin(p[0]), 2. * t[0]))  # a surrogate tangent


def test_second_order_through_a_surrogate_custom_jvp_rule():
    """JAX: the outer levels differentiate the rule's primal code (round: 0), so 1.0 in every
    mode; the surrogate sin rule 2.5403023 and -3.365884; gradmagic gave 2.0 and 4.0."""
    assert values(jax.grad(jax.grad(lambda x: ste_j(x) * x))(1.3)) == 1.0
    assert values(jax.hessian(lambda x: ste_j(x) * x)(1.3)) == 1.0
    assert same(values(jax.jvp(lambda x: jax.jvp(lambda y: ste_j(y) * y, (x,), (1.,))[1], (1.3,), (1.,))),
                [2.3, 1.0])
    assert values(jax.jacrev(jax.jacrev(lambda x: ste_j(x) * x))(jnp.array([1.3, 2.6]))) == [
        [[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]]
    assert same(values(jax.grad(jax.grad(lambda x: sin_s(x) * x))(1.)), 2.5403023)
    assert same(values(jax.hessian(lambda x: sin_s(x) * x)(1.)), 2.5403023)
    assert same(values(jax.grad(jax.grad(jax.grad(lambda x: sin_s(x) ** 2)))(1.)), -3.3658838)


def test_a_rule_that_calls_its_function_uses_the_rule_at_the_outer_level_too():
    """JAX: the rule's primal is ste_r itself, a custom call the outer level processes with
    the rule, so 2.0 in both modes; a rule of the true derivative: -1.6829419 and the hessian
    [[-1.6829419, 0.5403023], [0.5403023, 0.]]; the forward check over (primal, tangent)
    gives (0.5744425, 0.5316796)."""
    ste_r = jax.custom_jvp(lambda x: jnp.round(x))
    ste_r.defjvp(lambda p, t: (ste_r(p[0]), t[0]))
    assert values(jax.grad(jax.grad(lambda x: ste_r(x) * x))(1.3)) == 2.0
    assert values(jax.hessian(lambda x: ste_r(x) * x)(1.3)) == 2.0

    @jax.custom_jvp
    def scaled_sin(x, y):
        return jnp.sin(x) * y

    @scaled_sin.defjvp
    def scaled_sin_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return scaled_sin(x, y), jnp.cos(x) * y * tx + jnp.sin(x) * ty
    assert same(values(jax.grad(jax.grad(scaled_sin))(1., 2.)), -1.6829419)
    assert same(values(jax.hessian(scaled_sin, argnums=(0, 1))(1., 2.)),
                [[-1.6829419, 0.5403023], [0.5403023, 0.0]])
    goodj = jax.custom_jvp(lambda x: jnp.log1p(jnp.exp(x)))
    goodj.defjvp(lambda p, t: (goodj(p[0]), t[0] * jax.nn.sigmoid(p[0])))
    assert same(values(jax.jvp(lambda p, t: jax.jvp(goodj, (p,), (t,))[1], (0.3, 1.), (1., 0.5))),
                [0.5744425, 0.5316796])
    check_grads(goodj, (0.3,), order=2)


@jax.custom_vjp
def grl(x):
    return x


grl.defvjp(lambda x: (x, None), lambda r, g: (-g,))


@jax.custom_vjp
def grad_scale(x):
    return x


grad_scale.defvjp(lambda x: (x, None), lambda r, g: (0.1 * g,))


def test_reverse_over_reverse_through_a_surrogate_custom_vjp():
    """JAX: gradient reversal -12.0 in every mode (-48.0 third order), gradient scaling
    [[0.9413695, 0], [0, 0.5101854]] by hessian and jacrev∘jacrev alike, a MAML meta-gradient
    [-0.07301, 0.12144], an STE 4.6; gradmagic gave +12.0, [[0.17312, 0], [0, 0.09965]],
    [-0.07435, 0.13094] under reverse over reverse."""
    assert values(jax.grad(lambda x: grl(x) ** 3)(2.)) == -12.0
    assert values(jax.grad(jax.grad(lambda x: grl(x) ** 3))(2.)) == -12.0
    assert values(jax.hessian(lambda x: grl(x) ** 3)(2.)) == -12.0
    assert values(jax.jacrev(jax.jacrev(lambda x: grl(x) ** 3))(2.)) == -12.0
    assert values(jax.grad(jax.grad(jax.grad(lambda x: grl(x) ** 4)))(2.)) == -48.0

    def fs(w):
        return jnp.sum(jnp.sin(grad_scale(w)) * w)
    w0 = jnp.array([0.5, 1.0])
    want = [[0.9413695, 0.0], [0.0, 0.5101854]]
    assert same(values(jax.hessian(fs)(w0)), want)
    assert same(values(jax.jacrev(jax.jacrev(fs))(w0)), want)

    def mloss(p, x):
        return jnp.sum((grad_scale(p) * x - 1.) ** 2)

    def maml(p):
        p2 = p - 0.1 * jax.grad(mloss)(p, jnp.array([1., 2.]))
        return mloss(p2, jnp.array([0.5, 1.5]))
    assert same(values(jax.grad(maml)(w0)), [-0.07301, 0.12144])
    ste_v = jax.custom_vjp(lambda x: jnp.round(x))
    ste_v.defvjp(lambda x: (jnp.round(x), None), lambda r, g: (g,))
    assert same(values(jax.grad(jax.grad(lambda x: ste_v(x) * x ** 2))(1.3)), 4.6)
    assert same(values(jax.hessian(lambda x: ste_v(x) * x ** 2)(1.3)), 4.6)


# -- A3-A5: derivatives at kinks ----------------------------------------------------------------
def test_abs_at_zero_keeps_an_infinite_upstream():
    """JAX: inf, inf, -inf, [inf]; |x| of [-0., 0., -2., nan, -inf] is [0., 0., 2., nan, inf]
    (no sign bit), its derivative [1, 1, -1, 1, -1]; gradmagic gave NaN at 0."""
    assert values(jax.grad(lambda x: jnp.sqrt(jnp.abs(x)))(0.)) == INF
    assert values(jax.grad(lambda x: jnp.log(jnp.abs(x)))(0.)) == INF
    assert values(jax.grad(lambda x: 1. / jnp.abs(x))(0.)) == -INF
    assert values(jax.vjp(jnp.abs, 0.)[1](jnp.inf)) == [INF]
    assert same(values(jnp.abs(jnp.array([-0., 0., -2., jnp.nan, -jnp.inf]))), [0.0, 0.0, 2.0, NAN, INF])
    assert values(jnp.signbit(jnp.abs(jnp.array([-0.])))) == [False]
    assert same(values(jax.vmap(jax.grad(jnp.abs))(jnp.array([-0., 0., -2., 3., jnp.nan]))),
                [1.0, 1.0, -1.0, 1.0, -1.0])


def test_hypot_at_the_origin_is_jaxs():
    """JAX: (0.5, 0.5) and 0.5 at the origin; (0.6, -0.8); values [5, 0, inf, 5]; hessian
    0.128; gradmagic gave NaN at the origin."""
    assert values(jax.grad(jnp.hypot, argnums=(0, 1))(0., 0.)) == [0.5, 0.5]
    assert values(jax.grad(lambda v: jnp.hypot(v, 0.))(0.)) == 0.5
    assert same(values(jax.grad(jnp.hypot, argnums=(0, 1))(3., -4.)), [0.6, -0.79999995])
    assert values(jnp.hypot(jnp.array([3., 0., jnp.inf, -5.]), jnp.array([4., 0., jnp.nan, 0.]))) == [
        5.0, 0.0, INF, 5.0]
    assert same(values(jax.hessian(jnp.hypot)(3., 4.)), 0.128)


def test_soft_sign_and_celu_second_derivatives_at_zero():
    """JAX: soft_sign'' (0) = -2 (0.128 and -0.5925926 elsewhere), celu'' (0) = 0.25 / alpha;
    celu' and values unchanged; gradmagic gave 0, 1.0 and 2.0."""
    assert values(jax.grad(jax.grad(jax.nn.soft_sign))(0.)) == -2.0
    assert same(values(jax.vmap(jax.grad(jax.grad(jax.nn.soft_sign)))(jnp.array([-1.5, 0.5]))),
                [0.128, -0.5925926])
    assert values(jax.grad(jax.grad(lambda x: jax.nn.celu(x, 1.)))(0.)) == 0.25
    assert values(jax.grad(jax.grad(lambda x: jax.nn.celu(x, .5)))(0.)) == 0.5
    assert same(values(jax.vmap(jax.grad(lambda x: jax.nn.celu(x, .5)))(jnp.array([-2., 0., 1.5]))),
                [0.018315613, 1.0, 1.0])
    assert same(values(jax.nn.celu(jnp.array([-2., 0., 1.5, -100.]), 0.5)), [-0.4908422, 0.0, 1.5, -0.5])


def test_fabs_has_abs_gradient():
    """JAX: sign(x), 1 at 0: [-1, 1, 1]; of ints a float32 [2., 3.]; gradmagic had no rule."""
    assert values(jax.vmap(jax.grad(jnp.fabs))(jnp.array([-2., 0., 3.]))) == [-1.0, 1.0, 1.0]
    out = jnp.fabs(jnp.array([-2, 3]))
    assert values(out) == [2.0, 3.0] and out.dtype == np.float32


# -- A6, A7 ---------------------------------------------------------------------------------------
def test_jacrev_allow_int_gives_zeros_for_an_integer_input_without_a_warning():
    """JAX: int32 zeros [[0, 0], [0, 0]]; with a float input beside it, [[0, 0], [0, 1]];
    gradmagic gave 2 I in float32 and a TensorFlow-worded warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jac = jax.jacrev(lambda x: x * 2., allow_int=True)(jnp.arange(2))
        both = jax.jacrev(lambda x, y: x * y, argnums=(0, 1), allow_int=True)(jnp.arange(2), jnp.ones(2))
    assert values(jac) == [[0, 0], [0, 0]] and jac.dtype == np.int32
    assert values(both) == [[[0, 0], [0, 0]], [[0.0, 0.0], [0.0, 1.0]]]


def test_an_ordered_dict_keeps_its_order():
    """JAX: leaves [1.0, 2.0], PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *])),
    mapped in its order, paths ['b'] then ['a']; gradmagic sorted the keys."""
    od = OrderedDict([("b", 1.), ("a", 2.)])
    assert tu.tree_leaves(od) == [1.0, 2.0]
    assert str(tu.tree_structure(od)) == "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))"
    mapped = tu.tree_map(lambda x: x + 1, od)
    assert type(mapped) is OrderedDict and list(mapped.items()) == [("b", 2.0), ("a", 3.0)]
    assert [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(od)[0]] == ["['b']", "['a']"]


# -- B: code JAX runs -------------------------------------------------------------------------------
def test_svd_and_complete_qr_of_a_non_square_matrix_without_a_gradient():
    """JAX: S [2.4494898, 0.], U (3, 3), Vh (2, 2); Q (3, 3) and |R| [[5.9160795, 8.2825117],
    [0, 0.6324559], [0, 0]]; svd with compute_uv=False still differentiates."""
    a = jnp.array([[1., 2.], [3., 4.], [5., 7.]])
    u, s, vh = jnp.linalg.svd(jnp.ones((3, 2)))
    assert same(values(s), [2.4494898, 0.0]) and u.shape == (3, 3) and vh.shape == (2, 2)
    q, r = jnp.linalg.qr(a, mode="complete")
    assert q.shape == (3, 3) and same(values(jnp.abs(r)), [[5.9160795, 8.2825117], [0.0, 0.6324559], [0.0, 0.0]])
    assert same(values(jax.grad(lambda m: jnp.linalg.svd(m, compute_uv=False).sum())(a)),
                [[-0.63934594, 0.7209773], [0.5625642, 0.20165366], [0.52417374, 0.6629688]])


def test_slogdet_method_and_pinv_hermitian():
    """JAX: (1.0, 1.6094379) and the gradient [[0.6, -0.2], [-0.2, 0.4]] with method="qr",
    an unknown method's ValueError; pinv(hermitian=True) [[0.6666667, -0.3333333], ...] and
    a symmetric gradient [[0.22222216, -0.2777777], [-0.2777777, 0.22222216]]."""
    a = jnp.array([[2., 1.], [1., 3.]])
    assert same(values(jnp.linalg.slogdet(a, method="qr")), [1.0, 1.6094378])
    assert same(values(jax.grad(lambda m: jnp.linalg.slogdet(m, method="qr")[1])(a)),
                [[0.6, -0.2], [-0.2, 0.4]])
    with pytest.raises(ValueError, match=r"^Unknown slogdet method 'x'. Supported methods are 'lu' "
                                         r"\(`None`\), and 'qr'.$"):
        jnp.linalg.slogdet(jnp.eye(2), method="x")
    h = jnp.array([[2., 1.], [1., 2.]])
    assert same(values(jnp.linalg.pinv(h, hermitian=True)), [[0.6666666, -0.3333333], [-0.3333333, 0.6666666]])
    assert same(values(jax.grad(lambda m: jnp.linalg.pinv(m, hermitian=True)[0, 1])(h)),
                [[0.22222216, -0.2777777], [-0.2777777, 0.22222216]])


def test_tree_map_over_a_prefix_first_tree():
    """JAX: [2.0, 6.0] and {'x': 2.0, 'y': 2.0}: the first tree is a prefix of the others."""
    assert tu.tree_map(lambda a, b: a * len(b), [1., 2.], [(1., 2.), (3., 4., 5.)]) == [2.0, 6.0]
    assert tu.tree_map(lambda a, b: a * len(b), {"x": 1., "y": 2.},
                       {"x": {"p": 1, "q": 2}, "y": {"r": 3}}) == {"x": 2.0, "y": 2.0}


def test_debugging_apis():
    """JAX: under disable_jit a jitted function returns its Python float, 6.0; ravel_pytree
    [1, 1, 1, 1, 0, 1, 2, 2] (float32) and back, its errors, a gradient through it
    {'x': [8, 16], 'y': 0}; debug.callback sees 6.0 inside grad, which gives 6.0;
    fori_loop(unroll=2) 13.5."""
    with jax.disable_jit():
        assert jax.jit(lambda x: x * 2.)(3.) == 6.0
    tree = {"a": jnp.ones((2, 2)), "b": jnp.arange(3), "c": [jnp.array(2.)]}
    flat, unravel = ravel_pytree(tree)
    assert values(flat) == [1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 2.0, 2.0] and flat.dtype == np.float32
    back = unravel(jnp.arange(8.))
    assert values(back["a"]) == [[0.0, 1.0], [2.0, 3.0]] and values(back["b"]) == [4, 5, 6]
    assert back["b"].dtype == np.int32 and values(back["c"][0]) == 7.0
    with pytest.raises(ValueError, match=r"^Sum of sizes 8 must be equal to dimension 0 of the operand shape \[3\]$"):
        unravel(jnp.arange(3.))
    with pytest.raises(TypeError, match=r"^unravel function given array of dtype int32, but expected dtype float32$"):
        unravel(jnp.arange(8))
    assert values(ravel_pytree([])[0]) == []

    def newton(w):
        flat, unravel = ravel_pytree(w)
        return jnp.sum(unravel(flat * 2.)["x"] ** 2)
    g = jax.grad(newton)({"x": jnp.array([1., 2.]), "y": jnp.array(3.)})
    assert values(g["x"]) == [8.0, 16.0] and values(g["y"]) == 0.0
    seen = []

    def f(x):
        jax.debug.callback(lambda v: seen.append(float(v)), x * 2.)
        return x ** 2
    assert values(jax.grad(f)(3.)) == 6.0 and seen == [6.0]
    assert same(values(jax.grad(lambda x: lax.fori_loop(0, 4, lambda i, c: c * x, 1., unroll=2))(1.5)), 13.5)


def test_jnp_fft_real_helpers():
    """JAX: fftfreq(5, 0.5) [0, 0.4, 0.8, -0.8, -0.4], rfftfreq(6) [0, 1/6, 1/3, 0.5],
    fftshift [3, 4, 0, 1, 2], ifftshift along axis 1 [[1, 2, 0], [4, 5, 3]], a gradient through
    fftshift [2, 3, 0, 1]; the transforms themselves stay refused (complex numbers)."""
    assert same(values(jnp.fft.fftfreq(5, 0.5)), [0.0, 0.4, 0.8, -0.8, -0.4])
    assert same(values(jnp.fft.rfftfreq(6)), [0.0, 0.16666667, 0.33333334, 0.5])
    assert values(jnp.fft.fftshift(jnp.arange(5.))) == [3.0, 4.0, 0.0, 1.0, 2.0]
    assert values(jnp.fft.fftshift(jnp.arange(6.).reshape(2, 3))) == [[5.0, 3.0, 4.0], [2.0, 0.0, 1.0]]
    assert values(jnp.fft.ifftshift(jnp.arange(6.).reshape(2, 3), axes=1)) == [[1.0, 2.0, 0.0], [4.0, 5.0, 3.0]]
    assert values(jax.grad(lambda x: (jnp.fft.fftshift(x) * jnp.arange(4.)).sum())(jnp.ones(4))) == [
        2.0, 3.0, 0.0, 1.0]
    with pytest.raises(AttributeError, match="fft.rfft does not exist: .* give complex numbers"):
        jnp.fft.rfft(jnp.ones(4))


# -- C: JAX's errors ----------------------------------------------------------------------------------
def test_a_traced_nondiff_argnums_argument_is_refused():
    """JAX: UnexpectedTracerError for grad in a nondiff_argnums argument (and for a traced
    value passed there); grad in x still 12.0, second order 12.0, a constant array there fine
    (4.0); gradmagic gave 0.0 silently."""
    @partial(jax.custom_vjp, nondiff_argnums=(1,))
    def scal(x, n):
        return x ** n
    scal.defvjp(lambda x, n: (x ** n, x), lambda n, x, g: (g * n * x ** (n - 1),))
    message = (r"^Found a JAX Tracer object passed as an argument to a custom_vjp function in a "
               r"position indicated by nondiff_argnums as non-differentiable\. Tracers cannot")
    with pytest.raises(UnexpectedTracerError, match=message):
        jax.grad(scal, argnums=1)(2., 3.)
    with pytest.raises(UnexpectedTracerError, match=message):
        jax.grad(lambda x: scal(x, x))(2.)
    assert values(jax.grad(scal)(2., 3.)) == 12.0
    assert values(jax.grad(jax.grad(scal))(2., 3.)) == 12.0
    assert values(jax.grad(lambda x: scal(x, jnp.array(2.)))(2.)) == 4.0


def test_tree_errors_in_jaxs_words():
    """JAX's ValueErrors for tree_unflatten's leaf counts and tree_map's structures."""
    d = tu.tree_structure([1., (2., 3.)])
    with pytest.raises(ValueError, match=r"^Too many leaves for PyTreeDef; expected 3\.$"):
        tu.tree_unflatten(d, [7., 8., 9., 10.])
    with pytest.raises(ValueError, match=r"^Too few leaves for PyTreeDef; expected 3, got 2$"):
        tu.tree_unflatten(d, [7., 8.])
    cases = [
        (([1., 2.], (1., 2.)), "pytree structure error: different types at key path\n    tree_map tree\n"
         "At that key path, the prefix pytree tree_map tree has a subtree of type\n    <class 'list'>\n"
         "but at the same key path the full pytree has a subtree of different type\n    <class 'tuple'>."),
        (([1., 2.], [1., 2., 3.]), "pytree structure error: different lengths of list at key path\n"
         "    tree_map tree\nAt that key path, the prefix pytree tree_map tree has a subtree of type "
         "list of length 2, but the full pytree has a subtree of the same type but of length 3."),
        (({"a": [1.]}, {"a": (1.,)}), "pytree structure error: different types at key path\n"
         "    tree_map tree['a']\nAt that key path, the prefix pytree tree_map tree has a subtree of "
         "type\n    <class 'list'>\nbut at the same key path the full pytree has a subtree of "
         "different type\n    <class 'tuple'>."),
    ]
    for (a, b), message in cases:
        with pytest.raises(ValueError) as e:
            tu.tree_map(lambda *x: x[0], a, b)
        assert str(e.value) == message
    with pytest.raises(ValueError, match=r"^pytree structure error: different pytree metadata at key "
                                         r"path\n    tree_map tree\n"):
        tu.tree_map(lambda *x: x[0], {"a": 1.}, {"b": 1.})


def test_transformation_errors_in_jaxs_words():
    """JAX's TypeErrors and ValueErrors, not TensorFlow's or gradmagic's own."""
    aux = r"^expected function with aux output to return a two-element tuple, but got type "
    with pytest.raises(TypeError, match=aux):
        jax.vjp(lambda w: jnp.sin(w), 1., has_aux=True)
    with pytest.raises(TypeError, match=aux + r"<class 'tuple'>"):
        jax.vjp(lambda w: (w, w, w), 1., has_aux=True)
    with pytest.raises(TypeError, match=aux + r"<class 'tuple'>"):
        jax.linearize(lambda w: (w, w, w), 1., has_aux=True)
    with pytest.raises(TypeError, match=aux + r"<class 'tuple'>"):
        jax.jacrev(lambda w: (w, w, w), has_aux=True)(1.)
    for call, fn, dtype in [(lambda: jax.grad(lambda z: z ** 2, holomorphic=True)(1.), "grad", "float32"),
                            (lambda: jax.grad(lambda z: z ** 2, holomorphic=True)(1), "grad", "int32"),
                            (lambda: jax.jacrev(lambda z: z ** 2, holomorphic=True)(1.), "jacrev", "float32"),
                            (lambda: jax.jacfwd(lambda z: z ** 2, holomorphic=True)(1.), "jacfwd", "float32"),
                            (lambda: jax.hessian(lambda z: z ** 2, holomorphic=True)(1.), "jacfwd", "float32")]:
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == f"{fn} with holomorphic=True requires inputs with complex dtype, but got {dtype}."
    for out in (lambda x: jnp.round(x).astype(jnp.int32), lambda x: x > 1):
        with pytest.raises(TypeError, match=r"but got (int32|bool)\. For differentiation of functions with "
                                            r"integer outputs, use jax\.vjp directly\.$"):
            jax.grad(out)(2.)
    with pytest.raises(TypeError) as e:
        jax.grad(lambda x, y: x * y, argnums=1)(3., y=4.)
    assert str(e.value) == ("differentiating with respect to argnums=1 requires at least 2 positional "
                            "arguments to be passed by the caller, but got only 1 positional arguments.")
    with pytest.raises(TypeError, match=r"argnums=\(0, 2\) requires at least 3 positional arguments"):
        jax.grad(lambda x, y: x * y, argnums=(0, 2))(3., 4.)
    with pytest.raises(ValueError) as e:
        jax.vjp(jnp.sin, jnp.ones(2))[1](jnp.ones(2, jnp.int32))
    assert str(e.value) == ("unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                            "int32[2], but expected float32[2] because the corresponding output of the "
                            "differentiated function had JAX type float32[2]")
    assert same(values(jax.vjp(jnp.sin, 1.)[1](1.)), [0.5403023])


def test_jvp_and_vjp_argument_mismatches_in_jaxs_words():
    """JAX: TypeErrors for jvp tangents of another tree structure or dtype, a ValueError for
    another shape; ValueErrors for a vjp cotangent of another tree structure or shape (a
    Python float or a float64 array is fine: 0.5403023)."""
    with pytest.raises(TypeError) as e:
        jax.jvp(jnp.sin, (1.,), (1,))
    assert str(e.value) == ("primal and tangent arguments to jax.jvp do not match; dtypes must be equal, "
                            "or in case of int/bool primal dtype the tangent dtype must be float0.Got "
                            "primal dtype float32 and so expected tangent dtype float32, but got tangent "
                            "dtype int32 instead.")
    with pytest.raises(TypeError) as e:
        jax.jvp(lambda a, b: a * b, (1., 2.), (1., None))
    assert str(e.value) == ("primal and tangent arguments to jax.jvp must have the same tree structure; "
                            "primals have tree structure PyTreeDef((*, *)) whereas tangents have tree "
                            "structure PyTreeDef((*, None)).")
    with pytest.raises(TypeError) as e:
        jax.jvp(lambda p: p["a"] * p["b"], ({"a": 1., "b": 2.},), ({"a": 1.},))
    assert str(e.value) == ("primal and tangent arguments to jax.jvp must have the same tree structure; "
                            "primals have tree structure PyTreeDef(({'a': *, 'b': *},)) whereas tangents "
                            "have tree structure PyTreeDef(({'a': *},)).")
    with pytest.raises(ValueError) as e:
        jax.jvp(jnp.sin, (jnp.ones(2),), (jnp.ones(3),))
    assert str(e.value) == ("jvp called with different primal and tangent shapes;Got primal shape (2,) "
                            "and tangent shape as (3,)")
    pullback = jax.vjp(lambda a, b: (a * b, a + b), 2., 3.)[1]
    for wrong in ([1., 10.], 1.):
        with pytest.raises(ValueError, match=r"^unexpected tree structure\.\n\nThe argument to a VJP "
                                             r"function returned by `jax.vjp` must match the pytree\n"):
            pullback(wrong)
    with pytest.raises(ValueError) as e:
        jax.vjp(jnp.sin, jnp.ones(2))[1](jnp.ones(3))
    assert str(e.value) == ("unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                            "float32[3], but expected float32[2] because the corresponding output of the "
                            "differentiated function had JAX type float32[2]")
    assert same(values(jax.vjp(jnp.sin, jnp.ones(2))[1](np.ones(2))), [[0.5403023, 0.5403023]])


def test_jacobians_pass_keyword_arguments_on():
    """JAX 0.10.2: jacrev/jacfwd/hessian pass keyword arguments to the function, not
    differentiated (they raised "<lambda>() got an unexpected keyword argument")."""
    f = lambda x, scale=1.0: jnp.sin(x) * scale  # noqa: E731
    for t in (jax.grad, jax.jacrev, jax.jacfwd):
        np.testing.assert_allclose(float(t(f)(1.0, scale=2.0)), 1.0806046, rtol=1e-6)
    np.testing.assert_allclose(float(jax.hessian(f)(1.0, scale=2.0)), -1.6829419, rtol=1e-6)
    g = lambda x, y, *, p=2.0: {"a": x ** p * y}  # noqa: E731
    jx, jy = jax.jacrev(g, argnums=(0, 1))(jnp.array([1., 2.]), 3., p=3.0)["a"]
    assert jx.tolist() == [[9., 0.], [0., 36.]] and jy.tolist() == [1., 8.]
    assert jax.jacfwd(g)(jnp.array([1., 2.]), 3., p=3.0)["a"].tolist() == [[9., 0.], [0., 36.]]
