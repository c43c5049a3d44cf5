"""Player logic on the in-memory output: ring, timeline, fades, pause, stop, skip, devices."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest
import soxr

from tray_reader.audio.devices import describe_devices
from tray_reader.audio.output import MemoryOutput
from tray_reader.audio.player import Player, PlayerConfig, PlayerState, PlayerStatus
from tray_reader.audio.ring import SampleRing
from tray_reader.audio.timeline import Timeline
from tray_reader.errors import AudioDeviceError
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk

pytestmark = pytest.mark.timeout(30)

RATE = 48_000
FADE = int(RATE * PlayerConfig().fade_ms / 1000)


def tone(freq: float, seconds: float, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(seconds * SAMPLE_RATE)) / SAMPLE_RATE
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def level(value: float, seconds: float) -> np.ndarray:
    return np.full(int(seconds * SAMPLE_RATE), value, np.float32)


def chunks(audio: np.ndarray, sentence: int, ms: int = 100) -> list[AudioChunk]:
    step = SAMPLE_RATE * ms // 1000
    return [AudioChunk(audio[i : i + step], sentence) for i in range(0, len(audio), step)]


def resampled(audio: np.ndarray, rate: int = RATE) -> np.ndarray:
    rs = soxr.ResampleStream(SAMPLE_RATE, rate, 1, dtype="float32")
    return np.concatenate([rs.resample_chunk(audio), rs.resample_chunk(audio[:0], last=True)])


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.002)


def make(pace: float | None, **config) -> tuple[Player, MemoryOutput]:
    out = MemoryOutput(RATE, pace=pace, names=("memory", "spare"))
    config.setdefault("stall_s", 60.0)
    return Player(out, PlayerConfig(**config)), out


# -- ring and timeline ----------------------------------------------------------------------------
def test_ring_wraps_respects_its_limit_and_pads_underruns_with_zeros():
    ring = SampleRing(8)
    assert ring.push(np.arange(1, 7, dtype=np.float32)) == 6
    out = np.full(4, 9.0, np.float32)
    assert ring.pull_into(out) == 4 and out.tolist() == [1, 2, 3, 4]
    assert ring.push(np.arange(10, 20, dtype=np.float32), limit=5) == 3  # 2 held + 3 = limit
    assert ring.push(None, frames=10) == 3  # silence up to capacity
    out = np.full(10, 9.0, np.float32)
    assert ring.pull_into(out) == 8
    assert out.tolist() == [5, 6, 10, 11, 12, 0, 0, 0, 0, 0]
    assert ring.read == ring.write == 12


def test_timeline_takes_within_a_sentence_and_seeks_to_kept_sentences():
    tl = Timeline()
    tl.append(0, level(0.1, 0.01))
    tl.append(0, level(0.2, 0.01))
    tl.append(1, level(0.3, 0.01))
    a = tl.take(10_000)
    assert (a.position, a.offset, len(a.samples)) == (0, 0, 240)
    b = tl.take(100)
    assert (b.position, b.offset, float(b.samples[0])) == (0, 240, pytest.approx(0.2))
    tl.take(10_000)
    c = tl.take(10_000)
    assert (c.position, c.offset, float(c.samples[0])) == (1, 0, pytest.approx(0.3))
    assert tl.take(10) is None and not tl.at_end()  # sentence 1 may still grow
    tl.finished = True
    assert tl.at_end()
    tl.forget_before(1)
    assert tl.seek(0) == 1  # sentence 0 is gone; the oldest kept one plays
    assert tl.seek(7) == 2  # one past the end: waits for the next sentence


def stored_precision(audio: np.ndarray) -> float:
    """What the timeline's 16-bit storage may change a sample by, after the resampler: two
    steps of a 16-bit scale set by the audio's peak (its rounding is half a step)."""
    return 2 * float(np.abs(audio).max()) / 32767


def test_timeline_keeps_audio_as_scaled_16_bit_samples():
    tl = Timeline()
    loud = np.sin(np.linspace(0, 60, 4800)).astype(np.float32) * 1.7  # over full scale: kept
    quiet = loud * 1e-3  # scaled to its own peak: as precise as the loud one, relatively
    broken = np.array([0.1, np.nan, -np.inf, 0.2], np.float32)
    tl.append(0, loud)
    tl.append(1, quiet)
    tl.append(2, broken)
    tl.append(3, np.zeros(10, np.float32))
    tl.finished = True
    for original in (loud, quiet):
        got = np.concatenate([tl.take(1000).samples for _ in range(5)])
        assert got.dtype == np.float32
        step = float(np.abs(original).max()) / 32767
        assert np.abs(got - original).max() <= 0.505 * step  # half a step, and float rounding
        assert np.abs(got).max() == pytest.approx(np.abs(original).max(), rel=1e-6)
    assert tl.take(100).samples.tolist() == pytest.approx([0.1, 0.0, 0.0, 0.2], abs=1e-5)
    assert tl.take(100).samples.tolist() == [0.0] * 10
    kept = tl._sentences[0].pieces[0]
    assert kept.samples.dtype == np.int16 and kept.samples.nbytes == 2 * len(loud)


# -- streaming --------------------------------------------------------------------------------------
def test_chunked_stream_equals_one_resampling_of_the_whole_and_is_padded():
    player, out = make(pace=1.0, end_pad_ms=150)
    audio = tone(440, 0.8)
    try:
        for c in chunks(audio, 0, ms=37):
            player.play(c)
        player.finish()
        assert player.wait(10)
        assert player.stats.underruns == 0, "the feeder fell behind (machine too busy?)"
        played = out.played()
        start = int(np.flatnonzero(np.abs(played) > 0)[0])
        expected = resampled(audio)
        got = played[start : start + len(expected)]
        # The first FADE samples are faded in; after that the output is the resampled input.
        assert np.abs(got[FADE:] - expected[FADE:]).max() < stored_precision(audio)
        assert np.abs(played[start + len(expected) :]).max() == 0.0
        assert len(played) - start - len(expected) >= 0.15 * RATE  # the end padding was played
        assert player.status.state is PlayerState.IDLE
        assert player.stats.first_sample_latency is not None and player.stats.first_sample_latency >= 0
    finally:
        player.close()


def test_pause_resumes_at_the_sample_where_the_fade_began():
    player, out = make(pace=None)
    audio = tone(440, 1.0)
    expected = resampled(audio)
    try:
        player.play(AudioChunk(audio, 0, last=True))
        wait_for(lambda: player.buffered >= 0.29)
        stream = out.streams[0]
        before = stream.pull(10)
        player.pause()
        held = stream.pull(5)
        assert np.abs(held[:FADE]).max() > 0 and np.abs(held[FADE:]).max() == 0.0
        player.resume()
        after = stream.pull(10)
        n = len(before)
        assert np.abs(before[FADE:] - expected[FADE:n]).max() < stored_precision(audio)
        # after the fade-in, playback continues exactly at sample n
        assert np.abs(after[FADE:] - expected[n + FADE : n + len(after)]).max() < stored_precision(audio)
        steps = np.abs(np.diff(np.concatenate([before, held, after])))
        assert steps.max() < 2 * np.pi * 440 / RATE * 0.5 * 1.2, "a click at pause or resume"
    finally:
        player.close()


def test_stop_fades_out_within_fade_ms_cancels_upstream_and_next_play_starts_fresh():
    stopped = threading.Event()
    out = MemoryOutput(RATE, pace=None)
    player = Player(out, PlayerConfig(stall_s=60), on_stop=stopped.set)
    try:
        cancel = player.start_request()
        player.play(AudioChunk(tone(440, 2.0), 0))
        wait_for(lambda: player.buffered >= 0.29)
        stream = out.streams[0]
        stream.pull(5)
        player.stop()
        assert cancel.is_set() and stopped.is_set()
        tail = stream.pull(3)
        assert np.abs(tail[FADE:]).max() == 0.0, "sound after the fade-out"
        assert np.abs(np.diff(tail)).max() < 0.05, "stop clicked"
        wait_for(lambda: player.status.state is PlayerState.IDLE)
        assert player.buffered == 0.0
        player.play(AudioChunk(level(0.25, 0.2), 0, last=True))  # a new request plays at once
        wait_for(lambda: player.buffered > 0.1)
        stream.pull(5)
        assert stream.pull(1).max() == pytest.approx(0.25, abs=1e-3)
    finally:
        player.close()


def test_a_chunk_handed_over_after_its_reads_stop_is_dropped():
    # A chunk made before a stop and handed over just after it began a new request and was
    # heard after the stop (seen once: 0.6 s of speech after speech-dispatcher's cancel).
    out = MemoryOutput(RATE, pace=None)
    player = Player(out, PlayerConfig(stall_s=60))
    try:
        cancel = player.start_request()
        player.play(AudioChunk(tone(440, 1.0), 0), cancel)
        wait_for(lambda: player.buffered >= 0.29)
        stream = out.streams[0]
        player.stop()
        wait_for(lambda: player.status.state is PlayerState.IDLE)
        player.play(AudioChunk(tone(440, 1.0), 0), cancel)  # late: dropped
        time.sleep(0.1)
        assert player.buffered == 0.0 and player.status.state is PlayerState.IDLE
        stream.pull(5)
        assert np.abs(stream.pull(5)).max() == 0.0
        player.play(AudioChunk(tone(440, 1.0), 0))  # without the old stop: a new request
        wait_for(lambda: player.buffered > 0.1)
    finally:
        player.close()


def test_a_read_begun_while_listeners_run_is_fed_at_once_not_at_the_next_idle_look():
    # "Read now": the old request ends on the feeder thread, which then tells its
    # listeners (tray, MPRIS); the new request's audio, handed over meanwhile, must not
    # wait for the feeder's next look while idle (here an hour).
    out = MemoryOutput(RATE, pace=None)
    player = Player(out, PlayerConfig(stall_s=3600, idle_poll_s=3600))
    in_listener, release = threading.Event(), threading.Event()

    def slow_listener(status: PlayerStatus) -> None:
        if status.state is PlayerState.IDLE and not release.is_set():
            in_listener.set()
            release.wait(10)

    player.add_listener(slow_listener)
    try:
        player.play(AudioChunk(tone(440, 2.0), 0))
        wait_for(lambda: player.buffered >= 0.29)
        out.streams[0].pull(5)
        player.flush()
        out.streams[0].pull(3)  # the fade-out: the request ends, the listeners are told
        assert in_listener.wait(5)
        player.play(AudioChunk(level(0.25, 0.2), 0, last=True))  # the new read's first audio
        release.set()
        wait_for(lambda: player.buffered > 0.1)
    finally:
        release.set()
        player.close()


def test_volume_changes_ramp_without_steps():
    player, out = make(pace=None)
    try:
        player.play(AudioChunk(level(0.5, 1.0), 0, last=True))
        wait_for(lambda: player.buffered >= 0.29)
        stream = out.streams[0]
        stream.pull(3)
        player.volume = 0.2
        ramp = stream.pull(3)
        assert np.abs(np.diff(ramp)).max() <= 0.5 / FADE * 1.01
        assert ramp[-1] == pytest.approx(0.1, abs=1e-3)
    finally:
        player.close()


def levels_heard(played: np.ndarray) -> list[tuple[float, float]]:
    """(level, seconds) runs of a signal made of constant levels."""
    blocks = played[: len(played) // 480 * 480].reshape(-1, 480)
    runs: list[tuple[float, float]] = []
    for value in np.round(np.median(blocks, axis=1), 2):
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 0.01)
        else:
            runs.append((float(value), 0.01))
    merged: list[tuple[float, float]] = []
    for value, seconds in runs:
        if value == 0.0 or seconds <= 0.03:
            continue  # fades and underrun gaps
        if merged and merged[-1][0] == value:
            merged[-1] = (value, merged[-1][1] + seconds)
        else:
            merged.append((value, seconds))
    return [(v, round(s, 2)) for v, s in merged]


def test_next_and_previous_jump_between_sentences():
    player, out = make(pace=4.0)
    sentence_seen: list[int | None] = []
    player.add_listener(lambda s: sentence_seen.append(s.sentence))
    try:
        for i, value in enumerate((0.1, 0.2, 0.3)):
            for c in chunks(level(value, 1.5), i):
                player.play(c)
        player.finish()
        wait_for(lambda: player.status.sentence == 0 and player.buffered > 0)
        time.sleep(0.1)  # ~0.4 s into sentence 0
        player.next()
        wait_for(lambda: player.status.sentence == 1)
        time.sleep(0.05)  # ~0.2 s into sentence 1: previous() goes back to sentence 0
        player.previous()
        wait_for(lambda: player.status.sentence == 0)
        assert player.wait(10)
        runs = levels_heard(out.played())
        assert [v for v, _ in runs] == [0.1, 0.2, 0.1, 0.2, 0.3], runs
        assert runs[0][1] < 1.0 and runs[1][1] < 1.0  # cut short by next / previous
        assert [s for _, s in runs[2:]] == pytest.approx([1.5, 1.5, 1.5], abs=0.05)
        assert [s for s in sentence_seen if s is not None][:4] == [0, 1, 0, 1]
    finally:
        player.close()


def test_previous_late_in_a_sentence_restarts_it():
    player, out = make(pace=4.0, restart_s=0.5)
    try:
        for c in chunks(level(0.1, 2.0), 0) + chunks(level(0.2, 0.3), 1):
            player.play(c)
        player.finish()
        wait_for(lambda: player.buffered > 0)
        time.sleep(0.3)  # ~1.2 s into sentence 0
        player.previous()
        assert player.wait(10)
        runs = levels_heard(out.played())
        assert [v for v, _ in runs] == [0.1, 0.1, 0.2] or [v for v, _ in runs] == [0.1, 0.2]
        assert sum(s for v, s in runs if v == 0.1) > 2.5  # sentence 0 was heard again from its start
    finally:
        player.close()


def test_slow_producer_is_counted_as_underruns():
    player, _ = make(pace=2.0)
    try:
        for c in chunks(tone(440, 0.6), 0):
            player.play(c)
            time.sleep(0.1)  # 100 ms of audio every 100 ms, played at twice real time
        player.finish()
        assert player.wait(10)
        stats = player.stats
        assert stats.underruns >= 3
        assert 0.1 < stats.underrun_seconds < 1.0
    finally:
        player.close()


def test_listeners_follow_speaking_paused_idle():
    player, _ = make(pace=2.0)
    seen: list[PlayerStatus] = []
    player.add_listener(seen.append)
    try:
        for c in chunks(level(0.3, 0.5), 0):
            player.play(c)
        player.finish()
        wait_for(lambda: bool(seen))
        player.pause()
        wait_for(lambda: any(s.state is PlayerState.PAUSED for s in seen))
        player.resume()
        assert player.wait(10)
        wait_for(lambda: seen[-1].state is PlayerState.IDLE)
        states = [s.state for s in seen]
        assert states[0] is PlayerState.SPEAKING
        assert states.index(PlayerState.PAUSED) < len(states) - 1 - states[::-1].index(PlayerState.SPEAKING)
        assert seen[-1] == PlayerStatus(PlayerState.IDLE, None)
    finally:
        player.close()


def test_a_failing_listener_does_not_stop_playback():
    player, _ = make(pace=4.0)
    seen: list[PlayerStatus] = []

    def broken(status: PlayerStatus) -> None:
        raise RuntimeError("tray bug")

    player.add_listener(broken)
    player.add_listener(seen.append)
    try:
        player.play(AudioChunk(level(0.3, 0.3), 0, last=True))
        assert player.wait(10)
        player.play(AudioChunk(level(0.3, 0.3), 0, last=True))
        assert player.wait(10)
        wait_for(lambda: [s.state for s in seen].count(PlayerState.IDLE) == 2)
    finally:
        player.close()


def test_play_blocks_beyond_the_lookahead_and_returns_on_stop():
    player, _ = make(pace=None, lookahead_s=0.5)
    try:
        player.play(AudioChunk(level(0.1, 1.0), 0))
        done = threading.Event()

        def producer() -> None:
            player.play(AudioChunk(level(0.1, 1.0), 0))
            done.set()

        threading.Thread(target=producer, daemon=True).start()
        assert not done.wait(0.3), "play() should block while 0.5 s of audio is queued ahead"
        player.stop()
        assert done.wait(2)
    finally:
        player.close()


# -- devices --------------------------------------------------------------------------------------
def test_a_vanished_device_falls_back_to_the_default_and_replays_the_sentence():
    player, out = make(pace=4.0, device="spare")
    try:
        for c in chunks(level(0.2, 1.0), 0):
            player.play(c)
        player.finish()
        wait_for(lambda: player.buffered > 0)
        time.sleep(0.1)
        out.fail_next_open = 1  # the chosen device is gone for good
        out.streams[0].fail()
        assert player.wait(10)
        assert player.stats.reopened == 1
        assert [s.device for s in out.streams] == ["spare", "memory"]
        second = out.streams[1].played()
        assert np.sum(np.abs(second - 0.2) < 1e-3) / RATE > 0.9  # the sentence again, from its start
    finally:
        player.close()


def test_a_hung_device_is_noticed_after_stall_s_and_reopened():
    player, out = make(pace=4.0, stall_s=0.3)
    try:
        for c in chunks(level(0.2, 1.0), 0):
            player.play(c)
        player.finish()
        wait_for(lambda: player.buffered > 0)
        out.streams[0].freeze()
        assert player.wait(10)
        assert player.stats.reopened == 1 and len(out.streams) == 2
        assert np.sum(np.abs(out.streams[1].played() - 0.2) < 1e-3) / RATE > 0.9
    finally:
        player.close()


def test_no_device_gives_error_state_and_the_next_request_retries():
    player, out = make(pace=4.0)
    try:
        out.fail_next_open = 1
        with pytest.raises(AudioDeviceError):
            player.play(AudioChunk(level(0.2, 0.1), 0))
        assert player.status.state is PlayerState.ERROR
        player.play(AudioChunk(level(0.2, 0.1), 0, last=True))
        assert player.wait(10)
        assert player.status.state is PlayerState.IDLE
        # A device that dies and cannot be reopened: ERROR, and the waiting caller hears of it.
        for c in chunks(level(0.2, 2.0), 0):
            player.play(c)
        player.finish()
        wait_for(lambda: player.buffered > 0)
        out.fail_next_open = 2  # the chosen device and the default both refuse
        out.streams[-1].fail()
        with pytest.raises(AudioDeviceError, match="none could be reopened"):
            player.wait(10)
        assert player.status.state is PlayerState.ERROR
    finally:
        player.close()


def test_device_list_marks_the_default():
    lines = describe_devices(MemoryOutput(44_100, names=("speakers", "headphones")))
    assert lines == ["* speakers  (44100 Hz)", "  headphones  (44100 Hz)"]
