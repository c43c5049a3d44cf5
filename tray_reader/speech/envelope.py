"""The envelope map: a filter after the model that moves a voice's spectral envelope the way
the speaker's moves.

The style fit can only reach voices Kokoro's decoder can make. This filter works on the
decoder's audio instead, as filter-based voice conversion does ("spectrum differential"): each
frame keeps its own fine structure (harmonics, noise, phase) and gets a smooth gain, so there
is no vocoder and nothing to resynthesise.

What it moves: the covariance of the in-band log-mel envelope's first cepstra (c1 .. c19),
i.e. how the envelope changes between sounds (formant spacing, how open the vowels are, how
bright the stressed syllables get). Each frame's cepstra, taken about the voice's own mean, are
multiplied by M = C_speaker^1/2 C_voice^-1/2, which gives them the speaker's covariance. Then
each sound class's mean moves to the speaker's (32 classes, k-means over the voice's frames so
multiplied; the speaker's frames, taken about their own mean, fall in them softly), less the
shift the voice's frames get on average: how the speaker's vowels, nasals and hisses differ
from one another, not what they share. Of the mean itself, the long-term spectrum, only the
detail moves to the speaker's (`MEAN_SMOOTH`): a recording's long-term spectrum is its
microphone and room as much as its speaker, and a fixed filter adds the same to every frame's
log-mel, so it changes the mean and not the covariance. A microphone, a room's colour or a
smooth EQ adds a level, a tilt and a bow across the octaves; those stay the voice's, while the
mean's finer shape, where the voice's resonances lie, is the speaker's (as the style fit's
loss draws the same line, `style_fit.frames`). Only the bands the recording carries
are moved (a telephone recording says nothing about the voice above 3.4 kHz); the gain is 1
elsewhere. The voice keeps its loudness: the gain the map gives the voice's own render on average
is taken off every frame (`level_db`), so a frame whose shape the map makes louder or softer
than the voice's average is heard so (the speaker's own contrast between sounds), and no frame
is raised more than HEADROOM_DB above what it was, which keeps the model's peaks. (A map stored
before keeps each frame's power, as it was made.) Statistics are
text-independent: no transcript is needed.

Streaming: `Stream` takes a chunk's pieces as the engine makes them and gives back the same
samples filtered, holding back the last ``n_fft - hop`` samples until the next piece (or the
chunk's end) completes their frames; joined, its output is exactly `EnvelopeMap.apply`'s.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

WINDOW_SECONDS = 0.032
"""Analysis window (512 samples at 16 kHz, 768 at 24 kHz: the same 31.25 Hz bins)."""
HOPS_PER_WINDOW = 4
"""Frames overlap by three quarters (a periodic Hann window's squares then sum to a constant)."""
N_BANDS = 40
TOP_HZ = 8000.0
"""The mel bands cover 0 .. 8 kHz (a 16 kHz recording's whole band); above it the gain is 1."""
CEPS = 20
"""Cepstra of the in-band envelope the map moves are c1 .. c(CEPS-1) (fewer when the recording
carries fewer bands: as many as it has, less one); c0 (the level) stays. (docs/benchmarks.md:
c1 .. c19 gained on c1 .. c13 by both encoders, c1 .. c25 no more. A map stored with fewer is
read as it was made.)"""
OLD_CEPS = 14
"""What CEPS was when maps were first stored (they are read and applied as they were made)."""
MIN_BANDS = 16
"""A recording carrying fewer whole mel bands than this (narrower than about 2.5 kHz) gets no map."""
MIN_FRAMES = 250
"""Speech frames (one a hop) each side needs at least, for a covariance of CEPS-1 cepstra."""
MAX_GAIN_DB = 12.0
"""No band is raised or lowered by more than this."""
HEADROOM_DB = 1.0
"""No frame's power is raised by more than this (after `EnvelopeMap.level_db`)."""
SPEECH_DB = 35.0
"""Frames within this of a clip's loud frames (its 98th percentile) are its speech."""
QUIET_DB = (30.0, 20.0)
"""At read time a frame this far below the voice's mean level gets no gain, this far a full
gain (a ramp between): the map is made of speech, and silence is left as it is."""
EIGEN_FLOOR = 1e-3
"""A covariance's eigenvalues are floored at this share of its largest (its inverse root)."""
MAX_MATRIX_NORM = 3.0
"""No direction of the cepstra is stretched or shrunk by more than this factor (a stored map
that does is refused as damaged)."""
CLASSES = 32
"""Sound classes whose means the map also moves: k-means over the voice's frames once their
covariance is the speaker's (docs/benchmarks.md: 4, 8, 16 and 32 classes gained more and more,
64 no more than 32)."""
KMEANS_ROUNDS = 30
MEAN_SMOOTH: int | None = 3
"""The mean's detail the map also moves to the speaker's: the speech frames' mean in-band
log-mel, the speaker's less the voice's, less its best fit by a polynomial of this many terms
in the bands' octaves (3: the level, the tilt and the bow a microphone, a room or a smooth EQ
adds, so a fixed smooth channel is not learnt), as far as the cepstra c1 .. hold it. None:
the mean stays the voice's."""
MIN_CLASS_FRAMES = 1.0
"""A class the speaker's frames hardly fall in (less than this many frames' worth) is not moved."""


@cache
def _window(n_fft: int) -> np.ndarray:
    return np.hanning(n_fft + 1)[:-1]


def frame_sizes(rate: int) -> tuple[int, int]:
    """(n_fft, hop) at ``rate``."""
    n_fft = int(round(WINDOW_SECONDS * rate))
    return n_fft, n_fft // HOPS_PER_WINDOW


def _hz_to_mel(f: np.ndarray) -> np.ndarray:
    return 2595.0 * np.log10(1.0 + np.asarray(f, np.float64) / 700.0)


def _mel_to_hz(m: np.ndarray) -> np.ndarray:
    return 700.0 * (10.0 ** (np.asarray(m, np.float64) / 2595.0) - 1.0)


@cache
def _edges_hz() -> np.ndarray:
    """The mel bands' edges in Hz: band b spans edges b .. b+2 and peaks at edge b+1."""
    return np.asarray(_mel_to_hz(np.linspace(0.0, _hz_to_mel(np.array(TOP_HZ)), N_BANDS + 2)))


@cache
def filterbank(rate: int) -> np.ndarray:
    """Triangular mel bands over 0 .. TOP_HZ on ``rate``'s FFT bins [N_BANDS, bins]: the same
    bands in Hz at every rate, so statistics made at 16 kHz apply to 24 kHz audio."""
    n_fft, _ = frame_sizes(rate)
    freqs = np.fft.rfftfreq(n_fft, 1.0 / rate)
    edges = _edges_hz()
    lo, mid, hi = edges[:-2, None], edges[1:-1, None], edges[2:, None]
    up = (freqs[None, :] - lo) / (mid - lo)
    down = (hi - freqs[None, :]) / (hi - mid)
    return np.asarray(np.maximum(0.0, np.minimum(up, down)))


def _count(n_in: int) -> int:
    """Cepstra (with c0) a map over ``n_in`` bands is made with."""
    return min(CEPS, n_in)


@cache
def _dct(n_in: int, count: int) -> np.ndarray:
    """Orthonormal DCT-II rows 0 .. count-1 over ``n_in`` bands."""
    k = np.arange(count)[:, None]
    n = np.arange(n_in)[None, :]
    m = np.cos(np.pi * k * (2 * n + 1) / (2 * n_in)) * np.sqrt(2.0 / n_in)
    m[0] /= np.sqrt(2.0)
    return np.asarray(m)


def _frames(x: np.ndarray, rate: int) -> np.ndarray:
    """Windowed frames of ``x`` padded as `Stream` pads it [frames, n_fft]."""
    n_fft, hop = frame_sizes(rate)
    pad = np.pad(np.asarray(x, np.float64), (n_fft - hop, n_fft))
    count = max(0, (len(pad) - n_fft) // hop + 1)
    return np.asarray(np.lib.stride_tricks.sliding_window_view(pad, n_fft)[::hop][:count] * _window(n_fft))


def log_mel(spec: np.ndarray, rate: int) -> np.ndarray:
    """Natural-log mel band power of FFT frames [frames, N_BANDS]."""
    return np.asarray(np.log(np.abs(spec) ** 2 @ filterbank(rate).T + 1e-10))


def bands_inside(band: tuple[np.ndarray, np.ndarray], rate: int = 16_000) -> np.ndarray:
    """Whether each mel band lies wholly inside a recording's band (`guard.band_gain`)."""
    freqs, gain = band
    n_fft, _ = frame_sizes(rate)
    bins = np.fft.rfftfreq(n_fft, 1.0 / rate)
    inside = np.interp(bins, freqs, gain) > 0.5
    fb = filterbank(rate)
    return np.array([bool(np.all(inside[fb[b] > 0])) for b in range(N_BANDS)])


@dataclass(frozen=True)
class _Stats:
    mean: np.ndarray
    ceps: np.ndarray
    """The speech frames' cepstra c1 .. about ``mean`` [frames, `_count` - 1]."""

    @property
    def cov(self) -> np.ndarray:
        return np.asarray(np.cov(self.ceps.T))

    @property
    def frames(self) -> int:
        return len(self.ceps)


def _stats(x16k: np.ndarray, bands: np.ndarray) -> _Stats:
    lm = log_mel(np.fft.rfft(_frames(x16k, 16_000), axis=-1), 16_000)
    energy = 10 * np.log10(np.exp(lm).sum(axis=1))
    speech = lm[energy > np.percentile(energy, 98) - SPEECH_DB][:, bands]
    mean = speech.mean(axis=0)
    n_in = int(bands.sum())
    return _Stats(mean, (speech - mean) @ _dct(n_in, _count(n_in))[1:].T)


def _posteriors(ceps: np.ndarray, centres: np.ndarray, spread: float) -> np.ndarray:
    """[frames, classes]: how much each frame belongs to each class (a Gaussian of variance
    ``spread`` in every direction about each centre)."""
    d = ((ceps[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1) / (2.0 * spread)
    w = np.exp(-(d - d.min(axis=1, keepdims=True)))
    return np.asarray(w / w.sum(axis=1, keepdims=True))


def _classes(ceps: np.ndarray, count: int) -> tuple[np.ndarray, float]:
    """(centres [count, d], spread): k-means of ``ceps`` from a fixed start (the same frames
    give the same classes), and the mean squared distance to the nearest centre a direction."""
    rng = np.random.default_rng(0)
    centres = ceps[rng.choice(len(ceps), count, replace=False)]
    for _ in range(KMEANS_ROUNDS):
        nearest = ((ceps[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1).argmin(axis=1)
        centres = np.array(
            [ceps[nearest == k].mean(axis=0) if np.any(nearest == k) else centres[k] for k in range(count)]
        )
    nearest = ((ceps[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1).argmin(axis=1)
    spread = float(np.mean((ceps - centres[nearest]) ** 2))
    return centres, max(spread, 1e-6)


def _class_shifts(voice: np.ndarray, speaker: np.ndarray, centres: np.ndarray, spread: float) -> np.ndarray:
    """[classes, d]: what moves each class's mean from the voice's frames' (``voice``, already
    given the speaker's covariance) to the speaker's frames' falling in it, less the shift the
    voice's frames get on average (so the long-term spectrum, where a fixed channel lies, stays)."""
    pv, ps = _posteriors(voice, centres, spread), _posteriors(speaker, centres, spread)
    nv, ns = pv.sum(axis=0), ps.sum(axis=0)
    shifts = (ps.T @ speaker) / np.maximum(ns, 1e-9)[:, None] - (pv.T @ voice) / np.maximum(nv, 1e-9)[:, None]
    shifts[ns < MIN_CLASS_FRAMES] = 0.0
    return np.asarray(shifts - (nv / nv.sum()) @ shifts)


def _less_smooth(values: np.ndarray, bands: np.ndarray, terms: int) -> np.ndarray:
    """``values`` over the bands ``bands`` marks, less their least-squares fit by a polynomial
    of ``terms`` terms in the bands' centres in octaves."""
    octaves = np.log2(_edges_hz()[1:-1][bands])
    basis = np.vander(octaves - octaves.mean(), terms, increasing=True)
    coef, *_ = np.linalg.lstsq(basis, values, rcond=None)
    return np.asarray(values - basis @ coef)


def _powers(spec: np.ndarray, bin_db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each frame's power before and after gains ``bin_db`` [frames] each."""
    power = np.abs(spec) ** 2
    return power.sum(axis=1) + 1e-20, (power * 10 ** (bin_db / 10)).sum(axis=1) + 1e-20


def _root(c: np.ndarray, power: float) -> np.ndarray:
    w, v = np.linalg.eigh((c + c.T) / 2)
    w = np.maximum(w, max(float(w.max()), 1e-12) * EIGEN_FLOOR)
    return np.asarray((v * w**power) @ v.T)


def _matrix(voice: np.ndarray, speaker: np.ndarray) -> np.ndarray:
    """What gives the voice's cepstra (covariance ``voice``) the speaker's: whitening, then
    colouring, C_speaker^1/2 C_voice^-1/2. (The symmetric map that moves a frame least, the
    optimal transport between the two, brought voices less close and no clearer:
    docs/benchmarks.md, `bench/map_transport_study.py`.)"""
    return np.asarray(_root(speaker, 0.5) @ _root(voice, -0.5))


@dataclass(frozen=True)
class EnvelopeMap:
    """A voice's envelope map (see the module docstring); stored with an enrolled voice."""

    bands: tuple[int, ...]
    """The mel bands it moves (those the speaker's recording carries)."""
    mean: np.ndarray
    """The voice's mean log-mel in those bands [len(bands)]."""
    matrix: np.ndarray
    """What it multiplies the frames' cepstra c1 .. ck by [k, k] (k is `_count` - 1 of the
    bands when made; 13 in maps stored before CEPS was 20)."""
    centres: np.ndarray | None = None
    """The sound classes' centres in the multiplied cepstra [classes, k] (None: no
    class moves; a map stored before classes were moved)."""
    shifts: np.ndarray | None = None
    """What a frame of each class is moved by, after the multiplication [classes, k]."""
    spread: float = 1.0
    """Each class's variance a direction (how softly a frame belongs to the classes)."""
    level_db: float | None = None
    """The power the map adds to the voice's speech on average, taken off every frame (None:
    each frame keeps its own power; a map stored before this was measured)."""

    @classmethod
    def fit(
        cls,
        voice16k: np.ndarray,
        speaker16k: np.ndarray,
        band: tuple[np.ndarray, np.ndarray],
        mean_smooth: int | None = MEAN_SMOOTH,
    ) -> EnvelopeMap | None:
        """The map from a voice (its render, 16 kHz) to a speaker (their recording, 16 kHz,
        whose band is ``band``); None when the recording is too narrow or either too short."""
        inside = bands_inside(band)
        if int(inside.sum()) < MIN_BANDS:
            return None
        voice, speaker = _stats(voice16k, inside), _stats(speaker16k, inside)
        if min(voice.frames, speaker.frames) < MIN_FRAMES:
            return None
        matrix = _matrix(voice.cov, speaker.cov)
        if not np.all(np.isfinite(matrix)):
            return None
        # No direction is stretched or shrunk more than MAX_MATRIX_NORM times (a direction
        # the voice hardly moves in would otherwise be blown up).
        u, sv, vt = np.linalg.svd(matrix)
        matrix = (u * np.clip(sv, 1 / MAX_MATRIX_NORM, MAX_MATRIX_NORM)) @ vt
        moved = voice.ceps @ matrix.T
        centres, spread = _classes(moved, CLASSES)
        shifts = _class_shifts(moved, speaker.ceps, centres, spread)
        if mean_smooth is not None:
            # Every class moves by the mean's detail too (a frame's posteriors sum to one).
            n_in = int(inside.sum())
            detail = _dct(n_in, _count(n_in))[1:] @ _less_smooth(
                speaker.mean - voice.mean, inside, mean_smooth
            )
            shifts = shifts + detail
        if not (np.all(np.isfinite(centres)) and np.all(np.isfinite(shifts))):
            return None
        made = cls(tuple(int(b) for b in np.flatnonzero(inside)), voice.mean, matrix, centres, shifts, spread)
        level = made.added_db(voice16k, 16_000)
        return dataclasses.replace(made, level_db=level) if np.isfinite(level) else None

    def added_db(self, audio: np.ndarray, rate: int) -> float:
        """The power (dB) the map's shape adds to ``audio``'s speech frames together."""
        spec = np.fft.rfft(_frames(audio, rate), axis=-1)
        before, after = _powers(spec, self._shape_db(spec, rate))
        speech = before > before.max() * 10 ** (-SPEECH_DB / 10)
        return float(10 * np.log10(after[speech].sum() / before[speech].sum()))

    def to_json(self) -> dict:
        def rows(m: np.ndarray) -> list[list[float]]:
            return [[round(float(v), 5) for v in row] for row in m]

        stored = {
            "bands": list(self.bands),
            "mean": [round(float(v), 5) for v in self.mean],
            "matrix": rows(self.matrix),
        }
        if self.centres is not None and self.shifts is not None:
            stored |= {
                "centres": rows(self.centres),
                "shifts": rows(self.shifts),
                "spread": round(self.spread, 7),
            }
        if self.level_db is not None:
            stored["level_db"] = round(self.level_db, 4)
        return stored

    @classmethod
    def from_json(cls, d: object) -> EnvelopeMap:
        """Raises ValueError for anything but a map `to_json` could have written."""
        if not isinstance(d, dict):
            raise ValueError("not an envelope map")
        bands = tuple(int(b) for b in d["bands"])
        mean = np.asarray(d["mean"], np.float64)
        matrix = np.asarray(d["matrix"], np.float64)
        if (
            len(bands) < MIN_BANDS
            or sorted(set(bands)) != list(bands)
            or not all(0 <= b < N_BANDS for b in bands)
            or mean.shape != (len(bands),)
            or matrix.ndim != 2
            or matrix.shape[0] != matrix.shape[1]
            or len(matrix) not in (_count(len(bands)) - 1, OLD_CEPS - 1)
            or not (np.all(np.isfinite(mean)) and np.all(np.isfinite(matrix)))
            or np.linalg.norm(matrix, 2) > MAX_MATRIX_NORM * (1 + 1e-3)
        ):
            raise ValueError("envelope map has the wrong shape or values")
        level = d.get("level_db")
        if level is not None and not (isinstance(level, (int, float)) and abs(level) <= MAX_GAIN_DB):
            raise ValueError("envelope map has the wrong level")
        level = None if level is None else float(level)
        if "centres" not in d:
            return cls(bands, mean, matrix, level_db=level)
        centres = np.asarray(d["centres"], np.float64)
        shifts = np.asarray(d["shifts"], np.float64)
        spread = float(d["spread"])
        if (
            centres.ndim != 2
            or not 1 <= len(centres) <= 4 * CLASSES
            or centres.shape[1] != len(matrix)
            or shifts.shape != centres.shape
            or not (np.all(np.isfinite(centres)) and np.all(np.isfinite(shifts)))
            or not (np.isfinite(spread) and spread > 0)
        ):
            raise ValueError("envelope map has the wrong sound classes")
        return cls(bands, mean, matrix, centres, shifts, spread, level)

    def gains_db(self, spec: np.ndarray, rate: int) -> np.ndarray:
        """Each FFT bin's gain (dB) for frames ``spec`` [frames, bins]."""
        bin_db = self._shape_db(spec, rate)
        before, after = _powers(spec, bin_db)
        added = 10 * np.log10(after / before)
        if self.level_db is None:
            # A map stored before `level_db`: the shape moves, each frame's power stays.
            return np.asarray(bin_db - added[:, None])
        # The voice's average loudness stays; a frame is raised HEADROOM_DB at most.
        down = self.level_db + np.maximum(0.0, added - self.level_db - HEADROOM_DB)
        return np.asarray(bin_db - down[:, None])

    def _shape_db(self, spec: np.ndarray, rate: int) -> np.ndarray:
        """Each FFT bin's gain (dB) for frames ``spec`` [frames, bins] from the shape's move
        alone (the level not yet set)."""
        lm = log_mel(spec, rate)
        idx = list(self.bands)
        x = lm[:, idx] - self.mean
        d = _dct(len(idx), len(self.matrix) + 1)[1:]
        c = x @ d.T
        mapped = c @ self.matrix.T
        if self.centres is not None and self.shifts is not None:
            mapped += _posteriors(mapped, self.centres, self.spread) @ self.shifts
        moved = (mapped - c) @ d  # only what the cepstra hold moves
        level = x.mean(axis=1) * (10 / np.log(10))  # dB against the voice's mean level
        quiet, full = QUIET_DB
        weight = np.clip((level + quiet) / (quiet - full), 0.0, 1.0)
        band_db = np.zeros((len(lm), N_BANDS))
        band_db[:, idx] = np.clip(moved * (10 / np.log(10)), -MAX_GAIN_DB, MAX_GAIN_DB) * weight[:, None]
        fb = filterbank(rate)
        cover = fb.sum(axis=0)
        return np.asarray((band_db @ fb) / np.maximum(cover, 1e-9) * (cover > 1e-9))

    def warm(self, rate: int) -> None:
        """Make the tables a read at ``rate`` needs now, not at its first piece."""
        filterbank(rate)
        _window(frame_sizes(rate)[0])
        _dct(len(self.bands), len(self.matrix) + 1)

    def apply(self, audio: np.ndarray, rate: int) -> np.ndarray:
        """``audio`` (float32 mono at ``rate``) through the map, as long as it was."""
        stream = Stream(self, rate)
        return np.concatenate([*stream.feed(audio), stream.finish()]).astype(np.float32)

    def pieces(self, pieces: Iterable[np.ndarray], rate: int) -> Iterator[np.ndarray]:
        """One chunk's pieces through the map (see `Stream`); an empty piece is not yielded."""
        stream = Stream(self, rate)
        source = iter(pieces)
        try:
            for piece in source:
                yield from stream.feed(piece)
        finally:
            close = getattr(source, "close", None)
            if close is not None:
                close()  # a consumer that stops early stops what makes the pieces
        tail = stream.finish()
        if tail.size:
            yield tail


class Stream:
    """The map over one chunk's audio, piece by piece (see the module docstring)."""

    def __init__(self, envelope: EnvelopeMap, rate: int) -> None:
        self.envelope, self.rate = envelope, rate
        self.n_fft, self.hop = frame_sizes(rate)
        self.window = _window(self.n_fft)
        # Periodic Hann at a quarter hop: its squares sum to the same at every sample.
        self.norm = float(np.sum(self.window**2) / self.hop)
        pad = self.n_fft - self.hop
        self.pending = np.zeros(pad)  # input not yet in a finished frame (led by the padding)
        self.out = np.zeros(pad)  # overlap-added output of the samples in `pending`
        self.lead = pad  # padding samples at the start of `out` not to be given back
        self.fed = 0
        self.given = 0

    def feed(self, piece: np.ndarray) -> Iterator[np.ndarray]:
        x = np.asarray(piece, np.float64).reshape(-1)
        self.fed += x.size
        self.pending = np.concatenate([self.pending, x])
        self.out = np.concatenate([self.out, np.zeros(x.size)])
        done = self._run()
        if done.size:
            yield done.astype(np.float32)

    def finish(self) -> np.ndarray:
        """The rest of the chunk (its last ``n_fft - hop`` samples, filtered)."""
        self.pending = np.concatenate([self.pending, np.zeros(self.n_fft)])
        self.out = np.concatenate([self.out, np.zeros(self.n_fft)])
        return np.asarray(self._run(), np.float32)

    def _run(self) -> np.ndarray:
        """Filter every whole frame in `pending`; return the samples no later frame touches."""
        count = (len(self.pending) - self.n_fft) // self.hop + 1
        if count <= 0:
            return np.zeros(0)
        frames = np.lib.stride_tricks.sliding_window_view(self.pending, self.n_fft)[:: self.hop][:count]
        spec = np.fft.rfft(frames * self.window, axis=-1)
        spec *= 10 ** (self.envelope.gains_db(spec, self.rate) / 20)
        made = np.fft.irfft(spec, self.n_fft, axis=-1) * self.window
        for i, frame in enumerate(made):
            self.out[i * self.hop : i * self.hop + self.n_fft] += frame
        step = count * self.hop
        done = self.out[:step] / self.norm
        self.pending, self.out = self.pending[step:], self.out[step:]
        done = done[min(self.lead, step) :]
        self.lead = max(0, self.lead - step)
        done = done[: max(0, self.fed - self.given)]
        self.given += done.size
        return done
