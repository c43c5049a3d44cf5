"""The Kokoro engine on the real model."""

from __future__ import annotations

import numpy as np
import pytest
import soxr

from tray_reader import model_files
from tray_reader.speech.engine import reshape_pitch
from tray_reader.speech.types import Prosody
from tray_reader.text.frontend import TextFrontEnd


def test_synthesis_gives_non_silent_audio_of_plausible_length(engine, phonemizer):
    frontend = TextFrontEnd(phonemizer)
    ids = frontend.ids(phonemizer("The quick brown fox jumps over the lazy dog."))
    audio = engine.synthesize(ids, model_files.stock_pack("af_heart"), 1.0)
    assert audio.dtype == np.float32
    seconds = audio.size / 24_000
    assert 1.5 < seconds < 5.0
    assert np.sqrt(np.mean(audio**2)) > 0.01


def test_speed_changes_duration(engine, phonemizer):
    ids = TextFrontEnd(phonemizer).ids(phonemizer("Reading at different speeds."))
    pack = model_files.stock_pack("af_heart")
    slow = engine.synthesize(ids, pack, 0.7).size
    fast = engine.synthesize(ids, pack, 1.5).size
    assert fast < slow * 0.7


def test_sessions_do_not_keep_a_copy_of_the_model_bytes(engine):
    # onnxruntime's wrapper would hold them (~100 MB) for a provider fallback we never use.
    for session in (engine.features, engine.decoder):
        assert session is not None
        assert getattr(session, "_model_bytes", None) is None


def test_decoding_records_the_last_windows_speed_beside_the_running_estimate(engine):
    pack = model_files.stock_pack("af_heart")
    saved = engine.frame_seconds, engine.last_frame_seconds
    try:
        engine.frame_seconds, engine.last_frame_seconds = 1e-6, 0.0
        for _ in engine.stream(list(range(40, 90)), pack, 1.0):
            pass
        assert engine.last_frame_seconds > 1e-6  # measured on the window, not the estimate
        assert engine.frame_seconds < engine.last_frame_seconds  # the estimate moves 30 %
    finally:
        engine.frame_seconds, engine.last_frame_seconds = saved


def _pitch_curve() -> tuple[np.ndarray, np.ndarray]:
    """A voiced glide between two unvoiced stretches, and its running phase as part A's."""
    f0 = np.concatenate([np.zeros(10), np.linspace(150, 250, 40), np.zeros(10)])[None].astype(np.float32)
    harmonics = np.arange(1, 10, dtype=np.float32)
    phase = np.cumsum(f0[..., None] * harmonics / 24_000, axis=1).astype(np.float32)
    return f0, phase


@pytest.mark.parametrize("prosody", [Prosody(), Prosody(1.3, 1.0), Prosody(0.8, 1.5), Prosody(1.0, 0.5)])
def test_reshape_pitch_moves_level_and_range_and_keeps_the_phase_a_sum_of_f0(prosody):
    f0, phase = _pitch_curve()
    shaped, new_phase = reshape_pitch(f0, phase, prosody)
    voiced = f0 > 10
    log_dev = np.log(f0[voiced]) - np.median(np.log(f0[voiced]))
    new_dev = np.log(shaped[voiced]) - np.median(np.log(shaped[voiced]))
    np.testing.assert_allclose(new_dev, prosody.spread * log_dev, atol=1e-4)
    assert np.median(shaped[voiced]) == pytest.approx(prosody.pitch * np.median(f0[voiced]), rel=1e-3)
    assert np.all(shaped[~voiced] == 0)
    expected = np.cumsum(shaped[..., None] * np.arange(1, 10) / 24_000, axis=1)
    np.testing.assert_allclose(new_phase, expected, rtol=1e-4, atol=1e-6)


def test_a_wider_pitch_range_is_heard_in_the_audio(engine, phonemizer):
    from tray_reader.voices.measure import pitch_stats
    from tray_reader.voices.render import PROFILE_SENTENCES

    pack = model_files.stock_pack("am_adam")
    wider, narrower = [], []
    for sentence in PROFILE_SENTENCES:
        ids = TextFrontEnd(phonemizer).ids(phonemizer(sentence))

        def stats(prosody: Prosody, ids: list[int] = ids) -> tuple[float, float]:
            audio = engine.synthesize(ids, pack, 1.0, prosody)
            return pitch_stats(soxr.resample(audio, 24_000, 16_000))

        (m1, s1), (_, s2), (_, s3) = stats(Prosody()), stats(Prosody(1.0, 1.6)), stats(Prosody(1.0, 0.6))
        wider.append(s2 / s1)
        narrower.append(s3 / s1)
        if sentence == PROFILE_SENTENCES[1]:
            m3 = stats(Prosody(1.25, 1.0))[0]
            assert np.log2(m3 / m1) == pytest.approx(np.log2(1.25), abs=0.08)
    # The tracker hears a range of x1.6 as about x1.3 (x1.15-1.4 by voice and sentence, and by
    # the rounding a CPU's kernels give), and one of x0.6 as about x0.65.
    assert np.mean(wider) > 1.2 and max(narrower) < 0.85, (wider, narrower)


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        return next(int(line.split()[1]) / 1024 for line in f if line.startswith("VmRSS:"))


def test_release_memory_gives_back_the_decoders_arena_and_decoding_is_unchanged(engine, phonemizer):
    frontend = TextFrontEnd(phonemizer)
    pack = model_files.stock_pack("af_heart")
    text = (
        "The river ran quietly past the old mill, where nobody had worked for many years, "
        "and the children who played on its banks never asked why the great wheel stood still."
    )
    ids = frontend.ids(phonemizer(text))
    before = engine.synthesize(ids, pack, 1.0)
    # Large windows, as a read far ahead of playback decodes: the arena grows to hold them.
    streamed = np.concatenate(list(engine.stream(ids, pack, 1.0, lead=30.0)))
    grown = _rss_mb()
    engine.release_memory()
    released = _rss_mb()
    assert grown - released > 10, (grown, released)
    after = engine.synthesize(ids, pack, 1.0)
    assert np.array_equal(before, after)
    again = np.concatenate(list(engine.stream(ids, pack, 1.0, lead=30.0)))
    assert again.size == streamed.size
