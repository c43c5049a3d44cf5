"""Starting tray-reader at login, for the current user, the way each platform expects.

- Linux and other XDG desktops: ``$XDG_CONFIG_HOME/autostart/tray-reader.desktop``
- Windows: ``tray-reader.lnk`` in the user's Startup folder (written through WScript.Shell)
- macOS: a LaunchAgent, ``~/Library/LaunchAgents/io.github.tray-reader.plist``

The installers write the same files, so ``tray-reader autostart``, the tray's Settings and the
installers all agree on one entry. An entry exists if and only if autostart is on.
`enable`, `disable` and `is_enabled` act on the current platform; each platform is an
`AutostartEntry`, which tests build on a temporary directory.
"""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from tray_reader.errors import AutostartError
from tray_reader.files import write_atomic

APP_ID = "tray-reader"
LAUNCH_AGENT_LABEL = "io.github.tray-reader"
COMMENT = "Reads selected text aloud, offline"


class AutostartEntry(Protocol):
    """One platform's login entry: a file that exists exactly when autostart is on."""

    path: Path

    def write(self, command: Sequence[str]) -> None:
        """Creates or replaces the entry so that login runs ``command``."""
        ...


def _desktop_exec(command: Sequence[str]) -> str:
    """An Exec= value: arguments quoted as the Desktop Entry spec asks."""
    reserved = set(" \t\n\"'\\><~|&;$*?#()`=%")
    parts = []
    for arg in command:
        escaped = arg.replace("%", "%%")
        if any(c in reserved for c in arg) or not arg:
            inner = "".join("\\" + c if c in '"`$\\' else c for c in escaped)
            escaped = f'"{inner}"'
        # The .desktop file format itself unescapes backslashes once more.
        parts.append(escaped.replace("\\", "\\\\"))
    return " ".join(parts)


def _write_atomic(path: Path, data: bytes) -> None:
    try:
        write_atomic(path, data)
    except OSError as e:
        raise AutostartError(f"Cannot write the autostart entry {path}: {e.strerror or e}.") from e


@dataclass
class XdgAutostart:
    """An XDG autostart desktop entry (GNOME, KDE, Xfce, LXQt, … read these at login)."""

    path: Path

    def write(self, command: Sequence[str]) -> None:
        text = (
            "[Desktop Entry]\n"
            "Type=Application\n"
            "Name=tray-reader\n"
            f"Comment={COMMENT}\n"
            f"Exec={_desktop_exec(command)}\n"
            f"Icon={APP_ID}\n"
            "Terminal=false\n"
            "X-GNOME-Autostart-enabled=true\n"
        )
        _write_atomic(self.path, text.encode("utf-8"))


def launch_agent_plist(command: Sequence[str], log_file: Path) -> bytes:
    """The LaunchAgent for ``command``; also the template the macOS installer writes."""
    agent = {
        "Label": LAUNCH_AGENT_LABEL,
        "ProgramArguments": list(command),
        "RunAtLoad": True,
        # Restart after a crash, not after the user chose Quit in the tray.
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Interactive",
        "LimitLoadToSessionType": "Aqua",
        "StandardOutPath": str(log_file),
        "StandardErrorPath": str(log_file),
    }
    return plistlib.dumps(agent)


@dataclass
class LaunchAgent:
    """A per-user launchd agent; launchd loads it at the next login."""

    path: Path
    log_file: Path

    def write(self, command: Sequence[str]) -> None:
        _write_atomic(self.path, launch_agent_plist(command, self.log_file))


ShortcutWriter = Callable[[Path, Sequence[str]], None]


def write_shortcut_with_wscript(link: Path, command: Sequence[str]) -> None:
    """Creates a Windows .lnk through WScript.Shell (PowerShell ships with every Windows)."""
    script = (
        "$s = (New-Object -ComObject WScript.Shell).CreateShortcut($env:TR_LINK); "
        "$s.TargetPath = $env:TR_TARGET; $s.Arguments = $env:TR_ARGS; "
        "$s.WorkingDirectory = $env:USERPROFILE; $s.Description = $env:TR_COMMENT; "
        "if ($env:TR_ICON) { $s.IconLocation = $env:TR_ICON }; $s.Save()"
    )
    icon = Path(__file__).resolve().parent / "icons" / f"{APP_ID}.ico"
    env = dict(os.environ)
    env.update(
        TR_LINK=str(link),
        TR_TARGET=command[0],
        TR_ARGS=subprocess.list2cmdline(command[1:]),
        TR_COMMENT=COMMENT,
        TR_ICON=f"{icon},0" if icon.exists() else "",
    )
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        subprocess.run(
            ["powershell", "-NoProfile", "-NonInteractive", "-Command", script],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
    except FileNotFoundError as e:
        raise AutostartError("PowerShell was not found, so the Startup shortcut cannot be made.") from e
    except subprocess.CalledProcessError as e:
        raise AutostartError(f"Could not create the Startup shortcut {link}: {e.stderr.strip()}") from e


@dataclass
class StartupShortcut:
    """A shortcut in the user's Startup folder, which Windows runs at login."""

    path: Path
    make_shortcut: ShortcutWriter = write_shortcut_with_wscript

    def write(self, command: Sequence[str]) -> None:
        self.make_shortcut(self.path, command)


def entry_for(platform: str, env: Mapping[str, str], home: Path) -> AutostartEntry:
    """The autostart entry for ``platform`` (a ``sys.platform`` value) and environment."""
    if platform == "win32":
        appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        startup = appdata / "Microsoft" / "Windows" / "Start Menu" / "Programs" / "Startup"
        return StartupShortcut(startup / f"{APP_ID}.lnk")
    if platform == "darwin":
        return LaunchAgent(
            home / "Library" / "LaunchAgents" / f"{LAUNCH_AGENT_LABEL}.plist",
            home / "Library" / "Logs" / f"{APP_ID}.log",
        )
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return XdgAutostart(config_home / "autostart" / f"{APP_ID}.desktop")


def current_entry() -> AutostartEntry:
    """The autostart entry for this platform and user."""
    return entry_for(sys.platform, os.environ, Path.home())


def default_command(platform: str = sys.platform, python: str = sys.executable) -> list[str]:
    """How login should start this installation of tray-reader (its own interpreter)."""
    exe = Path(python)
    if platform == "win32":
        # pythonw has no console window, which a login item should not open.
        pythonw = exe.with_name("pythonw.exe")
        return [str(pythonw if pythonw.exists() else exe), "-m", "tray_reader.cli", "run"]
    script = exe.with_name("tray-reader")
    if script.exists():
        return [str(script), "run"]
    return [str(exe), "-m", "tray_reader.cli", "run"]


def enable(command: Sequence[str] | None = None, entry: AutostartEntry | None = None) -> Path:
    """Turns autostart on (replacing an older entry) and returns the entry's path."""
    entry = entry or current_entry()
    entry.write(list(command) if command else default_command())
    return entry.path


def disable(entry: AutostartEntry | None = None) -> Path:
    """Turns autostart off; nothing happens when it already is. Returns the entry's path."""
    entry = entry or current_entry()
    try:
        entry.path.unlink(missing_ok=True)
    except OSError as e:
        raise AutostartError(f"Cannot remove the autostart entry {entry.path}: {e.strerror or e}.") from e
    return entry.path


def is_enabled(entry: AutostartEntry | None = None) -> bool:
    """Whether tray-reader starts at login for this user."""
    return (entry or current_entry()).path.exists()
