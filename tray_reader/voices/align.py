"""Which words of a known text a recording says, and when: the text is spoken by a stock
voice, its words timed by the model's own durations (`speech.timings`), and that render is
aligned to the recording by dynamic time warping (numpy).

Used where a recording may hold only the start of its text: a passage read until the
recorder's limit, or stopped when the reader had had enough. Enrolment then renders and
matches the words that were said, not the whole passage (`read_part`).

The features are log-mel energies over the band both a microphone and a telephone carry,
each band's mean and spread removed per recording (a fixed channel and a voice's overall
colour drop out; what changes from sound to sound stays). The warping allows each
recording frame to take half to two of the render's frames (steps (1,1), (1,2), (2,1)),
which covers reading from about twice the model's rate to half of it; every recording
frame adds its cost once, so where the path may end in the render (the recording may stop
anywhere in the text) is chosen by cost alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import soxr

from tray_reader.speech.synthesis import chunk_timings
from tray_reader.speech.timings import SOUND_LEAD_FRAMES
from tray_reader.speech.types import FRAME_SAMPLES, NEUTRAL, SAMPLE_RATE
from tray_reader.voices.embedder import mel_filterbank
from tray_reader.voices.render import VoiceRenderer

RATE = 16_000
HOP = 320
"""Samples between feature frames (20 ms: a word lasts ten or more; 30 s of speech against
the at most 62 s of render it can reach make a 1500 x 3100 cost matrix, 19 MB)."""
WIN = 400
N_FFT = 512
N_MELS = 40
LOW_HZ, HIGH_HZ = 250.0, 3600.0
"""The band the features use: what a telephone channel keeps."""
GAP_SECONDS = 0.2
"""Silence put between the render's chunks (as `VoiceRenderer.render` does)."""
EDGE_WORDS = 2
"""A run of words said that starts within this many words of the text's start (or ends
within this many of its end) is taken to start (end) there: the alignment's slack at the
edges is about a word, and a reader who stopped that close to the end read it all."""
MIN_WORDS = 8
"""Fewer words than this said (of a longer text): too few to render and match by."""
START_MARGIN = 0.02
"""A path from anywhere in the render replaces the one from its start only when it is this
much cheaper per frame."""
MAX_ORDER_RATIO = 5.5
"""An alignment whose `Alignment.order_ratio` exceeds this says the recording does not say
the text (bench/bench_align.py): a real telephone speaker against her own prompts' words
2.6-4.3 (one prompt whose web address and acronyms the front end reads otherwise, 6.3),
other voices reading the text 2.0-3.3; against another prompt's words 4.0-6.0 (phone
prompts share much of their wording), the passage against other words 5.9-8.8. It catches
a recording of quite other words, not a few words changed; a wrongly refused text only
costs its words."""


@dataclass(frozen=True)
class TimedRender:
    """A text spoken by one voice, with where each word ends in it."""

    audio16k: np.ndarray
    word_starts: np.ndarray
    """Seconds into ``audio16k`` at which each word of the text begins to sound."""
    word_ends: np.ndarray
    """... and at which it has been said."""
    word_spans: tuple[tuple[int, int], ...]
    """[start, end) characters of each word in the text as given."""
    complete: bool = True
    """Whether the whole text was rendered (else only its first `max_seconds`)."""


def timed_render(
    renderer: VoiceRenderer, pack: np.ndarray, text: str, max_seconds: float = float("inf")
) -> TimedRender | None:
    """``text`` spoken with ``pack`` at speed 1, with its words' timings (None when the
    engine is not split, so the model's durations are not seen, or nothing is spoken); it
    stops after the chunk that passes ``max_seconds``."""
    engine = renderer.engine
    gap = np.zeros(int(GAP_SECONDS * SAMPLE_RATE), np.float32)
    pieces: list[np.ndarray] = []
    starts: list[float] = []
    ends: list[float] = []
    spans: list[tuple[int, int]] = []
    offset = 0
    complete = True
    for chunk in renderer.frontend.chunks(text):
        if offset >= max_seconds * SAMPLE_RATE:
            complete = False
            break
        ids = renderer.frontend.ids(chunk.phonemes)
        if not ids:
            continue
        part_a = engine.part_a(ids, pack, 1.0)
        if part_a is None:
            return None
        timings = chunk_timings(part_a, ids, chunk.words, renderer.frontend.vocab)
        audio = engine.synthesize(ids, pack, 1.0, NEUTRAL)
        renderer.renders += 1
        if len(timings) != len(chunk.words):
            return None  # the model's tokens did not pair with the words (never seen)
        for t in timings:
            # A timing's end leads the word's sound as its start does (SOUND_LEAD_FRAMES).
            end = min(t.end + SOUND_LEAD_FRAMES * FRAME_SAMPLES, len(audio))
            starts.append((offset + t.start) / SAMPLE_RATE)
            ends.append((offset + end) / SAMPLE_RATE)
            spans.append(t.span)
        pieces += [audio, gap]
        offset += len(audio) + len(gap)
    if not pieces:
        return None
    audio16k = soxr.resample(np.concatenate(pieces), SAMPLE_RATE, RATE).astype(np.float32)
    return TimedRender(audio16k, np.asarray(starts), np.asarray(ends), tuple(spans), complete)


def features(x16k: np.ndarray) -> np.ndarray:
    """Log-mel energies in LOW_HZ..HIGH_HZ every 20 ms, floored 50 dB below the loud
    frames, each band's mean and spread removed [frames, bands]."""
    x = np.asarray(x16k, np.float64)
    if len(x) < WIN:
        x = np.concatenate([x, np.zeros(WIN - len(x))])
    frames = np.lib.stride_tricks.sliding_window_view(x, WIN)[::HOP] * np.hamming(WIN)
    power = np.abs(np.fft.rfft(frames, n=N_FFT, axis=-1)) ** 2
    fb = mel_filterbank(RATE, N_FFT, N_MELS).astype(np.float64)
    centres = np.linspace(0, RATE / 2, N_FFT // 2 + 1) @ fb.T / np.maximum(fb.sum(axis=1), 1e-12)
    fb = fb[(centres >= LOW_HZ) & (centres <= HIGH_HZ)]
    logmel = np.log(power @ fb.T + 1e-10)
    floor = np.percentile(logmel, 99, axis=0) - np.log(10.0) * 5  # 50 dB below the loud frames
    logmel = np.maximum(logmel, floor)
    logmel -= logmel.mean(axis=0)
    logmel /= logmel.std(axis=0) + 1e-6
    return np.asarray(logmel)


@dataclass(frozen=True)
class Alignment:
    """Where each recording frame falls in the render."""

    render_frame: np.ndarray
    """For each recording frame, the render frame it is matched to (non-decreasing)."""
    cost: float
    """Mean cost per recording frame along the path."""
    free_cost: float = 0.0
    """Mean cost per recording frame of each frame's nearest render frame, in any order."""

    @property
    def order_ratio(self) -> float:
        """How much dearer keeping the text's order makes the match than matching frames in
        any order: the same words read alike keep it low, other words raise it."""
        return self.cost / max(self.free_cost, 1e-9)


def dtw(recording: np.ndarray, render: np.ndarray, free_start: bool = True) -> Alignment:
    """Align every frame of ``recording`` [N, d] to a stretch of ``render`` [M, d]: the path
    ends anywhere in the render, and starts anywhere (``free_start``) or at its start."""
    n, m = len(recording), len(render)
    a = recording / (np.linalg.norm(recording, axis=1, keepdims=True) + 1e-9)
    b = render / (np.linalg.norm(render, axis=1, keepdims=True) + 1e-9)
    cost = (1.0 - a @ b.T).astype(np.float32)  # cosine distance [N, M]
    free_cost = float(cost.min(axis=1).mean())
    inf = np.float32(np.inf)
    acc = np.full((n, m), inf, np.float32)
    step = np.zeros((n, m), np.int8)  # 0: (1,1), 1: (1,2), 2: (2,1)
    if free_start:
        acc[0] = cost[0]
    else:
        acc[0, 0] = cost[0, 0]
    for i in range(1, n):
        diag = np.full(m, inf, np.float32)
        diag[1:] = acc[i - 1, :-1]
        skip = np.full(m, inf, np.float32)
        skip[2:] = acc[i - 1, :-2]
        hold = np.full(m, inf, np.float32)
        if i >= 2:
            hold[1:] = acc[i - 2, :-1] + cost[i - 1, 1:]
        options = np.stack([diag, skip, hold])
        k = np.argmin(options, axis=0)
        acc[i] = cost[i] + options[k, np.arange(m)]
        step[i] = k
    end = int(np.argmin(acc[n - 1]))
    if not np.isfinite(acc[n - 1, end]):
        # The recording is over twice as long as the render: no path; spread it evenly.
        return Alignment(np.minimum(np.arange(n) * m // max(n, 1), m - 1), float("inf"), free_cost)
    path = np.zeros(n, np.int64)
    i, j = n - 1, end
    while i > 0:
        path[i] = j
        k = step[i, j]
        if k == 0:
            i, j = i - 1, j - 1
        elif k == 1:
            i, j = i - 1, j - 2
        else:
            path[i - 1] = j
            i, j = i - 2, j - 1
    path[0] = j
    return Alignment(path, float(acc[n - 1, end]) / n, free_cost)


@dataclass(frozen=True)
class ReadPart:
    """Which of a text's words a recording says: a run of them, ``first`` to ``end``."""

    first: int
    """Index of the first word said."""
    end: int
    """Index after the last word said."""
    total: int
    """Words in the text."""
    text: str
    """The text as given, from the first word said to the end of the last."""
    alignment: Alignment
    render_ends: tuple[int, ...] = ()
    """The render frame at which each word of the text ends."""
    spans: tuple[tuple[int, int], ...] = ()
    """[start, end) characters of each word in ``source``."""
    source: str = ""
    """The text given."""
    complete: bool = True
    """Whether ``total`` counts all of the text's words (else only those rendered to align)."""

    def head(self, seconds: float) -> tuple[str, float]:
        """The words said, from the first, that the render says within ``seconds`` (at least
        one), and the seconds of the recording that say them."""
        start = self.render_ends[self.first - 1] if self.first > 0 else 0
        limit = start + seconds * RATE / HOP
        last = self.first
        while last + 1 < self.end and self.render_ends[last + 1] <= limit:
            last += 1
        text = self.source[self.spans[self.first][0] : self.spans[last][1]]
        frames = int(np.searchsorted(self.alignment.render_frame, self.render_ends[last], side="right"))
        return text, frames * HOP / RATE

    @property
    def words(self) -> int:
        return self.end - self.first

    @property
    def whole(self) -> bool:
        return self.complete and self.first == 0 and self.end >= self.total

    @property
    def usable(self) -> bool:
        """Whether the recording says the text, enough of it to match by."""
        return self.said_text and (self.whole or self.words >= MIN_WORDS)

    @property
    def said_text(self) -> bool:
        """Whether the recording says (part of) the text at all."""
        return self.alignment.order_ratio <= MAX_ORDER_RATIO

    def describe(self) -> str:
        """What the recording was found to say, for the enrolment summary."""
        if not self.said_text:
            return (
                "Your recording does not seem to say the text given (or it says much more), "
                "so its words were not used"
            )
        if self.whole:
            return "Your recording says the whole text"
        where = f"the first {self.words}" if self.first == 0 else f"words {self.first + 1} to {self.end}"
        of = f"of the text's {self.total} words" if self.complete else "of the text's words"
        if not self.usable:
            return f"Your recording says only {where} {of}, too few to match by, so its words were not used"
        return f"Your recording says {where} {of}; those were matched"


def words_said(
    recording16k: np.ndarray, text: str, renderer: VoiceRenderer, pack: np.ndarray
) -> ReadPart | None:
    """`read_part` of ``text`` spoken with ``pack`` (None when the model's durations are not
    seen or the text has nothing to say). Of a long text, only as much is rendered as the
    recording can reach from the text's start (at twice the render's rate)."""
    render = timed_render(renderer, pack, text, max_seconds=2 * len(recording16k) / RATE + 2.0)
    if render is None or len(render.word_ends) == 0:
        return None
    return read_part(recording16k, text, render)


def read_part(recording16k: np.ndarray, text: str, render: TimedRender) -> ReadPart:
    """Which of ``text``'s words (spoken in ``render``) the recording says: those between
    where its first and last frames fall in the render. A run that ends (starts) within
    EDGE_WORDS of either end reaches it."""
    rec, ren = features(recording16k), features(render.audio16k)
    alignment = dtw(rec, ren, free_start=False)
    if alignment.cost > START_MARGIN:
        # Not read from the text's start (or a noisy start): a path from anywhere, if that
        # is clearly better. From the start, the two differ by 0.01 at most.
        free = dtw(rec, ren, free_start=True)
        if free.cost < alignment.cost - START_MARGIN:
            alignment = free
    began = alignment.render_frame[0] * HOP / RATE
    reached = (alignment.render_frame[-1] + 1) * HOP / RATE
    total = len(render.word_ends)
    # A word counts as said when the recording spans the middle of its sound (the path's
    # ends are least sure: a cut-off word's last sound, a sentence's final lengthening).
    middles = (render.word_starts + render.word_ends) / 2
    end = int(np.searchsorted(middles, reached, side="right"))
    first = min(end, int(np.searchsorted(middles, began, side="left")))
    if first <= EDGE_WORDS:
        first = 0
    if end >= total - EDGE_WORDS and render.complete:
        end = total
    said = text[render.word_spans[first][0] : render.word_spans[end - 1][1]] if end > first else ""
    ends = tuple(int(e * RATE / HOP) for e in render.word_ends)
    whole = end - first == total and render.complete
    return ReadPart(
        first, end, total, text if whole else said, alignment, ends, render.word_spans, text, render.complete
    )
