"""Ending the daemon's process: whatever fails or hangs, it is gone within a second.

Once the daemon starts to end (a quit, a signal, the GUI loop returning or failing, an
uncaught exception in any thread), `ExitGuard.arm` gives the orderly shutdown EXIT_GRACE
seconds and then ends the process with `os._exit`: no thread (a model still loading, a
listener stuck in C) can keep a dead daemon alive, and the instance lock goes with the
process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import traceback
from collections.abc import Callable
from types import TracebackType

EXIT_GRACE = 0.5
"""Seconds the orderly shutdown may take once the daemon starts to end."""


class ExitGuard:
    def __init__(self, grace: float = EXIT_GRACE, exit: Callable[[int], None] = os._exit) -> None:
        self.grace = grace
        self._exit = exit
        self._armed = threading.Lock()
        self._code = 0
        self.on_fatal: Callable[[], None] = lambda: None
        """Asks the app to end (set once the app exists)."""

    def arm(self, code: int = 0) -> None:
        """End the process with `code` (the first one armed) `grace` seconds from now, at the latest."""
        if not self._armed.acquire(blocking=False):
            return
        self._code = code
        threading.Thread(target=self._end_later, name="exit-guard", daemon=True).start()

    def _end_later(self) -> None:
        threading.Event().wait(self.grace)
        self.end()

    def end(self, code: int | None = None) -> None:
        """End the process now."""
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        self._exit(self._code if code is None else code)

    def install(self) -> None:
        """Make an uncaught exception in any thread fatal: one message, then the exit."""
        threading.excepthook = self._thread_failed

    def _thread_failed(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        fatal(f"{name} failed: {args.exc_type.__name__}: {args.exc_value}", args.exc_traceback)
        self.arm(1)
        with contextlib.suppress(Exception):  # the guard ends the process whatever happens here
            self.on_fatal()


def fatal(message: str, tb: TracebackType | None = None) -> None:
    """Print the one line that says why the daemon ends (and where, for a bug report)."""
    print(f"tray-reader: fatal error, exiting: {message}", file=sys.stderr)
    if tb is not None:
        print("".join(traceback.format_tb(tb)).rstrip(), file=sys.stderr)
