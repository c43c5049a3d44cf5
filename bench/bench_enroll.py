"""Enrolment bench: how close does an enrolled voice get, by two independent measures?

Reference speakers:
  * stock voices held out of the search space (the enrolment never sees their packs);
  * espeak-ng voices (an unrelated formant synthesiser, a Debian program run as a subprocess);
  * real speech, if any is passed with --wav NAME=FILE_A,FILE_B (none ships in our packages).

Each reference has a "recording" (clip A, text A) and a second clip of the same speaker
(clip B, text B). Enrolment sees clip A and text A only. Every voice is then judged on text B,
against clip A, by
  enc  speaker-encoder cosine (the encoder enrolment itself optimises; higher is closer)
  ahs  arithmetic-harmonic sphericity distance of CMN'd MFCC(+delta) covariances
       (tray_reader.voices.measure; independent of the encoder; lower is closer).
The ceiling is clip B itself (the same speaker saying other words).
Columns: nearest stock voice, initial top-k blend, blend + pitch/rate steps (no search),
final voice (with the random search for --budget seconds), ceiling, time of the final run.

    .venv/bin/python bench/bench_enroll.py [--budget 60] [--refs bf_emma,espeak:en-us+f3 ...]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile
import soxr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder, cosine  # noqa: E402
from tray_reader.voices.enroll import Candidate, EnrollSettings, build_pack, match  # noqa: E402
from tray_reader.voices.measure import ahs_distance  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

TEXT_A = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours. "
    "These take the shape of a long round arch, with its path high above."
)
TEXT_B = (
    "Please call Stella and ask her to bring these things with her from the store. "
    "Six spoons of fresh snow peas, five thick slabs of blue cheese, and maybe a snack for her brother Bob."
)
DEFAULT_REFS = "bf_emma,am_michael,af_nicole,espeak:en-us,espeak:en-us+f3,espeak:en-gb-x-rp+f4"


def espeak(voice: str, text: str) -> tuple[np.ndarray, int]:
    if not shutil.which("espeak-ng"):
        raise SystemExit("espeak-ng is not installed (apt-get install espeak-ng)")
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "x.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", "150", "-w", str(out), text], check=True)
        x, rate = soundfile.read(str(out), dtype="float32")
    return x, rate


def clips(ref: str, renderer: VoiceRenderer) -> tuple[tuple[np.ndarray, int], tuple[np.ndarray, int], tuple]:
    """(clip A, clip B, stock voices to exclude) for a reference name."""
    if ref.startswith("espeak:"):
        v = ref.split(":", 1)[1]
        return espeak(v, TEXT_A), espeak(v, TEXT_B), ()
    if ref.startswith("wav:"):
        a, b = ref.split(":", 1)[1].split(",")
        return soundfile.read(a, dtype="float32"), soundfile.read(b, dtype="float32"), ()
    pack = model_files.stock_pack(ref)
    return (
        (renderer.render(pack, 1.0, [TEXT_A]), 24_000),
        (renderer.render(pack, 1.0, [TEXT_B]), 24_000),
        (ref,),
    )


def to16k(x: np.ndarray, rate: int) -> np.ndarray:
    if x.ndim == 2:
        x = x.mean(axis=1)
    return soxr.resample(x, rate, 16_000).astype(np.float32) if rate != 16_000 else x


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=60.0)
    ap.add_argument("--refs", default=DEFAULT_REFS)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()

    engine = KokoroEngine.load(args.threads)
    renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    rows = []
    for ref in args.refs.split(","):
        (a, ra), (b, rb), exclude = clips(ref, renderer)
        rec = prepare(a, ra)
        a16, b16 = rec.speech16k, to16k(b, rb)
        target = embedder.embed(a16)

        def judge(c: Candidate, a16=a16, target=target) -> tuple[float, float]:
            audio = renderer.render16k(build_pack(c), c.speed, [TEXT_B])
            return cosine(embedder.embed(audio), target), ahs_distance(audio, a16)

        base = EnrollSettings(budget_seconds=args.budget, exclude=exclude)
        t0 = time.monotonic()
        final = match(rec, renderer, embedder, profiles, TEXT_A, base)
        took = time.monotonic() - t0
        nearest = Candidate("nearest", {final.nearest_stock: 1.0}, {final.nearest_stock: 1.0})
        ceiling = (cosine(embedder.embed(b16), target), ahs_distance(b16, a16))
        row = {
            "ref": ref,
            "nearest": (final.nearest_stock, *judge(nearest)),
            "initial": judge(final.initial),
            "steps": judge(final.before_search),
            "final": judge(final.best),
            "ceiling": ceiling,
            "took": took,
            "renders": final.renders,
            "final_label": final.best.label,
            "steps_label": final.before_search.label,
            "tried": final.tried,
        }
        rows.append(row)
        print_row(row)
        print_table(rows[-1:], header=len(rows) == 1)
        sys.stdout.flush()
    print()
    print_table(rows)
    return 0


def print_row(r: dict) -> None:
    print(
        f"{r['ref']}: nearest {r['nearest'][0]}; before search: {r['steps_label']!r}; "
        f"final: {r['final_label']!r}; {r['renders']} renders",
        file=sys.stderr,
        flush=True,
    )
    for label, score in r["tried"]:
        print(f"    tried {label!r}: encoder {score:.3f} on text A", file=sys.stderr, flush=True)


def print_table(rows: list[dict], header: bool = True) -> None:
    hdr = (
        f"{'reference':<22} {'nearest stock':<14} {'near enc/ahs':>13} {'blend enc/ahs':>14} "
        f"{'steps enc/ahs':>14} {'final enc/ahs':>14} {'ceil enc/ahs':>13} {'gap closed':>11} {'time':>6}"
    )
    if header:
        print("enc = encoder cosine (higher closer); ahs = MFCC-covariance distance (lower closer); text B")
        print(hdr)
    for r in rows:
        n, f, c = r["nearest"], r["final"], r["ceiling"]

        def closed(i: int, n=n, f=f, c=c) -> str:
            gap = c[i] - n[i + 1] if i == 0 else n[i + 1] - c[i]
            got = f[i] - n[i + 1] if i == 0 else n[i + 1] - f[i]
            return f"{got / gap:+.0%}" if abs(gap) > 1e-9 else "n/a"

        print(
            f"{r['ref']:<22} {n[0]:<14} {n[1]:6.3f}/{n[2]:5.3f} {r['initial'][0]:7.3f}/{r['initial'][1]:5.3f} "
            f"{r['steps'][0]:7.3f}/{r['steps'][1]:5.3f} {f[0]:7.3f}/{f[1]:5.3f} {c[0]:6.3f}/{c[1]:5.3f} "
            f"{closed(0):>5}/{closed(1):>5} {r['took']:5.0f}s"
        )


if __name__ == "__main__":
    sys.exit(main())
