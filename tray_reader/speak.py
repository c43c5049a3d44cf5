"""One-shot speaking for `tray-reader say`: build the pipeline, speak or write a WAV."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from tray_reader.errors import TextInputError
from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.frontend import TextFrontEnd
from tray_reader.speech.g2p import EnglishPhonemizer
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.types import SAMPLE_RATE

DEFAULT_VOICE = "af_heart"


def voice_pack(name: str) -> np.ndarray:
    """The pack of a stock or enrolled/mixed voice (VoiceError names the choices)."""
    from tray_reader.voices.library import VoiceLibrary

    return VoiceLibrary().pack(name)


def show_text(text: str) -> Iterator[str]:
    frontend = TextFrontEnd(EnglishPhonemizer())
    for chunk in frontend.chunks(text):
        yield chunk.text


def say(text: str, voice: str | None, speed: float | None, out: str | None, threads: int | None) -> None:
    from tray_reader.voices.library import VoiceLibrary

    pack = voice_pack(voice or VoiceLibrary().default_voice() or DEFAULT_VOICE)
    synth = Synthesizer(TextFrontEnd(EnglishPhonemizer()), KokoroEngine.load(threads))
    pieces = [c.samples for c in synth.stream(text, fixed_voice(pack, speed or 1.0))]
    if not pieces:
        raise TextInputError("There is nothing readable in the text given.")
    audio = np.concatenate(pieces)
    if out:
        import soundfile

        soundfile.write(out, audio, SAMPLE_RATE, subtype="PCM_16")
    else:
        import sounddevice

        sounddevice.play(np.concatenate([audio, np.zeros(SAMPLE_RATE // 5, np.float32)]), SAMPLE_RATE)
        sounddevice.wait()
