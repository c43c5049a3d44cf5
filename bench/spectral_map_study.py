"""Can a filter after the model move a stock voice towards a speaker, where the style cannot?

The style fit stays inside what Kokoro's decoder can say; the gap it leaves may be outside it.
A filter on the model's audio is not bound by that: each frame's spectral envelope is moved
from the voice's statistics to the speaker's (the "spectrum differential" of filter-based
voice conversion: the frame's own spectrum is kept, only a smooth gain is applied, so there is
no vocoder). The statistics are non-parallel (no transcript is needed): the log-mel frames of
the stock voice reading CHECK_TEXT, and the fit part of the speaker's clip A.

Maps, in the recording's band only (outside it the gain is 1), on in-band log-mel frames:
  static  y = x + a (mu_t - mu_s): the long-term spectrum. This is the room as much as the
          voice (a telephone's response is in it); measured to see how much of the gap it is.
  diag    y = mu_s + (sd_t / sd_s)^a (x - mu_s): each band's spread, the mean left alone.
  full    y = mu_s + M_a (x - mu_s) on the band's first cepstra, M = C_t^1/2 C_s^-1/2: the
          envelope's covariance (how it moves between sounds), the mean left alone.
  both    full, then static.
  classesK full, then each of K sound classes' mean moved to the speaker's, less the average
          shift (k-means over the voice's frames after "full"; the speaker's frames, about their
          own mean, fall in them softly): what the built map does with K = envelope.CLASSES.
          classesKsTAU shrinks each class's shift by n / (n + TAU), n the speaker's frames in it;
          classesKcN moves c1 .. c(N-1) instead of CEPS's (e.g. classes32c20, classes32s16c20).
          At strength a < 1 the matrix is I + a (M - I) and the class shifts are a times theirs.
  map, map-short, map-level: `EnvelopeMap` as built, from CHECK_TEXT's render, from two
          profile sentences', and from CHECK_TEXT's with no level taken off.
`measure.ahs_distance` is an MFCC-covariance distance: "full" works on nearly what it measures,
so by it "full" is not independent; the two encoders are.

    nice -n 19 .venv/bin/python bench/spectral_map_study.py [--refs june,carlo] [--strengths 0.5,1]

Prints, per speaker, the gap closed on clip B (enc/AHS/GE2E, as bench_enroll computes it,
from the nearest stock voice) by each map, and the same from clip A's held-back part (what the
guard would see).
"""

from __future__ import annotations

import argparse
import re
import sys
from functools import cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech import envelope  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.speech.envelope import EnvelopeMap  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard, intelligibility, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder, mel_filterbank  # noqa: E402
from tray_reader.voices.enroll import PROFILE_SENTENCES  # noqa: E402
from tray_reader.voices.measure import _dct_matrix  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

REFS = "june,carlo,ivrvoice,esco,armelle,june_wb,carlo_wb,ivrvoice_wb,austen"
RATE = 16_000
N_FFT = 512
HOP = 128
N_MELS = 40
CEPS = 14
"""Cepstra of the in-band log-mel envelope the full map moves (c1..c13; c0 is the level)."""
MAX_GAIN_DB = 12.0
SPEECH_DB = 35.0
SAID = f"{guard.JUDGE_TEXT} {guard.CHECK_TEXT}"
"""What --wer's renders say."""


@cache
def _window() -> np.ndarray:
    return np.hanning(N_FFT + 1)[:-1]


def stft(x: np.ndarray) -> np.ndarray:
    pad = np.pad(np.asarray(x, np.float64), (N_FFT, N_FFT))
    frames = np.lib.stride_tricks.sliding_window_view(pad, N_FFT)[::HOP] * _window()
    return np.fft.rfft(frames, axis=-1)


def istft(spec: np.ndarray, n: int) -> np.ndarray:
    frames = np.fft.irfft(spec, N_FFT, axis=-1) * _window()
    out = np.zeros(HOP * (len(frames) - 1) + N_FFT)
    norm = np.zeros_like(out)
    for i, f in enumerate(frames):
        out[i * HOP : i * HOP + N_FFT] += f
        norm[i * HOP : i * HOP + N_FFT] += _window() ** 2
    out /= np.maximum(norm, 1e-3)
    return out[N_FFT : N_FFT + n].astype(np.float32)


@cache
def _fbank() -> np.ndarray:
    return mel_filterbank(RATE, N_FFT, N_MELS).astype(np.float64)


def log_mel(spec: np.ndarray) -> np.ndarray:
    return np.log(np.abs(spec) ** 2 @ _fbank().T + 1e-10)


def speech_frames(lm: np.ndarray) -> np.ndarray:
    energy = np.log10(np.exp(lm).sum(axis=1)) * 10
    return energy > np.percentile(energy, 98) - SPEECH_DB


def in_band(x16k: np.ndarray) -> np.ndarray:
    """Mel bands whose whole filter lies inside the recording's band."""
    freqs, gain = guard.band_gain(x16k)
    bin_f = np.fft.rfftfreq(N_FFT, 1 / RATE)
    inside = np.interp(bin_f, freqs, gain) > 0.5
    fb = _fbank()
    return np.array([bool(np.all(inside[fb[b] > 0])) for b in range(N_MELS)])


def _sqrtm(c: np.ndarray, inverse: bool = False) -> np.ndarray:
    w, v = np.linalg.eigh(c)
    w = np.maximum(w, w.max() * 1e-3)
    return (v * (w ** (-0.5 if inverse else 0.5))) @ v.T


class Stats:
    def __init__(self, lm: np.ndarray, bands: np.ndarray, ceps: int = CEPS):
        x = lm[speech_frames(lm)][:, bands]
        self.lm = lm
        self.bands = bands
        self.mean = x.mean(axis=0)
        self.sd = x.std(axis=0) + 1e-6
        d = _dct_matrix(int(bands.sum()), ceps)
        self.dct = d
        c = (x - self.mean) @ d.T
        self.ceps = c[:, 1:]
        self.cov = np.cov(c[:, 1:].T)


def _class_move(
    s: Stats, t: Stats, m: np.ndarray, count: int, tau: float = 0.0
) -> tuple[np.ndarray, np.ndarray, float]:
    """(centres, shifts, spread) of ``count`` sound classes, as `EnvelopeMap.fit` makes them;
    with ``tau`` > 0 each class's shift is shrunk by n / (n + tau), n the speaker's frames in it."""
    moved = s.ceps @ m.T
    centres, spread = envelope._classes(moved, count)
    shifts = envelope._class_shifts(moved, t.ceps, centres, spread)
    if tau > 0:
        ns = envelope._posteriors(t.ceps, centres, spread).sum(axis=0)
        nv = envelope._posteriors(moved, centres, spread).sum(axis=0)
        shifts = shifts * (ns / (ns + tau))[:, None]
        shifts = shifts - (nv / nv.sum()) @ shifts
    return centres, shifts, spread


CLASS_KIND = re.compile(r"classes(\d+)(?:s(\d+))?(?:c(\d+))?$")
"""classesK[sTAU][cN]: K classes, shifts shrunk with TAU frames, N cepstra (c0 .. cN-1)."""


def mapped(lm: np.ndarray, bands: np.ndarray, s: Stats, t: Stats, kind: str, a: float) -> np.ndarray:
    """The log-mel frames' in-band part mapped from voice ``s`` towards speaker ``t``."""
    x = lm[:, bands]
    y = x.copy()
    if kind in ("diag",):
        y = s.mean + (t.sd / s.sd) ** a * (x - s.mean)
    if kind in ("full", "both") or kind.startswith("classes"):
        m = _sqrtm(t.cov) @ _sqrtm(s.cov, inverse=True)
        m = np.eye(len(m)) + a * (m - np.eye(len(m)))
        d = s.dct[1:]
        c = (x - s.mean) @ d.T
        moved = c @ m.T
        if kind.startswith("classes"):
            k = CLASS_KIND.match(kind)
            assert k is not None, kind
            centres, shifts, spread = _class_move(s, t, m, int(k[1]), float(k[2] or 0))
            moved = moved + a * envelope._posteriors(moved, centres, spread) @ shifts
        # Only the cepstra's part moves: what the first cepstra do not hold stays.
        y = x + (moved - c) @ np.linalg.pinv(d).T
    if kind in ("static", "both"):
        y = y + a * (t.mean - s.mean)
    out = lm.copy()
    out[:, bands] = y
    return out


def apply(x16k: np.ndarray, bands: np.ndarray, s: Stats, t: Stats, kind: str, a: float) -> np.ndarray:
    k = CLASS_KIND.match(kind)
    if k is not None and k[3]:
        s, t = Stats(s.lm, bands, int(k[3])), Stats(t.lm, bands, int(k[3]))
    spec = stft(x16k)
    lm = log_mel(spec)
    gain_db = (mapped(lm, bands, s, t, kind, a) - lm) * (10 / np.log(10))
    gain_db = np.clip(gain_db, -MAX_GAIN_DB, MAX_GAIN_DB)
    fb = _fbank()
    per_bin = (gain_db @ fb) / np.maximum(fb.sum(axis=0), 1e-9)
    per_bin[:, fb.sum(axis=0) <= 1e-9] = 0.0
    return istft(spec * 10 ** (per_bin / 20), len(x16k))


class LevelFree(EnvelopeMap):
    """The built map with no level taken off at all: each frame's level moves with its shape,
    as the study's own maps let it (at 24 kHz the top bin, above TOP_HZ, has no gain but the
    level taken off). Measured when the built map still kept each frame's power."""

    def gains_db(self, spec: np.ndarray, rate: int) -> np.ndarray:
        g = super().gains_db(spec, rate)
        return g - g[:, -1:]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default=REFS)
    ap.add_argument("--strengths", default="0.5,1")
    ap.add_argument("--kinds", default="static,diag,full,both")
    ap.add_argument(
        "--wer", action="store_true", help="also the recogniser's word errors on JUDGE_TEXT and CHECK_TEXT"
    )
    args = ap.parse_args()
    strengths = [float(a) for a in args.strengths.split(",")]
    kinds = args.kinds.split(",")
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    totals: dict[str, list] = {}
    for ref in args.refs.split(","):
        (a, ra), (b, rb), exclude = be.clips(ref, renderer, 28.0)
        clip_a, clip_b = prepare(a, ra).speech16k, prepare(b, rb).speech16k
        fit, held = guard.split(clip_a)
        to_b = be.distance_to(clip_b, embedder)
        to_held = be.distance_to(held, embedder)
        nearest = profiles.without(set(exclude)).nearest(fit, embedder)
        pack = model_files.stock_pack(nearest)
        bands = in_band(fit)
        checked24 = renderer.render(pack, 1.0, [guard.CHECK_TEXT])
        checked = be.to16k(checked24, 24_000)
        source = Stats(log_mel(stft(checked)), bands)
        target = Stats(log_mel(stft(fit)), bands)
        judged = renderer.render16k(pack, 1.0, [guard.JUDGE_TEXT])
        judged24 = renderer.render(pack, 1.0, [guard.JUDGE_TEXT])
        short = renderer.render16k(pack, 1.0, list(PROFILE_SENTENCES[:2]))
        built = EnvelopeMap.fit(checked, fit, guard.band_gain(fit))
        maps = {
            "map": built,
            "map-short": EnvelopeMap.fit(short, fit, guard.band_gain(fit)),
            "map-level": None if built is None else LevelFree(**vars(built)),
        }

        def errors(judged_part: np.ndarray, checked_part: np.ndarray) -> str:
            if not args.wer:
                return ""
            e = intelligibility.word_errors(np.concatenate([judged_part, checked_part]), SAID)
            return "" if e is None else f"; word errors {e:.2f}"

        ceil_b, ceil_h = to_b(clip_a), to_held(fit)
        base_b, base_h = to_b(judged), to_held(judged)
        print(
            f"{ref}: nearest {nearest}, {int(bands.sum())} of {N_MELS} bands in band"
            f"{errors(judged, checked)}",
            flush=True,
        )
        for kind in kinds:
            for s in strengths if kind not in maps else [1.0]:
                if kind in maps:
                    m = maps[kind]
                    if m is None:
                        print(f"  {kind}: no map")
                        continue
                    y = be.to16k(m.apply(judged24, 24_000), 24_000)
                    y_check = be.to16k(m.apply(checked24, 24_000), 24_000)
                else:
                    y = apply(judged, bands, source, target, kind, s)
                    y_check = apply(checked, bands, source, target, kind, s)
                db, dh = to_b(y), to_held(y)
                cb = [(base_b[i] - db[i]) / (base_b[i] - ceil_b[i]) for i in range(3)]
                ch = [(base_h[i] - dh[i]) / (base_h[i] - ceil_h[i]) for i in range(3)]
                totals.setdefault(f"{kind} {s:g}", []).append(cb)
                print(
                    f"  {kind:6s} {s:g}: clip B {be.percents(cb)}; held-back {be.percents(ch)}{errors(y, y_check)}",
                    flush=True,
                )
    print("mean gap closed on clip B (enc/AHS/GE2E):")
    for key, rows in totals.items():
        print(f"  {key}: {be.percents(np.mean(rows, axis=0))} over {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
