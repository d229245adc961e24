"""The pitfall findings of sweep 3 (a false alarm at a kink, functions made in a loop, a
masked where over values already NaN, None gradients explained by their real cause, a fix
that works when followed, and a checker that warns nothing on the user's stderr)."""

import re
import warnings

import numpy as np

import gradmagic as gm


def kinds(tr):
    return [p.kind for p in tr.pitfalls]


def notes(tr, kind):
    return [p for p in tr.pitfalls if p.kind == kind]


# -- A1: a correct custom gradient at a kink of its body is not a mistake -------------------------
@gm.custom_gradient
def log1pexp(x):
    e = np.exp(-np.abs(x))

    def grad_fn(upstream):
        return upstream * np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return np.maximum(x, 0) + np.log1p(e), grad_fn


@gm.custom_gradient
def softplus_wrong(x):
    def grad_fn(upstream):
        return upstream * 0.3 + 0 * x
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x))), grad_fn


@gm.custom_gradient
def softplus_where(x):
    def grad_fn(upstream):
        return upstream / (1 + np.exp(-x))
    return np.where(x >= 0, x, 0.0) + np.log1p(np.exp(-np.abs(x))), grad_fn


def tape_sum(f, values, weights=None):
    x = gm.constant(values)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = f(x) if weights is None else f(x) * gm.constant(weights)
        y = np.sum(y)
    return tape.gradient(y, x)


def test_a_smooth_function_written_with_kink_ops_is_checked_at_the_kink():
    with gm.trace(check=True) as tr:
        g = tape_sum(log1pexp, [100.0, 0.0, -3.0, 1.5])
    assert abs(float(g.numpy()[1]) - 0.5) < 1e-6
    assert tr.pitfalls == []


def test_the_tf_stable_softplus_at_zeros_is_silent():
    import gradmagic.tf as tf

    @tf.custom_gradient
    def softplus(x):
        def grad(upstream):
            return upstream * tf.sigmoid(x)
        return tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x))), grad
    x = tf.Variable(tf.zeros([3]))
    with gm.trace(check=True) as tr:
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(softplus(x) * tf.constant([1.0, 2.0, 3.0]))
        g = tape.gradient(loss, x)
    assert g.numpy().tolist() == [0.5, 1.0, 1.5]
    assert tr.pitfalls == []


def test_a_where_kink_is_confirmed_by_running_the_forward_again():
    with gm.trace(check=True) as tr:
        tape_sum(softplus_where, [0.0, 0.0, 1.0], [1.0, 2.0, 3.0])
    assert tr.pitfalls == []


def test_a_wrong_gradient_at_a_kink_is_still_wrong_with_the_true_derivative():
    with gm.trace(check=True) as tr:
        tape_sum(softplus_wrong, [0.0, 0.0, 1.0], [1.0, 2.0, 3.0])
    (note,) = notes(tr, "wrong-derivative")
    assert note.row.node == "softplus_wrong" and note.row.index == 3
    assert "central differences of its forward where an op of it sits on a kink" in note.message
    assert "at x[0] = 0 with upstream 1, grad_fn gave 0.3 where the derivative is 0.5" in note.message


def test_relu_subgradient_at_zero_stays_silent():
    @gm.custom_gradient
    def relu(x):
        def grad_fn(upstream):
            return upstream * (x > 0)
        return np.maximum(x, 0), grad_fn
    with gm.trace(check=True) as tr:
        tape_sum(relu, [-1.0, 0.0, 2.0, 0.0])
    assert tr.pitfalls == []


# -- A2: functions made in a loop are each checked ---------------------------------------------------
def test_functions_made_in_a_loop_are_each_checked():
    layers = []
    for s in [2.0, 5.0, 3.0]:
        @gm.custom_gradient
        def scale(x, c=s):
            def grad_fn(upstream):
                return upstream * 3.0      # right for c = 3 only
            return c * x, grad_fn
        layers.append(scale)
    x = gm.constant([1.0, 2.0])
    with gm.trace(check=True) as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(layers[2](x)) + np.sum(layers[0](x ** 2))
        tape.gradient(y, x)
    (note,) = notes(tr, "wrong-derivative")
    assert note.row.node == "scale" and note.row.index == 3
    assert "1.5 times the derivative everywhere" in note.message


def test_closures_of_one_definition_with_the_same_settings_are_checked_once(monkeypatch):
    from gradmagic.debug import findings
    reviewed = []

    class Counted(findings.Review):
        def __init__(self, trace, row):
            reviewed.append(row.source.name)
            super().__init__(trace, row)
    monkeypatch.setattr(findings, "Review", Counted)

    def layer(x, w):
        @gm.custom_gradient
        def mul(x):
            return x * w, lambda u: u * w
        return mul(x)
    with gm.trace(check=True) as tr:
        for _ in range(5):
            tape_sum(lambda x: layer(x, gm.constant([2.0, 3.0])), [1.0, 2.0])
    assert tr.pitfalls == [] and reviewed == ["mul"]


# -- A3 and A6: a masked where over values already NaN, and a fix that works ------------------------
def run_fix(code, **names):
    env = dict(np=np, **names)
    return eval(code, env)


def test_masked_where_over_nan_branch_is_reported_with_a_fix_that_works():
    x = gm.constant([2.0, 0.0, -1.0, 0.5])
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(np.where(x > 0, x * np.log(x), 0.0))
        g = tape.gradient(y, x)
    assert np.isnan(g.numpy()).any()
    (note,) = notes(tr, "masked-where")
    assert note.row.node == "multiply" and note.row.index == 3
    code = note.message.split("`")[1]
    assert code == "np.where(condition, x * np.log(np.where(condition, x, 1.0)), 0.0)"
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(run_fix(code, x=x, condition=x > 0))
    assert np.isfinite(tape.gradient(y, x).numpy()).all()


def test_the_entropy_fix_puts_the_where_at_the_input_of_log():
    import gradmagic.tf as tf
    p = tf.constant([0.5, 0.0, 0.25, 0.25])
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            tape.watch(p)
            ent = -tf.reduce_sum(tf.where(p > 0, p * tf.math.log(p), 0.0))
        tape.gradient(ent, p)
    (note,) = notes(tr, "masked-where")
    assert note.row.node == "multiply" and note.row.index == 4
    code = note.message.split("`")[1]
    assert code == "np.where(condition, p * np.log(np.where(condition, p, 1.0)), 0.0)"
    with tf.GradientTape() as tape:
        tape.watch(p)
        ent = -tf.reduce_sum(run_fix(code, p=p, condition=p > 0))
    assert np.allclose(tape.gradient(ent, p).numpy(), [-0.3069, 0.0, 0.3863, 0.3863], atol=1e-3)


def test_a_safe_where_and_a_nan_forward_outside_a_where_stay_silent():
    x = gm.constant([2.0, 0.0, -1.0])
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            safe = np.where(x > 0, x, 1.0)
            y = np.sum(np.where(x > 0, safe * np.log(safe), 0.0))
        assert np.isfinite(tape.gradient(y, x).numpy()).all()
    assert tr.pitfalls == []


# -- A4 and A5: None gradients by their real cause -----------------------------------------------------
def none_note(tr):
    (note,) = notes(tr, "none-gradient")
    return note.message


def test_none_through_stop_gradient_of_a_variable_names_the_copy():
    w = gm.Variable([0.5, -0.2])
    X = np.array([[1.0, 2.0], [3.0, 1.0]], dtype=np.float32)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            loss = np.mean((X @ gm.stop_gradient(w)) ** 2)
        assert tape.gradient(loss, w) is None
    msg = none_note(tr)
    assert "was not used" not in msg
    assert "depends on w only through a copy made without its history" in msg


def test_none_through_numpy_of_a_tf_variable_names_the_detour():
    import gradmagic.tf as tf
    x = tf.Variable([1.0, 2.0])
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            h = tf.constant(np.tanh(x.numpy()))
            loss = tf.reduce_sum(h ** 2)
        assert tape.gradient(loss, x) is None
    msg = none_note(tr)
    assert "was not used" not in msg and "x.numpy()" in msg


def test_none_through_round_names_the_step_function():
    w = gm.Variable([0.3, 1.7, -0.6])
    target = gm.constant([0.25, 1.5, -0.5])
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            q = np.round(w * 4) / 4
            loss = np.sum((q - target) ** 2)
        assert tape.gradient(loss, w) is None
    msg = none_note(tr)
    assert "outside the tape's with block" not in msg
    assert "np.round" in msg and "piecewise constant" in msg
    assert "x + gm.stop_gradient(np.round(x) - x)" in msg


def test_a_replaced_variable_fix_is_python_in_the_users_name():
    import gradmagic.tf as tf
    w = tf.Variable(1.0)
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            loss = (w * 2 - 1) ** 2
        g = tape.gradient(loss, w)
        w = w - 0.1 * g
        with tf.GradientTape() as tape:
            loss = (w * 2 - 1) ** 2
        assert tape.gradient(loss, w) is None
    msg = none_note(tr)
    assert "(w.assign_sub(lr * grad))" in msg and "Variable:0" not in msg


# -- B1: the checker prints no RuntimeWarning -----------------------------------------------------------
def test_check_prints_no_runtime_warning(recwarn):
    import gradmagic.tf as tf

    @tf.custom_gradient
    def log1pexp_bad(x):
        e = tf.exp(x)

        def grad(upstream):
            return 1 - 1 / (1 + e)
        return tf.math.log(1 + e), grad
    x = tf.constant([0.0, 2.0, 100.0])
    warnings.simplefilter("always")
    with gm.trace(check=True) as tr:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(log1pexp_bad(x) ** 2)
        tape.gradient(y, x)
    before = [str(w.message) for w in recwarn]
    messages = [p.message for p in tr.pitfalls]
    tr.to_text()
    after = [str(w.message) for w in recwarn]
    assert "upstream-ignored" in kinds(tr) and "nan-origin" in kinds(tr)
    assert after == before and not any("check" in m for m in after)
    # C3: the input is inf from the forward pass, not a finite input
    (nan,) = [m for p, m in zip(tr.pitfalls, messages) if p.kind == "nan-origin"]
    assert "finite inputs" not in nan and "already inf from the forward pass" in nan


# -- C1: a local derivative only for an elementwise function ------------------------------------------
def test_no_elementwise_local_for_a_matmul():
    @gm.custom_gradient
    def matmul(a, b):
        def grad_fn(g):
            return g @ b, a.T @ g        # MISTAKE: g @ b.T
        return a @ b, grad_fn
    a = gm.constant([[1.0, 2.0], [3.0, 4.0]])
    b = gm.constant([[0.5, -1.0], [2.0, 0.25]])
    with gm.trace(check=True) as tr:
        with gm.GradientTape() as tape:
            tape.watch(a)
            y = np.sum(np.sin(matmul(a, b)))
        tape.gradient(y, a)
    (note,) = notes(tr, "wrong-derivative")
    assert "for a:" in note.message
    assert "local" not in note.message


# -- C2 and C6: a deterministic Function overflowing, inf / inf ----------------------------------------
def test_torch_overflow_is_not_called_random_and_inf_over_inf_is_named():
    import gradmagic.torch as torch

    class Softplus(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            e = torch.exp(x)
            ctx.save_for_backward(e)
            return torch.log(1 + e)

        @staticmethod
        def backward(ctx, g):
            e, = ctx.saved_tensors
            return g * e / (1 + e)                 # inf / inf at x = 100
    x = torch.tensor([1.0, 100.0], requires_grad=True)
    with gm.trace(check=True) as tr:
        Softplus.apply(x).sum().backward()
    assert "not-checked" not in kinds(tr)
    (note,) = notes(tr, "nan-origin")
    assert "inf / inf" in note.message and "away from 0" not in note.message
    assert "torch.sigmoid(x)" in note.message
    assert not re.search(r"  ", note.message)  # the quoted line, its spaces collapsed


# -- jax: the rule by its own name ---------------------------------------------------------------------
def test_jax_jvp_rule_is_named():
    import gradmagic.jax as jax
    import gradmagic.jax.numpy as jnp

    @jax.custom_jvp
    def f(x):
        return jnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        x, = primals
        t, = tangents
        return f(x), jnp.sin(x) * t
    with gm.trace(check=True) as tr:
        jax.grad(lambda x: jnp.sum(f(x) ** 2))(jnp.array([0.5, 1.0, 2.0]))
    (note,) = notes(tr, "wrong-derivative")
    assert "Fix the formula in f_jvp, its JVP rule" in note.message
