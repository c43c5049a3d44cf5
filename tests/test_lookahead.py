"""The next chunk of a read made on another thread (`synthesis._Lookahead`): with fakes for
the engine and the front end; the real model's part A is covered in test_synthesis.py."""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest

from tray_reader.speech import synthesis
from tray_reader.speech.synthesis import AHEAD_LEAD, Synthesizer, fixed_voice
from tray_reader.text.types import TextChunk

PACK = np.zeros((510, 1, 256), np.float32)


class _Frontend:
    """Chunks are the text's "|"-separated parts; one named "boom" cannot be phonemised."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def chunks(self, text, skipped=None, first_chars=None, splice=False):
        for i, t in enumerate(text.split("|")):
            self.threads.append(threading.current_thread().name)
            if t == "boom":
                raise ValueError("the front end failed on 'boom'")
            yield TextChunk(text=t, phonemes=t, sentence=i, pause_after=0.0)

    def ids(self, phonemes):
        return [len(phonemes)] * 3


class _Engine:
    """Makes ``seconds`` of audio per chunk at once, in pieces of 0.5 s; records what part
    A it was handed, and which thread made each part A."""

    def __init__(self, seconds: float = 3.0) -> None:
        self.seconds = seconds
        self.handed: list[object] = []
        self.made: list[tuple[list[int], str]] = []
        self.stopped = threading.Event()
        self.block = False

    def part_a(self, ids, pack, speed, run_options=None):
        self.made.append((list(ids), threading.current_thread().name))
        while self.block:  # stands in for a long onnxruntime run, which `terminate` ends
            if run_options is not None and run_options.terminate:
                self.stopped.set()
                raise RuntimeError("Exiting due to terminate flag being set to true.")
            threading.Event().wait(0.005)
        return ("part A", tuple(ids), speed)

    def stream(
        self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, start=None, end=None, after=0.0
    ):
        self.handed.append(part_a)
        for _ in range(int(self.seconds / 0.5)):
            yield np.full(12_000, 0.1, np.float32)

    def start_seconds(self, ids):
        return 0.0  # made at once


def _synth(engine: _Engine, frontend: _Frontend | None = None) -> Synthesizer:
    return Synthesizer(frontend or _Frontend(), engine)  # type: ignore[arg-type]


def test_each_next_chunk_is_made_ahead_on_another_thread_and_handed_over():
    engine = _Engine()
    synth = _synth(engine)
    chunks = list(synth.stream("a|bb|ccc", fixed_voice(PACK)))
    assert len(chunks) == 3 * (6 + 1 + 1)  # six pieces, the faded tail and a pause per chunk
    # The first chunk is made when the read starts; chunks 2 and 3 ahead, on the other
    # thread, and each is handed to the engine with the chunk it was made for.
    assert engine.handed[0] is None
    assert engine.handed[1:] == [("part A", (2, 2, 2), 1.0), ("part A", (3, 3, 3), 1.0)]
    assert [ids for ids, _ in engine.made] == [[2, 2, 2], [3, 3, 3]]
    assert all(name.startswith("tray-reader-ahead") for _, name in engine.made)


def test_nothing_is_made_ahead_until_enough_audio_is_queued():
    # Each chunk is shorter than AHEAD_LEAD and audio is made as fast as it is read, so the
    # lead never reaches it: every chunk is made in turn, as without the lookahead.
    engine = _Engine(seconds=AHEAD_LEAD / 2)
    synth = _synth(engine)
    list(synth.stream("a|bb|ccc", fixed_voice(PACK)))
    assert engine.made == [] and engine.handed == [None, None, None]


def test_with_no_lead_to_spare_chunks_are_made_one_after_another(monkeypatch):
    engine = _Engine()
    frontend = _Frontend()
    synth = _synth(engine, frontend)
    monkeypatch.setattr(synthesis, "AHEAD_LEAD", math.inf)
    assert len(list(synth.stream("a|bb|ccc", fixed_voice(PACK)))) == 24
    assert engine.made == [] and engine.handed == [None, None, None]
    assert set(frontend.threads) == {threading.current_thread().name}


def test_stopping_a_read_ends_the_work_ahead_before_the_stream_closes():
    engine = _Engine()
    engine.block = True
    synth = _synth(engine)
    stream = synth.stream("a|bb|ccc", fixed_voice(PACK))
    for _ in range(4):  # 2 s queued: the second chunk's part A has begun, and blocks
        next(stream)
    closing = threading.Thread(target=stream.close)  # returns once the work ahead has stopped
    closing.start()
    closing.join(timeout=30)
    alive = closing.is_alive()
    engine.block = False  # (lets a stuck part A end, should the check fail)
    assert not alive, "closing the stream did not stop the work ahead"
    assert engine.stopped.is_set()
    assert [ids for ids, _ in engine.made] == [[2, 2, 2]]
    # The synthesiser is free for the next read, which starts from its own first chunk.
    assert len(list(synth.stream("dddd", fixed_voice(PACK)))) == 8
    assert engine.handed[-1] is None


def test_a_front_end_error_ahead_reaches_the_reader_as_before():
    engine = _Engine()
    synth = _synth(engine)
    heard = []
    with pytest.raises(ValueError, match="boom"):
        for chunk in synth.stream("a|boom|ccc", fixed_voice(PACK)):
            heard.append(chunk)
    assert len(heard) == 8  # the first chunk and its pause, all of it


def test_a_voice_change_between_chunks_reaches_the_engine():
    # Part A made ahead for the old voice is still handed over; the engine checks it was
    # made for the voice it is asked for (PartA.made_for) and makes it again if not.
    engine = _Engine()
    synth = _synth(engine)
    voices = iter([(PACK, 1.0)] * 2 + [(PACK, 1.5)] * 10)
    list(synth.stream("a|bb", lambda: next(voices)))
    assert engine.handed[1] == ("part A", (2, 2, 2), 1.0)


def test_a_read_stopped_while_waiting_for_its_next_chunk_ends_at_once():
    engine = _Engine()
    engine.block = True
    synth = _synth(engine)
    cancel = threading.Event()
    heard = []
    reading = threading.Thread(
        target=lambda: heard.extend(synth.stream("a|bb|ccc", fixed_voice(PACK), cancel))
    )
    reading.start()
    # The first chunk is all heard (made is not enough: on a loaded machine the reader may
    # not have taken all its pieces yet); the second's part A is blocked.
    deadline = time.monotonic() + 30
    while (not engine.made or len(heard) < 8) and time.monotonic() < deadline:
        threading.Event().wait(0.005)
    cancel.set()
    reading.join(timeout=30)
    alive = reading.is_alive()
    engine.block = False
    assert not alive, "the read did not end when stopped"
    assert engine.stopped.is_set()  # the part A it waited for was stopped too
    assert len(heard) == 8 and engine.handed == [None]  # the first chunk only
