"""Getting the text the user selected.

X11: the PRIMARY selection, else (optionally) copy-and-restore, else the clipboard.
Copy-and-restore sends Ctrl+C, waits for the clipboard to fill, then puts the user's
previous clipboard text back. Wayland: `wl-paste --primary`, else `wl-paste`, each
bounded by TOOL_TIMEOUT (where the compositor lacks the data-control protocol, as GNOME's
Mutter does, wl-paste can hang or flash a window); no keystrokes are ever sent there.
Everything OS-facing goes through `Clipboard`, so tests use `MemoryClipboard`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Protocol

from tray_reader.errors import SelectionError, TrayReaderError

TOOL_TIMEOUT = 1.0
"""Seconds a clipboard tool may take before we give up on it."""
COPY_TIMEOUT = 0.5
"""Seconds to wait for the clipboard to fill after sending Ctrl+C."""


class Clipboard(Protocol):
    """Reads and writes the selections by name: 'primary' or 'clipboard'."""

    def read(self, which: str) -> str: ...

    def write(self, which: str, text: str) -> None: ...

    def clear(self, which: str) -> None: ...


class SelectionReader(Protocol):
    def read(self) -> str:
        """The selected text; SelectionError when there is none."""
        ...

    def primary(self) -> str:
        """The PRIMARY selection's text, or "" (read passively, to prepare it)."""
        ...


class MemoryClipboard:
    """Selections in a dict; `on_copy` plays the focused app answering Ctrl+C."""

    def __init__(self, primary: str = "", clipboard: str = "", on_copy: str | None = None) -> None:
        self.data = {"primary": primary, "clipboard": clipboard}
        self.on_copy = on_copy

    def read(self, which: str) -> str:
        return self.data[which]

    def write(self, which: str, text: str) -> None:
        self.data[which] = text

    def clear(self, which: str) -> None:
        self.data[which] = ""

    def send_copy(self) -> None:
        if self.on_copy is not None:
            self.data["clipboard"] = self.on_copy


class UnavailableClipboard:
    """Stands in when no clipboard tool is installed: every use says what to install."""

    def __init__(self, message: str) -> None:
        self.message = message

    def read(self, which: str) -> str:
        raise SelectionError(self.message)

    def write(self, which: str, text: str) -> None:
        raise SelectionError(self.message)

    def clear(self, which: str) -> None:
        raise SelectionError(self.message)


def _run(argv: list[str], stdin: str | None = None) -> str:
    # Writers fork a child that keeps serving the selection; it must not inherit our
    # stdout pipe, or run() would wait for it to exit.
    try:
        out = subprocess.run(
            argv,
            input=stdin.encode("utf-8") if stdin is not None else None,
            stdout=subprocess.PIPE if stdin is None else subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            timeout=TOOL_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SelectionError(f"{argv[0]} failed: {e}") from e
    return out.stdout.decode("utf-8", errors="replace") if out.stdout is not None else ""


def _until_read_back(clip: Clipboard, which: str, text: str) -> None:
    """X11 writers return before their child owns the selection: wait until it does."""
    deadline = time.monotonic() + TOOL_TIMEOUT
    while clip.read(which) != text and time.monotonic() < deadline:
        time.sleep(0.01)


class XselClipboard:
    """X11 selections through `xsel` (it forks to keep owning what it writes)."""

    def read(self, which: str) -> str:
        return _run(["xsel", f"--{which}", "--output"])

    def write(self, which: str, text: str) -> None:
        _run(["xsel", f"--{which}", "--input"], stdin=text)
        _until_read_back(self, which, text)

    def clear(self, which: str) -> None:
        _run(["xsel", f"--{which}", "--clear"])


class XclipClipboard:
    """X11 selections through `xclip` (used when xsel is missing)."""

    def read(self, which: str) -> str:
        return _run(["xclip", "-selection", which, "-o"])

    def write(self, which: str, text: str) -> None:
        _run(["xclip", "-selection", which, "-i"], stdin=text)
        _until_read_back(self, which, text)

    def clear(self, which: str) -> None:
        _run(["xclip", "-selection", which, "-i", "/dev/null"], stdin="")


class WaylandClipboard:
    """Wayland selections through wl-clipboard."""

    def read(self, which: str) -> str:
        return _run(["wl-paste", "--no-newline", *(["--primary"] if which == "primary" else [])])

    def write(self, which: str, text: str) -> None:
        _run(["wl-copy", *(["--primary"] if which == "primary" else [])], stdin=text)

    def clear(self, which: str) -> None:
        _run(["wl-copy", "--clear", *(["--primary"] if which == "primary" else [])])


def send_copy_shortcut() -> None:
    """Press Ctrl+C (Cmd+C on macOS) in the focused window (XTEST on X11), first letting go
    of held modifiers so the hotkey's own Ctrl+Alt does not turn it into Ctrl+Alt+C."""
    from pynput.keyboard import Controller, Key

    kb = Controller()
    copy_modifier = Key.cmd if sys.platform == "darwin" else Key.ctrl
    for key in (Key.alt, Key.alt_l, Key.alt_r, Key.shift, Key.cmd, Key.ctrl):
        if key is not copy_modifier:
            kb.release(key)
    with kb.pressed(copy_modifier):
        kb.press("c")
        kb.release("c")


class DesktopSelection:
    """The real SelectionReader: PRIMARY, then copy-and-restore (if on), then clipboard."""

    def __init__(
        self,
        clipboard: Clipboard,
        copy_and_restore: Callable[[], bool],
        send_copy: Callable[[], None] | None = send_copy_shortcut,
        has_primary: bool = True,
    ) -> None:
        """`send_copy` None: never copy-and-restore (Wayland: no keystrokes to other apps)."""
        self.clipboard = clipboard
        self.copy_and_restore = copy_and_restore
        self.send_copy = send_copy
        self.has_primary = has_primary

    def primary(self) -> str:
        """The PRIMARY selection's text, or "" (none here, or unreadable): what preparing
        reads, passively, whenever the selection changes."""
        if not self.has_primary:
            return ""
        try:
            return self.clipboard.read("primary")
        except TrayReaderError:
            return ""

    def read(self) -> str:
        primary_problem: SelectionError | None = None
        if self.has_primary:
            try:
                text = self.clipboard.read("primary")
            except SelectionError as e:  # e.g. wl-paste timed out: the clipboard may still answer
                primary_problem, text = e, ""
            if text.strip():
                return text
        if self.send_copy is not None and self.copy_and_restore():
            text = self._copy_and_restore()
            if text.strip():
                return text
        text = self.clipboard.read("clipboard")
        if text.strip():
            return text
        if primary_problem is not None:
            raise SelectionError(
                f"The selection could not be read ({primary_problem}) and the clipboard is empty: "
                "copy the text, then try again (see `tray-reader doctor`)."
            )
        raise SelectionError("Nothing is selected: select some text, then press the hotkey again.")

    def _copy_and_restore(self) -> str:
        assert self.send_copy is not None
        previous = self.clipboard.read("clipboard")
        self.clipboard.clear("clipboard")
        try:
            self.send_copy()
            deadline = time.monotonic() + COPY_TIMEOUT
            copied = ""
            while time.monotonic() < deadline:
                copied = self.clipboard.read("clipboard")
                if copied:
                    break
                time.sleep(0.02)
        finally:
            if previous:
                self.clipboard.write("clipboard", previous)
        return copied


def session_type() -> str:
    """'wayland', 'x11' or 'none' (no display). GDK_BACKEND=x11 with a DISPLAY asks for
    XWayland: the X11 path (its selections, hotkeys from X11 apps) on a Wayland desktop."""
    if os.environ.get("GDK_BACKEND") == "x11" and os.environ.get("DISPLAY"):
        return "x11"
    if os.environ.get("WAYLAND_DISPLAY") or os.environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    if os.environ.get("DISPLAY"):
        return "x11"
    return "none"


def desktop_clipboard() -> Clipboard:
    """The clipboard tool for this session; SelectionError names what to install."""
    kind = session_type()
    if kind == "wayland":
        if shutil.which("wl-paste"):
            return WaylandClipboard()
        raise SelectionError("Install wl-clipboard (wl-paste) to read the selection on Wayland.")
    if shutil.which("xsel"):
        return XselClipboard()
    if shutil.which("xclip"):
        return XclipClipboard()
    raise SelectionError("Install xsel (or xclip) to read the selected text.")
