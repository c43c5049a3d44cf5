"""The Kokoro engine on the real model."""

from __future__ import annotations

import numpy as np

from tray_reader import model_files
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
