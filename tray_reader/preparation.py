"""Preparing the selection: once it has settled, the idle worker synthesises its first words,
so the hotkey starts speaking at once. PRIMARY only: a passive read that never touches the
clipboard or sends keys."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

SELECTION_SETTLE = 0.15
"""Seconds the selection must stay put before its first words are prepared: a drag with
the mouse changes owner once, but some programs re-assert PRIMARY as it grows."""


class Preparer(Protocol):
    """The speech worker's side of it."""

    ready: threading.Event

    def prepare(self, text: str) -> bool:
        """Start preparing ``text``; False when busy reading."""


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
        """The worker finished reading: a selection made meanwhile is prepared now."""
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
            text = self._primary()
            if text.strip() and not self._worker.prepare(text):
                self._when_idle = True  # busy reading: once it is done
