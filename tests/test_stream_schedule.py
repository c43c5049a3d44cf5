"""How the decoder's windows are scheduled: sizes by lead, and the lead the
synthesiser passes on. Fakes for the decoder; the real model is covered by
test_streaming_decoder.py and test_engine_fast.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.schedules import windows
from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.synthesis import Synthesizer, fixed_voice
from tray_reader.speech.types import FRAME_SAMPLES
from tray_reader.speech.windows import WindowPlan, stream_frames
from tray_reader.text.types import TextChunk

N_FRAMES = 300


def _inputs(n: int = N_FRAMES):
    rng = np.random.default_rng(1)
    asr = rng.standard_normal((1, 512, n)).astype(np.float32)
    f0 = rng.standard_normal((1, 2 * n)).astype(np.float32)
    return asr, f0, f0.copy(), np.zeros((1, 2 * n, 9), np.float32), np.zeros((1, 256), np.float32)


def _fake_decode(window):
    # Audio that depends on the window's frames and position, so misplaced or reordered
    # windows show.
    cols = window["asr"][0, 0]
    return np.repeat(cols, FRAME_SAMPLES)[None, None, :] + window["phase_offset"].sum()


def test_a_consumer_that_stops_stops_the_decoding():
    calls = []

    def decode(window):
        calls.append(1)
        return _fake_decode(window)

    plan = WindowPlan(frames=20, first_frames=10)
    pieces = stream_frames(decode, *_inputs(), plan, None, None, lambda: 20)
    next(pieces)
    pieces.close()
    assert len(windows(N_FRAMES, plan)) > 10
    assert len(calls) == 1


def test_first_window_override_and_bounds():
    plan = WindowPlan()
    assert windows(200, plan)[0] == (0, plan.first_frames)
    assert windows(200, plan, 64)[0] == (0, 64)
    assert windows(200, plan, 1000)[0] == (0, plan.frames)  # never above the plan's window


def _spans_with(budget_frames, n=N_FRAMES, plan=None):
    """The sizes (context included) of the windows stream_frames decodes when each later
    one may have ``budget_frames()`` frames of its own; and the samples it yields."""
    plan = plan or WindowPlan()
    seen = []

    def decode(window):
        seen.append(window["asr"].shape[2])
        return _fake_decode(window)

    pieces = list(stream_frames(decode, *_inputs(n), plan, None, None, budget_frames))
    return seen, sum(p.size for p in pieces)


def test_a_budget_sizes_each_later_window_within_the_plan():
    plan = WindowPlan(later_frames=16)
    calls = []
    allowed = iter([5, 24, 40, 500, 500, 500, 500, 500])

    def budget():
        calls.append(1)
        return next(allowed)

    seen, samples = _spans_with(budget, plan=plan)
    assert samples == N_FRAMES * FRAME_SAMPLES  # every frame once, whatever the sizes
    c = plan.context
    # The first window is the plan's; then at least later_frames, at most the plan's window.
    assert seen[:5] == [
        plan.first_frames + c,
        plan.later_frames + 2 * c,
        24 + 2 * c,
        40 + 2 * c,
        plan.frames + 2 * c,
    ]
    assert len(calls) == len(seen) - 1  # asked once before each window after the first
    # The default plan never goes below 32 frames after the first (smaller ones garble).
    seen, _ = _spans_with(lambda: 5)
    assert seen[1] == 32 + 2 * c


def test_a_short_remainder_is_absorbed_only_in_time_else_its_window_reaches_back():
    plan = WindowPlan(later_frames=16)
    c, n, tail = plan.context, 100, plan.frames // 2
    # Windows of 30: after (16, 46) and (46, 76), 24 frames remain, too few for a window of
    # their own and too many to add in time: the last window decodes `tail` frames before it.
    seen, samples = _spans_with(lambda: 30, n, plan)
    assert samples == n * FRAME_SAMPLES
    assert seen == [16 + c, 30 + 2 * c, 30 + 2 * c, tail + c]  # 24 own + (tail - 24) + c before
    # In time (84 frames allowed): the second window takes the rest.
    seen, samples = _spans_with(lambda: 90, n, plan)
    assert seen == [16 + c, 84 + c] and samples == n * FRAME_SAMPLES
    # Growing windows (16, 32, 64: the 52 left fit) absorb a short remainder too.
    assert windows(n, plan) == [(0, 16), (16, 48), (48, n)]


@pytest.fixture
def engine():
    e = KokoroEngine(session=None, threads=2)
    e.frame_seconds = 0.01
    return e


def test_a_chunk_heard_at_once_gets_the_small_first_window(engine):
    assert engine.first_window(0.0) is None
    assert engine.first_window(-1.0) is None


def test_the_first_window_grows_with_the_lead_up_to_the_plan(engine):
    plan = engine.plan
    small = engine.first_window(0.2)  # 0.1 s share: 10 frames minus context -> the minimum
    assert small == plan.first_frames
    medium = engine.first_window(1.0)  # 0.5 s at 10 ms a frame: 50 frames minus 16 of context
    assert medium == 50 - 2 * plan.context
    assert engine.first_window(30.0) == plan.frames
    engine.frame_seconds = 0.02  # a slower machine gets smaller windows for the same lead
    assert engine.first_window(1.0) == plan.first_frames


def test_later_windows_are_sized_by_the_audio_queued_ahead(engine):
    assert engine.window_fit(0.0) < engine.plan.first_frames  # nothing queued: the minimum
    assert engine.window_fit(1.0, 0.7) == 70 - 2 * engine.plan.context
    engine.frame_seconds = 0.02
    assert engine.window_fit(1.0, 0.7) == 35 - 2 * engine.plan.context


def test_a_window_slower_than_the_running_estimate_shrinks_the_next_at_once(engine):
    engine.last_frame_seconds = 0.02  # the last window ran at half the usual speed (busy machine)
    assert engine.window_fit(1.0, 0.7) == 35 - 2 * engine.plan.context
    engine.last_frame_seconds = 0.005  # a faster last window does not grow it beyond the estimate
    assert engine.window_fit(1.0, 0.7) == 70 - 2 * engine.plan.context


class _RecordingEngine:
    """Stands in for KokoroEngine: 1 s of audio per chunk, made instantly."""

    def __init__(self):
        self.leads = []

    def stream(
        self, ids, pack, speed, lead=0.0, part_a=None, run_options=None, start=None, end=None, after=0.0
    ):
        self.leads.append(lead)
        yield np.full(24_000, 0.1, np.float32)

    def start_seconds(self, ids):
        return 0.0  # made at once

    def part_a(self, ids, pack, speed, run_options=None):
        return None


class _Frontend:
    def chunks(self, text, skipped=None, first_chars=None, splice=False):
        return [
            TextChunk(text=t, phonemes=t, sentence=i, pause_after=0.5) for i, t in enumerate(text.split("|"))
        ]

    def ids(self, phonemes):
        return [1, 2, 3]


def test_synthesizer_tells_each_chunk_its_lead():
    engine = _RecordingEngine()
    synth = Synthesizer(_Frontend(), engine)
    list(synth.stream("a|b|c", fixed_voice(np.zeros((510, 1, 256), np.float32))))
    first, second, third = engine.leads
    assert first == 0.0
    # Made instantly: the lead is the audio so far (1 s + 0.5 s pause per chunk), less a little.
    assert 1.3 < second <= 1.5
    assert 2.8 < third <= 3.0


class _Clock:
    """The engine's clock, moved only by the fake model's runs."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


class _TimedPartA:
    """Part A for a chunk of ``frames`` frames of speech between 5 frames of padding."""

    def __init__(self, clock, frames, seconds=0.05):
        self.clock, self.frames, self.seconds = clock, frames, seconds

    def run(self, names, feeds, options=None):
        self.clock.now += self.seconds
        n = self.frames + 10
        asr = np.zeros((1, 512, n), np.float32)
        asr[0, 0, 5:-5] = np.arange(1, self.frames + 1)  # padding's columns repeat, speech's differ
        f0 = np.full((1, 2 * n), 120.0, np.float32)
        return [asr, f0, np.ones((1, 2 * n), np.float32), np.zeros((1, 2 * n, 9), np.float32)]


class _TimedDecoder:
    """Part B taking ``per_frame`` seconds per frame decoded (context included)."""

    def __init__(self, clock, per_frame):
        self.clock, self.per_frame, self.runs = clock, per_frame, 0

    def run(self, names, window, options=None):
        self.runs += 1
        frames = window["asr"].shape[2]
        self.clock.now += frames * self.per_frame
        return [np.full((1, 1, frames * FRAME_SAMPLES), 0.1, np.float32)]


def _heard(monkeypatch, per_frame, frames=120, after=0.0):
    """Stream one chunk due at once on a machine making a frame (25 ms of audio) in
    ``per_frame`` s; play it as the player would, from the first piece on. Returns (decoder
    runs before the first piece, seconds the first piece came, the longest wait for a piece
    once playing, samples)."""
    from tray_reader.speech import engine as engine_module

    clock = _Clock()
    monkeypatch.setattr(engine_module, "time", clock)
    decoder = _TimedDecoder(clock, per_frame)
    e = KokoroEngine(session=None, threads=2, features=_TimedPartA(clock, frames), decoder=decoder)
    e.frame_seconds = 0.005  # the running estimate from an idle machine
    pack = np.zeros((510, 1, 256), np.float32)
    started = runs = None
    played, longest, samples = 0.0, 0.0, 0
    for piece in e.stream([1, 2, 3], pack, 1.0, after=after):
        if started is None:
            started, runs = clock.now, decoder.runs
        longest = max(longest, clock.now - (started + played))
        played += piece.size / 24_000
        samples += piece.size
    return runs, started, longest, samples


def test_a_chunk_heard_at_once_starts_after_its_first_window_on_an_idle_machine(monkeypatch):
    runs, started, longest, samples = _heard(monkeypatch, 0.004)
    assert runs == 1 and started < 0.2
    assert longest == 0.0
    assert samples == (120 + 3 + 4) * FRAME_SAMPLES  # the margins speech_frames keeps


@pytest.mark.parametrize("per_frame", [0.012, 0.02, 0.03])
def test_a_busy_machine_holds_the_first_audio_back_until_playback_need_not_wait(monkeypatch, per_frame):
    """At 12 ms a frame, the next window (48 frames, 0.58 s) outlasts the first's 0.4 s; at 30
    ms, the decoder is slower than real time and most of the chunk is made first."""
    runs, started, longest, samples = _heard(monkeypatch, per_frame)
    assert runs > 1
    assert longest == 0.0, f"playback waited {longest:.3f} s"
    assert samples == (120 + 3 + 4) * FRAME_SAMPLES  # nothing held back is lost


def test_without_the_hold_a_busy_machine_stops_after_the_first_window(monkeypatch):
    from tray_reader.speech import engine as engine_module

    monkeypatch.setattr(engine_module, "START_SHARE", float("inf"))
    runs, _, longest, _ = _heard(monkeypatch, 0.012)
    assert runs == 1 and longest > 0.1


def test_a_short_chunk_heard_at_once_also_lasts_while_the_reads_next_chunk_starts(monkeypatch):
    """A 0.6 s first chunk, made fast: it goes out after one window if the read ends with
    it, but is held whole when the next chunk takes 0.5 s to its first piece."""
    alone, _, _, _ = _heard(monkeypatch, 0.004, frames=24)
    runs, started, longest, samples = _heard(monkeypatch, 0.004, frames=24, after=0.5)
    assert alone == 1 and runs > 1
    assert longest == 0.0 and samples == (24 + 3 + 4) * FRAME_SAMPLES


def test_a_slow_machine_sizes_the_first_window_so_the_hold_need_not_wait_for_the_next(monkeypatch):
    """At 8 ms a frame the next window (48 frames, 0.38 s) outlasts START_SHARE of the plan's
    first window (16 frames, 0.4 s): the first read, its speed unknown, is held back a whole
    window. The next read's first window is sized by the speed measured: it goes out at once,
    sooner, and playback still never waits."""
    from tray_reader.speech import engine as engine_module

    clock = _Clock()
    monkeypatch.setattr(engine_module, "time", clock)
    decoder = _TimedDecoder(clock, 0.008)
    e = KokoroEngine(session=None, threads=2, features=_TimedPartA(clock, 120), decoder=decoder)
    pack = np.zeros((510, 1, 256), np.float32)
    heard = []
    for _ in range(2):
        decoder.runs, begun, started, played, longest = 0, clock.now, None, 0.0, 0.0
        for piece in e.stream([1, 2, 3], pack, 1.0):
            if started is None:
                started, runs = clock.now, decoder.runs
            longest = max(longest, clock.now - (started + played))
            played += piece.size / 24_000
        heard.append((runs, started - begun, longest, played))
    (runs1, first1, longest1, played1), (runs2, first2, longest2, played2) = heard
    assert runs1 > 1 and runs2 == 1
    assert first2 < first1 - 0.2  # a few frames more than the plan's, not a whole window
    assert longest1 == longest2 == 0.0 and played1 == played2
    assert e.heard_first_frames() > e.plan.first_frames


def test_a_busy_machine_grows_the_first_window_only_so_far_and_holds_it_back(monkeypatch):
    """At 30 ms a frame the first window would have to be 2.5 times the plan's: grown only
    1.5 times (a busy machine's speed varies more than the hold's margin), it is held back
    until more is made, and playback never waits."""
    from tray_reader.speech import engine as engine_module

    clock = _Clock()
    monkeypatch.setattr(engine_module, "time", clock)
    decoder = _TimedDecoder(clock, 0.03)
    e = KokoroEngine(session=None, threads=2, features=_TimedPartA(clock, 120), decoder=decoder)
    pack = np.zeros((510, 1, 256), np.float32)
    assert sum(p.size for p in e.stream([1, 2], pack, 1.0)) > 0  # the speed measured
    assert e.heard_first_frames() == int(e.plan.first_frames * engine_module.FIRST_WINDOW_GROWTH)
    decoder.runs, started, played, longest = 0, None, 0.0, 0.0
    for piece in e.stream([1, 2, 3], pack, 1.0):
        if started is None:
            started, runs = clock.now, decoder.runs
        longest = max(longest, clock.now - (started + played))
        played += piece.size / 24_000
    assert runs > 1 and longest == 0.0


class _SharedDecoder(_TimedDecoder):
    """As `_TimedDecoder`, but the engine's other read (``other``, a stream of the same engine)
    makes a window in the middle of this one's ``shared``-th run, on the same clock: two of our
    own runs sharing the cores, as a selection prepared while a read decodes."""

    def __init__(self, clock, per_frame, shared):
        super().__init__(clock, per_frame)
        self.shared, self.other = shared, None

    def run(self, names, window, options=None):
        out = super().run(names, window, options)
        if self.runs == self.shared and self.other is not None:
            next(self.other)
        return out


def test_a_window_shared_with_another_read_of_ours_does_not_hold_the_first_audio(monkeypatch):
    """A selection prepared while a read decodes: its first window is slowed by the read,
    which stops when the selection is read. The hold judges by the last window made alone."""
    from tray_reader.speech import engine as engine_module

    clock = _Clock()
    monkeypatch.setattr(engine_module, "time", clock)
    decoder = _SharedDecoder(clock, 0.004, shared=1)
    e = KokoroEngine(session=None, threads=2, features=_TimedPartA(clock, 120), decoder=decoder)
    pack = np.zeros((510, 1, 256), np.float32)
    assert sum(p.size for p in e.stream([1, 2], pack, 1.0)) > 0  # the read's first chunk, alone
    assert e.alone_frame_seconds == pytest.approx(0.004)
    decoder.runs = 0
    decoder.other = e.stream([4, 5], pack, 1.0, lead=10.0)  # the read's next chunk, 10 s ahead
    runs = None
    for _piece in e.stream([1, 2, 3], pack, 1.0):
        runs = decoder.runs
        break
    # Its first window ran beside the other read's and took longer than the hold allows
    # (`test_a_busy_machine_holds_the_first_audio_back_until_playback_need_not_wait`: 12 ms)...
    assert decoder.runs >= 2 and e.last_frame_seconds > 0.012
    # ...yet its audio went out after that one window, at the speed made alone.
    assert runs == 2 and e.alone_frame_seconds == pytest.approx(0.004)
    decoder.other.close()


def test_a_read_goes_on_after_a_chunk_with_words_after_it():
    from tray_reader.speech.synthesis import _goes_on

    text = "Our meeting on Thursday will start later. Bring the report."
    first = TextChunk(text="Our meeting", phonemes="", sentence=0, pause_after=0.0, words=((0, 3), (4, 11)))
    assert _goes_on(first, text)
    last = TextChunk(
        text="Bring the report", phonemes="", sentence=1, pause_after=0.5, words=((42, 47), (52, 58))
    )
    assert not _goes_on(last, text)  # only its full stop after it
    cut = TextChunk(text="Bring the", phonemes="", sentence=1, pause_after=0.0, words=((42, 47),), handover=2)
    assert _goes_on(cut, "Bring the")  # cut inside a sentence: handed words follow
