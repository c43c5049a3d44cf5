"""Precomputed profiles of the stock voices: speaker embedding and pitch of fixed renders.

Made once with `python -m tray_reader.voices.stock_profiles` (renders PROFILE_SENTENCES with
each stock voice) and shipped as models/stock_embeddings.npz, checked by its manifest entry;
`python -m tray_reader.voices.stock_profiles --other` makes models/other_embeddings.npz, the
same for Kokoro's voices for other languages (each pack whole, reading the same English), whose
timbre halves enrolment tries (`load_other`).

The speaker encoder hears a recording's band: a telephone or headset recording stops near
3.4-4 kHz, and the stock voices' renders, which go to 8 kHz at 16 kHz, then all sound far
from it, the voices with least above 4 kHz nearest. So the file also holds each voice's
embedding with its render cut at BAND_TOPS, and enrolment compares a recording with the
stock voices cut at the top of its own band (`for_band`).
"""

from __future__ import annotations

import hashlib
import io
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tray_reader import model_files
from tray_reader.voices import guard
from tray_reader.voices.embedder import SpeakerEmbedder
from tray_reader.voices.measure import pitch_stats
from tray_reader.voices.render import PROFILE_SENTENCES, VoiceRenderer

FILE = "stock_embeddings.npz"
OTHER_FILE = "other_embeddings.npz"
BAND_STEP = 62.5
"""Hz between the band tops profiled (four bins of guard.band_gain's spectrum)."""
BAND_TOPS = np.arange(2500.0, 8000.0 - BAND_STEP / 2, BAND_STEP)
"""Upper band edges (Hz) the stock voices are profiled at, below the full band (8 kHz)."""


@dataclass(frozen=True)
class StockProfiles:
    """One row per stock voice."""

    names: tuple[str, ...]
    """Stock voice names, in row order."""
    embeddings: np.ndarray
    """Unit speaker embeddings [n, 256] of PROFILE_SENTENCES spoken by each voice."""
    f0: np.ndarray
    """Median F0 in Hz [n]."""
    f0_spread: np.ndarray
    """Standard deviation of log2 F0 [n] (how much the voice's pitch moves)."""
    band_tops: np.ndarray
    """Upper band edges in Hz [b] of `band_embeddings` (BAND_TOPS; none once cut)."""
    band_embeddings: np.ndarray
    """Unit embeddings [b, n, 256] of the same renders with nothing above band_tops[b]."""

    def without(self, excluded: set[str]) -> StockProfiles:
        keep = [i for i, n in enumerate(self.names) if n not in excluded]
        return StockProfiles(
            tuple(self.names[i] for i in keep),
            self.embeddings[keep],
            self.f0[keep],
            self.f0_spread[keep],
            self.band_tops,
            self.band_embeddings[:, keep],
        )

    def joined(self, other: StockProfiles) -> StockProfiles:
        """These rows, then ``other``'s (both as heard through the same band: `for_band` the
        same top first, or neither)."""
        if not np.array_equal(self.band_tops, other.band_tops):
            raise ValueError("profiles heard through different bands")
        return StockProfiles(
            self.names + other.names,
            np.concatenate([self.embeddings, other.embeddings]),
            np.concatenate([self.f0, other.f0]),
            np.concatenate([self.f0_spread, other.f0_spread]),
            self.band_tops,
            np.concatenate([self.band_embeddings, other.band_embeddings], axis=1),
        )

    def for_band(self, top_hz: float) -> StockProfiles:
        """These profiles as heard through a band that stops at ``top_hz``: the embeddings of
        the highest band top at or below it (content the recording lacks weighs more than a
        little it has), the full-band ones when it reaches within half a step of 8 kHz."""
        if not len(self.band_tops) or top_hz > self.band_tops[-1] + BAND_STEP / 2:
            return self
        i = max(0, int(np.searchsorted(self.band_tops, top_hz, side="right")) - 1)
        return replace(
            self,
            embeddings=self.band_embeddings[i],
            band_tops=self.band_tops[:0],
            band_embeddings=self.band_embeddings[:0],
        )

    def nearest(self, x16k: np.ndarray, embedder: SpeakerEmbedder) -> str:
        """The stock voice nearest to a 16 kHz recording, heard through its band."""
        heard = self.for_band(guard.band_top(guard.band_gain(x16k)))
        return heard.names[int(np.argmax(heard.embeddings @ embedder.embed(x16k)))]

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez(
            buf,
            names=np.array(self.names),
            embeddings=self.embeddings.astype(np.float32),
            f0=self.f0.astype(np.float32),
            f0_spread=self.f0_spread.astype(np.float32),
            band_tops=self.band_tops.astype(np.float32),
            band_embeddings=self.band_embeddings.astype(np.float16),
        )
        return buf.getvalue()


def below(top_hz: float) -> tuple[np.ndarray, np.ndarray]:
    """A band (as guard.band_gain gives) from 0 Hz up to ``top_hz``."""
    freqs = np.fft.rfftfreq(1024, 1 / guard.RATE)
    return freqs, (freqs <= top_hz).astype(np.float64)


def build(renderer: VoiceRenderer, embedder: SpeakerEmbedder, other: bool = False) -> StockProfiles:
    """Profiles of the stock voices (`other`: of Kokoro's voices for other languages)."""
    voices = model_files.other_voices() if other else [v.name for v in model_files.stock_voices()]
    names, embs, f0s, spreads, bands = [], [], [], [], []
    for name in voices:
        audio = renderer.render16k(model_files.pack(name), 1.0, PROFILE_SENTENCES)
        f0, spread = pitch_stats(audio)
        names.append(name)
        embs.append(embedder.embed(audio))
        f0s.append(f0)
        spreads.append(spread)
        bands.append([embedder.embed(guard.limit_band(audio, below(top))) for top in BAND_TOPS])
        print(f"{name}: profiled", file=sys.stderr, flush=True)
    return StockProfiles(
        tuple(names),
        np.stack(embs),
        np.array(f0s),
        np.array(spreads),
        BAND_TOPS.copy(),
        np.stack(bands, axis=1).astype(np.float32),
    )


def load(key: str = "stock_embeddings") -> StockProfiles:
    """The shipped profiles, checked against the manifest."""
    data = model_files.checked_data(key)
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        bands = z["band_embeddings"].astype(np.float32)
        bands /= np.linalg.norm(bands, axis=-1, keepdims=True) + 1e-12  # stored as float16
        return StockProfiles(
            tuple(str(n) for n in z["names"]),
            z["embeddings"],
            z["f0"].astype(np.float64),
            z["f0_spread"],
            z["band_tops"].astype(np.float64),
            bands,
        )


def load_other() -> StockProfiles:
    """The shipped profiles of Kokoro's voices for other languages."""
    return load("other_embeddings")


def main() -> int:
    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer

    args = sys.argv[1:]
    other = "--other" in args
    args = [a for a in args if a != "--other"]
    out = Path(args[0]) if args else model_files.MODELS_DIR / (OTHER_FILE if other else FILE)
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    data = build(renderer, SpeakerEmbedder.load(), other).to_bytes()
    out.write_bytes(data)
    print(f"{out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
