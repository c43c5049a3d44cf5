"""The tray icon and its menu (pystray; on Linux its GTK backend, the one with a menu).

The menu is built from a `TrayModel` snapshot the app provides; choosing an item calls
`on_action(name, argument)` on the GTK thread, which must only queue the action.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tray_reader.states import AppState
from tray_reader.voices.names import OWN_VOICES, menu_groups


def _icons_dir() -> Path:
    # An installed wheel carries icons/ inside the package; a checkout has it beside it.
    inside = Path(__file__).resolve().parent / "icons"
    return inside if inside.is_dir() else Path(__file__).resolve().parent.parent / "icons"


ICONS_DIR = _icons_dir()
SPEEDS = (0.75, 0.9, 1.0, 1.1, 1.25, 1.5, 1.75)
"""Speeds offered in the Speed menu (any 0.5-2.0 value works through settings or ctl)."""
STATE_COLOURS = {
    AppState.WARMING: (150, 150, 150),
    AppState.IDLE: (40, 120, 220),
    AppState.SPEAKING: (40, 170, 80),
    AppState.PAUSED: (230, 160, 30),
    AppState.ERROR: (210, 50, 40),
}
"""Fallback icon colour per state, used when icons/tray-<state>.png is missing."""


@dataclass(frozen=True)
class TrayModel:
    """What the tray shows, as of one moment."""

    state: AppState
    voice: str
    """Current voice (checked in the Voice menu)."""
    speed: float
    """Current speed (checked in the Speed menu)."""
    voices: tuple[str, ...]
    """All voices (ids), for the Voice menu."""
    stock_voices: tuple[str, ...] = ()
    """Which ids are stock voices: grouped by accent and gender under readable names, after
    the user's own voices (`voices.names`)."""
    can_enroll: bool = False
    """Show 'Enroll voice…' (the voices package provides enrolment)."""
    can_show_reading: bool = False
    """Show 'Show reading window' and 'Open document…' (GTK is there to draw them)."""
    tooltip: str = "tray-reader"
    """Hover text."""


OnAction = Callable[[str, str], None]
"""Called with (action, argument) when a menu item is chosen."""

MENU_ACTIONS = (
    "read", "toggle", "stop", "next", "prev", "voice", "speed", "enroll", "settings", "reading_window", "open_document",
    "quit"
)  # fmt: skip


def voice_menu(m: TrayModel) -> list[tuple[str | None, list[tuple[str, str]]]]:
    """The Voice menu as [(submenu title, [(id, label)])]: the user's own voices first, at
    the top level (title None), then a submenu per accent and gender of the stock voices."""
    groups = menu_groups(m.voices, m.stock_voices)
    return [
        (None if i == 0 and title == OWN_VOICES else title, entries)
        for i, (title, entries) in enumerate(groups)
    ]


class TrayView(Protocol):
    def run(self, model: Callable[[], TrayModel], on_action: OnAction, on_ready: Callable[[], None]) -> None:
        """Show the icon and block (this is the GUI main loop) until `stop()`."""

    def refresh(self) -> None:
        """The model changed: redraw the icon and rebuild the menu (any thread)."""

    def stop(self) -> None:
        """End `run()` (any thread)."""


class MemoryTray:
    """No GUI: keeps the last model it drew; `choose()` plays a menu click."""

    def __init__(self) -> None:
        self.shown: TrayModel | None = None
        self.states: list[AppState] = []
        """Every icon state drawn, in order."""
        self._model: Callable[[], TrayModel] | None = None
        self._on_action: OnAction | None = None
        self._stop = threading.Event()
        self.running = threading.Event()

    def run(self, model: Callable[[], TrayModel], on_action: OnAction, on_ready: Callable[[], None]) -> None:
        self._model, self._on_action = model, on_action
        self.refresh()
        self.running.set()
        on_ready()
        self._stop.wait()
        self.running.clear()

    def refresh(self) -> None:
        if self._model is not None:
            self.shown = self._model()
            if not self.states or self.states[-1] != self.shown.state:
                self.states.append(self.shown.state)

    def stop(self) -> None:
        self._stop.set()

    def choose(self, action: str, argument: str = "") -> None:
        assert self._on_action is not None, "tray not running"
        self._on_action(action, argument)


def icon_image(state: AppState) -> Any:
    """icons/tray-<state>.png, or a drawn disc in the state's colour."""
    from PIL import Image, ImageDraw

    path = ICONS_DIR / f"tray-{state.value}.png"
    if path.exists():
        return Image.open(path).convert("RGBA")
    img = Image.new("RGBA", (64, 64), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    draw.ellipse((4, 4, 60, 60), fill=STATE_COLOURS.get(state, (128, 128, 128)) + (255,))
    if state is AppState.PAUSED:
        draw.rectangle((22, 18, 28, 46), fill="white")
        draw.rectangle((36, 18, 42, 46), fill="white")
    elif state is AppState.SPEAKING:
        draw.polygon([(24, 16), (24, 48), (48, 32)], fill="white")
    return img


def gtk_available() -> bool:
    """Whether GTK 3 is there; the first call starts it (the daemon's first use of GTK)."""
    # GDK sets up OpenGL when it starts, which on a machine without a GPU driver loads
    # Mesa's llvmpipe and libLLVM, tens of MB resident (docs/benchmarks.md) for nothing,
    # as no window here draws with GL. GDK reads GDK_GL only when it starts, so
    # the programs the daemon opens later do not inherit it.
    ours = "GDK_GL" not in os.environ
    if ours:
        os.environ["GDK_GL"] = "disable"
    try:
        import gi

        gi.require_version("Gtk", "3.0")
        from gi.repository import Gtk  # noqa: F401
    except (ImportError, ValueError):
        return False
    finally:
        if ours:
            del os.environ["GDK_GL"]
    return True


def speed_label(speed: float) -> str:
    return f"{speed:g}×"


class HeadlessTray:
    """No icon (no tray host, or no session bus): runs the GLib main loop, so the media
    keys and shortcuts served from it still work, until `stop()`."""

    def __init__(self) -> None:
        self._stopped = threading.Event()
        self._loop: Any = None

    def run(self, model: Callable[[], TrayModel], on_action: OnAction, on_ready: Callable[[], None]) -> None:
        try:
            from gi.repository import GLib
        except ImportError:
            on_ready()
            self._stopped.wait()
            return
        self._loop = GLib.MainLoop.new(None, False)
        on_ready()
        if not self._stopped.is_set():
            self._loop.run()

    def refresh(self) -> None:
        pass

    def stop(self) -> None:
        self._stopped.set()
        if self._loop is not None:
            self._loop.quit()  # thread-safe in GLib


class ListenedTray:
    """A tray that also tells `listeners` whenever the app's state may have changed (the
    app refreshes the tray on every change; media-key status follows the same calls)."""

    def __init__(self, tray: TrayView) -> None:
        self.tray = tray
        self.listeners: list[Callable[[], None]] = []

    def run(self, model: Callable[[], TrayModel], on_action: OnAction, on_ready: Callable[[], None]) -> None:
        self.tray.run(model, on_action, on_ready)

    def refresh(self) -> None:
        self.tray.refresh()
        for listener in self.listeners:
            listener()

    def stop(self) -> None:
        self.tray.stop()


def appindicator_available() -> bool:
    """Whether the AppIndicator library pystray's appindicator backend needs is installed."""
    if not gtk_available():
        return False
    import gi

    for name in ("AyatanaAppIndicator3", "AppIndicator3"):
        try:
            gi.require_version(name, "0.1")
            return True
        except ValueError:
            continue
    return False


def choose_tray(session: str, bus: Any, has_tray_host: bool) -> tuple[TrayView, str]:
    """The tray for this desktop and, when it is not a real icon, the one message that says
    why and what still works. `session` is 'x11'/'wayland'; `bus` a Gio connection or None."""
    without = (
        "running without a tray icon; control tray-reader with `tray-reader ctl` (see `tray-reader doctor`)"
    )
    if not sys.platform.startswith("linux"):
        return PystrayTray(), ""
    if bus is None:
        # pystray's GTK backends need the bus (for notifications) and die without it.
        return HeadlessTray(), f"No D-Bus session bus: {without}."
    if session == "wayland":
        # GTK's XEmbed status icon does not exist on Wayland: only a StatusNotifier host shows it.
        if not has_tray_host:
            return HeadlessTray(), (
                "No tray host (StatusNotifierWatcher) on the session bus: "
                f"{without}. On GNOME, install the AppIndicator extension (gnome-shell-extension-appindicator)."
            )
        if not appindicator_available():
            return HeadlessTray(), (
                f"The tray host needs the AppIndicator library: {without}. "
                "Install gir1.2-ayatanaappindicator3-0.1."
            )
        return PystrayTray("appindicator"), ""
    return PystrayTray(), ""


class PystrayTray:
    """The real tray icon."""

    def __init__(self, backend: str | None = None) -> None:
        self._backend = backend
        self._icon: Any = None
        self._model: Callable[[], TrayModel] | None = None
        self._drawn_state: AppState | None = None
        self._drawn: TrayModel | None = None
        self._stopped = threading.Event()
        self._started = False
        self._headless: HeadlessTray | None = None

    def run(self, model: Callable[[], TrayModel], on_action: OnAction, on_ready: Callable[[], None]) -> None:
        if self._backend is not None and "PYSTRAY_BACKEND" not in os.environ:
            os.environ["PYSTRAY_BACKEND"] = self._backend
        if sys.platform.startswith("linux") and "PYSTRAY_BACKEND" not in os.environ:
            # The xorg backend has no menu; gtk (PyGObject) has one.
            os.environ["PYSTRAY_BACKEND"] = "gtk" if gtk_available() else "xorg"
            if not gtk_available():
                print(
                    "tray-reader: PyGObject/GTK 3 is missing, so the tray icon has no menu "
                    "(use `tray-reader ctl`); see `tray-reader doctor` for the fix.",
                    file=sys.stderr,
                )
        import pystray

        if os.environ.get("PYSTRAY_BACKEND") in ("gtk", "appindicator"):
            _quiet_pystray_notifier()
        self._model = model
        m = model()
        self._icon = pystray.Icon(
            "tray-reader", icon_image(m.state), m.tooltip, menu=self._menu(pystray, on_action)
        )
        self._drawn_state = m.state

        def setup(icon: Any) -> None:
            self._started = True
            icon.visible = True
            on_ready()
            if self._stopped.is_set():  # stop() came before the loop was running
                icon.stop()

        if self._stopped.is_set():
            return
        try:
            self._icon.run(setup)
        except Exception as e:  # noqa: BLE001 - the daemon works without its icon
            if self._started:
                raise
            print(
                f"tray-reader: the tray icon could not start ({type(e).__name__}: {e}); "
                "running without it: control tray-reader with `tray-reader ctl`.",
                file=sys.stderr,
            )
            self._headless = HeadlessTray()
            if not self._stopped.is_set():
                self._headless.run(model, on_action, on_ready)

    def _menu(self, pystray: Any, on_action: OnAction) -> Any:
        Item, Menu = pystray.MenuItem, pystray.Menu
        model = self._model
        assert model is not None

        def act(action: str, arg: str = "") -> Callable[..., None]:
            return lambda icon, item: on_action(action, arg)

        def voice_item(name: str, label: str) -> Any:
            return Item(label, act("voice", name), checked=lambda item: model().voice == name, radio=True)

        def voice_items() -> Any:
            m = model()
            for title, entries in voice_menu(m):
                if title is None:
                    yield from (voice_item(name, label) for name, label in entries)
                    yield Menu.SEPARATOR
                else:
                    yield Item(title, Menu(*(voice_item(name, label) for name, label in entries)))

        def speed_items() -> Any:
            for s in SPEEDS:
                yield Item(
                    speed_label(s),
                    act("speed", str(s)),
                    checked=lambda item, s=s: abs(model().speed - s) < 1e-6,
                    radio=True,
                )

        def items() -> Any:
            m = model()
            yield Item("Read selection", act("read"), default=True, enabled=m.state is not AppState.WARMING)
            yield Item("Resume" if m.state is AppState.PAUSED else "Pause", act("toggle"))
            yield Item("Stop", act("stop"))
            yield Item("Next sentence", act("next"))
            yield Item("Previous sentence", act("prev"))
            yield Menu.SEPARATOR
            yield Item("Voice", Menu(voice_items))
            yield Item("Speed", Menu(speed_items))
            if m.can_enroll:
                yield Item("Enroll voice…", act("enroll"))
            yield Item("Settings…", act("settings"))
            if m.can_show_reading:
                yield Item("Show reading window", act("reading_window"))
                yield Item("Open document…", act("open_document"))
            yield Menu.SEPARATOR
            yield Item("Quit", act("quit"))

        return Menu(items)

    def refresh(self) -> None:
        if self._icon is None or self._model is None:
            return
        m = self._model()
        drawn, self._drawn = self._drawn, m
        if m.state != self._drawn_state:
            self._drawn_state = m.state
            self._icon.icon = icon_image(m.state)
        if drawn is None or m.tooltip != drawn.tooltip:
            self._icon.title = m.tooltip
        # Only when what it shows changed: the app refreshes on every sentence, and an
        # AppIndicator re-registers with the tray host on each new menu.
        if drawn is None or dataclasses.replace(m, tooltip="") != dataclasses.replace(drawn, tooltip=""):
            self._icon.update_menu()

    def stop(self) -> None:
        self._stopped.set()
        if self._headless is not None:
            self._headless.stop()
        if self._icon is not None:
            self._icon.stop()


class _NoPystrayNotifier:
    def __init__(self) -> None:
        pass

    def notify(self, *args: Any) -> None:
        pass

    def hide(self) -> None:
        pass


def _quiet_pystray_notifier() -> None:
    """pystray's GTK backends open a proxy to the notification daemon when the icon starts
    (auto-starting one, and failing the whole icon when that fails) and call it
    synchronously when it ends. tray-reader never uses pystray's notifications (notify.py
    sends its own), so pystray 0.19.5 gets one that does nothing."""
    try:
        from pystray._util import notify_dbus
    except ImportError:
        return
    notify_dbus.Notifier = _NoPystrayNotifier
