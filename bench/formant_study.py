"""Does a formant shift bring a stock voice closer to a speaker?

Vocal tract length is a large part of how a voice sounds, and Kokoro's stock voices are a
few dozen points. A formant shift by a factor ``a`` costs almost nothing at read time: the
model speaks at pitch 1/a and speed 1/a, and the audio is played as if recorded at 24·a kHz
(every frequency times a, so the pitch and the length come back to the voice's own, and the
formants move by a). This study renders the nearest stock voice (by clip A, as enrolment
picks it) saying guard.JUDGE_TEXT at several ``a`` and prints the gap each closes on clip B,
and its distances to clip A's held-back part (what the guard would judge it by).

    nice -n 19 .venv/bin/python bench/formant_study.py [--refs june,carlo] [--factors 0.92,1,1.08]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import soxr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.speech.types import SAMPLE_RATE, Prosody  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

REFS = "june,carlo,ivrvoice,vk5qi,esco,armelle,allison,menardi,ve9qrp,bf_emma,am_michael"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default=REFS)
    ap.add_argument("--factors", default="0.88,0.92,0.96,1.0,1.04,1.08,1.12")
    args = ap.parse_args()
    factors = sorted({float(a) for a in args.factors.split(",")} | {1.0})
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    for ref in args.refs.split(","):
        (a, ra), (b, rb), exclude = be.clips(ref, renderer)
        clip_a, clip_b = prepare(a, ra).speech16k, prepare(b, rb).speech16k
        to_b = be.distance_to(clip_b, embedder)
        to_held_back = be.distance_to(guard.split(clip_a)[1], embedder)
        space = profiles.without(set(exclude))
        nearest = space.nearest(clip_a, embedder)
        ceiling = to_b(clip_a)
        pack = model_files.stock_pack(nearest)
        rows = {}
        for f in factors:
            audio = renderer.render(pack, 1.0 / f, [guard.JUDGE_TEXT], Prosody(pitch=1.0 / f))
            x16 = soxr.resample(audio, SAMPLE_RATE * f, 16_000).astype(np.float32)
            rows[f] = to_b(x16), to_held_back(x16)
        print(f"{ref}: nearest {nearest}; clip A to clip B {ceiling[0]:.3f}/{ceiling[1]:.3f}")
        base = rows[1.0][0]
        for f, (d, held) in rows.items():
            closed = [(base[i] - d[i]) / (base[i] - ceiling[i]) for i in range(2)]
            print(
                f"  a={f:.2f}: to clip B {d[0]:.3f}/{d[1]:.3f}, closes {closed[0]:+.0%}/{closed[1]:+.0%}; "
                f"to the held-back part {held[0]:.3f}/{held[1]:.3f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
