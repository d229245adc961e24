"""The HTML rendering of a trace: the same tables as the text, read back with
``html.parser``; escaping of everything the user's program names; determinism; NaN
highlighting; notes, folding, size, and a look carried by inline styles alone (how it
fares in a sanitizer is in test_untrusted.py)."""

import re
from html import escape
from types import SimpleNamespace

import numpy as np

import gradmagic as gm
from gradmagic.render.html import render_html

from _html import Page, declarations
from _traces import mlp_trace, seed_trace, softplus_nan_trace

ALLOWED_TAGS = {"div", "table", "caption", "thead", "tbody", "tr", "th", "td", "span", "b", "code"}
ALLOWED_ATTRS = {"class", "colspan", "style"}


def set_note(row, text):
    """Give a row a note (notes come from the trace; a hostile one is made by hand)."""
    try:
        row.note = text
    except AttributeError:  # rows are read-only views of their records
        from gradmagic.debug.rows import NOTE
        row._rec[NOTE] = text
    assert row.note == text


# -- the seed example ---------------------------------------------------------------------
def test_seed_backward_rows_read_as_the_chain_rule():
    page = Page(render_html(seed_trace()))
    back = page.table("backward · first-order pass")
    assert back["header"] == ["#", "node", "x", "upstream", "local", "downstream"]
    assert page.data_rows("backward · first-order pass") == [
        ["1", "foo", "x=16", "1", "32", "32"],
        ["2", "foo", "x=4", "32", "8", "256"],
        ["3", "foo", "x=2", "256", "4", "1024"]]
    # local and downstream carry the × and = markers between the cells
    rows = [r["cells"] for r in back["rows"] if "gm-row" in r["class"]]
    assert [[c["op"] for c in cells] for cells in rows] == [["", "", "", "", "×", "="]] * 3


def test_seed_forward_rows_notes_and_final_gradient():
    html = render_html(seed_trace())
    page = Page(html)
    assert page.data_rows("forward") == [["1", "foo", "x=2", "4"], ["2", "foo", "x=4", "16"],
                                         ["3", "foo", "x=16", "256"]]
    fwd_rows = page.table("forward")["rows"]
    kinds = [r["class"][0] for r in fwd_rows]
    assert kinds == ["gm-row"] * 3  # one op folded inside each call: no note for that
    assert page.data_rows("gradient") == [["d(y)/d(x)", "=", "1024"]]
    head = re.search(r'<div class="gm-head"[^>]*>(.*?)</div>', html).group(1)
    assert re.sub(r"<[^>]+>", "", head) == "gradmagic trace: 3 forward, 3 backward rows"


def test_sections_split_by_level_with_the_text_renderers_captions():
    x = gm.constant(100.0)
    with gm.trace(ops=True) as tr:
        with gm.GradientTape() as t2:
            t2.watch(x)
            with gm.GradientTape() as t1:
                t1.watch(x)
                y = x ** 3
            d = t1.gradient(y, x)
        dd = t2.gradient(d, x)
    assert float(dd) == 600.0
    page = Page(render_html(tr))
    assert [t["caption"] for t in page.tables] == [
        "forward", "forward · ops of the first-order pass",
        "backward · first-order pass", "backward · second-order pass", "gradient"]
    text = str(tr)
    for caption in ("forward · ops of the first-order pass", "backward · second-order pass"):
        assert caption in text
    # the first-order pass recorded its rule as one op, the fused power_backward(seed, x)
    assert page.data_rows("backward · second-order pass") == [
        ["2", "power_backward", "t1=1, x=100", "1", "x=600", "x=600"]]
    assert page.data_rows("gradient") == [["d(y)/d(x)", "=", "30000"], ["d(d)/d(x)", "=", "600"]]


# -- escaping ------------------------------------------------------------------------------
def test_hostile_names_notes_and_pitfalls_render_inert():
    def f(x):
        return x ** 2, (lambda upstream: upstream * 2 * x)
    f.__name__ = "<script>alert(1)</script>"
    f = gm.custom_gradient(f)
    v = gm.Variable(np.float32(3.0), name="<img src=x onerror=alert(1)>")
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            with gm.scope("<svg onload=alert(1)>"):
                z = f(v) * 1.0
        gz = tape.gradient(z, v)
    assert float(gz) == 6.0
    row = tr.backward[0]
    set_note(row, '<b onmouseover="alert(1)">note</b> & more')
    row.pitfalls.append(SimpleNamespace(kind="<i>kind</i>", message="<iframe src=x></iframe>"))
    html = render_html(tr)

    for raw in ("<script", "<img", "<svg", "<iframe", "<i>", "<b onmouseover", 'onerror="'):
        assert raw not in html.lower()
    for escaped in ("&lt;script&gt;alert(1)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;",
                    "&lt;svg onload=alert(1)&gt;", "&lt;b onmouseover=&quot;alert(1)&quot;&gt;",
                    "&amp; more", "&lt;iframe src=x&gt;&lt;/iframe&gt;", "&lt;i&gt;kind&lt;/i&gt;"):
        assert escaped in html
    page = Page(html)
    for tag, attrs in page.tags:
        assert tag in ALLOWED_TAGS, tag
        assert set(attrs) <= ALLOWED_ATTRS, attrs
    # the names still read as the user wrote them
    assert page.data_rows("forward")[0][1] == "<svg onload=alert(1)>"
    assert page.data_rows("gradient") == [["d(z)/d(<img src=x onerror=alert(1)>)", "=", "6"]]
    notes = [r["cells"][1]["text"] for r in page.table("backward · first-order pass")["rows"]
             if "gm-note" in r["class"]]
    assert notes[0] == '· <b onmouseover="alert(1)">note</b> & more'
    assert notes[1].endswith("<i>kind</i>: <iframe src=x></iframe>")


def test_hostile_custom_function_name_in_both_tables():
    def g(x):
        return x * 3.0, (lambda upstream: upstream * 3.0)
    g.__name__ = "<script>alert(1)</script>"
    g = gm.custom_gradient(g)
    x = gm.constant(2.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = g(x)
        tape.gradient(y, x)
    html = render_html(tr)
    assert "<script" not in html.lower()
    page = Page(html)
    assert page.data_rows("forward")[0][1] == "<script>alert(1)</script>"
    back = page.data_rows("backward · first-order pass")
    assert back[0][:2] == ["1", "<script>alert(1)</script>"]


# -- determinism, size, style ----------------------------------------------------------------
def test_identical_programs_render_to_identical_bytes():
    a, b = render_html(mlp_trace()), render_html(mlp_trace())
    assert a == b
    assert render_html(seed_trace()) == render_html(seed_trace())
    assert not re.search(r"0x[0-9a-f]{6,}|\bid=|data:image|<img", a)


def test_the_look_is_inline_with_no_style_element():
    html = render_html(seed_trace())
    assert "<style" not in html and html.count('class="gradmagic-trace"') == 1
    assert html.startswith('<div class="gradmagic-trace" ') and html.endswith("</div>")
    page = Page(html)
    styled = [(tag, attrs) for tag, attrs in page.tags if tag not in ("thead", "tbody", "b", "code")]
    assert all(attrs.get("style") for _, attrs in styled), [t for t in styled if not t[1].get("style")]
    for table in page.tables:
        for row in [{"cells": table["head_cells"]}] + table["rows"]:
            for cell in row["cells"]:
                align = declarations(cell["style"])["text-align"]
                assert align == ("right" if "gm-i" in cell["class"] else "left"), cell
    # no background on the block itself, nothing that a sanitizer drops or a theme fights
    assert "background" not in declarations(page.tags[0][1]["style"])
    for _, attrs in page.tags:
        style = attrs.get("style", "")
        assert not re.search(r"var\(|inherit|#fff|[:,( ]\.\d|;$", style), style


def test_local_and_downstream_markers_sit_in_their_cells_padding():
    page = Page(render_html(seed_trace()))
    back = page.table("backward · first-order pass")
    for row in [r for r in back["rows"] if "gm-row" in r["class"]]:
        for cell in row["cells"][4:]:
            d = declarations(cell["style"])
            assert d["position"] == "relative" and d["padding-left"] == "1.5em"
    ops = [a for t, a in page.tags if t == "span" and a.get("class") == "gm-op"]
    assert len(ops) == 2 + 6  # the header's and each row's × and =
    assert all(declarations(a["style"])["position"] == "absolute" for a in ops)


def test_long_chain_is_folded_and_small():
    x = gm.constant(1.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x
            for _ in range(10_000):
                y = y * 1.0
        g = tape.gradient(y, x)
    assert float(g) == 1.0
    html = render_html(tr)
    assert len(html.encode("utf-8")) < 200_000
    page = Page(html)
    for caption in ("forward", "backward · first-order pass"):
        table = page.table(caption)
        folds = [r for r in table["rows"] if "gm-fold" in r["class"]]
        assert len(folds) == 1
        assert folds[0]["cells"][0]["text"] == "… 9950 rows folded …"
        assert folds[0]["cells"][0]["colspan"] == str(len(table["header"]))
        rows = page.data_rows(caption)
        assert len(rows) == 50
        assert [r[0] for r in rows[24:26]] == ["25", "9976"]
    # the marker sits between rows 25 and 9976
    fwd = page.table("forward")["rows"]
    k = next(i for i, r in enumerate(fwd) if "gm-fold" in r["class"])
    assert fwd[k - 1]["cells"][0]["text"] == "25" and fwd[k + 1]["cells"][0]["text"] == "9976"
    head = re.search(r'<div class="gm-head"[^>]*>(.*?)</div>', html).group(1)
    assert re.sub(r"<[^>]+>", "", head) == "gradmagic trace: 10000 forward, 10000 backward rows"


# -- NaN, broadcast, fan-in --------------------------------------------------------------------
def test_nan_and_inf_cells_are_highlighted():
    page = Page(render_html(softplus_nan_trace()))
    fwd = [r for r in page.table("forward")["rows"] if "gm-row" in r["class"]]
    assert [c["text"] for c in fwd[0]["cells"]] == ["1", "exp", "x=100", "inf"]
    assert ["bad" in c["class"] for c in fwd[0]["cells"]] == [False, False, False, True]
    back = [r for r in page.table("backward · first-order pass")["rows"] if "gm-row" in r["class"]]
    exp = back[-1]["cells"]
    assert [c["text"] for c in exp] == ["3", "exp", "x=100", "0", "inf", "nan"]
    assert ["bad" in c["class"] for c in exp] == [False, False, False, False, True, True]
    log = back[0]["cells"]
    assert [c["text"] for c in log] == ["1", "log", "(1 + exp(x))=inf", "1", "0", "0"]
    assert ["bad" in c["class"] for c in log] == [False, False, True, False, False, False]
    (grad,) = page.table("gradient")["rows"]
    assert grad["cells"][2]["text"] == "nan" and "bad" in grad["cells"][2]["class"]
    marked = [declarations(c["style"]).get("background") for c in exp]
    assert marked[4] == marked[5] == "rgba(230,40,40,0.18)" and marked[:4] == [None] * 4


def test_finite_trace_has_no_bad_cells():
    html = render_html(seed_trace())
    assert not any("bad" in (a.get("class") or "").split() for _, a in Page(html).tags)


def test_broadcast_and_fan_in_rows_appear_with_their_notes():
    page = Page(render_html(mlp_trace()))
    rows = page.table("backward · first-order pass")["rows"]

    def row_and_note(node):
        k = next(i for i, r in enumerate(rows)
                 if "gm-row" in r["class"] and r["cells"][1]["text"] == node)
        return rows[k], rows[k + 1]

    row, note = row_and_note("unbroadcast")
    assert "gm-k-broadcast" in row["class"]
    assert [c["text"] for c in row["cells"][2:]] == [
        "b", "(2,3) f64 [0.7269, 0.7269, 0.7269, ...] min 0.05247 max 0.7269", "sum",
        "[0.7793, 0.7793, 0.7793]"]
    assert "gm-note" in note["class"]
    assert note["cells"][1]["text"] == "· sum over broadcast axes (0,): (2, 3) -> (3,)"

    fan_in = [r for r in rows if "gm-k-sum" in r["class"]]
    assert len(fan_in) == 1
    k = rows.index(fan_in[0])
    assert [c["text"] for c in fan_in[0]["cells"][:3]] == ["3", "sum", "h"]  # after the multiply step that adds the second use
    assert fan_in[0]["cells"][3]["text"].count(" + ") == 1
    assert rows[k + 1]["cells"][1]["text"] == "· a value used twice or more: its gradients add up"

    # cells hold the same strings as the model's (what the text table shows, uncut)
    for row, r in zip([r for r in rows if "gm-row" in r["class"]], mlp_trace().backward):
        c = r.cells()
        assert [x["text"] for x in row["cells"][2:]] == [
            c["x"], c["upstream"], c["local"], c["downstream"]]


def test_trace_repr_html_is_render_html():
    tr = seed_trace()
    assert tr._repr_html_() == render_html(tr)


def test_pitfalls_show_as_warnings_under_their_row():
    tr = softplus_nan_trace(check=True)
    flagged = [r for r in tr.backward if r.pitfalls]
    assert flagged, "the naive softplus should flag where its NaN was born"
    page = Page(render_html(tr))
    table = page.table("backward · first-order pass")
    assert "gm-wide" in table["class"]
    rows = table["rows"]
    for row in flagged:
        k = next(i for i, r in enumerate(rows)
                 if "gm-row" in r["class"] and r["cells"][0]["text"] == str(row.index))
        warnings = rows[k + 1:k + 1 + len(row.pitfalls)]
        assert all("gm-warn" in r["class"] for r in warnings)
        assert [r["cells"][1]["text"] for r in warnings] == [
            f"\u26a0 {p.kind}: {p.message}" for p in row.pitfalls]
        assert warnings[0]["cells"][1]["colspan"] == "5"


def test_why_a_gradient_is_none_is_shown_under_its_row_in_html():
    x, z = gm.constant(2.0), gm.constant(1.0)
    with gm.trace() as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, [x, z])
    page = render_html(tr)
    grads = page[page.index('<table class="gm-t gm-grads'):]
    row = grads.index("d(y)/d(z)")
    note = grads.index("none-gradient")
    assert row < note and "z was never watched" in grads and "tape.watch(z)" in grads
    assert "gm-wide" in grads[:grads.index(">")]  # room for the explanation


def test_markdown_code_in_notes_becomes_code_and_stays_escaped():
    tr = seed_trace()
    row = tr.backward[0]
    set_note(row, "write `x = <b>&</b>` or `y`; a lone ` stays")
    row.pitfalls.append(SimpleNamespace(kind="k", message="see `<script>alert(1)</script>`"))
    html = render_html(tr)
    assert "<code>x = &lt;b&gt;&amp;&lt;/b&gt;</code> or <code>y</code>; a lone ` stays" in html
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in html and "<script" not in html


def test_a_pitfalls_code_shows_as_code():
    @gm.custom_gradient
    def double(x):
        return 2 * x, lambda upstream: 2.0 + 0 * x  # forgets upstream

    x = gm.constant(np.array([1.0, 2.0]))
    with gm.trace(check=True) as tr:
        with gm.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(double(x) ** 2)
        tape.gradient(y, x)
    message = next(f.message for f in tr.pitfalls if "`" in f.message)
    code = message.split("`")[1]  # "return upstream * 2 * x"
    page = render_html(tr)
    assert f"<code>{escape(code)}</code>" in page and "`" not in page
