"""Study: the aligned style fit (the decoder says the recording again, frame for frame).

Not part of enrolment: on the dev speakers it did not beat the text-free fit
(docs/benchmarks.md, "The aligned fit"). Kept so the attempt can be repeated or built on.

Alignment: a render of the recording's words (the text read, or the phones pocketsphinx's
phone loop hears: any language heard as US English phones) is aligned to the fit part by
dynamic time warping on cepstra with each utterance's mean removed plus a loudness cue, at
Kokoro's pitch-frame rate (12.5 ms). Symmetric (1,1), (1,2), (2,1) steps; the render's end
is free (its own DTW, kept as it was measured; enrolment's alignment of a text to a recording
is tray_reader/voices/align.py). Part A's `asr` columns and energy are moved onto the recording's timeline; the f0 is
the recording's own checked pitch track. Each SPSA probe decodes a stretch of that timeline
and compares it with the same stretch of the recording: log-mel inside the recording's band,
floored 45 dB below the loudest, each band's mean removed on each side, mean L1.

    nice -n 19 .venv/bin/python bench/aligned_fit_study.py --refs allison,menardi,ve9qrp
        [--rank] [--seconds 35] [--dims 8] [--seed 0]

--rank scores every stock timbre by the aligned loss instead of fitting (is the loss a
speaker measure?). allison and the stock voices held out (bf_emma, ...) are also aligned
to what they said.
"""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.speech.windows import speech_frames  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import EMBED_RATE, SpeakerEmbedder, log_mel  # noqa: E402
from tray_reader.voices.measure import pitch_track  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402
from tray_reader.voices.style_fit import TIMBRE, FitSettings, StyleFit, _band_mask, subspace  # noqa: E402

FRAME = 200
"""Samples at 16 kHz per frame (12.5 ms, Kokoro's pitch frames: 300 samples at 24 kHz)."""
CEPSTRA = 13
"""Cepstral coefficients 1..CEPSTRA-1 are compared (0, the level, is the loudness cue's)."""
LOUDNESS_WEIGHT = 2.0
"""Weight of the loudness cue (0 loud .. 1 silent) beside the cepstra."""


def frames16k(x16k: np.ndarray) -> int:
    """Number of whole frames in ``x16k``."""
    return len(x16k) // FRAME


def log_mel_frames(x16k: np.ndarray) -> np.ndarray:
    """Natural-log mel power per frame [frames16k(x), 40], each frame centred on its 12.5 ms."""
    n = frames16k(x16k)
    pad = np.pad(np.asarray(x16k, np.float32), (156, 356))  # centre the 512-sample window
    return np.asarray(log_mel(pad, hop=FRAME)[:n].astype(np.float64) * np.log(10))


FLOOR = 4.5 * np.log(10)
"""Log-mel values more than 45 dB below the loudest are raised to that floor: quiet frames'
noise would otherwise weigh as much as speech."""


def floored(lm: np.ndarray, top: float | None = None) -> np.ndarray:
    """``lm`` (natural-log mel) with nothing below ``top`` (default: its maximum) - FLOOR."""
    return np.maximum(lm, (lm.max() if top is None else top) - FLOOR)


def _dct(n_in: int, n_out: int) -> np.ndarray:
    k = np.arange(n_out)[:, None]
    n = np.arange(n_in)[None, :]
    return np.cos(np.pi * k * (2 * n + 1) / (2 * n_in))


def features(lm: np.ndarray, bands: np.ndarray | None = None) -> np.ndarray:
    """Alignment features of log-mel frames: cepstra of the bands kept, with the mean over
    the utterance's loud frames removed, and a loudness cue."""
    sel = floored(lm[:, bands] if bands is not None else lm)
    level = sel.max(axis=1)
    loud = level > level.max() - np.log(10) * 4.0
    cep = sel @ _dct(sel.shape[1], CEPSTRA).T
    cep = cep[:, 1:] - cep[loud, 1:].mean(axis=0)
    cep /= cep[loud].std() + 1e-9
    quiet = np.clip((level.max() - level) / (np.log(10) * 4.0), 0.0, 1.0)
    return np.concatenate([cep, LOUDNESS_WEIGHT * quiet[:, None]], axis=1)


@dataclass(frozen=True)
class Alignment:
    """Where each recording frame is in the render."""

    render_frame: np.ndarray
    """int [recording frames]: the render frame each recording frame was matched to."""
    cost: float
    """Mean feature distance along the path (lower: the two say the same more clearly)."""


def dtw(render: np.ndarray, recording: np.ndarray) -> Alignment:
    """Align feature frames ``recording`` [J, d] to ``render`` [I, d] (see the module doc)."""
    n_i, n_j = len(render), len(recording)
    if n_i < 2 or n_j < 2:
        raise ValueError("too short to align")
    c = np.sqrt(((render[:, None, :] - recording[None, :, :]) ** 2).sum(axis=2))
    inf = np.inf
    d = np.full((n_i, n_j), inf)
    move = np.zeros((n_i, n_j), np.int8)
    d[0, 0] = c[0, 0]
    for j in range(1, n_j):
        diag = np.full(n_i, inf)
        diag[1:] = d[:-1, j - 1]
        fast = np.full(n_i, inf)  # render two frames for this one: via (i-1, j)
        fast[2:] = d[:-2, j - 1] + c[1:-1, j]
        slow = np.full(n_i, inf)  # recording two frames for one render frame: via (i, j-1)
        if j >= 2:
            slow[1:] = d[:-1, j - 2] + c[1:, j - 1]
        options = np.stack([diag, fast, slow])
        move[:, j] = np.argmin(options, axis=0)
        d[:, j] = c[:, j] + options[move[:, j], np.arange(n_i)]
    lengths = np.arange(n_i) + n_j  # the symmetric steps' weight along any path to (i, J-1)
    end = int(np.argmin(d[:, -1] / lengths))
    if not np.isfinite(d[end, -1]):
        raise ValueError("the recording and the render are too different in length to align")
    out = np.zeros(n_j, np.int64)
    i, j = end, n_j - 1
    while j > 0:
        out[j] = i
        m = move[i, j]
        if m == 0:
            i, j = i - 1, j - 1
        elif m == 1:
            i, j = i - 2, j - 1
        else:
            out[j - 1] = i
            i, j = i - 1, j - 2
    out[0] = max(i, 0)
    return Alignment(out, float(d[end, -1] / lengths[end]))


def retime(values: np.ndarray, alignment: Alignment) -> np.ndarray:
    """Per-pitch-frame values [..., I] of the render moved to the recording's frames."""
    return np.asarray(values[..., np.minimum(alignment.render_frame, values.shape[-1] - 1)])


def retime_columns(asr: np.ndarray, alignment: Alignment) -> np.ndarray:
    """Part A's ``asr`` [1, C, I/2] moved to the recording: one column per two recording
    frames, the column under the first of them."""
    cols = alignment.render_frame[0::2][: len(alignment.render_frame) // 2] // 2
    return np.ascontiguousarray(asr[:, :, np.minimum(cols, asr.shape[2] - 1)])


def pitch_frames(f0_10ms: np.ndarray, n: int) -> np.ndarray:
    """A 10 ms F0 track (0 unvoiced) on `n` frames of 12.5 ms; gaps of up to 3 frames inside
    voiced speech are bridged (a checked track drops single doubtful frames)."""
    t = (np.arange(n) + 0.5) * FRAME / EMBED_RATE
    idx = np.minimum((t * 100).astype(int), len(f0_10ms) - 1)
    f0 = np.asarray(f0_10ms, np.float64)[idx]
    voiced = np.flatnonzero(f0 > 0)
    for a, b in zip(voiced[:-1], voiced[1:], strict=True):
        if 1 < b - a <= 4:
            f0[a + 1 : b] = np.exp(np.interp(np.arange(a + 1, b), [a, b], np.log([f0[a], f0[b]])))
    return f0


def sine_phase(f0: np.ndarray, rate: int = 24_000, harmonics: int = 9) -> np.ndarray:
    """The sine source's running phase [1, n, harmonics] for an f0 curve [1, n] (as part A
    computes it: the sum of f0 times each harmonic over the output rate)."""
    h = np.arange(1, harmonics + 1, dtype=np.float64)
    return np.cumsum(np.asarray(f0, np.float64)[0][:, None] * h / rate, axis=0)[None].astype(np.float32)


ARPABET = {
    "AA": "ɑ", "AE": "æ", "AH": "ʌ", "AO": "ɔ", "AW": "W", "AY": "I", "EH": "ɛ", "ER": "ɜɹ",
    "EY": "A", "IH": "ɪ", "IY": "i", "OW": "O", "OY": "Y", "UH": "ʊ", "UW": "u", "B": "b",
    "CH": "ʧ", "D": "d", "DH": "ð", "F": "f", "G": "ɡ", "HH": "h", "JH": "ʤ", "K": "k",
    "L": "l", "M": "m", "N": "n", "NG": "ŋ", "P": "p", "R": "ɹ", "S": "s", "SH": "ʃ",
    "T": "t", "TH": "θ", "V": "v", "W": "w", "Y": "j", "Z": "z", "ZH": "ʒ",
}  # fmt: skip
"""The recogniser's phones (CMU ARPAbet) as Kokoro's American phoneme characters."""
PAUSE_FRAMES = 20
"""A silence the recogniser hears of at least this many 10 ms frames becomes a comma."""


def phones(x16k: np.ndarray) -> list[str]:
    """Phoneme strings (Kokoro's characters), one per stretch between long pauses, of what
    the recogniser's phone loop hears in ``x16k``; [] without the recogniser. Any language
    is heard as US English phones: good enough to render something that aligns."""
    try:
        from pocketsphinx import Decoder, get_model_path
    except ImportError:
        return []
    model = os.path.join(get_model_path(), "en-us", "en-us-phone.lm.bin")
    pcm = (np.clip(np.asarray(x16k, np.float32), -1.0, 1.0) * 32767).astype(np.int16)
    decoder = Decoder(samprate=EMBED_RATE, loglevel="FATAL", allphone=model, lm=None, lw=2.0, beam=1e-20)
    decoder.start_utt()
    decoder.process_raw(pcm.tobytes(), full_utt=True)
    decoder.end_utt()
    out, current = [], ""
    for seg in decoder.seg():
        p = ARPABET.get(seg.word)
        if p is not None:
            current += p
        elif seg.end_frame - seg.start_frame + 1 >= PAUSE_FRAMES and current:
            out.append(current + ",")
            current = ""
    if current:
        out.append(current + ".")
    return out


GAP_FRAMES = 16
"""Pitch frames of silence put between the render's chunks (the recording pauses there too)."""


class AlignedFit(StyleFit):
    """The aligned fit: the decoder says the recording again, frame for frame.

    Part A speaks the recording's words (`chunks` of phoneme ids: the text the user read, or
    the phones a recogniser heard) with the start pack; that render is aligned to the fit part
    (`dtw`), and its `asr` columns and energy are moved onto the recording's timeline;
    the f0 is the recording's own checked pitch track (`measure.pitch_track`), so the timbre
    does not have to make up for a different melody. Each probe decodes a stretch of that
    timeline and compares it with the same stretch of the recording, frame by frame: log-mel
    inside the recording's band, each band's mean over the stretch's speech frames removed
    on each side (a fixed channel cancels out), mean L1. The last quarter of the timeline is
    held out for early stopping. Log-mel values are floored 45 dB below the loudest
    (`floored`). StyleFit's subspace, packs, decoding and SPSA loop are reused; its
    text-free features and loss are replaced (its __init__ is not called)."""

    def __init__(
        self,
        engine: KokoroEngine,
        chunks: Sequence[Sequence[int]],
        start: np.ndarray,
        fit16k: np.ndarray,
        settings: FitSettings,
        speed: float = 1.0,
    ) -> None:
        self.engine, self.settings, self.start, self.evaluations = engine, settings, start, 0
        self.directions, _ = subspace(settings.dims)
        chunks = [list(c) for c in chunks if c]
        if not chunks:
            raise ValueError("nothing to align: no phonemes")
        self.bands = _band_mask(fit16k)
        asr, f0, energy, audio = self._render(chunks, start, speed)
        n = frames16k(fit16k) // 2 * 2
        rec_lm = log_mel_frames(fit16k)[:n]
        ren_lm = log_mel_frames(audio)
        self.alignment = dtw(features(ren_lm, self.bands), features(rec_lm, self.bands))
        track = pitch_track(fit16k)
        rec_f0 = pitch_frames(track.f0, n)[None].astype(np.float32)
        self._features = (
            retime_columns(asr, self.alignment),
            rec_f0,
            retime(energy, self.alignment).astype(np.float32),
            sine_phase(rec_f0),
        )
        self._row = start[int(np.median([len(c) for c in chunks])), 0].copy()
        self.target = floored(rec_lm[:, self.bands])
        level = self.target.max(axis=1)
        self.speech = level > np.percentile(level, 95) - np.log(10) * 3.5
        cols = n // 2
        self._held_from = max(1, int(cols * 0.75))
        self._cols = cols

    def _render(
        self, chunks: list[list[int]], pack: np.ndarray, speed: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Part A's asr, f0, energy for all chunks (speech only, a gap between chunks) and
        their audio at 16 kHz."""
        asrs, f0s, energies, audios = [], [], [], []
        for i, ids in enumerate(chunks):
            p = self.engine.part_a(ids, pack, speed)
            assert p is not None
            lo, hi = speech_frames(p.asr)
            self._row = pack[len(ids), 0].copy()
            audio = self._decode16k(np.zeros(self.settings.dims), (p.asr, p.f0, p.energy, p.phase), (lo, hi))
            asr, f0, energy = p.asr[:, :, lo:hi], p.f0[:, 2 * lo : 2 * hi], p.energy[:, 2 * lo : 2 * hi]
            if i:
                gap = GAP_FRAMES // 2
                asrs.append(np.repeat(asr[:, :, :1], gap, axis=2))
                f0s.append(np.zeros((1, 2 * gap), np.float32))
                energies.append(np.repeat(energy[:, :1], 2 * gap, axis=1))
                audios.append(np.zeros(2 * gap * FRAME, np.float32))
            asrs.append(asr)
            f0s.append(f0)
            energies.append(energy)
            audios.append(audio[: 2 * (hi - lo) * FRAME])
        return (
            np.concatenate(asrs, axis=2),
            np.concatenate(f0s, axis=1),
            np.concatenate(energies, axis=1),
            np.concatenate(audios),
        )

    def speak16k(self, z: np.ndarray, span: tuple[int, int] | None = None) -> np.ndarray:
        """16 kHz audio of `asr` columns `span` (default: all) on the recording's timeline."""
        return self._decode16k(z, self._features, span or (0, self._cols))

    def _loss(self, z: np.ndarray, span: tuple[int, int]) -> float:
        a, b = span
        got = floored(log_mel_frames(self.speak16k(z, span))[:, self.bands])
        want = self.target[2 * a : 2 * b]
        mask = self.speech[2 * a : 2 * b][: len(got)]
        got, want = got[: len(mask)][mask], want[: len(mask)][mask]
        if len(got) < 4:
            return 0.0
        return float(np.abs((got - got.mean(axis=0)) - (want - want.mean(axis=0))).mean())

    def crop_loss(self, z: np.ndarray, span: tuple[int, int]) -> float:
        return self._loss(z, span)

    def held_loss(self, z: np.ndarray) -> float:
        return self._loss(z, (self._held_from, self._cols))

    def _crop(self, rng: np.random.Generator) -> tuple[int, int]:
        n = self.settings.crop_frames
        if self._held_from <= n:
            return 0, self._held_from
        for _ in range(20):  # a stretch that is mostly speech
            a = int(rng.integers(0, self._held_from - n))
            if self.speech[2 * a : 2 * (a + n)].mean() > 0.5:
                break
        return a, a + n


ALLISON_TEXT = "/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz"


def allison_text(seconds: float) -> str:
    """The transcript of bench_enroll's clip A for allison (its first prompts)."""
    import soundfile

    said = {}
    with gzip.open(ALLISON_TEXT, "rt", errors="replace") as f:
        for line in f:
            if ":" in line:
                k, v = line.split(":", 1)
                said[k.strip()] = v.strip()
    total, words = 0.0, []
    for f in be._prompt_files("en_US_f_Allison"):
        total += soundfile.info(f).duration
        words.append(said.get(os.path.basename(f)[:-4], ""))
        if total >= seconds:
            break
    return " ".join(words)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default="allison,menardi,ve9qrp")
    ap.add_argument("--rank", action="store_true")
    ap.add_argument("--seconds", type=float, default=35.0)
    ap.add_argument("--dims", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    engine = KokoroEngine.load()
    fe = TextFrontEnd(EnglishPhonemizer())
    renderer = VoiceRenderer(engine, fe)
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    settings = FitSettings(dims=args.dims, seed=args.seed)
    for ref in args.refs.split(","):
        (a, ra), (b, rb), exclude = be.clips(ref, renderer)
        rec = prepare(a, ra)
        measure = be.distance_to(prepare(b, rb).speech16k, embedder)
        fit16k, _judged = guard.split(rec.speech16k)
        p = profiles.without(set(exclude))
        nearest = p.nearest(fit16k, embedder)
        start = model_files.stock_pack(nearest)
        ceiling = measure(rec.speech16k)
        d0 = measure(renderer.render16k(start, 1.0, [guard.JUDGE_TEXT]))

        def closed(pack: np.ndarray, d0=d0, ceiling=ceiling, measure=measure) -> str:
            d = measure(renderer.render16k(pack, 1.0, [guard.JUDGE_TEXT]))
            return "/".join(f"{(d0[i] - d[i]) / (d0[i] - ceiling[i]):+.0%}" for i in range(2))

        sources = {"phones": [fe.ids(s) for s in phones(fit16k)]}
        if ref == "allison":
            sources["text"] = renderer.ids(allison_text(14.0))
        elif ref not in be.SPEAKERS:  # a stock voice held out, reading bench_enroll's TEXT_A
            sources["text"] = renderer.ids(f"{be.TEXT_A} {be.TEXT_A_MORE}")
        for source, chunks in sources.items():
            fit = AlignedFit(engine, chunks, start, fit16k, settings)
            head = f"{ref} ({source}, alignment cost {fit.alignment.cost:.2f}): nearest {nearest}"
            if args.rank:
                loss = {}
                for name in p.names:
                    fit._row[:TIMBRE] = model_files.stock_pack(name)[100, 0, :TIMBRE]
                    loss[name] = fit.held_loss(np.zeros(args.dims))
                order = sorted(loss, key=loss.__getitem__)
                best = start.copy()
                best[:, :, :TIMBRE] = model_files.stock_pack(order[0])[:, :, :TIMBRE]
                print(
                    f"{head} ranks {order.index(nearest) + 1} of {len(order)}; first {order[:4]}; "
                    f"the first's timbre closes {closed(best)}",
                    flush=True,
                )
                continue
            r = fit.run(time.monotonic() + args.seconds)
            print(
                f"{head}; aligned fit: {r.steps} steps, held-out loss {r.start_loss:.3f} -> {r.loss:.3f}, "
                f"gap closed {closed(r.pack)}",
                flush=True,
            )
        if not args.rank:
            ids = [i for chunk in renderer.ids(" ".join(PROFILE_TEXT)) for i in chunk]
            r = StyleFit(engine, ids, start, fit16k, settings).run(time.monotonic() + args.seconds)
            print(f"    text-free fit: {r.steps} steps, gap closed {closed(r.pack)}", flush=True)
    return 0


PROFILE_TEXT = (
    "The old lighthouse keeper walked slowly along the beach every morning.",
    "Could you please bring me a cup of tea and the newspaper from the kitchen?",
)


if __name__ == "__main__":
    sys.exit(main())
