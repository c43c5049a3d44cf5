"""Running tray-reader's speech-dispatcher module as a subprocess, for the module and
end-to-end tests."""

from __future__ import annotations

import queue
import subprocess
import sys
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
    """Median fundamental frequency (Hz) over the clearly voiced 40 ms frames, by
    autocorrelation (70-500 Hz)."""
    import numpy as np

    w = int(0.04 * rate)
    found = []
    for i in range(0, len(audio) - w, w):
        x = np.asarray(audio[i : i + w], np.float64)
        if np.abs(x).max() < 0.05:
            continue
        x = x - x.mean()
        c = np.correlate(x, x, "full")[w - 1 :]
        lo, hi = int(rate / 500), int(rate / 70)
        k = lo + int(np.argmax(c[lo:hi]))
        if c[k] > 0.5 * c[0]:
            found.append(rate / k)
    return float(np.median(found)) if found else 0.0
