"""HTML to blocks with the standard library's parser (also used for Markdown and EPUB).

Block elements (paragraphs, headings, list items, table rows, line breaks) end a block;
what is never read aloud (scripts, styles, the head, navigation, buttons, ruby's
pronunciation guide, what the page hides, a "Skip to content" link, the page's footer) is
skipped, and so are
note references: an element marked as one (EPUB's ``epub:type="noteref"``, ARIA's
``doc-noteref``), a bracketed superscript number ("[1]"), and a superscript number that is
a link or follows punctuation ("clear.<sup>1</sup>"; "mc<sup>2</sup>" is read). A table's
cells are read with a comma between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
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
    [
        "script",
        "style",
        "head",
        "noscript",
        "template",
        "svg",
        "math",
        "nav",
        "iframe",
        "object",
        "rt",  # ruby's pronunciation guide: the base text is read
        "rp",
        "button",
        "select",
    ]
)
_CELLS = frozenset(["td", "th"])
_SECTIONING = frozenset(["article", "section", "main", "aside", "nav"])
"""A <footer> outside these is the page's (copyright, links), which is not read."""
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_ROLES_SKIPPED = frozenset(["navigation", "search", "contentinfo", "dialog", "alertdialog"])
_SKIP_LINK = re.compile(r"(?i)(skip|jump) (to|over) (the )?(main |page )?(content|navigation|menu|main)\.?")
_CELL_END = re.compile(r"[.,;:!?]\s*$")
_VOID = frozenset(
    ["br", "hr", "img", "meta", "link", "input", "area", "base", "col", "embed", "source", "track", "wbr"]
)
_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_NOTE_MARK = re.compile(r"[\d*\u2020\u2021\u00a7\u00b6]{1,4}|[a-z]|\[\d{1,4}\]")
_BRACKETED_MARK = re.compile(r"\[\d{1,4}\]")  # "[1]": never an exponent
_AFTER_PUNCTUATION = re.compile(r"[.,;:!?\"'\u201d\u2019)\]]\s*$")
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
        self._note: list[str] = []  # tags open inside a note reference (skipped)
        self._links = 0
        self._sup: list[tuple[int, bool]] = []  # where each open <sup> began, inside a link
        self._pre = 0  # <pre> elements open
        self._in_page_link: int | None = None  # where a link to "#..." began
        self._sections = 0  # <article>, <section>, <main>, <aside> open

    def _end_block(self) -> None:
        raw = "".join(self._parts)
        self._parts = []
        # Preformatted text (code, a poem's layout) keeps its lines: each is a block of its own.
        for line in raw.splitlines() if self._pre else [raw]:
            text = _SPACE.sub(" ", line).strip()
            if text:
                self.blocks.append((self._level, text))
        self._level = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        page_footer = tag == "footer" and not self._sections  # the site's, not an article's
        closed = tag == "dialog" and "open" not in found  # a pop-up not shown (a cookie notice)
        if self._note or page_footer or closed or _not_read(found):
            if not self._note and tag in _BLOCKS:
                self._end_block()
            if tag not in _VOID:
                self._note.append(tag)
            return
        if tag in _SECTIONING:
            self._sections += 1
        if tag == "a" and found.get("href"):
            self._links += 1
            if (found.get("href") or "").startswith("#"):
                self._in_page_link = len(self._parts)
        elif tag == "sup":
            self._sup.append((len(self._parts), self._links > 0))
        if tag == "title":
            self._in_title = True
        if tag in _SKIPPED:
            if tag not in _VOID:
                self._skip += 1
            return
        if tag in _BLOCKS:
            self._end_block()
        elif tag in _CELLS:
            row = "".join(self._parts).strip()
            if row:  # the cells of a row are read as a list, not run together
                while not self._parts[-1].strip():
                    self._parts.pop()
                self._parts[-1] = self._parts[-1].rstrip()
                self._parts.append(" " if _CELL_END.search(row) else ", ")
        if tag == "pre":
            self._pre += 1
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
        if self._note:
            if tag in self._note:  # the innermost one of its name closes
                del self._note[len(self._note) - 1 - self._note[::-1].index(tag) :]
            return
        if tag in _SECTIONING:
            self._sections = max(0, self._sections - 1)
        if tag == "a":
            self._links = max(0, self._links - 1)
            if self._in_page_link is not None:
                if _SKIP_LINK.fullmatch("".join(self._parts[self._in_page_link :]).strip()):
                    del self._parts[self._in_page_link :]  # "Skip to content": for the keyboard
                self._in_page_link = None
        elif tag == "sup" and self._sup:
            start, linked = self._sup.pop()
            mark = "".join(self._parts[start:]).strip()
            before = "".join(self._parts[:start])
            if _BRACKETED_MARK.fullmatch(mark) or (
                _NOTE_MARK.fullmatch(mark) and (linked or _AFTER_PUNCTUATION.search(before))
            ):
                del self._parts[start:]  # a note's number, not an exponent
        if tag == "title":
            self._in_title = False
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
            return
        if tag in _BLOCKS:
            self._end_block()
        if tag == "pre":
            self._pre = max(0, self._pre - 1)

    def handle_data(self, data: str) -> None:
        if self._note:
            return
        if self._in_title:
            self.title += data
        if not self._skip:
            self._parts.append(data)

    def close(self) -> None:
        super().close()
        self._end_block()


def _not_read(attrs: dict[str, str | None]) -> bool:
    """Whether an element with these attributes is left out with all it holds: a note
    reference, a printed edition's page number marked in an EPUB, what the page hides
    (``hidden``, ``aria-hidden``, ``display: none``), and by their ARIA roles the site's
    navigation, search box and footer and its pop-ups (a cookie notice)."""
    role = (attrs.get("role") or "").strip().lower()
    return (
        any(kind in (attrs.get("epub:type") or "") for kind in ("noteref", "pagebreak"))
        or role in ("doc-noteref", "doc-pagebreak")
        or role in _ROLES_SKIPPED
        or ("hidden" in attrs and attrs["hidden"] != "until-found")  # that one is found by search
        or (attrs.get("aria-hidden") or "").strip().lower() == "true"
        or bool(_HIDDEN_STYLE.search(attrs.get("style") or ""))
    )


def html_blocks(markup: str) -> tuple[str, list[tuple[int, str]]]:
    """(the page's <title>, its blocks as (heading level or 0, text)) in document order."""
    parser = _BlockParser()
    parser.feed(markup)
    parser.close()
    return _SPACE.sub(" ", parser.title).strip(), parser.blocks


def html_block_parts(pieces: Iterable[str]) -> Iterator[list[tuple[int, str]]]:
    """The blocks of `html_blocks` on the pieces' markup joined, as each piece is read: a
    block is complete once the markup after it began (the same parser reads every piece)."""
    parser = _BlockParser()
    for piece in pieces:
        parser.feed(piece)
        found, parser.blocks = parser.blocks, []
        yield found
    parser.close()
    yield parser.blocks
