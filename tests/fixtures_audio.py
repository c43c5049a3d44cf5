"""PulseAudio null-sink fixtures (owned by the player work).

``pulse`` (session scope) starts a private PulseAudio server with one null sink, points this
process (and, through ``pulse.env``, any subprocess) at it and stops everything by PID at the
end. What was played is read back from the sink's monitor::

    def test_x(pulse):
        with pulse.recorder() as rec:     # parec on <sink>.monitor, float32 mono
            ...play something...
        audio = rec.audio                 # np.ndarray at pulse.rate
        subprocess.run([...], env=pulse.env)

``pulse.capture(seconds)`` records a fixed span; ``pulse.kill()`` / ``pulse.start()`` /
``pulse.restart()`` stop and start the server for the recovery tests (the sink name, socket
and ``env`` stay the same, so clients reconnect to the new server). ``pulse.underruns()``
counts the times the server found a PortAudio stream empty (a client too late: on a busy CPU
that, not the code under test, explains a gap or click). ``pulse.client_env`` holds only the
variables a client needs (PULSE_SERVER, PULSE_SINK).

Measured here: the first PortAudio stream of a *process* stalls 0.7-1.7 s after its first
callbacks, even with the silent keep-alive stream; the fixture runs one warm-up stream in
the test process (``warm_up_portaudio``). A daemon under test pays it on its first stream:
``Player.open()`` at start-up moves it out of the first request.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

SINK = "tray_reader_test"


def _die_with_us() -> None:
    """In the child: get SIGTERM when the test process ends, even if it is killed, so no
    sound server outlives an aborted run (Linux prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


RATE = 48_000


def _stop(proc: subprocess.Popen | None, timeout: float = 3.0, close: bool = True) -> None:
    """End ``proc`` (SIGTERM, then SIGKILL) and close the pipes to it (unless not ``close``)."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
    if not close:
        return
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


class Recorder:
    """Records ``<sink>.monitor`` with parec into memory until stopped."""

    def __init__(self, env: dict[str, str], sink: str, rate: int) -> None:
        self._cmd = [
            "parec",
            f"--device={sink}.monitor",
            "--raw",
            "--format=float32le",
            f"--rate={rate}",
            "--channels=1",
            "--latency-msec=10",
        ]
        self._env = env
        self._proc: subprocess.Popen | None = None
        self._buf = bytearray()
        self._first = threading.Event()
        self._thread: threading.Thread | None = None
        self.audio = np.zeros(0, np.float32)
        """What was recorded, float32 mono at the sink's rate (set by ``stop``)."""

    def start(self, timeout: float = 5.0) -> Recorder:
        """Start parec; returns once the first samples arrived (the sink is never idle)."""
        self._proc = subprocess.Popen(
            self._cmd, env=self._env, stdout=subprocess.PIPE, preexec_fn=_die_with_us
        )
        self._thread = threading.Thread(target=self._pump, name="parec-reader", daemon=True)
        self._thread.start()
        if not self._first.wait(timeout):
            self.stop()
            raise RuntimeError("parec delivered nothing: is the PulseAudio fixture running?")
        return self

    def _pump(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            if not data:
                return
            self._buf += data
            self._first.set()

    def stop(self) -> np.ndarray:
        # parec first, then the reader drains the pipe to its end, then the pipe is closed:
        # closing it under a reader still draining made its read fail (EBADF).
        _stop(self._proc, close=False)
        if self._thread is not None:
            self._thread.join(3)
        _stop(self._proc)
        n = len(self._buf) // 4 * 4
        self.audio = np.frombuffer(bytes(self._buf[:n]), dtype=np.float32).copy()
        return self.audio

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class PulseServer:
    """A private PulseAudio server with one null sink, run as a child process."""

    def __init__(self, sink: str = SINK, rate: int = RATE) -> None:
        self.sink = sink
        """Name of the null sink (also the default sink); capture from ``<sink>.monitor``."""
        self.rate = rate
        """The sink's sample rate; recordings come at this rate."""
        self.dir = Path(tempfile.mkdtemp(prefix="tray-reader-pulse-"))
        self.socket = self.dir / "native"
        self.env = dict(os.environ)
        """Environment for subprocesses that should play into (or record from) this server."""
        self.env.update(self.client_env)
        self._server: subprocess.Popen | None = None
        self._keepalive: subprocess.Popen | None = None
        self.log = self.dir / "pulseaudio.log"

    @property
    def client_env(self) -> dict[str, str]:
        """The variables a client needs to find this server (and nothing else)."""
        return {"PULSE_SERVER": f"unix:{self.socket}", "PULSE_SINK": self.sink}

    @property
    def pid(self) -> int | None:
        return self._server.pid if self._server and self._server.poll() is None else None

    def start(self, timeout: float = 10.0) -> None:
        # We run as root: a per-user server needs --system=false and its own runtime dir,
        # or it refuses to start / collides with another server.
        server_env = dict(self.env)
        server_env.update(
            XDG_RUNTIME_DIR=str(self.dir), PULSE_RUNTIME_PATH=str(self.dir / "runtime"), HOME=str(self.dir)
        )
        server_env.pop("PULSE_SERVER", None)
        with open(self.log, "ab") as log:
            self._server = subprocess.Popen(
                [
                    "pulseaudio",
                    "--system=false",
                    "--daemonize=no",
                    "-n",
                    "--exit-idle-time=-1",
                    "--disallow-exit",
                    "--use-pid-file=no",
                    "--log-target=stderr",
                    # Debug level: the log then names each stream that ran dry (see underruns()).
                    "--log-level=debug",
                    "-L",
                    f"module-null-sink sink_name={self.sink} rate={self.rate} channels=2",
                    "-L",
                    f"module-native-protocol-unix auth-anonymous=1 socket={self.socket}",
                ],
                env=server_env,
                stdout=log,
                stderr=log,
                preexec_fn=_die_with_us,
            )
        deadline = time.monotonic() + timeout
        while True:
            ok = subprocess.run(["pactl", "info"], env=self.env, capture_output=True, timeout=5).returncode
            if ok == 0:
                break
            if self._server.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"PulseAudio did not start; see {self.log}:\n{self.log.read_text()}")
            time.sleep(0.05)
        subprocess.run(["pactl", "set-default-sink", self.sink], env=self.env, check=True, timeout=5)
        # DESIGN.md: the first stream into an idle null sink stalls ~1.6 s; a silent stream
        # keeps the sink running so the tests measure the player, not the sink waking up.
        self._keepalive = subprocess.Popen(
            ["pacat", "--playback", "--raw", "--format=s16le", f"--rate={self.rate}", "--channels=1"]
            + ["--latency-msec=20", "/dev/zero"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_us,
        )

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crashing sound server would."""
        _stop(self._keepalive)
        self._keepalive = None
        if self._server is not None and self._server.poll() is None:
            self._server.kill()
            self._server.wait(5)
        self._server = None

    def restart(self) -> None:
        self.kill()
        self.start()

    def stop(self) -> None:
        _stop(self._keepalive)
        self._keepalive = None
        _stop(self._server)
        self._server = None

    def underruns(self, client: str = "ALSA Playback") -> int:
        """Times the server found a client's stream empty so far (PortAudio's stream is named
        'ALSA Playback'): a gap the client did not fill in time, e.g. on a CPU too busy."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return text.count(f"Implicit underrun of '{client}'")

    def recorder(self) -> Recorder:
        """A recorder of the sink's monitor; use as a context manager or start()/stop()."""
        return Recorder(self.env, self.sink, self.rate)

    def capture(self, seconds: float) -> np.ndarray:
        """Record ``seconds`` of what the sink plays (float32 mono at ``rate``)."""
        rec = self.recorder().start()
        time.sleep(seconds)
        return rec.stop()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def silences(audio: np.ndarray, rate: int, level: float = 0.003, between_sounds: bool = True) -> list[float]:
    """Seconds of each run of quiet 10 ms blocks (RMS under ``level``) in ``audio``; with
    ``between_sounds``, only between its first and last sound (RMS over 0.01)."""
    block = rate // 100
    n = audio.size // block
    rms = np.sqrt(np.mean(audio[: n * block].reshape(n, block) ** 2, axis=1))
    if between_sounds:
        loud = np.flatnonzero(rms > 0.01)
        rms = rms[loud[0] : loud[-1]] if loud.size else rms[:0]
    runs, length = [0.0], 0
    for quiet in rms < level:
        length = length + 1 if quiet else 0
        if length == 1:
            runs.append(0.0)
        if quiet:
            runs[-1] = length / 100
    return runs


def reinit_portaudio() -> None:
    """Make PortAudio enumerate devices again (it does so only when it initialises;
    python-sounddevice issue #125)."""
    import sounddevice

    sounddevice._terminate()
    sounddevice._initialize()


def warm_up_portaudio(timeout: float = 6.0) -> None:
    """Run one stream until its callbacks flow at a steady pace.

    Measured here: the first PortAudio stream of a process into a fresh null sink gets its
    first few callbacks, then none for 0.7-1.7 s (also with the silent pacat stream running);
    later streams of the same process do not. Tests measure the player, not that stall.
    """
    import sounddevice

    stamps: list[float] = []

    def callback(outdata, frames, time_info, status) -> None:  # noqa: ANN001
        outdata.fill(0)
        stamps.append(time.monotonic())

    with sounddevice.OutputStream(channels=1, dtype="float32", blocksize=480, callback=callback):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            time.sleep(0.1)
            recent = [t for t in stamps if t > time.monotonic() - 0.5]
            if len(stamps) > 20 and len(recent) > 30 and max(np.diff(recent)) < 0.1:
                return


@pytest.fixture(scope="session")
def pulse() -> Iterator[PulseServer]:
    """A running PulseAudio server with a null sink; this process plays into it."""
    if shutil.which("pulseaudio") is None or shutil.which("parec") is None:
        pytest.fail("pulseaudio / pulseaudio-utils missing: run ./dev test (installs them)")
    server = PulseServer()
    saved = {k: os.environ.get(k) for k in server.client_env}
    try:
        server.start()
        os.environ.update(server.client_env)
        reinit_portaudio()
        warm_up_portaudio()
        yield server
    finally:
        server.close()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# -- analysing captures ---------------------------------------------------------------------------
def envelope(audio: np.ndarray, rate: int, window_ms: float = 5.0) -> np.ndarray:
    """Peak level per window of `window_ms`."""
    w = max(1, int(rate * window_ms / 1000))
    n = len(audio) // w
    return np.abs(audio[: n * w]).reshape(n, w).max(axis=1)


def active_span(audio: np.ndarray, threshold: float = 0.02) -> tuple[int, int]:
    """First and one-past-last sample index louder than `threshold` (0, 0 if none)."""
    loud = np.flatnonzero(np.abs(audio) > threshold)
    return (int(loud[0]), int(loud[-1]) + 1) if len(loud) else (0, 0)


def dominant_frequency(audio: np.ndarray, rate: int) -> float:
    """Frequency (Hz) of the strongest spectral peak, refined by parabolic interpolation."""
    windowed = audio * np.hanning(len(audio))
    spectrum = np.abs(np.fft.rfft(windowed, n=4 * len(audio)))
    k = int(np.argmax(spectrum[1:-1])) + 1
    a, b, c = np.log(spectrum[k - 1 : k + 2] + 1e-12)
    shift = 0.5 * (a - c) / (a - 2 * b + c)
    return (k + shift) * rate / (4 * len(audio))


def frequency_track(audio: np.ndarray, rate: int, window_ms: float = 20.0) -> np.ndarray:
    """Dominant frequency per window (0 where the window is silent)."""
    w = int(rate * window_ms / 1000)
    out = []
    for i in range(0, len(audio) - w + 1, w):
        seg = audio[i : i + w]
        out.append(dominant_frequency(seg, rate) if np.abs(seg).max() > 0.02 else 0.0)
    return np.array(out)
