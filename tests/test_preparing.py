"""Preparing beside a read (synthesis.Synthesizer with an in-memory front end and engine):
a read far ahead of playback gives way while a selection's first words are made."""

from __future__ import annotations

import threading
import time

import numpy as np

from tray_reader.speech import synthesis
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.types import SAMPLE_RATE
from tray_reader.text.types import TextChunk


class WordFrontEnd:
    """One chunk per word; its ids are its letters' codes."""

    def chunks(self, text, skipped=None, first_chars=None, splice=False):
        for i, word in enumerate(text.split()):
            yield TextChunk(word, word, i, 0.0)

    def ids(self, phonemes):
        return [ord(c) for c in phonemes]


class SecondEngine:
    """One second of audio per chunk, at once; a chunk starting with "slow" waits for
    `release` (a preparation that takes its time)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.made: list[str] = []

    def stream(
        self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, start=None, end=None, after=0.0
    ):
        word = "".join(map(chr, ids))
        if word.startswith("slow"):
            self.release.wait(10)
        self.made.append(word)
        yield np.full(SAMPLE_RATE, 0.1, np.float32)

    def start_seconds(self, ids):
        return 0.0  # made at once

    def part_a(self, ids, pack, speed, run_options=None):
        return None


def test_a_read_far_ahead_waits_while_a_preparation_runs():
    engine = SecondEngine()
    synth = Synthesizer(WordFrontEnd(), engine)  # type: ignore[arg-type]
    voice = fixed_voice(np.zeros((512, 1, 256), np.float32))
    preparing = threading.Thread(target=synth.prepare, args=("slowly selected", voice))
    preparing.start()
    time.sleep(0.1)  # the preparation is under way
    words = " ".join(f"w{i}" for i in range(12))
    got: list = []
    reader = threading.Thread(target=lambda: got.extend(synth.stream(words, voice)))
    reader.start()
    time.sleep(0.5)
    # Made at once, the read's audio is far ahead of playback: it stops once YIELD_LEAD
    # seconds are queued (a piece and its pause per word) and waits for the preparation.
    made = [w for w in engine.made if w.startswith("w")]
    assert synthesis.YIELD_LEAD <= len(made) <= synthesis.YIELD_LEAD + 2
    assert reader.is_alive()
    engine.release.set()
    preparing.join(5)
    reader.join(15)
    assert not reader.is_alive() and synth.prepared_text == "slowly selected"
    assert [w for w in engine.made if w.startswith("w")] == [f"w{i}" for i in range(12)]


class WindowedEngine:
    """Three pieces per chunk; the second of a "slow" chunk waits for `release` (a
    preparation busy with a large window when the read comes)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.threads: list[str] = []

    def stream(
        self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, start=None, end=None, after=0.0
    ):
        word = "".join(map(chr, ids))
        for k in range(3):
            if word.startswith("slow") and k == 1:
                self.release.wait(10)
            self.threads.append(threading.current_thread().name)
            yield np.full(1000, k + 1, np.float32)

    def start_seconds(self, ids):
        return 0.0  # made at once

    def part_a(self, ids, pack, speed, run_options=None):
        return None


def test_a_read_plays_the_pieces_a_running_preparation_has_made_without_waiting_for_more():
    engine = WindowedEngine()
    synth = Synthesizer(WordFrontEnd(), engine)  # type: ignore[arg-type]
    voice = fixed_voice(np.zeros((512, 1, 256), np.float32))
    hurry = threading.Event()
    done: list[bool] = []
    preparing = threading.Thread(
        target=lambda: done.append(synth.prepare("slowly", voice, None, hurry)), name="preparing"
    )
    preparing.start()
    while synth.prepared is None or not synth.prepared.pieces:
        time.sleep(0.01)
    hurry.set()  # the read of this text has come
    stream = synth.stream("slowly", voice)
    first = next(stream)  # at once, while the preparation is still in its second window
    assert synth.served_prepared and preparing.is_alive()
    assert first.samples.max() > 0.5
    engine.release.set()
    rest = list(stream)
    preparing.join(5)
    assert done == [True]
    audio = np.concatenate([c.samples for c in [first, *rest]])
    # Each piece once, in order: all 3,000 samples, each value a run of 1,000 (edges faded).
    assert audio.size == 3000
    assert [float(np.median(audio[k * 1000 : (k + 1) * 1000])) for k in range(3)] == [1.0, 2.0, 3.0]
    assert engine.threads.count("preparing") == 2  # its first two pieces, then the read's turn


class RecordingWorker:
    """The speech worker's side of preparing: records what it is asked to prepare."""

    def __init__(self) -> None:
        self.ready = threading.Event()
        self.ready.set()
        self.asked: list[str] = []

    def prepare(self, text: str) -> bool:
        self.asked.append(text)
        return True


def test_a_selection_that_grows_after_preparing_is_turned_off_is_not_prepared():
    """The preparer follows a selection that grows without a new owner (a drag); once the
    user turns preparing off, the text it sees next is left alone (nothing synthesised)."""
    from tray_reader.preparation import SELECTION_POLL, SELECTION_SETTLE, SelectionPreparer

    worker = RecordingWorker()
    selected = ["Hello"]
    enabled = [True]
    quit = threading.Event()
    preparer = SelectionPreparer(worker, lambda: selected[0], lambda: enabled[0], quit)
    thread = threading.Thread(target=preparer.run, daemon=True)
    thread.start()
    try:
        preparer.changed()
        deadline = time.monotonic() + 5
        while worker.asked != ["Hello"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert worker.asked == ["Hello"]
        selected[0] = "Hello there"  # it grows: followed by looking, no new owner
        deadline = time.monotonic() + 5
        while len(worker.asked) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert worker.asked == ["Hello", "Hello there"]
        enabled[0] = False
        selected[0] = "Hello there, world"
        time.sleep(5 * SELECTION_POLL)
        preparer.changed()  # and a new owner while it is off
        time.sleep(SELECTION_SETTLE + 5 * SELECTION_POLL)
        assert worker.asked == ["Hello", "Hello there"]
    finally:
        quit.set()
        thread.join(5)
    assert not thread.is_alive()
