"""The speech worker: a thread that owns the model, takes requests, streams audio to a sink.

The model and the phonemiser are loaded (in parallel) and warmed when the worker starts, so
the first request is as fast as every other. Requests arrive on a bounded queue; "now"
replaces what is playing, "queue" appends, `stop()` clears everything.

Preparing (the first words of a selection, before anyone asks to hear them) runs on a
second thread, `speech-prepare`, so a selection made while another text is being read is
ready when "read now" comes. It holds one text at a time: the latest asked for. A read of
the text being prepared hands over to it after its next piece; a read of another text
cancels it; `stop()` leaves it alone (it makes no sound).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol

from tray_reader.errors import TrayReaderError
from tray_reader.speech.types import AudioChunk, AudioSink, VoiceSource

log = logging.getLogger(__name__)

MAX_PENDING = 64
"""Most requests waiting in the queue; more are refused with a message."""
RELEASE_AFTER_S = 20.0
"""Seconds without a request after a read before the pipeline's memory is given back."""
PREPARATION_POLL = 0.005
"""Seconds between looks, while a read waits for the preparation of its text to show."""


class TextRest(Protocol):
    """The parts of a text after its first, made while it is read (a long document's rest:
    documents.PartsAhead)."""

    separator: str
    """What joins each part to the text before it."""

    def begin(self) -> None:
        """The first words are out: make the parts now."""

    def take(self, cancel: threading.Event) -> str | None:
        """The next part once it is made; None when there are no more or once ``cancel`` is
        set. Raises what making it raised."""

    def close(self) -> None:
        """No more parts are wanted (the read ended or was stopped): the making ends."""


class Mode(enum.Enum):
    NOW = "now"  # interrupt what is playing and read this
    QUEUE = "queue"  # read this after everything already queued


class WorkerState(enum.Enum):
    WARMING = "warming"  # loading and warming the model
    IDLE = "idle"  # ready, nothing to read
    SPEAKING = "speaking"  # synthesising and handing audio to the sink
    ERROR = "error"  # the model could not be loaded; see `error`


@dataclass(frozen=True)
class ReadRequest:
    text: str
    """Text to read (raw; the front end normalises it)."""
    mode: Mode = Mode.NOW
    """Interrupt (NOW) or append (QUEUE)."""
    submitted: float = field(default_factory=time.monotonic)
    """When the request was made (monotonic seconds), for latency figures."""
    rest: TextRest | None = None
    """The text's later parts, still being made: read on after ``text`` as one text that
    grows (see `SpeechWorker._parts`); closed when the read ends, however it ends."""


class SpeechPipeline(Protocol):
    """What the worker needs from the speech pipeline (the real one: speech.synthesis).

    A pipeline may also have ``prepare(text, voice, cancel, hurry) -> bool`` and
    ``served_prepared: bool`` (see `SpeechWorker.prepare`), and ``release_memory()``.
    ``keep=False`` is passed only for a text's later parts (`ReadRequest.rest`): their first
    chunk is not kept for a read of the same text (a prepared selection is kept instead)."""

    def stream(
        self, text: str, voice: VoiceSource, cancel: threading.Event, keep: bool = True
    ) -> Iterator[AudioChunk]: ...


class SpeechWorker:
    """Runs synthesis on its own thread; everything public is safe to call from any thread."""

    def __init__(
        self,
        load_pipeline: Callable[[], SpeechPipeline],
        sink: AudioSink,
        voice: VoiceSource,
        on_state: Callable[[WorkerState], None] | None = None,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        """`load_pipeline()` builds and warms the pipeline (called on the worker thread);
        `voice()` returns the current (pack, speed) and is read before every chunk, so a
        voice or speed change applies from the next chunk."""
        self._load_pipeline = load_pipeline
        self._sink = sink
        self._voice = voice
        self._on_state = on_state or (lambda s: None)
        self._on_error = on_error or (lambda m: None)
        self._requests: queue.Queue[ReadRequest | None] = queue.Queue(MAX_PENDING)
        self._cancel = threading.Event()
        self._preparation = threading.Condition()
        """Guards the preparing thread's slot (`_wanted`, `_preparing`)."""
        self._wanted: str | None = None
        """The text to prepare next (the latest asked for)."""
        self._prepare_cancel = threading.Event()
        self._hurry = threading.Event()
        """Set when a read of the text being prepared arrives: preparing hands over to it
        as soon as it has a first piece."""
        self._closing = False
        self._pipeline: SpeechPipeline | None = None
        self._generation = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="speech-worker", daemon=True)
        self.ready = threading.Event()
        self.state = WorkerState.WARMING
        self.error: str | None = None
        self.ready_seconds: float | None = None
        self.last_request: ReadRequest | None = None
        self.first_chunk_at: float | None = None
        self.last_served_prepared = False
        """Whether the last read began with audio prepared ahead of it."""
        self.prepared_text: str | None = None
        """The text whose first words are ready (the pipeline keeps the audio)."""
        self._preparing: str | None = None
        self.release_after = RELEASE_AFTER_S
        """Idle seconds after a read before `release_memory` (see the module's doc)."""

    # -- public API -------------------------------------------------------------------------
    def start(self) -> None:
        self._started = time.monotonic()
        self._thread.start()

    def submit(self, request: ReadRequest) -> bool:
        """Queue a request; False when the queue is full."""
        self._claim_preparation(request.text)
        if request.mode is Mode.NOW:
            self.stop()
        try:
            self._requests.put_nowait(request)
        except queue.Full:
            return False
        return True

    def prepare(self, text: str) -> bool:
        """Ask the worker to synthesise the first words of ``text`` ahead of a read of it
        (the selection watcher calls this when the selection changes), on its preparing
        thread, also while another text is being read. It replaces a preparation of
        another text asked for before. False while the model is not ready."""
        if not self.ready.is_set() or self.state is WorkerState.ERROR:
            return False
        with self._preparation:
            if text == self._preparing:
                self._wanted = None
                return True
            if self._preparing is not None:
                self._prepare_cancel.set()
            self._wanted = text
            self._preparation.notify_all()
        return True

    def _claim_preparation(self, text: str) -> None:
        """A read of ``text`` is coming: a preparation of it hands over its first piece as
        soon as it has one; one of another text stops (the read comes first)."""
        with self._preparation:
            if self._wanted == text:
                self._wanted = None  # not begun: the read makes (and keeps) it itself
            if self._preparing == text:
                self._hurry.set()
            elif self._preparing is not None:
                self._prepare_cancel.set()

    def stop(self) -> None:
        """Cancel what is being read, drop everything queued, silence the sink. A
        preparation goes on: it makes no sound, and the next read may want it."""
        with self._lock:
            self._generation += 1
            self._cancel.set()
            interrupt = getattr(self._pipeline, "interrupt", None)
            if interrupt is not None:
                interrupt()  # the model run under way, not only before the next piece
            while True:
                try:
                    item = self._requests.get_nowait()
                except queue.Empty:
                    break
                if item is None:  # keep a pending shutdown
                    self._requests.put_nowait(None)
                    break
                if item.rest is not None:
                    item.rest.close()
        self._sink.flush()

    @property
    def preparing_text(self) -> str | None:
        """The text whose first words are being prepared right now, if any."""
        return self._preparing

    def pending(self) -> int:
        return self._requests.qsize()

    def shutdown(self, timeout: float = 1.0) -> None:
        with self._preparation:
            self._closing = True
            self._prepare_cancel.set()
            self._preparation.notify_all()
        self.stop()
        with contextlib.suppress(queue.Full):
            self._requests.put(None, timeout=timeout)
        if self._thread.is_alive():
            self._thread.join(timeout)

    # -- worker thread ------------------------------------------------------------------------
    def _set_state(self, state: WorkerState) -> None:
        if state is not self.state:
            self.state = state
            self._on_state(state)

    def _run(self) -> None:
        try:
            pipeline = self._load_pipeline()
        except TrayReaderError as e:
            self.error = str(e)
            self._set_state(WorkerState.ERROR)
            self._on_error(self.error)
            return
        self.ready_seconds = time.monotonic() - self._started
        self._pipeline = pipeline
        prepare = getattr(pipeline, "prepare", None)
        if prepare is not None:
            threading.Thread(
                target=self._run_preparation, args=(prepare,), name="speech-prepare", daemon=True
            ).start()
        self.ready.set()
        self._set_state(WorkerState.IDLE)
        # What the load left on the heap (the phonemiser's and the sessions' temporaries) and
        # the warm-up's arena go back now: the reader idles at what it needs to read.
        self._release(pipeline)
        grown = False
        while True:
            try:
                request = self._requests.get(timeout=self.release_after if grown else None)
            except queue.Empty:
                grown = False
                self._release(pipeline)
                continue
            if request is None:
                return
            grown = True
            with self._lock:
                generation = self._generation
                self._cancel.clear()
            self._wait_for_preparation(request.text, pipeline)
            self._speak(pipeline, request, generation)
            if self._requests.empty():
                self._set_state(WorkerState.IDLE)

    @staticmethod
    def _release(pipeline: SpeechPipeline) -> None:
        release = getattr(pipeline, "release_memory", None)
        if release is None:
            return
        try:
            release()
        except Exception:  # noqa: BLE001 - memory kept is no reason to stop reading
            log.warning("could not give back the model's spare memory", exc_info=True)
        else:
            log.debug("the model's spare memory given back (at ready, or idle after a read)")

    def _run_preparation(self, prepare: Callable[..., bool]) -> None:
        """The preparing thread: the latest text asked for, one at a time."""
        while True:
            with self._preparation:
                self._preparation.wait_for(lambda: self._wanted is not None or self._closing)
                if self._closing:
                    return
                text, self._wanted = self._wanted, None
                self._prepare_cancel.clear()
                self._hurry.clear()
                self._preparing = text
            try:
                done = prepare(text, self._voice, self._prepare_cancel, self._hurry)
            except Exception:  # noqa: BLE001 - a text that cannot be prepared is read (and reported) as usual
                log.debug("preparing failed", exc_info=True)
                done = False
            with self._preparation:
                if done:
                    self.prepared_text = text
                self._preparing = None
                self._preparation.notify_all()

    def _wait_for_preparation(self, text: str, pipeline: SpeechPipeline) -> None:
        """Before a read of ``text``: a preparation of it hands over its first piece (the
        read then starts with it, never later than it could have made it itself). A
        pipeline that shows the chunk being prepared (``prepared_text``) is read from as
        soon as it does: the read plays each piece as the preparation makes it."""
        with self._preparation:
            if self._preparing != text:
                return
            self._hurry.set()
            while self._preparing == text and getattr(pipeline, "prepared_text", None) != text:
                self._preparation.wait(PREPARATION_POLL)

    def _speak(self, pipeline: SpeechPipeline, request: ReadRequest, generation: int) -> None:
        self.last_request = request
        self.first_chunk_at = None
        self.last_served_prepared = False
        self._set_state(WorkerState.SPEAKING)
        try:
            if request.rest is None:
                chunks = pipeline.stream(request.text, self._voice, self._cancel)
            else:
                chunks = self._parts(pipeline, request, request.rest)
            for chunk in chunks:
                if self._generation != generation:
                    return
                if self.first_chunk_at is None:
                    self.first_chunk_at = time.monotonic()
                    self.last_served_prepared = bool(getattr(pipeline, "served_prepared", False))
                    # A read keeps its first chunk for the next read of the same text.
                    self.prepared_text = getattr(pipeline, "prepared_text", self.prepared_text)
                self._sink.play(chunk, self._cancel)  # dropped if a stop came since the check
            if self._generation == generation:
                self._sink.finish()
        except TrayReaderError as e:
            self._on_error(str(e))
        except Exception as e:  # noqa: BLE001 - one bad request must not end the daemon's worker
            log.exception("speech request failed")
            self._on_error(f"Could not read that text: {e}")
        finally:
            if request.rest is not None:
                request.rest.close()

    def _parts(self, pipeline: SpeechPipeline, request: ReadRequest, rest: TextRest) -> Iterator[AudioChunk]:
        """The audio of a text with a rest: its first part's, then each later part's as the
        text grows. Sentence indexes and characters count from the text's start, and each
        part's first piece brings the text so far, so the player's timeline (skipping back
        and on), the reading window and MPRIS see one text. The rest is made once the first
        audio is out; a part that cannot be made is reported and the reading ends there
        (what was read plays out)."""
        text = part = request.text
        sentences = chars = 0  # before the part
        while True:
            following = sentences
            if chars:
                chunks = pipeline.stream(part, self._voice, self._cancel, keep=False)
            else:
                chunks = pipeline.stream(part, self._voice, self._cancel)
            for n, chunk in enumerate(chunks):
                following = max(following, sentences + chunk.sentence + 1)
                yield _in_whole(chunk, sentences, chars, text if n == 0 else None) if chars else chunk
                rest.begin()
            rest.begin()  # also after a part with nothing to read
            try:
                more = rest.take(self._cancel)
            except Exception as e:  # noqa: BLE001 - reported; what was read plays out, the worker goes on
                if not isinstance(e, TrayReaderError):
                    log.exception("the rest of a text could not be made")
                self._on_error(str(e) if isinstance(e, TrayReaderError) else f"Could not read on: {e}")
                return
            if more is None:
                return
            part, chars = more, len(text) + len(rest.separator)
            text = f"{text}{rest.separator}{part}"
            sentences = following
            self.last_request = dataclasses.replace(request, text=text)


def _in_whole(chunk: AudioChunk, sentences: int, chars: int, text: str | None) -> AudioChunk:
    """A later part's chunk as one of the whole text, where the part follows ``sentences``
    sentences and ``chars`` characters; it brings ``text``, the text so far, or none."""

    def moved(span: tuple[int, int]) -> tuple[int, int]:
        return span[0] + chars, span[1] + chars

    return dataclasses.replace(
        chunk,
        sentence=chunk.sentence + sentences,
        sentence_span=None if chunk.sentence_span is None else moved(chunk.sentence_span),
        words=tuple(dataclasses.replace(w, span=moved(w.span)) for w in chunk.words),
        text=text,
    )
