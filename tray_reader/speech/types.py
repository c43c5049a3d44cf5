"""Small messages passed between the speech stages and the player."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

SAMPLE_RATE = 24_000
"""Kokoro's output rate in Hz."""


@dataclass(frozen=True)
class TextChunk:
    """A piece of text small enough for one model run."""

    text: str
    """The normalised text that is spoken (what `say --show-text` prints)."""
    phonemes: str
    """Kokoro phoneme string for `text`."""
    sentence: int
    """Index of the sentence this chunk belongs to, counted over the whole request."""
    pause_after: float
    """Seconds of silence after this chunk (comma < sentence < paragraph)."""


@dataclass(frozen=True)
class AudioChunk:
    """Synthesised audio for (part of) a text chunk."""

    samples: np.ndarray
    """float32 mono samples at SAMPLE_RATE."""
    sentence: int
    """Index of the sentence this audio belongs to."""
    last: bool = False
    """True on the final chunk of a request."""


class AudioSink(Protocol):
    """Where the speech worker sends audio (the player, or a WAV writer)."""

    def play(self, chunk: AudioChunk) -> None:
        """Queue a chunk; may block while the buffer is full."""

    def finish(self) -> None:
        """The request is complete: play out what is queued, then go idle."""

    def flush(self) -> None:
        """Stop now: fade out and drop what is queued."""
