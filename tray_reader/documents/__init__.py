"""Documents in: plain text, Markdown, HTML, PDF and EPUB files as chapters of blocks.

``load_document(path)`` picks the reader by the file's extension; every failure is a
`DocumentError` naming the file and what to do. Headings, paragraphs and list items become
blocks, which the front end reads with a paragraph's pause between them.
"""

from __future__ import annotations

import codecs
import itertools
import queue
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tray_reader.documents.types import BLOCK_SEPARATOR, Chapter, Document, chapters_by_heading
from tray_reader.errors import DocumentError

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

__all__ = [
    "Chapter",
    "Document",
    "DocumentError",
    "load_document",
    "document_parts",
    "document_reading",
    "PartsAhead",
    "read_ahead",
    "SUFFIXES",
    "chapters_from",
    "text_from",
]

MAX_TEXT_BYTES = 20 * 1024 * 1024
"""Largest .txt, .md or .html file read (about 50 hours of speech)."""
MAX_PACKED_BYTES = 200 * 1024 * 1024
"""Largest .pdf or .epub file read (they hold images too)."""
BINARY_SHARE = 0.02
"""A text file whose first 64 KB have more than this share of control bytes is not text."""

SUFFIXES = (".txt", ".text", ".md", ".markdown", ".html", ".htm", ".xhtml", ".pdf", ".epub")
"""The kinds of file tray-reader reads."""

_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")


_TEXT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".html", ".htm", ".xhtml")
_KIND_NAMES = {".pdf": "a PDF", ".epub": "an EPUB book", ".html": "a web page", ".txt": "plain text"}


def _is_text(head: bytes) -> bool:
    return b"\x00" not in head and len(_CONTROL.findall(head)) <= BINARY_SHARE * max(1, len(head))


def _kind_of(head: bytes) -> str | None:
    """What a file's first bytes say it is: ".pdf", ".epub", ".html", ".txt" (other text), or
    None (something else)."""
    start = head[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith(b"%pdf-"):
        return ".pdf"
    if head.startswith(b"PK\x03\x04"):
        return ".epub" if b"mimetypeapplication/epub+zip" in head[:100] else None
    if not head or not _is_text(head):
        return None
    return ".html" if start.startswith((b"<!doctype html", b"<html")) else ".txt"


def _check_kind(path: Path, suffix: str) -> None:
    """DocumentError when the file is not the kind its name says (a PDF named .txt, text
    named .pdf, an empty PDF), naming what it is and what to do."""
    try:
        with path.open("rb") as f:
            head = f.read(65536)
    except OSError as e:
        raise DocumentError(f"cannot read {path}: {e.strerror or e}") from None
    named = ".txt" if suffix in _TEXT_SUFFIXES else suffix
    if not head and named != ".txt":
        raise DocumentError(f"{path} is empty. Check that it was saved or downloaded completely.")
    actual = _kind_of(head)
    if named == ".pdf" and b"%PDF-" in head[:1024]:  # readers allow some bytes before the header
        return
    if actual is None or actual == named or (named == ".txt" and actual in (".txt", ".html")):
        return
    if named == ".txt" or actual != ".txt":
        wrong = f"it is {_KIND_NAMES[actual]} named {path.suffix}"
    else:
        wrong = f"it holds plain text, not {_KIND_NAMES[named]}"
    raise DocumentError(f"{path}: {wrong}. Rename it to {path.with_suffix(actual).name} and read that.")


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16's: it begins with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_by_bom(data: bytes) -> str | None:
    """Text that begins with a UTF-16 or UTF-32 byte order mark (Windows' "Unicode" text
    files, PowerShell's output), decoded; None for other data."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    return None


def decode_text(data: bytes) -> str:
    """Text given as bytes (stdin, a text sent to the daemon): UTF-8, or UTF-16 or UTF-32
    with a byte order mark; what is not valid becomes U+FFFD."""
    text = decode_by_bom(data)
    return text if text is not None else data.decode("utf-8-sig", errors="replace")


def read_text_file(path: Path) -> str:
    """The text of any text file (whatever its name), read as a .txt document is: UTF-8
    with or without a byte order mark, UTF-16 or UTF-32 with one, else Windows-1252;
    DocumentError for a folder, a file that cannot be read, is too large or is not text."""
    if path.is_dir():
        raise DocumentError(f"{path} is a folder; give a text file in it.")
    return _read_text(path)


def _read_text(path: Path) -> str:
    data = _read_bytes(path, MAX_TEXT_BYTES)
    text = decode_by_bom(data)
    if text is not None:
        return text
    head = data[:65536]
    if not _is_text(head):
        raise DocumentError(
            f"{path} does not hold text (it looks like a binary file{_named(path)}). "
            "Open it in the program that made it and save it as text."
        )
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _named(path: Path) -> str:
    return f" named {path.suffix}" if path.suffix else ""


def _read_bytes(path: Path, limit: int) -> bytes:
    try:
        size = path.stat().st_size
        if size > limit:
            raise DocumentError(
                f"{path} is {size / 2**20:.0f} MB; tray-reader reads files of {path.suffix} up to "
                f"{limit // 2**20} MB. Split it into smaller files."
            )
        return path.read_bytes()
    except OSError as e:
        raise DocumentError(f"cannot read {path}: {e.strerror or e}") from None


_GUTENBERG_START = re.compile(r"^\*{3} *START OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$", re.I | re.M)
_GUTENBERG_END = re.compile(r"^\*{3} *END OF (?:THE|THIS) PROJECT GUTENBERG E-?BOOK\b.*$", re.I | re.M)


def _gutenberg_book(text: str) -> str:
    """A Project Gutenberg text without the header before its "*** START OF THE PROJECT
    GUTENBERG EBOOK ... ***" line and the licence after its "*** END OF ..." one; other text
    as it is."""
    start = _GUTENBERG_START.search(text)
    end = _GUTENBERG_END.search(text, start.end()) if start else None
    return text[start.end() : end.start()] if start and end else text


def _plain(path: Path, text: str) -> tuple[Chapter, ...]:
    """Blocks between blank lines; their lines are kept (the sentence splitter tells a
    wrapped line from a list item, a field or a short line of its own)."""
    blocks = [
        "\n".join(" ".join(line.split()) for line in b.splitlines() if line.strip())
        for b in re.split(r"\n[ \t\f\v\r]*\n", text)
    ]
    return (Chapter(path.stem, tuple(b for b in blocks if b)),)


_FRONT_MATTER = re.compile(
    r"\A\ufeff?(?:---[ \t]*\n(?:[ \t]*#.*\n)*[\w-]+[ \t]*:.*\n(?:.*\n)*?(?:---|\.\.\.)"
    r"|\+\+\+[ \t]*\n(?:[ \t]*#.*\n)*[\w-]+[ \t]*=.*\n(?:.*\n)*?\+\+\+)[ \t]*(?:\n|\Z)"
)


_TASK_BOX = re.compile(r"(<li>\s*(?:<p>)?)\[[ xX]\][ \t]+")
"""A task list item's box, "- [ ] Buy milk" and "- [x] Call Ann": drawn, not read."""


def _without_front_matter(markdown: str) -> str:
    """Markdown without the YAML (``---``) or TOML (``+++``) metadata block a static site
    generator or a notes app puts at its top (it is not part of the text)."""
    return _FRONT_MATTER.sub("", markdown.replace("\r\n", "\n"), count=1)


def load_document(path: Path) -> Document:
    """The readable text of the file at ``path`` (raises DocumentError)."""
    path = Path(path)
    suffix = path.suffix.lower()
    _check_file(path, suffix)
    title = ""
    if suffix in (".txt", ".text"):
        chapters = _plain(path, _gutenberg_book(_read_text(path)))
    elif suffix in (".md", ".markdown"):
        from tray_reader.documents.html import html_blocks

        rendered = _markdown().render(_without_front_matter(_read_text(path)))
        _, blocks = html_blocks(_TASK_BOX.sub(r"\1", rendered))
        chapters = chapters_by_heading(blocks, path.stem)
    elif suffix in (".html", ".htm", ".xhtml"):
        from tray_reader.documents.html import html_blocks

        title, blocks = html_blocks(_read_text(path))
        chapters = chapters_by_heading(blocks, title or path.stem)
    elif suffix == ".pdf":
        from tray_reader.documents.pdf import read_pdf

        _check_size(path, MAX_PACKED_BYTES)
        title, paragraphs = read_pdf(path)
        chapters = (Chapter(title or path.stem, tuple(paragraphs)),)
    else:
        from tray_reader.documents.epub import read_epub

        _check_size(path, MAX_PACKED_BYTES)
        title, found = read_epub(path)
        chapters = tuple(found)
    chapters = tuple(c for c in chapters if c.blocks)
    if not chapters:
        raise DocumentError(f"{path} holds no text to read.")
    first_heading = chapters[0].title
    return Document(path, title or first_heading or path.stem, chapters)


def _check_file(path: Path, suffix: str) -> None:
    """DocumentError unless ``path`` is a file of a kind tray-reader reads, named for what it is."""
    if path.is_dir():
        raise DocumentError(f"{path} is a folder; give a document file in it.")
    if not path.exists():
        raise DocumentError(f"{path} does not exist.")
    if suffix not in SUFFIXES:
        known = " ".join(SUFFIXES)
        kind = f"{suffix} files" if suffix else "files without an extension"
        raise DocumentError(
            f"{path}: tray-reader does not know how to read {kind}. It reads {known}; "
            "save the document as one of these."
        )
    if not path.is_file():
        raise DocumentError(f"{path} is not a file.")
    _check_kind(path, suffix)


def _markdown() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


FIRST_PART_CHARS = 3000
"""A long Markdown document's reading starts once the blocks holding its first this many
characters are rendered; the rest is rendered while they are read (`document_parts`)."""
PIECE_CHARS = 100_000
"""The rest of a long Markdown document is parsed and rendered this many characters at a
time (at the next top-level block), so that only one piece's parse is held at once."""


def _markdown_parts(markdown: str, stop: threading.Event | None = None) -> Iterator[list[tuple[int, str]]]:
    """The blocks `load_document` finds in a Markdown text, in two parts: its block
    structure is parsed whole first (a reference link's definition can be at the end; a
    fraction of the rendering's time) to find where top-level blocks begin, then the blocks
    holding its first FIRST_PART_CHARS characters are rendered and read, then the rest,
    parsed again in pieces cut where top-level blocks begin (nothing is open there: no list,
    quote, table or fenced code is cut) so that the whole's structure is not kept meanwhile.
    Each piece's inline text is parsed with all the definitions, and one HTML parser reads
    the pieces' markup in turn: the blocks are the same. Once ``stop`` is set, no further
    piece is rendered (the rest comes cut short; `document_parts` does not hand it on)."""
    from markdown_it.rules_core import StateCore

    from tray_reader.documents.html import html_block_parts

    md = _markdown()
    env: dict[str, Any] = {}
    rules = md.core.ruler.getRules("")
    structure = [rule for rule in rules if rule.__name__ in ("normalize", "block")]

    def parsed(source: str) -> tuple[str, list[Token]]:
        state = StateCore(source, md, env)
        for rule in structure:
            rule(state)
        return state.src, state.tokens

    source, tokens = parsed(_without_front_matter(markdown))
    cuts: list[int] = []  # the tokens where each piece begins, after the first
    chars, limit = 0, FIRST_PART_CHARS
    for i, token in enumerate(tokens):
        if token.level == 0 and token.nesting >= 0 and token.map and chars >= limit:
            cuts.append(i)
            chars, limit = 0, PIECE_CHARS
        chars += len(token.content)
    first = tokens[: cuts[0] if cuts else len(tokens)]
    lines = [token.map[0] for token in (tokens[i] for i in cuts) if token.map]
    del tokens

    def rendered(part: list[Token]) -> str:
        piece = StateCore("", md, env, part)
        for rule in rules:
            if rule not in structure:
                rule(piece)
        return _TASK_BOX.sub(r"\1", md.renderer.render(part, md.options, env))

    def markup() -> Iterator[str]:
        yield rendered(first)
        starts = [0, *itertools.accumulate(len(line) + 1 for line in source.split("\n"))]
        bounds = [starts[line] for line in lines]
        for begin, end in itertools.pairwise([*bounds, len(source)]):
            if stop is not None and stop.is_set():
                return
            yield rendered(parsed(source[begin:end])[1])

    pieces = html_block_parts(markup())
    yield next(pieces)
    yield [block for piece in pieces for block in piece]


def document_parts(
    path: Path, start: str | None = None, stop: threading.Event | None = None
) -> Iterator[str]:
    """`text_from(load_document(path), start)` in parts that join with BLOCK_SEPARATOR into
    it, each ending with a block. A PDF's first part comes once its first pages are read
    (`pdf.pdf_parts`), a Markdown document's once its first blocks are rendered; the rest
    when all is. Other documents, and reading from a ``start`` (its sentence is counted, and
    a chapter's checked, in the whole document), come in one part. Once ``stop`` is set (the
    reading was stopped), a PDF's next page is not read nor a Markdown document's next piece
    rendered: the parts end there."""
    path = Path(path)
    suffix = path.suffix.lower()
    if start or suffix not in (".pdf", ".md", ".markdown"):
        yield text_from(load_document(path), start)
        return
    _check_file(path, suffix)
    parts: Iterator[list[str]]
    if suffix == ".pdf":
        from tray_reader.documents.pdf import pdf_parts

        _check_size(path, MAX_PACKED_BYTES)
        parts = pdf_parts(path, stop)
    else:
        parts = ([text for _, text in blocks] for blocks in _markdown_parts(_read_text(path), stop))
    found = False
    for blocks in parts:
        if stop is not None and stop.is_set():
            return  # what was made meanwhile may be cut short
        if blocks:
            found = True
            yield BLOCK_SEPARATOR.join(blocks)
    if not found and not (stop is not None and stop.is_set()):
        raise DocumentError(f"{path} holds no text to read.")


POLL = 0.1
"""Seconds between looks at a stop while waiting for a part, or for the first words."""

_END = object()


class PartsAhead:
    """A document's parts after its first (`document_parts`), each made on a thread of its
    own while the one before is read, from `begin()` on (the first words are out: until then
    the reading has the cores). What making a part raises is raised by `take` where the
    part would have come. `close()` (the reading ended or was stopped) ends the making at
    its next page or piece, when ``stop`` is the event `document_parts` was given, and no
    part is taken after it."""

    separator = BLOCK_SEPARATOR
    """What joins a part to the text before it."""

    def __init__(
        self, parts: Iterator[str], stop: threading.Event | None = None, begin: threading.Event | None = None
    ) -> None:
        self._parts = parts
        self._stop = stop if stop is not None else threading.Event()
        self._begin = begin if begin is not None else threading.Event()
        self._ready: queue.Queue[object] = queue.Queue(maxsize=1)
        self._made = threading.Event()
        self._ended = False
        threading.Thread(target=self._make, name="tray-reader-document", daemon=True).start()

    @property
    def loading(self) -> bool:
        """Parts are still to be made (the reading goes on)."""
        return not self._made.is_set() and not self._stop.is_set()

    def begin(self) -> None:
        """The first words are out: make the rest now."""
        self._begin.set()

    def close(self) -> None:
        """No more parts are wanted."""
        self._stop.set()

    def take(self, cancel: threading.Event | None = None) -> str | None:
        """The next part once it is made; None when there are no more, or once `close()`
        was called or ``cancel`` is set."""
        while not self._ended:
            if self._stop.is_set() or (cancel is not None and cancel.is_set()):
                return None
            try:
                part = self._ready.get(timeout=POLL)
            except queue.Empty:
                continue
            if isinstance(part, BaseException):
                self._ended = True
                raise part
            if part is _END:
                self._ended = True
                break
            return cast(str, part)
        return None

    def _hand(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._ready.put(item, timeout=POLL)
                return True
            except queue.Full:
                continue
        return False

    def _make(self) -> None:
        try:
            while not self._begin.wait(POLL):
                if self._stop.is_set():
                    return
            for part in self._parts:
                if not self._hand(part):
                    return
            self._made.set()
            self._hand(_END)
        except BaseException as e:  # noqa: BLE001 - handed to the reader, raised there
            self._made.set()
            self._hand(e)
        finally:
            close = getattr(self._parts, "close", None)
            if close is not None:
                close()  # a PDF's file, a stopped reading's generator


def document_reading(
    path: Path, start: str | None = None, stop: threading.Event | None = None
) -> tuple[str, PartsAhead] | None:
    """The document's first part (`document_parts`), made now (a DocumentError is raised
    here), and its rest, made ahead from `PartsAhead.begin()` on; None when ``stop`` was set
    before the first part was made. Setting ``stop`` or closing the rest ends the making."""
    stop = stop if stop is not None else threading.Event()
    parts = document_parts(path, start, stop)
    first = next(parts, None)
    if first is None:
        return None
    return first, PartsAhead(parts, stop)


def read_ahead(parts: Iterator[str], begin: threading.Event | None = None) -> Iterator[str]:
    """``parts`` with the next one made on a thread of its own while the one before is read
    (a long document's rest is extracted during its first part), from when ``begin`` is set
    (None: at once). What making a part raises is raised where it would have come; a
    reading stopped early leaves the thread to end at the next part."""
    ahead = PartsAhead(parts, begin=begin)  # the thread starts now, not at the first part
    if begin is None:
        ahead.begin()

    def taken() -> Iterator[str]:
        try:
            while (part := ahead.take()) is not None:
                yield part
        finally:
            ahead.close()

    return taken()


def _check_size(path: Path, limit: int) -> None:
    try:
        size = path.stat().st_size
    except OSError as e:
        raise DocumentError(f"cannot read {path}: {e.strerror or e}") from None
    if size > limit:
        raise DocumentError(f"{path} is {size / 2**20:.0f} MB; tray-reader reads up to {limit // 2**20} MB.")


def chapters_from(document: Document, start: str | None) -> list[Chapter]:
    """The chapters to read from ``start`` on: None (the beginning), "N" (the Nth sentence:
    its chapter from there), or "chapter:N" (the Nth chapter)."""
    from tray_reader.text.sentences import sentences

    if not start:
        return list(document.chapters)
    m = re.fullmatch(r"\s*(?:(chapter|ch|c)\s*[: ]?\s*)?(\d+)\s*", start, re.I)
    if not m or int(m.group(2)) < 1:
        raise DocumentError(f"--from takes a sentence number (12) or a chapter (chapter:3), got {start!r}")
    n = int(m.group(2))
    if m.group(1):
        if n > len(document.chapters):
            count = len(document.chapters)
            raise DocumentError(
                f"{document.path} has {count} chapter{'s' * (count != 1)}; there is no chapter {n}."
            )
        return list(document.chapters[n - 1 :])
    text = document.text
    cursor = 0
    i = 0
    for i, raw in enumerate(sentences(text), start=1):
        at = text.find(raw.text, cursor)
        cursor = at + len(raw.text)
        if i < n:
            continue
        begin = 0
        for k, chapter in enumerate(document.chapters):
            end = begin + len(chapter.text) + len(BLOCK_SEPARATOR)
            if at < end:
                rest = Chapter(chapter.title, (chapter.text[max(0, at - begin) :],))
                return [rest, *document.chapters[k + 1 :]]
            begin = end
    raise DocumentError(f"{document.path} has {i} sentence{'s' * (i != 1)}; there is no sentence {n}.")


def text_from(document: Document, start: str | None) -> str:
    """The text to read from ``start`` on (see `chapters_from`)."""
    return BLOCK_SEPARATOR.join(c.text for c in chapters_from(document, start))
