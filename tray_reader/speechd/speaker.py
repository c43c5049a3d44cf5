"""The engine side of the module: speaks messages in-process and reports their progress.

`EngineSpeaker` owns a warm `Synthesizer` and a `Player` (audio goes straight to the sound
device: fewer hops than returning it to the server, which would add a pipe, the server's
queue and its own PulseAudio stream, and our 8 ms fade on stop would not apply to what
the server holds). One thread synthesises the current message into one player request;
marks are reported from the player's status listener when the audio after them is heard,
so a screen reader follows what is actually being said.

Every message the module accepted ends with exactly one of END, STOP or PAUSE (the
server waits for one of them before it sends the next message); events of a message
that was stopped are never sent after its STOP.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tray_reader.speech.types import Prosody
from tray_reader.speechd import protocol
from tray_reader.speechd.ssml import Mark, Pause, Segment, Speech

if TYPE_CHECKING:
    from tray_reader.audio.player import Player, PlayerStatus
    from tray_reader.speech.envelope import EnvelopeMap
    from tray_reader.speech.synthesis import Synthesizer
    from tray_reader.speech.timings import WordTiming
    from tray_reader.speech.types import AudioChunk

log = logging.getLogger(__name__)

Emit = Callable[[str], None]
"""Writes protocol text (whole lines) to the server."""


@dataclass(frozen=True)
class Voice:
    """How a message is spoken."""

    pack: np.ndarray
    """The voice pack (stock, enrolled or mixed)."""
    speed: float = 1.0
    """Speaking speed (1.0 normal)."""
    gain: float = 1.0
    """Player volume, 0..1."""
    pitch: float = 1.0
    """Factor on the model's f0 (1.0: the model's own; an enrolled voice's own pitch
    times speech-dispatcher's)."""
    spread: float = 1.0
    """Factor on log-f0's deviation from its median (an enrolled voice's own range)."""
    envelope: EnvelopeMap | None = None
    """An enrolled voice's envelope map (speech/envelope.py)."""


class Speaker(Protocol):
    """What the module loop needs from the engine side."""

    def speak(self, segments: list[Segment], voice: Voice) -> None:
        """Start speaking a message (stopping any other); events follow through `emit`."""

    def stop(self) -> None:
        """Silence the current message now (a 703 event if there was one)."""

    def pause(self) -> None:
        """Stop the current message at its next mark (a 704 event)."""

    def close(self) -> None:
        """Stop and release the audio device and threads."""


@dataclass(eq=False)
class _Message:
    segments: list[Segment]
    voice: Voice
    cancel: threading.Event = field(default_factory=threading.Event)
    pause_requested: bool = False
    marks: dict[int, list[str]] = field(default_factory=dict)
    """Marks reported once the audio of a sentence id is heard."""
    playing: bool = False
    """Its player request has begun (player statuses before that are another message's)."""


@dataclass(frozen=True)
class Run:
    """Speech with the marks inside it, said as one text: a screen reader puts a mark before
    every word (Orca does), and each piece said on its own would be its own utterance, with
    a sentence's pause after every word."""

    text: str
    marks: tuple[tuple[int, str], ...]
    """(character offset in ``text``, name): reported when the word from there on is heard."""


def runs(segments: list[Segment]) -> Iterator[Run | Pause]:
    """The message's speech and marks joined into runs, between its pauses; marks with no
    speech after them end their run (at its end)."""
    text, marks = "", list[tuple[int, str]]()
    for segment in segments:
        if isinstance(segment, Pause):
            if text or marks:
                yield Run(text, tuple(marks))
                text, marks = "", []
            yield segment
        elif isinstance(segment, Mark):
            marks.append((len(text), segment.name))
        elif isinstance(segment, Speech):
            text += segment.text
    if text or marks:
        yield Run(text, tuple(marks))


class MarkPlacer:
    """Cuts the audio of a run where its marks fall: before the first word at or after each
    mark's offset (by the words' timings; by sentence when the engine gives none)."""

    def __init__(self, marks: tuple[tuple[int, str], ...]) -> None:
        self._marks = deque(sorted(marks, key=lambda m: m[0]))
        self._words: tuple[WordTiming, ...] = ()
        self._at = 0  # samples since the first piece of the current text chunk
        self._span: tuple[int, int] | None = None

    def _due(self, offset: int) -> list[str]:
        due = []
        while self._marks and self._marks[0][0] <= offset:
            due.append(self._marks.popleft()[1])
        return due

    def split(self, chunk: AudioChunk) -> list[tuple[np.ndarray, list[str]]]:
        """``chunk``'s samples in parts, each with the marks due as it begins (a first part
        with none continues what played before)."""
        samples = chunk.samples
        n = samples.size
        if chunk.words:
            self._words, self._at = chunk.words, 0
        if self._words:
            cuts = [
                (w.start - self._at, w.span[0]) for w in self._words if self._at <= w.start < self._at + n
            ]
        elif chunk.sentence_span is not None and chunk.sentence_span != self._span:
            cuts = [(0, chunk.sentence_span[0])]
        else:
            cuts = []
        self._span = chunk.sentence_span
        self._at += n
        parts: list[tuple[np.ndarray, list[str]]] = []
        begin, names = 0, list[str]()
        for pos, offset in cuts:
            due = self._due(offset)
            if not due:
                continue
            pos = min(max(pos, begin), n)
            if pos > begin:
                parts.append((samples[begin:pos], names))
                begin, names = pos, due
            else:
                names = names + due
        parts.append((samples[begin:], names))
        return parts

    def rest(self) -> list[str]:
        """The marks after the last word (reported when the run has been heard)."""
        return [name for _, name in self._marks]


SILENCE_RATE = 24_000
CLOSE_WAIT = 60.0
"""Seconds `EngineSpeaker.close` waits for its thread (a model load on a slow machine)."""


class EngineSpeaker:
    """Speaks with tray-reader's model and player; thread-safe; see the module docstring."""

    def __init__(
        self,
        emit: Emit,
        load_synthesizer: Callable[[], Synthesizer],
        player: Player,
    ) -> None:
        """``load_synthesizer()`` builds and warms the pipeline (on the speaker's thread, at
        once, so the model is warm before the first message)."""
        self._emit = emit
        self._load = load_synthesizer
        self.player = player
        self._lock = threading.Lock()
        self._current: _Message | None = None
        self._queue: queue.Queue[_Message | None] = queue.Queue()
        self.ready = threading.Event()
        self.error: str | None = None
        self._thread = threading.Thread(target=self._run, name="speechd-speaker", daemon=True)
        player.add_listener(self._on_status)
        self._thread.start()

    # -- called by the module loop ------------------------------------------------------------
    def speak(self, segments: list[Segment], voice: Voice) -> None:
        message = _Message(segments, voice)
        with self._lock:
            self._stop_locked()
            self._current = message
        self._queue.put(message)

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()

    def pause(self) -> None:
        with self._lock:
            if self._current is not None:
                self._current.pause_requested = True

    def close(self) -> None:
        """Stop, and wait for the speaker's thread to end, however long the model it may
        still be loading and warming takes (up to CLOSE_WAIT): a process that exits while
        that thread is inside the model's native code can abort instead of exiting."""
        self.stop()
        self._queue.put(None)
        self._thread.join(CLOSE_WAIT)
        self.player.close()

    # -- internals ----------------------------------------------------------------------------
    def _stop_locked(self, event: str = protocol.EVENT_STOP) -> None:
        message, self._current = self._current, None
        if message is None:
            return
        message.cancel.set()
        self.player.flush()
        self._emit(event + "\n")

    def _is_current(self, message: _Message) -> bool:
        return self._current is message and not message.cancel.is_set()

    def _on_status(self, status: PlayerStatus) -> None:
        """Player listener (feeder thread): reports the marks before the sentence heard."""
        heard = status.sentence
        if heard is None:
            return
        with self._lock:
            message = self._current
            if message is None or not message.playing or message.cancel.is_set():
                return
            reached = sorted(i for i in message.marks if i <= heard)
            names = [name for i in reached for name in message.marks.pop(i)]
            for name in names:
                self._emit(protocol.mark_event(name))
            if names and message.pause_requested:
                self._stop_locked(protocol.EVENT_PAUSE)

    def _run(self) -> None:
        from tray_reader.errors import TrayReaderError

        synth: Synthesizer | None = None
        try:
            synth = self._load()
        except Exception as e:  # noqa: BLE001 - reported with every message instead of dying
            self.error = str(e) if isinstance(e, TrayReaderError) else f"the model did not load: {e}"
            log.error("tray-reader cannot speak: %s", self.error)
        try:
            self.player.open()  # now, so the first message does not wait for the device
        except TrayReaderError as e:
            log.warning("%s (tried again with each message)", e)
        self.ready.set()
        while True:
            message = self._queue.get()
            if message is None:
                return
            if message.cancel.is_set():
                continue
            try:
                if self.error is not None or synth is None:
                    raise TrayReaderError(self.error or "the model is not loaded")
                self._speak(synth, message)
            except Exception:  # noqa: BLE001 - one bad message must not take the desktop's voice
                log.exception("speaking a message failed")
                with self._lock:
                    if self._is_current(message):
                        self._current = None
                        self._emit(protocol.EVENT_END + "\n")

    def _speak(self, synth: Synthesizer, message: _Message) -> None:
        from tray_reader.speech.synthesis import fixed_voice
        from tray_reader.speech.types import AudioChunk

        with self._lock:
            if not self._is_current(message):
                return
            self._emit(protocol.EVENT_BEGIN + "\n")
        voice = message.voice
        self.player.volume = voice.gain
        synth.engine.use_prosody(Prosody(voice.pitch, voice.spread))
        synth.engine.use_envelope(voice.envelope)
        player_cancel = self.player.start_request()
        with self._lock:
            if not self._is_current(message):
                self.player.flush()
                return
            message.playing = True
        part = 0  # the player's "sentence": a new one wherever marks fall
        pending: list[str] = []

        def place_marks(names: list[str]) -> int:
            """A new part, with ``names`` (and the marks still pending) reported as it is heard."""
            nonlocal part
            part += 1
            with self._lock:
                message.marks.setdefault(part, []).extend(pending + names)
            pending.clear()
            return part

        def cancelled() -> bool:
            return message.cancel.is_set() or player_cancel.is_set()

        for item in runs(message.segments):
            if cancelled():
                return
            if isinstance(item, Pause):
                silence = np.zeros(int(item.seconds * SILENCE_RATE), np.float32)
                self.player.play(AudioChunk(silence, place_marks([])), player_cancel)
                continue
            placer = MarkPlacer(item.marks)
            if item.text.strip():
                stream = synth.stream(item.text, fixed_voice(voice.pack, voice.speed), message.cancel)
                first = True
                for chunk in stream:
                    if cancelled():
                        getattr(stream, "close", lambda: None)()  # stops its work ahead now
                        return
                    for samples, names in placer.split(chunk):
                        if names or first:
                            place_marks(names)
                            first = False
                        self.player.play(AudioChunk(samples, part), player_cancel)
            pending.extend(placer.rest())
        self.player.finish()
        self.player.wait()
        with self._lock:
            if not self._is_current(message):
                return
            for names in (message.marks.pop(i) for i in sorted(message.marks)):
                for name in names:
                    self._emit(protocol.mark_event(name))
            for name in pending:
                self._emit(protocol.mark_event(name))
            self._current = None
            self._emit(
                (protocol.EVENT_PAUSE if message.pause_requested and pending else protocol.EVENT_END) + "\n"
            )
