"""Short desktop notifications (freedesktop Notifications over the session bus)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from typing import Protocol

log = logging.getLogger(__name__)


class Notifier(Protocol):
    def notify(self, summary: str, body: str = "") -> None:
        """Show a short message; never raises (a missing notification daemon is logged)."""


class MemoryNotifier:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []

    def notify(self, summary: str, body: str = "") -> None:
        self.sent.append((summary, body))


class StderrNotifier:
    """No session bus, so no notification daemon: the messages go to stderr."""

    def notify(self, summary: str, body: str = "") -> None:
        print(f"tray-reader: {summary}{': ' + body if body else ''}", file=sys.stderr)


class DBusNotifier:
    """Sends org.freedesktop.Notifications.Notify with `gdbus` (no Python D-Bus binding needed)."""

    TIMEOUT_MS = 4000

    def notify(self, summary: str, body: str = "") -> None:
        if shutil.which("gdbus") is None:
            log.warning("%s %s (install libglib2.0-bin for desktop notifications)", summary, body)
            return
        argv = [
            "gdbus", "call", "--session",
            "--dest", "org.freedesktop.Notifications",
            "--object-path", "/org/freedesktop/Notifications",
            "--method", "org.freedesktop.Notifications.Notify",
            "tray-reader", "0", "tray-reader", summary, body, "[]", "{}", str(self.TIMEOUT_MS),
        ]  # fmt: skip
        try:
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=2, check=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            log.warning("notification failed (%s): %s %s", e, summary, body)
