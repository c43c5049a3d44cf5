"""The daemon process: the real parts, one instance per user, the app run, a quick exit.

`run_daemon` is `tray-reader` / `tray-reader run`; `forward` sends a command to the daemon
that runs (`ctl`, `read`, a second start).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tray_reader import config, control
from tray_reader.app import App, Parts, PlayerSink
from tray_reader.dbus_session import SessionBus, has_tray_host
from tray_reader.errors import ControlError, SelectionError, TrayReaderError
from tray_reader.hotkeys import HotkeyListener
from tray_reader.notify import Notifier
from tray_reader.speech.envelope import EnvelopeMap
from tray_reader.speech.types import Prosody


class LibraryVoices:
    """The real catalogue: stock + enrolled voices from tray_reader.voices."""

    def __init__(self) -> None:
        from tray_reader.voices.library import VoiceLibrary

        self._lib = VoiceLibrary()

    def names(self) -> list[str]:
        return [v.name for v in self._lib.list()]

    def pack(self, name: str) -> np.ndarray:
        return self._lib.pack(name)

    def default_voice(self) -> str | None:
        """The voice chosen with `tray-reader voice use`, if any."""
        return self._lib.default_voice()

    def prosody(self, name: str) -> Prosody:
        return self._lib.info(name).prosody

    def envelope(self, name: str) -> EnvelopeMap | None:
        return self._lib.info(name).envelope

    def speed(self, name: str) -> float:
        return self._lib.info(name).speed


def _real_player(settings: config.Settings) -> PlayerSink:
    from tray_reader.audio.player import Player, PlayerConfig

    return Player(config=PlayerConfig(device=settings.device or None))


def _xdg_open(path: Path) -> None:
    opener = (
        "xdg-open" if sys.platform.startswith("linux") else ("open" if sys.platform == "darwin" else None)
    )
    if opener is None:
        os.startfile(path)  # type: ignore[attr-defined]
        return
    subprocess.Popen(
        [opener, str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )


def real_parts(
    settings: config.Settings, copy_and_restore: Callable[[], bool], bus: SessionBus | None = None
) -> Parts:
    from tray_reader.document_chooser import choose_document
    from tray_reader.notify import DBusNotifier, GioNotifier, StderrNotifier
    from tray_reader.reading_window import open_reading_window
    from tray_reader.selection import (
        Clipboard,
        DesktopSelection,
        UnavailableClipboard,
        desktop_clipboard,
        send_copy_shortcut,
        session_type,
    )
    from tray_reader.selection_watch import watch_primary
    from tray_reader.speech.synthesis import load_synthesizer
    from tray_reader.tray import ListenedTray, choose_tray, gtk_available
    from tray_reader.voices.commands import enroll_from_tray

    try:
        clipboard: Clipboard = desktop_clipboard()
    except SelectionError as e:
        print(f"tray-reader: {e}", file=sys.stderr)
        clipboard = UnavailableClipboard(str(e))
    bus = bus or SessionBus(None, "not asked")
    conn = bus.connection
    kind = session_type()
    tray, note = choose_tray(kind, conn, conn is not None and has_tray_host(conn))
    notes = [note] if note else []
    notifier: Notifier = (
        GioNotifier(conn) if conn is not None else DBusNotifier() if bus.no_binding else StderrNotifier()
    )
    return Parts(
        player=_real_player(settings),
        selection=DesktopSelection(
            clipboard,
            copy_and_restore,
            # Keystrokes into other apps are X11's (XTEST); Wayland offers no such thing.
            send_copy=send_copy_shortcut if kind != "wayland" else None,
            has_primary=kind != "none",
        ),
        hotkeys=_hotkeys(kind, conn, notes, notifier, settings.notifications),
        tray=ListenedTray(tray),
        notifier=notifier,
        voices=LibraryVoices(),
        load_pipeline=load_synthesizer,
        open_file=_xdg_open,
        enroll=enroll_from_tray,
        reading_window=open_reading_window if gtk_available() else None,
        choose_document=choose_document if gtk_available() else None,
        watch_selection=watch_primary if kind == "x11" else None,
        notes=notes,
    )


def _hotkeys(kind: str, conn: Any, notes: list[str], notifier: Notifier, notify: bool) -> HotkeyListener:
    """The desktop portal's shortcuts where offered (pynput on X11 if it refuses), else
    pynput on X11, else none (and `notes` says how to bind `tray-reader ctl read`)."""
    from tray_reader.dbus_session import portal_version
    from tray_reader.hotkeys import PynputHotkeys
    from tray_reader.portal import GLOBAL_SHORTCUTS, PortalShortcuts, manual_binding_hint

    if not sys.platform.startswith("linux"):
        return PynputHotkeys()
    fallback: HotkeyListener | None = PynputHotkeys() if kind == "x11" else None
    if conn is not None and portal_version(conn, GLOBAL_SHORTCUTS) > 0:

        def problem(message: str) -> None:
            notes.append(message)
            print(f"tray-reader: {message}", file=sys.stderr)
            if notify:
                notifier.notify("tray-reader shortcuts", message)

        return PortalShortcuts(conn, problem, fallback)
    if fallback is not None:
        return fallback
    notes.append(
        "Global shortcuts: this desktop offers no shortcuts portal, and X11 hotkeys do not reach "
        f"Wayland apps: {manual_binding_hint()}."
    )
    return _NoHotkeys()


class _NoHotkeys:
    """Wayland without the shortcuts portal: no global keys (the notes say how to bind them)."""

    def start(self, bindings: Any, on_hotkey: Any) -> None:
        pass

    def stop(self) -> None:
        pass


def run_daemon(settings_file: Path | None = None) -> int:
    """`tray-reader` / `tray-reader run`: start the daemon, or, if one runs, say so and exit."""
    settings_file = settings_file or config.settings_path()
    runtime = control.runtime_dir()
    lock = control.InstanceLock(runtime / "daemon.lock")
    sock = runtime / "control.sock"
    if not lock.acquire():
        reply = forward(sock, "status", [])
        print(f"tray-reader is already running (pid {reply.get('pid')}, {reply.get('state')}).")
        return 0
    from tray_reader.selection import session_type

    if sys.platform.startswith("linux") and session_type() == "none":
        lock.release()
        raise TrayReaderError(
            "No desktop session (DISPLAY and WAYLAND_DISPLAY are unset): the tray needs one. "
            "Start tray-reader from your desktop, or use `tray-reader say` in a terminal."
        )
    from tray_reader import dbus_session
    from tray_reader.mpris import MediaPlayer, now_playing_of
    from tray_reader.process_exit import ExitGuard, fatal
    from tray_reader.tray import ListenedTray

    guard = ExitGuard()
    guard.install()
    code = 1
    try:
        holder: dict[str, App] = {}
        loaded = config.load(settings_file)
        bus = dbus_session.connect()
        parts = real_parts(loaded.settings, lambda: holder["app"].settings.copy_and_restore, bus)
        app = holder["app"] = App(parts, settings_file, sock)
        guard.on_fatal = app.quit
        stopping = threading.Event()

        def ending() -> None:
            stopping.set()
            guard.arm()

        app.on_ending = ending
        if bus.connection is not None and isinstance(parts.tray, ListenedTray):
            media = MediaPlayer(app.act, now_playing_of(app))
            media.start(bus.connection)
            parts.tray.listeners.append(media.changed)
        if bus.connection is not None:

            def bus_gone() -> None:
                print(
                    "tray-reader: the session bus went away (the desktop session ended); exiting.",
                    file=sys.stderr,
                )
                app.quit()

            dbus_session.watch_closed(bus.connection, bus_gone, stopping)
        for note in parts.notes:  # said once, at start
            print(f"tray-reader: {note}", file=sys.stderr)
            if loaded.settings.notifications and bus.connection is not None:
                parts.notifier.notify("tray-reader", note)
        code = app.run()
    except TrayReaderError as e:
        print(f"tray-reader: {e}", file=sys.stderr)
        code = 2
    except BaseException as e:  # noqa: BLE001 - whatever ends the GUI loop ends the process
        fatal(f"{type(e).__name__}: {e}", e.__traceback__)
        code = 1
    finally:
        guard.arm(code)
        lock.release()
    # Everything is stopped; skip the interpreter's teardown of the loaded native libraries
    # (onnxruntime, spaCy, GTK), which takes over a second and would only delay the exit,
    # and never wait for a thread still inside one of them.
    guard.end(code)
    return code


def forward(sock: Path, cmd: str, args: list[str], wait: float = 5.0) -> dict:
    """Send a command to the running daemon, waiting up to `wait` s for it to listen."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return control.send(sock, cmd, args)
        except ControlError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
