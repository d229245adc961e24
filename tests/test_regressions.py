"""Behaviours that once went wrong, each pinned by the smallest program that showed it."""

import threading

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf


def test_reentering_an_active_tape_is_refused():
    x = gm.constant(2.0)
    t = gm.GradientTape()
    with t:
        t.watch(x)
        with pytest.raises(gm.GradmagicError, match="cannot be re-entered"):
            with t:
                pass
        y = x * x  # still recording after the refused re-entry
    assert float(t.gradient(y, x)) == 4.0


def test_variable_passed_to_a_custom_function_is_watched():
    @gm.custom_gradient
    def twice(x):
        return x * 2, lambda up: up * 2
    v = gm.Variable(0.5, name="v")
    with gm.GradientTape() as tape:
        y = twice(v)
    assert float(tape.gradient(y, v)) == 2.0


def test_python_number_gradient_for_a_number_input():
    @gm.custom_gradient
    def scale(x, s):
        return x * s, lambda up: (up * s, 0.0)
    x = gm.constant(1.0)
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = scale(x, 3.0)
    assert float(tape.gradient(y, x)) == 3.0


def test_relu_gradient_is_zero_at_zero():
    x = tf.constant([-1.0, 0.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.nn.relu(x))
    assert tape.gradient(y, x).numpy().tolist() == [0.0, 0.0, 1.0]


def test_gm_tf_and_stop_gradient_of_a_number():
    assert gm.tf.constant is tf.constant
    s = gm.stop_gradient(3.0)
    assert isinstance(s, gm.Tensor) and s.shape == () and float(s) == 3.0


def test_a_default_trace_does_not_call_grad_fn_again():
    calls = []

    @gm.custom_gradient
    def f(x):
        def grad_fn(up):
            calls.append(float(up))
            return up * 2
        return x * 2, grad_fn
    x = gm.constant(1.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = f(f(x))
        tape.gradient(y, x)
    assert calls == [1.0, 2.0]
    assert [float(r.local[0]) for r in tr.backward] == [2.0, 2.0]  # downstream / upstream


def test_traces_in_threads_leave_stdout_alone():
    import sys
    before = sys.stdout

    @gm.custom_gradient
    def f(x):
        return x * x, lambda up: up * 2 * x

    def work():
        for _ in range(50):
            x = gm.constant(1.5)
            with gm.trace():
                with gm.GradientTape() as tape:
                    tape.watch(x)
                    y = f(f(x))
                tape.gradient(y, x)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sys.stdout is before


def test_a_freed_traced_output_does_not_claim_a_later_op():
    @gm.traced
    def layer(a):
        return np.exp(a) * 1.0

    with gm.trace() as tr:
        for _ in range(50):  # outputs freed, their addresses reused
            layer(gm.constant(0.5))
        x = gm.constant(0.5)
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.exp(x)
        tape.gradient(y, x)
    assert [r.node for r in tr.backward] == ["exp"]


def test_check_true_does_not_hide_the_users_error():
    @gm.custom_gradient
    def bad(x):
        def grad_fn(up):
            raise ValueError("my grad_fn bug")
        return x * 2, grad_fn
    x = gm.constant(1.0)
    with pytest.raises(ValueError, match="my grad_fn bug"):
        with gm.trace(check=True):
            with gm.GradientTape() as tape:
                tape.watch(x)
                y = bad(x)
            tape.gradient(y, x)


def test_an_unrelated_first_order_gradient_is_labelled_first_order():
    x, w = gm.constant(np.float64(1.0)), gm.constant(np.float64(2.0))
    with gm.trace() as tr:
        with gm.GradientTape(persistent=True) as outer:
            outer.watch([x, w])
            with gm.GradientTape() as inner:
                inner.watch(x)
                y = x * x
            g = inner.gradient(y, x)  # recorded on outer, at order 1
            z = w * 3.0
        outer.gradient(z, w)  # depends on nothing of that: a first-order pass
        outer.gradient(g, x)  # the second derivative
    assert [r.level for r in tr.gradients] == [1, 1, 2]


def test_an_op_after_a_backward_pass_carries_its_order_to_the_next_pass():
    """``gv = sum(g * v)`` is recorded outside any pass, yet computed from ``g``, a
    first-order pass's result: the pass over it is a second-order one, and over that a
    third (each output carries the highest order it was computed through)."""
    x = gm.constant(np.float64(0.5))

    @gm.custom_gradient
    def double(t):
        return t * 2.0, lambda up: up * 2.0

    with gm.trace() as tr:
        with gm.GradientTape() as third:
            third.watch(x)
            with gm.GradientTape() as outer:
                outer.watch(x)
                with gm.GradientTape() as inner:
                    inner.watch(x)
                    y = x * x * x
                g = inner.gradient(y, x)  # 3 x^2, at order 1
                gv = double(np.sum(g * 3.0))  # at order 0, from g, through a custom op
            h = outer.gradient(gv, x)  # 36 x, at order 2
        k = third.gradient(h, x)  # 36, at order 3
    assert [r.level for r in tr.gradients] == [1, 2, 3]
    assert float(h) == pytest.approx(18.0) and float(k) == pytest.approx(36.0)


def test_trace_rows_show_a_variable_as_it_was_read():
    """Each read under the variable's name, with the value it had then: before an assign
    inside the tape, after it, and before one that follows the tape."""
    v = gm.Variable(1.0, name="w")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = v * 3
            v.assign(2.0)
            z = v * 3
        v.assign_sub(0.5)
        tape.gradient([y, z], v)
    assert [r["x"] for r in tr.to_rows()[:2]] == ["w=1, 3", "w=2, 3"]


@pytest.mark.parametrize("op", ["matmul", "rmatmul", "multiply", "add", "subtract", "divide", "power"])
def test_a_list_operand_is_an_array_to_the_op_and_its_rules(op):
    """``[[1., 2., 3.]] @ w`` (TensorFlow's gradient guide opens with it): the list becomes
    an array as NumPy converts one, so the rules, which read their operands' shapes, get
    arrays (matmul's rule met a list and raised AttributeError)."""
    w = gm.Variable(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    f = {"matmul": lambda v: [[1.0, 2.0, 3.0]] @ v,
         "rmatmul": lambda v: np.transpose(v) @ [1.0, -1.0, 2.0],
         "multiply": lambda v: [1.0, 2.0] * v, "add": lambda v: v + [[1.0, 2.0]] * 3,
         "subtract": lambda v: [1.0, 2.0] - v, "divide": lambda v: [1.0, 2.0] / v,
         "power": lambda v: v ** [2.0, 3.0]}[op]
    with gm.GradientTape() as tape:
        y = np.sum(f(w))
    g = tape.gradient(y, w)
    x = w.numpy()
    expected = sum(  # central differences of the same code on the NumPy array
        np.eye(x.size)[k].reshape(x.shape) * (np.sum(f(x + 1e-6 * np.eye(x.size)[k].reshape(x.shape)))
                                              - np.sum(f(x - 1e-6 * np.eye(x.size)[k].reshape(x.shape)))) / 2e-6
        for k in range(x.size))
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_trace_rows_show_a_variable_a_custom_function_read_as_it_was():
    """A custom function's rows show a Variable argument with the value it had when the
    function ran (they showed the value of a later assign: ``foo x=5 -> 9``)."""
    @gm.custom_gradient
    def foo(x):
        return x ** 2, lambda upstream: upstream * 2 * x

    v = gm.Variable(3.0, name="w")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = foo(v)
        g = tape.gradient(y, v)
    v.assign(5.0)
    assert float(g) == 6.0  # d(w^2)/dw at w = 3
    forward, backward = tr.to_rows()[0], tr.to_rows()[1]
    assert (forward["x"], forward["y"]) == ("x=3", "9")
    assert (backward["x"], backward["local"], backward["downstream"]) == ("x=3", "6", "6")


def _in_place_step(torch):
    a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with gm.trace() as tr:
        b = a * 1
        b.mul_(2)
        b.sum().backward()
    return tr, a, b


def test_trace_rows_show_a_torch_tensor_as_it_was_before_an_in_place_op():
    """gradmagic.torch: an in-place op gives the same tensor a new value; the rows before
    it show the value it had then (they showed the later one: ``multiply a=[1, 2, 3], 1 ->
    [2, 4, 6]``), under the user's name in every version, forward and backward alike."""
    import gradmagic.torch as torch
    tr, a, b = _in_place_step(torch)
    rows = tr.to_rows()
    assert [(r["x"], r["y"]) for r in rows[:3]] == [
        ("a=[1, 2, 3], 1", "[1, 2, 3]"), ("b=[1, 2, 3], 2", "[2, 4, 6]"), ("b=[2, 4, 6]", "12")]
    # backward: d(sum)/db = 1; b = 2 * (a * 1), so the multiply by 2 gives 2 and a gets 2
    assert [(r["node"], r["x"], r["downstream"]) for r in rows[3:6]] == [
        ("sum", "b=[2, 4, 6]", "[1, 1, 1]"), ("multiply", "b=[1, 2, 3], 2", "b=[2, 2, 2]"),
        ("multiply", "a=[1, 2, 3], 1", "a=[2, 2, 2]")]
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(b.detach().numpy(), [2.0, 4.0, 6.0])


def test_trace_rows_keep_a_training_steps_values_after_the_update():
    """The rows of a traced step are what the step computed, after the code goes on to
    update the weights and zero their gradients in place (outside the traced block), and
    an unchanged tensor's value is shown, not copied."""
    import gradmagic.torch as torch
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, 4.0])
    with gm.trace() as tr:
        loss = (w * x).sum()
        loss.backward()
    before, read = str(tr), w.value
    assert "d(loss)/d(w) = [3, 4]" in before and "w=[1, 2], x=[3, 4]" in before
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
    assert str(tr) == before
    np.testing.assert_allclose(w.detach().numpy(), [0.7, 1.6])
    assert tr.forward[0].inputs[0].value is read  # the array the op read, itself
