"""The daemon's life on a desktop that lacks parts, and its end when a part dies.

Each test runs `tray-reader run` as a subprocess on a display of its own (Xvfb), with or
without a D-Bus session bus, and PulseAudio from tests.fixtures_audio; everything is
started and stopped by PID.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures_audio import _stop
from tests.fixtures_desktop import Daemon
from tray_reader import control

pytestmark = pytest.mark.desktop


class Session:
    """A bare X display and, if asked, a session bus: no tray host, no notifications."""

    def __init__(self, home: Path, bus: bool) -> None:
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY")
        }
        self.procs: dict[str, subprocess.Popen] = {}
        r, w = os.pipe()
        self.procs["xvfb"] = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
            pass_fds=(w,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(w)
        with os.fdopen(r) as f:
            number = f.readline().strip()
        assert number, "Xvfb did not start"
        self.env.update(DISPLAY=f":{number}", XDG_SESSION_TYPE="x11")
        if bus:
            proc = subprocess.Popen(
                ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            self.procs["bus"] = proc
            assert proc.stdout is not None
            self.env["DBUS_SESSION_BUS_ADDRESS"] = proc.stdout.readline().decode().strip()

    def kill(self, name: str) -> None:
        self.procs[name].kill()
        self.procs[name].wait(5)

    def stop(self) -> None:
        for p in self.procs.values():
            _stop(p)


@pytest.fixture
def make_daemon(pulse, tmp_path) -> Iterator:
    made: list[tuple[Session, Daemon]] = []

    def make(bus: bool) -> tuple[Session, Daemon]:
        session = Session(tmp_path, bus)
        daemon = Daemon(session, pulse, tmp_path / f"home-{len(made)}")  # type: ignore[arg-type]
        made.append((session, daemon))
        return session, daemon

    yield make
    for session, daemon in made:
        daemon.stop()
        session.stop()


def _wait_listening(daemon: Daemon, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        assert daemon.proc is not None
        if daemon.proc.poll() is not None:
            raise AssertionError(f"the daemon exited ({daemon.proc.returncode}):\n{daemon.log.read_text()}")
        try:
            return daemon.status()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _exit_time(daemon: Daemon, limit: float = 10) -> float:
    """Seconds until the daemon's process is gone."""
    assert daemon.proc is not None
    started = time.monotonic()
    daemon.proc.wait(limit)
    return time.monotonic() - started


def _lock_is_free(daemon: Daemon) -> bool:
    lock = control.InstanceLock(daemon.runtime / "tray-reader" / "daemon.lock")
    free = lock.acquire()
    lock.release()
    return free


def _assert_clean_log(daemon: Daemon) -> str:
    log = daemon.log.read_text()
    for bad in ("Traceback", "CRITICAL", "Gtk-WARNING", "cannot schedule new futures"):
        assert bad not in log, f"{bad!r} in the daemon's output:\n{log}"
    return log


def test_without_a_session_bus_it_runs_headless_and_ends_at_once(make_daemon):
    _session, daemon = make_daemon(bus=False)
    daemon.start(wait_ready=True)
    st = daemon.status()
    assert any("No D-Bus session bus" in n for n in st["desktop"]), st
    reply = daemon.cli("ctl", "read", "Reading without a session bus works.")
    assert reply.returncode == 0, reply.stderr
    daemon.wait_state("speaking", timeout=30)
    assert daemon.proc is not None
    daemon.proc.send_signal(signal.SIGTERM)
    took = _exit_time(daemon)
    print(f"\nexit after SIGTERM while speaking: {took:.2f} s")
    assert took < 2.0
    assert _lock_is_free(daemon)
    log = _assert_clean_log(daemon)
    assert log.count("No D-Bus session bus") == 1, log


def test_sigterm_while_the_model_loads_ends_the_process(make_daemon):
    _session, daemon = make_daemon(bus=False)
    daemon.start(wait_ready=False)
    st = _wait_listening(daemon)
    assert daemon.proc is not None
    daemon.proc.send_signal(signal.SIGTERM)
    took = _exit_time(daemon)
    print(f"\nexit after SIGTERM in state {st['state']}: {took:.2f} s")
    assert took < 2.0 and _lock_is_free(daemon)
    _assert_clean_log(daemon)


def test_the_tray_loop_dying_with_its_display_ends_the_process(make_daemon):
    session, daemon = make_daemon(bus=True)
    daemon.start(wait_ready=False)
    _wait_listening(daemon)
    time.sleep(1.0)  # the GTK loop is running
    session.kill("xvfb")
    took = _exit_time(daemon)
    print(f"\nexit after the display died: {took:.2f} s")
    assert took < 2.0 and _lock_is_free(daemon)
    assert not (daemon.runtime / "tray-reader" / "control.sock").exists() or not _answers(daemon)


def test_the_session_bus_dying_ends_the_process(make_daemon):
    session, daemon = make_daemon(bus=True)
    daemon.start(wait_ready=False)
    _wait_listening(daemon)
    time.sleep(1.0)
    session.kill("bus")
    took = _exit_time(daemon)
    print(f"\nexit after the session bus died: {took:.2f} s")
    assert took < 2.0 and _lock_is_free(daemon)
    _assert_clean_log(daemon)


def _answers(daemon: Daemon) -> bool:
    try:
        daemon.status()
    except Exception:
        return False
    return True
