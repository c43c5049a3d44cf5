"""Global shortcuts through the portal, end to end: the daemon on the test display, with a
private session bus holding a mock portal (tests/mock_portal.py) instead of the desktop's."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.fixtures_audio import _stop
from tests.fixtures_desktop import ROOT, Daemon, Desktop, wait_for
from tray_reader.portal import DESCRIPTIONS

pytestmark = pytest.mark.desktop

SENTENCE = "The quick brown fox jumps over the lazy dog."


class PortalBus:
    """A dbus-daemon of its own and the mock portal on it, stopped by PID."""

    def __init__(self, desktop: Desktop, home: Path, flags: list[str]) -> None:
        self.log = home / "portal.jsonl"
        self.env = dict(desktop.env)
        self.bus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert self.bus.stdout is not None
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.bus.stdout.readline().decode().strip()
        self.portal = subprocess.Popen(
            [sys.executable, "-m", "tests.mock_portal", str(self.log), *flags],
            env=self.env,
            cwd=ROOT,
        )
        deadline = time.monotonic() + 15
        while not any(c["method"] == "ready" for c in self.calls()):
            assert self.portal.poll() is None, "the mock portal exited"
            assert time.monotonic() < deadline, "the mock portal did not take its name"
            time.sleep(0.05)

    def calls(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def activate(self, shortcut: str) -> None:
        subprocess.run(
            ["gdbus", "call", "--session", "--dest", "org.freedesktop.portal.Desktop",
             "--object-path", "/org/freedesktop/portal/desktop",
             "--method", "org.example.MockPortal.Activate", shortcut],
            env=self.env, check=True, capture_output=True, timeout=10,
        )  # fmt: skip

    def stop(self) -> None:
        _stop(self.portal)
        _stop(self.bus)


@pytest.fixture
def portal_daemon(desktop: Desktop, pulse, tmp_path):
    made: list[tuple[PortalBus, Daemon]] = []

    def make(*flags: str) -> tuple[PortalBus, Daemon]:
        bus = PortalBus(desktop, tmp_path, list(flags))
        daemon = Daemon(SimpleNamespace(env=bus.env), pulse, tmp_path / "home")  # type: ignore[arg-type]
        made.append((bus, daemon))
        daemon.start()
        return bus, daemon

    yield make
    for bus, daemon in made:
        daemon.stop()
        bus.stop()


def test_the_daemon_binds_every_action_and_reads_on_activated(portal_daemon, desktop: Desktop, pulse):
    bus, daemon = portal_daemon()
    bound = wait_for(lambda: [c for c in bus.calls() if c["method"] == "BindShortcuts"], 15, "BindShortcuts")
    calls = [c["method"] for c in bus.calls()]
    assert calls.index("Register") < calls.index("CreateSession") < calls.index("BindShortcuts")
    assert [c["app_id"] for c in bus.calls() if c["method"] == "Register"] == ["tray-reader"]
    shortcuts = {name: props for name, props in bound[-1]["shortcuts"]}
    assert set(shortcuts) == set(DESCRIPTIONS)
    assert all(props["description"] == DESCRIPTIONS[name] for name, props in shortcuts.items())
    assert shortcuts["read"]["preferred_trigger"] == "CTRL+ALT+r"
    assert shortcuts["stop"]["preferred_trigger"] == "CTRL+ALT+s"

    desktop.set_selection("primary", SENTENCE)

    def press() -> None:
        bus.activate("read")
        wait_for(lambda: daemon.status()["last_text"] == SENTENCE, 10, "the selection to be read")

    recall = daemon.heard_reading(press, SENTENCE)
    assert recall >= 0.5
    log = daemon.log.read_text()
    assert "Traceback" not in log


def test_a_portal_that_refuses_leaves_a_running_daemon_and_a_message(portal_daemon):
    bus, daemon = portal_daemon("--fail")
    st = wait_for(
        lambda: (s := daemon.status()) and any("portal" in n for n in s["desktop"]) and s, 15, "the message"
    )
    note = next(n for n in st["desktop"] if "portal" in n)
    print(f"\n{note}")
    assert "no shortcuts for you" in note and "X11 hotkeys instead" in note
    assert daemon.proc is not None and daemon.proc.poll() is None
    assert daemon.cli("ctl", "read", "Still reading after the portal refused.").returncode == 0
    daemon.wait_state("speaking", timeout=15)
    assert "Traceback" not in daemon.log.read_text()
    said = [
        line
        for line in daemon.log.read_text().splitlines()
        if line.startswith("tray-reader: Global shortcuts")
    ]
    assert len(said) == 1, said


def test_a_refused_registration_is_named_in_the_message(portal_daemon):
    bus, daemon = portal_daemon("--fail", "--no-desktop-file")
    st = wait_for(
        lambda: (s := daemon.status()) and any("portal" in n for n in s["desktop"]) and s, 15, "the message"
    )
    note = next(n for n in st["desktop"] if "portal" in n)
    print(f"\n{note}")
    assert "App info not found for 'tray-reader'" in note and "tray-reader.desktop" in note
    assert daemon.proc is not None and daemon.proc.poll() is None
