"""Preparing the selection: once it has settled, the worker synthesises its first words (also
while it reads something else), so the hotkey starts speaking at once. PRIMARY only: a
passive read that never touches the clipboard or sends keys."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

SELECTION_SETTLE = 0.15
"""Seconds the selection must stay put before its first words are prepared: a drag with
the mouse changes owner once, but some programs re-assert PRIMARY as it grows."""
SELECTION_POLL = 0.1
"""Seconds between looks at the selection's text after it changed owner: a drag, a
shift+click or a double then triple click grows it with no new owner (no notice)."""
SELECTION_STILL = 1.0
"""Seconds the text must stay the same before the looks stop (until the next owner)."""


WARMING_NOTICE = "tray-reader is getting ready: it reads your selection in a moment."


def warmed_read(
    worker: Preparer, selection: Selection, quit: threading.Event, notify: Callable[[str, str], None]
) -> str | None:
    """A read key pressed while the model warms is not lost: the selection is taken now
    (what was selected when the key was pressed), the user is told, and the read goes
    ahead once the model is ready. None when it is ready already (the caller reads the
    selection itself, as usual); the selection's SelectionError when nothing is selected."""
    if worker.ready.is_set():
        return None
    text = selection.read()
    notify("tray-reader", WARMING_NOTICE)
    while not worker.ready.wait(0.05):
        if quit.is_set() or getattr(worker, "error", None):
            break  # the read then says why it cannot be done
    return text


class Selection(Protocol):
    def read(self) -> str: ...


class Preparer(Protocol):
    """The speech worker's side of it."""

    ready: threading.Event

    def prepare(self, text: str) -> bool:
        """Start preparing ``text`` (replacing what was being prepared); False when the
        model is not ready."""


class SelectionPreparer:
    """Runs on its own thread (`run`); `changed` is called by the selection watcher."""

    def __init__(
        self, worker: Preparer, primary: Callable[[], str], enabled: Callable[[], bool], quit: threading.Event
    ) -> None:
        self._worker = worker
        self._primary = primary
        self._enabled = enabled
        self._quit = quit
        self._changed = threading.Event()
        self._when_idle = False

    def changed(self) -> None:
        """The selection changed hands (any thread)."""
        self._changed.set()

    def worker_idle(self) -> None:
        """The worker is idle (e.g. it just became ready): a selection it refused is
        prepared now."""
        if self._when_idle:
            self._when_idle = False
            self._changed.set()

    def run(self) -> None:
        while not self._quit.is_set():
            if not self._changed.wait(0.5):
                continue
            while self._changed.is_set() and not self._quit.is_set():
                self._changed.clear()
                time.sleep(SELECTION_SETTLE)
            if not self._enabled() or not self._worker.ready.is_set():
                continue
            self._follow(self._primary())

    def _follow(self, text: str) -> None:
        """Prepare ``text``, then look again while it grows: each new text is prepared
        (replacing the one before), until it stays the same for SELECTION_STILL or the
        selection changes owner."""
        asked: str | None = None
        still = 0.0
        while not self._quit.is_set():
            # Each new text at once: a preparation of one that grows further is cancelled
            # after its current piece, and the last one begins as soon as the mouse stops.
            if text != asked and text.strip():
                if not self._enabled():
                    return  # turned off while the selection was followed: nothing more is made
                if not self._worker.prepare(text):
                    self._when_idle = True  # not ready yet: once it is
                    return
                asked = text
            if still >= SELECTION_STILL or self._changed.wait(SELECTION_POLL):
                return  # held still, or a new owner (the loop in `run` takes it)
            now = self._primary()
            if self._changed.is_set():
                return  # a new owner after all (its notice came after the look): `run` takes it
            still = still + SELECTION_POLL if now == text else 0.0
            text = now
