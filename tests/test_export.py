"""Audiobooks: real audio files per chapter or with chapter marks, subtitles whose cues
start where the speech does, Ctrl+C leaving finished chapters, bad output names."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.make_documents import write_epub
from tray_reader import model_files
from tray_reader.export import Cue, ExportError, export_document, subtitle_text
from tray_reader.speech.synthesis import Synthesizer
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk
from tray_reader.text.frontend import TextFrontEnd

CHAPTERS = [
    ("1.xhtml", "<h1>Openings</h1><p>Olive trees grow slowly. In the evening, it rains.</p>"),
    ("2.xhtml", "<h1>Endings</h1><p>All of it ends. Many are glad.</p>"),
]


@pytest.fixture
def synthesizer(engine, phonemizer):
    return Synthesizer(TextFrontEnd(phonemizer), engine), model_files.stock_pack("af_heart"), 1.0


def _cues(path: Path) -> list[tuple[float, float, str]]:
    out = []
    stamp = r"(\d\d):(\d\d):(\d\d)[,.](\d\d\d)"
    for m in re.finditer(stamp + " --> " + stamp + r"\n(.+)", path.read_text()):
        g = [int(x) for x in m.groups()[:8]]
        out.append(
            (
                g[0] * 3600 + g[1] * 60 + g[2] + g[3] / 1000,
                g[4] * 3600 + g[5] * 60 + g[6] + g[7] / 1000,
                m.group(9),
            )
        )
    return out


def _speech_starts(audio: np.ndarray) -> list[float]:
    """Seconds where sound starts after at least 150 ms below -45 dB of the loudest 5 ms."""
    env = np.sqrt(np.convolve(audio**2, np.ones(120) / 120, "same"))
    db = 20 * np.log10(env / env.max() + 1e-9)
    starts, quiet = [], SAMPLE_RATE
    for i in range(0, len(db), 24):  # 1 ms steps
        if db[i] < -45:
            quiet += 24
        else:
            if db[i] > -30 and quiet >= 0.15 * SAMPLE_RATE:
                starts.append(i / SAMPLE_RATE)
            if db[i] > -30:
                quiet = 0
    return starts


def test_one_file_with_chapter_marks_and_cues_where_the_speech_starts(tmp_path, synthesizer):
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    out = tmp_path / "book.wav"
    written = export_document(book, out, synthesizer=synthesizer, progress=False)
    assert written == [out]
    audio, rate = soundfile.read(out, dtype="float32")
    assert rate == SAMPLE_RATE
    text_chars = sum(len(t) for t in ["Openings", "Olive trees grow slowly.", "In the evening, it rains."])
    text_chars += sum(len(t) for t in ["Endings", "All of it ends.", "Many are glad."])
    assert 0.4 < len(audio) / rate / (text_chars / 14) < 2.0  # about as long as the text reads
    cues = _cues(out.with_suffix(".srt"))
    assert [c[2] for c in cues] == [
        "Openings",
        "Olive trees grow slowly.",
        "In the evening, it rains.",
        "Endings",
        "All of it ends.",
        "Many are glad.",
    ]
    starts = _speech_starts(audio)
    for start, end, text in cues:
        nearest = min(starts, key=lambda s: abs(s - start))
        assert abs(nearest - start) <= 0.05, (text, start, nearest)
        assert end > start
    assert all(a[1] <= b[0] for a, b in zip(cues, cues[1:], strict=False))
    marks = out.with_suffix(".chapters.txt").read_text().splitlines()
    assert marks[0] == "CHAPTER01=00:00:00.000" and marks[1] == "CHAPTER01NAME=Openings"
    second = re.fullmatch(r"CHAPTER02=(\d\d):(\d\d):(\d\d)\.(\d\d\d)", marks[2])
    assert second and marks[3] == "CHAPTER02NAME=Endings"
    at = int(second[2]) * 60 + int(second[3]) + int(second[4]) / 1000
    assert cues[2][1] < at <= cues[3][0]
    assert not list(tmp_path.glob(".*.part"))


def test_one_playable_file_per_chapter_with_webvtt(tmp_path, synthesizer):
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    written = export_document(
        book,
        tmp_path / "book.ogg",
        per_chapter=True,
        subtitles="vtt",
        synthesizer=synthesizer,
        progress=False,
    )
    assert [p.name for p in written] == ["book-01-Openings.ogg", "book-02-Endings.ogg"]
    for path in written:
        info = soundfile.info(path)
        assert info.format == "OGG" and info.samplerate == SAMPLE_RATE and 1.0 < info.duration < 10.0
        vtt = path.with_suffix(".vtt").read_text()
        assert vtt.startswith("WEBVTT") and len(_cues(path.with_suffix(".vtt"))) == 3
        cues = _cues(path.with_suffix(".vtt"))
        assert cues[-1][1] <= info.duration


class _Interrupted:
    """Makes a quiet second of audio per sentence; Ctrl+C in the middle of the second chapter."""

    def __init__(self) -> None:
        self.calls = 0

    def stream(self, text, voice, cancel=None):
        self.calls += 1
        for i in range(3):
            if self.calls == 2 and i == 1:
                raise KeyboardInterrupt
            yield AudioChunk(np.full(SAMPLE_RATE, 0.1, np.float32), i, sentence_span=(0, 3))


def test_ctrl_c_keeps_the_finished_chapters_and_leaves_nothing_half_written(tmp_path):
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    fake = (_Interrupted(), np.zeros((510, 1, 256), np.float32), 1.0)
    with pytest.raises(KeyboardInterrupt):
        export_document(book, tmp_path / "b.flac", per_chapter=True, synthesizer=fake, progress=False)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["b-01-Openings.flac", "b-01-Openings.srt", "book.epub"]
    assert soundfile.info(tmp_path / "b-01-Openings.flac").duration == pytest.approx(3.0)
    with pytest.raises(KeyboardInterrupt):
        export_document(book, tmp_path / "one.wav", synthesizer=(_Interrupted(), *fake[1:]), progress=False)
    assert not (tmp_path / "one.wav").exists() and not list(tmp_path.glob(".*"))


def test_bad_output_names(tmp_path):
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    with pytest.raises(ExportError, match="use one of"):
        export_document(book, tmp_path / "book.aac", progress=False)
    with pytest.raises(ExportError, match="not a directory"):
        export_document(book, tmp_path / "missing" / "book.ogg", progress=False)


def test_subtitle_formats():
    cues = [Cue(0.0, 1.5, "One."), Cue(3661.25, 3662.0, "Two\nlines.")]
    assert subtitle_text(cues, "srt") == (
        "1\n00:00:00,000 --> 00:00:01,500\nOne.\n\n2\n01:01:01,250 --> 01:01:02,000\nTwo lines.\n"
    )
    assert subtitle_text(cues, "vtt").startswith("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nOne.\n")


class _Silent:
    """Finds nothing readable: yields no audio."""

    def stream(self, text, voice, cancel=None):
        return iter(())


def test_a_document_with_nothing_readable_writes_nothing_and_says_so(tmp_path):
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    fake = (_Silent(), np.zeros((510, 1, 256), np.float32), 1.0)
    for per_chapter in (False, True):
        with pytest.raises(ExportError, match="nothing readable"):
            export_document(
                book, tmp_path / "x.ogg", per_chapter=per_chapter, synthesizer=fake, progress=False
            )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.epub"]


class _Quiet:
    """A second of quiet audio per sentence."""

    def stream(self, text, voice, cancel=None):
        yield AudioChunk(np.full(SAMPLE_RATE, 0.1, np.float32), 0, sentence_span=(0, 3))


def test_the_progress_bar_is_not_drawn_into_a_log(tmp_path, capfd):
    # stderr is no terminal here (a pipe, as in a script or a log): every redraw of the
    # bar would land in it.
    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    fake = (_Quiet(), np.zeros((510, 1, 256), np.float32), 1.0)
    export_document(book, tmp_path / "b.flac", synthesizer=fake, progress=True)
    assert "ch/s" not in capfd.readouterr().err


def test_export_to_a_full_disk_is_one_clear_line(tmp_path, monkeypatch, capsys):
    from tray_reader import cli, speak
    from tray_reader.export import _temporary

    book = write_epub(tmp_path / "book.epub", "Book", CHAPTERS)
    fake = (_Quiet(), np.zeros((510, 1, 256), np.float32), 1.0)
    monkeypatch.setattr(speak, "one_shot_synthesizer", lambda *args: fake)
    out = tmp_path / "book.ogg"
    _temporary(out).symlink_to("/dev/full")
    assert cli.main(["export", str(book), "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"tray-reader: cannot write {out}: No space left on device\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.epub"]
