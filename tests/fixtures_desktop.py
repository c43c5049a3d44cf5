"""X11 desktop fixtures: Xvfb, a D-Bus session bus, a tray host (trayer), notifications (dunst).

``desktop`` (session scope) starts them all as children of the test process, on a free
display number, and stops them by PID at the end::

    def test_x(desktop):
        subprocess.run(["xdotool", "key", "ctrl+alt+r"], env=desktop.env)

``desktop.env`` carries DISPLAY and DBUS_SESSION_BUS_ADDRESS for subprocesses.
``tray_daemon`` starts `tray-reader run` under it with its own config and runtime dirs
and PulseAudio (from tests.fixtures_audio), waits until it is ready, and quits it at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np
import pytest

from tests.fixtures_audio import PulseServer, Recorder, _stop

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


T = TypeVar("T")


def wait_for(pred: Callable[[], T], timeout: float, what: str) -> T:
    """``pred()``'s first true value, asked every 20 ms; AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


class Desktop:
    """Xvfb + dbus-daemon + trayer + dunst, each a child process stopped by PID."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="tray-reader-desktop-"))
        self.display = ""
        self.env = dict(os.environ)
        self.procs: list[subprocess.Popen] = []
        self.trayer: subprocess.Popen | None = None

    def _spawn(self, argv: list[str], name: str, **kw) -> subprocess.Popen:
        log = open(self.dir / f"{name}.log", "wb")  # noqa: SIM115 - the child writes to it
        proc = subprocess.Popen(argv, env=self.env, stdout=log, stderr=log, **kw)
        log.close()
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        for tool in ("Xvfb", "dbus-daemon", "trayer", "dunst", "xdotool", "xsel", "xwininfo"):
            if shutil.which(tool) is None:
                raise RuntimeError(
                    f"{tool} is missing: run ./dev test (installs installer/debian-test-packages.txt)"
                )
        # Xvfb picks the number itself (-displayfd) so parallel runs never collide.
        r, w = os.pipe()
        xvfb = self._spawn(
            [
                "Xvfb",
                "-displayfd",
                str(w),
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
                "+extension",
                "XTEST",
            ],
            "xvfb",
            pass_fds=(w,),
        )
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        if not number:
            raise RuntimeError(f"Xvfb did not start (exit {xvfb.poll()}); see {self.dir / 'xvfb.log'}")
        self.display = f":{number}"
        self.env["DISPLAY"] = self.display
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env["XDG_SESSION_TYPE"] = "x11"
        bus_proc = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.procs.append(bus_proc)
        assert bus_proc.stdout is not None
        address = bus_proc.stdout.readline().decode().strip()
        if not address:
            raise RuntimeError("dbus-daemon --session printed no address")
        self.env["DBUS_SESSION_BUS_ADDRESS"] = address
        self._spawn(["dunst"], "dunst")
        # Seen once in a full CI run on a loaded machine: trayer exited 1 at start with nothing
        # in its log, while the same fixture passed right after. Start it again, a few times.
        for attempt in range(3):
            self.trayer = self._spawn(
                ["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel", "--width", "200"]
                + ["--heighttype", "pixel", "--height", "32", "--transparent", "false", "--tint", "0x333333"],
                f"trayer-{attempt}",
            )
            trayer = self.trayer
            try:
                wait_for(
                    lambda t=trayer: self.tray_window() is not None or t.poll() is not None,
                    15,
                    "trayer's window",
                )
            except RuntimeError:
                break
            if self.tray_window() is not None:
                return
        raise RuntimeError(
            f"trayer's window did not appear on {self.display} (trayer exit {self.trayer.poll()}): "
            + "".join(p.read_text(errors="replace") for p in sorted(self.dir.glob("trayer-*.log")))
        )

    def xdotool(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, timeout=10)
        if check and out.returncode != 0:
            raise RuntimeError(f"xdotool {' '.join(args)} failed: {out.stderr.decode()}")
        return out.stdout.decode()

    def tray_window(self) -> str | None:
        """trayer's panel window id, or None while it is not mapped."""
        out = self.xdotool("search", "--onlyvisible", "--class", "trayer", check=False).split()
        return out[0] if out else None

    def tray_icons(self) -> list[tuple[str, int, int, int, int]]:
        """(window id, x, y, w, h) of every icon embedded in trayer, absolute coordinates."""
        panel = self.tray_window()
        if panel is None:
            return []
        tree = subprocess.run(
            ["xwininfo", "-children", "-id", panel], env=self.env, capture_output=True, text=True, timeout=10
        ).stdout
        icons = []
        for wid in _child_ids(tree):
            geo = self._geometry(wid)
            if geo and geo[2] <= 64 and geo[3] <= 64:
                icons.append((wid, *geo))
        if not icons:
            # trayer nests the icons one level deeper (inside its GTK socket windows).
            for wid in _child_ids(tree):
                sub = subprocess.run(
                    ["xwininfo", "-children", "-id", wid],
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=10,
                ).stdout
                for cid in _child_ids(sub):
                    geo = self._geometry(cid)
                    if geo and 8 <= geo[2] <= 64 and 8 <= geo[3] <= 64:
                        icons.append((cid, *geo))
        return icons

    def _geometry(self, wid: str) -> tuple[int, int, int, int] | None:
        info = subprocess.run(
            ["xwininfo", "-id", wid], env=self.env, capture_output=True, text=True, timeout=10
        )
        vals = {}
        for line in info.stdout.splitlines():
            line = line.strip()
            for key in ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height", "Map State"):
                if line.startswith(key + ":"):
                    vals[key] = line.split(":", 1)[1].strip()
        if vals.get("Map State") != "IsViewable":
            return None
        try:
            return (
                int(vals["Absolute upper-left X"]),
                int(vals["Absolute upper-left Y"]),
                int(vals["Width"]),
                int(vals["Height"]),
            )
        except KeyError:
            return None

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / name
        subprocess.run(["import", "-window", "root", str(path)], env=self.env, check=True, timeout=20)
        return path

    def grab(self, x: int, y: int, w: int, h: int) -> bytes:
        """The screen's RGB pixels in a rectangle."""
        return subprocess.run(
            ["import", "-window", "root", "-crop", f"{w}x{h}+{x}+{y}", "-depth", "8", "rgb:-"],
            env=self.env,
            capture_output=True,
            check=True,
            timeout=20,
        ).stdout

    def set_selection(self, which: str, text: str) -> None:
        """Own PRIMARY/CLIPBOARD with `text` (xsel forks a child that keeps serving it)."""
        subprocess.run(
            ["xsel", f"--{which}", "--input"], input=text.encode(), env=self.env, check=True, timeout=20
        )
        wait_for(lambda: self.get_selection(which) == text, 20, f"{which} to read back")

    def get_selection(self, which: str) -> str:
        """The selection's text ("" if its owner did not answer within 2 s: asked again by
        `wait_for`; on a loaded machine an answer can take longer than one try allows)."""
        return subprocess.run(
            ["xsel", f"--{which}", "--output", "--selectionTimeout", "2000"],
            env=self.env,
            capture_output=True,
            timeout=20,
        ).stdout.decode()

    def clear_selection(self, which: str) -> None:
        subprocess.run(["xsel", f"--{which}", "--clear"], env=self.env, timeout=5)

    def notifications(self) -> int:
        """Notifications dunst has shown so far (on screen, waiting or in its history)."""
        total = 0
        for what in ("displayed", "waiting", "history"):
            out = subprocess.run(
                ["dunstctl", "count", what], env=self.env, capture_output=True, text=True, timeout=5
            )
            total += int(out.stdout.strip() or 0)
        return total

    def stop(self) -> None:
        for p in reversed(self.procs):
            _stop(p)
        # xsel forks a server per selection it owns; they exit when the display goes away.
        shutil.rmtree(self.dir, ignore_errors=True)


def _child_ids(xwininfo_tree: str) -> list[str]:
    ids = []
    for line in xwininfo_tree.splitlines():
        line = line.strip()
        if line.startswith("0x"):
            ids.append(line.split()[0])
    return ids


@pytest.fixture(scope="session")
def desktop() -> Iterator[Desktop]:
    if not sys.platform.startswith("linux"):
        pytest.skip("the desktop fixtures need X11 tools (Linux)")
    d = Desktop()
    try:
        d.start()
        yield d
    finally:
        d.stop()


class TimedRecorder(Recorder):
    """The audio fixture's recorder, noting when each block arrived, so the time a sample
    was played can be told (CLOCK_MONOTONIC, shared with the daemon)."""

    def __init__(self, pulse: PulseServer) -> None:
        super().__init__(pulse.env, pulse.sink, pulse.rate)
        self.rate = pulse.rate
        self._blocks: list[tuple[float, bytes]] = []

    def _pump(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        while True:
            data = os.read(fd, 1920)
            if not data:
                return
            self._blocks.append((time.monotonic(), data))
            self._first.set()

    def mark(self) -> int:
        """Byte offset recorded so far (to look only at what comes after)."""
        return sum(len(b) for _, b in list(self._blocks))

    def first_sound_after(self, offset: int, threshold: float = 0.01) -> float | None:
        """Monotonic time the first non-silent sample after byte `offset` was captured."""
        pos = 0
        for t, data in list(self._blocks):
            end = pos + len(data)
            if end > offset:
                start = max(0, offset - pos) // 4 * 4
                a = np.frombuffer(data[start : len(data) // 4 * 4], np.float32)
                hit = np.flatnonzero(np.abs(a) > threshold)
                if hit.size:
                    # The block arrived at t; the sample was played (len - i) samples earlier.
                    return t - (a.size - hit[0]) / self.rate
            pos = end
        return None

    def audio_since(self, offset: int) -> np.ndarray:
        raw = b"".join(b for _, b in list(self._blocks))[offset:]
        return np.frombuffer(raw[: len(raw) // 4 * 4], np.float32).copy()


class Daemon:
    """`tray-reader run` as a subprocess, with private config/runtime dirs."""

    def __init__(self, desktop: Desktop, pulse, home: Path) -> None:
        self.home = home
        self.pulse = pulse
        self.config = home / "config"
        self.runtime = home / "runtime"
        self.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.env = dict(desktop.env)
        self.env.update(pulse.client_env)
        self.env.update(
            XDG_CONFIG_HOME=str(self.config),
            XDG_RUNTIME_DIR=str(self.runtime),
            XDG_DATA_HOME=str(home / "data"),
            PYTHONUNBUFFERED="1",
        )
        self.proc: subprocess.Popen | None = None
        self.log = home / "daemon.log"
        self.started_at = 0.0

    @property
    def settings(self) -> Path:
        return self.config / "tray-reader" / "settings.toml"

    @property
    def socket(self) -> Path:
        return self.runtime / "tray-reader" / "control.sock"

    def cli(self, *args: str, input: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tray_reader.cli", *args],
            env=self.env,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )

    def start(self, wait_ready: bool = True, timeout: float = 120) -> None:
        self.started_at = time.monotonic()
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tray_reader.cli", "run"],
                env=self.env,
                stdout=log,
                stderr=log,
                cwd=ROOT,
            )
        if wait_ready:
            self.wait_ready(timeout)

    def status(self) -> dict:
        from tray_reader import control

        return control.send(self.socket, "status", timeout=5)

    def wait_ready(self, timeout: float = 120) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"the daemon exited ({self.proc.returncode}):\n{self.log.read_text()}")
            try:
                st = self.status()
                if st.get("ready"):
                    return st
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"the daemon was not ready within {timeout} s:\n{self.log.read_text()}")
            time.sleep(0.2)

    def heard_reading(self, start: Callable[[], object], sentence: str) -> float:
        """Call ``start`` (which makes the daemon read ``sentence``), record until the
        reading ends, and return the recogniser's word recall of ``sentence`` in it."""
        from tests.asr import recognise, word_recall

        recorder = TimedRecorder(self.pulse).start()
        try:
            mark = recorder.mark()
            start()
            self.wait_state("speaking", timeout=15)
            self.wait_state("idle", timeout=30)
            time.sleep(0.3)
            audio = recorder.audio_since(mark)
        finally:
            recorder.stop()
        heard = recognise(audio, recorder.rate)
        recall = word_recall(sentence, heard)
        print(f"\nheard: {heard!r} (recall {recall:.2f})")
        return recall

    def wait_state(self, state: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            st = self.status()
            if st["state"] == state:
                return st
            if time.monotonic() > deadline:
                raise AssertionError(f"state stayed {st['state']!r}, wanted {state!r}: {json.dumps(st)}")
            time.sleep(0.05)

    def stop(self) -> None:
        _stop(self.proc, timeout=5)


@pytest.fixture(scope="module")
def tray_daemon(desktop: Desktop, pulse, tmp_path_factory) -> Iterator[Daemon]:
    d = Daemon(desktop, pulse, tmp_path_factory.mktemp("daemon"))
    try:
        d.start()
        yield d
    finally:
        d.stop()
        if d.log.exists():
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(d.log, ARTIFACTS / f"daemon-{d.home.name}.log")
