"""Audiobooks: a document to audio files (libsndfile, through soundfile) and subtitles.

Audio is written as it is made, so memory stays flat however long the document. Every
file is written under a temporary name beside its final one and renamed when complete:
Ctrl+C leaves the chapters finished so far and nothing half-written under an output name.
Subtitle cues are sentences, timed by the model's own word timings (speech/timings.py).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tray_reader.documents import Chapter, chapters_from, load_document
from tray_reader.errors import TrayReaderError
from tray_reader.files import output_place_problem, write_atomic
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk


class ExportError(TrayReaderError):
    """The audiobook cannot be written (format, place)."""


FORMATS = {
    ".wav": ("WAV", "PCM_16"),
    ".flac": ("FLAC", "PCM_16"),
    ".ogg": ("OGG", "VORBIS"),
    ".mp3": ("MP3", "MPEG_LAYER_III"),
}
"""Output suffix -> libsndfile (format, subtype)."""

SPEECH_CHARS_PER_SECOND = 14.0
"""Characters of text per second of speech at speed 1, to guess the length before any is made."""


@dataclass(frozen=True)
class Cue:
    """One subtitle: a sentence and when it is heard."""

    start: float
    """Seconds from the start of its file."""
    end: float
    text: str


def check_output(out: Path) -> tuple[str, str]:
    """The libsndfile (format, subtype) to write ``out`` with; ExportError, before any audio
    is made, when it cannot be written there (a folder, no such folder, an unknown kind)."""
    problem = output_place_problem(out, "speech.wav")
    if problem:
        raise ExportError(problem)
    fmt_subtype = _format_for(out)
    parent = out.parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ExportError(f"cannot write in {parent}: permission denied; choose another place")
    return fmt_subtype


def _format_for(out: Path) -> tuple[str, str]:
    import soundfile

    suffix = out.suffix.lower()
    if suffix not in FORMATS:
        raise ExportError(
            f"{out}: cannot write {suffix or 'a file without an extension'}; use one of {' '.join(FORMATS)}"
        )
    fmt, subtype = FORMATS[suffix]
    if fmt not in soundfile.available_formats() or subtype not in soundfile.available_subtypes(fmt):
        raise ExportError(
            f"{out}: this system's libsndfile cannot write {suffix} ({soundfile.__libsndfile_version__}); "
            "use .ogg, .flac or .wav"
        )
    return fmt, subtype


def _timestamp(seconds: float, comma: bool) -> str:
    ms = max(0, int(round(seconds * 1000)))
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}{',' if comma else '.'}{ms:03d}"


def subtitle_text(cues: list[Cue], kind: str) -> str:
    """``cues`` as SubRip (``srt``) or WebVTT (``vtt``) text."""
    comma = kind == "srt"
    out = [] if comma else ["WEBVTT", ""]
    for n, cue in enumerate(cues, start=1):
        if comma:
            out.append(str(n))
        out.append(f"{_timestamp(cue.start, comma)} --> {_timestamp(cue.end, comma)}")
        out.append(re.sub(r"\s+", " ", cue.text).strip())
        out.append("")
    return "\n".join(out)


def sentence_cues(chunks: Iterator[AudioChunk], text: str, sink: Callable[[np.ndarray], None]) -> list[Cue]:
    """Pass the audio of ``chunks`` (made from ``text``) to ``sink``; the sentences' cues:
    from the first word's start to the last word's end (from speech to speech without
    word timings)."""
    cues: dict[int, list] = {}
    pos = 0
    for chunk in chunks:
        sink(chunk.samples)
        cue = cues.setdefault(chunk.sentence, [None, None, chunk.sentence_span])
        if chunk.words:
            cue[0] = pos + chunk.words[0].start if cue[0] is None else cue[0]
            cue[1] = pos + chunk.words[-1].end
        elif chunk.samples.size and np.any(chunk.samples):  # speech, not a pause
            cue[0] = pos if cue[0] is None else cue[0]
            cue[1] = max(cue[1] or 0, pos + chunk.samples.size)
        pos += chunk.samples.size
    out = []
    for start, end, span in cues.values():
        if start is None or span is None:
            continue
        out.append(Cue(start / SAMPLE_RATE, max(start, end) / SAMPLE_RATE, text[span[0] : span[1]]))
    return out


def _temporary(final: Path) -> Path:
    return final.with_name(f".{final.name}.part")


def _write_text(path: Path, text: str) -> None:
    try:
        write_atomic(path, text)
    except OSError as e:
        raise _cannot_write(path, e) from None


def _safe_name(title: str) -> str:
    return re.sub(r"[^\w]+", "-", title).strip("-")[:40] or "chapter"


class _Progress:
    """A progress bar over the characters to read, with the time left (tqdm, on stderr)."""

    def __init__(self, total: int, enabled: bool) -> None:
        from tqdm import tqdm

        # disable=None: no bar where stderr is no terminal (a log, a pipe), which would get
        # every redraw of it.
        self._bar = tqdm(
            total=total, unit="ch", disable=None if enabled else True, file=sys.stderr, dynamic_ncols=True
        )

    def advance(self, chars: int) -> None:
        self._bar.update(chars)

    def describe(self, text: str) -> None:
        self._bar.set_description_str(text[:30])

    def close(self) -> None:
        self._bar.close()


def export_document(
    file: Path,
    out: Path,
    voice: str | None = None,
    speed: float | None = None,
    per_chapter: bool = False,
    subtitles: str = "srt",
    start: str | None = None,
    threads: int | None = None,
    synthesizer: tuple[Synthesizer, np.ndarray, float] | None = None,
    progress: bool = True,
) -> list[Path]:
    """Write ``file`` read aloud to ``out`` (one file, or one per chapter named after it),
    with subtitles beside each; returns the audio files written."""
    fmt, subtype = check_output(out)
    chapters = chapters_from(load_document(file), start)
    if synthesizer is None:
        from tray_reader.speak import one_shot_synthesizer

        synthesizer = one_shot_synthesizer(voice, speed, threads)
    synth, pack, rate = synthesizer
    total = sum(len(c.text) for c in chapters)
    bar = _Progress(total, progress)
    written: list[Path] = []
    try:
        if per_chapter:
            width = max(2, len(str(len(chapters))))
            for n, chapter in enumerate(chapters, start=1):
                target = out.with_name(f"{out.stem}-{n:0{width}d}-{_safe_name(chapter.title)}{out.suffix}")
                with AudioFile(target, fmt, subtype) as audio:
                    cues = _read_into(synth, pack, rate, chapter, audio, bar)
                if not audio.frames:
                    continue  # nothing readable in it: no file
                if subtitles != "none":
                    _write_text(target.with_suffix(f".{subtitles}"), subtitle_text(cues, subtitles))
                written.append(target)
        else:
            all_cues: list[Cue] = []
            marks: list[tuple[float, str]] = []
            with AudioFile(out, fmt, subtype) as audio:
                for chapter in chapters:
                    offset = audio.frames / SAMPLE_RATE
                    marks.append((offset, chapter.title))
                    cues = _read_into(synth, pack, rate, chapter, audio, bar)
                    all_cues += [Cue(c.start + offset, c.end + offset, c.text) for c in cues]
            if audio.frames:
                if subtitles != "none":
                    _write_text(out.with_suffix(f".{subtitles}"), subtitle_text(all_cues, subtitles))
                if len(chapters) > 1:
                    _write_text(out.with_suffix(".chapters.txt"), chapter_marks(marks))
                written.append(out)
    except KeyboardInterrupt:
        bar.close()
        done = ", ".join(p.name for p in written) or "no file"
        print(f"\nstopped: finished {done}; the unfinished file was removed", file=sys.stderr)
        raise
    bar.close()
    if not written:
        raise ExportError(f"{file} has nothing readable (see `tray-reader say -f {file} --show-text`)")
    return written


def chapter_marks(marks: list[tuple[float, str]]) -> str:
    """Chapter starts in the OGM form (CHAPTER01=00:00:00.000, CHAPTER01NAME=...), which
    tagging tools and players import (the audio formats here have no chapter field)."""
    lines = []
    for n, (at, title) in enumerate(marks, start=1):
        lines += [f"CHAPTER{n:02d}={_timestamp(at, False)}", f"CHAPTER{n:02d}NAME={title}"]
    return "\n".join(lines) + "\n"


def _read_into(
    synth: Synthesizer, pack: np.ndarray, speed: float, chapter: Chapter, audio: AudioFile, bar: _Progress
) -> list[Cue]:
    text = chapter.text
    bar.describe(chapter.title)
    done = 0

    def chunks() -> Iterator[AudioChunk]:
        nonlocal done
        for chunk in synth.stream(text, fixed_voice(pack, speed)):
            if chunk.sentence_span is not None and chunk.sentence_span[1] > done:
                bar.advance(chunk.sentence_span[1] - done)
                done = chunk.sentence_span[1]
            yield chunk

    cues = sentence_cues(chunks(), text, audio.write)
    bar.advance(max(0, len(text) - done))
    return cues


class AudioFile:
    """An audio file written under a temporary name, renamed to its own when closed
    without an error; removed otherwise. Any failure to write it (a full disk) is an
    ExportError naming the file and why."""

    def __init__(self, path: Path, fmt: str, subtype: str) -> None:
        self.path = path
        self.frames = 0
        self._tmp = _temporary(path)
        self._fmt, self._subtype = fmt, subtype
        self._file = None

    def __enter__(self) -> AudioFile:
        import soundfile

        try:
            self._file = soundfile.SoundFile(
                str(self._tmp), "w", SAMPLE_RATE, 1, self._subtype, format=self._fmt
            )
        except (soundfile.LibsndfileError, OSError) as e:
            failed = _cannot_write(self.path, e)
            with contextlib.suppress(OSError):  # created, then its header could not be written
                self._tmp.unlink()
            raise failed from None
        return self

    def write(self, samples: np.ndarray) -> None:
        import soundfile

        if samples.size and self._file is not None:
            try:
                self._file.write(np.clip(samples, -1.0, 1.0))
            except (soundfile.LibsndfileError, OSError) as e:
                raise _cannot_write(self.path, e) from None
            self.frames += samples.size

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        import soundfile

        failed: ExportError | None = None
        if self._file is not None:
            try:
                self._file.close()  # what libsndfile still buffers is written here
            except (soundfile.LibsndfileError, OSError) as e:
                failed = _cannot_write(self.path, e)
            if kind is None and failed is None and self.frames:
                failed = self._incomplete()
        if kind is None and failed is None and self.frames:
            os.replace(self._tmp, self.path)
            return
        with contextlib.suppress(OSError):
            self._tmp.unlink()
        if kind is None and failed is not None:
            raise failed

    def _incomplete(self) -> ExportError | None:
        """An error if the file closed holds fewer frames than were written: libsndfile's
        Ogg writer does not report a refused write of its last pages (a full disk). Read
        back from the file's header or last page; not for MP3, whose length libsndfile
        may count by decoding the whole file."""
        import soundfile

        if self._fmt == "MP3":
            return None
        why = getattr(getattr(soundfile, "_ffi", None), "errno", None)
        try:
            frames = soundfile.info(str(self._tmp)).frames
        except (soundfile.LibsndfileError, OSError, RuntimeError):
            frames = -1
        if frames == self.frames:
            return None
        reason = os.strerror(why) if why in WRITE_FAILURES else "the file written is incomplete"
        return ExportError(f"cannot write {self.path}: {reason}")


WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EACCES})
"""Why the system refuses a write, as the C library's errno says it."""


def _cannot_write(path: Path, e: Exception) -> ExportError:
    """A failure to write ``path`` as the user can act on it. libsndfile keeps no reason
    for a refused write ("System error", or a codec's own words for FLAC), but the C
    library's errno, read through soundfile's cffi at once, says which (a full disk)."""
    import soundfile

    code = getattr(e, "errno", None)
    if isinstance(e, soundfile.LibsndfileError):
        code = getattr(getattr(soundfile, "_ffi", None), "errno", None)
    if code in WRITE_FAILURES:
        reason = os.strerror(code)
    else:
        reason = getattr(e, "strerror", None) or str(e).strip(": ") or "libsndfile refused it"
    return ExportError(f"cannot write {path}: {reason}")
