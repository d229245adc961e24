"""The trace as an untrusted notebook shows it: its HTML through JupyterLab's sanitizer
rules (``_sanitize.py``), live and as stored in the tutorials.

A notebook someone else wrote opens untrusted: ``<style>`` and ``<script>`` go, and so
does every inline declaration the sanitizer does not allow. Without their styles
JupyterLab right-aligns table cells, runs ``×local`` into ``=downstream``, shows NaN cells
plain and a pitfall note as a grey paragraph. These tests read what is left.
"""

from pathlib import Path

import nbformat
import pytest

from gradmagic.render.html import render_html

from _html import Page, declarations
from _sanitize import clean_style, sanitize
from _traces import mlp_trace, seed_trace, softplus_nan_trace

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def stored_traces(path):
    """The HTML of every trace stored in the notebook at ``path``."""
    nb = nbformat.read(path, as_version=4)
    return [out["data"]["text/html"] for cell in nb.cells if cell.cell_type == "code"
            for out in cell.outputs if "gradmagic-trace" in out.get("data", {}).get("text/html", "")]


def pitfall_trace():
    """A trace with a note box under a row: the naive softplus's NaN, with --check."""
    return softplus_nan_trace(check=True)


def assert_looks_right(page):
    """Cells left-aligned (row numbers right), × and = in their own room, note boxes
    boxed, NaN cells marked: what the inline styles are there for."""
    for table in page.tables:
        for row in [{"class": [], "cells": table["head_cells"]}] + table["rows"]:
            for cell in row["cells"]:
                align = declarations(cell["style"]).get("text-align")
                want = "right" if "gm-i" in cell["class"] else "center" if "gm-fold" in row["class"] \
                    else "left"
                assert align == want, (table["caption"], cell)
                if cell["op"]:  # the × or = sits in the cell's left padding, before the value
                    d = declarations(cell["style"])
                    assert d.get("position") == "relative" and d.get("padding-left") == "1.5em"
                if "bad" in cell["class"]:
                    assert declarations(cell["style"]).get("background", "").startswith("rgba(230,")
    for tag, attrs in page.tags:
        d = declarations(attrs.get("style", ""))
        if "gm-op" in attrs.get("class", ""):
            assert d.get("position") == "absolute"
        if "gm-pit" in attrs.get("class", ""):
            assert d.get("display") == "block" and d.get("border-left", "").startswith("3px solid")
            # a mistake's box is amber, an informational note's (an intentional surrogate) blue
            tint = "rgba(60,130,220," if "gm-pit-info" in attrs["class"] else "rgba(240,170,0,"
            assert d.get("background", "").startswith(tint)


# -- the rules the sanitizer stands for ------------------------------------------------------
@pytest.mark.parametrize("style, kept", [
    ("text-align:left", "text-align:left"),
    ("opacity:0.6", "opacity:0.6"),
    ("opacity:.6", None),  # JupyterLab's alpha needs the 0
    ("color:inherit", None),
    ("font-family:var(--jp-code-font-family,monospace)", None),
    ("overflow-wrap:anywhere", None),
    ("border-left:3px solid rgba(217,140,0,0.9)", "border-left:3px solid rgba(217,140,0,0.9)"),
    ("border-left:3px solid rgba(217,140,0,.9)", None),
    ("text-align:left;behavior:url(x.htc);padding:0.2em 0.6em", "text-align:left;padding:0.2em 0.6em"),
], ids=["align", "opacity", "opacity-no-zero", "inherit", "var", "anywhere", "rgba", "rgba-no-zero",
        "unknown-property"])
def test_sanitizer_keeps_only_allowed_declarations(style, kept):
    assert clean_style(style) == kept


def test_sanitizer_drops_style_script_and_handlers():
    dirty = ('<div class="a" onclick="x()" style="opacity:.5"><style>td{color:red}</style>'
             '<script>alert(1)</script><table><tr><td colspan="2" style="text-align:left">1 &lt; 2'
             '</td></tr></table><svg><circle/></svg></div>')
    assert sanitize(dirty) == ('<div class="a"><table><tr><td colspan="2" style="text-align:left">'
                               '1 &lt; 2</td></tr></table></div>')


# -- a trace keeps its look ------------------------------------------------------------------
@pytest.mark.parametrize("make", [seed_trace, mlp_trace, softplus_nan_trace, pitfall_trace],
                         ids=["seed", "mlp", "nan", "pitfall"])
def test_a_trace_loses_nothing_in_the_sanitizer(make):
    html = render_html(make())
    assert Page(sanitize(html)).tags == Page(html).tags
    assert_looks_right(Page(sanitize(html)))


def test_a_note_box_and_nan_cells_survive():
    page = Page(sanitize(render_html(pitfall_trace())))
    assert any("gm-pit" in a.get("class", "") for _, a in page.tags)
    assert any("bad" in c["class"] for t in page.tables for r in t["rows"] for c in r["cells"])


# -- the stored tutorials --------------------------------------------------------------------
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_trace_looks_right_untrusted(path):
    traces = stored_traces(path)
    if not traces:
        pytest.skip(f"{path.name} stores no trace")
    for html in traces:
        shown = sanitize(html)
        assert "<style" not in html and "<script" not in html
        assert Page(shown).tags == Page(html).tags  # nothing was lost
        assert_looks_right(Page(shown))


def test_stored_tutorials_show_note_boxes_and_nan_cells():
    pages = [Page(sanitize(h)) for p in NOTEBOOKS for h in stored_traces(p)]
    boxes = [a for page in pages for _, a in page.tags if "gm-pit" in a.get("class", "")]
    bad = [c for page in pages for t in page.tables for r in t["rows"] for c in r["cells"]
           if "bad" in c["class"]]
    assert len(boxes) >= 5 and len(bad) >= 5
