"""A small xdg-desktop-portal for the tests: Registry.Register and GlobalShortcuts
(CreateSession, BindShortcuts, ListShortcuts, Activated), on the session bus it is started on.

    python -m tests.mock_portal LOG [--fail] [--no-desktop-file]

Writes one JSON line per call to LOG. `org.example.MockPortal.Activate(s shortcut)` makes
it emit `Activated` for the last session. With --fail, CreateSession answers with an error;
with --no-desktop-file, Register does too (as xdg-desktop-portal does for an app id with
no .desktop file).
"""

from __future__ import annotations

import json
import sys

from gi.repository import Gio, GLib

NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
XML = """
<node>
  <interface name="org.freedesktop.host.portal.Registry">
    <method name="Register"><arg type="s" direction="in"/><arg type="a{sv}" direction="in"/></method>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.freedesktop.portal.GlobalShortcuts">
    <method name="CreateSession">
      <arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <method name="BindShortcuts">
      <arg type="o" direction="in"/><arg type="a(sa{sv})" direction="in"/>
      <arg type="s" direction="in"/><arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <method name="ListShortcuts">
      <arg type="o" direction="in"/><arg type="a{sv}" direction="in"/><arg type="o" direction="out"/>
    </method>
    <signal name="Activated">
      <arg type="o"/><arg type="s"/><arg type="t"/><arg type="a{sv}"/>
    </signal>
    <property name="version" type="u" access="read"/>
  </interface>
  <interface name="org.example.MockPortal">
    <method name="Activate"><arg type="s" direction="in"/></method>
  </interface>
</node>
"""


class MockPortal:
    def __init__(self, log_path: str, fail: bool, no_desktop_file: bool = False) -> None:
        self.log_path = log_path
        self.fail = fail
        self.no_desktop_file = no_desktop_file
        self.session = ""
        self.shortcuts: list = []
        self.conn: Gio.DBusConnection | None = None

    def log(self, **entry: object) -> None:
        with open(self.log_path, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def request_path(self, sender: str, options: dict) -> str:
        token = options.get("handle_token", "t")
        return f"/org/freedesktop/portal/desktop/request/{sender.lstrip(':').replace('.', '_')}/{token}"

    def respond(self, path: str, results: dict) -> None:
        assert self.conn is not None

        def later() -> bool:
            assert self.conn is not None
            self.conn.emit_signal(
                None,
                path,
                "org.freedesktop.portal.Request",
                "Response",
                GLib.Variant("(ua{sv})", (0, results)),
            )
            return False

        GLib.timeout_add(20, later)

    def on_call(self, conn, sender, path, iface, method, params, invocation) -> None:
        args = params.unpack()
        if method == "Register":
            self.log(method=method, app_id=args[0])
            if self.no_desktop_file:
                invocation.return_dbus_error(
                    "org.freedesktop.portal.Error.Failed", f"App info not found for '{args[0]}'"
                )
                return
            invocation.return_value(None)
        elif method == "CreateSession":
            options = args[0]
            self.log(method=method, options=options)
            if self.fail:
                invocation.return_dbus_error("org.freedesktop.portal.Error.Failed", "no shortcuts for you")
                return
            self.session = f"/org/freedesktop/portal/desktop/session/1/{options['session_handle_token']}"
            req = self.request_path(sender, options)
            invocation.return_value(GLib.Variant("(o)", (req,)))
            self.respond(req, {"session_handle": GLib.Variant("s", self.session)})
        elif method == "BindShortcuts":
            session, shortcuts, _parent, options = args
            self.shortcuts = shortcuts
            self.log(method=method, session=session, shortcuts=shortcuts)
            req = self.request_path(sender, options)
            invocation.return_value(GLib.Variant("(o)", (req,)))
            bound = [
                (name, {"description": GLib.Variant("s", props["description"]),
                        "trigger_description": GLib.Variant("s", props.get("preferred_trigger", ""))})
                for name, props in shortcuts
            ]  # fmt: skip
            self.respond(req, {"shortcuts": GLib.Variant("a(sa{sv})", bound)})
        elif method == "ListShortcuts":
            req = self.request_path(sender, args[1])
            invocation.return_value(GLib.Variant("(o)", (req,)))
        elif method == "Activate":
            self.log(method=method, shortcut=args[0])
            conn.emit_signal(
                None,
                PATH,
                "org.freedesktop.portal.GlobalShortcuts",
                "Activated",
                GLib.Variant("(osta{sv})", (self.session, args[0], 0, {})),
            )
            invocation.return_value(None)

    def on_get(self, conn, sender, path, iface, name):
        return GLib.Variant("u", 1) if name == "version" else None

    def run(self) -> None:
        loop = GLib.MainLoop()
        self.conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)
        node = Gio.DBusNodeInfo.new_for_xml(XML)
        for iface in node.interfaces:
            self.conn.register_object(PATH, iface, self.on_call, self.on_get, None)

        def acquired(conn, name) -> None:
            self.log(method="ready")

        Gio.bus_own_name_on_connection(self.conn, NAME, Gio.BusNameOwnerFlags.NONE, acquired, None)
        loop.run()


if __name__ == "__main__":
    MockPortal(sys.argv[1], "--fail" in sys.argv[2:], "--no-desktop-file" in sys.argv[2:]).run()
