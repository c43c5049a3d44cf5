"""Distances between two renderings of the same utterance (used by the bench and the tests)."""

from __future__ import annotations

import numpy as np

SAMPLE_RATE = 24_000


def _mel_filters(n_fft: int, n_mels: int, sr: int) -> np.ndarray:
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    mels = np.linspace(hz_to_mel(0.0), hz_to_mel(sr / 2), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    bins = np.fft.rfftfreq(n_fft, 1 / sr)
    fb = np.zeros((n_mels, bins.size))
    for m in range(n_mels):
        lo, mid, hi = hz[m], hz[m + 1], hz[m + 2]
        fb[m] = np.clip(np.minimum((bins - lo) / (mid - lo), (hi - bins) / (hi - mid)), 0, None)
    return fb


def log_mel(x: np.ndarray, n_fft: int = 1024, hop: int = 256, n_mels: int = 80) -> np.ndarray:
    """Log-mel spectrogram in dB, [frames, n_mels]."""
    x = np.asarray(x, dtype=np.float64)
    if x.size < n_fft:
        x = np.pad(x, (0, n_fft - x.size))
    frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop] * np.hanning(n_fft)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    return 10 * np.log10(power @ _mel_filters(n_fft, n_mels, SAMPLE_RATE).T + 1e-8)


def log_mel_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute log-mel difference in dB over frames that are not near-silent in `a`."""
    n = min(a.size, b.size)
    ma, mb = log_mel(a[:n]), log_mel(b[:n])
    loud = ma.max(axis=1) > ma.max() - 60
    return float(np.mean(np.abs(np.maximum(ma, -80) - np.maximum(mb, -80))[loud]))


def snr_db(reference: np.ndarray, other: np.ndarray) -> float:
    """Signal-to-difference ratio in dB (the first min(len) samples)."""
    n = min(reference.size, other.size)
    noise = np.sum((reference[:n] - other[:n]) ** 2)
    return float(10 * np.log10(np.sum(reference[:n] ** 2) / max(noise, 1e-20)))
