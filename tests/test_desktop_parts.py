"""The desktop's parts chosen from what the session offers, and the process's end, in memory."""

from __future__ import annotations

import threading

import pytest

from tray_reader import dbus_session
from tray_reader.process_exit import ExitGuard
from tray_reader.tray import HeadlessTray, PystrayTray, choose_tray

BUS = object()
"""Stands in for a Gio connection (choose_tray only asks whether there is one)."""


@pytest.mark.parametrize(
    ("session", "bus", "host", "tray", "says"),
    [
        ("x11", None, False, HeadlessTray, "No D-Bus session bus"),
        ("wayland", None, True, HeadlessTray, "No D-Bus session bus"),
        ("wayland", BUS, False, HeadlessTray, "AppIndicator extension"),
        ("x11", BUS, False, PystrayTray, ""),
    ],
)
def test_the_tray_follows_what_the_session_offers(session, bus, host, tray, says):
    chosen, note = choose_tray(session, bus, host)
    assert isinstance(chosen, tray)
    assert (says in note) if says else note == ""
    if says:
        assert "tray-reader ctl" in note


def test_without_a_bus_address_no_bus_is_autolaunched(monkeypatch, tmp_path):
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    bus = dbus_session.connect()
    assert bus.connection is None and "DBUS_SESSION_BUS_ADDRESS is unset" in bus.problem


def test_a_headless_tray_ends_when_stopped_from_another_thread():
    tray = HeadlessTray()
    threading.Timer(0.2, tray.stop).start()
    done = threading.Event()
    tray.run(lambda: None, lambda a, b: None, done.set)  # type: ignore[arg-type,return-value]
    assert done.is_set()


def test_the_guard_ends_the_process_once_with_the_first_code():
    codes: list[int] = []
    ended = threading.Event()
    guard = ExitGuard(grace=0.1, exit=lambda c: (codes.append(c), ended.set()))
    guard.arm(3)
    guard.arm(0)
    assert ended.wait(5)
    assert codes == [3]


def test_an_uncaught_exception_in_any_thread_is_fatal(capsys, monkeypatch):
    codes: list[int] = []
    ended = threading.Event()
    asked: list[bool] = []
    guard = ExitGuard(grace=0.05, exit=lambda c: (codes.append(c), ended.set()))
    guard.on_fatal = lambda: asked.append(True)
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    guard.install()

    def boom() -> None:
        raise RuntimeError("the model thread broke")

    t = threading.Thread(target=boom, name="speech-worker")
    t.start()
    t.join()
    assert ended.wait(5)
    assert codes == [1] and asked == [True]
    err = capsys.readouterr().err
    assert "fatal error, exiting: speech-worker failed: RuntimeError: the model thread broke" in err


@pytest.mark.desktop
def test_gtk_starts_without_opengl_and_leaves_the_environment_as_it_was(desktop):
    import subprocess
    import sys

    code = (
        "import os\n"
        "from tray_reader.tray import gtk_available\n"
        "assert gtk_available()\n"
        "assert 'GDK_GL' not in os.environ\n"
        "maps = open('/proc/self/maps').read()\n"
        "print([m for m in ('_dri.so', 'libLLVM', 'libGLX_mesa') if m in maps])\n"
    )
    env = {k: v for k, v in desktop.env.items() if k != "GDK_GL"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"  # no GL driver (on Xvfb, Mesa's llvmpipe: ~50 MB)
