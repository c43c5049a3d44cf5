"""A preallocated single-producer / single-consumer ring of float32 samples.

The audio callback is the only reader and the player's feeder thread the only writer, so no
lock is needed: each side moves only its own counter, and a counter is moved after the data
it covers (CPython stores an attribute atomically). Counters are absolute sample positions,
which lets the player remember where a sentence or a pause began.
"""

from __future__ import annotations

import numpy as np


class SampleRing:
    """Fixed-size ring buffer of mono float32 samples."""

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("capacity must be positive")
        self.capacity = capacity
        self._buf = np.zeros(capacity, dtype=np.float32)
        self.read = 0
        """Absolute position of the next sample to play (moved by the consumer only)."""
        self.write = 0
        """Absolute position one past the last sample written (moved by the producer only)."""
        self.skip_to = 0
        """Producer: the consumer skips everything before this position (see `discard`)."""

    @property
    def filled(self) -> int:
        return self.write - max(self.read, self.skip_to)

    def discard(self) -> None:
        """Producer: drop all that is written; the consumer skips it on its next pull."""
        self.skip_to = self.write

    def room(self, limit: int | None = None) -> int:
        """Producer: how many samples can be written now without passing `limit` (default: capacity)."""
        return max(0, (self.capacity if limit is None else min(limit, self.capacity)) - self.filled)

    def push(self, samples: np.ndarray | None, frames: int = 0, limit: int | None = None) -> int:
        """Producer: copy as many of `samples` as fit (or `frames` zeros when `samples` is None)."""
        n = min(self.room(limit), frames if samples is None else len(samples))
        if n:
            start = self.write % self.capacity
            first = min(n, self.capacity - start)
            if samples is None:
                self._buf[start : start + first] = 0.0
                self._buf[: n - first] = 0.0
            else:
                self._buf[start : start + first] = samples[:first]
                self._buf[: n - first] = samples[first:n]
            self.write += n
        return n

    def pull_into(self, out: np.ndarray) -> int:
        """Consumer: fill `out` from the ring, zeros past what is there; return samples taken.

        Allocates nothing: only slices (views) and in-place copies.
        """
        if self.skip_to > self.read:
            self.read = self.skip_to
        n = min(len(out), self.write - self.read)
        if n > 0:
            start = self.read % self.capacity
            first = min(n, self.capacity - start)
            out[:first] = self._buf[start : start + first]
            if n > first:
                out[first:n] = self._buf[: n - first]
            self.read += n
        else:
            n = 0
        if n < len(out):
            out[n:] = 0.0
        return n
