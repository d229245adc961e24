"""NumPy's ndarray methods on Tensors (t.copy(), t.argmax(), t.mT, round(t) ...), np.take,
np.copy, np.matrix_transpose, np.unstack, the integer answers of np.lexsort and
np.nanargmax, the methods of ufuncs (np.add.reduce, np.maximum.accumulate,
np.subtract.outer ...), the keywords where=, initial= and dtype= of the reductions, order
'F'/'A'/'K' of reshape, ravel and flatten, and the errors that name the user's code
(gradmagic/core/methods.py, ufunc_methods.py, reductions.py, dispatch.py, tensor.py).

Values against NumPy's own; gradients against central finite differences (gm.check_grad,
float64 and float32, second order for some) and against literals printed by JAX 0.10.2
(CPU, jax_enable_x64) for the same function written with jax.numpy."""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.errors import GradientTypeError

X = np.array([0.3, -1.2, 2.5, 2.5, 1.0])  # a tie at 2.5
Y = np.array([[0.3, -1.2, 0.7], [1.1, 0.4, -0.6]])
SQ = np.array([[1.5, -0.4, 0.2], [0.3, 2.0, -1.1], [0.9, 0.1, 0.7]])


def agree(f, *args, order=1):
    """f's gradient agrees with central finite differences, in float64 and float32."""
    for dtype in (np.float64, np.float32):
        report = gm.check_grad(f, *[a.astype(dtype) for a in args], order=order)
        assert report, report


def grad(f, x):
    return np.asarray(gm.grad(f)(x))


# -- 1. ndarray methods are their NumPy functions ---------------------------------------------
METHOD_GRADS = [
    ("copy", lambda t: np.sum(t.copy() * t)),
    ("take", lambda t: np.sum(t.take([0, 2, 2], axis=1) ** 2)),
    ("take-flat", lambda t: np.sum(t.take([[5, 0], [1, 1]]) ** 3)),
    ("trace", lambda t: t.trace() ** 2),
    ("trace-offset", lambda t: t.trace(1) * t.trace(-1)),
    ("diagonal", lambda t: np.sum(t.diagonal() ** 2)),
    ("swapaxes", lambda t: np.sum(t.swapaxes(0, 1) * np.arange(9.0).reshape(3, 3))),
    ("mT", lambda t: np.sum(t.mT @ t)),
    ("repeat", lambda t: np.sum(t.repeat(2, axis=0) ** 2)),
    ("repeat-counts", lambda t: np.sum(t.repeat([1, 0, 3], axis=1) ** 2)),
    ("conj", lambda t: np.sum(t.conj() * t.conjugate() * t)),
    ("real-imag", lambda t: np.sum(t.real ** 2 + t.imag)),
    ("reshape-F", lambda t: np.sum(t.reshape(9, order="F") * np.arange(9.0))),
    ("reshape-F-tuple", lambda t: np.sum(t.reshape((1, 9), order="F") ** 2 * np.arange(9.0))),
    ("flatten-F", lambda t: np.sum(t.flatten("F") * np.arange(9.0) ** 2)),
    ("ravel-F", lambda t: np.sum(t.ravel(order="F") * np.arange(9.0))),
]


@pytest.mark.parametrize("f", [pytest.param(f, id=i) for i, f in METHOD_GRADS])
def test_method_gradient_agrees_with_finite_differences(f):
    agree(f, SQ)
    assert np.allclose(np.asarray(f(gm.constant(SQ))), f(SQ))  # NumPy's value on arrays


@pytest.mark.parametrize("f", [pytest.param(f, id=i) for i, f in METHOD_GRADS[:6]])
def test_method_second_derivative_agrees_with_finite_differences(f):
    agree(lambda t: f(t) * np.sum(t ** 2), SQ, order=2)


INTEGER_METHODS = [
    ("argmax", lambda t: t.argmax()), ("argmax-axis", lambda t: t.argmax(axis=1)),
    ("argmin", lambda t: t.argmin(0)), ("argsort", lambda t: t.argsort(axis=0)),
    ("argpartition", lambda t: t.argpartition(1)), ("any", lambda t: t.any()),
    ("all-axis", lambda t: t.all(axis=1)), ("nonzero", lambda t: np.stack(t.nonzero())),
    ("round", lambda t: t.round(1)), ("round-0", lambda t: t.round()),
    ("lexsort", lambda t: np.lexsort(t)), ("nanargmax", lambda t: np.nanargmax(t)),
    ("nanargmin", lambda t: np.nanargmin(t, axis=0)),
]


@pytest.mark.parametrize("f", [pytest.param(f, id=i) for i, f in INTEGER_METHODS])
def test_integer_valued_method_gives_numpys_answer_with_no_gradient(f):
    t = gm.constant(Y)
    with gm.GradientTape() as tape:
        tape.watch(t)
        out = f(t)
    assert np.array_equal(np.asarray(out.numpy() if isinstance(out, gm.Tensor) else out), f(Y))
    assert not isinstance(out, gm.Tensor) or tape.gradient(out, t) is None


def test_round_of_a_tensor():
    assert round(gm.constant(np.float64(2.6))) == 3 and type(round(gm.constant(2.6))) is int
    assert np.array_equal(round(gm.constant(Y), 1).numpy(), np.round(Y, 1))
    assert np.array_equal(round(gm.constant(Y)).numpy(), np.round(Y))


def test_sort_method_refuses_an_in_place_sort():
    with pytest.raises(GradientTypeError, match=r"t\.sort\(\) sorts t in place.*t = np\.sort\(t\)"):
        gm.constant(Y).sort()


def test_methods_on_a_variable():
    v = gm.Variable(Y)
    with gm.GradientTape() as tape:
        y = np.sum(v.copy() * v.mT.T)
    assert np.allclose(tape.gradient(y, v).numpy(), 2 * Y)


def test_dialect_tensors_keep_their_own_vocabulary():
    """A dialect's tensor class defines its own methods; NumPy's that PyTorch lacks are absent
    from gradmagic.torch's tensors, and gradmagic.jax's arrays keep JAX's."""
    import gradmagic.torch as torch
    t = torch.tensor([1.5, 2.5])
    for name in ("copy", "conjugate", "real", "imag"):
        assert not hasattr(t, name)
    with pytest.raises(TypeError, match="doesn't define __round__"):
        round(t)
    assert np.array_equal(t.repeat(2).numpy(), [1.5, 2.5, 1.5, 2.5])  # PyTorch's repeat (a tile)
    assert t.sort().values.tolist() == [1.5, 2.5]
    import gradmagic.jax.numpy as jnp
    assert np.array_equal(np.asarray(jnp.array([1.0, 3.0, 2.0]).sort()), [1.0, 2.0, 3.0])  # JAX's own
    assert hasattr(gm.constant(Y), "copy") and hasattr(gm.Variable(Y), "copy")


# -- 2. np.take, np.copy, np.matrix_transpose, np.unstack ------------------------------------
def test_take_modes_match_jax():
    """JAX 0.10.2: jnp.take(t, [0, 4, 7, -1], mode='wrap') and
    jnp.take(t, [[0, 5], [2, 2]], axis=1, mode='clip')."""
    f = lambda t: np.sum(np.take(t, np.array([0, 4, 7, -1]), mode="wrap") ** 2)
    assert np.isclose(f(gm.constant(Y)).numpy(), 2.05)
    assert np.allclose(grad(f, Y), [[0.6, -2.4, 0.0], [0.0, 0.8, -1.2]])
    g = lambda t: np.sum(np.take(t, np.array([[0, 5], [2, 2]]), axis=1, mode="clip") ** 3)
    assert np.isclose(g(gm.constant(Y)).numpy(), 1.7390000000000003)
    assert np.allclose(grad(g, Y), [[0.27, 0.0, 4.409999999999999], [3.630000000000001, 0.0, 3.24]])
    agree(f, Y)
    agree(g, Y)
    assert np.array_equal(np.take(gm.constant(Y), 4).numpy(), np.take(Y, 4))
    assert np.array_equal(np.take(gm.constant(Y), [True, False], axis=0).numpy(),
                          np.take(Y, [True, False], axis=0))
    with pytest.raises(ValueError, match="clipmode"):
        np.take(gm.constant(Y), [0], mode="bounce")
    with pytest.raises(IndexError):
        np.take(gm.constant(Y), [9])


def test_copy_is_recorded():
    t = gm.constant(Y)
    with gm.GradientTape() as tape:
        tape.watch(t)
        c = np.copy(t)
    assert c is not t and np.array_equal(c.numpy(), Y)
    assert np.array_equal(tape.gradient(c, t).numpy(), np.ones_like(Y))
    agree(lambda t: np.sum(np.copy(t) ** 3), Y, order=2)


def test_matrix_transpose_and_unstack_match_jax():
    """JAX 0.10.2: grad of sum(jnp.matrix_transpose(t) * arange(6).reshape(3, 2)) and of
    sum(jnp.unstack(t, axis=1)[1] * [2, 3])."""
    w = np.arange(6.0).reshape(3, 2)
    for mt in (np.matrix_transpose, np.linalg.matrix_transpose):
        f = lambda t: np.sum(mt(t) * w)
        assert np.isclose(f(gm.constant(Y)).numpy(), -0.2999999999999998)
        assert np.array_equal(grad(f, Y), [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]])
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        np.matrix_transpose(gm.constant(X))
    g = lambda t: np.sum(np.unstack(t, axis=1)[1] * np.array([2.0, 3.0]))
    assert np.array_equal(grad(g, Y), [[0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])
    parts = np.unstack(gm.constant(Y))
    assert isinstance(parts, tuple) and [p.numpy().tolist() for p in parts] == Y.tolist()
    agree(lambda t: np.sum(np.unstack(t, axis=-1)[2] ** 2), Y)


# -- 3. ufunc methods -------------------------------------------------------------------------
UFUNC_METHODS = [  # (id, f, JAX 0.10.2's value, JAX 0.10.2's gradient at X)
    ("add-reduce", lambda t: np.add.reduce(t) ** 2, 26.009999999999998, [10.2] * 5),
    ("multiply-reduce", lambda t: np.multiply.reduce(t), -2.25, [-7.5, 1.875, -0.9, -0.9, -2.25]),
    ("maximum-reduce", lambda t: np.maximum.reduce(t), 2.5, [0.0, 0.0, 0.5, 0.5, 0.0]),
    ("logaddexp-reduce", lambda t: np.logaddexp.reduce(t), 3.3580923235369986,
     [0.0469772271443842, 0.01048203621605561, 0.4239701091440505, 0.4239701091440505,
      0.09460051835145926]),
    ("add-accumulate", lambda t: np.sum(np.add.accumulate(t) ** 2), 46.28, [20.4, 19.8, 21.6, 18.4, 10.2]),
    ("multiply-accumulate", lambda t: np.sum(np.multiply.accumulate(t)), -5.46,
     [-18.2, 4.8, -2.16, -1.7999999999999998, -2.25]),
    ("minimum-accumulate", lambda t: np.sum(np.minimum.accumulate(t) * np.arange(5)), -12.0,
     [0.0, 10.0, 0.0, 0.0, 0.0]),
    ("subtract-outer", lambda t: np.sum(np.subtract.outer(t, t[:3]) ** 2), 67.67,
     [-8.600000000000001, -32.6, 26.6, 11.8, 2.8000000000000007]),
]


@pytest.mark.parametrize("f,value,expected", [pytest.param(f, v, e, id=i) for i, f, v, e in UFUNC_METHODS])
def test_ufunc_method_matches_jax(f, value, expected):
    assert np.isclose(f(gm.constant(X)).numpy(), value)
    assert np.allclose(grad(f, X), expected)


def test_maximum_accumulate_gives_the_gradient_to_the_running_maximum():
    """JAX 0.10.2: jnp.maximum.accumulate([0.3, -1.2, 2.5]) has gradient [2, 0, 1] (of the
    sum); at a tie gradmagic gives it to the first element holding the maximum, as
    np.maximum gives a tie to its first argument (JAX's scan splits it otherwise)."""
    f = lambda t: np.sum(np.maximum.accumulate(t))
    assert np.array_equal(grad(f, X[:3]), [2.0, 0.0, 1.0])
    assert np.array_equal(grad(f, X), [2.0, 0.0, 3.0, 0.0, 0.0])
    # along an axis; JAX 0.10.2: [[1, 0, 2], [3, 0, 0]] for jnp.maximum.accumulate(t, axis=1)
    g = lambda t: np.sum(np.maximum.accumulate(t, axis=1) * np.arange(3.0))
    assert np.isclose(g(gm.constant(Y)).numpy(), 5.0)
    assert np.array_equal(grad(g, Y), [[1.0, 0.0, 2.0], [3.0, 0.0, 0.0]])
    z = np.array([[np.nan, 1.0, 3.0], [0.5, np.nan, 2.0]])
    assert np.array_equal(np.maximum.accumulate(gm.constant(z), axis=1).numpy(),
                          np.maximum.accumulate(z, axis=1), equal_nan=True)
    assert np.array_equal(np.minimum.accumulate(gm.constant(Y), axis=0).numpy(), np.minimum.accumulate(Y, axis=0))
    assert np.array_equal(np.maximum.accumulate(gm.constant(Y), axis=None).numpy(), np.maximum.accumulate(Y.ravel()))


@pytest.mark.parametrize("f", [
    pytest.param(lambda t: np.sum(np.add.reduce(t, axis=1) ** 2), id="add-reduce-axis"),
    pytest.param(lambda t: np.sum(np.multiply.reduce(t, axis=(0, 1), keepdims=True)), id="multiply-reduce"),
    pytest.param(lambda t: np.sum(np.minimum.reduce(t, axis=None)), id="minimum-reduce"),
    pytest.param(lambda t: np.sum(np.logaddexp2.reduce(t, axis=1)), id="logaddexp2-reduce"),
    pytest.param(lambda t: np.sum(np.add.accumulate(t, axis=1) ** 2), id="add-accumulate"),
    pytest.param(lambda t: np.sum(np.multiply.accumulate(t) ** 2), id="multiply-accumulate"),
    pytest.param(lambda t: np.sum(np.maximum.accumulate(t, axis=1) ** 2), id="maximum-accumulate"),
    pytest.param(lambda t: np.sum(np.multiply.outer(t, t[0]) ** 2), id="multiply-outer"),
    pytest.param(lambda t: np.sum(np.hypot.outer(np.arange(2.0), t)), id="hypot-outer-right"),
])
def test_ufunc_method_gradient_agrees_with_finite_differences(f):
    agree(f, Y)
    assert np.allclose(np.asarray(f(gm.constant(Y))), f(Y))


def test_ufunc_method_second_derivative():
    agree(lambda t: np.sum(np.multiply.accumulate(t, axis=1) * np.logaddexp.reduce(t)), Y, order=2)


def test_ufunc_methods_without_a_rule():
    t = gm.constant(Y)
    with gm.GradientTape() as tape:
        tape.watch(t)
        with pytest.raises(gm.NoGradientError, match=r"np\.add\.at .*in place.*custom_gradient"):
            np.add.at(np.zeros(3), [0, 0], t[0])
        with pytest.raises(gm.NoGradientError, match=r"np\.add\.reduceat .*np\.cumsum"):
            np.add.reduceat(t[0], [0, 1])
        with pytest.raises(gm.NoGradientError, match=r"np\.subtract\.accumulate has no gradient rule"):
            np.subtract.accumulate(t)
        mask = np.logical_or.reduce(t > 0, axis=0)  # no gradient to lose: NumPy's own
    assert np.array_equal(mask.numpy(), np.logical_or.reduce(Y > 0, axis=0))
    assert np.array_equal(np.subtract.accumulate(t).numpy(), np.subtract.accumulate(Y))  # unfollowed
    with pytest.raises(gm.NoGradientError, match=r"np\.add\.at\(a, \.\.\.\) with a Tensor a"):
        np.add.at(t, [0], 1.0)


# -- 4. reductions with where=, initial=, dtype= --------------------------------------------
REDUCTIONS = [  # (id, f, JAX 0.10.2's value, JAX 0.10.2's gradient at X)
    ("sum-where", lambda t: np.sum(t ** 2, where=t > 0), 13.59, [0.6, 0.0, 5.0, 5.0, 2.0]),
    ("mean-where", lambda t: np.mean(t ** 2, where=t > 0), 3.3975, [0.15, 0.0, 1.25, 1.25, 0.5]),
    ("max-where-initial", lambda t: np.max(t, where=t < 2, initial=-10.0), 1.0, [0, 0, 0, 0, 1.0]),
    ("prod-where", lambda t: np.prod(t, where=t > 0), 1.875, [6.25, 0.0, 0.75, 0.75, 1.875]),
    ("sum-initial", lambda t: np.sum(t, initial=5.0) ** 2, 102.00999999999999, [20.2] * 5),
    ("method-sum-initial", lambda t: t.sum(initial=5.0) ** 2, 102.00999999999999, [20.2] * 5),
]


@pytest.mark.parametrize("f,value,expected", [pytest.param(f, v, e, id=i) for i, f, v, e in REDUCTIONS])
def test_reduction_keyword_matches_jax(f, value, expected):
    assert np.isclose(f(gm.constant(X)).numpy(), value)
    assert np.allclose(grad(f, X), expected)


def test_mean_where_along_an_axis_matches_jax():
    """JAX 0.10.2: jnp.sum(jnp.mean(jnp.sin(t), axis=1, where=t > 0.4))."""
    f = lambda t: np.sum(np.mean(np.sin(t), axis=1, where=t > 0.4))
    assert np.isclose(f(gm.constant(Y)).numpy(), 1.5354250472991264)
    assert np.allclose(grad(f, Y), [[0, 0, 0.7648421872844885], [0.4535961214255773, 0, 0]])


@pytest.mark.parametrize("f", [
    pytest.param(lambda t: np.sum(np.sum(t ** 2, axis=0, where=[True, False, True], initial=1.0)), id="sum"),
    pytest.param(lambda t: np.sum(np.mean(t ** 3, axis=1, keepdims=True, where=t > -1)), id="mean"),
    pytest.param(lambda t: np.sum(np.prod(t, axis=1, where=t > 0, initial=2.0)), id="prod"),
    pytest.param(lambda t: np.sum(np.max(t, axis=0, where=t < 1, initial=-5.0)), id="max"),
    pytest.param(lambda t: np.sum(np.min(t, axis=1, initial=0.0)), id="min-initial"),
    pytest.param(lambda t: np.sum(np.amin(t, axis=1, where=t > -1, initial=9.0)), id="amin"),
    pytest.param(lambda t: t.mean(axis=0, where=t > 0).sum() + t.max(1, initial=0.5).sum(), id="methods"),
    pytest.param(lambda t: np.sum(t ** 2, dtype=np.float64), id="sum-dtype"),
    pytest.param(lambda t: np.mean(t ** 2, axis=0, dtype=np.float64).sum(), id="mean-dtype"),
    pytest.param(lambda t: np.prod(t, dtype=np.float64), id="prod-dtype"),
])
def test_reduction_keyword_gradient_agrees_with_finite_differences(f):
    agree(f, Y)
    with np.errstate(invalid="ignore"):
        assert np.allclose(np.asarray(f(gm.constant(Y))), f(Y))


def test_reduction_keyword_second_derivative():
    agree(lambda t: np.mean(t ** 3, where=t > 0) * np.sum(t ** 2, where=t < 1, initial=1.0), Y, order=2)


def test_reduction_keyword_forms():
    t = gm.constant(Y.astype(np.float32))
    assert np.sum(t, dtype=np.float64).dtype == np.float64 == np.mean(t, dtype=np.float64).dtype
    assert gm.grad(lambda t: np.sum(t, dtype=np.float64))(Y.astype(np.float32)).dtype == np.float32
    assert np.isnan(np.mean(gm.constant(X), where=X > 9).numpy())  # none kept: NaN, as NumPy's
    assert np.array_equal(np.max(gm.constant(np.zeros((0, 2))), axis=0, initial=3.0).numpy(), [3.0, 3.0])
    ints = gm.constant(np.array([[3, 1], [2, 5]]))
    assert np.array_equal(np.max(ints, axis=1, where=np.array([[False, True], [True, False]]), initial=0).numpy(),
                          [1, 2])
    assert np.mean(ints, where=np.array([[True, False], [True, True]])).numpy() == np.mean(
        [[3, 1], [2, 5]], where=[[True, False], [True, True]])
    with pytest.raises(ValueError, match="does not have an identity"):
        np.max(gm.constant(Y), where=Y > 0)


# -- 5. order F, A and K ----------------------------------------------------------------------
def test_order_f_matches_jax():
    """JAX 0.10.2: grad of sum(jnp.reshape(t, (3, 2), order='F') * arange(6).reshape(3, 2)) and
    of sum(jnp.ravel(t, order='F') * arange(6) ** 2)."""
    f = lambda t: np.sum(np.reshape(t, (3, 2), order="F") * np.arange(6.0).reshape(3, 2))
    assert np.isclose(f(gm.constant(Y)).numpy(), -3.1000000000000005)
    assert np.array_equal(grad(f, Y), [[0.0, 4.0, 3.0], [2.0, 1.0, 5.0]])
    g = lambda t: np.sum(np.ravel(t, order="F") * np.arange(6.0) ** 2)
    assert np.isclose(g(gm.constant(Y)).numpy(), -3.9000000000000004)
    assert np.array_equal(grad(g, Y), [[0.0, 4.0, 16.0], [1.0, 9.0, 25.0]])
    agree(f, Y, order=2)


@pytest.mark.parametrize("make", [
    pytest.param(lambda a: a, id="C"), pytest.param(lambda a: a.T, id="F"),
    pytest.param(lambda a: a[:, ::-1], id="negative-strides"),
    pytest.param(lambda a: a.reshape(2, 3, 4).transpose(1, 0, 2).reshape(3, 2, 4)[..., ::2], id="strided"),
])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_ravel_reshape_and_flatten_orders_give_numpys_values(make, order):
    a = make(np.arange(24.0).reshape(4, 6))
    t = gm.Tensor(a)  # the value's own layout, as NumPy reads it for 'A' and 'K'
    assert np.array_equal(np.ravel(t, order=order).numpy(), np.ravel(a, order=order))
    assert np.array_equal(t.flatten(order).numpy(), a.flatten(order))
    assert np.array_equal(t.ravel(order).numpy(), a.ravel(order))
    if order != "K":
        shape = (a.size // 2, -1)
        assert np.array_equal(np.reshape(t, shape, order=order).numpy(), np.reshape(a, shape, order=order))
        assert np.array_equal(t.reshape(*shape, order=order).numpy(), a.reshape(*shape, order=order))


def test_bad_orders_are_numpys_errors():
    t = gm.constant(Y)
    with pytest.raises(ValueError, match="'K' is not permitted for reshaping"):
        np.reshape(t, (6,), order="K")
    with pytest.raises(ValueError, match=r"order must be one of .*'X'"):
        t.flatten("X")


# -- 6. errors in the words of the user's code ------------------------------------------------
def test_augmented_assignment_into_an_array_names_the_operator():
    def loss(x):
        s = np.zeros(3)
        for i in range(2):
            s += x[i]
        return np.sum(s ** 2)
    with pytest.raises(gm.NoGradientError, match=r"s \+= t, where s is a NumPy array .*Write s = s \+ t") as info:
        gm.grad(loss)(np.ones((2, 3)))
    assert "out=" not in str(info.value)

    def scaled(x):
        s = np.ones(3)
        s *= x[0]
        return np.sum(s)
    with pytest.raises(gm.NoGradientError, match=r"s \*= t.*s = s \* t"):
        gm.grad(scaled)(np.ones((2, 3)))
    with pytest.raises(gm.NoGradientError, match=r"np\.exp\(out=\.\.\.\)"):  # an out= the user wrote
        gm.grad(lambda x: np.sum(np.exp(x, out=np.empty(3))))(np.ones(3))


def test_item_assignment_into_an_array_is_named():
    def f(t):
        b = np.zeros(5)
        b[1:3] = t
        return np.sum(b)
    with pytest.raises(GradientTypeError, match=r"b\[i\] = t, an item assignment into a NumPy array.*np\.where"):
        gm.grad(f)(np.ones(2))


def test_a_list_of_tensors_given_to_a_numpy_function_names_it():
    with pytest.raises(GradientTypeError, match=r"np\.sum, given a list or tuple of Tensors.*np\.stack"):
        gm.grad(lambda t: np.sum([t[0], t[1]]))(np.ones(2))
    with pytest.raises(GradientTypeError, match=r"np\.mean, given a list"):
        gm.grad(lambda t: np.mean([t[0], t[1]]))(np.ones(2))
    with pytest.raises(GradientTypeError, match=r"np\.array / np\.asarray"):
        gm.grad(lambda t: np.asarray(t).sum())(np.ones(2))


def test_ndarray_clip_with_tensor_bounds():
    f = lambda t: np.sum(np.array([0.0, 1.0, 3.0]).clip(t[0], t[1]))
    assert np.array_equal(grad(f, np.array([0.5, 2.0])), [1.0, 1.0])
