"""PDF text with pypdf, cleaned for listening.

A page's text layer comes as lines. What a reader skips is dropped: page numbers and
running heads and feet (a line at a page's top or bottom that recurs on many pages, or on
3 pages in a row or every other page, its digits ignored). Words hyphenated at a line end are joined again, lines are joined into
paragraphs (a short line ending a sentence, or a blank line, ends one; a short numbered
heading is one of its own, and so is a short line without punctuation that begins a
paragraph and is followed by one with a capital, "Introduction"). A table of contents' entry is one of its own too, read without
its leader dots and page number ("1.2 Installation ..... 14": "1.2 Installation").

A numbered heading is said as a section's ("2.1. Directory layout": "Section 2.1: Directory
layout") in a document whose headings are numbered in levels: the number is how the text
refers to its parts ("see 2.1"), and said bare it would be heard as a count ("one
Introduction") or a decimal ("two point one").
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tray_reader.errors import DocumentError

if TYPE_CHECKING:
    from pypdf import PageObject, PdfReader

log = logging.getLogger(__name__)

EDGE_LINES = 2
"""Lines at the top and at the bottom of a page that may be a running head or foot."""
RECURRING_SHARE = 0.5
"""An edge line on at least this share of the pages (3 at least) is a running head or foot."""
MAX_HEAD_CHARS = 60
"""Running heads and feet are short; a longer recurring line is kept."""
SHORT_LINE = 0.8
"""A line shorter than this share of the document's typical line, ending a sentence, ends
its paragraph."""

TITLE_LINE = 0.6
"""A line shorter than this share of the document's typical line, beginning a paragraph and
not ending in punctuation, is a heading when the next line begins with a capital."""
_TITLE_END = re.compile(r"[.,;:!?\u2026\-\u00ad\u2010\u2013\u2014&/(\[{]$")

_PAGE_NUMBER = re.compile(
    r"^\s*(?:[-\u2013\u2014]\s*)?(?:page\s+)?(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:of|/)\s*\d{1,4})?"
    r"(?:\s*[-\u2013\u2014])?\s*$",
    re.I,
)
"""A page's number: "12", "xii", "Page 3 of 10", "3/10", "- 3 -" (a word processor's)."""
_HYPHENATED = re.compile(r"(\w)[-\u00ad\u2010]$")
_SENTENCE_END = re.compile(r"[.!?:\u201d\"')\]]$")
_NUMBERED_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+[A-Z](?:[^.!?:;,]|\.(?=\S))*\??$")
"""A section's numbered heading, "1. Introduction", "2.1. Directory layout", "1.2. What is
this spec?": a paragraph of its own when short, not the first words of the paragraph after it."""


_CONTENTS_ENTRY = re.compile(
    r"^(?P<title>.*?\S)\s*(?:\.\s*){4,}(?:\d{1,4}|[ivxlcdm]{1,7})$"
    r"|^(?P<numbered>(?:(?:Chapter|Part|Appendix|Section)\s+\w{1,4}|\d{1,2}(?:\.\d{1,2}){0,3}\.?)"
    r"\s+\S.*?)\s{2,}(?:\d{1,4}|[ivxlcdm]{1,7})$",
    re.I,
)
"""A table of contents' entry: a title, leader dots and a page number ("Introduction . . . 3",
"1.2 Installation ........ 14"), or a numbered title and the page number after a wide space
("Chapter 3  Parsing   27")."""
_SECTION_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})(\.?)\s+")
"""A heading's number, and the dot after it or none (each document writes them one way)."""


_NUMBERED_EDGE = re.compile(r"^# \S|\S #$")
"""A page's number before or after a running head ("Chapter 2: Parsing 14"): such a head
recurs on the pages of one chapter only, so twice is enough when the number differs on each."""


def _edge_key(line: str) -> str:
    return re.sub(r"\d+", "#", line.strip().lower())


def _in_a_run(pages: list[int]) -> bool:
    """Whether an edge line is on 3 pages in a row or every other page (a book's running
    heads alternate: its title on the left-hand pages, the chapter's on the right-hand ones,
    each on under half of the pages)."""
    run = 1
    for before, page in itertools.pairwise(pages):
        run = run + 1 if page - before <= 2 else 1
        if run >= 3:
            return True
    return False


def _drop_edges(pages: list[list[str]]) -> list[list[str]]:
    """Pages without their page numbers and running heads and feet."""
    counts: Counter[str] = Counter()
    numbers: dict[str, set[str]] = {}
    seen: dict[str, list[int]] = {}  # the pages each edge line is on, digits and all
    for page, lines in enumerate(pages):
        edges = {x.strip() for x in lines[:EDGE_LINES] + lines[-EDGE_LINES:] if x.strip()}
        counts.update({_edge_key(x) for x in edges})
        for x in edges:
            numbers.setdefault(_edge_key(x), set()).add("".join(re.findall(r"\d+", x)))
        for x in edges:
            seen.setdefault(x, []).append(page)
    need = max(3, int(len(pages) * RECURRING_SHARE + 0.999))
    recurring = {
        k
        for k, n in counts.items()
        if len(k) <= MAX_HEAD_CHARS
        and (n >= need or (n >= 2 and _NUMBERED_EDGE.search(k) and len(numbers[k]) == n))
    }
    # The same words and number on nearby pages ("Exercise 3" on one page and "Exercise 4" on
    # the next are not a running head).
    repeated = {x for x, on in seen.items() if len(x) <= MAX_HEAD_CHARS and _in_a_run(on)}
    out = []
    for lines in pages:
        kept = list(lines)
        for edge in (
            range(min(EDGE_LINES, len(kept))),
            range(len(kept) - 1, max(-1, len(kept) - 1 - EDGE_LINES), -1),
        ):
            for i in edge:
                line = kept[i]
                if _PAGE_NUMBER.match(line) or _edge_key(line) in recurring or line.strip() in repeated:
                    kept[i] = ""
        out.append(kept)
    return out


def paragraphs(pages: list[list[str]]) -> list[str]:
    """Lines of text pages (page numbers and running heads dropped) joined into paragraphs."""
    pages = _drop_edges(pages)
    lengths = sorted(len(x.strip()) for lines in pages for x in lines if x.strip())
    typical = lengths[int(len(lengths) * 0.75)] if lengths else 0
    out: list[str] = []
    headings: list[int] = []
    current = ""
    flat = [raw.strip() for lines in pages for raw in lines]
    following = [""] * len(flat)  # the next line with text after each
    for i in range(len(flat) - 2, -1, -1):
        following[i] = flat[i + 1] or following[i + 1]
    for line, after in zip(flat, following, strict=True):
        entry = _CONTENTS_ENTRY.match(line)
        heading = not entry and _NUMBERED_HEADING.match(line) and len(line) < SHORT_LINE * typical
        if entry or heading:
            if current:
                out.append(current)
            if heading:
                headings.append(len(out))
            out.append(" ".join((entry.group("title") or entry.group("numbered")).split()) if entry else line)
            current = ""
            continue
        if not line:
            # Only the paragraph's end is looked at: searching all of it at every line was
            # quadratic, and one paragraph can be a whole book where none are told apart.
            if current and _SENTENCE_END.search(current[-1:]):
                out.append(current)
                current = ""
            continue
        if not current and _is_title(line, after, typical):
            out.append(line)  # a heading of its own, not the first words of the paragraph
            continue
        if not current:
            current = line
        elif _HYPHENATED.search(current[-2:]) and line[:1].islower():
            current = current[:-1] + line
        else:
            current = f"{current} {line}"
        if _SENTENCE_END.search(line) and len(line) < SHORT_LINE * typical:
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return _said_as_sections(out, headings)


def _is_title(line: str, after: str, typical: int) -> bool:
    """Whether a line that begins a paragraph is a heading ("Introduction", "Results and
    discussion"): short, without a sentence's or a clause's end, and followed by a line that
    begins with a capital."""
    return (
        len(line) < TITLE_LINE * typical
        and line[:1].isupper()
        and after[:1].isupper()
        and not _TITLE_END.search(line)
        and len(line.split()) <= 10
    )


def _said_as_sections(blocks: list[str], headings: list[int]) -> list[str]:
    """``blocks`` with the numbered headings at ``headings`` said as sections' ("Section 2.1:
    Directory layout") when some heading's number has levels. A heading with a single
    number is a section's when written as those are ("1 Introduction" beside "2.1 Syntax",
    "1. Introduction" beside "1.1. Version"), unless next to another such: a numbered
    list's items ("1. Apples", "2. Pears") and a table's rows stay."""
    numbers = {i: m for i in headings if (m := _SECTION_NUMBER.match(blocks[i]))}
    styles = {m.group(2) for m in numbers.values() if "." in m.group(1)}
    out = list(blocks)
    for i, m in numbers.items():
        single = "." not in m.group(1)
        listed = any(j in numbers and "." not in numbers[j].group(1) for j in (i - 1, i + 1))
        if not single or (m.group(2) in styles and not listed):
            out[i] = f"Section {m.group(1)}: {blocks[i][m.end() :]}"
    return out


FIRST_PAGES = 8
"""A long PDF's reading starts once this many pages are read: their paragraphs, but for the
last (it may go on over the page), are read while the rest is (`pdf_parts`)."""


@contextmanager
def _pdf_errors(path: Path) -> Iterator[None]:
    """pypdf's errors on a damaged or protected file as a DocumentError the user can act on."""
    from pypdf.errors import PdfReadError

    # pypdf logs what it repairs ("EOF marker not found") to stderr; a damaged file's error
    # below says what matters, in words the user can act on.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        yield
    except DocumentError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as e:
        raise DocumentError(f"{path} is not a readable PDF ({e}). Check that the file is complete.") from e
    except Exception as e:  # noqa: BLE001 - pypdf raises many kinds on a damaged file
        if type(e).__name__ == "DependencyError":  # encryption needing the optional AES package
            raise DocumentError(
                f"{path} is encrypted in a way tray-reader cannot open. Save an unprotected copy."
            ) from e
        raise DocumentError(f"{path} could not be read as a PDF ({type(e).__name__}: {e}).") from e


def _open(path: Path) -> PdfReader:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    if reader.is_encrypted and not reader.decrypt(""):
        raise DocumentError(
            f"{path} is encrypted with a password. Open it in a PDF viewer and save or print an "
            "unprotected copy, then read that."
        )
    return reader


def _lines(page: PageObject) -> list[str]:
    return (page.extract_text() or "").splitlines()


def _check_text(path: Path, pages: list[list[str]]) -> None:
    if not any(line.strip() for lines in pages for line in lines):
        raise DocumentError(
            f"{path} has no text layer (a scanned document?). Run text recognition on it first "
            "(for example: ocrmypdf in.pdf out.pdf), then read the result."
        )


def read_pdf(path: Path) -> tuple[str, list[str]]:
    """(the PDF's title, its paragraphs); DocumentError for an encrypted or scanned one."""
    with _pdf_errors(path):
        reader = _open(path)
        pages = [_lines(page) for page in reader.pages]
        title = (reader.metadata.title if reader.metadata else None) or ""
    _check_text(path, pages)
    return str(title).strip(), paragraphs(pages)


def pdf_parts(path: Path, stop: threading.Event | None = None) -> Iterator[list[str]]:
    """The paragraphs of `read_pdf`, in parts, the first as soon as FIRST_PAGES pages are
    read: their paragraphs but the last. Running heads, the typical line and the headings'
    numbering are judged on those pages, then again on all of them: where the two differ
    (a head first seen later), the rest starts at the first paragraph that differs, read
    again as it really is (nothing is left out, nothing comes out of order). Once ``stop``
    is set, no further page is read: the parts end."""

    def stopped() -> bool:
        return stop is not None and stop.is_set()

    with _pdf_errors(path):
        reader = _open(path)
        count = len(reader.pages)
        pages: list[list[str]] = []
        early: list[str] = []
        judged = FIRST_PAGES
        while len(pages) < count and not early:
            if stopped():
                return
            pages.append(_lines(reader.pages[len(pages)]))
            if len(pages) == judged < count:
                early = paragraphs(pages)[:-1] if any(x.strip() for p in pages for x in p) else []
                judged *= 2  # a first paragraph over many pages: judged again at 16, 32... pages
    if early:
        yield early
    with _pdf_errors(path):
        while len(pages) < count:
            if stopped():
                return
            pages.append(_lines(reader.pages[len(pages)]))
    _check_text(path, pages)
    whole = paragraphs(pages)
    same = next(
        (i for i, (a, b) in enumerate(zip(early, whole, strict=False)) if a != b), min(len(early), len(whole))
    )
    if same < len(early):
        log.info(
            "%s: the first pages' paragraphs differ from the whole's at %d; reading on from there", path, same
        )
    yield whole[same:]
