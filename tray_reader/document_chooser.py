"""The tray's "Open document…": a GTK 3 file chooser for the kinds of file tray-reader reads.

`choose_document(on_chosen)` may be called from any thread; the dialog runs on the GUI
thread (GLib.idle_add) without blocking it, and ``on_chosen(path)`` is called there with
the file picked (never when the dialog is cancelled), so it must only queue the read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tray_reader.documents import SUFFIXES

TITLE = "Open a document to read"

_open: list[Any] = []
"""The dialog while it is open (one at a time)."""


def make_dialog(on_chosen: Callable[[Path], None]) -> Any:
    """The dialog, shown (GUI thread only)."""
    import gi

    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk

    dialog = Gtk.FileChooserDialog(title=TITLE, action=Gtk.FileChooserAction.OPEN)
    dialog.add_buttons("_Cancel", Gtk.ResponseType.CANCEL, "_Read", Gtk.ResponseType.ACCEPT)
    readable = Gtk.FileFilter()
    readable.set_name("Documents (" + " ".join(SUFFIXES) + ")")
    for suffix in SUFFIXES:
        readable.add_pattern(f"*{suffix}")
        readable.add_pattern(f"*{suffix.upper()}")
    dialog.add_filter(readable)
    dialog.set_keep_above(True)

    def respond(d: Any, response: int) -> None:
        name = d.get_filename() if response == Gtk.ResponseType.ACCEPT else None
        d.destroy()
        _open.clear()
        if name:
            on_chosen(Path(name))

    dialog.connect("response", respond)
    dialog.show()
    return dialog


def choose_document(on_chosen: Callable[[Path], None]) -> None:
    """Show the chooser (or bring back the open one); any thread."""
    from gi.repository import GLib

    def show() -> bool:
        if _open:
            _open[0].present()
        else:
            _open.append(make_dialog(on_chosen))
        return False

    GLib.idle_add(show)
