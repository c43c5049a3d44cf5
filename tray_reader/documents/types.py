"""What a document reader hands on: chapters of blocks, joined so that the front end
pauses between them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BLOCK_SEPARATOR = "\n\n"
"""Between blocks (headings, paragraphs, list items): a blank line, which the front end
reads as the end of a paragraph (the longest pause)."""


@dataclass(frozen=True)
class Chapter:
    """One part of a document read as a unit (an EPUB spine item, a top-level section)."""

    title: str
    """Its heading, or a name made from its position when it has none."""
    blocks: tuple[str, ...]
    """Headings, paragraphs and list items in reading order, each on one line."""

    @property
    def text(self) -> str:
        """The blocks as the front end reads them."""
        return BLOCK_SEPARATOR.join(self.blocks)


@dataclass(frozen=True)
class Document:
    """A document's readable text."""

    path: Path
    """Where it was read from."""
    title: str
    """Its title (from its metadata or first heading, else the file name)."""
    chapters: tuple[Chapter, ...]
    """At least one, each with at least one block."""

    @property
    def text(self) -> str:
        """The whole document as the front end reads it."""
        return BLOCK_SEPARATOR.join(c.text for c in self.chapters)


def chapters_by_heading(blocks: list[tuple[int, str]], fallback_title: str) -> tuple[Chapter, ...]:
    """Cut ``blocks`` ((heading level or 0 for a paragraph, text)) into chapters at the
    highest heading level that occurs more than once; one chapter when none does."""
    levels = sorted({level for level, _ in blocks if level})
    cut = next((lv for lv in levels if sum(1 for level, _ in blocks if level == lv) > 1), None)
    chapters: list[Chapter] = []
    title = fallback_title
    current: list[str] = []
    for level, text in blocks:
        if cut is not None and level == cut and current:
            chapters.append(Chapter(title, tuple(current)))
            current = []
        if cut is not None and level == cut:
            title = text
        current.append(text)
    if current:
        chapters.append(Chapter(title, tuple(current)))
    return tuple(chapters)
