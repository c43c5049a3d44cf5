"""Enrolment bench on real speakers: does the voice made get closer to the speaker than the
nearest stock voice, by two measures, on a second recording enrolment never heard?

Speakers (Debian packages, development only, never shipped; install with
  apt-get install codec2-examples asterisk-core-sounds-en-wav asterisk-core-sounds-fr-wav \
      asterisk-core-sounds-it-wav asterisk-core-sounds-ru-wav asterisk-prompt-it-menardi-wav):
  the asterisk prompt voices (Allison en, June fr, Menardi it, Carlo it, IvrvoiceRU ru;
  8 kHz telephone prompts: clip A is the first prompts in name order up to 14 s, clip B the
  prompts from the middle of the list up to 10 s), and codec2's ve9qrp and vk5qi (8 kHz
  radio; A and B are disjoint stretches). Enrolment sees clip A only, with no text (the
  prompts' words are not English or not known). Stock voices are in the search space as
  users have them. --refs also takes stock voices held out of the search (e.g. bf_emma).

Each voice (nearest stock, initial top-k blend, the search's best blend, the guarded result)
speaks guard.JUDGE_TEXT, is limited to clip B's band (as the guard does), and is measured
against clip B by
  enc  1 - speaker-encoder cosine (lower is closer)
  ahs  MFCC-covariance distance after cepstral mean removal (lower is closer)
gap closed = (d(stock) - d(voice)) / (d(stock) - d(clip A vs clip B)): 0 is no better than
the nearest stock voice, 1 is as close as the speaker's own other recording.

    .venv/bin/python bench/bench_enroll.py [--budget 60] [--refs allison,june,...]
"""

from __future__ import annotations

import argparse
import glob
import sys
import time
from pathlib import Path

import numpy as np
import soundfile
import soxr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tray_reader import model_files  # noqa: E402
from tray_reader.errors import EnrollmentError  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import checks, guard, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder, cosine  # noqa: E402
from tray_reader.voices.enroll import Candidate, EnrollSettings, build_pack, match  # noqa: E402
from tray_reader.voices.measure import ahs_distance  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

ASTERISK = "/usr/share/asterisk/sounds"
CODEC2 = "/usr/share/codec2/wav"
SPEAKERS = {
    "allison": ("asterisk", "en_US_f_Allison"),
    "june": ("asterisk", "fr_CA_f_June"),
    "menardi": ("asterisk", "it_IT_f_Menardi"),
    "carlo": ("asterisk", "it_IT_m_Carlo"),
    "ivrvoice": ("asterisk", "ru_RU_f_IvrvoiceRU"),
    "ve9qrp": ("codec2", "ve9qrp.wav:0-15:60-72"),
    "vk5qi": ("codec2", "vk5qi.wav:0-7:7-13.5"),
}
DEFAULT_REFS = ",".join(SPEAKERS)
TEXT_A = (
    "When the sunlight strikes raindrops in the air, they act as a prism and form a rainbow. "
    "The rainbow is a division of white light into many beautiful colours."
)
TEXT_B = "Please call Stella and ask her to bring these things with her from the store."


def _prompts(folder: str, start: int, seconds: float) -> tuple[np.ndarray, int]:
    files = sorted(glob.glob(f"{ASTERISK}/{folder}/*.wav"))
    if not files:
        raise SystemExit(f"{ASTERISK}/{folder}: not installed (see this script's docstring)")
    out, total, rate = [], 0.0, 8000
    for f in files[start:]:
        x, rate = soundfile.read(f, dtype="float32")
        out += [x, np.zeros(rate // 4, np.float32)]
        total += len(x) / rate
        if total >= seconds:
            break
    return np.concatenate(out), rate


def clips(ref: str, renderer: VoiceRenderer) -> tuple[tuple[np.ndarray, int], tuple[np.ndarray, int], tuple]:
    """(clip A, clip B, stock voices to exclude) for a reference name."""
    if ref in SPEAKERS:
        kind, spec = SPEAKERS[ref]
        if kind == "asterisk":
            n = len(glob.glob(f"{ASTERISK}/{spec}/*.wav"))
            return _prompts(spec, 0, 14.0), _prompts(spec, n // 2, 10.0), ()
        name, a, b = spec.split(":")
        x, rate = soundfile.read(f"{CODEC2}/{name}", dtype="float32")

        def cut(r: str) -> np.ndarray:
            lo, hi = (float(t) for t in r.split("-"))
            return x[int(lo * rate) : int(hi * rate)]

        return (cut(a), rate), (cut(b), rate), ()
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
        try:
            rec = prepare(a, ra)
            checks.check_sound(rec.speech16k, rec.speech_seconds)
            checks.check_one_speaker(rec.speech16k, embedder)
            b16 = prepare(b, rb).speech16k
        except EnrollmentError as e:
            print(f"{ref}: refused: {e}", flush=True)
            continue
        target = embedder.embed(b16)
        band = guard.band_gain(b16)

        def measure(audio16k: np.ndarray, b16=b16, target=target, band=band) -> tuple[float, float]:
            audio16k = guard.limit_band(audio16k, band)
            return 1 - cosine(embedder.embed(audio16k), target), ahs_distance(audio16k, b16)

        def judge(c: Candidate) -> tuple[float, float]:
            return measure(renderer.render16k(build_pack(c), c.speed, [guard.JUDGE_TEXT]))

        base = EnrollSettings(budget_seconds=args.budget, exclude=exclude)
        t0 = time.monotonic()
        final = match(rec, renderer, embedder, profiles, None, base)
        took = time.monotonic() - t0
        nearest = Candidate("nearest", {final.nearest_stock: 1.0}, {final.nearest_stock: 1.0})
        searched = final.searched or final.best
        row = {
            "ref": ref,
            "nearest_name": final.nearest_stock,
            "nearest": judge(nearest),
            "blend": judge(final.initial),
            "searched": judge(searched),
            "fitted": judge(final.fitted) if final.fitted else (float("nan"), float("nan")),
            "guarded": judge(final.best),
            "ceiling": (1 - cosine(embedder.embed(rec.speech16k), target), ahs_distance(rec.speech16k, b16)),
            "took": took,
            "kept": final.best.label,
            "searched_label": searched.label,
        }
        rows.append(row)
        print(
            f"{ref}: nearest {final.nearest_stock}; search's best {searched.label!r}; kept {final.best.label!r}"
        )
        print(f"    guard: {final.verdict.message if final.verdict else '-'}")
        print_table(rows[-1:])
        sys.stdout.flush()
    print()
    print_table(rows)
    return 0


def closure(r: dict, key: str, i: int) -> float:
    gap = r["nearest"][i] - r["ceiling"][i]
    return (r["nearest"][i] - r[key][i]) / gap if abs(gap) > 1e-9 else float("nan")


def print_table(rows: list[dict]) -> None:
    print(
        "d = (1 - encoder cosine) / MFCC-covariance distance to clip B (lower is closer); voices say JUDGE_TEXT"
    )
    print("gap closed by the blend / the search's best / the style fit / the guarded result (enc/ahs)")
    print(
        f"{'speaker':<10} {'nearest':<11} {'d stock':>12} {'d blend':>12} {'d search':>12} {'d fitted':>12} "
        f"{'d guarded':>12} {'d clip A':>12} {'blend':>11} {'search':>11} {'fitted':>11} {'guarded':>11} "
        f"{'time':>5}  kept"
    )
    for r in rows:

        def d(k: str, r=r) -> str:
            return f"{r[k][0]:.3f}/{r[k][1]:.3f}"

        def g(k: str, r=r) -> str:
            return f"{closure(r, k, 0):+.0%}/{closure(r, k, 1):+.0%}"

        print(
            f"{r['ref']:<10} {r['nearest_name']:<11} {d('nearest'):>12} {d('blend'):>12} {d('searched'):>12} "
            f"{d('fitted'):>12} {d('guarded'):>12} {d('ceiling'):>12} {g('blend'):>11} {g('searched'):>11} "
            f"{g('fitted'):>11} {g('guarded'):>11} "
            f"{r['took']:4.0f}s  {r['kept']}"
        )
    if rows:
        for k in ("blend", "searched", "fitted", "guarded"):
            enc = np.nanmean([closure(r, k, 0) for r in rows])
            ahs = np.nanmean([closure(r, k, 1) for r in rows])
            print(f"mean gap closed, {k}: enc {enc:+.0%}, ahs {ahs:+.0%}")


if __name__ == "__main__":
    sys.exit(main())
