"""Replays the guard offline on what `bench_enroll.py --save DIR` kept: every judged
candidate's render, clip A (split as enrolment splits it) and clip B. For each speaker it
prints each candidate's measures on the held-back part and its gap closed on clip B, then
what variants of the guard's rule would have kept and that voice's gap closed on clip B.

    nice -n 19 .venv/bin/python bench/guard_study.py DIR [DIR ...] [--only menardi,allison]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader.voices import guard  # noqa: E402
from tray_reader.voices.embedder import SpeakerEmbedder  # noqa: E402


def load(path: Path) -> dict:
    z = np.load(path, allow_pickle=True)
    return {k: z[k] for k in z.files}


def closures(z: dict, embedder: SpeakerEmbedder) -> np.ndarray:
    """[candidates, 3]: each candidate's gap closed on clip B by the bench's three measures."""
    measure = be.distance_to(z["b16"], embedder)
    ceiling = np.array(measure(z["a16"]))
    d = np.array([measure(r) for r in z["renders"]])
    return (d[0] - d) / (d[0] - ceiling)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    embedder = SpeakerEmbedder.load()
    files = [f for folder in args.folders for f in sorted(Path(folder).glob("*.npz"))]
    if args.only:
        files = [f for f in files if any(f.stem.startswith(o) for o in args.only.split(","))]
    import pickle

    rows = []
    for f in files:
        z = load(f)
        labels = [str(x) for x in z["labels"]]
        _fit, held = guard.split(z["a16"])
        v = guard.decide(labels[0], labels, lambda i, z=z: z["renders"][i], held, embedder)
        row = {
            "name": f.stem,
            "labels": labels,
            "kept_then": int(z["kept"]),
            "judgements": v.judgements,
            "kept": v.kept,
            "new": closures(z, embedder),
        }
        rows.append(row)
        print(f"## {f.stem}  kept then {row['kept_then']}, now {v.kept}: {labels[v.kept]}")
        for i, lab in enumerate(labels):
            j = v.judgements[i]
            n = row["new"][i]
            print(
                f"   {i:2d} enc {j.enc:.3f} ahs {j.ahs:.3f} judge {j.judge:.3f} wins {j.wins:.2f}"
                f" | B {n[0]:+.0%}/{n[1]:+.0%}/{n[2]:+.0%}  {lab[:60]}"
            )
        sys.stdout.flush()
    with open(Path(args.folders[0]) / "study.pkl", "wb") as fh:
        pickle.dump(rows, fh)
    variants(rows)
    return 0


CHOICES = {
    "lowest ahs": lambda j: j.ahs,
    "most wins": lambda j: -j.wins,
    "highest enc": lambda j: -j.enc,
}


def variants(rows: list[dict]) -> None:
    """What each rule (win share threshold, margins or not, choice among passers) would keep:
    per speaker the kept voice's gap closed on clip B (enc/ahs/ge2e), then the mean and the worst."""
    print("| share | margins | choice | " + " | ".join(r["name"] for r in rows) + " | mean | worst |")
    for share in (0.0, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9):
        for margins in (True, False):
            for choice, key in CHOICES.items():
                cells, got = [], []
                for r in rows:
                    js = r["judgements"]
                    ok = [
                        i
                        for i, j in enumerate(js)
                        if i > 0
                        and j.wins >= share
                        and (j.beats(js[0]) if margins else True)
                        and (share > 0 or j.beats(js[0]))
                    ]
                    kept = min(ok, key=lambda i: key(js[i])) if ok else 0
                    c = r["new"][kept]
                    got.append(c)
                    cells.append(f"{c[0]:+.0%}/{c[1]:+.0%}/{c[2]:+.0%}" + ("" if kept else " s"))
                g = np.array(got)
                mean = g.mean(axis=0)
                print(
                    f"| {share} | {margins} | {choice} | "
                    + " | ".join(cells)
                    + f" | {mean[0]:+.0%}/{mean[1]:+.0%}/{mean[2]:+.0%} | {g.min():+.0%} |"
                )


if __name__ == "__main__":
    sys.exit(main())
