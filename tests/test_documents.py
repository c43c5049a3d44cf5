"""Documents in: each kind made by the test, read in order with headings as their own
blocks; each bad input gives a message naming the file and what to do."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.make_documents import write_epub, write_pdf
from tray_reader.documents import chapters_from, load_document, text_from
from tray_reader.errors import DocumentError
from tray_reader.text.frontend import PAUSES, TextFrontEnd
from tray_reader.text.sentences import Boundary

WORDS = ["apple", "river", "mountain", "garden"]


def _pdf_pages() -> list[list[str]]:
    pages = []
    for i, word in enumerate(WORDS, start=1):
        pages.append(
            [
                "The Quiet Book",  # running head
                f"Page {i} is about the {word} and this line runs on for a while, as lines do,",
                "with a word that is hyphen-",
                f"ated across two lines; then the {word} sentence ends.",
                f"A short {word} line.",
                str(i),  # page number
            ]
        )
    return pages


def test_pdf_drops_page_numbers_and_running_heads_and_joins_hyphenated_words(tmp_path):
    doc = load_document(write_pdf(tmp_path / "book.pdf", _pdf_pages()))
    blocks = doc.chapters[0].blocks
    assert len(blocks) == 8
    assert blocks[0] == (
        "Page 1 is about the apple and this line runs on for a while, as lines do, with a word that is "
        "hyphenated across two lines; then the apple sentence ends."
    )
    assert blocks[1] == "A short apple line."
    assert [w for w in WORDS if w in doc.text] == WORDS
    assert doc.text.index("river") < doc.text.index("mountain")
    assert "Quiet Book" not in doc.text and "\n4" not in doc.text


def test_pdf_a_book_whose_paragraphs_are_not_told_apart_is_read_in_time_that_grows_with_it():
    import time

    from tray_reader.documents.pdf import paragraphs

    # 100 pages of 45 full lines, 330 kB, no line short enough to end a paragraph: one block.
    line = "the {} ran on across the page as the lines of a long paragraph do, and on".format
    pages = [[line(WORDS[(p + n) % 4]) for n in range(45)] for p in range(100)]
    started = time.perf_counter()
    blocks = paragraphs(pages)
    assert time.perf_counter() - started < 2  # 22 s when every line searched the whole block
    assert len(blocks) == 1 and blocks[0].count(" and on the ") == 100 * 45 - 1


def test_pdf_numbered_headings_are_blocks_of_their_own(tmp_path):
    # "1.1. Version" was read as the first words of the paragraph after it.
    body = "This line of the paragraph is long enough to be a typical line of the page,"
    pages = [
        ["1. Introduction", body, "and it ends here.", "1.1. Version", body, "and so does this one.", "1"],
        ["2. Layout", body, "as the last one does.", "2"],
    ]
    blocks = load_document(write_pdf(tmp_path / "spec.pdf", pages)).chapters[0].blocks
    assert blocks == (
        "Section 1: Introduction",
        f"{body} and it ends here.",
        "Section 1.1: Version",
        f"{body} and so does this one.",
        "Section 2: Layout",
        f"{body} as the last one does.",
    )


def test_pdf_a_numbered_heading_is_said_as_a_section(phonemizer, tmp_path):
    # "1. Introduction" was read "Introduction" (its number taken for a list item's), and
    # "2.1 Syntax" as "two point one Syntax", a decimal run into the title.
    body = "This line of the paragraph is long enough to be a typical line of the page,"
    pages = [["1 Introduction", body, "and it ends here.", "2.1 Syntax", body, "and so does this one."]]
    text = load_document(write_pdf(tmp_path / "spec.pdf", pages)).text
    said = [c.text for c in TextFrontEnd(phonemizer).chunks(text, first_chars=200)]
    assert said[0] == "Section one: Introduction" and said[2] == "Section two point one: Syntax"


def test_pdf_numbered_items_and_rows_are_not_sections(tmp_path):
    body = "This line of the paragraph is long enough to be a typical line of the page,"
    pages = [
        ["1. Introduction", body, "and it ends here.", "1.1. Steps", "1. Apples", "2. Pears", "3. Plums"],
        ["Header:", "4 CARD32 OFFSET", body, "and the table ends."],
    ]
    blocks = load_document(write_pdf(tmp_path / "spec.pdf", pages)).chapters[0].blocks
    assert blocks[2:6] == ("Section 1.1: Steps", "1. Apples", "2. Pears", "3. Plums")
    assert "4 CARD32 OFFSET" in blocks  # a number not written as the sections' are


def test_pdf_table_of_contents_is_read_without_leaders_and_page_numbers(tmp_path):
    # The leader dots and the page numbers were read, each entry's number run into the next.
    body = "This line of the paragraph is long enough to be a typical line of the page,"
    pages = [
        [
            "Contents",
            "Preface . . . . . . . . vii",
            "Introduction . . . . . 3",
            "1.2 Installation ........ 14",
            "2.1 ASN.1 syntax. . . . . . . 20",
            "Chapter 3  Parsing   27",
        ],
        ["Introduction", body, "and it ends here."],
    ]
    blocks = load_document(write_pdf(tmp_path / "book.pdf", pages)).chapters[0].blocks
    assert blocks[:6] == (
        "Contents",
        "Preface",
        "Introduction",
        "1.2 Installation",
        "2.1 ASN.1 syntax",
        "Chapter 3 Parsing",
    )


def test_pdf_a_chapters_running_head_with_its_page_number_is_dropped(tmp_path):
    # Each chapter's head ("Chapter 2: Parsing 14") is on a few of the pages only.
    body = "This line of the paragraph is long enough to be a typical line of the page,"
    ends = [f"and the {word} ends here." for word in ("apple", "river", "garden", "hill", "road", "lake")]
    pages = [[f"Chapter 1: Start {n}", body, ends[n - 1]] for n in (1, 2)]
    pages += [[f"Chapter 2: Parsing {n}", body, ends[n - 1]] for n in (3, 4)]
    pages += [["Step 5", body, ends[4]], ["Step 5", body, ends[5]]]
    text = load_document(write_pdf(tmp_path / "book.pdf", pages)).text
    assert "Chapter" not in text and text.count("This line") == 6
    assert text.count("Step 5") == 2  # the same line twice, without a changing number: kept


def test_markdown_headings_paragraphs_and_list_items_are_blocks(tmp_path):
    md = tmp_path / "notes.md"
    md.write_text(
        "# First part\n\nSome *emphasis* and `code`.\n\n- one item\n- two item\n\n"
        "# Second part\n\nA [link](http://x) here.\n"
    )
    doc = load_document(md)
    assert [c.title for c in doc.chapters] == ["First part", "Second part"]
    assert doc.chapters[0].blocks == ("First part", "Some emphasis and code.", "one item", "two item")
    assert doc.chapters[1].blocks == ("Second part", "A link here.")


def test_html_skips_what_is_not_read_and_keeps_the_order(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>The page</title><style>p{color:red}</style><script>var x = 1;</script></head>"
        "<body><nav>Home | About</nav><h2>Heading</h2><p>First &amp; second.<br>Third line.</p>"
        "<ul><li>Alpha</li><li>Beta</li></ul><img alt='A picture'></body></html>"
    )
    doc = load_document(page)
    assert doc.title == "The page"
    assert doc.chapters[0].blocks == (
        "Heading",
        "First & second.",
        "Third line.",
        "Alpha",
        "Beta",
        "A picture",
    )


def test_preformatted_text_keeps_its_lines(tmp_path):
    # A code block or a poem's layout: each line is read as one, not run into the next.
    page = tmp_path / "code.html"
    page.write_text(
        "<p>Install it:</p><pre><code>pip install thing\n\n  thing --help\nthing run  --fast\n</code></pre>"
        "<p>Then   read on.</p>"
    )
    assert load_document(page).chapters[0].blocks == (
        "Install it:",
        "pip install thing",
        "thing --help",
        "thing run --fast",
        "Then read on.",
    )
    md = tmp_path / "code.md"
    md.write_text("Run this:\n\n```\nmake all\nmake test\n```\n\nDone.\n")
    assert load_document(md).chapters[0].blocks == ("Run this:", "make all", "make test", "Done.")


def test_note_references_are_not_read_but_exponents_are(tmp_path):
    page = tmp_path / "notes.html"
    page.write_text(
        "<html><body><p>It was clear.<sup>1</sup> Then it rained"
        '<a href="#n2" epub:type="noteref"><sup>2</sup></a>, hard<a href="#n3"><sup>3</sup></a>.</p>'
        '<p>Cited<span role="doc-noteref">[4]</span> text, and E = mc<sup>2</sup>.</p></body></html>'
    )
    assert load_document(page).chapters[0].blocks == (
        "It was clear. Then it rained, hard.",
        "Cited text, and E = mc2.",
    )


def test_epub_chapters_are_read_in_spine_order(tmp_path):
    book = write_epub(
        tmp_path / "book.epub",
        "A Small Book",
        [
            ("z-last.xhtml", "<h1>Third</h1><p>The end.</p>"),
            ("a-first.xhtml", "<h1>First</h1><p>It begins.</p><p>Then more.</p>"),
            ("m-second.xhtml", "<h1>Second</h1><p>The middle.</p>"),
        ],
        spine=[1, 2, 0],
    )
    doc = load_document(book)
    assert doc.title == "A Small Book"
    assert [c.title for c in doc.chapters] == ["First", "Second", "Third"]
    assert doc.chapters[0].blocks == ("First", "It begins.", "Then more.")
    assert doc.text.index("It begins") < doc.text.index("The middle") < doc.text.index("The end")


def test_plain_text_paragraphs(tmp_path):
    txt = tmp_path / "a.txt"
    txt.write_text("Title line\n\nOne paragraph\nover two lines.\n\n\nAnother.\n", encoding="utf-8")
    assert load_document(txt).chapters[0].blocks == (
        "Title line",
        "One paragraph\nover two lines.",  # read as one sentence (tests/test_split.py)
        "Another.",
    )


def test_headings_are_followed_by_a_paragraph_pause(phonemizer, tmp_path):
    md = tmp_path / "h.md"
    md.write_text("# A heading without a stop\n\nThe text under it.\n")
    chunks = list(TextFrontEnd(phonemizer).chunks(load_document(md).text))
    assert chunks[0].text.startswith("A heading") and chunks[0].pause_after == PAUSES[Boundary.PARAGRAPH]
    assert chunks[1].text.startswith("The text")


def test_from_a_sentence_or_a_chapter(tmp_path):
    book = write_epub(
        tmp_path / "b.epub",
        "B",
        [
            ("1.xhtml", "<h1>One</h1><p>Alpha one. Alpha two.</p>"),
            ("2.xhtml", "<h1>Two</h1><p>Beta one.</p>"),
        ],
    )
    doc = load_document(book)
    assert text_from(doc, "chapter:2").startswith("Two")
    chapters = chapters_from(doc, "3")  # One. / Alpha one. / Alpha two.
    assert chapters[0].text.startswith("Alpha two.") and chapters[0].title == "One"
    assert chapters[1].title == "Two"
    with pytest.raises(DocumentError, match="no chapter 5"):
        text_from(doc, "chapter:5")
    with pytest.raises(DocumentError, match="--from"):
        text_from(doc, "soon")


# -- bad input --------------------------------------------------------------------------------------
def _message(path: Path) -> str:
    with pytest.raises(DocumentError) as info:
        load_document(path)
    message = str(info.value)
    assert str(path) in message
    return message


def test_a_scanned_pdf_says_to_run_text_recognition(tmp_path):
    message = _message(write_pdf(tmp_path / "scan.pdf", [[], []]))
    assert "no text layer" in message and "ocr" in message.lower()


def test_an_encrypted_pdf_says_to_save_an_unprotected_copy(tmp_path):
    from pypdf import PdfReader, PdfWriter

    plain = write_pdf(tmp_path / "plain.pdf", [["Secret words here."]])
    writer = PdfWriter()
    for page in PdfReader(plain).pages:
        writer.add_page(page)
    writer.encrypt("user-password", "owner-password", algorithm="RC4-128")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as f:
        writer.write(f)
    assert "unprotected copy" in _message(locked)


def test_a_truncated_pdf_is_named(tmp_path):
    broken = tmp_path / "cut.pdf"
    broken.write_bytes(write_pdf(tmp_path / "whole.pdf", [["Some text."]]).read_bytes()[:200])
    assert "PDF" in _message(broken)


def test_a_broken_epub_says_its_zip_is_broken(tmp_path):
    book = write_epub(tmp_path / "good.epub", "G", [("1.xhtml", "<p>Words.</p>")])
    data = book.read_bytes()
    cut = tmp_path / "cut.epub"
    cut.write_bytes(data[: len(data) // 2])
    assert "ZIP" in _message(cut)
    not_zip = tmp_path / "text.epub"
    not_zip.write_text("just text")
    assert "it holds plain text, not an EPUB book" in _message(not_zip)


def test_an_epub_without_its_package_file_is_named(tmp_path):
    book = tmp_path / "empty.epub"
    with zipfile.ZipFile(book, "w") as z:
        z.writestr("mimetype", "application/epub+zip")
    assert "container.xml" in _message(book)


def test_a_50_mb_html_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.html"
    with big.open("wb") as f:
        f.truncate(50 * 1024 * 1024)
    message = _message(big)
    assert "50 MB" in message and "Split it" in message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_unicode_text_files_with_a_byte_order_mark_are_read(tmp_path, encoding):
    notes = tmp_path / "notes.txt"
    notes.write_bytes("Saved by Notepad as Unicode.\r\n\r\nCafé.".encode(encoding))
    assert load_document(notes).text.split() == ["Saved", "by", "Notepad", "as", "Unicode.", "Café."]
    page = tmp_path / "page.html"
    page.write_bytes("<html><body><p>Hi there.</p></body></html>".encode(encoding))
    assert load_document(page).text == "Hi there."


def test_a_binary_file_named_txt(tmp_path):
    fake = tmp_path / "photo.txt"
    fake.write_bytes(bytes(range(256)) * 100)
    assert "does not hold text" in _message(fake)


def test_an_unknown_extension_lists_what_is_read(tmp_path):
    odd = tmp_path / "sheet.xlsx"
    odd.write_bytes(b"PK")
    message = _message(odd)
    assert ".xlsx" in message and ".epub" in message and ".pdf" in message


def test_a_missing_file(tmp_path):
    assert "does not exist" in _message(tmp_path / "gone.md")
    assert _message(tmp_path / "notes") == f"{tmp_path / 'notes'} does not exist."  # not its extension


def test_a_folder_is_named_as_one(tmp_path):
    (tmp_path / "book.epub").mkdir()
    assert _message(tmp_path) == f"{tmp_path} is a folder; give a document file in it."
    assert "is a folder" in _message(tmp_path / "book.epub")


def test_a_file_without_an_extension_is_worded_once(tmp_path):
    (tmp_path / "notes").write_text("Hello.")
    message = _message(tmp_path / "notes")
    assert "how to read files without an extension." in message and "extension files" not in message


@pytest.mark.parametrize(
    "name, content, says",
    [
        ("notes.pdf", b"Just some notes.\n", "it holds plain text, not a PDF. Rename it to notes.txt"),
        ("notes.epub", b"Just some notes.\n", "plain text, not an EPUB book. Rename it to notes.txt"),
        ("page.pdf", b"<!DOCTYPE html><p>Hi</p>", "it is a web page named .pdf. Rename it to page.html"),
        ("empty.pdf", b"", "is empty. Check that it was saved or downloaded completely"),
        ("empty.epub", b"", "is empty. Check that it was saved or downloaded completely"),
    ],
)
def test_a_file_that_is_not_the_kind_its_name_says_is_named_for_what_it_is(tmp_path, name, content, says):
    (tmp_path / name).write_bytes(content)
    assert says in _message(tmp_path / name)


def test_a_pdf_or_an_epub_named_as_text_is_named_for_what_it_is(tmp_path):
    pdf = write_pdf(tmp_path / "paper.pdf", [["Words."]])
    book = write_epub(tmp_path / "book.epub", "B", [("1.xhtml", "<p>Words.</p>")])
    for source, named, says in [
        (pdf, "paper.txt", "it is a PDF named .txt. Rename it to paper.pdf"),
        (pdf, "paper.md", "it is a PDF named .md. Rename it to paper.pdf"),
        (book, "book.html", "it is an EPUB book named .html. Rename it to book.epub"),
        (book, "book.pdf", "it is an EPUB book named .pdf. Rename it to book.epub"),
        (pdf, "paper.epub", "it is a PDF named .epub. Rename it to paper.pdf"),
    ]:
        (tmp_path / named).write_bytes(source.read_bytes())
        assert says in _message(tmp_path / named)


def test_text_that_mentions_a_pdf_header_is_still_text(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("A PDF file begins with %PDF-1.7 and a binary comment.")
    assert "PDF" in load_document(notes).text


def test_page_furniture_hidden_text_and_ruby_guides_are_not_read(tmp_path):
    page = tmp_path / "article.html"
    page.write_text(
        '<html><body><a class="skip" href="#main">Skip to content</a>'
        '<div role="navigation"><a href="/">Home</a> <a href="/blog">Blog</a></div>'
        '<form role="search"><input name="q"><button>Search</button></form>'
        '<main id="main"><h1>Kanji</h1><p>The word <ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp>字'
        "<rt>ji</rt></ruby> is read once.</p>"
        '<div hidden><div>Menu</div> still hidden</div><p aria-hidden="true">★★★</p>'
        '<p style="display: none">Loading…</p><p>Next, <a href="#top">back to the top</a>.</p>'
        '<button type="button">Share</button></main>'
        '<dialog id="consent"><p>We use cookies.</p></dialog><dialog open><p>Shown.</p></dialog>'
        '<div role="alertdialog">Sign up! <a href="/join">Join</a></div>'
        "<article><p>An article.</p><footer>Posted by Ann.</footer></article>"
        '<div role="contentinfo">© 2024 The Site</div><footer><a href="/about">About us</a></footer>'
        "</body></html>"
    )
    assert load_document(page).chapters[0].blocks == (
        "Kanji",
        "The word 漢字 is read once.",
        "Next, back to the top.",  # an in-page link that is not a skip link is read
        "Shown.",
        "An article.",
        "Posted by Ann.",  # an article's footer is read, the page's is not
    )


def test_table_cells_are_read_apart_and_bracketed_references_are_not_read(tmp_path):
    page = tmp_path / "table.html"
    page.write_text(
        "<table><tr><th>Name</th><th>Age</th></tr>\n<tr>\n<td>Ann</td>\n<td>30</td>\n</tr>"
        "<tr><td>Done.</td><td>Yes</td></tr></table>"
        "<table><tr><td><p>A layout cell.</p></td><td><p>Another.</p></td></tr></table>"
        "<p>As shown<sup>[12]</sup> before, x<sup>2</sup> grows.</p>"
    )
    assert load_document(page).chapters[0].blocks == (
        "Name, Age",
        "Ann, 30",
        "Done. Yes",
        "A layout cell.",
        "Another.",
        "As shown before, x2 grows.",
    )


def test_markdown_front_matter_is_not_read_and_tables_are(tmp_path):
    md = tmp_path / "post.md"
    md.write_text(
        "---\ntitle: A post\ntags: [one, two]\n---\n\n# A post\n\n| Fruit | Count |\n|---|---|\n"
        "| apple | 3 |\n\nSome ~~old~~ text.\n"
    )
    assert load_document(md).chapters[0].blocks == ("A post", "Fruit, Count", "apple, 3", "Some old text.")
    toml = tmp_path / "page.md"
    toml.write_text("+++\ntitle = 'Page'\n+++\nBody.\n")
    assert load_document(toml).chapters[0].blocks == ("Body.",)
    # A rule at the top is not front matter: what follows it is read.
    ruled = tmp_path / "ruled.md"
    ruled.write_text("---\n\nNote: this comes first.\n\n---\n\nMore.\n")
    assert load_document(ruled).chapters[0].blocks == ("Note: this comes first.", "More.")


def test_an_epubs_table_of_contents_is_not_read(tmp_path):
    book = write_epub(
        tmp_path / "book.epub",
        "With Contents",
        [
            ("nav.xhtml", '<h1>Contents</h1><nav epub:type="toc"><ol><li>One</li></ol></nav>'),
            ("toc.xhtml", "<h1>Table of Contents</h1><p>One</p><p>Two</p>"),
            ("one.xhtml", "<h1>One</h1><p>First text.</p>"),
            ("two.xhtml", "<h1>Two</h1><p>Second text.</p>"),
        ],
    )
    files = _members(book)
    opf = files["OEBPS/content.opf"].decode()
    opf = opf.replace('href="text/nav.xhtml"', 'href="text/nav.xhtml" properties="nav"')
    opf = opf.replace(
        "</spine>", '</spine><guide><reference type="toc" href="text/toc.xhtml#start"/></guide>'
    )
    files["OEBPS/content.opf"] = opf.encode()
    _rezip(book, files)
    doc = load_document(book)
    assert [c.title for c in doc.chapters] == ["One", "Two"]
    assert doc.chapters[1].blocks == ("Two", "Second text.")


def test_pdf_running_heads_that_alternate_between_book_and_chapter_are_dropped(tmp_path):
    # Left-hand pages carry the book's title, right-hand ones the chapter's: each is on fewer
    # than half of the pages. A short line that recurs far apart, or with another number on
    # each page, is kept.
    pages = []
    for i in range(1, 12):
        head = "The Quiet Book" if i % 2 == 0 else ("Chapter One" if i < 7 else "Chapter Two")
        pages.append(
            [
                head,
                f"Step {i} of the recipe"
                if i > 8
                else f"Page {i} is about the {WORDS[i % 4]} and this line runs on,",
                f"as lines do, and it ends here on page {i} with more words than a short line.",
                "Yes." if i in (2, 9) else f"A short line {i}.",
                str(i),
            ]
        )
    doc = load_document(write_pdf(tmp_path / "book.pdf", pages))
    assert "Quiet Book" not in doc.text and "Chapter" not in doc.text
    assert doc.text.count("Yes.") == 2
    assert [f"Step {i} of" in doc.text for i in (9, 10, 11)] == [True, True, True]
    assert doc.chapters[0].blocks[0].startswith("Page 1 is about the river")


def test_an_epub_chapter_in_the_encoding_its_xml_declaration_names_is_read(tmp_path):
    book = write_epub(tmp_path / "old.epub", "Old", [("a.xhtml", "<p>x</p>"), ("b.xhtml", "<p>y</p>")])
    files = _members(book)
    page = (
        '<?xml version="1.0" encoding="{}"?><html><body><h1>Café</h1><p>Très bien, naïve.</p></body></html>'
    )
    files["OEBPS/text/a.xhtml"] = page.format("iso-8859-1").encode("latin-1")
    files["OEBPS/text/b.xhtml"] = page.format("iso-8859-1").encode("utf-8")  # mislabelled: UTF-8 wins
    _rezip(book, files)
    chapters = load_document(book).chapters
    assert [c.blocks for c in chapters] == [("Café", "Très bien, naïve.")] * 2


def test_an_epub_whose_package_escapes_a_chapters_file_name_is_read(tmp_path):
    book = write_epub(tmp_path / "spaced.epub", "Spaced", [("Chapter 1.xhtml", "<h1>One</h1><p>Text.</p>")])
    files = _members(book)
    opf = files["OEBPS/content.opf"].decode()
    files["OEBPS/content.opf"] = opf.replace("Chapter 1.xhtml", "Chapter%201.xhtml").encode()
    _rezip(book, files)
    assert load_document(book).chapters[0].blocks == ("One", "Text.")


def _members(book: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(book) as z:
        return {name: z.read(name) for name in z.namelist()}


def _rezip(book: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(book, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)


def test_a_project_gutenberg_text_is_read_without_its_header_and_licence(tmp_path):
    book = tmp_path / "pg1342.txt"
    book.write_text(
        "The Project Gutenberg eBook of Pride and Prejudice\n\nThis ebook is for the use of anyone "
        "anywhere.\n\nRelease date: June, 1998\n\n*** START OF THE PROJECT GUTENBERG EBOOK PRIDE AND "
        "PREJUDICE ***\n\nChapter 1\n\nIt is a truth universally acknowledged.\n\n"
        "*** END OF THE PROJECT GUTENBERG EBOOK PRIDE AND PREJUDICE ***\n\nSection 1. General Terms of "
        "Use and Redistributing Project Gutenberg electronic works\n"
    )
    assert load_document(book).chapters[0].blocks == ("Chapter 1", "It is a truth universally acknowledged.")
    # Only the markers' lines mark it: a text that names them in a sentence is read whole.
    essay = tmp_path / "essay.txt"
    essay.write_text("Books begin with *** START OF THE PROJECT GUTENBERG EBOOK *** lines.\n\nThe end.\n")
    assert load_document(essay).chapters[0].blocks == (
        "Books begin with *** START OF THE PROJECT GUTENBERG EBOOK *** lines.",
        "The end.",
    )


def test_pdf_page_numbers_between_dashes_are_dropped(tmp_path):
    pages = [
        [f"The {word} page begins here and runs on.", f"- {i} -"] for i, word in enumerate(WORDS[:2], start=1)
    ]
    pages[1].insert(1, "- 3 items were left.")
    doc = load_document(write_pdf(tmp_path / "memo.pdf", pages))
    assert doc.chapters[0].blocks == (
        "The apple page begins here and runs on.",
        "The river page begins here and runs on. - 3 items were left.",
    )


def test_pdf_a_short_unnumbered_heading_is_a_block_of_its_own(tmp_path):
    long = "and this line runs on for a while, as the lines of a paragraph do,"
    pages = [
        [
            "Introduction",
            f"The report begins here {long}",
            "then it ends.",
            "Results and Discussion",
            f"What was found {long}",
            "and what it means.",
            "The short line",
            f"goes on in lower case {long}",
            "and ends.",
        ]
    ]
    assert load_document(write_pdf(tmp_path / "report.pdf", pages)).chapters[0].blocks == (
        "Introduction",
        f"The report begins here {long} then it ends.",
        "Results and Discussion",
        f"What was found {long} and what it means.",
        f"The short line goes on in lower case {long} and ends.",
    )


def test_markdown_task_list_boxes_are_not_read(tmp_path):
    md = tmp_path / "todo.md"
    md.write_text(
        "- [ ] Buy milk\n- [x] Call Ann\n\n1. [X] Pay rent\n\n```\n- [x] in code\n```\n\nA [x] in text.\n"
    )
    assert load_document(md).chapters[0].blocks == (
        "Buy milk",
        "Call Ann",
        "Pay rent",
        "- [x] in code",
        "A [x] in text.",
    )


def test_an_epubs_printed_page_numbers_are_not_read(tmp_path):
    book = write_epub(
        tmp_path / "paged.epub",
        "Paged",
        [
            (
                "a.xhtml",
                '<p>The river ran<span epub:type="pagebreak" id="p12">12</span> to the sea. It was'
                '<span role="doc-pagebreak" aria-label="13">13</span> cold in Chapter '
                '<span epub:type="z3998:roman">IV</span>.</p>',
            )
        ],
    )
    assert load_document(book).chapters[0].blocks == ("The river ran to the sea. It was cold in Chapter IV.",)
