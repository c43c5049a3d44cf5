"""How well enrolment's nearest stock voice is picked, and what other rules would pick.

For each bench speaker (clip A prepared and split as enrolment splits it; clip B only to
judge): the stock voices ranked as enrolment ranks them (the first encoder on the fit part,
against the profiles heard through the recording's band), then rules that choose among the
first few of that ranking by what more the recording tells. Each rule's choice is scored on
clip B by the bench's three measures (`bench_enroll.distance_to`), as its rank among all the
stock voices (0: the nearest to clip B by that measure) and as the share of the gap between
enrolment's nearest and clip A that it closes (negative: further than enrolment's nearest).

    nice -n 19 .venv/bin/python bench/nearest_study.py [--refs june,carlo,...] [--top 3,5]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import guard, stock_profiles  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder, cosine  # noqa: E402
from tray_reader.voices.ge2e import JudgeEncoder  # noqa: E402
from tray_reader.voices.measure import ahs_distance  # noqa: E402
from tray_reader.voices.preprocess import prepare  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

STOCK_SPEAKERS = ("af_nova", "am_liam", "bf_emma", "am_michael", "af_sarah", "bm_george")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default=",".join([*be.SPEAKERS, *STOCK_SPEAKERS]))
    ap.add_argument("--top", default="3,5")
    args = ap.parse_args()
    engine = KokoroEngine.load()
    renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    judge = JudgeEncoder.load()
    profiles = stock_profiles.load()
    said = {n: renderer.render16k(model_files.stock_pack(n), 1.0, [guard.JUDGE_TEXT]) for n in profiles.names}
    tops = [int(t) for t in args.top.split(",")]
    results: dict[str, list[np.ndarray]] = {}
    for ref in args.refs.split(","):
        try:
            (a, ra), (b, rb), exclude = be.clips(ref, renderer, 28.0)
        except SystemExit as e:  # a speaker's package is not installed
            print(f"{ref}: skipped: {e}", flush=True)
            continue
        rec = prepare(a, ra)
        b16 = prepare(b, rb).speech16k
        fit16k, held16k = guard.split(rec.speech16k)
        band = guard.band_gain(fit16k)
        p = profiles.without(set(exclude)).for_band(guard.band_top(band))
        sims = p.embeddings.astype(np.float64) @ embedder.embed(fit16k).astype(np.float64)
        ranked = [p.names[i] for i in np.argsort(-sims)]
        measure = be.distance_to(b16, embedder)
        on_b = {n: np.array(measure(said[n])) for n in p.names}
        ceiling = np.array(measure(rec.speech16k))

        def heard_by(x16k: np.ndarray, names: list[str]) -> dict[str, np.ndarray]:
            """Each voice's (enc cosine, GE2E cosine, -AHS) to x16k, through x16k's band."""
            g = guard.band_gain(x16k)
            x = guard.limit_band(x16k, g)
            e, j = embedder.embed(x), judge.embed(x)
            out = {}
            for n in names:
                r = guard.limit_band(said[n], g)
                out[n] = np.array(
                    [cosine(embedder.embed(r), e), float(judge.embed(r) @ j), -ahs_distance(r, x)]
                )
            return out

        rules: dict[str, str] = {"nearest (enrolment)": ranked[0]}
        for k in tops:
            held = heard_by(held16k, ranked[:k])
            whole = heard_by(rec.speech16k, ranked[:k])
            rules[f"top-{k}: both encoders, held-back"] = max(ranked[:k], key=lambda n: held[n][:2].sum())
            rules[f"top-{k}: GE2E, held-back"] = max(ranked[:k], key=lambda n: held[n][1])
            rules[f"top-{k}: both encoders, whole"] = max(ranked[:k], key=lambda n: whole[n][:2].sum())
            rules[f"top-{k}: GE2E, whole"] = max(ranked[:k], key=lambda n: whole[n][1])
            rules[f"top-{k}: GE2E + fit sim, whole"] = max(
                ranked[:k], key=lambda n: whole[n][1] + sims[p.names.index(n)]
            )
        base = on_b[ranked[0]]
        line = []
        for rule, name in rules.items():
            d = on_b[name]
            rank = np.array([sum(on_b[m][i] < d[i] for m in on_b) for i in be.MEASURES])
            gap = base - ceiling
            closed = np.where(np.abs(gap) > 1e-9, (base - d) / np.where(np.abs(gap) > 1e-9, gap, 1), 0.0)
            results.setdefault(rule, []).append(np.concatenate([rank, closed]))
            line.append(f"{rule}: {name} rank {'/'.join(map(str, rank))}")
        print(f"{ref}: " + "; ".join(line), flush=True)
    print("\n| rule | mean rank on B (enc/AHS/GE2E) | gap closed vs enrolment's nearest | speakers changed |")
    print("|---|---|---|---|")
    for rule, rows in results.items():
        m = np.mean(rows, axis=0)
        changed = sum(1 for r in rows if np.any(r[3:] != 0))
        print(
            f"| {rule} | {m[0]:.1f}/{m[1]:.1f}/{m[2]:.1f} | "
            f"{m[3]:+.0%}/{m[4]:+.0%}/{m[5]:+.0%} | {changed} of {len(rows)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
