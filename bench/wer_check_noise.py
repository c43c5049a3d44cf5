"""How often the guard's intelligibility check misjudges a made voice near its limit, and what
more renders would buy.

The guard keeps a made voice only if its word errors (one render of JUDGE_TEXT and CHECK_TEXT,
82 words) are at most MAX_WER_RISE above the nearest stock voice's (the shipped mean of
`stock_checks.SAMPLES` renders). One render is noisy: the shipped table's renders of each voice
spread by about 0.02 (a pack changed by one part in 10^5). Here that noise, taken from the
table (each render's distance from its voice's mean, corrected for the mean's own share), is
drawn for made voices whose true word errors lie evenly within ``width`` of the limit, and
three rules decide: one render; a second render when the first lies within ``border`` of the
limit, the mean deciding; two renders always. A decision is wrong when it differs from what
the voices' true means would decide. No model runs: it reads models/stock_word_errors.json.

    .venv/bin/python bench/wer_check_noise.py [--border 0.04] [--draws 200000]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tray_reader import model_files  # noqa: E402
from tray_reader.voices import guard, stock_checks  # noqa: E402


def residuals() -> tuple[np.ndarray, float]:
    """Each render's distance from its voice's mean (scaled so its spread is one render's),
    and the mean of the voices' own standard deviations."""
    table = json.loads((model_files.MODELS_DIR / stock_checks.FILE).read_text())["samples"]
    found, sds = [], []
    for voices in table.values():
        for xs in voices.values():
            x = np.asarray(xs, np.float64)
            found.extend((x - x.mean()) * np.sqrt(len(x) / (len(x) - 1)))
            sds.append(x.std(ddof=1))
    return np.asarray(found), float(np.mean(sds))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--border", type=float, default=0.04)
    ap.add_argument("--draws", type=int, default=200_000)
    args = ap.parse_args()
    res, sd = residuals()
    print(f"{len(res)} renders; one render's spread {res.std():.4f} (the voices' own sd {sd:.4f} on average)")
    rng = np.random.default_rng(0)
    n = args.draws
    print(
        "| made voice's true word errors within | one render wrong | border rule wrong | second render taken | two renders wrong |"
    )
    print("|---|---|---|---|---|")
    for width in (0.02, 0.04, 0.06, 0.10):
        gap = rng.uniform(-width, width, n)  # made voice's mean - (stock mean + MAX_WER_RISE)
        stock = rng.choice(res, (n, stock_checks.SAMPLES)).mean(axis=1)  # the table's own error
        first, second = gap + rng.choice(res, n), gap + rng.choice(res, n)
        truth = gap <= 0
        one = first - stock <= 0
        near = np.abs(first - stock) < args.border
        border = np.where(near, (first + second) / 2 - stock <= 0, one)
        both = (first + second) / 2 - stock <= 0
        print(
            f"| {width:.2f} of the limit | {np.mean(one != truth):.1%} | {np.mean(border != truth):.1%} "
            f"| {np.mean(near):.0%} | {np.mean(both != truth):.1%} |"
        )
    print(f"(limit: the stock voice's word errors + {guard.MAX_WER_RISE}; border {args.border})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
