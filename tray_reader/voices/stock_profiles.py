"""Precomputed profiles of the stock voices: speaker embedding and pitch of fixed renders.

Made once with `python -m tray_reader.voices.stock_profiles` (renders PROFILE_SENTENCES with
each stock voice) and shipped as models/stock_embeddings.npz, checked by its manifest entry.
"""

from __future__ import annotations

import hashlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tray_reader import model_files
from tray_reader.errors import ModelFileError
from tray_reader.voices.embedder import SpeakerEmbedder
from tray_reader.voices.measure import pitch_stats
from tray_reader.voices.render import PROFILE_SENTENCES, VoiceRenderer

FILE = "stock_embeddings.npz"


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

    def without(self, excluded: set[str]) -> StockProfiles:
        keep = [i for i, n in enumerate(self.names) if n not in excluded]
        return StockProfiles(
            tuple(self.names[i] for i in keep), self.embeddings[keep], self.f0[keep], self.f0_spread[keep]
        )

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez(
            buf,
            names=np.array(self.names),
            embeddings=self.embeddings.astype(np.float32),
            f0=self.f0.astype(np.float32),
            f0_spread=self.f0_spread.astype(np.float32),
        )
        return buf.getvalue()


def build(renderer: VoiceRenderer, embedder: SpeakerEmbedder) -> StockProfiles:
    names, embs, f0s, spreads = [], [], [], []
    for v in model_files.stock_voices():
        audio = renderer.render16k(model_files.stock_pack(v.name), 1.0, PROFILE_SENTENCES)
        f0, spread = pitch_stats(audio)
        names.append(v.name)
        embs.append(embedder.embed(audio))
        f0s.append(f0)
        spreads.append(spread)
    return StockProfiles(tuple(names), np.stack(embs), np.array(f0s), np.array(spreads))


def load() -> StockProfiles:
    """The shipped profiles, checked against the manifest."""
    info = model_files.manifest().get("stock_embeddings")
    if not info:
        raise ModelFileError("The model manifest has no stock_embeddings entry. Reinstall tray-reader.")
    data = model_files._checked_data_file(info["file"], info["sha256"])
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return StockProfiles(
            tuple(str(n) for n in z["names"]), z["embeddings"], z["f0"].astype(np.float64), z["f0_spread"]
        )


def main() -> int:
    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else model_files.MODELS_DIR / FILE
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    data = build(renderer, SpeakerEmbedder.load()).to_bytes()
    out.write_bytes(data)
    print(f"{out}: {len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
