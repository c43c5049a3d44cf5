"""Voice measures that do not use the speaker encoder (numpy only).

* `ahs_distance`: the arithmetic-harmonic sphericity distance (Bimbot et al. 1995) between
  the covariance matrices of two clips' MFCCs (+ deltas), after cepstral mean normalisation,
  so a fixed channel filter (microphone, band limits that are equal in both) cancels out.
  Text-independent; 0 for identical statistics, larger is further apart. It is the bench's
  second, independent judge of enrolment.
* `pitch_stats`: median F0 (Hz) and the spread of log F0 of voiced frames (autocorrelation).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from tray_reader.voices.embedder import mel_filterbank

RATE = 16_000
N_FFT = 512
HOP = 160
WIN = 400
N_CEPS = 20


@cache
def _dct_matrix(n_in: int, n_out: int) -> np.ndarray:
    k = np.arange(n_out)[:, None]
    n = np.arange(n_in)[None, :]
    m = np.cos(np.pi * k * (2 * n + 1) / (2 * n_in)) * np.sqrt(2.0 / n_in)
    m[0] /= np.sqrt(2.0)
    return np.asarray(m)


def _frames(x: np.ndarray, size: int, hop: int) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if len(x) < size:
        x = np.concatenate([x, np.zeros(size - len(x))])
    return np.lib.stride_tricks.sliding_window_view(x, size)[::hop]


def mfcc(x16k: np.ndarray) -> np.ndarray:
    """MFCC c1..c19 of the louder (speech) frames, [frames, 19]."""
    frames = _frames(x16k, WIN, HOP) * np.hamming(WIN)
    power = np.abs(np.fft.rfft(frames, n=N_FFT, axis=-1)) ** 2
    logmel = np.log(power @ mel_filterbank(RATE, N_FFT, 40).T.astype(np.float64) + 1e-8)
    energy = 10 * np.log10(power.sum(axis=1) + 1e-12)
    speech = energy > np.percentile(energy, 98) - 35
    ceps = logmel @ _dct_matrix(40, N_CEPS).T
    return np.asarray(ceps[speech, 1:])


def _features(x16k: np.ndarray) -> np.ndarray:
    c = mfcc(x16k)
    c = c - c.mean(axis=0)  # cepstral mean normalisation: removes a fixed channel
    delta = np.gradient(c, axis=0) if len(c) > 2 else np.zeros_like(c)
    return np.hstack([c, delta])


def ahs_distance(a16k: np.ndarray, b16k: np.ndarray) -> float:
    """Arithmetic-harmonic sphericity distance of two clips' feature covariances."""
    fa, fb = _features(a16k), _features(b16k)
    d = fa.shape[1]
    ca = np.cov(fa, rowvar=False) + 1e-6 * np.eye(d)
    cb = np.cov(fb, rowvar=False) + 1e-6 * np.eye(d)
    t1 = np.trace(ca @ np.linalg.inv(cb))
    t2 = np.trace(cb @ np.linalg.inv(ca))
    return float(np.log(t1 * t2 / d**2))


def pitch_stats(x16k: np.ndarray) -> tuple[float, float]:
    """(median F0 in Hz, standard deviation of log2 F0) over voiced frames; (0, 0) if none."""
    size, hop = 640, 160
    frames = _frames(x16k, size, hop)
    frames = frames - frames.mean(axis=1, keepdims=True)
    energy = (frames**2).mean(axis=1)
    loud = energy > np.percentile(energy, 90) * 0.05
    frames = frames[loud]
    if len(frames) == 0:
        return 0.0, 0.0
    spec = np.fft.rfft(frames * np.hanning(size), n=2 * size, axis=-1)
    ac = np.fft.irfft(np.abs(spec) ** 2, axis=-1)[:, :size]
    ac = ac / (ac[:, :1] + 1e-12)
    lo, hi = RATE // 420, RATE // 60
    lag = lo + np.argmax(ac[:, lo:hi], axis=1)
    peak = ac[np.arange(len(ac)), lag]
    voiced = peak > 0.45
    if voiced.sum() < 5:
        return 0.0, 0.0
    f0 = RATE / lag[voiced]
    return float(np.median(f0)), float(np.std(np.log2(f0)))
