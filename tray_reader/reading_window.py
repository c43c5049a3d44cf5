"""The reading window: the text being read, its sentence highlighted and its word marked.

It follows the player's timeline (`Player.reading`), polled at a steady rate on the GUI
thread: nothing runs on the audio callback. It never takes the focus from the application
the user is in (a utility window that does not accept focus), may stay on top, and closing
it leaves the reading going. Clicking a sentence jumps there.

All GTK calls run on the GUI thread (the tray's GLib main loop): `open_reading_window()` may
be called from any thread and schedules the window with GLib.idle_add.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from tray_reader.audio.player import Reading

POLL_MS = 50
"""How often the window reads the play position (20 times a second: a word lasts 150 ms or more)."""
TITLE = "tray-reader: reading"


@dataclass(frozen=True)
class CaptionStyle:
    """How the window looks."""

    font_size: int = 18
    """Text size in points."""
    high_contrast: bool = False
    """White on black with a yellow sentence, instead of the theme's colours."""
    keep_above: bool = True
    """Stay above other windows."""


class CaptionSource(Protocol):
    """What the window shows and where a click goes."""

    def caption(self) -> tuple[str, Reading | None]:
        """The text being read and what is being heard of it (None: nothing)."""

    def jump_to_text(self, char: int) -> bool:
        """Go to the sentence holding character ``char`` of that text."""


class PlayerCaption:
    """A `CaptionSource` over a player: the text it plays (each read's first piece brings
    it), else ``fallback()`` (the last text read) while it plays nothing."""

    def __init__(self, player: Any, fallback: Callable[[], str | None]) -> None:
        self._player = player
        self._fallback = fallback
        self._text: str | None = None

    def caption(self) -> tuple[str, Reading | None]:
        reading = self._player.reading
        if reading is not None and reading.text is not None:
            self._text = reading.text
        return self._text or self._fallback() or "", reading

    def jump_to_text(self, char: int) -> bool:
        return bool(self._player.jump_to_text(char))


def _css(style: CaptionStyle) -> bytes:
    colours = "color: #ffffff; background-color: #000000;" if style.high_contrast else ""
    return f"textview, textview text {{ font-size: {style.font_size}pt; {colours} }}".encode()


class ReadingWindow:
    """The GTK 3 window (GUI thread only)."""

    def __init__(
        self,
        source: CaptionSource,
        style: CaptionStyle | None = None,
        on_closed: Callable[[], None] | None = None,
    ) -> None:
        import gi

        gi.require_version("Gtk", "3.0")
        gi.require_version("Gdk", "3.0")
        from gi.repository import Gdk, GLib, Gtk

        self._gtk, self._glib = Gtk, GLib
        self.source = source
        self.style = style or CaptionStyle()
        self._on_closed = on_closed
        self.window = Gtk.Window(title=TITLE)
        self.window.set_default_size(640, 360)
        # A caption never takes the keyboard from the application the user reads in.
        self.window.set_type_hint(Gdk.WindowTypeHint.UTILITY)
        self.window.set_accept_focus(False)
        self.window.set_focus_on_map(False)
        self.window.set_keep_above(self.style.keep_above)
        self.view = Gtk.TextView()
        self.view.set_editable(False)
        self.view.set_cursor_visible(False)
        self.view.set_wrap_mode(Gtk.WrapMode.WORD)
        self.view.set_left_margin(12)
        self.view.set_right_margin(12)
        provider = Gtk.CssProvider()
        provider.load_from_data(_css(self.style))
        self.view.get_style_context().add_provider(provider, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
        self.buffer = self.view.get_buffer()
        contrast = self.style.high_contrast
        self.sentence_tag = self.buffer.create_tag(
            "sentence",
            background="#806000" if contrast else "#fff3b0",
            foreground="#ffffff" if contrast else None,
        )
        self.word_tag = self.buffer.create_tag(
            "word", background="#ffd000" if contrast else "#ffc400", foreground="#000000", weight=700
        )
        scroll = Gtk.ScrolledWindow()
        scroll.add(self.view)
        self.window.add(scroll)
        self.view.connect("button-release-event", self._clicked)
        self.window.connect("destroy", self._destroyed)
        self._shown_text: str | None = None
        self._spans: tuple[tuple[int, int] | None, tuple[int, int] | None] = (None, None)
        self._timer = GLib.timeout_add(POLL_MS, self._tick)
        self.window.show_all()
        self._tick()

    # -- drawing -----------------------------------------------------------------------------
    def _tick(self) -> bool:
        text, reading = self.source.caption()
        if text != self._shown_text:
            self.buffer.set_text(text)
            self._shown_text = text
            self._spans = (None, None)
        spans = (reading.sentence_span, reading.word_span) if reading else (None, None)
        if spans != self._spans:
            self._spans = spans
            self._mark(self.sentence_tag, spans[0])
            self._mark(self.word_tag, spans[1])
            if spans[1] or spans[0]:
                start = (spans[1] or spans[0] or (0, 0))[0]
                self.view.scroll_to_iter(self.buffer.get_iter_at_offset(start), 0.1, False, 0, 0)
        return True

    def _mark(self, tag: Any, span: tuple[int, int] | None) -> None:
        self.buffer.remove_tag(tag, self.buffer.get_start_iter(), self.buffer.get_end_iter())
        if span is not None:
            self.buffer.apply_tag(
                tag, self.buffer.get_iter_at_offset(span[0]), self.buffer.get_iter_at_offset(span[1])
            )

    def tagged(self, which: str) -> str:
        """The text the sentence (``"sentence"``) or word (``"word"``) highlight covers."""
        tag = self.sentence_tag if which == "sentence" else self.word_tag
        start = self.buffer.get_start_iter()
        if not start.starts_tag(tag) and not start.forward_to_tag_toggle(tag):
            return ""
        end = start.copy()
        end.forward_to_tag_toggle(tag)
        return str(self.buffer.get_text(start, end, True))

    def offset_at(self, x: int, y: int) -> int:
        """Character offset of the text under window point (x, y) of the text view."""
        bx, by = self.view.window_to_buffer_coords(self._gtk.TextWindowType.WIDGET, x, y)
        found = self.view.get_iter_at_location(bx, by)
        it = found[1] if isinstance(found, tuple) else found
        return int(it.get_offset())

    # -- input ---------------------------------------------------------------------------------
    def _clicked(self, view: Any, event: Any) -> bool:
        if event.button == 1:
            self.source.jump_to_text(self.offset_at(int(event.x), int(event.y)))
        return False

    def _destroyed(self, *_: Any) -> None:
        if self._timer:
            self._glib.source_remove(self._timer)
            self._timer = 0
        if self._on_closed is not None:
            self._on_closed()


_open: list[ReadingWindow] = []
"""The window while it is open (one at a time)."""


def open_reading_window(source: CaptionSource, style: CaptionStyle | None = None) -> None:
    """Show the window (or bring back the one open, without taking the focus); any thread."""
    from gi.repository import GLib

    def show() -> bool:
        # PyGObject prints an exception raised here and the loop goes on: the daemon stays up.
        if _open:
            _open[0].window.show()
        else:
            _open.append(ReadingWindow(source, style, on_closed=_open.clear))
        return False

    GLib.idle_add(show)
