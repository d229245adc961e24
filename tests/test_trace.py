"""The trace: rows recorded from the engine's hooks, grouping, levels, folding, names,
and the text rendering and terminal face built on it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradmagic as gm
import gradmagic.tf as tf
from gradmagic.core.context import stack

from _traces import softplus_nan_trace

ROOT = Path(__file__).resolve().parents[1]


@gm.custom_gradient
def foo(x):
    def grad(upstream):
        return upstream * 2 * x
    return x ** 2, grad


def seed_trace(**options):
    x = gm.constant(2.0)
    with gm.trace(**options) as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = foo(foo(foo(x)))
        dy_dx = tape.gradient(y, x)
    return tr, dy_dx


def cells(rows, *keys):
    return [tuple(r[k] for k in keys) for r in rows]


# -- the seed example ---------------------------------------------------------------------
def test_seed_backward_rows_read_x_upstream_local_downstream():
    tr, dy_dx = seed_trace()
    back = [r for r in tr.to_rows() if r["section"] == "backward"]
    assert cells(back, "node", "x", "upstream", "local", "downstream") == [
        ("foo", "x=16", "1", "32", "32"),
        ("foo", "x=4", "32", "8", "256"),
        ("foo", "x=2", "256", "4", "1024")]
    assert float(dy_dx) == 1024.0


def test_seed_forward_rows_one_per_function_call():
    tr, _ = seed_trace()
    fwd = [r for r in tr.to_rows() if r["section"] == "forward"]
    assert cells(fwd, "node", "x", "y", "level") == [
        ("foo", "x=2", "4", 0), ("foo", "x=4", "16", 0), ("foo", "x=16", "256", 0)]


def test_seed_text_ends_with_the_final_gradient():
    tr, _ = seed_trace()
    text = str(tr)
    lines = text.splitlines()
    assert lines[-1] == "  d(y)/d(x) = 1024"
    assert "backward · first-order pass" in text
    row = next(line for line in lines if line.split()[:2] == ["1", "foo"] and "upstream" not in line
               and "x=16" in line)
    assert row.split() == ["1", "foo", "x=16", "1", "32", "32"]


def test_custom_local_is_computed_without_repeating_the_prints(capsys):
    @tf.custom_gradient
    def loud(x):
        def grad(dy):
            tf.print(f"upstream={dy}")
            return dy * 2 * x
        return x * x, grad
    x = tf.constant(3.0)
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loud(x)
        tape.gradient(y, x)
    assert capsys.readouterr().err == "upstream=1.0\n"
    assert float(tr.backward[0].local[0]) == 6.0


def test_ops_true_shows_every_primitive_with_its_context():
    tr, _ = seed_trace(ops=True)
    fwd = tr.to_rows()
    # grad_fn's own multiplies ran during the first-order pass: level 1
    assert {r["node"] for r in fwd if r["section"] == "forward" and r["level"] == 1} == {"multiply"}
    nodes = [(r["node"], r["context"]) for r in fwd if r["section"] == "forward" and r["level"] == 0]
    assert nodes == [("foo", ""), ("power", "foo"), ("foo", ""), ("power", "foo"),
                     ("foo", ""), ("power", "foo")]


# -- the steps people get wrong ------------------------------------------------------------
def test_fan_in_gets_a_sum_row():
    x = gm.constant(np.float64(3.0))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
    sums = [r for r in tr.backward if r.kind == "sum"]
    assert len(sums) == 1
    row = sums[0].cells()
    assert (row["x"], row["upstream"], row["downstream"]) == ("x", "3 + 3", "6")


def test_broadcast_gets_its_own_row_naming_the_axes():
    b = gm.Variable(np.zeros(3), name="b")
    x = gm.constant(np.ones((2, 3)))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            y = np.sum(x * 2.0 + b)
        tape.gradient(y, b)
    rows = [r for r in tr.backward if r.kind == "broadcast"]
    assert len(rows) == 1
    assert rows[0].note == "sum over broadcast axes (0,): (2, 3) -> (3,)"
    assert rows[0].cells()["downstream"] == "[2, 2, 2]" and rows[0].cells()["x"] == "b"


# -- levels ----------------------------------------------------------------------------------
def test_nested_tapes_label_the_second_order_pass():
    x = gm.constant(np.float64(2.0))
    with gm.trace() as tr:
        with gm.GradientTape() as outer:
            outer.watch(x)
            with gm.GradientTape() as inner:
                inner.watch(x)
                y = x ** 3
            g = inner.gradient(y, x)
        h = outer.gradient(g, x)
    assert float(g) == 12.0 and float(h) == 12.0
    assert sorted({r.level for r in tr.backward}) == [1, 2]
    assert [float(r.downstream[0]) for r in tr.gradients] == [12.0, 12.0]
    assert [r.level for r in tr.gradients] == [1, 2]
    assert "backward · second-order pass" in tr.to_text()


def test_a_grad_fns_own_tape_walks_within_the_first_order_pass():
    # grad_fn takes a derivative with a tape of its own: that walk is part of the first-order
    # pass, and the pass over what it recorded is the second order (it was labelled third)
    @tf.custom_gradient
    def f(x):
        def grad_fn(upstream):
            with tf.GradientTape() as t:
                t.watch(x)
                y = tf.sin(x)
            return upstream * t.gradient(y, x)
        return tf.sin(x), grad_fn
    x = tf.constant(np.float64(1.0))
    with gm.trace() as tr:
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            g = t1.gradient(y, x)
        h = t2.gradient(g, x)
    assert float(g) == np.cos(1.0) and float(h) == -np.sin(1.0)
    assert [(r.node, r.level) for r in tr.backward] == [
        ("sin", 1), ("f", 1), ("multiply", 2), ("multiply", 2), ("cos", 2)]
    text = tr.to_text()
    assert "third-order" not in text and text.count("backward · second-order pass") == 1


def test_custom_jvp_grad_of_grad_is_a_second_order_pass():
    import gradmagic.jax as jax

    @jax.custom_jvp
    def f(x):
        return jax.numpy.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), jax.numpy.cos(x) * t
    with gm.trace() as tr:
        h = jax.grad(jax.grad(f))(1.0)
    assert np.isclose(float(h), -np.sin(1.0))
    assert sorted({r.level for r in tr.backward}) == [1, 2]
    assert "third-order" not in tr.to_text()


def test_single_persistent_tape_used_twice_labels_orders():
    x = gm.constant(np.float64(2.0))
    with gm.trace() as tr:
        with gm.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x ** 3
            with pytest.warns(UserWarning, match="inside its own context"):
                g = tape.gradient(y, x)
        h = tape.gradient(g, x)
    assert float(h) == 12.0
    assert [r.level for r in tr.gradients] == [1, 2]


# -- grouping ------------------------------------------------------------------------------------
def test_traced_function_is_one_row_each_way():
    @gm.traced
    def layer(x, w):
        return np.tanh(x * w)

    x, w = gm.constant(np.array([0.5, 1.0])), gm.constant(np.array([2.0, -1.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(w)
            y = np.sum(layer(x, w))
        gw = tape.gradient(y, w)
    fwd = [r for r in tr.forward if r.node == "layer"]
    bwd = [r for r in tr.backward if r.node == "layer"]
    assert len(fwd) == 1 and len(bwd) == 1 and fwd[0].note == "2 ops folded"
    np.testing.assert_allclose(bwd[0].downstream[1], gw.numpy())
    np.testing.assert_allclose(gw.numpy(), np.array([0.5, 1.0]) * (1 - np.tanh([1.0, -1.0]) ** 2))


def test_scope_groups_a_block():
    x = gm.constant(np.float64(1.5))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            with gm.scope("block"):
                y = np.exp(x) * 2
            z = y + 1
        tape.gradient(z, x)
    assert [r.node for r in tr.forward] == ["block", "add"]


# -- folding and size --------------------------------------------------------------------------
def test_long_trace_keeps_first_and_last_rows_and_counts_the_rest():
    x = gm.constant(np.float64(0.1))
    with gm.trace(max_rows=10) as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(100):
                y = np.sin(y)
        tape.gradient(y, x)
    assert len(tr.forward) == 10 and tr.folded("forward") == 90
    assert [r.index for r in tr.forward] == [1, 2, 3, 4, 5, 96, 97, 98, 99, 100]
    assert "... 90 rows folded ..." in tr.to_text()


def test_trace_does_not_change_gradients():
    def run():
        x = gm.constant(np.linspace(-1, 1, 5))
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(np.tanh(x) * x + np.exp(-x))
        return tape.gradient(y, x).numpy()
    plain = run()
    with gm.trace():
        traced = run()
    np.testing.assert_array_equal(plain, traced)


# -- names ----------------------------------------------------------------------------------------
def test_rows_use_the_users_names_never_ids():
    W = gm.Variable(np.ones((2, 2)), name="weights")
    inputs = gm.constant(np.array([1.0, 2.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            hidden = inputs @ W
            loss = np.sum(hidden)
        tape.gradient(loss, W)
    text = tr.to_text()
    assert "inputs=[1, 2], weights=[[1, 1], [1, 1]]" in text
    assert "d(loss)/d(weights)" in text
    assert "0x" not in text and str(id(W)) not in text


def traced(program):
    """The trace of ``program(gm, np)``, its values named after the program's variables."""
    with gm.trace() as tr:
        names = program()
    tr.name_values(names)
    return tr


def sqrt_times_x():  # tutorial 5: two different inputs once both showed as x
    x = gm.constant(np.array([0.0, 1.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(np.sqrt(x) * x)
    tape.gradient(y, x)
    return locals()


def exp_twice():  # two values that read the same
    x = gm.constant(np.array([0.5, 1.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        z = np.exp(x) * np.exp(x)
    tape.gradient(z, x)
    return locals()


def stopped():  # a value no row produced
    a, b = gm.constant(1.0), gm.constant(2.0)
    with gm.GradientTape() as tape:
        tape.watch(a)
        c = a * gm.stop_gradient(b) + b
    tape.gradient(c, [a, b])
    return locals()


def long_chain():  # expressions too long to read: numbers, and a user's own t1
    x, t1 = gm.constant(np.array([0.1, 0.2])), gm.constant(np.array([2.0, 3.0]))
    with gm.GradientTape() as tape:
        tape.watch(x)
        loss = np.sum(np.tanh(np.exp(x) * t1 + np.sin(x)) ** 2 - np.cos(np.cos(x)))
    tape.gradient(loss, x)
    return locals()


def second_order():  # values made by the first-order pass
    x = gm.constant(np.float64(2.0))
    with gm.GradientTape() as outer:
        outer.watch(x)
        with gm.GradientTape() as inner:
            inner.watch(x)
            y = x ** 3
        dy_dx = inner.gradient(y, x)
    outer.gradient(dy_dx, x)
    return locals()


PROGRAMS = [sqrt_times_x, exp_twice, stopped, long_chain, second_order]
TRACES = {p.__name__: lambda p=p: traced(p) for p in PROGRAMS}
TRACES["log1pexp"] = softplus_nan_trace  # the demo: add's second input once showed as y
PARAMETERS = {"x", "y", "z", "a", "b", "condition"}  # what ops call their inputs


@pytest.mark.parametrize("make", TRACES.values(), ids=TRACES.keys())
def test_names_of_different_values_in_a_row_are_different(make):
    tr = make()
    user = {tr.known_name(v) for r in tr.rows() for v in (*r.inputs, *r.outputs)} - {None}
    for row in tr.rows():
        names = row.input_names()
        values = [(n, v) for n, v in zip(names, row.inputs) if isinstance(v, gm.Tensor)]
        for i, (n, v) in enumerate(values):
            for m, w in values[i + 1:]:
                assert v is w or n != m, (row, names)
            if tr.known_name(v) is None:  # an unnamed value: never a user's or a parameter's name
                assert n not in user and n not in PARAMETERS - user, (row, names)


def row_cells(tr, section):
    return [(r["node"], r["x"], r["y"]) for r in tr.to_rows() if r["section"] == section]


def test_unnamed_values_are_named_by_what_produced_them():
    assert row_cells(softplus_nan_trace(), "forward") == [
        ("exp", "x=100", "inf"), ("add", "1, exp(x)=inf", "inf"), ("log", "(1 + exp(x))=inf", "inf")]
    assert row_cells(traced(sqrt_times_x), "forward")[1] == ("multiply", "sqrt(x)=[0, 1], x=[0, 1]", "[0, 1]")
    grads = traced(stopped).to_text().split("\ngradient\n")[1]
    assert "d(c)/d(a) = 2" in grads and "d(c)/d(b) = None" in grads


def test_two_values_that_read_the_same_get_a_number_shown_where_it_is_made():
    tr = traced(exp_twice)
    assert row_cells(tr, "forward") == [
        ("exp", "x=[0.5, 1]", "[1.649, 2.718]"), ("exp", "x=[0.5, 1]", "t1=[1.649, 2.718]"),
        ("multiply", "exp(x)=[1.649, 2.718], t1=[1.649, 2.718]", "[2.718, 7.389]")]


def test_numbers_follow_the_rows_and_skip_the_users_names():
    tr = traced(long_chain)
    fwd = row_cells(tr, "forward")
    numbered = [y.split("=")[0] for _, _, y in fwd if y.startswith("t")]
    assert numbered == ["t2", "t3"]  # t1 is the user's
    assert fwd[0] == ("exp", "x=[0.1, 0.2]", "[1.105, 1.221]")
    assert fwd[1][1] == "exp(x)=[1.105, 1.221], t1=[2, 3]"  # the user's t1
    assert all(len(name) <= 24 for r in tr.rows() for name in r.input_names())


def test_values_made_by_a_backward_pass_are_numbered():
    tr = traced(second_order)
    second = [(r.node, r.input_names()) for r in tr.backward if r.level == 2]
    assert second == [("power_backward", ["t1", "x"])]  # the rule of x ** 3, one op over the seed t1


def test_text_html_and_picture_name_a_value_alike():
    pytest.importorskip("matplotlib")
    from matplotlib.text import Text
    from _html import Page

    tr = traced(exp_twice)
    assert "exp(x)=[1.649, 2.718], t1=[1.649, 2.718]" in tr.to_text()
    page = Page(tr._repr_html_())
    cells = [[c["text"] for c in r["cells"]] for r in page.table("forward")["rows"] if "gm-row" in r["class"]]
    assert cells[1][3] == "t1=[1.649, 2.718]"
    assert cells[2][2] == "exp(x)=[1.649, 2.718], t1=[1.649, 2.718]"
    shown = [t.get_text() for t in tr.plot().findobj(Text)]
    assert "with exp(x)" in shown and "t1 = [1.649, 2.718]" in shown, shown


# -- the model's outputs --------------------------------------------------------------------------
def test_to_rows_and_to_json_round_trip():
    tr, _ = seed_trace()
    rows = tr.to_rows()
    assert json.loads(tr.to_json()) == rows
    assert {"section", "level", "node", "x", "y", "upstream", "local", "downstream"} <= set(rows[0])


def test_to_frame_has_the_rows():
    pandas = pytest.importorskip("pandas")
    tr, _ = seed_trace()
    frame = tr.to_frame()
    assert isinstance(frame, pandas.DataFrame) and list(frame["downstream"][3:6]) == ["32", "256", "1024"]


def test_mimebundle_has_plain_text_and_html():
    tr, _ = seed_trace()
    bundle = tr._repr_mimebundle_()
    assert bundle["text/plain"] == tr.to_text() and "<table" in bundle["text/html"]


# -- text width ----------------------------------------------------------------------------------
@pytest.mark.parametrize("width", [80, 60, 100])
def test_text_notes_wrap_to_the_width_between_words(width):
    tr = softplus_nan_trace()
    (pitfall,) = tr.pitfalls
    lines = tr.to_text(width).splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("       ! nan-origin: "))
    note = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("         "):
            break
        note.append(line)
    assert len(note) > 3 and max(len(line) for line in note) <= width
    assert max(len(line) for line in note) > width - 15  # filled, not wrapped short
    # every word whole: the words of the lines are the words of the message, in order
    assert " ".join(" ".join(note).split()) == "! nan-origin: " + " ".join(pitfall.message.split())


def _wide_trace():
    """A trace whose natural table is wider than most terminals: a function of a matrix, a
    vector and a scalar, named at length."""
    @gm.custom_gradient
    def affine_with_a_long_name(weights, bias, scale):
        def grad_fn(upstream):
            return upstream * scale, upstream.sum(axis=0) * scale, np.sum(upstream * (weights + bias))
        return (weights + bias) * scale, grad_fn

    w, b, c = gm.constant(np.linspace(-2.0, 3.0, 12).reshape(4, 3)), gm.constant(np.array([0.5, -1.0, 2.0])), \
        gm.constant(np.float64(1.5))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch([w, b, c])
            loss = np.sum(affine_with_a_long_name(w, b, c))
        tape.gradient(loss, [w, b, c])
    return tr


@pytest.mark.parametrize("width", [76, 80, 100])
def test_text_tables_fit_the_width(width):
    """Cells are cut further (with "...") until each line fits, the widest first; a node's
    name stays whole up to 24 characters, and a header is never cut."""
    tr = _wide_trace()
    wide = tr.to_text(1000).splitlines()
    assert max(len(line) for line in wide) > 100  # the natural table: wider than all three
    lines = tr.to_text(width).splitlines()
    assert max(len(line) for line in lines) <= width
    assert "  #  node                     x" in "\n".join(lines)  # headers whole
    rows = [line for line in lines if line.startswith("  1  ")]
    assert rows and all("affine_with_a_long_name" in row for row in rows[:1])
    assert any(line.rstrip().endswith("...") for line in lines)
    assert len(lines) == len(wide)  # cut, not wrapped


def test_a_table_narrower_than_its_cells_floors_keeps_them():
    """Below what every column's floor needs (a node's name, 10 characters a cell), lines
    are longer than the width rather than cells that say nothing."""
    lines = _wide_trace().to_text(40).splitlines()
    row = next(line for line in lines if line.startswith("  2  affine_with_a_long_name  "))
    cells = row.split()
    assert cells[2] == "weights..." and len(row) > 40  # the node whole, a cell of 10


def test_text_tables_that_fit_are_left_whole():
    tr = seed_trace()[0]
    assert tr.to_text(300) == tr.to_text(1000) and "..." not in tr.to_text(300)


def test_text_width_is_the_terminals_or_fixed_where_output_is_captured():
    tr = softplus_nan_trace()
    assert str(tr) == tr.to_text(100)  # pytest captures stdout: as in a notebook's kernel
    assert tr._repr_mimebundle_()["text/plain"] == tr.to_text(100)
    code = "import sys; sys.path.insert(0, 'tests'); from _traces import softplus_nan_trace as t; print(t())"
    for columns in ("72", "120"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "COLUMNS": columns})
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == tr.to_text(int(columns)) + "\n"


# -- state --------------------------------------------------------------------------------------------
def test_no_trace_left_active_after_an_exception():
    x = gm.constant(1.0)
    with pytest.raises(ZeroDivisionError):
        with gm.trace() as tr:
            with gm.GradientTape() as tape:
                tape.watch(x)
                foo(x)
                1 / 0
    assert stack() == ()
    assert tr.forward[0].node == "foo"


def test_function_that_raises_closes_its_row():
    @gm.custom_gradient
    def bad(x):
        raise ValueError("inside")
    with gm.trace() as tr:
        with pytest.raises(ValueError):
            bad(gm.constant(1.0))
    assert tr.forward[0].note == "raised an exception" and stack() == ()


@pytest.mark.parametrize("kw,match", [
    ({"max_rows": 1}, r"trace\(max_rows=1\)"), ({"max_rows": "9"}, r"trace\(max_rows='9'\)"),
    ({"precision": 0}, r"trace\(precision=0\)")], ids=["max_rows-1", "max_rows-str", "precision-0"])
def test_bad_options_name_the_argument(kw, match):
    with pytest.raises(TypeError, match=match):
        gm.trace(**kw)


# -- terminal ------------------------------------------------------------------------------------------
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "gradmagic", *args], capture_output=True, text=True,
                          cwd=ROOT)


def test_demo_prints_both_traces():
    proc = run_cli("demo")
    assert proc.returncode == 0, proc.stderr
    lines = [line.split() for line in proc.stdout.splitlines()]
    assert ["3", "foo", "x=2", "256", "4", "1024"] in lines
    assert ["3", "exp", "x=100", "0", "inf", "nan"] in lines
    assert "  d(y)/d(x) = 1024" in proc.stdout.splitlines()


def test_demo_html_writes_a_page(tmp_path):
    page = tmp_path / "demo.html"
    proc = run_cli("demo", "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count('class="gradmagic-trace"') + text.count(
        "class='gradmagic-trace'") == 2


def test_trace_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import numpy as np, gradmagic as gm\n"
                      "w = gm.Variable(np.array([0.5, -1.0]), name='w')\n"
                      "with gm.GradientTape() as tape:\n"
                      "    loss = np.sum(w * w)\n"
                      "g = tape.gradient(loss, w)\n")
    proc = run_cli("trace", str(script))
    assert proc.returncode == 0, proc.stderr
    assert "d(loss)/d(w) = [1, -2]" in proc.stdout


def test_trace_missing_script_is_an_error(tmp_path):
    proc = run_cli("trace", str(tmp_path / "nope.py"))
    assert proc.returncode != 0 and "nope.py" in proc.stderr


def test_trace_script_options_before_the_script_and_its_own_arguments_after(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import sys, numpy as np, gradmagic as gm\n"
                      "print('argv', sys.argv[1:])\n"
                      "x = gm.constant(np.array([1.0, 2.0]))\n"
                      "with gm.GradientTape() as tape:\n"
                      "    tape.watch(x)\n"
                      "    loss = np.sum(x * x)\n"
                      "g = tape.gradient(loss, x)\n"
                      "if 'fail' in sys.argv: raise ValueError('boom')\n"
                      "if 'leave' in sys.argv: sys.exit(3)\n")
    page = tmp_path / "t.html"
    proc = run_cli("trace", "--ops", "--html", str(page), str(script), "keep", "-v")
    assert proc.returncode == 0 and "argv ['keep', '-v']" in proc.stdout and page.exists()
    assert proc.stderr == ""
    proc = run_cli("trace", str(script), "fail")
    assert proc.returncode == 1 and "d(loss)/d(x) = [2, 4]" in proc.stdout
    assert proc.stderr.strip().endswith("ValueError: boom")
    assert run_cli("trace", str(script), "leave").returncode == 3
    proc = run_cli("trace", "--max-rows", "1", str(script))
    assert proc.returncode == 2 and "expected an int of at least 2, got '1'" in proc.stderr
    # every option of gm.trace is gradmagic's, not the script's (debug/options.py)
    proc = run_cli("trace", "--ops", "--check", "--max-rows", "2", "--precision", "2", str(script))
    assert proc.returncode == 0 and "argv []" in proc.stdout, proc.stderr
    assert "rows folded" in proc.stdout and "d(loss)/d(x) = [2, 4]" in proc.stdout


# -- a transform's arguments read by the user's parameter names ------------------------------
def test_gm_grad_and_jvp_name_the_arguments_after_the_functions_parameters():
    def loss(w, x):
        return np.sum(np.tanh(w * x))

    with gm.trace() as tr:
        gm.grad(loss, argnums=(0, 1))(np.array([1.0, 2.0]), np.array([0.5, 0.1]))
    assert tr.forward[0].cells()["x"] == "w=[1, 2], x=[0.5, 0.1]"
    assert tr.to_text().splitlines()[-1].startswith("  d(sum(tanh(w * x)))/d(x) = ")
    with gm.trace() as tr:
        gm.jvp(lambda u: np.sin(u), (np.ones(2),), (np.ones(2),))
    assert [r.cells()["x"] for r in tr.forward_mode] == ["u=[1, 1]"]


def test_a_named_argument_lives_as_long_as_the_trace_so_its_id_names_nothing_else():
    import gc
    import weakref

    def traced():
        refs = []

        def f(unused, x):  # `unused` reaches no row
            refs.append(weakref.ref(unused))
            return np.sum(x * 2.0)

        with gm.trace() as tr:
            gm.grad(f, argnums=1)(gm.constant(np.ones(2)), np.ones(2))
        gc.collect()
        assert refs[0]() is not None and tr.forward[0].cells()["x"] == "x=[1, 1], 2"
        return refs[0]

    ref = traced()
    gc.collect()
    assert ref() is None  # freed with the trace


def test_variables_without_a_name_of_their_own_read_as_the_users_names_for_them():
    x = tf.Variable([3.0, 1.0, 2.0])  # TensorFlow's default name, "Variable", for both
    w = gm.Variable([1.0, 2.0, 3.0])
    named = gm.Variable(2.0, name="scale")
    with gm.trace() as tr:
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(x * w) * named
        tape.gradient(y, [x, w, named])
    assert tr.forward[0].cells()["x"] == "x=[3, 1, 2], w=[1, 2, 3]"  # not "Variable" twice
    assert tr.forward[2].cells()["x"].endswith("scale=2")


# -- checks inside a trace --------------------------------------------------------------------
def test_check_grad_inside_a_trace_shows_the_user_s_pass_not_its_probes():
    """The engine's pass over ``f`` is shown; the finite differences' probes (two calls per
    element, a step apart, which print as the same call) are the check's own."""
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.trace() as tr:
        assert gm.check_grad(foo, x)
        assert gm.check_grad(foo, x, order=2)
    assert [r.node for r in tr.forward].count("foo") == 2  # one per check, none per probe
    assert len(tr.backward) == 2 + 2 + 4  # order 1: sum, foo; order 2: its two nested passes


# -- a local derivative no one can tell: downstream / upstream where the upstream is 0 --------
@gm.custom_gradient
def _triple(x):
    return x * 3.0, lambda upstream: upstream * 3.0


def test_a_custom_function_s_local_is_unknown_where_its_upstream_is_zero_not_nan():
    """A custom function's local is downstream / upstream (its grad_fn is not run again);
    where a relu-like step upstream cut the gradient to 0 that is 0 / 0: masked and shown
    as "?", where it was NaN, in red, in a trace whose job is to find NaNs."""
    x = gm.constant(np.array([1.0, 2.0, 3.0, 4.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            loss = np.sum(np.maximum(_triple(x) - 7.0, 0.0))  # 3x > 7 for x = 3 and 4 only
        tape.gradient(loss, x)
    (row,) = [r for r in tr.backward if r.node == "_triple"]
    local = row.local[0]
    assert isinstance(local, np.ma.MaskedArray)
    np.testing.assert_array_equal(local.mask, [True, True, False, False])
    np.testing.assert_array_equal(local.compressed(), [3.0, 3.0])
    assert row.cells()["local"] == "[?, ?, 3, 3]" and "nan" not in tr.to_text(200)
    html = tr._repr_html_()
    assert "[?, ?, 3, 3]" in html and html.count(" bad") == 0


def test_a_nan_a_custom_function_makes_is_still_a_nan():
    @gm.custom_gradient
    def broken(x):
        return x * 1.0, lambda upstream: upstream * np.log(x - 2.0)  # NaN for x < 2
    x = gm.constant(np.array([1.0, 3.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            loss = np.sum(broken(x))
        with np.errstate(invalid="ignore"):
            tape.gradient(loss, x)
    (row,) = [r for r in tr.backward if r.node == "broken"]
    assert row.cells()["local"] == "[nan, 0]" and not isinstance(row.local[0], np.ma.MaskedArray)


def test_a_large_local_with_unknown_elements_says_how_many():
    from gradmagic.render._format import summary
    local = np.ma.masked_array(np.linspace(1.0, 2.0, 20), mask=np.arange(20) % 5 == 0)
    assert summary(local, brief=True) == "(20) f64 ∈ [1.053, 2] ?:4"
    assert summary(np.ma.masked_array(np.array(2.0), mask=True)) == "?"
    few = np.ma.masked_array(np.arange(5.0), mask=[True, True, True, True, False])  # one known
    assert summary(few, brief=True) == "(5) f64 ∈ [4, 4] ?:4"
    assert summary(np.ma.masked_array(np.arange(6.0), mask=np.arange(6) == 0)) == "(6) f64 [?, 1, 2, ...] min 1 max 5 ?:1"


def test_a_forward_mode_row_of_a_custom_function_is_unknown_where_the_tangent_in_is_zero():
    x = gm.constant(np.array([1.0, 2.0]))
    with gm.trace() as tr:
        gm.jvp(_triple, (x,), (gm.constant(np.array([0.0, 1.0])),))
    (row,) = [r for r in tr.forward_mode if r.node == "_triple"]
    assert row.cells()["local"] == "[?, 3]"
