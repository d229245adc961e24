"""The trace as a fixed-width table, for terminals and plain-text notebook output."""

import textwrap

from ._format import by_level, fold_text, folded_after, forward_mode_heading, gradient_line, order_name

WIDTH = 48  # longest cell before it is cut with "..."


def _cut(text):
    return text if len(text) <= WIDTH else text[: WIDTH - 3] + "..."


def _table(header, rows, notes):
    """Columns padded to their widest cell; ``notes[i]`` lines go under row ``i``."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    fmt = "  " + "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header).rstrip()]
    for row, extra in zip(rows, notes):
        lines.append(fmt.format(*row).rstrip())
        lines += [f"       {line}" for line in extra]
    return lines


def _wrap(text, first):
    """``text`` wrapped at 96 columns, its own line breaks (code) kept."""
    lines = []
    for k, para in enumerate(text.split("\n")):
        if "    " in para or para.startswith(("def ", "@")):  # code: as written
            lines.append("  " + para)
            continue
        lines += textwrap.wrap(para, 96, initial_indent=first if k == 0 else "  ",
                               subsequent_indent="  ") or [""]
    return lines


def _notes(row):
    out = []
    if row.note:
        out += _wrap(row.note, "· ")
    for f in row.pitfalls:
        out += _wrap(f"{f.kind}: {f.message}", "! ")
    return out


def _sections(rows, folded, make, header):
    """Rows split by level, with a line where rows were folded."""
    out = []
    for level, group in by_level(rows):
        body, notes = [], []
        for k, row in group:
            body.append(make(row))
            notes.append(_notes(row))
            n = folded_after(rows, k) if folded else 0
            if n:
                notes[-1] = notes[-1] + [fold_text(n)]
        out.append((level, _table(header, body, notes)))
    return out


def render_text(trace):
    p = trace.precision
    fwd, bwd, grads = trace.forward, trace.backward, trace.gradients
    tangents = trace.forward_mode
    n_tan = trace.total("forward-mode")
    lines = [f"gradmagic trace: {trace.total('forward')} forward, "
             + (f"{n_tan} forward-mode, " if n_tan else "") + f"{trace.total('backward')} backward rows"]

    def fwd_row(r):
        c = r.cells(brief=True)
        node = r.node if not r.context else f"{r.context} › {r.node}"
        return [str(r.index), _cut(node), _cut(c["x"]), _cut(c["y"])]

    def bwd_row(r):
        c = r.cells(brief=True)
        return [str(r.index), _cut(r.node), _cut(c["x"]), _cut(c["upstream"]), _cut(c["local"]),
                _cut(c["downstream"])]

    for level, table in _sections(fwd, trace.folded("forward"), fwd_row, ["#", "node", "x", "y"]):
        lines += ["", "forward" if not level else f"forward · ops of the {order_name(level)}"] + table
    for level, table in _sections(tangents, trace.folded("forward-mode"), bwd_row,
                                  ["#", "node", "x", "tangent in", "local", "tangent out"]):
        lines += ["", " · ".join(filter(None, forward_mode_heading(level)))] + table
    for level, table in _sections(bwd, trace.folded("backward"), bwd_row,
                                  ["#", "node", "x", "upstream", "local", "downstream"]):
        lines += ["", f"backward · {order_name(level)}"] + table
    if grads:
        lines += ["", "gradient"]
        for r in grads:
            target, source, value = gradient_line(trace, r, p, brief=True)
            lines.append(f"  d({target})/d({source}) = {'None' if value is None else value}")
            lines += [f"       {line}" for line in _notes(r)]
        if trace.folded("gradient"):
            lines.append(f"  {fold_text(trace.folded('gradient'), 'more')}")
    return "\n".join(lines)
