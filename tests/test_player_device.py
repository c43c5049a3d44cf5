"""The player on a real device: PortAudio into a PulseAudio null sink, captured from its monitor."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import numpy as np
import pytest

from tests.fixtures_audio import PulseServer, active_span, dominant_frequency, envelope, frequency_track
from tray_reader.audio.output import SoundDeviceOutput
from tray_reader.audio.player import Player, PlayerConfig, PlayerState
from tray_reader.errors import AudioDeviceError
from tray_reader.speech.types import SAMPLE_RATE, AudioChunk

pytestmark = [pytest.mark.desktop, pytest.mark.timeout(60)]

AMP = 0.5


def tone(freq: float, seconds: float, start: int = 0) -> np.ndarray:
    """A sine at 24 kHz whose phase continues from sample `start`."""
    t = (np.arange(int(seconds * SAMPLE_RATE)) + start) / SAMPLE_RATE
    return (AMP * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def chunks(audio: np.ndarray, sentence: int, ms: int = 100) -> list[AudioChunk]:
    step = SAMPLE_RATE * ms // 1000
    return [AudioChunk(audio[i : i + step], sentence) for i in range(0, len(audio), step)]


def max_allowed_step(freq: float, rate: int) -> float:
    """Largest sample-to-sample change a clean sine of AMP can have, with headroom."""
    return 1.5 * 2 * np.pi * freq / rate * AMP


@pytest.fixture
def player(pulse):
    p = Player(SoundDeviceOutput(), PlayerConfig())
    p.open()
    yield p
    p.close()


def clean_attempts(pulse, tries: int = 3, on_stop=None, latency_ms: float = 80) -> Iterator[Player]:  # noqa: ANN001
    """Players for one measurement, measured again when PortAudio or the server saw the stream
    run dry: a CPU too busy to run the callback in time makes gaps that are not the player's."""
    for _ in range(tries):
        p = Player(SoundDeviceOutput(), PlayerConfig(latency_ms=latency_ms), on_stop=on_stop)
        p.open()
        time.sleep(0.1)
        before = pulse.underruns()
        try:
            yield p
            gaps = pulse.underruns() - before
        finally:
            p.close()
        if p.stats.xruns == 0 and gaps == 0:
            return
        print(f"stream ran dry (PortAudio xruns {p.stats.xruns}, server underruns {gaps}); measuring again")
    pytest.fail(f"the stream ran dry in all {tries} attempts: the machine is too busy to judge clicks")


def play_all(player: Player, pieces: list[AudioChunk]) -> None:
    for c in pieces:
        player.play(c)
    player.finish()


def test_multichunk_tone_has_right_pitch_length_and_no_seams(pulse):
    audio = tone(440, 1.5)
    for player in clean_attempts(pulse):
        with pulse.recorder() as rec:
            play_all(player, chunks(audio, 0, ms=70))  # 70 ms: chunk edges fall mid-cycle
            assert player.wait(10)
            time.sleep(0.2)
    start, end = active_span(rec.audio)
    seconds = (end - start) / pulse.rate
    assert seconds == pytest.approx(1.5, abs=0.02)
    body = rec.audio[start + 480 : end - 480]
    assert dominant_frequency(body, pulse.rate) == pytest.approx(440, abs=1.0)
    assert envelope(body, pulse.rate).min() > 0.8 * AMP, "a gap or dip inside the stream"
    assert np.abs(np.diff(body)).max() < max_allowed_step(440, pulse.rate), "a click at a chunk seam"
    stats = player.stats
    assert stats.underruns == 0
    assert stats.first_sample_latency is not None and 0 <= stats.first_sample_latency < 0.5
    print(f"first-sample latency {stats.first_sample_latency * 1000:.1f} ms, xruns {stats.xruns}")


def test_final_100_ms_are_played(pulse, player):
    pieces = chunks(tone(440, 0.6), 0) + [AudioChunk(tone(880, 0.1), 1, last=True)]
    with pulse.recorder() as rec:
        for c in pieces:
            player.play(c)
        assert player.wait(10)
        time.sleep(0.2)
    start, end = active_span(rec.audio)
    track = frequency_track(rec.audio[start:end], pulse.rate, window_ms=10)
    high = np.flatnonzero(np.abs(track - 880) < 40)
    assert len(high) * 0.010 == pytest.approx(0.1, abs=0.021), "the final 100 ms are cut"
    assert high[-1] >= len(track) - 2, "the 880 Hz ending is not the last thing heard"


def test_pause_resume_leaves_a_gap_of_the_pause_and_no_click(pulse):
    audio = tone(440, 2.0)
    for player in clean_attempts(pulse):
        with pulse.recorder() as rec:
            play_all(player, chunks(audio, 0))
            time.sleep(0.6)
            player.pause()
            assert player.status.state is PlayerState.PAUSED
            time.sleep(0.5)
            player.resume()
            assert player.wait(10)
            time.sleep(0.2)
    start, end = active_span(rec.audio)
    played = rec.audio[start:end]
    quiet = envelope(played, pulse.rate, window_ms=2) < 0.01
    gap = quiet.sum() * 0.002
    assert gap == pytest.approx(0.5, abs=0.06)
    # Resuming at the same sample: no audio lost or repeated beyond the fade overlap.
    assert (end - start) / pulse.rate - gap == pytest.approx(2.0, abs=0.04)
    assert np.abs(np.diff(played)).max() < max_allowed_step(440, pulse.rate), "a click at pause/resume"


def test_stop_silences_within_a_short_bound(pulse):
    stopped = threading.Event()
    # The default output latency: what was already handed to the device still plays after stop().
    for p in clean_attempts(pulse, on_stop=stopped.set, latency_ms=PlayerConfig().latency_ms):
        with pulse.recorder() as rec:
            cancel = p.start_request()
            play_all(p, chunks(tone(440, 3.0), 0))
            time.sleep(0.8)
            t = time.monotonic()
            heard_for = t - (p.stats.first_sample_at or t)
            p.stop()
            p.wait(2)
            stop_call = time.monotonic() - t
            time.sleep(0.3)
        assert cancel.is_set() and stopped.is_set(), "stop() must cancel synthesis upstream"
        assert p.status.state is PlayerState.IDLE
    assert stop_call < 0.1
    start, end = active_span(rec.audio)
    # Heard after stop() = captured tone minus what was due before the call.
    after_stop = (end - start) / pulse.rate - heard_for
    assert after_stop < 0.08, f"{after_stop * 1000:.0f} ms of sound after stop()"
    assert np.abs(np.diff(rec.audio)).max() < max_allowed_step(440, pulse.rate), "stop clicked"


def test_next_jumps_to_the_next_sentences_audio(pulse):
    pieces = chunks(tone(440, 2.0), 0) + chunks(tone(660, 0.5), 1) + chunks(tone(880, 0.5), 2)
    for player in clean_attempts(pulse):
        heard: list[int | None] = []
        player.add_listener(lambda s, heard=heard: heard.append(s.sentence))
        with pulse.recorder() as rec:
            play_all(player, pieces)
            time.sleep(0.5)
            player.next()
            assert player.wait(10)
            time.sleep(0.2)
    start, end = active_span(rec.audio)
    track = frequency_track(rec.audio[start:end], pulse.rate)
    durations = {f: np.sum(np.abs(track - f) < 30) * 0.02 for f in (440, 660, 880)}
    assert durations[440] < 1.0, "the first sentence was not cut short"
    assert durations[660] == pytest.approx(0.5, abs=0.06)
    assert durations[880] == pytest.approx(0.5, abs=0.06)
    first = {f: int(np.argmax(np.abs(track - f) < 30)) for f in (440, 660, 880)}
    assert first[440] < first[660] < first[880]
    assert [s for s in heard if s is not None][:3] == [0, 1, 2]
    assert np.abs(np.diff(rec.audio)).max() < max_allowed_step(880, pulse.rate), "skip clicked"


def test_slow_producer_underruns_are_counted_without_crashing(pulse):
    audio = tone(440, 1.0)
    for player in clean_attempts(pulse, latency_ms=PlayerConfig().latency_ms):
        with pulse.recorder() as rec:
            for i, c in enumerate(chunks(audio, 0)):
                player.play(c)
                if i < 9:
                    time.sleep(0.25)  # synthesis at 0.4x real time: 150 ms short per chunk
            player.finish()
            assert player.wait(10)
            time.sleep(0.2)
        assert player.status.state is PlayerState.IDLE
    stats = player.stats
    assert stats.underruns >= 5
    assert stats.underrun_seconds > 0.6
    start, end = active_span(rec.audio)
    assert (end - start) / pulse.rate > 1.0 + 0.6  # the holes are in the capture too
    print(f"underruns {stats.underruns}, {stats.underrun_seconds * 1000:.0f} ms of silence")


def test_device_chosen_by_name(pulse):
    p = Player(SoundDeviceOutput(), PlayerConfig(device="pulse"))
    try:
        with pulse.recorder() as rec:
            play_all(p, chunks(tone(523, 0.3), 0))
            assert p.wait(10)
            time.sleep(0.15)
        assert p.stats.device == "pulse"
        start, end = active_span(rec.audio)
        assert (end - start) / pulse.rate == pytest.approx(0.3, abs=0.02)
    finally:
        p.close()
    bad = Player(SoundDeviceOutput(), PlayerConfig(device="no such card"))
    with pytest.raises(AudioDeviceError, match="no such card.*pulse"):
        bad.play(AudioChunk(tone(440, 0.1), 0))
    assert bad.status.state is PlayerState.ERROR
    bad.close()


@pytest.mark.timeout(60)
def test_sound_server_killed_mid_stream_errors_then_next_request_recovers(pulse, player):
    states: list[PlayerState] = []
    player.add_listener(lambda s: states.append(s.state))
    play_all(player, chunks(tone(440, 4.0), 0))
    time.sleep(0.5)
    pulse.kill()
    t = time.monotonic()
    with pytest.raises(AudioDeviceError, match="audio device stopped"):
        player.wait(10)
    assert time.monotonic() - t < 6
    assert player.status.state is PlayerState.ERROR
    assert PlayerState.ERROR in states
    pulse.start()
    with pulse.recorder() as rec:
        play_all(player, chunks(tone(660, 0.5), 0))
        assert player.wait(15)
        time.sleep(0.2)
    assert player.status.state is PlayerState.IDLE
    start, end = active_span(rec.audio)
    assert end > start, "nothing was heard after the server came back"
    assert dominant_frequency(rec.audio[start:end], pulse.rate) == pytest.approx(660, abs=2)


def test_no_sound_server_gives_a_clear_message_not_a_hang(pulse, tmp_path):
    env = dict(pulse.env, PULSE_SERVER=f"unix:{tmp_path}/nothing-here")
    code = (
        "import numpy as np\n"
        "from tray_reader.audio.player import Player\n"
        "from tray_reader.speech.types import AudioChunk\n"
        "p = Player()\n"
        "p.play(AudioChunk(np.zeros(2400, np.float32), 0, last=True))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=20)
    assert run.returncode != 0
    assert "AudioDeviceError" in run.stderr
    assert "sound server" in run.stderr or "Cannot play" in run.stderr
    cli = subprocess.run(
        [sys.executable, "-m", "tray_reader.cli", "devices"],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert cli.returncode == 2
    assert "sound server" in cli.stderr


@pytest.mark.timeout(60)
def test_a_sound_server_started_later_is_found_by_the_next_request(pulse):
    """The daemon may be autostarted before PulseAudio: the first request fails clearly, a later
    one finds the server (PortAudio is re-initialised to list its devices again)."""
    late = PulseServer(sink="late_sink")
    code = (
        "import sys, numpy as np\n"
        "from tray_reader.audio.player import Player\n"
        "from tray_reader.errors import AudioDeviceError\n"
        "from tray_reader.speech.types import AudioChunk\n"
        "p = Player()\n"
        "chunk = AudioChunk(np.zeros(2400, np.float32), 0, last=True)\n"
        "try:\n"
        "    p.play(chunk)\n"
        "    print('played early', flush=True)\n"
        "except AudioDeviceError as e:\n"
        "    print('error:', e, flush=True)\n"
        "sys.stdin.readline()\n"
        "p.play(chunk)\n"
        "print('played' if p.wait(10) else 'timeout', flush=True)\n"
        "p.close()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code],
        env=dict(pulse.env, **late.client_env),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().startswith("error: No audio output device")
        late.start()
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "played"
        assert child.wait(10) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(5)
        for pipe in (child.stdin, child.stdout):
            pipe.close()
        late.close()
