"""The daemon process: the real parts, one instance per user, the app run, a quick exit.

`run_daemon` is `tray-reader` / `tray-reader run`; `forward` sends a command to the daemon
that runs (`ctl`, `read`, a second start).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tray_reader import config, control
from tray_reader.app import App, Parts, PlayerSink
from tray_reader.errors import ControlError, SelectionError, TrayReaderError


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


def real_parts(settings: config.Settings, copy_and_restore: Callable[[], bool]) -> Parts:
    from tray_reader.document_chooser import choose_document
    from tray_reader.hotkeys import PynputHotkeys
    from tray_reader.notify import DBusNotifier
    from tray_reader.reading_window import open_reading_window
    from tray_reader.selection import (
        Clipboard,
        DesktopSelection,
        UnavailableClipboard,
        desktop_clipboard,
        session_type,
    )
    from tray_reader.selection_watch import watch_primary
    from tray_reader.speech.synthesis import load_synthesizer
    from tray_reader.tray import PystrayTray, gtk_available
    from tray_reader.voices.commands import enroll_from_tray

    try:
        clipboard: Clipboard = desktop_clipboard()
    except SelectionError as e:
        print(f"tray-reader: {e}", file=sys.stderr)
        clipboard = UnavailableClipboard(str(e))
    return Parts(
        player=_real_player(settings),
        selection=DesktopSelection(clipboard, copy_and_restore, has_primary=session_type() != "none"),
        hotkeys=PynputHotkeys() if session_type() == "x11" or sys.platform != "linux" else _NoHotkeys(),
        tray=PystrayTray(),
        notifier=DBusNotifier(),
        voices=LibraryVoices(),
        load_pipeline=load_synthesizer,
        open_file=_xdg_open,
        enroll=enroll_from_tray,
        reading_window=open_reading_window if gtk_available() else None,
        choose_document=choose_document if gtk_available() else None,
        watch_selection=watch_primary if session_type() == "x11" else None,
    )


class _NoHotkeys:
    """Wayland: no global key grabs for apps; bind desktop shortcuts to `tray-reader ctl read`."""

    def start(self, bindings: Any, on_hotkey: Any) -> None:
        if bindings:
            raise TrayReaderError(
                "Global hotkeys are not available on Wayland: bind desktop shortcuts to `tray-reader ctl read` (and queue, toggle, stop)."
            )

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
    try:
        holder: dict[str, App] = {}
        loaded = config.load(settings_file)
        parts = real_parts(loaded.settings, lambda: holder["app"].settings.copy_and_restore)
        app = holder["app"] = App(parts, settings_file, sock)
        code = app.run()
    finally:
        lock.release()
    # Everything is stopped; skip the interpreter's teardown of the loaded native libraries
    # (onnxruntime, spaCy, GTK), which takes over a second and would only delay the exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


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
