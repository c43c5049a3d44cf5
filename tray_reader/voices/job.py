"""Enrolment in the background: a worker thread with progress, cancel, and a result to collect.

The daemon starts a job from the tray ("Enroll voice…") and polls `status()` from its UI
thread; nothing here blocks the caller.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from tray_reader.errors import TrayReaderError

T = TypeVar("T")
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class JobStatus:
    """A snapshot of a job."""

    fraction: float
    """0..1."""
    message: str
    """What it is doing, or how it ended."""
    done: bool
    """The worker has finished (successfully or not)."""
    error: str | None
    """The user-facing error if it failed."""
    seconds_left: float | None = None
    """About how long it still takes (`TimeLeft`); None until it can be told."""


class TimeLeft:
    """Seconds left, from the pace of the progress so far: linear from the first report
    above 0 (the models' loading, reported at 0, does not count)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._first: tuple[float, float] | None = None

    def update(self, fraction: float) -> float | None:
        """Note a report of ``fraction`` done; the seconds left, or None if not known yet."""
        now = self._clock()
        if fraction <= 0:
            return None
        if self._first is None:
            self._first = (now, fraction)
            return None
        start, done = self._first
        if fraction - done < 0.02:
            return None
        return max(0.0, (now - start) * (1.0 - fraction) / (fraction - done))


class EnrollmentJob(Generic[T]):
    """Runs `work(progress, cancel)` on a daemon thread."""

    def __init__(self, work: Callable[[Progress, threading.Event], T], name: str = "voice-enrolment") -> None:
        self._work = work
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._fraction = 0.0
        self._message = "starting"
        self._left: float | None = None
        self._time_left = TimeLeft()
        self._result: T | None = None
        self._error: TrayReaderError | None = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    def start(self) -> EnrollmentJob[T]:
        self._thread.start()
        return self

    def _progress(self, fraction: float, message: str) -> None:
        left = self._time_left.update(fraction)
        with self._lock:
            self._fraction, self._message, self._left = fraction, message, left

    def _run(self) -> None:
        try:
            result = self._work(self._progress, self._cancel)
            with self._lock:
                self._result = result
        except TrayReaderError as e:  # user-facing problems end the job with their message
            with self._lock:
                self._error, self._message = e, str(e)
        finally:
            self._done.set()

    def cancel(self) -> None:
        self._cancel.set()

    def status(self) -> JobStatus:
        with self._lock:
            error = str(self._error) if self._error else None
            return JobStatus(self._fraction, self._message, self._done.is_set(), error, self._left)

    def result(self, timeout: float | None = None) -> T:
        """Wait for the job; its result, or its TrayReaderError raised here."""
        if not self._done.wait(timeout):
            raise TimeoutError("the enrolment is still running")
        if self._error is not None:
            raise self._error
        if self._result is None:
            raise RuntimeError("the enrolment ended without a result")
        return self._result
