"""The Kokoro-82M int8 ONNX engine: sessions built by `load()`, warmed explicitly.

The verified model is split in memory at the encoder/decoder boundary (see
``model.split``): part A turns ids into frame features (the synthesiser makes the next
chunk's ahead, see ``synthesis._Lookahead``), part B turns frames into audio.
``synthesize`` runs B once over the whole chunk (the unsplit model's audio, without the
padding's silence); ``stream`` runs B over windows of frames and yields each as soon as it
is ready, so the first audio of a chunk comes after a fraction of its synthesis time (see
``windows``). If the split fails, the whole model is used and ``stream`` yields one piece
per chunk. Session options: ``sessions``; figures: docs/benchmarks.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnxruntime as ort

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.sessions import cached_session, default_threads, make_session
from tray_reader.speech.types import FRAME_SAMPLES, NEUTRAL, SAMPLE_RATE, DecoderKind, Prosody
from tray_reader.speech.windows import (
    QUIET_LEVEL,
    Schedule,
    WindowPlan,
    by_time,
    clipped,
    speech_frames,
    stream_frames,
    tail_trimmed,
    without_tail,
)
from tray_reader.text.types import MAX_PHONEME_IDS

log = logging.getLogger(__name__)

DECODER_ARENA = True
"""The decoder keeps onnxruntime's memory arena: its windows are bounded (see WindowPlan),
so the arena is too, and without it every large tensor of every run was a fresh mmap whose
page faults cost more than the arena's memory. Part A sees whole chunks, so it runs
without the arena. The decoder plans no memory pattern: the arena then holds the tensors
live at once, not one block per window size (less memory at the same speed; the figures
are in docs/benchmarks.md)."""
LEAD_SHARE = 0.5
"""Share of a chunk's lead (audio already queued ahead of it) its first decoder window may
take, by the running estimate of the decoder's speed: the rest is margin for a busy machine."""
WINDOW_SHARE = 0.7
"""The same for each later window of a chunk, sized by the audio queued ahead of it just
before it is decoded: the decoder's speed was measured on the window before, and no part A
runs in between, so less margin is kept (bench_speech "gaps" counts the reads where
playback waited)."""
START_SHARE = 0.8
"""Share of the audio held back at the start of a chunk heard at once that making the rest
may take before that audio is let go (`KokoroEngine.ready_to_start`): on a busy machine the
first window waits for more, so that playback, once begun, does not stop in the first words."""


FIRST_SILENCE_SECONDS = 0.1
"""About the silence a read's first window begins with before its first sound (the hold
counts audio from there; measured in the daemon's reads, docs/benchmarks.md)."""
FIRST_WINDOW_MARGIN = 1.2
"""The speed the first window of a chunk heard at once is sized by, slowed by this: its own
window, which the hold then judges by, runs a little slower or faster than the last (a
frame more costs a few milliseconds; a hold, a whole window)."""
FIRST_WINDOW_GROWTH = 1.5
"""The most the first window of a chunk heard at once grows, as a multiple of the plan's: a
machine that needs more is busy, its speed varies by more than the hold's margin, and the
hold's whole window is the safer start (bench_speech gaps with busy processes beside it,
docs/benchmarks.md)."""


RELEASE_FRAMES = 4
"""Frames of the silent window `release_memory` decodes to shrink the decoder's arena."""


def _bound_heap_growth() -> None:
    """Serve large blocks from mmap and trim the heap eagerly (glibc only).

    Decoder windows and chunks of varying size otherwise fragment glibc's heap: its mmap
    threshold grows after large frees, and RSS climbed with the length of the text read.
    With a fixed 256 KB threshold and 1 MB trim threshold it stays flat (bench_speech rss)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        libc.mallopt(m_mmap_threshold, 256 * 1024)
        libc.mallopt(m_trim_threshold, 1024 * 1024)


def _return_freed_memory() -> None:
    """Give the heap's free pages back to the OS (glibc's ``malloc_trim``, all its arenas):
    after loading (model bytes, graph copies) and after each part A run."""
    # Not glibc: nothing to do, the memory is reused by later allocations instead.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _derived_decoder(threads: int) -> tuple[ort.InferenceSession, DecoderKind] | None:
    """A session of the best derived decoder that is built, checks out and loads, and its
    kind; None keeps the shipped one."""
    from tray_reader.model import derived_decoders

    for derived in derived_decoders():
        try:
            return cached_session(
                derived.sha256,
                derived.path,
                threads,
                arena=DECODER_ARENA,
                library=derived.library,
                pattern=False,
            ), derived.kind
        except Exception as e:  # noqa: BLE001 - whatever onnxruntime objects to, the next one works
            log.warning("%s decoder unusable (%s: %s)", derived.kind.value, type(e).__name__, e)
    return None


@dataclass
class KokoroEngine:
    """Holds the onnxruntime sessions for Kokoro and turns token ids into audio.

    Either ``features`` and ``decoder`` (the split model, streaming) are set, or
    ``session`` (the whole model, one piece per chunk)."""

    session: ort.InferenceSession | None
    threads: int
    features: ort.InferenceSession | None = None
    """Part A: tokens, style, speed -> asr, f0, energy, phase."""
    decoder: ort.InferenceSession | None = None
    """Part B: one window of frames -> audio."""
    plan: WindowPlan = field(default_factory=WindowPlan)
    """How `stream` cuts a chunk into decoder windows."""
    decoder_kind: DecoderKind = DecoderKind.SHIPPED
    """Which part B runs."""
    frame_seconds: float = 0.01
    """Decoder seconds per frame decoded (context included), one window at a time: a
    running estimate."""
    last_frame_seconds: float = 0.0
    """The same, of the last window alone: windows are planned by the slower of the two, so
    a machine that just became busy (a neighbour, the first run after idle) shrinks the next
    window at once instead of over several (a read's second window came late, playback
    waited)."""
    alone_frame_seconds: float = 0.0
    """The same, of the last window no other of this engine's decoder runs overlapped: what
    the first-window hold judges by (`ready_to_start`). A selection prepared while a read
    decodes is slowed by that read, which stops when the prepared text is read ("read now"):
    judged by the shared speed, its first audio was held back for nothing. A neighbour's
    load, which stays, is in both."""
    _runs: int = field(default=0, init=False, repr=False)
    """This engine's decoder runs under way."""
    _begun: int = field(default=0, init=False, repr=False)
    """This engine's decoder runs begun, ever."""
    _runs_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    id_seconds: float = 0.002
    """Part A's seconds per id, of its last run (its fixed cost included): how long the
    next chunk of a read takes before its decoding can begin."""
    schedule: Schedule = by_time
    """Sizes each later window of a chunk from the time left before its audio is due (the
    product's only schedule; a comparison in a test injects one that ignores the time)."""
    load_seconds: float = 0.0
    warm_seconds: float = 0.0
    prosody: Prosody = NEUTRAL
    """The pitch level and range every read is made with now: part A's f0 (and the sine
    source's phase, its running sum) reshaped before part B, timing and timbre kept (split
    model only; see `reshape_pitch`)."""

    envelope: EnvelopeMap | None = None
    """The filter every read's audio goes through now (an enrolled voice's envelope map; see
    speech/envelope.py), None for none. Applied by `stream`, chunk by chunk."""

    def use_prosody(self, prosody: Prosody) -> None:
        """Read from the next chunk on at this pitch level and range."""
        self.prosody = prosody

    def use_envelope(self, envelope: EnvelopeMap | None) -> None:
        """Read from the next chunk on through this envelope map (None: none)."""
        if envelope is not None:
            envelope.warm(SAMPLE_RATE)
        self.envelope = envelope

    @classmethod
    def load(cls, threads: int | None = None, fast: bool = True) -> KokoroEngine:
        """Build the sessions from the verified model bytes, split for streaming (the whole
        model if the split fails). With ``fast``, part B is the best derived decoder that
        is built, passed its quality gate and loads (else the shipped one)."""
        threads = threads or default_threads()
        _bound_heap_growth()
        t0 = time.perf_counter()
        engine = cls._load_split(threads, fast) or cls.load_whole(threads)
        _return_freed_memory()
        engine.load_seconds = time.perf_counter() - t0
        return engine

    @classmethod
    def load_whole(cls, threads: int) -> KokoroEngine:
        """The whole model in one session: one piece per chunk, no windows."""
        session = make_session(model_files.kokoro_model_bytes(), threads)
        return cls(session=session, threads=threads, decoder_kind=DecoderKind.WHOLE)

    @classmethod
    def _load_split(cls, threads: int, fast: bool) -> KokoroEngine | None:
        try:
            from tray_reader.model.split import PINNED_SHA256, SplitModel, cached_split

            # The fast decoder first, the shipped parts after: the model bytes are freed
            # as soon as each session is made, keeping the peak while loading low.
            made = _derived_decoder(threads) if fast else None
            decoder, kind = made if made is not None else (None, DecoderKind.SHIPPED)
            split: list[SplitModel] = []  # read only if an optimised part is not cached

            def parts() -> SplitModel:
                if not split:
                    split.append(cached_split(model_files.kokoro_model_bytes, decoder=decoder is None))
                return split[0]

            # Without the arena, memory used by a long chunk goes back after it (measured:
            # ~125 MB less after a 508-id chunk, no measurable change in speed).
            features = cached_session(
                PINNED_SHA256["features"], lambda: parts().features, threads, arena=False
            )
            if decoder is None:
                decoder = cached_session(
                    PINNED_SHA256["decoder"],
                    lambda: parts().decoder,
                    threads,
                    arena=DECODER_ARENA,
                    pattern=False,
                )
                kind = DecoderKind.SHIPPED
            split.clear()
        except ModelFileError:
            raise
        except Exception as e:  # noqa: BLE001 - any failure here has the same remedy: the whole model
            log.warning(
                "streaming decoder unavailable (%s: %s); synthesising whole chunks", type(e).__name__, e
            )
            return None
        return cls(session=None, threads=threads, features=features, decoder=decoder, decoder_kind=kind)

    @property
    def streaming(self) -> bool:
        """True when `stream` yields audio window by window."""
        return self.decoder is not None

    def warm_up(self, pack: np.ndarray) -> None:
        """Run each session once so the first real request is fast.

        Kept short for the start-up budget: part A on a typical and a short chunk, the
        decoder on the first window only: a second window cost more warm-up than it saved
        the first read (docs/benchmarks.md, "Start-up and memory")."""
        t0 = time.perf_counter()
        if self.features is None:
            self.synthesize(list(range(40, 52)), pack, 1.0)
        else:
            self.features.run(None, self._feeds(list(range(40, 100)), pack, 1.0))
            next(self.stream(list(range(40, 52)), pack, 1.0), None)  # its first window only
        self.warm_seconds = time.perf_counter() - t0

    def release_memory(self) -> None:
        """Give back what reading grew: the decoder's arena (all of it that no run under
        way holds: onnxruntime shrinks an arena only at the end of a run, so a tiny window
        runs with shrinking on) and the heap's free pages. For a reader that has been idle a
        while; the next read grows them again (its first window is small)."""
        if self.decoder is not None and DECODER_ARENA:
            options = ort.RunOptions()
            options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
            sizes = {"frames": RELEASE_FRAMES, "pitch_frames": 2 * RELEASE_FRAMES}
            feeds = {
                i.name: np.zeros([d if isinstance(d, int) else sizes[d] for d in i.shape], np.float32)
                for i in self.decoder.get_inputs()
            }
            self.decoder.run(None, feeds, options)
        _return_freed_memory()

    def _feeds(self, ids: Sequence[int], pack: np.ndarray, speed: float) -> dict[str, np.ndarray]:
        if not 0 < len(ids) <= MAX_PHONEME_IDS:
            raise ValueError(f"a chunk must have 1..{MAX_PHONEME_IDS} ids, got {len(ids)}")
        return {
            "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
            "style": _style(pack, len(ids)),
            "speed": np.array([speed], dtype=np.float32),
        }

    def synthesize(
        self, ids: Sequence[int], pack: np.ndarray, speed: float, prosody: Prosody | None = None
    ) -> np.ndarray:
        """Audio (float32, 24 kHz) for one chunk of phoneme ids (at most MAX_PHONEME_IDS),
        at ``prosody`` (default: the engine's own, see `use_prosody`)."""
        feeds = self._feeds(ids, pack, speed)
        if self.session is not None:
            out = self.session.run(None, feeds)[0]
        else:
            assert self.features is not None and self.decoder is not None
            asr, f0, energy, phase = self.features.run(None, feeds)
            f0, _ = reshape_pitch(f0, phase, prosody or self.prosody)
            offset = np.zeros((1, 1, 9), np.float32)
            out = self.decoder.run(
                None,
                {"asr": asr, "f0": f0, "energy": energy, "style": feeds["style"], "phase_offset": offset},
            )[0]
            lo, hi = speech_frames(asr)
            out = np.asarray(out).reshape(-1)[lo * FRAME_SAMPLES : hi * FRAME_SAMPLES]
        return np.asarray(out, dtype=np.float32).reshape(-1)

    def window_fit(self, lead: float, share: float = LEAD_SHARE) -> int:
        """Frames of its own a decoder window may have to be ready within ``share`` of
        ``lead`` seconds, by the running estimate of the decoder's speed (may be <= 0)."""
        per_frame = max(self.frame_seconds, self.last_frame_seconds)
        return int(lead * share / per_frame) - 2 * self.plan.context

    def start_seconds(self, ids: int) -> float:
        """Seconds a chunk of ``ids`` ids takes to its first piece, heard at once: its part A
        and the plan's first window, at the speeds of their last runs."""
        frames = self.plan.first_frames + 2 * self.plan.context
        return ids * self.id_seconds + frames * self._hold_frame_seconds()

    def _hold_frame_seconds(self) -> float:
        """The decoder's seconds per frame the first-window hold judges by: of the last window
        no other run of ours overlapped (`alone_frame_seconds`), else of the last."""
        return self.alone_frame_seconds or self.last_frame_seconds

    def ready_to_start(self, held: float, rest: int, after: float = 0.0) -> bool:
        """Whether ``held`` seconds of audio, heard from now on, last until the decoder has
        made the chunk's other ``rest`` frames (its next window, and all of them), at the
        plan's least later windows and the speed of the window just made: the machine's load
        now, not the running estimate (`START_SHARE` of the time). ``after``: seconds the
        read's next chunk then takes to its first piece, which the whole chunk's audio is to
        last too."""
        if rest <= 0:
            return after <= START_SHARE * held
        size, context = self.plan.later_frames, 2 * self.plan.context
        per_frame = self._hold_frame_seconds()
        last = rest - size * ((rest - 1) // size)  # own frames of the last window
        next_made = (min(size, rest) + context) * per_frame
        all_made = (rest + context * -(-rest // size)) * per_frame
        before_last = held + (rest - last) * FRAME_SAMPLES / SAMPLE_RATE
        whole = held + rest * FRAME_SAMPLES / SAMPLE_RATE
        return (
            next_made <= START_SHARE * held
            and all_made <= START_SHARE * before_last
            and all_made + after <= START_SHARE * whole
        )

    def first_window(self, lead: float) -> int | None:
        """Frames in the first decoder window of a chunk whose audio is due ``lead`` seconds
        from now. Due at once: the plan's small first window, or on a machine too slow for it
        (`heard_first_frames`) a larger one. Otherwise as large as the decoder surely makes
        in time (up to the plan's window size): fewer, larger windows pay less for their
        context frames."""
        if lead <= 0:
            # A schedule that ignores the time (a test's: the same windows every run) keeps
            # the plan's first window too.
            return self.heard_first_frames() if self.schedule is by_time else None
        return max(self.plan.first_frames, min(self.plan.frames, self.window_fit(lead)))

    def heard_first_frames(self) -> int | None:
        """Frames in the first window of a chunk heard at once: the plan's (None), unless, at
        the speed the first-window hold judges by, the next window would take longer to make
        than START_SHARE of the plan's first window's audio lasts (its first sound on). The
        hold would then keep that audio back until the next window is made too (a whole
        window later); a first window just large enough costs a few frames' time instead
        (docs/benchmarks.md), up to FIRST_WINDOW_GROWTH times the plan's. The hold still judges
        it, by the speed it was made at."""
        per_frame = self._hold_frame_seconds()
        next_made = (self.plan.later_frames + 2 * self.plan.context) * per_frame * FIRST_WINDOW_MARGIN
        seconds = next_made / START_SHARE + FIRST_SILENCE_SECONDS
        frames = -int(-seconds * SAMPLE_RATE // FRAME_SAMPLES)
        if frames <= self.plan.first_frames:
            return None
        return min(self.plan.frames, int(self.plan.first_frames * FIRST_WINDOW_GROWTH), frames)

    def part_a(
        self, ids: Sequence[int], pack: np.ndarray, speed: float, run_options: ort.RunOptions | None = None
    ) -> PartA | None:
        """Part A's outputs for one chunk, for a later `stream` of it (None when the model is
        not split). ``run_options.terminate`` stops it early (onnxruntime then raises)."""
        if self.features is None or self.decoder is None:
            return None
        feeds = self._feeds(ids, pack, speed)
        t0 = time.perf_counter()
        asr, f0, energy, phase = self.features.run(None, feeds, run_options)
        self.id_seconds = (time.perf_counter() - t0) / len(ids)
        # Part A runs without the arena: its temporaries were small blocks of this
        # thread's malloc arena, which kept their pages; hand them back (about a millisecond).
        _return_freed_memory()
        return PartA(tuple(ids), speed, asr, f0, energy, phase, feeds["style"])

    def stream(
        self,
        ids: Sequence[int],
        pack: np.ndarray,
        speed: float,
        lead: float = 0.0,
        part_a: PartA | None = None,
        run_options: ort.RunOptions | None = None,
        start: int | None = None,
        end: int | None = None,
        after: float = 0.0,
    ) -> Iterator[np.ndarray]:
        """Audio for one chunk, yielded in pieces as they are made (24 kHz float32).

        ``start``/``end``: the samples [start, end) of the chunk's frames (FRAME_SAMPLES
        each, from its first frame) to make instead of its speech from the start / to its
        last sound (a chunk spliced into the one before / the one after; the split model only).

        ``lead``: seconds of audio already queued ahead of this chunk (0: it is heard at
        once), which lets the decoder use larger windows. ``part_a``: this chunk's part A,
        made ahead (see `part_a`; made here when None or made for another voice or
        speed). The work is done lazily: a consumer that stops iterating (cancellation)
        stops the decoding before the next window; ``run_options.terminate`` stops the run
        under way (onnxruntime then raises). ``after``: for a chunk heard at once, seconds the
        read's next chunk takes to its first piece (`ready_to_start`)."""
        envelope = self.envelope
        if envelope is not None:
            yield from envelope.pieces(
                self._stream(ids, pack, speed, lead, part_a, run_options, start, end, after), SAMPLE_RATE
            )
        else:
            yield from self._stream(ids, pack, speed, lead, part_a, run_options, start, end, after)

    def _stream(
        self,
        ids: Sequence[int],
        pack: np.ndarray,
        speed: float,
        lead: float,
        part_a: PartA | None,
        run_options: ort.RunOptions | None,
        start: int | None,
        end: int | None,
        after: float,
    ) -> Iterator[np.ndarray]:
        if self.decoder is None or self.features is None:
            yield tail_trimmed(self.synthesize(ids, pack, speed))
            return
        called = time.perf_counter()
        if part_a is None or not part_a.made_for(ids, pack, speed):
            part_a = self.part_a(ids, pack, speed, run_options)
            assert part_a is not None
        asr, energy = part_a.asr, part_a.energy
        f0, phase = reshape_pitch(part_a.f0, part_a.phase, self.prosody)
        decoder = self.decoder

        def timed(window: dict[str, np.ndarray]) -> np.ndarray:
            with self._runs_lock:
                self._runs += 1
                self._begun += 1
                begun, shared = self._begun, self._runs > 1
            t0 = time.perf_counter()
            try:
                audio: np.ndarray = decoder.run(None, window, run_options)[0]
            finally:
                with self._runs_lock:
                    self._runs -= 1
                    shared = shared or self._begun != begun  # another began meanwhile
            spent = (time.perf_counter() - t0) / window["asr"].shape[2]
            self.frame_seconds = 0.7 * self.frame_seconds + 0.3 * spent
            self.last_frame_seconds = spent
            if not shared:
                self.alone_frame_seconds = spent
            return audio

        lo, hi = speech_frames(asr)
        n = asr.shape[2]
        if start is not None:
            lo = min(max(0, start // FRAME_SAMPLES), n - 1)
        if end is not None:
            hi = max(lo + 1, min(n, -(-end // FRAME_SAMPLES)))
        frames = lo, hi
        # The lead was measured when this was called: part A, if it ran here, used some.
        # When the audio queued ahead runs out, assuming it plays as it is yielded (from the
        # first piece on, when nothing is queued yet): each later window is sized to be
        # ready before then, so playback never waits in the middle of a chunk.
        runs_out = called + lead if lead > 0 else None
        first = self.first_window(lead - (time.perf_counter() - called) if lead > 0 else 0.0)
        if start is not None:
            # Begun inside the speech (a chunk spliced into the one before): its first window
            # is one in the middle of speech, held to the later windows' least size.
            first = max(first or 0, self.plan.later_frames)

        def budget() -> int:
            return self.window_fit(0.0 if runs_out is None else runs_out - time.perf_counter(), WINDOW_SHARE)

        pieces = stream_frames(
            timed, asr, f0, energy, phase, part_a.style, self.plan, frames, first, self.schedule(budget)
        )
        if start is not None or end is not None:
            skip = 0 if start is None else max(0, start - lo * FRAME_SAMPLES)
            total = (hi * FRAME_SAMPLES if end is None else end) - lo * FRAME_SAMPLES - skip
            made = clipped(pieces, skip, total)
            if end is None:
                made = without_tail(made, total)
        else:
            made = without_tail(pieces, (hi - lo) * FRAME_SAMPLES)
        # Heard at once (nothing queued ahead): the audio is held back until it lasts while
        # the next window, the rest and the read's next chunk (`after`) are made, so a busy
        # machine starts later rather than stopping after the first window (while held,
        # later windows are the least size: no lead).
        # Only the audio from its first sound counts: the silence before it is cut (a read's
        # first chunk) or short.
        hold = lead <= 0
        held: list[np.ndarray] = []
        owed = (frames[1] - frames[0]) * FRAME_SAMPLES  # samples of the chunk not yet made
        sounding: int | None = None  # samples held from the first sound on
        try:
            for piece in made:
                held.append(piece)
                owed -= piece.size
                if sounding is None:
                    loud = np.flatnonzero(np.abs(piece) > QUIET_LEVEL)
                    sounding = piece.size - int(loud[0]) if loud.size else None
                elif hold:
                    sounding += piece.size
                held_seconds = (sounding or 0) / SAMPLE_RATE
                if hold and not self.ready_to_start(held_seconds, owed // FRAME_SAMPLES, after):
                    continue
                hold = False
                while held:
                    out = held.pop(0)
                    now = time.perf_counter()
                    runs_out = max(now, runs_out or now) + out.size / SAMPLE_RATE
                    yield out
            yield from held  # the chunk ended while held
        finally:
            pieces.close()  # a consumer that stops early stops the decoding


@dataclass(frozen=True)
class PartA:
    """Part A's outputs for one chunk (see `KokoroEngine.part_a`)."""

    ids: tuple[int, ...]
    speed: float
    asr: np.ndarray
    f0: np.ndarray
    energy: np.ndarray
    phase: np.ndarray
    style: np.ndarray
    """The voice pack's row for a chunk of this length: it identifies the voice."""

    def made_for(self, ids: Sequence[int], pack: np.ndarray, speed: float) -> bool:
        """Whether these are the outputs for ``ids`` in this voice and speed."""
        if tuple(ids) != self.ids or speed != self.speed or len(ids) >= len(pack):
            return False
        return bool(np.array_equal(_style(pack, len(ids)), self.style))


VOICED_HZ = 10.0
"""Part A's f0 above this is voiced (Kokoro's sine source uses the same threshold)."""


def reshape_pitch(f0: np.ndarray, phase: np.ndarray, prosody: Prosody) -> tuple[np.ndarray, np.ndarray]:
    """Part A's f0 [1, 2F] and the sine source's running phase [1, 2F, 9] at ``prosody``.

    The range moves each voiced value's log-f0 about the chunk's voiced median, then the
    level scales it all. The phase is a running sum of f0 (times each harmonic): each of
    its steps is scaled as the f0 value it was summed from was, so windows of part B still
    join."""
    if prosody.spread == 1.0:
        if prosody.pitch == 1.0:
            return f0, phase
        scale = np.float32(prosody.pitch)
        return f0 * scale, phase * scale
    voiced = f0 > VOICED_HZ
    if not voiced.any():
        return f0 * np.float32(prosody.pitch), phase * np.float32(prosody.pitch)
    log_f0 = np.log(np.where(voiced, f0, 1.0))
    centre = float(np.median(log_f0[voiced]))
    shaped = np.where(voiced, np.exp(centre + prosody.spread * (log_f0 - centre)), f0) * prosody.pitch
    ratio = np.where(voiced, shaped / np.where(voiced, f0, 1.0), prosody.pitch)
    steps = np.diff(phase, axis=1, prepend=np.zeros_like(phase[:, :1]))
    new_phase = np.cumsum(steps * ratio[..., None], axis=1)
    return shaped.astype(np.float32), new_phase.astype(np.float32)


def _style(pack: np.ndarray, n_ids: int) -> np.ndarray:
    """The style vector a chunk of ``n_ids`` phoneme ids is read with: the pack's row for
    its length (Kokoro's voice packs hold one per length)."""
    return np.ascontiguousarray(pack[n_ids], dtype=np.float32).reshape(1, 256)
