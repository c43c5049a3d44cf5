"""The stock voices' profiles, and hearing them through a recording's band."""

from __future__ import annotations

import numpy as np
import pytest
import soxr

from tray_reader import model_files
from tray_reader.voices import guard, stock_profiles
from tray_reader.voices.embedder import SpeakerEmbedder, cosine
from tray_reader.voices.preprocess import prepare
from tray_reader.voices.render import VoiceRenderer
from tray_reader.voices.stock_profiles import BAND_STEP, BAND_TOPS, StockProfiles

SPOKEN = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours."
)


def _fake(n: int = 3) -> StockProfiles:
    rng = np.random.default_rng(0)
    full = rng.normal(size=(n, 256)).astype(np.float32)
    bands = rng.normal(size=(len(BAND_TOPS), n, 256)).astype(np.float32)
    bands[:, :, 0] = np.arange(len(BAND_TOPS))[:, None]  # which band, readable back
    return StockProfiles(
        tuple(f"v{i}" for i in range(n)), full, np.full(n, 150.0), np.full(n, 0.2), BAND_TOPS.copy(), bands
    )


def test_for_band_takes_the_highest_top_at_or_below_the_recordings():
    p = _fake()
    i = int(np.searchsorted(BAND_TOPS, 3800.0))  # 3812.5 is above 3800
    got = p.for_band(3800.0)
    assert got.embeddings[0, 0] == i - 1 and BAND_TOPS[i - 1] <= 3800.0
    assert p.for_band(float(BAND_TOPS[5])).embeddings[0, 0] == 5
    assert p.for_band(1000.0).embeddings[0, 0] == 0  # below the grid: its lowest top
    assert p.for_band(8000.0) is p and p.for_band(8000.0 - BAND_STEP / 4) is p  # full band
    assert p.for_band(7950.0).embeddings[0, 0] == len(BAND_TOPS) - 1


def test_without_keeps_each_voices_band_embeddings_with_it():
    p = _fake(4)
    q = p.without({"v1"})
    assert q.names == ("v0", "v2", "v3")
    assert np.array_equal(q.band_embeddings, p.band_embeddings[:, [0, 2, 3]])
    assert np.array_equal(q.for_band(3000.0).embeddings, p.for_band(3000.0).embeddings[[0, 2, 3]])


def test_the_shipped_profiles_hold_every_band():
    p = stock_profiles.load()
    assert np.allclose(p.band_tops, BAND_TOPS)
    assert p.band_embeddings.shape == (len(BAND_TOPS), len(p.names), 256)
    assert np.allclose(np.linalg.norm(p.band_embeddings, axis=-1), 1, atol=1e-3)
    # Just under 8 kHz a render loses almost nothing: each voice stays itself.
    top = p.band_embeddings[-1]
    assert all(cosine(top[i], p.embeddings[i]) > 0.95 for i in range(len(p.names)))


@pytest.fixture(scope="module")
def renderer(users_engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    return VoiceRenderer(users_engine, TextFrontEnd(phonemizer))


def _telephone(audio24k: np.ndarray) -> np.ndarray:
    """A render as a telephone line carries it: 8 kHz, so nothing above 4 kHz."""
    return soxr.resample(soxr.resample(audio24k, 24_000, 8_000), 8_000, 24_000)


# Heard at full band, a telephone band made these five sound nearest to another voice
# (af_bella, bf_isabella, am_fenrir, af_nicole, am_fenrir); 21 of the 28 stock voices were
# found, 26 through the band (af_nova and af_sarah are near neighbours either way).
@pytest.mark.parametrize("voice", ["af_heart", "af_jessica", "am_puck", "bf_emma", "bm_fable"])
def test_a_stock_voice_through_a_telephone_band_is_still_its_own_nearest(renderer, voice):
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    rec = prepare(_telephone(renderer.render(model_files.stock_pack(voice), 1.0, [SPOKEN])), 24_000)
    assert 3300 < guard.band_top(guard.band_gain(rec.speech16k)) < 4100
    assert profiles.nearest(rec.speech16k, embedder) == voice


def test_the_other_languages_voices_are_shipped_checked_and_profiled():
    others = model_files.other_voices()
    stock = {v.name for v in model_files.stock_voices()}
    assert len(others) == 26 and not stock & set(others)
    assert {model_files.language(n) for n in others} >= {"Spanish", "French", "Italian", "Hindi"}
    sara = model_files.pack("if_sara")
    assert sara.shape == model_files.PACK_SHAPE and np.array_equal(sara, model_files.other_pack("if_sara"))
    assert np.array_equal(model_files.pack("af_heart"), model_files.stock_pack("af_heart"))
    with pytest.raises(KeyError):
        model_files.pack("xx_nobody")
    rows = dict(model_files.verify_all())
    assert rows["26 other languages' voice packs (enrolment)"] == "ok"
    assert rows["other languages' voice profiles (enrolment)"] == "ok"
    p = stock_profiles.load_other()
    assert list(p.names) == others and np.allclose(p.band_tops, BAND_TOPS)
    assert np.allclose(np.linalg.norm(p.embeddings, axis=1), 1, atol=1e-4)
    # They are other voices than the stock ones: each one's nearest stock voice is further
    # from it than that stock voice is from itself (a copy would be at cosine 1).
    near = (p.embeddings @ stock_profiles.load().embeddings.T).max(axis=1)
    assert near.max() < 0.99


def test_joined_profiles_keep_each_voice_and_its_bands_and_refuse_two_bands():
    p, q = _fake(3), _fake(2)
    q = StockProfiles(("w0", "w1"), q.embeddings, q.f0, q.f0_spread, q.band_tops, q.band_embeddings)
    j = p.joined(q)
    assert j.names == ("v0", "v1", "v2", "w0", "w1")
    assert np.array_equal(j.embeddings[3:], q.embeddings)
    heard = p.for_band(3000.0).joined(q.for_band(3000.0))  # joined then heard, or heard then joined
    assert np.array_equal(j.for_band(3000.0).embeddings, heard.embeddings)
    assert np.array_equal(j.for_band(3000.0).embeddings[3:], q.for_band(3000.0).embeddings)
    with pytest.raises(ValueError, match="different bands"):
        p.for_band(3000.0).joined(q)
