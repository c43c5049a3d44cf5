"""Streaming synthesis: text in, 24 kHz audio chunks out, as each is made."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field, replace

import numpy as np
import onnxruntime as ort

from tray_reader.speech.engine import KokoroEngine, PartA
from tray_reader.speech.timings import WordTiming, token_frames, word_sound_starts, word_timings
from tray_reader.speech.types import FRAME_SAMPLES, NEUTRAL, SAMPLE_RATE, AudioChunk, Prosody, VoiceSource
from tray_reader.speech.windows import speech_frames
from tray_reader.text.frontend import CHUNK_GROWTH, MAX_CHUNK_IDS, PAUSES, TextFrontEnd
from tray_reader.text.sentences import Boundary
from tray_reader.text.types import TextChunk

log = logging.getLogger(__name__)

EDGE_FADE = int(0.005 * SAMPLE_RATE)
"""Samples faded in at the start and out at the end of every chunk, so joins never click."""

_FADE_IN = np.sin(np.linspace(0.0, np.pi / 2, EDGE_FADE, dtype=np.float32)) ** 2
_FADE_OUT = _FADE_IN[::-1].copy()


SPLICE_FADE = int(0.020 * SAMPLE_RATE)
"""Samples over which a chunk that handed its last words over (`TextChunk.handover`) fades
out under the start of the next one, which fades in: two renders of the same words, joined
where a word begins."""

_SPLICE_IN = np.sin(np.linspace(0.0, np.pi / 2, SPLICE_FADE, dtype=np.float32)) ** 2
_SPLICE_OUT = _SPLICE_IN[::-1].copy()  # the two sum to one

MIN_KEPT = 0.35
"""Seconds a chunk still says before the words it hands over; with less, it hands over
fewer (the next chunk is made while it plays: part A and its first window)."""


@dataclass
class Join:
    """How a chunk of a read ended, for the next one: which of its last words it handed
    over (see `TextChunk.handover`) and its faded-out last samples."""

    handed: int = 0
    """Words handed over (0: it said all its words)."""
    tail: np.ndarray | None = None
    """Its last SPLICE_FADE samples, faded out, to be laid under the next chunk's first."""


def faded_pieces(
    pieces: Iterator[np.ndarray], under: np.ndarray | None = None, hand: Join | None = None
) -> Iterator[np.ndarray]:
    """Pass pieces of one chunk through, fading in its first samples and out its last.

    ``under``: the faded-out tail of the chunk before, which handed its last words over to
    this one: laid under this chunk's first samples, which fade in over its length.
    ``hand``: this chunk hands its last words over: its last SPLICE_FADE samples, faded
    out, go to ``hand.tail`` instead of being yielded.

    The end of a chunk is only known when its generator stops, so its last samples are
    held back (5 ms of extra latency, not a whole piece)."""
    hold = SPLICE_FADE if hand is not None else EDGE_FADE
    held = np.zeros(0, np.float32)
    first = True
    for piece in pieces:
        audio = np.concatenate([held, np.asarray(piece, np.float32)])
        if first and audio.size:
            if under is None:
                n = min(EDGE_FADE, audio.size)
                audio[:n] *= _FADE_IN[:n]
            else:
                n = min(under.size, audio.size)
                audio[:n] = audio[:n] * _SPLICE_IN[SPLICE_FADE - under.size :][:n] + under[:n]
            first = False
        held = audio[-hold:].copy()
        if audio.size > hold:
            yield audio[:-hold]
    if held.size and hand is not None:
        hand.tail = held * _SPLICE_OUT[-held.size :]
    elif held.size:
        held *= _FADE_OUT[-held.size :]
        yield held


LEAD_IN_LEVEL = 0.003
"""Amplitude (-50 dBFS) below which the samples before a read's first sound are silence."""
LEAD_IN_KEEP = int(0.010 * SAMPLE_RATE)
"""Samples kept before a read's first sound, so its onset (a breath, an /h/) is never cut."""


RUN_ON_PAUSE = PAUSES[Boundary.PHRASE]
"""A chunk whose pause after is at most this was cut inside a phrase: the next one runs on
from it, without its lead-in."""


def _runs_on(chunk: TextChunk) -> bool:
    """Whether the chunk after ``chunk`` continues its phrase (cut inside it, or handed words)."""
    return chunk.pause_after <= RUN_ON_PAUSE or chunk.handover > 0


def _goes_on(chunk: TextChunk, text: str) -> bool:
    """Whether a read of ``text`` has more to say after ``chunk`` (by its words' or its
    sentence's place in the text; a chunk cut inside a sentence always has)."""
    if chunk.handover:
        return True
    end = chunk.words[-1][1] if chunk.words else chunk.sentence_span[1] if chunk.sentence_span else None
    return end is None or any(c.isalnum() for c in text[end:])


def without_lead_in(piece: AudioChunk) -> AudioChunk:
    """A chunk's first piece without the silence before its first sound (the model starts
    each chunk a little before it): for the first chunk of a read, that is only latency; for
    a chunk that continues a phrase, a gap inside it. The cut is faded in and the words'
    timings move with it."""
    audio = piece.samples
    loud = np.flatnonzero(np.abs(audio) > LEAD_IN_LEVEL)
    if not loud.size or loud[0] <= LEAD_IN_KEEP:
        return piece
    cut = int(loud[0]) - LEAD_IN_KEEP
    samples = audio[cut:].copy()
    n = min(EDGE_FADE, samples.size)
    samples[:n] *= _FADE_IN[:n]
    words = tuple(replace(w, start=max(0, w.start - cut), end=max(0, w.end - cut)) for w in piece.words)
    return replace(piece, samples=samples, words=words)


def chunk_timings(
    part_a: PartA | None,
    ids: list[int],
    words: tuple[tuple[int, int], ...],
    vocab: dict[str, int],
    start: int | None = None,
) -> tuple[WordTiming, ...]:
    """The words' timings in the audio `KokoroEngine.stream` makes from ``part_a`` (it
    starts at the first frame `speech_frames` keeps, or at sample ``start`` of the chunk's
    frames); none without the split model, whose durations are not seen."""
    if part_a is None or not words:
        return ()
    timings = word_timings(ids, token_frames(part_a.asr), 0, words, vocab)
    first = speech_frames(part_a.asr)[0] * FRAME_SAMPLES if start is None else start
    return tuple(replace(w, start=max(0, w.start - first), end=max(0, w.end - first)) for w in timings)


def fixed_voice(pack: np.ndarray, speed: float = 1.0) -> VoiceSource:
    return lambda: (pack, speed)


def _set_event() -> threading.Event:
    event = threading.Event()
    event.set()
    return event


@dataclass
class Prepared:
    """The first chunk of a text, synthesised (or being synthesised) before anyone asked to
    hear it."""

    text: str
    pack: np.ndarray
    speed: float
    chunks: int
    """How many of the front end's chunks of ``text`` ``pieces`` and ``rest`` cover."""
    pieces: list[AudioChunk]
    """The audio made so far."""
    rest: Iterator[AudioChunk] | None = None
    """What makes the remaining pieces, while the chunk is unfinished (a read came while it
    was being prepared); None once ``pieces`` is the whole chunk."""
    free: threading.Event = field(default_factory=_set_event)
    """Clear while a preparation makes pieces on its own thread: a read that plays them
    meanwhile takes ``rest`` over only once it is set again."""
    prosody: Prosody = NEUTRAL
    """The engine's pitch level and range the audio was made with (the voice's own,
    times speech-dispatcher's pitch)."""
    run_on: bool = False
    """The chunk was cut inside a phrase: the next one runs on from it (RUN_ON_PAUSE)."""
    first_chars: int | None = None
    """The front end's first-chunk budget it was cut with (a read goes on with the same cuts)."""
    join: Join = field(default_factory=Join)
    """How the chunk ended (set once it is whole): the words it handed to the next."""

    def matches(self, text: str, pack: np.ndarray, speed: float, prosody: Prosody = NEUTRAL) -> bool:
        """Whether this is the audio of ``text`` in this voice, speed, pitch and range."""
        return (
            text == self.text
            and speed == self.speed
            and prosody == self.prosody
            and (pack is self.pack or (pack.shape == self.pack.shape and np.array_equal(pack, self.pack)))
        )

    def make(self) -> bool:
        """Make the next piece (by whoever holds ``rest``); False once the chunk is whole."""
        piece = None if self.rest is None else next(self.rest, None)
        if piece is None:
            self.rest = None
            return False
        self.pieces.append(piece)
        return True

    def replay(self) -> Iterator[AudioChunk]:
        """Every piece of the chunk: those made, then the rest as it is made (and kept, so a
        consumer that stops early leaves the chunk whole for the next). While a preparation
        is still making pieces, each is played as it comes."""
        i = 0
        while True:
            if i < len(self.pieces):
                yield self.pieces[i]
                i += 1
            elif not self.free.is_set():
                self.free.wait(CANCEL_POLL)
            elif not self.make() and i >= len(self.pieces):
                return


AHEAD_LEAD = 1.0
"""Seconds of audio queued ahead from which a read's next chunk is made on another thread
while the current one is decoded. Started earlier (at each chunk's first piece), the work
ahead slowed the windows a cold read's first seconds depend on."""

YIELD_LEAD = 3.0
"""Seconds of audio queued ahead from which a read waits while a preparation runs (a
selection made while reading): its first words are wanted soon, the read's are not. Without
it, the read making audio 30 s ahead took the cores from it (first piece 0.68 s after the
key for "read now" on a busy machine)."""

CANCEL_POLL = 0.01
"""Seconds between looks at a read's cancel flag while it waits for its next chunk."""

Ahead = tuple[TextChunk, list[int], PartA | None]
"""A chunk to read next, its ids, and its part A if it was made ahead."""


class _Lookahead:
    """Makes the next chunk of a read (the front end's work and the model's part A) on
    another thread while the current one is decoded.

    Part A uses a second thread poorly, and part of each decoder window runs on one core
    (its elementwise kernels), so the other core has room for it: the next chunk starts
    decoding without first spending part A's time."""

    def __init__(
        self,
        engine: KokoroEngine,
        source: Iterator[tuple[TextChunk, list[int]]],
        pool: ThreadPoolExecutor,
    ) -> None:
        self._engine = engine
        self._source = source
        self._pool = pool
        self._future: Future[Ahead | None] | None = None
        self._options: ort.RunOptions | None = None

    def start(self, pack: np.ndarray, speed: float) -> None:
        """Begin making the next chunk (for this voice and speed), unless already begun."""
        if self._future is not None:
            return
        options = self._options = ort.RunOptions()
        self._future = self._pool.submit(self._make, pack, speed, options)

    def _make(self, pack: np.ndarray, speed: float, options: ort.RunOptions) -> Ahead | None:
        item = next(self._source, None)
        if item is None:
            return None
        chunk, ids = item
        if options.terminate:
            return chunk, ids, None
        try:
            return chunk, ids, self._engine.part_a(ids, pack, speed, options)
        except Exception:
            if options.terminate:  # stopped by `close`
                return chunk, ids, None
            raise

    def take(self, cancel: threading.Event) -> Ahead | None:
        """The next chunk (None at the end, or once ``cancel`` is set while it is being
        made ahead): the one made ahead, or made now."""
        future = self._future
        if future is None:
            item = next(self._source, None)
            return None if item is None else (*item, None)
        while True:
            try:
                made = future.result(timeout=CANCEL_POLL)
            except FutureTimeout:  # (the builtin TimeoutError only from Python 3.11)
                if cancel.is_set():
                    self.close()
                    return None
                continue
            self._future = None
            return made

    def close(self) -> None:
        """Stop the work ahead, and wait for it: the front end is not shared between threads."""
        future, self._future = self._future, None
        if future is None:
            return
        if self._options is not None:
            self._options.terminate = True
        try:
            future.result()
        except Exception:  # noqa: BLE001 - the read is over; its next chunk does not matter
            log.debug("work ahead failed after the read ended", exc_info=True)


PREPARED_FIRST_CHARS = 100
"""First-chunk budget of a preparation (made before the key is pressed): most first
sentences whole. A read's own first chunk stays short (FIRST_CHUNK_CHARS: part A grows with
the chunk and a cold press waits for it), but a sentence cut short ends as an utterance, its
pitch falling mid-phrase."""

PREPARED_SECONDS = 2.0
"""Seconds of audio a preparation makes ahead; the read makes the rest of the chunk as it
plays (most selections are never read)."""

MAX_PREPARED_CHARS = 100_000
"""Longer texts are not prepared: chunking them twice costs more than the first chunk saves."""


def _turns(chunks: Iterable[TextChunk], lock: threading.Lock) -> Iterator[TextChunk]:
    """``chunks``, each made while holding ``lock``."""
    items = iter(chunks)
    while True:
        with lock:
            item = next(items, None)
        if item is None:
            return
        yield item


class Synthesizer:
    """Joins the text front end and the engine into one audio stream per request."""

    def __init__(self, frontend: TextFrontEnd, engine: KokoroEngine) -> None:
        self.frontend = frontend
        self.engine = engine
        self.prepared: Prepared | None = None
        """The text prepared last (kept until another is prepared: a text read twice is
        prepared for both)."""
        self.served_prepared = False
        """Whether the last `stream` began with prepared audio."""
        self._pool: ThreadPoolExecutor | None = None
        """The thread that makes a read's next chunk ahead."""
        self._preparing = threading.Event()
        """Set while `prepare` runs (on the worker's preparing thread)."""
        self._reading: ort.RunOptions | None = None
        """The run options of the read under way's later chunks (see `interrupt`)."""
        self.splice = True
        """Whether a sentence cut into chunks is spliced (`TextFrontEnd.chunks`); the
        speech-dispatcher module turns it off (docs/benchmarks.md)."""
        self._frontend_lock = threading.Lock()
        """The front end is not shared between threads: a read, the chunk it makes ahead
        and a preparation (on the worker's preparing thread) take turns."""

    @property
    def prepared_text(self) -> str | None:
        """The text whose first chunk is kept (prepared, or read last)."""
        prepared = self.prepared
        return None if prepared is None else prepared.text

    def interrupt(self) -> None:
        """Stop the model run of the read under way now (any thread): a read stopped for
        "read now" otherwise ends only after the decoder window it is in (up to ~1 s on a
        busy machine). The chunk kept for the next read (the first) is left to finish."""
        options = self._reading
        if options is not None:
            options.terminate = True

    def release_memory(self) -> None:
        """Give back the memory reading grew (the engine's; see `KokoroEngine.release_memory`)."""
        release = getattr(self.engine, "release_memory", None)
        if release is not None:
            release()

    def _prosody(self) -> Prosody:
        """The engine's pitch level and range now (engines without them read at neither)."""
        prosody = getattr(self.engine, "prosody", NEUTRAL)
        return prosody if isinstance(prosody, Prosody) else NEUTRAL

    def prepare(
        self,
        text: str,
        voice: VoiceSource,
        cancel: threading.Event | None = None,
        hurry: threading.Event | None = None,
    ) -> bool:
        """Synthesise the first chunk of ``text`` now, so that a later `stream` of the same
        text, voice and speed starts without waiting for the model. Stops (False, nothing
        kept) once ``cancel`` is set. True when the first chunk's first PREPARED_SECONDS
        (or all of it) are ready, or, once ``hurry`` is set (a read of this text is waiting),
        as soon as its first piece is: the read then plays what is ready while the rest of
        the chunk is made."""
        cancel = cancel or threading.Event()
        hurry = hurry or threading.Event()
        if len(text) > MAX_PREPARED_CHARS:
            return False
        pack, speed = voice()
        if self.prepared is not None and self.prepared.matches(text, pack, speed, self._prosody()):
            return True
        self._preparing.set()
        try:
            prepared = self._first_chunk(text, pack, speed, PREPARED_FIRST_CHARS)
            if prepared is None:
                return False
            previous, prepared.free = self.prepared, threading.Event()
            # Visible at once: a read of this text plays each piece as it is made here.
            self.prepared = prepared
            try:
                while prepared.make():
                    if cancel.is_set():
                        if self.prepared is prepared:
                            self.prepared = previous
                        return False
                    if hurry.is_set():
                        break  # the read makes the rest, each window as its lead allows
                    if sum(p.samples.size for p in prepared.pieces) >= PREPARED_SECONDS * SAMPLE_RATE:
                        break  # enough to start on; the read makes the rest (most selections are never read)
            finally:
                prepared.free.set()
            self.prepared = prepared  # the selection's, over what a read kept meanwhile
            return True
        finally:
            self._preparing.clear()

    def _first_chunk(
        self, text: str, pack: np.ndarray, speed: float, first_chars: int | None = None
    ) -> Prepared | None:
        """The first chunk of ``text`` that has ids, cut with ``first_chars`` (the front
        end's budget), to be made (None: there is none).

        Its windows are those of a chunk heard at once (lead 0), as a read has them: the
        first piece comes as early as possible, and a read that comes before the chunk is
        done never waits for a large window."""
        chunks = _turns(
            self.frontend.chunks(text, first_chars=first_chars, splice=self.splice), self._frontend_lock
        )
        for index, chunk in enumerate(chunks):
            with self._frontend_lock:
                ids = self.frontend.ids(chunk.phonemes)
            if ids:
                join = Join()
                after = 0.0
                if _goes_on(chunk, text):
                    # The next chunk is about twice as long; a pause after this one is heard first.
                    next_ids = min(CHUNK_GROWTH * len(ids), MAX_CHUNK_IDS)
                    after = max(0.0, self.engine.start_seconds(next_ids) - chunk.pause_after / speed)
                audio = self._chunk_audio(chunk, ids, pack, speed, 0.0, text=text, join=join, after=after)
                run_on = _runs_on(chunk)
                return Prepared(
                    text,
                    pack,
                    speed,
                    index + 1,
                    [],
                    audio,
                    prosody=self._prosody(),
                    run_on=run_on,
                    first_chars=first_chars,
                    join=join,
                )
        return None

    def _chunk_audio(
        self,
        chunk: TextChunk,
        ids: list[int],
        pack: np.ndarray,
        speed: float,
        lead: float,
        part_a: PartA | None = None,
        text: str | None = None,
        run_options: ort.RunOptions | None = None,
        join: Join | None = None,
        lead_in: bool = False,
        after: float = 0.0,
    ) -> Iterator[AudioChunk]:
        """One chunk's audio, piece by piece (edges faded), then the pause after it. The
        first piece carries the words' timings (and ``text``: the first chunk of a read
        brings the read's text).

        ``join``: how the chunk before ended, replaced by how this one ends. A chunk with
        `TextChunk.context` begins where the first word it says begins (the chunk before
        said the rest), laid over that chunk's faded-out tail; one with a `handover` ends
        where the words it hands over begin, if it still says MIN_KEPT seconds before them
        (no pause then). ``lead_in``: cut the silence before its first sound (a read's first
        chunk, or one running on from the chunk before). ``after``: seconds the read's next
        chunk takes to its first piece (see `KokoroEngine.ready_to_start`)."""
        join = join if join is not None else Join()
        handed, under = join.handed, join.tail
        join.handed, join.tail = 0, None
        words: tuple[WordTiming, ...] = ()
        sounds: list[int] | None = None
        if chunk.words or chunk.context or chunk.handover:
            if part_a is None or not part_a.made_for(ids, pack, speed):
                part_a = self.engine.part_a(ids, pack, speed, run_options)
            if part_a is not None and (chunk.context or chunk.handover):
                sounds = word_sound_starts(ids, part_a.asr, self.frontend.vocab)
                sounds = sounds if sounds is not None and len(sounds) == len(chunk.words) else None
        first, last = 0, len(chunk.words)
        start = end = None
        if sounds is not None and chunk.context:
            first = chunk.context - min(handed, chunk.context)
            start = max(0, sounds[first] * FRAME_SAMPLES - (SPLICE_FADE // 2 if under is not None else 0))
        elif chunk.context:
            log.debug("no word timings for a chunk continuing a sentence: its context is heard")
        hand = None
        if sounds is not None and part_a is not None and chunk.handover:
            begins = start if start is not None else speech_frames(part_a.asr)[0] * FRAME_SAMPLES
            for count in range(min(chunk.handover, last - first - 1), 0, -1):
                boundary = sounds[last - count] * FRAME_SAMPLES
                if boundary - begins >= MIN_KEPT * SAMPLE_RATE:
                    hand, last, end = Join(count), last - count, boundary + SPLICE_FADE // 2
                    break
        if chunk.words:
            timed = chunk_timings(part_a, ids, chunk.words, self.frontend.vocab, start)
            words = timed[first:last] if sounds is not None else timed
        if under is not None and start is None:
            # The chunk before handed words over, but this one cannot start inside its own:
            # its faded-out tail ends the chunk before.
            yield AudioChunk(under, chunk.sentence, sentence_span=chunk.sentence_span)
            under = None
        span = chunk.sentence_span
        made = self.engine.stream(
            ids, pack, speed, lead, part_a, run_options, start=start, end=end, after=after
        )
        for piece in faded_pieces(made, under, hand):
            out = AudioChunk(piece, chunk.sentence, words=words, sentence_span=span, text=text)
            if lead_in and start is None:
                out = without_lead_in(out)
            lead_in = False
            yield out
            words, text = (), None
        if hand is not None:
            join.handed, join.tail = hand.handed, hand.tail
            return
        pause = np.zeros(int(chunk.pause_after / speed * SAMPLE_RATE), dtype=np.float32)
        yield AudioChunk(pause, chunk.sentence, sentence_span=span, text=text)

    def _readable(
        self, text: str, skip: int, first_chars: int | None = None
    ) -> Iterator[tuple[TextChunk, list[int]]]:
        """The chunks of ``text`` (cut with ``first_chars``) after the first ``skip``, with
        their ids (none empty)."""
        chunks = self.frontend.chunks(text, first_chars=first_chars, splice=self.splice)
        for index, chunk in enumerate(_turns(chunks, self._frontend_lock)):
            if index < skip:
                continue
            with self._frontend_lock:
                ids = self.frontend.ids(chunk.phonemes)
            if ids:
                yield chunk, ids

    def _ahead_pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="tray-reader-ahead")
        return self._pool

    def stream(
        self, text: str, voice: VoiceSource, cancel: threading.Event | None = None, keep: bool = True
    ) -> Iterator[AudioChunk]:
        """Audio for `text`, chunk by chunk; stops before the next piece once `cancel` is set.
        ``keep``: keep its first chunk for a later read of the same text (not a document's
        later part, never read alone: the prepared selection stays).

        Assumes what it yields is played at once, in real time: the audio yielded minus the
        time since the first piece is the lead the engine has for the next chunk. Once
        AHEAD_LEAD seconds are queued, the next chunk is made ready on another thread
        (`_Lookahead`)."""
        cancel = cancel or threading.Event()
        started: float | None = None
        samples = 0
        prepared = self.prepared
        self.served_prepared = prepared is not None and prepared.matches(text, *voice(), self._prosody())
        if not self.served_prepared and len(text) <= MAX_PREPARED_CHARS:
            # Made as a preparation would make it, and kept (unless a selection is being
            # prepared): the same text read again starts with this chunk's audio.
            prepared = self._first_chunk(text, *voice())
            if prepared is not None and keep and not self._preparing.is_set():
                self.prepared = prepared
        else:
            prepared = prepared if self.served_prepared else None
        skip = prepared.chunks if prepared is not None else 0
        first_chars = prepared.first_chars if prepared is not None else None
        pool = self._ahead_pool()
        ahead = _Lookahead(self.engine, self._readable(text, skip, first_chars), pool)
        options = self._reading = ort.RunOptions()
        join = Join()

        def queued() -> float:
            """Seconds of audio yielded and not yet played (0 before the first piece)."""
            return 0.0 if started is None else samples / SAMPLE_RATE - (time.perf_counter() - started)

        def give_way() -> None:
            """Far ahead of playback: let a preparation that runs have the cores."""
            while self._preparing.is_set() and queued() > YIELD_LEAD and not cancel.is_set():
                time.sleep(CANCEL_POLL)

        try:
            if prepared is not None:
                pack, speed = prepared.pack, prepared.speed
                for ready in prepared.replay():
                    if cancel.is_set():
                        return
                    if started is None:
                        ready = without_lead_in(ready)
                    started = started or time.perf_counter()
                    samples += ready.samples.size
                    if queued() >= AHEAD_LEAD:
                        ahead.start(pack, speed)
                    yield ready
                join = Join(prepared.join.handed, prepared.join.tail)
            # The read's first piece brings its text (a prepared first chunk has it already).
            first_text: str | None = None if prepared is not None else text
            run_on = prepared is not None and prepared.run_on
            while not cancel.is_set() and (item := ahead.take(cancel)) is not None:
                chunk, ids, part_a = item
                pack, speed = voice()
                chunk_text, first_text = first_text, None
                lead_in = started is None or run_on
                for piece in self._chunk_audio(
                    chunk, ids, pack, speed, queued(), part_a, chunk_text, options, join, lead_in
                ):
                    give_way()
                    if cancel.is_set():
                        return
                    started = started or time.perf_counter()
                    samples += piece.samples.size
                    if queued() >= AHEAD_LEAD:
                        ahead.start(pack, speed)  # once per chunk
                    yield piece
                run_on = _runs_on(chunk)
        except Exception:
            if options.terminate:
                return  # interrupted: the read was stopped
            raise
        finally:
            if self._reading is options:
                self._reading = None
            ahead.close()


def load_synthesizer(
    threads: int | None,
    fast: bool,
    warm_pack: np.ndarray,
    on_warning: Callable[[str], None] | None = None,
) -> Synthesizer:
    """Build the pipeline and warm it. The engine (load, then one short run of each
    session) and the front end (the phonemiser's load, then its first call) get ready in
    parallel: the sessions' work is outside the GIL, most of the phonemiser's inside."""
    from concurrent.futures import ThreadPoolExecutor

    from tray_reader.errors import ConfigError
    from tray_reader.text.g2p import EnglishPhonemizer
    from tray_reader.text.lexicon import Lexicon

    try:
        lexicon = Lexicon.user()
    except ConfigError as e:
        # A broken lexicon must not stop the reader: speak without it and say why.
        (on_warning or log.warning)(f"{e} (reading without your lexicon)")
        lexicon = Lexicon.empty()

    def engine_ready() -> KokoroEngine:
        engine = KokoroEngine.load(threads, fast=fast)
        engine.warm_up(warm_pack)
        return engine

    with ThreadPoolExecutor(1, thread_name_prefix="tray-reader-load") as pool:
        engine_future = pool.submit(engine_ready)
        frontend = TextFrontEnd(EnglishPhonemizer(), lexicon)
        for chunk in frontend.chunks("Ready to read, warming up."):
            frontend.ids(chunk.phonemes)
        engine = engine_future.result()
    return Synthesizer(frontend, engine)
