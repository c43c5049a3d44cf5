"""A second speaker encoder, for the guard only: the GE2E d-vector encoder of the resemblyzer
package (Apache-2.0), run with numpy.

The enrolment search climbs the first encoder (embedder.py): a voice it made can come out
closer by that encoder without being closer to the speaker. The guard therefore also asks this
one, which no step of the search or the fit uses (guard.py).

Only the package's weights file is used (installed with --no-deps; its own code needs torch).
What is computed follows the package's `preprocess_wav` and `VoiceEncoder.embed_utterance`:
16 kHz audio brought to -30 dBFS; a 40-band Slaney mel power spectrogram (not
log; n_fft 400, hop 160, Hann, centred with zero padding); 160-frame partials (1.6 s) every 77
frames, a last partial covering under 75 % dropped; each through a 3-layer LSTM (256) and a
linear layer with ReLU, L2-normalised; the clip's embedding is the partials' normalised mean.
Two differences: the package only raises quiet audio to -30 dBFS and leaves louder audio as it
is, and its input is mel power, not log, so the same render 20 dB quieter came out at cosine
0.94 to itself; here every clip is brought to that level, so how loud the user recorded does
not count as voice. The package's long-silence trimming (webrtcvad) is left out: what the guard
measures is speech already cut to short pauses (preprocess.prepare) or a render of two sentences.

The weights file is a legacy (pre-zip) torch.save pickle; `read_legacy_torch` reads its
tensors with the standard library's unpickler, admitting only the few classes such a file holds.
"""

from __future__ import annotations

import pickle
import struct
from collections import OrderedDict
from pathlib import Path
from typing import BinaryIO

import numpy as np

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.voices.embedder import mel_filterbank

RATE = 16_000
N_FFT = 400
HOP = 160
PARTIAL = 160
"""Mel frames per partial (1.6 s)."""
STEP = 77
"""Frames between partials: round(16000 / 1.3 / 160), 1.3 partials a second."""
MIN_COVERAGE = 0.75
HIDDEN = 256
LEVEL_DBFS = -30.0

_STORAGES = {"FloatStorage": np.float32, "LongStorage": np.int64, "IntStorage": np.int32}


class _Storage:
    def __init__(self, dtype: np.dtype, numel: int) -> None:
        self.dtype = dtype
        self.numel = numel
        self.data = np.zeros(0, dtype)


def _rebuild_tensor(storage: _Storage, offset: int, size: tuple, stride: tuple, *_rest: object) -> tuple:
    return (storage, offset, tuple(size), tuple(stride))


class _Unpickler(pickle.Unpickler):
    def __init__(self, f: BinaryIO, storages: dict[str, _Storage]) -> None:
        super().__init__(f)
        self.storages = storages

    def find_class(self, module: str, name: str) -> object:
        if (module, name) == ("collections", "OrderedDict"):
            return OrderedDict
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch" and name in _STORAGES:
            return name
        raise pickle.UnpicklingError(f"unexpected {module}.{name} in a weights file")

    def persistent_load(self, pid: tuple) -> _Storage:
        kind, storage_type, key, _location, numel, _view = pid
        if kind != "storage" or storage_type not in _STORAGES:
            raise pickle.UnpicklingError(f"unexpected persistent id {pid!r}")
        if key not in self.storages:
            self.storages[key] = _Storage(np.dtype(_STORAGES[storage_type]), int(numel))
        return self.storages[key]


def read_legacy_torch(path: Path, entry: str = "model_state") -> dict[str, np.ndarray]:
    """The tensors of the dict `entry` of a legacy torch.save file, as float32 arrays."""
    storages: dict[str, _Storage] = {}
    with open(path, "rb") as f:
        for _ in range(3):  # magic number, protocol version, system info
            pickle.load(f)  # noqa: S301 - plain numbers and strings; the file's checksum is verified
        checkpoint = _Unpickler(f, storages).load()
        for key in pickle.load(f):  # noqa: S301 - a list of storage keys
            s = storages[key]
            (n,) = struct.unpack("<q", f.read(8))
            raw = f.read(n * s.dtype.itemsize)
            if n != s.numel or len(raw) != n * s.dtype.itemsize:
                raise ModelFileError(f"{path}: storage {key} is truncated")
            s.data = np.frombuffer(raw, s.dtype)
    out = {}
    for name, (s, offset, size, stride) in checkpoint[entry].items():
        item = s.dtype.itemsize
        view = np.lib.stride_tricks.as_strided(
            s.data[offset:], shape=size, strides=tuple(x * item for x in stride)
        )
        out[name] = np.array(view, np.float32)
    return out


def mel_power(wav16k: np.ndarray) -> np.ndarray:
    """[frames, 40] Slaney mel power spectrogram (librosa.feature.melspectrogram's defaults)."""
    padded = np.pad(np.asarray(wav16k, np.float64), N_FFT // 2)
    n = 1 + (len(padded) - N_FFT) // HOP
    frames = np.lib.stride_tricks.as_strided(
        padded, shape=(n, N_FFT), strides=(padded.strides[0] * HOP, padded.strides[0])
    )
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)
    power = np.abs(np.fft.rfft(frames * window, axis=1)) ** 2
    return (power @ mel_filterbank(RATE, N_FFT, 40).T.astype(np.float64)).astype(np.float32)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-np.clip(x, -60, 60))))


class JudgeEncoder:
    """The GE2E encoder: `embed` a clip, or its partials' `window_embeddings`."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.layers = [
            (
                weights[f"lstm.weight_ih_l{k}"].T.copy(),
                weights[f"lstm.weight_hh_l{k}"].T.copy(),
                weights[f"lstm.bias_ih_l{k}"] + weights[f"lstm.bias_hh_l{k}"],
            )
            for k in range(3)
        ]
        self.linear = (weights["linear.weight"].T.copy(), weights["linear.bias"])

    @classmethod
    def load(cls) -> JudgeEncoder:
        """The shipped encoder (weights checked by model_files; raises ModelFileError). Not
        kept between enrolments: 17 MB the daemon does not need while it reads."""
        return cls(read_legacy_torch(model_files.judge_encoder_path()))

    def _forward(self, mels: np.ndarray) -> np.ndarray:
        """[batch, frames, 40] -> [batch, 256] unit embeddings."""
        x = mels.astype(np.float32)
        h = np.zeros((len(x), HIDDEN), np.float32)
        for wi, wh, bias in self.layers:
            xi = x @ wi + bias
            h = np.zeros((len(x), HIDDEN), np.float32)
            c = np.zeros_like(h)
            out = np.empty((len(x), x.shape[1], HIDDEN), np.float32)
            for t in range(x.shape[1]):
                i, f, g, o = np.split(xi[:, t] + h @ wh, 4, axis=1)  # torch's gate order
                c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                h = _sigmoid(o) * np.tanh(c)
                out[:, t] = h
            x = out
        w, b = self.linear
        e = np.maximum(h @ w + b, 0)
        return np.asarray(e / (np.linalg.norm(e, axis=1, keepdims=True) + 1e-12))

    def window_embeddings(self, wav16k: np.ndarray) -> np.ndarray:
        """Unit embeddings of the clip's 1.6 s partials [n, 256]."""
        wav = np.asarray(wav16k, np.float64)
        rms = float(np.sqrt(np.mean(wav**2))) if len(wav) else 0.0
        if rms > 1e-9:
            wav = wav * 10 ** ((LEVEL_DBFS - 20 * np.log10(rms)) / 20)
        n_frames = int(np.ceil((len(wav) + 1) / HOP))
        starts = list(range(0, max(1, n_frames - PARTIAL + STEP + 1), STEP))
        if (len(wav) - starts[-1] * HOP) / (PARTIAL * HOP) < MIN_COVERAGE and len(starts) > 1:
            starts = starts[:-1]
        end = (starts[-1] + PARTIAL) * HOP
        mel = mel_power(np.pad(wav, (0, max(0, end - len(wav)))))
        return self._forward(np.stack([mel[s : s + PARTIAL] for s in starts]))

    def embed(self, wav16k: np.ndarray) -> np.ndarray:
        """The clip's unit embedding: its partials' mean, normalised."""
        e = self.window_embeddings(wav16k).mean(axis=0)
        return np.asarray(e / (np.linalg.norm(e) + 1e-12), np.float32)
