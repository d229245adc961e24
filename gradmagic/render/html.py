"""The trace as an HTML table, for notebooks (``Trace._repr_html_``).

The same sections, rows and cells as ``render/text.py``, from the same model, as one
``<div class="gradmagic-trace">`` with its own ``<style>`` block (every rule scoped under
``.gradmagic-trace``). Backward rows read as the chain rule: upstream × local =
downstream. Cells holding a NaN or an Inf get the class ``bad``. Every string from the
user's program (names, notes, summaries) is escaped; the output has no ids, addresses or
timestamps, so the same trace renders to the same bytes.
"""

import html
import re

from ._format import bad_count, by_level, fold_text, folded_after, gradient_line, order_name

# Colours are translucent so that the block reads on light and dark notebook themes;
# selectors are specific enough to win over JupyterLab's and classic Jupyter's table rules.
STYLE = """\
.gradmagic-trace{font-size:12px;line-height:1.4;margin:.25em 0;color:inherit;background:transparent}
.gradmagic-trace .gm-head{font-weight:600;margin:0 0 .4em}
.gradmagic-trace .gm-head .gm-dim{font-weight:400}
.gradmagic-trace table.gm-t{border-collapse:collapse;border-spacing:0;border:none;table-layout:auto;margin:0 0 1em 0;font-size:12px;width:auto;background:transparent}
.gradmagic-trace table.gm-t caption{caption-side:top;white-space:nowrap;text-align:left;font-weight:600;padding:0 0 .25em;color:inherit}
.gradmagic-trace table.gm-t caption .gm-dim{font-weight:400}
.gradmagic-trace table.gm-t th,.gradmagic-trace table.gm-t td{text-align:left;vertical-align:top;padding:.2em .6em;border:none;white-space:normal;max-width:26em;overflow-wrap:anywhere;line-height:1.4;color:inherit}
.gradmagic-trace table.gm-t thead th{font-weight:600;border-bottom:1px solid rgba(127,127,127,.55);white-space:nowrap}
.gradmagic-trace table.gm-t tbody tr{background:transparent}
.gradmagic-trace table.gm-t tbody tr.gm-row>td{border-top:1px solid rgba(127,127,127,.2)}
.gradmagic-trace table.gm-t tbody tr:first-child>td{border-top:none}
.gradmagic-trace table.gm-t tbody tr.gm-row:hover{background:rgba(127,127,127,.08)}
.gradmagic-trace table.gm-t td.gm-i,.gradmagic-trace table.gm-t th.gm-i{text-align:right;opacity:.6;padding-right:.3em}
.gradmagic-trace table.gm-t td.gm-v{font-family:var(--jp-code-font-family,ui-monospace,SFMono-Regular,Menlo,Consolas,monospace)}
.gradmagic-trace .gm-dim,.gradmagic-trace .gm-n{opacity:.6}
.gradmagic-trace .gm-p{display:block}
.gradmagic-trace .gm-w{display:inline-block;max-width:100%}
.gradmagic-trace table.gm-t td.gm-node{white-space:nowrap}
.gradmagic-trace tr.gm-k-function td.gm-node{font-weight:600}
.gradmagic-trace tr.gm-k-sum td.gm-node,.gradmagic-trace tr.gm-k-broadcast td.gm-node{font-style:italic}
.gradmagic-trace table.gm-t .gm-up{border-left:2px solid rgba(127,127,127,.25)}
.gradmagic-trace table.gm-t .gm-local,.gradmagic-trace table.gm-t .gm-down{position:relative;padding-left:1.5em}
.gradmagic-trace .gm-op{position:absolute;left:.35em;top:.2em;width:.9em;text-align:center;opacity:.55;font-weight:600;font-family:inherit}
.gradmagic-trace table.gm-t td.gm-down{font-weight:600}
.gradmagic-trace table.gm-t td.bad,.gradmagic-trace .gm-grads td.bad{background:rgba(230,40,40,.18);color:inherit}
.gradmagic-trace table.gm-t tr.gm-note>td,.gradmagic-trace table.gm-t tr.gm-fold>td{max-width:none}
.gradmagic-trace table.gm-t tr.gm-note>td{padding-top:0;font-size:11px}
.gradmagic-trace .gm-msg{opacity:.75;font-style:italic}
.gradmagic-trace table.gm-t.gm-wide{min-width:50em}
.gradmagic-trace .gm-pit{display:block;width:0;min-width:100%;box-sizing:border-box;margin:.1em 0;padding:.1em .5em;border-left:3px solid rgba(217,140,0,.9);background:rgba(240,170,0,.13)}
.gradmagic-trace .gm-pit b{font-weight:600}
.gradmagic-trace table.gm-t tr.gm-fold>td{text-align:center;opacity:.6;font-style:italic;border-top:1px dashed rgba(127,127,127,.45);border-bottom:1px dashed rgba(127,127,127,.45)}
.gradmagic-trace table.gm-grads td{padding:.15em .6em .15em 0}
.gradmagic-trace table.gm-grads td.gm-eq{opacity:.6;padding-right:.4em}
.gradmagic-trace table.gm-grads td.gm-v{font-weight:600;padding:.15em .5em}
"""

_MARK = {"mul": ("&times;", "="), "rule": ("&rarr;", "&rarr;")}


def _e(text):
    return html.escape(str(text), quote=True)


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
    name, text = (f'<span class="gm-n">{_e(mark)}</span>' if mark else ""), text[len(mark):]
    m = _SHAPE.match(text)
    if not m:
        return name + _e(text)
    # a large array: shape and dtype, first values, range, counts; lines break between them
    rest = text[m.end():]
    cuts = [0] + sorted(i for i in (rest.find(w, 1) for w in _STATS) if i > 0) + [len(rest)]
    parts = [rest[i:j] for i, j in zip(cuts, cuts[1:]) if j > i]
    return (name + f'<span class="gm-w gm-dim">{_e(m.group(1))}</span>'
            + "".join(f' <span class="gm-w">{_e(t[1:])}</span>' if t[:1] == " "
                      else f'<span class="gm-w">{_e(t)}</span>' for t in parts))


def _content(text, names=(), sep=", "):
    """A cell's text as html: one block per input when there are several."""
    pieces = _parts(text, names, sep) if names and len(text) > _LONG else [text]
    if len(pieces) == 1:
        return _value(text, names)
    return "".join(f'<span class="gm-p">{_value(t, names)}</span>' for t in pieces)


def _terms(text):
    """The gradients a fan-in row adds up, one a line: ``a`` / ``+ b``."""
    terms = text.split(" + ")
    if len(terms) == 1:
        return _value(text)
    return " ".join(f'<span class="gm-p">{"+ " if k else ""}{_value(t)}</span>'
                    for k, t in enumerate(terms))


def _cell(content, value, extra="", mark=None):
    """A value cell: ``bad`` when ``value`` holds a NaN or an Inf."""
    try:
        bad = bool(bad_count(value))
    except Exception:  # a value bad_count cannot read: shown as is, unmarked
        bad = False
    cls = "gm-v" + (" " + extra if extra else "") + (" bad" if bad else "")
    op = f'<span class="gm-op">{mark}</span>' if mark else ""
    return f'<td class="{cls}">{op}{content}</td>'


def _notes(row, width, lead=True):
    """The row's note and pitfalls, each a table row under it (``lead``: past the first
    column, the row numbers')."""
    cells = f'<td></td><td colspan="{width - 1}">' if lead else f'<td colspan="{width}">'
    out = []
    if row.note:
        out.append(f'<tr class="gm-note">{cells}'
                   f'<span class="gm-msg">&middot; {_e(row.note)}</span></td></tr>')
    for f in row.pitfalls:
        out.append(f'<tr class="gm-note gm-warn">{cells}'
                   f'<span class="gm-pit">&#9888; <b>{_e(f.kind)}</b>: {_e(f.message)}</span>'
                   f"</td></tr>")
    return out


def _table(caption, header, rows, all_rows, folded, make, kind):
    width = len(header)
    wide = " gm-wide" if any(row.pitfalls for _, row in rows) else ""  # room for warnings
    lines = [f'<table class="gm-t gm-{kind}{wide}">', f"<caption>{caption}</caption>",
             "<thead><tr>" + "".join(header) + "</tr></thead>", "<tbody>"]
    for k, row in rows:
        cls = "".join(c for c in str(row.kind) if c.isalnum())
        lines.append(f'<tr class="gm-row gm-k-{cls}">' + make(row) + "</tr>")
        lines += _notes(row, width)
        n = folded_after(all_rows, k) if folded else 0
        if n:
            lines.append(f'<tr class="gm-fold"><td colspan="{width}">{_fold(n)}</td></tr>')
    lines += ["</tbody>", "</table>"]
    return lines


def _fold(n, what="rows"):
    return html.escape(fold_text(n, what)).replace("...", "&hellip;")


def _caption(main, rest=""):
    return f'{main} <span class="gm-dim">&middot; {_e(rest)}</span>' if rest else main


def render_html(trace):
    """The trace as one ``<div class="gradmagic-trace">``: a header, the forward and
    backward tables by level, and the gradients."""
    p = trace.precision
    fwd, bwd, grads = trace.forward, trace.backward, trace.gradients
    n_fwd, n_bwd = trace.total("forward"), trace.total("backward")
    out = ['<div class="gradmagic-trace">', f"<style>\n{STYLE}</style>",
           f'<div class="gm-head">gradmagic trace<span class="gm-dim">: {n_fwd} forward, '
           f"{n_bwd} backward rows</span></div>"]

    def index(r):
        return f'<td class="gm-i">{_e(r.index)}</td>'

    def fwd_row(r):
        c, names = r.cells(p), r.input_names()
        ctx = f'<span class="gm-dim">{_e(r.context)} &rsaquo; </span>' if r.context else ""
        return (index(r) + f'<td class="gm-node">{ctx}{_e(r.node)}</td>'
                + _cell(_content(c["x"], names), r.inputs, "gm-x")
                + _cell(_value(c["y"]), r.outputs, "gm-y"))

    def bwd_row(r):
        c, names = r.cells(p), r.input_names()
        local = r.local
        numeric = isinstance(local, tuple) and any(
            v is not None and not isinstance(v, str) for v in local)
        times, equals = _MARK["mul" if numeric else "rule"]
        if r.kind in ("sum", "broadcast"):
            x_value, down_value = None, r.downstream or r.upstream
            up = _terms(c["upstream"])
        else:
            x_value, down_value = r.inputs, r.downstream
            up = _value(c["upstream"])
        return (index(r) + f'<td class="gm-node">{_e(r.node)}</td>'
                + _cell(_content(c["x"], names), x_value, "gm-x")
                + _cell(up, r.upstream, "gm-up")
                + _cell(_content(c["local"], names), local if numeric else None, "gm-local", times)
                + _cell(_content(c["downstream"], names), down_value, "gm-down", equals))

    fwd_header = ['<th class="gm-i">#</th>', "<th>node</th>", "<th>x</th>", "<th>y</th>"]
    bwd_header = ['<th class="gm-i">#</th>', "<th>node</th>", "<th>x</th>",
                  '<th class="gm-up">upstream</th>',
                  '<th class="gm-local"><span class="gm-op">&times;</span>local</th>',
                  '<th class="gm-down"><span class="gm-op">=</span>downstream</th>']
    for level, rows in by_level(fwd):
        caption = _caption("forward", f"ops of the {order_name(level)}" if level else "")
        out += _table(caption, fwd_header, rows, fwd, trace.folded("forward"), fwd_row, "forward")
    for level, rows in by_level(bwd):
        caption = _caption("backward", order_name(level))
        out += _table(caption, bwd_header, rows, bwd, trace.folded("backward"), bwd_row, "backward")
    if grads:
        wide = " gm-wide" if any(r.pitfalls or r.note for r in grads) else ""  # room for why
        out += [f'<table class="gm-t gm-grads{wide}">', "<caption>gradient</caption>", "<tbody>"]
        for r in grads:
            target, source, shown = gradient_line(trace, r, p)
            target, source, g = _e(target), _e(source), r.downstream[0]
            value = ('<span class="gm-dim">None (not connected)</span>' if shown is None
                     else _value(shown))
            out.append(f'<tr class="gm-row gm-k-result">'
                       f'<td class="gm-expr">d({target})/d({source})</td>'
                       f'<td class="gm-eq">=</td>{_cell(value, g)}</tr>')
            out += _notes(r, 3, lead=False)  # why a gradient is None, as the text shows it
        if trace.folded("gradient"):
            out.append(f'<tr class="gm-fold"><td colspan="3">{_fold(trace.folded("gradient"), "more")}'
                       "</td></tr>")
        out += ["</tbody>", "</table>"]
    out.append("</div>")
    return "\n".join(out)
