"""A second check text for voices near the word-error limit, replayed on saved runs.

The guard keeps the first winner the recogniser follows within MAX_WER_RISE of the nearest
stock voice on CHECKED_TEXT (82 words). One render of 82 words is noisy, so the limit is set
low, and some voices that would read new text well are passed over. This asks whether a
second text, heard only for a voice that fails by a little (rise up to NEAR), would let such
voices through while still keeping every kept voice within 0.05 of the stock voice on text
neither check says (bench_enroll.NEW_TEXT, heard here only to judge the rules).

For each rule the guard's order is replayed (`guard_order_study.kept`'s, at most MAX_CHECKS
checks; the second text costs no extra check here but is counted), the kept voice's closure
on clip B and its word errors on NEW_TEXT (mean of RENDERS renders, against the stock voice's
mean) are printed.

    nice -n 5 .venv/bin/python bench/second_check_study.py DIR [DIR ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from bench import guard_order_study as gos  # noqa: E402
from tray_reader.voices import guard, intelligibility, stock_checks  # noqa: E402
from tray_reader.voices.enroll import CHECKED_TEXT  # noqa: E402

SECOND_TEXT = guard.CONFIRM_TEXT
"""Words none of the guard's first texts, MAP_TEXT or NEW_TEXT say (67 words)."""
NEAR = 0.05
RENDERS = 2
"""Renders (the first as enrolment renders it, the rest jittered) per voice on NEW_TEXT."""
RULES = {
    "one text, 0.02 (before)": (0.02, None, False),
    "one text, 0.05": (0.05, None, False),
    "second text if <= 0.05, both <= 0.02": (0.02, 0.02, False),
    "second text if <= 0.05, both <= 0.03": (0.02, 0.03, False),
    "second text for a voice that passes, both <= 0.02 (now)": (0.02, 0.02, True),
    "second text for a voice that passes, both <= 0.03": (0.02, 0.03, True),
}
"""name: (the first text's allowed rise, both texts' allowed rise or None, whether a voice
that passes the first text is heard on the second too before it is kept)."""


class Heard:
    """Word errors of one run's voices on the extra texts, measured once each."""

    def __init__(self, renderer, voices) -> None:
        self.renderer, self.voices = renderer, voices
        self.cache: dict[tuple[int, str, int], float] = {}

    def errors(self, i: int, text: str, renders: int = 1) -> float:
        got = []
        for s in range(renders):
            key = (i, text, s)
            if key not in self.cache:
                pack, speed, prosody, envelope = self.voices[i]
                audio = self.renderer.render16k(
                    stock_checks.jittered(pack, s), speed, [text], prosody, envelope
                )
                self.cache[key] = intelligibility.word_errors(audio, text) or 0.0
            got.append(self.cache[key])
        return float(np.mean(got))


def kept(run: dict, heard: Heard, first: float, both: float | None, confirm: bool = False) -> tuple[int, int]:
    """(the kept voice, second texts heard) under one rule, in the shipped order."""
    stock = run["errors"][0]
    n1, n2 = len(intelligibility.words(CHECKED_TEXT)), len(intelligibility.words(SECOND_TEXT))
    seconds = 0

    def passes(i: int) -> bool:
        nonlocal seconds
        rise = run["errors"][i] - stock
        if rise <= first + 1e-9 and not confirm:
            return True
        if both is None or rise > (first if confirm else NEAR) + 1e-9:
            return False
        seconds += 1
        pooled = (run["errors"][i] * n1 + heard.errors(i, SECOND_TEXT) * n2) / (n1 + n2)
        pooled_stock = (stock * n1 + heard.errors(0, SECOND_TEXT, stock_checks.SAMPLES) * n2) / (n1 + n2)
        return pooled <= pooled_stock + both + 1e-9

    i = gos.kept(run, gos.ORDERS["most wins (now)"], first, passes)
    return i, seconds


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    renderer, embedder = gos.loaded()
    results: dict[str, dict[str, tuple]] = {}
    for f in (f for folder in args.folders for f in sorted(Path(folder).glob("*.npz"))):
        z = np.load(f, allow_pickle=True)
        run = gos.replay(z, renderer, embedder)
        heard = Heard(renderer, gos.rebuilt(z, renderer, guard.split(z["a16"])[0]))
        stock_new = heard.errors(0, be.NEW_TEXT, RENDERS)
        print(f"## {f.stem}: stock check {run['errors'][0]:.3f}, new text {stock_new:.3f}", flush=True)
        for name, (first, both, confirm) in RULES.items():
            i, seconds = kept(run, heard, first, both, confirm)
            new = heard.errors(i, be.NEW_TEXT, RENDERS)
            results.setdefault(name, {})[f.stem] = (run["closed"][i], new - stock_new, seconds)
            second = (
                f", second text {heard.errors(i, SECOND_TEXT):.3f}"
                if (i, SECOND_TEXT, 0) in heard.cache
                else ""
            )
            print(
                f"   {name}: kept {i} check {run['errors'][i]:.3f}{second} new text rise {new - stock_new:+.3f}"
                f" B {be.percents(run['closed'][i])} ({seconds} second texts)  {run['labels'][i][:60]}",
                flush=True,
            )
    print("\n| rule | held out: mean | worst | new-text rise: mean / highest | second texts heard |")
    print("|---|---|---|---|---|")
    for name, runs in results.items():
        held = [r for r in runs if r.rsplit("_seed", 1)[0] not in be.DEV]
        closed = np.array([runs[r][0] for r in held])
        rises = np.array([runs[r][1] for r in runs])
        print(
            f"| {name} | {be.percents(closed.mean(axis=0))} | {be.percents(closed.min(axis=0))} "
            f"| {rises.mean():+.3f} / {rises.max():+.3f} | {sum(runs[r][2] for r in runs)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
