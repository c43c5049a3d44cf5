"""A long document read in parts (`documents.document_parts`): the parts join into the whole
document's text, and the first comes before the last page is read or the rest rendered."""

from __future__ import annotations

import threading

import pytest

from tests.make_documents import write_pdf
from tray_reader import documents
from tray_reader.documents import BLOCK_SEPARATOR, document_parts, load_document, read_ahead, text_from
from tray_reader.documents import pdf as pdf_module
from tray_reader.errors import DocumentError

PAGES = 20


def _book_pages(count: int = PAGES) -> list[list[str]]:
    """A book's pages: a running head, a numbered heading now and then, paragraphs that go
    on over the page, words hyphenated at a line's end, the page's number."""
    pages = []
    for n in range(1, count + 1):
        lines = [
            "The Long Book",
            f"the story goes on from the page before, on page {n} it tells of a river and a",
            "mountain and of a garden where the apples grow in rows along the old stone wall,",
            "and of the people who walk there in the morning before the heat of the day is",
            "high; it is a quiet place, far from the town, and nobody hurries there at all.",
            "That is all.",
            *([f"{n // 5 + 1}.1 Part number {n // 5 + 1}"] if n % 5 == 1 else []),
            "A new paragraph begins here and its words run on to the end of the line as the",
            "lines of a book do, with a word that is hyphen-",
            "ated, and it ends a little later in the",
            f"middle of page {n} and the next one starts right after it without a break and",
        ]
        pages.append([*lines, str(n)])
    return pages


def test_a_pdf_read_in_parts_is_the_whole_document_s_text(tmp_path):
    path = write_pdf(tmp_path / "book.pdf", _book_pages())
    parts = list(document_parts(path))
    assert len(parts) == 2
    assert BLOCK_SEPARATOR.join(parts) == load_document(path).text
    assert "Long Book" not in parts[0] and "Section 1.1: Part number 1" in parts[0]


def test_a_pdf_s_first_part_comes_before_its_last_page_is_read(tmp_path, monkeypatch):
    path = write_pdf(tmp_path / "book.pdf", _book_pages())
    read = []
    lines = pdf_module._lines
    monkeypatch.setattr(pdf_module, "_lines", lambda page: read.append(page) or lines(page))
    parts = document_parts(path)
    first = next(parts)
    assert len(read) == pdf_module.FIRST_PAGES < PAGES and first
    rest = next(parts)
    assert len(read) == PAGES and rest


def test_a_pdf_whose_first_paragraph_runs_over_many_pages_waits_for_its_end(tmp_path, monkeypatch):
    run_on = [
        [f"line {i} of page {p} goes on and on without any end to its sentence at all" for i in range(3)]
        for p in range(12)
    ]
    path = write_pdf(tmp_path / "one.pdf", [*run_on, ["It ends here."], ["Then another paragraph."]] * 2)
    read = []
    lines = pdf_module._lines
    monkeypatch.setattr(pdf_module, "_lines", lambda page: read.append(page) or lines(page))
    parts = document_parts(path)
    assert next(parts) and len(read) == 2 * pdf_module.FIRST_PAGES  # judged again at 16 pages
    assert BLOCK_SEPARATOR.join(list(document_parts(path))) == load_document(path).text


def test_where_the_first_pages_are_judged_otherwise_the_rest_starts_where_they_differ(tmp_path):
    # Short lines on the first pages, long ones after: on the first pages alone a short line
    # ending a sentence is a typical one and does not end its paragraph; on all, it does.
    short = [[f"Short line {p}.{i} ends." for i in range(6)] for p in range(pdf_module.FIRST_PAGES + 1)]
    long = [["This line is a good deal longer than the lines of the first pages were, and"] * 6] * 30
    path = write_pdf(tmp_path / "mixed.pdf", [*short, *long])
    whole = load_document(path).text
    first, rest = document_parts(path)
    assert BLOCK_SEPARATOR.join([first, rest]) != whole
    assert rest == whole  # read again from its first paragraph: nothing left out or reordered


MARKDOWN = """---
title: A notebook
---
# The notebook

It begins with a [reference link][far], defined at the very end, and [another][near].

[near]: https://example.org/near

```python
def f():

    return 1  # a fenced block with a blank line in it
```

- [ ] a task, loose

- [x] another, done

| name | value |
|------|-------|
| one  | 1     |

"""


def _long_markdown() -> str:
    sections = [
        f"## Section {n}\n\nParagraph {n} says *something* about [the far place][far] and goes on "
        "for a while, as paragraphs do, until it ends.\n\n1. first item\n\n   still the first item\n"
        "2. second item\n\n> a quote\n> over two lines\n"
        for n in range(1, 60)
    ]
    return MARKDOWN + "\n".join(sections) + "\n[far]: https://example.org/far\n"


@pytest.mark.parametrize("piece_chars", [documents.PIECE_CHARS, 300])
def test_markdown_read_in_parts_is_the_whole_document_s_text(tmp_path, monkeypatch, piece_chars):
    monkeypatch.setattr(documents, "PIECE_CHARS", piece_chars)  # the rest parsed in one piece, or many
    path = tmp_path / "notes.md"
    path.write_text(_long_markdown())
    parts = list(document_parts(path))
    assert len(parts) == 2 and len(parts[0]) >= documents.FIRST_PART_CHARS / 2
    whole = load_document(path).text
    assert BLOCK_SEPARATOR.join(parts) == whole
    assert "It begins with a reference link, defined at the very end, and another." in parts[0]
    assert "[far]" not in whole and "[ ]" not in whole


def test_markdown_s_first_part_comes_before_the_rest_is_rendered(tmp_path, monkeypatch):
    path = tmp_path / "notes.md"
    path.write_text(_long_markdown())
    rendered: list[int] = []
    make = documents._markdown

    def counting():
        md = make()
        render = md.renderer.render
        md.renderer.render = lambda tokens, *a: rendered.append(len(tokens)) or render(tokens, *a)
        return md

    monkeypatch.setattr(documents, "_markdown", counting)
    parts = document_parts(path)
    assert next(parts) and len(rendered) == 1
    next(parts)
    assert len(rendered) == 2 and rendered[0] < rendered[1]  # the rest: under PIECE_CHARS here


@pytest.mark.parametrize("suffix", [".txt", ".html"])
def test_other_documents_and_a_start_come_whole(tmp_path, suffix):
    path = tmp_path / f"short{suffix}"
    path.write_text("One.\n\nTwo.\n")
    assert list(document_parts(path)) == [load_document(path).text]
    md = tmp_path / "long.md"
    md.write_text(_long_markdown())
    assert list(document_parts(md, "chapter:3")) == [text_from(load_document(md), "chapter:3")]


def test_read_ahead_keeps_the_order_and_raises_where_the_error_came():
    def parts():
        yield "one"
        yield "two"
        raise DocumentError("page 3 is damaged")

    got = []
    with pytest.raises(DocumentError, match="page 3"):
        for part in read_ahead(parts()):
            got.append(part)
    assert got == ["one", "two"]


def test_read_ahead_makes_the_next_part_before_it_is_asked_for():
    made = threading.Event()

    def parts():
        yield "one"
        made.set()
        yield "two"

    reading = read_ahead(parts())
    assert made.wait(timeout=10)  # before the reading took its first part
    assert list(reading) == ["one", "two"]


def test_read_ahead_waits_for_the_first_words_before_making_a_part():
    made = threading.Event()

    def parts():
        made.set()
        yield "two"

    heard = threading.Event()
    reading = read_ahead(parts(), heard)
    assert not made.wait(timeout=0.3)  # the first part's words have the cores
    heard.set()
    assert made.wait(timeout=10) and list(reading) == ["two"]


def test_a_reading_stopped_early_ends_the_read_ahead_thread():
    reading = read_ahead(iter(["one", "two", "three", "four"]))
    assert next(reading) == "one"
    reading.close()
    for thread in threading.enumerate():
        if thread.name == "tray-reader-document":
            thread.join(timeout=5)
            assert not thread.is_alive()


def test_a_stop_ends_a_pdf_s_parts_before_its_next_page(tmp_path, monkeypatch):
    path = write_pdf(tmp_path / "book.pdf", _book_pages())
    stop = threading.Event()
    read = []
    lines = pdf_module._lines

    def reading(page):
        read.append(page)
        if len(read) == pdf_module.FIRST_PAGES + 2:
            stop.set()  # the reading is stopped while this page is read
        return lines(page)

    monkeypatch.setattr(pdf_module, "_lines", reading)
    parts = document_parts(path, stop=stop)
    assert next(parts)
    assert list(parts) == [] and len(read) == pdf_module.FIRST_PAGES + 2 < PAGES
    # Stopped before its first part: no part, and no "holds no text" either.
    read.clear()
    assert documents.document_reading(path, stop=stop) is None and read == []


def test_a_stop_ends_markdown_s_parts_before_its_next_piece(tmp_path, monkeypatch):
    monkeypatch.setattr(documents, "PIECE_CHARS", 300)
    path = tmp_path / "notes.md"
    path.write_text(_long_markdown())
    stop = threading.Event()
    rendered: list[int] = []
    make = documents._markdown

    def counting():
        md = make()
        render = md.renderer.render

        def stopping(tokens, *a):
            rendered.append(len(tokens))
            if len(rendered) == 2:
                stop.set()  # while the rest's first piece is rendered
            return render(tokens, *a)

        md.renderer.render = stopping
        return md

    monkeypatch.setattr(documents, "_markdown", counting)
    parts = document_parts(path, stop=stop)
    assert next(parts)
    assert list(parts) == [] and len(rendered) == 2  # of many pieces


def test_parts_ahead_is_given_up_on_at_once_and_its_making_ends_at_the_next_part():
    go, closed = threading.Event(), threading.Event()

    def parts():
        try:
            go.wait(10)  # a long page
            yield "two"
            yield "three"
        finally:
            closed.set()

    ahead = documents.PartsAhead(parts())
    ahead.begin()
    cancel = threading.Event()
    cancel.set()
    assert ahead.take(cancel) is None and ahead.loading  # the part is not waited for
    ahead.close()
    assert not ahead.loading
    go.set()
    assert closed.wait(10)  # the making ended at its next part, the generator closed
    assert ahead.take() is None


def test_document_reading_gives_the_first_part_now_and_the_rest_once_begun(tmp_path, monkeypatch):
    path = write_pdf(tmp_path / "book.pdf", _book_pages())
    read = []
    lines = pdf_module._lines
    monkeypatch.setattr(pdf_module, "_lines", lambda page: read.append(page) or lines(page))
    made = documents.document_reading(path)
    assert made is not None
    first, rest = made
    assert len(read) == pdf_module.FIRST_PAGES and rest.loading and rest.separator == BLOCK_SEPARATOR
    rest.begin()
    second = rest.take()
    assert second is not None and rest.take() is None and not rest.loading
    assert BLOCK_SEPARATOR.join([first, second]) == load_document(path).text
    rest.close()
