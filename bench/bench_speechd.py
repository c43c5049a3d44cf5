"""speech-dispatcher output modules, driven over their stdin/stdout as the server does, on a
private PulseAudio null sink: tray-reader's module against espeak-ng's (sd_espeak-ng, when
installed), in the same run.

Prints, over --runs tries each (median and max, milliseconds):
- SPEAK to first sound: the SPEAK block written -> the first sample seen on the sink's
  monitor (parec block arrival minus the samples after it: PulseAudio's buffering included),
  for a short phrase, as a screen reader sends on each move;
- STOP to silence: STOP written, 0.6 s into a long text -> the last sample above the
  threshold on the capture.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fixtures_audio import PulseServer  # noqa: E402
from tests.fixtures_desktop import TimedRecorder  # noqa: E402
from tests.speechd_helpers import ModuleProcess, last_sound  # noqa: E402

ESPEAK = Path("/usr/lib/speech-dispatcher-modules/sd_espeak-ng")
ESPEAK_CONF = Path("/etc/speech-dispatcher/modules/espeak-ng.conf")
SETTINGS = (
    "SET\npitch=0\npitch_range=0\nrate=0\nvolume=100\npunctuation_mode=none\nspelling_mode=off\n"
    "cap_let_recogn=none\nvoice=male1\nlanguage=c\nsynthesis_voice=NULL\n.\n"
)
SHORT = "Open the file menu."
LONG = "This long text goes on, sentence after sentence, so that it can be stopped. " * 5


class EspeakModule(ModuleProcess):
    """speech-dispatcher's espeak-ng module. In 0.11 it only returns its audio to the
    server (705 events); the server's part is played here as its PulseAudio plugin does:
    into a stream (pacat, 20 ms latency) that a STOP drops at once."""

    def __init__(self, env: dict[str, str]) -> None:
        import queue
        import subprocess
        import threading

        self.env = env
        self.proc = subprocess.Popen(
            [str(ESPEAK), str(ESPEAK_CONF)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        self.stderr = b""
        self._player: subprocess.Popen | None = None
        self._draining: list[subprocess.Popen] = []
        self._format: dict[str, int] = {}
        self._lock = threading.Lock()
        self._stopped = False  # audio still coming after a STOP is dropped, as the server does
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            if raw.startswith(b"705-AUDIO\x00"):
                self._play(_unescape(raw[len(b"705-AUDIO\x00") : -1]))
                continue
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith("705-") and "=" in line:
                key, _, value = line[4:].partition("=")
                self._format[key] = int(value)
            elif line != "705 AUDIO":
                self.lines.put((time.monotonic(), line))
                if line in ("703 STOP", "702 END"):
                    self._end(drop=line == "703 STOP")

    def _play(self, data: bytes) -> None:

        with self._lock:
            if not self._stopped:
                self._write(data)

    def _write(self, data: bytes) -> None:
        import subprocess

        if self._player is None:
            rate = self._format.get("sample_rate", 22050)
            self._player = subprocess.Popen(
                [
                    "pacat",
                    "--playback",
                    "--raw",
                    "--format=s16le",
                    f"--rate={rate}",
                    "--channels=1",
                    "--latency-msec=20",
                ],
                stdin=subprocess.PIPE,
                env=self.env,
            )
        assert self._player.stdin is not None
        self._player.stdin.write(data)
        self._player.stdin.flush()

    def _end(self, drop: bool) -> None:
        with self._lock:
            self._end_locked(drop)

    def _end_locked(self, drop: bool) -> None:
        player, self._player = self._player, None
        if player is not None:
            assert player.stdin is not None
            player.stdin.close()  # plays out what it has
            self._draining.append(player)
        if drop:
            for player in self._draining:
                player.kill()  # our own pacats, by their Popen
                player.wait(10)
            self._draining.clear()

    def send(self, data: str | bytes) -> float:
        if data == "STOP\n":
            sent = super().send(data)
            with self._lock:
                self._stopped = True
                self._end_locked(drop=True)  # the server flushes its queue on STOP at once
            return sent
        if isinstance(data, str) and data.startswith("SPEAK"):
            with self._lock:
                self._stopped = False
        return super().send(data)


def _unescape(data: bytes) -> bytes:
    """speech-dispatcher's HDLC-style escaping of audio (0x7d, then the byte with bit 5 flipped)."""
    out = bytearray()
    i = 0
    while i < len(data):
        j = data.find(b"\x7d", i)
        if j < 0:
            out += data[i:]
            break
        out += data[i:j]
        if j + 1 < len(data):
            out.append(data[j + 1] ^ 0x20)
        i = j + 2
    return bytes(out)


def start(module: ModuleProcess) -> None:
    """INIT and audio set-up as the server does: it offers server audio first (espeak-ng
    takes it; tray-reader declines and is given PulseAudio settings)."""
    module.send("INIT\n")
    module.until("299 OK LOADED SUCCESSFULLY", 120)
    module.send("AUDIO\naudio_output_method=server\n.\n")
    if module.until("203 OK AUDIO INITIALIZED" if isinstance(module, EspeakModule) else "300 MODULE ERROR")[
        0
    ]:
        pass
    if not isinstance(module, EspeakModule):
        module.send(
            "AUDIO\naudio_output_method=pulse\naudio_pulse_device=default\naudio_pulse_min_length=10\n.\n"
        )
        module.until("203 OK AUDIO INITIALIZED")
    module.send("LOGLEVEL\nlog_level=1\n.\n")
    module.until("203 OK LOGLEVEL SET")


def speak(module: ModuleProcess, text: str) -> float:
    module.send(SETTINGS)
    module.until("203 OK SETTINGS RECEIVED")
    sent = module.send(f"SPEAK\n{text}\n.\n")
    module.until("200 OK SPEAKING")
    return sent


def first_sound(pulse: PulseServer, module: ModuleProcess) -> float:
    rec = TimedRecorder(pulse).start()
    try:
        offset = rec.mark()
        sent = speak(module, SHORT)
        module.until("702 END", 60)
        time.sleep(0.1)
        heard = rec.first_sound_after(offset)
    finally:
        rec.stop()
    return float("nan") if heard is None else heard - sent


def stop_to_silence(pulse: PulseServer, module: ModuleProcess) -> float:
    rec = TimedRecorder(pulse).start()
    try:
        offset = rec.mark()
        speak(module, LONG)
        deadline = time.monotonic() + 30
        while rec.first_sound_after(offset) is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.6)
        stopped = module.send("STOP\n")
        # espeak-ng has often sent all its audio (and 702 END) by now: the server's queue plays it.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and "703 STOP" not in module.drain(0.05):
            pass
        time.sleep(0.5)
        tail = last_sound(rec, offset)
    finally:
        rec.stop()
    return float("nan") if tail is None else max(0.0, tail - stopped)


def figures(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values if v == v]
    if not ms:
        return f"{name}: no sound captured"
    return f"{name}: median {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms ({len(ms)} of {len(values)} heard)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args, _ = parser.parse_known_args()
    pulse = PulseServer()
    try:
        pulse.start()
        modules: list[tuple[str, ModuleProcess]] = [("tray-reader", ModuleProcess(pulse.env))]
        if ESPEAK.exists():
            modules.append(("espeak-ng", EspeakModule(pulse.env)))
        else:
            print("sd_espeak-ng is not installed: tray-reader's figures only")
        for _, module in modules:
            start(module)
        speak(modules[0][1], "Warming up.")  # waits for the model, then the device's first stream
        modules[0][1].until("702 END", 180)
        results: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name, _ in modules}
        for _ in range(args.runs):  # interleaved: both see the same machine load
            for name, module in modules:
                results[name][0].append(first_sound(pulse, module))
                results[name][1].append(stop_to_silence(pulse, module))
        print(f"speech-dispatcher modules, {args.runs} tries each, {os.cpu_count()} cores")
        for name, (first, stop) in results.items():
            print("  " + figures(f"{name} SPEAK to first sound", first))
            print("  " + figures(f"{name} STOP to silence", stop))
        if len(results) == 2:
            t, e = (
                statistics.median(v for v in results[n][0] if v == v) for n in ("tray-reader", "espeak-ng")
            )
            print(f"  first sound, tray-reader / espeak-ng: {t / e:.2f}x")
        for _, module in modules:
            module.close()
    finally:
        pulse.close()


if __name__ == "__main__":
    main()
