"""Recording preprocessing for enrolment: decode, mono, resample, trim, normalise, check.

`load_audio` decodes a file: anything libsndfile reads (WAV, FLAC, OGG, MP3 on recent
libsndfile), and other formats (a phone's M4A, AAC, Opus in WebM, a video's sound track)
through `ffmpeg` when the user has it installed (an optional program, run as a subprocess).
`prepare` turns samples into a `Recording`: sound below the voice removed (a DC
offset, rumble: `clean_low`), speech only (a simple energy VAD drops silence and
shortens long pauses), loudness-normalised, at 16 kHz (embedder) and 24 kHz (Kokoro's
rate), with the checks' warnings. Bad input raises EnrollmentError.
"""

from __future__ import annotations

import io
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soxr

from tray_reader.errors import EnrollmentError

EMBED_RATE = 16_000
KOKORO_RATE = 24_000
MIN_SPEECH_SECONDS = 5.0
MAX_SPEECH_SECONDS = 30.0
LONG_INPUT_SECONDS = 60.0
FRAME_SECONDS = 0.02
TARGET_RMS_DB = -20.0
KEEP_PAUSE_SECONDS = 0.25
CLIP_LEVEL = 0.99
CLIP_WARN = 0.001
CLIP_REJECT = 0.02
LOW_SNR_DB = 15.0
DECODE_RATE = 24_000
"""The rate `ffmpeg` decodes to: above every band the checks and the models look at (8 kHz)."""
DECODE_MAX_SECONDS = 600.0
"""How much of a file `ffmpeg` decodes (enrolment keeps at most MAX_SPEECH_SECONDS of speech;
an hour-long file would otherwise take gigabytes)."""
DECODE_TIMEOUT_SECONDS = 120.0
HIGH_PASS_HZ = 70.0
"""Below the lowest speaking voices (about 80 Hz for a deep voice): a DC offset, handling
noise, a fan's or a car's rumble. Removed by a zero-phase 4th-order Butterworth magnitude."""


@dataclass(frozen=True)
class Recording:
    """A recording ready for enrolment."""

    speech16k: np.ndarray
    """Trimmed, normalised speech, float32 mono at 16 kHz."""
    speech24k: np.ndarray
    """The same speech at 24 kHz (resampled from the 16 kHz copy, so band-limited to 8 kHz)."""
    source_seconds: float
    """Length of the input before trimming."""
    speech_seconds: float
    """Length of the speech kept."""
    snr_db: float
    """Estimated speech-to-noise ratio."""
    clipped: float
    """Fraction of input samples at full scale."""
    warnings: tuple[str, ...]
    """Problems worth telling the user that did not stop enrolment."""


LIBSNDFILE_SUFFIXES = ("wav", "flac", "ogg", "oga", "opus", "mp3", "aiff", "aif")
FFMPEG_SUFFIXES = ("m4a", "aac", "mp4", "webm", "mkv", "wma", "amr", "3gp", "caf")


def readable_suffixes() -> tuple[str, ...]:
    """The file name endings `load_audio` is expected to read on this machine."""
    return LIBSNDFILE_SUFFIXES + (FFMPEG_SUFFIXES if shutil.which("ffmpeg") else ())


def formats_named() -> str:
    """The formats `load_audio` reads, for a label or a help text."""
    return "WAV, FLAC, OGG, MP3" + (", M4A and more (through ffmpeg)" if shutil.which("ffmpeg") else "")


def load_audio(path: Path) -> tuple[np.ndarray, int]:
    """Decode an audio file to float32 mono samples and their rate."""
    import soundfile

    path = Path(path)
    if path.is_dir():
        raise EnrollmentError(f"{path} is a folder; give a recording in it (WAV, FLAC, OGG, MP3, M4A…).")
    if not path.is_file():
        raise EnrollmentError(f"{path}: no such file.")
    if path.stat().st_size == 0:
        raise EnrollmentError(f"{path} is empty. Check that the recording was saved or copied completely.")
    try:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError, ValueError) as e:
        ffmpeg = shutil.which("ffmpeg")
        if ffmpeg is None:
            raise EnrollmentError(
                f"{path} is not an audio file tray-reader can read ({e}). Use WAV, FLAC, OGG or "
                "MP3, or install ffmpeg (`sudo apt install ffmpeg`) and tray-reader reads other "
                "formats too, such as a phone's M4A."
            ) from None
        data, rate = soundfile.read(
            io.BytesIO(_decode_with_ffmpeg(ffmpeg, path)), dtype="float32", always_2d=True
        )
    if data.size == 0:
        raise EnrollmentError(f"{path} holds no audio.")
    return data.mean(axis=1).astype(np.float32), int(rate)


def _decode_with_ffmpeg(ffmpeg: str, path: Path) -> bytes:
    """The file's first sound track at DECODE_RATE, as a float WAV stream from the `ffmpeg`
    program (with the track's own channels: its down-mix to one channel raises a stereo file
    by 3 dB, and would take a file near full scale for a clipped one)."""
    command = [
        ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error",
        "-t", f"{DECODE_MAX_SECONDS:.0f}", "-i", str(path),
        "-map", "0:a:0", "-ar", str(DECODE_RATE), "-c:a", "pcm_f32le", "-f", "wav", "pipe:1",
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, timeout=DECODE_TIMEOUT_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise EnrollmentError(
            f"{path}: ffmpeg took over {DECODE_TIMEOUT_SECONDS:.0f} s to decode it; "
            "convert it to WAV or FLAC and try again."
        ) from None
    except OSError as e:
        raise EnrollmentError(f"{path}: ffmpeg could not be run ({e}).") from None
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        if any("matches no streams" in line for line in said):
            raise EnrollmentError(f"{path} has no sound track (ffmpeg found none).")
        reason = said[0].removeprefix(f"{path}: ") if said else f"exit status {done.returncode}"
        raise EnrollmentError(f"{path} is not an audio file tray-reader can read (ffmpeg: {reason}).")
    return done.stdout


def _frame_db(x: np.ndarray, frame: int) -> np.ndarray:
    n = len(x) // frame
    frames = x[: n * frame].reshape(n, frame).astype(np.float64)
    return np.asarray(10 * np.log10(np.mean(frames**2, axis=1) + 1e-12))


def speech_mask(x: np.ndarray, rate: int) -> tuple[np.ndarray, float, float]:
    """Per-frame speech flags (energy VAD with hangover), noise floor dB, speech level dB."""
    frame = int(FRAME_SECONDS * rate)
    db = _frame_db(x, frame)
    if len(db) == 0:
        return np.zeros(0, bool), -120.0, -120.0
    floor = float(np.percentile(db, 10))
    peak = float(np.percentile(db, 98))
    # Above the noise floor by 12 dB, or half-way to the speech peaks when noise is loud.
    threshold = max(min(floor + 12.0, (floor + peak) / 2), peak - 40.0, -65.0)
    raw = db > threshold
    # Hangover: keep 100 ms around each speech frame so word edges are not cut.
    k = max(1, int(0.1 / FRAME_SECONDS))
    mask = np.convolve(raw.astype(float), np.ones(2 * k + 1), mode="same") > 0
    speech_db = float(10 * np.log10(np.mean(10 ** (db[raw] / 10)))) if raw.any() else floor
    return mask, floor, speech_db


def _trim(x: np.ndarray, rate: int, mask: np.ndarray) -> np.ndarray:
    """Speech frames, with each pause between them shortened to KEEP_PAUSE_SECONDS."""
    frame = int(FRAME_SECONDS * rate)
    keep_pause = int(KEEP_PAUSE_SECONDS / FRAME_SECONDS)
    keep = mask.copy()
    run = 0
    for i, m in enumerate(mask):
        run = 0 if m else run + 1
        if not m and run <= keep_pause and i > 0 and mask[:i].any():
            keep[i] = True
    idx = np.flatnonzero(keep)
    if len(idx) == 0:
        return np.zeros(0, np.float32)
    return np.concatenate([x[i * frame : (i + 1) * frame] for i in idx]).astype(np.float32)


def clean_low(x: np.ndarray, rate: int) -> np.ndarray:
    """``x`` without what is below HIGH_PASS_HZ (a DC offset, rumble): zero-phase, in the
    frequency domain over the whole recording (at most a few million samples). Such sound
    would otherwise count as speech or as noise floor in the level checks, and be copied
    into the voice."""
    pad = rate // 2  # the filter rings for a few tens of ms: keep the ends from wrapping round
    n = len(x) + 2 * pad
    spec = np.fft.rfft(np.pad(x.astype(np.float64), pad))
    r = np.fft.rfftfreq(n, 1.0 / rate) / HIGH_PASS_HZ
    gain = r**4 / np.sqrt(1.0 + r**8)  # |H| of a 4th-order Butterworth high-pass; 0 at DC
    return np.fft.irfft(spec * gain, n)[pad : n - pad].astype(np.float32)


def _loudest_window(x: np.ndarray, rate: int, seconds: float) -> np.ndarray:
    n = int(seconds * rate)
    if len(x) <= n:
        return x
    step = rate
    best, best_db = 0, -np.inf
    for start in range(0, len(x) - n + 1, step):
        db = np.median(_frame_db(x[start : start + n], int(FRAME_SECONDS * rate)))
        if db > best_db:
            best, best_db = start, db
    return x[best : best + n]


def prepare(samples: np.ndarray, rate: int, from_start: bool = False) -> Recording:
    """Check and clean a recording; raise EnrollmentError with what to do if it is unusable.
    Of more than MAX_SPEECH_SECONDS of speech, the clearest stretch is kept, or with
    ``from_start`` (the recording reads a text given) the first, whose words are the text's
    first words."""
    x = np.asarray(samples, dtype=np.float32)
    if x.ndim == 2:
        x = x.mean(axis=1)
    if rate < 8000:
        raise EnrollmentError(
            f"The recording's sample rate ({rate} Hz) is too low; record at 16 kHz or more."
        )
    source_seconds = len(x) / rate
    if not np.all(np.isfinite(x)):
        raise EnrollmentError("The recording holds invalid samples (NaN or infinity).")
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if peak < 1e-4 and source_seconds < MIN_SPEECH_SECONDS:  # a file cut short, more likely
        raise EnrollmentError(
            f"The recording is too short: it lasts {source_seconds:.1f} s; at least "
            f"{MIN_SPEECH_SECONDS:.0f} s of speech are needed (about 30 s is best). If it should "
            "be longer, check that it was saved or copied completely."
        )
    if peak < 1e-4:
        raise EnrollmentError(
            "The recording is silent. Check that the right microphone is selected and unmuted."
        )
    warnings: list[str] = []
    clipped = float(np.mean(np.abs(x) >= CLIP_LEVEL))
    if clipped > CLIP_REJECT:
        raise EnrollmentError(
            f"The recording is heavily clipped ({clipped:.1%} of samples at full scale). "
            "Lower the microphone gain or move back from it, and record again."
        )
    if clipped > CLIP_WARN:
        warnings.append(f"some clipping ({clipped:.2%} of samples at full scale)")
    # A DC offset goes before the resampler, whose edges would make a step of it.
    x = x - np.float32(np.mean(x, dtype=np.float64))
    x16 = soxr.resample(x, rate, EMBED_RATE, quality="HQ").astype(np.float32) if rate != EMBED_RATE else x
    x16 = clean_low(x16, EMBED_RATE)
    mask, floor_db, speech_db = speech_mask(x16, EMBED_RATE)
    speech_seconds = float(mask.sum() * FRAME_SECONDS)
    if speech_seconds < MIN_SPEECH_SECONDS:
        if mask.mean() < 0.2 and source_seconds >= MIN_SPEECH_SECONDS:
            raise EnrollmentError(
                f"The recording is mostly silence (only {speech_seconds:.1f} s of speech in "
                f"{source_seconds:.1f} s). Speak closer to the microphone, for about 30 seconds."
            )
        raise EnrollmentError(
            f"The recording is too short: {speech_seconds:.1f} s of speech after trimming silence; "
            f"at least {MIN_SPEECH_SECONDS:.0f} s are needed (about 30 s is best)."
        )
    snr_db = speech_db - floor_db
    if snr_db < LOW_SNR_DB:
        warnings.append(f"background noise is high (speech only {snr_db:.0f} dB above it)")
    speech = _trim(x16, EMBED_RATE, mask)
    if len(speech) / EMBED_RATE > MAX_SPEECH_SECONDS:
        which = "first" if from_start else "clearest"
        if source_seconds > LONG_INPUT_SECONDS:
            warnings.append(f"long recording: the {which} {MAX_SPEECH_SECONDS:.0f} s of speech were used")
        if from_start:
            speech = speech[: int(MAX_SPEECH_SECONDS * EMBED_RATE)]
        else:
            speech = _loudest_window(speech, EMBED_RATE, MAX_SPEECH_SECONDS)
    rms_db = 10 * np.log10(np.mean(speech.astype(np.float64) ** 2) + 1e-12)
    speech = speech * np.float32(10 ** ((TARGET_RMS_DB - rms_db) / 20))
    top = float(np.max(np.abs(speech)))
    if top > 0.95:
        speech = speech * np.float32(0.95 / top)
    speech24 = soxr.resample(speech, EMBED_RATE, KOKORO_RATE, quality="HQ").astype(np.float32)
    return Recording(
        speech16k=speech.astype(np.float32),
        speech24k=speech24,
        source_seconds=source_seconds,
        speech_seconds=len(speech) / EMBED_RATE,
        snr_db=float(snr_db),
        clipped=clipped,
        warnings=tuple(warnings),
    )
