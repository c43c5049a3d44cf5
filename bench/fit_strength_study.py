"""Does a fitted style taken only part of the way from its start speak more clearly?

On some speakers the style fit's voice is closer by every measure but fails the recogniser's
check, with and without its envelope map and pitch (docs/benchmarks.md). This replays what
`bench_enroll.py --save DIR` kept and, for each speaker, puts the decoder's half of the style
at a share ``a`` of the way from the fit's start to the fitted style (a = 1 is the fitted style,
0 its start), at the start's speed and the model's pitch, with and without an envelope map made
from its own render of MAP_TEXT, as enrolment makes one (docs/benchmarks.md's first figures
were from its render of CHECK_TEXT, before MAP_TEXT). For each it prints the gap closed on clip B
(enc/AHS/GE2E, from the nearest stock voice, as bench_enroll computes it) and the word errors
of the guard's check (JUDGE_TEXT and CHECK_TEXT) and of the bench's NEW_TEXT.

    nice -n 19 .venv/bin/python bench/fit_strength_study.py DIR [--shares 0,0.5,1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tests import asr  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.speech.envelope import EnvelopeMap  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder  # noqa: E402
from tray_reader.voices.enroll import MAP_TEXT  # noqa: E402
from tray_reader.voices.intelligibility import wer  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

CHECKED = f"{guard.JUDGE_TEXT} {guard.CHECK_TEXT}"


def errors(
    renderer: VoiceRenderer, pack: np.ndarray, speed: float, env: EnvelopeMap | None, text: str
) -> float:
    """The recogniser's word errors on ``pack`` saying ``text`` (through ``env``)."""
    return wer(text, asr.recognise(renderer.render16k(pack, speed, [text], None, env), 16_000))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--shares", default="0,0.5,0.75,1")
    args = ap.parse_args()
    shares = [float(a) for a in args.shares.split(",")]
    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    totals: dict[str, list] = {}
    for f in sorted(Path(args.folder).glob("*.npz")):
        z = np.load(f, allow_pickle=True)
        labels = [str(x) for x in z["labels"]]
        fitted = str(z["fitted"])
        start = fitted.removeprefix("fitted style from ")
        if fitted not in labels or start not in labels:
            print(f"{f.stem}: no fitted style with its start judged")
            continue
        i_fit, i_start = labels.index(fitted), labels.index(start)
        fit16k, _held = guard.split(z["a16"])
        band = guard.band_gain(fit16k)
        measure = be.distance_to(z["b16"], embedder)
        ceiling, nearest = np.array(measure(z["a16"])), np.array(measure(z["renders"][0]))
        stock_pack = z["packs"][0]
        print(
            f"{f.stem}: {fitted}; stock check word errors {errors(renderer, stock_pack, 1.0, None, CHECKED):.2f}",
            flush=True,
        )
        speed = float(z["speeds"][i_start])
        for a in shares:
            pack = z["packs"][i_start].copy()
            pack[..., :128] += a * (z["packs"][i_fit][..., :128] - pack[..., :128])
            envelope = EnvelopeMap.fit(renderer.render16k(pack, speed, [MAP_TEXT]), fit16k, band)
            for name, env in (("plain", None), ("mapped", envelope)):
                if name == "mapped" and env is None:
                    continue
                d = np.array(measure(renderer.render16k(pack, speed, [guard.JUDGE_TEXT], None, env)))
                closed = (nearest - d) / (nearest - ceiling)
                checked = errors(renderer, pack, speed, env, CHECKED)
                new = errors(renderer, pack, speed, env, be.NEW_TEXT)
                totals.setdefault(f"{a:g} {name}", []).append((*closed, checked, new))
                print(
                    f"  a {a:g} {name:6s}: clip B {be.percents(closed)}; "
                    f"word errors check {checked:.2f}, new text {new:.2f}",
                    flush=True,
                )
    print("mean (gap closed enc/AHS/GE2E; word errors check, new text):")
    for key, rows in totals.items():
        m = np.mean(rows, axis=0)
        print(f"  {key}: {be.percents(m[:3])}; {m[3]:.2f}, {m[4]:.2f} over {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
