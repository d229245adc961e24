"""NumPy functions made of several ops (np.sort: an argsort and a gather) read as one op in
a trace: one forward row named after the function, one backward row whose local
derivative says what its rules do, their ops folded inside (shown with ``ops=True``), and
the gradient exactly that of the ops, traced or not."""

import numpy as np
import pytest

import gradmagic as gm
from gradmagic.core import context
from gradmagic.core.primitive import Composite

rng = np.random.default_rng(16)
A = rng.standard_normal((3, 3))
S = A @ A.T + 3 * np.eye(3)
v = rng.standard_normal(3)
M = rng.standard_normal((2, 3, 4))
LA = np.linalg

# name, function of Tensors, arguments, the local label of the first input
CASES = [
    ("sort", np.sort, [v], "back to unsorted order"),
    ("partition", lambda a: np.partition(a, 1), [v], "back to unpartitioned order"),
    ("median", np.median, [A], "onto the elements picked"),
    ("percentile", lambda a: np.percentile(a, 30), [A], "onto the elements picked"),
    ("ptp", np.ptp, [A], "[x == max] - [x == min]"),
    ("average", lambda a, w: np.average(a, weights=w), [A, S], "w / sum(w)"),
    ("nansum", np.nansum, [A], "[x not NaN]"),
    ("nanmean", np.nanmean, [A], "[x not NaN] / count"),
    ("nan_to_num", np.nan_to_num, [A], "[x finite]"),
    ("piecewise", lambda a: np.piecewise(a, [a < 0, a >= 0], [lambda x: -x, lambda x: x ** 2]), [A],
     "each piece's rule"),
    ("dstack", lambda a, b: np.dstack([a, b]), [A, S], "slice"),
    ("column_stack", lambda a, b: np.column_stack([a, b]), [v, v[::-1].copy()], "slice"),
    ("append", np.append, [A, S], "slice"),
    ("rot90", np.rot90, [A], "rotate back"),
    ("roll", lambda a: np.roll(a, 1), [A], "roll back"),
    ("repeat", lambda a: np.repeat(a, 2, axis=0), [A], "sum over the repeats"),
    ("tile", lambda a: np.tile(a, 2), [A], "sum over the tiles"),
    ("pad", lambda a: np.pad(a, 1), [A], "crop, padding summed back"),
    ("tensordot", lambda a, b: np.tensordot(a, b, 1), [A, S], "upstream · {1}"),
    ("inner", np.inner, [v, v[::-1].copy()], "upstream · {1}"),
    ("vdot", np.vdot, [A, S], "upstream * {1}"),
    ("kron", np.kron, [A, S], "blocks of upstream · {1}"),
    ("cross", np.cross, [v, v[::-1].copy()], "{1} × upstream"),
    ("trace", np.trace, [A], "identity"),
    ("diagonal", np.diagonal, [A], "onto the diagonal"),
    ("diagflat", np.diagflat, [v], "diagonal taken back"),
    ("matrix_power", lambda a: LA.matrix_power(a, 3), [A], "sum of (A^k).T @ upstream @ (A^(n-1-k)).T"),
    ("multi_dot", lambda a, b: LA.multi_dot([a, b, a]), [A, S], "upstream times the others' product"),
    ("norm", LA.norm, [v], "d norm / dx"),
    ("norm", lambda a: LA.norm(a, "nuc"), [A], "d norm / dx"),
    ("eigh", lambda s: LA.eigh(s)[0], [S], "V (diag(gw) + F * V^T gV) V^T"),
    ("qr", lambda a: LA.qr(a)[1], [A], "(gQ + Q copyltu(R gR^T - gQ^T Q)) R^-T"),
    ("svdvals", LA.svdvals, [A], "U diag(upstream) Vh, U and Vh from the forward's svd"),
    ("linspace", lambda a, b: np.linspace(a, b, 4), [v[0], v[1]], "1 - k / (n - 1)"),
]


def traced_gradient(f, args, **options):
    ts = [gm.Variable(a, name=f"a{i}") for i, a in enumerate(args)]
    with gm.trace(**options) as tr:
        with gm.GradientTape() as tape:
            y = f(*ts)
            loss = np.sum(y * y)
        grads = tape.gradient(loss, ts)
    return tr, [g.numpy() for g in grads]


def untraced_gradient(f, args):
    ts = [gm.Variable(a) for a in args]
    with gm.GradientTape() as tape:
        y = f(*ts)
        loss = np.sum(y * y)
    return [g.numpy() for g in tape.gradient(loss, ts)]


@pytest.mark.parametrize("name, f, args, label", CASES, ids=[c[0] + str(i) for i, c in enumerate(CASES)])
def test_a_composite_is_one_row_each_way_with_its_rule_in_words(name, f, args, label):
    tr, grads = traced_gradient(f, args)
    forward = [r for r in tr.forward if r.node not in ("multiply", "sum", "getitem")]
    assert [r.node for r in forward] == [name]
    assert isinstance(forward[0].source, Composite) and forward[0].kind == "op" and forward[0].note == ""
    (back,) = [r for r in tr.backward if r.node == name]
    assert back.kind == "op" and back.local[0] == label
    assert back.inputs == forward[0].inputs and back.outputs == forward[0].outputs
    assert "{1}" not in back.cells()["local"] or len(args) < 2  # names put in
    for got, want in zip(grads, untraced_gradient(f, args)):  # observing changes nothing
        np.testing.assert_array_equal(got, want)


def test_its_downstream_is_what_its_ops_gave_and_its_upstream_what_came_in():
    x = gm.Variable([3.0, 1.0, 2.0], name="x")
    w = np.array([1.0, 10.0, 100.0])
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = np.sum(np.sort(x) * w)
        g = tape.gradient(y, x)
    (row,) = [r for r in tr.backward if r.node == "sort"]
    np.testing.assert_array_equal(row.upstream[0].value if hasattr(row.upstream[0], "value") else row.upstream[0], w)
    np.testing.assert_array_equal(row.downstream[0], [100.0, 1.0, 10.0])  # unsorted
    np.testing.assert_array_equal(g, [100.0, 1.0, 10.0])
    assert row.cells()["local"] == "x: back to unsorted order"


def test_with_ops_its_ops_show_inside_it():
    x = gm.Variable([3.0, 1.0, 2.0], name="x")
    with gm.trace(ops=True) as tr:
        with gm.GradientTape() as tape:
            y = np.sum(np.roll(x, 1) * 2.0)
        tape.gradient(y, x)
    nodes = [(r.node, r.context) for r in tr.forward]
    assert nodes[0] == ("roll", "") and len(nodes) > 3
    assert all(c.startswith("roll") for _, c in nodes[1:-2]) and nodes[-2:] == [("multiply", ""), ("sum", "")]
    assert ("concatenate", "roll › roll") in nodes  # roll along the flattened axis, inside
    assert "roll" not in [r.node for r in tr.backward]  # each op's own step instead


def test_several_outputs_each_have_their_upstream_and_an_unused_one_says_so():
    a = gm.Variable(np.arange(6.0).reshape(2, 3), name="a")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            p1, p2, p3 = np.hsplit(a, 3)
            y = np.sum(p1 * 2.0) + np.sum(p3)
        g = tape.gradient(y, a)
    (row,) = [r for r in tr.backward if r.node == "hsplit"]
    assert len(row.outputs) == 3 and row.upstream[1] is None
    np.testing.assert_array_equal(row.upstream[0], [[2.0], [2.0]])
    np.testing.assert_array_equal(row.upstream[2], [[1.0], [1.0]])
    assert row.cells()["upstream"] == "[[2], [2]], unused, [[1], [1]]"
    np.testing.assert_array_equal(g, [[2.0, 0.0, 1.0], [2.0, 0.0, 1.0]])


def test_nested_composites_and_composites_inside_a_function_show_once():
    a = gm.Variable(A, name="a")

    @gm.custom_gradient
    def f(x):
        return np.sum(np.sort(x)), lambda up: up * np.ones_like(x)

    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = LA.norm(a, "nuc") + f(a)  # norm -> svdvals -> svd, each a composite
        tape.gradient(y, a)
    assert [r.node for r in tr.forward] == ["norm", "f", "add"]
    assert [r.node for r in tr.backward] == ["add", "f", "norm"]


def test_a_composite_that_gives_its_input_back_has_no_row():
    a = gm.Variable(A, name="a")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = np.sum(np.atleast_2d(a))
        tape.gradient(y, a)
    assert [r.node for r in tr.forward] == ["sum"]


def test_a_composite_that_raises_leaves_its_row_and_nothing_open():
    a = gm.Variable(A, name="a")
    with gm.trace() as tr:
        with pytest.raises(TypeError, match="exponent must be an integer"):
            np.linalg.matrix_power(a, 1.5)
        b = a * 2.0
    assert tr._stack == []
    assert [(r.node, r.note) for r in tr.forward] == [("matrix_power", "raised an exception"), ("multiply", "")]
    assert b.numpy().tolist() == (A * 2).tolist()


def test_untraced_no_listener_hears_a_composite(monkeypatch):
    heard = []

    class Counting(context.Listener):
        def on_composite_enter(self, op, inputs, labels):
            heard.append(op.name)

    x = gm.Variable([3.0, 1.0, 2.0])
    np.sort(x)
    assert heard == []
    listener = Counting()
    context.push(listener)
    try:
        with gm.GradientTape():  # a recording tape is not a listener
            np.sort(x)
    finally:
        context.remove(listener)
    assert heard == ["sort"]
    np.sort(x)
    assert heard == ["sort"]


def test_forward_mode_shows_a_composite_as_one_row_with_its_tangents():
    def f(u):
        return np.sum(np.hsplit(np.roll(u, 1), 3)[0] * 2.0)  # roll is made of a roll itself

    u, du = np.array([3.0, 1.0, 2.0]), np.array([1.0, 0.0, 0.0])
    with gm.trace() as tr:
        value, tangent = gm.jvp(f, (u,), (du,))
    rows = tr.forward_mode
    assert [r.node for r in rows] == ["roll", "hsplit", "multiply", "sum"]
    np.testing.assert_array_equal(rows[0].upstream[0], du)
    np.testing.assert_array_equal(rows[0].downstream[0], np.roll(du, 1))
    assert [np.asarray(t).tolist() for t in rows[1].downstream] == [[0.0], [1.0], [0.0]]
    assert float(tangent) == 0.0 and float(value) == 4.0
    with gm.trace(ops=True) as tr:
        gm.jvp(f, (u,), (du,))
    assert "concatenate" in [r.node for r in tr.forward_mode]  # its ops, with ops=True


def test_forward_mode_shows_an_elementwise_composite_s_local_derivative():
    """Its tangent out over its tangent in, as a function's row shows it: softsign's
    derivative 1 / (1 + |x|)^2; a permutation (sort) has none to show."""
    import gradmagic.tf as tf
    x, dx = np.array([-1.0, 0.5, 3.0]), np.array([1.0, 2.0, 0.5])
    with gm.trace() as tr:
        gm.jvp(lambda u: tf.math.softsign(u), (x,), (dx,))
    row, = tr.forward_mode
    assert row.node == "softsign"
    np.testing.assert_allclose(row.local[0], 1 / (1 + np.abs(x)) ** 2, rtol=1e-12)
    with gm.trace() as tr:
        gm.jvp(np.sort, (x,), (dx,))
    assert tr.forward_mode[0].local == ""


# -- the dialects' functions made of several ops: one row each, named as the user called them --
import gradmagic.jax as jax  # noqa: E402
import gradmagic.jax.numpy as jnp  # noqa: E402
import gradmagic.tf as tf  # noqa: E402
import gradmagic.torch as torch  # noqa: E402
import gradmagic.torch.nn.functional as F  # noqa: E402

X = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.4]])
DIALECT = [  # name, function of a tf.Variable's value, label of the first input (None: numbers)
    ("softmax", lambda x: tf.nn.softmax(x), "softmax * (upstream - sum(upstream * softmax))"),
    ("log_softmax", lambda x: tf.nn.log_softmax(x), "upstream - softmax * sum(upstream)"),
    ("elu", tf.nn.elu, None), ("selu", tf.nn.selu, None), ("leaky_relu", tf.nn.leaky_relu, None),
    ("silu", tf.nn.silu, None), ("relu6", tf.nn.relu6, None), ("softsign", tf.nn.softsign, None),
    ("log_sigmoid", tf.math.log_sigmoid, None),
    ("l2_loss", tf.nn.l2_loss, "t"),
    ("sort", tf.sort, "back to unsorted order"),
    ("top_k", lambda x: tf.math.top_k(x, 2).values, "back to where each value was"),
    ("norm", tf.norm, "d norm / dx"),
    ("cumsum", lambda x: tf.math.cumsum(x, axis=1, exclusive=True, reverse=True), "reverse cumsum"),
    ("clip_by_norm", lambda x: tf.clip_by_norm(x, 1.0), "1 where the norm is under clip_norm, else its projection scaled"),
    ("squared_difference", lambda x: tf.math.squared_difference(x, 1.0), "2 (x - y)"),
]


@pytest.mark.parametrize("name, f, label", DIALECT, ids=[c[0] for c in DIALECT])
def test_a_tf_function_made_of_ops_is_one_row(name, f, label):
    def run(traced):
        x = tf.Variable(X, name="x")
        with (gm.trace() if traced else gm.scope("none")) as tr:
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(f(x) ** 2)
            g = tape.gradient(loss, x)
        return tr, g.numpy()

    tr, g = run(True)
    assert [r.node for r in tr.forward][:-2] == [name]
    (back,) = [r for r in tr.backward if r.node == name]
    if label is None:  # elementwise: the numbers its rules multiplied by
        assert isinstance(back.local[0], np.ndarray) and back.local[0].shape == X.shape
    else:
        assert back.local[0] == label
    np.testing.assert_array_equal(g, run(False)[1])


@pytest.mark.parametrize("name, f", [(n, f) for n, f, label in DIALECT if label is None],
                         ids=[n for n, f, label in DIALECT if label is None])
def test_an_elementwise_composite_shows_its_derivative_where_the_upstream_is_zero(name, f):
    """Its ops' rules run again on an upstream of ones (downstream / upstream is 0 / 0
    there): the local column is the derivative everywhere, no NaN."""
    weights = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]])
    x = tf.constant(X)
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(f(x) * weights)
        tape.gradient(loss, x)
    (back,) = [r for r in tr.backward if r.node == name]
    np.testing.assert_array_equal(back.upstream[0], weights)
    with tf.GradientTape() as tape:  # elementwise: the derivative is the gradient of the sum
        tape.watch(x)
        total = tf.reduce_sum(f(x))
    np.testing.assert_allclose(back.local[0], tape.gradient(total, x).numpy(), rtol=1e-12)
    assert "nan" not in back.cells()["local"]


@pytest.mark.parametrize("name, f", [(n, f) for n, f, label in DIALECT if label is None],
                         ids=[n for n, f, label in DIALECT if label is None])
def test_an_elementwise_composite_shows_its_derivative_where_the_tangent_in_is_zero(name, f):
    """The forward-mode row likewise: tangent out / tangent in is 0 / 0 where the tangent
    in is 0, and the derivative is what its ops' rules give for ones."""
    tangent = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, -1.0]])
    x = tf.constant(X)
    with gm.trace() as tr:
        with tf.autodiff.ForwardAccumulator(x, tf.constant(tangent)) as acc:
            y = f(x)
        jvp = acc.jvp(y)
    (row,) = [r for r in tr.forward_mode if r.node == name]
    np.testing.assert_array_equal(row.upstream[0], tangent)
    with tf.GradientTape() as tape:  # elementwise: the derivative is the gradient of the sum
        tape.watch(x)
        total = tf.reduce_sum(f(x))
    derivative = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(row.local[0], derivative, rtol=1e-12)
    np.testing.assert_allclose(jvp.numpy(), derivative * tangent, rtol=1e-12)
    assert "nan" not in row.cells()["local"]


def test_labels_follow_parameters_however_the_call_passes_them():
    logits = tf.Variable(X, name="logits")
    labels = np.ones_like(X)  # not a Tensor: no input of the row, and no label shifts onto logits
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=labels))
        tape.gradient(loss, logits)
    (back,) = [r for r in tr.backward if r.node == "sigmoid_cross_entropy_with_logits"]
    assert len(back.inputs) == 1 and isinstance(back.local[0], np.ndarray)  # numbers, elementwise
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=tf.constant(labels)))
        tape.gradient(loss, logits)
    (back,) = [r for r in tr.backward if r.node == "softmax_cross_entropy_with_logits"]
    assert back.local == (None, "softmax(logits) sum(labels) - labels")  # labels: in order, no gradient
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(
                logits=logits, labels=np.array([2, 0])))  # labels: an array, so logits is input 0
        tape.gradient(loss, logits)
    (back,) = [r for r in tr.backward if r.node == "sparse_softmax_cross_entropy_with_logits"]
    assert back.local == ("softmax(logits) - one_hot(labels)",)


def test_softmax_has_one_home_for_every_dialect():
    from gradmagic.core import special
    x0 = np.array([0.5, -1.0, 2.0])
    with gm.trace() as tr:
        jax.grad(lambda x: jnp.sum(jax.nn.softmax(x) ** 2))(jnp.array(x0))
        t = torch.tensor(x0, requires_grad=True)
        (F.softmax(t, dim=0) ** 2).sum().backward()
    rows = [r for r in tr.forward if r.node == "softmax"]
    assert len(rows) == 2 and all(r.source is special.softmax.composite for r in rows)
    want = jax.grad(lambda x: jnp.sum(jax.nn.softmax(x) ** 2))(jnp.array(x0))  # JAX: float32
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("call", [lambda a, w: np.average(a, None, w), lambda a, w: np.average(a, weights=w),
                                  lambda a, w: np.average(weights=w, a=a)], ids=["positional", "keyword", "reordered"])
def test_positional_and_keyword_calls_label_alike(call):
    a, w = gm.Variable(A, name="a"), gm.Variable(S, name="w")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = call(a, w)
        tape.gradient(y, [a, w])
    (row,) = [r for r in tr.backward if r.node == "average"]
    assert row.input_names() == ["a", "w"] and row.local == ("w / sum(w)", "(x - average) / sum(w)")


def test_a_variable_shows_the_value_a_composite_read_though_it_changes_later():
    v = gm.Variable([3.0, 1.0, 2.0], name="v")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = np.sum(np.sort(v) * np.arange(3.0))
        g = tape.gradient(y, v)
        v.assign([9.0, 9.0, 9.0])
    rows = [r for r in tr.rows() if r.node == "sort"]
    assert [r.cells()["x"] for r in rows] == ["v=[3, 1, 2]", "v=[3, 1, 2]"]  # forward and backward
    np.testing.assert_array_equal(g, [2.0, 0.0, 1.0])
    with gm.trace() as tr:
        gm.jvp(lambda u: np.sort(u), (np.array([3.0, 1.0, 2.0]),), (np.array([1.0, 0.0, 0.0]),))
    np.testing.assert_array_equal(tr.forward_mode[0].downstream[0], [0.0, 0.0, 1.0])


def test_a_labels_placeholder_names_the_right_operand_when_one_is_a_constant():
    u, c = gm.Variable([1.0, 0.0, 0.0], name="u"), np.array([0.0, 1.0, 0.0])

    def local(f):
        with gm.trace() as tr:
            with gm.GradientTape() as tape:
                y = np.sum(f() ** 2)
            tape.gradient(y, u)
        (row,) = [r for r in tr.backward if r.node == "cross"]
        return row.cells()["local"]

    assert local(lambda: np.cross(u, c)) == "u: b × upstream"  # b: NumPy's name for the constant
    assert local(lambda: np.cross(c, u)) == "u: upstream × a"  # not "upstream × u"
    assert local(lambda: np.cross(u, u * 2)) == "u: (u * 2) × upstream, (u * 2): upstream × u"
