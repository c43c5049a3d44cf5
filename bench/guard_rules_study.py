"""The guard's choice replayed under other rules, on fresh enrolments.

Each speaker (bench_enroll's clips) is enrolled once; every candidate the guard judged is
rendered again saying JUDGE_TEXT and measured against clip B. The guard's own judgements (the
encoders' cosines, the win share, the MFCC distance and the share of resamplings in which it is
further than the stock voice) are then put through each rule below, without the recogniser's
check, and the kept voice's gap closed on clip B is printed (enc/AHS/GE2E), with the mean and
the worst over the speakers. Runs are appended to a JSON file, so seeds can be pooled.

    .venv/bin/python bench/guard_rules_study.py --refs june,carlo,austen --seed 0 --out runs.json
    .venv/bin/python bench/guard_rules_study.py --replay runs.json
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader.voices import guard, stock_profiles  # noqa: E402

Rule = Callable[[dict, dict], bool]


def _encoders(c: dict, stock: dict) -> bool:
    return bool(
        c["enc"] > stock["enc"] + guard.ENC_MARGIN
        and c["judge"] > stock["judge"] + guard.ENC_MARGIN
        and c["wins"] >= guard.WIN_SHARE
    )


VETOES: dict[str, Rule] = {
    "AHS point veto": lambda c, st: c["ahs"] <= st["ahs"],
    "AHS further in < 80 %": lambda c, st: c["ahs_further"] < guard.AHS_VETO_SHARE,
    "no AHS veto": lambda c, st: True,
}
PICKS: dict[str, Callable[[dict], tuple[float, ...]]] = {
    "lowest AHS": lambda c: (c["ahs"],),
    "most wins": lambda c: (-c["wins"], c["ahs"]),
    "highest GE2E": lambda c: (-c["judge"],),
    "most wins, then both encoders": lambda c: (-c["wins"], -(c["enc"] + c["judge"])),
    "both encoders": lambda c: (-(c["enc"] + c["judge"]),),
}


def enrol(refs: list[str], seed: int, out: Path | None = None) -> list[dict]:
    """Each speaker's run (appended to ``out`` as it ends; a speaker not installed is passed over)."""
    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer
    from tray_reader.voices.embedder import SpeakerEmbedder
    from tray_reader.voices.enroll import EnrollSettings, match, speak16k
    from tray_reader.voices.preprocess import prepare
    from tray_reader.voices.render import VoiceRenderer

    renderer = VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer()))
    embedder = SpeakerEmbedder.load()
    profiles = stock_profiles.load()
    others = stock_profiles.load_other()
    runs = []
    for ref in refs:
        try:
            (a, ra), (b, rb), exclude = be.clips(ref, renderer, 28.0)
        except SystemExit as e:
            print(f"{ref}: {e}", flush=True)
            continue
        rec = prepare(a, ra)
        to_b = be.distance_to(prepare(b, rb).speech16k, embedder)
        result = match(
            rec, renderer, embedder, profiles, None, EnrollSettings(exclude=exclude, seed=seed), others=others
        )
        assert result.verdict is not None
        candidates = []
        for c, j in zip(result.judged, result.verdict.judgements, strict=True):
            audio = speak16k(renderer, c, [guard.JUDGE_TEXT])
            candidates.append(
                {
                    "label": c.label,
                    "enc": j.enc,
                    "judge": j.judge,
                    "ahs": j.ahs,
                    "wins": j.wins,
                    "ahs_further": j.ahs_further,
                    "to_b": to_b(audio),
                }
            )
        runs.append(
            {
                "ref": ref,
                "seed": seed,
                "kept": result.best.label,
                "ceiling": to_b(rec.speech16k),
                "candidates": candidates,
            }
        )
        print(f"{ref} seed {seed}: kept {result.best.label!r}", flush=True)
        if out is not None:
            earlier = json.loads(out.read_text()) if out.exists() else []
            out.write_text(json.dumps([*earlier, runs[-1]]))
    return runs


def closed(run: dict, i: int) -> np.ndarray:
    stock, made, ceiling = (
        np.array(x) for x in (run["candidates"][0]["to_b"], run["candidates"][i]["to_b"], run["ceiling"])
    )
    return np.asarray((stock - made) / (stock - ceiling))


def replay(runs: list[dict]) -> None:
    groups = {
        "held out": [r for r in runs if r["ref"] not in be.DEV],
        "dev": [r for r in runs if r["ref"] in be.DEV],
    }
    for veto_name, veto in VETOES.items():
        for pick_name, pick in PICKS.items():
            parts = []
            for title, group in groups.items():
                if not group:
                    continue
                gains = []
                for r in group:
                    cs = r["candidates"]
                    ok = [i for i in range(1, len(cs)) if _encoders(cs[i], cs[0]) and veto(cs[i], cs[0])]
                    kept = min(ok, key=lambda i, cs=cs: pick(cs[i])) if ok else 0
                    gains.append(closed(r, kept) if kept else np.zeros(3))
                g = np.array(gains)
                mean = "/".join(f"{x:+.0%}" for x in g.mean(axis=0))
                worst = "/".join(f"{x:+.0%}" for x in g.min(axis=0))
                parts.append(f"{title} ({len(g)}): mean {mean}, worst {worst}")
            print(f"{veto_name}, {pick_name}: " + "; ".join(parts))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default="june,carlo,ivrvoice,esco,armelle,austen")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="", help="a JSON file the runs are appended to")
    ap.add_argument("--replay", nargs="*", default=None, help="JSON files of earlier runs: replay only")
    args = ap.parse_args()
    if args.replay is not None:
        runs = [run for f in args.replay for run in json.loads(Path(f).read_text())]
    else:
        runs = enrol(args.refs.split(","), args.seed, Path(args.out) if args.out else None)
    replay(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
