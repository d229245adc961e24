"""The picture of a trace: a matplotlib Figure of the chain, forward above, backward below."""

import io
import subprocess
import sys

import numpy as np
import pytest

import gradmagic as gm

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.colors import same_color  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from gradmagic.render.plot import png_bytes, plot_trace  # noqa: E402

from _traces import foo, mlp_trace, seed_trace, softplus_nan_trace  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"
INSIDE = {"node-title", "node-inputs", "fold-title", "input-title", "output-title"}  # in boxes


def sin_chain(n, **trace_kwargs):
    z = gm.constant(0.5)
    with gm.trace(**trace_kwargs) as tr:
        with gm.GradientTape() as tape:
            tape.watch(z)
            v = z
            for _ in range(n):
                v = np.sin(v)
        tape.gradient(v, z)
    return tr


def texts(fig, gid=None):
    return [t for t in fig.findobj(Text) if t.get_text() and (gid is None or t.get_gid() == gid)]


def strings(fig, gid=None):
    return [t.get_text() for t in texts(fig, gid)]


def patches(fig, gid, kind=None):
    return [p for p in fig.findobj(kind or matplotlib.patches.Patch) if p.get_gid() == gid]


def arrow_ends(arrow):
    return arrow._posA_posB  # tail, head (matplotlib has no public getter)


# -- the figure ------------------------------------------------------------------------------

def test_plot_returns_a_figure_on_the_agg_canvas():
    tr = seed_trace()
    fig = tr.plot()
    assert isinstance(fig, Figure)
    assert isinstance(fig.canvas, FigureCanvasAgg)
    assert isinstance(plot_trace(tr), Figure)


def test_seed_chain_boxes_and_forward_values():
    fig = plot_trace(seed_trace())
    assert strings(fig, "node-title") == ["foo", "foo", "foo"]
    assert len(patches(fig, "node", FancyBboxPatch)) == 3
    # the input at the far left, then each forward value above its arrow, left to right
    values = texts(fig, "forward-value")
    assert [t.get_text() for t in sorted(values, key=lambda t: t.get_position()[0])] == \
        ["2", "4", "16", "256"]
    assert strings(fig, "input-title") == ["x"]
    assert strings(fig, "output-title") == ["y"]
    # forward values sit above the forward arrows
    arrows = patches(fig, "forward-arrow", FancyArrowPatch)
    y_arrow = arrow_ends(arrows[0])[0][1]
    assert all(t.get_position()[1] > y_arrow for t in values)


def test_seed_chain_backward_numbers_under_each_box():
    fig = plot_trace(seed_trace())
    nums = strings(fig, "backward-number")
    for line in ["upstream 1", "× local 32", "= 32",
                 "upstream 32", "× local 8", "= 256",
                 "upstream 256", "× local 4", "= 1024"]:
        assert line in nums
    # each box's numbers stand under that box: the box at the left is x=2's (256 × 4 = 1024)
    boxes = sorted(patches(fig, "node", FancyBboxPatch), key=lambda p: p.get_x())
    first = boxes[0]
    centre = first.get_x() + first.get_width() / 2
    under = [t.get_text() for t in texts(fig, "backward-number")
             if abs(t.get_position()[0] - centre) < 1e-9]
    assert under == ["upstream 256", "× local 4", "= 1024"]
    assert all(t.get_position()[1] < first.get_y() for t in texts(fig, "backward-number"))
    # the final gradient at the left end
    assert "dy/dx" in nums
    assert min((t for t in texts(fig, "backward-number") if t.get_text() == "= 1024"),
               key=lambda t: t.get_position()[0]).get_position()[0] < centre


def test_arrow_count_and_direction():
    fig = plot_trace(seed_trace())
    forward = patches(fig, "forward-arrow", FancyArrowPatch)
    backward = patches(fig, "backward-arrow", FancyArrowPatch)
    # x -> foo -> foo -> foo -> y, and the gradient back from y to x
    assert len(forward) == 4
    assert len(backward) == 4
    assert all(arrow_ends(a)[1][0] > arrow_ends(a)[0][0] for a in forward)  # to the right
    assert all(arrow_ends(a)[1][0] < arrow_ends(a)[0][0] for a in backward)  # to the left
    assert all(arrow_ends(b)[0][1] < arrow_ends(forward[0])[0][1] for b in backward)  # below
    labels = sorted(texts(fig, "backward-value"), key=lambda t: t.get_position()[0])
    assert [t.get_text() for t in labels] == ["1024", "256", "32", "1"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("make", [seed_trace, mlp_trace, softplus_nan_trace, lambda: sin_chain(200)])
@pytest.mark.parametrize("figsize", [None, (6, 2)])
def test_labels_do_not_overlap_or_get_clipped(make, figsize):
    fig = plot_trace(make(), figsize=figsize)
    renderer = fig.canvas.get_renderer()
    labels = [t.get_window_extent(renderer) for t in texts(fig)]
    assert len(labels) > 10
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            assert not a.overlaps(b), (a, b)
    # no label crosses an arrow or a box (a box's own title is inside it)
    shapes = [p.get_window_extent(renderer) for p in fig.findobj(FancyArrowPatch)]
    shapes += [p.get_window_extent(renderer) for p in fig.findobj(FancyBboxPatch)]
    free = [t.get_window_extent(renderer) for t in texts(fig)
            if t.get_gid() not in INSIDE]
    for a in free:
        for b in shapes:
            assert not a.overlaps(b), (a, b)
    # a box's title fits inside its box
    for t in texts(fig):
        if t.get_gid() in INSIDE:
            e = t.get_window_extent(renderer)
            assert any(b.x0 <= e.x0 and e.x1 <= b.x1 and b.y0 <= e.y0 and e.y1 <= b.y1
                       for b in shapes), t.get_text()
    width, height = fig.get_size_inches() * fig.dpi
    for box in labels:  # nothing clipped at the figure's edges
        assert box.x0 >= 0 and box.y0 >= 0 and box.x1 <= width and box.y1 <= height


def test_unmatched_rows_show_no_backward_numbers():
    x, c = gm.constant(3.0), gm.constant(5.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = foo(x)
            z = foo(c)  # c is not watched: no backward row for this call
            w = y + z
        tape.gradient(w, x)
    fig = plot_trace(tr)
    boxes = sorted(patches(fig, "node", FancyBboxPatch), key=lambda p: p.get_x())
    assert len(boxes) == 3

    def under(box):
        centre = box.get_x() + box.get_width() / 2
        return [t.get_text() for t in texts(fig, "backward-number")
                if abs(t.get_position()[0] - centre) < 1e-9]

    assert "× local 6" in under(boxes[0]) and "= 6" in under(boxes[0])
    assert under(boxes[1]) == []
    assert "upstream 1" in under(boxes[2])


def test_a_box_that_takes_a_value_from_further_back_gets_dashed_arrows_carrying_it():
    """y = sum(sin(x) + x * x): multiply takes x, not sin's output. The dashed arrows into
    it carry x and the gradient multiply sends to x (not sin's output and upstream), and
    the footer says what dashed means; linked arrows stay solid."""
    x = gm.constant(np.array([0.5, 1.0]))
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            a = np.sin(x)
            b = x * x
            y = np.sum(a + b)
        tape.gradient(y, x)
    fig = plot_trace(tr)
    forward = sorted(patches(fig, "forward-arrow", FancyArrowPatch), key=lambda p: arrow_ends(p)[0][0])
    backward = sorted(patches(fig, "backward-arrow", FancyArrowPatch), key=lambda p: arrow_ends(p)[1][0])
    assert [p.get_linestyle() for p in forward] == ["-", "--", "-", "-", "-"]
    assert [p.get_linestyle() for p in backward] == ["-", "--", "-", "-", "-"]
    assert strings(fig, "forward-value")[1] == "x = [0.5, 1]"  # not sin's output, a
    assert "to x: [0.5, 1]" in strings(fig, "backward-value")  # multiply's gradient for x
    assert "[0.4794, 0.8415]" not in " ".join(strings(fig, "forward-value"))
    assert any(s.startswith("dashed:") for s in strings(fig, "footer"))
    assert not any(s.startswith("dashed:") for s in strings(plot_trace(seed_trace()), "footer"))


def test_forward_only_trace_has_no_backward_row():
    x = gm.constant(2.0)
    with gm.trace() as tr:
        foo(foo(x))
    fig = plot_trace(tr)
    assert len(patches(fig, "node", FancyBboxPatch)) == 2
    assert len(patches(fig, "forward-arrow", FancyArrowPatch)) == 3
    assert patches(fig, "backward-arrow", FancyArrowPatch) == []
    assert strings(fig, "backward-number") == []


def test_mlp_side_inputs_and_gradients():
    fig = plot_trace(mlp_trace())
    assert strings(fig, "node-title") == ["matmul", "add", "tanh", "multiply", "sum"]
    every = " ".join(strings(fig))
    assert "with W" in every and "with b" in every
    assert "W: × local xs.T @ upstream" in strings(fig, "backward-number")  # label filled in
    assert "{0}" not in every and "{1}" not in every
    assert "∈ [0.1049, 0.8843]" in every  # dL/dW under matmul
    footer = strings(fig, "footer")
    assert any(s.startswith("d(loss)/d(W) =") for s in footer)
    assert any(s.startswith("d(loss)/d(b) =") for s in footer)
    assert "sum of its uses" in " ".join(strings(fig, "backward-value"))  # h used twice
    # xs is not watched: no gradient flows into it, so no arrow ends at the input
    assert len(patches(fig, "backward-arrow", FancyArrowPatch)) == 5


# -- PNG -----------------------------------------------------------------------------------------

def test_png_bytes_and_savefig():
    tr = seed_trace()
    data = png_bytes(tr)
    assert data.startswith(PNG)
    buf = io.BytesIO()
    tr.plot().savefig(buf, format="png")
    assert buf.getvalue().startswith(PNG)
    assert png_bytes(tr.plot()).startswith(PNG)
    assert b"matplotlib version" not in data  # no "Software" stamp


def test_figure_shows_itself_in_a_notebook():
    fig = seed_trace().plot()
    assert fig._repr_png_().startswith(PNG)


def test_png_is_deterministic():
    a = png_bytes(seed_trace())
    b = png_bytes(seed_trace())
    assert a == b
    code = ("import sys; sys.path.insert(0, 'tests'); import test_render_plot as t; "
            "sys.stdout.buffer.write(t.png_bytes(t.seed_trace()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120,
                          cwd=str(__import__("pathlib").Path(__file__).parent.parent))
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == a


def test_figsize_is_honoured():
    fig = plot_trace(seed_trace(), figsize=(5, 2))
    assert tuple(fig.get_size_inches()) == (5.0, 2.0)
    assert png_bytes(fig).startswith(PNG)
    natural = plot_trace(seed_trace())
    small = max(t.get_fontsize() for t in texts(fig))
    assert small < max(t.get_fontsize() for t in texts(natural))  # text shrinks to fit


# -- large, bad, empty -----------------------------------------------------------------------

@pytest.mark.parametrize("max_rows", [50, 500])
def test_long_chain_is_folded(max_rows):
    tr = sin_chain(200, max_rows=max_rows)
    fig = plot_trace(tr)  # max_nodes=12
    assert len(patches(fig, "node", FancyBboxPatch)) == 12
    assert strings(fig, "fold-title") == ["… 188 more …"]
    assert len(patches(fig, "fold", FancyBboxPatch)) == 1
    fig = plot_trace(tr, max_nodes=5)
    assert len(patches(fig, "node", FancyBboxPatch)) == 5
    assert strings(fig, "fold-title") == ["… 195 more …"]
    # input, 3 boxes, marker, 2 boxes, output: 7 arrows each way
    assert len(patches(fig, "forward-arrow", FancyArrowPatch)) == 7
    assert len(patches(fig, "backward-arrow", FancyArrowPatch)) == 7


def test_short_chain_is_not_folded():
    fig = plot_trace(sin_chain(12))
    assert len(patches(fig, "node", FancyBboxPatch)) == 12
    assert strings(fig, "fold-title") == []


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_and_inf_are_red():
    fig = plot_trace(softplus_nan_trace())
    assert strings(fig, "node-title") == ["exp", "add", "log"]
    bad = [t for t in texts(fig) if "nan" in t.get_text() or "inf" in t.get_text()]
    assert {t.get_text() for t in bad} >= {"inf", "nan", "× local inf", "= nan"}
    assert all(same_color(t.get_color(), "red") for t in bad)
    good = [t for t in texts(fig) if t.get_text() in ("100", "upstream 1", "= 0")]
    assert good and not any(same_color(t.get_color(), "red") for t in good)
    # the box where the inf is born (exp) is outlined in red; the others are not
    boxes = sorted(patches(fig, "node", FancyBboxPatch), key=lambda p: p.get_x())
    assert [same_color(b.get_edgecolor(), "red") for b in boxes] == [True, False, False]


def test_empty_trace_says_nothing_traced():
    with gm.trace() as tr:
        pass
    fig = plot_trace(tr)
    assert isinstance(fig, Figure)
    assert strings(fig) == ["nothing traced"]
    assert png_bytes(fig).startswith(PNG)


def test_bad_arguments():
    tr = seed_trace()
    with pytest.raises(TypeError):
        plot_trace(tr, max_nodes=0)
    with pytest.raises(TypeError):
        plot_trace(tr, figsize=(0, 3))
    with pytest.raises(TypeError):
        plot_trace("not a trace")


def test_import_gradmagic_does_not_import_matplotlib():
    code = "import sys, gradmagic; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
    code = ("import sys, gradmagic, gradmagic.render.plot; print('matplotlib' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False"  # only plotting imports it
