"""Short desktop notifications (freedesktop Notifications over the session bus).

The daemon sends them with Gio on its bus connection (`GioNotifier`: one asynchronous call
each, answered on the main loop); `DBusNotifier` (a `gdbus` process per message) serves
where PyGObject is missing."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys
from typing import Any, Protocol

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


class GioNotifier:
    """org.freedesktop.Notifications.Notify on a Gio.DBusConnection, without waiting for it."""

    TIMEOUT_MS = 4000

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def notify(self, summary: str, body: str = "") -> None:
        from gi.repository import GLib

        def done(conn: Any, result: Any) -> None:
            try:
                conn.call_finish(result)
            except GLib.Error as e:
                log.warning("notification failed (%s): %s %s", e.message, summary, body)

        args = GLib.Variant(
            "(susssasa{sv}i)", ("tray-reader", 0, "tray-reader", summary, body, [], {}, self.TIMEOUT_MS)
        )
        self._conn.call(
            "org.freedesktop.Notifications",
            "/org/freedesktop/Notifications",
            "org.freedesktop.Notifications",
            "Notify",
            args,
            None,
            0,
            5000,
            None,
            done,
        )


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
