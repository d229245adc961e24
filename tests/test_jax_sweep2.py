"""gradmagic.jax against JAX 0.10.2 (CPU), the second sweep's findings: custom_vjp
cotangent trees (a prefix broadcast, a wrong tree refused), default arguments of custom
rules, matrix 1-/inf-norms at a zero element, ``where=`` in softmax and friends, the
``.at[]`` methods (``mul``, ``divide``, ``power``, ``apply``, ``subtract``, ``min``/``max``
at a repeated index), quantile methods and array ``q``, ``sort(descending=True)``,
``lax.map(batch_size=)``, ``register_dataclass``, ``all_leaves`` and ``one_hot`` with x64.

Each expected value, gradient and message is what the real ``jax`` 0.10.2 (CPU, x64 off
unless said) printed running the same code, pasted here; gradients are also checked
against central finite differences (``check_grads``) where the function is smooth there.
"""

import dataclasses
import functools

import numpy as np
import pytest
from _cases import same_to_float32 as same

import gradmagic as gm
import gradmagic.jax as jax
import gradmagic.jax.numpy as jnp
from gradmagic.errors import NoGradientError
from gradmagic.jax.test_util import check_grads

STRUCTURE = ("Custom VJP bwd rule must produce an output with the same container (pytree) "
             "structure as the args tuple of the primal function, and in particular must produce a "
             "tuple of length equal to the number of arguments to the primal function, but got bwd "
             "output structure {} for primal input structure {}.")


def values(v):
    """An Array (or a tuple or list of them) as Python values."""
    if isinstance(v, (tuple, list)):
        return [values(x) for x in v]
    return np.asarray(v.numpy()).tolist() if isinstance(v, jax.Array) else v


def vjp_with(bwd, primal):
    """A custom_vjp function of ``primal`` whose bwd is ``bwd``."""
    f = jax.custom_vjp(primal)
    f.defvjp(lambda *args: (f(*args), None), bwd)
    return f


# -- 1. custom_vjp: bwd's cotangent tree ------------------------------------------------------
def test_a_cotangent_leaf_for_a_tuple_is_broadcast_over_it():
    """JAX 0.10.2 (CPU): (10.0, 10.0); a dict prefix likewise; ``None`` inside gives 0."""
    f5 = vjp_with(lambda r, g: (10 * g,), lambda t: t[0] * 2 + t[1] * 3)
    assert values(jax.grad(f5)((1., 2.))) == [10.0, 10.0]
    f7 = vjp_with(lambda r, g: ({"a": 5 * g, "b": g},),
                  lambda d: d["a"]["x"] * 2 + d["a"]["y"] * 3 + d["b"])
    got = jax.grad(f7)({"a": {"x": 1., "y": 2.}, "b": 2.})
    assert values([got["a"]["x"], got["a"]["y"], got["b"]]) == [5.0, 5.0, 1.0]
    f6 = vjp_with(lambda r, g: ((None, 4 * g), g), lambda t, y: t[0] * 2 + t[1] * 3 * y)
    assert values(jax.grad(f6, argnums=(0, 1))((1., 2.), 3.)) == [[0.0, 4.0], 1.0]
    f6.defvjp(lambda t, y: (f6(t, y), None), lambda r, g: [g, g])  # a list for the args tuple
    assert values(jax.grad(f6, argnums=(0, 1))((1., 2.), 3.)) == [[1.0, 1.0], 1.0]


@pytest.mark.parametrize("bwd, args, got, want", [
    (lambda r, g: ({"a": 10 * g},), ({"a": 1., "b": 2.},), "({'a': *},)", "({'a': *, 'b': *},)"),
    (lambda r, g: (10 * g,), ((1., 2.), 3.), "(*,)", "((*, *), *)"),
    (lambda r, g: (10 * g, g, g), ((1., 2.), 3.), "(*, *, *)", "((*, *), *)"),
    (lambda r, g: ([g, 2 * g], g), ((1., 2.), 3.), "([*, *], *)", "((*, *), *)"),
    (lambda r, g: ((g, None, g), g), ((1., 2.), 3.), "((*, None, *), *)", "((*, *), *)"),
    (lambda r, g: g, ((1., 2.), 3.), "*", "((*, *), *)"),
])
def test_a_cotangent_tree_that_is_not_a_prefix_is_jaxs_type_error(bwd, args, got, want):
    """JAX 0.10.2 (CPU)'s TypeError, word for word (where gradmagic gave zeros)."""
    f = jax.custom_vjp(lambda *a: sum(jax.tree_util.tree_leaves(a)))
    f.defvjp(lambda *a: (f(*a), None), bwd)
    with pytest.raises(TypeError) as err:
        jax.grad(f)(*args)
    assert str(err.value) == STRUCTURE.format(f"PyTreeDef({got})", f"PyTreeDef({want})")


# -- 3. default arguments reach the rules -----------------------------------------------------
def test_default_arguments_reach_custom_rules():
    """JAX 0.10.2 (CPU): 2.0, 5.0, 2.0, jvp (2.0, 2.0), and its TypeError for a
    keyword-only argument."""
    @jax.custom_vjp
    def kw(x, scale=2.):
        return x * scale
    kw.defvjp(lambda x, scale: (x * scale, scale), lambda s, g: (g * s, None))

    @jax.custom_jvp
    def cj(x, scale=2.):
        return x * scale
    cj.defjvp(lambda p, t: (cj(*p), t[0] * p[1]))

    @jax.custom_vjp
    def ko(x, *, scale=2.):
        return x * scale
    ko.defvjp(lambda x, scale: (x * scale, scale), lambda s, g: (g * s, None))
    assert values([jax.grad(kw)(1.), jax.grad(lambda x: kw(x, scale=5.))(1.), jax.grad(cj)(1.)]) == [2.0, 5.0, 2.0]
    assert values(list(jax.jvp(cj, (1.,), (1.,)))) == [2.0, 2.0]
    with pytest.raises(TypeError, match="^The input arguments to the custom_vjp-decorated function ko could "
                                        "not be resolved to positional-only arguments. Binding failed with "
                                        "the error:\nThe following keyword arguments could not be resolved "
                                        "to positions: scale$"):
        jax.grad(lambda x: ko(x, scale=3.))(1.)


# -- 2. matrix norms made of JAX's abs ---------------------------------------------------------
A = jnp.array([[1., 0.], [1., 3.]])
C = jnp.array([[[1., 0., -2.], [0., 3., 0.]], [[0., 0., 1.], [2., -1., 0.]]])
NORMS = [  # (ord, value of A, gradient at A, gradient of C's norm over axes (-1, 0) weighted 1, 2)
    (1, 3.0, [[0., 1.], [0., 1.]], [[[1., 1., -1.], [1., 1., 1.]], [[0., 0., 0.], [1., -1., 1.]]]),
    (-1, 2.0, [[1., 0.], [1., 0.]], [[[0., 0., 0.], [1., 1., 1.]], [[1., 1., 1.], [1., -1., 1.]]]),
    (np.inf, 4.0, [[0., 0.], [1., 1.]], [[[0., 0., -1.], [0., 2., 0.]], [[0., 0., 1.], [0., -2., 0.]]]),
    (-np.inf, 1.0, [[1., 1.], [0., 0.]], [[[0., 1., 0.], [0., 0., 2.]], [[0., 1., 0.], [0., 0., 2.]]]),
]


@pytest.mark.parametrize("ord, value, grad, grad_c", NORMS)
def test_matrix_norms_have_jaxs_gradient_at_a_zero_element(ord, value, grad, grad_c):
    """JAX 0.10.2 (CPU): abs' derivative is 1 at 0 in the matrix 1-, -1-, inf- and -inf-norms."""
    assert values(jnp.linalg.norm(A, ord)) == value
    assert values(jax.grad(lambda a: jnp.linalg.norm(a, ord))(A)) == grad
    weighted = jax.grad(lambda a: (jnp.linalg.norm(a, ord, axis=(-1, 0)) * jnp.array([1., 2.])).sum())
    assert values(weighted(C)) == grad_c
    assert jnp.linalg.norm(C, ord, axis=(2, 0), keepdims=True).shape == (1, 2, 1)
    check_grads(lambda a: jnp.linalg.norm(a, ord), (jnp.array([[1., -2.5], [0.7, 3.]]),), order=1)


# -- 4. where= in softmax, log_softmax, logsumexp ----------------------------------------------
X = jnp.array([[1., 2., 3.], [0.5, -1., 4.]])
M = jnp.array([[True, False, True], [False, False, False]])
M1 = jnp.array([True, False, True])
W = jnp.array([[1., 2., 3.], [4., 5., 6.]])
NEG = float("-inf")
MASKED = [  # (call, JAX 0.10.2's value)
    (lambda: jax.nn.softmax(X, where=M), [[0.11920291185379028, 0.0, 0.8807970285415649], [0.0, 0.0, 0.0]]),
    (lambda: jax.nn.softmax(X, axis=0, where=M1),
     [[0.622459352016449, 0.0, 0.2689414322376251], [0.3775406777858734, 0.0, 0.7310585975646973]]),
    (lambda: jax.grad(lambda v: (jax.nn.softmax(v, where=M) * W).sum())(X),
     [[-0.20998713374137878, 0.0, 0.20998740196228027], [0.0, 0.0, 0.0]]),
    (lambda: jax.grad(lambda v: (jax.nn.softmax(v, where=M1) * W).sum())(X),
     [[-0.20998713374137878, 0.0, 0.20998740196228027], [-0.05690606310963631, 0.0, 0.056905269622802734]]),
    (lambda: jax.nn.log_softmax(X, where=M),
     [[-2.1269280910491943, NEG, -0.12692804634571075], [NEG, NEG, NEG]]),
    (lambda: jax.grad(lambda v: (jnp.where(M1, jax.nn.log_softmax(v, where=M1), 0) * W).sum())(X),
     [[0.5231883525848389, 0.0, -0.5231881141662598], [3.7068777084350586, 0.0, -3.7068777084350586]]),
    (lambda: jax.nn.logsumexp(X, axis=1, where=M), [3.1269280910491943, NEG]),
    (lambda: jax.scipy.special.logsumexp(X, where=M1), 4.370089530944824),
    (lambda: jax.scipy.special.logsumexp(X, axis=0, keepdims=True, where=M1),
     [[1.4740769863128662, NEG, 4.31326150894165]]),
    (lambda: jax.scipy.special.logsumexp(X, axis=1, b=jnp.array([1., -2., 0.5]), where=M1, return_sign=True),
     [[2.5463976860046387, 3.3654940128326416], [1.0, 1.0]]),
    (lambda: jax.grad(lambda v: (jax.nn.logsumexp(v, axis=1, where=M1) * jnp.array([1., 2.])).sum())(X),
     [[0.11920291185379028, 0.0, 0.8807970285415649], [0.05862446129322052, 0.0, 1.941375494003296]]),
    (lambda: jax.grad(lambda v: jax.nn.logsumexp(v, axis=1, where=M)[0])(X),
     [[0.11920291185379028, 0.0, 0.8807970285415649], [0.0, 0.0, 0.0]]),
    (lambda: jax.grad(lambda v: jax.nn.logsumexp(v, where=M1[:2]))(jnp.array([1., 1000.])), [1.0, 0.0]),
    (lambda: jax.nn.logmeanexp(X, axis=1, where=M1), [2.4337809085845947, 3.3366031646728516]),
    (lambda: jax.nn.standardize(X, where=M1),
     [[-0.9999949932098389, 0.0, 0.9999949932098389], [-0.9999983906745911, -1.8571398258209229, 0.9999983906745911]]),
    (lambda: jax.grad(lambda v: (jax.nn.standardize(v, where=M1) * W).sum())(X),
     [[-1.0000050067901611, 1.9999899864196777, -0.9999849796295166],
      [-4.0816192626953125, 2.857138156890869, 1.2244806289672852]]),
]


@pytest.mark.parametrize("case", range(len(MASKED)))
def test_where_masks_as_jaxs(case):
    call, want = MASKED[case]
    got = values(call())
    assert same(got, want), f"got {got}, JAX 0.10.2 (CPU) gave {want}"


@pytest.mark.parametrize("f", [
    lambda v: (jax.nn.softmax(v, where=M1) * W).sum(),
    lambda v: (jnp.where(M1, jax.nn.log_softmax(v, where=M1), 0.) * W).sum(),
    lambda v: (jax.nn.logsumexp(v, axis=1, where=M1) * jnp.array([1., 2.])).sum(),
])
def test_masked_gradients_match_finite_differences(f, x64):
    check_grads(f, (jnp.array([[1., 2., 3.], [0.5, -1., 4.]]),), order=2)


# -- 5. .at[] methods --------------------------------------------------------------------------
V = jnp.array([1., 5., -2., 4.])
REP = jnp.array([1, 3, 1])
AT = [  # (call, JAX 0.10.2's value)
    (lambda: jnp.ones(3).at[1].mul(2.), [1.0, 2.0, 1.0]),
    (lambda: V.at[REP].mul(jnp.array([3., 2., 6.])), [1.0, 90.0, -2.0, 8.0]),
    (lambda: V.at[1].divide(2.), [1.0, 2.5, -2.0, 4.0]),
    (lambda: V.at[REP].divide(jnp.array([3., 2., 6.])), [1.0, 0.2777777910232544, -2.0, 2.0]),
    (lambda: jnp.full(3, 2.).at[1].power(3.), [2.0, 8.0, 2.0]),
    (lambda: V.at[jnp.array([3, 3])].power(jnp.array([2., 0.5])), [1.0, 5.0, -2.0, 4.0]),
    (lambda: jnp.ones(3).at[1].apply(jnp.sin), [1.0, 0.8414709568023682, 1.0]),
    (lambda: V.at[REP].apply(lambda t: t * 2), [1.0, 20.0, -2.0, 8.0]),
    (lambda: V.at[REP].subtract(jnp.array([3., 2., 6.])), [1.0, -4.0, -2.0, 2.0]),
    (lambda: jnp.array([1., 5.]).at[jnp.array([1, 1])].min(jnp.array([3., 2.])), [1.0, 2.0]),
    (lambda: V.at[REP].max(jnp.array([3., 2., 6.])), [1.0, 6.0, -2.0, 4.0]),
    (lambda: jnp.zeros((2, 3)).at[jnp.array([0, 0, 1]), jnp.array([2, 2, 0])].max(jnp.array([1., 4., 2.])),
     [[0.0, 0.0, 4.0], [2.0, 0.0, 0.0]]),
    (lambda: V.at[jnp.array([1, 1, 9])].max(jnp.array([7., 6., 100.])), [1.0, 7.0, -2.0, 4.0]),
    (lambda: V.at[jnp.array([1, 1, 9])].max(jnp.array([7., 6., 100.]), mode="clip"), [1.0, 7.0, -2.0, 100.0]),
    (lambda: jnp.array([1, 2, 3]).at[jnp.array([0, 0])].mul(3), [9, 2, 3]),
    (lambda: jnp.array([1, 2, 3]).at[jnp.array([0, 0])].min(jnp.array([-3, -1])), [-3, 2, 3]),
    (lambda: jax.grad(lambda a: (a.at[jnp.array([0, 3])].power(2.) * jnp.arange(1., 5.)).sum())(
        jnp.array([1., 0., -2., 4.])), [2.0, 2.0, 3.0, 32.0]),
    (lambda: jax.grad(lambda a, v: (a.at[REP].subtract(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([3., 2., 6.])), [[1.0, 2.0, 3.0, 4.0], [-2.0, -4.0, -2.0]]),
    (lambda: jax.grad(lambda a, v: (a.at[REP].min(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([3., 2., 6.])), [[1.0, 0.0, 3.0, 0.0], [2.0, 4.0, 0.0]]),
    (lambda: jax.grad(lambda a, v: (a.at[REP].max(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([3., 2., 6.])), [[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 2.0]]),
    (lambda: jax.grad(lambda a, v: (a.at[jnp.array([1, 1, 1, 0])].max(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([5., 5., 2., 1.])), [[0.5, 0.6666667461395264, 3.0, 4.0], [0.6666666865348816] * 2 + [0.0, 0.5]]),
    (lambda: jax.grad(lambda a, v: (a.at[jnp.array([1, 1, 2])].min(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([0.1, 0.1, 7.])), [[1.0, 0.0, 3.0, 4.0], [1.0, 1.0, 0.0]]),
    # JAX 0.10.2 gives these with unique_indices=True (without it, NotImplementedError)
    (lambda: jax.grad(lambda a, v: (a.at[jnp.array([0, 2])].mul(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([3., 2.])), [[3.0, 2.0, 6.0, 4.0], [1.0, -6.0]]),
    (lambda: jax.grad(lambda a, v: (a.at[jnp.array([0, 2])].divide(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([3., 2.])), [[0.3333333432674408, 2.0, 1.5, 4.0], [-0.1111111119389534, 1.5]]),
    (lambda: jax.grad(lambda a, v: (a.at[jnp.array([0, 3])].power(v) * jnp.arange(1., 5.)).sum(), argnums=(0, 1))(
        V, jnp.array([2., 0.5])), [[2.0, 2.0, 3.0, 1.0], [0.0, 11.090354919433594]]),
]


@pytest.mark.parametrize("case", range(len(AT)))
def test_at_methods_as_jaxs(case):
    call, want = AT[case]
    got = values(call())
    assert same(got, want), f"got {got}, JAX 0.10.2 (CPU) gave {want}"


@pytest.mark.parametrize("f", [
    lambda a, v: a.at[REP].mul(v),
    lambda a, v: a.at[REP].divide(v),
    lambda a, v: a.at[REP].power(v),
    lambda a, v: a.at[REP].apply(jnp.sin) * v[0],
    lambda a, v: a.at[REP].min(v),
    lambda a, v: a.at[REP].max(v * 3),
])
def test_at_gradients_match_finite_differences(f, x64):
    """``apply``'s gradient, which JAX lacks, and the others' at a repeated index (where JAX
    refuses ``mul``'s): the exact derivatives."""
    check_grads(f, (jnp.array([1.5, 5., 2., 4.]), jnp.array([3., 2., 6.])), order=1)


def test_an_unknown_at_method_names_those_there_are():
    with pytest.raises(AttributeError, match=r"^x.at\[index\].foo does not exist: it maps get, set, add, "
                                             "subtract, multiply, mul, divide, power, min, max, apply$"):
        jnp.ones(3).at[1].foo(2.)


# -- 6. quantiles ------------------------------------------------------------------------------
Q6 = jnp.array([3., -1., 4., 1.5, 9., 2.])
X6 = jnp.array([[3., -1., 4., 1.5], [9., 2., 0.5, 7.]])
N6 = jnp.array([3., np.nan, 4., 1.5, np.nan, 2.])
LEVELS = jnp.array([0.0, 0.3, 0.5, 0.7, 0.9, 1.0])
QUANTILES = {  # method: JAX 0.10.2's quantile at LEVELS, percentile(40), gradient, nan version's gradient
    "lower": ([-1.0, 1.5, 2.0, 3.0, 4.0, 9.0], 1.5, [0.0, 0.0, 0.0, 1.0, 0.0, 10.0], [0.0, 0.0, 0.0, 1.0, 0.0, 10.0]),
    "higher": ([-1.0, 2.0, 3.0, 4.0, 9.0, 9.0], 2.0, [10.0, 0.0, 0.0, 0.0, 0.0, 1.0], [10.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
    "nearest": ([-1.0, 1.5, 2.0, 3.0, 4.0, 9.0], 2.0, [0.0, 0.0, 0.0, 1.0, 0.0, 10.0], [0.0, 0.0, 0.0, 0.0, 0.0, 11.0]),
    "midpoint": ([-1.0, 1.75, 2.5, 3.5, 6.5, 9.0], 1.75, [5.0, 0.0, 0.0, 0.5, 0.0, 5.5], [5.0, 0.0, 0.0, 0.5, 0.0, 5.5]),
}


@pytest.mark.parametrize("method", list(QUANTILES))
def test_quantile_methods_as_jaxs(method):
    levels, pct, grad, nan_grad = QUANTILES[method]
    assert values(jnp.quantile(Q6, LEVELS, method=method)) == levels
    assert values(jnp.percentile(Q6, 40., method=method)) == pct
    weights = jnp.array([1., 10.])
    assert values(jax.grad(lambda v: (jnp.quantile(v, jnp.array([0.3, 0.5]), method=method) * weights).sum())(Q6)) == grad
    assert values(jax.grad(lambda v: (jnp.nanpercentile(v, jnp.array([30., 50.]), method=method) * weights).sum())(
        N6)) == nan_grad


def test_quantile_q_arrays_and_jaxs_nearest():
    """JAX 0.10.2 (CPU): an Array q is a constant; "nearest" takes the lower of two equally
    near elements (NumPy the even one: 2.0 at 0.5); its errors for a list q, another method."""
    assert same(values(jnp.percentile(jnp.arange(5.), jnp.array([10., 50.]))), [0.3999999761581421, 2.0])
    assert same(values(jnp.quantile(Q6, jnp.array([0.1, 0.5, 0.9]))), [0.25, 2.5, 6.5])
    assert values(jnp.quantile(jnp.arange(4.), jnp.array([0.5, 1 / 6, 5 / 6]), method="nearest")) == [1.0, 0.0, 2.0]
    assert values(jnp.nanquantile(jnp.array([0., 1., np.nan, 2., 3.]), 0.5, method="nearest")) == 1.0
    assert values(jnp.quantile(X6, 0.5, axis=1, method="midpoint", keepdims=True)) == [[2.25], [4.5]]
    assert values(jax.grad(lambda v: jnp.percentile(v, 50., axis=0, method="lower").sum())(X6)) == [
        [1.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]
    with pytest.raises(TypeError, match=r"^percentile requires ndarray or scalar arguments, got <class 'list'> "
                                        r"at position 1\.$"):
        jnp.percentile(Q6, [10., 50.])
    with pytest.raises(ValueError, match="^method can only be 'linear', 'lower', 'higher', 'midpoint', "
                                         "'nearest' or 'inverted_cdf'$"):
        jnp.quantile(Q6, 0.5, method="weibull")
    with pytest.raises(NoGradientError, match=r"np\.percentile\(q=\.\.\.\)"):
        jax.grad(lambda q: jnp.percentile(Q6, q))(50.)


@pytest.mark.parametrize("method", list(QUANTILES))
def test_quantile_methods_gradients_match_finite_differences(method, x64):
    check_grads(lambda v: jnp.quantile(v, jnp.array([0.3, 0.5, 0.9]), method=method),
                (jnp.array([3., -1., 4., 1.5, 9., 2.]),), order=1)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("q", [0.375, 0.4, np.float32(0.4), np.array([0.1, 0.5, 0.9], np.float32), [0.3, 0.7]])
def test_numpy_quantiles_of_gm_tensors_are_numpys(method, q):
    """gradmagic (no dialect): np.quantile / np.nanpercentile of a Tensor give NumPy's values
    for each method (positions in q's dtype, as NumPy), a constant Tensor q as a NumPy one,
    and the gradient goes to the elements picked (midpoint: half to each)."""
    data = np.array([[3., -1., 4., 1.5, 9., 2., 0.25], [0.5, np.nan, 7., -3., 2.5, np.nan, 1.]])
    for f, level in ((np.quantile, q), (np.nanpercentile, np.multiply(q, 100))):
        want = f(data, level, axis=1, method=method)
        for given in (level, gm.constant(np.asarray(level))):
            got = f(gm.constant(data), given, axis=1, method=method).numpy()
            assert np.allclose(got, want, rtol=1e-15, atol=0, equal_nan=True), (f.__name__, got, want)
    x = gm.Variable(data[0])  # sorted: -1, 0.25, 1.5 (x[3]), 2 (x[5]), ...; q 0.4 is at 2.4
    with gm.GradientTape() as tape:
        y = np.quantile(x, 0.4, method=method)
    lower = {"linear": 0.6, "lower": 1.0, "higher": 0.0, "nearest": 1.0, "midpoint": 0.5}[method]
    assert np.allclose(tape.gradient(y, x).numpy(), [0, 0, 0, lower, 0, 1 - lower, 0], rtol=1e-12)


# -- 7. smaller gaps ---------------------------------------------------------------------------
S = jnp.array([[1., 3., 2., 3.], [0., -1., 5., -1.]])
SMALL = [  # (call, JAX 0.10.2's value)
    (lambda: jnp.sort(S, descending=True), [[3.0, 3.0, 2.0, 1.0], [5.0, 0.0, -1.0, -1.0]]),
    (lambda: jnp.sort(S, axis=0, descending=True), [[1.0, 3.0, 5.0, 3.0], [0.0, -1.0, 2.0, -1.0]]),
    (lambda: jnp.sort(S, axis=None, descending=True), [5.0, 3.0, 3.0, 2.0, 1.0, 0.0, -1.0, -1.0]),
    (lambda: jnp.argsort(S, descending=True), [[1, 3, 2, 0], [2, 0, 1, 3]]),
    (lambda: jnp.argsort(S, axis=None, descending=True), [6, 1, 3, 2, 0, 4, 5, 7]),
    (lambda: jnp.argsort(S, axis=0, descending=True), [[0, 0, 1, 0], [1, 1, 0, 1]]),
    (lambda: jax.grad(lambda v: (jnp.sort(v, descending=True) * jnp.arange(1., 5.)).sum())(S),
     [[4.0, 2.0, 3.0, 1.0], [2.0, 4.0, 1.0, 3.0]]),
    (lambda: jax.lax.map(lambda r: r * 2, jnp.arange(6.), batch_size=4), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]),
    (lambda: jax.grad(lambda v: jax.lax.map(lambda r: jnp.sin(r) * r, v, batch_size=4).sum())(jnp.arange(5.)),
     [0.0, 1.3817732334136963, 0.07700371742248535, -2.828857421875, -3.3713769912719727]),
    (lambda: [jax.tree_util.all_leaves([1., jnp.ones(2)]), jax.tree_util.all_leaves([1., (2.,)]),
              jax.tree_util.all_leaves([None]),
              jax.tree_util.all_leaves([(1.,), 2.], is_leaf=lambda t: isinstance(t, tuple))],
     [True, False, False, True]),
]


@pytest.mark.parametrize("case", range(len(SMALL)))
def test_smaller_gaps_as_jaxs(case):
    call, want = SMALL[case]
    got = values(call())
    assert same(got, want), f"got {got}, JAX 0.10.2 (CPU) gave {want}"


def test_register_dataclass_as_jaxs():
    """JAX 0.10.2 (CPU): leaves, structure, key paths, grad and tree_map through a registered
    dataclass (with fields given, or as a decorator with static metadata), and its errors."""
    @functools.partial(jax.tree_util.register_dataclass, data_fields=["w", "b"], meta_fields=["name"])
    @dataclasses.dataclass
    class Layer:
        w: jax.Array
        b: jax.Array
        name: str

    @jax.tree_util.register_dataclass
    @dataclasses.dataclass
    class P:
        a: float
        n: int = dataclasses.field(metadata=dict(static=True), default=3)
    layer = Layer(jnp.array([1., 2.]), jnp.array(3.), "l1")
    assert values(jax.tree_util.tree_leaves(layer)) == [[1.0, 2.0], 3.0]
    assert str(jax.tree_util.tree_structure(P(2.))) == "PyTreeDef(CustomNode(P[(3,)], [*]))"
    assert [jax.tree_util.keystr(k) for k, _ in jax.tree_util.tree_flatten_with_path(layer)[0]] == [".w", ".b"]
    g = jax.grad(lambda m: (m.w * m.b).sum())(layer)
    assert (values([g.w, g.b]), g.name) == ([[3.0, 3.0], 3.0], "l1")
    assert jax.tree_util.tree_map(lambda v: v * 2, P(2.)) == P(4.0, 3)
    with pytest.raises(ValueError, match=r"^data_fields and meta_fields must include all dataclass fields with "
                                         r"``init=True`` and only them\. Missing fields: \{'b'\}\. Add them to "
                                         r"drop_fields to suppress this error\.$"):
        jax.tree_util.register_dataclass(dataclasses.make_dataclass("Q", ["a", "b"]), ["a"], [])
    with pytest.raises(TypeError, match=r"^register_dataclass: data_fields and meta_fields are required when "
                                        r"nodetype is not a dataclass\. Got nodetype=<class 'int'>\.$"):
        jax.tree_util.register_dataclass(int)


def test_one_hot_follows_x64(x64):
    """JAX 0.10.2 (CPU) with jax_enable_x64: float64, or the dtype given."""
    assert jax.nn.one_hot(jnp.array([0, 2]), 3).dtype == np.float64
    assert jax.nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.float32).dtype == np.float32
    assert values(jax.nn.one_hot(jnp.array([0, 2]), 3)) == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


def test_one_hot_is_float32_without_x64():
    assert jax.nn.one_hot(jnp.array([0, 2]), 3).dtype == np.float32
