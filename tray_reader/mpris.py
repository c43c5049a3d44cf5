"""Media keys and the desktop's media controls: tray-reader as an MPRIS player.

On the session bus as ``org.mpris.MediaPlayer2.tray_reader`` (PyGObject's Gio D-Bus, served
from the GLib main loop the tray runs). PlayPause/Play/Pause/Stop/Next/Previous drive
pause/resume/stop and the next/previous sentence; PlaybackStatus, the Can* properties and
Metadata (title: the sentence being heard, artist: the voice) follow the app, and
PropertiesChanged is sent whenever one of them changes (`MediaPlayer.changed`, any thread).
On Wayland media and headset keys reach only MPRIS players.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tray_reader.states import AppState

log = logging.getLogger(__name__)

BUS_NAME = "org.mpris.MediaPlayer2.tray_reader"
PATH = "/org/mpris/MediaPlayer2"
ROOT_IFACE = "org.mpris.MediaPlayer2"
PLAYER_IFACE = "org.mpris.MediaPlayer2.Player"
NO_TRACK = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
TITLE_CHARS = 300
"""Longest title sent (a sentence can be a whole unpunctuated page)."""

INTROSPECTION = """
<node>
  <interface name="org.mpris.MediaPlayer2">
    <method name="Raise"/>
    <method name="Quit"/>
    <property name="CanQuit" type="b" access="read"/>
    <property name="CanRaise" type="b" access="read"/>
    <property name="HasTrackList" type="b" access="read"/>
    <property name="Identity" type="s" access="read"/>
    <property name="DesktopEntry" type="s" access="read"/>
    <property name="SupportedUriSchemes" type="as" access="read"/>
    <property name="SupportedMimeTypes" type="as" access="read"/>
  </interface>
  <interface name="org.mpris.MediaPlayer2.Player">
    <method name="Next"/>
    <method name="Previous"/>
    <method name="Pause"/>
    <method name="PlayPause"/>
    <method name="Stop"/>
    <method name="Play"/>
    <method name="Seek"><arg direction="in" name="Offset" type="x"/></method>
    <method name="SetPosition">
      <arg direction="in" name="TrackId" type="o"/><arg direction="in" name="Position" type="x"/>
    </method>
    <method name="OpenUri"><arg direction="in" name="Uri" type="s"/></method>
    <signal name="Seeked"><arg name="Position" type="x"/></signal>
    <property name="PlaybackStatus" type="s" access="read"/>
    <property name="Rate" type="d" access="read"/>
    <property name="Metadata" type="a{sv}" access="read"/>
    <property name="Volume" type="d" access="read"/>
    <property name="Position" type="x" access="read"/>
    <property name="MinimumRate" type="d" access="read"/>
    <property name="MaximumRate" type="d" access="read"/>
    <property name="CanGoNext" type="b" access="read"/>
    <property name="CanGoPrevious" type="b" access="read"/>
    <property name="CanPlay" type="b" access="read"/>
    <property name="CanPause" type="b" access="read"/>
    <property name="CanSeek" type="b" access="read"/>
    <property name="CanControl" type="b" access="read"/>
  </interface>
</node>
"""


@dataclass(frozen=True)
class NowPlaying:
    """What the player shows, as of one moment."""

    state: AppState
    sentence: str = ""
    """The sentence being heard ('' when none)."""
    sentence_index: int | None = None
    """Its index in the text being read."""
    voice: str = ""
    volume: float = 1.0


def playback_status(state: AppState) -> str:
    if state is AppState.SPEAKING:
        return "Playing"
    if state is AppState.PAUSED:
        return "Paused"
    return "Stopped"


def player_properties(now: NowPlaying) -> dict[str, Any]:
    """The Player interface's properties as plain values (D-Bus signature in `_SIGNATURES`)."""
    status = playback_status(now.state)
    reading = status != "Stopped"
    metadata: dict[str, tuple[str, Any]] = {
        "mpris:trackid": (
            "o",
            f"/org/mpris/MediaPlayer2/tray_reader/sentence/{now.sentence_index}"
            if reading and now.sentence_index is not None
            else NO_TRACK,
        )
    }
    if reading and now.sentence:
        metadata["xesam:title"] = ("s", now.sentence[:TITLE_CHARS])
    if now.voice:
        metadata["xesam:artist"] = ("as", [now.voice])
    ready = now.state not in (AppState.WARMING, AppState.ERROR)
    return {
        "PlaybackStatus": status,
        "Rate": 1.0,
        "Metadata": metadata,
        "Volume": now.volume,
        "Position": 0,
        "MinimumRate": 1.0,
        "MaximumRate": 1.0,
        "CanGoNext": reading,
        "CanGoPrevious": reading,
        "CanPlay": ready,
        "CanPause": status == "Playing",
        "CanSeek": False,
        "CanControl": True,
    }


_SIGNATURES = {
    "PlaybackStatus": "s",
    "Rate": "d",
    "Metadata": "a{sv}",
    "Volume": "d",
    "Position": "x",
    "MinimumRate": "d",
    "MaximumRate": "d",
    "CanGoNext": "b",
    "CanGoPrevious": "b",
    "CanPlay": "b",
    "CanPause": "b",
    "CanSeek": "b",
    "CanControl": "b",
}
_ROOT = {
    "CanQuit": ("b", True),
    "CanRaise": ("b", False),
    "HasTrackList": ("b", False),
    "Identity": ("s", "tray-reader"),
    "DesktopEntry": ("s", "tray-reader"),
    "SupportedUriSchemes": ("as", []),
    "SupportedMimeTypes": ("as", []),
}


def action_for(method: str, state: AppState) -> str | None:
    """The app action an MPRIS method asks for in this state (None: nothing to do).
    Play and PlayPause with nothing playing read the selection, like the hotkey."""
    status = playback_status(state)
    if method == "PlayPause":
        return {"Playing": "toggle", "Paused": "resume"}.get(status, "read")
    if method == "Play":
        return {"Playing": None, "Paused": "resume"}.get(status, "read")
    if method == "Pause":
        return "toggle" if status == "Playing" else None
    return {"Stop": "stop", "Next": "next", "Previous": "prev", "Quit": "quit"}.get(method)


def _variant(signature: str, value: Any) -> Any:
    from gi.repository import GLib

    if signature == "a{sv}":
        return GLib.Variant("a{sv}", {k: GLib.Variant(sig, v) for k, (sig, v) in value.items()})
    return GLib.Variant(signature, value)


class MediaPlayer:
    """The MPRIS player. `act(action)` queues an app action (never blocks); `now()` says
    what is playing. Call `start()` on the thread whose main loop serves the bus (the main one)."""

    def __init__(self, act: Callable[[str], None], now: Callable[[], NowPlaying]) -> None:
        self._act = act
        self._now = now
        self._conn: Any = None
        self._ids: list[int] = []
        self._owner_id = 0
        self._sent: dict[str, Any] = {}
        self._pending = False

    def start(self, conn: Any) -> None:
        from gi.repository import Gio

        node = Gio.DBusNodeInfo.new_for_xml(INTROSPECTION)
        self._conn = conn
        for iface in node.interfaces:
            self._ids.append(conn.register_object(PATH, iface, self._on_call, self._on_get, None))
        self._sent = player_properties(self._now())
        self._owner_id = Gio.bus_own_name_on_connection(
            conn, BUS_NAME, Gio.BusNameOwnerFlags.NONE, None, None
        )

    def stop(self) -> None:
        from gi.repository import Gio

        if self._conn is None:
            return
        for i in self._ids:
            self._conn.unregister_object(i)
        if self._owner_id:
            Gio.bus_unown_name(self._owner_id)
        self._conn, self._ids, self._owner_id = None, [], 0

    def changed(self) -> None:
        """Something may have changed (any thread): compare and signal on the main loop."""
        if self._conn is None or self._pending:
            return
        from gi.repository import GLib

        self._pending = True
        GLib.idle_add(self._emit_changes)

    def _emit_changes(self) -> bool:
        from gi.repository import GLib

        self._pending = False
        if self._conn is None:
            return False
        props = player_properties(self._now())
        changed = {k: v for k, v in props.items() if self._sent.get(k) != v and k != "Position"}
        self._sent = props
        if changed:
            self._conn.emit_signal(
                None,
                PATH,
                "org.freedesktop.DBus.Properties",
                "PropertiesChanged",
                GLib.Variant(
                    "(sa{sv}as)",
                    (PLAYER_IFACE, {k: _variant(_SIGNATURES[k], v) for k, v in changed.items()}, []),
                ),
            )
        return False  # once

    # -- the bus calls these on the main loop ---------------------------------------------------
    def _on_call(
        self, conn: Any, sender: str, path: str, iface: str, method: str, params: Any, invocation: Any
    ) -> None:
        action = action_for(method, self._now().state)
        if action is not None:
            self._act(action)
        if method in ("Seek", "SetPosition", "OpenUri"):
            invocation.return_dbus_error(
                "org.mpris.MediaPlayer2.tray_reader.NotSupported", f"tray-reader cannot {method}"
            )
            return
        invocation.return_value(None)

    def _on_get(self, conn: Any, sender: str, path: str, iface: str, name: str) -> Any:
        if iface == ROOT_IFACE and name in _ROOT:
            return _variant(*_ROOT[name])
        props = player_properties(self._now())
        if name in props:
            return _variant(_SIGNATURES[name], props[name])
        return None


class SentenceText:
    """The text of sentence N of the text being read, as the front end counts sentences
    (only those with something readable), found lazily and kept for the last text."""

    def __init__(self) -> None:
        self._text: str | None = None
        self._found: list[str] = []
        self._rest: Any = None

    def __call__(self, text: str, index: int) -> str:
        from tray_reader.text.sentences import sentences

        if text is not self._text:
            self._text, self._found, self._rest = text, [], sentences(text)
        while len(self._found) <= index and self._rest is not None:
            raw = next(self._rest, None)
            if raw is None:
                self._rest = None
                break
            if any(c.isalnum() for c in raw.text):
                self._found.append(" ".join(raw.text.split()))
        return self._found[index] if 0 <= index < len(self._found) else ""


def now_playing_of(app: Any) -> Callable[[], NowPlaying]:
    """`now()` for a MediaPlayer driven by a tray_reader App."""
    sentence_text = SentenceText()

    def now() -> NowPlaying:
        state = app.state
        request = app.worker.last_request
        index = app.parts.player.status.sentence
        text = ""
        if request is not None and index is not None and state in (AppState.SPEAKING, AppState.PAUSED):
            text = sentence_text(request.text, index)
        return NowPlaying(state, text, index, app.voice.name, app.settings.volume)

    return now
