"""Shipped Kokoro model vs the derived static-int8 one (tray_reader/model/recipe.py).

Prints, for 1 and 2 intra-op threads, the real-time factor (seconds of compute per second
of audio) of each model on held-out sentences, measured interleaved (A, B, B, A, ...) and
summarised by medians, with the load average so noisy figures can be judged; then the
quality figures: log-mel distances and pocketsphinx word recall of the shipped, the
dequantised float (reference) and the derived model, whole and through the engine's
encoder/decoder split with windowed decoding.

    .venv/bin/python bench/bench_fast_model.py [--rounds 5] [--threads 1 2]
        [--models DIR]   # reuse reference.onnx / derived.onnx from an earlier --save DIR

Measured 2026-11-30 (recipe 2, 2 cores shared, load average 5.5-7.9, so absolute RTFs are
~2x a quiet machine's): RTF shipped / derived 0.753 / 0.578 at 1 thread (1.30x), 1.081 /
0.778 at 2 threads (1.39x); AVX-512 VNNI, uint8 activations (int8 ones were slower than
the shipped model). Log-mel: shipped 1.05 dB, derived 2.90 dB from the float model; recall
shipped 0.94, derived 0.96 whole; windowed 0.91 vs 0.80 here, 0.86 vs 0.85 on 8 more sentences.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.asr import recognise, word_recall  # noqa: E402
from tests.schedules import growing  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.model import (
    calibration,  # noqa: E402
    quality,  # noqa: E402
    recipe,  # noqa: E402
)
from tray_reader.model.split import split  # noqa: E402
from tray_reader.speech.sessions import make_session  # noqa: E402
from tray_reader.speech.types import SAMPLE_RATE  # noqa: E402
from tray_reader.speech.windows import WindowPlan, stream_frames  # noqa: E402


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def models(args: argparse.Namespace, base: bytes) -> tuple[bytes, bytes]:
    if args.models and (args.models / "derived.onnx").exists():
        return (args.models / "reference.onnx").read_bytes(), (args.models / "derived.onnx").read_bytes()
    t0 = time.perf_counter()
    reference, derived = recipe.derive(base, calibration.sentence_feeds(calibration.calibration_renders()))
    print(f"derived the model in {time.perf_counter() - t0:.0f} s (load {load()})")
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        (args.save / "reference.onnx").write_bytes(reference)
        (args.save / "derived.onnx").write_bytes(derived)
    return reference, derived


def rtf(
    named: dict[str, bytes], feeds: list[calibration.Feeds], threads: int, rounds: int
) -> dict[str, float]:
    sessions = {}
    for name, data in named.items():
        t0 = time.perf_counter()
        sessions[name] = make_session(data, threads)
        print(f"  session load {name}: {time.perf_counter() - t0:.2f} s")
    for s in sessions.values():  # warm-up on every length
        for f in feeds:
            s.run(None, f)
    samples: dict[str, list[float]] = {name: [] for name in named}
    order = list(named)
    for r in range(rounds):
        for f in feeds:
            for name in order if r % 2 == 0 else order[::-1]:
                t0 = time.perf_counter()
                audio = sessions[name].run(None, f)[0]
                samples[name].append((time.perf_counter() - t0) / (audio.size / SAMPLE_RATE))
    return {name: statistics.median(v) for name, v in samples.items()}


def streaming_runner(model: bytes) -> quality.Run:
    """The engine's split + windowed decoding, applied to ``model``."""
    parts = split(model)
    features, decoder = make_session(parts.features, 2), make_session(parts.decoder, 2)

    plan = WindowPlan()
    budget = growing(plan)  # the same windows for every model compared

    def run(feeds: calibration.Feeds) -> np.ndarray:
        asr, f0, energy, phase = features.run(None, feeds)
        pieces = stream_frames(
            lambda w: decoder.run(None, w)[0],
            asr,
            f0,
            energy,
            phase,
            feeds["style"],
            plan,
            None,
            None,
            budget(lambda: 0),
        )
        return np.concatenate(list(pieces))

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--models", type=Path, help="dir with reference.onnx and derived.onnx to reuse")
    ap.add_argument("--save", type=Path, help="dir to save the models built here")
    ap.add_argument("--no-quality", action="store_true")
    args = ap.parse_args()

    base = model_files.kokoro_model_bytes()
    reference, derived = models(args, base)
    renders = calibration.held_out_renders()
    feeds = calibration.sentence_feeds(renders)
    timed = feeds

    print(f"\n## real-time factor, median of {args.rounds} interleaved rounds x {len(timed)} sentences")
    print("threads  shipped  float  derived  shipped/derived   load before -> after")
    for threads in args.threads:
        before = load()
        r = rtf({"shipped": base, "float": reference, "derived": derived}, timed, threads, args.rounds)
        print(
            f"{threads:>7}  {r['shipped']:7.3f}  {r['float']:5.3f}  {r['derived']:7.3f}"
            f"  {r['shipped'] / r['derived']:15.2f}x   {before} -> {load()}"
        )
    if args.no_quality:
        return

    print("\n## quality on held-out renders (log-mel distance dB; word recall by pocketsphinx)")
    print(
        "sentence / voice                  d(ref,shp) d(ref,der) d(shp,der) d(der,der-win) d(shp,shp-win)"
        "  recall shipped / float / derived / derived-win / shipped-win"
    )
    run = {
        name: quality.session_runner(data) for name, data in (("s", base), ("r", reference), ("d", derived))
    }
    windowed, shipped_windowed = streaming_runner(derived), streaming_runner(base)
    rows = []
    report = quality.QualityReport()
    for (sentence, voice), f in zip(renders, feeds, strict=True):
        s, r, d, dw, sw = run["s"](f), run["r"](f), run["d"](f), windowed(f), shipped_windowed(f)
        rec = [word_recall(sentence, recognise(x, SAMPLE_RATE)) for x in (s, r, d, dw, sw)]
        dist = [
            quality.log_mel_distance(r, s),
            quality.log_mel_distance(r, d),
            quality.log_mel_distance(s, d),
        ]
        dist += [quality.log_mel_distance(d, dw), quality.log_mel_distance(s, sw)]
        report.shipped_vs_reference_db.append(dist[0])
        report.vs_reference_db.append(dist[1])
        report.vs_shipped_db.append(dist[2])
        rows.append(dist + rec)
        print(
            f"{sentence[:22]:22} {voice:10} {dist[0]:10.2f} {dist[1]:10.2f} {dist[2]:10.2f} {dist[3]:14.2f}"
            f" {dist[4]:14.2f}"
            "  " + " / ".join(f"{x:.2f}" for x in rec)
        )
    m = np.mean(rows, axis=0)
    print(
        f"{'mean':33} {m[0]:10.2f} {m[1]:10.2f} {m[2]:10.2f} {m[3]:14.2f} {m[4]:14.2f}"
        "  " + " / ".join(f"{x:.2f}" for x in m[5:])
    )
    report.judge()
    print(f"\nquality gate {quality.GATE}: {'PASS' if report.passed else 'FAIL'} ({report.reason})")
    print(f"load at the end: {load()}")


if __name__ == "__main__":
    main()
