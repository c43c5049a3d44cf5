"""The audio output device behind a small interface: PortAudio (sounddevice) or memory.

The player hands `open()` a render function; the stream calls it from its own thread with a
float32 mono buffer to fill and the time (seconds) until the buffer's first sample is heard.
`SoundDeviceOutput` is the real one; `MemoryOutput` pulls the render function on a thread at
real or faster pace and keeps what was "played", for unit tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tray_reader.errors import AudioDeviceError

RenderFn = Callable[[np.ndarray, float], None]
"""Fill the buffer (float32 mono) given the seconds until its first sample is heard."""


@dataclass(frozen=True)
class OutputDevice:
    """An output device as the sound system names it."""

    index: int
    """PortAudio's device index (changes between runs; choose devices by name)."""
    name: str
    """Name to put in the settings."""
    rate: int
    """The device's native sample rate in Hz."""
    is_default: bool
    """True for the device used when none is chosen."""


class OutputStream(Protocol):
    """A started output stream."""

    device: str
    """Name of the device it plays on."""
    rate: int
    """Sample rate the render function is called at."""
    blocksize: int
    """Frames per render call."""
    latency: float
    """Output latency the device reported, seconds."""
    xruns: int
    """Callbacks the device reported as late (it played a gap: the system was too busy)."""

    @property
    def active(self) -> bool:
        """False once the stream has stopped on its own (device error or gone)."""

    def close(self) -> None:
        """Stop and release the device; safe to call twice."""


class AudioOutput(Protocol):
    """Opens output streams and lists devices."""

    def open(self, device: str | None, block_ms: float, latency_ms: float, render: RenderFn) -> OutputStream:
        """Open and start a mono stream at the device's native rate; AudioDeviceError if not."""

    def devices(self) -> list[OutputDevice]:
        """Output devices, default first; AudioDeviceError when there is no sound system."""


def _rescan_portaudio() -> None:
    """PortAudio lists devices only when it initialises: a sound server started after us
    (a daemon autostarted before PulseAudio) is seen only after a re-initialisation.
    The maintainers' advice (python-sounddevice issues #125, #516); it stops open streams,
    so it runs only when none is open."""
    import sounddevice

    sounddevice._terminate()
    sounddevice._initialize()


class SoundDeviceOutput:
    """Real output through sounddevice / PortAudio."""

    def __init__(self) -> None:
        self._open_streams = 0

    def devices(self) -> list[OutputDevice]:
        import sounddevice

        try:
            listed = sounddevice.query_devices()
            default = sounddevice.default.device[1]
        except sounddevice.PortAudioError as e:
            raise AudioDeviceError(f"The sound system cannot be queried: {e}") from None
        if not any(d["max_output_channels"] > 0 for d in listed) and self._open_streams == 0:
            _rescan_portaudio()
            listed = sounddevice.query_devices()
            default = sounddevice.default.device[1]
        found = [
            OutputDevice(d["index"], d["name"], int(d["default_samplerate"]), d["index"] == default)
            for d in listed
            if d["max_output_channels"] > 0
        ]
        if not found:
            raise AudioDeviceError(
                "No audio output device was found. Is a sound server (PulseAudio or PipeWire) running?"
            )
        return sorted(found, key=lambda d: not d.is_default)

    def _choose(self, device: str | None) -> OutputDevice:
        found = self.devices()
        if device is None:
            return found[0]
        exact = [d for d in found if d.name == device]
        matches = exact or [d for d in found if device.lower() in d.name.lower()]
        if len(matches) != 1:
            names = ", ".join(repr(d.name) for d in found)
            what = "No" if not matches else "More than one"
            raise AudioDeviceError(f"{what} output device matches {device!r}. Devices: {names}")
        return matches[0]

    def open(self, device: str | None, block_ms: float, latency_ms: float, render: RenderFn) -> OutputStream:
        import sounddevice

        chosen = self._choose(device)
        blocksize = max(64, int(chosen.rate * block_ms / 1000))
        stream = None
        try:
            stream = _SoundDeviceStream(chosen, blocksize, latency_ms / 1000, render, self)
            stream.start()
        except sounddevice.PortAudioError as e:
            if stream is not None:
                stream.close()
            raise AudioDeviceError(
                f"Cannot play on {chosen.name!r} ({e}). Is the sound server (PulseAudio or PipeWire) running?"
            ) from None
        return stream


class _SoundDeviceStream:
    def __init__(
        self, device: OutputDevice, blocksize: int, latency: float, render: RenderFn, owner: SoundDeviceOutput
    ) -> None:
        import sounddevice

        self.device = device.name
        self.rate = device.rate
        self.blocksize = blocksize
        self._render = render
        self._owner = owner
        self._closed = False
        self.xruns = 0
        self._stream = sounddevice.OutputStream(
            samplerate=device.rate,
            blocksize=blocksize,
            device=device.index,
            channels=1,
            dtype="float32",
            latency=latency,
            callback=self._callback,
        )
        owner._open_streams += 1
        self.latency = float(self._stream.latency)

    def _callback(self, outdata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        if status.output_underflow:
            self.xruns += 1
        delay = time_info.outputBufferDacTime - time_info.currentTime
        # Some host APIs report 0 (or nonsense) for the DAC time; then trust the stream's latency.
        if not 0.0 < delay < 1.0:
            delay = self.latency
        self._render(outdata[:, 0], delay)

    def start(self) -> None:
        self._stream.start()

    @property
    def active(self) -> bool:
        return not self._closed and bool(self._stream.active)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._owner._open_streams -= 1
        # A stream whose server died errors on stop; releasing it is all that is left to do.
        self._stream.close(ignore_errors=True)


class MemoryOutput:
    """In-memory output device for tests: keeps everything rendered.

    `pace` 1.0 pulls the render function in real time, 4.0 four times faster, 0 as fast as
    the thread can, None only when the test calls `stream.pull()`. `fail_next_open` makes the next open() raise; `stream.fail()` stops a stream
    as an unplugged device would.
    """

    def __init__(
        self, rate: int = 48_000, pace: float | None = 1.0, names: tuple[str, ...] = ("memory",)
    ) -> None:
        self.rate = rate
        self.pace = pace
        self.names = names
        self.fail_next_open = 0
        self.streams: list[MemoryStream] = []

    def devices(self) -> list[OutputDevice]:
        return [OutputDevice(i, n, self.rate, i == 0) for i, n in enumerate(self.names)]

    def open(self, device: str | None, block_ms: float, latency_ms: float, render: RenderFn) -> MemoryStream:
        if self.fail_next_open > 0:
            self.fail_next_open -= 1
            raise AudioDeviceError("memory device refused to open (test)")
        name = device if device is not None else self.names[0]
        if name not in self.names:
            raise AudioDeviceError(f"No output device matches {name!r}")
        stream = MemoryStream(name, self.rate, max(16, int(self.rate * block_ms / 1000)), render, self.pace)
        self.streams.append(stream)
        return stream

    def played(self) -> np.ndarray:
        """All samples rendered by every stream, in order."""
        parts = [s.played() for s in self.streams]
        return np.concatenate(parts) if parts else np.zeros(0, np.float32)


class MemoryStream:
    """A stream that calls render on its own thread and records the output."""

    latency = 0.0

    def __init__(self, device: str, rate: int, blocksize: int, render: RenderFn, pace: float | None) -> None:
        self.device = device
        self.rate = rate
        self.blocksize = blocksize
        self._render = render
        self._pace = pace
        self.xruns = 0
        self._frozen = False
        self._blocks: list[np.ndarray] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-output", daemon=True)
        if pace is not None:
            self._thread.start()

    def pull(self, blocks: int = 1) -> np.ndarray:
        """Render `blocks` blocks now and return them."""
        out = []
        for _ in range(blocks):
            block = np.zeros(self.blocksize, np.float32)
            self._render(block, 0.0)
            self._blocks.append(block)
            out.append(block)
        return np.concatenate(out)

    def _run(self) -> None:
        assert self._pace is not None
        period = self.blocksize / self.rate / self._pace if self._pace > 0 else 0.0
        due = time.monotonic()
        while not self._stop.is_set():
            self.pull()
            due += period
            wait = due - time.monotonic()
            if wait > 0:
                self._stop.wait(wait)
            elif period == 0.0:
                time.sleep(0)  # let the producer run
            elif wait < -period:
                # This thread was starved: a real device would have played a gap, not caught up.
                self.xruns += 1
                due = time.monotonic()

    def fail(self) -> None:
        """Stop calling render, as a vanished device does."""
        self.close()

    def freeze(self) -> None:
        """Stop calling render but still claim to be active, as a hung device does."""
        self._frozen = True
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(2)

    @property
    def active(self) -> bool:
        return self._frozen or not self._stop.is_set()

    def close(self) -> None:
        self._frozen = False
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(2)

    def played(self) -> np.ndarray:
        blocks = list(self._blocks)
        return np.concatenate(blocks) if blocks else np.zeros(0, np.float32)
