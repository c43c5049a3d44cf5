"""The streaming player: 24 kHz chunks in, click-free audio out, with pause, stop and skip.

Three threads touch a player, each owning its part:

- the caller of `play()` (the speech worker) appends 24 kHz audio to the request's
  `Timeline` under the lock and blocks while it is far enough ahead;
- the feeder thread moves audio from the timeline through `soxr.ResampleStream` into the
  `SampleRing`, carries out controls (seek, stop), watches the device and publishes state;
- the output stream's callback (`_render`) copies from the ring, applies the gain ramp and
  counts underruns. It takes no lock, allocates no buffers and never logs.

Controls (pause, resume, stop, next, previous, volume) may be called from any thread.
Pausing fades out over `fade_ms` and rewinds to where the fade began, so resuming fades in
from that very sample. Stop and skip fade out, then drop what is buffered.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import soxr

from tray_reader.audio.output import AudioOutput, OutputStream, SoundDeviceOutput
from tray_reader.audio.ring import SampleRing
from tray_reader.audio.timeline import Timeline
from tray_reader.errors import AudioDeviceError
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk

log = logging.getLogger(__name__)

_MAX_BLOCK = 16_384
"""Largest callback block the gain ramp is preallocated for."""


class PlayerState(enum.Enum):
    IDLE = "idle"  # nothing to play
    SPEAKING = "speaking"  # a request is playing (or waiting for its next audio)
    PAUSED = "paused"  # held at a sample; resume continues there
    ERROR = "error"  # the device failed; the next request tries again


@dataclass(frozen=True)
class PlayerStatus:
    """What listeners are told whenever it changes."""

    state: PlayerState
    """Current state."""
    sentence: int | None
    """Index of the sentence being heard (None when idle)."""
    error: str | None = None
    """The device problem, in ERROR."""


@dataclass(frozen=True)
class Reading:
    """What is being heard, in the text as given (`Player.reading`)."""

    sentence: int
    """Index of the sentence being heard."""
    sentence_span: tuple[int, int] | None
    """Its [start, end) characters (None: not known)."""
    word_span: tuple[int, int] | None
    """The [start, end) characters of the word sounding or last begun (None: none yet,
    or no timings)."""
    seconds: float
    """Seconds of the sentence heard."""
    text: str | None = None
    """The text being read, which the spans index (None: not told)."""


@dataclass(frozen=True)
class PlayerStats:
    """Figures the daemon reports (e.g. hotkey-to-first-sound)."""

    first_sample_latency: float | None
    """Seconds from the last request's first chunk handed over to its first sample at the DAC."""
    first_sample_at: float | None
    """`time.monotonic()` when that first sample reached the DAC (for hotkey-to-first-sound)."""
    underruns: int
    """Times the buffer ran dry while audio was expected (synthesis slower than playback)."""
    underrun_seconds: float
    """Silence played because of those underruns, seconds."""
    device: str | None
    """The device being played on."""
    rate: int | None
    """Its sample rate."""
    reopened: int
    """Times the device was reopened after it failed."""
    xruns: int
    """Gaps the device reported (callback late: CPU too busy), all streams."""


@dataclass(frozen=True)
class PlayerConfig:
    """Tuning of the player; the defaults suit speech."""

    device: str | None = None
    """Output device name (or a unique part of it); None for the system default."""
    block_ms: float = 10.0
    """Audio callback period; small keeps latency and stop time low."""
    latency_ms: float = 40.0
    """Output latency asked of the device: lower starts sooner, higher survives a busy CPU."""
    buffer_ms: float = 300.0
    """How much resampled audio the ring holds ahead of the device."""
    fade_ms: float = 8.0
    """Length of the fades at pause, resume, stop and skip."""
    end_pad_ms: float = 150.0
    """Silence after the last sample: closing a PortAudio stream drops its last 30-60 ms."""
    lookahead_s: float = 30.0
    """`play()` blocks while this much audio is queued beyond the play position."""
    retain_s: float = 120.0
    """Audio of played sentences kept for `previous()`."""
    restart_s: float = 1.0
    """`previous()` restarts the current sentence when more than this of it was heard."""
    stall_s: float = 4.0
    """A stream whose callback stops this long is treated as a failed device."""
    idle_close_s: float = 20.0
    """Close the device after this long idle (opening again costs a few ms)."""
    idle_poll_s: float = 0.2
    """Seconds between the feeder's looks at an open device while nothing plays."""


@dataclass
class _Request:
    cancel: threading.Event
    timeline: Timeline
    handed_at: float | None = None
    audio_started: bool = False  # an empty ring counts as an underrun only after this
    flushed: bool = False  # the resampler got last=True
    pad_left: int = 0
    end_pos: int | None = None  # ring position after the end padding


class Player:
    """Plays speech chunks on an output device; implements `AudioSink`."""

    def __init__(
        self,
        output: AudioOutput | None = None,
        config: PlayerConfig | None = None,
        on_stop: Callable[[], None] | None = None,
    ) -> None:
        """`on_stop` is called (outside the player's lock) when the user stops playback, so
        the app can cancel synthesis upstream."""
        self._output = output or SoundDeviceOutput()
        self.config = config or PlayerConfig()
        self._on_stop = on_stop
        self._cond = threading.Condition()
        self._listeners: list[Callable[[PlayerStatus], None]] = []
        self._state = PlayerState.IDLE
        self._error: str | None = None
        self._error_pending: str | None = None  # raised by the next play()/finish()/wait()
        self._req: _Request | None = None
        self._stream: OutputStream | None = None
        self._ring = SampleRing(1)
        self._rate = 0
        self._fill_limit = 0
        self._resampler: soxr.ResampleStream | None = None
        self._pending = np.zeros(0, np.float32)
        self._markers: deque[tuple[int, int, int]] = deque()  # (ring pos, sentence position, offset)
        self._seek: str | int | None = None  # "next", "previous" or a sentence position
        self._stopping = False
        self._idle_since = time.monotonic()
        self._last_callbacks = 0
        self._last_progress = time.monotonic()
        self._published: PlayerStatus | None = None
        self._first_latency: float | None = None
        self._reopened = 0
        self._xruns_before = 0  # on streams already closed
        self._closed = False
        # Shared with the callback: plain attributes, each written by one side only.
        self._hold = False  # controls: fade to silence and stop consuming
        self._volume = 1.0  # controls
        self._expect = False  # feeder: audio should be there (an empty ring is an underrun)
        self._first_pending = False  # feeder arms, callback records _first_heard
        self._handed = False  # play() handed audio over since the feeder last looked
        self._first_heard = 0.0
        self._gain = 0.0  # callback
        self._hold_armed = False  # callback
        self._hold_pos = 0  # callback
        self._callbacks = 0  # callback
        self._underruns = 0  # callback
        self._underrun_frames = 0  # callback
        self._starving = False  # callback
        self._fade_step = 1.0
        self._ramp = np.zeros(_MAX_BLOCK, np.float32)
        self._gains = np.zeros(_MAX_BLOCK, np.float32)
        self._feeder = threading.Thread(target=self._feed_loop, name="player-feeder", daemon=True)
        self._feeder.start()

    # -- AudioSink ------------------------------------------------------------------------------
    def start_request(self, cancel: threading.Event | None = None) -> threading.Event:
        """Begin a request (after the previous one has played out); return its cancel event,
        which `stop()` sets. `play()` starts one implicitly when none is open."""
        with self._cond:
            return self._begin(cancel).cancel

    def play(self, chunk: AudioChunk, cancel: threading.Event | None = None) -> None:
        """Queue a chunk; blocks while `lookahead_s` of audio is already queued (or paused).
        Raises AudioDeviceError when no device can play it.

        ``cancel``: the caller's stop for what it reads; once set, the chunk is dropped. A
        chunk made before a stop and handed over just after it would otherwise begin a new
        request and be heard after the stop (checked here, under the player's lock)."""
        with self._cond:
            if cancel is not None and cancel.is_set():
                return
            self._raise_pending()
            req = self._req
            if req is None or req.timeline.finished or self._stopping:
                req = self._begin(None)
            if req.cancel.is_set():
                return
            limit = self.config.lookahead_s * SAMPLE_RATE
            while req is self._req and not req.cancel.is_set() and req.timeline.ahead() > limit:
                self._cond.wait(0.5)
                self._check_feeder()
            self._raise_pending()
            if req is not self._req or req.cancel.is_set():
                return
            if req.handed_at is None:
                req.handed_at = time.monotonic()
            if chunk.text is not None:
                req.timeline.text = chunk.text
            req.timeline.append(chunk.sentence, chunk.samples, chunk.words, chunk.sentence_span)
            if chunk.last:
                req.timeline.finished = True
            self._handed = True  # the feeder takes it at once, even if it was busy when notified
            self._cond.notify_all()

    def finish(self) -> None:
        """The request is complete: play out what is queued (see `wait()`), then go idle."""
        with self._cond:
            self._raise_pending()
            if self._req is not None:
                self._req.timeline.finished = True
                self._cond.notify_all()

    def flush(self) -> None:
        """Drop the current request: fade out within `fade_ms`, then go idle."""
        with self._cond:
            if self._req is None:
                return
            self._req.cancel.set()
            self._stopping = True
            self._hold = True
            self._cond.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the current request has played out; False on timeout.
        Raises AudioDeviceError if the device failed meanwhile."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._req is not None:
                left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
                if left <= 0:
                    return False
                self._cond.wait(left)
                self._check_feeder()
            self._raise_pending()
            return True

    # -- controls (any thread) ---------------------------------------------------------------
    def stop(self) -> None:
        """Stop at once (fade out in `fade_ms`), drop the queue and cancel synthesis upstream."""
        self.flush()
        if self._on_stop is not None:
            self._on_stop()

    def pause(self) -> None:
        with self._cond:
            if self._state is PlayerState.SPEAKING:
                self._hold = True
                self._state = PlayerState.PAUSED
                self._cond.notify_all()

    def resume(self) -> None:
        with self._cond:
            if self._state is PlayerState.PAUSED and not self._stopping:
                self._hold = False
                self._state = PlayerState.SPEAKING
                self._cond.notify_all()

    def next(self) -> None:
        """Jump to the start of the next sentence (as soon as its audio exists)."""
        self._post_seek("next")

    def previous(self) -> None:
        """Restart the sentence being heard, or go to the one before if it just began."""
        self._post_seek("previous")

    def jump_to_text(self, char: int) -> bool:
        """Jump to the start of the sentence holding character ``char`` of the text being
        read (a caption window's click); False when that sentence's audio is not kept."""
        with self._cond:
            if self._req is None or self._stopping:
                return False
            tl = self._req.timeline
            for position in range(tl.oldest, len(tl)):
                span = tl.sentence_span(position)
                if span is not None and span[0] <= char < span[1]:
                    self._seek = position
                    self._cond.notify_all()
                    return True
        return False

    @property
    def volume(self) -> float:
        return self._volume

    @volume.setter
    def volume(self, value: float) -> None:
        # The callback ramps towards the new value, so a change never clicks.
        self._volume = float(min(1.0, max(0.0, value)))

    # -- observing ---------------------------------------------------------------------------
    def add_listener(self, listener: Callable[[PlayerStatus], None]) -> None:
        """Call `listener(status)` on the feeder thread whenever the status changes."""
        with self._cond:
            self._listeners.append(listener)

    @property
    def status(self) -> PlayerStatus:
        with self._cond:
            return self._status()

    @property
    def reading(self) -> Reading | None:
        """The sentence and word at the play position (None when nothing plays). Cheap:
        for a caption window polling at a steady rate, never from the audio callback."""
        with self._cond:
            if self._req is None or not self._markers:
                return None
            position, heard = self._heard()
            tl = self._req.timeline
            if position >= len(tl):
                return None
            word = tl.word_at(position, int(heard * SAMPLE_RATE))
            return Reading(
                tl.sentence_id(position),
                tl.sentence_span(position),
                word.span if word else None,
                heard,
                tl.text,
            )

    @property
    def buffered(self) -> float:
        """Seconds of audio waiting in the ring for the device."""
        return self._ring.filled / self._rate if self._rate else 0.0

    @property
    def stats(self) -> PlayerStats:
        stream = self._stream
        return PlayerStats(
            first_sample_latency=self._first_latency,
            first_sample_at=self._first_heard if self._first_latency is not None else None,
            underruns=self._underruns,
            underrun_seconds=self._underrun_frames / self._rate if self._rate else 0.0,
            device=stream.device if stream else None,
            rate=self._rate or None,
            reopened=self._reopened,
            xruns=self._xruns_before + (stream.xruns if stream else 0),
        )

    # -- life cycle ----------------------------------------------------------------------------
    def open(self) -> None:
        """Open the device now (e.g. at start-up) so the first request does not wait for it."""
        with self._cond:
            if self._stream is None:
                self._open_device(self.config.device)
            self._idle_since = time.monotonic()
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            if self._req is not None:
                self._req.cancel.set()
            self._req = None
            self._close_device()
            self._cond.notify_all()
        if threading.current_thread() is not self._feeder:
            self._feeder.join(2)

    # -- internals (callers hold the lock) -----------------------------------------------------
    def _raise_pending(self) -> None:
        if self._error_pending is not None:
            message, self._error_pending = self._error_pending, None
            raise AudioDeviceError(message)

    def _check_feeder(self) -> None:
        if not self._feeder.is_alive() and not self._closed:
            raise AudioDeviceError("The audio player stopped working; restart tray-reader.")

    def _begin(self, cancel: threading.Event | None) -> _Request:
        while (self._req is not None or self._stopping) and not self._closed:
            self._cond.wait(0.5)  # the previous request plays out first (queue mode)
            self._check_feeder()
            self._raise_pending()
        if self._closed:
            raise AudioDeviceError("The audio player is closed.")
        if self._stream is None or not self._stream.active:
            self._close_device()
            try:
                self._open_device(self.config.device)
            except AudioDeviceError as e:
                self._state, self._error = PlayerState.ERROR, str(e)
                self._cond.notify_all()
                raise
        self._req = _Request(cancel or threading.Event(), Timeline())
        self._reset_pipeline()
        self._first_latency = None
        self._first_pending = True
        self._hold = False
        self._state, self._error = PlayerState.SPEAKING, None
        self._cond.notify_all()
        return self._req

    def _open_device(self, device: str | None) -> None:
        stream = self._output.open(device, self.config.block_ms, self.config.latency_ms, self._render)
        if stream.rate != self._rate:
            cfg = self.config
            self._rate = stream.rate
            guard = int(stream.rate * cfg.fade_ms / 1000) + 2 * max(stream.blocksize, 1024)
            self._fill_limit = int(stream.rate * cfg.buffer_ms / 1000)
            # The guard keeps the samples just played intact, so a pause can rewind over them.
            self._ring = SampleRing(self._fill_limit + guard)
            self._fade_step = 1.0 / max(1.0, stream.rate * cfg.fade_ms / 1000)
            np.multiply(np.arange(1, _MAX_BLOCK + 1, dtype=np.float32), self._fade_step, out=self._ramp)
        self._stream = stream
        self._last_callbacks, self._last_progress = self._callbacks, time.monotonic()
        log.info("audio output: %s at %d Hz, block %d", stream.device, stream.rate, stream.blocksize)

    def _close_device(self) -> None:
        if self._stream is not None:
            self._stream.close()
            self._xruns_before += self._stream.xruns
            self._stream = None
        self._gain = 0.0
        self._ring.discard()

    def _reset_pipeline(self) -> None:
        """Forget buffered audio and resampler state (new request, seek, new device rate)."""
        self._resampler = soxr.ResampleStream(SAMPLE_RATE, self._rate, 1, dtype="float32")
        self._pending = np.zeros(0, np.float32)
        self._markers.clear()
        self._ring.discard()

    def _post_seek(self, where: str) -> None:
        with self._cond:
            if self._req is not None and not self._stopping:
                self._seek = where
                self._cond.notify_all()

    def _status(self) -> PlayerStatus:
        sentence = None
        if self._req is not None and self._markers:
            position = self._heard()[0]
            if position < len(self._req.timeline):
                sentence = self._req.timeline.sentence_id(position)
        return PlayerStatus(self._state, sentence, self._error)

    def _heard(self) -> tuple[int, float]:
        """(sentence position, seconds of it heard) at the play position."""
        read = self._ring.read
        while len(self._markers) > 1 and self._markers[1][0] <= read:
            self._markers.popleft()
        pos, position, offset = self._markers[0]
        return position, max(0, read - pos) / self._rate + offset / SAMPLE_RATE

    # -- feeder thread ---------------------------------------------------------------------------
    def _feed_loop(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                self._step()
                status = self._status()
                listeners = list(self._listeners) if status != self._published else []
                self._published = status
            for listener in listeners:
                try:
                    listener(status)
                except Exception:  # noqa: BLE001 - a faulty listener (tray, caption) must not stop the audio
                    log.exception("player listener %r failed", listener)
            with self._cond:
                # Decided now, not before the listeners ran: a request begun meanwhile was
                # notified while nobody waited, and an idle wait would sleep through it.
                busy = self._req is not None or self._stopping
                timeout = (
                    self.config.block_ms / 1000
                    if busy
                    else (self.config.idle_poll_s if self._stream else None)
                )
                if not self._closed and not self._handed:
                    self._cond.wait(timeout)
                self._handed = False

    def _step(self) -> None:
        req = self._req
        if self._stream is not None:
            self._watch_device()
        if req is None:
            if self._stream is not None and time.monotonic() - self._idle_since > self.config.idle_close_s:
                self._close_device()
            return
        if self._first_latency is None and not self._first_pending and req.handed_at is not None:
            self._first_latency = self._first_heard - req.handed_at
        if self._stopping or self._seek is not None:
            self._hold = True
            if self._gain > 0.0 and self._stream is not None and self._stream.active:
                return  # still fading out
            if self._stopping:
                self._end_request()
                return
            self._do_seek(req)
        self._fill(req)
        self._expect = (
            req.audio_started
            and self._state is PlayerState.SPEAKING
            and not (req.flushed and req.pad_left == 0)
        )
        if req.end_pos is not None and self._ring.read >= req.end_pos:
            self._end_request()
            return
        if self._state is PlayerState.SPEAKING:
            self._forget_old(req)

    def _end_request(self) -> None:
        self._reset_pipeline()
        self._req = None
        self._stopping = False
        self._seek = None
        self._hold = False
        self._expect = False
        if self._state is not PlayerState.ERROR:
            self._state = PlayerState.IDLE
        self._idle_since = time.monotonic()
        self._cond.notify_all()

    def _do_seek(self, req: _Request) -> None:
        where, self._seek = self._seek, None
        if self._markers:
            position, heard = self._heard()
        else:
            position, heard = req.timeline.position, 0.0
        if isinstance(where, int):
            target = where
        elif where == "next":
            target = position + 1
        else:
            target = position if heard > self.config.restart_s or position == 0 else position - 1
        self._reset_pipeline()
        req.timeline.seek(target)
        req.flushed, req.pad_left, req.end_pos = False, 0, None
        if self._state is not PlayerState.PAUSED:
            self._hold = False
        self._cond.notify_all()

    def _fill(self, req: _Request) -> None:
        ring, limit, tl = self._ring, self._fill_limit, req.timeline
        while ring.room(limit) > 0:
            if len(self._pending):
                n = ring.push(self._pending, limit=limit)
                self._pending = self._pending[n:]
                continue
            if req.pad_left > 0:
                req.pad_left -= ring.push(None, req.pad_left, limit=limit)
                if req.pad_left == 0:
                    req.end_pos = ring.write
                continue
            if req.end_pos is not None:
                return
            piece = tl.take(int(ring.room(limit) * SAMPLE_RATE / self._rate) + 64)
            assert self._resampler is not None
            if piece is not None:
                req.audio_started = True
                if piece.offset == 0 or not self._markers:
                    self._markers.append((ring.write, piece.position, piece.offset))
                self._pending = self._resampler.resample_chunk(piece.samples)
                self._cond.notify_all()  # play() may be waiting for room
            elif tl.at_end() and not req.flushed:
                # soxr keeps a tail inside; last=True hands it over.
                self._pending = self._resampler.resample_chunk(np.zeros(0, np.float32), last=True)
                req.flushed = True
                req.pad_left = max(1, int(self._rate * self.config.end_pad_ms / 1000))
            else:
                return

    def _forget_old(self, req: _Request) -> None:
        tl = req.timeline
        keep = self.config.retain_s * SAMPLE_RATE
        oldest = tl.oldest
        while oldest < tl.position and tl.frames_before(tl.position) > keep:
            oldest += 1
            tl.forget_before(oldest)

    def _watch_device(self) -> None:
        stream = self._stream
        assert stream is not None
        now = time.monotonic()
        if self._callbacks != self._last_callbacks:
            self._last_callbacks, self._last_progress = self._callbacks, now
        failed = not stream.active
        if not failed and now - self._last_progress > self.config.stall_s:
            failed = True
        if not failed:
            return
        log.warning("audio device %r stopped; reopening", stream.device)
        heard = self._heard()[0] if self._markers else None
        self._close_device()
        if self._req is None:
            return  # idle: the next request opens a device again
        errors = []
        for device in dict.fromkeys([self.config.device, None]):
            try:
                self._open_device(device)
            except AudioDeviceError as e:
                errors.append(str(e))
                continue
            self._reopened += 1
            if heard is not None:
                # What the old device had buffered is lost: replay the sentence being heard.
                self._seek = heard
            return
        message = "The audio device stopped and none could be reopened: " + errors[-1]
        log.error("%s", message)
        req = self._req
        req.cancel.set()
        self._req = None
        self._stopping = False
        self._seek = None
        self._state, self._error, self._error_pending = PlayerState.ERROR, message, message
        self._cond.notify_all()

    # -- audio callback: no locks, no allocation, no logging -----------------------------------
    def _render(self, out: np.ndarray, delay: float) -> None:
        ring = self._ring
        self._callbacks += 1
        hold = self._hold
        target = 0.0 if hold else self._volume
        gain = self._gain
        if not hold:
            self._hold_armed = False
        elif not self._hold_armed:
            self._hold_armed = True
            self._hold_pos = max(ring.read, ring.skip_to)
        if hold and gain == 0.0:
            out.fill(0.0)  # held: nothing is consumed
            return
        n = len(out)
        got = ring.pull_into(out)
        if got < n and self._expect:
            if not self._starving:
                self._underruns += 1
                self._starving = True
            self._underrun_frames += n - got
        elif got == n:
            self._starving = False
        if got and self._first_pending:
            self._first_heard = time.monotonic() + delay
            self._first_pending = False
        if gain != target and n <= _MAX_BLOCK:
            g = self._gains[:n]
            if target > gain:
                np.add(self._ramp[:n], gain, out=g)
                np.minimum(g, target, out=g)
            else:
                np.subtract(gain, self._ramp[:n], out=g)
                np.maximum(g, target, out=g)
            np.multiply(out, g, out=out)
            gain = float(g[n - 1])
            if gain == 0.0 and hold and ring.write - self._hold_pos <= ring.capacity:
                ring.read = self._hold_pos  # resume from where the fade began
            self._gain = gain
        elif gain != target:
            self._gain = gain = target
            out *= gain
        elif gain != 1.0:
            out *= gain
