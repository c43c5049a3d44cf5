"""Recording checks: each bad recording gets its own message; good ones are trimmed and normalised."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import soundfile
import soxr

from tray_reader.errors import EnrollmentError
from tray_reader.voices import preprocess
from tray_reader.voices.checks import measure
from tray_reader.voices.preprocess import DECODE_RATE, clean_low, load_audio, prepare
from tray_reader.voices.record import MemorySource, level_db, meter, record

RATE = 22_050


def speechlike(seconds: float, rate: int = RATE, seed: int = 0, pitch: float = 140) -> np.ndarray:
    """Voiced syllables (harmonics of a moving F0 around ``pitch``) 0.25 s on, 0.08 s off."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    f0 = pitch + pitch / 5 * np.sin(2 * np.pi * 0.7 * t)
    phase = 2 * np.pi * np.cumsum(f0) / rate
    voice = sum(np.sin(h * phase) / h for h in range(1, 12))
    gate = ((t % 0.33) < 0.25).astype(float)
    x = 0.2 * voice * gate + 0.001 * rng.normal(size=len(t))
    return x.astype(np.float32)


def write(path, x, rate=RATE, **kw):
    soundfile.write(str(path), x, rate, **kw)
    return path


def test_a_good_recording_is_trimmed_and_normalised():
    silence = np.zeros(2 * RATE, np.float32)
    x = np.concatenate([silence, speechlike(8), silence, speechlike(4, seed=1), silence])
    rec = prepare(x, RATE)
    assert 10 <= rec.speech_seconds <= 13.5  # 12 s of speech, pauses shortened
    assert rec.source_seconds == pytest.approx(18, abs=0.01)
    rms = 10 * np.log10(np.mean(rec.speech16k.astype(np.float64) ** 2))
    assert rms == pytest.approx(-20, abs=1.5)
    assert len(rec.speech24k) == pytest.approx(len(rec.speech16k) * 1.5, rel=0.01)
    assert rec.warnings == ()


@pytest.mark.parametrize("fmt", ["WAV", "FLAC", "OGG", "MP3"])
def test_formats_decode(tmp_path, fmt):
    path = write(tmp_path / f"a.{fmt.lower()}", np.stack([speechlike(6)] * 2, axis=1), format=fmt)
    x, rate = load_audio(path)
    # MP3 adds the encoder's delay and padding (a few ms)
    assert rate == RATE and x.ndim == 1 and len(x) == pytest.approx(6 * RATE, rel=0.02)
    assert prepare(x, rate).speech_seconds > 5


def test_not_audio(tmp_path):
    path = tmp_path / "notes.wav"
    path.write_text("this is not audio")
    with pytest.raises(EnrollmentError, match="not an audio file"):
        load_audio(path)
    with pytest.raises(EnrollmentError, match="no such file"):
        load_audio(tmp_path / "missing.wav")


def ffmpeg(*args) -> None:
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *map(str, args)], check=True)


@pytest.mark.parametrize("suffix, codec", [("m4a", "aac"), ("webm", "libopus")])
def test_a_phones_recording_is_read_through_ffmpeg(tmp_path, suffix, codec):
    wav = write(tmp_path / "a.wav", np.stack([speechlike(6)] * 2, axis=1))
    path = tmp_path / f"memo.{suffix}"
    ffmpeg("-i", wav, "-c:a", codec, "-b:a", "96k", path)
    with pytest.raises(soundfile.LibsndfileError):
        soundfile.read(str(path))  # what the file is: one libsndfile does not read
    x, rate = load_audio(path)
    assert rate == DECODE_RATE and x.dtype == np.float32 and x.ndim == 1
    assert len(x) == pytest.approx(6 * DECODE_RATE, rel=0.03)  # the codec's priming and padding
    # The same sound: its level and its spectrum up to 4 kHz survive the codec and the resampling.
    ref = soxr.resample(speechlike(6), RATE, DECODE_RATE)
    assert 20 * np.log10(np.std(x) / np.std(ref)) == pytest.approx(0, abs=1.0)
    n = min(len(x), len(ref))
    band = slice(0, n * 4000 // DECODE_RATE)
    heard, sent = (np.log(np.abs(np.fft.rfft(v[:n]))[band] + 1e-3) for v in (x, ref))
    assert np.corrcoef(heard, sent)[0, 1] > 0.9
    rec = prepare(x, rate)
    assert rec.speech_seconds > 5 and rec.warnings == ()


def test_a_file_without_sound_or_ffmpeg_says_why(tmp_path, monkeypatch):
    video = tmp_path / "silent.mp4"
    ffmpeg("-f", "lavfi", "-i", "color=c=black:s=64x64:d=1", "-c:v", "mpeg4", video)
    with pytest.raises(EnrollmentError, match=r"silent.mp4 has no sound track"):
        load_audio(video)
    memo = tmp_path / "memo.m4a"
    ffmpeg("-i", write(tmp_path / "a.wav", speechlike(2)), "-c:a", "aac", memo)
    monkeypatch.setattr(preprocess.shutil, "which", lambda name: None)
    with pytest.raises(EnrollmentError, match=r"install ffmpeg \(`sudo apt install ffmpeg`\)"):
        load_audio(memo)
    assert "m4a" not in preprocess.readable_suffixes() and "M4A" not in preprocess.formats_named()
    monkeypatch.undo()
    assert "m4a" in preprocess.readable_suffixes() and "M4A" in preprocess.formats_named()


def test_silent():
    with pytest.raises(EnrollmentError, match="silent"):
        prepare(np.zeros(10 * RATE, np.float32), RATE)


def test_a_file_cut_short_is_too_short_not_silent(tmp_path):
    with pytest.raises(EnrollmentError, match=r"too short: it lasts 0\.0 s; at least 5 s of speech"):
        prepare(np.zeros(RATE // 100, np.float32), RATE)  # what is left of a WAV cut after its header
    empty = tmp_path / "memo.wav"
    empty.write_bytes(b"")
    with pytest.raises(EnrollmentError, match=r"memo.wav is empty. Check that the recording was saved"):
        load_audio(empty)


def test_too_short():
    x = np.concatenate([np.zeros(RATE // 2, np.float32), speechlike(3), np.zeros(RATE // 2, np.float32)])
    with pytest.raises(EnrollmentError, match="too short: [23]\\.\\d s of speech"):
        prepare(x, RATE)


def test_mostly_silence():
    x = np.concatenate([speechlike(3), np.zeros(25 * RATE, np.float32)])
    with pytest.raises(EnrollmentError, match="mostly silence"):
        prepare(x, RATE)


def test_heavy_clipping_is_rejected_and_mild_clipping_warned():
    x = speechlike(10)
    with pytest.raises(EnrollmentError, match="clipped"):
        prepare(np.clip(x * 20, -1, 1), RATE)
    mild = x.copy()
    mild[:: RATE // 100][:500] = 1.0  # 0.23 % of samples at full scale
    assert any("clipping" in w for w in prepare(mild, RATE).warnings)


def test_noise_is_warned():
    rng = np.random.default_rng(3)
    x = speechlike(10) + 0.06 * rng.normal(size=10 * RATE).astype(np.float32)
    assert any("noise" in w for w in prepare(x, RATE).warnings)


def _rumble(n: int, seed: int = 4) -> np.ndarray:
    """Noise below 30 Hz (wind on the microphone, a car, a desk knocked), at unit RMS."""
    spec = np.fft.rfft(np.random.default_rng(seed).normal(size=n))
    spec[np.fft.rfftfreq(n, 1 / RATE) > 30] = 0
    x = np.fft.irfft(spec, n)
    return (x / x.std()).astype(np.float32)


@pytest.mark.parametrize("what", ["DC offset", "rumble"])
def test_sound_below_the_voice_is_removed_not_taken_for_speech_or_noise(what):
    silence = np.zeros(RATE, np.float32)
    clean = 0.2 * np.concatenate([silence, speechlike(6), silence, speechlike(6, seed=1), silence])
    level = float(np.sqrt(np.mean(clean**2)))
    n = len(clean)
    added = {
        "DC offset": np.full(n, 0.1, np.float32),
        "rumble": 2 * level * _rumble(n),
    }[what]
    before, after = prepare(clean, RATE), prepare(clean + added, RATE)
    assert after.warnings == ()  # no "background noise is high": it was all removed
    assert after.snr_db > 20
    assert after.speech_seconds == pytest.approx(before.speech_seconds, rel=0.05)
    # The speech itself comes through (its level and pitch).
    assert measure(after.speech16k).voiced == pytest.approx(measure(before.speech16k).voiced, abs=0.05)
    voice = (before.speech16k, after.speech16k)
    spectra = [_spectrum_db(v)[(FREQS > 100) & (FREQS < 4000)] for v in voice]
    assert np.mean(np.abs(spectra[0] - spectra[1])) < 1.0


FREQS = np.fft.rfftfreq(1024, 1 / 16_000)


def _spectrum_db(x: np.ndarray) -> np.ndarray:
    """Long-term power spectrum (1024-point frames at 16 kHz), dB."""
    frames = x[: len(x) // 1024 * 1024].reshape(-1, 1024) * np.hanning(1024)
    return 10 * np.log10(np.mean(np.abs(np.fft.rfft(frames, axis=1)) ** 2, axis=0) + 1e-12)


def test_a_deep_voice_keeps_its_pitch():
    x = speechlike(8, pitch=85)
    y = clean_low(x, RATE)
    assert measure(prepare(y, RATE).speech16k).voiced == pytest.approx(
        measure(prepare(x, RATE).speech16k).voiced, abs=0.02
    )
    # Its fundamental loses little: at most 3 dB of the whole signal's energy.
    assert 10 * np.log10(np.sum(x.astype(np.float64) ** 2) / np.sum(y.astype(np.float64) ** 2)) < 3


def test_long_recordings_keep_at_most_30_seconds():
    rec = prepare(speechlike(70), RATE)
    assert rec.speech_seconds == pytest.approx(30, abs=0.1)
    assert any("clearest 30 s" in w for w in rec.warnings)


def test_a_long_reading_of_a_text_keeps_its_first_30_seconds():
    """Its words are the text's first (enrolment aligns them from the text's start): the
    clearer later stretch is not taken."""
    x = np.concatenate([0.3 * speechlike(40), speechlike(40, seed=1)])  # louder later
    clearest, first = prepare(x, RATE), prepare(x, RATE, from_start=True)
    assert first.speech_seconds == pytest.approx(30, abs=0.1) and any(
        "first 30 s" in w for w in first.warnings
    )
    start = prepare(x[: 20 * RATE], RATE).speech16k  # the first 20 s alone, trimmed the same way
    n = len(start) - 16_000
    level = np.sqrt(np.mean(first.speech16k[:n] ** 2)) / np.sqrt(np.mean(start[:n] ** 2))
    assert np.allclose(first.speech16k[:n] / level, start[:n], atol=1e-3)
    assert not np.allclose(clearest.speech16k[:n] / level, start[:n], atol=1e-3)


def test_record_from_a_memory_source_stops_at_the_limit_or_on_request():
    import threading

    x = speechlike(5, rate=16_000)
    levels = []
    got = record(MemorySource(x, 16_000), max_seconds=2.0, on_level=lambda t, db: levels.append((t, db)))
    assert len(got) == 32_000 and levels[-1][0] == pytest.approx(2.0)
    assert max(db for _, db in levels) > -30
    stop = threading.Event()
    stop.set()
    with pytest.raises(EnrollmentError, match="Nothing was recorded"):
        record(MemorySource(x, 16_000), stop=stop)
    assert len(record(MemorySource(x, 16_000), max_seconds=20)) == len(x)


def test_level_meter():
    assert level_db(np.zeros(100, np.float32)) == -100
    assert level_db(np.ones(100, np.float32)) == pytest.approx(0, abs=0.01)
    assert meter(0.0, 10) == "#" * 10 and meter(-100, 10) == "-" * 10
