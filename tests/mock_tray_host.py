"""A small StatusNotifier tray host for the tests: owns org.kde.StatusNotifierWatcher on the
session bus it is started on, and writes each item that registers to LOG (one line each).

    python -m tests.mock_tray_host LOG
"""

from __future__ import annotations

import sys

from gi.repository import Gio, GLib

NAME = "org.kde.StatusNotifierWatcher"
PATH = "/StatusNotifierWatcher"
XML = """
<node>
  <interface name="org.kde.StatusNotifierWatcher">
    <method name="RegisterStatusNotifierItem"><arg type="s" direction="in"/></method>
    <method name="RegisterStatusNotifierHost"><arg type="s" direction="in"/></method>
    <property name="RegisteredStatusNotifierItems" type="as" access="read"/>
    <property name="IsStatusNotifierHostRegistered" type="b" access="read"/>
    <property name="ProtocolVersion" type="i" access="read"/>
    <signal name="StatusNotifierItemRegistered"><arg type="s"/></signal>
    <signal name="StatusNotifierHostRegistered"/>
  </interface>
</node>
"""


def main(log_path: str) -> None:
    items: list[str] = []
    conn = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def on_call(conn, sender, path, iface, method, params, invocation) -> None:
        if method == "RegisterStatusNotifierItem":
            (item,) = params.unpack()
            service = item if item.startswith(":") or "." in item and not item.startswith("/") else sender
            items.append(service)
            with open(log_path, "a") as f:
                f.write(f"{service} {item}\n")
            conn.emit_signal(
                None, PATH, NAME, "StatusNotifierItemRegistered", GLib.Variant("(s)", (service,))
            )
        invocation.return_value(None)

    def on_get(conn, sender, path, iface, name):
        return {
            "RegisteredStatusNotifierItems": GLib.Variant("as", items),
            "IsStatusNotifierHostRegistered": GLib.Variant("b", True),
            "ProtocolVersion": GLib.Variant("i", 0),
        }.get(name)

    node = Gio.DBusNodeInfo.new_for_xml(XML)
    conn.register_object(PATH, node.interfaces[0], on_call, on_get, None)

    def acquired(conn, name) -> None:
        with open(log_path, "a") as f:
            f.write("ready\n")

    Gio.bus_own_name_on_connection(conn, NAME, Gio.BusNameOwnerFlags.NONE, acquired, None)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main(sys.argv[1])
