"""Pitfall detectors: each flags the buggy programs (message checked) and stays quiet on
correct ones; check_grad catches a wrong rule in every category of op."""

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf
from gradmagic import ops


def traced(fn, check=True):
    with gm.trace(check=check) as tr:
        fn()
    return tr


def kinds(tr):
    return [p.kind for p in tr.pitfalls]


def tape_grad(f, *values, **kw):
    xs = [gm.constant(v) for v in values]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return tape.gradient(y, xs, **kw)


# -- programs that are right: no pitfall, even with check=True ------------------------------
@gm.custom_gradient
def square(x):
    return x ** 2, lambda upstream: upstream * 2 * x


@gm.custom_gradient
def log1pexp(x):
    e = np.exp(x)
    return np.log(1 + e), lambda upstream: upstream * (1 - 1 / (1 + e))


@gm.custom_gradient
def scaled(x, w):
    return x * w, lambda up: (up * w, np.sum(up * x, axis=0))


w_var = gm.Variable(np.array([0.5, -1.5, 2.0]), name="w")


@gm.custom_gradient
def uses_variable(x):
    def grad_fn(up, variables=None):
        return up * w_var, [np.sum(up * x, axis=0)]
    return x * w_var, grad_fn


@gm.custom_gradient
def cube_fused(x):
    x_grad = 3 * x ** 2

    def first(dy):
        @gm.custom_gradient
        def first_order(x_):
            return x_grad, lambda ddy: ddy * 6 * x
        return dy * first_order(x)
    return x ** 3, first


def second_order(f, x0, upstream=None):
    x = gm.constant(np.float64(x0))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = f(x)
        g = inner.gradient(y, x, output_gradients=None if upstream is None else upstream(x))
    return outer.gradient(g, x)


CORRECT = {
    "seed-chain": lambda: tape_grad(lambda x: square(square(square(x))), 2.0),
    "log1pexp-custom-at-100": lambda: tape_grad(log1pexp, np.float32(100.0)),
    "softplus-at-100": lambda: tape_grad(gm.softplus, np.float32(100.0)),
    "broadcast-two-inputs": lambda: tape_grad(lambda x, w: np.sum(scaled(x, w) ** 2),
                                              np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])),
    "variable": lambda: tape_grad(lambda x: np.sum(uses_variable(x)), np.ones((4, 3))),
    "mlp": lambda: tape_grad(lambda W, b: np.mean(np.tanh(np.ones((5, 3)) @ W + b) ** 2),
                             np.full((3, 2), 0.1), np.zeros(2)),
    "safe-where": lambda: tape_grad(lambda x: np.sum(np.where(x > 0, np.sqrt(np.where(x > 0, x, 1.0)), 0.0)),
                                    np.array([-1.0, 0.0, 4.0])),
    "fused-nesting": lambda: second_order(cube_fused, 2.0, upstream=lambda x: x * 1.0),
    "plain-nested-tapes": lambda: second_order(lambda x: np.sin(x) * x, 0.7),
}


@pytest.mark.parametrize("program", list(CORRECT.values()), ids=list(CORRECT))
def test_correct_programs_have_no_pitfalls(program):
    tr = traced(program, check=True)
    assert tr.pitfalls == [], [p.message for p in tr.pitfalls]


# -- 1. upstream ignored --------------------------------------------------------------------
def forgot_upstream_chain():
    @tf.custom_gradient
    def foo(x):
        return x ** 2, lambda upstream: 2 * x  # forgot * upstream
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = foo(foo(foo(x)))
    return tape.gradient(y, x)


def test_upstream_ignored_in_the_seed_chain():
    tr = traced(forgot_upstream_chain)
    found = [p for p in tr.pitfalls if p.kind == "upstream-ignored"]
    # one review per function and input shape: the call whose body the trace kept (the first)
    assert [p.row.index for p in found] == [3]
    assert ("foo's grad_fn does not multiply by its upstream gradient: for x it passed 4 downstream "
            "for an upstream of 8, and the same for upstream × 2 and for upstream 0; with the "
            "upstream multiplied in (upstream × local) it would pass 32") in found[0].message
    assert "Fix: `return upstream * (2 * x)`." in found[0].message  # from the user's grad_fn
    assert "wrong-derivative" not in kinds(tr)  # the ignored upstream explains it
    # the rows whose local is worked back from this grad_fn's answers say so
    assert [r.note for r in tr.backward[:2]] == [
        "foo's grad_fn is wrong (see the note under row #3): local and downstream here are what it "
        "gave, not foo's derivative"] * 2
    assert tr.backward[2].note.startswith("local: what foo's grad_fn returns for an upstream of ones")


def test_upstream_ignored_with_arrays_and_two_inputs():
    @gm.custom_gradient
    def mul(x, y):
        return x * y, lambda up: (y, up * x)  # x's gradient forgets up
    tr = traced(lambda: tape_grad(lambda x, y: np.sum(3.0 * mul(x, y)), np.ones(3), np.arange(3.0)))
    found = [p for p in tr.pitfalls if p.kind == "upstream-ignored"]
    assert len(found) == 1 and "for x it passed [0, 1, 2] downstream" in found[0].message


def test_upstream_ignored_needs_check_true():
    tr = traced(forgot_upstream_chain, check=False)
    assert "upstream-ignored" not in kinds(tr)


# -- 2. wrong derivative -----------------------------------------------------------------------
def test_wrong_derivative_localised_to_the_node():
    @gm.custom_gradient
    def good(x):
        return np.sin(x), lambda up: up * np.cos(x)

    @gm.custom_gradient
    def bad(x):
        return x ** 3, lambda up: up * 2 * x ** 2  # should be 3x^2

    tr = traced(lambda: tape_grad(lambda x: good(bad(good(x))), 0.5))
    found = [p for p in tr.pitfalls if p.kind == "wrong-derivative"]
    assert [p.row.node for p in found] == ["bad"]
    assert "bad's custom gradient disagrees with the derivative of its own forward function" in found[0].message


def test_wrong_derivative_with_arrays_float32():
    @gm.custom_gradient
    def softsign(x):
        return x / (1 + np.abs(x)), lambda up: up / (1 + np.abs(x))  # missing a square
    tr = traced(lambda: tape_grad(lambda x: np.sum(softsign(x)), np.linspace(-2, 2, 5).astype(np.float32)))
    found = [p for p in tr.pitfalls if p.kind == "wrong-derivative"]
    assert len(found) == 1
    assert ("for x: at x[0] = -2 with upstream 1, grad_fn gave 0.3333 where the derivative is "
            "0.1111; 4 of 5 elements differ") in found[0].message


# -- 3. nested custom gradients ------------------------------------------------------------------
@gm.custom_gradient
def cube_nested(x):
    @gm.custom_gradient
    def grad_fn(dy):
        return dy * 3 * x ** 2, lambda ddy: ddy * 3 * x ** 2
    return x ** 3, grad_fn


def test_nested_custom_gradient_is_not_the_second_derivative():
    tr = traced(lambda: second_order(cube_nested, 2.0, upstream=lambda x: x * 1.0))
    found = [p for p in tr.pitfalls if p.kind == "nested-not-second-derivative"]
    assert len(found) == 1
    msg = found[0].message
    assert msg.startswith("cube_nested's grad_fn is itself a custom gradient (nested in cube_nested)")
    assert "x, which grad_fn captures from cube_nested's scope, got no gradient" in msg
    assert "The second derivative came out 12; with the missing term it is 36." in msg
    assert "def first_order(x):" in msg


def test_nested_with_a_constant_upstream_is_right_and_quiet():
    tr = traced(lambda: second_order(cube_nested, 2.0))
    assert tr.pitfalls == []


# -- 4. NaN born in the backward pass ------------------------------------------------------------
@pytest.mark.parametrize("dtype,x0,threshold", [(np.float32, 100.0, "88.7"), (np.float64, 800.0, "709.8")],
                         ids=["float32", "float64"])
def test_nan_origin_names_exp_overflow(dtype, x0, threshold):
    tr = traced(lambda: tape_grad(lambda x: np.log(1 + np.exp(x)), dtype(x0)), check=False)
    found = [p for p in tr.pitfalls if p.kind == "nan-origin"]
    assert len(found) == 1 and found[0].row.node == "exp"
    msg = found[0].message
    assert f"above log(max {np.dtype(dtype).name}) ≈ {threshold}" in msg
    assert "0 * inf = NaN" in msg and "gm.softplus" in msg and "upstream 0, local inf, downstream nan" in msg


def test_nan_origin_log_of_zero():
    tr = traced(lambda: tape_grad(lambda x: np.sum(np.log(x) * 0 + x), np.array([0.0, 1.0])), check=False)
    found = [p for p in tr.pitfalls if p.kind == "nan-origin"]
    assert len(found) == 1 and "log(0)" in found[0].message


def test_nan_in_the_forward_is_not_blamed_on_the_backward():
    tr = traced(lambda: tape_grad(lambda x: np.sum(np.sqrt(x)), np.array([-1.0, 4.0])), check=False)
    assert "nan-origin" not in kinds(tr)


# -- 5. masked where ------------------------------------------------------------------------------
def test_masked_where_names_the_branch_and_the_fix():
    tr = traced(lambda: tape_grad(lambda x: np.sum(np.where(x > 0, np.sqrt(x), 0.0)),
                                  np.array([-1.0, 0.0, 4.0])), check=False)
    found = [p for p in tr.pitfalls if p.kind == "masked-where"]
    assert len(found) == 1 and found[0].row.node == "sqrt"
    assert "`np.where(condition, np.sqrt(np.where(condition, x, 1.0)), 0.0)`" in found[0].message
    assert "nan-origin" not in kinds(tr)


# -- 6. why is this gradient None? ------------------------------------------------------------------
def none_reason(build):
    with gm.trace() as tr:
        build()
    found = [p for p in tr.pitfalls if p.kind == "none-gradient"]
    assert len(found) == 1, [p.message for p in tr.pitfalls]
    return found[0].message


def test_none_never_watched():
    def build():
        x = gm.constant(2.0)
        with gm.GradientTape() as tape:
            y = x * x
        assert tape.gradient(y, x) is None
    assert "x was never watched" in none_reason(build) and "tape.watch(x)" in none_reason(build)


def test_none_integer_dtype():
    def build():
        n = gm.constant(3)
        with gm.GradientTape() as tape:
            with pytest.warns(UserWarning):
                tape.watch(n)
            y = n * 2
        with pytest.warns(UserWarning):
            assert tape.gradient(y, n) is None
    assert "n has dtype int32" in none_reason(build)


def test_none_stop_gradient():
    def build():
        x = gm.constant(2.0)
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = gm.stop_gradient(x) * 3.0
        assert tape.gradient(y, x) is None
    assert "only through a copy made without its history" in none_reason(build)


def test_none_numpy_detour():
    def build():
        x = gm.constant(np.array([1.0, 2.0]))
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(gm.constant(np.exp(x.numpy())))
        assert tape.gradient(y, x) is None
    msg = none_reason(build)
    assert "y" in msg and ("copy" in msg or "not recorded" in msg)


def test_none_stop_recording():
    def build():
        x = gm.constant(2.0)
        with gm.GradientTape() as tape:
            tape.watch(x)
            with tape.stop_recording():
                y = x * 3.0
            z = y + 1.0
        assert tape.gradient(z, x) is None
    msg = none_reason(build)
    assert "z was not recorded" in msg or "stop_recording" in msg


def test_none_variable_replaced_by_a_tensor():
    def build():
        w = gm.Variable(1.0, name="w")
        w = w - 0.1 * 2.0  # now a Tensor
        with gm.GradientTape() as tape:
            loss = w * w
        assert tape.gradient(loss, w) is None
    msg = none_reason(build)
    assert "w is no longer the Variable 'w'" in msg and "assign_sub" in msg


def test_none_target_outside_the_tape():
    def build():
        x = gm.constant(2.0)
        with gm.GradientTape() as tape:
            tape.watch(x)
        y = x * x
        assert tape.gradient(y, x) is None
    assert "y was not recorded by this tape" in none_reason(build)


# -- 7. contract errors at their row -----------------------------------------------------------------
def test_contract_error_is_shown_at_its_row():
    @gm.custom_gradient
    def shape_bug(x):
        return x * 2, lambda up: np.ones(5)
    x = gm.constant(1.0)
    with pytest.raises(ValueError, match="shape"):
        with gm.trace() as tr:
            with gm.GradientTape() as tape:
                tape.watch(x)
                y = shape_bug(x)
            tape.gradient(y, x)
    row = tr.backward[-1]
    assert row.node == "shape_bug" and row.pitfalls[0].kind == "contract"
    assert "grad_fn returned a gradient of shape (5,)" in row.pitfalls[0].message
    assert "! contract" in tr.to_text()


# -- check_grad -------------------------------------------------------------------------------------
def test_check_grad_passes_every_category_of_builtin_rule():
    x = np.linspace(0.2, 1.4, 6).reshape(2, 3)
    w = np.linspace(-1, 1, 12).reshape(3, 4)
    report = gm.check_grad(lambda x, w: np.sum(np.tanh(x) @ w * np.exp(x[:, :1]) + np.max(x, axis=1,
                           keepdims=True)) + np.sum(x.T[[0, 0, 2]]), x, w)
    assert report and "all agree" in str(report)


WRONG_RULES = {  # one per category: elementwise, binary, reduction, shape, linalg, indexing
    "elementwise-exp": (ops.exp.prim, 0, lambda g, ans, x: g * ans * 1.01, lambda x: np.sum(np.exp(x))),
    "binary-multiply": (ops.multiply.prim, 1, lambda g, ans, x, y: g * x * 0.5, lambda x: np.sum(x * x)),
    "reduction-mean": (ops.MEAN, 0, lambda g, ans, x, axis=None, keepdims=False: ops.broadcast_to(g, x.shape),
                       lambda x: np.mean(x)),
    "shape-transpose": (ops.TRANSPOSE, 0, lambda g, ans, x, axes=None: ops.reshape(g, x.shape),
                        lambda x: np.sum(x.T * np.arange(6.0).reshape(3, 2))),
    "linalg-matmul": (ops.MATMUL, 0, lambda g, ans, a, b: g @ b,
                      lambda x: np.sum(x @ np.arange(9.0).reshape(3, 3) * x)),
    "indexing-getitem": (ops.GETITEM, 0, lambda g, ans, x, index: ops.zeros_like(x), lambda x: np.sum(x[0] ** 2)),
}


@pytest.mark.parametrize("case", list(WRONG_RULES.values()), ids=list(WRONG_RULES))
def test_check_grad_catches_a_wrong_rule(case, monkeypatch):
    prim, i, wrong, f = case
    x = np.linspace(0.3, 1.3, 6).reshape(2, 3) if prim is not ops.MATMUL else np.linspace(0.3, 1.3, 9).reshape(3, 3)
    assert gm.check_grad(f, x)  # right before
    rules = list(prim.vjps)
    rules[i] = wrong
    monkeypatch.setattr(prim, "vjps", tuple(rules))
    report = gm.check_grad(f, x)
    assert not report and [r.name for r in report.failures] == ["x"]
    assert "MISMATCH" in str(report) and "1 input(s) disagree" in str(report)


def test_check_grad_order_two_and_custom_gradients():
    assert gm.check_grad(lambda x: np.sum(square(x) * np.sin(x)), np.array([0.3, 1.2]), order=2)
    # the nested pattern's first derivative is right, and so is its second along a constant
    # direction (the captured x is seen through grad_fn's ops, as in TensorFlow)
    assert gm.check_grad(lambda x: np.sum(cube_nested(x)), np.array([0.5, 1.5]))
    assert gm.check_grad(lambda x: np.sum(cube_nested(x)), np.array([0.5, 1.5]), order=2)


def test_check_grad_report_html_escapes_names():
    def f(x):
        return np.sum(x ** 2)
    f.__name__ = "<script>alert(1)</script>"
    html = gm.check_grad(f, np.ones(2))._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html


@pytest.mark.parametrize("value, nonfinite", [
    (np.float64(1.0), False), (np.float32(np.nan), True), (np.float16(-np.inf), True),
    (np.array(np.inf), True), (np.array([1.0, np.nan]), True), (np.ones(3, np.float32), False),
    (np.complex128(complex(1, np.inf)), True), (np.int64(3), False), (np.bool_(True), False),
    pytest.param(np.longdouble("1e400") if np.finfo(np.longdouble).maxexp > 1024 else None, False,
                 marks=pytest.mark.skipif(np.finfo(np.longdouble).maxexp <= 1024,
                                          reason="long double is a double here"),
                 id="longdouble 1e400"),  # finite, though no Python float holds it
], ids=lambda v: repr(v)[:24])
def test_the_nan_scan_tells_finite_from_nan_and_inf(value, nonfinite):
    from gradmagic._scans import nonfinite as scan
    assert bool(scan(value)) is nonfinite
    assert bool(scan(gm.Tensor(value).value)) is nonfinite


def test_none_returned_by_grad_fn_is_named_as_the_cause():
    """A grad_fn that returns None for an input that needs a gradient: the note says so, in
    each framework's words (it said the target did not depend on the input)."""
    @gm.custom_gradient
    def scale(x, w):
        def grad_fn(upstream):
            return upstream * w, None
        return x * w, grad_fn

    def build():
        x, w = gm.constant(np.array([1.0, 2.0])), gm.Variable(np.array([3.0, 5.0]))
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(scale(x, w))
        assert tape.gradient(y, [x, w])[1] is None
    msg = none_reason(build)
    assert msg.startswith("the gradient is None: scale's grad_fn returned None for w: None means "
                          "no gradient"), msg

    import gradmagic.torch as torch

    class Mul(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, None

    def build_torch():
        a, b = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0, 4.0], requires_grad=True)
        out, = torch.autograd.grad(Mul.apply(a, b).sum(), [b], allow_unused=True)
        assert out is None
    assert "Mul's backward returned None for b" in none_reason(build_torch)
    assert "Return grad_output times the derivative" in none_reason(build_torch)


def test_none_through_a_stop_gradient_of_a_computed_value():
    """``h = stop_gradient(x * w)`` inside the tape: the note names the copy, not a target
    computed outside the with block (what it said)."""
    def build():
        x, w = gm.constant(np.array([1.0, 4.0])), gm.Variable(np.array([3.0, -2.0]))
        with gm.GradientTape() as tape:
            h = gm.stop_gradient(x * w)
            loss = np.sum(h ** 2)
        assert tape.gradient(loss, w) is None
    msg = none_reason(build)
    assert "loss depends on w only through h, a copy of a value computed from w" in msg, msg
