"""Voice measures that do not use the speaker encoder (numpy only).

* `ahs_distance`: the arithmetic-harmonic sphericity distance (Bimbot et al. 1995) between
  the covariance matrices of two clips' MFCCs (+ deltas), after cepstral mean normalisation,
  so a fixed channel filter (microphone, band limits that are equal in both) cancels out.
  Text-independent; 0 for identical statistics, larger is further apart. It is the bench's
  second, independent judge of enrolment.
* `pitch_track`, `pitch_stats`: a checked F0 track (autocorrelation, octave errors folded
  back or dropped against the recording's own median), its median and log spread.
  `PitchTrack.voiced_rate`: voiced stretches per second of speech, a text-free
  speaking-rate proxy.
"""

from __future__ import annotations

from dataclasses import dataclass
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


def mfcc(x16k: np.ndarray) -> np.ndarray:
    """MFCC c1..c19 of the louder (speech) frames, [frames, 19]."""
    frames = windows(x16k, WIN, HOP) * np.hamming(WIN)
    power = np.abs(np.fft.rfft(frames, n=N_FFT, axis=-1)) ** 2
    logmel = np.log(power @ mel_filterbank(RATE, N_FFT, 40).T.astype(np.float64) + 1e-8)
    energy = 10 * np.log10(power.sum(axis=1) + 1e-12)
    speech = energy > np.percentile(energy, 98) - 35
    ceps = logmel @ _dct_matrix(40, N_CEPS).T
    return np.asarray(ceps[speech, 1:])


def features(x16k: np.ndarray) -> np.ndarray:
    """MFCCs after cepstral mean normalisation, with their deltas [frames, 38]."""
    c = mfcc(x16k)
    c = c - c.mean(axis=0)  # cepstral mean normalisation: removes a fixed channel
    delta = np.gradient(c, axis=0) if len(c) > 2 else np.zeros_like(c)
    return np.hstack([c, delta])


COVARIANCE_FLOOR = 1e-3
"""Every direction of a covariance is given at least this share of its mean variance
(`regularised`). Through a telephone band, the cepstra of what lies above the band barely
move, and a render varying a little more along those directions made the distance large for
a voice that was closer on the speaker's other recording (docs/benchmarks.md); on wideband
speech every direction varies far more than the floor, which leaves it alone."""


def regularised(c: np.ndarray) -> np.ndarray:
    """Covariance matrices [..., d, d] with COVARIANCE_FLOOR of their mean variance added to the
    diagonal (at least 1e-6): directions the clips hardly vary along do not weigh in the distance."""
    d = c.shape[-1]
    mean = np.trace(c, axis1=-2, axis2=-1) / d
    floor = np.maximum(1e-6, COVARIANCE_FLOOR * mean)
    return np.asarray(c + np.asarray(floor)[..., None, None] * np.eye(d))


def covariance(feats: np.ndarray) -> np.ndarray:
    """The regularised covariance of feature frames [frames, d]."""
    return regularised(np.cov(feats, rowvar=False))


def sphericity(ca: np.ndarray, cb: np.ndarray) -> np.ndarray:
    """Arithmetic-harmonic sphericity distance of two covariance matrices (or of two
    stacks of them, pairwise)."""
    d = ca.shape[-1]
    t1 = np.einsum("...ij,...ji->...", ca, np.linalg.inv(cb))
    t2 = np.einsum("...ij,...ji->...", cb, np.linalg.inv(ca))
    return np.asarray(np.log(t1 * t2 / d**2))


def ahs_distance(a16k: np.ndarray, b16k: np.ndarray) -> float:
    """Arithmetic-harmonic sphericity distance of two clips' feature covariances."""
    return float(sphericity(covariance(features(a16k)), covariance(features(b16k))))


PITCH_WINDOW = 640
"""Samples per pitch frame: long enough for two periods of the lowest pitch looked for."""
PITCH_HOP = 160
"""Samples between pitch frames."""
LOWEST_HZ = 60
"""The lowest pitch looked for."""
VOICED_PEAK = 0.45
"""Normalised autocorrelation peak above which a frame is voiced."""
OCTAVE_SLACK = 0.75
"""A frame further than this many octaves from the recording's median is an octave error
unless its period's double (or half) is as periodic; else it is dropped."""
MIN_RUN = 3
"""Frames a voiced stretch lasts at least, for `PitchTrack.voiced_rate`."""


def windows(x: np.ndarray, size: int, hop: int) -> np.ndarray:
    """Windows of ``size`` samples every ``hop`` (a short signal padded to one window)."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < size:
        x = np.concatenate([x, np.zeros(size - len(x))])
    return np.lib.stride_tricks.sliding_window_view(x, size)[::hop]


def autocorrelation(x16k: np.ndarray, hop: int, highest_hz: int) -> tuple[np.ndarray, ...]:
    """Per window of PITCH_WINDOW samples every ``hop``: the normalised autocorrelation
    [windows, lags], the lag of its peak between ``highest_hz`` and LOWEST_HZ, the peak, and
    the window's mean power (after removing its mean)."""
    size = PITCH_WINDOW
    w = windows(x16k, size, hop)
    w = w - w.mean(axis=1, keepdims=True)
    power = (w**2).mean(axis=1)
    spec = np.fft.rfft(w * np.hanning(size), n=2 * size, axis=-1)
    ac = np.fft.irfft(np.abs(spec) ** 2, axis=-1)[:, :size]
    ac = ac / (ac[:, :1] + 1e-12)
    lo, hi = RATE // highest_hz, RATE // LOWEST_HZ
    lag = lo + np.argmax(ac[:, lo:hi], axis=1)
    peak = ac[np.arange(len(ac)), lag]
    return ac, lag, peak, power


@dataclass(frozen=True)
class PitchTrack:
    """A checked F0 track (`pitch_track`), one value per PITCH_HOP samples."""

    f0: np.ndarray
    """F0 in Hz, 0 where unvoiced."""
    loud: np.ndarray
    """Frames loud enough to be speech."""

    def stats(self) -> tuple[float, float]:
        """(median F0 in Hz, standard deviation of log2 F0) over the voiced frames; (0, 0)
        if fewer than 5."""
        f0 = self.f0[self.f0 > 0]
        if len(f0) < 5:
            return 0.0, 0.0
        return float(np.median(f0)), float(np.std(np.log2(f0)))

    def voiced_rate(self) -> float:
        """Voiced stretches (of MIN_RUN frames or more; a one-frame break does not split
        one) per second of loud time: a text-free proxy for syllables per second."""
        voiced = self.f0 > 0
        if not voiced.any():
            return 0.0
        closed = voiced.copy()
        closed[1:-1] |= voiced[:-2] & voiced[2:]
        edges = np.diff(np.concatenate([[0], closed.astype(np.int8), [0]]))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        runs = int(np.sum(ends - starts >= MIN_RUN))
        active = float(self.loud.sum()) * PITCH_HOP / RATE
        return runs / active if active > 0 else 0.0


def pitch_track(x16k: np.ndarray) -> PitchTrack:
    """The F0 track of ``x16k`` by autocorrelation, checked against the recording's own
    median: octave jumps are folded back or dropped."""
    ac, lag, peak, power = autocorrelation(x16k, PITCH_HOP, 420)
    loud = power > np.percentile(power, 90) * 0.05
    voiced = loud & (peak > VOICED_PEAK)
    f0 = np.where(voiced, RATE / lag, 0.0)
    if voiced.sum() < 5:
        return PitchTrack(np.zeros(len(ac)), loud)
    rows = np.arange(len(ac))
    centre = np.median(np.log2(f0[voiced]))
    off = np.where(voiced, np.log2(np.maximum(f0, 1.0)) - centre, 0.0)
    double = np.minimum(2 * lag, PITCH_WINDOW - 1)
    half = np.maximum(lag // 2, 1)
    high = voiced & (off > OCTAVE_SLACK)
    low = voiced & (off < -OCTAVE_SLACK)
    fold_high = high & (ac[rows, double] > 0.8 * peak)
    fold_low = low & (ac[rows, half] > 0.8 * peak)
    f0 = np.where(fold_high, f0 / 2, np.where(fold_low, f0 * 2, f0))
    f0[(high & ~fold_high) | (low & ~fold_low)] = 0.0
    far = (f0 > 0) & (np.abs(np.log2(np.maximum(f0, 1.0)) - centre) > 2 * OCTAVE_SLACK)
    f0[far] = 0.0
    return PitchTrack(np.asarray(f0), loud)


def pitch_stats(x16k: np.ndarray) -> tuple[float, float]:
    """(median F0 in Hz, standard deviation of log2 F0) over the checked track's voiced
    frames (`pitch_track`); (0, 0) if fewer than 5."""
    return pitch_track(x16k).stats()
