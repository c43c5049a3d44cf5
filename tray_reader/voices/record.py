"""Recording a voice sample: a small audio-source interface, the microphone, and an in-memory source.

`record()` pulls blocks from a source until the time limit or `stop` is set, reporting the
level of each block (for a live meter). The microphone source wraps a sounddevice
InputStream whose callback only copies into a bounded queue.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Protocol

import numpy as np

from tray_reader.errors import AudioDeviceError, EnrollmentError

RECORD_RATE = 16_000
MAX_SECONDS = 60.0
"""Longest recording: the passage read slowly (90 words a minute) still fits."""
PASSAGE = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours. These take the shape "
    "of a long round arch, with its path high above, and its two ends apparently beyond the horizon. "
    "On a quiet morning by the harbour, the fishing boats rock gently while gulls circle overhead. "
    "A baker opens her shop early, and the smell of warm bread drifts down the narrow street "
    "towards the water."
)
"""What `voice record` asks the user to read: the opening of 'The Rainbow Passage', then two
sentences of the project's own; about 30 s read aloud. A third of it is held back to judge
the voices made on (`guard.split`): with 28 s recordings the guard kept a closer voice for four
of five held-out speakers, with 14 s for one (docs/benchmarks.md)."""


class AudioSource(Protocol):
    """Where recorded samples come from."""

    rate: int

    def check(self) -> None:
        """Raise AudioDeviceError if capturing cannot start (before the user is asked to speak)."""

    def start(self) -> None:
        """Begin capturing."""

    def read(self, timeout: float) -> np.ndarray | None:
        """The next block of float32 mono samples; None when the source has no more."""

    def stop(self) -> None:
        """Stop capturing and release the device."""


class MemorySource:
    """Plays back given samples in blocks (for tests and for feeding a file through `record`)."""

    def __init__(self, samples: np.ndarray, rate: int, block: int = 1600) -> None:
        self.rate = rate
        self._samples = np.asarray(samples, dtype=np.float32)
        self._block = block
        self._pos = 0

    def check(self) -> None:
        pass

    def start(self) -> None:
        self._pos = 0

    def read(self, timeout: float) -> np.ndarray | None:
        if self._pos >= len(self._samples):
            return None
        block = self._samples[self._pos : self._pos + self._block]
        self._pos += self._block
        return block

    def stop(self) -> None:
        pass


class MicrophoneSource:
    """The default input device through a sounddevice InputStream."""

    def __init__(self, rate: int = RECORD_RATE, device: int | str | None = None) -> None:
        self.rate = rate
        self._device = device
        self._queue: queue.Queue[np.ndarray] = queue.Queue(maxsize=200)
        self._stream = None
        self.overflows = 0
        """Blocks dropped because the reader fell behind."""

    def _callback(self, indata: np.ndarray, frames: int, time_info: object, status: object) -> None:
        try:
            self._queue.put_nowait(indata[:, 0].copy())
        except queue.Full:
            self.overflows += 1

    def _sounddevice(self):  # type: ignore[no-untyped-def]
        try:
            import sounddevice
        except OSError as e:  # PortAudio itself is missing
            raise AudioDeviceError(f"Cannot use audio input ({e}). Install libportaudio2.") from None
        return sounddevice

    def check(self) -> None:
        sounddevice = self._sounddevice()
        try:
            sounddevice.check_input_settings(
                device=self._device, channels=1, dtype="float32", samplerate=self.rate
            )
        except (sounddevice.PortAudioError, ValueError) as e:
            raise AudioDeviceError(
                f"Cannot open the microphone ({e}). Check that one is connected."
            ) from None

    def start(self) -> None:
        sounddevice = self._sounddevice()
        try:
            stream = sounddevice.InputStream(
                samplerate=self.rate,
                channels=1,
                dtype="float32",
                device=self._device,
                callback=self._callback,
            )
            stream.start()
            self._stream = stream
        except (sounddevice.PortAudioError, ValueError) as e:
            raise AudioDeviceError(
                f"Cannot open the microphone ({e}). Check that one is connected."
            ) from None

    def read(self, timeout: float) -> np.ndarray | None:
        try:
            return self._queue.get(timeout=timeout)
        except queue.Empty:
            return np.zeros(0, np.float32)

    def stop(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None


def level_db(block: np.ndarray) -> float:
    """RMS level of a block in dBFS (-100 for silence)."""
    if len(block) == 0:
        return -100.0
    return float(max(-100.0, 10 * np.log10(np.mean(np.square(block, dtype=np.float64)) + 1e-10)))


def record(
    source: AudioSource,
    max_seconds: float = MAX_SECONDS,
    stop: threading.Event | None = None,
    on_level: Callable[[float, float], None] | None = None,
) -> np.ndarray:
    """Samples from `source` until `max_seconds`, its end, or `stop`; calls on_level(seconds, dB)."""
    stop = stop or threading.Event()
    limit = int(max_seconds * source.rate)
    blocks: list[np.ndarray] = []
    total = 0
    source.start()
    try:
        while total < limit and not stop.is_set():
            block = source.read(timeout=0.2)
            if block is None:
                break
            if len(block) == 0:
                continue
            block = block[: limit - total]
            blocks.append(block)
            total += len(block)
            if on_level:
                on_level(total / source.rate, level_db(block))
    finally:
        source.stop()
    if not blocks:
        raise EnrollmentError("Nothing was recorded. Check that the microphone is connected and unmuted.")
    return np.concatenate(blocks).astype(np.float32)


def meter(db: float, width: int = 30) -> str:
    """A text level bar for a dBFS value (-60..0)."""
    filled = int(round((min(0.0, max(-60.0, db)) + 60.0) / 60.0 * width))
    return "#" * filled + "-" * (width - filled)
