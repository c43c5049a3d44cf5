"""Fit the decoder's half of the style (dims 0-127) so Kokoro's own decoder sounds like the
recording, without gradients: SPSA over the stock packs' principal subspace.

* Subspace: the stock packs' timbre halves (each pack's mean row) centred; the top
  `dims` principal directions, each scaled by its spread, so a step of 1 is one typical
  inter-voice difference along it. The change is added to every row of the start pack and
  kept inside a ball of radius `max_norm` (in those units): the style stays where the
  decoder was trained.
* What is spoken: part A (text encoder, durations, F0, energy) runs once with the start
  pack; only part B (the decoder, which reads dims 0-127) runs per evaluation, on the same
  features, so each try costs one decoder pass over a few seconds of speech.
* Loss (channel-robust, text-free): log-mel frames at 16 kHz, limited to the recording's
  band, with the smooth part of their mean over speech frames removed (its first three
  cosine components across the bands: level, tilt and bow, what a microphone, a room's
  colour or an EQ adds), so a fixed smooth channel cancels out while the mean's detail,
  where the voice's resonances lie, still counts (removing each band's whole mean threw
  that away with the channel; docs/benchmarks.md); the symmetric nearest-frame L1 distance
  between the render's frames and the recording's fit frames (each frame matched to the
  closest frame of the other side). No alignment or transcript is needed, and nothing here
  is the guard's encoder or MFCC covariance.
* Each SPSA step decodes one random crop of the speech (`crop_frames`, with the streaming
  decoder's context on each side; both probes see the same crop) and scores its frames
  against their nearest fit frames; the held-out check decodes the whole text.
* Early stopping: a quarter of the fit part is held out; the kept point is the best by the
  loss on that quarter, checked every few steps.

The caller owns the time budget and cancellation through `deadline` and `cancel`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import soxr

from tray_reader import model_files
from tray_reader.speech.engine import KokoroEngine
from tray_reader.speech.types import SAMPLE_RATE
from tray_reader.speech.windows import WindowPlan, speech_frames, stream_frames
from tray_reader.voices import guard
from tray_reader.voices.embedder import EMBED_RATE, log_mel, mel_filterbank

TIMBRE = 128
"""Style dims the decoder reads (Kokoro's `ref_s[:, :128]`)."""


@dataclass(frozen=True)
class FitSettings:
    """How the style fit searches."""

    dims: int = 16
    """Principal directions of the stock packs searched."""
    max_norm: float = 1.5
    """Largest change, in units of the directions' spread."""
    perturbation: float = 0.25
    """SPSA's probe size (same units)."""
    first_step: float = 1.2
    """Length of the first step (the change's norm); later steps shrink as SPSA's gains do."""
    max_ids: int = 80
    """Phoneme ids of the text spoken per evaluation (a few seconds of speech)."""
    crop_frames: int = 56
    """Decoder frames (25 ms each) per SPSA probe: a random stretch of the speech."""
    check_every: int = 3
    """Steps between held-out checks."""
    channel_order: int = 3
    """What of the frames' mean over the bands is taken for the channel and removed (`frames`):
    0 every band's own mean, k > 0 the mean's k smoothest components across the bands."""
    max_steps: int = 1000
    """Stop after this many steps even if time is left."""
    seed: int = 0
    """Seed of the probe directions."""
    other_languages: bool = True
    """The subspace also spans Kokoro's voices for other languages (`subspace`): the search's
    best often lies outside the English packs' span, and the 54 packs' first directions are the
    ones those voices differ along (measured against the English packs' subspace in
    docs/benchmarks.md)."""


@dataclass(frozen=True)
class FitResult:
    """The fitted pack and the run's figures."""

    pack: np.ndarray
    """float32 [510, 1, 256]: the start pack with the kept change in dims 0-127."""
    z: np.ndarray
    """The kept change, in subspace units."""
    start_loss: float
    """Held-out loss of the start pack."""
    loss: float
    """Held-out loss of the kept change."""
    steps: int
    """SPSA steps run."""
    evaluations: int
    """Decoder passes."""
    seconds: float
    """Time taken."""


@cache
def subspace(dims: int, other_languages: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(directions [dims, 128] scaled by their spread, spreads [dims]) of the stock timbres,
    with `other_languages` also those of Kokoro's voices for other languages."""
    packs = [model_files.stock_pack(v.name) for v in model_files.stock_voices()]
    if other_languages:
        packs += [model_files.other_pack(name) for name in model_files.other_voices()]
    rows = np.stack([p[:, 0, :TIMBRE].mean(axis=0) for p in packs])
    centred = rows - rows.mean(axis=0)
    _u, s, vt = np.linalg.svd(centred.astype(np.float64), full_matrices=False)
    spread = s[:dims] / np.sqrt(max(1, len(rows) - 1))
    return (vt[:dims] * spread[:, None]).astype(np.float32), spread


def _band_mask(x16k: np.ndarray) -> np.ndarray:
    """Mel bands (of embedder.log_mel) whose centre lies inside the recording's band."""
    freqs, gain = guard.band_gain(x16k)
    fb = mel_filterbank()
    centres = (fb * np.linspace(0, EMBED_RATE / 2, fb.shape[1])).sum(axis=1) / fb.sum(axis=1)
    inside = np.interp(centres, freqs, gain) > 0.5
    return inside if inside.sum() >= 8 else np.ones(len(centres), bool)


def frames(x16k: np.ndarray, bands: np.ndarray, channel_order: int = 0) -> np.ndarray:
    """Speech frames of log-mel (natural log), each band's mean removed, [n, bands]; with
    `channel_order` k > 0 only the mean's k smoothest cosine components across the bands."""
    lm = log_mel(x16k)[:, bands].astype(np.float64) * np.log(10)
    level = lm.max(axis=1)
    lm = lm[level > np.percentile(level, 95) - np.log(10) * 3.5]  # within 35 dB of the loud frames
    mean = lm.mean(axis=0)
    if channel_order > 0:
        n = lm.shape[1]
        basis = np.cos(np.pi * np.outer(np.arange(channel_order), np.arange(n) + 0.5) / n)
        basis /= np.linalg.norm(basis, axis=1, keepdims=True)
        mean = basis.T @ (basis @ mean)
    return np.asarray(lm - mean)


def nearest_frame_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Symmetric mean L1 distance of each frame to the closest frame of the other set."""
    d = np.abs(a[:, None, :] - b[None, :, :]).mean(axis=2)
    return float(0.5 * (d.min(axis=1).mean() + d.min(axis=0).mean()))


class StyleFit:
    """One fit: the features of the spoken text and the recording's frames, made once."""

    def __init__(
        self,
        engine: KokoroEngine,
        ids: Sequence[int],
        start: np.ndarray,
        fit16k: np.ndarray,
        settings: FitSettings,
    ) -> None:
        if engine.features is None or engine.decoder is None:
            raise ValueError("the style fit needs the split model (part A and part B)")
        self.engine = engine
        self.settings = settings
        self.start = start
        ids = list(ids)[: settings.max_ids]
        part_a = engine.part_a(ids, start, 1.0)
        assert part_a is not None
        lo, hi = speech_frames(part_a.asr)
        self._lo, self._hi = lo, hi
        self._part_a = part_a
        self._row = start[len(ids), 0].copy()
        self.directions, _ = subspace(settings.dims, settings.other_languages)
        self.bands = _band_mask(fit16k)
        cut = int(len(fit16k) * 0.75)
        self.train = frames(fit16k[:cut], self.bands, settings.channel_order)
        self.held = frames(fit16k[cut:], self.bands, settings.channel_order)
        self.evaluations = 0

    def style(self, z: np.ndarray) -> np.ndarray:
        row = self._row.copy()
        row[:TIMBRE] += z.astype(np.float32) @ self.directions
        return np.asarray(row.reshape(1, 256))

    def speak16k(self, z: np.ndarray, span: tuple[int, int] | None = None) -> np.ndarray:
        """16 kHz audio of frames `span` (default: the speech) with change `z`."""
        p = self._part_a
        return self._decode16k(z, (p.asr, p.f0, p.energy, p.phase), span or (self._lo, self._hi))

    def _decode16k(
        self,
        z: np.ndarray,
        features: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        span: tuple[int, int],
    ) -> np.ndarray:
        """16 kHz audio of frames `span` of part A's (asr, f0, energy, phase), in one decoder
        window with the streaming decoder's context on each side."""
        decoder = self.engine.decoder
        assert decoder is not None
        a, b = span
        asr, f0, energy, phase = features
        plan = WindowPlan(first_frames=b - a, frames=b - a)
        pieces = stream_frames(
            lambda feeds: decoder.run(None, feeds)[0],
            asr,
            f0,
            energy,
            phase,
            self.style(z),
            plan,
            (a, b),
            None,
            lambda: b - a,  # one window: never asked
        )
        out = np.concatenate(list(pieces))
        self.evaluations += 1
        return np.asarray(soxr.resample(out, SAMPLE_RATE, EMBED_RATE).astype(np.float32))

    def crop_loss(self, z: np.ndarray, span: tuple[int, int]) -> float:
        """Mean L1 distance of a crop's frames to their nearest fit frames."""
        got = frames(self.speak16k(z, span), self.bands, self.settings.channel_order)
        d = np.abs(got[:, None, :] - self.train[None, :, :]).mean(axis=2)
        return float(d.min(axis=1).mean())

    def held_loss(self, z: np.ndarray) -> float:
        """Symmetric nearest-frame distance of the whole text's speech to the held-out frames."""
        return nearest_frame_distance(
            frames(self.speak16k(z), self.bands, self.settings.channel_order), self.held
        )

    def _crop(self, rng: np.random.Generator) -> tuple[int, int]:
        n = self.settings.crop_frames
        if self._hi - self._lo <= n:
            return self._lo, self._hi
        a = int(rng.integers(self._lo, self._hi - n))
        return a, a + n

    def pack(self, z: np.ndarray) -> np.ndarray:
        pack = self.start.copy()
        pack[:, 0, :TIMBRE] += (z.astype(np.float32) @ self.directions)[None, :]
        return pack

    def run(
        self,
        deadline: float,
        cancel: threading.Event | None = None,
        progress: Callable[[int, float], None] | None = None,
    ) -> FitResult:
        """SPSA until `deadline` (time.monotonic) or `cancel`; the best change by held-out loss."""
        t0 = time.monotonic()
        s = self.settings
        rng = np.random.default_rng(s.seed)
        z = np.zeros(s.dims)
        start_held = self.held_loss(z)
        best_z, best_held = z.copy(), start_held
        gain: float | None = None
        step = 0
        per_step = 0.0
        while not (cancel is not None and cancel.is_set()):
            t_step = time.monotonic()
            if t_step + per_step * 1.2 > deadline or step >= s.max_steps:
                break
            step += 1
            c = s.perturbation / step**0.101
            delta = rng.choice([-1.0, 1.0], size=s.dims)
            span = self._crop(rng)
            plus = self.crop_loss(z + c * delta, span)
            minus = self.crop_loss(z - c * delta, span)
            g = (plus - minus) / (2 * c) * delta
            if gain is None:
                gain = s.first_step / max(float(np.linalg.norm(g)), 1e-9)
            z = z - gain / (step + 2) ** 0.602 * 2**0.602 * g
            norm = float(np.linalg.norm(z))
            if norm > s.max_norm:
                z *= s.max_norm / norm
            if step % s.check_every == 0:
                held = self.held_loss(z)
                if held < best_held:
                    best_z, best_held = z.copy(), held
                if progress:
                    progress(step, best_held)
            per_step = time.monotonic() - t_step
        return FitResult(
            pack=self.pack(best_z),
            z=best_z,
            start_loss=start_held,
            loss=best_held,
            steps=step,
            evaluations=self.evaluations,
            seconds=time.monotonic() - t0,
        )
