"""The daemon's figures as a user meets them (prints them; not a test).

    .venv/bin/python -m bench.bench_daemon                 # every path, 10 presses each
    .venv/bin/python -m bench.bench_daemon --presses 5 --paths cold,prepared
    .venv/bin/python -m bench.bench_daemon --busy          # the same with a busy neighbour
    .venv/bin/python -m bench.bench_daemon --rss-minutes 30

The real tray daemon (`tray-reader run`) under Xvfb with trayer, D-Bus and dunst, its audio
into a PulseAudio null sink captured from the sink's monitor (the test fixtures, started
here). Keys are pressed with XTEST (xdotool). For each path, hotkey to captured sound
(median and max over --presses), the daemon's own figures (key to first chunk, key to
first sample at the DAC), whether the read began with prepared audio, and the player's
underruns in each read's first 5 s. "callback->DAC" starts at the daemon's hotkey callback:
on a busy machine the xdotool process and the key's way to the callback alone took up to
~0.25 s of "sound":

- prepared: the selection settles (> 300 ms) and is prepared before the key;
- during: the key comes while its first words are being prepared;
- repeat: after a read that took over a preparation was stopped, the same selection again;
- stopped: select, `ctl stop` 0.2 s later (while it is prepared), read 0.5 s after;
- readnow: a long text is being read; the next selection is made, settles, "read now";
- cold: prepare_selection = false;
- idle: as cold, but the key comes after IDLE_SECONDS without reading (the audio device was
  closed meanwhile, as it is after any pause in a user's day);
- drag: a sentence selected in a real X window (a GTK text view) by a mouse drag, the key
  200-600 ms later.

Also process start to `ready` (median of --starts; 0 skips) and RSS idle and while reading
a ~5,000-word text (--rss-minutes; 0 skips): `--paths "" --starts 0 --rss-minutes 30` is
the memory run alone. `--busy` keeps one core busy in a neighbour process throughout.
Report os.getloadavg() with the figures: timings on a shared machine are noisy.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fixtures_audio import PulseServer, reinit_portaudio, warm_up_portaudio  # noqa: E402
from tests.fixtures_desktop import Daemon, Desktop, TimedRecorder  # noqa: E402
from tests.selecting import TextWindow  # noqa: E402
from tray_reader.speech.worker import RELEASE_AFTER_S  # noqa: E402

PATHS = ("prepared", "during", "repeat", "stopped", "readnow", "cold", "idle", "drag")
IDLE_SECONDS = 25.0
"""The "idle" path's quiet time before each press: longer than the player keeps its device."""
LONG = " ".join(
    [
        "The old lighthouse stood at the edge of the cliff for more than a century.",
        "Every night its lamp turned slowly, sweeping the dark water with a pale beam.",
        "Sailors far from the harbour trusted it to guide them past the rocks.",
        "When the keeper finally retired, the village decided to keep the light burning.",
    ]
    * 6
)
TEXTS = [
    "Please bring the printed report and your notes.",
    "Rain had fallen all afternoon on the quiet streets.",
    "Learning a new language takes patience and courage.",
    "The meeting will start half an hour later than usual.",
    "A boy in a yellow coat ran past the bakery.",
]


def _wait(pred: Callable[[], object], timeout: float, what: str) -> object:
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _busy_loop() -> None:
    while True:
        pass


class Rig:
    """The desktop, the sound server, the recorder and one daemon."""

    def __init__(self) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="tray-reader-bench-"))
        self.desktop = Desktop()
        self.pulse = PulseServer()
        self.recorder: TimedRecorder | None = None
        self.daemon: Daemon | None = None
        self.window: TextWindow | None = None
        self._keyboard: Keyboard | None = None

    def keyboard(self) -> Keyboard:
        if self._keyboard is None:
            self._keyboard = Keyboard(self.desktop.env["DISPLAY"])
        return self._keyboard

    def start(self) -> None:
        self.desktop.start()
        self.pulse.start()
        os.environ.update(self.pulse.client_env)
        reinit_portaudio()
        warm_up_portaudio()
        self.recorder = TimedRecorder(self.pulse).start()

    def new_daemon(self, settings: str = "") -> tuple[Daemon, float]:
        """A fresh daemon (own config dir); returns it and seconds from start to ready."""
        if self.daemon is not None:
            self.daemon.stop()
        d = Daemon(self.desktop, self.pulse, Path(tempfile.mkdtemp(dir=self.home)))
        if settings:
            d.settings.parent.mkdir(parents=True, exist_ok=True)
            d.settings.write_text(settings)
        t0 = time.monotonic()
        d.start(wait_ready=False)
        while True:
            try:
                if d.status().get("ready"):
                    break
            except Exception:  # noqa: BLE001 - not listening yet
                pass
            assert d.proc is not None
            if d.proc.poll() is not None:
                raise RuntimeError(d.log.read_text())
            time.sleep(0.01)
        self.daemon = d
        return d, time.monotonic() - t0

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.stop()
        if self.window is not None:
            self.window.__exit__()
        if self._keyboard is not None:
            self._keyboard.close()
        if self.recorder is not None:
            self.recorder.stop()
        self.pulse.close()
        self.desktop.stop()
        shutil.rmtree(self.home, ignore_errors=True)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Keyboard:
    """Presses keys through XTEST from this process: the press time is the key's own, not
    that of starting an xdotool process (10-25 ms here, more on a busy machine)."""

    def __init__(self, display: str) -> None:
        from Xlib import XK, X
        from Xlib import display as xdisplay
        from Xlib.ext import xtest

        self._X, self._xtest = X, xtest
        self._d = xdisplay.Display(display)
        self._codes = {
            name: self._d.keysym_to_keycode(XK.string_to_keysym(name)) for name in ("Control_L", "Alt_L", "r")
        }

    def read_hotkey(self) -> float:
        """Ctrl+Alt+R; returns the monotonic time the R key went down."""
        X, xtest, d, c = self._X, self._xtest, self._d, self._codes
        xtest.fake_input(d, X.KeyPress, c["Control_L"])
        xtest.fake_input(d, X.KeyPress, c["Alt_L"])
        d.sync()
        pressed = time.monotonic()
        xtest.fake_input(d, X.KeyPress, c["r"])
        d.sync()
        for key in ("r", "Alt_L", "Control_L"):
            xtest.fake_input(d, X.KeyRelease, c[key])
        d.sync()
        return pressed

    def close(self) -> None:
        self._d.close()


class Presses:
    """Presses the read hotkey and collects what each press gave."""

    def __init__(self, rig: Rig, daemon: Daemon) -> None:
        self.rig, self.d = rig, daemon
        assert rig.recorder is not None
        self.rec = rig.recorder
        self.keys = rig.keyboard()

    def press(self, expect_sound: bool = True) -> dict:
        before = self.d.status()["last"]["pressed"]
        underruns = self.d.status()["last"]["underruns"]
        offset = self.rec.mark()
        pressed = self.keys.read_hotkey()
        last = _wait(
            lambda: (
                (s := self.d.status()["last"])["pressed"] != before
                and (s["first_chunk"] or 0) > pressed
                and (s["first_sample"] or 0) > pressed
                and s
            ),
            20,
            "the read to start",
        )
        assert isinstance(last, dict)
        row = {
            "chunk": last["first_chunk"] - pressed,
            "dac": last["first_sample"] - pressed,
            "callback_dac": last["first_sample"] - last["pressed"],
            "prepared": last["prepared"],
            "underruns_before": underruns,
            "sound": None,
        }
        if expect_sound:
            first = _wait(lambda: self.rec.first_sound_after(offset), 20, "sound")
            assert isinstance(first, float)
            row["sound"] = first - pressed
        time.sleep(5.0)
        row["underruns"] = self.d.status()["last"]["underruns"] - row["underruns_before"]
        return row

    def stop(self) -> None:
        self.d.cli("ctl", "stop")
        _wait(lambda: self.d.status()["state"] == "idle", 10, "idle")


def _select_and_catch_preparing(desk: Desktop, d: Daemon, text: str) -> None:
    """Select ``text`` and return while its first words are being prepared (the key then
    comes during the preparation); a longer text is tried when it was missed."""
    for extra in range(5):
        wanted = text + " And so on." * extra
        desk.set_selection("primary", wanted)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            st = d.status()
            if st["preparing_chars"] == len(wanted):
                return
            if st["prepared_chars"] == len(wanted):
                break  # missed it
            time.sleep(0.005)
    raise RuntimeError("never caught a preparation running")


def _path(rig: Rig, name: str, presses: int) -> list[dict]:
    cold = name in ("cold", "idle")
    d, _ = rig.new_daemon("prepare_selection = false\n" if cold else "")
    p = Presses(rig, d)
    rows: list[dict] = []
    lost = 0
    for i in range(presses):
        try:
            _one(rig, name, d, p, i, rows)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            lost += 1  # a press that did not read (or a tool too slow on a busy machine)
            print(f"  {name} press {i + 1}: {e}", flush=True)
    if lost:
        print(f"  {name}: {lost} of {presses} presses failed", flush=True)
    return rows


def _one(rig: Rig, name: str, d: Daemon, p: Presses, i: int, rows: list[dict]) -> None:
    """One press on path ``name`` (see the module docstring), its row appended to ``rows``."""
    desk = rig.desktop
    text = f"{TEXTS[i % len(TEXTS)]} Number {i + 1}{'.' * (i + 1)}"  # a new length each time
    if name == "idle":
        time.sleep(IDLE_SECONDS)
    if name in ("prepared", "cold", "idle"):
        desk.set_selection("primary", text)
        if name in ("cold", "idle"):
            time.sleep(0.4)
        else:
            _wait(lambda: d.status()["prepared_chars"] == len(text), 10, "prepared")
            time.sleep(0.3)
        rows.append(p.press())
    elif name == "stopped":
        desk.set_selection("primary", text)
        time.sleep(0.2)  # while its first words are being prepared
        p.stop()
        time.sleep(0.5)
        rows.append(p.press())
    elif name == "during":
        _select_and_catch_preparing(desk, d, text)
        rows.append(p.press())
    elif name == "repeat":
        _select_and_catch_preparing(desk, d, text)
        p.press()
        p.stop()
        time.sleep(1.0)
        rows.append(p.press())
    elif name == "readnow":
        d.cli("read", LONG)
        d.wait_state("speaking")
        time.sleep(1.5)
        desk.set_selection("primary", text)
        time.sleep(0.4)
        rows.append(p.press(expect_sound=False))
    elif name == "drag":
        rows.append(_drag_press(rig, p, i))
    p.stop()
    time.sleep(0.3)


DRAG_TEXT = (
    "Please bring the printed report and your notes from the last quarter. "
    "Rain had fallen all afternoon, and the streets shone under the lamps. "
    "Learning a new language takes patience and a little courage. "
    "The meeting on Thursday will start half an hour later than usual."
)


def _drag_press(rig: Rig, p: Presses, i: int) -> dict:
    """Drag over one sentence of the text window, wait a human 200-600 ms, press."""
    assert rig.window is not None
    spans = [m.span() for m in re.finditer(r"\S[^.]*\.", DRAG_TEXT)]
    start, end = spans[i % len(spans)]
    rig.window.drag(start, end)
    _wait(lambda: rig.desktop.get_selection("primary") == DRAG_TEXT[start:end], 5, "the drag's selection")
    time.sleep(random.uniform(0.2, 0.6))
    return p.press()


RSS_TEXT = LONG * 16
"""~5,000 words, read over and over (a new read when the last ends)."""


def _rss_run(rig: Rig, minutes: float) -> None:
    """RSS of a fresh daemon 3 s after ready, then every 5 s while it reads RSS_TEXT for
    ``minutes``: the first minute's mean, the max, the last, and a line per minute; then
    RSS once the reading stopped and the worker gave its memory back."""
    d, _ = rig.new_daemon()
    assert d.proc is not None
    time.sleep(3.0)
    idle = _rss_mb(d.proc.pid)
    samples: list[tuple[float, float]] = []
    t0 = time.monotonic()
    while (now := time.monotonic() - t0) < minutes * 60:
        if d.status()["state"] == "idle":
            d.cli("read", "-", input=RSS_TEXT)
        time.sleep(5.0)
        samples.append((now, _rss_mb(d.proc.pid)))
    values = [v for _, v in samples]
    first = statistics.mean(v for t, v in samples if t < 60) if samples[0][0] < 60 else values[0]
    print(
        f"RSS idle {idle:.0f} MB; reading {len(RSS_TEXT.split())} words for {minutes:g} min: "
        f"first minute {first:.0f}, max {max(values):.0f}, last {values[-1]:.0f} MB "
        f"(max {100 * (max(values) / first - 1):+.0f} %, last {100 * (values[-1] / first - 1):+.0f} % "
        f"of the first minute); underruns {d.status()['last']['underruns']}"
    )
    per_minute = [max(v for t, v in samples if m * 60 <= t < (m + 1) * 60) for m in range(int(minutes))]
    if per_minute:
        print("RSS max per minute (MB): " + " ".join(f"{v:.0f}" for v in per_minute))
    d.cli("ctl", "stop")
    time.sleep(RELEASE_AFTER_S + 10.0)
    print(f"RSS {RELEASE_AFTER_S + 10.0:.0f} s after a stop: {_rss_mb(d.proc.pid):.0f} MB")


def _table(name: str, rows: list[dict]) -> str:
    def ms(values: list[float]) -> str:
        if not values:
            return "      -       -"
        return f"{1000 * statistics.median(values):7.0f} {1000 * max(values):7.0f}"

    sound = [r["sound"] for r in rows if r["sound"] is not None]
    return (
        f"{name:9s} {len(rows):3d}  {ms(sound)}   {ms([r['dac'] for r in rows])}   "
        f"{ms([r['chunk'] for r in rows])}   {ms([r['callback_dac'] for r in rows])}   "
        f"{sum(r['prepared'] for r in rows):3d}/{len(rows):<3d}"
        f" {sum(r['underruns'] for r in rows):5d} in {sum(r['underruns'] > 0 for r in rows)}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--presses", type=int, default=10)
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--rss-minutes", type=float, default=2.0)
    ap.add_argument("--busy", action="store_true", help="keep one core busy in a neighbour process")
    args = ap.parse_args()
    busy = None
    if args.busy:
        busy = multiprocessing.Process(target=_busy_loop, daemon=True)
        busy.start()
    rig = Rig()
    try:
        rig.start()
        print(f"load average at start: {os.getloadavg()}; busy neighbour: {args.busy}")
        starts = []
        for _ in range(args.starts):
            d, seconds = rig.new_daemon()
            starts.append(seconds)
        if starts:
            print(
                f"start to ready: median {statistics.median(starts):.2f} s over {len(starts)} "
                f"({', '.join(f'{s:.2f}' for s in starts)})"
            )
        paths = [p for p in args.paths.split(",") if p]
        if "drag" in paths:
            rig.window = TextWindow(rig.desktop, DRAG_TEXT).__enter__()
        print(
            "path      n     sound med/max (ms)  DAC med/max      chunk med/max    callback->DAC"
            "    prepared  underruns"
        )
        for name in paths:
            try:
                rows = _path(rig, name, args.presses)
            except RuntimeError as e:  # a lost press is a finding, not the end of the run
                print(f"{name:9s} FAILED: {e}", flush=True)
                continue
            print(_table(name, rows), flush=True)
        if args.rss_minutes > 0:
            _rss_run(rig, args.rss_minutes)
        print(f"load average at end: {os.getloadavg()}")
    finally:
        rig.stop()
        if busy is not None:
            busy.terminate()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
