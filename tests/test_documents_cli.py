"""`say -f`, `read -f` (the daemon's document command) and their bad input, from the outside."""

from __future__ import annotations

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
