"""One-shot speaking for `tray-reader say`: build the pipeline, speak or write a WAV."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from tray_reader import config
from tray_reader.documents import read_ahead
from tray_reader.errors import TextInputError, VoiceError
from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.types import AudioChunk
from tray_reader.text.frontend import TextFrontEnd, summarize_skipped
from tray_reader.text.g2p import EnglishPhonemizer
from tray_reader.text.lexicon import Lexicon

if TYPE_CHECKING:
    from tray_reader.voices.library import VoiceLibrary

DEFAULT_VOICE = "af_heart"


def voice_pack(name: str) -> np.ndarray:
    """The pack of a stock or enrolled/mixed voice (VoiceError names the choices)."""
    from tray_reader.voices.library import VoiceLibrary

    return VoiceLibrary().pack(name)


def _nothing_readable(skipped: list[str]) -> TextInputError:
    return TextInputError("There is nothing readable in the text given." + _skipped_note(skipped))


def _skipped_note(skipped: list[str]) -> str:
    return f" Skipped: {summarize_skipped(skipped)}" if skipped else ""


def _report_skipped(skipped: list[str]) -> None:
    if skipped:
        print(f"skipped: {summarize_skipped(skipped)}", file=sys.stderr)


def _parts(text: str | Iterable[str]) -> Iterable[str]:
    """A text, or a document's parts (`documents.document_parts`), as parts read in turn."""
    return (text,) if isinstance(text, str) else text


def show_text(text: str | Iterable[str]) -> Iterator[str]:
    frontend = TextFrontEnd(EnglishPhonemizer(), Lexicon.user())
    skipped: list[str] = []
    count = 0
    for part in _parts(text):
        for chunk in frontend.chunks(part, skipped):
            count += 1
            yield chunk.text
    if not count:
        raise _nothing_readable(skipped)
    _report_skipped(skipped)


def _settings_voice(loaded: config.LoadedSettings, library: VoiceLibrary) -> str | None:
    """settings.toml's voice, where it sets one: it comes before `voice use`'s, as in the
    daemon. One that does not exist is warned of and passed over."""
    if "voice" not in loaded.given:
        return None
    name = loaded.settings.voice
    try:
        library.info(name)
    except VoiceError as e:
        print(f"warning: {config.settings_path()}: voice = {name!r}: {e}", file=sys.stderr)
        return None
    return name


def one_shot_synthesizer(
    voice: str | None, speed: float | None, threads: int | None
) -> tuple[Synthesizer, np.ndarray, float]:
    """The pipeline for a one-shot command (`say`, `export`), the voice's pack and speed."""
    from tray_reader.voices.library import VoiceLibrary

    library = VoiceLibrary()
    # The daemon's settings hold here too (read only: `say` never writes the file).
    loaded = config.load(create=False)
    name = voice or _settings_voice(loaded, library) or library.default_voice() or DEFAULT_VOICE
    pack = library.pack(name)
    info = library.info(name)
    speed = speed or info.speed  # an enrolled voice carries its matched speaking rate
    frontend = TextFrontEnd(EnglishPhonemizer(), Lexicon.user())
    engine = KokoroEngine.load(threads, fast=loaded.settings.fast_model)
    engine.use_prosody(info.prosody)  # ... and its speaker's pitch level and range
    engine.use_envelope(info.envelope)  # ... and its envelope map
    return Synthesizer(frontend, engine), pack, speed or 1.0


def say(
    text: str | Iterable[str], voice: str | None, speed: float | None, out: str | None, threads: int | None
) -> None:
    """Speak ``text`` now, or write it to the audio file ``out`` (its kind from its extension).

    ``text`` may come in parts, each ending with a paragraph (a long document's: the first
    is read while the rest is extracted); they are read one after the other."""
    if out is not None:
        from pathlib import Path

        from tray_reader.export import check_output

        target = Path(out)
        kind = check_output(target)  # before the model loads and any speech is made
    synth, pack, speed = one_shot_synthesizer(voice, speed, threads)
    frontend = synth.frontend
    skipped: list[str] = []

    def speech() -> Iterator[AudioChunk]:
        heard = threading.Event()
        parts = iter(_parts(text))
        first = next(parts, "")
        # The next parts are made while the first is read, once its first words are out.
        for part in itertools.chain([first], read_ahead(parts, heard) if not isinstance(text, str) else ()):
            for chunk in synth.stream(part, fixed_voice(pack, speed or 1.0), cancel):
                yield chunk
                heard.set()
            skipped.extend(frontend.last_skipped)  # each part's chunks start a new list

    cancel: threading.Event | None = None
    if out is None:
        from tray_reader.audio.player import Player

        # Streamed: speech starts with the first chunk; the player pads the end.
        player = Player()
        try:
            cancel = player.start_request()
            played = 0
            for chunk in speech():
                player.play(chunk, cancel)
                played += 1
            player.finish()
            player.wait()
        finally:
            player.close()
        if not played:
            raise _nothing_readable(skipped)
        _report_skipped(skipped)
        return
    from tray_reader.export import AudioFile

    # Written as it is made (memory stays flat however long the text), under a temporary
    # name renamed when complete.
    with AudioFile(target, *kind) as audio:
        for chunk in speech():
            audio.write(chunk.samples)
    if not audio.frames:
        raise _nothing_readable(skipped)
    _report_skipped(skipped)
