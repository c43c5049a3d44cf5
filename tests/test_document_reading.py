"""A long document read by the daemon (`ctl document`, the tray's "Open document…") through
App.dispatch with the fake pipeline: read in off the command lock, read from its first part
while the rest is read in, as one text, and given up on a stop or another read."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests.make_documents import write_pdf
from tests.test_app import _wait, rig, started  # noqa: F401 - the fixture
from tray_reader.app import AppState
from tray_reader.documents import BLOCK_SEPARATOR, load_document
from tray_reader.documents import pdf as pdf_module
from tray_reader.errors import DocumentError

WORDS = [
    "apple",
    "river",
    "stone",
    "cloud",
    "bread",
    "lamp",
    "chair",
    "field",
    "horse",
    "glass",
    "door",
    "bell",
]


def _book(path: Path) -> Path:
    """A PDF of 12 pages, read in two parts: its first 8 pages' paragraphs but the last, then the rest."""
    pages = [
        [
            "The Short Book",
            f"The {word} on page {n} is told of in a line long enough to be a typical line,",
            f"and the {word} ends here.",
            f"Another {word} is in a line that is long enough to be a typical line again,",
            str(n),
        ]
        for n, word in enumerate(WORDS, start=1)
    ]
    return write_pdf(path, pages)


class Pages:
    """pdf._lines, counting the pages read; the one read ``hold``-th waits for `release`,
    the one read ``fail``-th raises as a damaged page does."""

    def __init__(
        self, monkeypatch: pytest.MonkeyPatch, hold: int | None = None, fail: int | None = None
    ) -> None:
        from pypdf.errors import PdfReadError

        self.read = 0
        self.held = threading.Event()
        self.release = threading.Event()
        lines = pdf_module._lines

        def counted(page):
            self.read += 1
            if self.read == fail:
                raise PdfReadError(f"page {fail} is damaged")
            if self.read == hold:
                self.held.set()
                self.release.wait(10)
            return lines(page)

        monkeypatch.setattr(pdf_module, "_lines", counted)


@pytest.fixture
def book(tmp_path, rig):  # noqa: F811
    rig.pipeline.word_seconds = 0.005
    path = _book(tmp_path / "book.pdf")
    return path, load_document(path).text


@pytest.fixture
def held_rest(monkeypatch):
    """The first page of a document's rest is held until released."""
    pages = Pages(monkeypatch, hold=pdf_module.FIRST_PAGES + 1)
    yield pages
    pages.release.set()


def _in_thread(run) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def target():
        try:
            run()
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            errors.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread, errors


def _document_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name in ("tray-reader-document", "app-document")]


def test_reading_starts_on_the_first_part_and_reads_the_whole_text_once_in_order(rig, book, held_rest):  # noqa: F811
    path, whole = book
    app = started(rig)
    reply = app.dispatch("document", [str(path)])  # returns with the rest not read in
    assert reply["document"] == {"path": str(path), "loading": True}
    assert held_rest.held.wait(10)  # the rest is being read in once the first words are out...
    _wait(lambda: rig.pipeline.used)  # ... and the first part is being read meanwhile
    first = rig.pipeline.texts[0]
    assert rig.pipeline.texts == [first] and held_rest.read == pdf_module.FIRST_PAGES + 1
    assert first and whole.startswith(first + BLOCK_SEPARATOR)
    held_rest.release.set()
    _wait(lambda: len(rig.pipeline.texts) == 2 and app.state is AppState.IDLE)
    assert BLOCK_SEPARATOR.join(rig.pipeline.texts) == whole
    assert len(rig.pipeline.used) == len(whole.split())  # every word once: none lost, none again
    assert app.worker.last_request.text == whole  # the text the positions count in
    assert held_rest.read == len(WORDS) and app.status()["document"] is None


def test_a_text_queued_after_the_document_is_read_after_all_of_it(rig, book, held_rest):  # noqa: F811
    path, whole = book
    app = started(rig)
    app.dispatch("document", [str(path)])
    _wait(lambda: rig.pipeline.texts)
    app.dispatch("queue", ["after the book"])
    held_rest.release.set()
    _wait(lambda: len(rig.pipeline.texts) == 3 and app.state is AppState.IDLE)
    assert BLOCK_SEPARATOR.join(rig.pipeline.texts[:2]) == whole
    assert rig.pipeline.texts[2] == "after the book"


@pytest.mark.parametrize("how", ["stop", "read"])
def test_a_stop_or_another_read_ends_the_document_and_none_of_its_rest_is_read(rig, book, held_rest, how):  # noqa: F811
    path, _ = book
    app = started(rig)
    app.dispatch("document", [str(path)])
    assert held_rest.held.wait(10)
    _wait(lambda: rig.pipeline.used)
    first = rig.pipeline.texts[0]
    app.dispatch(how, ["something else"] if how == "read" else [])
    assert app.status()["document"] is None
    held_rest.release.set()
    for thread in _document_threads():
        thread.join(10)  # the rest is read in no further: its next page is not read
        assert not thread.is_alive()
    read = [first, *(["something else"] if how == "read" else [])]
    _wait(lambda: rig.pipeline.texts == read and app.state is AppState.IDLE)  # and nothing more
    assert held_rest.read == pdf_module.FIRST_PAGES + 1
    app.dispatch("read", ["read again"])
    _wait(lambda: rig.pipeline.texts[-1] == "read again" and app.state is AppState.IDLE)


@pytest.mark.parametrize("how", ["stop", "read"])
def test_commands_are_served_while_the_first_part_is_read_in_and_a_stop_or_read_wins(
    rig,  # noqa: F811
    book,
    monkeypatch,
    how,
):
    path, _ = book
    pages = Pages(monkeypatch, hold=3)
    app = started(rig)
    loading, errors = _in_thread(lambda: app.dispatch("document", [str(path)]))
    try:
        assert pages.held.wait(10)
        # Answered while the document's third page is still being read: not behind the lock.
        assert app.status()["document"] == {"path": str(path), "loading": True}
        assert app.dispatch("speed", ["1.5"])["speed"] == 1.5
        assert app.dispatch("pause", [])["document"]["loading"]
        app.dispatch("resume", [])
        app.dispatch(how, ["a new text"] if how == "read" else [])
        assert app.dispatch("status", [])["document"] is None
    finally:
        pages.release.set()
    loading.join(10)
    assert not loading.is_alive() and errors == []  # the command returns, refusing nothing
    read = ["a new text"] if how == "read" else []
    _wait(lambda: rig.pipeline.texts == read and app.state is AppState.IDLE)  # nothing of the document
    assert pages.read == 3  # the pages after it are not read
    assert app.status()["document"] is None


def test_a_key_pressed_while_the_tray_s_document_is_read_in_is_read_at_once(rig, book, monkeypatch):  # noqa: F811
    path, _ = book
    pages = Pages(monkeypatch, hold=3)
    rig.parts.choose_document = lambda on_chosen: on_chosen(path)
    app = started(rig)
    app.act("open_document")
    try:
        assert pages.held.wait(10)
        rig.clip.data["primary"] = "pressed meanwhile"
        rig.parts.hotkeys.press("read")
        _wait(lambda: rig.pipeline.texts == ["pressed meanwhile"])  # not behind the document
    finally:
        pages.release.set()
    for thread in _document_threads():
        thread.join(10)
        assert not thread.is_alive()
    _wait(lambda: app.state is AppState.IDLE)
    assert rig.pipeline.texts == ["pressed meanwhile"]  # the later request won
    assert rig.parts.notifier.sent == []


def test_a_later_part_that_cannot_be_read_is_told_and_the_daemon_reads_on(rig, book, monkeypatch):  # noqa: F811
    path, _ = book
    Pages(monkeypatch, fail=pdf_module.FIRST_PAGES + 2)
    app = started(rig)
    app.dispatch("document", [str(path)])
    _wait(lambda: rig.parts.notifier.sent)
    assert rig.parts.notifier.sent == [
        (
            "tray-reader could not read that",
            f"{path} is not a readable PDF (page {pdf_module.FIRST_PAGES + 2} is damaged). "
            "Check that the file is complete.",
        )
    ]
    _wait(lambda: app.state is AppState.IDLE)  # what was read played out; nothing hangs
    assert len(rig.pipeline.texts) == 1 and app.status()["document"] is None
    app.dispatch("read", ["still reading"])
    _wait(lambda: rig.pipeline.texts[-1] == "still reading" and app.state is AppState.IDLE)


@pytest.mark.parametrize("kind", ["missing", "truncated", "text named .pdf"])
def test_a_file_that_cannot_be_read_is_refused_by_ctl_document_as_before(
    rig,  # noqa: F811
    tmp_path,
    monkeypatch,
    capsys,
    kind,
):
    from tray_reader import cli, control

    path = tmp_path / "bad.pdf"
    if kind == "truncated":
        whole = _book(tmp_path / "whole.pdf").read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
    elif kind != "missing":
        path.write_text("Only some plain text.\n")
    with pytest.raises(DocumentError) as refused:
        load_document(path)  # what the daemon said when it read the whole document
    app = started(rig)
    runtime = tmp_path / "runtime"
    (runtime / "tray-reader").mkdir(parents=True, mode=0o700)
    runtime.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    server = control.ControlServer(control.socket_path(), app.dispatch)
    server.start()
    try:
        assert cli.main(["ctl", "document", str(path)]) == 1
    finally:
        server.stop()
    assert capsys.readouterr().err == f"tray-reader: {refused.value}\n"
    assert app.status()["document"] is None and rig.pipeline.texts == []
    app.dispatch("read", ["still reading"])
    _wait(lambda: rig.pipeline.texts == ["still reading"])
