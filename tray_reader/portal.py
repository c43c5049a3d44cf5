"""Global shortcuts through the desktop portal (org.freedesktop.portal.GlobalShortcuts).

Where the desktop offers it (KDE Plasma 5.27+, GNOME 48+, Hyprland), tray-reader registers
its app id (org.freedesktop.host.portal.Registry, which recent portals require of apps
outside a sandbox; the id is the installed .desktop file's name), creates a session,
binds the hotkey actions plus next/previous sentence with their preferred triggers and
descriptions, and acts on `Activated`. The desktop may show the user a dialog to confirm
or change the keys; they are then kept in its own shortcut settings.

`PortalShortcuts` is a HotkeyListener; every call and reply runs on the GLib main loop
the tray runs. When the portal refuses, the daemon carries on: the fallback (pynput on
X11) takes over, and the user is told how to bind `tray-reader ctl read` by hand.
"""

from __future__ import annotations

import itertools
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from tray_reader.autostart import APP_ID
from tray_reader.dbus_session import PORTAL, PORTAL_PATH
from tray_reader.hotkeys import HotkeyListener, OnHotkey

log = logging.getLogger(__name__)

GLOBAL_SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
REGISTRY = "org.freedesktop.host.portal.Registry"
REQUEST = "org.freedesktop.portal.Request"
SESSION = "org.freedesktop.portal.Session"
DESCRIPTIONS = {
    "read": "Read the selected text aloud now",
    "queue": "Read the selected text after what is queued",
    "pause": "Pause or resume reading",
    "stop": "Stop reading and clear the queue",
    "next": "Skip to the next sentence",
    "prev": "Back to the previous sentence",
}
"""Every action offered as a shortcut, with what the desktop shows for it."""
EXTRA_ACTIONS = ("next", "prev")
"""Offered with no preferred key (there is no X11 hotkey for them): the user picks one."""
_MODIFIERS = {"<ctrl>": "CTRL", "<alt>": "ALT", "<shift>": "SHIFT", "<cmd>": "LOGO", "<super>": "LOGO"}
_KEYS = {"print_screen": "Print", "backspace": "BackSpace", "esc": "Escape", "enter": "Return"}
_tokens = itertools.count(1)


def portal_trigger(combo: str) -> str:
    """A pynput hotkey ('<ctrl>+<alt>+r') as the shortcuts spec writes it ('CTRL+ALT+r')."""
    out = []
    for part in combo.split("+"):
        if part in _MODIFIERS:
            out.append(_MODIFIERS[part])
            continue
        name = part.strip("<>")
        out.append(_KEYS.get(name, name.upper() if name.startswith("f") and name[1:].isdigit() else name))
    return "+".join(out)


def shortcuts_for(bindings: Mapping[str, str]) -> list[tuple[str, dict[str, str]]]:
    """The portal's shortcut list for these hotkey bindings (action -> pynput combo)."""
    shortcuts = []
    for action, description in DESCRIPTIONS.items():
        if action in EXTRA_ACTIONS:
            shortcuts.append((action, {"description": description}))
        elif bindings.get(action):
            shortcuts.append(
                (action, {"description": description, "preferred_trigger": portal_trigger(bindings[action])})
            )
    return shortcuts


def manual_binding_hint(desktop: str | None = None) -> str:
    """How to bind `tray-reader ctl read` by hand on this desktop (XDG_CURRENT_DESKTOP)."""
    desktop = (desktop if desktop is not None else os.environ.get("XDG_CURRENT_DESKTOP", "")).lower()
    if "gnome" in desktop:
        how = "Settings → Keyboard → View and Customise Shortcuts → Custom Shortcuts → +, command `tray-reader ctl read`"
    elif "kde" in desktop:
        how = "System Settings → Shortcuts → Add New → Command or Script…, command `tray-reader ctl read`"
    elif "sway" in desktop:
        how = "add `bindsym Ctrl+Alt+r exec tray-reader ctl read` to ~/.config/sway/config"
    elif "hyprland" in desktop:
        how = "add `bind = CTRL ALT, R, exec, tray-reader ctl read` to ~/.config/hypr/hyprland.conf"
    else:
        how = "bind a key to the command `tray-reader ctl read` in your desktop's keyboard settings"
    return f"{how} (and likewise `ctl queue`, `ctl toggle`, `ctl stop`, `ctl next`, `ctl prev`)"


class PortalShortcuts:
    """Global shortcuts through the portal on `conn` (a Gio.DBusConnection).

    `on_problem(message)` is told, once, when the portal refuses; `fallback` (if any) then
    listens instead."""

    def __init__(
        self,
        conn: Any,
        on_problem: Callable[[str], None],
        fallback: HotkeyListener | None = None,
        app_id: str = APP_ID,
    ) -> None:
        self._conn = conn
        self._on_problem = on_problem
        self._fallback = fallback
        self._app_id = app_id
        self._on_hotkey: OnHotkey | None = None
        self._bindings: dict[str, str] = {}
        self._session: str | None = None
        self._registered = False
        self._register_problem = ""
        self._failed = False
        self._subscriptions: list[int] = []
        self.bound: list[tuple[str, dict[str, Any]]] = []
        """The shortcuts as the portal bound them (id, {description, trigger_description})."""

    # -- HotkeyListener ----------------------------------------------------------------------
    def start(self, bindings: Mapping[str, str], on_hotkey: OnHotkey) -> None:
        self._bindings, self._on_hotkey = dict(bindings), on_hotkey
        if self._failed:
            self._start_fallback()
            return
        if not self._registered:
            self._register()
        if not self._subscriptions:
            self._subscriptions.append(
                self._conn.signal_subscribe(
                    PORTAL, GLOBAL_SHORTCUTS, "Activated", PORTAL_PATH, None, 0, self._on_activated
                )
            )
        # A session's shortcuts are bound once: new bindings get a new session.
        self._close_session()
        self._request("CreateSession", self._create_session_args, self._on_session)

    def stop(self) -> None:
        self._close_session()
        for sub in self._subscriptions:
            self._conn.signal_unsubscribe(sub)
        self._subscriptions = []
        if self._fallback is not None:
            self._fallback.stop()

    # -- the portal's steps ------------------------------------------------------------------
    def _register(self) -> None:
        from gi.repository import GLib

        from tray_reader.dbus_session import call

        self._registered = True
        try:
            call(
                self._conn,
                PORTAL,
                PORTAL_PATH,
                REGISTRY,
                "Register",
                GLib.Variant("(sa{sv})", (self._app_id, {})),
                None,
            )
        except GLib.Error as e:
            # Portals before 1.19 have no registry and need none; others say why they refuse.
            if "UnknownMethod" not in str(e) and "UnknownInterface" not in str(e):
                self._register_problem = (
                    f"registering the app id {self._app_id!r} failed: {e.message}; the portal needs the "
                    f"menu entry {self._app_id}.desktop that the installer writes"
                )
                log.warning("%s", self._register_problem)

    def _create_session_args(self, token: str) -> Any:
        from gi.repository import GLib

        return GLib.Variant(
            "(a{sv})",
            ({"handle_token": GLib.Variant("s", token), "session_handle_token": GLib.Variant("s", token)},),
        )

    def _on_session(self, results: dict[str, Any]) -> None:
        session = results.get("session_handle")
        if not isinstance(session, str) or not session:
            self._fail("the portal created no shortcuts session")
            return
        self._session = session
        self._request("BindShortcuts", self._bind_args, self._on_bound)

    def _bind_args(self, token: str) -> Any:
        from gi.repository import GLib

        shortcuts = [
            (name, {k: GLib.Variant("s", v) for k, v in props.items()})
            for name, props in shortcuts_for(self._bindings)
        ]
        return GLib.Variant(
            "(oa(sa{sv})sa{sv})", (self._session, shortcuts, "", {"handle_token": GLib.Variant("s", token)})
        )

    def _on_bound(self, results: dict[str, Any]) -> None:
        self.bound = list(results.get("shortcuts", []))
        log.info("portal shortcuts bound: %s", ", ".join(name for name, _ in self.bound))

    def _on_activated(self, conn: Any, sender: str, path: str, iface: str, signal: str, params: Any) -> None:
        session, shortcut, _timestamp, _options = params.unpack()
        if session == self._session and self._on_hotkey is not None and shortcut in DESCRIPTIONS:
            self._on_hotkey(shortcut, time.monotonic())

    def _close_session(self) -> None:
        if self._session is None:
            return
        session, self._session = self._session, None
        self._conn.call(PORTAL, session, SESSION, "Close", None, None, 0, -1, None, None)

    # -- requests: a call answered by a Response signal on a request object --------------------
    def _request(
        self, method: str, args: Callable[[str], Any], done: Callable[[dict[str, Any]], None]
    ) -> None:
        token = f"tray_reader_{os.getpid()}_{next(_tokens)}"
        sender = self._conn.get_unique_name().lstrip(":").replace(".", "_")
        path = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
        subscription = 0

        def on_response(conn: Any, sender: str, obj: str, iface: str, signal: str, params: Any) -> None:
            self._conn.signal_unsubscribe(subscription)
            code, results = params.unpack()
            if code == 0:
                done(results)
            else:
                what = "cancelled by the user" if code == 1 else "refused"
                self._fail(f"the portal's {method} was {what}")

        # Subscribed before the call, so a quick answer is never missed.
        subscription = self._conn.signal_subscribe(PORTAL, REQUEST, "Response", path, None, 0, on_response)

        def on_reply(conn: Any, result: Any) -> None:
            from gi.repository import GLib

            try:
                conn.call_finish(result)
            except GLib.Error as e:
                self._conn.signal_unsubscribe(subscription)
                self._fail(f"the portal's {method} failed: {e.message}")

        self._conn.call(
            PORTAL, PORTAL_PATH, GLOBAL_SHORTCUTS, method, args(token), None, 0, -1, None, on_reply
        )

    def _fail(self, why: str) -> None:
        if self._failed:
            return
        self._failed = True
        self._session = None
        if self._register_problem:
            why = f"{why}; {self._register_problem}"
        instead = "using X11 hotkeys instead" if self._fallback is not None else manual_binding_hint()
        self._on_problem(f"Global shortcuts through the desktop portal are not available ({why}); {instead}.")
        self._start_fallback()

    def _start_fallback(self) -> None:
        if self._fallback is None or self._on_hotkey is None:
            return
        try:
            self._fallback.start(self._bindings, self._on_hotkey)
        except Exception as e:  # noqa: BLE001 - a listener that cannot start is reported, not fatal
            self._on_problem(str(e))
