"""Envelope maps fitted on the whole recording, not only its fit part, replayed on saved runs.

Enrolment fits each candidate's envelope map on the part of the recording the guard does not
judge on (about two thirds). Once the guard has chosen, the kept voice's map could be fitted
again on all of it: more of the speaker's frames for the covariance and the sound classes'
shifts. This replays that on what `bench_enroll.py --save DIR` kept: for every mapped
candidate, its map is made again from the fit part (as enrolment made it; its render of
JUDGE_TEXT is checked against the saved one) and from the whole recording, and each is scored
on clip B (gap closed, enc/AHS/GE2E, against the nearest stock voice's saved render).

    nice -n 5 .venv/bin/python bench/map_whole_study.py DIR [--only june,carlo]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from bench.guard_order_study import loaded, rebuilt  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.enroll import MAPPED  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    renderer, embedder = loaded()
    files = sorted(Path(args.folder).glob("*.npz"))
    if args.only:
        files = [f for f in files if any(f.stem.startswith(o) for o in args.only.split(","))]
    kept_rows, all_rows = [], []
    for f in files:
        z = np.load(f, allow_pickle=True)
        labels = [str(x) for x in z["labels"]]
        fit16k, _held = guard.split(z["a16"])
        measure = be.distance_to(z["b16"], embedder)
        ceiling = np.array(measure(z["a16"]))
        stock = np.array(measure(z["renders"][0]))

        def closed(audio: np.ndarray, stock=stock, ceiling=ceiling, measure=measure) -> np.ndarray:
            return (stock - np.array(measure(audio))) / (stock - ceiling)

        voices = [rebuilt(z, renderer, part) for part in (fit16k, z["a16"])]
        print(f"## {f.stem} (kept {labels[int(z['kept'])]})", flush=True)
        for i, label in enumerate(labels):
            if not label.endswith(MAPPED):
                continue
            rows = []
            for by_part in voices:
                pack, speed, prosody, envelope = by_part[i]
                rows.append(closed(renderer.render16k(pack, speed, [guard.JUDGE_TEXT], prosody, envelope)))
            print(
                f"   saved {be.percents(closed(z['renders'][i]))}, fit part {be.percents(rows[0])}, "
                f"whole {be.percents(rows[1])}  {label[:70]}",
                flush=True,
            )
            all_rows.append(rows)
            if i == int(z["kept"]):
                kept_rows.append(rows)
    for title, got in (("every mapped candidate", all_rows), ("the kept voice, if mapped", kept_rows)):
        if got:
            g = np.array(got)
            print(
                f"{title} ({len(g)}): fit part {be.percents(g[:, 0].mean(axis=0))}, "
                f"whole {be.percents(g[:, 1].mean(axis=0))}; whole closer in "
                f"{'/'.join(f'{np.mean(g[:, 1, k] > g[:, 0, k]):.0%}' for k in range(3))}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
