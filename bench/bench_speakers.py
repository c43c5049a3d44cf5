"""The one-speaker check on real recordings: how far apart its measure puts one speaker's
recording and two real speakers joined, and how many of each the limits refuse.

For each real speaker of bench_enroll.py that is installed (its docstring says which Debian
packages), 30 s of speech from two places (two prompt ranges, two stretches of a recording),
prepared as enrolment prepares a recording, is measured by checks.speaker_gap (2 s segments,
the second speaker encoder). Then every pair of two different speakers' first clips, joined
three ways within 30 s: half and half, 70/30, and 4 s turns (a conversation); and codec2's
all.wav (several speakers in turn, as shipped). Printed: each gap, the largest gap of one
speaker, and how many joined recordings each limit catches; the same at 8-14 s of speech,
where the groups are 2 segments and TWO_SPEAKER_GAP_SHORT applies.

    nice -n 19 .venv/bin/python bench/bench_speakers.py
"""

from __future__ import annotations

import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_enroll as be  # noqa: E402

from tray_reader.voices import checks  # noqa: E402
from tray_reader.voices.ge2e import JudgeEncoder  # noqa: E402
from tray_reader.voices.preprocess import load_audio, prepare  # noqa: E402

RATE = 16_000
PROMPT_SPEAKERS = (
    "allison",
    "june",
    "menardi",
    "carlo",
    "ivrvoice",
    "esco",
    "armelle",
    "june_wb",
    "carlo_wb",
)
RADIO = (("ve9qrp", 0, 30), ("ve9qrp", 60, 90), ("vk5qi", 0, 13.5))


def one_speaker_clips() -> dict[str, np.ndarray]:
    """name -> 16 kHz speech (at most 30 s) of one real speaker."""
    out: dict[str, np.ndarray] = {}
    for ref in PROMPT_SPEAKERS:
        spec = be.SPEAKERS[ref][1]
        n = len(be._prompt_files(spec))
        if not n:
            print(f"{ref}: not installed, left out", file=sys.stderr)
            continue
        for part, start in (("a", 0), ("b", n // 2)):
            out[f"{ref}_{part}"] = prepare(*be._prompts(spec, start, 30.0)).speech16k
    for name, lo, hi in RADIO:
        path = f"{be.CODEC2}/{name}.wav"
        if os.path.exists(path):
            x, rate = load_audio(path)
            out[f"{name}_{lo}"] = prepare(x[int(lo * rate) : int(hi * rate)], rate).speech16k
    if os.path.isdir(be.LIBRIVOX):
        out["austen"] = prepare(*be._librivox("0870,0880,0890,0920,0930")).speech16k
    return out


def joined(a: np.ndarray, b: np.ndarray, seconds: float = 30.0) -> dict[str, np.ndarray]:
    """Two speakers in one recording, three ways (those both clips are long enough for)."""
    n = int(min(seconds * RATE, len(a) + len(b)))
    out = {}
    for share in (0.5, 0.3):
        nb = int(n * share)
        if len(b) >= nb and len(a) >= n - nb:
            out[f"{share:.1f}"] = np.concatenate([a[: n - nb], b[:nb]])
    turn = 4 * RATE
    if min(len(a), len(b)) >= 4 * turn:
        out["turns"] = np.concatenate([x[i * turn : (i + 1) * turn] for i in range(4) for x in (a, b)])
    return out


def main() -> int:
    judge = JudgeEncoder.load()
    single = one_speaker_clips()
    if not single:
        raise SystemExit("no real speakers installed (see bench_enroll.py's docstring)")
    print(f"one speaker, {len(single)} recordings of at most 30 s:")
    one = []
    for name, x in single.items():
        gap, size, _large = checks.speaker_gap(x, judge)
        one.append(gap)
        print(f"  {name:14} {len(x) / RATE:5.1f} s  gap {gap:.2f} (groups of {size}+)")
    firsts = [k for k in single if not k.endswith("_b") and not k.endswith("_60")]
    two: list[float] = []
    print("two speakers joined:")
    for a, b in itertools.combinations(firsts, 2):
        if a.split("_")[0] == b.split("_")[0]:
            continue
        for how, x in joined(single[a], single[b]).items():
            gap, _small, _large = checks.speaker_gap(x, judge)
            two.append(gap)
            print(f"  {a}+{b} {how:5}  gap {gap:.2f}")
    all_wav = f"{be.CODEC2}/all.wav"
    if os.path.exists(all_wav):
        x = prepare(*load_audio(all_wav)).speech16k
        gap, _small, _large = checks.speaker_gap(x, judge)
        print(f"  codec2 all.wav (several in turn)  gap {gap:.2f}")
    g1, g2 = np.array(one), np.array(two)
    print(f"one speaker: largest gap {g1.max():.2f}, median {np.median(g1):.2f}")
    for limit in (0.13, checks.TWO_SPEAKER_GAP, 0.2):
        print(
            f"limit {limit:.2f}: one speaker refused {(g1 >= limit).sum()}/{len(g1)}, "
            f"two speakers refused {(g2 >= limit).sum()}/{len(g2)}"
        )
    print("short recordings (groups of 2 segments):")
    for seconds in (8, 10, 12, 14):
        n = seconds * RATE
        s1 = [
            checks.speaker_gap(x[off : off + n], judge)[0]
            for x in single.values()
            if len(x) >= n
            for off in (0, len(x) - n)
        ]
        s2 = [
            checks.speaker_gap(np.concatenate([single[a][: n // 2], single[b][: n // 2]]), judge)[0]
            for a, b in itertools.combinations(firsts, 2)
            if a.split("_")[0] != b.split("_")[0]
        ]
        caught = sum(g >= checks.TWO_SPEAKER_GAP_SHORT for g in s2)
        wrong = sum(g >= checks.TWO_SPEAKER_GAP_SHORT for g in s1)
        print(
            f"  {seconds:2} s: one speaker largest {max(s1):.2f}, refused {wrong}/{len(s1)}; "
            f"two speakers (half and half) refused {caught}/{len(s2)} at {checks.TWO_SPEAKER_GAP_SHORT:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
