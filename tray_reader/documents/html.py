"""HTML to blocks with the standard library's parser (also used for Markdown and EPUB).

Block elements (paragraphs, headings, list items, table rows, line breaks) end a block;
what is never read aloud (scripts, styles, the head, navigation) is skipped.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_BLOCKS = frozenset(
    [
        "p",
        "div",
        "section",
        "article",
        "header",
        "footer",
        "main",
        "aside",
        "blockquote",
        "pre",
        "li",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "tr",
        "table",
        "figcaption",
        "caption",
        "address",
        "hr",
        "br",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "body",
    ]
)
_SKIPPED = frozenset(
    ["script", "style", "head", "noscript", "template", "svg", "math", "nav", "iframe", "object"]
)
_VOID = frozenset(
    ["br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "track", "wbr"]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_SPACE = re.compile(r"\s+")


class _BlockParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[int, str]] = []
        self.title = ""
        self._parts: list[str] = []
        self._skip = 0
        self._in_title = False
        self._level = 0

    def _end_block(self) -> None:
        text = _SPACE.sub(" ", "".join(self._parts)).strip()
        self._parts = []
        if text:
            self.blocks.append((self._level, text))
        self._level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIPPED:
            if tag not in _VOID:
                self._skip += 1
            return
        if tag in _BLOCKS:
            self._end_block()
        if tag in _HEADINGS:
            self._level = _HEADINGS[tag]
        if tag == "img" and not self._skip:
            alt = dict(attrs).get("alt")
            if alt:
                self._parts.append(f" {alt} ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCKS:
            self._end_block()
        elif tag == "img":
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if tag in _BLOCKS:
            self._end_block()

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self._skip:
            self._parts.append(data)

    def close(self) -> None:
        super().close()
        self._end_block()


def html_blocks(markup: str) -> tuple[str, list[tuple[int, str]]]:
    """(the page's <title>, its blocks as (heading level or 0, text)) in document order."""
    parser = _BlockParser()
    parser.feed(markup)
    parser.close()
    return _SPACE.sub(" ", parser.title).strip(), parser.blocks
