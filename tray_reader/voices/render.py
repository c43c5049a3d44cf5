"""Renders fixed sentences with a candidate voice pack, for scoring during enrolment."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import soxr

from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import NEUTRAL, SAMPLE_RATE, Prosody
from tray_reader.text.frontend import TextFrontEnd
from tray_reader.voices.embedder import EMBED_RATE

PROFILE_SENTENCES = (
    "The old lighthouse keeper walked slowly along the beach every morning.",
    "Could you please bring me a cup of tea and the newspaper from the kitchen?",
    "Seven bright yellow birds were singing happily in the garden.",
)
"""What the stock profiles and the default candidate renders say (mixed sounds, a question)."""
KEPT_SECONDS = 180.0
"""The model's output kept for renders asked for again (`VoiceRenderer.render`), in seconds
of audio (about 17 MB): the guard's voices through an envelope map say what their unmapped
selves said a dozen renders before, and the model's output is the same for the same input."""


class VoiceRenderer:
    """Speaks text with any pack; phonemes are computed once per text."""

    def __init__(self, engine: KokoroEngine, frontend: TextFrontEnd) -> None:
        self.engine = engine
        self.frontend = frontend
        self._ids: dict[str, list[list[int]]] = {}
        self.renders = 0
        """Model runs so far (a cost counter for progress and the bench)."""
        self._kept: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._kept_samples = 0

    def ids(self, text: str) -> list[list[int]]:
        if text not in self._ids:
            out = []
            for chunk in self.frontend.chunks(text):
                ids = self.frontend.ids(chunk.phonemes)
                if ids:
                    out.append(ids)
            self._ids[text] = out
        return self._ids[text]

    def render(
        self,
        pack: np.ndarray,
        speed: float,
        texts: Sequence[str],
        prosody: Prosody | None = None,
        envelope: EnvelopeMap | None = None,
    ) -> np.ndarray:
        """24 kHz audio of the texts, with 0.2 s between chunks, at ``prosody`` (default:
        the model's own pitch; never the engine's current setting, which a read may own),
        each chunk through ``envelope`` as a read filters it."""
        gap = np.zeros(SAMPLE_RATE // 5, np.float32)
        pieces = []
        voice = (
            hashlib.blake2b(np.ascontiguousarray(pack, np.float32).tobytes(), digest_size=16).digest(),
            float(speed),
            prosody or NEUTRAL,
        )
        for text in texts:
            for ids in self.ids(text):
                audio = self._synthesize(voice, ids, pack)
                if envelope is not None:
                    audio = envelope.apply(audio, SAMPLE_RATE)
                pieces += [audio, gap]
        return np.concatenate(pieces) if pieces else np.zeros(0, np.float32)

    def _synthesize(self, voice: tuple, ids: list[int], pack: np.ndarray) -> np.ndarray:
        """The model's audio of one chunk, kept (KEPT_SECONDS, the least recently used dropped
        first) for when the same voice says it again; callers get their own copy."""
        key = (*voice, tuple(ids))
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept.copy()
        _digest, speed, prosody = voice
        audio = self.engine.synthesize(ids, pack, speed, prosody)
        self.renders += 1
        self._kept[key] = audio.copy()
        self._kept_samples += len(audio)
        while self._kept_samples > KEPT_SECONDS * SAMPLE_RATE and len(self._kept) > 1:
            _key, dropped = self._kept.popitem(last=False)
            self._kept_samples -= len(dropped)
        return audio

    def render16k(
        self,
        pack: np.ndarray,
        speed: float,
        texts: Sequence[str],
        prosody: Prosody | None = None,
        envelope: EnvelopeMap | None = None,
    ) -> np.ndarray:
        audio = self.render(pack, speed, texts, prosody, envelope)
        return np.asarray(soxr.resample(audio, SAMPLE_RATE, EMBED_RATE).astype(np.float32))
