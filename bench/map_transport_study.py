"""The envelope map's covariance step as an optimal transport, replayed on saved runs.

The map gives a voice's cepstra the speaker's covariance. `envelope._matrix` does it by
whitening then colouring, C_s^1/2 C_v^-1/2, which turns the frames between the two sets of
axes as well; `transport` here is the one symmetric map that does it, the one that moves
a frame least on average, so each of the voice's sounds stays nearest what it was. The guess:
mapped voices the recogniser follows less well (the guard passes them over) lose their sounds
in that turn. This replays, on what `bench_enroll.py --save DIR` kept, every mapped candidate's
map made again from the fit part both ways, JUDGE_TEXT rendered through it, the guard's
judgements taken again on the held-back part, its winners checked in the shipped order (at
most four checks), and the kept voice scored on clip B (gap closed, enc/AHS/GE2E). Every mapped
candidate's word errors are measured both ways (CHECK_TEXT after its JUDGE_TEXT, recognised
once), not only the winners'.

    nice -n 5 .venv/bin/python bench/map_transport_study.py DIR [DIR ...] [--only june,esco]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from bench.guard_order_study import ORDERS, kept, loaded, replay, saved_runs  # noqa: E402
from tray_reader.speech import envelope  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.enroll import MAPPED  # noqa: E402


def transport(voice: np.ndarray, speaker: np.ndarray) -> np.ndarray:
    """C_v^-1/2 (C_v^1/2 C_s C_v^1/2)^1/2 C_v^-1/2: gives frames of covariance ``voice`` the
    covariance ``speaker``, and of all linear maps that do, moves them least on average."""
    half, inverse = envelope._root(voice, 0.5), envelope._root(voice, -0.5)
    return inverse @ envelope._root(half @ speaker @ half, 0.5) @ inverse


KINDS = {"colouring": envelope._matrix, "transport": transport}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    renderer, embedder = loaded()
    order = ORDERS["most wins (now)"]
    guarded: dict[str, list] = {k: [] for k in KINDS}
    mapped: dict[str, list] = {k: [] for k in KINDS}
    for z, held_out in saved_runs(args.folders, args.only):
        runs = {}
        for kind, matrix in KINDS.items():
            envelope._matrix = matrix
            try:
                run = replay(z, renderer, embedder, envelope.EnvelopeMap.fit)
                stock = run["errors"][0]
                rows = [j for j, label in enumerate(run["labels"]) if label.endswith(MAPPED)]
                for j in rows:
                    run["errors"][j]  # every mapped candidate heard, not only the winners
            finally:
                envelope._matrix = KINDS["colouring"]
            runs[kind] = run
            i = kept(run, order, guard.MAX_WER_RISE)
            passing = sum(run["errors"][j] <= stock + guard.MAX_WER_RISE for j in rows)
            print(
                f"   {kind:>9}: kept {be.percents(run['closed'][i])} errors {run['errors'][i]:.2f}"
                f" (stock {stock:.2f}); mapped: {passing} of {len(rows)} pass  {run['labels'][i][:60]}",
                flush=True,
            )
            if held_out:
                guarded[kind].append(run["closed"][i])
                mapped[kind].extend((run["closed"][j], run["errors"][j] - stock) for j in rows)
        a, b = runs["colouring"], runs["transport"]
        for j, label in enumerate(a["labels"]):
            if label.endswith(MAPPED):
                print(
                    f"     {be.percents(a['closed'][j])} {a['errors'][j]:.2f} wins {a['judgements'][j].wins:.2f}"
                    f" -> {be.percents(b['closed'][j])} {b['errors'][j]:.2f} wins {b['judgements'][j].wins:.2f}"
                    f"  {label[:60]}",
                    flush=True,
                )
    print("\nheld out, gap closed on clip B (enc/AHS/GE2E); word errors over the stock voice's")
    print(
        "| covariance step | guarded | worst | every mapped candidate | its word errors over stock | passing |"
    )
    print("|---|---|---|---|---|---|")
    for kind in KINDS:
        g, m = np.array(guarded[kind]), mapped[kind]
        if len(g):
            rise = np.array([e for _c, e in m])
            print(
                f"| {kind} | {be.percents(g.mean(axis=0))} | {be.percents(g.min(axis=0))} |"
                f" {be.percents(np.mean([c for c, _e in m], axis=0))} ({len(m)}) | {rise.mean():+.3f} |"
                f" {int((rise <= guard.MAX_WER_RISE).sum())} of {len(m)} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
