"""The envelope map: streamed as a read streams, moves a voice's envelope towards a speaker's
where the speaker's recording has sound, leaves the rest, and ignores a fixed channel."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import soxr

from tests.schedules import growing
from tray_reader import model_files
from tray_reader.speech import envelope
from tray_reader.speech.envelope import CEPS, CLASSES, OLD_CEPS, EnvelopeMap, frame_sizes
from tray_reader.speech.types import SAMPLE_RATE
from tray_reader.voices import guard
from tray_reader.voices.embedder import EMBED_RATE
from tray_reader.voices.measure import ahs_distance
from tray_reader.voices.render import VoiceRenderer

TEXT = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours."
)
OTHER = "Please call Stella and ask her to bring these things with her from the store."


def _band_limited(x16k: np.ndarray, lo: float, hi: float) -> np.ndarray:
    spec = np.fft.rfft(x16k.astype(np.float64))
    f = np.fft.rfftfreq(len(x16k), 1 / EMBED_RATE)
    spec[(f < lo) | (f > hi)] = 0
    return np.fft.irfft(spec, len(x16k)).astype(np.float32)


def _tilted(x16k: np.ndarray, db_per_octave: float) -> np.ndarray:
    """A fixed channel: a spectral tilt about 1 kHz (a cheap microphone's)."""
    spec = np.fft.rfft(x16k.astype(np.float64))
    f = np.maximum(np.fft.rfftfreq(len(x16k), 1 / EMBED_RATE), 50.0)
    spec *= 10 ** (db_per_octave * np.log2(f / 1000.0) / 20)
    return np.fft.irfft(spec, len(x16k)).astype(np.float32)


@pytest.fixture(scope="module")
def voices(engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    r = VoiceRenderer(engine, TextFrontEnd(phonemizer))
    heart, emma = model_files.stock_pack("af_heart"), model_files.stock_pack("bf_emma")
    heart_other = r.render(heart, 1.0, [OTHER])
    return {
        "heart": r.render16k(heart, 1.0, [TEXT]),
        "emma": r.render16k(emma, 1.0, [TEXT]),
        "heart_other": heart_other,
        "heart_other16k": soxr.resample(heart_other, SAMPLE_RATE, EMBED_RATE).astype(np.float32),
        "emma_other16k": r.render16k(emma, 1.0, [OTHER]),
        "renderer": r,
        "heart_pack": heart,
    }


def _map(scale: float = 1.5, bands: int = 40) -> EnvelopeMap:
    return EnvelopeMap(tuple(range(bands)), np.full(bands, -6.0), np.eye(CEPS - 1) * scale)


def test_streamed_in_any_pieces_is_the_whole_filtered_and_as_long():
    x = (np.random.default_rng(1).standard_normal(SAMPLE_RATE) * 0.1).astype(np.float32)
    whole = _map().apply(x, SAMPLE_RATE)
    assert whole.shape == x.shape and np.abs(whole - x).max() > 0.01  # it does filter
    rng = np.random.default_rng(2)
    for _ in range(5):
        cuts = np.sort(rng.integers(0, len(x), rng.integers(1, 12)))
        pieces = np.split(x, cuts)  # empty and one-sample pieces among them
        out = list(_map().pieces(iter(pieces), SAMPLE_RATE))
        assert all(p.size for p in out)
        np.testing.assert_allclose(np.concatenate(out), whole, atol=1e-6)


def test_an_identity_map_leaves_the_audio_as_it_was():
    x = (np.random.default_rng(3).standard_normal(SAMPLE_RATE // 2) * 0.2).astype(np.float32)
    np.testing.assert_allclose(_map(scale=1.0).apply(x, SAMPLE_RATE), x, atol=1e-6)
    assert _map().apply(np.zeros(0, np.float32), SAMPLE_RATE).size == 0


def test_a_consumer_that_stops_early_closes_what_makes_the_pieces():
    closed = []

    def made():
        try:
            while True:
                yield np.ones(frame_sizes(SAMPLE_RATE)[0], np.float32) * 0.1
        finally:
            closed.append(True)

    out = _map().pieces(made(), SAMPLE_RATE)
    next(out)
    out.close()
    assert closed == [True]


def test_the_map_brings_a_voice_closer_to_a_speaker(voices):
    # The "speaker": bf_emma; the voice: af_heart. Fitted on one text, judged on another.
    m = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]))
    assert m is not None and len(m.bands) >= 36
    mapped = voices["renderer"].render16k(voices["heart_pack"], 1.0, [OTHER], envelope=m)
    before = ahs_distance(voices["heart_other16k"], voices["emma_other16k"])
    after = ahs_distance(mapped, voices["emma_other16k"])
    assert after < 0.92 * before
    # The shape moves, not the level: the loudness and the peaks stay the model's (a peak
    # pushed past full scale would be clipped by the sound card).
    plain = voices["heart_other"]
    through = m.apply(plain, SAMPLE_RATE)
    level = 20 * np.log10(np.sqrt(np.mean(through**2)) / np.sqrt(np.mean(plain**2)))
    assert abs(level) < 0.5
    assert np.abs(through).max() < 1.1 * np.abs(plain).max()


def test_a_telephone_recordings_map_leaves_the_sound_above_its_band(voices):
    speaker = _band_limited(voices["emma"], 300, 3400)
    m = EnvelopeMap.fit(voices["heart"], speaker, guard.band_gain(speaker))
    assert m is not None and 16 <= len(m.bands) < 40
    assert len(m.matrix) == min(CEPS, len(m.bands)) - 1  # no more cepstra than its bands hold
    mapped = voices["renderer"].render16k(voices["heart_pack"], 1.0, [OTHER], envelope=m)
    # Below 3.4 kHz it moves the voice; above, where the recording says nothing, it is as it was.
    lo_change = _band_limited(mapped - voices["heart_other16k"], 300, 3400)
    assert float(np.sqrt(np.mean(lo_change**2))) > 0.1 * float(
        np.sqrt(np.mean(voices["heart_other16k"] ** 2))
    )
    hi_before = _band_limited(voices["heart_other16k"], 4500, 8000)
    hi_after = _band_limited(mapped, 4500, 8000)
    ratio = float(np.sqrt(np.mean(hi_after**2) / np.mean(hi_before**2)))
    assert 0.9 < ratio < 1.1


def test_a_fixed_channel_on_the_recording_hardly_moves_the_map(voices):
    speaker = voices["emma"]
    band = guard.band_gain(speaker)
    plain = EnvelopeMap.fit(voices["heart"], speaker, band)
    tilted = EnvelopeMap.fit(voices["heart"], _tilted(speaker, 4.0), band)
    # The same recording less its first quarter second, half second, ... up to a second:
    shorter = [
        EnvelopeMap.fit(voices["heart"], speaker[int(s * EMBED_RATE) :], band) for s in (0.25, 0.5, 0.75, 1.0)
    ]
    assert plain is not None and tilted is not None and all(m is not None for m in shorter)
    x = voices["heart_other"]
    n_fft, _ = frame_sizes(SAMPLE_RATE)
    spec = np.fft.rfft(
        np.lib.stride_tricks.sliding_window_view(x, n_fft)[:: n_fft // 4] * np.hanning(n_fft), axis=-1
    )
    freqs = np.fft.rfftfreq(n_fft, 1 / SAMPLE_RATE)
    below = (freqs > 100) & (freqs < 8000)

    def gains(m: EnvelopeMap, classes: bool = True) -> np.ndarray:
        m = m if classes else EnvelopeMap(m.bands, m.mean, m.matrix)
        return m.gains_db(spec, SAMPLE_RATE)[:, below]

    def rms(g: np.ndarray) -> float:
        return float(np.sqrt(np.mean(g**2)))

    # A 4 dB/octave tilt is 12 dB between 500 Hz and 4 kHz. The covariance's part hardly moves:
    assert rms(gains(plain, False)) > 1.0
    assert rms(gains(plain, False) - gains(tilted, False)) < 0.15 * rms(gains(plain, False))
    # The sound classes' means are estimated from fewer frames each: the tilt moves them about
    # as much as up to a second less of the same recording does (which cut moves them most
    # changes with the processor's rounding of the renders), far less than the tilt itself, ...
    moved = rms(gains(plain) - gains(tilted))
    assert moved < 1.2 * max(rms(gains(plain) - gains(m)) for m in shorter if m is not None)
    tilt = 4.0 * np.log2(freqs[below])
    assert moved < 0.3 * rms(tilt - tilt.mean())
    # ... and none of it is the tilt: the average gain gains no slope.
    slope = np.polyfit(np.log2(freqs[below]), (gains(tilted) - gains(plain)).mean(axis=0), 1)[0]
    assert abs(slope) < 0.2


def test_no_map_from_a_band_too_narrow_or_a_recording_too_short(voices):
    narrow = _band_limited(voices["emma"], 300, 1500)
    assert EnvelopeMap.fit(voices["heart"], narrow, guard.band_gain(narrow)) is None
    short = voices["emma"][:EMBED_RATE]
    assert EnvelopeMap.fit(voices["heart"], short, guard.band_gain(voices["emma"])) is None


def test_the_map_moves_each_sound_classs_mean_but_not_the_long_term_spectrum(voices):
    # The sound classes' part alone (the mean's detail, which moves too, is the next test's).
    m = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]), mean_smooth=None)
    assert m is not None and m.centres is not None and m.shifts is not None
    assert m.centres.shape == m.shifts.shape == (CLASSES, CEPS - 1)
    # Classes move apart from one another (the sounds' shapes), by a real amount ...
    assert float(np.abs(m.shifts).max()) > 0.3
    # ... and not together: on the voice's own frames the shifts average out, so a fixed
    # channel, which is all in the long-term spectrum, is not learnt.
    x = voices["heart_other"]
    n_fft, _ = frame_sizes(SAMPLE_RATE)
    spec = np.fft.rfft(
        np.lib.stride_tricks.sliding_window_view(x, n_fft)[:: n_fft // 4] * np.hanning(n_fft), axis=-1
    )
    without = EnvelopeMap(m.bands, m.mean, m.matrix)
    extra = m.gains_db(spec, SAMPLE_RATE) - without.gains_db(spec, SAMPLE_RATE)
    loud = np.abs(spec).sum(axis=1) > 0.05 * np.abs(spec).sum(axis=1).max()
    assert float(np.sqrt(np.mean(extra[loud] ** 2))) > 1.0  # frames move ...
    assert float(np.abs(extra[loud].mean(axis=0)).max()) < 0.35 * float(np.sqrt(np.mean(extra[loud] ** 2)))


def test_the_map_moves_the_means_detail_to_the_speakers_but_not_its_smooth_colour(voices):
    """The long-term spectrum's detail (where the voice's resonances lie) moves to the
    speaker's; its level, tilt and bow, which a microphone or a smooth EQ adds, do not."""
    band = guard.band_gain(voices["emma"])
    inside = envelope.bands_inside(band)
    m = EnvelopeMap.fit(voices["heart"], voices["emma"], band)
    plain = EnvelopeMap.fit(voices["heart"], voices["emma"], band, mean_smooth=None)
    assert m is not None and plain is not None and envelope.MEAN_SMOOTH == 3

    def mean(x16k: np.ndarray) -> np.ndarray:
        return envelope._stats(x16k, inside).mean

    def through(e: EnvelopeMap) -> np.ndarray:  # words neither map was made from
        return soxr.resample(e.apply(voices["heart_other"], SAMPLE_RATE), SAMPLE_RATE, EMBED_RATE)

    moved = mean(through(m)) - mean(through(plain))  # natural-log power per band
    wanted = envelope._less_smooth(mean(voices["emma"]) - mean(voices["heart"]), inside, 3)
    # A real move, the way the speaker's mean differs from the voice's ...
    assert np.sqrt(np.mean(moved**2)) * 10 / np.log(10) > 0.5
    assert np.corrcoef(moved, wanted)[0, 1] > 0.7
    # ... and hardly any of it level, tilt or bow.
    smooth = moved - envelope._less_smooth(moved, inside, 3)
    assert np.sqrt(np.mean(smooth**2)) < 0.25 * np.sqrt(np.mean(moved**2))
    # Without the voice's own detail, nothing moves: the same speaker as the voice.
    same = EnvelopeMap.fit(voices["heart"], voices["heart_other16k"], band)
    plain_same = EnvelopeMap.fit(voices["heart"], voices["heart_other16k"], band, mean_smooth=None)
    assert same is not None and plain_same is not None
    alike = mean(through(same)) - mean(through(plain_same))
    assert np.sqrt(np.mean(alike**2)) < 0.5 * np.sqrt(np.mean(moved**2))


def test_the_voice_keeps_its_loudness_and_its_sounds_their_contrast(voices):
    """The map's average gain on the voice is taken off (`level_db`): frames the speaker's
    shape makes louder than that are louder, none by more than HEADROOM_DB; a map stored
    before keeps each frame's power, as it was made."""
    m = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]))
    assert m is not None and m.level_db is not None and abs(m.level_db) < envelope.MAX_GAIN_DB
    x = voices["heart_other"]  # words the map was not made from
    n_fft, hop = frame_sizes(SAMPLE_RATE)
    spec = np.fft.rfft(np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop] * np.hanning(n_fft), axis=-1)
    power = (np.abs(spec) ** 2).sum(axis=1)
    loud = power > 0.01 * power.max()

    def change_db(e: EnvelopeMap) -> np.ndarray:
        after = (np.abs(spec) ** 2 * 10 ** (e.gains_db(spec, SAMPLE_RATE) / 10)).sum(axis=1)
        return 10 * np.log10(after[loud] / power[loud])

    now = change_db(m)
    assert now.max() <= envelope.HEADROOM_DB + 1e-6 and now.std() > 0.5  # contrast, within headroom
    assert abs(10 * np.log10((power[loud] * 10 ** (now / 10)).sum() / power[loud].sum())) < 1.0
    before = EnvelopeMap.from_json({k: v for k, v in m.to_json().items() if k != "level_db"})
    assert before.level_db is None and np.abs(change_db(before)).max() < 1e-6
    back = EnvelopeMap.from_json(m.to_json())
    assert back.level_db == pytest.approx(m.level_db, abs=1e-4)
    for level in (float("nan"), 40.0, "loud"):
        with pytest.raises(ValueError):
            EnvelopeMap.from_json({**m.to_json(), "level_db": level})


def test_a_map_stored_with_fewer_cepstra_reads_and_applies_as_it_was_made(voices, monkeypatch):
    """Maps made before CEPS was 20 moved c1 .. c13: they are read and applied as made."""
    monkeypatch.setattr(envelope, "CEPS", OLD_CEPS)
    old = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]))
    monkeypatch.undo()
    new = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]))
    assert old is not None and new is not None and old.centres is not None
    assert (len(old.matrix), old.centres.shape[1], len(new.matrix)) == (OLD_CEPS - 1, OLD_CEPS - 1, CEPS - 1)
    back = EnvelopeMap.from_json(old.to_json())
    x = voices["heart_other"]
    np.testing.assert_allclose(back.apply(x, SAMPLE_RATE), old.apply(x, SAMPLE_RATE), atol=2e-4)
    assert np.abs(back.apply(x, SAMPLE_RATE) - new.apply(x, SAMPLE_RATE)).max() > 0.01
    # One size's classes with the other's matrix is no map either wrote.
    classes = {k: new.to_json()[k] for k in ("centres", "shifts", "spread")}
    with pytest.raises(ValueError):
        EnvelopeMap.from_json({**old.to_json(), **classes})


def test_stored_and_read_back_and_a_damaged_entry_refused(voices):
    m = _map(1.3, 30)
    back = EnvelopeMap.from_json(m.to_json())
    assert back.bands == m.bands and back.centres is None
    np.testing.assert_allclose(back.matrix, m.matrix, atol=1e-5)
    fitted = EnvelopeMap.fit(voices["heart"], voices["emma"], guard.band_gain(voices["emma"]))
    assert fitted is not None and fitted.centres is not None and fitted.shifts is not None
    again = EnvelopeMap.from_json(fitted.to_json())
    assert again.centres is not None and again.shifts is not None
    np.testing.assert_allclose(again.centres, fitted.centres, atol=1e-5)
    np.testing.assert_allclose(again.shifts, fitted.shifts, atol=1e-5)
    assert abs(again.spread - fitted.spread) < 1e-6 * max(1.0, fitted.spread)
    classes = fitted.to_json()
    for damaged_classes in (
        {**classes, "shifts": classes["shifts"][:-1]},
        {**classes, "centres": [[0.0] * 3] * 4, "shifts": [[0.0] * 3] * 4},
        {**classes, "spread": -1.0},
        {**classes, "shifts": [[float("inf")] * (CEPS - 1)] * CLASSES},
    ):
        with pytest.raises((ValueError, KeyError, TypeError)):
            EnvelopeMap.from_json(damaged_classes)
    good = m.to_json()
    for damaged in (
        None,
        [],
        {**good, "bands": good["bands"][:5], "mean": good["mean"][:5]},
        {**good, "mean": good["mean"][:-1]},
        {**good, "matrix": [[1.0]]},
        {**good, "matrix": (np.eye(CEPS - 1) * 10).tolist()},
        {**good, "mean": [float("nan")] * len(good["mean"])},
        {**good, "bands": [50] * len(good["bands"])},
    ):
        with pytest.raises((ValueError, KeyError, TypeError)):
            EnvelopeMap.from_json(damaged)


def test_a_read_streams_each_chunk_through_the_engines_envelope_map(engine, phonemizer):
    from tray_reader.text.frontend import TextFrontEnd

    ids = VoiceRenderer(engine, TextFrontEnd(phonemizer)).ids(OTHER)[0]
    pack = model_files.stock_pack("af_heart")
    # The same windows every run: the product's schedule sizes them by the time left, and
    # on a busy machine two runs' windows (and so their audio) differ.
    engine = dataclasses.replace(engine, schedule=growing(engine.plan))
    plain = np.concatenate(list(engine.stream(ids, pack, 1.0)))
    m = _map(1.4)
    engine.use_envelope(m)
    try:
        mapped = np.concatenate(list(engine.stream(ids, pack, 1.0)))
    finally:
        engine.use_envelope(None)
    assert mapped.shape == plain.shape
    np.testing.assert_allclose(mapped, m.apply(plain, SAMPLE_RATE), atol=0.02)
    assert float(np.abs(mapped - plain).max()) > 0.05
