"""The order the guard checks its winners in, and the word-error limit, replayed on saved runs.

The guard (guard.decide) ranks the voices that beat the nearest stock voice by the share of
resamplings they win, and keeps the first that the recogniser follows within MAX_WER_RISE of
the stock voice; after a failure, the failed voice's kin (its timbre) goes last. This replays
other orders and limits on what `bench_enroll.py --save DIR` kept: every judged candidate is
rebuilt (its envelope map fitted again as enrolment fitted it), the guard's judgements are
taken again on the held-back part, every winner says CHECK_TEXT after its saved JUDGE_TEXT
render and is recognised once, and each rule's kept voice is scored on clip B (gap closed,
enc/AHS/GE2E, from the saved renders). At most MAX_CHECKS checks, as enrolment's clock allows.

    nice -n 5 .venv/bin/python bench/guard_order_study.py DIR [DIR ...]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_enroll as be  # noqa: E402
from tray_reader.speech.envelope import EnvelopeMap  # noqa: E402
from tray_reader.speech.types import Prosody  # noqa: E402
from tray_reader.voices import guard, intelligibility, stock_checks  # noqa: E402
from tray_reader.voices.enroll import CHECKED_TEXT, MAP_TEXT, MAPPED  # noqa: E402

PITCHED = ", your pitch"
MAX_CHECKS = 4
"""Checks of made voices a replayed guard may run (enrolment's clock allowed four or five)."""


def moved(label: str) -> bool:
    """A voice with a fitted style or read at the speaker's pitch: out of the stock voices'
    span, where more fail the recogniser's check (docs/benchmarks.md)."""
    return label.startswith("fitted style") or PITCHED in label


ORDERS: dict[str, Callable[[guard.Judgement], tuple[float, ...]]] = {
    "most wins (now)": lambda j: (-j.wins, -(j.enc + j.judge)),
    "the stock span first, then most wins": lambda j: (moved(j.label), -j.wins, -(j.enc + j.judge)),
    "both encoders": lambda j: (-(j.enc + j.judge),),
    "GE2E": lambda j: (-j.judge,),
}
LIMITS = (0.05, 0.03, 0.02)


def rebuilt(
    z, renderer, part: np.ndarray, fit: Callable = EnvelopeMap.fit
) -> list[tuple[np.ndarray, float, Prosody, EnvelopeMap | None]]:
    """Each saved candidate's (pack, speed, pitch, envelope map fitted on ``part`` from its
    base's render of MAP_TEXT by ``fit``, as enrolment fits it)."""
    labels = [str(x) for x in z["labels"]]
    band = guard.band_gain(guard.split(z["a16"])[0])
    sources: dict[str, np.ndarray] = {}
    out = []
    for i, label in enumerate(labels):
        envelope = None
        if label.endswith(MAPPED):
            base = labels.index(label[: -len(MAPPED)].split(PITCHED)[0])
            if base not in sources:
                sources[base] = renderer.render16k(z["packs"][base], float(z["speeds"][base]), [MAP_TEXT])
            envelope = fit(sources[base], part, band)
        out.append(
            (
                z["packs"][i],
                float(z["speeds"][i]),
                Prosody(float(z["pitch"][i]), float(z["spread"][i])),
                envelope,
            )
        )
    return out


def check_errors(renderer, voices: list, renders: list, stock_label: str) -> dict[int, float]:
    """Word errors on the check by voice index: the stock voice's (index 0) shipped, each
    other voice's (``voices[i]``: pack, speed, pitch, map) heard when first asked for, saying
    CHECK_TEXT after its JUDGE_TEXT render ``renders[i]``."""

    class CheckErrors(dict):
        def __missing__(self, i: int) -> float:
            pack, speed, prosody, envelope = voices[i]
            check = renderer.render16k(pack, speed, [guard.CHECK_TEXT], prosody, envelope)
            self[i] = intelligibility.word_errors(np.concatenate([renders[i], check]), CHECKED_TEXT)
            return self[i]

    stock = stock_label.removeprefix("stock ")
    return CheckErrors({0: stock_checks.shipped(renderer.engine.decoder_kind, stock)})


def replay(z, renderer, embedder, fit: Callable | None = None) -> dict:
    """One saved run: its judgements, winners, their word errors and every candidate's closure.
    With ``fit``, the mapped candidates' maps are made by it and their JUDGE_TEXT rendered
    again through them; else the saved renders stand."""
    labels = [str(x) for x in z["labels"]]
    fit16k, held = guard.split(z["a16"])
    voices = rebuilt(z, renderer, fit16k, fit or EnvelopeMap.fit)
    renders = list(z["renders"])
    if fit is not None:
        for i, label in enumerate(labels):
            if label.endswith(MAPPED):
                renders[i] = renderer.render16k(*voices[i][:2], [guard.JUDGE_TEXT], *voices[i][2:])
    verdict = guard.decide(labels[0], labels, lambda i: renders[i], held, embedder, lambda _i, _a: None)
    winners = guard.winners(verdict.judgements)
    errors = check_errors(renderer, voices, renders, labels[0])
    measure = be.distance_to(z["b16"], embedder)
    d = np.array([measure(r) for r in renders])
    ceiling = np.array(measure(z["a16"]))
    kin = [hash(np.ascontiguousarray(p[..., :128]).tobytes()) for p in z["packs"]]
    return {
        "labels": labels,
        "judgements": verdict.judgements,
        "winners": winners,
        "errors": errors,
        "closed": (d[0] - d) / (d[0] - ceiling),
        "kin": kin,
    }


def kept(
    run: dict,
    order: Callable,
    limit: float,
    passes: Callable[[int], bool] | None = None,
    checked: list[int] | None = None,
) -> int:
    """What the guard keeps with winners in ``order`` and the word-error ``limit`` (kin last);
    ``passes(i)``, if given, decides instead of the limit; the voices checked are added to
    ``checked``, if given."""
    js = run["judgements"]
    waiting = sorted(run["winners"], key=lambda i: order(js[i]))
    stock = run["errors"][0]
    passes = passes or (lambda i: run["errors"][i] <= stock + limit)
    for _ in range(MAX_CHECKS):
        if not waiting:
            break
        i = waiting.pop(0)
        if checked is not None:
            checked.append(i)
        if passes(i):
            return i
        later = [j for j in waiting if run["kin"][j] == run["kin"][i]]
        waiting = [j for j in waiting if j not in later] + later
    return 0


def saved_runs(folders: Sequence[str], only: str = "") -> Iterator[tuple[Any, bool]]:
    """Each run `bench_enroll.py --save` kept in ``folders`` (sorted by name) whose name starts
    with one of ``only``'s comma-separated prefixes (all when empty; "carlo" also takes
    carlo_wb, "carlo_seed" not): its arrays, and whether its speaker is held out (not one of
    the bench's dev speakers). A heading names each before it is replayed."""
    for f in (f for folder in folders for f in sorted(Path(folder).glob("*.npz"))):
        if only and not any(f.stem.startswith(o) for o in only.split(",")):
            continue
        held_out = f.stem.rsplit("_seed", 1)[0] not in be.DEV
        print(f"## {f.parent.name}/{f.stem}{'' if held_out else ' (dev)'}", flush=True)
        yield np.load(f, allow_pickle=True), held_out


def loaded():
    """The renderer and the speaker encoder the studies replay runs with."""
    from tray_reader.speech.engine import KokoroEngine
    from tray_reader.text.frontend import TextFrontEnd
    from tray_reader.text.g2p import EnglishPhonemizer
    from tray_reader.voices.embedder import SpeakerEmbedder
    from tray_reader.voices.render import VoiceRenderer

    return VoiceRenderer(KokoroEngine.load(), TextFrontEnd(EnglishPhonemizer())), SpeakerEmbedder.load()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    args = ap.parse_args()
    renderer, embedder = loaded()
    runs = []
    for z, held_out in saved_runs(args.folders):
        run = replay(z, renderer, embedder)
        if held_out:
            runs.append(run)
        print(f"   stock word errors {run['errors'][0]:.3f}", flush=True)
        for i in run["winners"]:
            j = run["judgements"][i]
            print(
                f"   {i:2d} wins {j.wins:.2f} enc+judge {j.enc + j.judge:.3f} errors {run['errors'][i]:.3f}"
                f" B {be.percents(run['closed'][i])}  {run['labels'][i][:70]}",
                flush=True,
            )
    print(f"\nheld out: {len(runs)} runs; gap closed on clip B by the kept voice (enc/AHS/GE2E)")
    print("| order | limit | mean | worst | made voices kept | checks (failed) |")
    print("|---|---|---|---|---|---|")
    for name, order in ORDERS.items():
        for limit in LIMITS:
            checked: list[int] = []
            chosen = [kept(r, order, limit, checked=checked) for r in runs]
            got = np.array([r["closed"][k] for r, k in zip(runs, chosen, strict=True)])
            made = sum(k > 0 for k in chosen)
            print(
                f"| {name} | {limit} | {be.percents(got.mean(axis=0))} | {be.percents(got.min(axis=0))} | {made} "
                f"| {len(checked)} ({len(checked) - made}) |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
