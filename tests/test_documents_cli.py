"""`say -f`, `read -f` (the daemon's document command) and their bad input, from the outside."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.make_documents import write_epub, write_pdf
from tests.test_app import _wait, rig, started  # noqa: F401 - the fixture
from tests.test_cli_say import run
from tray_reader.errors import DocumentError


def test_say_file_show_text_reads_the_document_in_order(tmp_path):
    book = write_epub(
        tmp_path / "b.epub",
        "B",
        [
            ("2.xhtml", "<h1>Later</h1><p>The second chapter.</p>"),
            ("1.xhtml", "<h1>Opening</h1><p>It is 1999.</p>"),
        ],
        spine=[1, 0],
    )
    result = run("say", "-f", str(book), "--show-text")
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().split("\n")[:4] == [
        "Opening",
        "It is nineteen ninety-nine.",
        "Later",
        "The second chapter.",
    ]
    later = run("say", "-f", str(book), "--show-text", "--from", "chapter:2")
    assert later.stdout.decode().split("\n")[0] == "Later"


@pytest.mark.parametrize("kind", ["scan", "unknown"])
def test_say_file_with_bad_input_gives_the_message_and_no_traceback(tmp_path, kind):
    path = write_pdf(tmp_path / "scan.pdf", [[]]) if kind == "scan" else tmp_path / "a.odt"
    if kind == "unknown":
        path.write_bytes(b"PK")
    result = run("say", "-f", str(path), "--out", str(tmp_path / "x.wav"))
    err = result.stderr.decode()
    assert result.returncode == 2 and "Traceback" not in err and str(path) in err
    assert not (tmp_path / "x.wav").exists()


@pytest.mark.parametrize("command", ["say", "read"])
def test_from_without_a_document_is_refused_not_ignored(command, capsys):
    from tray_reader import cli

    assert cli.main([command, "--from", "3", "Hello.", "There."]) == 2
    assert capsys.readouterr().err == (
        "tray-reader: --from 3 needs a document to start in: give it with --file FILE\n"
    )


@pytest.mark.parametrize(
    "argv, says",
    [
        (["read", "-f", "notes.txt", "and", "more"], "give either text or --file, not both"),
        (["read", "--queue", "-f", "notes.txt"], "a document is read now, not queued: leave out --queue"),
        (["say", "-f", "notes.txt", "more"], "give either text or --file, not both"),
        (["say", "--show-text", "--out", "x.wav", "Hi."], "--show-text prints the text and makes no audio"),
    ],
)
def test_options_that_would_be_ignored_are_refused(argv, says, capsys):
    from tray_reader import cli

    assert cli.main(argv) == 2  # before the daemon is asked or the file read: neither exists
    err = capsys.readouterr().err
    assert err.startswith(f"tray-reader: {says}") and err.count("\n") == 1


def test_a_truncated_pdf_gets_one_clear_message_and_no_library_noise(tmp_path):
    whole = write_pdf(tmp_path / "whole.pdf", [["Hello world."], ["Second page."]]).read_bytes()
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(whole[: len(whole) // 2])
    result = run("say", "-f", str(cut), "--show-text")
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        f"tray-reader: {cut} is not a readable PDF (Stream has ended unexpectedly). "
        "Check that the file is complete."
    ]


def test_the_daemon_reads_a_document_and_keeps_running_after_a_bad_one(rig, tmp_path):  # noqa: F811
    app = started(rig)
    md = tmp_path / "n.md"
    md.write_text("# Title\n\nFirst paragraph.\n")
    app.dispatch("document", [str(md)])
    _wait(lambda: rig.pipeline.texts)
    assert rig.pipeline.texts[-1] == "Title\n\nFirst paragraph."
    with pytest.raises(DocumentError, match="broken"):
        bad = tmp_path / "bad.epub"
        bad.write_bytes(b"PK\x03\x04 not really")
        app.dispatch("document", [str(bad)])
    app.dispatch("read", ["still reading"])
    _wait(lambda: len(rig.pipeline.texts) == 2)
    assert rig.pipeline.texts[-1] == "still reading"


def test_a_document_is_sent_by_its_full_path_and_the_daemon_refuses_a_relative_one(
    rig,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    from tray_reader import cli, control
    from tray_reader.errors import ControlError

    app = started(rig)
    with pytest.raises(ControlError, match="give the document's full path, not 'n.md'"):
        app.dispatch("document", ["n.md"])
    runtime = tmp_path / "runtime"
    (runtime / "tray-reader").mkdir(parents=True, mode=0o700)
    runtime.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.chdir(tmp_path)
    srv = control.ControlServer(control.socket_path(), app.dispatch)
    srv.start()
    (tmp_path / "n.md").write_text("# Title\n\nFrom here.\n")
    try:
        assert cli.main(["ctl", "document", "n.md"]) == 0  # from this folder, not the daemon's
    finally:
        srv.stop()
    _wait(lambda: rig.pipeline.texts)
    assert rig.pipeline.texts[-1] == "Title\n\nFrom here."


def test_the_tray_s_open_document_reads_the_file_chosen(rig, tmp_path):  # noqa: F811
    import threading

    page = tmp_path / "p.html"
    page.write_text("<h1>Chosen</h1><p>From the tray.</p>")
    rig.parts.choose_document = lambda on_chosen: on_chosen(page)
    rig.app = app = rig.make()
    threading.Thread(target=app.run, daemon=True).start()
    _wait(rig.parts.tray.running.is_set)
    _wait(app.worker.ready.is_set)
    rig.parts.tray.choose("open_document")
    _wait(lambda: rig.pipeline.texts)
    assert rig.pipeline.texts[-1] == "Chosen\n\nFrom the tray."


CHOOSER_SCRIPT = """
import sys, time
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk
from tray_reader import document_chooser

context = GLib.MainContext.default()

def pump(seconds, until):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():
        while context.pending():
            context.iteration(False)
        time.sleep(0.01)
    return bool(until())

chosen = []
document_chooser.choose_document(chosen.append)
assert pump(5, lambda: bool(document_chooser._open)), "no dialog"
dialog = document_chooser._open[0]
print("filter", dialog.get_filter().get_name())
dialog.set_filename(sys.argv[1])
assert pump(5, lambda: dialog.get_filename() == sys.argv[1]), dialog.get_filename()
dialog.response(Gtk.ResponseType.ACCEPT)
assert pump(5, lambda: chosen)
print("chosen", chosen[0])
assert not document_chooser._open
document_chooser.choose_document(chosen.append)
assert pump(5, lambda: bool(document_chooser._open))
document_chooser._open[0].response(Gtk.ResponseType.CANCEL)
assert pump(5, lambda: not document_chooser._open)
print("after cancel", len(chosen))
"""


@pytest.mark.desktop
def test_the_file_chooser_hands_over_the_file_picked(desktop, tmp_path):
    # In a process of its own: the chooser ties the process to the desktop's session bus
    # (GLib ends a process whose session bus closes, and this one closes with the fixture).
    import subprocess
    import sys

    doc = tmp_path / "chosen.epub"
    doc.write_bytes(b"")
    result = subprocess.run(
        [sys.executable, "-c", CHOOSER_SCRIPT, str(doc)],
        env={**desktop.env, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("filter Documents (") and ".epub" in lines[0]
    assert lines[1:] == [f"chosen {doc}", "after cancel 1"]


@pytest.mark.parametrize(
    "start, says",
    [
        ("chapter:2", "has 1 chapter; there is no chapter 2."),
        ("9", "has 2 sentences; there is no sentence 9."),
    ],
)
def test_say_file_from_past_the_end_says_how_far_the_document_goes(tmp_path, start, says):
    notes = tmp_path / "notes.txt"
    notes.write_text("The first sentence. The second one.\n")
    result = run("say", "-f", str(notes), "--show-text", "--from", start)
    assert result.returncode == 2
    assert result.stderr.decode() == f"tray-reader: {notes} {says}\n"


def test_say_file_reads_a_long_document_in_parts_that_join_into_its_text(tmp_path, monkeypatch):
    from tests.test_document_parts import _long_markdown
    from tray_reader import cli, speak
    from tray_reader.documents import BLOCK_SEPARATOR, load_document

    path = tmp_path / "notes.md"
    path.write_text(_long_markdown())
    said: list[str] = []
    monkeypatch.setattr(speak, "say", lambda text, **_: said.extend(text))
    assert cli.main(["say", "-f", str(path), "--out", str(tmp_path / "notes.wav")]) == 0
    assert len(said) == 2 and BLOCK_SEPARATOR.join(said) == load_document(path).text
