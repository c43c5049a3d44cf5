"""Notice when the X11 PRIMARY selection changes hands (XFixes), so the reader can prepare.

Selecting text makes its window the owner of PRIMARY; XFixes tells every client that asks
(``SetSelectionOwnerNotify``). Nothing is read here: the caller decides whether and when to
read the new selection (see preparation.SelectionPreparer). Wayland and other systems have no
such notice for ordinary clients: `watch_primary` returns None there.
"""

from __future__ import annotations

import logging
import os
import select
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Stop = Callable[[], None]


class PrimaryWatcher:
    """Calls ``on_change()`` (on its own thread) each time PRIMARY gets a new owner."""

    def __init__(self, on_change: Callable[[], None]) -> None:
        from Xlib import Xatom, display
        from Xlib.ext import xfixes

        self._on_change = on_change
        self._display = display.Display()
        if not self._display.has_extension("XFIXES"):
            self._display.close()
            raise RuntimeError("the X server has no XFIXES extension")
        self._display.xfixes_query_version()
        root = self._display.screen().root
        self._display.xfixes_select_selection_input(
            root, Xatom.PRIMARY, xfixes.XFixesSetSelectionOwnerNotifyMask
        )
        self._display.flush()
        self._wake_r, self._wake_w = os.pipe()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="selection-watch", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stopped.is_set():
                ready, _, _ = select.select([self._display.fileno(), self._wake_r], [], [])
                if self._wake_r in ready:
                    return
                changed = False
                for _ in range(self._display.pending_events()):
                    event = self._display.next_event()
                    # By name: python-xlib builds its extension event classes per display,
                    # so isinstance against the module's class is False.
                    changed |= type(event).__name__ == "SetSelectionOwnerNotify"
                if changed:
                    self._on_change()
        except Exception:  # noqa: BLE001 - the X connection went away: nothing more to watch
            log.debug("selection watcher ended", exc_info=True)
        finally:
            self._display.close()

    def stop(self) -> None:
        if not self._stopped.is_set():
            self._stopped.set()
            os.write(self._wake_w, b"x")
            self._thread.join(2.0)
            os.close(self._wake_r)
            os.close(self._wake_w)


def watch_primary(on_change: Callable[[], None]) -> Stop | None:
    """Start watching PRIMARY (X11 only); returns how to stop, or None where it cannot."""
    if not os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    try:
        return PrimaryWatcher(on_change).stop
    except Exception as e:  # noqa: BLE001 - no X, no XFIXES, no python-xlib: read on the hotkey only
        log.info("not watching the selection: %s", e)
        return None
