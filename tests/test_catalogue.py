"""The catalogue of custom-gradient programs the checks are held to: real mistakes, found
and named, and correct but unusual gradients (clipping, straight-through, reversal,
scaling, kinks, random masks, running statistics), recognised without a false alarm.

Each program builds its own state (Variables, a NumPy Generator, what it prints) and runs
twice from the same start: untraced, and under ``gm.trace(check=True)``. The checks must
leave the state exactly as the untraced run does, and write the expected note, naming the
function and the input.
"""

import contextlib
import io

import numpy as np
import pytest

import gradmagic as gm


def grads(f, *values, dtype=np.float64):
    xs = [gm.constant(np.asarray(v, dtype=dtype)) for v in values]
    with gm.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return tape.gradient(y, xs)


def state_of(things):
    """What a program left behind: Variables' values, generators' states."""
    out = {}
    for name, v in things.items():
        if isinstance(v, gm.Variable):
            out[name] = v.numpy().tolist()
        elif isinstance(v, np.random.Generator):
            out[name] = repr(v.bit_generator.state)
        else:
            out[name] = v
    return out


def run(program, check):
    """``program()`` -> (things it keeps, its result); run untraced or traced with checks.
    Returns (trace or None, state, result, printed)."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), np.errstate(over="ignore", invalid="ignore"):
        if check:
            with gm.trace(check=True) as tr:
                things, result = program()
        else:
            tr, (things, result) = None, program()
    return tr, state_of(things), result, printed.getvalue()


def both(program):
    """The program run untraced and traced: the traced run's trace, after checking that the
    checks changed nothing the program can see."""
    _, plain_state, plain_result, plain_out = run(program, False)
    tr, state, result, out = run(program, True)
    tr.pitfalls  # the checks have run
    assert state == plain_state and out == plain_out
    assert len(result) == len(plain_result)
    for g, h in zip(result, plain_result):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_array_equal(np.asarray(g), np.asarray(h))
    return tr


def notes(tr, kind):
    return [p for p in tr.pitfalls if p.kind == kind]


# -- correct but unusual: recognised as intended, never "wrong" ---------------------------------
def clip_gradient_jax():  # JAX's custom_vjp guide: clip_gradient(lo, hi, x)
    @gm.custom_gradient
    def clip_gradient(lo, hi, x):
        return x, lambda g: (None, None, np.clip(g, lo, hi))
    return {}, grads(lambda x: np.sum(3.0 * clip_gradient(-0.75, 0.75, np.sin(x))), [0.5, 2.0, 3.0])


def clip_by_norm():
    @gm.custom_gradient
    def clip_norm(x):
        def grad_fn(upstream):
            n = np.sqrt(np.sum(upstream * upstream))
            return upstream * min(1.0, 1.0 / max(n, 1e-12))
        return x, grad_fn
    return {}, grads(lambda x: np.sum(np.array([3.0, 4.0]) * clip_norm(x)), [1.0, 2.0])


def straight_through():
    @gm.custom_gradient
    def ste_round(x):
        return np.round(x), lambda upstream: upstream
    return {}, grads(lambda x: np.sum(ste_round(x) * np.array([1.0, 2.0, 3.0])), [0.3, 1.2, -0.7])


def gradient_reversal():
    @gm.custom_gradient
    def reverse(x):
        return x, lambda upstream: -upstream
    return {}, grads(lambda x: np.sum(reverse(x) ** 2), [1.0, -2.0])


def grad_multiply_keyword():
    @gm.custom_gradient
    def grad_multiply(x, scale=1.0):
        return x, lambda upstream: upstream * scale
    return {}, grads(lambda x: np.sum(grad_multiply(x, scale=0.1) ** 2), [1.0, 3.0])


def spike_surrogate():  # a spiking neuron: a step forward, a sigmoid's slope backward
    @gm.custom_gradient
    def spike(v):
        s = 1 / (1 + np.exp(-4 * v))
        return (v > 0).astype(v.dtype), lambda upstream: upstream * 4 * s * (1 - s)
    return {}, grads(lambda v: np.sum(spike(v) * np.array([1.0, 2.0, 3.0])), [-0.5, 0.2, 1.0])


def straight_through_at_the_optimum():  # the loss is at its minimum: the upstream is 0
    @gm.custom_gradient
    def ste_round(x):
        return np.round(x), lambda upstream: upstream
    return {}, grads(lambda x: (np.sum(ste_round(x)) - 3.0) ** 2, [0.9, 1.2, 0.8])


def reversal_into_a_dead_relu():  # nothing passes the maximum: the upstream is 0
    @gm.custom_gradient
    def reverse(x):
        return x, lambda upstream: -upstream
    return {}, grads(lambda x: np.sum(np.maximum(reverse(x), 5.0)), [1.0, -2.0])


def guided_relu():  # guided backpropagation: only positive gradients through positive inputs
    @gm.custom_gradient
    def guided(x):
        return np.maximum(x, 0.0), lambda upstream: (upstream > 0) * (x > 0) * upstream
    return {}, grads(lambda x: np.sum(guided(x) * np.array([1.0, -2.0, 3.0, -1.0])), [0.5, 1.5, -1.0, 2.0])


def straight_through_on_the_grid():  # round(0.5), round(2.5): the inputs sit on its steps
    @gm.custom_gradient
    def ste_round(x):
        return np.round(x), lambda upstream: upstream * ((x >= 0) & (x <= 3))
    return {}, grads(lambda x: np.sum(ste_round(x) * np.array([1.0, 2.0, 3.0, 4.0])),
                     [-2.0, 0.5, 2.5, 3.4])


def quantiser_on_its_grid():  # a 2-bit quantiser's steps, leaving the tape (np.floor)
    @gm.custom_gradient
    def quantise(x):
        return np.floor(x.numpy() * 4) / 4, lambda upstream: upstream
    return {}, grads(lambda x: np.sum(quantise(x) * np.arange(1.0, 21.0)), np.linspace(0, 4.75, 20))


def gradient_normalisation():  # neural style transfer's normalize_gradients: u / |u|_1
    @gm.custom_gradient
    def normalize(x):
        return x, lambda upstream: upstream / (np.sum(np.abs(upstream)) + 1e-8)
    return {}, grads(lambda x: np.sum(normalize(x) ** 2), [1.0, -2.0, 3.0])


INTENDED = {
    "straight-through-on-the-grid": (straight_through_on_the_grid, "ste_round", "x",
                                     "straight-through gradient"),  # (it was "wrong")
    "quantiser-on-its-grid": (quantiser_on_its_grid, "quantise", "x",
                              "straight-through gradient"),  # (it was "wrong")
    "gradient-normalisation": (gradient_normalisation, "normalize", "x",
                               "normalised gradient"),  # (it was "wrong")
    "clip-gradient-jax": (clip_gradient_jax, "clip_gradient", "x", "clipped gradient"),
    "clip-by-norm": (clip_by_norm, "clip_norm", "x", "clipped gradient"),
    "straight-through": (straight_through, "ste_round", "x", "straight-through gradient"),
    "spike-surrogate": (spike_surrogate, "spike", "v", "straight-through gradient"),
    "gradient-reversal": (gradient_reversal, "reverse", "x", "gradient reversal"),
    "grad-multiply-keyword": (grad_multiply_keyword, "grad_multiply", "x", "gradient scaling"),
    # with an upstream of 0 the surrogate shows only for a random upstream (it was "wrong")
    "straight-through-upstream-0": (straight_through_at_the_optimum, "ste_round", "x",
                                    "straight-through gradient"),
    "reversal-upstream-0": (reversal_into_a_dead_relu, "reverse", "x", "gradient reversal"),
    "guided-backprop": (guided_relu, "guided", "x", "rectified gradient"),  # (it was "wrong")
}


@pytest.mark.parametrize("case", list(INTENDED.values()), ids=list(INTENDED))
def test_an_intentional_surrogate_is_named_and_not_called_a_mistake(case):
    program, function, name, pattern = case
    tr = both(program)
    assert [p.kind for p in tr.pitfalls] == ["intentional-surrogate"], [p.message for p in tr.pitfalls]
    note = tr.pitfalls[0]
    assert note.info and note.row.node == function
    assert note.message.startswith(f"{function}'s grad_fn is an intentional surrogate")
    assert f"{pattern} for {name}" in note.message


def test_an_intentional_note_is_shown_as_information_not_as_a_warning():
    tr = both(gradient_reversal)
    assert "\n       i intentional-surrogate: reverse's grad_fn" in tr.to_text()
    html = tr._repr_html_()
    assert "&#8505; <b>intentional-surrogate</b>" in html and "&#9888;" not in html


def test_straight_through_names_the_op_that_makes_it_piecewise_constant():
    note = both(straight_through).pitfalls[0]
    assert "piecewise constant there (its derivative is 0; it uses round)" in note.message


# -- correct programs the old checks disturbed or accused ---------------------------------------
def relu_at_zero():
    @gm.custom_gradient
    def relu(x):
        return np.maximum(x, 0.0), lambda upstream: upstream * (x > 0)
    return {}, grads(lambda x: np.sum(relu(x) * np.array([1.0, 2.0, 3.0])), [-1.0, 0.0, 2.0])


def relu_by_mask_at_zero():  # the mask is made without recording: the kink is found by a re-run
    @gm.custom_gradient
    def relu(x):
        return x * (x > 0), lambda upstream: upstream * (x >= 0)
    return {}, grads(lambda x: np.sum(relu(x)), [-1.0, 0.0, 2.0])


def dropout_saved_mask():
    rng = np.random.default_rng(7)

    @gm.custom_gradient
    def dropout(x):
        mask = (rng.random(x.shape) > 0.5) / 0.5
        return x * mask, lambda upstream: upstream * mask
    return {"rng": rng}, grads(lambda x: np.sum(dropout(x) ** 2), np.linspace(-1, 1, 6))


def running_mean_variable():
    running = gm.Variable(np.array([0.1, 0.25]), name="running_mean", trainable=False)

    @gm.custom_gradient
    def center(x):
        mean = np.mean(x, axis=0)
        running.assign(0.9 * running + 0.1 * mean)
        print("running mean", running.numpy())
        return x - mean, lambda upstream: upstream - np.mean(upstream, axis=0)
    loss = lambda x: np.sum(center(x) * np.arange(6.0).reshape(3, 2))  # noqa: E731
    return {"running": running}, grads(loss, np.arange(6.0).reshape(3, 2) ** 2)


def log1pexp_float32():
    @gm.custom_gradient
    def log1pexp(x):
        e = np.exp(x)
        return np.log(1 + e), lambda upstream: upstream * (1 - 1 / (1 + e))
    return {}, grads(lambda x: np.sum(log1pexp(x)), [-3.0, 0.5, 20.0], dtype=np.float32)


QUIET = {
    "relu-at-0": relu_at_zero,
    "relu-by-mask-at-0": relu_by_mask_at_zero,
    "dropout-saved-mask": dropout_saved_mask,
    "running-mean-variable": running_mean_variable,
    "log1pexp-float32": log1pexp_float32,
}


@pytest.mark.parametrize("program", list(QUIET.values()), ids=list(QUIET))
def test_a_correct_custom_gradient_gets_no_note_and_keeps_the_state(program):
    tr = both(program)
    assert tr.pitfalls == [], [p.message for p in tr.pitfalls]


# -- mistakes: found, named, every wrong input ------------------------------------------------------
def swapped_variable_gradients():
    w1 = gm.Variable(np.array([1.0, 2.0]), name="w1")
    w2 = gm.Variable(np.array([3.0, -1.0]), name="w2")

    @gm.custom_gradient
    def affine(x):
        def grad_fn(upstream, variables=None):
            return upstream * w1, [upstream, upstream * x]  # swapped: w1's is upstream * x
        return x * w1 + w2, grad_fn
    with gm.GradientTape() as tape:
        loss = np.sum(affine(gm.constant(np.array([0.5, 4.0]))) * np.array([1.0, 3.0]))
    return {"w1": w1, "w2": w2}, tape.gradient(loss, [w1, w2])


def placeholder_variable_gradient():
    w = gm.Variable(np.array([1.0, 2.0]), name="w")

    @gm.custom_gradient
    def scale(x):
        def grad_fn(upstream, variables=None):
            return upstream * w, [0.0 * w]  # a placeholder: the real one is upstream * x
        return x * w, grad_fn
    with gm.GradientTape() as tape:
        loss = np.sum(scale(gm.constant(np.array([0.5, 4.0]))))
    return {"w": w}, tape.gradient(loss, [w])


def dropout_missing_scale():  # samples and assigns in its body; the check must not
    rng = np.random.default_rng(11)
    seen = gm.Variable(np.zeros(()), name="calls", trainable=False)

    @gm.custom_gradient
    def dropout(x):
        seen.assign_add(1.0)
        keep = rng.random(x.shape) > 0.5
        return x * keep / 0.5, lambda upstream: upstream * keep  # forgets the / 0.5
    return {"rng": rng, "seen": seen}, grads(lambda x: np.sum(dropout(x) ** 2), np.linspace(-1, 1, 6))


def log_softmax_missing_reduction():
    @gm.custom_gradient
    def log_softmax(x):
        y = x - gm.logsumexp(x, axis=1, keepdims=True)
        return y, lambda upstream: upstream - np.exp(y) * upstream  # misses a sum over axis 1
    x = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
    return {}, grads(lambda x: np.sum(log_softmax(x)[:, 0]), x, dtype=np.float32)


def two_wrong_inputs():
    @gm.custom_gradient
    def mul(a, b):
        return a * b, lambda upstream: (upstream * a, upstream * b)  # each takes the other's
    return {}, grads(lambda a, b: np.sum(mul(a, b) ** 2), [1.0, 2.0], [3.0, 5.0])


def clip_on_a_scaled_forward():  # looks like clipping, but the forward doubles x
    @gm.custom_gradient
    def double(x):
        return 2 * x, lambda upstream: np.clip(upstream, -1.0, 1.0)
    return {}, grads(lambda x: np.sum(3.0 * double(x)), [0.5, 1.5])


def half_derivative():  # a constant factor, on a forward that is not the identity
    @gm.custom_gradient
    def square(x):
        return x ** 2, lambda upstream: upstream * x
    return {}, grads(lambda x: np.sum(square(x)), [1.0, 3.0])


def small_error_float64():  # 1e-4 relative, varying: not a kink, not a constant factor
    @gm.custom_gradient
    def square(x):
        return x ** 2, lambda upstream: upstream * (2 * x + 1e-4 * x ** 2)
    return {}, grads(lambda x: np.sum(square(x)), [1.0, 3.0])


def wrong_beside_a_step():  # x + round(x) has derivative 1 off its steps (x = 0.5 is on one)
    @gm.custom_gradient
    def shift(x):
        return x + np.round(x.numpy()), lambda upstream: upstream * 2
    return {}, grads(lambda x: np.sum(shift(x)), [-0.4, 0.5, 1.2])


WRONG = {
    "wrong-beside-a-step": (wrong_beside_a_step, "shift", ["x"], "gives 2 times the derivative"),
    "swapped-variable-gradients": (swapped_variable_gradients, "affine",
                                   ["variable 'w1'", "variable 'w2'"], "are swapped"),
    "placeholder-variable-gradient": (placeholder_variable_gradient, "scale", ["variable 'w'"],
                                      "returns zeros, a placeholder"),
    "log-softmax-float32-missing-reduction": (log_softmax_missing_reduction, "log_softmax", ["x"],
                                              "4 of 6 elements differ"),
    "two-wrong-inputs": (two_wrong_inputs, "mul", ["a", "b"], "for a: at a[0] = 1"),
    "clip-on-a-scaled-forward": (clip_on_a_scaled_forward, "double", ["x"],
                                 "forward is not the identity: the clipped upstream must"),
    "half-derivative": (half_derivative, "square", ["x"], "gives 0.5 times the derivative"),
    "small-error-float64": (small_error_float64, "square", ["x"], "2 of 2 elements differ"),
    "dropout-missing-scale": (dropout_missing_scale, "dropout", ["x"], "gives 0.5 times the derivative"),
}


@pytest.mark.parametrize("case", list(WRONG.values()), ids=list(WRONG))
def test_a_wrong_derivative_names_the_function_and_every_wrong_input(case):
    program, function, names, detail = case
    tr = both(program)
    found = notes(tr, "wrong-derivative")
    assert [p.kind for p in tr.pitfalls] == ["wrong-derivative"], [p.message for p in tr.pitfalls]
    message = found[0].message
    assert message.startswith(f"{function}'s custom gradient disagrees with the derivative")
    assert f"for {' and '.join(names)}:" in message and detail in message
    assert "ignore this note" not in message


def test_the_float32_log_softmax_error_is_shown_per_element():
    message = notes(both(log_softmax_missing_reduction), "wrong-derivative")[0].message
    assert "at x[0, 1] = 2 with upstream 0, grad_fn gave 0 where the derivative is -0.6285" in message


def test_the_row_of_a_wrong_grad_fn_says_its_local_is_the_users():
    tr = both(half_derivative)
    row = notes(tr, "wrong-derivative")[0].row
    assert "square's grad_fn is wrong" in row.note and "not square's derivative" in row.note
    assert "square's grad_fn is wrong" in tr.to_text() and "square&#x27;s grad_fn is wrong" in tr._repr_html_()


# -- the user's program is never changed, even where the body must be run again ------------------
def test_check_true_restores_a_variable_the_body_assigns_and_a_generator_it_samples():
    """The body leaves the tape (np.round), so only running it again could check it: the
    re-run is made on a snapshot, and since it draws other random numbers the check says it
    could not run, instead of reporting garbage."""
    def program():
        rng = np.random.default_rng(3)
        count = gm.Variable(np.zeros(()), name="count", trainable=False)

        @gm.custom_gradient
        def noisy_round(x):
            count.assign_add(1.0)
            return np.round(x + rng.uniform(-0.5, 0.5, x.shape)), lambda upstream: upstream
        return {"rng": rng, "count": count}, grads(lambda x: np.sum(noisy_round(x)), [0.2, 1.4])

    tr = both(program)
    assert [p.kind for p in tr.pitfalls] == ["not-checked"]
    assert "noisy_round's grad_fn was not checked for x" in tr.pitfalls[0].message
    assert "it gives other outputs when run again" in tr.pitfalls[0].message


def logging_program(log, forward, rule, values):
    """A program whose custom function appends a line to the file ``log`` each time its body
    runs: ``forward(x)`` is its output, ``rule(x, upstream)`` its gradient."""
    def program():
        @gm.custom_gradient
        def logged(x):
            with open(log, "a") as f:
                f.write("called\n")
            return forward(x), lambda upstream: rule(x, upstream)
        return {}, grads(lambda x: np.sum(logged(x)), values)
    return program


def test_a_body_that_writes_a_file_is_not_run_again(tmp_path):
    log = tmp_path / "log.txt"
    tr = both(logging_program(log, np.round, lambda x, up: up, [0.2, 1.4]))
    assert log.read_text() == "called\ncalled\n"  # once untraced, once traced: never by the check
    assert [p.kind for p in tr.pitfalls] == ["not-checked"]
    assert "running it again would change your program: it calls open, write" in tr.pitfalls[0].message


def test_a_possible_kink_that_only_a_re_run_could_show_is_not_called_wrong(tmp_path):
    log = tmp_path / "log.txt"  # a relu whose mask is made without recording, at exactly 0
    tr = both(logging_program(log, lambda x: x * (x > 0), lambda x, up: up * (x >= 0), [-1.0, 0.0, 2.0]))
    assert log.read_text() == "called\ncalled\n"
    assert [p.kind for p in tr.pitfalls] == ["not-checked"]
    assert "differs from the recorded ops' derivative only at 1 element(s)" in tr.pitfalls[0].message


# -- upstream ignored ------------------------------------------------------------------------------
def test_upstream_ignored_fix_is_written_from_the_users_grad_fn():
    def program():
        @gm.custom_gradient
        def cube(x):
            def grad_fn(upstream):
                return 3 * x ** 2
            return x ** 3, grad_fn
        return {}, grads(lambda x: np.sum(5.0 * cube(x)), [1.0, 2.0])

    found = notes(both(program), "upstream-ignored")
    assert len(found) == 1
    message = found[0].message
    assert "cube's grad_fn does not multiply by its upstream gradient: for x it passed [3, 12]" in message
    assert "it would pass [15, 60] (the engine's derivative of cube's recorded body)" in message
    assert "Fix: `return upstream * (3 * x ** 2)`." in message


def test_upstream_ignored_with_a_wrong_local_derivative_is_not_fixed_by_copying_it():
    """grad_fn returns ``x`` for ``x ** 2``: multiplying that by the upstream would still be
    wrong, so the fix asks for the derivative and gives its value (it said
    ``return upstream * x``)."""
    def program():
        @gm.custom_gradient
        def sq(x):
            return x ** 2, lambda upstream: x
        return {}, grads(lambda x: np.sum(sq(x) * 3.0), [1.0, 2.0])

    message = notes(both(program), "upstream-ignored")[0].message
    assert message.endswith("Fix: return upstream times the derivative of sq with respect to x, which "
                            "is [2, 4] here (it returns [1, 2]: not that derivative either)."), message


def test_an_upstream_multiplied_in_twice_is_named():
    def program():
        @gm.custom_gradient
        def cube(x):
            return x ** 3, lambda upstream: upstream * upstream * 3 * x ** 2
        return {}, grads(lambda x: np.sum(3.0 * cube(x)), [1.0, 2.0])

    message = notes(both(program), "wrong-derivative")[0].message
    assert "It is quadratic in its upstream (grad_fn(2 × upstream) is 4 × grad_fn(upstream)): it " \
           "multiplies by the upstream twice, where the chain rule multiplies once." in message


# -- causes: named from what happened ---------------------------------------------------------------
def test_a_tensor_captured_by_a_custom_function_is_named_as_such():
    x = gm.constant(np.array([1.0, 2.0]))
    w = gm.constant(np.array([0.5, 2.0]))

    @gm.custom_gradient
    def scale(x):
        return x * w, lambda upstream: upstream * w
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch([x, w])
            loss = np.sum(scale(x))
        gx, gw = tape.gradient(loss, [x, w])
    assert gw is None
    message = notes(tr, "none-gradient")[0].message
    assert "w is not an input of scale: scale reads it from the enclosing scope (a closure)" in message
    assert "`scale(x, w)`" in message


def test_numpy_inside_grad_fn_is_named_as_the_cut_in_a_second_order_pass():
    @gm.custom_gradient
    def wave(x):
        return np.sin(x), lambda upstream: upstream * np.cos(x.numpy())
    x = gm.constant(np.array([0.5, 1.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as outer:
            outer.watch(x)
            with gm.GradientTape() as inner:
                inner.watch(x)
                y = np.sum(wave(x))
            g = inner.gradient(y, x)
        assert outer.gradient(g, x) is None
    message = notes(tr, "none-gradient")[0].message
    assert "g comes from a pass through wave's grad_fn, which uses numpy on Tensors" in message
    assert "not np.cos(x.numpy())" in message


def test_a_norm_at_zero_is_named_0_over_0_with_a_fix_in_the_users_names():
    with gm.trace() as tr, np.errstate(divide="ignore", invalid="ignore"):
        v = gm.constant(np.zeros(2))
        with gm.GradientTape() as tape:
            tape.watch(v)
            n = np.linalg.norm(v)
        tape.gradient(n, v)
    message = notes(tr, "nan-origin")[0].message
    assert "a norm at 0: sqrt(sum(v * v)), np.linalg.norm, has the derivative v / norm(v) = 0/0" in message
    assert "np.sqrt(np.sum(v * v) + 1e-12)" in message and "softplus" not in message


def test_exp_overflow_inside_grad_fn_is_named_at_its_line():
    @gm.custom_gradient
    def sigmoid(x):
        y = 1 / (1 + np.exp(-x))

        def grad_fn(upstream):
            e = np.exp(-x)
            return upstream * e / (1 + e) ** 2
        return y, grad_fn

    def program():
        return {}, grads(lambda x: np.sum(sigmoid(x)), [-100.0, 0.0], dtype=np.float32)
    tr = both(program)
    message = notes(tr, "nan-origin")[0].message
    assert "inside sigmoid's grad_fn, `e = np.exp(-x)` raised 'overflow encountered in exp'" in message
    assert "the derivative of sigmoid's body here is [3.72e-44, 0.25]" in message
    assert "softplus" not in message
    assert [p.kind for p in tr.pitfalls] == ["nan-origin"]  # the NaN is not also a wrong derivative


def test_the_masked_where_fix_is_valid_code():
    with gm.trace() as tr, np.errstate(divide="ignore", invalid="ignore"):
        x = gm.constant(np.array([-1.0, 0.0, 4.0]))
        with gm.GradientTape() as tape:
            tape.watch(x)
            positive = x > 0
            y = np.sum(np.where(positive, np.sqrt(x), 0.0))
        tape.gradient(y, x)
    message = notes(tr, "masked-where")[0].message
    code = message.split("`")[1]
    assert code == "np.where(positive, np.sqrt(np.where(positive, x, 1.0)), 0.0)"
    compile(code, "<fix>", "eval")


# -- once per function and input shape ------------------------------------------------------------------
def test_check_reviews_each_function_and_shape_once(monkeypatch):
    from gradmagic.debug import findings
    reviewed = []

    class Counted(findings.Review):
        def __init__(self, trace, row):
            reviewed.append((row.source.name, np.shape(row.source.inputs[0])))
            super().__init__(trace, row)
    monkeypatch.setattr(findings, "Review", Counted)
    calls = []

    @gm.custom_gradient
    def square(x):
        def grad_fn(upstream):
            calls.append(1)  # the review calls grad_fn again, on a snapshot that restores this list
            return upstream * 2 * x
        return x ** 2, grad_fn
    with gm.trace(check=True) as tr:
        for _ in range(20):
            grads(lambda x: np.sum(square(x)), [1.0, 2.0])
        grads(lambda x: np.sum(square(x)), [1.0, 2.0, 3.0])  # another shape: reviewed too
    assert tr.pitfalls == []
    assert sorted(reviewed) == [("square", (2,)), ("square", (3,))]
    assert len(calls) == 21
