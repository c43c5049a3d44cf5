"""The audio messages passed between the speech runtime and the player, and the model's rates."""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

if TYPE_CHECKING:
    from tray_reader.speech.timings import WordTiming

SAMPLE_RATE = 24_000
"""Kokoro's output rate in Hz."""
FRAME_SAMPLES = 600
"""Output samples per frame of part A's ``asr`` (2 pitch frames x 300 samples, 24 kHz: 25 ms)."""


@dataclass(frozen=True)
class Prosody:
    """How a voice's pitch curve is reshaped between the model's two parts (an enrolled
    voice's speaker's pitch; speech-dispatcher's pitch setting)."""

    pitch: float = 1.0
    """Factor on the f0 curve (1: the model's own pitch)."""
    spread: float = 1.0
    """Factor on log-f0's deviation from the chunk's median (1: the model's own range)."""


NEUTRAL = Prosody()
"""The model's own pitch and range."""


VoiceSource = Callable[[], tuple[np.ndarray, float]]
"""The voice pack and speed to read the next chunk with (read before every chunk, so a
change applies at the next one)."""


@dataclass(frozen=True)
class AudioChunk:
    """Synthesised audio for (part of) a text chunk."""

    samples: np.ndarray
    """float32 mono samples at SAMPLE_RATE."""
    sentence: int
    """Index of the sentence this audio belongs to."""
    last: bool = False
    """True on the final chunk of a request."""
    words: tuple[WordTiming, ...] = ()
    """When the words of its text chunk sound, from this piece's first sample (on the
    first piece of each text chunk; empty when the model's durations are not known)."""
    sentence_span: tuple[int, int] | None = None
    """[start, end) characters of its sentence in the text as given."""
    text: str | None = None
    """The text of the whole request, on its first piece (what the spans index)."""


class AudioSink(Protocol):
    """Where the speech worker sends audio (the player, or a WAV writer)."""

    def play(self, chunk: AudioChunk, cancel: threading.Event | None = None) -> None:
        """Queue a chunk; may block while the buffer is full. Dropped once ``cancel`` (the
        read's stop) is set, however late the chunk comes."""

    def finish(self) -> None:
        """The request is complete: play out what is queued, then go idle."""

    def flush(self) -> None:
        """Stop now: fade out and drop what is queued."""


class DecoderKind(enum.Enum):
    """Which part B (decoder + generator) the engine runs."""

    SHIPPED = "shipped"  # the decoder as it comes in the pinned model
    FAST = "fast"  # the derived static-int8 generator (tray_reader.model.recipe)
    FUSED = "fused"  # the same with compiled operators (tray_reader.model.custom_ops)
    WHOLE = "whole"  # the model could not be split: one run per chunk, no windows
