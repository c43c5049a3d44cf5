"""Global hotkeys. The real listener is pynput's GlobalHotKeys (X11 via XRecord; events
from XTEST count, `xdotool key --window` ones do not). Callbacks only queue an action:
the listener thread must never wait on the clipboard or the model."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Protocol

from tray_reader.errors import TrayReaderError

log = logging.getLogger(__name__)

OnHotkey = Callable[[str, float], None]
"""Called with (action, monotonic time of the press) on the listener thread."""


class HotkeyListener(Protocol):
    def start(self, bindings: Mapping[str, str], on_hotkey: OnHotkey) -> None:
        """Listen for `bindings` (action -> pynput hotkey such as '<ctrl>+<alt>+r')."""

    def stop(self) -> None: ...


class MemoryHotkeys:
    """Records the bindings; `press(action)` plays a key press."""

    def __init__(self) -> None:
        self.bindings: dict[str, str] = {}
        self._on: OnHotkey | None = None

    def start(self, bindings: Mapping[str, str], on_hotkey: OnHotkey) -> None:
        self.bindings = dict(bindings)
        self._on = on_hotkey

    def stop(self) -> None:
        self._on = None

    def press(self, action: str) -> None:
        if self._on is not None and action in self.bindings:
            self._on(action, time.monotonic())


class PynputHotkeys:
    """Global hotkeys through pynput (X11, Windows, macOS; not Wayland)."""

    def __init__(self) -> None:
        self._listener = None

    def start(self, bindings: Mapping[str, str], on_hotkey: OnHotkey) -> None:
        try:
            from pynput import keyboard
        except Exception as e:  # pynput raises plain errors when it finds no display backend
            raise TrayReaderError(
                f"Global hotkeys are not available here ({e}); use `tray-reader ctl`."
            ) from e
        self.stop()
        if not bindings:
            return
        mapping = {combo: self._callback(action, on_hotkey) for action, combo in bindings.items()}
        try:
            listener = keyboard.GlobalHotKeys(mapping)
            listener.daemon = True
            listener.start()
            listener.wait()
        except Exception as e:
            raise TrayReaderError(f"Global hotkeys could not start ({e}); use `tray-reader ctl`.") from e
        self._listener = listener

    @staticmethod
    def _callback(action: str, on_hotkey: OnHotkey) -> Callable[[], None]:
        return lambda: on_hotkey(action, time.monotonic())

    def stop(self) -> None:
        if self._listener is not None:
            # Not joined: pynput's X11 listener only notices stop() at its next event.
            # It is a daemon thread, and after stop() it calls nothing back.
            self._listener.stop()
            self._listener = None
