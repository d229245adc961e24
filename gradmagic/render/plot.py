"""The trace as a picture: the chain of top-level forward rows, left to right.

Forward values ride above the arrows between the boxes (the input at the far left, the
result at the right); under each box stand the numbers of the matching first-order
backward row, ``upstream × local = downstream``, and a second row of arrows points
left: the chain rule runs right to left, ending in the gradient at the left end.

matplotlib is imported only when a picture is asked for, and only its object API
(``matplotlib.figure.Figure`` on the Agg canvas): no pyplot, no global state. The
layout is fixed (sizes measured from the text itself), so the same trace gives the
same picture; ``png_bytes`` leaves out the "Software" stamp so the bytes match too.
"""

import io
import textwrap

from ..errors import GradientTypeError
from ..core.tensor import Tensor
from ._format import bad_count, bare, folded_after, gradient_line, summary

# colours
FORWARD = "#1f3b5c"
BACKWARD = "#7b2d8b"
TANGENT = "#1b7a3a"  # the forward-mode pass
BAD = "red"  # a NaN or an Inf
MUTED = "#666666"
BOX_FACE = "#eef3fa"
VALUE_FACE = "#f4f4f4"
BORN_EDGE = "red"  # the box where a NaN or an Inf first appears

# font sizes (points) at the natural size
TITLE_SIZE = 11
NODE_SIZE = 12
SUB_SIZE = 9
VALUE_SIZE = 10.5
BACK_SIZE = 10
NOTE_SIZE = 9

# text cut: arrow labels wrap to ARROW_LINES lines of ARROW_WIDTH characters;
# a backward line is cut at BACK_WIDTH characters
ARROW_WIDTH = 20
ARROW_LINES = 2
BACK_WIDTH = 26
BACK_LINES = 2
SIDE_INPUTS = 2  # side inputs of a box whose backward numbers are shown

_figure_class = None


def _figure_type():
    """``TraceFigure``: a ``Figure`` that shows itself as PNG where no matplotlib
    backend registered a formatter (IPython calls ``_repr_png_``)."""
    global _figure_class
    if _figure_class is None:
        from matplotlib.figure import Figure

        class TraceFigure(Figure):
            """A matplotlib ``Figure`` of a gradmagic trace."""

            def _repr_png_(self):
                return png_bytes(self)

        TraceFigure.__module__, TraceFigure.__qualname__ = __name__, "TraceFigure"
        _figure_class = TraceFigure
    return _figure_class


def __getattr__(name):  # the class exists once matplotlib is imported (for pickle)
    if name == "TraceFigure":
        return _figure_type()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- the model of the picture ---------------------------------------------------------------

class _Column:
    """One column of the picture: the input, a box, a fold marker, or the output."""

    def __init__(self, kind, row=None, k=0, hidden=0):
        self.kind, self.row, self.k, self.hidden = kind, row, k, hidden
        self.bwd = self.tan = None  # the matched first-order backward row, forward-mode step
        self.title = ""
        self.sub = ""
        self.lines = []  # (text, colour, bold) under the column
        self.born = False
        self.x = self.width = 0.0


def _is_bad(value):
    try:
        return bad_count(value) > 0
    except Exception:  # a value a summary can show but not count: not flagged
        return False


def _fit(text, width, lines, prefix=""):
    """``prefix`` and ``text`` on at most ``lines`` lines of about ``width`` characters.

    Breaks fall between the prefix and the value and before the range of an array
    (``(2,3) f64`` / ``∈ [0.5, 2.5]``) where they can, else between words; what does
    not fit is cut with "…"."""
    text = " ".join(str(text).split())
    if len(prefix) + len(text) <= width:
        return prefix + text
    tokens = [prefix.strip()] if prefix.strip() else []
    head, sep, rest = text.partition(" ∈ ")
    tokens += [head, "∈ " + rest] if sep else [text]
    out = []
    for token in tokens:
        if out and len(out[-1]) + 1 + len(token) <= width:
            out[-1] += " " + token
        elif len(token) <= width:
            out.append(token)
        else:
            out += textwrap.wrap(token, width, break_long_words=True, break_on_hyphens=False)
    if len(out) > lines:
        out = out[:lines]
        out[-1] = out[-1][: width - 1].rstrip(" ,") + "…"
    return "\n".join(out)


def _cut(text, width):
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1].rstrip(" ,") + "…"


def _show(value, precision):
    """``summary`` in its brief form (shape, dtype and range of a large array)."""
    return summary(value, precision, brief=True)


def _chain_input(row, prev):
    """Which input of ``row`` is an output of ``prev`` (0 when none is)."""
    if prev is not None:
        for k, v in enumerate(row.inputs):
            if any(v is o for o in prev.outputs):
                return k, True
    return 0, prev is None


def _drawn(trace, row):
    """Whether a forward row is a box: the top-level rows of the forward code; with
    ``ops=True`` its primitives (their backward rows are per primitive too)."""
    if row.level != 0:
        return False
    if getattr(trace, "ops", False):
        return row.kind == "op"
    return not row.context


def _columns(trace, max_nodes):
    """Input, boxes (at most ``max_nodes``, the middle folded into a marker), output."""
    rows = trace.forward
    items = []  # rows, and ("fold", n) where rows are hidden
    folded = trace.folded("forward")
    for k, row in enumerate(rows):
        if _drawn(trace, row):
            items.append(row)
        n = folded_after(rows, k) if folded else 0
        if n:
            items.append(("fold", n))
    boxes = [it for it in items if not isinstance(it, tuple)]
    if not boxes:
        return []
    if len(boxes) > max_nodes:
        head, tail = (max_nodes + 1) // 2, max_nodes // 2
        first_tail = boxes[len(boxes) - tail] if tail else None
        out, hidden, seen, state = [], 0, 0, "head"
        for it in items:
            is_row = not isinstance(it, tuple)
            if state == "head" and is_row and seen == head:
                state = "middle"
            if state == "middle" and it is first_tail:
                out.append(("fold", hidden))
                state = "tail"
            if state == "middle":
                hidden += 1 if is_row else it[1]
            else:
                out.append(it)
            seen += is_row
        if state == "middle":
            out.append(("fold", hidden))
        items = out

    cols = []
    prev = None
    for it in items:
        if isinstance(it, tuple):
            cols.append(_Column("fold", hidden=it[1]))
            prev = None
            continue
        k, linked = _chain_input(it, prev)
        col = _Column("box", it, k)
        col.linked = linked or (cols and cols[-1].kind == "fold")
        cols.append(col)
        prev = it
    first = cols[0]
    src = _Column("input", first.row, first.k) if first.kind == "box" else _Column("input")
    out = _Column("output", cols[-1].row) if cols[-1].kind == "box" else _Column("output")
    return [src] + cols + [out]


def _match(cols, candidates, attr):
    """Each box's row among ``candidates`` (first-order backward rows, or the steps of the
    forward-mode pass) as its ``attr``: the same node, the same first input."""
    used = set()
    for col in cols:
        if col.kind != "box":
            continue
        fwd = col.row
        for j, bwd in enumerate(candidates):
            if j in used or bwd.node != fwd.node or not bwd.inputs or not fwd.inputs:
                continue
            if bwd.inputs[0] is not fwd.inputs[0]:
                continue
            if len(bwd.inputs) == len(fwd.inputs) and not all(
                    a is b for a, b in zip(bwd.inputs, fwd.inputs)):
                continue
            used.add(j)
            setattr(col, attr, bwd)
            break


def _summed(trace, value):
    """Whether a value's gradients were added up (it was used twice or more)."""
    return any(r.kind == "sum" and r.level == 1 and r.inputs and r.inputs[0] is value
               for r in trace.backward)


def _describe(trace, cols):
    """Titles, sub-titles and the lines under each column."""
    p = trace.precision

    def line(prefix, value, bold=False, colour=BACKWARD):
        text = _fit(value if isinstance(value, str) else _show(value, p), BACK_WIDTH,
                    BACK_LINES, prefix)
        return (text, BAD if _is_bad(value) else colour, bold)

    for i, col in enumerate(cols):
        if col.kind == "box":
            row = col.row
            col.title = row.node
            names = row.input_names()
            side = []
            for j, v in enumerate(row.inputs):
                if j == col.k:
                    continue
                side.append(trace.known_name(v) or (_show(v, p) if not isinstance(v, Tensor)
                                                      else names[j]))
            sub = ["with " + ", ".join(side)] if side else []
            if row.context:
                sub.append(f"in {row.context}")
            col.sub = _cut(", ".join(sub), BACK_WIDTH)
            if not row.outputs and row.note:  # a function that raised
                col.lines.append((_fit(row.note, BACK_WIDTH, BACK_LINES), BAD, False))
            col.born = _is_bad(row.outputs) and not _is_bad(row.inputs)
            bwd = col.bwd
            if bwd is None:
                continue
            up = bwd.upstream[0] if bwd.upstream else None
            col.lines.append(line("upstream ", up))
            local = bwd.local
            down = tuple(bwd.downstream or ())
            bnames = list(bwd.input_names())
            bnames += [f"arg{j}" for j in range(len(bnames), len(down))]
            sides = [n for j, n in enumerate(bnames) if j != col.k]
            labels = [n if sides.count(n) <= 1 else f"{n}[{j}]" for j, n in enumerate(bnames)]
            order = [col.k] + [j for j in range(len(down)) if j != col.k]
            flowing = [j for j in order if j < len(down) and down[j] is not None]
            for n, j in enumerate(flowing):
                loc = local[j] if isinstance(local, tuple) and j < len(local) else local
                if isinstance(loc, str) and isinstance(local, tuple):
                    try:
                        loc = loc.format(*bnames)
                    except (IndexError, KeyError, ValueError):
                        pass
                if n >= SIDE_INPUTS:
                    col.lines.append((f"+ {len(flowing) - n} more inputs", MUTED, False))
                    break
                pre = "" if j == col.k else f"{labels[j]}: "  # the chain's input: no name
                if n == 0:  # the chain's input (or the first that has a gradient)
                    col.lines.append(line(f"{pre}× local ", loc))
                col.lines.append(line(f"{pre}= ", down[j], bold=True))
            if isinstance(local, str) and not flowing:
                col.lines.append((_cut(local, BACK_WIDTH), MUTED, False))
        elif col.kind == "fold":
            col.title = f"… {col.hidden} more …"
        elif col.kind == "input":
            value = col.row.inputs[col.k] if col.row is not None and col.row.inputs else None
            col.value = value
            col.title = "input"
            if value is not None:  # the value's own name, as the rows show it
                col.title = trace.name_of(value) or col.row.input_names()[col.k] or "input"
            grad = None
            target = None
            col.grad_row = None
            for g in trace.gradients:
                if value is not None and g.inputs and g.inputs[0] is value and g.downstream:
                    grad, target, col.grad_row = g.downstream[0], g.outputs, g
                    break
            if grad is None and i + 1 < len(cols) and cols[i + 1].bwd is not None:
                down = cols[i + 1].bwd.downstream or ()
                grad = down[col.k] if col.k < len(down) else None
            col.grad = grad
            if grad is not None:
                t = " + ".join(trace.name_of(v) or "y" for v in (target or ())) or "y"
                t, source = bare(t), bare(col.title)
                col.lines.append((f"d{t}/d{source}" if len(t) == 1 and len(source) == 1 else
                                  f"d({t})/d({source})", BACKWARD, False))
                col.lines.append(line("= ", grad, bold=True))
        elif col.kind == "output":
            outs = col.row.outputs if col.row is not None else ()
            col.title = (trace.name_of(outs[0]) if outs else None) or "output"

    for col in cols:  # the forward-mode pass: the chain input's tangent in, the tangent out
        tan = col.tan
        if tan is not None and col.k < len(tan.upstream) and tan.upstream[col.k] is not None:
            col.lines += [line("tangent ", tan.upstream[col.k], colour=TANGENT),
                          line("→ ", tan.downstream[0] if len(tan.downstream) == 1 else
                               tan.downstream, True, TANGENT)]


def _gap_labels(trace, left, right):
    """(forward label, its colour, dashed?, backward label or None, its colour). Dashed: the
    box on the right does not take the left one's output; the arrows carry the value it
    does take (from further back) and the gradient it sends to that value."""
    p = trace.precision
    prefix = bprefix = ""
    dashed = right.kind == "box" and not getattr(right, "linked", True)
    if left.kind == "input":
        value = left.value if hasattr(left, "value") else None
        flabel = _show(value, p) if value is not None else ""
    elif left.kind == "box" and not dashed:
        value = left.row.outputs
        value = value[0] if len(value) == 1 else value
        name = None if isinstance(value, tuple) else (trace.known_name(value)
                                                      or left.row.output_names()[0])
        flabel = _show(value, p)
        if name and right.kind != "output":
            prefix = f"{name} = "
    else:  # a fold marker, or a box whose output the next box does not take: its input
        value = right.row.inputs[right.k] if right.kind == "box" and right.row.inputs else None
        flabel = _show(value, p) if value is not None else ""
        name = trace.known_name(value) if dashed and value is not None else None
        prefix, bprefix = (f"{name} = ", f"to {name}: ") if name else ("", "")
    fbad = _is_bad(value)

    bvalue = None
    if left.kind == "input":
        bvalue = getattr(left, "grad", None)
    elif left.kind == "box" and not dashed and left.bwd is not None and left.bwd.upstream:
        bvalue = left.bwd.upstream[0]
    elif right.kind == "box" and right.bwd is not None:
        down = right.bwd.downstream or ()
        bvalue = down[right.k] if right.k < len(down) else None
    blabel = None
    if bvalue is not None:
        blabel = _fit(_show(bvalue, p), ARROW_WIDTH, ARROW_LINES, bprefix)
        if left.kind == "box" and not dashed and _summed(
                trace, left.row.outputs[0] if left.row.outputs else None):
            blabel += "\n(sum of its uses)"
    return (_fit(flabel, ARROW_WIDTH, ARROW_LINES, prefix), BAD if fbad else FORWARD, dashed,
            blabel, BAD if bvalue is not None and _is_bad(bvalue) else BACKWARD)


# -- drawing -----------------------------------------------------------------------------------

def _nothing(figsize):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _figure_type()(figsize=figsize or (4.0, 1.0), dpi=100, facecolor="white")
    FigureCanvasAgg(fig)
    fig.text(0.5, 0.5, "nothing traced", ha="center", va="center", fontsize=NODE_SIZE,
             color=MUTED)
    return fig


def plot_trace(trace, max_nodes=12, figsize=None):
    """A matplotlib ``Figure`` of the chain: the top-level forward rows as boxes left to
    right, forward values above the arrows, and under each box the matching first-order
    backward row (upstream × local = downstream), with gradients flowing back to the left.

    ``max_nodes``: boxes drawn at most; the middle of a longer chain is folded into a
    "… N more …" marker. ``figsize``: (width, height) in inches; by default the size the
    text needs. The figure is drawn on the Agg canvas: save it with ``savefig`` or
    ``png_bytes``; in a notebook it shows itself.
    """
    if not isinstance(max_nodes, int) or isinstance(max_nodes, bool) or max_nodes < 1:
        raise GradientTypeError(f"plot(max_nodes={max_nodes!r}): expected an int of at least 1")
    if figsize is not None:
        try:
            figsize = (float(figsize[0]), float(figsize[1]))
        except (TypeError, ValueError, IndexError):
            raise GradientTypeError(f"plot(figsize={figsize!r}): expected (width, height)") from None
        if not (figsize[0] > 0 and figsize[1] > 0):
            raise GradientTypeError(f"plot(figsize={figsize!r}): expected positive sizes")
    for attr in ("forward", "backward", "gradients", "precision"):
        if not hasattr(trace, attr):
            raise GradientTypeError(f"plot_trace: expected a gradmagic Trace, got "
                                    f"{type(trace).__name__}")

    cols = _columns(trace, max_nodes)
    if not cols:
        return _nothing(figsize)
    _match(cols, [r for r in trace.backward if r.level == 1 and r.kind in ("op", "function")], "bwd")
    _match(cols, [r for r in getattr(trace, "forward_mode", ()) if r.level == 0], "tan")
    _describe(trace, cols)
    gaps = [_gap_labels(trace, a, b) for a, b in zip(cols, cols[1:])]

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.font_manager import FontProperties
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    fig = _figure_type()(figsize=(1, 1), dpi=100, facecolor="white")
    canvas = FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()

    def size(text, points, bold=False):
        """(width, height) of ``text`` in inches."""
        if not text:
            return 0.0, 0.0
        prop = FontProperties(size=points, weight="bold" if bold else "normal")
        lines = text.split("\n")
        w = max(renderer.get_text_width_height_descent(s, prop, ismath=False)[0]
                for s in lines if s) if any(lines) else 0.0
        return w / fig.dpi, len(lines) * points * 1.25 / 72

    # -- widths -------------------------------------------------------------------
    PAD = 0.22
    for col in cols:
        title_w = size(col.title, NODE_SIZE, bold=col.kind == "box")[0]
        sub_w = size(col.sub, SUB_SIZE)[0]
        lines_w = max([size(t, BACK_SIZE, bold=b)[0] for t, _, b in col.lines] or [0.0])
        col.box_w = max(title_w, sub_w) + 0.3
        col.width = max(col.box_w, lines_w) + PAD
    gap_w = []
    for flabel, _, _, blabel, _ in gaps:
        w = max(size(flabel, VALUE_SIZE)[0], size(blabel or "", VALUE_SIZE)[0]) + 0.3
        gap_w.append(max(w, 0.75))

    line_h = BACK_SIZE * 1.3 / 72
    value_h = VALUE_SIZE * 1.25 / 72
    item_gap = 0.3  # extra space between the items under a box, in lines

    def lines_of(col):
        return sum(t.count("\n") + 1 for t, _, _ in col.lines) + item_gap * max(len(col.lines) - 1, 0)

    n_lines = max([lines_of(c) for c in cols] or [0])
    f_lines = max([g[0].count("\n") + 1 for g in gaps] or [1])
    b_lines = max([g[3].count("\n") + 1 for g in gaps if g[3]] or [0])
    box_h = 0.62 if any(c.sub for c in cols) else 0.46

    # footer: gradients not shown at the left end, and what was left out
    p = trace.precision
    footer = []
    shown_grad = getattr(cols[0], "grad_row", None) if getattr(cols[0], "grad", None) is not None \
        else None
    for g in trace.gradients:
        if shown_grad is not None and g.inputs and g.inputs[0] is shown_grad.inputs[0] \
                and g.downstream and g.downstream[0] is shown_grad.downstream[0]:
            continue
        target, source, text = gradient_line(trace, g, p, brief=True)
        value = g.downstream[0] if g.downstream else None
        text = "None (not connected)" if text is None else text
        footer.append((_cut(f"d({target})/d({source}) = {text}", 90),
                       BAD if _is_bad(value) else BACKWARD))
        if len(footer) == 3:
            rest = len(trace.gradients) - 3 - (shown_grad is not None)
            if rest > 0:
                footer.append((f"+ {rest} more gradients", MUTED))
            break
    if any(g[2] for g in gaps):
        footer.append(("dashed: a box's input from further back, and the gradient it sends there",
                       MUTED))
    if any(col.tan is not None for col in cols):
        footer.append(("forward-mode pass: in green under each box, its tangent in → its tangent out",
                       TANGENT))
    skipped = [r for r in trace.forward if not _drawn(trace, r)]
    if skipped:
        what = ("of functions and scopes, or of backward passes" if getattr(trace, "ops", False)
                else "inside functions, or of backward passes")
        n = len(skipped)
        footer.append((f"not drawn: {n} forward row{'s' if n != 1 else ''} {what} (see the table)",
                       MUTED))

    # -- heights (y up, inches) -----------------------------------------------------
    top = 0.5  # title
    y_f = -(top + f_lines * value_h + 0.2 + box_h / 2)  # centre of the forward row
    box_bottom = y_f - box_h / 2
    lines_top = box_bottom - 0.14
    y_b = min(box_bottom - 0.22 - b_lines * value_h, lines_top - 1.5 * line_h)
    # the backward arrows sit at the level of the second line under the boxes, or
    # lower when their labels need the room
    lines_top = max(lines_top, y_b + 1.5 * line_h) if n_lines else lines_top
    bottom = min(lines_top - n_lines * line_h, y_b - 0.2) - 0.25
    footer_top = bottom
    bottom -= len(footer) * NOTE_SIZE * 1.45 / 72 + (0.1 if footer else 0.0)

    # -- x positions --------------------------------------------------------------------
    x = 0.25
    for j, col in enumerate(cols):
        col.x = x + col.width / 2
        x += col.width + (gap_w[j] if j < len(gap_w) else 0.0)
    width = x + 0.25
    title = "gradmagic trace: forward values flow →, gradients flow ← (upstream × local = downstream)"
    width = max(width, size(title, TITLE_SIZE)[0] + 0.5,
                max([size(t, NOTE_SIZE)[0] for t, _ in footer] or [0.0]) + 0.5)
    height = -bottom

    natural = (width, height)
    if figsize is None:
        figsize = natural
    scale = min(figsize[0] / natural[0], figsize[1] / natural[1])
    fig.set_size_inches(*figsize)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(-height, 0)
    ax.set_axis_off()

    def text(x, y, s, points, color, ha="center", va="center", bold=False, gid=None):
        return ax.text(x, y, s, fontsize=points * scale, color=color, ha=ha, va=va,
                       fontweight="bold" if bold else "normal", gid=gid, clip_on=False,
                       linespacing=1.1)

    text(0.25, -0.28, title, TITLE_SIZE, MUTED, ha="left", gid="header")

    # -- columns --------------------------------------------------------------------------
    edges = []  # (left edge, right edge) of what the arrows join
    for col in cols:
        if col.kind == "box":
            w = col.box_w
            ax.add_patch(FancyBboxPatch(
                (col.x - w / 2, y_f - box_h / 2), w, box_h, boxstyle="round,pad=0,rounding_size=0.08",
                facecolor=BOX_FACE, edgecolor=BORN_EDGE if col.born else FORWARD,
                linewidth=(2.0 if col.born else 1.2) * scale, gid="node"))
            if col.sub:
                text(col.x, y_f + 0.09, col.title, NODE_SIZE, FORWARD, bold=True, gid="node-title")
                text(col.x, y_f - 0.15, col.sub, SUB_SIZE, MUTED, gid="node-inputs")
            else:
                text(col.x, y_f, col.title, NODE_SIZE, FORWARD, bold=True, gid="node-title")
            edges.append((col.x - w / 2, col.x + w / 2))
        elif col.kind == "fold":
            w = col.box_w
            ax.add_patch(FancyBboxPatch(
                (col.x - w / 2, y_f - box_h / 2), w, box_h, boxstyle="round,pad=0,rounding_size=0.08",
                facecolor="white", edgecolor=MUTED, linestyle="--", linewidth=1.0 * scale,
                gid="fold"))
            text(col.x, y_f, col.title, NODE_SIZE, MUTED, gid="fold-title")
            edges.append((col.x - w / 2, col.x + w / 2))
        else:
            w, h = col.box_w, min(box_h, 0.46)
            ax.add_patch(FancyBboxPatch(
                (col.x - w / 2, y_f - h / 2), w, h, boxstyle="round,pad=0,rounding_size=0.16",
                facecolor=VALUE_FACE, edgecolor=MUTED, linewidth=1.0 * scale, gid=col.kind))
            text(col.x, y_f, col.title, NODE_SIZE, FORWARD, gid=f"{col.kind}-title")
            edges.append((col.x - w / 2, col.x + w / 2))
        at = lines_top
        for s, color, bold in col.lines:
            text(col.x, at, s, BACK_SIZE, color, va="top", bold=bold, gid="backward-number")
            at -= (s.count("\n") + 1 + item_gap) * line_h

    # -- arrows ----------------------------------------------------------------------------
    for j, (flabel, fcolor, dashed, blabel, bcolor) in enumerate(gaps):
        x0, x1 = edges[j][1] + 0.06, edges[j + 1][0] - 0.06
        mid = (x0 + x1) / 2
        ax.add_patch(FancyArrowPatch(
            (x0, y_f), (x1, y_f), arrowstyle="-|>", mutation_scale=14 * scale,
            linewidth=1.4 * scale, color=FORWARD, linestyle="--" if dashed else "-",
            shrinkA=0, shrinkB=0, gid="forward-arrow"))
        if flabel:
            text(mid, y_f + 0.07, flabel, VALUE_SIZE, fcolor, va="bottom", gid="forward-value")
        if blabel is not None:
            # between the numbers under the two columns
            bx0 = cols[j].x + cols[j].width / 2 + 0.06
            bx1 = cols[j + 1].x - cols[j + 1].width / 2 - 0.06
            ax.add_patch(FancyArrowPatch(
                (bx1, y_b), (bx0, y_b), arrowstyle="-|>", mutation_scale=14 * scale,
                linewidth=1.4 * scale, color=BACKWARD, linestyle="--" if dashed else "-",
                shrinkA=0, shrinkB=0, gid="backward-arrow"))
            text((bx0 + bx1) / 2, y_b + 0.07, blabel, VALUE_SIZE, bcolor, va="bottom",
                 gid="backward-value")

    for n, (s, color) in enumerate(footer):
        text(0.25, footer_top - (n + 0.5) * NOTE_SIZE * 1.45 / 72, s, NOTE_SIZE, color,
             ha="left", gid="footer")
    return fig


def png_bytes(trace_or_figure, **kwargs):
    """The PNG of a trace's picture (``plot_trace(trace, **kwargs)``) or of a figure,
    without the "Software" stamp: the same picture gives the same bytes."""
    fig = trace_or_figure
    if not hasattr(fig, "savefig"):
        fig = plot_trace(trace_or_figure, **kwargs)
    if fig.canvas is None or not hasattr(fig.canvas, "print_png"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None}, facecolor=fig.get_facecolor())
    return buf.getvalue()
