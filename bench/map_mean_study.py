"""The envelope map moving the mean's detail too, replayed on saved runs.

The map leaves the voice's long-term spectrum alone, since a recording's is its microphone and
room as much as its speaker. The style fit's loss draws that line differently: it removes only
the mean's three smoothest components across the bands (level, tilt, bow: what a microphone or
a smooth EQ adds) and keeps its detail, where the voice's resonances lie. This replays maps that
move the mean's detail too (`EnvelopeMap.fit`'s ``mean_smooth``: the speech frames' mean
in-band log-mel is moved to the speaker's, less a polynomial of k terms in the bands' octaves)
on what `bench_enroll.py --save DIR` kept: every mapped candidate's map is made again from the fit part and its JUDGE_TEXT rendered
through it, the guard judges the held-back part again, its winners are checked in the shipped
order (`guard_order_study.kept`), and the kept voice and every mapped candidate are scored on
clip B (gap closed, enc/AHS/GE2E). ``saved`` is the run as it was (its renders), ``none``
its maps made again as they were.

    nice -n 5 .venv/bin/python bench/map_mean_study.py DIR [DIR ...] [--mean-smooth saved,3,5]
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from bench.guard_order_study import ORDERS, kept, loaded, replay, saved_runs  # noqa: E402
from tray_reader.speech.envelope import EnvelopeMap  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.enroll import MAPPED  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--only", default="")
    ap.add_argument("--mean-smooth", default="saved,3")
    args = ap.parse_args()
    variants = args.mean_smooth.split(",")
    renderer, embedder = loaded()
    order = ORDERS["most wins (now)"]
    guarded: dict[str, list] = {v: [] for v in variants}
    mapped: dict[str, list] = {v: [] for v in variants}
    for z, held_out in saved_runs(args.folders, args.only):
        for v in variants:
            mean_smooth = None if v in ("saved", "none") else int(v)
            fit = None if v == "saved" else functools.partial(EnvelopeMap.fit, mean_smooth=mean_smooth)
            run = replay(z, renderer, embedder, fit)
            i = kept(run, order, guard.MAX_WER_RISE)
            rows = [run["closed"][j] for j, label in enumerate(run["labels"]) if label.endswith(MAPPED)]
            print(
                f"   {v:>5}: kept {be.percents(run['closed'][i])} errors {run['errors'][i]:.2f}"
                f" (stock {run['errors'][0]:.2f}); mapped mean {be.percents(np.mean(rows, axis=0))}"
                f"  {run['labels'][i][:60]}",
                flush=True,
            )
            if held_out:
                guarded[v].append(run["closed"][i])
                mapped[v].extend(rows)
    print("\nheld out, gap closed on clip B (enc/AHS/GE2E)")
    print("| mean moved, less a polynomial of | guarded | worst | every mapped candidate |")
    print("|---|---|---|---|")
    for v in variants:
        g = np.array(guarded[v])
        if len(g):
            print(
                f"| {v} | {be.percents(g.mean(axis=0))} | {be.percents(g.min(axis=0))} |"
                f" {be.percents(np.mean(mapped[v], axis=0))} ({len(mapped[v])}) |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
