"""Running tray-reader's speech-dispatcher module as a subprocess, for the module and
end-to-end tests."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class ModuleProcess:
    """`tray-reader speechd-module` with pipes: send commands, read lines as they come."""

    def __init__(self, env: dict[str, str]) -> None:
        env = dict(env)
        env["PYTHONPATH"] = str(ROOT)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tray_reader.cli", "speechd-module", "--threads", "2"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_stderr, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put((time.monotonic(), raw.decode("utf-8", "replace").rstrip("\n")))

    def _pump_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def send(self, data: str | bytes) -> float:
        """Write and flush; the time it was sent."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(data.encode() if isinstance(data, str) else data)
        self.proc.stdin.flush()
        return time.monotonic()

    def line(self, timeout: float = 30.0) -> str:
        return self.lines.get(timeout=timeout)[1]

    def until(self, wanted: str, timeout: float = 60.0) -> tuple[list[str], float]:
        """Lines up to and including ``wanted``, and when that one came."""
        got = []
        deadline = time.monotonic() + timeout
        while True:
            at, line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            got.append(line)
            if line == wanted:
                return got, at

    def drain(self, seconds: float = 0.2) -> list[str]:
        got = []
        deadline = time.monotonic() + seconds
        while True:
            try:
                got.append(self.lines.get(timeout=max(0.0, deadline - time.monotonic()))[1])
            except queue.Empty:
                return got

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(10)
            except (subprocess.TimeoutExpired, BrokenPipeError):
                self.proc.kill()
                self.proc.wait(5)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError, ValueError):
                    pipe.close()


def speech_seconds(audio, rate: int, threshold: float = 0.01) -> float:  # noqa: ANN001
    """Seconds from the first to the last sample louder than ``threshold``."""
    import numpy as np

    loud = np.flatnonzero(np.abs(audio) > threshold)
    return 0.0 if not loud.size else (loud[-1] - loud[0]) / rate


def last_sound(rec, offset: int, threshold: float = 0.01) -> float | None:  # noqa: ANN001
    """Monotonic time of the last sample louder than ``threshold`` after byte ``offset`` of
    a tests.fixtures_desktop.TimedRecorder."""
    import numpy as np

    last = None
    pos = 0
    for t, data in list(rec._blocks):
        end = pos + len(data)
        if end > offset:
            start = max(0, offset - pos) // 4 * 4
            a = np.frombuffer(data[start : len(data) // 4 * 4], np.float32)
            hit = np.flatnonzero(np.abs(a) > threshold)
            if hit.size:
                last = t - (a.size - hit[-1]) / rec.rate
        pos = end
    return last


def median_f0(audio, rate: int) -> float:  # noqa: ANN001
    """Median fundamental frequency (Hz) of captured speech, by the product's own checked
    pitch track (`voices.measure`: octave jumps against the recording's own median
    rejected), 0 when too little is voiced."""
    import numpy as np
    import soxr

    from tray_reader.voices.measure import pitch_stats

    x16k = soxr.resample(np.asarray(audio, np.float32), rate, 16_000)
    return pitch_stats(np.asarray(x16k, np.float32))[0]


class SpeechDispatcher:
    """A private speech-dispatcher (`--run-single`, its own config, data and runtime dirs
    under ``root``) with tray-reader's module installed by `tray-reader speechd install`;
    stopped by PID."""

    def __init__(self, root: Path, pulse_env: dict[str, str]) -> None:
        self.root = root
        self.env = dict(pulse_env)
        self.env.update(
            PYTHONPATH=str(ROOT),
            XDG_CONFIG_HOME=str(root / "config"),
            XDG_DATA_HOME=str(root / "data"),
            XDG_RUNTIME_DIR=str(root / "run"),
        )
        self.env.pop("SPEECHD_ADDRESS", None)
        self.socket = root / "run" / "speech-dispatcher" / "speechd.sock"
        self.log = root / "speechd.log"
        self.proc: subprocess.Popen | None = None

    def tray_reader(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tray_reader.cli", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def start(self, timeout: float = 30.0) -> None:
        (self.root / "run").mkdir(mode=0o700, parents=True, exist_ok=True)
        installed = self.tray_reader("speechd", "install")
        assert installed.returncode == 0, installed.stderr
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["speech-dispatcher", "--run-single", "--timeout", "0", "--log-level", "4"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"speech-dispatcher did not start: {self.log.read_text(errors='replace')[-2000:]}"
                )
            time.sleep(0.05)

    def log_tail(self, chars: int = 6000) -> str:
        """The end of the server's output and of its log files (in the runtime dir)."""
        logs = [self.log, *sorted((self.root / "run" / "speech-dispatcher" / "log").glob("*.log"))]
        return "\n".join(f"== {p}\n{p.read_text(errors='replace')[-chars:]}" for p in logs if p.exists())

    def say(self, *args: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["spd-say", *args], env=self.env, capture_output=True, text=True, timeout=timeout
        )

    def spawn_say(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(["spd-say", *args], env=self.env)

    def module_pids(self) -> list[int]:
        """PIDs of the server's children running tray-reader's module."""
        assert self.proc is not None
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        pids = [int(p) for p in children.read_text().split()] if children.exists() else []
        ours = []
        for pid in pids:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"speechd-module" in cmdline:
                ours.append(pid)
        return ours

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class SsipClient:
    """A minimal SSIP client on speech-dispatcher's socket (for bursts spd-say is too slow for)."""

    def __init__(self, socket_path: Path) -> None:
        import socket

        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(socket_path))
        self.file = self.sock.makefile("rb")
        assert self.command("SET self CLIENT_NAME test:burst:main").startswith("208")

    def reply(self) -> str:
        lines = []
        while True:
            line = self.file.readline().decode("utf-8", "replace").rstrip("\r\n")
            lines.append(line)
            if len(line) < 4 or line[3] == " ":
                return "\n".join(lines)

    def command(self, line: str) -> str:
        self.sock.sendall(line.encode() + b"\r\n")
        return self.reply()

    def speak(self, text: str) -> str:
        assert self.command("SPEAK").startswith("230")
        self.sock.sendall(text.encode() + b"\r\n.\r\n")
        return self.reply()

    def close(self) -> None:
        try:
            self.command("QUIT")
        finally:
            self.file.close()
            self.sock.close()


def kept_capture(name: str, audio, rate: int, heard: str) -> str:  # noqa: ANN001
    """Save a capture whose words were not heard (for a failure that only a full run shows):
    the message names the file."""
    import soundfile

    folder = Path(tempfile.gettempdir()) / "tray-reader-captures"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.wav"
    soundfile.write(path, audio, rate)
    return f"{heard!r} (capture kept in {path})"
