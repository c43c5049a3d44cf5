"""The session bus and what the desktop offers on it: a tray host, the portal, media keys.

Everything here goes through PyGObject's Gio D-Bus (the binding of the GTK main loop the
tray runs); without PyGObject or a session bus the answers say so, and the daemon runs
without the parts that need them (`tray-reader ctl` always works).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

CLOSED_POLL = 0.2
"""Seconds between looks at whether the bus connection has closed."""
CALL_TIMEOUT_MS = 1000
"""How long a question to the bus may take at start-up (a hung service must not stall it)."""
STATUS_NOTIFIER_WATCHER = "org.kde.StatusNotifierWatcher"
"""The tray host of KDE, GNOME's AppIndicator extension, waybar, and most others."""
PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"


@dataclass(frozen=True)
class SessionBus:
    """A connection to the session bus, or why there is none."""

    connection: Any
    """Gio.DBusConnection, or None."""
    problem: str = ""
    """Why there is no connection ('' when there is one)."""
    no_binding: bool = False
    """There may be a bus, but PyGObject (the binding) is missing."""


def connect() -> SessionBus:
    """The session bus (shared with PyGObject's other users), or the reason there is none.

    Without DBUS_SESSION_BUS_ADDRESS GLib would try to autolaunch a bus through X11, which
    fails with a confusing message (or, worse, starts a private bus nobody else is on)."""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS") and not _runtime_bus_exists():
        return SessionBus(None, "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset)")
    try:
        from gi.repository import Gio, GLib
    except ImportError as e:
        return SessionBus(None, f"PyGObject is missing ({e})", no_binding=True)
    try:
        conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    except GLib.Error as e:
        return SessionBus(None, f"the D-Bus session bus cannot be reached ({e.message})")
    return SessionBus(conn)


def _runtime_bus_exists() -> bool:
    """GLib also finds the bus at $XDG_RUNTIME_DIR/bus (systemd user sessions)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return runtime is not None and os.path.exists(os.path.join(runtime, "bus"))


def call(conn: Any, dest: str, path: str, iface: str, method: str, args: Any, reply: str | None) -> Any:
    """One synchronous call with the start-up timeout; raises GLib.Error."""
    from gi.repository import Gio, GLib

    return conn.call_sync(
        dest,
        path,
        iface,
        method,
        args,
        GLib.VariantType.new(reply) if reply else None,
        Gio.DBusCallFlags.NONE,
        CALL_TIMEOUT_MS,
        None,
    )


def has_owner(conn: Any, name: str) -> bool:
    """Whether some client owns `name` on the bus (False when the bus does not answer)."""
    from gi.repository import GLib

    try:
        out = call(
            conn,
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus",
            "NameHasOwner",
            GLib.Variant("(s)", (name,)),
            "(b)",
        )
    except GLib.Error:
        return False
    return bool(out.unpack()[0])


def has_tray_host(conn: Any) -> bool:
    """A StatusNotifierWatcher is on the bus (what AppIndicator icons need)."""
    return has_owner(conn, STATUS_NOTIFIER_WATCHER)


def portal_version(conn: Any, iface: str) -> int:
    """The version of a portal interface the desktop offers (0: not offered)."""
    from gi.repository import GLib

    try:
        out = call(
            conn,
            PORTAL,
            PORTAL_PATH,
            "org.freedesktop.DBus.Properties",
            "Get",
            GLib.Variant("(ss)", (iface, "version")),
            "(v)",
        )
    except GLib.Error:
        return 0
    value = out.unpack()[0]
    return int(value) if isinstance(value, int) else 0


def watch_closed(conn: Any, on_closed: Callable[[], None], stop: threading.Event) -> threading.Thread:
    """Call `on_closed` (on a thread of its own) once the bus connection has closed, until
    `stop` is set. GLib reports a closed connection only through the main loop, which may
    not be running yet (start-up) or may be stuck; this does not depend on it."""

    def watch() -> None:
        while not stop.wait(CLOSED_POLL):
            if conn.is_closed():
                on_closed()
                return

    thread = threading.Thread(target=watch, name="bus-watch", daemon=True)
    thread.start()
    return thread
