"""Which words of a text a recording says (tray_reader/voices/align.py): how often the words
found are the words said, how well other words are told apart, and what it costs.

Three sets, each aligned against a render of the text by af_heart (as enrolment does with
the nearest stock voice):
  renders   four stock voices read the rainbow passage at speeds 0.75-1.25 and stop after
            word 12, 25, 38 or 51; the truth is the model's own word timings.
  allison   a real speaker through a telephone channel (asterisk-core-sounds-en-wav): three
            prompts joined with their transcripts; recordings of the first one, the first
            two, all three, the last two and the last one.
  pairs     16 of her longer prompts, each aligned against its own transcript and against
            the next prompt's: `order_ratio` for the same and for other words.

    nice -n 19 .venv/bin/python bench/bench_align.py
"""

from __future__ import annotations

import gzip
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import soundfile
import soxr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_align import speaker  # noqa: E402
from tray_reader import model_files  # noqa: E402
from tray_reader.speech.engine import KokoroEngine  # noqa: E402
from tray_reader.text.frontend import TextFrontEnd  # noqa: E402
from tray_reader.text.g2p import EnglishPhonemizer  # noqa: E402
from tray_reader.voices import align  # noqa: E402
from tray_reader.voices.record import PASSAGE  # noqa: E402
from tray_reader.voices.render import VoiceRenderer  # noqa: E402

ALLISON = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
TRANSCRIPTS = Path("/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz")
JOINED = ("demo-abouttotry", "demo-echotest", "demo-nogo")


def transcripts() -> dict[str, str]:
    out = {}
    with gzip.open(TRANSCRIPTS, "rt") as f:
        for line in f:
            if ":" in line and not line.startswith(";"):
                name, text = line.split(":", 1)
                out[name.strip()] = text.strip()
    return out


def clip(name: str) -> np.ndarray:
    x, rate = soundfile.read(ALLISON / f"{name}.wav", dtype="float32")
    return soxr.resample(x, rate, 16_000).astype(np.float32)


def main() -> None:
    engine = KokoroEngine.load(2)
    renderer = VoiceRenderer(engine, TextFrontEnd(EnglishPhonemizer()))
    heart = model_files.stock_pack("af_heart")
    t0 = time.monotonic()
    passage = align.timed_render(renderer, heart, PASSAGE)
    assert passage is not None
    print(f"render of the passage ({len(passage.audio16k) / 16_000:.1f} s): {time.monotonic() - t0:.2f} s")

    print("\nrenders: words said (first, end) found vs true")
    hits = tries = 0
    dtw_times = []
    for voice, speed in [("am_adam", 1.0), ("af_bella", 0.75), ("bm_george", 1.25), ("bf_emma", 0.85)]:
        audio, ends = speaker(renderer, voice, speed, PASSAGE)
        row = []
        for k in (12, 25, 38, len(ends)):
            t = time.monotonic()
            got = align.read_part(audio[: int((ends[k - 1] + 0.05) * 16_000)], PASSAGE, passage)
            dtw_times.append(time.monotonic() - t)
            hits += (got.first, got.end) == (0, k)
            tries += 1
            row.append(f"{k}->{got.end} (r {got.alignment.order_ratio:.2f})")
        print(f"  {voice} x{speed}: " + ", ".join(row))
    print(f"  exact: {hits} of {tries}; align: median {statistics.median(dtw_times):.2f} s")

    if not ALLISON.is_dir() or not TRANSCRIPTS.exists():
        print("\nallison, pairs: need asterisk-core-sounds-en-wav and asterisk-core-sounds-en")
        return
    words = transcripts()
    text = " ".join(words[n] for n in JOINED)
    render = align.timed_render(renderer, heart, text)
    assert render is not None
    counts = [sum(1 for c in renderer.frontend.chunks(words[n]) for _ in c.words) for n in JOINED]
    starts = np.cumsum([0, *counts])
    gap = np.zeros(4_800, np.float32)
    clips = [clip(n) for n in JOINED]
    print("\nallison: the three prompts' text; recordings of prompts a..b")
    for a, b in [(0, 1), (0, 2), (0, 3), (1, 3), (2, 3)]:
        got = align.read_part(np.concatenate([p for c in clips[a:b] for p in (c, gap)]), text, render)
        print(
            f"  {a}..{b}: true ({starts[a]}, {starts[b]}) found ({got.first}, {got.end}) "
            f"cost {got.alignment.cost:.3f} order ratio {got.alignment.order_ratio:.2f}"
        )

    print("\npairs: order ratio against its own words | against the next prompt's")
    names = sorted(
        n for n, w in words.items() if 90 < len(w) < 400 and "[" not in w and (ALLISON / f"{n}.wav").exists()
    )
    names = [names[i] for i in np.random.default_rng(1).permutation(len(names))[:16]]
    same, other = [], []
    for i, name in enumerate(names):
        nxt = names[(i + 1) % len(names)]
        rec = clip(name)
        ratios = []
        for t in (words[name], words[nxt]):
            r = align.timed_render(renderer, heart, t)
            assert r is not None
            ratios.append(align.read_part(rec, t, r).alignment.order_ratio)
        same.append(ratios[0])
        other.append(ratios[1])
        print(f"  {name:28s} {ratios[0]:5.2f} | {ratios[1]:5.2f} ({nxt})")
    said = sum(r <= align.MAX_ORDER_RATIO for r in same)
    told = sum(r > align.MAX_ORDER_RATIO for r in other)
    print(
        f"  own words {min(same):.2f}-{max(same):.2f}, other words {min(other):.2f}-{max(other):.2f}; "
        f"at MAX_ORDER_RATIO {align.MAX_ORDER_RATIO}: {said} of {len(same)} own texts found said, "
        f"{told} of {len(other)} other texts found not said"
    )


if __name__ == "__main__":
    main()
