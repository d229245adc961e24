"""The trace as an HTML table, for notebooks (``Trace._repr_html_``).

The same sections, rows and cells as ``render/text.py``, from the same model, as one
``<div class="gradmagic-trace">``. Backward rows read as the chain rule: upstream ×
local = downstream. Cells holding a NaN or an Inf get the class ``bad``. Every string
from the user's program (names, notes, summaries) is escaped; Markdown's `code` in a note
becomes ``<code>``. The output has no ids, addresses or timestamps, so the same trace
renders to the same bytes.

The look is in each element's own ``style`` attribute, not in a ``<style>`` element: a
notebook opened untrusted (JupyterLab, Jupyter Notebook), GitHub's viewer and VS Code drop
``<style>`` and keep the inline declarations their sanitizer allows (JupyterLab's rules:
no ``var()``, no ``inherit``, an alpha written ``0.5``, not ``.5``). So a stored output
looks as it did when the cell ran. The classes stay, as names for tests and for anyone who
styles the block further.
"""

import html
import re

from ._format import (bad_count, by_level, fold_text, folded_after, forward_mode_heading, gradient_line,
                      order_name)

# Colours are translucent so that the block reads on light and dark notebook themes. Each
# table declaration overrides one of JupyterLab's rules for rendered HTML (cells
# right-aligned and padded, tables centred with a fixed layout, rows striped).
TABLE = ("border-collapse:collapse;border-spacing:0;border:none;table-layout:auto;"
         "margin:0 0 1em 0;font-size:12px;width:auto;background:transparent;overflow-wrap:break-word")
CAPTION = "caption-side:top;white-space:nowrap;text-align:left;font-weight:600;padding:0 0 0.25em"
CELL = "text-align:left;vertical-align:top;padding:0.2em 0.6em;max-width:26em"  # on every cell
MONO = "font-family:ui-monospace,Menlo,Consolas,monospace"  # on the rows of values (inherited)
HEAD_CELL = "font-weight:600;border-bottom:1px solid rgba(127,127,127,0.55);white-space:nowrap"
ROW = "background:transparent"
RULE = "border-top:1px solid rgba(127,127,127,0.2)"  # between rows: a row's border (collapsed model)
GRADIENT_CELL = "padding:0.15em 0.6em 0.15em 0"
NOTE = "max-width:none;padding-top:0;font-size:11px"
FOLD = ("max-width:none;text-align:center;opacity:0.6;font-style:italic;"
        "border-top:1px dashed rgba(127,127,127,0.45);border-bottom:1px dashed rgba(127,127,127,0.45)")
STYLE = {  # class -> its declarations; an element's classes apply in order, a later one wins
    "gradmagic-trace": "font-size:12px;line-height:1.4;margin:0.25em 0",
    "gm-head": "font-weight:600;margin:0 0 0.4em",
    "gm-wide": "min-width:50em",  # room for the notes under the rows
    "gm-i": "text-align:right;opacity:0.6;padding-right:0.3em",
    "gm-node": "white-space:nowrap",
    "gm-k-function": "font-weight:600",
    "gm-k-sum": "font-style:italic",
    "gm-k-broadcast": "font-style:italic",
    "gm-up": "border-left:2px solid rgba(127,127,127,0.25)",
    "gm-local": "position:relative;padding-left:1.5em",  # room for the × before the value
    "gm-down": "position:relative;padding-left:1.5em",
    "gm-op": "position:absolute;left:0.4em;opacity:0.55",
    "gm-total": "font-weight:600",  # what a row sends on, and the gradients
    "bad": "background:rgba(230,40,40,0.18)",
    "gm-dim": "opacity:0.6",
    "gm-light": "font-weight:400",
    "gm-n": "opacity:0.6",
    "gm-p": "display:block",
    "gm-w": "display:inline-block;max-width:100%",
    "gm-msg": "opacity:0.75;font-style:italic",
    "gm-pit": ("display:block;width:0;min-width:100%;box-sizing:border-box;margin:0.1em 0;"
               "padding:0.1em 0.5em;border-left:3px solid rgba(217,140,0,0.9);"
               "background:rgba(240,170,0,0.13)"),
    "gm-pit-info": "border-left:3px solid rgba(60,130,220,0.9);background:rgba(60,130,220,0.1)",
    "gm-eq": "opacity:0.6;padding-right:0.4em",
    "gm-result": "padding:0.15em 0.5em",
}

_MARK = {"mul": ("&times;", "="), "rule": ("&rarr;", "&rarr;")}


def _e(text):
    return html.escape(str(text), quote=True)


def _prose(text):
    """A note or a message: escaped, with Markdown's `code` as ``<code>``."""
    return re.sub(r"`([^`\n]+)`", r"<code>\1</code>", _e(text))


def _style(*declarations):
    """``declarations`` (strings of ``property:value;...``) as one style, a later value of a
    property in place of an earlier one."""
    merged = {}
    for text in declarations:
        for d in filter(None, text.split(";")):
            prop, _, value = d.partition(":")
            merged[prop] = value
    return ";".join(f"{p}:{v}" for p, v in merged.items())


def _attrs(classes, *base):
    """`` class="..." style="..."``: the declarations ``base``, then each class's."""
    style = _style(*base, *(STYLE.get(c, "") for c in classes.split()))
    return (f' class="{classes}"' if classes else "") + (f' style="{style}"' if style else "")


def _tr(classes, *base):
    """A row's start tag: its classes name it; only ``base`` styles it."""
    return f'<tr class="{classes}" style="{_style(*base)}">'


def _span(classes, content):
    return f"<span{_attrs(classes)}>{content}</span>"


def _td(classes, content, *base, colspan=None, tag="td"):
    """A table cell, left-aligned and padded (``CELL``), then ``base``, then its classes."""
    span = f' colspan="{colspan}"' if colspan else ""
    return f"<{tag}{_attrs(classes, CELL, *base)}{span}>{content}</{tag}>"


def _parts(text, names, sep=", "):
    """``text`` cut where each input's ``name=`` (or ``name: ``) begins, for one line per
    input; the pieces join back to ``text``. Only the display uses the cut."""
    cuts, pos = [0], 0
    for n in names:
        for mark in (f"{sep}{n}=", f"{sep}{n}: "):
            i = text.find(mark, pos + 1)
            if i > 0:
                cuts.append(i + len(sep))
                pos = i + 1
                break
    cuts.append(len(text))
    return [text[i:j] for i, j in zip(cuts, cuts[1:]) if j > i]


_SHAPE = re.compile(r"^(\(\d*(?:,\d+)*\) [a-z0-9]+)(?= )")
_LONG = 24  # a cell longer than this shows one input a line
_STATS = (" min ", " \u2208 ", " nan:", " inf:")


def _value(text, names=()):
    """One input's ``name=value``: the name and an array's shape and dtype dimmed."""
    mark = next((m for n in names for m in (f"{n}=", f"{n}: ") if n and text.startswith(m)), "")
    name, text = (_span("gm-n", _e(mark)) if mark else ""), text[len(mark):]
    m = _SHAPE.match(text)
    if not m:
        return name + _e(text)
    # a large array: shape and dtype, first values, range, counts; lines break between them
    rest = text[m.end():]
    cuts = [0] + sorted(i for i in (rest.find(w, 1) for w in _STATS) if i > 0) + [len(rest)]
    parts = [rest[i:j] for i, j in zip(cuts, cuts[1:]) if j > i]
    return (name + _span("gm-w gm-dim", _e(m.group(1)))
            + "".join(" " + _span("gm-w", _e(t[1:])) if t[:1] == " " else _span("gm-w", _e(t))
                      for t in parts))


def _content(text, names=(), sep=", "):
    """A cell's text as html: one block per input when there are several."""
    pieces = _parts(text, names, sep) if names and len(text) > _LONG else [text]
    if len(pieces) == 1:
        return _value(text, names)
    return "".join(_span("gm-p", _value(t, names)) for t in pieces)


def _terms(text):
    """The gradients a fan-in row adds up, one a line: ``a`` / ``+ b``."""
    terms = text.split(" + ")
    if len(terms) == 1:
        return _value(text)
    return " ".join(_span("gm-p", ("+ " if k else "") + _value(t)) for k, t in enumerate(terms))


def _cell(content, value, extra="", mark=None, *base):
    """A value cell: ``bad`` when ``value`` holds a NaN or an Inf."""
    try:
        bad = bool(bad_count(value))
    except Exception:  # a value bad_count cannot read: shown as is, unmarked
        bad = False
    classes = "gm-v" + (" " + extra if extra else "") + (" bad" if bad else "")
    return _td(classes, (_span("gm-op", mark) if mark else "") + content, *base)


def _notes(row, width, lead=True):
    """The row's note and pitfalls, each a table row under it (``lead``: past the first
    column, the row numbers')."""
    def note(classes, content):
        first = _td("", "") if lead else ""
        return (_tr(classes, ROW) + first
                + _td("", content, NOTE, colspan=width - 1 if lead else width) + "</tr>")
    out = []
    if row.note:
        out.append(note("gm-note", _span("gm-msg", f"&middot; {_prose(row.note)}")))
    for f in row.pitfalls:  # a mistake is a warning; a note that informs, information
        info = getattr(f, "info", False)
        out.append(note("gm-note gm-info" if info else "gm-note gm-warn",
                        _span("gm-pit gm-pit-info" if info else "gm-pit",
                              f"{'&#8505;' if info else '&#9888;'} <b>{_e(f.kind)}</b>: "
                              f"{_prose(f.message)}")))
    return out


def _table(caption, header, rows, all_rows, folded, make, kind):
    width = len(header)
    wide = " gm-wide" if any(row.pitfalls for _, row in rows) else ""  # room for warnings
    lines = [f"<table{_attrs(f'gm-t gm-{kind}{wide}', TABLE)}>",
             f'<caption style="{CAPTION}">{caption}</caption>',
             "<thead>" + _tr("gm-head-row", ROW) + "".join(header) + "</tr></thead>", "<tbody>"]
    for n, (k, row) in enumerate(rows):
        cls = "".join(c for c in str(row.kind) if c.isalnum())
        lines.append(_tr(f"gm-row gm-k-{cls}", ROW, MONO, RULE if n else "") + make(row) + "</tr>")
        lines += _notes(row, width)
        n_folded = folded_after(all_rows, k) if folded else 0
        if n_folded:
            lines.append(_tr("gm-fold", ROW) + _td("", _fold(n_folded), FOLD, colspan=width)
                         + "</tr>")
    lines += ["</tbody>", "</table>"]
    return lines


def _fold(n, what="rows"):
    return html.escape(fold_text(n, what)).replace("...", "&hellip;")


def _caption(main, rest=""):
    return f"{main} " + _span("gm-dim gm-light", f"&middot; {_e(rest)}") if rest else main


def _header(*names):
    """The header cells: ``(classes, text)`` or a plain name each."""
    return [_td(c, text, HEAD_CELL, tag="th") for c, text in
            (n if isinstance(n, tuple) else ("", n) for n in names)]


def render_html(trace):
    """The trace as one ``<div class="gradmagic-trace">``: a header, the forward and
    backward tables by level, and the gradients."""
    p = trace.precision
    fwd, bwd, grads = trace.forward, trace.backward, trace.gradients
    n_fwd, n_bwd, n_tan = trace.total("forward"), trace.total("backward"), trace.total("forward-mode")
    counts = f": {n_fwd} forward, " + (f"{n_tan} forward-mode, " if n_tan else "") + f"{n_bwd} backward rows"
    out = [f"<div{_attrs('gradmagic-trace')}>",
           f"<div{_attrs('gm-head')}>gradmagic trace" + _span("gm-dim gm-light", counts) + "</div>"]

    def index(r):
        return _td("gm-i", _e(r.index))

    def node(r, text):
        cls = "".join(c for c in str(r.kind) if c.isalnum())
        return _td(f"gm-node gm-k-{cls}", text)

    def fwd_row(r):
        c, names = r.cells(p), r.input_names()
        ctx = _span("gm-dim", f"{_e(r.context)} &rsaquo; ") if r.context else ""
        return (index(r) + node(r, ctx + _e(r.node))
                + _cell(_content(c["x"], names), r.inputs, "gm-x")
                + _cell(_content(c["y"], r.output_names()), r.outputs, "gm-y"))

    def bwd_row(r):
        c, names = r.cells(p), r.input_names()
        local = r.local
        numeric = isinstance(local, tuple) and any(
            v is not None and not isinstance(v, str) for v in local)
        times, equals = _MARK["mul" if numeric else "rule"]
        if r.kind in ("sum", "broadcast"):
            x_value, down_value = None, r.downstream or r.upstream
            up = _terms(c["upstream"])
        elif r.section == "forward-mode":  # a tangent per input comes in
            x_value, down_value = r.inputs, r.downstream
            up = _content(c["upstream"], names)
        else:
            x_value, down_value = r.inputs, r.downstream
            up = _value(c["upstream"])
        return (index(r) + node(r, _e(r.node))
                + _cell(_content(c["x"], names), x_value, "gm-x")
                + _cell(up, r.upstream, "gm-up")
                + _cell(_content(c["local"], names), local if numeric else None, "gm-local", times)
                + _cell(_content(c["downstream"], names), down_value, "gm-down gm-total", equals))

    fwd_header = _header(("gm-i", "#"), "node", "x", "y")
    bwd_header = _header(("gm-i", "#"), "node", "x", ("gm-up", "upstream"),
                         ("gm-local", _span("gm-op", "&times;") + "local"),
                         ("gm-down", _span("gm-op", "=") + "downstream"))
    for level, rows in by_level(fwd):
        caption = _caption("forward", f"ops of the {order_name(level)}" if level else "")
        out += _table(caption, fwd_header, rows, fwd, trace.folded("forward"), fwd_row, "forward")
    tan_header = _header(("gm-i", "#"), "node", "x", ("gm-up", "tangent in"),
                         ("gm-local", _span("gm-op", "&times;") + "local"),
                         ("gm-down", _span("gm-op", "=") + "tangent out"))
    tangents = trace.forward_mode
    for level, rows in by_level(tangents):
        out += _table(_caption(*forward_mode_heading(level)), tan_header, rows, tangents,
                      trace.folded("forward-mode"), bwd_row, "forward-mode")
    for level, rows in by_level(bwd):
        caption = _caption("backward", order_name(level))
        out += _table(caption, bwd_header, rows, bwd, trace.folded("backward"), bwd_row, "backward")
    if grads:
        out += _gradients(trace, grads, p)
    out.append("</div>")
    return "\n".join(out)


def _gradients(trace, grads, p):
    """The gradients table: ``d(target)/d(source) = value``, and why one is None."""
    wide = " gm-wide" if any(r.pitfalls or r.note for r in grads) else ""  # room for why
    out = [f"<table{_attrs(f'gm-t gm-grads{wide}', TABLE)}>",
           f'<caption style="{CAPTION}">gradient</caption>', "<tbody>"]
    for k, r in enumerate(grads):
        target, source, shown = gradient_line(trace, r, p)
        value = _span("gm-dim", "None (not connected)") if shown is None else _value(shown)
        out.append(_tr("gm-row gm-k-result", ROW, MONO, RULE if k else "")
                   + _td("gm-expr", f"d({_e(target)})/d({_e(source)})", GRADIENT_CELL)
                   + _td("gm-eq", "=", GRADIENT_CELL)
                   + _cell(value, r.downstream[0], "gm-total gm-result", None, GRADIENT_CELL)
                   + "</tr>")
        out += _notes(r, 3, lead=False)  # why a gradient is None, as the text shows it
    if trace.folded("gradient"):
        out.append(_tr("gm-fold", ROW) + _td("", _fold(trace.folded("gradient"), "more"), FOLD, colspan=3)
                   + "</tr>")
    out += ["</tbody>", "</table>"]
    return out
