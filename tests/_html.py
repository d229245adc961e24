"""A rendered trace read back as data, for the tests of its HTML (``html.parser``)."""

from html.parser import HTMLParser


class Page(HTMLParser):
    """The rendered trace as data: every start tag with its attributes, and each table's
    caption, header and rows (cell text, without the × = → markers, which are the cell's
    ``op``)."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.tables = [], []
        self._stack, self._cell, self._skip = [], None, 0
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        classes = (attrs.get("class") or "").split()
        self._stack.append((tag, classes))
        if tag == "table":
            self.tables.append({"class": classes, "caption": "", "header": [], "head_cells": [],
                                "rows": []})
        elif tag == "tr":
            self.tables[-1]["rows"].append({"class": classes, "cells": []})
        elif tag in ("td", "th"):
            self._cell = {"class": classes, "text": "", "op": "", "colspan": attrs.get("colspan"),
                          "style": attrs.get("style") or ""}
        elif tag == "span" and "gm-op" in classes:
            self._skip += 1

    def handle_endtag(self, tag):
        tag_, classes = self._stack.pop()
        assert tag_ == tag, f"</{tag}> closes <{tag_}>"
        if tag == "span" and "gm-op" in classes:
            self._skip -= 1
        elif tag in ("td", "th"):
            in_head = any(t == "thead" for t, _ in self._stack)
            table = self.tables[-1]
            if in_head:
                table["header"].append(self._cell["text"])
                table["head_cells"].append(self._cell)
                table["rows"].pop() if table["rows"] and not table["rows"][-1]["cells"] else None
            else:
                table["rows"][-1]["cells"].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        where = [t for t, _ in self._stack]
        if "caption" in where:
            self.tables[-1]["caption"] += data
        elif self._cell is not None:
            self._cell["op" if self._skip else "text"] += data

    def table(self, caption):
        matches = [t for t in self.tables if t["caption"] == caption]
        assert len(matches) == 1, [t["caption"] for t in self.tables]
        return matches[0]

    def data_rows(self, caption):
        """The rows of a table that hold values (not notes or folded markers), as text."""
        return [[c["text"] for c in r["cells"]] for r in self.table(caption)["rows"]
                if "gm-row" in r["class"]]


def declarations(style):
    """An inline style as ``{property: value}`` (a later declaration wins, as in CSS)."""
    return dict(d.split(":", 1) for d in style.split(";") if d)
