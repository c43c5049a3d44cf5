"""Run Kokoro's decoder (part B of ``model.split``) over windows of frames, yielding audio early.

Each window is decoded with ``context`` extra frames on both sides; the audio of those
context frames is thrown away except for a short cross-fade with the previous window.
The sine source's phase is carried across windows exactly (``phase_offset``); what
remains different from a whole-chunk run is the decoder's instance norms, which see
only the window, and convolution edges inside the context. Window sizes, context and
cross-fade were chosen by measurement (bench/bench_speech.py --seams).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass

import numpy as np

from tray_reader.speech.types import FRAME_SAMPLES, SAMPLE_RATE

Decode = Callable[[dict[str, np.ndarray]], np.ndarray]
"""Runs part B on one window's inputs and returns its audio."""


@dataclass(frozen=True)
class WindowPlan:
    """How a chunk's frames are cut into decoder windows (1 frame = 25 ms of audio)."""

    first_frames: int = 16
    """Frames in the first window: small, so the first audio comes quickly. Since the
    padding's silence is skipped, the first window holds speech; 12 frames garbled the
    first words more often (docs/benchmarks.md)."""
    frames: int = 80
    """Frames in each later window (a last one takes up to half again); bounds the
    decoder's memory per run."""
    later_frames: int = 32
    """The smallest window after the first: smaller ones garble words (docs/benchmarks.md),
    so a machine too slow for it makes playback wait rather than mumble."""
    context: int = 8
    """Extra frames decoded on each side of a window and then dropped: fewer garble the
    words at the window's edges more often than the extra decoding costs."""
    crossfade: int = 1200
    """Samples over which consecutive windows are blended (linear); at most context x 600."""

    def __post_init__(self) -> None:
        if self.first_frames < 1 or self.frames < self.first_frames or self.context < 0:
            raise ValueError(f"bad window plan {self}")
        if self.crossfade > self.context * FRAME_SAMPLES:
            raise ValueError("the cross-fade must fit inside the left context")


Budget = Callable[[], int]
"""How many frames of its own the next window may have for its audio to come in time (the
audio queued ahead of it, by the decoder's speed, less its context); at most a guess."""

Schedule = Callable[[Budget], Budget]
"""Turns the engine's time budget for one chunk into the sizes its later windows get."""


def by_time(budget: Budget) -> Budget:
    """The product's schedule: each later window as large as the time left allows."""
    return budget


def spans(
    first: int, last: int, plan: WindowPlan, first_frames: int | None, budget: Budget
) -> Iterator[tuple[int, int]]:
    """[start, end) frame ranges covering first..last, made one at a time: each window
    after the first is as large as ``budget`` allows (within the plan's limits), asked
    just before it is decoded."""
    start, size = first, min(plan.frames, first_frames or plan.first_frames)
    tail = plan.frames // 2
    while start < last:
        fits = None
        if start > first:
            fits = budget()
            size = min(plan.frames, max(plan.later_frames, fits))
        end = min(last, start + size)
        # A short last window would be mostly trailing silence, which its instance norms
        # would amplify: give it to this window instead, if that is in time (else it
        # reaches further back for context, see _left_edge).
        short = start > first and 0 < last - end < tail
        if short and (fits is None or max(last - start, tail) <= fits):
            end = last
        yield start, end
        start = end


LEAD_MARGIN = 3
"""Frames of the leading padding still decoded: speech onsets start ~1 frame before the
padding ends (measured), so 75 ms keeps soft onsets whole."""
TRAIL_MARGIN = 4
"""Frames of the trailing padding still decoded, for the last phoneme's decay."""


def speech_frames(asr: np.ndarray) -> tuple[int, int]:
    """[lo, hi) frames worth decoding: without most of the padding tokens' frames.

    Kokoro renders the padding id at each end of a chunk as 0.3-0.5 s of silence. Aligned
    text features repeat one column per frame of a token, so the padding's frames are the
    leading (trailing) columns equal to the first (last) one. Skipping them removes that
    silence from the time to first sound and its cost from every chunk; the pauses between
    chunks are the synthesiser's, sized by punctuation."""
    cols = asr[0]
    n = cols.shape[1]
    lead = 1
    while lead < n and np.array_equal(cols[:, lead], cols[:, 0]):
        lead += 1
    trail = 1
    while trail < n - lead and np.array_equal(cols[:, n - 1 - trail], cols[:, n - 1]):
        trail += 1
    lo = max(0, lead - LEAD_MARGIN)
    hi = min(n, n - trail + TRAIL_MARGIN)
    return (lo, hi) if hi > lo else (0, n)


QUIET_LEVEL = 0.003
"""Amplitude (-50 dBFS) below which the end of a chunk is its tail, not its speech."""
TAIL_KEEP = int(0.060 * SAMPLE_RATE)
"""Samples of a chunk's quiet tail kept: the last sound's decay; the pause after the chunk
is the front end's (sized by what ends the chunk)."""
TAIL_ZONE = int(1.5 * SAMPLE_RATE)
"""Samples at the end of a chunk inside which quiet is held back as a possible tail (the
tail grows as the speed slows; docs/benchmarks.md has its length)."""


def without_tail(pieces: Iterator[np.ndarray], total: int) -> Iterator[np.ndarray]:
    """``pieces`` of one chunk's audio (``total`` samples in all) without its quiet tail
    beyond TAIL_KEEP samples.

    Kokoro reads every chunk as a whole utterance: it lengthens the last phoneme and ends
    in near-silence, as long after "The last message is" as after a full stop.
    Left in, a sentence split into chunks (the first chunk of every read is short) stops
    mid-phrase for half a second. Quiet at the end of a piece in the last TAIL_ZONE
    samples is held back until a louder piece follows (it was a pause in the speech) or
    the chunk ends (it was the tail)."""
    held: list[np.ndarray] = []
    made = 0
    for piece in pieces:
        made += piece.size
        if made < total - TAIL_ZONE:
            yield piece
            continue
        loud = np.flatnonzero(np.abs(piece) > QUIET_LEVEL)
        if not loud.size:
            held.append(piece)
            continue
        cut = int(loud[-1]) + 1
        yield np.concatenate([*held, piece[:cut]]) if held else piece[:cut]
        held = [piece[cut:]]
    tail = np.concatenate(held)[:TAIL_KEEP] if held else None
    if tail is not None and tail.size:
        yield tail


def clipped(pieces: Iterator[np.ndarray], skip: int, total: int) -> Iterator[np.ndarray]:
    """``pieces`` without their first ``skip`` samples, ending after ``total`` more (the
    pieces' iterator is not asked for more once they are made)."""
    for piece in pieces:
        if skip:
            dropped = min(skip, piece.size)
            piece, skip = piece[dropped:], skip - dropped
        if piece.size >= total:
            if total:
                yield piece[:total]
            return
        total -= piece.size
        if piece.size:
            yield piece


def tail_trimmed(audio: np.ndarray) -> np.ndarray:
    """A whole chunk's audio without its quiet tail beyond TAIL_KEEP samples (as
    `without_tail` streams it)."""
    loud = np.flatnonzero(np.abs(audio) > QUIET_LEVEL)
    return audio[: (int(loud[-1]) + 1 if loud.size else 0) + TAIL_KEEP]


def stream_frames(
    decode: Decode,
    asr: np.ndarray,
    f0: np.ndarray,
    energy: np.ndarray,
    phase: np.ndarray,
    style: np.ndarray,
    plan: WindowPlan,
    frames: tuple[int, int] | None,
    first_frames: int | None,
    budget: Budget,
) -> Generator[np.ndarray, None, None]:
    """Audio of frames [lo, hi) of one chunk (default: all), window by window; the pieces
    concatenated are that stretch of the whole chunk. Frames outside it still serve as
    context. ``first_frames`` overrides the plan's first window size; ``budget`` sizes
    each later window. A consumer that stops iterating stops the decoding."""
    n = asr.shape[2]
    first, last = frames or (0, n)
    made = spans(first, last, plan, first_frames, budget)

    def inputs(a: int, end: int) -> dict[str, np.ndarray]:
        b = min(n, end + plan.context)
        offset = phase[:, 2 * a - 1 : 2 * a, :] if a > 0 else np.zeros((1, 1, phase.shape[2]), np.float32)
        return {
            "asr": np.ascontiguousarray(asr[:, :, a:b]),
            "f0": np.ascontiguousarray(f0[:, 2 * a : 2 * b]),
            "energy": np.ascontiguousarray(energy[:, 2 * a : 2 * b]),
            "style": style,
            "phase_offset": np.ascontiguousarray(offset),
        }

    def decoded() -> Generator[tuple[tuple[int, int], int, np.ndarray], None, None]:
        for span in made:  # each span is chosen just before it is decoded
            a = _left_edge(*span, first, last, plan)
            yield span, a, decode(inputs(a, span[1]))

    fade_in = np.linspace(0.0, 1.0, plan.crossfade + 2, dtype=np.float32)[1:-1]
    tail: np.ndarray | None = None
    outputs = decoded()
    try:
        for span, a, out in outputs:
            piece, tail = _piece(span, a, out.reshape(-1), tail, last, plan, fade_in)
            yield piece
    finally:
        outputs.close()


def _left_edge(start: int, end: int, first: int, last: int, plan: WindowPlan) -> int:
    """The first frame decoded for the window [start, end): its left context. A short last
    window reaches further back, so its instance norms see as much speech as a window of
    half the plan's size, not mostly the trailing silence (closer to a whole-chunk render)."""
    reach = plan.context
    if end == last and start > first:
        reach = max(reach, plan.frames // 2 - (end - start) + plan.context)
    return max(0, start - reach)


def _piece(
    span: tuple[int, int],
    a: int,
    audio: np.ndarray,
    tail: np.ndarray | None,
    last: int,
    plan: WindowPlan,
    fade_in: np.ndarray,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The audio of one window's own frames, blended with the tail held back from the
    previous one; and the tail to hold back from this one (None at the end)."""
    start, end = span
    lo, hi = (start - a) * FRAME_SAMPLES, (end - a) * FRAME_SAMPLES
    piece = audio[lo:hi]
    if tail is not None:
        head = audio[lo - tail.size : lo]
        blended = tail * (1.0 - fade_in) + head * fade_in
        piece = np.concatenate([blended, piece])
    if end < last and plan.crossfade:
        tail = piece[piece.size - plan.crossfade :].copy()
        piece = piece[: piece.size - plan.crossfade]
    else:
        tail = None
    return np.ascontiguousarray(piece, dtype=np.float32), tail
