"""HTML as an untrusted notebook shows it: JupyterLab's default sanitizer, re-expressed.

A notebook opened without being trusted (every notebook someone else wrote) has its HTML
outputs passed through JupyterLab's sanitizer (``@jupyterlab/apputils``, the options it
gives ``sanitize-html``); GitHub's viewer and VS Code sanitize alike. What this module keeps:

- the tags JupyterLab allows; a ``<script>``, ``<style>``, ``<textarea>``, ``<option>``
  or ``<noscript>`` goes with its text, another unknown tag leaves its text;
- the attributes it allows on every tag (``class``, ``style``, ``title`` ...) and on
  table cells (``colspan``, ``rowspan`` ...); event handlers and the rest go;
- in ``style``, each declaration whose property JupyterLab lists and whose whole value
  matches that property's grammar there (no ``var()``, no ``inherit``, colours as names,
  ``#hex``, ``rgb()`` or ``rgba()`` with an alpha of ``0.x``, numbers with a digit
  before the point for alpha and opacity); the rest of the declarations are dropped, and
  an empty ``style`` with them.

Only the properties a stylesheet for tables and notes needs are listed; a property not
listed here is dropped, so this is stricter than JupyterLab where it differs, never
looser: what survives here survives there.
"""

import html
import re
from html.parser import HTMLParser

TAGS = set("""
a abbr acronym address area article aside audio b bdi bdo big blockquote br button canvas
caption center cite code col colgroup command data datalist dd del details dfn dir div dl dt
em fieldset figcaption figure font footer form h1 h2 h3 h4 h5 h6 header hgroup hr i img input
ins kbd label legend li map mark menu meter nav nobr ol optgroup option output p pre progress
q s samp section select small source span strike strong sub summary sup table tbody td
textarea tfoot th thead time tr track tt u ul var video wbr""".split())
DROPPED_WITH_TEXT = {"script", "style", "textarea", "option", "noscript"}
VOID = {"area", "br", "col", "hr", "img", "input", "source", "track", "wbr"}
ANY_TAG = {"class", "dir", "draggable", "hidden", "id", "inert", "itemprop", "itemref",
           "itemscope", "lang", "spellcheck", "style", "title", "translate"}
_CELL = {"abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height",
         "nowrap", "rowspan", "scope", "valign", "width"}
_SECTION = {"align", "char", "charoff", "valign"}
BY_TAG = {"td": _CELL, "th": _CELL, "thead": _SECTION, "tbody": _SECTION, "tfoot": _SECTION,
          "tr": {"align", "bgcolor", "char", "charoff", "valign"}, "caption": {"align"},
          "div": {"align"}, "p": {"align"},
          "table": {"align", "bgcolor", "border", "cellpadding", "cellspacing", "frame", "rules",
                    "summary", "width"},
          "img": {"align", "alt", "border", "height", "src", "width"}}

# -- the value grammar -------------------------------------------------------------------
NUM = r"[+-]?(\d*\.)?\d+(e-?\d*)?"
NUM_POS = r"\+?(\d*\.)?\d+(e-?\d*)?"
UNITS = "px|em|rem|ex|in|cm|mm|pt|pc"
LENGTH = rf"({NUM}({UNITS})|0)"
LENGTH_POS = rf"({NUM_POS}({UNITS})|0)"
PERCENT = rf"{NUM}%"
PERCENT_POS = rf"{NUM_POS}%"
LEN_OR_PERCENT = rf"(0|{NUM}({UNITS}|%))"
ALPHA = r"\+?(1(\.0+)?|0(\.\d+)?)"
BYTE = r"\d{1,3}"
COLOR = (rf"(#[0-9a-f]+|rgb\(\s*{BYTE}\s*,\s*{BYTE}\s*,\s*{BYTE}\s*\)"
         rf"|rgba\(\s*{BYTE}\s*,\s*{BYTE}\s*,\s*{BYTE}\s*,\s*({ALPHA}|{BYTE}|{NUM_POS}%)\s*\)"
         r"|transparent|black|white|gray|grey|silver|red|green|blue|orange|yellow|purple)")
BORDER_STYLE = "(none|hidden|dotted|dashed|solid|double|groove|ridge|inset|outset)"
BORDER_WIDTH = rf"(thin|medium|thick|{LENGTH})"
BORDER = rf"(({BORDER_WIDTH}|{BORDER_STYLE}|{COLOR})\s*){{1,3}}"
PADDING = rf"({LENGTH_POS}|{PERCENT_POS})"
MARGIN = rf"({LEN_OR_PERCENT}|auto)"
IDENT = r"-?[_a-z][_a-z0-9-]*"
FAMILY = rf"(\"[^\"\\]*\"|'[^'\\]*'|({IDENT}\s*)+)"

PROPERTIES = {
    "background": rf"(({COLOR})\s*)+",
    "background-color": COLOR,
    "border": BORDER, "border-top": BORDER, "border-bottom": BORDER,
    "border-left": BORDER, "border-right": BORDER,
    "border-collapse": "collapse|separate",
    "border-spacing": rf"{LENGTH}\s*({LENGTH})?",
    "box-sizing": "content-box|padding-box|border-box",
    "caption-side": "top|bottom",
    "color": COLOR,
    "display": "inline|block|list-item|inline-block|table|inline-table|table-cell|table-row"
               "|table-caption|flex|inline-flex|grid|inline-grid|none",
    "font-family": rf"{FAMILY}(,\s*{FAMILY})*",
    "font-size": rf"xx-small|x-small|small|medium|large|x-large|xx-large|smaller|larger"
                 rf"|{LENGTH_POS}|{PERCENT_POS}",
    "font-style": "normal|italic|oblique",
    "font-weight": "normal|bold|bolder|lighter|[1-9]00",
    "left": rf"{LEN_OR_PERCENT}|auto",
    "top": rf"{LENGTH}|{PERCENT}|auto",
    "line-height": rf"normal|{NUM_POS}|{LENGTH_POS}|{PERCENT_POS}",
    "margin": rf"({MARGIN}\s*){{1,4}}", "margin-top": MARGIN, "margin-bottom": MARGIN,
    "margin-left": MARGIN, "margin-right": MARGIN,
    "max-width": rf"{LENGTH_POS}|{PERCENT_POS}|none|auto",
    "min-width": rf"{LENGTH_POS}|{PERCENT_POS}|auto",
    "width": rf"{LENGTH_POS}|{PERCENT_POS}|auto",
    "opacity": ALPHA,
    "overflow-wrap": "normal|break-word",
    "padding": rf"({PADDING}\s*){{1,4}}", "padding-top": PADDING, "padding-bottom": PADDING,
    "padding-left": PADDING, "padding-right": PADDING,
    "position": "static|relative|absolute",
    "table-layout": "auto|fixed",
    "text-align": "left|right|center|justify",
    "vertical-align": rf"baseline|sub|super|top|text-top|middle|bottom|text-bottom|{LEN_OR_PERCENT}",
    "white-space": "normal|pre|nowrap|pre-wrap|pre-line",
}
_GRAMMAR = {p: re.compile(rf"^({v})$", re.I) for p, v in PROPERTIES.items()}


def clean_style(style):
    """The declarations of ``style`` that the sanitizer keeps, as it writes them back
    (``property:value`` joined by ``;``), or None when none is kept."""
    kept = []
    for declaration in style.split(";"):
        prop, colon, value = declaration.partition(":")
        prop, value = prop.strip().lower(), value.strip()
        if colon and prop in _GRAMMAR and _GRAMMAR[prop].match(value):
            kept.append(f"{prop}:{value}")
    return ";".join(kept) or None


class _Sanitizer(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.dropping = [], []

    def handle_starttag(self, tag, attrs):
        if self.dropping or tag in DROPPED_WITH_TEXT:
            if tag not in VOID:
                self.dropping.append(tag)
            return
        if tag not in TAGS:
            return
        allowed = ANY_TAG | BY_TAG.get(tag, set())
        kept = []
        for name, value in attrs:
            if name == "style":
                value = clean_style(value or "")
            if name in allowed and value is not None:
                kept.append(f' {name}="{html.escape(value, quote=True)}"')
        self.out.append(f"<{tag}{''.join(kept)}>")

    def handle_endtag(self, tag):
        if self.dropping:
            if tag == self.dropping[-1]:
                self.dropping.pop()
            return
        if tag in TAGS and tag not in VOID:
            self.out.append(f"</{tag}>")

    def handle_data(self, data):
        if not self.dropping:
            self.out.append(html.escape(data, quote=False))


def sanitize(text):
    """``text`` as an untrusted notebook shows it."""
    parser = _Sanitizer()
    parser.feed(text)
    parser.close()
    return "".join(parser.out)
