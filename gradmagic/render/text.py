"""The trace as a fixed-width table, for terminals and plain-text notebook output.

Notes and pitfalls under the rows are wrapped between words to a line width: the
terminal's where the text goes to one (``line_width``), else ``FIXED_WIDTH``, so that the
text a notebook stores is the same on every machine.
"""

import shutil
import sys
import textwrap

from ._format import by_level, fold_text, folded_after, forward_mode_heading, gradient_line, order_name

WIDTH = 48  # longest cell before it is cut with "..."
NARROWEST_CELL = 10  # the shortest a cell is cut to, to fit a table to the line width
NODE_CELL = 24  # and a node's name, where it is as long
FIXED_WIDTH = 100  # lines of text that go to no terminal: a notebook, a file, a pipe
NARROWEST = 40  # a narrower terminal still gets lines this long
NOTE_INDENT = " " * 7  # notes stand under the node column


def line_width() -> int:
    """The width text is wrapped to: the terminal's (``shutil.get_terminal_size``, which
    reads the ``COLUMNS`` variable first) when text goes to this process's own standard
    output; ``FIXED_WIDTH`` where standard output was replaced (a notebook's kernel,
    captured output), so that a stored notebook output does not depend on a terminal."""
    if sys.stdout is not sys.__stdout__:
        return FIXED_WIDTH
    return max(NARROWEST, shutil.get_terminal_size((FIXED_WIDTH, 24)).columns)


def wrap(text, width, first="", rest=""):
    """``text`` as lines of at most ``width`` columns, broken only between words (a word
    longer than a line stands alone), ``first`` before the first line and ``rest`` before
    the others. Its own line breaks are kept, and a line of code (with a run of spaces,
    or starting with ``def`` or ``@``) stays as written."""
    lines = []
    for k, para in enumerate(text.split("\n")):
        lead = first if k == 0 else rest
        if "    " in para or para.startswith(("def ", "@")):  # code: as written
            lines.append(rest + para)
            continue
        lines += textwrap.wrap(para, width, initial_indent=lead, subsequent_indent=rest,
                               break_long_words=False, break_on_hyphens=False) or [""]
    return lines


def _cut(text):
    return text if len(text) <= WIDTH else text[: WIDTH - 3] + "..."


def _fit(header, rows, width):
    """``rows`` with the widest cells cut further, where the table would be wider than
    ``width``: one longest cell for every column (but ``#``), the largest that fits, and
    never shorter than the column's header or ``NARROWEST_CELL``, nor a node's name than
    ``NODE_CELL`` (a very narrow terminal gets lines longer than it rather than cells that
    say nothing)."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    room = width - 2 * len(widths) - widths[0]  # the columns after "#", their gaps taken
    if sum(widths[1:]) <= room:
        return rows
    floors = [max(len(h), NARROWEST_CELL) for h in header[1:]]
    floors[0] = max(floors[0], min(widths[1], NODE_CELL))  # the node: what the row is
    cap = 0  # the longest any cell may be, over its column's floor
    while cap < max(widths[1:]) and sum(min(w, max(cap + 1, f)) for w, f in zip(widths[1:], floors)) <= room:
        cap += 1
    limits = [None] + [max(cap, f) for f in floors]
    return [[c if n is None or len(c) <= n else c[: n - 3] + "..." for c, n in zip(row, limits)]
            for row in rows]


def _table(header, rows, notes, width=None):
    """Columns padded to their widest cell, fitted to ``width`` where given (``_fit``);
    ``notes[i]`` lines go under row ``i``."""
    if rows and width is not None:
        rows = _fit(header, rows, width)
    widths = [max(len(c) for c in col) for col in zip(header, *rows)] if rows else [len(h) for h in header]
    fmt = "  " + "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*header).rstrip()]
    for row, extra in zip(rows, notes):
        lines.append(fmt.format(*row).rstrip())
        lines += [NOTE_INDENT + line for line in extra]
    return lines


def _notes(row, width):
    """The row's note and pitfalls, as lines under it (without the indent)."""
    out = []
    width -= len(NOTE_INDENT)
    if row.note:
        out += wrap(row.note, width, "· ", "  ")
    for f in row.pitfalls:  # a mistake is marked "!", a note that informs "i"
        out += wrap(f"{f.kind}: {f.message}", width, "i " if getattr(f, "info", False) else "! ", "  ")
    return out


def _sections(rows, folded, make, header, width):
    """Rows split by level, with a line where rows were folded; fitted to ``width``."""
    out = []
    for level, group in by_level(rows):
        body, notes = [], []
        for k, row in group:
            body.append(make(row))
            notes.append(_notes(row, width))
            n = folded_after(rows, k) if folded else 0
            if n:
                notes[-1] = notes[-1] + [fold_text(n)]
        out.append((level, _table(header, body, notes, width)))
    return out


def render_text(trace, width=None):
    """The trace as text; notes wrapped to ``width`` columns (None: ``line_width()``) and
    tables fitted to them (``_fit``)."""
    width = line_width() if width is None else width
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

    for level, table in _sections(fwd, trace.folded("forward"), fwd_row, ["#", "node", "x", "y"],
                                  width):
        lines += ["", "forward" if not level else f"forward · ops of the {order_name(level)}"] + table
    for level, table in _sections(tangents, trace.folded("forward-mode"), bwd_row,
                                  ["#", "node", "x", "tangent in", "local", "tangent out"], width):
        lines += ["", " · ".join(filter(None, forward_mode_heading(level)))] + table
    for level, table in _sections(bwd, trace.folded("backward"), bwd_row,
                                  ["#", "node", "x", "upstream", "local", "downstream"], width):
        lines += ["", f"backward · {order_name(level)}"] + table
    if grads:
        lines += ["", "gradient"]
        for r in grads:
            target, source, value = gradient_line(trace, r, p, brief=True)
            lines.append(f"  d({target})/d({source}) = {'None' if value is None else value}")
            lines += [NOTE_INDENT + line for line in _notes(r, width)]
        if trace.folded("gradient"):
            lines.append(f"  {fold_text(trace.folded('gradient'), 'more')}")
    return "\n".join(lines)
