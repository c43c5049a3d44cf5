"""Wayland end to end: a headless sway session (run as an unprivileged test user: sway
refuses root), a session bus with no tray host and no portal, and the daemon under them.
The PRIMARY selection set with `wl-copy --primary` is read by `tray-reader ctl read` and
heard on the PulseAudio capture; `doctor` reports the Wayland session."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.fixtures_audio import _stop
from tests.fixtures_desktop import ARTIFACTS, ROOT, Daemon

pytestmark = pytest.mark.desktop

USER = "tray-reader-sway"
SENTENCE = "Seven green parrots sat on the garden wall this morning."


def _test_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        # Another run may be adding it at the same moment: what counts is that it exists.
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER],
            capture_output=True,
            timeout=30,
        )
        return pwd.getpwnam(USER)


class Sway:
    """sway on the headless wlroots backend, as the test user, with a runtime dir of its own."""

    def __init__(self) -> None:
        user = _test_user()
        self.runtime = Path(tempfile.mkdtemp(prefix="tray-reader-sway-"))
        os.chown(self.runtime, user.pw_uid, user.pw_gid)
        self.runtime.chmod(0o700)
        config = self.runtime / "config"
        config.write_text("output * bg #000000 solid_color\n")
        os.chown(config, user.pw_uid, user.pw_gid)
        self.log = self.runtime / "sway.log"
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.runtime),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "WLR_BACKENDS": "headless",
            "WLR_RENDERER": "pixman",
            "WLR_LIBINPUT_NO_DEVICES": "1",
        }
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                ["sway", "-c", str(config)],
                env=env,
                user=user.pw_uid,
                group=user.pw_gid,
                extra_groups=[],
                stdout=log,
                stderr=log,
                cwd=self.runtime,
            )
        deadline = time.monotonic() + 20
        while not (sockets := [p for p in self.runtime.glob("wayland-*") if not p.name.endswith(".lock")]):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"sway did not start (exit {self.proc.poll()}):\n{self.log.read_text()}")
            time.sleep(0.05)
        # An absolute WAYLAND_DISPLAY: clients (root here) need no access to sway's XDG_RUNTIME_DIR.
        self.display = str(sockets[0])

    def stop(self) -> None:
        _stop(self.proc)
        if self.log.exists():
            ARTIFACTS.mkdir(exist_ok=True)
            shutil.copy(self.log, ARTIFACTS / "sway.log")
        shutil.rmtree(self.runtime, ignore_errors=True)


@pytest.fixture(scope="module")
def wayland(pulse, tmp_path_factory) -> Iterator[SimpleNamespace]:
    if os.geteuid() != 0:
        pytest.skip("creating the unprivileged user sway runs as needs root")
    for tool in ("sway", "wl-copy", "wl-paste", "dbus-daemon"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: run ./dev test (installs installer/debian-test-packages.txt)")
    sway = Sway()
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    copies: dict[bool, subprocess.Popen] = {}
    daemon: Daemon | None = None
    try:
        assert bus.stdout is not None
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "XAUTHORITY")}
        env.update(
            WAYLAND_DISPLAY=sway.display,
            XDG_SESSION_TYPE="wayland",
            XDG_CURRENT_DESKTOP="sway",
            DBUS_SESSION_BUS_ADDRESS=bus.stdout.readline().decode().strip(),
        )
        daemon = Daemon(SimpleNamespace(env=env), pulse, tmp_path_factory.mktemp("wayland"))  # type: ignore[arg-type]

        def copy(text: str, primary: bool = True) -> None:
            _stop(copies.get(primary))
            # --foreground: it serves the selection until stopped (by PID), not from a fork.
            copies[primary] = subprocess.Popen(
                ["wl-copy", "--foreground", *(["--primary"] if primary else []), text],
                env=daemon.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            deadline = time.monotonic() + 10
            while paste(primary) != text:
                assert time.monotonic() < deadline, "wl-copy's selection did not read back"
                time.sleep(0.05)

        def paste(primary: bool = True) -> str:
            return subprocess.run(
                ["wl-paste", "--no-newline", *(["--primary"] if primary else [])],
                env=daemon.env,
                capture_output=True,
                text=True,
                timeout=5,
            ).stdout

        daemon.start()
        yield SimpleNamespace(daemon=daemon, copy=copy, sway=sway)
    finally:
        if daemon is not None:
            daemon.stop()
            if daemon.log.exists():
                ARTIFACTS.mkdir(exist_ok=True)
                shutil.copy(daemon.log, ARTIFACTS / "daemon-wayland.log")
        for p in copies.values():
            _stop(p)
        _stop(bus)
        sway.stop()


def test_ctl_read_speaks_the_wayland_primary_selection(wayland, pulse):
    daemon: Daemon = wayland.daemon
    st = daemon.status()
    notes = " ".join(st["desktop"])
    assert "No tray host (StatusNotifierWatcher)" in notes and "AppIndicator extension" in notes
    assert "bindsym Ctrl+Alt+r exec tray-reader ctl read" in notes
    wayland.copy(SENTENCE)

    def read() -> None:
        r = daemon.cli("ctl", "read")
        assert r.returncode == 0, r.stderr
        assert daemon.status()["last_text"] == SENTENCE

    recall = daemon.heard_reading(read, SENTENCE)
    assert recall >= 0.5
    log = daemon.log.read_text()
    for bad in ("Traceback", "CRITICAL", "Gtk-", "Gdk-"):
        assert bad not in log, f"{bad!r} in the daemon's output:\n{log}"


def test_the_clipboard_is_read_when_there_is_no_primary(wayland):
    daemon: Daemon = wayland.daemon
    wayland.copy("Only the clipboard holds this line.", primary=False)
    # A PRIMARY from the test before is still served: replace it with nothing readable.
    wayland.copy("   ", primary=True)
    r = daemon.cli("ctl", "read")
    assert r.returncode == 0, r.stderr
    assert daemon.status()["last_text"] == "Only the clipboard holds this line."
    daemon.cli("ctl", "stop")


def test_doctor_reports_the_wayland_session(wayland):
    daemon: Daemon = wayland.daemon
    out = daemon.cli("doctor", timeout=120).stdout
    print(out)
    assert f"session: wayland (sway, WAYLAND_DISPLAY={wayland.sway.display})" in out
    assert "session bus: connected" in out
    assert "tray backend: none: no StatusNotifierWatcher" in out
    assert "shortcuts: none: this desktop offers no shortcuts portal" in out and "bindsym" in out
    assert "media keys: MPRIS" in out
    assert "clipboard tools: wl-paste, wl-copy" in out
    assert "Wayland PRIMARY: readable" in out


def test_with_a_tray_host_the_icon_is_an_appindicator_without_gtk_complaints(wayland, pulse, tmp_path):
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    host_log = tmp_path / "host.log"
    host: subprocess.Popen | None = None
    daemon: Daemon | None = None
    try:
        assert bus.stdout is not None
        env = dict(wayland.daemon.env)
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().decode().strip()
        host = subprocess.Popen(
            [sys.executable, "-m", "tests.mock_tray_host", str(host_log)], env=env, cwd=ROOT
        )
        deadline = time.monotonic() + 15
        while not (host_log.exists() and "ready" in host_log.read_text()):
            assert host.poll() is None and time.monotonic() < deadline, "the tray host did not start"
            time.sleep(0.05)
        daemon = Daemon(SimpleNamespace(env=env), pulse, tmp_path / "home")  # type: ignore[arg-type]
        daemon.env.update({k: env[k] for k in ("DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY")})
        daemon.start()
        deadline = time.monotonic() + 15
        while len(host_log.read_text().splitlines()) < 2:
            assert time.monotonic() < deadline, (
                f"no icon registered with the tray host:\n{daemon.log.read_text()}"
            )
            time.sleep(0.1)
        registrations = host_log.read_text().splitlines()[1:]
        items = set(registrations)
        print(f"\nregistered with the tray host: {items} ({len(registrations)} registrations)")
        assert any(i.endswith("/org/ayatana/NotificationItem/tray_reader") for i in items), items
        st = daemon.status()
        assert not any("tray host" in n or "tray icon" in n for n in st["desktop"]), st["desktop"]
        assert daemon.cli("ctl", "read", "The icon shows that I am reading.").returncode == 0
        daemon.wait_state("speaking", timeout=15)
        daemon.cli("ctl", "stop")
        time.sleep(0.5)
        log = daemon.log.read_text()
        for bad in ("Traceback", "CRITICAL", "Gtk-", "Gdk-", "GLib-GIO-"):
            assert bad not in log, f"{bad!r} in the daemon's output:\n{log}"
    finally:
        if daemon is not None:
            daemon.stop()
        _stop(host)
        _stop(bus)
