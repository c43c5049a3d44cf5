"""The audio of one request, kept per sentence so playback can jump between sentences.

Audio is kept at the model's rate (24 kHz) as it arrives, as 16-bit samples scaled to each
piece's peak (half the memory of float samples; the rounding is 96 dB below the piece's
peak); a cursor says what plays next. Sentences far behind the cursor are forgotten to
bound memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tray_reader.speech.timings import WordTiming


class _Stored:
    """One appended run of samples, as int16 scaled to its peak."""

    __slots__ = ("samples", "scale")

    def __init__(self, samples: np.ndarray) -> None:
        x = np.nan_to_num(np.asarray(samples, dtype=np.float32), nan=0.0, posinf=0.0, neginf=0.0)
        peak = float(np.max(np.abs(x))) if x.size else 0.0
        self.scale = peak / 32767.0 if peak > 0.0 else 1.0
        self.samples = np.rint(x / self.scale).astype(np.int16)

    def __len__(self) -> int:
        return len(self.samples)

    def get(self, start: int, stop: int) -> np.ndarray:
        out: np.ndarray = self.samples[start:stop].astype(np.float32)
        out *= self.scale
        return out


@dataclass
class _Sentence:
    index: int
    pieces: list[_Stored] = field(default_factory=list)
    frames: int = 0
    words: list[WordTiming] = field(default_factory=list)
    """Its words' timings, from the sentence's first sample (kept when its audio is forgotten)."""
    span: tuple[int, int] | None = None
    """[start, end) characters of the sentence in the text as given."""


@dataclass(frozen=True)
class Piece:
    """A run of samples taken from one sentence."""

    samples: np.ndarray
    position: int
    """Position of its sentence in the timeline (0 = first sentence of the request)."""
    offset: int
    """Frames into the sentence where `samples` starts."""


class Timeline:
    """Sentence-indexed audio of one request with a play cursor."""

    def __init__(self) -> None:
        self._sentences: list[_Sentence] = []
        self.position = 0
        """Cursor: which sentence plays next (may be one past the last, waiting for it)."""
        self.offset = 0
        """Cursor: frames of that sentence already taken."""
        self.finished = False
        """No more audio will be appended."""
        self.text: str | None = None
        """The text read (its first piece brings it), which the sentence and word spans index."""
        self._forgotten = 0

    @property
    def oldest(self) -> int:
        """Position of the oldest sentence whose audio is kept."""
        return self._forgotten

    def __len__(self) -> int:
        return len(self._sentences)

    def sentence_id(self, position: int) -> int:
        return self._sentences[position].index

    def append(
        self,
        sentence: int,
        samples: np.ndarray,
        words: tuple[WordTiming, ...] = (),
        span: tuple[int, int] | None = None,
    ) -> None:
        """Add audio to the end; ``words``' timings count from its first sample."""
        if not self._sentences or self._sentences[-1].index != sentence:
            self._sentences.append(_Sentence(sentence, span=span))
        last = self._sentences[-1]
        for w in words:
            last.words.append(WordTiming(last.frames + w.start, last.frames + w.end, w.span))
        if len(samples):
            last = self._sentences[-1]
            last.pieces.append(_Stored(samples))
            last.frames += len(samples)

    def sentence_span(self, position: int) -> tuple[int, int] | None:
        """Characters of the sentence at ``position`` in the text as given (None: unknown)."""
        return self._sentences[position].span if 0 <= position < len(self._sentences) else None

    def word_at(self, position: int, offset: int) -> WordTiming | None:
        """The word sounding (or the last one begun) ``offset`` samples into the sentence
        at ``position``; None before its first word or when no timings are known."""
        if not 0 <= position < len(self._sentences):
            return None
        found = None
        for w in self._sentences[position].words:
            if w.start > offset:
                break
            found = w
        return found

    def ahead(self) -> int:
        """Frames after the cursor."""
        later = sum(s.frames for s in self._sentences[self.position + 1 :])
        if self.position < len(self._sentences):
            later += self._sentences[self.position].frames - self.offset
        return later

    def at_end(self) -> bool:
        return self.finished and self.ahead() == 0

    def take(self, max_frames: int) -> Piece | None:
        """Up to `max_frames` samples at the cursor, never across a sentence boundary."""
        while self.position < len(self._sentences):
            current = self._sentences[self.position]
            if self.offset < current.frames:
                break
            if self.position + 1 == len(self._sentences):
                return None  # more of this sentence may still come
            self.position += 1
            self.offset = 0
        else:
            return None
        start = self.offset
        skip = start
        for piece in current.pieces:
            if skip < len(piece):
                out = piece.get(skip, skip + max_frames)
                self.offset += len(out)
                return Piece(out, self.position, start)
            skip -= len(piece)
        return None

    def seek(self, position: int) -> int:
        """Move the cursor to the start of a sentence (clamped to what is kept); return it."""
        position = max(self._forgotten, min(position, len(self._sentences)))
        self.position, self.offset = position, 0
        return position

    def forget_before(self, position: int) -> None:
        """Drop the audio of sentences before `position` (they can no longer be replayed)."""
        for s in self._sentences[self._forgotten : position]:
            s.pieces.clear()
        self._forgotten = max(self._forgotten, position)

    def frames_before(self, position: int) -> int:
        """Frames kept in the sentences from the oldest kept one up to `position`."""
        return sum(s.frames for s in self._sentences[self._forgotten : position])
