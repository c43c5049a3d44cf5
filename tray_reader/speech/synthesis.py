"""Streaming synthesis: text in, 24 kHz audio chunks out, as each is made."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import numpy as np

from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.frontend import TextFrontEnd
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk


class Synthesizer:
    """Joins the text front end and the engine into one audio stream per request."""

    def __init__(self, frontend: TextFrontEnd, engine: KokoroEngine) -> None:
        self.frontend = frontend
        self.engine = engine

    def stream(
        self, text: str, pack: np.ndarray, speed: float = 1.0, cancel: threading.Event | None = None
    ) -> Iterator[AudioChunk]:
        cancel = cancel or threading.Event()
        for chunk in self.frontend.chunks(text):
            if cancel.is_set():
                return
            ids = self.frontend.ids(chunk.phonemes)
            if not ids:
                continue
            for piece in self.engine.stream(ids, pack, speed):
                if cancel.is_set():
                    return
                yield AudioChunk(piece, chunk.sentence)
            pause = np.zeros(int(chunk.pause_after * SAMPLE_RATE), dtype=np.float32)
            yield AudioChunk(pause, chunk.sentence)
