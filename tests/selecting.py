"""Selecting text the way a person does: a real GTK text view under the test X server,
driven with XTEST mouse events (xdotool). The view owns PRIMARY as GTK does for any
selection, and reports where each character is on screen so the test knows where to press.

    with TextWindow(desktop, "Some text to read.") as win:
        win.drag(0, 9)            # mousedown at char 0, moves, mouseup after char 8
        win.double_click(5)       # the word under char 5
        win.shift_click(17)       # extend the selection to char 17
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

TEXT_VIEW = r"""
import json, sys, gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib, Pango
text = sys.argv[1]
win = Gtk.Window(title="selecting-text")
win.move(20, 60)
win.set_default_size(760, 300)
view = Gtk.TextView()
view.set_editable(False)
view.set_cursor_visible(False)
view.set_wrap_mode(Gtk.WrapMode.WORD)
view.modify_font(Pango.FontDescription("Monospace 14"))
view.get_buffer().set_text(text)
win.add(view)
win.connect("destroy", Gtk.main_quit)
def report():
    buf = view.get_buffer()
    ox, oy = view.get_window(Gtk.TextWindowType.TEXT).get_origin()[1:]
    where = []
    for i in range(len(text) + 1):
        r = view.get_iter_location(buf.get_iter_at_offset(i))
        x, y = view.buffer_to_window_coords(Gtk.TextWindowType.TEXT, r.x, r.y)
        where.append((ox + x, oy + y + r.height // 2))
    print(json.dumps(where), flush=True)
    return False
win.connect("map-event", lambda *a: GLib.timeout_add(300, report) and False)
win.show_all()
Gtk.main()
"""


class TextWindow:
    """A GTK window showing ``text`` in a read-only text view."""

    def __init__(self, desktop, text: str) -> None:
        self.desktop = desktop
        self.text = text
        self.proc: subprocess.Popen | None = None
        self.where: list[tuple[int, int]] = []

    def __enter__(self) -> TextWindow:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", TEXT_VIEW, self.text],
            env=self.desktop.env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the text window did not start (exit {self.proc.poll()})")
        self.where = [tuple(p) for p in json.loads(line)]
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(5)
            if self.proc.stdout is not None:
                self.proc.stdout.close()

    def _at(self, offset: int) -> tuple[str, str]:
        x, y = self.where[offset]
        return str(x), str(y)

    def drag(self, start: int, end: int, steps: int = 8, pause: float = 0.03) -> None:
        """Press the button before char ``start``, move in ``steps`` to before char ``end``, let go."""
        x0, y0 = self.where[start]
        x1, y1 = self.where[end]
        self.desktop.xdotool("mousemove", *self._at(start))
        self.desktop.xdotool("mousedown", "1")
        for i in range(1, steps + 1):
            time.sleep(pause)
            x = x0 + (x1 - x0) * i // steps
            y = y0 + (y1 - y0) * i // steps
            self.desktop.xdotool("mousemove", str(x), str(y))
        time.sleep(pause)
        self.desktop.xdotool("mouseup", "1")

    def double_click(self, offset: int) -> None:
        self.desktop.xdotool("mousemove", *self._at(offset))
        self.desktop.xdotool("click", "--repeat", "2", "--delay", "80", "1")

    def shift_click(self, offset: int) -> None:
        self.desktop.xdotool("mousemove", *self._at(offset))
        self.desktop.xdotool("keydown", "shift")
        try:
            self.desktop.xdotool("click", "1")
        finally:
            self.desktop.xdotool("keyup", "shift")
