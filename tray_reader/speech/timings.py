"""Word timings from the model's own durations.

Part A's aligned text features (``asr``) hold one column per frame, a copy of its token's
encoder output: a token lasts as many frames as its column repeats (Kokoro rounds every
duration to at least one frame). So the runs of equal columns are the model's durations,
exact to the frame (25 ms), with no recogniser and no change to part A's graph.

A chunk's ids are its phonemes with a space id between words, so the tokens between two
spaces are one word: its timing runs from its first sounding token to its last
(punctuation around it, which carries the pauses, is left out).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tray_reader.speech.types import FRAME_SAMPLES
from tray_reader.text.frontend import word_groups

log = logging.getLogger(__name__)

SOUND_LEAD_FRAMES = 2
"""A word's sound begins this many frames before its first token's frames: the decoder's
convolutions see ahead. Measured over 21 words after a pause (4 texts, 3 voices; the
first rise to -30 dB of the loudest 5 ms after a quiet stretch): median 40-49 ms early
per text. Kokoro's own timestamps move the first token back 3 frames for the same reason."""


@dataclass(frozen=True)
class WordTiming:
    """When one word sounds, within the audio it came with."""

    start: int
    """First sample of the word, counted from the first sample of its audio piece."""
    end: int
    """Sample after its last."""
    span: tuple[int, int]
    """[start, end) characters of the word in the text as given."""


def token_frames(asr: np.ndarray) -> np.ndarray:
    """Frames each token lasts: the lengths of the runs of equal columns of part A's
    ``asr`` [1, 512, F] (padding tokens included)."""
    cols = asr[0]
    if cols.shape[1] == 0:
        return np.zeros(0, np.int64)
    changes = np.flatnonzero(np.any(cols[:, 1:] != cols[:, :-1], axis=0)) + 1
    edges = np.concatenate([[0], changes, [cols.shape[1]]])
    return np.diff(edges)


def token_starts(frames: np.ndarray) -> np.ndarray:
    """The first frame of each token (and, last, the frame after them all)."""
    return np.concatenate([[0], np.cumsum(frames)])


def word_sound_starts(ids: Sequence[int], asr: np.ndarray, vocab: dict[str, int]) -> list[int] | None:
    """The frame at which each word of a chunk begins to sound (SOUND_LEAD_FRAMES before its
    first token), from its ``ids`` and part A's ``asr``; None when the runs of equal
    columns do not match the tokens (never seen)."""
    frames = token_frames(asr)
    if len(frames) != len(ids) + 2:
        return None
    starts = token_starts(frames)
    return [max(0, int(starts[first]) - SOUND_LEAD_FRAMES) for first, _ in word_groups(ids, vocab)]


def word_timings(
    ids: Sequence[int],
    frames: np.ndarray,
    first_frame: int,
    words: Sequence[tuple[int, int]],
    vocab: dict[str, int],
) -> tuple[WordTiming, ...]:
    """Timings of ``words`` (their spans, one per word of the chunk) from the chunk's ``ids``
    and the ``frames`` of each token (``token_frames``: the padding id at each end
    included), for audio that starts at frame ``first_frame`` of the chunk."""
    if len(frames) != len(ids) + 2:
        # Two neighbouring tokens with equal features (never seen): no reliable timings.
        log.debug("token runs %d != %d ids + 2; no word timings", len(frames), len(ids))
        return ()
    starts = token_starts(frames)
    groups = word_groups(ids, vocab)
    if not groups or not words:
        return ()
    # misaki keeps the normalised words apart, so groups and words pair one to one; when
    # they do not, each word takes the groups that fall in its share of the chunk.
    owner = [min(len(words) - 1, k * len(words) // len(groups)) for k in range(len(groups))]
    out: list[WordTiming] = []
    for k, (first, last) in enumerate(groups):
        start = max(0, int(starts[first]) - SOUND_LEAD_FRAMES - first_frame) * FRAME_SAMPLES
        end = max(start, (int(starts[last + 1]) - SOUND_LEAD_FRAMES - first_frame) * FRAME_SAMPLES)
        if out and owner[k] == owner[k - 1]:
            out[-1] = WordTiming(out[-1].start, end, out[-1].span)
        else:
            out.append(WordTiming(start, end, words[owner[k]]))
    return tuple(out)
